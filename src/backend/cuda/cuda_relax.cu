// src/backend/cuda/cuda_relax.cu: the block-relaxation kernels on /gpu/cuda (src/precond/relax_kernels.h; the slots
// and the order of the launches are cuda_relax.c's): block residuals, E = A_b^-1 R by blocks, and the update
// u += omega E on a patch set. Every block residual is the patches' residual of its cells, rounded as ref rounds it
// (cuda_patches.cuh); every block product sums inv[k m + i] R_k over k ascending from 0 and the update is u + omega E,
// each product and sum rounded on its own (__dmul_rn, __dadd_rn): the mapc variant gives /cpu/ref's bits for jacobi
// and multicolor. (gemm's products are cuBLAS's, on the host side: round-off of ref, bitwise the same on every run.)
//
// Kernels and their byte and flop models (8-byte reals; m = cells of a block; "per cell" = per cell swept):
//   relax_residual_k  gemm's residual pass over the colour's blocks, in mapc's thread-block shape with 1, 2 or 4 cells
//                     of a spatial block per thread (no search: the block's index is the thread block's): reads f and
//                     u with its halo (neighbours mostly from L1/L2; a block's x-rows are b0 cells long, so blocks of
//                     2^3 use half of each 32-byte sector), writes R block-ordered: ~24 B/cell, 14 flops
//                     (Tried: the block's u and face halo staged in shared memory first, each value loaded once in
//                     x-rows of b0 + 2: 8-10 % slower per 8^3 jacobi sweep on an H200 than 2 cells per thread here.)
//   relax_update_k    u += omega E, the same shape: reads u, E, writes u: 24 B/cell, 2 flops
//   relax_update_cells_k   the same with E in cell order (mapc's jacobi): 24 B/cell, 2 flops
//   (cuBLAS DGEMM)    E_seg = A_t^-1 R_seg per segment, m x m times m x nblocks: 2 m flops per cell (1024 for 8^3
//                     blocks), reads R and writes E: 16 B/cell plus the m x m inverse once per segment
//   relax_mapc_k      paper 002's mapping C (Algorithm 2 and its Appendix kernel): a thread per cell of a spatial
//                     block, the block's residual into shared memory, __syncthreads, thread i computes
//                     e_i = sum_k inv[k m + i] r_k (column-major: the m threads read the inverse's column k as one
//                     coalesced run), then the update. Two extensions, neither changing the arithmetic (same bits):
//                     - reuse: a thread block's sub-group takes a work item of up to 8 consecutive blocks of one
//                       type (blocks of >= 64 cells; PDS_CUDA_RELAX_REUSE=1, 4, 8), their residuals side by side in
//                       shared memory, and thread i reads inv[k m + i] once for all of them: the paper's kernel reads
//                       8 m bytes of inverse per cell from L2 (4 KiB per cell for 8^3 blocks, 2 MiB per block: it is
//                       L2-bound at about 3 Gcells/s on an H200), reuse 8 reads m bytes;
//                     - pack: blocks of fewer than 256 cells are packed several to a thread block (pack = 256 / m,
//                       the paper's mapping A, Fig. 3e), so that a 2^3 block does not run an 8-thread CTA
//                       (PDS_CUDA_RELAX_PACK=0: one per thread block).
//                     Memory: f, u with halo, u written: ~24 B/cell (in place), or f, u, E written (jacobi: the update
//                     follows as relax_update_cells_k); the inverse: 8 m / reuse bytes per cell from L1/L2; 2 m + 14
//                     flops per cell.
//   relax_blockprod_k E_b = A_t^-1 R_b for the work items of gemm's small segments (too few blocks for a DGEMM launch
//                     to pay): mapc's shape, R_b staged in shared memory: 16 B/cell + the inverse from L2 as in mapc,
//                     2 m flops per cell
#include "../../precond/relax_kernels.h"
#include "cuda_launch.cuh"
#include "cuda_patches.cuh"

namespace {

constexpr int RT = 256;       // threads per block of the entry- and cell-wise kernels
constexpr int MAPC_MAXT = 512; // most threads of a mapc / block-product thread block (a block has at most 8^3 cells)

// a block and its type in registers
struct rblock {
  int       patch, o0, o1, o2, b0, b1, m;
  long long r, off;
};

__device__ __forceinline__ rblock relax_load(const pds_relax_block *__restrict__ blk,
                                             const pds_relax_btype *__restrict__ type, long long b) {
  rblock    B;
  const int t = __ldg(&blk[b].type);

  B.patch = __ldg(&blk[b].patch), B.o0 = __ldg(&blk[b].o[0]), B.o1 = __ldg(&blk[b].o[1]), B.o2 = __ldg(&blk[b].o[2]);
  B.r = __ldg(&blk[b].r);
  B.b0 = __ldg(&type[t].b[0]), B.b1 = __ldg(&type[t].b[1]), B.m = __ldg(&type[t].m), B.off = __ldg(&type[t].off);
  return B;
}

// the residual (f - A u)_p of block cell i (local index (lk b1 + lj) b0 + li), its unknown in *pp; zero: u is 0, the
// residual is f (u is not read)
__device__ __forceinline__ double relax_cell_residual(const pds_cuda_pstencil &S, const pds_patch_geom *__restrict__ geom,
                                                      const pds_int *__restrict__ ghost, const rblock &B, int i,
                                                      int zero, const double *__restrict__ f, const double *u,
                                                      long long *pp) {
  const unsigned t  = (unsigned)i / (unsigned)B.b0;
  const int      ci = B.o0 + (int)((unsigned)i - t * (unsigned)B.b0), cj = B.o1 + (int)(t % (unsigned)B.b1);
  const int      ck = B.o2 + (int)(t / (unsigned)B.b1);
  const pbd_geom g  = pbd_load(geom, B.patch);
  const long long p = g.first + ((long long)ck * g.n1 + cj) * g.n0 + ci;

  *pp = p;
  if (zero) return f[p];
  return PB_SUB(f[p], pbd_row_sum(S, g, ghost, u, ci, cj, ck, p));
}

// gemm's residual pass over layout blocks [b0, b1), in mapc's thread-block shape with CPT cells per thread (thread
// (g, i): cells i, i + stride, ..., i + (CPT - 1) stride of block b0 + pack blockIdx + g; stride CPT >= every m):
// R[r_b + l] = (f - A u) at the block's cell l (zero: f). All of a thread's loads are issued before its stores, so
// CPT cells' loads are in flight at once and the block's descriptors are read once for CPT cells.
template <int CPT>
__global__ void __launch_bounds__(MAPC_MAXT)
    relax_residual_k(pds_cuda_pstencil S, const pds_patch_geom *__restrict__ geom, const pds_int *__restrict__ ghost,
                     const pds_relax_block *__restrict__ blk, const pds_relax_btype *__restrict__ type, long long b0,
                     long long b1, int stride, int zero, const double *__restrict__ f, const double *u,
                     double *__restrict__ R) {
  pds_grid_dep();
  const int       pack = (int)blockDim.x / stride, g = (int)threadIdx.x / stride, i = (int)threadIdx.x - g * stride;
  const long long b = b0 + (long long)blockIdx.x * pack + g;

  if (g >= pack || b >= b1) return;
  const rblock B = relax_load(blk, type, b);
  double       r[CPT];
  long long    p;

#pragma unroll
  for (int c = 0; c < CPT; c++)
    if (i + c * stride < B.m) r[c] = relax_cell_residual(S, geom, ghost, B, i + c * stride, zero, f, u, &p);
#pragma unroll
  for (int c = 0; c < CPT; c++)
    if (i + c * stride < B.m) R[B.r + i + c * stride] = r[c];
}

// gemm's update over the same blocks and shape: u_p = u_p + omega E[r_b + l] (zero: 0 + omega E, u not read)
template <int CPT>
__global__ void __launch_bounds__(MAPC_MAXT)
    relax_update_k(const pds_patch_geom *__restrict__ geom, const pds_relax_block *__restrict__ blk,
                   const pds_relax_btype *__restrict__ type, long long b0, long long b1, int stride, int zero,
                   double omega, const double *__restrict__ E, double *__restrict__ u) {
  pds_grid_dep();
  const int       pack = (int)blockDim.x / stride, g = (int)threadIdx.x / stride, i = (int)threadIdx.x - g * stride;
  const long long b = b0 + (long long)blockIdx.x * pack + g;

  if (g >= pack || b >= b1) return;
  const rblock   B  = relax_load(blk, type, b);
  const pbd_geom gm = pbd_load(geom, B.patch);
  double         v[CPT];
  long long      p[CPT];

#pragma unroll
  for (int c = 0; c < CPT; c++) {
    const int l = i + c * stride;

    if (l < B.m) {
      const unsigned q  = (unsigned)l / (unsigned)B.b0;
      const int      ci = B.o0 + (int)((unsigned)l - q * (unsigned)B.b0), cj = B.o1 + (int)(q % (unsigned)B.b1);
      const int      ck = B.o2 + (int)(q / (unsigned)B.b1);

      p[c] = gm.first + ((long long)ck * gm.n1 + cj) * gm.n0 + ci;
      v[c] = PB_ADD(zero ? 0.0 : u[p[c]], PB_MUL(omega, E[B.r + l]));
    }
  }
#pragma unroll
  for (int c = 0; c < CPT; c++)
    if (i + c * stride < B.m) u[p[c]] = v[c];
}

// u_p += omega E_p, E in cell order (mapc's jacobi; zero: u is 0)
__global__ void relax_update_cells_k(long long n, int zero, double omega, const double *__restrict__ E,
                                     double *__restrict__ u) {
  pds_grid_dep();
  const long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x;

  if (p >= n) return;
  u[p] = PB_ADD(zero ? 0.0 : u[p], PB_MUL(omega, E[p]));
}

// e_h = sum_k inv[off + k m + i] r_h[k] for the cnt (<= RG) residuals r_h = r + h stride of one type (shared memory),
// k ascending from 0, each product and sum rounded: row i of A_t^-1 times each of them, the inverse's entry read once
// for all of them
template <int RG>
__device__ __forceinline__ void relax_block_rows(const double *__restrict__ inv, long long off, int m, int i,
                                                 const double *r, int stride, int cnt, double e[RG]) {
  const double *a = inv + off + i;

#pragma unroll
  for (int h = 0; h < RG; h++) e[h] = 0.0;
#pragma unroll(RG == 1 ? 8 : 4)
  for (int k = 0; k < m; k++) {
    const double av = __ldg(a + (long long)k * m);

#pragma unroll
    for (int h = 0; h < RG; h++)
      if (h < cnt) e[h] = PB_ADD(e[h], PB_MUL(av, r[h * stride + k]));
  }
}

// Mapping C over the work items [i0, i1) (an item: up to RG consecutive blocks of one segment, so of one type; items
// NULL: [i0, i1) are layout blocks, each its own item, RG = 1):
// blockDim = pack stride threads; sub-group g = threadIdx / stride takes item i0 + pack blockIdx + g, its thread i
// cell i of each of the item's blocks (threads with i >= m idle; every thread reaches the barrier). Each block's
// residual goes to its own stretch of shared memory; then thread i forms e_i of every block of the item, reading
// row i of the inverse once for all of them (RG = 1: paper 002's kernel as it is). INPLACE = 0 (jacobi): E_p = e
// (cell order); INPLACE = 1 (multicolor: no two blocks of the launch touch; chaotic: they do, by design):
// u_p += omega e. A block's own cells are all read (residual) before the barrier and written after it.
template <int INPLACE, int RG>
__global__ void __launch_bounds__(MAPC_MAXT)
    relax_mapc_k(pds_cuda_pstencil S, const pds_patch_geom *__restrict__ geom, const pds_int *__restrict__ ghost,
                 const pds_relax_block *__restrict__ blk, const pds_relax_btype *__restrict__ type,
                 const double *__restrict__ inv, const int2 *__restrict__ items, long long i0, long long i1, int stride,
                 int zero, double omega, const double *__restrict__ f, double *u, double *__restrict__ E) {
  extern __shared__ double sres[];
  pds_grid_dep();
  const int       pack = (int)blockDim.x / stride, g = (int)threadIdx.x / stride, i = (int)threadIdx.x - g * stride;
  const long long it = i0 + (long long)blockIdx.x * pack + g;
  double         *rs = sres + (size_t)g * RG * stride;
  int             cnt = 0, m = 0, pc[RG];
  long long       off = 0;

  if (g < pack && it < i1) {
    const int2 I = items ? items[it] : make_int2((int)it, 1); /* no items: [i0, i1) are blocks */

    cnt = I.y < RG ? I.y : RG;
#pragma unroll
    for (int h = 0; h < RG; h++)
      if (h < cnt) {
        const rblock B = relax_load(blk, type, (long long)I.x + h);
        long long    p = 0;

        m = B.m, off = B.off;
        if (i < m) rs[h * stride + i] = relax_cell_residual(S, geom, ghost, B, i, zero, f, u, &p);
        pc[h] = (int)p;
      }
  }
  __syncthreads();
  if (i < m) {
    double e[RG];

    relax_block_rows<RG>(inv, off, m, i, rs, stride, cnt, e);
#pragma unroll
    for (int h = 0; h < RG; h++)
      if (h < cnt) {
        if (INPLACE) u[pc[h]] = PB_ADD(u[pc[h]], PB_MUL(omega, e[h]));
        else E[pc[h]] = e[h];
      }
  }
}

// E_b = A_t^-1 R_b for the blocks of the work items [i0, i1) (gemm's small segments: too few blocks for a library
// launch to pay), block-ordered work entries; the shape of relax_mapc_k, R_b staged in shared memory
template <int RG>
__global__ void __launch_bounds__(MAPC_MAXT)
    relax_blockprod_k(const pds_relax_block *__restrict__ blk, const pds_relax_btype *__restrict__ type,
                      const double *__restrict__ inv, const int2 *__restrict__ items, long long i0, long long i1,
                      int stride, const double *__restrict__ R, double *__restrict__ E) {
  extern __shared__ double sres[];
  pds_grid_dep();
  const int       pack = (int)blockDim.x / stride, g = (int)threadIdx.x / stride, i = (int)threadIdx.x - g * stride;
  const long long it = i0 + (long long)blockIdx.x * pack + g;
  double         *rs = sres + (size_t)g * RG * stride;
  int             cnt = 0, m = 0;
  long long       off = 0, r0 = 0;

  if (g < pack && it < i1) {
    const int2 I = items[it];

    cnt = I.y < RG ? I.y : RG;
#pragma unroll
    for (int h = 0; h < RG; h++)
      if (h < cnt) {
        const rblock B = relax_load(blk, type, (long long)I.x + h);

        m = B.m, off = B.off;
        if (h == 0) r0 = B.r;
        if (i < m) rs[h * stride + i] = R[B.r + i];
      }
  }
  __syncthreads();
  if (i < m) {
    double e[RG];

    relax_block_rows<RG>(inv, off, m, i, rs, stride, cnt, e);
#pragma unroll
    for (int h = 0; h < RG; h++)
      if (h < cnt) E[r0 + (long long)h * m + i] = e[h]; /* the item's blocks are consecutive in the work arrays */
  }
}

template <int INPLACE, int RG>
cudaError_t mapc_launch(cudaStream_t s, const struct pds_patches *P, const struct pds_relax_layout *L,
                               const int2 *items, long long i0, long long i1, int stride, int pack, int zero,
                               pds_real omega, const pds_real *f, pds_real *u, pds_real *E) {
  const dim3   grid((unsigned)((i1 - i0 + pack - 1) / pack)), block((unsigned)(stride * pack));
  const size_t smem = (size_t)stride * pack * RG * sizeof(double);

  return pds_launch(relax_mapc_k<INPLACE, RG>, grid, block, smem, s, pb_stencil(P), P->geom, P->ghost, L->blk, L->type,
                    L->inv, items, i0, i1, stride, zero, omega, f, u, E);
}

template <int RG>
cudaError_t blockprod_launch(cudaStream_t s, const struct pds_relax_layout *L, const int2 *items, long long i0,
                                    long long i1, int stride, int pack, const pds_real *R, pds_real *E) {
  return pds_launch(relax_blockprod_k<RG>, dim3((unsigned)((i1 - i0 + pack - 1) / pack)), dim3((unsigned)(stride * pack)),
                    (size_t)stride * pack * RG * sizeof(double), s, L->blk, L->type, L->inv, items, i0, i1, stride, R,
                    E);
}

int relax_shape_ok(int stride, int pack, int reuse) {
  return stride >= 1 && pack >= 1 && (long long)stride * pack <= MAPC_MAXT && (reuse == 1 || reuse == 4 || reuse == 8);
}

inline unsigned blocks_for(long long n) { return (unsigned)((n + RT - 1) / RT); }

} // namespace

extern "C" {

cudaError_t pds_cuda_relax_residual(cudaStream_t s, const struct pds_patches *P, const struct pds_relax_layout *L,
                                    pds_int b0, pds_int b1, int stride, int pack, int cpt, int zero, const pds_real *f,
                                    const pds_real *u, pds_real *R) {
  const dim3 grid((unsigned)(((long long)b1 - b0 + pack - 1) / pack)), block((unsigned)(stride * pack));

  if (b1 <= b0) return cudaSuccess;
  if (stride < 1 || pack < 1 || (long long)stride * pack > MAPC_MAXT) return cudaErrorInvalidValue;
  if (cpt == 4)
    return pds_launch(relax_residual_k<4>, grid, block, 0, s, pb_stencil(P), P->geom, P->ghost, L->blk, L->type,
                      (long long)b0, (long long)b1, stride, zero, f, u, R);
  if (cpt == 2)
    return pds_launch(relax_residual_k<2>, grid, block, 0, s, pb_stencil(P), P->geom, P->ghost, L->blk, L->type,
                      (long long)b0, (long long)b1, stride, zero, f, u, R);
  if (cpt != 1) return cudaErrorInvalidValue;
  return pds_launch(relax_residual_k<1>, grid, block, 0, s, pb_stencil(P), P->geom, P->ghost, L->blk, L->type,
                    (long long)b0, (long long)b1, stride, zero, f, u, R);
}

cudaError_t pds_cuda_relax_update(cudaStream_t s, const struct pds_patches *P, const struct pds_relax_layout *L,
                                  pds_int b0, pds_int b1, int stride, int pack, int cpt, int zero, pds_real omega,
                                  const pds_real *E, pds_real *u) {
  const dim3 grid((unsigned)(((long long)b1 - b0 + pack - 1) / pack)), block((unsigned)(stride * pack));

  if (b1 <= b0) return cudaSuccess;
  if (stride < 1 || pack < 1 || (long long)stride * pack > MAPC_MAXT) return cudaErrorInvalidValue;
  if (cpt == 4)
    return pds_launch(relax_update_k<4>, grid, block, 0, s, P->geom, L->blk, L->type, (long long)b0, (long long)b1,
                      stride, zero, omega, E, u);
  if (cpt == 2)
    return pds_launch(relax_update_k<2>, grid, block, 0, s, P->geom, L->blk, L->type, (long long)b0, (long long)b1,
                      stride, zero, omega, E, u);
  if (cpt != 1) return cudaErrorInvalidValue;
  return pds_launch(relax_update_k<1>, grid, block, 0, s, P->geom, L->blk, L->type, (long long)b0, (long long)b1,
                    stride, zero, omega, E, u);
}

cudaError_t pds_cuda_relax_update_cells(cudaStream_t s, pds_size n, int zero, pds_real omega, const pds_real *E,
                                        pds_real *u) {
  if (n <= 0) return cudaSuccess;
  return pds_launch(relax_update_cells_k, dim3(blocks_for(n)), dim3(RT), 0, s, (long long)n, zero, omega, E, u);
}

cudaError_t pds_cuda_relax_mapc(cudaStream_t s, const struct pds_patches *P, const struct pds_relax_layout *L,
                                int inplace, const int2 *it, pds_int i0, pds_int i1, int stride, int pack,
                                int reuse, int zero, pds_real omega, const pds_real *f, pds_real *u, pds_real *E) {

  if (i1 <= i0) return cudaSuccess;
  if (!relax_shape_ok(stride, pack, reuse)) return cudaErrorInvalidValue;
  if (inplace) {
    if (reuse == 8) return mapc_launch<1, 8>(s, P, L, it, i0, i1, stride, pack, zero, omega, f, u, E);
    if (reuse == 4) return mapc_launch<1, 4>(s, P, L, it, i0, i1, stride, pack, zero, omega, f, u, E);
    return mapc_launch<1, 1>(s, P, L, it, i0, i1, stride, pack, zero, omega, f, u, E);
  }
  if (reuse == 8) return mapc_launch<0, 8>(s, P, L, it, i0, i1, stride, pack, zero, omega, f, u, E);
  if (reuse == 4) return mapc_launch<0, 4>(s, P, L, it, i0, i1, stride, pack, zero, omega, f, u, E);
  return mapc_launch<0, 1>(s, P, L, it, i0, i1, stride, pack, zero, omega, f, u, E);
}

cudaError_t pds_cuda_relax_blockprod(cudaStream_t s, const struct pds_relax_layout *L, const int2 *it, pds_int i0,
                                     pds_int i1, int stride, int pack, int reuse, const pds_real *R, pds_real *E) {

  if (i1 <= i0) return cudaSuccess;
  if (!relax_shape_ok(stride, pack, reuse)) return cudaErrorInvalidValue;
  if (reuse == 8) return blockprod_launch<8>(s, L, it, i0, i1, stride, pack, R, E);
  if (reuse == 4) return blockprod_launch<4>(s, L, it, i0, i1, stride, pack, R, E);
  return blockprod_launch<1>(s, L, it, i0, i1, stride, pack, R, E);
}

} // extern "C"
