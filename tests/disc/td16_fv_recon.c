/* tests/disc/td16_fv_recon.c: the second-order finite-volume operator (paper 001's quadratic reconstruction, Section
 * 2.2 and 3.1; src/disc/fv_recon.c, the fv group's recon and face_states2) on the backend of argv[1]:
 * - exactness: for the cell means of quadratic fields (computed here by the 4-point degree-2 tetrahedron rule over the
 *   cells' tetrahedra, independently of the library's closed form), the 9 coefficients of every cell are the field's
 *   Taylor coefficients at the barycentre, on box_tet.msh, hybrid_3d_cube.msh, that mesh cut into hexahedra and the
 *   sphere mesh of 8000 cells;
 * - free-stream preservation at order 2 (uniform flow: residual 0 to round-off, 20 steps keep it) on every cell type;
 * - conservation: the cells' residuals sum to minus the boundary faces' fluxes, these computed here from the
 *   reconstructed left states (the coefficients from pds_fv_reconstruct, the cell means g from the test's quadrature);
 * - second-order accuracy: on boxes of 8^3, 16^3, 32^3 hexahedra and a smooth flow, the residual's error against the
 *   exact flux through the cells' faces (3 x 3 Gauss points a face) on the cells away from the boundary falls as h^2
 *   at order 2 and as h at order 1;
 * - /cpu/ref's bits; repeated runs bitwise; the omp static and dynamic schedules and both CUDA kernels the same bits;
 * - every summation ("stages", "color", "atomic", "cells"): free stream, conservation, /cpu/ref's bits (the atomic
 *   one within 1e-13 of the fluxes' scale off /cpu/ref), repeatable, "cells" the bits of "stages";
 * - the stencil statistics and histogram (paper 001's Fig. 3) printed;
 * - bad input: order 3, stencil parameters, a mesh too small for a quadratic, reconstruct at order 1. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "fv_test.h"

/* ---- the test's own cell quadrature: the tetrahedra of mesh3d_geom.c's decomposition, the 4-point rule ---------- */

typedef void (*field_fn)(const double x[3], const void *user, double out[5]);

/* the mean over cell c of fn (5 values), and the means of the 6 centred monomials about xc (g, may be NULL) */
static void cell_mean(pds_mesh3d m, pds_int c, field_fn fn, const void *user, const double xc[3], double mean[5],
                      double g[6]) {
  const pds_real      *xyz;
  const unsigned char *ct, *ft;
  const pds_size      *cp, *fp, *cfp;
  const pds_int       *cn, *fn_, *fc, *cf;
  double               xa[3] = {0, 0, 0}, V = 0, S[5] = {0}, G[6] = {0};
  const double         qa = 0.5854101966249685, qb = 0.1381966011250105;

  TEST_CALL(pds_mesh3d_get_arrays(m, &xyz, &ct, &cp, &cn, NULL, NULL, NULL, NULL, NULL));
  TEST_CALL(pds_mesh3d_get_faces(m, NULL, NULL, &ft, &fp, &fn_, &fc, &cfp, &cf));
  for (int k = 0; k < ct[c]; k++)
    for (int d = 0; d < 3; d++) xa[d] += xyz[3 * cn[cp[c] + k] + d] / ct[c];
  for (pds_size k = cfp[c]; k < cfp[c + 1]; k++) {
    const pds_int f = cf[k], *v = fn_ + fp[f], n = ft[f];
    const double  s = fc[2 * f] == c ? 1 : -1;
    double        mid[3] = {0, 0, 0};

    for (int i = 0; i < n; i++)
      for (int d = 0; d < 3; d++) mid[d] += xyz[3 * v[i] + d] / n;
    for (int t = 0; t < (n == 3 ? 1 : 4); t++) {
      double P[4][3], e1[3], e2[3], e3[3], vol;

      for (int d = 0; d < 3; d++) {
        P[0][d] = xa[d];
        if (n == 3) P[1][d] = xyz[3 * v[0] + d], P[2][d] = xyz[3 * v[1] + d], P[3][d] = xyz[3 * v[2] + d];
        else P[1][d] = mid[d], P[2][d] = xyz[3 * v[t] + d], P[3][d] = xyz[3 * v[(t + 1) % 4] + d];
        e1[d] = P[1][d] - P[0][d], e2[d] = P[2][d] - P[0][d], e3[d] = P[3][d] - P[0][d];
      }
      vol = s * (e1[0] * (e2[1] * e3[2] - e2[2] * e3[1]) - e1[1] * (e2[0] * e3[2] - e2[2] * e3[0]) +
                 e1[2] * (e2[0] * e3[1] - e2[1] * e3[0])) / 6;
      V += vol;
      for (int qp = 0; qp < 4; qp++) {
        double x[3], o[5], r[3];

        for (int d = 0; d < 3; d++)
          x[d] = qb * (P[0][d] + P[1][d] + P[2][d] + P[3][d]) + (qa - qb) * P[qp][d], r[d] = x[d] - (xc ? xc[d] : 0);
        if (fn) {
          fn(x, user, o);
          for (int i = 0; i < 5; i++) S[i] += vol / 4 * o[i];
        }
        G[0] += vol / 4 * r[0] * r[0], G[1] += vol / 4 * r[1] * r[1], G[2] += vol / 4 * r[2] * r[2];
        G[3] += vol / 4 * r[0] * r[1], G[4] += vol / 4 * r[0] * r[2], G[5] += vol / 4 * r[1] * r[2];
      }
    }
  }
  for (int i = 0; i < 5 && mean; i++) mean[i] = S[i] / V;
  for (int h = 0; h < 6 && g; h++) g[h] = G[h] / V;
}

/* quadratic fields: variable k is a_k + b_k . x + x^T H_k x / 2 with coefficients from k */
typedef struct {
  double a[5], b[5][3], H[5][3][3];
} quad_field;

static void quad_init(quad_field *F) {
  for (int k = 0; k < 5; k++) {
    F->a[k] = 1 + 0.3 * k;
    for (int i = 0; i < 3; i++) {
      F->b[k][i] = 0.7 * sin(1.3 * k + 2.1 * i + 0.4);
      for (int j = 0; j <= i; j++) F->H[k][i][j] = F->H[k][j][i] = 1.1 * cos(0.9 * k + 1.7 * i + 0.6 * j + 0.2);
    }
  }
}

static void quad_eval(const double x[3], const void *user, double out[5]) {
  const quad_field *F = user;

  for (int k = 0; k < 5; k++) {
    double s = F->a[k];

    for (int i = 0; i < 3; i++) {
      s += F->b[k][i] * x[i];
      for (int j = 0; j < 3; j++) s += 0.5 * F->H[k][i][j] * x[i] * x[j];
    }
    out[k] = s;
  }
}

/* the cell means of fn as a state vector on fv's context */
static pds_vec means_state(pds_fv fv, pds_mesh3d m, field_fn fn, const void *user) {
  pds_vec         Q;
  pds_int         nc;
  const pds_real *X;
  double         *h;

  TEST_CALL(pds_mesh3d_get_sizes(m, NULL, &nc, NULL));
  TEST_CALL(pds_mesh3d_get_geometry(m, NULL, &X, NULL, NULL));
  TEST_CALL(pds_fv_create_state(fv, &Q));
  h = malloc(sizeof *h * 5 * (size_t)nc);
  TEST_ASSERT(h);
  for (pds_int c = 0; c < nc; c++) cell_mean(m, c, fn, user, X + 3 * c, h + 5 * c, NULL);
  TEST_CALL(pds_vec_set_values(Q, h, PDS_MEM_HOST));
  free(h);
  return Q;
}

static void order2_params(pds_fv_params *p) {
  pds_fv_params_default(p);
  p->order = 2, p->mach = 0.3, p->dir[1] = 0.4, p->dir[2] = -0.2;
}

/* exactness of the coefficients for a quadratic field on m; prints the stencil statistics and the histogram */
static void check_exact(pds_ctx ctx, pds_mesh3d m, const char *name, int histogram) {
  pds_fv_params   p;
  pds_fv          fv;
  pds_fv_info     in;
  pds_vec         Q;
  quad_field      F;
  const pds_real *X;
  double         *pc, emax = 0, scale = 0;

  quad_init(&F);
  order2_params(&p);
  TEST_CALL(pds_fv_create(ctx, m, &p, &fv));
  TEST_CALL(pds_fv_get_info(fv, &in));
  Q  = means_state(fv, m, quad_eval, &F);
  pc = malloc(sizeof *pc * 45 * (size_t)in.ncells);
  TEST_ASSERT(pc);
  TEST_CALL(pds_fv_reconstruct(fv, Q, pc));
  TEST_CALL(pds_mesh3d_get_geometry(m, NULL, &X, NULL, NULL));
  for (pds_int c = 0; c < in.ncells; c++)
    for (int k = 0; k < 5; k++) {
      const double *x = X + 3 * c;
      double        t[9];

      t[0] = F.H[k][0][0] / 2, t[1] = F.H[k][1][1] / 2, t[2] = F.H[k][2][2] / 2;
      t[3] = F.H[k][0][1], t[4] = F.H[k][0][2], t[5] = F.H[k][1][2];
      for (int i = 0; i < 3; i++) {
        t[6 + i] = F.b[k][i];
        for (int j = 0; j < 3; j++) t[6 + i] += F.H[k][i][j] * x[j];
      }
      for (int h = 0; h < 9; h++)
        emax = fmax(emax, fabs(pc[45 * c + 9 * k + h] - t[h])), scale = fmax(scale, fabs(t[h]));
    }
  printf("%-38s %6d cells order 2: NG %d..%d mean %.1f (%d capped, cond <= %.1f, setup %.2f s); quadratic field: "
         "max coefficient error %.2e (scale %.2f)\n",
         name, (int)in.ncells, (int)in.ng_min, (int)in.ng_max, in.ng_mean, (int)in.ncapped, in.cond_max,
         in.t_recon_setup, emax, scale);
  TEST_ASSERT(emax <= 1e-9 * scale);
  TEST_ASSERT(in.order == 2 && in.ng_min >= 9 && in.ng_max <= 120 && in.ng_sum == (pds_size)(in.ng_mean * in.ncells + 0.5));
  if (histogram) {
    pds_int cnt[128], tot = 0;

    TEST_CALL(pds_fv_stencil_histogram(fv, cnt, 128));
    printf("  stencil histogram (NG: cells):");
    for (int b = 0; b < 128; b++)
      if (cnt[b]) printf(" %d:%d", b, (int)cnt[b]), tot += cnt[b];
    printf("\n");
    TEST_ASSERT(tot == in.ncells && cnt[in.ng_min] > 0 && cnt[in.ng_max] > 0);
  }
  free(pc), pds_vec_destroy(&Q), pds_fv_destroy(&fv);
}

/* free-stream preservation at order 2 */
static void check_uniform(pds_ctx ctx, pds_mesh3d m, const char *name) {
  pds_fv_params p;

  order2_params(&p);
  fv_test_uniform(ctx, m, &p, name);
}

/* a smooth positive state: density and energy bumps on the free stream */
typedef struct {
  double qinf[5], c[3], w;
} bump_field;

static void bump_eval(const double x[3], const void *user, double out[5]) {
  const bump_field *B = user;
  const double      d2 = (x[0] - B->c[0]) * (x[0] - B->c[0]) + (x[1] - B->c[1]) * (x[1] - B->c[1]) +
                    (x[2] - B->c[2]) * (x[2] - B->c[2]);
  const double      b = 0.2 * exp(-d2 / (B->w * B->w));

  for (int k = 0; k < 5; k++) out[k] = B->qinf[k] * (1 + (k == 0 || k == 4 ? b : 0)) + (k == 2 ? 0.05 * b : 0);
}

/* order 2: a boundary face's state is its cell's polynomial at the face barycentre (the states q, the coefficients pc) */
typedef struct {
  pds_mesh3d    m;
  const double *q, *pc;
} poly_data;

static void poly_state(pds_int c, pds_int f, double QL[5], const void *user) {
  const poly_data *P = user;
  const pds_real  *X, *fcen;
  double           g[6], d[3], mono[9];

  TEST_CALL(pds_mesh3d_get_geometry(P->m, NULL, &X, NULL, &fcen));
  cell_mean(P->m, c, NULL, NULL, X + 3 * c, NULL, g);
  for (int k = 0; k < 3; k++) d[k] = fcen[3 * f + k] - X[3 * c + k];
  mono[0] = d[0] * d[0] - g[0], mono[1] = d[1] * d[1] - g[1], mono[2] = d[2] * d[2] - g[2];
  mono[3] = d[0] * d[1] - g[3], mono[4] = d[0] * d[2] - g[4], mono[5] = d[1] * d[2] - g[5];
  mono[6] = d[0], mono[7] = d[1], mono[8] = d[2];
  for (int k = 0; k < 5; k++) {
    QL[k] = P->q[5 * c + k];
    for (int h = 0; h < 9; h++) QL[k] += P->pc[45 * c + 9 * k + h] * mono[h];
  }
}

/* the bump's cell means on a state of fv (the summations' check) */
typedef struct {
  pds_mesh3d m;
  bump_field B;
} bump_data;

static pds_vec bump_make(pds_fv fv, const void *user) {
  const bump_data *D = user;

  return means_state(fv, D->m, bump_eval, &D->B);
}

/* conservation of a residual r of the bump at order 2: the boundary fluxes from the reconstructed left states */
static void bump_conservation(pds_fv fv, const pds_fv_params *p, const pds_fv_info *in, pds_vec Q, const double *r,
                              const void *user) {
  const bump_data *D = user;
  double          *q = test_vec_values(Q), *pc = malloc(sizeof *pc * 45 * (size_t)in->ncells);
  char             label[64];

  TEST_ASSERT(pc);
  TEST_CALL(pds_fv_reconstruct(fv, Q, pc));
  {
    const poly_data P = {D->m, q, pc};

    snprintf(label, sizeof label, "  summation %s", p->summation);
    fv_test_conservation(D->m, p, in, r, poly_state, &P, label);
  }
  free(q), free(pc);
}

/* conservation, ref's bits, repeatability and the schedule / kernel variants on m */
static void check_conservation(pds_ctx ctx, pds_ctx ref, pds_mesh3d m, const char *name, int nwall,
                               const pds_int *wall_tags) {
  pds_fv_params   p;
  pds_fv          fv, fr;
  pds_fv_info     in;
  pds_vec         Q, R, Qr, Rr;
  bump_field      B = {{0}, {0.3, 0.2, 0.1}, 0.4};
  double         *r, *rr, *r2, *q, *pc;
  const char     *var[2][2] = {{"PDS_FV_OMP_SCHEDULE", "dynamic"}, {"PDS_CUDA_FV_RECON", "thread"}};

  order2_params(&p);
  p.nwall = nwall, p.wall_tags = wall_tags;
  TEST_CALL(pds_fv_create(ctx, m, &p, &fv));
  TEST_CALL(pds_fv_create(ref, m, &p, &fr));
  TEST_CALL(pds_fv_get_info(fv, &in));
  for (int k = 0; k < 5; k++) B.qinf[k] = in.qinf[k];
  Q = means_state(fv, m, bump_eval, &B), Qr = means_state(fr, m, bump_eval, &B);
  TEST_CALL(pds_vec_duplicate(Q, &R));
  TEST_CALL(pds_vec_duplicate(Qr, &Rr));
  TEST_CALL(pds_fv_residual(fv, Q, R));
  TEST_CALL(pds_fv_residual(fr, Qr, Rr));
  r = test_vec_values(R), rr = test_vec_values(Rr), q = test_vec_values(Q);
  TEST_ASSERT(!memcmp(r, rr, sizeof *r * 5 * (size_t)in.ncells)); /* /cpu/ref's bits */
  TEST_CALL(pds_fv_residual(fv, Q, R));
  r2 = test_vec_values(R);
  TEST_ASSERT(!memcmp(r, r2, sizeof *r * 5 * (size_t)in.ncells)); /* repeatable */
  free(r2);
  for (int v = 0; v < 2; v++) { /* the other omp schedule, the other CUDA kernel: the same bits */
    setenv(var[v][0], var[v][1], 1);
    TEST_CALL(pds_fv_residual(fv, Q, R));
    unsetenv(var[v][0]);
    r2 = test_vec_values(R);
    TEST_ASSERT(!memcmp(r, r2, sizeof *r * 5 * (size_t)in.ncells));
    free(r2);
  }
  /* conservation: the boundary faces' fluxes from the reconstructed left states */
  pc = malloc(sizeof *pc * 45 * (size_t)in.ncells);
  TEST_ASSERT(pc);
  TEST_CALL(pds_fv_reconstruct(fv, Q, pc));
  {
    const poly_data P = {m, q, pc};

    fv_test_conservation(m, &p, &in, r, poly_state, &P, name);
  }
  free(r), free(rr), free(q), free(pc);
  pds_vec_destroy(&Q), pds_vec_destroy(&R), pds_vec_destroy(&Qr), pds_vec_destroy(&Rr);
  pds_fv_destroy(&fv), pds_fv_destroy(&fr);
  { /* every summation: /cpu/ref's bits (atomic: to round-off), repeatable, conservation */
    bump_data D = {m, B};

    fv_test_summations(ctx, ref, m, &p, bump_make, bump_conservation, &D, name);
  }
}

/* ---- accuracy: a smooth flow on boxes of hexahedra --------------------------------------------------------------- */

static const double GAMMA = 1.4, TWO_PI = 6.283185307179586;

/* conservative variables of a smooth subsonic flow */
static void smooth_q(const double x[3], double q[5]) {
  const double r = 1 + 0.2 * sin(TWO_PI * x[0]) * cos(TWO_PI * x[1]), u = 0.3 + 0.1 * sin(TWO_PI * x[1]);
  const double v = 0.1 * cos(TWO_PI * x[2]), w = 0.1 * sin(TWO_PI * x[0]);
  const double p = 1 / GAMMA + 0.1 * cos(TWO_PI * (x[0] + x[1] + x[2]));

  q[0] = r, q[1] = r * u, q[2] = r * v, q[3] = r * w, q[4] = p / (GAMMA - 1) + 0.5 * r * (u * u + v * v + w * w);
}

/* the max over the cells in [0.3, 0.7]^3 of |R_c - R_exact_c| / V_c (R_exact: minus the exact flux out of the cell,
   3 x 3 Gauss points on each face), the cell means by 3 x 3 x 3 Gauss points */
static double accuracy(pds_ctx ctx, int n, int order) {
  const pds_int  nn[3] = {n, n, n};
  const pds_real lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
  const double   gx[3] = {-0.7745966692414834, 0, 0.7745966692414834}, gw[3] = {5. / 9, 8. / 9, 5. / 9};
  const double   h = 1.0 / n;
  pds_mesh3d     m;
  pds_fv_params  p;
  pds_fv         fv;
  pds_vec        Q, R;
  double        *qh, *r, err = 0;

  TEST_CALL(pds_mesh3d_generate_box(ctx, nn, lo, hi, &m));
  pds_fv_params_default(&p);
  p.order = order, p.gamma = GAMMA, p.mach = 0.3;
  TEST_CALL(pds_fv_create(ctx, m, &p, &fv));
  TEST_CALL(pds_fv_create_state(fv, &Q));
  TEST_CALL(pds_vec_duplicate(Q, &R));
  qh = calloc(5 * (size_t)n * n * n, sizeof *qh);
  TEST_ASSERT(qh);
  for (int k = 0; k < n; k++) /* cells x fastest (pds_mesh3d_generate_box) */
    for (int j = 0; j < n; j++)
      for (int i = 0; i < n; i++) {
        double *o = qh + 5 * ((size_t)(k * n + j) * n + i);

        for (int a = 0; a < 3; a++)
          for (int b = 0; b < 3; b++)
            for (int c = 0; c < 3; c++) {
              const double x[3] = {(i + 0.5 + gx[a] / 2) * h, (j + 0.5 + gx[b] / 2) * h, (k + 0.5 + gx[c] / 2) * h};
              double       q[5];

              smooth_q(x, q);
              for (int v = 0; v < 5; v++) o[v] += gw[a] * gw[b] * gw[c] / 8 * q[v];
            }
      }
  TEST_CALL(pds_vec_set_values(Q, qh, PDS_MEM_HOST));
  TEST_CALL(pds_fv_residual(fv, Q, R));
  r = test_vec_values(R);
  for (int k = 0; k < n; k++)
    for (int j = 0; j < n; j++)
      for (int i = 0; i < n; i++) {
        const int    id[3] = {i, j, k};
        const size_t c     = (size_t)(k * n + j) * n + i;
        double       ex[5] = {0, 0, 0, 0, 0};
        int          in = 1;

        for (int d = 0; d < 3; d++) in &= (id[d] + 0.5) * h > 0.3 && (id[d] + 0.5) * h < 0.7;
        if (!in) continue;
        for (int d = 0; d < 3; d++) /* faces normal to d at the low and high sides */
          for (int side = 0; side < 2; side++)
            for (int a = 0; a < 3; a++)
              for (int b = 0; b < 3; b++) {
                const int e1 = (d + 1) % 3, e2 = (d + 2) % 3;
                double    x[3], q[5], F[5], nvec[3] = {0, 0, 0};

                x[d]  = (id[d] + side) * h;
                x[e1] = (id[e1] + 0.5 + gx[a] / 2) * h, x[e2] = (id[e2] + 0.5 + gx[b] / 2) * h;
                nvec[d] = (side ? 1 : -1) * h * h * gw[a] * gw[b] / 4;
                smooth_q(x, q);
                fv_flux_phys(GAMMA, q, nvec, F);
                for (int v = 0; v < 5; v++) ex[v] -= F[v];
              }
        for (int v = 0; v < 5; v++) err = fmax(err, fabs(r[5 * c + v] - ex[v]) / (h * h * h));
      }
  free(qh), free(r);
  pds_vec_destroy(&Q), pds_vec_destroy(&R), pds_fv_destroy(&fv), pds_mesh3d_destroy(&m);
  return err;
}

int main(int argc, char **argv) {
  pds_ctx        ctx = test_init(argc, argv), ref;
  pds_mesh3d     box, tet = NULL, hy = NULL, hex = NULL, sph = NULL;
  const pds_int  n[3] = {6, 5, 5}, walls[2] = {3, 4}, sphwall[1] = {1};
  const pds_real lo[3] = {0, 0, 0}, hi[3] = {1.5, 1, 1.2};
  char           buf[4096];

  TEST_CALL(pds_ctx_create("/cpu/ref", &ref));
  TEST_CALL(pds_mesh3d_generate_box(ctx, n, lo, hi, &box));
  if (!test_shared_path("meshes/box_tet.msh", buf, sizeof buf)) TEST_FAIL("the shared meshes/box_tet.msh is missing");
  TEST_CALL(pds_mesh3d_read_gmsh(ctx, buf, &tet));
  if (!test_shared_path("meshes/hybrid_3d_cube.msh", buf, sizeof buf))
    TEST_FAIL("the shared meshes/hybrid_3d_cube.msh is missing");
  TEST_CALL(pds_mesh3d_read_gmsh(ctx, buf, &hy));
  TEST_CALL(pds_mesh3d_subdivide_hex(hy, &hex));
  TEST_CALL(pds_mesh3d_generate_sphere(ctx, 8000, 0.5, 5.0, &sph));
  check_exact(ctx, box, "box 6 x 5 x 5 hexahedra", 0);
  check_exact(ctx, tet, "box_tet.msh (tetrahedra)", 0);
  check_exact(ctx, hy, "hybrid_3d_cube.msh (tetrahedra, prisms)", 0);
  check_exact(ctx, hex, "hybrid_3d_cube.msh cut into hexahedra", 0);
  check_exact(ctx, sph, "sphere, 8000 cells (all four types)", 1);
  check_uniform(ctx, box, "box 6 x 5 x 5 hexahedra");
  check_uniform(ctx, tet, "box_tet.msh");
  check_uniform(ctx, hy, "hybrid_3d_cube.msh");
  check_uniform(ctx, hex, "hybrid_3d_cube.msh cut into hexahedra");
  check_uniform(ctx, sph, "sphere, 8000 cells");
  check_conservation(ctx, ref, box, "box, walls y = 0 and y = 1", 2, walls);
  check_conservation(ctx, ref, hex, "hybrid cut into hexahedra", 0, NULL);
  check_conservation(ctx, ref, sph, "sphere, wall on the sphere", 1, sphwall);
  { /* accuracy */
    double e1[3], e2[3];

    for (int i = 0; i < 3; i++) e1[i] = accuracy(ctx, 8 << i, 1), e2[i] = accuracy(ctx, 8 << i, 2);
    printf("smooth flow on boxes of 8^3, 16^3, 32^3 hexahedra, max |R - R_exact| / V inside [0.3, 0.7]^3:\n"
           "  order 1: %.3e %.3e %.3e (rates %.2f %.2f)\n  order 2: %.3e %.3e %.3e (rates %.2f %.2f)\n",
           e1[0], e1[1], e1[2], log2(e1[0] / e1[1]), log2(e1[1] / e1[2]), e2[0], e2[1], e2[2], log2(e2[0] / e2[1]),
           log2(e2[1] / e2[2]));
    TEST_ASSERT(log2(e2[1] / e2[2]) > 1.7 && log2(e1[1] / e1[2]) < 1.3 && e2[2] < 0.2 * e1[2]);
  }
  { /* bad input */
    pds_fv_params p;
    pds_fv        fv = NULL;
    pds_vec       Q;
    pds_mesh3d    tiny;
    const pds_int n2[3] = {2, 2, 2};
    double        pc[45];

    order2_params(&p), p.order = 3;
    TEST_ASSERT_ERR(ctx, pds_fv_create(ctx, box, &p, &fv), PDS_ERR_ARG, "order 3");
    order2_params(&p), p.recon_min = 5;
    TEST_ASSERT_ERR(ctx, pds_fv_create(ctx, box, &p, &fv), PDS_ERR_ARG, "recon_min");
    order2_params(&p), p.recon_cond = 0.5;
    TEST_ASSERT_ERR(ctx, pds_fv_create(ctx, box, &p, &fv), PDS_ERR_ARG, "recon_cond");
    order2_params(&p), p.recon_levels = 0;
    TEST_ASSERT_ERR(ctx, pds_fv_create(ctx, box, &p, &fv), PDS_ERR_ARG, "recon_levels");
    order2_params(&p), p.recon_weight = -1;
    TEST_ASSERT_ERR(ctx, pds_fv_create(ctx, box, &p, &fv), PDS_ERR_ARG, "recon_weight");
    TEST_CALL(pds_mesh3d_generate_box(ctx, n2, lo, hi, &tiny));
    order2_params(&p);
    TEST_ASSERT_ERR(ctx, pds_fv_create(ctx, tiny, &p, &fv), PDS_ERR_ARG, "does not determine a quadratic");
    TEST_ASSERT(fv == NULL);
    TEST_CALL(pds_fv_create(ctx, tiny, NULL, &fv));
    TEST_CALL(pds_fv_create_state(fv, &Q));
    TEST_ASSERT_ERR(ctx, pds_fv_reconstruct(fv, Q, pc), PDS_ERR_STATE, "order 2");
    pds_vec_destroy(&Q), pds_fv_destroy(&fv), pds_mesh3d_destroy(&tiny);
    order2_params(&p), p.recon_weight = 2; /* weighted: still exact for quadratics */
    TEST_CALL(pds_fv_create(ctx, box, &p, &fv));
    pds_fv_destroy(&fv);
  }
  pds_mesh3d_destroy(&box), pds_mesh3d_destroy(&tet), pds_mesh3d_destroy(&hy), pds_mesh3d_destroy(&hex);
  pds_mesh3d_destroy(&sph);
  TEST_CALL(pds_ctx_destroy(&ref));
  test_finalize(&ctx);
  return 0;
}
