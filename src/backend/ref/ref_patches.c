/* src/backend/ref/ref_patches.c: (in progress) the patches kernel group on /cpu/ref. */
#include "ref_impl.h"

void pds_ref_fill_patches(struct pds_patches_kernels *g) { (void)g; }
