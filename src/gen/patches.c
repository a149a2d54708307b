/* src/gen/patches.c: (in progress) the cell-centred Poisson problem on patches. */
#include "gen_impl.h"

int pds_problem_create_patches(pds_ctx ctx, const pds_int *dims, pds_problem *p) {
  (void)dims, (void)p;
  return PDS_ERROR(ctx, PDS_ERR_UNSUPPORTED, "patches: not built yet");
}
