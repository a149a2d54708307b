/* src/gen/fem2d.c: generator "fem2d": paper 004's model problem (-lap u = 10 on the unit square, u = 10 on the
 * boundary) with P1 triangles on a generated unstructured mesh of about dims[0] nodes (seed 1), Dirichlet rows
 * as in the paper (nonsymmetric: bicgstab); u_exact = the Fourier-series solution at the nodes. The richer
 * pds_fem2d_* API (src/disc/fem2d.c) gives the other domains, problems and the symmetric Dirichlet form. */
#include "gen_impl.h"

int pds_problem_create_fem2d(pds_ctx ctx, const pds_int *dims, pds_problem *p) {
  pds_mesh  mesh = NULL;
  pds_fem2d fem  = NULL;
  pds_int   nn, nt, nb;
  int       ierr;

  PDS_CALL_GOTO(ierr, done, pds_mesh_generate(ctx, "square", dims[0], 1, &mesh));
  PDS_CALL_GOTO(ierr, done, pds_fem2d_create(ctx, mesh, &fem));
  PDS_CALL_GOTO(ierr, done, pds_fem2d_assemble(fem, PDS_DIRICHLET_ROW, &p->A, &p->b));
  PDS_CALL_GOTO(ierr, done, pds_fem2d_exact(fem, &p->u_exact));
  PDS_CALL_GOTO(ierr, done, pds_mesh_get_sizes(mesh, &nn, &nt, &nb));
  snprintf(p->description, sizeof p->description,
           "fem2d paper: -lap u = 10 on (0,1)^2, u = 10 on the boundary; P1, %" PDS_INT_FMT " nodes, %" PDS_INT_FMT
           " triangles, Dirichlet rows", nn, nt);
done:
  pds_fem2d_destroy(&fem);
  pds_mesh_destroy(&mesh);
  return ierr;
}
