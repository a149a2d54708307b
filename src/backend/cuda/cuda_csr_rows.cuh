// src/backend/cuda/cuda_csr_rows.cuh: how /gpu/cuda's CSR kernels sum a row, shared by the product kernels
// (cuda_csr.cu) and the whole-iteration kernels that must give their bits (cuda_coop.cu): the value type's rounded
// arithmetic, the matrix loads, and the stream kernel's staged sum of a run of rows.
#ifndef PDS_CUDA_CSR_ROWS_CUH
#define PDS_CUDA_CSR_ROWS_CUH

#include "cuda_common.h"

#define ST_T   256  /* threads of a stream CTA: one row each */
#define ST_NNZ 2048 /* entries of a stream tile */

/* CTAs of the stream kernel's grid over nrows rows (one per ST_T rows, at most PDS_CUDA_RED_MAXBLOCK): the partition
   of the dots it fuses into the product, which the whole-iteration kernels (cuda_coop.cu) reproduce */
__host__ __device__ static inline unsigned stream_blocks(pds_size nrows) {
  return PDS_CUDA_RED_BLOCKS((nrows + ST_T - 1) / ST_T * 2048);
}

// The value type's rounded product and sum (no contraction into a multiply-add), and its bits in a 64-bit word (the
// merge-path kernel's shared tile holds row ends and products in one array).
template <class T> struct csr_num;
template <> struct csr_num<double> {
  static __device__ __forceinline__ double mul(double a, double b) { return __dmul_rn(a, b); }
  static __device__ __forceinline__ double add(double a, double b) { return __dadd_rn(a, b); }
  static __device__ __forceinline__ pds_size bits(double a) { return (pds_size)__double_as_longlong(a); }
  static __device__ __forceinline__ double from(pds_size b) { return __longlong_as_double((long long)b); }
};
template <> struct csr_num<float> {
  static __device__ __forceinline__ float mul(float a, float b) { return __fmul_rn(a, b); }
  static __device__ __forceinline__ float add(float a, float b) { return __fadd_rn(a, b); }
  static __device__ __forceinline__ pds_size bits(float a) { return (pds_size)__float_as_uint(a); }
  static __device__ __forceinline__ float from(pds_size b) { return __uint_as_float((unsigned)b); }
};

// matrix data is streamed once (evict-first hint), x is gathered through the read-only path and stays in cache
template <class T, bool PERM>
__device__ __forceinline__ T csr_val(const T *__restrict__ v, const pds_int *__restrict__ perm, pds_size k) {
  return PERM ? __ldg(&v[__ldcs(&perm[k])]) : __ldcs(&v[k]);
}

// The stream kernel's row sum (csr_stream_k has the picture): a CTA of ST_T threads reads the entries [base, end) of
// its run of rows in tiles of ST_NNZ, each thread loading ST_NNZ / ST_T values, column indices and x entries, all
// independent, and storing the rounded products in prod (shared); thread t then adds the products of its row
// [my0, my1) in order from s = 0 (my0 = my1 for a thread past the last row). Every thread of the CTA calls it
// (barriers inside). RESIDENT (the whole-iteration kernels, whose systems stay in L2 from one iteration to the
// next): the matrix is read with plain cached loads, not streamed with evict-first hints, and x through L2 (__ldcg:
// other CTAs wrote it earlier in the same launch); else the matrix is streamed and x read through the read-only path.
template <class T, bool PERM, bool RESIDENT>
__device__ __forceinline__ T stream_rows(pds_size base, pds_size end, pds_size my0, pds_size my1,
                                         const pds_int *__restrict__ ci, const T *__restrict__ v,
                                         const pds_int *__restrict__ perm, const T *x, T *prod) {
  static_assert(!(RESIDENT && PERM), "the whole-iteration kernels take no transpose product");
  typedef csr_num<T> N;
  T                  s = 0;

  for (pds_size t0 = base; t0 < end; t0 += ST_NNZ) {
    const pds_size t1 = t0 + ST_NNZ < end ? t0 + ST_NNZ : end;

    constexpr int J = ST_NNZ / ST_T;
    T             a[J], xv[J];
    pds_int       c[J];

    /* all loads first, from addresses clamped into the tile (no branches), then the products */
#pragma unroll
    for (int j = 0; j < J; j++) {
      const pds_size k = t0 + threadIdx.x + (pds_size)j * ST_T, kk = k < t1 ? k : t1 - 1;

      a[j] = RESIDENT ? __ldg(&v[kk]) : csr_val<T, PERM>(v, perm, kk);
      c[j] = RESIDENT ? __ldg(&ci[kk]) : __ldcs(&ci[kk]);
    }
#pragma unroll
    for (int j = 0; j < J; j++) xv[j] = RESIDENT ? __ldcg(&x[c[j]]) : __ldg(&x[c[j]]);
#pragma unroll
    for (int j = 0; j < J; j++)
      if (t0 + threadIdx.x + (pds_size)j * ST_T < t1) prod[threadIdx.x + j * ST_T] = N::mul(a[j], xv[j]);
    __syncthreads();
    const pds_size ka = my0 > t0 ? my0 : t0, kb = my1 < t1 ? my1 : t1;

    for (pds_size k = ka; k < kb; k++) s = N::add(s, prod[k - t0]);
    __syncthreads();
  }
  return s;
}

#endif
