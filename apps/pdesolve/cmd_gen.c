/* apps/pdesolve/cmd_gen.c: `pdesolve gen`: a generated problem (fem2d: and its mesh) written as Matrix Market
 * files PREFIX_A.mtx, PREFIX_b.mtx, PREFIX_x.mtx, PREFIX_u.mtx (and PREFIX_mesh.msh); channel (one grid or
 * several) as its BSR form, patches as its CSR form. */
#include <stdio.h>
#include <string.h>

#include "pdesolve_app.h"

int cmd_gen(pds_options o) {
  const char *cmdname = "gen";
  const char *problem, *prefix;
  char        backend[80], path[4096], what[4200];
  int         dims[3], ndims, bs, rc = EXIT_DONE;
  pds_ctx     ctx = NULL;
  pds_problem p;
  pds_int     d[3], n;
  pds_size    nnz;
  fem_opts    fo;
  fem_report  fr;
  bool        fem_on = false, ch_on = false, pa_on = false;
  channel_flags co;
  patches_flags pf;
  pds_mesh    mesh   = NULL;
  pds_fem2d   fem    = NULL;

  memset(&p, 0, sizeof p);
  pds_options_begin_section(o, "flags:");
  if (read_problem(o, cmdname, &problem, dims, &ndims, true)) return EXIT_ERROR;
  OPT(o, pds_options_get_string(o, "-o", NULL,
                                "<prefix> writes PREFIX_A.mtx, PREFIX_b.mtx, PREFIX_x.mtx (exact discrete solution, "
                                "if known), PREFIX_u.mtx (PDE solution, if any) and, for fem2d, PREFIX_mesh.msh "
                                "(Gmsh 2.2); required", &prefix, NULL));
  if (read_backend(o, cmdname, backend, sizeof backend)) return EXIT_ERROR;
  OPT(o, pds_options_get_int(o, "-bs", 0, 0, 64, "unknowns per cell of -problem channel, 4..6 (0 = 6)", &bs, NULL));
  if (read_fem_flags(o, cmdname, &fo)) return EXIT_ERROR;
  if (read_channel_flags(o, cmdname, &co)) return EXIT_ERROR;
  if (read_patches_flags(o, cmdname, &pf)) return EXIT_ERROR;
  if (pds_options_help(o)) {
    printf("usage: pdesolve gen (-problem NAME -n NX [NY NZ] | -problem fem2d (-nodes N | -mesh F.msh)\n"
           "                     | -problem channel (-n I [J K] [-blocks NB] | -grids LIST)\n"
           "                     | -problem patches -n N [NY NZ] [-patch LIST]) -o PREFIX\n"
           "  Write a generated problem as Matrix Market files (-mesh F.msh alone implies -problem fem2d; channel's\n"
           "  stencil7 matrix as BSR with n x n blocks, the grids one after the other on the diagonal; patches as\n"
           "  CSR, its rows the cells patch after patch, x fastest in each).\n");
    pds_options_print_help(o, stdout);
    return EXIT_DONE;
  }
  OPT(o, pds_options_check_unused(o));
  if (check_fem_flags(o, &fo, &problem, ndims, &fem_on)) return EXIT_ERROR;
  if (check_channel_flags(o, problem, dims, ndims, bs, &co, &ch_on)) return EXIT_ERROR;
  if (fo.mesh && !fem_on) return fail("flag -mesh: gen writes fem2d's meshes only (solve takes -problem sem -mesh)");
  if (check_patches_flags(o, problem, dims, ndims, &pf, &pa_on)) return EXIT_ERROR;
  if (bs && !ch_on) return fail("flag -bs of gen is only used with -problem channel");
  if (!problem) return fail("gen needs -problem NAME (see 'pdesolve gen -help')");
  if (!fem_on && !ch_on && ndims == 0) return fail("flag -problem %s needs -n NX [NY NZ]", problem);
  if (!prefix) return fail("gen needs -o PREFIX (see 'pdesolve gen -help')");

  if (make_ctx(backend, &ctx)) return EXIT_ERROR;
  for (int i = 0; i < ndims; i++) d[i] = dims[i];
  snprintf(what, sizeof what, "flag -problem %s", problem);
  if (fem_on) {
    if ((rc = fem_build(ctx, &fo, &mesh, &fem, &p.A, &p.b, &p.u_exact, &fr))) goto done;
    snprintf(p.description, sizeof p.description, "%.159s", fr.source);
    snprintf(path, sizeof path, "%s_mesh.msh", prefix);
    snprintf(what, sizeof what, "flag -o: cannot write '%s'", path);
    TRY(what, pds_mesh_write_gmsh(mesh, path));
    printf("wrote %s\n", path);
  } else if (ch_on) {
    if ((rc = channel_build(ctx, &co, &p))) goto done;
  } else if (pa_on) {
    if ((rc = patches_build(ctx, &pf, &p))) goto done;
  } else TRY(what, pds_problem_generate(ctx, problem, d, ndims, &p));
  if (!strcmp(pds_mat_get_type(p.A), "stencil7")) { /* channel: Matrix Market takes its BSR form */
    pds_mat B = NULL;

    TRY("problem: stencil7 -> bsr", pds_mat_convert_to_bsr(p.A, 0, &B));
    pds_mat_destroy(&p.A);
    p.A = B;
  } else if (!strcmp(pds_mat_get_type(p.A), "patches") || !strcmp(pds_mat_get_type(p.A), "sem")) { /* their CSR */
    pds_mat B = NULL;

    TRY("problem: assembled as csr", pds_mat_convert_to_csr(p.A, &B));
    pds_mat_destroy(&p.A);
    p.A = B;
  }
  TRY("problem", pds_mat_get_size(p.A, &n, NULL));
  TRY("problem", pds_mat_get_nnz(p.A, &nnz));
#define GEN_WRITE(suffix, call)                                         \
  do {                                                                  \
    snprintf(path, sizeof path, "%s_%s.mtx", prefix, suffix);           \
    snprintf(what, sizeof what, "flag -o: cannot write '%s'", path);    \
    TRY(what, call);                                                    \
    printf("wrote %s\n", path);                                         \
  } while (0)
  GEN_WRITE("A", pds_mm_write_mat(p.A, path));
  GEN_WRITE("b", pds_mm_write_vec(p.b, path));
  if (p.x_exact) GEN_WRITE("x", pds_mm_write_vec(p.x_exact, path));
  if (p.u_exact) GEN_WRITE("u", pds_mm_write_vec(p.u_exact, path));
#undef GEN_WRITE
  printf("%s: n=%" PDS_INT_FMT " nnz=%" PDS_SIZE_FMT "\n", p.description, n, nnz);
done:
  pds_problem_destroy(&p);
  pds_fem2d_destroy(&fem);
  pds_mesh_destroy(&mesh);
  pds_ctx_destroy(&ctx);
  return rc;
}
