/* src/precond/ilu0_kernels.h: the kernel group of ILU(0) on a general sparse matrix (struct pds_kernels' member
 * ilu0, src/backend/backend.h; src/precond/ilu0.c drives it). The factor is kept in a block-CSR pattern (bs = 1 for
 * a scalar CSR matrix) that is A's with every diagonal block present, columns ascending in each row. IKJ form, no
 * fill outside the pattern:
 *   factor: for each row i in order, its diagonal block gets shift I, then for each k < i in row i (ascending):
 *             L_ik = A_ik D_k^-1 (stored in place of A_ik), and A_ij -= L_ik U_kj for every j > k of row k that is
 *             also in row i; then D_i^-1 = (A_ii)^-1 (Gauss-Jordan with partial pivoting, stored in place of A_ii).
 *           A singular D_i: *bad = the first such block row (natural order; the rows after it are not
 *           meaningful), else -1;
 *   solve:  forward  y_i = b_i - sum_{k < i} L_ik y_k, backward x_i = D_i^-1 (y_i - sum_{j > i} U_ij x_j)
 *           (x may be b's array).
 * Every backend runs the per-row arithmetic of src/backend/ilu0_bodies.h, in any order that respects the
 * dependencies (natural order, level by level, ...), so all give the same bits. Each fills the group in its own file
 * (ref/ref_ilu0.c: natural order; omp/omp_ilu0.c: level scheduling). */
#ifndef PDS_ILU0_KERNELS_H
#define PDS_ILU0_KERNELS_H

#include "pdesolve.h"

/* the factor as kernels see it (arrays in backend memory) */
struct pds_ilu0_factor {
  pds_int   nbrows; /* block rows (= block columns) */
  int       bs;     /* 1: scalar */
  pds_size  nnzb;
  pds_size *rowptr; /* [nbrows + 1] */
  pds_int  *colidx; /* [nnzb], ascending in each row, the diagonal in every row */
  pds_size *diag;   /* [nbrows]: the diagonal's position in its row */
  pds_real *vals;   /* [nnzb][bs][bs] row-major blocks: A's values before factor, L, U and D^-1 after */
};

struct pds_ilu0_kernels {
  /* the analysis of the pattern H (host memory: rowptr, colidx and diag; vals NULL): what the backend needs to run
     factor and (sweeps 1) solve (a level schedule, ...); kept while the pattern stays. sweeps 0: solve is never
     called (approx-jacobi applies by its own steps), so what only the exact sweeps use need not be made. variant: a
     name the backend knows (an error naming the ones it knows otherwise) */
  int (*plan_create)(pds_ctx, const struct pds_ilu0_factor *H, const char *variant, int sweeps, void **plan);
  void (*plan_destroy)(pds_ctx, void *plan);
  /* optional: one line (no newline) saying what runs, for -view */
  int (*plan_describe)(pds_ctx, void *plan, char *buf, size_t len);
  int (*factor)(pds_ctx, void *plan, const struct pds_ilu0_factor *F, pds_real shift, pds_size *bad);
  int (*solve)(pds_ctx, void *plan, const struct pds_ilu0_factor *F, const pds_real *b, pds_real *x);
  /* the approximate variants (every block row independent of the others in one call; src/backend/ilu0_bodies.h has
     the arithmetic): one Jacobi sweep of a triangle from the iterate x (NULL: zero), forward (backward 0)
     y_i = b_i - sum_{k < i} L_ik x_k or backward y_i = D_i^-1 (b_i - sum_{j > i} U_ij x_j), y distinct from b and
     x (y may be b when x is NULL); one Chow-Patel sweep of the factorization: g (F's pattern) from the iterate F (F->vals NULL: the start L = 0,
     U = A) and A's values a in the factor's pattern, *bad = the first block row whose S_ii is singular, else -1 */
  int (*jacobi)(pds_ctx, const struct pds_ilu0_factor *F, int backward, const pds_real *b, const pds_real *x,
                pds_real *y);
  int (*chow)(pds_ctx, const struct pds_ilu0_factor *F, const pds_real *a, pds_real shift, pds_real *g, pds_size *bad);
};

#endif
