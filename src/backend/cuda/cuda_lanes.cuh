// src/backend/cuda/cuda_lanes.cuh: the "lanes" layout of an n x n block on /gpu/cuda, shared by the block ILU(0)
// kernels (cuda_bilu0.cu: stencil7; cuda_ilu0.cu: bsr). A block row (or grid point) is run by G lanes of one warp,
// G = the power of two >= n (32 / G groups per warp); lane u < n holds row u of each block it works on in
// registers, and what a lane needs of another row (the pivot column, the pivot row, z) comes by a warp shuffle. The
// arithmetic is /cpu/ref's, each product and sum rounded on its own.
#pragma once

namespace pds_lanes {

constexpr unsigned FULL = 0xffffffffu;

// G: lanes per block row (the power of two >= n)
constexpr int lanes_of(int n) { return n <= 1 ? 1 : n <= 2 ? 2 : n <= 4 ? 4 : 8; }

// a lane's row of n values (16- or 8-byte loads where n is even: every row then starts on such a boundary)
template <int N, class T> __device__ __forceinline__ void load_row(T (&d)[N], const T *src) {
  if constexpr (N % 2 == 0 && sizeof(T) == 8) {
#pragma unroll
    for (int i = 0; i < N / 2; i++) {
      const double2 v = reinterpret_cast<const double2 *>(src)[i];

      d[2 * i] = v.x, d[2 * i + 1] = v.y;
    }
  } else if constexpr (N % 2 == 0 && sizeof(T) == 4) {
#pragma unroll
    for (int i = 0; i < N / 2; i++) {
      const float2 v = reinterpret_cast<const float2 *>(src)[i];

      d[2 * i] = v.x, d[2 * i + 1] = v.y;
    }
  } else {
#pragma unroll
    for (int v = 0; v < N; v++) d[v] = src[v];
  }
}

// In place: the block whose row u lane u holds in a becomes its inverse, by pds_block_invert's Gauss-Jordan steps
// (partial pivoting, the row interchanges undone as column interchanges, last first), the pivot column and the pivot
// row taken from their lanes by shuffles. Every lane of the warp calls it (the shuffles); the lanes u >= n of a group
// compute nothing they keep. false when a pivot is zero or not finite.
template <int N, int G> __device__ __forceinline__ bool gj_invert(double (&a)[N], int u) {
  bool ok = true;
  int  piv[N];

#pragma unroll
  for (int k = 0; k < N; k++) {
    int    r    = k;
    double amax = fabs(__shfl_sync(FULL, a[k], k, G));

#pragma unroll
    for (int i = k + 1; i < N; i++) {
      const double c = fabs(__shfl_sync(FULL, a[k], i, G));

      if (c > amax) amax = c, r = i;
    }
    ok     = ok && amax > 0 && isfinite(amax);
    piv[k] = r;
    {
      const int src = u == k ? r : u == r ? k : u; // rows k and r change places

#pragma unroll
      for (int j = 0; j < N; j++) a[j] = __shfl_sync(FULL, a[j], src, G);
    }
    const double inv = 1.0 / __shfl_sync(FULL, a[k], k, G);

    if (u == k) {
      a[k] = 1.0;
#pragma unroll
      for (int j = 0; j < N; j++) a[j] = __dmul_rn(a[j], inv);
    }
    double pr[N];

#pragma unroll
    for (int j = 0; j < N; j++) pr[j] = __shfl_sync(FULL, a[j], k, G);
    if (u != k) {
      const double f = a[k];

      a[k] = 0.0;
#pragma unroll
      for (int j = 0; j < N; j++) a[j] = __dsub_rn(a[j], __dmul_rn(f, pr[j]));
    }
  }
#pragma unroll
  for (int k = N - 1; k >= 0; k--) // the row interchanges undone as column interchanges, last first
#pragma unroll
    for (int q = k + 1; q < N; q++) {
      const double t = a[k], w = a[q];

      a[k] = piv[k] == q ? w : t;
      a[q] = piv[k] == q ? t : w;
    }
  return ok;
}

} // namespace pds_lanes
