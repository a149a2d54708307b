/* src/disc/fv_kernels.h: the finite-volume Euler operator (paper 001, issue 14) as kernels see it, and the fv kernel
 * group (struct pds_kernels' member fv, src/backend/backend.h): the convective residual in the paper's three stages
 * (Section 3.2: the states at the faces, the flux through each face, the sum into each cell; deterministic: no
 * atomics, each cell sums its faces in a fixed order), the other summations (face colours, atomic additions, a cell
 * loop computing its faces' fluxes) and the explicit update with a local time step. src/disc/fv.c
 * makes the backend copies and drives it; each backend fills the group in its own file (ref/ref_fv.c, omp/omp_fv.c,
 * cuda/cuda_fv.c); the per-face and per-cell arithmetic they share is src/backend/fv_bodies.h. */
#ifndef PDS_FV_KERNELS_H
#define PDS_FV_KERNELS_H

#include "pdesolve.h"

enum { PDS_FV_INTERIOR = 0, PDS_FV_FREESTREAM = 1, PDS_FV_WALL = 2 }; /* face kinds */
/* the summations of the residual (pds_fv_params' summation: "stages", "color", "atomic", "cells") */
enum { PDS_FV_SUM_STAGES = 0, PDS_FV_SUM_COLOR = 1, PDS_FV_SUM_ATOMIC = 2, PDS_FV_SUM_CELLS = 3 };

/* The mesh and the gas in backend memory (host memory on CPU backends). States are 5 values a cell,
   Q = (rho, rho u, rho v, rho w, E), cell after cell.
     face_cell[2 f]      the face's first cell (its area vector points out of it), then the second (-1: boundary)
     face_kind[f]        PDS_FV_INTERIOR, _FREESTREAM (the right state is qinf), _WALL (the paper's wall flux)
     face_area[3 f]      the area vector
     cell_ptr, cell_face the faces of cell c: cell_face[cell_ptr[c] .. cell_ptr[c + 1]), f for a face c is the first
                         cell of, -1 - f for one it is the second of (the sign of its flux in c's sum)
     cell_volume[c]
   Order 2 (the paper's Section 3.1 arrays; NULL at order 1):
     ste[c] .. ste[c+1]  cell c's stencil: its NG = ste[c+1] - ste[c] cells sta[ste[c] ..] (STE, STA)
     mat[9 ste[c] ..]    A_c (9 x NG), column by column: PC_c = A_c (Q_G - Q_c) (MAT)
     ap[9 c]             g_c (the cell means of the 6 centred monomials (x-xc)^2, (y-yc)^2, (z-zc)^2, (x-xc)(y-yc),
                         (x-xc)(z-zc), (y-yc)(z-zc)), then the barycentre xc (AP)
     face_centre[3 f]    the face's barycentre
   The colour summation (PDS_FV_SUM_COLOR; NULL otherwise): the faces coloured so that no two faces of a colour share a
   cell (greedy in face order, src/disc/fv.c):
     color_face[color_ptr[k] .. color_ptr[k + 1])  the faces of colour k, in increasing order (color_ptr_h: the same
                         offsets in host memory, for the launches), ncolors colours */
struct pds_fv_dev {
  pds_int              ncells, nfaces;
  const pds_int       *face_cell;
  const unsigned char *face_kind;
  const pds_real      *face_area, *cell_volume;
  const pds_int       *cell_ptr, *cell_face;
  pds_real             gamma, efix, qinf[5];
  int                  order;
  const pds_int       *ste, *sta;
  const pds_real      *mat, *ap, *face_centre;
  pds_int              ncolors;
  const pds_int       *color_ptr, *color_face, *color_ptr_h;
};

struct pds_fv_kernels {
  /* stage (i), first order: QF[10 f] = the left state (its first cell's Q), then the right one (the second cell's Q,
     qinf on a free-stream face, the left state again on a wall) */
  int (*face_states)(pds_ctx, const struct pds_fv_dev *D, const pds_real *Q, pds_real *QF);
  /* stage (ii): F[5 f] = fv_flux_roe(gamma, efix, left, right, area) (interior and free-stream faces) or
     fv_flux_wall(gamma, left, area) (src/backend/fv_bodies.h) */
  int (*face_flux)(pds_ctx, const struct pds_fv_dev *D, const pds_real *QF, pds_real *F);
  /* stage (iii): R[5 c] = - sum over c's faces, in cell_face order from 0, of +F_f (first cell) or -F_f (second) */
  int (*cell_sum)(pds_ctx, const struct pds_fv_dev *D, const pds_real *F, pds_real *R);
  /* order 2, the reconstruction (the paper's Eq. 5 as PC_c = A_c B_c): PC[45 c + 9 v + h] = sum over the stencil's
     g = 0 .. NG-1, in order, of mat[9 (ste[c] + g) + h] (Q[5 sta[ste[c] + g] + v] - Q[5 c + v]) (fv_recon_cell_var) */
  int (*recon)(pds_ctx, const struct pds_fv_dev *D, const pds_real *Q, pds_real *PC);
  /* order 2, stage (i): QF[10 f] = the left cell's polynomial at the face barycentre, then the right one's (qinf on a
     free-stream face, the left value again on a wall) (fv_face_states2) */
  int (*face_states2)(pds_ctx, const struct pds_fv_dev *D, const pds_real *Q, const pds_real *PC, pds_real *QF);
  /* The whole residual R by one of the summations after stage (i) + (ii) fused: each face's flux computed from the
     cells' values (order 1) or their polynomials PC at the face barycentre (order 2; PC NULL at order 1) by
     fv_face_flux_q (src/backend/fv_bodies.h), with the face's first cell as its left state:
     flux_q:   F[5 f] = that flux, every face (the stages summation: cell_sum follows; the same bits as
               face_states/face_states2 + face_flux);
     color:    R = 0, then for each colour in order, each face of it adds -F into its first cell and +F into its
               second (no two faces of a colour share a cell: no races; each cell's sum in colour order, the same
               bits on every backend);
     atomic:   R = 0, then each face adds -F and +F into its cells with atomic additions (in any order: NOT
               deterministic on /cpu/omp and /gpu/cuda; /cpu/ref's loop goes in face order);
     cells:    each cell computes the flux of each of its faces itself, in cell_face order (an interior face's
               flux twice, once in each of its cells, both times with its first cell as the left state), and sums
               them as cell_sum does: the stages' bits, without face arrays. */
  int (*flux_q)(pds_ctx, const struct pds_fv_dev *D, const pds_real *Q, const pds_real *PC, pds_real *F);
  int (*sum_color)(pds_ctx, const struct pds_fv_dev *D, const pds_real *Q, const pds_real *PC, pds_real *R);
  int (*sum_atomic)(pds_ctx, const struct pds_fv_dev *D, const pds_real *Q, const pds_real *PC, pds_real *R);
  int (*sum_cells)(pds_ctx, const struct pds_fv_dev *D, const pds_real *Q, const pds_real *PC, pds_real *R);
  /* the explicit step with a local time step: per cell tau = cfl V / sum over its faces of (|u . a| + c |a|) (u, c
     of the cell's Q, a a face's area vector), then Q += tau R / V; writes tau[c] */
  int (*update)(pds_ctx, const struct pds_fv_dev *D, pds_real cfl, const pds_real *R, pds_real *Q, pds_real *tau);
};

#endif
