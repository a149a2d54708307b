/* src/backend/omp/omp_blocks.c: /cpu/omp's dense-block group (src/precond/precond_kernels.h): ref's Gauss-Jordan per
 * block and the block products, blocks split statically over the threads. */
#include <omp.h>

#include "../kernel_bodies.h"
#include "omp_impl.h"

/* Invert nb blocks in place (pds_block_invert, ref's Gauss-Jordan): 16 bs^2 bytes, ~2 bs^3 flops per block.
   *bad = the smallest index of a singular block, as in ref (ref stops there; here the other blocks are
   inverted anyway, so after a failure the array differs from ref's beyond the bad block). */
static int blocks_invert_omp(pds_ctx ctx, pds_size nb, int bs, pds_real *blocks, pds_size *bad) {
  pds_size first = nb;
  int      nomem = 0;

#pragma omp parallel for schedule(static) reduction(min : first) reduction(| : nomem) if (nb * bs * bs >= 4096)
  for (pds_size b = 0; b < nb; b++) {
    int r = pds_block_invert(bs, blocks + b * bs * bs);

    if (r == -2) nomem = 1;
    else if (r && b < first) first = b;
  }
  if (nomem) return PDS_ERROR(ctx, PDS_ERR_MEM, "no memory for the pivots of a %d x %d block", bs, bs);
  *bad = first < nb ? first : -1;
  return PDS_OK;
}

/* y_b = inv_b x_b: 8 bs^2 + 16 bs bytes, 2 bs^2 flops per block */
static int blocks_apply_omp(pds_ctx ctx, pds_size nb, int bs, const pds_real *inv, const pds_real *x, pds_real *y) {
  (void)ctx;
  if (nb * bs * bs < OMP_MIN_WORK) {
    blocks_apply_range(bs, inv, x, y, 0, nb);
    return PDS_OK;
  }
#pragma omp parallel
  {
    pds_size b0, b1;

    static_range(nb, omp_get_thread_num(), omp_get_num_threads(), &b0, &b1);
    blocks_apply_range(bs, inv, x, y, b0, b1);
  }
  return PDS_OK;
}

void pds_omp_fill_blocks(struct pds_block_kernels *g) {
  g->invert = blocks_invert_omp;
  g->apply  = blocks_apply_omp;
}
