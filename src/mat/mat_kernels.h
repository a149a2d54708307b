/* src/mat/mat_kernels.h: the matrix data as kernels see it (struct pds_csr, struct pds_bsr) and the matrix kernel
 * groups (struct pds_kernels' members csr and bsr, src/backend/backend.h). Each backend fills them in its own file
 * (ref/ref_mat.c, omp/omp_mat.c, cuda/cuda_mat.c with the kernels of cuda/cuda_csr.cu and cuda_bsr.cu); the matrix
 * formats call them as ctx->k->csr.<slot>, ctx->k->bsr.<slot>. */
#ifndef PDS_MAT_KERNELS_H
#define PDS_MAT_KERNELS_H

#include "pdesolve.h"

/* Matrix data as kernels see it. */
struct pds_csr {
  pds_int   nrows, ncols;
  pds_size  nnz;
  pds_size *rowptr; /* [nrows+1] */
  pds_int  *colidx; /* [nnz] */
  pds_real *vals;   /* [nnz] */
};
struct pds_bsr {
  pds_int   nbrows, nbcols;
  int       bs;
  pds_size  nnzb;
  pds_size *browptr; /* [nbrows+1] */
  pds_int  *bcolidx; /* [nnzb] */
  pds_real *vals;    /* [nnzb][bs][bs], row-major blocks */
};

/* A structured 7-point block matrix (stencil7, src/mat/stencil7.c) is one grid or several independent grids (the
   blocks of a multi-block code, coupled only through the right-hand side). One grid as kernels see it: I x J x K
   points p = (i J + j) K + k (k fastest) that are the matrix's points first + p, n unknowns per point (row
   (first + p) n + u), and for each point 7 blocks of n x n (row-major) at vals[((first + p) 7 + a) n^2]: a = 0 alpha
   (k-1), 1 beta (j-1), 2 gamma (i-1), 3 delta (the point), 4 epsilon (i+1), 5 zeta (j+1), 6 eta (k+1), the naming
   of paper 000; an arm pointing out of its grid is stored and is zero. vals is the whole matrix's array. */
struct pds_stencil7 {
  pds_int   I, J, K;
  int       n;
  pds_size  first;
  pds_real *vals;
};

struct pds_csr_kernels {
  /* y = alpha A x + beta y (beta = 0: y is not read) */
  int (*spmv)(pds_ctx, const struct pds_csr *A, pds_real alpha, const pds_real *x, pds_real beta, pds_real *y);
  int (*spmv_t)(pds_ctx, const struct pds_csr *A, pds_real alpha, const pds_real *x, pds_real beta, pds_real *y);
  /* optional: r = b - A x in one pass, each entry spmv's -1 s + 1 b_i (its bits with y = b); NULL: the matrix
     layer copies b to r and calls spmv (alpha -1, beta 1) */
  int (*residual)(pds_ctx, const struct pds_csr *A, const pds_real *x, const pds_real *b, pds_real *r);
  /* y = A x with dots of the result in the same pass (the Krylov methods' product and the reduction after it):
     d[0] = y . w1, and d[1] = y . w2 when w2 != NULL (w1 may be x, w2 may be y; d: backend memory). ref composes
     spmv (alpha 1, beta 0) with vec.dot / vec.dot2, which is what the unfused sequence computes. */
  int (*spmv_dot)(pds_ctx, const struct pds_csr *A, const pds_real *x, pds_real *y, const pds_real *w1,
                      const pds_real *w2, pds_real *d);
  /* optional: one line (no newline) saying how this backend runs A's product, for -view ("cuda plan: stream
     kernel"); NULL where there is nothing to tell (ref, omp) */
  int (*describe)(pds_ctx, const struct pds_csr *A, char *buf, size_t len);
  int (*diag)(pds_ctx, const struct pds_csr *A, pds_real *d); /* d_i = a_ii */
};

struct pds_bsr_kernels {
  int (*spmv)(pds_ctx, const struct pds_bsr *A, pds_real alpha, const pds_real *x, pds_real beta, pds_real *y);
  int (*diag)(pds_ctx, const struct pds_bsr *A, pds_real *d); /* scalar diagonal */
  /* the bs x bs diagonal blocks, row-major: blocks[(i bs + r) bs + c] = the sum over block row i's blocks in column i,
     in storage order from 0 (zero where there is none), i < min(nbrows, nbcols) (pbjacobi's setup, on the backend) */
  int (*diag_blocks)(pds_ctx, const struct pds_bsr *A, pds_real *blocks);
};

/* stencil7 products over the nb grids g[0..nb) of a matrix: y = alpha A x + beta y (beta = 0: y is not read); row u
   of a point adds its arms' products in the order a = 0..6 (arms present in the grid), each over v ascending, from 0
   (stencil7_bodies.h: every backend's arithmetic). g: host memory. */
struct pds_stencil7_kernels {
  int (*spmv)(pds_ctx, const struct pds_stencil7 *g, int nb, pds_real alpha, const pds_real *x, pds_real beta,
              pds_real *y);
};

#endif
