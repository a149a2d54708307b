/* src/mesh/vtk.c: VTK XML unstructured grids (.vtu, ASCII) of the meshes, through the one VTK writer (src/io/vtk.c):
 * a triangle mesh (points with z = 0, cells of type 5, point fields) and a 3D hybrid mesh (its cells as VTK
 * tetrahedra 10, pyramids 14, wedges 13 and hexahedra 12, cell fields). */
#include "../io/vtk.h"
#include "mesh3d_impl.h"

int pds_mesh_write_vtk(pds_mesh m, const char *path, int nfields, const char *const *names,
                       const pds_real *const *values) {
  PDS_VALID(m, PDS_CLASSID_MESH, "mesh");
  return pds_vtk_write_ugrid(m->hdr.ctx, path, (pds_size)m->nnodes, 2, m->xy, (pds_size)m->ntri, 3, m->tri, 5, nfields, names,
                             values);
}

/* VTK's cell types and vertex orders from Gmsh's (the same, but a wedge's first triangle faces away from the second in
   VTK and towards it in Gmsh: 0 2 1 3 5 4) */
int pds_mesh3d_write_vtk(pds_mesh3d m, const char *path, int nfields, const char *const *names,
                         const pds_real *const *values) {
  pds_ctx        ctx;
  unsigned char *types = NULL;
  pds_int       *conn = NULL;
  int            ierr;

  PDS_VALID(m, PDS_CLASSID_MESH3D, "mesh3d");
  ctx = m->hdr.ctx;
  PDS_CALL(PDS_NEW(ctx, (size_t)m->ncells + 1, &types));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)m->cell_ptr[m->ncells] + 1, &conn));
  for (pds_int c = 0; c < m->ncells; c++) {
    static const int wedge[6] = {0, 2, 1, 3, 5, 4};
    const pds_size   b = m->cell_ptr[c];
    const int        t = m->cell_type[c];

    types[c] = t == PDS_CELL_TET ? 10 : t == PDS_CELL_PYRAMID ? 14 : t == PDS_CELL_PRISM ? 13 : 12;
    for (int v = 0; v < t; v++) conn[b + v] = m->cell_nodes[b + (t == PDS_CELL_PRISM ? wedge[v] : v)];
  }
  {
    const pds_vtk_grid g = {(pds_size)m->nnodes, 3,    m->xyz, (pds_size)m->ncells, 0, 0,
                            m->cell_ptr,         types, conn,                     0,                   nfields,
                            NULL,                names, NULL,                     values};

    ierr = pds_vtk_write(ctx, path, &g);
  }
done:
  pds_free(ctx, PDS_MEM_HOST, &types), pds_free(ctx, PDS_MEM_HOST, &conn);
  return ierr;
}
