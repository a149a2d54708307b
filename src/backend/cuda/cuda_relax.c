/* src/backend/cuda/cuda_relax.c: (in progress) the relax kernel group on /gpu/cuda. */
#include "cuda_impl.h"

void pds_cuda_fill_relax(struct pds_relax_kernels *g) { (void)g; }
