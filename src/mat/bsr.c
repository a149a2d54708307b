/* src/mat/bsr.c: block sparse row matrix (bs x bs row-major blocks), and CSR <-> BSR conversion. */
#include <math.h>
#include <stdlib.h>

#include "mat_impl.h"

#define BSR(A) ((struct pds_mat_bsr *)(A)->data)

static int bsr_apply(pds_mat A, pds_real alpha, pds_vec x, pds_real beta, pds_vec y) {
  pds_ctx         ctx = A->hdr.ctx;
  const pds_real *xa;
  pds_real       *ya;

  PDS_KERNEL(ctx, bsr.spmv);
  PDS_CALL(pds_vec_dev_read(x, &xa));
  PDS_CALL(pds_vec_dev_write(y, &ya));
  return ctx->k->bsr.spmv(ctx, &BSR(A)->d, alpha, xa, beta, ya);
}

static int bsr_get_diagonal(pds_mat A, pds_vec d) {
  pds_ctx   ctx = A->hdr.ctx;
  pds_real *da;

  PDS_KERNEL(ctx, bsr.diag);
  PDS_CALL(pds_vec_dev_write(d, &da));
  return ctx->k->bsr.diag(ctx, &BSR(A)->d, da);
}

/* Diagonal blocks of size bs; bs may differ from the storage block size (then entries are gathered). */
static int bsr_get_block_diagonal(pds_mat A, int bs, pds_real *blocks) {
  const struct pds_bsr *h  = &BSR(A)->h;
  int                   sb = h->bs;

  PDS_CALL(pds_mat_bsr_host_sync(A));
  memset(blocks, 0, (size_t)A->nrows * bs * sizeof *blocks);
  for (pds_int ib = 0; ib < h->nbrows; ib++)
    for (pds_size k = h->browptr[ib]; k < h->browptr[ib + 1]; k++)
      for (int r = 0; r < sb; r++)
        for (int c = 0; c < sb; c++) {
          pds_size i = (pds_size)ib * sb + r, j = (pds_size)h->bcolidx[k] * sb + c;

          if (i / bs == j / bs) blocks[(i / bs) * bs * bs + (i % bs) * bs + j % bs] += h->vals[(k * sb + r) * sb + c];
        }
  return PDS_OK;
}

static int bsr_destroy(pds_mat A) {
  struct pds_mat_bsr *b   = BSR(A);
  pds_ctx             ctx = A->hdr.ctx;

  if (!b) return PDS_OK;
  if (b->own_h) {
    pds_free(ctx, PDS_MEM_HOST, &b->h.browptr);
    pds_free(ctx, PDS_MEM_HOST, &b->h.bcolidx);
    pds_free(ctx, PDS_MEM_HOST, &b->h.vals);
  }
  if (!b->unified && b->own_d) {
    pds_free(ctx, PDS_MEM_DEVICE, &b->d.browptr);
    pds_free(ctx, PDS_MEM_DEVICE, &b->d.bcolidx);
    pds_free(ctx, PDS_MEM_DEVICE, &b->d.vals);
  }
  free(b);
  A->data = NULL;
  return PDS_OK;
}

static int bsr_upload(pds_ctx ctx, struct pds_mat_bsr *b) {
  size_t bb = (size_t)b->h.bs * b->h.bs;

  b->d = b->h;
  if (b->unified) return PDS_OK;
  b->d.browptr = NULL, b->d.bcolidx = NULL, b->d.vals = NULL;
  b->own_d     = 1;
  PDS_CALL(pds_dup_array(ctx, PDS_MEM_DEVICE, b->h.browptr, PDS_MEM_HOST, (size_t)(b->h.nbrows + 1) * sizeof(pds_size),
                     &b->d.browptr));
  PDS_CALL(pds_dup_array(ctx, PDS_MEM_DEVICE, b->h.bcolidx, PDS_MEM_HOST, (size_t)b->h.nnzb * sizeof(pds_int),
                     &b->d.bcolidx));
  return pds_dup_array(ctx, PDS_MEM_DEVICE, b->h.vals, PDS_MEM_HOST, (size_t)b->h.nnzb * bb * sizeof(pds_real),
                   &b->d.vals);
}

/* the scalar rows and columns fit 32-bit local indices */
static int bsr_check_size(pds_ctx ctx, pds_int nbrows, pds_int nbcols, int bs) {
  PDS_CHECK((pds_size)nbrows * bs <= PDS_INT_MAX && (pds_size)nbcols * bs <= PDS_INT_MAX, ctx, PDS_ERR_SIZE,
            "%" PDS_INT_FMT " x %d rows exceed the 32-bit local index range", nbrows, bs);
  return PDS_OK;
}

static void bsr_set_ops(pds_mat M) {
  M->ops.apply              = bsr_apply;
  M->ops.get_diagonal       = bsr_get_diagonal;
  M->ops.get_block_diagonal = bsr_get_block_diagonal;
  M->ops.destroy            = bsr_destroy;
}

/* Wrap host arrays in a bsr matrix; own says whether the matrix frees them (also on failure). */
static int bsr_wrap(pds_ctx ctx, pds_int nbrows, pds_int nbcols, int bs, pds_size *browptr, pds_int *bcolidx,
                    pds_real *vals, int own, pds_mat *A) {
  pds_mat             M = NULL;
  struct pds_mat_bsr *b;
  int                 ierr;

  ierr = bsr_check_size(ctx, nbrows, nbcols, bs);
  if (!ierr) ierr = pds_mat_alloc(ctx, "bsr", nbrows * bs, nbcols * bs, &M);
  if (!ierr) ierr = PDS_NEW(ctx, 1, &b);
  if (ierr) {
    free(M);
    if (own) pds_free(ctx, PDS_MEM_HOST, &browptr), pds_free(ctx, PDS_MEM_HOST, &bcolidx), pds_free(ctx, PDS_MEM_HOST, &vals);
    return ierr;
  }
  M->data = b;
  M->bs   = bs;
  bsr_set_ops(M);
  b->h                      = (struct pds_bsr){nbrows, nbcols, bs, browptr[nbrows], browptr, bcolidx, vals};
  b->own_h                  = own;
  b->unified                = ctx->k->mem_alloc == NULL;
  M->nnz                    = b->h.nnzb * bs * bs;
  ierr                      = bsr_upload(ctx, b);
  if (ierr) {
    pds_mat_destroy(&M);
    return ierr;
  }
  *A = M;
  return PDS_OK;
}

int pds_mat_bsr_from_host_owned(pds_ctx ctx, pds_int nbrows, pds_int nbcols, int bs, pds_size *browptr,
                                pds_int *bcolidx, pds_real *vals, pds_mat *A) {
  return bsr_wrap(ctx, nbrows, nbcols, bs, browptr, bcolidx, vals, 1, A);
}

int pds_mat_bsr_from_device_owned(pds_ctx ctx, pds_int nbrows, pds_int nbcols, int bs, pds_size *h_browptr,
                                  pds_int *h_bcolidx, pds_size *d_browptr, pds_int *d_bcolidx, pds_real *d_vals,
                                  pds_mat *A) {
  pds_mat             M = NULL;
  struct pds_mat_bsr *b = NULL;
  int                 ierr;

  if (ctx->k->mem_alloc == NULL) return bsr_wrap(ctx, nbrows, nbcols, bs, h_browptr, h_bcolidx, d_vals, 1, A);
  ierr = bsr_check_size(ctx, nbrows, nbcols, bs);
  if (!ierr) ierr = pds_mat_alloc(ctx, "bsr", nbrows * bs, nbcols * bs, &M);
  if (!ierr) ierr = PDS_NEW(ctx, 1, &b);
  if (ierr) {
    free(M);
    pds_free(ctx, PDS_MEM_HOST, &h_browptr), pds_free(ctx, PDS_MEM_HOST, &h_bcolidx);
    pds_free(ctx, PDS_MEM_DEVICE, &d_browptr), pds_free(ctx, PDS_MEM_DEVICE, &d_bcolidx);
    pds_free(ctx, PDS_MEM_DEVICE, &d_vals);
    return ierr;
  }
  M->data = b;
  M->bs   = bs;
  bsr_set_ops(M);
  b->h              = (struct pds_bsr){nbrows, nbcols, bs, h_browptr[nbrows], h_browptr, h_bcolidx, NULL};
  b->d              = (struct pds_bsr){nbrows, nbcols, bs, h_browptr[nbrows], d_browptr, d_bcolidx, d_vals};
  b->own_h          = 1;
  b->own_d          = 1;
  b->h_vals_missing = 1;
  M->nnz            = b->h.nnzb * bs * bs;
  *A                = M;
  return PDS_OK;
}

int pds_mat_bsr_host_sync(pds_mat A) {
  struct pds_mat_bsr *b;
  size_t              bytes;
  int                 ierr;

  if (!A || strcmp(A->type, "bsr") || !BSR(A)->h_vals_missing) return PDS_OK;
  b     = BSR(A);
  bytes = (size_t)b->h.nnzb * b->h.bs * b->h.bs * sizeof(pds_real);
  PDS_CALL(pds_malloc(A->hdr.ctx, PDS_MEM_HOST, bytes, &b->h.vals));
  ierr = pds_memcpy(A->hdr.ctx, b->h.vals, PDS_MEM_HOST, b->d.vals, PDS_MEM_DEVICE, bytes);
  if (ierr) pds_free(A->hdr.ctx, PDS_MEM_HOST, &b->h.vals);
  else b->h_vals_missing = 0;
  return ierr;
}

int pds_mat_create_bsr(pds_ctx ctx, pds_int nbrows, pds_int nbcols, int bs, pds_size *browptr, pds_int *bcolidx,
                       pds_real *vals, pds_memtype mt, pds_copymode cm, pds_mat *A) {
  pds_size *rp = NULL;
  pds_int  *ci = NULL;
  pds_real *v  = NULL;
  pds_size  nnzb;
  size_t    bb;
  int       ierr;

  PDS_CHECK(ctx, NULL, PDS_ERR_ARG, "context is NULL");
  PDS_CHECK(A, ctx, PDS_ERR_ARG, "output handle is NULL");
  *A = NULL;
  PDS_CHECK(bs >= 1, ctx, PDS_ERR_ARG, "block size %d must be at least 1", bs);
  PDS_CHECK(nbrows >= 0 && nbcols >= 0, ctx, PDS_ERR_SIZE, "negative block dimensions");
  PDS_CHECK(browptr, ctx, PDS_ERR_ARG, "browptr is NULL");
  PDS_CHECK(cm == PDS_COPY_VALUES || cm == PDS_USE_POINTER || cm == PDS_OWN_POINTER, ctx, PDS_ERR_ARG,
            "unknown copy mode %d", (int)cm);
  PDS_CHECK(mt == PDS_MEM_HOST || !ctx->k->mem_alloc || cm == PDS_COPY_VALUES, ctx, PDS_ERR_UNSUPPORTED,
            "device arrays can only be passed with PDS_COPY_VALUES");
  bb = (size_t)bs * bs;
  /* bring everything to a host copy first when the input is in device memory */
  if (mt == PDS_MEM_DEVICE && ctx->k->mem_alloc) {
    PDS_CALL(pds_dup_array(ctx, PDS_MEM_HOST, browptr, mt, (size_t)(nbrows + 1) * sizeof *rp, &rp));
    nnzb = rp[nbrows];
    PDS_CHECK(nnzb >= 0, ctx, PDS_ERR_ARG, "browptr[nbrows] is negative");
    PDS_CALL_GOTO(ierr, fail, pds_dup_array(ctx, PDS_MEM_HOST, bcolidx, mt, (size_t)nnzb * sizeof *ci, &ci));
    PDS_CALL_GOTO(ierr, fail, pds_dup_array(ctx, PDS_MEM_HOST, vals, mt, (size_t)nnzb * bb * sizeof *v, &v));
    browptr = rp, bcolidx = ci, vals = v;
  }
  ierr = PDS_ERR_ARG;
  if (browptr[0] != 0) {
    ierr = PDS_ERROR(ctx, PDS_ERR_ARG, "browptr[0] is %" PDS_SIZE_FMT ", must be 0", browptr[0]);
    goto fail;
  }
  for (pds_int i = 0; i < nbrows; i++) {
    if (browptr[i + 1] < browptr[i]) {
      ierr = PDS_ERROR(ctx, PDS_ERR_ARG, "browptr decreases at block row %" PDS_INT_FMT, i);
      goto fail;
    }
    for (pds_size k = browptr[i]; k < browptr[i + 1]; k++) {
      if (bcolidx[k] < 0 || bcolidx[k] >= nbcols) {
        ierr = PDS_ERROR(ctx, PDS_ERR_ARG, "block column %" PDS_INT_FMT " in block row %" PDS_INT_FMT
                         " is out of range [0, %" PDS_INT_FMT ")", bcolidx[k], i, nbcols);
        goto fail;
      }
      for (size_t e = 0; e < bb; e++)
        if (!isfinite(vals[(size_t)k * bb + e])) {
          ierr = PDS_ERROR(ctx, PDS_ERR_ARG, "block (%" PDS_INT_FMT ", %" PDS_INT_FMT ") holds a non-finite value", i,
                           bcolidx[k]);
          goto fail;
        }
    }
  }
  nnzb = browptr[nbrows];
  if (rp) return bsr_wrap(ctx, nbrows, nbcols, bs, rp, ci, v, 1, A);
  if (cm == PDS_COPY_VALUES) {
    PDS_CALL_GOTO(ierr, fail, pds_dup_array(ctx, PDS_MEM_HOST, browptr, PDS_MEM_HOST, (size_t)(nbrows + 1) * sizeof *rp, &rp));
    PDS_CALL_GOTO(ierr, fail, pds_dup_array(ctx, PDS_MEM_HOST, bcolidx, PDS_MEM_HOST, (size_t)nnzb * sizeof *ci, &ci));
    PDS_CALL_GOTO(ierr, fail, pds_dup_array(ctx, PDS_MEM_HOST, vals, PDS_MEM_HOST, (size_t)nnzb * bb * sizeof *v, &v));
    return bsr_wrap(ctx, nbrows, nbcols, bs, rp, ci, v, 1, A);
  }
  ierr = bsr_wrap(ctx, nbrows, nbcols, bs, browptr, bcolidx, vals, 0, A);
  if (!ierr && cm == PDS_OWN_POINTER) BSR(*A)->own_h = 1;
  return ierr;
fail:
  pds_free(ctx, PDS_MEM_HOST, &rp);
  pds_free(ctx, PDS_MEM_HOST, &ci);
  pds_free(ctx, PDS_MEM_HOST, &v);
  return ierr;
}

/* Number of bs x bs blocks that hold at least one CSR entry (mark[] is a scratch array of nbcols entries). */
static pds_size count_blocks(const struct pds_csr *h, int bs, pds_int *mark) {
  pds_int  nbr = h->nrows / bs, nbc = h->ncols / bs;
  pds_size nnzb = 0;

  for (pds_int j = 0; j < nbc; j++) mark[j] = -1;
  for (pds_int ib = 0; ib < nbr; ib++)
    for (pds_int i = ib * bs; i < (ib + 1) * bs; i++)
      for (pds_size k = h->rowptr[i]; k < h->rowptr[i + 1]; k++)
        if (mark[h->colidx[k] / bs] != ib) {
          mark[h->colidx[k] / bs] = ib;
          nnzb++;
        }
  return nnzb;
}

/* Block-size rule: the bs in 2..8 dividing both dimensions whose BSR storage (8 bytes per stored entry plus
   4 per block index) is smallest, if that beats CSR storage (12 bytes per entry); else 1. Ties: larger bs. */
static int detect_bs(pds_ctx ctx, const struct pds_csr *h, int *bs_out) {
  pds_int *mark;
  double   best = 12.0 * (double)h->nnz;
  int      bs_best = 1;

  PDS_CALL(PDS_NEW(ctx, h->ncols + 1, &mark));
  for (int bs = 2; bs <= 8; bs++) {
    double bytes;

    if (h->nrows % bs || h->ncols % bs) continue;
    bytes = (double)count_blocks(h, bs, mark) * (8.0 * bs * bs + 4.0);
    if (bytes <= best) best = bytes, bs_best = bs;
  }
  pds_free(ctx, PDS_MEM_HOST, &mark);
  *bs_out = bs_best;
  return PDS_OK;
}

int pds_mat_detect_block_size(pds_mat A, int *bs) {
  PDS_VALID(A, PDS_CLASSID_MAT, "matrix");
  PDS_CHECK(bs, A->hdr.ctx, PDS_ERR_ARG, "bs is NULL");
  if (strcmp(A->type, "csr")) {
    *bs = A->bs;
    return PDS_OK;
  }
  PDS_CALL(pds_mat_csr_host_sync(A));
  return detect_bs(A->hdr.ctx, pds_mat_host_csr(A), bs);
}

int pds_mat_convert_to_bsr(pds_mat A, int bs, pds_mat *B) {
  const struct pds_csr *h;
  pds_ctx               ctx;
  pds_int              *mark = NULL, *ci = NULL, nbr, nbc;
  pds_size             *rp = NULL, nnzb;
  pds_real             *v  = NULL;
  int                   ierr;

  PDS_VALID(A, PDS_CLASSID_MAT, "matrix");
  ctx = A->hdr.ctx;
  PDS_CHECK(B, ctx, PDS_ERR_ARG, "output handle is NULL");
  *B = NULL;
  if (!strcmp(A->type, "stencil7")) {
    PDS_CHECK(bs == 0 || bs == A->bs, ctx, PDS_ERR_UNSUPPORTED,
              "a stencil7 matrix of %d unknowns per point converts to bsr with block size %d (asked for %d)", A->bs,
              A->bs, bs);
    return pds_mat_stencil7_to_bsr(A, B);
  }
  PDS_CHECK(!strcmp(A->type, "csr") || !strcmp(A->type, "bsr"), ctx, PDS_ERR_UNSUPPORTED,
            "cannot convert a %s matrix to bsr", A->type);
  if (!strcmp(A->type, "bsr")) {
    PDS_CHECK(bs == 0 || bs == A->bs, ctx, PDS_ERR_UNSUPPORTED,
              "bsr to bsr with another block size (%d -> %d): convert to csr first", A->bs, bs);
    PDS_CALL(pds_mat_reference(A));
    *B = A;
    return PDS_OK;
  }
  PDS_CALL(pds_mat_csr_host_sync(A));
  h = pds_mat_host_csr(A);
  if (bs == 0) PDS_CALL(detect_bs(ctx, h, &bs));
  PDS_CHECK(bs >= 1, ctx, PDS_ERR_ARG, "block size %d must be at least 1 (0 = detect)", bs);
  PDS_CHECK(h->nrows % bs == 0 && h->ncols % bs == 0, ctx, PDS_ERR_SIZE,
            "block size %d does not divide the %" PDS_INT_FMT " x %" PDS_INT_FMT " matrix", bs, h->nrows, h->ncols);
  nbr = h->nrows / bs, nbc = h->ncols / bs;
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, nbc + 1, &mark));
  nnzb = count_blocks(h, bs, mark);
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, nbr + 1, &rp));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, nnzb, &ci));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)nnzb * bs * bs, &v)); /* zeroed: fill-in stays 0 */
  /* mark[jb] = position of block column jb in the current block row; block columns sorted ascending */
  for (pds_int j = 0; j < nbc; j++) mark[j] = -1;
  {
    pds_size pos = 0;

    for (pds_int ib = 0; ib < nbr; ib++) {
      pds_size start = pos;

      rp[ib] = start;
      for (pds_int i = ib * bs; i < (ib + 1) * bs; i++)
        for (pds_size k = h->rowptr[i]; k < h->rowptr[i + 1]; k++) {
          pds_int jb = h->colidx[k] / bs;

          if (mark[jb] < 0) {
            mark[jb] = 1;
            ci[pos++] = jb;
          }
        }
      /* sort this block row's columns, then record each column's slot */
      for (pds_size a = start + 1; a < pos; a++) {
        pds_int c = ci[a];
        pds_size m = a;

        while (m > start && ci[m - 1] > c) ci[m] = ci[m - 1], m--;
        ci[m] = c;
      }
      for (pds_size a = start; a < pos; a++) mark[ci[a]] = (pds_int)(a - start);
      for (pds_int i = ib * bs; i < (ib + 1) * bs; i++)
        for (pds_size k = h->rowptr[i]; k < h->rowptr[i + 1]; k++) {
          pds_int jb = h->colidx[k] / bs;

          v[((start + mark[jb]) * bs + (i - ib * bs)) * bs + h->colidx[k] % bs] += h->vals[k];
        }
      for (pds_size a = start; a < pos; a++) mark[ci[a]] = -1;
    }
    rp[nbr] = pos;
  }
  pds_free(ctx, PDS_MEM_HOST, &mark);
  return bsr_wrap(ctx, nbr, nbc, bs, rp, ci, v, 1, B);
done:
  pds_free(ctx, PDS_MEM_HOST, &mark);
  pds_free(ctx, PDS_MEM_HOST, &rp);
  pds_free(ctx, PDS_MEM_HOST, &ci);
  pds_free(ctx, PDS_MEM_HOST, &v);
  return ierr;
}

/* a patches matrix's CSR (patches.c; belongs in mat_impl.h) */

int pds_mat_convert_to_csr(pds_mat A, pds_mat *B) {
  const struct pds_bsr *h;
  pds_ctx               ctx;
  pds_size             *rp = NULL;
  pds_int              *ci = NULL;
  pds_real             *v  = NULL;
  int                   bs, ierr;

  PDS_VALID(A, PDS_CLASSID_MAT, "matrix");
  ctx = A->hdr.ctx;
  PDS_CHECK(B, ctx, PDS_ERR_ARG, "output handle is NULL");
  *B = NULL;
  if (!strcmp(A->type, "csr")) {
    PDS_CALL(pds_mat_reference(A));
    *B = A;
    return PDS_OK;
  }
  if (A->ops.to_csr) return A->ops.to_csr(A, B); /* patches, sem: their own assembly */
  PDS_CHECK(!strcmp(A->type, "bsr"), ctx, PDS_ERR_UNSUPPORTED, "cannot convert a %s matrix to csr", A->type);
  PDS_CALL(pds_mat_bsr_host_sync(A));
  h  = pds_mat_host_bsr(A);
  bs = h->bs;
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, A->nrows + 1, &rp));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, A->nnz, &ci));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, A->nnz, &v));
  for (pds_int ib = 0; ib < h->nbrows; ib++)
    for (int r = 0; r < bs; r++) {
      pds_size i = (pds_size)ib * bs + r, pos = rp[i];

      for (pds_size k = h->browptr[ib]; k < h->browptr[ib + 1]; k++)
        for (int c = 0; c < bs; c++) {
          ci[pos] = h->bcolidx[k] * bs + c;
          v[pos]  = h->vals[(k * bs + r) * bs + c];
          pos++;
        }
      rp[i + 1] = pos;
    }
  return pds_mat_csr_from_host_owned(ctx, A->nrows, A->ncols, rp, ci, v, B);
done:
  pds_free(ctx, PDS_MEM_HOST, &rp);
  pds_free(ctx, PDS_MEM_HOST, &ci);
  pds_free(ctx, PDS_MEM_HOST, &v);
  return ierr;
}

const struct pds_bsr *pds_mat_host_bsr(pds_mat A) {
  return A && A->hdr.classid == PDS_CLASSID_MAT && !strcmp(A->type, "bsr") ? &BSR(A)->h : NULL;
}

int pds_mat_bsr_get_arrays(pds_mat A, const pds_size **browptr, const pds_int **bcolidx, const pds_real **vals) {
  const struct pds_bsr *h;

  PDS_VALID(A, PDS_CLASSID_MAT, "matrix");
  h = pds_mat_host_bsr(A);
  PDS_CHECK(h, A->hdr.ctx, PDS_ERR_ARG, "matrix is %s, not bsr; use pds_mat_convert_to_bsr", A->type);
  if (vals) PDS_CALL(pds_mat_bsr_host_sync(A));
  if (browptr) *browptr = h->browptr;
  if (bcolidx) *bcolidx = h->bcolidx;
  if (vals) *vals = h->vals;
  return PDS_OK;
}

/* Block column c with values blk (b2 of them) into the block row cj[start .. *end), v alike, kept in column order:
   added to the block of the same column, else inserted (*end grows; the arrays have room for it). Rows are short (a
   grid point's arms and couplings), so the search and the shift are linear. */
void pds_bsr_row_add(pds_int *cj, pds_real *v, size_t b2, pds_size start, pds_size *end, pds_int c,
                     const pds_real *blk) {
  pds_size t = *end;

  while (t > start && cj[t - 1] > c) t--;
  if (t > start && cj[t - 1] == c) {
    for (size_t e = 0; e < b2; e++) v[(t - 1) * b2 + e] += blk[e];
    return;
  }
  memmove(cj + t + 1, cj + t, (size_t)(*end - t) * sizeof *cj);
  memmove(v + (t + 1) * b2, v + t * b2, (size_t)(*end - t) * b2 * sizeof *v);
  cj[t] = c;
  memcpy(v + t * b2, blk, b2 * sizeof *v);
  (*end)++;
}

/* Blocks given one by one (block k: block row row[k], block column col[k], values blocks[k bs^2 ..], host memory) as
   block rows: rows in order, each row's columns ascending, repeated (row, column) pairs summed. Rows are checked to lie
   in 0 .. nbrows-1 (the columns are the caller's to check); the arrays are new on ctx's allocator. The blocks go to
   their rows (a counting sort), then into each row in column order (pds_bsr_row_add). */
int pds_bsr_rows_from_blocks(pds_ctx ctx, pds_int nbrows, int bs, pds_size m, const pds_int *row, const pds_int *col,
                             const pds_real *blocks, pds_size **rp_out, pds_int **cj_out, pds_real **v_out) {
  const size_t b2 = (size_t)bs * bs;
  pds_size    *rp = NULL, *first = NULL, *order = NULL, nz = 0;
  pds_int     *cj = NULL;
  pds_real    *v  = NULL;
  int          ierr;

  for (pds_size k = 0; k < m; k++)
    PDS_CHECK(row[k] >= 0 && row[k] < nbrows, ctx, PDS_ERR_ARG, "block %" PDS_SIZE_FMT ": row %" PDS_INT_FMT
              " is outside 0 .. %" PDS_INT_FMT, k, row[k], nbrows - 1);
  ierr = PDS_NEW(ctx, (size_t)nbrows + 1, &rp);
  if (!ierr) ierr = PDS_NEW(ctx, (size_t)nbrows + 1, &first);
  if (!ierr) ierr = PDS_NEW(ctx, m ? m : 1, &order);
  if (!ierr) ierr = PDS_NEW(ctx, m ? m : 1, &cj);
  if (!ierr) ierr = PDS_NEW(ctx, (m ? m : 1) * b2, &v);
  if (ierr) goto fail;
  for (pds_size k = 0; k < m; k++) first[row[k] + 1]++;
  for (pds_int i = 0; i < nbrows; i++) first[i + 1] += first[i];
  for (pds_size k = 0; k < m; k++) order[first[row[k]]++] = k; /* the blocks row after row, in their given order */
  for (pds_int i = nbrows; i > 0; i--) first[i] = first[i - 1];
  first[0] = 0;
  for (pds_int i = 0; i < nbrows; i++) {
    rp[i] = nz;
    for (pds_size q = first[i]; q < first[i + 1]; q++)
      pds_bsr_row_add(cj, v, b2, rp[i], &nz, col[order[q]], blocks + order[q] * b2);
  }
  rp[nbrows] = nz;
  pds_free(ctx, PDS_MEM_HOST, &first);
  pds_free(ctx, PDS_MEM_HOST, &order);
  *rp_out = rp, *cj_out = cj, *v_out = v;
  return PDS_OK;
fail:
  pds_free(ctx, PDS_MEM_HOST, &rp);
  pds_free(ctx, PDS_MEM_HOST, &first);
  pds_free(ctx, PDS_MEM_HOST, &order);
  pds_free(ctx, PDS_MEM_HOST, &cj);
  pds_free(ctx, PDS_MEM_HOST, &v);
  return ierr;
}
