/* tests/t302_bilu0.c: the stencil7 matrix and its block ILU(0) (paper 000), on the backend of argv[1]:
 * - the product against the same matrix converted to BSR (an independent kernel), on grids with flat dimensions;
 *   stencil7 -> bsr -> csr -> stencil7 gives the same matrix; poisson7 (csr) reads as a stencil7 grid;
 * - the defining property of ILU(0), a truth independent of the recurrence: with M = LU assembled densely from
 *   M^-1 applied to the unit vectors, M equals A on A's block pattern (7-point, n x n blocks);
 * - M = A exactly when A has no upper blocks: one application solves A x = b;
 * - /cpu/omp's wavefronts (pipelined over j-rows, and by hyperplanes) give /cpu/ref's bits on grids above the
 *   threads' threshold, and name the first singular block in natural order as ref does;
 * - Richardson with bilu0 (the paper's defect correction) and GMRES reach 1e-10 on a diagonally dominant system in
 *   /cpu/ref's iteration counts (at most one apart);
 * - 40 grids of mixed sizes in one matrix: product and bilu0 bitwise those of each grid alone and of /cpu/ref,
 *   a singular block named with its grid;
 * - bad input: n out of range, an out-of-grid block that is not zero, a non-finite value, an empty dimension,
 *   bilu0 on a csr matrix, a singular factored block (PDS_ERR_ZERO_PIVOT naming the grid point).
 * - every variant (pds_precond_bilu0_set_variant; on /gpu/cuda hyperplane, graph, lanes, recycle, syncfree, block, tiles,
 *   auto; lanes also with its factorization's element kernel off, and mixed with its lanes kernel) gives /cpu/ref's
 *   bits, for n = 1 .. 8, on one grid and on 40 mixed grids, applied twice and after a
 *   refactorization (the same bits each time); float factors within 1e-3 of ref's double (relative to its largest
 *   entry) and, on the CPU backends, /cpu/ref's float bits; a singular block named by every variant; CPU backends
 *   refuse a GPU variant, an unknown name is refused. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "test.h"

static unsigned long long g_seed = 88172645463325252ull;
static double rnd(void) { /* [-1, 1) */
  g_seed ^= g_seed << 13, g_seed ^= g_seed >> 7, g_seed ^= g_seed << 17;
  return 2.0 * (double)(g_seed >> 11) * 0x1.0p-53 - 1.0;
}
static int inside(int I, int J, int K, int i, int j, int k, int a) {
  switch (a) {
  case 0: return k > 0;
  case 1: return j > 0;
  case 2: return i > 0;
  case 4: return i + 1 < I;
  case 5: return j + 1 < J;
  case 6: return k + 1 < K;
  default: return 1;
  }
}
/* random blocks, diagonally dominant by dom (the centre's diagonal), upper arms off when lower_only */
static double *make_vals(int I, int J, int K, int n, double dom, int lower_only) {
  size_t  np = (size_t)I * J * K, nn = (size_t)n * n;
  double *v  = calloc(np * 7 * nn, sizeof *v);
  size_t  p  = 0;

  TEST_ASSERT(v);
  for (int i = 0; i < I; i++)
    for (int j = 0; j < J; j++)
      for (int k = 0; k < K; k++, p++)
        for (int a = 0; a < 7; a++) {
          if (!inside(I, J, K, i, j, k, a) || (lower_only && a > 3)) continue;
          for (size_t e = 0; e < nn; e++) v[(p * 7 + a) * nn + e] = rnd();
          if (a == 3)
            for (int u = 0; u < n; u++) v[(p * 7 + 3) * nn + (size_t)u * n + u] += dom * n;
        }
  return v;
}
static pds_mat make(pds_ctx ctx, int I, int J, int K, int n, double dom, int lower_only) {
  double *v = make_vals(I, J, K, n, dom, lower_only);
  pds_mat A;

  TEST_CALL(pds_mat_create_stencil7(ctx, I, J, K, n, v, PDS_MEM_HOST, &A));
  free(v);
  return A;
}
static pds_vec rand_vec(pds_ctx ctx, pds_size n) {
  pds_vec  x;
  double  *h = malloc(sizeof *h * (size_t)n);

  TEST_ASSERT(h);
  for (pds_size i = 0; i < n; i++) h[i] = rnd();
  TEST_CALL(pds_vec_create(ctx, n, &x));
  TEST_CALL(pds_vec_set_values(x, h, PDS_MEM_HOST));
  free(h);
  return x;
}
static double *get(pds_vec x, pds_size n) {
  double *h = malloc(sizeof *h * (size_t)n);

  TEST_ASSERT(h);
  TEST_CALL(pds_vec_get_values(x, h, PDS_MEM_HOST));
  return h;
}

/* y = A x as stencil7 and as its BSR conversion */
static void check_product(pds_ctx ctx, int I, int J, int K, int n) {
  pds_mat  A = make(ctx, I, J, K, n, 1.0, 0), B;
  pds_size N = (pds_size)I * J * K * n;
  pds_vec  x = rand_vec(ctx, N), y, z;
  double  *a, *b;

  TEST_CALL(pds_vec_duplicate(x, &y));
  TEST_CALL(pds_vec_duplicate(x, &z));
  TEST_CALL(pds_mat_convert_to_bsr(A, 0, &B));
  TEST_ASSERT(!strcmp(pds_mat_get_type(B), "bsr"));
  TEST_CALL(pds_mat_apply(A, x, y));
  TEST_CALL(pds_mat_apply(B, x, z));
  a = get(y, N), b = get(z, N);
  for (pds_size i = 0; i < N; i++) TEST_ASSERT_NEAR(a[i], b[i], 1e-13, 1e-13);
  free(a), free(b);
  TEST_CALL(pds_vec_destroy(&x));
  TEST_CALL(pds_vec_destroy(&y));
  TEST_CALL(pds_vec_destroy(&z));
  TEST_CALL(pds_mat_destroy(&A));
  TEST_CALL(pds_mat_destroy(&B));
}

/* dense inverse by Gauss-Jordan with partial pivoting (m x m, in place); 0 on success */
static int dense_invert(int m, double *a) {
  int *piv = malloc(sizeof *piv * (size_t)m);

  TEST_ASSERT(piv);
  for (int c = 0; c < m; c++) {
    int r = c;

    for (int i = c + 1; i < m; i++)
      if (fabs(a[(size_t)i * m + c]) > fabs(a[(size_t)r * m + c])) r = i;
    if (a[(size_t)r * m + c] == 0) return free(piv), -1;
    piv[c] = r;
    if (r != c)
      for (int j = 0; j < m; j++) {
        double t = a[(size_t)r * m + j];

        a[(size_t)r * m + j] = a[(size_t)c * m + j], a[(size_t)c * m + j] = t;
      }
    double d = 1.0 / a[(size_t)c * m + c];

    a[(size_t)c * m + c] = 1.0;
    for (int j = 0; j < m; j++) a[(size_t)c * m + j] *= d;
    for (int i = 0; i < m; i++)
      if (i != c) {
        double f = a[(size_t)i * m + c];

        a[(size_t)i * m + c] = 0.0;
        for (int j = 0; j < m; j++) a[(size_t)i * m + j] -= f * a[(size_t)c * m + j];
      }
  }
  for (int c = m - 1; c >= 0; c--)
    if (piv[c] != c)
      for (int i = 0; i < m; i++) {
        double t = a[(size_t)i * m + c];

        a[(size_t)i * m + c] = a[(size_t)i * m + piv[c]], a[(size_t)i * m + piv[c]] = t;
      }
  free(piv);
  return 0;
}

/* M from M^-1 e_c, then M == A on A's block pattern */
static void check_ilu_property(pds_ctx ctx, int I, int J, int K, int n) {
  pds_mat     A = make(ctx, I, J, K, n, 0.6, 0);
  pds_precond P;
  const int   m = I * J * K * n;
  double     *Mi = malloc(sizeof *Mi * (size_t)m * m), *e = calloc((size_t)m, sizeof *e), *Ad;
  pds_vec     x, y;
  pds_mat     B, C;
  const pds_size *rp;
  const pds_int  *ci;
  const pds_real *cv;
  pds_int         nr, nc;

  TEST_ASSERT(Mi && e);
  TEST_CALL(pds_precond_create(ctx, "bilu0", &P));
  TEST_CALL(pds_precond_set_operator(P, A));
  TEST_CALL(pds_precond_setup(P));
  TEST_CALL(pds_vec_create(ctx, m, &x));
  TEST_CALL(pds_vec_create(ctx, m, &y));
  for (int c = 0; c < m; c++) { /* column c of M^-1 */
    double *col;

    e[c] = 1.0;
    TEST_CALL(pds_vec_set_values(x, e, PDS_MEM_HOST));
    e[c] = 0.0;
    TEST_CALL(pds_precond_apply(P, x, y));
    col = get(y, m);
    for (int r = 0; r < m; r++) Mi[(size_t)r * m + c] = col[r];
    free(col);
  }
  TEST_ASSERT(!dense_invert(m, Mi)); /* now M */
  /* A densely, through csr (an independent path), and its block pattern */
  TEST_CALL(pds_mat_convert_to_bsr(A, n, &B));
  TEST_CALL(pds_mat_convert_to_csr(B, &C));
  TEST_CALL(pds_mat_get_size(C, &nr, &nc));
  TEST_ASSERT(nr == m && nc == m);
  TEST_CALL(pds_mat_csr_get_arrays(C, &rp, &ci, &cv));
  Ad = calloc((size_t)m * m, sizeof *Ad);
  TEST_ASSERT(Ad);
  for (int r = 0; r < m; r++)
    for (pds_size q = rp[r]; q < rp[r + 1]; q++) Ad[(size_t)r * m + ci[q]] = cv[q];
  for (int r = 0; r < m; r++)
    for (pds_size q = rp[r]; q < rp[r + 1]; q++) /* every entry of a stored block is on the pattern */
      TEST_ASSERT_NEAR(Mi[(size_t)r * m + ci[q]], Ad[(size_t)r * m + ci[q]], 1e-10, 1e-10);
  free(Ad), free(Mi), free(e);
  TEST_CALL(pds_vec_destroy(&x));
  TEST_CALL(pds_vec_destroy(&y));
  TEST_CALL(pds_precond_destroy(&P));
  TEST_CALL(pds_mat_destroy(&A));
  TEST_CALL(pds_mat_destroy(&B));
  TEST_CALL(pds_mat_destroy(&C));
}

/* no upper blocks: M = A, so x = M^-1 b solves A x = b */
static void check_exact_lower(pds_ctx ctx) {
  pds_mat     A = make(ctx, 5, 4, 6, 3, 1.0, 1);
  pds_precond P;
  pds_size    N = 5 * 4 * 6 * 3;
  pds_vec     b = rand_vec(ctx, N), x, r;
  double      rn, bn;

  TEST_CALL(pds_vec_duplicate(b, &x));
  TEST_CALL(pds_vec_duplicate(b, &r));
  TEST_CALL(pds_precond_create(ctx, "bilu0", &P));
  TEST_CALL(pds_precond_set_operator(P, A));
  TEST_CALL(pds_precond_setup(P));
  TEST_CALL(pds_precond_apply(P, b, x));
  TEST_CALL(pds_mat_residual(A, b, x, r));
  TEST_CALL(pds_vec_norm2(r, &rn));
  TEST_CALL(pds_vec_norm2(b, &bn));
  if (!(rn <= 1e-12 * bn)) TEST_FAIL("lower block-triangular A: ||b - A M^-1 b|| = %g (||b|| %g)", rn, bn);
  TEST_CALL(pds_vec_destroy(&b));
  TEST_CALL(pds_vec_destroy(&x));
  TEST_CALL(pds_vec_destroy(&r));
  TEST_CALL(pds_precond_destroy(&P));
  TEST_CALL(pds_mat_destroy(&A));
}

/* the paper's correction iteration, and GMRES with bilu0: converged, with /cpu/ref's iteration counts (the
   preconditioner gives ref's bits on every backend; only the Krylov reductions' order differs: at most one
   iteration apart) */
static int solve_its(pds_ctx ctx, const char *method, const double *v, const double *bh) {
  const int         I = 9, J = 8, K = 7, n = 4;
  const pds_size    N = (pds_size)I * J * K * n;
  pds_mat           A;
  pds_vec           b, x;
  pds_solver        s;
  pds_precond       P;
  pds_solver_result res;

  TEST_CALL(pds_mat_create_stencil7(ctx, I, J, K, n, v, PDS_MEM_HOST, &A));
  TEST_CALL(pds_vec_create(ctx, N, &b));
  TEST_CALL(pds_vec_set_values(b, bh, PDS_MEM_HOST));
  TEST_CALL(pds_vec_duplicate(b, &x));
  TEST_CALL(pds_vec_set(x, 0.0));
  TEST_CALL(pds_solver_create(ctx, method, &s));
  TEST_CALL(pds_precond_create(ctx, "bilu0", &P));
  TEST_CALL(pds_solver_set_operator(s, A));
  TEST_CALL(pds_solver_set_precond(s, P));
  TEST_CALL(pds_solver_set_tolerances(s, 1e-10, 0.0, 200));
  TEST_CALL(pds_solver_solve(s, b, x));
  TEST_CALL(pds_solver_get_result(s, &res));
  if (res.reason <= 0 || res.iterations > 60)
    TEST_FAIL("%s + bilu0 on %s: reason %d after %d iterations", method, pds_ctx_get_backend(ctx), res.reason,
              res.iterations);
  TEST_CALL(pds_solver_destroy(&s));
  TEST_CALL(pds_precond_destroy(&P));
  TEST_CALL(pds_vec_destroy(&b));
  TEST_CALL(pds_vec_destroy(&x));
  TEST_CALL(pds_mat_destroy(&A));
  return res.iterations;
}
static void check_richardson(pds_ctx ctx) {
  double *v  = make_vals(9, 8, 7, 4, 2.0, 0), *bh = malloc(sizeof *bh * 9 * 8 * 7 * 4);
  pds_ctx r;

  TEST_ASSERT(bh);
  for (int i = 0; i < 9 * 8 * 7 * 4; i++) bh[i] = rnd();
  TEST_CALL(pds_ctx_create("/cpu/ref", &r));
  for (int m = 0; m < 2; m++) {
    const char *method = m ? "gmres" : "richardson";
    const int   its = solve_its(ctx, method, v, bh), ref = solve_its(r, method, v, bh);

    if (abs(its - ref) > 1)
      TEST_FAIL("%s + bilu0: %d iterations on %s, %d on /cpu/ref", method, its, pds_ctx_get_backend(ctx), ref);
  }
  TEST_CALL(pds_ctx_destroy(&r));
  free(v), free(bh);
}

/* /cpu/omp's wavefronts against /cpu/ref's natural order, bit for bit (product, factors through a solve, with double
   and with float factors), on an I x J x K grid above the threads' threshold; with a singular block at (2, min(12, J - 1), 0) and another one later
   in natural order at (5, 0, 3) (another thread's rows), /cpu/omp names the first one, as /cpu/ref does */
static void check_omp_bits(int I, int J, int K, int n) {
  pds_ctx     c[2];
  const char *be[2] = {"/cpu/ref", "/cpu/omp"};
  double     *out[2][3]; /* product, bilu0, bilu0 with float factors */
  pds_size    N = (pds_size)I * J * K * n;
  double     *v = make_vals(I, J, K, n, 0.7, 0), *bh = malloc(sizeof *bh * (size_t)N);
  char        where[64];

  TEST_ASSERT(bh);
  for (pds_size i = 0; i < N; i++) bh[i] = rnd();
  if (pds_ctx_create(be[1], &c[1])) { /* no /cpu/omp in this build */
    free(v), free(bh);
    return;
  }
  TEST_CALL(pds_ctx_destroy(&c[1]));
  for (int t = 0; t < 2; t++) {
    pds_mat     A;
    pds_precond P;
    pds_vec     b, y;

    TEST_CALL(pds_ctx_create(be[t], &c[t]));
    TEST_CALL(pds_mat_create_stencil7(c[t], I, J, K, n, v, PDS_MEM_HOST, &A));
    TEST_CALL(pds_vec_create(c[t], N, &b));
    TEST_CALL(pds_vec_create(c[t], N, &y));
    TEST_CALL(pds_vec_set_values(b, bh, PDS_MEM_HOST));
    TEST_CALL(pds_mat_apply(A, b, y));
    out[t][0] = get(y, N);
    TEST_CALL(pds_precond_create(c[t], "bilu0", &P));
    TEST_CALL(pds_precond_set_operator(P, A));
    TEST_CALL(pds_precond_setup(P));
    TEST_CALL(pds_precond_apply(P, b, y));
    out[t][1] = get(y, N);
    TEST_CALL(pds_precond_bilu0_set_factor_precision(P, PDS_PRECISION_SINGLE));
    TEST_CALL(pds_precond_setup(P));
    TEST_CALL(pds_precond_apply(P, b, y));
    out[t][2] = get(y, N);
    TEST_CALL(pds_precond_destroy(&P));
    TEST_CALL(pds_vec_destroy(&b));
    TEST_CALL(pds_vec_destroy(&y));
    TEST_CALL(pds_mat_destroy(&A));
  }
  if (memcmp(out[0][0], out[1][0], sizeof(double) * (size_t)N))
    TEST_FAIL("stencil7 product on %dx%dx%d: omp differs from ref", I, J, K);
  if (memcmp(out[0][1], out[1][1], sizeof(double) * (size_t)N))
    TEST_FAIL("bilu0 on %dx%dx%d: omp differs from ref", I, J, K);
  if (memcmp(out[0][2], out[1][2], sizeof(double) * (size_t)N))
    TEST_FAIL("bilu0 with float factors on %dx%dx%d: omp differs from ref", I, J, K);
  { /* two singular factored blocks: delta all ones, no lower arms */
    const int pt[2][3] = {{5, 0, 3}, {2, J - 1 < 12 ? J - 1 : 12, 0}};

    for (int q = 0; q < 2; q++) {
      const pds_size p = ((pds_size)pt[q][0] * J + pt[q][1]) * K + pt[q][2];

      for (int a = 0; a < 4; a++)
        for (int e = 0; e < n * n; e++) v[(p * 7 + a) * n * n + e] = a == 3 ? 1.0 : 0.0;
    }
    snprintf(where, sizeof where, "grid point (2, %d, 0)", pt[1][1]);
  }
  for (int t = 0; t < 2; t++) {
    pds_mat     A;
    pds_precond P;

    TEST_CALL(pds_mat_create_stencil7(c[t], I, J, K, n, v, PDS_MEM_HOST, &A));
    TEST_CALL(pds_precond_create(c[t], "bilu0", &P));
    TEST_CALL(pds_precond_set_operator(P, A));
    TEST_ASSERT_ERR(c[t], pds_precond_setup(P), PDS_ERR_ZERO_PIVOT, where);
    TEST_CALL(pds_precond_destroy(&P));
    TEST_CALL(pds_mat_destroy(&A));
    TEST_CALL(pds_ctx_destroy(&c[t]));
  }
  for (int t = 0; t < 2; t++) free(out[t][0]), free(out[t][1]), free(out[t][2]);
  free(v), free(bh);
}

/* stencil7 -> bsr -> csr -> stencil7 gives the same matrix (the same product bits); poisson7 (csr) is a 7-point
   grid of one unknown per point and converts; a wrong grid or size is refused */
static void check_roundtrip(pds_ctx ctx) {
  pds_mat     A = make(ctx, 3, 4, 5, 3, 1.0, 0), B, C, D;
  pds_size    N = 3 * 4 * 5 * 3;
  pds_vec     x = rand_vec(ctx, N), y, z;
  double     *a, *b;
  pds_problem p;
  pds_int     dims[3] = {4, 3, 5};

  TEST_CALL(pds_vec_duplicate(x, &y));
  TEST_CALL(pds_vec_duplicate(x, &z));
  TEST_CALL(pds_mat_convert_to_bsr(A, 3, &B));
  TEST_CALL(pds_mat_convert_to_csr(B, &C));
  TEST_CALL(pds_mat_convert_to_stencil7(C, 3, 4, 5, 3, &D));
  TEST_ASSERT(!strcmp(pds_mat_get_type(D), "stencil7"));
  TEST_CALL(pds_mat_apply(A, x, y));
  TEST_CALL(pds_mat_apply(D, x, z));
  a = get(y, N), b = get(z, N);
  TEST_ASSERT(!memcmp(a, b, sizeof(double) * (size_t)N));
  free(a), free(b);
  TEST_CALL(pds_mat_destroy(&D));
  TEST_CALL(pds_mat_convert_to_stencil7(B, 3, 4, 5, 3, &D)); /* from bsr too */
  TEST_CALL(pds_mat_destroy(&D));
  TEST_ASSERT_ERR(ctx, pds_mat_convert_to_stencil7(C, 5, 4, 3, 3, &D), PDS_ERR_ARG,
                  "not one of its 7-point neighbours");
  TEST_ASSERT_ERR(ctx, pds_mat_convert_to_stencil7(C, 3, 4, 6, 3, &D), PDS_ERR_SIZE, "grid of 3 unknowns");
  TEST_CALL(pds_problem_generate(ctx, "poisson7", dims, 3, &p));
  TEST_CALL(pds_mat_convert_to_stencil7(p.A, 5, 3, 4, 1, &D)); /* {nx, ny, nz}, x fastest: (I, J, K) = (nz, ny, nx) */
  TEST_CALL(pds_mat_destroy(&D));
  TEST_CALL(pds_problem_destroy(&p));
  TEST_CALL(pds_vec_destroy(&x));
  TEST_CALL(pds_vec_destroy(&y));
  TEST_CALL(pds_vec_destroy(&z));
  TEST_CALL(pds_mat_destroy(&A));
  TEST_CALL(pds_mat_destroy(&B));
  TEST_CALL(pds_mat_destroy(&C));
}

/* several grids in one matrix: the product and bilu0 equal each grid's alone, bit for bit; on /cpu/omp (many small
   grids: shared out over the threads) equal to /cpu/ref's; a singular block is named with its grid */
static void multi_run(pds_ctx ctx, int nb, const pds_int *dims, int n, const double *v, const double *bh,
                      double **yprod, double **yprec) {
  pds_mat     A;
  pds_precond P;
  pds_vec     b, y;
  pds_size    N = 0;

  for (int q = 0; q < nb; q++) N += (pds_size)dims[3 * q] * dims[3 * q + 1] * dims[3 * q + 2] * n;
  TEST_CALL(pds_mat_create_stencil7_blocks(ctx, nb, dims, n, v, PDS_MEM_HOST, &A));
  TEST_CALL(pds_vec_create(ctx, N, &b));
  TEST_CALL(pds_vec_create(ctx, N, &y));
  TEST_CALL(pds_vec_set_values(b, bh, PDS_MEM_HOST));
  TEST_CALL(pds_mat_apply(A, b, y));
  *yprod = get(y, N);
  TEST_CALL(pds_precond_create(ctx, "bilu0", &P));
  TEST_CALL(pds_precond_set_operator(P, A));
  TEST_CALL(pds_precond_setup(P));
  TEST_CALL(pds_precond_apply(P, b, y));
  *yprec = get(y, N);
  TEST_CALL(pds_precond_destroy(&P));
  TEST_CALL(pds_vec_destroy(&b));
  TEST_CALL(pds_vec_destroy(&y));
  TEST_CALL(pds_mat_destroy(&A));
}
static void check_multiblock(pds_ctx ctx) {
  enum { NB = 40 };
  const int n = 3;
  pds_int   dims[3 * NB];
  pds_size  np = 0, off = 0, pts[NB];
  double   *v, *bh, *yp, *yq;

  for (int q = 0; q < NB; q++) { /* mixed sizes, flat ones included */
    dims[3 * q] = 1 + q % 5, dims[3 * q + 1] = 2 + q % 3, dims[3 * q + 2] = 1 + (q * 7) % 6;
    pts[q] = (pds_size)dims[3 * q] * dims[3 * q + 1] * dims[3 * q + 2];
    np += pts[q];
  }
  v  = malloc(sizeof *v * (size_t)np * 7 * n * n);
  bh = malloc(sizeof *bh * (size_t)np * n);
  TEST_ASSERT(v && bh);
  for (int q = 0; q < NB; q++) {
    double *g = make_vals(dims[3 * q], dims[3 * q + 1], dims[3 * q + 2], n, 0.7, 0);

    memcpy(v + off * 7 * n * n, g, sizeof *v * (size_t)pts[q] * 7 * n * n);
    free(g);
    off += pts[q];
  }
  for (pds_size i = 0; i < np * n; i++) bh[i] = rnd();
  multi_run(ctx, NB, dims, n, v, bh, &yp, &yq);
  off = 0;
  for (int q = 0; q < NB; q++) { /* each grid alone */
    double *zp, *zq;

    multi_run(ctx, 1, dims + 3 * q, n, v + off * 7 * n * n, bh + off * n, &zp, &zq);
    if (memcmp(zp, yp + off * n, sizeof *zp * (size_t)pts[q] * n) ||
        memcmp(zq, yq + off * n, sizeof *zq * (size_t)pts[q] * n))
      TEST_FAIL("grid %d of %d: the multi-block matrix differs from the grid alone", q, NB);
    free(zp), free(zq);
    off += pts[q];
  }
  { /* against /cpu/ref */
    pds_ctx r;
    double *rp, *rq;

    TEST_CALL(pds_ctx_create("/cpu/ref", &r));
    multi_run(r, NB, dims, n, v, bh, &rp, &rq);
    if (memcmp(rp, yp, sizeof *rp * (size_t)np * n) || memcmp(rq, yq, sizeof *rq * (size_t)np * n))
      TEST_FAIL("multi-block: %s differs from /cpu/ref", pds_ctx_get_backend(ctx));
    free(rp), free(rq);
    TEST_CALL(pds_ctx_destroy(&r));
  }
  { /* a singular centre in grid 3 with no lower coupling into its first point */
    pds_mat     A;
    pds_precond P;
    pds_size    f = pts[0] + pts[1] + pts[2];

    for (int a = 0; a < 4; a++)
      for (int e = 0; e < n * n; e++) v[(f * 7 + a) * n * n + e] = a == 3 ? 1.0 : 0.0;
    TEST_CALL(pds_mat_create_stencil7_blocks(ctx, NB, dims, n, v, PDS_MEM_HOST, &A));
    TEST_CALL(pds_precond_create(ctx, "bilu0", &P));
    TEST_CALL(pds_precond_set_operator(P, A));
    TEST_ASSERT_ERR(ctx, pds_precond_setup(P), PDS_ERR_ZERO_PIVOT, "grid point (0, 0, 0) of grid 3");
    TEST_CALL(pds_precond_destroy(&P));
    TEST_CALL(pds_mat_destroy(&A));
  }
  free(yp), free(yq), free(v), free(bh);
}

/* one variant (and factor precision) on ctx: y = M^-1 b, applied twice and after a second setup, which must agree */
static double *variant_run(pds_ctx ctx, const char *variant, int single, int nb, const pds_int *dims, int n,
                           const double *v, const double *bh, pds_size N) {
  pds_mat     A;
  pds_precond P;
  pds_vec     b, y;
  double     *y1, *y2;

  TEST_CALL(pds_mat_create_stencil7_blocks(ctx, nb, dims, n, v, PDS_MEM_HOST, &A));
  TEST_CALL(pds_vec_create(ctx, N, &b));
  TEST_CALL(pds_vec_create(ctx, N, &y));
  TEST_CALL(pds_vec_set_values(b, bh, PDS_MEM_HOST));
  TEST_CALL(pds_precond_create(ctx, "bilu0", &P));
  TEST_CALL(pds_precond_bilu0_set_variant(P, variant));
  TEST_CALL(pds_precond_bilu0_set_factor_precision(P, single ? PDS_PRECISION_SINGLE : PDS_PRECISION_DOUBLE));
  TEST_CALL(pds_precond_set_operator(P, A));
  TEST_CALL(pds_precond_setup(P));
  TEST_CALL(pds_precond_apply(P, b, y));
  y1 = get(y, N);
  TEST_CALL(pds_vec_set(y, 0.0));
  TEST_CALL(pds_precond_setup(P));
  TEST_CALL(pds_precond_apply(P, b, y));
  TEST_CALL(pds_precond_apply(P, b, y));
  y2 = get(y, N);
  if (memcmp(y1, y2, sizeof *y1 * (size_t)N))
    TEST_FAIL("bilu0 variant %s%s, n = %d, %d grid(s): a repeated application gave other bits", variant,
              single ? " (float factors)" : "", n, nb);
  free(y2);
  TEST_CALL(pds_precond_destroy(&P));
  TEST_CALL(pds_vec_destroy(&b));
  TEST_CALL(pds_vec_destroy(&y));
  TEST_CALL(pds_mat_destroy(&A));
  return y1;
}

static void check_variants(pds_ctx ctx) {
  static const char *const gpu[] = {"hyperplane", "graph", "lanes", "recycle", "syncfree", "block", "tiles", "pipe",
                                    "auto"};
  const int  cuda = !strcmp(pds_ctx_get_backend(ctx), "/gpu/cuda");
  const int  nv   = cuda ? (int)(sizeof gpu / sizeof gpu[0]) : 1;
  pds_ctx    r;

  TEST_CALL(pds_ctx_create("/cpu/ref", &r));
  for (int n = 1; n <= 8; n++)
    for (int multi = 0; multi < 2; multi++) {
      if (getenv("PDS_TEST_SMALL") && n != 1 && n != 4 && n != 6) continue; /* under compute-sanitizer */
      enum { NB = 40 };
      pds_int  dims[3 * NB];
      int      nb = multi ? NB : 1;
      pds_size np = 0, off = 0;
      double  *v, *bh, *ref;

      if (multi)
        for (int q = 0; q < NB; q++)
          dims[3 * q] = 1 + q % 5, dims[3 * q + 1] = 2 + (q + n) % 4, dims[3 * q + 2] = 1 + (q * 7) % 9;
      else dims[0] = 9 + n % 3, dims[1] = 8, dims[2] = 10 - n % 2;
      for (int q = 0; q < nb; q++) np += (pds_size)dims[3 * q] * dims[3 * q + 1] * dims[3 * q + 2];
      v  = malloc(sizeof *v * (size_t)np * 7 * n * n);
      bh = malloc(sizeof *bh * (size_t)np * n);
      TEST_ASSERT(v && bh);
      for (int q = 0; q < nb; q++) {
        const pds_size pts = (pds_size)dims[3 * q] * dims[3 * q + 1] * dims[3 * q + 2];
        double        *g   = make_vals(dims[3 * q], dims[3 * q + 1], dims[3 * q + 2], n, 0.6, 0);

        memcpy(v + off * 7 * n * n, g, sizeof *v * (size_t)pts * 7 * n * n);
        free(g);
        off += pts;
      }
      for (pds_size i = 0; i < np * n; i++) bh[i] = rnd();
      ref = variant_run(r, "auto", 0, nb, dims, n, v, bh, np * n);
      for (int t = 0; t < nv; t++) {
        const char *name = cuda ? gpu[t] : "auto";
        /* lanes factors planes of at most PDS_BILU0_ELEM_MAX points by its element kernel, wider ones by its
           lanes kernel, and (n >= 5) planes of more than PDS_BILU0_LANES_WIDE blocks by the lanes kernel bounded to
           128 registers: these grids' planes are narrow, so lanes also runs with every plane on the lanes kernel
           (0), with the two mixed in one factorization (20), and with every plane on the bounded kernel (0, 0).
           pipe runs its default tiles and tiles of 1 line (the most crossings), 2 (and an L2 prefetch), 3 without
           the register prefetch, and 9 (n >= 5: more lines than the block's groups, taken in turn) */
        static const char *const lanes_env[][2] = {{NULL, NULL}, {"PDS_BILU0_ELEM_MAX=0", NULL},
                                                   {"PDS_BILU0_ELEM_MAX=20", NULL},
                                                   {"PDS_BILU0_ELEM_MAX=0", "PDS_BILU0_LANES_WIDE=0"}};
        static const char *const pipe_env[][2]  = {{NULL, NULL}, {"PDS_BILU0_PIPE_T=1", NULL},
                                                   {"PDS_BILU0_PIPE_T=2", "PDS_BILU0_PIPE_L2=3"},
                                                   {"PDS_BILU0_PIPE_T=3", "PDS_BILU0_PIPE_PF=0"},
                                                   {"PDS_BILU0_PIPE_T=9", NULL}};
        const int lanes = cuda && !strcmp(name, "lanes"), pipe = cuda && !strcmp(name, "pipe");
        const int ne    = lanes ? 4 : pipe ? 5 : 1;
        double   *y;

        for (int m = 0; m < ne; m++) {
          const char *const *env = lanes ? lanes_env[m] : pipe ? pipe_env[m] : lanes_env[0];
          char               what[96] = "";

          for (int e = 0; e < 2 && env[e]; e++) {
            char        kv[64];
            const char *eq = strchr(env[e], '=');

            snprintf(kv, sizeof kv, "%.*s", (int)(eq - env[e]), env[e]);
            setenv(kv, eq + 1, 1);
            snprintf(what + strlen(what), sizeof what - strlen(what), ", %s", env[e]);
          }
          y = variant_run(ctx, name, 0, nb, dims, n, v, bh, np * n);
          for (int e = 0; e < 2 && env[e]; e++) {
            char kv[64];

            snprintf(kv, sizeof kv, "%.*s", (int)(strchr(env[e], '=') - env[e]), env[e]);
            unsetenv(kv);
          }
          if (memcmp(y, ref, sizeof *y * (size_t)np * n)) {
            pds_size i = 0;

            while (y[i] == ref[i]) i++;
            TEST_FAIL("bilu0 variant %s%s, n = %d, %d grid(s) on %s: entry %" PDS_SIZE_FMT " is %.17g, "
                      "/cpu/ref %.17g", name, what, n, nb, pds_ctx_get_backend(ctx), i, y[i], ref[i]);
          }
          free(y);
        }
        if (n == 3 || n == 6) { /* float factors: near ref's double (these weakly dominant matrices amplify the
                                      factors' rounding, 6e-8, by up to ~1e3: bound 1e-3); on the CPU backends
                                      /cpu/ref's float bits */
          double amax = 0, dmax = 0;

          y = variant_run(ctx, name, 1, nb, dims, n, v, bh, np * n);
          for (pds_size i = 0; i < np * n; i++) {
            if (fabs(ref[i]) > amax) amax = fabs(ref[i]);
            if (fabs(y[i] - ref[i]) > dmax) dmax = fabs(y[i] - ref[i]);
          }
          if (!(dmax <= 1e-3 * amax) || !(dmax > 0))
            TEST_FAIL("bilu0 variant %s, float factors, n = %d: max difference %g of max %g from double (0: the "
                      "factors were not rounded)", name, n, dmax, amax);
          if (!cuda) {
            double *yr = variant_run(r, "auto", 1, nb, dims, n, v, bh, np * n);

            if (memcmp(y, yr, sizeof *y * (size_t)np * n))
              TEST_FAIL("bilu0 float factors, n = %d, %d grid(s): %s differs from /cpu/ref", n, nb,
                        pds_ctx_get_backend(ctx));
            free(yr);
          }
          free(y);
        }
      }
      if (cuda && n == 4 && multi) { /* a singular block named by every variant */
        const pds_size f = (pds_size)dims[0] * dims[1] * dims[2] + (pds_size)dims[3] * dims[4] * dims[5];

        for (int a = 0; a < 4; a++)
          for (int e = 0; e < n * n; e++) v[(f * 7 + a) * n * n + e] = a == 3 ? 1.0 : 0.0;
        for (int t = 0; t < nv; t++) {
          pds_mat     A;
          pds_precond P;

          TEST_CALL(pds_mat_create_stencil7_blocks(ctx, nb, dims, n, v, PDS_MEM_HOST, &A));
          TEST_CALL(pds_precond_create(ctx, "bilu0", &P));
          TEST_CALL(pds_precond_bilu0_set_variant(P, gpu[t]));
          TEST_CALL(pds_precond_set_operator(P, A));
          TEST_ASSERT_ERR(ctx, pds_precond_setup(P), PDS_ERR_ZERO_PIVOT, "grid point (0, 0, 0) of grid 2");
          TEST_CALL(pds_precond_destroy(&P));
          TEST_CALL(pds_mat_destroy(&A));
        }
      }
      free(ref), free(v), free(bh);
    }
  { /* names: unknown everywhere, GPU ones on CPU backends; float factors everywhere */
    pds_mat     A = make(ctx, 3, 3, 3, 2, 1.0, 0);
    pds_precond P;

    TEST_CALL(pds_precond_create(ctx, "bilu0", &P));
    TEST_CALL(pds_precond_set_operator(P, A));
    TEST_CALL(pds_precond_bilu0_set_variant(P, cuda ? "wavefronts" : "recycle"));
    TEST_ASSERT_ERR(ctx, pds_precond_setup(P), cuda ? PDS_ERR_ARG : PDS_ERR_UNSUPPORTED,
                    cuda ? "'wavefronts' is not one of /gpu/cuda's" : "is a /gpu/cuda variant");
    TEST_CALL(pds_precond_bilu0_set_variant(P, "auto"));
    TEST_CALL(pds_precond_bilu0_set_factor_precision(P, PDS_PRECISION_SINGLE));
    TEST_CALL(pds_precond_setup(P));
    TEST_ASSERT_ERR(ctx, pds_precond_bilu0_set_factor_precision(P, PDS_PRECISION_MIXED), PDS_ERR_ARG,
                    "PDS_PRECISION_DOUBLE or PDS_PRECISION_SINGLE");
    TEST_CALL(pds_precond_destroy(&P));
    TEST_CALL(pds_precond_create(ctx, "jacobi", &P));
    TEST_ASSERT_ERR(ctx, pds_precond_bilu0_set_variant(P, "auto"), PDS_ERR_ARG, "not bilu0");
    TEST_CALL(pds_precond_destroy(&P));
    TEST_CALL(pds_mat_destroy(&A));
  }
  TEST_CALL(pds_ctx_destroy(&r));
}

static void check_errors(pds_ctx ctx) {
  double     *v = make_vals(3, 3, 3, 2, 1.0, 0);
  pds_mat     A;
  pds_precond P;

  TEST_ASSERT_ERR(ctx, pds_mat_create_stencil7(ctx, 3, 3, 3, 9, v, PDS_MEM_HOST, &A), PDS_ERR_ARG,
                  "unknowns per point");
  TEST_ASSERT_ERR(ctx, pds_mat_create_stencil7(ctx, 3, 0, 3, 2, v, PDS_MEM_HOST, &A), PDS_ERR_SIZE, "empty dimension");
  v[0 * 7 * 4 + 0 * 4 + 1] = 0.5; /* point (0,0,0), alpha (k-1): out of the grid */
  TEST_ASSERT_ERR(ctx, pds_mat_create_stencil7(ctx, 3, 3, 3, 2, v, PDS_MEM_HOST, &A), PDS_ERR_ARG,
                  "alpha (k-1) of point (0, 0, 0) points out of the grid");
  v[0 * 7 * 4 + 0 * 4 + 1] = 0.0;
  v[(13 * 7 + 3) * 4 + 2] = NAN; /* point 13 = (1, 1, 1) */
  TEST_ASSERT_ERR(ctx, pds_mat_create_stencil7(ctx, 3, 3, 3, 2, v, PDS_MEM_HOST, &A), PDS_ERR_ARG,
                  "(1, 1, 1) holds a non-finite value");
  v[(13 * 7 + 3) * 4 + 2] = 0.0;
  /* a singular centre at (1, 2, 0) = point 15 with no lower coupling into it: its factored block is singular */
  for (int a = 0; a < 3; a++)
    for (int e = 0; e < 4; e++) v[(15 * 7 + a) * 4 + e] = 0.0;
  for (int e = 0; e < 4; e++) v[(15 * 7 + 3) * 4 + e] = 1.0; /* [[1, 1], [1, 1]] */
  TEST_CALL(pds_mat_create_stencil7(ctx, 3, 3, 3, 2, v, PDS_MEM_HOST, &A));
  TEST_CALL(pds_precond_create(ctx, "bilu0", &P));
  TEST_CALL(pds_precond_set_operator(P, A));
  TEST_ASSERT_ERR(ctx, pds_precond_setup(P), PDS_ERR_ZERO_PIVOT, "grid point (1, 2, 0)");
  TEST_CALL(pds_precond_destroy(&P));
  TEST_CALL(pds_mat_destroy(&A));
  { /* bilu0 on a csr matrix */
    pds_problem p;
    pds_int     dims[3] = {4, 4, 4};

    TEST_CALL(pds_problem_generate(ctx, "poisson7", dims, 3, &p));
    TEST_CALL(pds_precond_create(ctx, "bilu0", &P));
    TEST_CALL(pds_precond_set_operator(P, p.A));
    TEST_ASSERT_ERR(ctx, pds_precond_setup(P), PDS_ERR_UNSUPPORTED, "bilu0 needs a stencil7 matrix");
    TEST_CALL(pds_precond_destroy(&P));
    TEST_CALL(pds_problem_destroy(&p));
  }
  free(v);
}

int main(int argc, char **argv) {
  pds_ctx ctx = test_init(argc, argv);

  check_product(ctx, 4, 5, 6, 3);
  check_product(ctx, 1, 1, 1, 5);
  check_product(ctx, 1, 7, 1, 2);
  check_product(ctx, 6, 1, 3, 1);
  check_product(ctx, 3, 4, 2, 8);
  check_ilu_property(ctx, 3, 4, 5, 2);
  check_ilu_property(ctx, 2, 3, 4, 6);
  check_ilu_property(ctx, 1, 5, 3, 3);
  check_exact_lower(ctx);
  check_richardson(ctx);
  check_omp_bits(14, 13, 12, 3); /* pipelined wavefront (13 j-rows: on min(threads, 13) up to 26 threads) */
  check_omp_bits(9, 70, 5, 4);   /* pipelined with any thread count (at most 64 threads pipeline) */
  check_omp_bits(60, 1, 40, 2);  /* one j-row: by hyperplanes */
  check_omp_bits(50, 3, 16, 2);  /* three j-rows: pipelined on up to 6 threads, by hyperplanes on more */
  check_roundtrip(ctx);
  check_multiblock(ctx);
  check_variants(ctx);
  check_errors(ctx);
  test_finalize(&ctx);
  return 0;
}
