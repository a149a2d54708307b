/* src/backend/omp/omp_krylov.c: /cpu/omp's fused Krylov steps (src/solver/krylov_kernels.h): the update and its
 * reduction in one pass (pds_omp_chunk_sums, ref's chunks), the x / p updates per entry in ref's order. */
#include "../krylov_step.h"
#include "../kernel_bodies.h"
#include "omp_impl.h"

/* the fused Krylov steps that end in a reduction (semantics in backend.h; the scalars as ref computes them) */
static int cg_update_r_omp(pds_ctx ctx, pds_size n, const pds_real *q, pds_real *r, pds_real *S, int step) {
  pds_real a = pds_ks_ratio(S, PDS_KS_RHO, 0);

  PDS_CALL(pds_omp_chunk_sums(ctx, n, -a, q, 1.0, r, r, r, NULL, 1, &S[1]));
  return step >= 0 ? ctx->k->krylov.step(ctx, step, S) : PDS_OK;
}
static int bicg_update_s_omp(pds_ctx ctx, pds_size n, const pds_real *r, const pds_real *v, pds_real *w, pds_real *S) {
  pds_real a = pds_ks_ratio(S, PDS_KS_RHO, 0);

  return pds_omp_chunk_sums(ctx, n, -a, v, 1.0, r, w, w, NULL, 1, &S[1]);
}
static int bicg_update_r_omp(pds_ctx ctx, pds_size n, const pds_real *w, const pds_real *t, const pds_real *rhat,
                             pds_real *r, pds_real *S, int step) {
  pds_real o = pds_ks_ratio(S, 2, 3);

  PDS_CALL(pds_omp_chunk_sums(ctx, n, -o, t, 1.0, w, r, rhat, r, 2, &S[4]));
  return step >= 0 ? ctx->k->krylov.step(ctx, step, S) : PDS_OK;
}
/* S[XP] = x and p (every iteration but the last): x = alpha p + 1 x; p = 1 z + beta p, per entry in that order
   (ref's two vec_axpby, so its bits): 40 bytes, 6 flops per entry (p read once: 8 bytes less than the two passes);
   other modes: the vec_axpby each part is */
static int cg_update_xp_omp(pds_ctx ctx, pds_size n, const pds_real *z, pds_real *x, pds_real *p, const pds_real *S) {
  const pds_real alpha = S[PDS_KS_ALPHA], beta = S[PDS_KS_BETA];
  const int      m     = (int)S[PDS_KS_XP];

  if (m != (PDS_KS_XP_X | PDS_KS_XP_P) || beta == 0) { /* beta 0: ref's axpby does not read p (p = 1 z) */
    if (m & PDS_KS_XP_X) PDS_CALL(ctx->k->vec.axpby(ctx, n, alpha, p, 1.0, x));
    if (m & PDS_KS_XP_P) PDS_CALL(ctx->k->vec.axpby(ctx, n, 1.0, z, beta, p));
    return PDS_OK;
  }
  OMP_PARTS(n, i0, i1, for (pds_size i = i0; i < i1; i++) {
    x[i] = alpha * p[i] + 1.0 * x[i];
    p[i] = 1.0 * z[i] + beta * p[i];
  });
  return PDS_OK;
}
/* S[XP] = x and p: x = alpha ph + omega sh + 1 x; p = 1 r + (-beta omega) v + beta p, per entry in that order (ref's
   two vec_axpbypcz, so its bits; ph may be p: x reads it first): 64 bytes (56 when ph is p), 10 flops per entry;
   other modes: the kernels ref composes them from */
static int bicg_update_xp_omp(pds_ctx ctx, pds_size n, const pds_real *ph, const pds_real *sh, const pds_real *r,
                              const pds_real *v, pds_real *x, pds_real *p, const pds_real *S) {
  const pds_real alpha = S[PDS_KS_ALPHA], omega = S[PDS_KS_OMEGA], beta = S[PDS_KS_BETA], bo = -beta * omega;
  const int      m     = (int)S[PDS_KS_XP];

  if (m != (PDS_KS_XP_X | PDS_KS_XP_P)) {
    if (m & PDS_KS_XP_X) PDS_CALL(ctx->k->vec.axpbypcz(ctx, n, alpha, ph, omega, sh, 1.0, x));
    if (m & PDS_KS_XP_HALF) PDS_CALL(ctx->k->vec.axpby(ctx, n, alpha, ph, 1.0, x));
    if (m & PDS_KS_XP_P) PDS_CALL(ctx->k->vec.axpbypcz(ctx, n, 1.0, r, bo, v, beta, p));
    return PDS_OK;
  }
  OMP_PARTS(n, i0, i1, for (pds_size i = i0; i < i1; i++) {
    x[i] = alpha * ph[i] + omega * sh[i] + 1.0 * x[i];
    p[i] = 1.0 * r[i] + bo * v[i] + beta * p[i];
  });
  return PDS_OK;
}

void pds_omp_fill_krylov(struct pds_krylov_kernels *g) {
  g->cg_update_r    = cg_update_r_omp;
  g->cg_update_xp   = cg_update_xp_omp;
  g->bicg_update_s  = bicg_update_s_omp;
  g->bicg_update_r  = bicg_update_r_omp;
  g->bicg_update_xp = bicg_update_xp_omp;
}
