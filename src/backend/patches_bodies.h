/* src/backend/patches_bodies.h: the per-cell arithmetic of patch sets (src/mat/patches_kernels.h) as pure functions
 * of plain arrays, shared by the CPU backends (the patches group and the relax group's block residuals) so that any
 * traversal order gives the same bits: a cell's neighbour across a direction (inside its patch, through the ghost
 * map, or the Dirichlet reflection) and the row sum s = (A x)_p in the order patches.apply states.
 * Byte model of a row: 8 (x_p) + 6 neighbour reads (mostly cache hits: about 8 bytes per cell from memory overall),
 * 4 bytes of ghost map on patch faces; 13 flops (7 products, 6 sums). */
#ifndef PDS_PATCHES_BODIES_H
#define PDS_PATCHES_BODIES_H

#include "kernel_bodies.h" /* PDS_INLINE */
#include "../mat/patches_kernels.h"

/* the ghost entry of patch g's face f (0 x-, 1 x+, 2 y-, 3 y+, 4 z-, 5 z+) at face cell (i, j, k) */
PDS_INLINE pds_size pb_ghost_entry(const struct pds_patch_geom *g, int f, pds_int i, pds_int j, pds_int k) {
  const pds_size F0 = (pds_size)g->n[1] * g->n[2], F1 = (pds_size)g->n[0] * g->n[2], F2 = (pds_size)g->n[0] * g->n[1];

  switch (f) {
  case 0: return g->gfirst + (pds_size)k * g->n[1] + j;
  case 1: return g->gfirst + F0 + (pds_size)k * g->n[1] + j;
  case 2: return g->gfirst + 2 * F0 + (pds_size)k * g->n[0] + i;
  case 3: return g->gfirst + 2 * F0 + F1 + (pds_size)k * g->n[0] + i;
  case 4: return g->gfirst + 2 * (F0 + F1) + (pds_size)j * g->n[0] + i;
  default: return g->gfirst + 2 * (F0 + F1) + F2 + (pds_size)j * g->n[0] + i;
  }
}

/* the unknown next to cell (i, j, k) of patch g in direction f, or -1 where the domain ends (Dirichlet) */
PDS_INLINE pds_size pb_neighbour(const struct pds_patch_geom *g, const pds_int *ghost, int f, pds_int i, pds_int j,
                                 pds_int k) {
  const pds_size p = g->first + ((pds_size)k * g->n[1] + j) * g->n[0] + i;

  switch (f) {
  case 0: return i > 0 ? p - 1 : ghost[pb_ghost_entry(g, 0, i, j, k)];
  case 1: return i + 1 < g->n[0] ? p + 1 : ghost[pb_ghost_entry(g, 1, i, j, k)];
  case 2: return j > 0 ? p - g->n[0] : ghost[pb_ghost_entry(g, 2, i, j, k)];
  case 3: return j + 1 < g->n[1] ? p + g->n[0] : ghost[pb_ghost_entry(g, 3, i, j, k)];
  case 4: return k > 0 ? p - (pds_size)g->n[0] * g->n[1] : ghost[pb_ghost_entry(g, 4, i, j, k)];
  default: return k + 1 < g->n[2] ? p + (pds_size)g->n[0] * g->n[1] : ghost[pb_ghost_entry(g, 5, i, j, k)];
  }
}

/* s = (A x)_p for cell (i, j, k) of patch g: c0 x_p, then + c_d v_d for d = x-, x+, y-, y+, z-, z+, each product
   and sum rounded in this order (v_d = -x_p at the Dirichlet boundary) */
PDS_INLINE pds_real pb_row_sum(const pds_real c[7], const struct pds_patch_geom *g, const pds_int *ghost,
                               const pds_real *x, pds_int i, pds_int j, pds_int k) {
  const pds_size p = g->first + ((pds_size)k * g->n[1] + j) * g->n[0] + i;
  const pds_real xp = x[p];
  pds_real       s  = c[0] * xp;

  for (int f = 0; f < 6; f++) {
    const pds_size q = pb_neighbour(g, ghost, f, i, j, k);
    const pds_real v = q >= 0 ? x[q] : -xp;
    const pds_real t = c[1 + f] * v;

    s = s + t;
  }
  return s;
}

#endif
