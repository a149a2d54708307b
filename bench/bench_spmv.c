/* bench/bench_spmv.c: sparse matrix-vector products on /cpu/ref and /cpu/omp, same matrices, same run, against
 * a STREAM-like copy: CSR on the 7-point Laplacian of an n^3 grid (y = A x and y = A^T x), and BSR with
 * bs = 2..8 on the 7-point block pattern of an m^3 grid (m^3 bs ~ n^3 unknowns). One JSON line per case.
 *
 *   bench_spmv [-n 128] [-reps 20] [-warmup 3] [-bs 2,3,4,5,6,7,8] [-m M] [-no_bsr] [-no_transpose]
 *              [-copy_n N] [-help]
 *
 * The matrices are built here from CSR/BSR arrays (rows in natural x-fastest order, columns ascending), in
 * parallel loops over rows so that pages are first touched by the threads that read them. */
#include "bench_common.h"
#include "bench_poisson.h"

typedef struct {
  pds_mat  A;
  pds_vec  x, y;
  int      trans;
} spmv_arg;

static int k_apply(void *a) {
  spmv_arg *s = a;

  return s->trans ? pds_mat_apply_transpose(s->A, s->x, s->y) : pds_mat_apply(s->A, s->x, s->y);
}

/* Time y = A x (or A^T x) on each context, validate omp against ref first, print the JSON lines. */
static void run_case(const char *kernel, pds_mat A[2], int nb, int trans, long long nrows, long long nnz, int bs,
                     double bytes, double flops, bench_copy *cp, int warmup, int reps) {
  spmv_arg  s[2];
  bench_fn  fn[3]  = {bench_copy_run, k_apply, nb > 1 ? k_apply : NULL};
  void     *arg[3] = {cp, &s[0], &s[1]};
  double    t[3];
  double   *got = malloc((size_t)nrows * sizeof *got), *want = malloc((size_t)nrows * sizeof *want);

  if (!got || !want) exit(3);
  for (int b = 0; b < nb; b++) {
    pds_ctx ctx = pds_mat_get_ctx(A[b]);

    s[b].A = A[b], s[b].trans = trans;
    BENCH_CALL(pds_vec_create(ctx, nrows, &s[b].x)); /* square matrices here */
    BENCH_CALL(pds_vec_create(ctx, nrows, &s[b].y));
    BENCH_CALL(pds_vec_set_random(s[b].x, 42));
    BENCH_CALL(k_apply(&s[b]));
  }
  if (nb > 1) { /* relative error bound: c * (terms per row) * eps; the backends actually agree bitwise */
    char what[96];

    snprintf(what, sizeof what, "%s n=%lld bs=%d omp vs ref", kernel, nrows, bs);
    BENCH_CALL(pds_vec_get_values(s[1].y, got, PDS_MEM_HOST));
    BENCH_CALL(pds_vec_get_values(s[0].y, want, PDS_MEM_HOST));
    bench_check(what, got, want, nrows, 1e-15 * 8 * bs * 7);
  }
  bench_run(3, fn, arg, warmup, reps, t);
  for (int b = 0; b < nb; b++) {
    bench_result r = {"spmv", pds_ctx_get_backend(pds_mat_get_ctx(A[b])), kernel, nrows, nnz, bs,
                      pds_ctx_get_num_threads(pds_mat_get_ctx(A[b])), t[1 + b], bytes, flops,
                      bench_copy_bytes(cp) / t[0] * 1e-9, t[1], NULL, bench_last_min[1 + b],
                      bench_copy_bytes(cp) / bench_last_min[0] * 1e-9, bench_last_min[1]};

    bench_print(&r);
    BENCH_CALL(pds_vec_destroy(&s[b].x));
    BENCH_CALL(pds_vec_destroy(&s[b].y));
  }
  free(got), free(want);
}

/* A x for x = 1 on the Laplacian is 6 minus the number of neighbours: exact in floating point. */
static void check_poisson_ones(pds_mat A, long n) {
  long     N = n * n * n;
  pds_vec  x, y;
  double  *yv = malloc((size_t)N * sizeof *yv);

  if (!yv) exit(3);
  BENCH_CALL(pds_vec_create(pds_mat_get_ctx(A), N, &x));
  BENCH_CALL(pds_vec_create(pds_mat_get_ctx(A), N, &y));
  BENCH_CALL(pds_vec_set(x, 1.0));
  BENCH_CALL(pds_mat_apply(A, x, y));
  BENCH_CALL(pds_vec_get_values(y, yv, PDS_MEM_HOST));
  for (long c = 0; c < N; c++) {
    long nb[7];

    if (yv[c] != 7.0 - stencil7(n, c, nb)) {
      fprintf(stderr, "VALIDATION FAILED: poisson7 (A 1)_%ld = %g on %s, expected %d\n", c, yv[c],
              pds_ctx_get_backend(pds_mat_get_ctx(A)), 7 - stencil7(n, c, nb));
      exit(1);
    }
  }
  BENCH_CALL(pds_vec_destroy(&x));
  BENCH_CALL(pds_vec_destroy(&y));
  free(yv);
}

int main(int argc, char **argv) {
  static const char *const known[] = {"-n", "-reps", "-warmup", "-bs", "-m", "-no_bsr", "-no_transpose", "-copy_n",
                                      "-help", NULL};
  static const int         val[]   = {1, 1, 1, 1, 1, 0, 0, 1, 0};
  long                     n, reps, warmup, mopt, N, copy_n;
  const char              *bslist;
  pds_ctx                  ctx[2];
  pds_mat                  A[2];
  pds_size                *rp;
  pds_int                 *ci;
  pds_real                *v;
  bench_copy               cp;
  int                      nb;

  if (bench_flag(argc, argv, "-help")) {
    printf("bench_spmv: CSR (poisson7) and BSR (block 7-point) products on /cpu/ref and /cpu/omp (JSON lines)\n"
           "  -n N            CSR grid n^3 (default 128: 2.1M rows, 14.6M nonzeros)\n"
           "  -reps R         timed repetitions, median reported (default 20)\n"
           "  -warmup W       untimed repetitions first (default 3)\n"
           "  -bs LIST        BSR block sizes, comma separated (default 2,3,4,5,6,7,8)\n"
           "  -m M            BSR grid m^3 cells (default: round((n^3/bs)^(1/3)), about n^3 unknowns)\n"
           "  -no_bsr         CSR only\n"
           "  -no_transpose   skip y = A^T x\n"
           "  -copy_n N       length of the copy arrays (default 2^25)\n");
    return 0;
  }
  bench_check_options(argc, argv, known, val);
  n      = bench_int(argc, argv, "-n", 128);
  reps   = bench_int(argc, argv, "-reps", 20);
  warmup = bench_int(argc, argv, "-warmup", 3);
  mopt   = bench_int(argc, argv, "-m", 0);
  copy_n = bench_int(argc, argv, "-copy_n", 1L << 25);
  bslist = bench_str(argc, argv, "-bs", "2,3,4,5,6,7,8");
  if (n < 2 || n > 1290 || reps < 1 || warmup < 0 || mopt < 0 || copy_n < 1) {
    fprintf(stderr, "bench_spmv: need 2 <= n <= 1290, reps >= 1, warmup >= 0\n");
    return 2;
  }
  N  = n * n * n;
  nb = bench_contexts(ctx);
  bench_copy_init(&cp, (size_t)copy_n);
  {
    double t;
    bench_fn f = bench_copy_run;
    void    *a = &cp;

    bench_run(1, &f, &a, (int)warmup, (int)reps, &t);
    bench_print_copy("spmv", &cp, t);
  }

  /* CSR 7-point Laplacian. Bytes: nnz (8 vals + 4 colidx) + (N+1) 8 rowptr + N 8 (x, each entry counted once:
     the grid ordering reuses the 3 planes of x in cache) + N 8 (y write); flops 2 nnz.
     Transpose: the same model (ideal, no per-call scratch counted); /cpu/omp moves ~2.7x these bytes. */
  poisson7(n, &rp, &ci, &v);
  for (int b = 0; b < nb; b++) {
    BENCH_CALL(pds_mat_create_csr(ctx[b], (pds_int)N, (pds_int)N, rp, ci, v, PDS_MEM_HOST, PDS_USE_POINTER, &A[b]));
    check_poisson_ones(A[b], n);
  }
  {
    double nnz = (double)rp[N], bytes = 12.0 * nnz + 8.0 * (double)(N + 1) + 16.0 * (double)N;

    run_case("csr_spmv", A, nb, 0, N, (long long)nnz, 1, bytes, 2 * nnz, &cp, (int)warmup, (int)reps);
    if (!bench_flag(argc, argv, "-no_transpose"))
      run_case("csr_spmv_t", A, nb, 1, N, (long long)nnz, 1, bytes, 2 * nnz, &cp, (int)warmup, (int)reps);
  }
  for (int b = 0; b < nb; b++) BENCH_CALL(pds_mat_destroy(&A[b]));
  free(rp), free(ci), free(v);

  /* BSR block 7-point. Bytes: nnzb (8 bs^2 vals + 4 bcolidx) + (nbrows+1) 8 browptr + N 8 (x once) + N 8
     (y write); flops 2 nnzb bs^2. */
  if (!bench_flag(argc, argv, "-no_bsr")) {
    const char *p = bslist;

    while (*p) {
      char *end;
      long  bs = strtol(p, &end, 10);
      long  m  = mopt ? mopt : lround(cbrt((double)N / (double)bs));
      long  nc = m * m * m;

      if (end == p || bs < 1 || bs > 64) {
        fprintf(stderr, "bench_spmv: bad -bs list '%s'\n", bslist);
        return 2;
      }
      block7(m, (int)bs, &rp, &ci, &v);
      for (int b = 0; b < nb; b++)
        BENCH_CALL(pds_mat_create_bsr(ctx[b], (pds_int)nc, (pds_int)nc, (int)bs, rp, ci, v, PDS_MEM_HOST,
                                      PDS_USE_POINTER, &A[b]));
      {
        double nnzb = (double)rp[nc], nr = (double)nc * (double)bs;
        double bytes = nnzb * (8.0 * bs * bs + 4) + 8.0 * (double)(nc + 1) + 16.0 * nr;

        run_case("bsr_spmv", A, nb, 0, (long long)nr, (long long)(nnzb * bs * bs), (int)bs, bytes,
                 2 * nnzb * bs * bs, &cp, (int)warmup, (int)reps);
      }
      for (int b = 0; b < nb; b++) BENCH_CALL(pds_mat_destroy(&A[b]));
      free(rp), free(ci), free(v);
      p = *end == ',' ? end + 1 : end;
    }
  }
  for (int b = 0; b < nb; b++) BENCH_CALL(pds_ctx_destroy(&ctx[b]));
  bench_copy_free(&cp);
  return 0;
}
