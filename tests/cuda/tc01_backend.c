/* tests/cuda/tc01_backend.c: /gpu/cuda itself: resource strings ("/gpu/cuda:device=N", bad options), "auto",
 * out of memory (PDS_ERR_MEM naming the size asked for, and the context usable afterwards), and the copy paths
 * (direct, pinned small buffer, double-buffered staging, caller-pinned memory) with exact round trips at sizes
 * around each threshold. */
#include <cuda_runtime_api.h>

#include "test.h"
#include "sys/sys_impl.h" /* pds_memcpy */

/* host -> device -> device -> host through pds_memcpy, then compare bits */
static void roundtrip(pds_ctx ctx, size_t bytes, unsigned char *src, unsigned char *dst) {
  void *d1, *d2;

  for (size_t i = 0; i < bytes; i++) src[i] = (unsigned char)(i * 131u + bytes), dst[i] = 0xa5;
  TEST_CALL(pds_malloc(ctx, PDS_MEM_DEVICE, bytes, &d1));
  TEST_CALL(pds_malloc(ctx, PDS_MEM_DEVICE, bytes, &d2));
  TEST_CALL(pds_memcpy(ctx, d1, PDS_MEM_DEVICE, src, PDS_MEM_HOST, bytes));
  TEST_CALL(pds_memcpy(ctx, d2, PDS_MEM_DEVICE, d1, PDS_MEM_DEVICE, bytes));
  TEST_CALL(pds_memcpy(ctx, dst, PDS_MEM_HOST, d2, PDS_MEM_DEVICE, bytes));
  if (memcmp(src, dst, bytes)) TEST_FAIL("round trip of %zu bytes differs", bytes);
  TEST_CALL(pds_free(ctx, PDS_MEM_DEVICE, &d1));
  TEST_CALL(pds_free(ctx, PDS_MEM_DEVICE, &d2));
}

/* the context still computes: x = 2, y = 3, x . y = 6 n */
static void still_works(pds_ctx ctx) {
  pds_vec  x, y;
  pds_real d;

  TEST_CALL(pds_vec_create(ctx, 1000, &x));
  TEST_CALL(pds_vec_create(ctx, 1000, &y));
  TEST_CALL(pds_vec_set(x, 2.0));
  TEST_CALL(pds_vec_set(y, 3.0));
  TEST_CALL(pds_vec_dot(x, y, &d));
  TEST_ASSERT(d == 6000.0);
  TEST_CALL(pds_vec_destroy(&x));
  TEST_CALL(pds_vec_destroy(&y));
}

int main(int argc, char **argv) {
  pds_ctx ctx = test_init(argc, argv), c2 = NULL;
  char    msg[128];

  TEST_ASSERT(!strcmp(pds_ctx_get_backend(ctx), "/gpu/cuda"));
  /* resources */
  TEST_CALL(pds_ctx_create("/gpu/cuda:device=0", &c2));
  TEST_ASSERT(!strcmp(pds_ctx_get_backend(c2), "/gpu/cuda"));
  still_works(c2);
  TEST_CALL(pds_ctx_destroy(&c2));
  TEST_ASSERT(pds_ctx_create("/gpu/cuda:device=9999", &c2) == PDS_ERR_ARG && !c2);
  TEST_ASSERT(pds_ctx_create("/gpu/cuda:device=x", &c2) == PDS_ERR_ARG && !c2);
  TEST_ASSERT(pds_ctx_create("/gpu/cuda:stream=2", &c2) == PDS_ERR_ARG && !c2);
  TEST_CALL(pds_ctx_create("auto", &c2));
  TEST_ASSERT(!strcmp(pds_ctx_get_backend(c2), "/gpu/cuda")); /* a GPU is present: auto takes it */
  TEST_CALL(pds_ctx_destroy(&c2));

  /* out of memory: far more than any device has, through the allocator and through a vector */
  {
    size_t huge = (size_t)1 << 46;
    void  *p    = (void *)1;

    snprintf(msg, sizeof msg, "device allocation of %zu bytes failed", huge);
    TEST_ASSERT_ERR(ctx, pds_malloc(ctx, PDS_MEM_DEVICE, huge, &p), PDS_ERR_MEM, msg);
    TEST_ASSERT(p == NULL);
    still_works(ctx);
  }
  {
    pds_vec v = NULL;

    snprintf(msg, sizeof msg, "device allocation of %zu bytes failed", (size_t)8 << 40);
    TEST_ASSERT_ERR(ctx, pds_vec_create(ctx, (pds_size)1 << 40, &v), PDS_ERR_MEM, msg);
    TEST_ASSERT(v == NULL);
    still_works(ctx);
  }
  /* more than is free but less than the device's size, after a big allocation that succeeds */
  {
    size_t freeb = 0, total = 0;
    void  *big = NULL, *p = NULL;

    TEST_ASSERT(cudaMemGetInfo(&freeb, &total) == cudaSuccess);
    TEST_CALL(pds_malloc(ctx, PDS_MEM_DEVICE, freeb / 2, &big));
    snprintf(msg, sizeof msg, "device allocation of %zu bytes failed", freeb / 2 + freeb / 4);
    TEST_ASSERT_ERR(ctx, pds_malloc(ctx, PDS_MEM_DEVICE, freeb / 2 + freeb / 4, &p), PDS_ERR_MEM, msg);
    TEST_CALL(pds_free(ctx, PDS_MEM_DEVICE, &big));
    TEST_CALL(pds_malloc(ctx, PDS_MEM_DEVICE, freeb / 2 + freeb / 4, &p)); /* fits again once freed */
    TEST_CALL(pds_free(ctx, PDS_MEM_DEVICE, &p));
    still_works(ctx);
  }

  /* copies around the thresholds: 64 KiB (direct / small buffer) and 8 MiB (staging chunks) */
  {
    const size_t   sizes[] = {1, 8, 65528, 65536, 65544, 1000000, 8388600, 8388608, 8388616, 3 * 8388608 + 24};
    size_t         most = 3 * 8388608 + 24;
    unsigned char *src = malloc(most), *dst = malloc(most), *pin = NULL;

    TEST_ASSERT(src && dst);
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) roundtrip(ctx, sizes[i], src, dst);
    /* memory the caller pinned is copied directly */
    TEST_ASSERT(cudaHostAlloc((void **)&pin, most, cudaHostAllocDefault) == cudaSuccess);
    roundtrip(ctx, most, pin, dst);
    roundtrip(ctx, most, src, pin);
    roundtrip(ctx, 4096, pin, dst);
    TEST_ASSERT(cudaFreeHost(pin) == cudaSuccess);
    free(src), free(dst);
  }
  /* a vector's values both ways (the staging path for 3 MB) */
  {
    pds_size  n = 400000;
    pds_real *a = malloc((size_t)n * sizeof *a), *b = malloc((size_t)n * sizeof *b), nrm;
    pds_vec   v;

    for (pds_size i = 0; i < n; i++) a[i] = (pds_real)(i % 1000) - 499.5;
    TEST_CALL(pds_vec_create(ctx, n, &v));
    TEST_CALL(pds_vec_set_values(v, a, PDS_MEM_HOST));
    TEST_CALL(pds_vec_scale(v, 2.0));
    TEST_CALL(pds_vec_get_values(v, b, PDS_MEM_HOST));
    for (pds_size i = 0; i < n; i++) TEST_ASSERT(b[i] == 2 * a[i]);
    TEST_CALL(pds_vec_norm_inf(v, &nrm));
    TEST_ASSERT(nrm == 999.0);
    TEST_CALL(pds_vec_destroy(&v));
    free(a), free(b);
  }
  test_finalize(&ctx);
  return 0;
}
