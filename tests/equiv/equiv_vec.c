/* tests/equiv/equiv_vec.c: the vector kernels of the backend under test against /cpu/ref: set, copy, scale,
 * axpby, waxpby, axpbypcz, pointwise mult/div, dot, dot2, infinity norm, the fused Krylov steps, on random data and edge cases (n = 0,
 * 1, around the reduction chunk and the threading threshold, ~1e6; zeros, NaN, Inf, aliasing), plus determinism
 * (same bits twice; on /cpu/omp the same bits for 1, 2, 3 and 4 threads). */
#include "equiv.h"
#include "backend/krylov_step.h"

static eq_env E;

/* Host data and its copies in both contexts; x, y, w are reset from the host arrays before each kernel. */
typedef struct {
  pds_size  n;
  pds_real *hx, *hy, *hw, *got, *want, *mag;
  pds_real *bx, *by, *bw, *rx, *ry, *rw;
} vset;

static void vset_reset(vset *v) {
  size_t b = (size_t)v->n * sizeof(pds_real);

  if (!b) return;
  TEST_CALL(pds_memcpy(E.be, v->bx, PDS_MEM_DEVICE, v->hx, PDS_MEM_HOST, b));
  TEST_CALL(pds_memcpy(E.be, v->by, PDS_MEM_DEVICE, v->hy, PDS_MEM_HOST, b));
  TEST_CALL(pds_memcpy(E.be, v->bw, PDS_MEM_DEVICE, v->hw, PDS_MEM_HOST, b));
  memcpy(v->rx, v->hx, b), memcpy(v->ry, v->hy, b), memcpy(v->rw, v->hw, b);
}

static void vset_create(vset *v, pds_size n) {
  size_t b = (size_t)n * sizeof(pds_real);

  v->n  = n;
  v->hx = eq_random(n), v->hy = eq_random(n), v->hw = eq_random(n);
  v->got = eq_xmalloc(b), v->want = eq_xmalloc(b), v->mag = eq_xmalloc(b);
  v->bx = eq_dev(E.be, v->hx, b), v->by = eq_dev(E.be, v->hy, b), v->bw = eq_dev(E.be, v->hw, b);
  v->rx = eq_dev(E.ref, v->hx, b), v->ry = eq_dev(E.ref, v->hy, b), v->rw = eq_dev(E.ref, v->hw, b);
}

static void vset_destroy(vset *v) {
  free(v->hx), free(v->hy), free(v->hw), free(v->got), free(v->want), free(v->mag);
  eq_dfree(E.be, &v->bx), eq_dfree(E.be, &v->by), eq_dfree(E.be, &v->bw);
  eq_dfree(E.ref, &v->rx), eq_dfree(E.ref, &v->ry), eq_dfree(E.ref, &v->rw);
}

/* compare the backend array b with ref's r; mag_i = |a p_i| + |c q_i| (q may be NULL) */
static void vcheck(vset *v, const char *what, const pds_real *b, const pds_real *r, pds_real a, const pds_real *p,
                   pds_real c, const pds_real *q) {
  char msg[128];

  snprintf(msg, sizeof msg, "%s, n = %" PDS_SIZE_FMT, what, v->n);
  eq_host(E.be, v->got, b, (size_t)v->n * sizeof *b);
  memcpy(v->want, r, (size_t)v->n * sizeof *r);
  for (pds_size i = 0; i < v->n; i++) v->mag[i] = fabs(a * p[i]) + (q ? fabs(c * q[i]) : 0);
  eq_compare(msg, v->got, v->want, v->mag, v->n, 3, E.exact);
}

/* vcheck with mag_i = |a p_i| + |c q_i| + |e r_i| */
static void vcheck3(vset *v, const char *what, const pds_real *b, const pds_real *r, pds_real a, const pds_real *p,
                    pds_real c, const pds_real *q, pds_real e, const pds_real *rr) {
  char msg[128];

  snprintf(msg, sizeof msg, "%s, n = %" PDS_SIZE_FMT, what, v->n);
  eq_host(E.be, v->got, b, (size_t)v->n * sizeof *b);
  memcpy(v->want, r, (size_t)v->n * sizeof *r);
  for (pds_size i = 0; i < v->n; i++) v->mag[i] = fabs(a * p[i]) + fabs(c * q[i]) + fabs(e * rr[i]);
  eq_compare(msg, v->got, v->want, v->mag, v->n, 4, E.exact);
}

/* one scalar against ref's; mag bounds the sum of magnitudes, terms the number of additions */
static void scheck(const char *what, pds_size n, pds_real got, pds_real want, pds_real mag, double terms) {
  char msg[128];

  snprintf(msg, sizeof msg, "%s, n = %" PDS_SIZE_FMT, what, n);
  eq_compare(msg, &got, &want, &mag, 1, terms, E.exact);
}

static void test_elementwise(vset *v) {
  const pds_real ab[][2] = {{2.5, -0.75}, {1.5, 0.0}, {0.0, 1.0}, {1.0, 1.0}, {-1.0, -0.0}};
  struct pds_kernels *kb = E.be->k, *kr = E.ref->k;
  pds_size            n  = v->n;

  vset_reset(v);
  TEST_CALL(kb->vec.set(E.be, n, 0.7, v->by));
  TEST_CALL(kr->vec.set(E.ref, n, 0.7, v->ry));
  vcheck(v, "vec_set", v->by, v->ry, 0, v->hy, 0, NULL);
  TEST_CALL(kb->vec.set(E.be, n, -0.0, v->by));
  TEST_CALL(kr->vec.set(E.ref, n, -0.0, v->ry));
  vcheck(v, "vec_set -0", v->by, v->ry, 0, v->hy, 0, NULL);

  vset_reset(v);
  TEST_CALL(kb->vec.copy(E.be, n, v->bx, v->by));
  TEST_CALL(kr->vec.copy(E.ref, n, v->rx, v->ry));
  vcheck(v, "vec_copy", v->by, v->ry, 1, v->hx, 0, NULL);
  TEST_CALL(kb->vec.copy(E.be, n, v->by, v->by)); /* x == y is a no-op */
  vcheck(v, "vec_copy onto itself", v->by, v->ry, 1, v->hx, 0, NULL);

  vset_reset(v);
  TEST_CALL(kb->vec.scale(E.be, n, -1.3, v->by));
  TEST_CALL(kr->vec.scale(E.ref, n, -1.3, v->ry));
  vcheck(v, "vec_scale", v->by, v->ry, -1.3, v->hy, 0, NULL);

  for (size_t c = 0; c < sizeof ab / sizeof ab[0]; c++) {
    pds_real a = ab[c][0], b = ab[c][1];

    vset_reset(v);
    if (b == 0) /* b = 0 must not read y: NaN there must not show */
      for (pds_size i = 0; i < n; i++) v->ry[i] = NAN;
    if (b == 0 && n) TEST_CALL(pds_memcpy(E.be, v->by, PDS_MEM_DEVICE, v->ry, PDS_MEM_HOST, (size_t)n * sizeof *v->ry));
    TEST_CALL(kb->vec.axpby(E.be, n, a, v->bx, b, v->by));
    TEST_CALL(kr->vec.axpby(E.ref, n, a, v->rx, b, v->ry));
    vcheck(v, "vec_axpby", v->by, v->ry, a, v->hx, b, v->hy);

    vset_reset(v);
    TEST_CALL(kb->vec.waxpby(E.be, n, a, v->bx, b, v->by, v->bw));
    TEST_CALL(kr->vec.waxpby(E.ref, n, a, v->rx, b, v->ry, v->rw));
    vcheck(v, "vec_waxpby", v->bw, v->rw, a, v->hx, b, v->hy);
  }
  /* z = a x + b y + c z (the fused Krylov update) */
  for (size_t c = 0; c < sizeof ab / sizeof ab[0]; c++) {
    pds_real a = ab[c][0], b = ab[c][1], g = c % 2 ? 0.25 : -1.0;

    vset_reset(v);
    TEST_CALL(kb->vec.axpbypcz(E.be, n, a, v->bx, b, v->by, g, v->bw));
    TEST_CALL(kr->vec.axpbypcz(E.ref, n, a, v->rx, b, v->ry, g, v->rw));
    for (pds_size i = 0; i < n; i++) v->mag[i] = fabs(a * v->hx[i]) + fabs(b * v->hy[i]) + fabs(g * v->hw[i]);
    vcheck(v, "vec_axpbypcz", v->bw, v->rw, 1, v->mag, 0, NULL);
  }
  /* w aliasing an input, as pds_vec_waxpy(x, a, x, y) does */
  vset_reset(v);
  TEST_CALL(kb->vec.waxpby(E.be, n, 2.0, v->bx, -3.0, v->by, v->bx));
  TEST_CALL(kr->vec.waxpby(E.ref, n, 2.0, v->rx, -3.0, v->ry, v->rx));
  vcheck(v, "vec_waxpby w = x", v->bx, v->rx, 2.0, v->hx, -3.0, v->hy);

  vset_reset(v);
  TEST_CALL(kb->vec.pmult(E.be, n, v->bx, v->by, v->bw));
  TEST_CALL(kr->vec.pmult(E.ref, n, v->rx, v->ry, v->rw));
  for (pds_size i = 0; i < n; i++) v->mag[i] = fabs(v->hx[i] * v->hy[i]);
  vcheck(v, "vec_pmult", v->bw, v->rw, 1, v->mag, 0, NULL);
  TEST_CALL(kb->vec.pmult(E.be, n, v->bw, v->by, v->bw)); /* in place */
  TEST_CALL(kr->vec.pmult(E.ref, n, v->rw, v->ry, v->rw));
  for (pds_size i = 0; i < n; i++) v->mag[i] = fabs(v->hx[i] * v->hy[i] * v->hy[i]);
  vcheck(v, "vec_pmult in place", v->bw, v->rw, 1, v->mag, 0, NULL);

  /* division by zeros of both signs */
  if (n > 10) v->hy[5] = 0.0, v->hy[6] = -0.0; /* x/+0, x/-0: +-Inf; x[3]/y[3] = 0/0: NaN */
  vset_reset(v);
  TEST_CALL(kb->vec.pdiv(E.be, n, v->bx, v->by, v->bw));
  TEST_CALL(kr->vec.pdiv(E.ref, n, v->rx, v->ry, v->rw));
  for (pds_size i = 0; i < n; i++) v->mag[i] = fabs(v->hx[i] / v->hy[i]);
  vcheck(v, "vec_pdiv", v->bw, v->rw, 1, v->mag, 0, NULL);
}

static void test_reductions(vset *v) {
  struct pds_kernels *kb = E.be->k, *kr = E.ref->k;
  pds_size            n  = v->n;
  pds_real            got, want, mag, again;

  vset_reset(v);
  for (pds_size i = 0; i < n; i++) v->mag[i] = fabs(v->hx[i]);
  /* dot: x.y, x.x, and the magnitude sum |x|.|y| */
  TEST_CALL(kb->vec.dot(E.be, n, v->bx, v->by, &got));
  TEST_CALL(kr->vec.dot(E.ref, n, v->rx, v->ry, &want));
  mag = 0;
  for (pds_size i = 0; i < n; i++) mag += fabs(v->hx[i] * v->hy[i]);
  scheck("vec_dot", n, got, want, mag, (double)n);
  TEST_CALL(kb->vec.dot(E.be, n, v->bx, v->by, &again));
  TEST_ASSERT(!memcmp(&got, &again, sizeof got)); /* same call, same bits */
  TEST_CALL(kb->vec.dot(E.be, n, v->bx, v->bx, &got));
  TEST_CALL(kr->vec.dot(E.ref, n, v->rx, v->rx, &want));
  scheck("vec_dot x.x", n, got, want, want, (double)n);

  /* dot2: (x.y, x.w) in one pass, each with dot's bits */
  {
    pds_real g2[2], w2[2], xw;

    TEST_CALL(kb->vec.dot2(E.be, n, v->bx, v->by, v->bw, g2));
    TEST_CALL(kr->vec.dot2(E.ref, n, v->rx, v->ry, v->rw, w2));
    scheck("vec_dot2 x.y", n, g2[0], w2[0], mag, (double)n);
    TEST_CALL(kr->vec.dot(E.ref, n, v->rx, v->ry, &want));
    scheck("vec_dot2 x.y against ref's vec_dot", n, g2[0], want, mag, (double)n);
    TEST_CALL(kr->vec.dot(E.ref, n, v->rx, v->rw, &xw));
    mag = 0;
    for (pds_size i = 0; i < n; i++) mag += fabs(v->hx[i] * v->hw[i]);
    scheck("vec_dot2 x.w", n, g2[1], w2[1], mag, (double)n);
    scheck("vec_dot2 x.w against ref's vec_dot", n, g2[1], xw, mag, (double)n);
  }

  TEST_CALL(kb->vec.norm_inf(E.be, n, v->bx, &got));
  TEST_CALL(kr->vec.norm_inf(E.ref, n, v->rx, &want));
  scheck("vec_norm_inf", n, got, want, want, 1);

  /* all entries negative, then an Inf late in the vector */
  for (pds_size i = 0; i < n; i++) v->rx[i] = -fabs(v->hx[i]) - 1;
  if (n) TEST_CALL(pds_memcpy(E.be, v->bx, PDS_MEM_DEVICE, v->rx, PDS_MEM_HOST, (size_t)n * sizeof *v->rx));
  TEST_CALL(kb->vec.norm_inf(E.be, n, v->bx, &got));
  TEST_CALL(kr->vec.norm_inf(E.ref, n, v->rx, &want));
  scheck("vec_norm_inf negative", n, got, want, want, 1);
  if (n > 1) {
    v->rx[n - 2] = -INFINITY;
    TEST_CALL(pds_memcpy(E.be, v->bx, PDS_MEM_DEVICE, v->rx, PDS_MEM_HOST, (size_t)n * sizeof *v->rx));
    TEST_CALL(kb->vec.norm_inf(E.be, n, v->bx, &got));
    TEST_CALL(kr->vec.norm_inf(E.ref, n, v->rx, &want));
    TEST_ASSERT(want == INFINITY);
    scheck("vec_norm_inf with -Inf", n, got, want, want, 1);
  }
  /* two NaNs of different sign and payload: both backends return the first one, bits included */
  if (n) {
    uint64_t  bits = 0x7ff8000000000123u;
    pds_real  nan1, nan2 = -NAN;
    pds_size  i1 = n / 3, i2 = n - 1;

    memcpy(&nan1, &bits, sizeof nan1);
    vset_reset(v);
    v->rx[i2] = nan2;
    v->rx[i1] = nan1;
    TEST_CALL(pds_memcpy(E.be, v->bx, PDS_MEM_DEVICE, v->rx, PDS_MEM_HOST, (size_t)n * sizeof *v->rx));
    TEST_CALL(kb->vec.norm_inf(E.be, n, v->bx, &got));
    TEST_CALL(kr->vec.norm_inf(E.ref, n, v->rx, &want));
    TEST_ASSERT(isnan(got) && isnan(want));
    if (E.exact) scheck("vec_norm_inf NaN", n, got, want, 0, 1);
    TEST_CALL(kb->vec.dot(E.be, n, v->bx, v->by, &got));
    TEST_ASSERT(isnan(got));
  }
}

/* The fused Krylov steps (cg_update_r, bicg_update_s, bicg_update_r, which end in a reduction, and the x and p
   updates cg_update_xp, bicg_update_xp: one pass on omp and cuda, ref composes them from its kernels) against ref,
   the scalars in backend memory as the solvers keep them; on /cpu/omp with 1 to 4 threads (bitwise ref each time). */
static void test_fused(vset *v) {
  struct pds_kernels *kb = E.be->k, *kr = E.ref->k;
  pds_size            n = v->n;
  size_t              b = (size_t)n * sizeof(pds_real), sb = PDS_KS_N * sizeof(pds_real);
  pds_real            hs[PDS_KS_N] = {1.25, 0, -0.75, 2.5, 0, 0};
  pds_real            gs[PDS_KS_N], rs[PDS_KS_N], *bs, *br, *rr = eq_xmalloc(b ? b : 8), mag;
  int                 t0 = eq_threads_get();

  for (int t = 1; t <= (E.omp ? 4 : 1); t++) {
    if (E.omp) eq_threads_set(t);
    /* r = -(rz / s0) q + r, s1 = (r, r); q = x, r = y */
    vset_reset(v);
    hs[PDS_KS_RHO] = 0.6;
    bs = eq_dev(E.be, hs, sb), memcpy(rs, hs, sb);
    TEST_CALL(kb->krylov.cg_update_r(E.be, n, v->bx, v->by, bs, -1));
    TEST_CALL(kr->krylov.cg_update_r(E.ref, n, v->rx, v->ry, rs, -1));
    eq_host(E.be, gs, bs, sb), eq_dfree(E.be, &bs);
    vcheck(v, "cg_update_r: r", v->by, v->ry, 0.6 / 1.25, v->hx, 1.0, v->hy);
    scheck("cg_update_r: (r, r)", n, gs[1], rs[1], rs[1], (double)n);
    /* w = -(rho / s0) v + r, s1 = (w, w); r = x, v = y */
    vset_reset(v);
    hs[PDS_KS_RHO] = -0.8;
    bs = eq_dev(E.be, hs, sb), memcpy(rs, hs, sb);
    TEST_CALL(kb->krylov.bicg_update_s(E.be, n, v->bx, v->by, v->bw, bs));
    TEST_CALL(kr->krylov.bicg_update_s(E.ref, n, v->rx, v->ry, v->rw, rs));
    eq_host(E.be, gs, bs, sb), eq_dfree(E.be, &bs);
    vcheck(v, "bicg_update_s: w", v->bw, v->rw, 0.8 / 1.25, v->hy, 1.0, v->hx);
    scheck("bicg_update_s: (w, w)", n, gs[1], rs[1], rs[1], (double)n);
    /* r = -(s2 / s3) t + w, s4 = (r, rhat), s5 = (r, r); w = x, t = y, rhat = w's array */
    vset_reset(v);
    bs = eq_dev(E.be, hs, sb), memcpy(rs, hs, sb), br = eq_dev(E.be, v->hx, b);
    TEST_CALL(kb->krylov.bicg_update_r(E.be, n, v->bx, v->by, v->bw, br, bs, -1));
    TEST_CALL(kr->krylov.bicg_update_r(E.ref, n, v->rx, v->ry, v->rw, rr, rs, -1));
    eq_host(E.be, gs, bs, sb), eq_dfree(E.be, &bs);
    vcheck(v, "bicg_update_r: r", br, rr, 0.75 / 2.5, v->hy, 1.0, v->hx);
    eq_dfree(E.be, &br);
    mag = 0;
    for (pds_size i = 0; i < n; i++) mag += fabs(rr[i] * v->hw[i]);
    scheck("bicg_update_r: (r, rhat)", n, gs[4], rs[4], mag, (double)n);
    scheck("bicg_update_r: (r, r)", n, gs[5], rs[5], rs[5], (double)n);
    /* the step after the reduction, in the same call (step >= 0), against the reduction then krylov_step on the same
       backend: the same bits in all of S; and krylov_set */
    for (int m = 0; m < 2; m++) {
      pds_real g2[PDS_KS_N], c0[PDS_KS_N] = {0};

      c0[0] = 1.25, c0[2] = -0.75, c0[3] = 2.5, c0[PDS_KS_RHO] = 0.6, c0[PDS_KS_TOL] = 1e-30, c0[PDS_KS_MAXIT] = 10;
      c0[PDS_KS_DTOL] = 1e10, c0[PDS_KS_RNORM0] = 1e3, c0[PDS_KS_NOPC] = 1;
      for (int fused = 0; fused < 2; fused++) {
        vset_reset(v);
        bs = eq_dev(E.be, c0, sb), br = eq_dev(E.be, v->hx, b);
        TEST_CALL(kb->krylov.set(E.be, bs, c0)); /* the same values once more, by the backend's own path */
        if (m == 0) TEST_CALL(kb->krylov.cg_update_r(E.be, n, v->bx, v->by, bs, fused ? PDS_KS_STEP_CG : -1));
        else TEST_CALL(kb->krylov.bicg_update_r(E.be, n, v->bx, v->by, v->bw, br, bs, fused ? PDS_KS_STEP_BICG : -1));
        if (!fused) TEST_CALL(kb->krylov.step(E.be, m == 0 ? PDS_KS_STEP_CG : PDS_KS_STEP_BICG, bs));
        eq_host(E.be, fused ? g2 : gs, bs, sb), eq_dfree(E.be, &bs), eq_dfree(E.be, &br);
      }
      TEST_ASSERT(!memcmp(gs, g2, sb) && gs[PDS_KS_IT] == 1);
    }
    /* the updates in each mode the steps set: x = 0.7 p + x (X), p = z - 0.3 p (P); z = x, x = y, p = w */
    hs[PDS_KS_ALPHA] = 0.7, hs[PDS_KS_BETA] = -0.3, hs[PDS_KS_OMEGA] = 0.2;
    for (int m = 0; m <= (PDS_KS_XP_X | PDS_KS_XP_P); m++) {
      char what[64];

      vset_reset(v);
      hs[PDS_KS_XP] = m;
      bs = eq_dev(E.be, hs, sb);
      TEST_CALL(kb->krylov.cg_update_xp(E.be, n, v->bx, v->by, v->bw, bs));
      TEST_CALL(kr->krylov.cg_update_xp(E.ref, n, v->rx, v->ry, v->rw, hs));
      eq_dfree(E.be, &bs);
      snprintf(what, sizeof what, "cg_update_xp (mode %d): x", m);
      vcheck(v, what, v->by, v->ry, m & PDS_KS_XP_X ? 0.7 : 0.0, v->hw, 1.0, v->hy);
      snprintf(what, sizeof what, "cg_update_xp (mode %d): p", m);
      if (m & PDS_KS_XP_P) vcheck(v, what, v->bw, v->rw, 1.0, v->hx, 0.3, v->hw);
      else vcheck(v, what, v->bw, v->rw, 0.0, v->hx, 1.0, v->hw);
    }
    /* x = 0.7 ph + 0.2 sh + x (X) or 0.7 ph + x (HALF), p = r + (-0.5 * 0.2) v + 0.5 p (P), with ph = p (no
       preconditioner) and ph apart; ph = sh = r = v = x's array (read only), x = y, p = w */
    hs[PDS_KS_BETA] = 0.5;
    for (int m = 0; m < 8; m++) {
      if ((m & PDS_KS_XP_X) && (m & PDS_KS_XP_HALF)) continue; /* never both */
      for (int alias = 0; alias < 2; alias++) {
        pds_real *bph = alias ? v->bw : v->bx, *rph = alias ? v->rw : v->rx;
        pds_real  cx  = m & PDS_KS_XP_X ? 0.9 : m & PDS_KS_XP_HALF ? 0.7 : 0.0;
        pds_real  cxw = m & PDS_KS_XP_X ? 0.7 : m & PDS_KS_XP_HALF ? 0.7 : 0.0;
        char      what[64];

        vset_reset(v);
        hs[PDS_KS_XP] = m;
        bs = eq_dev(E.be, hs, sb);
        TEST_CALL(kb->krylov.bicg_update_xp(E.be, n, bph, v->bx, v->bx, v->bx, v->by, v->bw, bs));
        TEST_CALL(kr->krylov.bicg_update_xp(E.ref, n, rph, v->rx, v->rx, v->rx, v->ry, v->rw, hs));
        eq_dfree(E.be, &bs);
        snprintf(what, sizeof what, "bicg_update_xp (mode %d%s): x", m, alias ? ", ph = p" : "");
        if (alias) vcheck3(v, what, v->by, v->ry, cx - cxw, v->hx, 1.0, v->hy, cxw, v->hw);
        else vcheck3(v, what, v->by, v->ry, cx, v->hx, 1.0, v->hy, 0, v->hw);
        snprintf(what, sizeof what, "bicg_update_xp (mode %d%s): p", m, alias ? ", ph = p" : "");
        if (m & PDS_KS_XP_P) vcheck3(v, what, v->bw, v->rw, 1.1, v->hx, 0.5, v->hw, 0, v->hw);
        else vcheck3(v, what, v->bw, v->rw, 0, v->hx, 1.0, v->hw, 0, v->hw);
      }
    }
  }
  if (E.omp) eq_threads_set(t0);
  free(rr);
}

/* /cpu/omp: results must not depend on the number of threads (nor on the run) */
static void test_thread_counts(vset *v) {
  struct pds_kernels *kb = E.be->k;
  pds_size            n  = v->n;
  int                 t0 = eq_threads_get();
  pds_real            d[4], m[4], d2[4][2], want;

  vset_reset(v);
  for (int t = 1; t <= 4; t++) {
    eq_threads_set(t);
    TEST_CALL(kb->vec.dot(E.be, n, v->bx, v->by, &d[t - 1]));
    TEST_CALL(kb->vec.norm_inf(E.be, n, v->bx, &m[t - 1]));
    TEST_CALL(kb->vec.dot2(E.be, n, v->bx, v->by, v->bw, d2[t - 1]));
  }
  eq_threads_set(t0);
  for (int t = 1; t < 4; t++) {
    if (memcmp(&d[0], &d[t], sizeof d[0]))
      TEST_FAIL("vec_dot on 1 and %d threads differ: %.17g vs %.17g (n = %" PDS_SIZE_FMT ")", t + 1, d[0], d[t], n);
    TEST_ASSERT(!memcmp(&m[0], &m[t], sizeof m[0]));
    TEST_ASSERT(!memcmp(d2[0], d2[t], sizeof d2[0]));
  }
  TEST_CALL(E.ref->k->vec.dot(E.ref, n, v->rx, v->ry, &want));
  TEST_ASSERT(!memcmp(&d[0], &want, sizeof want));
}

/* the public API on both contexts: the same random vectors give the same dot and norms */
static void test_public(pds_size n) {
  pds_vec  xb, yb, xr, yr;
  pds_real db, dr, nb, nr;

  TEST_CALL(pds_vec_create(E.be, n, &xb));
  TEST_CALL(pds_vec_create(E.be, n, &yb));
  TEST_CALL(pds_vec_create(E.ref, n, &xr));
  TEST_CALL(pds_vec_create(E.ref, n, &yr));
  TEST_CALL(pds_vec_set_random(xb, 11));
  TEST_CALL(pds_vec_set_random(yb, 12));
  TEST_CALL(pds_vec_set_random(xr, 11));
  TEST_CALL(pds_vec_set_random(yr, 12));
  TEST_CALL(pds_vec_axpy(yb, 0.5, xb));
  TEST_CALL(pds_vec_axpy(yr, 0.5, xr));
  TEST_CALL(pds_vec_dot(xb, yb, &db));
  TEST_CALL(pds_vec_dot(xr, yr, &dr));
  scheck("pds_vec_dot", n, db, dr, (double)n, (double)n);
  TEST_CALL(pds_vec_norm2(yb, &nb));
  TEST_CALL(pds_vec_norm2(yr, &nr));
  scheck("pds_vec_norm2", n, nb, nr, nr, (double)n);
  TEST_CALL(pds_vec_norm_inf(yb, &nb));
  TEST_CALL(pds_vec_norm_inf(yr, &nr));
  scheck("pds_vec_norm_inf", n, nb, nr, nr, 1);
  TEST_CALL(pds_vec_destroy(&xb));
  TEST_CALL(pds_vec_destroy(&yb));
  TEST_CALL(pds_vec_destroy(&xr));
  TEST_CALL(pds_vec_destroy(&yr));
}

int main(int argc, char **argv) {
  const pds_size sizes[] = {0,     1,     2,     3,     5,     17,     PDS_REDUCE_CHUNK - 1, PDS_REDUCE_CHUNK,
                            PDS_REDUCE_CHUNK + 1, 4097,  16383, 16384,  16385, 65537, 1000003, 1 << 20};

  E = eq_init(argc, argv);
  eq_seed(1);
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    vset v;

    vset_create(&v, sizes[s]);
    test_elementwise(&v);
    test_reductions(&v);
    test_fused(&v);
    if (E.omp) test_thread_counts(&v);
    vset_destroy(&v);
  }
  test_public(0);
  test_public(1);
  test_public(1000003);
  eq_finalize(&E);
  return 0;
}
