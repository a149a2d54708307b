/* src/backend/ilu0_bodies.h: the per-row arithmetic of ILU(0) on a block-CSR factor (struct pds_ilu0_factor,
 * src/precond/ilu0_kernels.h), as pure functions shared by every CPU backend, so that any order that respects the
 * dependencies gives the same bits: one block row of the factorization (IKJ), of a sweep (exact or Jacobi), and of a
 * Chow-Patel sweep (the approximate variants; /gpu/cuda's cuda_ilu0.cu writes the same steps with rounded intrinsics).
 * Byte and flop models per block row with m blocks (L: m_L, U: m_U), b = bs, 8-byte reals: factorization reads and
 * writes the row's blocks (16 m b^2) and reads, for each k in L, D_k^-1 and U_k (8 (1 + m_U(k)) b^2), about
 * 2 b^3 (1 + sum_k (1 + hits_k)) + (2/3) b^3 flops; forward sweep 8 m_L b^2 + 16 b + the y_k gathered, 2 m_L b^2
 * flops; backward 8 (m_U + 1) b^2 + 16 b + the x_j gathered, 2 (m_U + 1) b^2 flops; a Chow-Patel sweep: the
 * factorization's plus A's row read (8 m b^2). */
#ifndef PDS_ILU0_BODIES_H
#define PDS_ILU0_BODIES_H

#include <math.h>

#include "../precond/ilu0_kernels.h"
#include "backend.h"      /* pds_block_invert */
#include "kernel_bodies.h" /* PDS_INLINE, PDS_DISPATCH_BS */

#define ILU0_MAXB 64 /* the largest block the stack buffers below hold (bs <= 8 unrolls; larger runs the generic loop) */

/* the update of row i (entries up to hi) by its entry p (column k < i): A_ij -= L_ik U_kj for every j > k of row k
   also in row i, k's U read from u, row i's A from and to a (a merge: both rows' columns ascend) */
PDS_INLINE void ilu0_row_update(const struct pds_ilu0_factor *F, pds_size p, pds_size hi, const pds_real *Lik,
                                const pds_real *u, pds_real *a, const int n) {
  const size_t  nn = (size_t)n * n;
  const pds_int k  = F->colidx[p];
  pds_size      r  = p + 1; /* row i's entries after column k */

  for (pds_size q = F->diag[k] + 1; q < F->rowptr[k + 1]; q++) {
    const pds_int j = F->colidx[q];

    while (r < hi && F->colidx[r] < j) r++;
    if (r == hi) break;
    if (F->colidx[r] != j) continue;
    blk_mul(Lik, u + q * nn, a + r * nn, 1, n);
  }
}

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

    blk_mul(L, Dk, T, 0, n); /* T = A_ik D_k^-1, stored as L_ik */
    for (size_t e = 0; e < nn; e++) L[e] = T[e];
    ilu0_row_update(F, p, hi, T, a, a, n); /* A_ij -= L_ik U_kj */
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

/* row i of a sweep of a triangle, from x (NULL: zero): forward y_i = b_i - sum_{k < i} L_ik x_k, backward
   y_i = D_i^-1 (b_i - sum_{j > i} U_ij x_j); row i's inputs are read before y_i is written, so y may be x or b.
   The exact sweeps run it in place (forward: b, x, x; backward: x, x, x), in an order where the x_k it reads are done;
   a Jacobi sweep of the approximate variants reads the previous iterate (every row independent), so once the x it
   reads are exact, y_i has the exact sweep's bits. */
PDS_INLINE void ilu0_sweep_row_n(const struct pds_ilu0_factor *F, pds_int i, int backward, const pds_real *b,
                                  const pds_real *x, pds_real *y, const int n) {
  const size_t   nn = (size_t)n * n;
  const pds_size d = F->diag[i], p0 = backward ? d + 1 : F->rowptr[i], p1 = backward ? F->rowptr[i + 1] : d;
  pds_real       z[ILU0_MAXB], s[ILU0_MAXB];

  /* row u's sum over the blocks p, then w, ascending; the n rows' sums side by side, so their chains of adds overlap */
  for (int u = 0; u < n; u++) s[u] = 0;
  if (x)
    for (pds_size p = p0; p < p1; p++) {
      const pds_real *xk = x + (size_t)F->colidx[p] * n;

      for (int u = 0; u < n; u++) {
        const pds_real *M = F->vals + p * nn + (size_t)u * n;

        for (int w = 0; w < n; w++) s[u] += M[w] * xk[w];
      }
    }
  for (int u = 0; u < n; u++) z[u] = b[(size_t)i * n + u] - s[u];
  if (!backward) {
    for (int u = 0; u < n; u++) y[(size_t)i * n + u] = z[u];
    return;
  }
  for (int u = 0; u < n; u++) s[u] = 0;
  for (int w = 0; w < n; w++)
    for (int u = 0; u < n; u++) s[u] += F->vals[d * nn + (size_t)u * n + w] * z[w];
  for (int u = 0; u < n; u++) y[(size_t)i * n + u] = s[u];
}
/* the rows rows[r0 .. r1) of a sweep (rows NULL: r itself, forward, or nbrows - 1 - r, backward: natural order),
   the block size dispatched once for them all; the exact sweeps pass (b, x, x) forward and (x, x, x) backward */
PDS_INLINE void ilu0_sweep_list_n(const struct pds_ilu0_factor *F, int backward, const pds_int *rows, pds_int r0,
                                  pds_int r1, const pds_real *b, const pds_real *x, pds_real *y, const int n) {
  for (pds_int r = r0; r < r1; r++) {
    const pds_int i = rows ? rows[r] : backward ? F->nbrows - 1 - r : r;

    ilu0_sweep_row_n(F, i, backward, b, x, y, n);
  }
}
static inline void ilu0_sweep_list(const struct pds_ilu0_factor *F, int backward, const pds_int *rows, pds_int r0,
                                   pds_int r1, const pds_real *b, const pds_real *x, pds_real *y) {
  PDS_DISPATCH_BS(F->bs, , ilu0_sweep_list_n, F, backward, rows, r0, r1, b, x, y)
}

/* one Chow-Patel sweep, row i: g's blocks of row i from F's (the previous iterate; F->vals NULL: the start L = 0,
   U = A) and A's values a (both in the factor's pattern): S_ij = A_ij (+ shift I on the diagonal) - sum_{k < min(i,j)}
   L_ik U_kj, then L_ij = S_ij D_j^-1 (j < i), U_ij = S_ij (j > i), D_i^-1 = S_ii^-1. Its fixed point is the exact
   ILU(0) factor. The sums run in the IKJ order (k ascending, A_ij -= L_ik U_kj), so the merge is the factorization's.
   0, or -1 when S_ii is singular. Bytes: the row's blocks read in a and written in g, and for each k in L the old
   U_k and (for L) the old D_j^-1 read: the exact factorization's row, plus its a. */
PDS_INLINE int ilu0_chow_row_n(const struct pds_ilu0_factor *F, pds_int i, const pds_real *a, pds_real shift,
                               pds_real *g, const int n) {
  const size_t    nn = (size_t)n * n;
  const pds_size  lo = F->rowptr[i], hi = F->rowptr[i + 1], d = F->diag[i];
  const pds_real *o  = F->vals;
  pds_real        T[ILU0_MAXB * ILU0_MAXB];

  for (size_t e = lo * nn; e < hi * nn; e++) g[e] = a[e];
  if (shift != 0)
    for (int u = 0; u < n; u++) g[d * nn + (size_t)u * n + u] += shift;
  if (o) /* k = colidx[p] < i, ascending: S_ij -= L_ik U_kj for j > k in rows i, k */
    for (pds_size p = lo; p < d; p++) ilu0_row_update(F, p, hi, o + p * nn, o, g, n);
  for (pds_size p = lo; p < d; p++) { /* L_ij = S_ij D_j^-1 (the start: L = 0) */
    pds_real *L = g + p * nn;

    if (!o) {
      for (size_t e = 0; e < nn; e++) L[e] = 0;
      continue;
    }
    blk_mul(L, o + F->diag[F->colidx[p]] * nn, T, 0, n);
    for (size_t e = 0; e < nn; e++) L[e] = T[e];
  }
  if (n == 1) {
    const pds_real x = g[d];

    if (!(fabs(x) > 0) || !isfinite(x)) return -1;
    g[d] = 1.0 / x;
    return 0;
  }
  return pds_block_invert(n, g + d * nn) ? -1 : 0;
}
static inline int ilu0_chow_row(const struct pds_ilu0_factor *F, pds_int i, const pds_real *a, pds_real shift,
                                pds_real *g) {
  PDS_DISPATCH_BS(F->bs, return, ilu0_chow_row_n, F, i, a, shift, g)
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
  /* the CPU sweeps' copy of the factor (absent, lo.vals NULL, in a plan for the factorization alone: approx-jacobi),
     written by every factorization (pds_ilu0_split_fill): the L blocks row
     after row, then D_i^-1 and U_i row after row from the last row up, so that each sweep reads one ascending stream
     (PETSc's layout; in A's pattern the forward sweep skips the U blocks between the L ones, the backward one walks
     down: 1.4x slower with scalars, 3.5x with 4 x 4 blocks on the 2-core EPYC). Two views the sweep rows read as
     factors: lo (rowptr: row i's L blocks from rowptr[i]; diag = rowptr + 1, their end) and up (diag[i]: D_i^-1's
     position, its U blocks after it up to rowptr[i + 1]); the same arithmetic, the same bits. */
  struct pds_ilu0_factor lo, up;
};
/* the level schedule of a pattern H (host; backward: over the rows after each row), every backend's analysis
   (ref_ilu0.c), and its release */
PDS_INTERN int  pds_ilu0_levels_build(pds_ctx ctx, const struct pds_ilu0_factor *H, int backward, struct ilu0_levels *L);
PDS_INTERN void pds_ilu0_levels_free(pds_ctx ctx, struct ilu0_levels *L);
/* the split views of plan P for the pattern H (host memory), and the values of rows [i0, i1) from a factor F (the
   CPU backends' factorizations call it for each row they finish, while its blocks are in cache) (ref_ilu0.c) */
PDS_INTERN int  pds_ilu0_split_create(pds_ctx ctx, const struct pds_ilu0_factor *H, struct ilu0_plan *P);
PDS_INTERN void pds_ilu0_split_fill(const struct ilu0_plan *P, const struct pds_ilu0_factor *F, pds_int i0, pds_int i1);
/* the plan's line for -view, `how` saying what runs (ref_ilu0.c) */
PDS_INTERN int pds_ilu0_levels_describe(pds_ctx ctx, const struct ilu0_plan *P, const char *how, char *buf, size_t len);

#endif
