/* tests/disc/fv_test.h: what the finite-volume tests share (td15_fv, td16_fv_recon): free-stream preservation and
 * conservation. */
#ifndef PDS_FV_TEST_H
#define PDS_FV_TEST_H

#include "backend/fv_bodies.h"
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

/* conservation: the cells' residuals r (5 a cell) sum to minus the boundary faces' fluxes (1e-12 of the largest flux
   times the face count); a boundary face's state is left(c, f, QL, user) (its cell c's state at the face: the cell's
   value at order 1, its polynomial at order 2), walls where the face's tag is one of p's wall tags; prints label */
static inline void fv_test_conservation(pds_mesh3d m, const pds_fv_params *p, const pds_fv_info *in, const double *r,
                                        void (*left)(pds_int c, pds_int f, double QL[5], const void *user),
                                        const void *user, const char *label) {
  pds_int         nf;
  const pds_int  *fc, *ftag;
  const pds_real *area;
  double          sum[5] = {0}, bnd[5] = {0}, scale = 0;

  for (pds_int i = 0; i < in->ncells; i++)
    for (int k = 0; k < 5; k++) sum[k] += r[5 * i + k];
  TEST_CALL(pds_mesh3d_get_faces(m, &nf, NULL, NULL, NULL, NULL, &fc, NULL, NULL));
  TEST_CALL(pds_mesh3d_face_tags(m, &ftag));
  TEST_CALL(pds_mesh3d_get_geometry(m, NULL, NULL, &area, NULL));
  for (pds_int f = 0; f < nf; f++) {
    double F[5], QL[5];
    int    wall = 0;

    if (fc[2 * f + 1] >= 0) continue;
    left(fc[2 * f], f, QL, user);
    for (int w = 0; w < p->nwall; w++) wall |= ftag[f] == p->wall_tags[w];
    if (wall) fv_flux_wall(p->gamma, QL, area + 3 * f, F);
    else fv_flux_roe(p->gamma, p->efix, QL, in->qinf, area + 3 * f, F);
    for (int k = 0; k < 5; k++) bnd[k] += F[k], scale = fmax(scale, fabs(F[k]));
  }
  printf("%-40s order %d conservation: |sum R + boundary flux| %.1e %.1e %.1e %.1e %.1e (flux scale %.2e)\n", label,
         p->order, fabs(sum[0] + bnd[0]), fabs(sum[1] + bnd[1]), fabs(sum[2] + bnd[2]), fabs(sum[3] + bnd[3]),
         fabs(sum[4] + bnd[4]), scale);
  for (int k = 0; k < 5; k++) TEST_ASSERT(fabs(sum[k] + bnd[k]) <= 1e-12 * fmax(scale, 1e-300) * nf);
}

#endif
