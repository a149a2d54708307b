/* src/solver/cg.c: preconditioned conjugate gradients for SPD A and SPD M (Hestenes-Stiefel):
 *   r = b - A x, z = M^-1 r, p = z; repeat: alpha = (r,z)/(p,Ap); x += alpha p; r -= alpha Ap;
 *   z = M^-1 r; beta = (r,z)_new/(r,z)_old; p = z + beta p.
 * Stops on ||r||_2 (the true residual, tracked by the recurrence). p^T A p <= 0 or (r,z) < 0 means A or M is
 * not SPD: the solve ends with PDS_DIVERGED_INDEFINITE.
 * Vector traffic per iteration (n-vectors, 8 bytes each), besides A p and M^-1 r: (p,Ap) 2, x update 3,
 * r update 3, (r,z) and ||r|| in one pass 2, p update 3 = 13 passes. */
#include <math.h>

#include "solver_impl.h"

static int cg_setup(pds_solver s) { return pds_solver_work(s, 4); }

static int cg_solve(pds_solver s, pds_vec b, pds_vec x) {
  pds_vec  r = s->work[0], z = s->work[1], p = s->work[2], q = s->work[3];
  pds_real rz, rz_old, rr, pq, alpha, beta;
  int      it = 0;

  PDS_CALL(pds_mat_residual(s->A, b, x, r));     /* r = b - A x */
  PDS_CALL(pds_solver_pc_apply(s, r, z));        /* z = M^-1 r */
  PDS_CALL(pds_vec_dot2(r, z, r, &rz, &rr));     /* rz = (r,z), rr = (r,r) */
  PDS_CALL(pds_solver_test(s, 0, sqrt(rr), b, x));
  if (s->res.reason) return PDS_OK;
  PDS_CALL(pds_vec_copy(z, p));                  /* p = z */
  for (it = 1;; it++) {
    if (!(rz > 0)) {                             /* M not SPD (or NaN) */
      pds_solver_diverged(s, it - 1, isnan(rz) ? PDS_DIVERGED_NAN : PDS_DIVERGED_INDEFINITE);
      return PDS_OK;
    }
    PDS_CALL(pds_mat_apply(s->A, p, q));         /* q = A p */
    PDS_CALL(pds_vec_dot(p, q, &pq));            /* pq = (p, A p) */
    if (!(pq > 0)) {
      pds_solver_diverged(s, it - 1, isnan(pq) ? PDS_DIVERGED_NAN : PDS_DIVERGED_INDEFINITE);
      return PDS_OK;
    }
    alpha = rz / pq;
    PDS_CALL(pds_vec_axpy(x, alpha, p));         /* x = x + alpha p */
    PDS_CALL(pds_vec_axpy(r, -alpha, q));        /* r = r - alpha A p */
    PDS_CALL(pds_solver_pc_apply(s, r, z));      /* z = M^-1 r */
    rz_old = rz;
    PDS_CALL(pds_vec_dot2(r, z, r, &rz, &rr));   /* rz = (r,z), rr = (r,r) */
    PDS_CALL(pds_solver_test(s, it, sqrt(rr), b, x));
    if (s->res.reason) return PDS_OK;
    beta = rz / rz_old;
    PDS_CALL(pds_vec_aypx(p, beta, z));          /* p = z + beta p */
  }
}

int pds_solver_create_cg(pds_solver s) {
  s->ops.setup = cg_setup;
  s->ops.solve = cg_solve;
  return PDS_OK;
}
