// src/backend/cuda/cuda_coop.cu: whole CG and BiCGSTAB iterations (no preconditioner) in one cooperative launch, for
// systems too large for one block (cuda_small.cu) and small enough that latency, not bytes, is what an iteration
// costs (PDS_CUDA_SMALL_N < n <= PDS_CUDA_COOP_N, cuda.c; docs/dev.md has the measurements that set the bound).
//
// The grid is resident as a whole (a cooperative launch: all its blocks run at once, or the launch fails) and its
// phases meet at grid barriers (cooperative_groups' grid sync) instead of kernel boundaries; inside a device loop one
// launch runs a whole chunk of iterations (co_begin / co_end). Per iteration the kernel sequence pays 7 kernels
// (BiCGSTAB; CG 3), each a launch, a drain and, for a reduction, a second pass in its last block; here BiCGSTAB pays
// 5 grid barriers with the stream plan (7 with the others, whose product and dots are separate phases), CG 3 (4).
// Measured on an H100 (docs/dev.md): a grid barrier costs 1.1 us over 132 blocks and 2.2 us over 1056, an empty
// kernel in a graph 0.9 us; the phases themselves are chains of dependent L2 loads, so the gain is 10-20%.
//
// The bits are the kernel sequence's (tests/cuda/tc05_small checks them against PDS_CUDA_SMALL=0), because every
// phase does that sequence's arithmetic in its order, whatever the number of blocks of this grid:
// - a reduction is computed on its own partition (cuda_common.h): G virtual blocks of RT threads, thread t of
//   virtual block b adding the entries b RT + t, b RT + t + G RT, ... in order and the block's tree giving b's
//   partial; the grid's blocks take the virtual blocks b = blockIdx.x, + gridDim.x, ...; after the barrier every
//   block adds the G partials in grid_red's second-pass order and tree (so each block holds the same sum, the one
//   the sequence's last block writes; no second barrier);
// - G is the sequence's: PDS_CUDA_RED_BLOCKS(n) for the dot and update kernels (cuda_vec.cu), and the stream
//   kernel's grid (stream_blocks, cuda_csr_rows.cuh: at most one block per 256 rows) for the dots that kernel
//   fuses into the product;
// - a product row is summed as the plan's kernel sums it: the stream plan (W = 0) with the stream kernel's staged
//   tiles (cuda_csr_rows.cuh), the thread and sub-warp plans (W lanes) lane-strided with multiply-add contraction and
//   the shuffle tree (csr_thread_k, csr_sub_k);
// - the updates are cuda_vec.cu's expressions (this file is compiled as cuda_vec.cu is, contraction on), the step
//   is krylov_step.h's on a copy of S in each block's shared memory (all blocks take the same decisions on the same
//   numbers); block 0 writes the device loop's record and, at the end, S.
//
// Bytes per iteration: the sequence's (bench/gpu's floors); the data of these sizes is mostly L2-resident.
#include <cooperative_groups.h>

#include "cuda_csr_rows.cuh"
#include "cuda_krylov.cuh"
#include "cuda_launch.cuh"
#include "cuda_reduce.cuh"

namespace cgrp = cooperative_groups;

#define CO_T    RT // threads per block: one virtual reduction block at a time
#ifndef CO_MINB
#define CO_MINB 2 // blocks per SM the registers are bounded for (__launch_bounds__)
#endif

struct co_mat {
  pds_size               n;
  const pds_size *__restrict__ rp;
  const pds_int *__restrict__  ci;
  const double *__restrict__   av;
};


// y = A x with the thread (W = 1) or sub-warp (W lanes) plan's arithmetic, over the whole grid
template <int W>
__device__ __forceinline__ void co_spmv_sub(const co_mat &A, const double *x, double *y, double one) {
  const int      lane = threadIdx.x & (W - 1);
  const unsigned mask = W == 32 ? FULL : ((1u << W) - 1) << ((threadIdx.x & 31) & ~(W - 1));
  const pds_size st   = (pds_size)gridDim.x * CO_T;

  for (pds_size g = (pds_size)blockIdx.x * CO_T + threadIdx.x; g < A.n * W; g += st) {
    const pds_size i = g / W, k1 = A.rp[i + 1];
    double         s = 0;

    for (pds_size k = A.rp[i] + lane; k < k1; k += W) s += __ldg(&A.av[k]) * __ldcg(&x[__ldg(&A.ci[k])]);
    if (W > 1) {
#pragma unroll
      for (int o = W / 2; o > 0; o >>= 1) s += __shfl_down_sync(mask, s, o, W);
    }
    if (lane == 0) y[i] = one * s;
  }
}

// The partials of a reduction over n entries on its partition of G virtual blocks: virtual block b's sums go to
// part[o * PDS_CUDA_RED_MAXBLOCK + b]. Entry i's operands are ld(i) (a co_in), then use(i, in, v) adds its terms to
// v[0..NOUT) (and may store entry i of an output). A thread of a partition of n <= PDS_CUDA_RED_MAXBLOCK * 2048
// entries has at most CO_PER = 8 entries: their loads are all issued first (latency, not bandwidth, is what these
// phases cost), then the terms are added in the partition's order.
#define CO_PER 8
struct co_in {
  double a, b, c;
};
template <int NOUT, class LD, class USE>
__device__ __forceinline__ void co_partials(pds_size n, unsigned G, double *part, LD ld, USE use) {
  __shared__ double sh[NOUT][RT / 32];
  const pds_size    st = (pds_size)G * RT;

  for (unsigned b = blockIdx.x; b < G; b += gridDim.x) {
    const pds_size i0 = (pds_size)b * RT + threadIdx.x;
    double         v[NOUT];
    co_in          in[CO_PER];

#pragma unroll
    for (int o = 0; o < NOUT; o++) v[o] = 0.0;
#pragma unroll
    for (int u = 0; u < CO_PER; u++)
      if (i0 + u * st < n) in[u] = ld(i0 + u * st);
#pragma unroll
    for (int u = 0; u < CO_PER; u++)
      if (i0 + u * st < n) use(i0 + u * st, in[u], v);
    for (pds_size i = i0 + CO_PER * st; i < n; i += st) use(i, ld(i), v);
    block_red<NOUT, SumOp>(v, sh);
    if (threadIdx.x == 0)
#pragma unroll
      for (int o = 0; o < NOUT; o++) part[o * PDS_CUDA_RED_MAXBLOCK + b] = v[o];
    __syncthreads(); // sh is reused
  }
}

// y = A x with the stream plan (csr_stream_k<double, false, false, ND, SQ>: its grid of G0 virtual CTAs, its staged
// row sums, its fused dots acc[0] += y_i w1_i and, ND = 2, acc[1] += y_i y_i) and the dots' partials in part
__shared__ double co_prod[ST_NNZ];
template <int ND>
__device__ __forceinline__ void co_stream_partials(const co_mat &A, unsigned G0, const double *x, double *y,
                                                   const double *w1, double *part) {
  __shared__ double sh[ND][RT / 32];
  const pds_size    n = A.n;

  for (unsigned b = blockIdx.x; b < G0; b += gridDim.x) {
    double acc[ND];

#pragma unroll
    for (int o = 0; o < ND; o++) acc[o] = 0.0;
    for (pds_size r0 = (pds_size)b * ST_T; r0 < n; r0 += (pds_size)G0 * ST_T) {
      const pds_size r1 = r0 + ST_T < n ? r0 + ST_T : n, i = r0 + threadIdx.x, base = A.rp[r0], end = A.rp[r1];
      pds_size       my0 = 0, my1 = 0;
      double         w1i = 0;

      if (i < r1) my0 = A.rp[i], my1 = A.rp[i + 1], w1i = __ldcg(&w1[i]);
      const double s = stream_rows<double, false, true>(base, end, my0, my1, A.ci, A.av, NULL, x, co_prod);
      if (i < r1) {
        const double yi = __dmul_rn(1.0, s);

        y[i] = yi;
        acc[0] += yi * w1i;
        if (ND > 1) acc[ND - 1] += yi * yi;
      }
    }
    block_red<ND, SumOp>(acc, sh);
    if (threadIdx.x == 0)
#pragma unroll
      for (int o = 0; o < ND; o++) part[o * PDS_CUDA_RED_MAXBLOCK + b] = acc[o];
    __syncthreads();
  }
}

// out[j] (shared) = the sum of partial set j (G[j] partials at part[j]) in grid_red's second-pass order and tree:
// the same sum in every block. Each thread's loads are issued four at a time, then added in order.
template <int NS>
__device__ __forceinline__ void co_sums(const double *const (&part)[NS], const unsigned (&G)[NS], double *out) {
  __shared__ double sh[NS][RT / 32];
  double            v[NS];

#pragma unroll
  for (int j = 0; j < NS; j++) {
    double   a = 0.0;
    unsigned b = threadIdx.x;

    for (; b + 3 * RT < G[j]; b += 4 * RT) {
      double q[4];

#pragma unroll
      for (int u = 0; u < 4; u++) q[u] = __ldcg(&part[j][b + u * RT]);
#pragma unroll
      for (int u = 0; u < 4; u++) a = a + q[u];
    }
    for (; b < G[j]; b += RT) a = a + __ldcg(&part[j][b]);
    v[j] = a;
  }
  block_red<NS, SumOp>(v, sh);
  if (threadIdx.x == 0)
#pragma unroll
    for (int j = 0; j < NS; j++) out[j] = v[j];
  __syncthreads();
}

// A launch runs iterations until the solve ends or, inside a device loop, the chunk's count (the gate's *lp.left, read
// by every block before the first grid barrier, after which block 0 counts it down) is used up: one launch per chunk
// instead of one per iteration (the loop's rounds record LOOP_UNROLL launches: those after the first find the count
// at 0 and return at once; so does a launch queued after the solve ended). Outside a device loop: one iteration.
// Every block runs the step on its copy of S; block 0 writes the record after the update (its system-wide fence then
// overlaps the other blocks' updates) and S at the end. Vectors are read through L2 (__ldcg): from one iteration to
// the next, other blocks write them.
__device__ __forceinline__ int co_begin(double *Sl, const double *S, const pds_cuda_loop_dev &lp, int in_loop,
                                        int *left) {
  for (int i = threadIdx.x; i < PDS_KS_N; i += CO_T) Sl[i] = S[i];
  *left = in_loop ? *lp.left : 1;
  __syncthreads();
  return !in_loop || (Sl[PDS_KS_REASON] == 0 && *left > 0);
}
// the end of an iteration: the record (block 0), then whether the launch stops (the same answer in every block)
__device__ __forceinline__ int co_end(const double *Sl, const pds_cuda_loop_dev &lp, int in_loop, int *left) {
  if (in_loop && blockIdx.x == 0 && threadIdx.x == 0) ks_record_dev(Sl, lp);
  return !in_loop || Sl[PDS_KS_REASON] != 0 || --*left <= 0;
}
__device__ __forceinline__ void co_step(int m, double *Sl) {
  if (threadIdx.x == 0) pds_ks_step(m, Sl);
  __syncthreads();
}
__device__ __forceinline__ void co_store_S(const double *Sl, double *S) {
  if (blockIdx.x == 0)
    for (int i = threadIdx.x; i < PDS_KS_N; i += CO_T) S[i] = Sl[i];
}

// CG without a preconditioner (cg.c's body, as cuda_small.cu's cg_small_k): q = A p; S0 = (q, p); r = -a q + 1 r,
// a = S[RHO] / S0; S1 = (r, r); the step; x += alpha p; p = r + beta p. part: 2 slots of PDS_CUDA_RED_MAXBLOCK.
template <int W>
__global__ void __launch_bounds__(CO_T, CO_MINB) cg_coop_k(co_mat A, double *x, double *r, double *p, double *q,
                                                           double *S, double *part, pds_cuda_loop_dev lp, int in_loop,
                                                           double one) {
  __shared__ double Sl[PDS_KS_N];
  cgrp::grid_group  grid = cgrp::this_grid();
  const pds_size    n = A.n, st = (pds_size)gridDim.x * CO_T, i0 = (pds_size)blockIdx.x * CO_T + threadIdx.x;
  const unsigned    G = PDS_CUDA_RED_BLOCKS(n), G0 = W == 0 ? stream_blocks(n) : G;
  double           *P0 = part, *P1 = part + PDS_CUDA_RED_MAXBLOCK;
  int               left;

  pds_grid_dep();
  if (!co_begin(Sl, S, lp, in_loop, &left)) return;
  for (;;) {
    if (W == 0) co_stream_partials<1>(A, G0, p, q, p, P0); // the stream kernel with CG's fused dot (y = q, w1 = p)
    else {
      co_spmv_sub<W < 1 ? 1 : W>(A, p, q, one);
      grid.sync();
      co_partials<1>(
          n, G, P0, [&](pds_size i) { return co_in{__ldcg(&q[i]), __ldcg(&p[i]), 0.0}; }, // dot_k(q, p)
          [&](pds_size, const co_in &e, double(&v)[1]) { v[0] += e.a * e.b; });
    }
    grid.sync();
    co_sums<1>({P0}, {G0}, Sl);
    {
      const double a = pds_ks_ratio(Sl, PDS_KS_RHO, 0);

      co_partials<1>(
          n, G, P1, [&](pds_size i) { return co_in{__ldcg(&q[i]), __ldcg(&r[i]), 0.0}; }, // cg_r_k
          [&](pds_size i, const co_in &e, double(&v)[1]) {
            const double ri = -a * e.a + 1.0 * e.b;

            r[i] = ri;
            v[0] += ri * ri;
          });
    }
    grid.sync();
    co_sums<1>({P1}, {G}, Sl + 1);
    co_step(PDS_KS_STEP_CG, Sl);
    { // cg_xp_k with z = r
      const int    m     = (int)Sl[PDS_KS_XP];
      const double alpha = Sl[PDS_KS_ALPHA], beta = Sl[PDS_KS_BETA];

      if (m == (PDS_KS_XP_X | PDS_KS_XP_P))
        for (pds_size i = i0; i < n; i += st) {
          const double pi = __ldcg(&p[i]);

          x[i] = alpha * pi + 1.0 * __ldcg(&x[i]);
          p[i] = 1.0 * __ldcg(&r[i]) + beta * pi;
        }
      else {
        if (m & PDS_KS_XP_X)
          for (pds_size i = i0; i < n; i += st) x[i] = alpha * __ldcg(&p[i]) + one * __ldcg(&x[i]);
        if (m & PDS_KS_XP_P)
          for (pds_size i = i0; i < n; i += st) p[i] = one * __ldcg(&r[i]) + beta * __ldcg(&p[i]);
      }
    }
    if (co_end(Sl, lp, in_loop, &left)) break;
    grid.sync(); // p is whole before the next product
  }
  co_store_S(Sl, S);
}

// BiCGSTAB without a preconditioner (bicgstab.c's body, as cuda_small.cu's bicg_small_k, ph = p, sh = s): v = A p;
// S0 = (v, rhat); s = -a v + 1 r, a = S[RHO] / S0; S1 = (s, s); t = A s; S2 = (t, s), S3 = (t, t); r = -o t + 1 s,
// o = S2 / S3; S4 = (r, rhat), S5 = (r, r); the step; the x / p update. part: 6 slots of PDS_CUDA_RED_MAXBLOCK.
template <int W>
__global__ void __launch_bounds__(CO_T, CO_MINB) bicg_coop_k(co_mat A, double *x, double *r, const double *rhat,
                                                             double *p, double *vv, double *sv, double *t, double *S,
                                                             double *part, pds_cuda_loop_dev lp, int in_loop,
                                                             double one) {
  __shared__ double Sl[PDS_KS_N];
  cgrp::grid_group  grid = cgrp::this_grid();
  const pds_size    n = A.n, st = (pds_size)gridDim.x * CO_T, i0 = (pds_size)blockIdx.x * CO_T + threadIdx.x;
  const unsigned    G = PDS_CUDA_RED_BLOCKS(n), G0 = W == 0 ? stream_blocks(n) : G;
  double           *P0 = part, *P1 = part + PDS_CUDA_RED_MAXBLOCK, *P2 = part + 2 * PDS_CUDA_RED_MAXBLOCK,
         *P4 = part + 4 * PDS_CUDA_RED_MAXBLOCK;
  int               left;

  pds_grid_dep();
  if (!co_begin(Sl, S, lp, in_loop, &left)) return;
  for (;;) {
    // v = A p; S0 = (v, rhat)
    if (W == 0) co_stream_partials<1>(A, G0, p, vv, rhat, P0);
    else {
      co_spmv_sub<W < 1 ? 1 : W>(A, p, vv, one);
      grid.sync();
      co_partials<1>(
          n, G, P0, [&](pds_size i) { return co_in{__ldcg(&vv[i]), rhat[i], 0.0}; }, // dot_k(v, rhat)
          [&](pds_size, const co_in &e, double(&v)[1]) { v[0] += e.a * e.b; });
    }
    grid.sync();
    co_sums<1>({P0}, {G0}, Sl);
    { // bicg_s_k
      const double a = pds_ks_ratio(Sl, PDS_KS_RHO, 0);

      co_partials<1>(
          n, G, P1, [&](pds_size i) { return co_in{__ldcg(&vv[i]), __ldcg(&r[i]), 0.0}; },
          [&](pds_size i, const co_in &e, double(&v)[1]) {
            const double wi = -a * e.a + 1.0 * e.b;

            sv[i] = wi;
            v[0] += wi * wi;
          });
    }
    grid.sync();
    // t = A s; S2 = (t, s), S3 = (t, t)
    if (W == 0) co_stream_partials<2>(A, G0, sv, t, sv, P2);
    else {
      co_spmv_sub<W < 1 ? 1 : W>(A, sv, t, one);
      grid.sync();
      co_partials<2>(
          n, G, P2, [&](pds_size i) { return co_in{__ldcg(&t[i]), __ldcg(&sv[i]), 0.0}; }, // dot2_k(t, s, t)
          [&](pds_size, const co_in &e, double(&v)[2]) {
            v[0] += e.a * e.b;
            v[1] += e.a * e.a;
          });
    }
    grid.sync();
    co_sums<3>({P1, P2, P2 + PDS_CUDA_RED_MAXBLOCK}, {G, G0, G0}, Sl + 1);
    { // bicg_r_k
      const double o = pds_ks_ratio(Sl, 2, 3);

      co_partials<2>(
          n, G, P4, [&](pds_size i) { return co_in{__ldcg(&t[i]), __ldcg(&sv[i]), rhat[i]}; },
          [&](pds_size i, const co_in &e, double(&v)[2]) {
            const double ri = -o * e.a + 1.0 * e.b;

            r[i] = ri;
            v[0] += ri * e.c;
            v[1] += ri * ri;
          });
    }
    grid.sync();
    co_sums<2>({P4, P4 + PDS_CUDA_RED_MAXBLOCK}, {G, G}, Sl + 4);
    co_step(PDS_KS_STEP_BICG, Sl);
    { // bicg_xp_k with ph = p, sh = s
      const int    m     = (int)Sl[PDS_KS_XP];
      const double alpha = Sl[PDS_KS_ALPHA], omega = Sl[PDS_KS_OMEGA], beta = Sl[PDS_KS_BETA], bo = -beta * omega;

      if (m == (PDS_KS_XP_X | PDS_KS_XP_P))
        for (pds_size i = i0; i < n; i += st) {
          const double phi = __ldcg(&p[i]), pi = phi, shi = __ldcg(&sv[i]), ri = __ldcg(&r[i]),
                       vi = __ldcg(&vv[i]), xi = __ldcg(&x[i]);

          x[i] = alpha * phi + omega * shi + 1.0 * xi;
          p[i] = 1.0 * ri + bo * vi + beta * pi;
        }
      else {
        if (m & PDS_KS_XP_X)
          for (pds_size i = i0; i < n; i += st)
            x[i] = alpha * __ldcg(&p[i]) + omega * __ldcg(&sv[i]) + one * __ldcg(&x[i]);
        if (m & PDS_KS_XP_HALF)
          for (pds_size i = i0; i < n; i += st) x[i] = alpha * __ldcg(&p[i]) + one * __ldcg(&x[i]);
        if (m & PDS_KS_XP_P)
          for (pds_size i = i0; i < n; i += st)
            p[i] = one * __ldcg(&r[i]) + bo * __ldcg(&vv[i]) + beta * __ldcg(&p[i]);
      }
    }
    if (co_end(Sl, lp, in_loop, &left)) break;
    grid.sync(); // p is whole before the next product
  }
  co_store_S(Sl, S);
}

// a cooperative launch of kernel on the blocks that fit at once, at most per_sm per SM and no more than one thread
// per unit of work; programmatic dependent launch as pds_launch has it (cuda_launch.cuh) where pds_cuda_coop_pdl.
// per_sm < 0 (tests/cuda/tc05 only): one block per SM more than fits, a launch the device refuses
template <typename... KArgs, typename... Args>
static cudaError_t co_launch(void (*kernel)(KArgs...), cudaStream_t s, int nsm, int per_sm, pds_size work,
                             Args... args) {
  cudaLaunchConfig_t  cfg = {};
  cudaLaunchAttribute at[2];
  int                 nb = 0;
  cudaError_t         e;

  e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, kernel, CO_T, 0);
  if (e != cudaSuccess) return e;
  if (nb <= 0) return cudaErrorCooperativeLaunchTooLarge;
  if (per_sm > 0 && nb > per_sm) nb = per_sm;
  {
    pds_size g = (pds_size)(per_sm < 0 ? nb + 1 : nb) * (pds_size)nsm, need = (work + CO_T - 1) / CO_T;

    if (g > need && per_sm >= 0) g = need > 0 ? need : 1;
    cfg.gridDim = dim3((unsigned)g);
  }
  cfg.blockDim = dim3(CO_T), cfg.dynamicSmemBytes = 0, cfg.stream = s;
  at[0].id             = cudaLaunchAttributeCooperative;
  at[0].val.cooperative = 1;
  cfg.attrs = at, cfg.numAttrs = 1;
  if (pds_cuda_pdl && pds_cuda_coop_pdl) {
    at[1].id                                         = cudaLaunchAttributeProgrammaticStreamSerialization;
    at[1].val.programmaticStreamSerializationAllowed = 1;
    cfg.numAttrs                                     = 2;
  }
  return cudaLaunchKernelEx(&cfg, kernel, ((KArgs)args)...);
}

#define COOP_CASES(K, ...)                                                                                   \
  switch (width) {                                                                                           \
  case 0: return co_launch(K<0>, s, nsm, per_sm, (pds_size)n, __VA_ARGS__);                                 \
  case 1: return co_launch(K<1>, s, nsm, per_sm, (pds_size)n, __VA_ARGS__);                                 \
  case 2: return co_launch(K<2>, s, nsm, per_sm, (pds_size)n * 2, __VA_ARGS__);                             \
  case 4: return co_launch(K<4>, s, nsm, per_sm, (pds_size)n * 4, __VA_ARGS__);                             \
  case 8: return co_launch(K<8>, s, nsm, per_sm, (pds_size)n * 8, __VA_ARGS__);                             \
  case 16: return co_launch(K<16>, s, nsm, per_sm, (pds_size)n * 16, __VA_ARGS__);                          \
  case 32: return co_launch(K<32>, s, nsm, per_sm, (pds_size)n * 32, __VA_ARGS__);                          \
  default: return cudaErrorNotSupported;                                                                     \
  }

extern "C" {

int pds_cuda_coop_pdl = 1;

cudaError_t pds_cuda_cg_coop(cudaStream_t s, int width, int nsm, int per_sm, pds_int n, const pds_size *rp,
                             const pds_int *ci, const pds_real *av, pds_real *x, pds_real *r, pds_real *p,
                             pds_real *q, pds_real *S, pds_real *part, const pds_cuda_loop_dev *lp) {
  pds_cuda_loop_dev none = {};
  co_mat            A    = {(pds_size)n, rp, ci, av};

  COOP_CASES(cg_coop_k, A, x, r, p, q, S, part, lp ? *lp : none, (int)(lp != NULL), 1.0)
}

cudaError_t pds_cuda_bicg_coop(cudaStream_t s, int width, int nsm, int per_sm, pds_int n, const pds_size *rp,
                               const pds_int *ci, const pds_real *av, pds_real *x, pds_real *r, const pds_real *rhat,
                               pds_real *p, pds_real *v, pds_real *sv, pds_real *t, pds_real *S, pds_real *part,
                               const pds_cuda_loop_dev *lp) {
  pds_cuda_loop_dev none = {};
  co_mat            A    = {(pds_size)n, rp, ci, av};

  COOP_CASES(bicg_coop_k, A, x, r, rhat, p, v, sv, t, S, part, lp ? *lp : none, (int)(lp != NULL), 1.0)
}

} // extern "C"
