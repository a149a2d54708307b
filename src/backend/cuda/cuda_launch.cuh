// src/backend/cuda/cuda_launch.cuh: programmatic dependent launch (Hopper) for the kernels of a Krylov iteration.
//
// A kernel launched with pds_launch may be scheduled while the kernel before it in the stream (or graph) is still
// running: its blocks become resident and wait in pds_grid_dep() (griddepcontrol.wait) until that kernel has
// finished and its writes are visible, then let the next kernel be scheduled (griddepcontrol.launch_dependents).
// The launch latency of each kernel of an iteration is then hidden behind the one before, which is what an
// iteration of a small system mostly costs; the arithmetic and its order are unchanged, so are the bits.
// Every kernel pds_launch launches calls pds_grid_dep() first, before it reads or writes anything. Only grids of at
// most PDS_CUDA_PDL_MAXBLOCKS blocks are launched early (they are resident at once: early blocks of a larger grid
// would only take slots from the kernel they wait for); pds_cuda_pdl = 0 (PDS_CUDA_PDL=0 in the environment, read
// by cuda.c) launches everything the plain way.
#ifndef PDS_CUDA_LAUNCH_CUH
#define PDS_CUDA_LAUNCH_CUH

#include "cuda_common.h"

#define PDS_CUDA_PDL_MAXBLOCKS 1024

__device__ __forceinline__ void pds_grid_dep() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

template <typename... KArgs, typename... Args>
static inline cudaError_t pds_launch(void (*kernel)(KArgs...), dim3 grid, dim3 block, size_t smem, cudaStream_t s,
                                     Args... args) {
  cudaLaunchConfig_t  cfg = {};
  cudaLaunchAttribute at[1];

  cfg.gridDim = grid, cfg.blockDim = block, cfg.dynamicSmemBytes = smem, cfg.stream = s;
  if (pds_cuda_pdl && (size_t)grid.x * grid.y * grid.z <= PDS_CUDA_PDL_MAXBLOCKS) {
    at[0].id                                         = cudaLaunchAttributeProgrammaticStreamSerialization;
    at[0].val.programmaticStreamSerializationAllowed = 1;
    cfg.attrs = at, cfg.numAttrs = 1;
  }
  return cudaLaunchKernelEx(&cfg, kernel, ((KArgs)args)...);
}

#endif
