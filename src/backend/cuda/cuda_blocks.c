/* src/backend/cuda/cuda_blocks.c: /gpu/cuda's dense-block group (src/precond/precond_kernels.h): point-block Jacobi's
 * inversion and block products (kernels in cuda_bsr.cu). */
#include "cuda_impl.h"

static int blocks_invert_cuda(pds_ctx ctx, pds_size nb, int bs, pds_real *blocks, pds_size *bad) {
  struct cuda_be    *be  = pds_cuda_enter(ctx);
  int               *piv = NULL;
  unsigned long long b = 0;
  int                ierr = PDS_OK;
  cudaError_t        e;

  if (bs > 8) PDS_CALL(pds_cuda_dev_alloc(ctx, be, (size_t)(nb > 0 ? nb : 1) * bs * sizeof *piv, (void **)&piv));
  e = pds_cuda_blocks_invert(be->stream, nb, bs, blocks, piv, be->dstat);
  if (e != cudaSuccess) ierr = pds_cuda_error(ctx, __FILE__, __LINE__, __func__, e, "pds_cuda_blocks_invert");
  if (!ierr) ierr = pds_cuda_fetch_stats(ctx, be, 1, &b);
  pds_cuda_raw_free(be, piv);
  if (!ierr) *bad = b < (unsigned long long)nb ? (pds_size)b : -1;
  return ierr;
}

static int blocks_apply_cuda(pds_ctx ctx, pds_size nb, int bs, const pds_real *inv, const pds_real *x, pds_real *y) {
  LAUNCH(ctx, pds_cuda_blocks_apply(s_, nb, bs, inv, x, y));
}

void pds_cuda_fill_blocks(struct pds_block_kernels *g) {
  g->invert = blocks_invert_cuda;
  g->apply  = blocks_apply_cuda;
}
