/* src/backend/ref/ref_fem2d.c: /cpu/ref's P1 assembly group (src/disc/disc_kernels.h): the functions of
 * fem2d_kernels.h over all triangles, then all rows. */
#include "../fem2d_kernels.h"
#include "ref_impl.h"

/* P1 assembly: the functions of fem2d_kernels.h over all triangles, then all rows */
static int fem2d_element_ref(pds_ctx ctx, const struct pds_fem2d_maps *m, const pds_real *xy, pds_real k,
                             const pds_real *kv, pds_real f, const pds_real *fm, pds_real *Ke, pds_real *fe,
                             pds_int *bad) {
  (void)ctx;
  *bad = -1;
  for (pds_int e = 0; e < m->ntri; e++)
    if (fem2d_element(e, m->tri, xy, k, kv, f, fm, Ke, fe) && *bad < 0) *bad = e;
  return PDS_OK;
}

static int fem2d_gather_ref(pds_ctx ctx, const struct pds_fem2d_maps *m, const pds_real *Ke, const pds_real *fe,
                            const unsigned char *isd, const pds_real *g, pds_real gc, int symmetric, pds_real *vals,
                            pds_real *b) {
  (void)ctx;
  for (pds_int i = 0; i < m->n; i++)
    fem2d_gather_row(i, m->rowptr, m->colidx, m->gptr, m->gidx, Ke, m->nptr, m->nidx, fe, isd, g, gc, symmetric,
                     vals, b);
  return PDS_OK;
}

void pds_ref_fill_fem2d(struct pds_fem2d_kernels *g) {
  g->element = fem2d_element_ref;
  g->gather  = fem2d_gather_ref;
}
