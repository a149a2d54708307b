/* bench/bench_overhead.c: the C side of bench/python/bench_overhead.py: the calls the Python package makes for its
 * common operations, timed from C on the same system, so the script can report Python's overhead as a difference
 * and a ratio from one run. Linked against the shared library, as Python loads it.
 *
 *   bench_overhead [-backend /cpu/ref] [-n 8] [-reps 20000] [-warmup 2000]
 *
 * System: the n x n tridiagonal matrix (-1, 4, -1) in CSR from the caller's arrays (PDS_USE_POINTER), b = ones;
 * CG + Jacobi to rtol 1e-8 from x = 0 (a handful of iterations). Operations (each the median over -reps calls
 * after -warmup calls; one JSON object per line):
 *   create_matrix  pds_mat_create_csr (USE_POINTER) + pds_mat_destroy
 *   create_solver  pds_solver_create, set_operator, set_tolerances, pds_precond_create("jacobi"), set_precond,
 *                  set_history + both destroys
 *   solve          pds_vec_set(x, 0), pds_solver_solve, pds_solver_get_result, pds_solver_get_history
 *   pc_apply       pds_precond_apply
 *   matvec         pds_mat_apply
 * A last line gives the solve's iterations, residual and solution (17 digits), which the script checks against
 * Python's bit for bit before it reports any time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pdesolve.h"

#define CK(call)                                                                                               \
  do {                                                                                                         \
    int ck_ = (call);                                                                                          \
    if (ck_) {                                                                                                 \
      fprintf(stderr, "bench_overhead: %s failed: %s\n", #call, pds_ctx_get_error(ctx));                       \
      exit(1);                                                                                                 \
    }                                                                                                          \
  } while (0)

static const char *opt(int argc, char **argv, const char *name, const char *def) {
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], name)) return argv[i + 1];
  }
  return def;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

typedef struct {
  pds_ctx     ctx;
  pds_int     n;
  pds_size   *rp;
  pds_int    *ci;
  pds_real   *va;
  pds_mat     A;
  pds_solver  s;
  pds_precond pc;
  pds_vec     b, x, y;
} sys_t;

static void op_create_matrix(sys_t *S) {
  pds_ctx ctx = S->ctx;
  pds_mat M;

  CK(pds_mat_create_csr(ctx, S->n, S->n, S->rp, S->ci, S->va, PDS_MEM_HOST, PDS_USE_POINTER, &M));
  CK(pds_mat_destroy(&M));
}

static void op_create_solver(sys_t *S) {
  pds_ctx     ctx = S->ctx;
  pds_solver  s;
  pds_precond pc;

  CK(pds_solver_create(ctx, "cg", &s));
  CK(pds_solver_set_operator(s, S->A));
  CK(pds_solver_set_tolerances(s, 1e-8, 1e-50, 10000));
  CK(pds_precond_create(ctx, "jacobi", &pc));
  CK(pds_solver_set_precond(s, pc));
  CK(pds_solver_set_history(s, 1));
  CK(pds_precond_destroy(&pc));
  CK(pds_solver_destroy(&s));
}

static void op_solve(sys_t *S) {
  pds_ctx           ctx = S->ctx;
  pds_solver_result r;
  const pds_real   *h;
  int               len;

  CK(pds_vec_set(S->x, 0.0));
  CK(pds_solver_solve(S->s, S->b, S->x));
  CK(pds_solver_get_result(S->s, &r));
  CK(pds_solver_get_history(S->s, &len, &h));
}

static void op_pc_apply(sys_t *S) {
  pds_ctx ctx = S->ctx;
  CK(pds_precond_apply(S->pc, S->b, S->y));
}

static void op_matvec(sys_t *S) {
  pds_ctx ctx = S->ctx;
  CK(pds_mat_apply(S->A, S->b, S->y));
}

int main(int argc, char **argv) {
  const char *backend = opt(argc, argv, "-backend", "/cpu/ref");
  int         n = atoi(opt(argc, argv, "-n", "8")), reps = atoi(opt(argc, argv, "-reps", "20000"));
  int         warmup = atoi(opt(argc, argv, "-warmup", "2000"));
  struct {
    const char *name;
    void (*fn)(sys_t *);
  } ops[] = {{"create_matrix", op_create_matrix}, {"create_solver", op_create_solver}, {"solve", op_solve},
             {"pc_apply", op_pc_apply}, {"matvec", op_matvec}};
  sys_t             S = {0};
  pds_ctx           ctx = NULL;
  double           *t;
  pds_solver_result r;

  if (n < 2 || reps < 1 || warmup < 0) {
    fprintf(stderr, "bench_overhead: -n >= 2, -reps >= 1, -warmup >= 0\n");
    return 2;
  }
  if (pds_ctx_create(backend, &ctx)) return 1;
  S.ctx = ctx, S.n = n;
  S.rp = malloc((size_t)(n + 1) * sizeof *S.rp), S.ci = malloc((size_t)3 * n * sizeof *S.ci);
  S.va = malloc((size_t)3 * n * sizeof *S.va), t = malloc((size_t)reps * sizeof *t);
  if (!S.rp || !S.ci || !S.va || !t) return 1;
  S.rp[0] = 0;
  for (pds_int i = 0, k = 0; i < n; i++) { /* the rows of scipy.sparse.diags([-1, 4, -1], [-1, 0, 1]) */
    for (pds_int j = i - 1; j <= i + 1; j++) {
      if (j < 0 || j >= n) continue;
      S.ci[k] = j, S.va[k++] = j == i ? 4.0 : -1.0;
    }
    S.rp[i + 1] = S.rp[i] + (i == 0 || i == n - 1 ? 2 : 3);
  }
  CK(pds_mat_create_csr(ctx, n, n, S.rp, S.ci, S.va, PDS_MEM_HOST, PDS_USE_POINTER, &S.A));
  CK(pds_solver_create(ctx, "cg", &S.s));
  CK(pds_solver_set_operator(S.s, S.A));
  CK(pds_solver_set_tolerances(S.s, 1e-8, 1e-50, 10000));
  CK(pds_precond_create(ctx, "jacobi", &S.pc));
  CK(pds_solver_set_precond(S.s, S.pc));
  CK(pds_solver_set_history(S.s, 1));
  CK(pds_solver_setup(S.s));
  CK(pds_vec_create(ctx, n, &S.b));
  CK(pds_vec_duplicate(S.b, &S.x));
  CK(pds_vec_duplicate(S.b, &S.y));
  CK(pds_vec_set(S.b, 1.0));
  for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
    for (int i = 0; i < warmup; i++) ops[o].fn(&S);
    for (int i = 0; i < reps; i++) {
      double t0 = pds_wtime();

      ops[o].fn(&S);
      t[i] = pds_wtime() - t0;
    }
    qsort(t, (size_t)reps, sizeof *t, cmp);
    printf("{\"bench\": \"overhead\", \"lang\": \"c\", \"op\": \"%s\", \"backend\": \"%s\", \"n\": %d, \"reps\": %d, "
           "\"us\": %.4f}\n", ops[o].name, pds_ctx_get_backend(ctx), n, reps, 1e6 * t[reps / 2]);
  }
  op_solve(&S);
  CK(pds_solver_get_result(S.s, &r));
  {
    pds_real *x = malloc((size_t)n * sizeof *x);

    CK(pds_vec_get_values(S.x, x, PDS_MEM_HOST));
    printf("{\"bench\": \"overhead\", \"lang\": \"c\", \"op\": \"check\", \"iterations\": %d, \"rnorm\": %.17g, "
           "\"x\": [", r.iterations, r.rnorm);
    for (int i = 0; i < n; i++) printf("%s%.17g", i ? ", " : "", x[i]);
    printf("]}\n");
    free(x);
  }
  pds_vec_destroy(&S.b), pds_vec_destroy(&S.x), pds_vec_destroy(&S.y);
  pds_precond_destroy(&S.pc), pds_solver_destroy(&S.s), pds_mat_destroy(&S.A);
  free(S.rp), free(S.ci), free(S.va), free(t);
  pds_ctx_destroy(&ctx);
  return 0;
}
