// src/backend/cuda/cuda_patches.cuh: the per-cell arithmetic of patch sets (src/mat/patches_kernels.h) on the device,
// shared by the patches kernels (cuda_patches.cu) and the block residuals of relax (cuda_relax.cu): the patch of a
// cell (a binary search on geom[].first), a cell's neighbour across a direction (inside its patch, through the ghost
// map, or -1 at the Dirichlet boundary), and the row sum s = (A x)_p in the order patches.apply states. It is
// src/backend/patches_bodies.h for the GPU: every product and sum is rounded on its own (__dmul_rn, __dadd_rn: never
// contracted to a multiply-add, whatever nvcc's -fmad), in ref's order, so the sums are /cpu/ref's bits.
//
// Why a binary search and not a patch index per tile: a tile table would be per patch set, built and uploaded once
// (the group has no plan slot, and apply runs inside the device loop's stream capture, where nothing may be
// allocated or copied); a tile would also straddle two patches whenever a patch's cell count is not a multiple of
// the tile. The search reads log2(np) 8-byte keys of a table of 40 np bytes that stays in L1/L2; the cell-wise kernels
// search once per thread block for its first and last cells (pbd_patch_of_block) and each thread then only between
// those two patches, usually one. (Measured on an H200, 256^3 cells in 64 patches: patches.residual 0.199 ms with a
// search per thread, 0.195 with one per thread block: the search is not what bounds these kernels.)
// The stencil travels as a kernel parameter (the constant bank: paper 002's "stencil in constant memory").
#pragma once

#include "../../mat/patches_kernels.h"
#include "cuda_common.h"

#define PB_MUL(a, b) __dmul_rn((a), (b))
#define PB_ADD(a, b) __dadd_rn((a), (b))
#define PB_SUB(a, b) __dsub_rn((a), (b))

// the 7 stencil values by value (a kernel parameter)
struct pds_cuda_pstencil {
  double c[7];
};

static inline pds_cuda_pstencil pb_stencil(const struct pds_patches *P) {
  pds_cuda_pstencil S;

  for (int d = 0; d < 7; d++) S.c[d] = P->c[d];
  return S;
}

// the patch of unknown p: the last patch whose first cell is at or before p (np >= 1)
__device__ __forceinline__ int pbd_patch_of(const pds_patch_geom *__restrict__ geom, int np, long long p) {
  int lo = 0, hi = np - 1;

  while (lo < hi) {
    const int mid = (lo + hi + 1) >> 1;

    if (__ldg(&geom[mid].first) <= p) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

// The patch of unknown p for a thread of a thread block that covers the consecutive unknowns c0 .. c0 + blockDim.x - 1
// (n unknowns in all): two threads locate the block's first and last cells (binary searches over all patches),
// every thread then searches only between those two patches, usually one and the same. Every thread of the block
// must call it (a barrier), before any of them returns.
__device__ __forceinline__ int pbd_patch_of_block(const pds_patch_geom *__restrict__ geom, int np, long long n,
                                                  long long p) {
  __shared__ int range[2];
  const long long c0 = (long long)blockIdx.x * blockDim.x, c1 = c0 + blockDim.x - 1 < n ? c0 + blockDim.x - 1 : n - 1;

  if (threadIdx.x == 0) range[0] = pbd_patch_of(geom, np, c0);
  if (threadIdx.x == blockDim.x - 1) range[1] = pbd_patch_of(geom, np, c1);
  __syncthreads();
  int lo = range[0], hi = range[1];

  if (p > c1) p = c1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) >> 1;

    if (__ldg(&geom[mid].first) <= p) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

// a patch's geometry in registers
struct pbd_geom {
  int       n0, n1, n2;
  long long first, gfirst;
};

__device__ __forceinline__ pbd_geom pbd_load(const pds_patch_geom *__restrict__ geom, int q) {
  pbd_geom g;

  g.n0 = __ldg(&geom[q].n[0]), g.n1 = __ldg(&geom[q].n[1]), g.n2 = __ldg(&geom[q].n[2]);
  g.first = __ldg(&geom[q].first), g.gfirst = __ldg(&geom[q].gfirst);
  return g;
}

// local (i, j, k) of unknown p of patch g (cells < 2^31: pds_mat_create_patches refuses more)
__device__ __forceinline__ void pbd_local(const pbd_geom &g, long long p, int *i, int *j, int *k) {
  const unsigned l = (unsigned)(p - g.first), t = l / (unsigned)g.n0;

  *i = (int)(l - t * (unsigned)g.n0), *j = (int)(t % (unsigned)g.n1), *k = (int)(t / (unsigned)g.n1);
}

// the ghost entry of face f (0 x-, 1 x+, 2 y-, 3 y+, 4 z-, 5 z+) at face cell (i, j, k): patches_kernels.h's layout
__device__ __forceinline__ long long pbd_ghost_entry(const pbd_geom &g, int f, int i, int j, int k) {
  const long long F0 = (long long)g.n1 * g.n2, F1 = (long long)g.n0 * g.n2, F2 = (long long)g.n0 * g.n1;

  switch (f) {
  case 0: return g.gfirst + (long long)k * g.n1 + j;
  case 1: return g.gfirst + F0 + (long long)k * g.n1 + j;
  case 2: return g.gfirst + 2 * F0 + (long long)k * g.n0 + i;
  case 3: return g.gfirst + 2 * F0 + F1 + (long long)k * g.n0 + i;
  case 4: return g.gfirst + 2 * (F0 + F1) + (long long)j * g.n0 + i;
  default: return g.gfirst + 2 * (F0 + F1) + F2 + (long long)j * g.n0 + i;
  }
}

// the unknown next to cell (i, j, k) = unknown p of patch g in direction f, or -1 where the domain ends
__device__ __forceinline__ long long pbd_neighbour(const pbd_geom &g, const pds_int *__restrict__ ghost, int f, int i,
                                                   int j, int k, long long p) {
  switch (f) {
  case 0: return i > 0 ? p - 1 : (long long)__ldg(&ghost[pbd_ghost_entry(g, 0, i, j, k)]);
  case 1: return i + 1 < g.n0 ? p + 1 : (long long)__ldg(&ghost[pbd_ghost_entry(g, 1, i, j, k)]);
  case 2: return j > 0 ? p - g.n0 : (long long)__ldg(&ghost[pbd_ghost_entry(g, 2, i, j, k)]);
  case 3: return j + 1 < g.n1 ? p + g.n0 : (long long)__ldg(&ghost[pbd_ghost_entry(g, 3, i, j, k)]);
  case 4: return k > 0 ? p - (long long)g.n0 * g.n1 : (long long)__ldg(&ghost[pbd_ghost_entry(g, 4, i, j, k)]);
  default: return k + 1 < g.n2 ? p + (long long)g.n0 * g.n1 : (long long)__ldg(&ghost[pbd_ghost_entry(g, 5, i, j, k)]);
  }
}

// s = (A x)_p for cell (i, j, k) = unknown p of patch g: c0 x_p, then + c_d v_d for d = x-, x+, y-, y+, z-, z+, each
// product and sum rounded in this order (v_d = -x_p at the Dirichlet boundary). x is read with plain loads (no
// __restrict__, no read-only path): relax's in-place sweeps read cells other blocks write in the same kernel.
__device__ __forceinline__ double pbd_row_sum(const pds_cuda_pstencil &S, const pbd_geom &g,
                                              const pds_int *__restrict__ ghost, const double *x, int i, int j, int k,
                                              long long p) {
  const double xp = x[p];
  double       s  = PB_MUL(S.c[0], xp);

#pragma unroll
  for (int f = 0; f < 6; f++) {
    const long long q = pbd_neighbour(g, ghost, f, i, j, k, p);
    const double    v = q >= 0 ? x[q] : -xp;

    s = PB_ADD(s, PB_MUL(S.c[1 + f], v));
  }
  return s;
}
