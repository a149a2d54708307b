/* tests/disc/td14_fv_flux.c: the face fluxes of the finite-volume Euler operator (src/backend/fv_bodies.h, paper 001):
 * - consistency: F_ROE(Q, Q, n) = F(Q) . n (random states, random area vectors);
 * - conservation: F_ROE(QL, QR, n) = -F_ROE(QR, QL, -n);
 * - upwinding (Roe's property A~ (QR - QL) = F(QR) - F(QL)): where every wave runs along n (supersonic towards the
 *   right cell) F_ROE = F(QL) . n, against it F(QR) . n;
 * - rotation invariance: rotating both states' momenta and n rotates the flux's momentum;
 * - the wall flux is the physical flux of a state sliding along the wall;
 * - Harten's fix changes the flux only near a sonic point;
 * - Sod's shock tube (Toro's test 1) by first-order finite volumes with the Roe flux converges to the exact solution
 *   (star state from Toro, Riemann Solvers, Table 4.3): the L1 error of the density falls as the cells halve. */
#include "backend/fv_bodies.h"
#include "test.h"

static const double gam = 1.4;

static uint64_t rs = 7;
static double   rnd(void) { /* [0, 1) */
  rs = rs * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(rs >> 11) / 9007199254740992.0;
}

/* a state of density rho, velocity u, pressure p */
static void state(double rho, const double u[3], double p, double Q[5]) {
  Q[0] = rho, Q[1] = rho * u[0], Q[2] = rho * u[1], Q[3] = rho * u[2];
  Q[4] = p / (gam - 1) + 0.5 * rho * (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
}

static void random_state(double Q[5]) {
  const double u[3] = {2 * rnd() - 1, 2 * rnd() - 1, 2 * rnd() - 1};

  state(0.2 + rnd(), u, 0.2 + rnd(), Q);
}

static double maxdiff(const double *a, const double *b, int n, double *scale) {
  double d = 0, s = 0;

  for (int k = 0; k < n; k++) d = fmax(d, fabs(a[k] - b[k])), s = fmax(s, fabs(a[k]) + fabs(b[k]));
  if (scale) *scale = s;
  return d;
}

/* Sod's problem at time t, exact: density at x (diaphragm at 0.5) */
static double sod_density(double x, double t) {
  const double pL = 1, rL = 1, pR = 0.1, rR = 0.125, ps = 0.30313, us = 0.92745, rsL = 0.42632, rsR = 0.26557;
  const double cL = sqrt(gam * pL / rL), csL = cL * pow(ps / pL, (gam - 1) / (2 * gam));
  const double cR = sqrt(gam * pR / rR), S = cR * sqrt((gam + 1) / (2 * gam) * ps / pR + (gam - 1) / (2 * gam));
  const double xi = (x - 0.5) / t;

  (void)rsL;
  if (xi <= -cL) return rL;
  if (xi <= us - csL) return rL * pow(2 / (gam + 1) + (gam - 1) / ((gam + 1) * cL) * (0 - xi), 2 / (gam - 1));
  if (xi <= us) return rL * pow(ps / pL, 1 / gam);
  if (xi <= S) return rsR;
  return rR;
}

/* first-order finite volumes with the Roe flux on N cells of [0, 1], CFL 0.8, to t = 0.2: L1 error of the density */
static double sod_error(int N, double efix) {
  double      *Q = malloc(5 * sizeof *Q * (size_t)N), *F = malloc(5 * sizeof *F * (size_t)(N + 1));
  const double dx = 1.0 / N, n[3] = {1, 0, 0}, zero[3] = {0, 0, 0};
  double       t = 0, err = 0;

  TEST_ASSERT(Q && F);
  for (int i = 0; i < N; i++) state((i + 0.5) * dx < 0.5 ? 1.0 : 0.125, zero, (i + 0.5) * dx < 0.5 ? 1.0 : 0.1, Q + 5 * i);
  while (t < 0.2) {
    double smax = 0, dt;

    for (int i = 0; i < N; i++) {
      const double *q = Q + 5 * i, c = sqrt(gam * fv_pressure(gam, q) / q[0]);

      smax = fmax(smax, fabs(q[1] / q[0]) + c);
    }
    dt = fmin(0.8 * dx / smax, 0.2 - t);
    for (int i = 0; i <= N; i++) /* transmissive ends: the outside cell copies the inside one */
      fv_flux_roe(gam, efix, Q + 5 * (i > 0 ? i - 1 : 0), Q + 5 * (i < N ? i : N - 1), n, F + 5 * i);
    for (int i = 0; i < N; i++)
      for (int k = 0; k < 5; k++) Q[5 * i + k] -= dt / dx * (F[5 * (i + 1) + k] - F[5 * i + k]);
    t += dt;
  }
  for (int i = 0; i < N; i++) err += fabs(Q[5 * i] - sod_density((i + 0.5) * dx, 0.2)) * dx;
  free(Q), free(F);
  return err;
}

int main(int argc, char **argv) {
  pds_ctx ctx = test_init(argc, argv);
  double  QL[5], QR[5], F[5], G[5], H[5], s;

  for (int t = 0; t < 1000; t++) {
    const double n[3] = {2 * rnd() - 1, 2 * rnd() - 1, 2 * rnd() - 1}, m[3] = {-n[0], -n[1], -n[2]};

    random_state(QL), random_state(QR);
    fv_flux_roe(gam, 0.1, QL, QL, n, F); /* consistency */
    fv_flux_phys(gam, QL, n, G);
    TEST_ASSERT(maxdiff(F, G, 5, &s) <= 1e-14 * s);
    fv_flux_roe(gam, 0.1, QL, QR, n, F); /* conservation */
    fv_flux_roe(gam, 0.1, QR, QL, m, G);
    for (int k = 0; k < 5; k++) G[k] = -G[k];
    TEST_ASSERT(maxdiff(F, G, 5, &s) <= 1e-13 * s);
    { /* rotation about z by 0.7 */
      const double c = cos(0.7), sn = sin(0.7), rn[3] = {c * n[0] - sn * n[1], sn * n[0] + c * n[1], n[2]};
      double       A[5], B[5];

      for (int k = 0; k < 5; k++) A[k] = QL[k], B[k] = QR[k];
      A[1] = c * QL[1] - sn * QL[2], A[2] = sn * QL[1] + c * QL[2];
      B[1] = c * QR[1] - sn * QR[2], B[2] = sn * QR[1] + c * QR[2];
      fv_flux_roe(gam, 0.1, A, B, rn, H);
      G[0] = F[0], G[1] = c * F[1] - sn * F[2], G[2] = sn * F[1] + c * F[2], G[3] = F[3], G[4] = F[4];
      TEST_ASSERT(maxdiff(H, G, 5, &s) <= 1e-13 * s);
    }
  }
  { /* upwinding: supersonic along n (Mach 2.5 and more: every eigenvalue of A~ positive), then against it */
    const double n[3] = {0.3, -0.4, 1.2}, u1[3] = {1.0, -1.3, 4.0}, u2[3] = {0.9, -1.4, 4.3};
    const double v1[3] = {-u1[0], -u1[1], -u1[2]}, v2[3] = {-u2[0], -u2[1], -u2[2]};

    state(1.0, u1, 1.0, QL), state(0.8, u2, 0.7, QR);
    fv_flux_roe(gam, 0, QL, QR, n, F);
    fv_flux_phys(gam, QL, n, G);
    TEST_ASSERT(maxdiff(F, G, 5, &s) <= 1e-13 * s);
    state(1.0, v1, 1.0, QL), state(0.8, v2, 0.7, QR);
    fv_flux_roe(gam, 0, QL, QR, n, F);
    fv_flux_phys(gam, QR, n, G);
    TEST_ASSERT(maxdiff(F, G, 5, &s) <= 1e-13 * s);
  }
  { /* the wall flux: a state sliding along the wall */
    const double n[3] = {0, 0, 2.5}, u[3] = {0.4, -0.2, 0};

    state(1.2, u, 0.9, QL);
    fv_flux_wall(gam, QL, n, F);
    fv_flux_phys(gam, QL, n, G);
    TEST_ASSERT(maxdiff(F, G, 5, &s) <= 1e-15 * s && F[0] == 0 && F[4] == 0);
  }
  { /* Harten's fix: no change far from sonic points, a change at one */
    const double n[3] = {1, 0, 0}, u1[3] = {0.2, 0, 0}, u2[3] = {0.25, 0, 0}, w1[3] = {1.15, 0, 0},
                 w2[3] = {1.2, 0, 0};

    state(1.0, u1, 1.0, QL), state(0.95, u2, 0.95, QR);
    fv_flux_roe(gam, 0, QL, QR, n, F), fv_flux_roe(gam, 0.1, QL, QR, n, G);
    TEST_ASSERT(maxdiff(F, G, 5, NULL) == 0);
    state(1.0, w1, 1.0, QL), state(0.95, w2, 0.95, QR); /* u near c = 1.18 */
    fv_flux_roe(gam, 0, QL, QR, n, F), fv_flux_roe(gam, 0.1, QL, QR, n, G);
    TEST_ASSERT(maxdiff(F, G, 5, NULL) > 0);
  }
  { /* Sod */
    double e[3];

    printf("Sod's shock tube, first-order Roe, t = 0.2: cells, L1 error of the density\n");
    for (int k = 0; k < 3; k++) {
      e[k] = sod_error(100 << k, 0.1);
      printf("  %4d  %.4e\n", 100 << k, e[k]);
    }
    TEST_ASSERT(e[0] < 0.03 && e[1] < 0.8 * e[0] && e[2] < 0.8 * e[1]);
  }
  test_finalize(&ctx);
  return 0;
}
