/* apps/pdesolve/cmd_fv.c: `pdesolve fv`: paper 001's finite-volume Euler flow on a 3D hybrid mesh: the built-in sphere
 * in a box (-problem sphere -cells N; the sphere a wall, the box free stream) or any Gmsh mesh (-mesh F.msh -wall
 * TAGS: the boundary groups named are walls, all other boundary faces free stream), explicit steps with a local time
 * step, first or second order (-order 2: paper 001's quadratic reconstruction), from the free stream (-init uniform) or a smooth 1% density bump on it (-init bump), the residual of every step
 * (-monitor, and `residuals` in the -json report), the pressure force on the walls, and the cells with their states in
 * VTK (-vtk). Output: one line "result: fv cells=... faces=... wall_faces=... steps=... rnorm0=... rnorm=...
 * t_setup=... t_step=... force=(fx,fy,fz)". */
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
  double      radius, box, mach, alpha, cfl;
  bool        monitor, wall_set;
} fv_flags;

/* the flags; EXIT_ERROR with a message for bad ones */
static int read_fv_flags(pds_options o, const char *cmdname, fv_flags *f, char *backend, size_t blen) {
  static const int one[1] = {1};

  memset(f, 0, sizeof *f);
  pds_options_begin_section(o, "flags:");
  OPT(o, pds_options_get_choice(o, "-problem", NULL, fv_problems, NELEM(fv_problems),
                                "built-in mesh: sphere (a sphere in a box of tetrahedra, pyramids, prisms and "
                                "hexahedra; the default without -mesh)", &f->problem, NULL));
  OPT(o, pds_options_get_string(o, "-mesh", NULL, "<file.msh> Gmsh 3D mesh (2.2 or 4.1) instead of the sphere",
                                &f->mesh, NULL));
  OPT(o, pds_options_get_int(o, "-cells", 20000, 432, 50000000, "about this many cells of -problem sphere",
                             &f->cells, NULL));
  OPT(o, pds_options_get_real(o, "-radius", 0.5, 1e-6, 1e6, "the sphere's radius", &f->radius, NULL));
  OPT(o, pds_options_get_real(o, "-box", 5.0, 1e-6, 1e6, "the box's half width (more than twice the radius)",
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
  OPT(o, pds_options_get_int(o, "-steps", 100, 0, 100000000, "explicit steps", &f->steps, NULL));
  OPT(o, pds_options_get_real(o, "-cfl", 0.9, 1e-6, 100, "CFL number of the local time step", &f->cfl, NULL));
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
                     const double *res, int nres, double tsetup, double tstep, const double force[3]) {
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
  double       *res = NULL, t0, tsetup, tstep = 0, force[3] = {0, 0, 0};
  int           rc  = EXIT_DONE;

  if (read_fv_flags(o, cmdname, &f, backend, sizeof backend)) return EXIT_ERROR;
  if (pds_options_help(o)) {
    printf("usage: pdesolve fv [-problem sphere -cells N | -mesh F.msh -wall TAGS] [-order 1|2] [-mach M]\n"
           "                   [-steps N] [-cfl C] [-init uniform|bump] [-json r.json] [-vtk out.vtu] [flags]\n"
           "  Paper 001's finite-volume Euler flow (Roe fluxes in three stages; -order 2: the quadratic\n"
           "  least-squares reconstruction) by explicit steps with a\n"
           "  local time step on a 3D hybrid mesh; the residual of every step, the pressure force on the walls.\n");
    pds_options_print_help(o, stdout);
    return EXIT_DONE;
  }
  OPT(o, pds_options_check_unused(o));
  if (f.problem && f.mesh) return fail("flags -problem and -mesh exclude each other");
  if (f.mesh && !f.wall_set) f.nwall = 0; /* a Gmsh mesh: walls only where -wall names them */
  if (!f.mesh && !(f.radius < f.box / 2)) return fail("flag -radius %g: less than half of -box %g", f.radius, f.box);
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
  res = malloc(sizeof *res * (size_t)(f.steps + 1));
  if (!res) {
    rc = fail("no memory for %d residuals", f.steps);
    goto done;
  }
  t0 = pds_wtime();
  for (int s = 0; s < f.steps; s++) {
    TRY("fv: a step", pds_fv_step(fv, f.cfl, Q, R, &res[s]));
    if (f.monitor) printf("%5d FV residual norm %.12e\n", s, res[s]);
    if (!isfinite(res[s])) {
      rc = fail("fv: the residual is %g at step %d (lower -cfl)", res[s], s);
      goto done;
    }
  }
  tstep = f.steps ? (pds_wtime() - t0) / f.steps : 0;
  if ((rc = fv_output(ctx, m, &f, &in, Q, force))) goto done;
  printf("result: fv cells=%d faces=%d wall_faces=%d steps=%d rnorm0=%.6e rnorm=%.6e t_setup=%.4f t_step=%.6f "
         "force=(%.6e,%.6e,%.6e)\n", (int)in.ncells, (int)in.nfaces, (int)in.nwall, f.steps,
         f.steps ? res[0] : 0.0, f.steps ? res[f.steps - 1] : 0.0, tsetup, tstep, force[0], force[1], force[2]);
  if (f.json && (rc = fv_report(ctx, &f, backend, m, &in, res, f.steps, tsetup, tstep, force))) goto done;
done:
  free(res);
  pds_vec_destroy(&Q), pds_vec_destroy(&R), pds_fv_destroy(&fv), pds_mesh3d_destroy(&m);
  pds_ctx_destroy(&ctx);
  return rc;
}
