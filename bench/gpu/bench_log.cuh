// bench/gpu/bench_log.cuh: what the GPU benchmarks that drive the library through its API share (bench_fem2d_gpu,
// bench_bilu): PK, a pdesolve call checked (its error and the context's message, then exit 2); LOG, a progress line on
// stderr stamped with the seconds since g_t0 (set it at the start of main); fail, a validation failure (exit 1);
// parse_long, parse_double, an option's value (not a number: exit 2).
#pragma once

#include <cstdarg>
#include <cstdio>
#include <cstdlib>

#include "pdesolve.h"

#define PK(ctx, call)                                                                                   \
  do {                                                                                                  \
    int e_ = (call);                                                                                    \
    if (e_) {                                                                                           \
      fprintf(stderr, "%s:%d: %s: %s: %s\n", __FILE__, __LINE__, #call, pds_error_name(e_),             \
              (ctx) ? pds_ctx_get_error(ctx) : "");                                                     \
      exit(2);                                                                                          \
    }                                                                                                   \
  } while (0)

static double g_t0;
static void logf_(const char *fmt, ...) {
  va_list ap;

  fprintf(stderr, "[%7.1f s] ", pds_wtime() - g_t0);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  fflush(stderr);
}
#define LOG(...) logf_(__VA_ARGS__)
static void fail(const char *fmt, ...) {
  va_list ap;

  fprintf(stderr, "FAIL: ");
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  exit(1);
}

static long parse_long(const char *opt, const char *s) {
  char *e;
  long  v = strtol(s, &e, 10);

  if (*e || e == s) fprintf(stderr, "option %s: '%s' is not an integer\n", opt, s), exit(2);
  return v;
}
static double parse_double(const char *opt, const char *s) {
  char  *e;
  double v = strtod(s, &e);

  if (*e || e == s) fprintf(stderr, "option %s: '%s' is not a number\n", opt, s), exit(2);
  return v;
}
