/* src/backend/cuda/cuda_vec.c: /gpu/cuda's vector kernel group (src/vec/vec_kernels.h): each slot checks its
 * arguments and calls the launchers of cuda_vec.cu; a reduction's result comes back as one small copy. */
#include "cuda_impl.h"

static int vec_set_cuda(pds_ctx ctx, pds_size n, pds_real a, pds_real *y) {
  if (n <= 0) return PDS_OK;
  LAUNCH(ctx, pds_cuda_vec_set(s_, n, a, y));
}
static int vec_copy_cuda(pds_ctx ctx, pds_size n, const pds_real *x, pds_real *y) {
  if (n <= 0 || x == y) return PDS_OK;
  LAUNCH(ctx, cudaMemcpyAsync(y, x, (size_t)n * sizeof *y, cudaMemcpyDeviceToDevice, s_));
}
static int vec_scale_cuda(pds_ctx ctx, pds_size n, pds_real a, pds_real *y) {
  if (n <= 0) return PDS_OK;
  LAUNCH(ctx, pds_cuda_vec_scale(s_, n, a, y));
}
static int vec_axpby_cuda(pds_ctx ctx, pds_size n, pds_real a, const pds_real *x, pds_real b, pds_real *y) {
  if (n <= 0) return PDS_OK;
  LAUNCH(ctx, pds_cuda_vec_axpby(s_, n, a, x, b, y));
}
static int vec_waxpby_cuda(pds_ctx ctx, pds_size n, pds_real a, const pds_real *x, pds_real b, const pds_real *y,
                           pds_real *w) {
  if (n <= 0) return PDS_OK;
  LAUNCH(ctx, pds_cuda_vec_waxpby(s_, n, a, x, b, y, w));
}
static int vec_pmult_cuda(pds_ctx ctx, pds_size n, const pds_real *x, const pds_real *y, pds_real *w) {
  if (n <= 0) return PDS_OK;
  LAUNCH(ctx, pds_cuda_vec_pmult(s_, n, x, y, w));
}
static int vec_pdiv_cuda(pds_ctx ctx, pds_size n, const pds_real *x, const pds_real *y, pds_real *w) {
  if (n <= 0) return PDS_OK;
  LAUNCH(ctx, pds_cuda_vec_pdiv(s_, n, x, y, w));
}
static int vec_axpbypcz_cuda(pds_ctx ctx, pds_size n, pds_real a, const pds_real *x, pds_real b, const pds_real *y,
                             pds_real c, pds_real *z) {
  if (n <= 0) return PDS_OK;
  LAUNCH(ctx, pds_cuda_vec_axpbypcz(s_, n, a, x, b, y, c, z));
}

static int vec_permute_cuda(pds_ctx ctx, pds_int nb, int bs, const pds_int *perm, int scatter, const pds_real *x,
                            pds_real *y) {
  if ((long long)nb * bs <= 0) return PDS_OK;
  LAUNCH(ctx, pds_cuda_vec_permute(s_, nb, bs, perm, scatter, x, y));
}

/* reductions (n = 0 runs one block, which writes 0) */
static int vec_dot_cuda(pds_ctx ctx, pds_size n, const pds_real *x, const pds_real *y, pds_real *d) {
  struct cuda_be *be = pds_cuda_enter(ctx);

  PDS_CUDA_CALL(ctx, pds_cuda_vec_dot(be->stream, be->red, n, x, y, be->dscal));
  return pds_cuda_fetch_scalars(ctx, be, 1, d);
}
static int vec_dot2_cuda(pds_ctx ctx, pds_size n, const pds_real *x, const pds_real *y, const pds_real *z,
                         pds_real *d) {
  struct cuda_be *be = pds_cuda_enter(ctx);

  PDS_CUDA_CALL(ctx, pds_cuda_vec_dot2(be->stream, be->red, n, x, y, z, be->dscal));
  return pds_cuda_fetch_scalars(ctx, be, 2, d);
}
static int vec_norm_inf_cuda(pds_ctx ctx, pds_size n, const pds_real *x, pds_real *d) {
  struct cuda_be *be = pds_cuda_enter(ctx);

  PDS_CUDA_CALL(ctx, pds_cuda_vec_norm_inf(be->stream, be->red, n, x, be->dscal));
  return pds_cuda_fetch_scalars(ctx, be, 1, d);
}
/* results stay on the device */
static int vec_mdot_into_cuda(pds_ctx ctx, pds_size n, int k, const pds_real *const *V, const pds_real *w,
                              pds_real *d) {
  struct cuda_be *be  = pds_cuda_enter(ctx);
  pds_cuda_red    red = {be->mdot_partial, be->red.counter};

  LAUNCH(ctx, pds_cuda_vec_mdot(be->stream, red, n, k, V, w, d));
}
static int vec_maxpy_dev_cuda(pds_ctx ctx, pds_size n, int k, const pds_real *const *V, const pds_real *c,
                              pds_real *w) {
  if (n <= 0 || k <= 0) return PDS_OK;
  LAUNCH(ctx, pds_cuda_vec_maxpy(s_, n, k, V, c, w));
}
static int vec_dot_into_cuda(pds_ctx ctx, pds_size n, const pds_real *x, const pds_real *y, pds_real *d) {
  struct cuda_be *be = pds_cuda_enter(ctx);

  LAUNCH(ctx, pds_cuda_vec_dot(be->stream, be->red, n, x, y, d));
}
static int vec_dot2_into_cuda(pds_ctx ctx, pds_size n, const pds_real *x, const pds_real *y, const pds_real *z,
                              pds_real *d) {
  struct cuda_be *be = pds_cuda_enter(ctx);

  LAUNCH(ctx, pds_cuda_vec_dot2(be->stream, be->red, n, x, y, z, d));
}

void pds_cuda_fill_vec(struct pds_vec_kernels *g) {
  g->set       = vec_set_cuda;
  g->copy      = vec_copy_cuda;
  g->scale     = vec_scale_cuda;
  g->axpby     = vec_axpby_cuda;
  g->waxpby    = vec_waxpby_cuda;
  g->pmult     = vec_pmult_cuda;
  g->pdiv      = vec_pdiv_cuda;
  g->dot       = vec_dot_cuda;
  g->norm_inf  = vec_norm_inf_cuda;
  g->axpbypcz  = vec_axpbypcz_cuda;
  g->dot2      = vec_dot2_cuda;
  g->dot_into  = vec_dot_into_cuda;
  g->dot2_into = vec_dot2_into_cuda;
  g->mdot_into = vec_mdot_into_cuda;
  g->maxpy_dev = vec_maxpy_dev_cuda;
  g->permute   = vec_permute_cuda;
}
