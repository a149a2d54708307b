/* src/mesh/vtk.c: VTK XML unstructured grid (.vtu, ASCII) of a triangle mesh: points (z = 0), cells (type 5), fields. */
#include <errno.h>
#include <stdio.h>

#include "mesh_impl.h"

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

int pds_mesh_write_vtk(pds_mesh m, const char *path, int nfields, const char *const *names,
                       const pds_real *const *values) {
  pds_ctx ctx;
  FILE   *f;
  int     err = 0;

  PDS_VALID(m, PDS_CLASSID_MESH, "mesh");
  ctx = m->hdr.ctx;
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
             "header_type=\"UInt64\">\n  <UnstructuredGrid>\n    <Piece NumberOfPoints=\"%" PDS_INT_FMT
             "\" NumberOfCells=\"%" PDS_INT_FMT "\">\n", m->nnodes, m->ntri);
  if (nfields) {
    fputs("      <PointData Scalars=\"", f);
    vtk_attr(f, names[0]);
    fputs("\">\n", f);
    for (int k = 0; k < nfields && !ferror(f); k++) {
      fputs("        <DataArray type=\"Float64\" Name=\"", f);
      vtk_attr(f, names[k]);
      fputs("\" format=\"ascii\">\n", f);
      for (pds_int i = 0; i < m->nnodes; i++) fprintf(f, "%.17g%c", values[k][i], i % 6 == 5 ? '\n' : ' ');
      fputs("\n        </DataArray>\n", f);
    }
    fputs("      </PointData>\n", f);
  }
  fputs("      <Points>\n        <DataArray type=\"Float64\" NumberOfComponents=\"3\" format=\"ascii\">\n", f);
  for (pds_int i = 0; i < m->nnodes && !ferror(f); i++) fprintf(f, "%.17g %.17g 0\n", m->xy[2 * i], m->xy[2 * i + 1]);
  fputs("        </DataArray>\n      </Points>\n      <Cells>\n"
        "        <DataArray type=\"Int64\" Name=\"connectivity\" format=\"ascii\">\n", f);
  for (pds_int e = 0; e < m->ntri && !ferror(f); e++)
    fprintf(f, "%" PDS_INT_FMT " %" PDS_INT_FMT " %" PDS_INT_FMT "\n", m->tri[3 * e], m->tri[3 * e + 1],
            m->tri[3 * e + 2]);
  fputs("        </DataArray>\n        <DataArray type=\"Int64\" Name=\"offsets\" format=\"ascii\">\n", f);
  for (pds_int e = 0; e < m->ntri && !ferror(f); e++)
    fprintf(f, "%" PDS_SIZE_FMT "%c", 3 * (pds_size)(e + 1), e % 10 == 9 ? '\n' : ' ');
  fputs("\n        </DataArray>\n        <DataArray type=\"UInt8\" Name=\"types\" format=\"ascii\">\n", f);
  for (pds_int e = 0; e < m->ntri && !ferror(f); e++) fputs(e % 20 == 19 ? "5\n" : "5 ", f);
  fputs("\n        </DataArray>\n      </Cells>\n    </Piece>\n  </UnstructuredGrid>\n</VTKFile>\n", f);
  errno = 0;
  if (ferror(f)) err = errno ? errno : -1;
  if (fclose(f) && !err) err = errno ? errno : -1;
  if (err) return PDS_ERROR(ctx, PDS_ERR_IO, "cannot write '%s': %s", path, err > 0 ? strerror(err) : "write error");
  return PDS_OK;
}
