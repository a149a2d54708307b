/* src/disc/fem2d_problems.c: the built-in fem2d problems: paper 004's model problem (-lap u = 10 on the unit
 * square, u = 10 on the boundary) with its exact solution by Fourier series, and a manufactured solution.
 *
 * Paper problem. u = 10 + 10 w with -lap w = 1, w = 0 on the boundary. Double series (the paper's, with all
 * terms): 1 = sum_{m,n odd} 16/(pi^2 m n) sin(m pi x) sin(n pi y) on the square, so
 *   w = sum_{m,n odd} 16 / (pi^4 m n (m^2 + n^2)) sin(m pi x) sin(n pi y),
 * which converges like 1/(m n (m^2 + n^2)): slowly. Single series: v = x(1-x)/2 solves -v'' = 1 with v = 0 at
 * x = 0, 1, and x(1-x)/2 = sum_{m odd} 4/(pi^3 m^3) sin(m pi x); subtracting the harmonic h that equals v at
 * y = 0, 1 and 0 at x = 0, 1:
 *   w = x(1-x)/2 - sum_{m odd} 4/(pi^3 m^3) sin(m pi x) cosh(m pi (y - 1/2)) / cosh(m pi / 2).
 * With d = min(y, 1-y) the distance to the nearer of y = 0, 1, the ratio of cosh is
 *   r_m = (q^m + Q^m) / (1 + C^m),  q = e^{-pi d}, Q = e^{-pi (1-d)}, C = e^{-pi}   (all <= 1: no overflow),
 * so the terms fall like q^m / m^3: exponentially unless d is small. w is symmetric in x and y, so the series
 * may be taken in either variable; we take the one whose d is larger (d >= the distance to the boundary, and
 * d is only small near a corner, where w itself is small). Tail after term M (odd), |sin| <= min(1, m pi s_d)
 * with s_d = min(s, 1-s) and r_m <= 2 q^m:
 *   tail <= (8 / pi^3) q^{M+2} / ((M+2)^3 (1 - q^2)),  and  tail <= (8 / pi^2) s_d q^{M+2} / ((M+2)^2 (1 - q^2));
 * we stop when the smaller bound is below 2^-52 (absolute, on w; u = 10 + 10 w is then exact to ~2e-15 plus
 * rounding). sin(m pi s) comes from a rotation by 2 pi s (error growing like m eps, not amplified near
 * s = 0), q^m, Q^m, C^m from repeated products. */
#include <math.h>

#include "disc_impl.h"

#define PAPER_TAIL_TOL 2.220446049250313e-16 /* 2^-52 */
#define PAPER_MAX_TERMS (1L << 22)

double pds_fem2d_square_w(double x, double y, int orient, long *nterms) {
  double dx = fmin(x, 1.0 - x), dy = fmin(y, 1.0 - y);
  double s, d, sd, q, q2, Q, Q2, C, C2, qm, Qm, Cm, sn, cs, s2, c2, sum = 0.0, b1, b2, omq2;
  long   m, k = 0;

  if (nterms) *nterms = 0;
  if (!(dx > 0.0) || !(dy > 0.0)) return 0.0; /* on the boundary (or outside) */
  if (orient == 1 || (orient < 0 && dx > dy)) s = y, d = dx; /* series in y, decay with x's distance */
  else s = x, d = dy;
  sd   = fmin(s, 1.0 - s);
  q    = exp(-PDS_PI * d);
  Q    = exp(-PDS_PI * (1.0 - d));
  C    = exp(-PDS_PI);
  q2   = q * q, Q2 = Q * Q, C2 = C * C;
  omq2 = -expm1(-2.0 * PDS_PI * d); /* 1 - q^2, accurate for small d */
  b1   = 8.0 / (PDS_PI * PDS_PI * PDS_PI) / omq2;
  b2   = 8.0 / (PDS_PI * PDS_PI) * sd / omq2;
  sn   = sin(PDS_PI * s), cs = cos(PDS_PI * s);
  s2   = sin(2.0 * PDS_PI * s), c2 = cos(2.0 * PDS_PI * s);
  qm = q, Qm = Q, Cm = C;
  for (m = 1; k < PAPER_MAX_TERMS; m += 2) {
    double m3 = (double)m * (double)m * (double)m, mp = (double)(m + 2), qn, tail, t;

    sum += sn * (qm + Qm) / ((1.0 + Cm) * m3);
    k++;
    /* next m: m + 2 */
    t  = sn * c2 + cs * s2;
    cs = cs * c2 - sn * s2;
    sn = t;
    qm *= q2, Qm *= Q2, Cm *= C2;
    qn   = qm; /* q^{m+2} */
    tail = fmin(b1 * qn / (mp * mp * mp), b2 * qn / (mp * mp));
    if (tail <= PAPER_TAIL_TOL) break;
  }
  if (nterms) *nterms = k;
  return s * (1.0 - s) / 2.0 - 4.0 / (PDS_PI * PDS_PI * PDS_PI) * sum;
}

double pds_fem2d_square_w_double(double x, double y, long nmax) {
  double sum = 0.0;

  for (long m = 1; m <= nmax; m += 2) {
    double sm = sin(m * PDS_PI * x), row = 0.0;

    for (long n = 1; n <= nmax; n += 2)
      row += sin(n * PDS_PI * y) / ((double)n * ((double)m * m + (double)n * n));
    sum += sm / m * row;
  }
  return 16.0 / (PDS_PI * PDS_PI * PDS_PI * PDS_PI) * sum;
}

/* ---- paper 004 ---- */
static pds_real paper_u(void *user, pds_real x, pds_real y) {
  (void)user;
  return 10.0 + 10.0 * pds_fem2d_square_w(x, y, -1, NULL);
}

/* ---- manufactured: u = sin(pi x) cos(pi y) + x^2 y ---- */
static pds_real mms_u(void *user, pds_real x, pds_real y) {
  (void)user;
  return sin(PDS_PI * x) * cos(PDS_PI * y) + x * x * y;
}
static pds_real mms_f(void *user, pds_real x, pds_real y) {
  (void)user;
  return 2.0 * PDS_PI * PDS_PI * sin(PDS_PI * x) * cos(PDS_PI * y) - 2.0 * y;
}

int pds_fem2d_builtin(pds_ctx ctx, const char *name, pds_fem2d_problem *prob, int *square) {
  memset(prob, 0, sizeof *prob);
  prob->k = 1.0;
  if (name && !strcmp(name, "paper")) {
    prob->f = 10.0, prob->g = 10.0, prob->u = paper_u;
    *square = 1;
    return PDS_OK;
  }
  if (name && !strcmp(name, "manufactured")) {
    prob->ffn = mms_f, prob->gfn = mms_u, prob->u = mms_u;
    *square = 0;
    return PDS_OK;
  }
  return PDS_ERROR(ctx, PDS_ERR_ARG, "unknown fem2d problem '%s'; known: paper, manufactured (or "
                   "pds_fem2d_set_problem_user)", name ? name : "(null)");
}
