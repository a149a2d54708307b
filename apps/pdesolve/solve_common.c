/* apps/pdesolve/solve_common.c: solving, shared by solve and demo: the solver and preconditioner made from
 * solve_settings (make_solver, with the -monitor line), then setup, solve, the true residual and the errors against
 * the known solutions (run_solver, into solve_info). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pdesolve_app.h"

static int monitor_print(void *user, int it, pds_real rnorm) {
  (void)user;
  printf("%5d KSP residual norm %.12e\n", it, rnorm);
  return 0;
}

/* the flags of preconditioner pc of type name (the outer one, or bjacobi's and asm's local one) */
static int make_solver_pc_flags(pds_ctx ctx, const solve_settings *st, pds_precond pc, const char *name) {
  int rc = EXIT_DONE;

  if (st->bs > 0) TRY("flag -bs", pds_precond_set_block_size(pc, st->bs));
  if (st->rg && (rc = set_relax_gmg(ctx, pc, name, st->rg))) goto done;
  if (st->bilu0_variant) TRY("flag -pc_bilu0_variant", pds_precond_bilu0_set_variant(pc, st->bilu0_variant));
  if (st->semjacobi_variant)
    TRY("flag -pc_semjacobi_variant", pds_precond_semjacobi_set_variant(pc, st->semjacobi_variant));
  if (st->bilu0_factors)
    TRY("flag -pc_bilu0_factors", pds_precond_bilu0_set_factor_precision(pc, !strcmp(st->bilu0_factors, "float")
                                                                                 ? PDS_PRECISION_SINGLE
                                                                                 : PDS_PRECISION_DOUBLE));
  if (st->ilu0_shift_set) TRY("flag -pc_ilu0_shift", pds_precond_ilu0_set_shift(pc, st->ilu0_shift));
  if (st->ilu0_ordering) TRY("flag -pc_ilu0_ordering", pds_precond_ilu0_set_ordering(pc, st->ilu0_ordering));
  if (st->ilu0_variant) TRY("flag -pc_ilu0_variant", pds_precond_ilu0_set_variant(pc, st->ilu0_variant));
  if (st->ilu0_sweeps_set || st->ilu0_fsweeps_set)
    TRY("flags -pc_ilu0_sweeps, -pc_ilu0_factor_sweeps",
        pds_precond_ilu0_set_sweeps(pc, st->ilu0_sweeps_set ? st->ilu0_sweeps : -1,
                                    st->ilu0_fsweeps_set ? st->ilu0_fsweeps : -1));
done:
  return rc;
}

/* Create the solver and preconditioner (checks their names before any file is read) and apply settings. */
int make_solver(pds_ctx ctx, const solve_settings *st, pds_solver *s, pds_precond *pc) {
  int  rc = EXIT_DONE;
  char what[96];

  if (!strcmp(st->pc, "shell")) return fail("flag -pc: 'shell' needs a program to supply it; not available here");
  snprintf(what, sizeof what, "flag -solver: cannot create solver '%s'", st->solver);
  TRY(what, pds_solver_create(ctx, st->solver, s));
  snprintf(what, sizeof what, "flag -pc: cannot create preconditioner '%s'", st->pc);
  TRY(what, pds_precond_create(ctx, st->pc, pc));
  if (st->sub_pc && (!strcmp(st->pc, "bjacobi") || !strcmp(st->pc, "asm"))) { /* the flags set the local one */
    pds_precond sub;

    TRY("flag -sub_pc", pds_precond_set_sub_type(*pc, st->sub_pc));
    TRY("flag -sub_pc", pds_precond_get_sub(*pc, &sub));
    if ((rc = make_solver_pc_flags(ctx, st, sub, st->sub_pc))) goto done;
  } else if ((rc = make_solver_pc_flags(ctx, st, *pc, st->pc))) goto done;
  TRY("solver settings", pds_solver_set_tolerances(*s, st->rtol, st->atol, st->maxit));
  TRY("flag -inftol", pds_solver_set_inf_tolerance(*s, st->inftol));
  TRY("flag -restart", pds_solver_set_restart(*s, st->restart));
  TRY("flag -orthog", pds_solver_set_orthogonalization(*s, st->orthog ? st->orthog : "cgs2"));
  TRY("flag -omega", pds_solver_set_damping(*s, st->omega));
  TRY("flag -device_loop", pds_solver_set_device_loop(*s, !st->host_loop));
  if (st->precision)
    TRY("flag -precision", pds_solver_set_precision(*s, !strcmp(st->precision, "single") ? PDS_PRECISION_SINGLE
                                                        : !strcmp(st->precision, "mixed") ? PDS_PRECISION_MIXED
                                                                                            : PDS_PRECISION_DOUBLE));
  TRY("solver settings", pds_solver_set_precond(*s, *pc));
  if (st->monitor) TRY("flag -monitor", pds_solver_set_monitor(*s, monitor_print, NULL));
  if (st->history) TRY("flag -history", pds_solver_set_history(*s, 1));
done:
  return rc;
}

static const char *const ilu0_orderings[] = {"natural", "rcm", "multicolor"};
static const char *const ilu0_variants[]  = {"auto", "levels", "syncfree", "approx-jacobi", "approx-chow"};

/* -pc ilu0's flags into st (shift, ordering, variant, sweeps; NULL or unset where not given) */
int read_ilu0_flags(pds_options o, const char *cmdname, solve_settings *st) {
  bool set;

  OPT(o, pds_options_get_real(o, "-pc_ilu0_shift", 0, -1e300, 1e300,
                              "-pc ilu0 factors A + s I: lets zero or missing diagonal entries be factored "
                              "(docs/ilu0.md)", &st->ilu0_shift, &st->ilu0_shift_set));
  OPT(o, pds_options_get_choice(o, "-pc_ilu0_ordering", "natural", ilu0_orderings, NELEM(ilu0_orderings),
                                "the order -pc ilu0 factors in: natural, rcm (reverse Cuthill-McKee), multicolor "
                                "(fewer levels for parallel sweeps, usually more iterations)", &st->ilu0_ordering,
                                &set));
  if (!set) st->ilu0_ordering = NULL;
  OPT(o, pds_options_get_choice(o, "-pc_ilu0_variant", "auto", ilu0_variants, NELEM(ilu0_variants),
                                "how -pc ilu0 runs: auto; levels, syncfree (/gpu/cuda); approx-jacobi, approx-chow "
                                "(approximate, every backend: Jacobi sweeps for the triangles, Chow-Patel sweeps for "
                                "the factor; docs/ilu0.md)", &st->ilu0_variant, &set));
  if (!set) st->ilu0_variant = NULL;
  OPT(o, pds_options_get_int(o, "-pc_ilu0_sweeps", 3, 0, 1000,
                             "-pc ilu0 approx-*: Jacobi sweeps per triangle after the first", &st->ilu0_sweeps,
                             &st->ilu0_sweeps_set));
  OPT(o, pds_options_get_int(o, "-pc_ilu0_factor_sweeps", 3, 1, 1000,
                             "-pc ilu0 approx-chow: Chow-Patel sweeps of the factorization", &st->ilu0_fsweeps,
                             &st->ilu0_fsweeps_set));
  return EXIT_DONE;
}

/* ||x - y||_inf and ||x - y||_2 / ||y||_2. */
static int vec_error(pds_vec x, pds_vec y, double *einf, double *erel2) {
  pds_vec  e = NULL;
  pds_real ny, ne;
  int      ierr;

  PDS_CALL_GOTO(ierr, done, pds_vec_duplicate(x, &e));
  PDS_CALL_GOTO(ierr, done, pds_vec_waxpy(e, -1.0, y, x));
  PDS_CALL_GOTO(ierr, done, pds_vec_norm_inf(e, einf));
  PDS_CALL_GOTO(ierr, done, pds_vec_norm2(e, &ne));
  PDS_CALL_GOTO(ierr, done, pds_vec_norm2(y, &ny));
  *erel2 = ny > 0 ? ne / ny : ne;
done:
  pds_vec_destroy(&e);
  return ierr;
}

/* Set up and solve A x = b; errors against x_exact / u_exact when given. */
int run_solver(pds_ctx ctx, pds_solver s, pds_mat A, pds_vec b, pds_vec x, pds_vec x_exact, pds_vec u_exact,
                      const solve_settings *st, solve_info *info) {
  pds_vec r  = NULL;
  int     rc = EXIT_DONE;
  double  t0, dummy;

  memset(info, 0, sizeof *info);
  TRY("matrix", pds_mat_get_size(A, &info->n, NULL));
  TRY("matrix", pds_mat_get_nnz(A, &info->nnz));
  TRY("matrix", pds_mat_get_block_size(A, &info->bs));
  TRY("solver setup", pds_solver_set_operator(s, A));
  t0 = pds_wtime();
  TRY("solver setup", pds_solver_setup(s));
  info->t_setup = pds_wtime() - t0;
  if (st->view) {
    printf("backend: %s (%d thread%s)\n", pds_ctx_get_backend(ctx), pds_ctx_get_num_threads(ctx),
           pds_ctx_get_num_threads(ctx) == 1 ? "" : "s");
    TRY("-view", pds_mat_view(A, stdout));
    TRY("-view", pds_solver_view(s, stdout)); /* with the method's own settings and the preconditioner */
  }
  t0 = pds_wtime();
  TRY("solve", pds_solver_solve(s, b, x));
  info->t_solve = pds_wtime() - t0;
  TRY("solve", pds_solver_get_result(s, &info->res));
  TRY("residual", pds_vec_duplicate(b, &r));
  TRY("residual", pds_mat_residual(A, b, x, r));
  TRY("residual", pds_vec_norm2(r, &info->rnorm_true));
  if (x_exact) {
    TRY("error", vec_error(x, x_exact, &info->err_inf, &info->err_rel2));
    info->have_x = true;
  }
  if (u_exact) {
    TRY("error", vec_error(x, u_exact, &info->disc_err, &dummy));
    info->have_u = true;
  }
done:
  pds_vec_destroy(&r);
  return rc;
}

/* The output contract's last lines (main.c), one definition for solve on one rank and under mpirun. extra: what the
   caller adds ("" for nothing): print_solution's after the errors, print_result's mid after t_solve and tail after
   the errors. */
void print_solution(const solve_info *in, const char *extra) {
  printf("solution: rnorm_true=%.6e", in->rnorm_true);
  if (in->have_x) printf(" err_inf=%.6e err_rel2=%.6e", in->err_inf, in->err_rel2);
  if (in->have_u) printf(" disc_err=%.6e", in->disc_err);
  printf("%s\n", extra);
}

void print_result(const solve_settings *st, const char *backend, const solve_info *in, const char *mid,
                  const char *tail) {
  printf("result: solver=%s pc=%s backend=%s n=%" PDS_INT_FMT " nnz=%" PDS_SIZE_FMT " iterations=%d reason=%s "
         "rnorm0=%.6e rnorm=%.6e rel=%.6e t_setup=%.6e t_solve=%.6e%s",
         st->solver, st->pc, backend, in->n, in->nnz, in->res.iterations, pds_reason_name(in->res.reason),
         in->res.rnorm0, in->res.rnorm, ratio(in->res.rnorm, in->res.rnorm0), in->t_setup, in->t_solve, mid);
  if (in->have_x) printf(" err_inf=%.6e", in->err_inf);
  if (in->have_u) printf(" disc_err=%.6e", in->disc_err);
  printf("%s\n", tail);
}

/* -history: every iteration's residual norm */
int print_history(pds_solver s) {
  const pds_real *h;
  int             len;

  PDS_CALL(pds_solver_get_history(s, &len, &h));
  for (int i = 0; i < len; i++) printf("%5d history residual norm %.12e\n", i, h[i]);
  return PDS_OK;
}

double ratio(double a, double b) { return b > 0 ? a / b : (a > 0 ? INFINITY : 0.0); }
