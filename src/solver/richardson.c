/* src/solver/richardson.c: preconditioned Richardson (defect correction, paper 000 Eq. 4):
 *   r = b - A x; x = x + omega M^-1 r, repeated; stops on ||r||_2 of the residual it computes anyway.
 * The iteration (z = M^-1 r; x += omega z; r = b - A x; S_0 = (r,r)) ends in the test step on sqrt(S_0), in
 * backend memory (src/backend/krylov_step.h), so src/solver/loop.c runs it on the host or as a device loop. The x
 * update is the x part of CG's fused update (alpha = omega, from S), which the step turns off once the solve ended;
 * its bits are those of x = omega z + 1 x. */
#include <math.h>

#include "solver_impl.h"

/* private data: the scalar vector S (backend memory, src/solver/loop.c) */
static int richardson_setup(pds_solver s) { return pds_solver_loop_setup(s, 2); }

struct richardson_iter {
  pds_vec b, x, r, z, S;
};

static int richardson_body(pds_solver s, void *data) {
  struct richardson_iter *c = data;

  PDS_CALL(pds_solver_pc_apply(s, c->r, c->z));       /* M xi = r */
  PDS_CALL(pds_vec_fused_cg_xp(c->x, c->z, c->r, c->S)); /* x = x + omega xi (alpha = omega; x only, and not once the
                                                            solve has ended: S says) */
  PDS_CALL(pds_mat_residual(s->A, c->b, c->x, c->r));  /* r = b - A x */
  PDS_CALL(pds_vec_dot_into(c->r, c->r, c->S, 0));     /* S_0 = (r,r) */
  return pds_vec_krylov_step(c->S, PDS_KS_STEP_NORM);  /* the test on sqrt(S_0) */
}

static int richardson_solve(pds_solver s, pds_vec b, pds_vec x) {
  struct richardson_iter c = {b, x, s->work[0], s->work[1], s->data};
  pds_real               rnorm, carry[PDS_KS_XP - PDS_KS_ALPHA + 1] = {0};

  PDS_CALL(pds_mat_residual(s->A, b, x, c.r));         /* r = b - A x */
  PDS_CALL(pds_vec_norm2(c.r, &rnorm));
  PDS_CALL(pds_solver_test(s, 0, rnorm, b, x));
  if (s->res.reason) return PDS_OK;
  carry[PDS_KS_ALPHA - PDS_KS_ALPHA] = s->omega;
  carry[PDS_KS_XP - PDS_KS_ALPHA]    = PDS_KS_XP_X;
  PDS_CALL(pds_solver_loop_init(s, c.S, 0, carry));
  return pds_solver_loop(s, c.S, richardson_body, &c, b, x);
}

static int richardson_view(pds_solver s, FILE *f) {
  fprintf(f, "  damping omega %g\n", s->omega);
  return PDS_OK;
}

int pds_solver_create_richardson(pds_solver s) {
  s->ops.setup   = richardson_setup;
  s->ops.solve   = richardson_solve;
  s->ops.view    = richardson_view;
  s->ops.destroy = pds_solver_loop_destroy;
  return PDS_OK;
}
