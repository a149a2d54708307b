/* src/backend/ref/ref_fv.c: /cpu/ref's fv group (src/disc/fv_kernels.h): face after face, then cell after cell, with
 * fv_bodies.h's arithmetic (which /cpu/omp and /gpu/cuda run too: the same bits).
 * Models, 8-byte reals: face_states reads the face's 2 cells (8 bytes) and their states (80, from cache when cells
 * are numbered for locality) and writes 80; face_flux reads 80 + the area vector 24 + the kind 1 and writes 40, about
 * 200 flops (two physical fluxes, Roe's waves, 3 square roots); cell_sum reads, per face of the cell, its signed
 * index (4) and flux (40), and writes 40; update reads the cell's faces' areas and Q, R, V and writes Q and tau.
 * Order 2: recon reads per cell its STE pair (8), per stencil entry the index (4), the 9 MAT values (72) and the
 * cell's 5 states (40) and writes 45 coefficients (360): the paper's 116 NG + 408 bytes (its count: 95 NG flops);
 * face_states2 reads per face the 2 cells' states, 45 coefficients and AP each (2 x 472) and the barycentre (24).
 * The summations after the fused stages (i) + (ii) (flux_q and cell_sum; sum_color, sum_atomic, sum_cells): the byte
 * models beside the CUDA kernels (cuda_fv.cu). */
#include <string.h>

#include "../fv_bodies.h"
#include "ref_impl.h"

static int fv_face_states_ref(pds_ctx ctx, const struct pds_fv_dev *D, const pds_real *Q, pds_real *QF) {
  (void)ctx;
  for (pds_int f = 0; f < D->nfaces; f++) fv_face_states1(D, f, Q, QF);
  return PDS_OK;
}

static int fv_face_flux_ref(pds_ctx ctx, const struct pds_fv_dev *D, const pds_real *QF, pds_real *F) {
  (void)ctx;
  for (pds_int f = 0; f < D->nfaces; f++) fv_face_flux(D, f, QF, F);
  return PDS_OK;
}

static int fv_cell_sum_ref(pds_ctx ctx, const struct pds_fv_dev *D, const pds_real *F, pds_real *R) {
  (void)ctx;
  for (pds_int c = 0; c < D->ncells; c++) fv_cell_sum(D, c, F, R);
  return PDS_OK;
}

static int fv_recon_ref(pds_ctx ctx, const struct pds_fv_dev *D, const pds_real *Q, pds_real *PC) {
  (void)ctx;
  for (pds_int c = 0; c < D->ncells; c++)
    for (int v = 0; v < 5; v++) fv_recon_cell_var(D, c, v, Q, PC);
  return PDS_OK;
}

static int fv_face_states2_ref(pds_ctx ctx, const struct pds_fv_dev *D, const pds_real *Q, const pds_real *PC,
                               pds_real *QF) {
  (void)ctx;
  for (pds_int f = 0; f < D->nfaces; f++) fv_face_states2(D, f, Q, PC, QF);
  return PDS_OK;
}

static int fv_flux_q_ref(pds_ctx ctx, const struct pds_fv_dev *D, const pds_real *Q, const pds_real *PC, pds_real *F) {
  (void)ctx;
  for (pds_int f = 0; f < D->nfaces; f++) fv_face_flux_q(D, f, Q, PC, F + 5 * (size_t)f);
  return PDS_OK;
}

/* the colour summation: colour after colour, each colour's faces in order */
static int fv_sum_color_ref(pds_ctx ctx, const struct pds_fv_dev *D, const pds_real *Q, const pds_real *PC,
                            pds_real *R) {
  (void)ctx;
  memset(R, 0, 5 * (size_t)D->ncells * sizeof *R);
  for (pds_int i = 0; i < D->nfaces; i++) fv_face_add(D, D->color_face[i], Q, PC, R);
  return PDS_OK;
}

/* the atomic summation's loop in face order (one thread: nothing to make atomic) */
static int fv_sum_atomic_ref(pds_ctx ctx, const struct pds_fv_dev *D, const pds_real *Q, const pds_real *PC,
                             pds_real *R) {
  (void)ctx;
  memset(R, 0, 5 * (size_t)D->ncells * sizeof *R);
  for (pds_int f = 0; f < D->nfaces; f++) fv_face_add(D, f, Q, PC, R);
  return PDS_OK;
}

static int fv_sum_cells_ref(pds_ctx ctx, const struct pds_fv_dev *D, const pds_real *Q, const pds_real *PC,
                            pds_real *R) {
  (void)ctx;
  for (pds_int c = 0; c < D->ncells; c++) fv_cell_fluxes(D, c, Q, PC, R);
  return PDS_OK;
}

static int fv_update_ref(pds_ctx ctx, const struct pds_fv_dev *D, pds_real cfl, const pds_real *R, pds_real *Q,
                         pds_real *tau) {
  (void)ctx;
  for (pds_int c = 0; c < D->ncells; c++) tau[c] = fv_cell_update(D, c, cfl, R, Q);
  return PDS_OK;
}

void pds_ref_fill_fv(struct pds_fv_kernels *g) {
  g->face_states = fv_face_states_ref;
  g->face_flux   = fv_face_flux_ref;
  g->cell_sum    = fv_cell_sum_ref;
  g->update      = fv_update_ref;
  g->recon       = fv_recon_ref;
  g->face_states2 = fv_face_states2_ref;
  g->flux_q       = fv_flux_q_ref;
  g->sum_color    = fv_sum_color_ref;
  g->sum_atomic   = fv_sum_atomic_ref;
  g->sum_cells    = fv_sum_cells_ref;
}
