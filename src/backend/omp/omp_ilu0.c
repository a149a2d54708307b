/* src/backend/omp/omp_ilu0.c: /cpu/omp's ILU(0) group (src/precond/ilu0_kernels.h): ref's natural order or level
 * scheduling, whichever measures faster. Level scheduling: the rows of one level of the plan's schedule (ref_ilu0.c
 * builds it from the pattern) depend only on rows of earlier levels, so the threads share each level's rows
 * (schedule static) and meet at one barrier per level; the factorization runs the forward schedule, the backward
 * sweep the backward one. It pays a barrier per level and visits the rows of a level scattered through memory, where
 * natural order streams: on this project's 2-core AMD EPYC machine it was 2.2-2.5x slower than natural order on
 * poisson7 64^3 and 100^3, on the GPU machine's 16-core Xeon about as fast (docs/ilu0.md). So a pattern whose levels
 * can feed the threads (at least ILU0_MIN_PER_LEVEL rows per thread per level on average, and OMP_MIN_WORK of work)
 * is run once each way, timed, per phase (the first two factorizations, the first two applications), and the faster
 * is kept; any other pattern runs natural order. PDS_OMP_ILU0=natural or levels in the environment forces one (tests,
 * measurements). Both give ref's bits (each row runs ilu0_bodies.h's arithmetic after the rows it depends on), so
 * the choice changes the time, never the results. A singular block: every row is still factored (rows after it may
 * meet non-finite values), and the first singular row in natural order is reported, which is ref's (a row depends
 * only on rows before it). */
#include <stdlib.h>
#include <string.h>

#include "../ilu0_bodies.h"
#include "omp_impl.h"

#define ILU0_MIN_PER_LEVEL 8 /* rows per thread per level, on average, for the levels to be worth their barriers */

/* whether schedule L of plan P can feed the threads */
static int levels_parallel(const struct ilu0_plan *P, const struct ilu0_levels *L) {
  const int nt = omp_get_max_threads();

  return nt > 1 && P->work >= OMP_MIN_WORK && L->nlev > 0 && (pds_size)L->n >= (pds_size)L->nlev * nt * ILU0_MIN_PER_LEVEL;
}

/* whether phase ph (0 factorization: the forward schedule; 1 application: both) may run by levels */
static int eligible(const struct ilu0_plan *P, int ph) {
  return levels_parallel(P, &P->fwd) && (ph == 0 || levels_parallel(P, &P->bwd));
}

enum { CH_NONE = 0, CH_NATURAL = 1, CH_LEVELS = 2 };

/* how phase ph runs now: forced by the environment, natural when the levels cannot feed the threads, the choice once
   made, else natural then levels (the trial); *trial: time this run */
static int pick(const struct ilu0_plan *P, int ph, int *trial) {
  const char *f = getenv("PDS_OMP_ILU0");

  *trial = 0;
  if (f && !strcmp(f, "natural")) return CH_NATURAL;
  if (f && !strcmp(f, "levels")) return omp_get_max_threads() > 1 && P->fwd.nlev > 0 ? CH_LEVELS : CH_NATURAL;
  if (!eligible(P, ph)) return CH_NATURAL;
  if (P->choice[ph]) return P->choice[ph];
  *trial = 1;
  return P->t_nat[ph] == 0 ? CH_NATURAL : CH_LEVELS;
}

/* a trial's time: the second one decides */
static void record(struct ilu0_plan *P, int ph, int ch, double t) {
  if (ch == CH_NATURAL) P->t_nat[ph] = t > 0 ? t : 1e-12;
  else {
    P->t_lev[ph]  = t > 0 ? t : 1e-12;
    P->choice[ph] = P->t_lev[ph] < P->t_nat[ph] ? CH_LEVELS : CH_NATURAL;
  }
}

static int ilu0_plan_describe_omp(pds_ctx ctx, void *plan, char *buf, size_t len) {
  const struct ilu0_plan *P = plan;
  static const char *const ph[2] = {"factorization", "application"};
  char                     how[240];
  int                      k = 0;

  for (int i = 0; i < 2; i++) {
    const char *what = !eligible(P, i) ? "natural order (levels too narrow for the threads)"
                       : P->choice[i] == CH_LEVELS  ? "levels"
                       : P->choice[i] == CH_NATURAL ? "natural order"
                                                    : "to be timed both ways";

    k += snprintf(how + k, sizeof how - (size_t)k, "%s%s %s", i ? "; " : "", ph[i], what);
    if (P->choice[i] && k < (int)sizeof how)
      k += snprintf(how + k, sizeof how - (size_t)k, " (natural %.3g ms, levels %.3g ms)", P->t_nat[i] * 1e3,
                    P->t_lev[i] * 1e3);
    if (k >= (int)sizeof how) break;
  }
  if (k < (int)sizeof how) snprintf(how + k, sizeof how - (size_t)k, ", %d threads", omp_get_max_threads());
  return pds_ilu0_levels_describe(ctx, P, how, buf, len);
}

/* the factorization row by row, each row copied into the sweeps' layout (struct ilu0_plan: lo, up) while in cache */
static void factor_natural(const struct ilu0_plan *P, const struct pds_ilu0_factor *F, pds_real shift, pds_size *first) {
  for (pds_int i = 0; i < F->nbrows && *first < 0; i++)
    if (ilu0_factor_row(F, i, shift)) *first = i;
    else pds_ilu0_split_fill(P, F, i, i + 1);
}

static void factor_levels(const struct ilu0_plan *P, const struct ilu0_levels *L, const struct pds_ilu0_factor *F,
                          pds_real shift, pds_size *first) {
#pragma omp parallel
  {
    pds_size mine = -1; /* this thread's first singular row */

    for (pds_int l = 0; l < L->nlev; l++) {
#pragma omp for schedule(static)
      for (pds_int r = L->off[l]; r < L->off[l + 1]; r++) {
        const pds_int i = L->rows[r];

        if (ilu0_factor_row(F, i, shift)) {
          if (mine < 0 || i < mine) mine = i;
        } else pds_ilu0_split_fill(P, F, i, i + 1);
      }
    }
#pragma omp critical(pds_ilu0_bad)
    if (mine >= 0 && (*first < 0 || mine < *first)) *first = mine;
  }
}

static int ilu0_factor_omp(pds_ctx ctx, void *plan, const struct pds_ilu0_factor *F, pds_real shift, pds_size *bad) {
  struct ilu0_plan *P = plan;
  int               trial;
  const int         ch = pick(P, 0, &trial);
  const double      t0 = trial ? omp_get_wtime() : 0;

  (void)ctx;
  *bad = -1;
  if (ch == CH_LEVELS) factor_levels(P, &P->fwd, F, shift, bad);
  else factor_natural(P, F, shift, bad);
  if (trial) record(P, 0, ch, omp_get_wtime() - t0);
  return PDS_OK;
}

/* one sweep over schedule L (0 forward, 1 backward) of the factor view F inside a parallel region */
static void sweep_levels(const struct ilu0_levels *L, const struct pds_ilu0_factor *F, int backward, const pds_real *b,
                         pds_real *x) {
  const int t = omp_get_thread_num(), nt = omp_get_num_threads();

  for (pds_int l = 0; l < L->nlev; l++) { /* each thread its static part of the level, then the level's barrier */
    pds_size i0, i1;

    static_range((pds_size)(L->off[l + 1] - L->off[l]), t, nt, &i0, &i1);
    ilu0_sweep_list(F, backward, L->rows + L->off[l], (pds_int)i0, (pds_int)i1, backward ? x : b, x, x);
#pragma omp barrier
  }
}

static int ilu0_solve_omp(pds_ctx ctx, void *plan, const struct pds_ilu0_factor *F, const pds_real *b, pds_real *x) {
  struct ilu0_plan *P = plan;
  int               trial;
  const int         ch = pick(P, 1, &trial);
  const double      t0 = trial ? omp_get_wtime() : 0;

  (void)ctx, (void)F; /* the factor's sweep copy, P->lo and P->up */
  if (ch == CH_LEVELS) {
#pragma omp parallel
    {
      sweep_levels(&P->fwd, &P->lo, 0, b, x);
      sweep_levels(&P->bwd, &P->up, 1, b, x);
    }
  } else {
    ilu0_sweep_list(&P->lo, 0, NULL, 0, P->lo.nbrows, b, x, x);
    ilu0_sweep_list(&P->up, 1, NULL, 0, P->up.nbrows, x, x, x);
  }
  if (trial) record(P, 1, ch, omp_get_wtime() - t0);
  return PDS_OK;
}

/* the approximate variants' sweeps: every row independent, split among the threads */
static int ilu0_jacobi_omp(pds_ctx ctx, const struct pds_ilu0_factor *F, int backward, const pds_real *b,
                           const pds_real *x, pds_real *y) {
  (void)ctx;
  OMP_PARTS((pds_size)F->nbrows, i0, i1, {
    ilu0_sweep_list(F, backward, NULL, (pds_int)i0, (pds_int)i1, b, x, y);
  });
  return PDS_OK;
}

static int ilu0_chow_omp(pds_ctx ctx, const struct pds_ilu0_factor *F, const pds_real *a, pds_real shift, pds_real *g,
                         pds_size *bad) {
  pds_size first = -1;

  (void)ctx;
#pragma omp parallel
  {
    pds_size mine = -1;

#pragma omp for schedule(static)
    for (pds_int i = 0; i < F->nbrows; i++)
      if (ilu0_chow_row(F, i, a, shift, g) && mine < 0) mine = i;
#pragma omp critical(pds_ilu0_bad)
    if (mine >= 0 && (first < 0 || mine < first)) first = mine;
  }
  *bad = first;
  return PDS_OK;
}

void pds_omp_fill_ilu0(struct pds_ilu0_kernels *g) {
  g->factor  = ilu0_factor_omp;
  g->solve   = ilu0_solve_omp;
  g->jacobi  = ilu0_jacobi_omp;
  g->chow    = ilu0_chow_omp;
  g->plan_describe = ilu0_plan_describe_omp;
}
