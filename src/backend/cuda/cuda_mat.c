/* src/backend/cuda/cuda_mat.c: /gpu/cuda's matrix kernel groups (src/mat/mat_kernels.h): the CSR product plans
 * (one per structure, cached by the context: which kernel of cuda_csr.cu, the merge-path coordinates, the long
 * rows), the CSR products, the transpose (built once), the diagonals, and the BSR product (cuda_bsr.cu). */
#include "cuda_impl.h"

/* a CSR plan's device arrays (what csr_plan_build allocated, also after it failed half way) */
void pds_cuda_csr_plan_free(struct cuda_be *be, pds_cuda_csr_plan *pl) {
  pds_cuda_raw_free(be, pl->long_rows);
  pds_cuda_raw_free(be, pl->partial);
  pds_cuda_raw_free(be, pl->coord);
  pds_cuda_raw_free(be, pl->carry);
  memset(pl, 0, sizeof *pl);
}

void pds_cuda_csr_entry_free(struct cuda_be *be, struct csr_entry *e) {
  pds_cuda_csr_plan_free(be, &e->plan);
  pds_cuda_raw_free(be, e->t_rowptr);
  pds_cuda_raw_free(be, e->t_rowidx);
  pds_cuda_raw_free(be, e->t_perm);
  pds_cuda_csr_plan_free(be, &e->t_plan);
  free(e);
}


/* ---- CSR --------------------------------------------------------------------------------------------------- */
/* The plan of a CSR structure (the selection rule of cuda_csr.cu): the stream kernel when no row has more than
   PDS_CUDA_STREAM_MAXROW entries (and the matrix is large enough), the merge-path kernel when the row lengths are
   irregular (the longest row over 8 times the mean non-empty row, or a quarter of the rows empty), else lanes per row
   from the mean row length and row splitting for the rows longer than long_len. One statistics kernel and one small
   copy, once per structure; a second pair lists the long rows for row splitting. On failure the caller frees what
   was allocated (csr_plan_free). */
static int csr_plan_build(pds_ctx ctx, struct cuda_be *be, pds_int nrows, pds_size nnz, const pds_size *rowptr,
                          pds_cuda_csr_plan *pl) {
  unsigned long long st[2] = {0, 0}, longest, empty;
  double             m;
  int                cap;

  memset(pl, 0, sizeof *pl);
  pl->width    = pds_cuda_lanes_per_row(nrows > 0 ? (double)nnz / (double)nrows : 0);
  pl->long_len = 64 * (pds_size)pl->width > 256 ? 64 * (pds_size)pl->width : 256;
  if (nrows <= 0 || nnz <= PDS_CUDA_STREAM_MAXROW) { /* no row can be long */
    pl->stream = nrows >= PDS_CUDA_STREAM_MINROWS;
    return PDS_OK;
  }
  /* longest row and non-empty rows */
  PDS_CUDA_CALL(ctx, pds_cuda_csr_analyze(be->stream, nrows, rowptr, 0, be->dstat, NULL, 0));
  PDS_CALL(pds_cuda_fetch_stats(ctx, be, 2, st));
  longest = st[0], empty = (unsigned long long)nrows - st[1];
  /* every row short, and enough rows to fill the GPU: thread per row over staged products */
  pl->stream = longest <= PDS_CUDA_STREAM_MAXROW && nrows >= PDS_CUDA_STREAM_MINROWS;
  if (pl->stream) return PDS_OK;
  m = (double)nnz / (double)st[1]; /* mean length of the non-empty rows (nnz > 0: there is one) */
  if (((double)longest > 8 * (m > 4 ? m : 4) || 4 * empty >= (unsigned long long)nrows) &&
      PDS_CUDA_MERGE_CTAS(nrows, nnz) < INT_MAX) { /* irregular: merge-path */
    pl->merge = 1;
    pl->ncta  = (int)PDS_CUDA_MERGE_CTAS(nrows, nnz);
    PDS_CALL(pds_cuda_dev_alloc(ctx, be, ((size_t)pl->ncta + 1) * sizeof *pl->coord, (void **)&pl->coord));
    PDS_CALL(pds_cuda_dev_alloc(ctx, be, 2 * (size_t)pl->ncta * sizeof *pl->carry, (void **)&pl->carry));
    PDS_CUDA_CALL(ctx, pds_cuda_csr_merge_setup(be->stream, pl, nrows, nnz, rowptr));
    return PDS_OK;
  }
  if (longest <= (unsigned long long)pl->long_len) return PDS_OK;
  /* the long rows, for row splitting */
  cap = (int)(nnz / (pl->long_len + 1) + 1 < INT_MAX ? nnz / (pl->long_len + 1) + 1 : INT_MAX);
  PDS_CALL(pds_cuda_dev_alloc(ctx, be, (size_t)cap * sizeof(int), (void **)&pl->long_rows));
  PDS_CUDA_CALL(ctx, pds_cuda_csr_analyze(be->stream, nrows, rowptr, pl->long_len, be->dstat, pl->long_rows, cap));
  PDS_CALL(pds_cuda_fetch_stats(ctx, be, 2, st));
  pl->nlong = (int)(st[1] < (unsigned long long)cap ? st[1] : (unsigned long long)cap);
  pl->seg   = ((pds_size)(longest + 63) / 64 + 255) / 256 * 256;
  pl->seg   = pl->seg < 4096 ? 4096 : pl->seg;
  pl->nseg  = (int)(((pds_size)longest + pl->seg - 1) / pl->seg);
  return pds_cuda_dev_alloc(ctx, be, (size_t)pl->nlong * pl->nseg * sizeof(pds_real), (void **)&pl->partial);
}

int pds_cuda_csr_entry(pds_ctx ctx, struct cuda_be *be, const struct pds_csr *A, struct csr_entry **out) {
  struct csr_entry *e;
  int               ierr;

  for (e = be->csr; e; e = e->next)
    if (e->rowptr == A->rowptr && e->colidx == A->colidx && e->nrows == A->nrows && e->ncols == A->ncols &&
        e->nnz == A->nnz) {
      *out = e;
      return PDS_OK;
    }
  e = calloc(1, sizeof *e);
  PDS_CHECK(e, ctx, PDS_ERR_MEM, "allocation of a CSR plan (%zu bytes of host memory) failed", sizeof *e);
  e->rowptr = A->rowptr, e->colidx = A->colidx, e->nrows = A->nrows, e->ncols = A->ncols, e->nnz = A->nnz;
  ierr = csr_plan_build(ctx, be, A->nrows, A->nnz, A->rowptr, &e->plan);
  if (ierr) {
    pds_cuda_csr_entry_free(be, e);
    return ierr;
  }
  e->next = be->csr;
  be->csr = e;
  *out    = e;
  return PDS_OK;
}

static int csr_spmv_cuda(pds_ctx ctx, const struct pds_csr *A, pds_real alpha, const pds_real *x, pds_real beta,
                         pds_real *y) {
  struct cuda_be   *be = pds_cuda_enter(ctx);
  struct csr_entry *e;

  if (A->nrows <= 0) return PDS_OK;
  PDS_CALL(pds_cuda_csr_entry(ctx, be, A, &e));
  PDS_CUDA_CALL(ctx, pds_cuda_csr_spmv(be->stream, &e->plan, A->nrows, A->rowptr, A->colidx, A->vals, NULL, alpha, x,
                                       beta, y));
  return PDS_OK;
}

/* y = A x with its dots: one kernel for stream plans; the others take the product and a dot kernel in turn */
static int csr_spmv_dot_cuda(pds_ctx ctx, const struct pds_csr *A, const pds_real *x, pds_real *y, const pds_real *w1,
                             const pds_real *w2, pds_real *d) {
  struct cuda_be   *be = pds_cuda_enter(ctx);
  struct csr_entry *e;

  if (A->nrows <= 0) { /* empty dots */
    PDS_CUDA_CALL(ctx, cudaMemsetAsync(d, 0, (w2 ? 2 : 1) * sizeof *d, be->stream));
    return PDS_OK;
  }
  PDS_CALL(pds_cuda_csr_entry(ctx, be, A, &e));
  if (e->plan.stream) {
    PDS_CUDA_CALL(ctx, pds_cuda_csr_spmv_dot(be->stream, &e->plan, be->red, A->nrows, A->rowptr, A->colidx, A->vals,
                                             x, y, w1, w2, d));
    return PDS_OK;
  }
  PDS_CUDA_CALL(ctx, pds_cuda_csr_spmv(be->stream, &e->plan, A->nrows, A->rowptr, A->colidx, A->vals, NULL, 1.0, x,
                                       0.0, y));
  if (w2) PDS_CUDA_CALL(ctx, pds_cuda_vec_dot2(be->stream, be->red, A->nrows, y, w1, w2, d));
  else PDS_CUDA_CALL(ctx, pds_cuda_vec_dot(be->stream, be->red, A->nrows, y, w1, d));
  return PDS_OK;
}

static int csr_spmv_t_cuda(pds_ctx ctx, const struct pds_csr *A, pds_real alpha, const pds_real *x, pds_real beta,
                           pds_real *y) {
  struct cuda_be   *be = pds_cuda_enter(ctx);
  struct csr_entry *e;

  if (A->ncols <= 0) return PDS_OK;
  PDS_CHECK(A->nnz < INT_MAX, ctx, PDS_ERR_UNSUPPORTED,
            "backend /gpu/cuda: the transpose product needs nnz < 2^31 (has %" PDS_SIZE_FMT ")", A->nnz);
  PDS_CALL(pds_cuda_csr_entry(ctx, be, A, &e));
  if (!e->have_t) { /* built once; on failure nothing is kept */
    int         ierr = PDS_OK;
    cudaError_t ce;

    if (!ierr) ierr = pds_cuda_dev_alloc(ctx, be, ((size_t)A->ncols + 1) * sizeof(pds_size), (void **)&e->t_rowptr);
    if (!ierr) ierr = pds_cuda_dev_alloc(ctx, be, (size_t)A->nnz * sizeof(pds_int), (void **)&e->t_rowidx);
    if (!ierr) ierr = pds_cuda_dev_alloc(ctx, be, (size_t)A->nnz * sizeof(pds_int), (void **)&e->t_perm);
    if (!ierr) {
      ce = pds_cuda_csr_transpose(be->stream, A->nrows, A->ncols, A->nnz, A->rowptr, A->colidx, e->t_rowptr,
                                  e->t_rowidx, e->t_perm, pds_cuda_scratch_alloc, pds_cuda_scratch_release, be);
      if (ce != cudaSuccess) ierr = pds_cuda_error(ctx, __FILE__, __LINE__, __func__, ce, "pds_cuda_csr_transpose");
    }
    if (!ierr) ierr = csr_plan_build(ctx, be, A->ncols, A->nnz, e->t_rowptr, &e->t_plan);
    if (ierr) {
      pds_cuda_raw_free(be, e->t_rowptr), pds_cuda_raw_free(be, e->t_rowidx), pds_cuda_raw_free(be, e->t_perm);
      e->t_rowptr = NULL, e->t_rowidx = NULL, e->t_perm = NULL;
      pds_cuda_csr_plan_free(be, &e->t_plan);
      return ierr;
    }
    e->have_t = 1;
  }
  PDS_CUDA_CALL(ctx, pds_cuda_csr_spmv(be->stream, &e->t_plan, A->ncols, e->t_rowptr, e->t_rowidx, A->vals, e->t_perm,
                                       alpha, x, beta, y));
  return PDS_OK;
}
/* -view: which kernel the plan of A's product picked (builds the plan if the product has not run yet) */
static int csr_describe_cuda(pds_ctx ctx, const struct pds_csr *A, char *buf, size_t len) {
  struct cuda_be          *be = pds_cuda_enter(ctx);
  struct csr_entry        *e;
  const pds_cuda_csr_plan *pl;
  int                      n;

  if (A->nrows <= 0) {
    snprintf(buf, len, "cuda plan: none (no rows)");
    return PDS_OK;
  }
  PDS_CALL(pds_cuda_csr_entry(ctx, be, A, &e));
  pl = &e->plan;
  if (pl->stream) n = snprintf(buf, len, "cuda plan: stream kernel (thread per row over block-staged products)");
  else if (pl->merge)
    n = snprintf(buf, len, "cuda plan: merge-path (nnz-balanced), %d CTAs of %d items", pl->ncta,
                 PDS_CUDA_MERGE_TILE);
  else if (pl->width == 1) n = snprintf(buf, len, "cuda plan: thread per row");
  else n = snprintf(buf, len, "cuda plan: %d lanes per row", pl->width);
  if (pl->nlong > 0 && n >= 0 && (size_t)n < len)
    snprintf(buf + n, len - (size_t)n, ", row splitting for %d rows of over %" PDS_SIZE_FMT " entries", pl->nlong,
             pl->long_len);
  return PDS_OK;
}

static int csr_diag_cuda(pds_ctx ctx, const struct pds_csr *A, pds_real *d) {
  pds_int n = A->nrows < A->ncols ? A->nrows : A->ncols;

  LAUNCH(ctx, pds_cuda_csr_diag(s_, n, A->rowptr, A->colidx, A->vals, d));
}

/* ---- BSR and point-block Jacobi ---------------------------------------------------------------------------- */
static int bsr_spmv_cuda(pds_ctx ctx, const struct pds_bsr *A, pds_real alpha, const pds_real *x, pds_real beta,
                         pds_real *y) {
  LAUNCH(ctx, pds_cuda_bsr_spmv(s_, PDS_CUDA_BSR_ROW, PDS_CUDA_BSR_AUTO, A->nbrows, A->bs, A->nnzb, A->browptr,
                                A->bcolidx, A->vals, alpha, x, beta, y));
}

static int bsr_diag_cuda(pds_ctx ctx, const struct pds_bsr *A, pds_real *d) {
  pds_int nb = A->nbrows < A->nbcols ? A->nbrows : A->nbcols;

  LAUNCH(ctx, pds_cuda_bsr_diag(s_, nb, A->bs, A->browptr, A->bcolidx, A->vals, d));
}

void pds_cuda_fill_csr(struct pds_csr_kernels *g) {
  g->spmv     = csr_spmv_cuda;
  g->spmv_t   = csr_spmv_t_cuda;
  g->spmv_dot = csr_spmv_dot_cuda;
  g->describe = csr_describe_cuda;
  g->diag     = csr_diag_cuda;
}

static int bsr_diag_blocks_cuda(pds_ctx ctx, const struct pds_bsr *A, pds_real *blocks) {
  pds_int nb = A->nbrows < A->nbcols ? A->nbrows : A->nbcols;

  LAUNCH(ctx, pds_cuda_bsr_diag_blocks(s_, nb, A->bs, A->browptr, A->bcolidx, A->vals, blocks));
}

void pds_cuda_fill_bsr(struct pds_bsr_kernels *g) {
  g->spmv = bsr_spmv_cuda;
  g->diag = bsr_diag_cuda;
  g->diag_blocks = bsr_diag_blocks_cuda;
}
