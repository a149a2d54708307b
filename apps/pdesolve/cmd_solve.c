/* apps/pdesolve/cmd_solve.c: `pdesolve solve`: A x = b for a Matrix Market matrix, a generated problem, fem2d,
 * channel or patches, with the method and output flags; prints the 'solution:' and the last 'result:' line, writes
 * -o and the -json report. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "pdesolve_app.h"
#include "io/json.h"

static const char *const orthog_names[] = {"cgs2", "cgs"};
static const char *const precision_names[] = {"double", "single", "mixed"};
static const char *const semjacobi_variants[] = {"extended", "natural", "shared", "wide"};
static const char *const bilu0_variants[] = {"auto", "hyperplane", "graph", "recycle", "syncfree", "lanes", "block", "tiles", "pipe"};
static const char *const bilu0_factors[] = {"double", "float"};

static const char *const partitioners[] = {"contiguous", "metis"};
static const char *const transports[]   = {"mpi", "nccl"};

static void usage_solve(void) {
  printf("usage: pdesolve solve (-A file.mtx | -problem NAME -n NX [NY NZ] | -problem fem2d (-nodes N | -mesh F.msh)\n"
         "                       | -problem channel (-n I [J K] [-blocks NB | -decomp BX [BY BZ]] | -grids LIST)\n"
         "                       | -problem patches -n N [NY NZ] [-patch LIST]\n"
         "                       | -problem sem (-elements EX [EY EZ] [-deform D] | -mesh F.msh) [-order N]) [flags]\n"
         "  Solve A x = b with a Krylov method and a preconditioner. Prints a last line 'result: ...';\n"
         "  exit status 0 converged, 2 not converged, 1 error. fem2d adds to it err_l2 (||x - u||_L2 over the\n"
         "  domain, x taken as P1) and, for -fem paper, err_pct (max over the nodes of 100 |x - u| / u); disc_err is\n"
         "  max |x - u| over the nodes; for poisson7, patches and sem, max |x - u| over the points or cells.\n");
}

/* The pc_relax_* / pc_gmg_* fields: the settings that ran and what setup built. */
static void report_relax_gmg(pds_ctx ctx, pds_json *j, pds_precond pc, const char *pcname,
                             const relax_gmg_flags *rg) {
  if (!strcmp(pcname, "relax")) {
    int     ntypes, ncolors;
    pds_int nblocks;

    pds_json_string(j, "pc_relax_type", rg->relax_type);
    pds_json_begin_array(j, "pc_relax_block");
    for (int a = 0; a < 3; a++) pds_json_int(j, NULL, rg->relax_block[a]);
    pds_json_end_array(j);
    pds_json_real(j, "pc_relax_omega", relax_omega_of(rg->relax_type, rg->relax_omega));
    pds_json_int(j, "pc_relax_sweeps", rg->relax_sweeps);
    if (!strcmp(rg->relax_type, "multicolor")) pds_json_bool(j, "pc_relax_symmetric", rg->relax_symmetric);
    pds_json_string(j, "pc_relax_variant", rg->relax_variant);
    if (!pds_precond_relax_get_info(pc, &ntypes, &ncolors, &nblocks)) {
      pds_json_int(j, "pc_relax_inverses", ntypes);
      pds_json_int(j, "pc_relax_colors", ncolors);
      pds_json_int(j, "pc_relax_blocks", nblocks);
    } else pds_ctx_clear_error(ctx);
  } else if (!strcmp(pcname, "gmg")) {
    int      nlevels;
    pds_size coarse;

    pds_json_string(j, "pc_gmg_cycle", rg->gmg_cycle);
    pds_json_int(j, "pc_gmg_max_levels", rg->gmg_levels);
    pds_json_string(j, "pc_gmg_smoother", rg->gmg_smoother);
    pds_json_begin_array(j, "pc_gmg_block");
    for (int a = 0; a < 3; a++) pds_json_int(j, NULL, rg->gmg_block[a]);
    pds_json_end_array(j);
    pds_json_real(j, "pc_gmg_omega", relax_omega_of(rg->gmg_smoother, rg->gmg_omega));
    pds_json_int(j, "pc_gmg_pre", rg->gmg_pre);
    pds_json_int(j, "pc_gmg_post", rg->gmg_post);
    pds_json_string(j, "pc_gmg_prolong", rg->gmg_prolong);
    pds_json_string(j, "pc_gmg_coarse", rg->gmg_coarse);
    pds_json_int(j, "pc_gmg_coarse_max", rg->gmg_coarse_max);
    if (!pds_precond_gmg_get_levels(pc, &nlevels, &coarse)) {
      pds_json_int(j, "pc_gmg_levels", nlevels);
      pds_json_int(j, "pc_gmg_coarse_cells", coarse);
    } else pds_ctx_clear_error(ctx);
  }
}

static int write_report(pds_ctx ctx, const char *path, const char *source, const char *format,
                        const solve_settings *st, const solve_info *in, pds_solver s, pds_precond pc,
                        const fem_report *fr, const patches_flags *pf) {
  pds_json j;
  int      ierr;

  PDS_CALL(pds_json_open(ctx, path, 2, &j));
  pds_json_begin_object(&j, NULL);
  pds_json_string(&j, "command", "solve");
  pds_json_string(&j, "version", pds_version());
  pds_json_string(&j, "source", source);
  pds_json_string(&j, "solver", st->solver);
  pds_json_string(&j, "pc", st->pc);
  if (!strcmp(st->pc, "bilu0")) {
    pds_json_string(&j, "pc_bilu0_variant", st->bilu0_variant ? st->bilu0_variant : "auto");
    pds_json_string(&j, "pc_bilu0_factors", st->bilu0_factors ? st->bilu0_factors : "double");
  }
  if (!strcmp(st->pc, "semjacobi"))
    pds_json_string(&j, "pc_semjacobi_variant", st->semjacobi_variant ? st->semjacobi_variant : "extended");
  if (!strcmp(st->pc, "ilu0")) {
    pds_json_real(&j, "pc_ilu0_shift", st->ilu0_shift);
    pds_json_string(&j, "pc_ilu0_ordering", st->ilu0_ordering ? st->ilu0_ordering : "natural");
    pds_json_string(&j, "pc_ilu0_variant", st->ilu0_variant ? st->ilu0_variant : "auto");
  }
  if (st->rg) report_relax_gmg(ctx, &j, pc, st->pc, st->rg);
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
  if (pf) {
    pds_json_begin_object(&j, "patches");
    pds_json_begin_array(&j, "n");
    for (int a = 0; a < 3; a++) pds_json_int(&j, NULL, pf->n[a]);
    pds_json_end_array(&j);
    pds_json_begin_array(&j, "patch");
    for (int i = 0; i < pf->nsizes; i++) pds_json_int(&j, NULL, pf->sizes[i]);
    pds_json_end_array(&j);
    pds_json_int(&j, "count", pf->count);
    pds_json_end_object(&j);
  }
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

int cmd_solve(pds_options o) {
  const char    *cmdname = "solve";
  const char    *Apath, *bpath, *x0path, *problem, *format, *out, *json;
  int            grid[3];
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
  bool           fem_on = false, ch_on = false, pa_on = false, sem_on = false, set;
  channel_flags  co;
  sem_flags      sf;
  patches_flags  pf;
  relax_gmg_flags rg;
  pds_mesh       mesh   = NULL;
  char           fem_errs[64] = "";
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
  OPT(o, pds_options_get_string(o, "-pc", "none",
                                "<name> preconditioner: none, jacobi, pbjacobi, ilu0 (csr, bsr, stencil7), bilu0 "
                                "(stencil7), relax, gmg (patches), semjacobi (sem), bjacobi and asm (block Jacobi and "
                                "additive Schwarz with overlap 1 over the ranks under mpirun, -sub_pc on each rank's "
                                "part)", &st.pc, NULL));
  OPT(o, pds_options_get_choice(o, "-partition", "contiguous", partitioners, NELEM(partitioners),
                                "under mpirun with -A: how the rows are cut among the ranks: contiguous, or metis (a "
                                "build with METIS: few edges between the ranks, the matrix renumbered, files read and "
                                "written in their own numbering)", &st.partition, NULL));
  OPT(o, pds_options_get_choice(o, "-halo", "mpi", transports, NELEM(transports),
                                "under mpirun: how a product's halo travels: mpi, or nccl (GPUs: NCCL between device "
                                "buffers; /gpu/cuda built with NCCL and libnccl.so.2 at run time)", &st.halo, NULL));
  OPT(o, pds_options_get_string(o, "-sub_pc", "ilu0", "<name> -pc bjacobi, asm: the local preconditioner of each "
                                "rank's part (its own flags, -pc_ilu0_* say, then set it)", &st.sub_pc, NULL));
  OPT(o, pds_options_get_choice(o, "-pc_bilu0_variant", "auto", bilu0_variants, NELEM(bilu0_variants),
                                "how -pc bilu0 runs on /gpu/cuda: auto (the fastest measured), hyperplane, graph, "
                                "recycle, syncfree, lanes, block, tiles (docs/bilu0.md); CPU backends take auto only",
                                &st.bilu0_variant, &set));
  if (!set) st.bilu0_variant = NULL;
  OPT(o, pds_options_get_choice(o, "-pc_semjacobi_variant", "extended", semjacobi_variants, NELEM(semjacobi_variants),
                                "the kernel that builds -pc semjacobi's diagonal (paper 003): extended, natural, "
                                "shared, wide (the same values; natural and shared up to order 9 on /gpu/cuda)",
                                &st.semjacobi_variant, &set));
  if (!set) st.semjacobi_variant = NULL;
  OPT(o, pds_options_get_choice(o, "-pc_bilu0_factors", "double", bilu0_factors, NELEM(bilu0_factors),
                                "storage of the -pc bilu0 factors: double, or float (/gpu/cuda only; arithmetic stays "
                                "double)", &st.bilu0_factors, &set));
  if (!set) st.bilu0_factors = NULL;
  if (read_ilu0_flags(o, cmdname, &st)) return EXIT_ERROR;
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
                                "bicgstab, richardson on csr with -pc none or jacobi); mixed (double's accuracy from "
                                "float iterations: cg with reliable updates in double, bicgstab and richardson "
                                "inside FGMRES in double)", &st.precision, NULL));
  OPT(o, pds_options_get_choice(o, "-format", "csr", format_names, NELEM(format_names),
                                "matrix storage (bsr converts from csr with block size -bs; stencil7 reads it on the "
                                "grid -grid with -bs unknowns per point)", &format, NULL));
  OPT(o, pds_options_get_int(o, "-bs", 0, 0, 64,
                             "block size of -format bsr (0 = detect), unknowns per point of -format stencil7 and, when "
                             "> 0, block size of -pc pbjacobi", &st.bs, NULL));
  if (read_grid(o, cmdname, grid)) return EXIT_ERROR;
  pds_options_begin_section(o, "output:");
  OPT(o, pds_options_get_bool(o, "-monitor", false, "print '%5d KSP residual norm %.12e' per iteration", &st.monitor,
                              NULL));
  OPT(o, pds_options_get_bool(o, "-view", false, "print the configuration (backend, matrix, solver, pc, tolerances)",
                              &st.view, NULL));
  OPT(o, pds_options_get_bool(o, "-history", false, "keep the residual history (written to -json, else printed)",
                              &st.history, NULL));
  OPT(o, pds_options_get_string(o, "-o", NULL, "<x.mtx> write the solution (Matrix Market array)", &out, NULL));
  OPT(o, pds_options_get_string(o, "-json", NULL, "<report.json> write the result as a JSON object", &json, NULL));
  if (read_fem_flags(o, cmdname, &fo)) return EXIT_ERROR; /* (it clears fo: -vtk after it) */
  OPT(o, pds_options_get_string(o, "-vtk", NULL, "<out.vtu> write the mesh (fem2d, sem) with fields solution, exact, "
                                "error", &fo.vtk, NULL));
  if (read_channel_flags(o, cmdname, &co)) return EXIT_ERROR;
  if (read_patches_flags(o, cmdname, &pf)) return EXIT_ERROR;
  if (read_sem_flags(o, cmdname, &sf)) return EXIT_ERROR;
  if (read_relax_gmg_flags(o, cmdname, &rg)) return EXIT_ERROR;
  st.rg = &rg;
  if (pds_options_help(o)) {
    usage_solve();
    pds_options_print_help(o, stdout);
    return EXIT_DONE;
  }
  OPT(o, pds_options_check_unused(o));
  if (check_fem_flags(o, &fo, &problem, ndims, &fem_on)) return EXIT_ERROR;
  if (check_channel_flags(o, problem, dims, ndims, st.bs, &co, &ch_on)) return EXIT_ERROR;
  if (check_patches_flags(o, problem, dims, ndims, &pf, &pa_on)) return EXIT_ERROR;
  if (check_sem_flags(o, problem, dims, ndims, fo.mesh, &sf, &sem_on)) return EXIT_ERROR;
  if (fo.vtk && !fem_on && !sem_on) return fail("flag -vtk is only used with -problem fem2d (or -mesh) or -problem sem");
  if (check_relax_gmg_flags(o, st.pc, &rg)) return EXIT_ERROR;
  if (!Apath && !problem)
    return fail("solve needs -A file.mtx or -problem NAME -n NX [NY NZ] (see 'pdesolve solve -help')");
  if (Apath && problem) return fail("flags -A and -problem exclude each other");
  if (problem && !fem_on && !ch_on && !sem_on && ndims == 0)
    return fail("flag -problem %s needs -n NX [NY NZ]", problem);
  if (!problem && ndims > 0) return fail("flag -n is only used with -problem");
  if (!(st.omega > 0)) return fail("flag -omega: %g must be positive", st.omega);
  if (strcmp(st.pc, "semjacobi") && st.semjacobi_variant)
    return fail("flag -pc_semjacobi_variant is only used with -pc semjacobi");
  if (strcmp(st.pc, "bilu0") && (st.bilu0_variant || st.bilu0_factors))
    return fail("flag %s is only used with -pc bilu0", st.bilu0_variant ? "-pc_bilu0_variant" : "-pc_bilu0_factors");
  if (strcmp(st.pc, "ilu0") && !((!strcmp(st.pc, "bjacobi") || !strcmp(st.pc, "asm")) && !strcmp(st.sub_pc, "ilu0")) &&
      (st.ilu0_shift_set || st.ilu0_ordering || st.ilu0_variant || st.ilu0_sweeps_set || st.ilu0_fsweeps_set))
    return fail("flag %s is only used with -pc ilu0", st.ilu0_shift_set  ? "-pc_ilu0_shift"
                                                      : st.ilu0_ordering ? "-pc_ilu0_ordering"
                                                      : st.ilu0_variant  ? "-pc_ilu0_variant"
                                                      : st.ilu0_sweeps_set ? "-pc_ilu0_sweeps"
                                                                           : "-pc_ilu0_factor_sweeps");
  if (st.rtol >= 1) return fail("flag -rtol: %g must be below 1", st.rtol);

  if (app_make_ctx(backend, &ctx)) return EXIT_ERROR;
  if (pds_ctx_get_size(ctx) == 1 && strcmp(st.halo, "mpi")) {
    rc = fail("flag -halo %s is only used under mpirun with more than one rank", st.halo);
    goto done;
  }
  if (pds_ctx_get_size(ctx) > 1) { /* under mpirun */
    pds_problem whole; /* fem2d: built whole on rank 0 (a host context), then spread; patches, sem: distributed */
    pds_ctx     host = NULL;

    memset(&whole, 0, sizeof whole);
    if ((fem_on || pa_on || sem_on) && fo.vtk) {
      rc = fail("flag -vtk is not used under mpirun (the mesh and the solution are rank 0's to write: -o)");
      goto done;
    }
    if (pa_on) { /* patches: whole patches a rank, built by every rank (bjacobi's relax and gmg work on them) */
      if ((rc = patches_build_dist(ctx, &pf, &whole))) goto done;
    } else if (sem_on) { /* sem: the matrix-free operator over the ranks (semjacobi works on it) */
      if ((rc = sem_build(ctx, &sf, st.partition, &whole))) goto done;
    } else if (fem_on && pds_ctx_get_rank(ctx) == 0 &&
               (pds_ctx_create("/cpu/omp", &host) == PDS_OK || make_ctx("/cpu/ref", &host) == EXIT_DONE)) {
      if (fem_build(host, &fo, &mesh, &fem, &whole.A, &whole.b, &whole.u_exact, &fr) == EXIT_DONE)
        snprintf(whole.description, sizeof whole.description, "%.159s", fr.source);
      else pds_problem_destroy(&whole); /* its A NULL: every rank learns rank 0 failed */
    }
    rc = solve_dist(ctx, &st, Apath, problem, dims, ndims, ch_on ? &co : NULL,
                    fem_on || pa_on || sem_on ? &whole : NULL, pa_on || sem_on, format, bpath, x0path, json, out);
    pds_problem_destroy(&whole);
    pds_mesh_destroy(&mesh);
    pds_fem2d_destroy(&fem);
    pds_ctx_destroy(&host);
    goto done;
  }
  if ((rc = make_solver(ctx, &st, &s, &pc))) goto done;
  if (fem_on) {
    if ((rc = fem_build(ctx, &fo, &mesh, &fem, &p.A, &p.b, &p.u_exact, &fr))) goto done;
    A = p.A;
    TRY("problem", pds_mat_reference(A));
    snprintf(source, sizeof source, "%s", fr.source);
  } else if (sem_on) {
    if ((rc = sem_build(ctx, &sf, NULL, &p))) goto done;
    A = p.A;
    TRY("problem", pds_mat_reference(A));
    snprintf(source, sizeof source, "%s", p.description);
  } else if (ch_on) {
    if ((rc = channel_build(ctx, &co, &p))) goto done;
    A = p.A;
    TRY("problem", pds_mat_reference(A));
    snprintf(source, sizeof source, "%s", p.description);
  } else if ((rc = load_operator(ctx, pa_on ? &pf : NULL, problem, dims, ndims, Apath, &p, &A, source,
                                  sizeof source)))
    goto done;
  TRY("matrix", pds_mat_get_size(A, &nrows, &ncols));
  if (nrows != ncols) {
    rc = fail("solve needs a square matrix; '%s' is %" PDS_INT_FMT " x %" PDS_INT_FMT, source, nrows, ncols);
    goto done;
  }
  if ((rc = to_format(ctx, format, st.bs, grid, &A))) goto done;
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
  if (sem_on && fo.vtk && (rc = sem_write_vtk(ctx, &sf, fo.vtk, x, u_exact))) goto done;
  if (st.history && !json) TRY("history", print_history(s));
  /* the true residual, and the errors against what is known (x_exact, or ones for b = A*ones; u for a PDE) */
  if (fr.have_err && fr.err_pct >= 0) /* fem2d's errors, on both lines */
    snprintf(fem_errs, sizeof fem_errs, " err_l2=%.6e err_pct=%.6e", fr.err_l2, fr.err_pct);
  else if (fr.have_err)
    snprintf(fem_errs, sizeof fem_errs, " err_l2=%.6e", fr.err_l2);
  print_solution(&info, fem_errs);
  if (out) {
    char what[300];

    snprintf(what, sizeof what, "flag -o: cannot write '%s'", out);
    TRY(what, pds_mm_write_vec(x, out));
  }
  if (json) {
    char what[300];

    snprintf(what, sizeof what, "flag -json: cannot write '%s'", json);
    TRY(what, write_report(ctx, json, source, format, &st, &info, s, pc, &fr, pa_on ? &pf : NULL));
  }
  print_result(&st, pds_ctx_get_backend(ctx), &info, "", fem_errs);
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
