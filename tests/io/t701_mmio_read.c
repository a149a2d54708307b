/* tests/io/t701_mmio_read.c: Matrix Market reading of the shared real matrices and right-hand sides (sizes, nnz,
 * every entry against an independent sscanf reader), small files with every supported layout, and bitwise
 * round trips of csr, bsr and vectors through pds_mm_write_*. */
#define _POSIX_C_SOURCE 200809L
#include "test.h"
#include "mm_test_util.h"

/* The matrices of ../shared/matrices/MANIFEST.md: rows = cols, 'nnz full' and one known entry (a data line). */
static const struct {
  const char *name;
  pds_int     n;
  pds_size    nnz_full;
  int         symmetric;
  pds_int     i, j; /* 1-based, as in the file */
  const char *value;
} shared_mats[] = {
  {"bcsstk13", 2003, 83883, 1, 1, 1, "277281165.183"},
  {"bcsstk21", 3600, 26600, 1, 7, 1, "-2.9e6"},
  {"crystm01", 4875, 105339, 1, 1, 1, "5.13350676000065e-14"},
  {"s1rmq4m1", 5489, 281111, 1, 2, 1, "466.816169403427"},
  {"nos3", 960, 15844, 1, 2, 1, "4.8849813e-15"},
  {"gr_30_30", 900, 7744, 1, 2, 1, "-1"},
  {"sherman1", 1000, 3750, 1, 1, 1, "-5.649e-03"},
  {"e20r0000", 4241, 131556, 0, 7, 1, "-5.3333337704335e-01"},
  {"e05r0000", 236, 5856, 0, 5, 1, "-2.4888887113993e+00"},
  {"orsirr_1", 1030, 6858, 0, 1, 1, "-1.6809666700000e+04"},
  {"pde900", 900, 4380, 0, 2, 1, "-9.4641120712500e-01"},
  {"cdde1", 961, 4681, 0, 1, 1, ".3970703125000000E+01"},
  {"olm1000", 1000, 3996, 0, 2, 1, ".5"},
  {"utm1700a", 1700, 21313, 0, 171, 1, "7.0710674579590e-01"},
};

static const struct {
  const char *name;
  pds_size    n;
  const char *first;
} shared_rhs[] = {
  {"sherman1_rhs1", 1000, "0.22540000E-04"},
  {"e20r0000_rhs1", 4241, "0.0000000000000e+00"},
  {"e05r0000_rhs1", 236, "0.0000000000000e+00"},
};

/* A(i, j) (0-based) of a csr matrix with rows sorted by column; *found = 0 when not stored. */
static pds_real csr_entry(pds_mat A, pds_int i, pds_int j, int *found) {
  const pds_size *rp;
  const pds_int  *ci;
  const pds_real *v;
  pds_size        lo, hi;

  TEST_CALL(pds_mat_csr_get_arrays(A, &rp, &ci, &v));
  lo = rp[i], hi = rp[i + 1];
  while (lo < hi) {
    pds_size mid = lo + (hi - lo) / 2;

    if (ci[mid] < j) lo = mid + 1;
    else hi = mid;
  }
  *found = lo < rp[i + 1] && ci[lo] == j;
  return *found ? v[lo] : 0.0;
}

static int same_bits(pds_real a, pds_real b) { return !memcmp(&a, &b, sizeof a); }

/* Rows sorted by column, no repeated column, rowptr consistent with nnz. */
static void check_csr_sorted(pds_mat A) {
  const pds_size *rp;
  const pds_int  *ci;
  pds_int         m, n;
  pds_size        nnz;

  TEST_CALL(pds_mat_get_size(A, &m, &n));
  TEST_CALL(pds_mat_get_nnz(A, &nnz));
  TEST_CALL(pds_mat_csr_get_arrays(A, &rp, &ci, NULL));
  TEST_ASSERT(rp[0] == 0 && rp[m] == nnz);
  for (pds_int i = 0; i < m; i++)
    for (pds_size k = rp[i]; k < rp[i + 1]; k++) {
      TEST_ASSERT(ci[k] >= 0 && ci[k] < n);
      if (k > rp[i]) TEST_ASSERT(ci[k] > ci[k - 1]);
    }
}

/* Independent check: every data line of the file, read with fgets/sscanf, is stored bitwise (and its mirror
   when symmetric). With the nnz count equal to 'nnz full', this proves the matrix is exactly the file's. */
static void check_against_file(const char *path, pds_mat A, int symmetric) {
  FILE    *f = fopen(path, "r");
  char     line[512];
  int      have_size = 0;
  pds_size count     = 0, declared = -1;

  TEST_ASSERT(f);
  while (fgets(line, sizeof line, f)) {
    int    i, j, found;
    double x;
    long   m, n, nz;

    if (line[0] == '%' || strspn(line, " \t\r\n") == strlen(line)) continue;
    if (!have_size) {
      TEST_ASSERT(sscanf(line, "%ld %ld %ld", &m, &n, &nz) == 3);
      declared  = nz;
      have_size = 1;
      continue;
    }
    TEST_ASSERT(sscanf(line, "%d %d %lf", &i, &j, &x) == 3);
    if (!same_bits(csr_entry(A, i - 1, j - 1, &found), x) || !found)
      TEST_FAIL("%s: entry (%d, %d) = %.17g of the file is not in the matrix", path, i, j, x);
    if (symmetric && !same_bits(csr_entry(A, j - 1, i - 1, &found), x))
      TEST_FAIL("%s: mirror (%d, %d) of a symmetric entry is wrong", path, j, i);
    count++;
  }
  fclose(f);
  TEST_ASSERT(count == declared);
}

static void check_vec_against_file(const char *path, pds_vec v) {
  FILE           *f = fopen(path, "r");
  char            line[512];
  int             have_size = 0;
  pds_size        k = 0, n;
  const pds_real *a;

  TEST_ASSERT(f);
  TEST_CALL(pds_vec_get_size(v, &n));
  TEST_CALL(pds_vec_get_array_read(v, PDS_MEM_HOST, &a));
  while (fgets(line, sizeof line, f)) {
    double x;

    if (line[0] == '%' || strspn(line, " \t\r\n") == strlen(line)) continue;
    if (!have_size) {
      have_size = 1;
      continue;
    }
    TEST_ASSERT(sscanf(line, "%lf", &x) == 1);
    TEST_ASSERT(k < n);
    if (!same_bits(a[k], x)) TEST_FAIL("%s: value %ld is %.17g, the file has %.17g", path, (long)k + 1, a[k], x);
    k++;
  }
  fclose(f);
  TEST_ASSERT(k == n);
  TEST_CALL(pds_vec_restore_array_read(v, &a));
}

static void test_shared(pds_ctx ctx) {
  char buf[1024], rel[128];

  if (!test_shared_path("matrices/MANIFEST.md", buf, sizeof buf))
    TEST_FAIL("the shared matrices are missing (PDS_SHARED_DIR=%s): this test needs ../shared/matrices",
              PDS_SHARED_DIR);
  for (size_t t = 0; t < sizeof shared_mats / sizeof shared_mats[0]; t++) {
    pds_mat  A = NULL;
    pds_int  m, n;
    pds_size nnz;
    int      bs, found;
    pds_real x;

    snprintf(rel, sizeof rel, "matrices/%s.mtx", shared_mats[t].name);
    TEST_ASSERT(test_shared_path(rel, buf, sizeof buf));
    TEST_CALL(pds_mm_read_mat(ctx, buf, &A));
    TEST_ASSERT(!strcmp(pds_mat_get_type(A), "csr"));
    TEST_CALL(pds_mat_get_size(A, &m, &n));
    TEST_CALL(pds_mat_get_nnz(A, &nnz));
    TEST_CALL(pds_mat_get_block_size(A, &bs));
    if (m != shared_mats[t].n || n != shared_mats[t].n || nnz != shared_mats[t].nnz_full || bs != 1)
      TEST_FAIL("%s: %d x %d with %ld entries, expected %d x %d with %ld", shared_mats[t].name, (int)m, (int)n,
                (long)nnz, (int)shared_mats[t].n, (int)shared_mats[t].n, (long)shared_mats[t].nnz_full);
    x = csr_entry(A, shared_mats[t].i - 1, shared_mats[t].j - 1, &found);
    TEST_ASSERT(found && same_bits(x, strtod(shared_mats[t].value, NULL)));
    if (shared_mats[t].symmetric) {
      x = csr_entry(A, shared_mats[t].j - 1, shared_mats[t].i - 1, &found);
      TEST_ASSERT(found && same_bits(x, strtod(shared_mats[t].value, NULL)));
    }
    check_csr_sorted(A);
    check_against_file(buf, A, shared_mats[t].symmetric);
    TEST_CALL(pds_mat_destroy(&A));
  }
  for (size_t t = 0; t < sizeof shared_rhs / sizeof shared_rhs[0]; t++) {
    pds_vec         b = NULL;
    pds_size        n;
    const pds_real *a;

    snprintf(rel, sizeof rel, "matrices/%s.mtx", shared_rhs[t].name);
    TEST_ASSERT(test_shared_path(rel, buf, sizeof buf));
    TEST_CALL(pds_mm_read_vec(ctx, buf, &b));
    TEST_CALL(pds_vec_get_size(b, &n));
    TEST_ASSERT(n == shared_rhs[t].n);
    TEST_CALL(pds_vec_get_array_read(b, PDS_MEM_HOST, &a));
    TEST_ASSERT(same_bits(a[0], strtod(shared_rhs[t].first, NULL)));
    TEST_CALL(pds_vec_restore_array_read(b, &a));
    check_vec_against_file(buf, b);
    TEST_CALL(pds_vec_destroy(&b));
  }
}

/* Dense copy of a small csr matrix (explicit entries; absent ones NaN so that explicit zeros show). */
static void dense(pds_mat A, pds_real *d, pds_int m, pds_int n) {
  const pds_size *rp;
  const pds_int  *ci;
  const pds_real *v;
  pds_int         mm, nn;

  TEST_CALL(pds_mat_get_size(A, &mm, &nn));
  TEST_ASSERT(mm == m && nn == n);
  TEST_CALL(pds_mat_csr_get_arrays(A, &rp, &ci, &v));
  for (pds_int k = 0; k < m * n; k++) d[k] = NAN;
  for (pds_int i = 0; i < m; i++)
    for (pds_size k = rp[i]; k < rp[i + 1]; k++) d[i * n + ci[k]] = v[k];
  check_csr_sorted(A);
}

static void expect_dense(pds_ctx ctx, const char *name, const char *content, pds_int m, pds_int n,
                         const pds_real *want) {
  pds_mat  A = NULL;
  pds_real d[64];

  if (pds_mm_read_mat(ctx, mm_test_file(name, content), &A)) TEST_FAIL("reading %s failed", name);
  dense(A, d, m, n);
  for (pds_int k = 0; k < m * n; k++)
    if (!(isnan(want[k]) ? isnan(d[k]) : same_bits(d[k], want[k])))
      TEST_FAIL("%s: entry (%d, %d) is %g, expected %g", name, (int)(k / n), (int)(k % n), d[k], want[k]);
  TEST_CALL(pds_mat_destroy(&A));
}

static void expect_vec(pds_ctx ctx, const char *name, const char *content, pds_size n, const pds_real *want) {
  pds_vec         v = NULL;
  pds_size        len;
  const pds_real *a;

  if (pds_mm_read_vec(ctx, mm_test_file(name, content), &v)) TEST_FAIL("reading %s failed", name);
  TEST_CALL(pds_vec_get_size(v, &len));
  TEST_ASSERT(len == n);
  TEST_CALL(pds_vec_get_array_read(v, PDS_MEM_HOST, &a));
  for (pds_size i = 0; i < n; i++)
    if (!same_bits(a[i], want[i])) TEST_FAIL("%s: entry %d is %g, expected %g", name, (int)i, a[i], want[i]);
  TEST_CALL(pds_vec_restore_array_read(v, &a));
  TEST_CALL(pds_vec_destroy(&v));
}

static void test_small_files(pds_ctx ctx) {
  const pds_real N = NAN;

  /* pattern, rectangular, mixed-case banner, comments and blank lines everywhere, CRLF, no final newline */
  {
    const pds_real want[] = {1, N, N, N, 1, 1};
    expect_dense(ctx, "pattern.mtx",
                 "\n%%matrixmarket MATRIX Coordinate PATTERN General\r\n% a comment\r\n\r\n%another\n  \n"
                 "2 3 3\r\n1 1\r\n\r\n2 3\n% a comment among the entries\n  2   2  \r\n\n",
                 2, 3, want);
  }
  {
    const pds_real want[] = {1, N, N, N, 1, N};
    expect_dense(ctx, "noeol.mtx", "%%MatrixMarket matrix coordinate pattern general\n2 3 2\n1 1\n2 2", 2, 3, want);
  }
  /* integer symmetric: mirrored; duplicates summed; an explicit zero is kept */
  {
    const pds_real want[] = {4, 3, N, 3, 0, N, N, N, -7};
    expect_dense(ctx, "intsym.mtx",
                 "%%MatrixMarket matrix coordinate integer symmetric\n3 3 5\n1 1 4\n2 1 1\n2 2 0\n3 3 -7\n2 1 +2\n",
                 3, 3, want);
  }
  /* skew-symmetric: a_ji = -a_ij, no diagonal; number formats strtod knows */
  {
    const pds_real want[] = {N, -0.5, -1e-300, 0.5, N, 0x1.8p1, 1e-300, -3, N};
    expect_dense(ctx, "skew.mtx",
                 "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 3\n2 1 .5\n3 1 1E-300\n3 2 -0x1.8p1\n", 3,
                 3, want);
  }
  /* real general with -0.0 kept, and duplicates summed */
  {
    const pds_real want[] = {-0.0, 3.5, N, N};
    expect_dense(ctx, "dup.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 3\n1 2 1.25\n1 1 -0\n1 2 2.25\n",
                 2, 2, want);
  }
  /* array general (column-major, every entry stored) and array symmetric (lower triangle by columns) */
  {
    const pds_real want[] = {1, 3, 5, 2, 4, 6};
    expect_dense(ctx, "array.mtx", "%%MatrixMarket matrix array real general\n% c\n2 3\n1\n2\n3\n4\n5\n6\n", 2, 3,
                 want);
  }
  {
    const pds_real want[] = {1, 2, 3, 2, 4, 5, 3, 5, 6};
    expect_dense(ctx, "arraysym.mtx", "%%MatrixMarket matrix array integer symmetric\n3 3\n1\n2\n3\n4\n5\n6\n", 3, 3,
                 want);
  }
  {
    const pds_real want[] = {N, -1, -2, 1, N, -3, 2, 3, N};
    expect_dense(ctx, "arrayskew.mtx", "%%MatrixMarket matrix array real skew-symmetric\n3 3\n1\n2\n3\n", 3, 3, want);
  }
  /* empty matrices */
  {
    pds_mat  A = NULL;
    pds_int  m, n;
    pds_size nnz;

    TEST_CALL(pds_mm_read_mat(ctx, mm_test_file("zero.mtx", "%%MatrixMarket matrix coordinate real general\n0 0 0\n"),
                              &A));
    TEST_CALL(pds_mat_get_size(A, &m, &n));
    TEST_CALL(pds_mat_get_nnz(A, &nnz));
    TEST_ASSERT(m == 0 && n == 0 && nnz == 0);
    TEST_CALL(pds_mat_destroy(&A));
    TEST_CALL(pds_mm_read_mat(ctx, mm_test_file("nonz.mtx", "%%MatrixMarket matrix coordinate real symmetric\n4 4 0\n"),
                              &A));
    TEST_CALL(pds_mat_get_size(A, &m, &n));
    TEST_CALL(pds_mat_get_nnz(A, &nnz));
    TEST_ASSERT(m == 4 && n == 4 && nnz == 0);
    TEST_CALL(pds_mat_destroy(&A));
  }
  /* vectors: array with comments; coordinate with one column (zeros filled, duplicates summed, -0 kept) */
  {
    const pds_real want[] = {1.5, -2, 0.1};
    expect_vec(ctx, "vec.mtx", "%%MatrixMarket matrix array real general\n% rhs\n3 1\n1.5\n  -2  \n\n0.1\n", 3, want);
  }
  {
    const pds_real want[] = {0, 5, 0, -0.0, 0};
    expect_vec(ctx, "cvec.mtx",
               "%%MatrixMarket matrix coordinate real general\n5 1 3\n2 1 2\n4 1 -0.0\n2 1 3\n", 5, want);
  }
  {
    const pds_real want[] = {7};
    expect_vec(ctx, "ivec.mtx", "%%MatrixMarket matrix array integer general\n1 1\n7\n", 1, want);
  }
}

/* Numbers in every decimal shape (1 to 20 digits, exponents -40..40, signs, leading and trailing zeros, no
   integer or no fraction part) read exactly as strtod reads them: the reader's fast path must not round
   differently. */
static void test_number_parsing(pds_ctx ctx) {
  static const char *edge[] = {"9007199254740992", "9007199254740993", "9007199254740991e-22", "1e22", "1e23",
                               "1e-22", "1e-23", "123456789012345.6e-7", "0.000", "-0.0e0", "5.", "+.5E+1",
                               "0.22540000E-04", "-.9687500000000000E+00", "4.9406564584124654e-324", "1e-400",
                               "000000000000000000000000001.5", "0.0000000000000000000000000000015",
                               "1234567890123456", "12345678901234567", "7e0", "7E-0", "-1.7976931348623157e308"};
  const size_t        nedge = sizeof edge / sizeof edge[0], nrand = 20000, n = nedge + nrand;
  size_t              cap = 64 + n * 48, len = 0;
  char               *txt = malloc(cap), num[48];
  pds_real           *want = malloc(n * sizeof *want);
  pds_vec             v = NULL;
  const pds_real     *a;
  uint64_t            s = 0x9e3779b97f4a7c15u;

  TEST_ASSERT(txt && want);
  len += (size_t)snprintf(txt + len, cap - len, "%%%%MatrixMarket matrix array real general\n%zu 1\n", n);
  for (size_t k = 0; k < n; k++) {
    if (k < nedge) snprintf(num, sizeof num, "%s", edge[k]);
    else {
      int nd, pt, ex, o = 0;

      s ^= s << 13, s ^= s >> 7, s ^= s << 17;
      nd = 1 + (int)(s % 20), pt = (int)((s >> 8) % (uint64_t)(nd + 1)), ex = (int)((s >> 16) % 81) - 40;
      if ((s >> 24) & 1) num[o++] = '-';
      for (int d = 0; d < nd; d++) {
        if (d == pt) num[o++] = '.';
        num[o++] = (char)('0' + (d == 0 && ((s >> 25) & 1) ? 0 : (int)((s >> (30 + d % 30)) % 10)));
      }
      if (pt == nd) num[o++] = '.';
      if ((s >> 27) & 1) o += snprintf(num + o, sizeof num - (size_t)o, "e%d", ex);
      num[o] = '\0';
    }
    want[k] = strtod(num, NULL);
    if (!isfinite(want[k])) snprintf(num, sizeof num, "0"), want[k] = 0;
    len += (size_t)snprintf(txt + len, cap - len, "%s\n", num);
  }
  TEST_CALL(pds_mm_read_vec(ctx, mm_test_file_n("numbers.mtx", txt, (long)len), &v));
  TEST_CALL(pds_vec_get_array_read(v, PDS_MEM_HOST, &a));
  for (size_t k = 0; k < n; k++)
    if (!same_bits(a[k], want[k])) TEST_FAIL("number %zu reads as %.17g, strtod gives %.17g", k, a[k], want[k]);
  TEST_CALL(pds_vec_restore_array_read(v, &a));
  TEST_CALL(pds_vec_destroy(&v));
  free(txt);
  free(want);
}

/* Write, read back, compare arrays bitwise. */
static void test_round_trip(pds_ctx ctx) {
  char            buf[1024], line[256];
  pds_mat         A = NULL, B = NULL, C = NULL, Bc = NULL;
  pds_vec         x = NULL, y = NULL;
  const pds_size *rp1, *rp2;
  const pds_int  *ci1, *ci2;
  const pds_real *v1, *v2, *a1, *a2;
  pds_int         m1, n1, m2, n2;
  pds_size        nz1, nz2, n;
  const char     *p = mm_test_path("rt_mat.mtx"), *pb = mm_test_path("rt_bsr.mtx"), *pv = mm_test_path("rt_vec.mtx");
  FILE           *f;
  pds_real       *w;
  const pds_real  special[] = {-0.0, 0.0, 4.9406564584124654e-324, 2.2250738585072009e-308, 1.7976931348623157e308,
                               -1.7976931348623157e308, 0.1, 1.0 / 3.0, -2.5e-17, 123456789012345678.0};

  /* csr: nos3, symmetric in the file, written in full */
  TEST_ASSERT(test_shared_path("matrices/nos3.mtx", buf, sizeof buf));
  TEST_CALL(pds_mm_read_mat(ctx, buf, &A));
  TEST_CALL(pds_mm_write_mat(A, p));
  TEST_CALL(pds_mm_read_mat(ctx, p, &C));
  TEST_CALL(pds_mat_get_size(A, &m1, &n1));
  TEST_CALL(pds_mat_get_size(C, &m2, &n2));
  TEST_CALL(pds_mat_get_nnz(A, &nz1));
  TEST_CALL(pds_mat_get_nnz(C, &nz2));
  TEST_ASSERT(m1 == m2 && n1 == n2 && nz1 == nz2);
  TEST_CALL(pds_mat_csr_get_arrays(A, &rp1, &ci1, &v1));
  TEST_CALL(pds_mat_csr_get_arrays(C, &rp2, &ci2, &v2));
  TEST_ASSERT(!memcmp(rp1, rp2, (size_t)(m1 + 1) * sizeof *rp1));
  TEST_ASSERT(!memcmp(ci1, ci2, (size_t)nz1 * sizeof *ci1));
  TEST_ASSERT(!memcmp(v1, v2, (size_t)nz1 * sizeof *v1));
  /* the written file: general banner, a comment naming pdesolve, the size line */
  f = fopen(p, "r");
  TEST_ASSERT(f);
  TEST_ASSERT(fgets(line, sizeof line, f) && !strcmp(line, "%%MatrixMarket matrix coordinate real general\n"));
  TEST_ASSERT(fgets(line, sizeof line, f) && line[0] == '%' && strstr(line, "written by pdesolve"));
  TEST_ASSERT(fgets(line, sizeof line, f) && !strcmp(line, "960 960 15844\n"));
  fclose(f);
  TEST_CALL(pds_mat_destroy(&C));

  /* bsr: every stored block entry is written; reading gives the csr of the bsr */
  TEST_CALL(pds_mat_convert_to_bsr(A, 2, &B));
  TEST_CALL(pds_mm_write_mat(B, pb));
  TEST_CALL(pds_mm_read_mat(ctx, pb, &C));
  TEST_CALL(pds_mat_convert_to_csr(B, &Bc));
  TEST_CALL(pds_mat_get_nnz(B, &nz1));
  TEST_CALL(pds_mat_get_nnz(C, &nz2));
  TEST_ASSERT(nz1 == nz2);
  TEST_CALL(pds_mat_csr_get_arrays(Bc, &rp1, &ci1, &v1));
  TEST_CALL(pds_mat_csr_get_arrays(C, &rp2, &ci2, &v2));
  TEST_ASSERT(!memcmp(rp1, rp2, (size_t)(m1 + 1) * sizeof *rp1));
  TEST_ASSERT(!memcmp(ci1, ci2, (size_t)nz1 * sizeof *ci1));
  TEST_ASSERT(!memcmp(v1, v2, (size_t)nz1 * sizeof *v1));
  TEST_CALL(pds_mat_destroy(&C));
  TEST_CALL(pds_mat_destroy(&Bc));
  TEST_CALL(pds_mat_destroy(&B));
  TEST_CALL(pds_mat_destroy(&A));

  /* vector: random values and the awkward ones */
  TEST_CALL(pds_vec_create(ctx, 1000, &x));
  TEST_CALL(pds_vec_set_random(x, 42));
  TEST_CALL(pds_vec_get_array_write(x, PDS_MEM_HOST, &w));
  for (size_t i = 0; i < sizeof special / sizeof special[0]; i++) w[i * 7] = special[i];
  TEST_CALL(pds_vec_restore_array_write(x, &w));
  TEST_CALL(pds_mm_write_vec(x, pv));
  TEST_CALL(pds_mm_read_vec(ctx, pv, &y));
  TEST_CALL(pds_vec_get_size(y, &n));
  TEST_ASSERT(n == 1000);
  TEST_CALL(pds_vec_get_array_read(x, PDS_MEM_HOST, &a1));
  TEST_CALL(pds_vec_get_array_read(y, PDS_MEM_HOST, &a2));
  TEST_ASSERT(!memcmp(a1, a2, 1000 * sizeof *a1));
  TEST_CALL(pds_vec_restore_array_read(x, &a1));
  TEST_CALL(pds_vec_restore_array_read(y, &a2));
  f = fopen(pv, "r");
  TEST_ASSERT(f);
  TEST_ASSERT(fgets(line, sizeof line, f) && !strcmp(line, "%%MatrixMarket matrix array real general\n"));
  TEST_ASSERT(fgets(line, sizeof line, f) && strstr(line, "written by pdesolve"));
  TEST_ASSERT(fgets(line, sizeof line, f) && !strcmp(line, "1000 1\n"));
  fclose(f);
  TEST_CALL(pds_vec_destroy(&x));
  TEST_CALL(pds_vec_destroy(&y));
}

int main(int argc, char **argv) {
  pds_ctx ctx = test_init(argc, argv);

  mm_test_tmpdir();
  test_shared(ctx);
  test_small_files(ctx);
  test_number_parsing(ctx);
  test_round_trip(ctx);
  mm_test_cleanup();
  test_finalize(&ctx);
  return 0;
}
