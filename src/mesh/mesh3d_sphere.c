/* src/mesh/mesh3d_sphere.c: a sphere |x| = r in the box [-h, h]^3 as a hybrid mesh of all four cell types (issue 14,
   paper 001's kind of mesh): a six-block cubed-sphere O-grid. Each face of the cube [-1, 1]^3 carries an n x n grid
   (equiangular: the face coordinate tan(pi/4 (2i/n - 1))); every grid point p is a ray from the origin, with nodes at
   the radii r + t_k (h |p| - r), t_k = ((h/r)^(k/L) - 1) / (h/r - 1), k = 0..L (on the sphere at k = 0, exactly h p on
   the box at k = L; geometric growth, so the cells stay about as wide as they are thick, finer near the sphere). The
   columns of hexahedra between consecutive radii are, from the sphere outward: hexahedra (layers [0, Lh)), a
   transition layer (the hexahedron cut into 6 pyramids at its centre, the outer one into 2 tetrahedra), prisms (the
   hexahedron cut in 2 along the diagonal of its grid quad), and tetrahedra and pyramids (6 pyramids, the inner and
   outer ones each into 2 tetrahedra). Conforming: the side faces of a column (in the planes through the origin) stay
   whole quads in every layer, and the face at radius k is cut by the same diagonal (through the grid quad's vertex
   with the lowest node number) in both its cells, or by neither when one of them is a hexahedron. */
#include <stdlib.h>

#include "mesh3d_impl.h"

#define SPH_MIN_CELLS 432      /* n = 2, L = 4: 24 columns of 1 + 7 + 2 + 8 cells */
#define SPH_MAX_CELLS 50000000 /* 5 vertices a cell on average: well inside 32-bit indices */

enum { SPH_HEX, SPH_TRANS, SPH_PRISM, SPH_OUTER };

/* n x n quads on each cube face, L layers: Lh hexahedra, 1 transition, Lp prisms, Lc tetrahedra and pyramids */
typedef struct {
  pds_int n, L, Lh, Lp, Lc;
} sph_layout;

static sph_layout sph_bands(pds_int n, pds_int L) {
  sph_layout s;
  pds_int    b = 3 * L / 10 > 1 ? 3 * L / 10 : 1;

  s.n = n, s.L = L, s.Lp = b, s.Lc = b, s.Lh = L - 1 - 2 * b;
  return s;
}

/* cells of one column (all layers) */
static pds_size sph_column_cells(const sph_layout *s) {
  return (pds_size)s->Lh + 7 + 2 * (pds_size)s->Lp + 8 * (pds_size)s->Lc;
}

static int sph_kind(const sph_layout *s, pds_int k) {
  return k < s->Lh ? SPH_HEX : k == s->Lh ? SPH_TRANS : k <= s->Lh + s->Lp ? SPH_PRISM : SPH_OUTER;
}

/* 1: the quads at radius k (0..L) are cut into 2 triangles (no hexahedron on either side) */
static int sph_split(const sph_layout *s, pds_int k) {
  return (k == 0 || sph_kind(s, k - 1) != SPH_HEX) && (k == s->L || sph_kind(s, k) != SPH_HEX);
}

/* The layout nearest target cells: among those within 5% of it, the one whose layers are closest to lam n (cells
   about as thick as wide at the sphere), else the nearest count. */
static sph_layout sph_choose(pds_int target, double lam) {
  sph_layout best = sph_bands(2, 4);
  double     bkey0 = 2, bkey1 = INFINITY, T = (double)target;

  for (pds_int n = 2; n == 2 || 6.0 * n * n * 18 <= 1.1 * T; n++)
    for (pds_int L = 4;; L++) {
      sph_layout s = sph_bands(n, L);
      double     c = 6.0 * n * n * (double)sph_column_cells(&s), err = fabs(c / T - 1), k0, k1;

      if (c > 1.1 * T && L > 4) break;
      k0 = err <= 0.05 ? 0 : 1, k1 = err <= 0.05 ? fabs(log((double)L / (lam * n))) : err;
      if (k0 < bkey0 || (k0 == bkey0 && k1 < bkey1)) best = s, bkey0 = k0, bkey1 = k1;
      if (c > 1.1 * T) break;
    }
  return best;
}

/* the equiangular face coordinate of lattice index i (exactly -1, 0, 1 where it should be; odd in i - n/2) */
static pds_real sph_coord(pds_int i, pds_int n) {
  if (2 * i > n) return -sph_coord(n - i, n);
  if (i == 0) return -1;
  if (2 * i == n) return 0;
  return tan(0.78539816339744830962 * ((pds_real)(2 * i) / (pds_real)n - 1));
}

typedef struct {
  pds_real      *xyz, *dir;
  unsigned char *ct, *bt;
  pds_size      *cp, *bp;
  pds_int       *cn, *ctag, *bn, *btag, *lat, *quad;
  pds_int        c, b; /* cells and boundary faces written */
} sph_arrays;

static void sph_free(pds_ctx ctx, sph_arrays *a) {
  pds_free(ctx, PDS_MEM_HOST, &a->xyz), pds_free(ctx, PDS_MEM_HOST, &a->dir), pds_free(ctx, PDS_MEM_HOST, &a->ct);
  pds_free(ctx, PDS_MEM_HOST, &a->bt), pds_free(ctx, PDS_MEM_HOST, &a->cp), pds_free(ctx, PDS_MEM_HOST, &a->bp);
  pds_free(ctx, PDS_MEM_HOST, &a->cn), pds_free(ctx, PDS_MEM_HOST, &a->ctag), pds_free(ctx, PDS_MEM_HOST, &a->bn);
  pds_free(ctx, PDS_MEM_HOST, &a->btag), pds_free(ctx, PDS_MEM_HOST, &a->lat), pds_free(ctx, PDS_MEM_HOST, &a->quad);
}

static void sph_cell(sph_arrays *a, int type, pds_int v0, pds_int v1, pds_int v2, pds_int v3, pds_int v4, pds_int v5,
                     pds_int v6, pds_int v7) {
  const pds_int v[8] = {v0, v1, v2, v3, v4, v5, v6, v7};
  pds_int       c    = a->c++;

  a->ct[c] = (unsigned char)type, a->ctag[c] = 1, a->cp[c + 1] = a->cp[c] + type;
  memcpy(a->cn + a->cp[c], v, (size_t)type * sizeof *v);
}

static void sph_bface(sph_arrays *a, int type, pds_int tag, pds_int v0, pds_int v1, pds_int v2, pds_int v3) {
  const pds_int v[4] = {v0, v1, v2, v3};
  pds_int       k    = a->b++;

  a->bt[k] = (unsigned char)type, a->btag[k] = tag, a->bp[k + 1] = a->bp[k] + type;
  memcpy(a->bn + a->bp[k], v, (size_t)type * sizeof *v);
}

/* The face of a cut hexahedron at one end of its column: the pyramid with the base q (towards the apex c), or its two
   tetrahedra split along q[0]-q[2]. */
static void sph_cap(sph_arrays *a, int split, const pds_int q[4], pds_int c) {
  if (split) {
    sph_cell(a, PDS_CELL_TET, q[0], q[1], q[2], c, 0, 0, 0, 0);
    sph_cell(a, PDS_CELL_TET, q[0], q[2], q[3], c, 0, 0, 0, 0);
  } else
    sph_cell(a, PDS_CELL_PYRAMID, q[0], q[1], q[2], q[3], c, 0, 0, 0);
}

int pds_mesh3d_generate_sphere(pds_ctx ctx, pds_int target_cells, pds_real radius, pds_real half_width,
                               pds_mesh3d *m) {
  sph_arrays a = {0};
  sph_layout s;
  pds_size   nlat, ns = 0, nq, nn, nc = 0, ncn = 0, nb, nbn;
  pds_int    n, L, ncentre = 0;
  pds_real   q;
  int        ierr;

  PDS_CHECK(ctx, NULL, PDS_ERR_ARG, "context is NULL");
  PDS_CHECK(m, ctx, PDS_ERR_ARG, "output mesh pointer is NULL");
  *m = NULL;
  PDS_CHECK(isfinite(radius) && isfinite(half_width) && radius > 0 && 2 * radius < half_width, ctx, PDS_ERR_ARG,
            "radius = %g, half_width = %g: need 0 < radius < half_width / 2, both finite", radius, half_width);
  PDS_CHECK(target_cells >= SPH_MIN_CELLS, ctx, PDS_ERR_ARG,
            "target_cells = %" PDS_INT_FMT " is below the smallest sphere mesh (%d cells)", target_cells,
            SPH_MIN_CELLS);
  PDS_CHECK(target_cells <= SPH_MAX_CELLS, ctx, PDS_ERR_ARG,
            "target_cells = %" PDS_INT_FMT " is above the largest sphere mesh made here (%d cells)", target_cells,
            SPH_MAX_CELLS);
  q = half_width / radius;
  s = sph_choose(target_cells, 2 * log(q) / 3.14159265358979323846);
  n = s.n, L = s.L;
  nlat = (pds_size)(n + 1) * (n + 1) * (n + 1), nq = 6 * (pds_size)n * n;
  for (pds_int k = 0; k < L; k++) { /* count cells and their vertices */
    int kind = sph_kind(&s, k), lo = sph_split(&s, k), hi = sph_split(&s, k + 1);

    if (kind == SPH_HEX) nc += 1, ncn += 8;
    else if (kind == SPH_PRISM) nc += 2, ncn += 12;
    else nc += 6 + lo + hi, ncn += 20 + (lo ? 8 : 5) + (hi ? 8 : 5), ncentre++;
  }
  nc *= nq, ncn *= nq;
  nb  = nq * (1 + (pds_size)(1 + sph_split(&s, L))), nbn = nq * (4 + (sph_split(&s, L) ? 6 : 4));
  PDS_CALL_GOTO(ierr, fail, pds_malloc(ctx, PDS_MEM_HOST, (size_t)nlat * sizeof *a.lat, &a.lat));
  for (pds_int i = 0; i <= n; i++) /* the lattice points on the cube's surface, numbered in lattice order */
    for (pds_int j = 0; j <= n; j++)
      for (pds_int k = 0; k <= n; k++) {
        int on = i == 0 || i == n || j == 0 || j == n || k == 0 || k == n;

        a.lat[(i * (n + 1) + j) * (n + 1) + k] = on ? (pds_int)ns++ : -1;
      }
  nn = ns * (pds_size)(L + 1) + nq * (pds_size)ncentre;
  PDS_CALL_GOTO(ierr, fail, pds_malloc(ctx, PDS_MEM_HOST, (size_t)ns * 3 * sizeof *a.dir, &a.dir));
  PDS_CALL_GOTO(ierr, fail, pds_malloc(ctx, PDS_MEM_HOST, (size_t)nq * 4 * sizeof *a.quad, &a.quad));
  PDS_CALL_GOTO(ierr, fail, pds_malloc(ctx, PDS_MEM_HOST, (size_t)nn * 3 * sizeof *a.xyz, &a.xyz));
  PDS_CALL_GOTO(ierr, fail, pds_malloc(ctx, PDS_MEM_HOST, (size_t)nc, &a.ct));
  PDS_CALL_GOTO(ierr, fail, PDS_NEW(ctx, (size_t)nc + 1, &a.cp));
  PDS_CALL_GOTO(ierr, fail, pds_malloc(ctx, PDS_MEM_HOST, (size_t)ncn * sizeof *a.cn, &a.cn));
  PDS_CALL_GOTO(ierr, fail, pds_malloc(ctx, PDS_MEM_HOST, (size_t)nc * sizeof *a.ctag, &a.ctag));
  PDS_CALL_GOTO(ierr, fail, pds_malloc(ctx, PDS_MEM_HOST, (size_t)nb, &a.bt));
  PDS_CALL_GOTO(ierr, fail, PDS_NEW(ctx, (size_t)nb + 1, &a.bp));
  PDS_CALL_GOTO(ierr, fail, pds_malloc(ctx, PDS_MEM_HOST, (size_t)nbn * sizeof *a.bn, &a.bn));
  PDS_CALL_GOTO(ierr, fail, pds_malloc(ctx, PDS_MEM_HOST, (size_t)nb * sizeof *a.btag, &a.btag));
  for (pds_int i = 0; i <= n; i++) /* ray directions: the lattice point on the equiangular cube */
    for (pds_int j = 0; j <= n; j++)
      for (pds_int k = 0; k <= n; k++) {
        pds_int id = a.lat[(i * (n + 1) + j) * (n + 1) + k];

        if (id < 0) continue;
        a.dir[3 * id] = sph_coord(i, n), a.dir[3 * id + 1] = sph_coord(j, n), a.dir[3 * id + 2] = sph_coord(k, n);
      }
  for (int f = 0, nqf = 0; f < 6; f++) { /* the grid quads of face f (axis d, side sg), counter-clockwise outside */
    int d = f / 2, d1 = (d + 1) % 3, d2 = (d + 2) % 3, sg = f % 2;

    for (pds_int i = 0; i < n; i++)
      for (pds_int j = 0; j < n; j++, nqf++) {
        static const int ci[4] = {0, 1, 1, 0}, cj[4] = {0, 0, 1, 1};
        pds_int          v[4], *out = a.quad + 4 * (pds_size)nqf, lo = 0;

        for (int t = 0; t < 4; t++) {
          int     tt     = sg ? t : (4 - t) % 4; /* reversed on the face at -1 */
          pds_int ijk[3] = {0, 0, 0};

          ijk[d] = sg ? n : 0, ijk[d1] = i + ci[tt], ijk[d2] = j + cj[tt];
          v[t] = a.lat[(ijk[0] * (n + 1) + ijk[1]) * (n + 1) + ijk[2]];
          if (v[t] < v[lo]) lo = t;
        }
        for (int t = 0; t < 4; t++) out[t] = v[(lo + t) % 4]; /* the lowest vertex first: diagonals 0-2 */
      }
  }
  for (pds_int k = 0; k <= L; k++) { /* nodes on the rays, layer by layer */
    pds_real t = k == L ? 1 : (pow(q, (pds_real)k / (pds_real)L) - 1) / (q - 1);

    for (pds_size i = 0; i < ns; i++) {
      const pds_real *p  = a.dir + 3 * i;
      pds_real       *x  = a.xyz + 3 * (i + ns * (pds_size)k);
      pds_real        np = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]), rho = radius + t * (half_width * np - radius);

      for (int e = 0; e < 3; e++) x[e] = k == L ? half_width * p[e] : k == 0 ? radius * (p[e] / np) : rho * (p[e] / np);
    }
  }
  for (pds_int k = 0, cut = 0; k < L; k++) { /* cells, layer by layer from the sphere */
    int     kind = sph_kind(&s, k), lo = sph_split(&s, k), hi = sph_split(&s, k + 1);
    pds_int b0 = (pds_int)(ns * (pds_size)k), b1 = b0 + (pds_int)ns;

    for (pds_size iq = 0; iq < nq; iq++) {
      const pds_int *g = a.quad + 4 * iq;
      pds_int        u[4] = {b0 + g[0], b0 + g[1], b0 + g[2], b0 + g[3]};
      pds_int        w[4] = {b1 + g[0], b1 + g[1], b1 + g[2], b1 + g[3]};

      if (kind == SPH_HEX) sph_cell(&a, PDS_CELL_HEX, u[0], u[1], u[2], u[3], w[0], w[1], w[2], w[3]);
      else if (kind == SPH_PRISM) {
        sph_cell(&a, PDS_CELL_PRISM, u[0], u[1], u[2], w[0], w[1], w[2], 0, 0);
        sph_cell(&a, PDS_CELL_PRISM, u[0], u[2], u[3], w[0], w[2], w[3], 0, 0);
      } else { /* 6 pyramids at the centre node; the caps at radii k, k + 1 maybe as 2 tetrahedra each */
        pds_int  c = (pds_int)(ns * (pds_size)(L + 1) + nq * (pds_size)cut + iq), top[4] = {w[0], w[3], w[2], w[1]};
        pds_real *x = a.xyz + 3 * (pds_size)c;

        for (int e = 0; e < 3; e++) {
          pds_real sum = 0;

          for (int t = 0; t < 4; t++) sum += a.xyz[3 * (pds_size)u[t] + e] + a.xyz[3 * (pds_size)w[t] + e];
          x[e] = sum / 8;
        }
        sph_cap(&a, lo, u, c);
        for (int t = 0; t < 4; t++)
          sph_cell(&a, PDS_CELL_PYRAMID, u[t], w[t], w[(t + 1) % 4], u[(t + 1) % 4], c, 0, 0, 0);
        sph_cap(&a, hi, top, c);
      }
    }
    if (kind == SPH_TRANS || kind == SPH_OUTER) cut++;
  }
  for (pds_size iq = 0; iq < nq; iq++) { /* the sphere (tag 1) and the box (tag 2), outward from the domain */
    const pds_int *g = a.quad + 4 * iq;
    pds_int        t = (pds_int)(ns * (pds_size)L);

    sph_bface(&a, 4, 1, g[0], g[3], g[2], g[1]);
    if (sph_split(&s, L)) {
      sph_bface(&a, 3, 2, t + g[0], t + g[1], t + g[2], 0);
      sph_bface(&a, 3, 2, t + g[0], t + g[2], t + g[3], 0);
    } else
      sph_bface(&a, 4, 2, t + g[0], t + g[1], t + g[2], t + g[3]);
  }
  pds_free(ctx, PDS_MEM_HOST, &a.lat), pds_free(ctx, PDS_MEM_HOST, &a.dir), pds_free(ctx, PDS_MEM_HOST, &a.quad);
  ierr = pds_mesh3d_create_owned(ctx, (pds_int)nn, a.xyz, (pds_int)nc, a.ct, a.cp, a.cn, a.ctag, (pds_int)nb, a.bt,
                                 a.bp, a.bn, a.btag, NULL, m);
  memset(&a, 0, sizeof a);
  return ierr;
fail:
  sph_free(ctx, &a);
  return ierr;
}
