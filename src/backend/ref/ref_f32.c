/* src/backend/ref/ref_f32.c: /cpu/ref's single-precision kernel group (kernels_f32.h): plain sequential loops
 * (kernel_bodies_f32.h) and the fused steps composed from the context's own f32 table, the oracle of every other
 * backend's f32 kernels. Byte and flop models per entry (n entries; nnz, nrows for the CSR products). */
#include <math.h>

#include "../krylov_step.h"
#include "../kernel_bodies_f32.h"

/* y = (float)x, rounded to nearest: 12 bytes, 0 flops */
static int to_f32_ref(pds_ctx ctx, pds_size n, const double *x, float *y) {
  (void)ctx;
  to_f32_range(x, y, 0, n);
  return PDS_OK;
}

/* x = (double)y, exact: 12 bytes, 0 flops */
static int to_f64_ref(pds_ctx ctx, pds_size n, const float *y, double *x) {
  (void)ctx;
  to_f64_range(y, x, 0, n);
  return PDS_OK;
}

/* y = (float)a: 4 bytes, 0 flops */
static int vec_set_f32_ref(pds_ctx ctx, pds_size n, double a, float *y) {
  (void)ctx;
  set_f32_range(a, y, 0, n);
  return PDS_OK;
}

/* y = x: 8 bytes, 0 flops (x == y: nothing) */
static int vec_copy_f32_ref(pds_ctx ctx, pds_size n, const float *x, float *y) {
  (void)ctx;
  if (n && x != y) memcpy(y, x, (size_t)n * sizeof *y);
  return PDS_OK;
}

/* y = a x + b y in float (b = 0: y not read): 12 bytes, 3 flops (b = 0: 8 bytes, 1 flop) */
static int vec_axpby_f32_ref(pds_ctx ctx, pds_size n, double a, const float *x, double b, float *y) {
  (void)ctx;
  axpby_f32_range(a, x, b, y, 0, n);
  return PDS_OK;
}

/* z = (a x + b y) + c z in float: 16 bytes, 5 flops */
static int vec_axpbypcz_f32_ref(pds_ctx ctx, pds_size n, double a, const float *x, double b, const float *y, double c,
                                float *z) {
  (void)ctx;
  axpbypcz_f32_range(a, x, b, y, c, z, 0, n);
  return PDS_OK;
}

/* w = x ./ (float)d: 16 bytes, 1 flop */
static int vec_pdiv_f32_ref(pds_ctx ctx, pds_size n, const float *x, const double *d, float *w) {
  (void)ctx;
  pdiv_f32_range(x, d, w, 0, n);
  return PDS_OK;
}

/* d[0] = x . y (and d[1] = x . z when z != NULL) in double, chunk sums added in chunk order (vec_dot_ref's tree):
   8 bytes, 2 flops (z: 12 bytes, 4 flops) */
static int vec_dot2_f32_ref(pds_ctx ctx, pds_size n, const float *x, const float *y, const float *z, double *d) {
  (void)ctx;
  dot_chunks_f32(n, x, y, z, d);
  return PDS_OK;
}

/* Reductions into backend memory and the fused Krylov steps, composed plainly from the context's own f32 table
   (ctx->k->f32), as ref_krylov.c composes the double ones: a backend that starts from this table (/cpu/omp) runs
   them with its own kernels and gets the bits of the unfused sequence. Every expression is the one kernels_f32.h states: the
   coefficient rounded to float by the kernel called, and 1 x_i == x_i, (-a) q == -(a q) exactly. */

/* d[0] = x . y (d: host memory here): vec_dot2 without z */
static int vec_dot_into_f32_ref(pds_ctx ctx, pds_size n, const float *x, const float *y, double *d) {
  return ctx->k->f32.vec_dot2(ctx, n, x, y, NULL, d);
}

/* a = S[RHO] / S[0] (0 unless S[0] is finite and nonzero); r = -a q + 1 r; S[1] = r . r; then the step.
   Unfused: 12 + 4 (r read again) bytes, 5 flops */
static int cg_update_r_f32_ref(pds_ctx ctx, pds_size n, const float *q, float *r, double *S, int step) {
  double a = pds_ks_ratio(S, PDS_KS_RHO, 0);

  PDS_CALL(ctx->k->f32.vec_axpby(ctx, n, -a, q, 1.0, r));
  PDS_CALL(ctx->k->f32.vec_dot_into(ctx, n, r, r, &S[1]));
  return step >= 0 ? ctx->k->krylov.step(ctx, step, S) : PDS_OK;
}

/* m = S[XP]: m & X: x = S[ALPHA] p + 1 x; m & P: p = 1 z + S[BETA] p (x first; S[BETA] = 0: p = 1 z, p not read,
   as vec_axpby's double twin). Unfused: 12 + 12 bytes, 6 flops */
static int cg_update_xp_f32_ref(pds_ctx ctx, pds_size n, const float *z, float *x, float *p, const double *S) {
  const int m = (int)S[PDS_KS_XP];

  if (m & PDS_KS_XP_X) PDS_CALL(ctx->k->f32.vec_axpby(ctx, n, S[PDS_KS_ALPHA], p, 1.0, x));
  if (m & PDS_KS_XP_P) PDS_CALL(ctx->k->f32.vec_axpby(ctx, n, 1.0, z, S[PDS_KS_BETA], p));
  return PDS_OK;
}

/* a as cg_update_r; w = r, then w = -a v + 1 w (no waxpby in the f32 group: w_i = -a v_i + r_i, the same bits;
   w must not be v); S[1] = w . w. Unfused: 8 + 12 + 4 bytes, 5 flops */
static int bicg_update_s_f32_ref(pds_ctx ctx, pds_size n, const float *r, const float *v, float *w, double *S) {
  double a = pds_ks_ratio(S, PDS_KS_RHO, 0);

  PDS_CALL(ctx->k->f32.vec_copy(ctx, n, r, w));
  PDS_CALL(ctx->k->f32.vec_axpby(ctx, n, -a, v, 1.0, w));
  return ctx->k->f32.vec_dot_into(ctx, n, w, w, &S[1]);
}

/* o = S[2] / S[3] (0 unless S[3] is finite and nonzero); r = w, then r = -o t + 1 r (r must not be t);
   S[4] = r . rhat, S[5] = r . r; then the step. Unfused: 8 + 12 + 8 bytes, 7 flops */
static int bicg_update_r_f32_ref(pds_ctx ctx, pds_size n, const float *w, const float *t, const float *rhat, float *r,
                                 double *S, int step) {
  double o = pds_ks_ratio(S, 2, 3);

  PDS_CALL(ctx->k->f32.vec_copy(ctx, n, w, r));
  PDS_CALL(ctx->k->f32.vec_axpby(ctx, n, -o, t, 1.0, r));
  PDS_CALL(ctx->k->f32.vec_dot2(ctx, n, r, rhat, r, &S[4]));
  return step >= 0 ? ctx->k->krylov.step(ctx, step, S) : PDS_OK;
}

/* m = S[XP]: m & X: x = (alpha ph + omega sh) + 1 x; m & HALF: x = alpha ph + 1 x; m & P:
   p = (1 r + (-beta omega) v) + beta p (the x update reads ph before p is written: ph may be p).
   Unfused: 16 + 16 bytes, 10 flops */
static int bicg_update_xp_f32_ref(pds_ctx ctx, pds_size n, const float *ph, const float *sh, const float *r,
                                  const float *v, float *x, float *p, const double *S) {
  const int    m     = (int)S[PDS_KS_XP];
  const double alpha = S[PDS_KS_ALPHA], omega = S[PDS_KS_OMEGA], beta = S[PDS_KS_BETA];

  if (m & PDS_KS_XP_X) PDS_CALL(ctx->k->f32.vec_axpbypcz(ctx, n, alpha, ph, omega, sh, 1.0, x));
  if (m & PDS_KS_XP_HALF) PDS_CALL(ctx->k->f32.vec_axpby(ctx, n, alpha, ph, 1.0, x));
  if (m & PDS_KS_XP_P) PDS_CALL(ctx->k->f32.vec_axpbypcz(ctx, n, 1.0, r, -beta * omega, v, beta, p));
  return PDS_OK;
}

/* y = alpha A x + beta y, rows in order (csr_rows_f32): 8 nnz + 8 nrows + 4 nrows (8 with beta != 0) + x's
   traffic bytes, 2 nnz flops */
static int csr_spmv_f32_ref(pds_ctx ctx, const struct pds_csr *A, const float *vals, double alpha, const float *x,
                            double beta, float *y) {
  (void)ctx;
  csr_rows_f32(A, vals, alpha, x, beta, y, y, 0, A->nrows);
  return PDS_OK;
}

/* r = b - A x: r = b, then csr_spmv (alpha -1, beta 1), so each entry is exactly r_i = -1 s + 1 b_i in float, s the
   row's float sum (every backend's expression; b may be r, x must not be r). csr_spmv's bytes + 8 nrows (the copy) */
static int csr_residual_f32_ref(pds_ctx ctx, const struct pds_csr *A, const float *vals, const float *x,
                                const float *b, float *r) {
  PDS_CALL(ctx->k->f32.vec_copy(ctx, A->nrows, b, r));
  return ctx->k->f32.csr_spmv(ctx, A, vals, -1.0, x, 1.0, r);
}

/* y = A x (csr_spmv, alpha 1, beta 0), then d[0] = y . w1 (vec_dot_into) or (y . w1, y . w2) (vec_dot2):
   csr_spmv's bytes + 4 nrows (y read again) + 4 nrows per w */
static int csr_spmv_dot_f32_ref(pds_ctx ctx, const struct pds_csr *A, const float *vals, const float *x, float *y,
                                const float *w1, const float *w2, double *d) {
  PDS_CALL(ctx->k->f32.csr_spmv(ctx, A, vals, 1.0, x, 0.0, y));
  return w2 ? ctx->k->f32.vec_dot2(ctx, A->nrows, y, w1, w2, d) : ctx->k->f32.vec_dot_into(ctx, A->nrows, y, w1, d);
}

void pds_kernels_fill_ref_f32(struct pds_kernels_f32 *k) {
  k->to_f32         = to_f32_ref;
  k->to_f64         = to_f64_ref;
  k->vec_set        = vec_set_f32_ref;
  k->vec_copy       = vec_copy_f32_ref;
  k->vec_axpby      = vec_axpby_f32_ref;
  k->vec_axpbypcz   = vec_axpbypcz_f32_ref;
  k->vec_pdiv       = vec_pdiv_f32_ref;
  k->vec_dot2       = vec_dot2_f32_ref;
  k->vec_dot_into   = vec_dot_into_f32_ref;
  k->cg_update_r    = cg_update_r_f32_ref;
  k->cg_update_xp   = cg_update_xp_f32_ref;
  k->bicg_update_s  = bicg_update_s_f32_ref;
  k->bicg_update_r  = bicg_update_r_f32_ref;
  k->bicg_update_xp = bicg_update_xp_f32_ref;
  k->csr_spmv       = csr_spmv_f32_ref;
  k->csr_residual   = csr_residual_f32_ref;
  k->csr_spmv_dot   = csr_spmv_dot_f32_ref;
}
