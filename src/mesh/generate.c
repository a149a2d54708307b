/* src/mesh/generate.c: unstructured triangle meshes of the unit square and of [0,2]x[0,1] minus a disc: boundary
   nodes h apart, a jittered hexagonal lattice inside (and a ring of nodes around the hole), incremental Delaunay
   triangulation (Lawson flips; BRIO rounds in Hilbert order, walking point location: O(n log n)), the paper's
   Laplacian smoothing (0.5, 0.25 next to the boundary) with Delaunay flips, corners split; nodes in Hilbert order. */
#include <stdlib.h>

#include "mesh_impl.h"

#define GEN_JITTER   0.35  /* lattice points move by up to this fraction of h, uniformly over a disc ... */
#define GEN_TAPER    1.0   /* ... scaled down to 0 over this many h towards 0.5 h from the boundary */
#define GEN_WALL_GAP 0.25  /* lattice points nearer than this times h to a side of the rectangle are dropped */
#define GEN_RING     0.866 /* a ring of nodes this many h outside the circle (the first layer of triangles) */
#define GEN_HOLE_GAP 0.5   /* lattice points inside the ring or nearer than this times h to it are dropped */
#define GEN_SMOOTH   6     /* smoothing passes, each followed by Delaunay flips */
#define GEN_MAXNODES 200000000
#define GEN_PI       3.14159265358979323846

typedef struct {
  const char *name;
  int         hole;
  double      W, H;         /* the rectangle [0,W]x[0,H] */
  double      cx, cy, rad;  /* the hole */
} gen_domain;

static const gen_domain gen_domains[] = {
  {"square", 0, 1.0, 1.0, 0.0, 0.0, 0.0},
  {"hole", 1, 2.0, 1.0, 0.5, 0.5, 0.25},
};

/* The point layout: M segments on the bottom and top, R on the left and right (R lattice rows), nc on the circle,
   nr nodes on the ring around it. Points are made in this order: the 2M + 2R rectangle nodes (counter-clockwise
   from (0,0)), the nc circle nodes (counter-clockwise), the ring, then the lattice rows. */
typedef struct {
  pds_int M, R, nc, nr, nbo, nbnd, n;
} gen_layout;

#define SM64_STEP UINT64_C(0x9E3779B97F4A7C15)

static uint64_t sm64(uint64_t *s) { /* splitmix64 */
  uint64_t z = (*s += SM64_STEP);

  z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
  return z ^ (z >> 31);
}

static double sm64_unif(uint64_t *s) { return (double)(sm64(s) >> 11) * 0x1p-53; }

static void gen_circles(const gen_domain *dm, gen_layout *L) {
  double h = dm->W / L->M;

  L->nc = L->nr = 0;
  if (!dm->hole) return;
  L->nc = (pds_int)lround(2 * GEN_PI * dm->rad / h);
  L->nr = (pds_int)lround(2 * GEN_PI * (dm->rad + GEN_RING * h) / h);
  if (L->nc < 8) L->nc = 8;
  if (L->nr < 8) L->nr = 8;
}

/* Put the points of layout L into xy (NULL: only count them; a point that no jitter can drop is then counted
   without drawing its jitter: the generator's state is just advanced). Returns the number of points. */
static pds_int gen_points(const gen_domain *dm, gen_layout *L, uint64_t seed, double *xy) {
  const double  W = dm->W, H = dm->H, h = W / L->M, ring = dm->rad + GEN_RING * h;
  const double  wall_safe = (GEN_WALL_GAP + GEN_JITTER + 0.01) * h, ring_safe = ring + wall_safe + GEN_HOLE_GAP * h;
  const pds_int M = L->M, R = L->R;
  uint64_t      s = seed;
  pds_int       n = 0;

#define GEN_PUT(X, Y)      \
  do {                     \
    if (xy) {              \
      xy[2 * n]     = (X); \
      xy[2 * n + 1] = (Y); \
    }                      \
    n++;                   \
  } while (0)
  for (pds_int k = 0; k < M; k++) GEN_PUT(W * k / M, 0.0);
  for (pds_int k = 0; k < R; k++) GEN_PUT(W, H * k / R);
  for (pds_int k = 0; k < M; k++) GEN_PUT(W * (M - k) / M, H);
  for (pds_int k = 0; k < R; k++) GEN_PUT(0.0, H * (R - k) / R);
  L->nbo = n;
  for (pds_int k = 0; k < L->nc; k++)
    GEN_PUT(dm->cx + dm->rad * cos(2 * GEN_PI * k / L->nc), dm->cy + dm->rad * sin(2 * GEN_PI * k / L->nc));
  L->nbnd = n;
  for (pds_int k = 0; k < L->nr; k++)
    GEN_PUT(dm->cx + ring * cos(2 * GEN_PI * (k + 0.5) / L->nr), dm->cy + ring * sin(2 * GEN_PI * (k + 0.5) / L->nr));
  for (pds_int j = 1; j < R; j++) {
    int    odd = j & 1;
    double y0  = H * j / R;

    for (pds_int i = odd ? 0 : 1; i < M; i++) {
      double x0 = (i + 0.5 * odd) * h, wall0 = fmin(fmin(x0, W - x0), fmin(y0, H - y0)), rc0 = 0, dist, r, th, x, y;

      if (dm->hole) rc0 = hypot(x0 - dm->cx, y0 - dm->cy);
      if (!xy && wall0 >= wall_safe && (!dm->hole || rc0 >= ring_safe)) {
        s += 2 * SM64_STEP;
        n++;
        continue;
      }
      dist = dm->hole ? fmin(wall0, fabs(rc0 - ring)) : wall0;
      r    = GEN_JITTER * h * fmin(fmax((dist - 0.5 * h) / (GEN_TAPER * h), 0.0), 1.0) * sqrt(sm64_unif(&s));
      th   = 2 * GEN_PI * sm64_unif(&s);
      x    = x0 + r * cos(th), y = y0 + r * sin(th);
      if (fmin(fmin(x, W - x), fmin(y, H - y)) < GEN_WALL_GAP * h) continue;
      if (dm->hole && hypot(x - dm->cx, y - dm->cy) < ring + GEN_HOLE_GAP * h) continue;
      GEN_PUT(x, y);
    }
  }
#undef GEN_PUT
  L->n = n;
  return n;
}

/* Rows for M columns such that the rows are about h sqrt(3)/2 apart (shifted by dr). */
static pds_int gen_rows(const gen_domain *dm, pds_int M, int dr) {
  pds_int R = (pds_int)lround(dm->H / (dm->W / M * 0.86602540378443865)) + dr;

  return R < 2 ? 2 : R;
}

/* Choose (M, R) so that the node count is nearest the target (secant steps on M, then the 3x3 neighbourhood;
   among counts within 1% the most isotropic layout). */
static int gen_choose_layout(pds_ctx ctx, const gen_domain *dm, pds_int target, uint64_t seed, gen_layout *best) {
  double  area = dm->W * dm->H - (dm->hole ? GEN_PI * dm->rad * dm->rad : 0), bestaniso = 0;
  pds_int M = (pds_int)lround(dm->W * sqrt(target * 0.86602540378443865 / area)), bestdiff = -1;

  if (M < 2) M = 2;
  for (int it = 0; it < 8; it++) {
    gen_layout L = {M, gen_rows(dm, M, 0), 0, 0, 0, 0, 0};
    pds_int    M2;

    gen_circles(dm, &L);
    M2 = (pds_int)lround(M * sqrt((double)target / gen_points(dm, &L, seed, NULL)));
    if (M2 < 2) M2 = 2;
    if (M2 == M) break;
    M = M2;
  }
  for (pds_int dM = -1; dM <= 1; dM++)
    for (int dr = -1; dr <= 1; dr++) {
      gen_layout L = {M + dM, 0, 0, 0, 0, 0, 0};
      pds_int    diff;
      double     aniso;

      if (L.M < 2) continue;
      L.R   = gen_rows(dm, L.M, dr);
      aniso = fabs(log((dm->H / L.R) / (dm->W / L.M * 0.86602540378443865)));
      if (aniso > 0.2) continue;
      gen_circles(dm, &L);
      diff = abs(gen_points(dm, &L, seed, NULL) - target);
      if (bestdiff < 0 || (diff <= target / 100 && bestdiff <= target / 100 ? aniso < bestaniso : diff < bestdiff)) {
        *best     = L;
        bestdiff  = diff;
        bestaniso = aniso;
      }
    }
  PDS_CHECK(bestdiff >= 0 && bestdiff <= target / 20, ctx, PDS_ERR_ARG,
            "cannot make a '%s' mesh with %" PDS_INT_FMT " nodes within 5%% (nearest: %" PDS_INT_FMT
            "): ask for more nodes", dm->name, target, bestdiff < 0 ? 0 : best->n);
  return PDS_OK;
}

/* ---- Delaunay triangulation ---------------------------------------------------------------------------- */

/* Triangle t has nodes v[3t..3t+2] counter-clockwise; nb[3t+i] is the triangle across the edge opposite v[3t+i]
   (-1: none). The triangles made by inserting p have p at local index 0. */
typedef struct {
  pds_ctx       ctx;
  const double *xy;
  pds_int      *v, *nb, *stack;
  pds_int       nt, cap, nstack, last;
  uint32_t      rnd;
} gen_dt;

#define P(i) (d->xy + 2 * (i))

static inline double gen_orient(const double *a, const double *b, const double *c) {
  return (a[0] - c[0]) * (b[1] - c[1]) - (a[1] - c[1]) * (b[0] - c[0]);
}

/* > 0 when d is inside the circle through the counter-clockwise a, b, c; *perm bounds the size of the terms. */
static inline double gen_incircle(const double *a, const double *b, const double *c, const double *d, double *perm) {
  double adx = a[0] - d[0], ady = a[1] - d[1], bdx = b[0] - d[0], bdy = b[1] - d[1], cdx = c[0] - d[0],
         cdy = c[1] - d[1];
  double al = adx * adx + ady * ady, bl = bdx * bdx + bdy * bdy, cl = cdx * cdx + cdy * cdy;

  *perm = al * (fabs(bdx * cdy) + fabs(cdx * bdy)) + bl * (fabs(cdx * ady) + fabs(adx * cdy)) +
          cl * (fabs(adx * bdy) + fabs(bdx * ady));
  return al * (bdx * cdy - cdx * bdy) + bl * (cdx * ady - adx * cdy) + cl * (adx * bdy - bdx * ady);
}

static inline void dt_set(gen_dt *d, pds_int t, pds_int a, pds_int b, pds_int c, pds_int na, pds_int nb, pds_int nc) {
  d->v[3 * t] = a, d->v[3 * t + 1] = b, d->v[3 * t + 2] = c;
  d->nb[3 * t] = na, d->nb[3 * t + 1] = nb, d->nb[3 * t + 2] = nc;
}

static inline void dt_relink(gen_dt *d, pds_int t, pds_int old, pds_int now) {
  if (t < 0) return;
  for (int k = 0; k < 3; k++)
    if (d->nb[3 * t + k] == old) d->nb[3 * t + k] = now;
}

/* Flip the edge opposite local k of T = (p, b, c) with its neighbour N = (q, c, b) into T = (p, b, q),
   N = (p, q, c), when q is inside the circle of T by more than tol times the size of the incircle terms (or
   always, if force) and both new triangles are counter-clockwise. Returns 1 if flipped. */
static int dt_flip(gen_dt *d, pds_int T, int k, double tol, int force) {
  pds_int *tv = d->v + 3 * T, *tn = d->nb + 3 * T, N = tn[k], *nv, *nn, j, p, b, c, q, Nbd, Ndc, Tcp, Tpb;
  double   perm;

  if (N < 0) return 0;
  nv = d->v + 3 * N, nn = d->nb + 3 * N;
  for (j = 0; j < 2 && nn[j] != T; j++) continue;
  p = tv[k], b = tv[(k + 1) % 3], c = tv[(k + 2) % 3], q = nv[j];
  if (!force && !(gen_incircle(P(p), P(b), P(c), P(q), &perm) > tol * perm)) return 0;
  if (!(gen_orient(P(p), P(b), P(q)) > 0) || !(gen_orient(P(p), P(q), P(c)) > 0)) return 0;
  Nbd = nn[(j + 1) % 3], Ndc = nn[(j + 2) % 3], Tcp = tn[(k + 1) % 3], Tpb = tn[(k + 2) % 3];
  dt_set(d, T, p, b, q, Nbd, N, Tpb);
  dt_set(d, N, p, q, c, Ndc, Tcp, T);
  dt_relink(d, Nbd, N, T);
  dt_relink(d, Tcp, T, N);
  return 1;
}

/* Lawson: flip the edges opposite the new point (local 0 of the stacked triangles) while they are not Delaunay. */
static void dt_legalize(gen_dt *d) {
  while (d->nstack) {
    pds_int T = d->stack[--d->nstack];

    if (dt_flip(d, T, 0, 0.0, 0)) {
      d->stack[d->nstack++] = T;
      d->stack[d->nstack++] = d->nb[3 * T + 1];
    }
  }
}

/* The triangle holding point p (stochastic visibility walk from the last triangle; a full scan if the walk does
   not end); *edge: the local index opposite the edge that p lies on, else -1. */
static int dt_locate(gen_dt *d, pds_int p, pds_int *tout, int *edge) {
  const double *x = P(p);
  pds_int       t = d->last;
  pds_size      steps = 0;

  for (;;) {
    int moved = 0, nzero = 0, zero = -1, r;

    d->rnd ^= d->rnd << 13, d->rnd ^= d->rnd >> 17, d->rnd ^= d->rnd << 5;
    r = (int)(d->rnd % 3);
    for (int k = 0; k < 3 && !moved; k++) {
      int    i = (r + k) % 3;
      double o = gen_orient(P(d->v[3 * t + (i + 1) % 3]), P(d->v[3 * t + (i + 2) % 3]), x);

      if (o < 0) {
        if (d->nb[3 * t + i] < 0) break;
        t     = d->nb[3 * t + i];
        moved = 1;
      } else if (o == 0) nzero++, zero = i;
    }
    if (!moved) {
      for (int i = 0; i < 3; i++) /* stopped at the hull: check all three edges */
        if (gen_orient(P(d->v[3 * t + (i + 1) % 3]), P(d->v[3 * t + (i + 2) % 3]), x) < 0) goto scan;
      PDS_CHECK(nzero < 2, d->ctx, PDS_ERR_STATE, "mesh generator: point %" PDS_INT_FMT " repeats a node "
                "(internal error)", p);
      *tout = t, *edge = nzero ? zero : -1;
      return PDS_OK;
    }
    if (++steps > (pds_size)d->nt + 16) break;
  }
scan:
  for (t = 0; t < d->nt; t++) {
    int nzero = 0, zero = -1, in = 1;

    for (int i = 0; i < 3 && in; i++) {
      double o = gen_orient(P(d->v[3 * t + (i + 1) % 3]), P(d->v[3 * t + (i + 2) % 3]), x);

      if (o < 0) in = 0;
      else if (o == 0) nzero++, zero = i;
    }
    if (in && nzero < 2) {
      *tout = t, *edge = nzero ? zero : -1;
      return PDS_OK;
    }
  }
  return PDS_ERROR(d->ctx, PDS_ERR_STATE, "mesh generator: point %" PDS_INT_FMT " (%g, %g) is in no triangle "
                   "(internal error)", p, x[0], x[1]);
}

static int dt_insert(gen_dt *d, pds_int p) {
  pds_int t = 0, a, b, c, na, nbb, nc;
  int     e = -1;

  PDS_CALL(dt_locate(d, p, &t, &e));
  if (e < 0) { /* inside t = (a, b, c): (p, b, c), (p, c, a), (p, a, b) */
    pds_int t1 = d->nt, t2 = d->nt + 1;

    a = d->v[3 * t], b = d->v[3 * t + 1], c = d->v[3 * t + 2];
    na = d->nb[3 * t], nbb = d->nb[3 * t + 1], nc = d->nb[3 * t + 2];
    dt_set(d, t, p, b, c, na, t1, t2);
    dt_set(d, t1, p, c, a, nbb, t2, t);
    dt_set(d, t2, p, a, b, nc, t, t1);
    dt_relink(d, nbb, t, t1);
    dt_relink(d, nc, t, t2);
    d->nt += 2;
    d->stack[d->nstack++] = t, d->stack[d->nstack++] = t1, d->stack[d->nstack++] = t2;
  } else { /* on the edge (b, c) of t = (a, b, c), shared with N = (q, c, b) if there is one: 2 or 4 triangles */
    pds_int N, tb = d->nt++, td = -1;

    a = d->v[3 * t + e], b = d->v[3 * t + (e + 1) % 3], c = d->v[3 * t + (e + 2) % 3];
    N = d->nb[3 * t + e], nbb = d->nb[3 * t + (e + 1) % 3], nc = d->nb[3 * t + (e + 2) % 3];
    if (N >= 0) {
      pds_int j, q, Nbd, Ndc;

      td = d->nt++;
      for (j = 0; j < 2 && d->nb[3 * N + j] != t; j++) continue;
      q = d->v[3 * N + j], Nbd = d->nb[3 * N + (j + 1) % 3], Ndc = d->nb[3 * N + (j + 2) % 3];
      dt_set(d, N, p, b, q, Nbd, td, t);
      dt_set(d, td, p, q, c, Ndc, tb, N);
      dt_relink(d, Ndc, N, td);
      d->stack[d->nstack++] = N, d->stack[d->nstack++] = td;
    }
    dt_set(d, t, p, a, b, nc, N, tb);
    dt_set(d, tb, p, c, a, nbb, t, td);
    dt_relink(d, nbb, t, tb);
    d->stack[d->nstack++] = t, d->stack[d->nstack++] = tb;
  }
  d->last = t;
  dt_legalize(d);
  return PDS_OK;
}

/* Renumber the triangles by their smallest node (counting sort, stable), each rotated to start there: the
   triangles at a node then sit together in memory. */
static int dt_sort(gen_dt *d, pds_int n) {
  pds_int *cnt = NULL, *pos = NULL, *v2 = NULL, *n2 = NULL;
  int      ierr;

  PDS_CALL_GOTO(ierr, done, PDS_NEW(d->ctx, (size_t)n + 1, &cnt));
  PDS_CALL_GOTO(ierr, done, pds_malloc(d->ctx, PDS_MEM_HOST, (size_t)d->nt * sizeof *pos, &pos));
  PDS_CALL_GOTO(ierr, done, pds_malloc(d->ctx, PDS_MEM_HOST, (size_t)3 * d->cap * sizeof *v2, &v2));
  PDS_CALL_GOTO(ierr, done, pds_malloc(d->ctx, PDS_MEM_HOST, (size_t)3 * d->cap * sizeof *n2, &n2));
  for (pds_int t = 0; t < d->nt; t++) {
    const pds_int *v = d->v + 3 * t;

    cnt[(v[0] < v[1] ? (v[0] < v[2] ? v[0] : v[2]) : (v[1] < v[2] ? v[1] : v[2])) + 1]++;
  }
  for (pds_int i = 0; i < n; i++) cnt[i + 1] += cnt[i];
  for (pds_int t = 0; t < d->nt; t++) {
    const pds_int *v = d->v + 3 * t;

    pos[t] = cnt[v[0] < v[1] ? (v[0] < v[2] ? v[0] : v[2]) : (v[1] < v[2] ? v[1] : v[2])]++;
  }
  for (pds_int t = 0; t < d->nt; t++) {
    const pds_int *v = d->v + 3 * t, *nb = d->nb + 3 * t;
    int            r = v[1] < v[0] && v[1] < v[2] ? 1 : v[2] < v[0] && v[2] < v[1] ? 2 : 0;

    for (int k = 0; k < 3; k++) {
      v2[3 * pos[t] + k] = v[(k + r) % 3];
      n2[3 * pos[t] + k] = nb[(k + r) % 3] < 0 ? -1 : pos[nb[(k + r) % 3]];
    }
  }
  pds_free(d->ctx, PDS_MEM_HOST, &d->v), pds_free(d->ctx, PDS_MEM_HOST, &d->nb);
  d->v = v2, d->nb = n2, v2 = NULL, n2 = NULL;
  ierr = PDS_OK;
done:
  pds_free(d->ctx, PDS_MEM_HOST, &cnt), pds_free(d->ctx, PDS_MEM_HOST, &pos);
  pds_free(d->ctx, PDS_MEM_HOST, &v2), pds_free(d->ctx, PDS_MEM_HOST, &n2);
  return ierr;
}

/* ---- insertion order: BRIO rounds, Hilbert order within a round ------------------------------------------ */

static uint64_t gen_hilbert(uint32_t x, uint32_t y) { /* 16-bit coordinates -> position on the Hilbert curve */
  const uint32_t n = 1u << 16;
  uint64_t       dd = 0;

  for (uint32_t s = n / 2; s > 0; s /= 2) {
    uint32_t rx = (x & s) > 0, ry = (y & s) > 0;

    dd += (uint64_t)s * s * ((3 * rx) ^ ry);
    if (!ry) {
      uint32_t t;

      if (rx) x = n - 1 - x, y = n - 1 - y;
      t = x, x = y, y = t;
    }
  }
  return dd;
}

/* Sort idx[0..n) by key, stable (LSD radix sort on bytes); kt, it: scratch of n entries. */
static void gen_radix_sort(pds_int n, uint64_t *key, pds_int *idx, uint64_t *kt, pds_int *it) {
  for (int byte = 0; byte < 8 && n > 0; byte++) {
    size_t cnt[257] = {0};
    int    shift    = 8 * byte;

    for (pds_int i = 0; i < n; i++) cnt[((key[i] >> shift) & 255) + 1]++;
    if (cnt[((key[0] >> shift) & 255) + 1] == (size_t)n) continue; /* all keys share this byte */
    for (int b = 0; b < 256; b++) cnt[b + 1] += cnt[b];
    for (pds_int i = 0; i < n; i++) {
      size_t q = cnt[(key[i] >> shift) & 255]++;

      kt[q] = key[i], it[q] = idx[i];
    }
    memcpy(key, kt, (size_t)n * sizeof *kt);
    memcpy(idx, it, (size_t)n * sizeof *it);
  }
}

/* idx = the points in Hilbert order over the square [0, max(W,H)]^2, or, with rounds, in BRIO rounds (round r
   holds about n 2^(r-L-1) points, drawn at random; the last round half of them) each in Hilbert order. */
static void gen_order(const gen_domain *dm, const double *xy, pds_int n, uint64_t seed, int rounds, uint64_t *key,
                      pds_int *idx, uint64_t *kt, pds_int *it) {
  double   scale = 65535.0 / (dm->W > dm->H ? dm->W : dm->H);
  uint64_t s     = seed ^ UINT64_C(0x5bd1e9955bd1e995);
  int      L     = 0;

  while (rounds && ((pds_size)64 << L) < n && L < 24) L++;
  for (pds_int i = 0; i < n; i++) {
    double   x = xy[2 * i] * scale, y = xy[2 * i + 1] * scale;
    uint64_t k = gen_hilbert(x < 0 ? 0 : x > 65535 ? 65535 : (uint32_t)x, y < 0 ? 0 : y > 65535 ? 65535 : (uint32_t)y);

    if (L) {
      uint64_t r = sm64(&s);
      int      z = 0;

      while (z < L && !(r & 1)) r >>= 1, z++;
      k |= (uint64_t)(L - z) << 32;
    }
    key[i] = k;
    idx[i] = i;
  }
  gen_radix_sort(n, key, idx, kt, it);
}

/* ---- improvement --------------------------------------------------------------------------------------- */

/* Flip interior edges that are clearly not Delaunay until none is left: one sweep over the edges (each once), then
   a work list of the triangles that flips made (each flip puts its two triangles on it). stack, mark: scratch of
   nt entries. */
static void dt_flip_all(gen_dt *d, pds_int *stack, unsigned char *mark) {
  pds_int  top = 0;
  pds_size budget = (pds_size)20 * d->nt;

  memset(mark, 0, (size_t)d->nt);
  for (pds_int t = 0; t < d->nt; t++)
    for (int k = 0; k < 3; k++) {
      pds_int N = d->nb[3 * t + k];

      if (N > t && dt_flip(d, t, k, 1e-12, 0)) {
        budget--;
        if (!mark[N]) stack[top++] = N, mark[N] = 1;
        if (!mark[t]) stack[top++] = t, mark[t] = 1;
        break;
      }
    }
  while (top && budget > 0) {
    pds_int T = stack[--top];

    mark[T] = 0;
    for (int k = 0; k < 3; k++) {
      pds_int N = d->nb[3 * T + k];

      if (N >= 0 && dt_flip(d, T, k, 1e-12, 0)) {
        budget--;
        if (!mark[N]) stack[top++] = N, mark[N] = 1;
        if (!mark[T]) stack[top++] = T, mark[T] = 1;
        break;
      }
    }
  }
}

/* One Gauss-Seidel pass of the paper's smoothing: a node moves by a fraction (0.5, or 0.25 next to the boundary)
   of the mean offset to the centroids of its triangles; a move that would fold a triangle is not made. Nodes
   with isb set stay. */
static int dt_smooth(gen_dt *d, double *xy, pds_int n, const unsigned char *isb) {
  pds_size *tp = NULL;
  pds_int  *tt = NULL;

  PDS_CALL(pds_mesh_node_triangles(d->ctx, n, d->nt, d->v, &tp, &tt));
  for (pds_int i = 0; i < n; i++) {
    double cx = 0, cy = 0, om = 0.5, ox = xy[2 * i], oy = xy[2 * i + 1], w;
    int    ok = 1;

    if (isb[i]) continue;
    for (pds_size k = tp[i]; k < tp[i + 1]; k++) {
      const pds_int *v = d->v + 3 * tt[k];

      for (int c = 0; c < 3; c++) {
        cx += xy[2 * v[c]], cy += xy[2 * v[c] + 1];
        if (isb[v[c]]) om = 0.25;
      }
    }
    w         = 1.0 / (3.0 * (double)(tp[i + 1] - tp[i]));
    xy[2 * i] = ox + om * (cx * w - ox), xy[2 * i + 1] = oy + om * (cy * w - oy);
    for (pds_size k = tp[i]; k < tp[i + 1] && ok; k++) {
      const pds_int *v = d->v + 3 * tt[k];
      int            certain;

      ok = pds_mesh_orient(xy + 2 * v[0], xy + 2 * v[1], xy + 2 * v[2], &certain) > 0 && certain;
    }
    if (!ok) xy[2 * i] = ox, xy[2 * i + 1] = oy;
  }
  pds_free(d->ctx, PDS_MEM_HOST, &tp), pds_free(d->ctx, PDS_MEM_HOST, &tt);
  return PDS_OK;
}

static double gen_min_angle(const double *a, const double *b, const double *c) {
  const double *p[3] = {a, b, c};
  double        m    = 4;

  for (int k = 0; k < 3; k++) {
    const double *o = p[k], *u = p[(k + 1) % 3], *w = p[(k + 2) % 3];
    double        ux = u[0] - o[0], uy = u[1] - o[1], wx = w[0] - o[0], wy = w[1] - o[1];
    double        ang = atan2(fabs(ux * wy - uy * wx), ux * wx + uy * wy);

    if (ang < m) m = ang;
  }
  return m;
}

/* A triangle with two edges on the boundary (at a corner of the rectangle) has no free node, which costs FEM
   accuracy there (paper 004, chapter 10): flip its third edge so that the corner is split into two triangles
   that each reach an interior node, unless that makes the smaller angle of the pair smaller than both what it
   was and 30 degrees. */
static void dt_split_corners(gen_dt *d) {
  for (pds_int t = 0; t < d->nt; t++) {
    const pds_int *v = d->v + 3 * t, *n = d->nb + 3 * t;
    pds_int        N, j, p, b, c, q;
    int            k = 0, nfree = 0;
    double         before, after;

    for (int i = 0; i < 3; i++)
      if (n[i] >= 0) nfree++, k = i;
    if (nfree != 1) continue;
    N = n[k];
    for (j = 0; j < 2 && d->nb[3 * N + j] != t; j++) continue;
    p = v[k], b = v[(k + 1) % 3], c = v[(k + 2) % 3], q = d->v[3 * N + j];
    before = fmin(gen_min_angle(P(p), P(b), P(c)), gen_min_angle(P(q), P(c), P(b)));
    after  = fmin(gen_min_angle(P(p), P(b), P(q)), gen_min_angle(P(p), P(q), P(c)));
    if (after >= before || after >= 30 * GEN_PI / 180) dt_flip(d, t, k, 0, 1);
  }
}

#undef P

/* ---- the generator ------------------------------------------------------------------------------------- */

/* Drop the triangles inside the hole (three circle nodes: isb 2) and check that the edges left with one triangle
   are exactly the boundary segments (bnext: the next node on a node's boundary loop). */
static int dt_cut_hole(gen_dt *d, const unsigned char *isb, const pds_int *bnext, pds_int nseg) {
  pds_int *keep = NULL, nk = 0, nfree = 0, bad = 0;

  PDS_CALL(pds_malloc(d->ctx, PDS_MEM_HOST, (size_t)d->nt * sizeof *keep, &keep));
  for (pds_int t = 0; t < d->nt; t++) {
    const pds_int *v = d->v + 3 * t;

    keep[t] = isb[v[0]] == 2 && isb[v[1]] == 2 && isb[v[2]] == 2 ? -1 : nk++;
  }
  for (pds_int t = 0; t < d->nt; t++)
    if (keep[t] >= 0)
      for (int c = 0; c < 3; c++) {
        pds_int q = keep[t], nb = d->nb[3 * t + c];

        d->v[3 * q + c]  = d->v[3 * t + c];
        d->nb[3 * q + c] = nb < 0 ? -1 : keep[nb];
      }
  d->nt = nk;
  pds_free(d->ctx, PDS_MEM_HOST, &keep);
  for (pds_int t = 0; t < d->nt; t++)
    for (int c = 0; c < 3; c++)
      if (d->nb[3 * t + c] < 0) {
        pds_int a = d->v[3 * t + (c + 1) % 3], b = d->v[3 * t + (c + 2) % 3];

        nfree++;
        bad += bnext[a] != b && bnext[b] != a;
      }
  PDS_CHECK(!bad && nfree == nseg, d->ctx, PDS_ERR_STATE,
            "mesh generator: the boundary was not recovered (%" PDS_INT_FMT " free edges for %" PDS_INT_FMT
            " boundary segments, %" PDS_INT_FMT " misplaced; internal error)", nfree, nseg, bad);
  return PDS_OK;
}

int pds_mesh_generate(pds_ctx ctx, const char *domain, pds_int target_nodes, uint64_t seed, pds_mesh *m) {
  const gen_domain *dm = NULL;
  gen_layout        L   = {0};
  gen_dt            d   = {0};
  double           *xy0 = NULL, *xy = NULL;
  uint64_t         *key = NULL, *kt = NULL;
  pds_int          *idx = NULL, *it = NULL, *inv = NULL, *bnext = NULL, *tri = NULL, *bedge = NULL, *btag = NULL;
  unsigned char    *isb = NULL, *mark = NULL;
  pds_int           corner[4];
  int               ierr;

  PDS_CHECK(ctx, NULL, PDS_ERR_ARG, "context is NULL");
  PDS_CHECK(m, ctx, PDS_ERR_ARG, "output mesh pointer is NULL");
  *m = NULL;
  PDS_CHECK(domain, ctx, PDS_ERR_ARG, "domain is NULL (\"square\" or \"hole\")");
  for (size_t i = 0; i < sizeof gen_domains / sizeof *gen_domains; i++)
    if (!strcmp(domain, gen_domains[i].name)) dm = &gen_domains[i];
  PDS_CHECK(dm, ctx, PDS_ERR_ARG, "unknown domain '%s' (known: \"square\", \"hole\")", domain);
  PDS_CHECK(target_nodes >= 9 && target_nodes <= GEN_MAXNODES, ctx, PDS_ERR_ARG,
            "target_nodes = %" PDS_INT_FMT " is out of range [9, %d]", target_nodes, GEN_MAXNODES);
  PDS_CALL(gen_choose_layout(ctx, dm, target_nodes, seed, &L));

  /* the points, renumbered along a Hilbert curve (idx: new -> old, inv: old -> new) */
  PDS_CALL_GOTO(ierr, done, pds_malloc(ctx, PDS_MEM_HOST, (size_t)2 * L.n * sizeof *xy0, &xy0));
  PDS_CALL_GOTO(ierr, done, pds_malloc(ctx, PDS_MEM_HOST, (size_t)2 * L.n * sizeof *xy, &xy));
  PDS_CALL_GOTO(ierr, done, pds_malloc(ctx, PDS_MEM_HOST, (size_t)L.n * sizeof *key, &key));
  PDS_CALL_GOTO(ierr, done, pds_malloc(ctx, PDS_MEM_HOST, (size_t)L.n * sizeof *kt, &kt));
  PDS_CALL_GOTO(ierr, done, pds_malloc(ctx, PDS_MEM_HOST, (size_t)L.n * sizeof *idx, &idx));
  PDS_CALL_GOTO(ierr, done, pds_malloc(ctx, PDS_MEM_HOST, (size_t)L.n * sizeof *it, &it));
  PDS_CALL_GOTO(ierr, done, pds_malloc(ctx, PDS_MEM_HOST, (size_t)L.n * sizeof *inv, &inv));
  PDS_CALL_GOTO(ierr, done, pds_malloc(ctx, PDS_MEM_HOST, (size_t)L.n * sizeof *bnext, &bnext));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, L.n, &isb));
  gen_points(dm, &L, seed, xy0);
  gen_order(dm, xy0, L.n, seed, 0, key, idx, kt, it);
  for (pds_int i = 0; i < L.n; i++) {
    inv[idx[i]] = i, bnext[i] = -1;
    xy[2 * i] = xy0[2 * idx[i]], xy[2 * i + 1] = xy0[2 * idx[i] + 1];
  }
  for (pds_int k = 0; k < L.nbnd; k++) { /* boundary segment k: node k to the next one on its loop */
    pds_int next = k < L.nbo ? (k + 1) % L.nbo : L.nbo + (k - L.nbo + 1) % L.nc;

    isb[inv[k]]   = k < L.nbo ? 1 : 2;
    bnext[inv[k]] = inv[next];
  }
  corner[0] = inv[0], corner[1] = inv[L.M], corner[2] = inv[L.M + L.R], corner[3] = inv[2 * L.M + L.R];

  /* Delaunay triangulation: the rectangle's corners, then the other points in BRIO/Hilbert order */
  gen_order(dm, xy, L.n, seed, 1, key, idx, kt, it);
  d.ctx = ctx, d.xy = xy, d.rnd = 2463534242u, d.cap = 2 * L.n + 8;
  PDS_CALL_GOTO(ierr, done, pds_malloc(ctx, PDS_MEM_HOST, (size_t)3 * d.cap * sizeof *d.v, &d.v));
  PDS_CALL_GOTO(ierr, done, pds_malloc(ctx, PDS_MEM_HOST, (size_t)3 * d.cap * sizeof *d.nb, &d.nb));
  PDS_CALL_GOTO(ierr, done, pds_malloc(ctx, PDS_MEM_HOST, (size_t)(L.n + 16) * sizeof *d.stack, &d.stack));
  dt_set(&d, 0, corner[0], corner[1], corner[2], -1, 1, -1);
  dt_set(&d, 1, corner[0], corner[2], corner[3], -1, -1, 0);
  d.nt = 2;
  for (pds_int k = 0; k < L.n; k++) {
    pds_int p = idx[k];

    if (p == corner[0] || p == corner[1] || p == corner[2] || p == corner[3]) continue;
    PDS_CALL_GOTO(ierr, done, dt_insert(&d, p));
  }
  PDS_CALL_GOTO(ierr, done, dt_cut_hole(&d, isb, bnext, L.nbnd));
  PDS_CALL_GOTO(ierr, done, dt_sort(&d, L.n));

  /* smoothing, each pass followed by Delaunay flips; then the corners */
  pds_free(ctx, PDS_MEM_HOST, &d.stack);
  PDS_CALL_GOTO(ierr, done, pds_malloc(ctx, PDS_MEM_HOST, (size_t)d.nt * sizeof *d.stack, &d.stack));
  PDS_CALL_GOTO(ierr, done, pds_malloc(ctx, PDS_MEM_HOST, (size_t)d.nt * sizeof *mark, &mark));
  for (int pass = 0; pass < GEN_SMOOTH; pass++) {
    PDS_CALL_GOTO(ierr, done, dt_smooth(&d, xy, L.n, isb));
    dt_flip_all(&d, d.stack, mark);
  }
  dt_split_corners(&d);
  PDS_CALL_GOTO(ierr, done, dt_sort(&d, L.n));

  /* the mesh takes xy and the triangle array */
  PDS_CALL_GOTO(ierr, done, pds_malloc(ctx, PDS_MEM_HOST, (size_t)2 * L.nbnd * sizeof *bedge, &bedge));
  PDS_CALL_GOTO(ierr, done, pds_malloc(ctx, PDS_MEM_HOST, (size_t)L.nbnd * sizeof *btag, &btag));
  for (pds_int k = 0; k < L.nbnd; k++) {
    bedge[2 * k] = inv[k], bedge[2 * k + 1] = bnext[inv[k]];
    btag[k]      = k < L.M ? 1 : k < L.M + L.R ? 2 : k < 2 * L.M + L.R ? 3 : k < L.nbo ? 4 : 5;
  }
  tri = d.v, d.v = NULL;
  ierr = pds_mesh_create_owned(ctx, L.n, xy, d.nt, tri, L.nbnd, bedge, btag, NULL, m);
  xy = NULL, tri = NULL, bedge = NULL, btag = NULL;
done:
  pds_free(ctx, PDS_MEM_HOST, &xy0), pds_free(ctx, PDS_MEM_HOST, &xy), pds_free(ctx, PDS_MEM_HOST, &key);
  pds_free(ctx, PDS_MEM_HOST, &kt), pds_free(ctx, PDS_MEM_HOST, &idx), pds_free(ctx, PDS_MEM_HOST, &it);
  pds_free(ctx, PDS_MEM_HOST, &inv), pds_free(ctx, PDS_MEM_HOST, &bnext), pds_free(ctx, PDS_MEM_HOST, &isb);
  pds_free(ctx, PDS_MEM_HOST, &mark), pds_free(ctx, PDS_MEM_HOST, &d.v), pds_free(ctx, PDS_MEM_HOST, &d.nb);
  pds_free(ctx, PDS_MEM_HOST, &d.stack), pds_free(ctx, PDS_MEM_HOST, &tri);
  pds_free(ctx, PDS_MEM_HOST, &bedge), pds_free(ctx, PDS_MEM_HOST, &btag);
  return ierr;
}
