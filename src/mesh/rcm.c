/* src/mesh/rcm.c: reverse Cuthill-McKee renumbering of mesh nodes (pseudo-peripheral start, BFS by degree, reversed). */
#include <stdlib.h>

#include "mesh_impl.h"

/* Breadth-first levels from root over the nodes not yet numbered (done[i] == 0): queue holds the nodes in BFS
   order; returns the number reached and sets *depth (the eccentricity) and *last (index in queue where the last
   level starts). stamp marks visits with the value tag. */
static pds_int rcm_bfs(const pds_size *ptr, const pds_int *adj, const unsigned char *done, pds_int *stamp, pds_int tag,
                       pds_int root, pds_int *queue, pds_int *depth, pds_int *last) {
  pds_int head = 0, tail = 0, lev = 0, levend;

  queue[tail++] = root, stamp[root] = tag;
  *last = 0, levend = tail;
  while (head < tail) {
    pds_int i = queue[head++];

    for (pds_size k = ptr[i]; k < ptr[i + 1]; k++) {
      pds_int j = adj[k];

      if (!done[j] && stamp[j] != tag) stamp[j] = tag, queue[tail++] = j;
    }
    if (head == levend && head < tail) *last = head, lev++, levend = tail;
  }
  *depth = lev;
  return tail;
}

int pds_mesh_reorder_rcm(pds_mesh m) {
  pds_ctx        ctx;
  pds_size      *ptr = NULL;
  pds_int       *adj = NULL, *order = NULL, *queue = NULL, *stamp = NULL, *newi = NULL, *mk = NULL, n, cnt = 0,
                 tag = 0;
  pds_real      *xy = NULL;
  unsigned char *done = NULL;
  int            ierr;

  PDS_VALID(m, PDS_CLASSID_MESH, "mesh");
  ctx = m->hdr.ctx;
  n   = m->nnodes;
  PDS_CALL_GOTO(ierr, fail, pds_mesh_node_graph(ctx, n, m->ntri, m->tri, &ptr, &adj));
  PDS_CALL_GOTO(ierr, fail, pds_malloc(ctx, PDS_MEM_HOST, (size_t)n * sizeof *order, &order));
  PDS_CALL_GOTO(ierr, fail, pds_malloc(ctx, PDS_MEM_HOST, (size_t)n * sizeof *queue, &queue));
  PDS_CALL_GOTO(ierr, fail, PDS_NEW(ctx, n, &stamp));
  PDS_CALL_GOTO(ierr, fail, PDS_NEW(ctx, n, &done));
  PDS_CALL_GOTO(ierr, fail, pds_malloc(ctx, PDS_MEM_HOST, (size_t)n * sizeof *newi, &newi));
  PDS_CALL_GOTO(ierr, fail, pds_malloc(ctx, PDS_MEM_HOST, (size_t)n * sizeof *mk, &mk));
  PDS_CALL_GOTO(ierr, fail, pds_malloc(ctx, PDS_MEM_HOST, (size_t)2 * n * sizeof *xy, &xy));
  for (pds_int start = 0; start < n; start++) {
    pds_int root = start, depth, last, reached, head;

    if (done[start]) continue;
    /* pseudo-peripheral root (George and Liu): move to a smallest-degree node of the last BFS level while the
       eccentricity grows */
    reached = rcm_bfs(ptr, adj, done, stamp, ++tag, root, queue, &depth, &last);
    for (;;) {
      pds_int best = queue[last], d2, l2;

      for (pds_int q = last + 1; q < reached; q++) {
        pds_int c = queue[q];

        if (ptr[c + 1] - ptr[c] < ptr[best + 1] - ptr[best] || (ptr[c + 1] - ptr[c] == ptr[best + 1] - ptr[best] &&
                                                                  c < best))
          best = c;
      }
      rcm_bfs(ptr, adj, done, stamp, ++tag, best, queue, &d2, &l2);
      if (d2 <= depth) break;
      root = best, depth = d2, last = l2;
    }
    /* Cuthill-McKee from root: unnumbered neighbours in order of increasing degree (then index) */
    head = cnt;
    order[cnt++] = root, done[root] = 1;
    while (head < cnt) {
      pds_int i = order[head++], first = cnt;

      for (pds_size k = ptr[i]; k < ptr[i + 1]; k++) {
        pds_int j = adj[k], q;

        if (done[j]) continue;
        done[j] = 1;
        for (q = cnt; q > first; q--) {
          pds_int o = order[q - 1];

          if (ptr[o + 1] - ptr[o] < ptr[j + 1] - ptr[j] || (ptr[o + 1] - ptr[o] == ptr[j + 1] - ptr[j] && o < j)) break;
          order[q] = o;
        }
        order[q] = j;
        cnt++;
      }
    }
  }
  for (pds_int k = 0; k < n; k++) newi[order[n - 1 - k]] = k; /* reversed */
  for (pds_int i = 0; i < n; i++) {
    xy[2 * newi[i]] = m->xy[2 * i], xy[2 * newi[i] + 1] = m->xy[2 * i + 1];
    mk[newi[i]]     = m->marker[i];
  }
  for (pds_size k = 0; k < (pds_size)3 * m->ntri; k++) m->tri[k] = newi[m->tri[k]];
  for (pds_size k = 0; k < (pds_size)2 * m->nbedge; k++) m->bedge[k] = newi[m->bedge[k]];
  pds_free(ctx, PDS_MEM_HOST, &m->xy), pds_free(ctx, PDS_MEM_HOST, &m->marker);
  m->xy = xy, m->marker = mk, xy = NULL, mk = NULL;
  ierr = PDS_OK;
fail:
  pds_free(ctx, PDS_MEM_HOST, &ptr), pds_free(ctx, PDS_MEM_HOST, &adj), pds_free(ctx, PDS_MEM_HOST, &order);
  pds_free(ctx, PDS_MEM_HOST, &queue), pds_free(ctx, PDS_MEM_HOST, &stamp), pds_free(ctx, PDS_MEM_HOST, &done);
  pds_free(ctx, PDS_MEM_HOST, &newi), pds_free(ctx, PDS_MEM_HOST, &mk), pds_free(ctx, PDS_MEM_HOST, &xy);
  return ierr;
}
