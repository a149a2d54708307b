// src/backend/cuda/cuda_small.cu: one whole CG or BiCGSTAB iteration (no preconditioner) in one launch of one
// 1024-thread block, for systems of at most 2048 unknowns whose product plan is thread- or sub-warp-per-row.
//
// Why: on such a system an iteration is 3 to 7 kernels of a few microseconds each, all launch and latency (about
// 20 us on an H100 in a device loop, docs/dev.md); here it is one kernel whose phases meet at __syncthreads.
// The bits are those of the kernel sequence (cuda_csr.cu, cuda_vec.cu), because each phase is that sequence's
// arithmetic in that order: with n <= 2048 every reduction of the sequence is one block (PDS_CUDA_RED_BLOCKS), whose
// thread t adds the entries t, t + 256, ... in order, whose tree is block_red's and whose result is 0 + the block's
// sum (grid_red's one-block path); the product's rows are summed as csr_thread_k / csr_sub_k<W> sum them (lane l of
// a row takes the entries k0 + l, k0 + l + W, ..., then the shuffle tree); the elementwise updates are cuda_vec.cu's
// expressions, with the literal 1.0 where those kernels have it and the runtime `one` where they have that, and this
// file is compiled as cuda_vec.cu and cuda_csr.cu are (multiply-add contraction on), so each expression contracts
// alike. tests/cuda/tc05_small checks it: the fused iteration against the kernel sequence (PDS_CUDA_SMALL=0), bit for
// bit. The step (krylov_step.h) runs in thread 0 where the sequence runs it, with the device loop's record.
// Bytes per BiCGSTAB iteration: the sequence's, but the block's loads after the first phase come mostly from L1/L2
// (2048 doubles are 16 KB): the cost is latency, not bandwidth. So the block has 1024 threads (a 256-thread block
// took 20 us per BiCGSTAB iteration on 450 unknowns, H100: seven dependent passes over the rows per product): the
// products and updates use all of them; the reductions use the first 256, in the sequence's order (the others add
// nothing and only meet the barriers).
#include "cuda_krylov.cuh"
#include "cuda_launch.cuh"
#include "cuda_reduce.cuh"

#define SM_T 1024 // threads of the block; the reductions use the first RT (256) of them, as the sequence's block

// y = A x for all rows (alpha = one, a runtime 1.0 as csr_spmv_dot passes it; beta 0), csr_thread_k's (W = 1) or
// csr_sub_k<W>'s arithmetic per row; no row is longer than the plan's long_len (the caller checked: nlong = 0).
// x is read with plain loads, not through the read-only path: the block wrote it earlier in this kernel.
template <int W>
__device__ __forceinline__ void small_spmv(pds_int nrows, const pds_size *__restrict__ rp,
                                           const pds_int *__restrict__ ci, const double *__restrict__ v, double one,
                                           const double *x, double *y) {
  const int      lane = threadIdx.x & (W - 1);
  const unsigned mask = W == 32 ? FULL : ((1u << W) - 1) << ((threadIdx.x & 31) & ~(W - 1));

  for (pds_size g = threadIdx.x; g < (pds_size)nrows * W; g += SM_T) {
    const pds_int  i  = (pds_int)(g / W);
    const pds_size k0 = rp[i], k1 = rp[i + 1];
    double         s  = 0;

    if (W == 1) {
      for (pds_size k = k0; k < k1; k++) s += __ldg(&v[k]) * x[__ldg(&ci[k])];
      y[i] = one * s;
    } else {
      for (pds_size k = k0 + lane; k < k1; k += W) s += __ldg(&v[k]) * x[__ldg(&ci[k])];
#pragma unroll
      for (int o = W / 2; o > 0; o >>= 1) s += __shfl_down_sync(mask, s, o, W);
      if (lane == 0) y[i] = one * s;
    }
  }
}

// thread 0 gets the block's sums and stores 0 + each at out (grid_red's one-block result): block_red's tree over the
// first RT threads (warps 0..7), the other warps only meeting the barriers
template <int NOUT> __device__ __forceinline__ void small_store(double (&v)[NOUT], double *out) {
  __shared__ double sh[NOUT][RT / 32];
  const int         lane = threadIdx.x & 31, w = threadIdx.x >> 5;

#pragma unroll
  for (int o = 0; o < NOUT; o++) v[o] = warp_red<SumOp>(v[o]);
  if (lane == 0 && w < RT / 32)
#pragma unroll
    for (int o = 0; o < NOUT; o++) sh[o][w] = v[o];
  __syncthreads();
  if (w == 0) {
#pragma unroll
    for (int o = 0; o < NOUT; o++) v[o] = warp_red<SumOp>(lane < RT / 32 ? sh[o][lane] : SumOp::id());
    if (lane == 0)
#pragma unroll
      for (int o = 0; o < NOUT; o++) out[o] = SumOp::comb(SumOp::id(), v[o]);
  }
  __syncthreads(); // out is read next, sh reused
}

// CG without a preconditioner: q = A p; S0 = (q, p); r = -a q + 1 r, a = S[RHO] / S0; S1 = (r, r); the step;
// x += alpha p; p = r + beta p (cg.c's body: pds_vec_fused_apply_dot, _cg_r with the step, _cg_xp with z = r)
template <int W>
__global__ void __launch_bounds__(SM_T) cg_small_k(pds_int n, const pds_size *__restrict__ rp,
                                                   const pds_int *__restrict__ ci, const double *__restrict__ av,
                                                   double *x, double *r, double *p, double *q, double *S,
                                                   pds_cuda_loop_dev lp, int in_loop, double one) {
  pds_grid_dep();
  small_spmv<W>(n, rp, ci, av, one, p, q);
  __syncthreads();
  {
    double v[1] = {0.0};

    if (threadIdx.x < RT)
      for (pds_int i = threadIdx.x; i < n; i += RT) v[0] += q[i] * p[i]; // dot_k(y = q, w1 = p)
    small_store<1>(v, S);
  }
  {
    const double a = pds_ks_ratio(S, PDS_KS_RHO, 0);
    double       v[1] = {0.0};

    if (threadIdx.x < RT) // the reduction: the sequence's 256 threads, in its order
      for (pds_int i = threadIdx.x; i < n; i += RT) {
        double ri = -a * q[i] + 1.0 * r[i];

        r[i] = ri;
        v[0] += ri * ri;
      }
    small_store<1>(v, S + 1);
  }
  if (threadIdx.x == 0) ks_step_dev(PDS_KS_STEP_CG, S, lp, in_loop);
  __syncthreads();
  { // cg_xp_k with z = r
    const int    m     = (int)S[PDS_KS_XP];
    const double alpha = S[PDS_KS_ALPHA], beta = S[PDS_KS_BETA];

    if (m == (PDS_KS_XP_X | PDS_KS_XP_P)) {
      for (pds_int i = threadIdx.x; i < n; i += SM_T) {
        double pi = p[i];

        x[i] = alpha * pi + 1.0 * x[i];
        p[i] = 1.0 * r[i] + beta * pi;
      }
      return;
    }
    if (m & PDS_KS_XP_X)
      for (pds_int i = threadIdx.x; i < n; i += SM_T) x[i] = alpha * p[i] + one * x[i];
    if (m & PDS_KS_XP_P)
      for (pds_int i = threadIdx.x; i < n; i += SM_T) p[i] = one * r[i] + beta * p[i];
  }
}

// BiCGSTAB without a preconditioner (ph = p, sh = s): v = A p; S0 = (v, rhat); s = -a v + 1 r, a = S[RHO] / S0;
// S1 = (s, s); t = A s; S2 = (t, s), S3 = (t, t); r = -o t + 1 s, o = S2 / S3; S4 = (r, rhat), S5 = (r, r); the step;
// the x / p update (bicgstab.c's body)
template <int W>
__global__ void __launch_bounds__(SM_T) bicg_small_k(pds_int n, const pds_size *__restrict__ rp,
                                                     const pds_int *__restrict__ ci, const double *__restrict__ av,
                                                     double *x, double *r, const double *rhat, double *p, double *vv,
                                                     double *sv, double *t, double *S, pds_cuda_loop_dev lp,
                                                     int in_loop, double one) {
  pds_grid_dep();
  small_spmv<W>(n, rp, ci, av, one, p, vv);
  __syncthreads();
  {
    double v[1] = {0.0};

    if (threadIdx.x < RT)
      for (pds_int i = threadIdx.x; i < n; i += RT) v[0] += vv[i] * rhat[i]; // dot_k(y = v, w1 = rhat)
    small_store<1>(v, S);
  }
  { // bicg_s_k
    const double a = pds_ks_ratio(S, PDS_KS_RHO, 0);
    double       v[1] = {0.0};

    if (threadIdx.x < RT) // the reduction: the sequence's 256 threads, in its order
      for (pds_int i = threadIdx.x; i < n; i += RT) {
        double wi = -a * vv[i] + 1.0 * r[i];

        sv[i] = wi;
        v[0] += wi * wi;
      }
    small_store<1>(v, S + 1);
  }
  small_spmv<W>(n, rp, ci, av, one, sv, t);
  __syncthreads();
  {
    double v[2] = {0.0, 0.0};

    if (threadIdx.x < RT) // the reduction: the sequence's 256 threads, in its order
      for (pds_int i = threadIdx.x; i < n; i += RT) { // dot2_k(x = t, y = s, z = t)
        double xi = t[i];

        v[0] += xi * sv[i];
        v[1] += xi * t[i];
      }
    small_store<2>(v, S + 2);
  }
  { // bicg_r_k
    const double o = pds_ks_ratio(S, 2, 3);
    double       v[2] = {0.0, 0.0};

    if (threadIdx.x < RT) // the reduction: the sequence's 256 threads, in its order
      for (pds_int i = threadIdx.x; i < n; i += RT) {
        double ri = -o * t[i] + 1.0 * sv[i];

        r[i] = ri;
        v[0] += ri * rhat[i];
        v[1] += ri * ri;
      }
    small_store<2>(v, S + 4);
  }
  if (threadIdx.x == 0) ks_step_dev(PDS_KS_STEP_BICG, S, lp, in_loop);
  __syncthreads();
  { // bicg_xp_k with ph = p, sh = s
    const int    m     = (int)S[PDS_KS_XP];
    const double alpha = S[PDS_KS_ALPHA], omega = S[PDS_KS_OMEGA], beta = S[PDS_KS_BETA], bo = -beta * omega;

    if (m == (PDS_KS_XP_X | PDS_KS_XP_P)) {
      for (pds_int i = threadIdx.x; i < n; i += SM_T) {
        double phi = p[i], pi = p[i], shi = sv[i], ri = r[i], vi = vv[i], xi = x[i];

        x[i] = alpha * phi + omega * shi + 1.0 * xi;
        p[i] = 1.0 * ri + bo * vi + beta * pi;
      }
      return;
    }
    if (m & PDS_KS_XP_X)
      for (pds_int i = threadIdx.x; i < n; i += SM_T) x[i] = alpha * p[i] + omega * sv[i] + one * x[i];
    if (m & PDS_KS_XP_HALF)
      for (pds_int i = threadIdx.x; i < n; i += SM_T) x[i] = alpha * p[i] + one * x[i];
    if (m & PDS_KS_XP_P)
      for (pds_int i = threadIdx.x; i < n; i += SM_T) p[i] = one * r[i] + bo * vv[i] + beta * p[i];
  }
}

#define SMALL_CASES(K, ...)                                                                                  \
  switch (width) {                                                                                           \
  case 1: return pds_launch(K<1>, 1, SM_T, 0, s, __VA_ARGS__);                                               \
  case 2: return pds_launch(K<2>, 1, SM_T, 0, s, __VA_ARGS__);                                               \
  case 4: return pds_launch(K<4>, 1, SM_T, 0, s, __VA_ARGS__);                                               \
  case 8: return pds_launch(K<8>, 1, SM_T, 0, s, __VA_ARGS__);                                               \
  case 16: return pds_launch(K<16>, 1, SM_T, 0, s, __VA_ARGS__);                                             \
  case 32: return pds_launch(K<32>, 1, SM_T, 0, s, __VA_ARGS__);                                             \
  default: return cudaErrorNotSupported;                                                                     \
  }

extern "C" {

cudaError_t pds_cuda_cg_small(cudaStream_t s, int width, pds_int n, const pds_size *rp, const pds_int *ci,
                              const pds_real *av, pds_real *x, pds_real *r, pds_real *p, pds_real *q, pds_real *S,
                              const pds_cuda_loop_dev *lp) {
  pds_cuda_loop_dev none = {};

  if (n > PDS_CUDA_SMALL_N) return cudaErrorNotSupported;
  SMALL_CASES(cg_small_k, n, rp, ci, av, x, r, p, q, S, lp ? *lp : none, (int)(lp != NULL), 1.0)
}

cudaError_t pds_cuda_bicg_small(cudaStream_t s, int width, pds_int n, const pds_size *rp, const pds_int *ci,
                                const pds_real *av, pds_real *x, pds_real *r, const pds_real *rhat, pds_real *p,
                                pds_real *v, pds_real *sv, pds_real *t, pds_real *S, const pds_cuda_loop_dev *lp) {
  pds_cuda_loop_dev none = {};

  if (n > PDS_CUDA_SMALL_N) return cudaErrorNotSupported;
  SMALL_CASES(bicg_small_k, n, rp, ci, av, x, r, rhat, p, v, sv, t, S, lp ? *lp : none, (int)(lp != NULL), 1.0)
}

} // extern "C"
