/* bench/bench_blas1.c: vector kernels (copy, axpby, waxpy, dot, norm2, norm_inf, pointwise mult, scale) on
 * /cpu/ref and /cpu/omp, same data, same run, against a STREAM-like copy; one JSON line per case.
 *
 *   bench_blas1 [-n 16777216] [-reps 20] [-warmup 3] [-copy_n N] [-help]
 *
 * Byte models (8-byte reals; the write-allocate read of an output that is not an input is not counted, as in
 * STREAM) and flop models per entry are next to each case below. */
#include "bench_common.h"

typedef struct {
  pds_vec  x, y, w;
  pds_real r;
} vecs;

/* y = x: 16 bytes, 0 flops */
static int k_copy(void *a) { vecs *v = a; return pds_vec_copy(v->x, v->w); }
/* y = 0.5 x + 0.5 y: 24 bytes (x read, y read and written), 3 flops */
static int k_axpby(void *a) { vecs *v = a; return pds_vec_axpby(v->y, 0.5, v->x, 0.5); }
/* w = 2 x + y: 24 bytes, 2 flops */
static int k_waxpy(void *a) { vecs *v = a; return pds_vec_waxpy(v->w, 2.0, v->x, v->y); }
/* x . y: 16 bytes, 2 flops */
static int k_dot(void *a) { vecs *v = a; return pds_vec_dot(v->x, v->y, &v->r); }
/* ||x||_2 = sqrt(x . x): 8 bytes (x read once per entry), 2 flops */
static int k_norm2(void *a) { vecs *v = a; return pds_vec_norm2(v->x, &v->r); }
/* max |x_i|: 8 bytes, 1 flop */
static int k_norm_inf(void *a) { vecs *v = a; return pds_vec_norm_inf(v->x, &v->r); }
/* w = x .* y: 24 bytes, 1 flop */
static int k_pmult(void *a) { vecs *v = a; return pds_vec_pointwise_mult(v->w, v->x, v->y); }
/* y = 1 y: 16 bytes, 1 flop (the values stay put over the repetitions) */
static int k_scale(void *a) { vecs *v = a; return pds_vec_scale(v->y, 1.0); }

static const struct {
  const char *name;
  bench_fn    fn;
  double      bytes, flops; /* per entry */
  int         out;          /* 0: scalar result; 1: y; 2: w */
} cases[] = {
    {"copy", k_copy, 16, 0, 2},   {"axpby", k_axpby, 24, 3, 1},     {"waxpy", k_waxpy, 24, 2, 2},
    {"dot", k_dot, 16, 2, 0},     {"norm2", k_norm2, 8, 2, 0},      {"norm_inf", k_norm_inf, 8, 1, 0},
    {"pmult", k_pmult, 24, 1, 2}, {"scale", k_scale, 16, 1, 1},
};

static void vecs_reset(vecs *v) {
  BENCH_CALL(pds_vec_set_random(v->x, 1));
  BENCH_CALL(pds_vec_set_random(v->y, 2));
  BENCH_CALL(pds_vec_set_random(v->w, 3));
}

int main(int argc, char **argv) {
  static const char *const known[] = {"-n", "-reps", "-warmup", "-copy_n", "-help", NULL};
  static const int         val[]   = {1, 1, 1, 1, 0};
  long                     n, reps, warmup, copy_n;
  pds_ctx                  ctx[2];
  vecs                     v[2];
  int                      nb;
  bench_copy               cp;
  double                  *got, *want;

  if (bench_flag(argc, argv, "-help")) {
    printf("bench_blas1: vector kernels on /cpu/ref and /cpu/omp against a STREAM-like copy (JSON lines)\n"
           "  -n N        vector length (default 16777216 = 128 MiB per vector)\n"
           "  -reps R     timed repetitions, median reported (default 20)\n"
           "  -warmup W   untimed repetitions first (default 3)\n"
           "  -copy_n N   length of the copy arrays (default max(n, 2^25))\n");
    return 0;
  }
  bench_check_options(argc, argv, known, val);
  n      = bench_int(argc, argv, "-n", 1L << 24);
  reps   = bench_int(argc, argv, "-reps", 20);
  warmup = bench_int(argc, argv, "-warmup", 3);
  copy_n = bench_int(argc, argv, "-copy_n", n > (1L << 25) ? n : (1L << 25));
  if (n < 1 || reps < 1 || warmup < 0 || copy_n < 1) {
    fprintf(stderr, "bench_blas1: need n >= 1, reps >= 1, warmup >= 0\n");
    return 2;
  }
  nb = bench_contexts(ctx);
  bench_copy_init(&cp, (size_t)copy_n);
  for (int b = 0; b < nb; b++) {
    BENCH_CALL(pds_vec_create(ctx[b], n, &v[b].x));
    BENCH_CALL(pds_vec_duplicate(v[b].x, &v[b].y));
    BENCH_CALL(pds_vec_duplicate(v[b].x, &v[b].w));
    vecs_reset(&v[b]);
  }
  got  = malloc((size_t)n * sizeof *got);
  want = malloc((size_t)n * sizeof *want);
  if (!got || !want) return 3;
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    bench_fn fn[3]  = {bench_copy_run, cases[c].fn, nb > 1 ? cases[c].fn : NULL};
    void    *arg[3] = {&cp, &v[0], &v[1]};
    double   t[3];

    /* validate: the same inputs on both backends, one call, results within n eps (they are bitwise equal) */
    for (int b = 0; b < nb; b++) {
      vecs_reset(&v[b]);
      BENCH_CALL(cases[c].fn(&v[b]));
    }
    if (nb > 1) {
      char what[64];

      snprintf(what, sizeof what, "blas1 %s n=%ld omp vs ref", cases[c].name, n);
      if (cases[c].out == 0) bench_check(what, &v[1].r, &v[0].r, 1, 1e-15 * (double)n);
      else {
        BENCH_CALL(pds_vec_get_values(cases[c].out == 1 ? v[1].y : v[1].w, got, PDS_MEM_HOST));
        BENCH_CALL(pds_vec_get_values(cases[c].out == 1 ? v[0].y : v[0].w, want, PDS_MEM_HOST));
        bench_check(what, got, want, n, 4e-16);
      }
    }
    bench_run(3, fn, arg, (int)warmup, (int)reps, t);
    if (c == 0) bench_print_copy("blas1", &cp, t[0]);
    for (int b = 0; b < nb; b++) {
      bench_result r = {"blas1", pds_ctx_get_backend(ctx[b]), cases[c].name, n, 0, 1, pds_ctx_get_num_threads(ctx[b]),
                        t[1 + b], cases[c].bytes * (double)n, cases[c].flops * (double)n,
                        bench_copy_bytes(&cp) / t[0] * 1e-9, t[1], NULL, bench_last_min[1 + b],
                        bench_copy_bytes(&cp) / bench_last_min[0] * 1e-9, bench_last_min[1]};

      bench_print(&r);
    }
  }
  for (int b = 0; b < nb; b++) {
    BENCH_CALL(pds_vec_destroy(&v[b].x));
    BENCH_CALL(pds_vec_destroy(&v[b].y));
    BENCH_CALL(pds_vec_destroy(&v[b].w));
    BENCH_CALL(pds_ctx_destroy(&ctx[b]));
  }
  bench_copy_free(&cp);
  free(got), free(want);
  return 0;
}
