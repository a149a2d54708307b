/* tests/mesh/t906_mesh3d_sphere.c: pds_mesh3d_generate_sphere (issue 14: a sphere in a box as tetrahedra, pyramids,
 * prisms and hexahedra) at targets 2000, 20000, 200000 and 680000 (paper 001's 679,339 cells): the count within 10%,
 * every type at least 5% of the cells, boundary tags 1 (sphere) and 2 (box), sphere nodes at the radius and box nodes
 * on the box, boundary faces = faces of one cell (pds_mesh3d_create already rejects faces of three cells), cells finer
 * at the sphere than at the box, the total volume against 8 h^3 - 4/3 pi r^3 (the test's own polyhedral volume: each
 * cell cut into tetrahedra from its vertex average, a quadrangle into 4 triangles around its own; the flat faces on the
 * sphere make it slightly larger, less so as cells shrink), the Gmsh round trip bitwise, determinism, errors and
 * allocation failures. Prints a table of the cells by type and the generation time (ctest -V). */
#include <stdint.h>
#include <time.h>

#include "mesh3d_test.h"

static double now(void) {
  struct timespec t;

  timespec_get(&t, TIME_UTC);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The faces of each type, outward (the test's own tables for Gmsh's vertex order). */
typedef struct {
  int nf, nv[6], v[6][4];
} cell_faces;

static const cell_faces *faces_of(int type) {
  static const cell_faces tet = {4, {3, 3, 3, 3}, {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}}};
  static const cell_faces pyr = {5, {4, 3, 3, 3, 3}, {{0, 3, 2, 1}, {0, 1, 4}, {1, 2, 4}, {2, 3, 4}, {3, 0, 4}}};
  static const cell_faces pri = {5, {3, 3, 4, 4, 4}, {{0, 2, 1}, {3, 4, 5}, {0, 1, 4, 3}, {1, 2, 5, 4}, {2, 0, 3, 5}}};
  static const cell_faces hex = {6,
                                 {4, 4, 4, 4, 4, 4},
                                 {{0, 3, 2, 1}, {4, 5, 6, 7}, {0, 1, 5, 4}, {1, 2, 6, 5}, {2, 3, 7, 6}, {3, 0, 4, 7}}};

  return type == 4 ? &tet : type == 5 ? &pyr : type == 6 ? &pri : &hex;
}

static double tet_vol(const double *a, const double *b, const double *c, const double *d) {
  double u[3], v[3], w[3];

  for (int e = 0; e < 3; e++) u[e] = b[e] - a[e], v[e] = c[e] - a[e], w[e] = d[e] - a[e];
  return (u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0]) +
          u[2] * (v[0] * w[1] - v[1] * w[0])) / 6;
}

/* the polyhedral volume of cell c; *pos: 0 if one of its tetrahedra is not positive */
static double cell_volume(const view *v, pds_int c, int *pos) {
  const pds_int    *n = v->cn + v->cp[c];
  const cell_faces *F = faces_of(v->ct[c]);
  double            g[3] = {0, 0, 0}, vol = 0;

  for (int i = 0; i < v->ct[c]; i++)
    for (int e = 0; e < 3; e++) g[e] += v->xyz[3 * n[i] + e] / v->ct[c];
  for (int f = 0; f < F->nf; f++) {
    const double *p[4];
    double        mid[3] = {0, 0, 0}, t;

    for (int i = 0; i < F->nv[f]; i++) p[i] = v->xyz + 3 * n[F->v[f][i]];
    if (F->nv[f] == 3) {
      t = tet_vol(g, p[0], p[1], p[2]), vol += t, *pos &= t > 0;
      continue;
    }
    for (int i = 0; i < 4; i++)
      for (int e = 0; e < 3; e++) mid[e] += p[i][e] / 4;
    for (int i = 0; i < 4; i++) t = tet_vol(g, mid, p[i], p[(i + 1) % 4]), vol += t, *pos &= t > 0;
  }
  return vol;
}

/* Checks one mesh; returns the relative volume excess. */
static double check(pds_ctx ctx, pds_int target, double r, double h) {
  static const int   types[4] = {PDS_CELL_TET, PDS_CELL_PYRAMID, PDS_CELL_PRISM, PDS_CELL_HEX};
  pds_mesh3d         m;
  pds_int            cnt[4], nfaces, nbound, ntag[3] = {0, 0, 0};
  double             t0 = now(), t, vol = 0, exact = 8 * h * h * h - 4.0 / 3.0 * 3.14159265358979323846 * r * r * r;
  double             vin = 0, vout = 0, rerr = 0;
  long               nin = 0, nout = 0;
  int                pos = 1;
  view               v;

  TEST_CALL(pds_mesh3d_generate_sphere(ctx, target, r, h, &m));
  t = now() - t0;
  v = get(m);
  if (!(fabs((double)v.nc / target - 1) <= 0.1)) TEST_FAIL("target %d: %d cells", (int)target, (int)v.nc);
  for (int i = 0; i < 4; i++) {
    TEST_CALL(pds_mesh3d_count(m, types[i], &cnt[i]));
    if (!(cnt[i] >= 0.05 * v.nc))
      TEST_FAIL("target %d: %d cells of type %d of %d", (int)target, (int)cnt[i], types[i], (int)v.nc);
  }
  TEST_ASSERT(cnt[0] + cnt[1] + cnt[2] + cnt[3] == v.nc);
  /* conforming: the faces of one cell are exactly the boundary faces */
  TEST_CALL(pds_mesh3d_get_faces(m, &nfaces, &nbound, NULL, NULL, NULL, NULL, NULL, NULL));
  if (nbound != v.nb)
    TEST_FAIL("target %d: %d faces of one cell, %d boundary faces", (int)target, (int)nbound, (int)v.nb);
  for (pds_int k = 0; k < v.nb; k++) {
    const double *p = v.xyz + 3 * v.bn[v.bp[k]], *q = v.xyz + 3 * v.bn[v.bp[k] + 1], *o = v.xyz + 3 * v.bn[v.bp[k] + 2];
    double        a[3] = {q[0] - p[0], q[1] - p[1], q[2] - p[2]}, b[3] = {o[0] - p[0], o[1] - p[1], o[2] - p[2]};
    double        nrm[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};

    TEST_ASSERT(v.btag[k] == 1 || v.btag[k] == 2);
    ntag[v.btag[k]]++;
    /* outward from the domain: into the sphere, out of the box */
    TEST_ASSERT((nrm[0] * p[0] + nrm[1] * p[1] + nrm[2] * p[2]) * (v.btag[k] == 1 ? -1 : 1) > 0);
    for (pds_size i = v.bp[k]; i < v.bp[k + 1]; i++) {
      const double *x = v.xyz + 3 * v.bn[i];

      if (v.btag[k] == 1) {
        double e = fabs(sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]) - r) / r;

        rerr = e > rerr ? e : rerr;
      } else
        TEST_ASSERT(fabs(x[0]) == h || fabs(x[1]) == h || fabs(x[2]) == h);
      for (int e = 0; e < 3; e++) TEST_ASSERT(fabs(x[e]) <= h);
    }
  }
  TEST_ASSERT(ntag[1] > 0 && ntag[2] > 0 && rerr <= 4e-16);
  for (pds_int c = 0; c < v.nc; c++) { /* volumes; cells at the sphere against cells at the box */
    double cv = cell_volume(&v, c, &pos);
    int    in = 0, out = 0;

    vol += cv;
    for (pds_size i = v.cp[c]; i < v.cp[c + 1]; i++) {
      const double *x = v.xyz + 3 * v.cn[i];

      in |= fabs(sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]) - r) <= 1e-12 * r;
      out |= fabs(x[0]) == h || fabs(x[1]) == h || fabs(x[2]) == h;
    }
    if (in) vin += cv, nin++;
    if (out) vout += cv, nout++;
  }
  if (!pos) TEST_FAIL("target %d: a cell has a non-positive tetrahedron", (int)target);
  TEST_ASSERT(nin > 0 && nout > 0 && vin / nin < vout / nout);
  TEST_ASSERT(vol > exact && vol < 1.01 * exact);
  printf("| %7d | %7d | %7d (%4.1f%%) | %7d (%4.1f%%) | %7d (%4.1f%%) | %7d (%4.1f%%) | %7d | %8.2e | %6.2f |\n",
         (int)target, (int)v.nc, (int)cnt[0], 100.0 * cnt[0] / v.nc, (int)cnt[1], 100.0 * cnt[1] / v.nc,
         (int)cnt[2], 100.0 * cnt[2] / v.nc, (int)cnt[3], 100.0 * cnt[3] / v.nc, (int)v.nn, vol / exact - 1, t);
  TEST_CALL(pds_mesh3d_destroy(&m));
  return vol / exact - 1;
}

static void test_sizes(pds_ctx ctx) {
  static const pds_int targets[] = {2000, 20000, 200000, 680000};
  double               prev = INFINITY;

  printf("| target | cells | tetrahedra | pyramids | prisms | hexahedra | nodes | volume excess | time (s) |\n"
         "|---|---|---|---|---|---|---|---|---|\n");
  for (size_t i = 0; i < sizeof targets / sizeof *targets; i++) {
    double ex = check(ctx, targets[i], 0.5, 5);

    if (!(ex < prev)) TEST_FAIL("target %d: volume excess %g, not below %g", (int)targets[i], ex, prev);
    prev = ex;
  }
  check(ctx, 1000, 1, 2.5); /* a small box, and the smallest target the sizes are promised for */
}

static void test_roundtrip(pds_ctx ctx) {
  char       path[512];
  pds_mesh3d a, b, c;

  snprintf(path, sizeof path, "%s/t906_sphere.msh", PDS_MESH_OUT);
  TEST_CALL(pds_mesh3d_generate_sphere(ctx, 20000, 0.5, 5, &a));
  TEST_CALL(pds_mesh3d_generate_sphere(ctx, 20000, 0.5, 5, &b));
  assert_same(a, b, "two calls");
  TEST_CALL(pds_mesh3d_write_gmsh(a, path));
  TEST_CALL(pds_mesh3d_read_gmsh(ctx, path, &c));
  assert_same(a, c, "the Gmsh round trip");
  TEST_CALL(pds_mesh3d_destroy(&a));
  TEST_CALL(pds_mesh3d_destroy(&b));
  TEST_CALL(pds_mesh3d_destroy(&c));
}

static void test_errors(pds_ctx ctx) {
  pds_mesh3d m = (pds_mesh3d)&m;
  pds_int    nc;
  long       k;
  int        ierr = PDS_ERR_MEM;

  TEST_ASSERT_ERR(ctx, pds_mesh3d_generate_sphere(ctx, 5000, 1, 2, &m), PDS_ERR_ARG, "radius < half_width / 2");
  TEST_ASSERT(m == NULL);
  TEST_ASSERT_ERR(ctx, pds_mesh3d_generate_sphere(ctx, 5000, 0, 2, &m), PDS_ERR_ARG, "radius = 0");
  TEST_ASSERT_ERR(ctx, pds_mesh3d_generate_sphere(ctx, 5000, NAN, 2, &m), PDS_ERR_ARG, "finite");
  TEST_ASSERT_ERR(ctx, pds_mesh3d_generate_sphere(ctx, 431, 0.5, 5, &m), PDS_ERR_ARG,
                  "smallest sphere mesh (432 cells)");
  TEST_ASSERT_ERR(ctx, pds_mesh3d_generate_sphere(ctx, 60000000, 0.5, 5, &m), PDS_ERR_ARG, "largest");
  TEST_ASSERT_ERR(ctx, pds_mesh3d_generate_sphere(ctx, 5000, 0.5, 5, NULL), PDS_ERR_ARG, "output mesh pointer is NULL");
  TEST_ASSERT(pds_mesh3d_generate_sphere(NULL, 5000, 0.5, 5, &m) == PDS_ERR_ARG);
  TEST_CALL(pds_mesh3d_generate_sphere(ctx, 432, 0.5, 5, &m)); /* the smallest */
  TEST_CALL(pds_mesh3d_count(m, 0, &nc));
  TEST_ASSERT(nc == 432);
  TEST_CALL(pds_mesh3d_destroy(&m));
  for (k = 0; k < 1000; k++) { /* allocation failures: PDS_ERR_MEM, no mesh, nothing leaked (ASan) */
    pds_ctx_set_alloc_fail(ctx, k);
    ierr = pds_mesh3d_generate_sphere(ctx, 2000, 0.5, 5, &m);
    pds_ctx_set_alloc_fail(ctx, -1);
    if (ierr != PDS_ERR_MEM) break;
    TEST_ASSERT(m == NULL);
    pds_ctx_clear_error(ctx);
  }
  TEST_CALL(ierr);
  TEST_ASSERT(k > 10);
  TEST_CALL(pds_mesh3d_destroy(&m));
}

int main(int argc, char **argv) {
  pds_ctx ctx = test_init(argc, argv);

  test_errors(ctx);
  test_roundtrip(ctx);
  test_sizes(ctx);
  test_finalize(&ctx);
  return 0;
}
