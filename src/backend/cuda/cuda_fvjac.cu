// src/backend/cuda/cuda_fvjac.cu: the kernels of the first-order finite-volume Jacobian on /gpu/cuda
// (src/disc/fv_jac_kernels.h; the slots are cuda_fvjac.c's): a thread per face for the faces' derivatives (20 Roe
// fluxes each: compute bound, about 3300 flops against 505 bytes), a thread per (cell, block entry) for the block rows
// (consecutive threads write consecutive entries of a block). Each runs fv_jac_bodies.h's arithmetic, compiled with
// -fmad=false: /cpu/ref's bits. Models: ref_fvjac.c's.
#include "../fv_jac_bodies.h"
#include "cuda_launch.cuh"

namespace {

constexpr int JT = 128; // threads a block

__global__ void fvjac_face_jac_k(struct pds_fv_dev D, const double *__restrict__ Q, double *__restrict__ JF) {
  pds_grid_dep();
  const pds_int f = (pds_int)(blockIdx.x * blockDim.x + threadIdx.x);

  if (f < D.nfaces) fv_face_jac(&D, f, Q, JF);
}

__global__ void fvjac_assemble_k(struct pds_fv_dev D, struct pds_fvjac_dev J, double cfl, const double *__restrict__ Q,
                                 const double *__restrict__ JF, double *__restrict__ vals) {
  pds_grid_dep();
  const long i = (long)blockIdx.x * blockDim.x + threadIdx.x;

  if (i < 25 * (long)D.ncells) fv_jac_row_entry(&D, &J, (pds_int)(i / 25), (int)(i % 25), cfl, Q, JF, vals);
}

} // namespace

extern "C" {

cudaError_t pds_cuda_fvjac_face_jac(cudaStream_t s, const struct pds_fv_dev *D, const pds_real *Q, pds_real *JF) {
  return pds_launch(fvjac_face_jac_k, dim3((unsigned)((D->nfaces + JT - 1) / JT)), dim3(JT), 0, s, *D, Q, JF);
}

cudaError_t pds_cuda_fvjac_assemble(cudaStream_t s, const struct pds_fv_dev *D, const struct pds_fvjac_dev *J,
                                    pds_real cfl, const pds_real *Q, const pds_real *JF, pds_real *vals) {
  return pds_launch(fvjac_assemble_k, dim3((unsigned)((25 * (long)D->ncells + JT - 1) / JT)), dim3(JT), 0, s, *D, *J,
                    cfl, Q, JF, vals);
}

} // extern "C"
