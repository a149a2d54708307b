/* src/backend/ref/ref_blocks.c: /cpu/ref's dense-block group (src/precond/precond_kernels.h) and the
 * Gauss-Jordan inversion of one block that every backend's point-block Jacobi shares (pds_block_invert). */
#include <math.h>
#include <stdlib.h>

#include "../kernel_bodies.h"
#include "ref_impl.h"

/* Gauss-Jordan with partial pivoting, in place: a becomes a^-1 (row-major bs x bs). */
int pds_block_invert(int bs, pds_real *a) {
  int      piv[64], *p = piv;
  int      ierr = 0;

  if (bs > 64 && !(p = malloc((size_t)bs * sizeof *p))) return -2;
  for (int k = 0; k < bs; k++) {
    int      r    = k;
    pds_real amax = fabs(a[k * bs + k]), inv;

    for (int i = k + 1; i < bs; i++)
      if (fabs(a[i * bs + k]) > amax) amax = fabs(a[i * bs + k]), r = i;
    if (!(amax > 0) || !isfinite(amax)) {
      ierr = -1;
      break;
    }
    p[k] = r;
    if (r != k)
      for (int j = 0; j < bs; j++) {
        pds_real t = a[k * bs + j];

        a[k * bs + j] = a[r * bs + j];
        a[r * bs + j] = t;
      }
    /* scale pivot row; the pivot column becomes the column of the inverse */
    inv            = 1.0 / a[k * bs + k];
    a[k * bs + k]  = 1.0;
    for (int j = 0; j < bs; j++) a[k * bs + j] *= inv;
    for (int i = 0; i < bs; i++) {
      pds_real f;

      if (i == k) continue;
      f             = a[i * bs + k];
      a[i * bs + k] = 0.0;
      for (int j = 0; j < bs; j++) a[i * bs + j] -= f * a[k * bs + j];
    }
  }
  /* undo the row interchanges as column interchanges, last first */
  if (!ierr)
    for (int k = bs - 1; k >= 0; k--)
      if (p[k] != k)
        for (int i = 0; i < bs; i++) {
          pds_real t = a[i * bs + k];

          a[i * bs + k]    = a[i * bs + p[k]];
          a[i * bs + p[k]] = t;
        }
  if (p != piv) free(p);
  return ierr;
}

static int blocks_invert_ref(pds_ctx ctx, pds_size nb, int bs, pds_real *blocks, pds_size *bad) {
  *bad = -1;
  for (pds_size b = 0; b < nb; b++) {
    int r = pds_block_invert(bs, blocks + b * bs * bs);

    if (r == -2) return PDS_ERROR(ctx, PDS_ERR_MEM, "no memory for the pivots of a %d x %d block", bs, bs);
    if (r) {
      *bad = b;
      break;
    }
  }
  return PDS_OK;
}

static int blocks_apply_ref(pds_ctx ctx, pds_size nb, int bs, const pds_real *inv, const pds_real *x, pds_real *y) {
  (void)ctx;
  blocks_apply_range(bs, inv, x, y, 0, nb);
  return PDS_OK;
}

void pds_ref_fill_blocks(struct pds_block_kernels *g) {
  g->invert = blocks_invert_ref;
  g->apply  = blocks_apply_ref;
}
