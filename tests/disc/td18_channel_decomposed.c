/* tests/disc/td18_channel_decomposed.c: one channel cut into touching blocks (pds_channel_generate_decomposed, a
 * stencil7 matrix with couplings between its grids, pds_mat_create_stencil7_coupled) on the backend of argv[1].
 * Truths from the one-grid system (pds_channel_generate), which does not know about blocks:
 *   - renumbering: the blocks' cells follow the documented rule (block (a, b, c) = grid (a S1 + b) S2 + c, the a-th
 *     range of I starting at I a / S0, cells k fastest); with it, every entry of A and b equals the one grid's, bit
 *     for bit, and there are as many entries;
 *   - the product of the coupled matrix is the one grid's product renumbered (to round-off: other summation order);
 *   - GMRES + bilu0 solves the coupled system to the one grid's solution; Richardson + bilu0 (bilu0 factors each
 *     block alone, the couplings go to the residual: paper 000's Eq. 4) converges at CFL 1 and needs more iterations
 *     than on the one grid;
 *   - errors: a split of 0 or larger than its dimension; a coupling of a point to itself, out of range, or NaN. */
#include "../test.h"

/* the block rule of the header: the start of range t of N cells cut in s */
static pds_int start_of(pds_int N, int s, int t) { return (pds_int)((long long)N * t / s); }

/* perm[one-grid cell] = its point in block numbering, from the documented rule */
static pds_int *block_numbering(pds_int I, pds_int J, pds_int K, const int S[3]) {
  const pds_int N[3] = {I, J, K};
  pds_int      *perm = malloc(sizeof *perm * (size_t)(I * J * K)), next = 0;

  TEST_ASSERT(perm);
  for (int a = 0; a < S[0]; a++)
    for (int b = 0; b < S[1]; b++)
      for (int c = 0; c < S[2]; c++) {
        const int t[3] = {a, b, c};
        pds_int   lo[3], hi[3];

        for (int d = 0; d < 3; d++) lo[d] = start_of(N[d], S[d], t[d]), hi[d] = start_of(N[d], S[d], t[d] + 1);
        for (pds_int i = lo[0]; i < hi[0]; i++)
          for (pds_int j = lo[1]; j < hi[1]; j++)
            for (pds_int k = lo[2]; k < hi[2]; k++) perm[(i * J + j) * K + k] = next++;
      }
  TEST_ASSERT(next == I * J * K);
  return perm;
}

/* GMRES or Richardson with bilu0; the iterations, the solution into x */
static int solve(pds_ctx ctx, pds_mat A, pds_vec b, const char *method, pds_vec x) {
  pds_solver        s;
  pds_precond       P;
  pds_solver_result r;

  TEST_CALL(pds_vec_set(x, 0.0));
  TEST_CALL(pds_solver_create(ctx, method, &s));
  TEST_CALL(pds_precond_create(ctx, "bilu0", &P));
  TEST_CALL(pds_solver_set_operator(s, A));
  TEST_CALL(pds_solver_set_precond(s, P));
  TEST_CALL(pds_solver_set_tolerances(s, 1e-10, 0.0, 2000));
  TEST_CALL(pds_solver_solve(s, b, x));
  TEST_CALL(pds_solver_get_result(s, &r));
  if (r.reason <= 0) TEST_FAIL("%s + bilu0 did not converge (%s)", method, pds_reason_name(r.reason));
  pds_solver_destroy(&s), pds_precond_destroy(&P);
  return r.iterations;
}

static void check_system(pds_ctx ctx, int n, pds_int I, pds_int J, pds_int K, const int S[3], double cfl) {
  pds_channel_opts      o;
  pds_mat               A1, A2, C1, C2;
  pds_vec               b1, b2, x, y1, y2, z1, z2;
  const pds_size       *rp1, *rp2;
  const pds_int        *ci1, *ci2;
  const pds_real       *v1, *v2;
  pds_real             *a, *c;
  pds_int              *perm = block_numbering(I, J, K, S), nr, nb;
  const pds_int         np = I * J * K;
  int                   it1, it2, blocks;
  double                err = 0, scale = 0;

  pds_channel_opts_default(&o);
  o.n = n, o.ni = I, o.nj = J, o.nk = K, o.cfl = cfl;
  TEST_CALL(pds_channel_generate(ctx, &o, &A1, &b1));
  TEST_CALL(pds_channel_generate_decomposed(ctx, &o, S, &A2, &b2));
  TEST_CALL(pds_mat_stencil7_get_blocks(A2, &blocks));
  TEST_ASSERT(blocks == S[0] * S[1] * S[2]);
  /* every entry, renumbered, bit for bit */
  C1 = test_mat_csr_copy(A1), C2 = test_mat_csr_copy(A2);
  TEST_CALL(pds_mat_csr_get_arrays(C1, &rp1, &ci1, &v1));
  TEST_CALL(pds_mat_csr_get_arrays(C2, &rp2, &ci2, &v2));
  TEST_CALL(pds_mat_get_size(C2, &nr, NULL));
  TEST_ASSERT(nr == np * n && rp1[nr] == rp2[nr]);
  a = test_vec_values(b1), c = test_vec_values(b2);
  for (pds_int r = 0; r < np * n; r++) {
    const pds_int r2 = perm[r / n] * n + r % n;

    TEST_ASSERT(!memcmp(&a[r], &c[r2], sizeof *a));
    TEST_ASSERT(rp1[r + 1] - rp1[r] == rp2[r2 + 1] - rp2[r2]);
    for (pds_size q = rp1[r]; q < rp1[r + 1]; q++) {
      const pds_int c2 = perm[ci1[q] / n] * n + ci1[q] % n;
      pds_size      e  = rp2[r2];

      while (e < rp2[r2 + 1] && ci2[e] != c2) e++;
      TEST_ASSERT(e < rp2[r2 + 1] && !memcmp(&v1[q], &v2[e], sizeof *v1));
    }
  }
  /* the product, renumbered */
  TEST_CALL(pds_vec_duplicate(b1, &x));
  TEST_CALL(pds_vec_duplicate(b1, &y1));
  TEST_CALL(pds_vec_duplicate(b1, &y2));
  TEST_CALL(pds_vec_duplicate(b1, &z1));
  TEST_CALL(pds_vec_duplicate(b1, &z2));
  TEST_CALL(pds_vec_set_random(x, 5));
  TEST_CALL(pds_mat_apply(A1, x, y1));
  {
    pds_real *xp, *xr;

    TEST_CALL(pds_vec_get_array_read(x, PDS_MEM_HOST, (const pds_real **)&xr));
    xp = malloc(sizeof *xp * (size_t)(np * n));
    for (pds_int r = 0; r < np * n; r++) xp[perm[r / n] * n + r % n] = xr[r];
    TEST_CALL(pds_vec_restore_array_read(x, (const pds_real **)&xr));
    TEST_CALL(pds_vec_set_values(z2, xp, PDS_MEM_HOST));
    free(xp);
  }
  TEST_CALL(pds_mat_apply(A2, z2, y2));
  free(a), free(c);
  a = test_vec_values(y1), c = test_vec_values(y2);
  for (pds_int r = 0; r < np * n; r++) {
    err   = fmax(err, fabs(a[r] - c[perm[r / n] * n + r % n]));
    scale = fmax(scale, fabs(a[r]));
  }
  TEST_ASSERT(err <= 1e-13 * scale);
  /* the solution of the one grid, renumbered; block BILU: Richardson with the couplings in the residual */
  TEST_CALL(pds_mat_get_size(A2, &nb, NULL));
  solve(ctx, A1, b1, "gmres", z1);
  solve(ctx, A2, b2, "gmres", z2);
  free(a), free(c);
  a = test_vec_values(z1), c = test_vec_values(z2);
  err = 0, scale = 0;
  for (pds_int r = 0; r < np * n; r++) {
    err   = fmax(err, fabs(a[r] - c[perm[r / n] * n + r % n]));
    scale = fmax(scale, fabs(a[r]));
  }
  TEST_ASSERT(err <= 1e-7 * scale);
  if (cfl <= 1) {
    it1 = solve(ctx, A1, b1, "richardson", z1);
    it2 = solve(ctx, A2, b2, "richardson", z2);
    printf("richardson + bilu0, CFL %g: %d iterations on one grid, %d on %d blocks\n", cfl, it1, it2, blocks);
    TEST_ASSERT(blocks > 1 ? it2 > it1 : it2 == it1);
  }
  free(a), free(c);
  pds_vec_destroy(&x), pds_vec_destroy(&y1), pds_vec_destroy(&y2), pds_vec_destroy(&z1), pds_vec_destroy(&z2);
  pds_vec_destroy(&b1), pds_vec_destroy(&b2);
  pds_mat_destroy(&A1), pds_mat_destroy(&A2), pds_mat_destroy(&C1), pds_mat_destroy(&C2);
  free(perm);
}

static void check_errors(pds_ctx ctx) {
  pds_channel_opts o;
  pds_mat          A = NULL;
  pds_vec          b = NULL;
  const pds_int    dims[6] = {2, 2, 2, 2, 2, 2};
  pds_real         vals[7 * 16 * 4] = {0}, blk[4] = {1, 0, 0, 1};
  pds_int          row[1] = {3}, col[1] = {3};

  pds_channel_opts_default(&o);
  o.n = 4, o.ni = 4, o.nj = 3, o.nk = 2;
  TEST_ASSERT_ERR(ctx, pds_channel_generate_decomposed(ctx, &o, (const int[3]){0, 1, 1}, &A, &b), PDS_ERR_ARG, "split");
  TEST_ASSERT_ERR(ctx, pds_channel_generate_decomposed(ctx, &o, (const int[3]){1, 4, 1}, &A, &b), PDS_ERR_ARG, "split");
  TEST_ASSERT(!A && !b);
  for (int p = 0; p < 16; p++) vals[(7 * p + 3) * 4] = vals[(7 * p + 3) * 4 + 3] = 4;
  TEST_ASSERT_ERR(ctx, pds_mat_create_stencil7_coupled(ctx, 2, dims, 2, vals, PDS_MEM_HOST, 1, row, col, blk, &A),
                  PDS_ERR_ARG, "itself");
  col[0] = 16;
  TEST_ASSERT_ERR(ctx, pds_mat_create_stencil7_coupled(ctx, 2, dims, 2, vals, PDS_MEM_HOST, 1, row, col, blk, &A),
                  PDS_ERR_ARG, "points 0 .. 15");
  col[0] = 9, blk[1] = NAN;
  TEST_ASSERT_ERR(ctx, pds_mat_create_stencil7_coupled(ctx, 2, dims, 2, vals, PDS_MEM_HOST, 1, row, col, blk, &A),
                  PDS_ERR_ARG, "non-finite");
  TEST_ASSERT(!A);
}

int main(int argc, char **argv) {
  pds_ctx ctx = test_init(argc, argv);

  check_errors(ctx);
  check_system(ctx, 5, 7, 6, 5, (const int[3]){2, 3, 2}, 10); /* uneven blocks, cuts in every direction */
  check_system(ctx, 6, 8, 6, 4, (const int[3]){4, 1, 1}, 1);  /* slabs along the flow, as the paper's blocks */
  check_system(ctx, 4, 5, 4, 3, (const int[3]){1, 1, 1}, 1);  /* one block: no couplings */
  test_finalize(&ctx);
  return 0;
}
