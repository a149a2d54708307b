/* src/backend/omp/omp_bilu0.c: /cpu/omp's block ILU(0) group (src/precond/bilu0_kernels.h). A grid of at least
 * S7_MIN_POINTS points runs a pipelined wavefront when it has j-rows for at least half the threads (on min(threads,
 * j-rows) threads): thread t owns a contiguous range of j-rows and runs its rows of each i-plane in natural order once
 * thread t - 1 has finished that plane (the only upstream neighbour outside its rows is (i, j0 - 1, k)), plane after
 * plane; the backward sweep the same mirrored (thread t waits on t + 1). The threads meet only pairwise, through a
 * progress counter each (release / acquire), and every thread streams through contiguous memory. A grid with fewer
 * j-rows runs paper 000's OpenMP version (Algorithms 2 and 3): the points of each hyperplane i + j + k = h are
 * independent, so the threads share each hyperplane's points (one barrier per hyperplane). Smaller grids (the blocks
 * of a multi-block matrix, coupled only through the right-hand side) are shared out whole, each run in natural order
 * by one thread: no barrier at all. Each point runs stencil7_bodies.h's arithmetic after the points it depends on, so
 * the factors and the sweeps are bitwise ref's. A singular block found in a parallel factorization sends that grid's
 * factorization back to natural order on one thread, which stops at its first singular block as ref does (a wavefront
 * meets blocks made from it in any order); of several grids with a singular block, the first one's is reported. */
#include <omp.h>
#include <sched.h>
#include <stdatomic.h>

#include "../stencil7_bodies.h"
#include "omp_impl.h"

#define S7_MIN_POINTS (OMP_MIN_N / 8)
#define S7_PIPE_MAX   64 /* the most threads of a pipelined wavefront */

/* a thread's progress through the pipeline (planes finished), alone on its cache line */
typedef struct {
  _Alignas(64) atomic_long planes;
} s7_progress;

/* wait until thread u of the pipeline has finished more than `at` planes */
static void s7_wait(s7_progress *pr, int u, long at) {
  for (unsigned spin = 1; atomic_load_explicit(&pr[u].planes, memory_order_acquire) <= at; spin++)
    if (!(spin & 1023)) sched_yield(); /* more threads than cores: let the one we wait for run */
}

/* the threads of a pipelined wavefront over A: one j-row at least per thread, and at least half the threads (a
   15^3 grid on 16 threads pipelines over 15); 0: use hyperplanes (few j-rows, many threads) */
static int s7_pipe_threads(const struct pds_stencil7 *A) {
  const int T = omp_get_max_threads() < S7_PIPE_MAX ? omp_get_max_threads() : S7_PIPE_MAX;
  const int P = A->J < T ? (int)A->J : T;

  return P >= 2 && 2 * P >= T ? P : 0;
}

/* the pipelined wavefront: BODY for every point (i, j, k, p) of thread t's rows [j0, j1), forward (natural order,
   waiting on t - 1) or backward (reversed, waiting on t + 1); the rows are shared out over the team the runtime gave
   (at most the S7_PIPE_MAX counters of pr, zero before the forward pass; the backward pass counts on from I) */
#define S7_PIPE_FOR(A, pr, backward, BODY)                                                        \
  do {                                                                                           \
    const int     t_ = omp_get_thread_num(), nt_ = omp_get_num_threads();                        \
    const pds_int j0_ = (pds_int)((long long)(A)->J * t_ / nt_);                                 \
    const pds_int j1_ = (pds_int)((long long)(A)->J * (t_ + 1) / nt_);                           \
    for (pds_int s_ = 0; s_ < (A)->I; s_++) {                                                    \
      const pds_int i = (backward) ? (A)->I - 1 - s_ : s_;                                       \
      const long    at_ = (backward) ? (long)(A)->I + s_ : (long)s_;                             \
      if (!(backward) && t_ > 0) s7_wait(pr, t_ - 1, at_);                                       \
      if ((backward) && t_ < nt_ - 1) s7_wait(pr, t_ + 1, at_);                                  \
      for (pds_int jj_ = 0; jj_ < j1_ - j0_; jj_++) {                                            \
        const pds_int j = (backward) ? j1_ - 1 - jj_ : j0_ + jj_;                                \
        for (pds_int kk_ = 0; kk_ < (A)->K; kk_++) {                                             \
          const pds_int  k = (backward) ? (A)->K - 1 - kk_ : kk_;                                \
          const pds_size p = ((pds_size)i * (A)->J + j) * (A)->K + k;                            \
          BODY;                                                                                  \
        }                                                                                        \
      }                                                                                          \
      atomic_store_explicit(&(pr)[t_].planes, at_ + 1, memory_order_release);                    \
    }                                                                                            \
  } while (0)

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

/* one large grid: pipelined, or by hyperplanes */
static void factor_wavefront(const struct pds_stencil7 *A, pds_real *dinv, const struct s7_plan *P, pds_size *bad) {
  const pds_int nh     = A->I + A->J + A->K - 2;
  const int     T      = s7_pipe_threads(A);
  int           failed = 0;

  if (T) {
    s7_progress pr[S7_PIPE_MAX];

    for (int t = 0; t < T; t++) atomic_init(&pr[t].planes, 0);
#pragma omp parallel num_threads(T) reduction(| : failed)
    S7_PIPE_FOR(A, pr, 0, failed |= s7_factor_point_fill(A, A->first + p, i, j, k, dinv, P) != 0);
  } else {
#pragma omp parallel reduction(| : failed)
    for (pds_int h = 0; h < nh; h++)
      S7_PLANE_FOR(A, h, failed |= s7_factor_point_fill(A, A->first + p, i, j, k, dinv, P) != 0);
  }
  *bad = -1;
  if (failed) s7_factor_natural(A, dinv, NULL, bad); /* the first singular point */
}
static void solve_wavefront(const struct pds_stencil7 *A, const struct s7_fac *F, const pds_real *b, pds_real *x) {
  const pds_int nh = A->I + A->J + A->K - 2;
  const int     T  = s7_pipe_threads(A);

  if (T) {
    s7_progress pr[S7_PIPE_MAX];

    for (int t = 0; t < T; t++) atomic_init(&pr[t].planes, 0);
#pragma omp parallel num_threads(T)
    {
      S7_PIPE_FOR(A, pr, 0, s7_forward_point(A, A->first + p, i, j, k, F, b, x));
      S7_PIPE_FOR(A, pr, 1, s7_backward_point(A, A->first + p, i, j, k, F, x));
    }
    return;
  }
#pragma omp parallel
  {
    for (pds_int h = 0; h < nh; h++) S7_PLANE_FOR(A, h, s7_forward_point(A, A->first + p, i, j, k, F, b, x));
    for (pds_int h = nh - 1; h >= 0; h--)
      S7_PLANE_FOR(A, h, s7_backward_point(A, A->first + p, i, j, k, F, x));
  }
}

static int bilu0_factor_omp(pds_ctx ctx, void *plan, const struct pds_stencil7 *g, int nb, pds_real *dinv,
                             pds_size *bad) {
  pds_size *bads;

  PDS_CALL(PDS_NEW(ctx, nb, &bads));
#pragma omp parallel for schedule(dynamic, 1) if (nb > 1)
  for (int q = 0; q < nb; q++)
    if (s7_points(&g[q]) < S7_MIN_POINTS) s7_factor_natural(&g[q], dinv, plan, &bads[q]);
  for (int q = 0; q < nb; q++)
    if (s7_points(&g[q]) >= S7_MIN_POINTS) factor_wavefront(&g[q], dinv, plan, &bads[q]);
  *bad = -1;
  for (int q = 0; q < nb && *bad < 0; q++) *bad = bads[q];
  return pds_free(ctx, PDS_MEM_HOST, &bads);
}

static int bilu0_solve_omp(pds_ctx ctx, void *plan, const struct pds_stencil7 *g, int nb, const pds_real *dinv,
                           const pds_real *b, pds_real *x) {
  const struct s7_fac F = s7_plan_fac(plan, dinv);

  (void)ctx;
#pragma omp parallel for schedule(dynamic, 1) if (nb > 1)
  for (int q = 0; q < nb; q++)
    if (s7_points(&g[q]) < S7_MIN_POINTS) s7_solve_natural(&g[q], &F, b, x);
  for (int q = 0; q < nb; q++)
    if (s7_points(&g[q]) >= S7_MIN_POINTS) solve_wavefront(&g[q], &F, b, x);
  return PDS_OK;
}

void pds_omp_fill_bilu0(struct pds_bilu0_kernels *g) {
  g->factor = bilu0_factor_omp;
  g->solve  = bilu0_solve_omp;
}
