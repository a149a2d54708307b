// src/backend/cuda/cuda_bilu0.cu: block ILU(0) of stencil7 matrices on /gpu/cuda (paper 000; the group's semantics
// in src/precond/bilu0_kernels.h, the host side and the choice of variant in cuda_bilu0.c). Every kernel does, per
// point, the arithmetic of src/backend/stencil7_bodies.h in its order with the rounding of cuda_stencil7.cuh, and
// runs a point only after the points it depends on, so every variant gives /cpu/ref's bits.
//
// Schedules (built once per grid shape by cuda_bilu0.c): entries {p, K, J K, arm mask} (pds_cuda_s7_pt). Plane-major:
// the points with i + j + k = h of all grids, h ascending (a grid with fewer planes drops out), the backward sweep
// takes the planes in reverse; padded plane-major (syncfree): each plane padded to whole warps; grid-major (block):
// grid after grid, plane after plane.
//
// Three ways to run one point:
// - "square" (paper 000's Algorithms 4-7; variants hyperplane and graph): n^2 threads per point, several points per
//   256-thread block, the factorization's products and the in-place Gauss-Jordan inversion (partial pivoting, the
//   steps of pds_block_invert) in shared memory, the sweeps' products in shared memory summed by one thread per row;
// - "lanes" (variants lanes, recycle, syncfree, block): G = the power of two >= n lanes per point (32 / G points per
//   warp), lane u holds row u in registers; the inversion's pivot column and pivot row and the sweeps' z go between
//   the lanes by warp shuffles; no shared memory, no block barrier inside a point;
// - "element" (the factorization of lanes and tiles on planes that fit in one wave of it): n^2 lanes per point in
//   one warp, a lane per element of the block (two for n > 4), the products and the inversion by shuffles.
// Byte models per point (8-byte reals): factorization 64 n^2 read (delta, 3 lower arms, 3 upper arms of the
// neighbours, 3 neighbour inverses: 10 n^2; the upper arms and inverses shared with other points through the
// caches) + 8 n^2 written; forward sweep 8 (3 n^2 + n^2) + 8 n (b) + 8 n (x written) + neighbours' x (cached);
// backward the same without b, with x read: an application 8 (8 n^2 + 4 n) bytes per point (float factors: 4 (8 n^2)
// + 32 n). Flops: factorization (4 n^3 + n^3 .. 2 n^3) ~ (6 + 2/3) n^3, application 8 2 n^2.
#include <climits>
#include <cooperative_groups.h>

#include <cuda/atomic>

#include "cuda_bilu0_body.cuh"
#include "cuda_launch.cuh"

namespace cg = cooperative_groups;

namespace {

struct fac_args { // what a phase reads and writes (one struct: the kernels' parameter lists stay short)
  const double       *vals;
  double             *dinv;
  const void         *A7, *D; // the sweeps' factors: vals and dinv, or the float copy
  int                 dstr;
  const double       *b;
  double             *x;
  unsigned long long *bad;
  long long           ijn; // block with plane buffers: the largest I J of the grids
};

template <int N, int G, int PH, bool CG, class T>
__device__ __forceinline__ void lane_point(bool on, const int4 &e, int u, const fac_args &f) {
  if constexpr (PH == 0) lane_factor<N, G, CG>(on, e, u, f.vals, f.dinv, f.bad);
  else lane_sweep<N, G, PH == 2, CG, T>(on, e, u, (const T *)f.A7, (const T *)f.D, f.dstr, f.b, f.x);
}

// one plane's points, G lanes each (variant lanes), launched with programmatic dependent launch
// (cuda_launch.cuh): what does not depend on the plane before (the schedule entry, the sweeps' blocks, inverse and
// b) is read before pds_grid_dep(), so the next plane's kernel is resident and has those loads in flight while this
// one computes; only the neighbours' values wait
// MB: blocks per SM the registers are bounded for. The factorization (PH 0) takes 136-188 registers a thread at
// n = 5..8 (154 at n = 6, nvcc 13.0), so one 256-thread block fills an SM; a plane wider than that one wave
// (L.lanes_wide blocks) runs the instantiation with MB = 2 (128 registers, 16 bytes spilled at n = 6): same
// arithmetic, twice the points resident. Measured on an H100 at n = 6 (docs/bilu0.md): 100^3 2.33 -> 2.12 ns a
// point, 128^3 2.06 -> 1.91; bounding every plane was slower at 55^3 (3.87 -> 4.32), MB = 3 slower everywhere (80
// registers, 304 bytes spilled)
template <int N, int G, int PH, class T, int MB = 1>
__global__ void __launch_bounds__(256, MB) lanes_k(const int4 *__restrict__ sched, long long begin, long long count,
                                                   fac_args f) {
  const long long t   = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const long long idx = t / G;
  const bool      on  = idx < count;
  const int       u   = (int)(t % G);
  const int4      e   = on ? sched[begin + idx] : make_int4(0, 0, 0, 0);

  if constexpr (PH == 0) {
    fac_pre<N> r;

    factor_load<N>(on && u < N, e, u, f.vals, r);
    pds_grid_dep();
    if constexpr (N >= 4 && N <= 6) { // factor_run's exchange through shared memory: SMS doubles a group
      constexpr int     SMS = 2 * N * N + 2;
      __shared__ double sm[256 / G * SMS];

      factor_run<N, G, false, true>(on, e, u, r, f.vals, f.dinv, f.bad, sm + threadIdx.x / G * SMS);
    } else factor_run<N, G, false>(on, e, u, r, f.vals, f.dinv, f.bad);
  } else {
    const bool      row = on && u < N;
    sweep_pre<N, T> r;

    sweep_load<N, PH == 2, T>(row, e, u, (const T *)f.A7, (const T *)f.D, f.dstr, r);
    pds_grid_dep();
    sweep_run<N, G, PH == 2, false, T>(
        row, e, u, r, [&](int a) { return f.x + (size_t)nb_of(e, PH == 2 ? 4 + a : a) * N; }, f.b, f.x);
  }
}

// one narrow plane's points, P lanes each, with programmatic dependent launch (as lanes_k)
template <int N> __global__ void __launch_bounds__(64) elem_k(const int4 *__restrict__ sched, long long begin,
                                                                long long count, fac_args f) {
  const long long t   = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const long long idx = t / el<N>::P;
  const bool      on  = idx < count;
  const int4      e   = on ? sched[begin + idx] : make_int4(0, 0, 0, 0);

  elem_factor<N>(on, e, (int)(t % el<N>::P), f.vals, f.dinv, f.bad, true);
}

// the points of one plane [lo, hi) over the groups of a grid-wide (or block-wide) team: gid0 = the warp's first
// group, ng = groups in the team; warp-uniform trip count (every lane reaches the shuffles)
template <int N, int G, int PH, bool CG, class T>
__device__ __forceinline__ void team_plane(const int4 *__restrict__ sched, long long lo, long long hi, long long gid,
                                           long long gid0, long long ng, int u, const fac_args &f) {
  for (long long w = lo + gid0; w < hi; w += ng) {
    const long long idx = w + (gid - gid0);
    const bool      on  = idx < hi;
    const int4      e   = on ? sched[idx] : make_int4(0, 0, 0, 0);

    lane_point<N, G, PH, CG, T>(on, e, u, f);
  }
}

// variant recycle: one cooperative launch of the blocks that fit at once, every plane shared out over all groups,
// a grid barrier after each (PH 0: the factorization; 1: forward then backward)
template <int N, int G, int PH, class T>
__global__ void __launch_bounds__(256) recycle_k(const int4 *__restrict__ sched, const long long *__restrict__ hoff,
                                                 int nh, fac_args f) {
  cg::grid_group  grid = cg::this_grid();
  const long long t    = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const long long ng   = (long long)gridDim.x * blockDim.x / G, gid = t / G, gid0 = (t & ~31ll) / G;
  const int       u    = (int)(t % G);

  if constexpr (PH == 0) {
    for (int h = 0; h < nh; h++) {
      team_plane<N, G, 0, true, T>(sched, hoff[h], hoff[h + 1], gid, gid0, ng, u, f);
      grid.sync();
    }
  } else {
    for (int h = 0; h < nh; h++) {
      team_plane<N, G, 1, true, T>(sched, hoff[h], hoff[h + 1], gid, gid0, ng, u, f);
      grid.sync();
    }
    for (int h = nh - 1; h >= 0; h--) {
      team_plane<N, G, 2, true, T>(sched, hoff[h], hoff[h + 1], gid, gid0, ng, u, f);
      if (h > 0) grid.sync();
    }
  }
}

// plane h of an ni x nj x nk box (i + j + k = h, i ascending, then j): its points, and point idx of it
__device__ __forceinline__ int box_plane_count(int h, int ni, int nj, int nk) {
  int cnt = 0;

  for (int a = max(0, h - (nj - 1) - (nk - 1)); a <= min(ni - 1, h); a++)
    cnt += min(nj - 1, h - a) - max(0, h - a - (nk - 1)) + 1;
  return cnt;
}
__device__ __forceinline__ void box_plane_point(int h, int nj, int nk, int idx, int *li, int *lj) {
  int a = max(0, h - (nj - 1) - (nk - 1)), acc = 0;

  for (;; a++) {
    const int jl = max(0, h - a - (nk - 1)), len = min(nj - 1, h - a) - jl + 1;

    if (idx < acc + len) {
      *li = a, *lj = jl + idx - acc;
      return;
    }
    acc += len;
  }
}

// variant block: thread block g runs grid g alone, planes gbase[g] .. gbase[g + 1] - 1 of goff, a block barrier
// after each. SH: the sweeps keep the last two planes' x in shared memory, slot i J + j (a plane holds one point per
// (i, j)), so a point reads its three neighbours from the plane before without a trip to L2, and they enumerate each
// plane's points by arithmetic instead of reading the schedule (one dependent load less per plane)
template <int N, int G, int PH, bool SH, class T>
__global__ void __launch_bounds__(PH == 0 ? 256 : 512) block_k(const int4 *__restrict__ gsched,
                                                                const long long *__restrict__ goff,
                                                                const int *__restrict__ gbase, fac_args f) {
  extern __shared__ double xs[]; // SH: [2][I J][N]
  const int       g = blockIdx.x, h0 = gbase[g], nh = gbase[g + 1] - h0 - 1;
  const long long t = threadIdx.x, ng = blockDim.x / G, gid = t / G, gid0 = (t & ~31ll) / G;
  const int       u = (int)(t % G);

  if constexpr (PH == 0) {
    for (int h = 0; h < nh; h++) {
      team_plane<N, G, 0, false, T>(gsched, goff[h0 + h], goff[h0 + h + 1], gid, gid0, ng, u, f);
      __syncthreads();
    }
  } else if constexpr (!SH) {
    for (int h = 0; h < nh; h++) {
      team_plane<N, G, 1, false, T>(gsched, goff[h0 + h], goff[h0 + h + 1], gid, gid0, ng, u, f);
      __syncthreads();
    }
    for (int h = nh - 1; h >= 0; h--) {
      team_plane<N, G, 2, false, T>(gsched, goff[h0 + h], goff[h0 + h + 1], gid, gid0, ng, u, f);
      __syncthreads();
    }
  } else {
    const int4 e0 = gsched[goff[h0]]; // point (0, 0, 0): the grid's first point and strides
    const int  K = e0.y, J = e0.z / e0.y, I = nh + 1 - J - K, first = e0.x;

    for (int dir = 0; dir < 2; dir++)
      for (int s = 0; s < nh; s++) {
        const int     h = dir ? nh - 1 - s : s;
        const double *prev = xs + (size_t)((h + 1) & 1) * f.ijn * N; // the plane before (h - 1 or h + 1)
        double       *mine = xs + (size_t)(h & 1) * f.ijn * N;
        const int     cnt = box_plane_count(h, I, J, K);

        for (long long w = gid0; w < cnt; w += ng) {
          const int  idx = (int)(w + (gid - gid0));
          const bool on = idx < cnt, row = on && u < N;
          int        i = 0, j = 0;

          if (on) box_plane_point(h, J, K, idx, &i, &j);
          const int  k = h - i - j, c = i * J + j;
          const int4 e = on ? make_int4(first + c * K + k, K, J * K, (int)s7_mask(I, J, K, i, j, k)) : make_int4(0, 1, 1, 0);
          sweep_pre<N, T> r;
          double          out;

          if (dir == 0) {
            sweep_load<N, false, T>(row, e, u, (const T *)f.A7, (const T *)f.D, f.dstr, r);
            out = sweep_run<N, G, false, false, T>(
                row, e, u, r, [&](int a) { return prev + (size_t)(a == 0 ? c : a == 1 ? c - 1 : c - J) * N; }, f.b, f.x);
          } else {
            sweep_load<N, true, T>(row, e, u, (const T *)f.A7, (const T *)f.D, f.dstr, r);
            out = sweep_run<N, G, true, false, T>(
                row, e, u, r, [&](int a) { return prev + (size_t)(a == 0 ? c + J : a == 1 ? c + 1 : c) * N; }, f.b, f.x);
          }
          if (row) mine[(size_t)c * N + u] = out;
        }
        __syncthreads();
      }
  }
}

// variant tiles (the sweeps; its factorization is lanes'): the grid cut into tiles of at most T^3 points, the tiles
// swept in tile-planes a + b + c = t (one launch each, programmatic dependent launch, captured in a graph), a thread
// block per tile. The block first copies the tile's factors for the sweep (three arms and the inverse of every
// point: they do not depend on the sweep, so this happens before the wait on the tile-plane before) into shared
// memory, then runs the tile's own planes with a block barrier after each, reading x of neighbours from memory (the
// tile's own, written by this block; the upstream tiles', written by earlier launches). A tile-plane costs one launch
// and one load of the factors at full bandwidth, instead of T launches and T dependent loads.
// tiles[2 q] = {first, I, J, K} of the tile's grid, tiles[2 q + 1] = {i0, j0, k0, ni | nj << 8 | nk << 16}
template <int N, int G, bool B, class T>
__global__ void __launch_bounds__(256) tiles_k(const int4 *__restrict__ tiles, long long begin, fac_args f) {
  extern __shared__ unsigned char tsh_[];
  T                    *sh = reinterpret_cast<T *>(tsh_); // [point of the tile][4][N N]: the 3 arms, the inverse
  constexpr int         NN = N * N;
  const int4            r0 = tiles[2 * (begin + blockIdx.x)], r1 = tiles[2 * (begin + blockIdx.x) + 1];
  const int             first = r0.x, I = r0.y, J = r0.z, K = r0.w, i0 = r1.x, j0 = r1.y, k0 = r1.z;
  const int             ni = r1.w & 255, nj = (r1.w >> 8) & 255, nk = (r1.w >> 16) & 255, npts = ni * nj * nk;
  const T              *A7 = (const T *)f.A7, *D = (const T *)f.D;

  for (int e = threadIdx.x; e < npts * 4 * NN; e += blockDim.x) { // coalesced: a block's n^2 values in a row
    const int l = e / (4 * NN), r = e % (4 * NN), slot = r / NN, w = r % NN;
    const int li = l / (nj * nk), lj = l / nk % nj, lk = l % nk;
    const int p = first + ((i0 + li) * J + (j0 + lj)) * K + k0 + lk;

    sh[e] = slot < 3 ? A7[((size_t)p * 7 + (B ? 4 + slot : slot)) * NN + w] : D[(size_t)p * f.dstr + w];
  }
  __syncthreads();
  pds_grid_dep();
  const long long t = threadIdx.x, ng = blockDim.x / G, gid = t / G, gid0 = (t & ~31ll) / G;
  const int       u = (int)(t % G), nh = ni + nj + nk - 2;

  for (int s = 0; s < nh; s++) {
    const int h = B ? nh - 1 - s : s, cnt = box_plane_count(h, ni, nj, nk);

    for (long long w = gid0; w < cnt; w += ng) {
      const int  idx = (int)(w + (gid - gid0));
      const bool on = idx < cnt, row = on && u < N;
      int        li = 0, lj = 0;

      if (on) box_plane_point(h, nj, nk, idx, &li, &lj);
      const int  lk = h - li - lj, i = i0 + li, j = j0 + lj, k = k0 + lk, l = (li * nj + lj) * nk + lk;
      const int4 e  = on ? make_int4(first + (i * J + j) * K + k, K, J * K, (int)s7_mask(I, J, K, i, j, k))
                         : make_int4(0, 1, 1, 0);
      sweep_pre<N, T> r;

      if (row) {
#pragma unroll
        for (int q = 0; q < 3; q++)
#pragma unroll
          for (int v = 0; v < N; v++) r.arm[q][v] = sh[((size_t)l * 4 + q) * NN + u * N + v];
#pragma unroll
        for (int v = 0; v < N; v++) r.d[v] = sh[((size_t)l * 4 + 3) * NN + u * N + v];
      }
      sweep_run<N, G, B, false, T>(
          row, e, u, r, [&](int q) { return f.x + (size_t)nb_of(e, B ? 4 + q : q) * N; }, f.b, f.x);
    }
    __syncthreads();
  }
}

// variant syncfree: one warp per ticket (taken in launch order, so every earlier ticket is held by a running warp),
// 32 / G points of one plane per warp (the padded schedule; padding p < 0); a point's group waits until its upstream
// neighbours' flags carry this launch's stamp, runs, and sets its own flag. The last warp to finish resets the ticket
// counter and advances the stamp (device state: the launch can be recorded in a graph and replayed). PH 0: factor,
// 1: forward, 2: backward (its upstream: the arms 4..6; tickets take the warps from the last plane down, so an
// earlier ticket is always upstream). No deadlock: a warp waits only on points of earlier tickets, which running
// warps hold.
template <int N, int G, int PH, class T>
__global__ void __launch_bounds__(256) syncfree_k(const int4 *__restrict__ psched, long long nwarps,
                                                  unsigned *flags, pds_cuda_sync_state *st, fac_args f) {
  const int lane = threadIdx.x & 31, u = lane % G;
  unsigned  stamp, tk;

  if (lane == 0) {
    stamp = cuda::atomic_ref<unsigned, cuda::thread_scope_device>(st->stamp).load(cuda::memory_order_relaxed) + 1;
    tk    = atomicAdd(&st->ticket, 1u);
  }
  stamp = __shfl_sync(FULL, stamp, 0);
  tk    = __shfl_sync(FULL, tk, 0);
  const long long wk  = PH == 2 ? nwarps - 1 - (long long)tk : (long long)tk; // the backward sweep: planes reversed
  const long long idx = wk * (32 / G) + lane / G;
  const bool      on  = tk < nwarps && psched[idx].x >= 0;
  const int4      e   = on ? psched[idx] : make_int4(0, 0, 0, 0);

  if (on)
    for (int t = u; t < 3; t += G) { // the group's lanes share the three upstream arms (G may be 1 or 2)
      const int arm = PH == 2 ? 4 + t : t;

      if (e.w >> arm & 1) {
        cuda::atomic_ref<unsigned, cuda::thread_scope_device> fl(flags[nb_of(e, arm)]);

        while (fl.load(cuda::memory_order_acquire) != stamp) __nanosleep(32);
      }
    }
  __syncwarp();
  lane_point<N, G, PH, true, T>(on, e, u, f);
  __threadfence();
  __syncwarp();
  if (on && u == 0)
    cuda::atomic_ref<unsigned, cuda::thread_scope_device>(flags[e.x]).store(stamp, cuda::memory_order_release);
  if (lane == 0 && atomicAdd(&st->done, 1u) == gridDim.x * (blockDim.x / 32) - 1) { // every warp launched has ended
    st->ticket = 0, st->done = 0;
    cuda::atomic_ref<unsigned, cuda::thread_scope_device>(st->stamp).store(stamp, cuda::memory_order_release);
  }
}

// ---- the "square" body (paper 000's kernels): n^2 threads per point, shared memory -------------------------------
template <int N> struct sq {
  static constexpr int NN = N * N, PPB = 256 / NN; // points per 256-thread block
};

template <int N>
__global__ void __launch_bounds__(256) sq_factor_k(const int4 *__restrict__ sched, long long begin, long long count,
                                                   fac_args f) {
  constexpr int NN = sq<N>::NN, PPB = sq<N>::PPB;
  __shared__ double T[PPB * NN], S[PPB * NN];
  __shared__ int    piv[PPB * N];
  const int         slot = threadIdx.x / NN, e = threadIdx.x % NN, u = e / N, v = e % N;
  const long long   idx  = (long long)blockIdx.x * PPB + slot;
  const bool        on   = slot < PPB && idx < count;
  const int4        pt   = on ? sched[begin + idx] : make_int4(0, 0, 0, 0);
  double           *Tp = T + (on ? slot : 0) * NN, *Sp = S + (on ? slot : 0) * NN;

  if (on) Tp[e] = f.vals[((size_t)pt.x * 7 + 3) * NN + e];
#pragma unroll
  for (int arm = 0; arm < 3; arm++) {
    const bool      in = on && (pt.w >> arm & 1);
    const long long q  = nb_of(pt, arm);

    if (in) { // S = L Dq
      const double *L = f.vals + ((size_t)pt.x * 7 + arm) * NN, *Dq = f.dinv + (size_t)q * NN;
      double        s = 0;

#pragma unroll
      for (int w = 0; w < N; w++) s = S7_ADD(s, S7_MUL(L[u * N + w], Dq[w * N + v]));
      Sp[e] = s;
    }
    __syncthreads();
    if (in) { // T -= S U
      const double *U = f.vals + ((size_t)q * 7 + 6 - arm) * NN;
      double        s = 0;

#pragma unroll
      for (int w = 0; w < N; w++) s = S7_ADD(s, S7_MUL(Sp[u * N + w], U[w * N + v]));
      Tp[e] = S7_SUB(Tp[e], s);
    }
    __syncthreads();
  }
  bool ok = true;

  for (int k = 0; k < N; k++) { // Gauss-Jordan in shared memory, pds_block_invert's steps
    int    r    = k;
    double amax = on ? fabs(Tp[k * N + k]) : 1.0;

    for (int i = k + 1; i < N; i++)
      if (on && fabs(Tp[i * N + k]) > amax) amax = fabs(Tp[i * N + k]), r = i;
    ok = ok && amax > 0 && isfinite(amax);
    if (on && e == 0) piv[slot * N + k] = r;
    const bool   sw   = on && r != k && (u == k || u == r);
    const double mine = sw ? Tp[(u == k ? r : k) * N + v] : 0.0;

    __syncthreads();
    if (sw) Tp[e] = mine;
    __syncthreads();
    const double inv = on ? 1.0 / Tp[k * N + k] : 0.0, fct = on ? Tp[u * N + k] : 0.0;

    __syncthreads();
    if (on && u == k) Tp[e] = S7_MUL(v == k ? 1.0 : Tp[e], inv);
    __syncthreads();
    if (on && u != k) Tp[e] = S7_SUB(v == k ? 0.0 : Tp[e], S7_MUL(fct, Tp[k * N + v]));
    __syncthreads();
  }
  for (int k = N - 1; k >= 0; k--) { // row interchanges undone as column interchanges
    const int  pk   = on ? piv[slot * N + k] : k;
    const bool sw   = on && pk != k && (v == k || v == pk);
    const double mine = sw ? Tp[u * N + (v == k ? pk : k)] : 0.0;

    __syncthreads();
    if (sw) Tp[e] = mine;
    __syncthreads();
  }
  if (on && e == 0 && !ok) atomicMin(f.bad, (unsigned long long)pt.x);
  if (on) f.dinv[(size_t)pt.x * NN + e] = Tp[e];
}

// B = 0 forward, 1 backward: thread (u, v) forms the products, thread (u, 0) adds them in ref's order
template <int N, bool B, class T>
__global__ void __launch_bounds__(256) sq_sweep_k(const int4 *__restrict__ sched, long long begin, long long count,
                                                  fac_args f) {
  constexpr int NN = sq<N>::NN, PPB = sq<N>::PPB;
  __shared__ double P[PPB * 3 * NN], Z[PPB * N];
  const int         slot = threadIdx.x / NN, e = threadIdx.x % NN, u = e / N, v = e % N;
  const long long   idx  = (long long)blockIdx.x * PPB + slot;
  const bool        on   = slot < PPB && idx < count;
  const int4        pt   = on ? sched[begin + idx] : make_int4(0, 0, 0, 0);
  double           *Pp = P + (on ? slot : 0) * 3 * NN, *Zp = Z + (on ? slot : 0) * N;
  const T          *A7 = (const T *)f.A7, *D = (const T *)f.D + (size_t)pt.x * f.dstr;

  if (on)
#pragma unroll
    for (int t = 0; t < 3; t++) {
      const int arm = B ? 4 + t : t;

      if (pt.w >> arm & 1)
        Pp[t * NN + e] = S7_MUL((double)A7[((size_t)pt.x * 7 + arm) * NN + e], f.x[(size_t)nb_of(pt, arm) * N + v]);
    }
  __syncthreads();
  if (on && v == 0) {
    double s = 0;

    for (int t = 0; t < 3; t++)
      if (pt.w >> (B ? 4 + t : t) & 1)
        for (int w = 0; w < N; w++) s = S7_ADD(s, Pp[t * NN + u * N + w]);
    Zp[u] = B ? s : S7_SUB(f.b[(size_t)pt.x * N + u], s);
  }
  __syncthreads();
  if (on) Pp[e] = S7_MUL((double)D[e], Zp[v]);
  __syncthreads();
  if (on && v == 0) {
    double s = 0;

    for (int w = 0; w < N; w++) s = S7_ADD(s, Pp[u * N + w]);
    f.x[(size_t)pt.x * N + u] = B ? S7_SUB(f.x[(size_t)pt.x * N + u], s) : s;
  }
}

// the float copy of the factors: arms as the matrix, arm 3 the inverse
__global__ void to_float_k(pds_size np, int n, const double *__restrict__ vals, const double *__restrict__ dinv,
                           float *__restrict__ out) {
  const pds_size i = (pds_size)blockIdx.x * blockDim.x + threadIdx.x, nn = (pds_size)n * n, per = 7 * nn;

  if (i >= np * per) return;
  const pds_size p = i / per, r = i % per;

  out[i] = (float)(r / nn == 3 ? dinv[p * nn + r % nn] : vals[i]);
}

template <int N, class T> cudaError_t launch_n(const pds_cuda_bilu0_launch &L, const fac_args &f) {
  constexpr int G = lanes_of(N);
  cudaStream_t  s = L.stream;

  switch (L.kind) {
  case PDS_CUDA_BILU0_SQUARE: {
    const unsigned nb = (unsigned)((L.count + sq<N>::PPB - 1) / sq<N>::PPB);

    if (L.count <= 0) return cudaSuccess;
    if (L.phase == 0) sq_factor_k<N><<<nb, 256, 0, s>>>(L.sched, L.begin, L.count, f);
    else if (L.phase == 1) sq_sweep_k<N, false, T><<<nb, 256, 0, s>>>(L.sched, L.begin, L.count, f);
    else sq_sweep_k<N, true, T><<<nb, 256, 0, s>>>(L.sched, L.begin, L.count, f);
    return cudaGetLastError();
  }
  case PDS_CUDA_BILU0_LANES: {
    const unsigned nb = (unsigned)((L.count * G + 255) / 256);

    if (L.count <= 0) return cudaSuccess;
    if (L.phase == 0 && L.count <= L.elem_max)
      return pds_launch(elem_k<N>, (unsigned)((L.count * el<N>::P + 63) / 64), 64, 0, s, L.sched, L.begin, L.count, f);
    if constexpr (N >= 5)
      if (L.phase == 0 && nb > L.lanes_wide)
        return pds_launch(lanes_k<N, G, 0, T, 2>, nb, 256, 0, s, L.sched, L.begin, L.count, f);
    if (L.phase == 0) return pds_launch(lanes_k<N, G, 0, T>, nb, 256, 0, s, L.sched, L.begin, L.count, f);
    if (L.phase == 1) return pds_launch(lanes_k<N, G, 1, T>, nb, 256, 0, s, L.sched, L.begin, L.count, f);
    return pds_launch(lanes_k<N, G, 2, T>, nb, 256, 0, s, L.sched, L.begin, L.count, f);
  }
  case PDS_CUDA_BILU0_BLOCK:
    if (L.phase == 0) block_k<N, G, 0, false, T><<<L.nb, 256, 0, s>>>(L.sched, L.goff, L.gbase, f); // its registers: no spills
    else if (L.ijn <= 0) block_k<N, G, 1, false, T><<<L.nb, 512, 0, s>>>(L.sched, L.goff, L.gbase, f);
    else {
      const size_t smem = (size_t)2 * L.ijn * N * sizeof(double);
      cudaError_t  e;

      if (smem > 48 * 1024 &&
          (e = cudaFuncSetAttribute(block_k<N, G, 1, true, T>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem)) !=
              cudaSuccess)
        return e;
      block_k<N, G, 1, true, T><<<L.nb, 512, smem, s>>>(L.sched, L.goff, L.gbase, f);
    }
    return cudaGetLastError();
  case PDS_CUDA_BILU0_TILES: { // a tile-plane: L.count tiles from L.begin, L.smem bytes of shared memory each
    void (*k)(const int4 *, long long, fac_args) = L.phase == 1 ? tiles_k<N, G, false, T> : tiles_k<N, G, true, T>;
    cudaError_t e;

    if (L.count <= 0) return cudaSuccess;
    if (L.smem > 48 * 1024 &&
        (e = cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)L.smem)) != cudaSuccess)
      return e;
    return pds_launch(k, (unsigned)L.count, 256, (size_t)L.smem, s, L.sched, L.begin, f);
  }
  case PDS_CUDA_BILU0_SYNCFREE: {
    const unsigned nb = (unsigned)((L.count * 32 + 255) / 256); // L.count: warps of the padded schedule

    if (L.count <= 0) return cudaSuccess;
    if (L.phase == 0) syncfree_k<N, G, 0, T><<<nb, 256, 0, s>>>(L.sched, L.count, L.flags, L.sync, f);
    else if (L.phase == 1) syncfree_k<N, G, 1, T><<<nb, 256, 0, s>>>(L.sched, L.count, L.flags, L.sync, f);
    else syncfree_k<N, G, 2, T><<<nb, 256, 0, s>>>(L.sched, L.count, L.flags, L.sync, f);
    return cudaGetLastError();
  }
  case PDS_CUDA_BILU0_RECYCLE: {
    void (*k)(const int4 *, const long long *, int, fac_args) =
        L.phase == 0 ? recycle_k<N, G, 0, T> : recycle_k<N, G, 1, T>;
    int                 per = 0;
    cudaError_t         e   = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, k, 256, 0);
    cudaLaunchConfig_t  cfg = {};
    cudaLaunchAttribute at[1];

    if (e != cudaSuccess) return e;
    if (per <= 0) return cudaErrorCooperativeLaunchTooLarge;
    long long grid = (long long)per * L.nsm, need = (L.count * G + 255) / 256; // L.count: the widest plane
    if (grid > need) grid = need > 0 ? need : 1;
    cfg.gridDim = dim3((unsigned)grid), cfg.blockDim = dim3(256), cfg.stream = s;
    at[0].id = cudaLaunchAttributeCooperative, at[0].val.cooperative = 1;
    cfg.attrs = at, cfg.numAttrs = 1;
    if (L.grid_out) *L.grid_out = (int)grid;
    return cudaLaunchKernelEx(&cfg, k, (const int4 *)L.sched, (const long long *)L.goff, L.nh, f);
  }
  default: return cudaErrorInvalidValue;
  }
}

// one wave on nsm SMs (the blocks resident per SM, which the registers bound, times the SMs): *elem_points, the
// points of one wave of elem_k; *lanes_blocks, the blocks of one wave of lanes' unbounded factorization kernel (n < 5:
// LLONG_MAX, no bound: its registers already let two blocks share an SM)
template <int N> cudaError_t waves(int nsm, long long *elem_points, long long *lanes_blocks) {
  int         pe = 0, pl = 0;
  cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&pe, elem_k<N>, 64, 0);

  if (e == cudaSuccess)
    e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&pl, lanes_k<N, lanes_of(N), 0, double>, 256, 0);
  *elem_points  = (long long)pe * nsm * (64 / el<N>::P);
  *lanes_blocks = N >= 5 ? (long long)pl * nsm : LLONG_MAX;
  return e;
}

template <class T> cudaError_t launch_t(const pds_cuda_bilu0_launch &L, const fac_args &f) {
  switch (L.n) {
  case 1: return launch_n<1, T>(L, f);
  case 2: return launch_n<2, T>(L, f);
  case 3: return launch_n<3, T>(L, f);
  case 4: return launch_n<4, T>(L, f);
  case 5: return launch_n<5, T>(L, f);
  case 6: return launch_n<6, T>(L, f);
  case 7: return launch_n<7, T>(L, f);
  case 8: return launch_n<8, T>(L, f);
  default: return cudaErrorInvalidValue;
  }
}

} // namespace

extern "C" {

cudaError_t pds_cuda_bilu0(const pds_cuda_bilu0_launch *L) {
  fac_args f;

  f.vals = L->vals, f.dinv = L->dinv, f.b = L->b, f.x = L->x, f.bad = L->bad, f.ijn = L->ijn;
  pds_cuda_bilu0_sweep_factors(L->n, L->vals, L->dinv, L->fvals, &f.A7, &f.D, &f.dstr);
  return L->fvals && L->phase != 0 ? launch_t<float>(*L, f) : launch_t<double>(*L, f);
}

cudaError_t pds_cuda_bilu0_waves(int n, int nsm, long long *elem_points, long long *lanes_blocks) {
  switch (n) {
  case 1: return waves<1>(nsm, elem_points, lanes_blocks);
  case 2: return waves<2>(nsm, elem_points, lanes_blocks);
  case 3: return waves<3>(nsm, elem_points, lanes_blocks);
  case 4: return waves<4>(nsm, elem_points, lanes_blocks);
  case 5: return waves<5>(nsm, elem_points, lanes_blocks);
  case 6: return waves<6>(nsm, elem_points, lanes_blocks);
  case 7: return waves<7>(nsm, elem_points, lanes_blocks);
  case 8: return waves<8>(nsm, elem_points, lanes_blocks);
  default: return cudaErrorInvalidValue;
  }
}

cudaError_t pds_cuda_bilu0_to_float(cudaStream_t s, pds_size np, int n, const pds_real *vals, const pds_real *dinv,
                                    float *out) {
  const pds_size all = np * 7 * n * n;

  if (all == 0) return cudaSuccess;
  to_float_k<<<(unsigned)((all + 255) / 256), 256, 0, s>>>(np, n, vals, dinv, out);
  return cudaGetLastError();
}

} // extern "C"
