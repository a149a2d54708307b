// src/backend/cuda/cuda_csr.cu: /gpu/cuda CSR kernels: y = alpha A x + beta y with three kernels (thread per row,
// sub-warp per row, row splitting for long rows), the row statistics that choose among them, and the diagonal.
//
// Byte model of the product (what bench/gpu divides by the time): 12 nnz (8-byte value + 4-byte column index)
// + 8 (nrows + 1) (64-bit row pointers) + 8 ncols (x, each entry once: banded matrices reuse it from cache)
// + 8 nrows (y written) [+ 8 nrows when beta != 0]. Flops: 2 nnz. The transpose product (perm != NULL) reads
// 4 more bytes per entry (the permutation) and gathers the values.
//
// Which kernel runs (cuda.c, csr_plan_build, decides once per matrix from its row statistics; docs/dev.md too):
//   every row has at most 64 entries and there are at least 65536 rows (256 CTAs, enough to fill the GPU)
//           -> the stream kernel: thread per row over block-staged products (below);
//   otherwise width = lanes per row = the power of two nearest avg/2, where avg = nnz / nrows, clamped to [1, 32]
//           (width 1: the plain thread-per-row kernel; widths 2..32: the sub-warp-per-row kernel), and
//   rows with more than long_len = max(256, 64 * width) entries go to the row-splitting kernels: each is cut into
//           segments of seg entries (4096, or more so that no row has over 64 segments), one 256-thread block
//           sums a segment in a fixed tree, and one warp per row adds its segments in order.
// Measured on an H200 (bench/gpu, copy 4.19 TB/s): poisson7 256^3, stream 88% of the copy bandwidth (1.32x
// cuSPARSE), thread per row 84%, sub-warp 72% (2 lanes) and 67% (4 lanes); paper 004's 1.7M-node P1 matrix
// (bench/gpu/bench_fem2d_gpu): stream 56 us, thread per row 61, 4 lanes 66; 46k nodes (below the stream threshold):
// 4 lanes 5.2 us, thread per row 6.7, stream 7.0. On small matrices the stream kernel has too few CTAs. The thread
// and sub-warp kernels load through the cache without evict-first hints: their threads come back to the sectors
// they touched (with __ldcs thread per row was 36% of copy on poisson7 and 1.9x slower on the P1 matrix).
// All kernels write disjoint entries of y and sum each row in a fixed order: the result does not depend on timing.
// The stream kernel also takes the Krylov methods' dots of y (pds_vec_fused_apply_dot); other plans run the product
// and then a dot kernel.
#include "cuda_reduce.cuh"

#define CSR_T 256

// matrix data is streamed once (evict-first hint), x is gathered through the read-only path and stays in cache
template <bool PERM>
__device__ __forceinline__ double csr_val(const double *__restrict__ v, const pds_int *__restrict__ perm, pds_size k) {
  return PERM ? __ldg(&v[__ldcs(&perm[k])]) : __ldcs(&v[k]);
}

template <bool BETA, bool PERM>
__global__ void __launch_bounds__(CSR_T) csr_thread_k(pds_int nrows, const pds_size *__restrict__ rp,
                                                       const pds_int *__restrict__ ci, const double *__restrict__ v,
                                                       const pds_int *__restrict__ perm, double alpha,
                                                       const double *__restrict__ x, double beta,
                                                       double *__restrict__ y, pds_size long_len) {
  const pds_int i = (pds_int)(blockIdx.x * CSR_T + threadIdx.x);

  if (i >= nrows) return;
  const pds_size k0 = rp[i], k1 = rp[i + 1];
  if (k1 - k0 > long_len) return; // the row-splitting kernels own it
  double s = 0;
  // plain cached loads here, no evict-first hints: a thread reads its row's entries one by one, so the rest of each
  // 32-byte sector must survive in L1 until its next load (with __ldcs the kernel was 1.9x slower on paper 004's
  // 1.7M-node grid, H200)
  for (pds_size k = k0; k < k1; k++) s += (PERM ? __ldg(&v[__ldg(&perm[k])]) : __ldg(&v[k])) * __ldg(&x[__ldg(&ci[k])]);
  y[i] = BETA ? alpha * s + beta * y[i] : alpha * s;
}

// W lanes per row, W | 32; the lanes of a row take entries k0 + lane, k0 + lane + W, ... and add in a fixed tree
template <int W, bool BETA, bool PERM>
__global__ void __launch_bounds__(CSR_T) csr_sub_k(pds_int nrows, const pds_size *__restrict__ rp,
                                                    const pds_int *__restrict__ ci, const double *__restrict__ v,
                                                    const pds_int *__restrict__ perm, double alpha,
                                                    const double *__restrict__ x, double beta,
                                                    double *__restrict__ y, pds_size long_len) {
  const pds_size g    = (pds_size)blockIdx.x * CSR_T + threadIdx.x;
  const pds_int  i    = (pds_int)(g / W);
  const int      lane = threadIdx.x & (W - 1);
  const unsigned mask = W == 32 ? FULL : ((1u << W) - 1) << ((threadIdx.x & 31) & ~(W - 1));

  if (i >= nrows) return; // all W lanes of a row leave together
  const pds_size k0 = rp[i], k1 = rp[i + 1];
  if (k1 - k0 > long_len) return;
  double s = 0;
  // cached loads (as csr_thread_k): a row's next pass reads the rest of the sectors this pass touched
  for (pds_size k = k0 + lane; k < k1; k += W)
    s += (PERM ? __ldg(&v[__ldg(&perm[k])]) : __ldg(&v[k])) * __ldg(&x[__ldg(&ci[k])]);
#pragma unroll
  for (int o = W / 2; o > 0; o >>= 1) s += __shfl_down_sync(mask, s, o, W);
  if (lane == 0) y[i] = BETA ? alpha * s + beta * y[i] : alpha * s;
}

// Row splitting: block (slot, j) sums segment j of long row long_rows[slot] into partial[slot * nseg + j].
template <bool PERM>
__global__ void __launch_bounds__(RT) csr_seg_k(const int *__restrict__ long_rows, const pds_size *__restrict__ rp,
                                                 const pds_int *__restrict__ ci, const double *__restrict__ v,
                                                 const pds_int *__restrict__ perm, const double *__restrict__ x,
                                                 pds_size seg, int nseg, double *__restrict__ partial) {
  __shared__ double sh[1][RT / 32];
  const int         row = long_rows[blockIdx.x];
  const pds_size    k0 = rp[row] + (pds_size)blockIdx.y * seg, end = rp[row + 1];
  const pds_size    k1 = k0 + seg < end ? k0 + seg : end;
  double            s[1] = {0.0};

  if (k0 >= end) return; // past this row's last segment (the warp kernel reads only its own segments)
  for (pds_size k = k0 + threadIdx.x; k < k1; k += RT) s[0] += csr_val<PERM>(v, perm, k) * __ldg(&x[__ldcs(&ci[k])]);
  block_red<1, SumOp>(s, sh);
  if (threadIdx.x == 0) partial[(pds_size)blockIdx.x * nseg + blockIdx.y] = s[0];
}

// one warp per long row: its segments' partials in order (lane-strided, then the warp tree)
template <bool BETA>
__global__ void csr_fin_k(int nlong, const int *__restrict__ long_rows, const pds_size *__restrict__ rp, pds_size seg,
                          int nseg, const double *__restrict__ partial, double alpha, double beta,
                          double *__restrict__ y) {
  const int slot = (int)((blockIdx.x * (pds_size)blockDim.x + threadIdx.x) >> 5), lane = threadIdx.x & 31;

  if (slot >= nlong) return;
  const int      row = long_rows[slot];
  const pds_size len = rp[row + 1] - rp[row];
  const int      ns  = (int)((len + seg - 1) / seg);
  double         s   = 0;

  for (int j = lane; j < ns; j += 32) s += partial[(pds_size)slot * nseg + j];
  s = warp_red<SumOp>(s);
  if (lane == 0) y[row] = BETA ? alpha * s + beta * y[row] : alpha * s;
}

// Thread per row over block-staged products ("stream"): a CTA takes 256 consecutive rows; their entries are one
// contiguous run [rp[r0], rp[r0 + 256]), which the CTA reads in tiles of ST_NNZ entries, each thread loading
// ST_NNZ / 256 values, column indices and x entries, all independent (coalesced 8-byte loads, many in flight), and
// stores the products v_k x_{c_k} in shared memory; then thread i adds the products of its row in order. The
// arithmetic is ref's (products rounded, then added one by one from s = 0), so the result has ref's bits when
// beta = 0. A fixed grid (at most PDS_CUDA_RED_MAXBLOCK CTAs, a function of nrows) strides over the row chunks,
// so ND > 0 dots of y (with w1, and w2 or y itself when SQ) end in the deterministic grid reduction.
#define ST_NNZ 2048
template <bool BETA, bool PERM, int ND, bool SQ>
__global__ void __launch_bounds__(CSR_T) csr_stream_k(pds_int nrows, const pds_size *__restrict__ rp,
                                                       const pds_int *__restrict__ ci, const double *__restrict__ v,
                                                       const pds_int *__restrict__ perm, double alpha,
                                                       const double *__restrict__ x, double beta, double *y,
                                                       const double *__restrict__ w1, const double *w2,
                                                       pds_cuda_red red, double *out) {
  __shared__ double prod[ST_NNZ];
  double            acc[ND > 0 ? ND : 1];

#pragma unroll
  for (int o = 0; o < (ND > 0 ? ND : 1); o++) acc[o] = 0;
  for (pds_size r0 = (pds_size)blockIdx.x * CSR_T; r0 < (pds_size)nrows; r0 += (pds_size)gridDim.x * CSR_T) {
    const pds_size r1 = r0 + CSR_T < (pds_size)nrows ? r0 + CSR_T : (pds_size)nrows, i = r0 + threadIdx.x;
    const pds_size base = rp[r0], end = rp[r1];
    pds_size       my0 = 0, my1 = 0;
    double         s   = 0;

    double         w1i = 0, w2i = 0; /* loaded early: they arrive while the tile is staged */

    if (i < r1) {
      my0 = rp[i], my1 = rp[i + 1];
      if (ND > 0) w1i = w1[i];
      if (ND > 1 && !SQ) w2i = w2[i];
    }
    for (pds_size t0 = base; t0 < end; t0 += ST_NNZ) {
      const pds_size t1 = t0 + ST_NNZ < end ? t0 + ST_NNZ : end;

      constexpr int J = ST_NNZ / CSR_T;
      double        a[J], xv[J];
      pds_int       c[J];

      /* all loads first, from addresses clamped into the tile (no branches), then the products */
#pragma unroll
      for (int j = 0; j < J; j++) {
        const pds_size k = t0 + threadIdx.x + (pds_size)j * CSR_T, kk = k < t1 ? k : t1 - 1;

        a[j] = csr_val<PERM>(v, perm, kk);
        c[j] = __ldcs(&ci[kk]);
      }
#pragma unroll
      for (int j = 0; j < J; j++) xv[j] = __ldg(&x[c[j]]);
#pragma unroll
      for (int j = 0; j < J; j++)
        if (t0 + threadIdx.x + (pds_size)j * CSR_T < t1) prod[threadIdx.x + j * CSR_T] = __dmul_rn(a[j], xv[j]);
      __syncthreads();
      const pds_size ka = my0 > t0 ? my0 : t0, kb = my1 < t1 ? my1 : t1;

      for (pds_size k = ka; k < kb; k++) s = __dadd_rn(s, prod[k - t0]);
      __syncthreads();
    }
    if (i < r1) {
      const double yi = BETA ? __dadd_rn(__dmul_rn(alpha, s), __dmul_rn(beta, y[i])) : __dmul_rn(alpha, s);

      y[i] = yi;
      if (ND > 0) acc[0] += yi * w1i;
      if (ND > 1) acc[ND - 1] += SQ ? yi * yi : yi * w2i;
    }
  }
  if (ND > 0) grid_red<(ND > 0 ? ND : 1), SumOp>(acc, red, out);
}

// row statistics: longest row (warp maximum, then one 64-bit integer atomicMax per warp), and the rows longer
// than long_len (their order in the list varies from run to run; the products do not depend on it)
__global__ void csr_analyze_k(pds_int nrows, const pds_size *__restrict__ rp, pds_size long_len,
                              unsigned long long *stats, int *long_rows, int cap) {
  const pds_int      i   = (pds_int)(blockIdx.x * (pds_size)blockDim.x + threadIdx.x);
  unsigned long long len = i < nrows ? (unsigned long long)(rp[i + 1] - rp[i]) : 0;
  unsigned long long m   = len;

#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    unsigned long long t = __shfl_down_sync(FULL, m, o);

    m = t > m ? t : m;
  }
  if ((threadIdx.x & 31) == 0 && m > 0) atomicMax(&stats[0], m);
  if (i < nrows && len > (unsigned long long)long_len) {
    unsigned long long slot = atomicAdd(&stats[1], 1ull);

    if (slot < (unsigned long long)cap) long_rows[slot] = i;
  }
}

__global__ void csr_diag_k(pds_int n, const pds_size *__restrict__ rp, const pds_int *__restrict__ ci,
                           const double *__restrict__ v, double *__restrict__ d) {
  const pds_int i = (pds_int)(blockIdx.x * (pds_size)blockDim.x + threadIdx.x);

  if (i >= n) return;
  double s = 0;
  for (pds_size k = rp[i]; k < rp[i + 1]; k++)
    if (ci[k] == i) s += v[k];
  d[i] = s;
}

static unsigned stream_blocks(pds_int nrows) { return PDS_CUDA_RED_BLOCKS(((pds_size)nrows + CSR_T - 1) / CSR_T * 2048); }

template <bool BETA, bool PERM>
static void csr_launch(cudaStream_t s, const pds_cuda_csr_plan *pl, pds_int nrows, const pds_size *rp,
                       const pds_int *ci, const double *v, const pds_int *perm, double alpha, const double *x,
                       double beta, double *y) {
  const pds_size L = pl->long_len;
  const unsigned g = (unsigned)(((pds_size)nrows * pl->width + CSR_T - 1) / CSR_T);

  if (pl->stream) {
    pds_cuda_red none = {NULL, NULL};

    csr_stream_k<BETA, PERM, 0, false><<<stream_blocks(nrows), CSR_T, 0, s>>>(nrows, rp, ci, v, perm, alpha, x, beta,
                                                                             y, NULL, NULL, none, NULL);
    return;
  }
  switch (pl->width) {
  case 1: csr_thread_k<BETA, PERM><<<g, CSR_T, 0, s>>>(nrows, rp, ci, v, perm, alpha, x, beta, y, L); break;
  case 2: csr_sub_k<2, BETA, PERM><<<g, CSR_T, 0, s>>>(nrows, rp, ci, v, perm, alpha, x, beta, y, L); break;
  case 4: csr_sub_k<4, BETA, PERM><<<g, CSR_T, 0, s>>>(nrows, rp, ci, v, perm, alpha, x, beta, y, L); break;
  case 8: csr_sub_k<8, BETA, PERM><<<g, CSR_T, 0, s>>>(nrows, rp, ci, v, perm, alpha, x, beta, y, L); break;
  case 16: csr_sub_k<16, BETA, PERM><<<g, CSR_T, 0, s>>>(nrows, rp, ci, v, perm, alpha, x, beta, y, L); break;
  default: csr_sub_k<32, BETA, PERM><<<g, CSR_T, 0, s>>>(nrows, rp, ci, v, perm, alpha, x, beta, y, L); break;
  }
  if (pl->nlong > 0) {
    csr_seg_k<PERM><<<dim3((unsigned)pl->nlong, (unsigned)pl->nseg), RT, 0, s>>>(pl->long_rows, rp, ci, v, perm, x,
                                                                               pl->seg, pl->nseg, pl->partial);
    csr_fin_k<BETA><<<(unsigned)((pl->nlong + 7) / 8), 256, 0, s>>>(pl->nlong, pl->long_rows, rp, pl->seg, pl->nseg,
                                                                   pl->partial, alpha, beta, y);
  }
}

extern "C" {

cudaError_t pds_cuda_csr_analyze(cudaStream_t s, pds_int nrows, const pds_size *rowptr, pds_size long_len,
                                 unsigned long long *stats, int *long_rows, int cap) {
  cudaError_t e = cudaMemsetAsync(stats, 0, 2 * sizeof *stats, s);

  if (e != cudaSuccess || nrows <= 0) return e;
  csr_analyze_k<<<(unsigned)((nrows + 255) / 256), 256, 0, s>>>(nrows, rowptr, long_len, stats, long_rows, cap);
  return cudaGetLastError();
}

cudaError_t pds_cuda_csr_spmv(cudaStream_t s, const pds_cuda_csr_plan *plan, pds_int nrows, const pds_size *rowptr,
                              const pds_int *colidx, const pds_real *vals, const pds_int *perm, pds_real alpha,
                              const pds_real *x, pds_real beta, pds_real *y) {
  if (nrows <= 0) return cudaSuccess;
  if (beta != 0) {
    if (perm) csr_launch<true, true>(s, plan, nrows, rowptr, colidx, vals, perm, alpha, x, beta, y);
    else csr_launch<true, false>(s, plan, nrows, rowptr, colidx, vals, perm, alpha, x, beta, y);
  } else {
    if (perm) csr_launch<false, true>(s, plan, nrows, rowptr, colidx, vals, perm, alpha, x, beta, y);
    else csr_launch<false, false>(s, plan, nrows, rowptr, colidx, vals, perm, alpha, x, beta, y);
  }
  return cudaGetLastError();
}

cudaError_t pds_cuda_csr_spmv_dot(cudaStream_t s, const pds_cuda_csr_plan *plan, pds_cuda_red red, pds_int nrows,
                                  const pds_size *rowptr, const pds_int *colidx, const pds_real *vals,
                                  const pds_real *x, pds_real *y, const pds_real *w1, const pds_real *w2,
                                  pds_real *out) {
  const unsigned g = stream_blocks(nrows);

  if (!plan->stream) return cudaErrorNotSupported;
  if (!w2)
    csr_stream_k<false, false, 1, false><<<g, CSR_T, 0, s>>>(nrows, rowptr, colidx, vals, NULL, 1.0, x, 0.0, y, w1,
                                                            NULL, red, out);
  else if (w2 == y)
    csr_stream_k<false, false, 2, true><<<g, CSR_T, 0, s>>>(nrows, rowptr, colidx, vals, NULL, 1.0, x, 0.0, y, w1,
                                                           NULL, red, out);
  else
    csr_stream_k<false, false, 2, false><<<g, CSR_T, 0, s>>>(nrows, rowptr, colidx, vals, NULL, 1.0, x, 0.0, y, w1,
                                                            w2, red, out);
  return cudaGetLastError();
}

cudaError_t pds_cuda_csr_diag(cudaStream_t s, pds_int n, const pds_size *rowptr, const pds_int *colidx,
                              const pds_real *vals, pds_real *d) {
  if (n <= 0) return cudaSuccess;
  csr_diag_k<<<(unsigned)((n + 255) / 256), 256, 0, s>>>(n, rowptr, colidx, vals, d);
  return cudaGetLastError();
}

} // extern "C"
