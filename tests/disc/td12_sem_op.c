/* tests/disc/td12_sem_op.c: the matrix-free spectral-element operator (src/disc/sem_op.c, the sem kernel group) on
 * the backend of argv[1]:
 * - against the test's own assembly on small meshes (affine and deformed, orders 1 to 5): every element's dense
 *   D^T G D built entry by entry from the space's D and G, summed at the shared points, the Dirichlet rows and
 *   columns the identity; A x for random x to 1e-12, its diagonal to 1e-12 (Eq. 9 with the cross terms of a full G);
 * - symmetric (y.Ax = x.Ay), positive definite (the dense matrix's Cholesky factorization succeeds);
 * - the assembled CSR form (pds_mat_convert_to_csr) gives the same product to 1e-12 and the same diagonal;
 * - the same bits as /cpu/ref, and on repeated runs;
 * - spectral convergence: CG + jacobi on -lap u = 3 pi^2 u, u = sin(pi x) sin(pi y) sin(pi z), zero on the cube's
 *   faces, 2^3 elements (affine and deformed): the max error falls exponentially with the order (printed);
 * - semjacobi: its four diagonal kernels give get_diagonal's bits (natural and shared refused above 10 points a
 *   direction on the GPU), CG + semjacobi takes fewer iterations than plain CG (the paper: 10 % fewer), semjacobi on
 *   another matrix and an unknown variant are errors;
 * - bad input: a NULL space.
 * - the diagonal kernels on N = 8..12, E = 2^7 .. 2^9 (PDS_SEM_DIAG_MAXLOG: 2^15): within 2e-13 of ref and (E = 2^7)
 *   of the diagonal assembled from the definition (paper 003's check);
 * PDS_TEST_SMALL=1 (under compute-sanitizer): the first three small meshes, orders up to 6, no large mesh. */
#include "backend/sem_bodies.h"
#include "disc/sem_impl.h"
#include "test.h"

static uint64_t rs = 12345;
static double   rnd(void) {
  rs = rs * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(rs >> 11) / 9007199254740992.0 * 2 - 1;
}

/* the dense assembled operator of S (nglob^2, row-major) */
static double *assemble(pds_sem S) {
  const int    n = S->n, n3 = n * n * n;
  const size_t N = (size_t)S->nglob;
  double      *A = calloc(N * N, sizeof *A), *Ae = malloc((size_t)n3 * n3 * sizeof *Ae);

  TEST_ASSERT(A && Ae);
  for (pds_int e = 0; e < S->E; e++) {
    const double *G = S->G + (size_t)6 * n3 * e;
    static const int cidx[3][3] = {{0, 1, 2}, {1, 3, 4}, {2, 4, 5}};

    memset(Ae, 0, (size_t)n3 * n3 * sizeof *Ae);
    /* (D_a)_{r p}: r = (ri, rj, rk), nonzero for p differing from r only in direction a: D[r_a n + p_a] */
    for (int r = 0; r < n3; r++) {
      const int rc[3] = {r % n, r / n % n, r / (n * n)};

      for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) {
          const double g = G[(size_t)cidx[a][b] * n3 + r];

          for (int m = 0; m < n; m++)
            for (int q = 0; q < n; q++) {
              int pc[3] = {rc[0], rc[1], rc[2]}, qc[3] = {rc[0], rc[1], rc[2]};

              pc[a] = m, qc[b] = q;
              {
                const int p = (pc[2] * n + pc[1]) * n + pc[0], qq = (qc[2] * n + qc[1]) * n + qc[0];

                Ae[(size_t)p * n3 + qq] += S->D[rc[a] * n + m] * g * S->D[rc[b] * n + q];
              }
            }
        }
    }
    for (int p = 0; p < n3; p++)
      for (int q = 0; q < n3; q++) {
        const pds_int gp = S->gid[(size_t)n3 * e + p], gq = S->gid[(size_t)n3 * e + q];

        if (!S->mask[gp] && !S->mask[gq]) A[(size_t)gp * N + gq] += Ae[(size_t)p * n3 + q];
      }
  }
  for (size_t g = 0; g < N; g++)
    if (S->mask[g]) A[g * N + g] = 1.0;
  free(Ae);
  return A;
}

static int cholesky_ok(const double *A0, size_t N) {
  double *A = malloc(N * N * sizeof *A);
  int     ok = 1;

  TEST_ASSERT(A);
  memcpy(A, A0, N * N * sizeof *A);
  for (size_t j = 0; j < N && ok; j++) {
    double d = A[j * N + j];

    for (size_t k = 0; k < j; k++) d -= A[j * N + k] * A[j * N + k];
    if (!(d > 0)) ok = 0;
    else {
      d = sqrt(d);
      A[j * N + j] = d;
      for (size_t i = j + 1; i < N; i++) {
        double s = A[i * N + j];

        for (size_t k = 0; k < j; k++) s -= A[i * N + k] * A[j * N + k];
        A[i * N + j] = s / d;
      }
    }
  }
  free(A);
  return ok;
}

int main(int argc, char **argv) {
  pds_ctx ctx = test_init(argc, argv), ref;
  static const struct { pds_int el[3]; int order; double deform; } cases[] = {
      {{2, 2, 2}, 3, 0.0}, {{2, 2, 2}, 3, 0.08}, {{3, 1, 2}, 4, 0.05}, {{1, 1, 1}, 5, 0.1}, {{3, 2, 2}, 1, 0.0},
      {{2, 3, 1}, 2, 0.06}};

  const int small = getenv("PDS_TEST_SMALL") && !strcmp(getenv("PDS_TEST_SMALL"), "1");

  TEST_CALL(pds_ctx_create("/cpu/ref", &ref));
  for (size_t c = 0; c < (small ? 3 : sizeof cases / sizeof cases[0]); c++) {
    pds_sem  S, Sr;
    pds_mat  A, Ar;
    pds_vec  x, y, xr, yr, d;
    double  *Ad, *hx, *hy, *hd, *hyr, *hx2, *hy2, ax = 0, ay = 0, amax = 0, err = 0, derr = 0;
    size_t   N;

    TEST_CALL(pds_sem_create_box(ctx, cases[c].el, cases[c].order, cases[c].deform, &S));
    TEST_CALL(pds_sem_create_box(ref, cases[c].el, cases[c].order, cases[c].deform, &Sr));
    TEST_CALL(pds_mat_create_sem(S, &A));
    TEST_CALL(pds_mat_create_sem(Sr, &Ar));
    N  = (size_t)S->nglob;
    Ad = assemble(S);
    hx = malloc(N * sizeof *hx), hx2 = malloc(N * sizeof *hx2);
    TEST_ASSERT(hx && hx2);
    for (size_t g = 0; g < N; g++) hx[g] = rnd(), hx2[g] = rnd();
    TEST_CALL(pds_vec_create(ctx, (pds_size)N, &x));
    TEST_CALL(pds_vec_create(ctx, (pds_size)N, &y));
    TEST_CALL(pds_vec_create(ctx, (pds_size)N, &d));
    TEST_CALL(pds_vec_create(ref, (pds_size)N, &xr));
    TEST_CALL(pds_vec_create(ref, (pds_size)N, &yr));
    TEST_CALL(pds_vec_set_values(x, hx, PDS_MEM_HOST));
    TEST_CALL(pds_vec_set_values(xr, hx, PDS_MEM_HOST));
    TEST_CALL(pds_mat_apply(A, x, y));
    TEST_CALL(pds_mat_apply(Ar, xr, yr));
    hy = test_vec_values(y), hyr = test_vec_values(yr);
    for (size_t g = 0; g < N; g++) {
      double s = 0;

      for (size_t q = 0; q < N; q++) s += Ad[g * N + q] * hx[q], amax = fmax(amax, fabs(Ad[g * N + q]));
      err = fmax(err, fabs(s - hy[g]));
    }
    if (!(err <= 1e-12 * amax * sqrt((double)N)))
      TEST_FAIL("case %zu: |A x - assembled A x| = %.3g (max |A_ij| %.3g)", c, err, amax);
    TEST_ASSERT(!memcmp(hy, hyr, N * sizeof *hy)); /* /cpu/ref's bits (the GPU: to round-off, tc10) */
    TEST_CALL(pds_mat_apply(A, x, y));
    hy2 = test_vec_values(y);
    TEST_ASSERT(!memcmp(hy, hy2, N * sizeof *hy)); /* repeatable */
    /* diagonal */
    TEST_CALL(pds_mat_get_diagonal(A, d));
    hd = test_vec_values(d);
    for (size_t g = 0; g < N; g++) derr = fmax(derr, fabs(hd[g] - Ad[g * N + g]));
    if (!(derr <= 1e-12 * amax)) TEST_FAIL("case %zu: diagonal off by %.3g (max |A_ij| %.3g)", c, derr, amax);
    /* symmetric, positive definite */
    for (size_t g = 0; g < N; g++) ax += hx2[g] * hy[g];
    TEST_CALL(pds_vec_set_values(x, hx2, PDS_MEM_HOST));
    TEST_CALL(pds_mat_apply(A, x, y));
    free(hy2);
    hy2 = test_vec_values(y);
    for (size_t g = 0; g < N; g++) ay += hx[g] * hy2[g];
    TEST_ASSERT_NEAR(ax, ay, 1e-12, 1e-12 * amax);
    TEST_ASSERT(cholesky_ok(Ad, N));
    { /* the CSR form */
      pds_mat C;
      double *hc;
      pds_vec z;

      TEST_CALL(pds_mat_convert_to_csr(A, &C));
      TEST_ASSERT(!strcmp(pds_mat_get_type(C), "csr"));
      TEST_CALL(pds_vec_duplicate(x, &z));
      TEST_CALL(pds_mat_apply(C, x, z)); /* x holds hx2 now, y = A hx2 */
      hc = test_vec_values(z);
      for (size_t g = 0; g < N; g++) TEST_ASSERT_NEAR(hc[g], hy2[g], 0, 1e-12 * amax * sqrt((double)N));
      free(hc);
      TEST_CALL(pds_mat_get_diagonal(C, z));
      hc = test_vec_values(z);
      for (size_t g = 0; g < N; g++) TEST_ASSERT_NEAR(hc[g], hd[g], 0, 1e-12 * amax);
      free(hc);
      pds_vec_destroy(&z);
      pds_mat_destroy(&C);
    }
    { /* alpha A x + beta y */
      pds_vec z;
      double *hz;

      TEST_CALL(pds_vec_duplicate(x, &z));
      TEST_CALL(pds_vec_set(z, 2.0));
      TEST_CALL(pds_mat_apply_add(A, -0.5, x, 3.0, z));
      hz = test_vec_values(z);
      for (size_t g = 0; g < N; g++) TEST_ASSERT_NEAR(hz[g], 6.0 - 0.5 * hy2[g], 1e-14, 1e-14);
      free(hz);
      pds_vec_destroy(&z);
    }
    free(Ad), free(hx), free(hx2), free(hy), free(hyr), free(hy2), free(hd);
    pds_vec_destroy(&x), pds_vec_destroy(&y), pds_vec_destroy(&d), pds_vec_destroy(&xr), pds_vec_destroy(&yr);
    TEST_CALL(pds_sem_destroy(&S)); /* the matrix keeps its own copies */
    TEST_CALL(pds_mat_destroy(&A));
    pds_mat_destroy(&Ar), pds_sem_destroy(&Sr);
  }
  for (int def = 0; def < 2 && !small; def++) { /* a mesh over the threads' threshold (25920 local points), affine (the
                                                 kernels read K_e) and deformed: /cpu/ref's bits for A x and the diagonal */
    const pds_int el[3] = {6, 5, 4};
    pds_sem       S, Sr;
    pds_mat       A, Ar;
    pds_vec       x, y, xr, yr;
    double       *h, *a, *b;
    size_t        N;

    TEST_CALL(pds_sem_create_box(ctx, el, 5, def ? 0.07 : 0.0, &S));
    TEST_CALL(pds_sem_create_box(ref, el, 5, def ? 0.07 : 0.0, &Sr));
    TEST_CALL(pds_mat_create_sem(S, &A));
    TEST_CALL(pds_mat_create_sem(Sr, &Ar));
    N = (size_t)S->nglob;
    h = malloc(N * sizeof *h);
    TEST_ASSERT(h);
    for (size_t g = 0; g < N; g++) h[g] = rnd();
    TEST_CALL(pds_vec_create(ctx, (pds_size)N, &x));
    TEST_CALL(pds_vec_create(ctx, (pds_size)N, &y));
    TEST_CALL(pds_vec_create(ref, (pds_size)N, &xr));
    TEST_CALL(pds_vec_create(ref, (pds_size)N, &yr));
    TEST_CALL(pds_vec_set_values(x, h, PDS_MEM_HOST));
    TEST_CALL(pds_vec_set_values(xr, h, PDS_MEM_HOST));
    for (int k = 0; k < 2; k++) {
      if (k) {
        TEST_CALL(pds_mat_get_diagonal(A, y));
        TEST_CALL(pds_mat_get_diagonal(Ar, yr));
      } else {
        TEST_CALL(pds_mat_apply(A, x, y));
        TEST_CALL(pds_mat_apply(Ar, xr, yr));
      }
      a = test_vec_values(y), b = test_vec_values(yr);
      if (memcmp(a, b, N * sizeof *a)) TEST_FAIL("%s on 6 x 5 x 4 %s elements: not /cpu/ref's bits", k ? "diag" : "A x",
                                                  def ? "deformed" : "affine");
      free(a), free(b);
    }
    free(h);
    pds_vec_destroy(&x), pds_vec_destroy(&y), pds_vec_destroy(&xr), pds_vec_destroy(&yr);
    pds_mat_destroy(&A), pds_mat_destroy(&Ar), pds_sem_destroy(&S), pds_sem_destroy(&Sr);
  }
  { /* spectral convergence: CG + jacobi, -lap u = 3 pi^2 u, u = sin sin sin */
    const pds_int el[3] = {2, 2, 2};

    printf("-lap u = 3 pi^2 u on 2^3 elements, CG + jacobi to 1e-13: order, iterations, max error (affine, deformed)\n");
    for (int order = 2; order <= (small ? 6 : 10); order += 2) {
      double errs[2];
      int    its[2];

      for (int def = 0; def < 2; def++) {
        pds_sem           S;
        pds_mat           A;
        pds_vec           b, x;
        pds_solver        s;
        pds_precond       pc;
        pds_solver_result res;
        double           *hb, *hx, *xyz, e = 0;
        size_t            N;

        TEST_CALL(pds_sem_create_box(ctx, el, order, def ? 0.05 : 0.0, &S));
        TEST_CALL(pds_mat_create_sem(S, &A));
        N  = (size_t)S->nglob;
        hb = calloc(N, sizeof *hb), hx = malloc(N * sizeof *hx), xyz = malloc(3 * N * sizeof *xyz);
        TEST_ASSERT(hb && hx && xyz);
        for (pds_size l = 0; l < S->nloc; l++) { /* b = M Q^T B f */
          const double *X = S->xyz + 3 * l;
          const pds_int g = S->gid[l];

          if (!S->mask[g])
            hb[g] += S->B[l] * 3 * PDS_PI * PDS_PI * sin(PDS_PI * X[0]) * sin(PDS_PI * X[1]) * sin(PDS_PI * X[2]);
        }
        TEST_CALL(pds_sem_get_coordinates(S, xyz));
        TEST_CALL(pds_vec_create(ctx, (pds_size)N, &b));
        TEST_CALL(pds_vec_create(ctx, (pds_size)N, &x));
        TEST_CALL(pds_vec_set_values(b, hb, PDS_MEM_HOST));
        TEST_CALL(pds_vec_set(x, 0));
        TEST_CALL(pds_solver_create(ctx, "cg", &s));
        TEST_CALL(pds_precond_create(ctx, "jacobi", &pc));
        TEST_CALL(pds_solver_set_operator(s, A));
        TEST_CALL(pds_solver_set_precond(s, pc));
        TEST_CALL(pds_solver_set_tolerances(s, 1e-13, 0, 2000));
        TEST_CALL(pds_solver_solve(s, b, x));
        TEST_CALL(pds_solver_get_result(s, &res));
        TEST_ASSERT(res.reason > 0);
        TEST_CALL(pds_vec_get_values(x, hx, PDS_MEM_HOST));
        for (size_t g = 0; g < N; g++)
          e = fmax(e, fabs(hx[g] - sin(PDS_PI * xyz[3 * g]) * sin(PDS_PI * xyz[3 * g + 1]) *
                                       sin(PDS_PI * xyz[3 * g + 2])));
        errs[def] = e, its[def] = res.iterations;
        free(hb), free(hx), free(xyz);
        pds_vec_destroy(&b), pds_vec_destroy(&x), pds_solver_destroy(&s), pds_precond_destroy(&pc);
        pds_mat_destroy(&A), pds_sem_destroy(&S);
      }
      printf("  %2d  %4d %4d  %.3e  %.3e\n", order, its[0], its[1], errs[0], errs[1]);
      if (order == 4) TEST_ASSERT(errs[0] < 2e-3 && errs[1] < 5e-3);
      if (order == 10) TEST_ASSERT(errs[0] < 1e-9 && errs[1] < 1e-8);
    }
  }
  { /* paper 003's check of the diagonal kernels: N = 8..12 points a direction, E = 2^7, 2^9, .. 2^maxlog elements
       (deformed: a full G), every variant against the diagonal that the test assembles from the definition (E = 2^7:
       A_pp = sum over the element's points q of grad phi_p(q)^T G(q) grad phi_p(q), summed at the shared points; the
       tensor-product basis's gradient vanishes off p's three grid lines, so q runs over those) and
       against /cpu/ref's arithmetic on the same space (sem_bodies.h), within 2e-13 of each entry; maxlog: 9, or
       PDS_SEM_DIAG_MAXLOG (gpu-check: 15) */
    static const char *const vars[4] = {"extended", "natural", "shared", "wide"};
    const char              *env     = getenv("PDS_SEM_DIAG_MAXLOG");
    const int                maxlog  = small ? 0 : env ? atoi(env) : 9;
    const int                gpu     = strncmp(pds_ctx_get_backend(ctx), "/cpu/", 5) != 0;

    for (int n = 8; n <= 12 && maxlog >= 7; n++)
      for (int lg = 7; lg <= maxlog; lg += 2) {
        const pds_int el[3] = {1 << ((lg + 2) / 3), 1 << ((lg + 1) / 3), 1 << (lg / 3)};
        const int     n3    = n * n * n;
        pds_sem       S;
        pds_mat       A;
        pds_vec       d;
        double       *want, *plain = NULL, *work, worst = 0;
        size_t        N;

        TEST_CALL(pds_sem_create_box(ctx, el, n - 1, 0.05, &S));
        TEST_CALL(pds_mat_create_sem(S, &A));
        N    = (size_t)S->nglob;
        want = malloc(N * sizeof *want), work = malloc(S->nloc * sizeof *work);
        TEST_ASSERT(want && work);
        {
          const struct pds_sem_dev V = {S->n,    S->E,    S->nglob, S->nloc, S->D,     S->w,
                                        S->G,    S->K,    S->gid,   S->mask, S->gsptr, S->gsidx};

          sb_elements(&V, 0, NULL, work, 0, S->E);
          sb_assemble_range(&V, work, NULL, want, 0, S->nglob);
        }
        if (lg == 7) { /* from the definition */
          const double *D = S->D;

          plain = calloc(N, sizeof *plain);
          TEST_ASSERT(plain);
          for (pds_int e = 0; e < S->E; e++)
            for (int p = 0; p < n3; p++) {
              const int      pi = p % n, pj = p / n % n, pk = p / (n * n);
              const pds_int  g  = S->gid[(size_t)n3 * e + p];
              double         a  = 0;

              for (int t = 0; t < 3 * n - 2; t++) { /* the points on p's three lines: grad phi_p is 0 elsewhere */
                const int     d = t < n ? 0 : t < 2 * n - 1 ? 1 : 2, o = t < n ? t : t < 2 * n - 1 ? t - n : t - 2 * n + 1;
                const int     qi = d == 0 ? o : pi, qj = d == 1 ? (o < pj ? o : o + 1) : pj,
                              qk = d == 2 ? (o < pk ? o : o + 1) : pk;
                const int     q  = (qk * n + qj) * n + qi;
                const double *G  = S->G + (size_t)6 * n3 * e + q;
                const double  r = qj == pj && qk == pk ? D[qi * n + pi] : 0, s = qi == pi && qk == pk ? D[qj * n + pj] : 0,
                             t = qi == pi && qj == pj ? D[qk * n + pk] : 0;

                a += r * (G[0] * r + G[n3] * s + G[2 * n3] * t) + s * (G[n3] * r + G[3 * n3] * s + G[4 * n3] * t) +
                     t * (G[2 * n3] * r + G[4 * n3] * s + G[5 * n3] * t);
              }
              plain[g] += a;
            }
          for (size_t g = 0; g < N; g++) {
            if (S->mask[g]) plain[g] = 1;
            if (!(fabs(plain[g] - want[g]) <= 2e-13 * fabs(plain[g])))
              TEST_FAIL("N = %d, E = 2^7: ref's diagonal %.17g at %zu, assembled from the definition %.17g", n,
                        want[g], g, plain[g]);
          }
        }
        TEST_CALL(pds_vec_create(ctx, (pds_size)N, &d));
        for (int v = 0; v < 4; v++) {
          double *got;

          if (gpu && n > 10 && (v == 1 || v == 2)) continue; /* a thread block of n^3 threads */
          TEST_CALL(pds_mat_sem_diagonal(A, v, d));
          got = test_vec_values(d);
          for (size_t g = 0; g < N; g++) {
            const double r = fabs(got[g] - want[g]) / fabs(want[g]);

            worst = fmax(worst, plain ? fmax(r, fabs(got[g] - plain[g]) / fabs(plain[g])) : r);
            if (!(r <= 2e-13) || (plain && !(fabs(got[g] - plain[g]) <= 2e-13 * fabs(plain[g]))))
              TEST_FAIL("diagonal %s, N = %d, E = 2^%d: %.17g at %zu, ref %.17g", vars[v], n, lg, got[g], g, want[g]);
          }
          free(got);
        }
        printf("diagonal kernels, N = %2d, E = 2^%d (%d x %d x %d, deformed): worst relative difference %.2e\n", n,
               lg, el[0], el[1], el[2], worst);
        free(want), free(work), free(plain);
        pds_vec_destroy(&d), pds_mat_destroy(&A), pds_sem_destroy(&S);
      }
  }
  { /* semjacobi */
    static const char *const vars[4] = {"extended", "natural", "shared", "wide"};
    const int                gpu = strncmp(pds_ctx_get_backend(ctx), "/cpu/", 5) != 0;

    for (int order = 3; order <= (small ? 3 : 12); order += 9) { /* 4 and 13 points a direction */
      const pds_int el[3] = {3, 2, 2};
      pds_sem       S;
      pds_mat       A;
      pds_vec       d, b, x;
      double       *want, *got;
      size_t        N;
      int           its[2];

      TEST_CALL(pds_sem_create_box(ctx, el, order, 0.06, &S));
      TEST_CALL(pds_mat_create_sem(S, &A));
      N = (size_t)S->nglob;
      TEST_CALL(pds_vec_create(ctx, (pds_size)N, &d));
      TEST_CALL(pds_mat_get_diagonal(A, d));
      want = test_vec_values(d);
      for (int v = 0; v < 4; v++) {
        pds_precond pc;

        TEST_CALL(pds_precond_create(ctx, "semjacobi", &pc));
        TEST_CALL(pds_precond_semjacobi_set_variant(pc, vars[v]));
        TEST_CALL(pds_precond_set_operator(pc, A));
        if (gpu && order > 9 && (v == 1 || v == 2)) {
          TEST_ASSERT_ERR(ctx, pds_precond_setup(pc), PDS_ERR_ARG, "n <= 10");
          pds_precond_destroy(&pc);
          continue;
        }
        TEST_CALL(pds_precond_setup(pc));
        TEST_CALL(pds_vec_create(ctx, (pds_size)N, &b));
        TEST_CALL(pds_vec_set(b, 1.0));
        TEST_CALL(pds_precond_apply(pc, b, d)); /* 1 / diag */
        pds_vec_destroy(&b);
        got = test_vec_values(d);
        for (size_t g = 0; g < N; g++)
          if (got[g] != 1.0 / want[g]) TEST_FAIL("semjacobi %s, order %d: 1 / d at %zu is %.17g, not %.17g", vars[v],
                                                 order, g, got[g], 1.0 / want[g]);
        free(got);
        pds_precond_destroy(&pc);
      }
      /* CG with and without: fewer iterations with */
      TEST_CALL(pds_vec_create(ctx, (pds_size)N, &b));
      TEST_CALL(pds_vec_create(ctx, (pds_size)N, &x));
      TEST_CALL(pds_vec_set_random(b, 3));
      for (int k = 0; k < 2; k++) {
        pds_solver        s;
        pds_precond       pc;
        pds_solver_result res;

        TEST_CALL(pds_solver_create(ctx, "cg", &s));
        TEST_CALL(pds_precond_create(ctx, k ? "semjacobi" : "none", &pc));
        TEST_CALL(pds_solver_set_operator(s, A));
        TEST_CALL(pds_solver_set_precond(s, pc));
        TEST_CALL(pds_solver_set_tolerances(s, 1e-10, 0, 5000));
        TEST_CALL(pds_vec_set(x, 0));
        TEST_CALL(pds_solver_solve(s, b, x));
        TEST_CALL(pds_solver_get_result(s, &res));
        TEST_ASSERT(res.reason > 0);
        its[k] = res.iterations;
        pds_solver_destroy(&s), pds_precond_destroy(&pc);
      }
      printf("order %d, 3 x 2 x 2 deformed elements: CG %d iterations, CG + semjacobi %d\n", order, its[0], its[1]);
      TEST_ASSERT(its[1] < its[0]);
      free(want);
      pds_vec_destroy(&d), pds_vec_destroy(&b), pds_vec_destroy(&x);
      pds_mat_destroy(&A), pds_sem_destroy(&S);
    }
    { /* another matrix, an unknown variant */
      const pds_int n3[3] = {3, 3, 3};
      pds_precond   pc;
      pds_problem   P;

      TEST_CALL(pds_problem_generate(ctx, "poisson7", n3, 3, &P));
      TEST_CALL(pds_precond_create(ctx, "semjacobi", &pc));
      TEST_ASSERT_ERR(ctx, pds_precond_semjacobi_set_variant(pc, "tiles"), PDS_ERR_ARG, "extended, natural");
      TEST_CALL(pds_precond_set_operator(pc, P.A));
      TEST_ASSERT_ERR(ctx, pds_precond_setup(pc), PDS_ERR_ARG, "semjacobi needs a sem matrix");
      pds_precond_destroy(&pc);
      pds_problem_destroy(&P);
    }
  }
  {
    pds_mat       A, C;
    pds_sem       S;
    const pds_int big[3] = {40, 40, 40};

    TEST_ASSERT(pds_mat_create_sem(NULL, &A) == PDS_ERR_ARG);
    /* the CSR form is for small cases */
    TEST_CALL(pds_sem_create_box(ctx, big, 4, 0.0, &S));
    TEST_CALL(pds_mat_create_sem(S, &A));
    TEST_ASSERT_ERR(ctx, pds_mat_convert_to_csr(A, &C), PDS_ERR_SIZE, "small cases");
    pds_mat_destroy(&A), pds_sem_destroy(&S);
  }
  TEST_CALL(pds_ctx_destroy(&ref));
  test_finalize(&ctx);
  return 0;
}
