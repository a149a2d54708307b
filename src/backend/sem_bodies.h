/* src/backend/sem_bodies.h: the per-element and per-point arithmetic of the spectral-element kernels
 * (src/disc/sem_kernels.h) that the CPU backends share, in the order the group's contract states, so /cpu/ref and
 * /cpu/omp give the same bits whatever the traversal. */
#ifndef PDS_SEM_BODIES_H
#define PDS_SEM_BODIES_H

#include "../disc/sem_kernels.h"

#define SB_NMAX 14
#define SB_N3MAX (SB_NMAX * SB_NMAX * SB_NMAX)

/* element e's local product y = A^e u (u gathered from x with the mask) into y[n3]; t: 4 n3 scratch values */
static inline void sb_element_apply(const struct pds_sem_dev *S, pds_int e, const pds_real *x, pds_real *y,
                                    pds_real *t) {
  const int       n = S->n, n2 = n * n, n3 = n2 * n;
  const pds_real *D = S->D, *G = S->G + (size_t)6 * n3 * e;
  const pds_int  *gid = S->gid + (size_t)n3 * e;
  pds_real       *u = t, *a = t + n3, *b = t + 2 * n3, *c = t + 3 * n3;

  for (int q = 0; q < n3; q++) u[q] = S->mask[gid[q]] ? 0.0 : x[gid[q]];
  for (int k = 0, p = 0; k < n; k++)
    for (int j = 0; j < n; j++)
      for (int i = 0; i < n; i++, p++) {
        pds_real ur = 0, us = 0, ut = 0;

        for (int m = 0; m < n; m++) ur += D[i * n + m] * u[k * n2 + j * n + m];
        for (int m = 0; m < n; m++) us += D[j * n + m] * u[k * n2 + m * n + i];
        for (int m = 0; m < n; m++) ut += D[k * n + m] * u[m * n2 + j * n + i];
        a[p] = G[p] * ur + G[n3 + p] * us + G[2 * n3 + p] * ut;
        b[p] = G[n3 + p] * ur + G[3 * n3 + p] * us + G[4 * n3 + p] * ut;
        c[p] = G[2 * n3 + p] * ur + G[4 * n3 + p] * us + G[5 * n3 + p] * ut;
      }
  for (int k = 0, p = 0; k < n; k++)
    for (int j = 0; j < n; j++)
      for (int i = 0; i < n; i++, p++) {
        pds_real sa = 0, sb = 0, sc = 0;

        for (int m = 0; m < n; m++) sa += D[m * n + i] * a[k * n2 + j * n + m];
        for (int m = 0; m < n; m++) sb += D[m * n + j] * b[k * n2 + m * n + i];
        for (int m = 0; m < n; m++) sc += D[m * n + k] * c[m * n2 + j * n + i];
        y[p] = sa + sb + sc;
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
