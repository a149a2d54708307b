/* tests/mesh/mesh_test.h: checks shared by the mesh tests: orientation, Euler characteristic, boundary edges against
 * the boundary list and the node markers, bandwidth, bitwise equality of two meshes. */
#ifndef PDS_MESH_TEST_H
#define PDS_MESH_TEST_H

#include <stdint.h>

#include "test.h"

typedef struct {
  pds_int         nn, nt, nb;
  const pds_real *xy;
  const pds_int  *tri, *bedge, *btag, *mark;
} mt_view;

static inline mt_view mt_get(pds_mesh m) {
  mt_view v;

  TEST_CALL(pds_mesh_get_sizes(m, &v.nn, &v.nt, &v.nb));
  TEST_CALL(pds_mesh_get_arrays(m, &v.xy, &v.tri, &v.bedge, &v.btag, &v.mark));
  return v;
}

static int mt_u64_cmp(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

  return x < y ? -1 : x > y;
}

static inline uint64_t mt_edge_key(pds_int a, pds_int b) {
  return a < b ? (uint64_t)a << 32 | (uint32_t)b : (uint64_t)b << 32 | (uint32_t)a;
}

/* Checks every triangle is counter-clockwise with positive area, V - E + F == euler, every edge has one or two
   triangles, the edges with one triangle are the boundary list (all of them if complete, else a superset of it),
   and a node's marker is the smallest tag of the boundary edges at it (0 for the others). Returns the number of
   edges. */
static inline long mt_check_topology_(pds_mesh m, long euler, int complete) {
  mt_view   v = mt_get(m);
  uint64_t *e = malloc(sizeof *e * 3 * (size_t)v.nt), *be = malloc(sizeof *be * ((size_t)v.nb + 1));
  pds_int  *mk = calloc((size_t)v.nn, sizeof *mk);
  long      ne = 0, nfree = 0;

  TEST_ASSERT(e && be && mk);
  for (pds_int t = 0; t < v.nt; t++) {
    const pds_int *c = v.tri + 3 * t;
    const double  *a = v.xy + 2 * c[0], *b = v.xy + 2 * c[1], *d = v.xy + 2 * c[2];
    double         det = (b[0] - a[0]) * (d[1] - a[1]) - (b[1] - a[1]) * (d[0] - a[0]);

    if (!(det > 0)) TEST_FAIL("triangle %d (%d %d %d) has signed area %g", t, c[0], c[1], c[2], det / 2);
    for (int k = 0; k < 3; k++) e[3 * t + k] = mt_edge_key(c[k], c[(k + 1) % 3]);
  }
  qsort(e, 3 * (size_t)v.nt, sizeof *e, mt_u64_cmp);
  for (pds_int k = 0; k < v.nb; k++) {
    be[k] = mt_edge_key(v.bedge[2 * k], v.bedge[2 * k + 1]);
    for (int c = 0; c < 2; c++) {
      pds_int *x = &mk[v.bedge[2 * k + c]];

      if (!*x || v.btag[k] < *x) *x = v.btag[k];
    }
  }
  qsort(be, (size_t)v.nb, sizeof *be, mt_u64_cmp);
  for (size_t i = 0; i < 3 * (size_t)v.nt;) {
    size_t j = i;

    while (j < 3 * (size_t)v.nt && e[j] == e[i]) j++;
    if (j - i > 2) TEST_FAIL("edge (%d, %d) has %zu triangles", (int)(e[i] >> 32), (int)(uint32_t)e[i], j - i);
    if (j - i == 1) {
      if (complete && !bsearch(&e[i], be, (size_t)v.nb, sizeof *be, mt_u64_cmp))
        TEST_FAIL("edge (%d, %d) has one triangle but is not a boundary edge", (int)(e[i] >> 32), (int)(uint32_t)e[i]);
      nfree += complete || bsearch(&e[i], be, (size_t)v.nb, sizeof *be, mt_u64_cmp) != NULL;
    }
    ne++;
    i = j;
  }
  if (nfree != v.nb) TEST_FAIL("%ld edges with one triangle, %d boundary edges", nfree, v.nb);
  if (v.nn - ne + v.nt != euler) TEST_FAIL("V - E + F = %ld, expected %ld", v.nn - ne + v.nt, euler);
  for (pds_int i = 0; i < v.nn; i++)
    if (mk[i] != v.mark[i]) TEST_FAIL("node %d: marker %d, expected %d", i, v.mark[i], mk[i]);
  free(e), free(be), free(mk);
  return ne;
}
#define mt_check_topology(m, euler) mt_check_topology_((m), (euler), 1)

/* max |i - j| over the edges of the triangles */
static inline long mt_bandwidth(pds_mesh m) {
  mt_view v  = mt_get(m);
  long    bw = 0;

  for (pds_int t = 0; t < v.nt; t++)
    for (int k = 0; k < 3; k++) {
      long d = labs((long)v.tri[3 * t + k] - v.tri[3 * t + (k + 1) % 3]);

      if (d > bw) bw = d;
    }
  return bw;
}

/* the two meshes have bitwise the same arrays */
static inline void mt_assert_same(pds_mesh a, pds_mesh b, const char *what) {
  mt_view x = mt_get(a), y = mt_get(b);

  if (x.nn != y.nn || x.nt != y.nt || x.nb != y.nb)
    TEST_FAIL("%s: sizes differ (%d %d %d vs %d %d %d)", what, x.nn, x.nt, x.nb, y.nn, y.nt, y.nb);
  if (memcmp(x.xy, y.xy, sizeof *x.xy * 2 * (size_t)x.nn)) TEST_FAIL("%s: coordinates differ", what);
  if (memcmp(x.tri, y.tri, sizeof *x.tri * 3 * (size_t)x.nt)) TEST_FAIL("%s: triangles differ", what);
  if (memcmp(x.bedge, y.bedge, sizeof *x.bedge * 2 * (size_t)x.nb)) TEST_FAIL("%s: boundary edges differ", what);
  if (memcmp(x.btag, y.btag, sizeof *x.btag * (size_t)x.nb)) TEST_FAIL("%s: boundary tags differ", what);
  if (memcmp(x.mark, y.mark, sizeof *x.mark * (size_t)x.nn)) TEST_FAIL("%s: node markers differ", what);
}

#endif
