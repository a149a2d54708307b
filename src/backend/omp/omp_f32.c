/* src/backend/omp/omp_f32.c: /cpu/omp's single-precision kernel group (kernels_f32.h): kernel_bodies_f32.h's loops
 * over each thread's part, bitwise /cpu/ref's results for any thread count, as omp.c's double kernels:
 * - elementwise kernels and the x, p updates: each entry is ref's expression (the same body), parts as OMP_PARTS
 *   cuts them;
 * - reductions (vec_dot2 and, through ref's composition, vec_dot_into) and the fused steps that end in one: ref's
 *   chunks of PDS_REDUCE_CHUNK entries, each chunk first updated (the fused steps) then dotted while in cache, the
 *   chunk partials (in double) computed in parallel and added in chunk order on one thread: ref's tree;
 * - csr_spmv, csr_residual (ref's -1 s + 1 b_i, b read in place of a copy in r) and csr_spmv_dot over rows balanced
 *   by nonzeros (row_range, chunk_range), each row csr_rows_f32's float sum in ref's order.
 * Small sizes run on the calling thread without an OpenMP call (omp_impl.h's thresholds). Byte models: per entry,
 * each array touched once, no write-allocate reads (as omp.c's). */
#include <math.h>

#include "../krylov_step.h"
#include "../kernel_bodies_f32.h"
#include "omp_impl.h"

/* y = (float)x: 12 bytes, 0 flops */
static int to_f32_omp(pds_ctx ctx, pds_size n, const double *x, float *y) {
  (void)ctx;
  OMP_PARTS(n, i0, i1, to_f32_range(x, y, i0, i1));
  return PDS_OK;
}

/* x = (double)y: 12 bytes, 0 flops */
static int to_f64_omp(pds_ctx ctx, pds_size n, const float *y, double *x) {
  (void)ctx;
  OMP_PARTS(n, i0, i1, to_f64_range(y, x, i0, i1));
  return PDS_OK;
}

/* y = (float)a: 4 bytes, 0 flops */
static int vec_set_f32_omp(pds_ctx ctx, pds_size n, double a, float *y) {
  (void)ctx;
  OMP_PARTS(n, i0, i1, set_f32_range(a, y, i0, i1));
  return PDS_OK;
}

/* y = x: 8 bytes, 0 flops */
static int vec_copy_f32_omp(pds_ctx ctx, pds_size n, const float *x, float *y) {
  (void)ctx;
  if (!n || x == y) return PDS_OK;
  OMP_PARTS(n, i0, i1, copy_f32_range(x, y, i0, i1));
  return PDS_OK;
}

/* y = a x + b y (b = 0: y not read): 12 bytes, 3 flops (b = 0: 8 bytes, 1 flop) */
static int vec_axpby_f32_omp(pds_ctx ctx, pds_size n, double a, const float *x, double b, float *y) {
  (void)ctx;
  OMP_PARTS(n, i0, i1, axpby_f32_range(a, x, b, y, i0, i1));
  return PDS_OK;
}

/* z = (a x + b y) + c z: 16 bytes, 5 flops */
static int vec_axpbypcz_f32_omp(pds_ctx ctx, pds_size n, double a, const float *x, double b, const float *y, double c,
                                float *z) {
  (void)ctx;
  OMP_PARTS(n, i0, i1, axpbypcz_f32_range(a, x, b, y, c, z, i0, i1));
  return PDS_OK;
}

/* w = x ./ (float)d: 16 bytes, 1 flop */
static int vec_pdiv_f32_omp(pds_ctx ctx, pds_size n, const float *x, const double *d, float *w) {
  (void)ctx;
  OMP_PARTS(n, i0, i1, pdiv_f32_range(x, d, w, i0, i1));
  return PDS_OK;
}

/* What one reduction chunk computes: for the vector kernels, with w != NULL, the chunk of w is first updated as ref's
   composition does it (w = y unless w is y, then w = a x + 1 w: axpby_f32_range), and u = w, else u = x; then
   p[0] = u . z1 and, with z2, p[1] = u . z2 (chunk_dot_f32, chunk_dot2_f32; z1, z2 may be u). For csr_spmv_dot
   (A != NULL): the chunk's rows of y = A x (csr_rows_f32, alpha 1, beta 0), then u = y. */
typedef struct {
  const struct pds_csr *A;
  const float          *vals;
  double                a;
  const float          *x, *y, *z1, *z2;
  float                *w;
} chunk_job;

static void chunk_f32(const chunk_job *j, pds_size i0, pds_size i1, double *p) {
  const float *u = j->x;

  if (j->A) {
    csr_rows_f32(j->A, j->vals, 1.0, j->x, 0.0, j->w, j->w, (pds_int)i0, (pds_int)i1);
    u = j->w;
  } else if (j->w) {
    if (j->w != j->y) copy_f32_range(j->y, j->w, i0, i1);
    axpby_f32_range(j->a, j->x, 1.0, j->w, i0, i1);
    u = j->w;
  }
  if (j->z2) chunk_dot2_f32(u, j->z1, j->z2, i0, i1, &p[0], &p[1]);
  else p[0] = chunk_dot_f32(u, j->z1, i0, i1);
}

/* d[0] (and d[1] with z2) = the partials of the n entries' chunks added in chunk order from 0: ref's tree, for any
   thread count. work: the job's size for the threshold (entries, or nnz + rows); the chunks go to the threads as
   schedule(static) cuts them (vectors) or by chunk_range (rows balanced by nonzeros) for a matrix. */
static int chunk_sums_f32(pds_ctx ctx, pds_size n, pds_size work, const chunk_job *j, double *d) {
  pds_size nc = (n + PDS_REDUCE_CHUNK - 1) / PDS_REDUCE_CHUNK;
  int      nd = j->z2 ? 2 : 1;
  double  *part, s[2] = {0, 0}, loc[2];

  if (work < (j->A ? OMP_MIN_WORK : OMP_MIN_N)) { /* on the calling thread, no workspace */
    for (pds_size c = 0; c < nc; c++) {
      chunk_f32(j, c * PDS_REDUCE_CHUNK, c + 1 < nc ? (c + 1) * PDS_REDUCE_CHUNK : n, loc);
      for (int k = 0; k < nd; k++) s[k] += loc[k];
    }
  } else {
    PDS_CALL(pds_ctx_work(ctx, (size_t)nd * nc, &part));
#pragma omp parallel
    {
      int      t = omp_get_thread_num(), nt = omp_get_num_threads();
      pds_size c0, c1;

      if (j->A) chunk_range(j->A->rowptr, j->A->nrows, t, nt, &c0, &c1);
      else static_range(nc, t, nt, &c0, &c1);
      for (pds_size c = c0; c < c1; c++)
        chunk_f32(j, c * PDS_REDUCE_CHUNK, c + 1 < nc ? (c + 1) * PDS_REDUCE_CHUNK : n, part + (size_t)nd * c);
    }
    for (pds_size c = 0; c < nc; c++)
      for (int k = 0; k < nd; k++) s[k] += part[(size_t)nd * c + k];
  }
  for (int k = 0; k < nd; k++) d[k] = s[k];
  return PDS_OK;
}

/* d[0] = x . y (d[1] = x . z when z != NULL): 8 bytes, 2 flops (z: 12 bytes, 4 flops) */
static int vec_dot2_f32_omp(pds_ctx ctx, pds_size n, const float *x, const float *y, const float *z, double *d) {
  const chunk_job j = {.x = x, .z1 = y, .z2 = z};

  return chunk_sums_f32(ctx, n, n, &j, d);
}

/* r = -a q + 1 r and S[1] = r . r in one pass (a as ref's cg_update_r): 12 bytes, 5 flops (16 unfused) */
static int cg_update_r_f32_omp(pds_ctx ctx, pds_size n, const float *q, float *r, double *S, int step) {
  const chunk_job j = {.a = -pds_ks_ratio(S, PDS_KS_RHO, 0), .x = q, .y = r, .w = r, .z1 = r};

  PDS_CALL(chunk_sums_f32(ctx, n, n, &j, &S[1]));
  return step >= 0 ? ctx->k->krylov.step(ctx, step, S) : PDS_OK;
}

/* w = -a v + 1 r and S[1] = w . w in one pass: 12 bytes, 5 flops (24 unfused) */
static int bicg_update_s_f32_omp(pds_ctx ctx, pds_size n, const float *r, const float *v, float *w, double *S) {
  const chunk_job j = {.a = -pds_ks_ratio(S, PDS_KS_RHO, 0), .x = v, .y = r, .w = w, .z1 = w};

  return chunk_sums_f32(ctx, n, n, &j, &S[1]);
}

/* r = -o t + 1 w, S[4] = r . rhat, S[5] = r . r in one pass: 16 bytes, 7 flops (28 unfused) */
static int bicg_update_r_f32_omp(pds_ctx ctx, pds_size n, const float *w, const float *t, const float *rhat, float *r,
                                 double *S, int step) {
  const chunk_job j = {.a = -pds_ks_ratio(S, 2, 3), .x = t, .y = w, .w = r, .z1 = rhat, .z2 = r};

  PDS_CALL(chunk_sums_f32(ctx, n, n, &j, &S[4]));
  return step >= 0 ? ctx->k->krylov.step(ctx, step, S) : PDS_OK;
}

/* The x and p updates in one pass over blocks of XP_BLOCK entries (x's update of a block, then p's, while the block
   is in cache): each entry has ref's expressions in ref's order (x first, so ph = p is read before p is written) */
#define XP_BLOCK 1024

/* m & X: x = S[ALPHA] p + 1 x; m & P: p = 1 z + S[BETA] p: 20 bytes, 6 flops (24 unfused) */
static int cg_update_xp_f32_omp(pds_ctx ctx, pds_size n, const float *z, float *x, float *p, const double *S) {
  const int    m  = (int)S[PDS_KS_XP];
  const double al = S[PDS_KS_ALPHA], be = S[PDS_KS_BETA];

  (void)ctx;
  if (!(m & (PDS_KS_XP_X | PDS_KS_XP_P))) return PDS_OK;
  OMP_PARTS(n, i0, i1, for (pds_size b0 = i0; b0 < i1; b0 += XP_BLOCK) {
    pds_size b1 = b0 + XP_BLOCK < i1 ? b0 + XP_BLOCK : i1;

    if (m & PDS_KS_XP_X) axpby_f32_range(al, p, 1.0, x, b0, b1);
    if (m & PDS_KS_XP_P) axpby_f32_range(1.0, z, be, p, b0, b1);
  });
  return PDS_OK;
}

/* m & X: x = (al ph + om sh) + 1 x; m & HALF: x = al ph + 1 x; m & P: p = (1 r + (-be om) v) + be p: 28 bytes (24
   when ph is p), 10 flops (32 bytes unfused) */
static int bicg_update_xp_f32_omp(pds_ctx ctx, pds_size n, const float *ph, const float *sh, const float *r,
                                  const float *v, float *x, float *p, const double *S) {
  const int    m  = (int)S[PDS_KS_XP];
  const double al = S[PDS_KS_ALPHA], om = S[PDS_KS_OMEGA], be = S[PDS_KS_BETA];

  (void)ctx;
  if (!(m & (PDS_KS_XP_X | PDS_KS_XP_HALF | PDS_KS_XP_P))) return PDS_OK;
  OMP_PARTS(n, i0, i1, for (pds_size b0 = i0; b0 < i1; b0 += XP_BLOCK) {
    pds_size b1 = b0 + XP_BLOCK < i1 ? b0 + XP_BLOCK : i1;

    if (m & PDS_KS_XP_X) axpbypcz_f32_range(al, ph, om, sh, 1.0, x, b0, b1);
    if (m & PDS_KS_XP_HALF) axpby_f32_range(al, ph, 1.0, x, b0, b1);
    if (m & PDS_KS_XP_P) axpbypcz_f32_range(1.0, r, -be * om, v, be, p, b0, b1);
  });
  return PDS_OK;
}

/* y = alpha A x + beta z over all rows (z: y, or b for the residual), each thread its row_range part */
static void csr_rows_f32_omp(const struct pds_csr *A, const float *vals, double alpha, const float *x, double beta,
                             const float *z, float *y) {
  if (A->nnz + A->nrows < OMP_MIN_WORK) {
    csr_rows_f32(A, vals, alpha, x, beta, z, y, 0, A->nrows);
    return;
  }
#pragma omp parallel
  {
    pds_int r0, r1;

    row_range(A->rowptr, A->nrows, 1, omp_get_thread_num(), omp_get_num_threads(), &r0, &r1);
    csr_rows_f32(A, vals, alpha, x, beta, z, y, r0, r1);
  }
}

/* y = alpha A x + beta y: 8 nnz + 8 nrows (rowptr) + 4 nrows (y; 8 with beta != 0) + 4 ncols (x, at best) bytes,
   2 nnz flops (+ 1 or 3 per row) */
static int csr_spmv_f32_omp(pds_ctx ctx, const struct pds_csr *A, const float *vals, double alpha, const float *x,
                            double beta, float *y) {
  (void)ctx;
  csr_rows_f32_omp(A, vals, alpha, x, beta, y, y);
  return PDS_OK;
}

/* r = b - A x in one pass, each entry ref's -1 s + 1 b_i (b read where ref reads its copy in r): csr_spmv's bytes
   with beta != 0, 8 nrows less than ref's copy and product */
static int csr_residual_f32_omp(pds_ctx ctx, const struct pds_csr *A, const float *vals, const float *x,
                                const float *b, float *r) {
  (void)ctx;
  csr_rows_f32_omp(A, vals, -1.0, x, 1.0, b, r);
  return PDS_OK;
}

/* y = A x with d[0] = y . w1 (d[1] = y . w2) in one pass: each reduction chunk's rows, then its dots while y is in
   cache: csr_spmv's bytes + 4 nrows per w that is not y (4 nrows less than the product and the dots apart) */
static int csr_spmv_dot_f32_omp(pds_ctx ctx, const struct pds_csr *A, const float *vals, const float *x, float *y,
                                const float *w1, const float *w2, double *d) {
  const chunk_job j = {.A = A, .vals = vals, .x = x, .w = y, .z1 = w1, .z2 = w2};

  return chunk_sums_f32(ctx, (pds_size)A->nrows, A->nnz + (pds_size)A->nrows, &j, d);
}

void pds_kernels_fill_omp_f32(struct pds_kernels_f32 *k) {
  k->to_f32         = to_f32_omp;
  k->to_f64         = to_f64_omp;
  k->vec_set        = vec_set_f32_omp;
  k->vec_copy       = vec_copy_f32_omp;
  k->vec_axpby      = vec_axpby_f32_omp;
  k->vec_axpbypcz   = vec_axpbypcz_f32_omp;
  k->vec_pdiv       = vec_pdiv_f32_omp;
  k->vec_dot2       = vec_dot2_f32_omp;
  k->cg_update_r    = cg_update_r_f32_omp;
  k->cg_update_xp   = cg_update_xp_f32_omp;
  k->bicg_update_s  = bicg_update_s_f32_omp;
  k->bicg_update_r  = bicg_update_r_f32_omp;
  k->bicg_update_xp = bicg_update_xp_f32_omp;
  k->csr_spmv       = csr_spmv_f32_omp;
  k->csr_residual   = csr_residual_f32_omp;
  k->csr_spmv_dot   = csr_spmv_dot_f32_omp;
}
