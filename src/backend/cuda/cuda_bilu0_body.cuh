// src/backend/cuda/cuda_bilu0_body.cuh: the per-point bodies of bilu0 on /gpu/cuda (stencil7, paper 000), shared by
// every variant's kernels: cuda_bilu0.cu (one plane at a time, or by flags) and cuda_bilu0_pipe.cu (tile columns).
// Each runs one grid point given its schedule entry e = {p, K, J K, arm mask} (pds_cuda_s7_pt): "lanes" (G lanes a
// point, lane u row u) for the factorization and the sweeps, "element" (n^2 lanes a point) for the factorization.
// The arithmetic is src/backend/stencil7_bodies.h's, in its order, with cuda_stencil7.cuh's rounding: /cpu/ref's
// bits.
#pragma once

#include "cuda_lanes.cuh"
#include "cuda_launch.cuh"
#include "cuda_stencil7.cuh"

namespace {

using pds_lanes::FULL;
using pds_lanes::lanes_of;
using pds_lanes::load_row;

// a value another block (or SM) wrote during this kernel: read it from L2, never a stale L1 line
template <bool CG, class T> __device__ __forceinline__ T ld(const T *p) {
  if constexpr (CG) return __ldcg(p);
  else return *p;
}

// the neighbour of entry e along arm a
__device__ __forceinline__ long long nb_of(const int4 &e, int a) { return (long long)e.x + s7_off(a, e.y, e.z); }

// ---- the "lanes" body --------------------------------------------------------------------------------------------
// lane u (< G) of the group of point e; on: the group has a point (every lane of the warp calls, for the shuffles)

// dinv_p by Eq. 1, then Gauss-Jordan with partial pivoting (pds_block_invert's steps and order); a singular block:
// *bad = min(*bad, p). The neighbours' blocks are spread over the group: lane w holds row w of each upper arm U_q and
// of each inverse D_q, and a product takes row w from lane w by a shuffle, so a lane loads 2 n values per arm (not
// 2 n^2) and all of them at once. factor_load reads what this factorization never writes (the point's delta and
// lower arms, the neighbours' upper arms: it may run before the plane before has ended), factor_run the neighbours'
// inverses (written by that plane), then computes.
template <int N> struct fac_pre {
  double a[N], L[3][N], U[3][N];
};

template <int N>
__device__ __forceinline__ void factor_load(bool row, const int4 &e, int u, const double *__restrict__ vals,
                                            fac_pre<N> &r) {
  constexpr int NN = N * N;

  if (row) load_row<N, double>(r.a, vals + ((size_t)e.x * 7 + 3) * NN + u * N);
  else
#pragma unroll
    for (int v = 0; v < N; v++) r.a[v] = 0.0;
#pragma unroll
  for (int arm = 0; arm < 3; arm++)
    if (row && (e.w >> arm & 1)) {
      load_row<N, double>(r.L[arm], vals + ((size_t)e.x * 7 + arm) * NN + u * N);
      load_row<N, double>(r.U[arm], vals + ((size_t)nb_of(e, arm) * 7 + 6 - arm) * NN + u * N);
    } else
#pragma unroll
      for (int v = 0; v < N; v++) r.L[arm][v] = r.U[arm][v] = 0.0;
}

// SM (lanes_k's factorization): the neighbours' rows go between the lanes through shared memory instead of shuffles.
// A double shuffle is two SHFL instructions and an SM issues one warp's SHFL a clock; the products take 2 n^2 double
// shuffles per arm and lane, which on wide planes (a full wave of points) add up to a good part of a step. Per arm,
// lane w < N stores row w of D_q and of U_q in its group's slice sm (2 n^2 doubles), and every lane reads the
// elements it needs (the lanes of a group read the same word: a broadcast; the slices are padded by two doubles so
// that a warp's groups start on different banks). The same products in the same order: the same bits. Measured on an
// H200 (docs/bilu0.md): 3-6% faster factorizations from 55^3 to 128^3 at n = 4, 5, 6, which take it; n <= 3 (few
// shuffles; more registers with it) and n = 7, 8 (more spills in the two-blocks bound) were not measured and keep the
// shuffles (lanes_k).
template <int N, int G, bool CG, bool SM = false>
__device__ __forceinline__ void factor_run(bool on, const int4 &e, int u, fac_pre<N> &r,
                                           const double *__restrict__ vals, double *dinv, unsigned long long *bad,
                                           double *sm = nullptr) {
  constexpr int NN = N * N;
  const bool    row = on && u < N;
  double       *a   = r.a;
  double        D[3][N]; // row u of each neighbour's inverse

  (void)vals;
#pragma unroll
  for (int arm = 0; arm < 3; arm++)
#pragma unroll
    for (int v = 0; v < N; v++)
      D[arm][v] = row && (e.w >> arm & 1) ? ld<CG>(dinv + (size_t)nb_of(e, arm) * NN + u * N + v) : 0.0;
#pragma unroll
  for (int arm = 0; arm < 3; arm++) { // every lane of the warp shuffles; a lane without this arm discards its sums
    const bool in = row && (e.w >> arm & 1);
    double     S[N];

    if constexpr (SM) {
      __syncwarp(); // the reads of the arm before are done
      if (u < N)
#pragma unroll
        for (int v = 0; v < N; v++) sm[u * N + v] = D[arm][v], sm[NN + u * N + v] = r.U[arm][v];
      __syncwarp();
    }
    // element w, v of D_q and of U_q (row w of each is lane w's)
    auto Dq = [&](int w, int v) {
      if constexpr (SM) return sm[w * N + v];
      else return __shfl_sync(FULL, D[arm][v], w, G);
    };
    auto Uq = [&](int w, int v) {
      if constexpr (SM) return sm[NN + w * N + v];
      else return __shfl_sync(FULL, r.U[arm][v], w, G);
    };
#pragma unroll
    for (int v = 0; v < N; v++) { // S = L Dq, row u
      double s = 0;

#pragma unroll
      for (int w = 0; w < N; w++) s = S7_ADD(s, S7_MUL(r.L[arm][w], Dq(w, v)));
      S[v] = s;
    }
#pragma unroll
    for (int v = 0; v < N; v++) { // T -= S U, row u
      double s = 0;

#pragma unroll
      for (int w = 0; w < N; w++) s = S7_ADD(s, S7_MUL(S[w], Uq(w, v)));
      if (in) a[v] = S7_SUB(a[v], s);
    }
  }
  const bool ok = pds_lanes::gj_invert<N, G>(r.a, u);

  if (on && u == 0 && !ok) atomicMin(bad, (unsigned long long)e.x);
  if (row)
#pragma unroll
    for (int v = 0; v < N; v++) dinv[(size_t)e.x * NN + u * N + v] = a[v];
}

template <int N, int G, bool CG>
__device__ __forceinline__ void lane_factor(bool on, const int4 &e, int u, const double *__restrict__ vals,
                                            double *dinv, unsigned long long *bad) {
  fac_pre<N> r;

  factor_load<N>(on && u < N, e, u, vals, r);
  factor_run<N, G, CG>(on, e, u, r, vals, dinv, bad);
}

// ---- the "element" factorization (lanes' factorization of narrow planes) -----------------------------------------
// n^2 lanes per point, as paper 000's Algorithms 4-5, but in one warp and in registers: the group of P = min(32, G^2)
// lanes of a point holds the block by elements, lane l = (u0, v) = (l / G, l % G) element e of row u0 + e R
// (R = P / G rows per pass, E passes: E = 2 for n = 5..8, else 1). Per point this is a short chain where lanes runs a
// long one: element (u, v) of S = L D_q is one lane's dot product with column v of D_q (its own loads), element (u, v)
// of S U takes row u of S by n shuffles, and a Gauss-Jordan step is one column gather, a local pivot search, the row
// interchange by E^2 shuffles and one row update per element. The arithmetic is s7_factor_point_n's and
// pds_block_invert's, element by element in their order (the row interchanges done as they are; the column
// interchanges at the end become the addresses of the stores), so the bits are /cpu/ref's. Registers: the point's
// lower rows and the neighbours' upper columns (read before the plane before has ended) take (E + 1) 3 n doubles,
// which limits residency: used for planes of at most elem_max points, where the chain, not the throughput, bounds a
// step.
template <int N> struct el {
  static constexpr int G = lanes_of(N), P = G * G < 32 ? G * G : 32, R = P / G, E = (N + R - 1) / R;
};

template <int N>
__device__ __forceinline__ void elem_factor(bool on, const int4 &e, int l, const double *__restrict__ vals,
                                            double *dinv, unsigned long long *bad, bool wait) {
  constexpr int NN = N * N, G = el<N>::G, P = el<N>::P, R = el<N>::R, E = el<N>::E;
  const int     v = l % G, u0 = l / G;
  const bool    col = on && v < N;
  double        a[E], Lr[3][E][N], Uc[3][N];

  // what this factorization never writes: delta, the point's lower rows, the neighbours' upper columns
#pragma unroll
  for (int q = 0; q < E; q++) {
    const int  u  = u0 + q * R;
    const bool ok = col && u < N;

    a[q] = ok ? vals[((size_t)e.x * 7 + 3) * NN + u * N + v] : 0.0;
#pragma unroll
    for (int arm = 0; arm < 3; arm++)
#pragma unroll
      for (int w = 0; w < N; w++)
        Lr[arm][q][w] = ok && (e.w >> arm & 1) ? vals[((size_t)e.x * 7 + arm) * NN + u * N + w] : 0.0;
  }
#pragma unroll
  for (int arm = 0; arm < 3; arm++)
#pragma unroll
    for (int w = 0; w < N; w++)
      Uc[arm][w] = col && (e.w >> arm & 1) ? vals[((size_t)nb_of(e, arm) * 7 + 6 - arm) * NN + w * N + v] : 0.0;
  if (wait) pds_grid_dep();
  double Dc[3][N]; // column v of each neighbour's inverse (written by the plane before)

#pragma unroll
  for (int arm = 0; arm < 3; arm++)
#pragma unroll
    for (int w = 0; w < N; w++)
      Dc[arm][w] = col && (e.w >> arm & 1) ? __ldcg(dinv + (size_t)nb_of(e, arm) * NN + w * N + v) : 0.0;
#pragma unroll
  for (int arm = 0; arm < 3; arm++) { // T -= (L D_q) U, arm after arm as s7_factor_point_n
    double S[E];

#pragma unroll
    for (int q = 0; q < E; q++) {
      double s = 0;

#pragma unroll
      for (int w = 0; w < N; w++) s = S7_ADD(s, S7_MUL(Lr[arm][q][w], Dc[arm][w]));
      S[q] = s;
    }
#pragma unroll
    for (int q = 0; q < E; q++) {
      double s = 0;

#pragma unroll
      for (int w = 0; w < N; w++) s = S7_ADD(s, S7_MUL(__shfl_sync(FULL, S[q], u0 * G + w, P), Uc[arm][w]));
      if (col && u0 + q * R < N && (e.w >> arm & 1)) a[q] = S7_SUB(a[q], s);
    }
  }
  bool ok = true;
  int  piv[N];

#pragma unroll
  for (int k = 0; k < N; k++) {
    double c[N]; // column k

#pragma unroll
    for (int i = 0; i < N; i++) c[i] = __shfl_sync(FULL, a[i / R], (i % R) * G + k, P);
    // 1 / c[i] for every candidate pivot at once, then the search picks one: the same quotient as 1 / pivot, and the
    // division (a dependent chain of its own) leaves the step's critical path
    double rc[N];

#pragma unroll
    for (int i = k; i < N; i++) rc[i] = 1.0 / c[i];
    int    r    = k;
    double amax = fabs(c[k]), inv = rc[k];

#pragma unroll
    for (int i = k + 1; i < N; i++)
      if (fabs(c[i]) > amax) amax = fabs(c[i]), r = i, inv = rc[i];
    ok     = ok && amax > 0 && isfinite(amax);
    piv[k] = r;
    double       rk  = 0; // row k after the interchange (row r before it), column v

#pragma unroll
    for (int q = 0; q < E; q++) {
      const double t = __shfl_sync(FULL, a[q], (r % R) * G + v, P);

      if (r / R == q) rk = t;
    }
    const double pr = v == k ? inv : S7_MUL(rk, inv); // pivot row k scaled: a[k][k] = 1, then times inv
    double       na[E];

#pragma unroll
    for (int q = 0; q < E; q++) { // rows k and r change places
      const int u = u0 + q * R, src = u == k ? r : u == r ? k : u;

      na[q] = a[q];
#pragma unroll
      for (int qq = 0; qq < E; qq++) {
        const double t = __shfl_sync(FULL, a[qq], (src % R) * G + v, P);

        if (src / R == qq) na[q] = t;
      }
    }
#pragma unroll
    for (int q = 0; q < E; q++) {
      const int u = u0 + q * R, src = u == k ? r : u == r ? k : u;

      if (u == k) a[q] = pr;
      else {
        double f = c[0]; // a[u][k] after the interchange: column k of row src

#pragma unroll
        for (int i = 1; i < N; i++)
          if (src == i) f = c[i];
        a[q] = v == k ? S7_SUB(0.0, S7_MUL(f, pr)) : S7_SUB(na[q], S7_MUL(f, pr));
      }
    }
  }
  if (on && l == 0 && !ok) atomicMin(bad, (unsigned long long)e.x);
  int dst = v; // the column interchanges, last first, move column v to dst
#pragma unroll
  for (int k = N - 1; k >= 0; k--) dst = dst == k ? piv[k] : dst == piv[k] ? k : dst;
#pragma unroll
  for (int q = 0; q < E; q++) {
    const int u = u0 + q * R;

    if (col && u < N) dinv[(size_t)e.x * NN + u * N + dst] = a[q];
  }
}


// forward (B = 0: x_p = dinv_p (b_p - lower arms . x)) or backward (B = 1: x_p -= dinv_p (upper arms . x)); the
// factors T: the matrix's blocks and dinv (double) or the float copy (arm 3 the inverse); dstr: D's stride per point.
// Split in two: sweep_load reads what no kernel of this application writes (the lane's rows of the three arms and of
// the inverse), sweep_run reads b and the neighbours' x (through xn: global memory, or the block's plane buffers) and
// writes. (b is not read early: under programmatic dependent launch, the first plane's kernel may start before the
// kernel that wrote b has ended.)
template <int N, class T> struct sweep_pre {
  T arm[3][N], d[N];
};

template <int N, bool B, class T>
__device__ __forceinline__ void sweep_load(bool row, const int4 &e, int u, const T *__restrict__ A7,
                                           const T *__restrict__ D, int dstr, sweep_pre<N, T> &r) {
  if (!row) return;
#pragma unroll
  for (int t = 0; t < 3; t++) {
    const int arm = B ? 4 + t : t;

    if (e.w >> arm & 1) load_row<N, T>(r.arm[t], A7 + ((size_t)e.x * 7 + arm) * (N * N) + u * N);
  }
  load_row<N, T>(r.d, D + (size_t)e.x * dstr + u * N);
}

// xn(t): the neighbour along arm t (0..2: the lower ones, or the upper ones for B) as a pointer to its n values;
// bx(): row u of b_p (forward) or of x_p (backward: the forward sweep's value), called where the value is needed
// (cuda_bilu0_pipe.cu hands over a value it loaded a step ahead)
template <int N, int G, bool B, bool CG, class T, class XN, class BX>
__device__ __forceinline__ double sweep_run(bool row, const int4 &e, int u, const sweep_pre<N, T> &r, XN xn, BX bx,
                                            double *x) {
  double z = 0;

  if (row) {
    double s = 0;

#pragma unroll
    for (int t = 0; t < 3; t++) {
      if (!(e.w >> (B ? 4 + t : t) & 1)) continue;
      const double *xv = xn(t);

#pragma unroll
      for (int v = 0; v < N; v++) s = S7_ADD(s, S7_MUL((double)r.arm[t][v], ld<CG>(xv + v)));
    }
    z = B ? s : S7_SUB(bx(), s);
  }
  double q = 0;

#pragma unroll
  for (int v = 0; v < N; v++) {
    const double zv = __shfl_sync(FULL, z, v, G);

    if (row) q = S7_ADD(q, S7_MUL((double)r.d[v], zv));
  }
  if (!row) return 0;
  const double out = B ? S7_SUB(bx(), q) : q;

  x[(size_t)e.x * N + u] = out;
  return out;
}

// the same, b_p or x_p read from b or x
template <int N, int G, bool B, bool CG, class T, class XN>
__device__ __forceinline__ double sweep_run(bool row, const int4 &e, int u, const sweep_pre<N, T> &r, XN xn,
                                            const double *b, double *x) {
  return sweep_run<N, G, B, CG, T>(row, e, u, r, xn, [&] { return B ? x[(size_t)e.x * N + u] : b[(size_t)e.x * N + u]; },
                                   x);
}

template <int N, int G, bool B, bool CG, class T>
__device__ __forceinline__ void lane_sweep(bool on, const int4 &e, int u, const T *__restrict__ A7,
                                           const T *__restrict__ D, int dstr, const double *b, double *x) {
  const bool      row = on && u < N;
  sweep_pre<N, T> r;

  sweep_load<N, B, T>(row, e, u, A7, D, dstr, r);
  sweep_run<N, G, B, CG, T>(row, e, u, r, [&](int t) { return x + (size_t)nb_of(e, B ? 4 + t : t) * N; }, b, x);
}

} // namespace
