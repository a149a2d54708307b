/* apps/pdesolve/cmd_fv.c: `pdesolve fv`: paper 001's finite-volume Euler flow on a 3D hybrid mesh: the built-in sphere
 * in a box (-problem sphere -cells N; the sphere a wall, the box free stream) or any Gmsh mesh (-mesh F.msh -wall
 * TAGS: the boundary groups named are walls, all other boundary faces free stream), explicit steps with a local time
 * step, first or second order (-order 2: paper 001's quadratic reconstruction), from the free stream (-init uniform) or
 * a smooth 1% density bump on it (-init bump), the residual of every step (-monitor, and `residuals` in the -json
 * report), the pressure force on the walls, and the cells with their states in VTK (-vtk); -implicit: backward-Euler
 * pseudo-time steps (pds_fv_step_implicit) with the CFL number growing as the residual falls, each linear system solved
 * by -ksp with -pc; -tol: stop at a steady state. Output: one line "result: fv cells=... faces=... wall_faces=...
 * steps=... rnorm0=... rnorm=... t_setup=... t_step=... force=(fx,fy,fz) implicit=0|1 linear_iterations=N". */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/json.h"
#include "pdesolve_app.h"

static const char *const fv_problems[] = {"sphere"};
static const char *const fv_inits[]    = {"uniform", "bump"};
static const char *const fv_orders[]   = {"none", "rcm", "hilbert"};
static const char *const fv_sums[]     = {"stages", "color", "atomic", "cells"};

typedef struct {
  const char *sum; /* -sum: the summation (NULL: the library's default) */
  const char *problem, *mesh, *init, *reorder, *json, *vtk;
  int         cells, steps, wall[16], nwall, order;
  double      radius, box, mach, alpha, cfl, tol;
  bool        monitor, wall_set, cfl_set;
  /* -implicit: backward-Euler pseudo-time steps, the CFL number growing from -cfl to -cfl_max as the residual falls,
     each linear system solved by -ksp with -pc to -ksp_rtol */
  bool        implicit;
  double      cfl_max, ksp_rtol;
  const char *ksp, *pc;
  int         ksp_maxit, restart;
  solve_settings ilu0; /* -pc ilu0's flags (read_ilu0_flags) */
} fv_flags;

static const char *const fv_ksps[] = {"gmres", "fgmres", "bicgstab", "richardson"};
static const char *const fv_pcs[]  = {"ilu0", "pbjacobi", "jacobi", "none"};

/* the flags; EXIT_ERROR with a message for bad ones */
static int read_fv_flags(pds_options o, const char *cmdname, fv_flags *f, char *backend, size_t blen) {
  static const int one[1] = {FV_WALL_TAG};

  memset(f, 0, sizeof *f);
  pds_options_begin_section(o, "flags:");
  OPT(o, pds_options_get_choice(o, "-problem", NULL, fv_problems, NELEM(fv_problems),
                                "built-in mesh: sphere (a sphere in a box of tetrahedra, pyramids, prisms and "
                                "hexahedra; the default without -mesh)", &f->problem, NULL));
  OPT(o, pds_options_get_string(o, "-mesh", NULL, "<file.msh> Gmsh 3D mesh (2.2 or 4.1) instead of the sphere",
                                &f->mesh, NULL));
  OPT(o, pds_options_get_int(o, "-cells", 20000, 432, 50000000, "about this many cells of -problem sphere",
                             &f->cells, NULL));
  OPT(o, pds_options_get_real(o, "-radius", FV_RADIUS, 1e-6, 1e6, "the sphere's radius", &f->radius, NULL));
  OPT(o, pds_options_get_real(o, "-box", FV_BOX, 1e-6, 1e6, "the box's half width (more than twice the radius)",
                              &f->box, NULL));
  OPT(o, pds_options_get_int_list(o, "-wall", 1, one, 16, 1, 1 << 30,
                                  "boundary tags that are walls (the sphere: 1); other boundary faces are free stream",
                                  f->wall, &f->nwall, &f->wall_set));
  OPT(o, pds_options_get_real(o, "-mach", 0.1, 0, 10, "free-stream Mach number (density 1, sound speed 1)", &f->mach,
                              NULL));
  OPT(o, pds_options_get_real(o, "-alpha", 0, -180, 180, "free-stream direction in the x-y plane, degrees from x",
                              &f->alpha, NULL));
  OPT(o, pds_options_get_int(o, "-order", 1, 1, 2,
                             "1: the cells' values at the faces; 2: paper 001's quadratic least-squares reconstruction",
                             &f->order, NULL));
  OPT(o, pds_options_get_int(o, "-steps", 100, 0, 100000000, "steps (at most, with -tol)", &f->steps, NULL));
  OPT(o, pds_options_get_real(o, "-cfl", 0.9, 1e-6, 1e12,
                              "CFL number of the local time step (explicit: at most about 1; -implicit: the first "
                              "step's, 50 unless given)", &f->cfl, &f->cfl_set));
  OPT(o, pds_options_get_real(o, "-tol", 0, 0, 1, "stop when ||R|| <= tol ||R_0|| (0: run every step)", &f->tol,
                              NULL));
  OPT(o, pds_options_get_bool(o, "-implicit", false,
                              "backward-Euler pseudo-time steps: (V / tau + J) dQ = R with the first-order Jacobian J "
                              "(5 x 5 blocks) solved by -ksp with -pc", &f->implicit, NULL));
  OPT(o, pds_options_get_real(o, "-cfl_max", 1e8, 1e-6, 1e300,
                              "-implicit: the CFL number grows as cfl ||R_0|| / ||R|| up to this (Newton's method as it "
                              "grows)", &f->cfl_max, NULL));
  OPT(o, pds_options_get_choice(o, "-ksp", "gmres", fv_ksps, NELEM(fv_ksps), "-implicit: the Krylov method", &f->ksp,
                                NULL));
  OPT(o, pds_options_get_choice(o, "-pc", "ilu0", fv_pcs, NELEM(fv_pcs),
                                "-implicit: the preconditioner (ilu0: block ILU(0) on the 5 x 5 blocks)", &f->pc,
                                NULL));
  OPT(o, pds_options_get_real(o, "-ksp_rtol", 0.1, 1e-14, 1,
                              "-implicit: each linear solve's relative tolerance (an inexact Newton step)",
                              &f->ksp_rtol, NULL));
  OPT(o, pds_options_get_int(o, "-ksp_maxit", 200, 1, 100000, "-implicit: each linear solve's iteration limit",
                             &f->ksp_maxit, NULL));
  OPT(o, pds_options_get_int(o, "-restart", 30, 1, 10000, "-implicit: gmres/fgmres restart length", &f->restart,
                             NULL));
  if (read_ilu0_flags(o, cmdname, &f->ilu0)) return EXIT_ERROR;
  OPT(o, pds_options_get_choice(o, "-init", "uniform", fv_inits, NELEM(fv_inits),
                                "initial state: uniform (the free stream) or bump (a smooth 1% density bump upstream)",
                                &f->init, NULL));
  OPT(o, pds_options_get_choice(o, "-reorder", "none", fv_orders, NELEM(fv_orders),
                                "renumber the cells first: none, rcm (reverse Cuthill-McKee), hilbert (curve)",
                                &f->reorder, NULL));
  OPT(o, pds_options_get_choice(o, "-sum", NULL, fv_sums, NELEM(fv_sums),
                                "how the faces' fluxes are summed into the cells: stages (paper 001's; the default), "
                                "color (face colours), atomic (atomic additions: not deterministic), cells (each cell "
                                "computes its faces' fluxes)", &f->sum, NULL));
  OPT(o, pds_options_get_bool(o, "-monitor", false, "print ||R|| of every step", &f->monitor, NULL));
  OPT(o, pds_options_get_string(o, "-json", NULL, "<file> report: mesh, flow, timings, residuals of every step",
                                &f->json, NULL));
  OPT(o, pds_options_get_string(o, "-vtk", NULL, "<out.vtu> the cells with rho, u, v, w, p, mach", &f->vtk, NULL));
  if (read_backend(o, cmdname, backend, blen)) return EXIT_ERROR;
  return EXIT_DONE;
}

/* every -wall tag must name some boundary face of the -mesh file: a misspelt tag would otherwise give a flow with
   no walls at all (every boundary face free stream) and no sign of it; the message lists the tags the file has */
static int fv_check_walls(pds_ctx ctx, pds_mesh3d m, const fv_flags *f) {
  const pds_int *ftag;
  pds_int        nf;
  int            rc = EXIT_DONE;

  TRY("flag -wall", pds_mesh3d_get_faces(m, &nf, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  TRY("flag -wall", pds_mesh3d_face_tags(m, &ftag));
  for (int w = 0; w < f->nwall; w++) {
    pds_int hits = 0;

    for (pds_int e = 0; e < nf; e++) hits += ftag[e] == f->wall[w];
    if (hits == 0) {
      char    have[256] = "";
      size_t  len = 0;
      pds_int seen[16], ns = 0;

      for (pds_int e = 0; e < nf && ns < 16; e++) { /* the file's boundary tags, as first met (at most 16) */
        int known = ftag[e] <= 0;

        for (pds_int k = 0; k < ns && !known; k++) known = seen[k] == ftag[e];
        if (known) continue;
        seen[ns++] = ftag[e];
        len += (size_t)snprintf(have + len, len < sizeof have ? sizeof have - len : 0, "%s%d", ns > 1 ? ", " : "",
                                (int)ftag[e]);
      }
      return fail("flag -wall %d: no boundary face of '%s' has this tag (its boundary faces have tags: %s)",
                  f->wall[w], f->mesh, ns ? have : "none");
    }
  }
done:
  return rc;
}

/* the mesh of the flags: the sphere or the Gmsh file, renumbered */
static int fv_mesh(pds_ctx ctx, const fv_flags *f, pds_mesh3d *m) {
  int  rc = EXIT_DONE;
  char what[4200];

  if (f->mesh) {
    snprintf(what, sizeof what, "flag -mesh: cannot read '%s'", f->mesh);
    TRY(what, pds_mesh3d_read_gmsh(ctx, f->mesh, m));
  } else {
    snprintf(what, sizeof what, "flag -problem sphere -cells %d -radius %g -box %g", f->cells, f->radius, f->box);
    TRY(what, pds_mesh3d_generate_sphere(ctx, f->cells, f->radius, f->box, m));
  }
  TRY("flag -reorder", pds_mesh3d_reorder(*m, f->reorder));
  if (f->mesh && (rc = fv_check_walls(ctx, *m, f))) goto done;
done:
  return rc;
}

/* the bump: density times 1 + 0.01 exp(-|x - c|^2 / w^2), pressure kept, at c = (-2 r, 0, 0) upstream (w = r) */
static int fv_bump(pds_ctx ctx, pds_mesh3d m, const fv_flags *f, const pds_fv_info *in, pds_vec Q) {
  const pds_real *X;
  double         *h = malloc(sizeof *h * 5 * (size_t)in->ncells);
  int             rc = EXIT_DONE;

  if (!h) return fail("-init bump: no memory for %d cells", (int)in->ncells);
  TRY("-init bump", pds_mesh3d_get_geometry(m, NULL, &X, NULL, NULL));
  for (pds_int c = 0; c < in->ncells; c++) {
    const double r = f->mesh ? 0.1 : f->radius, dx = X[3 * c] + 2 * r, dy = X[3 * c + 1], dz = X[3 * c + 2];
    const double s = 1 + 0.01 * exp(-(dx * dx + dy * dy + dz * dz) / (r * r));
    const double u[3] = {in->qinf[1], in->qinf[2], in->qinf[3]}, p = 1 / in->gamma;

    h[5 * c] = s, h[5 * c + 1] = s * u[0], h[5 * c + 2] = s * u[1], h[5 * c + 3] = s * u[2];
    h[5 * c + 4] = p / (in->gamma - 1) + 0.5 * s * (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
  }
  TRY("-init bump", pds_vec_set_values(Q, h, PDS_MEM_HOST));
done:
  free(h);
  return rc;
}

/* the pressure force on the wall faces (sum p a over them, a out of the flow) and the VTK fields */
static int fv_output(pds_ctx ctx, pds_mesh3d m, const fv_flags *f, const pds_fv_info *in, pds_vec Q, double force[3]) {
  const pds_int  *fc, *ftag;
  const pds_real *area;
  pds_int         nf;
  double         *q = malloc(sizeof *q * 5 * (size_t)in->ncells), *v = NULL;
  int             rc = EXIT_DONE;

  force[0] = force[1] = force[2] = 0;
  if (!q) return fail("no memory for the states of %d cells", (int)in->ncells);
  TRY("the wall force", pds_vec_get_values(Q, q, PDS_MEM_HOST));
  TRY("the wall force", pds_mesh3d_get_faces(m, &nf, NULL, NULL, NULL, NULL, &fc, NULL, NULL));
  TRY("the wall force", pds_mesh3d_face_tags(m, &ftag));
  TRY("the wall force", pds_mesh3d_get_geometry(m, NULL, NULL, &area, NULL));
  for (pds_int e = 0; e < nf; e++) {
    int wall = 0;

    for (int w = 0; w < f->nwall && fc[2 * e + 1] < 0; w++) wall |= ftag[e] == f->wall[w];
    if (wall) {
      const double *s = q + 5 * (size_t)fc[2 * e];
      const double  p = (in->gamma - 1) * (s[4] - 0.5 * (s[1] * s[1] + s[2] * s[2] + s[3] * s[3]) / s[0]);

      for (int d = 0; d < 3; d++) force[d] += p * area[3 * e + d];
    }
  }
  if (f->vtk) {
    const char *const names[6] = {"rho", "u", "v", "w", "p", "mach"};
    const double     *vals[6];

    v = malloc(sizeof *v * 6 * (size_t)in->ncells);
    if (!v) {
      rc = fail("flag -vtk: no memory for %d cells", (int)in->ncells);
      goto done;
    }
    for (pds_int c = 0; c < in->ncells; c++) {
      const double *s = q + 5 * (size_t)c, u = s[1] / s[0], w = s[2] / s[0], z = s[3] / s[0];
      const double  p = (in->gamma - 1) * (s[4] - 0.5 * s[0] * (u * u + w * w + z * z));

      v[c] = s[0], v[in->ncells + c] = u, v[2 * (size_t)in->ncells + c] = w, v[3 * (size_t)in->ncells + c] = z;
      v[4 * (size_t)in->ncells + c] = p;
      v[5 * (size_t)in->ncells + c] = sqrt((u * u + w * w + z * z) / (in->gamma * p / s[0]));
    }
    for (int k = 0; k < 6; k++) vals[k] = v + (size_t)k * in->ncells;
    {
      char what[4200];

      snprintf(what, sizeof what, "flag -vtk: cannot write '%s'", f->vtk);
      TRY(what, pds_mesh3d_write_vtk(m, f->vtk, 6, names, vals));
    }
  }
done:
  free(q), free(v);
  return rc;
}

static int fv_report(pds_ctx ctx, const fv_flags *f, const char *backend, pds_mesh3d m, const pds_fv_info *in,
                     const double *res, const int *lits, const double *cfls, int nres, double tsetup, double tstep,
                     const double force[3]) {
  pds_json j;
  pds_int  nt[4] = {0, 0, 0, 0};
  int      rc = EXIT_DONE;
  char     what[4200];

  pds_mesh3d_count(m, PDS_CELL_TET, &nt[0]), pds_mesh3d_count(m, PDS_CELL_PYRAMID, &nt[1]);
  pds_mesh3d_count(m, PDS_CELL_PRISM, &nt[2]), pds_mesh3d_count(m, PDS_CELL_HEX, &nt[3]);
  snprintf(what, sizeof what, "flag -json: cannot write '%s'", f->json);
  TRY(what, pds_json_open(ctx, f->json, 2, &j));
  pds_json_begin_object(&j, NULL);
  pds_json_string(&j, "command", "fv");
  pds_json_string(&j, "backend", backend);
  pds_json_string(&j, "mesh", f->mesh ? f->mesh : "sphere");
  pds_json_int(&j, "cells", in->ncells);
  pds_json_int(&j, "tetrahedra", nt[0]), pds_json_int(&j, "pyramids", nt[1]);
  pds_json_int(&j, "prisms", nt[2]), pds_json_int(&j, "hexahedra", nt[3]);
  pds_json_int(&j, "faces", in->nfaces);
  pds_json_int(&j, "order", f->order);
  pds_json_string(&j, "summation", in->summation);
  if (in->ncolors) pds_json_int(&j, "colors", in->ncolors);
  if (f->order == 2) pds_json_int(&j, "stencil_min", in->ng_min), pds_json_int(&j, "stencil_max", in->ng_max);
  if (f->order == 2) pds_json_real(&j, "stencil_mean", in->ng_mean);
  pds_json_int(&j, "wall_faces", in->nwall), pds_json_int(&j, "freestream_faces", in->nfree);
  pds_json_real(&j, "volume", in->volume);
  pds_json_string(&j, "reorder", f->reorder);
  pds_json_real(&j, "mach", f->mach), pds_json_real(&j, "alpha", f->alpha), pds_json_real(&j, "cfl", f->cfl);
  pds_json_string(&j, "init", f->init);
  pds_json_int(&j, "steps", nres);
  pds_json_real(&j, "t_setup", tsetup), pds_json_real(&j, "t_step", tstep);
  pds_json_begin_array(&j, "force");
  for (int d = 0; d < 3; d++) pds_json_real(&j, NULL, force[d]);
  pds_json_end_array(&j);
  pds_json_begin_array(&j, "residuals");
  for (int s = 0; s < nres; s++) pds_json_real(&j, NULL, res[s]);
  pds_json_end_array(&j);
  pds_json_bool(&j, "implicit", f->implicit);
  if (f->implicit) {
    int total = 0;

    pds_json_string(&j, "ksp", f->ksp), pds_json_string(&j, "pc", f->pc);
    if (!strcmp(f->pc, "ilu0")) {
      pds_json_string(&j, "pc_ilu0_ordering", f->ilu0.ilu0_ordering ? f->ilu0.ilu0_ordering : "natural");
      pds_json_string(&j, "pc_ilu0_variant", f->ilu0.ilu0_variant ? f->ilu0.ilu0_variant : "auto");
    }
    pds_json_real(&j, "ksp_rtol", f->ksp_rtol), pds_json_real(&j, "cfl_max", f->cfl_max);
    pds_json_begin_array(&j, "linear_iterations");
    for (int s = 0; s < nres; s++) pds_json_int(&j, NULL, lits[s]), total += lits[s];
    pds_json_end_array(&j);
    pds_json_int(&j, "linear_iterations_total", total);
    pds_json_begin_array(&j, "cfls");
    for (int s = 0; s < nres; s++) pds_json_real(&j, NULL, cfls[s]);
    pds_json_end_array(&j);
  }
  pds_json_end_object(&j);
  TRY(what, pds_json_close(&j));
done:
  return rc;
}

int cmd_fv(pds_options o) {
  const char   *cmdname = "fv";
  fv_flags      f;
  char          backend[80];
  pds_ctx       ctx = NULL;
  pds_mesh3d    m   = NULL;
  pds_fv        fv  = NULL;
  pds_fv_params p;
  pds_fv_info   in;
  pds_vec       Q = NULL, R = NULL;
  pds_solver    ksp = NULL;
  pds_precond   pc  = NULL;
  double       *res = NULL, *cfls = NULL, t0, tsetup, tstep = 0, force[3] = {0, 0, 0};
  int          *lits = NULL, nres = 0, rc = EXIT_DONE;

  if (read_fv_flags(o, cmdname, &f, backend, sizeof backend)) return EXIT_ERROR;
  if (pds_options_help(o)) {
    printf("usage: pdesolve fv [-problem sphere -cells N | -mesh F.msh -wall TAGS] [-order 1|2] [-mach M]\n"
           "                   [-steps N] [-cfl C] [-tol T] [-implicit [-ksp gmres] [-pc ilu0]] [-init uniform|bump]\n"
           "                   [-json r.json] [-vtk out.vtu] [flags]\n"
           "  Paper 001's finite-volume Euler flow (Roe fluxes in three stages; -order 2: the quadratic\n"
           "  least-squares reconstruction) by explicit steps with a local time step, or by implicit ones\n"
           "  (-implicit: backward Euler in pseudo-time with the first-order Jacobian, solved by pdesolve's\n"
           "  Krylov methods), on a 3D hybrid mesh; the residual of every step, the pressure force on the walls.\n");
    pds_options_print_help(o, stdout);
    return EXIT_DONE;
  }
  OPT(o, pds_options_check_unused(o));
  if (f.problem && f.mesh) return fail("flags -problem and -mesh exclude each other");
  if (f.mesh && !f.wall_set) f.nwall = 0; /* a Gmsh mesh: walls only where -wall names them */
  if (!f.mesh && !(f.radius < f.box / 2)) return fail("flag -radius %g: less than half of -box %g", f.radius, f.box);
  if (f.implicit && !f.cfl_set) f.cfl = FV_IMPLICIT_CFL;
  if (make_ctx(backend, &ctx)) return EXIT_ERROR;
  t0 = pds_wtime();
  if ((rc = fv_mesh(ctx, &f, &m))) goto done;
  pds_fv_params_default(&p);
  p.mach = f.mach, p.dir[0] = cos(f.alpha * 3.14159265358979323846 / 180);
  p.dir[1] = sin(f.alpha * 3.14159265358979323846 / 180), p.dir[2] = 0;
  p.nwall = f.nwall, p.wall_tags = f.wall, p.order = f.order;
  p.summation = f.sum;
  TRY("fv: the operator", pds_fv_create(ctx, m, &p, &fv));
  TRY("fv", pds_fv_get_info(fv, &in));
  TRY("fv: the state", pds_fv_create_state(fv, &Q));
  TRY("fv: the state", pds_vec_duplicate(Q, &R));
  if (!strcmp(f.init, "bump") && (rc = fv_bump(ctx, m, &f, &in, Q))) goto done;
  tsetup = pds_wtime() - t0;
  if (f.implicit) {
    solve_settings st = f.ilu0;

    st.solver = f.ksp, st.pc = f.pc, st.rtol = f.ksp_rtol, st.atol = 1e-50, st.omega = 1, st.maxit = f.ksp_maxit;
    st.restart = f.restart;

    if ((rc = make_solver(ctx, &st, &ksp, &pc))) goto done;
  }
  res  = malloc(sizeof *res * (size_t)(f.steps + 1));
  cfls = malloc(sizeof *cfls * (size_t)(f.steps + 1));
  lits = malloc(sizeof *lits * (size_t)(f.steps + 1));
  if (!res || !cfls || !lits) {
    rc = fail("no memory for %d residuals", f.steps);
    goto done;
  }
  t0 = pds_wtime();
  for (int s = 0; s < f.steps; s++, nres++) {
    if (f.implicit) { /* switched evolution relaxation: the CFL number grows as the residual falls */
      pds_solver_result lin;

      cfls[s] = s == 0 ? f.cfl : fmin(f.cfl_max, f.cfl * res[0] / res[s - 1]);
      TRY("fv: an implicit step", pds_fv_step_implicit(fv, ksp, cfls[s], Q, R, &res[s], &lin));
      lits[s] = lin.iterations;
      if (f.monitor)
        printf("%5d FV residual norm %.12e cfl %.3e linear iterations %d\n", s, res[s], cfls[s], lits[s]);
    } else {
      cfls[s] = f.cfl, lits[s] = 0;
      TRY("fv: a step", pds_fv_step(fv, f.cfl, Q, R, &res[s]));
      if (f.monitor) printf("%5d FV residual norm %.12e\n", s, res[s]);
    }
    if (!isfinite(res[s])) {
      rc = fail("fv: the residual is %g at step %d (lower -cfl)", res[s], s);
      goto done;
    }
    if (f.tol > 0 && res[s] <= f.tol * res[0]) {
      nres++;
      break;
    }
  }
  tstep = nres ? (pds_wtime() - t0) / nres : 0;
  if ((rc = fv_output(ctx, m, &f, &in, Q, force))) goto done;
  {
    int total = 0;

    for (int s = 0; s < nres; s++) total += lits[s];
    printf("result: fv cells=%d faces=%d wall_faces=%d steps=%d rnorm0=%.6e rnorm=%.6e t_setup=%.4f t_step=%.6f "
           "force=(%.6e,%.6e,%.6e) implicit=%d linear_iterations=%d\n", (int)in.ncells, (int)in.nfaces,
           (int)in.nwall, nres, nres ? res[0] : 0.0, nres ? res[nres - 1] : 0.0, tsetup, tstep, force[0], force[1],
           force[2], (int)f.implicit, total);
  }
  if (f.json && (rc = fv_report(ctx, &f, backend, m, &in, res, lits, cfls, nres, tsetup, tstep, force))) goto done;
done:
  free(res), free(cfls), free(lits);
  pds_solver_destroy(&ksp), pds_precond_destroy(&pc);
  pds_vec_destroy(&Q), pds_vec_destroy(&R), pds_fv_destroy(&fv), pds_mesh3d_destroy(&m);
  pds_ctx_destroy(&ctx);
  return rc;
}
