/* src/graph/color.c: greedy colouring of a graph (each node in index order takes the smallest colour none of its
 * already coloured neighbours has): a proper colouring with at most max degree + 1 colours, deterministic. */
#include "graph.h"

int pds_graph_color(pds_ctx ctx, pds_int n, const pds_size *ptr, const pds_int *adj, pds_int *color,
                    pds_int *ncolors) {
  pds_int *seen = NULL; /* seen[c] == i + 1: colour c is taken by a neighbour of node i */
  pds_size maxdeg = 0;
  int      ierr;

  for (pds_int i = 0; i < n; i++)
    if (ptr[i + 1] - ptr[i] > maxdeg) maxdeg = ptr[i + 1] - ptr[i];
  PDS_CALL(PDS_NEW(ctx, (size_t)maxdeg + 2, &seen));
  *ncolors = 0;
  for (pds_int i = 0; i < n; i++) color[i] = -1;
  for (pds_int i = 0; i < n; i++) {
    pds_int c = 0;

    for (pds_size p = ptr[i]; p < ptr[i + 1]; p++)
      if (adj[p] != i && color[adj[p]] >= 0) seen[color[adj[p]]] = i + 1;
    while (seen[c] == i + 1) c++;
    color[i] = c;
    if (c + 1 > *ncolors) *ncolors = c + 1;
  }
  ierr = PDS_OK;
  pds_free(ctx, PDS_MEM_HOST, &seen);
  return ierr;
}
