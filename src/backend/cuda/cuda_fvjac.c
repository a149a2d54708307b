/* src/backend/cuda/cuda_fvjac.c: /gpu/cuda's fvjac group (src/disc/fv_jac_kernels.h), launched from the kernels of
 * cuda_fvjac.cu (which give /cpu/ref's bits). Both only launch (nothing to wait for). */
#include "cuda_impl.h"

static int fvjac_face_jac_cuda(pds_ctx ctx, const struct pds_fv_dev *D, const pds_real *Q, pds_real *JF) {
  if (D->nfaces < 1) return PDS_OK;
  LAUNCH(ctx, pds_cuda_fvjac_face_jac(s_, D, Q, JF));
}

static int fvjac_assemble_cuda(pds_ctx ctx, const struct pds_fv_dev *D, const struct pds_fvjac_dev *J, pds_real cfl,
                               const pds_real *Q, const pds_real *JF, pds_real *vals) {
  if (D->ncells < 1) return PDS_OK;
  LAUNCH(ctx, pds_cuda_fvjac_assemble(s_, D, J, cfl, Q, JF, vals));
}

void pds_cuda_fill_fvjac(struct pds_fvjac_kernels *g) {
  g->face_jac = fvjac_face_jac_cuda;
  g->assemble = fvjac_assemble_cuda;
}
