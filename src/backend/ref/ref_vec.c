/* src/backend/ref/ref_vec.c: /cpu/ref's vector kernel group (src/vec/vec_kernels.h): plain sequential loops,
 * the reductions in the chunked order of kernel_bodies.h. */
#include <math.h>
#include <stdlib.h>

#include "../kernel_bodies.h"
#include "ref_impl.h"

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

static int vec_permute_ref(pds_ctx ctx, pds_int nb, int bs, const pds_int *perm, int scatter, const pds_real *x,
                           pds_real *y) {
  (void)ctx;
  vec_permute_range(bs, perm, scatter, x, y, 0, nb);
  return PDS_OK;
}

void pds_ref_fill_vec(struct pds_vec_kernels *g) {
  g->set       = vec_set_ref;
  g->copy      = vec_copy_ref;
  g->scale     = vec_scale_ref;
  g->axpby     = vec_axpby_ref;
  g->waxpby    = vec_waxpby_ref;
  g->pmult     = vec_pmult_ref;
  g->pdiv      = vec_pdiv_ref;
  g->dot       = vec_dot_ref;
  g->norm_inf  = vec_norm_inf_ref;
  g->axpbypcz  = vec_axpbypcz_ref;
  g->dot2      = vec_dot2_ref;
  g->dot_into  = vec_dot_into_ref;
  g->dot2_into = vec_dot2_into_ref;
  g->mdot_into = vec_mdot_into_ref;
  g->maxpy_dev = vec_maxpy_dev_ref;
  g->permute   = vec_permute_ref;
}
