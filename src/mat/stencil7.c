/* src/mat/stencil7.c: structured 7-point block matrices ("stencil7"): one I x J x K grid, or several grids (the
 * blocks of a multi-block structured code), with n x n coefficient blocks for each point and its six neighbours
 * (paper 000's alpha .. eta; the layout is struct pds_stencil7's, src/mat/mat_kernels.h): the system of an implicit
 * n-equation solver. The grids are either independent (a block-diagonal matrix) or coupled where one domain was cut
 * into blocks: the couplings across the cuts are a separate bsr matrix C (bs = n) beside the grids' arms, so
 * A = G + C. The product runs through the stencil7 kernel group over all grids at once, then adds C x; conversion
 * to BSR (bs = n, each row's blocks in column order) gives every CSR/BSR path; block ILU(0) (src/precond/bilu0.c)
 * factors G alone, grid by grid: C is left to the residual, paper 000's multi-block coupling (Eq. 4). */
#include <math.h>
#include <stdlib.h>

#include "../backend/stencil7_bodies.h" /* s7_inside, s7_offset: which arms of a point lie in its grid, and where */
#include "mat_impl.h"

#define S7(A) ((struct pds_mat_stencil7 *)(A)->data)

struct pds_mat_stencil7 {
  int                  nb;      /* grids */
  struct pds_stencil7 *h, *d;   /* [nb] grid views (host memory) of the host and the backend values */
  pds_real            *hv, *dv; /* the values, [points][7][n][n]: the same array on CPU backends */
  pds_size             np;      /* points */
  pds_mat              C;       /* the couplings between grids (bsr, np x np blocks of n x n), or NULL */
};

static const char *const arm_names[7] = {"alpha (k-1)", "beta (j-1)", "gamma (i-1)", "delta (centre)",
                                         "epsilon (i+1)", "zeta (j+1)", "eta (k+1)"};

static int s7_apply(pds_mat A, pds_real alpha, pds_vec x, pds_real beta, pds_vec y) {
  pds_ctx         ctx = A->hdr.ctx;
  const pds_real *xa;
  pds_real       *ya;

  PDS_KERNEL(ctx, stencil7.spmv);
  if (!S7(A)->np) return PDS_OK;
  PDS_CALL(pds_vec_dev_read(x, &xa));
  PDS_CALL(pds_vec_dev_write(y, &ya));
  PDS_CALL(ctx->k->stencil7.spmv(ctx, S7(A)->d, S7(A)->nb, alpha, xa, beta, ya));
  return S7(A)->C ? pds_mat_apply_add(S7(A)->C, alpha, x, 1.0, y) : PDS_OK;
}

/* the centre blocks, n x n each, host memory */
static int s7_get_block_diagonal(pds_mat A, int bs, pds_real *blocks) {
  const struct pds_mat_stencil7 *s  = S7(A);
  const size_t                   nn = (size_t)A->bs * A->bs;

  PDS_CHECK(bs == A->bs, A->hdr.ctx, PDS_ERR_UNSUPPORTED,
            "the diagonal blocks of a stencil7 matrix are %d x %d (asked for block size %d)", A->bs, A->bs, bs);
  for (pds_size p = 0; p < s->np; p++) memcpy(blocks + p * nn, s->hv + ((size_t)p * 7 + 3) * nn, nn * sizeof *blocks);
  return PDS_OK;
}

static int s7_get_diagonal(pds_mat A, pds_vec d) {
  const struct pds_mat_stencil7 *s = S7(A);
  const int                      n = A->bs;
  pds_real                      *a;

  PDS_CALL(pds_vec_get_array_write(d, PDS_MEM_HOST, &a));
  for (pds_size p = 0; p < s->np; p++)
    for (int u = 0; u < n; u++) a[p * n + u] = s->hv[((size_t)p * 7 + 3) * n * n + (size_t)u * n + u];
  return pds_vec_restore_array_write(d, &a);
}

static int s7_view(pds_mat A, FILE *f) {
  const struct pds_mat_stencil7 *s = S7(A);

  if (s->nb == 1)
    fprintf(f, "  stencil7 grid %" PDS_INT_FMT " x %" PDS_INT_FMT " x %" PDS_INT_FMT ", %d unknowns per point\n",
            s->h[0].I, s->h[0].J, s->h[0].K, A->bs);
  else
    fprintf(f, "  stencil7: %d grids, %" PDS_SIZE_FMT " points, %d unknowns per point\n", s->nb, s->np, A->bs);
  if (s->C)
    fprintf(f, "  coupled across the grids' cuts by %" PDS_SIZE_FMT " blocks (block ILU(0) factors each grid alone)\n",
            s->C->nnz / ((pds_size)A->bs * A->bs));
  return PDS_OK;
}

static int s7_destroy(pds_mat A) {
  struct pds_mat_stencil7 *s   = S7(A);
  pds_ctx                  ctx = A->hdr.ctx;

  if (!s) return PDS_OK;
  pds_mat_destroy(&s->C);
  if (s->dv != s->hv) pds_free(ctx, PDS_MEM_DEVICE, &s->dv);
  pds_free(ctx, PDS_MEM_HOST, &s->hv);
  pds_free(ctx, PDS_MEM_HOST, &s->h);
  pds_free(ctx, PDS_MEM_HOST, &s->d);
  return pds_free(ctx, PDS_MEM_HOST, &A->data);
}

/* the grid's dimensions and the unknowns per point */
static int s7_check_grid(pds_ctx ctx, pds_int I, pds_int J, pds_int K, int n) {
  PDS_CHECK(I >= 1 && J >= 1 && K >= 1, ctx, PDS_ERR_SIZE,
            "stencil7 grid %" PDS_INT_FMT " x %" PDS_INT_FMT " x %" PDS_INT_FMT " has an empty dimension", I, J, K);
  PDS_CHECK(n >= 1 && n <= PDS_STENCIL7_MAXN, ctx, PDS_ERR_ARG, "stencil7: %d unknowns per point (1 to %d)", n,
            PDS_STENCIL7_MAXN);
  PDS_CHECK((pds_size)I * J * K * n <= PDS_INT_MAX, ctx, PDS_ERR_SIZE,
            "stencil7: %" PDS_SIZE_FMT " points of %d unknowns exceed the 32-bit local index range",
            (pds_size)I * J * K, n);
  return PDS_OK;
}

/* the nb grids' dimensions checked (n the unknowns per point) and their points counted into *np, within 32-bit rows */
int pds_stencil7_points(pds_ctx ctx, int nb, const pds_int *dims, int n, pds_size *np) {
  *np = 0;
  PDS_CHECK(n >= 1 && n <= PDS_STENCIL7_MAXN, ctx, PDS_ERR_ARG, "stencil7: %d unknowns per point (1 to %d)", n,
            PDS_STENCIL7_MAXN);
  PDS_CHECK(nb == 0 || dims, ctx, PDS_ERR_ARG, "stencil7: dims is NULL");
  for (int q = 0; q < nb; q++) {
    PDS_CALL(s7_check_grid(ctx, dims[3 * q], dims[3 * q + 1], dims[3 * q + 2], n));
    *np += (pds_size)dims[3 * q] * dims[3 * q + 1] * dims[3 * q + 2];
    PDS_CHECK(*np * n <= PDS_INT_MAX, ctx, PDS_ERR_SIZE, "stencil7: %" PDS_SIZE_FMT " points of %d unknowns exceed the "
              "32-bit local index range", *np, n);
  }
  return PDS_OK;
}

/* the m coupling blocks (n x n each) finite */
int pds_stencil7_check_couplings(pds_ctx ctx, int n, pds_size m, const pds_real *blocks) {
  for (size_t e = 0; e < (size_t)m * n * n; e++)
    PDS_CHECK(isfinite(blocks[e]), ctx, PDS_ERR_ARG, "stencil7 coupling %" PDS_SIZE_FMT " holds a non-finite value",
              (pds_size)(e / ((size_t)n * n)));
  return PDS_OK;
}

/* every value finite, every block pointing out of its grid zero; the in-grid blocks counted */
static int s7_check_values(pds_ctx ctx, const struct pds_stencil7 *g, int nb, pds_size *nblk) {
  const size_t nn = nb ? (size_t)g[0].n * g[0].n : 0;

  *nblk = 0;
  for (int q = 0; q < nb; q++) {
    const struct pds_stencil7 *G = &g[q];
    pds_size                   p = G->first;

    for (pds_int i = 0; i < G->I; i++)
      for (pds_int j = 0; j < G->J; j++)
        for (pds_int k = 0; k < G->K; k++, p++)
          for (int a = 0; a < 7; a++) {
            const pds_real *b  = s7_block(G, p, a);
            const int       in = s7_inside(G, i, j, k, a);

            *nblk += in;
            for (size_t e = 0; e < nn; e++) {
              PDS_CHECK(isfinite(b[e]), ctx, PDS_ERR_ARG, "stencil7: block %s of point (%" PDS_INT_FMT ", %"
                        PDS_INT_FMT ", %" PDS_INT_FMT ")%s holds a non-finite value", arm_names[a], i, j, k,
                        nb > 1 ? " of a grid" : "");
              PDS_CHECK(in || b[e] == 0, ctx, PDS_ERR_ARG, "stencil7: block %s of point (%" PDS_INT_FMT ", %"
                        PDS_INT_FMT ", %" PDS_INT_FMT ")%s points out of the grid and must be zero (move a coupling "
                        "to another block into the right-hand side)", arm_names[a], i, j, k,
                        nb > 1 ? " of a grid" : "");
            }
          }
  }
  return PDS_OK;
}

/* The grids (nb >= 0: a rank of a distributed matrix may hold none) and their couplings C (taken, also on failure; NULL:
   none), checked. */
int pds_mat_stencil7_create_local(pds_ctx ctx, int nb, const pds_int *dims, int n, const pds_real *vals, pds_memtype mt,
                                  pds_mat C, pds_mat *A) {
  struct pds_mat_stencil7 *s = NULL;
  pds_mat                  M = NULL;
  pds_size                 np = 0, nblk = 0;
  size_t                   nn, bytes;
  int                      ierr = PDS_OK;

  *A = NULL;
  if (nb > 0 && !vals) ierr = PDS_ERROR(ctx, PDS_ERR_ARG, "stencil7: vals is NULL");
  if (!ierr) ierr = pds_stencil7_points(ctx, nb, dims, n, &np);
  if (!ierr && C && (C->nrows != (pds_int)(np * n) || C->ncols != C->nrows || C->bs != n ||
                     (strcmp(C->type, "bsr") && (n > 1 || strcmp(C->type, "csr")))))
    ierr = PDS_ERROR(ctx, PDS_ERR_SIZE, "stencil7: the couplings are a %s matrix of %" PDS_INT_FMT " x %" PDS_INT_FMT
                     " (block size %d), not bsr of %" PDS_SIZE_FMT " x %" PDS_SIZE_FMT " (block size %d)", C->type,
                     C->nrows, C->ncols, C->bs, np * n, np * n, n);
  if (ierr) {
    pds_mat_destroy(&C);
    return ierr;
  }
  nn    = (size_t)n * n;
  bytes = (size_t)np * 7 * nn * sizeof(pds_real);
  ierr = PDS_NEW(ctx, 1, &s);
  if (ierr) {
    pds_mat_destroy(&C);
    return ierr;
  }
  s->nb = nb, s->np = np;
  ierr = PDS_NEW(ctx, nb ? nb : 1, &s->h);
  if (!ierr) ierr = PDS_NEW(ctx, nb ? nb : 1, &s->d);
  if (!ierr) ierr = pds_dup_array(ctx, PDS_MEM_HOST, vals, mt, bytes, &s->hv);
  if (!ierr) {
    pds_size first = 0;

    for (int q = 0; q < nb; q++) {
      s->h[q] = (struct pds_stencil7){dims[3 * q], dims[3 * q + 1], dims[3 * q + 2], n, first, s->hv};
      first += s7_points(&s->h[q]);
    }
    ierr = s7_check_values(ctx, s->h, nb, &nblk);
  }
  s->dv = s->hv;
  if (!ierr && ctx->k->mem_alloc) {
    s->dv = NULL;
    ierr  = pds_dup_array(ctx, PDS_MEM_DEVICE, s->hv, PDS_MEM_HOST, bytes, &s->dv);
  }
  if (!ierr) {
    for (int q = 0; q < nb; q++) s->d[q] = s->h[q], s->d[q].vals = s->dv;
    ierr = pds_mat_alloc(ctx, "stencil7", (pds_int)(np * n), (pds_int)(np * n), &M);
  }
  if (ierr) {
    pds_mat_destroy(&C);
    if (s->dv && s->dv != s->hv) pds_free(ctx, PDS_MEM_DEVICE, &s->dv);
    pds_free(ctx, PDS_MEM_HOST, &s->hv);
    pds_free(ctx, PDS_MEM_HOST, &s->h);
    pds_free(ctx, PDS_MEM_HOST, &s->d);
    pds_free(ctx, PDS_MEM_HOST, &s);
    return ierr;
  }
  s->C                      = C;
  M->data                   = s;
  M->bs                     = n;
  M->nnz                    = nblk * (pds_size)nn + (C ? C->nnz : 0);
  M->ops.apply              = s7_apply;
  M->ops.get_diagonal       = s7_get_diagonal;
  M->ops.get_block_diagonal = s7_get_block_diagonal;
  M->ops.view               = s7_view;
  M->ops.destroy            = s7_destroy;
  *A                        = M;
  return PDS_OK;
}

int pds_mat_create_stencil7_blocks(pds_ctx ctx, int nb, const pds_int *dims, int n, const pds_real *vals,
                                   pds_memtype mt, pds_mat *A) {
  PDS_CHECK(ctx, NULL, PDS_ERR_ARG, "context is NULL");
  PDS_CHECK(A, ctx, PDS_ERR_ARG, "output handle is NULL");
  *A = NULL;
  PDS_CHECK(nb >= 1, ctx, PDS_ERR_ARG, "stencil7: %d grids (at least 1)", nb);
  return pds_mat_stencil7_create_local(ctx, nb, dims, n, vals, mt, NULL, A);
}

int pds_mat_create_stencil7_coupled(pds_ctx ctx, int nb, const pds_int *dims, int n, const pds_real *vals,
                                    pds_memtype mt, pds_size m, const pds_int *row, const pds_int *col,
                                    const pds_real *blocks, pds_mat *A) {
  pds_mat   C  = NULL;
  pds_size *rp = NULL, np = 0;
  pds_int  *cj = NULL;
  pds_real *v  = NULL;

  PDS_CHECK(ctx, NULL, PDS_ERR_ARG, "context is NULL");
  PDS_CHECK(A, ctx, PDS_ERR_ARG, "output handle is NULL");
  *A = NULL;
  PDS_CHECK(nb >= 1, ctx, PDS_ERR_ARG, "stencil7: %d grids (at least 1)", nb);
  PDS_CHECK(m == 0 || (row && col && blocks), ctx, PDS_ERR_ARG, "stencil7: row, col or blocks is NULL");
  PDS_CALL(pds_stencil7_points(ctx, nb, dims, n, &np));
  for (pds_size k = 0; k < m; k++) {
    PDS_CHECK(col[k] >= 0 && (pds_size)col[k] < np && row[k] >= 0 && (pds_size)row[k] < np, ctx, PDS_ERR_ARG,
              "stencil7 coupling %" PDS_SIZE_FMT ": point %" PDS_INT_FMT " to point %" PDS_INT_FMT " (the grids have "
              "points 0 .. %" PDS_SIZE_FMT ")", k, row[k], col[k], np - 1);
    PDS_CHECK(row[k] != col[k], ctx, PDS_ERR_ARG, "stencil7 coupling %" PDS_SIZE_FMT " couples point %" PDS_INT_FMT
              " to itself: its diagonal block is the grid's (delta)", k, row[k]);
  }
  PDS_CALL(pds_stencil7_check_couplings(ctx, n, m, blocks));
  PDS_CALL(pds_bsr_rows_from_blocks(ctx, (pds_int)np, n, m, row, col, blocks, &rp, &cj, &v));
  PDS_CALL(pds_mat_bsr_from_host_owned(ctx, (pds_int)np, (pds_int)np, n, rp, cj, v, &C));
  return pds_mat_stencil7_create_local(ctx, nb, dims, n, vals, mt, C, A);
}

int pds_mat_create_stencil7(pds_ctx ctx, pds_int I, pds_int J, pds_int K, int n, const pds_real *vals,
                            pds_memtype mt, pds_mat *A) {
  const pds_int dims[3] = {I, J, K};

  return pds_mat_create_stencil7_blocks(ctx, 1, dims, n, vals, mt, A);
}

int pds_mat_stencil7_get_blocks(pds_mat A, int *nb) {
  PDS_VALID(A, PDS_CLASSID_MAT, "matrix");
  PDS_CHECK(!strcmp(A->type, "stencil7"), A->hdr.ctx, PDS_ERR_ARG, "matrix is %s, not stencil7", A->type);
  PDS_CHECK(nb, A->hdr.ctx, PDS_ERR_ARG, "nb is NULL");
  *nb = S7(A)->nb;
  return PDS_OK;
}

int pds_mat_stencil7_get_block(pds_mat A, int b, pds_int *I, pds_int *J, pds_int *K, int *n) {
  PDS_VALID(A, PDS_CLASSID_MAT, "matrix");
  PDS_CHECK(!strcmp(A->type, "stencil7"), A->hdr.ctx, PDS_ERR_ARG, "matrix is %s, not stencil7", A->type);
  PDS_CHECK(b >= 0 && b < S7(A)->nb, A->hdr.ctx, PDS_ERR_ARG, "grid %d of a stencil7 matrix of %d", b, S7(A)->nb);
  if (I) *I = S7(A)->h[b].I;
  if (J) *J = S7(A)->h[b].J;
  if (K) *K = S7(A)->h[b].K;
  if (n) *n = A->bs;
  return PDS_OK;
}

int pds_mat_stencil7_get_grid(pds_mat A, pds_int *I, pds_int *J, pds_int *K, int *n) {
  PDS_VALID(A, PDS_CLASSID_MAT, "matrix");
  PDS_CHECK(!strcmp(A->type, "stencil7"), A->hdr.ctx, PDS_ERR_ARG, "matrix is %s, not stencil7", A->type);
  PDS_CHECK(S7(A)->nb == 1, A->hdr.ctx, PDS_ERR_ARG,
            "the stencil7 matrix has %d grids: pds_mat_stencil7_get_block gives each", S7(A)->nb);
  return pds_mat_stencil7_get_block(A, 0, I, J, K, n);
}

const struct pds_stencil7 *pds_mat_stencil7_grids(pds_mat A, int *nb) {
  if (!A || strcmp(A->type, "stencil7")) return NULL;
  *nb = S7(A)->nb;
  return S7(A)->d;
}

/* BSR with bs = n: block row p holds its in-grid arms in ascending block column (gamma, beta, alpha, delta,
   eta, zeta, epsilon); the grids one after the other on the diagonal */
int pds_mat_stencil7_to_bsr(pds_mat A, pds_mat *B) {
  const struct pds_mat_stencil7 *s   = S7(A);
  pds_ctx                        ctx = A->hdr.ctx;
  const size_t                   nn  = (size_t)A->bs * A->bs;
  static const int               order[7] = {2, 1, 0, 3, 6, 5, 4}; /* arms by ascending neighbour index */
  pds_size                      *rp = NULL, nb = 0;
  pds_int                       *ci = NULL;
  pds_real                      *v  = NULL;
  int                            ierr;
  const pds_size                *crp = NULL; /* the couplings' block rows */
  const pds_int                 *ccj = NULL;
  const pds_real                *cv  = NULL;
  const pds_size                 nc  = s->C ? s->C->nnz / nn : 0;

  if (s->C) /* bsr, or csr when n = 1 (a distributed matrix's split): the same arrays */
    PDS_CALL(strcmp(s->C->type, "bsr") ? pds_mat_csr_get_arrays(s->C, &crp, &ccj, &cv)
                                       : pds_mat_bsr_get_arrays(s->C, &crp, &ccj, &cv));
  PDS_CALL(PDS_NEW(ctx, s->np + 1, &rp));
  PDS_CALL_GOTO(ierr, fail, PDS_NEW(ctx, (size_t)s->np * 7 + nc, &ci));
  PDS_CALL_GOTO(ierr, fail, pds_malloc(ctx, PDS_MEM_HOST, ((size_t)s->np * 7 + nc) * nn * sizeof *v, &v));
  for (int q = 0; q < s->nb; q++) {
    const struct pds_stencil7 *G = &s->h[q];
    pds_size                   p = G->first;

    for (pds_int i = 0; i < G->I; i++)
      for (pds_int j = 0; j < G->J; j++)
        for (pds_int k = 0; k < G->K; k++, p++) {
          const pds_size row0 = nb;

          for (int o = 0; o < 7; o++) {
            const int a = order[o];

            if (!s7_inside(G, i, j, k, a)) continue;
            ci[nb] = (pds_int)(p + s7_offset(G, a));
            memcpy(v + nb * nn, s7_block(G, p, a), nn * sizeof *v);
            nb++;
          }
          for (pds_size c = crp ? crp[p] : 0; crp && c < crp[p + 1]; c++) /* the couplings, into column order */
            pds_bsr_row_add(ci, v, nn, row0, &nb, ccj[c], cv + c * nn);
          rp[p + 1] = nb;
        }
  }
  return pds_mat_bsr_from_host_owned(ctx, (pds_int)s->np, (pds_int)s->np, A->bs, rp, ci, v, B);
fail:
  pds_free(ctx, PDS_MEM_HOST, &rp);
  pds_free(ctx, PDS_MEM_HOST, &ci);
  pds_free(ctx, PDS_MEM_HOST, &v);
  return ierr;
}

/* A csr or bsr matrix whose entries all lie on the 7-point block pattern of an I x J x K grid with n unknowns per
   point, as a stencil7 matrix (the blocks the pattern has but the matrix does not store are zero). */
int pds_mat_convert_to_stencil7(pds_mat A, pds_int I, pds_int J, pds_int K, int n, pds_mat *B) {
  pds_ctx               ctx;
  pds_mat               C = NULL;
  const struct pds_csr *h;
  pds_real             *v = NULL;
  pds_size              np;
  const size_t          nn = (size_t)n * n;
  int                   ierr = PDS_OK;

  PDS_VALID(A, PDS_CLASSID_MAT, "matrix");
  ctx = A->hdr.ctx;
  PDS_CHECK(B, ctx, PDS_ERR_ARG, "output handle is NULL");
  *B = NULL;
  PDS_CALL(s7_check_grid(ctx, I, J, K, n));
  np = (pds_size)I * J * K;
  PDS_CHECK(A->nrows == A->ncols && (pds_size)A->nrows == np * n, ctx, PDS_ERR_SIZE,
            "a %" PDS_INT_FMT " x %" PDS_INT_FMT " matrix is not a %" PDS_INT_FMT " x %" PDS_INT_FMT " x %" PDS_INT_FMT
            " grid of %d unknowns per point (%" PDS_SIZE_FMT " rows)", A->nrows, A->ncols, I, J, K, n, np * n);
  if (!strcmp(A->type, "stencil7")) {
    PDS_CHECK(S7(A)->nb == 1 && S7(A)->h[0].I == I && S7(A)->h[0].J == J && S7(A)->h[0].K == K && A->bs == n, ctx,
              PDS_ERR_SIZE, "the stencil7 matrix has another grid");
    PDS_CALL(pds_mat_reference(A));
    *B = A;
    return PDS_OK;
  }
  if (!strcmp(A->type, "bsr")) PDS_CALL(pds_mat_convert_to_csr(A, &C));
  else {
    PDS_CHECK(!strcmp(A->type, "csr"), ctx, PDS_ERR_UNSUPPORTED, "cannot convert a %s matrix to stencil7", A->type);
    PDS_CALL(pds_mat_reference(A));
    C = A;
  }
  PDS_CALL_GOTO(ierr, done, pds_mat_csr_host_sync(C));
  h = pds_mat_host_csr(C);
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)np * 7 * nn, &v));
  for (pds_int r = 0; r < h->nrows && !ierr; r++) {
    const pds_size            p = r / n;
    const pds_int             k = (pds_int)(p % K), j = (pds_int)(p / K % J), i = (pds_int)(p / K / J);
    const struct pds_stencil7 g = {I, J, K, n, 0, NULL}; /* the grid's shape, for s7_inside and s7_offset */

    for (pds_size q = h->rowptr[r]; q < h->rowptr[r + 1]; q++) {
      const pds_size pc = h->colidx[q] / n, d = pc - p;
      int            a  = -1;

      for (int t = 0; t < 7; t++)
        if (s7_inside(&g, i, j, k, t) && d == s7_offset(&g, t)) a = t;
      if (a < 0) {
        if (h->vals[q] == 0) continue; /* a stored zero off the pattern */
        ierr = PDS_ERROR(ctx, PDS_ERR_ARG, "entry (%" PDS_INT_FMT ", %" PDS_INT_FMT ") couples grid point (%"
                         PDS_INT_FMT ", %" PDS_INT_FMT ", %" PDS_INT_FMT ") to a point that is not one of its 7-point "
                         "neighbours on the %" PDS_INT_FMT " x %" PDS_INT_FMT " x %" PDS_INT_FMT " grid", r,
                         h->colidx[q], i, j, k, I, J, K);
        break;
      }
      v[((size_t)p * 7 + a) * nn + (size_t)(r % n) * n + h->colidx[q] % n] += h->vals[q];
    }
  }
  if (!ierr) ierr = pds_mat_create_stencil7(ctx, I, J, K, n, v, PDS_MEM_HOST, B);
done:
  pds_free(ctx, PDS_MEM_HOST, &v);
  pds_mat_destroy(&C);
  return ierr;
}
