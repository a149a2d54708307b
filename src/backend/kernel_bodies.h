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

/* sum_{i in [i0,i1)} x_i y_i: 16 bytes and 2 flops per entry */
PDS_INLINE pds_real chunk_dot(const pds_real *restrict x, const pds_real *restrict y, pds_size i0, pds_size i1) {
  pds_real s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  pds_size i  = i0;

  for (; i + 4 <= i1; i += 4) {
    s0 += x[i] * y[i];
    s1 += x[i + 1] * y[i + 1];
    s2 += x[i + 2] * y[i + 2];
    s3 += x[i + 3] * y[i + 3];
  }
  for (; i < i1; i++) s0 += x[i] * y[i];
  return (s0 + s1) + (s2 + s3);
}

/* d[q] = V_q . w over [i0,i1) for q < 4 in one pass over w: each sum in chunk_dot's order (so its bits), w read once
   for the four: 40 bytes and 8 flops per entry */
PDS_INLINE void chunk_dot4(const pds_real *const *V, const pds_real *restrict w, pds_size i0, pds_size i1, pds_real *d) {
  const pds_real *restrict a = V[0], *restrict b = V[1], *restrict c = V[2], *restrict e = V[3];
  pds_real s[4][4] = {{0}};
  pds_size i = i0;

  for (; i + 4 <= i1; i += 4)
    for (int l = 0; l < 4; l++) {
      s[0][l] += a[i + l] * w[i + l];
      s[1][l] += b[i + l] * w[i + l];
      s[2][l] += c[i + l] * w[i + l];
      s[3][l] += e[i + l] * w[i + l];
    }
  for (; i < i1; i++) {
    s[0][0] += a[i] * w[i];
    s[1][0] += b[i] * w[i];
    s[2][0] += c[i] * w[i];
    s[3][0] += e[i] * w[i];
  }
  for (int q = 0; q < 4; q++) d[q] = (s[q][0] + s[q][1]) + (s[q][2] + s[q][3]);
}

/* (x.y, x.z) over [i0,i1) in one pass: 24 bytes and 4 flops per entry; each sum in chunk_dot's order */
PDS_INLINE void chunk_dot2(const pds_real *restrict x, const pds_real *restrict y, const pds_real *restrict z,
                           pds_size i0, pds_size i1, pds_real *a, pds_real *b) {
  pds_real s0 = 0, s1 = 0, s2 = 0, s3 = 0, t0 = 0, t1 = 0, t2 = 0, t3 = 0;
  pds_size i  = i0;

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

#endif
