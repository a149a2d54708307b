/* src/solver/bicgstab.c: BiCGSTAB (van der Vorst 1992, as written in paper 004 ch. 5) with right preconditioning:
 *   r = b - A x, rhat = r; rho = (rhat, r); p = r + beta (p - omega v); v = A M^-1 p; alpha = rho / (rhat, v);
 *   s = r - alpha v; t = A M^-1 s; omega = (t,s)/(t,t); x += alpha M^-1 p + omega M^-1 s; r = s - omega t.
 * Right preconditioning keeps r the true residual, so the 2-norm test is on b - A x.
 * Breakdowns (reported as PDS_DIVERGED_BREAKDOWN): rho = 0, (rhat, v) = 0, or omega = 0 with s != 0.
 * Each iteration makes one small device-to-host copy: (rhat,v), (s,s), (t,s), (t,t), (r,rhat) and (r,r) stay in
 * backend memory (the scalar vector S) and the s and r updates read alpha and omega there; the host reads S once,
 * after the fact, and takes every decision of the unfused method, in its order, with the same numbers. The x
 * update is deferred into the next p update (one pass). With no preconditioner ph is p and sh is s.
 * Vector traffic per iteration (n-vectors) besides 2 products and 2 preconditioner applies: (rhat,v) 1 where the
 * backend fuses it into a csr product (else 2), s update with (s,s) 3, (t,s)+(t,t) 0 fused (else 2), r update with
 * (r,rhat)+(r,r) 4, x and p update 7 = 15 passes (the unfused method took 21, +4 for the copies ph = p, sh = s
 * without a preconditioner). */
#include <math.h>

#include "solver_impl.h"

/* private data: the scalar vector S (6 entries, backend memory) */
static int bicgstab_setup(pds_solver s) {
  PDS_CALL(pds_solver_work(s, 8));
  if (!s->data) {
    pds_vec S;

    PDS_CALL(pds_vec_create(s->hdr.ctx, 6, &S));
    s->data = S;
  }
  return PDS_OK;
}

static int bicgstab_destroy(pds_solver s) {
  pds_vec S = s->data;

  s->data = NULL;
  return pds_vec_destroy(&S);
}

static int bicgstab_solve(pds_solver S, pds_vec b, pds_vec x) {
  pds_vec  r = S->work[0], rhat = S->work[1], p = S->work[2], v = S->work[3], s = S->work[4], t = S->work[5];
  pds_vec  ph = S->work[6], sh = S->work[7], sv = S->data;
  int      none = !strcmp(pds_precond_get_type(S->pc), "none"), x_late = !(S->inftol > 0), p_done = 0;
  pds_real rho, rho_old = 1, alpha = 1, omega = 1, beta, rv, ts, tt, rr, snorm, c[6];

  if (none) ph = p, sh = s;                            /* M = I */
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
    if (!p_done) {
      beta = (rho / rho_old) * (alpha / omega);
      PDS_CALL(pds_vec_axpbypcz(p, 1.0, r, -beta * omega, v, beta)); /* p = r + beta (p - omega v) */
    }
    p_done = 0;
    if (!none) PDS_CALL(pds_solver_pc_apply(S, p, ph)); /* ph = M^-1 p */
    PDS_CALL(pds_vec_fused_apply_dot(S->A, ph, v, rhat, NULL, sv, 0)); /* v = A ph; S_0 = (rhat, v) */
    PDS_CALL(pds_vec_fused_bicgstab_s(s, r, v, rho, sv)); /* s = r - (rho / S_0) v; S_1 = (s, s) */
    if (!none) PDS_CALL(pds_solver_pc_apply(S, s, sh)); /* sh = M^-1 s */
    PDS_CALL(pds_vec_fused_apply_dot(S->A, sh, t, s, t, sv, 2)); /* t = A sh; S_2 = (t,s), S_3 = (t,t) */
    PDS_CALL(pds_vec_fused_bicgstab_r(r, s, t, rhat, sv)); /* r = s - (S_2 / S_3) t; S_4 = (r, rhat), S_5 = (r, r) */
    PDS_CALL(pds_vec_get_values(sv, c, PDS_MEM_HOST)); /* the iteration's one copy to the host */
    rv = c[0];
    if (rv == 0 || !isfinite(rv)) {
      pds_solver_diverged(S, it - 1, isfinite(rv) ? PDS_DIVERGED_BREAKDOWN : PDS_DIVERGED_NAN);
      return PDS_OK;
    }
    alpha = rho / rv;                                  /* alpha = rho / (rhat, v) */
    snorm = sqrt(c[1]);
    if (snorm <= fmax(S->atol, S->rtol * S->res.bnorm)) {
      /* half step is enough: x = x + alpha ph */
      PDS_CALL(pds_vec_axpy(x, alpha, ph));
      return pds_solver_test(S, it, snorm, b, x);      /* converged (or NaN): the test says which */
    }
    ts = c[2], tt = c[3];
    if (tt == 0 || !isfinite(tt)) {
      pds_solver_diverged(S, it - 1, isfinite(tt) ? PDS_DIVERGED_BREAKDOWN : PDS_DIVERGED_NAN);
      return PDS_OK;
    }
    omega   = ts / tt;                                 /* omega = (t,s)/(t,t) */
    rho_old = rho;
    rho     = c[4], rr = c[5];                         /* rho = (rhat, r), rr = (r, r) */
    if (!x_late) PDS_CALL(pds_vec_axpbypcz(x, alpha, ph, omega, sh, 1.0)); /* the infinity-norm test reads x */
    PDS_CALL(pds_solver_test(S, it, sqrt(rr), b, x));
    if (S->res.reason || omega == 0 || (x_late && rho == 0)) {
      if (x_late) PDS_CALL(pds_vec_axpbypcz(x, alpha, ph, omega, sh, 1.0)); /* x = x + alpha ph + omega sh */
      if (!S->res.reason) pds_solver_diverged(S, it, PDS_DIVERGED_BREAKDOWN); /* omega = 0, or rho = 0 next */
      return PDS_OK;
    }
    if (x_late) {
      beta = (rho / rho_old) * (alpha / omega);
      PDS_CALL(pds_vec_fused_bicgstab_xp(x, p, ph, sh, r, v, alpha, omega, beta)); /* x += alpha ph + omega sh;
                                                                                      p = r + beta (p - omega v) */
      p_done = 1;
    }
  }
}

int pds_solver_create_bicgstab(pds_solver s) {
  s->ops.setup   = bicgstab_setup;
  s->ops.solve   = bicgstab_solve;
  s->ops.destroy = bicgstab_destroy;
  return PDS_OK;
}
