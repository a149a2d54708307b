/* bench/bench_ilu_cpu.c: ILU(0) of general sparse matrices (ilu0, docs/ilu0.md) on the CPU backends: a
 * refactorization (pds_precond_update_values: the pattern kept, the values copied and factored) and one application
 * (forward + backward sweep) on /cpu/ref (natural order, one thread), /cpu/omp as it chooses (natural order or level
 * scheduling, whichever it timed faster in the warm-up calls) and /cpu/omp with the levels forced
 * (PDS_OMP_ILU0=levels), same matrix, same run, against a STREAM-like copy. (bench/gpu/bench_ilu measures /gpu/cuda
 * against cuSPARSE; this one needs no GPU.)
 *
 *   bench_ilu_cpu [-sizes 64,100] [-bsr_sizes 30] [-bs 4] [-reps 5] [-warmup 3] [-copy_n N] [-help]
 *
 * Matrices: poisson7 on m^3 grids (pds_problem_generate: csr), and the 7-point pattern with bs x bs blocks on q^3
 * grids (pds_stencil7_random, diagonal dominance 2, seed 7, converted to bsr). Validation before reporting: every
 * /cpu/omp result has /cpu/ref's bits (x = 1), else exit 1.
 * Byte models per call (8-byte values, 4-byte column indices, N unknowns, nnzb blocks of b x b): application
 * (8 b^2 + 4) nnzb + 24 N (the factor once, b, x written and read back); refactorization 2 (8 b^2) nnzb + 4 nnzb
 * (A's values copied into the factor, the factor read and written) plus the rows of k read again per (i, k) pair.
 * Flops: application 2 b^2 nnzb. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "bench_common.h"

typedef struct {
  pds_precond P;
  pds_mat     A;
  pds_vec     b, y;
  int         levels; /* force /cpu/omp's level scheduling */
} ilu_arg;

static int with_env(const ilu_arg *s, int apply) {
  int e;

  if (s->levels) setenv("PDS_OMP_ILU0", "levels", 1);
  e = apply ? pds_precond_apply(s->P, s->b, s->y) : pds_precond_update_values(s->P, s->A);
  if (s->levels) unsetenv("PDS_OMP_ILU0");
  return e;
}
static int k_refactor(void *a) { return with_env(a, 0); }
static int k_apply(void *a) { return with_env(a, 1); }

int main(int argc, char **argv) {
  static const char *const known[] = {"-sizes", "-bsr_sizes", "-bs", "-reps", "-warmup", "-copy_n", "-help", NULL};
  static const int         val[]   = {1, 1, 1, 1, 1, 1, 0};
  long                     bs, reps, warmup, copy_n;
  const char              *lists[2];
  pds_ctx                  ctx[2];
  bench_copy               cp;
  int                      nb, printed_copy = 0;

  if (bench_flag(argc, argv, "-help")) {
    printf("bench_ilu_cpu: ilu0 refactorization and application on /cpu/ref and /cpu/omp (JSON lines)\n"
           "  -sizes LIST      poisson7 on m^3 grids, csr (default 64,100)\n"
           "  -bsr_sizes LIST  7-point bsr on q^3 grids (default 30; empty: none)\n"
           "  -bs N            the bsr blocks, 1..8 (default 4)\n"
           "  -reps R          timed calls, median reported (default 5)\n"
           "  -warmup W        untimed calls first, at least 2: /cpu/omp times its two ways in them (default 3)\n"
           "  -copy_n N        length of the copy arrays (default 2^25)\n");
    return 0;
  }
  bench_check_options(argc, argv, known, val);
  lists[0] = bench_str(argc, argv, "-sizes", "64,100");
  lists[1] = bench_str(argc, argv, "-bsr_sizes", "30");
  bs       = bench_int(argc, argv, "-bs", 4);
  reps     = bench_int(argc, argv, "-reps", 5);
  warmup   = bench_int(argc, argv, "-warmup", 3);
  copy_n   = bench_int(argc, argv, "-copy_n", 1L << 25);
  if (bs < 1 || bs > 8 || reps < 1 || warmup < 2 || copy_n < 1) {
    fprintf(stderr, "bench_ilu_cpu: need 1 <= bs <= 8, reps >= 1, warmup >= 2, copy_n >= 1\n");
    return 2;
  }
  nb = bench_contexts(ctx);
  bench_copy_init(&cp, (size_t)copy_n);
  for (int kind = 0; kind < 2; kind++)
    for (const char *p = lists[kind]; *p;) {
      const long m   = strtol(p, NULL, 10);
      size_t     len = strcspn(p, ",");
      const int  b   = kind ? (int)bs : 1, nv = 1 + 2 * (nb > 1); /* ref, omp, omp with levels */
      ilu_arg    s[3];
      pds_int    n;
      pds_size   nnz;
      double    *y[3], tr[4], ta[4], tr_min[4], ta_min[4];

      p += len + (p[len] == ',');
      if (m < 2 || m > 300) {
        fprintf(stderr, "bench_ilu_cpu: grid size %ld out of 2..300\n", m);
        return 2;
      }
      for (int v = 0; v < nv; v++) {
        pds_ctx c = ctx[v ? 1 : 0];

        s[v].levels = v == 2;
        if (kind == 0) {
          pds_problem pr;
          pds_int     dims[3] = {(pds_int)m, (pds_int)m, (pds_int)m};

          BENCH_CALL(pds_problem_generate(c, "poisson7", dims, 3, &pr));
          s[v].A = pr.A, pr.A = NULL;
          BENCH_CALL(pds_problem_destroy(&pr));
        } else {
          pds_mat S;

          BENCH_CALL(pds_stencil7_random(c, (pds_int)m, (pds_int)m, (pds_int)m, b, 2.0, 7, &S));
          BENCH_CALL(pds_mat_convert_to_bsr(S, b, &s[v].A));
          BENCH_CALL(pds_mat_destroy(&S));
        }
        BENCH_CALL(pds_mat_get_size(s[v].A, &n, &n));
        BENCH_CALL(pds_mat_get_nnz(s[v].A, &nnz));
        BENCH_CALL(pds_precond_create(c, "ilu0", &s[v].P));
        BENCH_CALL(pds_precond_set_operator(s[v].P, s[v].A));
        BENCH_CALL(pds_precond_setup(s[v].P));
        BENCH_CALL(pds_vec_create(c, n, &s[v].b));
        BENCH_CALL(pds_vec_create(c, n, &s[v].y));
        BENCH_CALL(pds_vec_set(s[v].b, 1.0));
        BENCH_CALL(k_apply(&s[v]));
        if (!(y[v] = malloc(sizeof(double) * (size_t)n))) {
          fprintf(stderr, "bench_ilu_cpu: no memory\n");
          return 3;
        }
        BENCH_CALL(pds_vec_get_values(s[v].y, y[v], PDS_MEM_HOST));
      }
      for (int v = 1; v < nv; v++)
        if (memcmp(y[0], y[v], sizeof(double) * (size_t)n)) {
          fprintf(stderr, "VALIDATION FAILED: ilu0 on %s %ld^3: /cpu/omp%s's y differs from /cpu/ref's\n",
                  kind ? "bsr" : "poisson7", m, v == 2 ? " (levels)" : "");
          return 1;
        }
      {
        bench_fn fn[4]  = {bench_copy_run, k_refactor, nv > 1 ? k_refactor : NULL, nv > 2 ? k_refactor : NULL};
        void    *arg[4] = {&cp, &s[0], &s[1], &s[2]};

        bench_run(4, fn, arg, (int)warmup, (int)reps, tr);
        memcpy(tr_min, bench_last_min, sizeof tr_min);
        fn[1] = k_apply, fn[2] = nv > 1 ? k_apply : NULL, fn[3] = nv > 2 ? k_apply : NULL;
        bench_run(4, fn, arg, (int)warmup, (int)reps, ta);
        memcpy(ta_min, bench_last_min, sizeof ta_min);
      }
      if (!printed_copy++) bench_print_copy("ilu_cpu", &cp, tr[0]);
      {
        const double nnzb = (double)nnz / ((double)b * b), b2 = (double)b * b;
        const double abytes = (8 * b2 + 4) * nnzb + 24.0 * n, rbytes = (16 * b2 + 4) * nnzb, aflops = 2 * b2 * nnzb;

        for (int v = 0; v < nv; v++)
          for (int op = 0; op < 2; op++) { /* 0: the refactorization, 1: the application */
            const double *t = op ? ta : tr, *tmin = op ? ta_min : tr_min;
            char          extra[160];
            bench_result  r;

            snprintf(extra, sizeof extra, "\"matrix\":\"%s %ld^3\",\"omp_path\":\"%s\"", kind ? "bsr 7-point" : "poisson7",
                     m, v == 0 ? "natural" : v == 1 ? "as chosen" : "levels");
            r = (bench_result){"ilu_cpu", pds_ctx_get_backend(ctx[v ? 1 : 0]), op ? "ilu0_apply" : "ilu0_refactor",
                               n, nnz, b, pds_ctx_get_num_threads(ctx[v ? 1 : 0]), t[1 + v], op ? abytes : rbytes,
                               op ? aflops : 0, bench_copy_bytes(&cp) / t[0] * 1e-9, t[1], extra, tmin[1 + v],
                               bench_copy_bytes(&cp) / tmin[0] * 1e-9, tmin[1]};
            bench_print(&r);
          }
      }
      for (int v = 0; v < nv; v++) {
        free(y[v]);
        BENCH_CALL(pds_precond_destroy(&s[v].P));
        BENCH_CALL(pds_vec_destroy(&s[v].b));
        BENCH_CALL(pds_vec_destroy(&s[v].y));
        BENCH_CALL(pds_mat_destroy(&s[v].A));
      }
    }
  for (int b = 0; b < nb; b++) BENCH_CALL(pds_ctx_destroy(&ctx[b]));
  bench_copy_free(&cp);
  return 0;
}
