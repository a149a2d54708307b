/* src/disc/fv_impl.h: the finite-volume operator's internals shared beyond fv.c (bench/gpu/bench_fv times the
 * stages one by one). */
#ifndef PDS_FV_IMPL_H
#define PDS_FV_IMPL_H

#include "../sys/sys_impl.h"

/* stages first..last (0 the face states, 1 the face fluxes, 2 the cell sums into R) of pds_fv_residual, on the
   object's work arrays; Q and R as pds_fv_residual's (pds_fv_residual is stages 0..2) */
PDS_INTERN int pds_fv_stages(pds_fv fv, int first, int last, pds_vec Q, pds_vec R);

#endif
