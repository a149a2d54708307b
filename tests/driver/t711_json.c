/* tests/driver/t711_json.c: the JSON writer (src/io/json.c): layout, escapes, round-trip reals, NaN as null,
 * misuse as PDS_ERR_STATE, and an unwritable path as PDS_ERR_IO. */
#include "test.h"
#include "io/json.h"

/* Everything written to f, as a string in buf. */
static const char *slurp(FILE *f, char *buf, size_t len) {
  size_t n;

  rewind(f);
  n      = fread(buf, 1, len - 1, f);
  buf[n] = '\0';
  return buf;
}

int main(int argc, char **argv) {
  pds_ctx  ctx = test_init(argc, argv);
  pds_json j;
  FILE    *f;
  char     buf[2048];
  double   h[3] = {1.0, 0.1, 1e-300};

  /* compact form: one line */
  f = tmpfile();
  TEST_ASSERT(f);
  TEST_CALL(pds_json_init(&j, ctx, f, 0));
  TEST_CALL(pds_json_begin_object(&j, NULL));
  TEST_CALL(pds_json_string(&j, "s", "a\"b\\c\n\t\x01"));
  TEST_CALL(pds_json_int(&j, "i", -42));
  TEST_CALL(pds_json_real(&j, "r", 0.1));
  TEST_CALL(pds_json_real(&j, "nan", NAN));
  TEST_CALL(pds_json_bool(&j, "t", true));
  TEST_CALL(pds_json_null(&j, "z"));
  TEST_CALL(pds_json_string(&j, "n", NULL));
  TEST_CALL(pds_json_real_array(&j, "h", h, 3));
  TEST_CALL(pds_json_begin_array(&j, "e"));
  TEST_CALL(pds_json_end_array(&j));
  TEST_CALL(pds_json_begin_object(&j, "o"));
  TEST_CALL(pds_json_end_object(&j));
  TEST_CALL(pds_json_end_object(&j));
  TEST_CALL(pds_json_close(&j));
  slurp(f, buf, sizeof buf);
  fclose(f);
  if (strcmp(buf, "{\"s\": \"a\\\"b\\\\c\\n\\t\\u0001\", \"i\": -42, \"r\": 0.10000000000000001, \"nan\": null, "
                  "\"t\": true, \"z\": null, \"n\": null, \"h\": [1, 0.10000000000000001, 1e-300], "
                  "\"e\": [], \"o\": {}}\n"))
    TEST_FAIL("compact output: %s", buf);

  /* indented form */
  f = tmpfile();
  TEST_ASSERT(f);
  TEST_CALL(pds_json_init(&j, ctx, f, 2));
  TEST_CALL(pds_json_begin_object(&j, NULL));
  TEST_CALL(pds_json_int(&j, "a", 1));
  TEST_CALL(pds_json_begin_array(&j, "b"));
  TEST_CALL(pds_json_int(&j, NULL, 2));
  TEST_CALL(pds_json_begin_object(&j, NULL));
  TEST_CALL(pds_json_string(&j, "c", "d"));
  TEST_CALL(pds_json_end_object(&j));
  TEST_CALL(pds_json_end_array(&j));
  TEST_CALL(pds_json_real_array(&j, "h", h, 2));
  TEST_CALL(pds_json_end_object(&j));
  TEST_CALL(pds_json_close(&j));
  slurp(f, buf, sizeof buf);
  fclose(f);
  if (strcmp(buf, "{\n  \"a\": 1,\n  \"b\": [\n    2,\n    {\n      \"c\": \"d\"\n    }\n  ],\n"
                  "  \"h\": [1, 0.10000000000000001]\n}\n"))
    TEST_FAIL("indented output: %s", buf);

  /* misuse: keys where none belong, a missing key, unbalanced ends, unclosed at close; the first error sticks */
  f = tmpfile();
  TEST_ASSERT(f);
  TEST_CALL(pds_json_init(&j, ctx, f, 0));
  TEST_ASSERT_ERR(ctx, pds_json_int(&j, "k", 1), PDS_ERR_STATE, "outside an object");
  TEST_CALL(pds_json_init(&j, ctx, f, 0));
  TEST_CALL(pds_json_begin_object(&j, NULL));
  TEST_ASSERT_ERR(ctx, pds_json_int(&j, NULL, 1), PDS_ERR_STATE, "needs a key");
  TEST_ASSERT(pds_json_int(&j, "k", 1) == PDS_ERR_STATE); /* sticky */
  TEST_CALL(pds_json_init(&j, ctx, f, 0));
  TEST_CALL(pds_json_begin_array(&j, NULL));
  TEST_ASSERT_ERR(ctx, pds_json_int(&j, "k", 1), PDS_ERR_STATE, "inside an array");
  TEST_CALL(pds_json_init(&j, ctx, f, 0));
  TEST_CALL(pds_json_begin_array(&j, NULL));
  TEST_ASSERT_ERR(ctx, pds_json_end_object(&j), PDS_ERR_STATE, "without its begin");
  TEST_CALL(pds_json_init(&j, ctx, f, 0));
  TEST_CALL(pds_json_begin_array(&j, NULL));
  TEST_ASSERT_ERR(ctx, pds_json_close(&j), PDS_ERR_STATE, "not ended");
  TEST_CALL(pds_json_init(&j, ctx, f, 0));
  for (int i = 0; i < PDS_JSON_MAX_DEPTH; i++) TEST_CALL(pds_json_begin_array(&j, NULL));
  TEST_ASSERT_ERR(ctx, pds_json_begin_array(&j, NULL), PDS_ERR_STATE, "deeper");
  TEST_CALL(pds_json_init(&j, ctx, f, 0));
  TEST_CALL(pds_json_int(&j, NULL, 1));
  TEST_ASSERT_ERR(ctx, pds_json_int(&j, NULL, 2), PDS_ERR_STATE, "second top-level");
  fclose(f);

  /* an unwritable path */
  TEST_ASSERT_ERR(ctx, pds_json_open(ctx, "/nonexistent-dir/r.json", 2, &j), PDS_ERR_IO, "r.json");
  test_finalize(&ctx);
  return 0;
}
