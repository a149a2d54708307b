/* src/backend/cuda/cuda_ilu0.c: /gpu/cuda's ILU(0) group (src/precond/ilu0_kernels.h; kernels in cuda_ilu0.cu).
 *   levels    the pattern's level schedules (pds_ilu0_levels_build, made on the host once per pattern): one launch
 *             per level;
 *   syncfree  one launch per phase, each row waiting on the flags of the rows it reads (no barrier), as many warps
 *             as can be resident, taking tickets in the schedules' order;
 *   auto      (the default) each phase the way it measured faster on the H100 (bench/gpu/bench_ilu, docs/ilu0.md):
 *             the sweeps by levels (syncfree's flag round trips cost more than a kernel boundary with programmatic
 *             dependent launch: 1.4-7.6x slower everywhere measured); the factorization by levels where levels are
 *             wide (at least SF_FACTOR_ROWS rows a level on average) and syncfree where they are narrow (one launch
 *             instead of hundreds to thousands).
 * Who runs a row: a block row (bs >= 2) a group of lanes, lane u on row u of its blocks; a scalar row a warp in the
 * factorization (its updates spread over the lanes) and in the sweeps where rows are long or levels narrow
 * (WARP_SWEEP_NNZ), else a thread.
 * The factorization launches from the host (a setup: its shift is a kernel argument); an application replays its
 * two sweeps' launches as one CUDA graph (cuda_graph.c), captured for the factor's and the vectors' arrays. The
 * approximate variants' steps (jacobi, chow) are a launch each over every row. Blocks up to PDS_CUDA_ILU0_MAXB x
 * PDS_CUDA_ILU0_MAXB. Every result is /cpu/ref's bits. */
#include <string.h>

#include "../ilu0_bodies.h" /* struct ilu0_plan, the level schedules */
#include "cuda_impl.h"

#define SF_FACTOR_ROWS 700 /* auto: narrower levels (rows a level, on average) factor syncfree; H100 (daf2c62,
                              c225ff5): syncfree faster at 185 and about 340 rows a level (FEM grids 5, 6: 1.8x) and on
                              the long-row matrices, levels at 3356 (bsr 100^3, 4-7x) and 5490 (poisson7 128^3,
                              1.06x); at 1380 (poisson7 64^3) syncfree factors 1.08x faster but the applications
                              after it measured 1.12-1.33x slower (c225ff5, cause not found), so levels */
#define WARP_SWEEP_NNZ 16 /* bs 1: the sweeps run a warp per row (cuda_ilu0.cu: warp_sweep_row) where rows are this
                             long on average (nnz / n) or levels narrower than WARP_SWEEP_ROWS (the lanes' loads of a
                             row at once shorten a level's chain, where the level is too narrow to fill the device
                             anyway), else a thread per row; the factorization always runs a warp per row
                             (warp_factor_row). Measured on the H100 (docs/ilu0.md): a warp per row 1.5-1.9x faster
                             on the long-row shared matrices, 1.10x on FEM grid 5 (7 a row, 185 rows a level), a
                             thread per row 1.13x faster on poisson7 64^3 (7 a row, 1380 a level).
                             PDS_CUDA_ILU0_WARP_ROWS=0/1 and PDS_CUDA_ILU0_WARP_SWEEPS=0/1 in the environment force
                             either way (measurements, tests) */
#define WARP_SWEEP_ROWS 700 /* (above) rows a level, on average */
#define SF_WINDOW_LEVELS 4 /* syncfree: launch about this many levels' warps (cuda_ilu0.cu: sf_grid);
                              PDS_CUDA_ILU0_WINDOW in the environment sets another (measurements) */

struct cuda_ilu0_plan {
  struct ilu0_plan      host;     /* the schedules (host), what -view reports */
  int                   sf[3];    /* phase 0 factor, 1 forward, 2 backward: syncfree (1) or levels (0) */
  pds_int              *rows_d;   /* device: the forward schedule's rows, the backward one's (n each), then the padded
                                     forward schedule (wf warps of 32), the padded backward one (wb) */
  long long             wf, wb;
  int                   window;   /* syncfree: the levels' warps to launch */
  int                   warp_rows;   /* the factorization (bs 1): a warp per row */
  int                   warp_sweeps; /* the sweeps (bs 1): a warp per row */
  int                   bs;
  unsigned             *flags;    /* syncfree: [nbrows] */
  pds_cuda_sync_state  *sync;     /* syncfree */
  struct pds_cuda_graph graph;    /* the application's sweeps */
  /* the level-ordered copy of the factor (bs 1, levels sweeps by a thread per row; lev_copy): the forward schedule's
     rows' lower entries one after another (lptr over its positions, lcol, lval), the backward schedule's rows' D^-1
     and upper entries (uptr, ucol, uval); a level's rows then read consecutive entries, where in the factor they lie
     scattered (a level of a 7-point grid steps through the rows by about the grid's width). Values refreshed after
     every factorization (relayout). PDS_CUDA_ILU0_LEVEL_COPY=0 in the environment leaves it out (measurements) */
  int                   lev_copy;
  pds_size             *lptr, *uptr;
  pds_int              *lcol, *ucol;
  pds_real             *lval, *uval;
};

static void ilu0_plan_destroy_cuda(pds_ctx ctx, void *plan) {
  struct cuda_ilu0_plan *P = plan;
  struct cuda_be        *be;

  if (!P) return;
  be = pds_cuda_enter(ctx);
  pds_cuda_graph_destroy(&P->graph);
  pds_cuda_raw_free(be, P->rows_d), pds_cuda_raw_free(be, P->flags), pds_cuda_raw_free(be, P->sync);
  pds_cuda_raw_free(be, P->lptr), pds_cuda_raw_free(be, P->uptr), pds_cuda_raw_free(be, P->lcol);
  pds_cuda_raw_free(be, P->ucol), pds_cuda_raw_free(be, P->lval), pds_cuda_raw_free(be, P->uval);
  pds_ilu0_levels_free(ctx, &P->host.fwd), pds_ilu0_levels_free(ctx, &P->host.bwd);
  pds_free(ctx, PDS_MEM_HOST, &P);
}

/* schedule L padded to whole warps at out (NULL: only counted); its warps */
static long long pad_levels(const struct ilu0_levels *L, pds_int *out) {
  long long w = 0;

  for (pds_int l = 0; l < L->nlev; l++) {
    const pds_int c = L->off[l + 1] - L->off[l], cw = (c + 31) / 32;

    if (out)
      for (pds_int t = 0; t < cw * 32; t++) out[w * 32 + t] = t < c ? L->rows[L->off[l] + t] : -1;
    w += cw;
  }
  return w;
}

/* the level-ordered copy's pointers and columns (host, then uploaded) and its values' room (struct cuda_ilu0_plan) */
static int level_copy_create(pds_ctx ctx, struct cuda_be *be, const struct pds_ilu0_factor *H,
                             struct cuda_ilu0_plan *P) {
  const pds_int n = H->nbrows;
  pds_size     *lp = NULL, *up = NULL;
  pds_int      *lc = NULL, *uc = NULL;
  pds_size      nl = 0, nu = 0;
  int           ierr;

  for (pds_int i = 0; i < n; i++) nl += H->diag[i] - H->rowptr[i], nu += H->rowptr[i + 1] - H->diag[i];
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)n + 1, &lp));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)n + 1, &up));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)nl + 1, &lc));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)nu + 1, &uc));
  for (pds_int t = 0; t < n; t++) {
    const pds_int  i = P->host.fwd.rows[t], k = P->host.bwd.rows[t];
    const pds_size cl = H->diag[i] - H->rowptr[i], cu = H->rowptr[k + 1] - H->diag[k];

    memcpy(lc + lp[t], H->colidx + H->rowptr[i], cl * sizeof *lc), lp[t + 1] = lp[t] + cl;
    memcpy(uc + up[t], H->colidx + H->diag[k], cu * sizeof *uc), up[t + 1] = up[t] + cu;
  }
  PDS_CALL_GOTO(ierr, done, pds_cuda_dev_alloc(ctx, be, ((size_t)n + 1) * sizeof *lp, (void **)&P->lptr));
  PDS_CALL_GOTO(ierr, done, pds_cuda_dev_alloc(ctx, be, ((size_t)n + 1) * sizeof *up, (void **)&P->uptr));
  PDS_CALL_GOTO(ierr, done, pds_cuda_dev_alloc(ctx, be, ((size_t)nl + 1) * sizeof *lc, (void **)&P->lcol));
  PDS_CALL_GOTO(ierr, done, pds_cuda_dev_alloc(ctx, be, ((size_t)nu + 1) * sizeof *uc, (void **)&P->ucol));
  PDS_CALL_GOTO(ierr, done, pds_cuda_dev_alloc(ctx, be, ((size_t)nl + 1) * sizeof(pds_real), (void **)&P->lval));
  PDS_CALL_GOTO(ierr, done, pds_cuda_dev_alloc(ctx, be, ((size_t)nu + 1) * sizeof(pds_real), (void **)&P->uval));
  {
    cudaError_t e = cudaMemcpyAsync(P->lptr, lp, ((size_t)n + 1) * sizeof *lp, cudaMemcpyHostToDevice, be->stream);

    if (e == cudaSuccess) e = cudaMemcpyAsync(P->uptr, up, ((size_t)n + 1) * sizeof *up, cudaMemcpyHostToDevice, be->stream);
    if (e == cudaSuccess) e = cudaMemcpyAsync(P->lcol, lc, ((size_t)nl + 1) * sizeof *lc, cudaMemcpyHostToDevice, be->stream);
    if (e == cudaSuccess) e = cudaMemcpyAsync(P->ucol, uc, ((size_t)nu + 1) * sizeof *uc, cudaMemcpyHostToDevice, be->stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(be->stream); /* the host arrays are freed below */
    ierr = e == cudaSuccess ? PDS_OK
                            : pds_cuda_error(ctx, __FILE__, __LINE__, __func__, e, "upload of the ilu0 level-ordered copy");
  }
done:
  pds_free(ctx, PDS_MEM_HOST, &lp), pds_free(ctx, PDS_MEM_HOST, &up);
  pds_free(ctx, PDS_MEM_HOST, &lc), pds_free(ctx, PDS_MEM_HOST, &uc);
  return ierr;
}

static int ilu0_plan_create_cuda(pds_ctx ctx, const struct pds_ilu0_factor *H, const char *variant, int sweeps,
                                 void **plan) {
  struct cuda_be        *be = pds_cuda_enter(ctx);
  struct cuda_ilu0_plan *P  = NULL;
  pds_int               *h  = NULL;
  size_t                 m;
  int                    ierr, narrow, nsweep, pad, sfl;

  PDS_CHECK(!strcmp(variant, "auto") || !strcmp(variant, "levels") || !strcmp(variant, "syncfree"), ctx, PDS_ERR_ARG,
            "ilu0 variant '%s' is not one of /gpu/cuda's: auto, levels, syncfree, approx-jacobi, approx-chow", variant);
  PDS_CHECK(H->bs <= PDS_CUDA_ILU0_MAXB, ctx, PDS_ERR_UNSUPPORTED,
            "ilu0 on /gpu/cuda takes blocks of up to %d x %d, not %d x %d (the CPU backends take up to 64 x 64)",
            PDS_CUDA_ILU0_MAXB, PDS_CUDA_ILU0_MAXB, H->bs, H->bs);
  PDS_CALL(PDS_NEW(ctx, 1, &P));
  P->sf[1] = P->sf[2] = !strcmp(variant, "syncfree");
  {
    const char *w = getenv("PDS_CUDA_ILU0_WINDOW");

    P->window = w && atoi(w) > 0 ? atoi(w) : SF_WINDOW_LEVELS;
  }
  P->bs        = H->bs;
  P->host.work = (H->nnzb + (pds_size)H->nbrows) * (pds_size)H->bs * H->bs;
  PDS_CALL_GOTO(ierr, fail, pds_ilu0_levels_build(ctx, H, 0, &P->host.fwd));
  PDS_CALL_GOTO(ierr, fail, pds_ilu0_levels_build(ctx, H, 1, &P->host.bwd));
  narrow = (long long)P->host.fwd.n < (long long)SF_FACTOR_ROWS * P->host.fwd.nlev;
  nsweep = (long long)P->host.fwd.n < (long long)WARP_SWEEP_ROWS * P->host.fwd.nlev;
  {
    const char *w = getenv("PDS_CUDA_ILU0_WARP_ROWS"), *ws = getenv("PDS_CUDA_ILU0_WARP_SWEEPS");

    P->warp_rows   = H->bs == 1 && (w && *w ? atoi(w) != 0 : 1);
    P->warp_sweeps = H->bs == 1 && (ws && *ws ? atoi(ws) != 0
                                              : nsweep || H->nnzb >= (pds_size)WARP_SWEEP_NNZ * H->nbrows);
  }
  P->sf[0] = !strcmp(variant, "syncfree") || (!strcmp(variant, "auto") && narrow);
  /* the padded schedules: for a syncfree phase of lane groups or threads (a warp per row takes the unpadded one);
     the flags: for any syncfree phase (sweeps 0: only the factorization runs) */
  pad = (sweeps && (P->sf[1] || P->sf[2]) && !P->warp_sweeps) || (P->sf[0] && !P->warp_rows);
  sfl = P->sf[0] || (sweeps && (P->sf[1] || P->sf[2]));
  P->wf = pad ? pad_levels(&P->host.fwd, NULL) : 0, P->wb = pad ? pad_levels(&P->host.bwd, NULL) : 0;
  m     = 2 * (size_t)H->nbrows + (size_t)(P->wf + P->wb) * 32;
  PDS_CALL_GOTO(ierr, fail, PDS_NEW(ctx, m + 1, &h));
  if (H->nbrows) memcpy(h, P->host.fwd.rows, (size_t)H->nbrows * sizeof *h);
  if (H->nbrows) memcpy(h + H->nbrows, P->host.bwd.rows, (size_t)H->nbrows * sizeof *h);
  if (pad)
    pad_levels(&P->host.fwd, h + 2 * (size_t)H->nbrows),
        pad_levels(&P->host.bwd, h + 2 * (size_t)H->nbrows + P->wf * 32);
  PDS_CALL_GOTO(ierr, fail, pds_cuda_dev_alloc(ctx, be, m * sizeof *P->rows_d + 1, (void **)&P->rows_d));
  if (sfl) {
    PDS_CALL_GOTO(ierr, fail,
                  pds_cuda_dev_alloc(ctx, be, (size_t)H->nbrows * sizeof *P->flags + 1, (void **)&P->flags));
    PDS_CALL_GOTO(ierr, fail, pds_cuda_dev_alloc(ctx, be, sizeof *P->sync, (void **)&P->sync));
  }
  {
    cudaError_t e = m ? cudaMemcpyAsync(P->rows_d, h, m * sizeof *h, cudaMemcpyHostToDevice, be->stream)
                      : cudaSuccess;

    if (e == cudaSuccess && sfl)
      e = cudaMemsetAsync(P->flags, 0, (size_t)H->nbrows * sizeof *P->flags + 1, be->stream);
    if (e == cudaSuccess && sfl) e = cudaMemsetAsync(P->sync, 0, sizeof *P->sync, be->stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(be->stream); /* h is freed below */
    if (e != cudaSuccess) {
      ierr = pds_cuda_error(ctx, __FILE__, __LINE__, __func__, e, "upload of the ilu0 schedules");
      goto fail;
    }
  }
  pds_free(ctx, PDS_MEM_HOST, &h);
  {
    const char *w = getenv("PDS_CUDA_ILU0_LEVEL_COPY");

    P->lev_copy = sweeps && H->bs == 1 && !P->sf[1] && !P->warp_sweeps && (w && *w ? atoi(w) != 0 : 1);
  }
  if (P->lev_copy) PDS_CALL_GOTO(ierr, fail, level_copy_create(ctx, be, H, P));
  *plan = P;
  return PDS_OK;
fail:
  pds_free(ctx, PDS_MEM_HOST, &h);
  ilu0_plan_destroy_cuda(ctx, P);
  return ierr;
}

static int ilu0_plan_describe_cuda(pds_ctx ctx, void *plan, char *buf, size_t len) {
  const struct cuda_ilu0_plan *P = plan;

  char how[400];

  snprintf(how, sizeof how, "factorization %s (%s), sweeps %s (syncfree: one launch per phase, each row waits on "
           "the rows it reads; levels: one launch per level, the sweeps in a CUDA graph; %s)",
           P->sf[0] ? "syncfree" : "levels", P->warp_rows ? "a warp per row" : "a row per thread or lane group",
           P->sf[1] ? "syncfree" : "levels",
           P->bs > 1 ? "a block row per group of lanes, a lane per row of its blocks"
           : P->warp_sweeps ? "a warp per row" : P->lev_copy ? "a thread per row, the factor copied level by level"
                                                            : "a thread per row");
  return pds_ilu0_levels_describe(ctx, &P->host, how, buf, len);
}

static void launch_init(pds_cuda_ilu0_launch *L, struct cuda_be *be, const struct pds_ilu0_factor *F) {
  memset(L, 0, sizeof *L);
  L->stream = be->stream, L->bs = F->bs, L->nb = F->nbrows, L->nsm = be->nsm;
  L->rowptr = F->rowptr, L->colidx = F->colidx, L->diag = F->diag, L->vals = F->vals;
}

/* one phase (0 factor, 1 forward, 2 backward) of plan P: its levels' launches, or its syncfree launch */
static cudaError_t phase(pds_cuda_ilu0_launch *L, const struct cuda_ilu0_plan *P, int ph) {
  static const int         lk[3] = {PDS_CUDA_ILU0_FACTOR, PDS_CUDA_ILU0_FORWARD, PDS_CUDA_ILU0_BACKWARD};
  static const int         sk[3] = {PDS_CUDA_ILU0_SF_FACTOR, PDS_CUDA_ILU0_SF_FORWARD, PDS_CUDA_ILU0_SF_BACKWARD};
  const struct ilu0_levels *S    = ph == 2 ? &P->host.bwd : &P->host.fwd;
  cudaError_t              e     = cudaSuccess;

  if (P->sf[ph]) {
    if (L->warp_rows) /* a warp per row: a ticket is a row of the unpadded schedule */
      L->rows = P->rows_d + (ph == 2 ? S->n : 0), L->count = S->n;
    else
      L->rows  = P->rows_d + 2 * (size_t)P->host.fwd.n + (ph == 2 ? P->wf * 32 : 0),
      L->count = ph == 2 ? P->wb : P->wf;
    L->kind = sk[ph], L->begin = 0, L->flags = P->flags, L->sync = P->sync;
    L->window = P->window * L->count / (S->nlev > 0 ? S->nlev : 1);
    return pds_cuda_ilu0(L);
  }
  L->kind = lk[ph], L->rows = P->rows_d + (ph == 2 ? S->n : 0);
  L->scol = ph == 0 || !P->lev_copy ? NULL : ph == 2 ? P->ucol : P->lcol;
  L->sval = ph == 0 || !P->lev_copy ? NULL : ph == 2 ? P->uval : P->lval;
  for (pds_int l = 0; l < S->nlev && e == cudaSuccess; l++) {
    L->begin = S->off[l], L->count = S->off[l + 1] - S->off[l];
    L->sptr  = L->scol ? (ph == 2 ? P->uptr : P->lptr) + S->off[l] : NULL; /* the level's rows in the copy */
    e        = pds_cuda_ilu0(L);
  }
  L->sptr = NULL, L->scol = NULL, L->sval = NULL;
  return e;
}

static int ilu0_factor_cuda(pds_ctx ctx, void *plan, const struct pds_ilu0_factor *F, pds_real shift, pds_size *bad) {
  struct cuda_be       *be = pds_cuda_enter(ctx);
  const struct cuda_ilu0_plan *P = plan;
  pds_cuda_ilu0_launch         L;
  unsigned long long           b = 0;

  launch_init(&L, be, F);
  L.shift = shift, L.bad = be->dstat, L.warp_rows = P->warp_rows;
  PDS_CUDA_CALL(ctx, cudaMemsetAsync(be->dstat, 0xff, sizeof *be->dstat, be->stream));
  PDS_CUDA_CALL(ctx, phase(&L, plan, 0));
  if (P->lev_copy) /* the level-ordered copy's values */
    for (int bwd = 0; bwd < 2; bwd++) {
      L.kind  = bwd ? PDS_CUDA_ILU0_RELAYOUT_BACKWARD : PDS_CUDA_ILU0_RELAYOUT_FORWARD;
      L.rows  = P->rows_d + (bwd ? F->nbrows : 0), L.count = F->nbrows, L.begin = 0;
      L.sptr  = bwd ? P->uptr : P->lptr, L.sval = bwd ? P->uval : P->lval;
      PDS_CUDA_CALL(ctx, pds_cuda_ilu0(&L));
    }
  PDS_CALL(pds_cuda_fetch_stats(ctx, be, 1, &b));
  *bad = b == ~0ull ? -1 : (pds_size)b;
  return PDS_OK;
}

struct sweeps_arg {
  struct cuda_ilu0_plan *P;
  pds_cuda_ilu0_launch  *L;
};

static cudaError_t sweeps(void *arg) {
  const struct sweeps_arg *a = arg;
  cudaError_t              e = phase(a->L, a->P, 1);

  return e == cudaSuccess ? phase(a->L, a->P, 2) : e;
}

static int ilu0_solve_cuda(pds_ctx ctx, void *plan, const struct pds_ilu0_factor *F, const pds_real *b, pds_real *x) {
  struct cuda_be        *be = pds_cuda_enter(ctx);
  struct cuda_ilu0_plan *P  = plan;
  pds_cuda_ilu0_launch   L;
  struct sweeps_arg      a                         = {P, &L};
  const void            *key[PDS_CUDA_GRAPH_KEY] = {F->vals, F->rowptr, F->colidx, F->diag, b, x};

  launch_init(&L, be, F);
  L.b = b, L.x = x, L.warp_rows = P->warp_sweeps;
  return pds_cuda_graph_run(ctx, be, &P->graph, key, sweeps, &a, "capture of the ilu0 sweeps");
}

static int ilu0_jacobi_cuda(pds_ctx ctx, const struct pds_ilu0_factor *F, int backward, const pds_real *b,
                            const pds_real *x, pds_real *y) {
  struct cuda_be      *be = pds_cuda_enter(ctx);
  pds_cuda_ilu0_launch L;

  launch_init(&L, be, F);
  L.kind = backward ? PDS_CUDA_ILU0_JACOBI_BACKWARD : PDS_CUDA_ILU0_JACOBI_FORWARD, L.count = F->nbrows;
  L.b = b, L.xr = x, L.x = y;
  PDS_CUDA_CALL(ctx, pds_cuda_ilu0(&L));
  return PDS_OK;
}

static int ilu0_chow_cuda(pds_ctx ctx, const struct pds_ilu0_factor *F, const pds_real *a, pds_real shift, pds_real *g,
                          pds_size *bad) {
  struct cuda_be      *be = pds_cuda_enter(ctx);
  pds_cuda_ilu0_launch L;
  unsigned long long   b = 0;

  launch_init(&L, be, F);
  L.kind = PDS_CUDA_ILU0_CHOW, L.count = F->nbrows, L.shift = shift, L.aval = a, L.gvals = g, L.bad = be->dstat;
  PDS_CUDA_CALL(ctx, cudaMemsetAsync(be->dstat, 0xff, sizeof *be->dstat, be->stream));
  PDS_CUDA_CALL(ctx, pds_cuda_ilu0(&L));
  PDS_CALL(pds_cuda_fetch_stats(ctx, be, 1, &b));
  *bad = b == ~0ull ? -1 : (pds_size)b;
  return PDS_OK;
}

void pds_cuda_fill_ilu0(struct pds_ilu0_kernels *g) {
  g->plan_create   = ilu0_plan_create_cuda;
  g->plan_destroy  = ilu0_plan_destroy_cuda;
  g->plan_describe = ilu0_plan_describe_cuda;
  g->factor        = ilu0_factor_cuda;
  g->solve         = ilu0_solve_cuda;
  g->jacobi        = ilu0_jacobi_cuda;
  g->chow          = ilu0_chow_cuda;
}
