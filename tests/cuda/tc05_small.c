/* tests/cuda/tc05_small.c: a whole CG / BiCGSTAB iteration in one launch, of one block on small systems
 * (cuda_small.cu) and of one cooperative grid on medium ones (cuda_coop.cu), against the kernel sequence they replace
 * (a second /gpu/cuda context made with PDS_CUDA_SMALL=0), bit for bit: iteration count, reason, residual norm,
 * history and solution, with the device loop and with the host loop; on every product plan the fused kernels take
 * (thread per row, 2 to 32 lanes per row: a diagonal, a tridiagonal, a 7-point band, a dense block; the stream plan
 * from 65536 rows; the shared matrices) and on those they do not take (merge-path, long rows, above PDS_CUDA_COOP_N:
 * the sequence, same bits). Which fused kernel ran is counted (pds_cuda_fused_count). A context whose cooperative
 * launches the device refuses (PDS_CUDA_COOP_PER_SM=-1: a grid one block per SM larger than fits) solves with the
 * sequence, same bits (not with PDS_TEST_SMALL). PDS_DEVICE_LOOP=0
 * (compute-sanitizer's racecheck and synccheck, which stop at false barrier errors inside conditional graphs): the
 * host loop only. PDS_TEST_SMALL=1 (the sanitizer runs): no system over 100000 rows. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdlib.h>

#include "test.h"
#include "backend/cuda/cuda_common.h"

static int g_devloop = 1; /* 0 when PDS_DEVICE_LOOP=0 */
enum { NONE, SMALL, COOP }; /* which fused kernel a system must take */
static const char *kname[3] = {"none", "the one-block kernel", "the cooperative kernel"};

typedef struct {
  pds_solver_result r;
  int               hlen;
  double           *h, *x;
} run;

static run solve(pds_ctx ctx, pds_mat A, pds_vec b, const char *method, int devloop) {
  pds_solver      s;
  pds_vec         x;
  pds_size        n;
  const pds_real *h;
  run             o;

  TEST_CALL(pds_vec_get_size(b, &n));
  TEST_CALL(pds_vec_duplicate(b, &x));
  TEST_CALL(pds_vec_set(x, 0.0));
  TEST_CALL(pds_solver_create(ctx, method, &s));
  TEST_CALL(pds_solver_set_operator(s, A));
  TEST_CALL(pds_solver_set_tolerances(s, 1e-10, 0.0, 300));
  TEST_CALL(pds_solver_set_history(s, 1));
  TEST_CALL(pds_solver_set_device_loop(s, devloop));
  TEST_CALL(pds_solver_solve(s, b, x));
  TEST_CALL(pds_vec_set(x, 0.0)); /* a second solve: the device loop's recording runs again */
  TEST_CALL(pds_solver_solve(s, b, x));
  TEST_CALL(pds_solver_get_result(s, &o.r));
  TEST_CALL(pds_solver_get_history(s, &o.hlen, &h));
  o.h = malloc(sizeof(double) * (size_t)(o.hlen + 1));
  o.x = malloc(sizeof(double) * (size_t)(n + 1));
  TEST_ASSERT(o.h && o.x);
  memcpy(o.h, h, sizeof(double) * (size_t)o.hlen);
  TEST_CALL(pds_vec_get_values(x, o.x, PDS_MEM_HOST));
  TEST_CALL(pds_solver_destroy(&s));
  TEST_CALL(pds_vec_destroy(&x));
  return o;
}

static void same(const run *a, const run *b, pds_size n, const char *what) {
  if (a->r.iterations != b->r.iterations || a->r.reason != b->r.reason || memcmp(&a->r.rnorm, &b->r.rnorm, 8) ||
      a->hlen != b->hlen || memcmp(a->h, b->h, sizeof(double) * (size_t)a->hlen) ||
      memcmp(a->x, b->x, sizeof(double) * (size_t)n))
    TEST_FAIL("%s: fused and sequence differ (iterations %d / %d, reasons %d / %d)", what, a->r.iterations,
              b->r.iterations, a->r.reason, b->r.reason);
}

/* A (host arrays) on both contexts, b = A * ones + a ripple; every method with and without the device loop */
static void check(pds_ctx fu, pds_ctx sq, pds_int n, const pds_size *rp, const pds_int *ci, const pds_real *v,
                  const char *name, int fused_expected) {
  const char *methods[2] = {"cg", "bicgstab"};
  pds_mat     Af, As;
  pds_vec     bf, bs;
  double     *bh = malloc(sizeof(double) * (size_t)n);
  long long   s0, s1, q0, q1;

  TEST_ASSERT(bh);
  /* copied in: the arrays are not written */
  TEST_CALL(pds_mat_create_csr(fu, n, n, (pds_size *)rp, (pds_int *)ci, (pds_real *)v, PDS_MEM_HOST, PDS_COPY_VALUES,
                               &Af));
  TEST_CALL(pds_mat_create_csr(sq, n, n, (pds_size *)rp, (pds_int *)ci, (pds_real *)v, PDS_MEM_HOST, PDS_COPY_VALUES,
                               &As));
  for (pds_int i = 0; i < n; i++) {
    bh[i] = 0.01 * (double)(i % 7);
    for (pds_size k = rp[i]; k < rp[i + 1]; k++) bh[i] += v[k];
  }
  TEST_CALL(pds_vec_create(fu, n, &bf));
  TEST_CALL(pds_vec_create(sq, n, &bs));
  TEST_CALL(pds_vec_set_values(bf, bh, PDS_MEM_HOST));
  TEST_CALL(pds_vec_set_values(bs, bh, PDS_MEM_HOST));
  for (int m = 0; m < 2; m++)
    for (int dl = g_devloop; dl >= 0; dl--) {
      char what[160];
      run  a, b;

      snprintf(what, sizeof what, "%s, %s, %s loop", name, methods[m], dl ? "device" : "host");
      TEST_CALL(pds_cuda_fused_count(fu, &s0, &q0));
      a = solve(fu, Af, bf, methods[m], dl);
      TEST_CALL(pds_cuda_fused_count(fu, &s1, &q1));
      if ((s1 > s0) != (fused_expected == SMALL) || (q1 > q0) != (fused_expected == COOP))
        TEST_FAIL("%s: one-block kernel %lld, cooperative kernel %lld iterations; expected %s", what, s1 - s0,
                  q1 - q0, kname[fused_expected]);
      b = solve(sq, As, bs, methods[m], dl);
      same(&a, &b, n, what);
      TEST_ASSERT(a.r.iterations > 0);
      free(a.h), free(a.x), free(b.h), free(b.x);
    }
  TEST_CALL(pds_cuda_fused_count(sq, &s0, &q0));
  TEST_ASSERT(s0 == 0 && q0 == 0); /* PDS_CUDA_SMALL=0 */
  TEST_CALL(pds_mat_destroy(&Af));
  TEST_CALL(pds_mat_destroy(&As));
  TEST_CALL(pds_vec_destroy(&bf));
  TEST_CALL(pds_vec_destroy(&bs));
  free(bh);
}

/* what a matrix of more than PDS_CUDA_SMALL_N rows must take: the cooperative kernel, unless -view says its plan is
   merge-path or splits long rows */
static int medium_kind(pds_mat A) {
  FILE *f = tmpfile();
  char  line[256];
  int   kind = COOP;

  TEST_ASSERT(f);
  TEST_CALL(pds_mat_view(A, f));
  rewind(f);
  while (fgets(line, sizeof line, f))
    if (strstr(line, "merge-path") || strstr(line, "row splitting")) kind = NONE;
  fclose(f);
  return kind;
}

/* a banded matrix of n rows with the given offsets (diagonally dominant, nonsymmetric when skew != 0) */
/* (dense0: row 0 also has every column, nonzero -1e-3 off the band: a row far longer than the others) */
static void banded_ex(pds_ctx fu, pds_ctx sq, pds_int n, const int *off, int noff, double skew, int dense0,
                      const char *name, int fused_expected) {
  pds_size *rp = malloc(sizeof *rp * (size_t)(n + 1));
  pds_int  *ci = malloc(sizeof *ci * ((size_t)n * (size_t)noff + (dense0 ? (size_t)n : 0)));
  pds_real *v  = malloc(sizeof *v * ((size_t)n * (size_t)noff + (dense0 ? (size_t)n : 0)));
  pds_size  k  = 0;

  TEST_ASSERT(rp && ci && v);
  rp[0] = 0;
  for (pds_int i = 0; i < n; i++) {
    if (i == 0 && dense0) {
      for (pds_int c = 0; c < n; c++) ci[k] = c, v[k] = c == 0 ? 2.0 * noff : -1e-3, k++;
      rp[1] = k;
      continue;
    }
    for (int j = 0; j < noff; j++) {
      pds_int c = i + off[j];

      if (c < 0 || c >= n) continue;
      ci[k] = c, v[k] = off[j] == 0 ? 2.0 * noff : -1.0 + skew * off[j] / (double)n;
      k++;
    }
    rp[i + 1] = k;
  }
  check(fu, sq, n, rp, ci, v, name, fused_expected);
  free(rp), free(ci), free(v);
}
static void banded(pds_ctx fu, pds_ctx sq, pds_int n, const int *off, int noff, double skew, const char *name,
                   int fused_expected) {
  banded_ex(fu, sq, n, off, noff, skew, 0, name, fused_expected);
}

int main(int argc, char **argv) {
  pds_ctx fu = test_init(argc, argv), sq;
  int     d1[1] = {0}, d3[3] = {-1, 0, 1}, d7[7] = {-64, -8, -1, 0, 1, 8, 64}, dd[96];
  char    buf[512];

  if (strcmp(pds_ctx_get_backend(fu), "/gpu/cuda")) { /* a CUDA test: nothing to do elsewhere */
    test_finalize(&fu);
    return 0;
  }
  g_devloop = !(getenv("PDS_DEVICE_LOOP") && !strcmp(getenv("PDS_DEVICE_LOOP"), "0"));
  setenv("PDS_CUDA_SMALL", "0", 1);
  TEST_CALL(pds_ctx_create("/gpu/cuda", &sq));
  unsetenv("PDS_CUDA_SMALL");
  for (int j = 0; j < 96; j++) dd[j] = j - 48;
  const int big = !(getenv("PDS_TEST_SMALL") && !strcmp(getenv("PDS_TEST_SMALL"), "1"));

  banded(fu, sq, 300, d1, 1, 0.0, "diagonal (thread per row)", SMALL);
  banded(fu, sq, 1000, d3, 3, 0.3, "tridiagonal (2 lanes)", SMALL);
  banded(fu, sq, 512, d7, 7, 0.0, "7-point (4 lanes)", SMALL);
  banded(fu, sq, 2048, d7, 7, 0.5, "7-point, 2048 rows", SMALL);
  banded(fu, sq, 600, dd, 96, 0.2, "96 per row (32 lanes)", SMALL);
  /* medium: the cooperative grid, on each plan it takes */
  banded(fu, sq, 2049, d7, 7, 0.5, "7-point, 2049 rows", COOP);
  banded(fu, sq, 10000, d1, 1, 0.0, "diagonal, 10000 rows (thread per row)", COOP);
  banded(fu, sq, 20011, d3, 3, 0.3, "tridiagonal, 20011 rows (2 lanes)", COOP);
  banded(fu, sq, 50000, d7, 7, 0.2, "7-point, 50000 rows (4 lanes)", COOP);
  banded(fu, sq, 4000, dd, 96, 0.2, "96 per row, 4000 rows (32 lanes)", COOP);
  banded(fu, sq, 70001, d7, 7, 0.3, "7-point, 70001 rows (stream plan)", COOP);
  banded_ex(fu, sq, 5000, d3, 3, 0.0, 1, "tridiagonal with a dense row (merge-path: the sequence)", NONE);
  if (big) { /* the refused cooperative launch: the sequence takes over, in the device loop's recording and in the host
                loop (not under compute-sanitizer, PDS_TEST_SMALL: memcheck reports the refused launch as an API error) */
    pds_ctx over;

    setenv("PDS_CUDA_COOP_PER_SM", "-1", 1);
    TEST_CALL(pds_ctx_create("/gpu/cuda", &over));
    unsetenv("PDS_CUDA_COOP_PER_SM");
    banded(over, sq, 50000, d7, 7, 0.2, "7-point, 50000 rows, cooperative launch refused", NONE);
    banded(over, sq, 70001, d7, 7, 0.3, "7-point, 70001 rows, cooperative launch refused", NONE);
    TEST_CALL(pds_ctx_destroy(&over));
  }
  if (big) {
    banded(fu, sq, 200000, d7, 7, 0.1, "7-point, 200000 rows (stream plan)", COOP);
    banded(fu, sq, PDS_CUDA_COOP_N + 1, d3, 3, 0.1, "tridiagonal, PDS_CUDA_COOP_N + 1 rows (the sequence)", NONE);
  }
  {
    const char *files[] = {"matrices/nos3.mtx",     "matrices/sherman1.mtx", "matrices/orsirr_1.mtx",
                           "matrices/gr_30_30.mtx", "matrices/bcsstk13.mtx", "matrices/pde900.mtx",
                           "matrices/bcsstk21.mtx", "matrices/crystm01.mtx", "matrices/s1rmq4m1.mtx",
                           "matrices/e20r0000.mtx"};

    for (int f = 0; f < 10; f++) {
      pds_mat         A;
      pds_int         n, m;
      const pds_size *rp;
      const pds_int  *ci;
      const pds_real *v;

      if (!test_shared_path(files[f], buf, sizeof buf)) break;
      TEST_CALL(pds_mm_read_mat(fu, buf, &A));
      TEST_CALL(pds_mat_get_size(A, &n, &m));
      TEST_CALL(pds_mat_csr_get_arrays(A, &rp, &ci, &v));
      check(fu, sq, n, rp, ci, v, files[f], n <= PDS_CUDA_SMALL_N ? SMALL : medium_kind(A));
      TEST_CALL(pds_mat_destroy(&A));
    }
  }
  TEST_CALL(pds_ctx_destroy(&sq));
  test_finalize(&fu);
  return 0;
}
