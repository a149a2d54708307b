/* src/backend/cuda/cuda_krylov.c: /gpu/cuda's Krylov kernel group (src/solver/krylov_kernels.h): the fused steps
 * (cuda_vec.cu), the scalar step and the device loop (cuda_krylov.cu), whole iterations in one launch
 * (cuda_small.cu, cuda_coop.cu). */
#include "cuda_impl.h"

static int cg_update_xp_cuda(pds_ctx ctx, pds_size n, const pds_real *z, pds_real *x, pds_real *p, const pds_real *S) {
  if (n <= 0) return PDS_OK;
  LAUNCH(ctx, pds_cuda_cg_update_xp(s_, n, z, x, p, S));
}
static int bicg_update_xp_cuda(pds_ctx ctx, pds_size n, const pds_real *ph, const pds_real *sh, const pds_real *r,
                               const pds_real *v, pds_real *x, pds_real *p, const pds_real *S) {
  if (n <= 0) return PDS_OK;
  LAUNCH(ctx, pds_cuda_bicg_update_xp(s_, n, ph, sh, r, v, x, p, S));
}


/* the step an update kernel runs after its reduction: none (< 0) or a known one */
int pds_cuda_check_step(pds_ctx ctx, int step) {
  PDS_CHECK(step < 0 || (step >= PDS_KS_STEP_CG && step <= PDS_KS_STEP_NORM), ctx, PDS_ERR_ARG, "unknown Krylov step %d",
            step);
  return PDS_OK;
}
static int cg_update_r_cuda(pds_ctx ctx, pds_size n, const pds_real *q, pds_real *r, pds_real *S, int step) {
  struct cuda_be *be = pds_cuda_enter(ctx);

  PDS_CALL(pds_cuda_check_step(ctx, step));
  LAUNCH(ctx, pds_cuda_cg_update_r(be->stream, be->red, n, q, r, S, step, be->loop ? &be->loop->dev : NULL));
}
static int bicg_update_s_cuda(pds_ctx ctx, pds_size n, const pds_real *r, const pds_real *v, pds_real *w, pds_real *S) {
  struct cuda_be *be = pds_cuda_enter(ctx);

  LAUNCH(ctx, pds_cuda_bicg_update_s(be->stream, be->red, n, r, v, w, S));
}
static int bicg_update_r_cuda(pds_ctx ctx, pds_size n, const pds_real *w, const pds_real *t, const pds_real *rhat,
                              pds_real *r, pds_real *S, int step) {
  struct cuda_be *be = pds_cuda_enter(ctx);

  PDS_CALL(pds_cuda_check_step(ctx, step));
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
  struct cuda_be *be = pds_cuda_enter(ctx);

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
  return pds_cuda_dev_alloc(ctx, be, sizeof(int), (void **)&be->loop_left);
}

/* The device loop of a solver, made on its first solve and kept: later solves record the body again (pointers and
   values may differ) and update the executable graph in place (cudaGraphExecUpdate), instantiating anew only when
   the update is refused. */
static int loop_begin_cuda(pds_ctx ctx, pds_real *S, int first, pds_int n, void **loop, int *copies) {
  struct cuda_be            *be = pds_cuda_enter(ctx);
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
  struct cuda_be   *be = pds_cuda_enter(ctx);
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
  struct cuda_be   *be = pds_cuda_enter(ctx);
  struct cuda_loop *L  = loop;

  PDS_CHECK(L && L->exec && !be->loop, ctx, PDS_ERR_STATE, "no device loop to run again");
  loop_arm(be, L, first);
  return PDS_OK;
}

static int loop_next_cuda(pds_ctx ctx, void *loop, pds_real *rec) {
  struct cuda_be             *be = pds_cuda_enter(ctx);
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
  struct cuda_be   *be = pds_cuda_enter(ctx);
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
  PDS_CALL(pds_cuda_csr_entry(ctx, be, A, &e));
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
  struct cuda_be          *be = pds_cuda_enter(ctx);
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
  struct cuda_be          *be = pds_cuda_enter(ctx);
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

void pds_cuda_fill_krylov(struct pds_krylov_kernels *g) {
  g->cg_update_r    = cg_update_r_cuda;
  g->cg_update_xp   = cg_update_xp_cuda;
  g->bicg_update_s  = bicg_update_s_cuda;
  g->bicg_update_r  = bicg_update_r_cuda;
  g->bicg_update_xp = bicg_update_xp_cuda;
  g->cg_iteration   = cg_iteration_cuda;
  g->bicg_iteration = bicg_iteration_cuda;
  g->step           = krylov_step_cuda;
  g->set            = krylov_set_cuda;
  g->loop_begin     = loop_begin_cuda;
  g->loop_end       = loop_end_cuda;
  g->loop_restart   = loop_restart_cuda;
  g->loop_next      = loop_next_cuda;
  g->loop_finish    = loop_finish_cuda;
  g->loop_free      = loop_free_cuda;
}
