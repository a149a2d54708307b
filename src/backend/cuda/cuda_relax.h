/* src/backend/cuda/cuda_relax.h: what the two host files of /gpu/cuda's relax group share: the plan that
 * plan_create makes (cuda_relax.c: device-resident sweeps) and that smooth_host reads (cuda_relax_stream.c: host-
 * resident patch sets streamed through the device). */
#ifndef PDS_CUDA_RELAX_H
#define PDS_CUDA_RELAX_H

#include "cuda_cublas.h"

/* a set of blocks swept at once: colour c (0 .. ncolors - 1) or every block (index ncolors: jacobi, chaotic) */
struct relax_group {
  int     s0, s1;     /* segments */
  pds_int b0, b1;     /* blocks */
  int     big0, big1; /* gemm: its segments for cuBLAS, bigseg[big0 .. big1) */
  pds_int mi0, mi1;   /* mapc: its work items, items[mi0 .. mi1) */
  pds_int si0, si1;   /* gemm: the work items of its small segments, items[si0 .. si1) */
};

struct relax_plan {
  int                 asked, variant;   /* the name given, what runs (auto resolved) */
  int                 no_cublas;        /* auto would have taken gemm, but cuBLAS could not be loaded: mapc runs */
  int                 stride, pack;     /* mapc, block products: threads per spatial block (the largest m), items per CTA */
  int                 reuse;            /* blocks per work item: products sharing one read of the inverse */
  int                 cpt, pstride, ppack; /* gemm's residual and update passes: cells per thread, threads per block,
                                              blocks per thread block */
  int                 mmax, ncolors, nsegs, gemm_min;
  pds_int             nblocks;
  pds_size            ncells;
  struct relax_group *grp;              /* [ncolors + 1] */
  int                *bigseg;           /* host: segment indices, group 0, 1, ..., then the all-blocks group */
  int                 nbig;             /* per sweep of every colour */
  int2               *items;            /* device: mapc's work items colour by colour, then gemm's small segments' */
  pds_int             nitems, nsmall;   /* items in all; blocks of small segments */
  const struct pds_cublas *cb;          /* gemm: cuBLAS, loaded at run time (cuda_cublas.h) */
  cublasHandle_t      blas;
  cudaStream_t        blas_stream;
  void               *ws;               /* device: cuBLAS's workspace */
  size_t              ws_bytes;
  int                 nside;            /* side streams for concurrent DGEMMs (cuda_relax.c, RELAX_NSIDE) */
  cudaStream_t        sstream[4];
  cublasHandle_t      sblas[4];         /* each bound to its side stream and its own workspace */
  void               *sws[4];
  cudaEvent_t         fork, join[4];
  int                 last_method;      /* -1 before the first smooth (plan_describe) */
  struct relax_stream *st;              /* smooth_host's slots (cuda_relax_stream.c), made at its first call */
};

/* cuda_relax_stream.c: the smooth_host slot, and the release of its slots (plan_destroy calls it) */
PDS_INTERN int  pds_cuda_relax_smooth_host(pds_ctx ctx, void *plan, const struct pds_patches *P,
                                           const struct pds_relax_layout *L, int method, int symmetric, pds_real omega,
                                           int sweeps, int order, int nslots, const pds_real *f, pds_real *u);
PDS_INTERN void pds_cuda_relax_stream_free(pds_ctx ctx, struct relax_stream *st);

#endif
