/* tests/mpi/tm03_patches.c: a patch set over the ranks ("mpipatches": whole patches a rank, pds_problem_patches_dist)
 * against the serial patches problem of the same cells (pds_problem_patches), run by ctest under mpirun -np 1, 2 and 3
 * (argv[1]: the backend).
 *   - b and u_exact are the serial ones' rows, bit for bit; the product equals the serial patch set's to round-off;
 *   - CG with bjacobi and gmg or relax on each rank's patches converges to the serial solution, within the
 *     discretization error of u_exact as the serial solve; on one rank it is the serial gmg (the same iterations);
 *   - a set of two patches on three ranks leaves a rank without cells, and the solve still converges;
 *   - overlapping patches: every rank returns the error. */
#include <mpi.h>

#include "pdesolve_mpi.h"
#include "test.h"
#include "mpi_test.h"

static void check(pds_ctx ctx, pds_ctx serial, const pds_int n[3], pds_int size) {
  pds_problem pd, ps;
  pds_vec     x, y, xs, ys;
  pds_real    scale, err_d, err_s;
  pds_int     nl;

  TEST_CALL(pds_problem_patches_dist(ctx, n, 1, &size, &pd));
  TEST_CALL(pds_problem_patches(serial, n, 1, &size, &ps));
  TEST_ASSERT(!strcmp(pds_mat_get_type(pd.A), "mpipatches") && pds_mat_is_distributed(pd.A));
  TEST_ASSERT(maxdiff(pd.b, ps.b) == 0 && maxdiff(pd.u_exact, ps.u_exact) == 0);
  TEST_CALL(pds_mat_get_size(pd.A, &nl, NULL));
  if (size_ == 3 && n[0] == 2 * size && n[1] == size && n[2] == size && rank_ == 2) TEST_ASSERT(nl == 0);
  /* the product */
  TEST_CALL(pds_mat_create_vecs(pd.A, &x, &y));
  TEST_CALL(pds_mat_create_vecs(ps.A, &xs, &ys));
  TEST_CALL(pds_vec_set_random(x, 4));
  TEST_CALL(pds_vec_set_random(xs, 4));
  TEST_CALL(pds_mat_apply(pd.A, x, y));
  TEST_CALL(pds_mat_apply(ps.A, xs, ys));
  TEST_CALL(pds_vec_norm_inf(ys, &scale));
  TEST_ASSERT(maxdiff(y, ys) <= 1e-13 * scale);
  pds_vec_destroy(&x), pds_vec_destroy(&y), pds_vec_destroy(&xs), pds_vec_destroy(&ys);
  /* block Jacobi with the structured solvers on each rank's patches */
  {
    static const char *subs[] = {"gmg", "relax"};

    for (int k = 0; k < 2; k++) {
      const int its  = cg_solve(ctx, &pd, "bjacobi", subs[k], 500, &x);
      const int itss = cg_solve(serial, &ps, subs[k], NULL, 500, &xs);

      TEST_CALL(pds_vec_norm_inf(xs, &scale));
      if (rank_ == 0)
        printf("patches %dx%dx%d in %d^3 patches: cg + bjacobi(%s) %d iterations on %d rank%s, %s %d serial\n",
               (int)n[0], (int)n[1], (int)n[2], (int)size, subs[k], its, size_, size_ > 1 ? "s" : "", subs[k], itss);
      if (size_ == 1) TEST_ASSERT(its == itss);
      TEST_ASSERT(maxdiff(x, xs) <= 1e-7 * scale);
      TEST_CALL(pds_vec_axpy(x, -1.0, pd.u_exact));
      TEST_CALL(pds_vec_axpy(xs, -1.0, ps.u_exact));
      TEST_CALL(pds_vec_norm_inf(x, &err_d));
      TEST_CALL(pds_vec_norm_inf(xs, &err_s));
      TEST_ASSERT(fabs(err_d - err_s) <= 1e-6 * err_s + 1e-12);
      pds_vec_destroy(&x), pds_vec_destroy(&xs);
    }
  }
  pds_problem_destroy(&pd), pds_problem_destroy(&ps);
}

int main(int argc, char **argv) {
  const char *backend = argc > 1 ? argv[1] : "/cpu/ref";
  pds_ctx     ctx, serial;

  mpi_test_begin(&argc, &argv, backend, &ctx, &serial);
#ifdef PDS_MPI_TEST_SMALL /* the sanitizer build (tests/mpi/CMakeLists.txt): 2 x 2 x 1 patches */
  check(ctx, serial, (const pds_int[3]){16, 16, 8}, 8);
#else
  check(ctx, serial, (const pds_int[3]){32, 24, 16}, 8); /* 4 x 3 x 2 patches (relax: blocks of 8^3) */
#endif
  check(ctx, serial, (const pds_int[3]){16, 8, 8}, 8);   /* two patches: on three ranks one has none */
  { /* overlapping patches: every rank fails */
    const pds_patch pt[2] = {{{0, 0, 0}, {4, 4, 4}}, {{2, 0, 0}, {4, 4, 4}}};
    const pds_real  c[7]  = {6, -1, -1, -1, -1, -1, -1};
    pds_mat         A     = NULL;

    expect_all_fail(pds_mat_create_patches_dist(ctx, 2, pt, c, &A), "overlapping patches");
    TEST_ASSERT(!A);
  }
  mpi_test_end(&ctx, &serial, "tm03_patches");
  return 0;
}
