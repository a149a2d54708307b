/* apps/pdesolve/problem_patches.c: the patches problem family of the driver (-problem patches -n N [NY NZ] -patch
 * LIST): cell-centred -lap u = f on (0,1)^3 with N x NY x NZ cells tiled by patches (pds_problem_patches; the sizes
 * of LIST taken in turn along each axis, the last patch of an axis cut at the box, as pds_patches_tile_box), with its
 * manufactured solution; and the flags of the two preconditioners that need a patches operator: -pc relax (block
 * relaxation with exact block inverses, paper 002: -relax_*) and -pc gmg (geometric multigrid with relax as its
 * smoother: -gmg_*). Used by solve, apply and gen (the problem) and by solve and apply (the preconditioners). */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "pdesolve_app.h"

#define PATCH_MAX_SIZE (1 << 20) /* a patch size, as -n */

/* ---- -problem patches -------------------------------------------------------------------------------- */

int read_patches_flags(pds_options o, const char *cmdname, patches_flags *pf) {
  memset(pf, 0, sizeof *pf);
  pds_options_begin_section(o, "patches (-problem patches -n N [NY NZ]: cell-centred Poisson on a patch set):");
  OPT(o, pds_options_get_string(o, "-patch", NULL,
                                "<LIST> patch size, or sizes separated by commas (mixed patches: along each axis the "
                                "sizes are taken in turn, the last patch of an axis cut at the box), e.g. 32 or "
                                "24,40 (default: 32)", &pf->list, NULL));
  return EXIT_DONE;
}

/* -patch LIST into pf->sizes; a message naming the flag and the item when it is not a list of sizes. */
static int parse_patch_list(const char *list, patches_flags *pf) {
  const char *s = list;

  pf->nsizes = 0;
  for (int item = 1;; item++) {
    const char *start = s;
    long        v     = 0;
    bool        ok    = *s >= '0' && *s <= '9';

    for (; *s >= '0' && *s <= '9'; s++)
      if ((v = v * 10 + (*s - '0')) > PATCH_MAX_SIZE) ok = false;
    if (!ok || v < 1 || (*s != ',' && *s != '\0'))
      return fail("flag -patch: item %d '%.*s' of '%s' is not a patch size (a whole number 1..%d); LIST is one size "
                  "or sizes separated by commas, e.g. 32 or 24,40", item, (int)strcspn(start, ","), start, list,
                  PATCH_MAX_SIZE);
    if (pf->nsizes == PATCH_MAX_SIZES)
      return fail("flag -patch: '%s' has more than %d sizes", list, PATCH_MAX_SIZES);
    pf->sizes[pf->nsizes++] = (pds_int)v;
    if (*s++ == '\0') break;
  }
  return EXIT_DONE;
}

/* -patch needs -problem patches; -problem patches needs -n (the box of cells). */
int check_patches_flags(pds_options o, const char *problem, const int *dims, int ndims, patches_flags *pf, bool *on) {
  *on = problem && !strcmp(problem, "patches");
  if (!*on) {
    if (pds_options_has(o, "-patch")) return fail("flag -patch is only used with -problem patches");
    return EXIT_DONE;
  }
  if (ndims == 0) return fail("flag -problem patches needs -n N [NY NZ] (the box of cells)");
  for (int a = 0; a < 3; a++) pf->n[a] = dims[a < ndims ? a : ndims - 1];
  if (pf->list) return parse_patch_list(pf->list, pf);
  pf->nsizes   = 1;
  pf->sizes[0] = 32;
  return EXIT_DONE;
}

/* the problem's description: its box, the patches (count: -1 when not known here) and their sizes */
static void patches_describe(patches_flags *pf, int count, const char *where, pds_problem *p) {
  char sizes[128] = "", counted[24] = "";

  for (int i = 0; i < pf->nsizes; i++) {
    size_t l = strlen(sizes);

    snprintf(sizes + l, sizeof sizes - l, "%s%" PDS_INT_FMT, i ? "," : "", pf->sizes[i]);
  }
  if (count >= 0) snprintf(counted, sizeof counted, "%d ", count);
  snprintf(p->description, sizeof p->description,
           "patches %" PDS_INT_FMT "x%" PDS_INT_FMT "x%" PDS_INT_FMT " cells, %spatch%s of up to %.60s%s (cell-centred "
           "Poisson)", pf->n[0], pf->n[1], pf->n[2], counted, count == 1 ? "" : "es", sizes, where);
  pf->count = count;
}

int patches_build_dist(pds_ctx ctx, patches_flags *pf, pds_problem *p) {
  int rc = EXIT_DONE;

  TRY("flag -problem patches", pds_problem_patches_dist(ctx, pf->n, pf->nsizes, pf->sizes, p));
  patches_describe(pf, -1, ", whole patches a rank", p);
done:
  return rc;
}

int patches_build(pds_ctx ctx, patches_flags *pf, pds_problem *p) {
  int rc = EXIT_DONE, count = 0;

  TRY("flag -problem patches", pds_problem_patches(ctx, pf->n, pf->nsizes, pf->sizes, p));
  TRY("flag -problem patches", pds_mat_patches_get_count(p->A, &count));
  patches_describe(pf, count, "", p);
done:
  return rc;
}

/* ---- -pc relax and -pc gmg ------------------------------------------------------------------------------ */

static const char *const relax_types[]    = {"jacobi", "multicolor", "chaotic"};
static const char *const relax_variants[] = {"auto", "patch", "block", "nested", "gemm", "mapc"};
static const char *const gmg_cycles[]     = {"v", "w", "f"};
static const char *const gmg_prolongs[]   = {"constant", "trilinear"};
static const char *const gmg_coarses[]    = {"direct", "cg"};
static const char *const relax_flags[]    = {"-relax_block", "-relax_type", "-relax_omega", "-relax_sweeps",
                                             "-relax_symmetric", "-relax_variant"};
static const char *const gmg_flags[]      = {"-gmg_cycle", "-gmg_levels", "-gmg_smoother", "-gmg_block",
                                             "-gmg_omega", "-gmg_pre", "-gmg_post", "-gmg_prolong", "-gmg_coarse",
                                             "-gmg_coarse_max"};

static pds_relax_type relax_type_of(const char *name) {
  return !strcmp(name, "multicolor") ? PDS_RELAX_MULTICOLOR : !strcmp(name, "chaotic") ? PDS_RELAX_CHAOTIC
                                                                                       : PDS_RELAX_JACOBI;
}

double relax_omega_of(const char *type, double omega) {
  return omega > 0 ? omega : !strcmp(type, "jacobi") ? 0.8 : 1.0;
}

/* The library's defaults (pdesolve.h), which -help shows and the report records when no flag is given. */
void relax_gmg_defaults(relax_gmg_flags *rg) {
  memset(rg, 0, sizeof *rg);
  rg->relax_type      = "jacobi";
  rg->relax_variant   = "auto";
  rg->relax_block[0]  = rg->relax_block[1] = rg->relax_block[2] = 8;
  rg->relax_sweeps    = 1;
  rg->relax_symmetric = true;
  rg->gmg_cycle       = "v";
  rg->gmg_smoother    = "multicolor";
  rg->gmg_prolong     = "constant";
  rg->gmg_coarse      = "direct";
  rg->gmg_block[0]    = rg->gmg_block[1] = rg->gmg_block[2] = 4;
  rg->gmg_pre         = 2;
  rg->gmg_post        = 2;
  rg->gmg_coarse_max  = 1000;
}

/* -relax_block / -gmg_block: BX BY BZ, or one size B for B^3. */
static int read_block(pds_options o, const char *cmdname, const char *flag, int *block, const char *desc) {
  int def[3] = {block[0], block[1], block[2]}, n;

  OPT(o, pds_options_get_int_list(o, flag, 3, def, 3, 1, 8, desc, block, &n, NULL));
  if (n == 2) return fail("flag %s takes BX BY BZ, or one size B for a B^3 block (got 2 sizes)", flag);
  if (n == 1) block[1] = block[2] = block[0];
  return EXIT_DONE;
}

int read_relax_gmg_flags(pds_options o, const char *cmdname, relax_gmg_flags *rg) {
  relax_gmg_defaults(rg);
  pds_options_begin_section(o, "relax (-pc relax: block relaxation of a patches operator, paper 002):");
  if (read_block(o, cmdname, "-relax_block", rg->relax_block,
                 "cells of a spatial block (its matrix inverted exactly), BX BY BZ or B (B^3), 1..8 each and no "
                 "larger than any patch; a patch that is no multiple of it gets smaller edge blocks"))
    return EXIT_ERROR;
  OPT(o, pds_options_get_choice(o, "-relax_type", rg->relax_type, relax_types, NELEM(relax_types),
                                "jacobi (damped block Jacobi), multicolor (block Gauss-Seidel colour by colour: "
                                "deterministic), chaotic (block Gauss-Seidel in place: not reproducible in parallel)",
                                &rg->relax_type, NULL));
  OPT(o, pds_options_get_real(o, "-relax_omega", 0, 0, 2,
                              "damping of the block update (default 0: the type's, 0.8 for jacobi, 1 for multicolor "
                              "and chaotic)", &rg->relax_omega, NULL));
  OPT(o, pds_options_get_int(o, "-relax_sweeps", rg->relax_sweeps, 1, 100000,
                             "sweeps per application (as a preconditioner: from y = 0)", &rg->relax_sweeps, NULL));
  OPT(o, pds_options_get_bool(o, "-relax_symmetric", rg->relax_symmetric,
                              "-relax_type multicolor: the colours forward then backward (symmetric, for cg); 0: "
                              "forward only", &rg->relax_symmetric, NULL));
  OPT(o, pds_options_get_choice(o, "-relax_variant", rg->relax_variant, relax_variants, NELEM(relax_variants),
                                "how the backend runs it: auto (every backend); /cpu/omp: patch, block, nested "
                                "(threads over patches, blocks, or both); /gpu/cuda: gemm (block products as one "
                                "matrix product), mapc (paper 002's mapping C)", &rg->relax_variant, NULL));
  pds_options_begin_section(o, "gmg (-pc gmg: geometric multigrid of a patches operator):");
  OPT(o, pds_options_get_choice(o, "-gmg_cycle", rg->gmg_cycle, gmg_cycles, NELEM(gmg_cycles), "cycle: v, w or f",
                                &rg->gmg_cycle, NULL));
  OPT(o, pds_options_get_int(o, "-gmg_levels", 0, 0, 64,
                             "most levels, the finest included (default 0: coarsen by 2 while every patch size and "
                             "origin is even and the level has more than -gmg_coarse_max cells)", &rg->gmg_levels,
                             NULL));
  OPT(o, pds_options_get_choice(o, "-gmg_smoother", rg->gmg_smoother, relax_types, NELEM(relax_types),
                                "relax type of the smoother on every level: jacobi, multicolor, chaotic",
                                &rg->gmg_smoother, NULL));
  if (read_block(o, cmdname, "-gmg_block", rg->gmg_block,
                 "the smoother's block, BX BY BZ or B (B^3), 1..8 each (clipped to the patches on coarse levels)"))
    return EXIT_ERROR;
  OPT(o, pds_options_get_real(o, "-gmg_omega", 0, 0, 2,
                              "the smoother's damping (default 0: the type's, 0.8 for jacobi, 1 otherwise)",
                              &rg->gmg_omega, NULL));
  OPT(o, pds_options_get_int(o, "-gmg_pre", rg->gmg_pre, 0, 1000, "smoothing sweeps before the coarse correction",
                             &rg->gmg_pre, NULL));
  OPT(o, pds_options_get_int(o, "-gmg_post", rg->gmg_post, 0, 1000, "smoothing sweeps after the coarse correction",
                             &rg->gmg_post, NULL));
  OPT(o, pds_options_get_choice(o, "-gmg_prolong", rg->gmg_prolong, gmg_prolongs, NELEM(gmg_prolongs),
                                "prolongation: constant (piecewise) or trilinear", &rg->gmg_prolong, NULL));
  OPT(o, pds_options_get_choice(o, "-gmg_coarse", rg->gmg_coarse, gmg_coarses, NELEM(gmg_coarses),
                                "coarsest level: direct (dense inverse) or cg", &rg->gmg_coarse, NULL));
  OPT(o, pds_options_get_int(o, "-gmg_coarse_max", rg->gmg_coarse_max, 1, INT_MAX,
                             "coarse limit: levels with more cells are coarsened further; -gmg_coarse direct solves "
                             "up to this many cells", &rg->gmg_coarse_max, NULL));
  return EXIT_DONE;
}

/* The -relax_* flags need -pc relax, the -gmg_* flags -pc gmg; -relax_symmetric needs -relax_type multicolor. */
int check_relax_gmg_flags(pds_options o, const char *pc, const relax_gmg_flags *rg) {
  bool relax = !strcmp(pc, "relax"), gmg = !strcmp(pc, "gmg");

  for (int i = 0; i < NELEM(relax_flags); i++)
    if (!relax && pds_options_has(o, relax_flags[i]))
      return fail("flag %s is only used with -pc relax%s", relax_flags[i],
                  gmg ? " (the smoother of -pc gmg takes -gmg_smoother, -gmg_block, -gmg_omega)" : "");
  for (int i = 0; i < NELEM(gmg_flags); i++)
    if (!gmg && pds_options_has(o, gmg_flags[i])) return fail("flag %s is only used with -pc gmg", gmg_flags[i]);
  if (relax && pds_options_has(o, "-relax_symmetric") && strcmp(rg->relax_type, "multicolor"))
    return fail("flag -relax_symmetric is only used with -relax_type multicolor (not %s)", rg->relax_type);
  return EXIT_DONE;
}

/* Hand the flags to a relax or gmg preconditioner (other preconditioners: nothing to do). */
int set_relax_gmg(pds_ctx ctx, pds_precond pc, const char *pcname, const relax_gmg_flags *rg) {
  int rc = EXIT_DONE;

  if (!strcmp(pcname, "relax")) {
    TRY("flag -relax_type", pds_precond_relax_set_type(pc, relax_type_of(rg->relax_type)));
    TRY("flag -relax_block",
        pds_precond_relax_set_block(pc, rg->relax_block[0], rg->relax_block[1], rg->relax_block[2]));
    TRY("flag -relax_omega", pds_precond_relax_set_omega(pc, rg->relax_omega));
    TRY("flag -relax_sweeps", pds_precond_relax_set_sweeps(pc, rg->relax_sweeps));
    if (!strcmp(rg->relax_type, "multicolor"))
      TRY("flag -relax_symmetric", pds_precond_relax_set_symmetric(pc, rg->relax_symmetric));
    TRY("flag -relax_variant", pds_precond_relax_set_variant(pc, rg->relax_variant));
  } else if (!strcmp(pcname, "gmg")) {
    TRY("flag -gmg_cycle", pds_precond_gmg_set_cycle(pc, rg->gmg_cycle));
    TRY("flag -gmg_levels", pds_precond_gmg_set_levels(pc, rg->gmg_levels));
    TRY("flags -gmg_smoother, -gmg_block, -gmg_omega, -gmg_pre, -gmg_post",
        pds_precond_gmg_set_smoother(pc, relax_type_of(rg->gmg_smoother), rg->gmg_block[0], rg->gmg_block[1],
                                     rg->gmg_block[2], rg->gmg_omega, rg->gmg_pre, rg->gmg_post));
    TRY("flag -gmg_prolong", pds_precond_gmg_set_prolongation(pc, rg->gmg_prolong));
    TRY("flags -gmg_coarse, -gmg_coarse_max", pds_precond_gmg_set_coarse(pc, rg->gmg_coarse, rg->gmg_coarse_max));
  }
done:
  return rc;
}
