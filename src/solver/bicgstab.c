/* src/solver/bicgstab.c: BiCGSTAB (van der Vorst 1992, as written in paper 004 ch. 5) with right preconditioning:
 *   r = b - A x, rhat = r; rho = (rhat, r); p = r + beta (p - omega v); v = A M^-1 p; alpha = rho / (rhat, v);
 *   s = r - alpha v; t = A M^-1 s; omega = (t,s)/(t,t); x += alpha M^-1 p + omega M^-1 s; r = s - omega t.
 * Right preconditioning keeps r the true residual, so the 2-norm test is on b - A x.
 * Breakdowns (reported as PDS_DIVERGED_BREAKDOWN): rho = 0, (rhat, v) = 0, or omega = 0 with s != 0.
 * Every scalar lives in backend memory (the scalar vector S, src/backend/krylov_step.h): (rhat,v), (s,s), (t,s),
 * (t,t), (r,rhat) and (r,r) are computed with the products and updates, the s and r updates read alpha and omega
 * there, and the step after the iteration's reductions (pds_ks_bicg_step) takes every decision of the method, in its
 * order, with the numbers the host loop took before: no iteration needs a value from the host, so src/solver/loop.c
 * runs them on the host or as a device loop. The update that ends an iteration is x += alpha ph + omega sh and the
 * next p in one pass (x alone, or the half step x += alpha ph, when the solve stops there). With no preconditioner
 * ph is p and sh is s.
 * Vector traffic per iteration (n-vectors) besides 2 products and 2 preconditioner applies: (rhat,v) 1 where the
 * backend fuses it into a csr product (else 2), s update with (s,s) 3, (t,s)+(t,t) 0 fused (else 2), r update with
 * (r,rhat)+(r,r) 4, x and p update 7 = 15 passes (the unfused method took 21, +4 for the copies ph = p, sh = s
 * without a preconditioner). */
#include <math.h>

#include "solver_impl.h"

/* private data: the scalar vector S (backend memory, src/solver/loop.c) */
static int bicgstab_setup(pds_solver s) { return pds_solver_loop_setup(s, 8); }

struct bicg_iter {
  pds_vec x, r, rhat, p, v, s, t, ph, sh, S;
  int     none;
};

/* one iteration, every scalar in S */
static int bicgstab_body(pds_solver S, void *data) {
  struct bicg_iter *c = data;
  int               done;

  if (c->none) { /* the whole iteration below in one launch where the backend can (a small system on a GPU) */
    PDS_CALL(pds_mat_fused_bicgstab_iteration(S->A, c->x, c->r, c->rhat, c->p, c->v, c->s, c->t, c->S, &done));
    if (done) return PDS_OK;
  }

  if (!c->none) PDS_CALL(pds_solver_pc_apply(S, c->p, c->ph));             /* ph = M^-1 p */
  PDS_CALL(pds_vec_fused_apply_dot(S->A, c->ph, c->v, c->rhat, NULL, c->S, 0)); /* v = A ph; S_0 = (rhat, v) */
  PDS_CALL(pds_vec_fused_bicgstab_s(c->s, c->r, c->v, c->S));             /* s = r - (rho / S_0) v; S_1 = (s, s) */
  if (!c->none) PDS_CALL(pds_solver_pc_apply(S, c->s, c->sh));             /* sh = M^-1 s */
  PDS_CALL(pds_vec_fused_apply_dot(S->A, c->sh, c->t, c->s, c->t, c->S, 2)); /* t = A sh; S_2 = (t,s), S_3 = (t,t) */
  /* r = s - (S_2 / S_3) t; S_4 = (r, rhat), S_5 = (r, r); then the step in the same kernel: alpha, omega, the tests,
     beta */
  PDS_CALL(pds_vec_fused_bicgstab_r(c->r, c->s, c->t, c->rhat, c->S, PDS_KS_STEP_BICG));
  return pds_vec_fused_bicgstab_xp(c->x, c->p, c->ph, c->sh, c->r, c->v, c->S); /* x += alpha ph + omega sh;
                                                                                   p = r + beta (p - omega v) */
}

static int bicgstab_solve(pds_solver S, pds_vec b, pds_vec x) {
  struct bicg_iter c = {x, S->work[0], S->work[1], S->work[2], S->work[3], S->work[4], S->work[5], S->work[6],
                        S->work[7], S->data, 0};
  pds_real         rho, rr, beta, carry[PDS_KS_XP - PDS_KS_ALPHA + 1] = {0};

  c.none = !strcmp(pds_precond_get_type(S->pc), "none");
  if (c.none) c.ph = c.p, c.sh = c.s;                  /* M = I */
  PDS_CALL(pds_mat_residual(S->A, b, x, c.r));         /* r = b - A x */
  PDS_CALL(pds_vec_copy(c.r, c.rhat));                 /* rhat = r */
  PDS_CALL(pds_vec_dot2(c.r, c.rhat, c.r, &rho, &rr)); /* rho = (rhat, r), rr = (r, r) */
  PDS_CALL(pds_solver_test(S, 0, sqrt(rr), b, x));
  if (S->res.reason) return PDS_OK;
  if (rho == 0) {
    pds_solver_diverged(S, 0, PDS_DIVERGED_BREAKDOWN);
    return PDS_OK;
  }
  PDS_CALL(pds_vec_set(c.v, 0.0));
  PDS_CALL(pds_vec_set(c.p, 0.0));
  beta = (rho / 1.0) * (1.0 / 1.0);                    /* rho_old = alpha = omega = 1 */
  PDS_CALL(pds_vec_axpbypcz(c.p, 1.0, c.r, -beta * 1.0, c.v, beta)); /* p = r + beta (p - omega v) */
  carry[PDS_KS_RHO - PDS_KS_ALPHA] = rho;
  PDS_CALL(pds_solver_loop_init(S, c.S, c.none, carry));
  return pds_solver_loop(S, c.S, bicgstab_body, &c, b, x);
}
int pds_solver_create_bicgstab(pds_solver s) {
  s->ops.setup   = bicgstab_setup;
  s->ops.solve   = bicgstab_solve;
  s->ops.destroy = pds_solver_loop_destroy;
  return PDS_OK;
}
