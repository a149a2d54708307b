// src/backend/cuda/cuda_reduce.cuh: the fixed-order reduction trees of /gpu/cuda, shared by its kernels
// (cuda_common.h says why they are deterministic).
#ifndef PDS_CUDA_REDUCE_CUH
#define PDS_CUDA_REDUCE_CUH

#include "cuda_common.h"

#define RT   PDS_CUDA_RED_THREADS
#define FULL 0xffffffffu

struct SumOp {
  __device__ static double id() { return 0.0; }
  __device__ static double comb(double a, double b) { return a + b; }
};
struct MaxAbsOp { // the inputs are absolute values already; NaN wins
  __device__ static double id() { return 0.0; }
  __device__ static double comb(double a, double b) { return a != a ? a : b != b ? b : (a > b ? a : b); }
};

// lane 0 gets the warp's combination, in the fixed tree 16, 8, 4, 2, 1
template <class Op> __device__ __forceinline__ double warp_red(double v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = Op::comb(v, __shfl_down_sync(FULL, v, o));
  return v;
}

// thread 0 gets the block's combination: warp trees, then the 8 warp results in warp 0's tree
template <int NOUT, class Op> __device__ __forceinline__ void block_red(double (&v)[NOUT], double (*sh)[RT / 32]) {
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;

#pragma unroll
  for (int o = 0; o < NOUT; o++) v[o] = warp_red<Op>(v[o]);
  if (lane == 0)
#pragma unroll
    for (int o = 0; o < NOUT; o++) sh[o][w] = v[o];
  __syncthreads();
  if (w == 0)
#pragma unroll
    for (int o = 0; o < NOUT; o++) v[o] = warp_red<Op>(lane < RT / 32 ? sh[o][lane] : Op::id());
}

// Each block's partials, then the last block to finish combines them in fixed order and writes out[0..NOUT); returns
// true in the thread that wrote out (thread 0 of that block), after the write. One block: its sum is the result, and
// the second pass would only combine it with the operation's identity (Op::comb(id, v), the same bits: a sum's -0
// becomes +0), so it writes that at once.
template <int NOUT, class Op>
__device__ __forceinline__ bool grid_red(double (&v)[NOUT], const pds_cuda_red &red, double *out) {
  __shared__ double sh[NOUT][RT / 32];
  __shared__ bool   last;

  block_red<NOUT, Op>(v, sh);
  if (gridDim.x == 1) {
    if (threadIdx.x != 0) return false;
#pragma unroll
    for (int o = 0; o < NOUT; o++) out[o] = Op::comb(Op::id(), v[o]);
    return true;
  }
  if (threadIdx.x == 0) {
#pragma unroll
    for (int o = 0; o < NOUT; o++) red.partial[o * PDS_CUDA_RED_MAXBLOCK + blockIdx.x] = v[o];
    __threadfence();
    last = atomicAdd(red.counter, 1u) == gridDim.x - 1; // an integer counter: the only atomic
  }
  __syncthreads();
  if (!last) return false;
  __threadfence();
#pragma unroll
  for (int o = 0; o < NOUT; o++) {
    const double *p = red.partial + o * PDS_CUDA_RED_MAXBLOCK;
    double        a = Op::id();
    unsigned      b = threadIdx.x;

    for (; b + 7 * RT < gridDim.x; b += 8 * RT) { /* eight loads in flight, combined in the same fixed order */
      double q[8];

#pragma unroll
      for (int u = 0; u < 8; u++) q[u] = __ldcg(&p[b + u * RT]);
#pragma unroll
      for (int u = 0; u < 8; u++) a = Op::comb(a, q[u]);
    }
    for (; b < gridDim.x; b += RT) a = Op::comb(a, __ldcg(&p[b]));
    v[o] = a;
  }
  __syncthreads(); // sh is reused
  block_red<NOUT, Op>(v, sh);
  if (threadIdx.x != 0) return false;
#pragma unroll
  for (int o = 0; o < NOUT; o++) out[o] = v[o];
  *red.counter = 0;
  return true;
}

#endif
