/* src/solver/richardson.c: preconditioned Richardson (defect correction, paper 000 Eq. 4):
 *   r = b - A x; x = x + omega M^-1 r, repeated; stops on ||r||_2 of the residual it computes anyway. */
#include <math.h>

#include "solver_impl.h"

static int richardson_setup(pds_solver s) { return pds_solver_work(s, 2); }

static int richardson_solve(pds_solver s, pds_vec b, pds_vec x) {
  pds_vec  r = s->work[0], z = s->work[1];
  pds_real rnorm;

  for (int it = 0;; it++) {
    PDS_CALL(pds_mat_residual(s->A, b, x, r));   /* r = b - A x */
    PDS_CALL(pds_vec_norm2(r, &rnorm));
    PDS_CALL(pds_solver_test(s, it, rnorm, b, x));
    if (s->res.reason) return PDS_OK;
    PDS_CALL(pds_solver_pc_apply(s, r, z));      /* M xi = r */
    PDS_CALL(pds_vec_axpy(x, s->omega, z));      /* x = x + omega xi */
  }
}

static int richardson_view(pds_solver s, FILE *f) {
  fprintf(f, "  damping omega %g\n", s->omega);
  return PDS_OK;
}

int pds_solver_create_richardson(pds_solver s) {
  s->ops.setup = richardson_setup;
  s->ops.solve = richardson_solve;
  s->ops.view  = richardson_view;
  return PDS_OK;
}
