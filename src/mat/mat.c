/* src/mat/mat.c: the matrix interface: checks, reference counting, and dispatch to the format's ops. */
#include <stdlib.h>

#include "mat_impl.h"

#define MAT_CTX(A) ((A)->hdr.ctx)

static _Atomic unsigned long mat_ids;

int pds_mat_alloc(pds_ctx ctx, const char *type, pds_int nrows, pds_int ncols, pds_mat *A) {
  pds_mat M;

  PDS_CHECK(ctx, NULL, PDS_ERR_ARG, "context is NULL");
  PDS_CHECK(A, ctx, PDS_ERR_ARG, "output handle is NULL");
  PDS_CHECK(nrows >= 0 && ncols >= 0, ctx, PDS_ERR_SIZE, "matrix size %" PDS_INT_FMT " x %" PDS_INT_FMT
            " is negative", nrows, ncols);
  PDS_CALL(PDS_NEW(ctx, 1, &M));
  M->hdr.ctx     = ctx;
  M->hdr.classid = PDS_CLASSID_MAT;
  M->hdr.refct   = 1;
  M->type        = type;
  M->nrows       = nrows;
  M->ncols       = ncols;
  M->bs          = 1;
  M->id          = ++mat_ids;
  *A             = M;
  return PDS_OK;
}

int pds_mat_destroy(pds_mat *A) {
  pds_mat M;
  int     ierr = PDS_OK;

  if (!A || !*A) return PDS_OK;
  M = *A;
  PDS_VALID(M, PDS_CLASSID_MAT, "matrix");
  *A = NULL;
  if (--M->hdr.refct > 0) return PDS_OK;
  if (M->ops.destroy) ierr = M->ops.destroy(M);
  M->hdr.classid = PDS_CLASSID_FREED;
  free(M);
  return ierr;
}

int pds_mat_reference(pds_mat A) {
  PDS_VALID(A, PDS_CLASSID_MAT, "matrix");
  A->hdr.refct++;
  return PDS_OK;
}

const char *pds_mat_get_type(pds_mat A) { return A && A->hdr.classid == PDS_CLASSID_MAT ? A->type : NULL; }
pds_ctx     pds_mat_get_ctx(pds_mat A) { return A && A->hdr.classid == PDS_CLASSID_MAT ? A->hdr.ctx : NULL; }

int pds_mat_get_size(pds_mat A, pds_int *nrows, pds_int *ncols) {
  PDS_VALID(A, PDS_CLASSID_MAT, "matrix");
  if (nrows) *nrows = A->nrows;
  if (ncols) *ncols = A->ncols;
  return PDS_OK;
}

int pds_mat_get_block_size(pds_mat A, int *bs) {
  PDS_VALID(A, PDS_CLASSID_MAT, "matrix");
  *bs = A->bs;
  return PDS_OK;
}

int pds_mat_get_nnz(pds_mat A, pds_size *nnz) {
  PDS_VALID(A, PDS_CLASSID_MAT, "matrix");
  *nnz = A->nnz;
  return PDS_OK;
}

/* Checks for y = op(A) x: handles, contexts, sizes (transposed: x has nrows, y has ncols), no aliasing. */
static int mat_check_apply(pds_mat A, pds_vec x, pds_vec y, bool trans) {
  pds_int xn = trans ? A->nrows : A->ncols, yn = trans ? A->ncols : A->nrows;

  PDS_VALID(A, PDS_CLASSID_MAT, "matrix");
  PDS_VALID(x, PDS_CLASSID_VEC, "x");
  PDS_VALID(y, PDS_CLASSID_VEC, "y");
  PDS_CHECK(x->hdr.ctx == MAT_CTX(A) && y->hdr.ctx == MAT_CTX(A), MAT_CTX(A), PDS_ERR_ARG,
            "matrix and vectors belong to different contexts");
  PDS_CHECK(x->n == xn, MAT_CTX(A), PDS_ERR_SIZE,
            "x has length %" PDS_SIZE_FMT " but the %s matrix has %" PDS_INT_FMT " %s", x->n, A->type, xn,
            trans ? "rows" : "columns");
  PDS_CHECK(y->n == yn, MAT_CTX(A), PDS_ERR_SIZE,
            "y has length %" PDS_SIZE_FMT " but the %s matrix has %" PDS_INT_FMT " %s", y->n, A->type, yn,
            trans ? "columns" : "rows");
  PDS_CHECK(x != y, MAT_CTX(A), PDS_ERR_ARG, "x and y are the same vector; the product needs a separate output");
  return PDS_OK;
}

int pds_mat_apply_add(pds_mat A, pds_real alpha, pds_vec x, pds_real beta, pds_vec y) {
  PDS_CALL(mat_check_apply(A, x, y, false));
  return A->ops.apply(A, alpha, x, beta, y);
}

int pds_mat_apply(pds_mat A, pds_vec x, pds_vec y) { return pds_mat_apply_add(A, 1.0, x, 0.0, y); }

int pds_mat_apply_transpose(pds_mat A, pds_vec x, pds_vec y) {
  PDS_CALL(mat_check_apply(A, x, y, true));
  PDS_CHECK(A->ops.apply_transpose, MAT_CTX(A), PDS_ERR_UNSUPPORTED,
            "transpose apply is not available for %s matrices; convert to csr", A->type);
  return A->ops.apply_transpose(A, 1.0, x, 0.0, y);
}

int pds_mat_residual(pds_mat A, pds_vec b, pds_vec x, pds_vec r) {
  PDS_CALL(mat_check_apply(A, x, r, false));
  PDS_CHECK(b != x, MAT_CTX(A), PDS_ERR_ARG, "b and x are the same vector");
  PDS_VALID(b, PDS_CLASSID_VEC, "b");
  PDS_CHECK(b->hdr.ctx == MAT_CTX(A), MAT_CTX(A), PDS_ERR_ARG, "matrix and b belong to different contexts");
  PDS_CHECK(b->n == r->n, MAT_CTX(A), PDS_ERR_SIZE, "b has length %" PDS_SIZE_FMT " but the %s matrix has %"
            PDS_INT_FMT " rows", b->n, A->type, A->nrows);
  if (A->ops.residual) return A->ops.residual(A, b, x, r); /* one pass where the format and backend have it */
  PDS_CALL(pds_vec_copy(b, r));                 /* r = b */
  return A->ops.apply(A, -1.0, x, 1.0, r);      /* r = b - A x */
}

int pds_mat_get_diagonal(pds_mat A, pds_vec d) {
  PDS_VALID(A, PDS_CLASSID_MAT, "matrix");
  PDS_VALID(d, PDS_CLASSID_VEC, "d");
  PDS_CHECK(A->nrows == A->ncols, MAT_CTX(A), PDS_ERR_SIZE, "diagonal of a non-square matrix (%" PDS_INT_FMT
            " x %" PDS_INT_FMT ")", A->nrows, A->ncols);
  PDS_CHECK(d->n == A->nrows, MAT_CTX(A), PDS_ERR_SIZE, "d has length %" PDS_SIZE_FMT ", matrix has %" PDS_INT_FMT
            " rows", d->n, A->nrows);
  PDS_CHECK(A->ops.get_diagonal, MAT_CTX(A), PDS_ERR_UNSUPPORTED, "%s matrices have no diagonal", A->type);
  return A->ops.get_diagonal(A, d);
}

int pds_mat_get_block_diagonal(pds_mat A, int bs, pds_real *blocks) {
  PDS_VALID(A, PDS_CLASSID_MAT, "matrix");
  PDS_CHECK(blocks, MAT_CTX(A), PDS_ERR_ARG, "blocks is NULL");
  PDS_CHECK(A->nrows == A->ncols, MAT_CTX(A), PDS_ERR_SIZE, "block diagonal of a non-square matrix");
  PDS_CHECK(bs >= 1 && A->nrows % bs == 0, MAT_CTX(A), PDS_ERR_SIZE,
            "block size %d does not divide the %" PDS_INT_FMT " rows", bs, A->nrows);
  PDS_CHECK(A->ops.get_block_diagonal, MAT_CTX(A), PDS_ERR_UNSUPPORTED, "%s matrices have no block diagonal",
            A->type);
  return A->ops.get_block_diagonal(A, bs, blocks);
}

int pds_mat_view(pds_mat A, FILE *f) {
  PDS_VALID(A, PDS_CLASSID_MAT, "matrix");
  if (!f) f = stdout;
  fprintf(f, "matrix: type %s, %" PDS_INT_FMT " x %" PDS_INT_FMT ", block size %d, %" PDS_SIZE_FMT
          " stored entries, backend %s\n", A->type, A->nrows, A->ncols, A->bs, A->nnz, MAT_CTX(A)->backend);
  return A->ops.view ? A->ops.view(A, f) : PDS_OK;
}
