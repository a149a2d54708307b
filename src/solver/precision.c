/* src/solver/precision.c: single and mixed precision solves (pds_solver_set_precision).
 *
 * single: the method runs on single-precision vectors (src/vec/vec_f32.c) with the matrix values rounded to float
 *         (src/mat/csr_f32.c); every reduction is accumulated in double, the method's scalars (S) stay double, so
 *         the iteration is deterministic and takes the same path as in double (host or device loop). b and the
 *         initial guess are rounded to float on entry, the iterate converted back (exactly) on exit. The tracked
 *         residual is the float recurrence's; it can fall below what float can resolve while the true residual
 *         stalls near eps_f cond(A) ||b|| (paper 004 sees BiCGSTAB stall or diverge in float from grid 3 on).
 * mixed, cg: float CG with reliable updates (Sleijpen & van der Vorst 1996; Clark et al. 2010 for GPUs): the
 *         single-precision iteration runs as above on the true residual r = b - A x (double, rounded to float) from
 *         a zero correction until its recurrence's residual has fallen by PDS_MIXED_RELIABLE_DELTA (or below the
 *         solve's tolerance); then x += correction in double, r is recomputed in double, and CG goes on from the
 *         new r with its search direction kept (cg.c: keep_dir), so the Krylov space survives the update. The test
 *         that ends the solve is on the true residual, so it stops on rtol/atol as a double solve does with
 *         double's accuracy. Measured (docs/dev.md): 1.00-1.01x double's iterations to 1e-6 on paper 004's
 *         grids 3-5 (symmetric boundary rows), 1.13-1.15x to 1e-10, each at a float iteration's cost; the FGMRES
 *         scheme below took 1.5-1.8x on the same systems, plain refinement (p restarted at every update)
 *         1.15-1.35x.
 * mixed, bicgstab and richardson: flexible GMRES in double preconditioned by single-precision solves (inner-outer,
 *         "GMRES-based iterative refinement": Carson & Higham 2018; Anzt, Heuveline et al. for GPUs): the outer
 *         FGMRES(m) runs on the double matrix and vectors and keeps the Krylov space from one inner solve to the
 *         next; each of its preconditioner applications z = M^-1 v is a solve of A z = v in single precision (the
 *         solver's method and preconditioner) to the relative tolerance PDS_MIXED_INNER_RTOL. The outer
 *         least-squares residual is the true residual in double, so the solve stops on rtol/atol as a double solve
 *         does and reaches double's accuracy; almost all the work is float iterations. Plain iterative refinement
 *         (x += d, d from a float solve of A d = r) was measured first and dropped: it restarts the Krylov space at
 *         every step, and on paper 004's grids 5 and 6 (cond(A) eps_f about 0.02-0.1) float BiCGSTAB drifts and
 *         diverges before it reaches the reduction one step needs, so refinement diverged with it (docs/dev.md has
 *         the numbers). An inner solve that breaks down or diverges (its residual past twice ||v||:
 *         PDS_MIXED_INNER_DTOL) gives z = v (an unpreconditioned outer step) instead of its iterate.
 *         BiCGSTAB with reliable updates was measured too: 1.12-1.24x double's iterations on grids 3 and 4, but it
 *         diverged on grid 5, where FGMRES converges.
 * Mixed, both schemes: every inner iteration is an iteration of the solve: the monitor and the history see them
 *         numbered on from the previous inner solve, each with the inner recurrence's norm (FGMRES: relative to its
 *         right-hand side, ||v|| = 1, times the outer residual before that outer step): an estimate of the residual,
 *         on the scale of the true one (iteration 0 is the true initial residual). The result's rnorm is the true
 *         residual of the final x (computed in double), its reason the test on it (FGMRES: the outer solve's).
 * Single and mixed: csr operators, the methods cg, bicgstab and richardson, the preconditioners none and jacobi, no
 * infinity-norm test; anything else is an error at setup that says what is supported. */
#include <math.h>

#include "solver_impl.h"

/* the inner solves' relative tolerance: one digit per outer step, which float resolves even where cond(A) eps_f is
   near 0.1. Measured on paper 004's grids 3 and 5 with BiCGSTAB (docs/dev.md): 1e-1 took the fewest iterations of
   1e-1, 3e-2, 1e-2 and 1e-3, and the others did not converge on grid 5 within 6000 */
#ifndef PDS_MIXED_INNER_RTOL
#define PDS_MIXED_INNER_RTOL 1e-1
#endif
/* an inner solve ends when its float recurrence's residual grows past twice its right-hand side's norm: float
   BiCGSTAB on an ill-conditioned system can wander up by orders of magnitude for hundreds of iterations before it
   comes back or blows up (paper 004's grid 5); the outer step then takes z = v. Measured (docs/dev.md): grid 5 took
   4438 iterations with the solver's dtol (1e10), 3012 with 100, 2156 with 10, 1181 with 2, 1085 with 1.5, 1497 with
   1.1; 2 is the best over grids 3, 4 and 5 together. Its price on nonsymmetric systems, whose BiCGSTAB residual
   rises on the way down in any precision: t402's 40 x 40 convection-diffusion took 148 iterations (59 in double),
   against 132 with 10 and under 128 with 100 */
#define PDS_MIXED_INNER_DTOL 2.0
/* mixed cg: the reduction of the float recurrence's residual after which x and r are updated in double. Each update
   costs a double residual and one float product; between updates the gap between the recurrence and the true
   residual grows to about eps_f ||A|| ||correction||. Measured in a NumPy model of the method on paper 004's grids
   3-5 with symmetric boundary rows (docs/dev.md): 0.1 and 0.01 took the same iterations to 1e-6, 0.1 up to 3%
   fewer to 1e-10 (QUDA's default is 0.1 too) */
#ifndef PDS_MIXED_RELIABLE_DELTA
#define PDS_MIXED_RELIABLE_DELTA 1e-1
#endif

static int mixed_outer_create(pds_solver s);
/* mixed: cg takes reliable updates (no outer solver), bicgstab and richardson the FGMRES scheme */
static int mixed_is_reliable(pds_solver s) { return !strcmp(s->type, "cg"); }

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
    if (!s->outer && !mixed_is_reliable(s)) PDS_CALL(mixed_outer_create(s));
  }
  return PDS_OK;
}

/* a vector float can hold: every entry finite once rounded (values just above FLT_MAX round to it) */
static int check_float_range(pds_solver s, pds_vec v, const char *name) {
  pds_real m;

  PDS_CALL(pds_vec_norm_inf(v, &m));
  PDS_CHECK(isfinite((float)m), s->hdr.ctx, PDS_ERR_ARG, "%s has an entry of magnitude %g, outside the range of single "
            "precision (3.4e38): solve in double", name, m);
  return PDS_OK;
}

/* single: round b and x to float, iterate, convert x back (x is untouched when the solve fails with an error) */
static int solve_single(pds_solver s, pds_vec b, pds_vec x) {
  PDS_CALL(check_float_range(s, b, "b"));
  PDS_CALL(check_float_range(s, x, "the initial guess x"));
  PDS_CALL(pds_vec_copy(b, s->bf));
  PDS_CALL(pds_vec_copy(x, s->xf));
  PDS_CALL(s->ops.solve(s, s->bf, s->xf));
  return pds_vec_copy(s->xf, x);
}

/* one inner solve of A z = v (v in s->bf, z in s->xf from 0) to rtol relative to ||v|| (or atol), ended as
   diverged past dtol ||v||, numbered on from the iterations before it: the solver's settings swapped for the inner
   ones and restored, whatever happens */
static int inner_solve(pds_solver s, pds_real rtol, pds_real vnorm, pds_real atol, pds_real dtol) {
  pds_real rt = s->rtol, at = s->atol, bn = s->res.bnorm, r0 = s->res.rnorm0, dt = s->dtol;
  int      mx = s->maxit, ierr;

  s->rtol = rtol, s->atol = atol, s->res.bnorm = vnorm, s->maxit = mx - s->mixed_its;
  s->dtol = dtol;
  s->inner = 1;
  ierr = pds_vec_set(s->xf, 0.0);
  if (!ierr && s->maxit > 0) ierr = s->ops.solve(s, s->bf, s->xf);
  else if (!ierr) s->res.iterations = 0, s->res.reason = PDS_DIVERGED_MAXIT;
  s->rtol = rt, s->atol = at, s->res.bnorm = bn, s->res.rnorm0 = r0, s->maxit = mx, s->dtol = dt;
  s->inner = 0;
  return ierr;
}

/* the outer solver's preconditioner: z = (single-precision solve of A z = v), or z = v when that solve breaks down
   or diverges (its iterate is then no approximation of A^-1 v) */
static int mixed_pc_apply(void *user, pds_vec v, pds_vec z) {
  pds_solver s = user;
  pds_real   vn;

  PDS_CALL(pds_vec_norm2(v, &vn));
  PDS_CALL(pds_vec_copy(v, s->bf)); /* v rounded to float */
  PDS_CALL(inner_solve(s, PDS_MIXED_INNER_RTOL, vn, 0, PDS_MIXED_INNER_DTOL));
  s->mixed_its += s->res.iterations;
  if (s->res.reason < 0 && s->res.reason != PDS_DIVERGED_MAXIT) return pds_vec_copy(v, z);
  return pds_vec_copy(s->xf, z); /* exactly */
}

/* the outer solver's monitor: its residual after each outer iteration, the scale of the next inner solve's records */
static int mixed_outer_monitor(void *user, int it, pds_real rnorm) {
  pds_solver s = user;

  (void)it;
  s->inner_scale = rnorm;
  return 0;
}

static int mixed_outer_create(pds_solver s) {
  pds_ctx     ctx = s->hdr.ctx;
  pds_precond pc  = NULL;
  int         ierr;

  PDS_CALL(pds_solver_create(ctx, "fgmres", &s->outer));
  PDS_CALL_GOTO(ierr, fail, pds_precond_create(ctx, "shell", &pc));
  PDS_CALL_GOTO(ierr, fail, pds_precond_shell_set(pc, s, NULL, mixed_pc_apply));
  PDS_CALL_GOTO(ierr, fail, pds_solver_set_operator(s->outer, s->A));
  PDS_CALL_GOTO(ierr, fail, pds_solver_set_precond(s->outer, pc));
  PDS_CALL_GOTO(ierr, fail, pds_solver_set_restart(s->outer, s->restart));
  PDS_CALL_GOTO(ierr, fail, pds_solver_set_monitor(s->outer, mixed_outer_monitor, s));
  s->outer->orthog_passes = s->orthog_passes;
  s->outer->device_loop   = s->device_loop;
fail:
  pds_precond_destroy(&pc); /* the outer solver holds its reference */
  if (ierr) pds_solver_destroy(&s->outer);
  return ierr;
}

/* mixed cg: float CG on the true residual, x and r updated in double after every PDS_MIXED_RELIABLE_DELTA of
   reduction, the direction kept (cg.c). On entry s->rd is the true residual of x and *rn its norm; on return the
   same for the final x, and *reason the test on it (or the float iteration's breakdown or divergence) */
static int mixed_reliable(pds_solver s, pds_vec b, pds_vec x, pds_real *rn, int *reason) {
  const pds_real tol = fmax(s->atol, s->rtol * s->res.bnorm), r0 = *rn; /* the solve's test as an absolute bound */
  int            ierr, its;

  s->inner_scale = 1.0; /* the inner norms are the float recurrence's, on the true scale */
  for (int first = 1; !*reason; first = 0) {
    PDS_CALL(pds_vec_copy(s->rd, s->bf)); /* the true residual, rounded to float */
    s->keep_dir = !first;
    /* to delta ||r|| or the solve's tolerance; diverged when past dtol times the solve's initial residual */
    ierr = inner_solve(s, PDS_MIXED_RELIABLE_DELTA, *rn, tol, s->dtol * r0 / *rn);
    s->keep_dir = 0;
    PDS_CALL(ierr);
    its = s->res.iterations, *reason = s->res.reason;
    s->mixed_its += its;
    if (*reason != PDS_DIVERGED_NAN) { /* x += correction (converted exactly), then the true residual */
      PDS_CALL(pds_vec_copy(s->xf, s->rd));
      PDS_CALL(pds_vec_axpy(x, 1.0, s->rd));
    }
    PDS_CALL(pds_mat_residual(s->A, b, x, s->rd));
    PDS_CALL(pds_vec_norm2(s->rd, rn));
    if (*reason < 0 && *reason != PDS_DIVERGED_MAXIT) break; /* a breakdown or divergence of the float iteration */
    *reason = pds_ks_conv(*rn, s->mixed_its, s->atol, s->rtol * s->res.bnorm, s->dtol, r0, s->maxit);
    /* no float step made (the float residual already met the bound): float resolves no more; stop */
    if (!*reason && its == 0) *reason = PDS_DIVERGED_BREAKDOWN;
  }
  return PDS_OK;
}

/* mixed bicgstab, richardson: the outer FGMRES in double, its preconditioner the float solves (mixed_pc_apply); on
   return *rn is the true residual of the final x, *reason the outer solve's */
static int mixed_fgmres(pds_solver s, pds_vec b, pds_vec x, pds_real *rn, int *reason) {
  pds_solver o = s->outer;

  o->rtol = s->rtol, o->atol = s->atol, o->dtol = s->dtol, o->maxit = s->maxit;
  PDS_CALL(pds_solver_solve(o, b, x));
  *reason = o->res.reason;
  PDS_CALL(pds_mat_residual(s->A, b, x, s->rd));
  return pds_vec_norm2(s->rd, rn);
}

/* iteration 0: the true residual of the initial guess, recorded and tested as any method's; then the scheme; the
   result's norm is the true residual of the final x */
static int solve_mixed(pds_solver s, pds_vec b, pds_vec x) {
  pds_real rn;
  int      reason;

  PDS_CALL(pds_mat_residual(s->A, b, x, s->rd));
  PDS_CALL(pds_vec_norm2(s->rd, &rn));
  PDS_CALL(pds_solver_test(s, 0, rn, b, NULL));
  reason       = s->res.reason;
  s->mixed_its = 0;
  if (!reason) PDS_CALL((mixed_is_reliable(s) ? mixed_reliable : mixed_fgmres)(s, b, x, &rn, &reason));
  s->res.iterations = s->mixed_its;
  s->res.reason     = reason;
  s->res.rnorm      = rn;
  return PDS_OK;
}

int pds_solver_solve_precision(pds_solver s, pds_vec b, pds_vec x) {
  return s->precision == PDS_PRECISION_SINGLE ? solve_single(s, b, x) : solve_mixed(s, b, x);
}
