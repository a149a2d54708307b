// src/backend/cuda/cuda_krylov.cu: /gpu/cuda's side of the Krylov methods' scalars: the step kernel (the scalar work
// of one iteration, src/backend/krylov_step.h, on one thread) and the device loop's gate. Compiled with -fmad=false
// (cuda.cmake): the step's arithmetic is the host's, bit for bit.
//
// Device loop (cuda.c builds it, src/solver/loop.c drives it): a CUDA graph [gate] -> [while (cond) { body }], the
// body being one iteration recorded from the solver's own launches, ending in the step kernel and the update kernel.
// The gate opens the loop for a chunk of iterations unless S says the solve has ended; the step kernel writes each
// iteration's record to a ring in mapped pinned memory (seq written last, after a system-wide fence) and closes the
// loop when the record gives a reason, when the host asked to stop, or when the chunk is used up (the host queues the
// next chunk long before: the device never waits for it). The update kernel after the step reads S[PDS_KS_XP], so
// the last iteration's update of x is inside the loop and nothing of a later iteration runs.
#include "../krylov_step.h"
#include "cuda_common.h"

__global__ void step_k(int m, double *S, pds_cuda_loop_dev lp, int in_loop) {
  pds_ks_step(m, S);
  if (!in_loop) return;
  const int          it  = (int)S[PDS_KS_IT];
  pds_cuda_loop_rec *r   = &lp.ring[it % lp.nring];
  const int          end = S[PDS_KS_REASON] != 0 || *lp.abort != 0 || --*lp.left <= 0;

  for (int i = 0; i < PDS_CUDA_LOOP_REC; i++) r->rec[i] = S[PDS_KS_IT + i];
  __threadfence_system(); // the record before its number
  r->seq = it;
  if (end) cudaGraphSetConditional((cudaGraphConditionalHandle)lp.handle, 0);
}

__global__ void gate_k(const double *S, pds_cuda_loop_dev lp) {
  const int open = S[PDS_KS_REASON] == 0 && *lp.abort == 0;

  *lp.left = lp.chunk;
  cudaGraphSetConditional((cudaGraphConditionalHandle)lp.handle, open);
}

extern "C" {

cudaError_t pds_cuda_krylov_step(cudaStream_t s, int m, pds_real *S, const pds_cuda_loop_dev *lp) {
  pds_cuda_loop_dev none = {};

  step_k<<<1, 1, 0, s>>>(m, S, lp ? *lp : none, lp != NULL);
  return cudaGetLastError();
}

cudaError_t pds_cuda_loop_gate(cudaStream_t s, const pds_real *S, const pds_cuda_loop_dev *lp) {
  gate_k<<<1, 1, 0, s>>>(S, *lp);
  return cudaGetLastError();
}

} // extern "C"
