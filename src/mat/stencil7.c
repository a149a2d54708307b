/* src/mat/stencil7.c: structured 7-point block matrices ("stencil7"): an I x J x K grid with n x n coefficient
 * blocks for each point and its six neighbours (paper 000's alpha .. eta; the layout is struct pds_stencil7's,
 * src/mat/mat_kernels.h), the system of an implicit n-equation solver on a structured block. The product runs
 * through the stencil7 kernel group; conversion to BSR (bs = n, the in-grid blocks in column order) gives every
 * CSR/BSR path; block ILU(0) (src/precond/bilu0.c) reads the blocks directly. */
#include <math.h>
#include <stdlib.h>

#include "../backend/stencil7_bodies.h" /* s7_inside: which arms of a point lie in the grid */
#include "mat_impl.h"

#define S7(A) ((struct pds_mat_stencil7 *)(A)->data)

struct pds_mat_stencil7 {
  struct pds_stencil7 h, d; /* host and backend copies (the same arrays on CPU backends) */
  int                 unified;
};

static const char *const arm_names[7] = {"alpha (k-1)", "beta (j-1)", "gamma (i-1)", "delta (centre)",
                                         "epsilon (i+1)", "zeta (j+1)", "eta (k+1)"};

static int s7_apply(pds_mat A, pds_real alpha, pds_vec x, pds_real beta, pds_vec y) {
  pds_ctx         ctx = A->hdr.ctx;
  const pds_real *xa;
  pds_real       *ya;

  PDS_KERNEL(ctx, stencil7.spmv);
  PDS_CALL(pds_vec_dev_read(x, &xa));
  PDS_CALL(pds_vec_dev_write(y, &ya));
  return ctx->k->stencil7.spmv(ctx, &S7(A)->d, alpha, xa, beta, ya);
}

/* the centre blocks, n x n each, host memory */
static int s7_get_block_diagonal(pds_mat A, int bs, pds_real *blocks) {
  const struct pds_stencil7 *h  = &S7(A)->h;
  const size_t               nn = (size_t)h->n * h->n;
  const pds_size             np = (pds_size)h->I * h->J * h->K;

  PDS_CHECK(bs == h->n, A->hdr.ctx, PDS_ERR_UNSUPPORTED,
            "the diagonal blocks of a stencil7 matrix are %d x %d (asked for block size %d)", h->n, h->n, bs);
  for (pds_size p = 0; p < np; p++) memcpy(blocks + p * nn, h->vals + ((size_t)p * 7 + 3) * nn, nn * sizeof *blocks);
  return PDS_OK;
}

static int s7_get_diagonal(pds_mat A, pds_vec d) {
  const struct pds_stencil7 *h = &S7(A)->h;
  const int                  n = h->n;
  pds_real                  *a;

  PDS_CALL(pds_vec_get_array_write(d, PDS_MEM_HOST, &a));
  for (pds_size p = 0; p < (pds_size)h->I * h->J * h->K; p++)
    for (int u = 0; u < n; u++) a[p * n + u] = h->vals[((size_t)p * 7 + 3) * n * n + (size_t)u * n + u];
  return pds_vec_restore_array_write(d, &a);
}

static int s7_view(pds_mat A, FILE *f) {
  const struct pds_stencil7 *h = &S7(A)->h;

  fprintf(f, "  stencil7 grid %" PDS_INT_FMT " x %" PDS_INT_FMT " x %" PDS_INT_FMT ", %d unknowns per point\n", h->I,
          h->J, h->K, h->n);
  return PDS_OK;
}

static int s7_destroy(pds_mat A) {
  struct pds_mat_stencil7 *s   = S7(A);
  pds_ctx                  ctx = A->hdr.ctx;

  if (!s) return PDS_OK;
  pds_free(ctx, PDS_MEM_HOST, &s->h.vals);
  if (!s->unified) pds_free(ctx, PDS_MEM_DEVICE, &s->d.vals);
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

int pds_mat_create_stencil7(pds_ctx ctx, pds_int I, pds_int J, pds_int K, int n, const pds_real *vals,
                            pds_memtype mt, pds_mat *A) {
  struct pds_mat_stencil7 *s = NULL;
  pds_real                *h = NULL;
  pds_mat                  M = NULL;
  pds_size                 np, nblk = 0;
  size_t                   nn, bytes;
  int                      ierr;

  PDS_CHECK(ctx, NULL, PDS_ERR_ARG, "context is NULL");
  PDS_CHECK(A, ctx, PDS_ERR_ARG, "output handle is NULL");
  *A = NULL;
  PDS_CALL(s7_check_grid(ctx, I, J, K, n));
  np = (pds_size)I * J * K;
  PDS_CHECK(vals, ctx, PDS_ERR_ARG, "vals is NULL");
  nn    = (size_t)n * n;
  bytes = (size_t)np * 7 * nn * sizeof *h;
  PDS_CALL(pds_dup_array(ctx, PDS_MEM_HOST, vals, mt, bytes, &h));
  ierr = PDS_OK;
  {
    const struct pds_stencil7 g = {I, J, K, n, h};
    pds_size                  p = 0;

    for (pds_int i = 0; i < I && !ierr; i++)
      for (pds_int j = 0; j < J && !ierr; j++)
        for (pds_int k = 0; k < K && !ierr; k++, p++)
          for (int a = 0; a < 7 && !ierr; a++) {
            const pds_real *b  = h + ((size_t)p * 7 + a) * nn;
            const int       in = s7_inside(&g, i, j, k, a);

            nblk += in;
            for (size_t e = 0; e < nn; e++) {
              if (!isfinite(b[e]))
                ierr = PDS_ERROR(ctx, PDS_ERR_ARG, "stencil7: block %s of point (%" PDS_INT_FMT ", %" PDS_INT_FMT
                                 ", %" PDS_INT_FMT ") holds a non-finite value", arm_names[a], i, j, k);
              else if (!in && b[e] != 0)
                ierr = PDS_ERROR(ctx, PDS_ERR_ARG, "stencil7: block %s of point (%" PDS_INT_FMT ", %" PDS_INT_FMT
                                 ", %" PDS_INT_FMT ") points out of the grid and must be zero (move a coupling to "
                                 "another block into the right-hand side)", arm_names[a], i, j, k);
              if (ierr) break;
            }
          }
  }
  if (!ierr) ierr = pds_mat_alloc(ctx, "stencil7", (pds_int)(np * n), (pds_int)(np * n), &M);
  if (!ierr) ierr = PDS_NEW(ctx, 1, &s);
  if (ierr) {
    pds_free(ctx, PDS_MEM_HOST, &h);
    if (M) pds_free(ctx, PDS_MEM_HOST, &M);
    return ierr;
  }
  M->data                   = s;
  M->bs                     = n;
  M->nnz                    = nblk * (pds_size)nn;
  M->ops.apply              = s7_apply;
  M->ops.get_diagonal       = s7_get_diagonal;
  M->ops.get_block_diagonal = s7_get_block_diagonal;
  M->ops.view               = s7_view;
  M->ops.destroy            = s7_destroy;
  s->h                      = (struct pds_stencil7){I, J, K, n, h};
  s->d                      = s->h;
  s->unified                = ctx->k->mem_alloc == NULL;
  if (!s->unified) {
    s->d.vals = NULL;
    ierr      = pds_dup_array(ctx, PDS_MEM_DEVICE, h, PDS_MEM_HOST, bytes, &s->d.vals);
    if (ierr) {
      pds_mat_destroy(&M);
      return ierr;
    }
  }
  *A = M;
  return PDS_OK;
}

int pds_mat_stencil7_get_grid(pds_mat A, pds_int *I, pds_int *J, pds_int *K, int *n) {
  PDS_VALID(A, PDS_CLASSID_MAT, "matrix");
  PDS_CHECK(!strcmp(A->type, "stencil7"), A->hdr.ctx, PDS_ERR_ARG, "matrix is %s, not stencil7", A->type);
  if (I) *I = S7(A)->h.I;
  if (J) *J = S7(A)->h.J;
  if (K) *K = S7(A)->h.K;
  if (n) *n = S7(A)->h.n;
  return PDS_OK;
}

const struct pds_stencil7 *pds_mat_stencil7_data(pds_mat A) {
  return A && !strcmp(A->type, "stencil7") ? &S7(A)->d : NULL;
}

/* BSR with bs = n: block row p holds its in-grid arms in ascending block column (gamma, beta, alpha, delta,
   eta, zeta, epsilon) */
int pds_mat_stencil7_to_bsr(pds_mat A, pds_mat *B) {
  const struct pds_stencil7 *h   = &S7(A)->h;
  pds_ctx                    ctx = A->hdr.ctx;
  const size_t               nn  = (size_t)h->n * h->n;
  const pds_size             np  = (pds_size)h->I * h->J * h->K;
  static const int           order[7] = {2, 1, 0, 3, 6, 5, 4}; /* arms by ascending neighbour index */
  pds_size                  *rp = NULL, nb = 0, p = 0;
  pds_int                   *ci = NULL;
  pds_real                  *v  = NULL;
  int                        ierr;

  PDS_CALL(PDS_NEW(ctx, np + 1, &rp));
  PDS_CALL_GOTO(ierr, fail, PDS_NEW(ctx, (size_t)np * 7, &ci));
  PDS_CALL_GOTO(ierr, fail, pds_malloc(ctx, PDS_MEM_HOST, (size_t)np * 7 * nn * sizeof *v, &v));
  for (pds_int i = 0; i < h->I; i++)
    for (pds_int j = 0; j < h->J; j++)
      for (pds_int k = 0; k < h->K; k++, p++) {
        static const pds_int di[7] = {0, 0, -1, 0, 1, 0, 0}, dj[7] = {0, -1, 0, 0, 0, 1, 0},
                             dk[7] = {-1, 0, 0, 0, 0, 0, 1};

        for (int o = 0; o < 7; o++) {
          const int a = order[o];

          if (!s7_inside(h, i, j, k, a)) continue;
          ci[nb] = (pds_int)(((pds_size)(i + di[a]) * h->J + (j + dj[a])) * h->K + (k + dk[a]));
          memcpy(v + nb * nn, h->vals + ((size_t)p * 7 + a) * nn, nn * sizeof *v);
          nb++;
        }
        rp[p + 1] = nb;
      }
  return pds_mat_bsr_from_host_owned(ctx, (pds_int)np, (pds_int)np, h->n, rp, ci, v, B);
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
    PDS_CHECK(S7(A)->h.I == I && S7(A)->h.J == J && S7(A)->h.K == K && S7(A)->h.n == n, ctx, PDS_ERR_SIZE,
              "the stencil7 matrix has another grid");
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
    const pds_size p = r / n;
    const pds_int  k = (pds_int)(p % K), j = (pds_int)(p / K % J), i = (pds_int)(p / K / J);

    for (pds_size q = h->rowptr[r]; q < h->rowptr[r + 1]; q++) {
      const pds_size pc = h->colidx[q] / n, d = pc - p;
      const struct pds_stencil7 g = {I, J, K, n, NULL};
      int                       a = -1;

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
