/* src/backend/omp/omp.c: /cpu/omp, OpenMP kernels: ref's loop bodies run over each thread's part.
 *
 * What /cpu/omp guarantees against /cpu/ref, for any number of threads:
 * - every kernel but csr_spmv_t computes each output entry with ref's arithmetic in ref's order: the bodies of
 *   kernel_bodies.h, ref.c's one-line expressions, or (csr_rows_pf, bsr_rows_pf, chunk_norm_inf_fast) loops
 *   that add software prefetches or drop branches but keep every operation and its order. The results are
 *   bitwise those of ref;
 * - reductions (vec_dot, vec_dot2, vec_norm_inf) cut the vector into the fixed chunks of PDS_REDUCE_CHUNK
 *   entries that ref uses, compute the chunk partials in parallel into ctx workspace and add them in chunk order
 *   on one thread: bitwise ref, whatever the number of threads;
 * - csr_spmv_t sums the products of fixed row parts (chosen from the matrix alone) in private buffers, then adds
 *   the parts' sums in part order: deterministic and independent of the thread count, but not bitwise ref's
 *   where several parts meet (see csr_spmv_t_omp);
 * - blocks.invert reports the same first singular block as ref; on that failure the other blocks' contents
 *   differ from ref's (ref stops, omp inverts the rest), and the caller discards them anyway.
 * Partitions are static (contiguous, as schedule(static) cuts them; rows balanced by nonzeros), so a thread
 * touches the same part of each array on every call (first touch). Small problems run on the calling thread
 * without any OpenMP call (OMP_PARTS, and the size tests of the matrix kernels).
 * Byte models count each array touched once (x gathers and y writes included) and do not count the write-
 * allocate read of an output that is not also an input (as STREAM). */
#include <math.h>
#include <omp.h>
#include <stdlib.h>

#include "../fem2d_kernels.h"
#include "../krylov_step.h"
#include "../kernel_bodies.h"
#include "omp_impl.h"

/* y = a: 8 bytes, 0 flops per entry */
static int vec_set_omp(pds_ctx ctx, pds_size n, pds_real a, pds_real *y) {
  (void)ctx;
  OMP_PARTS(n, i0, i1, for (pds_size i = i0; i < i1; i++) y[i] = a);
  return PDS_OK;
}

/* y = x: 16 bytes, 0 flops per entry. A plain loop, not memcpy: glibc's large-size memcpy (non-temporal stores)
   ran at ~0.85 of this loop's bandwidth on the machine this was tuned on. */
static int vec_copy_omp(pds_ctx ctx, pds_size n, const pds_real *x, pds_real *y) {
  (void)ctx;
  if (!n || x == y) return PDS_OK;
  OMP_PARTS(n, i0, i1, for (pds_size i = i0; i < i1; i++) y[i] = x[i]);
  return PDS_OK;
}

/* y = a y: 16 bytes, 1 flop per entry */
static int vec_scale_omp(pds_ctx ctx, pds_size n, pds_real a, pds_real *y) {
  (void)ctx;
  OMP_PARTS(n, i0, i1, for (pds_size i = i0; i < i1; i++) y[i] *= a);
  return PDS_OK;
}

/* y = a x + b y: 24 bytes, 3 flops per entry (b = 0: 16 bytes, 1 flop; y is not read) */
static int vec_axpby_omp(pds_ctx ctx, pds_size n, pds_real a, const pds_real *x, pds_real b, pds_real *y) {
  (void)ctx;
  if (b == 0) OMP_PARTS(n, i0, i1, for (pds_size i = i0; i < i1; i++) y[i] = a * x[i]);
  else OMP_PARTS(n, i0, i1, for (pds_size i = i0; i < i1; i++) y[i] = a * x[i] + b * y[i]);
  return PDS_OK;
}

/* w = a x + b y: 24 bytes, 3 flops per entry */
static int vec_waxpby_omp(pds_ctx ctx, pds_size n, pds_real a, const pds_real *x, pds_real b, const pds_real *y,
                          pds_real *w) {
  (void)ctx;
  OMP_PARTS(n, i0, i1, for (pds_size i = i0; i < i1; i++) w[i] = a * x[i] + b * y[i]);
  return PDS_OK;
}

/* w = x .* y: 24 bytes, 1 flop per entry */
static int vec_pmult_omp(pds_ctx ctx, pds_size n, const pds_real *x, const pds_real *y, pds_real *w) {
  (void)ctx;
  OMP_PARTS(n, i0, i1, for (pds_size i = i0; i < i1; i++) w[i] = x[i] * y[i]);
  return PDS_OK;
}

/* w = x ./ y: 24 bytes, 1 flop per entry */
static int vec_pdiv_omp(pds_ctx ctx, pds_size n, const pds_real *x, const pds_real *y, pds_real *w) {
  (void)ctx;
  OMP_PARTS(n, i0, i1, for (pds_size i = i0; i < i1; i++) w[i] = x[i] / y[i]);
  return PDS_OK;
}

/* The dot-product reductions (vec_dot, vec_dot2, the fused Krylov steps), by chunks of PDS_REDUCE_CHUNK entries:
   with w != NULL, each chunk is first updated, w = a x + b y (ref's expression per entry; w may be y), and u = w,
   else u = x; then nd = 1: d[0] = u . z1, nd = 2: d[0] = u . z1, d[1] = u . z2 (chunk_dot, chunk_dot2; z1, z2 may
   be u). Chunks run in parallel (static), their partials are added in chunk order: ref's tree, so the bits of
   ref's vec_dot / vec_dot2 (after its vec_waxpby), for any thread count. A fused step reads the chunk it just
   wrote from cache: 24 + 8 nd bytes per entry instead of 24 + 8 (nd + 1). */
static void chunk_sums(pds_real a, const pds_real *x, pds_real b, const pds_real *y, pds_real *w, const pds_real *z1,
                       const pds_real *z2, int nd, pds_size i0, pds_size i1, pds_real *p) {
  const pds_real *u = x;

  if (w) {
    for (pds_size i = i0; i < i1; i++) w[i] = a * x[i] + b * y[i];
    u = w;
  }
  if (nd == 1) p[0] = chunk_dot(u, z1, i0, i1);
  else chunk_dot2(u, z1, z2, i0, i1, &p[0], &p[1]);
}
static int chunk_sums_omp(pds_ctx ctx, pds_size n, pds_real a, const pds_real *x, pds_real b, const pds_real *y,
                          pds_real *w, const pds_real *z1, const pds_real *z2, int nd, pds_real *d) {
  pds_size  nc = (n + PDS_REDUCE_CHUNK - 1) / PDS_REDUCE_CHUNK;
  pds_real *part, s[2] = {0, 0}, loc[2];

  if (n < OMP_MIN_N) { /* on the calling thread, no workspace */
    for (pds_size c = 0; c < nc; c++) {
      chunk_sums(a, x, b, y, w, z1, z2, nd, c * PDS_REDUCE_CHUNK, c + 1 < nc ? (c + 1) * PDS_REDUCE_CHUNK : n, loc);
      for (int k = 0; k < nd; k++) s[k] += loc[k];
    }
  } else {
    PDS_CALL(pds_ctx_work(ctx, (size_t)nd * nc, &part));
#pragma omp parallel for schedule(static)
    for (pds_size c = 0; c < nc; c++)
      chunk_sums(a, x, b, y, w, z1, z2, nd, c * PDS_REDUCE_CHUNK, c + 1 < nc ? (c + 1) * PDS_REDUCE_CHUNK : n,
                 part + (size_t)nd * c);
    for (pds_size c = 0; c < nc; c++)
      for (int k = 0; k < nd; k++) s[k] += part[(size_t)nd * c + k];
  }
  for (int k = 0; k < nd; k++) d[k] = s[k];
  return PDS_OK;
}

/* d = x . y: 16 bytes, 2 flops per entry (chunk_sums_omp: chunk partials in parallel, summed in chunk order). */
static int vec_dot_omp(pds_ctx ctx, pds_size n, const pds_real *x, const pds_real *y, pds_real *d) {
  return chunk_sums_omp(ctx, n, 0, x, 0, NULL, NULL, y, NULL, 1, d);
}

/* GMRES's multi-vector kernels walk the vectors in groups of reduction chunks: within a group (up to MV_GROUP
   chunks, 256 KiB of w, which stays in the L2 cache) each V_i is streamed over the whole group before the next one,
   so the hardware prefetchers see long runs of one vector instead of a new vector every 16 KiB, and w is read
   from memory once. Groups are taken by the threads in static order; how many chunks a group has changes which
   thread computes what, never the arithmetic of an entry or of a chunk's sum. */
#define MV_GROUP 16
static pds_size mv_group(pds_size nc) { /* chunks per group: MV_GROUP, fewer when that leaves threads idle */
  pds_size g = nc / (4 * (pds_size)omp_get_max_threads());

  return g < 1 ? 1 : g > MV_GROUP ? MV_GROUP : g;
}

/* s[i] = V_i . w for i < k: 8(k+1) bytes, 2k flops per entry. Each chunk's partial V_i . w is chunk_dot over the
   chunk (chunk_dot4 for four vectors at once: the same sums; the chunk groups above only order the work), the
   partials go to part[i * nc + c] and each s[i] adds its partials in chunk order: vec_dot's tree, so each s[i] has
   ref's bits of vec_dot(V_i, w). A small w is one group on the calling thread. */
static int vec_mdot_into_omp(pds_ctx ctx, pds_size n, int k, const pds_real *const *V, const pds_real *w,
                             pds_real *s) {
  pds_size  nc = (n + PDS_REDUCE_CHUNK - 1) / PDS_REDUCE_CHUNK, g, ng;
  pds_real *part;

  if (!k || !n) {
    for (int i = 0; i < k; i++) s[i] = 0;
    return PDS_OK;
  }
  PDS_CALL(pds_ctx_work(ctx, (size_t)nc * (size_t)k, &part));
  g = n < OMP_MIN_N ? nc : mv_group(nc), ng = (nc + g - 1) / g; /* small: one group, on the calling thread */
#pragma omp parallel for schedule(static) if (n >= OMP_MIN_N)
  for (pds_size q = 0; q < ng; q++) {
    int i = 0;

    for (; i + 4 <= k; i += 4) /* four vectors per read of the w chunk */
      for (pds_size c = q * g; c < (q + 1) * g && c < nc; c++) {
        pds_real d4[4];

        chunk_dot4(V + i, w, c * PDS_REDUCE_CHUNK, c + 1 < nc ? (c + 1) * PDS_REDUCE_CHUNK : n, d4);
        for (int l = 0; l < 4; l++) part[(pds_size)(i + l) * nc + c] = d4[l];
      }
    for (; i < k; i++)
      for (pds_size c = q * g; c < (q + 1) * g && c < nc; c++)
        part[(pds_size)i * nc + c] = chunk_dot(V[i], w, c * PDS_REDUCE_CHUNK, c + 1 < nc ? (c + 1) * PDS_REDUCE_CHUNK : n);
  }
  for (int i = 0; i < k; i++) {
    pds_real t = 0;

    for (pds_size c = 0; c < nc; c++) t += part[(pds_size)i * nc + c];
    s[i] = t;
  }
  return PDS_OK;
}

/* w -= sum_i c[i] V_i: 8(k+2) bytes, 3k flops per entry. Every entry takes vec_axpby's expression for i ascending
   (ref's bits); a group of entries (see above, w in the L2 cache) is updated by V_0..V_3, then V_4..V_7, ...:
   five streams at a time, vectorizable, instead of k streams at once per entry. */
static int vec_maxpy_dev_omp(pds_ctx ctx, pds_size n, int k, const pds_real *const *V, const pds_real *c,
                             pds_real *w) {
  pds_size nc = (n + PDS_REDUCE_CHUNK - 1) / PDS_REDUCE_CHUNK, g = mv_group(nc), ng = (nc + g - 1) / g;

  (void)ctx;
  if (n < OMP_MIN_N) g = nc, ng = 1;
#pragma omp parallel for schedule(static) if (n >= OMP_MIN_N)
  for (pds_size q = 0; q < ng; q++) {
    pds_size j0 = q * g * PDS_REDUCE_CHUNK, j1 = (q + 1) * g * PDS_REDUCE_CHUNK < n ? (q + 1) * g * PDS_REDUCE_CHUNK : n;

    int i = 0;

    for (; i + 4 <= k; i += 4) { /* four vectors per pass over the group, each entry still updated i ascending */
      const pds_real a0 = -c[i], a1 = -c[i + 1], a2 = -c[i + 2], a3 = -c[i + 3], b = 1.0;
      const pds_real *restrict v0 = V[i], *restrict v1 = V[i + 1], *restrict v2 = V[i + 2], *restrict v3 = V[i + 3];
      pds_real *restrict t = w;

      for (pds_size j = j0; j < j1; j++) {
        pds_real u = a0 * v0[j] + b * t[j];

        u    = a1 * v1[j] + b * u;
        u    = a2 * v2[j] + b * u;
        t[j] = a3 * v3[j] + b * u;
      }
    }
    for (; i < k; i++) {
      const pds_real a = -c[i], b = 1.0, *restrict v = V[i];
      pds_real *restrict t = w;

      for (pds_size j = j0; j < j1; j++) t[j] = a * v[j] + b * t[j];
    }
  }
  return PDS_OK;
}

/* z = a x + b y + c z: 32 bytes, 5 flops per entry (ref's expression, so ref's bits) */
static int vec_axpbypcz_omp(pds_ctx ctx, pds_size n, pds_real a, const pds_real *x, pds_real b, const pds_real *y,
                            pds_real c, pds_real *z) {
  (void)ctx;
  OMP_PARTS(n, i0, i1, for (pds_size i = i0; i < i1; i++) z[i] = a * x[i] + b * y[i] + c * z[i]);
  return PDS_OK;
}

/* d[0] = x . y, d[1] = x . z in one pass: 24 bytes, 4 flops per entry (ref's tree for both). */
static int vec_dot2_omp(pds_ctx ctx, pds_size n, const pds_real *x, const pds_real *y, const pds_real *z,
                        pds_real *d) {
  return chunk_sums_omp(ctx, n, 0, x, 0, NULL, NULL, y, z, 2, d);
}

/* the fused Krylov steps that end in a reduction (semantics in backend.h; the scalars as ref computes them) */
static int cg_update_r_omp(pds_ctx ctx, pds_size n, const pds_real *q, pds_real *r, pds_real *S, int step) {
  pds_real a = pds_ks_ratio(S, PDS_KS_RHO, 0);

  PDS_CALL(chunk_sums_omp(ctx, n, -a, q, 1.0, r, r, r, NULL, 1, &S[1]));
  return step >= 0 ? ctx->k->krylov.step(ctx, step, S) : PDS_OK;
}
static int bicg_update_s_omp(pds_ctx ctx, pds_size n, const pds_real *r, const pds_real *v, pds_real *w, pds_real *S) {
  pds_real a = pds_ks_ratio(S, PDS_KS_RHO, 0);

  return chunk_sums_omp(ctx, n, -a, v, 1.0, r, w, w, NULL, 1, &S[1]);
}
static int bicg_update_r_omp(pds_ctx ctx, pds_size n, const pds_real *w, const pds_real *t, const pds_real *rhat,
                             pds_real *r, pds_real *S, int step) {
  pds_real o = pds_ks_ratio(S, 2, 3);

  PDS_CALL(chunk_sums_omp(ctx, n, -o, t, 1.0, w, r, rhat, r, 2, &S[4]));
  return step >= 0 ? ctx->k->krylov.step(ctx, step, S) : PDS_OK;
}
/* S[XP] = x and p (every iteration but the last): x = alpha p + 1 x; p = 1 z + beta p, per entry in that order
   (ref's two vec_axpby, so its bits): 40 bytes, 6 flops per entry (p read once: 8 bytes less than the two passes);
   other modes: the vec_axpby each part is */
static int cg_update_xp_omp(pds_ctx ctx, pds_size n, const pds_real *z, pds_real *x, pds_real *p, const pds_real *S) {
  const pds_real alpha = S[PDS_KS_ALPHA], beta = S[PDS_KS_BETA];
  const int      m     = (int)S[PDS_KS_XP];

  if (m != (PDS_KS_XP_X | PDS_KS_XP_P) || beta == 0) { /* beta 0: ref's axpby does not read p (p = 1 z) */
    if (m & PDS_KS_XP_X) PDS_CALL(ctx->k->vec.axpby(ctx, n, alpha, p, 1.0, x));
    if (m & PDS_KS_XP_P) PDS_CALL(ctx->k->vec.axpby(ctx, n, 1.0, z, beta, p));
    return PDS_OK;
  }
  OMP_PARTS(n, i0, i1, for (pds_size i = i0; i < i1; i++) {
    x[i] = alpha * p[i] + 1.0 * x[i];
    p[i] = 1.0 * z[i] + beta * p[i];
  });
  return PDS_OK;
}
/* S[XP] = x and p: x = alpha ph + omega sh + 1 x; p = 1 r + (-beta omega) v + beta p, per entry in that order (ref's
   two vec_axpbypcz, so its bits; ph may be p: x reads it first): 64 bytes (56 when ph is p), 10 flops per entry;
   other modes: the kernels ref composes them from */
static int bicg_update_xp_omp(pds_ctx ctx, pds_size n, const pds_real *ph, const pds_real *sh, const pds_real *r,
                              const pds_real *v, pds_real *x, pds_real *p, const pds_real *S) {
  const pds_real alpha = S[PDS_KS_ALPHA], omega = S[PDS_KS_OMEGA], beta = S[PDS_KS_BETA], bo = -beta * omega;
  const int      m     = (int)S[PDS_KS_XP];

  if (m != (PDS_KS_XP_X | PDS_KS_XP_P)) {
    if (m & PDS_KS_XP_X) PDS_CALL(ctx->k->vec.axpbypcz(ctx, n, alpha, ph, omega, sh, 1.0, x));
    if (m & PDS_KS_XP_HALF) PDS_CALL(ctx->k->vec.axpby(ctx, n, alpha, ph, 1.0, x));
    if (m & PDS_KS_XP_P) PDS_CALL(ctx->k->vec.axpbypcz(ctx, n, 1.0, r, bo, v, beta, p));
    return PDS_OK;
  }
  OMP_PARTS(n, i0, i1, for (pds_size i = i0; i < i1; i++) {
    x[i] = alpha * ph[i] + omega * sh[i] + 1.0 * x[i];
    p[i] = 1.0 * r[i] + bo * v[i] + beta * p[i];
  });
  return PDS_OK;
}

/* max |x_i| over [i0,i1) as chunk_norm_inf computes it, without its branches (ref's loop runs ~10 ns per entry
   on random signs: a mispredicted branch for |x| each time). Without NaN, the maximum is exact, so 4 running
   maxima combined give ref's value, bits included (all start at +0 and only a larger value replaces one, so a
   -0 never shows, as in ref). With a NaN in the range, ref's own loop returns ref's (first) NaN. */
static inline pds_real chunk_norm_inf_fast(const pds_real *restrict x, pds_size i0, pds_size i1) {
  pds_real m0 = 0, m1 = 0, m2 = 0, m3 = 0;
  int      nan = 0;
  pds_size i   = i0;

  for (; i + 4 <= i1; i += 4) {
    pds_real a0 = fabs(x[i]), a1 = fabs(x[i + 1]), a2 = fabs(x[i + 2]), a3 = fabs(x[i + 3]);

    nan |= (x[i] != x[i]) | (x[i + 1] != x[i + 1]) | (x[i + 2] != x[i + 2]) | (x[i + 3] != x[i + 3]);
    m0 = a0 > m0 ? a0 : m0;
    m1 = a1 > m1 ? a1 : m1;
    m2 = a2 > m2 ? a2 : m2;
    m3 = a3 > m3 ? a3 : m3;
  }
  for (; i < i1; i++) {
    pds_real a = fabs(x[i]);

    nan |= x[i] != x[i];
    m0 = a > m0 ? a : m0;
  }
  if (nan) return chunk_norm_inf(x, i0, i1);
  m0 = m1 > m0 ? m1 : m0;
  m2 = m3 > m2 ? m3 : m2;
  return m2 > m0 ? m2 : m0;
}

/* d = max |x_i|: 8 bytes, 1 flop per entry. The maximum is exact, so any grouping gives ref's value; combining
   the chunk maxima in chunk order with "NaN wins" also returns the same (first) NaN as ref's single sweep. */
static int vec_norm_inf_omp(pds_ctx ctx, pds_size n, const pds_real *x, pds_real *d) {
  pds_size  nc = (n + PDS_REDUCE_CHUNK - 1) / PDS_REDUCE_CHUNK;
  pds_real *part, m = 0;

  if (n < OMP_MIN_N) {
    for (pds_size c = 0; c < nc; c++) {
      pds_real p = chunk_norm_inf_fast(x, c * PDS_REDUCE_CHUNK, c + 1 < nc ? (c + 1) * PDS_REDUCE_CHUNK : n);

      if (p > m || p != p) m = p;
      if (m != m) break;
    }
    *d = m;
    return PDS_OK;
  }
  PDS_CALL(pds_ctx_work(ctx, (size_t)nc, &part));
#pragma omp parallel for schedule(static)
  for (pds_size c = 0; c < nc; c++)
    part[c] = chunk_norm_inf_fast(x, c * PDS_REDUCE_CHUNK, c + 1 < nc ? (c + 1) * PDS_REDUCE_CHUNK : n);
  for (pds_size c = 0; c < nc; c++) {
    if (part[c] > m || part[c] != part[c]) m = part[c];
    if (m != m) break;
  }
  *d = m;
  return PDS_OK;
}

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
PDS_INLINE void bsr_rows_pf(const struct pds_bsr *A, int bs, pds_real alpha, const pds_real *restrict x,
                            pds_real beta, pds_real *restrict y, pds_int r0, pds_int r1) {
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
  switch (A->bs) {
  case 1: bsr_rows_pf(A, 1, alpha, x, beta, y, r0, r1); break;
  case 2: bsr_rows_pf(A, 2, alpha, x, beta, y, r0, r1); break;
  case 3: bsr_rows_pf(A, 3, alpha, x, beta, y, r0, r1); break;
  case 4: bsr_rows_pf(A, 4, alpha, x, beta, y, r0, r1); break;
  case 5: bsr_rows_pf(A, 5, alpha, x, beta, y, r0, r1); break;
  case 6: bsr_rows_pf(A, 6, alpha, x, beta, y, r0, r1); break;
  case 7: bsr_rows_pf(A, 7, alpha, x, beta, y, r0, r1); break;
  case 8: bsr_rows_pf(A, 8, alpha, x, beta, y, r0, r1); break;
  default: bsr_rows_pf(A, A->bs, alpha, x, beta, y, r0, r1); break;
  }
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

/* Invert nb blocks in place (pds_block_invert, ref's Gauss-Jordan): 16 bs^2 bytes, ~2 bs^3 flops per block.
   *bad = the smallest index of a singular block, as in ref (ref stops there; here the other blocks are
   inverted anyway, so after a failure the array differs from ref's beyond the bad block). */
static int blocks_invert_omp(pds_ctx ctx, pds_size nb, int bs, pds_real *blocks, pds_size *bad) {
  pds_size first = nb;
  int      nomem = 0;

#pragma omp parallel for schedule(static) reduction(min : first) reduction(| : nomem) if (nb * bs * bs >= 4096)
  for (pds_size b = 0; b < nb; b++) {
    int r = pds_block_invert(bs, blocks + b * bs * bs);

    if (r == -2) nomem = 1;
    else if (r && b < first) first = b;
  }
  if (nomem) return PDS_ERROR(ctx, PDS_ERR_MEM, "no memory for the pivots of a %d x %d block", bs, bs);
  *bad = first < nb ? first : -1;
  return PDS_OK;
}

/* y_b = inv_b x_b: 8 bs^2 + 16 bs bytes, 2 bs^2 flops per block */
static int blocks_apply_omp(pds_ctx ctx, pds_size nb, int bs, const pds_real *inv, const pds_real *x, pds_real *y) {
  (void)ctx;
  if (nb * bs * bs < OMP_MIN_WORK) {
    blocks_apply_range(bs, inv, x, y, 0, nb);
    return PDS_OK;
  }
#pragma omp parallel
  {
    pds_size b0, b1;

    static_range(nb, omp_get_thread_num(), omp_get_num_threads(), &b0, &b1);
    blocks_apply_range(bs, inv, x, y, b0, b1);
  }
  return PDS_OK;
}

/* P1 assembly: ref's functions over static thread ranges of triangles and rows (every value has one writer and
   ref's arithmetic, so the bits are ref's); the first bad triangle is the minimum over the threads. */
static int fem2d_element_omp(pds_ctx ctx, const struct pds_fem2d_maps *m, const pds_real *xy, pds_real k,
                             const pds_real *kv, pds_real f, const pds_real *fm, pds_real *Ke, pds_real *fe,
                             pds_int *bad) {
  pds_int first = PDS_INT_MAX;

  (void)ctx;
#pragma omp parallel for schedule(static) reduction(min : first) if (m->ntri >= OMP_MIN_WORK)
  for (pds_int e = 0; e < m->ntri; e++)
    if (fem2d_element(e, m->tri, xy, k, kv, f, fm, Ke, fe) && e < first) first = e;
  *bad = first == PDS_INT_MAX ? -1 : first;
  return PDS_OK;
}

static int fem2d_gather_omp(pds_ctx ctx, const struct pds_fem2d_maps *m, const pds_real *Ke, const pds_real *fe,
                            const unsigned char *isd, const pds_real *g, pds_real gc, int symmetric, pds_real *vals,
                            pds_real *b) {
  (void)ctx;
#pragma omp parallel for schedule(static) if (m->n >= OMP_MIN_WORK)
  for (pds_int i = 0; i < m->n; i++)
    fem2d_gather_row(i, m->rowptr, m->colidx, m->gptr, m->gidx, Ke, m->nptr, m->nidx, fe, isd, g, gc, symmetric,
                     vals, b);
  return PDS_OK;
}

int pds_backend_init_omp(pds_ctx ctx, const char *resource, struct pds_kernels *k) {
  PDS_CHECK(!strcmp(resource, "/cpu/omp"), ctx, PDS_ERR_ARG, "backend /cpu/omp takes no options (got '%s')",
            resource);
  pds_kernels_fill_ref(k);
  k->name          = "/cpu/omp";
  k->vec.set       = vec_set_omp;
  k->vec.copy      = vec_copy_omp;
  k->vec.scale     = vec_scale_omp;
  k->vec.axpby     = vec_axpby_omp;
  k->vec.waxpby    = vec_waxpby_omp;
  k->vec.pmult     = vec_pmult_omp;
  k->vec.pdiv      = vec_pdiv_omp;
  k->vec.dot       = vec_dot_omp;
  k->vec.norm_inf  = vec_norm_inf_omp;
  k->vec.axpbypcz  = vec_axpbypcz_omp;
  k->vec.dot2      = vec_dot2_omp;
  k->vec.mdot_into = vec_mdot_into_omp;
  k->vec.maxpy_dev = vec_maxpy_dev_omp;
  k->csr.spmv      = csr_spmv_omp;
  k->csr.spmv_t    = csr_spmv_t_omp;
  k->bsr.spmv      = bsr_spmv_omp;
  k->csr.diag      = csr_diag_omp;
  k->bsr.diag      = bsr_diag_omp;
  k->blocks.invert = blocks_invert_omp;
  k->blocks.apply  = blocks_apply_omp;
  k->krylov.cg_update_r   = cg_update_r_omp;
  k->krylov.cg_update_xp  = cg_update_xp_omp;
  k->krylov.bicg_update_xp = bicg_update_xp_omp;
  k->csr.spmv_dot  = csr_spmv_dot_omp;
  k->csr.residual  = csr_residual_omp;
  k->krylov.bicg_update_s = bicg_update_s_omp;
  k->krylov.bicg_update_r = bicg_update_r_omp;
  k->fem2d.element = fem2d_element_omp;
  k->fem2d.gather  = fem2d_gather_omp;
  pds_kernels_fill_omp_f32(&k->f32);
  ctx->nthreads    = omp_get_max_threads();
  return PDS_OK;
}
