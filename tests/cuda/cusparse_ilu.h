/* tests/cuda/cusparse_ilu.h: cuSPARSE's own ILU(0), the independent peer of tc07 (bilu0) and tc08 (ilu0):
 * cusparse_ilu_apply(A, x, y) computes y = M^-1 x for a csr matrix (cusparseDcsrilu02 with the level policy, then the
 * generic cusparseSpSV with L unit lower and U non-unit upper on the factored values) or a bsr one (cusparseDbsrilu02
 * then cusparseDbsrsv2, row-major blocks: CUSPARSE_DIRECTION_ROW, pds_mat_convert_to_bsr's layout), host arrays in
 * and out, and returns the zero pivot cuSPARSE found (y then not set), or -1. Failures of the CUDA or cuSPARSE calls
 * fail the test (CK, CKS). expect_near_cusparse applies a preconditioner and holds its result against cuSPARSE's.
 * A test's main starts with cusparse_peer_begin (which creates the handle `sp`, or ends a test on another backend) and
 * ends with cusparse_peer_end. Header-only, static functions: one copy per test executable. */
#ifndef PDS_TEST_CUSPARSE_ILU_H
#define PDS_TEST_CUSPARSE_ILU_H

#define DISABLE_CUSPARSE_DEPRECATED /* csrilu02, bsrilu02 / bsrsv2 are deprecated since CUDA 12; still cuSPARSE's ILU(0) */
#include <math.h>
#include <string.h>

#include <cuda_runtime.h>
#include <cusparse.h>

#include "test.h"

#define CK(call)                                                                                         \
  do {                                                                                                   \
    cudaError_t e_ = (call);                                                                             \
    if (e_ != cudaSuccess) TEST_FAIL("%s: %s", #call, cudaGetErrorString(e_));                           \
  } while (0)
#define CKS(call)                                                                                        \
  do {                                                                                                   \
    cusparseStatus_t e_ = (call);                                                                        \
    if (e_ != CUSPARSE_STATUS_SUCCESS) TEST_FAIL("%s: %s", #call, cusparseGetErrorString(e_));           \
  } while (0)

static cusparseHandle_t sp;

/* the test's start after test_init: cuSPARSE is the peer of /gpu/cuda only, so on another backend the context is
   finalized and 0 returned (the test has nothing to do); else sp is created and 1 returned */
static int cusparse_peer_begin(pds_ctx *ctx) {
  if (strncmp(pds_ctx_get_backend(*ctx), "/gpu/cuda", 9)) {
    test_finalize(ctx);
    return 0;
  }
  CKS(cusparseCreate(&sp));
  return 1;
}

/* the test's end: sp destroyed, the context finalized */
static void cusparse_peer_end(pds_ctx *ctx) {
  CKS(cusparseDestroy(sp));
  test_finalize(ctx);
}

/* the zero pivot an ilu02 zero-pivot query (status s, position *pos) reports, or -1 */
static int zero_pivot(cusparseStatus_t s, const int *pos) {
  if (s == CUSPARSE_STATUS_ZERO_PIVOT) return *pos;
  if (s != CUSPARSE_STATUS_SUCCESS) TEST_FAIL("zero-pivot query: %s", cusparseGetErrorString(s));
  return -1;
}

/* A's arrays on the device (32-bit row offsets, as the legacy routines take them); v is cuSPARSE's to factor */
struct dev {
  int     mb, nnzb, bs;
  int    *rp, *ci;
  double *v, *x, *t, *y;
};

/* csrilu02 (analysis, factor), then SpSV with L and U on the factored values: d->y = M^-1 d->x. Returns the zero
   pivot cuSPARSE found (structural at the analysis, numerical at the factorization; d->y is then not set), or -1. */
static int csr_ilu_cusparse(const struct dev *d) {
  const cusparseSolvePolicy_t pol = CUSPARSE_SOLVE_POLICY_USE_LEVEL;
  const cusparseOperation_t   op  = CUSPARSE_OPERATION_NON_TRANSPOSE;
  const double                one = 1.0;
  cusparseFillMode_t          lo = CUSPARSE_FILL_MODE_LOWER, up = CUSPARSE_FILL_MODE_UPPER;
  cusparseDiagType_t          unit = CUSPARSE_DIAG_TYPE_UNIT, nonunit = CUSPARSE_DIAG_TYPE_NON_UNIT;
  cusparseMatDescr_t          dM;
  csrilu02Info_t              iM;
  cusparseSpMatDescr_t        mL, mU;
  cusparseDnVecDescr_t        vx, vt, vy;
  cusparseSpSVDescr_t         sL, sU;
  int                         sm, pos;
  size_t                      bl, bu;
  void                       *buf, *bufl, *bufu;

  CKS(cusparseCreateMatDescr(&dM));
  CKS(cusparseSetMatIndexBase(dM, CUSPARSE_INDEX_BASE_ZERO));
  CKS(cusparseSetMatType(dM, CUSPARSE_MATRIX_TYPE_GENERAL));
  CKS(cusparseCreateCsrilu02Info(&iM));
  CKS(cusparseDcsrilu02_bufferSize(sp, d->mb, d->nnzb, dM, d->v, d->rp, d->ci, iM, &sm));
  CK(cudaMalloc(&buf, (size_t)sm + 256));
  CKS(cusparseDcsrilu02_analysis(sp, d->mb, d->nnzb, dM, d->v, d->rp, d->ci, iM, pol, buf));
  pos = zero_pivot(cusparseXcsrilu02_zeroPivot(sp, iM, &pos), &pos); /* a missing diagonal */
  if (pos < 0) {
    CKS(cusparseDcsrilu02(sp, d->mb, d->nnzb, dM, d->v, d->rp, d->ci, iM, pol, buf));
    pos = zero_pivot(cusparseXcsrilu02_zeroPivot(sp, iM, &pos), &pos); /* blocking: the factor is done */
  }
  if (pos < 0) { /* the two triangles of the factor, both read from its one array (SpSV's analysis after the factor) */
    CKS(cusparseCreateCsr(&mL, d->mb, d->mb, d->nnzb, d->rp, d->ci, d->v, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                          CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
    CKS(cusparseCreateCsr(&mU, d->mb, d->mb, d->nnzb, d->rp, d->ci, d->v, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                          CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
    CKS(cusparseSpMatSetAttribute(mL, CUSPARSE_SPMAT_FILL_MODE, &lo, sizeof lo));
    CKS(cusparseSpMatSetAttribute(mL, CUSPARSE_SPMAT_DIAG_TYPE, &unit, sizeof unit));
    CKS(cusparseSpMatSetAttribute(mU, CUSPARSE_SPMAT_FILL_MODE, &up, sizeof up));
    CKS(cusparseSpMatSetAttribute(mU, CUSPARSE_SPMAT_DIAG_TYPE, &nonunit, sizeof nonunit));
    CKS(cusparseCreateDnVec(&vx, d->mb, d->x, CUDA_R_64F));
    CKS(cusparseCreateDnVec(&vt, d->mb, d->t, CUDA_R_64F));
    CKS(cusparseCreateDnVec(&vy, d->mb, d->y, CUDA_R_64F));
    CKS(cusparseSpSV_createDescr(&sL));
    CKS(cusparseSpSV_createDescr(&sU));
    CKS(cusparseSpSV_bufferSize(sp, op, &one, mL, vx, vt, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, sL, &bl));
    CKS(cusparseSpSV_bufferSize(sp, op, &one, mU, vt, vy, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, sU, &bu));
    CK(cudaMalloc(&bufl, bl + 256)); /* each kept until its solve: SpSV's analysis lives in it */
    CK(cudaMalloc(&bufu, bu + 256));
    CKS(cusparseSpSV_analysis(sp, op, &one, mL, vx, vt, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, sL, bufl));
    CKS(cusparseSpSV_analysis(sp, op, &one, mU, vt, vy, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, sU, bufu));
    CKS(cusparseSpSV_solve(sp, op, &one, mL, vx, vt, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, sL));
    CKS(cusparseSpSV_solve(sp, op, &one, mU, vt, vy, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, sU));
    CK(cudaDeviceSynchronize());
    CKS(cusparseSpSV_destroyDescr(sL));
    CKS(cusparseSpSV_destroyDescr(sU));
    CKS(cusparseDestroyDnVec(vx));
    CKS(cusparseDestroyDnVec(vt));
    CKS(cusparseDestroyDnVec(vy));
    CKS(cusparseDestroySpMat(mL));
    CKS(cusparseDestroySpMat(mU));
    CK(cudaFree(bufl));
    CK(cudaFree(bufu));
  }
  CKS(cusparseDestroyCsrilu02Info(iM));
  CKS(cusparseDestroyMatDescr(dM));
  CK(cudaFree(buf));
  return pos;
}

/* bsrilu02 then bsrsv2 with L and U, one buffer for the three (tc07's sequence); returns as csr_ilu_cusparse */
static int bsr_ilu_cusparse(const struct dev *d) {
  const cusparseDirection_t   dir = CUSPARSE_DIRECTION_ROW;
  const cusparseOperation_t   op  = CUSPARSE_OPERATION_NON_TRANSPOSE;
  const cusparseSolvePolicy_t pol = CUSPARSE_SOLVE_POLICY_USE_LEVEL;
  const double                one = 1.0;
  cusparseMatDescr_t          dM, dL, dU;
  bsrilu02Info_t              iM;
  bsrsv2Info_t                iL, iU;
  int                         sm, sl, su, pos;
  void                       *buf;

  CKS(cusparseCreateMatDescr(&dM));
  CKS(cusparseSetMatIndexBase(dM, CUSPARSE_INDEX_BASE_ZERO));
  CKS(cusparseSetMatType(dM, CUSPARSE_MATRIX_TYPE_GENERAL));
  CKS(cusparseCreateMatDescr(&dL));
  CKS(cusparseSetMatIndexBase(dL, CUSPARSE_INDEX_BASE_ZERO));
  CKS(cusparseSetMatType(dL, CUSPARSE_MATRIX_TYPE_GENERAL));
  CKS(cusparseSetMatFillMode(dL, CUSPARSE_FILL_MODE_LOWER));
  CKS(cusparseSetMatDiagType(dL, CUSPARSE_DIAG_TYPE_UNIT));
  CKS(cusparseCreateMatDescr(&dU));
  CKS(cusparseSetMatIndexBase(dU, CUSPARSE_INDEX_BASE_ZERO));
  CKS(cusparseSetMatType(dU, CUSPARSE_MATRIX_TYPE_GENERAL));
  CKS(cusparseSetMatFillMode(dU, CUSPARSE_FILL_MODE_UPPER));
  CKS(cusparseSetMatDiagType(dU, CUSPARSE_DIAG_TYPE_NON_UNIT));
  CKS(cusparseCreateBsrilu02Info(&iM));
  CKS(cusparseCreateBsrsv2Info(&iL));
  CKS(cusparseCreateBsrsv2Info(&iU));
  CKS(cusparseDbsrilu02_bufferSize(sp, dir, d->mb, d->nnzb, dM, d->v, d->rp, d->ci, d->bs, iM, &sm));
  CKS(cusparseDbsrsv2_bufferSize(sp, dir, op, d->mb, d->nnzb, dL, d->v, d->rp, d->ci, d->bs, iL, &sl));
  CKS(cusparseDbsrsv2_bufferSize(sp, dir, op, d->mb, d->nnzb, dU, d->v, d->rp, d->ci, d->bs, iU, &su));
  if (sl > sm) sm = sl;
  if (su > sm) sm = su;
  CK(cudaMalloc(&buf, (size_t)sm + 256));
  CKS(cusparseDbsrilu02_analysis(sp, dir, d->mb, d->nnzb, dM, d->v, d->rp, d->ci, d->bs, iM, pol, buf));
  pos = zero_pivot(cusparseXbsrilu02_zeroPivot(sp, iM, &pos), &pos);
  if (pos < 0) {
    CKS(cusparseDbsrsv2_analysis(sp, dir, op, d->mb, d->nnzb, dL, d->v, d->rp, d->ci, d->bs, iL, pol, buf));
    CKS(cusparseDbsrsv2_analysis(sp, dir, op, d->mb, d->nnzb, dU, d->v, d->rp, d->ci, d->bs, iU, pol, buf));
    CKS(cusparseDbsrilu02(sp, dir, d->mb, d->nnzb, dM, d->v, d->rp, d->ci, d->bs, iM, pol, buf));
    pos = zero_pivot(cusparseXbsrilu02_zeroPivot(sp, iM, &pos), &pos);
  }
  if (pos < 0) {
    CKS(cusparseDbsrsv2_solve(sp, dir, op, d->mb, d->nnzb, &one, dL, d->v, d->rp, d->ci, d->bs, iL, d->x, d->t, pol,
                              buf));
    CKS(cusparseDbsrsv2_solve(sp, dir, op, d->mb, d->nnzb, &one, dU, d->v, d->rp, d->ci, d->bs, iU, d->t, d->y, pol,
                              buf));
    CK(cudaDeviceSynchronize());
  }
  CKS(cusparseDestroyBsrilu02Info(iM));
  CKS(cusparseDestroyBsrsv2Info(iL));
  CKS(cusparseDestroyBsrsv2Info(iU));
  CKS(cusparseDestroyMatDescr(dM));
  CKS(cusparseDestroyMatDescr(dL));
  CKS(cusparseDestroyMatDescr(dU));
  CK(cudaFree(buf));
  return pos;
}

/* y = M^-1 x (host arrays) by cuSPARSE's ILU(0) of a csr or bsr matrix; the zero pivot it found, or -1 */
static int cusparse_ilu_apply(pds_mat A, const double *x, double *y) {
  const int       bsr = !strcmp(pds_mat_get_type(A), "bsr");
  const pds_size *rp64;
  const pds_int  *ci;
  const pds_real *v;
  pds_int         n;
  int            *rp, pos;
  size_t          nv;
  struct dev      d;

  if (bsr) TEST_CALL(pds_mat_bsr_get_arrays(A, &rp64, &ci, &v));
  else TEST_CALL(pds_mat_csr_get_arrays(A, &rp64, &ci, &v));
  TEST_CALL(pds_mat_get_block_size(A, &d.bs));
  TEST_CALL(pds_mat_get_size(A, &n, NULL));
  d.mb = n / d.bs, d.nnzb = (int)rp64[d.mb], nv = (size_t)d.nnzb * d.bs * d.bs;
  rp = malloc(sizeof *rp * (size_t)(d.mb + 1));
  TEST_ASSERT(rp);
  for (int i = 0; i <= d.mb; i++) rp[i] = (int)rp64[i];
  CK(cudaMalloc((void **)&d.rp, sizeof(int) * (size_t)(d.mb + 1)));
  CK(cudaMalloc((void **)&d.ci, sizeof(int) * (size_t)d.nnzb));
  CK(cudaMalloc((void **)&d.v, sizeof(double) * nv));
  CK(cudaMalloc((void **)&d.x, sizeof(double) * (size_t)n));
  CK(cudaMalloc((void **)&d.t, sizeof(double) * (size_t)n));
  CK(cudaMalloc((void **)&d.y, sizeof(double) * (size_t)n));
  CK(cudaMemcpy(d.rp, rp, sizeof(int) * (size_t)(d.mb + 1), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d.ci, ci, sizeof(int) * (size_t)d.nnzb, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d.v, v, sizeof(double) * nv, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d.x, x, sizeof(double) * (size_t)n, cudaMemcpyHostToDevice));
  pos = bsr ? bsr_ilu_cusparse(&d) : csr_ilu_cusparse(&d);
  if (pos < 0) CK(cudaMemcpy(y, d.y, sizeof(double) * (size_t)n, cudaMemcpyDeviceToHost));
  CK(cudaFree(d.rp));
  CK(cudaFree(d.ci));
  CK(cudaFree(d.v));
  CK(cudaFree(d.x));
  CK(cudaFree(d.t));
  CK(cudaFree(d.y));
  free(rp);
  return pos;
}

/* max |a - b| / max |b| (NaN sticks) */
static double rel_diff(const double *a, const double *b, pds_int n) {
  double e = 0, m = 0;

  for (pds_int i = 0; i < n; i++) {
    const double d = fabs(a[i] - b[i]);

    if (!(d <= e)) e = d;
    if (fabs(b[i]) > m) m = fabs(b[i]);
  }
  return m > 0 ? e / m : e;
}

/* y = pc x on the device, read into yh and held against cuSPARSE's want to tol relative (rel_diff); what, variant
   and when ("" or ", refactored ...") name the case in the failure */
static void expect_near_cusparse(pds_precond pc, pds_vec x, pds_vec y, double *yh, const double *want, pds_int n,
                                 double tol, const char *what, const char *variant, const char *when) {
  double d;

  TEST_CALL(pds_precond_apply(pc, x, y));
  TEST_CALL(pds_vec_get_values(y, yh, PDS_MEM_HOST));
  d = rel_diff(yh, want, n);
  if (!(d <= tol))
    TEST_FAIL("%s, variant %s%s: M^-1 x differs from cuSPARSE's ILU(0) by %.3e relative", what, variant, when, d);
}

#endif
