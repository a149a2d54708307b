/* tests/t501_gen.c: poisson7 is the 7-point Laplacian (row sums, symmetry, sizes), and its solution converges to
 * the manufactured u at second order: the max error falls by 4 when h halves (observed order in [1.9, 2.1]). */
#include "test.h"

static double solve_error(pds_ctx ctx, pds_int n) {
  pds_problem p;
  pds_int     dims[1] = {n};
  pds_real    e;

  TEST_CALL(pds_problem_generate(ctx, "poisson7", dims, 1, &p)); /* n x n x n */
  TEST_ASSERT(p.u_exact && p.x_exact == NULL);
  e = test_problem_cg_error(ctx, &p, 1e-12, 2000, NULL);
  TEST_CALL(pds_problem_destroy(&p));
  return e;
}

int main(int argc, char **argv) {
  pds_ctx     ctx = test_init(argc, argv);
  pds_problem p;
  pds_int     dims[3] = {4, 3, 2};
  pds_int     nr, nc;
  pds_size    nnz;
  double      e[3];

  /* structure of a 4 x 3 x 2 grid: n = 24, nnz = 7n - 2(ny nz + nx nz + nx ny) */
  TEST_CALL(pds_problem_generate(ctx, "poisson7", dims, 3, &p));
  TEST_CALL(pds_mat_get_size(p.A, &nr, &nc));
  TEST_CALL(pds_mat_get_nnz(p.A, &nnz));
  TEST_ASSERT(nr == 24 && nc == 24 && nnz == 7 * 24 - 2 * (3 * 2 + 4 * 2 + 4 * 3));
  {
    const pds_size *rp;
    const pds_int  *ci;
    const pds_real *v;

    TEST_CALL(pds_mat_csr_get_arrays(p.A, &rp, &ci, &v));
    /* symmetric, interior rows sum to 0, columns ascending */
    for (int i = 0; i < nr; i++)
      for (pds_size k = rp[i]; k < rp[i + 1]; k++) {
        int found = 0;

        if (k > rp[i]) TEST_ASSERT(ci[k] > ci[k - 1]);
        for (pds_size l = rp[ci[k]]; l < rp[ci[k] + 1]; l++)
          if (ci[l] == i) {
            found = 1;
            TEST_ASSERT(v[l] == v[k]);
          }
        TEST_ASSERT(found);
      }
  }
  TEST_CALL(pds_problem_destroy(&p));
  TEST_ASSERT_ERR(ctx, pds_problem_generate(ctx, "poisson9", dims, 3, &p), PDS_ERR_ARG, "known: poisson7");
  dims[0] = 0;
  TEST_ASSERT_ERR(ctx, pds_problem_generate(ctx, "poisson7", dims, 3, &p), PDS_ERR_ARG, "at least 1");
  /* second-order convergence: h = 1/8, 1/16, 1/32 */
  e[0] = solve_error(ctx, 7);
  e[1] = solve_error(ctx, 15);
  e[2] = solve_error(ctx, 31);
  for (int i = 0; i < 2; i++) {
    double order = log(e[i] / e[i + 1]) / log(2.0);

    if (!(order >= 1.9 && order <= 2.1)) TEST_FAIL("observed order %g between refinements %d and %d (errors %g, %g)",
                                                   order, i, i + 1, e[i], e[i + 1]);
  }
  test_finalize(&ctx);
  return 0;
}
