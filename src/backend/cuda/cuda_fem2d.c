/* src/backend/cuda/cuda_fem2d.c: /gpu/cuda's P1 assembly group (src/disc/disc_kernels.h; kernels in cuda_fem2d.cu). */
#include "cuda_impl.h"

/* ---- P1 assembly (cuda_fem2d.cu) ----------------------------------------------------------------------------- */
static int fem2d_element_cuda(pds_ctx ctx, const struct pds_fem2d_maps *m, const pds_real *xy, pds_real k,
                              const pds_real *kv, pds_real f, const pds_real *fm, pds_real *Ke, pds_real *fe,
                              pds_int *bad) {
  struct cuda_be    *be = pds_cuda_enter(ctx);
  pds_cuda_fem2d_cfg cfg;
  unsigned long long b = 0;

  *bad = -1;
  if (m->ntri <= 0) return PDS_OK;
  pds_cuda_fem2d_auto(m->n, m->nnz, &cfg);
  PDS_CUDA_CALL(ctx, pds_cuda_fem2d_element(be->stream, &cfg, m->ntri, m->tri, xy, k, kv, f, fm, Ke, fe, be->dstat));
  PDS_CALL(pds_cuda_fetch_stats(ctx, be, 1, &b));
  if (b < (unsigned long long)m->ntri) *bad = (pds_int)b;
  return PDS_OK;
}

static int fem2d_gather_cuda(pds_ctx ctx, const struct pds_fem2d_maps *m, const pds_real *Ke, const pds_real *fe,
                             const unsigned char *isd, const pds_real *g, pds_real gc, int symmetric, pds_real *vals,
                             pds_real *b) {
  pds_cuda_fem2d_cfg cfg;

  if (m->n <= 0) return PDS_OK;
  pds_cuda_fem2d_auto(m->n, m->nnz, &cfg);
  LAUNCH(ctx, pds_cuda_fem2d_gather(s_, &cfg, m->n, m->rowptr, m->colidx, m->gptr, m->gidx, Ke, m->nptr, m->nidx, fe,
                                    isd, g, gc, symmetric, vals, b));
}

void pds_cuda_fill_fem2d(struct pds_fem2d_kernels *g) {
  g->element = fem2d_element_cuda;
  g->gather  = fem2d_gather_cuda;
}
