/* src/backend/cuda/cuda_relax_stream.c: /gpu/cuda's smooth_host (src/precond/relax_kernels.h): block relaxation of a
 * patch set whose f and u live in host memory, the patches streamed through the device (paper 002 Section 2.1 and
 * Fig. 6). pds_precond_relax_smooth_host states what a sweep computes; here is how:
 *   1. every patch's ghost values (its six faces' neighbours, P->ghost) are gathered from u into one pinned array
 *      (host threads): the values at the start of the sweep, which every patch then sees;
 *   2. patch q goes to slot q mod nslots, each slot a stream and device buffers for the largest patch: u's cells with
 *      the ghost values behind them, f, and E (jacobi's block products in cell order). The copies in (u, ghosts, f),
 *      the sweep of the patch's blocks (paper 002's mapping C, the mapc kernels of cuda_relax.cu) and the copy out
 *      (u) are queued on the slot's stream, in one of the paper's two orders:
 *        depth-first:   patch by patch, in, sweep, out: a patch's copies overlap other slots' sweeps (the order for
 *                       large patches, which fill the GPU on their own);
 *        breadth-first: nslots patches at a time, every copy in, then every sweep, then every copy out: the sweeps
 *                       of small patches run side by side (the order for patches too small to fill the GPU);
 *   3. the host waits for every slot (the next sweep's ghosts are the values this one wrote).
 * The kernels see a patch set whose patch q starts at cell 0 (the slot) with ghost entry e of its faces mapped to
 * slot entry n_q + e (or -1, the Dirichlet boundary, as in P->ghost), and the blocks of patch q only: work items of
 * up to `reuse` consecutive layout blocks of one segment and of patch q (the layout sorts blocks by colour, type,
 * patch, so a patch's blocks of one segment are consecutive), patch by patch, colour by colour. The arithmetic is
 * mapc's, so jacobi gives the bits of the device-resident mapc sweep (and of /cpu/ref).
 * Bytes per cell and sweep over the host link: 24 (u in, f in, u out) plus 8 per ghost entry (6 n^2 of n^3 cells:
 * 0.75 B per cell for 64^3 patches, 3 for 16^3). Overlap needs page-locked f and u (pds_host_register); pageable
 * arrays are copied correctly but the CUDA runtime stages them synchronously. */
#include <string.h>

#include "cuda_relax.h"

struct relax_stream {
  int                    nslots, np, ncolors;
  pds_size               capu, capn;  /* per slot: cells + ghost entries, cells of the largest patch */
  cudaStream_t          *s;           /* [nslots] */
  cudaEvent_t            ready;       /* the context stream's work before the first copy (uploads, allocations) */
  int                    have_ready;
  pds_real              *dbuf;        /* device: nslots x (capu + 2 capn): u with ghosts, f, E */
  pds_real              *hghost;      /* pinned host: P->nghost ghost values */
  struct pds_patch_geom *dgeom;       /* device: patch q from cell 0, its ghost entries at gfirst as in P */
  pds_int               *dghost;      /* device: ghost entry e of patch q -> n_q + (e - gfirst_q), or -1 */
  int2                  *ditems;      /* device: the work items, patch by patch, colour by colour */
  pds_int               *ifirst;      /* host: patch q, colour c: items ifirst[q C + c] .. ifirst[q C + c + 1] - 1 */
};

static pds_size patch_cells(const struct pds_patch_geom *g) { return (pds_size)g->n[0] * g->n[1] * g->n[2]; }
static pds_size patch_ghosts(const struct pds_patch_geom *g) {
  return 2 * ((pds_size)g->n[1] * g->n[2] + (pds_size)g->n[0] * g->n[2] + (pds_size)g->n[0] * g->n[1]);
}

void pds_cuda_relax_stream_free(pds_ctx ctx, struct relax_stream *st) {
  struct cuda_be *be;

  if (!st) return;
  be = pds_cuda_enter(ctx);
  for (int k = 0; k < st->nslots && st->s; k++)
    if (st->s[k]) (void)cudaStreamSynchronize(st->s[k]), (void)cudaStreamDestroy(st->s[k]);
  if (st->have_ready) (void)cudaEventDestroy(st->ready);
  pds_cuda_raw_free(be, st->dbuf), pds_cuda_raw_free(be, st->dgeom);
  pds_cuda_raw_free(be, st->dghost), pds_cuda_raw_free(be, st->ditems);
  if (st->hghost) (void)cudaFreeHost(st->hghost);
  (void)cudaGetLastError();
  free(st->s), free(st->ifirst), free(st);
}

/* the streaming geometry, ghost map and work items (host, then uploaded) */
static int stream_tables(pds_ctx ctx, struct cuda_be *be, const struct relax_plan *R, const struct pds_patches *P,
                         const struct pds_relax_layout *L, struct relax_stream *st) {
  const int              C = L->ncolors;
  struct pds_patch_geom *hg = malloc(((size_t)P->np + 1) * sizeof *hg);
  pds_int               *hm = malloc(((size_t)P->nghost + 1) * sizeof *hm);
  int2                  *hi = malloc(((size_t)L->nblocks + 1) * sizeof *hi);
  int                   *segof = malloc(((size_t)L->nblocks + 1) * sizeof *segof), *colof = NULL;
  pds_int                n = 0;
  int                    ierr = PDS_OK;
  cudaError_t            e;

  st->ifirst = malloc(((size_t)P->np * C + 1) * sizeof *st->ifirst);
  colof      = malloc(((size_t)L->nsegs + 1) * sizeof *colof);
  if (!hg || !hm || !hi || !segof || !colof || !st->ifirst) {
    ierr = PDS_ERROR(ctx, PDS_ERR_MEM, "relax smooth_host: no host memory for the tables of %d patches", P->np);
    goto done;
  }
  for (int c = 0; c < C; c++)
    for (pds_int s = L->hcolor[c]; s < L->hcolor[c + 1]; s++) colof[s] = c;
  for (pds_int s = 0; s < L->nsegs; s++)
    for (pds_int b = L->hseg[s].b0; b < L->hseg[s].b1; b++) segof[b] = (int)s;
  for (int q = 0; q < P->np; q++) {
    const struct pds_patch_geom *g  = &P->hgeom[q];
    const pds_size               nq = patch_cells(g), gq = patch_ghosts(g);
    pds_int                      k = L->hpfirst[q], k1 = L->hpfirst[q + 1];

    hg[q] = *g, hg[q].first = 0;
    for (pds_size x = 0; x < gq; x++) hm[g->gfirst + x] = P->hghost[g->gfirst + x] >= 0 ? (pds_int)(nq + x) : -1;
    for (int c = 0; c < C; c++) { /* the patch's blocks (layout order: colour by colour) cut into items */
      st->ifirst[(size_t)q * C + c] = n;
      for (; k < k1 && colof[segof[L->hpblk[k]]] == c; k++) {
        const pds_int b = L->hpblk[k];

        if (n > st->ifirst[(size_t)q * C + c] && hi[n - 1].x + hi[n - 1].y == b && segof[hi[n - 1].x] == segof[b] &&
            hi[n - 1].y < R->reuse)
          hi[n - 1].y++;
        else hi[n++] = make_int2((int)b, 1);
      }
    }
  }
  st->ifirst[(size_t)P->np * C] = n;
  PDS_CALL_GOTO(ierr, done, pds_cuda_dev_alloc(ctx, be, (size_t)P->np * sizeof *hg, (void **)&st->dgeom));
  PDS_CALL_GOTO(ierr, done, pds_cuda_dev_alloc(ctx, be, ((size_t)P->nghost + 1) * sizeof *hm, (void **)&st->dghost));
  PDS_CALL_GOTO(ierr, done, pds_cuda_dev_alloc(ctx, be, ((size_t)n + 1) * sizeof *hi, (void **)&st->ditems));
  e = cudaMemcpyAsync(st->dgeom, hg, (size_t)P->np * sizeof *hg, cudaMemcpyHostToDevice, be->stream);
  if (e == cudaSuccess && P->nghost)
    e = cudaMemcpyAsync(st->dghost, hm, (size_t)P->nghost * sizeof *hm, cudaMemcpyHostToDevice, be->stream);
  if (e == cudaSuccess && n) e = cudaMemcpyAsync(st->ditems, hi, (size_t)n * sizeof *hi, cudaMemcpyHostToDevice, be->stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(be->stream); /* the host tables go below */
  if (e != cudaSuccess) ierr = pds_cuda_error(ctx, __FILE__, __LINE__, __func__, e, "upload of smooth_host's tables");
done:
  free(hg), free(hm), free(hi), free(segof), free(colof);
  return ierr;
}

/* the slots and tables for nslots slots (made at the first call, again when nslots changes) */
static int stream_make(pds_ctx ctx, struct cuda_be *be, struct relax_plan *R, const struct pds_patches *P,
                       const struct pds_relax_layout *L, int nslots) {
  struct relax_stream *st;
  int                  ierr;

  if (R->st && R->st->nslots == nslots) return PDS_OK;
  pds_cuda_relax_stream_free(ctx, R->st), R->st = NULL;
  st = calloc(1, sizeof *st);
  PDS_CHECK(st, ctx, PDS_ERR_MEM, "relax smooth_host: no host memory");
  st->np = P->np, st->ncolors = L->ncolors;
  for (int q = 0; q < P->np; q++) {
    const pds_size nq = patch_cells(&P->hgeom[q]), uq = nq + patch_ghosts(&P->hgeom[q]);

    if (nq > st->capn) st->capn = nq;
    if (uq > st->capu) st->capu = uq;
  }
  st->s = calloc((size_t)nslots, sizeof *st->s);
  if (!st->s) {
    ierr = PDS_ERROR(ctx, PDS_ERR_MEM, "relax smooth_host: no host memory");
    goto fail;
  }
  st->nslots = nslots;
  PDS_CALL_GOTO(ierr, fail, stream_tables(ctx, be, R, P, L, st));
  PDS_CALL_GOTO(ierr, fail, pds_cuda_dev_alloc(ctx, be, (size_t)nslots * (st->capu + 2 * st->capn) * sizeof(pds_real),
                                               (void **)&st->dbuf));
  {
    cudaError_t e = cudaHostAlloc((void **)&st->hghost, ((size_t)P->nghost + 1) * sizeof(pds_real),
                                  cudaHostAllocDefault);

    for (int k = 0; k < nslots && e == cudaSuccess; k++) e = cudaStreamCreateWithFlags(&st->s[k], cudaStreamNonBlocking);
    if (e == cudaSuccess) e = cudaEventCreateWithFlags(&st->ready, cudaEventDisableTiming);
    if (e == cudaSuccess) st->have_ready = 1;
    if (e != cudaSuccess) {
      ierr = pds_cuda_error(ctx, __FILE__, __LINE__, __func__, e, "smooth_host's streams and pinned ghost buffer");
      goto fail;
    }
  }
  R->st = st;
  return PDS_OK;
fail:
  pds_cuda_relax_stream_free(ctx, st);
  return ierr;
}

/* the device buffers of slot k: u with ghosts, f, E */
static pds_real *slot_u(const struct relax_stream *st, int k) {
  return st->dbuf + (size_t)k * (st->capu + 2 * st->capn);
}

static cudaError_t copy_in(const struct relax_stream *st, const struct pds_patches *P, int q, int k,
                           const pds_real *f, const pds_real *u) {
  const struct pds_patch_geom *g  = &P->hgeom[q];
  const pds_size               nq = patch_cells(g), gq = patch_ghosts(g);
  pds_real                    *du = slot_u(st, k);
  cudaError_t                  e;

  e = cudaMemcpyAsync(du, u + g->first, nq * sizeof *u, cudaMemcpyHostToDevice, st->s[k]);
  if (e == cudaSuccess)
    e = cudaMemcpyAsync(du + nq, st->hghost + g->gfirst, gq * sizeof *u, cudaMemcpyHostToDevice, st->s[k]);
  if (e == cudaSuccess)
    e = cudaMemcpyAsync(du + st->capu, f + g->first, nq * sizeof *f, cudaMemcpyHostToDevice, st->s[k]);
  return e;
}

static cudaError_t copy_out(const struct relax_stream *st, const struct pds_patches *P, int q, int k, pds_real *u) {
  const struct pds_patch_geom *g = &P->hgeom[q];

  return cudaMemcpyAsync(u + g->first, slot_u(st, k), patch_cells(g) * sizeof *u, cudaMemcpyDeviceToHost, st->s[k]);
}

/* one sweep of patch q in slot k (Ps: the streaming view of the set) */
static cudaError_t patch_sweep(const struct relax_plan *R, const struct relax_stream *st, const struct pds_patches *Ps,
                               const struct pds_relax_layout *L, int q, int k, int method, int symmetric,
                               pds_real omega) {
  const int      C = st->ncolors;
  const pds_int *F = st->ifirst + (size_t)q * C;
  pds_real      *du = slot_u(st, k), *df = du + st->capu, *dE = df + st->capn;
  cudaError_t    e;

  if (method == PDS_RELAX_JACOBI) {
    e = pds_cuda_relax_mapc(st->s[k], Ps, L, 0, st->ditems, F[0], F[C], R->stride, R->pack, R->reuse, 0, omega, df,
                            du, dE);
    return e == cudaSuccess ? pds_cuda_relax_update_cells(st->s[k], patch_cells(&Ps->hgeom[q]), 0, omega, dE, du) : e;
  }
  if (method == PDS_RELAX_CHAOTIC)
    return pds_cuda_relax_mapc(st->s[k], Ps, L, 1, st->ditems, F[0], F[C], R->stride, R->pack, R->reuse, 0, omega, df,
                               du, NULL);
  e = cudaSuccess;
  for (int t = 0; t < (symmetric ? 2 * C : C) && e == cudaSuccess; t++) {
    const int c = t < C ? t : 2 * C - 1 - t;

    e = pds_cuda_relax_mapc(st->s[k], Ps, L, 1, st->ditems, F[c], F[c + 1], R->stride, R->pack, R->reuse, 0, omega,
                            df, du, NULL);
  }
  return e;
}

int pds_cuda_relax_smooth_host(pds_ctx ctx, void *plan, const struct pds_patches *P, const struct pds_relax_layout *L,
                               int method, int symmetric, pds_real omega, int sweeps, int order, int nslots,
                               const pds_real *f, pds_real *u) {
  struct cuda_be      *be = pds_cuda_enter(ctx);
  struct relax_plan   *R  = plan;
  struct relax_stream *st;
  struct pds_patches   Ps;
  cudaError_t          e = cudaSuccess;
  const char          *what = "";
  int                  ns;

  PDS_CHECK(R, ctx, PDS_ERR_STATE, "relax: smooth_host without a plan (plan_create first)");
  PDS_CHECK(P && L && f && u, ctx, PDS_ERR_ARG, "relax: smooth_host needs the patch set, the layout, f and u");
  PDS_CHECK(method == PDS_RELAX_JACOBI || method == PDS_RELAX_MULTICOLOR || method == PDS_RELAX_CHAOTIC, ctx,
            PDS_ERR_ARG, "relax: unknown method %d", method);
  PDS_CHECK(order == 0 || order == 1, ctx, PDS_ERR_ARG, "relax: smooth_host order %d (0 depth-first, 1 breadth-first)",
            order);
  PDS_CHECK(nslots >= 1 && sweeps >= 0, ctx, PDS_ERR_ARG, "relax: smooth_host with %d slots and %d sweeps", nslots,
            sweeps);
  PDS_CHECK(!be->loop, ctx, PDS_ERR_STATE, "relax: smooth_host while a device loop is being recorded");
  ns = nslots < P->np ? nslots : P->np;
  PDS_CALL(stream_make(ctx, be, R, P, L, ns));
  st = R->st;
  Ps = *P, Ps.geom = st->dgeom, Ps.ghost = st->dghost; /* the kernels read geom and ghost; hgeom stays the host's */
  /* the slots start after what the context's stream holds (the layout's uploads, pool allocations) */
  e = cudaEventRecord(st->ready, be->stream);
  for (int k = 0; k < ns && e == cudaSuccess; k++) e = cudaStreamWaitEvent(st->s[k], st->ready, 0);
  if (e != cudaSuccess) return pds_cuda_error(ctx, __FILE__, __LINE__, __func__, e, "smooth_host's start");
  for (int sw = 0; sw < sweeps && e == cudaSuccess; sw++) {
    const pds_int *gh = P->hghost;
    const long     ng = (long)P->nghost;
    pds_real      *hv = st->hghost;

#ifdef _OPENMP
#pragma omp parallel for schedule(static) if (ng > 65536)
#endif
    for (long x = 0; x < ng; x++) hv[x] = gh[x] >= 0 ? u[gh[x]] : 0.0; /* -1: the boundary, never read */
    if (order == 0) { /* depth-first */
      for (int q = 0; q < P->np && e == cudaSuccess; q++) {
        const int k = q % ns;

        what = "a patch's copy in, sweep or copy out";
        e    = copy_in(st, P, q, k, f, u);
        if (e == cudaSuccess) e = patch_sweep(R, st, &Ps, L, q, k, method, symmetric, omega);
        if (e == cudaSuccess) e = copy_out(st, P, q, k, u);
      }
    } else { /* breadth-first, ns patches at a time */
      for (int q0 = 0; q0 < P->np && e == cudaSuccess; q0 += ns) {
        const int q1 = q0 + ns < P->np ? q0 + ns : P->np;

        what = "the copies in";
        for (int q = q0; q < q1 && e == cudaSuccess; q++) e = copy_in(st, P, q, q - q0, f, u);
        what = "the sweeps";
        for (int q = q0; q < q1 && e == cudaSuccess; q++)
          e = patch_sweep(R, st, &Ps, L, q, q - q0, method, symmetric, omega);
        what = "the copies out";
        for (int q = q0; q < q1 && e == cudaSuccess; q++) e = copy_out(st, P, q, q - q0, u);
      }
    }
    /* every slot done before the next sweep's ghosts are read (and before returning: the copies write u) */
    for (int k = 0; k < ns; k++) {
      const cudaError_t es = cudaStreamSynchronize(st->s[k]);

      if (e == cudaSuccess && es != cudaSuccess) e = es, what = "waiting for the slots";
    }
  }
  if (e != cudaSuccess) {
    for (int k = 0; k < ns; k++) (void)cudaStreamSynchronize(st->s[k]); /* nothing may still write u */
    return pds_cuda_error(ctx, __FILE__, __LINE__, __func__, e, what);
  }
  return PDS_OK;
}
