/* src/backend/omp/omp_relax.c: (in progress) the relax kernel group on /cpu/omp. */
#include "omp_impl.h"

void pds_omp_fill_relax(struct pds_relax_kernels *g) { (void)g; }
