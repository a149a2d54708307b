/* src/mesh/mesh3d.c: 3D hybrid volume mesh object (tetrahedra, pyramids, prisms, hexahedra): validated creation (indices,
   orientation by corner tetrahedra, faces of at most two cells, boundary faces on cells), access. */
#include <stdio.h>
#include <stdlib.h>

#include "mesh3d_impl.h"

#define MESH3D_MAX ((pds_int)(PDS_INT_MAX / 8)) /* keeps 8 ncells and 3 nnodes in pds_int arithmetic safe */
#define MESH3D_TOL 1e-12                        /* a corner's volume over the cube of the cell's longest edge */

const char *pds_mesh3d_name_cell(const pds_mesh3d_origin *o, pds_int c, int type, char *buf, size_t len) {
  const pds_mesh3d_ref *R = pds_mesh3d_ref_cell(type);

  if (o && o->cell_tag)
    snprintf(buf, len, "'%s': %s (element %" PRIu64 ")", o->path, R ? R->name : "cell", o->cell_tag[c]);
  else snprintf(buf, len, "cell %" PDS_INT_FMT " (%s)", c, R ? R->name : "cell");
  return buf;
}

static const char *name_bface(const pds_mesh3d_origin *o, pds_int k, int nv, char *buf, size_t len) {
  const char *what = nv == 3 ? "triangle" : "quadrangle";

  if (o && o->bface_tag) snprintf(buf, len, "'%s': boundary %s (element %" PRIu64 ")", o->path, what, o->bface_tag[k]);
  else snprintf(buf, len, "boundary face %" PDS_INT_FMT " (%s)", k, what);
  return buf;
}

static double det3(const double *a, const double *b, const double *c, const double *o) {
  double u[3], v[3], w[3];

  for (int d = 0; d < 3; d++) u[d] = a[d] - o[d], v[d] = b[d] - o[d], w[d] = c[d] - o[d];
  return u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0]) + u[2] * (v[0] * w[1] - v[1] * w[0]);
}

/* Cell c: vertices in range and distinct, every corner tetrahedron positive relative to the cell's size. */
static int check_cell(pds_ctx ctx, pds_int nnodes, const pds_real *xyz, pds_int c, int type, const pds_int *cn,
                      int code, const pds_mesh3d_origin *o) {
  const pds_mesh3d_ref *R = pds_mesh3d_ref_cell(type);
  char                  buf[200];
  double                l2 = 0;

  for (int k = 0; k < R->nv; k++) {
    PDS_CHECK(cn[k] >= 0 && cn[k] < nnodes, ctx, code, "%s: node %" PDS_INT_FMT " is out of range [0, %" PDS_INT_FMT ")",
              pds_mesh3d_name_cell(o, c, type, buf, sizeof buf), cn[k], nnodes);
    for (int j = 0; j < k; j++)
      PDS_CHECK(cn[j] != cn[k], ctx, code, "%s has node %" PDS_INT_FMT " twice (vertices %d and %d): degenerate cell",
                pds_mesh3d_name_cell(o, c, type, buf, sizeof buf), cn[k], j, k);
  }
  for (int e = 0; e < R->nedges; e++) {
    const double *a = xyz + 3 * cn[R->edge[e][0]], *b = xyz + 3 * cn[R->edge[e][1]];
    double        d2 = (a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]);

    if (d2 > l2) l2 = d2;
  }
  for (int v = 0; v < R->ncorners; v++) {
    const unsigned char *n   = R->corner[v];
    double               det = det3(xyz + 3 * cn[n[0]], xyz + 3 * cn[n[1]], xyz + 3 * cn[n[2]], xyz + 3 * cn[v]);
    double               rel = det / (l2 * sqrt(l2));

    PDS_CHECK(rel > MESH3D_TOL, ctx, code,
              "%s is %s: the corner at its vertex %d (node %" PDS_INT_FMT ") has signed volume %.3g (%.3g of the cube "
              "of its longest edge, must be > %g)%s", pds_mesh3d_name_cell(o, c, type, buf, sizeof buf),
              det < 0 ? "inverted" : "degenerate (zero volume)", v, cn[v], det, rel, MESH3D_TOL,
              det < 0 ? ": its vertices are not in Gmsh's order (positive orientation); it is not re-oriented" : "");
  }
  return PDS_OK;
}

/* All checks but the faces; errors PDS_ERR_ARG for the caller's arrays, PDS_ERR_FORMAT for a file's. */
static int mesh3d_validate(pds_ctx ctx, pds_int nnodes, const pds_real *xyz, pds_int ncells,
                           const unsigned char *cell_type, const pds_size *cell_ptr, const pds_int *cell_nodes,
                           const pds_int *cell_tag, const pds_mesh3d_origin *o) {
  int       code = o && o->path ? PDS_ERR_FORMAT : PDS_ERR_ARG;
  pds_int  *used = NULL;
  char      buf[200];
  int       ierr = PDS_OK;

  for (pds_int i = 0; i < nnodes; i++)
    PDS_CHECK(isfinite(xyz[3 * i]) && isfinite(xyz[3 * i + 1]) && isfinite(xyz[3 * i + 2]), ctx, code,
              "node %" PDS_INT_FMT " has a coordinate that is not finite (%g, %g, %g)", i, xyz[3 * i], xyz[3 * i + 1],
              xyz[3 * i + 2]);
  for (pds_int c = 0; c < ncells; c++) {
    PDS_CHECK(pds_mesh3d_ref_cell(cell_type[c]) && cell_ptr[c + 1] - cell_ptr[c] == cell_type[c], ctx, code,
              "cell %" PDS_INT_FMT " has type %d: the types are 4 (tetrahedron), 5 (pyramid), 6 (prism) and 8 "
              "(hexahedron)", c, cell_type[c]);
    PDS_CHECK(cell_tag[c] >= 0, ctx, code, "%s has tag %" PDS_INT_FMT ": cell tags must be >= 0",
              pds_mesh3d_name_cell(o, c, cell_type[c], buf, sizeof buf), cell_tag[c]);
    PDS_CALL(check_cell(ctx, nnodes, xyz, c, cell_type[c], cell_nodes + cell_ptr[c], code, o));
  }
  PDS_CALL(PDS_NEW(ctx, nnodes ? nnodes : 1, &used));
  for (pds_size k = 0; k < cell_ptr[ncells]; k++) used[cell_nodes[k]] = 1;
  for (pds_int i = 0; i < nnodes && !ierr; i++)
    if (!used[i])
      ierr = PDS_ERROR(ctx, code, "node %" PDS_INT_FMT " is used by no cell (a dangling node): remove it or add its "
                       "cells", i);
  pds_free(ctx, PDS_MEM_HOST, &used);
  return ierr;
}

/* Boundary faces: type 3 or 4, nodes in range, tag > 0, a face of some cell. */
static int check_bfaces(pds_ctx ctx, pds_int nnodes, const pds_mesh3d_faces *f, pds_int nb, const unsigned char *bt,
                        const pds_size *bp, const pds_int *bn, const pds_int *btag, const pds_mesh3d_origin *o) {
  int  code = o && o->path ? PDS_ERR_FORMAT : PDS_ERR_ARG;
  char buf[200];

  for (pds_int k = 0; k < nb; k++) {
    const pds_int *v = bn + bp[k];

    PDS_CHECK((bt[k] == 3 || bt[k] == 4) && bp[k + 1] - bp[k] == bt[k], ctx, code,
              "boundary face %" PDS_INT_FMT " has type %d: boundary faces are 3 (triangle) or 4 (quadrangle)", k, bt[k]);
    for (int i = 0; i < bt[k]; i++)
      PDS_CHECK(v[i] >= 0 && v[i] < nnodes, ctx, code, "%s: node %" PDS_INT_FMT " is out of range [0, %" PDS_INT_FMT
                ")", name_bface(o, k, bt[k], buf, sizeof buf), v[i], nnodes);
    PDS_CHECK(btag[k] > 0, ctx, code, "%s has tag %" PDS_INT_FMT ": tags must be > 0",
              name_bface(o, k, bt[k], buf, sizeof buf), btag[k]);
    PDS_CHECK(pds_mesh3d_face_find(f, v, bt[k]) >= 0, ctx, code,
              "%s (nodes %" PDS_INT_FMT ", %" PDS_INT_FMT ", %" PDS_INT_FMT "%s%.0" PDS_INT_FMT ") is not a face of any "
              "cell", name_bface(o, k, bt[k], buf, sizeof buf), v[0], v[1], v[2], bt[k] == 4 ? ", " : "",
              bt[k] == 4 ? v[3] : 0);
  }
  return PDS_OK;
}

int pds_mesh3d_create_owned(pds_ctx ctx, pds_int nnodes, pds_real *xyz, pds_int ncells, unsigned char *cell_type,
                            pds_size *cell_ptr, pds_int *cell_nodes, pds_int *cell_tag, pds_int nbfaces,
                            unsigned char *bface_type, pds_size *bface_ptr, pds_int *bface_nodes, pds_int *bface_tag,
                            const pds_mesh3d_origin *org, pds_mesh3d *m) {
  pds_mesh3d       M = NULL;
  pds_mesh3d_faces f = {0};
  int              code = org && org->path ? PDS_ERR_FORMAT : PDS_ERR_ARG, ierr;

  PDS_CALL_GOTO(ierr, fail, mesh3d_validate(ctx, nnodes, xyz, ncells, cell_type, cell_ptr, cell_nodes, cell_tag, org));
  PDS_CALL_GOTO(ierr, fail, pds_mesh3d_faces_build(ctx, ncells, cell_type, cell_ptr, cell_nodes, code, org, &f));
  PDS_CALL_GOTO(ierr, fail,
                check_bfaces(ctx, nnodes, &f, nbfaces, bface_type, bface_ptr, bface_nodes, bface_tag, org));
  PDS_CALL_GOTO(ierr, fail, PDS_NEW(ctx, 1, &M));
  M->hdr        = (struct pds_header){ctx, PDS_CLASSID_MESH3D, 1};
  M->nnodes     = nnodes, M->ncells = ncells, M->nbfaces = nbfaces;
  M->xyz        = xyz, M->cell_type = cell_type, M->cell_ptr = cell_ptr, M->cell_nodes = cell_nodes;
  M->cell_tag   = cell_tag, M->bface_type = bface_type, M->bface_ptr = bface_ptr, M->bface_nodes = bface_nodes;
  M->bface_tag  = bface_tag;
  M->faces      = f;
  *m            = M;
  return PDS_OK;
fail:
  pds_mesh3d_faces_free(ctx, &f);
  pds_free(ctx, PDS_MEM_HOST, &xyz), pds_free(ctx, PDS_MEM_HOST, &cell_type), pds_free(ctx, PDS_MEM_HOST, &cell_ptr);
  pds_free(ctx, PDS_MEM_HOST, &cell_nodes), pds_free(ctx, PDS_MEM_HOST, &cell_tag);
  pds_free(ctx, PDS_MEM_HOST, &bface_type), pds_free(ctx, PDS_MEM_HOST, &bface_ptr);
  pds_free(ctx, PDS_MEM_HOST, &bface_nodes), pds_free(ctx, PDS_MEM_HOST, &bface_tag);
  return ierr;
}

/* Offsets of concatenated lists of sizes n[0 .. count) (each checked by the caller's rule) into a new array. */
static int make_ptr(pds_ctx ctx, pds_int count, const unsigned char *n, pds_size **ptr) {
  PDS_CALL(PDS_NEW(ctx, (size_t)count + 1, ptr));
  for (pds_int k = 0; k < count; k++) (*ptr)[k + 1] = (*ptr)[k] + n[k];
  return PDS_OK;
}

int pds_mesh3d_create(pds_ctx ctx, pds_int nnodes, const pds_real *xyz, pds_int ncells, const unsigned char *cell_type,
                      const pds_int *cell_nodes, const pds_int *cell_tag, pds_int nbfaces,
                      const unsigned char *bface_type, const pds_int *bface_nodes, const pds_int *bface_tag,
                      pds_mesh3d *m) {
  pds_real      *cxyz = NULL;
  unsigned char *ct = NULL, *bt = NULL;
  pds_size      *cp = NULL, *bp = NULL;
  pds_int       *cn = NULL, *ctag = NULL, *bn = NULL, *btag = NULL;
  int            ierr;

  PDS_CHECK(ctx, NULL, PDS_ERR_ARG, "context is NULL");
  PDS_CHECK(m, ctx, PDS_ERR_ARG, "output mesh pointer is NULL");
  *m = NULL;
  PDS_CHECK(nnodes >= 4 && nnodes <= MESH3D_MAX, ctx, PDS_ERR_ARG,
            "nnodes = %" PDS_INT_FMT " is out of range [4, %" PDS_INT_FMT "]", nnodes, MESH3D_MAX);
  PDS_CHECK(ncells >= 1 && ncells <= MESH3D_MAX, ctx, PDS_ERR_ARG,
            "ncells = %" PDS_INT_FMT " is out of range [1, %" PDS_INT_FMT "]", ncells, MESH3D_MAX);
  PDS_CHECK(nbfaces >= 0 && nbfaces <= MESH3D_MAX, ctx, PDS_ERR_ARG, "nbfaces = %" PDS_INT_FMT " is out of range",
            nbfaces);
  PDS_CHECK(xyz && cell_type && cell_nodes, ctx, PDS_ERR_ARG, "%s is NULL",
            !xyz ? "xyz" : !cell_type ? "cell_type" : "cell_nodes");
  PDS_CHECK(!nbfaces || (bface_type && bface_nodes && bface_tag), ctx, PDS_ERR_ARG, "%s is NULL while nbfaces = %"
            PDS_INT_FMT, !bface_type ? "bface_type" : !bface_nodes ? "bface_nodes" : "bface_tag", nbfaces);
  for (pds_int c = 0; c < ncells; c++)
    PDS_CHECK(pds_mesh3d_ref_cell(cell_type[c]), ctx, PDS_ERR_ARG, "cell %" PDS_INT_FMT " has type %d: the types are "
              "4 (tetrahedron), 5 (pyramid), 6 (prism) and 8 (hexahedron)", c, cell_type[c]);
  for (pds_int k = 0; k < nbfaces; k++)
    PDS_CHECK(bface_type[k] == 3 || bface_type[k] == 4, ctx, PDS_ERR_ARG, "boundary face %" PDS_INT_FMT " has type "
              "%d: boundary faces are 3 (triangle) or 4 (quadrangle)", k, bface_type[k]);
  PDS_CALL_GOTO(ierr, fail, make_ptr(ctx, ncells, cell_type, &cp));
  PDS_CALL_GOTO(ierr, fail, make_ptr(ctx, nbfaces, bface_type, &bp));
  PDS_CALL_GOTO(ierr, fail, pds_dup_array(ctx, PDS_MEM_HOST, xyz, PDS_MEM_HOST, (size_t)3 * nnodes * sizeof *xyz, &cxyz));
  PDS_CALL_GOTO(ierr, fail, pds_dup_array(ctx, PDS_MEM_HOST, cell_type, PDS_MEM_HOST, (size_t)ncells, &ct));
  PDS_CALL_GOTO(ierr, fail, pds_dup_array(ctx, PDS_MEM_HOST, cell_nodes, PDS_MEM_HOST,
                                          (size_t)cp[ncells] * sizeof *cell_nodes, &cn));
  PDS_CALL_GOTO(ierr, fail, PDS_NEW(ctx, ncells, &ctag));
  if (cell_tag) memcpy(ctag, cell_tag, (size_t)ncells * sizeof *ctag);
  PDS_CALL_GOTO(ierr, fail, pds_dup_array(ctx, PDS_MEM_HOST, bface_type, PDS_MEM_HOST, (size_t)nbfaces, &bt));
  PDS_CALL_GOTO(ierr, fail, pds_dup_array(ctx, PDS_MEM_HOST, bface_nodes, PDS_MEM_HOST,
                                          (size_t)bp[nbfaces] * sizeof *bface_nodes, &bn));
  PDS_CALL_GOTO(ierr, fail, pds_dup_array(ctx, PDS_MEM_HOST, bface_tag, PDS_MEM_HOST,
                                          (size_t)nbfaces * sizeof *bface_tag, &btag));
  return pds_mesh3d_create_owned(ctx, nnodes, cxyz, ncells, ct, cp, cn, ctag, nbfaces, bt, bp, bn, btag, NULL, m);
fail:
  pds_free(ctx, PDS_MEM_HOST, &cxyz), pds_free(ctx, PDS_MEM_HOST, &ct), pds_free(ctx, PDS_MEM_HOST, &bt);
  pds_free(ctx, PDS_MEM_HOST, &cp), pds_free(ctx, PDS_MEM_HOST, &bp), pds_free(ctx, PDS_MEM_HOST, &cn);
  pds_free(ctx, PDS_MEM_HOST, &ctag), pds_free(ctx, PDS_MEM_HOST, &bn), pds_free(ctx, PDS_MEM_HOST, &btag);
  return ierr;
}

int pds_mesh3d_destroy(pds_mesh3d *m) {
  pds_mesh3d M;
  pds_ctx    ctx;

  if (!m || !*m) return PDS_OK;
  M = *m;
  PDS_VALID(M, PDS_CLASSID_MESH3D, "mesh3d");
  ctx = M->hdr.ctx;
  if (--M->hdr.refct > 0) {
    *m = NULL;
    return PDS_OK;
  }
  pds_mesh3d_faces_free(ctx, &M->faces);
  pds_mesh3d_derived_free(ctx, &M->derived);
  pds_free(ctx, PDS_MEM_HOST, &M->xyz), pds_free(ctx, PDS_MEM_HOST, &M->cell_type);
  pds_free(ctx, PDS_MEM_HOST, &M->cell_ptr), pds_free(ctx, PDS_MEM_HOST, &M->cell_nodes);
  pds_free(ctx, PDS_MEM_HOST, &M->cell_tag), pds_free(ctx, PDS_MEM_HOST, &M->bface_type);
  pds_free(ctx, PDS_MEM_HOST, &M->bface_ptr), pds_free(ctx, PDS_MEM_HOST, &M->bface_nodes);
  pds_free(ctx, PDS_MEM_HOST, &M->bface_tag);
  M->hdr.classid = PDS_CLASSID_FREED;
  pds_free(ctx, PDS_MEM_HOST, &M);
  *m = NULL;
  return PDS_OK;
}

int pds_mesh3d_get_sizes(pds_mesh3d m, pds_int *nnodes, pds_int *ncells, pds_int *nbfaces) {
  PDS_VALID(m, PDS_CLASSID_MESH3D, "mesh3d");
  if (nnodes) *nnodes = m->nnodes;
  if (ncells) *ncells = m->ncells;
  if (nbfaces) *nbfaces = m->nbfaces;
  return PDS_OK;
}

int pds_mesh3d_get_arrays(pds_mesh3d m, const pds_real **xyz, const unsigned char **cell_type, const pds_size **cell_ptr,
                          const pds_int **cell_nodes, const pds_int **cell_tag, const unsigned char **bface_type,
                          const pds_size **bface_ptr, const pds_int **bface_nodes, const pds_int **bface_tag) {
  PDS_VALID(m, PDS_CLASSID_MESH3D, "mesh3d");
  if (xyz) *xyz = m->xyz;
  if (cell_type) *cell_type = m->cell_type;
  if (cell_ptr) *cell_ptr = m->cell_ptr;
  if (cell_nodes) *cell_nodes = m->cell_nodes;
  if (cell_tag) *cell_tag = m->cell_tag;
  if (bface_type) *bface_type = m->bface_type;
  if (bface_ptr) *bface_ptr = m->bface_ptr;
  if (bface_nodes) *bface_nodes = m->bface_nodes;
  if (bface_tag) *bface_tag = m->bface_tag;
  return PDS_OK;
}

int pds_mesh3d_count(pds_mesh3d m, int type, pds_int *n) {
  PDS_VALID(m, PDS_CLASSID_MESH3D, "mesh3d");
  PDS_CHECK(n, m->hdr.ctx, PDS_ERR_ARG, "n is NULL");
  PDS_CHECK(!type || pds_mesh3d_ref_cell(type), m->hdr.ctx, PDS_ERR_ARG, "type %d is not a cell type (0 for all, 4 "
            "tetrahedron, 5 pyramid, 6 prism, 8 hexahedron)", type);
  *n = 0;
  for (pds_int c = 0; c < m->ncells; c++) *n += !type || m->cell_type[c] == type;
  return PDS_OK;
}

int pds_mesh3d_get_faces(pds_mesh3d m, pds_int *nfaces, pds_int *nbound, const unsigned char **face_type,
                         const pds_size **face_ptr, const pds_int **face_nodes, const pds_int **face_cells,
                         const pds_size **cface_ptr, const pds_int **cell_faces) {
  PDS_VALID(m, PDS_CLASSID_MESH3D, "mesh3d");
  if (nfaces) *nfaces = m->faces.nfaces;
  if (nbound) *nbound = m->faces.nbound;
  if (face_type) *face_type = m->faces.type;
  if (face_ptr) *face_ptr = m->faces.ptr;
  if (face_nodes) *face_nodes = m->faces.nodes;
  if (face_cells) *face_cells = m->faces.cells;
  if (cface_ptr) *cface_ptr = m->faces.cface_ptr;
  if (cell_faces) *cell_faces = m->faces.cface;
  return PDS_OK;
}
