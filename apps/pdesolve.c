/* apps/pdesolve.c: the pdesolve command-line driver: solve, apply, gen and demo subcommands with PETSc-style
 * named flags (src/sys/options.c). `pdesolve -help` lists every command and flag with its default.
 *
 * Output contract (tests and scripts rely on it): -monitor prints "%5d KSP residual norm %.12e" per iteration;
 * solve always ends with one line "result: solver=... pc=... backend=... n=... nnz=... iterations=...
 * reason=... rnorm0=... rnorm=... rel=... t_setup=... t_solve=..." plus " err_inf=..." when the exact discrete
 * solution is known and " disc_err=..." when the PDE solution is known. Errors go to stderr as
 * "pdesolve: error: ...". Exit status: 0 converged (or done), 2 not converged, 1 error. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pdesolve.h"
#include "io/json.h"
#include "sys/options.h"

enum { EXIT_DONE = 0, EXIT_ERROR = 1, EXIT_NOT_CONVERGED = 2 };

/* ---- messages -------------------------------------------------------------------------------------- */

static int fail(const char *fmt, ...) PDS_PRINTF(1, 2);
static int fail(const char *fmt, ...) {
  va_list ap;

  fprintf(stderr, "pdesolve: error: ");
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\n");
  return EXIT_ERROR;
}

/* A library call failed: say what we were doing and the library's message. */
static int fail_lib(pds_ctx ctx, int ierr, const char *what) {
  const char *msg = ctx ? pds_ctx_get_error(ctx) : "";

  fail("%s: %s", what, msg && msg[0] ? msg : pds_error_name(ierr));
  if (ctx) pds_ctx_clear_error(ctx);
  return EXIT_ERROR;
}

/* In functions with a `pds_ctx ctx`, an `int rc` and a `done:` label. */
#define TRY(what, ...)                          \
  do {                                          \
    int try_ierr_ = (__VA_ARGS__);              \
    if (try_ierr_) {                            \
      rc = fail_lib(ctx, try_ierr_, what);      \
      goto done;                                \
    }                                           \
  } while (0)
/* Options getters: the message names the flag. */
#define OPT(o, ...)                                                                        \
  do {                                                                                     \
    if ((__VA_ARGS__)) {                                                                   \
      const char *m_ = pds_options_get_error(o);                                           \
      return fail("%s (see 'pdesolve %s -help')", m_[0] ? m_ : "out of memory", cmdname);  \
    }                                                                                      \
  } while (0)

/* ---- shared flag groups ---------------------------------------------------------------------------- */

static const char *const format_names[] = {"csr", "bsr"};
static const char *const orthog_names[] = {"cgs2", "cgs"};
static const char *const precision_names[] = {"double", "single", "mixed"};
#define NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* -backend: "auto", a backend name of the library (with ":options"), or its short form ref/omp/cuda. */
static int read_backend(pds_options o, const char *cmdname, char *out, size_t len) {
  const char *be;
  char        known[160] = "auto";
  int         ok;

  for (int i = 0; i < pds_backend_count(); i++) {
    size_t l = strlen(known);

    snprintf(known + l, sizeof known - l, ", %s%s", pds_backend_name(i),
             pds_backend_compiled(i) ? "" : " (not compiled)");
  }
  OPT(o, pds_options_get_string(o, "-backend", "auto",
                                "<name> where to run: auto (GPU if present, else OpenMP, else ref), /cpu/ref, "
                                "/cpu/omp, /gpu/cuda[:device=N]; ref, omp, cuda are short forms",
                                &be, NULL));
  if (!strcmp(be, "ref") || !strcmp(be, "omp")) snprintf(out, len, "/cpu/%s", be);
  else if (!strncmp(be, "cuda", 4) && (be[4] == '\0' || be[4] == ':')) snprintf(out, len, "/gpu/%s", be);
  else snprintf(out, len, "%s", be);
  ok = !strcmp(out, "auto");
  for (int i = 0; i < pds_backend_count() && !ok; i++) {
    size_t l = strlen(pds_backend_name(i));

    ok = !strncmp(out, pds_backend_name(i), l) && (out[l] == '\0' || out[l] == ':');
  }
  if (!ok && !pds_options_help(o)) return fail("flag -backend: unknown backend '%s' (choose from %s)", be, known);
  return EXIT_DONE;
}

static int make_ctx(const char *backend, pds_ctx *ctx) {
  int ierr = pds_ctx_create(backend, ctx);

  /* the library has printed why (there is no context to hold the message) */
  if (ierr) return fail("flag -backend: cannot use backend '%s' (%s)", backend, pds_error_name(ierr));
  return EXIT_DONE;
}

/* -problem NAME (one of the library's generators; NULL when absent) and -n NX [NY NZ]. */
static int read_problem(pds_options o, const char *cmdname, const char **problem, int *dims, int *ndims, bool req) {
  const char      *names[16];
  char             desc[256];
  int              np      = pds_problem_count() < 16 ? pds_problem_count() : 16;
  static const int ndef[1] = {0};
  size_t           l;

  l = (size_t)snprintf(desc, sizeof desc, "<name> generated problem%s:", req ? " (required)" : ", instead of -A");
  for (int i = 0; i < np; i++) {
    names[i] = pds_problem_name(i);
    if (l < sizeof desc) l += (size_t)snprintf(desc + l, sizeof desc - l, "%s %s", i ? "," : "", names[i]);
  }
  OPT(o, pds_options_get_choice(o, "-problem", NULL, names, np, desc, problem, NULL));
  OPT(o, pds_options_get_int_list(o, "-n", 0, ndef, 3, 1, 1 << 20,
                                  "grid size NX [NY NZ] of -problem (missing sizes repeat the last: -n 32 is 32^3)",
                                  dims, ndims, NULL));
  return EXIT_DONE;
}

/* buf = dir/name.mtx; false when it does not fit. */
static bool mtx_path(char *buf, size_t len, const char *dir, const char *name) {
  int k = snprintf(buf, len, "%s/%s.mtx", dir, name);

  return k > 0 && (size_t)k < len;
}

static bool file_exists(const char *path) {
  FILE *f = fopen(path, "r");

  if (f) fclose(f);
  return f != NULL;
}

/* A vector from a Matrix Market file, checked to have n entries (flag names where it came from). */
static int read_vec_checked(pds_ctx ctx, const char *flag, const char *path, pds_int n, const char *what, pds_vec *v) {
  pds_size len;
  int      ierr;
  char     buf[300];

  snprintf(buf, sizeof buf, "flag %s: cannot read '%s'", flag, path);
  ierr = pds_mm_read_vec(ctx, path, v);
  if (ierr) return fail_lib(ctx, ierr, buf);
  pds_vec_get_size(*v, &len);
  if (len != n) {
    pds_vec_destroy(v);
    return fail("flag %s: '%s' has %" PDS_SIZE_FMT " entries but the matrix has %" PDS_INT_FMT " %s", flag, path, len,
                n, what);
  }
  return EXIT_DONE;
}

static int read_mat(pds_ctx ctx, const char *path, pds_mat *A) {
  char buf[300];
  int  ierr;

  snprintf(buf, sizeof buf, "flag -A: cannot read '%s'", path);
  ierr = pds_mm_read_mat(ctx, path, A);
  return ierr ? fail_lib(ctx, ierr, buf) : EXIT_DONE;
}

/* -format bsr: replace *A by its BSR form with block size bs (0 = detect). */
static int to_format(pds_ctx ctx, const char *format, int bs, pds_mat *A) {
  pds_mat B = NULL;
  int     rc = EXIT_DONE;

  if (strcmp(format, "bsr") || !strcmp(pds_mat_get_type(*A), "bsr")) return EXIT_DONE;
  TRY("flag -format bsr: conversion failed", pds_mat_convert_to_bsr(*A, bs, &B));
  pds_mat_destroy(A);
  *A = B;
done:
  return rc;
}

/* ---- fem2d: P1 finite elements on a generated or Gmsh mesh (-problem fem2d) ------------------------------ */

static const char *const fem_domains[]   = {"square", "hole"};
static const char *const fem_problems[]  = {"paper", "manufactured"};
static const char *const fem_dirichlet[] = {"row", "symmetric"};

typedef struct {
  const char *domain, *mesh, *fem, *dirichlet, *vtk;
  int         nodes, seed;
  bool        rcm;
} fem_opts;

/* What a fem2d run knows besides the solve: mesh, assembly, errors (for the result line, -json and -vtk). */
typedef struct {
  bool     on;
  char     source[200];
  const fem_opts *fo;
  pds_int  nnodes, ntri, nbedge, ndirichlet;
  double   min_angle, max_aspect, t_create, t_assemble, t_upload;
  bool     have_err;
  double   err_l2, err_pct; /* err_pct < 0: not reported (u may vanish) */
} fem_report;

/* The fem2d flags (solve and gen; vtk only when vtk != NULL). */
static int read_fem_flags(pds_options o, const char *cmdname, fem_opts *fo, bool with_vtk) {
  memset(fo, 0, sizeof *fo);
  pds_options_begin_section(o, "fem2d (P1 triangles; with -problem fem2d, or -mesh alone):");
  OPT(o, pds_options_get_int(o, "-nodes", 0, 0, 1 << 30,
                             "about this many nodes of a generated mesh (within 5%; required unless -mesh)", &fo->nodes,
                             NULL));
  OPT(o, pds_options_get_choice(o, "-domain", "square", fem_domains, NELEM(fem_domains),
                                "generated domain: square (unit square) or hole ([0,2]x[0,1] minus a disc)",
                                &fo->domain, NULL));
  OPT(o, pds_options_get_int(o, "-seed", 1, 0, INT_MAX, "seed of the mesh generator", &fo->seed, NULL));
  OPT(o, pds_options_get_string(o, "-mesh", NULL, "<file.msh> Gmsh mesh (2.2 or 4.1) instead of a generated one",
                                &fo->mesh, NULL));
  OPT(o, pds_options_get_bool(o, "-rcm", false, "renumber the nodes by reverse Cuthill-McKee first", &fo->rcm, NULL));
  OPT(o, pds_options_get_choice(o, "-fem", "paper", fem_problems, NELEM(fem_problems),
                                "problem: paper (-lap u = 10, u = 10 on the unit square; exact by Fourier series) or "
                                "manufactured (u = sin(pi x) cos(pi y) + x^2 y, any domain)", &fo->fem, NULL));
  OPT(o, pds_options_get_choice(o, "-dirichlet", "row", fem_dirichlet, NELEM(fem_dirichlet),
                                "boundary rows: row (the paper's e_i^T rows, nonsymmetric) or symmetric (columns "
                                "moved to b too: SPD, for cg)", &fo->dirichlet, NULL));
  if (with_vtk)
    OPT(o, pds_options_get_string(o, "-vtk", NULL, "<out.vtu> write the mesh with fields solution, exact, error",
                                  &fo->vtk, NULL));
  return EXIT_DONE;
}

/* Flag consistency once the command line is read: fem2d is on with -problem fem2d or -mesh. */
static int check_fem_flags(pds_options o, const fem_opts *fo, const char **problem, int ndims, bool *on) {
  static const char *const only[] = {"-nodes", "-domain", "-seed", "-rcm", "-fem", "-dirichlet", "-vtk"};

  if (fo->mesh && !*problem) *problem = "fem2d";
  *on = *problem && !strcmp(*problem, "fem2d");
  if (!*on) {
    for (int i = 0; i < NELEM(only); i++)
      if (pds_options_has(o, only[i])) return fail("flag %s is only used with -problem fem2d (or -mesh)", only[i]);
    if (fo->mesh) return fail("flag -mesh is only used with -problem fem2d");
    return EXIT_DONE;
  }
  if (ndims > 0) return fail("flag -n: -problem fem2d takes -nodes N (or -mesh FILE), not -n");
  if (fo->mesh && pds_options_has(o, "-nodes")) return fail("flags -mesh and -nodes exclude each other");
  if (fo->mesh && (pds_options_has(o, "-domain") || pds_options_has(o, "-seed")))
    return fail("flags -domain and -seed describe a generated mesh; not with -mesh");
  if (!fo->mesh && fo->nodes <= 0) return fail("flag -problem fem2d needs -nodes N (or -mesh FILE)");
  return EXIT_DONE;
}

/* Mesh (generated or read, renumbered on request), the fem2d object, A, b and the nodal exact solution. */
static int fem_build(pds_ctx ctx, const fem_opts *fo, pds_mesh *mesh, pds_fem2d *fem, pds_mat *A, pds_vec *b,
                     pds_vec *u, fem_report *fr) {
  pds_fem2d_info in;
  int            rc = EXIT_DONE;
  char           what[300];

  memset(fr, 0, sizeof *fr);
  fr->on = true;
  fr->fo = fo;
  if (fo->mesh) {
    snprintf(what, sizeof what, "flag -mesh: cannot read '%s'", fo->mesh);
    TRY(what, pds_mesh_read_gmsh(ctx, fo->mesh, mesh));
  } else {
    snprintf(what, sizeof what, "flag -nodes %d -domain %s: mesh generation failed", fo->nodes, fo->domain);
    TRY(what, pds_mesh_generate(ctx, fo->domain, fo->nodes, (uint64_t)fo->seed, mesh));
  }
  if (fo->rcm) TRY("flag -rcm", pds_mesh_reorder_rcm(*mesh));
  TRY("mesh", pds_mesh_get_sizes(*mesh, &fr->nnodes, &fr->ntri, &fr->nbedge));
  TRY("mesh", pds_mesh_quality(*mesh, &fr->min_angle, &fr->max_aspect));
  TRY("fem2d", pds_fem2d_create(ctx, *mesh, fem));
  TRY("flag -fem", pds_fem2d_set_problem(*fem, fo->fem));
  TRY("fem2d assembly", pds_fem2d_assemble(*fem, strcmp(fo->dirichlet, "symmetric") ? PDS_DIRICHLET_ROW
                                                                                      : PDS_DIRICHLET_SYMMETRIC, A, b));
  TRY("fem2d", pds_fem2d_get_info(*fem, &in));
  fr->ndirichlet = in.ndirichlet;
  fr->t_create   = in.t_create;
  fr->t_assemble = in.t_assemble;
  fr->t_upload   = in.t_upload;
  if (fo->mesh) snprintf(fr->source, sizeof fr->source, "fem2d %s on %s%s, Dirichlet %s", fo->fem, fo->mesh,
                         fo->rcm ? " (rcm)" : "", fo->dirichlet);
  else snprintf(fr->source, sizeof fr->source, "fem2d %s on %s (%d nodes asked, seed %d)%s, Dirichlet %s", fo->fem,
                fo->domain, fo->nodes, fo->seed, fo->rcm ? " (rcm)" : "", fo->dirichlet);
  printf("mesh: %" PDS_INT_FMT " nodes, %" PDS_INT_FMT " triangles, %" PDS_INT_FMT " boundary edges, %" PDS_INT_FMT
         " Dirichlet nodes, min angle %.2f deg, max aspect %.3f\n", fr->nnodes, fr->ntri, fr->nbedge, fr->ndirichlet,
         fr->min_angle, fr->max_aspect);
  printf("assembly: %s; nnz %" PDS_SIZE_FMT ", pattern and gather maps %.4f s, values %.4f s", fr->source, in.nnz,
         fr->t_create, fr->t_assemble);
  if (fr->t_upload > 0) printf(" (of which %.4f s copying the mesh and maps to the device)", fr->t_upload);
  printf("\n");
  {
    int ierr = pds_fem2d_exact(*fem, u);

    /* the paper's series holds on the unit square only: elsewhere solve without errors */
    if (ierr == PDS_ERR_UNSUPPORTED) {
      printf("note: %s; errors are not reported\n", pds_ctx_get_error(ctx));
      pds_ctx_clear_error(ctx);
    } else TRY("fem2d exact solution", ierr);
  }
done:
  return rc;
}

/* After the solve: L2 error, percent error (paper: u >= 10), and the VTK file (u NULL: solution only). */
static int fem_finish(pds_ctx ctx, const fem_opts *fo, pds_mesh mesh, pds_fem2d fem, pds_vec x, pds_vec u,
                      fem_report *fr) {
  pds_real *xh = NULL, *uh = NULL, *eh = NULL;
  pds_int   n  = fr->nnodes;
  int       rc = EXIT_DONE;

  xh = malloc(sizeof *xh * (size_t)n), uh = malloc(sizeof *uh * (size_t)n), eh = malloc(sizeof *eh * (size_t)n);
  if (!xh || !uh || !eh) {
    rc = fail("out of memory (fem2d errors)");
    goto done;
  }
  TRY("fem2d errors", pds_vec_get_values(x, xh, PDS_MEM_HOST));
  if (u) {
    TRY("fem2d L2 error", pds_fem2d_l2_error(fem, x, &fr->err_l2));
    TRY("fem2d errors", pds_vec_get_values(u, uh, PDS_MEM_HOST));
    fr->err_pct = strcmp(fo->fem, "paper") ? -1.0 : 0.0;
    for (pds_int i = 0; i < n; i++) {
      eh[i] = xh[i] - uh[i];
      if (fr->err_pct >= 0) fr->err_pct = fmax(fr->err_pct, 100.0 * fabs(eh[i]) / fabs(uh[i]));
    }
    fr->have_err = true;
  }
  if (fo->vtk) {
    const char     *names[3] = {"solution", "exact", "error"};
    const pds_real *vals[3]  = {xh, uh, eh};
    char            what[300];

    snprintf(what, sizeof what, "flag -vtk: cannot write '%s'", fo->vtk);
    TRY(what, pds_mesh_write_vtk(mesh, fo->vtk, u ? 3 : 1, names, vals));
  }
done:
  free(xh), free(uh), free(eh);
  return rc;
}

/* ---- solving: shared by solve and demo -------------------------------------------------------------- */

typedef struct {
  const char *solver, *pc;
  int         bs; /* > 0: the pbjacobi block size */
  double      rtol, atol, inftol, omega;
  int         maxit, restart;
  bool        monitor, view, history;
  bool        host_loop; /* -device_loop 0: the host stays in the loop */
  const char *orthog;    /* gmres/fgmres: cgs2 or cgs */
  const char *precision; /* double, single or mixed */
} solve_settings;

typedef struct {
  pds_solver_result res;
  pds_int           n;
  pds_size          nnz;
  int               bs;
  double            t_setup, t_solve;
  double            rnorm_true; /* ||b - A x||_2, computed after the solve */
  bool              have_x, have_u;
  double            err_inf, err_rel2, disc_err;
} solve_info;

static int monitor_print(void *user, int it, pds_real rnorm) {
  (void)user;
  printf("%5d KSP residual norm %.12e\n", it, rnorm);
  return 0;
}

/* Create the solver and preconditioner (checks their names before any file is read) and apply settings. */
static int make_solver(pds_ctx ctx, const solve_settings *st, pds_solver *s, pds_precond *pc) {
  int  rc = EXIT_DONE;
  char what[96];

  if (!strcmp(st->pc, "shell")) return fail("flag -pc: 'shell' needs a program to supply it; not available here");
  snprintf(what, sizeof what, "flag -solver: cannot create solver '%s'", st->solver);
  TRY(what, pds_solver_create(ctx, st->solver, s));
  snprintf(what, sizeof what, "flag -pc: cannot create preconditioner '%s'", st->pc);
  TRY(what, pds_precond_create(ctx, st->pc, pc));
  if (st->bs > 0) TRY("flag -bs", pds_precond_set_block_size(*pc, st->bs));
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
static int run_solver(pds_ctx ctx, pds_solver s, pds_mat A, pds_vec b, pds_vec x, pds_vec x_exact, pds_vec u_exact,
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

static double ratio(double a, double b) { return b > 0 ? a / b : (a > 0 ? INFINITY : 0.0); }

/* ---- solve -------------------------------------------------------------------------------------------- */

static void usage_solve(void) {
  printf("usage: pdesolve solve (-A file.mtx | -problem NAME -n NX [NY NZ] | -problem fem2d (-nodes N | -mesh F.msh))\n"
         "                      [flags]\n"
         "  Solve A x = b with a Krylov method and a preconditioner. Prints a last line 'result: ...';\n"
         "  exit status 0 converged, 2 not converged, 1 error. fem2d adds to it err_l2 (||x - u||_L2 over the\n"
         "  domain, x taken as P1) and, for -fem paper, err_pct (max over the nodes of 100 |x - u| / u); disc_err is\n"
         "  max |x - u| over the nodes.\n");
}

static int write_report(pds_ctx ctx, const char *path, const char *source, const char *format,
                        const solve_settings *st, const solve_info *in, pds_solver s, const fem_report *fr) {
  pds_json j;
  int      ierr;

  PDS_CALL(pds_json_open(ctx, path, 2, &j));
  pds_json_begin_object(&j, NULL);
  pds_json_string(&j, "command", "solve");
  pds_json_string(&j, "version", pds_version());
  pds_json_string(&j, "source", source);
  pds_json_string(&j, "solver", st->solver);
  pds_json_string(&j, "pc", st->pc);
  pds_json_string(&j, "backend", pds_ctx_get_backend(ctx));
  pds_json_int(&j, "threads", pds_ctx_get_num_threads(ctx));
  pds_json_string(&j, "format", format);
  pds_json_int(&j, "bs", in->bs);
  pds_json_int(&j, "n", in->n);
  pds_json_int(&j, "nnz", in->nnz);
  pds_json_real(&j, "rtol", st->rtol);
  pds_json_real(&j, "atol", st->atol);
  pds_json_real(&j, "inftol", st->inftol);
  pds_json_int(&j, "maxit", st->maxit);
  pds_json_int(&j, "restart", st->restart);
  pds_json_string(&j, "orthog", st->orthog ? st->orthog : "cgs2");
  pds_json_int(&j, "device_loop", !st->host_loop);
  pds_json_string(&j, "precision", st->precision ? st->precision : "double");
  pds_json_real(&j, "omega", st->omega);
  pds_json_int(&j, "iterations", in->res.iterations);
  pds_json_string(&j, "reason", pds_reason_name(in->res.reason));
  pds_json_bool(&j, "converged", in->res.reason > 0);
  pds_json_real(&j, "bnorm", in->res.bnorm);
  pds_json_real(&j, "rnorm0", in->res.rnorm0);
  pds_json_real(&j, "rnorm", in->res.rnorm);
  pds_json_real(&j, "rel", ratio(in->res.rnorm, in->res.rnorm0));
  pds_json_real(&j, "rnorm_true", in->rnorm_true);
  if (in->res.rnorm_inf >= 0) pds_json_real(&j, "rnorm_inf", in->res.rnorm_inf);
  pds_json_real(&j, "t_setup", in->t_setup);
  pds_json_real(&j, "t_solve", in->t_solve);
  if (in->have_x) {
    pds_json_real(&j, "err_inf", in->err_inf);
    pds_json_real(&j, "err_rel2", in->err_rel2);
  }
  if (in->have_u) pds_json_real(&j, "disc_err", in->disc_err);
  if (fr && fr->on) {
    pds_json_begin_object(&j, "fem2d");
    pds_json_string(&j, "problem", fr->fo->fem);
    pds_json_string(&j, "dirichlet", fr->fo->dirichlet);
    if (fr->fo->mesh) pds_json_string(&j, "mesh", fr->fo->mesh);
    else {
      pds_json_string(&j, "domain", fr->fo->domain);
      pds_json_int(&j, "nodes_asked", fr->fo->nodes);
      pds_json_int(&j, "seed", fr->fo->seed);
    }
    pds_json_bool(&j, "rcm", fr->fo->rcm);
    pds_json_int(&j, "nodes", fr->nnodes);
    pds_json_int(&j, "triangles", fr->ntri);
    pds_json_int(&j, "boundary_edges", fr->nbedge);
    pds_json_int(&j, "dirichlet_nodes", fr->ndirichlet);
    pds_json_real(&j, "min_angle_deg", fr->min_angle);
    pds_json_real(&j, "max_aspect", fr->max_aspect);
    pds_json_real(&j, "t_create", fr->t_create);
    pds_json_real(&j, "t_assemble", fr->t_assemble);
    pds_json_real(&j, "t_upload", fr->t_upload);
    if (fr->have_err) {
      pds_json_real(&j, "err_l2", fr->err_l2);
      if (in->have_u) pds_json_real(&j, "err_inf", in->disc_err);
      if (fr->err_pct >= 0) pds_json_real(&j, "err_pct", fr->err_pct);
    }
    pds_json_end_object(&j);
  }
  if (st->history) {
    const pds_real *h;
    int             len;

    if (!pds_solver_get_history(s, &len, &h)) pds_json_real_array(&j, "history", h, len);
  }
  pds_json_end_object(&j);
  ierr = pds_json_close(&j);
  return ierr;
}

static int cmd_solve(pds_options o) {
  const char    *cmdname = "solve";
  const char    *Apath, *bpath, *x0path, *problem, *format, *out, *json;
  char           backend[80], source[200];
  int            dims[3], ndims, rc = EXIT_DONE;
  solve_settings st;
  solve_info     info;
  pds_ctx        ctx = NULL;
  pds_solver     s   = NULL;
  pds_precond    pc  = NULL;
  pds_problem    p;
  pds_mat        A = NULL;
  pds_vec        b = NULL, x = NULL, ones = NULL;
  pds_vec        x_exact = NULL, u_exact = NULL;
  pds_int        nrows, ncols;
  fem_opts       fo;
  fem_report     fr;
  bool           fem_on = false;
  pds_mesh       mesh   = NULL;
  pds_fem2d      fem    = NULL;

  memset(&p, 0, sizeof p);
  memset(&st, 0, sizeof st);
  memset(&fr, 0, sizeof fr);
  pds_options_begin_section(o, "problem:");
  OPT(o, pds_options_get_string(o, "-A", NULL, "<file.mtx> matrix to solve, Matrix Market coordinate (or -problem)",
                                &Apath, NULL));
  if (read_problem(o, cmdname, &problem, dims, &ndims, false)) return EXIT_ERROR;
  OPT(o, pds_options_get_string(o, "-b", NULL,
                                "<rhs.mtx> right-hand side (default: the problem's b; with -A, b = A*ones so the error "
                                "vs ones is known)", &bpath, NULL));
  OPT(o, pds_options_get_string(o, "-x0", NULL, "<x0.mtx> initial guess (default: zero)", &x0path, NULL));
  pds_options_begin_section(o, "method:");
  if (read_backend(o, cmdname, backend, sizeof backend)) return EXIT_ERROR;
  OPT(o, pds_options_get_string(o, "-solver", "bicgstab",
                                "<name> Krylov method: cg, bicgstab, gmres, fgmres, richardson", &st.solver, NULL));
  OPT(o, pds_options_get_string(o, "-pc", "none", "<name> preconditioner: none, jacobi, pbjacobi", &st.pc, NULL));
  OPT(o, pds_options_get_real(o, "-rtol", 1e-8, 0, 1, "stop when ||r||_2 <= max(rtol ||b||_2, atol)", &st.rtol, NULL));
  OPT(o, pds_options_get_real(o, "-atol", 1e-50, 0, 1e300, "absolute tolerance on ||r||_2", &st.atol, NULL));
  OPT(o, pds_options_get_real(o, "-inftol", 0, 0, 1e300, "also stop when ||b - A x||_inf <= inftol (0 = off)",
                              &st.inftol, NULL));
  OPT(o, pds_options_get_int(o, "-maxit", 10000, 0, INT_MAX, "maximum number of iterations", &st.maxit, NULL));
  OPT(o, pds_options_get_int(o, "-restart", 30, 1, 10000, "restart length of gmres and fgmres", &st.restart, NULL));
  OPT(o, pds_options_get_choice(o, "-orthog", "cgs2", orthog_names, NELEM(orthog_names),
                                "gmres and fgmres orthogonalization: cgs2 (Gram-Schmidt twice) or cgs (once, PETSc's "
                                "default)", &st.orthog, NULL));
  OPT(o, pds_options_get_real(o, "-omega", 1, 0, 1e300, "damping of richardson (> 0)", &st.omega, NULL));
  {
    bool dl;

    OPT(o, pds_options_get_bool(o, "-device_loop", true,
                                "cg, bicgstab, richardson on a GPU: the device runs the iterations, the host reads "
                                "their residuals behind it (0: the host stays in the loop, one copy per iteration)",
                                &dl, NULL));
    st.host_loop = !dl;
  }
  OPT(o, pds_options_get_choice(o, "-precision", "double", precision_names, NELEM(precision_names),
                                "double; single (matrix values and vectors in float, reductions in double: cg, "
                                "bicgstab, richardson on csr with -pc none or jacobi); mixed (refinement in double "
                                "around single-precision solves)", &st.precision, NULL));
  OPT(o, pds_options_get_choice(o, "-format", "csr", format_names, NELEM(format_names),
                                "matrix storage (bsr converts from csr with block size -bs)", &format, NULL));
  OPT(o, pds_options_get_int(o, "-bs", 0, 0, 64,
                             "block size of -format bsr (0 = detect) and, when > 0, of -pc pbjacobi", &st.bs, NULL));
  pds_options_begin_section(o, "output:");
  OPT(o, pds_options_get_bool(o, "-monitor", false, "print '%5d KSP residual norm %.12e' per iteration", &st.monitor,
                              NULL));
  OPT(o, pds_options_get_bool(o, "-view", false, "print the configuration (backend, matrix, solver, pc, tolerances)",
                              &st.view, NULL));
  OPT(o, pds_options_get_bool(o, "-history", false, "keep the residual history (written to -json, else printed)",
                              &st.history, NULL));
  OPT(o, pds_options_get_string(o, "-o", NULL, "<x.mtx> write the solution (Matrix Market array)", &out, NULL));
  OPT(o, pds_options_get_string(o, "-json", NULL, "<report.json> write the result as a JSON object", &json, NULL));
  if (read_fem_flags(o, cmdname, &fo, true)) return EXIT_ERROR;
  if (pds_options_help(o)) {
    usage_solve();
    pds_options_print_help(o, stdout);
    return EXIT_DONE;
  }
  OPT(o, pds_options_check_unused(o));
  if (check_fem_flags(o, &fo, &problem, ndims, &fem_on)) return EXIT_ERROR;
  if (!Apath && !problem)
    return fail("solve needs -A file.mtx or -problem NAME -n NX [NY NZ] (see 'pdesolve solve -help')");
  if (Apath && problem) return fail("flags -A and -problem exclude each other");
  if (problem && !fem_on && ndims == 0) return fail("flag -problem %s needs -n NX [NY NZ]", problem);
  if (!problem && ndims > 0) return fail("flag -n is only used with -problem");
  if (!(st.omega > 0)) return fail("flag -omega: %g must be positive", st.omega);
  if (st.rtol >= 1) return fail("flag -rtol: %g must be below 1", st.rtol);

  if (make_ctx(backend, &ctx)) return EXIT_ERROR;
  if ((rc = make_solver(ctx, &st, &s, &pc))) goto done;
  if (fem_on) {
    if ((rc = fem_build(ctx, &fo, &mesh, &fem, &p.A, &p.b, &p.u_exact, &fr))) goto done;
    A = p.A;
    TRY("problem", pds_mat_reference(A));
    snprintf(source, sizeof source, "%s", fr.source);
  } else if (problem) {
    pds_int d[3];
    char    what[96];

    for (int i = 0; i < ndims; i++) d[i] = dims[i];
    snprintf(what, sizeof what, "flag -problem %s", problem);
    TRY(what, pds_problem_generate(ctx, problem, d, ndims, &p));
    A = p.A;
    TRY("problem", pds_mat_reference(A));
    snprintf(source, sizeof source, "%s", p.description);
  } else {
    if ((rc = read_mat(ctx, Apath, &A))) goto done;
    snprintf(source, sizeof source, "%s", Apath);
  }
  TRY("matrix", pds_mat_get_size(A, &nrows, &ncols));
  if (nrows != ncols) {
    rc = fail("solve needs a square matrix; '%s' is %" PDS_INT_FMT " x %" PDS_INT_FMT, source, nrows, ncols);
    goto done;
  }
  if ((rc = to_format(ctx, format, st.bs, &A))) goto done;
  if (bpath) {
    if ((rc = read_vec_checked(ctx, "-b", bpath, nrows, "rows", &b))) goto done;
  } else if (p.b) {
    TRY("problem", pds_vec_duplicate(p.b, &b));
    TRY("problem", pds_vec_copy(p.b, b));
    x_exact = p.x_exact;
    u_exact = p.u_exact;
  } else {
    TRY("b = A*ones", pds_vec_create(ctx, nrows, &ones));
    TRY("b = A*ones", pds_vec_set(ones, 1.0));
    TRY("b = A*ones", pds_vec_create(ctx, nrows, &b));
    TRY("b = A*ones", pds_mat_apply(A, ones, b));
    x_exact = ones;
  }
  if (x0path) {
    if ((rc = read_vec_checked(ctx, "-x0", x0path, ncols, "columns", &x))) goto done;
  } else {
    TRY("x0", pds_vec_create(ctx, ncols, &x));
    TRY("x0", pds_vec_set(x, 0.0));
  }
  if (st.view) {
    printf("source: %s\n", source);
    printf("rhs: %s\n", bpath ? bpath : p.b ? "generated" : "A*ones");
  }
  if ((rc = run_solver(ctx, s, A, b, x, x_exact, u_exact, &st, &info))) goto done;
  if (fem_on) {
    if ((rc = fem_finish(ctx, &fo, mesh, fem, x, p.u_exact, &fr))) goto done;
    fr.have_err = fr.have_err && u_exact; /* errors vs the problem's solution mean nothing with another b (-b) */
  }
  if (st.history && !json) {
    const pds_real *h;
    int             len;

    TRY("history", pds_solver_get_history(s, &len, &h));
    for (int i = 0; i < len; i++) printf("%5d history residual norm %.12e\n", i, h[i]);
  }
  /* the true residual, and the errors against what is known (x_exact, or ones for b = A*ones; u for a PDE) */
  printf("solution: rnorm_true=%.6e", info.rnorm_true);
  if (info.have_x) printf(" err_inf=%.6e err_rel2=%.6e", info.err_inf, info.err_rel2);
  if (info.have_u) printf(" disc_err=%.6e", info.disc_err);
  if (fr.have_err) printf(" err_l2=%.6e", fr.err_l2);
  if (fr.have_err && fr.err_pct >= 0) printf(" err_pct=%.6e", fr.err_pct);
  printf("\n");
  if (out) {
    char what[300];

    snprintf(what, sizeof what, "flag -o: cannot write '%s'", out);
    TRY(what, pds_mm_write_vec(x, out));
  }
  if (json) {
    char what[300];

    snprintf(what, sizeof what, "flag -json: cannot write '%s'", json);
    TRY(what, write_report(ctx, json, source, format, &st, &info, s, &fr));
  }
  printf("result: solver=%s pc=%s backend=%s n=%" PDS_INT_FMT " nnz=%" PDS_SIZE_FMT " iterations=%d reason=%s "
         "rnorm0=%.6e rnorm=%.6e rel=%.6e t_setup=%.6e t_solve=%.6e",
         st.solver, st.pc, pds_ctx_get_backend(ctx), info.n, info.nnz, info.res.iterations,
         pds_reason_name(info.res.reason), info.res.rnorm0, info.res.rnorm, ratio(info.res.rnorm, info.res.rnorm0),
         info.t_setup, info.t_solve);
  if (info.have_x) printf(" err_inf=%.6e", info.err_inf);
  if (info.have_u) printf(" disc_err=%.6e", info.disc_err);
  if (fr.have_err) printf(" err_l2=%.6e", fr.err_l2);
  if (fr.have_err && fr.err_pct >= 0) printf(" err_pct=%.6e", fr.err_pct);
  printf("\n");
  rc = info.res.reason > 0 ? EXIT_DONE : EXIT_NOT_CONVERGED;
done:
  pds_vec_destroy(&b);
  pds_vec_destroy(&x);
  pds_vec_destroy(&ones);
  pds_mat_destroy(&A);
  pds_problem_destroy(&p);
  pds_solver_destroy(&s);
  pds_precond_destroy(&pc);
  pds_fem2d_destroy(&fem);
  pds_mesh_destroy(&mesh);
  pds_ctx_destroy(&ctx);
  return rc;
}

/* ---- apply ------------------------------------------------------------------------------------------- */

static int cmd_apply(pds_options o) {
  static const char *const ops[] = {"mat", "matT", "pc"};
  const char              *cmdname = "apply";
  const char              *Apath, *xpath, *op, *pcname, *format, *out;
  char                     backend[80];
  int                      bs, rc = EXIT_DONE;
  pds_ctx                  ctx = NULL;
  pds_mat                  A   = NULL;
  pds_precond              pc  = NULL;
  pds_vec                  x = NULL, y = NULL;
  pds_int                  nrows, ncols, nx, ny;

  pds_options_begin_section(o, "flags:");
  OPT(o, pds_options_get_string(o, "-A", NULL, "<file.mtx> matrix, Matrix Market coordinate (required)", &Apath, NULL));
  OPT(o, pds_options_get_string(o, "-x", NULL, "<x.mtx> input vector (default: ones)", &xpath, NULL));
  OPT(o, pds_options_get_choice(o, "-op", "mat", ops, NELEM(ops), "y = A x, y = A^T x, or y = M^-1 x (pc set up on A)",
                                &op, NULL));
  OPT(o, pds_options_get_string(o, "-pc", "jacobi", "<name> preconditioner of -op pc: none, jacobi, pbjacobi", &pcname,
                                NULL));
  OPT(o, pds_options_get_int(o, "-bs", 0, 0, 64, "block size of -format bsr (0 = detect) and, when > 0, of pbjacobi",
                             &bs, NULL));
  OPT(o, pds_options_get_choice(o, "-format", "csr", format_names, NELEM(format_names), "matrix storage", &format,
                                NULL));
  if (read_backend(o, cmdname, backend, sizeof backend)) return EXIT_ERROR;
  OPT(o, pds_options_get_string(o, "-o", NULL, "<y.mtx> output vector, Matrix Market array (required)", &out, NULL));
  if (pds_options_help(o)) {
    printf("usage: pdesolve apply -A file.mtx [-x x.mtx] [-op mat|matT|pc] -o y.mtx [flags]\n"
           "  Apply the matrix, its transpose or the preconditioner to a vector and write the result.\n");
    pds_options_print_help(o, stdout);
    return EXIT_DONE;
  }
  OPT(o, pds_options_check_unused(o));
  if (!Apath) return fail("apply needs -A file.mtx (see 'pdesolve apply -help')");
  if (!out) return fail("apply needs -o y.mtx (see 'pdesolve apply -help')");
  if (!strcmp(pcname, "shell")) return fail("flag -pc: 'shell' needs a program to supply it; not available here");

  if (make_ctx(backend, &ctx)) return EXIT_ERROR;
  {
    char what[96];

    snprintf(what, sizeof what, "flag -pc: cannot create preconditioner '%s'", pcname);
    TRY(what, pds_precond_create(ctx, pcname, &pc)); /* also checks the name when -op is not pc */
  }
  if ((rc = read_mat(ctx, Apath, &A))) goto done;
  TRY("matrix", pds_mat_get_size(A, &nrows, &ncols));
  if ((rc = to_format(ctx, format, bs, &A))) goto done;
  nx = !strcmp(op, "mat") ? ncols : nrows;
  ny = !strcmp(op, "matT") ? ncols : nrows;
  if (!strcmp(op, "pc") && nrows != ncols) {
    rc = fail("-op pc needs a square matrix; '%s' is %" PDS_INT_FMT " x %" PDS_INT_FMT, Apath, nrows, ncols);
    goto done;
  }
  if (xpath) {
    if ((rc = read_vec_checked(ctx, "-x", xpath, nx, !strcmp(op, "mat") ? "columns" : "rows", &x))) goto done;
  } else {
    TRY("x = ones", pds_vec_create(ctx, nx, &x));
    TRY("x = ones", pds_vec_set(x, 1.0));
  }
  TRY("y", pds_vec_create(ctx, ny, &y));
  if (!strcmp(op, "mat")) TRY("y = A x", pds_mat_apply(A, x, y));
  else if (!strcmp(op, "matT")) TRY("y = A^T x", pds_mat_apply_transpose(A, x, y));
  else {
    if (bs > 0) TRY("flag -bs", pds_precond_set_block_size(pc, bs));
    TRY("preconditioner setup", pds_precond_set_operator(pc, A));
    TRY("preconditioner setup", pds_precond_setup(pc));
    TRY("y = M^-1 x", pds_precond_apply(pc, x, y));
  }
  {
    char what[300];

    snprintf(what, sizeof what, "flag -o: cannot write '%s'", out);
    TRY(what, pds_mm_write_vec(y, out));
  }
done:
  pds_vec_destroy(&x);
  pds_vec_destroy(&y);
  pds_precond_destroy(&pc);
  pds_mat_destroy(&A);
  pds_ctx_destroy(&ctx);
  return rc;
}

/* ---- gen --------------------------------------------------------------------------------------------- */

static int cmd_gen(pds_options o) {
  const char *cmdname = "gen";
  const char *problem, *prefix;
  char        backend[80], path[4096], what[4200];
  int         dims[3], ndims, rc = EXIT_DONE;
  pds_ctx     ctx = NULL;
  pds_problem p;
  pds_int     d[3], n;
  pds_size    nnz;
  fem_opts    fo;
  fem_report  fr;
  bool        fem_on = false;
  pds_mesh    mesh   = NULL;
  pds_fem2d   fem    = NULL;

  memset(&p, 0, sizeof p);
  pds_options_begin_section(o, "flags:");
  if (read_problem(o, cmdname, &problem, dims, &ndims, true)) return EXIT_ERROR;
  OPT(o, pds_options_get_string(o, "-o", NULL,
                                "<prefix> writes PREFIX_A.mtx, PREFIX_b.mtx, PREFIX_x.mtx (exact discrete solution, "
                                "if known), PREFIX_u.mtx (PDE solution, if any) and, for fem2d, PREFIX_mesh.msh "
                                "(Gmsh 2.2); required", &prefix, NULL));
  if (read_backend(o, cmdname, backend, sizeof backend)) return EXIT_ERROR;
  if (read_fem_flags(o, cmdname, &fo, false)) return EXIT_ERROR;
  if (pds_options_help(o)) {
    printf("usage: pdesolve gen (-problem NAME -n NX [NY NZ] | -problem fem2d (-nodes N | -mesh F.msh)) -o PREFIX\n"
           "  Write a generated problem as Matrix Market files (-mesh F.msh alone implies -problem fem2d).\n");
    pds_options_print_help(o, stdout);
    return EXIT_DONE;
  }
  OPT(o, pds_options_check_unused(o));
  if (check_fem_flags(o, &fo, &problem, ndims, &fem_on)) return EXIT_ERROR;
  if (!problem) return fail("gen needs -problem NAME (see 'pdesolve gen -help')");
  if (!fem_on && ndims == 0) return fail("flag -problem %s needs -n NX [NY NZ]", problem);
  if (!prefix) return fail("gen needs -o PREFIX (see 'pdesolve gen -help')");

  if (make_ctx(backend, &ctx)) return EXIT_ERROR;
  for (int i = 0; i < ndims; i++) d[i] = dims[i];
  snprintf(what, sizeof what, "flag -problem %s", problem);
  if (fem_on) {
    if ((rc = fem_build(ctx, &fo, &mesh, &fem, &p.A, &p.b, &p.u_exact, &fr))) goto done;
    snprintf(p.description, sizeof p.description, "%.159s", fr.source);
    snprintf(path, sizeof path, "%s_mesh.msh", prefix);
    snprintf(what, sizeof what, "flag -o: cannot write '%s'", path);
    TRY(what, pds_mesh_write_gmsh(mesh, path));
    printf("wrote %s\n", path);
  } else TRY(what, pds_problem_generate(ctx, problem, d, ndims, &p));
  TRY("problem", pds_mat_get_size(p.A, &n, NULL));
  TRY("problem", pds_mat_get_nnz(p.A, &nnz));
#define GEN_WRITE(suffix, call)                                         \
  do {                                                                  \
    snprintf(path, sizeof path, "%s_%s.mtx", prefix, suffix);           \
    snprintf(what, sizeof what, "flag -o: cannot write '%s'", path);    \
    TRY(what, call);                                                    \
    printf("wrote %s\n", path);                                         \
  } while (0)
  GEN_WRITE("A", pds_mm_write_mat(p.A, path));
  GEN_WRITE("b", pds_mm_write_vec(p.b, path));
  if (p.x_exact) GEN_WRITE("x", pds_mm_write_vec(p.x_exact, path));
  if (p.u_exact) GEN_WRITE("u", pds_mm_write_vec(p.u_exact, path));
#undef GEN_WRITE
  printf("%s: n=%" PDS_INT_FMT " nnz=%" PDS_SIZE_FMT "\n", p.description, n, nnz);
done:
  pds_problem_destroy(&p);
  pds_fem2d_destroy(&fem);
  pds_mesh_destroy(&mesh);
  pds_ctx_destroy(&ctx);
  return rc;
}

/* ---- demo -------------------------------------------------------------------------------------------- */

typedef struct {
  const char *name;    /* "poisson7", "fem2d" (generated) or a file of shared/matrices without .mtx */
  int         n;       /* grid size of poisson7 (n^3), nodes of fem2d */
  const char *rhs;     /* rhs file of shared/matrices, or NULL: b = A*ones (poisson7: the generator's b) */
  const char *solver, *pc;
  int         bs;      /* pbjacobi block size */
  int         restart;
  bool        quick;   /* part of -quick */
  const char *note;
} demo_case;

static const demo_case demo_cases[] = {
    {"poisson7", 32, NULL, "cg", "jacobi", 0, 30, true, "SPD 7-point Laplacian"},
    {"poisson7", 32, NULL, "bicgstab", "jacobi", 0, 30, true, ""},
    {"poisson7", 32, NULL, "gmres", "jacobi", 0, 30, true, ""},
    {"poisson7", 64, NULL, "cg", "jacobi", 0, 30, false, ""},
    {"poisson7", 64, NULL, "bicgstab", "jacobi", 0, 30, false, ""},
    {"poisson7", 64, NULL, "gmres", "jacobi", 0, 30, false, ""},
    {"fem2d", 107, NULL, "bicgstab", "none", 0, 30, true, "paper 004 grid 1: P1, Dirichlet rows, plain BiCGSTAB"},
    {"fem2d", 46068, NULL, "bicgstab", "jacobi", 0, 30, false, ""},
    {"bcsstk13", 0, NULL, "cg", "jacobi", 0, 30, false, "badly scaled: diagonal 6e4..1.2e12; Jacobi rescales"},
    {"s1rmq4m1", 0, NULL, "cg", "jacobi", 0, 30, false, "6 dof/node but n = 5489 is no multiple of 6: point Jacobi"},
    {"nos3", 0, NULL, "cg", "pbjacobi", 2, 30, true, "2x2 blocks (97.6% full)"},
    {"sherman1", 0, "sherman1_rhs1", "bicgstab", "jacobi", 0, 30, true, "negative definite; rhs from file"},
    {"e05r0000", 0, "e05r0000_rhs1", "gmres", "none", 0, 30, true, "saddle point, 74 zero diagonals: no Jacobi"},
    {"orsirr_1", 0, NULL, "gmres", "jacobi", 0, 30, true, "nonsymmetric reservoir"},
    {"pde900", 0, NULL, "bicgstab", "jacobi", 0, 30, true, "nonsymmetric convection-diffusion"},
};

/* One table row: problem n nnz backend method its reduction error vs time status (formats of the numeric columns
   given, so the header and the rows line up). */
#define DEMO_ROW(n, nnz, its, red, t) "%-14s " n " " nnz " %-9s %-16s " its " " red " %9s %-6s " t "  "

/* The folder that holds the shared matrices: env PDS_SHARED_DIR when set (only it: set it to "" or a missing
   folder for generated problems only), else ../shared, else the one baked in at build time. */
static bool find_matrices(char *dir, size_t len) {
  const char *env     = getenv("PDS_SHARED_DIR");
  const char *cand[3] = {env, env ? NULL : "../shared",
#ifdef PDS_SHARED_DIR
                         env ? NULL : PDS_SHARED_DIR
#else
                         NULL
#endif
  };
  char probe[4200];

  for (int i = 0; i < 3; i++) {
    if (!cand[i] || !cand[i][0]) continue;
    snprintf(probe, sizeof probe, "%s/matrices/MANIFEST.md", cand[i]);
    if (file_exists(probe)) {
      snprintf(dir, len, "%s/matrices", cand[i]);
      return true;
    }
  }
  return false;
}

/* One demo case; *ok says whether it ended as expected (converged, true residual within reach of rtol). */
static int demo_run(pds_ctx ctx, const demo_case *c, const char *mdir, double rtol, bool *ok) {
  solve_settings st = {c->solver, c->pc, c->bs, rtol, 1e-50, 0, 1, 10000, c->restart, false, false, false, false,
                       "cgs2", "double"};
  solve_info     info;
  pds_problem    p;
  pds_solver     s  = NULL;
  pds_precond    pc = NULL;
  pds_mat        A  = NULL;
  pds_vec        b = NULL, x = NULL, ones = NULL, xe = NULL;
  pds_int        n;
  char           label[64], method[64], path[4096 + 256], err[32];
  const char    *vs = "";
  int            rc = EXIT_DONE;
  double         red;

  *ok = false;
  memset(&p, 0, sizeof p);
  if (c->n && !strcmp(c->name, "fem2d")) snprintf(label, sizeof label, "%s ~%d", c->name, c->n);
  else if (c->n) snprintf(label, sizeof label, "%s %d^3", c->name, c->n);
  else snprintf(label, sizeof label, "%s", c->name);
  snprintf(method, sizeof method, "%s+%s", c->solver, c->pc);
  if (c->bs) snprintf(method + strlen(method), sizeof method - strlen(method), "(%d)", c->bs);
  if (c->n) {
    pds_int d[1] = {c->n};

    TRY(label, pds_problem_generate(ctx, c->name, d, 1, &p));
    A = p.A;
    TRY(label, pds_mat_reference(A));
    TRY(label, pds_vec_duplicate(p.b, &b));
    TRY(label, pds_vec_copy(p.b, b));
    TRY(label, pds_mat_get_size(A, &n, NULL));
  } else {
    mtx_path(path, sizeof path, mdir, c->name);
    TRY(label, pds_mm_read_mat(ctx, path, &A));
    TRY(label, pds_mat_get_size(A, &n, NULL));
    if (c->rhs) {
      mtx_path(path, sizeof path, mdir, c->rhs);
      TRY(label, pds_mm_read_vec(ctx, path, &b));
    } else {
      TRY(label, pds_vec_create(ctx, n, &ones));
      TRY(label, pds_vec_set(ones, 1.0));
      TRY(label, pds_vec_create(ctx, n, &b));
      TRY(label, pds_mat_apply(A, ones, b));
      xe = ones;
    }
  }
  TRY(label, pds_vec_create(ctx, n, &x));
  TRY(label, pds_vec_set(x, 0.0));
  if ((rc = make_solver(ctx, &st, &s, &pc))) goto done;
  if ((rc = run_solver(ctx, s, A, b, x, xe, p.u_exact, &st, &info))) goto done;
  red = ratio(info.rnorm_true, info.res.rnorm0);
  /* Expected: converged, and the true residual agrees with the tolerance (within a factor for rounding). */
  *ok = info.res.reason > 0 && info.rnorm_true <= 10.0 * (rtol * info.res.bnorm + 1e-300) + 1e-14 * info.res.bnorm;
  snprintf(err, sizeof err, "-");
  if (info.have_x) {
    snprintf(err, sizeof err, "%.2e", info.err_inf);
    vs = "ones";
  } else if (info.have_u) {
    snprintf(err, sizeof err, "%.2e", info.disc_err);
    vs = "u(pde)";
  }
  printf(DEMO_ROW("%7" PDS_INT_FMT, "%8" PDS_SIZE_FMT, "%6d", "%12.2e", "%8.3f") "%s%s\n", label, info.n, info.nnz,
         pds_ctx_get_backend(ctx), method, info.res.iterations, red, err, vs, info.t_setup + info.t_solve,
         *ok ? "ok" : "UNEXPECTED: ", *ok ? "" : pds_reason_name(info.res.reason));
done:
  if (rc)
    printf(DEMO_ROW("%7s", "%8s", "%6s", "%12s", "%8s") "%s\n", label, "-", "-", pds_ctx_get_backend(ctx), method, "-",
           "-", "-", "", "-", "ERROR (see stderr)");
  fflush(stdout);
  pds_vec_destroy(&b);
  pds_vec_destroy(&x);
  pds_vec_destroy(&ones);
  pds_mat_destroy(&A);
  pds_problem_destroy(&p);
  pds_solver_destroy(&s);
  pds_precond_destroy(&pc);
  return rc;
}

static int cmd_demo(pds_options o) {
  const char *cmdname = "demo";
  char        backend[80], mdir[4096];
  bool        quick, have_m, ok;
  int         nrun = 0, nbad = 0, nerr = 0, nskip = 0;
  double      rtol = 1e-8, t0 = pds_wtime();
  pds_ctx     ctx  = NULL;

  pds_options_begin_section(o, "flags:");
  if (read_backend(o, cmdname, backend, sizeof backend)) return EXIT_ERROR;
  OPT(o, pds_options_get_bool(o, "-quick", false, "only the small problems (seconds)", &quick, NULL));
  if (pds_options_help(o)) {
    printf("usage: pdesolve demo [-backend auto] [-quick]\n"
           "  Solve a set of generated problems and, when the shared matrices are found (env PDS_SHARED_DIR if set,\n"
           "  else ../shared, else the source tree's ../shared), real ones; one table row each. Exit 0 when every\n"
           "  case ended as expected (converged, true residual within 10 rtol ||b||).\n");
    pds_options_print_help(o, stdout);
    return EXIT_DONE;
  }
  OPT(o, pds_options_check_unused(o));
  if (make_ctx(backend, &ctx)) return EXIT_ERROR;
  have_m = find_matrices(mdir, sizeof mdir);
  printf("pdesolve %s demo: backend %s (%d thread%s), rtol %g, x0 = 0%s\n", pds_version(), pds_ctx_get_backend(ctx),
         pds_ctx_get_num_threads(ctx), pds_ctx_get_num_threads(ctx) == 1 ? "" : "s", rtol, quick ? ", quick" : "");
  if (have_m) printf("matrices: %s (b = A*ones unless a rhs file exists, so the error vs ones is known)\n", mdir);
  else printf("matrices: shared folder not found (set PDS_SHARED_DIR to the folder holding matrices/); generated "
              "problems only\n");
  printf(DEMO_ROW("%7s", "%8s", "%6s", "%12s", "%8s") "%s\n", "problem", "n", "nnz", "backend", "method", "its",
         "||r||/||r0||", "err_max", "vs", "time[s]", "status");
  for (int i = 0; i < NELEM(demo_cases); i++) {
    const demo_case *c = &demo_cases[i];
    char             probe[4096 + 256];

    if (quick && !c->quick) continue;
    if (!c->n) {
      if (!have_m || !mtx_path(probe, sizeof probe, mdir, c->name) || !file_exists(probe)) {
        if (have_m) printf("%-14s skipped: %s not found\n", c->name, probe);
        nskip++;
        continue;
      }
    }
    nrun++;
    if (demo_run(ctx, c, mdir, rtol, &ok)) nerr++;
    else if (!ok) nbad++;
  }
  printf("notes: ||r|| = ||b - A x||_2 recomputed after the solve; err_max = max |x - x_known| (vs ones when b =\n"
         "       A*ones, vs the PDE solution u for poisson7 and fem2d, which includes the O(h^2) discretization\n"
         "       error); time = setup + solve.\n");
  for (int i = 0; i < NELEM(demo_cases); i++) {
    const demo_case *c = &demo_cases[i];

    if (c->note[0] && (!quick || c->quick) && (c->n || have_m)) printf("  %-12s %s\n", c->name, c->note);
  }
  printf("demo: %d case%s run, %d as expected, %d unexpected, %d error%s, %d skipped, %.2f s\n", nrun,
         nrun == 1 ? "" : "s", nrun - nbad - nerr, nbad, nerr, nerr == 1 ? "" : "s", nskip, pds_wtime() - t0);
  pds_ctx_destroy(&ctx);
  return nerr ? EXIT_ERROR : nbad ? EXIT_NOT_CONVERGED : EXIT_DONE;
}

/* ---- main -------------------------------------------------------------------------------------------- */

static char help_flag[] = "-help";

typedef struct {
  const char *name, *summary;
  int (*run)(pds_options);
} command;

static const command commands[] = {
    {"solve", "solve A x = b from a Matrix Market file or a generated problem", cmd_solve},
    {"apply", "y = A x, A^T x or M^-1 x for a Matrix Market matrix", cmd_apply},
    {"gen", "write a generated problem as Matrix Market files", cmd_gen},
    {"demo", "solve a set of generated and real problems, one table row each", cmd_demo},
};

static int help_all(void) {
  printf("pdesolve %s: sparse linear solvers for implicit CFD/FEM (backends:", pds_version());
  for (int i = 0; i < pds_backend_count(); i++)
    printf(" %s%s", pds_backend_name(i), pds_backend_compiled(i) ? "" : " (not compiled)");
  printf(")\n\nusage: pdesolve <command> [flags]     flags are PETSc-style: -name value\n\ncommands:\n");
  for (int i = 0; i < NELEM(commands); i++) printf("  %-8s %s\n", commands[i].name, commands[i].summary);
  printf("  %-8s this text; 'pdesolve <command> -help' for one command\n", "help");
  for (int i = 0; i < NELEM(commands); i++) {
    char       *h[1] = {help_flag};
    pds_options o;

    printf("\n");
    if (pds_options_create(1, h, &o)) return fail("out of memory");
    commands[i].run(o);
    pds_options_destroy(&o);
  }
  printf("\nexit status: 0 converged (or done), 2 not converged, 1 error (message on stderr: "
         "'pdesolve: error: ...')\n");
  return EXIT_DONE;
}

int main(int argc, char **argv) {
  const char *cmd = argc > 1 ? argv[1] : NULL;
  pds_options o;
  int         rc;

  setvbuf(stdout, NULL, _IOLBF, 0); /* progress lines appear as they are printed */
  if (!cmd) {
    fail("no command (try 'pdesolve -help'); commands: solve, apply, gen, demo, help");
    return EXIT_ERROR;
  }
  if (!strcmp(cmd, "-help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
    if (!strcmp(cmd, "help") && argc > 2) {
      for (int i = 0; i < NELEM(commands); i++)
        if (!strcmp(argv[2], commands[i].name)) {
          char *h[1] = {help_flag};

          if (pds_options_create(1, h, &o)) return fail("out of memory");
          rc = commands[i].run(o);
          pds_options_destroy(&o);
          return rc;
        }
      return fail("help: unknown command '%s' (commands: solve, apply, gen, demo)", argv[2]);
    }
    return help_all();
  }
  if (!strcmp(cmd, "-version") || !strcmp(cmd, "--version")) {
    printf("pdesolve %s\n", pds_version());
    return EXIT_DONE;
  }
  for (int i = 0; i < NELEM(commands); i++) {
    if (strcmp(cmd, commands[i].name)) continue;
    if (pds_options_create(argc - 2, argv + 2, &o)) return fail("out of memory");
    rc = commands[i].run(o);
    pds_options_destroy(&o);
    return rc;
  }
  return fail("unknown command '%s' (commands: solve, apply, gen, demo, help; see 'pdesolve -help')", cmd);
}
