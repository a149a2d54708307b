/* apps/pdesolve/problem_sem.c: the spectral-element problem family of the driver (-problem sem -elements EX [EY EZ]
 * -order N [-deform D], or -mesh F.msh for a Gmsh hexahedral mesh, or for any mesh cut into hexahedra with
 * -subdivide): -lap u = f on the unit cube (or the mesh's domain) on hexahedra with N + 1 Gauss-Lobatto-Legendre
 * points per direction (pds_problem_sem, pds_problem_sem_mesh, paper 003), affine or smoothly deformed, with its
 * manufactured solution. Its flags and the build of A (the matrix-free sem operator), b and u, and the -vtk output of
 * the solution. Used by solve. */
#include <stdlib.h>
#include <string.h>

#include "pdesolve_app.h"

#define SEM_MAX_ELEMENTS (1 << 16) /* elements along one direction */

int read_sem_flags(pds_options o, const char *cmdname, sem_flags *sf) {
  static const int one[1] = {4};

  memset(sf, 0, sizeof *sf);
  pds_options_begin_section(o, "sem (-problem sem -elements EX [EY EZ] -order N: spectral elements, paper 003):");
  OPT(o, pds_options_get_int_list(o, "-elements", 1, one, 3, 1, SEM_MAX_ELEMENTS,
                                  "elements along x [y z] of the unit cube (missing ones repeat the last)",
                                  sf->elements, &sf->nel, &sf->el_set));
  OPT(o, pds_options_get_int(o, "-order", 7, 1, 13, "polynomial order (order + 1 GLL points per direction)",
                             &sf->order, &sf->order_set));
  OPT(o, pds_options_get_real(o, "-deform", 0, -0.106, 0.106,
                              "smooth deformation of the cube x = xi + D sin(pi xi_x) sin(pi xi_y) sin(pi xi_z) "
                              "(1, 1, 1): full geometric factors (|D| < 0.106 keeps every element valid)",
                              &sf->deform, &sf->deform_set));
  OPT(o, pds_options_get_bool(o, "-subdivide", false,
                              "with -mesh: cut every cell into hexahedra first (a tetrahedron into 4, a prism into 6, "
                              "a hexahedron into 8), so tetrahedral and hybrid meshes can be used",
                              &sf->subdivide, NULL));
  return EXIT_DONE;
}

/* -elements, -order and -deform need -problem sem, which takes its size from them (or from -n), or its mesh from
   -mesh (then not -elements, -n nor -deform). */
int check_sem_flags(pds_options o, const char *problem, const int *dims, int ndims, const char *mesh, sem_flags *sf,
                    bool *on) {
  (void)o;
  *on = problem && !strcmp(problem, "sem");
  sf->mesh = *on ? mesh : NULL;
  if (sf->mesh && (sf->el_set || ndims > 0 || sf->deform_set))
    return fail("flag -mesh gives -problem sem its elements: not with %s", sf->el_set ? "-elements"
                                                                        : ndims > 0  ? "-n"
                                                                                     : "-deform");
  if (sf->mesh) return EXIT_DONE;
  if (sf->subdivide) return fail("flag -subdivide needs -problem sem -mesh F.msh");
  if (!*on) {
    if (sf->el_set || sf->order_set || sf->deform_set)
      return fail("flag %s is only used with -problem sem", sf->el_set ? "-elements" : sf->order_set ? "-order"
                                                                                                      : "-deform");
    return EXIT_DONE;
  }
  if (sf->el_set && ndims > 0) return fail("flags -elements and -n exclude each other with -problem sem");
  if (!sf->el_set && ndims > 0) /* -n EX [EY EZ]: the elements */
    for (int a = 0; a < ndims && a < 3; a++) sf->elements[a] = dims[a], sf->nel = ndims < 3 ? ndims : 3;
  for (int a = sf->nel; a < 3; a++) sf->elements[a] = sf->elements[sf->nel - 1];
  return EXIT_DONE;
}

/* the hexahedral mesh of -mesh: as read, or cut into hexahedra (-subdivide); a mesh with other cells and no
   -subdivide is an error that names the flag */
static int sem_read_mesh(pds_ctx ctx, const sem_flags *sf, pds_mesh3d *m) {
  pds_mesh3d h = NULL;
  pds_int    ncell = 0, nhex = 0;
  int        rc = EXIT_DONE;
  char       what[4200];

  snprintf(what, sizeof what, "flag -mesh: cannot read '%s'", sf->mesh);
  TRY(what, pds_mesh3d_read_gmsh(ctx, sf->mesh, m));
  if (sf->subdivide) {
    snprintf(what, sizeof what, "flag -subdivide: cannot cut '%s' into hexahedra", sf->mesh);
    TRY(what, pds_mesh3d_subdivide_hex(*m, &h));
    pds_mesh3d_destroy(m);
    *m = h;
    return EXIT_DONE;
  }
  TRY(what, pds_mesh3d_count(*m, 0, &ncell));
  TRY(what, pds_mesh3d_count(*m, PDS_CELL_HEX, &nhex));
  if (nhex < ncell) {
    rc = fail("flag -problem sem -mesh: '%s' has %lld cells that are not hexahedra (of %lld); spectral elements need "
              "hexahedra: add -subdivide to cut them into hexahedra first",
              sf->mesh, (long long)(ncell - nhex), (long long)ncell);
    pds_mesh3d_destroy(m);
  }
done:
  return rc;
}

int sem_build(pds_ctx ctx, const sem_flags *sf, const char *partition, pds_problem *p) {
  const pds_int el[3] = {sf->elements[0], sf->elements[1], sf->elements[2]};
  const int     dist  = pds_ctx_get_size(ctx) > 1;
  pds_mesh3d    m     = NULL;
  int           rc    = EXIT_DONE;

  if (sf->mesh) { /* over the ranks, one that cannot read the mesh still joins the collective build with none: all fail */
    const int read = sem_read_mesh(ctx, sf, &m);

    if (read && !dist) return read;
    TRY("flag -problem sem -mesh", dist ? pds_problem_sem_mesh_dist(ctx, m, sf->order, partition, p)
                                        : pds_problem_sem_mesh(ctx, m, sf->order, p));
    rc = read;
  } else
    TRY("flag -problem sem", dist ? pds_problem_sem_dist(ctx, el, sf->order, sf->deform, partition, p)
                                  : pds_problem_sem(ctx, el, sf->order, sf->deform, p));
  if (dist)
    snprintf(p->description + strlen(p->description), sizeof p->description - strlen(p->description),
             " (matrix-free over the ranks: mpisem)");
done:
  pds_mesh3d_destroy(&m);
  return rc;
}

int sem_write_vtk(pds_ctx ctx, const sem_flags *sf, const char *path, pds_vec x, pds_vec u) {
  const pds_int   el[3] = {sf->elements[0], sf->elements[1], sf->elements[2]};
  pds_sem         S = NULL;
  pds_size        n = 0;
  double         *hx = NULL, *hu = NULL, *he = NULL;
  const char     *names[3] = {"solution", "exact", "error"};
  int             rc = EXIT_DONE;
  char            what[4200];

  snprintf(what, sizeof what, "flag -vtk: cannot write '%s'", path);
  if (sf->mesh) {
    pds_mesh3d m = NULL;

    if ((rc = sem_read_mesh(ctx, sf, &m))) goto done;
    const int ie = pds_sem_create_mesh(ctx, m, sf->order, &S);

    pds_mesh3d_destroy(&m);
    if (ie) {
      rc = fail_lib(ctx, ie, what);
      goto done;
    }
  } else TRY(what, pds_sem_create_box(ctx, el, sf->order, sf->deform, &S));
  TRY(what, pds_vec_get_size(x, &n));
  hx = malloc(n * sizeof *hx), hu = malloc(n * sizeof *hu), he = malloc(n * sizeof *he);
  if (!hx || !hu || !he) {
    rc = fail("flag -vtk: no memory for %zu values", (size_t)n);
    goto done;
  }
  TRY(what, pds_vec_get_values(x, hx, PDS_MEM_HOST));
  if (u) {
    TRY(what, pds_vec_get_values(u, hu, PDS_MEM_HOST));
    for (pds_size i = 0; i < n; i++) he[i] = hx[i] - hu[i];
  }
  {
    const pds_real *vals[3] = {hx, hu, he};

    TRY(what, pds_sem_write_vtk(S, path, u ? 3 : 1, names, vals));
  }
done:
  free(hx), free(hu), free(he);
  pds_sem_destroy(&S);
  return rc;
}
