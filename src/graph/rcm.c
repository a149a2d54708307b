/* src/graph/rcm.c: reverse Cuthill-McKee ordering of a graph (pseudo-peripheral start, BFS by degree, reversed). */
#include "graph.h"

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

int pds_graph_rcm(pds_ctx ctx, pds_int n, const pds_size *ptr, const pds_int *adj, pds_int *rcm) {
  pds_int       *order = NULL, *queue = NULL, *stamp = NULL, cnt = 0, tag = 0;
  unsigned char *done = NULL;
  int            ierr;

  PDS_CALL_GOTO(ierr, fail, pds_malloc(ctx, PDS_MEM_HOST, (size_t)n * sizeof *order + 1, &order));
  PDS_CALL_GOTO(ierr, fail, pds_malloc(ctx, PDS_MEM_HOST, (size_t)n * sizeof *queue + 1, &queue));
  PDS_CALL_GOTO(ierr, fail, PDS_NEW(ctx, n, &stamp));
  PDS_CALL_GOTO(ierr, fail, PDS_NEW(ctx, n, &done));
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
  for (pds_int k = 0; k < n; k++) rcm[k] = order[n - 1 - k]; /* reversed */
  ierr = PDS_OK;
fail:
  pds_free(ctx, PDS_MEM_HOST, &order), pds_free(ctx, PDS_MEM_HOST, &queue), pds_free(ctx, PDS_MEM_HOST, &stamp);
  pds_free(ctx, PDS_MEM_HOST, &done);
  return ierr;
}
