/* tests/t401_solver.c: every Krylov method on poisson7 and a nonsymmetric matrix: convergence, agreement with a
 * tight reference solution, true residual, results (maxit, breakdown, indefinite, b = 0), history, the
 * infinity-norm criterion, determinism, and bad input. */
#include "test.h"

/* solve A x = b from x = 0 with solver/pc; returns the result */
static pds_solver_result run(pds_ctx ctx, pds_mat A, pds_vec b, pds_vec x, const char *solver, const char *pc,
                             double rtol, int maxit) {
  pds_solver        s;
  pds_precond       P;
  pds_solver_result r;

  TEST_CALL(pds_solver_create(ctx, solver, &s));
  TEST_CALL(pds_precond_create(ctx, pc, &P));
  TEST_CALL(pds_solver_set_operator(s, A));
  TEST_CALL(pds_solver_set_precond(s, P));
  TEST_CALL(pds_precond_destroy(&P)); /* the solver keeps its reference */
  TEST_CALL(pds_solver_set_tolerances(s, rtol, 0.0, maxit));
  TEST_CALL(pds_vec_set(x, 0.0));
  TEST_CALL(pds_solver_solve(s, b, x));
  TEST_CALL(pds_solver_get_result(s, &r));
  TEST_CALL(pds_solver_destroy(&s));
  return r;
}

/* solve with solver/pc from x = 0, keeping x (host copy in xs) and the residual history (copied into h, at most
   hmax entries); returns the result */
static pds_solver_result run_hist(pds_ctx ctx, pds_mat A, pds_vec b, pds_vec x, const char *solver, const char *pc,
                                  double *xs, double *h, int hmax) {
  pds_solver        s;
  pds_precond       P;
  pds_solver_result r;
  const pds_real   *hh;
  int               len;

  TEST_CALL(pds_solver_create(ctx, solver, &s));
  TEST_CALL(pds_precond_create(ctx, pc, &P));
  TEST_CALL(pds_solver_set_operator(s, A));
  TEST_CALL(pds_solver_set_precond(s, P));
  TEST_CALL(pds_precond_destroy(&P));
  TEST_CALL(pds_solver_set_history(s, 1));
  TEST_CALL(pds_solver_set_tolerances(s, 1e-10, 0.0, 2000));
  TEST_CALL(pds_vec_set(x, 0.0));
  TEST_CALL(pds_solver_solve(s, b, x));
  TEST_CALL(pds_solver_get_result(s, &r));
  TEST_CALL(pds_solver_get_history(s, &len, &hh));
  TEST_ASSERT(len == r.iterations + 1 && len <= hmax);
  memcpy(h, hh, sizeof *h * (size_t)len);
  TEST_CALL(pds_vec_get_values(x, xs, PDS_MEM_HOST));
  TEST_CALL(pds_solver_destroy(&s));
  return r;
}

/* CG on negative definite matrices (the sign many CFD codes assemble a pressure Laplacian in): on -A, -b it takes
   the iterates of A, b bit for bit (negation is exact: with M = I, r, p and alpha change sign and x does not; with
   Jacobi, r changes sign and z does not), so the same iteration count, history and x. Then sherman1 (symmetric
   negative definite, real data) converges with none and jacobi, like PETSc's KSPCG on it. */
static void cg_negative_definite(pds_ctx ctx, pds_problem *p) {
  const pds_size *rp;
  const pds_int  *ci;
  const pds_real *va;
  pds_size       *rq;
  pds_int        *cj, n, nc;
  pds_real       *vn, *bn;
  pds_mat         N;
  pds_vec         nb, x;
  double         *x1, *x2, h1[2001], h2[2001];
  const char     *pcs[] = {"none", "jacobi"};
  char            path[1024], rhs[1024];

  TEST_CALL(pds_mat_get_size(p->A, &n, &nc));
  TEST_CALL(pds_mat_csr_get_arrays(p->A, &rp, &ci, &va));
  x1 = malloc(sizeof(double) * (size_t)n), x2 = malloc(sizeof(double) * (size_t)n);
  rq = malloc(sizeof *rq * ((size_t)n + 1)), cj = malloc(sizeof *cj * (size_t)rp[n]);
  vn = malloc(sizeof *vn * (size_t)rp[n]), bn = malloc(sizeof *bn * (size_t)n);
  TEST_ASSERT(rq && cj && vn && bn && x1 && x2);
  memcpy(rq, rp, sizeof *rq * ((size_t)n + 1));
  memcpy(cj, ci, sizeof *cj * (size_t)rp[n]);
  for (pds_size k = 0; k < rp[n]; k++) vn[k] = -va[k];
  TEST_CALL(pds_mat_create_csr(ctx, n, n, rq, cj, vn, PDS_MEM_HOST, PDS_COPY_VALUES, &N));
  TEST_CALL(pds_vec_duplicate(p->b, &nb));
  TEST_CALL(pds_vec_duplicate(p->b, &x));
  TEST_CALL(pds_vec_get_values(p->b, bn, PDS_MEM_HOST));
  for (pds_int i = 0; i < n; i++) bn[i] = -bn[i];
  TEST_CALL(pds_vec_set_values(nb, bn, PDS_MEM_HOST));
  for (int pi = 0; pi < 2; pi++) {
    pds_solver_result r1 = run_hist(ctx, p->A, p->b, x, "cg", pcs[pi], x1, h1, 2001);
    pds_solver_result r2 = run_hist(ctx, N, nb, x, "cg", pcs[pi], x2, h2, 2001);

    if (r2.reason != PDS_CONVERGED_RTOL) TEST_FAIL("cg + %s on -A: %s", pcs[pi], pds_reason_name(r2.reason));
    TEST_ASSERT(r1.reason == PDS_CONVERGED_RTOL && r1.iterations == r2.iterations);
    TEST_ASSERT(memcmp(h1, h2, sizeof *h1 * (size_t)(r1.iterations + 1)) == 0);
    TEST_ASSERT(memcmp(x1, x2, sizeof *x1 * (size_t)n) == 0);
  }
  TEST_CALL(pds_vec_destroy(&nb));
  TEST_CALL(pds_vec_destroy(&x));
  TEST_CALL(pds_mat_destroy(&N));
  free(rq), free(cj), free(vn), free(bn), free(x1), free(x2);
  /* sherman1 with its right-hand side */
  if (test_shared_path("matrices/sherman1.mtx", path, sizeof path) &&
      test_shared_path("matrices/sherman1_rhs1.mtx", rhs, sizeof rhs)) {
    pds_mat  S;
    pds_vec  b;
    double   xs[1000], hs[2001];

    TEST_CALL(pds_mm_read_mat(ctx, path, &S));
    TEST_CALL(pds_mm_read_vec(ctx, rhs, &b));
    TEST_CALL(pds_mat_get_size(S, &n, &nc));
    TEST_ASSERT(n == 1000 && nc == 1000);
    TEST_CALL(pds_vec_duplicate(b, &x));
    for (int pi = 0; pi < 2; pi++) {
      pds_solver_result r = run_hist(ctx, S, b, x, "cg", pcs[pi], xs, hs, 2001);

      if (r.reason != PDS_CONVERGED_RTOL) TEST_FAIL("cg + %s on sherman1: %s after %d iterations", pcs[pi],
                                                    pds_reason_name(r.reason), r.iterations);
      TEST_ASSERT(test_true_relres(S, b, x) < 1e-9);
    }
    TEST_CALL(pds_vec_destroy(&b));
    TEST_CALL(pds_vec_destroy(&x));
    TEST_CALL(pds_mat_destroy(&S));
  }
}

int main(int argc, char **argv) {
  pds_ctx           ctx = test_init(argc, argv);
  pds_problem       p;
  pds_int           dims[3] = {10, 10, 10};
  pds_vec           x, xref, d;
  pds_solver_result r;
  const char       *solvers[] = {"cg", "bicgstab", "gmres", "fgmres", "richardson"};
  const char       *pcs[]     = {"none", "jacobi", "pbjacobi"};
  pds_real          err, nref;

  TEST_CALL(pds_problem_generate(ctx, "poisson7", dims, 3, &p));
  TEST_CALL(pds_vec_duplicate(p.b, &x));
  TEST_CALL(pds_vec_duplicate(p.b, &xref));
  TEST_CALL(pds_vec_duplicate(p.b, &d));
  r = run(ctx, p.A, p.b, xref, "cg", "none", 1e-13, 1000);
  TEST_ASSERT(r.reason == PDS_CONVERGED_RTOL);
  TEST_ASSERT(test_true_relres(p.A, p.b, xref) < 1e-12);
  TEST_CALL(pds_vec_norm2(xref, &nref));
  for (int si = 0; si < 5; si++)
    for (int pi = 0; pi < 3; pi++) {
      int maxit = !strcmp(solvers[si], "richardson") ? 20000 : 500;

      if (!strcmp(solvers[si], "richardson") && !strcmp(pcs[pi], "none")) continue; /* ||A|| >> 1: diverges */
      r = run(ctx, p.A, p.b, x, solvers[si], pcs[pi], 1e-10, maxit);
      if (r.reason <= 0) TEST_FAIL("%s + %s: reason %s after %d", solvers[si], pcs[pi], pds_reason_name(r.reason), r.iterations);
      TEST_ASSERT(r.rnorm <= 1e-10 * r.bnorm);
      TEST_ASSERT(test_true_relres(p.A, p.b, x) < 1e-9);
      TEST_CALL(pds_vec_waxpy(d, -1.0, x, xref));
      TEST_CALL(pds_vec_norm2(d, &err));
      if (!(err / nref < 1e-8)) TEST_FAIL("%s + %s: error %g vs reference", solvers[si], pcs[pi], err / nref);
      /* iteration counts in the bands this problem gives (cond ~ 50: CG about 40-60 iterations) */
      if (!strcmp(solvers[si], "cg")) TEST_ASSERT(r.iterations >= 20 && r.iterations <= 80);
    }
  cg_negative_definite(ctx, &p);
  /* GMRES and FGMRES with one Gram-Schmidt pass (PETSc's default): the same solution; bad names are errors */
  for (int f = 0; f < 2; f++) {
    pds_solver s;

    TEST_CALL(pds_solver_create(ctx, f ? "fgmres" : "gmres", &s));
    TEST_CALL(pds_solver_set_operator(s, p.A));
    TEST_CALL(pds_solver_set_orthogonalization(s, "cgs"));
    TEST_ASSERT_ERR(ctx, pds_solver_set_orthogonalization(s, "mgs"), PDS_ERR_ARG, "cgs2");
    TEST_ASSERT_ERR(ctx, pds_solver_set_orthogonalization(s, NULL), PDS_ERR_ARG, "cgs");
    TEST_CALL(pds_solver_set_tolerances(s, 1e-10, 0.0, 500));
    TEST_CALL(pds_vec_set(x, 0.0));
    TEST_CALL(pds_solver_solve(s, p.b, x));
    TEST_CALL(pds_solver_get_result(s, &r));
    TEST_ASSERT(r.reason == PDS_CONVERGED_RTOL && test_true_relres(p.A, p.b, x) < 1e-9);
    TEST_CALL(pds_vec_waxpy(d, -1.0, x, xref));
    TEST_CALL(pds_vec_norm2(d, &err));
    TEST_ASSERT(err / nref < 1e-8);
    TEST_CALL(pds_solver_destroy(&s));
  }
  /* not converging is a result: maxit reached, PDS_OK returned */
  r = run(ctx, p.A, p.b, x, "cg", "jacobi", 1e-10, 3);
  TEST_ASSERT(r.reason == PDS_DIVERGED_MAXIT && r.iterations == 3);
  r = run(ctx, p.A, p.b, x, "gmres", "none", 1e-10, 5);
  TEST_ASSERT(r.reason == PDS_DIVERGED_MAXIT && r.iterations == 5);
  /* history, monitor-consistent, and restart; determinism of repeated solves */
  {
    pds_solver      s;
    int             len;
    const pds_real *h;
    double          x1[1000], x2[1000];

    TEST_CALL(pds_solver_create(ctx, "gmres", &s));
    TEST_CALL(pds_solver_set_operator(s, p.A));
    TEST_CALL(pds_solver_set_restart(s, 7));
    TEST_CALL(pds_solver_set_history(s, 1));
    TEST_CALL(pds_solver_set_tolerances(s, 1e-9, 0, 1000));
    TEST_CALL(pds_vec_set(x, 0.0));
    TEST_CALL(pds_solver_solve(s, p.b, x));
    TEST_CALL(pds_solver_get_result(s, &r));
    TEST_ASSERT(r.reason > 0);
    TEST_CALL(pds_solver_get_history(s, &len, &h));
    TEST_ASSERT(len == r.iterations + 1);
    TEST_ASSERT(h[0] == r.rnorm0 && h[len - 1] == r.rnorm);
    for (int i = 1; i < len; i++) TEST_ASSERT(h[i] <= h[i - 1] * (1 + 1e-12)); /* GMRES residuals never grow */
    TEST_CALL(pds_vec_get_values(x, x1, PDS_MEM_HOST));
    TEST_CALL(pds_vec_set(x, 0.0));
    TEST_CALL(pds_solver_solve(s, p.b, x));
    TEST_CALL(pds_vec_get_values(x, x2, PDS_MEM_HOST));
    TEST_ASSERT(memcmp(x1, x2, sizeof x1) == 0);
    TEST_CALL(pds_solver_destroy(&s));
  }
  /* the infinity-norm criterion (paper 004): stop when ||b - A x||_inf <= inftol */
  for (int si = 0; si < 4; si++) {
    pds_solver s;
    pds_vec    res;
    pds_real   rinf;

    TEST_CALL(pds_solver_create(ctx, solvers[si], &s));
    TEST_CALL(pds_solver_set_operator(s, p.A));
    TEST_CALL(pds_solver_set_tolerances(s, 1e-15, 0, 1000));
    TEST_CALL(pds_solver_set_inf_tolerance(s, 1e-3));
    TEST_CALL(pds_vec_set(x, 0.0));
    TEST_CALL(pds_solver_solve(s, p.b, x));
    TEST_CALL(pds_solver_get_result(s, &r));
    if (r.reason != PDS_CONVERGED_INF) TEST_FAIL("%s: reason %s", solvers[si], pds_reason_name(r.reason));
    TEST_CALL(pds_vec_duplicate(x, &res));
    TEST_CALL(pds_mat_residual(p.A, p.b, x, res));
    TEST_CALL(pds_vec_norm_inf(res, &rinf));
    TEST_ASSERT(rinf <= 1e-3 && rinf == r.rnorm_inf);
    TEST_CALL(pds_vec_destroy(&res));
    TEST_CALL(pds_solver_destroy(&s));
  }
  /* nonsymmetric: bicgstab, gmres, fgmres converge; cg is not for it but must end cleanly */
  {
    pds_mat A = test_convdiff(ctx, 30);
    pds_vec b, y, ones;

    TEST_CALL(pds_vec_create(ctx, 900, &b));
    TEST_CALL(pds_vec_duplicate(b, &y));
    TEST_CALL(pds_vec_duplicate(b, &ones));
    TEST_CALL(pds_vec_set(ones, 1.0));
    TEST_CALL(pds_mat_apply(A, ones, b)); /* b = A 1 */
    for (int si = 1; si < 4; si++) {
      r = run(ctx, A, b, y, solvers[si], "jacobi", 1e-10, 2000);
      TEST_ASSERT(r.reason > 0);
      TEST_CALL(pds_vec_axpy(y, -1.0, ones));
      TEST_CALL(pds_vec_norm_inf(y, &err));
      TEST_ASSERT(err < 1e-7);
    }
    r = run(ctx, A, b, y, "cg", "none", 1e-10, 50);
    TEST_ASSERT(r.reason != PDS_ITERATING);
    TEST_CALL(pds_vec_destroy(&b));
    TEST_CALL(pds_vec_destroy(&y));
    TEST_CALL(pds_vec_destroy(&ones));
    TEST_CALL(pds_mat_destroy(&A));
  }
  /* breakdowns: BiCGSTAB with (rhat, A p) = 0; CG on an indefinite matrix */
  {
    pds_int rI[2] = {0, 1}, cI[2] = {1, 0}, rD[2] = {0, 1}, cD[2] = {0, 1};
    double  vI[2] = {1, 1}, vD[2] = {1, -1}, b2[2] = {1, 0}, b3[2] = {1, 1};
    pds_mat A;
    pds_vec b, y;

    TEST_CALL(pds_vec_create(ctx, 2, &b));
    TEST_CALL(pds_vec_duplicate(b, &y));
    TEST_CALL(pds_mat_create_csr_from_triplets(ctx, 2, 2, 2, rI, cI, vI, &A));
    TEST_CALL(pds_vec_set_values(b, b2, PDS_MEM_HOST));
    r = run(ctx, A, b, y, "bicgstab", "none", 1e-10, 100);
    TEST_ASSERT(r.reason == PDS_DIVERGED_BREAKDOWN);
    TEST_CALL(pds_mat_destroy(&A));
    TEST_CALL(pds_mat_create_csr_from_triplets(ctx, 2, 2, 2, rD, cD, vD, &A));
    TEST_CALL(pds_vec_set_values(b, b3, PDS_MEM_HOST));
    r = run(ctx, A, b, y, "cg", "none", 1e-10, 100);
    TEST_ASSERT(r.reason == PDS_DIVERGED_INDEFINITE);
    /* b = 0 gives x = 0 at once */
    TEST_CALL(pds_vec_set(b, 0.0));
    TEST_CALL(pds_vec_set(y, 3.0));
    r = run(ctx, A, b, y, "gmres", "none", 1e-10, 100);
    TEST_ASSERT(r.reason == PDS_CONVERGED_ATOL && r.iterations == 0);
    TEST_CALL(pds_vec_norm_inf(y, &err));
    TEST_ASSERT(err == 0);
    /* NaN in b is bad input */
    {
      pds_solver s;
      double     bn[2] = {NAN, 1};

      TEST_CALL(pds_vec_set_values(b, bn, PDS_MEM_HOST));
      TEST_CALL(pds_solver_create(ctx, "cg", &s));
      TEST_CALL(pds_solver_set_operator(s, A));
      TEST_ASSERT_ERR(ctx, pds_solver_solve(s, b, y), PDS_ERR_ARG, "NaN");
      TEST_ASSERT_ERR(ctx, pds_solver_solve(s, b, b), PDS_ERR_ARG, "same vector");
      TEST_ASSERT_ERR(ctx, pds_solver_solve(s, p.b, y), PDS_ERR_SIZE, "length 1000");
      TEST_ASSERT_ERR(ctx, pds_solver_set_tolerances(s, -1, 0, 10), PDS_ERR_ARG, "rtol");
      TEST_ASSERT_ERR(ctx, pds_solver_set_restart(s, 0), PDS_ERR_ARG, "restart");
      TEST_CALL(pds_solver_destroy(&s));
    }
    TEST_CALL(pds_vec_destroy(&b));
    TEST_CALL(pds_vec_destroy(&y));
    TEST_CALL(pds_mat_destroy(&A));
  }
  {
    pds_solver s = NULL;

    TEST_ASSERT_ERR(ctx, pds_solver_create(ctx, "minres", &s), PDS_ERR_ARG, "known: cg, bicgstab");
    TEST_ASSERT(s == NULL);
    TEST_CALL(pds_solver_create(ctx, "cg", &s));
    TEST_ASSERT_ERR(ctx, pds_solver_solve(s, p.b, x), PDS_ERR_STATE, "set_operator");
    TEST_CALL(pds_solver_destroy(&s));
  }
  TEST_CALL(pds_vec_destroy(&x));
  TEST_CALL(pds_vec_destroy(&xref));
  TEST_CALL(pds_vec_destroy(&d));
  TEST_CALL(pds_problem_destroy(&p));
  test_finalize(&ctx);
  return 0;
}
