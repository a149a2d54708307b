/* src/backend/cuda/cuda_f32.c: /gpu/cuda's single-precision group (src/backend/kernels_f32.h; the kernels in
 * cuda_f32.cu, the CSR products in cuda_csr.cu). */
#include "cuda_impl.h"

/* ---- single precision (kernels_f32.h; the kernels in cuda_f32.cu, the CSR products in cuda_csr.cu) -------------- */
static int f32_to_f32_cuda(pds_ctx ctx, pds_size n, const double *x, float *y) {
  if (n <= 0) return PDS_OK;
  LAUNCH(ctx, pds_cuda_f32_to_f32(s_, n, x, y));
}
static int f32_to_f64_cuda(pds_ctx ctx, pds_size n, const float *y, double *x) {
  if (n <= 0) return PDS_OK;
  LAUNCH(ctx, pds_cuda_f32_to_f64(s_, n, y, x));
}
static int f32_vec_set_cuda(pds_ctx ctx, pds_size n, double a, float *y) {
  if (n <= 0) return PDS_OK;
  LAUNCH(ctx, pds_cuda_f32_set(s_, n, a, y));
}
static int f32_vec_copy_cuda(pds_ctx ctx, pds_size n, const float *x, float *y) {
  if (n <= 0 || x == y) return PDS_OK;
  LAUNCH(ctx, cudaMemcpyAsync(y, x, (size_t)n * sizeof *y, cudaMemcpyDeviceToDevice, s_));
}
static int f32_vec_axpby_cuda(pds_ctx ctx, pds_size n, double a, const float *x, double b, float *y) {
  if (n <= 0) return PDS_OK;
  LAUNCH(ctx, pds_cuda_f32_axpby(s_, n, a, x, b, y));
}
static int f32_vec_axpbypcz_cuda(pds_ctx ctx, pds_size n, double a, const float *x, double b, const float *y, double c,
                                 float *z) {
  if (n <= 0) return PDS_OK;
  LAUNCH(ctx, pds_cuda_f32_axpbypcz(s_, n, a, x, b, y, c, z));
}
static int f32_vec_pdiv_cuda(pds_ctx ctx, pds_size n, const float *x, const double *d, float *w) {
  if (n <= 0) return PDS_OK;
  LAUNCH(ctx, pds_cuda_f32_pdiv(s_, n, x, d, w));
}
static int f32_vec_dot2_cuda(pds_ctx ctx, pds_size n, const float *x, const float *y, const float *z, double *d) {
  struct cuda_be *be = pds_cuda_enter(ctx);

  PDS_CUDA_CALL(ctx, pds_cuda_f32_dot2(be->stream, be->red, n, x, y, z, be->dscal));
  return pds_cuda_fetch_scalars(ctx, be, z ? 2 : 1, d);
}
static int f32_vec_dot_into_cuda(pds_ctx ctx, pds_size n, const float *x, const float *y, double *d) {
  struct cuda_be *be = pds_cuda_enter(ctx);

  LAUNCH(ctx, pds_cuda_f32_dot2(be->stream, be->red, n, x, y, NULL, d));
}
static int f32_cg_update_r_cuda(pds_ctx ctx, pds_size n, const float *q, float *r, double *S, int step) {
  struct cuda_be *be = pds_cuda_enter(ctx);

  PDS_CALL(pds_cuda_check_step(ctx, step));
  LAUNCH(ctx, pds_cuda_f32_cg_update_r(be->stream, be->red, n, q, r, S, step, be->loop ? &be->loop->dev : NULL));
}
static int f32_cg_update_xp_cuda(pds_ctx ctx, pds_size n, const float *z, float *x, float *p, const double *S) {
  if (n <= 0) return PDS_OK;
  LAUNCH(ctx, pds_cuda_f32_cg_update_xp(s_, n, z, x, p, S));
}
static int f32_bicg_update_s_cuda(pds_ctx ctx, pds_size n, const float *r, const float *v, float *w, double *S) {
  struct cuda_be *be = pds_cuda_enter(ctx);

  LAUNCH(ctx, pds_cuda_f32_bicg_update_s(be->stream, be->red, n, r, v, w, S));
}
static int f32_bicg_update_r_cuda(pds_ctx ctx, pds_size n, const float *w, const float *t, const float *rhat, float *r,
                                  double *S, int step) {
  struct cuda_be *be = pds_cuda_enter(ctx);

  PDS_CALL(pds_cuda_check_step(ctx, step));
  LAUNCH(ctx, pds_cuda_f32_bicg_update_r(be->stream, be->red, n, w, t, rhat, r, S, step,
                                         be->loop ? &be->loop->dev : NULL));
}
static int f32_bicg_update_xp_cuda(pds_ctx ctx, pds_size n, const float *ph, const float *sh, const float *r,
                                   const float *v, float *x, float *p, const double *S) {
  if (n <= 0) return PDS_OK;
  LAUNCH(ctx, pds_cuda_f32_bicg_update_xp(s_, n, ph, sh, r, v, x, p, S));
}
/* y = alpha A x + beta y on the plan of A's structure (the double product's plan) */
static int f32_csr_spmv_cuda(pds_ctx ctx, const struct pds_csr *A, const float *vals, double alpha, const float *x,
                             double beta, float *y) {
  struct cuda_be   *be = pds_cuda_enter(ctx);
  struct csr_entry *e;

  if (A->nrows <= 0) return PDS_OK;
  PDS_CALL(pds_cuda_csr_entry(ctx, be, A, &e));
  PDS_CUDA_CALL(ctx, pds_cuda_csr_spmv_f32(be->stream, &e->plan, A->nrows, A->rowptr, A->colidx, vals, alpha, x, beta,
                                           y));
  return PDS_OK;
}
/* r = b - A x: r = b, then r = -1 A x + 1 r (each entry -s + b_i, rounded once) */
static int f32_csr_residual_cuda(pds_ctx ctx, const struct pds_csr *A, const float *vals, const float *x,
                                 const float *b, float *r) {
  PDS_CALL(f32_vec_copy_cuda(ctx, A->nrows, b, r));
  return f32_csr_spmv_cuda(ctx, A, vals, -1.0, x, 1.0, r);
}
/* y = A x with its dots: one kernel for stream plans, else the product and a dot kernel */
static int f32_csr_spmv_dot_cuda(pds_ctx ctx, const struct pds_csr *A, const float *vals, const float *x, float *y,
                                 const float *w1, const float *w2, double *d) {
  struct cuda_be   *be = pds_cuda_enter(ctx);
  struct csr_entry *e;

  if (A->nrows <= 0) { /* empty dots */
    PDS_CUDA_CALL(ctx, cudaMemsetAsync(d, 0, (w2 ? 2 : 1) * sizeof *d, be->stream));
    return PDS_OK;
  }
  PDS_CALL(pds_cuda_csr_entry(ctx, be, A, &e));
  if (e->plan.stream) {
    PDS_CUDA_CALL(ctx, pds_cuda_csr_spmv_dot_f32(be->stream, &e->plan, be->red, A->nrows, A->rowptr, A->colidx, vals,
                                                 x, y, w1, w2, d));
    return PDS_OK;
  }
  PDS_CUDA_CALL(ctx, pds_cuda_csr_spmv_f32(be->stream, &e->plan, A->nrows, A->rowptr, A->colidx, vals, 1.0, x, 0.0, y));
  PDS_CUDA_CALL(ctx, pds_cuda_f32_dot2(be->stream, be->red, A->nrows, y, w1, w2, d));
  return PDS_OK;
}

void pds_cuda_fill_f32(struct pds_kernels_f32 *k) {
  k->to_f32         = f32_to_f32_cuda;
  k->to_f64         = f32_to_f64_cuda;
  k->vec_set        = f32_vec_set_cuda;
  k->vec_copy       = f32_vec_copy_cuda;
  k->vec_axpby      = f32_vec_axpby_cuda;
  k->vec_axpbypcz   = f32_vec_axpbypcz_cuda;
  k->vec_pdiv       = f32_vec_pdiv_cuda;
  k->vec_dot2       = f32_vec_dot2_cuda;
  k->vec_dot_into   = f32_vec_dot_into_cuda;
  k->cg_update_r    = f32_cg_update_r_cuda;
  k->cg_update_xp   = f32_cg_update_xp_cuda;
  k->bicg_update_s  = f32_bicg_update_s_cuda;
  k->bicg_update_r  = f32_bicg_update_r_cuda;
  k->bicg_update_xp = f32_bicg_update_xp_cuda;
  k->csr_spmv       = f32_csr_spmv_cuda;
  k->csr_residual   = f32_csr_residual_cuda;
  k->csr_spmv_dot   = f32_csr_spmv_dot_cuda;
}
