/* tests/t001_ctx.c: context creation, backend names, errors, allocator failure injection. */
#include "test.h"
#include "sys/sys_impl.h" /* pds_memcpy */

int main(int argc, char **argv) {
  pds_ctx ctx = test_init(argc, argv), c2 = NULL;
  void   *p   = NULL;
  int     found = 0;

  TEST_ASSERT(!strcmp(pds_ctx_get_backend(ctx), argc > 1 ? argv[1] : "/cpu/ref"));
  TEST_ASSERT(pds_ctx_get_num_threads(ctx) >= 1);
  for (int i = 0; i < pds_backend_count(); i++)
    if (!strcmp(pds_backend_name(i), "/cpu/ref")) found = pds_backend_compiled(i);
  TEST_ASSERT(found);
  /* unknown backends and options are errors, and leave the handle NULL */
  TEST_ASSERT(pds_ctx_create("/cpu/nonesuch", &c2) == PDS_ERR_ARG && c2 == NULL);
  TEST_ASSERT(pds_ctx_create("/cpu/ref:threads=3", &c2) == PDS_ERR_ARG && c2 == NULL);
  TEST_CALL(pds_ctx_create("auto", &c2));
  TEST_CALL(pds_ctx_destroy(&c2));
  TEST_ASSERT(c2 == NULL);
  TEST_CALL(pds_ctx_destroy(&c2)); /* NULL is fine */
  /* allocator: the injected failure is the k-th allocation and names the size */
  pds_ctx_set_alloc_fail(ctx, 1);
  TEST_CALL(pds_malloc(ctx, PDS_MEM_HOST, 16, &p));
  TEST_CALL(pds_free(ctx, PDS_MEM_HOST, &p));
  TEST_ASSERT_ERR(ctx, pds_malloc(ctx, PDS_MEM_HOST, 1234, &p), PDS_ERR_MEM, "1234 bytes");
  TEST_ASSERT(p == NULL);
  pds_ctx_set_alloc_fail(ctx, -1);
  TEST_CALL(pds_calloc(ctx, PDS_MEM_DEVICE, 64, &p));
  {
    double h[8] = {1, 1, 1, 1, 1, 1, 1, 1}; /* backend memory is not host memory on a GPU: copy it back */

    TEST_CALL(pds_memcpy(ctx, h, PDS_MEM_HOST, p, PDS_MEM_DEVICE, sizeof h));
    TEST_ASSERT(h[7] == 0.0);
  }
  TEST_CALL(pds_free(ctx, PDS_MEM_DEVICE, &p));
  TEST_ASSERT(p == NULL);
  TEST_ASSERT(!strcmp(pds_error_name(PDS_ERR_ZERO_PIVOT), "PDS_ERR_ZERO_PIVOT"));
  TEST_ASSERT(!strcmp(pds_reason_name(PDS_DIVERGED_BREAKDOWN), "diverged_breakdown"));
  test_finalize(&ctx);
  return 0;
}
