/* src/solver/cg.c: preconditioned conjugate gradients for SPD A and SPD M (Hestenes-Stiefel):
 *   r = b - A x, z = M^-1 r, p = z; repeat: alpha = (r,z)/(p,Ap); x += alpha p; r -= alpha Ap;
 *   z = M^-1 r; beta = (r,z)_new/(r,z)_old; p = z + beta p.
 * Stops on ||r||_2 (the true residual, tracked by the recurrence). CG needs A and M definite, of either sign: a
 * negative definite A (the discrete Laplacian as many CFD codes assemble it) gives (p,Ap) < 0 every iteration and
 * the same iterates as -A. As PETSc's KSPCG: (p,Ap) = 0, or of the other sign than the last iteration's, means A is
 * indefinite, and (r,z) = 0, or of the other sign than the last one, means M is: the solve ends with
 * PDS_DIVERGED_INDEFINITE (x as it was before that iteration); a NaN or infinite one ends it with PDS_DIVERGED_NAN.
 * (PETSc reports (r,z) = 0 as converged; here r is not 0 then, since the test on ||r|| came first.)
 * Every scalar lives in backend memory (the scalar vector S, src/backend/krylov_step.h): (p, Ap), computed with the
 * product, feeds the r update there, and the step after the iteration's reductions (pds_ks_cg_step) takes every
 * decision of the method, in the order above, with the numbers the host loop took before: no iteration needs a
 * value from the host, so src/solver/loop.c runs them on the host or as a device loop. The update that ends an
 * iteration is x += alpha p; p = z + beta p in one pass (x alone when the solve stops there). With no
 * preconditioner z is r itself.
 * Vector traffic per iteration (n-vectors, 8 bytes each), besides A p and M^-1 r: (p,Ap) 0 where the backend fuses
 * it into a csr product (else 2), r update with (r,r) 3, x and p update 5 = 8 passes (+ (r,z) 2 with a
 * preconditioner); the unfused method took 13 (+2 for the copy z = r without one). With no preconditioner that is
 * the bandwidth floor of CG on a csr matrix: 12 nnz + 8 (n+1) + 8 n (p) + 8 n (A p) + 64 n bytes. */
#include <math.h>

#include "solver_impl.h"

/* private data: the scalar vector S (backend memory, src/solver/loop.c) */
static int cg_setup(pds_solver s) { return pds_solver_loop_setup(s, 4); }

struct cg_iter {
  pds_vec x, r, z, p, q, S;
  int     none;
};

/* one iteration, every scalar in S */
static int cg_body(pds_solver s, void *data) {
  struct cg_iter *c = data;
  int             done;

  if (c->none) { /* the whole iteration below in one launch where the backend can (a small system on a GPU) */
    PDS_CALL(pds_mat_fused_cg_iteration(s->A, c->x, c->r, c->p, c->q, c->S, &done));
    if (done) return PDS_OK;
  }

  PDS_CALL(pds_vec_fused_apply_dot(s->A, c->p, c->q, c->p, NULL, c->S, 0)); /* q = A p; S_0 = (p, A p) */
  /* r -= (rz / S_0) q (not if S_0 is 0 or not finite); S_1 = (r,r); without a preconditioner the step follows in the
     same kernel: alpha, the test, beta */
  PDS_CALL(pds_vec_fused_cg_r(c->r, c->q, c->S, c->none ? PDS_KS_STEP_CG : -1));
  if (!c->none) {
    PDS_CALL(pds_solver_pc_apply(s, c->r, c->z)); /* z = M^-1 r */
    PDS_CALL(pds_vec_dot_into(c->r, c->z, c->S, 2)); /* S_2 = (r,z) */
    PDS_CALL(pds_vec_krylov_step(c->S, PDS_KS_STEP_CG));
  }
  return pds_vec_fused_cg_xp(c->x, c->p, c->z, c->S);  /* x += alpha p; p = z + beta p (as the step says) */
}

/* A solve that continues the last one from a replaced residual (s->keep_dir: mixed precision's reliable update,
   src/solver/precision.c; x is the correction from 0, r = b the true residual): the last solve's direction p and
   its (r,z), which S still holds (the step that ended it tested before it replaced RHO), give the next direction
   p = z + ((r,z) / (r,z)_last) p, as if r had been the recurrence's. A last (r,z) of the other sign or not finite
   (it cannot be on an SPD system) gives p = z. */
static int cg_continue(pds_vec S, pds_vec z, pds_vec p, pds_real rz) {
  pds_real Sh[PDS_KS_N], last;

  PDS_CALL(pds_vec_get_values(S, Sh, PDS_MEM_HOST));
  last = Sh[PDS_KS_RHO];
  if (!isfinite(last) || last == 0 || (last < 0) != (rz < 0)) return pds_vec_copy(z, p);
  return pds_vec_axpby(p, 1.0, z, rz / last);
}

static int cg_solve(pds_solver s, pds_vec b, pds_vec x) {
  struct cg_iter c = {x, s->work[0], s->work[1], s->work[2], s->work[3], s->data, 0};
  pds_real       rz, rr, carry[PDS_KS_XP - PDS_KS_ALPHA + 1] = {0};

  c.none = !strcmp(pds_precond_get_type(s->pc), "none");
  if (c.none) c.z = c.r;                             /* M = I: z = r, (r,z) = (r,r) */
  PDS_CALL(pds_mat_residual(s->A, b, x, c.r));       /* r = b - A x */
  if (!c.none) PDS_CALL(pds_solver_pc_apply(s, c.r, c.z)); /* z = M^-1 r */
  PDS_CALL(pds_vec_dot2(c.r, c.z, c.r, &rz, &rr));   /* rz = (r,z), rr = (r,r) */
  PDS_CALL(pds_solver_test(s, 0, sqrt(rr), b, x));
  if (s->res.reason) return PDS_OK;
  if (!isfinite(rz) || rz == 0) {                    /* M indefinite (or NaN) */
    pds_solver_diverged(s, 0, !isfinite(rz) ? PDS_DIVERGED_NAN : PDS_DIVERGED_INDEFINITE);
    return PDS_OK;
  }
  if (s->keep_dir) PDS_CALL(cg_continue(c.S, c.z, c.p, rz)); /* a reliable update: p = z + beta p */
  else PDS_CALL(pds_vec_copy(c.z, c.p));             /* p = z */
  carry[PDS_KS_RHO - PDS_KS_ALPHA] = rz;
  PDS_CALL(pds_solver_loop_init(s, c.S, c.none, carry));
  return pds_solver_loop(s, c.S, cg_body, &c, b, x);
}
int pds_solver_create_cg(pds_solver s) {
  s->ops.setup   = cg_setup;
  s->ops.solve   = cg_solve;
  s->ops.destroy = pds_solver_loop_destroy;
  return PDS_OK;
}
