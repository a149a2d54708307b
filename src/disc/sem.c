/* src/disc/sem.c: the spectral-element space of paper 003 on a box of hexahedra (issue 13): E = ex x ey x ez
 * elements of the unit cube, each with n = p + 1 Gauss-Lobatto-Legendre points per direction (sem_gll.c), affine or
 * deformed by the smooth map x = xi + deform s(xi) (1, 1, 1), s = sin(pi xi_x) sin(pi xi_y) sin(pi xi_z), which keeps
 * the cube's faces in place (so G is full 3 x 3 per point, the paper's stated next step).
 *
 * Local point l = e n^3 + (k n + j) n + i of element e = (ez_i ey + ey_i) ex + ex_i, at reference coordinates
 * (x_i, x_j, x_k). The geometry is isoparametric: the coordinates at the points, differentiated by D, give the
 * Jacobian matrix J = dx/dr per point; then
 *   jac   = det J,  B = w_i w_j w_k jac                      (the diagonal mass matrix),
 *   G     = w_i w_j w_k jac J^-1 J^-T                         (the 6 entries of the symmetric 3 x 3, G11 G12 G13 G22
 *                                                              G23 G33, at G[(6 e + c) n^3 + l - e n^3]),
 * so that the element stiffness is A^e = D^T G D (paper 003 Eq. 3) with D the three tensor-product derivatives.
 * Global numbering: the structured grid of (ex p + 1)(ey p + 1)(ez p + 1) points; the gather-scatter lists the local
 * points of each global point in ascending order (every backend sums in that order: deterministic, no atomics); the
 * mask marks the global points on the cube's faces (Dirichlet). */
#include <math.h>

#include "../io/vtk.h"
#include "sem_impl.h"

#define SEM_VALID(s)                                                                                         \
  do {                                                                                                       \
    if (!(s)) return pds_error(NULL, __FILE__, __LINE__, __func__, PDS_ERR_ARG, "sem object is NULL");      \
    if ((s)->hdr.classid != PDS_CLASSID_SEM)                                                                 \
      return pds_error(NULL, __FILE__, __LINE__, __func__, PDS_ERR_ARG,                                      \
                       "sem object is not valid (destroyed, or another kind of handle)");                    \
  } while (0)

static void sem_free(struct pds_sem_s *S) {
  pds_ctx ctx = S->hdr.ctx;

  pds_free(ctx, PDS_MEM_HOST, &S->gid), pds_free(ctx, PDS_MEM_HOST, &S->xyz);
  pds_free(ctx, PDS_MEM_HOST, &S->G), pds_free(ctx, PDS_MEM_HOST, &S->K), pds_free(ctx, PDS_MEM_HOST, &S->jac);
  pds_free(ctx, PDS_MEM_HOST, &S->B);
  pds_free(ctx, PDS_MEM_HOST, &S->mask), pds_free(ctx, PDS_MEM_HOST, &S->gsptr);
  pds_free(ctx, PDS_MEM_HOST, &S->gsidx);
}

/* the deformation map of the unit cube and the affine point of element (a, b, c) at reference (r, s, t) */
static void sem_point(const struct pds_sem_s *S, pds_int a, pds_int b, pds_int c, double r, double s, double t,
                      double x[3]) {
  const double xi[3] = {(a + 0.5 * (r + 1.0)) / S->ne[0], (b + 0.5 * (s + 1.0)) / S->ne[1],
                        (c + 0.5 * (t + 1.0)) / S->ne[2]};
  const double d     = S->deform * sin(PDS_PI * xi[0]) * sin(PDS_PI * xi[1]) * sin(PDS_PI * xi[2]);

  for (int q = 0; q < 3; q++) x[q] = xi[q] + d;
}

/* J[9] = dx/dr at point (i, j, k) of an element with point coordinates X (isoparametric: D along each direction) */
static void sem_jacobian(int n, const double *D, const double *X, int i, int j, int k, double J[9]) {
  for (int q = 0; q < 9; q++) J[q] = 0;
  for (int m = 0; m < n; m++) /* J[3 q + d] = d x_q / d r_d */
    for (int q = 0; q < 3; q++) {
      J[3 * q + 0] += D[i * n + m] * X[3 * ((k * n + j) * n + m) + q];
      J[3 * q + 1] += D[j * n + m] * X[3 * ((k * n + m) * n + i) + q];
      J[3 * q + 2] += D[k * n + m] * X[3 * ((m * n + j) * n + i) + q];
    }
}

/* det J and C = det J J^-1 J^-T (6 entries C11 C12 C13 C22 C23 C33), so that G = w C */
static double sem_metric(const double J[9], double C[6]) {
  static const int ab[6][2] = {{0, 0}, {0, 1}, {0, 2}, {1, 1}, {1, 2}, {2, 2}};
  const double     det = J[0] * (J[4] * J[8] - J[5] * J[7]) - J[1] * (J[3] * J[8] - J[5] * J[6]) +
                     J[2] * (J[3] * J[7] - J[4] * J[6]);
  double           K[3][3]; /* K = J^-1 = dr/dx (adjugate / det) */

  K[0][0] = (J[4] * J[8] - J[5] * J[7]) / det;
  K[0][1] = (J[2] * J[7] - J[1] * J[8]) / det;
  K[0][2] = (J[1] * J[5] - J[2] * J[4]) / det;
  K[1][0] = (J[5] * J[6] - J[3] * J[8]) / det;
  K[1][1] = (J[0] * J[8] - J[2] * J[6]) / det;
  K[1][2] = (J[2] * J[3] - J[0] * J[5]) / det;
  K[2][0] = (J[3] * J[7] - J[4] * J[6]) / det;
  K[2][1] = (J[1] * J[6] - J[0] * J[7]) / det;
  K[2][2] = (J[0] * J[4] - J[1] * J[3]) / det;
  for (int c = 0; c < 6; c++) {
    const int ra = ab[c][0], rb = ab[c][1];

    C[c] = det * (K[ra][0] * K[rb][0] + K[ra][1] * K[rb][1] + K[ra][2] * K[rb][2]);
  }
  return det;
}

/* Jacobians, G and B of every element from the point coordinates xyz; PDS_ERR_ARG for an inverted element. An
   element whose Jacobian matrix is the same at every point (to 1e-12 of its size: an affine map, a parallelepiped)
   gets G = ((w_i w_j) w_k) K_e from the metric K_e of its first point; when every element is affine, K (6 values an
   element) is kept for the kernels that read it instead of G. */
static int sem_geometry(struct pds_sem_s *S) {
  const int     n = S->n, n3 = n * n * n;
  const double *D = S->D, *w = S->w;
  const pds_int E = S->E;
  pds_int       bad_e = -1, naffine = 0;
  int           bad_l = 0;
  double        bad_j = 0, *J = NULL;
  int           ierr;

  PDS_CALL(PDS_NEW(S->hdr.ctx, 9 * (size_t)n3, &J));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(S->hdr.ctx, 6 * (size_t)E, &S->K));
  for (pds_int e = 0; e < E && bad_e < 0; e++) {
    const double *X = S->xyz + (size_t)3 * n3 * e;
    double       *Ke = S->K + 6 * (size_t)e, jmax = 0, dmax = 0, det0;
    int           affine;

    for (int k = 0, l = 0; k < n; k++)
      for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++, l++) sem_jacobian(n, D, X, i, j, k, J + 9 * l);
    for (int l = 0; l < n3; l++)
      for (int q = 0; q < 9; q++) {
        jmax = fmax(jmax, fabs(J[q]));
        dmax = fmax(dmax, fabs(J[9 * l + q] - J[q]));
      }
    affine = dmax <= 1e-12 * jmax;
    naffine += affine;
    det0 = sem_metric(J, Ke);
    for (int l = 0; l < n3 && bad_e < 0; l++) {
      const int    i = l % n, j = l / n % n, k = l / (n * n);
      const double wq = w[i] * w[j] * w[k];
      double      *G = S->G + (size_t)6 * n3 * e + l, C[6];
      const double det = affine ? det0 : sem_metric(J + 9 * l, C);

      if (!(det > 0)) bad_e = e, bad_l = l, bad_j = det;
      for (int c = 0; c < 6; c++) G[(size_t)c * n3] = wq * (affine ? Ke[c] : C[c]);
      S->jac[(size_t)n3 * e + l] = det;
      S->B[(size_t)n3 * e + l]   = wq * det;
    }
  }
  if (naffine < E) PDS_CALL_GOTO(ierr, done, pds_free(S->hdr.ctx, PDS_MEM_HOST, &S->K));
  ierr = bad_e < 0 ? PDS_OK
                   : PDS_ERROR(S->hdr.ctx, PDS_ERR_ARG,
                               "sem: element %" PDS_INT_FMT " is inverted or degenerate: Jacobian determinant %g at "
                               "its point (%d, %d, %d)%s", bad_e, bad_j, bad_l % n, bad_l / n % n, bad_l / (n * n),
                               S->mesh_note);
done:
  pds_free(S->hdr.ctx, PDS_MEM_HOST, &J);
  return ierr;
}

/* the point coordinates of every element of the box */
static void sem_box_points(struct pds_sem_s *S) {
  const int n = S->n, n3 = n * n * n;

  for (pds_int e = 0; e < S->E; e++) {
    const pds_int a = e % S->ne[0], b = e / S->ne[0] % S->ne[1], c = e / S->ne[0] / S->ne[1];
    double       *X = S->xyz + (size_t)3 * n3 * e;

    for (int k = 0, l = 0; k < n; k++)
      for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++, l++) sem_point(S, a, b, c, S->x[i], S->x[j], S->x[k], X + 3 * l);
  }
}

/* the structured global numbering and the mask (the points on the cube's faces) */
static int sem_box_numbering(struct pds_sem_s *S) {
  const int     n = S->n, p = n - 1;
  const pds_int NX = S->ne[0] * p + 1, NY = S->ne[1] * p + 1, NZ = S->ne[2] * p + 1;

  S->nglob = NX * NY * NZ;
  PDS_CALL(PDS_NEW(S->hdr.ctx, (size_t)S->nglob + 1, &S->mask));
  for (pds_int e = 0; e < S->E; e++) {
    const pds_int a = e % S->ne[0], b = e / S->ne[0] % S->ne[1], c = e / S->ne[0] / S->ne[1];

    for (int k = 0, l = 0; k < n; k++)
      for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++, l++) {
          const pds_int gx = a * p + i, gy = b * p + j, gz = c * p + k, g = (gz * NY + gy) * NX + gx;

          S->gid[(pds_size)e * n * n * n + l] = g;
          S->mask[g] = gx == 0 || gx == NX - 1 || gy == 0 || gy == NY - 1 || gz == 0 || gz == NZ - 1;
        }
  }
  return PDS_OK;
}

/* the gather-scatter lists of gid (each ascending) and the masked count */
static int sem_lists(struct pds_sem_s *S) {
  pds_ctx  ctx  = S->hdr.ctx;
  pds_int *fill = NULL;

  PDS_CALL(PDS_NEW(ctx, (size_t)S->nglob + 1, &S->gsptr));
  for (pds_size l = 0; l < S->nloc; l++) S->gsptr[S->gid[l] + 1]++;
  for (pds_int g = 0; g < S->nglob; g++) {
    S->gsptr[g + 1] += S->gsptr[g];
    S->nmask += S->mask[g];
  }
  PDS_CALL(PDS_NEW(ctx, (size_t)S->nloc + 1, &S->gsidx));
  PDS_CALL(PDS_NEW(ctx, (size_t)S->nglob + 1, &fill));
  memcpy(fill, S->gsptr, (size_t)S->nglob * sizeof *fill);
  for (pds_size l = 0; l < S->nloc; l++) S->gsidx[fill[S->gid[l]]++] = (pds_int)l; /* ascending in each list */
  return pds_free(ctx, PDS_MEM_HOST, &fill);
}

int pds_sem_alloc(pds_ctx ctx, int order, double nelem, struct pds_sem_s **out) {
  struct pds_sem_s *S = NULL;
  const double      nl = nelem * (order + 1) * (order + 1) * (order + 1);
  int               ierr;

  *out = NULL;
  PDS_CHECK(order >= PDS_SEM_NMIN - 1 && order <= PDS_SEM_NMAX - 1, ctx, PDS_ERR_ARG,
            "sem: polynomial order %d; %d to %d (%d to %d points per direction)", order, PDS_SEM_NMIN - 1,
            PDS_SEM_NMAX - 1, PDS_SEM_NMIN, PDS_SEM_NMAX);
  PDS_CHECK(nl <= (double)PDS_INT_MAX, ctx, PDS_ERR_SIZE,
            "sem: %.0f local points; at most %d (32-bit indices)", nl, PDS_INT_MAX);
  PDS_CALL(PDS_NEW(ctx, 1, &S));
  S->hdr  = (struct pds_header){ctx, PDS_CLASSID_SEM, 1};
  S->n    = order + 1;
  S->E    = (pds_int)nelem;
  S->nloc = (pds_size)nl;
  (void)pds_sem_gll(S->n, S->x, S->w, S->D);
  PDS_CALL_GOTO(ierr, fail, PDS_NEW(ctx, S->nloc + 1, &S->gid));
  PDS_CALL_GOTO(ierr, fail, PDS_NEW(ctx, 3 * S->nloc + 1, &S->xyz));
  PDS_CALL_GOTO(ierr, fail, PDS_NEW(ctx, 6 * S->nloc + 1, &S->G));
  PDS_CALL_GOTO(ierr, fail, PDS_NEW(ctx, S->nloc + 1, &S->jac));
  PDS_CALL_GOTO(ierr, fail, PDS_NEW(ctx, S->nloc + 1, &S->B));
  *out = S;
  return PDS_OK;
fail:
  pds_sem_free(S);
  return ierr;
}

int pds_sem_finish(struct pds_sem_s *S) {
  PDS_CALL(sem_geometry(S));
  return sem_lists(S);
}

void pds_sem_free(struct pds_sem_s *S) {
  if (S) {
    pds_ctx ctx = S->hdr.ctx;

    sem_free(S);
    pds_free(ctx, PDS_MEM_HOST, &S);
  }
}

int pds_sem_create_box(pds_ctx ctx, const pds_int elements[3], int order, pds_real deform, pds_sem *out) {
  struct pds_sem_s *S = NULL;
  int               ierr;

  PDS_CHECK(ctx, NULL, PDS_ERR_ARG, "context is NULL");
  PDS_CHECK(out, ctx, PDS_ERR_ARG, "output handle is NULL");
  *out = NULL;
  PDS_CHECK(elements, ctx, PDS_ERR_ARG, "elements is NULL");
  PDS_CHECK(elements[0] >= 1 && elements[1] >= 1 && elements[2] >= 1, ctx, PDS_ERR_ARG,
            "sem: %" PDS_INT_FMT " x %" PDS_INT_FMT " x %" PDS_INT_FMT " elements; at least 1 in each direction",
            elements[0], elements[1], elements[2]);
  PDS_CHECK(isfinite(deform), ctx, PDS_ERR_ARG, "sem: deform is not finite");
  PDS_CALL(pds_sem_alloc(ctx, order, (double)elements[0] * elements[1] * elements[2], &S));
  S->ne[0]  = elements[0], S->ne[1] = elements[1], S->ne[2] = elements[2];
  S->deform = deform;
  snprintf(S->mesh_note, sizeof S->mesh_note, " (deform %g: the map x = xi + deform s(xi) (1, 1, 1) folds; use "
           "|deform| < 1 / (3 pi) = 0.106 or smaller)", deform);
  sem_box_points(S);
  PDS_CALL_GOTO(ierr, fail, sem_box_numbering(S));
  PDS_CALL_GOTO(ierr, fail, pds_sem_finish(S));
  *out = S;
  return PDS_OK;
fail:
  pds_sem_free(S);
  return ierr;
}

int pds_sem_destroy(pds_sem *sem) {
  pds_ctx ctx;

  if (!sem || !*sem) return PDS_OK;
  SEM_VALID(*sem);
  ctx = (*sem)->hdr.ctx;
  sem_free(*sem);
  (*sem)->hdr.classid = PDS_CLASSID_FREED;
  return pds_free(ctx, PDS_MEM_HOST, sem);
}

int pds_sem_get_info(pds_sem sem, pds_sem_info *info) {
  SEM_VALID(sem);
  PDS_CHECK(info, sem->hdr.ctx, PDS_ERR_ARG, "info is NULL");
  info->order = sem->n - 1, info->n = sem->n;
  for (int d = 0; d < 3; d++) info->elements[d] = sem->ne[d];
  info->nelem = sem->E, info->nlocal = sem->nloc, info->nglobal = sem->nglob, info->nmasked = sem->nmask;
  info->deform = sem->deform, info->affine = sem->K != NULL;
  return PDS_OK;
}

int pds_sem_get_coordinates(pds_sem sem, pds_real *xyz) {
  SEM_VALID(sem);
  PDS_CHECK(xyz, sem->hdr.ctx, PDS_ERR_ARG, "xyz is NULL");
  for (pds_int g = 0; g < sem->nglob; g++) {
    const pds_size l = (pds_size)sem->gsidx[sem->gsptr[g]]; /* the first local point of each global one */

    for (int q = 0; q < 3; q++) xyz[3 * (size_t)g + q] = sem->xyz[3 * l + q];
  }
  return PDS_OK;
}

int pds_sem_write_vtk(pds_sem sem, const char *path, int nfields, const char *const *names,
                      const pds_real *const *values) {
  pds_ctx   ctx;
  const int n = sem ? sem->n : 0, p = n - 1;
  pds_real *xyz  = NULL;
  pds_int  *conn = NULL;
  pds_size  nc;
  int       ierr;

  SEM_VALID(sem);
  ctx = sem->hdr.ctx;
  nc  = (pds_size)sem->E * p * p * p; /* each element as (n - 1)^3 linear hexahedra between its points */
  PDS_CALL(PDS_NEW(ctx, 3 * (size_t)sem->nglob, &xyz));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, 8 * nc + 1, &conn));
  PDS_CALL_GOTO(ierr, done, pds_sem_get_coordinates(sem, xyz));
  for (pds_int e = 0, c = 0; e < sem->E; e++) {
    const pds_int *gid = sem->gid + (size_t)n * n * n * e;

    for (int k = 0; k < p; k++)
      for (int j = 0; j < p; j++)
        for (int i = 0; i < p; i++, c++) { /* VTK's hexahedron: the k face counter-clockwise, then the k + 1 face */
          static const int di[8] = {0, 1, 1, 0, 0, 1, 1, 0}, dj[8] = {0, 0, 1, 1, 0, 0, 1, 1},
                           dk[8] = {0, 0, 0, 0, 1, 1, 1, 1};

          for (int v = 0; v < 8; v++) conn[8 * (size_t)c + v] = gid[((k + dk[v]) * n + j + dj[v]) * n + i + di[v]];
        }
  }
  ierr = pds_vtk_write_ugrid(ctx, path, (pds_size)sem->nglob, 3, xyz, nc, 8, conn, 12, nfields, names, values);
done:
  pds_free(ctx, PDS_MEM_HOST, &xyz), pds_free(ctx, PDS_MEM_HOST, &conn);
  return ierr;
}
