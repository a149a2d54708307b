/* src/graph/pattern.c: the graph of a square sparse pattern made symmetric (the pattern of A + A^T without its
 * diagonal), for the orderings (rcm.c, color.c) of a matrix. */
#include <stdlib.h>

#include "graph.h"

static int cmp_int(const void *a, const void *b) {
  const pds_int x = *(const pds_int *)a, y = *(const pds_int *)b;

  return (x > y) - (x < y);
}

int pds_graph_of_pattern(pds_ctx ctx, pds_int n, const pds_size *rowptr, const pds_int *colidx, pds_size **ptr,
                         pds_int **adj) {
  pds_size *p = NULL, *fill = NULL, m = 0;
  pds_int  *a = NULL;
  int       ierr;

  *ptr = NULL, *adj = NULL;
  PDS_CALL_GOTO(ierr, fail, PDS_NEW(ctx, (size_t)n + 1, &p));
  PDS_CALL_GOTO(ierr, fail, PDS_NEW(ctx, (size_t)n + 1, &fill));
  for (pds_int i = 0; i < n; i++)
    for (pds_size e = rowptr[i]; e < rowptr[i + 1]; e++)
      if (colidx[e] != i) p[i + 1]++, p[colidx[e] + 1]++;
  for (pds_int i = 0; i < n; i++) p[i + 1] += p[i];
  PDS_CALL_GOTO(ierr, fail, PDS_NEW(ctx, (size_t)p[n] + 1, &a));
  for (pds_int i = 0; i < n; i++) fill[i] = p[i];
  for (pds_int i = 0; i < n; i++) /* each edge in both lists */
    for (pds_size e = rowptr[i]; e < rowptr[i + 1]; e++)
      if (colidx[e] != i) a[fill[i]++] = colidx[e], a[fill[colidx[e]]++] = i;
  for (pds_int i = 0; i < n; i++) { /* sort, drop the pairs stored twice, compact */
    const pds_size lo = p[i], hi = p[i + 1];

    qsort(a + lo, (size_t)(hi - lo), sizeof *a, cmp_int);
    p[i] = m;
    for (pds_size e = lo; e < hi; e++)
      if (e == lo || a[e] != a[e - 1]) a[m++] = a[e];
  }
  p[n] = m;
  pds_free(ctx, PDS_MEM_HOST, &fill);
  *ptr = p, *adj = a;
  return PDS_OK;
fail:
  pds_free(ctx, PDS_MEM_HOST, &p), pds_free(ctx, PDS_MEM_HOST, &fill), pds_free(ctx, PDS_MEM_HOST, &a);
  return ierr;
}
