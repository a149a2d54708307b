/* src/backend/omp/omp_bilu0.c: /cpu/omp's block ILU(0) group (src/precond/bilu0_kernels.h). A grid of at least
 * S7_MIN_POINTS points runs paper 000's OpenMP version (Algorithms 2 and 3): the points of each hyperplane
 * i + j + k = h are independent, so the threads share each hyperplane's points (one barrier per hyperplane),
 * hyperplane after hyperplane, forward then backward. Smaller grids (the blocks of a multi-block matrix, coupled
 * only through the right-hand side) are shared out whole, each run in natural order by one thread: no barrier at
 * all. Each point runs stencil7_bodies.h's arithmetic, so the factors and the sweeps are bitwise ref's. A singular
 * block found in a wavefront sends that grid's factorization back to natural order on one thread, which stops at
 * its first singular block as ref does (a wavefront meets blocks made from it in any order); of several grids with
 * a singular block, the first one's is reported. */
#include <omp.h>

#include "../stencil7_bodies.h"
#include "omp_impl.h"

#define S7_MIN_POINTS (OMP_MIN_N / 8)

/* the points of hyperplane h: i in [i0, i1], then j in [max(0, h - i - (K - 1)), min(J - 1, h - i)], k = h - i - j */
#define S7_PLANE_FOR(A, h, BODY)                                                                    \
  do {                                                                                             \
    const pds_int i0_ = (h) - ((A)->J - 1) - ((A)->K - 1) > 0 ? (h) - ((A)->J - 1) - ((A)->K - 1) : 0; \
    const pds_int i1_ = (h) < (A)->I - 1 ? (h) : (A)->I - 1;                                          \
    _Pragma("omp for schedule(static)")                                                            \
    for (pds_int i = i0_; i <= i1_; i++) {                                                         \
      const pds_int r_  = (h) - i, j0_ = r_ - ((A)->K - 1) > 0 ? r_ - ((A)->K - 1) : 0;                 \
      const pds_int j1_ = r_ < (A)->J - 1 ? r_ : (A)->J - 1;                                          \
      for (pds_int j = j0_; j <= j1_; j++) {                                                       \
        const pds_int  k = r_ - j;                                                                 \
        const pds_size p = ((pds_size)i * (A)->J + j) * (A)->K + k;                                \
        BODY;                                                                                      \
      }                                                                                            \
    }                                                                                              \
  } while (0)

/* one large grid by hyperplanes */
static void factor_wavefront(const struct pds_stencil7 *A, pds_real *dinv, pds_size *bad) {
  const pds_int nh     = A->I + A->J + A->K - 2;
  int           failed = 0;

#pragma omp parallel reduction(| : failed)
  for (pds_int h = 0; h < nh; h++)
    S7_PLANE_FOR(A, h, failed |= s7_factor_point(A, A->first + p, i, j, k, dinv) != 0);
  *bad = -1;
  if (failed) s7_factor_natural(A, dinv, bad);
}
static void solve_wavefront(const struct pds_stencil7 *A, const pds_real *dinv, const pds_real *b, pds_real *x) {
  const pds_int nh = A->I + A->J + A->K - 2;

#pragma omp parallel
  {
    for (pds_int h = 0; h < nh; h++) S7_PLANE_FOR(A, h, s7_forward_point(A, A->first + p, i, j, k, dinv, b, x));
    for (pds_int h = nh - 1; h >= 0; h--) S7_PLANE_FOR(A, h, s7_backward_point(A, A->first + p, i, j, k, dinv, x));
  }
}

static int bilu0_factor_omp(pds_ctx ctx, void *plan, const struct pds_stencil7 *g, int nb, pds_real *dinv,
                             pds_size *bad) {
  pds_size *bads;

  (void)plan;

  PDS_CALL(PDS_NEW(ctx, nb, &bads));
#pragma omp parallel for schedule(dynamic, 1) if (nb > 1)
  for (int q = 0; q < nb; q++)
    if (s7_points(&g[q]) < S7_MIN_POINTS) s7_factor_natural(&g[q], dinv, &bads[q]);
  for (int q = 0; q < nb; q++)
    if (s7_points(&g[q]) >= S7_MIN_POINTS) factor_wavefront(&g[q], dinv, &bads[q]);
  *bad = -1;
  for (int q = 0; q < nb && *bad < 0; q++) *bad = bads[q];
  return pds_free(ctx, PDS_MEM_HOST, &bads);
}

static int bilu0_solve_omp(pds_ctx ctx, void *plan, const struct pds_stencil7 *g, int nb, const pds_real *dinv,
                           const pds_real *b, pds_real *x) {
  (void)ctx, (void)plan;
#pragma omp parallel for schedule(dynamic, 1) if (nb > 1)
  for (int q = 0; q < nb; q++)
    if (s7_points(&g[q]) < S7_MIN_POINTS) s7_solve_natural(&g[q], dinv, b, x);
  for (int q = 0; q < nb; q++)
    if (s7_points(&g[q]) >= S7_MIN_POINTS) solve_wavefront(&g[q], dinv, b, x);
  return PDS_OK;
}

void pds_omp_fill_bilu0(struct pds_bilu0_kernels *g) {
  g->factor = bilu0_factor_omp;
  g->solve  = bilu0_solve_omp;
}
