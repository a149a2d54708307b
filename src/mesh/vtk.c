/* src/mesh/vtk.c: VTK XML unstructured grid (.vtu, ASCII) of a triangle mesh: points (z = 0), cells (type 5), fields,
 * through the one VTK writer (src/io/vtk.c). */
#include "../io/vtk.h"
#include "mesh_impl.h"

int pds_mesh_write_vtk(pds_mesh m, const char *path, int nfields, const char *const *names,
                       const pds_real *const *values) {
  PDS_VALID(m, PDS_CLASSID_MESH, "mesh");
  return pds_vtk_write_ugrid(m->hdr.ctx, path, (pds_size)m->nnodes, 2, m->xy, (pds_size)m->ntri, 3, m->tri, 5, nfields, names,
                             values);
}
