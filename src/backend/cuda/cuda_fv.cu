// src/backend/cuda/cuda_fv.cu: the finite-volume Euler kernels on /gpu/cuda (src/disc/fv_kernels.h; the slots are
// cuda_fv.c's): a thread per face for the face states and the fluxes, a thread per cell for the sums and the update,
// each running fv_bodies.h's arithmetic; compiled with -fmad=false, so the values are /cpu/ref's bits.
// Byte and flop models (8-byte reals): ref_fv.c's. face_states: 8 + 80 read (the states from L2 when cells are
// numbered for locality) + 80 written a face; face_flux: 105 read + 40 written, about 200 flops a face; cell_sum: 44
// read a face of the cell + 40 written a cell; update: 24 + 4 a face of the cell, 88 read and 48 written a cell.
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

} // extern "C"
