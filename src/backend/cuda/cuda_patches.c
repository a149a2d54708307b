/* src/backend/cuda/cuda_patches.c: (in progress) the patches kernel group on /gpu/cuda. */
#include "cuda_impl.h"

void pds_cuda_fill_patches(struct pds_patches_kernels *g) { (void)g; }
