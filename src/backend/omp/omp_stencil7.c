/* src/backend/omp/omp_stencil7.c: /cpu/omp's stencil7 group (src/mat/mat_kernels.h), each point with
 * stencil7_bodies.h's arithmetic (ref's bits): a large grid's points split statically over the threads; the grids
 * smaller than OMP_MIN_N points (the blocks of a multi-block matrix) shared out whole, one grid per thread at a
 * time. */
#include <omp.h>

#include "../stencil7_bodies.h"
#include "omp_impl.h"

static int stencil7_spmv_omp(pds_ctx ctx, const struct pds_stencil7 *g, int nb, pds_real alpha, const pds_real *x,
                             pds_real beta, pds_real *y) {
  (void)ctx;
#pragma omp parallel for schedule(dynamic, 1) if (nb > 1)
  for (int b = 0; b < nb; b++)
    if (s7_points(&g[b]) < OMP_MIN_N) s7_spmv_natural(&g[b], alpha, x, beta, y);
  for (int b = 0; b < nb; b++) {
    const struct pds_stencil7 *A  = &g[b];
    const pds_size             np = s7_points(A);

    if (np < OMP_MIN_N) continue;
    OMP_PARTS(np, p0, p1, for (pds_size p = p0; p < p1; p++) {
      const pds_int k = (pds_int)(p % A->K), j = (pds_int)(p / A->K % A->J), i = (pds_int)(p / A->K / A->J);

      s7_spmv_point(A, A->first + p, i, j, k, alpha, x, beta, y);
    });
  }
  return PDS_OK;
}

void pds_omp_fill_stencil7(struct pds_stencil7_kernels *g) { g->spmv = stencil7_spmv_omp; }
