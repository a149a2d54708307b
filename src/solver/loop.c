/* src/solver/loop.c: the iteration loop of the methods whose scalars live in backend memory (cg, bicgstab,
 * richardson): on the host, or as a device loop the host reads behind.
 *
 * A body queues one iteration, ending in the method's scalar step (src/backend/krylov_step.h), which writes the
 * iteration's record into S: its number, whether the test ran and on which norm, and the reason to stop (0: go on).
 * Host loop (every backend; the CPU backends always): queue the body, read S (one small copy on a GPU), observe.
 * Device loop (a backend with loop_* kernels, /gpu/cuda): on a solver's first solve iteration 1 runs on the host
 * loop (it builds whatever the kernels cache, e.g. a matrix's plan); then the backend records the body as a
 * device-side loop (a few copies of it in a row where iterations are short: the backend's choice) and runs it,
 * iteration after iteration, without the host; the host reads each iteration's record behind the device and
 * observes it as the host loop would. The device stops after the iteration whose record gives a reason; the last
 * update of x is part of that iteration, and copies queued after it find the solve ended in S and leave x and the
 * record alone (they only scribble on work vectors).
 * No device loop when: the backend has none; the operator or the preconditioner calls back into the host (shell:
 * the callback may read or copy vectors, which a recording cannot hold); the infinity-norm test is on (it reads
 * the iterate on the host every iteration); or pds_solver_set_device_loop(s, 0). Those run the host loop, with its
 * one copy per iteration. */
#include <math.h>

#include "solver_impl.h"

int pds_solver_loop_setup(pds_solver s, int nwork) {
  PDS_CALL(pds_solver_work(s, nwork));
  if (!s->data) {
    pds_vec S;

    PDS_CALL(pds_vec_create(s->hdr.ctx, PDS_KS_N, &S));
    s->data = S;
  }
  return PDS_OK;
}

int pds_solver_loop_destroy(pds_solver s) {
  pds_vec S = s->data;

  s->data = NULL;
  return pds_vec_destroy(&S);
}

int pds_solver_loop_init(pds_solver s, pds_vec S, int nopc, const pds_real *carry) {
  pds_real v[PDS_KS_N] = {0};

  v[PDS_KS_TOL]    = s->rtol * s->res.bnorm;
  v[PDS_KS_ATOL]   = s->atol;
  v[PDS_KS_DTOL]   = s->dtol;
  v[PDS_KS_RNORM0] = s->res.rnorm0;
  v[PDS_KS_MAXIT]  = s->maxit;
  v[PDS_KS_NOPC]   = nopc;
  if (carry)
    for (int i = PDS_KS_ALPHA; i <= PDS_KS_XP; i++) v[i] = carry[i - PDS_KS_ALPHA];
  return pds_vec_krylov_set(S, v);
}

/* What the host learns from one iteration's record (rec = S[PDS_KS_IT .. PDS_KS_IT + PDS_KS_REC)). */
static int loop_observe(pds_solver s, const pds_real *rec, pds_vec b, pds_vec x) {
  const int it = (int)rec[PDS_KS_IT - PDS_KS_IT], tested = rec[PDS_KS_TESTED - PDS_KS_IT] != 0;

  if (tested) PDS_CALL(pds_solver_record(s, it, rec[PDS_KS_RNORM - PDS_KS_IT]));
  s->res.reason     = (int)rec[PDS_KS_REASON - PDS_KS_IT];
  s->res.iterations = (int)rec[PDS_KS_ITS - PDS_KS_IT];
  if (tested) PDS_CALL(pds_solver_test_inf(s, b, x)); /* x is this iteration's iterate */
  return PDS_OK;
}

/* Everything the body calls can be recorded: no host callback in the operator or the preconditioner. */
static int loop_recordable(pds_solver s) {
  return strcmp(s->A->type, "shell") && !s->A->dist && !s->pc->host_sync; /* distributed: MPI between launches */
}

/* What the recorded body depends on: the arrays of x and b, the operator (its id, new for every matrix: a matrix
   made after another was destroyed may get the same addresses but another structure, and the backend builds it a
   new product plan; a matrix's arrays and values never change while it lives), the preconditioner and its setup, the
   damping, the size. A loop recorded for the same key runs again as it is; the work vectors and S are the solver's
   own. */
static struct pds_loop_key loop_key(pds_solver s, pds_vec b, pds_vec x) {
  struct pds_loop_key k;
  const struct pds_csr *c = !strcmp(s->A->type, "csr") ? &((struct pds_mat_csr *)s->A->data)->d : NULL;
  const struct pds_bsr *r = !strcmp(s->A->type, "bsr") ? &((struct pds_mat_bsr *)s->A->data)->d : NULL;

  memset(&k, 0, sizeof k);
  k.ptr[0] = x->d, k.ptr[1] = b->d, k.ptr[2] = s->A, k.ptr[3] = s->pc, k.ptr[4] = s->pc->type;
  if (c) k.ptr[5] = c->rowptr, k.ptr[6] = c->colidx, k.ptr[7] = c->vals;
  if (r) k.ptr[5] = r->browptr, k.ptr[6] = r->bcolidx, k.ptr[7] = r->vals;
  k.pc_state = s->pc->state, k.mat_id = s->A->id, k.omega = s->omega, k.n = s->A->nrows;
  return k;
}

/* Iterations on the host: queue one, read its record (one small copy on a GPU), observe; once, or to the end. */
static int host_loop(pds_solver s, pds_vec S, pds_solver_body body, void *data, pds_vec b, pds_vec x, int once) {
  pds_real all[PDS_KS_N];

  do {
    PDS_CALL(body(s, data));
    PDS_CALL(pds_vec_get_values(S, all, PDS_MEM_HOST));
    PDS_CALL(loop_observe(s, all + PDS_KS_IT, b, x));
  } while (!s->res.reason && !once);
  return PDS_OK;
}

int pds_solver_loop(pds_solver s, pds_vec S, pds_solver_body body, void *data, pds_vec b, pds_vec x) {
  pds_ctx   ctx    = s->hdr.ctx;
  int       device = ctx->k->krylov.loop_begin && s->device_loop && !(s->inftol > 0) && loop_recordable(s), copies = 1;
  int       ierr, fin;
  pds_real  rec[PDS_KS_REC], *Sd;
  struct pds_loop_key key;

  PDS_CHECK(S->n >= PDS_KS_N, ctx, PDS_ERR_SIZE, "scalar vector has %" PDS_SIZE_FMT " entries, needs %d", S->n,
            (int)PDS_KS_N);
  if (!device) return host_loop(s, S, body, data, b, x, 0);
  /* the first solve of this solver runs iteration 1 on the host: it builds what the kernels cache (a matrix's plan),
     which a recording cannot do; later solves record at once */
  if (!s->loop) {
    PDS_CALL(host_loop(s, S, body, data, b, x, 1));
    if (s->res.reason) return PDS_OK;
  }
  /* the loop of the last solve again if nothing it used has changed; else record the body (copies times: the
     backend's choice); if that fails (no device loops here, or something in the body cannot be recorded), nothing
     ran: the host loop goes on from the same state */
  key = loop_key(s, b, x);
  PDS_CALL(pds_vec_dev_write(S, &Sd));
  if (s->loop && !memcmp(&key, &s->loop_key, sizeof key))
    ierr = ctx->k->krylov.loop_restart(ctx, s->loop, s->res.iterations + 1);
  else {
    memset(&s->loop_key, 0, sizeof s->loop_key); /* no valid recording until this one is made */
    ierr = ctx->k->krylov.loop_begin(ctx, Sd, s->res.iterations + 1, s->A->nrows, &s->loop, &copies);
    for (int c = 0; !ierr && c < copies; c++) ierr = body(s, data);
    if (!ierr) ierr = ctx->k->krylov.loop_end(ctx, s->loop);
    if (!ierr) s->loop_key = key;
  }
  if (ierr) {
    (void)ctx->k->krylov.loop_finish(ctx, s->loop);
    (void)ctx->k->krylov.loop_free(ctx, s->loop);
    s->loop = NULL;
    return host_loop(s, S, body, data, b, x, 0);
  }
  while (!ierr && !s->res.reason) {
    ierr = ctx->k->krylov.loop_next(ctx, s->loop, rec);
    if (!ierr) ierr = loop_observe(s, rec, b, x);
  }
  fin = ctx->k->krylov.loop_finish(ctx, s->loop); /* after an error too: the device stops */
  return ierr ? ierr : fin;
}
