/* src/backend/stencil7_bodies.h: the per-point arithmetic of stencil7 matrices and their block ILU(0), as pure
 * functions of plain arrays (struct pds_stencil7, src/mat/mat_kernels.h), shared by every CPU backend so that any
 * traversal order gives the same bits: the product (stencil7.spmv), the factorization of one point's diagonal
 * block (bilu0.factor, Eq. 1 of paper 000) and one point of each sweep (bilu0.solve, Eq. 2 and 3).
 * Byte models per point (n x n blocks, 8-byte reals): product 56 n^2 (7 blocks) + 16 n (x gathered, y) [+ 8 n with
 * beta]; factorization 64 n^2 read (7 blocks, the 3 neighbours' inverses) + 8 n^2 written, ~ (6 + 2/3) n^3 flops;
 * forward sweep 32 n^2 (3 blocks, the inverse) + 40 n (b, 3 neighbours, y), with float factors 16 n^2 + 40 n;
 * backward the same. */
#ifndef PDS_STENCIL7_BODIES_H
#define PDS_STENCIL7_BODIES_H

#include "kernel_bodies.h" /* PDS_INLINE, PDS_DISPATCH_BS */

/* arm a of point (i, j, k): the neighbour's index offset, and whether it lies in the grid */
static inline pds_size s7_offset(const struct pds_stencil7 *A, int a) {
  const pds_size JK = (pds_size)A->J * A->K;

  switch (a) {
  case 0: return -1;
  case 1: return -(pds_size)A->K;
  case 2: return -(pds_size)JK;
  case 4: return (pds_size)JK;
  case 5: return (pds_size)A->K;
  case 6: return 1;
  default: return 0;
  }
}
static inline int s7_inside(const struct pds_stencil7 *A, pds_int i, pds_int j, pds_int k, int a) {
  switch (a) {
  case 0: return k > 0;
  case 1: return j > 0;
  case 2: return i > 0;
  case 4: return i + 1 < A->I;
  case 5: return j + 1 < A->J;
  case 6: return k + 1 < A->K;
  default: return 1;
  }
}

/* The per-point bodies below take n as an argument and are always inlined: the wrappers after them (s7_spmv_point,
   s7_factor_point, s7_forward_point, s7_backward_point) call them through PDS_DISPATCH_BS (kernel_bodies.h), with a
   literal n = 1..8, so the compiler unrolls the loops over the block rows and columns; the bits do not depend on it. */
#define S7_BLK(A, p, a, n) ((A)->vals + ((size_t)(p) * 7 + (size_t)(a)) * (size_t)(n) * (size_t)(n))
/* block a of point p */
static inline const pds_real *s7_block(const struct pds_stencil7 *A, pds_size p, int a) { return S7_BLK(A, p, a, A->n); }
/* y_p = alpha (A x)_p + beta y_p (beta = 0: y_p not read); p is the matrix's point index (first + the grid's) */
PDS_INLINE void s7_spmv_point_n(const struct pds_stencil7 *A, pds_size p, pds_int i, pds_int j, pds_int k,
                                pds_real alpha, const pds_real *x, pds_real beta, pds_real *y, const int n) {
  pds_real s[PDS_STENCIL7_MAXN];

  for (int u = 0; u < n; u++) s[u] = 0;
  for (int a = 0; a < 7; a++) { /* row u's sum over the arms, then v, ascending: the n rows' chains side by side */
    if (!s7_inside(A, i, j, k, a)) continue;
    const pds_real *xn = x + (size_t)(p + s7_offset(A, a)) * n;

    for (int u = 0; u < n; u++) {
      const pds_real *blk = S7_BLK(A, p, a, n) + (size_t)u * n;

      for (int v = 0; v < n; v++) s[u] += blk[v] * xn[v];
    }
  }
  for (int u = 0; u < n; u++)
    y[(size_t)p * n + u] = beta == 0 ? alpha * s[u] : alpha * s[u] + beta * y[(size_t)p * n + u];
}
static inline void s7_spmv_point(const struct pds_stencil7 *A, pds_size p, pds_int i, pds_int j, pds_int k,
                                 pds_real alpha, const pds_real *x, pds_real beta, pds_real *y) {
  PDS_DISPATCH_BS(A->n, , s7_spmv_point_n, A, p, i, j, k, alpha, x, beta, y)
}

/* dinv_p by Eq. 1 from the inverses of the lower neighbours (already factored); 0, or -1 when the block is
   singular (pds_block_invert: Gauss-Jordan with partial pivoting) */
PDS_INLINE int s7_factor_point_n(const struct pds_stencil7 *A, pds_size p, pds_int i, pds_int j, pds_int k,
                                pds_real *dinv, const int n) {
  pds_real  T[PDS_STENCIL7_MAXN * PDS_STENCIL7_MAXN], S[PDS_STENCIL7_MAXN * PDS_STENCIL7_MAXN];
  pds_real *D = dinv + (size_t)p * n * n;

  memcpy(T, S7_BLK(A, p, 3, n), (size_t)n * n * sizeof *T);
  for (int a = 0; a < 3; a++) { /* alpha, beta, gamma: the neighbour below, its inverse and its arm back up */
    if (!s7_inside(A, i, j, k, a)) continue;
    const pds_size  q  = p + s7_offset(A, a);
    const pds_real *L  = S7_BLK(A, p, a, n), *Dq = dinv + (size_t)q * n * n, *U = S7_BLK(A, q, 6 - a, n);

    blk_mul(L, Dq, S, 0, n); /* S = L Dq */
    blk_mul(S, U, T, 1, n);  /* T -= S U */
  }
  if (pds_block_invert(n, T)) return -1;
  memcpy(D, T, (size_t)n * n * sizeof *T);
  return 0;
}
static inline int s7_factor_point(const struct pds_stencil7 *A, pds_size p, pds_int i, pds_int j, pds_int k,
                                  pds_real *dinv) {
  PDS_DISPATCH_BS(A->n, return, s7_factor_point_n, A, p, i, j, k, dinv)
}

/* The two sweeps at point p, written once for both storages of the factors (S7_SWEEPS below makes each):
     forward  x_p = dinv_p (b_p - (alpha y_{k-1} + beta y_{j-1} + gamma y_{i-1})), the y's in x;
     backward x_p = y_p - dinv_p (epsilon x_{i+1} + zeta x_{j+1} + eta x_{k+1}), y_p in x_p.
   FT: the factors' type; ARM(a): row 0 of arm a's block at p, INV: row 0 of p's inverse. The sums are in double
   whatever FT is (a float factor is widened, exactly), so float factors change only the factors' rounding. Each
   row u's sum runs over the arms, then v, ascending (the order every backend's kernels follow); the loops keep the
   n rows' sums side by side (u innermost but one), so the n chains of adds overlap: the same sums, 2-3x faster than
   one row's chain after the other. */
#define S7_SWEEPS(SUF, FT, ARM, INV)                                                                             \
  PDS_INLINE void s7_forward_point##SUF##_n(const struct pds_stencil7 *A, pds_size p, pds_int i, pds_int j,      \
                                            pds_int k, const FT *fac, const pds_real *b, pds_real *x,           \
                                            const int n) {                                                       \
    const FT *D = INV;                                                                                           \
    pds_real  z[PDS_STENCIL7_MAXN], s[PDS_STENCIL7_MAXN];                                                        \
                                                                                                                 \
    for (int u = 0; u < n; u++) s[u] = 0;                                                                        \
    for (int a = 0; a < 3; a++) {                                                                                \
      if (!s7_inside(A, i, j, k, a)) continue;                                                                   \
      const pds_real *xn = x + (size_t)(p + s7_offset(A, a)) * n;                                               \
                                                                                                                 \
      for (int u = 0; u < n; u++) {                                                                              \
        const FT *blk = ARM + (size_t)u * n;                                                                     \
                                                                                                                 \
        for (int v = 0; v < n; v++) s[u] += (pds_real)blk[v] * xn[v];                                            \
      }                                                                                                          \
    }                                                                                                            \
    for (int u = 0; u < n; u++) z[u] = b[(size_t)p * n + u] - s[u], s[u] = 0;                                   \
    for (int v = 0; v < n; v++)                                                                                  \
      for (int u = 0; u < n; u++) s[u] += (pds_real)D[u * n + v] * z[v];                                        \
    for (int u = 0; u < n; u++) x[(size_t)p * n + u] = s[u];                                                     \
  }                                                                                                              \
  PDS_INLINE void s7_backward_point##SUF##_n(const struct pds_stencil7 *A, pds_size p, pds_int i, pds_int j,     \
                                             pds_int k, const FT *fac, pds_real *x, const int n) {               \
    const FT *D = INV;                                                                                           \
    pds_real  z[PDS_STENCIL7_MAXN], s[PDS_STENCIL7_MAXN];                                                        \
                                                                                                                 \
    for (int u = 0; u < n; u++) z[u] = 0;                                                                        \
    for (int a = 4; a < 7; a++) {                                                                                \
      if (!s7_inside(A, i, j, k, a)) continue;                                                                   \
      const pds_real *xn = x + (size_t)(p + s7_offset(A, a)) * n;                                               \
                                                                                                                 \
      for (int u = 0; u < n; u++) {                                                                              \
        const FT *blk = ARM + (size_t)u * n;                                                                     \
                                                                                                                 \
        for (int v = 0; v < n; v++) z[u] += (pds_real)blk[v] * xn[v];                                            \
      }                                                                                                          \
    }                                                                                                            \
    for (int u = 0; u < n; u++) s[u] = 0;                                                                        \
    for (int v = 0; v < n; v++)                                                                                  \
      for (int u = 0; u < n; u++) s[u] += (pds_real)D[u * n + v] * z[v];                                         \
    for (int u = 0; u < n; u++) x[(size_t)p * n + u] -= s[u];                                                    \
  }
/* double: the matrix's arms and dinv [points][n][n]; float: one copy [points][7][n][n], the inverse as arm 3 (the
   layout of /gpu/cuda's float factors) */
S7_SWEEPS(_d, pds_real, S7_BLK(A, p, a, n), fac + (size_t)p * n * n)
S7_SWEEPS(_f, float, fac + ((size_t)p * 7 + (size_t)a) * (size_t)n * (size_t)n,
          fac + ((size_t)p * 7 + 3) * (size_t)n * (size_t)n)
/* the double sweeps' copies: one array per sweep, 4 n x n blocks a point, its three arms of that sweep then its
   inverse, so that each sweep reads one ascending stream: forward (_s) alpha, beta, gamma of point p at 4 p; backward
   (_r) epsilon, zeta, eta with the points in reverse, fac pointing at the last point's, the first in memory */
S7_SWEEPS(_s, pds_real, fac + ((size_t)p * 4 + (size_t)(a < 3 ? a : a - 4)) * (size_t)n * (size_t)n,
          fac + ((size_t)p * 4 + 3) * (size_t)n * (size_t)n)
S7_SWEEPS(_r, pds_real, fac + ((ptrdiff_t)(a - 4) - (ptrdiff_t)p * 4) * (ptrdiff_t)n * n,
          fac + (3 - (ptrdiff_t)p * 4) * (ptrdiff_t)n * n)
#undef S7_SWEEPS

/* the factors a sweep reads: the float copy fv, else the double sweeps' copies dvf and dvb, else dinv with the
   matrix's arms (the first not NULL); the same sums whichever */
struct s7_fac {
  const pds_real *dinv;
  const float    *fv;
  const pds_real *dvf, *dvb; /* dvb: the last point's blocks (the reversed copy's start) */
};
static inline void s7_forward_point(const struct pds_stencil7 *A, pds_size p, pds_int i, pds_int j, pds_int k,
                                    const struct s7_fac *F, const pds_real *b, pds_real *x) {
  if (F->fv) {
    PDS_DISPATCH_BS(A->n, , s7_forward_point_f_n, A, p, i, j, k, F->fv, b, x)
  } else if (F->dvf) {
    PDS_DISPATCH_BS(A->n, , s7_forward_point_s_n, A, p, i, j, k, F->dvf, b, x)
  } else {
    PDS_DISPATCH_BS(A->n, , s7_forward_point_d_n, A, p, i, j, k, F->dinv, b, x)
  }
}
static inline void s7_backward_point(const struct pds_stencil7 *A, pds_size p, pds_int i, pds_int j, pds_int k,
                                     const struct s7_fac *F, pds_real *x) {
  if (F->fv) {
    PDS_DISPATCH_BS(A->n, , s7_backward_point_f_n, A, p, i, j, k, F->fv, x)
  } else if (F->dvb) {
    PDS_DISPATCH_BS(A->n, , s7_backward_point_r_n, A, p, i, j, k, F->dvb, x)
  } else {
    PDS_DISPATCH_BS(A->n, , s7_backward_point_d_n, A, p, i, j, k, F->dinv, x)
  }
}

/* the CPU backends' bilu0 plan (made by ref_bilu0.c; /cpu/omp's table starts from ref's, so it is the same): the
   float copy of the factors [points][7][n][n] when they are stored in single precision, else NULL; else the double
   sweeps' copies dvf and dvb (above); either written by the factorization point by point (s7_factor_point_fill). In the matrix's layout
   a sweep reads three arms of a point's seven and the inverse from another array, and the caches fetch the whole
   point: the copies measured 2-3x faster sweeps (docs/bilu0.md), for the factor held twice. */
struct s7_plan {
  float    *fv;
  pds_real *dvf, *dvb; /* [np][4][n][n] each, dvb's points in reverse */
  pds_size  np;
  int       n;
};
static inline struct s7_fac s7_plan_fac(void *plan, const pds_real *dinv) {
  const struct s7_plan *P = plan;
  struct s7_fac         F = {dinv, NULL, NULL, NULL};

  if (P) F.fv = P->fv, F.dvf = P->dvf, F.dvb = P->dvb ? P->dvb + (size_t)(P->np - 1) * 4 * P->n * P->n : NULL;
  return F;
}

/* the double sweeps' copies of points [p0, p1) of the plan's np */
static inline void s7_factors_to_sweeps(const struct pds_stencil7 *A, const pds_real *dinv, pds_size p0, pds_size p1,
                                        const struct s7_plan *P) {
  const size_t nn = (size_t)A->n * (size_t)A->n, bytes = nn * sizeof *dinv;

  for (pds_size p = p0; p < p1; p++) {
    pds_real *f = P->dvf + (size_t)p * 4 * nn, *r = P->dvb + (size_t)(P->np - 1 - p) * 4 * nn;

    memcpy(f, S7_BLK(A, p, 0, A->n), 3 * bytes); /* alpha, beta, gamma */
    memcpy(f + 3 * nn, dinv + (size_t)p * nn, bytes);
    memcpy(r, S7_BLK(A, p, 4, A->n), 3 * bytes); /* epsilon, zeta, eta */
    memcpy(r + 3 * nn, dinv + (size_t)p * nn, bytes);
  }
}

/* the float copy of the factors of points [p0, p1): arms as the matrix, arm 3 the inverse */
static inline void s7_factors_to_float(const struct pds_stencil7 *A, const pds_real *dinv, pds_size p0, pds_size p1,
                                       float *fv) {
  const size_t nn = (size_t)A->n * (size_t)A->n;

  for (pds_size p = p0; p < p1; p++)
    for (int a = 0; a < 7; a++)
      for (size_t e = 0; e < nn; e++)
        fv[((size_t)p * 7 + (size_t)a) * nn + e] = (float)(a == 3 ? dinv[(size_t)p * nn + e] : S7_BLK(A, p, a, A->n)[e]);
}

/* point p's factorization and (P, else NULL) its copy for the sweeps, the float one or the double ones, written while
   its blocks are in cache; nonzero when its block is singular */
static inline int s7_factor_point_fill(const struct pds_stencil7 *A, pds_size p, pds_int i, pds_int j, pds_int k,
                                       pds_real *dinv, const struct s7_plan *P) {
  if (s7_factor_point(A, p, i, j, k, dinv)) return -1;
  if (P && P->fv) s7_factors_to_float(A, dinv, p, p + 1, P->fv);
  if (P && P->dvf) s7_factors_to_sweeps(A, dinv, p, p + 1, P);
  return 0;
}

/* one grid's factorization in natural order (i, then j, then k), and (P) the sweeps' copies: *bad = the first
   singular point, else -1 */
static inline void s7_factor_natural(const struct pds_stencil7 *A, pds_real *dinv, const struct s7_plan *P,
                                     pds_size *bad) {
  pds_size p = A->first;

  *bad = -1;
  for (pds_int i = 0; i < A->I; i++)
    for (pds_int j = 0; j < A->J; j++)
      for (pds_int k = 0; k < A->K; k++, p++)
        if (s7_factor_point_fill(A, p, i, j, k, dinv, P)) {
          *bad = p;
          return;
        }
}

/* one grid's sweeps in natural order: forward i, j, k ascending, backward descending */
static inline void s7_solve_natural(const struct pds_stencil7 *A, const struct s7_fac *F, const pds_real *b,
                                    pds_real *x) {
  pds_size p = A->first;

  for (pds_int i = 0; i < A->I; i++)
    for (pds_int j = 0; j < A->J; j++)
      for (pds_int k = 0; k < A->K; k++, p++) s7_forward_point(A, p, i, j, k, F, b, x);
  for (pds_int i = A->I - 1; i >= 0; i--)
    for (pds_int j = A->J - 1; j >= 0; j--)
      for (pds_int k = A->K - 1; k >= 0; k--) s7_backward_point(A, --p, i, j, k, F, x);
}

/* one grid's product in natural order */
static inline void s7_spmv_natural(const struct pds_stencil7 *A, pds_real alpha, const pds_real *x, pds_real beta,
                                   pds_real *y) {
  pds_size p = A->first;

  for (pds_int i = 0; i < A->I; i++)
    for (pds_int j = 0; j < A->J; j++)
      for (pds_int k = 0; k < A->K; k++, p++) s7_spmv_point(A, p, i, j, k, alpha, x, beta, y);
}

static inline pds_size s7_points(const struct pds_stencil7 *A) { return (pds_size)A->I * A->J * A->K; }

#endif
