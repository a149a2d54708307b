/* src/mesh/gmsh_impl.h: what the Gmsh reader (gmsh.c) collects from a .msh file, by element type, for the builders of
   the 2D mesh (gmsh.c: triangles and tagged lines) and of the 3D mesh (mesh3d_gmsh.c: volume cells and tagged
   boundary triangles and quadrangles). */
#ifndef PDS_GMSH_IMPL_H
#define PDS_GMSH_IMPL_H

#include <stdio.h>

#include "mesh_impl.h"

/* The whole file in memory (buf[len] = '\0'), a cursor, and what the header said. */
typedef struct {
  pds_ctx     ctx;
  const char *path;
  char       *buf;
  size_t      len, pos;
  pds_size    line;   /* line of buf[pos], 1-based (ASCII files) */
  int         binary; /* errors give byte offsets */
  int         swap;   /* binary data in the other byte order */
  int         major;  /* 2 or 4 */
  int         dim;    /* what the caller reads: 2 (triangles, tagged lines) or 3 (cells, tagged triangles and quads) */
} gm_reader;

struct gm_tagidx {
  uint64_t tag;
  int64_t  idx;
};

/* Gmsh element types kept: 1 line, 2 triangle, 3 quadrangle, 4 tetrahedron, 5 hexahedron, 6 prism, 7 pyramid. */
#define GM_NKEPT 8

/* The kept elements of one type, in file order; node references are indices into the node list. */
typedef struct {
  size_t    n, cap;
  uint64_t *tag;  /* [n] element tags */
  int32_t  *node; /* [nodes of the type * n] */
  pds_int  *phys; /* [n] first physical tag (0: none) */
} gm_elems;

/* Growing arrays of what is kept. */
typedef struct {
  size_t    nn;
  uint64_t *ntag;  /* [nn] node tags */
  double   *xyz;   /* [3 nn] */
  int32_t  *map;   /* dense map tag -> node index (maxtag + 1 entries), or NULL ... */
  uint64_t  maxtag;
  struct gm_tagidx *sorted;      /* ... sorted (tag, index) pairs */
  gm_elems  el[GM_NKEPT];        /* by Gmsh type (el[0] unused) */
  struct gm_tagidx *ent_phys[4]; /* 4.1: (entity tag, its first physical tag) of each dimension, sorted */
  size_t    nent[4];
  struct gm_tagidx *pent_phys[4]; /* 4.1 partitioned files: (partitioned entity tag, its physical tag or its parent
                                     entity's), sorted; the elements of such files lie on these */
  size_t    npent[4];
  int       have_nodes, have_elements, have_ent[2];
  size_t    nuntagged; /* boundary elements (lines in 2D, triangles and quads in 3D) in no physical group (not kept) */
} gm_mesh;

/* Read path (r->ctx, r->path, r->dim set; r->line = 1) into g: every section parsed and checked, elements kept
   as r->dim says. Release with pds_gmsh_free, also on failure. */
PDS_INTERN int  pds_gmsh_collect(gm_reader *r, gm_mesh *g);
PDS_INTERN void pds_gmsh_free(gm_reader *r, gm_mesh *g);

/* Order of n element tags: perm[q].idx is the q-th smallest (stable). */
PDS_INTERN int pds_gmsh_tag_order(pds_ctx ctx, const uint64_t *tag, size_t n, struct gm_tagidx **perm);

/* MSH 2.2 ASCII writers: open path and write the header and the node count; then, after the elements, write
   $EndElements and close (PDS_ERR_IO on any failure). */
PDS_INTERN int pds_gmsh_write_begin(pds_ctx ctx, const char *path, pds_int nnodes, FILE **f);
PDS_INTERN int pds_gmsh_write_end(pds_ctx ctx, const char *path, FILE *f);

/* The q-th node by increasing tag (q < pds_gmsh_node_slots(g)), or -1 for a slot without a node. */
static inline size_t pds_gmsh_node_slots(const gm_mesh *g) { return g->map ? (size_t)g->maxtag + 1 : g->nn; }
static inline int64_t pds_gmsh_node_at(const gm_mesh *g, size_t q) { return g->map ? g->map[q] : g->sorted[q].idx; }

#endif
