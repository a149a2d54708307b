// src/backend/cuda/cuda_ilu0.cu: ILU(0) of a block-CSR factor on /gpu/cuda (the group's semantics in
// src/precond/ilu0_kernels.h, the host side in cuda_ilu0.c). A row runs src/backend/ilu0_bodies.h's arithmetic in
// its order with each product and sum rounded on its own (__dmul_rn, __dadd_rn, __dsub_rn; the CPU compilers of this
// project do not contract), the diagonal blocks inverted by pds_block_invert's Gauss-Jordan steps: /cpu/ref's bits,
// whatever runs the rows. A scalar row is one thread's; a block row (bs >= 2) is G lanes' (the lanes body below,
// G = the power of two >= bs, cuda_lanes.cuh), lane u on row u of every block, so a block's loads are coalesced.
// Which rows run when:
// - levels: one launch per level of the pattern's level schedule. A level's rows depend only on rows of earlier
//   levels, finished by the launches before (programmatic dependent launch: a level's kernel is resident before the
//   one before has ended and waits in pds_grid_dep() before it reads anything that changes).
// - syncfree: one launch per phase, as many warps as can be resident, each taking tickets (32 entries of the padded
//   level schedule: every level padded to whole warps, so a warp's rows never wait on each other) in order; a row
//   waits until the flags of the rows it reads carry this launch's stamp, runs, and sets its own flag. No deadlock:
//   a row waits only on rows of earlier levels, so of earlier tickets, taken by warps that are running.
// - jacobi, chow (the approximate variants): every row at once, from the previous iterate.
// Byte model of an application (8-byte reals, b x b blocks): every block of the factor read once, 8 nnzb b^2, plus
// the vectors (b read, x written, the neighbours' x gathered through the caches): the bytes of one product with A.
// Flops: 2 nnzb b^2. A Jacobi sweep reads its triangle's blocks and the vectors: about half of that. A Chow-Patel
// sweep: the factorization's bytes (ilu0_bodies.h) plus A's values read once.
#include <string.h>

#include <cuda/atomic>

#include "cuda_lanes.cuh"
#include "cuda_launch.cuh"

#define IM(a, b) __dmul_rn((a), (b))
#define IA(a, b) __dadd_rn((a), (b))
#define IS(a, b) __dsub_rn((a), (b))

namespace {

struct ilu0_args {
  const pds_size *rowptr;
  const pds_int  *colidx;
  const pds_size *diag;
  pds_real       *vals;
  const pds_int  *rows; // levels: the level's block rows, rows[0 .. count); syncfree: the padded schedule
  long long       count;
  pds_real        shift;
  const pds_real *b, *xr; // the sweeps' right-hand side; jacobi: the iterate read (NULL: zero)
  pds_real       *x;      // the sweeps' output (exact: in place)
  const pds_real *aval;   // chow: A's values
  pds_real       *gvals;  // chow: the new iterate
  unsigned long long *bad;
  // levels sweeps, bs 1: the level-ordered copy of the triangle (the level's rows' entries at sptr[g] .. sptr[g + 1],
  // backward: D^-1 first; NULL: the factor's own arrays); relayout: its row pointers and the values written
  const pds_size *sptr;
  const pds_int  *scol;
  pds_real       *sval;
};

struct no_wait {
  static constexpr bool active = false;
  __device__ void operator()(pds_int) const {}
};

// ---- the scalar body (bs = 1): a thread per row ---------------------------------------------------------------

// the inversion of the factored diagonal entry in place (pds_block_invert's steps for one entry); false when singular
__device__ __forceinline__ bool invert_diag(double *a) {
  const double x = a[0];

  if (!(fabs(x) > 0) || !isfinite(x)) return false;
  a[0] = 1.0 / x;
  return true;
}

// ilu0_row_update's merge: op(q, r) for each entry q of row k after its diagonal whose column j is also in row i,
// at entry r (row i's entry p is column k; row i ends at hi), j ascending
template <class OP> __device__ __forceinline__ void row_merge(const ilu0_args &f, pds_size p, pds_size hi, OP op) {
  const pds_int k = f.colidx[p];
  pds_size      r = p + 1;

  for (pds_size q = f.diag[k] + 1; q < f.rowptr[k + 1]; q++) {
    const pds_int j = f.colidx[q];

    while (r < hi && f.colidx[r] < j) r++;
    if (r == hi) break;
    if (f.colidx[r] == j) op(q, r);
  }
}

// ilu0_row_update: a_ij -= l_ik u_kj for the j > k of row k also in row i
__device__ __forceinline__ void row_update(const ilu0_args &f, pds_size p, pds_size hi, double lik, const double *u,
                                           double *a) {
  row_merge(f, p, hi, [&](pds_size q, pds_size r) { a[r] = IS(a[r], IA(0.0, IM(lik, u[q]))); }); // blk_mul: from 0
}

// row i of the factorization (ilu0_factor_row_n); wait(k) before row k is read
template <class W> __device__ bool factor_row(const ilu0_args &f, pds_int i, W wait) {
  const pds_size lo = f.rowptr[i], hi = f.rowptr[i + 1], d = f.diag[i];
  double        *a  = f.vals;

  if (f.shift != 0) a[d] = IA(a[d], f.shift);
  for (pds_size p = lo; p < d; p++) {
    const pds_int k = f.colidx[p];

    wait(k);
    const double t = IA(0.0, IM(a[p], a[f.diag[k]]));

    a[p] = t;
    row_update(f, p, hi, t, a, a);
  }
  return invert_diag(a + d);
}

// row i of the factorization by a warp (bs 1): the updates of one entry p (a_ij -= l_ik u_kj over the j of row k)
// touch distinct a_ij, so the lanes share row k's entries, each finding its j in row i by bisection
// (ilu0_row_update's merge finds the same entry); the entries p run in order, the warp meeting between them, so every
// a_ij takes its updates in /cpu/ref's order: its bits. Row i (columns and values) is staged in the warp's slice of
// shared memory when it fits (WF_SLICE entries; else it is worked on in place), so a step's chain is one round trip
// for row k's entries; the lanes read the rows k of 32 entries p at a time ahead (k, its diagonal's position and its
// upper part's end; levels: the diagonal's inverse too). Syncfree: every lane waits on row k at step p (wait: its own
// acquire); waiting on all rows k first measured 3-9x slower (a row's early updates no longer overlap the wait for
// its last rows k).
constexpr int WF_SLICE = 256, WF_WARPS = 4; // entries a warp stages; warps a 128-thread block

template <class W>
__device__ bool warp_factor_row(const ilu0_args &f, pds_int i, int lane, W wait, pds_int *scol, double *sval) {
  constexpr unsigned FULL = 0xffffffffu;
  const pds_size     lo = f.rowptr[i], hi = f.rowptr[i + 1], d = f.diag[i], len = hi - lo;
  const bool         st = len <= (pds_size)WF_SLICE;
  double            *a  = f.vals;
  const pds_int     *cols = st ? scol : f.colidx + lo; // row i, entry e = p - lo
  double            *vals = st ? sval : a + lo;
  bool               ok   = true;

  if (st) {
    for (pds_size e = lane; e < len; e += 32) scol[e] = f.colidx[lo + e], sval[e] = a[lo + e];
    __syncwarp();
  }
  if (lane == 0 && f.shift != 0) vals[d - lo] = IA(vals[d - lo], f.shift);
  for (pds_size c = lo; c < d; c += 32) { // 32 entries p ahead: lane l holds p = c + l's row k
    const bool    in = c + lane < d;
    const pds_int kl = in ? f.colidx[c + lane] : 0;
    pds_size      dg = 0, q1 = 0;
    double        dk = 0;

    if (in) {
      dg = f.diag[kl], q1 = f.rowptr[kl + 1];
      if constexpr (!W::active) dk = a[dg]; // levels: row k is done
    }
    const int cnt = d - c < 32 ? (int)(d - c) : 32;

    for (int j = 0; j < cnt; j++) {
      const pds_size p = c + j, e = p - lo;
      const pds_size g = __shfl_sync(FULL, dg, j), b1 = __shfl_sync(FULL, q1, j);
      double         dj;

      if constexpr (W::active) { // syncfree: every lane waits on row k itself (its own acquire) when it gets there,
        wait(__shfl_sync(FULL, kl, j)); // so the updates from rows done long ago run while the last ones finish
        dj = a[g];
      } else
        dj = __shfl_sync(FULL, dk, j);
      const pds_size b0 = g + 1;

      __syncwarp(); // vals[e]: the lanes' updates of the entries before are in
      const double t = IA(0.0, IM(vals[e], dj));

      __syncwarp(); // every lane has read vals[e]
      if (lane == 0) vals[e] = t;
      for (pds_size q = b0 + lane; q < b1; q += 32) {
        const pds_int jc = f.colidx[q];
        pds_size      l = e + 1, h = len; // cols[l .. h) ascending: the first entry >= jc

        while (l < h) {
          const pds_size m = l + (h - l) / 2;

          if (cols[m] < jc) l = m + 1;
          else h = m;
        }
        if (l < len && cols[l] == jc) vals[l] = IS(vals[l], IA(0.0, IM(t, a[q])));
      }
    }
  }
  __syncwarp();
  if (st)
    for (pds_size e = lane; e < len; e += 32) a[lo + e] = sval[e];
  __syncwarp();
  if (lane == 0) ok = invert_diag(a + d);
  return __shfl_sync(FULL, ok, 0);
}

// row i of a sweep by a warp (bs 1, long rows): the lanes read the triangle's entries and their x_k and form the
// products 32 at a time, each rounded alone as /cpu/ref rounds it; every lane then adds them in ref's order from the
// shuffles (a chain of adds, not of loads). Lane l's first entry (p0 + l) and its value are read ahead, before the
// row's inputs are ready (warp_pre_load); wait(k) before x_k is read (by the lane that reads it).
struct warp_pre {
  pds_size p0, p1, d;
  pds_int  k;
  double   v, dv;
};

template <bool BWD> __device__ __forceinline__ void warp_pre_load(const ilu0_args &f, bool on, pds_int i, int lane,
                                                                  warp_pre &r) {
  r.d = on ? f.diag[i] : 0, r.p0 = on ? (BWD ? r.d + 1 : f.rowptr[i]) : 0, r.p1 = on ? (BWD ? f.rowptr[i + 1] : r.d) : 0;
  const bool in = r.p0 + lane < r.p1;

  r.k = in ? f.colidx[r.p0 + lane] : 0, r.v = in ? f.vals[r.p0 + lane] : 0.0;
  r.dv = BWD && on ? f.vals[r.d] : 0.0;
}

template <bool BWD, class W>
__device__ __forceinline__ void warp_sweep_row(const ilu0_args &f, pds_int i, int lane, const warp_pre &r,
                                               const double *rhs, const double *xr, double *y, W wait) {
  double s = 0;

  if (xr)
    for (pds_size b = r.p0; b < r.p1; b += 32) {
      const pds_size p  = b + lane;
      const bool     in = p < r.p1;
      const pds_int  k  = !in ? 0 : b == r.p0 ? r.k : f.colidx[p];
      double         m  = 0;

      if (in) {
        wait(k);
        m = IM(b == r.p0 ? r.v : f.vals[p], xr[k]);
      }
      const int cnt = r.p1 - b < 32 ? (int)(r.p1 - b) : 32;

      for (int j = 0; j < cnt; j++) s = IA(s, __shfl_sync(0xffffffffu, m, j));
    }
  const double z = IS(rhs[i], s);

  if (lane == 0) y[i] = BWD ? IA(0.0, IM(r.dv, z)) : z; // ilu0_sweep_row_n: s = 0 + D z
}

// row i of a Chow-Patel sweep (ilu0_chow_row_n): gvals from vals (NULL: the start) and aval
__device__ bool chow_row(const ilu0_args &f, pds_int i) {
  const pds_size lo = f.rowptr[i], hi = f.rowptr[i + 1], d = f.diag[i];
  const double  *o = f.vals, *a = f.aval;
  double        *g = f.gvals;

  for (pds_size e = lo; e < hi; e++) g[e] = a[e];
  if (f.shift != 0) g[d] = IA(g[d], f.shift);
  if (o)
    for (pds_size p = lo; p < d; p++) row_update(f, p, hi, o[p], o, g);
  for (pds_size p = lo; p < d; p++) g[p] = o ? IA(0.0, IM(g[p], o[f.diag[f.colidx[p]]])) : 0.0;
  return invert_diag(g + d);
}

// A row's structure and its first C entries read before its inputs are ready: they never change during an
// application (the factor's values were written by a setup that ended before: it reads its singular-pivot flag
// back). C entries cover the rows of most FV/FE matrices' triangles.
constexpr int C = 8;

struct row_pre {
  pds_size        p0, p1, d;
  const pds_int  *col; // the entries' arrays: the factor's, or the level-ordered copy's
  const pds_real *val;
  pds_int         cc[C];
  double          cv[C], dv;
};

// the triangle of row i (the level's row g): forward (BWD false) the entries before the diagonal, backward those after
// it, in the factor or (f.sptr) in the level-ordered copy, where a level's rows follow each other
template <bool BWD>
__device__ __forceinline__ void pre_load(const ilu0_args &f, bool on, pds_int i, long long g, row_pre &r) {
  if (f.sptr) {
    const pds_size a = on ? f.sptr[g] : 0, e = on ? f.sptr[g + 1] : 0;

    r.col = f.scol, r.val = f.sval, r.d = a, r.p0 = BWD && on ? a + 1 : a, r.p1 = e;
  } else {
    r.col = f.colidx, r.val = f.vals, r.d = on ? f.diag[i] : 0;
    r.p0 = on ? (BWD ? r.d + 1 : f.rowptr[i]) : 0, r.p1 = on ? (BWD ? f.rowptr[i + 1] : r.d) : 0;
  }
#pragma unroll
  for (int q = 0; q < C; q++) {
    const bool in = r.p0 + q < r.p1;

    r.cc[q] = in ? r.col[r.p0 + q] : 0, r.cv[q] = in ? r.val[r.p0 + q] : 0.0;
  }
  r.dv = BWD && on ? r.val[r.d] : 0.0;
}

// row i of a sweep (ilu0_sweep_row_n): z = rhs_i - sum m x_k over the triangle (xr NULL: no sum), then y_i = z
// (forward) or d_i^-1 z (backward); wait(k) before x_k is read
template <bool BWD, class W>
__device__ __forceinline__ void sweep_row(const ilu0_args &f, pds_int i, const row_pre &r, const double *rhs,
                                          const double *xr, double *y, W wait) {
  if constexpr (W::active) {
#pragma unroll
    for (int q = 0; q < C; q++)
      if (r.p0 + q < r.p1) wait(r.cc[q]);
    for (pds_size p = r.p0 + C; p < r.p1; p++) wait(r.col[p]);
  }
  double s = 0;

  if (xr) {
#pragma unroll
    for (int q = 0; q < C; q++)
      if (r.p0 + q < r.p1) s = IA(s, IM(r.cv[q], xr[r.cc[q]]));
    for (pds_size p = r.p0 + C; p < r.p1; p++) s = IA(s, IM(r.val[p], xr[r.col[p]]));
  }
  const double z = IS(rhs[i], s);

  y[i] = BWD ? IA(0.0, IM(r.dv, z)) : z; // ilu0_sweep_row_n: s = 0 + D z
}

// ---- the lanes body (bs >= 2): a block row per group of G lanes (cuda_lanes.cuh), lane u < bs on row u ----------
// Every product of the factorization and the sweeps needs only row u of its left operand, and the right operand's
// blocks (D_k^-1, U_kj of an earlier row, x_k) are read whole by every lane of the group: the same addresses, one
// transaction. So lane u runs row u of ilu0_bodies.h's arithmetic alone, in its order, and the group's loads of a
// block are contiguous (coalesced) where a thread per block row reads 8 b^2 bytes from its own lines. Only the
// inversion of the diagonal block (gj_invert) and the backward sweep's D_i^-1 z exchange values between the lanes.
// Every lane of the warp calls a lanes function (the shuffles); on: the group has a row.
using pds_lanes::load_row;

// ilu0_row_update, row u: A_ij(u, :) -= L_ik(u, :) U_kj for the j > k of row k also in row i (entry p, column k)
template <int N> __device__ __forceinline__ void lane_row_update(const ilu0_args &f, pds_size p, pds_size hi,
                                                                 const double (&L)[N], int u, const double *usrc,
                                                                 double *a) {
  constexpr int NN = N * N;

  row_merge(f, p, hi, [&](pds_size q, pds_size r) {
    const double *U = usrc + q * NN;
    double       *A = a + r * NN + u * N;

#pragma unroll
    for (int v = 0; v < N; v++) {
      double s = 0;

#pragma unroll
      for (int w = 0; w < N; w++) s = IA(s, IM(L[w], U[w * N + v]));
      A[v] = IS(A[v], s);
    }
  });
}

// T = L D (row u of blk_mul: each entry's sum over w from 0, rounded step by step)
template <int N> __device__ __forceinline__ void lane_mul(const double (&L)[N], const double *D, double (&T)[N]) {
#pragma unroll
  for (int v = 0; v < N; v++) {
    double s = 0;

#pragma unroll
    for (int w = 0; w < N; w++) s = IA(s, IM(L[w], D[w * N + v]));
    T[v] = s;
  }
}

// the diagonal block at a + d NN (row u in lane u) inverted in place by the group; false when singular
template <int N, int G> __device__ __forceinline__ bool lane_invert(bool row, double *a, pds_size d, int u) {
  double r[N];

  if (row) load_row<N, double>(r, a + d * N * N + u * N);
  else
#pragma unroll
    for (int v = 0; v < N; v++) r[v] = 0.0;
  const bool ok = pds_lanes::gj_invert<N, G>(r, u);

  if (row)
#pragma unroll
    for (int v = 0; v < N; v++) a[d * N * N + u * N + v] = r[v];
  return ok;
}

// row i of the factorization (ilu0_factor_row_n); wait(k) before row k is read; the group's verdict
template <int N, int G, class W> __device__ bool lane_factor_row(const ilu0_args &f, bool on, pds_int i, int u, W wait) {
  constexpr int NN  = N * N;
  const bool    row = on && u < N;
  double       *a   = f.vals;
  pds_size      d   = 0;

  if (row) {
    const pds_size lo = f.rowptr[i], hi = f.rowptr[i + 1];

    d = f.diag[i];
    if (f.shift != 0) a[d * NN + u * N + u] = IA(a[d * NN + u * N + u], f.shift);
    for (pds_size p = lo; p < d; p++) {
      const pds_int k = f.colidx[p];
      double        L[N], T[N];

      wait(k);
      load_row<N, double>(L, a + p * NN + u * N);
      lane_mul<N>(L, a + f.diag[k] * NN, T);
#pragma unroll
      for (int v = 0; v < N; v++) a[p * NN + u * N + v] = T[v];
      lane_row_update<N>(f, p, hi, T, u, a, a);
    }
  }
  return lane_invert<N, G>(row, a, d, u);
}

// row i of a Chow-Patel sweep (ilu0_chow_row_n), row u
template <int N, int G> __device__ bool lane_chow_row(const ilu0_args &f, bool on, pds_int i, int u) {
  constexpr int   NN  = N * N;
  const bool      row = on && u < N;
  const double   *o = f.vals, *a = f.aval;
  double         *g = f.gvals;
  pds_size        d = 0;

  if (row) {
    const pds_size lo = f.rowptr[i], hi = f.rowptr[i + 1];

    d = f.diag[i];
    for (pds_size p = lo; p < hi; p++)
#pragma unroll
      for (int v = 0; v < N; v++) g[p * NN + u * N + v] = a[p * NN + u * N + v];
    if (f.shift != 0) g[d * NN + u * N + u] = IA(g[d * NN + u * N + u], f.shift);
    if (o)
      for (pds_size p = lo; p < d; p++) {
        double L[N];

        load_row<N, double>(L, o + p * NN + u * N);
        lane_row_update<N>(f, p, hi, L, u, o, g);
      }
    for (pds_size p = lo; p < d; p++) {
      double L[N], T[N];

      if (!o) {
#pragma unroll
        for (int v = 0; v < N; v++) g[p * NN + u * N + v] = 0.0;
        continue;
      }
      load_row<N, double>(L, g + p * NN + u * N);
      lane_mul<N>(L, o + f.diag[f.colidx[p]] * NN, T);
#pragma unroll
      for (int v = 0; v < N; v++) g[p * NN + u * N + v] = T[v];
    }
  }
  return lane_invert<N, G>(row, g, d, u);
}

// A row's structure, its first CL blocks' row u and (backward) row u of D_i^-1, read before its inputs are ready
// (the factor never changes during an application). CL = 3 covers a 7-point pattern's triangles.
constexpr int CL = 3;

template <int N> struct lane_pre {
  pds_size p0, p1, d;
  pds_int  cc[CL];
  double   m[CL][N], dr[N];
};

template <int N, bool BWD> __device__ __forceinline__ void lane_pre_load(const ilu0_args &f, bool row, pds_int i,
                                                                         int u, lane_pre<N> &r) {
  constexpr int NN = N * N;

  r.d = row ? f.diag[i] : 0, r.p0 = row ? (BWD ? r.d + 1 : f.rowptr[i]) : 0;
  r.p1 = row ? (BWD ? f.rowptr[i + 1] : r.d) : 0;
#pragma unroll
  for (int q = 0; q < CL; q++) {
    const bool in = r.p0 + q < r.p1;

    r.cc[q] = in ? f.colidx[r.p0 + q] : 0;
    if (in) load_row<N, double>(r.m[q], f.vals + (r.p0 + q) * NN + u * N);
  }
  if (BWD && row) load_row<N, double>(r.dr, f.vals + r.d * NN + u * N);
  else
#pragma unroll
    for (int v = 0; v < N; v++) r.dr[v] = 0.0;
}

// row i of a sweep (ilu0_sweep_row_n), row u: z_u = rhs_i(u) - sum M(u, :) x_k over the triangle (xr NULL: no sum),
// then y_i(u) = z_u (forward) or (D_i^-1 z)_u (backward, z from the group's lanes); wait(k) before x_k is read
template <int N, int G, bool BWD, class W>
__device__ __forceinline__ void lane_sweep_row(const ilu0_args &f, bool row, pds_int i, int u, const lane_pre<N> &r,
                                               const double *rhs, const double *xr, double *y, W wait) {
  constexpr int NN = N * N;
  double        z  = 0;

  if (row) {
    double s = 0;

    if constexpr (W::active) {
#pragma unroll
      for (int q = 0; q < CL; q++)
        if (r.p0 + q < r.p1) wait(r.cc[q]);
      for (pds_size p = r.p0 + CL; p < r.p1; p++) wait(f.colidx[p]);
    }
    if (xr) {
#pragma unroll
      for (int q = 0; q < CL; q++)
        if (r.p0 + q < r.p1) {
          const double *xk = xr + (size_t)r.cc[q] * N;

#pragma unroll
          for (int w = 0; w < N; w++) s = IA(s, IM(r.m[q][w], xk[w]));
        }
      for (pds_size p = r.p0 + CL; p < r.p1; p++) {
        double        M[N];
        const double *xk = xr + (size_t)f.colidx[p] * N;

        load_row<N, double>(M, f.vals + p * NN + u * N);
#pragma unroll
        for (int w = 0; w < N; w++) s = IA(s, IM(M[w], xk[w]));
      }
    }
    z = IS(rhs[(size_t)i * N + u], s);
  }
  if constexpr (BWD) {
    double q = 0;

#pragma unroll
    for (int w = 0; w < N; w++) {
      const double zw = __shfl_sync(pds_lanes::FULL, z, w, G);

      q = IA(q, IM(r.dr[w], zw));
    }
    z = q;
  }
  if (row) y[(size_t)i * N + u] = z;
}

// ---- levels: a level's rows, a thread each ----
// G lanes per block row (1: a thread); a warp whose first group has no row has none
template <int N> constexpr int G_of = pds_lanes::lanes_of(N);

__device__ __forceinline__ bool warp_off(long long t, int G, long long count) { return (t & ~31LL) / G >= count; }

template <int N> __global__ void __launch_bounds__(128) factor_k(ilu0_args f) {
  constexpr int   G = G_of<N>;
  const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x, g = t / G;
  const int       u = (int)(t % G);
  const bool      on = g < f.count;
  const pds_int   i = on ? f.rows[g] : 0; // the schedule: read before the wait

  pds_grid_dep();
  if constexpr (N == 1) {
    if (!on) return;
    if (!factor_row(f, i, no_wait{})) atomicMin(f.bad, (unsigned long long)i);
  } else {
    if (warp_off(t, G, f.count)) return;
    if (!lane_factor_row<N, G>(f, on, i, u, no_wait{}) && on && u == 0) atomicMin(f.bad, (unsigned long long)i);
  }
}

// bs 1, long rows: a warp per row of the level
__global__ void __launch_bounds__(128) warp_factor_k(ilu0_args f) {
  const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x, g = t / 32;
  const int       lane = (int)(t % 32);
  const pds_int   i    = g < f.count ? f.rows[g] : 0;

  __shared__ pds_int scol[WF_WARPS][WF_SLICE];
  __shared__ double  sval[WF_WARPS][WF_SLICE];

  pds_grid_dep();
  if (g >= f.count) return; // the whole warp
  if (!warp_factor_row(f, i, lane, no_wait{}, scol[threadIdx.x / 32], sval[threadIdx.x / 32]) && lane == 0)
    atomicMin(f.bad, (unsigned long long)i);
}

// bs 1, long rows: a warp per row of the level, in place
template <bool BWD> __global__ void __launch_bounds__(128) warp_sweep_k(ilu0_args f) {
  const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x, g = t / 32;
  const int       lane = (int)(t % 32);
  const bool      on   = g < f.count;
  const pds_int   i    = on ? f.rows[g] : 0;
  warp_pre        r;

  warp_pre_load<BWD>(f, on, i, lane, r);
  pds_grid_dep();
  if (!on) return; // the whole warp
  warp_sweep_row<BWD>(f, i, lane, r, BWD ? f.x : f.b, f.x, f.x, no_wait{});
}

// a sweep over rows (LEV: the level's f.rows, in place; else every row i = 0 .. count, b and xr to x: Jacobi)
template <int N, bool BWD, bool LEV> __device__ __forceinline__ void sweep_rows(const ilu0_args &f) {
  constexpr int   G = G_of<N>;
  const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x, g = t / G;
  const int       u = (int)(t % G);
  const bool      on = g < f.count;
  const pds_int   i = !on ? 0 : LEV ? f.rows[g] : (pds_int)g;
  const double   *rhs = LEV ? (BWD ? f.x : f.b) : f.b, *xr = LEV ? f.x : f.xr;

  if constexpr (N == 1) {
    row_pre r;

    pre_load<BWD>(f, on, i, g, r);
    pds_grid_dep();
    if (!on) return;
    sweep_row<BWD>(f, i, r, rhs, xr, f.x, no_wait{});
  } else {
    lane_pre<N> r;

    lane_pre_load<N, BWD>(f, on && u < N, i, u, r);
    pds_grid_dep();
    if (warp_off(t, G, f.count)) return;
    lane_sweep_row<N, G, BWD>(f, on && u < N, i, u, r, rhs, xr, f.x, no_wait{});
  }
}

template <int N, bool BWD> __global__ void __launch_bounds__(128) sweep_k(ilu0_args f) {
  sweep_rows<N, BWD, true>(f); // in place
}

// ---- the approximate variants: every row, from the previous iterate ----
template <int N, bool BWD> __global__ void __launch_bounds__(128) jacobi_k(ilu0_args f) {
  sweep_rows<N, BWD, false>(f);
}

template <int N> __global__ void __launch_bounds__(128) chow_k(ilu0_args f) {
  constexpr int   G = G_of<N>;
  const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x, g = t / G;
  const int       u = (int)(t % G);

  pds_grid_dep();
  if constexpr (N == 1) {
    if (t >= f.count) return;
    if (!chow_row(f, (pds_int)t)) atomicMin(f.bad, (unsigned long long)t);
  } else {
    if (warp_off(t, G, f.count)) return;
    if (!lane_chow_row<N, G>(f, g < f.count, (pds_int)g, u) && g < f.count && u == 0)
      atomicMin(f.bad, (unsigned long long)g);
  }
}

// ---- syncfree: PH 0 factor, 1 forward, 2 backward; tickets of 32 entries of the padded schedule, or (WR: bs 1, a
// warp per row) a row of the unpadded schedule ----
struct flag_wait {
  static constexpr bool active = true;
  unsigned             *flags;
  unsigned              stamp;
  __device__ void operator()(pds_int k) const {
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> fl(flags[k]);

    for (unsigned ns = 16; fl.load(cuda::memory_order_acquire) != stamp; ns = ns < 128 ? 2 * ns : ns) __nanosleep(ns);
  }
};

template <int N, int PH, bool WR>
__global__ void __launch_bounds__(128) syncfree_k(ilu0_args f, unsigned *flags, pds_cuda_sync_state *st) {
  const int lane = threadIdx.x & 31;
  unsigned  stamp = 0;

  if (lane == 0)
    stamp = cuda::atomic_ref<unsigned, cuda::thread_scope_device>(st->stamp).load(cuda::memory_order_relaxed) + 1;
  stamp = __shfl_sync(0xffffffffu, stamp, 0);
  const flag_wait wait{flags, stamp};

  for (;;) { // tickets until none is left
    unsigned tk = 0;

    if (lane == 0) tk = atomicAdd(&st->ticket, 1u);
    tk = __shfl_sync(0xffffffffu, tk, 0);
    if ((long long)tk >= f.count) break;
    if constexpr (WR) { // bs 1, a warp per row: a ticket is one row of the level schedule (unpadded)
      const pds_int i = f.rows[tk];

      if constexpr (PH == 0) {
        __shared__ pds_int scol[WF_WARPS][WF_SLICE];
        __shared__ double  sval[WF_WARPS][WF_SLICE];

        if (!warp_factor_row(f, i, lane, wait, scol[threadIdx.x / 32], sval[threadIdx.x / 32]) && lane == 0)
          atomicMin(f.bad, (unsigned long long)i);
      } else {
        warp_pre r;

        warp_pre_load<PH == 2>(f, true, i, lane, r);
        warp_sweep_row<PH == 2>(f, i, lane, r, PH == 2 ? f.x : f.b, f.x, f.x, wait);
      }
      __threadfence();
      __syncwarp();
      if (lane == 0)
        cuda::atomic_ref<unsigned, cuda::thread_scope_device>(flags[i]).store(stamp, cuda::memory_order_release);
    } else if constexpr (N == 1) {
      const pds_int i  = f.rows[(long long)tk * 32 + lane];
      const bool    on = i >= 0;

      if (PH == 0) {
        if (on && !factor_row(f, i, wait)) atomicMin(f.bad, (unsigned long long)i);
      } else {
        row_pre r;

        pre_load<PH == 2>(f, on, on ? i : 0, 0, r);
        if (on) sweep_row<PH == 2>(f, i, r, PH == 2 ? f.x : f.b, f.x, f.x, wait);
      }
      // each thread publishes its own row: the release orders its writes (x_i, or row i's blocks) before the flag
      if (on) cuda::atomic_ref<unsigned, cuda::thread_scope_device>(flags[i]).store(stamp, cuda::memory_order_release);
    } else {
      // the ticket's 32 rows (one level's) in G passes of 32 / G groups; a row's lanes write, fence, meet, and
      // its lane 0 publishes the row
      constexpr int G = G_of<N>;
      const int     u = lane % G;

      for (int j = 0; j < G; j++) {
        const pds_int i   = f.rows[(long long)tk * 32 + j * (32 / G) + lane / G];
        const bool    on  = i >= 0, row = on && u < N;

        if (PH == 0) {
          if (!lane_factor_row<N, G>(f, on, i, u, wait) && on && u == 0) atomicMin(f.bad, (unsigned long long)i);
        } else {
          lane_pre<N> r;

          lane_pre_load<N, PH == 2>(f, row, on ? i : 0, u, r);
          lane_sweep_row<N, G, PH == 2>(f, row, i, u, r, PH == 2 ? f.x : f.b, f.x, f.x, wait);
        }
        __threadfence();
        __syncwarp();
        if (on && u == 0)
          cuda::atomic_ref<unsigned, cuda::thread_scope_device>(flags[i]).store(stamp, cuda::memory_order_release);
      }
    }
  }
  if (lane == 0 && atomicAdd(&st->done, 1u) == gridDim.x * (blockDim.x / 32) - 1) { // every warp has ended
    st->ticket = 0, st->done = 0;
    cuda::atomic_ref<unsigned, cuda::thread_scope_device>(st->stamp).store(stamp, cuda::memory_order_release);
  }
}

// the level-ordered copy's values after a factorization (bs 1): schedule position t's row i = rows[t], its lower
// entries (forward) or its diagonal and upper ones (backward, BWD) to sval[sptr[t] ..), a thread per row
template <bool BWD> __global__ void relayout_k(ilu0_args f) {
  const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;

  pds_grid_dep();
  if (t >= f.count) return;
  const pds_int  i   = f.rows[t];
  const pds_size src = BWD ? f.diag[i] : f.rowptr[i], a = f.sptr[t], e = f.sptr[t + 1];

  for (pds_size q = a; q < e; q++) f.sval[q] = f.vals[src + (q - a)];
}

// the grid of a syncfree kernel: the window's warps (a few levels' worth: more warps would only spin on later levels,
// and their polling takes the memory system from the rows that can run), at least a block per SM, at most what can be
// resident (its blocks per SM, registers bound them, times the SMs) and what the tickets need
template <class K> cudaError_t sf_grid(K kernel, int nsm, long long window, long long warps, unsigned *grid) {
  int         per = 0;
  cudaError_t e   = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, kernel, 128, 0);
  long long   g   = (window + 3) / 4;

  if (e != cudaSuccess) return e;
  if (per < 1) per = 1;
  if (g < nsm) g = nsm;
  if (g > (long long)per * nsm) g = (long long)per * nsm;
  if (g > (warps + 3) / 4) g = (warps + 3) / 4;
  *grid = (unsigned)(g > 0 ? g : 1);
  return cudaSuccess;
}

template <int N, int PH, bool WR = false> cudaError_t launch_sf(const pds_cuda_ilu0_launch &L, const ilu0_args &f) {
  unsigned    grid = 1;
  cudaError_t e    = sf_grid(syncfree_k<N, PH, WR>, L.nsm, L.window, L.count, &grid);

  if (e != cudaSuccess) return e;
  syncfree_k<N, PH, WR><<<grid, 128, 0, L.stream>>>(f, L.flags, L.sync);
  return cudaGetLastError();
}

template <int N> cudaError_t launch_n(const pds_cuda_ilu0_launch &L, const ilu0_args &f) {
  const unsigned nb = (unsigned)((f.count * G_of<N> + 127) / 128); // G lanes a block row

  if (f.count <= 0) return cudaSuccess;
  if constexpr (N == 1)
    if (L.warp_rows) { // a warp per row
      const unsigned nw = (unsigned)((f.count * 32 + 127) / 128);

      switch (L.kind) {
      case PDS_CUDA_ILU0_FACTOR: return pds_launch(warp_factor_k, nw, 128, 0, L.stream, f);
      case PDS_CUDA_ILU0_FORWARD: return pds_launch(warp_sweep_k<false>, nw, 128, 0, L.stream, f);
      case PDS_CUDA_ILU0_BACKWARD: return pds_launch(warp_sweep_k<true>, nw, 128, 0, L.stream, f);
      case PDS_CUDA_ILU0_SF_FACTOR: return launch_sf<1, 0, true>(L, f);
      case PDS_CUDA_ILU0_SF_FORWARD: return launch_sf<1, 1, true>(L, f);
      case PDS_CUDA_ILU0_SF_BACKWARD: return launch_sf<1, 2, true>(L, f);
      default: break;
      }
    }
  switch (L.kind) {
  case PDS_CUDA_ILU0_FACTOR: return pds_launch(factor_k<N>, nb, 128, 0, L.stream, f);
  case PDS_CUDA_ILU0_FORWARD: return pds_launch(sweep_k<N, false>, nb, 128, 0, L.stream, f);
  case PDS_CUDA_ILU0_BACKWARD: return pds_launch(sweep_k<N, true>, nb, 128, 0, L.stream, f);
  case PDS_CUDA_ILU0_JACOBI_FORWARD: return pds_launch(jacobi_k<N, false>, nb, 128, 0, L.stream, f);
  case PDS_CUDA_ILU0_JACOBI_BACKWARD: return pds_launch(jacobi_k<N, true>, nb, 128, 0, L.stream, f);
  case PDS_CUDA_ILU0_CHOW: return pds_launch(chow_k<N>, nb, 128, 0, L.stream, f);
  case PDS_CUDA_ILU0_SF_FACTOR: return launch_sf<N, 0>(L, f);
  case PDS_CUDA_ILU0_SF_FORWARD: return launch_sf<N, 1>(L, f);
  case PDS_CUDA_ILU0_SF_BACKWARD: return launch_sf<N, 2>(L, f);
  default: return cudaErrorInvalidValue;
  }
}

} // namespace

extern "C" {

cudaError_t pds_cuda_ilu0(const pds_cuda_ilu0_launch *L) {
  ilu0_args f;

  if (L->kind == PDS_CUDA_ILU0_RELAYOUT_FORWARD || L->kind == PDS_CUDA_ILU0_RELAYOUT_BACKWARD) {
    if (L->count <= 0) return cudaSuccess;
    memset(&f, 0, sizeof f);
    f.rowptr = L->rowptr, f.diag = L->diag, f.vals = L->vals, f.rows = L->rows, f.count = L->count;
    f.sptr = L->sptr, f.sval = L->sval;
    return pds_launch(L->kind == PDS_CUDA_ILU0_RELAYOUT_BACKWARD ? relayout_k<true> : relayout_k<false>,
                      (unsigned)((L->count + 127) / 128), 128, 0, L->stream, f);
  }
  memset(&f, 0, sizeof f);
  f.rowptr = L->rowptr, f.colidx = L->colidx, f.diag = L->diag, f.vals = L->vals, f.rows = L->rows + L->begin;
  f.count = L->count, f.shift = L->shift, f.b = L->b, f.xr = L->xr, f.x = L->x, f.bad = L->bad;
  f.aval = L->aval, f.gvals = L->gvals, f.sptr = L->sptr, f.scol = L->scol, f.sval = L->sval;
  switch (L->bs) {
  case 1: return launch_n<1>(*L, f);
  case 2: return launch_n<2>(*L, f);
  case 3: return launch_n<3>(*L, f);
  case 4: return launch_n<4>(*L, f);
  case 5: return launch_n<5>(*L, f);
  case 6: return launch_n<6>(*L, f);
  case 7: return launch_n<7>(*L, f);
  case 8: return launch_n<8>(*L, f);
  default: return cudaErrorInvalidValue;
  }
}

} // extern "C"
