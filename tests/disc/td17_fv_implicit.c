/* tests/disc/td17_fv_implicit.c: implicit steps of the finite-volume Euler operator (src/disc/fv_jac.c, the fvjac
 * kernel group; issue 14) on the backend of argv[1]:
 * - a face's derivatives (fv_jac_bodies.h) against the Euler flux Jacobian A(Q) n written out here: at QL = QR the two
 *   blocks sum to A(Q) n (Roe's flux is consistent); with both states supersonic along n, dF/dQL = A(QL) n and
 *   dF/dQR = 0 (Roe's flux is then F(QL) exactly); a wall face's block is d(0, p n, 0)/dQ;
 * - the assembled Jacobian on a small sphere (all four cell types, a wall) and on box_tet.msh: J v against central
 *   differences of the whole residual, -(R(Q + e v) - R(Q - e v)) / 2e (1e-7 in the 2-norm; at a few faces less
 *   closely: Roe's flux has kinks where an eigenvalue's modulus crosses 0, which both differences may straddle); the pseudo-time term (J(cfl) - J(0)) v =
 *   lambda / cfl v with lambda from the face geometry here; the pattern (a block per cell and two per interior face);
 *   /cpu/ref's bits, and the same bits run after run; pbjacobi on J (its blocks gathered on the backend) the bits of
 *   pbjacobi on a host copy of J;
 * - the sphere at Mach 0.1 run implicitly (gmres with ilu0, and with pbjacobi) to a steady state: the residual falls
 *   by 1e-9 in a few dozen steps where as many explicit steps do not reach 1e-1; the pressure force lies along the flow
 *   (the flow is symmetric);
 * - bad input: sizes, CFL numbers, NULL handles, a state with negative density (Q unchanged); each allocation of an
 *   fv object's Jacobian failing in turn (PDS_ERR_MEM, nothing leaked). */
#include "backend/fv_jac_bodies.h"
#include "test.h"

/* A(Q) n, the Jacobian of the Euler flux F(Q) . n (n any vector), row-major into A[25] */
static void euler_jacobian(double gamma, const double Q[5], const double n[3], double A[25]) {
  const double r = Q[0], u[3] = {Q[1] / r, Q[2] / r, Q[3] / r}, q2 = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
  const double p = (gamma - 1) * (Q[4] - 0.5 * r * q2), H = (Q[4] + p) / r, phi = 0.5 * (gamma - 1) * q2;
  const double Vn = u[0] * n[0] + u[1] * n[1] + u[2] * n[2];

  A[0] = 0, A[1] = n[0], A[2] = n[1], A[3] = n[2], A[4] = 0;
  for (int i = 0; i < 3; i++) {
    double *row = A + 5 * (1 + i);

    row[0] = phi * n[i] - u[i] * Vn;
    for (int j = 0; j < 3; j++) row[1 + j] = u[i] * n[j] - (gamma - 1) * u[j] * n[i] + (i == j ? Vn : 0);
    row[4] = (gamma - 1) * n[i];
  }
  A[20] = Vn * (phi - H);
  for (int j = 0; j < 3; j++) A[21 + j] = H * n[j] - (gamma - 1) * u[j] * Vn;
  A[24] = gamma * Vn;
}

static double max_abs(const double *a, int n) {
  double m = 0;

  for (int i = 0; i < n; i++) m = fmax(m, fabs(a[i]));
  return m;
}

/* one face between two cells (or a boundary face of the kind given) with the states qL, qR: its two blocks */
static void face_blocks(int kind, const double qL[5], const double qR[5], const double n[3], double JF[50]) {
  const pds_int       fc[2] = {0, kind == PDS_FV_INTERIOR ? 1 : -1};
  const unsigned char fk[1] = {(unsigned char)kind};
  double              Q[10];
  struct pds_fv_dev   D;

  memset(&D, 0, sizeof D);
  D.ncells = 2, D.nfaces = 1, D.face_cell = fc, D.face_kind = fk, D.face_area = n, D.gamma = 1.4, D.efix = 0.1;
  for (int k = 0; k < 5; k++) Q[k] = qL[k], Q[5 + k] = qR[k], D.qinf[k] = qR[k];
  fv_face_jac(&D, 0, Q, JF);
}

static void check_face_jacobians(void) {
  const double n[3] = {0.3, -0.7, 0.45}, q[5] = {1.1, 0.2, -0.15, 0.1, 2.3}; /* subsonic */
  double       JF[50], A[25], S[25], err = 0, err2 = 0, err3 = 0, e0 = 0;

  face_blocks(PDS_FV_INTERIOR, q, q, n, JF);
  euler_jacobian(1.4, q, n, A);
  for (int e = 0; e < 25; e++) S[e] = JF[e] + JF[25 + e], err = fmax(err, fabs(S[e] - A[e]));
  printf("face Jacobian, QL = QR subsonic: |dF/dQL + dF/dQR - A n| %.2e (|A n| %.2e)\n", err, max_abs(A, 25));
  TEST_ASSERT(err <= 1e-8 * max_abs(A, 25));
  { /* supersonic along n: Roe's flux is F(QL) */
    const double nn = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]), M = 2.5;
    double       qL[5], qR[5];

    qL[0] = 1.0, qR[0] = 1.3;
    for (int d = 0; d < 3; d++) qL[1 + d] = qL[0] * M * n[d] / nn, qR[1 + d] = qR[0] * 2.2 * n[d] / nn;
    qL[4] = 1 / 1.4 / 0.4 + 0.5 * qL[0] * M * M, qR[4] = 1.2 / 1.4 / 0.4 + 0.5 * qR[0] * 2.2 * 2.2;
    face_blocks(PDS_FV_INTERIOR, qL, qR, n, JF);
    euler_jacobian(1.4, qL, n, A);
    for (int e = 0; e < 25; e++) err2 = fmax(err2, fabs(JF[e] - A[e])), e0 = fmax(e0, fabs(JF[25 + e]));
    printf("face Jacobian, supersonic: |dF/dQL - A(QL) n| %.2e, |dF/dQR| %.2e\n", err2, e0);
    TEST_ASSERT(err2 <= 1e-8 * max_abs(A, 25) && e0 <= 1e-8 * max_abs(A, 25));
  }
  { /* the wall: d(0, p n, 0)/dQ, dp/dQ = (gamma - 1) (|u|^2 / 2, -u, -v, -w, 1) */
    const double g1 = 0.4, u[3] = {q[1] / q[0], q[2] / q[0], q[3] / q[0]};
    const double dp[5] = {g1 * 0.5 * (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]), -g1 * u[0], -g1 * u[1], -g1 * u[2], g1};

    face_blocks(PDS_FV_WALL, q, q, n, JF);
    for (int i = 0; i < 5; i++)
      for (int j = 0; j < 5; j++) {
        const double w = i >= 1 && i <= 3 ? dp[j] * n[i - 1] : 0;

        err3 = fmax(err3, fabs(JF[5 * i + j] - w) + fabs(JF[25 + 5 * i + j]));
      }
    printf("face Jacobian, wall: |dF/dQL - d(0, p n, 0)/dQ| + |dF/dQR| %.2e\n", err3);
    TEST_ASSERT(err3 <= 1e-9);
  }
}

/* a non-uniform smooth state on m: the free stream with bumps in density, velocity and energy */
static void smooth_state(pds_mesh3d m, const pds_fv_info *in, pds_vec Q) {
  const pds_real *X;
  double         *h = malloc(sizeof *h * 5 * (size_t)in->ncells);

  TEST_ASSERT(h);
  TEST_CALL(pds_mesh3d_get_geometry(m, NULL, &X, NULL, NULL));
  for (pds_int c = 0; c < in->ncells; c++) {
    const double *x = X + 3 * c, b = exp(-(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]));

    h[5 * c]     = in->qinf[0] * (1 + 0.2 * b);
    h[5 * c + 1] = in->qinf[1] + 0.05 * sin(x[1]);
    h[5 * c + 2] = in->qinf[2] + 0.04 * cos(x[2]);
    h[5 * c + 3] = in->qinf[3] + 0.03 * sin(x[0] + x[1]);
    h[5 * c + 4] = in->qinf[4] * (1 + 0.1 * b);
  }
  TEST_CALL(pds_vec_set_values(Q, h, PDS_MEM_HOST));
  free(h);
}

/* the Jacobian of fv at Q: J v against central differences of the residual, the pseudo-time term, the pattern,
   /cpu/ref's bits (fvref: the same object on /cpu/ref) and repeatability, pbjacobi's bits on a host copy */
static void check_jacobian(pds_ctx ctx, pds_mesh3d m, pds_fv fv, pds_fv fvref, const char *label) {
  pds_fv_info     in;
  pds_vec         Q, R1, R2, v, Jv, Jcv, Qr;
  pds_mat         J, J2, Jc, Jr, Jh;
  pds_int         nc;
  const pds_size *rp, *rpr;
  const pds_int  *ci;
  const pds_real *va, *va2, *vr, *area;
  const pds_size *cptr;
  const pds_int  *cfaces;
  double         *jv, *fd, *jcv, *vv, *q, *q0, e2 = 0, s2 = 0, err = 0, scale = 0, eps = 3e-6, cfl = 7.5, lerr = 0;
  size_t          nnzb;

  TEST_CALL(pds_fv_get_info(fv, &in));
  nc = in.ncells;
  TEST_CALL(pds_fv_create_state(fv, &Q));
  smooth_state(m, &in, Q);
  q0 = test_vec_values(Q);
  TEST_CALL(pds_vec_duplicate(Q, &R1));
  TEST_CALL(pds_vec_duplicate(Q, &R2));
  TEST_CALL(pds_vec_duplicate(Q, &v));
  TEST_CALL(pds_vec_duplicate(Q, &Jv));
  TEST_CALL(pds_vec_duplicate(Q, &Jcv));
  { /* v: scaled like Q */
    double *h = malloc(sizeof *h * 5 * (size_t)nc);

    TEST_ASSERT(h);
    for (pds_int i = 0; i < 5 * nc; i++) h[i] = sin(0.37 * i + 1) * (i % 5 == 4 ? 2 : 1);
    TEST_CALL(pds_vec_set_values(v, h, PDS_MEM_HOST));
    free(h);
  }
  TEST_CALL(pds_fv_jacobian(fv, Q, 0, &J));
  TEST_CALL(pds_fv_jacobian(fv, Q, cfl, &Jc));
  TEST_ASSERT(!strcmp(pds_mat_get_type(J), "bsr"));
  TEST_CALL(pds_mat_apply(J, v, Jv));
  TEST_CALL(pds_mat_apply(Jc, v, Jcv));
  /* -(R(Q + e v) - R(Q - e v)) / 2e */
  TEST_CALL(pds_vec_axpy(Q, eps, v));
  TEST_CALL(pds_fv_residual(fv, Q, R1));
  TEST_CALL(pds_vec_axpy(Q, -2 * eps, v));
  TEST_CALL(pds_fv_residual(fv, Q, R2));
  TEST_CALL(pds_vec_set_values(Q, q0, PDS_MEM_HOST)); /* Q's own bits again (Q + e v - 2 e v + e v is not Q) */
  jv = test_vec_values(Jv), fd = test_vec_values(R1);
  {
    double *r2 = test_vec_values(R2);

    for (pds_int i = 0; i < 5 * nc; i++) fd[i] = -(fd[i] - r2[i]) / (2 * eps);
    free(r2);
  }
  for (pds_int i = 0; i < 5 * nc; i++) {
    err = fmax(err, fabs(jv[i] - fd[i])), scale = fmax(scale, fabs(fd[i]));
    e2 += (jv[i] - fd[i]) * (jv[i] - fd[i]), s2 += fd[i] * fd[i];
  }
  printf("%-28s %6d cells: J v + (R(Q + e v) - R(Q - e v)) / 2e: max %.2e of %.2e, 2-norm %.2e relative\n", label,
         (int)nc, err, scale, sqrt(e2 / s2));
  TEST_ASSERT(sqrt(e2 / s2) <= 1e-7 && err <= 1e-4 * scale);
  /* the pseudo-time term: (J(cfl) - J(0)) v = lambda / cfl v */
  jcv = test_vec_values(Jcv), vv = test_vec_values(v), q = test_vec_values(Q);
  TEST_CALL(pds_mesh3d_get_faces(m, NULL, NULL, NULL, NULL, NULL, NULL, &cptr, &cfaces));
  TEST_CALL(pds_mesh3d_get_geometry(m, NULL, NULL, &area, NULL));
  for (pds_int c = 0; c < nc; c++) {
    const double *s = q + 5 * c, u = s[1] / s[0], w = s[2] / s[0], z = s[3] / s[0];
    const double  cs = sqrt(1.4 * 0.4 * (s[4] - 0.5 * s[0] * (u * u + w * w + z * z)) / s[0]);
    double        lam = 0;

    for (pds_size k = cptr[c]; k < cptr[c + 1]; k++) {
      const double *a = area + 3 * cfaces[k];

      lam += fabs(u * a[0] + w * a[1] + z * a[2]) + cs * sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
    }
    for (int k = 0; k < 5; k++)
      lerr = fmax(lerr, fabs(jcv[5 * c + k] - jv[5 * c + k] - lam / cfl * vv[5 * c + k]));
  }
  printf("%-28s pseudo-time term: |(J(cfl) - J(0)) v - lambda / cfl v| %.2e (|J v| up to %.2e)\n", label, lerr,
         max_abs(jv, 5 * nc));
  TEST_ASSERT(lerr <= 1e-13 * max_abs(jv, 5 * nc));
  /* the pattern: a block per cell and two per interior face (no two cells of these meshes share two faces) */
  TEST_CALL(pds_mat_bsr_get_arrays(J, &rp, &ci, &va));
  nnzb = (size_t)rp[nc];
  TEST_ASSERT(nnzb == (size_t)nc + 2 * (size_t)in.ninterior);
  for (pds_int c = 0; c < nc; c++)
    for (pds_size k = rp[c] + 1; k < rp[c + 1]; k++) TEST_ASSERT(ci[k] > ci[k - 1]);
  /* /cpu/ref's bits, and the same bits again */
  TEST_CALL(pds_fv_jacobian(fv, Q, 0, &J2));
  TEST_CALL(pds_mat_bsr_get_arrays(J2, NULL, NULL, &va2));
  TEST_ASSERT(!memcmp(va, va2, 25 * nnzb * sizeof *va));
  {
    double *h = test_vec_values(Q);

    TEST_CALL(pds_fv_create_state(fvref, &Qr));
    TEST_CALL(pds_vec_set_values(Qr, h, PDS_MEM_HOST));
    free(h);
  }
  TEST_CALL(pds_fv_jacobian(fvref, Qr, 0, &Jr));
  TEST_CALL(pds_mat_bsr_get_arrays(Jr, &rpr, NULL, &vr));
  TEST_ASSERT(!memcmp(rp, rpr, ((size_t)nc + 1) * sizeof *rp) && !memcmp(va, vr, 25 * nnzb * sizeof *va));
  printf("%-28s %zu blocks, /cpu/ref's bits, repeatable\n", label, nnzb);
  { /* pbjacobi on the Jacobian born on the backend (a fresh one: no host values yet) against a host-made copy */
    pds_mat     Jd;
    pds_precond p1, p2;
    pds_vec     y1, y2;
    double     *a, *b;

    TEST_CALL(pds_fv_jacobian(fv, Q, cfl, &Jd));
    TEST_CALL(pds_mat_bsr_get_arrays(Jc, NULL, NULL, &va2));
    TEST_CALL(pds_mat_create_bsr(ctx, nc, nc, 5, (pds_size *)rp, (pds_int *)ci, (pds_real *)va2, PDS_MEM_HOST,
                                 PDS_COPY_VALUES, &Jh));
    TEST_CALL(pds_precond_create(ctx, "pbjacobi", &p1));
    TEST_CALL(pds_precond_create(ctx, "pbjacobi", &p2));
    TEST_CALL(pds_precond_set_operator(p1, Jd));
    TEST_CALL(pds_precond_set_operator(p2, Jh));
    TEST_CALL(pds_precond_setup(p1));
    TEST_CALL(pds_precond_setup(p2));
    TEST_CALL(pds_vec_duplicate(Q, &y1));
    TEST_CALL(pds_vec_duplicate(Q, &y2));
    TEST_CALL(pds_precond_apply(p1, v, y1));
    TEST_CALL(pds_precond_apply(p2, v, y2));
    a = test_vec_values(y1), b = test_vec_values(y2);
    TEST_ASSERT(!memcmp(a, b, 5 * (size_t)nc * sizeof *a));
    free(a), free(b);
    pds_vec_destroy(&y1), pds_vec_destroy(&y2), pds_precond_destroy(&p1), pds_precond_destroy(&p2);
    pds_mat_destroy(&Jd), pds_mat_destroy(&Jh);
  }
  free(jv), free(fd), free(jcv), free(vv), free(q), free(q0);
  pds_mat_destroy(&J), pds_mat_destroy(&J2), pds_mat_destroy(&Jc), pds_mat_destroy(&Jr);
  pds_vec_destroy(&Q), pds_vec_destroy(&R1), pds_vec_destroy(&R2), pds_vec_destroy(&v), pds_vec_destroy(&Jv);
  pds_vec_destroy(&Jcv), pds_vec_destroy(&Qr);
}

/* the pressure force on the wall faces (tag 1) of the state Q */
static void wall_force(pds_mesh3d m, pds_vec Q, double F[3]) {
  pds_int         nf;
  const pds_int  *fc, *ftag;
  const pds_real *area;
  double         *q = test_vec_values(Q);

  TEST_CALL(pds_mesh3d_get_faces(m, &nf, NULL, NULL, NULL, NULL, &fc, NULL, NULL));
  TEST_CALL(pds_mesh3d_face_tags(m, &ftag));
  TEST_CALL(pds_mesh3d_get_geometry(m, NULL, NULL, &area, NULL));
  F[0] = F[1] = F[2] = 0;
  for (pds_int f = 0; f < nf; f++)
    if (fc[2 * f + 1] < 0 && ftag[f] == 1) {
      const double *s = q + 5 * fc[2 * f], p = 0.4 * (s[4] - 0.5 * (s[1] * s[1] + s[2] * s[2] + s[3] * s[3]) / s[0]);

      for (int d = 0; d < 3; d++) F[d] += p * area[3 * f + d];
    }
  free(q);
}

/* the sphere at Mach 0.1 to a steady state by implicit steps (pc: ilu0 or pbjacobi), the CFL number growing as the
   residual falls (switched evolution relaxation), against as many explicit steps */
static void check_steady(pds_ctx ctx, pds_mesh3d m, pds_fv fv, const char *pc, int maxsteps) {
  pds_vec           Q, R;
  pds_solver        s;
  pds_precond       P;
  pds_solver_result lin;
  double            r0 = 0, r = 0, F[3], cfl0 = 20;
  int               steps = 0, its = 0;

  TEST_CALL(pds_fv_create_state(fv, &Q));
  TEST_CALL(pds_vec_duplicate(Q, &R));
  TEST_CALL(pds_solver_create(ctx, "gmres", &s));
  TEST_CALL(pds_precond_create(ctx, pc, &P));
  TEST_CALL(pds_solver_set_precond(s, P));
  TEST_CALL(pds_solver_set_tolerances(s, 1e-3, 1e-50, 200));
  TEST_CALL(pds_solver_set_restart(s, 40));
  for (steps = 0; steps < maxsteps; steps++) {
    const double cfl = steps == 0 ? cfl0 : fmin(1e8, cfl0 * r0 / r);
    pds_real     rn;

    TEST_CALL(pds_fv_step_implicit(fv, s, cfl, Q, R, &rn, &lin));
    if (steps == 0) r0 = rn;
    r = rn, its += lin.iterations;
    if (r <= 1e-9 * r0) break;
  }
  wall_force(m, Q, F);
  printf("implicit, gmres + %-8s: ||R|| %.3e -> %.3e in %d steps (%d Krylov iterations); force (%.4e, %.1e, %.1e)\n",
         pc, r0, r, steps, its, F[0], F[1], F[2]);
  TEST_ASSERT(r <= 1e-9 * r0);
  TEST_ASSERT(F[0] > 0 && fabs(F[1]) <= 1e-3 * F[0] && fabs(F[2]) <= 1e-3 * F[0]);
  { /* as many explicit steps from the free stream */
    pds_real rn = 0, re0 = 0;

    TEST_CALL(pds_vec_destroy(&Q));
    TEST_CALL(pds_fv_create_state(fv, &Q));
    for (int k = 0; k <= steps; k++) {
      TEST_CALL(pds_fv_step(fv, 0.9, Q, R, &rn));
      if (k == 0) re0 = rn;
    }
    printf("explicit, %d steps at CFL 0.9: ||R|| %.3e -> %.3e\n", steps + 1, re0, rn);
    TEST_ASSERT(fabs(re0 - r0) <= 1e-12 * r0 && rn > 1e-1 * r0);
  }
  pds_vec_destroy(&Q), pds_vec_destroy(&R), pds_solver_destroy(&s), pds_precond_destroy(&P);
}

static void check_errors(pds_ctx ctx, pds_fv fv) {
  pds_vec    Q, R, small;
  pds_mat    J = NULL;
  pds_solver s;
  pds_fv_info in;
  double     *q, *q2;

  TEST_CALL(pds_fv_get_info(fv, &in));
  TEST_CALL(pds_fv_create_state(fv, &Q));
  TEST_CALL(pds_vec_duplicate(Q, &R));
  TEST_CALL(pds_vec_create(ctx, 10, &small));
  TEST_CALL(pds_solver_create(ctx, "gmres", &s));
  TEST_ASSERT_ERR(ctx, pds_fv_jacobian(fv, small, 0, &J), PDS_ERR_SIZE, "5 a cell");
  TEST_ASSERT(J == NULL);
  TEST_ASSERT_ERR(ctx, pds_fv_jacobian(fv, Q, -1, &J), PDS_ERR_ARG, "CFL");
  TEST_ASSERT_ERR(ctx, pds_fv_jacobian(fv, Q, NAN, &J), PDS_ERR_ARG, "CFL");
  TEST_ASSERT_ERR(ctx, pds_fv_jacobian(fv, Q, 0, NULL), PDS_ERR_ARG, "NULL");
  TEST_ASSERT(pds_fv_jacobian(NULL, Q, 0, &J) == PDS_ERR_ARG);
  TEST_ASSERT_ERR(ctx, pds_fv_step_implicit(fv, s, 0, Q, R, NULL, NULL), PDS_ERR_ARG, "CFL");
  TEST_ASSERT(pds_fv_step_implicit(fv, NULL, 1, Q, R, NULL, NULL) == PDS_ERR_ARG);
  TEST_ASSERT_ERR(ctx, pds_fv_step_implicit(fv, s, 1, Q, small, NULL, NULL), PDS_ERR_SIZE, "5 a cell");
  { /* negative density in one cell (the residual is NaN): an error, the state kept */
    q = test_vec_values(Q);
    q[5 * (in.ncells / 2)] = -1;
    TEST_CALL(pds_vec_set_values(Q, q, PDS_MEM_HOST));
    TEST_ASSERT_ERR(ctx, pds_fv_step_implicit(fv, s, 10, Q, R, NULL, NULL), PDS_ERR_ARG, "negative density or pressure");
    q2 = test_vec_values(Q);
    TEST_ASSERT(!memcmp(q, q2, 5 * (size_t)in.ncells * sizeof *q));
    free(q), free(q2);
  }
  pds_vec_destroy(&Q), pds_vec_destroy(&R), pds_vec_destroy(&small), pds_solver_destroy(&s);
}

/* an fv object on the mesh arg, its free stream and Jacobian (the object and state released): for the sweep */
static int op_jacobian(pds_ctx ctx, const void *arg, pds_mat *J) {
  pds_fv  fv = NULL;
  pds_vec Q  = NULL;
  int     ierr;

  ierr = pds_fv_create(ctx, (pds_mesh3d)arg, NULL, &fv);
  if (!ierr) ierr = pds_fv_create_state(fv, &Q);
  if (!ierr) ierr = pds_fv_jacobian(fv, Q, 2, J);
  pds_vec_destroy(&Q), pds_fv_destroy(&fv);
  return ierr;
}

TEST_DEFINE_ALLOC_SWEEP(sweep, pds_mat, pds_mat_destroy)

int main(int argc, char **argv) {
  pds_ctx       ctx = test_init(argc, argv), ref;
  pds_mesh3d    sph, tet = NULL;
  pds_fv        fv, fvr, fvt, fvtr;
  pds_fv_params p;
  const pds_int wall[1] = {1};
  char          buf[4096];

  check_face_jacobians();
  TEST_CALL(pds_ctx_create("/cpu/ref", &ref));
  TEST_CALL(pds_mesh3d_generate_sphere(ctx, 3000, 0.5, 5.0, &sph));
  pds_fv_params_default(&p);
  p.nwall = 1, p.wall_tags = wall; /* Mach 0.1 along x */
  TEST_CALL(pds_fv_create(ctx, sph, &p, &fv));
  TEST_CALL(pds_fv_create(ref, sph, &p, &fvr));
  check_jacobian(ctx, sph, fv, fvr, "sphere, wall");
  if (!test_shared_path("meshes/box_tet.msh", buf, sizeof buf)) TEST_FAIL("the shared meshes/box_tet.msh is missing");
  TEST_CALL(pds_mesh3d_read_gmsh(ctx, buf, &tet));
  pds_fv_params_default(&p);
  p.mach = 0.6, p.dir[1] = 0.4, p.dir[2] = -0.2;
  TEST_CALL(pds_fv_create(ctx, tet, &p, &fvt));
  TEST_CALL(pds_fv_create(ref, tet, &p, &fvtr));
  check_jacobian(ctx, tet, fvt, fvtr, "box_tet.msh, Mach 0.6");
  check_steady(ctx, sph, fv, "ilu0", 40);
  check_steady(ctx, sph, fv, "pbjacobi", 60);
  check_errors(ctx, fv);
  { /* each allocation of an fv object's Jacobian failing in turn: PDS_ERR_MEM, nothing kept, nothing leaked */
    pds_mesh3d     box;
    const pds_int  n[3] = {3, 2, 2};
    const pds_real lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};

    TEST_CALL(pds_mesh3d_generate_box(ctx, n, lo, hi, &box));
    sweep(ctx, "fv Jacobian", op_jacobian, box);
    pds_mesh3d_destroy(&box);
  }
  pds_fv_destroy(&fv), pds_fv_destroy(&fvr), pds_fv_destroy(&fvt), pds_fv_destroy(&fvtr);
  pds_mesh3d_destroy(&sph), pds_mesh3d_destroy(&tet);
  pds_ctx_destroy(&ref);
  test_finalize(&ctx);
  printf("ok\n");
  return 0;
}
