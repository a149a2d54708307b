/* src/disc/sem_mesh.c: the spectral-element space of paper 003 on a hexahedral mesh (pds_sem_create_mesh; issue 13),
 * for example one read from a Gmsh file (pds_mesh3d_read_gmsh). Each hexahedron, its vertices in Gmsh's order (0-3
 * the bottom face counter-clockwise, 4-7 the top), carries n^3 GLL points placed by its trilinear map from the
 * reference cube (vertex 0 at (-1, -1, -1), 1 at (1, -1, -1), 2 at (1, 1, -1), 3 at (-1, 1, -1), then 4-7 at z = 1);
 * the geometry is then sem.c's (isoparametric G, affine detection).
 *
 * Global numbering by topology, the same whatever orientation two neighbouring elements have: a local point is a
 * vertex (its mesh node), on an edge (the edge's two nodes and the point's position counted from the lower-numbered
 * node), on a face (the face's lowest-numbered node, its two neighbours on the face, and the point's two positions
 * counted from that node, the first along the edge to the lower-numbered neighbour; GLL points are symmetric, so the
 * positions agree) or inside (its own). Equal keys are one global point; global points are numbered in the order the
 * elements first meet them (element by element, local point by local point), so that an element's points stay close
 * in memory. The Dirichlet points are those on a boundary face (a face of one element). */
#include <stdlib.h>

#include "sem_impl.h"

/* the corners of the reference hexahedron in Gmsh's order: (ci, cj, ck) in {0, 1}^3 */
static const unsigned char sm_corner[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                                              {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};

/* the mesh node at corner (a, b, c) in {0, 1}^3 of a hexahedron with Gmsh-ordered nodes v */
static pds_int sm_node(const pds_int *v, int a, int b, int c) {
  static const unsigned char at[2][2][2] = {{{0, 4}, {3, 7}}, {{1, 5}, {2, 6}}}; /* at[a][b][c] */

  return v[at[a][b][c]];
}

typedef struct {
  pds_int  k[5]; /* kind (0 vertex, 1 edge, 2 face), then nodes and positions (sm_point_key); faces: 4 nodes */
  pds_int  l;    /* the local point, local index within all elements (< 2^31) */
} sm_key;

static int sm_cmp(const void *pa, const void *pb) {
  const sm_key *a = pa, *b = pb;

  for (int q = 0; q < 5; q++)
    if (a->k[q] != b->k[q]) return a->k[q] < b->k[q] ? -1 : 1;
  return (a->l > b->l) - (a->l < b->l);
}

/* the key of point (i, j, k) of an element with nodes v (n points a direction, p = n - 1); 0 for an inside point */
static int sm_point_key(const pds_int *v, int p, const int ijk[3], pds_int key[5]) {
  int end[3], nin = 0, d1 = -1, d2 = -1;

  for (int d = 0; d < 3; d++) {
    end[d] = ijk[d] == 0 ? 0 : ijk[d] == p ? 1 : -1;
    if (end[d] < 0) {
      nin++;
      if (d1 < 0) d1 = d;
      else d2 = d;
    }
  }
  if (nin == 3) return 0;
  if (nin == 0) {
    key[0] = 0, key[1] = sm_node(v, end[0], end[1], end[2]), key[2] = key[3] = key[4] = 0;
  } else if (nin == 1) { /* along direction d1 from its node A (coordinate 0) to B (coordinate 1) */
    int c0[3] = {end[0], end[1], end[2]}, c1[3] = {end[0], end[1], end[2]};

    c0[d1] = 0, c1[d1] = 1;
    {
      const pds_int A = sm_node(v, c0[0], c0[1], c0[2]), B = sm_node(v, c1[0], c1[1], c1[2]);

      key[0] = 1, key[1] = A < B ? A : B, key[2] = A < B ? B : A, key[3] = A < B ? ijk[d1] : p - ijk[d1], key[4] = 0;
    }
  } else { /* on the face normal to the third direction, spanned by d1 and d2 */
    pds_int F[2][2], m = 0;
    int     u0 = 0, v0 = 0;

    for (int u = 0; u < 2; u++)
      for (int w = 0; w < 2; w++) {
        int c[3] = {end[0], end[1], end[2]};

        c[d1] = u, c[d2] = w;
        F[u][w] = sm_node(v, c[0], c[1], c[2]);
      }
    m = F[0][0];
    for (int u = 0; u < 2; u++)
      for (int w = 0; w < 2; w++)
        if (F[u][w] < m) m = F[u][w], u0 = u, v0 = w;
    { /* the face (m, its two neighbours) and the point's place counted from m, first towards the lower neighbour */
      const pds_int N1 = F[1 - u0][v0], N2 = F[u0][1 - v0];
      const pds_int a = u0 ? p - ijk[d1] : ijk[d1], b = v0 ? p - ijk[d2] : ijk[d2];

      key[0] = 2, key[1] = m, key[2] = N1 < N2 ? N1 : N2, key[3] = N1 < N2 ? N2 : N1;
      key[4] = N1 < N2 ? a * (p + 1) + b : b * (p + 1) + a;
    }
  }
  return 1;
}

/* the global numbering (gid, nglob) and the mask (points on faces of one element) of the mesh's hexahedra */
static int sm_numbering(struct pds_sem_s *S, const pds_int *cells) {
  pds_ctx        ctx = S->hdr.ctx;
  const int      n = S->n, p = n - 1, n3 = n * n * n;
  const pds_int  per = n3 - (n > 2 ? (n - 2) * (n - 2) * (n - 2) : 0); /* points on an element's faces */
  sm_key        *keys = NULL, *faces = NULL;
  pds_int       *rep = NULL;
  size_t         nk = 0;
  int            ierr = PDS_OK;

  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)S->E * per + 1, &keys));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, S->nloc + 1, &rep));
  for (pds_int e = 0; e < S->E; e++)
    for (int l = 0; l < n3; l++) {
      const int     ijk[3] = {l % n, l / n % n, l / (n * n)};
      const pds_int q      = (pds_int)((pds_size)n3 * e + l);

      rep[q] = q;
      if (sm_point_key(cells + 8 * (size_t)e, p, ijk, keys[nk].k)) keys[nk++].l = q;
    }
  qsort(keys, nk, sizeof *keys, sm_cmp);
  for (size_t a = 0, b; a < nk; a = b) { /* a group of equal keys: its first (smallest) local point represents it */
    for (b = a + 1; b < nk && !memcmp(keys[b].k, keys[a].k, sizeof keys[a].k); b++) rep[keys[b].l] = keys[a].l;
  }
  S->nglob = 0;
  for (pds_size q = 0; q < S->nloc; q++) S->gid[q] = rep[q] == (pds_int)q ? S->nglob++ : S->gid[rep[q]];
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)S->nglob + 1, &S->mask));
  /* faces: sorted corner nodes, (element, face) in l's place; a key met once is a boundary face */
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, 6 * (size_t)S->E + 1, &faces));
  for (pds_int e = 0; e < S->E; e++)
    for (int f = 0; f < 6; f++) {
      const int d = f / 2, side = f % 2, d1 = (d + 1) % 3, d2 = (d + 2) % 3;
      sm_key   *F = faces + 6 * (size_t)e + f;

      for (int u = 0, t = 0; u < 2; u++)
        for (int w = 0; w < 2; w++, t++) {
          int c[3];

          c[d] = side, c[d1] = u, c[d2] = w;
          F->k[t] = sm_node(cells + 8 * (size_t)e, c[0], c[1], c[2]);
        }
      for (int a = 1; a < 4; a++) /* sort the four nodes */
        for (int b = a; b > 0 && F->k[b - 1] > F->k[b]; b--) {
          const pds_int t = F->k[b];

          F->k[b] = F->k[b - 1], F->k[b - 1] = t;
        }
      F->k[4] = 0, F->l = 6 * e + f;
    }
  qsort(faces, 6 * (size_t)S->E, sizeof *faces, sm_cmp);
  for (size_t a = 0, b, nf = 6 * (size_t)S->E; a < nf; a = b) {
    for (b = a + 1; b < nf && !memcmp(faces[b].k, faces[a].k, sizeof faces[a].k); b++) {}
    if (b - a == 1) { /* a boundary face: mark its points */
      const pds_int e = faces[a].l / 6;
      const int     f = faces[a].l % 6, d = f / 2, side = f % 2, d1 = (d + 1) % 3, d2 = (d + 2) % 3;

      for (int u = 0; u < n; u++)
        for (int w = 0; w < n; w++) {
          int c[3];

          c[d] = side * p, c[d1] = u, c[d2] = w;
          S->mask[S->gid[(size_t)n3 * e + (c[2] * n + c[1]) * n + c[0]]] = 1;
        }
    }
  }
done:
  pds_free(ctx, PDS_MEM_HOST, &keys), pds_free(ctx, PDS_MEM_HOST, &faces), pds_free(ctx, PDS_MEM_HOST, &rep);
  return ierr;
}

int pds_sem_create_mesh(pds_ctx ctx, pds_mesh3d mesh, int order, pds_sem *out) {
  struct pds_sem_s    *S = NULL;
  pds_int              nn, nc, nb, nhex;
  const pds_real      *X;
  const unsigned char *type;
  const pds_size      *cptr;
  const pds_int       *cells;
  int                  ierr;

  PDS_CHECK(ctx, NULL, PDS_ERR_ARG, "context is NULL");
  PDS_CHECK(out, ctx, PDS_ERR_ARG, "output handle is NULL");
  *out = NULL;
  PDS_CHECK(mesh, ctx, PDS_ERR_ARG, "mesh is NULL");
  PDS_CALL(pds_mesh3d_get_sizes(mesh, &nn, &nc, &nb));
  PDS_CALL(pds_mesh3d_get_arrays(mesh, &X, &type, &cptr, &cells, NULL, NULL, NULL, NULL, NULL));
  PDS_CALL(pds_mesh3d_count(mesh, PDS_CELL_HEX, &nhex));
  if (nhex != nc) {
    pds_int c = 0;

    while (c < nc && type[c] == PDS_CELL_HEX) c++;
    return PDS_ERROR(ctx, PDS_ERR_ARG,
                     "sem: the mesh is not hexahedral: cell %" PDS_INT_FMT " is a %s (%" PDS_INT_FMT " of %"
                     PDS_INT_FMT " cells are hexahedra); spectral elements need hexahedra (pds_mesh3d_subdivide_hex "
                     "cuts tetrahedra and prisms into them)", c,
                     type[c] == PDS_CELL_TET ? "tetrahedron" : type[c] == PDS_CELL_PRISM ? "prism" : "pyramid", nhex,
                     nc);
  }
  PDS_CHECK(nc >= 1, ctx, PDS_ERR_ARG, "sem: the mesh has no cells");
  PDS_CALL(pds_sem_alloc(ctx, order, (double)nc, &S));
  S->ne[0] = S->ne[1] = S->ne[2] = 0, S->from_mesh = 1;
  snprintf(S->mesh_note, sizeof S->mesh_note, " (the mesh's cell of that number: its trilinear map is not one-to-one "
           "there)");
  { /* the points by each hexahedron's trilinear map */
    const int n = S->n, n3 = n * n * n;

    for (pds_int e = 0; e < nc; e++) {
      const pds_int *v = cells + cptr[e];

      for (int l = 0; l < n3; l++) {
        const double r[3] = {S->x[l % n], S->x[l / n % n], S->x[l / (n * n)]};
        double      *P    = S->xyz + 3 * ((size_t)n3 * e + l);

        P[0] = P[1] = P[2] = 0;
        for (int c = 0; c < 8; c++) {
          double s = 0.125;

          for (int d = 0; d < 3; d++) s *= sm_corner[c][d] ? 1 + r[d] : 1 - r[d];
          for (int d = 0; d < 3; d++) P[d] += s * X[3 * (size_t)v[c] + d];
        }
      }
    }
  }
  PDS_CALL_GOTO(ierr, fail, sm_numbering(S, cells)); /* hexahedra only: cptr[e] = 8 e */
  PDS_CALL_GOTO(ierr, fail, pds_sem_finish(S));
  *out = S;
  return PDS_OK;
fail:
  pds_sem_free(S);
  return ierr;
}
