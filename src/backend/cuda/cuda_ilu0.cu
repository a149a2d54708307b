// src/backend/cuda/cuda_ilu0.cu: ILU(0) of a block-CSR factor on /gpu/cuda (the group's semantics in
// src/precond/ilu0_kernels.h, the host side in cuda_ilu0.c). A thread per block row runs src/backend/ilu0_bodies.h's
// arithmetic in its order with each product and sum rounded on its own (__dmul_rn, __dadd_rn, __dsub_rn; the CPU
// compilers of this project do not contract), the diagonal blocks inverted by pds_block_invert's Gauss-Jordan steps:
// /cpu/ref's bits, whatever runs the rows:
// - levels: one launch per level of the pattern's level schedule. A level's rows depend only on rows of earlier
//   levels, finished by the launches before (programmatic dependent launch: a level's kernel is resident before the
//   one before has ended and waits in pds_grid_dep() before it reads anything that changes).
// - syncfree: one launch per phase, as many warps as can be resident, each taking tickets (32 entries of the padded
//   level schedule: every level padded to whole warps, so a warp's rows never wait on each other) in order; a row
//   waits until the flags of the rows it reads carry this launch's stamp, runs, and sets its own flag. No deadlock:
//   a row waits only on rows of earlier levels, so of earlier tickets, taken by warps that are running.
// - jacobi, chow (the approximate variants): every row at once, from the previous iterate.
// Byte model of an application (8-byte reals, b x b blocks): every block of the factor read once, 8 nnzb b^2, plus
// the vectors (b read, x written, the neighbours' x gathered through the caches): the bytes of one product with A.
// Flops: 2 nnzb b^2. A Jacobi sweep reads its triangle's blocks and the vectors: about half of that. A Chow-Patel
// sweep: the factorization's bytes (ilu0_bodies.h) plus A's values read once. Each row's blocks are read by one
// thread (uncoalesced for b > 1).
#include <string.h>

#include <cuda/atomic>

#include "cuda_launch.cuh"

#define IM(a, b) __dmul_rn((a), (b))
#define IA(a, b) __dadd_rn((a), (b))
#define IS(a, b) __dsub_rn((a), (b))

namespace {

struct ilu0_args {
  const pds_size *rowptr;
  const pds_int  *colidx;
  const pds_size *diag;
  pds_real       *vals;
  const pds_int  *rows; // levels: the level's block rows, rows[0 .. count); syncfree: the padded schedule
  long long       count;
  pds_real        shift;
  const pds_real *b, *xr; // the sweeps' right-hand side; jacobi: the iterate read (NULL: zero)
  pds_real       *x;      // the sweeps' output (exact: in place)
  const pds_real *aval;   // chow: A's values
  pds_real       *gvals;  // chow: the new iterate
  unsigned long long *bad;
};

struct no_wait {
  static constexpr bool active = false;
  __device__ void operator()(pds_int) const {}
};

// in place: a becomes a^-1; pds_block_invert's steps (partial pivoting, row interchanges undone as column ones)
template <int N> __device__ __forceinline__ bool gj_invert(double (&a)[N * N]) {
  int piv[N];

#pragma unroll
  for (int k = 0; k < N; k++) {
    int    r    = k;
    double amax = fabs(a[k * N + k]);

#pragma unroll
    for (int i = k + 1; i < N; i++)
      if (fabs(a[i * N + k]) > amax) amax = fabs(a[i * N + k]), r = i;
    if (!(amax > 0) || !isfinite(amax)) return false;
    piv[k] = r;
    if (r != k)
#pragma unroll
      for (int j = 0; j < N; j++) {
        const double t = a[k * N + j];

        a[k * N + j] = a[r * N + j], a[r * N + j] = t;
      }
    const double inv = 1.0 / a[k * N + k];

    a[k * N + k] = 1.0;
#pragma unroll
    for (int j = 0; j < N; j++) a[k * N + j] = IM(a[k * N + j], inv);
#pragma unroll
    for (int i = 0; i < N; i++) {
      if (i == k) continue;
      const double f = a[i * N + k];

      a[i * N + k] = 0.0;
#pragma unroll
      for (int j = 0; j < N; j++) a[i * N + j] = IS(a[i * N + j], IM(f, a[k * N + j]));
    }
  }
#pragma unroll
  for (int k = N - 1; k >= 0; k--)
    if (piv[k] != k)
#pragma unroll
      for (int i = 0; i < N; i++) {
        const double t = a[i * N + k];

        a[i * N + k] = a[i * N + piv[k]], a[i * N + piv[k]] = t;
      }
  return true;
}

// blk_mul (src/backend/kernel_bodies.h) on the device: C = A B (SUB false) or C -= A B, each entry's sum over w in
// order from 0, rounded step by step
template <int N, bool SUB> __device__ __forceinline__ void blk_mul_d(const double *A, const double *B, double *C) {
#pragma unroll
  for (int u = 0; u < N; u++)
#pragma unroll
    for (int v = 0; v < N; v++) {
      double s = 0;

#pragma unroll
      for (int w = 0; w < N; w++) s = IA(s, IM(A[u * N + w], B[w * N + v]));
      C[u * N + v] = SUB ? IS(C[u * N + v], s) : s;
    }
}

// the inversion of the factored diagonal block at a + d NN in place; false when singular
template <int N> __device__ __forceinline__ bool invert_diag(double *a) {
  if constexpr (N == 1) {
    const double x = a[0];

    if (!(fabs(x) > 0) || !isfinite(x)) return false;
    a[0] = 1.0 / x;
    return true;
  } else {
    double T[N * N];

#pragma unroll
    for (int e = 0; e < N * N; e++) T[e] = a[e];
    if (!gj_invert<N>(T)) return false;
#pragma unroll
    for (int e = 0; e < N * N; e++) a[e] = T[e];
    return true;
  }
}

// ilu0_row_update: A_ij -= L_ik U_kj for the j > k of row k also in row i (entry p, column k; row i ends at hi)
template <int N> __device__ __forceinline__ void row_update(const ilu0_args &f, pds_size p, pds_size hi,
                                                            const double *Lik, const double *u, double *a) {
  constexpr int NN = N * N;
  const pds_int k  = f.colidx[p];
  pds_size      r  = p + 1;

  for (pds_size q = f.diag[k] + 1; q < f.rowptr[k + 1]; q++) {
    const pds_int j = f.colidx[q];

    while (r < hi && f.colidx[r] < j) r++;
    if (r == hi) break;
    if (f.colidx[r] != j) continue;
    blk_mul_d<N, true>(Lik, u + q * NN, a + r * NN);
  }
}

// row i of the factorization (ilu0_factor_row_n); wait(k) before row k is read
template <int N, class W> __device__ bool factor_row(const ilu0_args &f, pds_int i, W wait) {
  constexpr int  NN = N * N;
  const pds_size lo = f.rowptr[i], hi = f.rowptr[i + 1], d = f.diag[i];
  double        *a  = f.vals;
  double         T[NN];

  if (f.shift != 0)
#pragma unroll
    for (int u = 0; u < N; u++) a[d * NN + u * N + u] = IA(a[d * NN + u * N + u], f.shift);
  for (pds_size p = lo; p < d; p++) {
    const pds_int k = f.colidx[p];
    double       *L = a + p * NN;

    wait(k);
    blk_mul_d<N, false>(L, a + f.diag[k] * NN, T);
#pragma unroll
    for (int e = 0; e < NN; e++) L[e] = T[e];
    row_update<N>(f, p, hi, T, a, a);
  }
  return invert_diag<N>(a + d * NN);
}

// row i of a Chow-Patel sweep (ilu0_chow_row_n): gvals from vals (NULL: the start) and aval
template <int N> __device__ bool chow_row(const ilu0_args &f, pds_int i) {
  constexpr int   NN = N * N;
  const pds_size  lo = f.rowptr[i], hi = f.rowptr[i + 1], d = f.diag[i];
  const double   *o = f.vals, *a = f.aval;
  double         *g = f.gvals;
  double          T[NN];

  for (pds_size e = lo * NN; e < hi * NN; e++) g[e] = a[e];
  if (f.shift != 0)
#pragma unroll
    for (int u = 0; u < N; u++) g[d * NN + u * N + u] = IA(g[d * NN + u * N + u], f.shift);
  if (o)
    for (pds_size p = lo; p < d; p++) row_update<N>(f, p, hi, o + p * NN, o, g);
  for (pds_size p = lo; p < d; p++) {
    double *L = g + p * NN;

    if (!o) {
#pragma unroll
      for (int e = 0; e < NN; e++) L[e] = 0.0;
      continue;
    }
    blk_mul_d<N, false>(L, o + f.diag[f.colidx[p]] * NN, T);
#pragma unroll
    for (int e = 0; e < NN; e++) L[e] = T[e];
  }
  return invert_diag<N>(g + d * NN);
}

// A row's structure (and, scalar, its first C entries) read before its inputs are ready: they never change during
// an application (the factor's values were written by a setup that ended before: it reads its singular-pivot flag
// back). C entries cover the rows of most FV/FE matrices' triangles.
constexpr int C = 8;

template <int N> struct row_pre {
  pds_size p0, p1, d;
  pds_int  cc[C];
  double   cv[C], dv;
};

// the triangle of row i: forward (BWD false) the entries before the diagonal, backward those after it
template <int N, bool BWD> __device__ __forceinline__ void pre_load(const ilu0_args &f, bool on, pds_int i,
                                                                    row_pre<N> &r) {
  r.d = on ? f.diag[i] : 0, r.p0 = on ? (BWD ? r.d + 1 : f.rowptr[i]) : 0, r.p1 = on ? (BWD ? f.rowptr[i + 1] : r.d) : 0;
  r.dv = 0;
  if constexpr (N == 1) {
#pragma unroll
    for (int q = 0; q < C; q++) {
      const bool in = r.p0 + q < r.p1;

      r.cc[q] = in ? f.colidx[r.p0 + q] : 0, r.cv[q] = in ? f.vals[r.p0 + q] : 0.0;
    }
    if (BWD && on) r.dv = f.vals[r.d];
  }
}

// row i of a sweep (ilu0_sweep_row_n): z = rhs_i - sum M x_k over the
// triangle (xr NULL: no sum), then y_i = z (forward) or D_i^-1 z (backward); wait(k) before x_k is read
template <int N, bool BWD, class W>
__device__ __forceinline__ void sweep_row(const ilu0_args &f, pds_int i, const row_pre<N> &r, const double *rhs,
                                          const double *xr, double *y, W wait) {
  constexpr int NN = N * N;

  if constexpr (W::active) {
    if constexpr (N == 1) {
#pragma unroll
      for (int q = 0; q < C; q++)
        if (r.p0 + q < r.p1) wait(r.cc[q]);
      for (pds_size p = r.p0 + C; p < r.p1; p++) wait(f.colidx[p]);
    } else
      for (pds_size p = r.p0; p < r.p1; p++) wait(f.colidx[p]);
  }
  if constexpr (N == 1) {
    double s = 0;

    if (xr) {
#pragma unroll
      for (int q = 0; q < C; q++)
        if (r.p0 + q < r.p1) s = IA(s, IM(r.cv[q], xr[r.cc[q]]));
      for (pds_size p = r.p0 + C; p < r.p1; p++) s = IA(s, IM(f.vals[p], xr[f.colidx[p]]));
    }
    const double z = IS(rhs[i], s);

    y[i] = BWD ? IA(0.0, IM(r.dv, z)) : z; // ilu0_sweep_row_n: s = 0 + D z
  } else {
    double z[N];

#pragma unroll
    for (int u = 0; u < N; u++) {
      double s = 0;

      if (xr)
        for (pds_size p = r.p0; p < r.p1; p++) {
          const double *M = f.vals + p * NN + u * N, *xk = xr + (size_t)f.colidx[p] * N;

#pragma unroll
          for (int w = 0; w < N; w++) s = IA(s, IM(M[w], xk[w]));
        }
      z[u] = IS(rhs[(size_t)i * N + u], s);
    }
#pragma unroll
    for (int u = 0; u < N; u++) {
      if constexpr (!BWD) {
        y[(size_t)i * N + u] = z[u];
      } else {
        const double *D = f.vals + r.d * NN + u * N;
        double        s = 0;

#pragma unroll
        for (int w = 0; w < N; w++) s = IA(s, IM(D[w], z[w]));
        y[(size_t)i * N + u] = s;
      }
    }
  }
}

// ---- levels: a level's rows, a thread each ----
template <int N> __global__ void __launch_bounds__(128) factor_k(ilu0_args f) {
  const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const pds_int   i = t < f.count ? f.rows[t] : 0; // the schedule: read before the wait

  pds_grid_dep();
  if (t >= f.count) return;
  if (!factor_row<N>(f, i, no_wait{})) atomicMin(f.bad, (unsigned long long)i);
}

template <int N, bool BWD> __global__ void __launch_bounds__(128) sweep_k(ilu0_args f) {
  const long long t  = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const bool      on = t < f.count;
  const pds_int   i  = on ? f.rows[t] : 0;
  row_pre<N>      r;

  pre_load<N, BWD>(f, on, i, r);
  pds_grid_dep();
  if (!on) return;
  sweep_row<N, BWD>(f, i, r, BWD ? f.x : f.b, f.x, f.x, no_wait{}); // in place
}

// ---- the approximate variants: every row, from the previous iterate ----
template <int N, bool BWD> __global__ void __launch_bounds__(128) jacobi_k(ilu0_args f) {
  const long long t  = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const bool      on = t < f.count;
  row_pre<N>      r;

  pre_load<N, BWD>(f, on, on ? (pds_int)t : 0, r);
  pds_grid_dep();
  if (!on) return;
  sweep_row<N, BWD>(f, (pds_int)t, r, f.b, f.xr, f.x, no_wait{});
}

template <int N> __global__ void __launch_bounds__(128) chow_k(ilu0_args f) {
  const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;

  pds_grid_dep();
  if (t >= f.count) return;
  if (!chow_row<N>(f, (pds_int)t)) atomicMin(f.bad, (unsigned long long)t);
}

// ---- syncfree: PH 0 factor, 1 forward, 2 backward ----
struct flag_wait {
  static constexpr bool active = true;
  unsigned             *flags;
  unsigned              stamp;
  __device__ void operator()(pds_int k) const {
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> fl(flags[k]);

    for (unsigned ns = 16; fl.load(cuda::memory_order_acquire) != stamp; ns = ns < 128 ? 2 * ns : ns) __nanosleep(ns);
  }
};

template <int N, int PH>
__global__ void __launch_bounds__(128) syncfree_k(ilu0_args f, unsigned *flags, pds_cuda_sync_state *st) {
  const int lane = threadIdx.x & 31;
  unsigned  stamp = 0;

  if (lane == 0)
    stamp = cuda::atomic_ref<unsigned, cuda::thread_scope_device>(st->stamp).load(cuda::memory_order_relaxed) + 1;
  stamp = __shfl_sync(0xffffffffu, stamp, 0);
  const flag_wait wait{flags, stamp};

  for (;;) { // tickets until none is left
    unsigned tk = 0;

    if (lane == 0) tk = atomicAdd(&st->ticket, 1u);
    tk = __shfl_sync(0xffffffffu, tk, 0);
    if ((long long)tk >= f.count) break;
    const pds_int i  = f.rows[(long long)tk * 32 + lane];
    const bool    on = i >= 0;

    if (PH == 0) {
      if (on && !factor_row<N>(f, i, wait)) atomicMin(f.bad, (unsigned long long)i);
    } else {
      row_pre<N> r;

      pre_load<N, PH == 2>(f, on, on ? i : 0, r);
      if (on) sweep_row<N, PH == 2>(f, i, r, PH == 2 ? f.x : f.b, f.x, f.x, wait);
    }
    // each thread publishes its own row: the release orders its writes (x_i, or row i's blocks) before the flag
    if (on) cuda::atomic_ref<unsigned, cuda::thread_scope_device>(flags[i]).store(stamp, cuda::memory_order_release);
  }
  if (lane == 0 && atomicAdd(&st->done, 1u) == gridDim.x * (blockDim.x / 32) - 1) { // every warp has ended
    st->ticket = 0, st->done = 0;
    cuda::atomic_ref<unsigned, cuda::thread_scope_device>(st->stamp).store(stamp, cuda::memory_order_release);
  }
}

// gather y_i = x_perm[i] or scatter y_perm[i] = x_i, by blocks of bs: a thread per entry
__global__ void permute_k(long long nb, int bs, const pds_int *__restrict__ perm, int scatter,
                          const pds_real *__restrict__ x, pds_real *__restrict__ y) {
  const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;

  pds_grid_dep();
  if (t >= nb * bs) return;
  const long long i = t / bs, u = t % bs;

  if (scatter) y[(long long)perm[i] * bs + u] = x[t];
  else y[t] = x[(long long)perm[i] * bs + u];
}

// the grid of a syncfree kernel: the window's warps (a few levels' worth: more warps would only spin on later levels,
// and their polling takes the memory system from the rows that can run), at least a block per SM, at most what can be
// resident (its blocks per SM, registers bound them, times the SMs) and what the tickets need
template <class K> cudaError_t sf_grid(K kernel, int nsm, long long window, long long warps, unsigned *grid) {
  int         per = 0;
  cudaError_t e   = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, kernel, 128, 0);
  long long   g   = (window + 3) / 4;

  if (e != cudaSuccess) return e;
  if (per < 1) per = 1;
  if (g < nsm) g = nsm;
  if (g > (long long)per * nsm) g = (long long)per * nsm;
  if (g > (warps + 3) / 4) g = (warps + 3) / 4;
  *grid = (unsigned)(g > 0 ? g : 1);
  return cudaSuccess;
}

template <int N, int PH> cudaError_t launch_sf(const pds_cuda_ilu0_launch &L, const ilu0_args &f) {
  unsigned    grid = 1;
  cudaError_t e    = sf_grid(syncfree_k<N, PH>, L.nsm, L.window, L.count, &grid);

  if (e != cudaSuccess) return e;
  syncfree_k<N, PH><<<grid, 128, 0, L.stream>>>(f, L.flags, L.sync);
  return cudaGetLastError();
}

template <int N> cudaError_t launch_n(const pds_cuda_ilu0_launch &L, const ilu0_args &f) {
  const unsigned nb = (unsigned)((f.count + 127) / 128);

  if (f.count <= 0) return cudaSuccess;
  switch (L.kind) {
  case PDS_CUDA_ILU0_FACTOR: return pds_launch(factor_k<N>, nb, 128, 0, L.stream, f);
  case PDS_CUDA_ILU0_FORWARD: return pds_launch(sweep_k<N, false>, nb, 128, 0, L.stream, f);
  case PDS_CUDA_ILU0_BACKWARD: return pds_launch(sweep_k<N, true>, nb, 128, 0, L.stream, f);
  case PDS_CUDA_ILU0_JACOBI_FORWARD: return pds_launch(jacobi_k<N, false>, nb, 128, 0, L.stream, f);
  case PDS_CUDA_ILU0_JACOBI_BACKWARD: return pds_launch(jacobi_k<N, true>, nb, 128, 0, L.stream, f);
  case PDS_CUDA_ILU0_CHOW: return pds_launch(chow_k<N>, nb, 128, 0, L.stream, f);
  case PDS_CUDA_ILU0_SF_FACTOR: return launch_sf<N, 0>(L, f);
  case PDS_CUDA_ILU0_SF_FORWARD: return launch_sf<N, 1>(L, f);
  case PDS_CUDA_ILU0_SF_BACKWARD: return launch_sf<N, 2>(L, f);
  default: return cudaErrorInvalidValue;
  }
}

} // namespace

extern "C" {

cudaError_t pds_cuda_ilu0(const pds_cuda_ilu0_launch *L) {
  ilu0_args f;

  if (L->kind == PDS_CUDA_ILU0_GATHER || L->kind == PDS_CUDA_ILU0_SCATTER) {
    const long long n = (long long)L->nb * L->bs;

    if (n <= 0) return cudaSuccess;
    return pds_launch(permute_k, (unsigned)((n + 255) / 256), 256, 0, L->stream, (long long)L->nb, L->bs, L->perm,
                      L->kind == PDS_CUDA_ILU0_SCATTER ? 1 : 0, (const pds_real *)L->b, L->x);
  }
  memset(&f, 0, sizeof f);
  f.rowptr = L->rowptr, f.colidx = L->colidx, f.diag = L->diag, f.vals = L->vals, f.rows = L->rows + L->begin;
  f.count = L->count, f.shift = L->shift, f.b = L->b, f.xr = L->xr, f.x = L->x, f.bad = L->bad;
  f.aval = L->aval, f.gvals = L->gvals;
  switch (L->bs) {
  case 1: return launch_n<1>(*L, f);
  case 2: return launch_n<2>(*L, f);
  case 3: return launch_n<3>(*L, f);
  case 4: return launch_n<4>(*L, f);
  case 5: return launch_n<5>(*L, f);
  case 6: return launch_n<6>(*L, f);
  case 7: return launch_n<7>(*L, f);
  case 8: return launch_n<8>(*L, f);
  default: return cudaErrorInvalidValue;
  }
}

} // extern "C"
