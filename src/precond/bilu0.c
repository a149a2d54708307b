/* src/precond/bilu0.c: block ILU(0) of a stencil7 matrix (paper 000): the factorization keeps A's blocks and
 * replaces each diagonal block by the inverse of its factored value (Eq. 1, Algorithm 2), M = (D + E)(I + D^-1 F)
 * with E, F the strict lower and upper block parts of A; y = M^-1 x is the forward and backward sweep (Eq. 2, 3).
 * The recurrence is the grid's, so setup needs no analysis: a new matrix with the same grid only refactors.
 * Richardson with bilu0 is the paper's defect correction (Eq. 4). The kernels are the bilu0 group
 * (src/precond/bilu0_kernels.h); a singular factored block is PDS_ERR_ZERO_PIVOT naming its grid point. */
#include "precond_impl.h"

struct bilu0 {
  pds_size  npts;
  int       n;
  pds_real *dinv; /* [npts][n][n] row-major, backend memory */
};

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
  np = pc->A->nrows / g[0].n; /* the points of all grids */
  if (P->dinv && (P->npts != np || P->n != g[0].n)) PDS_CALL(pds_free(ctx, PDS_MEM_DEVICE, &P->dinv));
  P->npts = np, P->n = g[0].n;
  bytes   = (size_t)np * P->n * P->n * sizeof(pds_real);
  if (!P->dinv) PDS_CALL(pds_malloc(ctx, PDS_MEM_DEVICE, bytes, &P->dinv));
  PDS_CALL(ctx->k->bilu0.factor(ctx, g, nb, P->dinv, &bad));
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

  PDS_CALL(pds_vec_dev_read(x, &xa));
  PDS_CALL(pds_vec_dev_write(y, &ya));
  return ctx->k->bilu0.solve(ctx, g, nb, P->dinv, xa, ya); /* y = M^-1 x */
}

static int bilu0_view(pds_precond pc, FILE *f) {
  struct bilu0 *P = pc->data;

  fprintf(f, "  block ILU(0) on the 7-point grid: %" PDS_SIZE_FMT " points, %d x %d blocks (inverted factored "
          "diagonals)\n", P->npts, P->n, P->n);
  return PDS_OK;
}

static int bilu0_destroy(pds_precond pc) {
  struct bilu0 *P = pc->data;

  if (P) pds_free(pc->hdr.ctx, PDS_MEM_DEVICE, &P->dinv);
  return pds_free(pc->hdr.ctx, PDS_MEM_HOST, &pc->data);
}

int pds_precond_create_bilu0(pds_precond pc) {
  struct bilu0 *P;

  PDS_CALL(PDS_NEW(pc->hdr.ctx, 1, &P));
  pc->data        = P;
  pc->ops.setup   = bilu0_setup;
  pc->ops.apply   = bilu0_apply;
  pc->ops.view    = bilu0_view;
  pc->ops.destroy = bilu0_destroy;
  return PDS_OK;
}
