// src/backend/cuda/cuda_bsr.cu: /gpu/cuda BSR product, BSR diagonal, and point-block Jacobi (batched Gauss-Jordan
// inversion of the diagonal blocks on the device, and their application).
//
// BSR product y = alpha A x + beta y, bs = 1..8 (bs > 8: one thread per scalar row, bsr_generic_k). Byte model
// (bench/gpu): nnzb (8 bs^2 + 4) + 8 (nbrows + 1) + 8 n (x, once) + 8 n (y) [+ 8 n when beta != 0]; flops
// 2 nnzb bs^2. Three kernels; bsr_rule_kernel (near the end) picks one, and docs/dev.md repeats the rule:
//  - vec (even bs, 16-byte aligned vals and x): thread per (scalar row, column pair). The bs/2 lanes of a row read
//    its bs values of each block as 16-byte vectors; the lanes of a block row together read the block as one
//    contiguous run (a warp load of 512 bytes touches whole 128-byte lines), x as 16-byte pairs; the partial sums of
//    a row's lanes are added by shuffles in lane order.
//  - pipe (any bs <= 8): a persistent CTA takes groups of NT / bs consecutive block rows; their values and column
//    indices, one contiguous run, are copied to shared memory with 16-byte cp.async (evict-first in L2) one group
//    ahead of the one being summed, thread per scalar row.
//  - lane (any bs <= 8): thread per (scalar row, column): the bs lanes of a row read one value of each block.
// All of them issue a step's loads before its first use (__launch_bounds__(256, 1): with (256) alone ptxas caps
// the direct kernels at 32 registers and interleaves loads with sums), read values with the streaming hint and x
// through the read-only path, and sum each scalar row in a fixed order (its blocks in order, within a block its
// columns in order, then the lanes in order): the same input gives the same bits on every run, no atomics.
// The kernels also take column-major blocks (all three) and element-interleaved storage (entry e of block k at
// vals[e * nnzb + k]; pipe and lane) for the layout study in bench/gpu; the library stores row-major.
// Tried and dropped (bench/gpu/bsr_tune on an H200, 7-point blocks, 100^3 cells): a team of bs^2 lanes per block
// row reading 16-byte pairs across row and block boundaries for odd bs, x handed out by shuffles: 55% of the copy
// bandwidth at bs = 5 (one block row per warp: too few rows in flight for the rp -> column index -> x chain); pipe
// with rotated column order against bank conflicts, 3 stages, or 128 threads at bs = 5 (59-68%); the previous
// rule's staged kernel (tiles of products in shared memory, 53-70%).
// blocks_apply: 32 blocks per 256-thread CTA, staged through shared memory with coalesced loads; bytes
// 8 nb bs^2 + 16 n. blocks_invert: one thread per block, the block in registers (bs <= 8; pivot swaps as unrolled
// selects so that no register array is indexed at run time), the algorithm and operation order of
// pds_block_invert in ref.c; bs > 8 works in place in global memory. Both round each product and sum as ref does
// (__dmul_rn / __dadd_rn: no fused multiply-add), so the inverses and the products have ref's bits.
#include <math.h>
#include <stdint.h>

#include <atomic>

#include "cuda_reduce.cuh"

#define BSR_T 256 // threads per CTA of the direct kernels (vec, lane)

// index in vals of entry (r, c) of block k, per layout
template <int BS, int LAYOUT> __device__ __forceinline__ pds_size bsr_at(pds_size k, int r, int c, pds_size nnzb) {
  return LAYOUT == PDS_CUDA_BSR_INTERLEAVED ? (pds_size)(r * BS + c) * nnzb + k
         : LAYOUT == PDS_CUDA_BSR_COL       ? k * (BS * BS) + c * BS + r
                                            : k * (BS * BS) + r * BS + c;
}

__device__ __forceinline__ double bsr_out(double s, double alpha, double beta, const double *y, pds_size i) {
  return beta != 0 ? alpha * s + beta * y[i] : alpha * s; /* beta = 0: y is not read */
}

// ---- lane: thread per (scalar row, column) -------------------------------------------------------------------
// RW = 32 / bs rows per warp (lanes past RW * bs idle); U blocks per step, their loads all issued before the sums
template <int BS, int LAYOUT, int U>
__global__ void __launch_bounds__(BSR_T, 1) bsr_lane_k(pds_int nbrows, pds_size nnzb, const pds_size *__restrict__ rp,
                                                     const pds_int *__restrict__ ci, const double *__restrict__ v,
                                                     double alpha, const double *__restrict__ x, double beta,
                                                     double *__restrict__ y) {
  constexpr int  RW = 32 / BS, VS = LAYOUT == PDS_CUDA_BSR_INTERLEAVED ? 1 : BS * BS; /* next block: VS further */
  const int      lane = threadIdx.x & 31, q = lane / BS, c = lane - q * BS;
  const pds_size i    = (((pds_size)blockIdx.x * BSR_T + threadIdx.x) >> 5) * RW + q;
  const bool     act  = q < RW && i < (pds_size)nbrows * BS;
  double         s    = 0;

  if (act) {
    const pds_int   B  = (pds_int)(i / BS);
    const int       r  = (int)(i - (pds_size)B * BS);
    const pds_size  k0 = rp[B];
    const int       nbk = (int)(rp[B + 1] - k0);
    const double   *vp = v + bsr_at<BS, LAYOUT>(k0, r, c, nnzb);
    const pds_int  *cp = ci + k0;
    const double   *xc = x + c;

    for (int j = 0; j < nbk; j += U, vp += U * VS, cp += U) {
      double a[U], xv[U];

#pragma unroll
      for (int u = 0; u < U; u++) a[u] = j + u < nbk ? __ldcs(vp + u * VS) : 0.0;
#pragma unroll
      for (int u = 0; u < U; u++) xv[u] = j + u < nbk ? __ldg(xc + (pds_size)__ldg(cp + u) * BS) : 0.0;
#pragma unroll
      for (int u = 0; u < U; u++)
        if (j + u < nbk) s = fma(a[u], xv[u], s);
    }
  }
  double t = s; /* the row's lanes in order: ((s_0 + s_1) + s_2) + ... */
#pragma unroll
  for (int d = 1; d < BS; d++) t += __shfl_down_sync(FULL, s, d);
  if (act && c == 0) y[i] = bsr_out(t, alpha, beta, y, i);
}

// ---- vec: even bs, 16-byte vectors ------------------------------------------------------------------------------
// Row-major: H = bs/2 lanes per scalar row (lane h: columns 2h, 2h+1), 32/H rows per warp (bs = 6: lanes 30, 31
// idle). Column-major: bs*H lanes per block row (lane (c, h): rows 2h, 2h+1 of column c), the column partials of a
// row added by shuffles in column order.
template <int BS, int LAYOUT, int U>
__global__ void __launch_bounds__(BSR_T, 1) bsr_vec_k(pds_int nbrows, const pds_size *__restrict__ rp,
                                                    const pds_int *__restrict__ ci, const double *__restrict__ v,
                                                    double alpha, const double *__restrict__ x, double beta,
                                                    double *__restrict__ y) {
  constexpr int  H = BS / 2, BB = BS * BS, VS = BB / 2; /* double2 per block */
  const int      lane = threadIdx.x & 31;
  const pds_size w    = ((pds_size)blockIdx.x * BSR_T + threadIdx.x) >> 5;

  if (LAYOUT == PDS_CUDA_BSR_ROW) {
    constexpr int  RW = 32 / H;
    const int      q = lane / H, h = lane - q * H;
    const pds_size i   = w * RW + q;
    const bool     act = q < RW && i < (pds_size)nbrows * BS;
    double         s   = 0;

    if (act) {
      const pds_int   B   = (pds_int)(i / BS);
      const int       r   = (int)(i - (pds_size)B * BS);
      const pds_size  k0  = rp[B];
      const int       nbk = (int)(rp[B + 1] - k0);
      const double2  *vp  = reinterpret_cast<const double2 *>(v + k0 * BB + r * BS) + h;
      const double2  *x2  = reinterpret_cast<const double2 *>(x) + h;
      const pds_int  *cp  = ci + k0;

      for (int j = 0; j < nbk; j += U, vp += U * VS, cp += U) {
        double2 a[U], xv[U];

#pragma unroll
        for (int u = 0; u < U; u++) a[u] = j + u < nbk ? __ldcs(vp + u * VS) : make_double2(0, 0);
#pragma unroll
        for (int u = 0; u < U; u++) xv[u] = j + u < nbk ? __ldg(x2 + (pds_size)__ldg(cp + u) * H) : make_double2(0, 0);
#pragma unroll
        for (int u = 0; u < U; u++)
          if (j + u < nbk) s = fma(a[u].y, xv[u].y, fma(a[u].x, xv[u].x, s));
      }
    }
    double t = s;
#pragma unroll
    for (int d = 1; d < H; d++) t += __shfl_down_sync(FULL, s, d);
    if (act && h == 0) y[i] = bsr_out(t, alpha, beta, y, i);
  } else {
    constexpr int  L = BS * H, BW = 32 / L;
    const int      q = lane / L, p = lane - q * L, c = p / H, h = p - c * H;
    const pds_size B   = w * BW + q;
    const bool     act = q < BW && B < (pds_size)nbrows;
    double         s0 = 0, s1 = 0;

    if (act) {
      const pds_size  k0  = rp[B];
      const int       nbk = (int)(rp[B + 1] - k0);
      const double2  *vp  = reinterpret_cast<const double2 *>(v + k0 * BB) + p;
      const double   *xc  = x + c;
      const pds_int  *cp  = ci + k0;

      for (int j = 0; j < nbk; j += U, vp += U * VS, cp += U) {
        double2 a[U];
        double  xv[U];

#pragma unroll
        for (int u = 0; u < U; u++) a[u] = j + u < nbk ? __ldcs(vp + u * VS) : make_double2(0, 0);
#pragma unroll
        for (int u = 0; u < U; u++) xv[u] = j + u < nbk ? __ldg(xc + (pds_size)__ldg(cp + u) * BS) : 0.0;
#pragma unroll
        for (int u = 0; u < U; u++)
          if (j + u < nbk) s0 = fma(a[u].x, xv[u], s0), s1 = fma(a[u].y, xv[u], s1);
      }
    }
    double t0 = s0, t1 = s1;
#pragma unroll
    for (int d = 1; d < BS; d++) t0 += __shfl_down_sync(FULL, s0, d * H), t1 += __shfl_down_sync(FULL, s1, d * H);
    if (act && c == 0) {
      const pds_size i = B * BS + 2 * h;

      y[i]     = bsr_out(t0, alpha, beta, y, i);
      y[i + 1] = bsr_out(t1, alpha, beta, y, i + 1);
    }
  }
}

// ---- pipe: persistent CTAs, groups of block rows staged into shared memory by cp.async ------------------------
// cp.async and the L2 policy need sm_80; older targets (PDS_CUDA_ARCHS) copy through registers instead, in order,
// which the barrier after cp_wait covers as well
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define BSR_CP_ASYNC 1
#else
#define BSR_CP_ASYNC 0
#endif
__device__ __forceinline__ unsigned long long l2_evict_first() {
  unsigned long long p = 0;
#if BSR_CP_ASYNC
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(p));
#endif
  return p;
}
__device__ __forceinline__ void cp16(unsigned dst, const void *src, unsigned long long pol) {
#if BSR_CP_ASYNC
  asm volatile("cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, %2;" ::"r"(dst), "l"(src), "l"(pol) : "memory");
#else
  *static_cast<double2 *>(__cvta_shared_to_generic(dst)) = *static_cast<const double2 *>(src);
#endif
}
__device__ __forceinline__ void cp8(unsigned dst, const void *src, unsigned long long pol) {
#if BSR_CP_ASYNC
  asm volatile("cp.async.ca.shared.global.L2::cache_hint [%0], [%1], 8, %2;" ::"r"(dst), "l"(src), "l"(pol) : "memory");
#else
  *static_cast<double *>(__cvta_shared_to_generic(dst)) = *static_cast<const double *>(src);
#endif
}
__device__ __forceinline__ void cp4(unsigned dst, const void *src, unsigned long long pol) {
#if BSR_CP_ASYNC
  asm volatile("cp.async.ca.shared.global.L2::cache_hint [%0], [%1], 4, %2;" ::"r"(dst), "l"(src), "l"(pol) : "memory");
#else
  *static_cast<int *>(__cvta_shared_to_generic(dst)) = *static_cast<const int *>(src);
#endif
}
__device__ __forceinline__ void cp_commit() {
#if BSR_CP_ASYNC
  asm volatile("cp.async.commit_group;" ::: "memory");
#endif
}
template <int N> __device__ __forceinline__ void cp_wait() {
#if BSR_CP_ASYNC
  asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
#endif
}

// n doubles from src to shared memory: element j lands at byte dst + 8 (h + j), h = 1 when src is 8 mod 16 (so
// that the 16-byte pieces line up); dst 16-byte aligned. The NT threads share the pieces.
template <int NT>
__device__ __forceinline__ void stage_run(unsigned dst, const double *src, int n, unsigned long long pol, int tid) {
  if (n <= 0) return;
  if (((size_t)src >> 3) & 1) {
    if (tid == 0) cp8(dst + 8, src, pol);
    src += 1, n -= 1, dst += 16;
  }
  const int np = n >> 1;

  for (int p = tid; p < np; p += NT) cp16(dst + 16 * p, src + 2 * p, pol);
  if ((n & 1) && tid == NT - 1) cp8(dst + 16 * np, src + 2 * np, pol);
}

// shared memory of one stage: the values of up to CAP blocks (interleaved: bs^2 runs of RS), then CAP column indices
template <int BS, int LAYOUT, int NT, int S> struct bsr_pipe_cfg {
  static constexpr int BB = BS * BS, RB = NT / BS, CAP = RB * 8, RS = CAP + 2;
  static constexpr int VD    = LAYOUT == PDS_CUDA_BSR_INTERLEAVED ? BB * RS : CAP * BB + 2; /* even */
  static constexpr int VB    = VD * 8;
  static constexpr int STAGE = VB + (CAP * 4 + 15) / 16 * 16;
  static constexpr int SMEM  = S * STAGE;
};

// an item: blocks [k0, k1) (at most CAP) of group g, whose blocks are [gs, ge); g >= ngroups: none left
struct bsr_item {
  pds_int  g;
  pds_size gs, ge, k0, k1;
};
template <int RB, int CAP>
__device__ __forceinline__ void item_group(bsr_item &it, pds_int g, pds_int ngroups, pds_int nbrows,
                                           const pds_size *__restrict__ rp) {
  it.g = g;
  if (g < ngroups) {
    const pds_size b0 = (pds_size)g * RB, b1 = b0 + RB < (pds_size)nbrows ? b0 + RB : (pds_size)nbrows;

    it.gs = rp[b0], it.ge = rp[b1], it.k0 = it.gs, it.k1 = it.ge - it.gs > CAP ? it.gs + CAP : it.ge;
  }
}
template <int RB, int CAP>
__device__ __forceinline__ void item_next(bsr_item &it, pds_int ngroups, pds_int nbrows,
                                          const pds_size *__restrict__ rp) {
  if (it.k1 < it.ge) it.k0 = it.k1, it.k1 = it.ge - it.k1 > CAP ? it.k1 + CAP : it.ge;
  else item_group<RB, CAP>(it, it.g + (pds_int)gridDim.x, ngroups, nbrows, rp);
}

template <int BS, int LAYOUT, int NT, int S>
__device__ __forceinline__ void pipe_issue(const bsr_item &it, pds_int ngroups, unsigned dst, pds_size nnzb,
                                           const pds_int *__restrict__ ci, const double *__restrict__ v,
                                           unsigned long long pol) {
  using C = bsr_pipe_cfg<BS, LAYOUT, NT, S>;
  const int tid = threadIdx.x;

  if (it.g < ngroups) {
    const int nk = (int)(it.k1 - it.k0);

    if (LAYOUT == PDS_CUDA_BSR_INTERLEAVED)
      for (int e = 0; e < C::BB; e++) stage_run<NT>(dst + e * C::RS * 8, v + (pds_size)e * nnzb + it.k0, nk, pol, tid);
    else stage_run<NT>(dst, v + it.k0 * C::BB, nk * C::BB, pol, tid);
    for (int q = tid; q < nk; q += NT) cp4(dst + C::VB + 4 * q, ci + it.k0 + q, pol);
  }
  cp_commit(); /* also when empty: one group per item keeps the wait counts right */
}

template <int BS, int LAYOUT, int NT, int S>
__global__ void __launch_bounds__(NT) bsr_pipe_k(pds_int nbrows, pds_size nnzb, const pds_size *__restrict__ rp,
                                                  const pds_int *__restrict__ ci, const double *__restrict__ v,
                                                  double alpha, const double *__restrict__ x, double beta,
                                                  double *__restrict__ y) {
  using C = bsr_pipe_cfg<BS, LAYOUT, NT, S>;
  constexpr int BB = C::BB, RB = C::RB, CAP = C::CAP, U = 4;
  extern __shared__ __align__(16) unsigned char bsr_smem[];
  const int                tid = threadIdx.x, lb = tid / BS, r = tid - lb * BS;
  const pds_int            ngroups = (pds_int)(((pds_size)nbrows + RB - 1) / RB);
  const unsigned long long pol     = l2_evict_first();
  const unsigned           sbase   = (unsigned)__cvta_generic_to_shared(bsr_smem);
  bsr_item                 is, ic;

  item_group<RB, CAP>(is, (pds_int)blockIdx.x, ngroups, nbrows, rp);
  ic = is;
#pragma unroll
  for (int p = 0; p < S - 1; p++) {
    pipe_issue<BS, LAYOUT, NT, S>(is, ngroups, sbase + p * C::STAGE, nnzb, ci, v, pol);
    item_next<RB, CAP>(is, ngroups, nbrows, rp);
  }
  double   s = 0;
  pds_size kr0 = 0, kr1 = 0, B = 0;
  bool     act = false;
  int      st  = 0;

  while (ic.g < ngroups) {
    if (ic.k0 == ic.gs) { /* a new group: this thread's block row and scalar row */
      B   = (pds_size)ic.g * RB + lb;
      act = lb < RB && B < (pds_size)nbrows;
      s   = 0;
      if (act) kr0 = rp[B], kr1 = rp[B + 1];
    }
    pipe_issue<BS, LAYOUT, NT, S>(is, ngroups, sbase + ((st + S - 1) % S) * C::STAGE, nnzb, ci, v, pol);
    item_next<RB, CAP>(is, ngroups, nbrows, rp);
    cp_wait<S - 1>();
    __syncthreads();
    if (act) {
      const unsigned char *sb  = bsr_smem + st * C::STAGE;
      const pds_size       ka  = kr0 > ic.k0 ? kr0 : ic.k0, kb = kr1 < ic.k1 ? kr1 : ic.k1;
      const int            nbk = kb > ka ? (int)(kb - ka) : 0, j0 = (int)(ka - ic.k0);
      const int           *sc  = reinterpret_cast<const int *>(sb + C::VB) + j0;

      if (LAYOUT != PDS_CUDA_BSR_INTERLEAVED) {
        const int     hv = (int)(((size_t)(v + ic.k0 * BB) >> 3) & 1);
        const double *sv = reinterpret_cast<const double *>(sb) + hv + j0 * BB + (LAYOUT == PDS_CUDA_BSR_ROW ? r * BS : r);

        for (int j = 0; j < nbk; j += U, sv += U * BB) {
          const double *xb[U];
          double        a[U][BS], xv[U][BS]; /* all loads first, then the sums */

#pragma unroll
          for (int u = 0; u < U; u++) xb[u] = x + (pds_size)sc[j + u < nbk ? j + u : j] * BS;
#pragma unroll
          for (int c = 0; c < BS; c++)
#pragma unroll
            for (int u = 0; u < U; u++)
              if (j + u < nbk)
                a[u][c] = sv[u * BB + (LAYOUT == PDS_CUDA_BSR_ROW ? c : c * BS)], xv[u][c] = __ldg(xb[u] + c);
#pragma unroll
          for (int u = 0; u < U; u++)
            if (j + u < nbk) {
              double t = 0;

#pragma unroll
              for (int c = 0; c < BS; c++) t = fma(a[u][c], xv[u][c], t);
              s += t;
            }
        }
      } else { /* entry e of the item's block j at e RS + h_e + j, h_e the parity of its global address */
        const int     hv = (int)((((size_t)v >> 3) + ic.k0) & 1), np = (int)(nnzb & 1);
        const double *sv = reinterpret_cast<const double *>(sb) + j0;
        int           off[BS];

#pragma unroll
        for (int c = 0; c < BS; c++) {
          const int e = r * BS + c;

          off[c] = e * C::RS + ((hv + e * np) & 1);
        }
        for (int j = 0; j < nbk; j += U, sv += U) {
          const double *xb[U];
          double        t[U];

#pragma unroll
          for (int u = 0; u < U; u++) xb[u] = x + (pds_size)sc[j + u < nbk ? j + u : j] * BS, t[u] = 0;
#pragma unroll
          for (int c = 0; c < BS; c++)
#pragma unroll
            for (int u = 0; u < U; u++)
              if (j + u < nbk) t[u] = fma(sv[off[c] + u], __ldg(xb[u] + c), t[u]);
#pragma unroll
          for (int u = 0; u < U; u++)
            if (j + u < nbk) s += t[u];
        }
      }
      if (ic.k1 == ic.ge) y[B * BS + r] = bsr_out(s, alpha, beta, y, B * BS + r);
    }
    __syncthreads(); /* the stage is refilled next */
    item_next<RB, CAP>(ic, ngroups, nbrows, rp);
    st = st + 1 == S ? 0 : st + 1;
  }
  cp_wait<0>();
}

// any bs: one thread per scalar row, row-major blocks (the order of bsr_rows_generic in kernel_bodies.h)
template <bool BETA>
__global__ void bsr_generic_k(pds_int nbrows, int bs, const pds_size *__restrict__ rp, const pds_int *__restrict__ ci,
                              const double *__restrict__ v, double alpha, const double *__restrict__ x, double beta,
                              double *__restrict__ y) {
  const pds_size i = (pds_size)blockIdx.x * blockDim.x + threadIdx.x;

  if (i >= (pds_size)nbrows * bs) return;
  const pds_int  ib = (pds_int)(i / bs);
  const int      r  = (int)(i - (pds_size)ib * bs);
  const pds_size bb = (pds_size)bs * bs;
  double         s  = 0;

  for (pds_size k = rp[ib]; k < rp[ib + 1]; k++) {
    const double *blk = v + k * bb + (pds_size)r * bs;
    const double *xb  = x + (pds_size)ci[k] * bs;
    double        t   = 0;

    for (int c = 0; c < bs; c++) t += blk[c] * xb[c];
    s += t;
  }
  y[i] = BETA ? alpha * s + beta * y[i] : alpha * s;
}


__global__ void bsr_diag_k(pds_int nb, int bs, const pds_size *__restrict__ rp, const pds_int *__restrict__ ci,
                           const double *__restrict__ v, double *__restrict__ d) {
  const pds_size i = (pds_size)blockIdx.x * blockDim.x + threadIdx.x;

  if (i >= (pds_size)nb * bs) return;
  const pds_int ib = (pds_int)(i / bs);
  const int     r  = (int)(i - (pds_size)ib * bs);
  double        s  = 0;

  for (pds_size k = rp[ib]; k < rp[ib + 1]; k++)
    if (ci[k] == ib) s += v[(k * bs + r) * bs + r];
  d[i] = s;
}

// the diagonal blocks, a thread per entry (kernel_bodies.h's bsr_diag_block: the same sums)
__global__ void bsr_diag_blocks_k(pds_int nb, int bs, const pds_size *__restrict__ rp, const pds_int *__restrict__ ci,
                                  const double *__restrict__ v, double *__restrict__ d) {
  const pds_size i  = (pds_size)blockIdx.x * blockDim.x + threadIdx.x;
  const pds_size bb = (pds_size)bs * bs;

  if (i >= (pds_size)nb * bb) return;
  const pds_int  ib = (pds_int)(i / bb);
  const pds_size e  = i - (pds_size)ib * bb;
  double         s  = 0;

  for (pds_size k = rp[ib]; k < rp[ib + 1]; k++)
    if (ci[k] == ib) s += v[k * bb + e];
  d[i] = s;
}

// ---- point-block Jacobi ------------------------------------------------------------------------------------
template <int BS>
__global__ void invert_k(pds_size nb, double *__restrict__ blocks, unsigned long long *bad) {
  const pds_size b = (pds_size)blockIdx.x * blockDim.x + threadIdx.x;
  double         a[BS][BS];
  int            piv[BS];
  bool           ok = true;

  if (b >= nb) return;
  double *m = blocks + b * BS * BS;
#pragma unroll
  for (int i = 0; i < BS; i++)
#pragma unroll
    for (int j = 0; j < BS; j++) a[i][j] = m[i * BS + j];
#pragma unroll
  for (int k = 0; k < BS; k++) {
    int    r    = k;
    double amax = fabs(a[k][k]);

#pragma unroll
    for (int i = k + 1; i < BS; i++)
      if (fabs(a[i][k]) > amax) amax = fabs(a[i][k]), r = i;
    ok      = ok && amax > 0 && isfinite(amax); /* after a singular pivot the block is discarded */
    piv[k]  = r;
#pragma unroll
    for (int i = k + 1; i < BS; i++)
#pragma unroll
      for (int j = 0; j < BS; j++) { /* selects, not branches: the block stays in registers */
        const double t = a[k][j], u = a[i][j];

        a[k][j] = r == i ? u : t;
        a[i][j] = r == i ? t : u;
      }
    const double inv = 1.0 / a[k][k];

    a[k][k] = 1.0;
#pragma unroll
    for (int j = 0; j < BS; j++) a[k][j] = __dmul_rn(a[k][j], inv);
#pragma unroll
    for (int i = 0; i < BS; i++) {
      if (i == k) continue;
      const double f = a[i][k];

      a[i][k] = 0.0;
#pragma unroll
      for (int j = 0; j < BS; j++) a[i][j] = __dsub_rn(a[i][j], __dmul_rn(f, a[k][j])); /* ref's rounding: no FMA */
    }
  }
  if (!ok) {
    atomicMin(bad, (unsigned long long)b); // integer: the smallest singular block, as ref reports the first
    return;
  }
#pragma unroll
  for (int k = BS - 1; k >= 0; k--)
#pragma unroll
    for (int q = k + 1; q < BS; q++)
#pragma unroll
      for (int i = 0; i < BS; i++) {
        const double t = a[i][k], u = a[i][q];

        a[i][k] = piv[k] == q ? u : t;
        a[i][q] = piv[k] == q ? t : u;
      }
#pragma unroll
  for (int i = 0; i < BS; i++)
#pragma unroll
    for (int j = 0; j < BS; j++) m[i * BS + j] = a[i][j];
}

// bs > 8: the same steps in place in global memory; piv: nb * bs ints of scratch
__global__ void invert_generic_k(pds_size nb, int bs, double *__restrict__ blocks, int *__restrict__ pivs,
                                 unsigned long long *bad) {
  const pds_size b = (pds_size)blockIdx.x * blockDim.x + threadIdx.x;

  if (b >= nb) return;
  double *a   = blocks + b * bs * bs;
  int    *piv = pivs + b * bs;

  for (int k = 0; k < bs; k++) {
    int    r    = k;
    double amax = fabs(a[k * bs + k]);

    for (int i = k + 1; i < bs; i++)
      if (fabs(a[i * bs + k]) > amax) amax = fabs(a[i * bs + k]), r = i;
    if (!(amax > 0) || !isfinite(amax)) {
      atomicMin(bad, (unsigned long long)b);
      return;
    }
    piv[k] = r;
    if (r != k)
      for (int j = 0; j < bs; j++) {
        double t = a[k * bs + j];

        a[k * bs + j] = a[r * bs + j];
        a[r * bs + j] = t;
      }
    const double inv = 1.0 / a[k * bs + k];

    a[k * bs + k] = 1.0;
    for (int j = 0; j < bs; j++) a[k * bs + j] = __dmul_rn(a[k * bs + j], inv);
    for (int i = 0; i < bs; i++) {
      if (i == k) continue;
      const double f = a[i * bs + k];

      a[i * bs + k] = 0.0;
      for (int j = 0; j < bs; j++) a[i * bs + j] = __dsub_rn(a[i * bs + j], __dmul_rn(f, a[k * bs + j]));
    }
  }
  for (int k = bs - 1; k >= 0; k--)
    if (piv[k] != k)
      for (int i = 0; i < bs; i++) {
        double t = a[i * bs + k];

        a[i * bs + k]      = a[i * bs + piv[k]];
        a[i * bs + piv[k]] = t;
      }
}

__global__ void set_ull_k(unsigned long long *p, unsigned long long v) { *p = v; }

#define APPLY_NB 32 // blocks per CTA
template <int BS>
__global__ void __launch_bounds__(256) apply_k(pds_size nb, const double *__restrict__ inv,
                                               const double *__restrict__ x, double *__restrict__ y) {
  constexpr int  BB = BS * BS;
  __shared__ double sm[APPLY_NB * BB], sx[APPLY_NB * BS];
  const pds_size b0  = (pds_size)blockIdx.x * APPLY_NB;
  const int      nbl = nb - b0 < APPLY_NB ? (int)(nb - b0) : APPLY_NB;

  for (int e = threadIdx.x; e < nbl * BB; e += 256) sm[e] = __ldcs(&inv[b0 * BB + e]);
  for (int e = threadIdx.x; e < nbl * BS; e += 256) sx[e] = x[b0 * BS + e];
  __syncthreads();
  for (int t = threadIdx.x; t < nbl * BS; t += 256) {
    const int lb = t / BS, r = t - lb * BS;
    double    s  = 0;

#pragma unroll
    for (int c = 0; c < BS; c++) s = __dadd_rn(s, __dmul_rn(sm[lb * BB + r * BS + c], sx[lb * BS + c]));
    y[b0 * BS + t] = s;
  }
}

__global__ void apply_generic_k(pds_size nb, int bs, const double *__restrict__ inv, const double *__restrict__ x,
                                double *__restrict__ y) {
  const pds_size i = (pds_size)blockIdx.x * blockDim.x + threadIdx.x;

  if (i >= nb * bs) return;
  const pds_size b = i / bs;
  const int      r = (int)(i - b * bs);
  double         s = 0;

  for (int c = 0; c < bs; c++) s = __dadd_rn(s, __dmul_rn(inv[(b * bs + r) * bs + c], x[b * bs + c]));
  y[i] = s;
}


// ---- launchers ------------------------------------------------------------------------------------------------
// pipe: a persistent grid of (CTAs that fit per SM) x SMs, at most one CTA per group; the shared-memory limit is
// raised and the occupancy read once per kernel and device
template <int BS, int LAYOUT, int NT, int S>
static cudaError_t pipe_launch(cudaStream_t s, pds_int nbrows, pds_size nnzb, const pds_size *rp, const pds_int *ci,
                               const double *v, double alpha, const double *x, double beta, double *y) {
  using C = bsr_pipe_cfg<BS, LAYOUT, NT, S>;
  static std::atomic<int> per_sm[64]; /* CTAs per SM, by device; 0: not known yet */
  const auto              k = bsr_pipe_k<BS, LAYOUT, NT, S>;
  int                     dev = 0, sms = 0, nb = 0;
  cudaError_t             e;

  if ((e = cudaGetDevice(&dev)) != cudaSuccess) return e;
  if ((e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) != cudaSuccess) return e;
  if (dev >= 64 || (nb = per_sm[dev].load(std::memory_order_relaxed)) == 0) {
    if ((e = cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, C::SMEM)) != cudaSuccess) return e;
    if ((e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, k, NT, C::SMEM)) != cudaSuccess) return e;
    if (nb < 1) return cudaErrorInvalidConfiguration;
    if (dev < 64) per_sm[dev].store(nb, std::memory_order_relaxed);
  }
  const pds_size groups = ((pds_size)nbrows + C::RB - 1) / C::RB, g = (pds_size)nb * sms < groups ? (pds_size)nb * sms : groups;

  k<<<(unsigned)g, NT, C::SMEM, s>>>(nbrows, nnzb, rp, ci, v, alpha, x, beta, y);
  return cudaGetLastError();
}

static unsigned direct_grid(pds_size lanes_rows, int per_warp) { /* CTAs of BSR_T threads for rows at per_warp a warp */
  const pds_size warps = (lanes_rows + per_warp - 1) / per_warp;

  return (unsigned)((warps * 32 + BSR_T - 1) / BSR_T);
}

// The rule (PDS_CUDA_BSR_AUTO; docs/dev.md repeats it), from bench/gpu/bsr_tune on an H200 (7-point block pattern,
// % of the copy bandwidth): vec reaches 95% at bs 4, 91% at bs 6, 98% at bs 8 (100^3 cells), row- and column-major
// alike at bs 4 and 8 (column-major bs 6: 77%, 18 lanes a block row leave 14 of 32 idle). Odd bs has no 16-byte
// row pieces: at 100^3 cells pipe with 64 threads reaches 81% (bs 3), 77% (bs 5, lane the same within 0.5%), 83%
// (bs 7, lane 74%); lane wins below a few million rows (64^3 cells, bs 3: 82% against 74%) and on small matrices.
//   row- or column-major blocks, even bs, vals and x 16-byte aligned   -> vec
//   row-major blocks, odd bs, at least 2^21 scalar rows                 -> pipe, 64 threads, 2 stages (bs 1 not measured)
//   otherwise (smaller, column-major odd bs, 8-byte aligned, interleaved) -> lane
static int bsr_rule_kernel(int bs, int layout, bool aligned16, pds_size n) {
  if (layout != PDS_CUDA_BSR_INTERLEAVED && bs % 2 == 0 && aligned16) return PDS_CUDA_BSR_VEC;
  if (layout == PDS_CUDA_BSR_ROW && bs % 2 == 1 && n >= ((pds_size)1 << 21)) return PDS_CUDA_BSR_PIPE_64;
  return PDS_CUDA_BSR_LANE;
}

template <int BS>
static cudaError_t bsr_launch(cudaStream_t s, int layout, int kernel, pds_int nbrows, pds_size nnzb, const pds_size *rp,
                              const pds_int *ci, const double *v, double alpha, const double *x, double beta,
                              double *y) {
  const bool     aligned16 = (((uintptr_t)v | (uintptr_t)x) & 15) == 0;
  const pds_size n         = (pds_size)nbrows * BS;
  constexpr int  ROW = PDS_CUDA_BSR_ROW, COL = PDS_CUDA_BSR_COL, INT = PDS_CUDA_BSR_INTERLEAVED;

  if (kernel == PDS_CUDA_BSR_AUTO) kernel = bsr_rule_kernel(BS, layout, aligned16, n);
  switch (kernel) {
  case PDS_CUDA_BSR_PIPE:
    if (layout == COL) return pipe_launch<BS, COL, 128, 2>(s, nbrows, nnzb, rp, ci, v, alpha, x, beta, y);
    if (layout == INT) return pipe_launch<BS, INT, 128, 2>(s, nbrows, nnzb, rp, ci, v, alpha, x, beta, y);
    return pipe_launch<BS, ROW, 128, 2>(s, nbrows, nnzb, rp, ci, v, alpha, x, beta, y);
  case PDS_CUDA_BSR_PIPE_64:
    if (layout != ROW) return cudaErrorNotSupported;
    return pipe_launch<BS, ROW, 64, 2>(s, nbrows, nnzb, rp, ci, v, alpha, x, beta, y);
  case PDS_CUDA_BSR_VEC:
    if constexpr (BS % 2 == 0) {
      if (!aligned16 || layout == INT) return cudaErrorNotSupported;
      if (layout == COL)
        bsr_vec_k<BS, COL, 4><<<direct_grid(nbrows, 32 / (BS * BS / 2)), BSR_T, 0, s>>>(nbrows, rp, ci, v, alpha, x, beta, y);
      else bsr_vec_k<BS, ROW, 4><<<direct_grid(n, 64 / BS), BSR_T, 0, s>>>(nbrows, rp, ci, v, alpha, x, beta, y);
      return cudaGetLastError();
    }
    return cudaErrorNotSupported;
  case PDS_CUDA_BSR_LANE:
    if (layout == COL) bsr_lane_k<BS, COL, 8><<<direct_grid(n, 32 / BS), BSR_T, 0, s>>>(nbrows, nnzb, rp, ci, v, alpha, x, beta, y);
    else if (layout == INT) bsr_lane_k<BS, INT, 8><<<direct_grid(n, 32 / BS), BSR_T, 0, s>>>(nbrows, nnzb, rp, ci, v, alpha, x, beta, y);
    else bsr_lane_k<BS, ROW, 8><<<direct_grid(n, 32 / BS), BSR_T, 0, s>>>(nbrows, nnzb, rp, ci, v, alpha, x, beta, y);
    return cudaGetLastError();
  default: return cudaErrorInvalidValue;
  }
}

extern "C" {

cudaError_t pds_cuda_bsr_spmv(cudaStream_t s, int layout, int kernel, pds_int nbrows, int bs, pds_size nnzb,
                              const pds_size *browptr, const pds_int *bcolidx, const pds_real *vals, pds_real alpha,
                              const pds_real *x, pds_real beta, pds_real *y) {
  if (nbrows <= 0) return cudaSuccess;
  switch (bs) {
  case 1: return bsr_launch<1>(s, layout, kernel, nbrows, nnzb, browptr, bcolidx, vals, alpha, x, beta, y);
  case 2: return bsr_launch<2>(s, layout, kernel, nbrows, nnzb, browptr, bcolidx, vals, alpha, x, beta, y);
  case 3: return bsr_launch<3>(s, layout, kernel, nbrows, nnzb, browptr, bcolidx, vals, alpha, x, beta, y);
  case 4: return bsr_launch<4>(s, layout, kernel, nbrows, nnzb, browptr, bcolidx, vals, alpha, x, beta, y);
  case 5: return bsr_launch<5>(s, layout, kernel, nbrows, nnzb, browptr, bcolidx, vals, alpha, x, beta, y);
  case 6: return bsr_launch<6>(s, layout, kernel, nbrows, nnzb, browptr, bcolidx, vals, alpha, x, beta, y);
  case 7: return bsr_launch<7>(s, layout, kernel, nbrows, nnzb, browptr, bcolidx, vals, alpha, x, beta, y);
  case 8: return bsr_launch<8>(s, layout, kernel, nbrows, nnzb, browptr, bcolidx, vals, alpha, x, beta, y);
  default: {
    const pds_size n = (pds_size)nbrows * bs;

    if (layout != PDS_CUDA_BSR_ROW || (kernel != PDS_CUDA_BSR_AUTO)) return cudaErrorNotSupported;
    if (beta != 0) bsr_generic_k<true><<<(unsigned)((n + 255) / 256), 256, 0, s>>>(nbrows, bs, browptr, bcolidx, vals, alpha, x, beta, y);
    else bsr_generic_k<false><<<(unsigned)((n + 255) / 256), 256, 0, s>>>(nbrows, bs, browptr, bcolidx, vals, alpha, x, beta, y);
    return cudaGetLastError();
  }
  }
}

cudaError_t pds_cuda_bsr_diag(cudaStream_t s, pds_int nb, int bs, const pds_size *browptr, const pds_int *bcolidx,
                              const pds_real *vals, pds_real *d) {
  const pds_size n = (pds_size)nb * bs;

  if (n <= 0) return cudaSuccess;
  bsr_diag_k<<<(unsigned)((n + 255) / 256), 256, 0, s>>>(nb, bs, browptr, bcolidx, vals, d);
  return cudaGetLastError();
}

cudaError_t pds_cuda_bsr_diag_blocks(cudaStream_t s, pds_int nb, int bs, const pds_size *browptr,
                                     const pds_int *bcolidx, const pds_real *vals, pds_real *blocks) {
  const pds_size n = (pds_size)nb * bs * bs;

  if (n <= 0) return cudaSuccess;
  bsr_diag_blocks_k<<<(unsigned)((n + 255) / 256), 256, 0, s>>>(nb, bs, browptr, bcolidx, vals, blocks);
  return cudaGetLastError();
}

cudaError_t pds_cuda_blocks_invert(cudaStream_t s, pds_size nb, int bs, pds_real *blocks, int *piv,
                                   unsigned long long *bad) {
  const unsigned g = (unsigned)((nb + 127) / 128);

  set_ull_k<<<1, 1, 0, s>>>(bad, (unsigned long long)nb);
  if (nb <= 0) return cudaGetLastError();
  switch (bs) {
  case 1: invert_k<1><<<g, 128, 0, s>>>(nb, blocks, bad); break;
  case 2: invert_k<2><<<g, 128, 0, s>>>(nb, blocks, bad); break;
  case 3: invert_k<3><<<g, 128, 0, s>>>(nb, blocks, bad); break;
  case 4: invert_k<4><<<g, 128, 0, s>>>(nb, blocks, bad); break;
  case 5: invert_k<5><<<g, 128, 0, s>>>(nb, blocks, bad); break;
  case 6: invert_k<6><<<g, 128, 0, s>>>(nb, blocks, bad); break;
  case 7: invert_k<7><<<g, 128, 0, s>>>(nb, blocks, bad); break;
  case 8: invert_k<8><<<g, 128, 0, s>>>(nb, blocks, bad); break;
  default: invert_generic_k<<<g, 128, 0, s>>>(nb, bs, blocks, piv, bad); break;
  }
  return cudaGetLastError();
}

cudaError_t pds_cuda_blocks_apply(cudaStream_t s, pds_size nb, int bs, const pds_real *inv, const pds_real *x,
                                  pds_real *y) {
  const unsigned g = (unsigned)((nb + APPLY_NB - 1) / APPLY_NB);

  if (nb <= 0) return cudaSuccess;
  switch (bs) {
  case 1: apply_k<1><<<g, 256, 0, s>>>(nb, inv, x, y); break;
  case 2: apply_k<2><<<g, 256, 0, s>>>(nb, inv, x, y); break;
  case 3: apply_k<3><<<g, 256, 0, s>>>(nb, inv, x, y); break;
  case 4: apply_k<4><<<g, 256, 0, s>>>(nb, inv, x, y); break;
  case 5: apply_k<5><<<g, 256, 0, s>>>(nb, inv, x, y); break;
  case 6: apply_k<6><<<g, 256, 0, s>>>(nb, inv, x, y); break;
  case 7: apply_k<7><<<g, 256, 0, s>>>(nb, inv, x, y); break;
  case 8: apply_k<8><<<g, 256, 0, s>>>(nb, inv, x, y); break;
  default: {
    const pds_size n = nb * bs;

    apply_generic_k<<<(unsigned)((n + 255) / 256), 256, 0, s>>>(nb, bs, inv, x, y);
  }
  }
  return cudaGetLastError();
}

} // extern "C"
