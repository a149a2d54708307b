/* bench/bench_bilu_cpu.c: block ILU(0) of stencil7 matrices (bilu0, paper 000) on the CPU backends: the
 * factorization (pds_precond_setup) and one application (forward + backward sweep) on /cpu/ref (natural order, one
 * thread) and /cpu/omp (the pipelined wavefront, or hyperplanes: src/backend/omp/omp_bilu0.c), same matrix, same run,
 * against a STREAM-like copy. (bench/gpu/bench_bilu measures the same with the GPU variants and cuSPARSE; this one
 * needs no GPU.)
 *
 *   bench_bilu_cpu [-sizes 25,35,55] [-bs 6] [-factors double|float] [-reps 5] [-warmup 1] [-copy_n N] [-help]
 *
 * Matrices: pds_stencil7_random on m^3 grids (diagonal dominance 2, seed 7: the same values on both backends; the
 * time of bilu0 does not depend on the values). Validation before reporting: /cpu/omp's y = M^-1 x has /cpu/ref's
 * bits (x = 1), else exit 1.
 * Byte models per point (n x n blocks, 8-byte reals, stencil7_bodies.h): factorization 64 n^2 read (the seven
 * blocks and the three neighbours' inverses) + 8 n^2 written; application 8 (8 n^2 + 4 n) (six arms and the inverse
 * twice, b, x, y; float factors 4 (8 n^2) + 32 n). Flops: factorization ~ (6 + 2/3) n^3, application 16 n^2 per point. */
#include "bench_common.h"

typedef struct {
  pds_precond P;
  pds_vec     b, y;
} bilu_arg;

static int k_factor(void *a) { return pds_precond_setup(((bilu_arg *)a)->P); }
static int k_apply(void *a) { return pds_precond_apply(((bilu_arg *)a)->P, ((bilu_arg *)a)->b, ((bilu_arg *)a)->y); }

int main(int argc, char **argv) {
  static const char *const known[] = {"-sizes", "-bs", "-factors", "-reps", "-warmup", "-copy_n", "-help", NULL};
  static const int         val[]   = {1, 1, 1, 1, 1, 1, 0};
  long                     bs, reps, warmup, copy_n;
  const char              *sizes, *factors;
  int                      single;
  pds_ctx                  ctx[2];
  bench_copy               cp;
  int                      nb, printed_copy = 0;

  if (bench_flag(argc, argv, "-help")) {
    printf("bench_bilu_cpu: bilu0 factorization and application t_p on /cpu/ref and /cpu/omp (JSON lines)\n"
           "  -sizes LIST    cubic grids m^3 (default 25,35,55)\n"
           "  -bs N          unknowns per point, 1..8 (default 6)\n"
           "  -factors F     double (default) or float: the factors' storage for the sweeps\n"
           "  -reps R        timed calls, median reported (default 5)\n"
           "  -warmup W      untimed calls first (default 1)\n"
           "  -copy_n N      length of the copy arrays (default 2^25)\n");
    return 0;
  }
  bench_check_options(argc, argv, known, val);
  sizes  = bench_str(argc, argv, "-sizes", "25,35,55");
  bs     = bench_int(argc, argv, "-bs", 6);
  reps   = bench_int(argc, argv, "-reps", 5);
  warmup = bench_int(argc, argv, "-warmup", 1);
  copy_n  = bench_int(argc, argv, "-copy_n", 1L << 25);
  factors = bench_str(argc, argv, "-factors", "double");
  single  = !strcmp(factors, "float");
  if (bs < 1 || bs > 8 || reps < 1 || warmup < 0 || copy_n < 1 || (!single && strcmp(factors, "double"))) {
    fprintf(stderr, "bench_bilu_cpu: need 1 <= bs <= 8, -factors double or float, reps >= 1, warmup >= 0, copy_n >= 1\n");
    return 2;
  }
  nb = bench_contexts(ctx);
  bench_copy_init(&cp, (size_t)copy_n);
  for (const char *p = sizes; *p;) {
    const long m = strtol(p, NULL, 10);
    const long long pts = (long long)m * m * m, N = pts * bs;
    size_t     len      = strcspn(p, ",");
    bilu_arg   s[2];
    pds_mat    A[2];
    double    *y[2], tf[3], ta[3], tf_min[3], ta_min[3];
    const double n2 = (double)bs * bs, fbytes = 72 * n2 * pts, fflops = (6 + 2.0 / 3) * n2 * bs * pts;
    const double abytes = ((single ? 4 : 8) * 8 * n2 + 32 * bs) * pts, aflops = 16 * n2 * pts;

    p += len + (p[len] == ',');
    if (m < 2 || m > 400) {
      fprintf(stderr, "bench_bilu_cpu: grid size %ld out of 2..400\n", m);
      return 2;
    }
    for (int b = 0; b < nb; b++) {
      BENCH_CALL(pds_stencil7_random(ctx[b], (pds_int)m, (pds_int)m, (pds_int)m, (int)bs, 2.0, 7, &A[b]));
      BENCH_CALL(pds_precond_create(ctx[b], "bilu0", &s[b].P));
      BENCH_CALL(pds_precond_bilu0_set_factor_precision(s[b].P, single ? PDS_PRECISION_SINGLE : PDS_PRECISION_DOUBLE));
      BENCH_CALL(pds_precond_set_operator(s[b].P, A[b]));
      BENCH_CALL(pds_precond_setup(s[b].P));
      BENCH_CALL(pds_vec_create(ctx[b], N, &s[b].b));
      BENCH_CALL(pds_vec_create(ctx[b], N, &s[b].y));
      BENCH_CALL(pds_vec_set(s[b].b, 1.0));
      BENCH_CALL(k_apply(&s[b]));
      y[b] = malloc(sizeof(double) * (size_t)N);
      if (!y[b]) {
        fprintf(stderr, "bench_bilu_cpu: no memory\n");
        return 3;
      }
      BENCH_CALL(pds_vec_get_values(s[b].y, y[b], PDS_MEM_HOST));
    }
    if (nb > 1 && memcmp(y[0], y[1], sizeof(double) * (size_t)N)) {
      fprintf(stderr, "VALIDATION FAILED: bilu0 on %ld^3 (n = %ld): /cpu/omp's y differs from /cpu/ref's\n", m, bs);
      return 1;
    }
    {
      bench_fn fn[3]  = {bench_copy_run, k_factor, nb > 1 ? k_factor : NULL};
      void    *arg[3] = {&cp, &s[0], &s[1]};

      bench_run(3, fn, arg, (int)warmup, (int)reps, tf);
      memcpy(tf_min, bench_last_min, sizeof tf_min);
      fn[1] = k_apply, fn[2] = nb > 1 ? k_apply : NULL;
      bench_run(3, fn, arg, (int)warmup, (int)reps, ta);
      memcpy(ta_min, bench_last_min, sizeof ta_min);
    }
    if (!printed_copy++) bench_print_copy("bilu_cpu", &cp, tf[0]);
    for (int b = 0; b < nb; b++)
      for (int op = 0; op < 2; op++) { /* 0: the factorization, 1: the application */
        const double *t = op ? ta : tf, *tmin = op ? ta_min : tf_min;
        char          extra[128];
        bench_result  r;

        snprintf(extra, sizeof extra, "\"grid\":%ld,\"points\":%lld,\"factors\":\"%s\",\"tp_ns\":%.3f", m, pts, factors,
                 t[1 + b] / pts * 1e9);
        r = (bench_result){"bilu_cpu", pds_ctx_get_backend(ctx[b]), op ? "bilu0_apply" : "bilu0_factor", N,
                           pts * 7 * bs * bs, (int)bs, pds_ctx_get_num_threads(ctx[b]), t[1 + b],
                           op ? abytes : fbytes, op ? aflops : fflops, bench_copy_bytes(&cp) / t[0] * 1e-9, t[1],
                           extra, tmin[1 + b], bench_copy_bytes(&cp) / tmin[0] * 1e-9, tmin[1]};
        bench_print(&r);
      }
    for (int b = 0; b < nb; b++) {
      free(y[b]);
      BENCH_CALL(pds_precond_destroy(&s[b].P));
      BENCH_CALL(pds_vec_destroy(&s[b].b));
      BENCH_CALL(pds_vec_destroy(&s[b].y));
      BENCH_CALL(pds_mat_destroy(&A[b]));
    }
  }
  for (int b = 0; b < nb; b++) BENCH_CALL(pds_ctx_destroy(&ctx[b]));
  bench_copy_free(&cp);
  return 0;
}
