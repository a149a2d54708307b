/* tests/mesh/t904_mesh3d.c: 3D hybrid meshes: the shared meshes (sphere_tet.msh MSH 4.1, box_tet.msh and
 * hybrid_3d_cube.msh MSH 2.2: counts and tags from their manifest, total volume against the domain's, every cell
 * positive, boundary faces = faces of one cell), an all-hexahedral box written by the gmsh program at test time (MSH 2.2
 * and 4.1, ASCII and binary, partitioned: the same mesh from all), the writer's bitwise round trip, the box generator,
 * the subdivision into hexahedra (volume kept to round-off, all hexahedra, positive, boundary quads = faces of one
 * cell), malformed files and bad arrays (each its code and a message naming the problem), allocation failures.
 * Volumes are the test's own: the exact integral of the Jacobian (2-point Gauss rules), independent of the library's
 * corner tetrahedra; faces are matched here with the test's own tables. */
#include <stdarg.h>
#include <stdint.h>

#include "mesh3d_test.h"

static char path_buf[512];

static const char *out(const char *name) {
  snprintf(path_buf, sizeof path_buf, "%s/%s", PDS_MESH_OUT, name);
  return path_buf;
}

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "wb");

  TEST_ASSERT(f && fwrite(text, 1, strlen(text), f) == strlen(text) && !fclose(f));
}

/* ---- the test's own geometry: volumes as the integral of det J ------------------------------------------------- */

static double det3(const double J[3][3]) {
  return J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) - J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) +
         J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
}

/* the minimum of det J over the quadrature points goes to *jmin */
static double cell_volume(const view *v, pds_int c, double *jmin) {
  const pds_int *n = v->cn + v->cp[c];
  const double   g = 1 / sqrt(3.0);
  double         vol = 0, J[3][3];

  *jmin = INFINITY;
  if (v->ct[c] == PDS_CELL_TET) {
    for (int d = 0; d < 3; d++)
      for (int k = 0; k < 3; k++) J[d][k] = v->xyz[3 * n[k + 1] + d] - v->xyz[3 * n[0] + d];
    *jmin = det3(J);
    return *jmin / 6;
  }
  if (v->ct[c] == PDS_CELL_HEX) { /* trilinear map of [-1,1]^3: 2x2x2 Gauss is exact for det J */
    static const int s[8][3] = {{-1, -1, -1}, {1, -1, -1}, {1, 1, -1}, {-1, 1, -1},
                                {-1, -1, 1},  {1, -1, 1},  {1, 1, 1},  {-1, 1, 1}};
    for (int q = 0; q < 8; q++) {
      double p[3] = {s[q][0] * g, s[q][1] * g, s[q][2] * g};

      memset(J, 0, sizeof J);
      for (int i = 0; i < 8; i++) {
        double f[3] = {1 + s[i][0] * p[0], 1 + s[i][1] * p[1], 1 + s[i][2] * p[2]};
        double dN[3] = {s[i][0] * f[1] * f[2] / 8, s[i][1] * f[0] * f[2] / 8, s[i][2] * f[0] * f[1] / 8};

        for (int d = 0; d < 3; d++)
          for (int k = 0; k < 3; k++) J[d][k] += v->xyz[3 * n[i] + d] * dN[k];
      }
      vol += det3(J);
      if (det3(J) < *jmin) *jmin = det3(J);
    }
    return vol;
  }
  if (v->ct[c] == PDS_CELL_PRISM) { /* triangle (centroid, weight 1/2) x [-1,1] (2 Gauss points): exact */
    for (int q = 0; q < 2; q++) {
      double z = q ? g : -g, lam[3] = {1.0 / 3, 1.0 / 3, 1.0 / 3};
      double dl[3][2] = {{-1, -1}, {1, 0}, {0, 1}};

      memset(J, 0, sizeof J);
      for (int i = 0; i < 6; i++) {
        int    t = i % 3;
        double h = i < 3 ? (1 - z) / 2 : (1 + z) / 2, dh = i < 3 ? -0.5 : 0.5;
        double dN[3] = {dl[t][0] * h, dl[t][1] * h, lam[t] * dh};

        for (int d = 0; d < 3; d++)
          for (int k = 0; k < 3; k++) J[d][k] += v->xyz[3 * n[i] + d] * dN[k];
      }
      vol += 0.5 * det3(J);
      if (det3(J) < *jmin) *jmin = det3(J);
    }
    return vol;
  }
  TEST_FAIL("cell %d: type %d has no volume rule here", c, v->ct[c]);
}

/* sum of the volumes of the cells with tag `tag` (< 0: all); every cell must have det J > 0 */
static double volume(pds_mesh3d m, pds_int tag) {
  view   v = get(m);
  double s = 0, jmin;

  for (pds_int c = 0; c < v.nc; c++) {
    double vc = cell_volume(&v, c, &jmin);

    if (!(jmin > 0)) TEST_FAIL("cell %d (type %d) has det J = %g", c, v.ct[c], jmin);
    if (tag < 0 || v.ctag[c] == tag) s += vc;
  }
  return s;
}

/* ---- the test's own faces ---------------------------------------------------------------------------------------- */

/* Gmsh's faces of each cell type (MTetrahedron, MPyramid, MPrism, MHexahedron) */
static int ref_faces(int type, const int (**f)[4], const int **nv) {
  static const int tet[4][4] = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {3, 1, 2}}, tnv[4] = {3, 3, 3, 3};
  static const int pyr[5][4] = {{0, 1, 4}, {3, 0, 4}, {1, 2, 4}, {2, 3, 4}, {0, 3, 2, 1}}, ynv[5] = {3, 3, 3, 3, 4};
  static const int pri[5][4] = {{0, 2, 1}, {3, 4, 5}, {0, 1, 4, 3}, {0, 3, 5, 2}, {1, 2, 5, 4}}, pnv[5] = {3, 3, 4, 4, 4};
  static const int hex[6][4] = {{0, 3, 2, 1}, {0, 1, 5, 4}, {0, 4, 7, 3}, {1, 2, 6, 5}, {2, 3, 7, 6}, {4, 5, 6, 7}},
                   hnv[6]    = {4, 4, 4, 4, 4, 4};

  switch (type) {
  case 4: *f = tet, *nv = tnv; return 4;
  case 5: *f = pyr, *nv = ynv; return 5;
  case 6: *f = pri, *nv = pnv; return 5;
  default: *f = hex, *nv = hnv; return 6;
  }
}

typedef struct {
  int32_t v[4];
} fkey;

static fkey key_of(const pds_int *n, int nv) {
  fkey k = {{-1, -1, -1, -1}};

  for (int i = 0; i < nv; i++) k.v[4 - nv + i] = n[i];
  for (int i = 1; i < 4; i++)
    for (int j = i; j > 0 && k.v[j - 1] > k.v[j]; j--) {
      int32_t t = k.v[j];

      k.v[j] = k.v[j - 1], k.v[j - 1] = t;
    }
  return k;
}

static int fkey_cmp2(const void *a, const void *b) {
  const fkey *x = a, *y = b;

  for (int i = 0; i < 4; i++)
    if (x->v[i] != y->v[i]) return x->v[i] < y->v[i] ? -1 : 1;
  return 0;
}

/* Faces shared by at most two cells; the faces of one cell are exactly the boundary faces (as sets, each once); the
   library's face list agrees (count, one-cell count) and its faces point out of their first cell. Returns the number
   of faces. */
static long check_faces(pds_mesh3d m) {
  view                 v = get(m);
  size_t               nrec = 0, nsingle = 0;
  fkey                *rec, *bk;
  long                 nf = 0;
  pds_int              lnf, lnb;
  const unsigned char *ft;
  const pds_size      *fp;
  const pds_int       *fn, *fc;

  for (pds_int c = 0; c < v.nc; c++) {
    const int(*f)[4];
    const int *nv;

    nrec += (size_t)ref_faces(v.ct[c], &f, &nv);
  }
  rec = malloc(nrec * sizeof *rec), bk = malloc(((size_t)v.nb + 1) * sizeof *bk);
  TEST_ASSERT(rec && bk);
  nrec = 0;
  for (pds_int c = 0; c < v.nc; c++) {
    const int(*f)[4];
    const int *nv;
    int        nfc = ref_faces(v.ct[c], &f, &nv);

    for (int k = 0; k < nfc; k++) {
      pds_int n[4];

      for (int i = 0; i < nv[k]; i++) n[i] = v.cn[v.cp[c] + f[k][i]];
      rec[nrec++] = key_of(n, nv[k]);
    }
  }
  for (pds_int k = 0; k < v.nb; k++) bk[k] = key_of(v.bn + v.bp[k], v.bt[k]);
  qsort(rec, nrec, sizeof *rec, fkey_cmp2);
  qsort(bk, (size_t)v.nb, sizeof *bk, fkey_cmp2);
  for (pds_int k = 1; k < v.nb; k++)
    if (!fkey_cmp2(&bk[k], &bk[k - 1])) TEST_FAIL("boundary face listed twice");
  for (size_t i = 0; i < nrec;) {
    size_t j = i;

    while (j < nrec && !fkey_cmp2(&rec[j], &rec[i])) j++;
    if (j - i > 2) TEST_FAIL("a face has %zu cells", j - i);
    if (j - i == 1) {
      if (!bsearch(&rec[i], bk, (size_t)v.nb, sizeof *bk, fkey_cmp2))
        TEST_FAIL("a face of one cell (%d %d %d %d) is not a boundary face", rec[i].v[0], rec[i].v[1], rec[i].v[2],
                  rec[i].v[3]);
      nsingle++;
    }
    nf++;
    i = j;
  }
  if (nsingle != (size_t)v.nb) TEST_FAIL("%zu faces of one cell, %d boundary faces", nsingle, v.nb);
  TEST_CALL(pds_mesh3d_get_faces(m, &lnf, &lnb, &ft, &fp, &fn, &fc, NULL, NULL));
  if (lnf != nf || lnb != (pds_int)nsingle) TEST_FAIL("library: %d faces, %d on the boundary; here %ld, %zu", lnf, lnb,
                                                      nf, nsingle);
  for (pds_int f = 0; f < lnf; f++) { /* the face's normal points from its first cell's centroid outward */
    double fcen[3] = {0, 0, 0}, ccen[3] = {0, 0, 0}, nrm[3] = {0, 0, 0}, dot = 0;
    const pds_int *cn = v.cn + v.cp[fc[2 * f]];

    for (pds_size i = fp[f]; i < fp[f + 1]; i++) {
      const double *a = v.xyz + 3 * fn[i], *b = v.xyz + 3 * fn[i + 1 < fp[f + 1] ? i + 1 : fp[f]];

      for (int d = 0; d < 3; d++) fcen[d] += a[d] / ft[f];
      nrm[0] += (a[1] - b[1]) * (a[2] + b[2]), nrm[1] += (a[2] - b[2]) * (a[0] + b[0]);
      nrm[2] += (a[0] - b[0]) * (a[1] + b[1]); /* Newell's normal */
    }
    for (int i = 0; i < v.ct[fc[2 * f]]; i++)
      for (int d = 0; d < 3; d++) ccen[d] += v.xyz[3 * cn[i] + d] / v.ct[fc[2 * f]];
    for (int d = 0; d < 3; d++) dot += nrm[d] * (fcen[d] - ccen[d]);
    if (!(dot > 0)) TEST_FAIL("face %d points into its cell %d", f, fc[2 * f]);
  }
  free(rec), free(bk);
  return nf;
}

static pds_int count(pds_mesh3d m, int type) {
  pds_int n;

  TEST_CALL(pds_mesh3d_count(m, type, &n));
  return n;
}

static pds_int count_btag(pds_mesh3d m, pds_int t) {
  view    v = get(m);
  pds_int n = 0;

  for (pds_int k = 0; k < v.nb; k++) n += v.btag[k] == t;
  return n;
}

static pds_mesh3d read_ok(pds_ctx ctx, const char *path) {
  pds_mesh3d m;

  TEST_CALL(pds_mesh3d_read_gmsh(ctx, path, &m));
  return m;
}

static void roundtrip(pds_ctx ctx, pds_mesh3d m, const char *name) {
  pds_mesh3d r;

  TEST_CALL(pds_mesh3d_write_gmsh(m, out(name)));
  r = read_ok(ctx, out(name));
  assert_same(m, r, name);
  TEST_CALL(pds_mesh3d_destroy(&r));
}

/* subdivide: all hexahedra, positive, the same volume to round-off, boundary quads = faces of one cell */
static pds_mesh3d subdivide(pds_mesh3d m, double vol) {
  pds_mesh3d h;
  view       v = get(m), w;

  TEST_CALL(pds_mesh3d_subdivide_hex(m, &h));
  w = get(h);
  TEST_ASSERT(count(h, PDS_CELL_HEX) == w.nc && w.nc == 4 * count(m, 4) + 6 * count(m, 6) + 8 * count(m, 8));
  TEST_ASSERT(w.nb == (pds_int)v.bp[v.nb]); /* a boundary face of n vertices into n quadrangles */
  TEST_ASSERT_NEAR(volume(h, -1), vol, 1e-13, 0);
  check_faces(h);
  {
    long tv = 0, th = 0;

    for (pds_int k = 0; k < v.nb; k++) tv += (long)v.btag[k] * v.bt[k];
    for (pds_int k = 0; k < w.nb; k++) th += w.btag[k];
    TEST_ASSERT(tv == th); /* each boundary face's tag on each of its pieces */
  }
  return h;
}

/* ---- the shared meshes ------------------------------------------------------------------------------------------- */

static void test_shared(pds_ctx ctx) {
  char       buf[512];
  pds_mesh3d m, h;
  view       v;
  double     pi = 3.14159265358979323846, vol, v1, v2;

  if (!test_shared_path("meshes/sphere_tet.msh", buf, sizeof buf)) TEST_FAIL("the shared meshes are missing (%s)", buf);
  m = read_ok(ctx, buf);
  v = get(m);
  TEST_ASSERT(v.nn == 12765 && v.nc == 68119 && count(m, PDS_CELL_TET) == 68119 && v.nb == 7084);
  TEST_ASSERT(count_btag(m, 3) == 7084);
  {
    pds_int n1 = 0, n2 = 0;

    for (pds_int c = 0; c < v.nc; c++) n1 += v.ctag[c] == 1, n2 += v.ctag[c] == 2;
    TEST_ASSERT(n1 == 27424 && n2 == 40695);
  }
  vol = volume(m, -1), v1 = volume(m, 1), v2 = volume(m, 2);
  TEST_ASSERT_NEAR(v1 + v2, vol, 1e-13, 0);
  /* a polyhedron inscribed in the balls: below their volumes, within 1% */
  TEST_ASSERT(vol < 4 * pi * 27 / 3 && vol > 0.99 * 4 * pi * 27 / 3);
  TEST_ASSERT(v1 < 4 * pi * 8 / 3 && v1 > 0.99 * 4 * pi * 8 / 3);
  check_faces(m);
  roundtrip(ctx, m, "sphere3d_roundtrip.msh");
  TEST_CALL(pds_mesh3d_destroy(&m));

  TEST_ASSERT(test_shared_path("meshes/box_tet.msh", buf, sizeof buf));
  m = read_ok(ctx, buf);
  v = get(m);
  TEST_ASSERT(v.nn == 6804 && v.nc == 31894 && count(m, PDS_CELL_TET) == 31894 && v.nb == 6260);
  TEST_ASSERT(count_btag(m, 1) == 6260);
  for (pds_int c = 0; c < v.nc; c++) TEST_ASSERT(v.ctag[c] == 9);
  vol = volume(m, -1);
  TEST_ASSERT_NEAR(vol, 8, 1e-13, 0);
  check_faces(m);
  h = subdivide(m, vol);
  TEST_CALL(pds_mesh3d_destroy(&h));
  TEST_CALL(pds_mesh3d_destroy(&m));

  TEST_ASSERT(test_shared_path("meshes/hybrid_3d_cube.msh", buf, sizeof buf));
  m = read_ok(ctx, buf);
  v = get(m);
  TEST_ASSERT(v.nn == 91 && v.nc == 177 && count(m, PDS_CELL_TET) == 117 && count(m, PDS_CELL_PRISM) == 60);
  TEST_ASSERT(count(m, PDS_CELL_HEX) == 0 && count(m, PDS_CELL_PYRAMID) == 0 && count(m, 0) == 177);
  TEST_ASSERT(v.nb == 106 && count_btag(m, 2) == 106);
  {
    pds_int nt = 0;
    double  lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};

    for (pds_int k = 0; k < v.nb; k++) nt += v.bt[k] == 3;
    TEST_ASSERT(nt == 82);
    for (pds_int i = 0; i < 3 * v.nn; i++) {
      if (v.xyz[i] < lo[i % 3]) lo[i % 3] = v.xyz[i];
      if (v.xyz[i] > hi[i % 3]) hi[i % 3] = v.xyz[i];
    }
    vol = volume(m, -1); /* a box, its corners given to 7 digits in places */
    TEST_ASSERT_NEAR(vol, (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]), 1e-6, 0);
  }
  check_faces(m);
  roundtrip(ctx, m, "hybrid_roundtrip.msh");
  h = subdivide(m, vol);
  TEST_ASSERT(get(h).nc == 4 * 117 + 6 * 60);
  roundtrip(ctx, h, "hybrid_hex_roundtrip.msh");
  TEST_CALL(pds_mesh3d_destroy(&h));
  TEST_CALL(pds_mesh3d_destroy(&m));

  { /* a 2D mesh is not a 3D mesh, and a 3D mesh not a 2D one */
    pds_mesh3d none = NULL;

    TEST_ASSERT(test_shared_path("meshes/square_unstructured_tri.msh", buf, sizeof buf));
    TEST_ASSERT_ERR(ctx, pds_mesh3d_read_gmsh(ctx, buf, &none), PDS_ERR_UNSUPPORTED, "no volume cells");
    TEST_ASSERT(none == NULL);
  }
}

/* ---- files written by gmsh --------------------------------------------------------------------------------------- */

static void test_gmsh_program(pds_ctx ctx) {
  static const char *names[6] = {"boxhex_msh22_ascii.msh", "boxhex_msh22_bin.msh",      "boxhex_msh41_ascii.msh",
                                 "boxhex_msh41_bin.msh",   "boxhex_msh41_part_ascii.msh", "boxhex_msh41_part_bin.msh"};
  pds_mesh3d         m[6], g, h;
  char               p[512];
  const pds_int      n[3] = {4, 4, 4};
  const pds_real     lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};

  for (int k = 0; k < 6; k++) {
    view v;

    snprintf(p, sizeof p, "%s/%s", PDS_GMSH_DIR, names[k]);
    m[k] = read_ok(ctx, p);
    v    = get(m[k]);
    TEST_ASSERT(v.nn == 125 && v.nc == 64 && count(m[k], PDS_CELL_HEX) == 64 && v.nb == 96);
    TEST_ASSERT(count_btag(m[k], 1) == 16 && count_btag(m[k], 2) == 16 && count_btag(m[k], 3) == 64);
    for (pds_int c = 0; c < v.nc; c++) TEST_ASSERT(v.ctag[c] == 9);
    TEST_ASSERT_NEAR(volume(m[k], -1), 1, 1e-14, 0);
    check_faces(m[k]);
    if (k && k < 4) assert_same(m[0], m[k], names[k]); /* the same mesh from the four formats */
  }
  roundtrip(ctx, m[3], "boxhex_roundtrip.msh");
  /* the generator's box: the same sizes, volume and faces */
  TEST_CALL(pds_mesh3d_generate_box(ctx, n, lo, hi, &g));
  TEST_ASSERT(get(g).nn == 125 && get(g).nc == 64 && get(g).nb == 96);
  for (pds_int t = 1; t <= 6; t++) TEST_ASSERT(count_btag(g, t) == 16);
  TEST_ASSERT_NEAR(volume(g, -1), 1, 1e-14, 0);
  check_faces(g);
  h = subdivide(m[0], 1);
  TEST_ASSERT(get(h).nc == 512);
  TEST_CALL(pds_mesh3d_destroy(&h));
  TEST_CALL(pds_mesh3d_destroy(&g));
  for (int k = 0; k < 6; k++) TEST_CALL(pds_mesh3d_destroy(&m[k]));
}

static void test_generate(pds_ctx ctx) {
  const pds_int  n[3] = {3, 2, 5}, bad[3] = {3, 0, 5};
  const pds_real lo[3] = {-1, 0.5, 2}, hi[3] = {2, 1.5, 2.25}, hi_bad[3] = {2, 0.5, 3};
  pds_mesh3d     m = NULL, h;
  view           v;

  TEST_CALL(pds_mesh3d_generate_box(ctx, n, lo, hi, &m));
  v = get(m);
  TEST_ASSERT(v.nn == 4 * 3 * 6 && v.nc == 30 && v.nb == 2 * (10 + 15 + 6));
  TEST_ASSERT(count_btag(m, 1) == 10 && count_btag(m, 2) == 10 && count_btag(m, 3) == 15 && count_btag(m, 4) == 15 &&
              count_btag(m, 5) == 6 && count_btag(m, 6) == 6);
  for (pds_int k = 0; k < v.nb; k++) { /* each tag on its side */
    int    s = v.btag[k] - 1, d = s / 2;
    double want = s % 2 ? hi[d] : lo[d];

    for (pds_size q = v.bp[k]; q < v.bp[k + 1]; q++) TEST_ASSERT(v.xyz[3 * v.bn[q] + d] == want);
  }
  TEST_ASSERT_NEAR(volume(m, -1), 3 * 1 * 0.25, 1e-14, 0);
  check_faces(m);
  roundtrip(ctx, m, "genbox_roundtrip.msh");
  h = subdivide(m, 0.75);
  TEST_CALL(pds_mesh3d_destroy(&h));
  TEST_CALL(pds_mesh3d_destroy(&m));
  TEST_ASSERT_ERR(ctx, pds_mesh3d_generate_box(ctx, bad, lo, hi, &m), PDS_ERR_ARG, "n[1] = 0");
  TEST_ASSERT_ERR(ctx, pds_mesh3d_generate_box(ctx, n, lo, hi_bad, &m), PDS_ERR_ARG, "direction 1");
  TEST_ASSERT(m == NULL);
}

/* ---- arrays: create's checks ------------------------------------------------------------------------------------- */

static void test_create(pds_ctx ctx) {
  /* one pyramid (a sixth node for the dangling-node check); tetrahedra, three of them on one face */
  const pds_real      pxyz[] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0.5, 0.5, 1, 9, 9, 9};
  const pds_int       pyr[] = {0, 1, 2, 3, 4}, rev[] = {0, 3, 2, 1, 4};
  const unsigned char t5[] = {PDS_CELL_PYRAMID}, bt4[] = {4}, bt3[] = {3};
  const pds_int       base[] = {0, 3, 2, 1}, side[] = {0, 1, 3}, one[] = {1};
  const pds_real      txyz[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1, 0.5, 0.5, 0.5};
  const unsigned char tt[] = {4, 4, 4}, bad_t[] = {7};
  const pds_int       tets[] = {0, 1, 2, 3, 1, 2, 3, 4, 1, 2, 3, 5}, flat[] = {0, 1, 2, 0};
  pds_mesh3d          m = NULL, h = NULL;

  TEST_CALL(pds_mesh3d_create(ctx, 5, pxyz, 1, t5, pyr, NULL, 1, bt4, base, one, &m));
  TEST_ASSERT(count(m, PDS_CELL_PYRAMID) == 1 && get(m).ctag[0] == 0);
  {
    pds_int nf, nb;

    TEST_CALL(pds_mesh3d_get_faces(m, &nf, &nb, NULL, NULL, NULL, NULL, NULL, NULL));
    TEST_ASSERT(nf == 5 && nb == 5);
  }
  TEST_ASSERT_ERR(ctx, pds_mesh3d_subdivide_hex(m, &h), PDS_ERR_UNSUPPORTED, "cell 0 is a pyramid");
  TEST_ASSERT(h == NULL);
  roundtrip(ctx, m, "pyramid_roundtrip.msh");
  TEST_CALL(pds_mesh3d_destroy(&m));
  TEST_ASSERT_ERR(ctx, pds_mesh3d_create(ctx, 5, pxyz, 1, t5, rev, NULL, 0, NULL, NULL, NULL, &m), PDS_ERR_ARG,
                  "cell 0 (pyramid) is inverted");
  TEST_ASSERT_ERR(ctx, pds_mesh3d_create(ctx, 6, pxyz, 1, t5, pyr, NULL, 0, NULL, NULL, NULL, &m), PDS_ERR_ARG,
                  "node 5 is used by no cell");
  TEST_ASSERT_ERR(ctx, pds_mesh3d_create(ctx, 5, pxyz, 1, t5, pyr, NULL, 1, bt3, side, one, &m), PDS_ERR_ARG,
                  "boundary face 0 (triangle) (nodes 0, 1, 3) is not a face of any cell");
  TEST_ASSERT_ERR(ctx, pds_mesh3d_create(ctx, 5, pxyz, 1, bad_t, pyr, NULL, 0, NULL, NULL, NULL, &m), PDS_ERR_ARG,
                  "cell 0 has type 7");
  TEST_ASSERT_ERR(ctx, pds_mesh3d_create(ctx, 4, pxyz, 1, t5, pyr, NULL, 0, NULL, NULL, NULL, &m), PDS_ERR_ARG,
                  "node 4 is out of range [0, 4)");
  TEST_ASSERT_ERR(ctx, pds_mesh3d_create(ctx, 5, txyz, 2, tt, tets, NULL, 0, NULL, NULL, NULL, &m), PDS_OK, "");
  TEST_CALL(pds_mesh3d_destroy(&m));
  TEST_ASSERT_ERR(ctx, pds_mesh3d_create(ctx, 6, txyz, 3, tt, tets, NULL, 0, NULL, NULL, NULL, &m), PDS_ERR_ARG,
                  "is shared by 3 cells (cell 0 (tetrahedron), cell 1 (tetrahedron), cell 2 (tetrahedron)");
  TEST_ASSERT_ERR(ctx, pds_mesh3d_create(ctx, 4, txyz, 1, tt, flat, NULL, 0, NULL, NULL, NULL, &m), PDS_ERR_ARG,
                  "has node 0 twice");
  {
    const pds_real cop[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0}; /* four points in a plane */

    TEST_ASSERT_ERR(ctx, pds_mesh3d_create(ctx, 4, cop, 1, tt, tets, NULL, 0, NULL, NULL, NULL, &m), PDS_ERR_ARG,
                    "degenerate (zero volume)");
  }
  TEST_ASSERT(m == NULL);
}

/* ---- small files: malformed -------------------------------------------------------------------------------------- */

/* two tetrahedra on the face (2, 3, 4), a tagged boundary triangle under the first */
static const char *two22 =
  "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n"                                        /* lines 1-3 */
  "$Nodes\n5\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n5 1 1 1\n$EndNodes\n"             /* lines 4-11 */
  "$Elements\n3\n1 2 2 5 5 1 3 2\n2 4 2 1 1 1 2 3 4\n3 4 2 1 1 2 3 4 5\n$EndElements\n"; /* lines 12-17 */

static const char *subst(const char *text, const char *a, const char *b) {
  static char buf[4][4096];
  static int  turn;
  const char *p = strstr(text, a);
  char       *o = buf[turn++ % 4];

  if (!p) TEST_FAIL("'%s' not in the test text", a);
  snprintf(o, sizeof buf[0], "%.*s%s%s", (int)(p - text), text, b, p + strlen(a));
  return o;
}

static void expect_fail_(pds_ctx ctx, const char *name, const char *text, int code, ...) {
  pds_mesh3d  m = NULL;
  int         ierr;
  va_list     ap;
  const char *sub;

  write_file(out(name), text);
  ierr = pds_mesh3d_read_gmsh(ctx, out(name), &m);
  if (ierr != code)
    TEST_FAIL("%s: read gave %s, expected %s (%s)", name, pds_error_name(ierr), pds_error_name(code),
              pds_ctx_get_error(ctx));
  TEST_ASSERT(m == NULL);
  va_start(ap, code);
  while ((sub = va_arg(ap, const char *)))
    if (!strstr(pds_ctx_get_error(ctx), sub)) TEST_FAIL("%s: message '%s' lacks '%s'", name, pds_ctx_get_error(ctx), sub);
  va_end(ap);
  pds_ctx_clear_error(ctx);
}
#define expect_fail(ctx, name, text, code, ...) expect_fail_((ctx), (name), (text), (code), __VA_ARGS__, (const char *)NULL)

static void test_small(pds_ctx ctx) {
  pds_mesh3d m;
  view       v;

  write_file(out("two22.msh"), two22);
  m = read_ok(ctx, out("two22.msh"));
  v = get(m);
  TEST_ASSERT(v.nn == 5 && v.nc == 2 && v.nb == 1 && v.btag[0] == 5 && v.ctag[0] == 1);
  TEST_ASSERT_NEAR(volume(m, -1), 1.0 / 6 + 2.0 / 6, 1e-15, 0);
  TEST_CALL(pds_mesh3d_destroy(&m));
  { /* a node of no cell is dropped; an untagged boundary triangle is ignored */
    const char *t = subst(subst(two22, "$Nodes\n5", "$Nodes\n6"), "5 1 1 1\n", "5 1 1 1\n6 7 7 7\n");

    write_file(out("two22_extra.msh"), subst(t, "1 2 2 5 5 1 3 2", "1 2 2 0 5 1 3 2"));
    m = read_ok(ctx, out("two22_extra.msh"));
    TEST_ASSERT(get(m).nn == 5 && get(m).nb == 0);
    TEST_CALL(pds_mesh3d_destroy(&m));
  }
  {
    char cut[4096];

    snprintf(cut, sizeof cut, "%.*s", (int)(strstr(two22, "3 4 2 1 1") - two22), two22);
    expect_fail(ctx, "trunc3d.msh", cut, PDS_ERR_FORMAT, "line 16:", "the file is truncated");
    snprintf(cut, sizeof cut, "%.*s", (int)(strstr(two22, "2 3 4 5\n$End") + 4 - two22), two22);
    expect_fail(ctx, "trunc3d_b.msh", cut, PDS_ERR_FORMAT, "end of file");
  }
  expect_fail(ctx, "badnode3d.msh", subst(two22, "3 4 2 1 1 2 3 4 5", "3 4 2 1 1 2 3 4 9"), PDS_ERR_FORMAT,
              "line 16:", "element 3 refers to node 9, which is not in $Nodes");
  expect_fail(ctx, "inverted3d.msh", subst(two22, "3 4 2 1 1 2 3 4 5", "3 4 2 1 1 3 2 4 5"), PDS_ERR_FORMAT,
              "tetrahedron (element 3) is inverted", "not re-oriented");
  expect_fail(ctx, "three3d.msh",
              subst(subst(subst(two22, "$Nodes\n5", "$Nodes\n6"), "5 1 1 1\n", "5 1 1 1\n6 0.5 0.5 0.5\n"),
                    "$Elements\n3", "$Elements\n4\n4 4 2 1 1 2 3 4 6"),
              PDS_ERR_FORMAT, "shared by 3 cells", "(element 2)", "(element 3)", "(element 4)");
  expect_fail(ctx, "unknown3d.msh", subst(two22, "2 4 2 1 1", "2 77 2 1 1"), PDS_ERR_FORMAT, "line 15:",
              "unknown element type 77");
  expect_fail(ctx, "order2_3d.msh", subst(two22, "2 4 2 1 1 1 2 3 4", "2 11 2 1 1 1 2 3 4 1 2 3 4 1 2"),
              PDS_ERR_UNSUPPORTED, "line 15:", "10-node tetrahedron (Gmsh type 11)", "not supported");
  expect_fail(ctx, "bface3d.msh", subst(two22, "1 2 2 5 5 1 3 2", "1 2 2 5 5 1 2 5"), PDS_ERR_FORMAT,
              "boundary triangle (element 1)", "is not a face of any cell");
  expect_fail(ctx, "dupcell3d.msh", subst(two22, "3 4 2 1 1 2 3 4 5", "2 4 2 1 1 2 3 4 5"), PDS_ERR_FORMAT,
              "element tag 2 is given to two different cells");
  expect_fail(ctx, "nocell3d.msh", subst(subst(two22, "2 4 2 1 1 1 2 3 4\n3 4 2 1 1 2 3 4 5\n", ""), "$Elements\n3",
                                         "$Elements\n1"), PDS_ERR_UNSUPPORTED, "no volume cells");
  {
    pds_mesh3d none = NULL;

    TEST_ASSERT_ERR(ctx, pds_mesh3d_read_gmsh(ctx, out("no/such/file.msh"), &none), PDS_ERR_IO, "cannot open");
    TEST_ASSERT_ERR(ctx, pds_mesh3d_read_gmsh(ctx, NULL, &none), PDS_ERR_ARG, "path is NULL");
    TEST_ASSERT(none == NULL);
  }
}

/* ---- allocation failures (as t903) ------------------------------------------------------------------------------- */

typedef int (*mesh3d_op)(pds_ctx ctx, const void *arg, pds_mesh3d *m);

static int op_read(pds_ctx ctx, const void *arg, pds_mesh3d *m) { return pds_mesh3d_read_gmsh(ctx, arg, m); }

static int op_box(pds_ctx ctx, const void *arg, pds_mesh3d *m) {
  const pds_int  n[3] = {2, 3, 2};
  const pds_real lo[3] = {0, 0, 0}, hi[3] = {1, 2, 3};

  (void)arg;
  return pds_mesh3d_generate_box(ctx, n, lo, hi, m);
}

static int op_subdivide(pds_ctx ctx, const void *arg, pds_mesh3d *m) {
  (void)ctx;
  return pds_mesh3d_subdivide_hex((pds_mesh3d)arg, m);
}

TEST_DEFINE_ALLOC_SWEEP(sweep, pds_mesh3d, pds_mesh3d_destroy)

static void test_alloc(pds_ctx ctx) {
  char       buf[512];
  pds_mesh3d m;

  TEST_ASSERT(test_shared_path("meshes/hybrid_3d_cube.msh", buf, sizeof buf));
  sweep(ctx, "hybrid_3d_cube.msh", op_read, buf);
  snprintf(buf, sizeof buf, "%s/boxhex_msh41_bin.msh", PDS_GMSH_DIR);
  sweep(ctx, "boxhex_msh41_bin.msh", op_read, buf);
  snprintf(buf, sizeof buf, "%s/boxhex_msh41_part_ascii.msh", PDS_GMSH_DIR);
  sweep(ctx, "boxhex_msh41_part_ascii.msh", op_read, buf);
  sweep(ctx, "generate_box", op_box, NULL);
  TEST_ASSERT(test_shared_path("meshes/hybrid_3d_cube.msh", buf, sizeof buf));
  m = read_ok(ctx, buf);
  sweep(ctx, "subdivide_hex", op_subdivide, m);
  TEST_CALL(pds_mesh3d_destroy(&m));
}

int main(int argc, char **argv) {
  pds_ctx ctx = test_init(argc, argv);

  test_create(ctx);
  test_small(ctx);
  test_generate(ctx);
  test_shared(ctx);
  test_gmsh_program(ctx);
  test_alloc(ctx);
  test_finalize(&ctx);
  return 0;
}
