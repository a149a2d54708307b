/* src/backend/omp/omp_impl.h: what the /cpu/omp sources share: the size thresholds below which a kernel runs on
 * the calling thread, the static partitions of vectors (static_range, OMP_PARTS), of CSR/BSR rows balanced by
 * nonzeros (row_range) and of reduction chunks (chunk_range). */
#ifndef PDS_OMP_IMPL_H
#define PDS_OMP_IMPL_H

#include <omp.h>

#include "../kernel_bodies.h"

/* Below these sizes a kernel runs on the calling thread: vector entries, and matrix "work" (nnz + rows). */
#define OMP_MIN_N    16384
#define OMP_MIN_WORK 16384

/* Thread t of nt: its part [*i0, *i1) of [0, n), as schedule(static) would cut it (contiguous, sizes within one). */
static inline void static_range(pds_size n, int t, int nt, pds_size *i0, pds_size *i1) {
  pds_size q = n / nt, r = n % nt;

  *i0 = t * q + (t < r ? t : r);
  *i1 = *i0 + q + (t < r);
}

/* Run the statements (a loop over [i0, i1)) over [0, n): on the calling thread when n is small (no OpenMP
   call at all: even an if(0) region costs ~0.3 us), else on each thread's static_range part. */
#define OMP_PARTS(n, i0, i1, ...)                                                                  \
  do {                                                                                             \
    if ((n) < OMP_MIN_N) {                                                                         \
      const pds_size i0 = 0, i1 = (n);                                                             \
      __VA_ARGS__;                                                                                 \
    } else {                                                                                       \
      _Pragma("omp parallel")                                                                      \
      {                                                                                            \
        pds_size i0, i1;                                                                           \
                                                                                                   \
        static_range((n), omp_get_thread_num(), omp_get_num_threads(), &i0, &i1);                  \
        __VA_ARGS__;                                                                               \
      }                                                                                            \
    }                                                                                              \
  } while (0)

/* First row r in [0, nrows] with rowptr[r] * w + r >= target: rows weighed by their entries (w scalars each,
   w = bs*bs for BSR) plus one for the row itself (its rowptr read and y write), so empty rows count too. */
static inline pds_int row_at(const pds_size *rp, pds_int nrows, pds_size w, pds_size target) {
  pds_int lo = 0, hi = nrows;

  while (lo < hi) {
    pds_int mid = lo + (hi - lo) / 2;

    if (rp[mid] * w + mid < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* Thread t's rows [*r0, *r1): a static partition balanced by stored entries + rows, O(log nrows) per thread. */
static inline void row_range(const pds_size *rp, pds_int nrows, pds_size w, int t, int nt, pds_int *r0, pds_int *r1) {
  pds_size total = rp[nrows] * w + nrows;

  *r0 = t == 0 ? 0 : row_at(rp, nrows, w, total / nt * t + total % nt * t / nt);
  *r1 = t == nt - 1 ? nrows : row_at(rp, nrows, w, total / nt * (t + 1) + total % nt * (t + 1) / nt);
}

/* Thread t's reduction chunks [*c0, *c1) for a CSR product fused with a dot: row_range's split (balanced by
   nonzeros) moved to the nearest chunk boundaries; contiguous, and together they cover every chunk once. */
static inline void chunk_range(const pds_size *rp, pds_int nrows, int t, int nt, pds_size *c0, pds_size *c1) {
  pds_size nc = ((pds_size)nrows + PDS_REDUCE_CHUNK - 1) / PDS_REDUCE_CHUNK;
  pds_int  r0, r1;

  row_range(rp, nrows, 1, t, nt, &r0, &r1);
  *c0 = t == 0 ? 0 : ((pds_size)r0 + PDS_REDUCE_CHUNK / 2) / PDS_REDUCE_CHUNK;
  *c1 = t == nt - 1 ? nc : ((pds_size)r1 + PDS_REDUCE_CHUNK / 2) / PDS_REDUCE_CHUNK;
}

/* /cpu/omp's single-precision group (omp_f32.c) over a copy of ref's: omp's init calls it */
/* each module's group (omp.c makes the table from ref's and these) */
PDS_INTERN void pds_omp_fill_vec(struct pds_vec_kernels *g);
PDS_INTERN void pds_omp_fill_csr(struct pds_csr_kernels *g);
PDS_INTERN void pds_omp_fill_bsr(struct pds_bsr_kernels *g);
PDS_INTERN void pds_omp_fill_krylov(struct pds_krylov_kernels *g);
PDS_INTERN void pds_omp_fill_blocks(struct pds_block_kernels *g);
PDS_INTERN void pds_omp_fill_stencil7(struct pds_stencil7_kernels *g);
PDS_INTERN void pds_omp_fill_bilu0(struct pds_bilu0_kernels *g);
PDS_INTERN void pds_omp_fill_ilu0(struct pds_ilu0_kernels *g);
PDS_INTERN void pds_omp_fill_patches(struct pds_patches_kernels *g);
PDS_INTERN void pds_omp_fill_sem(struct pds_sem_kernels *g);
PDS_INTERN void pds_omp_fill_fv(struct pds_fv_kernels *g);
PDS_INTERN void pds_omp_fill_fvjac(struct pds_fvjac_kernels *g);
PDS_INTERN void pds_omp_fill_relax(struct pds_relax_kernels *g);
PDS_INTERN void pds_omp_fill_fem2d(struct pds_fem2d_kernels *g);
PDS_INTERN void pds_kernels_fill_omp_f32(struct pds_kernels_f32 *k);

/* The dot-product reductions (omp_vec.c; vec.dot, vec.dot2 and the fused Krylov steps of omp_krylov.c): with
   nd = 1 or 2, w = a x + b y when w != NULL (then the dots are of w), d[k] = u . z_k summed by ref's fixed chunks
   of PDS_REDUCE_CHUNK entries (chunk partials in parallel, added in chunk order): bitwise ref's. */
PDS_INTERN int pds_omp_chunk_sums(pds_ctx ctx, pds_size n, pds_real a, const pds_real *x, pds_real b,
                                  const pds_real *y, pds_real *w, const pds_real *z1, const pds_real *z2, int nd,
                                  pds_real *d);

#endif
