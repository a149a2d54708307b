/* apps/pdesolve/solve_dist.c: `pdesolve solve` under mpirun with more than one rank (cmd_solve.c calls it): the
 * operator from -A FILE (read by rank 0, scattered by contiguous rows; -format bsr -bs N keeps blocks of N), from
 * -problem poisson7 -n NX NY NZ (each rank makes its rows), from -problem channel -n I J K [-decomp BX BY BZ] (one
 * channel cut into blocks, whole blocks per rank: mpistencil7, for bjacobi with -sub_pc bilu0), from -problem patches
 * (whole patches a rank: mpipatches, for bjacobi with -sub_pc gmg or relax), from -problem sem (whole elements a
 * rank, matrix-free: mpisem, for semjacobi, jacobi and bjacobi with -sub_pc semjacobi), or from fem2d built whole on
 * rank 0 and spread by rows (pds_mat_scatter_dist: csr), b from -b FILE (else the problem's, else A * ones), x0
 * from -x0 FILE (else zero); the same solver and preconditioner flags as on one rank (bjacobi and asm with -sub_pc
 * across ranks). Prints the same result line as the serial solve plus ranks=, t_comm= (rank 0's seconds in MPI calls),
 * the history (-history), writes the solution gathered on rank 0 (-o) and -json with "ranks" and per-rank times. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pdesolve_app.h"
#include "io/json.h"

static int write_dist_report(pds_ctx ctx, const char *path, const char *source, const solve_settings *st,
                             const solve_info *in, const double *t_solve, const double *t_comm) {
  const int P = pds_ctx_get_size(ctx);
  pds_json  j;

  PDS_CALL(pds_json_open(ctx, path, 2, &j));
  pds_json_begin_object(&j, NULL);
  pds_json_string(&j, "command", "solve");
  pds_json_string(&j, "version", pds_version());
  pds_json_string(&j, "source", source);
  pds_json_string(&j, "solver", st->solver);
  pds_json_string(&j, "pc", st->pc);
  if (!strcmp(st->pc, "bjacobi")) pds_json_string(&j, "sub_pc", st->sub_pc);
  pds_json_string(&j, "backend", pds_ctx_get_backend(ctx));
  pds_json_int(&j, "ranks", P);
  pds_json_string(&j, "halo", pds_ctx_get_halo_transport(ctx));
  pds_json_string(&j, "partition", st->partition ? st->partition : "contiguous");
  pds_json_int(&j, "n", in->n);
  pds_json_int(&j, "nnz", (long long)in->nnz);
  pds_json_int(&j, "iterations", in->res.iterations);
  pds_json_string(&j, "reason", pds_reason_name(in->res.reason));
  pds_json_real(&j, "rnorm0", in->res.rnorm0);
  pds_json_real(&j, "rnorm", in->res.rnorm);
  pds_json_real(&j, "rnorm_true", in->rnorm_true);
  if (in->have_x) pds_json_real(&j, "err_inf", in->err_inf);
  if (in->have_u) pds_json_real(&j, "disc_err", in->disc_err);
  pds_json_real(&j, "t_setup", in->t_setup);
  pds_json_real(&j, "t_solve", in->t_solve);
  pds_json_real_array(&j, "t_solve_rank", t_solve, P);
  pds_json_real_array(&j, "t_comm_rank", t_comm, P); /* seconds in MPI calls (reductions, halo waits), setup to end */
  pds_json_end_object(&j);
  return pds_json_close(&j);
}

int solve_dist(pds_ctx ctx, const solve_settings *st, const char *Apath, const char *problem, const int *dims,
               int ndims, const channel_flags *ch, pds_problem *pre, int pre_dist, const char *format,
               const char *bpath, const char *x0path, const char *json, const char *out) {
  const pds_problem *whole = pre && !pre_dist ? pre : NULL;
  const int   P  = pds_ctx_get_size(ctx);
  pds_solver  s  = NULL;
  pds_precond pc = NULL;
  pds_problem p;
  pds_mat     A = NULL;
  pds_vec     b = NULL, x = NULL, ones = NULL, x_exact = NULL;
  solve_info  info;
  char        source[200];
  double      c0, t_comm, *ts = NULL, *tc = NULL;
  pds_int     N;
  int         rc = EXIT_DONE;

  memset(&p, 0, sizeof p);
  if (ch ? strcmp(format, "csr") && strcmp(format, "stencil7") : strcmp(format, "csr") && strcmp(format, "bsr"))
    return fail("under mpirun, -format is csr or bsr (the distributed formats; -problem channel: stencil7), not %s",
                format);
  if ((rc = make_solver(ctx, st, &s, &pc))) goto done;
  if (strcmp(st->halo, "mpi")) TRY("flag -halo", pds_ctx_set_halo_transport(ctx, st->halo));
  if (Apath) {
    const int bs = !strcmp(format, "bsr") ? (st->bs > 0 ? st->bs : 1) : 1;

    TRY("flag -A", pds_mat_load_dist_partitioned(ctx, Apath, bs, st->partition ? st->partition : "contiguous", &A));
    snprintf(source, sizeof source, "%s", Apath);
  } else if (pre && pre_dist) { /* made distributed (patches, sem): taken over whole */
    p = *pre, memset(pre, 0, sizeof *pre);
    A = p.A;
    TRY("problem", pds_mat_reference(A));
    snprintf(source, sizeof source, "%s", p.description);
  } else if (whole) { /* rank 0 built it whole: spread by contiguous rows (or -partition) */
    const int bs = !strcmp(format, "bsr") ? (st->bs > 0 ? st->bs : 1) : 1;
    int       have[2] = {whole->b != NULL, whole->u_exact != NULL};

    TRY("problem", pds_mat_scatter_dist(ctx, whole->A, bs, st->partition ? st->partition : "contiguous", &A));
    app_bcast_int(&have[0]), app_bcast_int(&have[1]);
    if (have[0]) {
      TRY("problem", pds_mat_create_vecs(A, NULL, &p.b));
      TRY("problem", pds_vec_scatter_dist(p.b, whole->b));
    }
    if (have[1]) {
      TRY("problem", pds_mat_create_vecs(A, NULL, &p.u_exact));
      TRY("problem", pds_vec_scatter_dist(p.u_exact, whole->u_exact));
    }
    snprintf(source, sizeof source, "%s (built on rank 0, spread by rows)", whole->description);
  } else if (ch) {
    if ((rc = channel_build_dist(ctx, ch, &p))) goto done;
    A = p.A;
    TRY("problem", pds_mat_reference(A));
    snprintf(source, sizeof source, "%s", p.description);
  } else {
    pds_int d[3];

    if (strcmp(problem, "poisson7") || ndims < 1)
      return fail("under mpirun, -problem is poisson7 -n NX [NY NZ] or channel -n I [J K] (or give -A FILE)");
    for (int i = 0; i < 3; i++) d[i] = dims[i < ndims ? i : ndims - 1];
    TRY("problem", pds_problem_create_poisson7_dist(ctx, d, &p));
    A = p.A;
    TRY("problem", pds_mat_reference(A));
    snprintf(source, sizeof source, "%s", p.description);
    if (!strcmp(format, "bsr")) return fail("-problem poisson7 under mpirun is csr");
  }
  if (bpath) {
    TRY("flag -b", pds_mat_create_vecs(A, NULL, &b));
    TRY("flag -b", pds_vec_load_dist(b, bpath));
  } else if (p.b) {
    TRY("problem", pds_vec_duplicate(p.b, &b));
    TRY("problem", pds_vec_copy(p.b, b));
  } else {
    TRY("b = A*ones", pds_mat_create_vecs(A, &ones, &b));
    TRY("b = A*ones", pds_vec_set(ones, 1.0));
    TRY("b = A*ones", pds_mat_apply(A, ones, b));
    x_exact = ones;
  }
  TRY("x0", pds_mat_create_vecs(A, &x, NULL));
  if (x0path) TRY("flag -x0", pds_vec_load_dist(x, x0path));
  else TRY("x0", pds_vec_set(x, 0.0));
  if (st->view) {
    printf("source: %s\n", source);
    printf("rhs: %s\n", bpath ? bpath : p.b ? "generated" : "A*ones");
    printf("ranks: %d\n", P);
  }
  c0 = pds_ctx_get_comm_time(ctx);
  if ((rc = run_solver(ctx, s, A, b, x, x_exact, p.b && !bpath ? p.u_exact : NULL, st, &info))) goto done;
  t_comm = pds_ctx_get_comm_time(ctx) - c0; /* setup, solve and the true residual */
  ts     = calloc((size_t)P, sizeof *ts);
  tc     = calloc((size_t)P, sizeof *tc);
  if (!ts || !tc) {
    rc = fail("out of memory");
    goto done;
  }
  TRY("matrix", pds_mat_get_global_size(A, &N));
  {
    double nnz = (double)info.nnz, *all = ts; /* the global count: every rank's, summed */

    app_gather(nnz, tc);
    nnz = 0;
    for (int r = 0; r < P; r++) nnz += tc[r];
    app_gather(info.t_solve, all);
    app_gather(t_comm, tc);
    info.nnz = (pds_size)nnz;
    info.n   = N;
  }
  if (st->history) TRY("history", print_history(s)); /* the same on every rank; rank 0 prints */
  if (out) {
    char what[300];

    snprintf(what, sizeof what, "flag -o: cannot write '%s'", out);
    TRY(what, pds_vec_write_dist(x, out)); /* gathered on rank 0 */
  }
  print_solution(&info, "");
  if (json) {
    char what[300];

    snprintf(what, sizeof what, "flag -json: cannot write '%s'", json);
    if (pds_ctx_get_rank(ctx) == 0) TRY(what, write_dist_report(ctx, json, source, st, &info, ts, tc));
  }
  {
    char mid[64];

    snprintf(mid, sizeof mid, " ranks=%d t_comm=%.6e", P, t_comm);
    print_result(st, pds_ctx_get_backend(ctx), &info, mid, "");
  }
  rc = info.res.reason > 0 ? EXIT_DONE : EXIT_NOT_CONVERGED;
done:
  free(ts);
  free(tc);
  pds_vec_destroy(&b);
  pds_vec_destroy(&x);
  pds_vec_destroy(&ones);
  pds_mat_destroy(&A);
  pds_problem_destroy(&p);
  pds_solver_destroy(&s);
  pds_precond_destroy(&pc);
  return rc;
}
