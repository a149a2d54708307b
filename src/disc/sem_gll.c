/* src/disc/sem_gll.c: Gauss-Lobatto-Legendre points, weights and the derivative matrix of the spectral elements
 * (paper 003; src/disc/sem_impl.h). For n = p + 1 points, the points are -1, 1 and the roots of P_p' (P_p: the
 * Legendre polynomial of degree p), the weights w_i = 2 / (p (p + 1) P_p(x_i)^2), and D_ij = l_j'(x_i), the
 * derivative of the j-th Lagrange polynomial through the points at point i:
 *   D_ij = P_p(x_i) / (P_p(x_j) (x_i - x_j))   (i != j),    D_ii = - sum_{j != i} D_ij,
 * the diagonal by the negative sum (Baltensperger and Trummer: the rows then sum to zero in floating point, so D
 * differentiates constants exactly; the closed forms are D_00 = -p (p + 1) / 4, D_pp = p (p + 1) / 4, else 0).
 * The points come from Newton's method on (1 - x^2) P_p'(x) in the form x <- x - (x P_p - P_{p-1}) / (n P_p), from
 * the Chebyshev-Gauss-Lobatto points -cos(pi i / p), iterated until no point moves by more than 1e-16 (or 100
 * times), then made symmetric (x_{p-i} = -x_i, the middle point 0) so that mirrored elements see mirrored data. */
#include <math.h>

#include "sem_impl.h"

/* P_p(x) and P_{p-1}(x) by the three-term recurrence */
static void legendre(int p, double x, double *pp, double *pm) {
  double a = 1.0, b = x; /* P_0, P_1 */

  if (p == 0) {
    *pp = 1.0, *pm = 0.0;
    return;
  }
  for (int k = 2; k <= p; k++) {
    const double c = ((2.0 * k - 1.0) * x * b - (k - 1.0) * a) / k;

    a = b, b = c;
  }
  *pp = b, *pm = a;
}

int pds_sem_gll(int n, pds_real *x, pds_real *w, pds_real *D) {
  const int p = n - 1;
  double    xs[PDS_SEM_NMAX], P[PDS_SEM_NMAX];

  if (n < PDS_SEM_NMIN || n > PDS_SEM_NMAX) return -1;
  for (int i = 0; i < n; i++) xs[i] = -cos(PDS_PI * i / p);
  for (int it = 0; it < 100; it++) {
    double moved = 0;

    for (int i = 1; i < p; i++) { /* the end points are exact */
      double pp, pm, dx;

      legendre(p, xs[i], &pp, &pm);
      dx = (xs[i] * pp - pm) / (n * pp);
      xs[i] -= dx;
      if (fabs(dx) > moved) moved = fabs(dx);
    }
    if (moved <= 1e-16) break;
  }
  for (int i = 0; i < n / 2; i++) { /* symmetric */
    const double s = 0.5 * (xs[p - i] - xs[i]);

    xs[i] = -s, xs[p - i] = s;
  }
  if (n % 2) xs[p / 2] = 0.0;
  for (int i = 0; i < n; i++) {
    double pm;

    legendre(p, xs[i], &P[i], &pm);
    if (x) x[i] = xs[i];
    if (w) w[i] = 2.0 / (p * (p + 1.0) * P[i] * P[i]);
  }
  if (D)
    for (int i = 0; i < n; i++) {
      double s = 0;

      for (int j = 0; j < n; j++)
        if (j != i) {
          D[i * n + j] = P[i] / (P[j] * (xs[i] - xs[j]));
          s += D[i * n + j];
        }
      D[i * n + i] = -s;
    }
  return 0;
}
