// src/backend/cuda/cuda_stencil7.cu: the stencil7 product y = alpha A x + beta y on /gpu/cuda (src/mat/stencil7.c),
// over all grids of a matrix in one launch per PDS_CUDA_S7_GRIDS grids (the grids ride in the kernel's parameters:
// no table to upload or cache).
//
// Layout. The library stores each point's 7 blocks together, [point][arm][n][n] row-major ("point-major"), and the
// kernel runs n threads per point, thread u the row u of every block: the n threads of a point read its 7 n^2
// values as one contiguous stretch, consecutive points follow, so a warp's loads are whole 32-byte sectors, and x of
// a neighbour is one n-value stretch read by the point's n threads together. The other layout measured
// (bench/gpu/bench_bilu, "layout" lines): entry-major [arm][n][n][point], thread per (point, row), the same entry of
// consecutive points side by side (the classic coalescing of structured-grid codes); its loads are as coalesced but
// every thread reads x of 7 neighbours at a stride of n values, and it needs a transpose of the matrix the CPU
// backends and the conversions do not. The point-major kernel is kept (numbers in docs/bilu0.md).
//
// Byte model per point (8-byte reals): 56 n^2 (the 7 blocks) + 8 n (y written) + 8 n (x, each value reused by the
// 7 points that read it, through L1/L2) [+ 8 n for beta != 0]; 14 n^2 flops. Rounding: cuda_stencil7.cuh.
#include "../../mat/mat_kernels.h"
#include "cuda_stencil7.cuh"

namespace {

// the grid of point p: the last of the chunk's grids that starts at or before it
__device__ __forceinline__ int s7_grid_of(const pds_cuda_s7_grids &G, pds_size p) {
  int lo = 0, hi = G.ng - 1;

  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;

    if (G.first[mid] <= p) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

// point p's arms in its grid (s7_mask) and the grid's strides
__device__ __forceinline__ unsigned s7_locate(const pds_cuda_s7_grids &G, pds_size p, int *K, long long *JK) {
  const int       q = s7_grid_of(G, p);
  const long long l = (long long)(p - G.first[q]);

  *K = G.K[q], *JK = (long long)G.J[q] * G.K[q];
  return s7_mask(G.I[q], G.J[q], G.K[q], (int)(l / *JK), (int)(l / *K % G.J[q]), (int)(l % *K));
}

// EM = 0, point-major: thread t = n threads per point, row u = t % N; EM = 1, entry-major (the layout study only):
// vals[((a N + u) N + v) np + p], thread t: p = t % cnt, u = t / cnt
template <int N, int EM>
__global__ void s7_spmv_k(pds_cuda_s7_grids G, pds_size p0, long long cnt, pds_size np, pds_real alpha,
                          const pds_real *__restrict__ vals, const pds_real *__restrict__ x, pds_real beta,
                          pds_real *__restrict__ y) {
  const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;

  if (t >= cnt * N) return;
  const pds_size p = p0 + (EM ? t % cnt : t / N);
  const int      u = (int)(EM ? t / cnt : t % N);
  int            K;
  long long      JK;
  const unsigned m = s7_locate(G, p, &K, &JK);
  double         s = 0;

#pragma unroll
  for (int a = 0; a < 7; a++) {
    if (!(m >> a & 1u)) continue;
    const pds_real *xn = x + (size_t)((long long)p + s7_off(a, K, JK)) * N;

#pragma unroll
    for (int v = 0; v < N; v++) {
      const pds_real av = EM ? vals[((size_t)(a * N + u) * N + v) * np + p] : vals[((size_t)p * 7 + a) * (N * N) + u * N + v];

      s = S7_ADD(s, S7_MUL(av, xn[v]));
    }
  }
  y[(size_t)p * N + u] = beta == 0 ? S7_MUL(alpha, s) : S7_ADD(S7_MUL(alpha, s), S7_MUL(beta, y[(size_t)p * N + u]));
}

__global__ void s7_to_em_k(pds_size np, int n, const pds_real *__restrict__ in, pds_real *__restrict__ out) {
  const pds_size e = (pds_size)blockIdx.x * blockDim.x + threadIdx.x, per = (pds_size)7 * n * n;

  if (e >= np * per) return;
  out[(e % per) * np + e / per] = in[e];
}

template <int N>
cudaError_t spmv_chunk(cudaStream_t s, int layout, const pds_cuda_s7_grids &G, pds_size p0, pds_size cnt,
                       pds_size np, pds_real alpha, const pds_real *vals, const pds_real *x, pds_real beta,
                       pds_real *y) {
  const unsigned nb = (unsigned)(((long long)cnt * N + 255) / 256);

  if (layout == PDS_CUDA_S7_POINT_MAJOR) s7_spmv_k<N, 0><<<nb, 256, 0, s>>>(G, p0, (long long)cnt, np, alpha, vals, x, beta, y);
  else s7_spmv_k<N, 1><<<nb, 256, 0, s>>>(G, p0, (long long)cnt, np, alpha, vals, x, beta, y);
  return cudaGetLastError();
}

} // namespace

extern "C" {

cudaError_t pds_cuda_s7_spmv(cudaStream_t s, int layout, const struct pds_stencil7 *g, int nb, pds_size np,
                             int n, pds_real alpha, const pds_real *vals, const pds_real *x, pds_real beta,
                             pds_real *y) {
  for (int q0 = 0; q0 < nb; q0 += PDS_CUDA_S7_GRIDS) {
    pds_cuda_s7_grids G;
    const int         ng = nb - q0 < PDS_CUDA_S7_GRIDS ? nb - q0 : PDS_CUDA_S7_GRIDS;
    pds_size          cnt = 0;
    cudaError_t       e;

    G.ng = ng;
    for (int q = 0; q < ng; q++) {
      G.first[q] = g[q0 + q].first, G.I[q] = g[q0 + q].I, G.J[q] = g[q0 + q].J, G.K[q] = g[q0 + q].K;
      cnt += (pds_size)G.I[q] * G.J[q] * G.K[q];
    }
    if (cnt == 0) continue;
    switch (n) {
    case 1: e = spmv_chunk<1>(s, layout, G, G.first[0], cnt, np, alpha, vals, x, beta, y); break;
    case 2: e = spmv_chunk<2>(s, layout, G, G.first[0], cnt, np, alpha, vals, x, beta, y); break;
    case 3: e = spmv_chunk<3>(s, layout, G, G.first[0], cnt, np, alpha, vals, x, beta, y); break;
    case 4: e = spmv_chunk<4>(s, layout, G, G.first[0], cnt, np, alpha, vals, x, beta, y); break;
    case 5: e = spmv_chunk<5>(s, layout, G, G.first[0], cnt, np, alpha, vals, x, beta, y); break;
    case 6: e = spmv_chunk<6>(s, layout, G, G.first[0], cnt, np, alpha, vals, x, beta, y); break;
    case 7: e = spmv_chunk<7>(s, layout, G, G.first[0], cnt, np, alpha, vals, x, beta, y); break;
    case 8: e = spmv_chunk<8>(s, layout, G, G.first[0], cnt, np, alpha, vals, x, beta, y); break;
    default: return cudaErrorInvalidValue;
    }
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

cudaError_t pds_cuda_s7_to_entry_major(cudaStream_t s, pds_size np, int n, const pds_real *vals, pds_real *out) {
  const pds_size all = np * 7 * n * n;

  if (all == 0) return cudaSuccess;
  s7_to_em_k<<<(unsigned)((all + 255) / 256), 256, 0, s>>>(np, n, vals, out);
  return cudaGetLastError();
}

} // extern "C"
