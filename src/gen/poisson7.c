/* src/gen/poisson7.c: -lap u = f on the unit cube, Dirichlet u = g, 7-point finite differences on the
 * nx x ny x nz interior points of a uniform grid (h_d = 1/(n_d + 1)), lexicographic order (x fastest).
 * Manufactured solution u = sin(pi x) sin(pi y) sin(pi z) + x y z (the second term is harmonic and makes the
 * boundary values non-zero), so f = 3 pi^2 sin sin sin. The discrete solution differs from u by O(h^2). */
#include <math.h>

#include "gen_impl.h"
#include "../sys/comm.h"

#define PDS_PI 3.14159265358979323846

static double u_exact(double x, double y, double z) { return sin(PDS_PI * x) * sin(PDS_PI * y) * sin(PDS_PI * z) + x * y * z; }
static double f_rhs(double x, double y, double z) { return 3.0 * PDS_PI * PDS_PI * sin(PDS_PI * x) * sin(PDS_PI * y) * sin(PDS_PI * z); }

/* Rows r0 .. r1-1 (global numbers, x fastest) of the nx x ny x nz problem: rp[0..r1-r0] (rp[0] = 0), columns (global,
   ascending in a row: -z, -y, -x, diagonal, +x, +y, +z; boundary neighbours go to b), values, b and u of those rows. */
static void poisson7_rows(pds_int nx, pds_int ny, pds_int nz, pds_int r0, pds_int r1, pds_size *rp, pds_int *ci,
                          pds_real *v, pds_real *b, pds_real *u) {
  double   hx = 1.0 / (nx + 1), hy = 1.0 / (ny + 1), hz = 1.0 / (nz + 1);
  double   cx = 1.0 / (hx * hx), cy = 1.0 / (hy * hy), cz = 1.0 / (hz * hz);
  pds_size nnz = 0;

  rp[0] = 0;
  for (pds_int row = r0; row < r1; row++) {
    const pds_int i = row % nx, j = (row / nx) % ny, k = row / (nx * ny);
    double        x = (i + 1) * hx, y = (j + 1) * hy, z = (k + 1) * hz, bb = f_rhs(x, y, z);

    if (k > 0) ci[nnz] = row - nx * ny, v[nnz++] = -cz;
    else bb += cz * u_exact(x, y, 0.0);
    if (j > 0) ci[nnz] = row - nx, v[nnz++] = -cy;
    else bb += cy * u_exact(x, 0.0, z);
    if (i > 0) ci[nnz] = row - 1, v[nnz++] = -cx;
    else bb += cx * u_exact(0.0, y, z);
    ci[nnz] = row, v[nnz++] = 2.0 * (cx + cy + cz);
    if (i < nx - 1) ci[nnz] = row + 1, v[nnz++] = -cx;
    else bb += cx * u_exact(1.0, y, z);
    if (j < ny - 1) ci[nnz] = row + nx, v[nnz++] = -cy;
    else bb += cy * u_exact(x, 1.0, z);
    if (k < nz - 1) ci[nnz] = row + nx * ny, v[nnz++] = -cz;
    else bb += cz * u_exact(x, y, 1.0);
    rp[row - r0 + 1] = nnz;
    b[row - r0]      = bb;
    u[row - r0]      = u_exact(x, y, z);
  }
}

static void poisson7_describe(const pds_int *dims, pds_problem *p) {
  snprintf(p->description, sizeof p->description,
           "poisson7 %" PDS_INT_FMT "x%" PDS_INT_FMT "x%" PDS_INT_FMT ": -lap u = f on (0,1)^3, u = sin(pi x)sin(pi y)"
           "sin(pi z) + xyz", dims[0], dims[1], dims[2]);
}

int pds_problem_create_poisson7(pds_ctx ctx, const pds_int *dims, pds_problem *p) {
  pds_int   nx = dims[0], ny = dims[1], nz = dims[2];
  pds_size  n  = (pds_size)nx * ny * nz;
  pds_size *rp = NULL;
  pds_int  *ci = NULL;
  pds_real *v = NULL, *b = NULL, *u = NULL;
  int       ierr;

  PDS_CHECK(n <= PDS_INT_MAX, ctx, PDS_ERR_SIZE, "poisson7 %" PDS_INT_FMT " x %" PDS_INT_FMT " x %" PDS_INT_FMT
            " has more rows than 32-bit local indices allow", nx, ny, nz);
  PDS_CALL_GOTO(ierr, fail, PDS_NEW(ctx, n + 1, &rp));
  PDS_CALL_GOTO(ierr, fail, PDS_NEW(ctx, 7 * n, &ci));
  PDS_CALL_GOTO(ierr, fail, PDS_NEW(ctx, 7 * n, &v));
  PDS_CALL_GOTO(ierr, fail, PDS_NEW(ctx, n, &b));
  PDS_CALL_GOTO(ierr, fail, PDS_NEW(ctx, n, &u));
  poisson7_rows(nx, ny, nz, 0, (pds_int)n, rp, ci, v, b, u);
  ierr = pds_mat_csr_from_host_owned(ctx, nx * ny * nz, nx * ny * nz, rp, ci, v, &p->A);
  rp = NULL, ci = NULL, v = NULL; /* owned (or freed) by the matrix now */
  if (ierr) goto fail;
  PDS_CALL_GOTO(ierr, fail, pds_vec_create(ctx, n, &p->b));
  PDS_CALL_GOTO(ierr, fail, pds_vec_set_values(p->b, b, PDS_MEM_HOST));
  PDS_CALL_GOTO(ierr, fail, pds_vec_create(ctx, n, &p->u_exact));
  PDS_CALL_GOTO(ierr, fail, pds_vec_set_values(p->u_exact, u, PDS_MEM_HOST));
  poisson7_describe(dims, p);
fail:
  pds_free(ctx, PDS_MEM_HOST, &rp);
  pds_free(ctx, PDS_MEM_HOST, &ci);
  pds_free(ctx, PDS_MEM_HOST, &v);
  pds_free(ctx, PDS_MEM_HOST, &b);
  pds_free(ctx, PDS_MEM_HOST, &u);
  return ierr;
}

/* The same problem distributed over the context's ranks by contiguous rows (rank r: rows n r / P .. n (r+1) / P - 1,
   rounded down), each rank making only its rows (collective). */
int pds_problem_create_poisson7_dist(pds_ctx ctx, const pds_int *dims, pds_problem *p) {
  const pds_size n = (pds_size)dims[0] * dims[1] * dims[2];
  const int      P = pds_ctx_get_size(ctx), r = pds_ctx_get_rank(ctx);
  const pds_int  r0 = (pds_int)(n * r / P), r1 = (pds_int)(n * (r + 1) / P), m = r1 - r0;
  pds_size      *rp = NULL;
  pds_int       *ci = NULL;
  pds_real      *v = NULL, *b = NULL, *u = NULL;
  int            ierr;

  PDS_CHECK(p, ctx, PDS_ERR_ARG, "problem is NULL");
  memset(p, 0, sizeof *p);
  PDS_CHECK(dims[0] > 0 && dims[1] > 0 && dims[2] > 0, ctx, PDS_ERR_SIZE, "poisson7 needs positive sizes");
  PDS_CHECK(n <= PDS_INT_MAX, ctx, PDS_ERR_SIZE, "poisson7 %" PDS_INT_FMT " x %" PDS_INT_FMT " x %" PDS_INT_FMT
            " has more rows than 32-bit global indices allow", dims[0], dims[1], dims[2]);
  ierr = PDS_NEW(ctx, (size_t)m + 1, &rp);
  if (!ierr) ierr = PDS_NEW(ctx, 7 * (size_t)m + 1, &ci);
  if (!ierr) ierr = PDS_NEW(ctx, 7 * (size_t)m + 1, &v);
  if (!ierr) ierr = PDS_NEW(ctx, (size_t)m + 1, &b);
  if (!ierr) ierr = PDS_NEW(ctx, (size_t)m + 1, &u);
  if (!ierr) poisson7_rows(dims[0], dims[1], dims[2], r0, r1, rp, ci, v, b, u);
  pds_comm_begin(ctx);
  ierr = pds_comm_agree(ctx, ierr); /* collective from here: every rank knows whether one failed */
  if (!ierr) ierr = pds_mat_create_csr_dist(ctx, m, rp, ci, v, &p->A);
  if (!ierr) ierr = pds_mat_create_vecs(p->A, &p->u_exact, &p->b);
  if (!ierr) ierr = pds_vec_set_values(p->b, b, PDS_MEM_HOST);
  if (!ierr) ierr = pds_vec_set_values(p->u_exact, u, PDS_MEM_HOST);
  if (!ierr) poisson7_describe(dims, p);
  pds_free(ctx, PDS_MEM_HOST, &rp);
  pds_free(ctx, PDS_MEM_HOST, &ci);
  pds_free(ctx, PDS_MEM_HOST, &v);
  pds_free(ctx, PDS_MEM_HOST, &b);
  pds_free(ctx, PDS_MEM_HOST, &u);
  if (ierr) pds_problem_destroy(p);
  return ierr;
}
