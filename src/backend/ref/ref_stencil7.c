/* src/backend/ref/ref_stencil7.c: /cpu/ref's stencil7 group (src/mat/mat_kernels.h): the product grid by grid,
 * point by point in natural order (stencil7_bodies.h). */
#include "../stencil7_bodies.h"
#include "ref_impl.h"

static int stencil7_spmv_ref(pds_ctx ctx, const struct pds_stencil7 *g, int nb, pds_real alpha, const pds_real *x,
                             pds_real beta, pds_real *y) {
  (void)ctx;
  for (int b = 0; b < nb; b++) s7_spmv_natural(&g[b], alpha, x, beta, y);
  return PDS_OK;
}

void pds_ref_fill_stencil7(struct pds_stencil7_kernels *g) { g->spmv = stencil7_spmv_ref; }
