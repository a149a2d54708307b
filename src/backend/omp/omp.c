/* src/backend/omp/omp.c: /cpu/omp, OpenMP kernels: ref's loop bodies run over each thread's part.
 *
 * What /cpu/omp guarantees against /cpu/ref, for any number of threads:
 * - every kernel but csr_spmv_t computes each output entry with ref's arithmetic in ref's order: the bodies of
 *   kernel_bodies.h, ref.c's one-line expressions, or (csr_rows_pf, bsr_rows_pf, chunk_norm_inf_fast) loops
 *   that add software prefetches or drop branches but keep every operation and its order. The results are
 *   bitwise those of ref;
 * - reductions (vec_dot, vec_dot2, vec_norm_inf) cut the vector into the fixed chunks of PDS_REDUCE_CHUNK
 *   entries that ref uses, compute the chunk partials in parallel into ctx workspace and add them in chunk order
 *   on one thread: bitwise ref, whatever the number of threads;
 * - csr_spmv_t sums the products of fixed row parts (chosen from the matrix alone) in private buffers, then adds
 *   the parts' sums in part order: deterministic and independent of the thread count, but not bitwise ref's
 *   where several parts meet (see csr_spmv_t_omp);
 * - blocks.invert reports the same first singular block as ref; on that failure the other blocks' contents
 *   differ from ref's (ref stops, omp inverts the rest), and the caller discards them anyway.
 * Partitions are static (contiguous, as schedule(static) cuts them; rows balanced by nonzeros), so a thread
 * touches the same part of each array on every call (first touch). Small problems run on the calling thread
 * without any OpenMP call (OMP_PARTS, and the size tests of the matrix kernels).
 * Byte models count each array touched once (x gathers and y writes included) and do not count the write-
 * allocate read of an output that is not also an input (as STREAM).
 *
 * This file makes the table: ref's (pds_kernels_fill_ref), then one group per module from its own file (omp_vec.c,
 * omp_mat.c, omp_krylov.c, omp_blocks.c, omp_fem2d.c, omp_f32.c). */
#include <omp.h>

#include "omp_impl.h"

int pds_backend_init_omp(pds_ctx ctx, const char *resource, struct pds_kernels *k) {
  PDS_CHECK(!strcmp(resource, "/cpu/omp"), ctx, PDS_ERR_ARG, "backend /cpu/omp takes no options (got '%s')",
            resource);
  pds_kernels_fill_ref(k); /* ref's table, then each module's omp kernels over it */
  k->name = "/cpu/omp";
  pds_omp_fill_vec(&k->vec);
  pds_omp_fill_csr(&k->csr);
  pds_omp_fill_bsr(&k->bsr);
  pds_omp_fill_krylov(&k->krylov);
  pds_omp_fill_blocks(&k->blocks);
  pds_omp_fill_stencil7(&k->stencil7);
  pds_omp_fill_bilu0(&k->bilu0);
  pds_omp_fill_ilu0(&k->ilu0);
  pds_omp_fill_patches(&k->patches);
  pds_omp_fill_relax(&k->relax);
  pds_omp_fill_sem(&k->sem);
  pds_omp_fill_fv(&k->fv);
  pds_omp_fill_fvjac(&k->fvjac);
  pds_omp_fill_fem2d(&k->fem2d);
  pds_kernels_fill_omp_f32(&k->f32);
  ctx->nthreads = omp_get_max_threads();
  return PDS_OK;
}
