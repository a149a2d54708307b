/* src/backend/ref/ref_krylov.c: /cpu/ref's Krylov kernel group (src/solver/krylov_kernels.h): the fused steps of
 * CG and BiCGSTAB composed plainly from the context's own table (ctx->k), so a backend that starts from this table
 * (/cpu/omp) runs them with its own kernels and gets the bits of the unfused sequence; the scalar step on the
 * host. */
#include <string.h>

#include "../krylov_step.h"
#include "ref_impl.h"

static int cg_update_r_ref(pds_ctx ctx, pds_size n, const pds_real *q, pds_real *r, pds_real *S, int step) {
  pds_real a = pds_ks_ratio(S, PDS_KS_RHO, 0);

  PDS_CALL(ctx->k->vec.axpby(ctx, n, -a, q, 1.0, r));
  PDS_CALL(ctx->k->vec.dot(ctx, n, r, r, &S[1]));
  return step >= 0 ? ctx->k->krylov.step(ctx, step, S) : PDS_OK;
}

static int cg_update_xp_ref(pds_ctx ctx, pds_size n, const pds_real *z, pds_real *x, pds_real *p, const pds_real *S) {
  const int m = (int)S[PDS_KS_XP];

  if (m & PDS_KS_XP_X) PDS_CALL(ctx->k->vec.axpby(ctx, n, S[PDS_KS_ALPHA], p, 1.0, x));
  if (m & PDS_KS_XP_P) PDS_CALL(ctx->k->vec.axpby(ctx, n, 1.0, z, S[PDS_KS_BETA], p));
  return PDS_OK;
}

static int bicg_update_s_ref(pds_ctx ctx, pds_size n, const pds_real *r, const pds_real *v, pds_real *w, pds_real *S) {
  pds_real a = pds_ks_ratio(S, PDS_KS_RHO, 0);

  PDS_CALL(ctx->k->vec.waxpby(ctx, n, -a, v, 1.0, r, w));
  return ctx->k->vec.dot(ctx, n, w, w, &S[1]);
}

static int bicg_update_r_ref(pds_ctx ctx, pds_size n, const pds_real *w, const pds_real *t, const pds_real *rhat,
                             pds_real *r, pds_real *S, int step) {
  pds_real o = pds_ks_ratio(S, 2, 3);

  PDS_CALL(ctx->k->vec.waxpby(ctx, n, -o, t, 1.0, w, r));
  PDS_CALL(ctx->k->vec.dot2(ctx, n, r, rhat, r, &S[4]));
  return step >= 0 ? ctx->k->krylov.step(ctx, step, S) : PDS_OK;
}

static int bicg_update_xp_ref(pds_ctx ctx, pds_size n, const pds_real *ph, const pds_real *sh, const pds_real *r,
                              const pds_real *v, pds_real *x, pds_real *p, const pds_real *S) {
  const int      m     = (int)S[PDS_KS_XP];
  const pds_real alpha = S[PDS_KS_ALPHA], omega = S[PDS_KS_OMEGA], beta = S[PDS_KS_BETA];

  if (m & PDS_KS_XP_X) PDS_CALL(ctx->k->vec.axpbypcz(ctx, n, alpha, ph, omega, sh, 1.0, x));
  if (m & PDS_KS_XP_HALF) PDS_CALL(ctx->k->vec.axpby(ctx, n, alpha, ph, 1.0, x));
  if (m & PDS_KS_XP_P) PDS_CALL(ctx->k->vec.axpbypcz(ctx, n, 1.0, r, -beta * omega, v, beta, p));
  return PDS_OK;
}

/* the scalar step on the host: every CPU backend's, S in host memory */
static int krylov_step_ref(pds_ctx ctx, int method, pds_real *S) {
  PDS_CHECK(!pds_ks_step(method, S), ctx, PDS_ERR_ARG, "unknown Krylov step %d", method);
  return PDS_OK;
}

static int krylov_set_ref(pds_ctx ctx, pds_real *S, const pds_real *v) {
  (void)ctx;
  memcpy(S, v, PDS_KS_N * sizeof *S);
  return PDS_OK;
}

void pds_ref_fill_krylov(struct pds_krylov_kernels *g) {
  g->cg_update_r    = cg_update_r_ref;
  g->cg_update_xp   = cg_update_xp_ref;
  g->bicg_update_s  = bicg_update_s_ref;
  g->bicg_update_r  = bicg_update_r_ref;
  g->bicg_update_xp = bicg_update_xp_ref;
  g->step           = krylov_step_ref;
  g->set            = krylov_set_ref;
}
