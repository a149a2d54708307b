/* src/io/vtk.c: VTK XML unstructured grid (.vtu, ASCII): points, cells of one or several types, point and cell fields
 * (src/io/vtk.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "vtk.h"

/* name with the XML special characters escaped, for an attribute value */
static void vtk_attr(FILE *f, const char *s) {
  for (; *s; s++) switch (*s) {
    case '&': fputs("&amp;", f); break;
    case '<': fputs("&lt;", f); break;
    case '>': fputs("&gt;", f); break;
    case '"': fputs("&quot;", f); break;
    case '\'': fputs("&apos;", f); break;
    default: fputc(*s, f);
    }
}

/* the fields' checks (what: "" for the point fields, "cell " for the cell fields) */
static int vtk_check_fields(pds_ctx ctx, const char *what, int n, const char *const *names,
                            const pds_real *const *values) {
  PDS_CHECK(n >= 0, ctx, PDS_ERR_ARG, "%snfields = %d is negative", what, n);
  PDS_CHECK(!n || (names && values), ctx, PDS_ERR_ARG, "%s%s is NULL while nfields = %d", what,
            names ? "values" : "names", n);
  for (int k = 0; k < n; k++) {
    PDS_CHECK(names[k] && names[k][0], ctx, PDS_ERR_ARG, "the name of %sfield %d is NULL or empty", what, k);
    PDS_CHECK(values[k], ctx, PDS_ERR_ARG, "the values of %sfield %d ('%s') are NULL", what, k, names[k]);
  }
  return PDS_OK;
}

/* a PointData or CellData section of n fields of len values each */
static void vtk_fields(FILE *f, const char *tag, int n, const char *const *names, const pds_real *const *values,
                       pds_size len) {
  if (!n) return;
  fprintf(f, "      <%s Scalars=\"", tag);
  vtk_attr(f, names[0]);
  fputs("\">\n", f);
  for (int k = 0; k < n && !ferror(f); k++) {
    fputs("        <DataArray type=\"Float64\" Name=\"", f);
    vtk_attr(f, names[k]);
    fputs("\" format=\"ascii\">\n", f);
    for (pds_size i = 0; i < len; i++) fprintf(f, "%.17g%c", values[k][i], i % 6 == 5 ? '\n' : ' ');
    fputs("\n        </DataArray>\n", f);
  }
  fprintf(f, "      </%s>\n", tag);
}

int pds_vtk_write(pds_ctx ctx, const char *path, const pds_vtk_grid *g) {
  FILE *f;
  int   err = 0;

  PDS_CHECK(path, ctx, PDS_ERR_ARG, "path is NULL");
  PDS_CALL(vtk_check_fields(ctx, "", g->npfields, g->pnames, g->pvalues));
  PDS_CALL(vtk_check_fields(ctx, "cell ", g->ncfields, g->cnames, g->cvalues));
  f = fopen(path, "w");
  if (!f) return PDS_ERROR(ctx, PDS_ERR_IO, "cannot open '%s' for writing: %s", path, strerror(errno));
  fprintf(f, "<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" byte_order=\"LittleEndian\" "
             "header_type=\"UInt64\">\n  <UnstructuredGrid>\n    <Piece NumberOfPoints=\"%" PDS_SIZE_FMT
             "\" NumberOfCells=\"%" PDS_SIZE_FMT "\">\n", g->npoints, g->ncells);
  vtk_fields(f, "PointData", g->npfields, g->pnames, g->pvalues, g->npoints);
  vtk_fields(f, "CellData", g->ncfields, g->cnames, g->cvalues, g->ncells);
  fputs("      <Points>\n        <DataArray type=\"Float64\" NumberOfComponents=\"3\" format=\"ascii\">\n", f);
  for (pds_size i = 0; i < g->npoints && !ferror(f); i++)
    if (g->dim == 2) fprintf(f, "%.17g %.17g 0\n", g->coords[2 * i], g->coords[2 * i + 1]);
    else fprintf(f, "%.17g %.17g %.17g\n", g->coords[3 * i], g->coords[3 * i + 1], g->coords[3 * i + 2]);
  fputs("        </DataArray>\n      </Points>\n      <Cells>\n"
        "        <DataArray type=\"Int64\" Name=\"connectivity\" format=\"ascii\">\n", f);
  for (pds_size e = 0; e < g->ncells && !ferror(f); e++) {
    const pds_size b = g->cell_ptr ? g->cell_ptr[e] : e * (pds_size)g->nper;
    const pds_size n = g->cell_ptr ? g->cell_ptr[e + 1] - b : (pds_size)g->nper;

    for (pds_size v = 0; v < n; v++) fprintf(f, "%" PDS_INT_FMT "%c", g->conn[b + v], v + 1 == n ? '\n' : ' ');
  }
  fputs("        </DataArray>\n        <DataArray type=\"Int64\" Name=\"offsets\" format=\"ascii\">\n", f);
  for (pds_size e = 0; e < g->ncells && !ferror(f); e++)
    fprintf(f, "%" PDS_SIZE_FMT "%c", g->cell_ptr ? g->cell_ptr[e + 1] : (pds_size)g->nper * (e + 1),
            e % 10 == 9 ? '\n' : ' ');
  fputs("\n        </DataArray>\n        <DataArray type=\"UInt8\" Name=\"types\" format=\"ascii\">\n", f);
  for (pds_size e = 0; e < g->ncells && !ferror(f); e++)
    fprintf(f, "%d%c", g->celltypes ? g->celltypes[e] : g->celltype, e % 20 == 19 ? '\n' : ' ');
  fputs("\n        </DataArray>\n      </Cells>\n    </Piece>\n  </UnstructuredGrid>\n</VTKFile>\n", f);
  errno = 0;
  if (ferror(f)) err = errno ? errno : -1;
  if (fclose(f) && !err) err = errno ? errno : -1;
  if (err) return PDS_ERROR(ctx, PDS_ERR_IO, "cannot write '%s': %s", path, err > 0 ? strerror(err) : "write error");
  return PDS_OK;
}

int pds_vtk_write_ugrid(pds_ctx ctx, const char *path, pds_size npoints, int dim, const pds_real *coords,
                        pds_size ncells, int nper, const pds_int *conn, int celltype, int nfields,
                        const char *const *names, const pds_real *const *values) {
  const pds_vtk_grid g = {npoints, dim,  coords, ncells, nper,    celltype, NULL, NULL,
                          conn,    nfields, 0,   names,  NULL,    values,   NULL};

  return pds_vtk_write(ctx, path, &g);
}
