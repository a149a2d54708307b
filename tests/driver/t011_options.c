/* tests/driver/t011_options.c: the named-flag parser (src/sys/options.c): values, ranges, errors naming the flag,
 * the used mark, and the help text. */
#include "test.h"
#include "sys/options.h"

/* The options keep pointers into argv, so each argv array lives as long as main. */
#define OPTS(o, av, ...)                                                         \
  char *av[] = {__VA_ARGS__};                                                    \
  TEST_CALL(pds_options_create((int)(sizeof av / sizeof av[0]), av, &(o)))

/* A getter that must fail with a message containing substr. */
#define EXPECT_OPT_ERR(o, call, substr)                                                        \
  do {                                                                                         \
    if ((call) != PDS_ERR_ARG) TEST_FAIL("%s did not fail", #call);                            \
    if (!strstr(pds_options_get_error(o), (substr)))                                           \
      TEST_FAIL("%s: message '%s' lacks '%s'", #call, pds_options_get_error(o), (substr));     \
  } while (0)

static char a0[] = "-n", a1[] = "32", a2[] = "16", a3[] = "8", a4[] = "-rtol", a5[] = "-1e-3", a6[] = "-monitor",
            a7[] = "--solver", a8[] = "cg", a9[] = "-maxit", a10[] = "50", a11[] = "-maxit", a12[] = "60",
            a13[] = "-unused", a14[] = "-bad", a15[] = "12x", a16[] = "-big", a17[] = "3000000000", a18[] = "-pc",
            a19[] = "nope", a20[] = "stray", a21[] = "-help", a22[] = "-view", a23[] = "no", a24[] = "-x",
            a25[] = "-o", a26[] = "";

int main(void) {
  pds_options o;
  int         n, vals[3], iv;
  double      rv;
  bool        bv, set;
  const char *sv;
  static const char *const pcs[] = {"none", "jacobi"};

  /* values, negative numbers as values, --long form, last occurrence wins */
  OPTS(o, av1, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12);
  TEST_ASSERT(pds_options_has(o, "-n") && !pds_options_has(o, "-x") && !pds_options_help(o));
  TEST_CALL(pds_options_get_int_list(o, "-n", 0, NULL, 3, 1, 100, "grid", vals, &n, &set));
  TEST_ASSERT(set && n == 3 && vals[0] == 32 && vals[1] == 16 && vals[2] == 8);
  TEST_CALL(pds_options_get_real(o, "-rtol", 1e-8, -1, 1, "rtol", &rv, &set));
  TEST_ASSERT(set && rv == -1e-3);
  TEST_CALL(pds_options_get_bool(o, "-monitor", false, "monitor", &bv, &set));
  TEST_ASSERT(set && bv);
  TEST_CALL(pds_options_get_string(o, "-solver", "bicgstab", "solver", &sv, &set));
  TEST_ASSERT(set && !strcmp(sv, "cg"));
  TEST_CALL(pds_options_get_int(o, "-maxit", 10, 0, 1000, "maxit", &iv, &set));
  TEST_ASSERT(set && iv == 60);
  /* absent flags give the default and set = false */
  TEST_CALL(pds_options_get_int(o, "-restart", 30, 1, 100, "restart", &iv, &set));
  TEST_ASSERT(!set && iv == 30);
  TEST_CALL(pds_options_get_choice(o, "-pc", "none", pcs, 2, "pc", &sv, &set));
  TEST_ASSERT(!set && !strcmp(sv, "none"));
  TEST_CALL(pds_options_check_unused(o));
  TEST_CALL(pds_options_destroy(&o));
  TEST_ASSERT(o == NULL);
  TEST_CALL(pds_options_destroy(&o));

  /* errors name the flag */
  OPTS(o, av2, a13, a14, a15, a16, a17, a18, a19, a22, a23, a24, a25, a26);
  EXPECT_OPT_ERR(o, pds_options_get_int(o, "-bad", 0, 0, 100, "d", &iv, NULL), "-bad: '12x' is not an integer");
  EXPECT_OPT_ERR(o, pds_options_get_real(o, "-bad", 0, 0, 100, "d", &rv, NULL), "-bad");
  EXPECT_OPT_ERR(o, pds_options_get_int(o, "-big", 0, 0, 100, "d", &iv, NULL), "-big");
  EXPECT_OPT_ERR(o, pds_options_get_real(o, "-big", 0, 0, 100, "d", &rv, NULL), "out of range");
  EXPECT_OPT_ERR(o, pds_options_get_choice(o, "-pc", "none", pcs, 2, "d", &sv, NULL), "'nope' (choose from none, jacobi)");
  EXPECT_OPT_ERR(o, pds_options_get_int(o, "-x", 0, 0, 100, "d", &iv, NULL), "-x is missing its value");
  EXPECT_OPT_ERR(o, pds_options_get_string(o, "-o", NULL, "d", &sv, NULL), "-o: the value is empty");
  TEST_CALL(pds_options_get_bool(o, "-view", true, "d", &bv, &set));
  TEST_ASSERT(set && !bv);
  EXPECT_OPT_ERR(o, pds_options_check_unused(o), "unknown flag -unused");
  TEST_CALL(pds_options_destroy(&o));

  /* a value before any flag */
  OPTS(o, av3, a20, a6);
  TEST_CALL(pds_options_get_bool(o, "-monitor", false, "d", &bv, NULL));
  EXPECT_OPT_ERR(o, pds_options_check_unused(o), "unexpected argument 'stray'");
  TEST_CALL(pds_options_destroy(&o));

  /* -help: getters do not fail, unused flags are fine, the help text lists each flag once with its default */
  OPTS(o, av4, a14, a15, a21, a13);
  TEST_ASSERT(pds_options_help(o));
  TEST_CALL(pds_options_begin_section(o, "section:"));
  TEST_CALL(pds_options_get_int(o, "-bad", 7, 0, 100, "a bad one", &iv, NULL));
  TEST_ASSERT(iv == 7);
  TEST_CALL(pds_options_get_int(o, "-bad", 7, 0, 100, "a bad one", &iv, NULL));
  TEST_CALL(pds_options_get_string(o, "-A", NULL, "<file.mtx> the matrix", &sv, NULL));
  TEST_CALL(pds_options_check_unused(o));
  {
    FILE *f = tmpfile();
    char  buf[1024];
    size_t len;

    TEST_ASSERT(f);
    TEST_CALL(pds_options_print_help(o, f));
    rewind(f);
    len      = fread(buf, 1, sizeof buf - 1, f);
    buf[len] = '\0';
    fclose(f);
    TEST_ASSERT(strstr(buf, "section:\n"));
    TEST_ASSERT(strstr(buf, "  -bad <int>") && strstr(buf, "a bad one (default: 7)"));
    TEST_ASSERT(!strstr(strstr(buf, "  -bad") + 1, "  -bad")); /* read twice, listed once */
    TEST_ASSERT(strstr(buf, "  -A <file.mtx>") && strstr(buf, "the matrix (default: none)"));
  }
  TEST_CALL(pds_options_destroy(&o));

  /* no arguments at all */
  TEST_CALL(pds_options_create(0, NULL, &o));
  TEST_CALL(pds_options_check_unused(o));
  TEST_CALL(pds_options_destroy(&o));
  return 0;
}
