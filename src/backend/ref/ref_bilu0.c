/* src/backend/ref/ref_bilu0.c: /cpu/ref's block ILU(0) group (src/precond/bilu0_kernels.h): paper 000's sequential
 * BILU, grid after grid, every point in natural order (i, then j, then k: each after the neighbours it depends on). */
#include "../stencil7_bodies.h"
#include "ref_impl.h"

static int bilu0_factor_ref(pds_ctx ctx, void *plan, const struct pds_stencil7 *g, int nb, pds_real *dinv,
                             pds_size *bad) {
  (void)ctx, (void)plan;
  *bad = -1;
  for (int b = 0; b < nb && *bad < 0; b++) s7_factor_natural(&g[b], dinv, bad);
  return PDS_OK;
}

static int bilu0_solve_ref(pds_ctx ctx, void *plan, const struct pds_stencil7 *g, int nb, const pds_real *dinv,
                           const pds_real *b, pds_real *x) {
  (void)ctx, (void)plan;
  for (int q = 0; q < nb; q++) s7_solve_natural(&g[q], dinv, b, x);
  return PDS_OK;
}

void pds_ref_fill_bilu0(struct pds_bilu0_kernels *g) {
  g->factor = bilu0_factor_ref;
  g->solve  = bilu0_solve_ref;
}
