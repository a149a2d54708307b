/* src/mesh/rcm.c: reverse Cuthill-McKee renumbering of mesh nodes (the ordering: src/graph/rcm.c). */
#include <stdlib.h>

#include "../graph/graph.h"
#include "mesh_impl.h"

int pds_mesh_reorder_rcm(pds_mesh m) {
  pds_ctx   ctx;
  pds_size *ptr = NULL;
  pds_int  *adj = NULL, *rcm = NULL, *newi = NULL, *mk = NULL, n;
  pds_real *xy = NULL;
  int       ierr;

  PDS_VALID(m, PDS_CLASSID_MESH, "mesh");
  ctx = m->hdr.ctx;
  n   = m->nnodes;
  PDS_CALL_GOTO(ierr, fail, pds_mesh_node_graph(ctx, n, m->ntri, m->tri, &ptr, &adj));
  PDS_CALL_GOTO(ierr, fail, pds_malloc(ctx, PDS_MEM_HOST, (size_t)n * sizeof *rcm, &rcm));
  PDS_CALL_GOTO(ierr, fail, pds_malloc(ctx, PDS_MEM_HOST, (size_t)n * sizeof *newi, &newi));
  PDS_CALL_GOTO(ierr, fail, pds_malloc(ctx, PDS_MEM_HOST, (size_t)n * sizeof *mk, &mk));
  PDS_CALL_GOTO(ierr, fail, pds_malloc(ctx, PDS_MEM_HOST, (size_t)2 * n * sizeof *xy, &xy));
  PDS_CALL_GOTO(ierr, fail, pds_graph_rcm(ctx, n, ptr, adj, rcm));
  for (pds_int k = 0; k < n; k++) newi[rcm[k]] = k;
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
  pds_free(ctx, PDS_MEM_HOST, &ptr), pds_free(ctx, PDS_MEM_HOST, &adj), pds_free(ctx, PDS_MEM_HOST, &rcm);
  pds_free(ctx, PDS_MEM_HOST, &newi), pds_free(ctx, PDS_MEM_HOST, &mk), pds_free(ctx, PDS_MEM_HOST, &xy);
  return ierr;
}
