/* tests/disc/fv_test.h: what the finite-volume tests share (td15_fv, td16_fv_recon): free-stream preservation and
 * conservation. */
#ifndef PDS_FV_TEST_H
#define PDS_FV_TEST_H

#include "backend/fv_bodies.h"
#include "test.h"

/* src/disc/fv_impl.h: the three stages one by one (face states, fluxes, sums); an object's summation switched */
int pds_fv_stages(pds_fv fv, int first, int last, pds_vec Q, pds_vec R);
int pds_fv_set_summation(pds_fv fv, const char *name, pds_mesh3d mesh);

/* the summations (pds_fv_params' summation) */
static const char *const fv_test_sums[4] = {"stages", "color", "atomic", "cells"};

/* free-stream preservation on m with the parameters p and each summation: the uniform flow's residual is zero to
   round-off and 20 explicit steps (3 for the summations after the default) leave the state uniform (both below
   1e-13); prints label and the two maxima over the summations */
static inline void fv_test_uniform(pds_ctx ctx, pds_mesh3d m, const pds_fv_params *p0, const char *label) {
  pds_fv_info   in;
  pds_fv_params p = *p0;
  pds_fv        fv;
  double        rmax = 0, qmax = 0;

  p.summation = fv_test_sums[0]; /* one object (order 2's setup is the costly part), its summation switched */
  TEST_CALL(pds_fv_create(ctx, m, &p, &fv));
  for (int s = 0; s < 4; s++) {
    pds_vec Q, R;
    double *r, *q, rn;

    TEST_CALL(pds_fv_set_summation(fv, fv_test_sums[s], m));
    TEST_CALL(pds_fv_get_info(fv, &in));
    TEST_ASSERT(in.ninterior + in.nfree + in.nwall == in.nfaces && (p.nwall == 0) == (in.nwall == 0));
    TEST_CALL(pds_fv_create_state(fv, &Q));
    TEST_CALL(pds_vec_duplicate(Q, &R));
    TEST_CALL(pds_fv_residual(fv, Q, R));
    r = test_vec_values(R);
    for (pds_int i = 0; i < 5 * in.ncells; i++) rmax = fmax(rmax, fabs(r[i]));
    for (int k = 0; k < (s == 0 ? 20 : 3); k++) TEST_CALL(pds_fv_step(fv, 0.9, Q, R, &rn)); /* the others: 3 */
    q = test_vec_values(Q);
    for (pds_int i = 0; i < 5 * in.ncells; i++) qmax = fmax(qmax, fabs(q[i] - in.qinf[i % 5]));
    free(r), free(q);
    pds_vec_destroy(&Q), pds_vec_destroy(&R);
  }
  pds_fv_destroy(&fv);
  printf("%-40s %7d cells %7d faces (%d wall), order %d: uniform flow, every summation: max |R| %.2e, after 20 steps "
         "max |Q - Q_inf| %.2e\n", label, (int)in.ncells, (int)in.nfaces, (int)in.nwall, p0->order, rmax, qmax);
  TEST_ASSERT(rmax < 1e-13 && qmax < 1e-13);
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

/* a and b (n values) the same bits (exact) or within tol; returns the largest difference */
static inline double fv_test_compare(const double *a, const double *b, size_t n, int exact, double tol) {
  double d = 0;

  for (size_t i = 0; i < n; i++) d = fmax(d, fabs(a[i] - b[i]));
  if (exact) TEST_ASSERT(!memcmp(a, b, n * sizeof *a));
  else TEST_ASSERT(d <= tol);
  return d;
}

/* Every summation on ctx against /cpu/ref: p0 with each summation, the state make(fv, user) gives (the same on both),
   the residual is /cpu/ref's bits (the atomic summation off /cpu/ref: within 1e-13 of S, S the larger of max |R| and
   max |Q| times the largest face area: the fluxes' scale), the same bits run after run (atomic: within that
   tolerance), "cells" the bits of "stages" and "color" and "atomic" its values within 1e-13 S; then check(fv, p, in, Q, r, user) (conservation) on each one's residual. Prints label, the colour
   count and the largest differences. */
static inline void fv_test_summations(pds_ctx ctx, pds_ctx ref, pds_mesh3d m, const pds_fv_params *p0,
                                      pds_vec (*make)(pds_fv fv, const void *user),
                                      void (*check)(pds_fv fv, const pds_fv_params *p, const pds_fv_info *in, pds_vec Q,
                                                    const double *r, const void *user),
                                      const void *user, const char *label) {
  double       *r0 = NULL, rmax = 0, dref[4] = {0}, dst[4] = {0};
  size_t        n = 0;
  int           ncol = 0, cpu_ref = !strcmp(pds_ctx_get_backend(ctx), "/cpu/ref");
  pds_fv_params p = *p0;
  pds_fv        fv, fr;

  p.summation = fv_test_sums[0]; /* one object each (order 2's setup is the costly part), the summation switched */
  TEST_CALL(pds_fv_create(ctx, m, &p, &fv));
  TEST_CALL(pds_fv_create(ref, m, &p, &fr));
  for (int s = 0; s < 4; s++) {
    pds_fv_info   in, inr;
    pds_vec       Q, R, Qr, Rr;
    double       *r, *rr, *r2;
    const int     exact = s != 2 || cpu_ref;

    p.summation = fv_test_sums[s];
    TEST_CALL(pds_fv_set_summation(fv, fv_test_sums[s], m));
    TEST_CALL(pds_fv_set_summation(fr, fv_test_sums[s], m));
    TEST_CALL(pds_fv_get_info(fv, &in));
    TEST_CALL(pds_fv_get_info(fr, &inr));
    TEST_ASSERT(!strcmp(in.summation, fv_test_sums[s]) && (s == 0) == (in.ncolors == 0) &&
                in.ncolors == inr.ncolors);
    if (s == 1) ncol = (int)in.ncolors;
    Q = make(fv, user), Qr = make(fr, user);
    TEST_CALL(pds_vec_duplicate(Q, &R));
    TEST_CALL(pds_vec_duplicate(Qr, &Rr));
    TEST_CALL(pds_fv_residual(fv, Q, R));
    TEST_CALL(pds_fv_residual(fr, Qr, Rr));
    r = test_vec_values(R), rr = test_vec_values(Rr);
    n = 5 * (size_t)in.ncells;
    if (!r0) { /* /cpu/ref's stages; the scale: max |R| or the largest |Q| times the largest face area */
      const pds_real *area;
      double         *q = test_vec_values(Qr), amax = 0, qmax = 0;

      r0 = malloc(n * sizeof *r0);
      TEST_ASSERT(r0);
      memcpy(r0, rr, n * sizeof *r0);
      TEST_CALL(pds_mesh3d_get_geometry(m, NULL, NULL, &area, NULL));
      for (pds_int f = 0; f < in.nfaces; f++)
        amax = fmax(amax, sqrt(area[3 * f] * area[3 * f] + area[3 * f + 1] * area[3 * f + 1] +
                               area[3 * f + 2] * area[3 * f + 2]));
      for (size_t i = 0; i < n; i++) rmax = fmax(rmax, fabs(r0[i])), qmax = fmax(qmax, fabs(q[i]));
      rmax = fmax(rmax, qmax * amax);
      free(q);
    }
    dref[s] = fv_test_compare(r, rr, n, exact, 1e-13 * rmax);                   /* /cpu/ref's */
    dst[s]  = fv_test_compare(rr, r0, n, s == 0 || s == 3, 1e-13 * rmax);        /* stages' */
    TEST_CALL(pds_fv_residual(fv, Q, R));
    r2 = test_vec_values(R);
    fv_test_compare(r, r2, n, exact, 1e-13 * rmax); /* repeatable */
    if (s == 0) { /* the paper's three stages one by one (face states stored): the fused stages' bits */
      free(r2);
      TEST_CALL(pds_fv_stages(fv, 0, 2, Q, R));
      r2 = test_vec_values(R);
      fv_test_compare(r, r2, n, 1, 0);
    }
    if (check) check(fv, &p, &in, Q, r, user);
    free(r), free(rr), free(r2);
    pds_vec_destroy(&Q), pds_vec_destroy(&R), pds_vec_destroy(&Qr), pds_vec_destroy(&Rr);
  }
  pds_fv_destroy(&fv), pds_fv_destroy(&fr);
  printf("%-40s order %d summations: %d colours; off /cpu/ref's: stages %.1e color %.1e atomic %.1e cells %.1e; "
         "off stages: color %.1e atomic %.1e cells %.1e (scale %.2e)\n", label, p0->order, ncol, dref[0], dref[1],
         dref[2], dref[3], dst[1], dst[2], dst[3], rmax);
  free(r0);
}

#endif
