/* src/backend/cuda/cuda_cublas.h: cuBLAS, loaded at run time (cuda_cublas.c). Only relax's gemm variant
 * (cuda_relax.c) multiplies through it; the types come from cublas_v2.h at build time, the functions from
 * libcublas.so at the first call, so a process that never asks for gemm neither needs cuBLAS nor pays its load
 * (linked at build time, libcublas and libcublasLt added about 0.1 s to the start of every program using the library,
 * /cpu/ref runs included). */
#ifndef PDS_CUDA_CUBLAS_H
#define PDS_CUDA_CUBLAS_H

#include <cublas_v2.h>

#include "cuda_impl.h"

/* the functions relax's gemm variant calls (the _v2 entry points that cublas_v2.h's names stand for) */
struct pds_cublas {
  cublasStatus_t (*create)(cublasHandle_t *);
  cublasStatus_t (*destroy)(cublasHandle_t);
  cublasStatus_t (*set_stream)(cublasHandle_t, cudaStream_t);
  cublasStatus_t (*set_workspace)(cublasHandle_t, void *, size_t);
  cublasStatus_t (*set_atomics_mode)(cublasHandle_t, cublasAtomicsMode_t);
  cublasStatus_t (*set_pointer_mode)(cublasHandle_t, cublasPointerMode_t);
  cublasStatus_t (*dgemm)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const double *,
                          const double *, int, const double *, int, const double *, double *, int);
  const char *(*status_string)(cublasStatus_t);
};

/* The loaded functions (*out), loading libcublas once a process (thread-safe). Without it: PDS_ERR_UNSUPPORTED naming
   the library and what the loader said, *out NULL; report = 0 returns that code without recording an error (a caller
   that has another way, such as relax's auto variant, asks quietly). */
PDS_INTERN int pds_cublas_get(pds_ctx ctx, int report, const struct pds_cublas **out);

#endif
