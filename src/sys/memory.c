/* src/sys/memory.c: the one allocator of pdesolve (host or backend memory), with failure injection. */
#include <stdlib.h>

#include "../backend/backend.h"

/* Count down ctx->alloc_fail_after; true when this allocation is the one that must fail. */
static bool alloc_should_fail(pds_ctx ctx) {
  if (!ctx || ctx->alloc_fail_after < 0) return false;
  if (ctx->alloc_fail_after == 0) return true;
  ctx->alloc_fail_after--;
  return false;
}

void pds_ctx_set_alloc_fail(pds_ctx ctx, long k) {
  if (ctx) ctx->alloc_fail_after = k;
}

int pds_malloc(pds_ctx ctx, pds_memtype mt, size_t bytes, void *p) {
  void **pp = (void **)p;

  *pp = NULL;
  if (bytes == 0) bytes = 1; /* a valid, freeable pointer for empty arrays */
  if (alloc_should_fail(ctx))
    return PDS_ERROR(ctx, PDS_ERR_MEM, "allocation of %zu bytes failed (injected failure)", bytes);
  if (mt == PDS_MEM_DEVICE && ctx && ctx->k && ctx->k->mem_alloc) return ctx->k->mem_alloc(ctx, bytes, pp);
  *pp = malloc(bytes);
  if (!*pp) return PDS_ERROR(ctx, PDS_ERR_MEM, "allocation of %zu bytes of host memory failed", bytes);
  return PDS_OK;
}

int pds_calloc(pds_ctx ctx, pds_memtype mt, size_t bytes, void *p) {
  void **pp = (void **)p;

  if (mt == PDS_MEM_DEVICE && ctx && ctx->k && ctx->k->mem_alloc) {
    PDS_CALL(pds_malloc(ctx, mt, bytes, p));
    PDS_KERNEL(ctx, mem_zero);
    return ctx->k->mem_zero(ctx, *pp, bytes);
  }
  *pp = NULL;
  if (alloc_should_fail(ctx))
    return PDS_ERROR(ctx, PDS_ERR_MEM, "allocation of %zu bytes failed (injected failure)", bytes);
  *pp = calloc(bytes ? bytes : 1, 1);
  if (!*pp) return PDS_ERROR(ctx, PDS_ERR_MEM, "allocation of %zu bytes of host memory failed", bytes);
  return PDS_OK;
}

int pds_free(pds_ctx ctx, pds_memtype mt, void *p) {
  void **pp = (void **)p;

  if (!pp || !*pp) return PDS_OK;
  if (mt == PDS_MEM_DEVICE && ctx && ctx->k && ctx->k->mem_free) {
    int ierr = ctx->k->mem_free(ctx, *pp);

    *pp = NULL;
    return ierr;
  }
  free(*pp);
  *pp = NULL;
  return PDS_OK;
}

/* Copy between host and backend memory (plain memcpy on CPU backends). */
int pds_memcpy(pds_ctx ctx, void *dst, pds_memtype dmt, const void *src, pds_memtype smt, size_t bytes) {
  if (!bytes) return PDS_OK;
  if (ctx && ctx->k && ctx->k->mem_copy) return ctx->k->mem_copy(ctx, dst, dmt, src, smt, bytes);
  memcpy(dst, src, bytes);
  return PDS_OK;
}

int pds_host_register(pds_ctx ctx, void *p, size_t bytes) {
  if (!ctx) return pds_error(NULL, __FILE__, __LINE__, __func__, PDS_ERR_ARG, "pds_host_register: ctx is NULL");
  PDS_CHECK(p && bytes, ctx, PDS_ERR_ARG, "pds_host_register: %s", p ? "0 bytes" : "NULL memory");
  return ctx->k->mem_pin ? ctx->k->mem_pin(ctx, p, bytes) : PDS_OK;
}

int pds_host_unregister(pds_ctx ctx, void *p) {
  if (!ctx) return pds_error(NULL, __FILE__, __LINE__, __func__, PDS_ERR_ARG, "pds_host_unregister: ctx is NULL");
  PDS_CHECK(p, ctx, PDS_ERR_ARG, "pds_host_unregister: NULL memory");
  return ctx->k->mem_unpin ? ctx->k->mem_unpin(ctx, p) : PDS_OK;
}

/* *dst = a new array of memory type dmt holding a copy of bytes bytes of src (memory type smt). */
int pds_dup_array(pds_ctx ctx, pds_memtype dmt, const void *src, pds_memtype smt, size_t bytes, void *dst) {
  PDS_CALL(pds_malloc(ctx, dmt, bytes, dst));
  return pds_memcpy(ctx, *(void **)dst, dmt, src, smt, bytes);
}

int pds_ctx_work(pds_ctx ctx, size_t n, pds_real **w) {
  if (ctx->work_len < n) {
    PDS_CALL(pds_free(ctx, PDS_MEM_DEVICE, &ctx->work));
    ctx->work_len = 0;
    PDS_CALL(PDS_NEW_DEV(ctx, n, &ctx->work));
    ctx->work_len = n;
  }
  *w = ctx->work;
  return PDS_OK;
}
