/* tests/mesh/t905_mesh3d_geom.c: the finite-volume geometry of 3D meshes (pds_mesh3d_get_geometry): single cells
 * against closed-form volumes and barycentres (unit cube, reference tetrahedron, a prism, a pyramid with an off-centre
 * apex), generated boxes and a box with randomly moved interior nodes (non-planar quadrangles) whose volumes sum to the
 * box's, the shared meshes (total volume against the enclosed volume by the divergence theorem, (1/3) sum over the
 * boundary faces of centre . area), every cell's area vectors summing to zero, every face's vector pointing away
 * from its first cell; the dual graph (symmetric, sorted, degree = interior faces); face tags against the box's
 * 1..6; renumbering (rcm, hilbert: the geometry a permutation bit for bit, tags and counts kept, faces numbered as
 * the cells first meet them, locality better on a shuffled box: printed), Hilbert order on a 2^3-grid visiting face
 * neighbours in turn; errors and allocation failures. Prints the locality table (one line per mesh and ordering). */
#include <stdint.h>

#include "test.h"

typedef struct {
  pds_int              nn, nc, nb, nf, nbound;
  const pds_real      *xyz, *vol, *cc, *fa, *fc;
  const unsigned char *ct, *bt, *ft;
  const pds_size      *cp, *bp, *fp, *cfp, *dp;
  const pds_int       *cn, *ctag, *bn, *btag, *fn, *fcell, *cf, *adj, *ftag;
} view;

static view get(pds_mesh3d m) {
  view v;

  TEST_CALL(pds_mesh3d_get_sizes(m, &v.nn, &v.nc, &v.nb));
  TEST_CALL(pds_mesh3d_get_arrays(m, &v.xyz, &v.ct, &v.cp, &v.cn, &v.ctag, &v.bt, &v.bp, &v.bn, &v.btag));
  TEST_CALL(pds_mesh3d_get_faces(m, &v.nf, &v.nbound, &v.ft, &v.fp, &v.fn, &v.fcell, &v.cfp, &v.cf));
  TEST_CALL(pds_mesh3d_get_geometry(m, &v.vol, &v.cc, &v.fa, &v.fc));
  TEST_CALL(pds_mesh3d_get_dual(m, &v.dp, &v.adj));
  TEST_CALL(pds_mesh3d_face_tags(m, &v.ftag));
  return v;
}

static double dot(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static uint64_t rng_state = 12345;

static double rnd(void) { /* uniform in [0, 1) */
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(rng_state >> 11) / 9007199254740992.0;
}

/* The checks every mesh passes; returns the volume sum. The enclosed volume is (1/3) sum over the boundary faces of
   x_f . a_f, exact for planar boundary faces (every mesh here has them). */
static double check_mesh(pds_mesh3d m, const char *what) {
  view   v = get(m);
  double vol = 0, encl = 0, amax = 0;

  for (pds_int c = 0; c < v.nc; c++) {
    double s[3] = {0, 0, 0}, sa = 0;

    if (!(v.vol[c] > 0)) TEST_FAIL("%s: cell %d has volume %g", what, (int)c, v.vol[c]);
    vol += v.vol[c];
    for (pds_size k = v.cfp[c]; k < v.cfp[c + 1]; k++) {
      pds_int f = v.cf[k];
      double  sg = v.fcell[2 * f] == c ? 1 : -1;

      TEST_ASSERT(v.fcell[2 * f] == c || v.fcell[2 * f + 1] == c);
      for (int d = 0; d < 3; d++) s[d] += sg * v.fa[3 * f + d];
      sa += sqrt(dot(v.fa + 3 * f, v.fa + 3 * f));
    }
    if (!(sqrt(dot(s, s)) <= 1e-14 * sa)) TEST_FAIL("%s: cell %d: |sum of area vectors| = %g, area %g", what, (int)c,
                                                    sqrt(dot(s, s)), sa);
  }
  for (pds_int f = 0; f < v.nf; f++) {
    pds_int c0 = v.fcell[2 * f], c1 = v.fcell[2 * f + 1];
    double  dir[3];

    for (int d = 0; d < 3; d++) dir[d] = (c1 >= 0 ? v.cc[3 * c1 + d] : v.fc[3 * f + d]) - v.cc[3 * c0 + d];
    if (!(dot(v.fa + 3 * f, dir) > 0)) TEST_FAIL("%s: face %d points into its first cell %d", what, (int)f, (int)c0);
    if (c1 < 0) encl += dot(v.fc + 3 * f, v.fa + 3 * f) / 3;
    TEST_ASSERT(c1 >= 0 ? v.ftag[f] == -1 : v.ftag[f] >= 0);
    if (fabs(v.fa[3 * f]) > amax) amax = fabs(v.fa[3 * f]);
  }
  TEST_ASSERT_NEAR(vol, encl, 1e-13, 0);
  /* the dual graph: sorted, no self, symmetric, a row per interior face */
  for (pds_int c = 0; c < v.nc; c++) {
    pds_int nint = 0;

    for (pds_size k = v.cfp[c]; k < v.cfp[c + 1]; k++) nint += v.fcell[2 * v.cf[k] + 1] >= 0;
    TEST_ASSERT((pds_int)(v.dp[c + 1] - v.dp[c]) == nint);
    for (pds_size k = v.dp[c]; k < v.dp[c + 1]; k++) {
      pds_int j = v.adj[k], found = 0;

      TEST_ASSERT(j >= 0 && j < v.nc && j != c && (k == v.dp[c] || v.adj[k - 1] < j));
      for (pds_size q = v.dp[j]; q < v.dp[j + 1]; q++) found += v.adj[q] == c;
      TEST_ASSERT(found == 1);
    }
  }
  return vol;
}

/* ---- single cells against closed forms ---------------------------------------------------------------------------- */

static void one_cell(pds_ctx ctx, int type, const double *xyz, double V, const double *centre) {
  pds_int    cn[8];
  pds_mesh3d m;
  view       v;
  unsigned char t = (unsigned char)type;

  for (int k = 0; k < type; k++) cn[k] = k;
  TEST_CALL(pds_mesh3d_create(ctx, type, xyz, 1, &t, cn, NULL, 0, NULL, NULL, NULL, &m));
  v = get(m);
  TEST_ASSERT_NEAR(v.vol[0], V, 1e-14, 0);
  for (int d = 0; d < 3; d++) TEST_ASSERT_NEAR(v.cc[d], centre[d], 1e-14, 1e-15);
  for (pds_int f = 0; f < v.nf; f++) { /* planar faces: the centre is the polygon's centroid, the vector outward */
    const pds_int *fn = v.fn + v.fp[f];
    double         c[3] = {0, 0, 0};

    TEST_ASSERT(v.ftag[f] == 0 && v.fcell[2 * f] == 0 && v.fcell[2 * f + 1] == -1);
    if (v.ft[f] == 3) {
      for (int k = 0; k < 3; k++)
        for (int d = 0; d < 3; d++) c[d] += xyz[3 * fn[k] + d] / 3;
      for (int d = 0; d < 3; d++) TEST_ASSERT_NEAR(v.fc[3 * f + d], c[d], 1e-14, 1e-15);
    }
  }
  check_mesh(m, "one cell");
  TEST_CALL(pds_mesh3d_destroy(&m));
}

static void test_cells(pds_ctx ctx) {
  static const double cube[24] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1};
  static const double tet[12]  = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
  static const double prism[18] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 2, 1, 0, 2, 0, 1, 2};
  static const double pyr[15]  = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0.2, 0.3, 1.5};
  const double        c_cube[3] = {0.5, 0.5, 0.5}, c_tet[3] = {0.25, 0.25, 0.25}, c_prism[3] = {1. / 3, 1. / 3, 1};
  const double        c_pyr[3] = {(1.5 + 0.2) / 4, (1.5 + 0.3) / 4, 1.5 / 4}; /* 3/4 base centroid + 1/4 apex */

  one_cell(ctx, PDS_CELL_HEX, cube, 1, c_cube);
  one_cell(ctx, PDS_CELL_TET, tet, 1. / 6, c_tet);
  one_cell(ctx, PDS_CELL_PRISM, prism, 1, c_prism);
  one_cell(ctx, PDS_CELL_PYRAMID, pyr, 0.5, c_pyr);
  { /* the unit cube's faces: unit normals at the face centres */
    pds_int       cn[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    unsigned char t = PDS_CELL_HEX;
    pds_mesh3d    m;
    view          v;

    TEST_CALL(pds_mesh3d_create(ctx, 8, cube, 1, &t, cn, NULL, 0, NULL, NULL, NULL, &m));
    v = get(m);
    TEST_ASSERT(v.nf == 6);
    for (pds_int f = 0; f < 6; f++) {
      int axis = -1;

      for (int d = 0; d < 3; d++)
        if (fabs(v.fa[3 * f + d]) == 1) axis = d;
      TEST_ASSERT(axis >= 0 && fabs(dot(v.fa + 3 * f, v.fa + 3 * f) - 1) == 0);
      for (int d = 0; d < 3; d++)
        TEST_ASSERT(v.fc[3 * f + d] == (d == axis ? (v.fa[3 * f + d] > 0 ? 1 : 0) : 0.5));
    }
    TEST_CALL(pds_mesh3d_destroy(&m));
  }
}

/* ---- generated and perturbed boxes, face tags ---------------------------------------------------------------------- */

static void test_boxes(pds_ctx ctx) {
  const pds_int n[3] = {4, 3, 5};
  const double  lo[3] = {-1, 0, 0.5}, hi[3] = {1, 2, 3};
  pds_mesh3d    m, p;
  view          v;

  TEST_CALL(pds_mesh3d_generate_box(ctx, n, lo, hi, &m));
  TEST_ASSERT_NEAR(check_mesh(m, "box"), 2 * 2 * 2.5, 1e-13, 0);
  v = get(m);
  for (pds_int f = 0; f < v.nf; f++) { /* tag 1..6: x = lo, x = hi, y = lo, ... with the outward axis vector */
    if (v.fcell[2 * f + 1] >= 0) {
      TEST_ASSERT(v.ftag[f] == -1);
      continue;
    }
    int tag = 0;

    for (int d = 0; d < 3; d++) {
      if (fabs(v.fc[3 * f + d] - lo[d]) < 1e-12) tag = 2 * d + 1;
      if (fabs(v.fc[3 * f + d] - hi[d]) < 1e-12) tag = 2 * d + 2;
    }
    TEST_ASSERT(tag > 0 && v.ftag[f] == tag && v.fa[3 * f + (tag - 1) / 2] * (tag % 2 ? -1 : 1) > 0);
  }

  { /* interior nodes moved by up to 0.15 h in each direction: non-planar quadrangles, the box's volume */
    const pds_int q[3] = {6, 5, 4};
    double       *xyz, h[3], nonplanar = 0;

    TEST_CALL(pds_mesh3d_destroy(&m));
    TEST_CALL(pds_mesh3d_generate_box(ctx, q, lo, hi, &m));
    v = get(m);
    xyz = malloc((size_t)3 * v.nn * sizeof *xyz);
    memcpy(xyz, v.xyz, (size_t)3 * v.nn * sizeof *xyz);
    for (int d = 0; d < 3; d++) h[d] = (hi[d] - lo[d]) / q[d];
    for (pds_int i = 0; i < v.nn; i++) {
      int inside = 1;

      for (int d = 0; d < 3; d++) inside &= xyz[3 * i + d] > lo[d] + 1e-9 && xyz[3 * i + d] < hi[d] - 1e-9;
      if (inside)
        for (int d = 0; d < 3; d++) xyz[3 * i + d] += 0.3 * h[d] * (rnd() - 0.5);
    }
    TEST_CALL(pds_mesh3d_create(ctx, v.nn, xyz, v.nc, v.ct, v.cn, v.ctag, v.nb, v.bt, v.bn, v.btag, &p));
    free(xyz);
    TEST_ASSERT_NEAR(check_mesh(p, "perturbed box"), 2 * 2 * 2.5, 1e-13, 0);
    v = get(p);
    for (pds_int f = 0; f < v.nf; f++) { /* the largest distance of a vertex from its face's plane, over h */
      const pds_int *fn = v.fn + v.fp[f];
      double         a[3], b[3], e[3], nrm[3];

      for (int d = 0; d < 3; d++)
        a[d] = v.xyz[3 * fn[1] + d] - v.xyz[3 * fn[0] + d], b[d] = v.xyz[3 * fn[3] + d] - v.xyz[3 * fn[0] + d],
        e[d] = v.xyz[3 * fn[2] + d] - v.xyz[3 * fn[0] + d];
      nrm[0] = a[1] * b[2] - a[2] * b[1], nrm[1] = a[2] * b[0] - a[0] * b[2], nrm[2] = a[0] * b[1] - a[1] * b[0];
      if (fabs(dot(nrm, e)) / sqrt(dot(nrm, nrm)) / h[0] > nonplanar) nonplanar = fabs(dot(nrm, e)) / sqrt(dot(nrm, nrm)) / h[0];
    }
    TEST_ASSERT(nonplanar > 0.05);
    for (pds_int f = 0; f < v.nf; f++) TEST_ASSERT(v.ftag[f] == (v.fcell[2 * f + 1] >= 0 ? -1 : get(m).ftag[f]));
    TEST_CALL(pds_mesh3d_destroy(&p));
  }
  TEST_CALL(pds_mesh3d_destroy(&m));
}

/* ---- the shared meshes -------------------------------------------------------------------------------------------- */

static pds_mesh3d read_shared(pds_ctx ctx, const char *name) {
  char       buf[512], rel[128];
  pds_mesh3d m;

  snprintf(rel, sizeof rel, "meshes/%s", name);
  if (!test_shared_path(rel, buf, sizeof buf)) TEST_FAIL("the shared mesh %s is missing", rel);
  TEST_CALL(pds_mesh3d_read_gmsh(ctx, buf, &m));
  return m;
}

static void test_shared(pds_ctx ctx) {
  const double pi = 3.14159265358979323846;
  pds_mesh3d   m;
  double       vol;

  m = read_shared(ctx, "box_tet.msh");
  TEST_ASSERT_NEAR(check_mesh(m, "box_tet.msh"), 8, 1e-13, 0);
  for (pds_int f = 0, nf = get(m).nf; f < nf; f++) TEST_ASSERT(get(m).ftag[f] == (get(m).fcell[2 * f + 1] < 0 ? 1 : -1));
  TEST_CALL(pds_mesh3d_destroy(&m));
  m   = read_shared(ctx, "sphere_tet.msh");
  vol = check_mesh(m, "sphere_tet.msh");
  TEST_ASSERT(vol < 4 * pi * 27 / 3 && vol > 0.99 * 4 * pi * 27 / 3);
  TEST_CALL(pds_mesh3d_destroy(&m));
  m = read_shared(ctx, "hybrid_3d_cube.msh");
  check_mesh(m, "hybrid_3d_cube.msh");
  TEST_CALL(pds_mesh3d_destroy(&m));
}

/* ---- renumbering -------------------------------------------------------------------------------------------------- */

/* The dual graph's bandwidth max |i - j| and the mean |i - j| over the interior faces. */
static void locality(pds_mesh3d m, pds_int *bw, double *mean) {
  view   v = get(m);
  double s = 0;
  long   n = 0;

  *bw = 0;
  for (pds_int c = 0; c < v.nc; c++)
    for (pds_size k = v.dp[c]; k < v.dp[c + 1]; k++)
      if (abs(v.adj[k] - c) > *bw) *bw = abs(v.adj[k] - c);
  for (pds_int f = 0; f < v.nf; f++)
    if (v.fcell[2 * f + 1] >= 0) s += abs(v.fcell[2 * f + 1] - v.fcell[2 * f]), n++;
  *mean = n ? s / n : 0;
}

static int cmp_real(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;

  return x < y ? -1 : x > y;
}

static int cmp_real3(const void *a, const void *b) {
  const double *x = a, *y = b;

  for (int d = 0; d < 3; d++)
    if (x[d] != y[d]) return x[d] < y[d] ? -1 : 1;
  return 0;
}

static int cmp_int(const void *a, const void *b) {
  pds_int x = *(const pds_int *)a, y = *(const pds_int *)b;

  return x < y ? -1 : x > y;
}

/* Sorted copies of a and b (n items of size sz) are equal bitwise. */
static void same_sorted(const void *a, const void *b, size_t n, size_t sz, int (*cmp)(const void *, const void *),
                        const char *what) {
  void *x = malloc(n * sz + 1), *y = malloc(n * sz + 1);

  memcpy(x, a, n * sz), memcpy(y, b, n * sz);
  qsort(x, n, sz, cmp), qsort(y, n, sz, cmp);
  if (memcmp(x, y, n * sz)) TEST_FAIL("%s: not a permutation", what);
  free(x), free(y);
}

/* r is m renumbered: the same cells, faces and geometry (area vectors up to their sign), faces numbered as the
   cells first meet them. */
static void check_permutation(pds_mesh3d m, pds_mesh3d r, const char *what) {
  view    a = get(m), b = get(r);
  double *na = malloc((size_t)a.nf * sizeof *na), *nb = malloc((size_t)b.nf * sizeof *nb);

  TEST_ASSERT(a.nc == b.nc && a.nf == b.nf && a.nbound == b.nbound && a.nn == b.nn && a.nb == b.nb);
  TEST_ASSERT(!memcmp(a.xyz, b.xyz, (size_t)3 * a.nn * sizeof *a.xyz));
  TEST_ASSERT(!memcmp(a.btag, b.btag, (size_t)a.nb * sizeof *a.btag));
  same_sorted(a.ctag, b.ctag, (size_t)a.nc, sizeof *a.ctag, cmp_int, "cell tags");
  same_sorted(a.ftag, b.ftag, (size_t)a.nf, sizeof *a.ftag, cmp_int, "face tags");
  same_sorted(a.vol, b.vol, (size_t)a.nc, sizeof *a.vol, cmp_real, "cell volumes");
  same_sorted(a.cc, b.cc, (size_t)a.nc, 3 * sizeof *a.cc, cmp_real3, "cell centres");
  same_sorted(a.fc, b.fc, (size_t)a.nf, 3 * sizeof *a.fc, cmp_real3, "face centres");
  for (pds_int f = 0; f < a.nf; f++) na[f] = sqrt(dot(a.fa + 3 * f, a.fa + 3 * f));
  for (pds_int f = 0; f < b.nf; f++) nb[f] = sqrt(dot(b.fa + 3 * f, b.fa + 3 * f));
  same_sorted(na, nb, (size_t)a.nf, sizeof *na, cmp_real, "face areas");
  free(na), free(nb);
  for (pds_int f = 1; f < b.nf; f++) TEST_ASSERT(b.fcell[2 * f - 2] <= b.fcell[2 * f]);
  for (pds_int f = 0; f < b.nf; f++) TEST_ASSERT(b.fcell[2 * f + 1] < 0 || b.fcell[2 * f] < b.fcell[2 * f + 1]);
  TEST_ASSERT_NEAR(check_mesh(r, what), check_mesh(m, what), 1e-13, 0);
}

/* A box of n cells with its cells in a random order. */
static pds_mesh3d shuffled_box(pds_ctx ctx, const pds_int n[3], const double lo[3], const double hi[3]) {
  pds_mesh3d     b, m;
  view           v;
  pds_int       *perm, *cn, *tag;
  unsigned char *ct;

  TEST_CALL(pds_mesh3d_generate_box(ctx, n, lo, hi, &b));
  v    = get(b);
  perm = malloc((size_t)v.nc * sizeof *perm), ct = malloc((size_t)v.nc), tag = malloc((size_t)v.nc * sizeof *tag);
  cn   = malloc((size_t)8 * v.nc * sizeof *cn);
  for (pds_int c = 0; c < v.nc; c++) perm[c] = c;
  for (pds_int c = v.nc - 1; c > 0; c--) {
    pds_int j = (pds_int)(rnd() * (c + 1)), t = perm[c];

    perm[c] = perm[j], perm[j] = t;
  }
  for (pds_int c = 0; c < v.nc; c++) {
    ct[c] = v.ct[perm[c]], tag[c] = v.ctag[perm[c]];
    memcpy(cn + 8 * c, v.cn + v.cp[perm[c]], 8 * sizeof *cn);
  }
  TEST_CALL(pds_mesh3d_create(ctx, v.nn, v.xyz, v.nc, ct, cn, tag, v.nb, v.bt, v.bn, v.btag, &m));
  free(perm), free(ct), free(tag), free(cn);
  TEST_CALL(pds_mesh3d_destroy(&b));
  return m;
}

static pds_mesh3d copy_mesh(pds_ctx ctx, pds_mesh3d m) {
  view       v = get(m);
  pds_mesh3d c;

  TEST_CALL(pds_mesh3d_create(ctx, v.nn, v.xyz, v.nc, v.ct, v.cn, v.ctag, v.nb, v.bt, v.bn, v.btag, &c));
  return c;
}

/* Renumber copies of m by rcm and hilbert; check them and print the locality before and after. */
static void reorder_report(pds_ctx ctx, pds_mesh3d m, const char *name, double *mean_after) {
  static const char *how[3] = {"none", "rcm", "hilbert"};
  pds_int            bw0;
  double             mean0;

  locality(m, &bw0, &mean0);
  for (int k = 0; k < 3; k++) {
    pds_mesh3d r = copy_mesh(ctx, m);
    pds_int    bw;
    double     mean;

    TEST_CALL(pds_mesh3d_reorder(r, how[k]));
    check_permutation(m, r, how[k]);
    locality(r, &bw, &mean);
    printf("t905 reorder %-22s %-8s cells %7d  bandwidth %7d -> %7d  mean |i-j| %10.1f -> %8.1f\n", name, how[k],
           (int)get(r).nc, (int)bw0, (int)bw, mean0, mean);
    if (mean_after) mean_after[k] = mean;
    if (k == 0) TEST_ASSERT(bw == bw0 && mean == mean0);
    TEST_CALL(pds_mesh3d_destroy(&r));
  }
}

static void test_reorder(pds_ctx ctx) {
  const pds_int n[3] = {16, 12, 10}, n8[3] = {8, 8, 8};
  const double  lo[3] = {0, 0, 0}, hi[3] = {1.6, 1.2, 1.0}, one[3] = {1, 1, 1};
  pds_mesh3d    m;
  double        mean[3];
  pds_int       bw;

  m = shuffled_box(ctx, n, lo, hi);
  reorder_report(ctx, m, "shuffled box 16x12x10", mean);
  {
    double mean0;

    locality(m, &bw, &mean0);
    TEST_ASSERT(mean[1] < mean0 / 5 && mean[2] < mean0 / 5);
  }
  TEST_CALL(pds_mesh3d_destroy(&m));
  m = read_shared(ctx, "sphere_tet.msh");
  reorder_report(ctx, m, "sphere_tet.msh", NULL);
  TEST_CALL(pds_mesh3d_destroy(&m));
  m = read_shared(ctx, "hybrid_3d_cube.msh");
  reorder_report(ctx, m, "hybrid_3d_cube.msh", NULL);
  TEST_CALL(pds_mesh3d_destroy(&m));

  /* on an 8^3 grid of the unit cube the Hilbert curve goes from each cell to a face neighbour; twice is the same */
  m = shuffled_box(ctx, n8, lo, one);
  TEST_CALL(pds_mesh3d_reorder(m, "hilbert"));
  {
    view v = get(m);

    for (pds_int c = 0; c + 1 < v.nc; c++) {
      int adjacent = 0;

      for (pds_size k = v.dp[c]; k < v.dp[c + 1]; k++) adjacent |= v.adj[k] == c + 1;
      if (!adjacent) TEST_FAIL("hilbert: cells %d and %d share no face", (int)c, (int)c + 1);
    }
    {
      pds_mesh3d r = copy_mesh(ctx, m);
      view       w;

      TEST_CALL(pds_mesh3d_reorder(r, "hilbert"));
      w = get(r);
      TEST_ASSERT(!memcmp(v.cn, w.cn, (size_t)v.cp[v.nc] * sizeof *v.cn));
      TEST_CALL(pds_mesh3d_destroy(&r));
    }
  }
  TEST_CALL(pds_mesh3d_destroy(&m));
}

/* ---- errors and allocation failures -------------------------------------------------------------------------------- */

static void test_errors(pds_ctx ctx) {
  const pds_int n[3] = {3, 2, 2};
  const double  lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
  pds_mesh3d    m;
  view          v0;

  TEST_CALL(pds_mesh3d_generate_box(ctx, n, lo, hi, &m));
  TEST_ASSERT_ERR(ctx, pds_mesh3d_reorder(m, "metis"), PDS_ERR_ARG, "unknown cell ordering 'metis'; known: rcm, "
                  "hilbert, none");
  TEST_ASSERT_ERR(ctx, pds_mesh3d_reorder(m, NULL), PDS_ERR_ARG, "ordering is NULL");
  TEST_ASSERT_ERR(ctx, pds_mesh3d_face_tags(m, NULL), PDS_ERR_ARG, "face_tag is NULL");
  TEST_ASSERT(pds_mesh3d_reorder(NULL, "rcm") == PDS_ERR_ARG);
  TEST_ASSERT(pds_mesh3d_get_geometry(NULL, NULL, NULL, NULL, NULL) == PDS_ERR_ARG);
  TEST_ASSERT(pds_mesh3d_get_dual(NULL, NULL, NULL) == PDS_ERR_ARG);
  TEST_ASSERT(pds_mesh3d_face_tags(NULL, NULL) == PDS_ERR_ARG);
  TEST_CALL(pds_mesh3d_get_geometry(m, NULL, NULL, NULL, NULL));
  TEST_CALL(pds_mesh3d_get_dual(m, NULL, NULL));

  /* allocation failures: an error and the mesh unchanged (then the call succeeds) */
  v0 = get(m);
  {
    pds_int *cn0 = malloc((size_t)v0.cp[v0.nc] * sizeof *cn0);

    memcpy(cn0, v0.cn, (size_t)v0.cp[v0.nc] * sizeof *cn0);
    for (int op = 0; op < 5; op++) {
      long k;
      int  ierr = PDS_ERR_MEM;

      for (k = 0; k < 1000 && ierr == PDS_ERR_MEM; k++) {
        pds_mesh3d     c = copy_mesh(ctx, m);
        const pds_real *pr;
        const pds_size *ps;
        const pds_int  *pi;

        pds_ctx_set_alloc_fail(ctx, k);
        ierr = op == 0 ? pds_mesh3d_get_geometry(c, &pr, NULL, NULL, NULL) : op == 1 ? pds_mesh3d_get_dual(c, &ps, &pi)
             : op == 2 ? pds_mesh3d_face_tags(c, &pi) : pds_mesh3d_reorder(c, op == 3 ? "rcm" : "hilbert");
        pds_ctx_set_alloc_fail(ctx, -1);
        if (ierr == PDS_ERR_MEM) {
          if (!strstr(pds_ctx_get_error(ctx), "allocation")) TEST_FAIL("op %d, k = %ld: %s", op, k, pds_ctx_get_error(ctx));
          pds_ctx_clear_error(ctx);
          TEST_ASSERT(!memcmp(get(c).cn, cn0, (size_t)v0.cp[v0.nc] * sizeof *cn0));
        } else
          TEST_ASSERT(ierr == PDS_OK);
        TEST_CALL(pds_mesh3d_destroy(&c));
      }
      TEST_ASSERT(ierr == PDS_OK && k > 1);
    }
    free(cn0);
  }
  TEST_CALL(pds_mesh3d_destroy(&m));
}

int main(int argc, char **argv) {
  pds_ctx ctx = test_init(argc, argv);

  test_cells(ctx);
  test_boxes(ctx);
  test_shared(ctx);
  test_reorder(ctx);
  test_errors(ctx);
  test_finalize(&ctx);
  return 0;
}
