/* tests/t102_vec_array.c: vectors on the caller's arrays (pds_vec_create_with_array): used in place, never freed
   by the library, results visible in the array (after a host read on a device backend), a device array wrapped in
   place on /gpu/cuda, and the errors (misaligned, NULL, a device array on a CPU backend). */
#include <stdalign.h>

#include "test.h"

int main(int argc, char **argv) {
  pds_ctx         ctx = test_init(argc, argv);
  int             dev = strcmp(pds_ctx_get_backend(ctx), "/gpu/cuda") == 0;
  alignas(16) pds_real a[8], b[8], c[9];
  pds_vec         x, y, z, w;
  const pds_real *r;
  pds_real       *d, dot;

  for (int i = 0; i < 8; i++) a[i] = i + 1, b[i] = 2;
  TEST_CALL(pds_vec_create_with_array(ctx, 8, PDS_MEM_HOST, a, &x));
  TEST_CALL(pds_vec_create_with_array(ctx, 8, PDS_MEM_HOST, b, &y));
  TEST_CALL(pds_vec_dot(x, y, &dot)); /* the arrays' values are the vectors' */
  TEST_ASSERT(dot == 72);
  TEST_CALL(pds_vec_axpy(y, 0.5, x)); /* y = b + x / 2, into b */
  TEST_CALL(pds_vec_get_array_read(y, PDS_MEM_HOST, &r));
  TEST_ASSERT(r == b); /* the host copy is the caller's array */
  TEST_CALL(pds_vec_restore_array_read(y, &r));
  for (int i = 0; i < 8; i++) TEST_ASSERT(b[i] == 2 + 0.5 * (i + 1));
  /* the caller writes its array, then the vector reads it: through a write access on the host */
  TEST_CALL(pds_vec_get_array_write(x, PDS_MEM_HOST, &d));
  TEST_ASSERT(d == a);
  d[0] = 100;
  TEST_CALL(pds_vec_restore_array_write(x, &d));
  TEST_CALL(pds_vec_norm_inf(x, &dot));
  TEST_ASSERT(dot == 100);
  /* a device array wrapped in place (/gpu/cuda): y's device copy under a new vector */
  if (dev) {
    TEST_CALL(pds_vec_get_array_read(y, PDS_MEM_DEVICE, &r));
    TEST_CALL(pds_vec_create_with_array(ctx, 8, PDS_MEM_DEVICE, (pds_real *)r, &z));
    TEST_CALL(pds_vec_restore_array_read(y, &r));
    TEST_CALL(pds_vec_norm_inf(z, &dot));
    TEST_ASSERT(dot == 6);
    TEST_CALL(pds_vec_get_array_read(z, PDS_MEM_DEVICE, &r));
    TEST_CALL(pds_vec_restore_array_read(z, &r));
    TEST_CALL(pds_vec_destroy(&z)); /* y's device array survives */
    TEST_CALL(pds_vec_norm_inf(y, &dot));
    TEST_ASSERT(dot == 6);
  } else {
    TEST_ASSERT_ERR(ctx, pds_vec_create_with_array(ctx, 8, PDS_MEM_DEVICE, a, &z), PDS_ERR_ARG, "host array");
  }
  /* errors: misaligned, NULL with n > 0, negative length, unknown memory type; the handle stays NULL */
  TEST_ASSERT_ERR(ctx, pds_vec_create_with_array(ctx, 8, PDS_MEM_HOST, c + 1, &w), PDS_ERR_ARG, "aligned");
  TEST_ASSERT(w == NULL);
  TEST_ASSERT_ERR(ctx, pds_vec_create_with_array(ctx, 8, PDS_MEM_HOST, NULL, &w), PDS_ERR_ARG, "NULL");
  TEST_ASSERT_ERR(ctx, pds_vec_create_with_array(ctx, -1, PDS_MEM_HOST, a, &w), PDS_ERR_SIZE, "negative");
  TEST_ASSERT_ERR(ctx, pds_vec_create_with_array(ctx, 8, (pds_memtype)7, a, &w), PDS_ERR_ARG, "memory type");
  TEST_CALL(pds_vec_create_with_array(ctx, 0, PDS_MEM_HOST, NULL, &w)); /* empty */
  TEST_CALL(pds_vec_destroy(&w));
  TEST_CALL(pds_vec_destroy(&x));
  TEST_CALL(pds_vec_destroy(&y));
  /* the library freed neither array (ASan would see a free of a stack array) */
  TEST_ASSERT(a[0] == 100 && b[7] == 6);
  test_finalize(&ctx);
  return 0;
}
