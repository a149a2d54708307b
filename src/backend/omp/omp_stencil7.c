/* src/backend/omp/omp_stencil7.c: /cpu/omp's stencil7 group (src/mat/mat_kernels.h): the points split statically
 * over the threads, each with stencil7_bodies.h's arithmetic (ref's bits). */
#include <omp.h>

#include "../stencil7_bodies.h"
#include "omp_impl.h"

static int stencil7_spmv_omp(pds_ctx ctx, const struct pds_stencil7 *A, pds_real alpha, const pds_real *x,
                             pds_real beta, pds_real *y) {
  const pds_size np = (pds_size)A->I * A->J * A->K;

  (void)ctx;
  OMP_PARTS(np, p0, p1, for (pds_size p = p0; p < p1; p++) {
    const pds_int k = (pds_int)(p % A->K), j = (pds_int)(p / A->K % A->J), i = (pds_int)(p / A->K / A->J);

    s7_spmv_point(A, p, i, j, k, alpha, x, beta, y);
  });
  return PDS_OK;
}

void pds_omp_fill_stencil7(struct pds_stencil7_kernels *g) { g->spmv = stencil7_spmv_omp; }
