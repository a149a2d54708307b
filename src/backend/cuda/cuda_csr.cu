// src/backend/cuda/cuda_csr.cu: /gpu/cuda CSR kernels: y = alpha A x + beta y with five kernels (stream, thread per
// row, sub-warp per row, row splitting for long rows, merge-path), the row statistics that choose among them, and the
// diagonal.
//
// Byte model of the product (what bench/gpu divides by the time): 12 nnz (8-byte value + 4-byte column index)
// + 8 (nrows + 1) (64-bit row pointers) + 8 ncols (x, each entry once: banded matrices reuse it from cache)
// + 8 nrows (y written) [+ 8 nrows when beta != 0]. Flops: 2 nnz. The transpose product (perm != NULL) reads
// 4 more bytes per entry (the permutation) and gathers the values.
//
// Which kernel runs (cuda_mat.c, csr_plan_build, decides once per matrix from its row statistics; docs/dev.md too):
//   every row has at most 64 entries and there are at least 65536 rows (256 CTAs, enough to fill the GPU)
//           -> the stream kernel: thread per row over block-staged products (below);
//   otherwise, with L = the longest row, m = nnz / (non-empty rows) and E = the empty rows, if the lengths are
//   irregular: L > 8 max(m, 4) (a row far longer than the typical one: the per-row kernels would leave most lanes
//   idle while one works, and row splitting pays three launches and its own reads), or E >= nrows / 4 (the lanes
//   per row, taken from the mean over all rows, would be too few for the rows that have entries)
//           -> the merge-path kernel: every thread takes 8 items of the merged list of row ends and entries
//              (below), whatever the row lengths, with a fix-up kernel for the rows that cross CTAs;
//   otherwise width = lanes per row = the power of two nearest avg/2, where avg = nnz / nrows, clamped to [1, 32]
//           (width 1: the plain thread-per-row kernel; widths 2..32: the sub-warp-per-row kernel), and
//   rows with more than long_len = max(256, 64 * width) entries go to the row-splitting kernels: each is cut into
//           segments of seg entries (4096, or more so that no row has over 64 segments), one 256-thread block
//           sums a segment in a fixed tree, and one warp per row adds its segments in order.
// Measured on an H200 (bench/gpu, copy 4.19 TB/s): poisson7 256^3, stream 88% of the copy bandwidth (1.32x
// cuSPARSE), thread per row 84%, sub-warp 72% (2 lanes) and 67% (4 lanes); paper 004's 1.7M-node P1 matrix
// (bench/gpu/bench_fem2d_gpu): stream 56 us, thread per row 61, 4 lanes 66; 46k nodes (below the stream threshold):
// 4 lanes 5.2 us, thread per row 6.7, stream 7.0. On small matrices the stream kernel has too few CTAs. The thread
// and sub-warp kernels load through the cache without evict-first hints: their threads come back to the sectors
// they touched (with __ldcs thread per row was 36% of copy on poisson7 and 1.9x slower on the P1 matrix).
// The merge-path rule leaves every matrix that had the stream or the sub-warp kernels with a regular length
// profile where it was (poisson7, the P1 matrices, the real matrices of ../shared: their longest rows are within 2.5x
// of their mean). bench/gpu measures the forced merge-path kernel on every class beside the rule's choice.
// All kernels write disjoint entries of y and sum each row in a fixed order: the result does not depend on timing.
// Every kernel is a template on the value type T of A's values, x and y: double (pds_cuda_csr_spmv), or float for
// single-precision solves (pds_cuda_csr_spmv_f32: the same plan and kernels, each row summed in float in the same
// order, alpha and beta rounded to float; the Krylov dots of the stream kernel accumulate (double)y_i (double)w_i in
// double; the row-splitting segments and their partials are added in double). Float bytes: 8 nnz + 8 (nrows + 1)
// + 4 ncols + 4 nrows [+ 4 nrows].
// The stream kernel also takes the Krylov methods' dots of y (pds_vec_fused_apply_dot); other plans run the product
// and then a dot kernel.
#include "cuda_csr_rows.cuh"
#include "cuda_launch.cuh"
#include "cuda_reduce.cuh"

#define CSR_T 256
static_assert(CSR_T == ST_T, "the stream kernel's CTA is stream_rows' (cuda_csr_rows.cuh)");

// y_i = alpha s + beta y_i, or alpha s without reading y (BETA false: y may hold anything); every kernel's store
template <bool BETA, class T>
__device__ __forceinline__ void csr_put(T *__restrict__ y, pds_size i, T alpha, T beta, T s) {
  y[i] = BETA ? alpha * s + beta * y[i] : alpha * s;
}

// warp_red<SumOp>'s tree (16, 8, 4, 2, 1) in the value type
template <class T> __device__ __forceinline__ T warp_sum(T v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = v + __shfl_down_sync(FULL, v, o);
  return v;
}

template <class T, bool BETA, bool PERM>
__global__ void __launch_bounds__(CSR_T) csr_thread_k(pds_int nrows, const pds_size *__restrict__ rp,
                                                       const pds_int *__restrict__ ci, const T *__restrict__ v,
                                                       const pds_int *__restrict__ perm, T alpha,
                                                       const T *__restrict__ x, T beta,
                                                       T *__restrict__ y, pds_size long_len) {
  pds_grid_dep();
  const pds_int i = (pds_int)(blockIdx.x * CSR_T + threadIdx.x);

  if (i >= nrows) return;
  const pds_size k0 = rp[i], k1 = rp[i + 1];
  if (k1 - k0 > long_len) return; // the row-splitting kernels own it
  T s = 0;
  // plain cached loads here, no evict-first hints: a thread reads its row's entries one by one, so the rest of each
  // 32-byte sector must survive in L1 until its next load (with __ldcs the kernel was 1.9x slower on paper 004's
  // 1.7M-node grid, H200)
  for (pds_size k = k0; k < k1; k++) s += (PERM ? __ldg(&v[__ldg(&perm[k])]) : __ldg(&v[k])) * __ldg(&x[__ldg(&ci[k])]);
  csr_put<BETA>(y, i, alpha, beta, s);
}

// W lanes per row, W | 32; the lanes of a row take entries k0 + lane, k0 + lane + W, ... and add in a fixed tree
template <class T, int W, bool BETA, bool PERM>
__global__ void __launch_bounds__(CSR_T) csr_sub_k(pds_int nrows, const pds_size *__restrict__ rp,
                                                    const pds_int *__restrict__ ci, const T *__restrict__ v,
                                                    const pds_int *__restrict__ perm, T alpha,
                                                    const T *__restrict__ x, T beta,
                                                    T *__restrict__ y, pds_size long_len) {
  pds_grid_dep();
  const pds_size g    = (pds_size)blockIdx.x * CSR_T + threadIdx.x;
  const pds_int  i    = (pds_int)(g / W);
  const int      lane = threadIdx.x & (W - 1);
  const unsigned mask = W == 32 ? FULL : ((1u << W) - 1) << ((threadIdx.x & 31) & ~(W - 1));

  if (i >= nrows) return; // all W lanes of a row leave together
  const pds_size k0 = rp[i], k1 = rp[i + 1];
  if (k1 - k0 > long_len) return;
  T s = 0;
  // cached loads (as csr_thread_k): a row's next pass reads the rest of the sectors this pass touched
  for (pds_size k = k0 + lane; k < k1; k += W)
    s += (PERM ? __ldg(&v[__ldg(&perm[k])]) : __ldg(&v[k])) * __ldg(&x[__ldg(&ci[k])]);
#pragma unroll
  for (int o = W / 2; o > 0; o >>= 1) s += __shfl_down_sync(mask, s, o, W);
  if (lane == 0) csr_put<BETA>(y, i, alpha, beta, s);
}

// Row splitting: block (slot, j) sums segment j of long row long_rows[slot] into partial[slot * nseg + j] (each
// thread in T, the block's tree and the partials in double).
template <class T, bool PERM>
__global__ void __launch_bounds__(RT) csr_seg_k(const int *__restrict__ long_rows, const pds_size *__restrict__ rp,
                                                 const pds_int *__restrict__ ci, const T *__restrict__ v,
                                                 const pds_int *__restrict__ perm, const T *__restrict__ x,
                                                 pds_size seg, int nseg, double *__restrict__ partial) {
  pds_grid_dep();
  __shared__ double sh[1][RT / 32];
  const int         row = long_rows[blockIdx.x];
  const pds_size    k0 = rp[row] + (pds_size)blockIdx.y * seg, end = rp[row + 1];
  const pds_size    k1 = k0 + seg < end ? k0 + seg : end;
  T                 st = 0;
  double            s[1];

  if (k0 >= end) return; // past this row's last segment (the warp kernel reads only its own segments)
  for (pds_size k = k0 + threadIdx.x; k < k1; k += RT) st += csr_val<T, PERM>(v, perm, k) * __ldg(&x[__ldcs(&ci[k])]);
  s[0] = st;
  block_red<1, SumOp>(s, sh);
  if (threadIdx.x == 0) partial[(pds_size)blockIdx.x * nseg + blockIdx.y] = s[0];
}

// one warp per long row: its segments' partials in order (lane-strided, then the warp tree)
template <class T, bool BETA>
__global__ void csr_fin_k(int nlong, const int *__restrict__ long_rows, const pds_size *__restrict__ rp, pds_size seg,
                          int nseg, const double *__restrict__ partial, T alpha, T beta, T *__restrict__ y) {
  pds_grid_dep();
  const int slot = (int)((blockIdx.x * (pds_size)blockDim.x + threadIdx.x) >> 5), lane = threadIdx.x & 31;

  if (slot >= nlong) return;
  const int      row = long_rows[slot];
  const pds_size len = rp[row + 1] - rp[row];
  const int      ns  = (int)((len + seg - 1) / seg);
  double         s   = 0;

  for (int j = lane; j < ns; j += 32) s += partial[(pds_size)slot * nseg + j];
  s = warp_red<SumOp>(s);
  if (lane == 0) csr_put<BETA>(y, row, alpha, beta, (T)s);
}

// Thread per row over block-staged products ("stream"): a CTA takes 256 consecutive rows; their entries are one
// contiguous run [rp[r0], rp[r0 + 256]), which the CTA reads in tiles of ST_NNZ entries, each thread loading
// ST_NNZ / 256 values, column indices and x entries, all independent (coalesced 8-byte loads, many in flight), and
// stores the products v_k x_{c_k} in shared memory; then thread i adds the products of its row in order. The
// arithmetic is ref's (products rounded, then added one by one from s = 0), so the result has ref's bits when
// beta = 0. With ND > 0 dots of y (with w1, and w2 or y itself when SQ), a fixed grid (stream_blocks: at most
// PDS_CUDA_RED_MAXBLOCK CTAs, a function of nrows) strides over the row chunks and the dots end in the deterministic
// grid reduction; the plain product (ND = 0) has a CTA per chunk (csr_launch).
// Each thread's running dots live in shared memory (sacc), not in registers: the kernel is held to 32 registers
// (eight CTAs an SM) and two more live registers made ptxas split the tile's loads into smaller batches. Measured
// with bench/gpu/fused_tune on an H200 (q = A p with (p, q), poisson7): 256^3 495.5 -> 482.7 us, 128^3 79.2 -> 78.2
// (the plain product: 441 and 67), the same bits.
template <class T, bool BETA, bool PERM, int ND, bool SQ>
__global__ void __launch_bounds__(CSR_T) csr_stream_k(pds_int nrows, const pds_size *__restrict__ rp,
                                                       const pds_int *__restrict__ ci, const T *__restrict__ v,
                                                       const pds_int *__restrict__ perm, T alpha,
                                                       const T *__restrict__ x, T beta, T *y,
                                                       const T *__restrict__ w1, const T *w2,
                                                       pds_cuda_red red, double *out) {
  pds_grid_dep();
  typedef csr_num<T> N;
  __shared__ T      prod[ST_NNZ];
  __shared__ double sacc[ND > 0 ? ND : 1][ND > 0 ? CSR_T : 1];

#pragma unroll
  for (int o = 0; o < ND; o++) sacc[o][threadIdx.x] = 0;
  for (pds_size r0 = (pds_size)blockIdx.x * CSR_T; r0 < (pds_size)nrows; r0 += (pds_size)gridDim.x * CSR_T) {
    const pds_size r1 = r0 + CSR_T < (pds_size)nrows ? r0 + CSR_T : (pds_size)nrows, i = r0 + threadIdx.x;
    const pds_size base = rp[r0], end = rp[r1];
    pds_size       my0 = 0, my1 = 0;
    T              w1i = 0, w2i = 0; /* loaded early: they arrive while the tile is staged */

    if (i < r1) {
      my0 = rp[i], my1 = rp[i + 1];
      if (ND > 0) w1i = w1[i];
      if (ND > 1 && !SQ) w2i = w2[i];
    }
    const T s = stream_rows<T, PERM, false>(base, end, my0, my1, ci, v, perm, x, prod);
    if (i < r1) {
      const T yi = BETA ? N::add(N::mul(alpha, s), N::mul(beta, y[i])) : N::mul(alpha, s);

      y[i] = yi;
      /* for float, the product of two floats is exact in double: the dots do not depend on contraction */
      if (ND > 0) sacc[0][threadIdx.x] += (double)yi * (double)w1i;
      if (ND > 1) sacc[ND - 1][threadIdx.x] += SQ ? (double)yi * (double)yi : (double)yi * (double)w2i;
    }
  }
  if (ND > 0) {
    double acc[ND > 0 ? ND : 1];

#pragma unroll
    for (int o = 0; o < ND; o++) acc[o] = sacc[o][threadIdx.x];
    grid_red<(ND > 0 ? ND : 1), SumOp>(acc, red, out);
  }
}

// Merge-path product (Merrill & Garland, "Merge-based parallel sparse matrix-vector multiplication", SC16), for
// matrices whose rows are of very uneven length. The rows' end offsets rp[1..nrows] and the entry indices 0..nnz-1
// are merged into one list of nrows + nnz items (a row's end comes after its entries and before the next row's);
// CTA c takes items [c MD, (c+1) MD) of it, MD = 2048, thread t of the CTA the MI = 8 items from t MI, so every
// thread has the same work whatever the row lengths: 7 entries and a row end, or 8 entries of a long row, or 8
// empty rows. The CTA's start (row, entry) on the path is a binary search done once per matrix (csr_merge_setup_k,
// in the plan). A CTA
//   0. if no row ends in its tile (the middle of a long row), only sums its entries: its carry-out (below), each
//      thread its entries t, t + MT, ... in order, then the warp tree, then the warps in order; none of 1-4;
//   1. stages its tile: the row ends rp[r0+1 .. r1] and the products v_k x_{c_k} of its entries k0..k1-1, in one
//      shared array (coalesced independent loads, as the stream kernel);
//   2. each thread finds its start in the tile (binary search in shared memory) and walks its 8 items: an entry
//      adds its product to the running sum s (in entry order), a row end closes the row. The first row a thread
//      closes may have begun in earlier threads; the rows it closes after that are all its own, so their sums are
//      final (where the CTA stages its stores, step 4, they are kept over their row ends in the tile: after a
//      barrier that ends every thread's search, only the thread that closes such a row reads its end);
//   3. the threads' last, open rows (key = row, value = s) go through a segmented inclusive scan over the CTA (warp
//      shuffles in the fixed order 1, 2, 4, 8, 16, then the warp totals in ascending warp order): thread t's first
//      closed row is thread t-1's open row, so its value is scan[t-1] + the thread's own part, and scan[last] is the
//      CTA's carry-out, the part of its last row that lies in this tile;
//   4. a row that began in an earlier CTA is not written by the CTA that closes it: that CTA stores its part (the
//      head) and the fix-up kernel (csr_merge_fix_k) adds the carries of the CTAs the row crossed, in CTA order,
//      then the head, and writes y. STAGE (matrices whose rows average fewer than MI items), where the tile has more
//      rows than threads: the CTA writes y of its other rows at the end, in row order, thread t rows t, t + MT, ...:
//      coalesced stores, where a thread writing its rows as it closed them made each warp's stores scatter over up
//      to MI * 32 rows, several sectors for a few lanes each (H100, 2^21 rows of power-law lengths: 133 -> 125 us);
//      otherwise (rows of 7 entries close in step across a warp; tiles inside long rows close few) each row is
//      stored as it closes, two barriers fewer.
// Every sum has a fixed order that depends on the structure only (no atomics): the same bits on every run. With
// beta = 0 y is not read; empty rows are row ends with no entries (y_i = beta y_i, or 0).
// Bytes: 12 nnz (values and column indices, once) + 8 nrows (the row ends) + 8 ncols (x, gathered through the
// cache) + 8 nrows (y) [+ 8 nrows with beta != 0] [+ 4 nnz with perm], plus about 64 bytes per CTA (its path
// coordinate, carry and head: 32, which the fix-up reads again): under 0.5% of a 2048-item tile's 12-22 KB.
// Flops: 2 nnz, plus one addition per CTA boundary a row crosses.
#define MT PDS_CUDA_MERGE_THREADS
#define MI PDS_CUDA_MERGE_ITEMS
#define MD PDS_CUDA_MERGE_TILE

// thread t's values av and x entries xv of the tile's entries t + j MT (j < MI; 0 past the tile's nk entries): the
// values and columns first, then the gathers of x, all issued before any is used
template <class T, bool PERM>
__device__ __forceinline__ void merge_loads(int t, int nk, pds_size k0, const pds_int *__restrict__ ci,
                                            const T *__restrict__ v, const pds_int *__restrict__ perm,
                                            const T *__restrict__ x, T (&av)[MI], T (&xv)[MI]) {
  pds_int cv[MI];

#pragma unroll
  for (int j = 0; j < MI; j++) {
    const int i = t + j * MT;

    av[j] = 0, cv[j] = 0;
    if (i < nk) av[j] = csr_val<T, PERM>(v, perm, k0 + i), cv[j] = __ldcs(&ci[k0 + i]);
  }
#pragma unroll
  for (int j = 0; j < MI; j++) xv[j] = t + j * MT < nk ? __ldg(&x[cv[j]]) : (T)0;
}

// 8 CTAs an SM (32 registers; 0-8 bytes spilled in the BETA / PERM instantiations): with step 0 the compiler gave
// some instantiations 40 registers (6 CTAs an SM), and on an H100 the bound measured 1-5% faster on dense rows,
// irregular and many empty rows, 1.4% slower on power law (bench/results/csr-inrow-h100-s19.jsonl, call 2)
template <class T, bool BETA, bool PERM, bool STAGE>
__global__ void __launch_bounds__(MT, 8) csr_merge_k(const pds_size *__restrict__ rp, const pds_int *__restrict__ ci,
                                                   const T *__restrict__ v, const pds_int *__restrict__ perm,
                                                   T alpha, const T *__restrict__ x, T beta,
                                                   T *__restrict__ y,
                                                   const pds_cuda_merge_coord *__restrict__ coord, int ncta,
                                                   T *__restrict__ carry) {
  pds_grid_dep();
  typedef csr_num<T> N;
  // [0, nr): row ends (entry offsets), then the rows' sums (bits); [nr, nr + nk): products (bits)
  __shared__ pds_size tile[MD];
  __shared__ T        scan[MT];
  __shared__ int      wkey[MT / 32];
  __shared__ T        wval[MT / 32];
  const int                  c = blockIdx.x, t = threadIdx.x, lane = t & 31, w = t >> 5;
  const pds_cuda_merge_coord a = coord[c], b = coord[c + 1];
  const pds_int              r0 = a.row;
  const pds_size             k0 = a.k;
  const int                  nr = b.row - a.row, nk = (int)(b.k - a.k), len = nr + nk;

  // 0. a tile inside one row (no row end in it: the middle of a long row) only gives its sum, the CTA's carry-out:
  //    thread t adds its entries t, t + MT, ... in order, then the warp tree, then the warps in order. No tile in
  //    shared memory, no search, no scan: the loads of the next CTA start sooner (a 2048-item tile's walk reads the
  //    tile at a stride of MI, the scan takes three barriers)
  if (nr == 0) {
    T av[MI], xv[MI], s = 0;

    merge_loads<T, PERM>(t, nk, k0, ci, v, perm, x, av, xv);
#pragma unroll
    for (int j = 0; j < MI; j++)
      if (t + j * MT < nk) s = N::add(s, N::mul(av[j], xv[j]));
    s = warp_sum<T>(s);
    if (lane == 0) wval[w] = s;
    __syncthreads();
    if (t == 0) {
      T cr = wval[0];

#pragma unroll
      for (int j = 1; j < MT / 32; j++) cr = N::add(cr, wval[j]);
      carry[c] = cr;
    }
    return;
  }

  // 1. stage the tile: all loads issued before any is used
  {
    T av[MI], xv[MI];

#pragma unroll
    for (int j = 0; j < MI; j++)
      if (t + j * MT < nr) tile[t + j * MT] = rp[r0 + 1 + t + j * MT];
    merge_loads<T, PERM>(t, nk, k0, ci, v, perm, x, av, xv);
#pragma unroll
    for (int j = 0; j < MI; j++)
      if (t + j * MT < nk) tile[nr + t + j * MT] = N::bits(N::mul(av[j], xv[j]));
  }
  __syncthreads();

  // 2. this thread's start on the path (diagonal d of the tile), then its items
  const int d = t * MI < len ? t * MI : len, n = len - d < MI ? len - d : MI;
  int       lo = d - nk > 0 ? d - nk : 0, hi = d < nr ? d : nr;

  while (lo < hi) { // the row end at p comes before entry d - p - 1?
    const int p = (lo + hi) >> 1;

    if (tile[p] <= k0 + (d - p - 1)) lo = p + 1;
    else hi = p;
  }
  int    xr = lo, yk = d - lo, xf = lo; // local row, local entry; xf: the first row this thread closes
  bool   closed = false;
  T      s = 0, first = 0;

  // STAGE (the launch's choice for matrices of short rows): staged stores where this tile has more rows than
  // threads; else each closed row stored as it closes (two barriers fewer); the same for the whole CTA
  const bool stage = STAGE && nr > MT;

  if (stage) __syncthreads(); // every search is done: a row end that is not a thread's first is read by it alone
  for (int it = 0; it < n; it++) {
    if (xr < nr && tile[xr] <= k0 + yk) { // row r0 + xr ends here
      if (!closed) first = s, closed = true;
      else if (stage) tile[xr] = N::bits(s); // its sum, over its row end
      else csr_put<BETA>(y, r0 + xr, alpha, beta, s);
      s = 0, xr++;
    } else s = N::add(s, N::from(tile[nr + yk++]));
  }

  // 3. segmented inclusive scan of the open rows (keys ascend with t: equal keys are one contiguous run)
  int    key = xr;
  T      val = s;

#pragma unroll
  for (int o = 1; o < 32; o <<= 1) {
    const int kk = __shfl_up_sync(FULL, key, o);
    const T   vv = __shfl_up_sync(FULL, val, o);

    if (lane >= o && kk == key) val = vv + val;
  }
  if (lane == 31) wkey[w] = key, wval[w] = val;
  __syncthreads();
  {
    int ws = w;

    while (ws > 0 && wkey[ws - 1] == key) ws--;
    if (ws < w) { // the earlier warps of this run, in ascending order
      T cr = wval[ws];

      for (int j = ws + 1; j < w; j++) cr += wval[j];
      val = cr + val;
    }
  }
  scan[t] = val;
  __syncthreads();

  // 4. the first closed row, with the parts of the threads before; the carry-out; then, where the CTA stages its
  //    stores, y of the rows closed here in row order (coalesced, not one scattered store per closed row)
  if (closed) {
    const T r = t > 0 ? scan[t - 1] + first : first;

    if (xf == 0 && a.first >= 0) carry[ncta + c] = r; // began in an earlier CTA: the fix-up finishes it
    else if (stage) tile[xf] = N::bits(r);
    else csr_put<BETA>(y, r0 + xf, alpha, beta, r);
  }
  if (t == MT - 1) carry[c] = val;
  if (!stage) return;
  __syncthreads();
  for (int i = t + (a.first >= 0 ? 1 : 0); i < nr; i += MT) csr_put<BETA>(y, r0 + i, alpha, beta, N::from(tile[i]));
}

// Fix-up of the rows that cross CTAs: CTA c owns its first row when that row began in an earlier CTA (first >= 0)
// and ends in c. Its value is the carries of CTAs first .. c-1 in order, then c's head. Thread per CTA; a row that
// crossed more than MERGE_SERIAL CTAs (a long row) is summed by the whole warp (lane-strided, then the warp tree).
#define MERGE_SERIAL 8
template <class T, bool BETA>
__global__ void __launch_bounds__(256) csr_merge_fix_k(const pds_cuda_merge_coord *__restrict__ coord, int ncta,
                                                       const T *__restrict__ carry, T alpha, T beta,
                                                       T *__restrict__ y) {
  pds_grid_dep();
  const int c = (int)(blockIdx.x * 256 + threadIdx.x), lane = threadIdx.x & 31;
  const T  *head = carry + ncta;
  int           first = -1, row = 0;

  if (c < ncta) {
    const pds_cuda_merge_coord a = coord[c];

    if (a.first >= 0 && coord[c + 1].row > a.row) first = a.first, row = a.row;
  }
  const bool wide = first >= 0 && c - first > MERGE_SERIAL;

  if (first >= 0 && !wide) {
    T s = carry[first];

    for (int j = first + 1; j < c; j++) s += carry[j];
    s += head[c];
    csr_put<BETA>(y, row, alpha, beta, s);
  }
  for (unsigned m = __ballot_sync(FULL, wide); m; m &= m - 1) { // no lane has left: the whole warp is here
    const int src = __ffs(m) - 1;
    const int f = __shfl_sync(FULL, first, src), cc = __shfl_sync(FULL, c, src), r = __shfl_sync(FULL, row, src);
    T         s = 0;

    for (int j = f + lane; j < cc; j += 32) s += carry[j];
    s = warp_sum<T>(s);
    if (lane == 0) {
      s += head[cc];
      csr_put<BETA>(y, r, alpha, beta, s);
    }
  }
}

// The plan: thread c finds where tile c starts on the merge path (c = ncta gives the end, (nrows, nnz)).
__global__ void csr_merge_setup_k(pds_int nrows, pds_size nnz, const pds_size *__restrict__ rp, int ncta,
                                  pds_cuda_merge_coord *__restrict__ coord) {
  const pds_size c = blockIdx.x * (pds_size)blockDim.x + threadIdx.x;

  if (c > ncta) return;
  const pds_size total = (pds_size)nrows + nnz, d = c * MD < total ? c * MD : total;
  pds_size       lo = d - nnz > 0 ? d - nnz : 0, hi = d < nrows ? d : nrows;

  while (lo < hi) { // rows whose end comes before entry d - p - 1
    const pds_size p = (lo + hi) >> 1;

    if (rp[p + 1] <= d - p - 1) lo = p + 1;
    else hi = p;
  }
  pds_cuda_merge_coord q;

  q.row   = (pds_int)lo;
  q.k     = d - lo;
  // the row's first entry is item row + rp[row] of the list
  q.first = c > 0 && q.k > rp[lo] ? (pds_int)((lo + rp[lo]) / MD) : -1;
  coord[c] = q;
}

// row statistics: longest row (warp maximum, then one 64-bit integer atomicMax per warp), and the rows longer
// than long_len (one integer atomicAdd per warp; their order in the list varies from run to run, the products do
// not depend on it)
__global__ void csr_analyze_k(pds_int nrows, const pds_size *__restrict__ rp, pds_size long_len,
                              unsigned long long *stats, int *long_rows, int cap) {
  const pds_int      i    = (pds_int)(blockIdx.x * (pds_size)blockDim.x + threadIdx.x);
  const int          lane = threadIdx.x & 31;
  unsigned long long len  = i < nrows ? (unsigned long long)(rp[i + 1] - rp[i]) : 0;
  unsigned long long m    = len, base = 0;
  const unsigned     lng  = __ballot_sync(FULL, i < nrows && len > (unsigned long long)long_len);

#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    unsigned long long t = __shfl_down_sync(FULL, m, o);

    m = t > m ? t : m;
  }
  if (lane == 0 && m > 0) atomicMax(&stats[0], m);
  if (lane == 0 && lng) base = atomicAdd(&stats[1], (unsigned long long)__popc(lng));
  base = __shfl_sync(FULL, base, 0);
  if ((lng >> lane) & 1u) {
    unsigned long long slot = base + (unsigned long long)__popc(lng & ((1u << lane) - 1u));

    if (slot < (unsigned long long)cap) long_rows[slot] = i;
  }
}

__global__ void csr_diag_k(pds_int n, const pds_size *__restrict__ rp, const pds_int *__restrict__ ci,
                           const double *__restrict__ v, double *__restrict__ d) {
  const pds_int i = (pds_int)(blockIdx.x * (pds_size)blockDim.x + threadIdx.x);

  if (i >= n) return;
  double s = 0;
  for (pds_size k = rp[i]; k < rp[i + 1]; k++)
    if (ci[k] == i) s += v[k];
  d[i] = s;
}


template <class T, bool BETA, bool PERM>
static void csr_launch(cudaStream_t s, const pds_cuda_csr_plan *pl, pds_int nrows, const pds_size *rp,
                       const pds_int *ci, const T *v, const pds_int *perm, T alpha, const T *x, T beta, T *y) {
  const pds_size L = pl->long_len;
  const unsigned g = (unsigned)(((pds_size)nrows * pl->width + CSR_T - 1) / CSR_T);

  if (pl->merge) {
    T *carry = (T *)pl->carry; // 2 ncta values of T in the plan's 2 ncta doubles

    // staged y stores where a thread closes more than one row on average (fewer than MI items, entries and row
    // end, a row): measured on an H100, 2^21 rows of power-law lengths (5.3 entries a row) 133 -> 125 us; rows of
    // 11-23 entries on average lost 2-6% with them, so they keep the unstaged kernel
    const bool stage = (pds_size)pl->ncta * MD < (pds_size)MI * (pds_size)nrows;

    pds_launch(stage ? csr_merge_k<T, BETA, PERM, true> : csr_merge_k<T, BETA, PERM, false>, (unsigned)pl->ncta, MT, 0,
               s, rp, ci, v, perm, alpha, x, beta, y, pl->coord, pl->ncta, carry);
    if (pl->ncta > 1)
      pds_launch(csr_merge_fix_k<T, BETA>, (unsigned)((pl->ncta + 255) / 256), 256, 0, s, pl->coord, pl->ncta, carry,
                 alpha, beta, y);
    return;
  }
  if (pl->stream) {
    pds_cuda_red none = {NULL, NULL};

    /* a CTA per chunk of CSR_T rows: with no dots to partition, nothing ties the grid to stream_blocks, whose
       strided chunks (over 2^21 rows) lose the reuse of x between neighbouring chunks in L2: poisson7 256^3
       454 -> 441 us (bench/gpu/fused_tune, H200), the same bits */
    pds_launch(csr_stream_k<T, BETA, PERM, 0, false>, (unsigned)(((pds_size)nrows + CSR_T - 1) / CSR_T), CSR_T, 0, s,
               nrows, rp, ci, v, perm, alpha, x, beta, y, (const T *)NULL, (const T *)NULL, none, (double *)NULL);
    return;
  }
  switch (pl->width) {
  case 1: pds_launch(csr_thread_k<T, BETA, PERM>, g, CSR_T, 0, s, nrows, rp, ci, v, perm, alpha, x, beta, y, L); break;
  case 2: pds_launch(csr_sub_k<T, 2, BETA, PERM>, g, CSR_T, 0, s, nrows, rp, ci, v, perm, alpha, x, beta, y, L); break;
  case 4: pds_launch(csr_sub_k<T, 4, BETA, PERM>, g, CSR_T, 0, s, nrows, rp, ci, v, perm, alpha, x, beta, y, L); break;
  case 8: pds_launch(csr_sub_k<T, 8, BETA, PERM>, g, CSR_T, 0, s, nrows, rp, ci, v, perm, alpha, x, beta, y, L); break;
  case 16: pds_launch(csr_sub_k<T, 16, BETA, PERM>, g, CSR_T, 0, s, nrows, rp, ci, v, perm, alpha, x, beta, y, L); break;
  default: pds_launch(csr_sub_k<T, 32, BETA, PERM>, g, CSR_T, 0, s, nrows, rp, ci, v, perm, alpha, x, beta, y, L);
  }
  if (pl->nlong > 0) {
    pds_launch(csr_seg_k<T, PERM>, dim3((unsigned)pl->nlong, (unsigned)pl->nseg), RT, 0, s, pl->long_rows, rp, ci, v,
               perm, x, pl->seg, pl->nseg, pl->partial);
    pds_launch(csr_fin_k<T, BETA>, (unsigned)((pl->nlong + 7) / 8), 256, 0, s, pl->nlong, pl->long_rows, rp, pl->seg,
               pl->nseg, pl->partial, alpha, beta, y);
  }
}

// y = alpha A x + beta y in T: the four instantiations of csr_launch
template <class T>
static cudaError_t csr_spmv_typed(cudaStream_t s, const pds_cuda_csr_plan *plan, pds_int nrows,
                                  const pds_size *rowptr, const pds_int *colidx, const T *vals, const pds_int *perm,
                                  T alpha, const T *x, T beta, T *y) {
  if (nrows <= 0) return cudaSuccess;
  if (beta != 0) {
    if (perm) csr_launch<T, true, true>(s, plan, nrows, rowptr, colidx, vals, perm, alpha, x, beta, y);
    else csr_launch<T, true, false>(s, plan, nrows, rowptr, colidx, vals, perm, alpha, x, beta, y);
  } else {
    if (perm) csr_launch<T, false, true>(s, plan, nrows, rowptr, colidx, vals, perm, alpha, x, beta, y);
    else csr_launch<T, false, false>(s, plan, nrows, rowptr, colidx, vals, perm, alpha, x, beta, y);
  }
  return cudaGetLastError();
}

// y = A x and its dots in one stream kernel (stream plans only)
template <class T>
static cudaError_t csr_spmv_dot_typed(cudaStream_t s, const pds_cuda_csr_plan *plan, pds_cuda_red red, pds_int nrows,
                                      const pds_size *rowptr, const pds_int *colidx, const T *vals, const T *x, T *y,
                                      const T *w1, const T *w2, pds_real *out) {
  const unsigned g = stream_blocks(nrows);

  if (!plan->stream) return cudaErrorNotSupported;
  if (!w2)
    return pds_launch(csr_stream_k<T, false, false, 1, false>, g, CSR_T, 0, s, nrows, rowptr, colidx, vals,
                      (const pds_int *)NULL, 1, x, 0, y, w1, (const T *)NULL, red, out);
  if (w2 == y)
    return pds_launch(csr_stream_k<T, false, false, 2, true>, g, CSR_T, 0, s, nrows, rowptr, colidx, vals,
                      (const pds_int *)NULL, 1, x, 0, y, w1, (const T *)NULL, red, out);
  return pds_launch(csr_stream_k<T, false, false, 2, false>, g, CSR_T, 0, s, nrows, rowptr, colidx, vals,
                    (const pds_int *)NULL, 1, x, 0, y, w1, w2, red, out);
}

extern "C" {

cudaError_t pds_cuda_csr_analyze(cudaStream_t s, pds_int nrows, const pds_size *rowptr, pds_size long_len,
                                 unsigned long long *stats, int *long_rows, int cap) {
  cudaError_t e = cudaMemsetAsync(stats, 0, 2 * sizeof *stats, s);

  if (e != cudaSuccess || nrows <= 0) return e;
  csr_analyze_k<<<(unsigned)((nrows + 255) / 256), 256, 0, s>>>(nrows, rowptr, long_len, stats, long_rows, cap);
  return cudaGetLastError();
}

cudaError_t pds_cuda_csr_merge_setup(cudaStream_t s, const pds_cuda_csr_plan *plan, pds_int nrows, pds_size nnz,
                                     const pds_size *rowptr) {
  const pds_size n = (pds_size)plan->ncta + 1;

  if (nrows <= 0 || plan->ncta <= 0) return cudaSuccess;
  csr_merge_setup_k<<<(unsigned)((n + 255) / 256), 256, 0, s>>>(nrows, nnz, rowptr, plan->ncta, plan->coord);
  return cudaGetLastError();
}

cudaError_t pds_cuda_csr_spmv(cudaStream_t s, const pds_cuda_csr_plan *plan, pds_int nrows, const pds_size *rowptr,
                              const pds_int *colidx, const pds_real *vals, const pds_int *perm, pds_real alpha,
                              const pds_real *x, pds_real beta, pds_real *y) {
  return csr_spmv_typed<double>(s, plan, nrows, rowptr, colidx, vals, perm, alpha, x, beta, y);
}

cudaError_t pds_cuda_csr_spmv_dot(cudaStream_t s, const pds_cuda_csr_plan *plan, pds_cuda_red red, pds_int nrows,
                                  const pds_size *rowptr, const pds_int *colidx, const pds_real *vals,
                                  const pds_real *x, pds_real *y, const pds_real *w1, const pds_real *w2,
                                  pds_real *out) {
  return csr_spmv_dot_typed<double>(s, plan, red, nrows, rowptr, colidx, vals, x, y, w1, w2, out);
}

cudaError_t pds_cuda_csr_spmv_f32(cudaStream_t s, const pds_cuda_csr_plan *plan, pds_int nrows, const pds_size *rowptr,
                                  const pds_int *colidx, const float *vals, pds_real alpha, const float *x,
                                  pds_real beta, float *y) {
  return csr_spmv_typed<float>(s, plan, nrows, rowptr, colidx, vals, NULL, (float)alpha, x, (float)beta, y);
}

cudaError_t pds_cuda_csr_spmv_dot_f32(cudaStream_t s, const pds_cuda_csr_plan *plan, pds_cuda_red red, pds_int nrows,
                                      const pds_size *rowptr, const pds_int *colidx, const float *vals,
                                      const float *x, float *y, const float *w1, const float *w2, pds_real *out) {
  return csr_spmv_dot_typed<float>(s, plan, red, nrows, rowptr, colidx, vals, x, y, w1, w2, out);
}

cudaError_t pds_cuda_csr_diag(cudaStream_t s, pds_int n, const pds_size *rowptr, const pds_int *colidx,
                              const pds_real *vals, pds_real *d) {
  if (n <= 0) return cudaSuccess;
  csr_diag_k<<<(unsigned)((n + 255) / 256), 256, 0, s>>>(n, rowptr, colidx, vals, d);
  return cudaGetLastError();
}

} // extern "C"
