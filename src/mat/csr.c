/* src/mat/csr.c: compressed sparse row matrix: y = alpha A x + beta y with A stored as rowptr/colidx/vals. */
#include <math.h>
#include <stdlib.h>

#include "mat_impl.h"

#define CSR(A) ((struct pds_mat_csr *)(A)->data)

static int csr_apply(pds_mat A, pds_real alpha, pds_vec x, pds_real beta, pds_vec y) {
  pds_ctx         ctx = A->hdr.ctx;
  const pds_real *xa;
  pds_real       *ya;

  if (x->f32) return pds_mat_csr_apply_f32(A, alpha, x, beta, y);
  PDS_KERNEL(ctx, csr.spmv);
  PDS_CALL(pds_vec_dev_read(x, &xa));
  PDS_CALL(pds_vec_dev_write(y, &ya));
  return ctx->k->csr.spmv(ctx, &CSR(A)->d, alpha, xa, beta, ya);
}

/* r = b - A x: the backend's one-pass kernel when it has one, else r = b then r = -1 A x + 1 r (the same bits) */
static int csr_residual(pds_mat A, pds_vec b, pds_vec x, pds_vec r) {
  pds_ctx         ctx = A->hdr.ctx;
  const pds_real *xa, *ba;
  pds_real       *ra;

  if (x->f32) return pds_mat_csr_residual_f32(A, b, x, r);
  if (!ctx->k->csr.residual) {
    PDS_CALL(pds_vec_copy(b, r));
    return csr_apply(A, -1.0, x, 1.0, r);
  }
  PDS_CALL(pds_vec_dev_read(x, &xa));
  PDS_CALL(pds_vec_dev_read(b, &ba));
  PDS_CALL(pds_vec_dev_write(r, &ra));
  return ctx->k->csr.residual(ctx, &CSR(A)->d, xa, ba, ra);
}

static int csr_apply_transpose(pds_mat A, pds_real alpha, pds_vec x, pds_real beta, pds_vec y) {
  pds_ctx         ctx = A->hdr.ctx;
  const pds_real *xa;
  pds_real       *ya;

  PDS_KERNEL(ctx, csr.spmv_t);
  PDS_CALL(pds_vec_dev_read(x, &xa));
  PDS_CALL(pds_vec_dev_write(y, &ya));
  return ctx->k->csr.spmv_t(ctx, &CSR(A)->d, alpha, xa, beta, ya);
}

static int csr_get_diagonal(pds_mat A, pds_vec d) {
  pds_ctx   ctx = A->hdr.ctx;
  pds_real *da;

  PDS_KERNEL(ctx, csr.diag);
  PDS_CALL(pds_vec_dev_write(d, &da));
  return ctx->k->csr.diag(ctx, &CSR(A)->d, da);
}

/* blocks[i][r][c] = A(i bs + r, i bs + c), from the host arrays (setup-time work) */
static int csr_get_block_diagonal(pds_mat A, int bs, pds_real *blocks) {
  const struct pds_csr *h = &CSR(A)->h;

  PDS_CALL(pds_mat_csr_host_sync(A));
  memset(blocks, 0, (size_t)A->nrows * bs * sizeof *blocks);
  for (pds_int i = 0; i < h->nrows; i++) {
    pds_int   b = i / bs, r = i % bs;
    pds_real *blk = blocks + (pds_size)b * bs * bs;

    for (pds_size k = h->rowptr[i]; k < h->rowptr[i + 1]; k++) {
      pds_int j = h->colidx[k];

      if (j / bs == b) blk[r * bs + j % bs] += h->vals[k];
    }
  }
  return PDS_OK;
}

/* the backend's word on how it runs the product (/gpu/cuda: the kernel its plan picked), when it has one */
static int csr_view(pds_mat A, FILE *f) {
  pds_ctx ctx = A->hdr.ctx;
  char    line[160];

  if (!ctx->k->csr.describe) return PDS_OK;
  PDS_CALL(ctx->k->csr.describe(ctx, &CSR(A)->d, line, sizeof line));
  fprintf(f, "  %s\n", line);
  return PDS_OK;
}

static int csr_destroy(pds_mat A) {
  struct pds_mat_csr *c   = CSR(A);
  pds_ctx             ctx = A->hdr.ctx;

  if (!c) return PDS_OK;
  if (c->own_h) {
    pds_free(ctx, PDS_MEM_HOST, &c->h.rowptr);
    pds_free(ctx, PDS_MEM_HOST, &c->h.colidx);
    pds_free(ctx, PDS_MEM_HOST, &c->h.vals);
  }
  if (!c->unified && c->own_d) {
    pds_free(ctx, PDS_MEM_DEVICE, &c->d.rowptr);
    pds_free(ctx, PDS_MEM_DEVICE, &c->d.colidx);
    pds_free(ctx, PDS_MEM_DEVICE, &c->d.vals);
  }
  pds_free(ctx, PDS_MEM_DEVICE, &c->vals32);
  free(c);
  A->data = NULL;
  return PDS_OK;
}

/* Check a host CSR structure: row pointers monotone from 0, columns in range, values finite. */
static int csr_validate(pds_ctx ctx, pds_int nrows, pds_int ncols, const pds_size *rp, const pds_int *ci,
                        const pds_real *v) {
  PDS_CHECK(rp, ctx, PDS_ERR_ARG, "rowptr is NULL");
  PDS_CHECK(rp[0] == 0, ctx, PDS_ERR_ARG, "rowptr[0] is %" PDS_SIZE_FMT ", must be 0 (0-based CSR)", rp[0]);
  for (pds_int i = 0; i < nrows; i++)
    PDS_CHECK(rp[i + 1] >= rp[i], ctx, PDS_ERR_ARG, "rowptr decreases at row %" PDS_INT_FMT, i);
  PDS_CHECK(rp[nrows] == 0 || (ci && v), ctx, PDS_ERR_ARG, "colidx or vals is NULL");
  for (pds_int i = 0; i < nrows; i++)
    for (pds_size k = rp[i]; k < rp[i + 1]; k++) {
      PDS_CHECK(ci[k] >= 0 && ci[k] < ncols, ctx, PDS_ERR_ARG, "column index %" PDS_INT_FMT " in row %" PDS_INT_FMT
                " is out of range [0, %" PDS_INT_FMT ")", ci[k], i, ncols);
      PDS_CHECK(isfinite(v[k]), ctx, PDS_ERR_ARG, "value at row %" PDS_INT_FMT ", column %" PDS_INT_FMT
                " is not finite (%g)", i, ci[k], v[k]);
    }
  return PDS_OK;
}

/* Fill c->d from c->h on device backends. */
static int csr_upload(pds_ctx ctx, struct pds_mat_csr *c) {
  c->d = c->h;
  if (c->unified) return PDS_OK;
  c->d.rowptr = NULL, c->d.colidx = NULL, c->d.vals = NULL;
  c->own_d    = 1;
  PDS_CALL(pds_dup_array(ctx, PDS_MEM_DEVICE, c->h.rowptr, PDS_MEM_HOST, (size_t)(c->h.nrows + 1) * sizeof(pds_size),
                     &c->d.rowptr));
  PDS_CALL(pds_dup_array(ctx, PDS_MEM_DEVICE, c->h.colidx, PDS_MEM_HOST, (size_t)c->h.nnz * sizeof(pds_int),
                     &c->d.colidx));
  return pds_dup_array(ctx, PDS_MEM_DEVICE, c->h.vals, PDS_MEM_HOST, (size_t)c->h.nnz * sizeof(pds_real), &c->d.vals);
}

static void csr_set_ops(pds_mat A) {
  A->ops.apply              = csr_apply;
  A->ops.apply_transpose    = csr_apply_transpose;
  A->ops.residual           = csr_residual;
  A->ops.get_diagonal       = csr_get_diagonal;
  A->ops.get_block_diagonal = csr_get_block_diagonal;
  A->ops.view               = csr_view;
  A->ops.destroy            = csr_destroy;
}

int pds_mat_csr_from_host_owned(pds_ctx ctx, pds_int nrows, pds_int ncols, pds_size *rowptr, pds_int *colidx,
                                pds_real *vals, pds_mat *A) {
  pds_mat             M = NULL;
  struct pds_mat_csr *c;
  int                 ierr;

  ierr = pds_mat_alloc(ctx, "csr", nrows, ncols, &M);
  if (!ierr) ierr = PDS_NEW(ctx, 1, &c);
  if (ierr) {
    free(M);
    pds_free(ctx, PDS_MEM_HOST, &rowptr), pds_free(ctx, PDS_MEM_HOST, &colidx), pds_free(ctx, PDS_MEM_HOST, &vals);
    return ierr;
  }
  M->data = c;
  csr_set_ops(M);
  c->h       = (struct pds_csr){nrows, ncols, rowptr[nrows], rowptr, colidx, vals};
  c->own_h   = 1;
  c->unified = ctx->k->mem_alloc == NULL;
  M->nnz     = c->h.nnz;
  ierr       = csr_upload(ctx, c);
  if (ierr) {
    pds_mat_destroy(&M);
    return ierr;
  }
  *A = M;
  return PDS_OK;
}

int pds_mat_create_csr(pds_ctx ctx, pds_int nrows, pds_int ncols, pds_size *rowptr, pds_int *colidx, pds_real *vals,
                       pds_memtype mt, pds_copymode cm, pds_mat *A) {
  pds_size *rp = NULL, *hrp = rowptr;
  pds_int  *ci = NULL, *hci = colidx;
  pds_real *v = NULL, *hv = vals;
  pds_size  nnz;
  int       ierr;

  PDS_CHECK(ctx, NULL, PDS_ERR_ARG, "context is NULL");
  PDS_CHECK(A, ctx, PDS_ERR_ARG, "output handle is NULL");
  *A = NULL;
  PDS_CHECK(nrows >= 0 && ncols >= 0, ctx, PDS_ERR_SIZE, "matrix size %" PDS_INT_FMT " x %" PDS_INT_FMT
            " is negative", nrows, ncols);
  PDS_CHECK(rowptr, ctx, PDS_ERR_ARG, "rowptr is NULL");
  PDS_CHECK(cm == PDS_COPY_VALUES || cm == PDS_USE_POINTER || cm == PDS_OWN_POINTER, ctx, PDS_ERR_ARG,
            "unknown copy mode %d", (int)cm);
  if (mt == PDS_MEM_DEVICE && ctx->k->mem_alloc) {
    /* device input: validate a host copy; device arrays are copied (ownership modes apply to host input) */
    PDS_CHECK(cm == PDS_COPY_VALUES, ctx, PDS_ERR_UNSUPPORTED, "device arrays can only be passed with PDS_COPY_VALUES");
    PDS_CALL(PDS_NEW(ctx, nrows + 1, &rp));
    PDS_CALL_GOTO(ierr, fail, pds_memcpy(ctx, rp, PDS_MEM_HOST, rowptr, mt, (size_t)(nrows + 1) * sizeof *rp));
    nnz = rp[nrows];
    PDS_CALL_GOTO(ierr, fail, PDS_NEW(ctx, nnz, &ci));
    PDS_CALL_GOTO(ierr, fail, PDS_NEW(ctx, nnz, &v));
    PDS_CALL_GOTO(ierr, fail, pds_memcpy(ctx, ci, PDS_MEM_HOST, colidx, mt, (size_t)nnz * sizeof *ci));
    PDS_CALL_GOTO(ierr, fail, pds_memcpy(ctx, v, PDS_MEM_HOST, vals, mt, (size_t)nnz * sizeof *v));
    hrp = rp, hci = ci, hv = v;
  }
  PDS_CALL_GOTO(ierr, fail, csr_validate(ctx, nrows, ncols, hrp, hci, hv));
  nnz = hrp[nrows];
  if (!rp && cm == PDS_COPY_VALUES) {
    PDS_CALL_GOTO(ierr, fail, pds_dup_array(ctx, PDS_MEM_HOST, hrp, PDS_MEM_HOST, (size_t)(nrows + 1) * sizeof *rp, &rp));
    PDS_CALL_GOTO(ierr, fail, pds_dup_array(ctx, PDS_MEM_HOST, hci, PDS_MEM_HOST, (size_t)nnz * sizeof *ci, &ci));
    PDS_CALL_GOTO(ierr, fail, pds_dup_array(ctx, PDS_MEM_HOST, hv, PDS_MEM_HOST, (size_t)nnz * sizeof *v, &v));
  }
  if (rp) return pds_mat_csr_from_host_owned(ctx, nrows, ncols, rp, ci, v, A);
  {
    /* the caller's host arrays, used in place (USE_POINTER) or taken over (OWN_POINTER) */
    pds_mat             M;
    struct pds_mat_csr *c;

    PDS_CALL(pds_mat_alloc(ctx, "csr", nrows, ncols, &M));
    ierr = PDS_NEW(ctx, 1, &c);
    if (ierr) {
      free(M);
      return ierr;
    }
    M->data = c;
    csr_set_ops(M);
    c->h       = (struct pds_csr){nrows, ncols, nnz, rowptr, colidx, vals};
    c->unified = ctx->k->mem_alloc == NULL;
    M->nnz     = nnz;
    ierr       = csr_upload(ctx, c);
    c->own_h   = cm == PDS_OWN_POINTER; /* only now: on failure the caller still owns its arrays */
    if (ierr) {
      c->own_h = 0;
      pds_mat_destroy(&M);
      return ierr;
    }
    *A = M;
    return PDS_OK;
  }
fail:
  pds_free(ctx, PDS_MEM_HOST, &rp);
  pds_free(ctx, PDS_MEM_HOST, &ci);
  pds_free(ctx, PDS_MEM_HOST, &v);
  return ierr;
}

/* Triplets -> CSR: count per row, scatter, sort each row by column, sum duplicates. */
int pds_mat_create_csr_from_triplets(pds_ctx ctx, pds_int nrows, pds_int ncols, pds_size nnz, const pds_int *rows,
                                     const pds_int *cols, const pds_real *vals, pds_mat *A) {
  pds_size *rp = NULL, *next = NULL;
  pds_int  *ci = NULL;
  pds_real *v  = NULL;
  int       ierr;

  PDS_CHECK(ctx, NULL, PDS_ERR_ARG, "context is NULL");
  PDS_CHECK(A, ctx, PDS_ERR_ARG, "output handle is NULL");
  *A = NULL;
  PDS_CHECK(nrows >= 0 && ncols >= 0 && nnz >= 0, ctx, PDS_ERR_SIZE, "negative size");
  PDS_CHECK(nnz == 0 || (rows && cols && vals), ctx, PDS_ERR_ARG, "triplet arrays are NULL");
  for (pds_size k = 0; k < nnz; k++) {
    PDS_CHECK(rows[k] >= 0 && rows[k] < nrows && cols[k] >= 0 && cols[k] < ncols, ctx, PDS_ERR_ARG,
              "triplet %" PDS_SIZE_FMT " (%" PDS_INT_FMT ", %" PDS_INT_FMT ") is outside the %" PDS_INT_FMT
              " x %" PDS_INT_FMT " matrix", k, rows[k], cols[k], nrows, ncols);
    PDS_CHECK(isfinite(vals[k]), ctx, PDS_ERR_ARG, "triplet %" PDS_SIZE_FMT " has a non-finite value", k);
  }
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, nrows + 1, &rp));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, nrows + 1, &next));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, nnz, &ci));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, nnz, &v));
  for (pds_size k = 0; k < nnz; k++) rp[rows[k] + 1]++;
  for (pds_int i = 0; i < nrows; i++) rp[i + 1] += rp[i];
  memcpy(next, rp, (size_t)(nrows + 1) * sizeof *rp);
  for (pds_size k = 0; k < nnz; k++) {
    pds_size p = next[rows[k]]++;

    ci[p] = cols[k];
    v[p]  = vals[k];
  }
  /* sort each row by column (insertion sort: rows are short) and sum duplicates, compacting in place */
  {
    pds_size out = 0;

    for (pds_int i = 0; i < nrows; i++) {
      pds_size start = rp[i], end = rp[i + 1], row_out = out;

      for (pds_size k = start + 1; k < end; k++) {
        pds_int  c = ci[k];
        pds_real x = v[k];
        pds_size m = k;

        while (m > start && ci[m - 1] > c) {
          ci[m] = ci[m - 1];
          v[m]  = v[m - 1];
          m--;
        }
        ci[m] = c;
        v[m]  = x;
      }
      for (pds_size k = start; k < end; k++) {
        if (out > row_out && ci[out - 1] == ci[k]) v[out - 1] += v[k];
        else {
          ci[out] = ci[k];
          v[out]  = v[k];
          out++;
        }
      }
      rp[i] = row_out;
    }
    rp[nrows] = out;
  }
  pds_free(ctx, PDS_MEM_HOST, &next);
  return pds_mat_csr_from_host_owned(ctx, nrows, ncols, rp, ci, v, A);
done:
  pds_free(ctx, PDS_MEM_HOST, &rp);
  pds_free(ctx, PDS_MEM_HOST, &next);
  pds_free(ctx, PDS_MEM_HOST, &ci);
  pds_free(ctx, PDS_MEM_HOST, &v);
  return ierr;
}

int pds_mat_csr_from_device_owned(pds_ctx ctx, pds_int nrows, pds_int ncols, pds_size nnz, pds_size *rowptr,
                                  pds_int *colidx, pds_real *vals, pds_mat *A) {
  pds_mat             M = NULL;
  struct pds_mat_csr *c = NULL;
  int                 ierr;

  if (ctx->k->mem_alloc == NULL) return pds_mat_csr_from_host_owned(ctx, nrows, ncols, rowptr, colidx, vals, A);
  ierr = pds_mat_alloc(ctx, "csr", nrows, ncols, &M);
  if (!ierr) ierr = PDS_NEW(ctx, 1, &c);
  if (ierr) {
    free(M);
    pds_free(ctx, PDS_MEM_DEVICE, &rowptr), pds_free(ctx, PDS_MEM_DEVICE, &colidx);
    pds_free(ctx, PDS_MEM_DEVICE, &vals);
    return ierr;
  }
  M->data = c;
  csr_set_ops(M);
  c->d         = (struct pds_csr){nrows, ncols, nnz, rowptr, colidx, vals};
  c->h         = (struct pds_csr){nrows, ncols, nnz, NULL, NULL, NULL};
  c->own_d     = 1;
  c->h_missing = 1;
  M->nnz       = nnz;
  *A           = M;
  return PDS_OK;
}

int pds_mat_csr_host_sync(pds_mat A) {
  struct pds_mat_csr *c;
  pds_ctx             ctx;
  struct pds_csr      h;
  int                 ierr;

  if (!A || strcmp(A->type, "csr") || !CSR(A)->h_missing) return PDS_OK;
  c = CSR(A), ctx = A->hdr.ctx, h = c->h;
  h.rowptr = NULL, h.colidx = NULL, h.vals = NULL;
  PDS_CALL_GOTO(ierr, fail, PDS_NEW(ctx, (size_t)h.nrows + 1, &h.rowptr));
  PDS_CALL_GOTO(ierr, fail, pds_malloc(ctx, PDS_MEM_HOST, (size_t)h.nnz * sizeof *h.colidx, &h.colidx));
  PDS_CALL_GOTO(ierr, fail, pds_malloc(ctx, PDS_MEM_HOST, (size_t)h.nnz * sizeof *h.vals, &h.vals));
  PDS_CALL_GOTO(ierr, fail, pds_memcpy(ctx, h.rowptr, PDS_MEM_HOST, c->d.rowptr, PDS_MEM_DEVICE,
                                       ((size_t)h.nrows + 1) * sizeof *h.rowptr));
  PDS_CALL_GOTO(ierr, fail, pds_memcpy(ctx, h.colidx, PDS_MEM_HOST, c->d.colidx, PDS_MEM_DEVICE,
                                       (size_t)h.nnz * sizeof *h.colidx));
  PDS_CALL_GOTO(ierr, fail, pds_memcpy(ctx, h.vals, PDS_MEM_HOST, c->d.vals, PDS_MEM_DEVICE,
                                       (size_t)h.nnz * sizeof *h.vals));
  c->h         = h;
  c->own_h     = 1;
  c->h_missing = 0;
  return PDS_OK;
fail:
  pds_free(ctx, PDS_MEM_HOST, &h.rowptr), pds_free(ctx, PDS_MEM_HOST, &h.colidx), pds_free(ctx, PDS_MEM_HOST, &h.vals);
  return ierr;
}

const struct pds_csr *pds_mat_host_csr(pds_mat A) {
  return A && A->hdr.classid == PDS_CLASSID_MAT && !strcmp(A->type, "csr") ? &CSR(A)->h : NULL;
}

int pds_mat_csr_get_arrays(pds_mat A, const pds_size **rowptr, const pds_int **colidx, const pds_real **vals) {
  const struct pds_csr *h;

  PDS_VALID(A, PDS_CLASSID_MAT, "matrix");
  PDS_CALL(pds_mat_csr_host_sync(A));
  h = pds_mat_host_csr(A);
  PDS_CHECK(h, A->hdr.ctx, PDS_ERR_ARG, "matrix is %s, not csr; use pds_mat_convert_to_csr", A->type);
  if (rowptr) *rowptr = h->rowptr;
  if (colidx) *colidx = h->colidx;
  if (vals) *vals = h->vals;
  return PDS_OK;
}
