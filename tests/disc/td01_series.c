/* tests/disc/td01_series.c: the exact solution of paper 004's problem (u = 10 + 10 w, -lap w = 1 in the unit
 * square, w = 0 on its boundary) by the single Fourier series of src/disc/fem2d_problems.c, checked against
 * itself in the other variable (w is symmetric; the two series share no term), the double series, a 4th-order
 * finite-difference Laplacian, the boundary values and the known centre value. */
#include "disc/disc_impl.h"
#include "test.h"

static double rnd(uint64_t *s) { /* uniform in [0, 1) */
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(*s >> 11) / 9007199254740992.0;
}

int main(void) {
  uint64_t seed = 42;
  long     n0, n1, nmax = 0;
  double   worst = 0;

  /* centre: w(1/2, 1/2) = 0.0736713532814... (torsion of the unit square / 4) */
  TEST_ASSERT_NEAR(pds_fem2d_square_w(0.5, 0.5, -1, NULL), 0.07367135328151, 0, 1e-13);
  /* boundary: exactly 0; just inside: continuous (w <= min distance / 2) */
  for (int k = 0; k <= 10; k++) {
    double t = k / 10.0;

    TEST_ASSERT(pds_fem2d_square_w(t, 0.0, -1, NULL) == 0.0 && pds_fem2d_square_w(t, 1.0, -1, NULL) == 0.0);
    TEST_ASSERT(pds_fem2d_square_w(0.0, t, -1, NULL) == 0.0 && pds_fem2d_square_w(1.0, t, -1, NULL) == 0.0);
    TEST_ASSERT(pds_fem2d_square_w(1e-12, t, -1, NULL) <= 1e-12);
  }
  /* x-series and y-series agree to rounding at random points, near the edges and corners too */
  for (int k = 0; k < 4000; k++) {
    double x = rnd(&seed), y = rnd(&seed), a, b;

    if (k % 4 == 1) x *= 1e-3;         /* near x = 0 */
    if (k % 4 == 2) y = 1.0 - 1e-3 * y; /* near y = 1 */
    if (k % 4 == 3) x *= 0.01, y *= 0.01;
    if (!(x > 0 && y > 0)) continue;
    a = pds_fem2d_square_w(x, y, 0, &n0);
    b = pds_fem2d_square_w(x, y, 1, &n1);
    worst = fmax(worst, fabs(a - b));
    TEST_ASSERT_NEAR(a, b, 0, 5e-15); /* u = 10 + 10 w: 5e-14 */
    TEST_ASSERT(pds_fem2d_square_w(x, y, -1, NULL) == pds_fem2d_square_w(y, x, -1, NULL)); /* symmetric */
  }
  /* the double series (slow, ~1/nmax) */
  for (int k = 0; k < 8; k++) {
    double x = 0.05 + 0.9 * rnd(&seed), y = 0.05 + 0.9 * rnd(&seed);

    TEST_ASSERT_NEAR(pds_fem2d_square_w(x, y, -1, NULL), pds_fem2d_square_w_double(x, y, 3001), 0, 1e-9);
  }
  /* -lap w = 1 by the 4th-order 9-point cross (error ~ h^4 w^(6) ~ 1e-8 at h = 1e-2) */
  for (int k = 0; k < 50; k++) {
    double x = 0.05 + 0.9 * rnd(&seed), y = 0.05 + 0.9 * rnd(&seed), h = 1e-2, c = pds_fem2d_square_w(x, y, -1, NULL);
    double lx = -pds_fem2d_square_w(x + 2 * h, y, -1, NULL) + 16 * pds_fem2d_square_w(x + h, y, -1, NULL) - 30 * c +
                16 * pds_fem2d_square_w(x - h, y, -1, NULL) - pds_fem2d_square_w(x - 2 * h, y, -1, NULL);
    double ly = -pds_fem2d_square_w(x, y + 2 * h, -1, NULL) + 16 * pds_fem2d_square_w(x, y + h, -1, NULL) - 30 * c +
                16 * pds_fem2d_square_w(x, y - h, -1, NULL) - pds_fem2d_square_w(x, y - 2 * h, -1, NULL);

    TEST_ASSERT_NEAR(-(lx + ly) / (12 * h * h), 1.0, 0, 2e-6);
  }
  /* terms: at most a few thousand on a 1000 x 1000 grid (the nodes nearest the corners), ~10 in the middle */
  for (int i = 1; i < 1000; i += 3)
    for (int j = 1; j < 1000; j += 3) {
      long n;

      pds_fem2d_square_w(i / 1000.0, j / 1000.0, -1, &n);
      if (n > nmax) nmax = n;
    }
  TEST_ASSERT(nmax > 100 && nmax < 3000);
  pds_fem2d_square_w(0.5, 0.5, -1, &n0);
  TEST_ASSERT(n0 <= 10);
  if (getenv("PDS_TEST_VERBOSE"))
    printf("x/y series max difference %.3g; most terms on a 1000^2 grid %ld; centre %ld\n", worst, nmax, n0);
  return 0;
}
