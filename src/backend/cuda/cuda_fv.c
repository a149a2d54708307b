/* src/backend/cuda/cuda_fv.c: /gpu/cuda's fv group (src/disc/fv_kernels.h): the finite-volume Euler operator's three
 * stages and the explicit update, launched from the kernels of cuda_fv.cu (which give /cpu/ref's bits). All only
 * launch (nothing to wait for). The order-2 reconstruction's kernel: PDS_CUDA_FV_RECON=thread (a thread per cell and
 * variable) or warp (a warp per cell, the default); both give ref's bits. The summations after the fused stages (i) +
 * (ii): flux_q (then cell_sum), sum_color (a launch per colour), sum_atomic (atomicAdd: not deterministic), sum_cells. */
#include <stdlib.h>
#include <string.h>

#include "cuda_impl.h"

static int fv_face_states_cuda(pds_ctx ctx, const struct pds_fv_dev *D, const pds_real *Q, pds_real *QF) {
  if (D->nfaces < 1) return PDS_OK;
  LAUNCH(ctx, pds_cuda_fv_face_states(s_, D, Q, QF));
}

static int fv_face_flux_cuda(pds_ctx ctx, const struct pds_fv_dev *D, const pds_real *QF, pds_real *F) {
  if (D->nfaces < 1) return PDS_OK;
  LAUNCH(ctx, pds_cuda_fv_face_flux(s_, D, QF, F));
}

static int fv_cell_sum_cuda(pds_ctx ctx, const struct pds_fv_dev *D, const pds_real *F, pds_real *R) {
  if (D->ncells < 1) return PDS_OK;
  LAUNCH(ctx, pds_cuda_fv_cell_sum(s_, D, F, R));
}

static int fv_update_cuda(pds_ctx ctx, const struct pds_fv_dev *D, pds_real cfl, const pds_real *R, pds_real *Q,
                          pds_real *tau) {
  if (D->ncells < 1) return PDS_OK;
  LAUNCH(ctx, pds_cuda_fv_update(s_, D, cfl, R, Q, tau));
}

static int fv_recon_cuda(pds_ctx ctx, const struct pds_fv_dev *D, const pds_real *Q, pds_real *PC) {
  const char *e = getenv("PDS_CUDA_FV_RECON");
  const int   variant = e && !strcmp(e, "thread") ? 0 : 1;

  if (D->ncells < 1) return PDS_OK;
  LAUNCH(ctx, pds_cuda_fv_recon(s_, D, variant, Q, PC));
}

static int fv_face_states2_cuda(pds_ctx ctx, const struct pds_fv_dev *D, const pds_real *Q, const pds_real *PC,
                                pds_real *QF) {
  if (D->nfaces < 1) return PDS_OK;
  LAUNCH(ctx, pds_cuda_fv_face_states2(s_, D, Q, PC, QF));
}

static int fv_flux_q_cuda(pds_ctx ctx, const struct pds_fv_dev *D, const pds_real *Q, const pds_real *PC,
                          pds_real *F) {
  if (D->nfaces < 1) return PDS_OK;
  LAUNCH(ctx, pds_cuda_fv_flux_q(s_, D, Q, PC, F));
}

static int fv_sum_color_cuda(pds_ctx ctx, const struct pds_fv_dev *D, const pds_real *Q, const pds_real *PC,
                             pds_real *R) {
  if (D->ncells < 1) return PDS_OK;
  LAUNCH(ctx, pds_cuda_fv_sum_color(s_, D, Q, PC, R));
}

static int fv_sum_atomic_cuda(pds_ctx ctx, const struct pds_fv_dev *D, const pds_real *Q, const pds_real *PC,
                              pds_real *R) {
  if (D->ncells < 1) return PDS_OK;
  LAUNCH(ctx, pds_cuda_fv_sum_atomic(s_, D, Q, PC, R));
}

static int fv_sum_cells_cuda(pds_ctx ctx, const struct pds_fv_dev *D, const pds_real *Q, const pds_real *PC,
                             pds_real *R) {
  if (D->ncells < 1) return PDS_OK;
  LAUNCH(ctx, pds_cuda_fv_sum_cells(s_, D, Q, PC, R));
}

void pds_cuda_fill_fv(struct pds_fv_kernels *g) {
  g->face_states = fv_face_states_cuda;
  g->face_flux   = fv_face_flux_cuda;
  g->cell_sum    = fv_cell_sum_cuda;
  g->update      = fv_update_cuda;
  g->recon       = fv_recon_cuda;
  g->face_states2 = fv_face_states2_cuda;
  g->flux_q       = fv_flux_q_cuda;
  g->sum_color    = fv_sum_color_cuda;
  g->sum_atomic   = fv_sum_atomic_cuda;
  g->sum_cells    = fv_sum_cells_cuda;
}
