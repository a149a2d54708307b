/* src/backend/ref/ref_impl.h: what /cpu/ref's files share: each module's group fill function (the table is made in
 * ref.c; /cpu/omp starts from it through pds_kernels_fill_ref). */
#ifndef PDS_REF_IMPL_H
#define PDS_REF_IMPL_H

#include "../backend.h"

PDS_INTERN void pds_ref_fill_vec(struct pds_vec_kernels *g);
PDS_INTERN void pds_ref_fill_csr(struct pds_csr_kernels *g);
PDS_INTERN void pds_ref_fill_bsr(struct pds_bsr_kernels *g);
PDS_INTERN void pds_ref_fill_krylov(struct pds_krylov_kernels *g);
PDS_INTERN void pds_ref_fill_fem2d(struct pds_fem2d_kernels *g);
PDS_INTERN void pds_ref_fill_blocks(struct pds_block_kernels *g);
PDS_INTERN void pds_ref_fill_stencil7(struct pds_stencil7_kernels *g);
PDS_INTERN void pds_ref_fill_bilu0(struct pds_bilu0_kernels *g);
PDS_INTERN void pds_ref_fill_ilu0(struct pds_ilu0_kernels *g);
PDS_INTERN void pds_ref_fill_patches(struct pds_patches_kernels *g);
PDS_INTERN void pds_ref_fill_sem(struct pds_sem_kernels *g);
PDS_INTERN void pds_ref_fill_fv(struct pds_fv_kernels *g);
PDS_INTERN void pds_ref_fill_fvjac(struct pds_fvjac_kernels *g);
PDS_INTERN void pds_ref_fill_relax(struct pds_relax_kernels *g);

#endif
