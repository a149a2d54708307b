/* examples/ex1_poisson7_cg.c: solve the 3D Poisson problem with CG + Jacobi on the best backend, the smallest
 * complete use of pdesolve. Build against an installed pdesolve:
 *   cc ex1_poisson7_cg.c $(pkg-config --cflags --libs pdesolve) -o ex1   (or find_package(pdesolve) in CMake) */
#include <stdio.h>
#include <stdlib.h>

#include <pdesolve.h>

#define CHECK(call)                                                               \
  do {                                                                            \
    int ierr_ = (call);                                                           \
    if (ierr_) {                                                                  \
      fprintf(stderr, "%s failed: %s\n", #call, ctx ? pds_ctx_get_error(ctx) : pds_error_name(ierr_)); \
      return 1;                                                                   \
    }                                                                             \
  } while (0)

int main(int argc, char **argv) {
  pds_ctx           ctx = NULL;
  pds_problem       p;
  pds_solver        s;
  pds_precond       pc;
  pds_vec           x;
  pds_solver_result r;
  pds_int           n = argc > 1 ? atoi(argv[1]) : 32;
  pds_real          err;

  CHECK(pds_ctx_create("auto", &ctx));                          /* GPU if present, else OpenMP */
  CHECK(pds_problem_generate(ctx, "poisson7", &n, 1, &p));     /* n^3 unknowns, A, b and the exact u */
  CHECK(pds_vec_duplicate(p.b, &x));
  CHECK(pds_vec_set(x, 0.0));                                   /* initial guess */
  CHECK(pds_solver_create(ctx, "cg", &s));
  CHECK(pds_precond_create(ctx, "jacobi", &pc));
  CHECK(pds_solver_set_operator(s, p.A));
  CHECK(pds_solver_set_precond(s, pc));
  CHECK(pds_solver_set_tolerances(s, 1e-10, 0.0, 1000));
  CHECK(pds_solver_solve(s, p.b, x));                           /* not converging is a result, not an error */
  CHECK(pds_solver_get_result(s, &r));
  CHECK(pds_vec_axpy(x, -1.0, p.u_exact));
  CHECK(pds_vec_norm_inf(x, &err));
  printf("%s on %s: %d iterations, %s, ||r||/||b|| = %.2e, max error vs exact u = %.2e\n", pds_solver_get_type(s),
         pds_ctx_get_backend(ctx), r.iterations, pds_reason_name(r.reason), r.rnorm / r.bnorm, err);
  pds_vec_destroy(&x);
  pds_precond_destroy(&pc);
  pds_solver_destroy(&s);
  pds_problem_destroy(&p);
  pds_ctx_destroy(&ctx);
  return r.reason > 0 ? 0 : 2;
}
