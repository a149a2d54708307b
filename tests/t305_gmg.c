/* tests/t305_gmg.c: geometric multigrid on patch sets (issue 12, src/precond/gmg.c), on the backend of argv[1], with
 * the cell-centred Poisson problem of pds_problem_patches (manufactured u_exact):
 * - CG + gmg (the defaults: V-cycle, multicolor 4^3 blocks, 2 + 2 sweeps, constant prolongation, direct coarse solve
 *   of at most 1000 cells) to rtol 1e-8 takes at most GMG_CG_BOUND iterations on 16^3 and 32^3 cells with patches of
 *   8^3 and 16^3 and on 64^3 with 16^3 (not on /cpu/ref: time), and the count grows by at most one from grid to grid;
 * - the defaults are the documented ones (view before setup);
 * - V- and W-cycles with constant prolongation and a symmetric smoother are symmetric (x^T M^-1 y = y^T M^-1 x);
 * - the discretization error against u_exact falls at second order (max-norm ratios 4 +- 0.4; measured 3.96, 3.99,
 *   and 4.00 to 128^3);
 * - V, W and F cycles, constant and trilinear prolongation, direct and cg coarse solves, jacobi and multicolor
 *   smoothers, mixed patch sizes: CG converges; Richardson + gmg (multigrid as the solver) converges;
 * - get_levels and the coarsening rule (direct: while above max_direct; cg: as far as the patches halve; the level
 *   limit);
 * - the backend against a /cpu/ref context: /cpu/omp the same bits and iterations, /gpu/cuda iterations within 1
 *   and the solution to round-off; repeated solves (and a second setup) give the same bits;
 * - errors: a non-patches operator, an unknown cycle, prolongation or coarse solver, negative sweeps, a block
 *   outside 1..8, gmg setters on another preconditioner, a coarsest level over max_direct with the direct solver
 *   (the patches do not halve / the level limit), get_levels before setup; a failed setup leaves the
 *   preconditioner usable after the options are fixed. */
#include "test.h"

/* CG + gmg (defaults) to rtol 1e-8 took 4 iterations on every grid, 16^3 .. 256^3 cells (patches of 8^3 to 32^3,
   /cpu/omp; trilinear prolongation: 5); the bound leaves room for other backends' round-off */
#define GMG_CG_BOUND 5

struct opts {
  const char    *cycle, *prol, *coarse;
  pds_int        max_direct;
  int            levels;
  pds_relax_type type;
  int            bs, pre, post;
};
static const struct opts DEF = {"v", "constant", "direct", 1000, 0, PDS_RELAX_MULTICOLOR, 4, 2, 2};

static void problem(pds_ctx ctx, int n, int nsizes, const pds_int *sizes, pds_problem *p) {
  const pds_int dims[3] = {n, n, n};

  TEST_CALL(pds_problem_patches(ctx, dims, nsizes, sizes, p));
}

static pds_precond make_gmg(pds_ctx ctx, const struct opts *o) {
  pds_precond pc;

  TEST_CALL(pds_precond_create(ctx, "gmg", &pc));
  TEST_CALL(pds_precond_gmg_set_cycle(pc, o->cycle));
  TEST_CALL(pds_precond_gmg_set_prolongation(pc, o->prol));
  TEST_CALL(pds_precond_gmg_set_coarse(pc, o->coarse, o->max_direct));
  TEST_CALL(pds_precond_gmg_set_levels(pc, o->levels));
  TEST_CALL(pds_precond_gmg_set_smoother(pc, o->type, o->bs, o->bs, o->bs, 0.0, o->pre, o->post));
  return pc;
}

/* solver + gmg(o) on p from x = 0 to rtol; returns the result, x holds the solution */
static pds_solver_result solve(pds_ctx ctx, const pds_problem *p, const char *method, const struct opts *o,
                               double rtol, int maxit, pds_vec x) {
  pds_solver        s;
  pds_precond       pc = make_gmg(ctx, o);
  pds_solver_result r;

  TEST_CALL(pds_solver_create(ctx, method, &s));
  TEST_CALL(pds_solver_set_operator(s, p->A));
  TEST_CALL(pds_solver_set_precond(s, pc));
  TEST_CALL(pds_solver_set_tolerances(s, rtol, 0.0, maxit));
  TEST_CALL(pds_vec_set(x, 0.0));
  TEST_CALL(pds_solver_solve(s, p->b, x));
  TEST_CALL(pds_solver_get_result(s, &r));
  TEST_CALL(pds_solver_destroy(&s));
  TEST_CALL(pds_precond_destroy(&pc));
  return r;
}

/* max |x - u_exact| */
static double disc_error(const pds_problem *p, pds_vec x) {
  pds_size n;
  double  *a = test_vec_values(x), *u = test_vec_values(p->u_exact), e = 0;

  TEST_CALL(pds_vec_get_size(x, &n));
  for (pds_size i = 0; i < n; i++) e = fmax(e, fabs(a[i] - u[i]));
  free(a), free(u);
  return e;
}

/* bounded CG iterations as the grid is refined, second-order discretization error */
static void check_refinement(pds_ctx ctx, int big) {
  const pds_int sizes[2] = {8, 16};
  const int     ns[3]    = {16, 32, 64};
  double        err[3]   = {0};
  int           its[2][3] = {{0}};

  for (int g = 0; g < (big ? 3 : 2); g++)
    for (int ps = 0; ps < 2; ps++) {
      pds_problem       p;
      pds_vec           x;
      pds_solver_result r;

      if (g == 2 && (ps == 0 || !big)) continue; /* 64^3: 16^3 patches only (time) */
      problem(ctx, ns[g], 1, &sizes[ps], &p);
      TEST_CALL(pds_vec_duplicate(p.b, &x));
      r = solve(ctx, &p, "cg", &DEF, 1e-8, 100, x);
      if (r.reason <= 0 || r.iterations > GMG_CG_BOUND)
        TEST_FAIL("CG + gmg on %d^3 cells, patches %d^3: %s after %d iterations (bound %d)", ns[g], (int)sizes[ps],
                  pds_reason_name(r.reason), r.iterations, GMG_CG_BOUND);
      TEST_ASSERT(test_true_relres(p.A, p.b, x) <= 1e-8);
      its[ps][g] = r.iterations;
      if (g > 0 && its[ps][g] > its[ps][g - 1] + 1)
        TEST_FAIL("CG + gmg, patches %d^3: %d iterations on %d^3 after %d on %d^3", (int)sizes[ps], its[ps][g], ns[g],
                  its[ps][g - 1], ns[g - 1]);
      err[g] = disc_error(&p, x);
      TEST_CALL(pds_vec_destroy(&x));
      TEST_CALL(pds_problem_destroy(&p));
    }
  for (int g = 1; g < (big ? 3 : 2); g++) {
    const double ratio = err[g - 1] / err[g];

    if (!(ratio > 3.6 && ratio < 4.4))
      TEST_FAIL("discretization error %.3e on %d^3, %.3e on %d^3: ratio %.2f, not about 4 (second order)", err[g - 1],
                ns[g - 1], err[g], ns[g], ratio);
  }
}

/* every cycle, prolongation, coarse solver and smoother converges */
static void check_options(pds_ctx ctx) {
  static const char *const cycles[] = {"v", "w", "f"}, *const prols[] = {"constant", "trilinear"},
                           *const coarse[] = {"direct", "cg"};
  const pds_int            sizes[2]       = {8, 4}; /* mixed: 8, 4, 4 along each axis */
  pds_problem              p;
  pds_vec                  x;

  problem(ctx, 16, 2, sizes, &p);
  TEST_CALL(pds_vec_duplicate(p.b, &x));
  for (int c = 0; c < 3; c++) /* every pair of cycle, prolongation and coarse solver (6 of the 12 triples) */
    for (int pr = 0; pr < 2; pr++) {
      const int         co = (c + pr) % 2;
      struct opts       o  = DEF;
      pds_solver_result r;

      o.cycle = cycles[c], o.prol = prols[pr], o.coarse = coarse[co], o.max_direct = 100;
      r = solve(ctx, &p, "cg", &o, 1e-8, 60, x);
      if (r.reason <= 0 || r.iterations > 8)
        TEST_FAIL("CG + gmg (%s-cycle, %s, coarse %s): %s after %d iterations", o.cycle, o.prol, o.coarse,
                  pds_reason_name(r.reason), r.iterations);
      TEST_ASSERT(test_true_relres(p.A, p.b, x) <= 1e-8);
    }
  { /* block Jacobi smoother, 2^3 blocks, one sweep each side (constant prolongation: with trilinear and so weak a
       smoother CG stalls, the cycle not being symmetric); only pre- or only post-smoothing (no symmetry: FGMRES) */
    struct opts       o = DEF;
    pds_solver_result r;

    o.type = PDS_RELAX_JACOBI, o.bs = 2, o.pre = o.post = 1, o.max_direct = 100, o.prol = "constant";
    r      = solve(ctx, &p, "cg", &o, 1e-8, 60, x);
    if (r.reason <= 0 || r.iterations > 16)
      TEST_FAIL("CG + gmg (block jacobi 2^3): %s after %d iterations", pds_reason_name(r.reason), r.iterations);
    o = DEF, o.pre = 3, o.post = 0, o.max_direct = 100;
    r = solve(ctx, &p, "fgmres", &o, 1e-8, 60, x);
    if (r.reason <= 0 || r.iterations > 7)
      TEST_FAIL("FGMRES + gmg (3 pre sweeps): %s after %d iterations", pds_reason_name(r.reason), r.iterations);
    o.pre = 0, o.post = 3;
    r     = solve(ctx, &p, "fgmres", &o, 1e-8, 60, x);
    if (r.reason <= 0 || r.iterations > 7)
      TEST_FAIL("FGMRES + gmg (3 post sweeps): %s after %d iterations", pds_reason_name(r.reason), r.iterations);
    o = DEF, o.type = PDS_RELAX_CHAOTIC, o.max_direct = 100; /* not reproducible on parallel backends: FGMRES */
    r = solve(ctx, &p, "fgmres", &o, 1e-8, 60, x);
    if (r.reason <= 0 || r.iterations > 12) /* /cpu/ref 6 (block Gauss-Seidel in order), /gpu/cuda 9 */
      TEST_FAIL("FGMRES + gmg (chaotic smoother): %s after %d iterations", pds_reason_name(r.reason), r.iterations);
    TEST_ASSERT(test_true_relres(p.A, p.b, x) <= 1e-8);
  }
  { /* multigrid as the solver: Richardson + gmg, V and W */
    struct opts       o = DEF;
    pds_solver_result r;

    o.max_direct = 100;
    r            = solve(ctx, &p, "richardson", &o, 1e-8, 40, x);
    if (r.reason <= 0 || r.iterations > 7)
      TEST_FAIL("Richardson + gmg (V): %s after %d iterations", pds_reason_name(r.reason), r.iterations);
    TEST_ASSERT(test_true_relres(p.A, p.b, x) <= 1e-8);
    o.cycle = "w", o.prol = "trilinear";
    r       = solve(ctx, &p, "richardson", &o, 1e-8, 40, x);
    if (r.reason <= 0 || r.iterations > 7)
      TEST_FAIL("Richardson + gmg (W, trilinear): %s after %d iterations", pds_reason_name(r.reason), r.iterations);
  }
  TEST_CALL(pds_vec_destroy(&x));
  TEST_CALL(pds_problem_destroy(&p));
}

/* with constant prolongation (restriction = P^T / 2) and a symmetric smoother (symmetric multicolor, jacobi) with as
   many post as pre sweeps, V- and W-cycles are symmetric: x^T M^-1 y = y^T M^-1 x to round-off */
static void check_symmetry(pds_ctx ctx) {
  const pds_int sizes[1] = {8};
  pds_problem   p;
  pds_vec       x, y, mx, my;

  problem(ctx, 16, 1, sizes, &p);
  TEST_CALL(pds_vec_duplicate(p.b, &x));
  TEST_CALL(pds_vec_duplicate(p.b, &y));
  TEST_CALL(pds_vec_duplicate(p.b, &mx));
  TEST_CALL(pds_vec_duplicate(p.b, &my));
  TEST_CALL(pds_vec_set_random(x, 1));
  TEST_CALL(pds_vec_set_random(y, 2));
  for (int k = 0; k < 3; k++) {
    struct opts o = DEF;
    pds_precond pc;
    double      d1, d2;

    o.prol = "constant", o.max_direct = 100;
    if (k == 1) o.type = PDS_RELAX_JACOBI, o.bs = 2, o.pre = o.post = 1;
    if (k == 2) o.cycle = "w", o.coarse = "cg";
    pc = make_gmg(ctx, &o);
    TEST_CALL(pds_precond_set_operator(pc, p.A));
    TEST_CALL(pds_precond_setup(pc));
    TEST_CALL(pds_precond_apply(pc, x, mx));
    TEST_CALL(pds_precond_apply(pc, y, my));
    TEST_CALL(pds_vec_dot(x, my, &d1));
    TEST_CALL(pds_vec_dot(y, mx, &d2));
    if (!(fabs(d1 - d2) <= (k == 2 ? 1e-8 : 1e-12) * fabs(d1)))
      TEST_FAIL("case %d: x^T M^-1 y = %.17g, y^T M^-1 x = %.17g", k, d1, d2);
    TEST_CALL(pds_precond_destroy(&pc));
  }
  TEST_CALL(pds_vec_destroy(&x));
  TEST_CALL(pds_vec_destroy(&y));
  TEST_CALL(pds_vec_destroy(&mx));
  TEST_CALL(pds_vec_destroy(&my));
  TEST_CALL(pds_problem_destroy(&p));
}

/* levels the coarsening makes: 32^3 cells in 8^3 patches halve to 16^3 (4^3 patches), 8^3 (2^3), 4^3 (1^3) */
static void check_levels(pds_ctx ctx) {
  const pds_int sizes[1] = {8};
  pds_problem   p;
  pds_precond   pc;
  int           nl = 0;
  pds_size      nc = 0;
  struct opts   o  = DEF;

  problem(ctx, 32, 1, sizes, &p);
  pc = make_gmg(ctx, &o);
  TEST_CALL(pds_precond_set_operator(pc, p.A));
  TEST_ASSERT_ERR(ctx, pds_precond_gmg_get_levels(pc, &nl, &nc), PDS_ERR_STATE, "not set up");
  TEST_CALL(pds_precond_setup(pc));
  TEST_CALL(pds_precond_gmg_get_levels(pc, &nl, &nc));
  TEST_ASSERT(nl == 3 && nc == 512); /* direct, max_direct 1000: stops at 512 */
  TEST_CALL(pds_precond_gmg_set_coarse(pc, "direct", 64));
  TEST_CALL(pds_precond_setup(pc));
  TEST_CALL(pds_precond_gmg_get_levels(pc, &nl, &nc));
  TEST_ASSERT(nl == 4 && nc == 64);
  TEST_CALL(pds_precond_gmg_set_coarse(pc, "cg", 1000)); /* cg: as far as the patches halve */
  TEST_CALL(pds_precond_setup(pc));
  TEST_CALL(pds_precond_gmg_get_levels(pc, &nl, &nc));
  TEST_ASSERT(nl == 4 && nc == 64);
  TEST_CALL(pds_precond_gmg_set_levels(pc, 2));
  TEST_CALL(pds_precond_setup(pc));
  TEST_CALL(pds_precond_gmg_get_levels(pc, &nl, &nc));
  TEST_ASSERT(nl == 2 && nc == 4096);
  TEST_CALL(pds_precond_destroy(&pc));
  TEST_CALL(pds_problem_destroy(&p));
}

/* the same bits on repeated solves and after a second setup; the backend against /cpu/ref */
static void check_backend(pds_ctx ctx, const char *backend) {
  const pds_int sizes[2] = {8, 4};
  pds_problem   p;
  pds_vec       x1, x2;
  pds_size      n;
  struct opts   o = DEF;
  double       *a, *b;

  problem(ctx, 16, 2, sizes, &p); /* patches of 8, 4 and 4 cells per axis */
  o.max_direct = 100;             /* three levels */
  TEST_CALL(pds_vec_get_size(p.b, &n));
  TEST_CALL(pds_vec_duplicate(p.b, &x1));
  TEST_CALL(pds_vec_duplicate(p.b, &x2));
  for (int k = 0; k < 2; k++) { /* the default, then W-cycle constant with a cg coarse solve */
    pds_solver_result r1, r2;
    pds_solver        s;
    pds_precond       pc;

    if (k == 1) o.cycle = "w", o.prol = "constant", o.coarse = "cg";
    r1 = solve(ctx, &p, "cg", &o, 1e-8, 100, x1);
    /* one solver solving twice (setup once) */
    pc = make_gmg(ctx, &o);
    TEST_CALL(pds_solver_create(ctx, "cg", &s));
    TEST_CALL(pds_solver_set_operator(s, p.A));
    TEST_CALL(pds_solver_set_precond(s, pc));
    for (int t = 0; t < 2; t++) {
      TEST_CALL(pds_vec_set(x2, 0.0));
      TEST_CALL(pds_solver_solve(s, p.b, x2));
      TEST_CALL(pds_solver_get_result(s, &r2));
      TEST_ASSERT(r2.iterations == r1.iterations && r2.rnorm == r1.rnorm);
      a = test_vec_values(x1), b = test_vec_values(x2);
      TEST_ASSERT(!memcmp(a, b, sizeof *a * (size_t)n));
      free(a), free(b);
    }
    TEST_CALL(pds_solver_destroy(&s));
    TEST_CALL(pds_precond_destroy(&pc));
    if (strcmp(backend, "/cpu/ref")) { /* the same options on /cpu/ref */
      pds_ctx           ref;
      pds_problem       q;
      pds_vec           y;
      pds_solver_result rr;
      double            d = 0, m = 0;

      TEST_CALL(pds_ctx_create("/cpu/ref", &ref));
      TEST_CALL(pds_problem_patches(ref, (const pds_int[3]){16, 16, 16}, 2, sizes, &q));
      TEST_CALL(pds_vec_duplicate(q.b, &y));
      rr = solve(ref, &q, "cg", &o, 1e-8, 100, y);
      a = test_vec_values(x1), b = test_vec_values(y);
      if (!strcmp(backend, "/cpu/omp")) {
        TEST_ASSERT(r1.iterations == rr.iterations && r1.rnorm == rr.rnorm);
        TEST_ASSERT(!memcmp(a, b, sizeof *a * (size_t)n));
      } else {
        TEST_ASSERT(abs(r1.iterations - rr.iterations) <= 1);
        for (pds_size i = 0; i < n; i++) d = fmax(d, fabs(a[i] - b[i])), m = fmax(m, fabs(b[i]));
        if (!(d <= 1e-7 * m)) TEST_FAIL("%s and /cpu/ref differ by %.3g (max |x| %.3g)", backend, d, m);
      }
      free(a), free(b);
      TEST_CALL(pds_vec_destroy(&y));
      TEST_CALL(pds_problem_destroy(&q));
      TEST_CALL(pds_ctx_destroy(&ref));
    }
  }
  TEST_CALL(pds_vec_destroy(&x1));
  TEST_CALL(pds_vec_destroy(&x2));
  TEST_CALL(pds_problem_destroy(&p));
}

/* pds_precond_view's text */
static void view_text(pds_precond pc, char *buf, size_t len) {
  FILE *f = tmpfile();

  TEST_ASSERT(f);
  TEST_CALL(pds_precond_view(pc, f));
  rewind(f);
  buf[fread(buf, 1, len - 1, f)] = 0;
  fclose(f);
}

/* every allocation of create, setup and apply failing in turn: PDS_ERR_MEM, nothing else (ASan builds: no leak) */
static void check_alloc_failures(pds_ctx ctx) {
  const pds_int sizes[1] = {4};
  pds_problem   p;
  pds_vec       y;

  problem(ctx, 8, 1, sizes, &p); /* 8^3, 4^3, 2^3 cells; 1^3 with cg */
  TEST_CALL(pds_vec_duplicate(p.b, &y));
  for (int co = 0; co < 2; co++) {
    int ierr = PDS_OK, k;

    for (k = 0; k < 100000; k++) {
      pds_precond pc = NULL;

      pds_ctx_set_alloc_fail(ctx, k);
      ierr = pds_precond_create(ctx, "gmg", &pc);
      if (!ierr) ierr = pds_precond_gmg_set_coarse(pc, co ? "cg" : "direct", 10);
      if (!ierr) ierr = pds_precond_set_operator(pc, p.A);
      if (!ierr) ierr = pds_precond_setup(pc);
      if (!ierr) ierr = pds_precond_apply(pc, p.b, y);
      pds_ctx_set_alloc_fail(ctx, -1);
      TEST_CALL(pds_precond_destroy(&pc));
      if (ierr != PDS_ERR_MEM) break;
      pds_ctx_clear_error(ctx);
    }
    if (ierr) TEST_FAIL("gmg (coarse %s): allocation %d gave %s", co ? "cg" : "direct", k, pds_error_name(ierr));
    TEST_ASSERT(k > 20);
  }
  TEST_CALL(pds_vec_destroy(&y));
  TEST_CALL(pds_problem_destroy(&p));
}

static void check_errors(pds_ctx ctx) {
  const pds_int dims[3] = {8, 8, 8}, nine[1] = {9}, eight[1] = {8};
  pds_problem   p, q;
  pds_precond   pc, jac;
  pds_solver    s;
  pds_vec       x;

  TEST_CALL(pds_precond_create(ctx, "gmg", &pc));
  /* setters: bad names and numbers change nothing */
  TEST_ASSERT_ERR(ctx, pds_precond_gmg_set_cycle(pc, "x"), PDS_ERR_ARG, "v, w or f");
  TEST_ASSERT_ERR(ctx, pds_precond_gmg_set_cycle(pc, NULL), PDS_ERR_ARG, "v, w or f");
  TEST_ASSERT_ERR(ctx, pds_precond_gmg_set_prolongation(pc, "cubic"), PDS_ERR_ARG, "constant or trilinear");
  TEST_ASSERT_ERR(ctx, pds_precond_gmg_set_coarse(pc, "lu", 100), PDS_ERR_ARG, "direct or cg");
  TEST_ASSERT_ERR(ctx, pds_precond_gmg_set_coarse(pc, "direct", 0), PDS_ERR_ARG, "max_direct");
  TEST_ASSERT_ERR(ctx, pds_precond_gmg_set_levels(pc, -1), PDS_ERR_ARG, "levels");
  TEST_ASSERT_ERR(ctx, pds_precond_gmg_set_smoother(pc, PDS_RELAX_MULTICOLOR, 4, 4, 4, 0.0, -1, 2), PDS_ERR_ARG,
                  "sweeps");
  TEST_ASSERT_ERR(ctx, pds_precond_gmg_set_smoother(pc, PDS_RELAX_MULTICOLOR, 4, 4, 4, 0.0, 2, -3), PDS_ERR_ARG,
                  "sweeps");
  TEST_ASSERT_ERR(ctx, pds_precond_gmg_set_smoother(pc, PDS_RELAX_MULTICOLOR, 4, 4, 4, 0.0, 0, 0), PDS_ERR_ARG,
                  "sweep");
  TEST_ASSERT_ERR(ctx, pds_precond_gmg_set_smoother(pc, PDS_RELAX_MULTICOLOR, 9, 4, 4, 0.0, 2, 2), PDS_ERR_ARG,
                  "1 to 8");
  TEST_ASSERT_ERR(ctx, pds_precond_gmg_set_smoother(pc, (pds_relax_type)7, 4, 4, 4, 0.0, 2, 2), PDS_ERR_ARG,
                  "relax type");
  TEST_ASSERT_ERR(ctx, pds_precond_gmg_set_smoother(pc, PDS_RELAX_JACOBI, 4, 4, 4, NAN, 2, 2), PDS_ERR_ARG, "omega");
  TEST_ASSERT_ERR(ctx, pds_precond_gmg_set_smoother(pc, PDS_RELAX_JACOBI, 4, 4, 4, 2.0, 2, 2), PDS_ERR_ARG, "omega");
  { /* the defaults, which the bad calls left alone */
    char buf[4096];

    view_text(pc, buf, sizeof buf);
    if (!strstr(buf, "V-cycle, prolongation piecewise constant") ||
        !strstr(buf, "relax multicolor, blocks 4 x 4 x 4") ||
        !strstr(buf, "omega the type's default, 2 pre and 2 post sweeps") || !strstr(buf, "as many as possible") ||
        !strstr(buf, "coarse solver direct, max_direct 1000"))
      TEST_FAIL("gmg defaults: %s", buf);
  }
  TEST_CALL(pds_precond_create(ctx, "jacobi", &jac));
  TEST_ASSERT_ERR(ctx, pds_precond_gmg_set_cycle(jac, "v"), PDS_ERR_ARG, "not gmg");
  TEST_CALL(pds_precond_destroy(&jac));
  /* a csr operator */
  TEST_CALL(pds_problem_generate(ctx, "poisson7", dims, 3, &p));
  TEST_CALL(pds_precond_set_operator(pc, p.A));
  TEST_ASSERT_ERR(ctx, pds_precond_setup(pc), PDS_ERR_ARG, "patches");
  TEST_CALL(pds_problem_destroy(&p));
  /* 18^3 cells in 9^3 patches do not halve: 5832 cells over max_direct; the cg coarse solver takes them */
  problem(ctx, 18, 1, nine, &q);
  TEST_CALL(pds_precond_set_operator(pc, q.A));
  TEST_ASSERT_ERR(ctx, pds_precond_setup(pc), PDS_ERR_ARG, "max_direct");
  TEST_CALL(pds_precond_gmg_set_coarse(pc, "cg", 1000));
  TEST_CALL(pds_vec_duplicate(q.b, &x));
  TEST_CALL(pds_solver_create(ctx, "cg", &s));
  TEST_CALL(pds_solver_set_operator(s, q.A));
  TEST_CALL(pds_solver_set_precond(s, pc));
  TEST_CALL(pds_vec_set(x, 0.0));
  TEST_CALL(pds_solver_solve(s, q.b, x));
  {
    pds_solver_result r;

    TEST_CALL(pds_solver_get_result(s, &r));
    TEST_ASSERT(r.reason > 0 && r.iterations <= 3); /* one level: M^-1 is the coarse CG's solve */
  }
  TEST_CALL(pds_solver_destroy(&s));
  TEST_CALL(pds_vec_destroy(&x));
  TEST_CALL(pds_problem_destroy(&q));
  /* the level limit: 16^3 cells, two levels leave 512 cells over max_direct 100 */
  problem(ctx, 16, 1, eight, &q);
  TEST_CALL(pds_precond_set_operator(pc, q.A));
  TEST_CALL(pds_precond_gmg_set_coarse(pc, "direct", 100));
  TEST_CALL(pds_precond_gmg_set_levels(pc, 2));
  TEST_ASSERT_ERR(ctx, pds_precond_setup(pc), PDS_ERR_ARG, "more levels");
  TEST_ASSERT_ERR(ctx, pds_precond_gmg_get_levels(pc, NULL, NULL), PDS_ERR_STATE, "not set up");
  TEST_CALL(pds_precond_gmg_set_levels(pc, 0));
  TEST_CALL(pds_precond_setup(pc));
  { /* view: the levels and the coarse solver */
    char buf[4096];

    view_text(pc, buf, sizeof buf);
    TEST_ASSERT(strstr(buf, "level 0: 4096 cells in 8 patches") && strstr(buf, "level 2: 64 cells") &&
                strstr(buf, "direct") && strstr(buf, "V-cycle"));
  }
  TEST_CALL(pds_problem_destroy(&q));
  TEST_CALL(pds_precond_destroy(&pc));
}

int main(int argc, char **argv) {
  pds_ctx     ctx     = test_init(argc, argv);
  const char *backend = pds_ctx_get_backend(ctx);

  check_errors(ctx);
  check_alloc_failures(ctx);
  check_levels(ctx);
  check_symmetry(ctx);
  check_options(ctx);
  check_backend(ctx, backend);
  check_refinement(ctx, strcmp(backend, "/cpu/ref") != 0);
  test_finalize(&ctx);
  return 0;
}
