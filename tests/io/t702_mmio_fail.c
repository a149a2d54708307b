/* tests/io/t702_mmio_fail.c: Matrix Market failures: each kind of malformed file gives PDS_ERR_FORMAT (or
 * PDS_ERR_UNSUPPORTED) naming the line and the problem, missing/unreadable/unwritable files give PDS_ERR_IO, and
 * every injected allocation failure gives PDS_ERR_MEM with nothing leaked (the sanitizer build checks). */
#define _POSIX_C_SOURCE 200809L
#include "test.h"
#include "mm_test_util.h"

#define BAN   "%%MatrixMarket matrix coordinate real general\n"
#define SYM   "%%MatrixMarket matrix coordinate real symmetric\n"
#define SKEW  "%%MatrixMarket matrix coordinate real skew-symmetric\n"
#define ARR   "%%MatrixMarket matrix array real general\n"

enum { MAT = 0, VEC = 1 };

static const struct {
  const char *name;
  const char *content;
  int         kind; /* MAT or VEC: which reader */
  int         code;
  const char *line; /* "line N:" */
  const char *what;
} bad[] = {
  /* banner */
  {"empty", "", MAT, PDS_ERR_FORMAT, "line 1:", "the file is empty"},
  {"blank", "\n  \n", MAT, PDS_ERR_FORMAT, "line 3:", "the file is empty"},
  {"nobanner", "3 3 1\n1 1 1\n", MAT, PDS_ERR_FORMAT, "line 1:", "missing Matrix Market banner"},
  {"object", "%%MatrixMarket vector coordinate real general\n1 1 1\n", MAT, PDS_ERR_FORMAT, "line 1:",
   "object 'vector' is not 'matrix'"},
  {"format", "%%MatrixMarket matrix coord real general\n", MAT, PDS_ERR_FORMAT, "line 1:", "unknown format 'coord'"},
  {"short", "%%MatrixMarket matrix coordinate real\n", MAT, PDS_ERR_FORMAT, "line 1:", "incomplete banner"},
  {"banner_trail", "%%MatrixMarket matrix coordinate real general extra\n", MAT, PDS_ERR_FORMAT, "line 1:",
   "trailing garbage 'extra' after the banner"},
  {"field", "%%MatrixMarket matrix coordinate double general\n", MAT, PDS_ERR_FORMAT, "line 1:",
   "unknown field 'double'"},
  {"symmetry", "%%MatrixMarket matrix coordinate real upper\n", MAT, PDS_ERR_FORMAT, "line 1:",
   "unknown symmetry 'upper'"},
  {"arraypattern", "%%MatrixMarket matrix array pattern general\n2 1\n", VEC, PDS_ERR_FORMAT, "line 1:",
   "cannot have field 'pattern'"},
  {"complex", "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n", MAT, PDS_ERR_UNSUPPORTED,
   "line 1:", "field 'complex' is not supported"},
  {"hermitian", "%%MatrixMarket matrix coordinate real Hermitian\n1 1 1\n1 1 1\n", MAT, PDS_ERR_UNSUPPORTED, "line 1:",
   "symmetry 'hermitian' is not supported"},
  /* size line */
  {"nosize", BAN "% c\n\n", MAT, PDS_ERR_FORMAT, "line 4:", "missing size line"},
  {"size_nonint", BAN "% c\n3 x 4\n", MAT, PDS_ERR_FORMAT, "line 3:",
   "bad size line: column count 'x' is not an integer"},
  {"size_word", BAN "abc\n", MAT, PDS_ERR_FORMAT, "line 2:", "bad size line: row count 'abc' is not an integer"},
  {"size_few", BAN "3 3\n", MAT, PDS_ERR_FORMAT, "line 2:",
   "bad size line: entry count is missing (expected 'rows columns entries')"},
  {"size_trail", BAN "3 3 1 7\n1 1 1\n", MAT, PDS_ERR_FORMAT, "line 2:", "trailing garbage '7' on the size line"},
  {"size_neg", BAN "-3 3 1\n", MAT, PDS_ERR_FORMAT, "line 2:", "bad size line: row count -3 is out of range"},
  {"size_big", BAN "3 3000000000 1\n", MAT, PDS_ERR_FORMAT, "line 2:",
   "bad size line: column count 3000000000 is out of range"},
  {"size_nnz", BAN "2 2 5\n", MAT, PDS_ERR_FORMAT, "line 2:", "5 entries do not fit in a 2 x 2 general matrix"},
  {"size_nnzsym", SYM "2 2 4\n", MAT, PDS_ERR_FORMAT, "line 2:", "4 entries do not fit in a 2 x 2 symmetric matrix"},
  {"size_huge", BAN "5 5 99999999999999999999999\n", MAT, PDS_ERR_FORMAT, "line 2:",
   "entry count 99999999999999999999999 is out of range"},
  {"size_square", SYM "3 4 1\n", MAT, PDS_ERR_FORMAT, "line 2:", "a symmetric matrix must be square"},
  {"array_trail", ARR "2 1 2\n1\n2\n", VEC, PDS_ERR_FORMAT, "line 2:", "trailing garbage '2' on the size line"},
  /* entry count */
  {"truncated", BAN "3 3 4\n1 1 1\n2 2 1\n", MAT, PDS_ERR_FORMAT, "line 5:", "expected 4 entries, found 2"},
  {"truncated_comment", BAN "3 3 2\n1 1 1\n% x\n", MAT, PDS_ERR_FORMAT, "line 5:", "expected 2 entries, found 1"},
  {"toomany", BAN "3 3 1\n1 1 1\n2 2 2\n", MAT, PDS_ERR_FORMAT, "line 4:",
   "too many entries: the size line (line 2) declares 1"},
  /* indices */
  {"row_range", BAN "3 3 2\n1 1 1\n4 1 1\n", MAT, PDS_ERR_FORMAT, "line 4:", "row index 4 is out of range [1, 3]"},
  {"col_zero", BAN "3 3 1\n1 0 1\n", MAT, PDS_ERR_FORMAT, "line 3:", "column index 0 is out of range [1, 3]"},
  {"row_neg", BAN "3 3 1\n-1 1 1\n", MAT, PDS_ERR_FORMAT, "line 3:", "row index -1 is out of range"},
  {"row_huge", BAN "3 3 1\n123456789012345678901234567890 1 1\n", MAT, PDS_ERR_FORMAT, "line 3:",
   "row index 123456789012345678901234567890 is out of range"},
  {"row_word", BAN "3 3 1\nx 1 1\n", MAT, PDS_ERR_FORMAT, "line 3:", "row index 'x' is not an integer"},
  {"row_real", BAN "3 3 1\n1.5 1 1\n", MAT, PDS_ERR_FORMAT, "line 3:", "row index '1.5' is not an integer"},
  {"col_missing", BAN "3 3 1\n1\n", MAT, PDS_ERR_FORMAT, "line 3:", "column index is missing"},
  /* values */
  {"val_missing", BAN "3 3 1\n1 1\n", MAT, PDS_ERR_FORMAT, "line 3:",
   "value is missing (expected 'row column value')"},
  {"val_word", BAN "3 3 1\n1 1 abc\n", MAT, PDS_ERR_FORMAT, "line 3:", "value 'abc' is not a number"},
  {"val_suffix", BAN "3 3 1\n1 1 1.0abc\n", MAT, PDS_ERR_FORMAT, "line 3:", "value '1.0abc' is not a number"},
  {"val_nan", BAN "3 3 1\n1 1 nan\n", MAT, PDS_ERR_FORMAT, "line 3:", "value 'nan' is not finite"},
  {"val_inf", BAN "3 3 2\n1 1 1\n2 2 -Inf\n", MAT, PDS_ERR_FORMAT, "line 4:", "value '-Inf' is not finite"},
  {"val_overflow", BAN "3 3 1\n1 1 1e400\n", MAT, PDS_ERR_FORMAT, "line 3:", "value '1e400' is not finite"},
  {"val_int", "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 1.5\n", MAT, PDS_ERR_FORMAT, "line 3:",
   "value '1.5' is not an integer"},
  {"dup_overflow", BAN "2 2 2\n1 1 1e308\n1 1 1e308\n", MAT, PDS_ERR_FORMAT, "line 3:",
   "duplicate entries of (1, 1) sum to a non-finite value"},
  /* trailing garbage */
  {"trail", BAN "3 3 1\n1 1 1.0 2.0\n", MAT, PDS_ERR_FORMAT, "line 3:", "trailing garbage '2.0' after the entry"},
  {"trail_pattern", "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 1 1.0\n", MAT, PDS_ERR_FORMAT,
   "line 3:", "trailing garbage '1.0' after the entry (expected 'row column')"},
  /* symmetric storage */
  {"sym_upper", SYM "3 3 2\n1 1 1\n1 2 1\n", MAT, PDS_ERR_FORMAT, "line 4:",
   "entry (1, 2) is in the upper triangle, but a symmetric file stores only the lower triangle"},
  {"skew_diag", SKEW "3 3 1\n2 2 1\n", MAT, PDS_ERR_FORMAT, "line 3:", "diagonal entry (2, 2) in a skew-symmetric"},
  {"skew_upper", SKEW "3 3 1\n1 3 1\n", MAT, PDS_ERR_FORMAT, "line 3:", "entry (1, 3) is in the upper triangle"},
  /* vectors */
  {"vec_matrix", BAN "3 3 1\n1 1 1\n", VEC, PDS_ERR_FORMAT, "line 2:", "3 x 3 matrix, not a vector"},
  {"vec_cols", ARR "2 2\n1\n2\n3\n4\n", VEC, PDS_ERR_FORMAT, "line 2:", "2 x 2 matrix, not a vector"},
  {"vec_truncated", ARR "% c\n3 1\n1\n2\n", VEC, PDS_ERR_FORMAT, "line 6:", "expected 3 entries, found 2"},
  {"vec_toomany", ARR "2 1\n1\n2\n3\n", VEC, PDS_ERR_FORMAT, "line 5:", "too many entries"},
  {"vec_two", ARR "2 1\n1 2\n3\n", VEC, PDS_ERR_FORMAT, "line 3:", "trailing garbage '2' after the entry"},
  {"vec_col", BAN "3 1 1\n1 2 1\n", VEC, PDS_ERR_FORMAT, "line 3:", "column index 2 is out of range [1, 1]"},
  {"vec_nan", ARR "2 1\n1\nNaN\n", VEC, PDS_ERR_FORMAT, "line 4:", "value 'NaN' is not finite"},
  {"vec_word", ARR "2 1\n1\n1,5\n", VEC, PDS_ERR_FORMAT, "line 4:", "value '1,5' is not a number"},
};

/* The read must fail with code, leave the handle NULL, and say where and what (and the path, for files). */
static void expect_fail(pds_ctx ctx, const char *path, int kind, int code, const char *line, const char *what) {
  pds_mat     A = (pds_mat)&A;
  pds_vec     v = (pds_vec)&v;
  int         ierr = kind == VEC ? pds_mm_read_vec(ctx, path, &v) : pds_mm_read_mat(ctx, path, &A);
  const char *msg  = pds_ctx_get_error(ctx);

  if (ierr != code) TEST_FAIL("%s: returned %s, expected %s", path, pds_error_name(ierr), pds_error_name(code));
  if (kind == VEC ? v != NULL : A != NULL) TEST_FAIL("%s: the output handle was not set to NULL", path);
  if (line && !strstr(msg, line)) TEST_FAIL("%s: message '%s' lacks '%s'", path, msg, line);
  if (!strstr(msg, what)) TEST_FAIL("%s: message '%s' lacks '%s'", path, msg, what);
  if (!strstr(msg, path)) TEST_FAIL("%s: message '%s' does not name the file", path, msg);
  pds_ctx_clear_error(ctx);
}

static int shell_apply(void *user, pds_vec x, pds_vec y) {
  (void)user;
  return pds_vec_copy(x, y);
}

static void test_malformed(pds_ctx ctx) {
  char name[64];

  for (size_t t = 0; t < sizeof bad / sizeof bad[0]; t++) {
    snprintf(name, sizeof name, "%s.mtx", bad[t].name);
    expect_fail(ctx, mm_test_file(name, bad[t].content), bad[t].kind, bad[t].code, bad[t].line, bad[t].what);
  }
  /* a NUL byte inside a data line */
  {
    static const char nul[] = BAN "3 3 1\n1 1 1\0 5\n";

    expect_fail(ctx, mm_test_file_n("nul.mtx", nul, (long)sizeof nul - 1), MAT, PDS_ERR_FORMAT, "line 3:",
                "is not a number");
  }
  /* a line longer than the read block */
  {
    size_t      len  = (size_t)5 << 20;
    char       *big  = malloc(len + 64);
    int         head = snprintf(big, 64, "%s", BAN "3 3 1\n1 1 1");
    const char *path;

    TEST_ASSERT(big);
    memset(big + head, ' ', len);
    big[head + len] = '\n';
    path            = mm_test_file_n("longline.mtx", big, (long)(head + len + 1));
    free(big);
    expect_fail(ctx, path, MAT, PDS_ERR_FORMAT, "line 3:", "line is longer than");
  }
}

static void test_io_errors(pds_ctx ctx) {
  pds_mat     A = NULL, S = NULL;
  pds_vec     x = NULL;
  const char *good = mm_test_file("good.mtx", BAN "2 2 2\n1 1 1\n2 2 2\n");
  const char *gvec = mm_test_file("goodvec.mtx", ARR "2 1\n1\n2\n");
  char        path[1200];
  FILE       *f;

  /* missing file, a folder */
  expect_fail(ctx, mm_test_path("nonesuch.mtx"), MAT, PDS_ERR_IO, NULL, "cannot open");
  expect_fail(ctx, mm_test_path("nonesuch.mtx"), VEC, PDS_ERR_IO, NULL, "No such file");
  expect_fail(ctx, mm_test_dir, MAT, PDS_ERR_IO, NULL, "cannot read");
  /* bad arguments */
  TEST_ASSERT_ERR(ctx, pds_mm_read_mat(ctx, NULL, &A), PDS_ERR_ARG, "path is NULL");
  TEST_ASSERT_ERR(ctx, pds_mm_read_mat(ctx, good, NULL), PDS_ERR_ARG, "output handle");
  TEST_ASSERT_ERR(ctx, pds_mm_read_vec(ctx, NULL, &x), PDS_ERR_ARG, "path is NULL");
  TEST_ASSERT(pds_mm_read_mat(NULL, good, &A) == PDS_ERR_ARG);
  TEST_ASSERT(pds_mm_write_mat(NULL, good) == PDS_ERR_ARG);
  TEST_ASSERT(pds_mm_write_vec(NULL, good) == PDS_ERR_ARG);
  /* unwritable paths */
  TEST_CALL(pds_mm_read_mat(ctx, good, &A));
  TEST_CALL(pds_mm_read_vec(ctx, gvec, &x));
  snprintf(path, sizeof path, "%s/no/such/folder/out.mtx", mm_test_dir);
  TEST_ASSERT_ERR(ctx, pds_mm_write_mat(A, path), PDS_ERR_IO, "for writing");
  TEST_ASSERT_ERR(ctx, pds_mm_write_vec(x, path), PDS_ERR_IO, "no/such/folder");
  TEST_ASSERT_ERR(ctx, pds_mm_write_mat(A, NULL), PDS_ERR_ARG, "path is NULL");
  /* a device that is always full: the error shows when the data is flushed */
  f = fopen("/dev/full", "w");
  if (f) {
    fclose(f);
    TEST_ASSERT_ERR(ctx, pds_mm_write_mat(A, "/dev/full"), PDS_ERR_IO, "cannot write '/dev/full'");
    TEST_ASSERT_ERR(ctx, pds_mm_write_vec(x, "/dev/full"), PDS_ERR_IO, "cannot write '/dev/full'");
  }
  /* a shell matrix has no entries to write */
  TEST_CALL(pds_mat_create_shell(ctx, 2, 2, NULL, shell_apply, &S));
  TEST_ASSERT_ERR(ctx, pds_mm_write_mat(S, mm_test_path("shell.mtx")), PDS_ERR_UNSUPPORTED, "not shell");
  TEST_CALL(pds_mat_destroy(&S));
  TEST_CALL(pds_mat_destroy(&A));
  TEST_CALL(pds_vec_destroy(&x));
}

/* k = 0, 1, 2, ...: the k-th allocation fails; each read returns PDS_ERR_MEM with a NULL handle until k passes
   the number of allocations, and then succeeds. */
static void sweep(pds_ctx ctx, const char *path, int kind) {
  long k;

  for (k = 0; k < 1000; k++) {
    pds_mat A = NULL;
    pds_vec v = NULL;
    int     ierr;

    pds_ctx_set_alloc_fail(ctx, k);
    ierr = kind == VEC ? pds_mm_read_vec(ctx, path, &v) : pds_mm_read_mat(ctx, path, &A);
    pds_ctx_set_alloc_fail(ctx, -1);
    if (!ierr) {
      TEST_ASSERT(kind == VEC ? v != NULL : A != NULL);
      TEST_CALL(pds_mat_destroy(&A));
      TEST_CALL(pds_vec_destroy(&v));
      break;
    }
    if (ierr != PDS_ERR_MEM)
      TEST_FAIL("%s with allocation %ld failing: %s (%s)", path, k, pds_error_name(ierr), pds_ctx_get_error(ctx));
    TEST_ASSERT(A == NULL && v == NULL);
    TEST_ASSERT(strstr(pds_ctx_get_error(ctx), "injected"));
    pds_ctx_clear_error(ctx);
  }
  TEST_ASSERT(k > 0 && k < 1000);
}

static void test_alloc_failures(pds_ctx ctx) {
  size_t n = 70000, len = 0, cap = 64 + n * 2 * 24;
  char  *big = malloc(cap);
  pds_vec x  = NULL;

  sweep(ctx, mm_test_file("s_sym.mtx", SYM "% c\n3 3 4\n1 1 2\n2 1 -1\n3 3 2\n2 1 0.5\n"), MAT);
  sweep(ctx, mm_test_file("s_gen.mtx", BAN "2 3 3\n1 3 1\n2 1 2\n2 2 3\n"), MAT);
  sweep(ctx, mm_test_file("s_arr.mtx", "%%MatrixMarket matrix array real skew-symmetric\n3 3\n1\n2\n3\n"), MAT);
  sweep(ctx, mm_test_file("s_vec.mtx", ARR "3 1\n1\n2\n3\n"), VEC);
  sweep(ctx, mm_test_file("s_cvec.mtx", BAN "3 1 2\n3 1 1\n1 1 2\n"), VEC);
  /* enough entries that the entry arrays grow twice while reading */
  TEST_ASSERT(big);
  len += (size_t)snprintf(big + len, cap - len, "%s%zu %zu %zu\n", BAN, n, n, 2 * n);
  for (size_t i = 1; i <= n; i++)
    len += (size_t)snprintf(big + len, cap - len, "%zu %zu 2\n%zu %zu -1\n", i, i, i, i % n + 1);
  sweep(ctx, mm_test_file_n("s_big.mtx", big, (long)len), MAT);
  free(big);
  /* writing allocates nothing on CPU backends, and must not fail spuriously with the allocator armed */
  TEST_CALL(pds_mm_read_vec(ctx, mm_test_path("s_vec.mtx"), &x));
  pds_ctx_set_alloc_fail(ctx, 0);
  {
    int ierr = pds_mm_write_vec(x, mm_test_path("s_vec_out.mtx"));

    pds_ctx_set_alloc_fail(ctx, -1);
    TEST_ASSERT(ierr == PDS_OK || ierr == PDS_ERR_MEM);
  }
  TEST_CALL(pds_vec_destroy(&x));
}

int main(int argc, char **argv) {
  pds_ctx ctx = test_init(argc, argv);

  mm_test_tmpdir();
  test_malformed(ctx);
  test_io_errors(ctx);
  test_alloc_failures(ctx);
  mm_test_cleanup();
  test_finalize(&ctx);
  return 0;
}
