// src/backend/cuda/cuda_loops.cuh: the loop shapes of /gpu/cuda's vector kernels, shared by the double (cuda_vec.cu)
// and single-precision (cuda_f32.cu) kernels: the elementwise loop (256 threads, each handling 4 entries 256 apart in
// a tile of 1024, so a warp's loads are 256-byte coalesced and each thread has several independent loads in flight),
// the reduction loop (the grid of cuda_common.h's deterministic reductions), and their launch macros.
#ifndef PDS_CUDA_LOOPS_CUH
#define PDS_CUDA_LOOPS_CUH

#include "cuda_launch.cuh"
#include "cuda_reduce.cuh"

#define EW_T    256
#define EW_PER  4
#define EW_TILE (EW_T * EW_PER)

static inline unsigned ew_blocks(pds_size n) { return (unsigned)((n + EW_TILE - 1) / EW_TILE); }

// the elementwise loop: `i` is each entry of this thread, in order
#define EW_FOR(n)                                                           \
  const pds_size ew_i0_ = (pds_size)blockIdx.x * EW_TILE + threadIdx.x;     \
  _Pragma("unroll") for (int ew_j_ = 0; ew_j_ < EW_PER; ew_j_++)            \
    for (pds_size i = ew_i0_ + (pds_size)ew_j_ * EW_T; i < (n); i = (n))

// Thread t of block b visits b*RT + t, then every G*RT further: `i` in order, four loads in flight.
#define RED_FOR(n, body)                                                                              \
  do {                                                                                                \
    const pds_size st_ = (pds_size)gridDim.x * RT;                                                    \
    pds_size       i   = (pds_size)blockIdx.x * RT + threadIdx.x;                                     \
    for (; i + 3 * st_ < (n); i += 4 * st_) {                                                         \
      _Pragma("unroll") for (int u_ = 0; u_ < 4; u_++) {                                              \
        const pds_size ii_ = i + u_ * st_;                                                            \
        { const pds_size i = ii_; body; }                                                             \
      }                                                                                               \
    }                                                                                                 \
    for (; i < (n); i += st_) { body; }                                                               \
  } while (0)

// ---- launch macros (inside a launcher whose stream is s) ------------------------------------------------------
// (programmatic dependent launch, cuda_launch.cuh: every kernel launched so starts with pds_grid_dep())
#define EW_LAUNCH(kernel, n, ...)                                          \
  do {                                                                     \
    return pds_launch(kernel, ew_blocks(n), EW_T, 0, s, n, __VA_ARGS__);   \
  } while (0)
#define RED_LAUNCH(kernel, n, ...)                                         \
  do {                                                                     \
    return pds_launch(kernel, PDS_CUDA_RED_BLOCKS(n), RT, 0, s, n, __VA_ARGS__); \
  } while (0)

#endif
