/* src/mesh/mesh_impl.h: internal layout of a 2D triangle mesh and the helpers shared by src/mesh/. */
#ifndef PDS_MESH_IMPL_H
#define PDS_MESH_IMPL_H

#include <math.h>

#include "../sys/sys_impl.h"

struct pds_mesh_s {
  struct pds_header hdr;
  pds_int           nnodes, ntri, nbedge;
  pds_real         *xy;        /* [2 nnodes] */
  pds_int          *tri;       /* [3 ntri], counter-clockwise */
  pds_int          *bedge;     /* [2 nbedge] */
  pds_int          *bedge_tag; /* [nbedge], > 0 */
  pds_int          *marker;    /* [nnodes]: 0 interior, else the smallest tag of the boundary edges at the node */
};

/* Where the arrays of pds_mesh_create_owned come from, for its messages: path (NULL: arrays given by the
   caller) and, for a file, the element tag of each triangle and line (NULL: numbered from 0). */
typedef struct {
  const char     *path;
  const uint64_t *tri_tag;
  const uint64_t *bedge_tag;
} pds_mesh_origin;

/* Build a mesh from arrays it takes (allocated with pds_malloc on ctx; freed here, also on failure): checks
   everything pds_mesh_create_tri checks, flips clockwise triangles, computes the node markers. */
PDS_INTERN int pds_mesh_create_owned(pds_ctx ctx, pds_int nnodes, pds_real *xy, pds_int ntri, pds_int *tri,
                                     pds_int nbedge, pds_int *bedge, pds_int *bedge_tag, const pds_mesh_origin *org,
                                     pds_mesh *m);

/* Node -> triangle incidence: the triangles at node i are tris[ptr[i] .. ptr[i+1]). */
PDS_INTERN int pds_mesh_node_triangles(pds_ctx ctx, pds_int nnodes, pds_int ntri, const pds_int *tri, pds_size **ptr,
                                       pds_int **tris);

/* Node -> node adjacency through triangle edges (sorted, no self): neighbours of i are adj[ptr[i] .. ptr[i+1]). */
PDS_INTERN int pds_mesh_node_graph(pds_ctx ctx, pds_int nnodes, pds_int ntri, const pds_int *tri, pds_size **ptr,
                                   pds_int **adj);

/* Twice the signed area of (a, b, c) (> 0 counter-clockwise) and whether its sign is certain in double
   precision (Shewchuk's first error bound on the orientation determinant). */
static inline double pds_mesh_orient(const double *a, const double *b, const double *c, int *certain) {
  double l = (a[0] - c[0]) * (b[1] - c[1]), r = (a[1] - c[1]) * (b[0] - c[0]), det = l - r;

  if (certain) *certain = fabs(det) > 3.3306690738754716e-16 * (fabs(l) + fabs(r));
  return det;
}

#endif
