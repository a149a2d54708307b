/* src/precond/bilu0_kernels.h: the kernel group of block ILU(0) on a stencil7 matrix (struct pds_kernels' member
 * bilu0, src/backend/backend.h; src/precond/bilu0.c drives it). Paper 000's recurrence and sweeps:
 *   factor: dinv_p = (delta_p - alpha_p dinv_{k-1} eta_{k-1} - beta_p dinv_{j-1} zeta_{j-1}
 *                     - gamma_p dinv_{i-1} epsilon_{i-1})^{-1}            (Eq. 1, the inverse stored, as Algorithm 2)
 *           (arms out of the grid left out); on a singular block, *bad = the first such point (grids in order,
 *           each in natural order; the blocks after it are not meaningful), else -1;
 *   solve:  forward  y_p = dinv_p (b_p - (alpha_p y_{k-1} + beta_p y_{j-1} + gamma_p y_{i-1}))          (Eq. 2)
 *           backward x_p = y_p - dinv_p (epsilon_p x_{i+1} + zeta_p x_{j+1} + eta_p x_{k+1})             (Eq. 3)
 *           (x may be b's array).
 * Every backend runs the per-point arithmetic of src/backend/stencil7_bodies.h, in any order that respects the
 * dependencies (natural order, hyperplanes i + j + k = const, ...), so all give the same bits. Each fills the group
 * in its own file (ref/ref_bilu0.c: natural order; omp/omp_bilu0.c: a pipelined wavefront over j-rows, or
 * hyperplanes; cuda/cuda_bilu0.c: the variants). */
#ifndef PDS_BILU0_KERNELS_H
#define PDS_BILU0_KERNELS_H

#include "pdesolve.h"

struct pds_stencil7;

/* over the nb independent grids g[0..nb) of a stencil7 matrix (g: host memory, their values backend memory);
   dinv [points][n][n]; *bad: the matrix's point index (the first singular one in grid order, then natural order).
   plan: what plan_create made. */
struct pds_bilu0_kernels {
  /* every backend (/gpu/cuda's; ref's, which omp shares, takes the variant auto only and keeps the float copy):
     the schedule of the grids for a variant (a name of pds_precond_bilu0_set_variant; the backend checks it:
     PDS_ERR_ARG naming the ones it knows) and the factors' storage (single: a float copy for the sweeps, made by
     factor); made at setup, kept while the grids keep their shapes */
  int (*plan_create)(pds_ctx, const struct pds_stencil7 *g, int nb, const char *variant, int single, void **plan);
  void (*plan_destroy)(pds_ctx, void *plan);
  /* optional: one line (no newline) saying what runs, for -view */
  int (*plan_describe)(pds_ctx, void *plan, char *buf, size_t len);
  int (*factor)(pds_ctx, void *plan, const struct pds_stencil7 *g, int nb, pds_real *dinv, pds_size *bad);
  int (*solve)(pds_ctx, void *plan, const struct pds_stencil7 *g, int nb, const pds_real *dinv, const pds_real *b,
               pds_real *x);
};

#endif
