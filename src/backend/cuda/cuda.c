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
 * A^T for the transpose product, are cached per row-pointer array and dropped when that array is freed. */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../backend.h"
#include "../krylov_step.h"
#include "cuda_common.h"

#define STAGE_BYTES ((size_t)8 << 20)
#ifndef PDS_CUDA_COOP_PER_SM
#define PDS_CUDA_COOP_PER_SM 0 /* the cooperative kernel's blocks per SM: 0, as many as fit */
#endif
#define SMALL_BYTES ((size_t)64 << 10)

struct csr_entry {
  const void        *rowptr, *colidx; /* the key: structure arrays of A (device) */
  pds_int            nrows, ncols;
  pds_size           nnz;
  pds_cuda_csr_plan  plan;
  int                have_t;          /* the transpose below is built */
  pds_size          *t_rowptr;
  pds_int           *t_rowidx, *t_perm;
  pds_cuda_csr_plan  t_plan;
  struct csr_entry  *next;
};

/* a device loop (its picture: the Krylov section below) */
struct cuda_loop {
  const pds_real   *S;      /* the scalar vector the graph was made for */
  cudaGraph_t       graph, body;
  cudaGraphExec_t   exec;
  pds_cuda_loop_dev dev;
  int               next;   /* the iteration whose record comes next */
  int               queued; /* the last iteration the launched chunks can reach */
  long              updates, instantiations;
};

struct cuda_be {
  int                 device, use_pool;
  cudaStream_t        stream;
  cudaMemPool_t       pool;
  pds_cuda_red        red;
  pds_real           *mdot_partial; /* device: [PDS_CUDA_MDOT_BATCH][PDS_CUDA_RED_MAXBLOCK], vec_mdot_into's partials */
  pds_real           *dscal; /* device: results of reductions that go to the host */
  unsigned long long *dstat; /* device: integer results (plan statistics, singular block) */
  pds_real           *hscal; /* pinned mirrors */
  unsigned long long *hstat;
  void               *small; /* pinned, SMALL_BYTES */
  void               *stage[2];
  cudaEvent_t         ev[2];
  int                 have_stage;
  struct csr_entry   *csr;
  long long           n_d2h; /* device-to-host copies made (tests/cuda counts them per solve) */
  struct cuda_loop   *loop;   /* the device loop being recorded, if any */
  pds_cuda_loop_rec  *ring_h; /* device loops' records and abort flag (mapped pinned), and chunk counter */
  void               *ring_d;
  volatile int       *abort_h;
  int                *loop_left;
  int                 no_loops; /* the driver has no conditional graph nodes */
  int                 small_on; /* whole iterations in one launch (cuda_small.cu, cuda_coop.cu); PDS_CUDA_SMALL=0: off */
  int                 coop_on;  /* ... of the cooperative kernel (cuda_coop.cu); PDS_CUDA_COOP=0: off */
  int                 coop_per_sm; /* its blocks per SM (0: as many as fit); PDS_CUDA_COOP_PER_SM (-1: tests) */
  int                 nsm;         /* the device's SMs */
  pds_real           *coop_part;   /* device: [6][PDS_CUDA_RED_MAXBLOCK], the cooperative kernel's partials */
  long long           n_small, n_coop; /* such iterations queued (tests/cuda count them) */
};

/* ---- errors ------------------------------------------------------------------------------------------------ */
static int cuda_error(pds_ctx ctx, const char *file, int line, const char *func, cudaError_t e, const char *what) {
  (void)cudaGetLastError(); /* clear a sticky non-fatal error: the context stays usable */
  if (e == cudaErrorMemoryAllocation)
    return pds_error(ctx, file, line, func, PDS_ERR_MEM, "device memory exhausted in %s (%s)", what,
                     cudaGetErrorString(e));
  return pds_error(ctx, file, line, func, PDS_ERR_BACKEND, "CUDA error %s (%s) in %s", cudaGetErrorName(e),
                   cudaGetErrorString(e), what);
}
#define PDS_CUDA_CALL(ctx, ...)                                                              \
  do {                                                                                       \
    cudaError_t pds_cuda_e_ = (__VA_ARGS__);                                                 \
    if (pds_cuda_e_ != cudaSuccess)                                                          \
      return cuda_error((ctx), __FILE__, __LINE__, __func__, pds_cuda_e_, #__VA_ARGS__);     \
  } while (0)

/* The context's backend data, with its device made current. */
static struct cuda_be *enter(pds_ctx ctx) {
  struct cuda_be *be = ctx->backend_data;
  int             cur;

  if (cudaGetDevice(&cur) != cudaSuccess || cur != be->device) cudaSetDevice(be->device);
  return be;
}

/* ---- memory ------------------------------------------------------------------------------------------------ */
static cudaError_t raw_alloc(struct cuda_be *be, size_t bytes, void **p) {
  return be->use_pool ? cudaMallocFromPoolAsync(p, bytes, be->pool, be->stream) : cudaMalloc(p, bytes);
}
static void raw_free(struct cuda_be *be, void *p) {
  if (p) (void)(be->use_pool ? cudaFreeAsync(p, be->stream) : cudaFree(p));
}
/* callbacks for the launchers that need scratch (the transpose) */
static cudaError_t scratch_alloc(void *user, size_t bytes, void **p) { return raw_alloc(user, bytes, p); }
static void        scratch_release(void *user, void *p) { raw_free(user, p); }

static int dev_alloc(pds_ctx ctx, struct cuda_be *be, size_t bytes, void **p) {
  cudaError_t e = raw_alloc(be, bytes ? bytes : 1, p);
  size_t      freeb = 0, total = 0;

  if (e == cudaErrorMemoryAllocation && be->use_pool) {
    /* the pool may be holding freed blocks: give them back and try once more */
    (void)cudaGetLastError();
    (void)cudaStreamSynchronize(be->stream);
    (void)cudaMemPoolTrimTo(be->pool, 0);
    e = raw_alloc(be, bytes ? bytes : 1, p);
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
  return cuda_error(ctx, __FILE__, __LINE__, __func__, e, "cudaMallocFromPoolAsync");
}

static int mem_alloc_cuda(pds_ctx ctx, size_t bytes, void **p) { return dev_alloc(ctx, enter(ctx), bytes, p); }

/* a CSR plan's device arrays (what csr_plan_build allocated, also after it failed half way) */
static void csr_plan_free(struct cuda_be *be, pds_cuda_csr_plan *pl) {
  raw_free(be, pl->long_rows);
  raw_free(be, pl->partial);
  raw_free(be, pl->coord);
  raw_free(be, pl->carry);
  memset(pl, 0, sizeof *pl);
}

static void csr_entry_free(struct cuda_be *be, struct csr_entry *e) {
  csr_plan_free(be, &e->plan);
  raw_free(be, e->t_rowptr);
  raw_free(be, e->t_rowidx);
  raw_free(be, e->t_perm);
  csr_plan_free(be, &e->t_plan);
  free(e);
}

static int mem_free_cuda(pds_ctx ctx, void *p) {
  struct cuda_be    *be = enter(ctx);
  struct csr_entry **pe = &be->csr;

  while (*pe) { /* a plan dies with the structure it describes (a new array may reuse the address) */
    struct csr_entry *e = *pe;

    if (e->rowptr == p || e->colidx == p) {
      *pe = e->next;
      csr_entry_free(be, e);
    } else pe = &e->next;
  }
  PDS_CUDA_CALL(ctx, be->use_pool ? cudaFreeAsync(p, be->stream) : cudaFree(p));
  return PDS_OK;
}

static int mem_zero_cuda(pds_ctx ctx, void *p, size_t bytes) {
  struct cuda_be *be = enter(ctx);

  if (bytes) PDS_CUDA_CALL(ctx, cudaMemsetAsync(p, 0, bytes, be->stream));
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
  struct cuda_be *be = enter(ctx);
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
static int fetch_scalars(pds_ctx ctx, struct cuda_be *be, int n, pds_real *out) {
  be->n_d2h++;
  PDS_CUDA_CALL(ctx, cudaMemcpyAsync(be->hscal, be->dscal, (size_t)n * sizeof *out, cudaMemcpyDeviceToHost, be->stream));
  PDS_CUDA_CALL(ctx, cudaStreamSynchronize(be->stream));
  for (int i = 0; i < n; i++) out[i] = be->hscal[i];
  return PDS_OK;
}
static int fetch_stats(pds_ctx ctx, struct cuda_be *be, int n, unsigned long long *out) {
  be->n_d2h++;
  PDS_CUDA_CALL(ctx, cudaMemcpyAsync(be->hstat, be->dstat, (size_t)n * sizeof *out, cudaMemcpyDeviceToHost, be->stream));
  PDS_CUDA_CALL(ctx, cudaStreamSynchronize(be->stream));
  for (int i = 0; i < n; i++) out[i] = be->hstat[i];
  return PDS_OK;
}

/* ---- vectors ----------------------------------------------------------------------------------------------- */
#define LAUNCH(ctx, call)                          \
  do {                                             \
    struct cuda_be *be_ = enter(ctx);              \
    cudaStream_t    s_  = be_->stream;             \
    (void)s_;                                      \
    PDS_CUDA_CALL(ctx, call);                      \
    return PDS_OK;                                 \
  } while (0)

static int vec_set_cuda(pds_ctx ctx, pds_size n, pds_real a, pds_real *y) {
  if (n <= 0) return PDS_OK;
  LAUNCH(ctx, pds_cuda_vec_set(s_, n, a, y));
}
static int vec_copy_cuda(pds_ctx ctx, pds_size n, const pds_real *x, pds_real *y) {
  if (n <= 0 || x == y) return PDS_OK;
  LAUNCH(ctx, cudaMemcpyAsync(y, x, (size_t)n * sizeof *y, cudaMemcpyDeviceToDevice, s_));
}
static int vec_scale_cuda(pds_ctx ctx, pds_size n, pds_real a, pds_real *y) {
  if (n <= 0) return PDS_OK;
  LAUNCH(ctx, pds_cuda_vec_scale(s_, n, a, y));
}
static int vec_axpby_cuda(pds_ctx ctx, pds_size n, pds_real a, const pds_real *x, pds_real b, pds_real *y) {
  if (n <= 0) return PDS_OK;
  LAUNCH(ctx, pds_cuda_vec_axpby(s_, n, a, x, b, y));
}
static int vec_waxpby_cuda(pds_ctx ctx, pds_size n, pds_real a, const pds_real *x, pds_real b, const pds_real *y,
                           pds_real *w) {
  if (n <= 0) return PDS_OK;
  LAUNCH(ctx, pds_cuda_vec_waxpby(s_, n, a, x, b, y, w));
}
static int vec_pmult_cuda(pds_ctx ctx, pds_size n, const pds_real *x, const pds_real *y, pds_real *w) {
  if (n <= 0) return PDS_OK;
  LAUNCH(ctx, pds_cuda_vec_pmult(s_, n, x, y, w));
}
static int vec_pdiv_cuda(pds_ctx ctx, pds_size n, const pds_real *x, const pds_real *y, pds_real *w) {
  if (n <= 0) return PDS_OK;
  LAUNCH(ctx, pds_cuda_vec_pdiv(s_, n, x, y, w));
}
static int vec_axpbypcz_cuda(pds_ctx ctx, pds_size n, pds_real a, const pds_real *x, pds_real b, const pds_real *y,
                             pds_real c, pds_real *z) {
  if (n <= 0) return PDS_OK;
  LAUNCH(ctx, pds_cuda_vec_axpbypcz(s_, n, a, x, b, y, c, z));
}
static int cg_update_xp_cuda(pds_ctx ctx, pds_size n, const pds_real *z, pds_real *x, pds_real *p, const pds_real *S) {
  if (n <= 0) return PDS_OK;
  LAUNCH(ctx, pds_cuda_cg_update_xp(s_, n, z, x, p, S));
}
static int bicg_update_xp_cuda(pds_ctx ctx, pds_size n, const pds_real *ph, const pds_real *sh, const pds_real *r,
                               const pds_real *v, pds_real *x, pds_real *p, const pds_real *S) {
  if (n <= 0) return PDS_OK;
  LAUNCH(ctx, pds_cuda_bicg_update_xp(s_, n, ph, sh, r, v, x, p, S));
}

/* reductions (n = 0 runs one block, which writes 0) */
static int vec_dot_cuda(pds_ctx ctx, pds_size n, const pds_real *x, const pds_real *y, pds_real *d) {
  struct cuda_be *be = enter(ctx);

  PDS_CUDA_CALL(ctx, pds_cuda_vec_dot(be->stream, be->red, n, x, y, be->dscal));
  return fetch_scalars(ctx, be, 1, d);
}
static int vec_dot2_cuda(pds_ctx ctx, pds_size n, const pds_real *x, const pds_real *y, const pds_real *z,
                         pds_real *d) {
  struct cuda_be *be = enter(ctx);

  PDS_CUDA_CALL(ctx, pds_cuda_vec_dot2(be->stream, be->red, n, x, y, z, be->dscal));
  return fetch_scalars(ctx, be, 2, d);
}
static int vec_norm_inf_cuda(pds_ctx ctx, pds_size n, const pds_real *x, pds_real *d) {
  struct cuda_be *be = enter(ctx);

  PDS_CUDA_CALL(ctx, pds_cuda_vec_norm_inf(be->stream, be->red, n, x, be->dscal));
  return fetch_scalars(ctx, be, 1, d);
}
/* results stay on the device */
static int vec_mdot_into_cuda(pds_ctx ctx, pds_size n, int k, const pds_real *const *V, const pds_real *w,
                              pds_real *d) {
  struct cuda_be *be  = enter(ctx);
  pds_cuda_red    red = {be->mdot_partial, be->red.counter};

  LAUNCH(ctx, pds_cuda_vec_mdot(be->stream, red, n, k, V, w, d));
}
static int vec_maxpy_dev_cuda(pds_ctx ctx, pds_size n, int k, const pds_real *const *V, const pds_real *c,
                              pds_real *w) {
  if (n <= 0 || k <= 0) return PDS_OK;
  LAUNCH(ctx, pds_cuda_vec_maxpy(s_, n, k, V, c, w));
}
static int vec_dot_into_cuda(pds_ctx ctx, pds_size n, const pds_real *x, const pds_real *y, pds_real *d) {
  struct cuda_be *be = enter(ctx);

  LAUNCH(ctx, pds_cuda_vec_dot(be->stream, be->red, n, x, y, d));
}
static int vec_dot2_into_cuda(pds_ctx ctx, pds_size n, const pds_real *x, const pds_real *y, const pds_real *z,
                              pds_real *d) {
  struct cuda_be *be = enter(ctx);

  LAUNCH(ctx, pds_cuda_vec_dot2(be->stream, be->red, n, x, y, z, d));
}
/* the step an update kernel runs after its reduction: none (< 0) or a known one */
static int check_step(pds_ctx ctx, int step) {
  PDS_CHECK(step < 0 || (step >= PDS_KS_STEP_CG && step <= PDS_KS_STEP_NORM), ctx, PDS_ERR_ARG, "unknown Krylov step %d",
            step);
  return PDS_OK;
}
static int cg_update_r_cuda(pds_ctx ctx, pds_size n, const pds_real *q, pds_real *r, pds_real *S, int step) {
  struct cuda_be *be = enter(ctx);

  PDS_CALL(check_step(ctx, step));
  LAUNCH(ctx, pds_cuda_cg_update_r(be->stream, be->red, n, q, r, S, step, be->loop ? &be->loop->dev : NULL));
}
static int bicg_update_s_cuda(pds_ctx ctx, pds_size n, const pds_real *r, const pds_real *v, pds_real *w, pds_real *S) {
  struct cuda_be *be = enter(ctx);

  LAUNCH(ctx, pds_cuda_bicg_update_s(be->stream, be->red, n, r, v, w, S));
}
static int bicg_update_r_cuda(pds_ctx ctx, pds_size n, const pds_real *w, const pds_real *t, const pds_real *rhat,
                              pds_real *r, pds_real *S, int step) {
  struct cuda_be *be = enter(ctx);

  PDS_CALL(check_step(ctx, step));
  LAUNCH(ctx, pds_cuda_bicg_update_r(be->stream, be->red, n, w, t, rhat, r, S, step,
                                     be->loop ? &be->loop->dev : NULL));
}

/* ---- the Krylov steps and the device loop ------------------------------------------------------------------ */
/* Device loop (backend.h's loop_* slots; cuda_krylov.cu has the kernels and the picture). One per context at a time.
   The body is recorded by stream capture into the body of a conditional while node, after a gate kernel; the graph
   is launched a chunk of LOOP_CHUNK iterations at a time, at most two chunks ahead of the iteration the host reads,
   so the ring of records (LOOP_RING, mapped pinned memory) is never overwritten before it is read. The host reads a
   record by polling its sequence number (no CUDA call on the way; cudaStreamQuery every few thousand polls notices a
   failed or finished stream). Measured on an H100 (bench/gpu): the step and gate kernels cost what any small launch
   costs inside a graph, and the device never waits for the host. */
#define LOOP_CHUNK 64
#define LOOP_RING  (4 * LOOP_CHUNK)
/* A round of the while node costs about 3.5 us on an H100 beyond its kernels (measured: 5.6 us per round for a body of
   two tiny kernels, against 2.0 us for the same two kernels in a plain graph; 12.8 against 9.2 with nine). Vectors of up to
   LOOP_UNROLL_N entries (iterations of tens of microseconds) get LOOP_UNROLL iterations per round: a quarter of
   that cost, for at most LOOP_UNROLL - 1 iterations' work queued past the last iteration of a solve. */
#define LOOP_UNROLL   4
#define LOOP_UNROLL_N 524288


static int krylov_set_cuda(pds_ctx ctx, pds_real *S, const pds_real *v) {
  LAUNCH(ctx, pds_cuda_krylov_set(s_, S, v));
}

static int krylov_step_cuda(pds_ctx ctx, int method, pds_real *S) {
  struct cuda_be *be = enter(ctx);

  PDS_CHECK(method >= PDS_KS_STEP_CG && method <= PDS_KS_STEP_NORM, ctx, PDS_ERR_ARG, "unknown Krylov step %d", method);
  PDS_CUDA_CALL(ctx, pds_cuda_krylov_step(be->stream, method, S, be->loop ? &be->loop->dev : NULL));
  return PDS_OK;
}

static int loop_free_cuda(pds_ctx ctx, void *loop) {
  struct cuda_loop *L = loop;

  (void)ctx;
  if (!L) return PDS_OK;
  if (L->exec) (void)cudaGraphExecDestroy(L->exec);
  if (L->graph) (void)cudaGraphDestroy(L->graph);
  (void)cudaGetLastError();
  free(L);
  return PDS_OK;
}

/* the ring, the abort flag (mapped pinned memory) and the chunk counter, made once per context */
static int loop_memory(pds_ctx ctx, struct cuda_be *be) {
  void *p;

  if (be->ring_h) return PDS_OK;
  PDS_CUDA_CALL(ctx, cudaHostAlloc(&p, LOOP_RING * sizeof(pds_cuda_loop_rec) + 64, cudaHostAllocMapped));
  be->ring_h  = p;
  be->abort_h = (volatile int *)((char *)p + LOOP_RING * sizeof(pds_cuda_loop_rec));
  PDS_CUDA_CALL(ctx, cudaHostGetDevicePointer(&be->ring_d, p, 0));
  return dev_alloc(ctx, be, sizeof(int), (void **)&be->loop_left);
}

/* The device loop of a solver, made on its first solve and kept: later solves record the body again (pointers and
   values may differ) and update the executable graph in place (cudaGraphExecUpdate), instantiating anew only when
   the update is refused. */
static int loop_begin_cuda(pds_ctx ctx, pds_real *S, int first, pds_int n, void **loop, int *copies) {
  struct cuda_be            *be = enter(ctx);
  struct cuda_loop          *L  = *loop;
  cudaGraphConditionalHandle h;
  cudaGraphNode_t            gate, cond;
  struct cudaGraphNodeParams cp;
  cudaGraph_t                g;
  size_t                     nn = 1;
  cudaError_t                e;

  PDS_CHECK(!be->loop, ctx, PDS_ERR_UNSUPPORTED, "a device loop is already being recorded on this context");
  PDS_CHECK(!be->no_loops, ctx, PDS_ERR_UNSUPPORTED, "no device loops on this device");
  PDS_CALL(loop_memory(ctx, be));
  if (L && L->S != S) { /* another scalar vector: a new graph */
    (void)loop_free_cuda(ctx, L);
    *loop = L = NULL;
  }
  if (!L) {
    L = calloc(1, sizeof *L);
    PDS_CHECK(L, ctx, PDS_ERR_MEM, "allocation of %zu bytes of host memory failed", sizeof *L);
    *loop = L;
    L->S  = S;
    PDS_CUDA_CALL(ctx, cudaGraphCreate(&L->graph, 0));
    e = cudaGraphConditionalHandleCreate(&h, L->graph, 0, 0);
    if (e != cudaSuccess) { /* a driver older than CUDA 12.4's conditional nodes */
      (void)cudaGetLastError();
      be->no_loops = 1;
      return PDS_ERROR(ctx, PDS_ERR_UNSUPPORTED, "no device loop: conditional graph nodes unavailable (%s)",
                       cudaGetErrorString(e));
    }
    L->dev.ring   = (pds_cuda_loop_rec *)be->ring_d;
    L->dev.nring  = LOOP_RING;
    L->dev.abort  = (volatile int *)((char *)be->ring_d + LOOP_RING * sizeof(pds_cuda_loop_rec));
    L->dev.handle = h;
    L->dev.left   = be->loop_left;
    L->dev.chunk  = LOOP_CHUNK;
    /* [gate] -> [while] */
    PDS_CUDA_CALL(ctx, cudaStreamBeginCaptureToGraph(be->stream, L->graph, NULL, NULL, 0,
                                                     cudaStreamCaptureModeThreadLocal));
    e = pds_cuda_loop_gate(be->stream, S, &L->dev);
    {
      cudaError_t e2 = cudaStreamEndCapture(be->stream, &g);

      PDS_CUDA_CALL(ctx, e != cudaSuccess ? e : e2);
    }
    PDS_CUDA_CALL(ctx, cudaGraphGetNodes(L->graph, &gate, &nn));
    memset(&cp, 0, sizeof cp);
    cp.type               = cudaGraphNodeTypeConditional;
    cp.conditional.handle = h;
    cp.conditional.type   = cudaGraphCondTypeWhile;
    cp.conditional.size   = 1;
    PDS_CUDA_CALL(ctx, cudaGraphAddNode(&cond, L->graph, &gate, NULL, 1, &cp));
    L->body = cp.conditional.phGraph_out[0];
  } else { /* empty the body for the new recording */
    cudaGraphNode_t nodes[64], *nv = nodes;

    PDS_CUDA_CALL(ctx, cudaGraphGetNodes(L->body, NULL, &nn));
    if (nn > 64) {
      nv = malloc(nn * sizeof *nv);
      PDS_CHECK(nv, ctx, PDS_ERR_MEM, "allocation of %zu bytes of host memory failed", nn * sizeof *nv);
    }
    e = cudaGraphGetNodes(L->body, nv, &nn);
    for (size_t i = 0; e == cudaSuccess && i < nn; i++) e = cudaGraphDestroyNode(nv[i]);
    if (nv != nodes) free(nv);
    PDS_CUDA_CALL(ctx, e);
  }
  L->next = first, L->queued = first - 1;
  *copies = n <= LOOP_UNROLL_N ? LOOP_UNROLL : 1;
  /* the body: whatever the solver queues until loop_end */
  PDS_CUDA_CALL(ctx, cudaStreamBeginCaptureToGraph(be->stream, L->body, NULL, NULL, 0,
                                                   cudaStreamCaptureModeThreadLocal));
  be->loop = L;
  return PDS_OK;
}

/* the ring and the counters as loop_end leaves them */
static void loop_arm(struct cuda_be *be, struct cuda_loop *L, int first) {
  L->next = first, L->queued = first - 1;
  for (int i = 0; i < LOOP_RING; i++) be->ring_h[i].seq = -1;
  *be->abort_h = 0;
}

static int loop_end_cuda(pds_ctx ctx, void *loop) {
  struct cuda_be   *be = enter(ctx);
  struct cuda_loop *L  = loop;
  cudaGraph_t       g;

  be->loop = NULL;
  PDS_CUDA_CALL(ctx, cudaStreamEndCapture(be->stream, &g));
  if (L->exec) {
    cudaGraphExecUpdateResultInfo info;

    if (cudaGraphExecUpdate(L->exec, L->graph, &info) == cudaSuccess) L->updates++;
    else {
      (void)cudaGetLastError();
      (void)cudaGraphExecDestroy(L->exec);
      L->exec = NULL;
    }
  }
  if (!L->exec) {
    PDS_CUDA_CALL(ctx, cudaGraphInstantiate(&L->exec, L->graph, 0));
    L->instantiations++;
  }
  loop_arm(be, L, L->next);
  return PDS_OK;
}

static int loop_restart_cuda(pds_ctx ctx, void *loop, int first) {
  struct cuda_be   *be = enter(ctx);
  struct cuda_loop *L  = loop;

  PDS_CHECK(L && L->exec && !be->loop, ctx, PDS_ERR_STATE, "no device loop to run again");
  loop_arm(be, L, first);
  return PDS_OK;
}

static int loop_next_cuda(pds_ctx ctx, void *loop, pds_real *rec) {
  struct cuda_be             *be = enter(ctx);
  struct cuda_loop           *L  = loop;
  const int                   it = L->next;
  volatile pds_cuda_loop_rec *r  = &be->ring_h[it % LOOP_RING];

  while (L->queued < it + LOOP_CHUNK) { /* keep the device a chunk or two ahead */
    PDS_CUDA_CALL(ctx, cudaGraphLaunch(L->exec, be->stream));
    L->queued += LOOP_CHUNK;
  }
  for (long polls = 1; r->seq != it; polls++) {
    if (polls % 4096) continue;
    cudaError_t e = cudaStreamQuery(be->stream);

    if (e == cudaSuccess && r->seq != it)
      return PDS_ERROR(ctx, PDS_ERR_BACKEND, "device loop ended before iteration %d", it);
    if (e != cudaSuccess && e != cudaErrorNotReady) PDS_CUDA_CALL(ctx, e);
  }
  __atomic_thread_fence(__ATOMIC_ACQUIRE); /* the record was written before its number */
  for (int i = 0; i < PDS_CUDA_LOOP_REC; i++) rec[i] = r->rec[i];
  L->next++;
  return PDS_OK;
}

static int loop_finish_cuda(pds_ctx ctx, void *loop) {
  struct cuda_be   *be = enter(ctx);
  struct cuda_loop *L  = loop;
  cudaError_t       e  = cudaSuccess;

  if (!L) return PDS_OK;
  if (be->loop == L) { /* still recording: end it, keep nothing (the next recording starts from an empty body) */
    cudaGraph_t g;

    be->loop = NULL;
    (void)cudaStreamEndCapture(be->stream, &g);
    (void)cudaGetLastError();
    if (L->exec) (void)cudaGraphExecDestroy(L->exec);
    L->exec = NULL;
  }
  if (L->exec) {
    *be->abort_h = 1; /* chunks still queued: their gates keep the loop closed */
    e            = cudaStreamSynchronize(be->stream);
    *be->abort_h = 0;
  }
  PDS_CUDA_CALL(ctx, e);
  return PDS_OK;
}

/* ---- CSR --------------------------------------------------------------------------------------------------- */
/* The plan of a CSR structure (the selection rule of cuda_csr.cu): the stream kernel when no row has more than
   PDS_CUDA_STREAM_MAXROW entries (and the matrix is large enough), the merge-path kernel when the row lengths are
   irregular (the longest row over 8 times the mean non-empty row, or a quarter of the rows empty), else lanes per row
   from the mean row length and row splitting for the rows longer than long_len. One statistics kernel and one small
   copy, once per structure; a second pair lists the long rows for row splitting. On failure the caller frees what
   was allocated (csr_plan_free). */
static int csr_plan_build(pds_ctx ctx, struct cuda_be *be, pds_int nrows, pds_size nnz, const pds_size *rowptr,
                          pds_cuda_csr_plan *pl) {
  unsigned long long st[2] = {0, 0}, longest, empty;
  double             m;
  int                cap;

  memset(pl, 0, sizeof *pl);
  pl->width    = pds_cuda_lanes_per_row(nrows > 0 ? (double)nnz / (double)nrows : 0);
  pl->long_len = 64 * (pds_size)pl->width > 256 ? 64 * (pds_size)pl->width : 256;
  if (nrows <= 0 || nnz <= PDS_CUDA_STREAM_MAXROW) { /* no row can be long */
    pl->stream = nrows >= PDS_CUDA_STREAM_MINROWS;
    return PDS_OK;
  }
  /* longest row and non-empty rows */
  PDS_CUDA_CALL(ctx, pds_cuda_csr_analyze(be->stream, nrows, rowptr, 0, be->dstat, NULL, 0));
  PDS_CALL(fetch_stats(ctx, be, 2, st));
  longest = st[0], empty = (unsigned long long)nrows - st[1];
  /* every row short, and enough rows to fill the GPU: thread per row over staged products */
  pl->stream = longest <= PDS_CUDA_STREAM_MAXROW && nrows >= PDS_CUDA_STREAM_MINROWS;
  if (pl->stream) return PDS_OK;
  m = (double)nnz / (double)st[1]; /* mean length of the non-empty rows (nnz > 0: there is one) */
  if (((double)longest > 8 * (m > 4 ? m : 4) || 4 * empty >= (unsigned long long)nrows) &&
      PDS_CUDA_MERGE_CTAS(nrows, nnz) < INT_MAX) { /* irregular: merge-path */
    pl->merge = 1;
    pl->ncta  = (int)PDS_CUDA_MERGE_CTAS(nrows, nnz);
    PDS_CALL(dev_alloc(ctx, be, ((size_t)pl->ncta + 1) * sizeof *pl->coord, (void **)&pl->coord));
    PDS_CALL(dev_alloc(ctx, be, 2 * (size_t)pl->ncta * sizeof *pl->carry, (void **)&pl->carry));
    PDS_CUDA_CALL(ctx, pds_cuda_csr_merge_setup(be->stream, pl, nrows, nnz, rowptr));
    return PDS_OK;
  }
  if (longest <= (unsigned long long)pl->long_len) return PDS_OK;
  /* the long rows, for row splitting */
  cap = (int)(nnz / (pl->long_len + 1) + 1 < INT_MAX ? nnz / (pl->long_len + 1) + 1 : INT_MAX);
  PDS_CALL(dev_alloc(ctx, be, (size_t)cap * sizeof(int), (void **)&pl->long_rows));
  PDS_CUDA_CALL(ctx, pds_cuda_csr_analyze(be->stream, nrows, rowptr, pl->long_len, be->dstat, pl->long_rows, cap));
  PDS_CALL(fetch_stats(ctx, be, 2, st));
  pl->nlong = (int)(st[1] < (unsigned long long)cap ? st[1] : (unsigned long long)cap);
  pl->seg   = ((pds_size)(longest + 63) / 64 + 255) / 256 * 256;
  pl->seg   = pl->seg < 4096 ? 4096 : pl->seg;
  pl->nseg  = (int)(((pds_size)longest + pl->seg - 1) / pl->seg);
  return dev_alloc(ctx, be, (size_t)pl->nlong * pl->nseg * sizeof(pds_real), (void **)&pl->partial);
}

static int csr_entry_get(pds_ctx ctx, struct cuda_be *be, const struct pds_csr *A, struct csr_entry **out) {
  struct csr_entry *e;
  int               ierr;

  for (e = be->csr; e; e = e->next)
    if (e->rowptr == A->rowptr && e->colidx == A->colidx && e->nrows == A->nrows && e->ncols == A->ncols &&
        e->nnz == A->nnz) {
      *out = e;
      return PDS_OK;
    }
  e = calloc(1, sizeof *e);
  PDS_CHECK(e, ctx, PDS_ERR_MEM, "allocation of a CSR plan (%zu bytes of host memory) failed", sizeof *e);
  e->rowptr = A->rowptr, e->colidx = A->colidx, e->nrows = A->nrows, e->ncols = A->ncols, e->nnz = A->nnz;
  ierr = csr_plan_build(ctx, be, A->nrows, A->nnz, A->rowptr, &e->plan);
  if (ierr) {
    csr_entry_free(be, e);
    return ierr;
  }
  e->next = be->csr;
  be->csr = e;
  *out    = e;
  return PDS_OK;
}

static int csr_spmv_cuda(pds_ctx ctx, const struct pds_csr *A, pds_real alpha, const pds_real *x, pds_real beta,
                         pds_real *y) {
  struct cuda_be   *be = enter(ctx);
  struct csr_entry *e;

  if (A->nrows <= 0) return PDS_OK;
  PDS_CALL(csr_entry_get(ctx, be, A, &e));
  PDS_CUDA_CALL(ctx, pds_cuda_csr_spmv(be->stream, &e->plan, A->nrows, A->rowptr, A->colidx, A->vals, NULL, alpha, x,
                                       beta, y));
  return PDS_OK;
}

/* y = A x with its dots: one kernel for stream plans; the others take the product and a dot kernel in turn */
static int csr_spmv_dot_cuda(pds_ctx ctx, const struct pds_csr *A, const pds_real *x, pds_real *y, const pds_real *w1,
                             const pds_real *w2, pds_real *d) {
  struct cuda_be   *be = enter(ctx);
  struct csr_entry *e;

  if (A->nrows <= 0) { /* empty dots */
    PDS_CUDA_CALL(ctx, cudaMemsetAsync(d, 0, (w2 ? 2 : 1) * sizeof *d, be->stream));
    return PDS_OK;
  }
  PDS_CALL(csr_entry_get(ctx, be, A, &e));
  if (e->plan.stream) {
    PDS_CUDA_CALL(ctx, pds_cuda_csr_spmv_dot(be->stream, &e->plan, be->red, A->nrows, A->rowptr, A->colidx, A->vals,
                                             x, y, w1, w2, d));
    return PDS_OK;
  }
  PDS_CUDA_CALL(ctx, pds_cuda_csr_spmv(be->stream, &e->plan, A->nrows, A->rowptr, A->colidx, A->vals, NULL, 1.0, x,
                                       0.0, y));
  if (w2) PDS_CUDA_CALL(ctx, pds_cuda_vec_dot2(be->stream, be->red, A->nrows, y, w1, w2, d));
  else PDS_CUDA_CALL(ctx, pds_cuda_vec_dot(be->stream, be->red, A->nrows, y, w1, d));
  return PDS_OK;
}

static int csr_spmv_t_cuda(pds_ctx ctx, const struct pds_csr *A, pds_real alpha, const pds_real *x, pds_real beta,
                           pds_real *y) {
  struct cuda_be   *be = enter(ctx);
  struct csr_entry *e;

  if (A->ncols <= 0) return PDS_OK;
  PDS_CHECK(A->nnz < INT_MAX, ctx, PDS_ERR_UNSUPPORTED,
            "backend /gpu/cuda: the transpose product needs nnz < 2^31 (has %" PDS_SIZE_FMT ")", A->nnz);
  PDS_CALL(csr_entry_get(ctx, be, A, &e));
  if (!e->have_t) { /* built once; on failure nothing is kept */
    int         ierr = PDS_OK;
    cudaError_t ce;

    if (!ierr) ierr = dev_alloc(ctx, be, ((size_t)A->ncols + 1) * sizeof(pds_size), (void **)&e->t_rowptr);
    if (!ierr) ierr = dev_alloc(ctx, be, (size_t)A->nnz * sizeof(pds_int), (void **)&e->t_rowidx);
    if (!ierr) ierr = dev_alloc(ctx, be, (size_t)A->nnz * sizeof(pds_int), (void **)&e->t_perm);
    if (!ierr) {
      ce = pds_cuda_csr_transpose(be->stream, A->nrows, A->ncols, A->nnz, A->rowptr, A->colidx, e->t_rowptr,
                                  e->t_rowidx, e->t_perm, scratch_alloc, scratch_release, be);
      if (ce != cudaSuccess) ierr = cuda_error(ctx, __FILE__, __LINE__, __func__, ce, "pds_cuda_csr_transpose");
    }
    if (!ierr) ierr = csr_plan_build(ctx, be, A->ncols, A->nnz, e->t_rowptr, &e->t_plan);
    if (ierr) {
      raw_free(be, e->t_rowptr), raw_free(be, e->t_rowidx), raw_free(be, e->t_perm);
      e->t_rowptr = NULL, e->t_rowidx = NULL, e->t_perm = NULL;
      csr_plan_free(be, &e->t_plan);
      return ierr;
    }
    e->have_t = 1;
  }
  PDS_CUDA_CALL(ctx, pds_cuda_csr_spmv(be->stream, &e->t_plan, A->ncols, e->t_rowptr, e->t_rowidx, A->vals, e->t_perm,
                                       alpha, x, beta, y));
  return PDS_OK;
}

/* One whole iteration in one launch (backend.h's cg_iteration, bicg_iteration): one block (cuda_small.cu) where the
   system has at most PDS_CUDA_SMALL_N unknowns and a thread- or sub-warp-per-row plan without long rows; one
   cooperative grid (cuda_coop.cu) up to PDS_CUDA_COOP_N unknowns with such a plan or the stream plan; else *done = 0
   and the solver runs the kernel sequence. *width: the lanes per row the fused kernel takes (0: the stream plan). */
enum { FUSED_NONE, FUSED_SMALL, FUSED_COOP };
static int fused_plan(pds_ctx ctx, struct cuda_be *be, const struct pds_csr *A, int *how, int *width) {
  const pds_cuda_csr_plan *pl;
  struct csr_entry        *e;

  *how = FUSED_NONE, *width = 0;
  if (!be->small_on || A->nrows <= 0 || A->nrows > PDS_CUDA_COOP_N || A->nrows != A->ncols) return PDS_OK;
  if (A->nrows > PDS_CUDA_SMALL_N && !be->coop_on) return PDS_OK;
  PDS_CALL(csr_entry_get(ctx, be, A, &e));
  pl = &e->plan;
  if (pl->merge || (!pl->stream && pl->nlong > 0)) return PDS_OK;
  *width = pl->stream ? 0 : pl->width;
  if (A->nrows <= PDS_CUDA_SMALL_N && !pl->stream) *how = FUSED_SMALL;
  else if (A->nrows > PDS_CUDA_SMALL_N && be->coop_on) *how = FUSED_COOP;
  return PDS_OK;
}
/* A cooperative launch the device refuses (its grid no longer fits: an MPS share of the SMs, say) turns the cooperative
   kernel off for the context and leaves the iteration to the kernel sequence (same bits); while a device loop is
   recorded, the refused launch fails the recording, and the host loop that follows takes the sequence. */
static int coop_launched(pds_ctx ctx, struct cuda_be *be, cudaError_t e, int *how) {
  if (e == cudaErrorCooperativeLaunchTooLarge || e == cudaErrorLaunchOutOfResources || e == cudaErrorNotSupported) {
    (void)cudaGetLastError();
    be->coop_on = 0, *how = FUSED_NONE;
    return PDS_OK;
  }
  PDS_CUDA_CALL(ctx, e);
  be->n_coop++;
  return PDS_OK;
}
static int cg_iteration_cuda(pds_ctx ctx, const struct pds_csr *A, pds_real *x, pds_real *r, pds_real *p, pds_real *q,
                             pds_real *S, int *done) {
  struct cuda_be          *be = enter(ctx);
  const pds_cuda_loop_dev *lp = be->loop ? &be->loop->dev : NULL;
  int                      w, how;

  *done = 0;
  PDS_CALL(fused_plan(ctx, be, A, &how, &w));
  if (how == FUSED_SMALL) {
    PDS_CUDA_CALL(ctx, pds_cuda_cg_small(be->stream, w, A->nrows, A->rowptr, A->colidx, A->vals, x, r, p, q, S, lp));
    be->n_small++;
  } else if (how == FUSED_COOP) {
    PDS_CALL(coop_launched(ctx, be, pds_cuda_cg_coop(be->stream, w, be->nsm, be->coop_per_sm, A->nrows, A->rowptr,
                                                     A->colidx, A->vals, x, r, p, q, S, be->coop_part, lp), &how));
  }
  *done = how != FUSED_NONE;
  return PDS_OK;
}
static int bicg_iteration_cuda(pds_ctx ctx, const struct pds_csr *A, pds_real *x, pds_real *r, const pds_real *rhat,
                               pds_real *p, pds_real *v, pds_real *s, pds_real *t, pds_real *S, int *done) {
  struct cuda_be          *be = enter(ctx);
  const pds_cuda_loop_dev *lp = be->loop ? &be->loop->dev : NULL;
  int                      w, how;

  *done = 0;
  PDS_CALL(fused_plan(ctx, be, A, &how, &w));
  if (how == FUSED_SMALL) {
    PDS_CUDA_CALL(ctx, pds_cuda_bicg_small(be->stream, w, A->nrows, A->rowptr, A->colidx, A->vals, x, r, rhat, p, v,
                                           s, t, S, lp));
    be->n_small++;
  } else if (how == FUSED_COOP) {
    PDS_CALL(coop_launched(ctx, be, pds_cuda_bicg_coop(be->stream, w, be->nsm, be->coop_per_sm, A->nrows, A->rowptr,
                                                       A->colidx, A->vals, x, r, rhat, p, v, s, t, S, be->coop_part,
                                                       lp), &how));
  }
  *done = how != FUSED_NONE;
  return PDS_OK;
}

/* -view: which kernel the plan of A's product picked (builds the plan if the product has not run yet) */
static int csr_describe_cuda(pds_ctx ctx, const struct pds_csr *A, char *buf, size_t len) {
  struct cuda_be          *be = enter(ctx);
  struct csr_entry        *e;
  const pds_cuda_csr_plan *pl;
  int                      n;

  if (A->nrows <= 0) {
    snprintf(buf, len, "cuda plan: none (no rows)");
    return PDS_OK;
  }
  PDS_CALL(csr_entry_get(ctx, be, A, &e));
  pl = &e->plan;
  if (pl->stream) n = snprintf(buf, len, "cuda plan: stream kernel (thread per row over block-staged products)");
  else if (pl->merge)
    n = snprintf(buf, len, "cuda plan: merge-path (nnz-balanced), %d CTAs of %d items", pl->ncta,
                 PDS_CUDA_MERGE_TILE);
  else if (pl->width == 1) n = snprintf(buf, len, "cuda plan: thread per row");
  else n = snprintf(buf, len, "cuda plan: %d lanes per row", pl->width);
  if (pl->nlong > 0 && n >= 0 && (size_t)n < len)
    snprintf(buf + n, len - (size_t)n, ", row splitting for %d rows of over %" PDS_SIZE_FMT " entries", pl->nlong,
             pl->long_len);
  return PDS_OK;
}

static int csr_diag_cuda(pds_ctx ctx, const struct pds_csr *A, pds_real *d) {
  pds_int n = A->nrows < A->ncols ? A->nrows : A->ncols;

  LAUNCH(ctx, pds_cuda_csr_diag(s_, n, A->rowptr, A->colidx, A->vals, d));
}

/* ---- single precision (kernels_f32.h; the kernels in cuda_f32.cu, the CSR products in cuda_csr.cu) -------------- */
static int f32_to_f32_cuda(pds_ctx ctx, pds_size n, const double *x, float *y) {
  if (n <= 0) return PDS_OK;
  LAUNCH(ctx, pds_cuda_f32_to_f32(s_, n, x, y));
}
static int f32_to_f64_cuda(pds_ctx ctx, pds_size n, const float *y, double *x) {
  if (n <= 0) return PDS_OK;
  LAUNCH(ctx, pds_cuda_f32_to_f64(s_, n, y, x));
}
static int f32_vec_set_cuda(pds_ctx ctx, pds_size n, double a, float *y) {
  if (n <= 0) return PDS_OK;
  LAUNCH(ctx, pds_cuda_f32_set(s_, n, a, y));
}
static int f32_vec_copy_cuda(pds_ctx ctx, pds_size n, const float *x, float *y) {
  if (n <= 0 || x == y) return PDS_OK;
  LAUNCH(ctx, cudaMemcpyAsync(y, x, (size_t)n * sizeof *y, cudaMemcpyDeviceToDevice, s_));
}
static int f32_vec_axpby_cuda(pds_ctx ctx, pds_size n, double a, const float *x, double b, float *y) {
  if (n <= 0) return PDS_OK;
  LAUNCH(ctx, pds_cuda_f32_axpby(s_, n, a, x, b, y));
}
static int f32_vec_axpbypcz_cuda(pds_ctx ctx, pds_size n, double a, const float *x, double b, const float *y, double c,
                                 float *z) {
  if (n <= 0) return PDS_OK;
  LAUNCH(ctx, pds_cuda_f32_axpbypcz(s_, n, a, x, b, y, c, z));
}
static int f32_vec_pdiv_cuda(pds_ctx ctx, pds_size n, const float *x, const double *d, float *w) {
  if (n <= 0) return PDS_OK;
  LAUNCH(ctx, pds_cuda_f32_pdiv(s_, n, x, d, w));
}
static int f32_vec_dot2_cuda(pds_ctx ctx, pds_size n, const float *x, const float *y, const float *z, double *d) {
  struct cuda_be *be = enter(ctx);

  PDS_CUDA_CALL(ctx, pds_cuda_f32_dot2(be->stream, be->red, n, x, y, z, be->dscal));
  return fetch_scalars(ctx, be, z ? 2 : 1, d);
}
static int f32_vec_dot_into_cuda(pds_ctx ctx, pds_size n, const float *x, const float *y, double *d) {
  struct cuda_be *be = enter(ctx);

  LAUNCH(ctx, pds_cuda_f32_dot2(be->stream, be->red, n, x, y, NULL, d));
}
static int f32_cg_update_r_cuda(pds_ctx ctx, pds_size n, const float *q, float *r, double *S, int step) {
  struct cuda_be *be = enter(ctx);

  PDS_CALL(check_step(ctx, step));
  LAUNCH(ctx, pds_cuda_f32_cg_update_r(be->stream, be->red, n, q, r, S, step, be->loop ? &be->loop->dev : NULL));
}
static int f32_cg_update_xp_cuda(pds_ctx ctx, pds_size n, const float *z, float *x, float *p, const double *S) {
  if (n <= 0) return PDS_OK;
  LAUNCH(ctx, pds_cuda_f32_cg_update_xp(s_, n, z, x, p, S));
}
static int f32_bicg_update_s_cuda(pds_ctx ctx, pds_size n, const float *r, const float *v, float *w, double *S) {
  struct cuda_be *be = enter(ctx);

  LAUNCH(ctx, pds_cuda_f32_bicg_update_s(be->stream, be->red, n, r, v, w, S));
}
static int f32_bicg_update_r_cuda(pds_ctx ctx, pds_size n, const float *w, const float *t, const float *rhat, float *r,
                                  double *S, int step) {
  struct cuda_be *be = enter(ctx);

  PDS_CALL(check_step(ctx, step));
  LAUNCH(ctx, pds_cuda_f32_bicg_update_r(be->stream, be->red, n, w, t, rhat, r, S, step,
                                         be->loop ? &be->loop->dev : NULL));
}
static int f32_bicg_update_xp_cuda(pds_ctx ctx, pds_size n, const float *ph, const float *sh, const float *r,
                                   const float *v, float *x, float *p, const double *S) {
  if (n <= 0) return PDS_OK;
  LAUNCH(ctx, pds_cuda_f32_bicg_update_xp(s_, n, ph, sh, r, v, x, p, S));
}
/* y = alpha A x + beta y on the plan of A's structure (the double product's plan) */
static int f32_csr_spmv_cuda(pds_ctx ctx, const struct pds_csr *A, const float *vals, double alpha, const float *x,
                             double beta, float *y) {
  struct cuda_be   *be = enter(ctx);
  struct csr_entry *e;

  if (A->nrows <= 0) return PDS_OK;
  PDS_CALL(csr_entry_get(ctx, be, A, &e));
  PDS_CUDA_CALL(ctx, pds_cuda_csr_spmv_f32(be->stream, &e->plan, A->nrows, A->rowptr, A->colidx, vals, alpha, x, beta,
                                           y));
  return PDS_OK;
}
/* r = b - A x: r = b, then r = -1 A x + 1 r (each entry -s + b_i, rounded once) */
static int f32_csr_residual_cuda(pds_ctx ctx, const struct pds_csr *A, const float *vals, const float *x,
                                 const float *b, float *r) {
  PDS_CALL(f32_vec_copy_cuda(ctx, A->nrows, b, r));
  return f32_csr_spmv_cuda(ctx, A, vals, -1.0, x, 1.0, r);
}
/* y = A x with its dots: one kernel for stream plans, else the product and a dot kernel */
static int f32_csr_spmv_dot_cuda(pds_ctx ctx, const struct pds_csr *A, const float *vals, const float *x, float *y,
                                 const float *w1, const float *w2, double *d) {
  struct cuda_be   *be = enter(ctx);
  struct csr_entry *e;

  if (A->nrows <= 0) { /* empty dots */
    PDS_CUDA_CALL(ctx, cudaMemsetAsync(d, 0, (w2 ? 2 : 1) * sizeof *d, be->stream));
    return PDS_OK;
  }
  PDS_CALL(csr_entry_get(ctx, be, A, &e));
  if (e->plan.stream) {
    PDS_CUDA_CALL(ctx, pds_cuda_csr_spmv_dot_f32(be->stream, &e->plan, be->red, A->nrows, A->rowptr, A->colidx, vals,
                                                 x, y, w1, w2, d));
    return PDS_OK;
  }
  PDS_CUDA_CALL(ctx, pds_cuda_csr_spmv_f32(be->stream, &e->plan, A->nrows, A->rowptr, A->colidx, vals, 1.0, x, 0.0, y));
  PDS_CUDA_CALL(ctx, pds_cuda_f32_dot2(be->stream, be->red, A->nrows, y, w1, w2, d));
  return PDS_OK;
}

static void fill_f32_cuda(struct pds_kernels_f32 *k) {
  k->to_f32         = f32_to_f32_cuda;
  k->to_f64         = f32_to_f64_cuda;
  k->vec_set        = f32_vec_set_cuda;
  k->vec_copy       = f32_vec_copy_cuda;
  k->vec_axpby      = f32_vec_axpby_cuda;
  k->vec_axpbypcz   = f32_vec_axpbypcz_cuda;
  k->vec_pdiv       = f32_vec_pdiv_cuda;
  k->vec_dot2       = f32_vec_dot2_cuda;
  k->vec_dot_into   = f32_vec_dot_into_cuda;
  k->cg_update_r    = f32_cg_update_r_cuda;
  k->cg_update_xp   = f32_cg_update_xp_cuda;
  k->bicg_update_s  = f32_bicg_update_s_cuda;
  k->bicg_update_r  = f32_bicg_update_r_cuda;
  k->bicg_update_xp = f32_bicg_update_xp_cuda;
  k->csr_spmv       = f32_csr_spmv_cuda;
  k->csr_residual   = f32_csr_residual_cuda;
  k->csr_spmv_dot   = f32_csr_spmv_dot_cuda;
}

/* ---- BSR and point-block Jacobi ---------------------------------------------------------------------------- */
static int bsr_spmv_cuda(pds_ctx ctx, const struct pds_bsr *A, pds_real alpha, const pds_real *x, pds_real beta,
                         pds_real *y) {
  LAUNCH(ctx, pds_cuda_bsr_spmv(s_, PDS_CUDA_BSR_ROW, PDS_CUDA_BSR_AUTO, A->nbrows, A->bs, A->nnzb, A->browptr,
                                A->bcolidx, A->vals, alpha, x, beta, y));
}

static int bsr_diag_cuda(pds_ctx ctx, const struct pds_bsr *A, pds_real *d) {
  pds_int nb = A->nbrows < A->nbcols ? A->nbrows : A->nbcols;

  LAUNCH(ctx, pds_cuda_bsr_diag(s_, nb, A->bs, A->browptr, A->bcolidx, A->vals, d));
}

static int blocks_invert_cuda(pds_ctx ctx, pds_size nb, int bs, pds_real *blocks, pds_size *bad) {
  struct cuda_be    *be  = enter(ctx);
  int               *piv = NULL;
  unsigned long long b = 0;
  int                ierr = PDS_OK;
  cudaError_t        e;

  if (bs > 8) PDS_CALL(dev_alloc(ctx, be, (size_t)(nb > 0 ? nb : 1) * bs * sizeof *piv, (void **)&piv));
  e = pds_cuda_blocks_invert(be->stream, nb, bs, blocks, piv, be->dstat);
  if (e != cudaSuccess) ierr = cuda_error(ctx, __FILE__, __LINE__, __func__, e, "pds_cuda_blocks_invert");
  if (!ierr) ierr = fetch_stats(ctx, be, 1, &b);
  raw_free(be, piv);
  if (!ierr) *bad = b < (unsigned long long)nb ? (pds_size)b : -1;
  return ierr;
}

static int blocks_apply_cuda(pds_ctx ctx, pds_size nb, int bs, const pds_real *inv, const pds_real *x, pds_real *y) {
  LAUNCH(ctx, pds_cuda_blocks_apply(s_, nb, bs, inv, x, y));
}

/* ---- P1 assembly (cuda_fem2d.cu) ----------------------------------------------------------------------------- */
static int fem2d_element_cuda(pds_ctx ctx, const struct pds_fem2d_maps *m, const pds_real *xy, pds_real k,
                              const pds_real *kv, pds_real f, const pds_real *fm, pds_real *Ke, pds_real *fe,
                              pds_int *bad) {
  struct cuda_be    *be = enter(ctx);
  pds_cuda_fem2d_cfg cfg;
  unsigned long long b = 0;

  *bad = -1;
  if (m->ntri <= 0) return PDS_OK;
  pds_cuda_fem2d_auto(m->n, m->nnz, &cfg);
  PDS_CUDA_CALL(ctx, pds_cuda_fem2d_element(be->stream, &cfg, m->ntri, m->tri, xy, k, kv, f, fm, Ke, fe, be->dstat));
  PDS_CALL(fetch_stats(ctx, be, 1, &b));
  if (b < (unsigned long long)m->ntri) *bad = (pds_int)b;
  return PDS_OK;
}

static int fem2d_gather_cuda(pds_ctx ctx, const struct pds_fem2d_maps *m, const pds_real *Ke, const pds_real *fe,
                             const unsigned char *isd, const pds_real *g, pds_real gc, int symmetric, pds_real *vals,
                             pds_real *b) {
  pds_cuda_fem2d_cfg cfg;

  if (m->n <= 0) return PDS_OK;
  pds_cuda_fem2d_auto(m->n, m->nnz, &cfg);
  LAUNCH(ctx, pds_cuda_fem2d_gather(s_, &cfg, m->n, m->rowptr, m->colidx, m->gptr, m->gidx, Ke, m->nptr, m->nidx, fe,
                                    isd, g, gc, symmetric, vals, b));
}

/* Internal, for tests/cuda: device-to-host copies so far, the bytes the pool holds from the driver, and the bytes
   of it handed out (live allocations; 0 without a pool). Any output may be NULL. */
int pds_cuda_counters(pds_ctx ctx, long long *d2h, size_t *reserved, size_t *used) {
  struct cuda_be *be;
  uint64_t        r = 0, u = 0;

  PDS_CHECK(!strcmp(ctx->backend, "/gpu/cuda"), ctx, PDS_ERR_ARG, "pds_cuda_counters needs a /gpu/cuda context");
  be = enter(ctx);
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
  *small = enter(ctx)->n_small;
  *coop  = enter(ctx)->n_coop;
  return PDS_OK;
}

/* ---- the backend ------------------------------------------------------------------------------------------- */
static int destroy_cuda(pds_ctx ctx) {
  struct cuda_be *be = ctx->backend_data;

  if (!be) return PDS_OK;
  enter(ctx);
  if (be->stream) (void)cudaStreamSynchronize(be->stream);
  while (be->csr) {
    struct csr_entry *e = be->csr;

    be->csr = e->next;
    csr_entry_free(be, e);
  }
  raw_free(be, be->red.partial);
  raw_free(be, be->red.counter);
  raw_free(be, be->mdot_partial);
  raw_free(be, be->coop_part);
  raw_free(be, be->dscal);
  raw_free(be, be->dstat);
  raw_free(be, be->loop_left);
  if (be->stream) (void)cudaStreamSynchronize(be->stream);
  if (be->ring_h) (void)cudaFreeHost(be->ring_h);
  for (int i = 0; i < be->have_stage; i++) {
    (void)cudaFreeHost(be->stage[i]);
    (void)cudaEventDestroy(be->ev[i]);
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
  return n > 0;
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
  PDS_CALL(dev_alloc(ctx, be, (size_t)PDS_CUDA_RED_MAXOUT * PDS_CUDA_RED_MAXBLOCK * sizeof(pds_real),
                     (void **)&be->red.partial));
  PDS_CALL(dev_alloc(ctx, be, (size_t)PDS_CUDA_MDOT_BATCH * PDS_CUDA_RED_MAXBLOCK * sizeof(pds_real),
                     (void **)&be->mdot_partial));
  PDS_CALL(dev_alloc(ctx, be, (size_t)6 * PDS_CUDA_RED_MAXBLOCK * sizeof(pds_real), (void **)&be->coop_part));
  PDS_CUDA_CALL(ctx, cudaDeviceGetAttribute(&be->nsm, cudaDevAttrMultiProcessorCount, be->device));
  PDS_CUDA_CALL(ctx, cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, be->device));
  if (!coop) be->coop_on = 0;
  PDS_CALL(dev_alloc(ctx, be, sizeof(unsigned), (void **)&be->red.counter));
  PDS_CUDA_CALL(ctx, cudaMemsetAsync(be->red.counter, 0, sizeof(unsigned), be->stream));
  PDS_CALL(dev_alloc(ctx, be, 8 * sizeof(pds_real), (void **)&be->dscal));
  PDS_CALL(dev_alloc(ctx, be, 2 * sizeof(unsigned long long), (void **)&be->dstat));
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
  k->name           = "/gpu/cuda";
  k->mem_alloc      = mem_alloc_cuda;
  k->mem_free       = mem_free_cuda;
  k->mem_copy       = mem_copy_cuda;
  k->mem_zero       = mem_zero_cuda;
  k->destroy        = destroy_cuda;
  k->vec.set        = vec_set_cuda;
  k->vec.copy       = vec_copy_cuda;
  k->vec.scale      = vec_scale_cuda;
  k->vec.axpby      = vec_axpby_cuda;
  k->vec.waxpby     = vec_waxpby_cuda;
  k->vec.pmult      = vec_pmult_cuda;
  k->vec.pdiv       = vec_pdiv_cuda;
  k->vec.dot        = vec_dot_cuda;
  k->vec.norm_inf   = vec_norm_inf_cuda;
  k->vec.axpbypcz   = vec_axpbypcz_cuda;
  k->vec.dot2       = vec_dot2_cuda;
  k->vec.dot_into   = vec_dot_into_cuda;
  k->vec.dot2_into  = vec_dot2_into_cuda;
  k->vec.mdot_into  = vec_mdot_into_cuda;
  k->vec.maxpy_dev  = vec_maxpy_dev_cuda;
  k->krylov.cg_update_r    = cg_update_r_cuda;
  k->krylov.cg_update_xp   = cg_update_xp_cuda;
  k->krylov.bicg_update_s  = bicg_update_s_cuda;
  k->krylov.bicg_update_r  = bicg_update_r_cuda;
  k->krylov.bicg_update_xp = bicg_update_xp_cuda;
  k->krylov.step    = krylov_step_cuda;
  k->krylov.cg_iteration   = cg_iteration_cuda;
  k->krylov.bicg_iteration = bicg_iteration_cuda;
  k->krylov.set     = krylov_set_cuda;
  k->krylov.loop_begin     = loop_begin_cuda;
  k->krylov.loop_end       = loop_end_cuda;
  k->krylov.loop_restart   = loop_restart_cuda;
  k->krylov.loop_next      = loop_next_cuda;
  k->krylov.loop_finish    = loop_finish_cuda;
  k->krylov.loop_free      = loop_free_cuda;
  k->csr.spmv       = csr_spmv_cuda;
  k->csr.spmv_t     = csr_spmv_t_cuda;
  k->csr.spmv_dot   = csr_spmv_dot_cuda;
  k->csr.describe   = csr_describe_cuda;
  k->bsr.spmv       = bsr_spmv_cuda;
  k->csr.diag       = csr_diag_cuda;
  k->bsr.diag       = bsr_diag_cuda;
  k->blocks.invert  = blocks_invert_cuda;
  k->blocks.apply   = blocks_apply_cuda;
  k->fem2d.element  = fem2d_element_cuda;
  k->fem2d.gather   = fem2d_gather_cuda;
  fill_f32_cuda(&k->f32);
  return PDS_OK;
}
