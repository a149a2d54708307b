/* src/precond/precond_kernels.h: the dense-block kernel group (struct pds_kernels' member blocks,
 * src/backend/backend.h) of the point-block Jacobi preconditioner. Each backend fills it in its own file
 * (ref/ref_blocks.c, omp/omp_blocks.c, cuda/cuda_blocks.c with the kernels of cuda/cuda_bsr.cu); pbjacobi.c calls it as
 * ctx->k->blocks.<slot>. */
#ifndef PDS_PRECOND_KERNELS_H
#define PDS_PRECOND_KERNELS_H

#include "pdesolve.h"

struct pds_block_kernels {
  /* point-block Jacobi: invert nb dense bs x bs row-major blocks in place by Gauss-Jordan with partial
     pivoting; on a singular block set *bad to its index and return PDS_OK (the caller raises the error).
     *bad = -1 when all blocks were inverted. */
  int (*invert)(pds_ctx, pds_size nb, int bs, pds_real *blocks, pds_size *bad);
  /* y = blockdiag(inv) x for nb blocks of size bs */
  int (*apply)(pds_ctx, pds_size nb, int bs, const pds_real *inv, const pds_real *x, pds_real *y);
};

#endif
