/* src/backend/ref/ref_ilu0.c: /cpu/ref's ILU(0) group (src/precond/ilu0_kernels.h): the factorization and the sweeps
 * row after row in natural order. Its plan (struct ilu0_plan, also /cpu/omp's) holds the pattern's level schedules:
 * ref does not need them, but -view reports their depth (what a parallel backend's sweeps cost) and /cpu/omp runs
 * them. */
#include <string.h>

#include "../../sys/sys_impl.h"
#include "../ilu0_bodies.h"
#include "ref_impl.h"

/* one schedule: the level of each row from its dependencies (backward: the rows after it), then the rows by level */
int pds_ilu0_levels_build(pds_ctx ctx, const struct pds_ilu0_factor *F, int backward, struct ilu0_levels *L) {
  const pds_int n = F->nbrows;
  pds_int      *lev = NULL;
  int           ierr;

  L->n = n, L->nlev = 0;
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)n + 1, &lev));
  for (pds_int s = 0; s < n; s++) {
    const pds_int  i  = backward ? n - 1 - s : s;
    const pds_size p0 = backward ? F->diag[i] + 1 : F->rowptr[i], p1 = backward ? F->rowptr[i + 1] : F->diag[i];
    pds_int        l  = 0;

    for (pds_size p = p0; p < p1; p++)
      if (lev[F->colidx[p]] + 1 > l) l = lev[F->colidx[p]] + 1;
    lev[i] = l;
    if (l + 1 > L->nlev) L->nlev = l + 1;
  }
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)L->nlev + 1, &L->off));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)n + 1, &L->rows));
  for (pds_int i = 0; i < n; i++) L->off[lev[i] + 1]++;
  for (pds_int l = 0; l < L->nlev; l++) L->off[l + 1] += L->off[l];
  for (pds_int i = 0; i < n; i++) L->rows[L->off[lev[i]]++] = i; /* off[l] moves to the end of level l */
  for (pds_int l = L->nlev; l > 0; l--) L->off[l] = L->off[l - 1];
  L->off[0] = 0;
done:
  pds_free(ctx, PDS_MEM_HOST, &lev);
  return ierr;
}

void pds_ilu0_levels_free(pds_ctx ctx, struct ilu0_levels *L) {
  pds_free(ctx, PDS_MEM_HOST, &L->off), pds_free(ctx, PDS_MEM_HOST, &L->rows);
}

int pds_ilu0_split_create(pds_ctx ctx, const struct pds_ilu0_factor *H, struct ilu0_plan *P) {
  const pds_int n  = H->nbrows;
  const size_t  b2 = (size_t)H->bs * H->bs;
  pds_size      nl = 0, nu = 0;

  for (pds_int i = 0; i < n; i++) nl += H->diag[i] - H->rowptr[i], nu += H->rowptr[i + 1] - H->diag[i];
  P->lo.nbrows = P->up.nbrows = n, P->lo.bs = P->up.bs = H->bs, P->lo.nnzb = nl, P->up.nnzb = nu;
  PDS_CALL(PDS_NEW(ctx, (size_t)n + 2, &P->lo.rowptr));
  PDS_CALL(PDS_NEW(ctx, (size_t)nl + 1, &P->lo.colidx));
  PDS_CALL(PDS_NEW(ctx, (size_t)nl * b2 + 1, &P->lo.vals));
  PDS_CALL(PDS_NEW(ctx, (size_t)n + 1, &P->up.rowptr));
  PDS_CALL(PDS_NEW(ctx, (size_t)n + 1, &P->up.diag));
  PDS_CALL(PDS_NEW(ctx, (size_t)nu + 1, &P->up.colidx));
  PDS_CALL(PDS_NEW(ctx, (size_t)nu * b2 + 1, &P->up.vals));
  P->lo.diag = P->lo.rowptr + 1;
  /* the values' pages touched now, in the analysis: else the first factorization pays their faults (and /cpu/omp's
     timed choice, whose first trial it is, would see it) */
  memset(P->lo.vals, 0, ((size_t)nl * b2 + 1) * sizeof *P->lo.vals);
  memset(P->up.vals, 0, ((size_t)nu * b2 + 1) * sizeof *P->up.vals);
  for (pds_int i = 0; i < n; i++) { /* L: rows ascending */
    const pds_size c = H->diag[i] - H->rowptr[i];

    P->lo.rowptr[i + 1] = P->lo.rowptr[i] + c;
    memcpy(P->lo.colidx + P->lo.rowptr[i], H->colidx + H->rowptr[i], c * sizeof *H->colidx);
  }
  for (pds_size q = 0, r = 0; r < (pds_size)n; r++) { /* D and U: rows descending */
    const pds_int  i = n - 1 - (pds_int)r;
    const pds_size c = H->rowptr[i + 1] - H->diag[i];

    P->up.diag[i] = q, P->up.rowptr[i + 1] = q + c;
    memcpy(P->up.colidx + q, H->colidx + H->diag[i], c * sizeof *H->colidx);
    q += c;
  }
  return PDS_OK;
}

void pds_ilu0_split_fill(const struct ilu0_plan *P, const struct pds_ilu0_factor *F, pds_int i0, pds_int i1) {
  const size_t b2 = (size_t)F->bs * F->bs;

  if (!P->lo.vals) return; /* a plan for the factorization alone (approx-jacobi) */
  for (pds_int i = i0; i < i1; i++) {
    memcpy(P->lo.vals + P->lo.rowptr[i] * b2, F->vals + F->rowptr[i] * b2,
           (F->diag[i] - F->rowptr[i]) * b2 * sizeof *F->vals);
    memcpy(P->up.vals + P->up.diag[i] * b2, F->vals + F->diag[i] * b2,
           (F->rowptr[i + 1] - F->diag[i]) * b2 * sizeof *F->vals);
  }
}

static void ilu0_plan_destroy_host(pds_ctx ctx, void *plan) {
  struct ilu0_plan *P = plan;

  if (!P) return;
  pds_ilu0_levels_free(ctx, &P->fwd), pds_ilu0_levels_free(ctx, &P->bwd);
  pds_free(ctx, PDS_MEM_HOST, &P->lo.rowptr), pds_free(ctx, PDS_MEM_HOST, &P->lo.colidx);
  pds_free(ctx, PDS_MEM_HOST, &P->lo.vals), pds_free(ctx, PDS_MEM_HOST, &P->up.rowptr);
  pds_free(ctx, PDS_MEM_HOST, &P->up.diag), pds_free(ctx, PDS_MEM_HOST, &P->up.colidx);
  pds_free(ctx, PDS_MEM_HOST, &P->up.vals);
  pds_free(ctx, PDS_MEM_HOST, &P);
}

static int ilu0_plan_create_host(pds_ctx ctx, const struct pds_ilu0_factor *F, const char *variant, int sweeps,
                                  void **plan) {
  struct ilu0_plan *P = NULL;
  int               ierr;

  PDS_CHECK(strcmp(variant, "levels") && strcmp(variant, "syncfree"), ctx, PDS_ERR_UNSUPPORTED,
            "ilu0 variant '%s' is a /gpu/cuda variant; %s runs its own order (variant auto)", variant, ctx->backend);
  PDS_CHECK(!strcmp(variant, "auto"), ctx, PDS_ERR_ARG,
            "ilu0 variant '%s' is not one of %s's: auto (natural order on /cpu/ref, natural or level scheduling on "
            "/cpu/omp), approx-jacobi, approx-chow", variant, ctx->backend);
  PDS_CALL(PDS_NEW(ctx, 1, &P));
  P->work = (F->nnzb + (pds_size)F->nbrows) * (pds_size)F->bs * F->bs;
  if ((ierr = pds_ilu0_levels_build(ctx, F, 0, &P->fwd)) || (ierr = pds_ilu0_levels_build(ctx, F, 1, &P->bwd)) ||
      (sweeps && (ierr = pds_ilu0_split_create(ctx, F, P)))) { /* the sweeps' copy: only for the exact sweeps */
    ilu0_plan_destroy_host(ctx, P);
    return ierr;
  }
  *plan = P;
  return PDS_OK;
}

int pds_ilu0_levels_describe(pds_ctx ctx, const struct ilu0_plan *P, const char *how, char *buf, size_t len) {
  snprintf(buf, len, "%s ilu0: %s; the pattern's level schedules have %" PDS_INT_FMT " (forward) and %" PDS_INT_FMT
           " (backward) levels, %.1f and %.1f rows a level", ctx->backend, how, P->fwd.nlev, P->bwd.nlev,
           P->fwd.nlev ? (double)P->fwd.n / P->fwd.nlev : 0.0, P->bwd.nlev ? (double)P->bwd.n / P->bwd.nlev : 0.0);
  return PDS_OK;
}

static int ilu0_plan_describe_host(pds_ctx ctx, void *plan, char *buf, size_t len) {
  const struct ilu0_plan *P = plan;

  return pds_ilu0_levels_describe(ctx, P, "natural order", buf, len);
}

static int ilu0_factor_ref(pds_ctx ctx, void *plan, const struct pds_ilu0_factor *F, pds_real shift, pds_size *bad) {
  (void)ctx;
  *bad = -1;
  for (pds_int i = 0; i < F->nbrows; i++) {
    if (ilu0_factor_row(F, i, shift)) {
      *bad = i;
      break;
    }
    pds_ilu0_split_fill(plan, F, i, i + 1); /* the row into the sweeps' copy while it is in cache */
  }
  return PDS_OK;
}

static int ilu0_solve_ref(pds_ctx ctx, void *plan, const struct pds_ilu0_factor *F, const pds_real *b, pds_real *x) {
  const struct ilu0_plan *P = plan;

  (void)ctx, (void)F; /* the factor's sweep copy */
  ilu0_sweep_list(&P->lo, 0, NULL, 0, P->lo.nbrows, b, x, x);
  ilu0_sweep_list(&P->up, 1, NULL, 0, P->up.nbrows, x, x, x);
  return PDS_OK;
}

static int ilu0_jacobi_ref(pds_ctx ctx, const struct pds_ilu0_factor *F, int backward, const pds_real *b,
                           const pds_real *x, pds_real *y) {
  (void)ctx;
  ilu0_sweep_list(F, backward, NULL, 0, F->nbrows, b, x, y);
  return PDS_OK;
}

static int ilu0_chow_ref(pds_ctx ctx, const struct pds_ilu0_factor *F, const pds_real *a, pds_real shift, pds_real *g,
                         pds_size *bad) {
  (void)ctx;
  *bad = -1;
  for (pds_int i = 0; i < F->nbrows; i++)
    if (ilu0_chow_row(F, i, a, shift, g) && *bad < 0) *bad = i;
  return PDS_OK;
}

void pds_ref_fill_ilu0(struct pds_ilu0_kernels *g) {
  g->plan_create   = ilu0_plan_create_host;
  g->plan_destroy  = ilu0_plan_destroy_host;
  g->plan_describe = ilu0_plan_describe_host;
  g->factor        = ilu0_factor_ref;
  g->solve         = ilu0_solve_ref;
  g->jacobi        = ilu0_jacobi_ref;
  g->chow          = ilu0_chow_ref;
}
