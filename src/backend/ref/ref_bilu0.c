/* src/backend/ref/ref_bilu0.c: /cpu/ref's block ILU(0) group (src/precond/bilu0_kernels.h): paper 000's sequential
 * BILU, every point in natural order (i, then j, then k: each point after the neighbours it depends on). */
#include "../stencil7_bodies.h"
#include "ref_impl.h"

static int bilu0_factor_ref(pds_ctx ctx, const struct pds_stencil7 *A, pds_real *dinv, pds_size *bad) {
  (void)ctx;
  s7_factor_natural(A, dinv, bad);
  return PDS_OK;
}

static int bilu0_solve_ref(pds_ctx ctx, const struct pds_stencil7 *A, const pds_real *dinv, const pds_real *b,
                           pds_real *x) {
  (void)ctx;
  s7_solve_natural(A, dinv, b, x);
  return PDS_OK;
}

void pds_ref_fill_bilu0(struct pds_bilu0_kernels *g) {
  g->factor = bilu0_factor_ref;
  g->solve  = bilu0_solve_ref;
}
