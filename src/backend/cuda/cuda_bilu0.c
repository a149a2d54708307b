/* src/backend/cuda/cuda_bilu0.c: /gpu/cuda's block ILU(0) group (src/precond/bilu0_kernels.h): the plan (the
 * schedules of the grids, built once per grid shape: no analysis of values), the variants, and their launches
 * (kernels in cuda_bilu0.cu).
 *   hyperplane  paper 000's kernels (n^2 threads per point, shared memory), one launch per plane;
 *   graph       the same launches captured once in a CUDA graph and replayed (today's form of the paper's
 *               dynamic-parallelism variant: the device queues the plane launches without the host; docs/bilu0.md
 *               says why dynamic parallelism itself is not built);
 *   lanes       n lanes per point (registers, shuffles), one launch per plane, captured in a graph; a plane that
 *               fits in one wave of the element kernel is factored with n^2 lanes per point, one wider than a wave
 *               of lanes' own factorization kernel by that kernel bounded to 128 registers (wave_bounds below);
 *   recycle     one persistent cooperative launch (paper 000's thread recycling): no more blocks than fit on the
 *               device at once (occupancy query, and the cooperative launch refuses more), a grid barrier per plane;
 *   syncfree    one launch per phase, no barrier: each point waits on its three upstream neighbours' flags;
 *   block       one thread block per grid, all its planes inside the block (many small grids);
 *   tiles       the factorization as lanes; the sweeps by tiles of up to 8^3 points (a thread block each, the tile's
 *               factors staged in shared memory), one launch per plane of tiles, in a graph;
 *   pipe        the factorization as lanes; each sweep one launch, a thread block per column of t x t lines along i
 *               running its points plane by plane behind its upstream neighbours (cuda_bilu0_pipe.cu: block
 *               barriers inside a column, a device-wide wait only where the sweep crosses into another column);
 *   auto        the rule of pick_auto below (pipe or lanes, measured: docs/bilu0.md).
 * A graph is kept per phase (factor, solve) for the arrays it was captured with and replayed while they stay; inside
 * a device loop's recording (the stream capturing) the launches go straight into that recording. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "../stencil7_bodies.h" /* s7_inside */
#include "cuda_impl.h"

enum { V_AUTO, V_HYPERPLANE, V_GRAPH, V_LANES, V_RECYCLE, V_SYNCFREE, V_BLOCK, V_TILES, V_PIPE, V_COUNT };
static const char *const variant_names[V_COUNT] = {"auto",     "hyperplane", "graph", "lanes", "recycle",
                                                   "syncfree", "block",      "tiles", "pipe"};

struct bilu0_plan {
  int                  asked, variant; /* the name given, and what runs (auto resolved) */
  int                  n, nb, nh;      /* unknowns per point, grids, planes (the most of any grid) */
  pds_size             np;
  long long           *hoff;           /* host [nh + 1]: plane h's entries of sched */
  long long            wide;           /* the widest plane's points */
  int4                *sched;          /* device [np], plane-major */
  long long           *hoff_d;         /* device copy of hoff (recycle) */
  int4                *gsched;         /* block: device [np], grid-major */
  long long           *goff;           /* block: device, every grid's plane offsets */
  int                 *gbase;          /* block: device [nb + 1] */
  int4                *psched;         /* syncfree: device, plane-major padded to whole warps */
  long long            nwarps;         /* syncfree: warps of psched */
  unsigned            *flags;          /* syncfree: device [np] */
  pds_cuda_sync_state *sync;           /* syncfree, pipe: device (sync_state below) */
  int                  single;
  float               *fvals;          /* single: device [np][7][n][n] */
  int                  recycle_grid;   /* recycle: the blocks of the last launch */
  long long            ijn;            /* block: the largest I J when the sweeps keep planes in shared memory, or 0 */
  int4                *tiles;          /* tiles: device, 2 int4 per tile, tile-plane-major */
  long long           *toff;           /* tiles: host [ntp + 1]: tile-plane t's tiles */
  int                  ntp, tedge;     /* tiles: tile-planes, the tiles' edge */
  long long            tsmem;          /* tiles: shared memory bytes per tile */
  pds_cuda_bilu0_pipe_launch pipe;     /* pipe: the launch (tiles, sizes, progress) but for the arrays and direction */
  struct pds_cuda_graph graph[2];      /* graph, lanes: 0 factor, 1 solve (keys: vals, dinv, fvals, b, x) */
  long long            elem_max;       /* lanes, tiles: planes of at most this many points factored by n^2 lanes a
                                          point (below) */
  long long            lanes_wide;     /* lanes, tiles: planes of more blocks than this factored by the bounded kernel */
};

/* The factorization of lanes and tiles runs a plane with the element kernel (cuda_bilu0.cu: n^2 lanes a point, a
   short chain per point, many registers) when the plane fits in one wave of it on this device (elem_max points),
   and a wider plane with lanes' kernel (n lanes a point, a longer chain, one wave for far more points). Both give the
   same bits. Measured on an H100 at n = 6 (docs/bilu0.md): the element kernel 1.7-1.9x faster on 15^3-35^3, whose
   planes fit; on every plane it is 1.45-1.5x slower at 100^3 and on 64 grids of 15^3 (7500 and 10800 points a plane,
   5-7 waves). A plane wider than one wave of lanes' kernel (n >= 5: one block an SM, for its registers; lanes_wide
   blocks) is factored by the same kernel bounded to 128 registers, two blocks an SM (cuda_bilu0.cu: lanes_k's MB;
   same bits). In the environment PDS_BILU0_ELEM_MAX=k sets the first bound to k points (0: lanes' kernel always),
   PDS_BILU0_LANES_WIDE=k the second to k blocks (0: the bounded kernel on every plane wider than the element
   kernel's). */
static int wave_bounds(pds_ctx ctx, struct cuda_be *be, int n, long long *elem_max, long long *lanes_wide) {
  const char *e = getenv("PDS_BILU0_ELEM_MAX"), *w = getenv("PDS_BILU0_LANES_WIDE");

  PDS_CUDA_CALL(ctx, pds_cuda_bilu0_waves(n, be->nsm, elem_max, lanes_wide));
  if (e) *elem_max = atoll(e);
  if (w) *lanes_wide = atoll(w);
  return PDS_OK;
}

static int lanes_of(int n) { return n <= 1 ? 1 : n <= 2 ? 2 : n <= 4 ? 4 : 8; }

/* auto: pipe (the sweeps pipelined over tile columns) for one grid of n >= 4 and at most PIPE_AUTO_MAX points, lanes
   (one launch per plane, in a graph) otherwise. Measured (docs/bilu0.md): on an H200 (bench/results/bilu-h200-s23-pipe)
   pipe's application 1.10-1.16x faster than lanes' at n = 6 from 15^3 to 55^3 and at n = 5 on 55^3, slower at n = 4
   (55^3: 0.90x), on 100^3 and 128^3 (0.67-0.75x, where a tile column's steps are bound by its loads) and on many
   grids (64 x 15^3: 0.74x); with session 24's face fetch (both upstream flags polled at once, every face value loaded
   before any is stored) and step barrier, on an H100 (bench/results/bilu-h100-s24-final.jsonl) 1.13-1.26x at n = 6
   from 15^3 to 55^3, 1.15-1.26x at n = 5 and 1.01-1.04x at n = 4 on 25^3 and 55^3, slower on 100^3 and 128^3 at
   n = 5, 6 and on many grids. Both give /cpu/ref's bits, so the choice changes only the time. */
enum { PIPE_AUTO_MAX = 170000 };
static int pick_auto(const struct pds_stencil7 *g, int nb) {
  return nb == 1 && g[0].n >= 4 && (long long)g[0].I * g[0].J * g[0].K <= PIPE_AUTO_MAX ? V_PIPE : V_LANES;
}

static void plan_free(struct cuda_be *be, struct bilu0_plan *P) {
  if (!P) return;
  for (int i = 0; i < 2; i++)
    pds_cuda_graph_destroy(&P->graph[i]);
  pds_cuda_raw_free(be, P->sched), pds_cuda_raw_free(be, P->hoff_d), pds_cuda_raw_free(be, P->gsched);
  pds_cuda_raw_free(be, P->goff), pds_cuda_raw_free(be, P->gbase), pds_cuda_raw_free(be, P->psched);
  pds_cuda_raw_free(be, P->flags), pds_cuda_raw_free(be, P->sync), pds_cuda_raw_free(be, P->fvals);
  pds_cuda_raw_free(be, P->tiles);
  pds_cuda_raw_free(be, (void *)P->pipe.tiles), pds_cuda_raw_free(be, P->pipe.prog);
  free(P->hoff), free(P->toff);
  free(P);
}

/* a host array to new device memory (the stream synchronized: the host array may go) */
static int upload(pds_ctx ctx, struct cuda_be *be, const void *h, size_t bytes, void **d) {
  PDS_CALL(pds_cuda_dev_alloc(ctx, be, bytes ? bytes : 1, d));
  if (bytes) PDS_CUDA_CALL(ctx, cudaMemcpyAsync(*d, h, bytes, cudaMemcpyHostToDevice, be->stream));
  PDS_CUDA_CALL(ctx, cudaStreamSynchronize(be->stream));
  return PDS_OK;
}

/* the launch state of the kernels that take tickets and stamps (syncfree, pipe: pds_cuda_sync_state), zeroed */
static int sync_state(pds_ctx ctx, struct cuda_be *be, struct bilu0_plan *P) {
  const unsigned zero[3] = {0, 0, 0};

  return upload(ctx, be, zero, sizeof zero, (void **)&P->sync);
}

/* a schedule entry: the point, its grid's strides, its arms in the grid (bit a: s7_inside) */
static int4 entry(const struct pds_stencil7 *G, pds_size p, pds_int i, pds_int j, pds_int k) {
  int4 e;

  e.x = (int)p, e.y = (int)G->K, e.z = (int)((pds_size)G->J * G->K), e.w = 0;
  for (int a = 0; a < 7; a++) e.w |= s7_inside(G, i, j, k, a) << a;
  return e;
}

/* tiles: the edge T (the largest, at most 8, whose T^3 points' sweep factors, 4 n^2 doubles each, fit in 160 KB of
   shared memory), every grid's tiles by tile-plane a + b + c, grids in order within one */
static int tiles_build(pds_ctx ctx, struct cuda_be *be, const struct pds_stencil7 *g, int nb, struct bilu0_plan *P) {
  int4     *h = NULL;
  long long nt = 0, *cur = NULL;
  int       T = 2, ierr = PDS_OK;

  while (T < 8 && (long long)(T + 1) * (T + 1) * (T + 1) * 4 * P->n * P->n * 8 <= 160 * 1024) T++;
  P->tedge = T, P->tsmem = (long long)T * T * T * 4 * P->n * P->n * (P->single ? 4 : 8), P->ntp = 0;
  for (int q = 0; q < nb; q++) {
    const long long a = (g[q].I + T - 1) / T, b = (g[q].J + T - 1) / T, c = (g[q].K + T - 1) / T;

    nt += a * b * c;
    if (a + b + c - 2 > P->ntp) P->ntp = (int)(a + b + c - 2);
  }
  if (!(P->toff = calloc((size_t)P->ntp + 1, sizeof *P->toff)) || !(cur = calloc((size_t)P->ntp + 1, sizeof *cur)) ||
      !(h = malloc((size_t)nt * 2 * sizeof *h))) {
    ierr = PDS_ERROR(ctx, PDS_ERR_MEM, "bilu0: no host memory for the tiles");
    goto done;
  }
  for (int q = 0; q < nb; q++)
    for (pds_int a = 0; a * T < g[q].I; a++)
      for (pds_int b = 0; b * T < g[q].J; b++)
        for (pds_int c = 0; c * T < g[q].K; c++) P->toff[a + b + c + 1]++;
  for (int t = 0; t < P->ntp; t++) P->toff[t + 1] += P->toff[t];
  memcpy(cur, P->toff, ((size_t)P->ntp + 1) * sizeof *cur);
  for (int q = 0; q < nb; q++)
    for (pds_int a = 0; a * T < g[q].I; a++)
      for (pds_int b = 0; b * T < g[q].J; b++)
        for (pds_int c = 0; c * T < g[q].K; c++) {
          const long long at = cur[a + b + c]++;
          const int ni = (int)(g[q].I - a * T < T ? g[q].I - a * T : T), nj = (int)(g[q].J - b * T < T ? g[q].J - b * T : T);
          const int nk = (int)(g[q].K - c * T < T ? g[q].K - c * T : T);

          h[2 * at].x = (int)g[q].first, h[2 * at].y = (int)g[q].I, h[2 * at].z = (int)g[q].J, h[2 * at].w = (int)g[q].K;
          h[2 * at + 1].x = (int)(a * T), h[2 * at + 1].y = (int)(b * T), h[2 * at + 1].z = (int)(c * T);
          h[2 * at + 1].w = ni | nj << 8 | nk << 16;
        }
  ierr = upload(ctx, be, h, (size_t)nt * 2 * sizeof *h, (void **)&P->tiles);
done:
  free(h), free(cur);
  return ierr;
}

/* pipe: the tiles of edge T: every grid's (j, k) face cut into ceil(J / T) x ceil(K / T) tiles (the last ones in j
   and k narrower), numbered grid after grid, j-tile-major, so that a tile's upstream neighbours (j - 1, k - 1) come
   before it and its downstream ones after it (cuda_bilu0_pipe.cu's deadlock argument) */
static int pipe_tiles(const struct pds_stencil7 *g, int nb, int T, int4 *h, int *tjm, int *tkm) {
  int nt = 0;

  *tjm = *tkm = 0;
  for (int q = 0; q < nb; q++) {
    const int nbj = (int)((g[q].J + T - 1) / T), nbk = (int)((g[q].K + T - 1) / T);

    for (int bj = 0; bj < nbj; bj++)
      for (int bk = 0; bk < nbk; bk++, nt++) {
        const int j0 = bj * T, k0 = bk * T, nj = (int)(g[q].J - j0 < T ? g[q].J - j0 : T);
        const int nk = (int)(g[q].K - k0 < T ? g[q].K - k0 : T);

        if (nj > *tjm) *tjm = nj;
        if (nk > *tkm) *tkm = nk;
        if (!h) continue;
        h[3 * nt]     = (int4){(int)g[q].first, (int)g[q].I, (int)g[q].J, (int)g[q].K};
        h[3 * nt + 1] = (int4){j0, k0, nj, nk};
        h[3 * nt + 2] = (int4){bj > 0 ? nt - nbk : -1, bk > 0 ? nt - 1 : -1, bj + 1 < nbj ? nt + nbk : -1,
                               bk + 1 < nbk ? nt + 1 : -1};
      }
  }
  return nt;
}

/* pipe: the tiles' edge T, the blocks' size, and the tiles on the device. A block holds one group of G lanes per line
   of its tile (the next step's loads in registers, pf_regs) while that fits in PDS_CUDA_BILU0_PIPE_PF_THREADS, else
   512 compute lanes taking the lines in turn. T: the smallest edge from PIPE_T0 up whose tiles all fit on the device
   at once (the occupancy query; more tiles than that still run, after the first ones end), at most the largest whose
   x ring fits in shared memory. A narrower tile has cheaper steps but more tile crossings on the sweep's critical
   path: measured on an H200 at n = 6 (docs/bilu0.md), edges 2 to 8 on 15^3, 35^3 and 55^3, 5 was the fastest on
   each. PDS_BILU0_PIPE_T=t in the environment sets the edge, PDS_BILU0_PIPE_PF=0 turns the register prefetch off,
   PDS_BILU0_PIPE_L2=d prefetches the factors d steps ahead into L2. */
enum { PIPE_T0 = 5 };
static int pipe_build(pds_ctx ctx, struct cuda_be *be, const struct pds_stencil7 *g, int nb, struct bilu0_plan *P) {
  pds_cuda_bilu0_pipe_launch *L  = &P->pipe;
  const char                 *et = getenv("PDS_BILU0_PIPE_T"), *ep = getenv("PDS_BILU0_PIPE_PF"),
                             *el = getenv("PDS_BILU0_PIPE_L2");
  const int                   G  = lanes_of(P->n);
  pds_int                     most = 1;
  int                         optin = 0, edge = 0, ierr = PDS_OK;
  int4                       *h = NULL;

  for (int q = 0; q < nb; q++) {
    if (g[q].J > most) most = g[q].J;
    if (g[q].K > most) most = g[q].K;
  }
  PDS_CUDA_CALL(ctx, cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, be->device));
  memset(L, 0, sizeof *L);
  L->n = P->n, L->single = P->single, L->pf = el ? atoi(el) : 0;
  for (int T = et && atoi(et) > 0 ? atoi(et) : PIPE_T0;; T++) {
    pds_cuda_bilu0_pipe_launch C = *L;
    int                        per = 0;

    C.ntiles = pipe_tiles(g, nb, T, NULL, &C.tjm, &C.tkm);
    const int line_threads = 64 + (C.tjm * C.tkm * G + 31) / 32 * 32; /* a group for every line */

    C.pf_regs = line_threads <= PDS_CUDA_BILU0_PIPE_PF_THREADS && !(ep && !atoi(ep));
    C.threads = C.pf_regs ? line_threads : PDS_CUDA_BILU0_PIPE_THREADS;
    C.smem    = (long long)sizeof(double) * P->n * 2 * ((long long)C.tjm * C.tkm + C.tjm + C.tkm);
    if (C.smem > optin && edge > 0) break; /* keep the last edge whose x ring fits on chip */
    PDS_CHECK(C.smem <= optin, ctx, PDS_ERR_UNSUPPORTED, "bilu0 pipe: tiles of %d x %d lines need %lld bytes of "
              "shared memory, more than the device's %d", C.tjm, C.tkm, C.smem, optin);
    C.query = &per;
    PDS_CUDA_CALL(ctx, pds_cuda_bilu0_pipe(&C));
    C.query = NULL, *L = C, edge = T;
    if (et || T >= most || (long long)per * be->nsm >= L->ntiles) break;
  }
  if (!(h = malloc((size_t)L->ntiles * 3 * sizeof *h)))
    return PDS_ERROR(ctx, PDS_ERR_MEM, "bilu0: no host memory for %d tiles", L->ntiles);
  pipe_tiles(g, nb, edge, h, &L->tjm, &L->tkm);
  ierr = upload(ctx, be, h, (size_t)L->ntiles * 3 * sizeof *h, (void **)&L->tiles);
  free(h);
  if (!ierr) ierr = pds_cuda_dev_alloc(ctx, be, (size_t)L->ntiles * sizeof *L->prog, (void **)&L->prog);
  if (!ierr) {
    PDS_CUDA_CALL(ctx, cudaMemsetAsync(L->prog, 0, (size_t)L->ntiles * sizeof *L->prog, be->stream));
    ierr = sync_state(ctx, be, P);
    L->sync = P->sync;
  }
  return ierr;
}

/* the schedules the variant needs (host arrays, then device) */
static int plan_build(pds_ctx ctx, struct cuda_be *be, const struct pds_stencil7 *g, int nb, struct bilu0_plan *P) {
  const int  ppw = 32 / lanes_of(P->n);
  int4      *h   = NULL;
  long long *cur = NULL, *go = NULL;
  int       *gb  = NULL;
  int        ierr = PDS_OK;

  P->nh = 0;
  for (int q = 0; q < nb; q++) {
    const int hq = (int)(g[q].I + g[q].J + g[q].K - 2);

    if (hq + 1 > P->nh) P->nh = hq + 1;
  }
  if (!(P->hoff = calloc((size_t)P->nh + 1, sizeof *P->hoff)) || !(cur = calloc((size_t)P->nh + 1, sizeof *cur)) ||
      !(h = malloc((size_t)(P->np + (pds_size)P->nh * ppw + 1) * sizeof *h))) {
    ierr = PDS_ERROR(ctx, PDS_ERR_MEM, "bilu0: no host memory for the schedule of %" PDS_SIZE_FMT " points", P->np);
    goto done;
  }
  /* plane-major: the planes' sizes, then every grid in natural order into its plane */
  for (int q = 0; q < nb; q++)
    for (pds_int i = 0; i < g[q].I; i++)
      for (pds_int j = 0; j < g[q].J; j++)
        for (pds_int k = 0; k < g[q].K; k++) P->hoff[i + j + k + 1]++;
  P->wide = 0;
  for (int t = 0; t < P->nh; t++) {
    if (P->hoff[t + 1] > P->wide) P->wide = P->hoff[t + 1];
    P->hoff[t + 1] += P->hoff[t];
  }
  memcpy(cur, P->hoff, ((size_t)P->nh + 1) * sizeof *cur);
  for (int q = 0; q < nb; q++) {
    pds_size p = g[q].first;

    for (pds_int i = 0; i < g[q].I; i++)
      for (pds_int j = 0; j < g[q].J; j++)
        for (pds_int k = 0; k < g[q].K; k++, p++) h[cur[i + j + k]++] = entry(&g[q], p, i, j, k);
  }
  if ((ierr = upload(ctx, be, h, (size_t)P->np * sizeof *h, (void **)&P->sched))) goto done;
  if ((ierr = upload(ctx, be, P->hoff, ((size_t)P->nh + 1) * sizeof *P->hoff, (void **)&P->hoff_d))) goto done;
  if (P->variant == V_SYNCFREE) { /* each plane padded to whole warps (a warp's points never depend on each other) */
    long long w = 0;

    {
      int4 *pad = malloc((size_t)(P->np + (pds_size)P->nh * ppw + 1) * sizeof *pad);

      if (!pad) {
        ierr = PDS_ERROR(ctx, PDS_ERR_MEM, "bilu0: no host memory for the sync-free schedule");
        goto done;
      }
      for (int t = 0; t < P->nh; t++) {
        for (long long e = P->hoff[t]; e < P->hoff[t + 1]; e++) pad[w++] = h[e];
        while (w % ppw) pad[w].x = -1, pad[w].y = pad[w].z = pad[w].w = 0, w++;
      }
      P->nwarps = w / ppw;
      ierr      = upload(ctx, be, pad, (size_t)w * sizeof *pad, (void **)&P->psched);
      free(pad);
      if (ierr) goto done;
      if ((ierr = pds_cuda_dev_alloc(ctx, be, (size_t)P->np * sizeof *P->flags, (void **)&P->flags))) goto done;
      PDS_CUDA_CALL(ctx, cudaMemsetAsync(P->flags, 0, (size_t)P->np * sizeof *P->flags, be->stream));
      if ((ierr = sync_state(ctx, be, P))) goto done;
    }
  }
  if (P->variant == V_BLOCK) { /* grid-major: grid after grid, plane after plane */
    long long nofs = 0, e = 0, ij = 0;
    int       optin = 0;

    for (int q = 0; q < nb; q++) {
      nofs += g[q].I + g[q].J + g[q].K - 1 + 1;
      if ((long long)g[q].I * g[q].J > ij) ij = (long long)g[q].I * g[q].J;
    }
    PDS_CUDA_CALL(ctx, cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, be->device));
    P->ijn = 2 * ij * P->n * (long long)sizeof(double) <= optin ? ij : 0; /* two planes of x fit on chip */
    if (!(go = malloc((size_t)nofs * sizeof *go)) || !(gb = malloc(((size_t)nb + 1) * sizeof *gb))) {
      ierr = PDS_ERROR(ctx, PDS_ERR_MEM, "bilu0: no host memory for the per-grid schedule");
      goto done;
    }
    nofs = 0;
    for (int q = 0; q < nb; q++) {
      const int hq = (int)(g[q].I + g[q].J + g[q].K - 2) + 1; /* planes */

      gb[q] = (int)nofs;
      for (int t = 0; t < hq; t++) {
        go[nofs++] = e;
        for (pds_int i = 0; i < g[q].I; i++)
          for (pds_int j = 0; j < g[q].J; j++) {
            const pds_int k = t - i - j;

            if (k < 0 || k >= g[q].K) continue;
            h[e++] = entry(&g[q], g[q].first + ((pds_size)i * g[q].J + j) * g[q].K + k, i, j, k);
          }
      }
      go[nofs++] = e;
    }
    gb[nb] = (int)nofs;
    /* grid q's planes: go[gb[q]] .. go[gb[q + 1] - 1] (hq + 1 offsets) */
    if ((ierr = upload(ctx, be, h, (size_t)e * sizeof *h, (void **)&P->gsched))) goto done;
    if ((ierr = upload(ctx, be, go, (size_t)nofs * sizeof *go, (void **)&P->goff))) goto done;
    if ((ierr = upload(ctx, be, gb, ((size_t)nb + 1) * sizeof *gb, (void **)&P->gbase))) goto done;
  }
  if (P->variant == V_TILES && (ierr = tiles_build(ctx, be, g, nb, P))) goto done;
  if (P->variant == V_PIPE && (ierr = pipe_build(ctx, be, g, nb, P))) goto done;
  if (P->single)
    ierr = pds_cuda_dev_alloc(ctx, be, (size_t)P->np * 7 * P->n * P->n * sizeof *P->fvals, (void **)&P->fvals);
done:
  free(h), free(cur), free(go), free(gb);
  return ierr;
}

static int bilu0_plan_create_cuda(pds_ctx ctx, const struct pds_stencil7 *g, int nb, const char *variant, int single,
                                  void **plan) {
  struct cuda_be    *be = pds_cuda_enter(ctx);
  struct bilu0_plan *P;
  int                v = -1, ierr;

  for (int i = 0; i < V_COUNT; i++)
    if (!strcmp(variant, variant_names[i])) v = i;
  PDS_CHECK(v >= 0, ctx, PDS_ERR_ARG, "bilu0 variant '%s' is not one of /gpu/cuda's: auto, hyperplane, graph, lanes, "
            "recycle, syncfree, block, tiles, pipe", variant);
  PDS_CHECK(P = calloc(1, sizeof *P), ctx, PDS_ERR_MEM, "bilu0: no host memory for the plan");
  P->asked = v, P->variant = v == V_AUTO ? pick_auto(g, nb) : v;
  P->n = g[0].n, P->nb = nb, P->single = single;
  for (int q = 0; q < nb; q++) P->np += (pds_size)g[q].I * g[q].J * g[q].K;
  if ((ierr = wave_bounds(ctx, be, P->n, &P->elem_max, &P->lanes_wide)) || (ierr = plan_build(ctx, be, g, nb, P))) {
    plan_free(be, P);
    return ierr;
  }
  *plan = P;
  return PDS_OK;
}

static void bilu0_plan_destroy_cuda(pds_ctx ctx, void *plan) { plan_free(pds_cuda_enter(ctx), plan); }

static int bilu0_plan_describe_cuda(pds_ctx ctx, void *plan, char *buf, size_t len) {
  const struct bilu0_plan *P = plan;

  (void)ctx;
  int k = snprintf(buf, len, "cuda bilu0: variant %s%s, %d hyperplanes (the widest %lld points), %d grid%s, "
                         "factors in %s", variant_names[P->variant], P->asked == V_AUTO ? " (auto)" : "", P->nh,
                         P->wide, P->nb, P->nb == 1 ? "" : "s", P->single ? "float" : "double");

  const int fl = P->variant == V_LANES || P->variant == V_TILES || P->variant == V_PIPE; /* lanes' factorization */

  if (fl && k > 0 && (size_t)k < len)
    k += snprintf(buf + k, len - (size_t)k, "; factorization of planes of up to %lld points by n^2 lanes a point",
                  P->elem_max);
  if (fl && P->lanes_wide < LLONG_MAX && k > 0 && (size_t)k < len)
    k += snprintf(buf + k, len - (size_t)k, ", of more than %lld blocks by the register-bounded kernel",
                  P->lanes_wide);
  if (P->variant == V_TILES && k > 0 && (size_t)k < len)
    snprintf(buf + k, len - (size_t)k, "; sweeps by %d planes of tiles of %d^3", P->ntp, P->tedge);
  if (P->variant == V_PIPE && k > 0 && (size_t)k < len)
    snprintf(buf + k, len - (size_t)k, "; sweeps pipelined over %d columns of up to %d x %d lines (%d threads a block%s)",
             P->pipe.ntiles, P->pipe.tjm, P->pipe.tkm, P->pipe.threads,
             P->pipe.pf_regs ? ", a line a group" : ", lines in turn");
  return PDS_OK;
}

/* the per-plane launches of one phase (0: the factorization; 1: both sweeps) */
/* one launch per step t of off[0..n] (a plane's points or a tile-plane's tiles), t ascending or descending */
static cudaError_t steps(pds_cuda_bilu0_launch *L, const long long *off, int n, int phase, int descending) {
  cudaError_t e = cudaSuccess;

  L->phase = phase;
  for (int s = 0; s < n && e == cudaSuccess; s++) {
    const int t = descending ? n - 1 - s : s;

    L->begin = off[t], L->count = off[t + 1] - off[t], e = pds_cuda_bilu0(L);
  }
  return e;
}

/* the per-plane launches of one phase (0: the factorization; 1: both sweeps, by tile-planes for tiles) */
static cudaError_t planes(const struct bilu0_plan *P, pds_cuda_bilu0_launch *L, int phase) {
  const long long *off = P->hoff;
  int              n   = P->nh;
  cudaError_t      e;

  L->sched = P->sched;
  if (phase == 0) return steps(L, off, n, 0, 0);
  if (P->variant == V_TILES)
    L->kind = PDS_CUDA_BILU0_TILES, L->sched = P->tiles, L->smem = P->tsmem, off = P->toff, n = P->ntp;
  e = steps(L, off, n, 1, 0);
  return e == cudaSuccess ? steps(L, off, n, 2, 1) : e;
}

/* the per-plane launches in a graph, captured for these arrays or replayed (cuda_graph.c) */
struct planes_arg {
  const struct bilu0_plan *P;
  pds_cuda_bilu0_launch   *L;
  int                      phase;
};

static cudaError_t planes_launch(void *arg) {
  const struct planes_arg *a = arg;

  return planes(a->P, a->L, a->phase);
}

static int planes_graphed(pds_ctx ctx, struct cuda_be *be, struct bilu0_plan *P, pds_cuda_bilu0_launch *L,
                          int phase) {
  const void       *key[PDS_CUDA_GRAPH_KEY] = {L->vals, L->dinv, L->fvals, L->b, L->x, NULL};
  struct planes_arg a                       = {P, L, phase};

  return pds_cuda_graph_run(ctx, be, &P->graph[phase], key, planes_launch, &a, "capture of the bilu0 plane launches");
}

/* one phase of the plan's variant */
static int run(pds_ctx ctx, struct cuda_be *be, struct bilu0_plan *P, pds_cuda_bilu0_launch *L, int phase) {
  L->stream = be->stream, L->n = P->n;
  switch (P->variant) {
  case V_HYPERPLANE: L->kind = PDS_CUDA_BILU0_SQUARE; PDS_CUDA_CALL(ctx, planes(P, L, phase)); return PDS_OK;
  case V_GRAPH: L->kind = PDS_CUDA_BILU0_SQUARE; return planes_graphed(ctx, be, P, L, phase);
  case V_PIPE:
    if (phase == 1) { /* the sweeps; the factorization is lanes' (below) */
      pds_cuda_bilu0_pipe_launch S = P->pipe;

      S.stream = be->stream, S.b = L->b, S.x = L->x;
      pds_cuda_bilu0_sweep_factors(P->n, L->vals, L->dinv, L->fvals, &S.A7, &S.D, &S.dstr);
      for (S.backward = 0; S.backward < 2; S.backward++) PDS_CUDA_CALL(ctx, pds_cuda_bilu0_pipe(&S));
      return PDS_OK;
    }
    /* fall through */
  case V_LANES:
  case V_TILES:
    L->kind = PDS_CUDA_BILU0_LANES, L->elem_max = P->elem_max, L->lanes_wide = P->lanes_wide;
    return planes_graphed(ctx, be, P, L, phase);
  case V_RECYCLE:
    L->kind = PDS_CUDA_BILU0_RECYCLE, L->sched = P->sched, L->goff = P->hoff_d, L->nh = P->nh, L->nsm = be->nsm;
    L->count = P->wide, L->phase = phase, L->grid_out = &P->recycle_grid;
    PDS_CUDA_CALL(ctx, pds_cuda_bilu0(L));
    return PDS_OK;
  case V_BLOCK:
    L->kind = PDS_CUDA_BILU0_BLOCK, L->sched = P->gsched, L->goff = P->goff, L->gbase = P->gbase, L->nb = P->nb;
    L->ijn = P->ijn;
    L->phase = phase;
    PDS_CUDA_CALL(ctx, pds_cuda_bilu0(L));
    return PDS_OK;
  case V_SYNCFREE:
    L->kind = PDS_CUDA_BILU0_SYNCFREE, L->sched = P->psched, L->count = P->nwarps, L->flags = P->flags;
    L->sync = P->sync;
    if (phase == 0) {
      L->phase = 0;
      PDS_CUDA_CALL(ctx, pds_cuda_bilu0(L));
    } else {
      L->phase = 1;
      PDS_CUDA_CALL(ctx, pds_cuda_bilu0(L));
      L->phase = 2;
      PDS_CUDA_CALL(ctx, pds_cuda_bilu0(L));
    }
    return PDS_OK;
  default: return PDS_ERROR(ctx, PDS_ERR_ARG, "bilu0: unknown variant %d", P->variant);
  }
}

static int bilu0_factor_cuda(pds_ctx ctx, void *plan, const struct pds_stencil7 *g, int nb, pds_real *dinv,
                             pds_size *bad) {
  struct cuda_be       *be = pds_cuda_enter(ctx);
  struct bilu0_plan    *P  = plan;
  pds_cuda_bilu0_launch L;
  unsigned long long    b  = 0;

  PDS_CHECK(P && P->nb == nb && P->n == g[0].n, ctx, PDS_ERR_STATE, "bilu0: the cuda plan is not for these grids");
  memset(&L, 0, sizeof L);
  L.vals = g[0].vals, L.dinv = dinv, L.bad = be->dstat;
  PDS_CUDA_CALL(ctx, cudaMemsetAsync(be->dstat, 0xff, sizeof *be->dstat, be->stream));
  PDS_CALL(run(ctx, be, P, &L, 0));
  if (P->single)
    PDS_CUDA_CALL(ctx, pds_cuda_bilu0_to_float(be->stream, P->np, P->n, g[0].vals, dinv, P->fvals));
  PDS_CALL(pds_cuda_fetch_stats(ctx, be, 1, &b));
  *bad = b == ~0ull ? -1 : (pds_size)b;
  return PDS_OK;
}

static int bilu0_solve_cuda(pds_ctx ctx, void *plan, const struct pds_stencil7 *g, int nb, const pds_real *dinv,
                            const pds_real *b, pds_real *x) {
  struct cuda_be       *be = pds_cuda_enter(ctx);
  struct bilu0_plan    *P  = plan;
  pds_cuda_bilu0_launch L;

  PDS_CHECK(P && P->nb == nb && P->n == g[0].n, ctx, PDS_ERR_STATE, "bilu0: the cuda plan is not for these grids");
  memset(&L, 0, sizeof L);
  L.vals = g[0].vals, L.dinv = (pds_real *)dinv, L.fvals = P->single ? P->fvals : NULL, L.b = b, L.x = x;
  return run(ctx, be, P, &L, 1);
}

void pds_cuda_fill_bilu0(struct pds_bilu0_kernels *g) {
  g->plan_create   = bilu0_plan_create_cuda;
  g->plan_destroy  = bilu0_plan_destroy_cuda;
  g->plan_describe = bilu0_plan_describe_cuda;
  g->factor        = bilu0_factor_cuda;
  g->solve         = bilu0_solve_cuda;
}
