// src/backend/cuda/cuda_fem2d.cu: /gpu/cuda P1 assembly (src/disc/fem2d.c drives it): the element kernel, one
// thread per triangle, and the gather kernel, a few lanes per row, both running the functions of
// src/backend/fem2d_kernels.h. This file is compiled with -fmad=false (cuda.cmake): no multiply-add is contracted,
// so every value is the same sequence of correctly rounded operations as on /cpu/ref, and A and b come out bitwise
// equal to ref's (tests/cuda/tc03_fem2d checks it). No floating-point atomics: each value of Ke, fe, vals and b has
// one writer, and each sum runs in the gather map's fixed order (ascending triangle). The only atomic is the
// integer minimum that reports the first bad triangle.
//
// Byte model (n nodes, t ~ 2n triangles, nnz ~ 7n entries; what bench/gpu/bench_fem2d_gpu divides by):
//   element kernel  t (12 tri + 48 xy [+ 8 kv + 24 fm] read, 72 Ke/fe written)          30 flops + 1 div per triangle
//   gather kernel   n (16 rowptr + 16 nptr + 1 isd + 8 b) + nnz (4 colidx + 16 gptr + 8 vals)
//                   + 9t (4 gidx + 8 Ke) + 3t (4 nidx + 8 fe) [+ in symmetric mode 1 isd per entry]
//                                                                                         12t additions
// (gptr and rowptr are read at both ends of each entry / row; the second read hits cache: 8 B each counted here as
// read once in bench_fem2d_gpu's model). xy, Ke and fe are gathered: with a numbering that has locality (the
// generator's, or pds_mesh_reorder_rcm) each is read from DRAM about once.
//
// Launch configuration (pds_cuda_fem2d_auto): the element kernel 256 threads per block; the gather kernel 256
// threads per block and W lanes per row, W = pds_cuda_lanes_per_row (the power of two nearest half the average row
// length, as the CSR product: 4 for the ~7 entries of a triangle mesh), so each lane sums about two entries and a
// warp reads the runs of 8 consecutive rows. Measured on an H200 (bench/gpu/bench_fem2d_gpu sweeps elem_threads,
// gather_lanes and gather_threads), paper 004's grids 5 and 6 (0.43M, 1.7M nodes): 4 lanes are 1.27x and 1.36x
// faster than 8 (the diagonal entry's ~6 contributions dominate a row; fewer, busier lanes keep more rows in
// flight), 2 lanes 2-5% slower than 4, and 128, 256 or 512 threads per block within 2% of each other; the element
// kernel within 3% for 64..256 threads.
#include "cuda_common.h"

#include "../fem2d_kernels.h"

#define FEM_FULL 0xffffffffu

__global__ void fem_bad_init_k(unsigned long long *bad, unsigned long long v) { *bad = v; }

__global__ void fem_element_k(pds_int ntri, const pds_int *__restrict__ tri, const pds_real *__restrict__ xy,
                              pds_real k, const pds_real *__restrict__ kv, pds_real f, const pds_real *__restrict__ fm,
                              pds_real *__restrict__ Ke, pds_real *__restrict__ fe, unsigned long long *bad) {
  const pds_int e = (pds_int)(blockIdx.x * (size_t)blockDim.x + threadIdx.x);

  if (e >= ntri) return;
  if (fem2d_element(e, tri, xy, k, kv, f, fm, Ke, fe)) atomicMin(bad, (unsigned long long)e);
}

// W lanes per row (W | 32; the block size is a multiple of 32, so a row's lanes sit in one warp and leave
// together). Lane l takes entries p0 + l, p0 + l + W, ...: a_p = sum of Ke over p's list, in list order. Lane 0
// sums b_i over the node's triangles in order, then, in symmetric mode, subtracts a_ij g_j for the Dirichlet columns
// in column order (each pass's W values come to it by shuffles, in lane order = column order); those entries are
// then zeroed. This is fem2d_gather_row's arithmetic in its order; the row body is not shared with it because the
// lanes split the row.
template <int W>
__global__ void fem_gather_k(pds_int n, const pds_size *__restrict__ rowptr, const pds_int *__restrict__ colidx,
                             const pds_size *__restrict__ gptr, const pds_int *__restrict__ gidx,
                             const pds_real *__restrict__ Ke, const pds_size *__restrict__ nptr,
                             const pds_int *__restrict__ nidx, const pds_real *__restrict__ fe,
                             const unsigned char *__restrict__ isd, const pds_real *__restrict__ g, pds_real gc,
                             int symmetric, pds_real *__restrict__ vals, pds_real *__restrict__ b) {
  const size_t   gt   = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  const pds_int  i    = (pds_int)(gt / W);
  const int      lane = (int)(threadIdx.x & (W - 1));
  const unsigned mask = W == 32 ? FEM_FULL : ((1u << W) - 1) << ((threadIdx.x & 31) & ~(unsigned)(W - 1));

  if (i >= n) return;
  const pds_size p0 = rowptr[i], p1 = rowptr[i + 1];
  if (isd[i]) {
    for (pds_size p = p0 + lane; p < p1; p += W) vals[p] = colidx[p] == i ? 1.0 : 0.0;
    if (lane == 0) b[i] = g ? g[i] : gc;
    return;
  }
  pds_real bi = 0.0;
  if (lane == 0)
    for (pds_size q = nptr[i]; q < nptr[i + 1]; q++) bi += fe[nidx[q]];
  for (pds_size base = p0; base < p1; base += W) { // the same trip count for all lanes of the row
    const pds_size p = base + lane;
    pds_real       s = 0.0;
    pds_int        j = -1;

    if (p < p1) {
      j = colidx[p];
      for (pds_size q = gptr[p]; q < gptr[p + 1]; q++) s += Ke[gidx[q]];
    }
    if (symmetric) {
      const int dj = j >= 0 && isd[j];
      const int m  = p1 - base < (pds_size)W ? (int)(p1 - base) : W;

      for (int c = 0; c < m; c++) {
        const pds_real sc = __shfl_sync(mask, s, c, W);
        const pds_int  jc = __shfl_sync(mask, j, c, W);
        const int      dc = __shfl_sync(mask, dj, c, W);

        if (lane == 0 && dc) bi -= sc * (g ? g[jc] : gc);
      }
      if (dj) s = 0.0;
    }
    if (p < p1) vals[p] = s;
  }
  if (lane == 0) b[i] = bi;
}

extern "C" void pds_cuda_fem2d_auto(pds_int nrows, pds_size nnz, pds_cuda_fem2d_cfg *cfg) {
  cfg->elem_threads   = 256;
  cfg->gather_lanes   = pds_cuda_lanes_per_row(nrows > 0 ? (double)nnz / (double)nrows : 7.0);
  cfg->gather_threads = 256;
}

static int fem_cfg_ok(const pds_cuda_fem2d_cfg *c) {
  const int w = c->gather_lanes;

  return c->elem_threads >= 32 && c->elem_threads <= 1024 && c->elem_threads % 32 == 0 && c->gather_threads >= 32 &&
         c->gather_threads <= 1024 && c->gather_threads % 32 == 0 && w >= 1 && w <= 32 && (w & (w - 1)) == 0;
}

extern "C" cudaError_t pds_cuda_fem2d_element(cudaStream_t s, const pds_cuda_fem2d_cfg *cfg, pds_int ntri,
                                              const pds_int *tri, const pds_real *xy, pds_real k, const pds_real *kv,
                                              pds_real f, const pds_real *fm, pds_real *Ke, pds_real *fe,
                                              unsigned long long *bad) {
  pds_cuda_fem2d_cfg c;

  if (cfg) c = *cfg;
  else pds_cuda_fem2d_auto(0, 0, &c);
  if (!fem_cfg_ok(&c) || ntri <= 0) return cudaErrorInvalidValue;
  fem_bad_init_k<<<1, 1, 0, s>>>(bad, (unsigned long long)ntri);
  fem_element_k<<<(unsigned)((ntri + c.elem_threads - 1) / c.elem_threads), c.elem_threads, 0, s>>>(
      ntri, tri, xy, k, kv, f, fm, Ke, fe, bad);
  return cudaGetLastError();
}

extern "C" cudaError_t pds_cuda_fem2d_gather(cudaStream_t s, const pds_cuda_fem2d_cfg *cfg, pds_int n,
                                             const pds_size *rowptr, const pds_int *colidx, const pds_size *gptr,
                                             const pds_int *gidx, const pds_real *Ke, const pds_size *nptr,
                                             const pds_int *nidx, const pds_real *fe, const unsigned char *isd,
                                             const pds_real *g, pds_real gc, int symmetric, pds_real *vals,
                                             pds_real *b) {
  pds_cuda_fem2d_cfg c;
  size_t             threads;
  unsigned           grid;

  if (cfg) c = *cfg;
  else pds_cuda_fem2d_auto(n, 7 * (pds_size)n, &c); // a triangle mesh: nnz = n + 2 edges ~ 7 n
  if (!fem_cfg_ok(&c) || n <= 0) return cudaErrorInvalidValue;
  threads = (size_t)n * c.gather_lanes;
  grid    = (unsigned)((threads + c.gather_threads - 1) / c.gather_threads);
#define FEM_GATHER(W)                                                                                         \
  fem_gather_k<W><<<grid, c.gather_threads, 0, s>>>(n, rowptr, colidx, gptr, gidx, Ke, nptr, nidx, fe, isd, g, gc, \
                                                    symmetric, vals, b)
  switch (c.gather_lanes) {
  case 1: FEM_GATHER(1); break;
  case 2: FEM_GATHER(2); break;
  case 4: FEM_GATHER(4); break;
  case 8: FEM_GATHER(8); break;
  case 16: FEM_GATHER(16); break;
  default: FEM_GATHER(32); break;
  }
#undef FEM_GATHER
  return cudaGetLastError();
}
