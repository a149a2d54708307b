/* tests/mesh/t902_gmsh.c: the Gmsh reader and writer: the shared meshes (MSH 2.2 square, MSH 4.1 backward-facing
 * step; the 3D files are refused), the unit square written by the gmsh program at test time in MSH 2.2 and 4.1,
 * ASCII and binary (identical meshes from all four), byte-swapped binary files, the writer's bitwise round trip,
 * and malformed files: each gives its code and says where (line N, or byte offset N for binary files). */
#include <stdarg.h>
#include <stdint.h>

#include "mesh_test.h"

static char path_buf[512];

static const char *out(const char *name) {
  snprintf(path_buf, sizeof path_buf, "%s/%s", PDS_MESH_OUT, name);
  return path_buf;
}

static void write_file(const char *path, const void *data, size_t n) {
  FILE *f = fopen(path, "wb");

  TEST_ASSERT(f && fwrite(data, 1, n, f) == n && !fclose(f));
}

static char *read_file(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  char *b;
  long  sz;

  if (!f) TEST_FAIL("cannot open %s (the gmsh fixture t902_gmsh_files makes it)", path);
  TEST_ASSERT(!fseek(f, 0, SEEK_END) && (sz = ftell(f)) >= 0 && !fseek(f, 0, SEEK_SET));
  b = malloc((size_t)sz + 1);
  TEST_ASSERT(b && fread(b, 1, (size_t)sz, f) == (size_t)sz);
  fclose(f);
  *n = (size_t)sz;
  return b;
}

/* Reading text (or bytes) must fail with code and a message holding each of the substrings (NULL ends). */
static void expect_fail_bytes(pds_ctx ctx, const char *name, const void *data, size_t n, int code, ...) {
  pds_mesh    m = NULL;
  int         ierr;
  va_list     ap;
  const char *sub;

  write_file(out(name), data, n);
  ierr = pds_mesh_read_gmsh(ctx, out(name), &m);
  if (ierr != code)
    TEST_FAIL("%s: read gave %s, expected %s (%s)", name, pds_error_name(ierr), pds_error_name(code),
              pds_ctx_get_error(ctx));
  TEST_ASSERT(m == NULL);
  va_start(ap, code);
  while ((sub = va_arg(ap, const char *)))
    if (!strstr(pds_ctx_get_error(ctx), sub))
      TEST_FAIL("%s: message '%s' lacks '%s'", name, pds_ctx_get_error(ctx), sub);
  va_end(ap);
  pds_ctx_clear_error(ctx);
}

#define expect_fail(ctx, name, text, code, ...) \
  expect_fail_bytes((ctx), (name), (text), strlen(text), (code), __VA_ARGS__, (const char *)NULL)

/* text with the first occurrence of a replaced by b (in one of 4 static buffers used in turn: calls nest) */
static const char *subst(const char *text, const char *a, const char *b) {
  static char buf[4][4096];
  static int  turn;
  const char *p = strstr(text, a);
  char       *o = buf[turn++ % 4];

  if (!p) TEST_FAIL("'%s' not in the test text", a);
  snprintf(o, sizeof buf[0], "%.*s%s%s", (int)(p - text), text, b, p + strlen(a));
  return o;
}

static pds_mesh read_ok(pds_ctx ctx, const char *path) {
  pds_mesh m;

  TEST_CALL(pds_mesh_read_gmsh(ctx, path, &m));
  return m;
}

/* count of boundary edges with tag t */
static int count_tag(pds_mesh m, pds_int t) {
  mt_view v = mt_get(m);
  int     c = 0;

  for (pds_int k = 0; k < v.nb; k++) c += v.btag[k] == t;
  return c;
}

static void roundtrip(pds_ctx ctx, pds_mesh m, const char *name) {
  pds_mesh r;

  TEST_CALL(pds_mesh_write_gmsh(m, out(name)));
  r = read_ok(ctx, out(name));
  mt_assert_same(m, r, name);
  TEST_CALL(pds_mesh_destroy(&r));
}

/* ---- the shared meshes ----------------------------------------------------------------------------------------- */

static void test_shared(pds_ctx ctx) {
  char     buf[512];
  pds_mesh m;
  mt_view  v;
  pds_mesh dummy = NULL;

  if (!test_shared_path("meshes/square_unstructured_tri.msh", buf, sizeof buf))
    TEST_FAIL("the shared meshes are missing (%s)", buf);
  m = read_ok(ctx, buf);
  v = mt_get(m);
  TEST_ASSERT(v.nn == 13422 && v.nt == 26442 && v.nb == 400);
  for (pds_int t = 1; t <= 4; t++) TEST_ASSERT(count_tag(m, t) == 100);
  mt_check_topology(m, 1);
  { /* each physical tag is one side (here 1 left, 2 bottom, 3 right, 4 top: physical and elementary tags differ) */
    int side_of[5] = {-1, -1, -1, -1, -1};

    for (pds_int k = 0; k < v.nb; k++) {
      const double *a = v.xy + 2 * v.bedge[2 * k], *b = v.xy + 2 * v.bedge[2 * k + 1];
      int           side = a[1] == 0 && b[1] == 0 ? 0 : a[0] == 1 && b[0] == 1 ? 1 : a[1] == 1 && b[1] == 1 ? 2
                           : a[0] == 0 && b[0] == 0 ? 3 : -1;

      TEST_ASSERT(side >= 0 && v.btag[k] >= 1 && v.btag[k] <= 4);
      if (side_of[v.btag[k]] < 0) side_of[v.btag[k]] = side;
      TEST_ASSERT(side_of[v.btag[k]] == side);
    }
    TEST_ASSERT(side_of[1] == 3 && side_of[2] == 0 && side_of[3] == 1 && side_of[4] == 2);
  }
  roundtrip(ctx, m, "square_roundtrip.msh");
  TEST_CALL(pds_mesh_destroy(&m));

  TEST_ASSERT(test_shared_path("meshes/backward_facing_step_tri.msh", buf, sizeof buf));
  m = read_ok(ctx, buf); /* MSH 4.1: physical tags of the lines come from their curves in $Entities */
  v = mt_get(m);
  TEST_ASSERT(v.nn == 2300 && v.nt == 4218 && v.nb == 370);
  TEST_ASSERT(count_tag(m, 9) == 180 && count_tag(m, 10) == 5 && count_tag(m, 11) == 185); /* ceiling inlet floor */
  mt_check_topology_(m, 1, 0); /* the outlet has no physical group: its edges are free but not listed */
  roundtrip(ctx, m, "step_roundtrip.msh");
  TEST_CALL(pds_mesh_destroy(&m));

  TEST_ASSERT(test_shared_path("meshes/sphere_tet.msh", buf, sizeof buf));
  TEST_ASSERT_ERR(ctx, pds_mesh_read_gmsh(ctx, buf, &dummy), PDS_ERR_UNSUPPORTED, "supports 2D triangle meshes");
  TEST_ASSERT(test_shared_path("meshes/box_tet.msh", buf, sizeof buf));
  TEST_ASSERT_ERR(ctx, pds_mesh_read_gmsh(ctx, buf, &dummy), PDS_ERR_UNSUPPORTED, "3D mesh");
  TEST_ASSERT(test_shared_path("meshes/hybrid_3d_cube.msh", buf, sizeof buf));
  TEST_ASSERT_ERR(ctx, pds_mesh_read_gmsh(ctx, buf, &dummy), PDS_ERR_UNSUPPORTED, "supports 2D triangle meshes");
  TEST_ASSERT(dummy == NULL);
}

/* ---- files written by gmsh --------------------------------------------------------------------------------------- */

static void test_gmsh_program(pds_ctx ctx) {
  static const char *names[4] = {"square_msh22_ascii.msh", "square_msh22_bin.msh", "square_msh41_ascii.msh",
                                 "square_msh41_bin.msh"};
  pds_mesh           m[4];
  char               p[512];

  for (int k = 0; k < 4; k++) {
    mt_view v;

    snprintf(p, sizeof p, "%s/%s", PDS_GMSH_DIR, names[k]);
    m[k] = read_ok(ctx, p);
    v    = mt_get(m[k]);
    TEST_ASSERT(v.nb == 80 && v.nn > 400 && v.nt > 700);
    for (pds_int t = 1; t <= 4; t++) TEST_ASSERT(count_tag(m[k], t) == 20);
    mt_check_topology(m[k], 1);
    if (k) mt_assert_same(m[0], m[k], names[k]); /* the same mesh from the four formats */
  }
  roundtrip(ctx, m[3], "gmsh_roundtrip.msh");
  /* partitioned by gmsh (3 parts): the same nodes, triangles and boundary; the lines gmsh puts between partitions
     (tagged with the surface's group) are interior, not boundary */
  for (int k = 0; k < 2; k++) {
    pds_mesh pm;
    mt_view  v, w = mt_get(m[0]);

    snprintf(p, sizeof p, "%s/square_msh41_part_%s.msh", PDS_GMSH_DIR, k ? "bin" : "ascii");
    pm = read_ok(ctx, p);
    v  = mt_get(pm);
    TEST_ASSERT(v.nn == w.nn && v.nt == w.nt && v.nb == 80);
    for (pds_int t = 1; t <= 4; t++) TEST_ASSERT(count_tag(pm, t) == 20);
    mt_check_topology(pm, 1);
    TEST_CALL(pds_mesh_destroy(&pm));
  }
  for (int k = 0; k < 4; k++) TEST_CALL(pds_mesh_destroy(&m[k]));

  /* binary files cut short, or with a wrong byte-order int */
  for (int k = 1; k < 4; k += 2) {
    size_t n;
    char  *b, name[64];

    snprintf(p, sizeof p, "%s/%s", PDS_GMSH_DIR, names[k]);
    b = read_file(p, &n);
    snprintf(name, sizeof name, "cut_%s", names[k]);
    expect_fail_bytes(ctx, name, b, n / 2, PDS_ERR_FORMAT, "byte offset", "truncated", (const char *)NULL);
    snprintf(name, sizeof name, "cut2_%s", names[k]);
    expect_fail_bytes(ctx, name, b, n - 20, PDS_ERR_FORMAT, "byte offset", (const char *)NULL);
    b[strchr(b, '\n') - b + 9] = 2; /* the int 1 after "x.y 1 8\n" */
    snprintf(name, sizeof name, "endian_%s", names[k]);
    expect_fail_bytes(ctx, name, b, n, PDS_ERR_FORMAT, "byte offset 20", "byte-order", (const char *)NULL);
    free(b);
  }
}

/* ---- small files: valid, byte-swapped binary, malformed ------------------------------------------------------ */

/* two triangles on the unit square, a point, two tagged lines and one without a physical group */
static const char *sq22 =
  "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n"                                  /* lines 1-3 */
  "$PhysicalNames\n1\n1 1 \"bottom side\"\n$EndPhysicalNames\n"            /* lines 4-7 */
  "$Nodes\n4\n1 0 0 0\n2 1 0 0\n3 1 1 0\n4 0 1 0\n$EndNodes\n"             /* lines 8-14 */
  "$Elements\n6\n1 15 2 0 1 1\n2 1 2 1 1 1 2\n3 1 2 3 3 3 4\n"             /* lines 15-19 (elements from 17) */
  "4 2 2 0 1 1 2 3\n5 2 2 0 1 1 3 4\n6 1 2 0 2 2 3\n$EndElements\n";      /* lines 20-23 */

static const char *sq41 =
  "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n"                                   /* lines 1-3 */
  "$Entities\n0 1 1 0\n1 0 0 0 1 0 0 1 5 2 1 -2\n1 0 0 0 1 1 0 0 0\n$EndEntities\n" /* lines 4-8 */
  "$Nodes\n1 4 1 4\n2 1 0 4\n1\n2\n3\n4\n0 0 0\n1 0 0\n1 1 0\n0 1 0\n$EndNodes\n"   /* lines 9-20 */
  "$Elements\n2 3 1 3\n1 1 1 1\n1 1 2\n2 1 2 2\n2 1 2 3\n3 1 3 4\n$EndElements\n"; /* lines 21-28 */

/* sq41 cut into 2 partitions: the bottom line on partitioned curve 11 (its group from its parent curve 1), the
   diagonal on curve 12 between the partitions (gmsh lists the surface's group 10 there: not a boundary line), one
   triangle on each partitioned surface */
static const char *sq41p =
  "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n"                                   /* lines 1-3 */
  "$Entities\n0 1 1 0\n1 0 0 0 1 0 0 1 5 2 1 -2\n1 0 0 0 1 1 0 1 10 0\n$EndEntities\n" /* lines 4-8 */
  "$PartitionedEntities\n2\n0\n0 2 2 0\n"                                    /* lines 9-12 */
  "11 1 1 1 1 0 0 0 1 0 0 0 0\n12 2 1 2 1 2 0 0 0 1 1 0 1 10 0\n"              /* lines 13-14 */
  "21 2 1 1 1 0 0 0 1 1 0 1 10 0\n22 2 1 1 2 0 0 0 1 1 0 1 10 0\n$EndPartitionedEntities\n" /* lines 15-17 */
  "$Nodes\n1 4 1 4\n2 21 0 4\n1\n2\n3\n4\n0 0 0\n1 0 0\n1 1 0\n0 1 0\n$EndNodes\n"  /* lines 18-29 */
  "$Elements\n4 4 1 4\n1 11 1 1\n1 1 2\n1 12 1 1\n2 1 3\n2 21 2 1\n3 1 2 3\n2 22 2 1\n4 1 3 4\n"
  "$EndElements\n";

/* The MSH 2.2 and 4.1 squares above as binary files, in native or swapped byte order. */
typedef struct {
  unsigned char b[2048];
  size_t        n;
  int           swap;
} bin_buf;

static void put(bin_buf *w, const void *p, size_t sz) {
  unsigned char t[8];

  memcpy(t, p, sz);
  if (w->swap)
    for (size_t i = 0; i < sz / 2; i++) {
      unsigned char c = t[i];

      t[i] = t[sz - 1 - i], t[sz - 1 - i] = c;
    }
  memcpy(w->b + w->n, t, sz);
  w->n += sz;
}
static void put_s(bin_buf *w, const char *s) { memcpy(w->b + w->n, s, strlen(s)), w->n += strlen(s); }
static void put_i(bin_buf *w, int32_t v) { put(w, &v, 4); }
static void put_u(bin_buf *w, uint64_t v) { put(w, &v, 8); }
static void put_d(bin_buf *w, double v) { put(w, &v, 8); }

static const double sq_xy[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};

static void bin22(bin_buf *w, int swap) {
  w->n = 0, w->swap = swap;
  put_s(w, "$MeshFormat\n2.2 1 8\n"), put_i(w, 1), put_s(w, "\n$EndMeshFormat\n$Nodes\n4\n");
  for (int i = 0; i < 4; i++) put_i(w, i + 1), put_d(w, sq_xy[i][0]), put_d(w, sq_xy[i][1]), put_d(w, 0);
  put_s(w, "\n$EndNodes\n$Elements\n6\n");
  put_i(w, 15), put_i(w, 1), put_i(w, 2), put_i(w, 1), put_i(w, 0), put_i(w, 1), put_i(w, 1);
  put_i(w, 1), put_i(w, 2), put_i(w, 2); /* two lines with 2 tags, one more with tags 0 2 */
  put_i(w, 2), put_i(w, 1), put_i(w, 1), put_i(w, 1), put_i(w, 2);
  put_i(w, 3), put_i(w, 3), put_i(w, 3), put_i(w, 3), put_i(w, 4);
  put_i(w, 2), put_i(w, 2), put_i(w, 2);
  put_i(w, 4), put_i(w, 0), put_i(w, 1), put_i(w, 1), put_i(w, 2), put_i(w, 3);
  put_i(w, 5), put_i(w, 0), put_i(w, 1), put_i(w, 1), put_i(w, 3), put_i(w, 4);
  put_i(w, 1), put_i(w, 1), put_i(w, 2);
  put_i(w, 6), put_i(w, 0), put_i(w, 2), put_i(w, 2), put_i(w, 3);
  put_s(w, "\n$EndElements\n");
}

static void bin41(bin_buf *w, int swap) {
  w->n = 0, w->swap = swap;
  put_s(w, "$MeshFormat\n4.1 1 8\n"), put_i(w, 1), put_s(w, "\n$EndMeshFormat\n$Entities\n");
  put_u(w, 0), put_u(w, 1), put_u(w, 1), put_u(w, 0);
  put_i(w, 1);
  for (int k = 0; k < 6; k++) put_d(w, k == 3 ? 1 : 0);
  put_u(w, 1), put_i(w, 5), put_u(w, 2), put_i(w, 1), put_i(w, -2);
  put_i(w, 1);
  for (int k = 0; k < 6; k++) put_d(w, k == 3 || k == 4 ? 1 : 0);
  put_u(w, 0), put_u(w, 0);
  put_s(w, "\n$EndEntities\n$Nodes\n");
  put_u(w, 1), put_u(w, 4), put_u(w, 1), put_u(w, 4);
  put_i(w, 2), put_i(w, 1), put_i(w, 0), put_u(w, 4);
  for (int i = 0; i < 4; i++) put_u(w, (uint64_t)i + 1);
  for (int i = 0; i < 4; i++) put_d(w, sq_xy[i][0]), put_d(w, sq_xy[i][1]), put_d(w, 0);
  put_s(w, "\n$EndNodes\n$Elements\n");
  put_u(w, 2), put_u(w, 3), put_u(w, 1), put_u(w, 3);
  put_i(w, 1), put_i(w, 1), put_i(w, 1), put_u(w, 1);
  put_u(w, 1), put_u(w, 1), put_u(w, 2);
  put_i(w, 2), put_i(w, 1), put_i(w, 2), put_u(w, 2);
  put_u(w, 2), put_u(w, 1), put_u(w, 2), put_u(w, 3), put_u(w, 3), put_u(w, 1), put_u(w, 3), put_u(w, 4);
  put_s(w, "\n$EndElements\n");
}

static void test_small(pds_ctx ctx) {
  pds_mesh a, b;
  mt_view  v;
  bin_buf  w;

  write_file(out("sq22.msh"), sq22, strlen(sq22));
  a = read_ok(ctx, out("sq22.msh"));
  v = mt_get(a);
  TEST_ASSERT(v.nn == 4 && v.nt == 2 && v.nb == 2 && v.btag[0] == 1 && v.btag[1] == 3);
  TEST_ASSERT(v.mark[0] == 1 && v.mark[1] == 1 && v.mark[2] == 3 && v.mark[3] == 3);
  for (int swap = 0; swap < 2; swap++) { /* the same mesh from binary files in both byte orders */
    bin22(&w, swap);
    write_file(out("sq22b.msh"), w.b, w.n);
    b = read_ok(ctx, out("sq22b.msh"));
    mt_assert_same(a, b, swap ? "swapped binary 2.2" : "binary 2.2");
    TEST_CALL(pds_mesh_destroy(&b));
  }
  TEST_CALL(pds_mesh_destroy(&a));

  write_file(out("sq41.msh"), sq41, strlen(sq41));
  a = read_ok(ctx, out("sq41.msh"));
  v = mt_get(a);
  TEST_ASSERT(v.nn == 4 && v.nt == 2 && v.nb == 1 && v.btag[0] == 5 && v.mark[0] == 5 && v.mark[2] == 0);
  for (int swap = 0; swap < 2; swap++) {
    bin41(&w, swap);
    write_file(out("sq41b.msh"), w.b, w.n);
    b = read_ok(ctx, out("sq41b.msh"));
    mt_assert_same(a, b, swap ? "swapped binary 4.1" : "binary 4.1");
    TEST_CALL(pds_mesh_destroy(&b));
    bin41(&w, swap); /* truncated in the element data */
    expect_fail_bytes(ctx, "sq41b_cut.msh", w.b, w.n - 30, PDS_ERR_FORMAT, "byte offset", "truncated",
                      (const char *)NULL);
  }
  TEST_CALL(pds_mesh_destroy(&a));

  /* clockwise triangles are flipped silently; an element repeated with the same nodes is kept once */
  {
    const char *t = subst(sq22, "4 2 2 0 1 1 2 3", "4 2 2 0 1 1 3 2\n4 2 2 7 1 1 3 2");
    char        fixed[4096];

    snprintf(fixed, sizeof fixed, "%s", subst(t, "$Elements\n6", "$Elements\n7"));
    write_file(out("cw.msh"), fixed, strlen(fixed));
  }
  a = read_ok(ctx, out("cw.msh"));
  v = mt_get(a);
  TEST_ASSERT(v.nt == 2);
  mt_check_topology_(a, 1, 0);
  TEST_CALL(pds_mesh_destroy(&a));

  /* partitioned MSH 4.1: the group of a line comes from its partitioned curve or that curve's parent */
  write_file(out("sq41p.msh"), sq41p, strlen(sq41p));
  a = read_ok(ctx, out("sq41p.msh"));
  v = mt_get(a);
  TEST_ASSERT(v.nt == 2 && v.nb == 1 && v.btag[0] == 5);
  mt_check_topology_(a, 1, 0);
  TEST_CALL(pds_mesh_destroy(&a));
  expect_fail(ctx, "sq41p_count.msh", subst(sq41p, "0 2 2 0\n", "0 2 3 0\n"), PDS_ERR_FORMAT, "line 17:",
              "$PartitionedEntities declares more entities than it holds");
  expect_fail(ctx, "sq41p_late.msh",
              subst(sq41p, "$EndElements\n", "$EndElements\n$PartitionedEntities\n1\n0\n0 0 0 0\n"
                                               "$EndPartitionedEntities\n"),
              PDS_ERR_FORMAT, "$PartitionedEntities comes after $Elements");

  /* malformed: each with its line */
  expect_fail(ctx, "empty.msh", "", PDS_ERR_FORMAT, "line 1:", "empty");
  expect_fail(ctx, "notmsh.msh", "hello world\n", PDS_ERR_FORMAT, "line 1:", "not a Gmsh");
  expect_fail(ctx, "v3.msh", subst(sq22, "2.2 0 8", "3.0 0 8"), PDS_ERR_UNSUPPORTED, "line 2:", "3.0 is not supported");
  expect_fail(ctx, "v40.msh", subst(sq22, "2.2 0 8", "4 0 8"), PDS_ERR_UNSUPPORTED, "save the mesh with gmsh");
  expect_fail(ctx, "dsize.msh", subst(sq22, "2.2 0 8", "2.2 0 4"), PDS_ERR_FORMAT, "line 2:", "data size 4");
  expect_fail(ctx, "ftype.msh", subst(sq22, "2.2 0 8", "2.2 2 8"), PDS_ERR_FORMAT, "line 2:", "file type");
  expect_fail(ctx, "nan.msh", subst(sq22, "2 1 0 0", "2 1 x 0"), PDS_ERR_FORMAT, "line 11:", "'x' is not a number");
  expect_fail(ctx, "inf.msh", subst(sq22, "2 1 0 0", "2 1 inf 0"), PDS_ERR_FORMAT, "line 11:", "not finite");
  expect_fail(ctx, "more.msh", subst(sq22, "$Nodes\n4", "$Nodes\n5"), PDS_ERR_FORMAT, "line 14:",
              "declares 5 nodes but holds 4");
  expect_fail(ctx, "fewer.msh", subst(sq22, "$Nodes\n4", "$Nodes\n3"), PDS_ERR_FORMAT, "line 13:",
              "expected '$EndNodes'");
  expect_fail(ctx, "eltmore.msh", subst(sq22, "$Elements\n6", "$Elements\n9"), PDS_ERR_FORMAT, "line 23:",
              "declares 9 elements but holds 6");
  expect_fail(ctx, "badtag.msh", subst(sq22, "4 2 2 0 1 1 2 3", "4 2 2 0 1 1 2 9"), PDS_ERR_FORMAT, "line 20:",
              "element 4 refers to node 9, which is not in $Nodes");
  expect_fail(ctx, "extra.msh", subst(sq22, "5 2 2 0 1 1 3 4", "5 2 2 0 1 1 3 4 2"), PDS_ERR_FORMAT, "line 21:",
              "unexpected '2'");
  expect_fail(ctx, "short.msh", subst(sq22, "5 2 2 0 1 1 3 4", "5 2 2 0 1 1 3"), PDS_ERR_FORMAT, "line");
  expect_fail(ctx, "type.msh", subst(sq22, "2 1 2 1 1 1 2", "2 77 2 1 1 1 2"), PDS_ERR_FORMAT, "line 18:",
              "unknown element type 77");
  expect_fail(ctx, "negtag.msh", subst(sq22, "3 1 1 0", "-3 1 1 0"), PDS_ERR_FORMAT, "line 12:", "out of range");
  expect_fail(ctx, "dupnode.msh", subst(sq22, "4 0 1 0", "3 0 1 0"), PDS_ERR_FORMAT, "node tag 3 is given twice");
  expect_fail(ctx, "trunc.msh", "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n4\n1 0 0 0\n2 1 0", PDS_ERR_FORMAT,
              "line 7:", "end of file");
  {
    char cut[4096];

    snprintf(cut, sizeof cut, "%.*s", (int)(strstr(sq22, "$EndElements") - sq22), sq22);
    expect_fail(ctx, "noend.msh", cut, PDS_ERR_FORMAT, "end of file", "$EndElements");
    snprintf(cut, sizeof cut, "%.*s", (int)(strstr(sq22, "$Elements") - sq22), sq22);
    expect_fail(ctx, "noelem.msh", cut, PDS_ERR_FORMAT, "no $Elements section");
    snprintf(cut, sizeof cut, "%.*s", (int)(strstr(sq22, "$EndPhysicalNames") - sq22), sq22);
    expect_fail(ctx, "noendsec.msh", cut, PDS_ERR_FORMAT, "line 4:", "$PhysicalNames is not closed");
  }
  expect_fail(ctx, "order.msh", "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Elements\n0\n$EndElements\n", PDS_ERR_FORMAT,
              "line 4:", "$Elements comes before $Nodes");
  expect_fail(ctx, "garbage.msh", subst(sq22, "$Nodes\n4", "junk\n$Nodes\n4"), PDS_ERR_FORMAT, "line 8:",
              "expected a section");
  expect_fail(ctx, "dupelt.msh", subst(sq22, "5 2 2 0 1 1 3 4", "4 2 2 0 1 1 3 4"), PDS_ERR_FORMAT,
              "element tag 4 is given to two different triangles");
  expect_fail(ctx, "degen.msh", subst(sq22, "3 1 1 0", "3 2 0 0"), PDS_ERR_FORMAT, "element 4", "degenerate");
  { /* a node of no triangle is dropped */
    const char *t = subst(subst(sq22, "$Nodes\n4", "$Nodes\n5"), "4 0 1 0", "4 0 1 0\n5 3 3 0");

    write_file(out("nodeoff.msh"), t, strlen(t));
    a = read_ok(ctx, out("nodeoff.msh"));
    TEST_ASSERT(mt_get(a).nn == 4);
    TEST_CALL(pds_mesh_destroy(&a));
  }
  {
    char t[4096];

    snprintf(t, sizeof t, "%s", subst(subst(sq22, "$Nodes\n4", "$Nodes\n5"), "4 0 1 0", "4 0 1 0\n5 3 3 0"));
    expect_fail(ctx, "lineoff.msh", subst(t, "6 1 2 0 2 2 3", "6 1 2 4 2 2 5"), PDS_ERR_FORMAT,
                "line (element 6) has node 5, which belongs to no triangle");
  }
  expect_fail(ctx, "noz.msh", subst(sq22, "3 1 1 0", "3 1 1 0.5"), PDS_ERR_UNSUPPORTED, "plane z = constant");
  expect_fail(ctx, "quad.msh", subst(sq22, "4 2 2 0 1 1 2 3", "4 3 2 0 1 1 2 3 4"), PDS_ERR_UNSUPPORTED, "line 20:",
              "quadrangle", "3-node triangles only");
  expect_fail(ctx, "tet.msh", subst(sq22, "4 2 2 0 1 1 2 3", "4 4 2 0 1 1 2 3 4"), PDS_ERR_UNSUPPORTED, "3D mesh",
              "tetrahedron");
  expect_fail(ctx, "notri.msh", subst(subst(sq22, "4 2 2 0 1 1 2 3\n", ""), "5 2 2 0 1 1 3 4\n", ""), PDS_ERR_FORMAT,
              "declares 6 elements but holds 4");
  {
    char t[4096];

    snprintf(t, sizeof t, "%s", subst(subst(sq22, "4 2 2 0 1 1 2 3\n", ""), "5 2 2 0 1 1 3 4\n", ""));
    expect_fail(ctx, "notri2.msh", subst(t, "$Elements\n6", "$Elements\n4"), PDS_ERR_UNSUPPORTED,
                "no triangles", "supports 2D triangle meshes");
  }
  /* MSH 4.1 */
  expect_fail(ctx, "b41.msh", subst(sq41, "2 3 1 3", "3 3 1 3"), PDS_ERR_FORMAT, "line 28:",
              "declares 3 element blocks but holds 2");
  expect_fail(ctx, "n41.msh", subst(sq41, "2 1 0 4", "2 1 0 5"), PDS_ERR_FORMAT, "line 11:", "more nodes than the 4");
  expect_fail(ctx, "n41b.msh", subst(sq41, "1 4 1 4", "1 5 1 5"), PDS_ERR_FORMAT, "line 19:",
              "the node blocks hold 4 nodes, the header declares 5");
  expect_fail(ctx, "e41.msh", subst(sq41, "2 1 2 2\n", "2 1 2 3\n"), PDS_ERR_FORMAT, "line 25:",
              "the element blocks hold more elements than the 3 declared");
  expect_fail(ctx, "e41b.msh", subst(subst(sq41, "2 1 2 2\n", "2 1 2 3\n"), "2 3 1 3", "2 4 1 4"), PDS_ERR_FORMAT,
              "line 28:", "an element block declares 3 elements but holds 2");
  expect_fail(ctx, "d41.msh", subst(sq41, "2 1 2 2\n", "1 1 2 2\n"), PDS_ERR_FORMAT, "line 25:",
              "block of dimension 1 holds elements of type 2");
  expect_fail(ctx, "t41.msh", subst(sq41, "3 1 3 4", "3 1 3 44"), PDS_ERR_FORMAT, "line 27:", "node 44");
  expect_fail(ctx, "ent41.msh", subst(sq41, "0 1 1 0", "0 2 1 0"), PDS_ERR_FORMAT, "line 8:",
              "more entities than it holds");
  {
    pds_mesh m = NULL;

    TEST_ASSERT_ERR(ctx, pds_mesh_read_gmsh(ctx, out("no/such/file.msh"), &m), PDS_ERR_IO, "cannot open");
    TEST_ASSERT_ERR(ctx, pds_mesh_read_gmsh(ctx, NULL, &m), PDS_ERR_ARG, "path is NULL");
    TEST_ASSERT(m == NULL);
  }
}

static void test_writer(pds_ctx ctx) {
  pds_mesh m;

  TEST_CALL(pds_mesh_generate(ctx, "hole", 452, 9, &m));
  roundtrip(ctx, m, "hole_roundtrip.msh");
  TEST_CALL(pds_mesh_reorder_rcm(m));
  roundtrip(ctx, m, "hole_rcm_roundtrip.msh");
  TEST_ASSERT_ERR(ctx, pds_mesh_write_gmsh(m, out("no/such/dir/x.msh")), PDS_ERR_IO, "cannot open");
  TEST_ASSERT_ERR(ctx, pds_mesh_write_gmsh(m, NULL), PDS_ERR_ARG, "path is NULL");
  TEST_CALL(pds_mesh_destroy(&m));
}

int main(int argc, char **argv) {
  pds_ctx ctx = test_init(argc, argv);

  test_small(ctx);
  test_shared(ctx);
  test_gmsh_program(ctx);
  test_writer(ctx);
  test_finalize(&ctx);
  return 0;
}
