/* apps/pdesolve/cmd_demo.c: `pdesolve demo` (what `make run` runs): a fixed list of generated problems and
 * shared matrices (demo_cases), each solved and printed as one table row; the shared folder is found by
 * find_matrices. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pdesolve_app.h"

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

typedef struct {
  const char *name;    /* "poisson7", "fem2d", "channel", "patches", "sem", "fv" (generated) or a file of
                          shared/matrices without .mtx */
  int         n;       /* grid size of poisson7, channel, patches (n^3), nodes of fem2d, elements of sem (n^3), cells
                          of fv */
  const char *rhs;     /* rhs file of shared/matrices, or NULL: b = A*ones (poisson7: the generator's b) */
  const char *solver, *pc;
  int         bs;      /* pbjacobi block size */
  int         restart;
  bool        quick;   /* part of -quick */
  const char *note;
} demo_case;

#define DEMO_PATCH 16 /* patches: the patch size (DEMO_PATCH^3 cells each) */

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
    {"channel", 12, NULL, "richardson", "bilu0", 0, 30, true,
     "paper 000's kind of system: implicit Navier-Stokes, 6 unknowns per cell, CFL 10; block ILU(0) correction"},
    {"patches", 64, NULL, "cg", "gmg", 0, 30, true,
     "paper 002's kind of system: cell-centred Poisson on 64 patches of 16^3; geometric multigrid V-cycle"},
    {"sem", 3, NULL, "cg", "jacobi", 0, 30, true,
     "paper 003's kind of system: spectral elements, 3^3 hexahedra of order 7, matrix-free; its Eq. 9 diagonal"},
    {"fv", 2000, NULL, "gmres", "ilu0", 0, 30, true,
     "paper 001's kind of system: Euler flow past a sphere, the first implicit step (Roe fluxes, 5x5 blocks, CFL 50)"},
};

/* fv: the linear system of the first implicit step of pdesolve fv on its default sphere in a box (about `cells`
   cells, the sphere a wall): J dQ = R at the free stream, J = pds_fv_jacobian at fv's implicit CFL number (a bsr
   matrix of 5 x 5 blocks), R the residual (nonzero near the wall) */
static int demo_fv_system(pds_ctx ctx, int cells, pds_mat *J, pds_vec *R) {
  const pds_int wall[1] = {FV_WALL_TAG};
  pds_mesh3d    m  = NULL;
  pds_fv        fv = NULL;
  pds_vec       Q  = NULL;
  pds_fv_params pr;
  int           ierr;

  pds_fv_params_default(&pr);
  pr.nwall = 1, pr.wall_tags = wall;
  ierr = pds_mesh3d_generate_sphere(ctx, cells, FV_RADIUS, FV_BOX, &m);
  if (!ierr) ierr = pds_fv_create(ctx, m, &pr, &fv);
  if (!ierr) ierr = pds_fv_create_state(fv, &Q);
  if (!ierr) ierr = pds_vec_duplicate(Q, R);
  if (!ierr) ierr = pds_fv_residual(fv, Q, *R);
  if (!ierr) ierr = pds_fv_jacobian(fv, Q, FV_IMPLICIT_CFL, J);
  pds_vec_destroy(&Q);
  pds_fv_destroy(&fv);
  pds_mesh3d_destroy(&m);
  return ierr;
}

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
                       "cgs2", "double", NULL, NULL, 0, NULL, false, NULL, 0, 0, false, false, NULL, NULL, NULL, NULL, "mpi"};
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
  if (c->n && (!strcmp(c->name, "fem2d") || !strcmp(c->name, "fv")))
    snprintf(label, sizeof label, "%s ~%d", c->name, c->n);
  else if (c->n) snprintf(label, sizeof label, "%s %d^3", c->name, c->n);
  else snprintf(label, sizeof label, "%s", c->name);
  snprintf(method, sizeof method, "%s+%s", c->solver, c->pc);
  if (c->bs) snprintf(method + strlen(method), sizeof method - strlen(method), "(%d)", c->bs);
  if (c->n && !strcmp(c->name, "fv")) {
    TRY(label, demo_fv_system(ctx, c->n, &A, &b));
    TRY(label, pds_mat_get_size(A, &n, NULL));
  } else if (c->n) {
    pds_int d[3] = {c->n, c->n, c->n}, patch[1] = {DEMO_PATCH};

    if (!strcmp(c->name, "patches")) TRY(label, pds_problem_patches(ctx, d, 1, patch, &p));
    else TRY(label, pds_problem_generate(ctx, c->name, d, 1, &p));
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

int cmd_demo(pds_options o) {
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
         "       A*ones, vs the PDE solution u for poisson7, fem2d, patches and sem, which includes the\n"
         "       discretization error); time = setup + solve.\n");
  for (int i = 0; i < NELEM(demo_cases); i++) {
    const demo_case *c = &demo_cases[i];

    if (c->note[0] && (!quick || c->quick) && (c->n || have_m)) printf("  %-12s %s\n", c->name, c->note);
  }
  printf("demo: %d case%s run, %d as expected, %d unexpected, %d error%s, %d skipped, %.2f s\n", nrun,
         nrun == 1 ? "" : "s", nrun - nbad - nerr, nbad, nerr, nerr == 1 ? "" : "s", nskip, pds_wtime() - t0);
  pds_ctx_destroy(&ctx);
  return nerr ? EXIT_ERROR : nbad ? EXIT_NOT_CONVERGED : EXIT_DONE;
}
