/* tests/cuda/tc08_ilu0_cusparse.c: ilu0 (ILU(0) of a general csr or bsr matrix, docs/ilu0.md) on /gpu/cuda against an
 * independent implementation: cuSPARSE's own ILU(0) on the same arrays. Scalar: cusparseDcsrilu02 (level policy) then
 * the generic cusparseSpSV with L (unit lower) and U (non-unit upper) on the factored values; blocks:
 * cusparseDbsrilu02 then cusparseDbsrsv2 (row-major blocks, CUSPARSE_DIRECTION_ROW: pds_mat_convert_to_bsr's layout),
 * as tc07. ILU(0) on a given pattern is one factorization (L U = A on the pattern); the two codes round in different
 * orders (and ilu0 inverts its diagonal blocks by Gauss-Jordan where cuSPARSE keeps their LU), so M^-1 x agrees up to
 * rounding: 1e-10 relative (max |difference| / max |y|). Checked, in natural order (the order cuSPARSE factors in), for
 * every exact variant (auto, levels, syncfree), after a first setup and after pds_precond_update_values with new
 * values on the same pattern (A's values times 1 + 0.1 r, r uniform in [0, 1)), on poisson7 24^3 and a random
 * diagonally dominant nonsymmetric matrix (n = 5000, about 10 entries a row, random columns: deep level schedules),
 * and on 7-point 12^3 grids with dense, dominant bs x bs blocks, bs = 2, 3, 4, 5. On the scalar matrices approx-chow
 * with 1000 Chow-Patel and 1000 Jacobi sweeps is checked too: on a dominant matrix both iterations have converged
 * to ILU(0) and its triangular solves long before. A row without its diagonal and without entries left of it (its
 * pivot stays exactly zero) is PDS_ERR_ZERO_PIVOT naming that row for every exact variant, and cuSPARSE's zero-pivot
 * query reports one too. Needs a GPU: registered with label cuda only; run with another backend it does nothing. */
#include "cusparse_ilu.h" /* cusparse_ilu_apply, sp, CK, CKS */

static const char *const variants[] = {"auto", "levels", "syncfree", "approx-chow"}; /* the last: scalar only */
#define NEXACT 3
static uint64_t         rng = 12345; /* the test's own generator: the matrices are the same on every run */

static double urand(void) { /* uniform in [0, 1) (splitmix64) */
  uint64_t z = (rng += 0x9E3779B97F4A7C15ull);

  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return (double)((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
}

/* A csr or bsr matrix of A's pattern, its values times 1 + 0.1 r (the next Newton or time step's matrix) */
static pds_mat scaled_copy(pds_ctx ctx, pds_mat A) {
  const int       bsr = !strcmp(pds_mat_get_type(A), "bsr");
  const pds_size *rp0;
  const pds_int  *ci0;
  const pds_real *v0;
  pds_int         n;
  int             bs;
  pds_mat         A2;

  if (bsr) TEST_CALL(pds_mat_bsr_get_arrays(A, &rp0, &ci0, &v0));
  else TEST_CALL(pds_mat_csr_get_arrays(A, &rp0, &ci0, &v0));
  TEST_CALL(pds_mat_get_block_size(A, &bs));
  TEST_CALL(pds_mat_get_size(A, &n, NULL));
  {
    const pds_int mb = n / bs;
    const size_t  nnzb = (size_t)rp0[mb], nv = nnzb * (size_t)bs * bs;
    pds_size     *rp = malloc(sizeof *rp * (size_t)(mb + 1));
    pds_int      *ci = malloc(sizeof *ci * (nnzb ? nnzb : 1));
    pds_real     *v  = malloc(sizeof *v * (nv ? nv : 1));

    TEST_ASSERT(rp && ci && v);
    memcpy(rp, rp0, sizeof *rp * (size_t)(mb + 1));
    memcpy(ci, ci0, sizeof *ci * nnzb);
    for (size_t e = 0; e < nv; e++) v[e] = v0[e] * (1 + 0.1 * urand());
    if (bsr) TEST_CALL(pds_mat_create_bsr(ctx, mb, mb, bs, rp, ci, v, PDS_MEM_HOST, PDS_COPY_VALUES, &A2));
    else TEST_CALL(pds_mat_create_csr(ctx, n, n, rp, ci, v, PDS_MEM_HOST, PDS_COPY_VALUES, &A2));
    free(rp), free(ci), free(v);
  }
  return A2;
}

/* ilu0 on ctx (every exact variant; approx-chow too when approx) against cuSPARSE, on A, then refactored on A2 */
static void check(pds_ctx ctx, pds_mat A, pds_mat A2, int approx, const char *what) {
  const size_t nvar = approx ? sizeof variants / sizeof *variants : NEXACT;
  pds_int      n;
  pds_vec      x, y;
  double      *xh, *yh, *yc, *yc2;

  TEST_CALL(pds_mat_get_size(A, &n, NULL));
  xh = malloc(sizeof *xh * (size_t)n), yh = malloc(sizeof *yh * (size_t)n);
  yc = malloc(sizeof *yc * (size_t)n), yc2 = malloc(sizeof *yc2 * (size_t)n);
  TEST_ASSERT(xh && yh && yc && yc2);
  TEST_CALL(pds_vec_create(ctx, n, &x));
  TEST_CALL(pds_vec_duplicate(x, &y));
  TEST_CALL(pds_vec_set_random(x, 11));
  TEST_CALL(pds_vec_get_values(x, xh, PDS_MEM_HOST));
  if (cusparse_ilu_apply(A, xh, yc) >= 0) TEST_FAIL("%s: cuSPARSE finds a zero pivot", what);
  if (cusparse_ilu_apply(A2, xh, yc2) >= 0) TEST_FAIL("%s, new values: cuSPARSE finds a zero pivot", what);
  for (size_t k = 0; k < nvar; k++) {
    pds_precond pc;

    TEST_CALL(pds_precond_create(ctx, "ilu0", &pc));
    TEST_CALL(pds_precond_ilu0_set_variant(pc, variants[k]));
    TEST_CALL(pds_precond_ilu0_set_ordering(pc, "natural")); /* the default; cuSPARSE has no other */
    if (k >= NEXACT) TEST_CALL(pds_precond_ilu0_set_sweeps(pc, 1000, 1000));
    TEST_CALL(pds_precond_set_operator(pc, A));
    TEST_CALL(pds_precond_setup(pc));
    expect_near_cusparse(pc, x, y, yh, yc, n, 1e-10, what, variants[k], "");
    TEST_CALL(pds_precond_update_values(pc, A2)); /* the same pattern: the analysis is kept, the values refactored */
    expect_near_cusparse(pc, x, y, yh, yc2, n, 1e-10, what, variants[k], ", refactored with new values");
    TEST_CALL(pds_precond_destroy(&pc));
  }
  TEST_CALL(pds_vec_destroy(&x));
  TEST_CALL(pds_vec_destroy(&y));
  free(xh), free(yh), free(yc), free(yc2);
}

/* n x n, row i: 9 entries in random columns (duplicates summed), uniform in [-1, 1), and a diagonal 1.5 times the
   row's absolute sum plus 1; row zrow (if >= 0) keeps only its entries right of the diagonal: its pivot is 0 */
static pds_mat random_dominant(pds_ctx ctx, pds_int n, pds_int zrow) {
  const int per = 9;
  pds_int  *ri = malloc(sizeof *ri * (size_t)n * (per + 1)), *cj = malloc(sizeof *cj * (size_t)n * (per + 1));
  double   *v = malloc(sizeof *v * (size_t)n * (per + 1));
  pds_size  k = 0;
  pds_mat   A;

  TEST_ASSERT(ri && cj && v);
  for (pds_int i = 0; i < n; i++) {
    double s = 0;

    for (int e = 0; e < per; e++) {
      pds_int j = (pds_int)(urand() * n);

      if (j == i) j = (j + 1) % n;
      ri[k] = i, cj[k] = j, v[k] = 2 * urand() - 1;
      if (i == zrow && j < i) continue; /* dropped: nothing left of row zrow's diagonal can fill it */
      s += fabs(v[k++]);
    }
    if (i != zrow) ri[k] = i, cj[k] = i, v[k++] = 1.5 * s + 1;
  }
  TEST_CALL(pds_mat_create_csr_from_triplets(ctx, n, n, k, ri, cj, v, &A));
  free(ri), free(cj), free(v);
  return A;
}

/* csr of size m^3 bs: the 7-point pattern on an m^3 grid with dense bs x bs blocks, uniform in [-1, 1) off the
   diagonal, each diagonal entry 1.5 times its row's absolute sum plus 1 (dominant diagonal blocks) */
static pds_mat block7(pds_ctx ctx, pds_int m, int bs) {
  const pds_int  np = m * m * m;
  const size_t   cap = (size_t)np * 7 * bs * bs;
  pds_int       *ri = malloc(sizeof *ri * cap), *cj = malloc(sizeof *cj * cap);
  double        *v = malloc(sizeof *v * cap);
  pds_size       k = 0;
  pds_mat        A;

  TEST_ASSERT(ri && cj && v);
  for (pds_int p = 0; p < np; p++) {
    const pds_int i = p / (m * m), j = p / m % m, l = p % m;
    const pds_int nb[7] = {l > 0 ? p - 1 : -1, j > 0 ? p - m : -1, i > 0 ? p - m * m : -1, p,
                           l < m - 1 ? p + 1 : -1, j < m - 1 ? p + m : -1, i < m - 1 ? p + m * m : -1};

    for (int r = 0; r < bs; r++) {
      const pds_int row = p * bs + r;
      pds_size      kd  = 0;
      double        s   = 0;

      for (int a = 0; a < 7; a++) {
        if (nb[a] < 0) continue;
        for (int c = 0; c < bs; c++) {
          ri[k] = row, cj[k] = nb[a] * bs + c, v[k] = 2 * urand() - 1;
          if (cj[k] == row) kd = k;
          else s += fabs(v[k]);
          k++;
        }
      }
      v[kd] = 1.5 * s + 1;
    }
  }
  TEST_CALL(pds_mat_create_csr_from_triplets(ctx, np * bs, np * bs, k, ri, cj, v, &A));
  free(ri), free(cj), free(v);
  return A;
}

/* a row with no diagonal and nothing left of it: ilu0 stops with PDS_ERR_ZERO_PIVOT naming it, cuSPARSE finds one */
static void zero_pivot_case(pds_ctx ctx) {
  const pds_int n = 1000, zrow = 500;
  pds_mat       A = random_dominant(ctx, n, zrow);
  double       *xh = calloc((size_t)n, sizeof *xh), *yh = calloc((size_t)n, sizeof *yh);
  char          msg[64];

  TEST_ASSERT(xh && yh);
  if (cusparse_ilu_apply(A, xh, yh) < 0) TEST_FAIL("cuSPARSE finds no zero pivot in a matrix lacking A(%d, %d)",
                                                   (int)zrow, (int)zrow);
  snprintf(msg, sizeof msg, "row %d is zero", (int)zrow);
  for (int k = 0; k < NEXACT; k++) {
    pds_precond pc;

    TEST_CALL(pds_precond_create(ctx, "ilu0", &pc));
    TEST_CALL(pds_precond_ilu0_set_variant(pc, variants[k]));
    TEST_CALL(pds_precond_set_operator(pc, A));
    TEST_ASSERT_ERR(ctx, pds_precond_setup(pc), PDS_ERR_ZERO_PIVOT, msg);
    TEST_CALL(pds_precond_destroy(&pc));
  }
  TEST_CALL(pds_mat_destroy(&A));
  free(xh), free(yh);
}

int main(int argc, char **argv) {
  pds_ctx ctx = test_init(argc, argv);

  if (!cusparse_peer_begin(&ctx)) return 0;
  { /* poisson7 24^3 */
    const pds_int dims[3] = {24, 24, 24};
    pds_problem   p;
    pds_mat       A2;

    TEST_CALL(pds_problem_generate(ctx, "poisson7", dims, 3, &p));
    A2 = scaled_copy(ctx, p.A);
    check(ctx, p.A, A2, 1, "poisson7 24^3");
    TEST_CALL(pds_mat_destroy(&A2));
    TEST_CALL(pds_problem_destroy(&p));
  }
  { /* random, nonsymmetric, diagonally dominant */
    pds_mat A = random_dominant(ctx, 5000, -1), A2 = scaled_copy(ctx, A);

    check(ctx, A, A2, 1, "random n=5000");
    TEST_CALL(pds_mat_destroy(&A));
    TEST_CALL(pds_mat_destroy(&A2));
  }
  for (int bs = 2; bs <= 5; bs++) { /* bsr: 7-point 12^3 with dense blocks */
    pds_mat C = block7(ctx, 12, bs), B, B2;
    char    what[64];

    TEST_CALL(pds_mat_convert_to_bsr(C, bs, &B));
    B2 = scaled_copy(ctx, B);
    snprintf(what, sizeof what, "7-point 12^3, %d x %d blocks (bsr)", bs, bs);
    check(ctx, B, B2, 0, what);
    TEST_CALL(pds_mat_destroy(&C));
    TEST_CALL(pds_mat_destroy(&B));
    TEST_CALL(pds_mat_destroy(&B2));
  }
  zero_pivot_case(ctx);
  cusparse_peer_end(&ctx);
  return 0;
}
