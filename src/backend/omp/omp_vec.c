/* src/backend/omp/omp_vec.c: /cpu/omp's vector kernel group (src/vec/vec_kernels.h): ref's loop bodies over each
 * thread's static part, the reductions by ref's fixed chunks (omp.c states the guarantees). */
#include <math.h>
#include <omp.h>
#include <stdlib.h>

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
int pds_omp_chunk_sums(pds_ctx ctx, pds_size n, pds_real a, const pds_real *x, pds_real b, const pds_real *y,
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

/* d = x . y: 16 bytes, 2 flops per entry (pds_omp_chunk_sums: chunk partials in parallel, summed in chunk order). */
static int vec_dot_omp(pds_ctx ctx, pds_size n, const pds_real *x, const pds_real *y, pds_real *d) {
  return pds_omp_chunk_sums(ctx, n, 0, x, 0, NULL, NULL, y, NULL, 1, d);
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
  return pds_omp_chunk_sums(ctx, n, 0, x, 0, NULL, NULL, y, z, 2, d);
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

static int vec_permute_omp(pds_ctx ctx, pds_int nb, int bs, const pds_int *perm, int scatter, const pds_real *x,
                           pds_real *y) {
  (void)ctx;
  OMP_PARTS((pds_size)nb, i0, i1, vec_permute_range(bs, perm, scatter, x, y, i0, i1));
  return PDS_OK;
}

void pds_omp_fill_vec(struct pds_vec_kernels *g) {
  g->set       = vec_set_omp;
  g->copy      = vec_copy_omp;
  g->scale     = vec_scale_omp;
  g->axpby     = vec_axpby_omp;
  g->waxpby    = vec_waxpby_omp;
  g->pmult     = vec_pmult_omp;
  g->pdiv      = vec_pdiv_omp;
  g->dot       = vec_dot_omp;
  g->norm_inf  = vec_norm_inf_omp;
  g->axpbypcz  = vec_axpbypcz_omp;
  g->dot2      = vec_dot2_omp;
  g->mdot_into = vec_mdot_into_omp;
  g->maxpy_dev = vec_maxpy_dev_omp;
  g->permute   = vec_permute_omp;
}
