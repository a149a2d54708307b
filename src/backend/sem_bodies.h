/* src/backend/sem_bodies.h: the per-element and per-point arithmetic of the spectral-element kernels
 * (src/disc/sem_kernels.h) that the CPU backends share, in the order the group's contract states, so /cpu/ref and
 * /cpu/omp give the same bits whatever the traversal. */
#ifndef PDS_SEM_BODIES_H
#define PDS_SEM_BODIES_H

#include "../disc/sem_kernels.h"

#define SB_NMAX 14
#define SB_N3MAX (SB_NMAX * SB_NMAX * SB_NMAX)

/* element e's local product y = A^e u (u gathered from x with the mask) into y[n3]; t: 4 n3 scratch values.
   Each sum runs over m ascending for one point, as the group's contract states; the loops put the points of a row
   (i) innermost, so that the compiler vectorizes across points without changing any point's sum order. */
static inline void sb_element_apply(const struct pds_sem_dev *S, pds_int e, const pds_real *x, pds_real *y,
                                    pds_real *t) {
  const int       n = S->n, n2 = n * n, n3 = n2 * n;
  const pds_real *D = S->D, *G = S->G + (size_t)6 * n3 * e;
  const pds_int  *gid = S->gid + (size_t)n3 * e;
  pds_real       *u = t, *a = t + n3, *b = t + 2 * n3, *c = t + 3 * n3, DT[SB_NMAX * SB_NMAX];

  for (int i = 0; i < n; i++)
    for (int m = 0; m < n; m++) DT[m * n + i] = D[i * n + m];
  for (int q = 0; q < n3; q++)
    u[q] = S->mask[gid[q]] ? 0.0 : gid[q] < S->nglob ? x[gid[q]] : S->xg[gid[q] - S->nglob];
  for (int k = 0; k < n; k++)
    for (int j = 0; j < n; j++) {
      const int       r = k * n2 + j * n;
      const pds_real *row = u + r;
      pds_real        ur[SB_NMAX], us[SB_NMAX], ut[SB_NMAX];

      for (int i = 0; i < n; i++) ur[i] = us[i] = ut[i] = 0;
      for (int m = 0; m < n; m++) {
        const pds_real  wr = row[m], ws = D[j * n + m], wt = D[k * n + m];
        const pds_real *dr = DT + m * n, *us_m = u + k * n2 + m * n, *ut_m = u + m * n2 + j * n;

        for (int i = 0; i < n; i++) ur[i] += dr[i] * wr;   /* D[i n + m] u(m, j, k) */
        for (int i = 0; i < n; i++) us[i] += ws * us_m[i]; /* D[j n + m] u(i, m, k) */
        for (int i = 0; i < n; i++) ut[i] += wt * ut_m[i]; /* D[k n + m] u(i, j, m) */
      }
      for (int i = 0; i < n; i++) {
        const int p = r + i;

        a[p] = G[p] * ur[i] + G[n3 + p] * us[i] + G[2 * n3 + p] * ut[i];
        b[p] = G[n3 + p] * ur[i] + G[3 * n3 + p] * us[i] + G[4 * n3 + p] * ut[i];
        c[p] = G[2 * n3 + p] * ur[i] + G[4 * n3 + p] * us[i] + G[5 * n3 + p] * ut[i];
      }
    }
  for (int k = 0; k < n; k++)
    for (int j = 0; j < n; j++) {
      const int       r = k * n2 + j * n;
      const pds_real *arow = a + r;
      pds_real        sa[SB_NMAX], sb[SB_NMAX], sc[SB_NMAX];

      for (int i = 0; i < n; i++) sa[i] = sb[i] = sc[i] = 0;
      for (int m = 0; m < n; m++) {
        const pds_real  wa = arow[m], wb = D[m * n + j], wc = D[m * n + k];
        const pds_real *da = D + m * n, *b_m = b + k * n2 + m * n, *c_m = c + m * n2 + j * n;

        for (int i = 0; i < n; i++) sa[i] += da[i] * wa;  /* D[m n + i] a(m, j, k) */
        for (int i = 0; i < n; i++) sb[i] += wb * b_m[i]; /* D[m n + j] b(i, m, k) */
        for (int i = 0; i < n; i++) sc[i] += wc * c_m[i]; /* D[m n + k] c(i, j, m) */
      }
      for (int i = 0; i < n; i++) y[r + i] = sa[i] + sb[i] + sc[i];
    }
}

/* element e's local diagonal (Eq. 9 and the cross terms) into d[n3] */
static inline void sb_element_diag(const struct pds_sem_dev *S, pds_int e, pds_real *d) {
  const int       n = S->n, n2 = n * n, n3 = n2 * n;
  const pds_real *D = S->D, *G = S->G + (size_t)6 * n3 * e;

  for (int k = 0, p = 0; k < n; k++)
    for (int j = 0; j < n; j++)
      for (int i = 0; i < n; i++, p++) {
        pds_real s1 = 0, s2 = 0, s3 = 0;

        for (int m = 0; m < n; m++) s1 += D[m * n + i] * D[m * n + i] * G[k * n2 + j * n + m];
        for (int m = 0; m < n; m++) s2 += D[m * n + j] * D[m * n + j] * G[3 * n3 + k * n2 + m * n + i];
        for (int m = 0; m < n; m++) s3 += D[m * n + k] * D[m * n + k] * G[5 * n3 + m * n2 + j * n + i];
        d[p] = s1 + s2 + s3 + 2 * D[i * n + i] * D[j * n + j] * G[n3 + p] + 2 * D[i * n + i] * D[k * n + k] * G[2 * n3 + p] +
               2 * D[j * n + j] * D[k * n + k] * G[4 * n3 + p];
      }
}

/* the assembled value at global g: x_g (or 1 for the diagonal) at a masked g, else the sum of loc over g's points */
static inline pds_real sb_assemble(const struct pds_sem_dev *S, pds_int g, const pds_real *loc, pds_real masked) {
  pds_real s = 0;

  if (S->mask[g]) return masked;
  for (pds_int q = S->gsptr[g]; q < S->gsptr[g + 1]; q++) s += loc[S->gsidx[q]];
  return s;
}

/* elements [e0, e1): local products of x into work (apply = 1) or local diagonals (apply = 0) */
static inline void sb_elements(const struct pds_sem_dev *S, int apply, const pds_real *x, pds_real *work, pds_int e0,
                               pds_int e1) {
  const size_t n3 = (size_t)S->n * S->n * S->n;
  pds_real     t[4 * SB_N3MAX];

  for (pds_int e = e0; e < e1; e++) {
    if (apply) sb_element_apply(S, e, x, work + n3 * e, t);
    else sb_element_diag(S, e, work + n3 * e);
  }
}

/* global points [g0, g1): out_g = the assembled work (masked: x_g, or 1 when x is NULL) */
static inline void sb_assemble_range(const struct pds_sem_dev *S, const pds_real *work, const pds_real *x,
                                     pds_real *out, pds_int g0, pds_int g1) {
  for (pds_int g = g0; g < g1; g++) out[g] = sb_assemble(S, g, work, x ? x[g] : 1.0);
}

#endif
