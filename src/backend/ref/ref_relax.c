/* src/backend/ref/ref_relax.c: (in progress) the relax kernel group on /cpu/ref. */
#include "ref_impl.h"

void pds_ref_fill_relax(struct pds_relax_kernels *g) { (void)g; }
