// src/backend/cuda/cuda_krylov.cuh: the scalar step of an iteration on the device (one thread), shared by the step
// kernel (cuda_krylov.cu) and the reductions that end an iteration and run the step in their last block
// (cuda_vec.cu): the step of src/backend/krylov_step.h and, inside a device loop, the iteration's record and the
// loop's condition (cuda_krylov.cu has the picture). Its arithmetic is IEEE *, / and sqrt without sums, so no
// multiply-add contraction can change it.
#ifndef PDS_CUDA_KRYLOV_CUH
#define PDS_CUDA_KRYLOV_CUH

#include "../krylov_step.h"
#include "cuda_common.h"

// inside a device loop, after the step of a live iteration: its record, the chunk's count, the loop's condition
__device__ __forceinline__ void ks_record_dev(const double *S, const pds_cuda_loop_dev &lp) {
  const int          it  = (int)S[PDS_KS_IT];
  pds_cuda_loop_rec *r   = &lp.ring[it % lp.nring];
  const int          end = S[PDS_KS_REASON] != 0 || --*lp.left <= 0;

  for (int i = 0; i < PDS_CUDA_LOOP_REC; i++) r->rec[i] = S[PDS_KS_IT + i];
  __threadfence_system(); // the record before its number
  r->seq = it;
  if (end) cudaGraphSetConditional((cudaGraphConditionalHandle)lp.handle, 0);
}

__device__ __forceinline__ void ks_step_dev(int m, double *S, const pds_cuda_loop_dev &lp, int in_loop) {
  const int live = S[PDS_KS_REASON] == 0; // else an iteration queued past the last: no record, no count

  pds_ks_step(m, S);
  if (in_loop && live) ks_record_dev(S, lp);
}

#endif
