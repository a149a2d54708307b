/* src/backend/cuda/cuda_patches.c: /gpu/cuda's patches group (src/mat/patches_kernels.h): y = alpha A x + beta y and
 * r = b - A x on a patch set with a constant 7-point stencil, and geometric multigrid's transfers between a patch set
 * and its factor-2 coarsening (restriction by sums of 8 fine cells, prolongation piecewise constant or trilinear).
 * The slots check what they can on the host (the sets' host geometry: no device read, nothing to wait for, so they
 * run inside a device loop's stream capture) and launch the kernels of cuda_patches.cu, which give /cpu/ref's bits. */
#include "cuda_impl.h"

static int patches_apply_cuda(pds_ctx ctx, const struct pds_patches *P, pds_real alpha, const pds_real *x,
                              pds_real beta, pds_real *y) {
  PDS_CHECK(P && P->np >= 1, ctx, PDS_ERR_ARG, "patches.apply: a patch set of at least one patch is needed");
  LAUNCH(ctx, pds_cuda_patches_apply(s_, P, alpha, x, beta, y));
}

static int patches_residual_cuda(pds_ctx ctx, const struct pds_patches *P, const pds_real *x, const pds_real *b,
                                 pds_real *r) {
  PDS_CHECK(P && P->np >= 1, ctx, PDS_ERR_ARG, "patches.residual: a patch set of at least one patch is needed");
  LAUNCH(ctx, pds_cuda_patches_residual(s_, P, x, b, r));
}

/* Pc must be Pf coarsened by 2: as many patches, each of half the size (host geometry) */
static int check_coarse(pds_ctx ctx, const struct pds_patches *Pf, const struct pds_patches *Pc, const char *what) {
  PDS_CHECK(Pf && Pc && Pf->np >= 1, ctx, PDS_ERR_ARG, "%s: two patch sets are needed", what);
  PDS_CHECK(Pf->np == Pc->np, ctx, PDS_ERR_SIZE, "%s: the fine set has %d patches and the coarse one %d (patch q of "
            "the coarse set must cover patch q of the fine set)", what, Pf->np, Pc->np);
  if (Pf->hgeom && Pc->hgeom)
    for (int q = 0; q < Pf->np; q++)
      for (int d = 0; d < 3; d++)
        PDS_CHECK(Pf->hgeom[q].n[d] == 2 * Pc->hgeom[q].n[d], ctx, PDS_ERR_SIZE,
                  "%s: patch %d has %d cells along axis %d in the fine set and %d in the coarse one (not half)", what,
                  q, (int)Pf->hgeom[q].n[d], d, (int)Pc->hgeom[q].n[d]);
  return PDS_OK;
}

static int patches_restrict_cuda(pds_ctx ctx, const struct pds_patches *Pf, const struct pds_patches *Pc,
                                 pds_real scale, const pds_real *rf, pds_real *rc) {
  PDS_CALL(check_coarse(ctx, Pf, Pc, "patches.restrict_sum"));
  LAUNCH(ctx, pds_cuda_patches_restrict(s_, Pf, Pc, scale, rf, rc));
}

static int patches_prolong_cuda(pds_ctx ctx, const struct pds_patches *Pc, const struct pds_patches *Pf, int trilinear,
                                const pds_real *ec, pds_real *uf) {
  PDS_CALL(check_coarse(ctx, Pf, Pc, "patches.prolong"));
  LAUNCH(ctx, pds_cuda_patches_prolong(s_, Pc, Pf, trilinear, ec, uf));
}

void pds_cuda_fill_patches(struct pds_patches_kernels *g) {
  g->apply        = patches_apply_cuda;
  g->residual     = patches_residual_cuda;
  g->restrict_sum = patches_restrict_cuda;
  g->prolong      = patches_prolong_cuda;
}
