/* src/backend/cuda/cuda_sem.c: /gpu/cuda's sem group (src/disc/sem_kernels.h): the spectral-element operator's
 * matrix-free product and its diagonal, launched from the kernels of cuda_sem.cu (which give /cpu/ref's bits). Both
 * only launch (no device read, nothing to wait for), so they run inside a device loop's stream capture. */
#include "cuda_impl.h"

static int sem_apply_cuda(pds_ctx ctx, const struct pds_sem_dev *S, const pds_real *x, pds_real *w, pds_real *work) {
  PDS_CHECK(S && S->E >= 1 && S->n >= 2 && S->n <= 14, ctx, PDS_ERR_ARG, "sem.apply: a space of 2 to 14 points a "
            "direction and at least one element is needed");
  LAUNCH(ctx, pds_cuda_sem_apply(s_, S, x, w, work));
}

static int sem_diag_cuda(pds_ctx ctx, const struct pds_sem_dev *S, int variant, pds_real *d, pds_real *work) {
  PDS_CHECK(S && S->E >= 1 && S->n >= 2 && S->n <= 14, ctx, PDS_ERR_ARG, "sem.diag: a space of 2 to 14 points a "
            "direction and at least one element is needed");
  PDS_CHECK(variant >= PDS_SEM_DIAG_EXTENDED && variant <= PDS_SEM_DIAG_WIDE, ctx, PDS_ERR_ARG,
            "sem.diag: variant %d (extended 0, natural 1, shared 2, wide 3)", variant);
  PDS_CHECK(S->n <= 10 || (variant != PDS_SEM_DIAG_NATURAL && variant != PDS_SEM_DIAG_SHARED), ctx, PDS_ERR_ARG,
            "sem.diag: the %s kernel takes a thread block of n^3 threads, so n <= 10 points a direction; this space "
            "has %d (use extended or wide)", variant == PDS_SEM_DIAG_NATURAL ? "natural" : "shared", S->n);
  LAUNCH(ctx, pds_cuda_sem_diag(s_, S, variant, d, work));
}

static int sem_elements_cuda(pds_ctx ctx, const struct pds_sem_dev *S, pds_int e0, pds_int e1, const pds_real *x,
                             pds_real *work) {
  PDS_CHECK(S && e0 >= 0 && e0 < e1 && e1 <= S->E && S->n >= 2 && S->n <= 14, ctx, PDS_ERR_ARG, "sem.elements: "
            "elements %" PDS_INT_FMT " .. %" PDS_INT_FMT " of a space of 2 to 14 points a direction", e0, e1 - 1);
  LAUNCH(ctx, pds_cuda_sem_elements(s_, S, e0, e1, x, work));
}

static int sem_assemble_cuda(pds_ctx ctx, const struct pds_sem_dev *S, const pds_real *x, pds_real *w,
                             const pds_real *work) {
  LAUNCH(ctx, pds_cuda_sem_assemble(s_, S, x, w, work));
}

void pds_cuda_fill_sem(struct pds_sem_kernels *g) {
  g->apply    = sem_apply_cuda;
  g->elements = sem_elements_cuda;
  g->assemble = sem_assemble_cuda;
  g->diag  = sem_diag_cuda;
}
