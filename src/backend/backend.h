/* src/backend/backend.h: the kernel table each backend fills, and the backend registry.
 *
 * Two levels of dispatch: an object's ops say what it is (csr, cg), ctx->k says where it runs (ref, omp,
 * cuda). All array arguments are backend memory (host memory on CPU backends). Kernels return PDS_OK or an
 * error raised on ctx. /cpu/omp starts from a copy of the ref table and overrides what it optimizes; a
 * device backend starts from an empty table, and a NULL slot is reported as a missing kernel, never run on
 * the host behind the user's back. */
#ifndef PDS_BACKEND_H
#define PDS_BACKEND_H

#include "../sys/sys_impl.h"
#include "kernels_f32.h"

/* Matrix data as kernels see it. */
struct pds_csr {
  pds_int   nrows, ncols;
  pds_size  nnz;
  pds_size *rowptr; /* [nrows+1] */
  pds_int  *colidx; /* [nnz] */
  pds_real *vals;   /* [nnz] */
};
struct pds_bsr {
  pds_int   nbrows, nbcols;
  int       bs;
  pds_size  nnzb;
  pds_size *browptr; /* [nbrows+1] */
  pds_int  *bcolidx; /* [nnzb] */
  pds_real *vals;    /* [nnzb][bs][bs], row-major blocks */
};

/* P1 assembly maps as kernels see them (src/disc/disc_impl.h describes them): pattern and gather maps. */
struct pds_fem2d_maps {
  pds_int   n, ntri;
  pds_size  nnz;
  pds_size *rowptr; /* [n+1] */
  pds_int  *colidx; /* [nnz] */
  pds_size *gptr;   /* [nnz+1]: entry p sums Ke[gidx[q]], q in [gptr[p], gptr[p+1]) */
  pds_int  *gidx;   /* [9 ntri] */
  pds_size *nptr;   /* [n+1]: b_i sums fe[nidx[q]], q in [nptr[i], nptr[i+1]) */
  pds_int  *nidx;   /* [3 ntri] */
  pds_int  *tri;    /* [3 ntri] */
};

struct pds_kernels {
  const char *name;
  /* memory: NULL means host malloc/free (CPU backends) */
  int (*mem_alloc)(pds_ctx, size_t bytes, void **p);
  int (*mem_free)(pds_ctx, void *p);
  int (*mem_copy)(pds_ctx, void *dst, pds_memtype dmt, const void *src, pds_memtype smt, size_t bytes);
  int (*mem_zero)(pds_ctx, void *p, size_t bytes);
  int (*destroy)(pds_ctx); /* release backend_data */

  /* vectors of length n */
  int (*vec_set)(pds_ctx, pds_size n, pds_real a, pds_real *y);                                  /* y = a */
  int (*vec_copy)(pds_ctx, pds_size n, const pds_real *x, pds_real *y);                          /* y = x */
  int (*vec_scale)(pds_ctx, pds_size n, pds_real a, pds_real *y);                                /* y = a y */
  int (*vec_axpby)(pds_ctx, pds_size n, pds_real a, const pds_real *x, pds_real b, pds_real *y); /* y = a x + b y */
  int (*vec_waxpby)(pds_ctx, pds_size n, pds_real a, const pds_real *x, pds_real b, const pds_real *y,
                    pds_real *w);                                                                /* w = a x + b y */
  int (*vec_pmult)(pds_ctx, pds_size n, const pds_real *x, const pds_real *y, pds_real *w);      /* w = x .* y */
  int (*vec_pdiv)(pds_ctx, pds_size n, const pds_real *x, const pds_real *y, pds_real *w);       /* w = x ./ y */
  int (*vec_dot)(pds_ctx, pds_size n, const pds_real *x, const pds_real *y, pds_real *d);        /* d = x . y */
  int (*vec_norm_inf)(pds_ctx, pds_size n, const pds_real *x, pds_real *d);                      /* max |x_i| */
  /* fused, for the Krylov methods (one pass instead of two) */
  int (*vec_axpbypcz)(pds_ctx, pds_size n, pds_real a, const pds_real *x, pds_real b, const pds_real *y, pds_real c,
                      pds_real *z);                                                         /* z = a x + b y + c z */
  int (*vec_dot2)(pds_ctx, pds_size n, const pds_real *x, const pds_real *y, const pds_real *z,
                  pds_real *d);                                          /* d[0] = x . y, d[1] = x . z, same bits */
  /* reductions whose results stay in backend memory (d is a backend pointer): the Krylov methods keep their
     scalars there and copy them to the host once per iteration (one small device-to-host copy on a GPU) */
  int (*vec_dot_into)(pds_ctx, pds_size n, const pds_real *x, const pds_real *y, pds_real *d);  /* d[0] = x . y */
  int (*vec_dot2_into)(pds_ctx, pds_size n, const pds_real *x, const pds_real *y, const pds_real *z,
                       pds_real *d);                                       /* d[0] = x . y, d[1] = x . z */
  /* Block Gram-Schmidt steps for GMRES (CGS2), V: a host array of k backend pointers to n-vectors (k >= 1, up to
     the restart length + 1), s and c: backend memory (host memory on the CPU backends).
     vec_mdot_into:  s[i] = V_i . w for i < k; each s[i] has exactly the bits of vec_dot(V_i, w) on the same
                     backend (same chunks / grid, same tree). Bytes 8n (w) + 8kn (V), 2kn flops: w is read once per
                     pass (CUDA: one pass per batch of PDS_CUDA_MDOT_BATCH vectors).
     vec_maxpy_dev:  w = w - sum_i c[i] V_i, per entry t = w_j; for i = 0..k-1: t = (-c[i]) V_i,j + 1 t; w_j = t:
                     the bits of k successive vec_axpby(-c[i], V_i, 1, w). Bytes 16n (w) + 8kn (V), 3kn flops
                     (CUDA: w read and written once per batch). */
  int (*vec_mdot_into)(pds_ctx, pds_size n, int k, const pds_real *const *V, const pds_real *w, pds_real *s);
  int (*vec_maxpy_dev)(pds_ctx, pds_size n, int k, const pds_real *const *V, const pds_real *c, pds_real *w);
  /* fused Krylov steps (Ginkgo's cg step_1/step_2 idea): one pass instead of two or three. S is the method's
     scalar vector in backend memory, laid out as src/backend/krylov_step.h says (S[0..8): the reductions; the
     carried scalars PDS_KS_ALPHA, ...; PDS_KS_XP: what the update kernels do). Every scalar comes from S, never
     from the host, so an iteration can be queued (or captured in a graph) without waiting for the last one. Every
     expression is the one the unfused solver evaluates, so a backend that composes these from its own kernels
     (ref does) gives the unfused bits.
     cg_update_r:    a = S[RHO] / S[0] if S[0] is finite and nonzero, else 0;  r = -a q + 1 r;  S[1] = r . r;
                     then, when step >= 0, the scalar step `step` on S (krylov_step's work, in the same kernel on a
                     device: one launch less per iteration)
     cg_update_xp:   with m = S[XP]: m & X: x = S[ALPHA] p + 1 x; m & P: p = 1 z + S[BETA] p   (x first)
     bicg_update_s:  a = S[RHO] / S[0] if S[0] is finite and nonzero, else 0;  w = -a v + 1 r;  S[1] = w . w
     bicg_update_r:  o = S[2] / S[3] if S[3] is finite and nonzero, else 0;  r = -o t + 1 w;
                     S[4] = r . rhat;  S[5] = r . r;  then the scalar step `step` when step >= 0 (as cg_update_r)
     bicg_update_xp: with m = S[XP], alpha, omega, beta from S: m & X: x = alpha ph + omega sh + 1 x;
                     m & HALF: x = alpha ph + 1 x; m & P: p = 1 r + (-beta omega) v + beta p  (ph may alias p)
     krylov_step:    the scalar step of a method on S (krylov_step.h: PDS_KS_STEP_CG -> pds_ks_cg_step, ...): one
                     thread's work; a device backend runs it as a one-thread kernel
     krylov_set:     S[0 .. PDS_KS_N) = v (host values), queued without waiting for the device (a solve's start) */
  int (*cg_update_r)(pds_ctx, pds_size n, const pds_real *q, pds_real *r, pds_real *S, int step);
  int (*cg_update_xp)(pds_ctx, pds_size n, const pds_real *z, pds_real *x, pds_real *p, const pds_real *S);
  int (*bicg_update_s)(pds_ctx, pds_size n, const pds_real *r, const pds_real *v, pds_real *w, pds_real *S);
  int (*bicg_update_r)(pds_ctx, pds_size n, const pds_real *w, const pds_real *t, const pds_real *rhat, pds_real *r,
                       pds_real *S, int step);
  int (*bicg_update_xp)(pds_ctx, pds_size n, const pds_real *ph, const pds_real *sh, const pds_real *r,
                        const pds_real *v, pds_real *x, pds_real *p, const pds_real *S);
  /* optional (NULL, or *done = 0: the caller queues the steps one by one): one whole iteration of cg / bicgstab
     without a preconditioner on a csr operator in one launch, where the backend can (/gpu/cuda: n <= 2048 and a
     thread- or sub-warp-per-row product plan, cuda_small.cu), with the bits of the sequence it replaces:
       cg_iteration:   csr_spmv_dot(A, p -> q, w1 = p, d = S); cg_update_r(q, r, S, PDS_KS_STEP_CG);
                       cg_update_xp(z = r, x, p, S)
       bicg_iteration: csr_spmv_dot(A, p -> v, w1 = rhat, d = S); bicg_update_s(r, v -> s, S);
                       csr_spmv_dot(A, s -> t, w1 = s, w2 = t, d = S + 2); bicg_update_r(s, t, rhat -> r, S,
                       PDS_KS_STEP_BICG); bicg_update_xp(ph = p, sh = s, r, v, x, p, S) */
  int (*cg_iteration)(pds_ctx, const struct pds_csr *A, pds_real *x, pds_real *r, pds_real *p, pds_real *q,
                      pds_real *S, int *done);
  int (*bicg_iteration)(pds_ctx, const struct pds_csr *A, pds_real *x, pds_real *r, const pds_real *rhat,
                        pds_real *p, pds_real *v, pds_real *s, pds_real *t, pds_real *S, int *done);
  int (*krylov_step)(pds_ctx, int method, pds_real *S);
  int (*krylov_set)(pds_ctx, pds_real *S, const pds_real *v);
  /* optional (device backends; NULL: the solver's host loop): iterations run by the device, the host reading each
     one's record afterwards (src/solver/loop.c drives them; cuda.c says how /gpu/cuda does it).
     loop_begin:  start recording this context's launches as the body of a device-side loop over S whose first
                  iteration is number first, for vectors of length n (the solver then queues *copies iterations, each
                  ending in krylov_step and the update kernel: the backend picks copies from n); *loop: NULL the first
                  time, then the same handle again (the backend may keep what it made for the last recording);
                  PDS_ERR_UNSUPPORTED: no device loops here (the host loop goes on);
     loop_end:    end the recording and make the loop runnable;
     loop_restart: run the loop last recorded again, from iteration first (instead of loop_begin, body, loop_end:
                  the caller knows that nothing the body used has changed);
     loop_next:   the record of the next iteration, rec[0..5) = S[PDS_KS_IT .. PDS_KS_ITS], waiting for it (the
                  device runs ahead; it stops by itself after an iteration whose S[PDS_KS_REASON] is not 0);
     loop_finish: stop the device at the next iteration boundary if it still runs and wait (also after a failed
                  loop_begin / loop_end / loop_next: a recording still on is ended; loop may be NULL);
     loop_free:   release the handle (its owner, the solver, is destroyed). */
  int (*loop_begin)(pds_ctx, pds_real *S, int first, pds_int n, void **loop, int *copies);
  int (*loop_free)(pds_ctx, void *loop);
  int (*loop_end)(pds_ctx, void *loop);
  int (*loop_restart)(pds_ctx, void *loop, int first);
  int (*loop_next)(pds_ctx, void *loop, pds_real *rec);
  int (*loop_finish)(pds_ctx, void *loop);
  /* y = A x with dots of the result in the same pass (the Krylov methods' product and the reduction after it):
     d[0] = y . w1, and d[1] = y . w2 when w2 != NULL (w1 may be x, w2 may be y; d: backend memory). ref composes
     csr_spmv (alpha 1, beta 0) with vec_dot / vec_dot2, which is what the unfused sequence computes. */
  int (*csr_spmv_dot)(pds_ctx, const struct pds_csr *A, const pds_real *x, pds_real *y, const pds_real *w1,
                      const pds_real *w2, pds_real *d);

  /* sparse matrices: y = alpha A x + beta y (beta = 0: y is not read) */
  int (*csr_spmv)(pds_ctx, const struct pds_csr *A, pds_real alpha, const pds_real *x, pds_real beta, pds_real *y);
  int (*csr_spmv_t)(pds_ctx, const struct pds_csr *A, pds_real alpha, const pds_real *x, pds_real beta, pds_real *y);
  /* optional: r = b - A x in one pass, each entry csr_spmv's -1 s + 1 b_i (its bits with y = b); NULL: the matrix
     layer copies b to r and calls csr_spmv (alpha -1, beta 1) */
  int (*csr_residual)(pds_ctx, const struct pds_csr *A, const pds_real *x, const pds_real *b, pds_real *r);
  int (*bsr_spmv)(pds_ctx, const struct pds_bsr *A, pds_real alpha, const pds_real *x, pds_real beta, pds_real *y);
  /* optional: one line (no newline) saying how this backend runs A's product, for -view ("cuda plan: stream
     kernel"); NULL where there is nothing to tell (ref, omp) */
  int (*csr_describe)(pds_ctx, const struct pds_csr *A, char *buf, size_t len);
  int (*csr_diag)(pds_ctx, const struct pds_csr *A, pds_real *d);                 /* d_i = a_ii */
  int (*bsr_diag)(pds_ctx, const struct pds_bsr *A, pds_real *d);                 /* scalar diagonal */

  /* P1 assembly (src/disc/fem2d.c drives it; every backend runs the functions of src/backend/fem2d_kernels.h, so
     all give the same bits). Arrays in backend memory.
     fem2d_element: fem2d_element() for every triangle: Ke [6 ntri], fe [3 ntri] from xy [2 n]; kv (per-triangle
                    k) and fm (source at the edge midpoints, 3 per triangle) may be NULL (then the constants k, f).
                    *bad (host) = the smallest triangle fem2d_element() rejects, or -1.
     fem2d_gather:  fem2d_gather_row() for every row: vals [nnz], b [n]; isd [n] marks Dirichlet nodes, g [n] their
                    values (NULL: gc for all); symmetric: PDS_DIRICHLET_SYMMETRIC. */
  int (*fem2d_element)(pds_ctx, const struct pds_fem2d_maps *m, const pds_real *xy, pds_real k, const pds_real *kv,
                       pds_real f, const pds_real *fm, pds_real *Ke, pds_real *fe, pds_int *bad);
  int (*fem2d_gather)(pds_ctx, const struct pds_fem2d_maps *m, const pds_real *Ke, const pds_real *fe,
                      const unsigned char *isd, const pds_real *g, pds_real gc, int symmetric, pds_real *vals,
                      pds_real *b);

  /* point-block Jacobi: invert nb dense bs x bs row-major blocks in place by Gauss-Jordan with partial
     pivoting; on a singular block set *bad to its index and return PDS_OK (the caller raises the error).
     *bad = -1 when all blocks were inverted. */
  int (*blocks_invert)(pds_ctx, pds_size nb, int bs, pds_real *blocks, pds_size *bad);
  /* y = blockdiag(inv) x for nb blocks of size bs */
  int (*blocks_apply)(pds_ctx, pds_size nb, int bs, const pds_real *inv, const pds_real *x, pds_real *y);

  /* single precision (kernels_f32.h): the kernels of a single-precision solve; a slot is named f32.name */
  struct pds_kernels_f32 f32;
};

/* Raise "backend X has no kernel K" when a slot is empty. */
#define PDS_KERNEL(ctx, slot)                                                                          \
  do {                                                                                                 \
    if (!(ctx)->k->slot)                                                                               \
      return pds_error((ctx), __FILE__, __LINE__, __func__, PDS_ERR_UNSUPPORTED,                       \
                       "backend %s has no kernel '%s'", (ctx)->backend, #slot);                        \
  } while (0)

/* Backend init hooks: fill *k for the resource, set ctx->backend_data. */
typedef int (*pds_backend_init)(pds_ctx ctx, const char *resource, struct pds_kernels *k);
PDS_INTERN int pds_backend_init_ref(pds_ctx ctx, const char *resource, struct pds_kernels *k);
PDS_INTERN int pds_backend_init_omp(pds_ctx ctx, const char *resource, struct pds_kernels *k);
PDS_INTERN int pds_backend_init_cuda(pds_ctx ctx, const char *resource, struct pds_kernels *k);
/* Whether a compiled backend can run here (a GPU present); used by "auto". */
PDS_INTERN int pds_backend_available_cuda(void);

/* The ref table, for backends that start from it. */
PDS_INTERN void pds_kernels_fill_ref(struct pds_kernels *k);
/* ref's single-precision group (ref_f32.c); pds_kernels_fill_ref calls it */
PDS_INTERN void pds_kernels_fill_ref_f32(struct pds_kernels_f32 *k);

/* Shared dense helpers (in ref): Gauss-Jordan inversion of one bs x bs row-major block with partial
   pivoting; returns 0 on success, -1 if singular (pivot exactly zero or not finite). */
PDS_INTERN int pds_block_invert(int bs, pds_real *a);

#endif
