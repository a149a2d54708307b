/* src/precond/pbjacobi.c: point-block Jacobi, y_b = D_b^-1 x_b with the bs x bs diagonal blocks D_b inverted by
 * Gauss-Jordan elimination with partial pivoting at setup; a singular block is PDS_ERR_ZERO_PIVOT naming it. The blocks
 * of a bsr matrix of the same block size are gathered on the backend, any other operator's on the host. */
#include "precond_impl.h"

struct pbjacobi {
  int       bs;
  pds_size  nb;
  pds_real *inv; /* [nb][bs][bs] row-major, backend memory */
};

static int pbjacobi_setup(pds_precond pc) {
  struct pbjacobi *P   = pc->data;
  pds_ctx          ctx = pc->hdr.ctx;
  pds_real        *h   = NULL;
  pds_size         bad;
  int              bs  = pc->bs ? pc->bs : pc->A->bs, ierr;
  size_t           bytes;

  PDS_CHECK(pc->A->nrows % bs == 0, ctx, PDS_ERR_SIZE, "pbjacobi: block size %d does not divide the %" PDS_INT_FMT
            " rows; set another with -bs / pds_precond_set_block_size", bs, pc->A->nrows);
  PDS_KERNEL(ctx, blocks.invert);
  PDS_KERNEL(ctx, blocks.apply);
  P->nb = pc->A->nrows / bs;
  bytes = (size_t)P->nb * bs * bs * sizeof(pds_real);
  if (P->inv && P->bs != bs) PDS_CALL(pds_free(ctx, PDS_MEM_DEVICE, &P->inv));
  P->bs = bs;
  if (!P->inv) PDS_CALL(pds_malloc(ctx, PDS_MEM_DEVICE, bytes, &P->inv));
  if (!strcmp(pc->A->type, "bsr") && pc->A->bs == bs && pc->A->nrows == pc->A->ncols) {
    /* a bsr matrix of this block size: its diagonal blocks gathered on the backend (no host copy of the values,
       which a matrix computed on the device, a Jacobian, does not have) */
    PDS_KERNEL(ctx, bsr.diag_blocks);
    PDS_CALL(ctx->k->bsr.diag_blocks(ctx, &((const struct pds_mat_bsr *)pc->A->data)->d, P->inv));
  } else { /* gather the blocks on the host, move them to the backend */
    PDS_CALL(pds_malloc(ctx, PDS_MEM_HOST, bytes, &h));
    PDS_CALL_GOTO(ierr, done, pds_mat_get_block_diagonal(pc->A, bs, h));
    PDS_CALL_GOTO(ierr, done, pds_memcpy(ctx, P->inv, PDS_MEM_DEVICE, h, PDS_MEM_HOST, bytes));
  }
  PDS_CALL_GOTO(ierr, done, ctx->k->blocks.invert(ctx, P->nb, bs, P->inv, &bad));
  if (bad >= 0)
    ierr = PDS_ERROR(ctx, PDS_ERR_ZERO_PIVOT, "pbjacobi: diagonal block %" PDS_SIZE_FMT " (rows %" PDS_SIZE_FMT "..%"
                     PDS_SIZE_FMT ") of size %d is singular", bad, bad * bs, bad * bs + bs - 1, bs);
done:
  pds_free(ctx, PDS_MEM_HOST, &h);
  return ierr;
}

static int pbjacobi_apply(pds_precond pc, pds_vec x, pds_vec y) {
  struct pbjacobi *P   = pc->data;
  pds_ctx          ctx = pc->hdr.ctx;
  const pds_real  *xa;
  pds_real        *ya;

  PDS_CALL(pds_vec_dev_read(x, &xa));
  PDS_CALL(pds_vec_dev_write(y, &ya));
  return ctx->k->blocks.apply(ctx, P->nb, P->bs, P->inv, xa, ya); /* y_b = D_b^-1 x_b */
}

static int pbjacobi_view(pds_precond pc, FILE *f) {
  struct pbjacobi *P = pc->data;

  fprintf(f, "  block size %d, %" PDS_SIZE_FMT " blocks (Gauss-Jordan inverses)\n", P->bs ? P->bs : pc->bs, P->nb);
  return PDS_OK;
}

static int pbjacobi_destroy(pds_precond pc) {
  struct pbjacobi *P = pc->data;

  if (P) pds_free(pc->hdr.ctx, PDS_MEM_DEVICE, &P->inv);
  return pds_free(pc->hdr.ctx, PDS_MEM_HOST, &pc->data);
}

int pds_precond_create_pbjacobi(pds_precond pc) {
  struct pbjacobi *P;

  PDS_CALL(PDS_NEW(pc->hdr.ctx, 1, &P));
  pc->data        = P;
  pc->ops.setup   = pbjacobi_setup;
  pc->ops.apply   = pbjacobi_apply;
  pc->ops.view    = pbjacobi_view;
  pc->ops.destroy = pbjacobi_destroy;
  pc->distributed = 1; /* the rank's diagonal blocks */
  return PDS_OK;
}
