/* src/backend/omp/omp_ilu0.c: /cpu/omp's ILU(0) group (src/precond/ilu0_kernels.h): level scheduling. The rows of
 * one level of the plan's schedule (ref_ilu0.c builds it from the pattern) depend only on rows of earlier levels, so
 * the threads share each level's rows (schedule static) and meet at one barrier per level; the factorization runs
 * the forward schedule (row i needs the rows k < i of its pattern factored), the backward sweep the backward one.
 * A pattern whose levels are too narrow to feed the threads (fewer than ILU0_MIN_PER_LEVEL rows per thread per level
 * on average) or too small (less work than OMP_MIN_WORK) runs ref's natural order: a barrier costs about a
 * microsecond, more than a narrow level's rows. Each row runs ilu0_bodies.h's arithmetic after the rows it depends
 * on, so the factors and the sweeps are bitwise ref's. A singular block: every row is still factored (rows after it
 * may meet non-finite values), and the first singular row in natural order is reported, which is ref's (a row
 * depends only on rows before it). */
#include "../ilu0_bodies.h"
#include "omp_impl.h"

#define ILU0_MIN_PER_LEVEL 8 /* rows per thread per level, on average, for the levels to be worth their barriers */

/* whether schedule L of plan P feeds the threads (else natural order on the calling thread) */
static int levels_parallel(const struct ilu0_plan *P, const struct ilu0_levels *L) {
  const int nt = omp_get_max_threads();

  return nt > 1 && P->work >= OMP_MIN_WORK && L->nlev > 0 && (pds_size)L->n >= (pds_size)L->nlev * nt * ILU0_MIN_PER_LEVEL;
}

static int ilu0_plan_describe_omp(pds_ctx ctx, void *plan, char *buf, size_t len) {
  const struct ilu0_plan *P = plan;
  const int               f = levels_parallel(P, &P->fwd), b = levels_parallel(P, &P->bwd);
  char                    how[160];

  snprintf(how, sizeof how, "%s on %d threads", f && b   ? "level scheduling (factorization and both sweeps)"
                                                : f      ? "level scheduling (factorization, forward sweep; the backward sweep in natural order)"
                                                : b      ? "level scheduling (backward sweep; the rest in natural order)"
                                                         : "natural order (the levels too narrow, or the matrix too small, for the threads)",
           omp_get_max_threads());
  return pds_ilu0_levels_describe(ctx, P, how, buf, len);
}

static int ilu0_factor_omp(pds_ctx ctx, void *plan, const struct pds_ilu0_factor *F, pds_real shift, pds_size *bad) {
  const struct ilu0_plan  *P = plan;
  const struct ilu0_levels *L = &P->fwd;
  pds_size                  first = -1;

  (void)ctx;
  if (!levels_parallel(P, L)) {
    for (pds_int i = 0; i < F->nbrows && first < 0; i++)
      if (ilu0_factor_row(F, i, shift)) first = i;
    *bad = first;
    return PDS_OK;
  }
#pragma omp parallel
  {
    pds_size mine = -1; /* this thread's first singular row */

    for (pds_int l = 0; l < L->nlev; l++) {
#pragma omp for schedule(static)
      for (pds_int r = L->off[l]; r < L->off[l + 1]; r++) {
        const pds_int i = L->rows[r];

        if (ilu0_factor_row(F, i, shift) && (mine < 0 || i < mine)) mine = i;
      }
    }
#pragma omp critical(pds_ilu0_bad)
    if (mine >= 0 && (first < 0 || mine < first)) first = mine;
  }
  *bad = first;
  return PDS_OK;
}

static int ilu0_solve_omp(pds_ctx ctx, void *plan, const struct pds_ilu0_factor *F, const pds_real *b, pds_real *x) {
  const struct ilu0_plan *P = plan;
  const int               pf = levels_parallel(P, &P->fwd), pb = levels_parallel(P, &P->bwd);

  (void)ctx;
  if (!pf)
    for (pds_int i = 0; i < F->nbrows; i++) ilu0_forward_row(F, i, b, x);
  if (!pb && !pf)
    for (pds_int i = F->nbrows - 1; i >= 0; i--) ilu0_backward_row(F, i, x);
  if (!pf && !pb) return PDS_OK;
#pragma omp parallel
  {
    if (pf)
      for (pds_int l = 0; l < P->fwd.nlev; l++) {
#pragma omp for schedule(static)
        for (pds_int r = P->fwd.off[l]; r < P->fwd.off[l + 1]; r++) ilu0_forward_row(F, P->fwd.rows[r], b, x);
      }
    if (!pb) {
#pragma omp single
      for (pds_int i = F->nbrows - 1; i >= 0; i--) ilu0_backward_row(F, i, x);
    } else
      for (pds_int l = 0; l < P->bwd.nlev; l++) {
#pragma omp for schedule(static)
        for (pds_int r = P->bwd.off[l]; r < P->bwd.off[l + 1]; r++) ilu0_backward_row(F, P->bwd.rows[r], x);
      }
  }
  return PDS_OK;
}

static int ilu0_permute_omp(pds_ctx ctx, pds_int nb, int bs, const pds_int *perm, int scatter, const pds_real *x,
                            pds_real *y) {
  (void)ctx;
  OMP_PARTS((pds_size)nb, i0, i1, ilu0_permute_range(bs, perm, scatter, x, y, i0, i1));
  return PDS_OK;
}

void pds_omp_fill_ilu0(struct pds_ilu0_kernels *g) {
  g->factor  = ilu0_factor_omp;
  g->solve   = ilu0_solve_omp;
  g->permute = ilu0_permute_omp;
  g->plan_describe = ilu0_plan_describe_omp;
}
