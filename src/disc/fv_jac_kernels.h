/* src/disc/fv_jac_kernels.h: the Jacobian of the first-order finite-volume Euler residual (issue 14's implicit step)
 * as kernels see it, and the fvjac kernel group (struct pds_kernels' member fvjac, src/backend/backend.h): the
 * derivatives of each face's flux with respect to its two states, then each cell's block row of
 * J = diag(V / tau) + d(sum of the outward fluxes)/dQ = diag(V / tau) - dR/dQ, a 5 x 5 block a cell and a block per
 * face neighbour (the dual graph). src/disc/fv_jac.c drives it; each backend fills the group in its own file
 * (ref/ref_fvjac.c, omp/omp_fvjac.c, cuda/cuda_fvjac.c); the arithmetic they share is src/backend/fv_jac_bodies.h. */
#ifndef PDS_FV_JAC_KERNELS_H
#define PDS_FV_JAC_KERNELS_H

#include "fv_kernels.h"

/* The Jacobian's pattern in backend memory: block row c holds the blocks browptr[c] .. browptr[c + 1] (columns
   ascending: c and its face neighbours); jdiag[c] is c's diagonal block; jpos[k] is the block of the other cell of
   c's face cell_face[k] (struct pds_fv_dev; -1 for a boundary face). */
struct pds_fvjac_dev {
  const pds_size *browptr;
  const pds_int  *jdiag, *jpos;
};

struct pds_fvjac_kernels {
  /* JF[50 f ..]: face f's dF/dQL (25 values, row-major: entry 5 i + j is dF_i / dQL_j), then dF/dQR (zero on a
     boundary face: the free stream's state and the wall's are not unknowns), F the face's first-order flux as the
     fv group computes it (fv_face_flux on fv_face_states1's states), by central differences (fv_jac_bodies.h) */
  int (*face_jac)(pds_ctx, const struct pds_fv_dev *D, const pds_real *Q, pds_real *JF);
  /* vals (the BSR values, 25 a block): every block of every row: the sum over the cell's faces, in cell_face order,
     of +dF/dQ (the cell is the face's first cell) or -dF/dQ (its second), the diagonal block plus lambda_c / cfl I
     where cfl > 0 (lambda_c = sum over the faces of |u . a| + c |a|, as fv's update: V / tau = lambda / cfl) */
  int (*assemble)(pds_ctx, const struct pds_fv_dev *D, const struct pds_fvjac_dev *J, pds_real cfl, const pds_real *Q,
                  const pds_real *JF, pds_real *vals);
};

#endif
