/* tests/cuda/tc04_spmv_classes.c: the CSR product y = alpha A x + beta y on /gpu/cuda against /cpu/ref, on the
 * matrix classes whose row lengths pick each kernel of the plan (irregular, power-law, a few dense rows, many empty
 * rows) and on edge cases (one row, all rows empty, a single huge row alone or among empty rows, random lengths,
 * sizes that fill whole merge tiles, sizes that are no multiple of anything, over 2^21 rows on the stream kernel):
 * beta = 0 (y holds NaN and must not be read) and beta != 0, and the transpose; each twice, for the same bits; the
 * plan's kernel as -view prints it. The merge-path kernel is also run on every case through its launcher (with the
 * transpose's permutation too).
 * Tolerance: |y_i - ref_i| <= 1e-12 (|alpha| sum_j |a_ij x_j| + |beta y_i|). PDS_TEST_SMALL: smaller sizes. */
#include <cuda_runtime_api.h>
#include <stdint.h>

#include "test.h"
#include "backend/cuda/cuda_common.h"

static const pds_real ALPHA[2] = {1.0, -0.75}, BETA[2] = {0.0, 0.5};

/* ---- host CSR matrices -------------------------------------------------------------------------------------- */
typedef struct {
  pds_int   n, ncols;
  pds_size  nnz, cap;
  pds_size *rp;
  pds_int  *ci;
  pds_real *v;
} hcsr;

static unsigned long long rng = 88172645463325252ull;
static unsigned long long rnd(void) { /* xorshift64 */
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  return rng;
}
static double urand(void) { return (double)(rnd() >> 11) * 0x1.0p-53; } /* [0, 1) */

static hcsr mat_new(pds_int n, pds_int ncols) {
  hcsr A = {n, ncols, 0, 1024, NULL, NULL, NULL};

  A.rp = calloc((size_t)n + 1, sizeof *A.rp), A.ci = malloc(1024 * sizeof *A.ci), A.v = malloc(1024 * sizeof *A.v);
  if (!A.rp || !A.ci || !A.v) TEST_FAIL("out of host memory");
  return A;
}
static void mat_add(hcsr *A, pds_int col, pds_real val) {
  if (A->nnz == A->cap) {
    A->cap *= 2;
    A->ci = realloc(A->ci, (size_t)A->cap * sizeof *A->ci), A->v = realloc(A->v, (size_t)A->cap * sizeof *A->v);
    if (!A->ci || !A->v) TEST_FAIL("out of host memory");
  }
  A->ci[A->nnz] = col, A->v[A->nnz++] = val;
}
static void mat_end_row(hcsr *A, pds_int i) { A->rp[i + 1] = A->nnz; }
static void mat_free(hcsr *A) { free(A->rp), free(A->ci), free(A->v); }
static pds_real val(void) { return 2 * urand() - 1; }
static void     row7(hcsr *A, pds_int i) { /* a banded 7-entry row */
  for (int k = -3; k <= 3; k++) mat_add(A, (pds_int)(((pds_size)i + k * 97 + 7 * (pds_size)A->ncols) % A->ncols), val());
}

/* the benchmark's class: rows of 7 and every every-th row with len random columns */
static hcsr irregular(pds_int n, int every, int len) {
  hcsr A = mat_new(n, n);

  for (pds_int i = 0; i < n; i++) {
    if (i % every == 0)
      for (int k = 0; k < len; k++) mat_add(&A, (pds_int)(rnd() % (unsigned)n), val());
    else row7(&A, i);
    mat_end_row(&A, i);
  }
  return A;
}
/* Pareto row lengths (P(len > l) = l^-1.2, at most cap), random columns */
static hcsr powerlaw(pds_int n, int cap) {
  hcsr A = mat_new(n, n);

  for (pds_int i = 0; i < n; i++) {
    double l   = pow(1 - urand(), -1 / 1.2);
    int    len = l > cap ? cap : (int)l;

    for (int k = 0; k < len; k++) mat_add(&A, (pds_int)(rnd() % (unsigned)n), val());
    mat_end_row(&A, i);
  }
  return A;
}
/* nd rows with every column, the others banded rows of 7 */
static hcsr dense_rows(pds_int n, int nd) {
  hcsr A = mat_new(n, n);

  for (pds_int i = 0; i < n; i++) {
    if (i % (n / nd) == n / nd / 2)
      for (pds_int j = 0; j < n; j++) mat_add(&A, j, val());
    else row7(&A, i);
    mat_end_row(&A, i);
  }
  return A;
}
/* three rows in four empty, the others 8 to 24 banded entries */
static hcsr empty_rows(pds_int n) {
  hcsr A = mat_new(n, n);

  for (pds_int i = 0; i < n; i++) {
    if (rnd() % 4 == 0)
      for (int k = 0, len = 8 + (int)(rnd() % 17); k < len; k++) mat_add(&A, (pds_int)((i + 31 * k) % n), val());
    mat_end_row(&A, i);
  }
  return A;
}
/* n rows of lengths drawn from [lo, hi] over ncols columns; huge >= 0: that row has every column, the rest lo..hi */
static hcsr lengths(pds_int n, pds_int ncols, int lo, int hi, pds_int huge) {
  hcsr A = mat_new(n, ncols);

  for (pds_int i = 0; i < n; i++) {
    int len = i == huge ? ncols : lo + (int)(rnd() % (unsigned)(hi - lo + 1));

    for (int k = 0; k < len; k++) mat_add(&A, i == huge ? k : (pds_int)(rnd() % (unsigned)ncols), val());
    mat_end_row(&A, i);
  }
  return A;
}

/* A^T as a CSR structure over A's values: trp, tri (row of each entry) and perm (the entry of A), stable by column */
static void transpose(const hcsr *A, pds_size **trp, pds_int **tri, pds_int **perm) {
  pds_size *next = calloc((size_t)A->ncols + 1, sizeof *next);

  *trp = calloc((size_t)A->ncols + 1, sizeof **trp);
  *tri = malloc(((size_t)A->nnz + 1) * sizeof **tri), *perm = malloc(((size_t)A->nnz + 1) * sizeof **perm);
  if (!next || !*trp || !*tri || !*perm) TEST_FAIL("out of host memory");
  for (pds_size k = 0; k < A->nnz; k++) (*trp)[A->ci[k] + 1]++;
  for (pds_int j = 0; j < A->ncols; j++) (*trp)[j + 1] += (*trp)[j];
  memcpy(next, *trp, (size_t)A->ncols * sizeof *next);
  for (pds_int i = 0; i < A->n; i++)
    for (pds_size k = A->rp[i]; k < A->rp[i + 1]; k++) {
      pds_size q = next[A->ci[k]]++;

      (*tri)[q] = i, (*perm)[q] = (pds_int)k;
    }
  free(next);
}

/* ---- one operator (A or A^T) with its inputs and the reference results ------------------------------------------ */
typedef struct {
  pds_int         nout, nin;
  pds_size        nnz;
  const pds_size *rp;
  const pds_int  *ci, *perm;
  const pds_real *v;
  pds_real       *x, *y0, *ref[2], *scale[2]; /* ref/scale for (ALPHA[m], BETA[m]) */
} op;

static void op_scales(op *o) {
  for (int m = 0; m < 2; m++) {
    o->scale[m] = malloc(((size_t)o->nout + 1) * sizeof(pds_real));
    if (!o->scale[m]) TEST_FAIL("out of host memory");
    for (pds_int i = 0; i < o->nout; i++) {
      double s = 0;

      for (pds_size k = o->rp[i]; k < o->rp[i + 1]; k++) s += fabs(o->v[o->perm ? o->perm[k] : k] * o->x[o->ci[k]]);
      o->scale[m][i] = fabs(ALPHA[m]) * s + fabs(BETA[m] * o->y0[i]);
    }
  }
}
static pds_real *vec_rand(pds_int n) {
  pds_real *a = malloc(((size_t)n + 1) * sizeof *a);

  if (!a) TEST_FAIL("out of host memory");
  for (pds_int i = 0; i < n; i++) a[i] = val();
  return a;
}
static void check(const char *name, const char *what, int m, const op *o, const pds_real *y, const pds_real *y2) {
  for (pds_int i = 0; i < o->nout; i++)
    if (!(fabs(y[i] - o->ref[m][i]) <= 1e-12 * o->scale[m][i]))
      TEST_FAIL("%s, %s, alpha %g beta %g: y[%d] = %.17g, ref %.17g (scale %g)", name, what, ALPHA[m], BETA[m], (int)i,
                y[i], o->ref[m][i], o->scale[m][i]);
  if (memcmp(y, y2, (size_t)o->nout * sizeof *y))
    TEST_FAIL("%s, %s, alpha %g beta %g: two runs differ in their bits", name, what, ALPHA[m], BETA[m]);
}

/* y = ALPHA[m] A x + BETA[m] y through the API on ctx (y preset to y0, or NaN for beta = 0) */
static void api_product(pds_mat A, int trans, int m, const op *o, pds_vec x, pds_vec y, pds_real *out) {
  if (BETA[m] != 0) TEST_CALL(pds_vec_set_values(y, o->y0, PDS_MEM_HOST));
  else TEST_CALL(pds_vec_set(y, NAN));
  if (trans) TEST_CALL(pds_mat_apply_transpose(A, x, y));
  else TEST_CALL(pds_mat_apply_add(A, ALPHA[m], x, BETA[m], y));
  TEST_CALL(pds_vec_get_values(y, out, PDS_MEM_HOST));
}

/* The merge-path kernel forced through its launcher, on device copies of exactly the sizes of the arrays (so that
   compute-sanitizer sees any access past them). */
#define CU(call)                                                                   \
  do {                                                                             \
    cudaError_t e_ = (call);                                                       \
    if (e_ != cudaSuccess) TEST_FAIL("%s: %s", #call, cudaGetErrorString(e_));     \
  } while (0)
static void *dev_of(const void *h, size_t bytes) {
  void *d = NULL;

  if (!bytes) return NULL;
  CU(cudaMalloc(&d, bytes));
  CU(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice));
  return d;
}
static void forced_merge(const char *name, const op *o, int trans) {
  pds_cuda_csr_plan pl;
  pds_size         *rp   = dev_of(o->rp, ((size_t)o->nout + 1) * sizeof *o->rp);
  pds_int          *ci   = dev_of(o->ci, (size_t)o->nnz * sizeof *o->ci);
  pds_int          *perm = o->perm ? dev_of(o->perm, (size_t)o->nnz * sizeof *o->perm) : NULL;
  pds_real         *v = dev_of(o->v, (size_t)o->nnz * sizeof *o->v), *x = dev_of(o->x, (size_t)o->nin * sizeof *o->x);
  pds_real         *y = dev_of(o->y0, (size_t)o->nout * sizeof *o->y0);
  pds_real         *h = malloc(2 * (size_t)o->nout * sizeof *h);
  char              what[64];

  TEST_ASSERT(h);
  memset(&pl, 0, sizeof pl);
  pl.merge = 1, pl.ncta = (int)PDS_CUDA_MERGE_CTAS(o->nout, o->nnz);
  CU(cudaMalloc((void **)&pl.coord, ((size_t)pl.ncta + 1) * sizeof *pl.coord));
  CU(cudaMalloc((void **)&pl.carry, 2 * (size_t)pl.ncta * sizeof *pl.carry));
  CU(pds_cuda_csr_merge_setup(0, &pl, o->nout, o->nnz, rp));
  snprintf(what, sizeof what, "forced merge-path%s, %d CTAs", trans ? ", transpose" : "", pl.ncta);
  for (int m = 0; m < 2; m++) {
    for (int run = 0; run < 2; run++) {
      if (BETA[m] != 0) CU(cudaMemcpy(y, o->y0, (size_t)o->nout * sizeof *y, cudaMemcpyHostToDevice));
      else CU(cudaMemset(y, 0xff, (size_t)o->nout * sizeof *y)); /* NaN: beta = 0 must not read y */
      CU(pds_cuda_csr_spmv(0, &pl, o->nout, rp, ci, v, perm, ALPHA[m], x, BETA[m], y));
      CU(cudaMemcpy(h + run * o->nout, y, (size_t)o->nout * sizeof *y, cudaMemcpyDeviceToHost));
    }
    check(name, what, m, o, h, h + o->nout);
  }
  CU(cudaFree(pl.coord));
  CU(cudaFree(pl.carry));
  CU(cudaFree(rp));
  CU(cudaFree(ci));
  CU(cudaFree(perm));
  CU(cudaFree(v));
  CU(cudaFree(x));
  CU(cudaFree(y));
  free(h);
}

/* -view's plan line for A must contain expect */
static void check_plan(const char *name, pds_mat A, const char *expect) {
  FILE  *f = tmpfile();
  char   text[1024];
  size_t len;

  TEST_ASSERT(f);
  TEST_CALL(pds_mat_view(A, f));
  rewind(f);
  len       = fread(text, 1, sizeof text - 1, f);
  text[len] = 0;
  fclose(f);
  if (!strstr(text, "cuda plan: ") || !strstr(text, expect))
    TEST_FAIL("%s: the plan should be '%s'; -view says:\n%s", name, expect, text);
}

static void run_case(pds_ctx ctx, pds_ctx ref, const char *name, hcsr *A, const char *expect) {
  op        o[2]; /* A, A^T */
  pds_size *trp;
  pds_int  *tri, *perm;
  pds_mat   Ag, Ar;
  pds_real *out = malloc(2 * ((size_t)(A->n > A->ncols ? A->n : A->ncols) + 1) * sizeof *out);

  TEST_ASSERT(out);
  transpose(A, &trp, &tri, &perm);
  o[0] = (op){A->n, A->ncols, A->nnz, A->rp, A->ci, NULL, A->v, vec_rand(A->ncols), vec_rand(A->n), {0}, {0}};
  o[1] = (op){A->ncols, A->n, A->nnz, trp, tri, perm, A->v, vec_rand(A->n), vec_rand(A->ncols), {0}, {0}};
  TEST_CALL(pds_mat_create_csr(ctx, A->n, A->ncols, A->rp, A->ci, A->v, PDS_MEM_HOST, PDS_COPY_VALUES, &Ag));
  TEST_CALL(pds_mat_create_csr(ref, A->n, A->ncols, A->rp, A->ci, A->v, PDS_MEM_HOST, PDS_COPY_VALUES, &Ar));
  for (int t = 0; t < 2; t++) {
    pds_vec xr, yr, xg, yg;

    op_scales(&o[t]);
    TEST_CALL(pds_vec_create(ref, o[t].nin, &xr));
    TEST_CALL(pds_vec_create(ref, o[t].nout, &yr));
    TEST_CALL(pds_vec_create(ctx, o[t].nin, &xg));
    TEST_CALL(pds_vec_create(ctx, o[t].nout, &yg));
    TEST_CALL(pds_vec_set_values(xr, o[t].x, PDS_MEM_HOST));
    TEST_CALL(pds_vec_set_values(xg, o[t].x, PDS_MEM_HOST));
    for (int m = 0; m < 2; m++) {
      o[t].ref[m] = malloc(((size_t)o[t].nout + 1) * sizeof(pds_real));
      TEST_ASSERT(o[t].ref[m]);
      if (t == 0) api_product(Ar, 0, m, &o[t], xr, yr, o[t].ref[m]);
      else if (m == 0) api_product(Ar, 1, m, &o[t], xr, yr, o[t].ref[m]);
      else /* the API's transpose product has alpha 1, beta 0: the other pair from it */
        for (pds_int i = 0; i < o[t].nout; i++) o[t].ref[1][i] = ALPHA[1] * o[t].ref[0][i] + BETA[1] * o[t].y0[i];
      if (t == 1 && m == 1) continue;
      api_product(Ag, t, m, &o[t], xg, yg, out);
      api_product(Ag, t, m, &o[t], xg, yg, out + o[t].nout);
      check(name, t ? "transpose" : "product", m, &o[t], out, out + o[t].nout);
    }
    forced_merge(name, &o[t], t);
    TEST_CALL(pds_vec_destroy(&xr));
    TEST_CALL(pds_vec_destroy(&yr));
    TEST_CALL(pds_vec_destroy(&xg));
    TEST_CALL(pds_vec_destroy(&yg));
  }
  check_plan(name, Ag, expect);
  TEST_CALL(pds_mat_destroy(&Ag));
  TEST_CALL(pds_mat_destroy(&Ar));
  for (int t = 0; t < 2; t++) {
    free(o[t].x), free(o[t].y0);
    for (int m = 0; m < 2; m++) free(o[t].ref[m]), free(o[t].scale[m]);
  }
  free(trp), free(tri), free(perm), free(out);
  mat_free(A);
}

int main(int argc, char **argv) {
  pds_ctx ctx = test_init(argc, argv), ref;
  int     small = getenv("PDS_TEST_SMALL") != NULL; /* for compute-sanitizer */
  pds_int big = small ? 20011 : 100003, emp = small ? 20000 : 100000, huge = small ? 20000 : 100000;
  hcsr    A;

  TEST_CALL(pds_ctx_create("/cpu/ref", &ref));
  A = irregular(big, small ? 256 : 1024, small ? 512 : 2048);
  run_case(ctx, ref, "irregular", &A, "merge-path");
  A = powerlaw(big, small ? 4000 : 20000);
  run_case(ctx, ref, "power-law", &A, "merge-path");
  A = dense_rows(small ? 8000 : 30000, 8);
  run_case(ctx, ref, "dense rows", &A, "merge-path");
  /* 65536 rows and more with rows of at most 64 entries: the stream kernel; fewer: merge-path (a quarter empty) */
  A = empty_rows(emp);
  run_case(ctx, ref, "empty rows", &A, emp >= PDS_CUDA_STREAM_MINROWS ? "stream kernel" : "merge-path");
  if (!small) { /* over 8192 chunks of 256 rows (and no multiple of 256), where the plain stream product's grid has a
                   CTA per chunk and the grid of the fused one strides (cuda_csr.cu) */
    A = lengths(2097152 + 1003, 2097152 + 1003, 7, 7, -1);
    run_case(ctx, ref, "rows of 7, over 2^21 rows", &A, "stream kernel");
  }
  A = lengths(1, 50, 7, 7, -1);
  run_case(ctx, ref, "one row", &A, "4 lanes per row");
  A = lengths(1000, 1000, 0, 0, -1);
  run_case(ctx, ref, "all rows empty", &A, "thread per row");
  A = lengths(1, huge, 0, 0, 0);
  run_case(ctx, ref, "a single huge row", &A, "32 lanes per row, row splitting for 1 rows");
  A = lengths(3001, huge, 0, 0, 1500);
  run_case(ctx, ref, "a huge row among empty rows", &A, "merge-path");
  A = lengths(small ? 300 : 1000, 5000, 0, 3000, -1);
  run_case(ctx, ref, "random lengths 0..3000", &A, "row splitting");
  A = lengths(256, 1000, 7, 7, -1); /* 2048 items: one whole merge tile */
  run_case(ctx, ref, "one whole tile", &A, "4 lanes per row");
  A = lengths(512, 1000, 7, 7, -1); /* two whole tiles */
  run_case(ctx, ref, "two whole tiles", &A, "4 lanes per row");
  A = lengths(2047, 3, 0, 1, -1); /* a tile of 2047 rows and up to 2047 entries: ragged ends */
  run_case(ctx, ref, "short ragged rows", &A, "merge-path"); /* half the rows empty */
  TEST_CALL(pds_ctx_destroy(&ref));
  test_finalize(&ctx);
  return 0;
}
