/* src/io/vtk.h: the one VTK writer of pdesolve (src/io/vtk.c): an XML unstructured grid (.vtu, ASCII) with point and
 * cell fields, for the meshes' and the discretizations' outputs (pds_mesh_write_vtk, pds_sem_write_vtk,
 * pds_mesh3d_write_vtk). */
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

/* The general form: cells of one type (cell_ptr NULL: nper points each, type celltype) or of several (cell_ptr[c] ..
   cell_ptr[c + 1] in conn, VTK type celltypes[c]: 10 tetrahedron, 12 hexahedron, 13 wedge, 14 pyramid, ...), point
   fields (npoints values each) and cell fields (ncells values each). The same checks and errors as above. */
typedef struct {
  pds_size             npoints;
  int                  dim; /* 2 or 3 */
  const pds_real      *coords;
  pds_size             ncells;
  int                  nper, celltype;
  const pds_size      *cell_ptr;
  const unsigned char *celltypes;
  const pds_int       *conn;
  int                  npfields, ncfields;
  const char *const   *pnames, *const *cnames;
  const pds_real *const *pvalues, *const *cvalues;
} pds_vtk_grid;
PDS_INTERN int pds_vtk_write(pds_ctx ctx, const char *path, const pds_vtk_grid *g);

#endif
