/* src/mesh/mesh.c: 2D triangle mesh object: validated creation, node markers from tagged boundary edges, quality. */
#include <stdio.h>
#include <stdlib.h>

#include "mesh_impl.h"

#define MESH_MAX_NODES ((pds_int)(PDS_INT_MAX / 2)) /* keeps 2 nnodes and 3 ntri in pds_int arithmetic safe */
#define MESH_MAX_TRI   ((pds_int)(PDS_INT_MAX / 3))

/* "triangle 7" or, for a file, "'path': element 123": how messages name triangle e and boundary edge k. */
static const char *name_tri(const pds_mesh_origin *o, pds_int e, char *buf, size_t len) {
  if (o && o->tri_tag) snprintf(buf, len, "'%s': triangle (element %" PRIu64 ")", o->path, o->tri_tag[e]);
  else snprintf(buf, len, "triangle %" PDS_INT_FMT, e);
  return buf;
}

static const char *name_bedge(const pds_mesh_origin *o, pds_int k, char *buf, size_t len) {
  if (o && o->bedge_tag) snprintf(buf, len, "'%s': line (element %" PRIu64 ")", o->path, o->bedge_tag[k]);
  else snprintf(buf, len, "boundary edge %" PDS_INT_FMT, k);
  return buf;
}

int pds_mesh_node_triangles(pds_ctx ctx, pds_int nnodes, pds_int ntri, const pds_int *tri, pds_size **ptr,
                            pds_int **tris) {
  pds_size *p = NULL;
  pds_int  *t = NULL;
  int       ierr;

  *ptr = NULL, *tris = NULL;
  PDS_CALL(PDS_NEW(ctx, (size_t)nnodes + 1, &p));
  PDS_CALL_GOTO(ierr, fail, pds_malloc(ctx, PDS_MEM_HOST, (size_t)3 * ntri * sizeof *t, &t));
  for (pds_size k = 0; k < (pds_size)3 * ntri; k++) p[tri[k] + 1]++;
  for (pds_int i = 0; i < nnodes; i++) p[i + 1] += p[i];
  for (pds_int e = 0; e < ntri; e++)
    for (int k = 0; k < 3; k++) t[p[tri[3 * e + k]]++] = e;
  for (pds_int i = nnodes; i > 0; i--) p[i] = p[i - 1];
  p[0]  = 0;
  *ptr  = p;
  *tris = t;
  return PDS_OK;
fail:
  pds_free(ctx, PDS_MEM_HOST, &p);
  return ierr;
}

int pds_mesh_node_graph(pds_ctx ctx, pds_int nnodes, pds_int ntri, const pds_int *tri, pds_size **ptr,
                        pds_int **adj) {
  pds_size *tp = NULL, *p = NULL;
  pds_int  *tt = NULL, *a = NULL;
  pds_size  n  = 0;
  int       ierr;

  *ptr = NULL, *adj = NULL;
  PDS_CALL(pds_mesh_node_triangles(ctx, nnodes, ntri, tri, &tp, &tt));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)nnodes + 1, &p));
  PDS_CALL_GOTO(ierr, done, pds_malloc(ctx, PDS_MEM_HOST, (size_t)6 * ntri * sizeof *a, &a));
  for (pds_int i = 0; i < nnodes; i++) { /* the other two nodes of each triangle at i, sorted, duplicates dropped */
    pds_size s = n;

    p[i] = n;
    for (pds_size k = tp[i]; k < tp[i + 1]; k++)
      for (int c = 0; c < 3; c++) {
        pds_int j = tri[3 * tt[k] + c];
        pds_size q;

        if (j == i) continue;
        for (q = n; q > s && a[q - 1] > j; q--) a[q] = a[q - 1];
        if (q > s && a[q - 1] == j) { /* already there: undo the shift */
          for (; q < n; q++) a[q] = a[q + 1];
          continue;
        }
        a[q] = j;
        n++;
      }
  }
  p[nnodes] = n;
  *ptr = p, *adj = a;
  p = NULL, a = NULL;
  ierr = PDS_OK;
done:
  pds_free(ctx, PDS_MEM_HOST, &tp), pds_free(ctx, PDS_MEM_HOST, &tt);
  pds_free(ctx, PDS_MEM_HOST, &p), pds_free(ctx, PDS_MEM_HOST, &a);
  return ierr;
}

/* Sorted node triple of triangle e, for the duplicate check. */
typedef struct {
  pds_int v[3];
  pds_int e;
} tri_key;

static int tri_key_cmp(const void *x, const void *y) {
  const tri_key *a = x, *b = y;

  for (int k = 0; k < 3; k++)
    if (a->v[k] != b->v[k]) return a->v[k] < b->v[k] ? -1 : 1;
  return a->e < b->e ? -1 : a->e > b->e;
}

static void tri_key_set(const pds_int *tri, pds_int e, tri_key *k) {
  pds_int a = tri[3 * e], b = tri[3 * e + 1], c = tri[3 * e + 2], t;

  if (a > b) t = a, a = b, b = t;
  if (b > c) t = b, b = c, c = t;
  if (a > b) t = a, a = b, b = t;
  k->v[0] = a, k->v[1] = b, k->v[2] = c, k->e = e;
}

/* Triangles are grouped by their smallest node (from the incidence lists); each group is sorted and neighbours
   compared, so the check is O(ntri log(max degree)). */
static int check_duplicates(pds_ctx ctx, pds_int nnodes, const pds_int *tri, const pds_size *tp, const pds_int *tt,
                            const pds_mesh_origin *o) {
  tri_key *keys = NULL;
  pds_size maxdeg = 0;
  int      ierr = PDS_OK;

  for (pds_int i = 0; i < nnodes; i++)
    if (tp[i + 1] - tp[i] > maxdeg) maxdeg = tp[i + 1] - tp[i];
  PDS_CALL(pds_malloc(ctx, PDS_MEM_HOST, (size_t)maxdeg * sizeof *keys, &keys));
  for (pds_int i = 0; i < nnodes && !ierr; i++) {
    pds_size n = 0;

    for (pds_size k = tp[i]; k < tp[i + 1]; k++) {
      tri_key_set(tri, tt[k], &keys[n]);
      if (keys[n].v[0] == i) n++;
    }
    if (n < 2) continue;
    qsort(keys, (size_t)n, sizeof *keys, tri_key_cmp);
    for (pds_size k = 1; k < n; k++)
      if (!memcmp(keys[k].v, keys[k - 1].v, sizeof keys[k].v)) {
        char b1[160], b2[160];

        name_tri(o, keys[k - 1].e, b1, sizeof b1), name_tri(o, keys[k].e, b2, sizeof b2);
        ierr = PDS_ERROR(ctx, o && o->path ? PDS_ERR_FORMAT : PDS_ERR_ARG,
                         "%s and %s have the same nodes (%" PDS_INT_FMT ", %" PDS_INT_FMT ", %" PDS_INT_FMT
                         "): duplicate triangle", b1, b2, keys[k].v[0], keys[k].v[1], keys[k].v[2]);
        break;
      }
  }
  pds_free(ctx, PDS_MEM_HOST, &keys);
  return ierr;
}

/* All checks of the arrays; flips clockwise triangles. Errors are PDS_ERR_ARG for arrays from the caller,
   PDS_ERR_FORMAT for arrays read from a file (org->path set). */
static int mesh_validate(pds_ctx ctx, pds_int nnodes, const pds_real *xy, pds_int ntri, pds_int *tri,
                         pds_int nbedge, const pds_int *bedge, const pds_int *bedge_tag, const pds_mesh_origin *o,
                         pds_size **tp, pds_int **tt) {
  int  code = o && o->path ? PDS_ERR_FORMAT : PDS_ERR_ARG;
  char buf[200];

  for (pds_int i = 0; i < nnodes; i++)
    PDS_CHECK(isfinite(xy[2 * i]) && isfinite(xy[2 * i + 1]), ctx, code,
              "node %" PDS_INT_FMT " has a coordinate that is not finite (%g, %g)", i, xy[2 * i], xy[2 * i + 1]);
  for (pds_int e = 0; e < ntri; e++) {
    pds_int *t = tri + 3 * e;
    double   det;
    int      certain;

    for (int k = 0; k < 3; k++)
      PDS_CHECK(t[k] >= 0 && t[k] < nnodes, ctx, code, "%s: node %" PDS_INT_FMT " is out of range [0, %" PDS_INT_FMT ")",
                name_tri(o, e, buf, sizeof buf), t[k], nnodes);
    PDS_CHECK(t[0] != t[1] && t[1] != t[2] && t[0] != t[2], ctx, code,
              "%s has a repeated node (%" PDS_INT_FMT ", %" PDS_INT_FMT ", %" PDS_INT_FMT "): degenerate triangle",
              name_tri(o, e, buf, sizeof buf), t[0], t[1], t[2]);
    det = pds_mesh_orient(xy + 2 * t[0], xy + 2 * t[1], xy + 2 * t[2], &certain);
    PDS_CHECK(certain && det != 0, ctx, code,
              "%s (nodes %" PDS_INT_FMT ", %" PDS_INT_FMT ", %" PDS_INT_FMT ") has zero area (its nodes are collinear "
              "to double precision): degenerate triangle", name_tri(o, e, buf, sizeof buf), t[0], t[1], t[2]);
    if (det < 0) { /* clockwise: flip to counter-clockwise */
      pds_int s = t[1];

      t[1] = t[2], t[2] = s;
    }
  }
  PDS_CALL(pds_mesh_node_triangles(ctx, nnodes, ntri, tri, tp, tt));
  for (pds_int i = 0; i < nnodes; i++)
    PDS_CHECK((*tp)[i + 1] > (*tp)[i], ctx, code,
              "node %" PDS_INT_FMT " is used by no triangle (a dangling node): remove it or add its triangles", i);
  PDS_CALL(check_duplicates(ctx, nnodes, tri, *tp, *tt, o));
  for (pds_int k = 0; k < nbedge; k++) {
    pds_int a = bedge[2 * k], b = bedge[2 * k + 1], found = 0;

    PDS_CHECK(a >= 0 && a < nnodes && b >= 0 && b < nnodes, ctx, code,
              "%s (%" PDS_INT_FMT ", %" PDS_INT_FMT "): node out of range [0, %" PDS_INT_FMT ")",
              name_bedge(o, k, buf, sizeof buf), a, b, nnodes);
    PDS_CHECK(a != b, ctx, code, "%s joins node %" PDS_INT_FMT " to itself", name_bedge(o, k, buf, sizeof buf), a);
    PDS_CHECK(bedge_tag[k] > 0, ctx, code, "%s has tag %" PDS_INT_FMT ": tags must be > 0",
              name_bedge(o, k, buf, sizeof buf), bedge_tag[k]);
    for (pds_size q = (*tp)[a]; q < (*tp)[a + 1] && !found; q++) {
      const pds_int *t = tri + 3 * (*tt)[q];

      found = t[0] == b || t[1] == b || t[2] == b;
    }
    PDS_CHECK(found, ctx, code, "%s (%" PDS_INT_FMT ", %" PDS_INT_FMT ") is not an edge of any triangle",
              name_bedge(o, k, buf, sizeof buf), a, b);
  }
  return PDS_OK;
}

int pds_mesh_create_owned(pds_ctx ctx, pds_int nnodes, pds_real *xy, pds_int ntri, pds_int *tri, pds_int nbedge,
                          pds_int *bedge, pds_int *bedge_tag, const pds_mesh_origin *org, pds_mesh *m) {
  pds_mesh  M  = NULL;
  pds_size *tp = NULL;
  pds_int  *tt = NULL;
  int       ierr;

  PDS_CALL_GOTO(ierr, fail, mesh_validate(ctx, nnodes, xy, ntri, tri, nbedge, bedge, bedge_tag, org, &tp, &tt));
  PDS_CALL_GOTO(ierr, fail, PDS_NEW(ctx, 1, &M));
  PDS_CALL_GOTO(ierr, fail, PDS_NEW(ctx, nnodes, &M->marker));
  M->hdr       = (struct pds_header){ctx, PDS_CLASSID_MESH, 1};
  M->nnodes    = nnodes, M->ntri = ntri, M->nbedge = nbedge;
  M->xy        = xy, M->tri = tri, M->bedge = bedge, M->bedge_tag = bedge_tag;
  xy = NULL, tri = NULL, bedge = NULL, bedge_tag = NULL;
  for (pds_int k = 0; k < nbedge; k++)
    for (int c = 0; c < 2; c++) {
      pds_int *mk = &M->marker[M->bedge[2 * k + c]];

      if (!*mk || M->bedge_tag[k] < *mk) *mk = M->bedge_tag[k];
    }
  *m   = M;
  M    = NULL;
  ierr = PDS_OK;
fail:
  if (M) pds_free(ctx, PDS_MEM_HOST, &M->marker);
  pds_free(ctx, PDS_MEM_HOST, &M);
  pds_free(ctx, PDS_MEM_HOST, &tp), pds_free(ctx, PDS_MEM_HOST, &tt);
  pds_free(ctx, PDS_MEM_HOST, &xy), pds_free(ctx, PDS_MEM_HOST, &tri);
  pds_free(ctx, PDS_MEM_HOST, &bedge), pds_free(ctx, PDS_MEM_HOST, &bedge_tag);
  return ierr;
}

int pds_mesh_create_tri(pds_ctx ctx, pds_int nnodes, const pds_real *xy, pds_int ntri, const pds_int *tri,
                        pds_int nbedge, const pds_int *bedge, const pds_int *bedge_tag, pds_mesh *m) {
  pds_real *cxy = NULL;
  pds_int  *ctri = NULL, *cbe = NULL, *ctag = NULL;
  int       ierr;

  PDS_CHECK(ctx, NULL, PDS_ERR_ARG, "context is NULL");
  PDS_CHECK(m, ctx, PDS_ERR_ARG, "output mesh pointer is NULL");
  *m = NULL;
  PDS_CHECK(nnodes >= 3 && nnodes <= MESH_MAX_NODES, ctx, PDS_ERR_ARG,
            "nnodes = %" PDS_INT_FMT " is out of range [3, %" PDS_INT_FMT "]", nnodes, MESH_MAX_NODES);
  PDS_CHECK(ntri >= 1 && ntri <= MESH_MAX_TRI, ctx, PDS_ERR_ARG,
            "ntri = %" PDS_INT_FMT " is out of range [1, %" PDS_INT_FMT "]", ntri, MESH_MAX_TRI);
  PDS_CHECK(nbedge >= 0 && nbedge <= MESH_MAX_NODES, ctx, PDS_ERR_ARG, "nbedge = %" PDS_INT_FMT " is out of range",
            nbedge);
  PDS_CHECK(xy && tri, ctx, PDS_ERR_ARG, "%s is NULL", xy ? "tri" : "xy");
  PDS_CHECK(!nbedge || (bedge && bedge_tag), ctx, PDS_ERR_ARG, "%s is NULL while nbedge = %" PDS_INT_FMT,
            bedge ? "bedge_tag" : "bedge", nbedge);
  PDS_CALL_GOTO(ierr, fail, pds_dup_array(ctx, PDS_MEM_HOST, xy, PDS_MEM_HOST, (size_t)2 * nnodes * sizeof *xy, &cxy));
  PDS_CALL_GOTO(ierr, fail, pds_dup_array(ctx, PDS_MEM_HOST, tri, PDS_MEM_HOST, (size_t)3 * ntri * sizeof *tri, &ctri));
  PDS_CALL_GOTO(ierr, fail,
                pds_dup_array(ctx, PDS_MEM_HOST, bedge, PDS_MEM_HOST, (size_t)2 * nbedge * sizeof *bedge, &cbe));
  PDS_CALL_GOTO(ierr, fail,
                pds_dup_array(ctx, PDS_MEM_HOST, bedge_tag, PDS_MEM_HOST, (size_t)nbedge * sizeof *bedge_tag, &ctag));
  return pds_mesh_create_owned(ctx, nnodes, cxy, ntri, ctri, nbedge, cbe, ctag, NULL, m);
fail:
  pds_free(ctx, PDS_MEM_HOST, &cxy), pds_free(ctx, PDS_MEM_HOST, &ctri);
  pds_free(ctx, PDS_MEM_HOST, &cbe), pds_free(ctx, PDS_MEM_HOST, &ctag);
  return ierr;
}

int pds_mesh_destroy(pds_mesh *m) {
  pds_mesh M;
  pds_ctx  ctx;

  if (!m || !*m) return PDS_OK;
  M = *m;
  PDS_VALID(M, PDS_CLASSID_MESH, "mesh");
  ctx = M->hdr.ctx;
  if (--M->hdr.refct > 0) {
    *m = NULL;
    return PDS_OK;
  }
  pds_free(ctx, PDS_MEM_HOST, &M->xy), pds_free(ctx, PDS_MEM_HOST, &M->tri);
  pds_free(ctx, PDS_MEM_HOST, &M->bedge), pds_free(ctx, PDS_MEM_HOST, &M->bedge_tag);
  pds_free(ctx, PDS_MEM_HOST, &M->marker);
  M->hdr.classid = PDS_CLASSID_FREED;
  pds_free(ctx, PDS_MEM_HOST, &M);
  *m = NULL;
  return PDS_OK;
}

int pds_mesh_get_sizes(pds_mesh m, pds_int *nnodes, pds_int *ntri, pds_int *nbedge) {
  PDS_VALID(m, PDS_CLASSID_MESH, "mesh");
  if (nnodes) *nnodes = m->nnodes;
  if (ntri) *ntri = m->ntri;
  if (nbedge) *nbedge = m->nbedge;
  return PDS_OK;
}

int pds_mesh_get_arrays(pds_mesh m, const pds_real **xy, const pds_int **tri, const pds_int **bedge,
                        const pds_int **bedge_tag, const pds_int **node_marker) {
  PDS_VALID(m, PDS_CLASSID_MESH, "mesh");
  if (xy) *xy = m->xy;
  if (tri) *tri = m->tri;
  if (bedge) *bedge = m->bedge;
  if (bedge_tag) *bedge_tag = m->bedge_tag;
  if (node_marker) *node_marker = m->marker;
  return PDS_OK;
}

/* Angles from atan2(|u x v|, u . v) at each corner; aspect = longest edge^2 sqrt(3) / (4 area), which is the
   longest edge over the shortest altitude times sqrt(3)/2 (1 for an equilateral triangle). */
int pds_mesh_quality(pds_mesh m, pds_real *min_angle_deg, pds_real *max_aspect) {
  const double rad2deg = 57.295779513082320876798154814105;
  double       amin = 180, qmax = 0;

  PDS_VALID(m, PDS_CLASSID_MESH, "mesh");
  for (pds_int e = 0; e < m->ntri; e++) {
    const double *p[3];
    double        l2max = 0, area2;

    for (int k = 0; k < 3; k++) p[k] = m->xy + 2 * m->tri[3 * e + k];
    area2 = pds_mesh_orient(p[0], p[1], p[2], NULL);
    for (int k = 0; k < 3; k++) {
      const double *a = p[k], *b = p[(k + 1) % 3], *c = p[(k + 2) % 3];
      double        ux = b[0] - a[0], uy = b[1] - a[1], vx = c[0] - a[0], vy = c[1] - a[1];
      double        ang = atan2(fabs(ux * vy - uy * vx), ux * vx + uy * vy) * rad2deg, l2 = ux * ux + uy * uy;

      if (ang < amin) amin = ang;
      if (l2 > l2max) l2max = l2;
    }
    if (l2max * 1.7320508075688772 / (2 * area2) > qmax) qmax = l2max * 1.7320508075688772 / (2 * area2);
  }
  if (min_angle_deg) *min_angle_deg = amin;
  if (max_aspect) *max_aspect = qmax;
  return PDS_OK;
}
