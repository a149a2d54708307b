/* src/io/vtk.c: VTK XML unstructured grid (.vtu, ASCII): points, cells of one type, point fields (src/io/vtk.h). */
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

int pds_vtk_write_ugrid(pds_ctx ctx, const char *path, pds_size npoints, int dim, const pds_real *coords,
                        pds_size ncells, int nper, const pds_int *conn, int celltype, int nfields,
                        const char *const *names, const pds_real *const *values) {
  FILE *f;
  int   err = 0;

  PDS_CHECK(path, ctx, PDS_ERR_ARG, "path is NULL");
  PDS_CHECK(nfields >= 0, ctx, PDS_ERR_ARG, "nfields = %d is negative", nfields);
  PDS_CHECK(!nfields || (names && values), ctx, PDS_ERR_ARG, "%s is NULL while nfields = %d", names ? "values" : "names",
            nfields);
  for (int k = 0; k < nfields; k++) {
    PDS_CHECK(names[k] && names[k][0], ctx, PDS_ERR_ARG, "the name of field %d is NULL or empty", k);
    PDS_CHECK(values[k], ctx, PDS_ERR_ARG, "the values of field %d ('%s') are NULL", k, names[k]);
  }
  f = fopen(path, "w");
  if (!f) return PDS_ERROR(ctx, PDS_ERR_IO, "cannot open '%s' for writing: %s", path, strerror(errno));
  fprintf(f, "<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" byte_order=\"LittleEndian\" "
             "header_type=\"UInt64\">\n  <UnstructuredGrid>\n    <Piece NumberOfPoints=\"%" PDS_SIZE_FMT
             "\" NumberOfCells=\"%" PDS_SIZE_FMT "\">\n", npoints, ncells);
  if (nfields) {
    fputs("      <PointData Scalars=\"", f);
    vtk_attr(f, names[0]);
    fputs("\">\n", f);
    for (int k = 0; k < nfields && !ferror(f); k++) {
      fputs("        <DataArray type=\"Float64\" Name=\"", f);
      vtk_attr(f, names[k]);
      fputs("\" format=\"ascii\">\n", f);
      for (pds_size i = 0; i < npoints; i++) fprintf(f, "%.17g%c", values[k][i], i % 6 == 5 ? '\n' : ' ');
      fputs("\n        </DataArray>\n", f);
    }
    fputs("      </PointData>\n", f);
  }
  fputs("      <Points>\n        <DataArray type=\"Float64\" NumberOfComponents=\"3\" format=\"ascii\">\n", f);
  for (pds_size i = 0; i < npoints && !ferror(f); i++)
    if (dim == 2) fprintf(f, "%.17g %.17g 0\n", coords[2 * i], coords[2 * i + 1]);
    else fprintf(f, "%.17g %.17g %.17g\n", coords[3 * i], coords[3 * i + 1], coords[3 * i + 2]);
  fputs("        </DataArray>\n      </Points>\n      <Cells>\n"
        "        <DataArray type=\"Int64\" Name=\"connectivity\" format=\"ascii\">\n", f);
  for (pds_size e = 0; e < ncells && !ferror(f); e++)
    for (int v = 0; v < nper; v++) fprintf(f, "%" PDS_INT_FMT "%c", conn[e * nper + v], v + 1 == nper ? '\n' : ' ');
  fputs("        </DataArray>\n        <DataArray type=\"Int64\" Name=\"offsets\" format=\"ascii\">\n", f);
  for (pds_size e = 0; e < ncells && !ferror(f); e++)
    fprintf(f, "%" PDS_SIZE_FMT "%c", (pds_size)nper * (e + 1), e % 10 == 9 ? '\n' : ' ');
  fputs("\n        </DataArray>\n        <DataArray type=\"UInt8\" Name=\"types\" format=\"ascii\">\n", f);
  for (pds_size e = 0; e < ncells && !ferror(f); e++) fprintf(f, "%d%c", celltype, e % 20 == 19 ? '\n' : ' ');
  fputs("\n        </DataArray>\n      </Cells>\n    </Piece>\n  </UnstructuredGrid>\n</VTKFile>\n", f);
  errno = 0;
  if (ferror(f)) err = errno ? errno : -1;
  if (fclose(f) && !err) err = errno ? errno : -1;
  if (err) return PDS_ERROR(ctx, PDS_ERR_IO, "cannot write '%s': %s", path, err > 0 ? strerror(err) : "write error");
  return PDS_OK;
}
