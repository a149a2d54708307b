/* src/precond/none.c: no preconditioning, y = x. */
#include "precond_impl.h"

static int none_apply(pds_precond pc, pds_vec x, pds_vec y) { return pds_vec_copy(x, y); }

int pds_precond_create_none(pds_precond pc) {
  pc->ops.apply   = none_apply;
  pc->distributed = 1;
  return PDS_OK;
}
