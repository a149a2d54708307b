/* src/gen/patches.c: the cell-centred Poisson problem on patches (paper 002's system): -lap u = f on (0,1)^3 with
 * n_x x n_y x n_z cells (h_d = 1/n_d) tiled by patches (pds_patches_tile_box), stencil c_d = -1/h_d^2, c0 = -sum c_d,
 * Dirichlet u = g on the boundary faces through the ghost 2 g - u_p, so a boundary cell's row keeps -c_d u_p (the
 * operator's homogeneous extrapolation) and b_p gets -2 c_d g at the face centre. Manufactured u = sin(pi x)
 * sin(pi y) sin(pi z) + x y z (harmonic second term: nonzero boundary values), f = 3 pi^2 sin sin sin, both at the
 * cell centres; the discrete solution is within O(h^2) of u_exact. */
#include <math.h>

#include "../backend/patches_bodies.h" /* pb_boundary_next: the boundary faces of the ghost map */
#include "gen_impl.h"
#include "../sys/comm.h"

#define PDS_PI 3.14159265358979323846

static double u_exact(double x, double y, double z) {
  return sin(PDS_PI * x) * sin(PDS_PI * y) * sin(PDS_PI * z) + x * y * z;
}
static double f_rhs(double x, double y, double z) {
  return 3.0 * PDS_PI * PDS_PI * sin(PDS_PI * x) * sin(PDS_PI * y) * sin(PDS_PI * z);
}

/* b and u_exact (host) of the cells r0 .. r1-1 of the set P (b[p - r0], u[p - r0]): f and u at the centres, then
   -2 c_f g(face centre) for each boundary face f */
static void patches_fill(const struct pds_patches *P, const double h[3], pds_size r0, pds_size r1, pds_real *b,
                         pds_real *u) {
  struct pb_boundary e = {0};

  for (int q = 0; q < P->np; q++) {
    const struct pds_patch_geom *g = &P->hgeom[q];
    pds_size                     p = g->first;

    if (g->first >= r1 || g->first + (pds_size)g->n[0] * g->n[1] * g->n[2] <= r0) continue;
    for (pds_int k = 0; k < g->n[2]; k++)
      for (pds_int j = 0; j < g->n[1]; j++)
        for (pds_int i = 0; i < g->n[0]; i++, p++) {
          const double x = (g->lo[0] + i + 0.5) * h[0], y = (g->lo[1] + j + 0.5) * h[1], z = (g->lo[2] + k + 0.5) * h[2];

          if (p < r0 || p >= r1) continue;
          b[p - r0] = f_rhs(x, y, z);
          u[p - r0] = u_exact(x, y, z);
        }
  }
  while (pb_boundary_next(P, &e)) {
    const int d = e.f >> 1;
    double    xc[3];

    if (e.p < r0 || e.p >= r1) continue;
    for (int a = 0; a < 3; a++) xc[a] = (P->hgeom[e.q].lo[a] + e.l[a] + (a != d ? 0.5 : e.f & 1)) * h[a];
    b[e.p - r0] += -2 * P->c[1 + e.f] * u_exact(xc[0], xc[1], xc[2]); /* g at the face's centre */
  }
}

/* the tiling of the n[0] x n[1] x n[2] cells by patches of sizes[], its stencil and the cell widths (checked) */
static int patches_setup(pds_ctx ctx, const pds_int n[3], int nsizes, const pds_int *sizes, int *np, pds_patch **pt,
                         pds_real c[7], double h[3]) {
  int ierr;

  PDS_CHECK(n && sizes, ctx, PDS_ERR_ARG, "patches problem: n or sizes is NULL");
  PDS_CHECK(n[0] >= 1 && n[1] >= 1 && n[2] >= 1, ctx, PDS_ERR_ARG, "patches problem: %" PDS_INT_FMT " x %" PDS_INT_FMT
            " x %" PDS_INT_FMT " cells (at least 1 each)", n[0], n[1], n[2]);
  PDS_CHECK(nsizes >= 1, ctx, PDS_ERR_ARG, "patches problem: %d patch sizes (at least 1)", nsizes);
  for (int e = 0; e < nsizes; e++)
    PDS_CHECK(sizes[e] >= 1, ctx, PDS_ERR_ARG, "patches problem: patch size %" PDS_INT_FMT " (at least 1)", sizes[e]);
  ierr = pds_patches_tile_box(n, nsizes, sizes, np, NULL);
  PDS_CHECK(!ierr, ctx, ierr, "patches problem: tiling %" PDS_INT_FMT " x %" PDS_INT_FMT " x %" PDS_INT_FMT
            " cells takes more patches than an int counts", n[0], n[1], n[2]);
  PDS_CALL(PDS_NEW(ctx, *np, pt));
  ierr = pds_patches_tile_box(n, nsizes, sizes, np, *pt);
  if (ierr) {
    pds_free(ctx, PDS_MEM_HOST, pt);
    return PDS_ERROR(ctx, ierr, "patches problem: tiling failed");
  }
  for (int d = 0; d < 3; d++) h[d] = 1.0 / n[d], c[1 + 2 * d] = c[2 + 2 * d] = -1.0 / (h[d] * h[d]);
  c[0] = -(c[1] + c[2] + c[3] + c[4] + c[5] + c[6]);
  return PDS_OK;
}

static void patches_describe(const pds_int n[3], int np, const char *where, pds_problem *p) {
  snprintf(p->description, sizeof p->description,
           "patches %" PDS_INT_FMT "x%" PDS_INT_FMT "x%" PDS_INT_FMT " cells on %d patches%s: cell-centred -lap u = f "
           "on (0,1)^3, u = sin(pi x)sin(pi y)sin(pi z) + xyz", n[0], n[1], n[2], np, where);
}

int pds_problem_patches(pds_ctx ctx, const pds_int n[3], int nsizes, const pds_int *sizes, pds_problem *p) {
  const struct pds_patches *P;
  pds_patch                *pt = NULL;
  pds_real                 *b = NULL, *u = NULL, c[7];
  double                    h[3];
  int                       np, ierr;

  PDS_CHECK(ctx, NULL, PDS_ERR_ARG, "context is NULL");
  PDS_CHECK(p, ctx, PDS_ERR_ARG, "problem is NULL");
  memset(p, 0, sizeof *p);
  PDS_CALL(patches_setup(ctx, n, nsizes, sizes, &np, &pt, c, h));
  PDS_CALL_GOTO(ierr, done, pds_mat_create_patches(ctx, np, pt, c, &p->A));
  P = pds_mat_patches_view(p->A);
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, P->ncells, &b));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, P->ncells, &u));
  patches_fill(P, h, 0, P->ncells, b, u);
  PDS_CALL_GOTO(ierr, done, pds_vec_create(ctx, P->ncells, &p->b));
  PDS_CALL_GOTO(ierr, done, pds_vec_set_values(p->b, b, PDS_MEM_HOST));
  PDS_CALL_GOTO(ierr, done, pds_vec_create(ctx, P->ncells, &p->u_exact));
  PDS_CALL_GOTO(ierr, done, pds_vec_set_values(p->u_exact, u, PDS_MEM_HOST));
  patches_describe(n, np, "", p);
done:
  pds_free(ctx, PDS_MEM_HOST, &pt);
  pds_free(ctx, PDS_MEM_HOST, &b);
  pds_free(ctx, PDS_MEM_HOST, &u);
  if (ierr) pds_problem_destroy(p);
  return ierr;
}

int pds_problem_patches_dist(pds_ctx ctx, const pds_int n[3], int nsizes, const pds_int *sizes, pds_problem *p) {
  pds_ctx    host = NULL;
  pds_mat    G    = NULL;
  pds_patch *pt   = NULL;
  pds_real  *b = NULL, *u = NULL, c[7];
  pds_int    r0 = 0, r1 = 0;
  double     h[3];
  int        np = 0, ierr;

  PDS_CHECK(ctx, NULL, PDS_ERR_ARG, "context is NULL");
  PDS_CHECK(p, ctx, PDS_ERR_ARG, "problem is NULL");
  memset(p, 0, sizeof *p);
  pds_comm_begin(ctx);
  ierr = patches_setup(ctx, n, nsizes, sizes, &np, &pt, c, h); /* the same on every rank */
  if (!ierr) ierr = pds_mat_patches_whole(ctx, np, pt, c, &host, &G);
  ierr = pds_comm_agree(ctx, ierr);
  if (!ierr) ierr = pds_mat_patches_dist_from(ctx, G, &p->A); /* collective, agrees */
  if (!ierr) ierr = pds_mat_get_ownership_range(p->A, &r0, &r1); /* b and u_exact on this rank's cells */
  if (!ierr) ierr = PDS_NEW(ctx, (size_t)(r1 - r0) + 1, &b);
  if (!ierr) ierr = PDS_NEW(ctx, (size_t)(r1 - r0) + 1, &u);
  if (!ierr) patches_fill(pds_mat_patches_view(G), h, (pds_size)r0, (pds_size)r1, b, u);
  ierr = pds_comm_agree(ctx, ierr);
  if (!ierr) ierr = pds_mat_create_vecs(p->A, &p->u_exact, &p->b);
  if (!ierr) ierr = pds_vec_set_values(p->b, b, PDS_MEM_HOST);
  if (!ierr) ierr = pds_vec_set_values(p->u_exact, u, PDS_MEM_HOST);
  if (!ierr) patches_describe(n, np, ", whole patches per rank", p);
  pds_mat_destroy(&G);
  pds_ctx_destroy(&host);
  pds_free(ctx, PDS_MEM_HOST, &pt);
  pds_free(ctx, PDS_MEM_HOST, &b);
  pds_free(ctx, PDS_MEM_HOST, &u);
  if (ierr) pds_problem_destroy(p);
  return ierr;
}

/* the registry's "patches": dims n[3], patches of up to 32^3 (the last ones along an axis cut at the box) */
int pds_problem_create_patches(pds_ctx ctx, const pds_int *dims, pds_problem *p) {
  const pds_int size = 32;

  return pds_problem_patches(ctx, dims, 1, &size, p);
}
