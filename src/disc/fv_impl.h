/* src/disc/fv_impl.h: the finite-volume operator's internals shared beyond fv.c (bench/gpu/bench_fv times the
 * stages one by one). */
#ifndef PDS_FV_IMPL_H
#define PDS_FV_IMPL_H

#include "../sys/sys_impl.h"

/* stages first..last (0 the face states, 1 the face fluxes, 2 the cell sums into R) of pds_fv_residual, on the
   object's work arrays; Q and R as pds_fv_residual's (pds_fv_residual is stages 0..2) */
PDS_INTERN int pds_fv_stages(pds_fv fv, int first, int last, pds_vec Q, pds_vec R);

/* the implicit step's data (src/disc/fv_jac.c: the Jacobian's pattern, work arrays), made by its first use and
   freed with the object */
struct pds_fv_jac;
PDS_INTERN void pds_fv_jac_free(pds_ctx ctx, struct pds_fv_jac **J);
/* for fv_jac.c: the object's arrays as kernels see them, whether backend memory is host memory, and its slot for
   the implicit step's data (NULL until then) */
/* fv is valid and Q a state of it (5 values a cell, on its context): PDS_ERR_ARG or PDS_ERR_SIZE otherwise */
PDS_INTERN int                      pds_fv_check_state(pds_fv fv, pds_vec Q);
PDS_INTERN pds_ctx                  pds_fv_ctx(pds_fv fv);
PDS_INTERN const struct pds_fv_dev *pds_fv_dev_of(pds_fv fv);
PDS_INTERN int                      pds_fv_unified(pds_fv fv);
PDS_INTERN struct pds_fv_jac      **pds_fv_jac_slot(pds_fv fv);

/* switches fv to the summation name ("stages", "color", "atomic", "cells"; the colours built from mesh, fv's, the
   first time; bench/gpu/bench_fv times every summation on one object) */
PDS_INTERN int pds_fv_set_summation(pds_fv fv, const char *name, pds_mesh3d mesh);

/* order 2: the reconstruction alone into the object's PC (bench/gpu/bench_fv times it: the paper's Table 1) */
PDS_INTERN int pds_fv_recon_only(pds_fv fv, pds_vec Q);

/* order 2's setup (src/disc/fv_recon.c): host arrays STE (ncells + 1), STA, MAT (9 per entry), AP (9 per cell) */
typedef struct {
  pds_int  *ste, *sta;
  pds_real *mat, *ap;
} pds_fv_recon_host;
/* builds them for the parameters p (checked by the caller) and fills info's stencil statistics */
PDS_INTERN int  pds_fv_recon_build(pds_ctx ctx, pds_mesh3d mesh, const pds_fv_params *p, pds_fv_recon_host *out,
                                   pds_fv_info *info);
PDS_INTERN void pds_fv_recon_host_free(pds_ctx ctx, pds_fv_recon_host *r);

#endif
