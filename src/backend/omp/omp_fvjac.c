/* src/backend/omp/omp_fvjac.c: /cpu/omp's fvjac group (src/disc/fv_jac_kernels.h): the faces, then the cells, cut
 * statically over the threads (each value written by one thread), with fv_jac_bodies.h's arithmetic: ref's bits for
 * any thread count. Models: ref_fvjac.c's. */
#include "../fv_jac_bodies.h"
#include "omp_impl.h"

static int fvjac_face_jac_omp(pds_ctx ctx, const struct pds_fv_dev *D, const pds_real *Q, pds_real *JF) {
  (void)ctx;
#pragma omp parallel for schedule(static) if (D->nfaces >= OMP_MIN_N / 256)
  for (pds_int f = 0; f < D->nfaces; f++) fv_face_jac(D, f, Q, JF);
  return PDS_OK;
}

static int fvjac_assemble_omp(pds_ctx ctx, const struct pds_fv_dev *D, const struct pds_fvjac_dev *J, pds_real cfl,
                              const pds_real *Q, const pds_real *JF, pds_real *vals) {
  (void)ctx;
#pragma omp parallel for schedule(static) if (D->ncells >= OMP_MIN_N / 64)
  for (pds_int c = 0; c < D->ncells; c++)
    for (int e = 0; e < 25; e++) fv_jac_row_entry(D, J, c, e, cfl, Q, JF, vals);
  return PDS_OK;
}

void pds_omp_fill_fvjac(struct pds_fvjac_kernels *g) {
  g->face_jac = fvjac_face_jac_omp;
  g->assemble = fvjac_assemble_omp;
}
