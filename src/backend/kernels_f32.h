/* src/backend/kernels_f32.h: the single-precision kernel group (struct pds_kernels' member f32), the kernels a
 * single-precision Krylov solve needs (src/solver/precision.c): vectors of float, a CSR matrix's values in float,
 * the method's scalar vector S in double.
 *
 * Numerics, the same on every backend:
 *   - elementwise work in float: each scalar coefficient (given as a double, or read from S) is rounded to float
 *     once, then every operation is a float operation (no contraction into FMA on the CPU backends; the CUDA
 *     kernels are compiled with -fmad=false);
 *   - reductions accumulate (double)x_i * (double)y_i in double, in the order of the double-precision kernel of the
 *     same backend (chunks of PDS_REDUCE_CHUNK with four partial sums on the CPU, cuda_reduce.cuh's tree on the GPU),
 *     so they are deterministic and ref and omp agree bit for bit;
 *   - a CSR row sum is a float sum in the row's order (ref and omp), or in the order of the backend's plan (CUDA).
 * Byte models (n entries, 4-byte floats, nnz stored entries with 4-byte values and indices): half the double
 * kernels' vector bytes: axpbypcz 16n, dot 8n, dot2 12n, cg_update_r 12n, cg_update_xp 20n, bicg_update_s 12n,
 * bicg_update_r 16n, bicg_update_xp 28n; csr_spmv 8 nnz + 8 nrows (rowptr) + 4 nrows (y) + x's traffic (4 ncols
 * at best) against 12 nnz + 8 nrows + 8 nrows + 8 ncols in double.
 * A backend without a slot raises "backend X has no kernel 'f32.slot'" (PDS_KERNEL), like any other slot. */
#ifndef PDS_KERNELS_F32_H
#define PDS_KERNELS_F32_H

struct pds_csr;

struct pds_kernels_f32 {
  /* conversions: y = (float)x rounded to nearest; x = (double)y exactly */
  int (*to_f32)(pds_ctx, pds_size n, const double *x, float *y);
  int (*to_f64)(pds_ctx, pds_size n, const float *y, double *x);
  int (*vec_set)(pds_ctx, pds_size n, double a, float *y);                     /* y = (float)a */
  int (*vec_copy)(pds_ctx, pds_size n, const float *x, float *y);              /* y = x */
  int (*vec_axpby)(pds_ctx, pds_size n, double a, const float *x, double b, float *y); /* y = a x + b y (b = 0: y not read) */
  /* z = a x + b y + c z, evaluated as (a x + b y) + c z in float with a, b, c rounded to float */
  int (*vec_axpbypcz)(pds_ctx, pds_size n, double a, const float *x, double b, const float *y, double c, float *z);
  int (*vec_pdiv)(pds_ctx, pds_size n, const float *x, const double *d, float *w); /* w = x ./ (float)d */
  /* d[0] = x . y, and d[1] = x . z when z != NULL (host memory d), accumulated in double */
  int (*vec_dot2)(pds_ctx, pds_size n, const float *x, const float *y, const float *z, double *d);
  int (*vec_dot_into)(pds_ctx, pds_size n, const float *x, const float *y, double *d); /* d (backend) = x . y */
  /* the fused Krylov steps of struct pds_kernels (backend.h), on float vectors with S in double: the scalars they
     read from S are rounded to float, the reductions they write into S are accumulated in double. Exactly (f():
     rounding of a double to float; every other operation a float one, left to right, no FMA):
     cg_update_r:    a = f(S[RHO] / S[0]) if S[0] is finite and nonzero, else 0; r_i = -a q_i + r_i; S[1] = r . r;
                     then the step `step` on S when step >= 0 (as the double slot)
     cg_update_xp:   m = S[XP], al = f(S[ALPHA]), be = f(S[BETA]): m & X: x_i = al p_i + x_i;
                     m & P: p_i = z_i + be p_i (x first)
     bicg_update_s:  a = f(S[RHO] / S[0]) if S[0] is finite and nonzero, else 0; w_i = -a v_i + r_i; S[1] = w . w
     bicg_update_r:  o = f(S[2] / S[3]) if S[3] is finite and nonzero, else 0; r_i = -o t_i + w_i;
                     S[4] = r . rhat; S[5] = r . r; then the step when step >= 0
     bicg_update_xp: al = f(S[ALPHA]), om = f(S[OMEGA]), be = f(S[BETA]), bo = f(-S[BETA] * S[OMEGA]):
                     m & X: x_i = (al ph_i + om sh_i) + x_i; m & HALF: x_i = al ph_i + x_i;
                     m & P: p_i = (r_i + bo v_i) + be p_i (every entry read before any is written: ph may be p) */
  int (*cg_update_r)(pds_ctx, pds_size n, const float *q, float *r, double *S, int step);
  int (*cg_update_xp)(pds_ctx, pds_size n, const float *z, float *x, float *p, const double *S);
  int (*bicg_update_s)(pds_ctx, pds_size n, const float *r, const float *v, float *w, double *S);
  int (*bicg_update_r)(pds_ctx, pds_size n, const float *w, const float *t, const float *rhat, float *r, double *S,
                       int step);
  int (*bicg_update_xp)(pds_ctx, pds_size n, const float *ph, const float *sh, const float *r, const float *v,
                        float *x, float *p, const double *S);
  /* CSR products with A's pattern (A->rowptr, A->colidx: backend memory) and the float values vals [A->nnz]:
     csr_spmv:     y = alpha A x + beta y (beta = 0: y is not read), alpha and beta rounded to float
     csr_residual: r = b - A x
     csr_spmv_dot: y = A x; d[0] = y . w1, d[1] = y . w2 when w2 != NULL (d: backend memory, in double) */
  int (*csr_spmv)(pds_ctx, const struct pds_csr *A, const float *vals, double alpha, const float *x, double beta,
                  float *y);
  int (*csr_residual)(pds_ctx, const struct pds_csr *A, const float *vals, const float *x, const float *b, float *r);
  int (*csr_spmv_dot)(pds_ctx, const struct pds_csr *A, const float *vals, const float *x, float *y, const float *w1,
                      const float *w2, double *d);
};

#endif
