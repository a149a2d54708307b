/* apps/pdesolve/problem_channel.c: the channel problem family of the driver (-problem channel -n I [J K] -bs N):
 * one implicit pseudo-time step of artificial-compressibility Navier-Stokes in a channel (pds_channel_generate,
 * docs/channel.md) as a stencil7 matrix with N = 4..6 unknowns per cell. Its flags (-cfl, -re, -stretch, -beta;
 * the grid is -n, the unknowns per cell the solve flag -bs, 0 meaning 6) and the build of A and b. */
#include <stdio.h>
#include <string.h>

#include "pdesolve_app.h"

int read_channel_flags(pds_options o, const char *cmdname, pds_channel_opts *co) {
  pds_channel_opts_default(co);
  pds_options_begin_section(o, "channel (with -problem channel -n I [J K]; -bs N: unknowns per cell 4..6, default 6):");
  OPT(o, pds_options_get_real(o, "-cfl", co->cfl, 0, 1e300, "pseudo-time CFL number of the implicit step", &co->cfl,
                              NULL));
  OPT(o, pds_options_get_real(o, "-re", co->re, 0, 1e300, "Reynolds number", &co->re, NULL));
  OPT(o, pds_options_get_real(o, "-stretch", co->stretch, 0, 10, "tanh clustering towards the walls (0 = uniform)",
                              &co->stretch, NULL));
  OPT(o, pds_options_get_real(o, "-beta", co->beta, 0, 1e300, "artificial compressibility", &co->beta, NULL));
  return EXIT_DONE;
}

/* The channel flags need -problem channel; then dims and -bs give the grid and n. */
int check_channel_flags(pds_options o, const char *problem, const int *dims, int ndims, int bs,
                        pds_channel_opts *co, bool *on) {
  static const char *const only[] = {"-cfl", "-re", "-stretch", "-beta"};

  *on = problem && !strcmp(problem, "channel");
  if (!*on) {
    for (int i = 0; i < NELEM(only); i++)
      if (pds_options_has(o, only[i])) return fail("flag %s is only used with -problem channel", only[i]);
    return EXIT_DONE;
  }
  if (ndims == 0) return fail("flag -problem channel needs -n I [J K]");
  co->I = dims[0], co->J = dims[ndims > 1 ? 1 : 0], co->K = dims[ndims - 1];
  if (bs) co->n = bs;
  return EXIT_DONE;
}

int channel_build(pds_ctx ctx, const pds_channel_opts *co, pds_problem *p) {
  int rc = EXIT_DONE;

  TRY("flag -problem channel", pds_channel_generate(ctx, co, &p->A, &p->b));
  snprintf(p->description, sizeof p->description, "channel %" PDS_INT_FMT "x%" PDS_INT_FMT "x%" PDS_INT_FMT
           " n=%d CFL %g Re %g stretch %g beta %g (stencil7)", co->I, co->J, co->K, co->n, co->cfl, co->re,
           co->stretch, co->beta);
done:
  return rc;
}
