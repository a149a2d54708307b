/* src/backend/cuda/cuda_stencil7.c: /gpu/cuda's stencil7 group (src/mat/mat_kernels.h): the product over all grids of
 * a matrix (kernels in cuda_stencil7.cu, which says why the layout is point-major). */
#include "cuda_impl.h"

static int s7_spmv_cuda(pds_ctx ctx, const struct pds_stencil7 *g, int nb, pds_real alpha, const pds_real *x,
                        pds_real beta, pds_real *y) {
  /* np, the points, is read by the entry-major layout only */
  LAUNCH(ctx, pds_cuda_s7_spmv(s_, PDS_CUDA_S7_POINT_MAJOR, g, nb, 0, g[0].n, alpha, g[0].vals, x, beta, y));
}

void pds_cuda_fill_stencil7(struct pds_stencil7_kernels *g) { g->spmv = s7_spmv_cuda; }
