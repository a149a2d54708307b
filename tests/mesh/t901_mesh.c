/* tests/mesh/t901_mesh.c: the triangle mesh object and the generator: sizes within 5% of the target (the grids of
 * paper 004 up to 106,377 nodes), counter-clockwise triangles, Euler characteristic (1 for the square, 0 for the
 * hole), boundary edges and node markers, quality bounds, determinism; create_tri's checks (index range, repeated
 * nodes, zero area, duplicates, dangling nodes, boundary edges; clockwise triangles are flipped); RCM on a randomly
 * numbered mesh; the VTK writer (t901_vtu parses the file it writes here). */
#include "mesh_test.h"

/* Each boundary node lies on the side its marker names. */
static void check_sides(pds_mesh m, int hole) {
  mt_view v = mt_get(m);
  double  W = hole ? 2.0 : 1.0;

  for (pds_int i = 0; i < v.nn; i++) {
    double x = v.xy[2 * i], y = v.xy[2 * i + 1];

    switch (v.mark[i]) {
    case 0: TEST_ASSERT(x > 0 && x < W && y > 0 && y < 1); break;
    case 1: TEST_ASSERT(y == 0); break;
    case 2: TEST_ASSERT(x == W); break;
    case 3: TEST_ASSERT(y == 1); break;
    case 4: TEST_ASSERT(x == 0); break;
    case 5: TEST_ASSERT(hole && fabs(hypot(x - 0.5, y - 0.5) - 0.25) < 1e-14); break;
    default: TEST_FAIL("node %d has marker %d", i, v.mark[i]);
    }
    if (hole && !v.mark[i]) TEST_ASSERT(hypot(x - 0.5, y - 0.5) > 0.25);
  }
}

static void check_generated(pds_ctx ctx, const char *dom, pds_int target, uint64_t seed) {
  pds_mesh m, m2;
  mt_view  v;
  double   amin, qmax, nnz_row;
  long     ne;
  int      hole = !strcmp(dom, "hole"), corner_tris = 0;

  TEST_CALL(pds_mesh_generate(ctx, dom, target, seed, &m));
  v = mt_get(m);
  if (fabs((double)v.nn - target) > 0.05 * target) TEST_FAIL("%s %d: %d nodes", dom, target, v.nn);
  ne = mt_check_topology(m, hole ? 0 : 1);
  check_sides(m, hole);
  TEST_CALL(pds_mesh_quality(m, &amin, &qmax));
  if (amin < 25 || qmax > 3) TEST_FAIL("%s %d: min angle %.2f, max aspect %.3f", dom, target, amin, qmax);
  nnz_row = (v.nn + 2.0 * ne) / v.nn; /* the P1 matrix: paper 004 has 6.27 .. 6.99 */
  if (nnz_row < 6.0 || nnz_row > 7.0 || (target > 40000 && nnz_row < 6.9))
    TEST_FAIL("%s %d: %.3f nonzeros per row", dom, target, nnz_row);
  for (pds_int t = 0; t < v.nt; t++) { /* corners split: no triangle has only boundary nodes */
    const pds_int *c = v.tri + 3 * t;

    corner_tris += v.mark[c[0]] && v.mark[c[1]] && v.mark[c[2]];
  }
  if (corner_tris) TEST_FAIL("%s %d: %d triangles with three boundary nodes", dom, target, corner_tris);
  /* the same seed gives the same mesh; another seed another one */
  TEST_CALL(pds_mesh_generate(ctx, dom, target, seed, &m2));
  mt_assert_same(m, m2, "same seed");
  TEST_CALL(pds_mesh_destroy(&m2));
  TEST_CALL(pds_mesh_generate(ctx, dom, target, seed + 1, &m2));
  {
    mt_view w = mt_get(m2);

    TEST_ASSERT(w.nn != v.nn || memcmp(w.xy, v.xy, sizeof *v.xy * 2 * (size_t)v.nn));
  }
  TEST_CALL(pds_mesh_destroy(&m2));
  TEST_CALL(pds_mesh_destroy(&m));
  TEST_ASSERT(m == NULL);
}

static void test_generator(pds_ctx ctx) {
  static const pds_int sizes[] = {107, 452, 46068};
  pds_mesh             m = NULL;

  for (int k = 0; k < 3; k++) {
    check_generated(ctx, "square", sizes[k], 42);
    check_generated(ctx, "hole", sizes[k], 42);
  }
  check_generated(ctx, "square", 106377, 7); /* grid 4 of the paper, once */
  check_generated(ctx, "square", 1000, 0);
  TEST_ASSERT_ERR(ctx, pds_mesh_generate(ctx, "disc", 1000, 1, &m), PDS_ERR_ARG, "unknown domain 'disc'");
  TEST_ASSERT_ERR(ctx, pds_mesh_generate(ctx, NULL, 1000, 1, &m), PDS_ERR_ARG, "domain is NULL");
  TEST_ASSERT_ERR(ctx, pds_mesh_generate(ctx, "square", 5, 1, &m), PDS_ERR_ARG, "out of range");
  TEST_ASSERT_ERR(ctx, pds_mesh_generate(ctx, "hole", 12, 1, &m), PDS_ERR_ARG, "within 5%");
  TEST_ASSERT_ERR(ctx, pds_mesh_generate(ctx, "square", 100, 1, NULL), PDS_ERR_ARG, "NULL");
  TEST_ASSERT(m == NULL);
}

/* ---- create_tri ------------------------------------------------------------------------------------------- */

static void test_create(pds_ctx ctx) {
  /* unit square: 4 corners and the centre; triangle 1 given clockwise */
  const pds_real xy[]   = {0, 0, 1, 0, 1, 1, 0, 1, 0.5, 0.5};
  const pds_int  tri[]  = {0, 1, 4, 1, 4, 2, 2, 3, 4, 3, 0, 4};
  const pds_int  be[]   = {0, 1, 1, 2, 2, 3, 3, 0};
  const pds_int  tags[] = {1, 2, 3, 4};
  pds_mesh       m      = NULL;
  pds_int        bad[12], bbe[8], btags[4];
  pds_real       bxy[12];
  double         amin, qmax;
  mt_view        v;

  TEST_CALL(pds_mesh_create_tri(ctx, 5, xy, 4, tri, 4, be, tags, &m));
  v = mt_get(m);
  TEST_ASSERT(v.nn == 5 && v.nt == 4 && v.nb == 4);
  TEST_ASSERT(v.tri[3] == 1 && v.tri[4] == 2 && v.tri[5] == 4); /* flipped to counter-clockwise */
  mt_check_topology(m, 1);
  TEST_ASSERT(v.mark[0] == 1 && v.mark[1] == 1 && v.mark[2] == 2 && v.mark[3] == 3 && v.mark[4] == 0);
  TEST_CALL(pds_mesh_quality(m, &amin, &qmax));
  TEST_ASSERT_NEAR(amin, 45, 1e-12, 0);
  TEST_ASSERT_NEAR(qmax, sqrt(3.0), 1e-12, 0); /* right isosceles: hypotenuse 1 over altitude 1/2, times sqrt(3)/2 */
  TEST_CALL(pds_mesh_destroy(&m));
  TEST_CALL(pds_mesh_destroy(&m)); /* NULL is fine */
  TEST_CALL(pds_mesh_destroy(NULL));

  /* an equilateral triangle: 60 degrees, aspect 1 */
  {
    const pds_real exy[] = {0, 0, 1, 0, 0.5, sqrt(3.0) / 2};
    const pds_int  et[]  = {0, 1, 2};

    TEST_CALL(pds_mesh_create_tri(ctx, 3, exy, 1, et, 0, NULL, NULL, &m));
    TEST_CALL(pds_mesh_quality(m, &amin, &qmax));
    TEST_ASSERT_NEAR(amin, 60, 1e-12, 0);
    TEST_ASSERT_NEAR(qmax, 1, 1e-12, 0);
    TEST_CALL(pds_mesh_destroy(&m));
  }

#define BAD(code, msg, ...)                                          \
  do {                                                                \
    memcpy(bad, tri, sizeof bad), memcpy(bxy, xy, 10 * sizeof *xy);   \
    memcpy(bbe, be, sizeof bbe), memcpy(btags, tags, sizeof btags);   \
    __VA_ARGS__;                                                      \
    TEST_ASSERT_ERR(ctx, pds_mesh_create_tri(ctx, 5, bxy, 4, bad, 4, bbe, btags, &m), code, msg); \
    TEST_ASSERT(m == NULL);                                           \
  } while (0)
  BAD(PDS_ERR_ARG, "triangle 1: node 5 is out of range [0, 5)", bad[4] = 5);
  BAD(PDS_ERR_ARG, "out of range", bad[4] = -1);
  BAD(PDS_ERR_ARG, "triangle 2 has a repeated node", bad[8] = 2);
  BAD(PDS_ERR_ARG, "degenerate triangle", bxy[8] = 0.5, bxy[9] = 0.0); /* centre on the bottom edge: zero area */
  BAD(PDS_ERR_ARG, "duplicate triangle", bad[9] = 4, bad[10] = 1, bad[11] = 0); /* triangle 3 = triangle 0 */
  BAD(PDS_ERR_ARG, "not finite", bxy[9] = NAN);
  BAD(PDS_ERR_ARG, "boundary edge 3 (0, 2) is not an edge of any triangle", bbe[6] = 0, bbe[7] = 2);
  BAD(PDS_ERR_ARG, "joins node 3 to itself", bbe[7] = 3);
  BAD(PDS_ERR_ARG, "tags must be > 0", btags[2] = 0);
  BAD(PDS_ERR_ARG, "boundary edge 0 (7, 1): node out of range", bbe[0] = 7);
#undef BAD
  {
    const pds_real dxy[] = {0, 0, 1, 0, 1, 1, 0, 1, 0.5, 0.5, 3, 3}; /* node 5 is in no triangle */
    const pds_int  t2[]  = {0, 1, 2, 0, 2, 3};

    TEST_ASSERT_ERR(ctx, pds_mesh_create_tri(ctx, 6, dxy, 2, t2, 0, NULL, NULL, &m), PDS_ERR_ARG,
                    "node 4 is used by no triangle (a dangling node)");
  }
  TEST_ASSERT_ERR(ctx, pds_mesh_create_tri(ctx, 2, xy, 4, tri, 0, NULL, NULL, &m), PDS_ERR_ARG, "nnodes = 2");
  TEST_ASSERT_ERR(ctx, pds_mesh_create_tri(ctx, 5, xy, 0, tri, 0, NULL, NULL, &m), PDS_ERR_ARG, "ntri = 0");
  TEST_ASSERT_ERR(ctx, pds_mesh_create_tri(ctx, 5, NULL, 4, tri, 0, NULL, NULL, &m), PDS_ERR_ARG, "xy is NULL");
  TEST_ASSERT_ERR(ctx, pds_mesh_create_tri(ctx, 5, xy, 4, tri, 4, NULL, tags, &m), PDS_ERR_ARG, "bedge is NULL");
  TEST_ASSERT_ERR(NULL, pds_mesh_get_sizes(NULL, NULL, NULL, NULL), PDS_ERR_ARG, "");
  TEST_ASSERT_ERR(NULL, pds_mesh_quality(NULL, &amin, &qmax), PDS_ERR_ARG, "");
}

/* ---- RCM -------------------------------------------------------------------------------------------------- */

static void test_rcm(pds_ctx ctx) {
  pds_mesh  g, m, m2;
  mt_view   v;
  pds_int  *perm, *tri, *be;
  pds_real *xy;
  uint64_t  s = 12345;
  long      bw0, bw1, bwg;

  TEST_CALL(pds_mesh_generate(ctx, "hole", 46068, 3, &g));
  v    = mt_get(g);
  perm = malloc(sizeof *perm * (size_t)v.nn), xy = malloc(sizeof *xy * 2 * (size_t)v.nn);
  tri  = malloc(sizeof *tri * 3 * (size_t)v.nt), be = malloc(sizeof *be * 2 * (size_t)v.nb);
  TEST_ASSERT(perm && xy && tri && be);
  for (pds_int i = 0; i < v.nn; i++) perm[i] = i;
  for (pds_int i = v.nn - 1; i > 0; i--) { /* random numbering (Fisher-Yates, xorshift) */
    pds_int j, t;

    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    j = (pds_int)(s % (uint64_t)(i + 1)), t = perm[i], perm[i] = perm[j], perm[j] = t;
  }
  for (pds_int i = 0; i < v.nn; i++) xy[2 * perm[i]] = v.xy[2 * i], xy[2 * perm[i] + 1] = v.xy[2 * i + 1];
  for (pds_int k = 0; k < 3 * v.nt; k++) tri[k] = perm[v.tri[k]];
  for (pds_int k = 0; k < 2 * v.nb; k++) be[k] = perm[v.bedge[k]];
  TEST_CALL(pds_mesh_create_tri(ctx, v.nn, xy, v.nt, tri, v.nb, be, v.btag, &m));
  TEST_CALL(pds_mesh_create_tri(ctx, v.nn, xy, v.nt, tri, v.nb, be, v.btag, &m2));
  bw0 = mt_bandwidth(m);
  TEST_CALL(pds_mesh_reorder_rcm(m));
  bw1 = mt_bandwidth(m);
  if (!(bw0 > v.nn / 2 && bw1 < 400)) TEST_FAIL("RCM bandwidth %ld -> %ld (%d nodes)", bw0, bw1, v.nn);
  mt_check_topology(m, 0);
  check_sides(m, 1);
  TEST_CALL(pds_mesh_reorder_rcm(m2)); /* deterministic */
  mt_assert_same(m, m2, "rcm twice");
  {
    mt_view w = mt_get(m);
    double  a0 = 0, a1 = 0;

    for (pds_int t = 0; t < v.nt; t++) { /* the same triangles: same areas, in the same order */
      const pds_int *c = v.tri + 3 * t, *d = w.tri + 3 * t;

      a0 = (v.xy[2 * c[1]] - v.xy[2 * c[0]]) * (v.xy[2 * c[2] + 1] - v.xy[2 * c[0] + 1]) -
           (v.xy[2 * c[1] + 1] - v.xy[2 * c[0] + 1]) * (v.xy[2 * c[2]] - v.xy[2 * c[0]]);
      a1 = (w.xy[2 * d[1]] - w.xy[2 * d[0]]) * (w.xy[2 * d[2] + 1] - w.xy[2 * d[0] + 1]) -
           (w.xy[2 * d[1] + 1] - w.xy[2 * d[0] + 1]) * (w.xy[2 * d[2]] - w.xy[2 * d[0]]);
      if (a0 != a1) TEST_FAIL("triangle %d changed under RCM", t);
    }
  }
  bwg = mt_bandwidth(g); /* the generator's Hilbert order: local, but a wide band; RCM narrows it */
  TEST_CALL(pds_mesh_reorder_rcm(g));
  if (!(mt_bandwidth(g) < bwg / 10 && mt_bandwidth(g) < 400))
    TEST_FAIL("RCM of the generated mesh: bandwidth %ld -> %ld", bwg, mt_bandwidth(g));
  free(perm), free(xy), free(tri), free(be);
  TEST_CALL(pds_mesh_destroy(&m));
  TEST_CALL(pds_mesh_destroy(&m2));
  TEST_CALL(pds_mesh_destroy(&g));
}

/* ---- VTK ---------------------------------------------------------------------------------------------------- */

static void test_vtk(pds_ctx ctx) {
  pds_mesh    m;
  mt_view     v;
  pds_real   *u, *w;
  const char *names[2] = {"u", "x&<y"};
  FILE       *f;

  TEST_CALL(pds_mesh_generate(ctx, "hole", 452, 5, &m));
  v = mt_get(m);
  u = malloc(sizeof *u * (size_t)v.nn), w = malloc(sizeof *w * (size_t)v.nn);
  for (pds_int i = 0; i < v.nn; i++) u[i] = sin(v.xy[2 * i]) * v.xy[2 * i + 1], w[i] = v.mark[i];
  {
    const pds_real *vals[2] = {u, w};

    TEST_CALL(pds_mesh_write_vtk(m, PDS_MESH_OUT "/t901.vtu", 2, names, vals));
    TEST_ASSERT_ERR(ctx, pds_mesh_write_vtk(m, PDS_MESH_OUT "/no/such/dir/t.vtu", 2, names, vals), PDS_ERR_IO,
                    "cannot open");
    TEST_ASSERT_ERR(ctx, pds_mesh_write_vtk(m, PDS_MESH_OUT "/t.vtu", 2, NULL, vals), PDS_ERR_ARG, "names is NULL");
    TEST_ASSERT_ERR(ctx, pds_mesh_write_vtk(m, PDS_MESH_OUT "/t.vtu", -1, names, vals), PDS_ERR_ARG, "negative");
    TEST_CALL(pds_mesh_write_vtk(m, PDS_MESH_OUT "/t901_nofield.vtu", 0, NULL, NULL));
  }
  f = fopen(PDS_MESH_OUT "/t901.vtu.expect", "w"); /* what tests/mesh/check_vtu.py must find */
  TEST_ASSERT(f);
  fprintf(f, "%d %d u x%%26%%3Cy\n", v.nn, v.nt);
  TEST_ASSERT(!fclose(f));
  free(u), free(w);
  TEST_CALL(pds_mesh_destroy(&m));
}

int main(int argc, char **argv) {
  pds_ctx ctx = test_init(argc, argv);

  test_create(ctx);
  test_generator(ctx);
  test_rcm(ctx);
  test_vtk(ctx);
  test_finalize(&ctx);
  return 0;
}
