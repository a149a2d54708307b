/* src/backend/ref/ref_stencil7.c: /cpu/ref's stencil7 group (src/mat/mat_kernels.h): the product point by point in
 * natural order (stencil7_bodies.h). */
#include "../stencil7_bodies.h"
#include "ref_impl.h"

static int stencil7_spmv_ref(pds_ctx ctx, const struct pds_stencil7 *A, pds_real alpha, const pds_real *x,
                             pds_real beta, pds_real *y) {
  pds_size p = 0;

  (void)ctx;
  for (pds_int i = 0; i < A->I; i++)
    for (pds_int j = 0; j < A->J; j++)
      for (pds_int k = 0; k < A->K; k++, p++) s7_spmv_point(A, p, i, j, k, alpha, x, beta, y);
  return PDS_OK;
}

void pds_ref_fill_stencil7(struct pds_stencil7_kernels *g) { g->spmv = stencil7_spmv_ref; }
