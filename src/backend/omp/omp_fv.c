/* src/backend/omp/omp_fv.c: /cpu/omp's fv group (src/disc/fv_kernels.h): the faces, then the cells, cut statically
 * over the threads (each face and each cell is written by one thread), with fv_bodies.h's arithmetic: ref's bits for
 * any thread count. (Paper 001 compares static and dynamic schedules for its reconstruction, whose stencils vary; a
 * face's and a cell's work here is nearly uniform, so static; the order-2 reconstruction takes either, static by
 * default.) The summations: the colours one after the other (each colour's faces over the threads), the faces over
 * the threads with atomic additions (not deterministic), the cells over the threads. Models: ref_fv.c's. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "../fv_bodies.h"
#include "omp_impl.h"

static int fv_face_states_omp(pds_ctx ctx, const struct pds_fv_dev *D, const pds_real *Q, pds_real *QF) {
  (void)ctx;
#pragma omp parallel for schedule(static) if (D->nfaces >= OMP_MIN_N / 8)
  for (pds_int f = 0; f < D->nfaces; f++) fv_face_states1(D, f, Q, QF);
  return PDS_OK;
}

static int fv_face_flux_omp(pds_ctx ctx, const struct pds_fv_dev *D, const pds_real *QF, pds_real *F) {
  (void)ctx;
#pragma omp parallel for schedule(static) if (D->nfaces >= OMP_MIN_N / 64)
  for (pds_int f = 0; f < D->nfaces; f++) fv_face_flux(D, f, QF, F);
  return PDS_OK;
}

static int fv_cell_sum_omp(pds_ctx ctx, const struct pds_fv_dev *D, const pds_real *F, pds_real *R) {
  (void)ctx;
#pragma omp parallel for schedule(static) if (D->ncells >= OMP_MIN_N / 8)
  for (pds_int c = 0; c < D->ncells; c++) fv_cell_sum(D, c, F, R);
  return PDS_OK;
}

/* PDS_FV_OMP_SCHEDULE=dynamic: the reconstruction's cells dynamically, in chunks of 64 (paper 001 compares the two;
   each cell is written by one thread either way: the same bits) */
static int fv_dynamic(void) {
  const char *e = getenv("PDS_FV_OMP_SCHEDULE");

  return e && !strcmp(e, "dynamic");
}

static int fv_recon_omp(pds_ctx ctx, const struct pds_fv_dev *D, const pds_real *Q, pds_real *PC) {
  (void)ctx;
  if (fv_dynamic()) {
#pragma omp parallel for schedule(dynamic, 64) if (D->ncells >= OMP_MIN_N / 64)
    for (pds_int c = 0; c < D->ncells; c++)
      for (int v = 0; v < 5; v++) fv_recon_cell_var(D, c, v, Q, PC);
  } else {
#pragma omp parallel for schedule(static) if (D->ncells >= OMP_MIN_N / 64)
    for (pds_int c = 0; c < D->ncells; c++)
      for (int v = 0; v < 5; v++) fv_recon_cell_var(D, c, v, Q, PC);
  }
  return PDS_OK;
}

static int fv_face_states2_omp(pds_ctx ctx, const struct pds_fv_dev *D, const pds_real *Q, const pds_real *PC,
                               pds_real *QF) {
  (void)ctx;
#pragma omp parallel for schedule(static) if (D->nfaces >= OMP_MIN_N / 64)
  for (pds_int f = 0; f < D->nfaces; f++) fv_face_states2(D, f, Q, PC, QF);
  return PDS_OK;
}

static int fv_flux_q_omp(pds_ctx ctx, const struct pds_fv_dev *D, const pds_real *Q, const pds_real *PC, pds_real *F) {
  (void)ctx;
#pragma omp parallel for schedule(static) if (D->nfaces >= OMP_MIN_N / 64)
  for (pds_int f = 0; f < D->nfaces; f++) fv_face_flux_q(D, f, Q, PC, F + 5 * (size_t)f);
  return PDS_OK;
}

/* the colours one after the other, each colour's faces statically over the threads (no two share a cell) */
static int fv_sum_color_omp(pds_ctx ctx, const struct pds_fv_dev *D, const pds_real *Q, const pds_real *PC,
                            pds_real *R) {
  (void)ctx;
#pragma omp parallel if (D->nfaces >= OMP_MIN_N / 64)
  {
#pragma omp for schedule(static)
    for (size_t i = 0; i < 5 * (size_t)D->ncells; i++) R[i] = 0;
    for (pds_int k = 0; k < D->ncolors; k++) {
#pragma omp for schedule(static)
      for (pds_int i = D->color_ptr[k]; i < D->color_ptr[k + 1]; i++) fv_face_add(D, D->color_face[i], Q, PC, R);
    }
  }
  return PDS_OK;
}

/* the faces statically over the threads, the additions atomic: NOT deterministic (the order of a cell's additions
   depends on the threads' timing) */
static int fv_sum_atomic_omp(pds_ctx ctx, const struct pds_fv_dev *D, const pds_real *Q, const pds_real *PC,
                             pds_real *R) {
  (void)ctx;
#pragma omp parallel if (D->nfaces >= OMP_MIN_N / 64)
  {
#pragma omp for schedule(static)
    for (size_t i = 0; i < 5 * (size_t)D->ncells; i++) R[i] = 0;
#pragma omp for schedule(static)
    for (pds_int f = 0; f < D->nfaces; f++) {
      const pds_int l = D->face_cell[2 * f], r = D->face_cell[2 * f + 1];
      pds_real      g[5];

      fv_face_flux_q(D, f, Q, PC, g);
      for (int v = 0; v < 5; v++) {
#pragma omp atomic
        R[5 * (size_t)l + v] -= g[v];
      }
      if (r >= 0)
        for (int v = 0; v < 5; v++) {
#pragma omp atomic
          R[5 * (size_t)r + v] += g[v];
        }
    }
  }
  return PDS_OK;
}

static int fv_sum_cells_omp(pds_ctx ctx, const struct pds_fv_dev *D, const pds_real *Q, const pds_real *PC,
                            pds_real *R) {
  (void)ctx;
#pragma omp parallel for schedule(static) if (D->ncells >= OMP_MIN_N / 64)
  for (pds_int c = 0; c < D->ncells; c++) fv_cell_fluxes(D, c, Q, PC, R);
  return PDS_OK;
}

static int fv_update_omp(pds_ctx ctx, const struct pds_fv_dev *D, pds_real cfl, const pds_real *R, pds_real *Q,
                         pds_real *tau) {
  (void)ctx;
#pragma omp parallel for schedule(static) if (D->ncells >= OMP_MIN_N / 8)
  for (pds_int c = 0; c < D->ncells; c++) tau[c] = fv_cell_update(D, c, cfl, R, Q);
  return PDS_OK;
}

void pds_omp_fill_fv(struct pds_fv_kernels *g) {
  g->face_states = fv_face_states_omp;
  g->face_flux   = fv_face_flux_omp;
  g->cell_sum    = fv_cell_sum_omp;
  g->update      = fv_update_omp;
  g->recon       = fv_recon_omp;
  g->face_states2 = fv_face_states2_omp;
  g->flux_q       = fv_flux_q_omp;
  g->sum_color    = fv_sum_color_omp;
  g->sum_atomic   = fv_sum_atomic_omp;
  g->sum_cells    = fv_sum_cells_omp;
}
