/* src/precond/shell.c: user preconditioner, y = M^-1 x computed by callbacks (pds_precond_shell_set). */
#include "precond_impl.h"

static int shell_setup(pds_precond pc) {
  int ierr;

  PDS_CHECK(pc->user_apply, pc->hdr.ctx, PDS_ERR_STATE, "shell preconditioner has no apply callback; call "
            "pds_precond_shell_set");
  if (!pc->user_setup) return PDS_OK;
  ierr = pc->user_setup(pc->user, pc->A);
  PDS_CHECK(!ierr, pc->hdr.ctx, ierr < 0 ? ierr : PDS_ERR_ARG, "shell preconditioner setup callback returned %d", ierr);
  return PDS_OK;
}

/* A callback that failed through a pdesolve call on this context (which raised its own error, with its message)
   returns that code: the message stands. Any other nonzero return is reported as the callback's. */
static int shell_apply(pds_precond pc, pds_vec x, pds_vec y) {
  pds_ctx ctx   = pc->hdr.ctx;
  int     saved = ctx->err_code, ierr;

  ctx->err_code = PDS_OK;
  ierr          = pc->user_apply(pc->user, x, y);
  if (ierr < 0 && ctx->err_code == ierr) return ierr;
  if (!ierr) ctx->err_code = saved;
  PDS_CHECK(!ierr, ctx, ierr < 0 ? ierr : PDS_ERR_ARG, "shell preconditioner apply callback returned %d", ierr);
  return PDS_OK;
}

int pds_precond_create_shell(pds_precond pc) {
  pc->host_sync = 1; /* the callback runs on the host: it may read or copy vectors, which a device loop cannot record */
  pc->ops.setup = shell_setup;
  pc->ops.apply = shell_apply;
  pc->distributed = 1; /* the callback sees the rank's rows */
  return PDS_OK;
}
