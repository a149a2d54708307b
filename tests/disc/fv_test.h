/* tests/disc/fv_test.h: what the finite-volume tests share (td15_fv, td16_fv_recon). */
#ifndef PDS_FV_TEST_H
#define PDS_FV_TEST_H

#include "test.h"

/* free-stream preservation on m with the parameters p: the uniform flow's residual is zero to round-off and 20
   explicit steps leave the state uniform (both below 1e-13); prints label and the two maxima */
static inline void fv_test_uniform(pds_ctx ctx, pds_mesh3d m, const pds_fv_params *p, const char *label) {
  pds_fv      fv;
  pds_fv_info in;
  pds_vec     Q, R;
  double     *r, *q, rmax = 0, qmax = 0, rn;

  TEST_CALL(pds_fv_create(ctx, m, p, &fv));
  TEST_CALL(pds_fv_get_info(fv, &in));
  TEST_ASSERT(in.ninterior + in.nfree + in.nwall == in.nfaces && (p->nwall == 0) == (in.nwall == 0));
  TEST_CALL(pds_fv_create_state(fv, &Q));
  TEST_CALL(pds_vec_duplicate(Q, &R));
  TEST_CALL(pds_fv_residual(fv, Q, R));
  r = test_vec_values(R);
  for (pds_int i = 0; i < 5 * in.ncells; i++) rmax = fmax(rmax, fabs(r[i]));
  for (int s = 0; s < 20; s++) TEST_CALL(pds_fv_step(fv, 0.9, Q, R, &rn));
  q = test_vec_values(Q);
  for (pds_int i = 0; i < 5 * in.ncells; i++) qmax = fmax(qmax, fabs(q[i] - in.qinf[i % 5]));
  printf("%-40s %7d cells %7d faces (%d wall), order %d: uniform flow, max |R| %.2e, after 20 steps max |Q - Q_inf| "
         "%.2e\n", label, (int)in.ncells, (int)in.nfaces, (int)in.nwall, p->order, rmax, qmax);
  TEST_ASSERT(rmax < 1e-13 && qmax < 1e-13);
  free(r), free(q);
  pds_vec_destroy(&Q), pds_vec_destroy(&R), pds_fv_destroy(&fv);
}

#endif
