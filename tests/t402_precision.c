/* tests/t402_precision.c: single and mixed precision solves (pds_solver_set_precision) against double: cg,
 * bicgstab and richardson with no and the jacobi preconditioner on poisson7 (SPD) and an upwinded
 * convection-diffusion matrix (nonsymmetric). Single agrees with the double solution to float's accuracy, mixed to
 * double's; both are deterministic (bitwise on repeated solves), the history and the monitor see every iteration
 * (mixed: numbered on across its refinements); mixed cg (reliable updates) takes about double's iterations on
 * a P1 system where the scheme before it took 1.55x; /cpu/omp gives /cpu/ref's bits, other backends agree with ref to
 * float's accuracy; what is not supported is an error that says so, before anything is computed. */
#include "test.h"

static double rel_diff(pds_vec x, pds_vec y) {
  pds_vec  d;
  pds_real nd, ny;

  TEST_CALL(pds_vec_duplicate(x, &d));
  TEST_CALL(pds_vec_waxpy(d, -1.0, x, y));
  TEST_CALL(pds_vec_norm2(d, &nd));
  TEST_CALL(pds_vec_norm2(y, &ny));
  TEST_CALL(pds_vec_destroy(&d));
  return nd / ny;
}

/* the monitor's check: iterations arrive numbered 0, 1, 2, ... with no gap */
typedef struct {
  int next, calls;
} mon_state;
static int mon(void *user, int it, pds_real rnorm) {
  mon_state *m = user;

  (void)rnorm;
  if (it != m->next) return 1;
  m->next++, m->calls++;
  return 0;
}

typedef struct {
  pds_solver_result r;
  int               hlen;
  double            h[4096];
  double           *x; /* host copy */
} outcome;

static outcome solve(pds_ctx ctx, pds_mat A, pds_vec b, const char *solver, const char *pc, pds_precision prec,
                     double rtol, int maxit) {
  pds_solver      s;
  pds_precond     P;
  pds_vec         x;
  pds_size        n;
  const pds_real *h;
  outcome         o;
  mon_state       m = {0, 0};

  TEST_CALL(pds_vec_get_size(b, &n));
  TEST_CALL(pds_vec_duplicate(b, &x));
  TEST_CALL(pds_vec_set(x, 0.0));
  TEST_CALL(pds_solver_create(ctx, solver, &s));
  TEST_CALL(pds_precond_create(ctx, pc, &P));
  TEST_CALL(pds_solver_set_operator(s, A));
  TEST_CALL(pds_solver_set_precond(s, P));
  TEST_CALL(pds_precond_destroy(&P));
  TEST_CALL(pds_solver_set_tolerances(s, rtol, 0.0, maxit));
  if (!strcmp(solver, "richardson")) TEST_CALL(pds_solver_set_damping(s, 0.9));
  TEST_CALL(pds_solver_set_precision(s, prec));
  TEST_CALL(pds_solver_set_history(s, 1));
  TEST_CALL(pds_solver_set_monitor(s, mon, &m));
  TEST_CALL(pds_solver_solve(s, b, x));
  TEST_CALL(pds_solver_get_result(s, &o.r));
  TEST_CALL(pds_solver_get_history(s, &o.hlen, &h));
  TEST_ASSERT(o.hlen == o.r.iterations + 1 && o.hlen <= 4096);
  TEST_ASSERT(m.calls == o.hlen); /* every iteration, in order, once */
  memcpy(o.h, h, sizeof(double) * (size_t)o.hlen);
  TEST_ASSERT((o.x = malloc(sizeof(double) * (size_t)(n ? n : 1))) != NULL);
  TEST_CALL(pds_vec_get_values(x, o.x, PDS_MEM_HOST));
  TEST_CALL(pds_solver_destroy(&s));
  TEST_CALL(pds_vec_destroy(&x));
  return o;
}

static pds_vec host_vec(pds_ctx ctx, const double *v, pds_size n) {
  pds_vec x;

  TEST_CALL(pds_vec_create(ctx, n, &x));
  TEST_CALL(pds_vec_set_values(x, v, PDS_MEM_HOST));
  return x;
}

/* one problem: every supported solver x preconditioner in the three precisions */
static void check_problem(pds_ctx ctx, pds_ctx ref, pds_mat A, pds_mat Aref, pds_vec b, pds_vec bref, int spd,
                          const char *name) {
  const char *solvers[] = {"cg", "bicgstab", "richardson"}, *pcs[] = {"none", "jacobi"};
  const char *be        = pds_ctx_get_backend(ctx);
  pds_size    n;

  TEST_CALL(pds_vec_get_size(b, &n));
  for (int si = 0; si < 3; si++)
    for (int pi = 0; pi < 2; pi++) {
      const char *sv = solvers[si], *pc = pcs[pi];
      int         rich = !strcmp(sv, "richardson"), maxit = rich ? 4000 : 1000;
      outcome     d, f, f2, mx;
      pds_vec     xd, xf, xm;

      if ((!spd && !strcmp(sv, "cg")) || (rich && !strcmp(pc, "none"))) continue;
      d  = solve(ctx, A, b, sv, pc, PDS_PRECISION_DOUBLE, 1e-11, maxit);
      f  = solve(ctx, A, b, sv, pc, PDS_PRECISION_SINGLE, 1e-5, maxit);
      f2 = solve(ctx, A, b, sv, pc, PDS_PRECISION_SINGLE, 1e-5, maxit);
      mx = solve(ctx, A, b, sv, pc, PDS_PRECISION_MIXED, 1e-11, maxit);
      if (d.r.reason <= 0 || f.r.reason <= 0 || mx.r.reason <= 0)
        TEST_FAIL("%s %s + %s: reasons double %s, single %s, mixed %s", name, sv, pc, pds_reason_name(d.r.reason),
                  pds_reason_name(f.r.reason), pds_reason_name(mx.r.reason));
      xd = host_vec(ctx, d.x, n), xf = host_vec(ctx, f.x, n), xm = host_vec(ctx, mx.x, n);
      /* single: the true residual near the float recurrence's 1e-5, and the error within cond(A) (about 70 on both
         problems) times that: a slowly converging method (richardson) leaves its error in the smoothest mode, where
         error / residual is cond(A); mixed: double's accuracy */
      if (!(rel_diff(xf, xd) < 1e-3 && test_true_relres(A, b, xf) < 5e-5))
        TEST_FAIL("%s %s + %s single: error %g, true residual %g", name, sv, pc, rel_diff(xf, xd),
                  test_true_relres(A, b, xf));
      if (!(rel_diff(xm, xd) < 1e-9 && test_true_relres(A, b, xm) <= 1e-11))
        TEST_FAIL("%s %s + %s mixed: error %g, true residual %g", name, sv, pc, rel_diff(xm, xd), test_true_relres(A, b, xm));
      TEST_ASSERT(mx.r.rnorm <= 1e-11 * mx.r.bnorm); /* the result's norm is the true residual's */
      /* mixed cg (reliable updates, the direction kept across them) takes about double's iterations (on these
         well-conditioned systems float loses nothing: the same count); the FGMRES scheme of bicgstab and richardson
         a few times double's at most: its float inner solves restart their Krylov space at every outer step and end
         early when their residual rises (precision.c: PDS_MIXED_INNER_DTOL) */
      if (!strcmp(sv, "cg") ? !(mx.r.iterations <= d.r.iterations + d.r.iterations / 10 + 2)
                            : !(mx.r.iterations <= 3 * d.r.iterations + 10))
        TEST_FAIL("%s %s + %s: mixed took %d iterations, double %d", name, sv, pc, mx.r.iterations, d.r.iterations);
      {   /* mixed is deterministic too */
        outcome mx2 = solve(ctx, A, b, sv, pc, PDS_PRECISION_MIXED, 1e-11, maxit);

        TEST_ASSERT(mx2.r.iterations == mx.r.iterations && !memcmp(mx2.x, mx.x, sizeof(double) * (size_t)n));
        TEST_ASSERT(!memcmp(mx2.h, mx.h, sizeof(double) * (size_t)mx.hlen));
        free(mx2.x);
      }
      /* deterministic: the same bits and history on a repeated solve */
      TEST_ASSERT(f.r.iterations == f2.r.iterations && !memcmp(f.x, f2.x, sizeof(double) * (size_t)n));
      TEST_ASSERT(!memcmp(f.h, f2.h, sizeof(double) * (size_t)f.hlen));
      /* against /cpu/ref: omp's bits; other backends within float's accuracy */
      if (ref) {
        outcome fr = solve(ref, Aref, bref, sv, pc, PDS_PRECISION_SINGLE, 1e-5, maxit);

        if (!strcmp(be, "/cpu/omp")) {
          TEST_ASSERT(fr.r.iterations == f.r.iterations && !memcmp(fr.x, f.x, sizeof(double) * (size_t)n));
        } else {
          pds_vec xr = host_vec(ctx, fr.x, n);

          if (!(rel_diff(xf, xr) < 2e-3)) TEST_FAIL("%s %s + %s single vs ref: %g", name, sv, pc, rel_diff(xf, xr));
          TEST_ASSERT(abs(fr.r.iterations - f.r.iterations) <= f.r.iterations / 10 + 2);
          TEST_CALL(pds_vec_destroy(&xr));
        }
        free(fr.x);
      }
      TEST_CALL(pds_vec_destroy(&xd));
      TEST_CALL(pds_vec_destroy(&xf));
      TEST_CALL(pds_vec_destroy(&xm));
      free(d.x), free(f.x), free(f2.x), free(mx.x);
    }
}

/* what is not supported is an error at setup, naming it */
static void check_errors(pds_ctx ctx, pds_problem *p) {
  pds_solver    s;
  pds_precond   P;
  pds_mat       B, H;
  pds_vec       x, b;
  pds_precision q;
  pds_size      rp[3] = {0, 1, 2};
  pds_int       ci[2] = {0, 1};
  double        v[2] = {1e300, 1.0}, one[2] = {1, 1};

  TEST_CALL(pds_vec_duplicate(p->b, &x));
  TEST_CALL(pds_solver_create(ctx, "gmres", &s));
  TEST_CALL(pds_solver_set_operator(s, p->A));
  TEST_ASSERT_ERR(ctx, pds_solver_set_precision(s, (pds_precision)7), PDS_ERR_ARG, "unknown precision");
  TEST_CALL(pds_solver_get_precision(s, &q));
  TEST_ASSERT(q == PDS_PRECISION_DOUBLE);
  TEST_CALL(pds_solver_set_precision(s, PDS_PRECISION_SINGLE));
  TEST_ASSERT_ERR(ctx, pds_solver_solve(s, p->b, x), PDS_ERR_UNSUPPORTED, "no single-precision iteration");
  TEST_CALL(pds_solver_destroy(&s));
  TEST_CALL(pds_solver_create(ctx, "cg", &s));
  TEST_CALL(pds_solver_set_operator(s, p->A));
  TEST_CALL(pds_precond_create(ctx, "pbjacobi", &P));
  TEST_CALL(pds_solver_set_precond(s, P));
  TEST_CALL(pds_precond_destroy(&P));
  TEST_CALL(pds_solver_set_precision(s, PDS_PRECISION_MIXED));
  TEST_ASSERT_ERR(ctx, pds_solver_setup(s), PDS_ERR_UNSUPPORTED, "none and jacobi");
  TEST_CALL(pds_solver_set_precond(s, NULL));
  TEST_CALL(pds_solver_set_inf_tolerance(s, 1e-6));
  TEST_ASSERT_ERR(ctx, pds_solver_setup(s), PDS_ERR_UNSUPPORTED, "infinity-norm");
  TEST_CALL(pds_solver_set_inf_tolerance(s, 0));
  TEST_CALL(pds_mat_convert_to_bsr(p->A, 2, &B));
  TEST_CALL(pds_solver_set_operator(s, B));
  TEST_ASSERT_ERR(ctx, pds_solver_setup(s), PDS_ERR_UNSUPPORTED, "csr operator");
  TEST_CALL(pds_mat_destroy(&B));
  /* a value float cannot hold: an error naming it, x untouched */
  TEST_CALL(pds_mat_create_csr(ctx, 2, 2, rp, ci, v, PDS_MEM_HOST, PDS_COPY_VALUES, &H));
  TEST_CALL(pds_vec_create(ctx, 2, &b));
  TEST_CALL(pds_vec_set_values(b, one, PDS_MEM_HOST));
  TEST_CALL(pds_vec_destroy(&x));
  TEST_CALL(pds_vec_create(ctx, 2, &x));
  TEST_CALL(pds_vec_set(x, 3.0));
  TEST_CALL(pds_solver_set_operator(s, H));
  TEST_CALL(pds_solver_set_precision(s, PDS_PRECISION_SINGLE));
  TEST_ASSERT_ERR(ctx, pds_solver_solve(s, b, x), PDS_ERR_ARG, "outside the range of single precision");
  TEST_CALL(pds_vec_get_values(x, one, PDS_MEM_HOST));
  TEST_ASSERT(one[0] == 3.0 && one[1] == 3.0);
  TEST_CALL(pds_mat_destroy(&H));
  /* a right-hand side float cannot hold: an error naming it; a matrix value just above FLT_MAX rounds to it and is
     accepted (NaN never reaches a matrix: pds_mat_create_csr refuses it) */
  v[0] = 2.0;
  TEST_CALL(pds_mat_create_csr(ctx, 2, 2, rp, ci, v, PDS_MEM_HOST, PDS_COPY_VALUES, &H));
  TEST_CALL(pds_solver_set_operator(s, H));
  one[0] = 1e39, one[1] = 1.0;
  TEST_CALL(pds_vec_set_values(b, one, PDS_MEM_HOST));
  TEST_ASSERT_ERR(ctx, pds_solver_solve(s, b, x), PDS_ERR_ARG, "b has an entry of magnitude");
  TEST_CALL(pds_mat_destroy(&H));
  one[0] = 1.0;
  TEST_CALL(pds_vec_set_values(b, one, PDS_MEM_HOST));
  v[0] = 3.4028235e38;
  TEST_CALL(pds_mat_create_csr(ctx, 2, 2, rp, ci, v, PDS_MEM_HOST, PDS_COPY_VALUES, &H));
  TEST_CALL(pds_solver_set_operator(s, H));
  TEST_CALL(pds_vec_set(x, 0.0));
  TEST_CALL(pds_solver_solve(s, b, x));
  TEST_CALL(pds_mat_destroy(&H));
  TEST_CALL(pds_solver_destroy(&s));
  TEST_CALL(pds_vec_destroy(&x));
  TEST_CALL(pds_vec_destroy(&b));
}

/* mixed cg keeps CG's Krylov space across its reliable updates: on paper 004's P1 Poisson with symmetric boundary
   rows (about 3000 nodes, cond(A) eps_f about 1e-4) it takes double's iterations to within 10%, where the FGMRES
   scheme it replaced took 1.55x (155 against 100 to 1e-6) and plain refinement 1.2-1.35x (docs/dev.md), and reaches
   double's accuracy */
static void check_reliable(pds_ctx ctx) {
  pds_mesh  m;
  pds_fem2d fem;
  pds_mat   A;
  pds_vec   b;
  pds_size  n;

  TEST_CALL(pds_mesh_generate(ctx, "square", 3000, 1, &m));
  TEST_CALL(pds_fem2d_create(ctx, m, &fem));
  TEST_CALL(pds_fem2d_assemble(fem, PDS_DIRICHLET_SYMMETRIC, &A, &b));
  TEST_CALL(pds_vec_get_size(b, &n));
  for (int t = 0; t < 2; t++) {
    double  rtol = t ? 1e-10 : 1e-6;
    outcome d = solve(ctx, A, b, "cg", "none", PDS_PRECISION_DOUBLE, rtol, 2000);
    outcome mx = solve(ctx, A, b, "cg", "none", PDS_PRECISION_MIXED, rtol, 2000);
    pds_vec xd = host_vec(ctx, d.x, n), xm = host_vec(ctx, mx.x, n);

    if (!(d.r.reason > 0 && mx.r.reason > 0 && mx.r.iterations <= d.r.iterations + d.r.iterations / 10 + 2))
      TEST_FAIL("P1 cg to %g: double %d iterations (%s), mixed %d (%s)", rtol, d.r.iterations,
                pds_reason_name(d.r.reason), mx.r.iterations, pds_reason_name(mx.r.reason));
    if (!(test_true_relres(A, b, xm) <= rtol && rel_diff(xm, xd) < 1e3 * rtol))
      TEST_FAIL("P1 cg to %g mixed: true residual %g, difference to double %g", rtol, test_true_relres(A, b, xm),
                rel_diff(xm, xd));
    TEST_CALL(pds_vec_destroy(&xd));
    TEST_CALL(pds_vec_destroy(&xm));
    free(d.x), free(mx.x);
  }
  TEST_CALL(pds_mat_destroy(&A));
  TEST_CALL(pds_vec_destroy(&b));
  TEST_CALL(pds_fem2d_destroy(&fem));
  TEST_CALL(pds_mesh_destroy(&m));
}

int main(int argc, char **argv) {
  pds_ctx     ctx = test_init(argc, argv), ref = NULL;
  pds_problem p, pr;
  pds_int     dims[3] = {12, 12, 12};
  pds_mat     C, Cr;
  pds_vec     c, cr;

  if (strcmp(pds_ctx_get_backend(ctx), "/cpu/ref")) TEST_CALL(pds_ctx_create("/cpu/ref", &ref));
  TEST_CALL(pds_problem_generate(ctx, "poisson7", dims, 3, &p));
  if (ref) TEST_CALL(pds_problem_generate(ref, "poisson7", dims, 3, &pr));
  check_problem(ctx, ref, p.A, ref ? pr.A : NULL, p.b, ref ? pr.b : NULL, 1, "poisson7");
  C = test_convdiff(ctx, 40);
  TEST_CALL(pds_vec_create(ctx, 40 * 40, &c));
  TEST_CALL(pds_vec_set_random(c, 7));
  if (ref) {
    Cr = test_convdiff(ref, 40);
    TEST_CALL(pds_vec_create(ref, 40 * 40, &cr));
    TEST_CALL(pds_vec_set_random(cr, 7));
  }
  check_problem(ctx, ref, C, ref ? Cr : NULL, c, ref ? cr : NULL, 0, "convdiff");
  check_errors(ctx, &p);
  check_reliable(ctx);
  TEST_CALL(pds_mat_destroy(&C));
  TEST_CALL(pds_vec_destroy(&c));
  TEST_CALL(pds_problem_destroy(&p));
  if (ref) {
    TEST_CALL(pds_mat_destroy(&Cr));
    TEST_CALL(pds_vec_destroy(&cr));
    TEST_CALL(pds_problem_destroy(&pr));
    TEST_CALL(pds_ctx_destroy(&ref));
  }
  test_finalize(&ctx);
  return 0;
}
