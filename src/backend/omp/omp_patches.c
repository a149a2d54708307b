/* src/backend/omp/omp_patches.c: (in progress) the patches kernel group on /cpu/omp. */
#include "omp_impl.h"

void pds_omp_fill_patches(struct pds_patches_kernels *g) { (void)g; }
