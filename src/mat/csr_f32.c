/* src/mat/csr_f32.c: a csr matrix's products on single-precision vectors (a single-precision solve,
 * src/solver/precision.c): the pattern arrays of the matrix with its values rounded to float, made once on the host
 * from the double values (the first value outside float's range is an error that names it; values below float's
 * smallest normal round to subnormals or zero, as a float matrix would hold them) and kept in backend memory. */
#include <float.h>
#include <math.h>

#include "mat_impl.h"

#define CSR(A) ((struct pds_mat_csr *)(A)->data)

static int csr_vals32(pds_mat A, const float **v) {
  struct pds_mat_csr *c   = CSR(A);
  pds_ctx             ctx = A->hdr.ctx;
  float              *h   = NULL;
  int                 ierr;

  if (!c->vals32) {
    const pds_real *a;

    PDS_CALL(pds_mat_csr_host_sync(A));
    a = c->h.vals;
    for (pds_size k = 0; k < c->h.nnz; k++) /* the value as float: finite (values just above FLT_MAX round to it) */
      PDS_CHECK(isfinite((float)a[k]), ctx, PDS_ERR_ARG, "matrix entry %" PDS_SIZE_FMT " (%g) is %s: solve in double",
                k, a[k], isnan(a[k]) ? "not a number" : "outside the range of single precision (|a| <= 3.4e38)");
    PDS_CALL(pds_malloc(ctx, PDS_MEM_HOST, (size_t)c->h.nnz * sizeof *h, &h));
    for (pds_size k = 0; k < c->h.nnz; k++) h[k] = (float)a[k];
    ierr = pds_dup_array(ctx, PDS_MEM_DEVICE, h, PDS_MEM_HOST, (size_t)c->h.nnz * sizeof *h, &c->vals32);
    pds_free(ctx, PDS_MEM_HOST, &h);
    PDS_CALL(ierr);
  }
  *v = c->vals32;
  return PDS_OK;
}

int pds_mat_csr_apply_f32(pds_mat A, pds_real alpha, pds_vec x, pds_real beta, pds_vec y) {
  pds_ctx      ctx = A->hdr.ctx;
  const float *va = NULL, *xa;
  float       *ya;

  PDS_KERNEL(ctx, f32.csr_spmv);
  PDS_CALL(csr_vals32(A, &va));
  PDS_CALL(pds_vec_dev_read_f32(x, &xa));
  PDS_CALL(pds_vec_dev_write_f32(y, &ya));
  return ctx->k->f32.csr_spmv(ctx, &CSR(A)->d, va, alpha, xa, beta, ya);
}

int pds_mat_csr_residual_f32(pds_mat A, pds_vec b, pds_vec x, pds_vec r) {
  pds_ctx      ctx = A->hdr.ctx;
  const float *va = NULL, *xa, *ba;
  float       *ra;

  PDS_KERNEL(ctx, f32.csr_residual);
  PDS_CALL(csr_vals32(A, &va));
  PDS_CALL(pds_vec_dev_read_f32(x, &xa));
  PDS_CALL(pds_vec_dev_read_f32(b, &ba));
  PDS_CALL(pds_vec_dev_write_f32(r, &ra));
  return ctx->k->f32.csr_residual(ctx, &CSR(A)->d, va, xa, ba, ra);
}

int pds_mat_csr_apply_dot_f32(pds_mat A, pds_vec x, pds_vec y, pds_vec w1, pds_vec w2, pds_vec s, int i) {
  pds_ctx      ctx = A->hdr.ctx;
  const float *va = NULL, *xa, *a1, *a2 = NULL;
  float       *ya;
  pds_real    *sa;

  PDS_KERNEL(ctx, f32.csr_spmv_dot);
  PDS_CALL(csr_vals32(A, &va));
  PDS_CALL(pds_vec_dev_read_f32(x, &xa));
  PDS_CALL(pds_vec_dev_read_f32(w1, &a1));
  if (w2 && w2 != y) PDS_CALL(pds_vec_dev_read_f32(w2, &a2));
  PDS_CALL(pds_vec_dev_write_f32(y, &ya));
  PDS_CALL(pds_vec_dev_write(s, &sa));
  if (w2 == y) a2 = ya;
  return ctx->k->f32.csr_spmv_dot(ctx, &CSR(A)->d, va, xa, ya, a1, a2, sa + i);
}
