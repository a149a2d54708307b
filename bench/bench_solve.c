/* bench/bench_solve.c: time per iteration of BiCGSTAB + Jacobi and CG + Jacobi on the 7-point Laplacian of an
 * n^3 grid (b = A 1, x0 = 0), on /cpu/ref and /cpu/omp, same data, same run, against a STREAM-like copy.
 *
 *   bench_solve [-n 128] [-its 100] [-reps 3] [-warmup 1] [-solvers bicgstab,cg] [-rtol R] [-copy_n N] [-help]
 *
 * Each timed solve runs exactly -its iterations (rtol = atol = 0) from x0 = 0, so both backends do the same work;
 * t_median_s is the median solve time divided by the iterations (the initial residual, one product, is spread
 * over them). With -rtol R the solves stop at ||r|| <= R ||b|| instead, and the iterations are reported.
 * Validation before reporting: ref and omp reach the same residual norm (within 1e-10; they agree bitwise),
 * and the tracked residual agrees with the true ||b - A x||. */
#include "bench_common.h"
#include "bench_poisson.h"

typedef struct {
  pds_solver s;
  pds_vec    b, x;
} solve_arg;

static int k_solve(void *a) {
  solve_arg *s    = a;
  int        ierr = pds_vec_set(s->x, 0.0); /* x0 = 0 */

  return ierr ? ierr : pds_solver_solve(s->s, s->b, s->x);
}

/* ||b - A x||_2 */
static double true_residual(pds_mat A, pds_vec b, pds_vec x) {
  pds_vec r;
  double  nrm;

  BENCH_CALL(pds_vec_duplicate(b, &r));
  BENCH_CALL(pds_mat_residual(A, b, x, r));
  BENCH_CALL(pds_vec_norm2(r, &nrm));
  BENCH_CALL(pds_vec_destroy(&r));
  return nrm;
}

int main(int argc, char **argv) {
  static const char *const known[] = {"-n", "-its", "-reps", "-warmup", "-solvers", "-rtol", "-copy_n", "-help", NULL};
  static const int         val[]   = {1, 1, 1, 1, 1, 1, 1, 0};
  long                     n, its, reps, warmup, N, copy_n;
  double                   rtol;
  const char              *solvers;
  pds_ctx                  ctx[2];
  pds_mat                  A[2];
  pds_vec                  ones[2];
  pds_size                *rp;
  pds_int                 *ci;
  pds_real                *v;
  bench_copy               cp;
  int                      nb, printed_copy = 0;

  if (bench_flag(argc, argv, "-help")) {
    printf("bench_solve: Krylov + Jacobi time per iteration on /cpu/ref and /cpu/omp (JSON lines)\n"
           "  -n N           grid n^3 of the 7-point Laplacian (default 128)\n"
           "  -its K         iterations per timed solve (default 100)\n"
           "  -reps R        timed solves, median reported (default 3)\n"
           "  -warmup W      untimed solves first (default 1)\n"
           "  -solvers LIST  bicgstab,cg (default both), each with the jacobi preconditioner\n"
           "  -rtol R        solve to ||r|| <= R ||b|| instead of a fixed iteration count (-its is then the limit)\n"
           "  -copy_n N      length of the copy arrays (default 2^25)\n");
    return 0;
  }
  bench_check_options(argc, argv, known, val);
  n       = bench_int(argc, argv, "-n", 128);
  its     = bench_int(argc, argv, "-its", 100);
  reps    = bench_int(argc, argv, "-reps", 3);
  warmup  = bench_int(argc, argv, "-warmup", 1);
  copy_n  = bench_int(argc, argv, "-copy_n", 1L << 25);
  solvers = bench_str(argc, argv, "-solvers", "bicgstab,cg");
  rtol    = atof(bench_str(argc, argv, "-rtol", "0"));
  if (n < 2 || n > 1290 || its < 1 || reps < 1 || warmup < 0 || copy_n < 1 || !(rtol >= 0 && rtol < 1)) {
    fprintf(stderr, "bench_solve: need 2 <= n <= 1290, its >= 1, reps >= 1, warmup >= 0, 0 <= rtol < 1\n");
    return 2;
  }
  N  = n * n * n;
  nb = bench_contexts(ctx);
  bench_copy_init(&cp, (size_t)copy_n);
  poisson7(n, &rp, &ci, &v);
  for (int b = 0; b < nb; b++) {
    BENCH_CALL(pds_mat_create_csr(ctx[b], (pds_int)N, (pds_int)N, rp, ci, v, PDS_MEM_HOST, PDS_USE_POINTER, &A[b]));
    BENCH_CALL(pds_vec_create(ctx[b], N, &ones[b]));
    BENCH_CALL(pds_vec_set(ones[b], 1.0));
  }
  for (const char *p = solvers; *p;) {
    size_t      len = strcspn(p, ",");
    char        name[32];
    int         bicg;
    solve_arg   s[2];
    bench_fn    fn[3]  = {bench_copy_run, k_solve, nb > 1 ? k_solve : NULL};
    void       *arg[3] = {&cp, &s[0], &s[1]};
    double      t[3], nnz = (double)rp[N], bytes, flops;
    int         iters[2] = {0, 0};
    double      rn[2] = {0, 0}, bn[2] = {1, 1};

    snprintf(name, sizeof name, "%.*s", (int)len, p);
    p += len + (p[len] == ',');
    bicg = !strcmp(name, "bicgstab");
    if (!bicg && strcmp(name, "cg")) {
      fprintf(stderr, "bench_solve: solver '%s' is not benchmarked here (bicgstab, cg)\n", name);
      return 2;
    }
    /* Byte model per iteration (the vector passes are those the solvers' header comments count):
       product 12 nnz + 24 N (vals+colidx, rowptr, x once, y), Jacobi y = x ./ d 24 N,
       BiCGSTAB: 2 products + 2 Jacobi + 21 vector passes of 8 N; CG: 1 product + 1 Jacobi + 13 passes.
       Flops per iteration: BiCGSTAB 4 nnz + 2 N + 20 N, CG 2 nnz + N + 10 N (approximate vector counts). */
    if (bicg) {
      bytes = 2 * (12 * nnz + 24.0 * N) + 2 * 24.0 * N + 21 * 8.0 * N;
      flops = 4 * nnz + 22.0 * N;
    } else {
      bytes = 12 * nnz + 24.0 * N + 24.0 * N + 13 * 8.0 * N;
      flops = 2 * nnz + 11.0 * N;
    }
    for (int b = 0; b < nb; b++) {
      pds_precond pc;

      BENCH_CALL(pds_solver_create(ctx[b], name, &s[b].s));
      BENCH_CALL(pds_precond_create(ctx[b], "jacobi", &pc));
      BENCH_CALL(pds_solver_set_operator(s[b].s, A[b]));
      BENCH_CALL(pds_solver_set_precond(s[b].s, pc));
      BENCH_CALL(pds_precond_destroy(&pc)); /* the solver holds a reference */
      BENCH_CALL(pds_solver_set_tolerances(s[b].s, rtol, 0.0, (int)its));
      BENCH_CALL(pds_solver_setup(s[b].s));
      BENCH_CALL(pds_vec_create(ctx[b], N, &s[b].b));
      BENCH_CALL(pds_vec_create(ctx[b], N, &s[b].x));
      BENCH_CALL(pds_mat_apply(A[b], ones[b], s[b].b)); /* b = A 1 */
    }
    /* validate: one solve each; same residual history end on both backends; tracked vs true residual */
    for (int b = 0; b < nb; b++) {
      pds_solver_result r;
      double            tr;

      BENCH_CALL(k_solve(&s[b]));
      BENCH_CALL(pds_solver_get_result(s[b].s, &r));
      iters[b] = r.iterations, rn[b] = r.rnorm, bn[b] = r.bnorm;
      tr = true_residual(A[b], s[b].b, s[b].x);
      if (!(fabs(tr - r.rnorm) <= 1e-6 * r.bnorm) || (rtol > 0 && r.reason <= 0)) {
        fprintf(stderr, "VALIDATION FAILED: %s on %s: %d iterations, reason %s, tracked ||r|| %.6e, true %.6e, ||b|| %.6e\n",
                name, pds_ctx_get_backend(ctx[b]), r.iterations, pds_reason_name(r.reason), r.rnorm, tr, r.bnorm);
        return 1;
      }
    }
    if (nb > 1 && (iters[0] != iters[1] || !(fabs(rn[0] - rn[1]) <= 1e-10 * rn[0]))) {
      fprintf(stderr, "VALIDATION FAILED: %s: ref %d iterations ||r|| %.17g, omp %d iterations ||r|| %.17g\n", name,
              iters[0], rn[0], iters[1], rn[1]);
      return 1;
    }
    bench_run(3, fn, arg, (int)warmup, (int)reps, t);
    if (!printed_copy++) bench_print_copy("solve", &cp, t[0]);
    for (int b = 0; b < nb; b++) {
      char         extra[160], kernel[48];
      bench_result r;

      snprintf(kernel, sizeof kernel, "%s+jacobi", name);
      snprintf(extra, sizeof extra, "\"its\":%d,\"t_solve_s\":%.6e,\"rnorm_rel\":%.3e", iters[b], t[1 + b],
               rn[b] / bn[b]);
      r = (bench_result){"solve", pds_ctx_get_backend(ctx[b]), kernel, N, (long long)nnz, 1,
                         pds_ctx_get_num_threads(ctx[b]), t[1 + b] / iters[b], bytes, flops,
                         bench_copy_bytes(&cp) / t[0] * 1e-9, t[1] / iters[0], extra,
                         bench_last_min[1 + b] / iters[b], bench_copy_bytes(&cp) / bench_last_min[0] * 1e-9,
                         bench_last_min[1] / iters[0]};
      bench_print(&r);
    }
    for (int b = 0; b < nb; b++) {
      BENCH_CALL(pds_solver_destroy(&s[b].s));
      BENCH_CALL(pds_vec_destroy(&s[b].b));
      BENCH_CALL(pds_vec_destroy(&s[b].x));
    }
  }
  for (int b = 0; b < nb; b++) {
    BENCH_CALL(pds_vec_destroy(&ones[b]));
    BENCH_CALL(pds_mat_destroy(&A[b]));
    BENCH_CALL(pds_ctx_destroy(&ctx[b]));
  }
  free(rp), free(ci), free(v);
  bench_copy_free(&cp);
  return 0;
}
