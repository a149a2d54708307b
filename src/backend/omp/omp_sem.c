/* src/backend/omp/omp_sem.c: /cpu/omp's sem group (src/disc/sem_kernels.h): the elements cut statically over the
 * threads (a thread's elements' local products are independent), then the global points likewise, each with
 * sem_bodies.h's arithmetic: ref's bits for any thread count. Models: ref_sem.c's. */
#include <omp.h>

#include "../sem_bodies.h"
#include "omp_impl.h"

/* the elements, then the global points, over the threads (serial below OMP_MIN_N local points) */
static void sem_run(const struct pds_sem_dev *S, int apply, const pds_real *x, pds_real *out, pds_real *work) {
  if (S->nloc < OMP_MIN_N) {
    sb_elements(S, apply, x, work, 0, S->E);
    sb_assemble_range(S, work, apply ? x : NULL, out, 0, S->nglob);
    return;
  }
#pragma omp parallel
  {
    pds_size e0, e1, g0, g1;

    static_range((pds_size)S->E, omp_get_thread_num(), omp_get_num_threads(), &e0, &e1);
    sb_elements(S, apply, x, work, (pds_int)e0, (pds_int)e1);
#pragma omp barrier
    static_range((pds_size)S->nglob, omp_get_thread_num(), omp_get_num_threads(), &g0, &g1);
    sb_assemble_range(S, work, apply ? x : NULL, out, (pds_int)g0, (pds_int)g1);
  }
}

static int sem_apply_omp(pds_ctx ctx, const struct pds_sem_dev *S, const pds_real *x, pds_real *w, pds_real *work) {
  (void)ctx;
  sem_run(S, 1, x, w, work);
  return PDS_OK;
}

static int sem_diag_omp(pds_ctx ctx, const struct pds_sem_dev *S, int variant, pds_real *d, pds_real *work) {
  (void)ctx, (void)variant; /* one loop for every variant */
  sem_run(S, 0, NULL, d, work);
  return PDS_OK;
}

static int sem_elements_omp(pds_ctx ctx, const struct pds_sem_dev *S, pds_int e0, pds_int e1, const pds_real *x,
                            pds_real *work) {
  (void)ctx;
#pragma omp parallel if ((pds_size)(e1 - e0) * S->n * S->n * S->n >= OMP_MIN_N)
  {
    pds_size a, b;

    static_range((pds_size)(e1 - e0), omp_get_thread_num(), omp_get_num_threads(), &a, &b);
    sb_elements(S, 1, x, work, e0 + (pds_int)a, e0 + (pds_int)b);
  }
  return PDS_OK;
}

static int sem_assemble_omp(pds_ctx ctx, const struct pds_sem_dev *S, const pds_real *x, pds_real *w,
                            const pds_real *work) {
  (void)ctx;
#pragma omp parallel if (S->nloc >= OMP_MIN_N)
  {
    pds_size g0, g1;

    static_range((pds_size)S->nglob, omp_get_thread_num(), omp_get_num_threads(), &g0, &g1);
    sb_assemble_range(S, work, x, w, (pds_int)g0, (pds_int)g1);
  }
  return PDS_OK;
}

void pds_omp_fill_sem(struct pds_sem_kernels *g) {
  g->apply    = sem_apply_omp;
  g->elements = sem_elements_omp;
  g->assemble = sem_assemble_omp;
  g->diag  = sem_diag_omp;
}
