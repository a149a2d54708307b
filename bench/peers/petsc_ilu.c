/* bench/peers/petsc_ilu.c: ILU(0), pdesolve against PETSc (the CPU peer) on the same matrix in the same run: PETSc's
 * sequential ILU(0) (MatGetFactor with MATSOLVERPETSC, MAT_FACTOR_ILU, 0 levels, natural ordering: what PCILU runs on
 * one process) on a SeqAIJ matrix (poisson7 on n^3, bench_poisson.h) and on a SeqBAIJ one (block7: a 7-point block
 * matrix with bs x bs blocks, row-major, PETSc's MAT_ROW_ORIENTED default), against pdesolve's ilu0 on /cpu/ref (one
 * thread: the like-for-like comparison) and on /cpu/omp (its threads: what pdesolve offers beyond one process;
 * PETSc's ILU(0) has no threaded form, its parallel ILU is block Jacobi over processes, another preconditioner).
 * The block case is a 7-point grid, so pdesolve's bilu0 (paper 000's structured block ILU(0), the same factorization)
 * runs on it too, as stencil7 (pds_mat_convert_to_stencil7): a second row, PETSc's times beside bilu0's.
 *
 *   petsc_ilu [-n 64,100] [-m 30] [-bs 4] [-reps 7] [-json FILE]
 *
 * Per case, after a validation (pdesolve's y = M^-1 x on both backends against PETSc's MatSolve: relative 1e-12 of
 * max |y|, the same factorization rounded in other orders): the refactorization (PETSc: MatLUFactorNumeric on the
 * symbolic factor; pdesolve: pds_precond_update_values, the same pattern, no analysis) and one application (PETSc:
 * MatSolve; pdesolve: pds_precond_apply), medians of -reps after one warm-up each, wall time; and the copy bandwidth
 * (one thread; all threads) in the same run. Byte model of an application: the factor's values and column indices
 * once (12 nnz for AIJ; 8 nnzb b^2 + 4 nnzb for BAIJ), x read, y written (16 n): the ratio to the copy bandwidth is
 * printed as the fraction. Output: a table and, with -json, one JSON object per line ("bench":"petsc_ilu").
 * Written against PETSc's public API (Mat, Vec, MatGetFactor). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(_OPENMP)
#include <omp.h>
#endif

#include "bench_poisson.h"
#include "peers/peer_util.h"
#include "pdesolve.h" /* before PETSc's headers: their <complex.h> defines I, a parameter name of pdesolve.h */

#include <petscmat.h>

#define CHK(call)                                                                                     \
  do {                                                                                                \
    PetscErrorCode e_ = (call);                                                                       \
    if (e_) {                                                                                         \
      fprintf(stderr, "petsc_ilu: %s failed (PETSc error %d)\n", #call, (int)e_);                      \
      exit(2);                                                                                        \
    }                                                                                                 \
  } while (0)
#define PK(ctx, call)                                                                                 \
  do {                                                                                                \
    int e_ = (call);                                                                                  \
    if (e_) {                                                                                         \
      fprintf(stderr, "petsc_ilu: %s: %s\n", #call, pds_ctx_get_error(ctx));                          \
      exit(2);                                                                                        \
    }                                                                                                 \
  } while (0)

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;

  return (x > y) - (x < y);
}

/* the median of reps runs of f(u) after one warm-up, seconds */
static double median_time(void (*f)(void *), void *u, int reps) {
  double t[64];

  if (reps > 64) reps = 64;
  f(u);
  for (int r = 0; r < reps; r++) {
    const double t0 = pds_wtime();

    f(u);
    t[r] = pds_wtime() - t0;
  }
  qsort(t, (size_t)reps, sizeof *t, cmp_double);
  return t[reps / 2];
}

/* copy bandwidth, GB/s: b = a over n doubles, one thread (threads 0) or all */
typedef struct {
  double *a, *b;
  size_t  n;
  int     all;
} copy_arg;
static void copy_run(void *u) {
  copy_arg *c = u;

  if (c->all) {
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < c->n; i++) c->b[i] = c->a[i];
  } else
    for (size_t i = 0; i < c->n; i++) c->b[i] = c->a[i];
}

/* ---- the contenders -------------------------------------------------------------------------------------------- */
typedef struct {
  Mat           A, F;
  Vec           x, y;
  MatFactorInfo info;
} petsc_case;
static void petsc_refactor(void *u) {
  petsc_case *p = u;

  CHK(MatLUFactorNumeric(p->F, p->A, &p->info));
}
static void petsc_apply(void *u) {
  petsc_case *p = u;

  CHK(MatSolve(p->F, p->x, p->y));
}

typedef struct {
  pds_ctx     ctx;
  pds_mat     A;
  pds_precond P;
  pds_vec     x, y;
} pds_case;
static void pds_refactor(void *u) {
  pds_case *p = u;

  PK(p->ctx, pds_precond_update_values(p->P, p->A));
}
static void pds_apply(void *u) {
  pds_case *p = u;

  PK(p->ctx, pds_precond_apply(p->P, p->x, p->y));
}

/* pdesolve's ilu0 of the block CSR arrays on backend name (grid > 0: the same matrix as stencil7 on a grid^3 grid,
   pds_mat_convert_to_stencil7, and bilu0, paper 000's block ILU(0): the same factorization): set up, y = M^-1 x into
   yh (host) */
static void pds_setup(pds_case *p, const char *name, long nb, int bs, pds_size *rp, pds_int *ci, pds_real *v,
                      long grid, const double *xh, double *yh) {
  const pds_int n = (pds_int)(nb * bs);

  PK(NULL, pds_ctx_create(name, &p->ctx));
  if (bs == 1)
    PK(p->ctx, pds_mat_create_csr(p->ctx, n, n, rp, ci, v, PDS_MEM_HOST, PDS_COPY_VALUES, &p->A));
  else PK(p->ctx, pds_mat_create_bsr(p->ctx, (pds_int)nb, (pds_int)nb, bs, rp, ci, v, PDS_MEM_HOST, PDS_COPY_VALUES, &p->A));
  if (grid > 0) {
    pds_mat S;

    PK(p->ctx, pds_mat_convert_to_stencil7(p->A, (pds_int)grid, (pds_int)grid, (pds_int)grid, bs, &S));
    pds_mat_destroy(&p->A), p->A = S;
  }
  PK(p->ctx, pds_precond_create(p->ctx, grid > 0 ? "bilu0" : "ilu0", &p->P));
  PK(p->ctx, pds_precond_set_operator(p->P, p->A));
  PK(p->ctx, pds_precond_setup(p->P));
  PK(p->ctx, pds_vec_create(p->ctx, n, &p->x));
  PK(p->ctx, pds_vec_create(p->ctx, n, &p->y));
  PK(p->ctx, pds_vec_set_values(p->x, xh, PDS_MEM_HOST));
  PK(p->ctx, pds_precond_apply(p->P, p->x, p->y));
  PK(p->ctx, pds_vec_get_values(p->y, yh, PDS_MEM_HOST));
}
static void pds_free_case(pds_case *p) {
  pds_vec_destroy(&p->x), pds_vec_destroy(&p->y), pds_precond_destroy(&p->P), pds_mat_destroy(&p->A);
  pds_ctx_destroy(&p->ctx);
}

static double rel_diff(const double *a, const double *b, long n) {
  double d = 0, m = 0;

  for (long i = 0; i < n; i++) {
    const double e = fabs(a[i] - b[i]);

    if (!(e <= d)) d = e;
    if (fabs(b[i]) > m) m = fabs(b[i]);
  }
  return m > 0 ? d / m : d;
}

static FILE  *g_json;
static char   g_cpu[128];
static double g_bw1, g_bwn;
static int    g_reps = 7, g_threads = 1, g_fail;

/* one case: nb block rows of bs x bs blocks (bs 1: AIJ); grid > 0: a 7-point grid^3 grid, pdesolve's bilu0 on it as
   stencil7 too (a second row: PETSc's times again beside bilu0's) */
static void run_case(const char *name, long nb, int bs, pds_size *rp, pds_int *ci, pds_real *v, long grid) {
  const long     n    = nb * bs;
  const pds_size nnzb = rp[nb];
  const size_t   b2   = (size_t)bs * bs;
  PetscInt      *pi = malloc(sizeof *pi * (size_t)(nb + 1)), *pj = malloc(sizeof *pj * (size_t)nnzb);
  double        *xh = malloc(sizeof *xh * (size_t)n), *yp = malloc(sizeof *yp * (size_t)n);
  double        *yr = malloc(sizeof *yr * (size_t)n), *yo = malloc(sizeof *yo * (size_t)n);
  petsc_case     pc;
  pds_case       ref, omp;
  IS             rperm, cperm;
  double         t[6], dr, dm;
  const double   bytes = bs == 1 ? 12.0 * (double)nnzb + 16.0 * n : (8.0 * b2 + 4.0) * (double)nnzb + 16.0 * n;

  if (!pi || !pj || !xh || !yp || !yr || !yo) exit(3);
  for (long i = 0; i <= nb; i++) pi[i] = (PetscInt)rp[i];
  for (pds_size e = 0; e < nnzb; e++) pj[e] = (PetscInt)ci[e];
  for (long i = 0; i < n; i++) xh[i] = sin(0.37 * (double)i + 1.0);
  /* PETSc */
  if (bs == 1) CHK(MatCreateSeqAIJWithArrays(PETSC_COMM_SELF, (PetscInt)n, (PetscInt)n, pi, pj, v, &pc.A));
  else {
    CHK(MatCreate(PETSC_COMM_SELF, &pc.A));
    CHK(MatSetSizes(pc.A, (PetscInt)n, (PetscInt)n, (PetscInt)n, (PetscInt)n));
    CHK(MatSetType(pc.A, MATSEQBAIJ));
    CHK(MatSeqBAIJSetPreallocationCSR(pc.A, bs, pi, pj, v)); /* row-oriented blocks: v[nnzb][bs][bs] */
  }
  CHK(MatCreateVecs(pc.A, &pc.x, &pc.y));
  {
    PetscScalar *a;

    CHK(VecGetArray(pc.x, &a));
    for (long i = 0; i < n; i++) a[i] = xh[i];
    CHK(VecRestoreArray(pc.x, &a));
  }
  CHK(MatGetFactor(pc.A, MATSOLVERPETSC, MAT_FACTOR_ILU, &pc.F));
  CHK(MatFactorInfoInitialize(&pc.info));
  pc.info.levels = 0, pc.info.fill = 1.0; /* ILU(0): no fill, the factor the size of A */
  CHK(MatGetOrdering(pc.A, MATORDERINGNATURAL, &rperm, &cperm));
  CHK(MatILUFactorSymbolic(pc.F, pc.A, rperm, cperm, &pc.info));
  CHK(MatLUFactorNumeric(pc.F, pc.A, &pc.info));
  CHK(MatSolve(pc.F, pc.x, pc.y));
  {
    const PetscScalar *a;

    CHK(VecGetArrayRead(pc.y, &a));
    for (long i = 0; i < n; i++) yp[i] = a[i];
    CHK(VecRestoreArrayRead(pc.y, &a));
  }
  /* pdesolve, validated against PETSc: ilu0 (bsr or csr), then bilu0 (stencil7) where the case is a grid */
  t[0] = median_time(petsc_refactor, &pc, g_reps), t[1] = median_time(petsc_apply, &pc, g_reps);
  for (int s7 = 0; s7 < (grid > 0 ? 2 : 1); s7++) {
    const char *pc_name = s7 ? "bilu0" : "ilu0";

    pds_setup(&ref, "/cpu/ref", nb, bs, rp, ci, v, s7 ? grid : 0, xh, yr);
    pds_setup(&omp, "/cpu/omp", nb, bs, rp, ci, v, s7 ? grid : 0, xh, yo);
    dr = rel_diff(yr, yp, n), dm = rel_diff(yo, yr, n);
    if (!(dr <= 1e-12) || dm != 0) {
      fprintf(stderr, "FAIL %s, %s: pdesolve /cpu/ref vs PETSc %.2e, /cpu/omp vs /cpu/ref %.2e\n", name, pc_name, dr, dm);
      g_fail = 1;
    }
    t[2] = median_time(pds_refactor, &ref, g_reps), t[3] = median_time(pds_apply, &ref, g_reps);
    t[4] = median_time(pds_refactor, &omp, g_reps), t[5] = median_time(pds_apply, &omp, g_reps);
    printf("| %s%s | %ld | %lu | %d | %.3f | %.3f | %.3f (%.2fx) | %.3f (%.2fx) | %.3f (%.2fx) | %.3f (%.2fx) | %.2f | "
           "%.2f | %.1e |\n",
           name, s7 ? ", bilu0 on stencil7" : "", n, (unsigned long)nnzb, bs, t[0] * 1e3, t[1] * 1e3, t[2] * 1e3,
           t[0] / t[2], t[3] * 1e3, t[1] / t[3], t[4] * 1e3, t[0] / t[4], t[5] * 1e3, t[1] / t[5],
           bytes / t[1] / 1e9 / g_bw1, bytes / t[3] / 1e9 / g_bw1, dr);
    fflush(stdout);
    if (g_json)
      fprintf(g_json,
              "{\"bench\":\"petsc_ilu\",\"case\":\"%s\",\"precond\":\"%s\",\"cpu\":\"%s\",\"threads\":%d,\"n\":%ld,"
              "\"nnzb\":%lu,\"bs\":%d,\"petsc_refactor_s\":%.6e,\"petsc_apply_s\":%.6e,\"ref_refactor_s\":%.6e,"
              "\"ref_apply_s\":%.6e,\"omp_refactor_s\":%.6e,\"omp_apply_s\":%.6e,\"copy_gbs_1\":%.3f,\"copy_gbs_all\":%.3f,"
              "\"bytes_apply\":%.6e,\"rel_diff_petsc\":%.3e,\"omp_bits_ref\":%s}\n",
              name, pc_name, g_cpu, g_threads, n, (unsigned long)nnzb, bs, t[0], t[1], t[2], t[3], t[4], t[5], g_bw1,
              g_bwn, bytes, dr, dm == 0 ? "true" : "false");
    pds_free_case(&ref), pds_free_case(&omp);
  }
  CHK(ISDestroy(&rperm));
  CHK(ISDestroy(&cperm));
  CHK(MatDestroy(&pc.F));
  CHK(MatDestroy(&pc.A));
  CHK(VecDestroy(&pc.x));
  CHK(VecDestroy(&pc.y));
  free(pi), free(pj), free(xh), free(yp), free(yr), free(yo);
}

/* a comma-separated list of positive integers */
static int parse_list(const char *s, long *out, int max) {
  int k = 0;

  while (*s && k < max) {
    char *e;

    out[k] = strtol(s, &e, 10);
    if (e == s || out[k] < 1) return -1;
    k++, s = *e == ',' ? e + 1 : e;
  }
  return *s ? -1 : k;
}

int main(int argc, char **argv) {
  long        ns[8] = {64, 100}, m = 30;
  int         nn = 2, bs = 4;
  const char *json = NULL;

  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-n") && i + 1 < argc) nn = parse_list(argv[++i], ns, 8);
    else if (!strcmp(argv[i], "-m") && i + 1 < argc) m = atol(argv[++i]);
    else if (!strcmp(argv[i], "-bs") && i + 1 < argc) bs = atoi(argv[++i]);
    else if (!strcmp(argv[i], "-reps") && i + 1 < argc) g_reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "-json") && i + 1 < argc) json = argv[++i];
    else {
      fprintf(stderr, "usage: petsc_ilu [-n 64,100] [-m 30] [-bs 4] [-reps 7] [-json FILE] (not %s)\n", argv[i]);
      return 2;
    }
  }
  if (nn < 0 || m < 0 || bs < 1 || bs > 8 || g_reps < 1) {
    fprintf(stderr, "petsc_ilu: -n sizes >= 1, -m >= 0, -bs 1..8, -reps >= 1\n");
    return 2;
  }
  CHK(PetscInitializeNoArguments());
  if (json && !(g_json = fopen(json, "w"))) {
    fprintf(stderr, "petsc_ilu: cannot write %s\n", json);
    return 2;
  }
#if defined(_OPENMP)
  g_threads = omp_get_max_threads();
#endif
  cpu_name(g_cpu, sizeof g_cpu);
  {
    copy_arg c = {0};

    c.n = (size_t)1 << 25;
    c.a = malloc(c.n * sizeof *c.a), c.b = malloc(c.n * sizeof *c.b);
    if (!c.a || !c.b) return 3;
    for (size_t i = 0; i < c.n; i++) c.a[i] = (double)i;
    g_bw1 = 16.0 * (double)c.n / median_time(copy_run, &c, 5) / 1e9;
    c.all = 1;
    g_bwn = 16.0 * (double)c.n / median_time(copy_run, &c, 5) / 1e9;
    free(c.a), free(c.b);
  }
  printf("### petsc_ilu: ILU(0), PETSc (sequential, natural order) against pdesolve on %s; /cpu/omp %d threads; copy "
         "%.1f GB/s (1 thread), %.1f GB/s (all)\n\n",
         g_cpu, g_threads, g_bw1, g_bwn);
  printf("ms, medians of %d; (x): PETSc's time / pdesolve's; frac: the application's byte model over its time at the "
         "one-thread copy bandwidth\n\n",
         g_reps);
  printf("| case | n | nnz (blocks) | b | PETSc refactor | PETSc apply | ref refactor | ref apply | omp refactor | omp "
         "apply | PETSc frac | ref frac | ref vs PETSc |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (int k = 0; k < nn; k++) {
    pds_size *rp;
    pds_int  *ci;
    pds_real *v;
    char      name[64];

    poisson7(ns[k], &rp, &ci, &v);
    snprintf(name, sizeof name, "poisson7 %ld^3 (aij)", ns[k]);
    run_case(name, ns[k] * ns[k] * ns[k], 1, rp, ci, v, 0);
    free(rp), free(ci), free(v);
  }
  if (m > 0) {
    pds_size *rp;
    pds_int  *ci;
    pds_real *v;
    char      name[64];

    block7(m, bs, &rp, &ci, &v);
    snprintf(name, sizeof name, "block7 %ld^3, %d x %d (baij)", m, bs, bs);
    run_case(name, m * m * m, bs, rp, ci, v, m);
    free(rp), free(ci), free(v);
  }
  if (g_json) fclose(g_json);
  CHK(PetscFinalize());
  return g_fail;
}
