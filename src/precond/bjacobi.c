/* src/precond/bjacobi.c: block Jacobi over the ranks: M = diag(A_00, A_11, ...), each rank's block A_rr (the diagonal
 * block of a distributed matrix, its own rows and columns) handled by a local preconditioner of the library ("sub":
 * ilu0 by default, or jacobi, pbjacobi, none, shell, ...). No communication in an application: the sub-preconditioner
 * sees the rank's rows as ordinary vectors (local views of the distributed ones), so even a sub-preconditioner that
 * reduces (a norm) stays on its rank. On a matrix that is not distributed the block is the whole matrix. */
#include <stdlib.h>

#include "precond_impl.h"

struct bjacobi {
  pds_precond sub;
};

static int bjacobi_setup(pds_precond pc) {
  struct bjacobi *B = pc->data;
  pds_mat         Ad = pc->A;

  if (pc->A->dist) PDS_CALL(pds_mat_dist_get_local(pc->A, &Ad, NULL));
  if (B->sub->A != Ad) PDS_CALL(pds_precond_set_operator(B->sub, Ad));
  PDS_CALL(pds_precond_setup(B->sub));
  pc->host_sync = B->sub->host_sync; /* a device loop records it when it records the sub-preconditioner */
  return PDS_OK;
}

/* y = A_rr^-1 x on this rank's rows, through views of x's and y's arrays as vectors of one rank */
static int bjacobi_apply(pds_precond pc, pds_vec x, pds_vec y) {
  struct bjacobi *B   = pc->data;
  pds_ctx         ctx = pc->hdr.ctx;
  const pds_memtype mt = ctx->k->mem_alloc ? PDS_MEM_DEVICE : PDS_MEM_HOST; /* the backend's arrays */
  const pds_real *xa, *yr;
  pds_real       *ya;
  pds_vec         xl = NULL, yl = NULL;
  int             ierr;

  if (!x->dist) return pds_precond_apply(B->sub, x, y);
  PDS_CALL(pds_vec_dev_read(x, &xa));
  PDS_CALL(pds_vec_dev_write(y, &ya));
  ierr = pds_vec_create_with_array(ctx, x->n, mt, (pds_real *)xa, &xl);
  if (!ierr) ierr = pds_vec_create_with_array(ctx, y->n, mt, ya, &yl);
  if (!ierr) ierr = pds_precond_apply(B->sub, xl, yl);
  if (!ierr) ierr = pds_vec_dev_read(yl, &yr); /* a result the sub left on the host goes to y's array */
  pds_vec_destroy(&xl);
  pds_vec_destroy(&yl);
  return ierr;
}

static int bjacobi_view(pds_precond pc, FILE *f) {
  struct bjacobi *B = pc->data;

  fprintf(f, "  block Jacobi over %d rank%s, each rank's diagonal block by a local preconditioner:\n",
          pc->hdr.ctx->size, pc->hdr.ctx->size == 1 ? "" : "s");
  return pds_precond_view(B->sub, f);
}

static int bjacobi_destroy(pds_precond pc) {
  struct bjacobi *B = pc->data;

  if (B) pds_precond_destroy(&B->sub);
  return pds_free(pc->hdr.ctx, PDS_MEM_HOST, &pc->data);
}

int pds_precond_bjacobi_set_sub_type(pds_precond pc, const char *type) {
  struct bjacobi *B;
  pds_precond     sub;

  PDS_CALL(pds_precond_data(pc, "bjacobi", (void **)&B));
  PDS_CHECK(type && strcmp(type, "bjacobi"), pc->hdr.ctx, PDS_ERR_ARG, "bjacobi: the local preconditioner must be "
            "another type (ilu0, jacobi, pbjacobi, none, ...), not %s", type ? type : "(null)");
  PDS_CALL(pds_precond_create(pc->hdr.ctx, type, &sub));
  pds_precond_destroy(&B->sub);
  B->sub         = sub;
  pc->setup_done = 0;
  return PDS_OK;
}

int pds_precond_bjacobi_get_sub(pds_precond pc, pds_precond *sub) {
  struct bjacobi *B;

  PDS_CALL(pds_precond_data(pc, "bjacobi", (void **)&B));
  PDS_CHECK(sub, pc->hdr.ctx, PDS_ERR_ARG, "result pointer is NULL");
  *sub = B->sub;
  return PDS_OK;
}

int pds_precond_create_bjacobi(pds_precond pc) {
  struct bjacobi *B;

  PDS_CALL(PDS_NEW(pc->hdr.ctx, 1, &B));
  pc->data        = B;
  pc->ops.setup   = bjacobi_setup;
  pc->ops.apply   = bjacobi_apply;
  pc->ops.view    = bjacobi_view;
  pc->ops.destroy = bjacobi_destroy;
  return pds_precond_create(pc->hdr.ctx, "ilu0", &B->sub);
}
