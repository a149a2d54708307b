/* src/gen/sem.c: spectral-element Poisson on the unit cube (paper 003's system, issue 13): -lap u = f with the
 * manufactured u = sin(pi x) sin(pi y) sin(pi z) + x y z (the harmonic second term gives nonzero Dirichlet values on
 * three faces), f = 3 pi^2 sin sin sin, on the space of pds_sem_create_box (or, pds_problem_sem_mesh, of
 * pds_sem_create_mesh: the same u and f on the mesh's domain, Dirichlet on its boundary). The system is the sem
 * matrix's:
 *   b_g = u(x_g) at a Dirichlet point g (its row is the identity),
 *   b_g = (Q^T B f)_g - (Q^T A_L Q u_D)_g elsewhere, u_D = u on the Dirichlet points and 0 inside (the lifting: the
 *         couplings of the inside points to the known boundary values, moved to the right-hand side),
 * so the solution is the spectral-element approximation, within O(h^(p+1)) of u (exponentially close as the order
 * rises). u_exact: u at the global points. */
#include <math.h>

#include "../backend/sem_bodies.h" /* sb_element_apply: A^e times the lifting */
#include "../disc/sem_impl.h"
#include "../sys/comm.h"
#include "gen_impl.h"

static double u_exact(const double *X) {
  return sin(PDS_PI * X[0]) * sin(PDS_PI * X[1]) * sin(PDS_PI * X[2]) + X[0] * X[1] * X[2];
}
static double f_rhs(const double *X) {
  return 3.0 * PDS_PI * PDS_PI * sin(PDS_PI * X[0]) * sin(PDS_PI * X[1]) * sin(PDS_PI * X[2]);
}

/* b and u (host, nglob each) of the space S */
static int sem_fill(pds_ctx ctx, pds_sem S, pds_real *b, pds_real *u) {
  const int           n3 = S->n * S->n * S->n;
  pds_real           *ud = NULL, *y = NULL, *t = NULL, *xyz = NULL;
  unsigned char      *nomask = NULL;
  struct pds_sem_dev  V;
  int                 ierr = PDS_OK;

  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)S->nglob, &ud));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)n3, &y));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, 4 * (size_t)n3, &t));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, 3 * (size_t)S->nglob, &xyz));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)S->nglob, &nomask)); /* zeros: the element product without mask */
  PDS_CALL_GOTO(ierr, done, pds_sem_get_coordinates(S, xyz));
  for (pds_int g = 0; g < S->nglob; g++) {
    u[g]  = u_exact(xyz + 3 * (size_t)g);
    ud[g] = S->mask[g] ? u[g] : 0.0;
    b[g]  = S->mask[g] ? u[g] : 0.0;
  }
  V = (struct pds_sem_dev){S->n, S->E, S->nglob, S->nloc, S->D, S->w, S->G, S->K, S->gid, nomask, S->gsptr, S->gsidx,
                           NULL};
  for (pds_int e = 0; e < S->E; e++) {
    const pds_int *gid = S->gid + (size_t)n3 * e;

    sb_element_apply(&V, e, ud, y, t);
    for (int q = 0; q < n3; q++) {
      const pds_size l = (size_t)n3 * e + q;

      if (!S->mask[gid[q]]) b[gid[q]] += S->B[l] * f_rhs(S->xyz + 3 * l) - y[q];
    }
  }
done:
  pds_free(ctx, PDS_MEM_HOST, &ud), pds_free(ctx, PDS_MEM_HOST, &y), pds_free(ctx, PDS_MEM_HOST, &t);
  pds_free(ctx, PDS_MEM_HOST, &xyz), pds_free(ctx, PDS_MEM_HOST, &nomask);
  return ierr;
}

/* the problem on the space S (destroyed here, also on failure), described by desc; dist: over the ranks (mpisem, b
   and u the rank's rows, the elements cut by partitioner; collective: every failure agreed) */
static int sem_problem(pds_ctx ctx, pds_sem S, const char *desc, int dist, const char *partitioner, pds_problem *p) {
  pds_real *b = NULL, *u = NULL;
  pds_int  *pts = NULL, nr = S->nglob;
  int       ierr = PDS_OK;

  if (dist) { /* the operator first (collective), then each rank its rows of the whole b and u */
    ierr = pds_mat_create_sem_dist(S, partitioner, &p->A);
    if (!ierr) nr = p->A->nrows, ierr = PDS_NEW(ctx, (size_t)nr + 1, &pts);
    if (!ierr) ierr = pds_mat_sem_dist_get_points(p->A, pts);
  } else ierr = pds_mat_create_sem(S, &p->A);
  if (!ierr) ierr = PDS_NEW(ctx, (size_t)S->nglob, &b);
  if (!ierr) ierr = PDS_NEW(ctx, (size_t)S->nglob, &u);
  if (!ierr) ierr = sem_fill(ctx, S, b, u);
  for (pds_int i = 0; !ierr && dist && i < nr; i++) b[i] = b[pts[i]], u[i] = u[pts[i]]; /* pts[i] >= i: in place */
  if (!ierr) ierr = pds_mat_create_vecs(p->A, &p->u_exact, &p->b);
  if (!ierr) ierr = pds_vec_set_values(p->b, b, PDS_MEM_HOST);
  if (!ierr) ierr = pds_vec_set_values(p->u_exact, u, PDS_MEM_HOST);
  if (dist) ierr = pds_comm_agree(ctx, ierr);
  snprintf(p->description, sizeof p->description, "%s, u = sin(pi x)sin(pi y)sin(pi z) + xyz", desc);
  pds_free(ctx, PDS_MEM_HOST, &b), pds_free(ctx, PDS_MEM_HOST, &u), pds_free(ctx, PDS_MEM_HOST, &pts);
  pds_sem_destroy(&S);
  if (ierr) pds_problem_destroy(p);
  return ierr;
}

static int sem_box(pds_ctx ctx, const pds_int elements[3], int order, pds_real deform, int dist, const char *part,
                   pds_problem *p) {
  pds_sem S = NULL;
  char    desc[160];
  int     ierr;

  PDS_CHECK(ctx, NULL, PDS_ERR_ARG, "context is NULL");
  PDS_CHECK(p, ctx, PDS_ERR_ARG, "problem is NULL");
  memset(p, 0, sizeof *p);
  if (dist) pds_comm_begin(ctx);
  ierr = pds_sem_create_box(ctx, elements, order, deform, &S);
  if (dist) ierr = pds_comm_agree(ctx, ierr);
  if (ierr) return ierr;
  snprintf(desc, sizeof desc, "sem %" PDS_INT_FMT "x%" PDS_INT_FMT "x%" PDS_INT_FMT " hexahedra of order %d%s: -lap u = f "
           "on (0,1)^3", elements[0], elements[1], elements[2], order, deform != 0 ? " (deformed)" : "");
  return sem_problem(ctx, S, desc, dist, part, p);
}

static int sem_mesh(pds_ctx ctx, pds_mesh3d mesh, int order, int dist, const char *part, pds_problem *p) {
  pds_sem      S = NULL;
  pds_sem_info info;
  char         desc[160];
  int          ierr;

  PDS_CHECK(ctx, NULL, PDS_ERR_ARG, "context is NULL");
  PDS_CHECK(p, ctx, PDS_ERR_ARG, "problem is NULL");
  memset(p, 0, sizeof *p);
  if (dist) pds_comm_begin(ctx);
  ierr = pds_sem_create_mesh(ctx, mesh, order, &S);
  if (dist) ierr = pds_comm_agree(ctx, ierr);
  if (ierr) return ierr;
  (void)pds_sem_get_info(S, &info);
  snprintf(desc, sizeof desc, "sem mesh of %" PDS_INT_FMT " hexahedra of order %d%s: -lap u = f", info.nelem, order,
           info.affine ? " (affine)" : "");
  return sem_problem(ctx, S, desc, dist, part, p);
}

int pds_problem_sem(pds_ctx ctx, const pds_int elements[3], int order, pds_real deform, pds_problem *p) {
  return sem_box(ctx, elements, order, deform, 0, NULL, p);
}
int pds_problem_sem_dist(pds_ctx ctx, const pds_int elements[3], int order, pds_real deform, const char *partitioner,
                         pds_problem *p) {
  return sem_box(ctx, elements, order, deform, 1, partitioner, p);
}
int pds_problem_sem_mesh(pds_ctx ctx, pds_mesh3d mesh, int order, pds_problem *p) {
  return sem_mesh(ctx, mesh, order, 0, NULL, p);
}
int pds_problem_sem_mesh_dist(pds_ctx ctx, pds_mesh3d mesh, int order, const char *partitioner, pds_problem *p) {
  return sem_mesh(ctx, mesh, order, 1, partitioner, p);
}

/* the registry's "sem": dims = elements per direction, order 7 (8 GLL points a direction), affine */
int pds_problem_create_sem(pds_ctx ctx, const pds_int *dims, pds_problem *p) {
  return pds_problem_sem(ctx, dims, 7, 0.0, p);
}
