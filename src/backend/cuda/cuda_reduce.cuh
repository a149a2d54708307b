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

// the last block's second pass: thread 0 gets the combination of the G partials of each output (thread t takes
// partials t, t + RT, ..., eight loads in flight, combined in that order; then block_red's tree)
template <int NOUT, class Op>
__device__ __forceinline__ void red_second(double (&v)[NOUT], const pds_cuda_red &red, unsigned G,
                                           double (*sh)[RT / 32]) {
#pragma unroll
  for (int o = 0; o < NOUT; o++) {
    const double *p = red.partial + o * PDS_CUDA_RED_MAXBLOCK;
    double        a = Op::id();
    unsigned      b = threadIdx.x;

    for (; b + 7 * RT < G; b += 8 * RT) {
      double q[8];

#pragma unroll
      for (int u = 0; u < 8; u++) q[u] = __ldcg(&p[b + u * RT]);
#pragma unroll
      for (int u = 0; u < 8; u++) a = Op::comb(a, q[u]);
    }
    for (; b < G; b += RT) a = Op::comb(a, __ldcg(&p[b]));
    v[o] = a;
  }
  block_red<NOUT, Op>(v, sh);
}

// A reduction of G "virtual blocks" (G = PDS_CUDA_RED_BLOCKS(n) for the vector kernels: a function of n alone) run
// by the launch's gridDim.x <= G blocks: block b takes virtual blocks b, b + gridDim.x, ...; for each, vblock(vb, v)
// sums its entries into v (v starts at Op::id()), the block's tree combines them and thread 0 stores the partial of
// vb; after its last one, the block counts itself done, and the last block adds the G partials (red_second). So each
// partial, and the result, has the bits of a launch of G blocks, whatever gridDim.x is (set by the launcher:
// pds_cuda_red_grid), while only gridDim.x blocks pay the fence and the counter's round trip at their end (docs/dev.md
// has the measurements). Returns true in the thread that wrote out (thread 0 of the last block), after the write.
// G = 1: the block's sum is the result, and the second pass would only combine it with the operation's identity
// (Op::comb(id, v), the same bits: a sum's -0 becomes +0), so it writes that at once (the one-block path).
template <int NOUT, class Op, class F>
__device__ __forceinline__ bool red_run(unsigned G, const pds_cuda_red &red, double *out, F vblock) {
  __shared__ double sh[NOUT][RT / 32];
  __shared__ bool   last;
  double            v[NOUT];

  for (unsigned vb = blockIdx.x; vb < G; vb += gridDim.x) {
#pragma unroll
    for (int o = 0; o < NOUT; o++) v[o] = Op::id();
    vblock(vb, v);
    block_red<NOUT, Op>(v, sh);
    if (G == 1) {
      if (threadIdx.x != 0) return false;
#pragma unroll
      for (int o = 0; o < NOUT; o++) out[o] = Op::comb(Op::id(), v[o]);
      return true;
    }
    if (threadIdx.x == 0)
#pragma unroll
      for (int o = 0; o < NOUT; o++) red.partial[o * PDS_CUDA_RED_MAXBLOCK + vb] = v[o];
    __syncthreads(); // sh is reused
  }
  if (threadIdx.x == 0) {
    __threadfence();
    last = atomicAdd(red.counter, 1u) == gridDim.x - 1; // an integer counter: the only atomic
  }
  __syncthreads();
  if (!last) return false;
  __threadfence();
  red_second<NOUT, Op>(v, red, G, sh);
  if (threadIdx.x != 0) return false;
#pragma unroll
  for (int o = 0; o < NOUT; o++) out[o] = v[o];
  *red.counter = 0;
  return true;
}

#endif
