/* src/solver/bicgstab.c: BiCGSTAB (van der Vorst 1992, as written in paper 004 ch. 5) with right preconditioning:
 *   r = b - A x, rhat = r; rho = (rhat, r); p = r + beta (p - omega v); v = A M^-1 p; alpha = rho / (rhat, v);
 *   s = r - alpha v; t = A M^-1 s; omega = (t,s)/(t,t); x += alpha M^-1 p + omega M^-1 s; r = s - omega t.
 * Right preconditioning keeps r the true residual, so the 2-norm test is on b - A x.
 * Breakdowns (reported as PDS_DIVERGED_BREAKDOWN): rho = 0, (rhat, v) = 0, or omega = 0 with s != 0.
 * Vector traffic per iteration (n-vectors) besides 2 products and 2 preconditioner applies: p update 4,
 * (rhat,v) 2, s 3, ||s|| 1, (t,s)+(t,t) 2, x update 4, r 3, (r,rhat)+(r,r) 2 = 21 passes (fused pairs). */
#include <math.h>

#include "solver_impl.h"

static int bicgstab_setup(pds_solver s) { return pds_solver_work(s, 8); }

static int bicgstab_solve(pds_solver S, pds_vec b, pds_vec x) {
  pds_vec  r = S->work[0], rhat = S->work[1], p = S->work[2], v = S->work[3], s = S->work[4], t = S->work[5];
  pds_vec  ph = S->work[6], sh = S->work[7];
  pds_real rho, rho_old = 1, alpha = 1, omega = 1, beta, rv, ts, tt, rr, snorm;

  PDS_CALL(pds_mat_residual(S->A, b, x, r));           /* r = b - A x */
  PDS_CALL(pds_vec_copy(r, rhat));                     /* rhat = r */
  PDS_CALL(pds_vec_dot2(r, rhat, r, &rho, &rr));       /* rho = (rhat, r), rr = (r, r) */
  PDS_CALL(pds_solver_test(S, 0, sqrt(rr), b, x));
  if (S->res.reason) return PDS_OK;
  PDS_CALL(pds_vec_set(v, 0.0));
  PDS_CALL(pds_vec_set(p, 0.0));
  for (int it = 1;; it++) {
    if (rho == 0) {
      pds_solver_diverged(S, it - 1, PDS_DIVERGED_BREAKDOWN);
      return PDS_OK;
    }
    beta = (rho / rho_old) * (alpha / omega);
    PDS_CALL(pds_vec_axpbypcz(p, 1.0, r, -beta * omega, v, beta)); /* p = r + beta (p - omega v) */
    PDS_CALL(pds_solver_pc_apply(S, p, ph));           /* ph = M^-1 p */
    PDS_CALL(pds_mat_apply(S->A, ph, v));              /* v = A ph */
    PDS_CALL(pds_vec_dot(rhat, v, &rv));
    if (rv == 0 || !isfinite(rv)) {
      pds_solver_diverged(S, it - 1, isfinite(rv) ? PDS_DIVERGED_BREAKDOWN : PDS_DIVERGED_NAN);
      return PDS_OK;
    }
    alpha = rho / rv;                                  /* alpha = rho / (rhat, v) */
    PDS_CALL(pds_vec_waxpy(s, -alpha, v, r));          /* s = r - alpha v */
    PDS_CALL(pds_vec_norm2(s, &snorm));
    if (snorm <= fmax(S->atol, S->rtol * S->res.bnorm)) {
      /* half step is enough: x = x + alpha ph */
      PDS_CALL(pds_vec_axpy(x, alpha, ph));
      return pds_solver_test(S, it, snorm, b, x);      /* converged (or NaN): the test says which */
    }
    PDS_CALL(pds_solver_pc_apply(S, s, sh));           /* sh = M^-1 s */
    PDS_CALL(pds_mat_apply(S->A, sh, t));              /* t = A sh */
    PDS_CALL(pds_vec_dot2(t, s, t, &ts, &tt));         /* ts = (t,s), tt = (t,t) */
    if (tt == 0 || !isfinite(tt)) {
      pds_solver_diverged(S, it - 1, isfinite(tt) ? PDS_DIVERGED_BREAKDOWN : PDS_DIVERGED_NAN);
      return PDS_OK;
    }
    omega = ts / tt;                                   /* omega = (t,s)/(t,t) */
    PDS_CALL(pds_vec_axpbypcz(x, alpha, ph, omega, sh, 1.0)); /* x = x + alpha ph + omega sh */
    PDS_CALL(pds_vec_waxpy(r, -omega, t, s));          /* r = s - omega t */
    rho_old = rho;
    PDS_CALL(pds_vec_dot2(r, rhat, r, &rho, &rr));     /* rho = (rhat, r), rr = (r, r) */
    PDS_CALL(pds_solver_test(S, it, sqrt(rr), b, x));
    if (S->res.reason) return PDS_OK;
    if (omega == 0) {
      pds_solver_diverged(S, it, PDS_DIVERGED_BREAKDOWN);
      return PDS_OK;
    }
  }
}

int pds_solver_create_bicgstab(pds_solver s) {
  s->ops.setup = bicgstab_setup;
  s->ops.solve = bicgstab_solve;
  return PDS_OK;
}
