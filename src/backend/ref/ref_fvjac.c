/* src/backend/ref/ref_fvjac.c: /cpu/ref's fvjac group (src/disc/fv_jac_kernels.h): face after face, then cell after
 * cell and entry after entry, with fv_jac_bodies.h's arithmetic (which /cpu/omp and /gpu/cuda run too: the same
 * bits). Models, 8-byte reals: face_jac reads a face's 2 cells' states (80 bytes), its area and kind (25) and writes
 * 400, about 3300 flops (20 Roe fluxes); assemble reads, per cell-face entry, its signed face (4), the neighbour's
 * block position (4) and the face's 50 derivatives (400), and writes each block once (200): about 1 KB a cell-face
 * entry, the Jacobian's size twice over. */
#include "../fv_jac_bodies.h"
#include "ref_impl.h"

static int fvjac_face_jac_ref(pds_ctx ctx, const struct pds_fv_dev *D, const pds_real *Q, pds_real *JF) {
  (void)ctx;
  for (pds_int f = 0; f < D->nfaces; f++) fv_face_jac(D, f, Q, JF);
  return PDS_OK;
}

static int fvjac_assemble_ref(pds_ctx ctx, const struct pds_fv_dev *D, const struct pds_fvjac_dev *J, pds_real cfl,
                              const pds_real *Q, const pds_real *JF, pds_real *vals) {
  (void)ctx;
  for (pds_int c = 0; c < D->ncells; c++)
    for (int e = 0; e < 25; e++) fv_jac_row_entry(D, J, c, e, cfl, Q, JF, vals);
  return PDS_OK;
}

void pds_ref_fill_fvjac(struct pds_fvjac_kernels *g) {
  g->face_jac = fvjac_face_jac_ref;
  g->assemble = fvjac_assemble_ref;
}
