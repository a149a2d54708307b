/* apps/pdesolve/cmd_apply.c: `pdesolve apply`: y = A x, A^T x or M^-1 x for a Matrix Market matrix or a generated
 * problem's operator (-problem NAME -n ..., patches with -patch: its own patches operator, with -pc relax or gmg),
 * y written as a Matrix Market array. */
#include <stdio.h>
#include <string.h>

#include "pdesolve_app.h"

int cmd_apply(pds_options o) {
  static const char *const ops[] = {"mat", "matT", "pc"};
  const char              *cmdname = "apply";
  const char              *Apath, *xpath, *op, *pcname, *format, *out, *problem;
  int                      grid[3], dims[3], ndims;
  char                     backend[80];
  int                      bs, rc = EXIT_DONE;
  double                   shift     = 0;
  bool                     shift_set = false;
  pds_ctx                  ctx = NULL;
  pds_mat                  A   = NULL;
  pds_precond              pc  = NULL;
  pds_vec                  x = NULL, y = NULL;
  pds_int                  nrows, ncols, nx, ny;
  pds_problem              p;
  patches_flags            pf;
  relax_gmg_flags          rg;
  bool                     pa_on;
  char                     source[4096];

  memset(&p, 0, sizeof p);
  pds_options_begin_section(o, "flags:");
  OPT(o, pds_options_get_string(o, "-A", NULL,
                                "<file.mtx> matrix, Matrix Market coordinate (required unless -problem)", &Apath,
                                NULL));
  if (read_problem(o, cmdname, &problem, dims, &ndims, false)) return EXIT_ERROR;
  OPT(o, pds_options_get_string(o, "-x", NULL, "<x.mtx> input vector (default: ones)", &xpath, NULL));
  OPT(o, pds_options_get_choice(o, "-op", "mat", ops, NELEM(ops), "y = A x, y = A^T x, or y = M^-1 x (pc set up on A)",
                                &op, NULL));
  OPT(o, pds_options_get_string(o, "-pc", "jacobi",
                                "<name> preconditioner of -op pc: none, jacobi, pbjacobi, ilu0, bilu0 (with -format "
                                "stencil7), relax, gmg (-problem patches)",
                                &pcname, NULL));
  OPT(o, pds_options_get_real(o, "-pc_ilu0_shift", 0, -1e300, 1e300, "-pc ilu0 factors A + s I", &shift, &shift_set));
  OPT(o, pds_options_get_int(o, "-bs", 0, 0, 64, "block size of -format bsr (0 = detect) and, when > 0, of pbjacobi",
                             &bs, NULL));
  OPT(o, pds_options_get_choice(o, "-format", "csr", format_names, NELEM(format_names),
                                "matrix storage (stencil7: on the grid -grid with -bs unknowns per point)", &format,
                                NULL));
  if (read_grid(o, cmdname, grid)) return EXIT_ERROR;
  if (read_backend(o, cmdname, backend, sizeof backend)) return EXIT_ERROR;
  OPT(o, pds_options_get_string(o, "-o", NULL, "<y.mtx> output vector, Matrix Market array (required)", &out, NULL));
  if (read_patches_flags(o, cmdname, &pf)) return EXIT_ERROR;
  if (read_relax_gmg_flags(o, cmdname, &rg)) return EXIT_ERROR;
  if (pds_options_help(o)) {
    printf("usage: pdesolve apply (-A file.mtx | -problem NAME -n NX [NY NZ] [-patch LIST]) [-x x.mtx]\n"
           "                      [-op mat|matT|pc] -o y.mtx [flags]\n"
           "  Apply the matrix, its transpose or the preconditioner to a vector and write the result. A generated\n"
           "  problem's operator is used as generated (patches: the patch set, its rows the cells patch after patch,\n"
           "  x fastest in each).\n");
    pds_options_print_help(o, stdout);
    return EXIT_DONE;
  }
  OPT(o, pds_options_check_unused(o));
  if (check_patches_flags(o, problem, dims, ndims, &pf, &pa_on)) return EXIT_ERROR;
  if (check_relax_gmg_flags(o, pcname, &rg)) return EXIT_ERROR;
  if (Apath && problem) return fail("flags -A and -problem exclude each other");
  if (problem && ndims == 0) return fail("flag -problem %s needs -n NX [NY NZ]", problem);
  if (!problem && ndims > 0) return fail("flag -n is only used with -problem");
  if (!Apath && !problem)
    return fail("apply needs -A file.mtx or -problem NAME -n NX [NY NZ] (see 'pdesolve apply -help')");
  if (!out) return fail("apply needs -o y.mtx (see 'pdesolve apply -help')");
  if (!strcmp(pcname, "shell")) return fail("flag -pc: 'shell' needs a program to supply it; not available here");

  if (make_ctx(backend, &ctx)) return EXIT_ERROR;
  {
    char what[96];

    snprintf(what, sizeof what, "flag -pc: cannot create preconditioner '%s'", pcname);
    TRY(what, pds_precond_create(ctx, pcname, &pc)); /* also checks the name when -op is not pc */
  }
  if (shift_set) {
    if (strcmp(pcname, "ilu0")) {
      rc = fail("flag -pc_ilu0_shift is only used with -pc ilu0");
      goto done;
    }
    TRY("flag -pc_ilu0_shift", pds_precond_ilu0_set_shift(pc, shift));
  }
  if ((rc = set_relax_gmg(ctx, pc, pcname, &rg))) goto done;
  if ((rc = load_operator(ctx, pa_on ? &pf : NULL, problem, dims, ndims, Apath, &p, &A, source, sizeof source)))
    goto done;
  TRY("matrix", pds_mat_get_size(A, &nrows, &ncols));
  if ((rc = to_format(ctx, format, bs, grid, &A))) goto done;
  nx = !strcmp(op, "mat") ? ncols : nrows;
  ny = !strcmp(op, "matT") ? ncols : nrows;
  if (!strcmp(op, "pc") && nrows != ncols) {
    rc = fail("-op pc needs a square matrix; '%s' is %" PDS_INT_FMT " x %" PDS_INT_FMT, source, nrows, ncols);
    goto done;
  }
  if (xpath) {
    if ((rc = read_vec_checked(ctx, "-x", xpath, nx, !strcmp(op, "mat") ? "columns" : "rows", &x))) goto done;
  } else {
    TRY("x = ones", pds_vec_create(ctx, nx, &x));
    TRY("x = ones", pds_vec_set(x, 1.0));
  }
  TRY("y", pds_vec_create(ctx, ny, &y));
  if (!strcmp(op, "mat")) TRY("y = A x", pds_mat_apply(A, x, y));
  else if (!strcmp(op, "matT")) TRY("y = A^T x", pds_mat_apply_transpose(A, x, y));
  else {
    if (bs > 0) TRY("flag -bs", pds_precond_set_block_size(pc, bs));
    TRY("preconditioner setup", pds_precond_set_operator(pc, A));
    TRY("preconditioner setup", pds_precond_setup(pc));
    TRY("y = M^-1 x", pds_precond_apply(pc, x, y));
  }
  {
    char what[300];

    snprintf(what, sizeof what, "flag -o: cannot write '%s'", out);
    TRY(what, pds_mm_write_vec(y, out));
  }
done:
  pds_vec_destroy(&x);
  pds_vec_destroy(&y);
  pds_precond_destroy(&pc);
  pds_mat_destroy(&A);
  pds_problem_destroy(&p);
  pds_ctx_destroy(&ctx);
  return rc;
}
