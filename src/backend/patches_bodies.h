/* src/backend/patches_bodies.h: the per-cell arithmetic of patch sets (src/mat/patches_kernels.h) as pure functions
 * of plain arrays, shared by the CPU backends (the patches group and the relax group's block residuals) so that any
 * traversal order gives the same bits: a cell's neighbour across a direction (inside its patch, through the ghost
 * map, or the Dirichlet reflection) and the row sum s = (A x)_p in the order patches.apply states; and the four
 * kernels of the group as loops over a range [c0, c1) of output unknowns (ref runs the whole range, omp each
 * thread's part), with the walk (pb_step) that the trilinear prolongation and pds_mat_patches_get_ghosted take
 * through neighbouring cells.
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

/* the cells of patch g's face f in ghost-entry order (pb_ghost_entry): entry t (0 .. pb_face_size - 1) is cell l */
PDS_INLINE pds_size pb_face_size(const struct pds_patch_geom *g, int f) {
  const int d = f >> 1;

  return (pds_size)g->n[d == 0 ? 1 : 0] * g->n[d == 2 ? 1 : 2];
}
PDS_INLINE void pb_face_cell(const struct pds_patch_geom *g, int f, pds_size t, pds_int l[3]) {
  const int d = f >> 1, a = d == 0 ? 1 : 0, b = d == 2 ? 1 : 2;

  l[d] = f & 1 ? g->n[d] - 1 : 0;
  l[a] = (pds_int)(t % g->n[a]);
  l[b] = (pds_int)(t / g->n[a]);
}

/* The set's Dirichlet faces (ghost -1), patch by patch, faces 0 .. 5, in entry order, from the host arrays: start
   with e = {0}; each pb_boundary_next finds the next one (0 after the last): face e.f of cell e.l of patch e.q,
   unknown e.p. A cell's faces come in ascending f. */
struct pb_boundary {
  int      q, f;
  pds_size t, p;
  pds_int  l[3];
};
PDS_INLINE int pb_boundary_next(const struct pds_patches *P, struct pb_boundary *e) {
  for (; e->q < P->np; e->q++, e->f = 0)
    for (; e->f < 6; e->f++, e->t = 0) {
      const struct pds_patch_geom *g    = &P->hgeom[e->q];
      const pds_size               base = pb_ghost_entry(g, e->f, 0, 0, 0), m = pb_face_size(g, e->f);

      for (; e->t < m; e->t++)
        if (P->hghost[base + e->t] < 0) {
          pb_face_cell(g, e->f, e->t, e->l);
          e->p = g->first + ((pds_size)e->l[2] * g->n[1] + e->l[1]) * g->n[0] + e->l[0];
          e->t++;
          return 1;
        }
    }
  return 0;
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

/* s = (A x)_p for a cell whose six neighbours all lie in its patch (p -+ 1, -+ sy, -+ sz): pb_row_sum's products and
   sums in pb_row_sum's order, without the neighbour search */
PDS_INLINE pds_real pb_row_sum_inner(const pds_real c[7], const pds_real *x, pds_size p, pds_size sy, pds_size sz) {
  pds_real s = c[0] * x[p];

  s = s + c[1] * x[p - 1];
  s = s + c[2] * x[p + 1];
  s = s + c[3] * x[p - sy];
  s = s + c[4] * x[p + sy];
  s = s + c[5] * x[p - sz];
  s = s + c[6] * x[p + sz];
  return s;
}

/* s = (A x)_p for cell (i, j, k) of patch g; inner: the cell's row (j, k) lies off the patch's y and z faces, so
   cells 0 < i < n_x - 1 take the short path (the same bits) */
PDS_INLINE pds_real pb_sum(const pds_real c[7], const struct pds_patch_geom *g, const pds_int *ghost,
                           const pds_real *x, pds_int i, pds_int j, pds_int k, int inner) {
  if (inner && i > 0 && i + 1 < g->n[0])
    return pb_row_sum_inner(c, x, g->first + ((pds_size)k * g->n[1] + j) * g->n[0] + i, g->n[0],
                            (pds_size)g->n[0] * g->n[1]);
  return pb_row_sum(c, g, ghost, x, i, j, k);
}

/* s of cells i0 .. i1 - 1 of x-row (j, k) of patch g into s[0 .. i1 - i0): pb_row_sum's bits, the cells whose six
   neighbours all lie in the patch by pb_row_sum_inner in a loop of their own */
PDS_INLINE void pb_row_sums(const pds_real c[7], const struct pds_patch_geom *g, const pds_int *ghost,
                            const pds_real *x, pds_int j, pds_int k, pds_int i0, pds_int i1, pds_real *s) {
  const pds_size p0 = g->first + ((pds_size)k * g->n[1] + j) * g->n[0], sz = (pds_size)g->n[0] * g->n[1];
  pds_int        a = i1, b = i1; /* the cells [a, b) off the patch's faces */

  if (j > 0 && j + 1 < g->n[1] && k > 0 && k + 1 < g->n[2]) {
    a = i0 > 1 ? i0 : 1;
    b = i1 < g->n[0] - 1 ? i1 : g->n[0] - 1;
    if (b < a) b = a;
  }
  for (pds_int i = i0; i < a; i++) s[i - i0] = pb_row_sum(c, g, ghost, x, i, j, k);
  for (pds_int i = a; i < b; i++) s[i - i0] = pb_row_sum_inner(c, x, p0 + i, g->n[0], sz);
  for (pds_int i = b; i < i1; i++) s[i - i0] = pb_row_sum(c, g, ghost, x, i, j, k);
}

/* the longest row piece the range kernels sum at once (into a buffer on the stack) */
#define PB_ROW 256

PDS_INLINE pds_size pb_cells(const struct pds_patch_geom *g) { return (pds_size)g->n[0] * g->n[1] * g->n[2]; }

/* the patch holding unknown u (the unknowns run patch after patch): the last q with first_q <= u, by bisection */
PDS_INLINE int pb_patch_of(const struct pds_patch_geom *geom, int np, pds_size u) {
  int lo = 0, hi = np - 1;

  while (lo < hi) {
    const int mid = lo + (hi - lo + 1) / 2;

    if (geom[mid].first <= u) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/* The x-row segment that starts at unknown c (c < c1): *q moved forward to the patch holding c, (*i, *j, *k) the
   cell, the return value the number of cells from there to the row's end or to c1. Range kernels walk [c0, c1)
   this way, so any cut of the unknowns (omp's threads) runs the same per-cell arithmetic. */
PDS_INLINE pds_int pb_segment(const struct pds_patch_geom *geom, int *q, pds_size c, pds_size c1, pds_int *i,
                              pds_int *j, pds_int *k) {
  const struct pds_patch_geom *g;
  pds_size                     l, r;

  while (c >= geom[*q].first + pb_cells(&geom[*q])) (*q)++;
  g  = &geom[*q];
  l  = c - g->first;
  r  = l / g->n[0];
  *i = (pds_int)(l % g->n[0]);
  *j = (pds_int)(r % g->n[1]);
  *k = (pds_int)(r / g->n[1]);
  return (pds_int)(g->n[0] - *i < c1 - c ? g->n[0] - *i : c1 - c);
}

/* the 7-point sums s of the unknowns [c0, c1), row piece by row piece, finished as patches.apply (b = NULL: y_p =
   alpha s + beta y_p, alpha s when beta = 0) or as patches.residual (y_p = b_p - s) */
PDS_INLINE void pb_sums_range(const struct pds_patches *P, pds_real alpha, const pds_real *x, pds_real beta,
                              const pds_real *b, pds_real *y, pds_size c0, pds_size c1) {
  int      q = pb_patch_of(P->geom, P->np, c0);
  pds_int  i, j, k;
  pds_real s[PB_ROW];

  for (pds_size c = c0; c < c1;) {
    const pds_int len = pb_segment(P->geom, &q, c, c1 - c > PB_ROW ? c + PB_ROW : c1, &i, &j, &k);

    pb_row_sums(P->c, &P->geom[q], P->ghost, x, j, k, i, i + len, s);
    if (b)
      for (pds_int t = 0; t < len; t++) y[c + t] = b[c + t] - s[t];
    else if (beta == 0)
      for (pds_int t = 0; t < len; t++) y[c + t] = alpha * s[t];
    else
      for (pds_int t = 0; t < len; t++) y[c + t] = alpha * s[t] + beta * y[c + t];
    c += len;
  }
}

/* patches.restrict_sum on the coarse unknowns [c0, c1): rc = scale * (0 + the 8 fine cells, a fastest, then b,
   then c) */
PDS_INLINE void pb_restrict_range(const struct pds_patches *Pf, const struct pds_patches *Pc, pds_real scale,
                                  const pds_real *rf, pds_real *rc, pds_size c0, pds_size c1) {
  int     q = pb_patch_of(Pc->geom, Pc->np, c0);
  pds_int I, J, K;

  for (pds_size c = c0; c < c1;) {
    const pds_int                len = pb_segment(Pc->geom, &q, c, c1, &I, &J, &K);
    const struct pds_patch_geom *gf  = &Pf->geom[q];
    const pds_size               sy = gf->n[0], sz = (pds_size)gf->n[0] * gf->n[1];

    for (pds_int t = 0; t < len; t++, c++) {
      const pds_size p = gf->first + 2 * K * sz + 2 * J * sy + 2 * (I + t);
      pds_real       s = 0;

      for (int cz = 0; cz < 2; cz++)
        for (int by = 0; by < 2; by++)
          for (int ax = 0; ax < 2; ax++) s = s + rf[p + cz * sz + by * sy + ax];
      rc[c] = scale * s;
    }
  }
}

/* A walk over a patch set's cells: where it stands (patch q, cell l in it) and whether the Dirichlet reflections on
   the way (an odd number of them) negate the value there. */
struct pb_walk {
  int     q;
  pds_int l[3];
  int     neg;
};

/* one step of w in direction f (0 x-, 1 x+, 2 y-, 3 y+, 4 z-, 5 z+): to the next cell in the patch, or across the
   face through ghost[] (its patch found by bisection), or, where no cell is (-1), nowhere, flipping the sign */
PDS_INLINE void pb_step(const struct pds_patch_geom *geom, int np, const pds_int *ghost, struct pb_walk *w, int f) {
  const struct pds_patch_geom *g = &geom[w->q];
  const int                    d = f >> 1;
  pds_size                     u, l;

  if (f & 1 ? w->l[d] + 1 < g->n[d] : w->l[d] > 0) {
    w->l[d] += f & 1 ? 1 : -1;
    return;
  }
  u = ghost[pb_ghost_entry(g, f, w->l[0], w->l[1], w->l[2])];
  if (u < 0) {
    w->neg = !w->neg;
    return;
  }
  w->q    = pb_patch_of(geom, np, u);
  g       = &geom[w->q];
  l       = u - g->first;
  w->l[0] = (pds_int)(l % g->n[0]);
  w->l[1] = (pds_int)(l / g->n[0] % g->n[1]);
  w->l[2] = (pds_int)(l / g->n[0] / g->n[1]);
}

/* x where w stands, with its sign */
PDS_INLINE pds_real pb_walk_value(const struct pds_patch_geom *geom, const struct pb_walk *w, const pds_real *x) {
  const struct pds_patch_geom *g = &geom[w->q];
  const pds_real v = x[g->first + ((pds_size)w->l[2] * g->n[1] + w->l[1]) * g->n[0] + w->l[0]];

  return w->neg ? -v : v;
}

/* patches.prolong on the fine unknowns [c0, c1): uf += the parent's ec (constant) or patches_kernels.h's trilinear
   sum over the parent and its neighbours reached by pb_step (x, then y, then z) */
PDS_INLINE void pb_prolong_range(const struct pds_patches *Pc, const struct pds_patches *Pf, int trilinear,
                                 const pds_real *ec, pds_real *uf, pds_size c0, pds_size c1) {
  const struct pds_patch_geom *G = Pc->geom;
  int                          q = pb_patch_of(Pf->geom, Pf->np, c0);
  pds_int                      i, j, k;

  for (pds_size c = c0; c < c1;) {
    const pds_int len = pb_segment(Pf->geom, &q, c, c1, &i, &j, &k);

    for (pds_int t = 0; t < len; t++, c++) {
      const pds_int        a  = (i + t) & 1, b = j & 1, cz = k & 1;
      const struct pb_walk w0 = {q, {(i + t) >> 1, j >> 1, k >> 1}, 0};
      struct pb_walk       wx = w0, wy = w0, wz, wxy, wxz, wyz, wxyz;

      if (!trilinear) {
        uf[c] = uf[c] + pb_walk_value(G, &w0, ec);
        continue;
      }
      pb_step(G, Pc->np, Pc->ghost, &wx, 0 + a);
      pb_step(G, Pc->np, Pc->ghost, &wy, 2 + b);
      wz = w0, wxy = wx, wxz = wx, wyz = wy;
      pb_step(G, Pc->np, Pc->ghost, &wz, 4 + cz);
      pb_step(G, Pc->np, Pc->ghost, &wxy, 2 + b);
      pb_step(G, Pc->np, Pc->ghost, &wxz, 4 + cz);
      pb_step(G, Pc->np, Pc->ghost, &wyz, 4 + cz);
      wxyz = wxy;
      pb_step(G, Pc->np, Pc->ghost, &wxyz, 4 + cz);
      {
        const pds_real e000 = pb_walk_value(G, &w0, ec), e100 = pb_walk_value(G, &wx, ec);
        const pds_real e010 = pb_walk_value(G, &wy, ec), e001 = pb_walk_value(G, &wz, ec);
        const pds_real e110 = pb_walk_value(G, &wxy, ec), e101 = pb_walk_value(G, &wxz, ec);
        const pds_real e011 = pb_walk_value(G, &wyz, ec), e111 = pb_walk_value(G, &wxyz, ec);
        const pds_real s    = 27.0 / 64 * e000 + 9.0 / 64 * (e100 + e010 + e001) +
                           3.0 / 64 * (e110 + e101 + e011) + 1.0 / 64 * e111;

        uf[c] = uf[c] + s;
      }
    }
  }
}

#endif
