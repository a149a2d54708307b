/* src/backend/omp/omp_fem2d.c: /cpu/omp's P1 assembly group (src/disc/disc_kernels.h). */
#include <omp.h>

#include "../fem2d_kernels.h"
#include "omp_impl.h"

/* P1 assembly: ref's functions over static thread ranges of triangles and rows (every value has one writer and
   ref's arithmetic, so the bits are ref's); the first bad triangle is the minimum over the threads. */
static int fem2d_element_omp(pds_ctx ctx, const struct pds_fem2d_maps *m, const pds_real *xy, pds_real k,
                             const pds_real *kv, pds_real f, const pds_real *fm, pds_real *Ke, pds_real *fe,
                             pds_int *bad) {
  pds_int first = PDS_INT_MAX;

  (void)ctx;
#pragma omp parallel for schedule(static) reduction(min : first) if (m->ntri >= OMP_MIN_WORK)
  for (pds_int e = 0; e < m->ntri; e++)
    if (fem2d_element(e, m->tri, xy, k, kv, f, fm, Ke, fe) && e < first) first = e;
  *bad = first == PDS_INT_MAX ? -1 : first;
  return PDS_OK;
}

static int fem2d_gather_omp(pds_ctx ctx, const struct pds_fem2d_maps *m, const pds_real *Ke, const pds_real *fe,
                            const unsigned char *isd, const pds_real *g, pds_real gc, int symmetric, pds_real *vals,
                            pds_real *b) {
  (void)ctx;
#pragma omp parallel for schedule(static) if (m->n >= OMP_MIN_WORK)
  for (pds_int i = 0; i < m->n; i++)
    fem2d_gather_row(i, m->rowptr, m->colidx, m->gptr, m->gidx, Ke, m->nptr, m->nidx, fe, isd, g, gc, symmetric,
                     vals, b);
  return PDS_OK;
}

void pds_omp_fill_fem2d(struct pds_fem2d_kernels *g) {
  g->element = fem2d_element_omp;
  g->gather  = fem2d_gather_omp;
}
