/* src/disc/channel.c: test systems of the kind paper 000 solved (issue 10): one implicit pseudo-time step of the
 * artificial-compressibility incompressible Navier-Stokes equations in a channel, as a stencil7 matrix, and a
 * diagonally dominant random stencil7 matrix. docs/channel.md has the derivation; in short:
 *
 *   p_t + beta div u = 0,   u_t + div(u u) + grad p = (1/Re) lap u,   s_t + div(s u) = (1/Re) lap s + S(q),
 *
 * q = (p, u, v, w[, s1[, s2]]) per cell of an I x J x K finite-volume grid of [0, lx] x [0, 2] x [0, lz] (walls at
 * y = 0 and 2, tanh clustering towards them with parameter stretch). Residual of cell c:
 *   R_c(q) = sum over its faces f of S_f [ (F(q_c) + F(q_f'))/2 . n - L_f/2 (q_f' - q_c) ]
 *          + (1/Re) sum_f S_f (q_c - q_f') / d_f (velocities and scalars)   + V_c S(q_c)            (sources)
 * with q_f' the neighbour, or at the domain's boundary a ghost state q_g = m0 q_c + m1 q_c2 + g (c2: the next
 * cell inwards; m0, m1, g per unknown and boundary kind), L_f diagonal: lambda_f = |u_n| + sqrt(u_n^2 + beta) for
 * p and u_n (Rusanov on the acoustic pair), |u_n| for the tangential velocities and the scalars (upwind advection;
 * a lambda there would diffuse the wall shear layer by O(sqrt(beta) h)), u_n the face's mean base normal velocity.
 * The system is (V_c / dtau_c I + dR/dq) dq = -R(q0), dR/dq with L_f frozen (Picard in the dissipation, exact in
 * the central part: dF/dq = the flux Jacobian A_n(q) of each side), about the base state q0 (Poiseuille
 * u = 1.5 (1 - (y-1)^2), p = 3 (lx - x) / Re, plus a smooth perturbation of amplitude perturb), local (per cell)
 * dtau_c = cfl * min over the cell's faces of h / (|u_n| + sqrt(u_n^2 + beta)). On a uniform grid without
 * perturbation the base state is an exact discrete steady solution for n = 4 and 5 (b = 0 to rounding):
 * central differences are exact for the parabola, the wall gradient is the quadratic through the wall and the
 * two nearest centres, and the ghosts extrapolate p linearly. Multi-block (pds_channel_generate_blocks): each grid's
 * rows are filled by the same code into its slice of one stencil7_blocks matrix, grid q with the perturbation's
 * phase advanced by q golden angles. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../gen/gen_impl.h"
#include "../sys/comm.h"
#include "disc_impl.h"

#define CH_MAXN 6
/* stencil7 block of the neighbour across face f = 2 d + side (d = 0 x, 1 y, 2 z; side 0 lower, 1 upper) */
static const int ch_block[6] = {2, 4, 1, 5, 0, 6};

void pds_channel_opts_default(pds_channel_opts *o) {
  if (!o) return;
  memset(o, 0, sizeof *o);
  o->n = 6, o->ni = 16, o->nj = 16, o->nk = 16;
  o->cfl = 10, o->re = 100, o->stretch = 1.5, o->beta = 1, o->lx = 4, o->lz = 2, o->perturb = 0.05, o->phase = 0;
}

/* Model source coefficients of the two turbulence-like scalars k, omega (n = 6; docs/channel.md):
   S_k = CD k w - CP G u,  S_w = CW w^2 - CA G u w / k,  G = |du/dy| of the Poiseuille profile. */
#define CH_CP 0.1
#define CH_CD 0.09
#define CH_CW 0.075
#define CH_CA 0.02

/* The base state at (x, y, z): the perturbation's streamwise pattern shifted by phase (radians of its period lx). */
static void ch_base(const pds_channel_opts *o, double x, double y, double z, double *q) {
  double e = o->perturb, sx = sin(2 * PDS_PI * x / o->lx + o->phase), sy = sin(0.5 * PDS_PI * y);
  double cz = cos(2 * PDS_PI * z / o->lz);

  q[0] = 3.0 * (o->lx - x) / o->re;
  q[1] = 1.5 * (1 - (y - 1) * (y - 1)) * (1 + e * sx * cz);
  q[2] = e * sx * sy;
  q[3] = e * sy * sin(2 * PDS_PI * z / o->lz);
  for (int m = 4; m < o->n; m++) q[m] = 1 + e * sin(PDS_PI * x / o->lx + 0.5 * o->phase) * sy;
}

/* Normal flux F(q) . e_d and its Jacobian A (n x n, row-major) for the unknowns (p, u, v, w, s...). */
static void ch_flux(int n, double beta, int d, const double *q, double *F, double *A) {
  double un = q[1 + d];

  F[0] = beta * un;
  for (int c = 0; c < 3; c++) F[1 + c] = q[1 + c] * un + (c == d ? q[0] : 0);
  for (int m = 4; m < n; m++) F[m] = q[m] * un;
  if (!A) return;
  memset(A, 0, sizeof(double) * (size_t)(n * n));
  A[1 + d] = beta;
  for (int c = 0; c < 3; c++) {
    double *r = A + (1 + c) * n;

    if (c == d) r[0] = 1;
    r[1 + c] += un, r[1 + d] += q[1 + c];
  }
  for (int m = 4; m < n; m++) A[m * n + m] = un, A[m * n + 1 + d] = q[m];
}

/* Grid: cell centres and widths per direction. */
typedef struct {
  const pds_channel_opts *o;
  double *xc[3], *h[3]; /* [I], [J], [K] */
  pds_int N[3];
} ch_grid;

/* One cell's row: the seven blocks (blk[7][n n], added to) and the residual R (added to), from base states q0 of
   the cell and its neighbours (nb[a] = 7-point block index a; NULL out of the grid). */
static void ch_cell(const ch_grid *g, const pds_int ijk[3], double *const qn[7], double *blk, double *R) {
  const pds_channel_opts *o = g->o;
  int                     n = o->n;
  double                  nu = 1.0 / o->re, V = g->h[0][ijk[0]] * g->h[1][ijk[1]] * g->h[2][ijk[2]];
  double                  dtau = HUGE_VAL, F0[CH_MAXN], Fg[CH_MAXN], A0[CH_MAXN * CH_MAXN], Ag[CH_MAXN * CH_MAXN];
  const double           *q = qn[3];
  double                 *D = blk + 3 * n * n;

  for (int f = 0; f < 6; f++) {
    int     d = f / 2, side = f % 2, a = ch_block[f], ain = ch_block[f ^ 1];
    double  s = side ? 1.0 : -1.0, S = V / g->h[d][ijk[d]], qg[CH_MAXN], m0[CH_MAXN], m1[CH_MAXN];
    double  un, lam, dist, hn = g->h[d][ijk[d]];
    double *B = blk + a * n * n, *Bin = blk + ain * n * n;
    const double *qo = qn[a], *q2 = qn[ain];
    int     bnd = !qo;

    if (bnd) { /* the ghost state q_g = m0 q + m1 q2 + g of this boundary (docs/channel.md, boundary table) */
      double gv[CH_MAXN], y = g->xc[1][ijk[1]], z = g->xc[2][ijk[2]];

      for (int m = 0; m < n; m++) m0[m] = 1, m1[m] = 0, gv[m] = 0;
      if (d == 0 && !side) { /* inflow: velocity and scalars given, p extrapolated linearly */
        double qb[CH_MAXN];

        ch_base(o, 0.0, y, z, qb);
        for (int m = 1; m < n; m++) m0[m] = -1, gv[m] = 2 * qb[m];
        if (q2) m0[0] = 2, m1[0] = -1;
      } else if (d == 0) { /* outflow: p = 0 given, the rest extrapolated */
        m0[0] = -1;
      } else m0[1 + d] = -1; /* walls (y: no-slip for the viscous terms below; z: slip): normal velocity mirrored */
      for (int m = 0; m < n; m++) qg[m] = m0[m] * q[m] + m1[m] * (q2 ? q2[m] : 0) + gv[m];
      qo = qg;
    }
    /* convection: Rusanov, lambda frozen */
    un  = 0.5 * (q[1 + d] + qo[1 + d]);
    lam = fabs(un) + sqrt(un * un + o->beta);
    dtau = fmin(dtau, o->cfl * hn / (fabs(q[1 + d]) + sqrt(q[1 + d] * q[1 + d] + o->beta)));
    ch_flux(n, o->beta, d, q, F0, A0);
    ch_flux(n, o->beta, d, qo, Fg, Ag);
    for (int r = 0; r < n; r++) {
      double lr = r == 0 || r == 1 + d ? lam : fabs(un); /* (p, u_n): Rusanov; the rest: upwind advection */

      R[r] += S * (0.5 * s * (F0[r] + Fg[r]) - 0.5 * lr * (qo[r] - q[r]));
      for (int c = 0; c < n; c++) {
        double own = 0.5 * S * (s * A0[r * n + c] + (r == c ? lr : 0));
        double oth = 0.5 * S * (s * Ag[r * n + c] - (r == c ? lr : 0));

        D[r * n + c] += own;
        if (!bnd) B[r * n + c] += oth;
        else {
          D[r * n + c] += oth * m0[c];
          if (q2) Bin[r * n + c] += oth * m1[c];
        }
      }
    }
    /* viscous: central differences (1/Re) S (q - q_o) / dist for velocities and scalars */
    if (!bnd) {
      dist = 0.5 * (hn + g->h[d][ijk[d] + (side ? 1 : -1)]);
      for (int m = 1; m < n; m++) {
        R[m] += nu * S * (q[m] - qo[m]) / dist;
        D[m * n + m] += nu * S / dist, B[m * n + m] -= nu * S / dist;
      }
      continue;
    }
    for (int m = 1; m < n; m++) {
      double w; /* Dirichlet value; the Neumann components (zero gradient) add nothing */

      if (d == 0 && !side) w = 0.5 * (qg[m] + q[m]); /* inflow: the given value */
      else if (d == 1 && m <= 3) w = 0;                /* no-slip wall */
      else if (d == 2 && m == 3) w = 0;                /* slip wall: normal velocity */
      else continue;
      if (d == 1 && q2) { /* wall: gradient of the quadratic through the wall and the two nearest centres */
        double d1 = 0.5 * hn, d2 = hn + 0.5 * g->h[1][ijk[1] + (side ? -1 : 1)], den = d1 * d2 * (d2 - d1);

        R[m] += nu * S * ((q[m] - w) * d2 * d2 - (q2[m] - w) * d1 * d1) / den;
        D[m * n + m] += nu * S * d2 * d2 / den, Bin[m * n + m] -= nu * S * d1 * d1 / den;
      } else {
        R[m] += nu * S * (q[m] - w) / (0.5 * hn);
        D[m * n + m] += nu * S / (0.5 * hn);
      }
    }
  }
  if (n == 6) { /* k, omega sources, linearized */
    double G = 3 * fabs(1 - g->xc[1][ijk[1]]), u = q[1], k = q[4], w = q[5];

    R[4] += V * (CH_CD * k * w - CH_CP * G * u);
    D[4 * n + 4] += V * CH_CD * w, D[4 * n + 5] += V * CH_CD * k, D[4 * n + 1] -= V * CH_CP * G;
    R[5] += V * (CH_CW * w * w - CH_CA * G * u * w / k);
    D[5 * n + 5] += V * (2 * CH_CW * w - CH_CA * G * u / k), D[5 * n + 1] -= V * CH_CA * G * w / k;
    D[5 * n + 4] += V * CH_CA * G * u * w / (k * k);
  }
  for (int m = 0; m < n; m++) D[m * n + m] += V / dtau;
}

#define CH_OPT(cond, ...) PDS_CHECK(cond, ctx, PDS_ERR_ARG, __VA_ARGS__)

/* Every option but the grid sizes. */
static int ch_check_opts(pds_ctx ctx, const pds_channel_opts *o) {
  CH_OPT(o->n >= 4 && o->n <= CH_MAXN, "option n = %d: unknowns per cell must be 4 (p, u, v, w), 5 (+ a scalar) "
         "or 6 (+ k, omega)", o->n);
  CH_OPT(o->cfl > 0 && isfinite(o->cfl), "option cfl = %g must be positive", o->cfl);
  CH_OPT(o->re > 0 && isfinite(o->re), "option re = %g must be positive", o->re);
  CH_OPT(o->stretch >= 0 && o->stretch <= 10, "option stretch = %g must be in [0, 10] (0 = uniform)", o->stretch);
  CH_OPT(o->beta > 0 && isfinite(o->beta), "option beta = %g must be positive", o->beta);
  CH_OPT(o->lx > 0 && o->lz > 0 && isfinite(o->lx) && isfinite(o->lz), "option lx = %g or lz = %g must be positive",
         o->lx, o->lz);
  CH_OPT(o->perturb >= 0 && o->perturb <= 0.5, "option perturb = %g must be in [0, 0.5]", o->perturb);
  CH_OPT(isfinite(o->phase), "option phase = %g must be finite", o->phase);
  return PDS_OK;
}

/* The grid's geometry (o->ni x o->nj x o->nk cells): centres and widths per direction, into g (free with ch_grid_free). */
static int ch_grid_init(pds_ctx ctx, const pds_channel_opts *o, ch_grid *g) {
  pds_int I = o->ni, J = o->nj, K = o->nk;
  double *geo = NULL;

  g->o = o, g->N[0] = I, g->N[1] = J, g->N[2] = K;
  PDS_CALL(PDS_NEW(ctx, 2 * ((size_t)I + J + K), &geo));
  g->xc[0] = geo, g->xc[1] = geo + I, g->xc[2] = geo + I + J;
  g->h[0] = geo + I + J + K, g->h[1] = g->h[0] + I, g->h[2] = g->h[1] + J;
  for (pds_int i = 0; i < I; i++) g->h[0][i] = o->lx / I, g->xc[0][i] = (i + 0.5) * o->lx / I;
  for (pds_int k = 0; k < K; k++) g->h[2][k] = o->lz / K, g->xc[2][k] = (k + 0.5) * o->lz / K;
  for (pds_int j = 0; j < J; j++) { /* y faces 1 + tanh(s (2t - 1)) / tanh(s), t = j / J; centres midway */
    double t0 = (double)j / J, t1 = (double)(j + 1) / J, s = o->stretch, y0, y1;

    y0 = s > 0 ? 1 + tanh(s * (2 * t0 - 1)) / tanh(s) : 2 * t0;
    y1 = s > 0 ? 1 + tanh(s * (2 * t1 - 1)) / tanh(s) : 2 * t1;
    g->h[1][j] = y1 - y0, g->xc[1][j] = 0.5 * (y0 + y1);
  }
  return PDS_OK;
}

static void ch_grid_free(pds_ctx ctx, ch_grid *g) { pds_free(ctx, PDS_MEM_HOST, &g->xc[0]); }

/* The rows of the cells of the box lo[d] .. lo[d] + sz[d] - 1 of the grid g (options checked) into zeroed arrays in the
   box's own order (i, j, k; k fastest): vals[7 cells n^2] (every arm, the ones reaching out of the box included; arms
   out of the grid are zero) and rhs[cells n] (b = -R(q0)), from the base states of the box and its one-cell rim. */
static int ch_fill_box(pds_ctx ctx, const ch_grid *g, const pds_int lo[3], const pds_int sz[3], double *vals,
                       double *rhs) {
  const int    n = g->o->n;
  pds_int      e0[3], en[3]; /* the box with its rim, clipped to the grid */
  double      *q0    = NULL;
  const size_t cells = (size_t)sz[0] * sz[1] * sz[2];

  for (int d = 0; d < 3; d++) {
    e0[d] = lo[d] > 0 ? lo[d] - 1 : 0;
    en[d] = (lo[d] + sz[d] < g->N[d] ? lo[d] + sz[d] + 1 : g->N[d]) - e0[d];
  }
  PDS_CALL(PDS_NEW(ctx, (size_t)en[0] * en[1] * en[2] * (size_t)n, &q0));
  for (pds_int i = 0; i < en[0]; i++)
    for (pds_int j = 0; j < en[1]; j++)
      for (pds_int k = 0; k < en[2]; k++)
        ch_base(g->o, g->xc[0][e0[0] + i], g->xc[1][e0[1] + j], g->xc[2][e0[2] + k],
                q0 + (((size_t)i * en[1] + j) * en[2] + k) * n);
  for (pds_int i = 0; i < sz[0]; i++)
    for (pds_int j = 0; j < sz[1]; j++)
      for (pds_int k = 0; k < sz[2]; k++) {
        const pds_int gi = lo[0] + i, gj = lo[1] + j, gk = lo[2] + k, ijk[3] = {gi, gj, gk};
        const size_t  sk = (size_t)n, sj = (size_t)en[2] * n, si = (size_t)en[1] * en[2] * n;
        const size_t  p  = ((size_t)i * sz[1] + j) * sz[2] + k;
        double       *c  = q0 + (size_t)(gi - e0[0]) * si + (size_t)(gj - e0[1]) * sj + (size_t)(gk - e0[2]) * sk;
        double       *qn[7];

        qn[0] = gk > 0 ? c - sk : NULL, qn[6] = gk < g->N[2] - 1 ? c + sk : NULL;
        qn[1] = gj > 0 ? c - sj : NULL, qn[5] = gj < g->N[1] - 1 ? c + sj : NULL;
        qn[2] = gi > 0 ? c - si : NULL, qn[4] = gi < g->N[0] - 1 ? c + si : NULL;
        qn[3] = c;
        ch_cell(g, ijk, qn, vals + 7 * p * n * n, rhs + p * n);
      }
  for (size_t r = 0; r < cells * (size_t)n; r++) rhs[r] = -rhs[r];
  pds_free(ctx, PDS_MEM_HOST, &q0);
  return PDS_OK;
}

/* The rows of one grid (o->ni x o->nj x o->nk, options checked) into its zeroed slice: vals[7 I J K n^2] (the stencil7
   blocks) and rhs[I J K n] (b = -R(q0)). */
static int ch_fill(pds_ctx ctx, const pds_channel_opts *o, double *vals, double *rhs) {
  ch_grid       g;
  const pds_int lo[3] = {0, 0, 0}, sz[3] = {o->ni, o->nj, o->nk};
  int           ierr;

  PDS_CALL(ch_grid_init(ctx, o, &g));
  ierr = ch_fill_box(ctx, &g, lo, sz, vals, rhs);
  ch_grid_free(ctx, &g);
  return ierr;
}

/* The grids dims[3 q ..] (options checked, sizes not), grid q with phase o->phase + q PDS_CHANNEL_PHASE_STEP, in one
   stencil7 matrix (one grid: pds_mat_create_stencil7_blocks of one grid is pds_mat_create_stencil7). */
static int ch_generate(pds_ctx ctx, const pds_channel_opts *o, int nb, const pds_int *dims, pds_mat *A, pds_vec *b) {
  pds_channel_opts og = *o;
  pds_size         np = 0, off = 0;
  int              n = o->n, ierr = PDS_OK;
  double          *vals = NULL, *rhs = NULL;

  for (int q = 0; q < nb; q++) { /* sizes; the cell count checked before each product can overflow */
    pds_int I = dims[3 * q], J = dims[3 * q + 1], K = dims[3 * q + 2];
    pds_size ij = (pds_size)I * J, limit = PDS_INT_MAX / n;

    CH_OPT(I >= 1 && J >= 1 && K >= 1, "grid %d of %d: dims %" PDS_INT_FMT " x %" PDS_INT_FMT " x %" PDS_INT_FMT
           ": grid sizes must be positive", q, nb, I, J, K);
    if (nb == 1)
      PDS_CHECK(ij <= limit && ij * K <= limit, ctx, PDS_ERR_SIZE, "channel %" PDS_INT_FMT " x %" PDS_INT_FMT " x %"
                PDS_INT_FMT " x %d has more rows than 32-bit local indices allow", I, J, K, n);
    else
      PDS_CHECK(ij <= limit && ij * K <= limit - np, ctx, PDS_ERR_SIZE, "channel: grids 0..%d of %d (the last %"
                PDS_INT_FMT " x %" PDS_INT_FMT " x %" PDS_INT_FMT ") with %d unknowns per cell have more rows than "
                "32-bit local indices allow (%d)", q, nb, I, J, K, n, (int)PDS_INT_MAX);
    np += ij * K;
  }
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)np * (size_t)n, &rhs));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, 7 * (size_t)np * (size_t)(n * n), &vals));
  for (int q = 0; q < nb; q++) {
    og.ni = dims[3 * q], og.nj = dims[3 * q + 1], og.nk = dims[3 * q + 2];
    og.phase = o->phase + q * PDS_CHANNEL_PHASE_STEP;
    PDS_CALL_GOTO(ierr, done, ch_fill(ctx, &og, vals + 7 * (size_t)off * (size_t)(n * n), rhs + (size_t)off * n));
    off += (pds_size)og.ni * og.nj * og.nk;
  }
  PDS_CALL_GOTO(ierr, done, pds_mat_create_stencil7_blocks(ctx, nb, dims, n, vals, PDS_MEM_HOST, A));
  PDS_CALL_GOTO(ierr, done, pds_vec_create(ctx, np * (pds_size)n, b));
  PDS_CALL_GOTO(ierr, done, pds_vec_set_values(*b, rhs, PDS_MEM_HOST));
done:
  if (ierr) pds_mat_destroy(A), pds_vec_destroy(b);
  pds_free(ctx, PDS_MEM_HOST, &rhs), pds_free(ctx, PDS_MEM_HOST, &vals);
  return ierr;
}

int pds_channel_generate(pds_ctx ctx, const pds_channel_opts *o, pds_mat *A, pds_vec *b) {
  PDS_CHECK(ctx, NULL, PDS_ERR_ARG, "context is NULL");
  CH_OPT(o && A && b, "options, A or b is NULL");
  *A = NULL, *b = NULL;
  PDS_CALL(ch_check_opts(ctx, o));
  CH_OPT(o->ni >= 1 && o->nj >= 1 && o->nk >= 1, "option ni, nj, nk = %" PDS_INT_FMT ", %" PDS_INT_FMT ", %" PDS_INT_FMT
         ": grid sizes must be positive", o->ni, o->nj, o->nk);
  return ch_generate(ctx, o, 1, (const pds_int[3]){o->ni, o->nj, o->nk}, A, b);
}

int pds_channel_generate_blocks(pds_ctx ctx, const pds_channel_opts *o, int nb, const pds_int *dims, pds_mat *A,
                                pds_vec *b) {
  PDS_CHECK(ctx, NULL, PDS_ERR_ARG, "context is NULL");
  CH_OPT(o && dims && A && b, "options, dims, A or b is NULL");
  *A = NULL, *b = NULL;
  CH_OPT(nb >= 1, "channel blocks: nb = %d grids (at least 1)", nb);
  PDS_CALL(ch_check_opts(ctx, o));
  return ch_generate(ctx, o, nb, dims, A, b);
}

/* ---- one channel cut into touching blocks (pds_channel_generate_decomposed) ------------------------------------- */

typedef struct {
  int       split[3], nblk;
  pds_int  *start[3]; /* [split[d] + 1]: block t along d covers cells start[d][t] .. start[d][t + 1] - 1 */
  pds_int  *blk[3];   /* [N[d]]: the block along d of each cell */
  pds_size *first;    /* [nblk + 1]: the global point of each block's first cell, block after block */
} ch_decomp;

static void ch_decomp_free(pds_ctx ctx, ch_decomp *dc) {
  for (int d = 0; d < 3; d++) pds_free(ctx, PDS_MEM_HOST, &dc->start[d]), pds_free(ctx, PDS_MEM_HOST, &dc->blk[d]);
  pds_free(ctx, PDS_MEM_HOST, &dc->first);
}

/* the block q's box (first cell and sizes) */
static void ch_decomp_box(const ch_decomp *dc, int q, pds_int lo[3], pds_int sz[3]) {
  const int t[3] = {q / (dc->split[1] * dc->split[2]), q / dc->split[2] % dc->split[1], q % dc->split[2]};

  for (int d = 0; d < 3; d++) lo[d] = dc->start[d][t[d]], sz[d] = dc->start[d][t[d] + 1] - lo[d];
}

/* the global point (block numbering) of cell (i, j, k) */
static pds_size ch_decomp_point(const ch_decomp *dc, const pds_int c[3]) {
  const int q = (dc->blk[0][c[0]] * dc->split[1] + dc->blk[1][c[1]]) * dc->split[2] + dc->blk[2][c[2]];
  pds_int   lo[3], sz[3];

  ch_decomp_box(dc, q, lo, sz);
  return dc->first[q] + ((pds_size)(c[0] - lo[0]) * sz[1] + (pds_size)(c[1] - lo[1])) * sz[2] + (c[2] - lo[2]);
}

static int ch_decomp_init(pds_ctx ctx, const pds_channel_opts *o, const int *split, ch_decomp *dc) {
  const pds_int N[3] = {o->ni, o->nj, o->nk};
  int           ierr = PDS_OK;

  memset(dc, 0, sizeof *dc);
  CH_OPT(split, "split is NULL");
  for (int d = 0; d < 3; d++)
    CH_OPT(split[d] >= 1 && split[d] <= N[d], "split %d x %d x %d: each direction needs 1 .. its cells (%" PDS_INT_FMT
           " x %" PDS_INT_FMT " x %" PDS_INT_FMT ") blocks", split[0], split[1], split[2], N[0], N[1], N[2]);
  CH_OPT((long long)split[0] * split[1] * split[2] <= (1 << 24), "split %d x %d x %d: more than %d blocks", split[0],
         split[1], split[2], 1 << 24);
  dc->nblk = split[0] * split[1] * split[2];
  for (int d = 0; d < 3; d++) dc->split[d] = split[d];
  for (int d = 0; d < 3 && !ierr; d++) {
    ierr = PDS_NEW(ctx, (size_t)split[d] + 1, &dc->start[d]);
    if (!ierr) ierr = PDS_NEW(ctx, (size_t)N[d], &dc->blk[d]);
    for (int t = 0; t <= split[d] && !ierr; t++) dc->start[d][t] = (pds_int)((long long)N[d] * t / split[d]);
    for (int t = 0; t < split[d] && !ierr; t++)
      for (pds_int c = dc->start[d][t]; c < dc->start[d][t + 1]; c++) dc->blk[d][c] = t;
  }
  if (!ierr) ierr = PDS_NEW(ctx, (size_t)dc->nblk + 1, &dc->first);
  for (int q = 0; q < dc->nblk && !ierr; q++) {
    pds_int lo[3], sz[3];

    ch_decomp_box(dc, q, lo, sz);
    dc->first[q + 1] = dc->first[q] + (pds_size)sz[0] * sz[1] * sz[2];
  }
  if (ierr) ch_decomp_free(ctx, dc);
  return ierr;
}

/* what blocks q0 .. q1-1 hold: their grids' sizes and arms, the right-hand side, and the couplings of their points
   (rows: the points of these blocks from 0; columns: global points) */
typedef struct {
  pds_int  *dims;
  double   *vals, *rhs, *cval;
  pds_int  *crow, *ccol;
  pds_size  np, m;
} ch_part;

static void ch_part_free(pds_ctx ctx, ch_part *pt) {
  pds_free(ctx, PDS_MEM_HOST, &pt->dims), pds_free(ctx, PDS_MEM_HOST, &pt->vals);
  pds_free(ctx, PDS_MEM_HOST, &pt->rhs), pds_free(ctx, PDS_MEM_HOST, &pt->cval);
  pds_free(ctx, PDS_MEM_HOST, &pt->crow), pds_free(ctx, PDS_MEM_HOST, &pt->ccol);
}

static int ch_part_make(pds_ctx ctx, const pds_channel_opts *o, const ch_decomp *dc, int q0, int q1, ch_part *pt) {
  static const int arm_dir[7] = {2, 1, 0, -1, 0, 1, 2}, arm_step[7] = {-1, -1, -1, 0, 1, 1, 1};
  const int        n = o->n;
  const size_t     nn = (size_t)n * n;
  const pds_int    N[3] = {o->ni, o->nj, o->nk};
  pds_size         cap = 0;
  ch_grid          g;
  int              ierr;

  memset(pt, 0, sizeof *pt);
  pt->np = dc->first[q1] - dc->first[q0];
  for (int q = q0; q < q1; q++) { /* at most one coupling a face on the block's surface */
    pds_int lo[3], sz[3];

    ch_decomp_box(dc, q, lo, sz);
    cap += 2 * ((pds_size)sz[1] * sz[2] + (pds_size)sz[0] * sz[2] + (pds_size)sz[0] * sz[1]);
  }
  PDS_CALL(ch_grid_init(ctx, o, &g));
  ierr = PDS_NEW(ctx, 3 * (size_t)(q1 > q0 ? q1 - q0 : 1), &pt->dims);
  if (!ierr) ierr = PDS_NEW(ctx, 7 * (size_t)pt->np * nn + 1, &pt->vals);
  if (!ierr) ierr = PDS_NEW(ctx, (size_t)pt->np * n + 1, &pt->rhs);
  if (!ierr) ierr = PDS_NEW(ctx, cap * nn + 1, &pt->cval);
  if (!ierr) ierr = PDS_NEW(ctx, cap + 1, &pt->crow);
  if (!ierr) ierr = PDS_NEW(ctx, cap + 1, &pt->ccol);
  for (int q = q0; q < q1 && !ierr; q++) {
    const pds_size off = dc->first[q] - dc->first[q0];
    double        *v   = pt->vals + 7 * (size_t)off * nn;
    pds_int        lo[3], sz[3];

    ch_decomp_box(dc, q, lo, sz);
    for (int d = 0; d < 3; d++) pt->dims[3 * (q - q0) + d] = sz[d];
    ierr = ch_fill_box(ctx, &g, lo, sz, v, pt->rhs + (size_t)off * n);
    for (pds_int i = 0; i < sz[0] && !ierr; i++) /* the arms across the block's faces become couplings */
      for (pds_int j = 0; j < sz[1]; j++)
        for (pds_int k = 0; k < sz[2]; k++) {
          const pds_int c[3] = {lo[0] + i, lo[1] + j, lo[2] + k}, l[3] = {i, j, k};
          const size_t  p    = ((size_t)i * sz[1] + j) * sz[2] + k;

          for (int a = 0; a < 7; a++) {
            const int d = arm_dir[a];
            pds_int   nc[3] = {c[0], c[1], c[2]};

            if (d < 0 || (l[d] + arm_step[a] >= 0 && l[d] + arm_step[a] < sz[d])) continue; /* centre, in the block */
            nc[d] += arm_step[a];
            if (nc[d] < 0 || nc[d] >= N[d]) continue; /* out of the channel: the arm is zero */
            pt->crow[pt->m] = (pds_int)(off + p), pt->ccol[pt->m] = (pds_int)ch_decomp_point(dc, nc);
            memcpy(pt->cval + pt->m * nn, v + (7 * p + (size_t)a) * nn, nn * sizeof *v);
            memset(v + (7 * p + (size_t)a) * nn, 0, nn * sizeof *v);
            pt->m++;
          }
        }
  }
  ch_grid_free(ctx, &g);
  if (ierr) ch_part_free(ctx, pt);
  return ierr;
}

/* options, sizes and split checked; the decomposition made */
static int ch_decomposed_begin(pds_ctx ctx, const pds_channel_opts *o, const int *split, ch_decomp *dc) {
  PDS_CALL(ch_check_opts(ctx, o));
  CH_OPT(o->ni >= 1 && o->nj >= 1 && o->nk >= 1, "option ni, nj, nk = %" PDS_INT_FMT ", %" PDS_INT_FMT ", %" PDS_INT_FMT
         ": grid sizes must be positive", o->ni, o->nj, o->nk);
  PDS_CHECK((pds_size)o->ni * o->nj * o->nk * o->n <= PDS_INT_MAX, ctx, PDS_ERR_SIZE, "channel %" PDS_INT_FMT " x %"
            PDS_INT_FMT " x %" PDS_INT_FMT " x %d has more rows than 32-bit indices allow", o->ni, o->nj, o->nk, o->n);
  return ch_decomp_init(ctx, o, split, dc);
}

int pds_channel_generate_decomposed(pds_ctx ctx, const pds_channel_opts *o, const int *split, pds_mat *A,
                                    pds_vec *b) {
  ch_decomp dc;
  ch_part   pt;
  int       ierr;

  PDS_CHECK(ctx, NULL, PDS_ERR_ARG, "context is NULL");
  CH_OPT(o && A && b, "options, A or b is NULL");
  *A = NULL, *b = NULL;
  PDS_CALL(ch_decomposed_begin(ctx, o, split, &dc));
  ierr = ch_part_make(ctx, o, &dc, 0, dc.nblk, &pt);
  if (!ierr) {
    ierr = pds_mat_create_stencil7_coupled(ctx, dc.nblk, pt.dims, o->n, pt.vals, PDS_MEM_HOST, pt.m, pt.crow, pt.ccol,
                                           pt.cval, A);
    if (!ierr) ierr = pds_vec_create(ctx, (pds_size)pt.np * o->n, b);
    if (!ierr) ierr = pds_vec_set_values(*b, pt.rhs, PDS_MEM_HOST);
    ch_part_free(ctx, &pt);
  }
  ch_decomp_free(ctx, &dc);
  if (ierr) pds_mat_destroy(A), pds_vec_destroy(b);
  return ierr;
}

int pds_channel_generate_decomposed_dist(pds_ctx ctx, const pds_channel_opts *o, const int *split, pds_mat *A,
                                         pds_vec *b) {
  ch_decomp dc;
  ch_part   pt;
  int       ierr, q0 = 0, q1 = 0;

  PDS_CHECK(ctx, NULL, PDS_ERR_ARG, "context is NULL");
  memset(&pt, 0, sizeof pt);
  ierr = o && A && b ? PDS_OK : PDS_ERROR(ctx, PDS_ERR_ARG, "options, A or b is NULL");
  if (!ierr) *A = NULL, *b = NULL, ierr = ch_decomposed_begin(ctx, o, split, &dc);
  if (!ierr) { /* this rank's blocks */
    const int P = pds_ctx_get_size(ctx), r = pds_ctx_get_rank(ctx);

    q0   = (int)((long long)dc.nblk * r / P), q1 = (int)((long long)dc.nblk * (r + 1) / P);
    ierr = ch_part_make(ctx, o, &dc, q0, q1, &pt);
    ch_decomp_free(ctx, &dc);
  }
  pds_comm_begin(ctx);
  ierr = pds_comm_agree(ctx, ierr); /* collective from here: every rank knows whether one failed */
  if (!ierr) ierr = pds_mat_create_stencil7_dist(ctx, q1 - q0, pt.dims, o->n, pt.vals, pt.m, pt.crow, pt.ccol,
                                                 pt.cval, A);
  if (!ierr) ierr = pds_mat_create_vecs(*A, NULL, b);
  if (!ierr) ierr = pds_vec_set_values(*b, pt.rhs, PDS_MEM_HOST);
  ch_part_free(ctx, &pt);
  if (ierr && A && b) pds_mat_destroy(A), pds_vec_destroy(b);
  return ierr;
}

/* splitmix64: the random blocks' generator (the same values on every machine). */
static double ch_rand(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull, z = (z ^ (z >> 27)) * 0x94d049bb133111ebull, z ^= z >> 31;
  return (double)(z >> 11) * 0x1.0p-52 - 1.0; /* uniform in [-1, 1) */
}

int pds_stencil7_random(pds_ctx ctx, pds_int I, pds_int J, pds_int K, int n, double dominance, uint64_t seed,
                        pds_mat *A) {
  pds_size  np;
  double   *vals = NULL;
  uint64_t  s    = seed;
  int       ierr;

  PDS_CHECK(ctx, NULL, PDS_ERR_ARG, "context is NULL");
  PDS_CHECK(A, ctx, PDS_ERR_ARG, "A is NULL");
  PDS_CHECK(I >= 1 && J >= 1 && K >= 1, ctx, PDS_ERR_ARG, "grid sizes must be positive");
  PDS_CHECK(n >= 1 && n <= PDS_STENCIL7_MAXN, ctx, PDS_ERR_ARG, "n = %d must be in 1..%d", n, PDS_STENCIL7_MAXN);
  PDS_CHECK(dominance > 0 && isfinite(dominance), ctx, PDS_ERR_ARG, "dominance = %g must be positive", dominance);
  np = (pds_size)I * (pds_size)J * (pds_size)K;
  PDS_CHECK(np * (pds_size)n <= PDS_INT_MAX, ctx, PDS_ERR_SIZE, "too many rows for 32-bit local indices");
  PDS_CALL(PDS_NEW(ctx, 7 * np * (size_t)(n * n), &vals));
  for (pds_int i = 0; i < I; i++)
    for (pds_int j = 0; j < J; j++)
      for (pds_int k = 0; k < K; k++) {
        size_t p = ((size_t)i * J + j) * K + k;
        double *v = vals + 7 * p * n * n;
        int    in[7] = {k > 0, j > 0, i > 0, 1, i < I - 1, j < J - 1, k < K - 1};

        for (int a = 0; a < 7; a++)
          for (int e = 0; e < n * n; e++) v[a * n * n + e] = in[a] ? ch_rand(&s) : 0;
        for (int r = 0; r < n; r++) { /* diagonal = dominance x (sum of |a_rc| over the rest of row r), sign kept */
          double off = 0, *dg = v + 3 * n * n + r * n + r;

          for (int a = 0; a < 7; a++)
            for (int c = 0; c < n; c++)
              if (a != 3 || c != r) off += fabs(v[a * n * n + r * n + c]);
          *dg = (*dg < 0 ? -1 : 1) * dominance * off;
        }
      }
  ierr = pds_mat_create_stencil7(ctx, I, J, K, n, vals, PDS_MEM_HOST, A);
  pds_free(ctx, PDS_MEM_HOST, &vals);
  return ierr;
}

/* Generator "channel" of pds_problem_generate (src/gen/gen_list.h): the default options on dims = I J K. */
int pds_problem_create_channel(pds_ctx ctx, const pds_int *dims, pds_problem *p) {
  pds_channel_opts o;

  pds_channel_opts_default(&o);
  o.ni = dims[0], o.nj = dims[1], o.nk = dims[2];
  PDS_CALL(pds_channel_generate(ctx, &o, &p->A, &p->b));
  snprintf(p->description, sizeof p->description, "channel %" PDS_INT_FMT "x%" PDS_INT_FMT "x%" PDS_INT_FMT
           " n=%d: artificial-compressibility Navier-Stokes step, CFL %g, Re %g, stretch %g (stencil7)", o.ni, o.nj,
           o.nk, o.n, o.cfl, o.re, o.stretch);
  return PDS_OK;
}
