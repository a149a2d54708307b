/* tests/equiv/equiv_f32.c: the single-precision kernel group (src/backend/kernels_f32.h, ctx->k->f32) of the backend
 * under test against /cpu/ref, and /cpu/ref against the spec's expressions: conversions (round to nearest even,
 * exact widening), set, copy, axpby (b = 0 does not read y), axpbypcz, pdiv, dot2 / dot_into, the five fused Krylov
 * steps (S[0] or S[3] zero or not finite, the step in the same call, every S[XP] mode, ph = p), csr_spmv (alpha,
 * beta not 1, beta = 0 with NaN in y), csr_residual and csr_spmv_dot on random matrices with empty and heavy rows;
 * n = 0, 1, around 4, the reduction chunk and omp's threading threshold. /cpu/omp must give ref's bits (1 to 4
 * threads); another backend must agree within a few float ulps of the magnitudes (elementwise), 1e-12 of the sum of
 * |terms| (reductions in double), c rowlen FLT_EPSILON sum |a_ij x_j| (csr rows). */
#include "equiv.h"
#include "backend/krylov_step.h"

static eq_env E;
static char   where_[96]; /* n and thread count of the current case, for the messages */

#define KB (&E.be->k->f32)
#define KR (&E.ref->k->f32)

/* got against want (float): bitwise when exact, else |got - want| <= ulps FLT_EPSILON mag_i (mag NULL: |want_i|) */
static void fcompare_(int line, const char *what, const float *got, const float *want, const double *mag, pds_size n,
                      double ulps, int exact) {
  for (pds_size i = 0; i < n; i++) {
    int ok;

    if (exact) ok = !memcmp(&got[i], &want[i], sizeof *got);
    else if (isnan(want[i])) ok = isnan(got[i]);
    else ok = got[i] == want[i] || fabs((double)got[i] - want[i]) <= ulps * FLT_EPSILON * (mag ? mag[i] : fabs(want[i])) + FLT_MIN;
    if (!ok) {
      uint32_t a, b;

      memcpy(&a, &got[i], 4), memcpy(&b, &want[i], 4);
      fprintf(stderr, "%s:%d: FAILED: %s (%s): entry %" PDS_SIZE_FMT " of %" PDS_SIZE_FMT ": %.9g (0x%08" PRIx32
              ") vs %.9g (0x%08" PRIx32 ")%s\n", __FILE__, line, what, where_, i, n, got[i], a, want[i], b,
              exact ? " (bitwise expected)" : "");
      exit(1);
    }
  }
}
#define fcompare(...) fcompare_(__LINE__, __VA_ARGS__)

/* reductions in double: bitwise when exact, else within 1e-12 mag (mag: the sum of |terms|) */
static void dcompare_(int line, const char *what, const double *got, const double *want, const double *mag, int n,
                      int exact) {
  char msg[200];

  snprintf(msg, sizeof msg, "%s (%s, line %d)", what, where_, line);
  eq_compare_(__FILE__, line, msg, got, want, mag, (pds_size)n, 1e-12 / (8 * DBL_EPSILON), exact);
}
#define dcompare(...) dcompare_(__LINE__, __VA_ARGS__)

/* n random floats in [-1, 1) with zeros of both signs */
static float *frandom(pds_size n) {
  float *a = eq_xmalloc((size_t)n * sizeof *a);

  for (pds_size i = 0; i < n; i++) a[i] = (float)eq_real();
  if (n > 10) a[3] = 0.0f, a[7] = -0.0f;
  return a;
}

/* a float vector in both contexts: b in backend memory, r (host) for ref; fv_get copies b back to got */
typedef struct {
  pds_size n;
  float   *b, *r, *got;
} fv;
static fv fv_make(const float *h, pds_size n) {
  fv v = {n, eq_dev(E.be, h, (size_t)n * sizeof(float)), eq_xmalloc((size_t)n * sizeof(float)),
          eq_xmalloc((size_t)n * sizeof(float))};

  memcpy(v.r, h, (size_t)n * sizeof(float));
  return v;
}
static const float *fv_get(fv *v) {
  eq_host(E.be, v->got, v->b, v->n * sizeof(float));
  return v->got;
}
static void fv_free(fv *v) {
  eq_dfree(E.be, &v->b);
  free(v->r), free(v->got);
}
/* the backend's v against ref's; mag_i = the sum of the magnitudes of the entry's terms */
static void fv_check(const char *what, fv *v, const double *mag, double ulps) {
  fcompare(what, fv_get(v), v->r, mag, v->n, ulps, E.exact);
}

/* sum_i (double)u_i (double)w_i in index order, and the sum of |terms|: what a backend's reduction must be near */
static double naive_dot(pds_size n, const float *u, const float *w, double *mag) {
  double s = 0;

  *mag = 0;
  for (pds_size i = 0; i < n; i++) s += (double)u[i] * w[i], *mag += fabs((double)u[i] * w[i]);
  return s;
}

/* conversions: one right answer on every backend (bitwise): (float) rounds to nearest even, (double) is exact */
static void test_convert(pds_size n) {
  double *hd = eq_xmalloc((n ? n : 1) * sizeof *hd), *back = eq_xmalloc((n ? n : 1) * sizeof *back);
  float  *want = eq_xmalloc((n ? n : 1) * sizeof *want), *hf;
  const double special[] = {1.0 + 0x1p-24, 1.0 + 3 * 0x1p-24, -(1.0 + 0x1p-24), 1.0 + 0x1p-24 + 0x1p-50, 0x1p-24 * 3,
                            1e300, -1e300, 1e-300, 0x1p-149 * 0.75, -0.0, NAN, INFINITY, (double)FLT_MAX * (1 + 0x1p-25),
                            0.1};
  const float  sw[] = {1.0f, 1.0f + 0x1p-22f, -1.0f, 1.0f + 0x1p-23f, 0x1p-24f * 3, INFINITY, -INFINITY, 0.0f,
                       0x1p-149f, -0.0f, NAN, INFINITY, FLT_MAX, 0.1f};
  double      *bd;
  fv           v;

  for (pds_size i = 0; i < n; i++) hd[i] = eq_real() * 3;
  for (size_t s = 0; s < sizeof special / sizeof special[0] && s < (size_t)n; s++) hd[s] = special[s];
  for (pds_size i = 0; i < n; i++) want[i] = (float)hd[i];
  for (size_t s = 0; s < sizeof special / sizeof special[0] && s < (size_t)n; s++)
    TEST_ASSERT(!memcmp(&want[s], &sw[s], 4) || isnan(sw[s])); /* the test's own idea of the rounding */
  hf = frandom(n), v = fv_make(hf, n);
  bd = eq_dev(E.be, hd, n * sizeof *hd);
  TEST_CALL(KB->to_f32(E.be, n, bd, v.b));
  TEST_CALL(KR->to_f32(E.ref, n, hd, v.r));
  fcompare("to_f32 (ref)", v.r, want, NULL, n, 0, 1);
  fcompare("to_f32", fv_get(&v), want, NULL, n, 0, 1);
  /* and back: exact */
  TEST_CALL(KB->to_f64(E.be, n, v.b, bd));
  eq_host(E.be, back, bd, n * sizeof *back);
  for (pds_size i = 0; i < n; i++) hd[i] = want[i];
  eq_compare("to_f64", back, hd, NULL, n, 0, 1);
  TEST_CALL(KR->to_f64(E.ref, n, v.r, back));
  eq_compare("to_f64 (ref)", back, hd, NULL, n, 0, 1);
  eq_dfree(E.be, &bd);
  fv_free(&v), free(hf), free(hd), free(back), free(want);
}

/* elementwise kernels; ref also against the spec's expressions (bitwise) */
static void test_elementwise(pds_size n, const float *hx, const float *hy, const float *hz) {
  const double ab[][2] = {{2.5, -0.75}, {0.1, 0.0}, {0.0, 1.0}, {1.0, 1.0}, {-1.0, -0.0}, {0.3, 1.7}};
  double      *mag = eq_xmalloc((n ? n : 1) * sizeof *mag), *hd = eq_xmalloc((n ? n : 1) * sizeof *hd);
  float       *want = eq_xmalloc((n ? n : 1) * sizeof *want), *ynan = eq_xmalloc((n ? n : 1) * sizeof *ynan);
  fv           x = fv_make(hx, n), y, z;

  for (pds_size i = 0; i < n; i++) ynan[i] = NAN;
  for (int a = 0; a < 2; a++) {
    double c = a ? -0.0 : 0.7;

    y = fv_make(hy, n);
    TEST_CALL(KB->vec_set(E.be, n, c, y.b));
    TEST_CALL(KR->vec_set(E.ref, n, c, y.r));
    for (pds_size i = 0; i < n; i++) want[i] = (float)c;
    fcompare("vec_set (ref)", y.r, want, NULL, n, 0, 1);
    fcompare("vec_set", fv_get(&y), want, NULL, n, 0, 1);
    fv_free(&y);
  }
  y = fv_make(hy, n);
  TEST_CALL(KB->vec_copy(E.be, n, x.b, y.b));
  TEST_CALL(KR->vec_copy(E.ref, n, x.r, y.r));
  fcompare("vec_copy", fv_get(&y), hx, NULL, n, 0, 1);
  TEST_CALL(KB->vec_copy(E.be, n, y.b, y.b));
  fcompare("vec_copy onto itself", fv_get(&y), hx, NULL, n, 0, 1);
  fcompare("vec_copy (ref)", y.r, hx, NULL, n, 0, 1);
  fv_free(&y);

  for (size_t c = 0; c < sizeof ab / sizeof ab[0]; c++) {
    double a = ab[c][0], b = ab[c][1];
    float  fa = (float)a, fb = (float)b;

    y = fv_make(b == 0 ? ynan : hy, n); /* b = 0: y is not read, its NaN must not show */
    TEST_CALL(KB->vec_axpby(E.be, n, a, x.b, b, y.b));
    TEST_CALL(KR->vec_axpby(E.ref, n, a, x.r, b, y.r));
    for (pds_size i = 0; i < n; i++) {
      want[i] = b == 0 ? fa * hx[i] : fa * hx[i] + fb * hy[i];
      mag[i]  = fabs((double)fa * hx[i]) + (b == 0 ? 0 : fabs((double)fb * hy[i]));
    }
    fcompare("vec_axpby (ref)", y.r, want, NULL, n, 0, 1);
    fv_check("vec_axpby", &y, mag, 3);
    fv_free(&y);
  }
  for (size_t c = 0; c < sizeof ab / sizeof ab[0]; c++) {
    double a = ab[c][0], b = ab[c][1], g = c % 2 ? 0.25 : -1.1;
    float  fa = (float)a, fb = (float)b, fg = (float)g;

    z = fv_make(hz, n), y = fv_make(hy, n);
    TEST_CALL(KB->vec_axpbypcz(E.be, n, a, x.b, b, y.b, g, z.b));
    TEST_CALL(KR->vec_axpbypcz(E.ref, n, a, x.r, b, y.r, g, z.r));
    for (pds_size i = 0; i < n; i++) {
      want[i] = (fa * hx[i] + fb * hy[i]) + fg * hz[i];
      mag[i]  = fabs((double)fa * hx[i]) + fabs((double)fb * hy[i]) + fabs((double)fg * hz[i]);
    }
    fcompare("vec_axpbypcz (ref)", z.r, want, NULL, n, 0, 1);
    fv_check("vec_axpbypcz", &z, mag, 4);
    /* z = x: the output is an input too */
    TEST_CALL(KB->vec_axpbypcz(E.be, n, a, y.b, b, z.b, g, z.b));
    TEST_CALL(KR->vec_axpbypcz(E.ref, n, a, y.r, b, z.r, g, z.r));
    for (pds_size i = 0; i < n; i++) mag[i] = fabs((double)fa * hy[i]) + (fabs(fb) + fabs(fg)) * (mag[i] + fabs(want[i]));
    fv_check("vec_axpbypcz z = y", &z, mag, 8);
    fv_free(&z), fv_free(&y);
  }
  /* w = x ./ (float)d, d in double with zeros of both signs and a value float rounds */
  for (pds_size i = 0; i < n; i++) hd[i] = eq_real() * 4 + 0.5;
  if (n > 10) hd[5] = 0.0, hd[6] = -0.0, hd[8] = 1.0 + 0x1p-30;
  {
    double *bd = eq_dev(E.be, hd, n * sizeof *hd);

    y = fv_make(ynan, n);
    TEST_CALL(KB->vec_pdiv(E.be, n, x.b, bd, y.b));
    TEST_CALL(KR->vec_pdiv(E.ref, n, x.r, hd, y.r));
    for (pds_size i = 0; i < n; i++) want[i] = hx[i] / (float)hd[i], mag[i] = fabs(want[i]);
    fcompare("vec_pdiv (ref)", y.r, want, NULL, n, 0, 1);
    fv_check("vec_pdiv", &y, mag, 2);
    fv_free(&y);
    eq_dfree(E.be, &bd);
  }
  fv_free(&x);
  free(mag), free(hd), free(want), free(ynan);
}

/* dot2 (d on the host) and dot_into (d in backend memory) against ref's and a plain sum; deterministic */
static void test_reductions(pds_size n, const float *hx, const float *hy, const float *hz) {
  fv      x = fv_make(hx, n), y = fv_make(hy, n), z = fv_make(hz, n);
  double  g[2], w[2], again[2], mag[2], plain[2], *bd, zero[2] = {0, 0};

  TEST_CALL(KB->vec_dot2(E.be, n, x.b, y.b, z.b, g));
  TEST_CALL(KR->vec_dot2(E.ref, n, x.r, y.r, z.r, w));
  plain[0] = naive_dot(n, hx, hy, &mag[0]), plain[1] = naive_dot(n, hx, hz, &mag[1]);
  dcompare("vec_dot2 (ref vs a plain sum)", w, plain, mag, 2, 0);
  dcompare("vec_dot2", g, w, mag, 2, E.exact);
  TEST_CALL(KB->vec_dot2(E.be, n, x.b, y.b, z.b, again));
  TEST_ASSERT(!memcmp(g, again, sizeof g)); /* same call, same bits */
  again[1] = 42;
  TEST_CALL(KB->vec_dot2(E.be, n, x.b, y.b, NULL, again)); /* z NULL: d[1] left alone */
  TEST_ASSERT(again[1] == 42);
  dcompare("vec_dot2 without z", again, w, mag, 1, E.exact);
  if (E.exact) TEST_ASSERT(!memcmp(&again[0], &g[0], sizeof g[0]));
  /* x . x */
  TEST_CALL(KB->vec_dot2(E.be, n, x.b, x.b, NULL, g));
  TEST_CALL(KR->vec_dot2(E.ref, n, x.r, x.r, NULL, w));
  dcompare("vec_dot2 x.x", g, w, w, 1, E.exact);
  /* into backend memory, at an offset (as the solvers write S[i]) */
  bd = eq_dev(E.be, zero, sizeof zero);
  TEST_CALL(KB->vec_dot_into(E.be, n, x.b, y.b, bd + 1));
  eq_host(E.be, g, bd, sizeof g);
  eq_dfree(E.be, &bd);
  TEST_CALL(KR->vec_dot_into(E.ref, n, x.r, y.r, &w[1]));
  TEST_ASSERT(g[0] == 0);
  dcompare("vec_dot_into", &g[1], &w[1], &mag[0], 1, E.exact);
  /* a NaN shows */
  if (n) {
    x.r[n / 2] = NAN;
    fv_free(&y), y = fv_make(x.r, n);
    TEST_CALL(KB->vec_dot2(E.be, n, z.b, z.b, y.b, g));
    TEST_ASSERT(!isnan(g[0]) && isnan(g[1]));
  }
  fv_free(&x), fv_free(&y), fv_free(&z);
}

/* S: the backend's (bs, backend memory) against ref's rs: bitwise when exact, else each entry within 1e-9 relative
   (the scalars the step derives from the reductions) and the reductions within 1e-12 of mag */
static void s_check(const char *what, double *bs, const double *rs) {
  double g[PDS_KS_N];

  eq_host(E.be, g, bs, sizeof g);
  if (E.exact) {
    for (int i = 0; i < PDS_KS_N; i++)
      if (memcmp(&g[i], &rs[i], sizeof g[i]))
        TEST_FAIL("%s (%s): S[%d] = %.17g vs ref %.17g (bitwise expected)", what, where_, i, g[i], rs[i]);
    return;
  }
  for (int i = 0; i < PDS_KS_N; i++)
    if (!(g[i] == rs[i] || (isnan(g[i]) && isnan(rs[i])) || fabs(g[i] - rs[i]) <= 1e-9 * fabs(rs[i])))
      TEST_FAIL("%s (%s): S[%d] = %.17g vs ref %.17g", what, where_, i, g[i], rs[i]);
}

/* the fused steps: every S[0] / S[3] case, step -1 and the step in the same call, every x, p mode */
static void test_fused(pds_size n, const float *hx, const float *hy, const float *hz) {
  const double dens[] = {1.25, 0.0, INFINITY, NAN, -0.5};
  double      *mag = eq_xmalloc((n ? n : 1) * sizeof *mag);
  float       *want = eq_xmalloc((n ? n : 1) * sizeof *want);
  double       hs[PDS_KS_N] = {0}, rs[PDS_KS_N], *bs, dm, dw;

  for (size_t c = 0; c < sizeof dens / sizeof dens[0]; c++) {
    double s0 = dens[c], a = s0 != 0 && isfinite(s0) ? 0.6 / s0 : 0;
    float  fa = (float)a;
    fv     q = fv_make(hx, n), r = fv_make(hy, n), v, w, t, rh;

    /* cg_update_r: r = -a q + r, S[1] = r . r */
    memset(hs, 0, sizeof hs);
    hs[0] = s0, hs[PDS_KS_RHO] = 0.6, hs[2] = -0.75, hs[3] = s0 * 2;
    memcpy(rs, hs, sizeof hs), bs = eq_dev(E.be, hs, sizeof hs);
    TEST_CALL(KB->cg_update_r(E.be, n, q.b, r.b, bs, -1));
    TEST_CALL(KR->cg_update_r(E.ref, n, q.r, r.r, rs, -1));
    for (pds_size i = 0; i < n; i++) want[i] = -fa * hx[i] + hy[i], mag[i] = fabs((double)fa * hx[i]) + fabs(hy[i]);
    fcompare("cg_update_r: r (ref)", r.r, want, NULL, n, 0, 1);
    fv_check("cg_update_r: r", &r, mag, 3);
    dw = naive_dot(n, r.r, r.r, &dm);
    dcompare("cg_update_r: S[1] (ref vs a plain sum)", &rs[1], &dw, &dm, 1, 0);
    if (!E.exact) rs[1] = naive_dot(n, r.got, r.got, &dm); /* the backend's r may differ by rounding */
    s_check("cg_update_r", bs, rs);
    eq_dfree(E.be, &bs);

    /* bicg_update_s: w = -a v + r, S[1] = w . w (r = y's, v = x's data) */
    v = fv_make(hx, n), w = fv_make(hz, n);
    fv_free(&r), r = fv_make(hy, n);
    memcpy(rs, hs, sizeof hs), bs = eq_dev(E.be, hs, sizeof hs);
    TEST_CALL(KB->bicg_update_s(E.be, n, r.b, v.b, w.b, bs));
    TEST_CALL(KR->bicg_update_s(E.ref, n, r.r, v.r, w.r, rs));
    fcompare("bicg_update_s: w (ref)", w.r, want, NULL, n, 0, 1);
    fv_check("bicg_update_s: w", &w, mag, 3);
    if (!E.exact) rs[1] = naive_dot(n, w.got, w.got, &dm);
    s_check("bicg_update_s", bs, rs);
    eq_dfree(E.be, &bs);

    /* bicg_update_r: r = -o t + w, S[4] = r . rhat, S[5] = r . r; o = S[2] / S[3] */
    {
      double o  = hs[3] != 0 && isfinite(hs[3]) ? hs[2] / hs[3] : 0;
      float  fo = (float)o;

      t = fv_make(hz, n), rh = fv_make(hx, n);
      fv_free(&w), w = fv_make(hy, n);
      memcpy(rs, hs, sizeof hs), bs = eq_dev(E.be, hs, sizeof hs);
      TEST_CALL(KB->bicg_update_r(E.be, n, w.b, t.b, rh.b, r.b, bs, -1));
      TEST_CALL(KR->bicg_update_r(E.ref, n, w.r, t.r, rh.r, r.r, rs, -1));
      for (pds_size i = 0; i < n; i++) want[i] = -fo * hz[i] + hy[i], mag[i] = fabs((double)fo * hz[i]) + fabs(hy[i]);
      fcompare("bicg_update_r: r (ref)", r.r, want, NULL, n, 0, 1);
      fv_check("bicg_update_r: r", &r, mag, 3);
      if (!E.exact) {
        double m2;

        rs[4] = naive_dot(n, r.got, hx, &m2), rs[5] = naive_dot(n, r.got, r.got, &m2);
      }
      s_check("bicg_update_r", bs, rs);
      eq_dfree(E.be, &bs);
      fv_free(&t), fv_free(&rh);
    }
    fv_free(&q), fv_free(&r), fv_free(&v), fv_free(&w);
  }

  /* the step in the same call: S as the reduction then krylov_step on the same backend (bitwise), and as ref's */
  for (int m = 0; m < 2; m++) {
    double c0[PDS_KS_N] = {0}, g1[PDS_KS_N], g2[PDS_KS_N];
    fv     a = fv_make(hx, n), b = fv_make(hy, n), c = fv_make(hz, n), d = fv_make(hx, n);

    c0[0] = 1.25, c0[1] = 0.5, c0[2] = -0.75, c0[3] = 2.5, c0[PDS_KS_RHO] = 0.6, c0[PDS_KS_TOL] = 1e-30;
    c0[PDS_KS_MAXIT] = 10, c0[PDS_KS_DTOL] = 1e10, c0[PDS_KS_RNORM0] = 1e3, c0[PDS_KS_NOPC] = 1;
    for (int fused = 0; fused < 2; fused++) {
      fv_free(&b), b = fv_make(hy, n);
      bs = eq_dev(E.be, c0, sizeof c0);
      if (m == 0) TEST_CALL(KB->cg_update_r(E.be, n, a.b, b.b, bs, fused ? PDS_KS_STEP_CG : -1));
      else TEST_CALL(KB->bicg_update_r(E.be, n, a.b, c.b, d.b, b.b, bs, fused ? PDS_KS_STEP_BICG : -1));
      if (!fused) TEST_CALL(E.be->k->krylov.step(E.be, m == 0 ? PDS_KS_STEP_CG : PDS_KS_STEP_BICG, bs));
      eq_host(E.be, fused ? g2 : g1, bs, sizeof g1);
      if (fused) {
        memcpy(rs, c0, sizeof c0);
        if (m == 0) TEST_CALL(KR->cg_update_r(E.ref, n, a.r, b.r, rs, PDS_KS_STEP_CG));
        else TEST_CALL(KR->bicg_update_r(E.ref, n, a.r, c.r, d.r, b.r, rs, PDS_KS_STEP_BICG));
        TEST_ASSERT(rs[PDS_KS_IT] == 1);
        s_check(m == 0 ? "cg_update_r with the step" : "bicg_update_r with the step", bs, rs);
      }
      eq_dfree(E.be, &bs);
    }
    TEST_ASSERT(!memcmp(g1, g2, sizeof g1));
    fv_free(&a), fv_free(&b), fv_free(&c), fv_free(&d);
  }

  /* cg_update_xp, every mode: x = al p + x (X), p = z + be p (P); be = 0: p = z (p not read by P) */
  for (int zb = 0; zb < 2; zb++)
    for (int m = 0; m <= (PDS_KS_XP_X | PDS_KS_XP_P); m++) {
      double al = 0.7, be = zb ? 0.0 : -0.3;
      float  fal = (float)al, fbe = (float)be;
      fv     z = fv_make(hx, n), x = fv_make(hy, n), p = fv_make(hz, n);
      char   what[64];

      memset(hs, 0, sizeof hs);
      hs[PDS_KS_ALPHA] = al, hs[PDS_KS_BETA] = be, hs[PDS_KS_XP] = m;
      bs = eq_dev(E.be, hs, sizeof hs);
      TEST_CALL(KB->cg_update_xp(E.be, n, z.b, x.b, p.b, bs));
      TEST_CALL(KR->cg_update_xp(E.ref, n, z.r, x.r, p.r, hs));
      eq_dfree(E.be, &bs);
      snprintf(what, sizeof what, "cg_update_xp (mode %d, beta %g): x", m, be);
      for (pds_size i = 0; i < n; i++)
        want[i] = m & PDS_KS_XP_X ? fal * hz[i] + hy[i] : hy[i], mag[i] = fabs((double)fal * hz[i]) + fabs(hy[i]);
      fcompare(what, x.r, want, NULL, n, 0, 1);
      fv_check(what, &x, mag, 3);
      snprintf(what, sizeof what, "cg_update_xp (mode %d, beta %g): p", m, be);
      for (pds_size i = 0; i < n; i++)
        want[i] = !(m & PDS_KS_XP_P) ? hz[i] : be == 0 ? hx[i] : hx[i] + fbe * hz[i],
        mag[i]  = fabs(hx[i]) + fabs((double)fbe * hz[i]);
      fcompare(what, p.r, want, NULL, n, 0, 1);
      fv_check(what, &p, mag, 3);
      fv_free(&z), fv_free(&x), fv_free(&p);
    }

  /* bicg_update_xp, every mode (X and HALF never together), ph apart and ph = p */
  for (int m = 0; m < 8; m++) {
    if ((m & PDS_KS_XP_X) && (m & PDS_KS_XP_HALF)) continue;
    for (int alias = 0; alias < 2; alias++) {
      double al = 0.7, om = 0.2, be = 0.55, bo = -be * om;
      float  fal = (float)al, fom = (float)om, fbe = (float)be, fbo = (float)bo;
      fv     ph = fv_make(hx, n), sh = fv_make(hy, n), r = fv_make(hz, n), v = fv_make(hy, n);
      fv     x = fv_make(hx, n), p = fv_make(hz, n);
      const float *hph = alias ? hz : hx; /* ph's values: p's when ph = p */
      char   what[64];

      memset(hs, 0, sizeof hs);
      hs[PDS_KS_ALPHA] = al, hs[PDS_KS_OMEGA] = om, hs[PDS_KS_BETA] = be, hs[PDS_KS_XP] = m;
      bs = eq_dev(E.be, hs, sizeof hs);
      TEST_CALL(KB->bicg_update_xp(E.be, n, alias ? p.b : ph.b, sh.b, r.b, v.b, x.b, p.b, bs));
      TEST_CALL(KR->bicg_update_xp(E.ref, n, alias ? p.r : ph.r, sh.r, r.r, v.r, x.r, p.r, hs));
      eq_dfree(E.be, &bs);
      snprintf(what, sizeof what, "bicg_update_xp (mode %d%s): x", m, alias ? ", ph = p" : "");
      for (pds_size i = 0; i < n; i++) {
        want[i] = m & PDS_KS_XP_X ? (fal * hph[i] + fom * hy[i]) + hx[i] : m & PDS_KS_XP_HALF ? fal * hph[i] + hx[i] : hx[i];
        mag[i]  = fabs((double)fal * hph[i]) + fabs((double)fom * hy[i]) + fabs(hx[i]);
      }
      fcompare(what, x.r, want, NULL, n, 0, 1);
      fv_check(what, &x, mag, 4);
      snprintf(what, sizeof what, "bicg_update_xp (mode %d%s): p", m, alias ? ", ph = p" : "");
      for (pds_size i = 0; i < n; i++) {
        want[i] = m & PDS_KS_XP_P ? (hz[i] + fbo * hy[i]) + fbe * hz[i] : hz[i];
        mag[i]  = fabs(hz[i]) + fabs((double)fbo * hy[i]) + fabs((double)fbe * hz[i]);
      }
      fcompare(what, p.r, want, NULL, n, 0, 1);
      fv_check(what, &p, mag, 4);
      fv_free(&ph), fv_free(&sh), fv_free(&r), fv_free(&v), fv_free(&x), fv_free(&p);
    }
  }
  free(mag), free(want);
}

/* the vector kernels at size n; on /cpu/omp for 1 to 4 threads */
static void test_vectors(pds_size n) {
  float *hx = frandom(n), *hy = frandom(n), *hz = frandom(n);
  int    t0 = eq_threads_get();

  for (int t = 1; t <= (E.omp ? 4 : 1); t++) {
    if (E.omp) eq_threads_set(t);
    snprintf(where_, sizeof where_, "n = %" PDS_SIZE_FMT ", %d thread(s)", n, E.omp ? t : 0);
    test_convert(n);
    test_elementwise(n, hx, hy, hz);
    test_reductions(n, hx, hy, hz);
    test_fused(n, hx, hy, hz);
  }
  if (E.omp) eq_threads_set(t0);
  free(hx), free(hy), free(hz);
}

/* ref's csr rows by the spec: s in float in the row's order, y_i = fa s or fa s + fb z_i; mag_i = |fa| sum |a x|
   + |fb z_i|; returns the longest row + 2 */
static double csr_want(const struct pds_csr *A, const float *v, double alpha, const float *x, double beta,
                       const float *z, float *y, double *mag) {
  float  fa = (float)alpha, fb = (float)beta;
  double most = 0;

  for (pds_int i = 0; i < A->nrows; i++) {
    float  s = 0;
    double m = 0;

    for (pds_size k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) s += v[k] * x[A->colidx[k]], m += fabs((double)v[k] * x[A->colidx[k]]);
    y[i]   = beta == 0 ? fa * s : fa * s + fb * z[i];
    mag[i] = fabs((double)fa) * m + (beta == 0 ? 0 : fabs((double)fb * z[i]));
    most   = (double)(A->rowptr[i + 1] - A->rowptr[i]) > most ? (double)(A->rowptr[i + 1] - A->rowptr[i]) : most;
  }
  return most + 2;
}

static void test_csr(const char *name, struct pds_csr *A) {
  const double   ab[][2] = {{1, 0}, {2.5, -0.5}, {1, 1}, {-0.5, -0.0}, {0.1, 0.3}};
  pds_int        nr = A->nrows, nc = A->ncols, nm = (nr > nc ? nr : nc) + 1;
  float         *vals = eq_xmalloc((size_t)(A->nnz ? A->nnz : 1) * sizeof *vals), *bv;
  float         *hx = frandom((pds_size)nm), *hy = frandom((pds_size)nm), *hw = frandom((pds_size)nm);
  float         *ynan = eq_xmalloc((size_t)nm * sizeof *ynan), *want = eq_xmalloc((size_t)nm * sizeof *want);
  double        *mag = eq_xmalloc((size_t)nm * sizeof *mag);
  struct pds_csr Ab = eq_csr_upload(E.be, A);
  int            t0 = eq_threads_get();

  for (pds_size k = 0; k < A->nnz; k++) vals[k] = (float)A->vals[k];
  for (pds_int i = 0; i < nm; i++) ynan[i] = NAN;
  bv = eq_dev(E.be, vals, (size_t)A->nnz * sizeof *vals);
  for (int t = 1; t <= (E.omp ? 4 : 1); t++) {
    if (E.omp) eq_threads_set(t);
    snprintf(where_, sizeof where_, "%s %d x %d nnz %" PDS_SIZE_FMT ", %d thread(s)", name, nr, nc, A->nnz,
             E.omp ? t : 0);
    for (size_t c = 0; c < sizeof ab / sizeof ab[0]; c++) {
      double alpha = ab[c][0], beta = ab[c][1], terms;
      fv     x = fv_make(hx, (pds_size)nc), y = fv_make(beta == 0 ? ynan : hy, (pds_size)nr);
      char   what[64];

      TEST_CALL(KB->csr_spmv(E.be, &Ab, bv, alpha, x.b, beta, y.b));
      TEST_CALL(KR->csr_spmv(E.ref, A, vals, alpha, x.r, beta, y.r));
      terms = csr_want(A, vals, alpha, hx, beta, hy, want, mag);
      snprintf(what, sizeof what, "csr_spmv alpha %g beta %g", alpha, beta);
      fcompare(what, y.r, want, NULL, (pds_size)nr, 0, 1);
      fv_check(what, &y, mag, 2 * terms);
      fv_free(&x), fv_free(&y);
    }
    /* r = b - A x: -1 s + 1 b_i; r apart from b, and r = b */
    {
      fv     x = fv_make(hx, (pds_size)nc), b = fv_make(hy, (pds_size)nr), r = fv_make(ynan, (pds_size)nr);
      double terms = csr_want(A, vals, -1.0, hx, 1.0, hy, want, mag);

      TEST_CALL(KB->csr_residual(E.be, &Ab, bv, x.b, b.b, r.b));
      TEST_CALL(KR->csr_residual(E.ref, A, vals, x.r, b.r, r.r));
      fcompare("csr_residual (ref)", r.r, want, NULL, (pds_size)nr, 0, 1);
      fv_check("csr_residual", &r, mag, 2 * terms);
      TEST_CALL(KB->csr_residual(E.be, &Ab, bv, x.b, b.b, b.b));
      TEST_CALL(KR->csr_residual(E.ref, A, vals, x.r, b.r, b.r));
      fcompare("csr_residual r = b (ref)", b.r, want, NULL, (pds_size)nr, 0, 1);
      fv_check("csr_residual r = b", &b, mag, 2 * terms);
      fv_free(&x), fv_free(&b), fv_free(&r);
    }
    /* y = A x with (y . w1) or (y . w1, y . w2): w1 = x (CG's (p, A p)), w1 apart, w2 = y (BiCGSTAB's (t, t)) */
    if (nr == nc)
      for (int form = 0; form < 3; form++) {
        fv      x = fv_make(hx, (pds_size)nc), y = fv_make(ynan, (pds_size)nr), w = fv_make(hw, (pds_size)nr);
        double  z2[2] = {0, 0}, g[2], rd[2], dm[2], terms, *bd = eq_dev(E.be, z2, sizeof z2);
        const float *w1b = form ? w.b : x.b, *w1r = form ? w.r : x.r;
        char    what[64];

        TEST_CALL(KB->csr_spmv_dot(E.be, &Ab, bv, x.b, y.b, w1b, form == 2 ? y.b : NULL, bd));
        TEST_CALL(KR->csr_spmv_dot(E.ref, A, vals, x.r, y.r, w1r, form == 2 ? y.r : NULL, rd));
        eq_host(E.be, g, bd, sizeof g), eq_dfree(E.be, &bd);
        snprintf(what, sizeof what, "csr_spmv_dot form %d: y", form);
        terms = csr_want(A, vals, 1.0, hx, 0.0, NULL, want, mag);
        fcompare(what, y.r, want, NULL, (pds_size)nr, 0, 1);
        fv_check(what, &y, mag, 2 * terms);
        snprintf(what, sizeof what, "csr_spmv_dot form %d: dots", form);
        /* ref against a plain sum of its y; the backend against ref's (exact) or a plain sum of its own y */
        {
          double p[2];

          p[0] = naive_dot((pds_size)nr, y.r, form ? hw : hx, &dm[0]), p[1] = naive_dot((pds_size)nr, y.r, y.r, &dm[1]);
          dcompare(what, rd, p, dm, form == 2 ? 2 : 1, 0);
          if (!E.exact)
            rd[0] = naive_dot((pds_size)nr, y.got, form ? hw : hx, &dm[0]), rd[1] = naive_dot((pds_size)nr, y.got, y.got, &dm[1]);
          dcompare(what, g, rd, dm, form == 2 ? 2 : 1, E.exact);
        }
        fv_free(&x), fv_free(&y), fv_free(&w);
      }
  }
  if (E.omp) eq_threads_set(t0);
  eq_dfree(E.be, &bv), eq_csr_free_dev(E.be, &Ab);
  free(vals), free(hx), free(hy), free(hw), free(ynan), free(want), free(mag);
}

int main(int argc, char **argv) {
  const pds_size sizes[] = {0,    1,     2,     3,     5,     17,    PDS_REDUCE_CHUNK - 1, PDS_REDUCE_CHUNK,
                            PDS_REDUCE_CHUNK + 1, 4097, 16383, 16384, 16385, 65537, 200003};
  struct {
    const char *name;
    pds_int     nr, nc;
    int         avg, empty;
    pds_size    heavy;
  } mats[] = {{"empty", 0, 0, 1, 0, 0},          {"1 x 1", 1, 1, 1, 0, 0},          {"small", 17, 17, 3, 20, 0},
              {"empty rows", 700, 700, 4, 40, 0}, {"rectangular", 300, 200, 5, 10, 0}, {"wide", 150, 4000, 6, 10, 0},
              {"large", 30011, 30011, 4, 10, 0},  {"heavy", 30000, 30000, 1, 0, 20000}};

  E = eq_init(argc, argv);
  eq_seed(32);
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) test_vectors(sizes[s]);
  for (size_t m = 0; m < sizeof mats / sizeof mats[0]; m++) {
    struct pds_csr A = eq_csr_random(mats[m].nr, mats[m].nc, mats[m].avg, mats[m].empty, mats[m].heavy);

    test_csr(mats[m].name, &A);
    eq_csr_free(&A);
  }
  eq_finalize(&E);
  return 0;
}
