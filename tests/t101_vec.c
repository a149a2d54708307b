/* tests/t101_vec.c: vector operations against hand-computed values, sizes, access rules, determinism. */
#include "test.h"

int main(int argc, char **argv) {
  pds_ctx         ctx = test_init(argc, argv);
  pds_vec         x, y, w, z, e;
  pds_real        d, d2, nrm, xa[5] = {1, -2, 3, -4, 5}, ya[5] = {2, 2, 2, 2, 2}, out[5];
  const pds_real *r;
  pds_real       *wa;
  pds_size        n;

  TEST_CALL(pds_vec_create(ctx, 5, &x));
  TEST_CALL(pds_vec_duplicate(x, &y));
  TEST_CALL(pds_vec_duplicate(x, &w));
  TEST_CALL(pds_vec_get_size(y, &n));
  TEST_ASSERT(n == 5);
  TEST_CALL(pds_vec_set_values(x, xa, PDS_MEM_HOST));
  TEST_CALL(pds_vec_set_values(y, ya, PDS_MEM_HOST));
  TEST_CALL(pds_vec_dot(x, y, &d));
  TEST_ASSERT(d == 6.0);
  TEST_CALL(pds_vec_norm2(x, &nrm));
  TEST_ASSERT_NEAR(nrm, sqrt(55.0), 1e-15, 0);
  TEST_CALL(pds_vec_norm_inf(x, &nrm));
  TEST_ASSERT(nrm == 5.0);
  TEST_CALL(pds_vec_waxpy(w, 2.0, x, y)); /* w = 2x + y */
  TEST_CALL(pds_vec_get_values(w, out, PDS_MEM_HOST));
  for (int i = 0; i < 5; i++) TEST_ASSERT(out[i] == 2 * xa[i] + ya[i]);
  TEST_CALL(pds_vec_axpby(w, 1.0, x, -1.0)); /* w = x - w = -x - y */
  TEST_CALL(pds_vec_get_values(w, out, PDS_MEM_HOST));
  for (int i = 0; i < 5; i++) TEST_ASSERT(out[i] == -xa[i] - ya[i]);
  TEST_CALL(pds_vec_aypx(w, 0.5, x)); /* w = x + w/2 */
  TEST_CALL(pds_vec_axpy(w, 3.0, y));  /* w += 3y */
  TEST_CALL(pds_vec_get_values(w, out, PDS_MEM_HOST));
  for (int i = 0; i < 5; i++) TEST_ASSERT_NEAR(out[i], xa[i] + 0.5 * (-xa[i] - ya[i]) + 3 * ya[i], 1e-15, 0);
  TEST_CALL(pds_vec_pointwise_mult(w, x, y));
  TEST_CALL(pds_vec_pointwise_divide(w, w, y));
  TEST_CALL(pds_vec_get_values(w, out, PDS_MEM_HOST));
  for (int i = 0; i < 5; i++) TEST_ASSERT(out[i] == xa[i]);
  TEST_CALL(pds_vec_scale(w, -2.0));
  TEST_CALL(pds_vec_copy(w, y));
  TEST_CALL(pds_vec_get_values(y, out, PDS_MEM_HOST));
  for (int i = 0; i < 5; i++) TEST_ASSERT(out[i] == -2 * xa[i]);
  TEST_CALL(pds_vec_set(y, 7.0));
  TEST_CALL(pds_vec_get_array_read(y, PDS_MEM_HOST, &r));
  TEST_ASSERT(r[4] == 7.0);
  /* a write while a read is open is refused; so is destroy */
  TEST_ASSERT_ERR(ctx, pds_vec_get_array_write(y, PDS_MEM_HOST, &wa), PDS_ERR_STATE, "restore");
  TEST_ASSERT_ERR(ctx, pds_vec_set(y, 1.0), PDS_ERR_STATE, "read access");
  TEST_ASSERT_ERR(ctx, pds_vec_destroy(&y), PDS_ERR_STATE, "restore");
  TEST_CALL(pds_vec_restore_array_read(y, &r));
  TEST_ASSERT_ERR(ctx, pds_vec_restore_array_read(y, &r), PDS_ERR_STATE, "no read access");
  TEST_CALL(pds_vec_get_array_write(y, PDS_MEM_HOST, &wa));
  wa[0] = 11;
  TEST_CALL(pds_vec_restore_array_write(y, &wa));
  TEST_CALL(pds_vec_norm_inf(y, &nrm));
  TEST_ASSERT(nrm == 11.0);
  /* NaN shows in the infinity norm */
  TEST_CALL(pds_vec_get_array_write(y, PDS_MEM_HOST, &wa));
  wa[2] = NAN;
  TEST_CALL(pds_vec_restore_array_write(y, &wa));
  TEST_CALL(pds_vec_norm_inf(y, &nrm));
  TEST_ASSERT(isnan(nrm));
  /* size mismatch names both lengths */
  TEST_CALL(pds_vec_create(ctx, 4, &z));
  TEST_ASSERT_ERR(ctx, pds_vec_axpy(z, 1.0, x), PDS_ERR_SIZE, "length 5");
  TEST_ASSERT_ERR(ctx, pds_vec_dot(x, z, &d), PDS_ERR_SIZE, "has 4");
  TEST_ASSERT_ERR(NULL, pds_vec_copy(NULL, x), PDS_ERR_ARG, "");
  /* n = 0 */
  TEST_CALL(pds_vec_create(ctx, 0, &e));
  TEST_CALL(pds_vec_set(e, 1.0));
  TEST_CALL(pds_vec_dot(e, e, &d));
  TEST_ASSERT(d == 0.0);
  TEST_CALL(pds_vec_norm_inf(e, &d));
  TEST_ASSERT(d == 0.0);
  /* deterministic reductions on a long vector: same bits every time */
  {
    pds_vec a, b;

    TEST_CALL(pds_vec_create(ctx, 1000003, &a));
    TEST_CALL(pds_vec_duplicate(a, &b));
    TEST_CALL(pds_vec_set_random(a, 1));
    TEST_CALL(pds_vec_set_random(b, 2));
    TEST_CALL(pds_vec_dot(a, b, &d));
    for (int rep = 0; rep < 5; rep++) {
      TEST_CALL(pds_vec_dot(a, b, &d2));
      TEST_ASSERT(memcmp(&d, &d2, sizeof d) == 0);
    }
    TEST_CALL(pds_vec_destroy(&a));
    TEST_CALL(pds_vec_destroy(&b));
  }
  TEST_CALL(pds_vec_destroy(&x));
  TEST_CALL(pds_vec_destroy(&y));
  TEST_CALL(pds_vec_destroy(&w));
  TEST_CALL(pds_vec_destroy(&z));
  TEST_CALL(pds_vec_destroy(&e));
  TEST_ASSERT(x == NULL);
  test_finalize(&ctx);
  return 0;
}
