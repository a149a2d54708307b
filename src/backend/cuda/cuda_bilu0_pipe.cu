// src/backend/cuda/cuda_bilu0_pipe.cu: the sweeps of bilu0's variant "pipe" (a pipelined wavefront over tile
// columns; cuda_bilu0.c builds the tiles and launches, cuda_bilu0.cu holds the other variants). The per-point body is
// lanes' (cuda_bilu0_body.cuh: sweep_load, sweep_run), so the bits are /cpu/ref's.
//
// Why: a sweep of an m^3 grid is a chain of 3m - 2 dependent planes, and every other variant pays a device-wide wait
// per plane (a kernel boundary, a grid barrier, or an L2 round trip for each point's flags), 0.8-1.2 us on an H100 or
// H200 (docs/bilu0.md, bench_sync), first taken for the whole gap to cuSPARSE x 5 below 100^3. Here the (j, k) face
// of each grid is cut into tiles of tj x tk lines along i, and one thread block runs a tile's column (all i) from the
// first point to the last: point (i, jl, kl) of the tile at the block's local step s = i + jl + kl (mirrored for the
// backward sweep), a block barrier between steps (0.1-0.2 us), the neighbours' x inside the column in shared memory
// (two i-planes' ring). A block needs the upstream tiles' x only on its two faces (j0 - 1, k0 - 1), and the upstream
// tile is then w steps ahead (its width): so the blocks run as a pipeline, each behind its upstream neighbours, and
// the device-wide wait is paid once per tile crossed (2 (m / t) of them on the critical path), not once per plane.
// Measured (docs/bilu0.md): 1.13-1.26x lanes' sweeps on one grid of 15^3-55^3 at n = 5, 6 (H100, session 24),
// because a step inside a column still costs about 1 us (half of the samples at the step barrier, the warps waiting
// for the slowest one).
//
// A block: warp 0 publishes the block's progress (after each step's barrier: a fence, then prog[tile] = base + steps
// done), warp 1 fetches the next step's face values (waits until the upstream tiles' progress covers them, then
// copies their x into a two-slot face buffer in shared memory), the other warps compute, G lanes per line (lane u
// row u, z between lanes by shuffles, as lanes). PF (one line per group): a group loads the next step's factor rows,
// b (forward) or x (backward) into registers while it computes this step's point, so only the neighbours' x from
// shared memory and the arithmetic are on a step's path; without PF (tiles wider than the block's groups) a group
// takes its lines one after another and loads each at its step. pf > 0: the factors of the point pf steps ahead are
// also prefetched into L2.
//
// Launch order and deadlock: a block takes a ticket when it starts and runs tile ticket (forward) or ntiles - 1 -
// ticket (backward); tiles are numbered grid after grid, j-tile-major, so a tile waits only on tiles of earlier
// tickets, whose blocks have started and are resident: no deadlock however many blocks fit at once. The last block
// to end resets the tickets and advances the launch's stamp (base = stamp << 32 makes the progress of an earlier
// launch read as zero), so a launch can be captured in a graph and replayed.
//
// Byte model per point: the factors of the sweep (3 arms and the inverse: 4 n^2 values), b or x (n), x written (n),
// the face values (n per face point, from L2): 8 (8 n^2 + 4 n) bytes for an application with double factors.
#include <cuda/atomic>

#include "cuda_bilu0_body.cuh"

namespace {

constexpr int CTRL = 64; // two control warps: 0 publishes, 1 fetches
// the most threads a block (control warps included): PF keeps two points' loads in registers (at most 128 a thread),
// without PF 512 compute lanes (the host, cuda_bilu0.c, sizes the blocks by the same numbers)
constexpr int PIPE_PF_THREADS = PDS_CUDA_BILU0_PIPE_PF_THREADS, PIPE_THREADS = PDS_CUDA_BILU0_PIPE_THREADS;

template <int N, class T> struct pipe_pre { // a group's loads for one point
  sweep_pre<N, T> r;
  double          bx; // forward: b_p row u; backward: x_p row u (the forward sweep's value)
};

struct pipe_pt { // a line's point at one step
  bool      on;
  int       i, l, jl, kl; // l = jl nk + kl
  long long p;
  unsigned  mask;
};

// The block barrier of the kernel's steps. Its warps run different loops (publisher, fetcher, compute), each with a
// barrier a step, so different warps wait at different barrier instructions: allowed by PTX's barrier.sync without
// .aligned (__barrier_sync), not by bar.sync, which __syncthreads compiles to (.aligned: every warp at the same
// instruction; compute-sanitizer's synccheck reports the warps as divergent there). Same memory ordering as
// __syncthreads. Measured on an H100 (docs/bilu0.md): about 10% slower than bar.sync at 15^3 (inline PTX or the
// intrinsic alike), 2-5% from 35^3 up; one loop for all roles with one __syncthreads was 1.36x slower at 15^3 (the
// roles then share registers and the compute warps spill).
__device__ __forceinline__ void step_barrier() { __barrier_sync(0); }

__device__ __forceinline__ void prefetch_l2(const void *p) { asm volatile("prefetch.global.L2 [%0];" ::"l"(p)); }

template <int N, int G, bool B, bool PF, class T>
__global__ void __launch_bounds__(PF ? PIPE_PF_THREADS : PIPE_THREADS) pipe_k(const pds_cuda_bilu0_pipe_launch L) {
  constexpr int NN = N * N;
  extern __shared__ double sh[]; // ring [2][tjm tkm][N], face j [2][tkm][N], face k [2][tjm][N]
  __shared__ int           s_tix;
  __shared__ unsigned      s_stamp;
  const int                tjm = L.tjm, tkm = L.tkm, tl = tjm * tkm;
  unsigned long long      *prog = L.prog;

  if (threadIdx.x == 0) {
    const unsigned tk = atomicAdd(&L.sync->ticket, 1u);

    s_stamp = cuda::atomic_ref<unsigned, cuda::thread_scope_device>(L.sync->stamp).load(cuda::memory_order_relaxed) + 1;
    s_tix   = B ? L.ntiles - 1 - (int)tk : (int)tk;
  }
  step_barrier();
  const int                tix = s_tix;
  const unsigned long long base = (unsigned long long)s_stamp << 32;
  const int4               r0 = L.tiles[3 * tix], r1 = L.tiles[3 * tix + 1], r2 = L.tiles[3 * tix + 2];
  const int                first = r0.x, I = r0.y, J = r0.z, K = r0.w, j0 = r1.x, k0 = r1.y, nj = r1.z, nk = r1.w;
  const int                upj = B ? r2.z : r2.x, upk = B ? r2.w : r2.y; // the tiles this one waits on, or -1
  const int                lines = nj * nk, nsteps = I + nj + nk - 2;
  double                  *ring = sh, *fj = sh + 2 * tl * N, *fk = fj + 2 * tkm * N;

  if (threadIdx.x < 32) { // ---- warp 0: publish the steps done
    step_barrier();
    for (int s = 0; s < nsteps; s++) {
      step_barrier();
      if (threadIdx.x == 0) { // the block's x of step s (ordered before this by the barrier) visible device-wide
        cuda::atomic_thread_fence(cuda::memory_order_release, cuda::thread_scope_device);
        cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(prog[tix]).store(base + s + 1,
                                                                                      cuda::memory_order_relaxed);
      }
    }
    if (threadIdx.x == 0 && atomicAdd(&L.sync->done, 1u) == gridDim.x - 1) { // every block of this launch has ended
      L.sync->ticket = 0, L.sync->done = 0;
      cuda::atomic_ref<unsigned, cuda::thread_scope_device>(L.sync->stamp).store(s_stamp, cuda::memory_order_release);
    }
    return;
  }
  if (threadIdx.x < CTRL) { // ---- warp 1: the faces' x of step s into slot s & 1
    const int     lane = threadIdx.x & 31;
    const int     wj = upj >= 0 ? L.tiles[3 * upj + 1].z : 0, wk = upk >= 0 ? L.tiles[3 * upk + 1].w : 0;
    const double *src = L.x;
    // face j: the nk points (i', j0 - 1, k0 + c) with i' + c = s (mirrored for B), from the tile upj (wj steps
    // ahead), into fj[slot][c]; face k: the nj points (i', j0 + c, k0 - 1), from upk, into fk[slot][c]. Lane 0 waits
    // on upj's progress and lane 1 on upk's at once (acquire loads; the warp barrier passes the order on to the
    // other lanes), then the lanes load every value of both faces before storing any: two L2 round trips a step.
    auto fetch = [&](int s) {
      const bool dj = upj >= 0 && s <= I + nk - 2, dk = upk >= 0 && s <= I + nj - 2; // a face point at this step
      if (lane < 2 && (lane == 0 ? dj : dk)) {
        cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> pr(prog[lane == 0 ? upj : upk]);
        const unsigned long long need = base + (unsigned long long)(s + (lane == 0 ? wj : wk)); // its step s + w - 1

        while (pr.load(cuda::memory_order_acquire) < need) {
        }
      }
      __syncwarp();
      const int vj = dj ? nk * N : 0, tot = vj + (dk ? nj * N : 0);
      // value e of the step's faces: false if its point is outside the grid, else its source and destination
      auto at = [&](int e, size_t *from, int *to) {
        const bool isj = e < vj;
        const int  ee = isj ? e : e - vj, m = isj ? nk : nj, c = ee / N, v = ee % N, ii = s - (B ? m - 1 - c : c);

        if (ii < 0 || ii >= I) return false;
        const long long off =
            isj ? (long long)(B ? j0 + nj : j0 - 1) * K + k0 : (long long)j0 * K + (B ? k0 + nk : k0 - 1);

        *from = ((size_t)first + (size_t)(B ? I - 1 - ii : ii) * J * K + off + (long long)c * (isj ? 1 : K)) * N + v;
        *to   = (int)((isj ? fj + ((s & 1) * tkm + c) * N : fk + ((s & 1) * tjm + c) * N) - sh) + v;
        return true;
      };
      constexpr int NR = 8; // values a lane has in flight, each with its place in shared memory (-1: none)
      for (int e0 = 0; e0 < tot; e0 += NR * 32) {
        double t[NR];
        int    to[NR];

#pragma unroll
        for (int r = 0; r < NR; r++) {
          size_t from;

          to[r] = -1;
          t[r]  = e0 + r * 32 + lane < tot && at(e0 + r * 32 + lane, &from, &to[r]) ? __ldcg(src + from) : 0.0;
        }
#pragma unroll
        for (int r = 0; r < NR; r++)
          if (to[r] >= 0) sh[to[r]] = t[r];
      }
    };
    fetch(0);
    step_barrier();
    for (int s = 0; s < nsteps; s++) {
      if (s + 1 < nsteps) fetch(s + 1);
      step_barrier();
    }
    return;
  }
  // ---- the compute warps: group g (G lanes) takes lines g, g + ng, ...
  const int t = threadIdx.x - CTRL, g = t / G, u = t % G, ng = (blockDim.x - CTRL) / G;
  // line l's point at step s
  auto point = [&](int l, int s) {
    pipe_pt q;
    const int jl = l / nk, kl = l % nk, ii = s - (B ? nj - 1 - jl : jl) - (B ? nk - 1 - kl : kl);

    q.on = l < lines && ii >= 0 && ii < I;
    q.i = B ? I - 1 - ii : ii, q.l = l, q.jl = jl, q.kl = kl;
    q.p = q.on ? (long long)first + ((long long)q.i * J + j0 + jl) * K + k0 + kl : 0;
    q.mask = q.on ? s7_mask(I, J, K, q.i, j0 + jl, k0 + kl) : 0u;
    return q;
  };
  // the point's schedule entry for the bodies
  auto entry = [&](const pipe_pt &q) { return make_int4((int)q.p, K, J * K, (int)q.mask); };
  // the point's own values in the ring, and its neighbour's along arm a at step s (the lower arms k - 1, j - 1, i - 1
  // forward, the upper arms i + 1, j + 1, k + 1 backward): the ring inside the tile, else the face buffer
  auto own = [&](const pipe_pt &q) { return ring + ((size_t)(q.i & 1) * tl + q.l) * N; };
  auto nbr = [&](const pipe_pt &q, int a, int s) -> const double * {
    const int jl = q.jl, kl = q.kl, c = q.i & 1;

    if (!B)
      return a == 0   ? (kl > 0 ? ring + ((size_t)c * tl + q.l - 1) * N : fk + ((s & 1) * tjm + jl) * N)
             : a == 1 ? (jl > 0 ? ring + ((size_t)c * tl + q.l - nk) * N : fj + ((s & 1) * tkm + kl) * N)
                      : ring + ((size_t)(c ^ 1) * tl + q.l) * N;
    return a == 0   ? ring + ((size_t)(c ^ 1) * tl + q.l) * N
           : a == 1 ? (jl < nj - 1 ? ring + ((size_t)c * tl + q.l + nk) * N : fj + ((s & 1) * tkm + kl) * N)
                    : (kl < nk - 1 ? ring + ((size_t)c * tl + q.l + 1) * N : fk + ((s & 1) * tjm + jl) * N);
  };

  const T *A7 = (const T *)L.A7, *D = (const T *)L.D;
  auto     load = [&](const pipe_pt &q, pipe_pre<N, T> &r) {
    const bool row = q.on && u < N;

    sweep_load<N, B, T>(row, entry(q), u, A7, D, L.dstr, r.r);
    r.bx = row ? (B ? L.x[(size_t)q.p * N + u] : L.b[(size_t)q.p * N + u]) : 0.0;
  };
  auto prefetch = [&](const pipe_pt &q) { // the point's sweep factors into L2, a 128-byte line a lane
    if (!q.on) return;
    const char *arms = (const char *)(A7 + ((size_t)q.p * 7 + (B ? 4 : 0)) * NN),
               *d    = (const char *)(D + (size_t)q.p * L.dstr);

    for (int o = u * 128; o < (int)(3 * NN * sizeof(T)); o += G * 128) prefetch_l2(arms + o);
    for (int o = u * 128; o < (int)(NN * sizeof(T)); o += G * 128) prefetch_l2(d + o);
  };
  auto compute = [&](const pipe_pt &q, const pipe_pre<N, T> &r, int s) {
    const bool   row = q.on && u < N;
    const double out = sweep_run<N, G, B, false, T>(
        row, entry(q), u, r.r, [&](int a) { return nbr(q, a, s); }, [&] { return r.bx; }, L.x);

    if (row) own(q)[u] = out;
  };

  if constexpr (PF) { // one line a group: the next step's loads in flight while this step computes, in two sets
                      // of registers used in turn (a copy from one to the other would wait for the loads)
    pipe_pt        qa = point(g, 0), qb;
    pipe_pre<N, T> ra, rb;

    load(qa, ra);
    step_barrier();
    for (int s = 0; s < nsteps; s += 2) {
      qb = point(g, s + 1);
      load(qb, rb);
      if (L.pf > 0) prefetch(point(g, s + L.pf));
      compute(qa, ra, s);
      step_barrier();
      if (s + 1 >= nsteps) break;
      qa = point(g, s + 2);
      load(qa, ra);
      if (L.pf > 0) prefetch(point(g, s + 1 + L.pf));
      compute(qb, rb, s + 1);
      step_barrier();
    }
  } else {
    step_barrier();
    for (int s = 0; s < nsteps; s++) {
      for (int l0 = 0; l0 < lines; l0 += ng) { // a warp-uniform trip count: every lane reaches the shuffles
        const pipe_pt  q = point(l0 + g, s);
        pipe_pre<N, T> r;

        load(q, r);
        if (L.pf > 0) prefetch(point(l0 + g, s + L.pf));
        compute(q, r, s);
      }
      step_barrier();
    }
  }
}

template <int N, bool B, bool PF, class T> cudaError_t go(const pds_cuda_bilu0_pipe_launch &L) {
  auto        k = pipe_k<N, lanes_of(N), B, PF, T>;
  cudaError_t e;

  if (L.smem > 48 * 1024 &&
      (e = cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)L.smem)) != cudaSuccess)
    return e;
  if (L.query) return cudaOccupancyMaxActiveBlocksPerMultiprocessor(L.query, k, L.threads, (size_t)L.smem);
  k<<<(unsigned)L.ntiles, (unsigned)L.threads, (size_t)L.smem, L.stream>>>(L);
  return cudaGetLastError();
}

template <int N, class T> cudaError_t launch_n(const pds_cuda_bilu0_pipe_launch &L) {
  if (L.pf_regs) return L.backward ? go<N, true, true, T>(L) : go<N, false, true, T>(L);
  return L.backward ? go<N, true, false, T>(L) : go<N, false, false, T>(L);
}

template <class T> cudaError_t launch_t(const pds_cuda_bilu0_pipe_launch &L) {
  switch (L.n) {
  case 1: return launch_n<1, T>(L);
  case 2: return launch_n<2, T>(L);
  case 3: return launch_n<3, T>(L);
  case 4: return launch_n<4, T>(L);
  case 5: return launch_n<5, T>(L);
  case 6: return launch_n<6, T>(L);
  case 7: return launch_n<7, T>(L);
  case 8: return launch_n<8, T>(L);
  default: return cudaErrorInvalidValue;
  }
}

} // namespace

extern "C" cudaError_t pds_cuda_bilu0_pipe(const pds_cuda_bilu0_pipe_launch *L) {
  return L->single ? launch_t<float>(*L) : launch_t<double>(*L);
}
