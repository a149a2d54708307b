/* src/backend/omp/omp_patches.c: /cpu/omp's patches group (src/mat/patches_kernels.h): each kernel's output
 * unknowns cut statically over the threads (OMP_PARTS: on the calling thread below OMP_MIN_N), each thread walking
 * its range row segment by row segment with patches_bodies.h's per-cell arithmetic, so the bits are ref's for any
 * thread count; a thread's range may start and end inside a patch, which balances sets of unequal patches. Byte
 * and flop models: as ref's (ref_patches.c), per output unknown. */
#include <omp.h>

#include "../patches_bodies.h"
#include "omp_impl.h"

/* y = alpha A x + beta y: 16-24 bytes and 14-16 flops per cell (ref_patches.c) */
static int patches_apply_omp(pds_ctx ctx, const struct pds_patches *P, pds_real alpha, const pds_real *x,
                             pds_real beta, pds_real *y) {
  (void)ctx;
  OMP_PARTS(P->ncells, c0, c1, pb_sums_range(P, alpha, x, beta, NULL, y, c0, c1));
  return PDS_OK;
}

/* r = b - A x: 24 bytes and 14 flops per cell */
static int patches_residual_omp(pds_ctx ctx, const struct pds_patches *P, const pds_real *x, const pds_real *b,
                                pds_real *r) {
  (void)ctx;
  OMP_PARTS(P->ncells, c0, c1, pb_sums_range(P, 0, x, 0, b, r, c0, c1));
  return PDS_OK;
}

/* rc = scale * (sum of 8 fine cells): 72 bytes and 9 flops per coarse cell, cut over the coarse cells */
static int patches_restrict_omp(pds_ctx ctx, const struct pds_patches *Pf, const struct pds_patches *Pc,
                                pds_real scale, const pds_real *rf, pds_real *rc) {
  PDS_CHECK(Pf->np == Pc->np, ctx, PDS_ERR_SIZE, "restriction from %d patches to %d: not a coarsening", Pf->np, Pc->np);
  OMP_PARTS(Pc->ncells, c0, c1, pb_restrict_range(Pf, Pc, scale, rf, rc, c0, c1));
  return PDS_OK;
}

/* uf += P ec: about 17 bytes and 1 or 16 flops per fine cell, cut over the fine cells */
static int patches_prolong_omp(pds_ctx ctx, const struct pds_patches *Pc, const struct pds_patches *Pf,
                               int trilinear, const pds_real *ec, pds_real *uf) {
  PDS_CHECK(Pf->np == Pc->np, ctx, PDS_ERR_SIZE, "prolongation from %d patches to %d: not a coarsening", Pc->np,
            Pf->np);
  OMP_PARTS(Pf->ncells, c0, c1, pb_prolong_range(Pc, Pf, trilinear, ec, uf, c0, c1));
  return PDS_OK;
}

void pds_omp_fill_patches(struct pds_patches_kernels *g) {
  g->apply        = patches_apply_omp;
  g->residual     = patches_residual_omp;
  g->restrict_sum = patches_restrict_omp;
  g->prolong      = patches_prolong_omp;
}
