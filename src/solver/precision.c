/* src/solver/precision.c: single and mixed precision solves (pds_solver_set_precision).
 *
 * single: the method runs on single-precision vectors (src/vec/vec_f32.c) with the matrix values rounded to float
 *         (src/mat/csr_f32.c); every reduction is accumulated in double, the method's scalars (S) stay double, so
 *         the iteration is deterministic and takes the same path as in double (host or device loop). b and the
 *         initial guess are rounded to float on entry, the iterate converted back (exactly) on exit. The tracked
 *         residual is the float recurrence's; it can fall below what float can resolve while the true residual
 *         stalls near eps_f cond(A) ||b|| (paper 004 sees BiCGSTAB stall or diverge in float from grid 3 on).
 * mixed:  iterative refinement in double around single-precision inner solves (Wilkinson; Buttari, Dongarra et al.
 *         2007): r = b - A x in double with the double matrix; stop on ||r|| as in double; else solve A d = r in
 *         single precision (the same method and preconditioner) to a relative tolerance max(target / ||r||,
 *         PDS_MIXED_INNER_RTOL), x += d in double, repeat. It converges to double's accuracy while cond(A) eps_f
 *         is well below 1, at the cost per iteration of the single-precision method (docs/dev.md: the byte models
 *         and why this and not float storage with double vectors). Every inner iteration is an iteration of the
 *         solve: the monitor and the history see them numbered on from the previous inner solve, with the inner
 *         recurrence's norm (which tracks the true residual of the refined x); the result's rnorm is the true
 *         residual of the last refinement. A refinement step that does not reduce the true residual ends the
 *         solve with PDS_DIVERGED_STAGNATION (float cannot resolve this system: solve in double).
 * Both: csr operators, the methods cg, bicgstab and richardson, the preconditioners none and jacobi, no
 * infinity-norm test; anything else is an error at setup that says what is supported. */
#include <math.h>

#include "solver_impl.h"

/* the inner solves' relative tolerance floor: about where the float recurrence stops tracking the true residual
   (a few hundred ulps of float), so an inner solve does no iteration that float cannot make count */
#define PDS_MIXED_INNER_RTOL 1e-5

static const char *prec_name(int p) { return p == PDS_PRECISION_SINGLE ? "single" : p == PDS_PRECISION_MIXED ? "mixed" : "double"; }

int pds_solver_set_precision(pds_solver s, pds_precision p) {
  PDS_VALID(s, PDS_CLASSID_SOLVER, "solver");
  PDS_CHECK(p == PDS_PRECISION_DOUBLE || p == PDS_PRECISION_SINGLE || p == PDS_PRECISION_MIXED, s->hdr.ctx,
            PDS_ERR_ARG, "unknown precision %d; known: PDS_PRECISION_DOUBLE, _SINGLE, _MIXED", (int)p);
  if ((int)p == s->precision) return PDS_OK;
  pds_solver_free_work(s); /* the work vectors change precision */
  memset(&s->loop_key, 0, sizeof s->loop_key);
  s->precision  = p;
  s->setup_done = 0;
  return PDS_OK;
}

int pds_solver_get_precision(pds_solver s, pds_precision *p) {
  PDS_VALID(s, PDS_CLASSID_SOLVER, "solver");
  PDS_CHECK(p, s->hdr.ctx, PDS_ERR_ARG, "output pointer is NULL");
  *p = (pds_precision)s->precision;
  return PDS_OK;
}

int pds_solver_precision_setup(pds_solver s) {
  pds_ctx ctx = s->hdr.ctx;
  int     n   = s->A->nrows;

  if (s->precision == PDS_PRECISION_DOUBLE) return PDS_OK;
  PDS_CHECK(!strcmp(s->type, "cg") || !strcmp(s->type, "bicgstab") || !strcmp(s->type, "richardson"), ctx,
            PDS_ERR_UNSUPPORTED, "precision %s: solver %s has no single-precision iteration; use cg, bicgstab or "
            "richardson, or precision double", prec_name(s->precision), s->type);
  PDS_CHECK(!strcmp(s->A->type, "csr"), ctx, PDS_ERR_UNSUPPORTED,
            "precision %s needs a csr operator, not %s (convert it, or use precision double)", prec_name(s->precision),
            s->A->type);
  PDS_CHECK(!strcmp(s->pc->type, "none") || !strcmp(s->pc->type, "jacobi"), ctx, PDS_ERR_UNSUPPORTED,
            "precision %s supports the preconditioners none and jacobi, not %s", prec_name(s->precision), s->pc->type);
  PDS_CHECK(!(s->inftol > 0), ctx, PDS_ERR_UNSUPPORTED,
            "precision %s has no infinity-norm test; use the 2-norm tolerances", prec_name(s->precision));
  if (!s->bf) PDS_CALL(pds_vec_create_f32(ctx, n, &s->bf));
  if (!s->xf) PDS_CALL(pds_vec_create_f32(ctx, n, &s->xf));
  if (s->precision == PDS_PRECISION_MIXED) {
    if (!s->rd) PDS_CALL(pds_vec_create(ctx, n, &s->rd));
    if (!s->dd) PDS_CALL(pds_vec_create(ctx, n, &s->dd));
  }
  return PDS_OK;
}

/* single: round b and x to float, iterate, convert x back (x is untouched when the solve fails with an error) */
static int solve_single(pds_solver s, pds_vec b, pds_vec x) {
  PDS_CALL(pds_vec_copy(b, s->bf));
  PDS_CALL(pds_vec_copy(x, s->xf));
  PDS_CALL(s->ops.solve(s, s->bf, s->xf));
  return pds_vec_copy(s->xf, x);
}

/* one inner solve of A d = r (r in s->bf, d in s->xf from 0) to rtol * rnorm: the solver's settings swapped for the
   inner ones and restored, whatever happens */
static int inner_solve(pds_solver s, pds_real rtol, pds_real rnorm, int base) {
  pds_real rt = s->rtol, at = s->atol, bn = s->res.bnorm, r0 = s->res.rnorm0;
  int      mx = s->maxit, ierr;

  s->rtol = rtol, s->atol = 0, s->res.bnorm = rnorm, s->maxit = mx - base;
  s->it_base = base, s->inner = 1;
  ierr = pds_vec_set(s->xf, 0.0);
  if (!ierr) ierr = s->ops.solve(s, s->bf, s->xf);
  s->rtol = rt, s->atol = at, s->res.bnorm = bn, s->res.rnorm0 = r0, s->maxit = mx;
  s->it_base = 0, s->inner = 0;
  return ierr;
}

static int solve_mixed(pds_solver s, pds_vec b, pds_vec x) {
  const pds_real target = fmax(s->rtol * s->res.bnorm, s->atol);
  pds_real       rn, prev = INFINITY;
  int            total = 0, reason, inner_reason = 0;

  for (;;) {
    PDS_CALL(pds_mat_residual(s->A, b, x, s->rd)); /* the true residual, in double */
    PDS_CALL(pds_vec_norm2(s->rd, &rn));
    if (!total) PDS_CALL(pds_solver_record(s, 0, rn)); /* iteration 0 (its norm is rnorm0) */
    reason = pds_ks_conv(rn, total, s->atol, s->rtol * s->res.bnorm, s->dtol, s->res.rnorm0, s->maxit);
    if (!reason && total && !(rn < prev)) reason = inner_reason < 0 ? inner_reason : PDS_DIVERGED_STAGNATION;
    if (reason) break;
    prev = rn;
    PDS_CALL(pds_vec_copy(s->rd, s->bf)); /* r rounded to float */
    PDS_CALL(inner_solve(s, fmax(target / rn, PDS_MIXED_INNER_RTOL), rn, total));
    inner_reason = s->res.reason;
    total += s->res.iterations;
    if (!s->res.iterations) { /* nothing moved (a breakdown at the start): stop with its reason */
      reason = inner_reason < 0 ? inner_reason : PDS_DIVERGED_STAGNATION;
      break;
    }
    PDS_CALL(pds_vec_copy(s->xf, s->dd)); /* d, exactly */
    PDS_CALL(pds_vec_axpy(x, 1.0, s->dd)); /* x += d in double */
  }
  s->res.iterations = total;
  s->res.reason     = reason;
  s->res.rnorm      = rn;
  return PDS_OK;
}

int pds_solver_solve_precision(pds_solver s, pds_vec b, pds_vec x) {
  return s->precision == PDS_PRECISION_SINGLE ? solve_single(s, b, x) : solve_mixed(s, b, x);
}
