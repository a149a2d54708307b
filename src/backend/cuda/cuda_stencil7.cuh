// src/backend/cuda/cuda_stencil7.cuh: what the stencil7 product (cuda_stencil7.cu) and block ILU(0)
// (cuda_bilu0.cu) kernels share: a grid point's arms (which lie in its grid, where their neighbours are) and the
// rounding of src/backend/stencil7_bodies.h. Every sum there is a chain s = s + a b from 0 in a fixed order, each
// product and sum rounded on its own (the CPU compilers of this project do not contract to fused multiply-adds), so
// the kernels write the same chain with __dmul_rn / __dadd_rn: the GPU's results are /cpu/ref's bits.
#pragma once

#include "cuda_common.h"

#define S7_MUL(a, b) __dmul_rn((a), (b))
#define S7_ADD(a, b) __dadd_rn((a), (b))
#define S7_SUB(a, b) __dsub_rn((a), (b))

// a point's neighbour offsets: arm a = 0 alpha (k-1), 1 beta (j-1), 2 gamma (i-1), 3 delta (the point), 4 epsilon
// (i+1), 5 zeta (j+1), 6 eta (k+1); K and JK are the grid's strides
__device__ __forceinline__ long long s7_off(int a, int K, long long JK) {
  return a == 0 ? -1 : a == 1 ? -(long long)K : a == 2 ? -JK : a == 3 ? 0 : a == 4 ? JK : a == 5 ? (long long)K : 1;
}

// the arms of point (i, j, k) that lie in an I x J x K grid, as bits 1 << a (a = 0..6, the centre's bit set)
__device__ __forceinline__ unsigned s7_mask(int I, int J, int K, int i, int j, int k) {
  return (k > 0 ? 1u : 0u) | (j > 0 ? 2u : 0u) | (i > 0 ? 4u : 0u) | 8u | (i + 1 < I ? 16u : 0u) |
         (j + 1 < J ? 32u : 0u) | (k + 1 < K ? 64u : 0u);
}
