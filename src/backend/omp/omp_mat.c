/* src/backend/omp/omp_mat.c: /cpu/omp's matrix kernel groups (src/mat/mat_kernels.h): CSR rows balanced by
 * nonzeros with software prefetch, the product with its dots by reduction chunks, the residual, the transpose
 * product by fixed row parts, BSR rows, the diagonals. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>

#include "../kernel_bodies.h"
#include "omp_impl.h"

/* The CSR rows of /cpu/omp. Two measured effects (bench/peers/petsc_krylov and a variant study on an AMD EPYC
   Zen 4 and an Intel Xeon "Emerald Rapids" VM, poisson7 128^3, docs/dev.md):
   - each row's sum is one chain of dependent additions (ref's order, kept for its bits); on the Xeon one core is
     then bound by the addition latency, not by memory. Two rows are summed side by side (two independent
     chains, each still in ref's order): single-core time 24-27 -> 18-21 ms on the Xeon;
   - the hardware prefetchers alone leave the product at ~2/3 of the copy bandwidth (they stop at each 4 KiB
     page): the vals and colidx streams are prefetched PF_* entries ahead into L2 (locality 2: prefetcht1; the
     non-temporal hint this file used before lost up to 25% on the Xeon at two threads, and was level on the EPYC).
   Neither changes an operation or its order: the bits stay ref's. */
#if defined(__GNUC__)
#define OMP_PREFETCH(p) __builtin_prefetch((p), 0, 2)
#else
#define OMP_PREFETCH(p) ((void)0)
#endif
#define PF_VALS   512  /* reals */
#define PF_COLIDX 1024 /* indices */

/* csr_rows of kernel_bodies.h (the same per-row sum, j ascending from 0, so ref's bits), two rows at a time, with
   the vals and colidx streams prefetched PF_* entries ahead through two cursors (each cache line requested once),
   up to entry lim (the end of the caller's rows: a caller that runs its rows in pieces passes the end of the last
   piece). y = alpha A x + beta z (z = y for csr_spmv, z = b for the residual; z is not read when beta = 0). */
/* Advance the two prefetch cursors to PF_* entries past entry e (not beyond lim) */
PDS_INLINE void csr_prefetch_to(const struct pds_csr *A, pds_size e, pds_size lim, pds_size *pv, pds_size *pc) {
  for (; *pv < e + PF_VALS && *pv < lim; *pv += 64 / sizeof *A->vals) OMP_PREFETCH(A->vals + *pv);
  for (; *pc < e + PF_COLIDX && *pc < lim; *pc += 64 / sizeof *A->colidx) OMP_PREFETCH(A->colidx + *pc);
}

PDS_INLINE void csr_rows_pf(const struct pds_csr *A, pds_real alpha, const pds_real *restrict x, pds_real beta,
                            const pds_real *z, pds_real *y, pds_int r0, pds_int r1, pds_size lim) {
  const pds_size *rp = A->rowptr;
  const pds_int  *ci = A->colidx;
  const pds_real *v  = A->vals;
  pds_size        pv = rp[r0] + PF_VALS, pc = rp[r0] + PF_COLIDX;
  pds_int         i  = r0;

  for (; i + 1 < r1; i += 2) {
    pds_size a = rp[i], ae = rp[i + 1], b = ae, be = rp[i + 2];
    pds_real s = 0, t = 0;

    csr_prefetch_to(A, be, lim, &pv, &pc);
    for (; a < ae && b < be; a++, b++) {
      s += v[a] * x[ci[a]];
      t += v[b] * x[ci[b]];
    }
    for (; a < ae; a++) s += v[a] * x[ci[a]];
    for (; b < be; b++) t += v[b] * x[ci[b]];
    y[i]     = beta == 0 ? alpha * s : alpha * s + beta * z[i];
    y[i + 1] = beta == 0 ? alpha * t : alpha * t + beta * z[i + 1];
  }
  for (; i < r1; i++) {
    pds_size k = rp[i], e = rp[i + 1];
    pds_real s = 0;

    csr_prefetch_to(A, e, lim, &pv, &pc);
    for (; k < e; k++) s += v[k] * x[ci[k]];
    y[i] = beta == 0 ? alpha * s : alpha * s + beta * z[i];
  }
}

/* y = alpha A x + beta z over all rows, each thread its row_range part (rows balanced by nonzeros) */
static void csr_rows_par(const struct pds_csr *A, pds_real alpha, const pds_real *x, pds_real beta, const pds_real *z,
                         pds_real *y) {
#pragma omp parallel
  {
    pds_int r0, r1;

    row_range(A->rowptr, A->nrows, 1, omp_get_thread_num(), omp_get_num_threads(), &r0, &r1);
    /* a literal beta = 0 lets the compiler drop the per-row test; same arithmetic either way */
    if (beta == 0) csr_rows_pf(A, alpha, x, 0.0, z, y, r0, r1, A->rowptr[r1]);
    else csr_rows_pf(A, alpha, x, beta, z, y, r0, r1, A->rowptr[r1]);
  }
}

/* y = alpha A x + beta y, rows split by nonzeros. Bytes: nnz*(8+4) (vals, colidx) + (nrows+1)*8 (rowptr)
   + nrows*8 (y write; 16 with beta != 0) + ncols*8 (x, counted once: ideal reuse of the gathered entries).
   Flops: 2 nnz (+ 1 or 3 per row for alpha, beta). Each row is csr_rows' j-ascending sum: bitwise ref. */
static int csr_spmv_omp(pds_ctx ctx, const struct pds_csr *A, pds_real alpha, const pds_real *x, pds_real beta,
                        pds_real *y) {
  (void)ctx;
  if (A->nnz + A->nrows < OMP_MIN_WORK) {
    csr_rows(A, alpha, x, beta, y, 0, A->nrows);
    return PDS_OK;
  }
  csr_rows_par(A, alpha, x, beta, y, y);
  return PDS_OK;
}

/* Rows of chunk c: the product (prefetching up to entry lim), then the chunk's dots of y (still in cache) into p[0]
   (and p[1]) */
static void spmv_dot_chunk(const struct pds_csr *A, const pds_real *x, pds_real *y, const pds_real *w1,
                           const pds_real *w2, pds_size c, pds_size lim, pds_real *p) {
  pds_size e  = (c + 1) * PDS_REDUCE_CHUNK;
  pds_int  i0 = (pds_int)(c * PDS_REDUCE_CHUNK), i1 = e < (pds_size)A->nrows ? (pds_int)e : A->nrows;

  csr_rows_pf(A, 1.0, x, 0.0, y, y, i0, i1, lim);
  if (w2) chunk_dot2(y, w1, w2, i0, i1, &p[0], &p[1]);
  else p[0] = chunk_dot(y, w1, i0, i1);
}

/* y = A x with d[0] = y . w1 (and d[1] = y . w2) in one pass over y: the rows are multiplied chunk by chunk (the
   reduction's chunks of PDS_REDUCE_CHUNK rows) and each chunk is dotted while in cache; the partials are added in
   chunk order. So ref's bits (csr_spmv, then vec_dot or vec_dot2), for any thread count. Bytes: csr_spmv_omp's
   + 8 nrows per dot vector that is not y; 8 nrows less than the product and the dot apart (y is not re-read). */
static int csr_spmv_dot_omp(pds_ctx ctx, const struct pds_csr *A, const pds_real *x, pds_real *y, const pds_real *w1,
                            const pds_real *w2, pds_real *d) {
  pds_size  nc = ((pds_size)A->nrows + PDS_REDUCE_CHUNK - 1) / PDS_REDUCE_CHUNK;
  int       nd = w2 ? 2 : 1;
  pds_real *part, s[2] = {0, 0}, loc[2];

  if (A->nnz + A->nrows < OMP_MIN_WORK) { /* on the calling thread, no workspace */
    for (pds_size c = 0; c < nc; c++) {
      spmv_dot_chunk(A, x, y, w1, w2, c, A->nnz, loc);
      for (int k = 0; k < nd; k++) s[k] += loc[k];
    }
  } else {
    PDS_CALL(pds_ctx_work(ctx, (size_t)nd * nc, &part));
#pragma omp parallel
    {
      pds_size c0, c1, lim;

      chunk_range(A->rowptr, A->nrows, omp_get_thread_num(), omp_get_num_threads(), &c0, &c1);
      lim = A->rowptr[c1 * PDS_REDUCE_CHUNK < (pds_size)A->nrows ? c1 * PDS_REDUCE_CHUNK : (pds_size)A->nrows];
      for (pds_size c = c0; c < c1; c++) spmv_dot_chunk(A, x, y, w1, w2, c, lim, part + (size_t)nd * c);
    }
    for (pds_size c = 0; c < nc; c++)
      for (int k = 0; k < nd; k++) s[k] += part[(size_t)nd * c + k];
  }
  for (int k = 0; k < nd; k++) d[k] = s[k];
  return PDS_OK;
}

/* r = b - A x in one pass (csr_spmv_omp's rows with alpha -1, beta 1 and b read in place of y: its bits): csr_spmv's
   bytes, 8 nrows less than copying b first and 8 nrows less again than reading r back. */
static int csr_residual_omp(pds_ctx ctx, const struct pds_csr *A, const pds_real *x, const pds_real *b, pds_real *r) {
  (void)ctx;
  if (A->nnz + A->nrows < OMP_MIN_WORK) csr_rows_pf(A, -1.0, x, 1.0, b, r, 0, A->nrows, A->nnz);
  else csr_rows_par(A, -1.0, x, 1.0, b, r);
  return PDS_OK;
}

/* Sequential scatter, exactly ref's loop (for small matrices). */
static void csr_spmv_t_seq(const struct pds_csr *A, pds_real alpha, const pds_real *x, pds_real beta, pds_real *y) {
  if (beta == 0)
    for (pds_int j = 0; j < A->ncols; j++) y[j] = 0;
  else if (beta != 1)
    for (pds_int j = 0; j < A->ncols; j++) y[j] *= beta;
  for (pds_int i = 0; i < A->nrows; i++) {
    pds_real ax = alpha * x[i];

    for (pds_size k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) y[A->colidx[k]] += A->vals[k] * ax;
  }
}

/* Row parts of the transpose product: about this many stored entries each, at most T_MAX_PARTS. */
#define T_PART_NNZ  (1 << 19)
#define T_MAX_PARTS 64

/* Parts [0, P) of the rows (row_range with nt = P) and the column range [lo_p, hi_p] each one touches
   (lo_p > hi_p: none). Returns the total length of the ranges. */
static size_t t_ranges(const struct pds_csr *A, int P, pds_int *r0, pds_int *lo, pds_int *hi) {
  size_t total = 0;

  for (int p = 0; p < P; p++) {
    pds_int a, b;

    row_range(A->rowptr, A->nrows, 1, p, P, &a, &b);
    r0[p] = a, r0[p + 1] = b;
  }
#pragma omp parallel for schedule(static)
  for (int p = 0; p < P; p++) {
    pds_int mn = A->ncols, mx = -1;

    for (pds_size k = A->rowptr[r0[p]]; k < A->rowptr[r0[p + 1]]; k++) {
      mn = A->colidx[k] < mn ? A->colidx[k] : mn;
      mx = A->colidx[k] > mx ? A->colidx[k] : mx;
    }
    lo[p] = mn, hi[p] = mx;
  }
  for (int p = 0; p < P; p++) total += hi[p] >= lo[p] ? (size_t)(hi[p] - lo[p] + 1) : 0;
  return total;
}

/* y = alpha A^T x + beta y with private partial sums per row part.
 *
 * The rows are cut into P parts (balanced by nonzeros) where P depends on the matrix only: about T_PART_NNZ
 * entries per part, at most T_MAX_PARTS, halved while the parts' column ranges would need more than
 * ncols + nnz/2 reals of scratch (unstructured matrices); P = 1 is ref's sequential scatter. Part p scatters
 * its rows, in ref's order, into its own buffer over the columns it touches, b_p[j] = 0 + sum a_ij (alpha x_i);
 * then each thread owns a range of columns and forms y_j = (beta y_j or 0) + b_0[j] + b_1[j] + ... over the
 * parts that touch j, in part order. No atomics, no races.
 * Guarantee: the result depends on the matrix and the inputs only, not on the number of threads or the run
 * (deterministic). It is not bitwise ref's: ref adds each product to y_j in turn, here each part's products
 * are summed first, so y_j differs from ref by rounding (|error| <= nnz_j eps sum |a_ij alpha x_i| + ...)
 * where several parts meet, or beta != 0. With beta = 0 and a column inside one part's range (most columns of
 * a banded matrix) the bits are ref's (up to the sign of a zero).
 * Scratch: the part buffers live in ctx workspace (pds_ctx_work: kept by the context and reused), about ncols
 * plus the band width per part for a banded matrix.
 * Bytes: nnz*(4 + 12) (column ranges, then vals and colidx) + nrows*8 (x) + (nrows+1)*8 (rowptr) + 16 S
 * (buffers zeroed and read, S = total range) + ncols*8 (y written; 16 with beta != 0). Flops: 2 nnz + nrows
 * + S. */
static int csr_spmv_t_omp(pds_ctx ctx, const struct pds_csr *A, pds_real alpha, const pds_real *x, pds_real beta,
                          pds_real *y) {
  pds_int   r0[T_MAX_PARTS + 1], lo[T_MAX_PARTS], hi[T_MAX_PARTS];
  size_t    off[T_MAX_PARTS + 1], total = 0;
  pds_real *buf;
  int       P = (int)(A->nnz / T_PART_NNZ);

  P = P > T_MAX_PARTS ? T_MAX_PARTS : P;
  while (P > 1) {
    total = t_ranges(A, P, r0, lo, hi);
    if (total <= (size_t)A->ncols + (size_t)A->nnz / 2) break;
    P /= 2;
  }
  if (P < 2) {
    csr_spmv_t_seq(A, alpha, x, beta, y);
    return PDS_OK;
  }
  off[0] = 0;
  for (int p = 0; p < P; p++) off[p + 1] = off[p] + (hi[p] >= lo[p] ? (size_t)(hi[p] - lo[p] + 1) : 0);
  PDS_CALL(pds_ctx_work(ctx, total, &buf));
#pragma omp parallel
  {
    int      t = omp_get_thread_num(), nt = omp_get_num_threads();
    pds_size j0, j1;

    /* each part: zero its buffer, then ref's scatter loop over its rows into it */
#pragma omp for schedule(static)
    for (int p = 0; p < P; p++) {
      pds_real *b = buf + off[p]; /* b[j - lo_p] for j in [lo_p, hi_p] */
      pds_int   l = lo[p];

      for (size_t e = off[p]; e < off[p + 1]; e++) buf[e] = 0;
      for (pds_int i = r0[p]; i < r0[p + 1]; i++) {
        pds_real ax = alpha * x[i];

        for (pds_size k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) b[A->colidx[k] - l] += A->vals[k] * ax;
      }
    }
    /* this thread's columns: the starting value, then the parts' sums in part order */
    static_range(A->ncols, t, nt, &j0, &j1);
    for (pds_size j = j0; j < j1; j++) y[j] = beta == 0 ? 0 : beta == 1 ? y[j] : y[j] * beta;
    for (int p = 0; p < P; p++) {
      pds_size        a = lo[p] > j0 ? lo[p] : j0, e = hi[p] + 1 < j1 ? hi[p] + 1 : j1;
      const pds_real *b = buf + off[p];

      for (pds_size j = a; j < e; j++) y[j] += b[j - lo[p]];
    }
  }
  return PDS_OK;
}

/* bsr_rows / bsr_rows_generic of kernel_bodies.h, one block row at a time (the same arithmetic: ref's bits), with
   the vals and bcolidx streams prefetched ahead through cursors, as in csr_rows_pf but with the distances and the
   (non-temporal) hint the BSR product was tuned with on the EPYC. bs is a literal at the call sites of
   bsr_rows_pf_dispatch for 1..8, so bsr_rows is unrolled as in ref. */
#if defined(__GNUC__)
#define BSR_PREFETCH(p) __builtin_prefetch((p), 0, 0)
#else
#define BSR_PREFETCH(p) ((void)0)
#endif
#define PF_BVALS   256 /* reals */
#define PF_BCOLIDX 512 /* block indices */
PDS_INLINE void bsr_rows_pf(const struct pds_bsr *A, pds_real alpha, const pds_real *restrict x, pds_real beta,
                            pds_real *restrict y, pds_int r0, pds_int r1, int bs) {
  const pds_size *rp = A->browptr;
  pds_size        b2 = (pds_size)bs * bs, pv = rp[r0] * b2 + PF_BVALS, pc = rp[r0] + PF_BCOLIDX;
  pds_size        lim = rp[r1] * b2, limc = rp[r1];

  for (pds_int i = r0; i < r1; i++) {
    pds_size e = rp[i + 1];

    for (; pv < e * b2 + PF_BVALS && pv < lim; pv += 64 / sizeof *A->vals) BSR_PREFETCH(A->vals + pv);
    for (; pc < e + PF_BCOLIDX && pc < limc; pc += 64 / sizeof *A->bcolidx) BSR_PREFETCH(A->bcolidx + pc);
    if (bs <= 8) bsr_rows(A, bs, alpha, x, beta, y, i, i + 1);
    else bsr_rows_generic(A, bs, alpha, x, beta, y, i, i + 1);
  }
}

PDS_INLINE void bsr_rows_pf_dispatch(const struct pds_bsr *A, pds_real alpha, const pds_real *x, pds_real beta,
                                     pds_real *y, pds_int r0, pds_int r1) {
  PDS_DISPATCH_BS(A->bs, , bsr_rows_pf, A, alpha, x, beta, y, r0, r1)
}

/* y = alpha A x + beta y for BSR, block rows split by stored scalars + rows. Bytes: nnzb*(8 bs^2 + 4)
   + (nbrows+1)*8 + nrows*8 (y; 16 with beta != 0) + ncols*8 (x counted once). Flops: 2 nnzb bs^2.
   Each block row runs bsr_rows_dispatch's loops: bitwise ref. */
static int bsr_spmv_omp(pds_ctx ctx, const struct pds_bsr *A, pds_real alpha, const pds_real *x, pds_real beta,
                        pds_real *y) {
  pds_size w = (pds_size)A->bs * A->bs;

  (void)ctx;
  if (A->nnzb * w + A->nbrows < OMP_MIN_WORK) {
    bsr_rows_dispatch(A, alpha, x, beta, y, 0, A->nbrows);
    return PDS_OK;
  }
#pragma omp parallel
  {
    pds_int r0, r1;

    row_range(A->browptr, A->nbrows, w, omp_get_thread_num(), omp_get_num_threads(), &r0, &r1);
    bsr_rows_pf_dispatch(A, alpha, x, beta, y, r0, r1);
  }
  return PDS_OK;
}

/* d_i = a_ii (duplicates summed, 0 if absent): reads the whole structure, 12 nnz + 8 (n+1) + 8 n bytes;
   one addition per diagonal entry found */
static int csr_diag_omp(pds_ctx ctx, const struct pds_csr *A, pds_real *d) {
  pds_int n = A->nrows < A->ncols ? A->nrows : A->ncols;

  (void)ctx;
#pragma omp parallel for schedule(static) if (A->nnz + n >= OMP_MIN_WORK)
  for (pds_int i = 0; i < n; i++) {
    d[i] = 0;
    for (pds_size k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
      if (A->colidx[k] == i) d[i] += A->vals[k];
  }
  return PDS_OK;
}

/* scalar diagonal of a BSR matrix: 4 nnzb + 8 bs (n/bs) (the diagonals of the diagonal blocks) + 8 n bytes;
   one addition per diagonal entry */
static int bsr_diag_omp(pds_ctx ctx, const struct pds_bsr *A, pds_real *d) {
  int     bs = A->bs;
  pds_int nb = A->nbrows < A->nbcols ? A->nbrows : A->nbcols;

  (void)ctx;
#pragma omp parallel for schedule(static) if (A->nnzb + nb >= OMP_MIN_WORK)
  for (pds_int i = 0; i < nb; i++) {
    for (int r = 0; r < bs; r++) d[(pds_size)i * bs + r] = 0;
    for (pds_size k = A->browptr[i]; k < A->browptr[i + 1]; k++)
      if (A->bcolidx[k] == i)
        for (int r = 0; r < bs; r++) d[(pds_size)i * bs + r] += A->vals[k * bs * bs + r * bs + r];
  }
  return PDS_OK;
}

static int bsr_diag_blocks_omp(pds_ctx ctx, const struct pds_bsr *A, pds_real *blocks) {
  const size_t bb = (size_t)A->bs * A->bs;
  pds_int      nb = A->nbrows < A->nbcols ? A->nbrows : A->nbcols;

  (void)ctx;
#pragma omp parallel for schedule(static) if (A->nnzb + nb >= OMP_MIN_WORK)
  for (pds_int i = 0; i < nb; i++) bsr_diag_block(A, i, blocks + (size_t)i * bb);
  return PDS_OK;
}

void pds_omp_fill_csr(struct pds_csr_kernels *g) {
  g->spmv     = csr_spmv_omp;
  g->spmv_t   = csr_spmv_t_omp;
  g->spmv_dot = csr_spmv_dot_omp;
  g->residual = csr_residual_omp;
  g->diag     = csr_diag_omp;
}

void pds_omp_fill_bsr(struct pds_bsr_kernels *g) {
  g->spmv = bsr_spmv_omp;
  g->diag = bsr_diag_omp;
  g->diag_blocks = bsr_diag_blocks_omp;
}
