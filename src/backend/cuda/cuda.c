/* src/backend/cuda/cuda.c: /gpu/cuda, host side: device selection, memory (pool, pinned staging), error mapping,
 * and the kernel table, whose entries check their arguments and call the launchers of the *.cu files.
 *
 * Memory. Device arrays come from a CUDA memory pool owned by the context (cudaMallocFromPoolAsync /
 * cudaFreeAsync on the context's stream, release threshold "never"): after the first iteration a solver loop
 * allocates nothing from the driver; the pool is returned on pds_ctx_destroy. A device without pool support gets
 * plain cudaMalloc. Out of memory, after trimming the pool and trying once more, is PDS_ERR_MEM "device allocation
 * of N bytes failed (F bytes free of T)", and the context stays usable (the error is not sticky; it is cleared).
 * Copies. Host to device: up to 64 KiB directly from the caller's pageable memory (cudaMemcpy); larger ones
 * through two pinned 8 MiB staging buffers, double buffered. Device to host: up to 64 KiB through a pinned buffer,
 * larger ones through the staging buffers, chunk i+1's copy overlapping chunk i's memcpy. Memory the caller
 * pinned itself is copied directly. Nothing else crosses: data stays on the device from creation to solution, and
 * a reduction's result comes back as one small copy into pinned memory.
 * Every CUDA call is checked (PDS_CUDA_CALL): its error becomes PDS_ERR_BACKEND with CUDA's own message, or
 * PDS_ERR_MEM for cudaErrorMemoryAllocation, and the sticky non-fatal error is cleared (cudaGetLastError).
 * CSR products run the kernel that a per-matrix plan picks (cuda_csr.cu says how); plans, and the structure of
 * A^T for the transpose product, are cached per row-pointer array and dropped when that array is freed.
 * This file holds the core (device, memory, copies, the table); each module's group is filled by its own file
 * (cuda_vec.c, cuda_mat.c, cuda_krylov.c, cuda_blocks.c, cuda_fem2d.c, cuda_f32.c; cuda_impl.h). */
#include "cuda_impl.h"

#define STAGE_BYTES ((size_t)8 << 20)
#ifndef PDS_CUDA_COOP_PER_SM
#define PDS_CUDA_COOP_PER_SM 0 /* the cooperative kernel's blocks per SM: 0, as many as fit */
#endif
#define SMALL_BYTES ((size_t)64 << 10)

/* ---- errors ------------------------------------------------------------------------------------------------ */
int pds_cuda_error(pds_ctx ctx, const char *file, int line, const char *func, cudaError_t e, const char *what) {
  (void)cudaGetLastError(); /* clear a sticky non-fatal error: the context stays usable */
  if (e == cudaErrorMemoryAllocation)
    return pds_error(ctx, file, line, func, PDS_ERR_MEM, "device memory exhausted in %s (%s)", what,
                     cudaGetErrorString(e));
  return pds_error(ctx, file, line, func, PDS_ERR_BACKEND, "CUDA error %s (%s) in %s", cudaGetErrorName(e),
                   cudaGetErrorString(e), what);
}

/* ---- memory ------------------------------------------------------------------------------------------------ */
cudaError_t pds_cuda_raw_alloc(struct cuda_be *be, size_t bytes, void **p) {
  return be->use_pool ? cudaMallocFromPoolAsync(p, bytes, be->pool, be->stream) : cudaMalloc(p, bytes);
}
void pds_cuda_raw_free(struct cuda_be *be, void *p) {
  if (p) (void)(be->use_pool ? cudaFreeAsync(p, be->stream) : cudaFree(p));
}
/* callbacks for the launchers that need scratch (the transpose) */
cudaError_t pds_cuda_scratch_alloc(void *user, size_t bytes, void **p) { return pds_cuda_raw_alloc(user, bytes, p); }
void pds_cuda_scratch_release(void *user, void *p) { pds_cuda_raw_free(user, p); }

int pds_cuda_dev_alloc(pds_ctx ctx, struct cuda_be *be, size_t bytes, void **p) {
  cudaError_t e = pds_cuda_raw_alloc(be, bytes ? bytes : 1, p);
  size_t      freeb = 0, total = 0;

  if (e == cudaErrorMemoryAllocation && be->use_pool) {
    /* the pool may be holding freed blocks: give them back and try once more */
    (void)cudaGetLastError();
    (void)cudaStreamSynchronize(be->stream);
    (void)cudaMemPoolTrimTo(be->pool, 0);
    e = pds_cuda_raw_alloc(be, bytes ? bytes : 1, p);
  }
  if (e == cudaSuccess) return PDS_OK;
  *p = NULL;
  (void)cudaGetLastError();
  (void)cudaMemGetInfo(&freeb, &total);
  if (e == cudaErrorMemoryAllocation || (e == cudaErrorInvalidValue && bytes > total)) {
    (void)cudaGetLastError();
    return PDS_ERROR(ctx, PDS_ERR_MEM, "device allocation of %zu bytes failed (%zu bytes free of %zu)", bytes, freeb,
                     total);
  }
  return pds_cuda_error(ctx, __FILE__, __LINE__, __func__, e, "cudaMallocFromPoolAsync");
}

static int mem_alloc_cuda(pds_ctx ctx, size_t bytes, void **p) {
  return pds_cuda_dev_alloc(ctx, pds_cuda_enter(ctx), bytes, p);
}


static int mem_free_cuda(pds_ctx ctx, void *p) {
  struct cuda_be    *be = pds_cuda_enter(ctx);
  struct csr_entry **pe = &be->csr;

  while (*pe) { /* a plan dies with the structure it describes (a new array may reuse the address) */
    struct csr_entry *e = *pe;

    if (e->rowptr == p || e->colidx == p) {
      *pe = e->next;
      pds_cuda_csr_entry_free(be, e);
    } else pe = &e->next;
  }
  PDS_CUDA_CALL(ctx, be->use_pool ? cudaFreeAsync(p, be->stream) : cudaFree(p));
  return PDS_OK;
}

static int mem_zero_cuda(pds_ctx ctx, void *p, size_t bytes) {
  struct cuda_be *be = pds_cuda_enter(ctx);

  if (bytes) PDS_CUDA_CALL(ctx, cudaMemsetAsync(p, 0, bytes, be->stream));
  return PDS_OK;
}

/* host_pinned (below): whether p lies in page-locked memory (cudaHostRegister or cudaHostAlloc); asked first so that
   the usual mistakes (registering twice, unregistering what is not registered) are PDS_ERR_ARG without a failing
   CUDA call (which compute-sanitizer reports) */
static int host_pinned(const void *p);

static int mem_pin_cuda(pds_ctx ctx, void *p, size_t bytes) {
  (void)pds_cuda_enter(ctx);
  PDS_CHECK(!host_pinned(p), ctx, PDS_ERR_ARG, "pds_host_register: the memory at %p is already page-locked "
            "(registered, or allocated pinned)", p);
  PDS_CUDA_CALL(ctx, cudaHostRegister(p, bytes, cudaHostRegisterDefault));
  return PDS_OK;
}

static int mem_unpin_cuda(pds_ctx ctx, void *p) {
  (void)pds_cuda_enter(ctx);
  PDS_CHECK(host_pinned(p), ctx, PDS_ERR_ARG, "pds_host_unregister: the memory at %p is not registered "
            "(pds_host_register with the same address first)", p);
  PDS_CUDA_CALL(ctx, cudaHostUnregister(p));
  return PDS_OK;
}

static int host_pinned(const void *p) {
  struct cudaPointerAttributes a;

  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return a.type == cudaMemoryTypeHost;
}

static int stage_init(pds_ctx ctx, struct cuda_be *be) {
  if (be->have_stage) return PDS_OK;
  for (int i = 0; i < 2; i++) {
    PDS_CUDA_CALL(ctx, cudaHostAlloc(&be->stage[i], STAGE_BYTES, cudaHostAllocDefault));
    PDS_CUDA_CALL(ctx, cudaEventCreateWithFlags(&be->ev[i], cudaEventDisableTiming));
    be->have_stage++;
  }
  return PDS_OK;
}

static int mem_copy_cuda(pds_ctx ctx, void *dst, pds_memtype dmt, const void *src, pds_memtype smt, size_t bytes) {
  struct cuda_be *be = pds_cuda_enter(ctx);
  cudaStream_t    s  = be->stream;

  if (!bytes) return PDS_OK;
  if (dmt == PDS_MEM_HOST && smt == PDS_MEM_HOST) {
    memcpy(dst, src, bytes);
    return PDS_OK;
  }
  if (dmt == PDS_MEM_DEVICE && smt == PDS_MEM_DEVICE) {
    if (dst != src) PDS_CUDA_CALL(ctx, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s));
    return PDS_OK;
  }
  if (dmt == PDS_MEM_DEVICE) { /* host to device */
    if (bytes <= SMALL_BYTES) { /* synchronous, on the legacy stream, which the context's stream is ordered with */
      PDS_CUDA_CALL(ctx, cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
      return PDS_OK;
    }
    if (host_pinned(src)) {
      PDS_CUDA_CALL(ctx, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, s));
      PDS_CUDA_CALL(ctx, cudaStreamSynchronize(s)); /* the caller may reuse src when this returns */
      return PDS_OK;
    }
    PDS_CALL(stage_init(ctx, be));
    for (size_t off = 0, i = 0; off < bytes; off += STAGE_BYTES, i ^= 1) {
      size_t len = bytes - off < STAGE_BYTES ? bytes - off : STAGE_BYTES;

      PDS_CUDA_CALL(ctx, cudaEventSynchronize(be->ev[i])); /* its last copy out of this buffer is done */
      memcpy(be->stage[i], (const char *)src + off, len);
      PDS_CUDA_CALL(ctx, cudaMemcpyAsync((char *)dst + off, be->stage[i], len, cudaMemcpyHostToDevice, s));
      PDS_CUDA_CALL(ctx, cudaEventRecord(be->ev[i], s));
    }
    return PDS_OK;
  }
  /* device to host */
  be->n_d2h++;
  if (host_pinned(dst)) {
    PDS_CUDA_CALL(ctx, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, s));
    PDS_CUDA_CALL(ctx, cudaStreamSynchronize(s));
    return PDS_OK;
  }
  if (bytes <= SMALL_BYTES) {
    PDS_CUDA_CALL(ctx, cudaMemcpyAsync(be->small, src, bytes, cudaMemcpyDeviceToHost, s));
    PDS_CUDA_CALL(ctx, cudaStreamSynchronize(s));
    memcpy(dst, be->small, bytes);
    return PDS_OK;
  }
  PDS_CALL(stage_init(ctx, be));
  {
    size_t nch = (bytes + STAGE_BYTES - 1) / STAGE_BYTES;

    for (size_t c = 0; c <= nch; c++) {
      if (c < nch) { /* start chunk c */
        size_t off = c * STAGE_BYTES, len = bytes - off < STAGE_BYTES ? bytes - off : STAGE_BYTES;

        PDS_CUDA_CALL(ctx, cudaMemcpyAsync(be->stage[c & 1], (const char *)src + off, len, cudaMemcpyDeviceToHost, s));
        PDS_CUDA_CALL(ctx, cudaEventRecord(be->ev[c & 1], s));
      }
      if (c > 0) { /* finish chunk c - 1 */
        size_t off = (c - 1) * STAGE_BYTES, len = bytes - off < STAGE_BYTES ? bytes - off : STAGE_BYTES;

        PDS_CUDA_CALL(ctx, cudaEventSynchronize(be->ev[(c - 1) & 1]));
        memcpy((char *)dst + off, be->stage[(c - 1) & 1], len);
      }
    }
  }
  return PDS_OK;
}

/* Reduction results: n scalars from dscal (device) to the host, one small copy. */
int pds_cuda_fetch_scalars(pds_ctx ctx, struct cuda_be *be, int n, pds_real *out) {
  be->n_d2h++;
  PDS_CUDA_CALL(ctx, cudaMemcpyAsync(be->hscal, be->dscal, (size_t)n * sizeof *out, cudaMemcpyDeviceToHost, be->stream));
  PDS_CUDA_CALL(ctx, cudaStreamSynchronize(be->stream));
  for (int i = 0; i < n; i++) out[i] = be->hscal[i];
  return PDS_OK;
}
int pds_cuda_fetch_stats(pds_ctx ctx, struct cuda_be *be, int n, unsigned long long *out) {
  be->n_d2h++;
  PDS_CUDA_CALL(ctx, cudaMemcpyAsync(be->hstat, be->dstat, (size_t)n * sizeof *out, cudaMemcpyDeviceToHost, be->stream));
  PDS_CUDA_CALL(ctx, cudaStreamSynchronize(be->stream));
  for (int i = 0; i < n; i++) out[i] = be->hstat[i];
  return PDS_OK;
}


/* Internal, for tests/cuda: device-to-host copies so far, the bytes the pool holds from the driver, and the bytes
   of it handed out (live allocations; 0 without a pool). Any output may be NULL. */
int pds_cuda_counters(pds_ctx ctx, long long *d2h, size_t *reserved, size_t *used) {
  struct cuda_be *be;
  uint64_t        r = 0, u = 0;

  PDS_CHECK(!strcmp(ctx->backend, "/gpu/cuda"), ctx, PDS_ERR_ARG, "pds_cuda_counters needs a /gpu/cuda context");
  be = pds_cuda_enter(ctx);
  if (be->use_pool) {
    PDS_CUDA_CALL(ctx, cudaMemPoolGetAttribute(be->pool, cudaMemPoolAttrReservedMemCurrent, &r));
    PDS_CUDA_CALL(ctx, cudaMemPoolGetAttribute(be->pool, cudaMemPoolAttrUsedMemCurrent, &u));
  }
  if (d2h) *d2h = be->n_d2h;
  if (reserved) *reserved = (size_t)r;
  if (used) *used = (size_t)u;
  return PDS_OK;
}

/* Internal, for tests/cuda: the whole iterations in one launch queued so far on ctx, of one block (cuda_small.cu) and
   of the cooperative grid (cuda_coop.cu). */
int pds_cuda_fused_count(pds_ctx ctx, long long *small, long long *coop) {
  PDS_CHECK(!strcmp(ctx->backend, "/gpu/cuda"), ctx, PDS_ERR_ARG, "pds_cuda_fused_count needs a /gpu/cuda context");
  *small = pds_cuda_enter(ctx)->n_small;
  *coop  = pds_cuda_enter(ctx)->n_coop;
  return PDS_OK;
}

/* ---- the backend ------------------------------------------------------------------------------------------- */
/* the copy stream and its events, made by the first use; after_queued: what is queued on it from now on waits for the
   work queued so far on the context's stream */
int pds_cuda_copy_stream(pds_ctx ctx, struct cuda_be *be, int after_queued) {
  if (!be->have_copy) {
    PDS_CUDA_CALL(ctx, cudaStreamCreateWithFlags(&be->copy_stream, cudaStreamNonBlocking));
    PDS_CUDA_CALL(ctx, cudaEventCreateWithFlags(&be->fence, cudaEventDisableTiming));
    PDS_CUDA_CALL(ctx, cudaEventCreateWithFlags(&be->queued, cudaEventDisableTiming));
    be->have_copy = 1;
  }
  if (after_queued) {
    PDS_CUDA_CALL(ctx, cudaEventRecord(be->queued, be->stream));
    PDS_CUDA_CALL(ctx, cudaStreamWaitEvent(be->copy_stream, be->queued, 0));
  }
  return PDS_OK;
}

/* pinned host <-> device on the copy stream (backend.h); the caller keeps the host buffer until a fence says done */
static int mem_copy_async_cuda(pds_ctx ctx, void *dst, pds_memtype dmt, const void *src, pds_memtype smt, size_t bytes,
                               int after_queued) {
  struct cuda_be *be = pds_cuda_enter(ctx);

  if (!bytes) return PDS_OK;
  if (dmt == smt) return mem_copy_cuda(ctx, dst, dmt, src, smt, bytes);
  PDS_CALL(pds_cuda_copy_stream(ctx, be, after_queued));
  PDS_CUDA_CALL(ctx, cudaMemcpyAsync(dst, src, bytes, dmt == PDS_MEM_HOST ? cudaMemcpyDeviceToHost
                                                                          : cudaMemcpyHostToDevice, be->copy_stream));
  return PDS_OK;
}

static int fence_record_cuda(pds_ctx ctx) {
  struct cuda_be *be = pds_cuda_enter(ctx);

  PDS_CALL(pds_cuda_copy_stream(ctx, be, 0));
  PDS_CUDA_CALL(ctx, cudaEventRecord(be->fence, be->copy_stream));
  return PDS_OK;
}

static int fence_wait_cuda(pds_ctx ctx) {
  struct cuda_be *be = pds_cuda_enter(ctx);

  if (be->have_copy) PDS_CUDA_CALL(ctx, cudaEventSynchronize(be->fence));
  return PDS_OK;
}

static int fence_join_cuda(pds_ctx ctx) {
  struct cuda_be *be = pds_cuda_enter(ctx);

  if (be->have_copy) PDS_CUDA_CALL(ctx, cudaStreamWaitEvent(be->stream, be->fence, 0));
  return PDS_OK;
}

static int destroy_cuda(pds_ctx ctx) {
  struct cuda_be *be = ctx->backend_data;

  if (!be) return PDS_OK;
  pds_cuda_enter(ctx);
  if (be->stream) (void)cudaStreamSynchronize(be->stream);
  pds_cuda_xchg_free(ctx, be);
  while (be->csr) {
    struct csr_entry *e = be->csr;

    be->csr = e->next;
    pds_cuda_csr_entry_free(be, e);
  }
  pds_cuda_raw_free(be, be->red.partial);
  pds_cuda_raw_free(be, be->red.counter);
  pds_cuda_raw_free(be, be->mdot_partial);
  pds_cuda_raw_free(be, be->coop_part);
  pds_cuda_raw_free(be, be->dscal);
  pds_cuda_raw_free(be, be->dstat);
  pds_cuda_raw_free(be, be->loop_left);
  if (be->stream) (void)cudaStreamSynchronize(be->stream);
  if (be->ring_h) (void)cudaFreeHost(be->ring_h);
  for (int i = 0; i < be->have_stage; i++) {
    (void)cudaFreeHost(be->stage[i]);
    (void)cudaEventDestroy(be->ev[i]);
  }
  if (be->have_copy) {
    (void)cudaStreamSynchronize(be->copy_stream);
    (void)cudaEventDestroy(be->fence);
    (void)cudaEventDestroy(be->queued);
    (void)cudaStreamDestroy(be->copy_stream);
  }
  if (be->hscal) (void)cudaFreeHost(be->hscal);
  if (be->hstat) (void)cudaFreeHost(be->hstat);
  if (be->small) (void)cudaFreeHost(be->small);
  if (be->stream) (void)cudaStreamDestroy(be->stream);
  if (be->use_pool) (void)cudaMemPoolDestroy(be->pool);
  (void)cudaGetLastError();
  free(be);
  ctx->backend_data = NULL;
  return PDS_OK;
}

int pds_backend_available_cuda(void) {
  int n = 0;

  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return n;
}

/* "/gpu/cuda" or "/gpu/cuda:device=N" */
static int parse_resource(pds_ctx ctx, const char *resource, int *device) {
  const char *opt = strchr(resource, ':');

  *device = 0;
  if (!opt) return PDS_OK;
  for (opt++; *opt;) {
    const char *end = strchr(opt, ',');
    size_t      len = end ? (size_t)(end - opt) : strlen(opt);

    if (len > 7 && !strncmp(opt, "device=", 7)) {
      char *stop;
      long  v = strtol(opt + 7, &stop, 10);

      PDS_CHECK(stop == opt + len && v >= 0 && v < INT_MAX, ctx, PDS_ERR_ARG,
                "backend /gpu/cuda: bad option '%.*s' in '%s' (device=N takes a device number >= 0)", (int)len, opt,
                resource);
      *device = (int)v;
    } else
      return PDS_ERROR(ctx, PDS_ERR_ARG, "backend /gpu/cuda: unknown option '%.*s' in '%s' (known: device=N)",
                       (int)len, opt, resource);
    opt += len + (end ? 1 : 0);
  }
  return PDS_OK;
}

static int init_device(pds_ctx ctx, struct cuda_be *be) {
  int                     pools = 0, coop = 0;
  struct cudaMemPoolProps props;
  uint64_t                never = UINT64_MAX;

  PDS_CUDA_CALL(ctx, cudaSetDevice(be->device));
  PDS_CUDA_CALL(ctx, cudaStreamCreate(&be->stream)); /* blocking: ordered with the legacy default stream */
  PDS_CUDA_CALL(ctx, cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, be->device));
  if (pools) {
    memset(&props, 0, sizeof props);
    props.allocType     = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id   = be->device;
    PDS_CUDA_CALL(ctx, cudaMemPoolCreate(&be->pool, &props));
    be->use_pool = 1;
    PDS_CUDA_CALL(ctx, cudaMemPoolSetAttribute(be->pool, cudaMemPoolAttrReleaseThreshold, &never));
  }
  PDS_CALL(pds_cuda_dev_alloc(ctx, be, (size_t)PDS_CUDA_RED_MAXOUT * PDS_CUDA_RED_MAXBLOCK * sizeof(pds_real),
                     (void **)&be->red.partial));
  PDS_CALL(pds_cuda_dev_alloc(ctx, be, (size_t)PDS_CUDA_MDOT_BATCH * PDS_CUDA_RED_MAXBLOCK * sizeof(pds_real),
                     (void **)&be->mdot_partial));
  PDS_CALL(pds_cuda_dev_alloc(ctx, be, (size_t)6 * PDS_CUDA_RED_MAXBLOCK * sizeof(pds_real), (void **)&be->coop_part));
  PDS_CUDA_CALL(ctx, cudaDeviceGetAttribute(&be->nsm, cudaDevAttrMultiProcessorCount, be->device));
  PDS_CUDA_CALL(ctx, cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, be->device));
  if (!coop) be->coop_on = 0;
  PDS_CALL(pds_cuda_dev_alloc(ctx, be, sizeof(unsigned), (void **)&be->red.counter));
  PDS_CUDA_CALL(ctx, cudaMemsetAsync(be->red.counter, 0, sizeof(unsigned), be->stream));
  PDS_CALL(pds_cuda_dev_alloc(ctx, be, 8 * sizeof(pds_real), (void **)&be->dscal));
  PDS_CALL(pds_cuda_dev_alloc(ctx, be, 2 * sizeof(unsigned long long), (void **)&be->dstat));
  PDS_CUDA_CALL(ctx, cudaHostAlloc((void **)&be->hscal, 8 * sizeof(pds_real), cudaHostAllocDefault));
  PDS_CUDA_CALL(ctx, cudaHostAlloc((void **)&be->hstat, 2 * sizeof(unsigned long long), cudaHostAllocDefault));
  PDS_CUDA_CALL(ctx, cudaHostAlloc(&be->small, SMALL_BYTES, cudaHostAllocDefault));
  PDS_CUDA_CALL(ctx, cudaStreamSynchronize(be->stream));
  return PDS_OK;
}

int pds_backend_init_cuda(pds_ctx ctx, const char *resource, struct pds_kernels *k) {
  const char     *pdl = getenv("PDS_CUDA_PDL"); /* programmatic dependent launch (cuda_launch.cuh): 0 turns it off */
  struct cuda_be *be;
  int             device, count = 0, ierr;
  cudaError_t     e;

  pds_cuda_pdl = !(pdl && !strcmp(pdl, "0"));
  PDS_CALL(parse_resource(ctx, resource, &device));
  e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    return PDS_ERROR(ctx, PDS_ERR_BACKEND, "backend /gpu/cuda: no usable CUDA device (%s: %s); use /cpu/omp or /cpu/ref",
                     cudaGetErrorName(e), cudaGetErrorString(e));
  }
  PDS_CHECK(count > 0, ctx, PDS_ERR_BACKEND, "backend /gpu/cuda: no CUDA device found; use /cpu/omp or /cpu/ref");
  PDS_CHECK(device < count, ctx, PDS_ERR_ARG, "backend /gpu/cuda: device=%d does not exist (%d device%s, 0..%d)",
            device, count, count == 1 ? "" : "s", count - 1);
  be = calloc(1, sizeof *be);
  PDS_CHECK(be, ctx, PDS_ERR_MEM, "allocation of %zu bytes of host memory failed", sizeof *be);
  be->device        = device;
  be->small_on      = !(getenv("PDS_CUDA_SMALL") && !strcmp(getenv("PDS_CUDA_SMALL"), "0"));
  be->coop_on       = !(getenv("PDS_CUDA_COOP") && !strcmp(getenv("PDS_CUDA_COOP"), "0"));
  be->coop_per_sm   = getenv("PDS_CUDA_COOP_PER_SM") ? atoi(getenv("PDS_CUDA_COOP_PER_SM")) : PDS_CUDA_COOP_PER_SM;
  pds_cuda_coop_pdl = !(getenv("PDS_CUDA_COOP_PDL") && !strcmp(getenv("PDS_CUDA_COOP_PDL"), "0"));
  ctx->backend_data = be;
  k->destroy        = destroy_cuda; /* set before anything can fail: init_device's failure path uses it */
  ierr              = init_device(ctx, be);
  if (ierr) {
    destroy_cuda(ctx);
    return ierr;
  }
  /* a device backend starts from an empty table: a missing kernel is an error naming it, never a host fallback */
  memset(k, 0, sizeof *k);
  k->name      = "/gpu/cuda";
  k->mem_alloc = mem_alloc_cuda;
  k->mem_free  = mem_free_cuda;
  k->mem_copy  = mem_copy_cuda;
  k->mem_zero  = mem_zero_cuda;
  k->mem_pin   = mem_pin_cuda;
  k->mem_unpin = mem_unpin_cuda;
  k->mem_copy_async = mem_copy_async_cuda;
  k->fence_record   = fence_record_cuda;
  k->fence_wait     = fence_wait_cuda;
  k->fence_join     = fence_join_cuda;
#if PDS_HAVE_NCCL
  k->xchg_prepare = pds_cuda_xchg_prepare;
  k->xchg_init    = pds_cuda_xchg_init;
  k->xchg_post    = pds_cuda_xchg_post;
#endif
  k->destroy   = destroy_cuda;
  pds_cuda_fill_vec(&k->vec);
  pds_cuda_fill_csr(&k->csr);
  pds_cuda_fill_bsr(&k->bsr);
  pds_cuda_fill_krylov(&k->krylov);
  pds_cuda_fill_blocks(&k->blocks);
  pds_cuda_fill_fem2d(&k->fem2d);
  pds_cuda_fill_f32(&k->f32);
  pds_cuda_fill_stencil7(&k->stencil7);
  pds_cuda_fill_bilu0(&k->bilu0);
  pds_cuda_fill_ilu0(&k->ilu0);
  pds_cuda_fill_patches(&k->patches);
  pds_cuda_fill_sem(&k->sem);
  pds_cuda_fill_fv(&k->fv);
  pds_cuda_fill_fvjac(&k->fvjac);
  pds_cuda_fill_relax(&k->relax);
  return PDS_OK;
}

