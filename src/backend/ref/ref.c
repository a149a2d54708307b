/* src/backend/ref/ref.c: /cpu/ref, plain sequential C kernels: the oracle every other backend is tested against.
 * This file makes the table: one group per module, each in its own file (ref_vec.c, ref_mat.c, ref_krylov.c,
 * ref_fem2d.c, ref_blocks.c, ref_stencil7.c, ref_bilu0.c, ref_f32.c). */
#include "ref_impl.h"

void pds_kernels_fill_ref(struct pds_kernels *k) {
  memset(k, 0, sizeof *k);
  k->name = "/cpu/ref";
  pds_ref_fill_vec(&k->vec);
  pds_ref_fill_csr(&k->csr);
  pds_ref_fill_bsr(&k->bsr);
  pds_ref_fill_krylov(&k->krylov);
  pds_ref_fill_fem2d(&k->fem2d);
  pds_ref_fill_blocks(&k->blocks);
  pds_ref_fill_stencil7(&k->stencil7);
  pds_ref_fill_bilu0(&k->bilu0);
  pds_ref_fill_ilu0(&k->ilu0);
  pds_ref_fill_patches(&k->patches);
  pds_ref_fill_relax(&k->relax);
  pds_ref_fill_sem(&k->sem);
  pds_ref_fill_fv(&k->fv);
  pds_ref_fill_fvjac(&k->fvjac);
  pds_kernels_fill_ref_f32(&k->f32);
}

int pds_backend_init_ref(pds_ctx ctx, const char *resource, struct pds_kernels *k) {
  PDS_CHECK(!strcmp(resource, "/cpu/ref"), ctx, PDS_ERR_ARG, "backend /cpu/ref takes no options (got '%s')",
            resource);
  pds_kernels_fill_ref(k);
  return PDS_OK;
}
