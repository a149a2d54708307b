/* src/solver/solver.c: the solver interface: registry by name, settings, setup, solve, result, convergence test. */
#include <math.h>
#include <stdlib.h>

#include "solver_impl.h"
#include "../sys/comm.h"

struct solver_entry {
  const char *name;
  int (*create)(pds_solver);
};
#define PDS_SOLVER(name, create) {name, create},
static const struct solver_entry registry[] = {
#include "solver_list.h"
};
#undef PDS_SOLVER

/* PDS_DEVICE_LOOP=0 in the environment: no device loops unless a program asks (pds_solver_set_device_loop); for
   tools that cannot follow CUDA graphs with conditional nodes (compute-sanitizer's racecheck and synccheck report
   false barrier errors in them and stop the program) */
static int device_loop_default(void) {
  const char *e = getenv("PDS_DEVICE_LOOP");

  return !(e && !strcmp(e, "0"));
}

int pds_solver_create(pds_ctx ctx, const char *type, pds_solver *s) {
  pds_solver S;
  int        ierr;

  PDS_CHECK(ctx, NULL, PDS_ERR_ARG, "context is NULL");
  PDS_CHECK(s, ctx, PDS_ERR_ARG, "output handle is NULL");
  *s = NULL;
  PDS_CHECK(type, ctx, PDS_ERR_ARG, "solver type is NULL");
  for (size_t i = 0; i < sizeof registry / sizeof registry[0]; i++) {
    if (strcmp(type, registry[i].name)) continue;
    PDS_CALL(PDS_NEW(ctx, 1, &S));
    S->hdr.ctx     = ctx;
    S->hdr.classid = PDS_CLASSID_SOLVER;
    S->hdr.refct   = 1;
    S->type        = registry[i].name;
    S->rtol        = 1e-8;
    S->atol        = 1e-50;
    S->dtol        = 1e10;
    S->maxit       = 10000;
    S->restart     = 30;
    S->orthog_passes = 2;
    S->device_loop   = device_loop_default();
    S->omega       = 1.0;
    S->res.rnorm_inf = -1;
    ierr           = registry[i].create(S);
    if (ierr) {
      free(S);
      return ierr;
    }
    *s = S;
    return PDS_OK;
  }
  return PDS_ERROR_UNKNOWN(ctx, "solver", type, registry);
}

void pds_solver_free_work(pds_solver s) {
  for (int i = 0; i < s->nwork; i++) pds_vec_destroy(&s->work[i]);
  pds_free(s->hdr.ctx, PDS_MEM_HOST, &s->work);
  s->nwork = 0;
  pds_vec_destroy(&s->rinf);
  pds_vec_destroy(&s->bf), pds_vec_destroy(&s->xf), pds_vec_destroy(&s->rd);
  pds_solver_destroy(&s->outer);
}

int pds_solver_destroy(pds_solver *s) {
  pds_solver S;
  int        ierr = PDS_OK;

  if (!s || !*s) return PDS_OK;
  S = *s;
  PDS_VALID(S, PDS_CLASSID_SOLVER, "solver");
  *s = NULL;
  if (--S->hdr.refct > 0) return PDS_OK;
  if (S->ops.destroy) ierr = S->ops.destroy(S);
  if (S->loop) (void)S->hdr.ctx->k->krylov.loop_free(S->hdr.ctx, S->loop);
  pds_solver_free_work(S);
  pds_free(S->hdr.ctx, PDS_MEM_HOST, &S->hist);
  pds_mat_destroy(&S->A);
  pds_precond_destroy(&S->pc);
  S->hdr.classid = PDS_CLASSID_FREED;
  free(S);
  return ierr;
}

const char *pds_solver_get_type(pds_solver s) { return s && s->hdr.classid == PDS_CLASSID_SOLVER ? s->type : NULL; }

int pds_solver_set_operator(pds_solver s, pds_mat A) {
  PDS_VALID(s, PDS_CLASSID_SOLVER, "solver");
  PDS_VALID(A, PDS_CLASSID_MAT, "matrix");
  PDS_CHECK(A->hdr.ctx == s->hdr.ctx, s->hdr.ctx, PDS_ERR_ARG, "matrix and solver belong to different contexts");
  PDS_CHECK(A->nrows == A->ncols, s->hdr.ctx, PDS_ERR_SIZE, "solver needs a square matrix, got %" PDS_INT_FMT " x %"
            PDS_INT_FMT, A->nrows, A->ncols);
  PDS_CALL(pds_mat_reference(A));
  if (s->A && s->A->nrows != A->nrows) pds_solver_free_work(s);
  pds_mat_destroy(&s->A);
  s->A          = A;
  s->setup_done = 0;
  return PDS_OK;
}

int pds_solver_set_precond(pds_solver s, pds_precond pc) {
  PDS_VALID(s, PDS_CLASSID_SOLVER, "solver");
  if (pc) {
    PDS_VALID(pc, PDS_CLASSID_PRECOND, "preconditioner");
    PDS_CHECK(pc->hdr.ctx == s->hdr.ctx, s->hdr.ctx, PDS_ERR_ARG, "preconditioner and solver belong to different contexts");
    pc->hdr.refct++;
  }
  pds_precond_destroy(&s->pc);
  s->pc         = pc;
  s->setup_done = 0;
  return PDS_OK;
}

int pds_solver_set_tolerances(pds_solver s, pds_real rtol, pds_real atol, int maxit) {
  PDS_VALID(s, PDS_CLASSID_SOLVER, "solver");
  PDS_CHECK(rtol >= 0 && rtol < 1 && isfinite(rtol), s->hdr.ctx, PDS_ERR_ARG, "rtol %g must be in [0, 1)", rtol);
  PDS_CHECK(atol >= 0 && isfinite(atol), s->hdr.ctx, PDS_ERR_ARG, "atol %g must be finite and >= 0", atol);
  PDS_CHECK(maxit >= 0, s->hdr.ctx, PDS_ERR_ARG, "maxit %d must be >= 0", maxit);
  s->rtol  = rtol;
  s->atol  = atol;
  s->maxit = maxit;
  return PDS_OK;
}

int pds_solver_set_inf_tolerance(pds_solver s, pds_real inftol) {
  PDS_VALID(s, PDS_CLASSID_SOLVER, "solver");
  PDS_CHECK(inftol >= 0 && isfinite(inftol), s->hdr.ctx, PDS_ERR_ARG, "inftol %g must be finite and >= 0", inftol);
  s->inftol = inftol;
  return PDS_OK;
}

int pds_solver_set_restart(pds_solver s, int restart) {
  PDS_VALID(s, PDS_CLASSID_SOLVER, "solver");
  PDS_CHECK(restart >= 1 && restart <= 10000, s->hdr.ctx, PDS_ERR_ARG, "restart %d must be in [1, 10000]", restart);
  if (restart != s->restart) s->setup_done = 0;
  s->restart = restart;
  return PDS_OK;
}

int pds_solver_set_orthogonalization(pds_solver s, const char *type) {
  PDS_VALID(s, PDS_CLASSID_SOLVER, "solver");
  PDS_CHECK(type && (!strcmp(type, "cgs2") || !strcmp(type, "cgs")), s->hdr.ctx, PDS_ERR_ARG,
            "orthogonalization '%s': cgs2 (classical Gram-Schmidt with one reorthogonalization, the default) or cgs "
            "(one pass, PETSc's default)", type ? type : "(null)");
  s->orthog_passes = !strcmp(type, "cgs2") ? 2 : 1;
  return PDS_OK;
}

int pds_solver_set_damping(pds_solver s, pds_real omega) {
  PDS_VALID(s, PDS_CLASSID_SOLVER, "solver");
  PDS_CHECK(omega > 0 && isfinite(omega), s->hdr.ctx, PDS_ERR_ARG, "damping %g must be positive", omega);
  s->omega = omega;
  return PDS_OK;
}

int pds_solver_set_device_loop(pds_solver s, int on) {
  PDS_VALID(s, PDS_CLASSID_SOLVER, "solver");
  s->device_loop = on != 0;
  return PDS_OK;
}

int pds_solver_set_monitor(pds_solver s, pds_monitor_fn fn, void *user) {
  PDS_VALID(s, PDS_CLASSID_SOLVER, "solver");
  s->monitor      = fn;
  s->monitor_user = user;
  return PDS_OK;
}

int pds_solver_set_history(pds_solver s, int keep) {
  PDS_VALID(s, PDS_CLASSID_SOLVER, "solver");
  s->keep_history = keep != 0;
  return PDS_OK;
}

int pds_solver_work(pds_solver s, int n) {
  pds_ctx ctx = s->hdr.ctx;

  if (s->nwork >= n) return PDS_OK;
  {
    pds_vec *w;

    PDS_CALL(PDS_NEW(ctx, n, &w));
    for (int i = 0; i < s->nwork; i++) w[i] = s->work[i];
    pds_free(ctx, PDS_MEM_HOST, &s->work);
    s->work = w;
  }
  for (; s->nwork < n; s->nwork++)
    PDS_CALL(s->precision == PDS_PRECISION_DOUBLE ? pds_mat_row_vec(s->A, &s->work[s->nwork])
                                                  : pds_vec_create_f32(ctx, s->A->nrows, &s->work[s->nwork]));
  return PDS_OK;
}

static int solver_setup(pds_solver s) {
  if (!s->pc) PDS_CALL(pds_precond_create(s->hdr.ctx, "none", &s->pc));
  if (s->pc->A != s->A && strcmp(s->pc->type, "none")) PDS_CALL(pds_precond_set_operator(s->pc, s->A));
  if (!s->pc->setup_done) PDS_CALL(pds_precond_setup(s->pc));
  PDS_CALL(pds_solver_precision_setup(s));
  if (s->ops.setup) PDS_CALL(s->ops.setup(s));
  s->setup_done = 1;
  return PDS_OK;
}

int pds_solver_setup(pds_solver s) {
  PDS_VALID(s, PDS_CLASSID_SOLVER, "solver");
  PDS_CHECK(s->A, s->hdr.ctx, PDS_ERR_STATE, "solver has no operator; call pds_solver_set_operator first");
  if (!s->A->dist) return solver_setup(s);
  pds_comm_begin(s->hdr.ctx); /* collective (comm.h): every rank returns the same success or failure */
  return pds_comm_agree(s->hdr.ctx, solver_setup(s));
}

int pds_solver_pc_apply(pds_solver s, pds_vec x, pds_vec y) { return pds_precond_apply(s->pc, x, y); }

int pds_solver_begin(pds_solver s, pds_vec b, pds_vec x, int *trivial) {
  s->hist_len      = 0;
  s->res           = (pds_solver_result){0, 0, 0, 0, -1, PDS_ITERATING};
  PDS_CALL(pds_vec_norm2(b, &s->res.bnorm));
  PDS_CHECK(isfinite(s->res.bnorm), s->hdr.ctx, PDS_ERR_ARG, "right-hand side holds NaN or Inf");
  *trivial = s->res.bnorm == 0;
  if (*trivial) {
    /* A x = 0 has the solution x = 0 */
    PDS_CALL(pds_vec_set(x, 0.0));
    PDS_CALL(pds_solver_test(s, 0, 0.0, b, NULL)); /* converged_atol: 0 <= atol */
  }
  return PDS_OK;
}

void pds_solver_diverged(pds_solver s, int it, int reason) {
  s->res.iterations = it;
  s->res.reason     = reason;
}

int pds_solver_record(pds_solver s, int it, pds_real rnorm) {
  if (it == 0) s->res.rnorm0 = rnorm;
  s->res.iterations = it;
  s->res.rnorm      = rnorm;
  if (s->inner) { /* a mixed solve's inner solve: numbered on; its norm, relative to its right-hand side, scaled */
    if (it == 0) return PDS_OK;
    it += s->mixed_its;
    rnorm *= s->inner_scale;
  }
  if (s->keep_history) {
    if (s->hist_len == s->hist_cap) {
      int       cap = s->hist_cap ? 2 * s->hist_cap : 64;
      pds_real *h;

      PDS_CALL(PDS_NEW(s->hdr.ctx, cap, &h));
      if (s->hist_len) memcpy(h, s->hist, (size_t)s->hist_len * sizeof *h);
      pds_free(s->hdr.ctx, PDS_MEM_HOST, &s->hist);
      s->hist     = h;
      s->hist_cap = cap;
    }
    s->hist[s->hist_len++] = rnorm;
  }
  if (s->monitor) {
    int ierr = s->monitor(s->monitor_user, it, rnorm);

    PDS_CHECK(!ierr, s->hdr.ctx, ierr < 0 ? ierr : PDS_ERR_ARG, "monitor callback returned %d", ierr);
  }
  return PDS_OK;
}

/* the test of src/backend/krylov_step.h (the device steps take the same decisions), then the infinity-norm test,
   which may turn "go on" or "maxit" into converged */
int pds_solver_test(pds_solver s, int it, pds_real rnorm, pds_vec b, pds_vec x) {
  PDS_CALL(pds_solver_record(s, it, rnorm));
  s->res.reason = pds_ks_conv(rnorm, it, s->atol, s->rtol * s->res.bnorm, s->dtol, s->res.rnorm0, s->maxit);
  if (x) PDS_CALL(pds_solver_test_inf(s, b, x));
  return PDS_OK;
}

/* Paper 004's criterion, on the iterate itself: ||b - A x||_inf <= inftol (one extra residual). */
int pds_solver_test_inf(pds_solver s, pds_vec b, pds_vec x) {
  if (!(s->inftol > 0) || (s->res.reason < 0 && s->res.reason != PDS_DIVERGED_MAXIT)) return PDS_OK;
  if (!s->rinf) PDS_CALL(pds_mat_row_vec(s->A, &s->rinf));
  PDS_CALL(pds_mat_residual(s->A, b, x, s->rinf));
  PDS_CALL(pds_vec_norm_inf(s->rinf, &s->res.rnorm_inf));
  if (s->res.rnorm_inf <= s->inftol && (s->res.reason == PDS_ITERATING || s->res.reason == PDS_DIVERGED_MAXIT))
    s->res.reason = PDS_CONVERGED_INF;
  return PDS_OK;
}

static int solver_solve(pds_solver s, pds_vec b, pds_vec x) {
  int trivial;

  if (!s->setup_done) PDS_CALL(pds_solver_setup(s));
  PDS_CALL(pds_solver_begin(s, b, x, &trivial));
  if (trivial) return PDS_OK;
  if (s->precision != PDS_PRECISION_DOUBLE) return pds_solver_solve_precision(s, b, x);
  return s->ops.solve(s, b, x);
}

static int solver_args(pds_solver s, pds_vec b, pds_vec x) {
  pds_ctx ctx = s->hdr.ctx;

  PDS_VALID(b, PDS_CLASSID_VEC, "b");
  PDS_VALID(x, PDS_CLASSID_VEC, "x");
  PDS_CHECK(b->hdr.ctx == ctx && x->hdr.ctx == ctx, ctx, PDS_ERR_ARG, "vectors and solver belong to different contexts");
  PDS_CHECK(b->n == s->A->nrows, ctx, PDS_ERR_SIZE, "b has length %" PDS_SIZE_FMT " but the matrix has %" PDS_INT_FMT
            " rows", b->n, s->A->nrows);
  PDS_CHECK(x->n == s->A->ncols, ctx, PDS_ERR_SIZE, "x has length %" PDS_SIZE_FMT " but the matrix has %" PDS_INT_FMT
            " columns", x->n, s->A->ncols);
  PDS_CHECK(b != x, ctx, PDS_ERR_ARG, "b and x are the same vector");
  return PDS_OK;
}

int pds_solver_solve(pds_solver s, pds_vec b, pds_vec x) {
  int ierr;

  PDS_VALID(s, PDS_CLASSID_SOLVER, "solver");
  PDS_CHECK(s->A, s->hdr.ctx, PDS_ERR_STATE, "solver has no operator; call pds_solver_set_operator first");
  if (!s->A->dist) {
    PDS_CALL(solver_args(s, b, x));
    return solver_solve(s, b, x);
  }
  /* collective: a rank that fails (its arguments included) meets the others' next reduction or this agreement */
  pds_comm_begin(s->hdr.ctx);
  ierr = solver_args(s, b, x);
  if (!ierr) ierr = solver_solve(s, b, x);
  return pds_comm_agree(s->hdr.ctx, ierr);
}

int pds_solver_get_result(pds_solver s, pds_solver_result *r) {
  PDS_VALID(s, PDS_CLASSID_SOLVER, "solver");
  PDS_CHECK(r, s->hdr.ctx, PDS_ERR_ARG, "result pointer is NULL");
  *r = s->res;
  return PDS_OK;
}

int pds_solver_get_history(pds_solver s, int *len, const pds_real **h) {
  PDS_VALID(s, PDS_CLASSID_SOLVER, "solver");
  PDS_CHECK(s->keep_history, s->hdr.ctx, PDS_ERR_STATE, "no history kept; call pds_solver_set_history(s, 1) before solving");
  *len = s->hist_len;
  *h   = s->hist;
  return PDS_OK;
}

int pds_solver_view(pds_solver s, FILE *f) {
  PDS_VALID(s, PDS_CLASSID_SOLVER, "solver");
  if (!f) f = stdout;
  fprintf(f, "solver: %s, rtol %g, atol %g, maxit %d", s->type, s->rtol, s->atol, s->maxit);
  if (s->inftol > 0) fprintf(f, ", inftol %g", s->inftol);
  if (s->precision) fprintf(f, ", precision %s", s->precision == PDS_PRECISION_SINGLE ? "single" : "mixed");
  fprintf(f, "\n");
  if (s->ops.view) PDS_CALL(s->ops.view(s, f));
  if (s->pc) PDS_CALL(pds_precond_view(s->pc, f));
  else fprintf(f, "preconditioner: none\n");
  return PDS_OK;
}
