/* src/graph/partition.c: a graph cut into parts for the ranks of a distributed matrix (src/io/mmio_dist.c): METIS's
 * multilevel k-way partitioning (an optional dependency, PDS_HAVE_METIS) minimizing the edge cut, which is the halo's
 * volume; without METIS an error says how to get it. */
#include "graph.h"

#if PDS_HAVE_METIS
#include <metis.h>
#endif

int pds_graph_partition(pds_ctx ctx, pds_int n, const pds_size *ptr, const pds_int *adj, int nparts, pds_int *part,
                        long *edgecut) {
  PDS_CHECK(nparts >= 1, ctx, PDS_ERR_ARG, "%d parts", nparts);
  *edgecut = 0;
  if (nparts == 1 || n == 0) {
    for (pds_int i = 0; i < n; i++) part[i] = 0;
    return PDS_OK;
  }
#if PDS_HAVE_METIS
  {
    idx_t  nv = n, ncon = 1, np = nparts, cut = 0, opt[METIS_NOPTIONS];
    idx_t *xadj = NULL, *ad = NULL, *pt = NULL;
    int    ierr, st;

    PDS_CHECK(ptr[n] <= (pds_size)0x7fffffff, ctx, PDS_ERR_SIZE, "the graph has %" PDS_SIZE_FMT " edges: beyond "
              "METIS's 32-bit indices", ptr[n]);
    ierr = PDS_NEW(ctx, (size_t)n + 1, &xadj);
    if (!ierr) ierr = PDS_NEW(ctx, ptr[n] + 1, &ad);
    if (!ierr) ierr = PDS_NEW(ctx, (size_t)n, &pt);
    if (!ierr) {
      for (pds_int i = 0; i <= n; i++) xadj[i] = (idx_t)ptr[i];
      for (pds_size k = 0; k < ptr[n]; k++) ad[k] = adj[k];
      METIS_SetDefaultOptions(opt);
      opt[METIS_OPTION_SEED] = 1; /* the same parts in every run */
      st = METIS_PartGraphKway(&nv, &ncon, xadj, ad, NULL, NULL, NULL, &np, NULL, NULL, opt, &cut, pt);
      if (st != METIS_OK) ierr = PDS_ERROR(ctx, st == METIS_ERROR_MEMORY ? PDS_ERR_MEM : PDS_ERR_BACKEND,
                                           "METIS_PartGraphKway failed (%d) on %" PDS_INT_FMT " nodes, %d parts", st, n,
                                           nparts);
    }
    if (!ierr) {
      for (pds_int i = 0; i < n; i++) part[i] = (pds_int)pt[i];
      *edgecut = (long)cut;
    }
    pds_free(ctx, PDS_MEM_HOST, &xadj);
    pds_free(ctx, PDS_MEM_HOST, &ad);
    pds_free(ctx, PDS_MEM_HOST, &pt);
    return ierr;
  }
#else
  (void)ptr, (void)adj;
  return PDS_ERROR(ctx, PDS_ERR_UNSUPPORTED, "partitioning by METIS: this pdesolve was built without METIS "
                   "(apt-get install libmetis-dev, then reconfigure; PDS_ENABLE_METIS)");
#endif
}
