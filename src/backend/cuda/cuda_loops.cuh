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

// RED_FOR and EW_FOR for bodies that store through a pointer they also load through (r = -a q + r; ph that may be
// p): ld(i) returns entry i's operands, use(i, e) computes and stores it (and adds to the thread's sums). Each thread
// loads all of its (up to four) entries' operands before it uses any, the entries in the same order as RED_FOR /
// EW_FOR, so the same sums in the same order: the same bits. In RED_FOR's body the compiler cannot move the next
// entry's load above this entry's store through the same pointer (it cannot prove the entries distinct): one load
// round trip per entry. Measured on an H200 (bench_gpu, 2^25 entries, copy 4160 GB/s): cg_r at 88% of the copy
// bandwidth where a kernel writing another vector (bicgstab_s) reached 94%, bicgstab_xp at 89.5% against cg_xp's
// 97.6% (docs/dev.md has the numbers after).
template <typename Ld, typename Use>
__device__ __forceinline__ void red_for_ld(pds_size n, Ld ld, Use use) {
  const pds_size st = (pds_size)gridDim.x * RT;
  pds_size       i  = (pds_size)blockIdx.x * RT + threadIdx.x;

  for (; i + 3 * st < n; i += 4 * st) {
    decltype(ld(i)) e[4];
#pragma unroll
    for (int u = 0; u < 4; u++) e[u] = ld(i + u * st);
#pragma unroll
    for (int u = 0; u < 4; u++) use(i + u * st, e[u]);
  }
  for (; i < n; i += st) use(i, ld(i));
}
template <typename Ld, typename Use>
__device__ __forceinline__ void ew_for_ld(pds_size n, Ld ld, Use use) {
  const pds_size i0 = (pds_size)blockIdx.x * EW_TILE + threadIdx.x;

  if (i0 + (EW_PER - 1) * EW_T < n) {
    decltype(ld(i0)) e[EW_PER];
#pragma unroll
    for (int u = 0; u < EW_PER; u++) e[u] = ld(i0 + (pds_size)u * EW_T);
#pragma unroll
    for (int u = 0; u < EW_PER; u++) use(i0 + (pds_size)u * EW_T, e[u]);
  } else
    for (pds_size i = i0; i < n; i += EW_T) use(i, ld(i));
}

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
