/* src/backend/ilu0_bodies.h: the per-row arithmetic of ILU(0) on a block-CSR factor (struct pds_ilu0_factor,
 * src/precond/ilu0_kernels.h), as pure functions shared by every CPU backend, so that any order that respects the
 * dependencies gives the same bits: one block row of the factorization (IKJ) and one block row of each sweep.
 * Byte and flop models per block row with m blocks (L: m_L, U: m_U), b = bs, 8-byte reals: factorization reads and
 * writes the row's blocks (16 m b^2) and reads, for each k in L, D_k^-1 and U_k (8 (1 + m_U(k)) b^2), about
 * 2 b^3 (1 + sum_k (1 + hits_k)) + (2/3) b^3 flops; forward sweep 8 m_L b^2 + 16 b + the y_k gathered, 2 m_L b^2
 * flops; backward 8 (m_U + 1) b^2 + 16 b + the x_j gathered, 2 (m_U + 1) b^2 flops. */
#ifndef PDS_ILU0_BODIES_H
#define PDS_ILU0_BODIES_H

#include <math.h>

#include "../precond/ilu0_kernels.h"
#include "backend.h"      /* pds_block_invert */
#include "kernel_bodies.h" /* PDS_INLINE, PDS_DISPATCH_BS */

#define ILU0_MAXB 64 /* the largest block the stack buffers below hold (bs <= 8 unrolls; larger runs the generic loop) */

/* row i of the factorization; 0, or -1 when D_i is singular. The rows k < i of row i's pattern must be done. */
PDS_INLINE int ilu0_factor_row_n(const struct pds_ilu0_factor *F, pds_int i, pds_real shift, const int n) {
  const size_t   nn = (size_t)n * n;
  const pds_size lo = F->rowptr[i], hi = F->rowptr[i + 1], d = F->diag[i];
  pds_real       T[ILU0_MAXB * ILU0_MAXB];
  pds_real      *a = F->vals;

  if (shift != 0)
    for (int u = 0; u < n; u++) a[d * nn + (size_t)u * n + u] += shift;
  for (pds_size p = lo; p < d; p++) { /* k = colidx[p] < i, ascending */
    const pds_int   k  = F->colidx[p];
    const pds_real *Dk = a + F->diag[k] * nn;
    pds_real       *L  = a + p * nn;
    pds_size        r  = p + 1; /* row i's entries after column k: a merge with row k's upper part */

    blk_mul(L, Dk, T, 0, n); /* T = A_ik D_k^-1, stored as L_ik */
    for (size_t e = 0; e < nn; e++) L[e] = T[e];
    for (pds_size q = F->diag[k] + 1; q < F->rowptr[k + 1]; q++) { /* A_ij -= L_ik U_kj */
      const pds_int j = F->colidx[q];

      while (r < hi && F->colidx[r] < j) r++;
      if (r == hi) break;
      if (F->colidx[r] != j) continue;
      blk_mul(T, a + q * nn, a + r * nn, 1, n); /* A_ij -= L_ik U_kj */
    }
  }
  if (n == 1) { /* pds_block_invert's steps for one entry: the same bits */
    const pds_real x = a[d];

    if (!(fabs(x) > 0) || !isfinite(x)) return -1;
    a[d] = 1.0 / x;
    return 0;
  }
  return pds_block_invert(n, a + d * nn) ? -1 : 0;
}
static inline int ilu0_factor_row(const struct pds_ilu0_factor *F, pds_int i, pds_real shift) {
  PDS_DISPATCH_BS(F->bs, return, ilu0_factor_row_n, F, i, shift)
}

/* forward, row i: x_i = b_i - sum_{k < i} L_ik x_k (x_k done; x may be b) */
PDS_INLINE void ilu0_forward_row_n(const struct pds_ilu0_factor *F, pds_int i, const pds_real *b, pds_real *x,
                                   const int n) {
  const size_t   nn = (size_t)n * n;
  const pds_size lo = F->rowptr[i], d = F->diag[i];

  for (int u = 0; u < n; u++) {
    pds_real s = 0;

    for (pds_size p = lo; p < d; p++) {
      const pds_real *L = F->vals + p * nn + (size_t)u * n, *xk = x + (size_t)F->colidx[p] * n;

      for (int w = 0; w < n; w++) s += L[w] * xk[w];
    }
    x[(size_t)i * n + u] = b[(size_t)i * n + u] - s;
  }
}
static inline void ilu0_forward_row(const struct pds_ilu0_factor *F, pds_int i, const pds_real *b, pds_real *x) {
  PDS_DISPATCH_BS(F->bs, , ilu0_forward_row_n, F, i, b, x)
}

/* backward, row i: x_i = D_i^-1 (x_i - sum_{j > i} U_ij x_j) (x_j done) */
PDS_INLINE void ilu0_backward_row_n(const struct pds_ilu0_factor *F, pds_int i, pds_real *x, const int n) {
  const size_t   nn = (size_t)n * n;
  const pds_size hi = F->rowptr[i + 1], d = F->diag[i];
  pds_real       z[ILU0_MAXB];

  for (int u = 0; u < n; u++) {
    pds_real s = 0;

    for (pds_size p = d + 1; p < hi; p++) {
      const pds_real *U = F->vals + p * nn + (size_t)u * n, *xj = x + (size_t)F->colidx[p] * n;

      for (int w = 0; w < n; w++) s += U[w] * xj[w];
    }
    z[u] = x[(size_t)i * n + u] - s;
  }
  for (int u = 0; u < n; u++) {
    const pds_real *D = F->vals + d * nn + (size_t)u * n;
    pds_real        s = 0;

    for (int w = 0; w < n; w++) s += D[w] * z[w];
    x[(size_t)i * n + u] = s;
  }
}
static inline void ilu0_backward_row(const struct pds_ilu0_factor *F, pds_int i, pds_real *x) {
  PDS_DISPATCH_BS(F->bs, , ilu0_backward_row_n, F, i, x)
}

/* the permutation of block rows [i0, i1): gather y_i = x_perm[i] or scatter y_perm[i] = x_i */
static inline void ilu0_permute_range(int bs, const pds_int *perm, int scatter, const pds_real *x, pds_real *y,
                                      pds_size i0, pds_size i1) {
  for (pds_size i = i0; i < i1; i++) {
    const pds_real *s = x + (size_t)(scatter ? i : perm[i]) * bs;
    pds_real       *d = y + (size_t)(scatter ? perm[i] : i) * bs;

    for (int u = 0; u < bs; u++) d[u] = s[u];
  }
}

/* the CPU backends' ilu0 plan (made by ref_ilu0.c; /cpu/omp's table starts from ref's, so it is the same): the level
   schedules of the pattern. Forward (and the factorization): level(i) = 1 + the largest level of the k < i in row
   i (0 for none); backward: the same over the j > i. rows lists the block rows level after level, ascending within
   one; off[l] .. off[l + 1] - 1 are level l's. */
struct ilu0_levels {
  pds_int  n, nlev;
  pds_int *off, *rows;
};
struct ilu0_plan {
  struct ilu0_levels fwd, bwd;
  pds_size           work; /* (blocks + block rows) bs^2: the size a backend's threshold compares */
  /* /cpu/omp's choice between natural order and the levels, per phase (0 factorization, 1 application): 0 not
     decided, 1 natural, 2 levels, and the times it measured (seconds, 0: not yet) */
  int                choice[2];
  double             t_nat[2], t_lev[2];
};
/* the level schedule of a pattern H (host; backward: over the rows after each row), every backend's analysis
   (ref_ilu0.c), and its release */
PDS_INTERN int  pds_ilu0_levels_build(pds_ctx ctx, const struct pds_ilu0_factor *H, int backward, struct ilu0_levels *L);
PDS_INTERN void pds_ilu0_levels_free(pds_ctx ctx, struct ilu0_levels *L);
/* the plan's line for -view, `how` saying what runs (ref_ilu0.c) */
PDS_INTERN int pds_ilu0_levels_describe(pds_ctx ctx, const struct ilu0_plan *P, const char *how, char *buf, size_t len);

#endif
