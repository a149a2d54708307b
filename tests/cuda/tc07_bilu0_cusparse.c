/* tests/cuda/tc07_bilu0_cusparse.c: bilu0 (block ILU(0) of a stencil7 matrix) on /gpu/cuda against an independent
 * implementation: cuSPARSE's cusparseDbsrilu02 on the same matrix as BSR (bs = n, row-major blocks: the layout of
 * pds_mat_convert_to_bsr), followed by cusparseDbsrsv2 with L (unit lower) and U (upper). ILU(0) on the 7-point block
 * pattern is paper 000's block ILU(0) in exact arithmetic (two neighbouring grid points share no neighbour, so no
 * fill lands on the pattern; cuSPARSE's LU of the diagonal blocks and bilu0's inverted diagonals are two ways of
 * writing M = (D + E) D^-1 (D + F)), so M^-1 x agrees up to rounding: 1e-12 relative (max |difference| / max |y|),
 * for the default variant and every named one, on channel systems (n = 6 at CFL 10, n = 4 at CFL 100, n = 5 on a
 * flat grid) and random diagonally dominant ones (n = 3, n = 2, n = 8), after a first setup and after a refactorization
 * with new values on the same grid. Needs a GPU: registered with label cuda only; run with another backend it does
 * nothing. */
#include "cusparse_ilu.h" /* cuSPARSE's ILU(0): cusparse_ilu_apply, sp, CK, CKS */

static const char *const variants[] = {"auto", "hyperplane", "graph", "recycle", "syncfree", "lanes", "block", "tiles", "pipe"};

/* y = M^-1 x by cuSPARSE: bsrilu02 of A's BSR form, then the L and U solves (host arrays in and out) */
static void cusparse_bsr_apply(pds_mat A, const double *x, double *y) {
  pds_mat B;
  int     pos;

  TEST_CALL(pds_mat_convert_to_bsr(A, 0, &B));
  pos = cusparse_ilu_apply(B, x, y);
  if (pos >= 0) TEST_FAIL("bsrilu02: zero pivot at block %d", pos);
  TEST_CALL(pds_mat_destroy(&B));
}

/* bilu0 on ctx (every variant; a second setup on the values of A2, same grid, when A2 is given) against cuSPARSE */
static void check(pds_ctx ctx, pds_mat A, pds_mat A2, const char *what) {
  pds_int  n;
  pds_vec  x, y;
  double  *xh, *yh, *yc, *yc2 = NULL;

  TEST_CALL(pds_mat_get_size(A, &n, NULL));
  xh = malloc(sizeof *xh * (size_t)n), yh = malloc(sizeof *yh * (size_t)n), yc = malloc(sizeof *yc * (size_t)n);
  TEST_ASSERT(xh && yh && yc);
  TEST_CALL(pds_vec_create(ctx, n, &x));
  TEST_CALL(pds_vec_duplicate(x, &y));
  TEST_CALL(pds_vec_set_random(x, 11));
  TEST_CALL(pds_vec_get_values(x, xh, PDS_MEM_HOST));
  cusparse_bsr_apply(A, xh, yc);
  if (A2) {
    yc2 = malloc(sizeof *yc2 * (size_t)n);
    TEST_ASSERT(yc2);
    cusparse_bsr_apply(A2, xh, yc2);
  }
  for (size_t v = 0; v < sizeof variants / sizeof *variants; v++) {
    pds_precond pc;

    TEST_CALL(pds_precond_create(ctx, "bilu0", &pc));
    TEST_CALL(pds_precond_bilu0_set_variant(pc, variants[v]));
    TEST_CALL(pds_precond_set_operator(pc, A));
    TEST_CALL(pds_precond_setup(pc));
    expect_near_cusparse(pc, x, y, yh, yc, n, 1e-12, what, variants[v], "");
    if (A2) { /* refactorization: a new operator with the same grid */
      TEST_CALL(pds_precond_set_operator(pc, A2));
      TEST_CALL(pds_precond_setup(pc));
      expect_near_cusparse(pc, x, y, yh, yc2, n, 1e-12, what, variants[v], ", refactored with new values");
    }
    TEST_CALL(pds_precond_destroy(&pc));
  }
  TEST_CALL(pds_vec_destroy(&x));
  TEST_CALL(pds_vec_destroy(&y));
  free(xh), free(yh), free(yc), free(yc2);
}

static void channel(pds_ctx ctx, pds_int I, pds_int J, pds_int K, int n, double cfl) {
  pds_channel_opts o;
  pds_mat          A, A2;
  pds_vec          b, b2;
  char             what[96];

  pds_channel_opts_default(&o);
  o.ni = I, o.nj = J, o.nk = K, o.n = n, o.cfl = cfl;
  TEST_CALL(pds_channel_generate(ctx, &o, &A, &b));
  o.cfl = 2 * cfl, o.perturb = 0.1; /* new values on the same grid */
  TEST_CALL(pds_channel_generate(ctx, &o, &A2, &b2));
  snprintf(what, sizeof what, "channel %dx%dx%d n=%d CFL %g", (int)I, (int)J, (int)K, n, cfl);
  check(ctx, A, A2, what);
  TEST_CALL(pds_mat_destroy(&A));
  TEST_CALL(pds_mat_destroy(&A2));
  TEST_CALL(pds_vec_destroy(&b));
  TEST_CALL(pds_vec_destroy(&b2));
}

static void random_grid(pds_ctx ctx, pds_int I, pds_int J, pds_int K, int n, double dom) {
  pds_mat A, A2;
  char    what[96];

  TEST_CALL(pds_stencil7_random(ctx, I, J, K, n, dom, 100 + (uint64_t)n, &A));
  TEST_CALL(pds_stencil7_random(ctx, I, J, K, n, dom, 200 + (uint64_t)n, &A2));
  snprintf(what, sizeof what, "random %dx%dx%d n=%d dominance %g", (int)I, (int)J, (int)K, n, dom);
  check(ctx, A, A2, what);
  TEST_CALL(pds_mat_destroy(&A));
  TEST_CALL(pds_mat_destroy(&A2));
}

int main(int argc, char **argv) {
  pds_ctx ctx = test_init(argc, argv);

  if (!cusparse_peer_begin(&ctx)) return 0;
  channel(ctx, 6, 5, 4, 6, 10);
  channel(ctx, 5, 4, 6, 4, 100);
  channel(ctx, 7, 1, 3, 5, 1);
  random_grid(ctx, 5, 4, 3, 3, 1.2);
  random_grid(ctx, 9, 1, 2, 2, 1.5);
  random_grid(ctx, 3, 4, 2, 8, 1.1);
  cusparse_peer_end(&ctx);
  return 0;
}
