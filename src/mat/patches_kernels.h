/* src/mat/patches_kernels.h: a patch set (paper 002, src/mat/patches.c) as kernels see it, and the patches kernel
 * group (struct pds_kernels' member patches, src/backend/backend.h): the 7-point product and residual, and the
 * transfers between a patch set and its factor-2 coarsening (geometric multigrid, src/precond/gmg.c). Each backend
 * fills the group in its own file (ref/ref_patches.c, omp/omp_patches.c, cuda/cuda_patches.c with the kernels of
 * cuda/cuda_patches.cu); the per-cell arithmetic the CPU backends share is src/backend/patches_bodies.h. */
#ifndef PDS_PATCHES_KERNELS_H
#define PDS_PATCHES_KERNELS_H

#include "pdesolve.h"

/* One patch: n[0] x n[1] x n[2] cells from lo on the common grid; cell (i, j, k) is unknown first + (k n1 + j) n0 + i.
   Its ghost entries (one per cell of each of its six faces) start at gfirst in ghost[]: face x- (cells i = 0, entry
   k n1 + j), then x+ (i = n0 - 1, the same order), y- (j = 0, entry k n0 + i), y+, z- (k = 0, entry j n0 + i), z+;
   face offsets 0, F0, 2 F0, 2 F0 + F1, 2 (F0 + F1), 2 (F0 + F1) + F2 with F0 = n1 n2, F1 = n0 n2, F2 = n0 n1. */
struct pds_patch_geom {
  pds_int  n[3];
  pds_int  lo[3];
  pds_size first;
  pds_size gfirst;
};

/* The set (a host struct; geom, ghost: backend memory, hgeom, hghost: host memory, the same arrays on CPU backends).
   ghost[e]: the unknown across that face cell's face, or -1 where no patch owns it (the domain's Dirichlet boundary:
   the ghost value there is -x of the cell itself). */
struct pds_patches {
  int                          np;
  pds_size                     ncells, nghost;
  pds_real                     c[7]; /* c0, c_x-, c_x+, c_y-, c_y+, c_z-, c_z+ */
  const struct pds_patch_geom *geom, *hgeom;
  const pds_int               *ghost, *hghost;
};

struct pds_patches_kernels {
  /* y = alpha A x + beta y (beta = 0: y is not read). Cell p: s = c0 x_p, then s += c_d v_d for d = x-, x+, y-, y+,
     z-, z+ in that order, v_d the neighbour's x (in the patch, or through ghost[] across a patch face) or -x_p where
     ghost[] is -1; y_p = alpha s + beta y_p (alpha s when beta = 0). The CPU backends round every product and sum
     in this order (patches_bodies.h), so they agree bitwise. */
  int (*apply)(pds_ctx, const struct pds_patches *P, pds_real alpha, const pds_real *x, pds_real beta, pds_real *y);
  /* r = b - A x: r_p = b_p - s, s as in apply */
  int (*residual)(pds_ctx, const struct pds_patches *P, const pds_real *x, const pds_real *b, pds_real *r);
  /* Pc is Pf coarsened by 2 (patch q of Pc covers patch q of Pf, every size and origin halved): coarse cell (I, J,
     K) of patch q gets rc = scale * (sum of the fine cells (2I + a, 2J + b, 2K + c) of patch q), the 8 added with c,
     then b, then a ascending (a fastest), from 0 */
  int (*restrict_sum)(pds_ctx, const struct pds_patches *Pf, const struct pds_patches *Pc, pds_real scale,
                      const pds_real *rf, pds_real *rc);
  /* uf += P ec. trilinear = 0: each fine cell adds its coarse parent's value. trilinear = 1: fine cell (2I + a,
     2J + b, 2K + c) with s = (a ? +1 : -1, b ? +1 : -1, c ? +1 : -1) adds
       27/64 e(0,0,0) + 9/64 (e(sx,0,0) + e(0,sy,0) + e(0,0,sz)) + 3/64 (e(sx,sy,0) + e(sx,0,sz) + e(0,sy,sz))
       + 1/64 e(sx,sy,sz)   (summed in this order, left to right, then added to uf)
     where e(dx,dy,dz) is ec at the coarse cell reached from the parent by a step in x (if dx), then y, then z, each
     step through the coarse set's neighbours (inside the patch or ghost[]); a step that finds no cell (-1) stays
     where it is and flips the sign (the Dirichlet reflection) */
  int (*prolong)(pds_ctx, const struct pds_patches *Pc, const struct pds_patches *Pf, int trilinear,
                 const pds_real *ec, pds_real *uf);
};

#endif
