/* src/io/vtk.h: the one VTK writer of pdesolve (src/io/vtk.c): an XML unstructured grid (.vtu, ASCII) with point
 * fields, for the meshes' and the discretizations' outputs (pds_mesh_write_vtk, pds_sem_write_vtk). */
#ifndef PDS_IO_VTK_H
#define PDS_IO_VTK_H

#include "../sys/sys_impl.h"

/* npoints points of dim = 2 (z written as 0) or 3 coordinates each (coords, point after point); ncells cells of nper
   points each (conn, cell after cell, 0-based) of VTK cell type celltype (5 triangle, 12 hexahedron); nfields point
   fields names[k] -> values[k][npoints]. PDS_ERR_ARG for a NULL path, a negative field count, a field without a
   name or values (the geometry is the caller's to check); PDS_ERR_IO for a file that cannot be written. */
PDS_INTERN int pds_vtk_write_ugrid(pds_ctx ctx, const char *path, pds_size npoints, int dim, const pds_real *coords,
                                   pds_size ncells, int nper, const pds_int *conn, int celltype, int nfields,
                                   const char *const *names, const pds_real *const *values);

#endif
