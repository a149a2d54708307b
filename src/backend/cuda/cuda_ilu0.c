/* src/backend/cuda/cuda_ilu0.c: /gpu/cuda's ILU(0) group (src/precond/ilu0_kernels.h; kernels in cuda_ilu0.cu).
 *   levels (auto)  the pattern's level schedules (pds_ilu0_levels_build, made on the host once per pattern): one
 *                  launch per level, a thread per block row; the factorization launches its levels from the host
 *                  (a setup: its shift is a kernel argument), an application replays its two sweeps' launches as one
 *                  CUDA graph (cuda_graph.c), captured for the factor's and the vectors' arrays.
 * Blocks up to PDS_CUDA_ILU0_MAXB x PDS_CUDA_ILU0_MAXB. Every result is /cpu/ref's bits. */
#include <string.h>

#include "../ilu0_bodies.h" /* struct ilu0_plan, the level schedules */
#include "cuda_impl.h"

struct cuda_ilu0_plan {
  struct ilu0_plan      host;    /* the schedules (host), what -view reports */
  pds_int              *rows_d;  /* device: the forward schedule's rows, then the backward one's */
  struct pds_cuda_graph graph;   /* the application's sweeps */
};

static void ilu0_plan_destroy_cuda(pds_ctx ctx, void *plan) {
  struct cuda_ilu0_plan *P = plan;

  if (!P) return;
  pds_cuda_graph_destroy(&P->graph);
  pds_cuda_raw_free(pds_cuda_enter(ctx), P->rows_d);
  pds_ilu0_levels_free(ctx, &P->host.fwd), pds_ilu0_levels_free(ctx, &P->host.bwd);
  pds_free(ctx, PDS_MEM_HOST, &P);
}

static int ilu0_plan_create_cuda(pds_ctx ctx, const struct pds_ilu0_factor *H, const char *variant, void **plan) {
  struct cuda_be        *be = pds_cuda_enter(ctx);
  struct cuda_ilu0_plan *P  = NULL;
  const size_t           n  = (size_t)H->nbrows;
  int                    ierr;

  PDS_CHECK(!strcmp(variant, "auto") || !strcmp(variant, "levels"), ctx, PDS_ERR_ARG,
            "ilu0 variant '%s' is not one of /gpu/cuda's: auto, levels", variant);
  PDS_CHECK(H->bs <= PDS_CUDA_ILU0_MAXB, ctx, PDS_ERR_UNSUPPORTED,
            "ilu0 on /gpu/cuda takes blocks of up to %d x %d, not %d x %d (the CPU backends take up to 64 x 64)",
            PDS_CUDA_ILU0_MAXB, PDS_CUDA_ILU0_MAXB, H->bs, H->bs);
  PDS_CALL(PDS_NEW(ctx, 1, &P));
  P->host.work = (H->nnzb + (pds_size)H->nbrows) * (pds_size)H->bs * H->bs;
  PDS_CALL_GOTO(ierr, fail, pds_ilu0_levels_build(ctx, H, 0, &P->host.fwd));
  PDS_CALL_GOTO(ierr, fail, pds_ilu0_levels_build(ctx, H, 1, &P->host.bwd));
  PDS_CALL_GOTO(ierr, fail, pds_cuda_dev_alloc(ctx, be, 2 * n * sizeof *P->rows_d + 1, (void **)&P->rows_d));
  if (n) {
    cudaError_t e = cudaMemcpyAsync(P->rows_d, P->host.fwd.rows, n * sizeof *P->rows_d, cudaMemcpyHostToDevice,
                                    be->stream);

    if (e == cudaSuccess)
      e = cudaMemcpyAsync(P->rows_d + n, P->host.bwd.rows, n * sizeof *P->rows_d, cudaMemcpyHostToDevice, be->stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(be->stream); /* the host arrays may change after */
    if (e != cudaSuccess) {
      ierr = pds_cuda_error(ctx, __FILE__, __LINE__, __func__, e, "upload of the ilu0 level schedules");
      goto fail;
    }
  }
  *plan = P;
  return PDS_OK;
fail:
  ilu0_plan_destroy_cuda(ctx, P);
  return ierr;
}

static int ilu0_plan_describe_cuda(pds_ctx ctx, void *plan, char *buf, size_t len) {
  return pds_ilu0_levels_describe(ctx, &((struct cuda_ilu0_plan *)plan)->host,
                                  "variant levels (one launch per level, a thread per block row; the sweeps in a CUDA "
                                  "graph)", buf, len);
}

static void launch_init(pds_cuda_ilu0_launch *L, struct cuda_be *be, const struct pds_ilu0_factor *F) {
  memset(L, 0, sizeof *L);
  L->stream = be->stream, L->bs = F->bs, L->nb = F->nbrows;
  L->rowptr = F->rowptr, L->colidx = F->colidx, L->diag = F->diag, L->vals = F->vals;
}

/* the launches of one schedule's levels (kind 0, 1 or 2), rows from rows_d + offset */
static cudaError_t levels(pds_cuda_ilu0_launch *L, const struct ilu0_levels *S, const pds_int *rows, int kind) {
  cudaError_t e = cudaSuccess;

  L->kind = kind, L->rows = rows;
  for (pds_int l = 0; l < S->nlev && e == cudaSuccess; l++)
    L->begin = S->off[l], L->count = S->off[l + 1] - S->off[l], e = pds_cuda_ilu0(L);
  return e;
}

static int ilu0_factor_cuda(pds_ctx ctx, void *plan, const struct pds_ilu0_factor *F, pds_real shift, pds_size *bad) {
  struct cuda_be        *be = pds_cuda_enter(ctx);
  struct cuda_ilu0_plan *P  = plan;
  pds_cuda_ilu0_launch   L;
  unsigned long long     b = 0;

  launch_init(&L, be, F);
  L.shift = shift, L.bad = be->dstat;
  PDS_CUDA_CALL(ctx, cudaMemsetAsync(be->dstat, 0xff, sizeof *be->dstat, be->stream));
  PDS_CUDA_CALL(ctx, levels(&L, &P->host.fwd, P->rows_d, 0));
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
  cudaError_t              e = levels(a->L, &a->P->host.fwd, a->P->rows_d, 1);

  return e == cudaSuccess ? levels(a->L, &a->P->host.bwd, a->P->rows_d + a->P->host.bwd.n, 2) : e;
}

static int ilu0_solve_cuda(pds_ctx ctx, void *plan, const struct pds_ilu0_factor *F, const pds_real *b, pds_real *x) {
  struct cuda_be        *be = pds_cuda_enter(ctx);
  struct cuda_ilu0_plan *P  = plan;
  pds_cuda_ilu0_launch   L;
  struct sweeps_arg      a                         = {P, &L};
  const void            *key[PDS_CUDA_GRAPH_KEY] = {F->vals, F->rowptr, F->colidx, F->diag, b, x};

  launch_init(&L, be, F);
  L.b = b, L.x = x;
  return pds_cuda_graph_run(ctx, be, &P->graph, key, sweeps, &a, "capture of the ilu0 level launches");
}

static int ilu0_permute_cuda(pds_ctx ctx, pds_int nb, int bs, const pds_int *perm, int scatter, const pds_real *x,
                             pds_real *y) {
  struct cuda_be      *be = pds_cuda_enter(ctx);
  pds_cuda_ilu0_launch L;

  memset(&L, 0, sizeof L);
  L.stream = be->stream, L.kind = scatter ? 4 : 3, L.nb = nb, L.bs = bs, L.perm = perm, L.b = x, L.x = y;
  PDS_CUDA_CALL(ctx, pds_cuda_ilu0(&L));
  return PDS_OK;
}

void pds_cuda_fill_ilu0(struct pds_ilu0_kernels *g) {
  g->plan_create   = ilu0_plan_create_cuda;
  g->plan_destroy  = ilu0_plan_destroy_cuda;
  g->plan_describe = ilu0_plan_describe_cuda;
  g->factor        = ilu0_factor_cuda;
  g->solve         = ilu0_solve_cuda;
  g->permute       = ilu0_permute_cuda;
}
