/* tests/t201_mat.c: csr/bsr/shell matrices: products against a dense reference, transpose, triplets with
 * duplicates, CSR <-> BSR for bs 1..8, block-size detection, diagonals, copy modes, bad input. */
#include "test.h"

/* dense y = A x for checking */
static void dense_mv(int m, int n, const double *A, const double *x, double *y) {
  for (int i = 0; i < m; i++) {
    y[i] = 0;
    for (int j = 0; j < n; j++) y[i] += A[i * n + j] * x[j];
  }
}

static uint64_t rng = 42;
static double   urand(void) {
  rng = rng * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(rng >> 11) * 0x1.0p-53;
}

/* random sparse m x n with density d, as triplets and dense */
static int random_triplets(int m, int n, double dens, pds_int *ri, pds_int *cj, double *v, double *D) {
  int nnz = 0;

  memset(D, 0, sizeof(double) * m * n);
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++)
      if (urand() < dens) {
        ri[nnz] = i, cj[nnz] = j, v[nnz] = urand() - 0.5;
        D[i * n + j] += v[nnz++];
      }
  return nnz;
}

static void check_apply(pds_ctx ctx, pds_mat A, int m, int n, const double *D) {
  pds_vec x, y;
  double *xa = malloc(sizeof(double) * (n + 1)), *ya = malloc(sizeof(double) * (m + 1)), *yr = malloc(sizeof(double) * (m + 1));

  TEST_CALL(pds_vec_create(ctx, n, &x));
  TEST_CALL(pds_vec_create(ctx, m, &y));
  TEST_CALL(pds_vec_set_random(x, 7));
  TEST_CALL(pds_vec_get_values(x, xa, PDS_MEM_HOST));
  dense_mv(m, n, D, xa, yr);
  TEST_CALL(pds_mat_apply(A, x, y));
  TEST_CALL(pds_vec_get_values(y, ya, PDS_MEM_HOST));
  for (int i = 0; i < m; i++) TEST_ASSERT_NEAR(ya[i], yr[i], 1e-13, 1e-14);
  /* y = 2 A x - y  ->  y = A x */
  TEST_CALL(pds_mat_apply_add(A, 2.0, x, -1.0, y));
  TEST_CALL(pds_vec_get_values(y, ya, PDS_MEM_HOST));
  for (int i = 0; i < m; i++) TEST_ASSERT_NEAR(ya[i], yr[i], 1e-13, 1e-14);
  TEST_CALL(pds_vec_destroy(&x));
  TEST_CALL(pds_vec_destroy(&y));
  free(xa), free(ya), free(yr);
}

static int shell_double(void *user, pds_vec x, pds_vec y) {
  (void)user;
  return pds_vec_axpby(y, 2.0, x, 0.0);
}

int main(int argc, char **argv) {
  pds_ctx  ctx = test_init(argc, argv);
  enum { M = 24, N = 24 };
  pds_int  ri[M * N + 4], cj[M * N + 4];
  double   v[M * N + 4], D[M * N], DT[N * M];
  pds_mat  A, B, C, S;
  pds_int  nr, nc;
  pds_size nnz;
  int      bs, nt;

  nt = random_triplets(M, N, 0.3, ri, cj, v, D);
  /* duplicates are summed */
  ri[nt] = 3, cj[nt] = 5, v[nt] = 0.25, D[3 * N + 5] += 0.25, nt++;
  ri[nt] = 3, cj[nt] = 5, v[nt] = 0.5, D[3 * N + 5] += 0.5, nt++;
  TEST_CALL(pds_mat_create_csr_from_triplets(ctx, M, N, nt, ri, cj, v, &A));
  TEST_CALL(pds_mat_get_size(A, &nr, &nc));
  TEST_ASSERT(nr == M && nc == N);
  TEST_ASSERT(!strcmp(pds_mat_get_type(A), "csr"));
  check_apply(ctx, A, M, N, D);
  /* transpose */
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) DT[j * M + i] = D[i * N + j];
  {
    pds_vec x, y;
    double  xa[M], ya[N], yr[N];

    TEST_CALL(pds_vec_create(ctx, M, &x));
    TEST_CALL(pds_vec_create(ctx, N, &y));
    TEST_CALL(pds_vec_set_random(x, 3));
    TEST_CALL(pds_vec_get_values(x, xa, PDS_MEM_HOST));
    dense_mv(N, M, DT, xa, yr);
    TEST_CALL(pds_mat_apply_transpose(A, x, y));
    TEST_CALL(pds_vec_get_values(y, ya, PDS_MEM_HOST));
    for (int i = 0; i < N; i++) TEST_ASSERT_NEAR(ya[i], yr[i], 1e-13, 1e-14);
    /* wrong sizes and aliasing are refused with a message */
    TEST_ASSERT_ERR(ctx, pds_mat_apply(A, y, y), PDS_ERR_ARG, "same vector");
    TEST_CALL(pds_vec_destroy(&x));
    TEST_CALL(pds_vec_destroy(&y));
  }
  /* BSR for every block size that divides 24, and back */
  for (bs = 1; bs <= 8; bs++) {
    const pds_size *rp;
    const pds_int  *ci;
    const pds_real *vv;

    if (M % bs) continue;
    TEST_CALL(pds_mat_convert_to_bsr(A, bs, &B));
    TEST_ASSERT(!strcmp(pds_mat_get_type(B), "bsr"));
    TEST_CALL(pds_mat_get_block_size(B, &nt));
    TEST_ASSERT(nt == bs);
    check_apply(ctx, B, M, N, D);
    TEST_CALL(pds_mat_bsr_get_arrays(B, &rp, &ci, &vv));
    TEST_ASSERT(rp[0] == 0);
    TEST_CALL(pds_mat_convert_to_csr(B, &C));
    check_apply(ctx, C, M, N, D);
    {
      /* block diagonal of the bsr equals the dense blocks */
      double *blk = malloc(sizeof(double) * M * bs);

      TEST_CALL(pds_mat_get_block_diagonal(B, bs, blk));
      for (int b = 0; b < M / bs; b++)
        for (int r = 0; r < bs; r++)
          for (int c = 0; c < bs; c++) TEST_ASSERT(blk[(b * bs + r) * bs + c] == D[(b * bs + r) * N + b * bs + c]);
      TEST_CALL(pds_mat_get_block_diagonal(A, bs, blk));
      for (int b = 0; b < M / bs; b++)
        for (int r = 0; r < bs; r++)
          for (int c = 0; c < bs; c++) TEST_ASSERT(blk[(b * bs + r) * bs + c] == D[(b * bs + r) * N + b * bs + c]);
      free(blk);
    }
    TEST_CALL(pds_mat_destroy(&B));
    TEST_CALL(pds_mat_destroy(&C));
  }
  TEST_ASSERT_ERR(ctx, pds_mat_convert_to_bsr(A, 5, &B), PDS_ERR_SIZE, "does not divide");
  TEST_ASSERT(B == NULL);
  /* diagonal */
  {
    pds_vec d;
    double  da[M];

    TEST_CALL(pds_vec_create(ctx, M, &d));
    TEST_CALL(pds_mat_get_diagonal(A, d));
    TEST_CALL(pds_vec_get_values(d, da, PDS_MEM_HOST));
    for (int i = 0; i < M; i++) TEST_ASSERT(da[i] == D[i * N + i]);
    TEST_CALL(pds_mat_convert_to_bsr(A, 4, &B));
    TEST_CALL(pds_mat_get_diagonal(B, d));
    TEST_CALL(pds_vec_get_values(d, da, PDS_MEM_HOST));
    for (int i = 0; i < M; i++) TEST_ASSERT(da[i] == D[i * N + i]);
    TEST_CALL(pds_mat_destroy(&B));
    TEST_CALL(pds_vec_destroy(&d));
  }
  /* block-size detection: a matrix made of full 3x3 blocks is detected as bs 3; a scalar one as 1 */
  {
    pds_int  r3[9 * 12], c3[9 * 12];
    double   v3[9 * 12];
    int      k = 0;

    for (int b = 0; b < 4; b++) /* block tridiagonal-ish: blocks (b,b) and (b,(b+1)%4) */
      for (int t = 0; t < 2; t++)
        for (int r = 0; r < 3; r++)
          for (int c = 0; c < 3; c++) r3[k] = 3 * b + r, c3[k] = 3 * ((b + t) % 4) + c, v3[k++] = 1.0 + r + c;
    TEST_CALL(pds_mat_create_csr_from_triplets(ctx, 12, 12, k, r3, c3, v3, &C));
    TEST_CALL(pds_mat_detect_block_size(C, &bs));
    TEST_ASSERT(bs == 3);
    TEST_CALL(pds_mat_convert_to_bsr(C, 0, &B));
    TEST_CALL(pds_mat_get_block_size(B, &bs));
    TEST_ASSERT(bs == 3);
    TEST_CALL(pds_mat_get_nnz(B, &nnz));
    TEST_ASSERT(nnz == 72);
    TEST_CALL(pds_mat_destroy(&B));
    TEST_CALL(pds_mat_destroy(&C));
    TEST_CALL(pds_mat_detect_block_size(A, &bs));
    TEST_ASSERT(bs == 1);
  }
  /* copy modes and validation of CSR arrays */
  {
    pds_size rp[4] = {0, 2, 3, 4};
    pds_int  ci[4] = {0, 2, 1, 2};
    double   vv[4] = {1, 2, 3, 4};
    pds_size bad_rp[4] = {0, 2, 1, 4};
    pds_int  bad_ci[4] = {0, 3, 1, 2};
    double   nan_v[4] = {1, NAN, 3, 4};

    TEST_CALL(pds_mat_create_csr(ctx, 3, 3, rp, ci, vv, PDS_MEM_HOST, PDS_USE_POINTER, &C));
    TEST_CALL(pds_mat_get_nnz(C, &nnz));
    TEST_ASSERT(nnz == 4);
    TEST_CALL(pds_mat_destroy(&C));
    TEST_CALL(pds_mat_create_csr(ctx, 3, 3, rp, ci, vv, PDS_MEM_HOST, PDS_COPY_VALUES, &C));
    TEST_CALL(pds_mat_destroy(&C));
    {
      pds_size *orp = malloc(sizeof rp);
      pds_int  *oci = malloc(sizeof ci);
      double   *ov  = malloc(sizeof vv);

      memcpy(orp, rp, sizeof rp), memcpy(oci, ci, sizeof ci), memcpy(ov, vv, sizeof vv);
      TEST_CALL(pds_mat_create_csr(ctx, 3, 3, orp, oci, ov, PDS_MEM_HOST, PDS_OWN_POINTER, &C)); /* freed by C */
      TEST_CALL(pds_mat_destroy(&C));
    }
    TEST_ASSERT_ERR(ctx, pds_mat_create_csr(ctx, 3, 3, bad_rp, ci, vv, PDS_MEM_HOST, PDS_COPY_VALUES, &C), PDS_ERR_ARG,
                    "decreases at row 1");
    TEST_ASSERT_ERR(ctx, pds_mat_create_csr(ctx, 3, 3, rp, bad_ci, vv, PDS_MEM_HOST, PDS_COPY_VALUES, &C), PDS_ERR_ARG,
                    "out of range");
    TEST_ASSERT_ERR(ctx, pds_mat_create_csr(ctx, 3, 3, rp, ci, nan_v, PDS_MEM_HOST, PDS_COPY_VALUES, &C), PDS_ERR_ARG,
                    "not finite");
    TEST_ASSERT(C == NULL);
    {
      pds_int r1 = 0, c1 = 7;
      double  one = 1;

      TEST_ASSERT_ERR(ctx, pds_mat_create_csr_from_triplets(ctx, 3, 3, 1, &r1, &c1, &one, &C), PDS_ERR_ARG, "outside");
    }
  }
  /* empty matrices and empty rows */
  {
    pds_size rp0[1] = {0}, rp3[4] = {0, 0, 1, 1};
    pds_int  ci3[1] = {2};
    double   v3[1]  = {5};
    pds_vec  x, y;
    double   ya[3];

    TEST_CALL(pds_mat_create_csr(ctx, 0, 0, rp0, NULL, NULL, PDS_MEM_HOST, PDS_COPY_VALUES, &C));
    TEST_CALL(pds_vec_create(ctx, 0, &x));
    TEST_CALL(pds_vec_create(ctx, 0, &y));
    TEST_CALL(pds_mat_apply(C, x, y));
    TEST_CALL(pds_mat_destroy(&C));
    TEST_CALL(pds_vec_destroy(&x));
    TEST_CALL(pds_vec_destroy(&y));
    TEST_CALL(pds_mat_create_csr(ctx, 3, 3, rp3, ci3, v3, PDS_MEM_HOST, PDS_COPY_VALUES, &C));
    TEST_CALL(pds_vec_create(ctx, 3, &x));
    TEST_CALL(pds_vec_create(ctx, 3, &y));
    TEST_CALL(pds_vec_set(x, 2.0));
    TEST_CALL(pds_vec_set(y, NAN)); /* beta = 0 must not read y */
    TEST_CALL(pds_mat_apply(C, x, y));
    TEST_CALL(pds_vec_get_values(y, ya, PDS_MEM_HOST));
    TEST_ASSERT(ya[0] == 0 && ya[1] == 10 && ya[2] == 0);
    TEST_CALL(pds_mat_destroy(&C));
    TEST_CALL(pds_vec_destroy(&x));
    TEST_CALL(pds_vec_destroy(&y));
  }
  /* shell */
  {
    double I2[M * M];

    memset(I2, 0, sizeof I2);
    for (int i = 0; i < M; i++) I2[i * M + i] = 2;
    TEST_CALL(pds_mat_create_shell(ctx, M, M, NULL, shell_double, &S));
    check_apply(ctx, S, M, M, I2);
    {
      pds_vec d;

      TEST_CALL(pds_vec_create(ctx, M, &d));
      TEST_ASSERT_ERR(ctx, pds_mat_get_diagonal(S, d), PDS_ERR_UNSUPPORTED, "shell");
      TEST_CALL(pds_vec_destroy(&d));
    }
    TEST_CALL(pds_mat_destroy(&S));
  }
  /* reference counting */
  TEST_CALL(pds_mat_reference(A));
  B = A;
  TEST_CALL(pds_mat_destroy(&B));
  TEST_ASSERT(B == NULL);
  {
    FILE *f = tmpfile();

    TEST_ASSERT(f);
    TEST_CALL(pds_mat_view(A, f));
    fclose(f);
  }
  TEST_CALL(pds_mat_destroy(&A));
  test_finalize(&ctx);
  return 0;
}
