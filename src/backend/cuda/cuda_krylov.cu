// src/backend/cuda/cuda_krylov.cu: /gpu/cuda's side of the Krylov methods' scalars: the step kernel (the scalar work
// of one iteration, src/backend/krylov_step.h, on one thread: cuda_krylov.cuh), the kernel that sets S at a solve's
// start, and the device loop's gate. Compiled with -fmad=false
// (cuda.cmake): the step's arithmetic is the host's, bit for bit.
//
// Device loop (cuda_krylov.c builds it, src/solver/loop.c drives it): a CUDA graph [gate] -> [while (cond) { body }], the
// body being one iteration recorded from the solver's own launches, ending in the step kernel and the update kernel.
// The gate opens the loop for a chunk of iterations unless S says the solve has ended; the step kernel writes each
// iteration's record to a ring in mapped pinned memory (seq written last, after a system-wide fence) and closes the
// loop when the record gives a reason, when the host asked to stop, or when the chunk is used up (the host queues the
// next chunk long before: the device never waits for it). The update kernel after the step reads S[PDS_KS_XP], so
// the last iteration's update of x is inside the loop and nothing of a later iteration runs.
#include "cuda_krylov.cuh"
#include "cuda_launch.cuh"

__global__ void step_k(int m, double *S, pds_cuda_loop_dev lp, int in_loop) {
  pds_grid_dep();
  ks_step_dev(m, S, lp, in_loop);
}

// S = v (a solve's start: the values travel as the kernel's parameter, no copy to wait for)
struct ks_values {
  double v[PDS_KS_N];
};
__global__ void set_k(double *S, ks_values v) {
  pds_grid_dep();
  for (int i = threadIdx.x; i < PDS_KS_N; i += blockDim.x) S[i] = v.v[i];
}

__global__ void gate_k(const double *S, pds_cuda_loop_dev lp) {
  const int open = S[PDS_KS_REASON] == 0 && *lp.abort == 0;

  *lp.left = lp.chunk;
  cudaGraphSetConditional((cudaGraphConditionalHandle)lp.handle, open);
}

extern "C" {

cudaError_t pds_cuda_krylov_step(cudaStream_t s, int m, pds_real *S, const pds_cuda_loop_dev *lp) {
  pds_cuda_loop_dev none = {};

  return pds_launch(step_k, 1, 1, 0, s, m, S, lp ? *lp : none, (int)(lp != NULL));
}

cudaError_t pds_cuda_krylov_set(cudaStream_t s, pds_real *S, const pds_real *v) {
  ks_values p;

  for (int i = 0; i < PDS_KS_N; i++) p.v[i] = v[i];
  return pds_launch(set_k, 1, 32, 0, s, S, p);
}

cudaError_t pds_cuda_loop_gate(cudaStream_t s, const pds_real *S, const pds_cuda_loop_dev *lp) {
  gate_k<<<1, 1, 0, s>>>(S, *lp);
  return cudaGetLastError();
}

} // extern "C"
