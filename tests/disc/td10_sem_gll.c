/* tests/disc/td10_sem_gll.c: the Gauss-Lobatto-Legendre rule of the spectral elements (src/disc/sem_gll.c) against
 * the closed forms of the points and weights for 2 to 7 points (tabulated in Abramowitz and Stegun 25.4.32 and in
 * Canuto et al.), the closed forms of D's corners, and for every n = 2 .. 14: points ascending and symmetric, the
 * weights sum to 2 and integrate x^k exactly for k <= 2 n - 3, D differentiates x^k exactly for k <= n - 1 at the
 * points and its rows sum to 0; n out of range is refused. */
#include "disc/sem_impl.h"
#include "test.h"

static void check_rule(int n, const double *xe, const double *we) {
  double x[PDS_SEM_NMAX], w[PDS_SEM_NMAX];

  TEST_ASSERT(pds_sem_gll(n, x, w, NULL) == 0);
  for (int i = 0; i < n; i++) {
    if (fabs(x[i] - xe[i]) > 2e-16 || fabs(w[i] - we[i]) > 4e-16)
      TEST_FAIL("n = %d, point %d: x %.17g (closed form %.17g), w %.17g (%.17g)", n, i, x[i], xe[i], w[i], we[i]);
  }
}

int main(void) {
  const double s5 = sqrt(5.0), s7 = sqrt(7.0), s15 = sqrt(15.0);

  { /* closed forms */
    const double x2[] = {-1, 1}, w2[] = {1, 1};
    const double x3[] = {-1, 0, 1}, w3[] = {1.0 / 3, 4.0 / 3, 1.0 / 3};
    const double x4[] = {-1, -1 / s5, 1 / s5, 1}, w4[] = {1.0 / 6, 5.0 / 6, 5.0 / 6, 1.0 / 6};
    const double a5 = sqrt(3.0 / 7), x5[] = {-1, -a5, 0, a5, 1};
    const double w5[] = {0.1, 49.0 / 90, 32.0 / 45, 49.0 / 90, 0.1};
    const double b6 = sqrt(1.0 / 3 - 2 * s7 / 21), c6 = sqrt(1.0 / 3 + 2 * s7 / 21);
    const double x6[] = {-1, -c6, -b6, b6, c6, 1};
    const double w6[] = {1.0 / 15, (14 - s7) / 30, (14 + s7) / 30, (14 + s7) / 30, (14 - s7) / 30, 1.0 / 15};
    const double b7 = sqrt(5.0 / 11 - 2.0 / 11 * sqrt(5.0 / 3)), c7 = sqrt(5.0 / 11 + 2.0 / 11 * sqrt(5.0 / 3));
    const double x7[] = {-1, -c7, -b7, 0, b7, c7, 1};
    const double w7[] = {1.0 / 21, (124 - 7 * s15) / 350, (124 + 7 * s15) / 350, 256.0 / 525,
                         (124 + 7 * s15) / 350, (124 - 7 * s15) / 350, 1.0 / 21};

    check_rule(2, x2, w2);
    check_rule(3, x3, w3);
    check_rule(4, x4, w4);
    check_rule(5, x5, w5);
    check_rule(6, x6, w6);
    check_rule(7, x7, w7);
  }
  { /* D for 3 points: the derivative of the quadratic through (-1, 0, 1) */
    const double De[9] = {-1.5, 2, -0.5, -0.5, 0, 0.5, 0.5, -2, 1.5};
    double       D[9];

    TEST_ASSERT(pds_sem_gll(3, NULL, NULL, D) == 0);
    for (int k = 0; k < 9; k++) TEST_ASSERT_NEAR(D[k], De[k], 0, 1e-15);
  }
  for (int n = PDS_SEM_NMIN; n <= PDS_SEM_NMAX; n++) {
    const int p = n - 1;
    double    x[PDS_SEM_NMAX], w[PDS_SEM_NMAX], D[PDS_SEM_NMAX * PDS_SEM_NMAX], sw = 0;

    TEST_ASSERT(pds_sem_gll(n, x, w, D) == 0);
    TEST_ASSERT(x[0] == -1.0 && x[p] == 1.0);
    for (int i = 0; i < n; i++) {
      TEST_ASSERT(i == 0 || x[i] > x[i - 1]);
      TEST_ASSERT(x[i] == -x[p - i] && w[i] == w[p - i] && w[i] > 0);
      sw += w[i];
    }
    TEST_ASSERT_NEAR(sw, 2.0, 0, 1e-14);
    for (int k = 0; k <= 2 * n - 3; k++) { /* the rule is exact to degree 2 n - 3 */
      double q = 0;

      for (int i = 0; i < n; i++) q += w[i] * pow(x[i], k);
      if (fabs(q - (k % 2 ? 0.0 : 2.0 / (k + 1))) > 1e-14)
        TEST_FAIL("n = %d: the rule integrates x^%d to %.17g, not %.17g", n, k, q, k % 2 ? 0.0 : 2.0 / (k + 1));
    }
    TEST_ASSERT_NEAR(D[0], -p * (p + 1) / 4.0, 0, 1e-12 * p * p);
    TEST_ASSERT_NEAR(D[p * n + p], p * (p + 1) / 4.0, 0, 1e-12 * p * p);
    for (int i = 1; i < p; i++) TEST_ASSERT_NEAR(D[i * n + i], 0.0, 0, 1e-12 * p * p);
    for (int k = 0; k <= p; k++) /* D x^k = k x^(k-1) at the points */
      for (int i = 0; i < n; i++) {
        double d = 0;

        for (int j = 0; j < n; j++) d += D[i * n + j] * pow(x[j], k);
        if (fabs(d - (k ? k * pow(x[i], k - 1) : 0.0)) > 1e-12 * (k + 1) * p * p)
          TEST_FAIL("n = %d: (D x^%d) at point %d is %.17g, not %.17g", n, k, i, d, k ? k * pow(x[i], k - 1) : 0.0);
      }
  }
  TEST_ASSERT(pds_sem_gll(1, NULL, NULL, NULL) == -1 && pds_sem_gll(PDS_SEM_NMAX + 1, NULL, NULL, NULL) == -1);
  printf("GLL rule: closed forms for 2..7 points, exactness for 2..%d points: ok\n", PDS_SEM_NMAX);
  return 0;
}
