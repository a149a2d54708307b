/* src/precond/precond.c: the preconditioner interface: registry by name, operator, setup, apply y = M^-1 x. */
#include <stdlib.h>

#include "precond_impl.h"
#include "../sys/comm.h"

struct precond_entry {
  const char *name;
  int (*create)(pds_precond);
};
#define PDS_PRECOND(name, create) {name, create},
static const struct precond_entry registry[] = {
#include "precond_list.h"
};
#undef PDS_PRECOND

int pds_precond_data(pds_precond pc, const char *type, void **data) {
  PDS_VALID(pc, PDS_CLASSID_PRECOND, "preconditioner");
  PDS_CHECK(!strcmp(pc->type, type), pc->hdr.ctx, PDS_ERR_ARG, "preconditioner is %s, not %s", pc->type, type);
  *data = pc->data;
  return PDS_OK;
}

int pds_precond_create(pds_ctx ctx, const char *type, pds_precond *pc) {
  pds_precond P;
  int         ierr;

  PDS_CHECK(ctx, NULL, PDS_ERR_ARG, "context is NULL");
  PDS_CHECK(pc, ctx, PDS_ERR_ARG, "output handle is NULL");
  *pc = NULL;
  PDS_CHECK(type, ctx, PDS_ERR_ARG, "preconditioner type is NULL");
  for (size_t i = 0; i < sizeof registry / sizeof registry[0]; i++) {
    if (strcmp(type, registry[i].name)) continue;
    PDS_CALL(PDS_NEW(ctx, 1, &P));
    P->hdr.ctx     = ctx;
    P->hdr.classid = PDS_CLASSID_PRECOND;
    P->hdr.refct   = 1;
    P->type        = registry[i].name;
    ierr           = registry[i].create(P);
    if (ierr) {
      free(P);
      return ierr;
    }
    *pc = P;
    return PDS_OK;
  }
  return PDS_ERROR_UNKNOWN(ctx, "preconditioner", type, registry);
}

int pds_precond_destroy(pds_precond *pc) {
  pds_precond P;
  int         ierr = PDS_OK;

  if (!pc || !*pc) return PDS_OK;
  P = *pc;
  PDS_VALID(P, PDS_CLASSID_PRECOND, "preconditioner");
  *pc = NULL;
  if (--P->hdr.refct > 0) return PDS_OK;
  if (P->ops.destroy) ierr = P->ops.destroy(P);
  pds_mat_destroy(&P->A);
  P->hdr.classid = PDS_CLASSID_FREED;
  free(P);
  return ierr;
}

const char *pds_precond_get_type(pds_precond pc) {
  return pc && pc->hdr.classid == PDS_CLASSID_PRECOND ? pc->type : NULL;
}

int pds_precond_set_operator(pds_precond pc, pds_mat A) {
  PDS_VALID(pc, PDS_CLASSID_PRECOND, "preconditioner");
  PDS_VALID(A, PDS_CLASSID_MAT, "matrix");
  PDS_CHECK(A->hdr.ctx == pc->hdr.ctx, pc->hdr.ctx, PDS_ERR_ARG, "matrix and preconditioner belong to different contexts");
  PDS_CHECK(A->nrows == A->ncols, pc->hdr.ctx, PDS_ERR_SIZE, "preconditioner of a non-square %" PDS_INT_FMT " x %"
            PDS_INT_FMT " matrix", A->nrows, A->ncols);
  PDS_CALL(pds_mat_reference(A));
  pds_mat_destroy(&pc->A);
  pc->A          = A;
  pc->setup_done = 0;
  return PDS_OK;
}

int pds_precond_set_block_size(pds_precond pc, int bs) {
  PDS_VALID(pc, PDS_CLASSID_PRECOND, "preconditioner");
  PDS_CHECK(bs >= 0, pc->hdr.ctx, PDS_ERR_ARG, "block size %d is negative (0 = the operator's)", bs);
  pc->bs         = bs;
  pc->setup_done = 0;
  return PDS_OK;
}

/* a number no two setups share, in any preconditioner of the process */
static _Atomic unsigned long precond_states;

int pds_precond_setup(pds_precond pc) {
  PDS_VALID(pc, PDS_CLASSID_PRECOND, "preconditioner");
  PDS_CHECK(pc->A || !strcmp(pc->type, "none") || !strcmp(pc->type, "shell"), pc->hdr.ctx, PDS_ERR_STATE,
            "preconditioner '%s' has no operator; call pds_precond_set_operator first", pc->type);
  pc->setup_done = 0;
  PDS_CHECK(!pc->A || !pc->A->dist || pc->distributed, pc->hdr.ctx, PDS_ERR_UNSUPPORTED, "%s works on one rank's "
            "matrix; on a distributed matrix use bjacobi or asm with %s as its local preconditioner "
            "(pds_precond_set_sub_type, -pc bjacobi -sub_pc %s)", pc->type, pc->type, pc->type);
  if (pc->A && pc->A->dist) { /* collective: a rank whose local setup fails takes the others with it */
    pds_comm_begin(pc->hdr.ctx);
    PDS_CALL(pds_comm_agree(pc->hdr.ctx, pc->ops.setup ? pc->ops.setup(pc) : PDS_OK));
  } else if (pc->ops.setup) PDS_CALL(pc->ops.setup(pc));
  pc->setup_done = 1;
  pc->state      = ++precond_states;
  return PDS_OK;
}

int pds_precond_update_values(pds_precond pc, pds_mat A) {
  int ierr;

  PDS_VALID(pc, PDS_CLASSID_PRECOND, "preconditioner");
  PDS_VALID(A, PDS_CLASSID_MAT, "matrix");
  PDS_CHECK(pc->A, pc->hdr.ctx, PDS_ERR_STATE, "pds_precond_update_values: the preconditioner has no operator yet; "
            "call pds_precond_set_operator and pds_precond_setup first");
  PDS_CHECK(!strcmp(A->type, pc->A->type) && A->nrows == pc->A->nrows && A->bs == pc->A->bs && A->nnz == pc->A->nnz,
            pc->hdr.ctx, PDS_ERR_ARG, "pds_precond_update_values: the matrix (%s, %" PDS_INT_FMT " rows, block size "
            "%d, %" PDS_SIZE_FMT " entries) does not have the operator's pattern (%s, %" PDS_INT_FMT " rows, block "
            "size %d, %" PDS_SIZE_FMT " entries)", A->type, A->nrows, A->bs, A->nnz, pc->A->type, pc->A->nrows,
            pc->A->bs, pc->A->nnz);
  PDS_CALL(pds_precond_set_operator(pc, A));
  pc->same_pattern = 1;
  ierr             = pds_precond_setup(pc);
  pc->same_pattern = 0;
  return ierr;
}

int pds_precond_apply(pds_precond pc, pds_vec x, pds_vec y) {
  PDS_VALID(pc, PDS_CLASSID_PRECOND, "preconditioner");
  PDS_VALID(x, PDS_CLASSID_VEC, "x");
  PDS_VALID(y, PDS_CLASSID_VEC, "y");
  PDS_CHECK(pc->setup_done, pc->hdr.ctx, PDS_ERR_STATE, "preconditioner '%s' is not set up; call pds_precond_setup",
            pc->type);
  PDS_CHECK(x->n == y->n, pc->hdr.ctx, PDS_ERR_SIZE, "x has length %" PDS_SIZE_FMT ", y has %" PDS_SIZE_FMT, x->n,
            y->n);
  PDS_CHECK(!pc->A || x->n == pc->A->nrows, pc->hdr.ctx, PDS_ERR_SIZE,
            "x has length %" PDS_SIZE_FMT " but the operator has %" PDS_INT_FMT " rows", x->n, pc->A->nrows);
  PDS_CHECK(x != y, pc->hdr.ctx, PDS_ERR_ARG, "x and y are the same vector");
  return pc->ops.apply(pc, x, y);
}

int pds_precond_view(pds_precond pc, FILE *f) {
  PDS_VALID(pc, PDS_CLASSID_PRECOND, "preconditioner");
  if (!f) f = stdout;
  fprintf(f, "preconditioner: %s\n", pc->type);
  return pc->ops.view ? pc->ops.view(pc, f) : PDS_OK;
}

int pds_precond_shell_set(pds_precond pc, void *user, pds_shell_pc_setup setup, pds_shell_pc_apply apply) {
  PDS_VALID(pc, PDS_CLASSID_PRECOND, "preconditioner");
  PDS_CHECK(!strcmp(pc->type, "shell"), pc->hdr.ctx, PDS_ERR_ARG, "preconditioner is '%s', not 'shell'", pc->type);
  PDS_CHECK(apply, pc->hdr.ctx, PDS_ERR_ARG, "shell apply callback is NULL");
  pc->user       = user;
  pc->user_setup = setup;
  pc->user_apply = apply;
  pc->setup_done = 0;
  return PDS_OK;
}
