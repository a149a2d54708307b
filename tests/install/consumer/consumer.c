/* tests/install/consumer/consumer.c: a program built against an installed pdesolve (tests/install): CG + Jacobi on
 * A = [4 1; 1 3], b = (1, 2), whose solution is x = (1/11, 7/11), on /cpu/ref, on /cpu/omp when the installed
 * pds_config.h says it is compiled, and on "auto". Checks x and that the header and the library are the same
 * version. Exit status 0 when all is right, 1 otherwise, with a line saying what was wrong. <complex.h> comes first, as
 * in a program that computes in complex numbers (PETSc's complex builds): the public header must use no name its I
 * macro takes (pds_channel_opts's cells are ni, nj, nk). */
#include <complex.h>
#include <stdio.h>
#include <string.h>

#include <pdesolve.h>
#include <pdesolve/pds_config.h>

#define CHECK(call)                                                                                          \
  do {                                                                                                       \
    int ierr_ = (call);                                                                                      \
    if (ierr_) {                                                                                             \
      fprintf(stderr, "consumer: %s on %s failed: %s\n", #call, backend,                                     \
              ctx ? pds_ctx_get_error(ctx) : pds_error_name(ierr_));                                         \
      ok = 0;                                                                                                \
      goto done;                                                                                             \
    }                                                                                                        \
  } while (0)

static double dist(pds_real a, pds_real b) { return a > b ? a - b : b - a; }

static int solve_2x2(const char *backend) {
  pds_size          rowptr[] = {0, 2, 4};
  pds_int           colidx[] = {0, 1, 0, 1};
  pds_real          vals[] = {4.0, 1.0, 1.0, 3.0}, bvals[] = {1.0, 2.0}, exact[] = {1.0 / 11.0, 7.0 / 11.0};
  pds_ctx           ctx = NULL;
  pds_mat           A = NULL;
  pds_vec           b = NULL, x = NULL;
  pds_solver        s = NULL;
  pds_precond       pc = NULL;
  pds_solver_result r;
  const pds_real   *xa = NULL;
  int               ok = 1;

  CHECK(pds_ctx_create(backend, &ctx));
  CHECK(pds_mat_create_csr(ctx, 2, 2, rowptr, colidx, vals, PDS_MEM_HOST, PDS_COPY_VALUES, &A));
  CHECK(pds_vec_create(ctx, 2, &b));
  CHECK(pds_vec_set_values(b, bvals, PDS_MEM_HOST));
  CHECK(pds_vec_duplicate(b, &x));
  CHECK(pds_vec_set(x, 0.0));
  CHECK(pds_solver_create(ctx, "cg", &s));
  CHECK(pds_precond_create(ctx, "jacobi", &pc));
  CHECK(pds_solver_set_operator(s, A));
  CHECK(pds_solver_set_precond(s, pc));
  CHECK(pds_solver_set_tolerances(s, 1e-14, 0.0, 10));
  CHECK(pds_solver_solve(s, b, x));
  CHECK(pds_solver_get_result(s, &r));
  CHECK(pds_vec_get_array_read(x, PDS_MEM_HOST, &xa));
  if (r.reason <= 0 || dist(xa[0], exact[0]) > 1e-12 || dist(xa[1], exact[1]) > 1e-12) {
    fprintf(stderr, "consumer: CG on %s (%s): %s after %d iterations, x = (%.17g, %.17g), expected (%.17g, %.17g)\n",
            backend, pds_ctx_get_backend(ctx), pds_reason_name(r.reason), r.iterations, xa[0], xa[1], exact[0],
            exact[1]);
    ok = 0;
  }
  CHECK(pds_vec_restore_array_read(x, &xa));
done:
  pds_precond_destroy(&pc);
  pds_solver_destroy(&s);
  pds_vec_destroy(&x);
  pds_vec_destroy(&b);
  pds_mat_destroy(&A);
  pds_ctx_destroy(&ctx);
  return ok;
}

int main(void) {
  int ok = 1;
  if (strcmp(pds_version(), PDS_VERSION_STRING) != 0) {
    fprintf(stderr, "consumer: the library is version %s, its header %s\n", pds_version(), PDS_VERSION_STRING);
    ok = 0;
  }
  ok &= solve_2x2("/cpu/ref");
#if PDS_HAVE_OPENMP
  ok &= solve_2x2("/cpu/omp");
#endif
  ok &= solve_2x2("auto");
  {
    pds_channel_opts o;
    double complex   z = 3.0 + 4.0 * I; /* <complex.h> in use beside the header */

    pds_channel_opts_default(&o);
    if (o.ni != 16 || creal(z) * creal(z) + cimag(z) * cimag(z) != 25.0) {
      fprintf(stderr, "consumer: channel options or complex arithmetic wrong\n");
      ok = 0;
    }
  }
  return ok ? 0 : 1;
}
