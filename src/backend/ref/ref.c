/* src/backend/ref/ref.c: /cpu/ref, plain sequential C kernels: the oracle every other backend is tested against. */
#include <math.h>
#include <stdlib.h>

#include "../fem2d_kernels.h"
#include "../krylov_step.h"
#include "../kernel_bodies.h"

static int vec_set_ref(pds_ctx ctx, pds_size n, pds_real a, pds_real *y) {
  (void)ctx;
  for (pds_size i = 0; i < n; i++) y[i] = a;
  return PDS_OK;
}

static int vec_copy_ref(pds_ctx ctx, pds_size n, const pds_real *x, pds_real *y) {
  (void)ctx;
  if (n && x != y) memcpy(y, x, (size_t)n * sizeof *y);
  return PDS_OK;
}

static int vec_scale_ref(pds_ctx ctx, pds_size n, pds_real a, pds_real *y) {
  (void)ctx;
  for (pds_size i = 0; i < n; i++) y[i] *= a;
  return PDS_OK;
}

/* y = a x + b y; b = 0 does not read y (so y may hold garbage or NaN) */
static int vec_axpby_ref(pds_ctx ctx, pds_size n, pds_real a, const pds_real *x, pds_real b, pds_real *y) {
  (void)ctx;
  if (b == 0)
    for (pds_size i = 0; i < n; i++) y[i] = a * x[i];
  else
    for (pds_size i = 0; i < n; i++) y[i] = a * x[i] + b * y[i];
  return PDS_OK;
}

static int vec_waxpby_ref(pds_ctx ctx, pds_size n, pds_real a, const pds_real *x, pds_real b, const pds_real *y,
                          pds_real *w) {
  (void)ctx;
  for (pds_size i = 0; i < n; i++) w[i] = a * x[i] + b * y[i];
  return PDS_OK;
}

static int vec_pmult_ref(pds_ctx ctx, pds_size n, const pds_real *x, const pds_real *y, pds_real *w) {
  (void)ctx;
  for (pds_size i = 0; i < n; i++) w[i] = x[i] * y[i];
  return PDS_OK;
}

static int vec_pdiv_ref(pds_ctx ctx, pds_size n, const pds_real *x, const pds_real *y, pds_real *w) {
  (void)ctx;
  for (pds_size i = 0; i < n; i++) w[i] = x[i] / y[i];
  return PDS_OK;
}

/* Chunk sums added in chunk order: the same tree /cpu/omp uses, so both agree bitwise. */
static int vec_dot_ref(pds_ctx ctx, pds_size n, const pds_real *x, const pds_real *y, pds_real *d) {
  pds_real s = 0;

  (void)ctx;
  for (pds_size i0 = 0; i0 < n; i0 += PDS_REDUCE_CHUNK)
    s += chunk_dot(x, y, i0, i0 + PDS_REDUCE_CHUNK < n ? i0 + PDS_REDUCE_CHUNK : n);
  *d = s;
  return PDS_OK;
}

/* z = a x + b y + c z */
static int vec_axpbypcz_ref(pds_ctx ctx, pds_size n, pds_real a, const pds_real *x, pds_real b, const pds_real *y,
                            pds_real c, pds_real *z) {
  (void)ctx;
  for (pds_size i = 0; i < n; i++) z[i] = a * x[i] + b * y[i] + c * z[i];
  return PDS_OK;
}

static int vec_dot2_ref(pds_ctx ctx, pds_size n, const pds_real *x, const pds_real *y, const pds_real *z, pds_real *d) {
  pds_real s = 0, t = 0;

  (void)ctx;
  for (pds_size i0 = 0; i0 < n; i0 += PDS_REDUCE_CHUNK) {
    pds_real a, b;

    chunk_dot2(x, y, z, i0, i0 + PDS_REDUCE_CHUNK < n ? i0 + PDS_REDUCE_CHUNK : n, &a, &b);
    s += a, t += b;
  }
  d[0] = s, d[1] = t;
  return PDS_OK;
}

static int vec_norm_inf_ref(pds_ctx ctx, pds_size n, const pds_real *x, pds_real *d) {
  (void)ctx;
  *d = chunk_norm_inf(x, 0, n);
  return PDS_OK;
}

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

/* Gauss-Jordan with partial pivoting, in place: a becomes a^-1 (row-major bs x bs). */
int pds_block_invert(int bs, pds_real *a) {
  int      piv[64], *p = piv;
  int      ierr = 0;

  if (bs > 64 && !(p = malloc((size_t)bs * sizeof *p))) return -2;
  for (int k = 0; k < bs; k++) {
    int      r    = k;
    pds_real amax = fabs(a[k * bs + k]), inv;

    for (int i = k + 1; i < bs; i++)
      if (fabs(a[i * bs + k]) > amax) amax = fabs(a[i * bs + k]), r = i;
    if (!(amax > 0) || !isfinite(amax)) {
      ierr = -1;
      break;
    }
    p[k] = r;
    if (r != k)
      for (int j = 0; j < bs; j++) {
        pds_real t = a[k * bs + j];

        a[k * bs + j] = a[r * bs + j];
        a[r * bs + j] = t;
      }
    /* scale pivot row; the pivot column becomes the column of the inverse */
    inv            = 1.0 / a[k * bs + k];
    a[k * bs + k]  = 1.0;
    for (int j = 0; j < bs; j++) a[k * bs + j] *= inv;
    for (int i = 0; i < bs; i++) {
      pds_real f;

      if (i == k) continue;
      f             = a[i * bs + k];
      a[i * bs + k] = 0.0;
      for (int j = 0; j < bs; j++) a[i * bs + j] -= f * a[k * bs + j];
    }
  }
  /* undo the row interchanges as column interchanges, last first */
  if (!ierr)
    for (int k = bs - 1; k >= 0; k--)
      if (p[k] != k)
        for (int i = 0; i < bs; i++) {
          pds_real t = a[i * bs + k];

          a[i * bs + k]    = a[i * bs + p[k]];
          a[i * bs + p[k]] = t;
        }
  if (p != piv) free(p);
  return ierr;
}

static int blocks_invert_ref(pds_ctx ctx, pds_size nb, int bs, pds_real *blocks, pds_size *bad) {
  *bad = -1;
  for (pds_size b = 0; b < nb; b++) {
    int r = pds_block_invert(bs, blocks + b * bs * bs);

    if (r == -2) return PDS_ERROR(ctx, PDS_ERR_MEM, "no memory for the pivots of a %d x %d block", bs, bs);
    if (r) {
      *bad = b;
      break;
    }
  }
  return PDS_OK;
}

static int blocks_apply_ref(pds_ctx ctx, pds_size nb, int bs, const pds_real *inv, const pds_real *x, pds_real *y) {
  (void)ctx;
  blocks_apply_range(bs, inv, x, y, 0, nb);
  return PDS_OK;
}

/* Reductions into backend memory and the fused Krylov steps, composed plainly from the context's own table
   (ctx->k), so a backend that starts from this table (/cpu/omp) runs them with its own kernels and gets the bits
   of the unfused sequence. Semantics in backend.h. */
static int vec_dot_into_ref(pds_ctx ctx, pds_size n, const pds_real *x, const pds_real *y, pds_real *d) {
  return ctx->k->vec.dot(ctx, n, x, y, d);
}

static int vec_dot2_into_ref(pds_ctx ctx, pds_size n, const pds_real *x, const pds_real *y, const pds_real *z,
                             pds_real *d) {
  return ctx->k->vec.dot2(ctx, n, x, y, z, d);
}

/* s[i] = V_i . w: vec_dot of the context's table, one vector at a time (its bits by construction) */
static int vec_mdot_into_ref(pds_ctx ctx, pds_size n, int k, const pds_real *const *V, const pds_real *w,
                             pds_real *s) {
  for (int i = 0; i < k; i++) PDS_CALL(ctx->k->vec.dot(ctx, n, V[i], w, &s[i]));
  return PDS_OK;
}

/* w -= sum_i c[i] V_i, per entry with i ascending: vec_axpby's expression (a = -c[i], b = 1), so its bits */
static int vec_maxpy_dev_ref(pds_ctx ctx, pds_size n, int k, const pds_real *const *V, const pds_real *c,
                             pds_real *w) {
  (void)ctx;
  for (pds_size j = 0; j < n; j++) {
    pds_real t = w[j];

    for (int i = 0; i < k; i++) {
      pds_real a = -c[i], b = 1.0;

      t = a * V[i][j] + b * t;
    }
    w[j] = t;
  }
  return PDS_OK;
}

static int cg_update_r_ref(pds_ctx ctx, pds_size n, const pds_real *q, pds_real *r, pds_real *S, int step) {
  pds_real a = pds_ks_ratio(S, PDS_KS_RHO, 0);

  PDS_CALL(ctx->k->vec.axpby(ctx, n, -a, q, 1.0, r));
  PDS_CALL(ctx->k->vec.dot(ctx, n, r, r, &S[1]));
  return step >= 0 ? ctx->k->krylov.step(ctx, step, S) : PDS_OK;
}

static int cg_update_xp_ref(pds_ctx ctx, pds_size n, const pds_real *z, pds_real *x, pds_real *p, const pds_real *S) {
  const int m = (int)S[PDS_KS_XP];

  if (m & PDS_KS_XP_X) PDS_CALL(ctx->k->vec.axpby(ctx, n, S[PDS_KS_ALPHA], p, 1.0, x));
  if (m & PDS_KS_XP_P) PDS_CALL(ctx->k->vec.axpby(ctx, n, 1.0, z, S[PDS_KS_BETA], p));
  return PDS_OK;
}

static int bicg_update_s_ref(pds_ctx ctx, pds_size n, const pds_real *r, const pds_real *v, pds_real *w, pds_real *S) {
  pds_real a = pds_ks_ratio(S, PDS_KS_RHO, 0);

  PDS_CALL(ctx->k->vec.waxpby(ctx, n, -a, v, 1.0, r, w));
  return ctx->k->vec.dot(ctx, n, w, w, &S[1]);
}

static int bicg_update_r_ref(pds_ctx ctx, pds_size n, const pds_real *w, const pds_real *t, const pds_real *rhat,
                             pds_real *r, pds_real *S, int step) {
  pds_real o = pds_ks_ratio(S, 2, 3);

  PDS_CALL(ctx->k->vec.waxpby(ctx, n, -o, t, 1.0, w, r));
  PDS_CALL(ctx->k->vec.dot2(ctx, n, r, rhat, r, &S[4]));
  return step >= 0 ? ctx->k->krylov.step(ctx, step, S) : PDS_OK;
}

static int bicg_update_xp_ref(pds_ctx ctx, pds_size n, const pds_real *ph, const pds_real *sh, const pds_real *r,
                              const pds_real *v, pds_real *x, pds_real *p, const pds_real *S) {
  const int      m     = (int)S[PDS_KS_XP];
  const pds_real alpha = S[PDS_KS_ALPHA], omega = S[PDS_KS_OMEGA], beta = S[PDS_KS_BETA];

  if (m & PDS_KS_XP_X) PDS_CALL(ctx->k->vec.axpbypcz(ctx, n, alpha, ph, omega, sh, 1.0, x));
  if (m & PDS_KS_XP_HALF) PDS_CALL(ctx->k->vec.axpby(ctx, n, alpha, ph, 1.0, x));
  if (m & PDS_KS_XP_P) PDS_CALL(ctx->k->vec.axpbypcz(ctx, n, 1.0, r, -beta * omega, v, beta, p));
  return PDS_OK;
}

/* the scalar step on the host: every CPU backend's, S in host memory */
static int krylov_step_ref(pds_ctx ctx, int method, pds_real *S) {
  PDS_CHECK(!pds_ks_step(method, S), ctx, PDS_ERR_ARG, "unknown Krylov step %d", method);
  return PDS_OK;
}
static int krylov_set_ref(pds_ctx ctx, pds_real *S, const pds_real *v) {
  (void)ctx;
  memcpy(S, v, PDS_KS_N * sizeof *S);
  return PDS_OK;
}

static int csr_spmv_dot_ref(pds_ctx ctx, const struct pds_csr *A, const pds_real *x, pds_real *y, const pds_real *w1,
                            const pds_real *w2, pds_real *d) {
  PDS_CALL(ctx->k->csr.spmv(ctx, A, 1.0, x, 0.0, y));
  return w2 ? ctx->k->vec.dot2(ctx, A->nrows, y, w1, w2, d) : ctx->k->vec.dot(ctx, A->nrows, y, w1, d);
}

/* P1 assembly: the functions of fem2d_kernels.h over all triangles, then all rows */
static int fem2d_element_ref(pds_ctx ctx, const struct pds_fem2d_maps *m, const pds_real *xy, pds_real k,
                             const pds_real *kv, pds_real f, const pds_real *fm, pds_real *Ke, pds_real *fe,
                             pds_int *bad) {
  (void)ctx;
  *bad = -1;
  for (pds_int e = 0; e < m->ntri; e++)
    if (fem2d_element(e, m->tri, xy, k, kv, f, fm, Ke, fe) && *bad < 0) *bad = e;
  return PDS_OK;
}

static int fem2d_gather_ref(pds_ctx ctx, const struct pds_fem2d_maps *m, const pds_real *Ke, const pds_real *fe,
                            const unsigned char *isd, const pds_real *g, pds_real gc, int symmetric, pds_real *vals,
                            pds_real *b) {
  (void)ctx;
  for (pds_int i = 0; i < m->n; i++)
    fem2d_gather_row(i, m->rowptr, m->colidx, m->gptr, m->gidx, Ke, m->nptr, m->nidx, fe, isd, g, gc, symmetric,
                     vals, b);
  return PDS_OK;
}

void pds_kernels_fill_ref(struct pds_kernels *k) {
  memset(k, 0, sizeof *k);
  k->csr.spmv_dot   = csr_spmv_dot_ref;
  k->vec.dot_into   = vec_dot_into_ref;
  k->vec.dot2_into  = vec_dot2_into_ref;
  k->vec.mdot_into  = vec_mdot_into_ref;
  k->vec.maxpy_dev  = vec_maxpy_dev_ref;
  k->krylov.cg_update_r    = cg_update_r_ref;
  k->krylov.cg_update_xp   = cg_update_xp_ref;
  k->krylov.bicg_update_s  = bicg_update_s_ref;
  k->krylov.bicg_update_r  = bicg_update_r_ref;
  k->krylov.bicg_update_xp = bicg_update_xp_ref;
  k->krylov.step    = krylov_step_ref;
  k->krylov.set     = krylov_set_ref;
  k->name          = "/cpu/ref";
  k->vec.set       = vec_set_ref;
  k->vec.copy      = vec_copy_ref;
  k->vec.scale     = vec_scale_ref;
  k->vec.axpby     = vec_axpby_ref;
  k->vec.waxpby    = vec_waxpby_ref;
  k->vec.pmult     = vec_pmult_ref;
  k->vec.pdiv      = vec_pdiv_ref;
  k->vec.dot       = vec_dot_ref;
  k->vec.norm_inf  = vec_norm_inf_ref;
  k->vec.axpbypcz  = vec_axpbypcz_ref;
  k->vec.dot2      = vec_dot2_ref;
  k->csr.spmv      = csr_spmv_ref;
  k->csr.spmv_t    = csr_spmv_t_ref;
  k->bsr.spmv      = bsr_spmv_ref;
  k->csr.diag      = csr_diag_ref;
  k->bsr.diag      = bsr_diag_ref;
  k->blocks.invert = blocks_invert_ref;
  k->blocks.apply  = blocks_apply_ref;
  k->fem2d.element = fem2d_element_ref;
  k->fem2d.gather  = fem2d_gather_ref;
  pds_kernels_fill_ref_f32(&k->f32);
}

int pds_backend_init_ref(pds_ctx ctx, const char *resource, struct pds_kernels *k) {
  PDS_CHECK(!strcmp(resource, "/cpu/ref"), ctx, PDS_ERR_ARG, "backend /cpu/ref takes no options (got '%s')",
            resource);
  pds_kernels_fill_ref(k);
  return PDS_OK;
}
