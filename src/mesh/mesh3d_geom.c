/* src/mesh/mesh3d_geom.c: finite-volume geometry of a 3D hybrid mesh (cell volumes and barycentres, face area vectors
   and barycentres, each face split into triangles around its vertex average, each cell into tetrahedra from its
   vertex average to those triangles), the dual graph (cells sharing a face), per-face boundary tags, and cell
   renumbering for locality (reverse Cuthill-McKee on the dual graph, or a 3D Hilbert curve through the barycentres). */
#include <stdint.h>
#include <stdlib.h>

#include "../graph/graph.h"
#include "mesh3d_impl.h"

void pds_mesh3d_derived_free(pds_ctx ctx, pds_mesh3d_derived *d) {
  pds_free(ctx, PDS_MEM_HOST, &d->cell_volume), pds_free(ctx, PDS_MEM_HOST, &d->cell_centre);
  pds_free(ctx, PDS_MEM_HOST, &d->face_area), pds_free(ctx, PDS_MEM_HOST, &d->face_centre);
  pds_free(ctx, PDS_MEM_HOST, &d->dual_ptr), pds_free(ctx, PDS_MEM_HOST, &d->dual_adj);
  pds_free(ctx, PDS_MEM_HOST, &d->face_tag);
}

/* ---- geometry ---------------------------------------------------------------------------------------------------- */

/* A face's triangles in a canonical form that does not depend on which cell lists it or from which vertex: the
   vertices from the smallest node index, towards the smaller of its two neighbours. A triangle is itself; a
   quadrangle is 4 triangles (m, q[i], q[i+1]) around the average m of its vertices. Returns the sign that turns the
   canonical orientation into the listed one (+1: same, -1: reversed); tri[t] gets the triangles' corners. */
static int face_tris(const pds_real *xyz, const pds_int *v, int n, double tri[4][3][3], int *ntri) {
  pds_int q[4];
  int     j = 0, dir;

  for (int i = 1; i < n; i++)
    if (v[i] < v[j]) j = i;
  dir = v[(j + 1) % n] < v[(j + n - 1) % n] ? 1 : -1;
  for (int i = 0; i < n; i++) q[i] = v[(j + dir * i + n) % n];
  if (n == 3) {
    for (int k = 0; k < 3; k++)
      for (int d = 0; d < 3; d++) tri[0][k][d] = xyz[3 * q[k] + d];
    *ntri = 1;
    return dir;
  }
  {
    double m[3];

    for (int d = 0; d < 3; d++)
      m[d] = (xyz[3 * q[0] + d] + xyz[3 * q[1] + d] + xyz[3 * q[2] + d] + xyz[3 * q[3] + d]) / 4;
    for (int t = 0; t < 4; t++)
      for (int d = 0; d < 3; d++)
        tri[t][0][d] = m[d], tri[t][1][d] = xyz[3 * q[t] + d], tri[t][2][d] = xyz[3 * q[(t + 1) % 4] + d];
  }
  *ntri = 4;
  return dir;
}

/* Half the cross product (b - a) x (c - a): the triangle's area vector. */
static void tri_area(const double t[3][3], double a[3]) {
  double u[3], w[3];

  for (int d = 0; d < 3; d++) u[d] = t[1][d] - t[0][d], w[d] = t[2][d] - t[0][d];
  a[0] = (u[1] * w[2] - u[2] * w[1]) / 2, a[1] = (u[2] * w[0] - u[0] * w[2]) / 2, a[2] = (u[0] * w[1] - u[1] * w[0]) / 2;
}

/* Face f: area vector (outward from its first cell) and area centroid of its triangles. */
static void face_geometry(const pds_real *xyz, const pds_int *v, int n, pds_real *area, pds_real *centre) {
  double tri[4][3][3], A[3] = {0, 0, 0}, C[3] = {0, 0, 0}, w = 0;
  int    nt, s = face_tris(xyz, v, n, tri, &nt);

  for (int t = 0; t < nt; t++) {
    double a[3], al;

    tri_area(tri[t], a);
    al = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
    w += al;
    for (int d = 0; d < 3; d++) A[d] += a[d], C[d] += al * (tri[t][0][d] + tri[t][1][d] + tri[t][2][d]) / 3;
  }
  for (int d = 0; d < 3; d++) {
    area[d] = s * A[d];
    if (w > 0) centre[d] = C[d] / w;
    else { /* a face of zero area (not a valid mesh's): its vertex average */
      double sum = 0;

      for (int k = 0; k < n; k++) sum += xyz[3 * v[k] + d];
      centre[d] = sum / n;
    }
  }
}

/* Cell c: the tetrahedra (x_c, triangle) over its faces' canonical triangles, x_c its vertex average; signed by the
   face's orientation seen from c, so the sum is exact for the decomposition. Coordinates relative to x_c. */
static void cell_geometry(const pds_mesh3d M, pds_int c, pds_real *vol, pds_real *centre) {
  const pds_int *cn = M->cell_nodes + M->cell_ptr[c];
  const int      nv = M->cell_type[c];
  double         xc[3] = {0, 0, 0}, V = 0, C[3] = {0, 0, 0};

  for (int k = 0; k < nv; k++)
    for (int d = 0; d < 3; d++) xc[d] += M->xyz[3 * cn[k] + d];
  for (int d = 0; d < 3; d++) xc[d] /= nv;
  for (pds_size k = M->faces.cface_ptr[c]; k < M->faces.cface_ptr[c + 1]; k++) {
    pds_int f = M->faces.cface[k];
    double  tri[4][3][3];
    int     nt, s = face_tris(M->xyz, M->faces.nodes + M->faces.ptr[f], M->faces.type[f], tri, &nt);

    if (M->faces.cells[2 * f] != c) s = -s; /* the face is listed outward from its other cell */
    for (int t = 0; t < nt; t++) {
      double a[3], b[3], e[3], v6;

      for (int d = 0; d < 3; d++) a[d] = tri[t][0][d] - xc[d], b[d] = tri[t][1][d] - xc[d], e[d] = tri[t][2][d] - xc[d];
      v6 = s * (a[0] * (b[1] * e[2] - b[2] * e[1]) - a[1] * (b[0] * e[2] - b[2] * e[0]) +
                a[2] * (b[0] * e[1] - b[1] * e[0]));
      V += v6;
      for (int d = 0; d < 3; d++) C[d] += v6 * (a[d] + b[d] + e[d]); /* 4 x the tetrahedron's centroid - x_c */
    }
  }
  *vol = V / 6;
  for (int d = 0; d < 3; d++) centre[d] = V != 0 ? xc[d] + C[d] / (4 * V) : xc[d];
}

static int geometry_build(pds_mesh3d M) {
  pds_ctx             ctx = M->hdr.ctx;
  pds_mesh3d_derived *g = &M->derived;
  pds_real           *cv = NULL, *cc = NULL, *fa = NULL, *fc = NULL;
  pds_int             nf = M->faces.nfaces;
  int                 ierr;

  if (g->cell_volume) return PDS_OK;
  PDS_CALL_GOTO(ierr, fail, PDS_NEW(ctx, M->ncells, &cv));
  PDS_CALL_GOTO(ierr, fail, PDS_NEW(ctx, (size_t)3 * M->ncells, &cc));
  PDS_CALL_GOTO(ierr, fail, PDS_NEW(ctx, (size_t)3 * (nf ? nf : 1), &fa));
  PDS_CALL_GOTO(ierr, fail, PDS_NEW(ctx, (size_t)3 * (nf ? nf : 1), &fc));
  for (pds_int f = 0; f < nf; f++)
    face_geometry(M->xyz, M->faces.nodes + M->faces.ptr[f], M->faces.type[f], fa + 3 * f, fc + 3 * f);
  for (pds_int c = 0; c < M->ncells; c++) cell_geometry(M, c, cv + c, cc + 3 * c);
  g->cell_volume = cv, g->cell_centre = cc, g->face_area = fa, g->face_centre = fc;
  return PDS_OK;
fail:
  pds_free(ctx, PDS_MEM_HOST, &cv), pds_free(ctx, PDS_MEM_HOST, &cc), pds_free(ctx, PDS_MEM_HOST, &fa);
  pds_free(ctx, PDS_MEM_HOST, &fc);
  return ierr;
}

int pds_mesh3d_get_geometry(pds_mesh3d m, const pds_real **cell_volume, const pds_real **cell_centre,
                            const pds_real **face_area, const pds_real **face_centre) {
  PDS_VALID(m, PDS_CLASSID_MESH3D, "mesh3d");
  PDS_CALL(geometry_build(m));
  if (cell_volume) *cell_volume = m->derived.cell_volume;
  if (cell_centre) *cell_centre = m->derived.cell_centre;
  if (face_area) *face_area = m->derived.face_area;
  if (face_centre) *face_centre = m->derived.face_centre;
  return PDS_OK;
}

/* ---- the dual graph and the boundary tags of the faces ----------------------------------------------------------- */

static int dual_build(pds_mesh3d M) {
  pds_ctx          ctx = M->hdr.ctx;
  const pds_mesh3d_faces *F = &M->faces;
  pds_size        *ptr = NULL, *fill = NULL;
  pds_int         *adj = NULL;
  int              ierr;

  if (M->derived.dual_ptr) return PDS_OK;
  PDS_CALL_GOTO(ierr, fail, PDS_NEW(ctx, (size_t)M->ncells + 1, &ptr));
  PDS_CALL_GOTO(ierr, fail, PDS_NEW(ctx, (size_t)M->ncells + 1, &fill));
  for (pds_int f = 0; f < F->nfaces; f++)
    if (F->cells[2 * f + 1] >= 0) ptr[F->cells[2 * f] + 1]++, ptr[F->cells[2 * f + 1] + 1]++;
  for (pds_int c = 0; c < M->ncells; c++) ptr[c + 1] += ptr[c];
  PDS_CALL_GOTO(ierr, fail, PDS_NEW(ctx, ptr[M->ncells] ? ptr[M->ncells] : 1, &adj));
  for (pds_int c = 0; c < M->ncells; c++) fill[c] = ptr[c];
  for (pds_int f = 0; f < F->nfaces; f++) {
    pds_int a = F->cells[2 * f], b = F->cells[2 * f + 1];

    if (b >= 0) adj[fill[a]++] = b, adj[fill[b]++] = a;
  }
  /* each row sorted (at most 6 entries: insertion sort), a neighbour met twice (two shared faces) kept once */
  {
    pds_size out = 0;

    for (pds_int c = 0; c < M->ncells; c++) {
      pds_size beg = ptr[c], end = ptr[c + 1];

      for (pds_size i = beg + 1; i < end; i++)
        for (pds_size j = i; j > beg && adj[j - 1] > adj[j]; j--) {
          pds_int t = adj[j];

          adj[j] = adj[j - 1], adj[j - 1] = t;
        }
      ptr[c] = out;
      for (pds_size i = beg; i < end; i++)
        if (i == beg || adj[i] != adj[i - 1]) adj[out++] = adj[i];
    }
    ptr[M->ncells] = out;
  }
  M->derived.dual_ptr = ptr, M->derived.dual_adj = adj;
  pds_free(ctx, PDS_MEM_HOST, &fill);
  return PDS_OK;
fail:
  pds_free(ctx, PDS_MEM_HOST, &ptr), pds_free(ctx, PDS_MEM_HOST, &fill), pds_free(ctx, PDS_MEM_HOST, &adj);
  return ierr;
}

int pds_mesh3d_get_dual(pds_mesh3d m, const pds_size **ptr, const pds_int **adj) {
  PDS_VALID(m, PDS_CLASSID_MESH3D, "mesh3d");
  PDS_CALL(dual_build(m));
  if (ptr) *ptr = m->derived.dual_ptr;
  if (adj) *adj = m->derived.dual_adj;
  return PDS_OK;
}

int pds_mesh3d_face_tags(pds_mesh3d m, const pds_int **face_tag) {
  pds_int *tag = NULL;

  PDS_VALID(m, PDS_CLASSID_MESH3D, "mesh3d");
  PDS_CHECK(face_tag, m->hdr.ctx, PDS_ERR_ARG, "face_tag is NULL");
  if (!m->derived.face_tag) {
    PDS_CALL(PDS_NEW(m->hdr.ctx, m->faces.nfaces ? m->faces.nfaces : 1, &tag));
    for (pds_int f = 0; f < m->faces.nfaces; f++) tag[f] = m->faces.cells[2 * f + 1] >= 0 ? -1 : 0;
    for (pds_int k = m->nbfaces - 1; k >= 0; k--) { /* backwards: the first boundary face on a face wins */
      pds_int f = pds_mesh3d_face_find(&m->faces, m->bface_nodes + m->bface_ptr[k], m->bface_type[k]);

      if (f >= 0 && tag[f] >= 0) tag[f] = m->bface_tag[k];
    }
    m->derived.face_tag = tag;
  }
  *face_tag = m->derived.face_tag;
  return PDS_OK;
}

/* ---- renumbering ------------------------------------------------------------------------------------------------- */

#define HILBERT_BITS 21

/* The position of a point of the 2^21-grid along the 3D Hilbert curve (Skilling's transpose form, 2004: axes to the
   transposed index, then the 63 bits interleaved, most significant first). */
static uint64_t hilbert_key(uint32_t x[3]) {
  const uint32_t M = 1u << (HILBERT_BITS - 1);
  uint64_t       key = 0;
  uint32_t       t;

  for (uint32_t Q = M; Q > 1; Q >>= 1) {
    uint32_t P = Q - 1;

    for (int i = 0; i < 3; i++)
      if (x[i] & Q) x[0] ^= P;
      else t = (x[0] ^ x[i]) & P, x[0] ^= t, x[i] ^= t;
  }
  for (int i = 1; i < 3; i++) x[i] ^= x[i - 1];
  t = 0;
  for (uint32_t Q = M; Q > 1; Q >>= 1)
    if (x[2] & Q) t ^= Q - 1;
  for (int i = 0; i < 3; i++) x[i] ^= t;
  for (int b = HILBERT_BITS - 1; b >= 0; b--)
    for (int i = 0; i < 3; i++) key = key << 1 | ((x[i] >> b) & 1u);
  return key;
}

typedef struct {
  uint64_t key;
  pds_int  cell;
} hkey;

static int hkey_cmp(const void *x, const void *y) {
  const hkey *a = x, *b = y;

  if (a->key != b->key) return a->key < b->key ? -1 : 1;
  return a->cell < b->cell ? -1 : a->cell > b->cell;
}

/* order[k] = the cell numbered k: the barycentres on a grid of 2^21 points a side over the cube that holds the nodes'
   bounding box (its longest side), sorted by Hilbert key, ties by cell number. */
static int order_hilbert(pds_mesh3d M, pds_int *order) {
  pds_ctx ctx = M->hdr.ctx;
  hkey   *h   = NULL;
  double  lo[3] = {INFINITY, INFINITY, INFINITY}, ext = 0, scale;
  const double top = (double)((1u << HILBERT_BITS) - 1);

  PDS_CALL(geometry_build(M));
  for (pds_int i = 0; i < M->nnodes; i++)
    for (int d = 0; d < 3; d++)
      if (M->xyz[3 * i + d] < lo[d]) lo[d] = M->xyz[3 * i + d];
  for (pds_int i = 0; i < M->nnodes; i++)
    for (int d = 0; d < 3; d++)
      if (M->xyz[3 * i + d] - lo[d] > ext) ext = M->xyz[3 * i + d] - lo[d];
  scale = (double)(1u << HILBERT_BITS) / ext; /* ext > 0: a mesh has cells of positive volume */
  PDS_CALL(pds_malloc(ctx, PDS_MEM_HOST, (size_t)M->ncells * sizeof *h, &h));
  for (pds_int c = 0; c < M->ncells; c++) {
    uint32_t x[3];

    for (int d = 0; d < 3; d++) {
      double s = (M->derived.cell_centre[3 * c + d] - lo[d]) * scale;

      x[d] = (uint32_t)(s < 0 ? 0 : s > top ? top : s);
    }
    h[c].key = hilbert_key(x), h[c].cell = c;
  }
  qsort(h, (size_t)M->ncells, sizeof *h, hkey_cmp);
  for (pds_int k = 0; k < M->ncells; k++) order[k] = h[k].cell;
  pds_free(ctx, PDS_MEM_HOST, &h);
  return PDS_OK;
}

/* The cells in the order order[0 .. ncells) (new arrays), the faces rebuilt from them, the derived data dropped; the
   mesh is changed only when everything is made. */
static int renumber_cells(pds_mesh3d M, const pds_int *order) {
  pds_ctx          ctx = M->hdr.ctx;
  unsigned char   *ct  = NULL;
  pds_size        *cp  = NULL;
  pds_int         *cn  = NULL, *tag = NULL;
  pds_mesh3d_faces f   = {0};
  int              ierr;

  PDS_CALL_GOTO(ierr, fail, PDS_NEW(ctx, M->ncells, &ct));
  PDS_CALL_GOTO(ierr, fail, PDS_NEW(ctx, (size_t)M->ncells + 1, &cp));
  PDS_CALL_GOTO(ierr, fail, PDS_NEW(ctx, M->cell_ptr[M->ncells], &cn));
  PDS_CALL_GOTO(ierr, fail, PDS_NEW(ctx, M->ncells, &tag));
  for (pds_int k = 0; k < M->ncells; k++) {
    pds_int c = order[k];

    ct[k] = M->cell_type[c], tag[k] = M->cell_tag[c];
    cp[k + 1] = cp[k] + ct[k];
    memcpy(cn + cp[k], M->cell_nodes + M->cell_ptr[c], (size_t)ct[k] * sizeof *cn);
  }
  PDS_CALL_GOTO(ierr, fail, pds_mesh3d_faces_build(ctx, M->ncells, ct, cp, cn, PDS_ERR_ARG, NULL, &f));
  pds_free(ctx, PDS_MEM_HOST, &M->cell_type), pds_free(ctx, PDS_MEM_HOST, &M->cell_ptr);
  pds_free(ctx, PDS_MEM_HOST, &M->cell_nodes), pds_free(ctx, PDS_MEM_HOST, &M->cell_tag);
  pds_mesh3d_faces_free(ctx, &M->faces);
  pds_mesh3d_derived_free(ctx, &M->derived);
  M->cell_type = ct, M->cell_ptr = cp, M->cell_nodes = cn, M->cell_tag = tag, M->faces = f;
  return PDS_OK;
fail:
  pds_mesh3d_faces_free(ctx, &f);
  pds_free(ctx, PDS_MEM_HOST, &ct), pds_free(ctx, PDS_MEM_HOST, &cp), pds_free(ctx, PDS_MEM_HOST, &cn);
  pds_free(ctx, PDS_MEM_HOST, &tag);
  return ierr;
}

static const struct {
  const char *name;
} orderings[] = {{"rcm"}, {"hilbert"}, {"none"}};

int pds_mesh3d_reorder(pds_mesh3d m, const char *how) {
  pds_ctx  ctx;
  pds_int *order = NULL;
  int      ierr;

  PDS_VALID(m, PDS_CLASSID_MESH3D, "mesh3d");
  ctx = m->hdr.ctx;
  PDS_CHECK(how, ctx, PDS_ERR_ARG, "the ordering is NULL (\"rcm\", \"hilbert\" or \"none\")");
  if (strcmp(how, "rcm") && strcmp(how, "hilbert") && strcmp(how, "none"))
    return PDS_ERROR_UNKNOWN(ctx, "cell ordering", how, orderings);
  PDS_CHECK(m->hdr.refct == 1, ctx, PDS_ERR_STATE, "the mesh has %d owners: renumbering its cells would change it "
            "under the others", m->hdr.refct);
  if (!strcmp(how, "none")) return PDS_OK;
  PDS_CALL(pds_malloc(ctx, PDS_MEM_HOST, (size_t)m->ncells * sizeof *order, &order));
  if (!strcmp(how, "rcm")) {
    PDS_CALL_GOTO(ierr, done, dual_build(m));
    PDS_CALL_GOTO(ierr, done, pds_graph_rcm(ctx, m->ncells, m->derived.dual_ptr, m->derived.dual_adj, order));
  } else
    PDS_CALL_GOTO(ierr, done, order_hilbert(m, order));
  PDS_CALL_GOTO(ierr, done, renumber_cells(m, order));
done:
  pds_free(ctx, PDS_MEM_HOST, &order);
  return ierr;
}
