/* src/mat/mat_fused.c: the products fused with the Krylov methods' work on the vectors: y = A x with its dots
 * (pds_vec_fused_apply_dot, public) and a whole CG / BiCGSTAB iteration in one launch where the backend can
 * (pds_mat_fused_cg_iteration, pds_mat_fused_bicgstab_iteration). They hand a csr matrix's backend arrays to the
 * kernels, so they live with the matrices (which use the vectors), not with the vectors. */
#include <string.h>

#include "mat_impl.h"

int pds_vec_fused_apply_dot(pds_mat A, pds_vec x, pds_vec y, pds_vec w1, pds_vec w2, pds_vec s, int i) {
  const pds_real *xa, *a1, *a2 = NULL;
  pds_real       *ya, *sa;
  pds_ctx         ctx;

  PDS_VALID(A, PDS_CLASSID_MAT, "matrix");
  PDS_VALID(x, PDS_CLASSID_VEC, "x");
  VEC_SAME(y, w1);
  if (w2) VEC_SAME(y, w2);
  ctx = VEC_CTX(y);
  PDS_CHECK(i >= 0, ctx, PDS_ERR_ARG, "scalar index %d is negative", i);
  VEC_SCALARS(y, s, i + (w2 ? 2 : 1));
  if (x->f32 || y->f32) { /* single precision: csr only (the solver checks) */
    PDS_CHECK(!strcmp(A->type, "csr"), ctx, PDS_ERR_UNSUPPORTED, "single-precision products need a csr matrix, not %s",
              A->type);
    PDS_CHECK(A->hdr.ctx == ctx && x->hdr.ctx == ctx, ctx, PDS_ERR_ARG,
              "matrix and vectors belong to different contexts");
    PDS_CHECK(x->n == A->ncols && y->n == A->nrows, ctx, PDS_ERR_SIZE, "A is %" PDS_INT_FMT " x %" PDS_INT_FMT
              " but x has length %" PDS_SIZE_FMT " and y %" PDS_SIZE_FMT, A->nrows, A->ncols, x->n, y->n);
    PDS_CHECK(x != y && w1 != y, ctx, PDS_ERR_ARG, "y must differ from x and w1");
    VEC_SAME(x, y);
    VEC_SAME(y, w1);
    if (w2) VEC_SAME(y, w2);
    return pds_mat_csr_apply_dot_f32(A, x, y, w1, w2, s, i);
  }
  if (strcmp(A->type, "csr") || !ctx->k->csr.spmv_dot) { /* the unfused sequence */
    PDS_CALL(pds_mat_apply(A, x, y));
    return w2 ? pds_vec_dot2_into(y, w1, w2, s, i) : pds_vec_dot_into(y, w1, s, i);
  }
  PDS_CHECK(A->hdr.ctx == ctx && x->hdr.ctx == ctx, ctx, PDS_ERR_ARG, "matrix and vectors belong to different contexts");
  PDS_CHECK(x->n == A->ncols && y->n == A->nrows, ctx, PDS_ERR_SIZE, "A is %" PDS_INT_FMT " x %" PDS_INT_FMT
            " but x has length %" PDS_SIZE_FMT " and y %" PDS_SIZE_FMT, A->nrows, A->ncols, x->n, y->n);
  PDS_CHECK(x != y && w1 != y, ctx, PDS_ERR_ARG, "y must differ from x and w1");
  PDS_CALL(pds_vec_dev_read(x, &xa));
  PDS_CALL(pds_vec_dev_read(w1, &a1));
  if (w2 && w2 != y) PDS_CALL(pds_vec_dev_read(w2, &a2));
  PDS_CALL(pds_vec_dev_write(y, &ya));
  PDS_CALL(pds_vec_dev_write(s, &sa));
  if (w2 == y) a2 = ya;
  return ctx->k->csr.spmv_dot(ctx, &((struct pds_mat_csr *)A->data)->d, xa, ya, a1, a2, sa + i);
}

/* One whole iteration in one launch where the backend can (backend.h's cg_iteration / bicg_iteration: small systems);
   *done = 0 when it cannot (another backend, another matrix type, single precision, a system too large), and the
   caller then queues the steps one by one. Every vector must be distinct and of A's size. */
static int iteration_ok(pds_mat A, pds_vec x, pds_vec S) {
  return !x->f32 && !strcmp(A->type, "csr") && A->hdr.ctx == VEC_CTX(x) && A->nrows == A->ncols &&
         x->n == A->nrows && S->n >= PDS_KS_N;
}

int pds_mat_fused_cg_iteration(pds_mat A, pds_vec x, pds_vec r, pds_vec p, pds_vec q, pds_vec S, int *done) {
  pds_ctx   ctx = VEC_CTX(x);
  pds_real *xa, *ra, *pa, *qa, *sa;

  *done = 0;
  VEC_SAME(x, r);
  VEC_SAME(x, p);
  VEC_SAME(x, q);
  if (!ctx->k->krylov.cg_iteration || !iteration_ok(A, x, S) || S->hdr.ctx != ctx) return PDS_OK;
  PDS_CHECK(x != r && x != p && x != q && r != p && r != q && p != q, ctx, PDS_ERR_ARG,
            "x, r, p and q must be four different vectors");
  PDS_CALL(pds_vec_dev_write(x, &xa));
  PDS_CALL(pds_vec_dev_write(r, &ra));
  PDS_CALL(pds_vec_dev_write(p, &pa));
  PDS_CALL(pds_vec_dev_write(q, &qa));
  PDS_CALL(pds_vec_dev_write(S, &sa));
  return ctx->k->krylov.cg_iteration(ctx, &((struct pds_mat_csr *)A->data)->d, xa, ra, pa, qa, sa, done);
}

int pds_mat_fused_bicgstab_iteration(pds_mat A, pds_vec x, pds_vec r, pds_vec rhat, pds_vec p, pds_vec v, pds_vec s,
                                     pds_vec t, pds_vec S, int *done) {
  pds_ctx         ctx = VEC_CTX(x);
  const pds_real *ha;
  pds_real       *xa, *ra, *pa, *va, *sv, *ta, *sa;
  pds_vec         all[7] = {x, r, rhat, p, v, s, t};

  *done = 0;
  for (int i = 1; i < 7; i++) VEC_SAME(x, all[i]);
  if (!ctx->k->krylov.bicg_iteration || !iteration_ok(A, x, S) || S->hdr.ctx != ctx) return PDS_OK;
  for (int i = 0; i < 7; i++)
    for (int j = i + 1; j < 7; j++)
      PDS_CHECK(all[i] != all[j], ctx, PDS_ERR_ARG, "x, r, rhat, p, v, s and t must be seven different vectors");
  PDS_CALL(pds_vec_dev_read(rhat, &ha));
  PDS_CALL(pds_vec_dev_write(x, &xa));
  PDS_CALL(pds_vec_dev_write(r, &ra));
  PDS_CALL(pds_vec_dev_write(p, &pa));
  PDS_CALL(pds_vec_dev_write(v, &va));
  PDS_CALL(pds_vec_dev_write(s, &sv));
  PDS_CALL(pds_vec_dev_write(t, &ta));
  PDS_CALL(pds_vec_dev_write(S, &sa));
  return ctx->k->krylov.bicg_iteration(ctx, &((struct pds_mat_csr *)A->data)->d, xa, ra, ha, pa, va, sv, ta, sa, done);
}
