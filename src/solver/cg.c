/* src/solver/cg.c: preconditioned conjugate gradients for SPD A and SPD M (Hestenes-Stiefel):
 *   r = b - A x, z = M^-1 r, p = z; repeat: alpha = (r,z)/(p,Ap); x += alpha p; r -= alpha Ap;
 *   z = M^-1 r; beta = (r,z)_new/(r,z)_old; p = z + beta p.
 * Stops on ||r||_2 (the true residual, tracked by the recurrence). CG needs A and M definite, of either sign: a
 * negative definite A (the discrete Laplacian as many CFD codes assemble it) gives (p,Ap) < 0 every iteration and
 * the same iterates as -A. As PETSc's KSPCG: (p,Ap) = 0, or of the other sign than the last iteration's, means A is
 * indefinite, and (r,z) = 0, or of the other sign than the last one, means M is: the solve ends with
 * PDS_DIVERGED_INDEFINITE (x as it was before that iteration); a NaN or infinite one ends it with PDS_DIVERGED_NAN.
 * (PETSc reports (r,z) = 0 as converged; here r is not 0 then, since the test on ||r|| came first.)
 * Each iteration makes one small device-to-host copy (the scalar vector S below): (p, Ap), computed with the
 * product, stays in backend memory and feeds the r update there; the host learns it together with (r,r) and (r,z), after the fact, and takes
 * every decision the unfused method takes, in the same order, with the same numbers. The x update is deferred
 * into the p update (one pass: x += alpha p; p = z + beta p). With no preconditioner z is r itself.
 * Vector traffic per iteration (n-vectors, 8 bytes each), besides A p and M^-1 r: (p,Ap) 0 where the backend fuses
 * it into a csr product (else 2), r update with (r,r) 3, x and p update 5 = 8 passes (+ (r,z) 2 with a
 * preconditioner); the unfused method took 13 (+2 for the copy z = r without one). With no preconditioner that is
 * the bandwidth floor of CG on a csr matrix: 12 nnz + 8 (n+1) + 8 n (p) + 8 n (A p) + 64 n bytes. */
#include <math.h>

#include "solver_impl.h"

/* private data: the scalars S_0 = (p,Ap), S_1 = (r,r), S_2 = (r,z), in backend memory */
static int cg_setup(pds_solver s) {
  PDS_CALL(pds_solver_work(s, 4));
  if (!s->data) {
    pds_vec S;

    PDS_CALL(pds_vec_create(s->hdr.ctx, 4, &S));
    s->data = S;
  }
  return PDS_OK;
}

static int cg_destroy(pds_solver s) {
  pds_vec S = s->data;

  s->data = NULL;
  return pds_vec_destroy(&S);
}

static int cg_solve(pds_solver s, pds_vec b, pds_vec x) {
  pds_vec  r = s->work[0], z = s->work[1], p = s->work[2], q = s->work[3], S = s->data;
  int      none = !strcmp(pds_precond_get_type(s->pc), "none"), x_late = !(s->inftol > 0);
  pds_real rz, rz_old, rr, pq, pq_old, alpha, beta, sc[4]; /* S has 4 entries */

  if (none) z = r;                               /* M = I: z = r, (r,z) = (r,r) */
  PDS_CALL(pds_mat_residual(s->A, b, x, r));     /* r = b - A x */
  if (!none) PDS_CALL(pds_solver_pc_apply(s, r, z)); /* z = M^-1 r */
  PDS_CALL(pds_vec_dot2(r, z, r, &rz, &rr));     /* rz = (r,z), rr = (r,r) */
  PDS_CALL(pds_solver_test(s, 0, sqrt(rr), b, x));
  if (s->res.reason) return PDS_OK;
  PDS_CALL(pds_vec_copy(z, p));                  /* p = z */
  rz_old = rz, pq_old = 0;                       /* the signs the next (r,z) and (p,Ap) must have */
  for (int it = 1;; it++) {
    if (!isfinite(rz) || rz == 0 || (rz < 0) != (rz_old < 0)) { /* M indefinite (or NaN) */
      pds_solver_diverged(s, it - 1, !isfinite(rz) ? PDS_DIVERGED_NAN : PDS_DIVERGED_INDEFINITE);
      return PDS_OK;
    }
    PDS_CALL(pds_vec_fused_apply_dot(s->A, p, q, p, NULL, S, 0)); /* q = A p; S_0 = (p, A p) */
    PDS_CALL(pds_vec_fused_cg_r(r, q, rz, S));   /* r -= (rz / S_0) q (not if S_0 is 0 or not finite); S_1 = (r,r) */
    if (!none) {
      PDS_CALL(pds_solver_pc_apply(s, r, z));    /* z = M^-1 r */
      PDS_CALL(pds_vec_dot_into(r, z, S, 2));    /* S_2 = (r,z) */
    }
    PDS_CALL(pds_vec_get_values(S, sc, PDS_MEM_HOST)); /* the iteration's one copy to the host */
    pq = sc[0], rr = sc[1];
    if (!isfinite(pq) || pq == 0 || (it > 1 && (pq < 0) != (pq_old < 0))) { /* x is as it was before */
      pds_solver_diverged(s, it - 1, !isfinite(pq) ? PDS_DIVERGED_NAN : PDS_DIVERGED_INDEFINITE);
      return PDS_OK;
    }
    pq_old = pq;
    alpha  = rz / pq;
    rz_old = rz;
    rz     = none ? rr : sc[2];
    if (!x_late) PDS_CALL(pds_vec_axpy(x, alpha, p)); /* the infinity-norm test reads x */
    PDS_CALL(pds_solver_test(s, it, sqrt(rr), b, x));
    if (s->res.reason) return x_late ? pds_vec_axpy(x, alpha, p) : PDS_OK; /* x = x + alpha p */
    beta = rz / rz_old;
    if (x_late) PDS_CALL(pds_vec_fused_cg_xp(x, p, z, alpha, beta)); /* x = x + alpha p; p = z + beta p */
    else PDS_CALL(pds_vec_aypx(p, beta, z));     /* p = z + beta p */
  }
}

int pds_solver_create_cg(pds_solver s) {
  s->ops.setup   = cg_setup;
  s->ops.solve   = cg_solve;
  s->ops.destroy = cg_destroy;
  return PDS_OK;
}
