/* src/backend/omp/omp.c: /cpu/omp, OpenMP kernels; starts from the ref table and overrides what it threads. */
#include <omp.h>
#include <stdlib.h>

#include "../kernel_bodies.h"

int pds_backend_init_omp(pds_ctx ctx, const char *resource, struct pds_kernels *k) {
  PDS_CHECK(!strcmp(resource, "/cpu/omp"), ctx, PDS_ERR_ARG, "backend /cpu/omp takes no options (got '%s')",
            resource);
  pds_kernels_fill_ref(k);
  k->name       = "/cpu/omp";
  ctx->nthreads = omp_get_max_threads();
  return PDS_OK;
}
