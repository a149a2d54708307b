/* bench/bench_common.h: what the pdesolve benchmarks share: options, round-robin timing with warm-up and
 * medians, a STREAM-like copy measured in the same run, result validation and one JSON object per line.
 *
 * Timing: the cases to compare (the copy, /cpu/ref, /cpu/omp) run round-robin, one call each per round, so a
 * change of machine load during the run (a shared machine) hits them alike; each case's median over the
 * rounds is reported. CPU backends are synchronous: a call's wall time is its run time. */
#ifndef PDS_BENCH_COMMON_H
#define PDS_BENCH_COMMON_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pdesolve.h"

#if defined(_OPENMP)
#include <omp.h>
#endif

/* ---- options: -name value, PETSc style ---------------------------------------------------------------- */
static inline int bench_flag(int argc, char **argv, const char *name) {
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], name)) return 1;
  return 0;
}
static inline const char *bench_str(int argc, char **argv, const char *name, const char *def) {
  for (int i = 1; i + 1 < argc; i++)
    if (!strcmp(argv[i], name)) return argv[i + 1];
  return def;
}
static inline long bench_int(int argc, char **argv, const char *name, long def) {
  const char *s = bench_str(argc, argv, name, NULL);
  char       *end;
  long        v;

  if (!s) return def;
  v = strtol(s, &end, 0);
  if (*end || end == s) {
    fprintf(stderr, "option %s: '%s' is not an integer\n", name, s);
    exit(2);
  }
  return v;
}
/* Options that are not known are an error (a typo must not silently run the default). known: NULL-ended list
   of option names; takes_value[i] says whether known[i] is followed by a value. */
static inline void bench_check_options(int argc, char **argv, const char *const *known, const int *takes_value) {
  for (int i = 1; i < argc; i++) {
    int k = 0;

    while (known[k] && strcmp(known[k], argv[i])) k++;
    if (!known[k]) {
      fprintf(stderr, "%s: unknown option '%s' (-help lists them)\n", argv[0], argv[i]);
      exit(2);
    }
    if (takes_value[k]) i++;
  }
}

/* ---- timing ------------------------------------------------------------------------------------------- */
typedef int (*bench_fn)(void *arg);

static inline int bench_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;

  return x < y ? -1 : x > y;
}
static inline double bench_median(double *t, int n) {
  qsort(t, (size_t)n, sizeof *t, bench_cmp_double);
  return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

/* Run fn[0..m) round-robin: warmup rounds untimed, then reps timed rounds; median[j] = median time of fn[j],
   and the fastest round in bench_last_min[j] (the best case: on a shared machine, the round least disturbed by
   other processes). A non-zero return of any call stops the benchmark. */
#define BENCH_MAX_FNS 8
static double bench_last_min[BENCH_MAX_FNS];

static inline void bench_run(int m, bench_fn *fn, void **arg, int warmup, int reps, double *median) {
  double *t = malloc((size_t)m * (size_t)(reps > 0 ? reps : 1) * sizeof *t);

  if (!t) exit(3);
  for (int r = 0; r < warmup + reps; r++)
    for (int j = 0; j < m; j++) {
      double t0 = pds_wtime();
      int    ierr;

      if (!fn[j]) continue;
      ierr = fn[j](arg[j]);
      if (ierr) {
        fprintf(stderr, "benchmark call failed: %s\n", pds_error_name(ierr));
        exit(1);
      }
      if (r >= warmup) t[(size_t)j * reps + (r - warmup)] = pds_wtime() - t0;
    }
  for (int j = 0; j < m; j++) {
    median[j] = fn[j] ? bench_median(t + (size_t)j * reps, reps) : 0; /* sorts: t[j*reps] is then the minimum */
    if (j < BENCH_MAX_FNS) bench_last_min[j] = fn[j] ? t[(size_t)j * reps] : 0;
  }
  free(t);
}

/* ---- the copy bandwidth of this machine, measured in the same run -------------------------------------- */
/* b = a over two arrays much larger than the last-level cache, all threads, static schedule, first touch by
   the same partition. Bytes: 16 per entry (8 read + 8 written; the write-allocate read of b is not counted,
   as in STREAM). */
typedef struct {
  size_t  n;
  double *a, *b;
} bench_copy;

static inline void bench_copy_init(bench_copy *c, size_t n) {
  c->n = n;
  c->a = malloc(n * sizeof *c->a);
  c->b = malloc(n * sizeof *c->b);
  if (!c->a || !c->b) {
    fprintf(stderr, "no memory for the copy arrays (%zu MB)\n", 2 * n * sizeof(double) >> 20);
    exit(3);
  }
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; i++) c->a[i] = 1.0 + (double)(i % 7), c->b[i] = 0;
}
static inline int bench_copy_run(void *arg) {
  bench_copy   *c = arg;
  const double *a = c->a;
  double       *b = c->b;
  size_t        n = c->n;

#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; i++) b[i] = a[i];
  return 0;
}
static inline double bench_copy_bytes(const bench_copy *c) { return 16.0 * (double)c->n; }
static inline void   bench_copy_free(bench_copy *c) { free(c->a), free(c->b); }

static inline int bench_threads(void) {
#if defined(_OPENMP)
  return omp_get_max_threads();
#else
  return 1;
#endif
}

static inline double bench_load1(void) {
  FILE  *f = fopen("/proc/loadavg", "r");
  double l = -1;

  if (f) {
    if (fscanf(f, "%lf", &l) != 1) l = -1;
    fclose(f);
  }
  return l;
}

/* ---- results ------------------------------------------------------------------------------------------ */
typedef struct {
  const char *bench, *backend, *kernel;
  long long   n, nnz;
  int         bs, threads;
  double      t;        /* median seconds */
  double      bytes;    /* the byte model of one call */
  double      flops;    /* the flop model of one call */
  double      copy_gbs; /* copy bandwidth measured in the same rounds */
  double      t_ref;    /* /cpu/ref's median on the same data (0: not measured) */
  const char *extra;    /* NULL, or more members: "\"its\":100,..." */
  double      t_min;    /* the fastest round (0: not known) */
  double      copy_best_gbs; /* the copy bandwidth of its fastest round */
  double      t_ref_min;     /* /cpu/ref's fastest round */
} bench_result;

static inline void bench_print(const bench_result *r) {
  double gbs = r->bytes / r->t * 1e-9;

  printf("{\"bench\":\"%s\",\"backend\":\"%s\",\"kernel\":\"%s\",\"n\":%lld,\"nnz\":%lld,\"bs\":%d,\"threads\":%d,"
         "\"t_median_s\":%.6e,\"gbs\":%.3f,\"gflops\":%.3f,\"frac_copy_bw\":%.3f,",
         r->bench, r->backend, r->kernel, r->n, r->nnz, r->bs, r->threads, r->t, gbs, r->flops / r->t * 1e-9,
         r->copy_gbs > 0 ? gbs / r->copy_gbs : 0);
  if (r->t_ref > 0) printf("\"speedup_vs_ref\":%.3f,", r->t_ref / r->t);
  else printf("\"speedup_vs_ref\":null,");
  if (r->extra && r->extra[0]) printf("%s,", r->extra);
  if (r->t_min > 0) { /* best case: fastest round of this case, of the copy and of ref */
    printf("\"t_min_s\":%.6e,\"gbs_best\":%.3f,\"copy_gbs_best\":%.3f,", r->t_min, r->bytes / r->t_min * 1e-9,
           r->copy_best_gbs);
    if (r->t_ref_min > 0) printf("\"speedup_vs_ref_best\":%.3f,", r->t_ref_min / r->t_min);
  }
  printf("\"copy_gbs\":%.3f,\"load1\":%.2f}\n", r->copy_gbs, bench_load1());
  fflush(stdout);
}

/* The copy line itself: kernel "stream_copy". */
static inline void bench_print_copy(const char *bench, const bench_copy *c, double t) {
  bench_result r = {bench, "host", "stream_copy", (long long)c->n, 0, 0, bench_threads(), t, bench_copy_bytes(c), 0,
                    bench_copy_bytes(c) / t * 1e-9, 0, NULL, 0, 0, 0};

  bench_print(&r);
}

/* ---- validation --------------------------------------------------------------------------------------- */
/* max_i |got_i - want_i| <= tol * max_i |want_i| (or fail with a message and exit 1: no number is reported
   for a wrong result) */
static inline void bench_check(const char *what, const double *got, const double *want, long long n, double tol) {
  double emax = 0, wmax = 0;

  for (long long i = 0; i < n; i++) {
    double e = fabs(got[i] - want[i]);

    if (!(e <= emax)) emax = e; /* NaN propagates */
    if (fabs(want[i]) > wmax) wmax = fabs(want[i]);
  }
  if (!(emax <= tol * wmax)) {
    fprintf(stderr, "VALIDATION FAILED: %s: max error %.3e > %.1e * max |ref| (%.3e)\n", what, emax, tol, wmax);
    exit(1);
  }
}

#define BENCH_CALL(...)                                                                          \
  do {                                                                                           \
    int bench_ierr_ = (__VA_ARGS__);                                                             \
    if (bench_ierr_) {                                                                           \
      fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #__VA_ARGS__, pds_error_name(bench_ierr_)); \
      exit(1);                                                                                   \
    }                                                                                            \
  } while (0)

/* Contexts to compare: /cpu/ref always, /cpu/omp when compiled. Returns how many. */
static inline int bench_contexts(pds_ctx ctx[2]) {
  BENCH_CALL(pds_ctx_create("/cpu/ref", &ctx[0]));
  ctx[1] = NULL;
  for (int i = 0; i < pds_backend_count(); i++)
    if (!strcmp(pds_backend_name(i), "/cpu/omp") && pds_backend_compiled(i)) {
      BENCH_CALL(pds_ctx_create("/cpu/omp", &ctx[1]));
      return 2;
    }
  return 1;
}

#endif
