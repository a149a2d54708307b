// src/backend/cuda/cuda_fv.cu: the finite-volume Euler kernels on /gpu/cuda (src/disc/fv_kernels.h; the slots are
// cuda_fv.c's): a thread per face for the face states and the fluxes, a thread per cell for the sums and the update,
// each running fv_bodies.h's arithmetic; compiled with -fmad=false, so the values are /cpu/ref's bits.
// Byte and flop models (8-byte reals): ref_fv.c's. face_states: 8 + 80 read (the states from L2 when cells are
// numbered for locality) + 80 written a face; face_flux: 105 read + 40 written, about 200 flops a face; cell_sum: 44
// read a face of the cell + 40 written a cell; update: 24 + 4 a face of the cell, 88 read and 48 written a cell.
// Order 2: recon, the paper's 116 NG + 408 bytes a cell (NG stencil entries: index 4, MAT 72, states 40; the cell's
// STE pair, states and 45 coefficients) and 95 NG flops (its count; 90 NG here: 45 products and sums per entry plus 5
// differences); face_states2 reads 2 x (5 + 45 + 9) values and the barycentre a face, writes 80.
#include "../../disc/fv_kernels.h"
#include "../fv_bodies.h"
#include "cuda_launch.cuh"

namespace {

constexpr int FT = 128; // threads a block

__global__ void fv_face_states_k(struct pds_fv_dev D, const double *__restrict__ Q, double *__restrict__ QF) {
  pds_grid_dep();
  const pds_int f = (pds_int)(blockIdx.x * blockDim.x + threadIdx.x);

  if (f < D.nfaces) fv_face_states1(&D, f, Q, QF);
}

__global__ void fv_face_flux_k(struct pds_fv_dev D, const double *__restrict__ QF, double *__restrict__ F) {
  pds_grid_dep();
  const pds_int f = (pds_int)(blockIdx.x * blockDim.x + threadIdx.x);

  if (f < D.nfaces) fv_face_flux(&D, f, QF, F);
}

__global__ void fv_cell_sum_k(struct pds_fv_dev D, const double *__restrict__ F, double *__restrict__ R) {
  pds_grid_dep();
  const pds_int c = (pds_int)(blockIdx.x * blockDim.x + threadIdx.x);

  if (c < D.ncells) fv_cell_sum(&D, c, F, R);
}

__global__ void fv_update_k(struct pds_fv_dev D, double cfl, const double *__restrict__ R, double *__restrict__ Q,
                            double *__restrict__ tau) {
  pds_grid_dep();
  const pds_int c = (pds_int)(blockIdx.x * blockDim.x + threadIdx.x);

  if (c < D.ncells) tau[c] = fv_cell_update(&D, c, cfl, R, Q);
}

// order 2, a thread per (cell, variable): the body's loop over the stencil (MAT read 5 times, from L1/L2)
__global__ void fv_recon_thread_k(struct pds_fv_dev D, const double *__restrict__ Q, double *__restrict__ PC) {
  pds_grid_dep();
  const long i = (long)blockIdx.x * blockDim.x + threadIdx.x;

  if (i < 5 * (long)D.ncells) fv_recon_cell_var(&D, (pds_int)(i / 5), (int)(i % 5), Q, PC);
}

// order 2, a warp per cell (paper 001 Fig. 4's idea of sharing the loads over a warp, without its half-warp split of
// the sums, which would change the bits): the stencil in chunks of 32 entries, lane j loading entry j's index and
// 5 differences and the warp the chunk's 288 MAT values (contiguous: coalesced) into shared memory; then lane l
// sums coefficient l (and l + 32 for l < 13), coefficient k = 9 v + h, over the chunk in order: ref's sums exactly.
constexpr int RW = 4; // warps a block
__global__ void __launch_bounds__(32 * RW) fv_recon_warp_k(struct pds_fv_dev D, const double *__restrict__ Q,
                                                           double *__restrict__ PC) {
  pds_grid_dep();
  __shared__ double sa[RW][32 * 9], sd[RW][32 * 5];
  const int     w = threadIdx.x / 32, l = threadIdx.x % 32;
  const pds_int c = (pds_int)(blockIdx.x * RW + w);

  if (c >= D.ncells) return;
  const pds_int b = D.ste[c], e = D.ste[c + 1];
  const int     k0 = l, k1 = l + 32, v0 = k0 / 9, h0 = k0 % 9, v1 = k1 / 9, h1 = k1 % 9;
  double        qc[5], s0 = 0, s1 = 0;

  for (int v = 0; v < 5; v++) qc[v] = Q[5 * (size_t)c + v];
  for (pds_int g0 = b; g0 < e; g0 += 32) {
    const int n = e - g0 < 32 ? (int)(e - g0) : 32;

    if (l < n) {
      const pds_int G = D.sta[g0 + l];

      for (int v = 0; v < 5; v++) sd[w][5 * l + v] = Q[5 * (size_t)G + v] - qc[v];
    }
    for (int j = l; j < 9 * n; j += 32) sa[w][j] = D.mat[9 * (size_t)g0 + j];
    __syncwarp();
    for (int g = 0; g < n; g++) {
      s0 = s0 + sa[w][9 * g + h0] * sd[w][5 * g + v0];
      if (k1 < 45) s1 = s1 + sa[w][9 * g + h1] * sd[w][5 * g + v1];
    }
    __syncwarp();
  }
  PC[45 * (size_t)c + k0] = s0;
  if (k1 < 45) PC[45 * (size_t)c + k1] = s1;
}

__global__ void fv_face_states2_k(struct pds_fv_dev D, const double *__restrict__ Q, const double *__restrict__ PC,
                                  double *__restrict__ QF) {
  pds_grid_dep();
  const pds_int f = (pds_int)(blockIdx.x * blockDim.x + threadIdx.x);

  if (f < D.nfaces) fv_face_states2(&D, f, Q, PC, QF);
}

// The summations after stages (i) and (ii) fused (fv_face_flux_q: a face's states from Q, or from Q and PC at order
// 2, straight into its flux; each kernel compiled for order 1, O2 false: PC unused, and for order 2). Byte models: the
// least DRAM traffic of each as implemented (8-byte reals; nf faces, nc cells, ncf cell-face entries; order 2 adds
// 432 bytes a cell, its 45 coefficients and 9 AP values, and 24 a face, the barycentre, to each). First run (H100,
// 680K sphere): storing each thread's flux directly was as fast as staging the block's fluxes in shared memory for
// coalesced stores (0.211 against 0.216 ms for the residual), so the plain store stayed.
// flux_q (then cell_sum: 44 nc + 44 ncf): face_cell 8 + kind 1 + area 24 read and the flux 40 written a face, Q 40
// read a cell: 73 nf + 40 nc; the stages summation in all: 73 nf + 84 nc + 44 ncf.
template <bool O2>
__global__ void fv_flux_q_k(struct pds_fv_dev D, const double *__restrict__ Q, const double *__restrict__ PC,
                            double *__restrict__ F) {
  pds_grid_dep();
  const pds_int f = (pds_int)(blockIdx.x * blockDim.x + threadIdx.x);

  if (f < D.nfaces) {
    double g[5];

    fv_face_flux_q(&D, f, Q, O2 ? PC : nullptr, g);
    for (int v = 0; v < 5; v++) F[5 * (size_t)f + v] = g[v];
  }
}

// one colour's faces color_face[lo .. lo + n): no two share a cell. The colour summation's model: R zeroed (40 nc),
// then a face's colour entry 4, face_cell 8, kind 1, area 24, and each cell's Q read once and R read and written once
// (the least: R stays in L2 across the colours only on small meshes): 37 nf + 160 nc
template <bool O2>
__global__ void fv_color_k(struct pds_fv_dev D, pds_int lo, pds_int n, const double *__restrict__ Q,
                           const double *__restrict__ PC, double *__restrict__ R) {
  pds_grid_dep();
  const pds_int i = (pds_int)(blockIdx.x * blockDim.x + threadIdx.x);

  if (i < n) fv_face_add(&D, D.color_face[lo + i], Q, O2 ? PC : nullptr, R);
}

// NOT deterministic: the order of a cell's atomic additions is the order they reach L2. Model: the colour one's without
// the colour entries, 33 nf + 160 nc (the additions run in L2)
template <bool O2>
__global__ void fv_atomic_k(struct pds_fv_dev D, const double *__restrict__ Q, const double *__restrict__ PC,
                            double *__restrict__ R) {
  pds_grid_dep();
  const pds_int f = (pds_int)(blockIdx.x * blockDim.x + threadIdx.x);

  if (f < D.nfaces) {
    const pds_int l = D.face_cell[2 * f], r = D.face_cell[2 * f + 1];
    double        g[5];

    fv_face_flux_q(&D, f, Q, O2 ? PC : nullptr, g);
    for (int v = 0; v < 5; v++) atomicAdd(R + 5 * (size_t)l + v, -g[v]);
    if (r >= 0)
      for (int v = 0; v < 5; v++) atomicAdd(R + 5 * (size_t)r + v, g[v]);
  }
}

// a thread per cell: its faces' fluxes (an interior one computed twice, once in each cell) summed in cell_face order,
// ref's stages' bits. Model: cell_ptr 4, Q 40, R 40 a cell, cell_face 4 an entry, the face's face_cell, kind, area
// once (33 a face; the second cell's read from L2): 33 nf + 84 nc + 4 ncf; twice the flux arithmetic of the others
template <bool O2>
__global__ void fv_cells_k(struct pds_fv_dev D, const double *__restrict__ Q, const double *__restrict__ PC,
                           double *__restrict__ R) {
  pds_grid_dep();
  const pds_int c = (pds_int)(blockIdx.x * blockDim.x + threadIdx.x);

  if (c < D.ncells) fv_cell_fluxes(&D, c, Q, O2 ? PC : nullptr, R);
}

unsigned blocks(pds_int n) { return (unsigned)((n + FT - 1) / FT); }

} // namespace

extern "C" {

cudaError_t pds_cuda_fv_face_states(cudaStream_t s, const struct pds_fv_dev *D, const pds_real *Q, pds_real *QF) {
  return pds_launch(fv_face_states_k, dim3(blocks(D->nfaces)), dim3(FT), 0, s, *D, Q, QF);
}

cudaError_t pds_cuda_fv_face_flux(cudaStream_t s, const struct pds_fv_dev *D, const pds_real *QF, pds_real *F) {
  return pds_launch(fv_face_flux_k, dim3(blocks(D->nfaces)), dim3(FT), 0, s, *D, QF, F);
}

cudaError_t pds_cuda_fv_cell_sum(cudaStream_t s, const struct pds_fv_dev *D, const pds_real *F, pds_real *R) {
  return pds_launch(fv_cell_sum_k, dim3(blocks(D->ncells)), dim3(FT), 0, s, *D, F, R);
}

cudaError_t pds_cuda_fv_update(cudaStream_t s, const struct pds_fv_dev *D, pds_real cfl, const pds_real *R,
                               pds_real *Q, pds_real *tau) {
  return pds_launch(fv_update_k, dim3(blocks(D->ncells)), dim3(FT), 0, s, *D, cfl, R, Q, tau);
}

cudaError_t pds_cuda_fv_recon(cudaStream_t s, const struct pds_fv_dev *D, int variant, const pds_real *Q,
                              pds_real *PC) {
  if (variant == 0)
    return pds_launch(fv_recon_thread_k, dim3((unsigned)((5 * (long)D->ncells + FT - 1) / FT)), dim3(FT), 0, s, *D, Q,
                      PC);
  return pds_launch(fv_recon_warp_k, dim3((unsigned)((D->ncells + RW - 1) / RW)), dim3(32 * RW), 0, s, *D, Q, PC);
}

cudaError_t pds_cuda_fv_face_states2(cudaStream_t s, const struct pds_fv_dev *D, const pds_real *Q,
                                     const pds_real *PC, pds_real *QF) {
  return pds_launch(fv_face_states2_k, dim3(blocks(D->nfaces)), dim3(FT), 0, s, *D, Q, PC, QF);
}

cudaError_t pds_cuda_fv_flux_q(cudaStream_t s, const struct pds_fv_dev *D, const pds_real *Q, const pds_real *PC,
                               pds_real *F) {
  const dim3 g(blocks(D->nfaces));

  return PC ? pds_launch(fv_flux_q_k<true>, g, dim3(FT), 0, s, *D, Q, PC, F)
            : pds_launch(fv_flux_q_k<false>, g, dim3(FT), 0, s, *D, Q, PC, F);
}

// R = 0 before the colours' or the atomic additions (all-zero bytes are 0.0)
static cudaError_t fv_zero(cudaStream_t s, pds_int ncells, pds_real *R) {
  return cudaMemsetAsync(R, 0, 5 * (size_t)ncells * sizeof *R, s);
}

cudaError_t pds_cuda_fv_sum_color(cudaStream_t s, const struct pds_fv_dev *D, const pds_real *Q, const pds_real *PC,
                                  pds_real *R) {
  cudaError_t e = fv_zero(s, D->ncells, R);

  for (pds_int k = 0; k < D->ncolors && e == cudaSuccess; k++) {
    const pds_int lo = D->color_ptr_h[k], n = D->color_ptr_h[k + 1] - lo;

    if (n > 0)
      e = PC ? pds_launch(fv_color_k<true>, dim3(blocks(n)), dim3(FT), 0, s, *D, lo, n, Q, PC, R)
             : pds_launch(fv_color_k<false>, dim3(blocks(n)), dim3(FT), 0, s, *D, lo, n, Q, PC, R);
  }
  return e;
}

cudaError_t pds_cuda_fv_sum_atomic(cudaStream_t s, const struct pds_fv_dev *D, const pds_real *Q, const pds_real *PC,
                                   pds_real *R) {
  cudaError_t e = fv_zero(s, D->ncells, R);

  if (e == cudaSuccess && D->nfaces > 0)
    e = PC ? pds_launch(fv_atomic_k<true>, dim3(blocks(D->nfaces)), dim3(FT), 0, s, *D, Q, PC, R)
           : pds_launch(fv_atomic_k<false>, dim3(blocks(D->nfaces)), dim3(FT), 0, s, *D, Q, PC, R);
  return e;
}

cudaError_t pds_cuda_fv_sum_cells(cudaStream_t s, const struct pds_fv_dev *D, const pds_real *Q, const pds_real *PC,
                                  pds_real *R) {
  return PC ? pds_launch(fv_cells_k<true>, dim3(blocks(D->ncells)), dim3(FT), 0, s, *D, Q, PC, R)
            : pds_launch(fv_cells_k<false>, dim3(blocks(D->ncells)), dim3(FT), 0, s, *D, Q, PC, R);
}

} // extern "C"
