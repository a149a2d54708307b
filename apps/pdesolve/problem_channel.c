/* apps/pdesolve/problem_channel.c: the channel problem family of the driver (-problem channel -n I [J K] -bs N):
 * one implicit pseudo-time step of artificial-compressibility Navier-Stokes in a channel (pds_channel_generate,
 * docs/channel.md) as a stencil7 matrix with N = 4..6 unknowns per cell, on one grid, on -blocks NB grids of the
 * -n size or on the mixed grids of -grids LIST (pds_channel_generate_blocks: one block-diagonal stencil7 matrix), or
 * one channel of -n cut into -decomp BX [BY BZ] touching blocks (pds_channel_generate_decomposed: coupled across the
 * cuts; under mpirun the blocks are spread over the ranks). Its flags (-cfl, -re, -stretch, -beta, -blocks, -grids,
 * -decomp; the grid is -n, the unknowns per cell -bs, 0 meaning 6), the -grids parser and the build of A and b. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pdesolve_app.h"

#define CH_MAX_SIZE  (1 << 20) /* a grid dimension, as -n */
#define CH_MAX_GRIDS (1 << 20) /* grids in all (and a count of -grids) */

int read_channel_flags(pds_options o, const char *cmdname, channel_flags *cf) {
  memset(cf, 0, sizeof *cf);
  pds_channel_opts_default(&cf->o);
  pds_options_begin_section(o, "channel (-problem channel -n I [J K] | -grids LIST; -bs n = 4..6, default 6):");
  OPT(o, pds_options_get_real(o, "-cfl", cf->o.cfl, 0, 1e300, "pseudo-time CFL number of the implicit step",
                              &cf->o.cfl, NULL));
  OPT(o, pds_options_get_real(o, "-re", cf->o.re, 0, 1e300, "Reynolds number", &cf->o.re, NULL));
  OPT(o, pds_options_get_real(o, "-stretch", cf->o.stretch, 0, 10, "tanh clustering towards the walls (0 = uniform)",
                              &cf->o.stretch, NULL));
  OPT(o, pds_options_get_real(o, "-beta", cf->o.beta, 0, 1e300, "artificial compressibility", &cf->o.beta, NULL));
  OPT(o, pds_options_get_int(o, "-blocks", 1, 1, CH_MAX_GRIDS,
                             "NB grids of the -n size in one block-diagonal matrix (multi-block; grid q's perturbation "
                             "phase advanced by q golden angles, docs/channel.md)", &cf->blocks, NULL));
  OPT(o, pds_options_get_int_list(o, "-decomp", 0, (const int[1]){1}, 3, 1, CH_MAX_SIZE,
                                  "BX [BY BZ]: cut the -n channel into BX x BY x BZ touching blocks, coupled across the "
                                  "cuts (bilu0 factors each block alone; under mpirun the blocks go to the ranks, "
                                  "default one slab per rank); missing counts are 1", cf->decomp, &cf->ndecomp, NULL));
  OPT(o, pds_options_get_string(o, "-grids", NULL,
                                "<LIST> grids of mixed sizes instead of -n: comma-separated IxJxK or N (N^3), each with "
                                "an optional *COUNT, e.g. '15x15x15*16,25*16,35x35x35*16' (quote it: * is a shell "
                                "pattern)", &cf->grids, NULL));
  return EXIT_DONE;
}

/* A whole number in [1, max] at *s (digits only), *s moved past it; 0 when there is none or it is out of range. */
static long grids_number(const char **s, long max) {
  long v = 0;

  if (**s < '0' || **s > '9') return 0;
  for (; **s >= '0' && **s <= '9'; (*s)++)
    if ((v = v * 10 + (**s - '0')) > max) return 0;
  return v;
}

/* One item of -grids at *s: IxJxK or N (d = N, N, N), optionally *COUNT; true when it ends at a comma or the end. */
static bool grids_item(const char **s, long d[3], long *count) {
  int nd = 0;

  for (;;) {
    if (nd == 3 || !(d[nd++] = grids_number(s, CH_MAX_SIZE))) return false;
    if (**s != 'x') break;
    (*s)++;
  }
  if (nd == 2) return false;
  if (nd == 1) d[1] = d[2] = d[0];
  *count = 1;
  if (**s == '*') {
    (*s)++;
    if (!(*count = grids_number(s, CH_MAX_GRIDS))) return false;
  }
  return **s == ',' || **s == '\0';
}

/* -grids LIST (items separated by commas): the number of grids into *nb and, when dims is not NULL, their sizes (3
   per grid). Bad syntax: a message naming the flag and the item. */
static int parse_grids(const char *list, int *nb, pds_int *dims) {
  const char *s     = list;
  long        total = 0;

  for (int item = 1;; item++) {
    const char *start = s;
    long        d[3], count;

    if (!grids_item(&s, d, &count))
      return fail("flag -grids: item %d '%.*s' of '%s' is not IxJxK[*COUNT] or N[*COUNT] (N^3); sizes and counts "
                  "1..%d, items separated by commas, e.g. 15x15x15*16,25*16", item, (int)strcspn(start, ","), start,
                  list, CH_MAX_GRIDS);
    if (count > CH_MAX_GRIDS - total) return fail("flag -grids: '%s' has more than %d grids", list, CH_MAX_GRIDS);
    for (long c = 0; dims && c < count; c++)
      for (int a = 0; a < 3; a++) dims[3 * (total + c) + a] = (pds_int)d[a];
    total += count;
    if (*s++ == '\0') break;
  }
  *nb = (int)total;
  return EXIT_DONE;
}

/* The channel flags need -problem channel; then -n (one grid, or -blocks NB of them) or -grids give the grids, and
   -bs the unknowns per cell. */
int check_channel_flags(pds_options o, const char *problem, const int *dims, int ndims, int bs, channel_flags *cf,
                        bool *on) {
  static const char *const only[] = {"-cfl", "-re", "-stretch", "-beta", "-blocks", "-grids", "-decomp"};
  int                      nb;

  *on = problem && !strcmp(problem, "channel");
  if (!*on) {
    for (int i = 0; i < NELEM(only); i++)
      if (pds_options_has(o, only[i])) return fail("flag %s is only used with -problem channel", only[i]);
    return EXIT_DONE;
  }
  for (int d = cf->ndecomp; d < 3; d++) cf->decomp[d] = 1;
  if (cf->ndecomp && (cf->grids || pds_options_has(o, "-blocks")))
    return fail("flag -decomp cuts the one channel of -n into blocks; it excludes -%s", cf->grids ? "grids" : "blocks");
  if (cf->grids) {
    if (ndims > 0) return fail("flags -n and -grids exclude each other (-grids gives every grid's size)");
    if (pds_options_has(o, "-blocks"))
      return fail("flags -blocks and -grids exclude each other (-grids counts grids with *COUNT)");
    if (parse_grids(cf->grids, &nb, NULL)) return EXIT_ERROR;
  } else {
    if (ndims == 0) return fail("flag -problem channel needs -n I [J K] (one grid, or -blocks NB of them) or -grids LIST");
    cf->o.ni = dims[0], cf->o.nj = dims[ndims > 1 ? 1 : 0], cf->o.nk = dims[ndims - 1];
  }
  if (bs) cf->o.n = bs;
  return EXIT_DONE;
}

/* the description of the channel cut by -decomp (where: " over N ranks" or "") */
static int channel_describe(const channel_flags *cf, pds_problem *p, const char *where) {
  snprintf(p->description, sizeof p->description, "channel %" PDS_INT_FMT "x%" PDS_INT_FMT "x%" PDS_INT_FMT " in %dx%dx%d"
           " blocks%s n=%d CFL %g Re %g stretch %g beta %g (stencil7)", cf->o.ni, cf->o.nj, cf->o.nk, cf->decomp[0],
           cf->decomp[1], cf->decomp[2], where, cf->o.n, cf->o.cfl, cf->o.re, cf->o.stretch, cf->o.beta);
  return EXIT_DONE;
}

int channel_build_dist(pds_ctx ctx, const channel_flags *cf, pds_problem *p) {
  channel_flags c = *cf;
  char          where[32];
  int           rc = EXIT_DONE;

  if (cf->grids || cf->blocks > 1)
    return fail("under mpirun, -problem channel is one channel of -n cut into blocks over the ranks (-decomp BX [BY BZ], "
                "default one slab per rank); -blocks and -grids (separate channels) run on one rank");
  if (!c.ndecomp) /* one slab along the flow per rank, as long as the channel has the cells */
    c.decomp[0] = pds_ctx_get_size(ctx) < c.o.ni ? pds_ctx_get_size(ctx) : (int)c.o.ni, c.ndecomp = 1;
  TRY("flag -decomp", pds_channel_generate_decomposed_dist(ctx, &c.o, c.decomp, &p->A, &p->b));
  snprintf(where, sizeof where, " over %d ranks", pds_ctx_get_size(ctx));
  return channel_describe(&c, p, where);
done:
  return rc;
}

int channel_build(pds_ctx ctx, const channel_flags *cf, pds_problem *p) {
  pds_int *dims = NULL;
  int      nb    = cf->blocks, rc = EXIT_DONE;
  pds_size cells = 0;
  char     head[96];

  if (cf->ndecomp) {
    TRY("flag -decomp", pds_channel_generate_decomposed(ctx, &cf->o, cf->decomp, &p->A, &p->b));
    return channel_describe(cf, p, "");
  }
  if (cf->grids && (rc = parse_grids(cf->grids, &nb, NULL))) goto done;
  if (!(dims = malloc(sizeof *dims * 3 * (size_t)nb))) {
    rc = fail("flag -problem channel: out of memory for the sizes of %d grids", nb);
    goto done;
  }
  if (cf->grids) {
    if ((rc = parse_grids(cf->grids, &nb, dims))) goto done;
  } else
    for (int q = 0; q < nb; q++) dims[3 * q] = cf->o.ni, dims[3 * q + 1] = cf->o.nj, dims[3 * q + 2] = cf->o.nk;
  TRY(cf->grids ? "flag -grids" : nb > 1 ? "flag -blocks" : "flag -problem channel",
      pds_channel_generate_blocks(ctx, &cf->o, nb, dims, &p->A, &p->b));
  for (int q = 0; q < nb; q++) cells += (pds_size)dims[3 * q] * dims[3 * q + 1] * dims[3 * q + 2];
  if (cf->grids) snprintf(head, sizeof head, "channel %d grids, %" PDS_SIZE_FMT " cells", nb, cells);
  else if (nb > 1)
    snprintf(head, sizeof head, "channel %d grids of %" PDS_INT_FMT "x%" PDS_INT_FMT "x%" PDS_INT_FMT, nb, cf->o.ni,
             cf->o.nj, cf->o.nk);
  else snprintf(head, sizeof head, "channel %" PDS_INT_FMT "x%" PDS_INT_FMT "x%" PDS_INT_FMT, cf->o.ni, cf->o.nj, cf->o.nk);
  snprintf(p->description, sizeof p->description, "%.52s n=%d CFL %g Re %g stretch %g beta %g (stencil7)", head,
           cf->o.n, cf->o.cfl, cf->o.re, cf->o.stretch, cf->o.beta);
done:
  free(dims);
  return rc;
}
