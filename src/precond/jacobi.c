/* src/precond/jacobi.c: point Jacobi, y_i = x_i / a_ii; a zero or non-finite a_ii is PDS_ERR_ZERO_PIVOT. */
#include <math.h>

#include "precond_impl.h"

struct jacobi {
  pds_vec diag;
};

static int jacobi_setup(pds_precond pc) {
  struct jacobi  *J = pc->data;
  const pds_real *d;
  pds_int         bad = -1;

  if (!J->diag) PDS_CALL(pds_vec_create(pc->hdr.ctx, pc->A->nrows, &J->diag));
  PDS_CALL(pds_mat_get_diagonal(pc->A, J->diag));
  /* setup-time check on the host copy */
  PDS_CALL(pds_vec_get_array_read(J->diag, PDS_MEM_HOST, &d));
  for (pds_int i = 0; i < pc->A->nrows && bad < 0; i++)
    if (d[i] == 0 || !isfinite(d[i])) bad = i;
  {
    pds_real dv = bad >= 0 ? d[bad] : 0;

    PDS_CALL(pds_vec_restore_array_read(J->diag, &d));
    PDS_CHECK(bad < 0, pc->hdr.ctx, PDS_ERR_ZERO_PIVOT,
              "jacobi: diagonal entry of row %" PDS_INT_FMT " is %g (zero diagonal); use a preconditioner that does "
              "not divide by the diagonal (none), or reorder the system", bad, dv);
  }
  return PDS_OK;
}

static int jacobi_apply(pds_precond pc, pds_vec x, pds_vec y) {
  return pds_vec_pointwise_divide(y, x, ((struct jacobi *)pc->data)->diag); /* y = x ./ diag(A) */
}

static int jacobi_view(pds_precond pc, FILE *f) {
  fprintf(f, "  y_i = x_i / a_ii\n");
  return PDS_OK;
}

static int jacobi_destroy(pds_precond pc) {
  struct jacobi *J = pc->data;

  if (J) pds_vec_destroy(&J->diag);
  return pds_free(pc->hdr.ctx, PDS_MEM_HOST, &pc->data);
}

int pds_precond_create_jacobi(pds_precond pc) {
  struct jacobi *J;

  PDS_CALL(PDS_NEW(pc->hdr.ctx, 1, &J));
  pc->data        = J;
  pc->ops.setup   = jacobi_setup;
  pc->ops.apply   = jacobi_apply;
  pc->ops.view    = jacobi_view;
  pc->ops.destroy = jacobi_destroy;
  pc->distributed = 1; /* the rank's diagonal */
  return PDS_OK;
}
