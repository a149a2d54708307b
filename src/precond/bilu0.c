/* src/precond/bilu0.c: block ILU(0) of a stencil7 matrix (paper 000): the factorization keeps A's blocks and
 * replaces each diagonal block by the inverse of its factored value (Eq. 1, Algorithm 2), M = (D + E)(I + D^-1 F)
 * with E, F the strict lower and upper block parts of A; y = M^-1 x is the forward and backward sweep (Eq. 2, 3).
 * The recurrence is the grid's, so setup needs no analysis: a new matrix with the same grid only refactors.
 * Richardson with bilu0 is the paper's defect correction (Eq. 4). The kernels are the bilu0 group
 * (src/precond/bilu0_kernels.h); a singular factored block is PDS_ERR_ZERO_PIVOT naming its grid point. */
#include <stdint.h>

#include "precond_impl.h"

struct bilu0 {
  pds_size  npts;
  int       n;
  pds_real *dinv;        /* [npts][n][n] row-major, backend memory */
  char      variant[16]; /* pds_precond_bilu0_set_variant's name */
  int       single;      /* factors stored in float for the sweeps */
  void     *plan;        /* the backend's plan (plan_create: schedules, the float copy), or NULL */
  uint64_t  shape;       /* the grids' shape the plan is for (grids_shape); 0: none, or the choice changed since */
};

/* the grids' shapes (count, dimensions, n) as one number: a plan stays valid while it does not change */
static uint64_t grids_shape(const struct pds_stencil7 *g, int nb) {
  uint64_t h = 1469598103934665603ull ^ (uint64_t)nb;

  for (int q = 0; q < nb; q++) {
    const uint64_t v[5] = {(uint64_t)g[q].I, (uint64_t)g[q].J, (uint64_t)g[q].K, (uint64_t)g[q].n,
                           (uint64_t)g[q].first};

    for (int t = 0; t < 5; t++) h = (h ^ v[t]) * 1099511628211ull;
  }
  return h ? h : 1; /* 0 means no plan */
}

/* a pc of type bilu0, or the error saying it is not */
static int bilu0_of(pds_precond pc, struct bilu0 **P) { return pds_precond_data(pc, "bilu0", (void **)P); }

int pds_precond_bilu0_set_variant(pds_precond pc, const char *variant) {
  struct bilu0 *P = NULL;

  PDS_CALL(bilu0_of(pc, &P));
  PDS_CHECK(variant && strlen(variant) < sizeof P->variant, pc->hdr.ctx, PDS_ERR_ARG,
            "bilu0 variant: a name of at most %zu characters", sizeof P->variant - 1);
  if (strcmp(P->variant, variant)) P->shape = 0, pc->setup_done = 0; /* a new plan at the next setup */
  snprintf(P->variant, sizeof P->variant, "%s", variant);
  return PDS_OK;
}

int pds_precond_bilu0_set_factor_precision(pds_precond pc, pds_precision p) {
  struct bilu0 *P = NULL;

  PDS_CALL(bilu0_of(pc, &P));
  PDS_CHECK(p == PDS_PRECISION_DOUBLE || p == PDS_PRECISION_SINGLE, pc->hdr.ctx, PDS_ERR_ARG,
            "bilu0 factors: PDS_PRECISION_DOUBLE or PDS_PRECISION_SINGLE (got %d)", (int)p);
  if (P->single != (p == PDS_PRECISION_SINGLE)) P->shape = 0, pc->setup_done = 0;
  P->single = p == PDS_PRECISION_SINGLE;
  return PDS_OK;
}

/* the backend's plan for the operator's grids (it checks the variant and keeps what the factor storage needs), made
   again when the operator or the choice changed */
static int bilu0_plan(pds_precond pc, const struct pds_stencil7 *g, int nb) {
  struct bilu0 *P   = pc->data;
  pds_ctx       ctx = pc->hdr.ctx;

  const uint64_t shape = grids_shape(g, nb);

  if (P->shape == shape) return PDS_OK;
  if (P->plan) ctx->k->bilu0.plan_destroy(ctx, P->plan), P->plan = NULL;
  P->shape = 0;
  PDS_CALL(ctx->k->bilu0.plan_create(ctx, g, nb, P->variant, P->single, &P->plan));
  P->shape = shape;
  return PDS_OK;
}

static int bilu0_setup(pds_precond pc) {
  struct bilu0              *P   = pc->data;
  pds_ctx                    ctx = pc->hdr.ctx;
  int                        nb  = 0;
  const struct pds_stencil7 *g   = pds_mat_stencil7_grids(pc->A, &nb);
  pds_size                   bad, np;
  size_t                     bytes;

  PDS_CHECK(g, ctx, PDS_ERR_UNSUPPORTED,
            "bilu0 needs a stencil7 matrix (a structured 7-point block grid), not %s; for a general matrix use "
            "pbjacobi or jacobi", pc->A->type);
  PDS_KERNEL(ctx, bilu0.factor);
  PDS_KERNEL(ctx, bilu0.solve);
  PDS_KERNEL(ctx, bilu0.plan_create);
  np = pc->A->nrows / pc->A->bs; /* the points of all grids */
  if (!np) { /* no grids (a rank of a distributed matrix): nothing to factor or solve */
    P->npts = 0, P->n = pc->A->bs;
    return PDS_OK;
  }
  PDS_CALL(bilu0_plan(pc, g, nb));
  if (P->dinv && (P->npts != np || P->n != g[0].n)) PDS_CALL(pds_free(ctx, PDS_MEM_DEVICE, &P->dinv));
  P->npts = np, P->n = g[0].n;
  bytes   = (size_t)np * P->n * P->n * sizeof(pds_real);
  if (!P->dinv) PDS_CALL(pds_malloc(ctx, PDS_MEM_DEVICE, bytes, &P->dinv));
  PDS_CALL(ctx->k->bilu0.factor(ctx, P->plan, g, nb, P->dinv, &bad));
  if (bad >= 0) {
    int q = 0;

    while (q + 1 < nb && g[q + 1].first <= bad) q++;
    const pds_size l = bad - g[q].first;
    const pds_int  k = (pds_int)(l % g[q].K), j = (pds_int)(l / g[q].K % g[q].J), i = (pds_int)(l / g[q].K / g[q].J);
    char           where[32] = "";

    if (nb > 1) snprintf(where, sizeof where, " of grid %d", q);
    return PDS_ERROR(ctx, PDS_ERR_ZERO_PIVOT,
                     "bilu0: the factored diagonal block of grid point (%" PDS_INT_FMT ", %" PDS_INT_FMT
                     ", %" PDS_INT_FMT ")%s (rows %" PDS_SIZE_FMT "..%" PDS_SIZE_FMT ") is singular", i, j, k, where,
                     bad * P->n, bad * P->n + P->n - 1);
  }
  return PDS_OK;
}

static int bilu0_apply(pds_precond pc, pds_vec x, pds_vec y) {
  struct bilu0              *P   = pc->data;
  pds_ctx                    ctx = pc->hdr.ctx;
  int                        nb  = 0;
  const struct pds_stencil7 *g   = pds_mat_stencil7_grids(pc->A, &nb);
  const pds_real            *xa;
  pds_real                  *ya;

  if (!P->npts) return PDS_OK;
  PDS_CALL(pds_vec_dev_read(x, &xa));
  PDS_CALL(pds_vec_dev_write(y, &ya));
  return ctx->k->bilu0.solve(ctx, P->plan, g, nb, P->dinv, xa, ya); /* y = M^-1 x */
}

static int bilu0_view(pds_precond pc, FILE *f) {
  struct bilu0 *P   = pc->data;
  pds_ctx       ctx = pc->hdr.ctx;
  char          line[160];

  fprintf(f, "  block ILU(0) on the 7-point grid: %" PDS_SIZE_FMT " points, %d x %d blocks (inverted factored "
          "diagonals), factors in %s\n", P->npts, P->n, P->n, P->single ? "float" : "double");
  if (P->plan && ctx->k->bilu0.plan_describe && !ctx->k->bilu0.plan_describe(ctx, P->plan, line, sizeof line))
    fprintf(f, "  %s\n", line);
  return PDS_OK;
}

static int bilu0_destroy(pds_precond pc) {
  struct bilu0 *P = pc->data;

  if (P && P->plan) pc->hdr.ctx->k->bilu0.plan_destroy(pc->hdr.ctx, P->plan);
  if (P) pds_free(pc->hdr.ctx, PDS_MEM_DEVICE, &P->dinv);
  return pds_free(pc->hdr.ctx, PDS_MEM_HOST, &pc->data);
}

int pds_precond_create_bilu0(pds_precond pc) {
  struct bilu0 *P = NULL;

  PDS_CALL(PDS_NEW(pc->hdr.ctx, 1, &P));
  snprintf(P->variant, sizeof P->variant, "auto");
  pc->data        = P;
  pc->ops.setup   = bilu0_setup;
  pc->ops.apply   = bilu0_apply;
  pc->ops.view    = bilu0_view;
  pc->ops.destroy = bilu0_destroy;
  return PDS_OK;
}
