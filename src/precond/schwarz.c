/* src/precond/schwarz.c: additive Schwarz over the ranks, each rank's part handled by a local preconditioner of the
 * library ("sub": ilu0 by default, or jacobi, pbjacobi, none, ...):
 *   bjacobi: block Jacobi, M = diag(A_00, A_11, ...): the rank's diagonal block A_rr (its own rows and columns), no
 *            communication in an application;
 *   asm:     restricted additive Schwarz with overlap 1 (Cai and Sarkis; PETSc's PCASM with its default restrict
 *            type): the rank's rows extended by the rows of its ghosts (src/mat/dist_overlap.c), the sub-preconditioner
 *            of that extended matrix applied to [x_own; x_ghost] (the ghosts from the product's halo exchange), and
 *            only the own part of the result kept. More work and one exchange per application, usually fewer
 *            iterations than bjacobi as the ranks grow.
 * The sub-preconditioner sees ordinary vectors of one rank (local views of the distributed ones, or the extended
 * vectors), so even one that reduces (a norm) stays on its rank. On a matrix that is not distributed both are the
 * sub-preconditioner of the whole matrix. */
#include <stdlib.h>

#include "precond_impl.h"

struct schwarz {
  pds_precond sub;
  int         overlap; /* 0: bjacobi, 1: asm */
  int         empty;   /* the rank's block has no rows */
  pds_mat     Aext;    /* asm: the rows with overlap 1 */
  pds_vec     xe, ye;  /* asm: extended vectors */
};

static int schwarz_setup(pds_precond pc) {
  struct schwarz *S  = pc->data;
  pds_mat         Al = pc->A;

  pds_mat_destroy(&S->Aext);
  pds_vec_destroy(&S->xe);
  pds_vec_destroy(&S->ye);
  if (pc->A->dist && !S->overlap) Al = pds_mat_dist_local_pc(pc->A); /* Ad, or the rank's patch set */
  if (pc->A->dist && S->overlap) {
    PDS_CALL(pds_mat_dist_overlap(pc->A, &S->Aext));
    PDS_CALL(pds_vec_create(pc->hdr.ctx, S->Aext->nrows, &S->xe));
    PDS_CALL(pds_vec_create(pc->hdr.ctx, S->Aext->nrows, &S->ye));
    Al = S->Aext;
  }
  S->empty = !Al->nrows; /* a rank without rows: its local preconditioner has nothing to do */
  if (S->empty) return PDS_OK;
  if (S->sub->A != Al) PDS_CALL(pds_precond_set_operator(S->sub, Al));
  PDS_CALL(pds_precond_setup(S->sub));
  pc->host_sync = S->sub->host_sync; /* a device loop records it when it records the sub-preconditioner */
  return PDS_OK;
}

/* bjacobi: y = A_rr^-1 x on this rank's rows, through views of x's and y's arrays as vectors of one rank */
static int bjacobi_apply(pds_precond pc, pds_vec x, pds_vec y) {
  struct schwarz   *S   = pc->data;
  pds_ctx           ctx = pc->hdr.ctx;
  const pds_memtype mt  = ctx->k->mem_alloc ? PDS_MEM_DEVICE : PDS_MEM_HOST; /* the backend's arrays */
  const pds_real   *xa, *yr;
  pds_real         *ya;
  pds_vec           xl = NULL, yl = NULL;
  int               ierr;

  PDS_CALL(pds_vec_dev_read(x, &xa));
  PDS_CALL(pds_vec_dev_write(y, &ya));
  ierr = pds_vec_create_with_array(ctx, x->n, mt, (pds_real *)xa, &xl);
  if (!ierr) ierr = pds_vec_create_with_array(ctx, y->n, mt, ya, &yl);
  if (!ierr) ierr = pds_precond_apply(S->sub, xl, yl);
  if (!ierr) ierr = pds_vec_dev_read(yl, &yr); /* a result the sub left on the host goes to y's array */
  pds_vec_destroy(&xl);
  pds_vec_destroy(&yl);
  return ierr;
}

/* asm: xe = [x; x's ghosts], ye = M_ext^-1 xe, y = ye's own rows. Bytes: the halo's, 16 (n + ghosts) into xe, the
   sub-preconditioner's on n + ghosts rows, 16 n out. */
static int asm_apply(pds_precond pc, pds_vec x, pds_vec y) {
  struct schwarz *S   = pc->data;
  pds_ctx         ctx = pc->hdr.ctx;
  const size_t    n   = (size_t)x->n;
  pds_vec         g;
  const pds_real *xa, *ga, *yea;
  pds_real       *xea, *ya;

  PDS_CALL(pds_mat_dist_ghosts(pc->A, x, &g));
  PDS_CALL(pds_vec_dev_read(x, &xa));
  PDS_CALL(pds_vec_dev_read(g, &ga));
  PDS_CALL(pds_vec_dev_write(S->xe, &xea));
  PDS_CALL(pds_memcpy(ctx, xea, PDS_MEM_DEVICE, xa, PDS_MEM_DEVICE, n * sizeof *xa));
  PDS_CALL(pds_memcpy(ctx, xea + n, PDS_MEM_DEVICE, ga, PDS_MEM_DEVICE, (size_t)(S->xe->n - x->n) * sizeof *xa));
  PDS_CALL(pds_precond_apply(S->sub, S->xe, S->ye));
  PDS_CALL(pds_vec_dev_read(S->ye, &yea));
  PDS_CALL(pds_vec_dev_write(y, &ya));
  return pds_memcpy(ctx, ya, PDS_MEM_DEVICE, yea, PDS_MEM_DEVICE, n * sizeof *ya);
}

static int schwarz_apply(pds_precond pc, pds_vec x, pds_vec y) {
  struct schwarz *S = pc->data;

  if (!x->dist || !pc->A->dist) return pds_precond_apply(S->sub, x, y);
  if (S->empty) return PDS_OK;
  return S->overlap ? asm_apply(pc, x, y) : bjacobi_apply(pc, x, y);
}

static int schwarz_view(pds_precond pc, FILE *f) {
  struct schwarz *S = pc->data;

  if (S->overlap)
    fprintf(f, "  restricted additive Schwarz over %d rank%s, overlap 1 (%" PDS_INT_FMT " rows with the ghosts' on this "
            "rank), each rank's rows by a local preconditioner:\n", pc->hdr.ctx->size, pc->hdr.ctx->size == 1 ? "" : "s",
            S->Aext ? S->Aext->nrows : pc->A ? pc->A->nrows : 0);
  else
    fprintf(f, "  block Jacobi over %d rank%s, each rank's diagonal block by a local preconditioner:\n",
            pc->hdr.ctx->size, pc->hdr.ctx->size == 1 ? "" : "s");
  return pds_precond_view(S->sub, f);
}

static int schwarz_destroy(pds_precond pc) {
  struct schwarz *S = pc->data;

  if (S) {
    pds_precond_destroy(&S->sub);
    pds_mat_destroy(&S->Aext);
    pds_vec_destroy(&S->xe);
    pds_vec_destroy(&S->ye);
  }
  return pds_free(pc->hdr.ctx, PDS_MEM_HOST, &pc->data);
}

static int schwarz_data(pds_precond pc, struct schwarz **S) {
  PDS_VALID(pc, PDS_CLASSID_PRECOND, "preconditioner");
  PDS_CHECK(!strcmp(pc->type, "bjacobi") || !strcmp(pc->type, "asm"), pc->hdr.ctx, PDS_ERR_ARG,
            "preconditioner is %s; a local preconditioner belongs to bjacobi or asm", pc->type);
  *S = pc->data;
  return PDS_OK;
}

int pds_precond_set_sub_type(pds_precond pc, const char *type) {
  struct schwarz *S = NULL;
  pds_precond     sub;

  PDS_CALL(schwarz_data(pc, &S));
  PDS_CHECK(type && strcmp(type, "bjacobi") && strcmp(type, "asm"), pc->hdr.ctx, PDS_ERR_ARG, "%s: the local "
            "preconditioner must be one of a rank (ilu0, jacobi, pbjacobi, none, ...), not %s", pc->type,
            type ? type : "(null)");
  PDS_CALL(pds_precond_create(pc->hdr.ctx, type, &sub));
  pds_precond_destroy(&S->sub);
  S->sub         = sub;
  pc->setup_done = 0;
  return PDS_OK;
}

int pds_precond_get_sub(pds_precond pc, pds_precond *sub) {
  struct schwarz *S = NULL;

  PDS_CALL(schwarz_data(pc, &S));
  PDS_CHECK(sub, pc->hdr.ctx, PDS_ERR_ARG, "result pointer is NULL");
  *sub = S->sub;
  return PDS_OK;
}

static int schwarz_create(pds_precond pc, int overlap) {
  struct schwarz *S = NULL;

  PDS_CALL(PDS_NEW(pc->hdr.ctx, 1, &S));
  S->overlap      = overlap;
  pc->data        = S;
  pc->ops.setup   = schwarz_setup;
  pc->ops.apply   = schwarz_apply;
  pc->ops.view    = schwarz_view;
  pc->ops.destroy = schwarz_destroy;
  pc->distributed = 1;
  return pds_precond_create(pc->hdr.ctx, "ilu0", &S->sub);
}

int pds_precond_create_bjacobi(pds_precond pc) { return schwarz_create(pc, 0); }
int pds_precond_create_asm(pds_precond pc) { return schwarz_create(pc, 1); }
