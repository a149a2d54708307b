/* src/backend/ref/ref_patches.c: /cpu/ref's patches group (src/mat/patches_kernels.h): the 7-point product and
 * residual of a patch set and the factor-2 transfers of geometric multigrid, each over all its output unknowns in
 * order, cell by cell with patches_bodies.h's arithmetic (which /cpu/omp runs too: the same bits). */
#include "../patches_bodies.h"
#include "ref_impl.h"

/* y = alpha A x + beta y. Bytes per cell: 8 (x_p) + 8 (y write; + 8 read when beta != 0) + the six neighbours,
   which hit cache except about one plane's worth (so about 16-24 bytes from memory per cell), + 4 per face cell
   (ghost map); flops: 13 (7 products, 6 sums) + 1 (alpha s) + 2 when beta != 0. */
static int patches_apply_ref(pds_ctx ctx, const struct pds_patches *P, pds_real alpha, const pds_real *x,
                             pds_real beta, pds_real *y) {
  (void)ctx;
  pb_sums_range(P, alpha, x, beta, NULL, y, 0, P->ncells);
  return PDS_OK;
}

/* r = b - A x. Bytes per cell: 8 (x_p) + 8 (b) + 8 (r) + ghost map on faces; flops: 14. */
static int patches_residual_ref(pds_ctx ctx, const struct pds_patches *P, const pds_real *x, const pds_real *b,
                                pds_real *r) {
  (void)ctx;
  pb_sums_range(P, 0, x, 0, b, r, 0, P->ncells);
  return PDS_OK;
}

/* rc = scale * (sum of the 8 fine cells). Bytes per coarse cell: 64 (rf) + 8 (rc); flops: 9 (8 sums, 1 product). */
static int patches_restrict_ref(pds_ctx ctx, const struct pds_patches *Pf, const struct pds_patches *Pc,
                                pds_real scale, const pds_real *rf, pds_real *rc) {
  PDS_CHECK(Pf->np == Pc->np, ctx, PDS_ERR_SIZE, "restriction from %d patches to %d: not a coarsening", Pf->np, Pc->np);
  pb_restrict_range(Pf, Pc, scale, rf, rc, 0, Pc->ncells);
  return PDS_OK;
}

/* uf += P ec. Bytes per fine cell: 16 (uf read and write) + 8 coarse reads (1 for constant), all cache hits but
   about 1/8 of a value per fine cell from memory; flops: 1 (constant) or 16 (trilinear: 4 products, 12 sums, the
   reflections' negations not counted). */
static int patches_prolong_ref(pds_ctx ctx, const struct pds_patches *Pc, const struct pds_patches *Pf,
                               int trilinear, const pds_real *ec, pds_real *uf) {
  PDS_CHECK(Pf->np == Pc->np, ctx, PDS_ERR_SIZE, "prolongation from %d patches to %d: not a coarsening", Pc->np,
            Pf->np);
  pb_prolong_range(Pc, Pf, trilinear, ec, uf, 0, Pf->ncells);
  return PDS_OK;
}

void pds_ref_fill_patches(struct pds_patches_kernels *g) {
  g->apply        = patches_apply_ref;
  g->residual     = patches_residual_ref;
  g->restrict_sum = patches_restrict_ref;
  g->prolong      = patches_prolong_ref;
}
