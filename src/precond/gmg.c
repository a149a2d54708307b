/* src/precond/gmg.c: (in progress) */
#include "precond_impl.h"

int pds_precond_create_gmg(pds_precond pc) { return PDS_ERROR(pc->hdr.ctx, PDS_ERR_UNSUPPORTED, "gmg: not built yet"); }
