/* tests/t303_ilu0.c: the ilu0 preconditioner (ILU(0) of a csr, bsr or stencil7 matrix).
 * - y = M^-1 b against an independent dense ILU(0) written here (block IKJ on the pattern with the diagonal added,
 *   the pivots' inverses applied by a dense solve with partial pivoting, not by the library's Gauss-Jordan): scalar
 *   csr with unsorted rows and missing diagonals (factored with a shift), bsr with 2 x 2 and 3 x 3 blocks;
 * - the backend against /cpu/ref, bit for bit, on matrices large enough for omp's level scheduling (a 5-point grid of
 *   256^2 rows, a 7-point bsr grid with 4 x 4 blocks), factorization and application;
 * - a stencil7 matrix: ilu0 (through its BSR copy) agrees with bilu0 to round-off (the same factorization, its
 *   neighbours subtracted in another order);
 * - refactorization: pds_precond_update_values with a matrix of the same pattern gives the bits of a fresh setup, and
 *   refuses another pattern; a zero pivot is PDS_ERR_ZERO_PIVOT naming the row, a shift removes it; a shell operator
 *   is refused; GMRES + ilu0 converges where GMRES alone needs many more iterations, in every ordering;
 * - orderings: rcm makes ILU(0) of a scrambled tridiagonal matrix exact (against a Thomas solve); multicolor on a
 *   5-point grid against the dense ILU(0) of the red-black permuted matrix; omp = ref bits in every ordering.
 * The same on /gpu/cuda (its results against /cpu/ref's bit for bit), whose blocks are limited to 8 x 8 (a 9 x 9 one
 * is refused there, and checked against the dense reference on the CPU backends). */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "test.h"

static unsigned long long g_seed = 0x9e3779b97f4a7c15ull;
static double             rnd(void) { /* uniform in [-1, 1) */
  g_seed ^= g_seed << 13, g_seed ^= g_seed >> 7, g_seed ^= g_seed << 17;
  return (double)(g_seed >> 11) / 4503599627370496.0 - 1.0;
}

/* a block-CSR matrix on the host: nb block rows of b x b blocks */
typedef struct {
  int       nb, b;
  pds_size *rp;
  pds_int  *ci;
  double   *v;
} bcsr;

static void bcsr_free(bcsr *M) { free(M->rp), free(M->ci), free(M->v); }

/* random pattern: the diagonal (unless nodiag_every divides the row + 1), the neighbours at +-1 and +-stride, and
   `extra` random columns; values random, diagonal blocks made dominant by dom; rows reversed if unsorted */
static bcsr make_random(int nb, int b, int stride, int extra, double dom, int nodiag_every, int unsorted) {
  bcsr M = {nb, b, NULL, NULL, NULL};
  int  cap = nb * (5 + extra);

  M.rp = calloc((size_t)nb + 1, sizeof *M.rp), M.ci = malloc(sizeof *M.ci * (size_t)cap);
  M.v  = malloc(sizeof *M.v * (size_t)cap * b * b);
  TEST_ASSERT(M.rp && M.ci && M.v);
  pds_size m = 0;

  for (int i = 0; i < nb; i++) {
    int cols[160], nc = 0; /* extra <= 150 */
    int cand[4] = {i - stride, i - 1, i + 1, i + stride};

    if (!(nodiag_every > 0 && (i + 1) % nodiag_every == 0)) cols[nc++] = i;
    for (int t = 0; t < 4; t++)
      if (cand[t] >= 0 && cand[t] < nb) cols[nc++] = cand[t];
    for (int t = 0; t < extra; t++) cols[nc++] = (int)((rnd() + 1) * 0.5 * nb) % nb;
    /* sort and drop duplicates */
    for (int a = 1; a < nc; a++)
      for (int c = a; c > 0 && cols[c] < cols[c - 1]; c--) {
        int t = cols[c];

        cols[c] = cols[c - 1], cols[c - 1] = t;
      }
    int u = 0;

    for (int a = 0; a < nc; a++)
      if (a == 0 || cols[a] != cols[a - 1]) cols[u++] = cols[a];
    nc = u;
    if (nodiag_every > 0 && (i + 1) % nodiag_every == 0) { /* the diagonal may have come back as a random column */
      int w = 0;

      for (int a = 0; a < nc; a++)
        if (cols[a] != i) cols[w++] = cols[a];
      nc = w;
    }
    for (int a = 0; a < nc; a++) {
      const int c = unsorted ? cols[nc - 1 - a] : cols[a];

      M.ci[m] = c;
      for (int e = 0; e < b * b; e++) {
        double x = rnd();

        if (c == i && e % (b + 1) == 0) x = dom + fabs(x);
        M.v[m * b * b + e] = x;
      }
      m++;
    }
    M.rp[i + 1] = m;
  }
  return M;
}

/* the 5-point (2D, q x q) or 7-point (3D, q^3) Laplacian-like pattern with random dominant values, b x b blocks */
static bcsr make_grid(int q, int dim, int b) {
  const int nb = dim == 2 ? q * q : q * q * q;
  bcsr      M  = {nb, b, NULL, NULL, NULL};

  M.rp = calloc((size_t)nb + 1, sizeof *M.rp), M.ci = malloc(sizeof *M.ci * (size_t)nb * 7);
  M.v  = malloc(sizeof *M.v * (size_t)nb * 7 * b * b);
  TEST_ASSERT(M.rp && M.ci && M.v);
  pds_size m = 0;

  for (int i = 0; i < nb; i++) {
    const int x = i % q, y = (i / q) % q, z = i / (q * q);
    const int off[7] = {-q * q, -q, -1, 0, 1, q, q * q};
    const int ok[7]  = {dim == 3 && z > 0, y > 0, x > 0, 1, x + 1 < q, y + 1 < q, dim == 3 && z + 1 < q};

    for (int t = 0; t < 7; t++) {
      if (!ok[t]) continue;
      M.ci[m] = i + off[t];
      for (int e = 0; e < b * b; e++)
        M.v[m * b * b + e] = off[t] == 0 ? (e % (b + 1) == 0 ? 2.0 * dim + 1 + 0.5 * rnd() : 0.3 * rnd()) : -1 + 0.3 * rnd();
      m++;
    }
    M.rp[i + 1] = m;
  }
  return M;
}

static pds_mat to_mat(pds_ctx ctx, const bcsr *M) {
  pds_mat A;

  if (M->b == 1)
    TEST_CALL(pds_mat_create_csr(ctx, M->nb, M->nb, M->rp, M->ci, M->v, PDS_MEM_HOST, PDS_COPY_VALUES, &A));
  else
    TEST_CALL(pds_mat_create_bsr(ctx, M->nb, M->nb, M->b, M->rp, M->ci, M->v, PDS_MEM_HOST, PDS_COPY_VALUES, &A));
  return A;
}

/* ---- the independent reference: dense blocks ----------------------------------------------------------------- */
/* x = M^-1 y for a dense m x m M (copied), partial pivoting; y and x m x r row-major (solves for r columns) */
static void dense_solve(int m, const double *Min, int r, const double *y, double *x) {
  double M[64 * 64], X[64 * 64];

  memcpy(M, Min, sizeof *M * (size_t)m * m), memcpy(X, y, sizeof *X * (size_t)m * r);
  for (int k = 0; k < m; k++) {
    int p = k;

    for (int i = k + 1; i < m; i++)
      if (fabs(M[i * m + k]) > fabs(M[p * m + k])) p = i;
    TEST_ASSERT(M[p * m + k] != 0);
    for (int j = 0; j < m; j++) {
      double t = M[k * m + j];

      M[k * m + j] = M[p * m + j], M[p * m + j] = t;
    }
    for (int j = 0; j < r; j++) {
      double t = X[k * r + j];

      X[k * r + j] = X[p * r + j], X[p * r + j] = t;
    }
    for (int i = k + 1; i < m; i++) {
      const double f = M[i * m + k] / M[k * m + k];

      for (int j = k; j < m; j++) M[i * m + j] -= f * M[k * m + j];
      for (int j = 0; j < r; j++) X[i * r + j] -= f * X[k * r + j];
    }
  }
  for (int i = m - 1; i >= 0; i--)
    for (int j = 0; j < r; j++) {
      double s = X[i * r + j];

      for (int c = i + 1; c < m; c++) s -= M[i * m + c] * X[c * r + j];
      X[i * r + j] = s / M[i * m + i];
    }
  memcpy(x, X, sizeof *x * (size_t)m * r);
}

/* y = M^-1 b by a dense-block ILU(0) of A + shift I on A's pattern plus the diagonal */
static void ref_ilu0(const bcsr *A, double shift, const double *b, double *y) {
  const int nb = A->nb, B = A->b, BB = B * B;
  char     *pat = calloc((size_t)nb * nb, 1);
  double   *F   = calloc((size_t)nb * nb * BB, sizeof *F); /* block (i, j) at F[(i nb + j) BB] */

  TEST_ASSERT(pat && F);
  for (int i = 0; i < nb; i++) {
    pat[(size_t)i * nb + i] = 1;
    for (int e = 0; e < B; e++) F[((size_t)i * nb + i) * BB + e * (B + 1)] += shift;
    for (pds_size p = A->rp[i]; p < A->rp[i + 1]; p++) {
      pat[(size_t)i * nb + A->ci[p]] = 1;
      for (int e = 0; e < BB; e++) F[((size_t)i * nb + A->ci[p]) * BB + e] += A->v[p * BB + e];
    }
  }
  for (int i = 0; i < nb; i++)
    for (int k = 0; k < i; k++) {
      if (!pat[(size_t)i * nb + k]) continue;
      double *Lik = F + ((size_t)i * nb + k) * BB, T[64 * 64], Ut[64 * 64], Lt[64 * 64];

      /* L_ik = A_ik U_kk^-1: solve U_kk^T L^T = A_ik^T */
      for (int u = 0; u < B; u++)
        for (int v = 0; v < B; v++) Ut[u * B + v] = F[((size_t)k * nb + k) * BB + v * B + u], T[u * B + v] = Lik[v * B + u];
      dense_solve(B, Ut, B, T, Lt);
      for (int u = 0; u < B; u++)
        for (int v = 0; v < B; v++) Lik[u * B + v] = Lt[v * B + u];
      for (int j = k + 1; j < nb; j++) {
        if (!pat[(size_t)i * nb + j] || !pat[(size_t)k * nb + j]) continue;
        const double *Ukj = F + ((size_t)k * nb + j) * BB;
        double       *Aij = F + ((size_t)i * nb + j) * BB;

        for (int u = 0; u < B; u++)
          for (int v = 0; v < B; v++) {
            double s = 0;

            for (int w = 0; w < B; w++) s += Lik[u * B + w] * Ukj[w * B + v];
            Aij[u * B + v] -= s;
          }
      }
    }
  for (int i = 0; i < nb; i++) /* forward */
    for (int u = 0; u < B; u++) {
      double s = b[i * B + u];

      for (int k = 0; k < i; k++)
        if (pat[(size_t)i * nb + k])
          for (int w = 0; w < B; w++) s -= F[((size_t)i * nb + k) * BB + u * B + w] * y[k * B + w];
      y[i * B + u] = s;
    }
  for (int i = nb - 1; i >= 0; i--) { /* backward */
    double z[64];

    for (int u = 0; u < B; u++) {
      double s = y[i * B + u];

      for (int j = i + 1; j < nb; j++)
        if (pat[(size_t)i * nb + j])
          for (int w = 0; w < B; w++) s -= F[((size_t)i * nb + j) * BB + u * B + w] * y[j * B + w];
      z[u] = s;
    }
    dense_solve(B, F + ((size_t)i * nb + i) * BB, 1, z, y + i * B);
  }
  free(pat), free(F);
}

/* ---- the library's -------------------------------------------------------------------------------------------- */
/* M^-1 b with ilu0 in the ordering and variant given (sweeps, factor sweeps: negative = the defaults) */
static double *pc_apply_var(pds_ctx ctx, pds_mat A, double shift, const char *ordering, const char *variant,
                            int sweeps, int fsweeps, const double *b, pds_size n) {
  pds_precond P;
  pds_vec     x, y;
  double     *out = malloc(sizeof *out * (size_t)n);

  TEST_ASSERT(out);
  TEST_CALL(pds_precond_create(ctx, "ilu0", &P));
  TEST_CALL(pds_precond_ilu0_set_shift(P, shift));
  TEST_CALL(pds_precond_ilu0_set_ordering(P, ordering));
  TEST_CALL(pds_precond_ilu0_set_variant(P, variant));
  TEST_CALL(pds_precond_ilu0_set_sweeps(P, sweeps, fsweeps));
  TEST_CALL(pds_precond_set_operator(P, A));
  TEST_CALL(pds_precond_setup(P));
  TEST_CALL(pds_precond_update_values(P, A)); /* a refactorization (on /cpu/omp the second, levels, trial) */
  TEST_CALL(pds_vec_create(ctx, n, &x));
  TEST_CALL(pds_vec_create(ctx, n, &y));
  TEST_CALL(pds_vec_set_values(x, b, PDS_MEM_HOST));
  TEST_CALL(pds_precond_apply(P, x, y));
  TEST_CALL(pds_vec_get_values(y, out, PDS_MEM_HOST));
  { /* a second application (on /cpu/omp the levels trial): the same bits */
    double *again = malloc(sizeof *again * (size_t)n);

    TEST_ASSERT(again);
    TEST_CALL(pds_precond_apply(P, x, y));
    TEST_CALL(pds_vec_get_values(y, again, PDS_MEM_HOST));
    if (memcmp(out, again, sizeof *out * (size_t)n))
      TEST_FAIL("ilu0 %s on %s: a second application gave other bits", variant, pds_ctx_get_backend(ctx));
    free(again);
  }
  pds_vec_destroy(&x), pds_vec_destroy(&y), pds_precond_destroy(&P);
  return out;
}

static double *pc_apply_ord(pds_ctx ctx, pds_mat A, double shift, const char *ordering, const double *b, pds_size n) {
  return pc_apply_var(ctx, A, shift, ordering, "auto", -1, -1, b, n);
}

static double *pc_apply(pds_ctx ctx, pds_mat A, double shift, const double *b, pds_size n) {
  return pc_apply_ord(ctx, A, shift, "natural", b, n);
}

static void check_against_dense(pds_ctx ctx, const bcsr *M, double shift, const char *what) {
  const pds_size n = (pds_size)M->nb * M->b;
  double        *b = malloc(sizeof *b * (size_t)n), *yr = malloc(sizeof *yr * (size_t)n), *y, dmax = 0, amax = 0;
  pds_mat        A = to_mat(ctx, M);

  TEST_ASSERT(b && yr);
  for (pds_size i = 0; i < n; i++) b[i] = rnd();
  ref_ilu0(M, shift, b, yr);
  y = pc_apply(ctx, A, shift, b, n);
  for (pds_size i = 0; i < n; i++) {
    if (fabs(yr[i]) > amax) amax = fabs(yr[i]);
    if (fabs(y[i] - yr[i]) > dmax) dmax = fabs(y[i] - yr[i]);
  }
  if (!(dmax <= 1e-11 * amax)) TEST_FAIL("%s: M^-1 b differs from the dense ILU(0) by %g (max %g)", what, dmax, amax);
  free(b), free(yr), free(y), pds_mat_destroy(&A);
}

/* the variants the backend has: the exact ones (/gpu/cuda's own too) and the approximate ones */
static int backend_variants(pds_ctx ctx, const char *const **names) {
  static const char *const gpu[] = {"auto", "levels", "syncfree", "approx-jacobi", "approx-chow"};
  static const char *const cpu[] = {"auto", "approx-jacobi", "approx-chow"};

  if (!strcmp(pds_ctx_get_backend(ctx), "/gpu/cuda")) return *names = gpu, 5;
  return *names = cpu, 3;
}

/* the backend's M^-1 b against /cpu/ref's, bit for bit, in the ordering and every variant (all: the approximate ones
   too; /cpu/ref runs each variant's own steps: an approximate variant against /cpu/ref's same variant) */
static void check_ref_bits_v(pds_ctx ctx, const bcsr *M, const char *ordering, int all, const char *what) {
  const pds_size           n = (pds_size)M->nb * M->b;
  const char *const       *var;
  const int                nv = backend_variants(ctx, &var);
  pds_ctx                  r;
  pds_mat                  A, Ar;
  double                  *b = malloc(sizeof *b * (size_t)n), *y, *yr[2];

  TEST_ASSERT(b);
  TEST_CALL(pds_ctx_create("/cpu/ref", &r));
  for (pds_size i = 0; i < n; i++) b[i] = rnd();
  A = to_mat(ctx, M), Ar = to_mat(r, M);
  yr[0] = pc_apply_ord(r, Ar, 0, ordering, b, n);
  yr[1] = all ? pc_apply_var(r, Ar, 0, ordering, "approx-chow", -1, -1, b, n) : NULL;
  for (int v = 0; v < nv; v++) {
    const int      ap = !strncmp(var[v], "approx", 6);
    double        *yj = NULL, *want;

    if (ap && !all) continue;
    if (!strcmp(var[v], "approx-jacobi")) want = yj = pc_apply_var(r, Ar, 0, ordering, var[v], -1, -1, b, n);
    else want = yr[ap];
    y = pc_apply_var(ctx, A, 0, ordering, var[v], -1, -1, b, n);
    if (memcmp(y, want, sizeof *y * (size_t)n)) {
      pds_size i = 0;

      while (y[i] == want[i]) i++;
      TEST_FAIL("%s, ordering %s, variant %s, on %s: entry %" PDS_SIZE_FMT " is %.17g, /cpu/ref %.17g", what,
                ordering, var[v], pds_ctx_get_backend(ctx), i, y[i], want[i]);
    }
    free(y), free(yj);
  }
  free(b), free(yr[0]), free(yr[1]), pds_mat_destroy(&A), pds_mat_destroy(&Ar), pds_ctx_destroy(&r);
}

static void check_ref_bits(pds_ctx ctx, const bcsr *M, const char *ordering, const char *what) {
  check_ref_bits_v(ctx, M, ordering, 1, what);
}

/* the approximate variants converge to the exact one: with as many Jacobi sweeps as block rows (more than the
   levels), approx-jacobi gives the exact application's bits (each y_i is computed from exact inputs by the exact
   arithmetic), and so does approx-chow with as many Chow-Patel sweeps too (its fixed point, reached in finitely many
   sweeps, is the IKJ factor with the same sums); a few sweeps give something near, not equal */
static void check_approx_limit(pds_ctx ctx, const bcsr *M, const char *ordering, const char *what) {
  const pds_size n = (pds_size)M->nb * M->b;
  const int      k = M->nb < 1000 ? M->nb : 1000;
  pds_mat        A = to_mat(ctx, M);
  double        *b = malloc(sizeof *b * (size_t)n), *ye, *yj, *yc, *y1, d = 0, m = 0;

  TEST_ASSERT(b);
  for (pds_size i = 0; i < n; i++) b[i] = rnd();
  ye = pc_apply_var(ctx, A, 0, ordering, "auto", -1, -1, b, n);
  yj = pc_apply_var(ctx, A, 0, ordering, "approx-jacobi", k, -1, b, n);
  yc = pc_apply_var(ctx, A, 0, ordering, "approx-chow", k, k, b, n);
  y1 = pc_apply_var(ctx, A, 0, ordering, "approx-chow", 1, 1, b, n);
  if (memcmp(yj, ye, sizeof *ye * (size_t)n)) TEST_FAIL("%s: approx-jacobi, %d sweeps, is not the exact bits", what, k);
  if (memcmp(yc, ye, sizeof *ye * (size_t)n)) TEST_FAIL("%s: approx-chow, %d sweeps, is not the exact bits", what, k);
  for (pds_size i = 0; i < n; i++) d = fmax(d, fabs(y1[i] - ye[i])), m = fmax(m, fabs(ye[i]));
  if (!(d > 1e-6 * m)) TEST_FAIL("%s: approx-chow with 1 sweep is %g from the exact (max %g)", what, d, m);
  free(b), free(ye), free(yj), free(yc), free(y1), pds_mat_destroy(&A);
}

static int shell_apply(void *user, pds_vec x, pds_vec y) {
  (void)user;
  return pds_vec_copy(x, y);
}

static void check_errors_and_refactor(pds_ctx ctx) {
  bcsr        M = make_random(200, 1, 10, 2, 8.0, 0, 0), M2 = M, M3;
  pds_mat     A = to_mat(ctx, &M), A2, A3, S;
  pds_precond P, Q;
  pds_vec     x, y, y2;
  double     *v2 = malloc(sizeof *v2 * (size_t)M.rp[M.nb]), *o1, *o2;
  const int   n  = M.nb;

  TEST_ASSERT(v2);
  for (pds_size e = 0; e < M.rp[M.nb]; e++) v2[e] = M.v[e] * (1 + 0.1 * rnd());
  M2.v = v2;
  A2   = to_mat(ctx, &M2);
  TEST_CALL(pds_vec_create(ctx, n, &x)); TEST_CALL(pds_vec_create(ctx, n, &y)); TEST_CALL(pds_vec_create(ctx, n, &y2));
  TEST_CALL(pds_vec_set(x, 1.0));
  /* refactorization: the bits of a fresh setup on the new matrix */
  TEST_CALL(pds_precond_create(ctx, "ilu0", &P));
  TEST_CALL(pds_precond_set_operator(P, A));
  TEST_CALL(pds_precond_setup(P));
  TEST_CALL(pds_precond_update_values(P, A2));
  TEST_CALL(pds_precond_apply(P, x, y));
  TEST_CALL(pds_precond_create(ctx, "ilu0", &Q));
  TEST_CALL(pds_precond_set_operator(Q, A2));
  TEST_CALL(pds_precond_setup(Q));
  TEST_CALL(pds_precond_apply(Q, x, y2));
  o1 = malloc(sizeof *o1 * n), o2 = malloc(sizeof *o2 * n);
  TEST_ASSERT(o1 && o2);
  TEST_CALL(pds_vec_get_values(y, o1, PDS_MEM_HOST)); TEST_CALL(pds_vec_get_values(y2, o2, PDS_MEM_HOST));
  TEST_ASSERT(!memcmp(o1, o2, sizeof *o1 * n));
  /* another pattern: update_values refuses it, set_operator + setup takes it */
  M3 = make_random(200, 1, 10, 3, 8.0, 0, 0);
  A3 = to_mat(ctx, &M3);
  TEST_ASSERT_ERR(ctx, pds_precond_update_values(P, A3), PDS_ERR_ARG, "pattern");
  TEST_CALL(pds_precond_set_operator(P, A3));
  TEST_CALL(pds_precond_setup(P));
  /* a zero pivot names its row; a shift lets it through */
  M3.v[M3.rp[5]] = 0; /* row 5's first entry: its column 5 - 10 < 0 is absent, so column 4 (5 - 1) ... */
  for (pds_size p = M3.rp[5]; p < M3.rp[6]; p++)
    if (M3.ci[p] == 5) M3.v[p] = 0;
  for (pds_size p = M3.rp[5]; p < M3.rp[6]; p++)
    if (M3.ci[p] < 5) M3.v[p] = 0; /* nothing below the diagonal fills it back in */
  pds_mat_destroy(&A3);
  A3 = to_mat(ctx, &M3);
  TEST_CALL(pds_precond_set_operator(P, A3));
  TEST_ASSERT_ERR(ctx, pds_precond_setup(P), PDS_ERR_ZERO_PIVOT, "row 5 is zero");
  TEST_CALL(pds_precond_ilu0_set_shift(P, 0.5));
  TEST_CALL(pds_precond_setup(P));
  TEST_ASSERT_ERR(ctx, pds_precond_ilu0_set_shift(P, NAN), PDS_ERR_ARG, "not finite");
  TEST_ASSERT_ERR(ctx, pds_precond_ilu0_set_variant(P, "nonesuch") ? PDS_ERR_UNSUPPORTED : pds_precond_setup(P),
                  PDS_ERR_ARG, "nonesuch");
  if (strcmp(pds_ctx_get_backend(ctx), "/gpu/cuda")) { /* a GPU variant on a CPU backend */
    TEST_CALL(pds_precond_ilu0_set_variant(P, "levels"));
    TEST_ASSERT_ERR(ctx, pds_precond_setup(P), PDS_ERR_UNSUPPORTED, "/gpu/cuda variant");
    TEST_CALL(pds_precond_ilu0_set_variant(P, "syncfree"));
    TEST_ASSERT_ERR(ctx, pds_precond_setup(P), PDS_ERR_UNSUPPORTED, "/gpu/cuda variant");
  }
  /* the approximate variants' sweeps; approx-chow's zero pivot (the shift is 0.5 here: none) */
  TEST_ASSERT_ERR(ctx, pds_precond_ilu0_set_sweeps(P, 1001, 3), PDS_ERR_ARG, "Jacobi sweeps");
  TEST_ASSERT_ERR(ctx, pds_precond_ilu0_set_sweeps(P, 3, 0), PDS_ERR_ARG, "Chow-Patel sweeps");
  TEST_CALL(pds_precond_ilu0_set_variant(P, "approx-chow"));
  TEST_CALL(pds_precond_setup(P));
  TEST_CALL(pds_precond_ilu0_set_shift(P, 0));
  TEST_ASSERT_ERR(ctx, pds_precond_setup(P), PDS_ERR_ZERO_PIVOT, "row 5 is zero");
  TEST_CALL(pds_precond_ilu0_set_shift(P, 0.5));
  TEST_CALL(pds_precond_ilu0_set_variant(P, "auto"));
  TEST_ASSERT_ERR(ctx, pds_precond_bilu0_set_variant(P, "auto"), PDS_ERR_ARG, "not bilu0");
  /* a shell operator */
  TEST_CALL(pds_mat_create_shell(ctx, n, n, NULL, shell_apply, &S));
  TEST_CALL(pds_precond_set_operator(Q, S));
  TEST_ASSERT_ERR(ctx, pds_precond_setup(Q), PDS_ERR_UNSUPPORTED, "csr, bsr or stencil7");
  free(v2), free(o1), free(o2), bcsr_free(&M), bcsr_free(&M3);
  pds_vec_destroy(&x), pds_vec_destroy(&y), pds_vec_destroy(&y2);
  pds_mat_destroy(&A), pds_mat_destroy(&A2), pds_mat_destroy(&A3), pds_mat_destroy(&S);
  pds_precond_destroy(&P), pds_precond_destroy(&Q);
}

/* rcm: a tridiagonal matrix with its rows scrambled has fill in natural order, none in RCM order (a path again), where
   ILU(0) is the exact LU: M^-1 b = A^-1 b, solved here by the Thomas algorithm on the unscrambled matrix */
static void check_rcm(pds_ctx ctx) {
  enum { N = 400 };
  static double lo[N], di[N], up[N], b[N], x[N], c[N], bq[N];
  static int    q[N], iq[N];
  bcsr          M = {N, 1, NULL, NULL, NULL};
  pds_size      m = 0;
  double       *y, *yn, dmax = 0, dnat = 0, amax = 0;

  for (int i = 0; i < N; i++) q[i] = i, lo[i] = i ? -1 + 0.2 * rnd() : 0, up[i] = i + 1 < N ? -1 + 0.2 * rnd() : 0;
  for (int i = 0; i < N; i++) di[i] = 2.5 + 0.3 * rnd(), b[i] = rnd();
  for (int i = N - 1; i > 0; i--) { /* scramble: old row q[k] becomes row k */
    const int j = (int)((rnd() + 1) * 0.5 * (i + 1)) % (i + 1), t = q[i];

    q[i] = q[j], q[j] = t;
  }
  for (int k = 0; k < N; k++) iq[q[k]] = k;
  for (int i = 0; i < N; i++) { /* Thomas on the original */
    const double den = di[i] - (i ? lo[i] * c[i - 1] : 0);

    c[i] = up[i] / den, x[i] = (b[i] - (i ? lo[i] * x[i - 1] : 0)) / den;
  }
  for (int i = N - 2; i >= 0; i--) x[i] -= c[i] * x[i + 1];
  M.rp = calloc(N + 1, sizeof *M.rp), M.ci = malloc(sizeof *M.ci * 3 * N), M.v = malloc(sizeof *M.v * 3 * N);
  TEST_ASSERT(M.rp && M.ci && M.v);
  for (int k = 0; k < N; k++) { /* row k = original row q[k], columns renumbered by iq */
    const int i = q[k];

    if (i > 0) M.ci[m] = iq[i - 1], M.v[m++] = lo[i];
    M.ci[m] = k, M.v[m++] = di[i];
    if (i + 1 < N) M.ci[m] = iq[i + 1], M.v[m++] = up[i];
    M.rp[k + 1] = m;
  }
  for (int k = 0; k < N; k++) bq[k] = b[q[k]];
  {
    pds_mat A = to_mat(ctx, &M);

    y = pc_apply_ord(ctx, A, 0, "rcm", bq, N), yn = pc_apply_ord(ctx, A, 0, "natural", bq, N);
    pds_mat_destroy(&A);
  }
  for (int k = 0; k < N; k++) {
    if (fabs(x[q[k]]) > amax) amax = fabs(x[q[k]]);
    if (fabs(y[k] - x[q[k]]) > dmax) dmax = fabs(y[k] - x[q[k]]);
    if (fabs(yn[k] - x[q[k]]) > dnat) dnat = fabs(yn[k] - x[q[k]]);
  }
  if (!(dmax <= 1e-12 * amax)) TEST_FAIL("rcm: ILU(0) of the scrambled tridiagonal matrix is not exact: %g", dmax);
  if (!(dnat > 1e-6 * amax)) TEST_FAIL("natural order on the scrambled matrix was exact too (%g): the test is blunt", dnat);
  free(y), free(yn), bcsr_free(&M);
}

/* multicolor on a 5-point grid: greedy colouring in index order is the checkerboard, red ((x + y) even) first:
   M^-1 b against the dense ILU(0) of the red-black permuted matrix */
static void check_multicolor(pds_ctx ctx) {
  const int q = 13, n = q * q;
  bcsr      M = make_grid(q, 2, 1), R = {n, 1, NULL, NULL, NULL};
  int      *perm = malloc(sizeof *perm * n), *ip = malloc(sizeof *ip * n), k = 0;
  double   *b = malloc(sizeof *b * n), *bp = malloc(sizeof *bp * n), *yr = malloc(sizeof *yr * n), *y;
  double    dmax = 0, amax = 0;
  pds_size  m = 0;

  TEST_ASSERT(perm && ip && b && bp && yr);
  for (int c = 0; c < 2; c++)
    for (int i = 0; i < n; i++)
      if ((i % q + i / q) % 2 == c) perm[k++] = i;
  for (int i = 0; i < n; i++) ip[perm[i]] = i, b[i] = rnd();
  R.rp = calloc((size_t)n + 1, sizeof *R.rp), R.ci = malloc(sizeof *R.ci * M.rp[n]), R.v = malloc(sizeof *R.v * M.rp[n]);
  TEST_ASSERT(R.rp && R.ci && R.v);
  for (int i = 0; i < n; i++) {
    for (pds_size p = M.rp[perm[i]]; p < M.rp[perm[i] + 1]; p++) R.ci[m] = ip[M.ci[p]], R.v[m++] = M.v[p];
    R.rp[i + 1] = m;
    bp[i] = b[perm[i]];
  }
  ref_ilu0(&R, 0, bp, yr);
  {
    pds_mat A = to_mat(ctx, &M);

    y = pc_apply_ord(ctx, A, 0, "multicolor", b, n);
    pds_mat_destroy(&A);
  }
  for (int i = 0; i < n; i++) {
    if (fabs(yr[i]) > amax) amax = fabs(yr[i]);
    if (fabs(y[perm[i]] - yr[i]) > dmax) dmax = fabs(y[perm[i]] - yr[i]);
  }
  if (!(dmax <= 1e-11 * amax)) TEST_FAIL("multicolor: differs from the red-black dense ILU(0) by %g", dmax);
  free(perm), free(ip), free(b), free(bp), free(yr), free(y), bcsr_free(&M), bcsr_free(&R);
}

/* ilu0 on a stencil7 matrix (its BSR copy) against bilu0 */
static void check_stencil7(pds_ctx ctx) {
  for (int n = 1; n <= 6; n += 5) {
    pds_mat        A;
    pds_precond    P, Q;
    pds_vec        x, y, z;
    const pds_size N = (pds_size)6 * 5 * 7 * n;
    double        *a = malloc(sizeof *a * N), *c = malloc(sizeof *c * N), dmax = 0, amax = 0;

    TEST_ASSERT(a && c);
    TEST_CALL(pds_stencil7_random(ctx, 6, 5, 7, n, 1.5, 11, &A));
    TEST_CALL(pds_precond_create(ctx, "ilu0", &P)); TEST_CALL(pds_precond_create(ctx, "bilu0", &Q));
    TEST_CALL(pds_precond_set_operator(P, A)); TEST_CALL(pds_precond_set_operator(Q, A));
    TEST_CALL(pds_precond_setup(P)); TEST_CALL(pds_precond_setup(Q));
    TEST_CALL(pds_vec_create(ctx, N, &x)); TEST_CALL(pds_vec_create(ctx, N, &y)); TEST_CALL(pds_vec_create(ctx, N, &z));
    for (pds_size i = 0; i < N; i++) a[i] = rnd();
    TEST_CALL(pds_vec_set_values(x, a, PDS_MEM_HOST));
    TEST_CALL(pds_precond_apply(P, x, y)); TEST_CALL(pds_precond_apply(Q, x, z));
    TEST_CALL(pds_vec_get_values(y, a, PDS_MEM_HOST)); TEST_CALL(pds_vec_get_values(z, c, PDS_MEM_HOST));
    for (pds_size i = 0; i < N; i++) {
      if (fabs(c[i]) > amax) amax = fabs(c[i]);
      if (fabs(a[i] - c[i]) > dmax) dmax = fabs(a[i] - c[i]);
    }
    if (!(dmax <= 1e-12 * amax)) TEST_FAIL("stencil7 n = %d: ilu0 and bilu0 differ by %g (max %g)", n, dmax, amax);
    free(a), free(c), pds_vec_destroy(&x), pds_vec_destroy(&y), pds_vec_destroy(&z);
    pds_precond_destroy(&P), pds_precond_destroy(&Q), pds_mat_destroy(&A);
  }
}

/* GMRES(30) without a preconditioner, with ilu0 in each ordering, on a nonsymmetric grid matrix */
static void check_gmres(pds_ctx ctx) {
  bcsr        M = make_grid(40, 2, 1);
  pds_mat     A = to_mat(ctx, &M);
  pds_solver  s;
  pds_precond P;
  pds_vec     b, x;
  int         its[6];
  const char *ord[6] = {NULL, "natural", "rcm", "multicolor", "natural", "natural"};
  const char *var[6] = {NULL, "auto", "auto", "auto", "approx-jacobi", "approx-chow"};

  TEST_CALL(pds_vec_create(ctx, M.nb, &b)); TEST_CALL(pds_vec_create(ctx, M.nb, &x));
  TEST_CALL(pds_vec_set(b, 1.0));
  for (int t = 0; t < 6; t++) {
    pds_solver_result res;

    TEST_CALL(pds_solver_create(ctx, "gmres", &s));
    TEST_CALL(pds_precond_create(ctx, t ? "ilu0" : "none", &P));
    if (t) TEST_CALL(pds_precond_ilu0_set_ordering(P, ord[t]));
    if (t) TEST_CALL(pds_precond_ilu0_set_variant(P, var[t]));
    TEST_CALL(pds_solver_set_precond(s, P));
    TEST_CALL(pds_solver_set_operator(s, A));
    TEST_CALL(pds_solver_set_tolerances(s, 1e-10, 0, 2000));
    TEST_CALL(pds_vec_set(x, 0.0));
    TEST_CALL(pds_solver_solve(s, b, x));
    TEST_CALL(pds_solver_get_result(s, &res));
    its[t] = res.iterations;
    TEST_ASSERT(res.reason > 0);
    TEST_ASSERT(test_true_relres(A, b, x) < 1e-9);
    pds_solver_destroy(&s), pds_precond_destroy(&P);
  }
  if (!(its[1] * 2 < its[0]) || !(its[2] * 2 < its[0]) || !(its[3] < its[0]) || !(its[4] * 2 < its[0]) ||
      !(its[5] * 2 < its[0]))
    TEST_FAIL("GMRES: %d iterations with ilu0 (%d rcm, %d multicolor, %d approx-jacobi, %d approx-chow), %d without",
              its[1], its[2], its[3], its[4], its[5], its[0]);
  pds_vec_destroy(&b), pds_vec_destroy(&x), pds_mat_destroy(&A), bcsr_free(&M);
}

int main(int argc, char **argv) {
  pds_ctx ctx = test_init(argc, argv);

  if (!strcmp(pds_ctx_get_backend(ctx), "/gpu/cuda")) { /* blocks of at most 8 x 8 there */
    bcsr        M = make_random(30, 9, 5, 1, 20.0, 0, 0);
    pds_mat     A = to_mat(ctx, &M);
    pds_precond P;

    TEST_CALL(pds_precond_create(ctx, "ilu0", &P));
    TEST_CALL(pds_precond_set_operator(P, A));
    TEST_ASSERT_ERR(ctx, pds_precond_setup(P), PDS_ERR_UNSUPPORTED, "up to 8 x 8");
    pds_precond_destroy(&P), pds_mat_destroy(&A), bcsr_free(&M);
  } else {
    bcsr M = make_random(30, 9, 5, 1, 20.0, 0, 0);

    check_against_dense(ctx, &M, 0, "bsr 9 x 9 (the generic block size)"), bcsr_free(&M);
  }
  {
    bcsr M;

    M = make_random(300, 1, 17, 2, 6.0, 0, 0), check_against_dense(ctx, &M, 0, "csr"), bcsr_free(&M);
    M = make_random(300, 1, 17, 2, 6.0, 0, 1), check_against_dense(ctx, &M, 0, "csr, rows unsorted"), bcsr_free(&M);
    M = make_random(300, 1, 17, 2, 6.0, 7, 1);
    check_against_dense(ctx, &M, 4.0, "csr, diagonals missing, shift 4"), bcsr_free(&M);
    M = make_random(120, 2, 9, 2, 8.0, 0, 0), check_against_dense(ctx, &M, 0, "bsr 2 x 2"), bcsr_free(&M);
    M = make_random(100, 3, 9, 1, 10.0, 11, 1);
    check_against_dense(ctx, &M, 6.0, "bsr 3 x 3, unsorted, diagonals missing, shift 6"), bcsr_free(&M);
    const int small = getenv("PDS_TEST_SMALL") != NULL; /* under compute-sanitizer: smaller matrices */

    const int omp   = !strcmp(pds_ctx_get_backend(ctx), "/cpu/omp");

    /* /cpu/omp: as it chooses (natural order, then levels, timed), and with the levels forced */
    for (int lev = 0; lev < (omp ? 2 : 1); lev++) {
      if (lev) setenv("PDS_OMP_ILU0", "levels", 1);
      for (int o = 0; o < 3; o++) {
        static const char *const ord[] = {"natural", "rcm", "multicolor"};

        M = make_grid(small ? 48 : 256, 2, 1), check_ref_bits(ctx, &M, ord[o], "csr 5-point grid"), bcsr_free(&M);
        M = make_grid(small ? 8 : 24, 3, 4), check_ref_bits(ctx, &M, ord[o], "bsr 4 x 4 7-point grid"), bcsr_free(&M);
        M = make_random(small ? 3000 : 40000, 1, 150, 3, 9.0, 0, 0), check_ref_bits_v(ctx, &M, ord[o], 0, "csr random");
        bcsr_free(&M);
      }
      if (lev) unsetenv("PDS_OMP_ILU0");
    }
  }
  {
    /* every block size of the specialised kernels (/gpu/cuda: a block row per group of 2, 4 or 8 lanes), rows with
       more blocks in a triangle than the sweeps read ahead (3); and long scalar rows (about 90 a row, more than a
       warp's 32: /gpu/cuda runs them a warp per row), then each kind of row with the other way forced
       (PDS_CUDA_ILU0_WARP_ROWS, PDS_CUDA_ILU0_WARP_SWEEPS: the same bits either way) */
    const int small = getenv("PDS_TEST_SMALL") != NULL;
    bcsr      M;

    for (int b = 2; b <= 8; b++) {
      char what[64];

      if (b == 4) continue; /* the grid above */
      snprintf(what, sizeof what, "bsr %d x %d random, 3 extra blocks a row", b, b);
      M = make_random(small ? 60 : 400, b, 9, 3, 4.0 * b, 0, 0), check_ref_bits(ctx, &M, "natural", what);
      bcsr_free(&M);
    }
    M = make_random(small ? 1500 : 6000, 1, 40, 90, 30.0, 0, 0);
    check_ref_bits(ctx, &M, "natural", "csr random, long rows");
    setenv("PDS_CUDA_ILU0_WARP_ROWS", "0", 1), setenv("PDS_CUDA_ILU0_WARP_SWEEPS", "0", 1);
    check_ref_bits_v(ctx, &M, "natural", 0, "csr random, long rows, a thread per row"), bcsr_free(&M);
    /* a thread per row with the factor copied level by level (/gpu/cuda's default for wide levels), and without */
    M = make_grid(small ? 40 : 128, 2, 1), check_ref_bits_v(ctx, &M, "natural", 0, "csr 5-point grid, level copy");
    setenv("PDS_CUDA_ILU0_LEVEL_COPY", "0", 1);
    check_ref_bits_v(ctx, &M, "natural", 0, "csr 5-point grid, a thread per row, no level copy"), bcsr_free(&M);
    unsetenv("PDS_CUDA_ILU0_LEVEL_COPY");
    setenv("PDS_CUDA_ILU0_WARP_ROWS", "1", 1), setenv("PDS_CUDA_ILU0_WARP_SWEEPS", "1", 1);
    M = make_grid(small ? 40 : 128, 2, 1), check_ref_bits_v(ctx, &M, "rcm", 0, "csr 5-point grid, a warp per row");
    bcsr_free(&M);
    M = make_random(300, 1, 17, 2, 6.0, 7, 1);
    check_against_dense(ctx, &M, 4.0, "csr, diagonals missing, shift 4, a warp per row"), bcsr_free(&M);
    unsetenv("PDS_CUDA_ILU0_WARP_ROWS"), unsetenv("PDS_CUDA_ILU0_WARP_SWEEPS");
    /* a singular diagonal block (a zero row) in the first block row (nothing updates it) of a 5 x 5 bsr matrix */
    {
      pds_mat     A;
      pds_precond P;

      M = make_random(50, 5, 7, 2, 20.0, 0, 0);
      for (pds_size p = M.rp[0]; p < M.rp[1]; p++)
        if (M.ci[p] == 0)
          for (int v = 0; v < 5; v++) M.v[p * 25 + 2 * 5 + v] = 0; /* row 2: stays zero in every elimination step */
      A = to_mat(ctx, &M);
      TEST_CALL(pds_precond_create(ctx, "ilu0", &P));
      TEST_CALL(pds_precond_set_operator(P, A));
      TEST_ASSERT_ERR(ctx, pds_precond_setup(P), PDS_ERR_ZERO_PIVOT, "block row 0 is singular");
      pds_precond_destroy(&P), pds_mat_destroy(&A), bcsr_free(&M);
    }
  }
  {
    bcsr M;

    M = make_grid(20, 2, 1), check_approx_limit(ctx, &M, "natural", "csr 5-point 20^2"), bcsr_free(&M);
    M = make_grid(20, 2, 1), check_approx_limit(ctx, &M, "rcm", "csr 5-point 20^2, rcm"), bcsr_free(&M);
    M = make_random(300, 1, 17, 2, 6.0, 0, 1), check_approx_limit(ctx, &M, "natural", "csr random"), bcsr_free(&M);
    M = make_grid(6, 3, 3), check_approx_limit(ctx, &M, "natural", "bsr 3 x 3 7-point 6^3"), bcsr_free(&M);
  }
  check_errors_and_refactor(ctx);
  check_stencil7(ctx);
  check_rcm(ctx);
  check_multicolor(ctx);
  check_gmres(ctx);
  test_finalize(&ctx);
  return 0;
}
