/* src/mesh/mesh3d_impl.h: internal layout of a 3D hybrid volume mesh, its reference cells (Gmsh's vertex, face and
   corner order) and its face topology (mesh3d_faces.c). */
#ifndef PDS_MESH3D_IMPL_H
#define PDS_MESH3D_IMPL_H

#include "mesh_impl.h"

#define PDS_CLASSID_MESH3D 0x70646d06u

/* The unique faces of the cells: triangles and quadrangles matched by their sorted vertex sets, numbered in the order
   the cells first meet them (cell by cell, local face by local face). Face f has the vertices
   nodes[ptr[f] .. ptr[f+1]) as its first cell sees them (outward from cells[2f]); cells[2f+1] is the other cell, or
   -1 for a face of one cell. */
typedef struct {
  pds_int v[4]; /* the sorted vertices; a triangle's v[0] = -1 */
  pds_int face;
} pds_mesh3d_fkey;

typedef struct {
  pds_int        nfaces, nbound; /* faces, of them with one cell */
  unsigned char *type;           /* [nfaces] 3 or 4 */
  pds_size      *ptr;            /* [nfaces + 1] */
  pds_int       *nodes;          /* [ptr[nfaces]] */
  pds_int       *cells;          /* [2 nfaces] */
  pds_size      *cface_ptr;      /* [ncells + 1]: the faces of cell c are cface[cface_ptr[c] .. cface_ptr[c+1]) */
  pds_int       *cface;          /* in the cell type's local face order */
  pds_mesh3d_fkey *keys;         /* [nfaces], sorted: for pds_mesh3d_face_find */
} pds_mesh3d_faces;

/* What the mesh computes on request and keeps (mesh3d_geom.c); NULL until asked for, dropped when the cells are
   renumbered. */
typedef struct {
  pds_real *cell_volume, *cell_centre; /* [ncells], [3 ncells] */
  pds_real *face_area, *face_centre;   /* [3 nfaces] each */
  pds_size *dual_ptr;                  /* [ncells + 1] */
  pds_int  *dual_adj;
  pds_int  *face_tag;                  /* [nfaces] */
} pds_mesh3d_derived;

struct pds_mesh3d_s {
  struct pds_header hdr;
  pds_int           nnodes, ncells, nbfaces;
  pds_real         *xyz;         /* [3 nnodes] */
  unsigned char    *cell_type;   /* [ncells]: PDS_CELL_TET, _PYRAMID, _PRISM, _HEX (its vertex count) */
  pds_size         *cell_ptr;    /* [ncells + 1] */
  pds_int          *cell_nodes;  /* [cell_ptr[ncells]], Gmsh vertex order, positive orientation */
  pds_int          *cell_tag;    /* [ncells], >= 0 */
  unsigned char    *bface_type;  /* [nbfaces] 3 or 4 */
  pds_size         *bface_ptr;   /* [nbfaces + 1] */
  pds_int          *bface_nodes; /* [bface_ptr[nbfaces]] */
  pds_int          *bface_tag;   /* [nbfaces], > 0 */
  pds_mesh3d_faces  faces;
  pds_mesh3d_derived derived;    /* geometry, dual graph, face tags: made on first request (mesh3d_geom.c) */
};

/* Where the arrays of pds_mesh3d_create_owned come from, for its messages: path (NULL: the caller's arrays) and, for a
   file, the element tag of each cell and boundary face. */
typedef struct {
  const char     *path;
  const uint64_t *cell_tag;
  const uint64_t *bface_tag;
} pds_mesh3d_origin;

/* A reference cell (Gmsh): faces (vertex lists, outward by the right-hand rule), edges, and at each vertex the three
   neighbours along edges in right-handed order (corner[v] = a, b, c: det(a - v, b - v, c - v) > 0 on the reference
   cell); a pyramid lists its four base vertices only (the apex's corner tetrahedra are the same four). */
typedef struct {
  const char   *name;
  int           nv, nfaces, nedges, ncorners;
  unsigned char face_nv[6];
  unsigned char face[6][4];
  unsigned char edge[12][2];
  unsigned char corner[8][3];
} pds_mesh3d_ref;

/* The reference cell of a type (vertex count 4, 5, 6, 8), or NULL. */
PDS_INTERN const pds_mesh3d_ref *pds_mesh3d_ref_cell(int type);

/* Build a mesh from arrays it takes (allocated with pds_malloc on ctx; freed here, also on failure): checks everything
   pds_mesh3d_create checks and builds the faces. */
PDS_INTERN int pds_mesh3d_create_owned(pds_ctx ctx, pds_int nnodes, pds_real *xyz, pds_int ncells,
                                       unsigned char *cell_type, pds_size *cell_ptr, pds_int *cell_nodes,
                                       pds_int *cell_tag, pds_int nbfaces, unsigned char *bface_type,
                                       pds_size *bface_ptr, pds_int *bface_nodes, pds_int *bface_tag,
                                       const pds_mesh3d_origin *org, pds_mesh3d *m);

/* The face topology of checked cells; a face of three or more cells is an error naming them (code: PDS_ERR_ARG or
   PDS_ERR_FORMAT). Release with pds_mesh3d_faces_free (also after a failure). */
PDS_INTERN int  pds_mesh3d_faces_build(pds_ctx ctx, pds_int ncells, const unsigned char *cell_type,
                                       const pds_size *cell_ptr, const pds_int *cell_nodes, int code,
                                       const pds_mesh3d_origin *org, pds_mesh3d_faces *f);
PDS_INTERN void pds_mesh3d_faces_free(pds_ctx ctx, pds_mesh3d_faces *f);
/* The face with the vertices v[0 .. nv) (any order), or -1. */
PDS_INTERN pds_int pds_mesh3d_face_find(const pds_mesh3d_faces *f, const pds_int *v, int nv);

/* Release what pds_mesh3d_derived holds (each array NULL after). */
PDS_INTERN void pds_mesh3d_derived_free(pds_ctx ctx, pds_mesh3d_derived *d);

/* "tetrahedron 7" or, for a file, "'path': tetrahedron (element 123)": how messages name cell c. */
PDS_INTERN const char *pds_mesh3d_name_cell(const pds_mesh3d_origin *o, pds_int c, int type, char *buf, size_t len);

#endif
