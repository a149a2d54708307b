/* src/backend/kernel_bodies.h: loop bodies shared by the CPU backends (ref runs them over the whole range,
 * omp over each thread's part), so both give bitwise the same results.
 *
 * Reductions are deterministic by construction: a vector is cut into fixed chunks of PDS_REDUCE_CHUNK entries
 * (independent of the thread count), each chunk is summed with 4 interleaved partial sums in a fixed order,
 * and the chunk sums are added in chunk order. */
#ifndef PDS_KERNEL_BODIES_H
#define PDS_KERNEL_BODIES_H

#include "backend.h"

#define PDS_REDUCE_CHUNK 2048

#if defined(__GNUC__)
#define PDS_INLINE static inline __attribute__((always_inline))
#else
#define PDS_INLINE static inline
#endif

/* RET F(args..., b) with b the literal 1..8 equal to bs (else bs itself): a PDS_INLINE body called this way is
   compiled once per block size with its loops over the block unrolled (BSR products, stencil7 points); the
   operations and their order are the source's either way, so the bits do not depend on it. RET: empty or return. */
#define PDS_DISPATCH_BS(bs, RET, F, ...)           \
  switch (bs) {                                    \
  case 1: RET F(__VA_ARGS__, 1); break;            \
  case 2: RET F(__VA_ARGS__, 2); break;            \
  case 3: RET F(__VA_ARGS__, 3); break;            \
  case 4: RET F(__VA_ARGS__, 4); break;            \
  case 5: RET F(__VA_ARGS__, 5); break;            \
  case 6: RET F(__VA_ARGS__, 6); break;            \
  case 7: RET F(__VA_ARGS__, 7); break;            \
  case 8: RET F(__VA_ARGS__, 8); break;            \
  default: RET F(__VA_ARGS__, bs); break;          \
  }

/* Two-lane vectors for the sums below (GCC and Clang): lane l of a pair of them holds partial sum l of
   chunk_dot's four, so each lane adds the same products in the same order as chunk_dot's scalar code. Written
   this way because compilers turn the scalar form of the multi-sum kernels into shuffles and stack spills. */
#if defined(__GNUC__)
#define PDS_V2D 1
typedef double pds_v2d __attribute__((vector_size(16)));
PDS_INLINE pds_v2d v2d_load(const pds_real *p) {
  pds_v2d v;

  __builtin_memcpy(&v, p, sizeof v);
  return v;
}
#endif

/* sum_{i in [i0,i1)} x_i y_i: 16 bytes and 2 flops per entry. Four partial sums s_l over the entries i = l mod 4
   (from i0), each in order, then (s_0 + s_1) + (s_2 + s_3): the order every backend reproduces. */
PDS_INLINE pds_real chunk_dot(const pds_real *restrict x, const pds_real *restrict y, pds_size i0, pds_size i1) {
  pds_real s0, s1, s2, s3;
  pds_size i = i0;
#if PDS_V2D
  pds_v2d lo = {0, 0}, hi = {0, 0};

  for (; i + 4 <= i1; i += 4) {
    lo += v2d_load(x + i) * v2d_load(y + i);
    hi += v2d_load(x + i + 2) * v2d_load(y + i + 2);
  }
  s0 = lo[0], s1 = lo[1], s2 = hi[0], s3 = hi[1];
#else
  s0 = s1 = s2 = s3 = 0;
  for (; i + 4 <= i1; i += 4) {
    s0 += x[i] * y[i];
    s1 += x[i + 1] * y[i + 1];
    s2 += x[i + 2] * y[i + 2];
    s3 += x[i + 3] * y[i + 3];
  }
#endif
  for (; i < i1; i++) s0 += x[i] * y[i];
  return (s0 + s1) + (s2 + s3);
}

/* d[q] = V_q . w over [i0,i1) for q < 4 in one pass over w: each sum in chunk_dot's order (so its bits), w read once
   for the four: 40 bytes and 8 flops per entry */
PDS_INLINE void chunk_dot4(const pds_real *const *V, const pds_real *restrict w, pds_size i0, pds_size i1, pds_real *d) {
  pds_real s[4][4];
  pds_size i = i0;
#if PDS_V2D
  pds_v2d lo[4] = {{0, 0}, {0, 0}, {0, 0}, {0, 0}}, hi[4] = {{0, 0}, {0, 0}, {0, 0}, {0, 0}};

  for (; i + 4 <= i1; i += 4) {
    pds_v2d wl = v2d_load(w + i), wh = v2d_load(w + i + 2);

    for (int q = 0; q < 4; q++) {
      lo[q] += v2d_load(V[q] + i) * wl;
      hi[q] += v2d_load(V[q] + i + 2) * wh;
    }
  }
  for (int q = 0; q < 4; q++) s[q][0] = lo[q][0], s[q][1] = lo[q][1], s[q][2] = hi[q][0], s[q][3] = hi[q][1];
#else
  for (int q = 0; q < 4; q++) s[q][0] = s[q][1] = s[q][2] = s[q][3] = 0;
  for (; i + 4 <= i1; i += 4)
    for (int q = 0; q < 4; q++)
      for (int l = 0; l < 4; l++) s[q][l] += V[q][i + l] * w[i + l];
#endif
  for (; i < i1; i++)
    for (int q = 0; q < 4; q++) s[q][0] += V[q][i] * w[i];
  for (int q = 0; q < 4; q++) d[q] = (s[q][0] + s[q][1]) + (s[q][2] + s[q][3]);
}

/* (x.y, x.z) over [i0,i1) in one pass: 24 bytes and 4 flops per entry; each sum in chunk_dot's order */
PDS_INLINE void chunk_dot2(const pds_real *restrict x, const pds_real *restrict y, const pds_real *restrict z,
                           pds_size i0, pds_size i1, pds_real *a, pds_real *b) {
  pds_real s0, s1, s2, s3, t0, t1, t2, t3;
  pds_size i = i0;
#if PDS_V2D
  pds_v2d slo = {0, 0}, shi = {0, 0}, tlo = {0, 0}, thi = {0, 0};

  for (; i + 4 <= i1; i += 4) {
    pds_v2d xl = v2d_load(x + i), xh = v2d_load(x + i + 2);

    slo += xl * v2d_load(y + i);
    shi += xh * v2d_load(y + i + 2);
    tlo += xl * v2d_load(z + i);
    thi += xh * v2d_load(z + i + 2);
  }
  s0 = slo[0], s1 = slo[1], s2 = shi[0], s3 = shi[1], t0 = tlo[0], t1 = tlo[1], t2 = thi[0], t3 = thi[1];
#else
  s0 = s1 = s2 = s3 = t0 = t1 = t2 = t3 = 0;
  for (; i + 4 <= i1; i += 4) {
    s0 += x[i] * y[i];
    s1 += x[i + 1] * y[i + 1];
    s2 += x[i + 2] * y[i + 2];
    s3 += x[i + 3] * y[i + 3];
    t0 += x[i] * z[i];
    t1 += x[i + 1] * z[i + 1];
    t2 += x[i + 2] * z[i + 2];
    t3 += x[i + 3] * z[i + 3];
  }
#endif
  for (; i < i1; i++) s0 += x[i] * y[i], t0 += x[i] * z[i];
  *a = (s0 + s1) + (s2 + s3);
  *b = (t0 + t1) + (t2 + t3);
}

/* max |x_i| over [i0,i1); NaN wins, so a NaN anywhere shows in the norm */
PDS_INLINE pds_real chunk_norm_inf(const pds_real *restrict x, pds_size i0, pds_size i1) {
  pds_real m = 0;

  for (pds_size i = i0; i < i1; i++) {
    pds_real a = x[i] < 0 ? -x[i] : x[i];

    if (a > m || a != a) m = a;
    if (m != m) break;
  }
  return m;
}


/* y_i = alpha sum_j a_ij x_j + beta y_i for rows [r0,r1): nnz*(8+4) + nrows*(8|16) + 8*x-traffic bytes */
PDS_INLINE void csr_rows(const struct pds_csr *A, pds_real alpha, const pds_real *restrict x, pds_real beta,
                         pds_real *restrict y, pds_int r0, pds_int r1) {
  const pds_size *rp = A->rowptr;
  const pds_int  *ci = A->colidx;
  const pds_real *v  = A->vals;

  for (pds_int i = r0; i < r1; i++) {
    pds_real s = 0;

    for (pds_size k = rp[i]; k < rp[i + 1]; k++) s += v[k] * x[ci[k]];
    y[i] = beta == 0 ? alpha * s : alpha * s + beta * y[i];
  }
}

/* BSR rows [r0,r1) with block size bs (a literal at the call sites, so the compiler unrolls it). */
PDS_INLINE void bsr_rows(const struct pds_bsr *A, int bs, pds_real alpha, const pds_real *restrict x, pds_real beta,
                         pds_real *restrict y, pds_int r0, pds_int r1) {
  const pds_size *rp = A->browptr;
  const pds_int  *ci = A->bcolidx;
  const pds_real *v  = A->vals;
  pds_real        s[64];

  for (pds_int i = r0; i < r1; i++) {
    for (int r = 0; r < bs; r++) s[r] = 0;
    for (pds_size k = rp[i]; k < rp[i + 1]; k++) {
      const pds_real *blk = v + k * bs * bs;
      const pds_real *xb  = x + (pds_size)ci[k] * bs;

      for (int r = 0; r < bs; r++) {
        pds_real t = 0;

        for (int c = 0; c < bs; c++) t += blk[r * bs + c] * xb[c];
        s[r] += t;
      }
    }
    for (int r = 0; r < bs; r++) {
      pds_size row = (pds_size)i * bs + r;

      y[row] = beta == 0 ? alpha * s[r] : alpha * s[r] + beta * y[row];
    }
  }
}

/* Generic bs: the same computation without the stack buffer limit. */
PDS_INLINE void bsr_rows_generic(const struct pds_bsr *A, int bs, pds_real alpha, const pds_real *restrict x,
                                 pds_real beta, pds_real *restrict y, pds_int r0, pds_int r1) {
  const pds_size *rp = A->browptr;
  const pds_int  *ci = A->bcolidx;
  const pds_real *v  = A->vals;

  for (pds_int i = r0; i < r1; i++) {
    for (int r = 0; r < bs; r++) {
      pds_real s = 0;

      for (pds_size k = rp[i]; k < rp[i + 1]; k++) {
        const pds_real *blk = v + k * bs * bs;
        const pds_real *xb  = x + (pds_size)ci[k] * bs;
        pds_real        t   = 0;

        for (int c = 0; c < bs; c++) t += blk[r * bs + c] * xb[c];
        s += t;
      }
      pds_size row = (pds_size)i * bs + r;

      y[row] = beta == 0 ? alpha * s : alpha * s + beta * y[row];
    }
  }
}

/* block row i's diagonal block (the sum of its blocks in column i, storage order from 0; zero if none) into d[bs^2]:
   the bsr group's diag_blocks (cuda_bsr.cu's bsr_diag_blocks_k sums the same way) */
PDS_INLINE void bsr_diag_block(const struct pds_bsr *A, pds_int i, pds_real *d) {
  const size_t bb = (size_t)A->bs * A->bs;

  for (size_t e = 0; e < bb; e++) d[e] = 0;
  for (pds_size k = A->browptr[i]; k < A->browptr[i + 1]; k++)
    if (A->bcolidx[k] == i)
      for (size_t e = 0; e < bb; e++) d[e] += A->vals[k * bb + e];
}

/* Dispatch rows of a BSR product to a kernel specialized for bs = 1..8, generic beyond. */
PDS_INLINE void bsr_rows_dispatch(const struct pds_bsr *A, pds_real alpha, const pds_real *x, pds_real beta,
                                  pds_real *y, pds_int r0, pds_int r1) {
  switch (A->bs) {
  case 1: bsr_rows(A, 1, alpha, x, beta, y, r0, r1); break;
  case 2: bsr_rows(A, 2, alpha, x, beta, y, r0, r1); break;
  case 3: bsr_rows(A, 3, alpha, x, beta, y, r0, r1); break;
  case 4: bsr_rows(A, 4, alpha, x, beta, y, r0, r1); break;
  case 5: bsr_rows(A, 5, alpha, x, beta, y, r0, r1); break;
  case 6: bsr_rows(A, 6, alpha, x, beta, y, r0, r1); break;
  case 7: bsr_rows(A, 7, alpha, x, beta, y, r0, r1); break;
  case 8: bsr_rows(A, 8, alpha, x, beta, y, r0, r1); break;
  default: bsr_rows_generic(A, A->bs, alpha, x, beta, y, r0, r1); break;
  }
}

/* n x n row-major blocks: C = A B (sub = 0) or C -= A B (sub = 1), each entry's sum from 0 in w order, rounded as it
   goes, then stored or subtracted: the block products of the block ILU(0) factorizations (stencil7_bodies.h,
   ilu0_bodies.h; their CUDA kernels write the same chain). C must not alias A or B. */
PDS_INLINE void blk_mul(const pds_real *restrict A, const pds_real *restrict B, pds_real *restrict C, int sub,
                        const int n) {
  for (int u = 0; u < n; u++)
    for (int v = 0; v < n; v++) {
      pds_real s = 0;

      for (int w = 0; w < n; w++) s += A[u * n + w] * B[w * n + v];
      if (sub) C[u * n + v] -= s;
      else C[u * n + v] = s;
    }
}

/* y_b = inv_b x_b for blocks [b0,b1) */
PDS_INLINE void blocks_apply_range(int bs, const pds_real *restrict inv, const pds_real *restrict x,
                                   pds_real *restrict y, pds_size b0, pds_size b1) {
  for (pds_size b = b0; b < b1; b++) {
    const pds_real *m  = inv + b * bs * bs;
    const pds_real *xb = x + b * bs;
    pds_real       *yb = y + b * bs;

    for (int r = 0; r < bs; r++) {
      pds_real s = 0;

      for (int c = 0; c < bs; c++) s += m[r * bs + c] * xb[c];
      yb[r] = s;
    }
  }
}

/* the permutation of block rows [i0, i1): gather y_i = x_perm[i] or scatter y_perm[i] = x_i */
static inline void vec_permute_range(int bs, const pds_int *perm, int scatter, const pds_real *x, pds_real *y,
                                      pds_size i0, pds_size i1) {
  for (pds_size i = i0; i < i1; i++) {
    const pds_real *s = x + (size_t)(scatter ? i : perm[i]) * bs;
    pds_real       *d = y + (size_t)(scatter ? perm[i] : i) * bs;

    for (int u = 0; u < bs; u++) d[u] = s[u];
  }
}

#endif
