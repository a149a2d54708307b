/* tests/mesh/mesh3d_test.h: helpers shared by the 3D mesh tests (t904, t906): a view of a mesh's arrays and the
 * bitwise comparison of two meshes. */
#ifndef PDS_MESH3D_TEST_H
#define PDS_MESH3D_TEST_H

#include "test.h"

typedef struct {
  pds_int              nn, nc, nb;
  const pds_real      *xyz;
  const unsigned char *ct, *bt;
  const pds_size      *cp, *bp;
  const pds_int       *cn, *ctag, *bn, *btag;
} view;

static inline view get(pds_mesh3d m) {
  view v;

  TEST_CALL(pds_mesh3d_get_sizes(m, &v.nn, &v.nc, &v.nb));
  TEST_CALL(pds_mesh3d_get_arrays(m, &v.xyz, &v.ct, &v.cp, &v.cn, &v.ctag, &v.bt, &v.bp, &v.bn, &v.btag));
  return v;
}

static inline void assert_same(pds_mesh3d a, pds_mesh3d b, const char *what) {
  view x = get(a), y = get(b);

  if (x.nn != y.nn || x.nc != y.nc || x.nb != y.nb)
    TEST_FAIL("%s: sizes differ (%d %d %d vs %d %d %d)", what, x.nn, x.nc, x.nb, y.nn, y.nc, y.nb);
  if (memcmp(x.xyz, y.xyz, sizeof *x.xyz * 3 * (size_t)x.nn)) TEST_FAIL("%s: coordinates differ", what);
  if (memcmp(x.ct, y.ct, (size_t)x.nc) || memcmp(x.cp, y.cp, sizeof *x.cp * ((size_t)x.nc + 1)) ||
      memcmp(x.cn, y.cn, sizeof *x.cn * (size_t)x.cp[x.nc]) || memcmp(x.ctag, y.ctag, sizeof *x.ctag * (size_t)x.nc))
    TEST_FAIL("%s: cells differ", what);
  if (memcmp(x.bt, y.bt, (size_t)x.nb) || memcmp(x.bp, y.bp, sizeof *x.bp * ((size_t)x.nb + 1)) ||
      memcmp(x.bn, y.bn, sizeof *x.bn * (size_t)x.bp[x.nb]) || memcmp(x.btag, y.btag, sizeof *x.btag * (size_t)x.nb))
    TEST_FAIL("%s: boundary faces differ", what);
}

#endif
