/* src/backend/ref/ref_bilu0.c: /cpu/ref's block ILU(0) group (src/precond/bilu0_kernels.h): paper 000's sequential
 * BILU, grid after grid, every point in natural order (i, then j, then k: each after the neighbours it depends on).
 * Its plan (struct s7_plan, also /cpu/omp's) holds the sweeps' copy of the factors, in float when they are stored in
 * single precision (the sums stay in double), else the double copies in sweep order: written by the factorization,
 * read by the sweeps. */
#include <string.h>

#include "../../sys/sys_impl.h"
#include "../stencil7_bodies.h"
#include "ref_impl.h"

static void bilu0_plan_destroy_host(pds_ctx ctx, void *plan) {
  struct s7_plan *P = plan;

  if (!P) return;
  pds_free(ctx, PDS_MEM_HOST, &P->fv), pds_free(ctx, PDS_MEM_HOST, &P->dvf), pds_free(ctx, PDS_MEM_HOST, &P->dvb);
  pds_free(ctx, PDS_MEM_HOST, &P);
}

static int bilu0_plan_create_host(pds_ctx ctx, const struct pds_stencil7 *g, int nb, const char *variant, int single,
                                  void **plan) {
  struct s7_plan *P;
  pds_size        np = 0;
  int             ierr;

  PDS_CHECK(!strcmp(variant, "auto"), ctx, PDS_ERR_UNSUPPORTED,
            "bilu0 variant '%s' is a /gpu/cuda variant; %s runs its own order (variant auto)", variant, ctx->backend);
  for (int q = 0; q < nb; q++) np += s7_points(&g[q]);
  PDS_CALL(PDS_NEW(ctx, 1, &P));
  P->np = np, P->n = g[0].n;
  if (single) ierr = PDS_NEW(ctx, (size_t)np * 7 * (size_t)g[0].n * (size_t)g[0].n, &P->fv);
  else if (!(ierr = PDS_NEW(ctx, (size_t)np * 4 * (size_t)g[0].n * (size_t)g[0].n, &P->dvf)))
    ierr = PDS_NEW(ctx, (size_t)np * 4 * (size_t)g[0].n * (size_t)g[0].n, &P->dvb);
  if (ierr) {
    bilu0_plan_destroy_host(ctx, P);
    return ierr;
  }
  *plan = P;
  return PDS_OK;
}

static int bilu0_factor_ref(pds_ctx ctx, void *plan, const struct pds_stencil7 *g, int nb, pds_real *dinv,
                             pds_size *bad) {
  (void)ctx;
  *bad = -1;
  for (int b = 0; b < nb && *bad < 0; b++) s7_factor_natural(&g[b], dinv, plan, bad); /* and the sweeps' copy */
  return PDS_OK;
}

static int bilu0_solve_ref(pds_ctx ctx, void *plan, const struct pds_stencil7 *g, int nb, const pds_real *dinv,
                           const pds_real *b, pds_real *x) {
  const struct s7_fac F = s7_plan_fac(plan, dinv);

  (void)ctx;
  for (int q = 0; q < nb; q++) s7_solve_natural(&g[q], &F, b, x);
  return PDS_OK;
}

void pds_ref_fill_bilu0(struct pds_bilu0_kernels *g) {
  g->plan_create  = bilu0_plan_create_host;
  g->plan_destroy = bilu0_plan_destroy_host;
  g->factor       = bilu0_factor_ref;
  g->solve        = bilu0_solve_ref;
}
