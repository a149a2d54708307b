/* src/mat/shell.c: matrix-free operator: y = A x computed by a user callback. */
#include <stdlib.h>

#include "mat_impl.h"

struct mat_shell {
  void           *user;
  pds_shell_apply fn;
  pds_vec         work; /* A x when beta != 0 or alpha != 1 */
};

#define SHELL(A) ((struct mat_shell *)(A)->data)

static int shell_apply(pds_mat A, pds_real alpha, pds_vec x, pds_real beta, pds_vec y) {
  struct mat_shell *s = SHELL(A);
  int               ierr;

  if (alpha == 1 && beta == 0) {
    ierr = s->fn(s->user, x, y);
    PDS_CHECK(!ierr, A->hdr.ctx, ierr < 0 ? ierr : PDS_ERR_ARG, "shell matrix callback returned %d", ierr);
    return PDS_OK;
  }
  if (!s->work) PDS_CALL(pds_vec_create(A->hdr.ctx, A->nrows, &s->work));
  ierr = s->fn(s->user, x, s->work);
  PDS_CHECK(!ierr, A->hdr.ctx, ierr < 0 ? ierr : PDS_ERR_ARG, "shell matrix callback returned %d", ierr);
  return pds_vec_axpby(y, alpha, s->work, beta); /* y = alpha A x + beta y */
}

static int shell_destroy(pds_mat A) {
  if (A->data) pds_vec_destroy(&SHELL(A)->work);
  free(A->data);
  A->data = NULL;
  return PDS_OK;
}

int pds_mat_create_shell(pds_ctx ctx, pds_int nrows, pds_int ncols, void *user, pds_shell_apply apply, pds_mat *A) {
  pds_mat           M = NULL;
  struct mat_shell *s;
  int               ierr;

  PDS_CHECK(apply, ctx, PDS_ERR_ARG, "shell apply callback is NULL");
  PDS_CALL(pds_mat_alloc(ctx, "shell", nrows, ncols, &M));
  ierr = PDS_NEW(ctx, 1, &s);
  if (ierr) {
    free(M);
    return ierr;
  }
  s->user        = user;
  s->fn          = apply;
  M->data        = s;
  M->ops.apply   = shell_apply;
  M->ops.destroy = shell_destroy;
  *A             = M;
  return PDS_OK;
}
