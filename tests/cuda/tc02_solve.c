/* tests/cuda/tc02_solve.c: solves on /gpu/cuda against /cpu/ref: CG and BiCGSTAB (and GMRES once) with none, jacobi
 * and pbjacobi on poisson7, CSR and BSR (bs 4); the iteration counts agree (CG within 2, BiCGSTAB within 2 + 1/8)
 * and the solutions within 1e-7 (rtol 1e-10 times the condition number bounds their distance).
 * A second solve from the same start gives bitwise the same iterate, history and counts; CG and BiCGSTAB (a device
 * loop) make a few device-to-host copies per solve, GMRES one per iteration; neither takes new memory from the driver
 * (the pool). With the host in the loop (pds_solver_set_device_loop 0) the iterate, counts, history and monitor calls
 * are bitwise those of the device loop.
 * Also: the product fused with its dots against ref (both kernels: fused, and with long rows); a reduction over 5e6
 * entries repeated gives the same bits. */
#include "test.h"
#include "backend/cuda/cuda_common.h"

static pds_ctx ctx, ref;
static int     devloop = 1; /* 0 when PDS_DEVICE_LOOP=0 (compute-sanitizer's racecheck and synccheck runs) */

typedef struct {
  int      it, reason;
  pds_real rnorm;
} outcome;

typedef struct {
  int calls, last, bad;
} monitor_log;

/* the monitor must see 0, 1, 2, ... in order */
static int check_monitor(void *user, int it, pds_real rnorm) {
  monitor_log *m = user;

  if (it != m->last + 1 || !(rnorm >= 0)) m->bad = 1;
  m->last = it;
  m->calls++;
  return 0;
}

/* fails (returns 1) at iteration *stop */
static int failing_monitor(void *user, int it, pds_real rnorm) {
  (void)rnorm;
  return it == *(int *)user;
}

static outcome solve(pds_ctx c, const char *solver, const char *pc, int bsr, int n, pds_real *x_out, int check) {
  pds_problem       p = {0};
  pds_mat           B = NULL;
  pds_solver        s;
  pds_precond       P;
  pds_vec           x;
  pds_int           dims[3] = {n, n, n}, nr, nc;
  pds_solver_result r;
  outcome           o;

  TEST_CALL(pds_problem_generate(c, "poisson7", dims, 3, &p));
  if (bsr) TEST_CALL(pds_mat_convert_to_bsr(p.A, 4, &B));
  TEST_CALL(pds_vec_duplicate(p.b, &x));
  TEST_CALL(pds_solver_create(c, solver, &s));
  TEST_CALL(pds_precond_create(c, pc, &P));
  if (!bsr) TEST_CALL(pds_precond_set_block_size(P, 4));
  TEST_CALL(pds_solver_set_operator(s, B ? B : p.A));
  TEST_CALL(pds_solver_set_precond(s, P));
  TEST_CALL(pds_solver_set_tolerances(s, 1e-10, 0, 2000));
  TEST_CALL(pds_vec_set(x, 0.0));
  TEST_CALL(pds_solver_solve(s, p.b, x));
  TEST_CALL(pds_solver_get_result(s, &r));
  TEST_CALL(pds_mat_get_size(p.A, &nr, &nc));
  if (check) {
    /* again, from the same start: same bits; then with the host in the loop (pds_solver_set_device_loop 0): the same
       bits, counts, history and monitor calls. CG and BiCGSTAB run as a device loop: a few device-to-host copies per
       solve, whatever the iteration count; on the host loop (and GMRES) one per iteration; no new device memory */
    long long         d0, d1, d2;
    size_t            m0, m1;
    pds_real         *x1 = malloc((size_t)nr * sizeof *x1), *h1;
    const pds_real   *h;
    int               hl, hl1, dev = devloop && (!strcmp(solver, "cg") || !strcmp(solver, "bicgstab"));
    pds_solver_result r2, r3;
    monitor_log       mon = {0, -1, 0};

    TEST_CALL(pds_vec_get_values(x, x1, PDS_MEM_HOST));
    TEST_CALL(pds_solver_set_history(s, 1));
    TEST_CALL(pds_solver_set_monitor(s, check_monitor, &mon));
    TEST_CALL(pds_vec_set(x, 0.0));
    TEST_CALL(pds_cuda_counters(c, &d0, &m0, NULL));
    TEST_CALL(pds_solver_solve(s, p.b, x));
    TEST_CALL(pds_cuda_counters(c, &d1, &m1, NULL));
    TEST_CALL(pds_solver_get_result(s, &r2));
    TEST_CALL(pds_vec_get_values(x, x_out, PDS_MEM_HOST));
    if (r2.iterations != r.iterations || memcmp(&r2.rnorm, &r.rnorm, sizeof r.rnorm) ||
        memcmp(x1, x_out, (size_t)nr * sizeof *x1))
      TEST_FAIL("%s + %s (bsr %d): a second solve differs (iterations %d vs %d)", solver, pc, bsr, r2.iterations,
                r.iterations);
    if (mon.bad || mon.last != r2.iterations)
      TEST_FAIL("%s + %s (bsr %d): the monitor saw iterations 0..%d out of order or incomplete (%d iterations)",
                solver, pc, bsr, mon.last, r2.iterations);
    if (d1 - d0 > (dev ? 8 : r2.iterations + 2 * (r2.iterations / 30) + 6))
      TEST_FAIL("%s + %s (bsr %d): %lld device-to-host copies for %d iterations", solver, pc, bsr, d1 - d0,
                r2.iterations);
    if (m1 != m0) TEST_FAIL("%s + %s: the pool grew from %zu to %zu bytes in a repeated solve", solver, pc, m0, m1);
    TEST_CALL(pds_solver_get_history(s, &hl1, &h));
    TEST_ASSERT(hl1 == r2.iterations + 1);
    h1 = malloc((size_t)hl1 * sizeof *h1);
    memcpy(h1, h, (size_t)hl1 * sizeof *h1);
    /* the host loop */
    mon.last = -1;
    TEST_CALL(pds_solver_set_device_loop(s, 0));
    TEST_CALL(pds_vec_set(x, 0.0));
    TEST_CALL(pds_solver_solve(s, p.b, x));
    TEST_CALL(pds_cuda_counters(c, &d2, NULL, NULL));
    TEST_CALL(pds_solver_get_result(s, &r3));
    TEST_CALL(pds_vec_get_values(x, x1, PDS_MEM_HOST));
    TEST_CALL(pds_solver_get_history(s, &hl, &h));
    if (r3.iterations != r2.iterations || r3.reason != r2.reason || memcmp(&r3.rnorm, &r2.rnorm, sizeof r.rnorm) ||
        memcmp(x1, x_out, (size_t)nr * sizeof *x1) || hl != hl1 || memcmp(h, h1, (size_t)hl * sizeof *h) || mon.bad ||
        mon.last != r3.iterations)
      TEST_FAIL("%s + %s (bsr %d): the host loop differs from the device loop (iterations %d vs %d)", solver, pc, bsr,
                r3.iterations, r2.iterations);
    if (d2 - d1 < (dev ? r3.iterations : 0))
      TEST_FAIL("%s + %s (bsr %d): the host loop made %lld copies for %d iterations", solver, pc, bsr, d2 - d1,
                r3.iterations);
    free(x1), free(h1);
  } else TEST_CALL(pds_vec_get_values(x, x_out, PDS_MEM_HOST));
  o.it = r.iterations, o.reason = r.reason, o.rnorm = r.rnorm;
  TEST_CALL(pds_precond_destroy(&P));
  TEST_CALL(pds_solver_destroy(&s));
  TEST_CALL(pds_vec_destroy(&x));
  TEST_CALL(pds_mat_destroy(&B));
  TEST_CALL(pds_problem_destroy(&p));
  return o;
}

int main(int argc, char **argv) {
  const char *solvers[] = {"cg", "bicgstab", "gmres", "fgmres"}, *pcs[] = {"none", "jacobi", "pbjacobi"};
  int         small = getenv("PDS_TEST_SMALL") != NULL; /* smaller solves, for compute-sanitizer (each kernel
                                                                  still meets a size that selects it) */
  int         n = small ? 8 : 20, nn = n * n * n;
  pds_real   *xc = malloc((size_t)nn * sizeof *xc), *xr = malloc((size_t)nn * sizeof *xr);

  ctx = test_init(argc, argv);
  devloop = !(getenv("PDS_DEVICE_LOOP") && !strcmp(getenv("PDS_DEVICE_LOOP"), "0"));
  TEST_CALL(pds_ctx_create("/cpu/ref", &ref));
  /* under compute-sanitizer (small): the flexible variant is left out to fit the tool's time; its kernels are
     GMRES's */
  for (int si = 0; si < (small ? 3 : 4); si++)
    for (int pi = 0; pi < 3; pi++)
      for (int bsr = 0; bsr < 2; bsr++) {
        outcome oc = solve(ctx, solvers[si], pcs[pi], bsr, n, xc, 1);
        outcome orf = solve(ref, solvers[si], pcs[pi], bsr, n, xr, 0);
        double  err = 0, nrm = 0;

        /* CG's count is stable to rounding; BiCGSTAB's moves by a few iterations with the rounding of the fused
           multiply-adds and of the reduction order */
        if (oc.reason <= 0 || orf.reason <= 0 || abs(oc.it - orf.it) > (si == 0 ? 2 : 2 + orf.it / 8))
          TEST_FAIL("%s + %s (bsr %d): cuda %d iterations (reason %d), ref %d (reason %d)", solvers[si], pcs[pi], bsr,
                    oc.it, oc.reason, orf.it, orf.reason);
        for (int i = 0; i < nn; i++) err = fmax(err, fabs(xc[i] - xr[i])), nrm = fmax(nrm, fabs(xr[i]));
        if (!(err <= 1e-7 * nrm))
          TEST_FAIL("%s + %s (bsr %d): solutions differ by %g (|x| %g)", solvers[si], pcs[pi], bsr, err, nrm);
      }
  {
    outcome oc = solve(ctx, "gmres", "jacobi", 0, n, xc, 1), orf = solve(ref, "gmres", "jacobi", 0, n, xr, 0);

    TEST_ASSERT(oc.reason > 0 && abs(oc.it - orf.it) <= 2);
  }
  /* Richardson + Jacobi to maxit 300 (several chunks of the device loop): the device loop and the host loop give the
     same bits, history included; a monitor that fails at iteration 70 stops a device loop with its error, and the
     context solves again afterwards; a solve into another vector records the loop anew, same bits */
  {
    pds_problem       p = {0};
    pds_int           dims[3] = {n, n, n};
    pds_solver        s;
    pds_precond       P;
    pds_vec           x;
    pds_solver_result ra, rb;
    pds_real         *xa = malloc((size_t)nn * sizeof *xa), *ha = NULL;
    const pds_real   *h;
    int               hla, hlb, stop = 70;

    TEST_CALL(pds_problem_generate(ctx, "poisson7", dims, 3, &p));
    TEST_CALL(pds_vec_duplicate(p.b, &x));
    TEST_CALL(pds_solver_create(ctx, "richardson", &s));
    TEST_CALL(pds_precond_create(ctx, "jacobi", &P));
    TEST_CALL(pds_solver_set_operator(s, p.A));
    TEST_CALL(pds_solver_set_precond(s, P));
    TEST_CALL(pds_solver_set_tolerances(s, 1e-12, 0, 300));
    TEST_CALL(pds_solver_set_history(s, 1));
    for (int dev = 1; devloop && dev >= 0; dev--) {
      TEST_CALL(pds_solver_set_device_loop(s, dev));
      TEST_CALL(pds_vec_set(x, 0.0));
      TEST_CALL(pds_solver_solve(s, p.b, x));
      TEST_CALL(pds_solver_get_result(s, dev ? &ra : &rb));
      TEST_CALL(pds_solver_get_history(s, dev ? &hla : &hlb, &h));
      if (dev) {
        TEST_CALL(pds_vec_get_values(x, xa, PDS_MEM_HOST));
        ha = malloc((size_t)hla * sizeof *ha);
        memcpy(ha, h, (size_t)hla * sizeof *ha);
      } else {
        TEST_CALL(pds_vec_get_values(x, xc, PDS_MEM_HOST));
        TEST_ASSERT(ra.reason == PDS_DIVERGED_MAXIT && rb.reason == ra.reason && ra.iterations == 300);
        TEST_ASSERT(rb.iterations == ra.iterations && hla == 301 && hlb == hla);
        TEST_ASSERT(!memcmp(xa, xc, (size_t)nn * sizeof *xa) && !memcmp(ha, h, (size_t)hla * sizeof *ha));
      }
    }
    if (!devloop) { /* the host loop only: its numbers for the checks below */
      TEST_CALL(pds_vec_set(x, 0.0));
      TEST_CALL(pds_solver_solve(s, p.b, x));
      TEST_CALL(pds_vec_get_values(x, xa, PDS_MEM_HOST));
    }
    TEST_CALL(pds_solver_set_device_loop(s, devloop));
    TEST_CALL(pds_solver_set_monitor(s, failing_monitor, &stop));
    TEST_CALL(pds_vec_set(x, 0.0));
    TEST_ASSERT(pds_solver_solve(s, p.b, x) == PDS_ERR_ARG);
    TEST_CALL(pds_solver_set_monitor(s, NULL, NULL));
    TEST_CALL(pds_vec_set(x, 0.0));
    TEST_CALL(pds_solver_solve(s, p.b, x));
    TEST_CALL(pds_solver_get_result(s, &rb));
    TEST_CALL(pds_vec_get_values(x, xc, PDS_MEM_HOST));
    TEST_ASSERT(rb.iterations == 300 && !memcmp(xa, xc, (size_t)nn * sizeof *xa));
    { /* another iterate vector: the loop is recorded anew (it points at x), same bits */
      pds_vec x2;

      TEST_CALL(pds_vec_duplicate(x, &x2));
      TEST_CALL(pds_vec_set(x2, 0.0));
      TEST_CALL(pds_solver_solve(s, p.b, x2));
      TEST_CALL(pds_vec_get_values(x2, xc, PDS_MEM_HOST));
      TEST_ASSERT(!memcmp(xa, xc, (size_t)nn * sizeof *xa));
      TEST_CALL(pds_vec_set(x, 0.0));
      TEST_CALL(pds_solver_solve(s, p.b, x));
      TEST_CALL(pds_vec_get_values(x, xc, PDS_MEM_HOST));
      TEST_ASSERT(!memcmp(xa, xc, (size_t)nn * sizeof *xa));
      TEST_CALL(pds_vec_destroy(&x2));
    }
    free(xa), free(ha);
    TEST_CALL(pds_precond_destroy(&P));
    TEST_CALL(pds_solver_destroy(&s));
    TEST_CALL(pds_vec_destroy(&x));
    TEST_CALL(pds_problem_destroy(&p));
  }
  /* the product fused with its dots (pds_vec_fused_apply_dot) against /cpu/ref, on a 7-point matrix (the fused
     kernel) and on one with long rows (product, then dot kernels); both twice for the same bits */
  for (int c = 0; c < 2; c++) {
    pds_int   m = 70000, cap = 7 * m + 3 * 5000; /* 70000 rows: the stream kernel when c == 0 */
    pds_size *rp = malloc(((size_t)m + 1) * sizeof *rp);
    pds_int  *ci = malloc((size_t)cap * sizeof *ci);
    pds_real *v = malloc((size_t)cap * sizeof *v), got[4], again[4], want[4]; /* S has 4 entries */
    pds_ctx   cs[2] = {ctx, ref};
    pds_real *y[2];

    rp[0] = 0;
    for (pds_int i = 0; i < m; i++) {
      pds_size k = rp[i];
      int      len = c == 1 && i % (m / 3) == 7 ? 5000 : 7;

      for (int j = 0; j < len; j++, k++) {
        ci[k] = (pds_int)((i + (j - len / 2) * 31 + 7 * (pds_size)m) % m);
        v[k]  = j ? -0.5 - 1e-3 * j : 4.0;
      }
      rp[i + 1] = k;
    }
    for (int b = 0; b < 2; b++) {
      pds_mat A;
      pds_vec x, yv, w, S;

      TEST_CALL(pds_mat_create_csr(cs[b], m, m, rp, ci, v, PDS_MEM_HOST, PDS_COPY_VALUES, &A));
      TEST_CALL(pds_vec_create(cs[b], m, &x));
      TEST_CALL(pds_vec_create(cs[b], m, &yv));
      TEST_CALL(pds_vec_create(cs[b], m, &w));
      TEST_CALL(pds_vec_create(cs[b], 4, &S));
      TEST_CALL(pds_vec_set_random(x, 21));
      TEST_CALL(pds_vec_set_random(w, 22));
      TEST_CALL(pds_vec_fused_apply_dot(A, x, yv, x, NULL, S, 0)); /* CG's (p, A p) */
      TEST_CALL(pds_vec_fused_apply_dot(A, x, yv, w, yv, S, 1));   /* BiCGSTAB's (t, s), (t, t) */
      TEST_CALL(pds_vec_get_values(S, b ? want : got, PDS_MEM_HOST));
      y[b] = malloc((size_t)m * sizeof(pds_real));
      TEST_CALL(pds_vec_get_values(yv, y[b], PDS_MEM_HOST));
      if (!b) {
        TEST_CALL(pds_vec_fused_apply_dot(A, x, yv, x, NULL, S, 0));
        TEST_CALL(pds_vec_fused_apply_dot(A, x, yv, w, yv, S, 1));
        TEST_CALL(pds_vec_get_values(S, again, PDS_MEM_HOST));
        TEST_ASSERT(!memcmp(got, again, sizeof got));
      }
      TEST_CALL(pds_vec_destroy(&x));
      TEST_CALL(pds_vec_destroy(&yv));
      TEST_CALL(pds_vec_destroy(&w));
      TEST_CALL(pds_vec_destroy(&S));
      TEST_CALL(pds_mat_destroy(&A));
    }
    for (int k = 0; k < 3; k++) TEST_ASSERT_NEAR(got[k], want[k], 1e-12, 1e-12);
    for (pds_int i = 0; i < m; i++) TEST_ASSERT_NEAR(y[0][i], y[1][i], 1e-13, 1e-13);
    free(rp), free(ci), free(v), free(y[0]), free(y[1]);
  }
  /* every CSR kernel against ref through pds_mat_apply and _transpose: rows of up to 64 entries (the stream
     kernel), of 10 with some of 80 (8 lanes per row), of 1 to 150 (32 lanes), of 1 or 2 with a few of 100
     (merge-path; its transpose, rows of about 2: thread per row); the transposes get their own plans (tc04 has the
     classes of each kernel, row splitting included) */
  for (int c = 0; c < 4; c++) {
    pds_int   m = c == 0 ? 70000 : small ? 2000 : 50000; /* case 0 with 70000 rows: the stream kernel */
    pds_size *rp = malloc(((size_t)m + 1) * sizeof *rp), nnz = 0;
    pds_int  *ci;
    pds_real *v, *yr = malloc((size_t)m * sizeof *yr), *yc = malloc((size_t)m * sizeof *yc);
    uint64_t  seed = 77;

    rp[0] = 0;
    for (pds_int i = 0; i < m; i++) {
      int len = c == 0   ? 1 + i % 64
                : c == 1 ? (i % 50 ? 10 : 80)
                : c == 2 ? 1 + (i * 7) % 150
                         : (i % 500 ? 1 + i % 2 : 100);

      rp[i + 1] = rp[i] + len;
    }
    nnz = rp[m];
    ci  = malloc((size_t)nnz * sizeof *ci), v = malloc((size_t)nnz * sizeof *v);
    for (pds_size k = 0; k < nnz; k++) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      ci[k] = (pds_int)((seed >> 33) % (uint64_t)m);
      v[k]  = (double)(seed >> 11) * 0x1.0p-53 - 0.5;
    }
    for (int trans = 0; trans < 2; trans++) {
      for (int b = 0; b < 2; b++) {
        pds_ctx cc = b ? ref : ctx;
        pds_mat A;
        pds_vec x, y;

        TEST_CALL(pds_mat_create_csr(cc, m, m, rp, ci, v, PDS_MEM_HOST, PDS_COPY_VALUES, &A));
        TEST_CALL(pds_vec_create(cc, m, &x));
        TEST_CALL(pds_vec_create(cc, m, &y));
        TEST_CALL(pds_vec_set_random(x, 5));
        TEST_CALL(trans ? pds_mat_apply_transpose(A, x, y) : pds_mat_apply(A, x, y));
        TEST_CALL(pds_vec_get_values(y, b ? yr : yc, PDS_MEM_HOST));
        TEST_CALL(pds_vec_destroy(&x));
        TEST_CALL(pds_vec_destroy(&y));
        TEST_CALL(pds_mat_destroy(&A));
      }
      for (pds_int i = 0; i < m; i++)
        if (!(fabs(yc[i] - yr[i]) <= 1e-13 * 150 * (1 + fabs(yr[i]))))
          TEST_FAIL("csr case %d%s: y[%d] = %.17g, ref %.17g", c, trans ? " (transpose)" : "", (int)i, yc[i], yr[i]);
    }
    free(rp), free(ci), free(v), free(yr), free(yc);
  }
  /* BSR against ref, with at least 65536 scalar rows (the staged kernel) and with few (the warp kernel) */
  for (int bs = 1; bs <= 8; bs++)
    for (int big = 0; big < 2; big++) {
      pds_int   nb = big ? (70000 + bs - 1) / bs : 3000 / bs, n2 = nb * bs;
      pds_size *rp = malloc(((size_t)nb + 1) * sizeof *rp), nnzb;
      pds_int  *ci;
      pds_real *v, *yr = malloc((size_t)n2 * sizeof *yr), *yc = malloc((size_t)n2 * sizeof *yc);
      uint64_t  seed = 99 + (uint64_t)bs;

      rp[0] = 0;
      for (pds_int i = 0; i < nb; i++) rp[i + 1] = rp[i] + 1 + (i * 5) % 9;
      nnzb = rp[nb];
      ci   = malloc((size_t)nnzb * sizeof *ci), v = malloc((size_t)nnzb * bs * bs * sizeof *v);
      for (pds_int i = 0; i < nb; i++)
        for (pds_size k = rp[i]; k < rp[i + 1]; k++) ci[k] = (pds_int)((i + (k - rp[i]) * 37) % nb); /* distinct */
      for (pds_size k = 0; k < nnzb * bs * bs; k++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        v[k] = (double)(seed >> 11) * 0x1.0p-53 - 0.5;
      }
      for (int b = 0; b < 2; b++) {
        pds_ctx cc = b ? ref : ctx;
        pds_mat A;
        pds_vec x, y;

        TEST_CALL(pds_mat_create_bsr(cc, nb, nb, bs, rp, ci, v, PDS_MEM_HOST, PDS_COPY_VALUES, &A));
        TEST_CALL(pds_vec_create(cc, n2, &x));
        TEST_CALL(pds_vec_create(cc, n2, &y));
        TEST_CALL(pds_vec_set_random(x, 5));
        TEST_CALL(pds_vec_set_random(y, 6));
        TEST_CALL(pds_mat_apply_add(A, 1.5, x, -0.5, y)); /* beta != 0 too */
        TEST_CALL(pds_vec_get_values(y, b ? yr : yc, PDS_MEM_HOST));
        TEST_CALL(pds_vec_destroy(&x));
        TEST_CALL(pds_vec_destroy(&y));
        TEST_CALL(pds_mat_destroy(&A));
      }
      for (pds_int i = 0; i < n2; i++)
        if (!(fabs(yc[i] - yr[i]) <= 1e-13 * 80 * (1 + fabs(yr[i]))))
          TEST_FAIL("bsr bs %d (%d block rows): y[%d] = %.17g, ref %.17g", bs, (int)nb, (int)i, yc[i], yr[i]);
      free(rp), free(ci), free(v), free(yr), free(yc);
    }
  /* a long reduction, repeated: the same bits */
  {
    pds_vec  x, y;
    pds_real d0, d;

    TEST_CALL(pds_vec_create(ctx, small ? 100000 : 5000000, &x));
    TEST_CALL(pds_vec_create(ctx, small ? 100000 : 5000000, &y));
    TEST_CALL(pds_vec_set_random(x, 11));
    TEST_CALL(pds_vec_set_random(y, 12));
    TEST_CALL(pds_vec_dot(x, y, &d0));
    for (int k = 0; k < (small ? 3 : 20); k++) {
      TEST_CALL(pds_vec_dot(x, y, &d));
      TEST_ASSERT(!memcmp(&d, &d0, sizeof d));
    }
    TEST_CALL(pds_vec_destroy(&x));
    TEST_CALL(pds_vec_destroy(&y));
  }
  free(xc), free(xr);
  TEST_CALL(pds_ctx_destroy(&ref));
  test_finalize(&ctx);
  return 0;
}
