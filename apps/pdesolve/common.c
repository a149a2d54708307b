/* apps/pdesolve/common.c: what the commands of the pdesolve driver share: the error messages (fail, fail_lib: to
 * stderr as "pdesolve: error: ...") and the shared flag groups (-backend, -problem/-n, -format) with the context,
 * matrix and vector readers that go with them. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "pdesolve_app.h"

/* ---- messages -------------------------------------------------------------------------------------- */

int fail(const char *fmt, ...) {
  va_list ap;

  fprintf(stderr, "pdesolve: error: ");
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\n");
  return EXIT_ERROR;
}

/* A library call failed: say what we were doing and the library's message. */
int fail_lib(pds_ctx ctx, int ierr, const char *what) {
  const char *msg = ctx ? pds_ctx_get_error(ctx) : "";

  fail("%s: %s", what, msg && msg[0] ? msg : pds_error_name(ierr));
  if (ctx) pds_ctx_clear_error(ctx);
  return EXIT_ERROR;
}

/* ---- shared flag groups ---------------------------------------------------------------------------- */

const char *const format_names[] = {"csr", "bsr", "stencil7"};

/* -backend: "auto", a backend name of the library (with ":options"), or its short form ref/omp/cuda. */
int read_backend(pds_options o, const char *cmdname, char *out, size_t len) {
  const char *be;
  char        known[160] = "auto";
  int         ok;

  for (int i = 0; i < pds_backend_count(); i++) {
    size_t l = strlen(known);

    snprintf(known + l, sizeof known - l, ", %s%s", pds_backend_name(i),
             pds_backend_compiled(i) ? "" : " (not compiled)");
  }
  OPT(o, pds_options_get_string(o, "-backend", "auto",
                                "<name> where to run: auto (GPU if present, else OpenMP, else ref), /cpu/ref, "
                                "/cpu/omp, /gpu/cuda[:device=N]; ref, omp, cuda are short forms",
                                &be, NULL));
  if (!strcmp(be, "ref") || !strcmp(be, "omp")) snprintf(out, len, "/cpu/%s", be);
  else if (!strncmp(be, "cuda", 4) && (be[4] == '\0' || be[4] == ':')) snprintf(out, len, "/gpu/%s", be);
  else snprintf(out, len, "%s", be);
  ok = !strcmp(out, "auto");
  for (int i = 0; i < pds_backend_count() && !ok; i++) {
    size_t l = strlen(pds_backend_name(i));

    ok = !strncmp(out, pds_backend_name(i), l) && (out[l] == '\0' || out[l] == ':');
  }
  if (!ok && !pds_options_help(o)) return fail("flag -backend: unknown backend '%s' (choose from %s)", be, known);
  return EXIT_DONE;
}

int make_ctx(const char *backend, pds_ctx *ctx) {
  int ierr = pds_ctx_create(backend, ctx);

  /* the library has printed why (there is no context to hold the message) */
  if (ierr) return fail("flag -backend: cannot use backend '%s' (%s)", backend, pds_error_name(ierr));
  return EXIT_DONE;
}

/* -problem NAME (one of the library's generators; NULL when absent) and -n NX [NY NZ]. */
int read_problem(pds_options o, const char *cmdname, const char **problem, int *dims, int *ndims, bool req) {
  const char      *names[16];
  char             desc[256];
  int              np      = pds_problem_count() < 16 ? pds_problem_count() : 16;
  static const int ndef[1] = {0};
  size_t           l;

  l = (size_t)snprintf(desc, sizeof desc, "<name> generated problem%s:", req ? " (required)" : ", instead of -A");
  for (int i = 0; i < np; i++) {
    names[i] = pds_problem_name(i);
    if (l < sizeof desc) l += (size_t)snprintf(desc + l, sizeof desc - l, "%s %s", i ? "," : "", names[i]);
  }
  OPT(o, pds_options_get_choice(o, "-problem", NULL, names, np, desc, problem, NULL));
  OPT(o, pds_options_get_int_list(o, "-n", 0, ndef, 3, 1, 1 << 20,
                                  "grid size NX [NY NZ] of -problem (missing sizes repeat the last: -n 32 is 32^3)",
                                  dims, ndims, NULL));
  return EXIT_DONE;
}

/* A vector from a Matrix Market file, checked to have n entries (flag names where it came from). */
int read_vec_checked(pds_ctx ctx, const char *flag, const char *path, pds_int n, const char *what, pds_vec *v) {
  pds_size len;
  int      ierr;
  char     buf[300];

  snprintf(buf, sizeof buf, "flag %s: cannot read '%s'", flag, path);
  ierr = pds_mm_read_vec(ctx, path, v);
  if (ierr) return fail_lib(ctx, ierr, buf);
  pds_vec_get_size(*v, &len);
  if (len != n) {
    pds_vec_destroy(v);
    return fail("flag %s: '%s' has %" PDS_SIZE_FMT " entries but the matrix has %" PDS_INT_FMT " %s", flag, path, len,
                n, what);
  }
  return EXIT_DONE;
}

int read_mat(pds_ctx ctx, const char *path, pds_mat *A) {
  char buf[300];
  int  ierr;

  snprintf(buf, sizeof buf, "flag -A: cannot read '%s'", path);
  ierr = pds_mm_read_mat(ctx, path, A);
  return ierr ? fail_lib(ctx, ierr, buf) : EXIT_DONE;
}

/* -grid I J K: the grid of -format stencil7 (grid[0] = 0 when absent) */
int read_grid(pds_options o, const char *cmdname, int *grid) {
  int n = 0;

  OPT(o, pds_options_get_int_list(o, "-grid", 0, NULL, 3, 1, 1 << 20,
                                  "grid I J K of -format stencil7 (-bs unknowns per point; point (i, j, k) holds rows "
                                  "((i J + j) K + k) bs..: K varies fastest)", grid, &n, NULL));
  if (n != 0 && n != 3) return fail("flag -grid takes three sizes I J K (got %d)", n);
  if (n == 0) grid[0] = grid[1] = grid[2] = 0;
  return EXIT_DONE;
}

/* -format bsr: replace *A by its BSR form with block size bs (0 = detect); -format stencil7: by the stencil7 matrix
   of the grid (bs unknowns per point) */
int to_format(pds_ctx ctx, const char *format, int bs, const int *grid, pds_mat *A) {
  pds_mat B = NULL;
  int     rc = EXIT_DONE;

  if (!strcmp(format, "stencil7")) {
    if (!strcmp(pds_mat_get_type(*A), "stencil7")) return EXIT_DONE;
    if (!grid[0] || bs < 1) return fail("flag -format stencil7 needs -grid I J K and -bs (unknowns per point)");
    TRY("flag -format stencil7: conversion failed", pds_mat_convert_to_stencil7(*A, grid[0], grid[1], grid[2], bs, &B));
    pds_mat_destroy(A);
    *A = B;
    return EXIT_DONE;
  }
  if (strcmp(format, "bsr") || !strcmp(pds_mat_get_type(*A), "bsr")) return EXIT_DONE;
  TRY("flag -format bsr: conversion failed", pds_mat_convert_to_bsr(*A, bs, &B));
  pds_mat_destroy(A);
  *A = B;
done:
  return rc;
}

int load_operator(pds_ctx ctx, patches_flags *pf, const char *problem, const int *dims, int ndims, const char *Apath,
                  pds_problem *p, pds_mat *A, char *source, size_t len) {
  int rc = EXIT_DONE;

  if (pf) {
    if ((rc = patches_build(ctx, pf, p))) return rc;
  } else if (problem) {
    pds_int d[3];
    char    what[96];

    for (int i = 0; i < ndims; i++) d[i] = dims[i];
    snprintf(what, sizeof what, "flag -problem %s", problem);
    TRY(what, pds_problem_generate(ctx, problem, d, ndims, p));
  } else {
    if ((rc = read_mat(ctx, Apath, A))) return rc;
    snprintf(source, len, "%s", Apath);
    return EXIT_DONE;
  }
  *A = p->A;
  TRY("problem", pds_mat_reference(*A));
  snprintf(source, len, "%s", p->description);
done:
  return rc;
}
