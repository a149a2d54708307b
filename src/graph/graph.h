/* src/graph/graph.h: orderings of sparse graphs, shared by the meshes (node renumbering, src/mesh/rcm.c) and the
 * matrices (the orderings of ilu0, src/precond/ilu0.c). A graph of n nodes is its adjacency in CSR form: the
 * neighbours of node i are adj[ptr[i] .. ptr[i + 1] - 1] (undirected: each edge in both lists; a self loop is
 * ignored by the orderings, but counts in a node's degree). */
#ifndef PDS_GRAPH_H
#define PDS_GRAPH_H

#include "../sys/sys_impl.h"

/* the graph of a square pattern (rowptr[n + 1], colidx) made symmetric, A + A^T without the diagonal: new *ptr and
   *adj (host), each list ascending */
PDS_INTERN int pds_graph_of_pattern(pds_ctx ctx, pds_int n, const pds_size *rowptr, const pds_int *colidx,
                                    pds_size **ptr, pds_int **adj);
/* reverse Cuthill-McKee: order[k] = the node numbered k (each connected component from a pseudo-peripheral node,
   George and Liu; neighbours by increasing degree, then index; the whole order reversed) */
PDS_INTERN int pds_graph_rcm(pds_ctx ctx, pds_int n, const pds_size *ptr, const pds_int *adj, pds_int *order);

/* greedy colouring in index order: color[i] in [0, *ncolors), neighbours never share one */
PDS_INTERN int pds_graph_color(pds_ctx ctx, pds_int n, const pds_size *ptr, const pds_int *adj, pds_int *color,
                               pds_int *ncolors);

/* the nodes cut into nparts parts (part[i] in [0, nparts)) with few edges between parts, by METIS (k-way, a fixed
   seed: the same parts in every run); *edgecut: the edges cut. PDS_ERR_UNSUPPORTED in a build without METIS. */
PDS_INTERN int pds_graph_partition(pds_ctx ctx, pds_int n, const pds_size *ptr, const pds_int *adj, int nparts,
                                   pds_int *part, long *edgecut);

#endif
