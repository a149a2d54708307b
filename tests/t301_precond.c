/* tests/t301_precond.c: jacobi and pbjacobi against direct computation, zero pivots and singular blocks,
 * shell preconditioner, state and size errors. */
#include "test.h"

static int shell_setup_calls;
static int shell_setup(void *user, pds_mat A) {
  (void)user, (void)A;
  shell_setup_calls++;
  return 0;
}
static int shell_apply(void *user, pds_vec x, pds_vec y) { return pds_vec_axpby(y, *(double *)user, x, 0.0); }

int main(int argc, char **argv) {
  pds_ctx     ctx = test_init(argc, argv);
  pds_precond P;
  pds_mat     A, B;
  pds_vec     x, y;
  /* 6 x 6 with 2x2 diagonal blocks [[4,1],[2,3]], [[5,-1],[1,2]], [[1,2],[3,4]] plus off-block coupling */
  pds_int     ri[] = {0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 0, 5, 2};
  pds_int     cj[] = {0, 1, 0, 1, 2, 3, 2, 3, 4, 5, 4, 5, 5, 0, 0};
  double      v[]  = {4, 1, 2, 3, 5, -1, 1, 2, 1, 2, 3, 4, 0.5, 0.25, -0.75};
  double      xa[6] = {1, -2, 3, 0.5, -1, 2}, ya[6], expect[6];
  double      blocks[3][4] = {{4, 1, 2, 3}, {5, -1, 1, 2}, {1, 2, 3, 4}};

  TEST_CALL(pds_mat_create_csr_from_triplets(ctx, 6, 6, 15, ri, cj, v, &A));
  TEST_CALL(pds_vec_create(ctx, 6, &x));
  TEST_CALL(pds_vec_create(ctx, 6, &y));
  TEST_CALL(pds_vec_set_values(x, xa, PDS_MEM_HOST));
  /* jacobi: y = x / diag */
  TEST_CALL(pds_precond_create(ctx, "jacobi", &P));
  TEST_ASSERT_ERR(ctx, pds_precond_apply(P, x, y), PDS_ERR_STATE, "not set up");
  TEST_ASSERT_ERR(ctx, pds_precond_setup(P), PDS_ERR_STATE, "no operator");
  TEST_CALL(pds_precond_set_operator(P, A));
  TEST_CALL(pds_precond_setup(P));
  TEST_CALL(pds_precond_apply(P, x, y));
  TEST_CALL(pds_vec_get_values(y, ya, PDS_MEM_HOST));
  {
    double dg[6] = {4, 3, 5, 2, 1, 4};

    for (int i = 0; i < 6; i++) TEST_ASSERT(ya[i] == xa[i] / dg[i]);
  }
  TEST_CALL(pds_precond_destroy(&P));
  /* pbjacobi bs 2 on csr and on bsr: y_b = D_b^-1 x_b with the 2x2 inverse in closed form */
  for (int b = 0; b < 3; b++) {
    double *m = blocks[b], det = m[0] * m[3] - m[1] * m[2];

    expect[2 * b]     = (m[3] * xa[2 * b] - m[1] * xa[2 * b + 1]) / det;
    expect[2 * b + 1] = (-m[2] * xa[2 * b] + m[0] * xa[2 * b + 1]) / det;
  }
  TEST_CALL(pds_mat_convert_to_bsr(A, 2, &B));
  for (int pass = 0; pass < 2; pass++) {
    TEST_CALL(pds_precond_create(ctx, "pbjacobi", &P));
    TEST_CALL(pds_precond_set_operator(P, pass ? B : A));
    if (!pass) TEST_CALL(pds_precond_set_block_size(P, 2));
    TEST_CALL(pds_precond_setup(P));
    TEST_CALL(pds_precond_apply(P, x, y));
    TEST_CALL(pds_vec_get_values(y, ya, PDS_MEM_HOST));
    for (int i = 0; i < 6; i++) TEST_ASSERT_NEAR(ya[i], expect[i], 1e-14, 1e-15);
    TEST_CALL(pds_precond_destroy(&P));
  }
  /* block size 4 does not divide 6 */
  TEST_CALL(pds_precond_create(ctx, "pbjacobi", &P));
  TEST_CALL(pds_precond_set_operator(P, A));
  TEST_CALL(pds_precond_set_block_size(P, 4));
  TEST_ASSERT_ERR(ctx, pds_precond_setup(P), PDS_ERR_SIZE, "does not divide");
  /* bs 3 works (3x3 blocks with off-diagonal parts) and equals pbjacobi bs 6 = exact inverse when A is solved */
  TEST_CALL(pds_precond_set_block_size(P, 6));
  TEST_CALL(pds_precond_setup(P));
  TEST_CALL(pds_precond_apply(P, x, y));
  {
    pds_vec z;
    double  za[6];

    TEST_CALL(pds_vec_create(ctx, 6, &z));
    TEST_CALL(pds_mat_apply(A, y, z)); /* A (A^-1 x) = x */
    TEST_CALL(pds_vec_get_values(z, za, PDS_MEM_HOST));
    for (int i = 0; i < 6; i++) TEST_ASSERT_NEAR(za[i], xa[i], 1e-13, 1e-14);
    TEST_CALL(pds_vec_destroy(&z));
  }
  TEST_CALL(pds_precond_destroy(&P));
  TEST_CALL(pds_mat_destroy(&B));
  TEST_CALL(pds_mat_destroy(&A));
  /* a zero diagonal is a zero pivot for jacobi (named row); a singular block for pbjacobi (named block) */
  {
    pds_int r2[] = {0, 0, 1, 2, 2, 3, 3, 1}, c2[] = {0, 1, 0, 2, 3, 2, 3, 3};
    double  v2[] = {1, 2, 2, 1, 2, 2, 4, 1}; /* block 1 = [[1,2],[2,4]] singular; row 1 has a_11 = 0 */

    TEST_CALL(pds_mat_create_csr_from_triplets(ctx, 4, 4, 8, r2, c2, v2, &A));
    TEST_CALL(pds_precond_create(ctx, "jacobi", &P));
    TEST_CALL(pds_precond_set_operator(P, A));
    TEST_ASSERT_ERR(ctx, pds_precond_setup(P), PDS_ERR_ZERO_PIVOT, "row 1");
    TEST_CALL(pds_precond_destroy(&P));
    TEST_CALL(pds_precond_create(ctx, "pbjacobi", &P));
    TEST_CALL(pds_precond_set_operator(P, A));
    TEST_CALL(pds_precond_set_block_size(P, 2));
    TEST_ASSERT_ERR(ctx, pds_precond_setup(P), PDS_ERR_ZERO_PIVOT, "block 1 (rows 2..3)");
    TEST_CALL(pds_precond_destroy(&P));
    TEST_CALL(pds_mat_destroy(&A));
  }
  /* shell */
  {
    double two = 2.0;
    pds_vec x6;

    TEST_CALL(pds_precond_create(ctx, "shell", &P));
    TEST_CALL(pds_vec_create(ctx, 6, &x6));
    TEST_ASSERT_ERR(ctx, pds_precond_setup(P), PDS_ERR_STATE, "no apply callback");
    TEST_CALL(pds_precond_shell_set(P, &two, shell_setup, shell_apply));
    TEST_CALL(pds_precond_setup(P));
    TEST_ASSERT(shell_setup_calls == 1);
    TEST_CALL(pds_precond_apply(P, x, x6));
    TEST_CALL(pds_vec_get_values(x6, ya, PDS_MEM_HOST));
    for (int i = 0; i < 6; i++) TEST_ASSERT(ya[i] == 2 * xa[i]);
    TEST_CALL(pds_precond_destroy(&P));
    TEST_CALL(pds_vec_destroy(&x6));
  }
  TEST_ASSERT_ERR(ctx, pds_precond_create(ctx, "ilu7", &P), PDS_ERR_ARG, "unknown preconditioner 'ilu7'");
  TEST_ASSERT(P == NULL);
  TEST_CALL(pds_vec_destroy(&x));
  TEST_CALL(pds_vec_destroy(&y));
  test_finalize(&ctx);
  return 0;
}
