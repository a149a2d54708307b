/* src/backend/ref/ref_mat.c: /cpu/ref's matrix kernel groups (src/mat/mat_kernels.h): CSR and BSR products in
 * row order, the diagonals, and the product with its dots composed from the context's own table. */
#include <math.h>
#include <stdlib.h>

#include "../kernel_bodies.h"
#include "ref_impl.h"

static int csr_spmv_ref(pds_ctx ctx, const struct pds_csr *A, pds_real alpha, const pds_real *x, pds_real beta,
                        pds_real *y) {
  (void)ctx;
  csr_rows(A, alpha, x, beta, y, 0, A->nrows);
  return PDS_OK;
}

/* y = alpha A^T x + beta y, scattering row by row */
static int csr_spmv_t_ref(pds_ctx ctx, const struct pds_csr *A, pds_real alpha, const pds_real *x, pds_real beta,
                          pds_real *y) {
  (void)ctx;
  if (beta == 0)
    for (pds_int j = 0; j < A->ncols; j++) y[j] = 0;
  else if (beta != 1)
    for (pds_int j = 0; j < A->ncols; j++) y[j] *= beta;
  for (pds_int i = 0; i < A->nrows; i++) {
    pds_real ax = alpha * x[i];

    for (pds_size k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) y[A->colidx[k]] += A->vals[k] * ax;
  }
  return PDS_OK;
}

static int bsr_spmv_ref(pds_ctx ctx, const struct pds_bsr *A, pds_real alpha, const pds_real *x, pds_real beta,
                        pds_real *y) {
  (void)ctx;
  bsr_rows_dispatch(A, alpha, x, beta, y, 0, A->nbrows);
  return PDS_OK;
}

/* d_i = a_ii (sum of duplicates if any, 0 if absent) */
static int csr_diag_ref(pds_ctx ctx, const struct pds_csr *A, pds_real *d) {
  pds_int n = A->nrows < A->ncols ? A->nrows : A->ncols;

  (void)ctx;
  for (pds_int i = 0; i < n; i++) {
    d[i] = 0;
    for (pds_size k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
      if (A->colidx[k] == i) d[i] += A->vals[k];
  }
  return PDS_OK;
}

static int bsr_diag_ref(pds_ctx ctx, const struct pds_bsr *A, pds_real *d) {
  int     bs = A->bs;
  pds_int nb = A->nbrows < A->nbcols ? A->nbrows : A->nbcols;

  (void)ctx;
  for (pds_int i = 0; i < nb; i++) {
    for (int r = 0; r < bs; r++) d[(pds_size)i * bs + r] = 0;
    for (pds_size k = A->browptr[i]; k < A->browptr[i + 1]; k++)
      if (A->bcolidx[k] == i)
        for (int r = 0; r < bs; r++) d[(pds_size)i * bs + r] += A->vals[k * bs * bs + r * bs + r];
  }
  return PDS_OK;
}

static int bsr_diag_blocks_ref(pds_ctx ctx, const struct pds_bsr *A, pds_real *blocks) {
  const size_t bb = (size_t)A->bs * A->bs;
  pds_int      nb = A->nbrows < A->nbcols ? A->nbrows : A->nbcols;

  (void)ctx;
  for (pds_int i = 0; i < nb; i++) bsr_diag_block(A, i, blocks + (size_t)i * bb);
  return PDS_OK;
}

static int csr_spmv_dot_ref(pds_ctx ctx, const struct pds_csr *A, const pds_real *x, pds_real *y, const pds_real *w1,
                            const pds_real *w2, pds_real *d) {
  PDS_CALL(ctx->k->csr.spmv(ctx, A, 1.0, x, 0.0, y));
  return w2 ? ctx->k->vec.dot2(ctx, A->nrows, y, w1, w2, d) : ctx->k->vec.dot(ctx, A->nrows, y, w1, d);
}

void pds_ref_fill_csr(struct pds_csr_kernels *g) {
  g->spmv     = csr_spmv_ref;
  g->spmv_t   = csr_spmv_t_ref;
  g->spmv_dot = csr_spmv_dot_ref;
  g->diag     = csr_diag_ref;
}

void pds_ref_fill_bsr(struct pds_bsr_kernels *g) {
  g->spmv = bsr_spmv_ref;
  g->diag = bsr_diag_ref;
  g->diag_blocks = bsr_diag_blocks_ref;
}
