/* src/backend/kernel_bodies_f32.h: the single-precision loop bodies shared by the CPU backends (kernels_f32.h's
 * numerics: elementwise work in float with each coefficient rounded to float once, reductions of
 * (double)x_i (double)y_i in double in chunk_dot's order, CSR row sums in float); ref runs them over the whole
 * range, omp over each thread's part or chunk, so both give bitwise the same results.
 *
 * No expression here can be changed by FMA contraction where it matters: the project compiles with -std=c11
 * (GCC does not contract then), and the products of the reductions, (double)x_i (double)y_i of two floats, are
 * exact in double anyway. The coefficient tests (b == 0: y not read) are on the double the caller passed, as the
 * double kernels test theirs. */
#ifndef PDS_KERNEL_BODIES_F32_H
#define PDS_KERNEL_BODIES_F32_H

#include "kernel_bodies.h"

/* y = (float)x, rounded to nearest: 12 bytes per entry */
PDS_INLINE void to_f32_range(const double *restrict x, float *restrict y, pds_size i0, pds_size i1) {
  for (pds_size i = i0; i < i1; i++) y[i] = (float)x[i];
}

/* x = (double)y, exact: 12 bytes per entry */
PDS_INLINE void to_f64_range(const float *restrict y, double *restrict x, pds_size i0, pds_size i1) {
  for (pds_size i = i0; i < i1; i++) x[i] = (double)y[i];
}

/* y = (float)a: 4 bytes per entry */
PDS_INLINE void set_f32_range(double a, float *y, pds_size i0, pds_size i1) {
  const float fa = (float)a;

  for (pds_size i = i0; i < i1; i++) y[i] = fa;
}

/* y = x: 8 bytes per entry (x != y) */
PDS_INLINE void copy_f32_range(const float *restrict x, float *restrict y, pds_size i0, pds_size i1) {
  for (pds_size i = i0; i < i1; i++) y[i] = x[i];
}

/* y_i = fa x_i + fb y_i (fa, fb: a, b rounded to float); b == 0: y_i = fa x_i, y not read.
   12 bytes, 3 flops per entry (b = 0: 8 bytes, 1 flop) */
PDS_INLINE void axpby_f32_range(double a, const float *x, double b, float *y, pds_size i0, pds_size i1) {
  const float fa = (float)a, fb = (float)b;

  if (b == 0)
    for (pds_size i = i0; i < i1; i++) y[i] = fa * x[i];
  else
    for (pds_size i = i0; i < i1; i++) y[i] = fa * x[i] + fb * y[i];
}

/* z_i = (fa x_i + fb y_i) + fc z_i, the coefficients rounded to float: 16 bytes, 5 flops per entry (x, y may be z) */
PDS_INLINE void axpbypcz_f32_range(double a, const float *x, double b, const float *y, double c, float *z,
                                   pds_size i0, pds_size i1) {
  const float fa = (float)a, fb = (float)b, fc = (float)c;

  for (pds_size i = i0; i < i1; i++) z[i] = (fa * x[i] + fb * y[i]) + fc * z[i];
}

/* w_i = x_i / (float)d_i: 16 bytes (8 of them d, in double), 1 flop per entry */
PDS_INLINE void pdiv_f32_range(const float *x, const double *restrict d, float *w, pds_size i0, pds_size i1) {
  for (pds_size i = i0; i < i1; i++) w[i] = x[i] / (float)d[i];
}

/* sum_{i in [i0,i1)} (double)x_i (double)y_i in double: 8 bytes, 2 flops per entry, in chunk_dot's order: four
   partial sums s_l over the entries i = l mod 4 (from i0), each in order, the tail into s_0, then
   (s_0 + s_1) + (s_2 + s_3). x may be y. */
PDS_INLINE double chunk_dot_f32(const float *x, const float *y, pds_size i0, pds_size i1) {
  double   s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  pds_size i  = i0;

  for (; i + 4 <= i1; i += 4) {
    s0 += (double)x[i] * (double)y[i];
    s1 += (double)x[i + 1] * (double)y[i + 1];
    s2 += (double)x[i + 2] * (double)y[i + 2];
    s3 += (double)x[i + 3] * (double)y[i + 3];
  }
  for (; i < i1; i++) s0 += (double)x[i] * (double)y[i];
  return (s0 + s1) + (s2 + s3);
}

/* (x.y, x.z) over [i0,i1) in one pass: 12 bytes, 4 flops per entry; each sum in chunk_dot_f32's order, so its
   bits. Any of x, y, z may be the same array. */
PDS_INLINE void chunk_dot2_f32(const float *x, const float *y, const float *z, pds_size i0, pds_size i1, double *a,
                               double *b) {
  double   s0 = 0, s1 = 0, s2 = 0, s3 = 0, t0 = 0, t1 = 0, t2 = 0, t3 = 0;
  pds_size i  = i0;

  for (; i + 4 <= i1; i += 4) {
    const double x0 = x[i], x1 = x[i + 1], x2 = x[i + 2], x3 = x[i + 3];

    s0 += x0 * (double)y[i];
    s1 += x1 * (double)y[i + 1];
    s2 += x2 * (double)y[i + 2];
    s3 += x3 * (double)y[i + 3];
    t0 += x0 * (double)z[i];
    t1 += x1 * (double)z[i + 1];
    t2 += x2 * (double)z[i + 2];
    t3 += x3 * (double)z[i + 3];
  }
  for (; i < i1; i++) s0 += (double)x[i] * (double)y[i], t0 += (double)x[i] * (double)z[i];
  *a = (s0 + s1) + (s2 + s3);
  *b = (t0 + t1) + (t2 + t3);
}

/* The reduction of a whole vector: chunks of PDS_REDUCE_CHUNK entries, their sums (chunk_dot_f32, or chunk_dot2_f32
   when z != NULL) added in chunk order from 0 into d[0] (and d[1]): the tree /cpu/omp reproduces in parallel. */
PDS_INLINE void dot_chunks_f32(pds_size n, const float *x, const float *y, const float *z, double *d) {
  double s = 0, t = 0;

  for (pds_size i0 = 0; i0 < n; i0 += PDS_REDUCE_CHUNK) {
    pds_size i1 = i0 + PDS_REDUCE_CHUNK < n ? i0 + PDS_REDUCE_CHUNK : n;
    double   a, b;

    if (z) chunk_dot2_f32(x, y, z, i0, i1, &a, &b), t += b;
    else a = chunk_dot_f32(x, y, i0, i1);
    s += a;
  }
  d[0] = s;
  if (z) d[1] = t;
}

/* CSR rows [r0,r1) with float values vals: s = sum_k vals_k x_{colidx_k} in float, in the row's order from s = 0;
   then y_i = fa s (beta == 0: z not read) or fa s + fb z_i, fa, fb: alpha, beta rounded to float. z is y for
   y = alpha A x + beta y, b for the residual (alpha -1, beta 1). 8 nnz (vals, colidx) + 8 rows (rowptr) + 4 rows
   (y; 8 with beta != 0) + the x gathers; 2 nnz (+ 1 or 3 per row) flops. */
PDS_INLINE void csr_rows_f32(const struct pds_csr *A, const float *restrict vals, double alpha,
                             const float *restrict x, double beta, const float *z, float *y, pds_int r0, pds_int r1) {
  const pds_size *rp = A->rowptr;
  const pds_int  *ci = A->colidx;
  const float     fa = (float)alpha, fb = (float)beta;

  for (pds_int i = r0; i < r1; i++) {
    float s = 0;

    for (pds_size k = rp[i]; k < rp[i + 1]; k++) s += vals[k] * x[ci[k]];
    y[i] = beta == 0 ? fa * s : fa * s + fb * z[i];
  }
}

#endif
