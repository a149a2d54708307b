/* src/disc/sem_kernels.h: the spectral-element operator as kernels see it, and the sem kernel group (struct
 * pds_kernels' member sem, src/backend/backend.h): the matrix-free product of paper 003 (Eq. 3-6) and its diagonal
 * (Eq. 9 and the terms of a full G). src/disc/sem_op.c makes the backend copies and drives it; each backend fills the
 * group in its own file (ref/ref_sem.c, omp/omp_sem.c); the per-element arithmetic the CPU backends share is
 * src/backend/sem_bodies.h. */
#ifndef PDS_SEM_KERNELS_H
#define PDS_SEM_KERNELS_H

#include "pdesolve.h"

/* The space in backend memory (host memory on CPU backends): n points per direction (n3 = n^3 per element), E
   elements, nloc = E n3 local points, nglob global points.
     D[n * n]        D[i n + j] = l_j'(x_i) (src/disc/sem_impl.h)
     w[n]            the GLL weights
     G[6 nloc]       element e's G11 G12 G13 G22 G23 G33 at G + 6 n3 e + c n3 (sem.c)
     K[6 E] or NULL  when every element is affine: G at point (i, j, k) of element e is (w_i w_j) w_k K[6 e + c],
                     rounded in this order, bitwise, so a backend may read K (6 values an element) instead of G
     gid[nloc]       local point -> global point
     mask[nglob]     1: a Dirichlet point
     gsptr, gsidx    global g's local points gsidx[gsptr[g] .. gsptr[g + 1]), ascending
     xg              NULL, or a rank's share of a distributed space (src/disc/sem_dist.c): its elements reach points
                     nglob .. nglob + nghost - 1 too (ghosts: other ranks' points, gid and mask cover them), whose
                     values come from xg[g - nglob]; the output covers the nglob points of gsptr only
   The operator on global vectors is A = M Q^T A_L Q M + (I - M) (M: zero the masked points): symmetric positive
   definite, the identity on the Dirichlet points. */
struct pds_sem_dev {
  int             n;
  pds_int         E, nglob;
  pds_size        nloc;
  const pds_real *D, *w, *G, *K;
  const pds_int  *gid;
  const unsigned char *mask;
  const pds_int  *gsptr;
  const pds_int  *gsidx;
  const pds_real *xg;
};

enum { PDS_SEM_DIAG_EXTENDED = 0, PDS_SEM_DIAG_NATURAL = 1, PDS_SEM_DIAG_SHARED = 2, PDS_SEM_DIAG_WIDE = 3 };

struct pds_sem_kernels {
  /* w = A x. work: nloc values of backend memory. Element e's local product, point p = (i, j, k):
       u_q = 0 at masked points, else x_gid[q] (q in e; xg[gid[q] - nglob] at a ghost);
       ur_p = sum_m D[i n + m] u(m, j, k), us_p = sum_m D[j n + m] u(i, m, k), ut_p = sum_m D[k n + m] u(i, j, m)
              (m ascending);
       (a, b, c)_p = G_p (ur, us, ut)_p:  a = G11 ur + G12 us + G13 ut, b = G12 ur + G22 us + G23 ut,
              c = G13 ur + G23 us + G33 ut (left to right);
       y_p = sum_m D[m n + i] a(m, j, k) + sum_m D[m n + j] b(i, m, k) + sum_m D[m n + k] c(i, j, m)
              (the three sums in this order, each over m ascending, added left to right) -> work[e n3 + p];
     then w_g = x_g at a masked g, else the sum of work over g's local points in gsidx order from 0. */
  int (*apply)(pds_ctx, const struct pds_sem_dev *S, const pds_real *x, pds_real *w, pds_real *work);
  /* apply's two phases apart, for a distributed product that overlaps its exchange with the elements that need no
     ghost (src/disc/sem_dist.c): elements(e0, e1) the local products of elements e0 .. e1-1 (0 <= e0 < e1 <= E) into
     work, then assemble the sum at the global points (w_g = x_g at a masked g) */
  int (*elements)(pds_ctx, const struct pds_sem_dev *S, pds_int e0, pds_int e1, const pds_real *x, pds_real *work);
  int (*assemble)(pds_ctx, const struct pds_sem_dev *S, const pds_real *x, pds_real *w, const pds_real *work);
  /* d = diag(A): local d_p = sum_m [D[m n + i]^2 G11(m, j, k) + D[m n + j]^2 G22(i, m, k) + D[m n + k]^2 G33(i, j, m)]
     (m ascending, the three terms added in this order) + 2 D[i n + i] D[j n + j] G12_p + 2 D[i n + i] D[k n + k] G13_p
     + 2 D[j n + j] D[k n + k] G23_p (paper 003 Eq. 9 and the cross terms of a full G, which live on element faces:
     D's diagonal is 0 inside) -> work; then d_g = 1 at a masked g, else the sum over g's local points in gsidx order.
     variant: how a device backend maps the work (paper 003 Section 3.1; the same arithmetic, so the same bits):
     PDS_SEM_DIAG_EXTENDED a thread per local point, thread blocks across elements (any n); NATURAL a thread block
     per element, a thread per point (n <= 10); SHARED the same with the element's G11, G22, G33 first in shared
     memory (n <= 10); WIDE a thread per line of n points along x. CPU backends run their one loop for all four. */
  int (*diag)(pds_ctx, const struct pds_sem_dev *S, int variant, pds_real *d, pds_real *work);
};

#endif
