/* apps/pdesolve/problem_fem2d.c: the fem2d problem family of the driver (-problem fem2d, or -mesh alone): P1
 * finite elements on a generated or Gmsh mesh. Its flags and their checks, the build of mesh, A, b and the exact
 * solution (fem_build, which prints the mesh and assembly lines), and after the solve the errors and the VTK file
 * (fem_finish); used by solve and gen. */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pdesolve_app.h"

static const char *const fem_domains[]   = {"square", "hole"};
static const char *const fem_problems[]  = {"paper", "manufactured"};
static const char *const fem_dirichlet[] = {"row", "symmetric"};

/* The fem2d flags (solve and gen; -vtk is solve's, which sets fo->vtk). */
int read_fem_flags(pds_options o, const char *cmdname, fem_opts *fo) {
  memset(fo, 0, sizeof *fo);
  pds_options_begin_section(o, "fem2d (P1 triangles; with -problem fem2d, or -mesh alone):");
  OPT(o, pds_options_get_int(o, "-nodes", 0, 0, 1 << 30,
                             "about this many nodes of a generated mesh (within 5%; required unless -mesh)", &fo->nodes,
                             NULL));
  OPT(o, pds_options_get_choice(o, "-domain", "square", fem_domains, NELEM(fem_domains),
                                "generated domain: square (unit square) or hole ([0,2]x[0,1] minus a disc)",
                                &fo->domain, NULL));
  OPT(o, pds_options_get_int(o, "-seed", 1, 0, INT_MAX, "seed of the mesh generator", &fo->seed, NULL));
  OPT(o, pds_options_get_string(o, "-mesh", NULL, "<file.msh> Gmsh mesh (2.2 or 4.1) instead of a generated one (triangles; -problem sem: hexahedra)",
                                &fo->mesh, NULL));
  OPT(o, pds_options_get_bool(o, "-rcm", false, "renumber the nodes by reverse Cuthill-McKee first", &fo->rcm, NULL));
  OPT(o, pds_options_get_choice(o, "-fem", "paper", fem_problems, NELEM(fem_problems),
                                "problem: paper (-lap u = 10, u = 10 on the unit square; exact by Fourier series) or "
                                "manufactured (u = sin(pi x) cos(pi y) + x^2 y, any domain)", &fo->fem, NULL));
  OPT(o, pds_options_get_choice(o, "-dirichlet", "row", fem_dirichlet, NELEM(fem_dirichlet),
                                "boundary rows: row (the paper's e_i^T rows, nonsymmetric) or symmetric (columns "
                                "moved to b too: SPD, for cg)", &fo->dirichlet, NULL));
  return EXIT_DONE;
}

/* Flag consistency once the command line is read: fem2d is on with -problem fem2d or -mesh. */
int check_fem_flags(pds_options o, const fem_opts *fo, const char **problem, int ndims, bool *on) {
  static const char *const only[] = {"-nodes", "-domain", "-seed", "-rcm", "-fem", "-dirichlet"};

  if (fo->mesh && !*problem) *problem = "fem2d";
  *on = *problem && !strcmp(*problem, "fem2d");
  if (!*on) {
    for (int i = 0; i < NELEM(only); i++)
      if (pds_options_has(o, only[i])) return fail("flag %s is only used with -problem fem2d (or -mesh)", only[i]);
    if (fo->mesh && strcmp(*problem, "sem")) return fail("flag -mesh is only used with -problem fem2d or sem");
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
int fem_build(pds_ctx ctx, const fem_opts *fo, pds_mesh *mesh, pds_fem2d *fem, pds_mat *A, pds_vec *b,
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
int fem_finish(pds_ctx ctx, const fem_opts *fo, pds_mesh mesh, pds_fem2d fem, pds_vec x, pds_vec u,
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
