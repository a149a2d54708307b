/* bench/bench_poisson.h: the problems the benchmarks build themselves (so they do not depend on the library's
 * generators): the 7-point pattern of an m^3 grid, the 7-point Laplacian (6 on the diagonal, -1 per neighbour,
 * Dirichlet boundaries, natural x-fastest order) and a block 7-point matrix with bs x bs blocks. Arrays are
 * filled in parallel loops over rows (static schedule), so pages are first touched by the threads that use
 * them. stencil7() is also used by the PETSc peer (bench/peers/), to build the very same matrix. */
#ifndef PDS_BENCH_POISSON_H
#define PDS_BENCH_POISSON_H

#include <stdint.h>
#include <stdlib.h>

#include "pdesolve/pds_types.h"

/* Cell (i,j,k) of an m^3 grid and its 7-point neighbours in ascending index order. */
static inline int stencil7(long m, long c, long nb[7]) {
  long i = c % m, j = (c / m) % m, k = c / (m * m), cnt = 0;

  if (k > 0) nb[cnt++] = c - m * m;
  if (j > 0) nb[cnt++] = c - m;
  if (i > 0) nb[cnt++] = c - 1;
  nb[cnt++] = c;
  if (i < m - 1) nb[cnt++] = c + 1;
  if (j < m - 1) nb[cnt++] = c + m;
  if (k < m - 1) nb[cnt++] = c + m * m;
  return (int)cnt;
}

/* rowptr of the 7-point pattern on m^3 cells: counts in parallel, then a prefix sum */
static inline pds_size *pattern_rowptr(long m) {
  long      nc = m * m * m;
  pds_size *rp = malloc((size_t)(nc + 1) * sizeof *rp);

  if (!rp) exit(3);
  rp[0] = 0;
#pragma omp parallel for schedule(static)
  for (long c = 0; c < nc; c++) {
    long nb[7];

    rp[c + 1] = stencil7(m, c, nb);
  }
  for (long c = 0; c < nc; c++) rp[c + 1] += rp[c];
  return rp;
}

/* The 7-point Laplacian on an n^3 grid with Dirichlet boundaries: 6 on the diagonal, -1 for each neighbour. */
static inline void poisson7(long n, pds_size **rp, pds_int **ci, pds_real **v) {
  long N = n * n * n;

  *rp = pattern_rowptr(n);
  *ci = malloc((size_t)(*rp)[N] * sizeof **ci);
  *v  = malloc((size_t)(*rp)[N] * sizeof **v);
  if (!*ci || !*v) exit(3);
#pragma omp parallel for schedule(static)
  for (long c = 0; c < N; c++) {
    long     nb[7];
    int      cnt = stencil7(n, c, nb);
    pds_size k0  = (*rp)[c];

    for (int e = 0; e < cnt; e++) {
      (*ci)[k0 + e] = (pds_int)nb[e];
      (*v)[k0 + e]  = nb[e] == c ? 6.0 : -1.0;
    }
  }
}

/* a reproducible value in [-1, 1) from an index */
static inline double hashval(uint64_t z) {
  z = (z + 0x9e3779b97f4a7c15u) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return (double)((z ^ (z >> 31)) >> 11) * 0x1.0p-52 - 1.0;
}

/* Block 7-point pattern on m^3 cells, bs x bs row-major blocks: diagonal blocks (6 + bs) I + small entries,
   off-diagonal blocks -I + small entries (a coupled system with a dominant block diagonal). */
static inline void block7(long m, int bs, pds_size **rp, pds_int **ci, pds_real **v) {
  long   nc = m * m * m;
  size_t b2 = (size_t)bs * bs;

  *rp = pattern_rowptr(m);
  *ci = malloc((size_t)(*rp)[nc] * sizeof **ci);
  *v  = malloc((size_t)(*rp)[nc] * b2 * sizeof **v);
  if (!*ci || !*v) exit(3);
#pragma omp parallel for schedule(static)
  for (long c = 0; c < nc; c++) {
    long     nb[7];
    int      cnt = stencil7(m, c, nb);
    pds_size k0  = (*rp)[c];

    for (int e = 0; e < cnt; e++) {
      pds_real *blk = *v + (k0 + e) * b2;

      (*ci)[k0 + e] = (pds_int)nb[e];
      for (int r = 0; r < bs; r++)
        for (int q = 0; q < bs; q++)
          blk[r * bs + q] = 0.1 * hashval((uint64_t)(k0 + e) * b2 + (uint64_t)(r * bs + q)) +
                            (r == q ? (nb[e] == c ? 6.0 + bs : -1.0) : 0.0);
    }
  }
}

#endif
