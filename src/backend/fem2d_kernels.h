/* src/backend/fem2d_kernels.h: the arithmetic of P1 assembly, as pure functions of plain arrays, shared by every
 * backend's fem2d.element and fem2d.gather kernels (src/disc/fem2d.c drives them): the element kernel (3x3
 * stiffness and load of one triangle) and the row gather (one CSR row and b_i from the element values through
 * the gather maps). ref runs them over all triangles and rows, omp over thread ranges, cuda one thread per
 * triangle and a few lanes per row (cuda_fem2d.cu), so all three give the same bits.
 *
 * Bits: every value is a fixed sequence of IEEE +, -, *, / (no library call, no data-dependent order), so any
 * correctly rounded machine gives the same bits, provided the compiler contracts nothing into FMAs (C11 with
 * -std=c11 does not on GCC; nvcc needs -fmad=false or __dmul_rn/__dadd_rn). Element values of a callback
 * (k, f, g) are the callback's: evaluate them on the host to keep CPU and GPU bitwise equal.
 *
 * Element matrix storage: 6 values per triangle (it is symmetric), slots 0 1 2 = K00 K11 K22, 3 = K01,
 * 4 = K12, 5 = K02; fem2d_slot(li, lj) gives the slot of a local pair. */
#ifndef PDS_FEM2D_KERNELS_H
#define PDS_FEM2D_KERNELS_H

#include <math.h>

#include "pdesolve.h"

#if defined(__CUDACC__)
#define PDS_FEM_HD static inline __host__ __device__
#else
#define PDS_FEM_HD static inline
#endif

PDS_FEM_HD int fem2d_slot(int li, int lj) {
  /* {{0,3,5},{3,1,4},{5,4,2}} */
  return li == lj ? li : li + lj == 1 ? 3 : li + lj == 3 ? 4 : 5;
}

/* Stiffness of the triangle (x0,y0), (x1,y1), (x2,y2) (counter-clockwise) with conductivity k:
 *   b_i = y_{i+1} - y_{i+2}, c_i = x_{i+2} - x_{i+1} (indices mod 3), 2A = c2 b1 - c1 b2,
 *   K_ij = k / (2 * 2A) * (b_i b_j + c_i c_j)            (paper 004: t/(4A) (k b_i b_j + k c_i c_j), t = 1).
 * Writes K[0..6) and returns 2A (<= 0 or NaN: a degenerate or clockwise triangle; K is then meaningless).
 * 26 flops and a division. */
PDS_FEM_HD pds_real fem2d_element_stiffness(pds_real x0, pds_real y0, pds_real x1, pds_real y1, pds_real x2,
                                            pds_real y2, pds_real k, pds_real *K) {
  pds_real b0 = y1 - y2, b1 = y2 - y0, b2 = y0 - y1;
  pds_real c0 = x2 - x1, c1 = x0 - x2, c2 = x1 - x0;
  pds_real twoA = c2 * b1 - c1 * b2;
  pds_real s    = k / (2.0 * twoA);

  K[0] = s * (b0 * b0 + c0 * c0);
  K[1] = s * (b1 * b1 + c1 * c1);
  K[2] = s * (b2 * b2 + c2 * c2);
  K[3] = s * (b0 * b1 + c0 * c1);
  K[4] = s * (b1 * b2 + c1 * c2);
  K[5] = s * (b0 * b2 + c0 * c2);
  return twoA;
}

/* Load of a constant source f: f A / 3 to each node (exact). */
PDS_FEM_HD void fem2d_element_load_const(pds_real twoA, pds_real f, pds_real *fe) {
  pds_real l = f * twoA / 6.0;

  fe[0] = l, fe[1] = l, fe[2] = l;
}

/* Load int_T f phi_i by the edge-midpoint rule (A/3 times the sum over the 3 midpoints; exact for quadratics, so
 * for f phi_i with f linear): phi_i is 1/2 at the midpoints of the two edges at node i and 0 at the third, so
 * fe_i = (f(m_i,i+1) + f(m_i+2,i)) A/6. f01, f12, f20: f at the midpoints of edges 0-1, 1-2, 2-0, with the
 * midpoint computed as ((x_a + x_b) * 0.5, (y_a + y_b) * 0.5) (the same bits from both triangles of an edge). */
PDS_FEM_HD void fem2d_element_load_mid(pds_real twoA, pds_real f01, pds_real f12, pds_real f20, pds_real *fe) {
  pds_real w = twoA / 12.0;

  fe[0] = (f01 + f20) * w;
  fe[1] = (f01 + f12) * w;
  fe[2] = (f12 + f20) * w;
}

/* Triangle e of the mesh (tri, xy): Ke[6e..6e+6) and fe[3e..3e+3); conductivity kv[e] (or k when kv is NULL),
 * source at the edge midpoints fm[3e..3e+3) (or the constant f when fm is NULL: f A/3 per node). Returns 0 when
 * 2A > 0, k > 0 and every value is finite, else 1 (a degenerate or clockwise triangle, or bad data).
 * Bytes: 12 (tri) + 48 (xy, gathered) [+ 8 kv + 24 fm] read, 72 written; 30 flops and a division. */
PDS_FEM_HD int fem2d_element(pds_int e, const pds_int *tri, const pds_real *xy, pds_real k, const pds_real *kv,
                             pds_real f, const pds_real *fm, pds_real *Ke, pds_real *fe) {
  const pds_int  *t  = tri + 3 * (size_t)e;
  const pds_real *p0 = xy + 2 * (size_t)t[0], *p1 = xy + 2 * (size_t)t[1], *p2 = xy + 2 * (size_t)t[2];
  pds_real       *K = Ke + 6 * (size_t)e, *F = fe + 3 * (size_t)e;
  pds_real        ke   = kv ? kv[e] : k;
  pds_real        twoA = fem2d_element_stiffness(p0[0], p0[1], p1[0], p1[1], p2[0], p2[1], ke, K);
  int             ok   = twoA > 0 && ke > 0 && isfinite(ke);

  if (fm) fem2d_element_load_mid(twoA, fm[3 * (size_t)e], fm[3 * (size_t)e + 1], fm[3 * (size_t)e + 2], F);
  else fem2d_element_load_const(twoA, f, F);
  for (int s = 0; s < 6; s++) ok = ok && isfinite(K[s]);
  for (int s = 0; s < 3; s++) ok = ok && isfinite(F[s]);
  return !ok;
}

/* Row i of A and b_i, from the element matrices Ke (6 per triangle) and loads fe (3 per triangle):
 *   not Dirichlet (isd[i] = 0): a_ip = sum_q Ke[gidx[q]] over the entry's contributions (ascending triangle),
 *     b_i = sum_q fe[nidx[q]] over the node's triangles (ascending); symmetric mode: for each column j (in
 *     column order) with isd[j], b_i -= a_ij g_j, then a_ij = 0;
 *   Dirichlet: the row is e_i^T (zeros stay stored), b_i = g_i;
 * g_j is g[j], or gc for every node when g is NULL.
 * Bytes per row of a interior node with r entries and d triangles: 8 (rowptr) + r (4 colidx + 8 gptr + 8 vals)
 * + 3d (4 gidx + 8 Ke) + d (4 nidx + 8 fe) + 16 (nptr) + 8 (b) [+ r (1 isd) in symmetric mode];
 * flops: 3d + d additions. */
PDS_FEM_HD void fem2d_gather_row(pds_int i, const pds_size *rowptr, const pds_int *colidx, const pds_size *gptr,
                                 const pds_int *gidx, const pds_real *Ke, const pds_size *nptr,
                                 const pds_int *nidx, const pds_real *fe, const unsigned char *isd,
                                 const pds_real *g, pds_real gc, int symmetric, pds_real *vals, pds_real *b) {
  pds_size p0 = rowptr[i], p1 = rowptr[i + 1];

  if (isd[i]) {
    for (pds_size p = p0; p < p1; p++) vals[p] = colidx[p] == i ? 1.0 : 0.0;
    b[i] = g ? g[i] : gc;
    return;
  }
  {
    pds_real bi = 0.0;

    for (pds_size q = nptr[i]; q < nptr[i + 1]; q++) bi += fe[nidx[q]];
    for (pds_size p = p0; p < p1; p++) {
      pds_real s = 0.0;
      pds_int  j = colidx[p];

      for (pds_size q = gptr[p]; q < gptr[p + 1]; q++) s += Ke[gidx[q]];
      if (symmetric && isd[j]) {
        bi -= s * (g ? g[j] : gc);
        s = 0.0;
      }
      vals[p] = s;
    }
    b[i] = bi;
  }
}

#endif
