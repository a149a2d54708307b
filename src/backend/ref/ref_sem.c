/* src/backend/ref/ref_sem.c: /cpu/ref's sem group (src/disc/sem_kernels.h): element after element, then global point
 * after global point, with sem_bodies.h's arithmetic (which /cpu/omp runs too: the same bits).
 * Model per local point (n points per direction): apply reads x through gid (8 + 4 bytes, mostly cache), G (48
 * bytes), writes and reads the local product (16), and the assembly reads gsidx (4): about 72 bytes and 12 n + 15
 * flops; diag reads G's three diagonal entries along lines (24 bytes, mostly cache) and writes 8: 9 n + 11 flops. */
#include "../sem_bodies.h"
#include "ref_impl.h"

static int sem_diag_ref(pds_ctx ctx, const struct pds_sem_dev *S, int variant, pds_real *d, pds_real *work) {
  (void)ctx, (void)variant; /* one loop for every variant */
  sb_elements(S, 0, NULL, work, 0, S->E);
  sb_assemble_range(S, work, NULL, d, 0, S->nglob);
  return PDS_OK;
}

static int sem_elements_ref(pds_ctx ctx, const struct pds_sem_dev *S, pds_int e0, pds_int e1, const pds_real *x,
                            pds_real *work) {
  (void)ctx;
  sb_elements(S, 1, x, work, e0, e1);
  return PDS_OK;
}

static int sem_assemble_ref(pds_ctx ctx, const struct pds_sem_dev *S, const pds_real *x, pds_real *w,
                            const pds_real *work) {
  (void)ctx;
  sb_assemble_range(S, work, x, w, 0, S->nglob);
  return PDS_OK;
}

static int sem_apply_ref(pds_ctx ctx, const struct pds_sem_dev *S, const pds_real *x, pds_real *w, pds_real *work) {
  sem_elements_ref(ctx, S, 0, S->E, x, work);
  return sem_assemble_ref(ctx, S, x, w, work);
}

void pds_ref_fill_sem(struct pds_sem_kernels *g) {
  g->apply    = sem_apply_ref;
  g->elements = sem_elements_ref;
  g->assemble = sem_assemble_ref;
  g->diag  = sem_diag_ref;
}
