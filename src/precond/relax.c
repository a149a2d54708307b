/* src/precond/relax.c: (in progress) */
#include "precond_impl.h"

int pds_precond_create_relax(pds_precond pc) { return PDS_ERROR(pc->hdr.ctx, PDS_ERR_UNSUPPORTED, "relax: not built yet"); }
