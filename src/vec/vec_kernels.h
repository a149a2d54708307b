/* src/vec/vec_kernels.h: the vector kernel group (struct pds_kernels' member vec, src/backend/backend.h): BLAS-1 on
 * n-vectors in backend memory, the fused passes of the Krylov methods and GMRES's block Gram-Schmidt. Each backend
 * fills it in its own file (ref/ref_vec.c, omp/omp_vec.c, cuda/cuda_vec.c with the kernels of cuda/cuda_vec.cu); vec.c
 * calls it as ctx->k->vec.<slot>. */
#ifndef PDS_VEC_KERNELS_H
#define PDS_VEC_KERNELS_H

#include "pdesolve.h"

struct pds_vec_kernels {
  /* vectors of length n */
  int (*set)(pds_ctx, pds_size n, pds_real a, pds_real *y);                                  /* y = a */
  int (*copy)(pds_ctx, pds_size n, const pds_real *x, pds_real *y);                          /* y = x */
  int (*scale)(pds_ctx, pds_size n, pds_real a, pds_real *y);                                /* y = a y */
  int (*axpby)(pds_ctx, pds_size n, pds_real a, const pds_real *x, pds_real b, pds_real *y); /* y = a x + b y */
  int (*waxpby)(pds_ctx, pds_size n, pds_real a, const pds_real *x, pds_real b, const pds_real *y,
                    pds_real *w);                                                                /* w = a x + b y */
  int (*pmult)(pds_ctx, pds_size n, const pds_real *x, const pds_real *y, pds_real *w);      /* w = x .* y */
  int (*pdiv)(pds_ctx, pds_size n, const pds_real *x, const pds_real *y, pds_real *w);       /* w = x ./ y */
  int (*dot)(pds_ctx, pds_size n, const pds_real *x, const pds_real *y, pds_real *d);        /* d = x . y */
  int (*norm_inf)(pds_ctx, pds_size n, const pds_real *x, pds_real *d);                      /* max |x_i| */
  /* fused, for the Krylov methods (one pass instead of two) */
  int (*axpbypcz)(pds_ctx, pds_size n, pds_real a, const pds_real *x, pds_real b, const pds_real *y, pds_real c,
                      pds_real *z);                                                         /* z = a x + b y + c z */
  int (*dot2)(pds_ctx, pds_size n, const pds_real *x, const pds_real *y, const pds_real *z,
                  pds_real *d);                                          /* d[0] = x . y, d[1] = x . z, same bits */
  /* reductions whose results stay in backend memory (d is a backend pointer): the Krylov methods keep their
     scalars there and copy them to the host once per iteration (one small device-to-host copy on a GPU) */
  int (*dot_into)(pds_ctx, pds_size n, const pds_real *x, const pds_real *y, pds_real *d);  /* d[0] = x . y */
  int (*dot2_into)(pds_ctx, pds_size n, const pds_real *x, const pds_real *y, const pds_real *z,
                       pds_real *d);                                       /* d[0] = x . y, d[1] = x . z */
  /* Block Gram-Schmidt steps for GMRES (CGS2), V: a host array of k backend pointers to n-vectors (k >= 1, up to
     the restart length + 1), s and c: backend memory (host memory on the CPU backends).
     vec_mdot_into:  s[i] = V_i . w for i < k; each s[i] has exactly the bits of vec_dot(V_i, w) on the same
                     backend (same chunks / grid, same tree). Bytes 8n (w) + 8kn (V), 2kn flops: w is read once per
                     pass (CUDA: one pass per batch of PDS_CUDA_MDOT_BATCH vectors).
     vec_maxpy_dev:  w = w - sum_i c[i] V_i, per entry t = w_j; for i = 0..k-1: t = (-c[i]) V_i,j + 1 t; w_j = t:
                     the bits of k successive vec_axpby(-c[i], V_i, 1, w). Bytes 16n (w) + 8kn (V), 3kn flops
                     (CUDA: w read and written once per batch). */
  int (*mdot_into)(pds_ctx, pds_size n, int k, const pds_real *const *V, const pds_real *w, pds_real *s);
  int (*maxpy_dev)(pds_ctx, pds_size n, int k, const pds_real *const *V, const pds_real *c, pds_real *w);
  /* permutation by blocks of bs (ILU's reorderings, a distributed product's halo): gather y_i = x_perm[i]
     (scatter = 0) or scatter y_perm[i] = x_i (scatter = 1), i < nb (x and y distinct; perm: backend memory) */
  int (*permute)(pds_ctx, pds_int nb, int bs, const pds_int *perm, int scatter, const pds_real *x, pds_real *y);
};

#endif
