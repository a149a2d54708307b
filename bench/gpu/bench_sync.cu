// bench/gpu/bench_sync.cu: what one dependent step costs on this GPU, for each way its SMs can wait for each other.
// A wavefront method (bilu0's planes, a triangular solve's levels) and a Krylov iteration of a small system are
// chains of such steps: this benchmark gives the floor under them. Each case runs a chain of S steps in which step s
// reads what step s - 1 wrote somewhere else on the chip (so no step can start early) and reports the median time
// per step over the repetitions:
//   kernel     one tiny kernel per step (one block per SM), the launches captured in a CUDA graph, with programmatic
//              dependent launch (what bilu0's lanes variant does per plane) and without;
//   grid       one cooperative kernel (one block per SM), a grid barrier (cooperative groups) per step;
//   cluster C  one cluster of C blocks, a cluster barrier (barrier.cluster, release / acquire) per step, each block
//              reading its neighbour's value through distributed shared memory (C = 2, 4, 8, 16);
//   block      one block of 384 threads, __syncthreads per step, each warp reading another warp's shared value.
// Validation first: every chain's final value is the one its steps must produce (a broken barrier or a step that
// ran early gives another), else FAIL and exit 1. The device's copy bandwidth (cudaMemcpy device to device, 256 MB)
// is measured in the same run. Output: a table on stdout, JSON lines with -json FILE.
//   bench_sync [-steps 2000] [-reps 7] [-json FILE]
#include <cooperative_groups.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "gpu_bench_util.cuh"

namespace cg = cooperative_groups;

namespace {

// ---- kernels: every step adds 1 to a value another block (or warp) wrote in the step before ------------------------
__global__ void kstep(unsigned *v, int s) { // block b: v[b] = v[b - 1 mod nb] of the last step + 1 (v holds 2 copies)
  const int nb = gridDim.x, b = blockIdx.x;
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
  if (threadIdx.x == 0) v[(s & 1) * nb + b] = v[((s + 1) & 1) * nb + (b + nb - 1) % nb] + 1;
}

__global__ void kgrid(unsigned *v, int steps) {
  cg::grid_group g  = cg::this_grid();
  const int      nb = gridDim.x, b = blockIdx.x;

  for (int s = 0; s < steps; s++) {
    if (threadIdx.x == 0) v[(s & 1) * nb + b] = __ldcg(&v[((s + 1) & 1) * nb + (b + nb - 1) % nb]) + 1;
    g.sync();
  }
}

__global__ void kcluster(unsigned *out, int steps) {
  __shared__ unsigned      val[2];
  cg::cluster_group        cl = cg::this_cluster();
  const int                C = (int)cl.num_blocks(), c = (int)cl.block_rank();
  const unsigned *const    prev = cl.map_shared_rank(val, (c + C - 1) % C);

  if (threadIdx.x == 0) val[0] = val[1] = 0;
  cl.sync();
  for (int s = 0; s < steps; s++) {
    if (threadIdx.x == 0) val[s & 1] = prev[(s + 1) & 1] + 1; // the neighbour block's value of the step before
    cl.sync();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = val[(steps - 1) & 1];
}

__global__ void kblock(unsigned *out, int steps) {
  __shared__ unsigned val[2][32];
  const int           w = threadIdx.x / 32, nw = blockDim.x / 32;

  if (threadIdx.x < 64) val[threadIdx.x / 32][threadIdx.x % 32] = 0;
  __syncthreads();
  for (int s = 0; s < steps; s++) {
    if (threadIdx.x % 32 == 0) val[s & 1][w] = val[(s + 1) & 1][(w + nw - 1) % nw] + 1;
    __syncthreads();
  }
  if (threadIdx.x % 32 == 0) out[w] = val[(steps - 1) & 1][w];
}

struct result {
  std::string name;
  double      us_per_step;
};

int g_steps = 2000, g_reps = 7;

void check(const char *what, unsigned got, unsigned want) {
  if (got != want) {
    fprintf(stderr, "FAIL: %s: the chain's final value is %u, its steps give %u\n", what, got, want);
    exit(1);
  }
}

} // namespace

int main(int argc, char **argv) {
  const char *json = NULL;

  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-steps") && i + 1 < argc) g_steps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "-reps") && i + 1 < argc) g_reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "-json") && i + 1 < argc) json = argv[++i];
    else {
      fprintf(stderr, "usage: bench_sync [-steps 2000] [-reps 7] [-json FILE]\n");
      return 2;
    }
  }
  if (g_steps < 2 || g_reps < 1) {
    fprintf(stderr, "bench_sync: -steps must be >= 2 and -reps >= 1\n");
    return 2;
  }
  cudaDeviceProp pr;
  int            dev = 0;

  CK(cudaGetDevice(&dev));
  CK(cudaGetDeviceProperties(&pr, dev));
  const int            nsm = pr.multiProcessorCount;
  std::vector<result>  res;
  unsigned            *v, *out;
  const size_t         copy_bytes = (size_t)256 << 20;
  void                *ca, *cb;

  CK(cudaMalloc(&v, 2 * sizeof(unsigned) * 1024));
  CK(cudaMalloc(&out, sizeof(unsigned) * 1024));
  // the copy bandwidth of this device, in this run
  CK(cudaMalloc(&ca, copy_bytes));
  CK(cudaMalloc(&cb, copy_bytes));
  CK(cudaMemset(ca, 1, copy_bytes));
  const double copy_s =
      gpu_event_median([&] { CK(cudaMemcpyAsync(cb, ca, copy_bytes, cudaMemcpyDeviceToDevice)); }, 1, g_reps);
  const double copy_gbs = 2.0 * copy_bytes / copy_s * 1e-9;

  CK(cudaFree(ca));
  CK(cudaFree(cb));

  // kernel boundaries in a graph, with and without programmatic dependent launch
  for (int pdl = 1; pdl >= 0; pdl--) {
    cudaStream_t    st;
    cudaGraph_t     gr;
    cudaGraphExec_t ex;
    unsigned        h[2];

    CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    CK(cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal));
    for (int s = 0; s < g_steps; s++) {
      cudaLaunchConfig_t  cfg = {};
      cudaLaunchAttribute at[1];

      cfg.gridDim = dim3(nsm), cfg.blockDim = dim3(128), cfg.stream = st;
      at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization, at[0].val.programmaticStreamSerializationAllowed = 1;
      cfg.attrs = at, cfg.numAttrs = pdl;
      CK(cudaLaunchKernelEx(&cfg, kstep, v, s));
    }
    CK(cudaStreamEndCapture(st, &gr));
    CK(cudaGraphInstantiate(&ex, gr, 0));
    CK(cudaMemset(v, 0, 2 * sizeof(unsigned) * nsm));
    CK(cudaGraphLaunch(ex, st));
    CK(cudaStreamSynchronize(st));
    CK(cudaMemcpy(h, v + ((g_steps - 1) & 1) * nsm, sizeof(unsigned), cudaMemcpyDeviceToHost));
    check("kernel chain", h[0], (unsigned)g_steps);
    // on the default stream: the events bracket it
    const double t = gpu_event_median([&] { CK(cudaGraphLaunch(ex, 0)); }, 1, g_reps);

    res.push_back({pdl ? "kernel boundary (graph, PDL)" : "kernel boundary (graph)", t / g_steps * 1e6});
    CK(cudaGraphExecDestroy(ex));
    CK(cudaGraphDestroy(gr));
    CK(cudaStreamDestroy(st));
  }
  // a grid barrier of a cooperative kernel, one block per SM
  {
    int  steps = g_steps;
    void *args[] = {&v, &steps};
    unsigned h;

    CK(cudaMemset(v, 0, 2 * sizeof(unsigned) * nsm));
    CK(cudaLaunchCooperativeKernel((void *)kgrid, dim3(nsm), dim3(128), args, 0, 0));
    CK(cudaMemcpy(&h, v + ((g_steps - 1) & 1) * nsm, sizeof h, cudaMemcpyDeviceToHost));
    check("grid barrier chain", h, (unsigned)g_steps);
    const double t = gpu_event_median(
        [&] { CK(cudaLaunchCooperativeKernel((void *)kgrid, dim3(nsm), dim3(128), args, 0, 0)); }, 1, g_reps);

    res.push_back({"grid barrier (" + std::to_string(nsm) + " blocks)", t / g_steps * 1e6});
  }
  // a cluster barrier with a distributed-shared-memory read per step
  CK(cudaFuncSetAttribute(kcluster, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  for (int C : {2, 4, 8, 16}) {
    cudaLaunchConfig_t  cfg = {};
    cudaLaunchAttribute at[1];
    int                 fit = 0;
    unsigned            h;

    cfg.gridDim = dim3(C), cfg.blockDim = dim3(128);
    at[0].id = cudaLaunchAttributeClusterDimension, at[0].val.clusterDim.x = (unsigned)C;
    at[0].val.clusterDim.y = at[0].val.clusterDim.z = 1;
    cfg.attrs = at, cfg.numAttrs = 1;
    if (cudaOccupancyMaxActiveClusters(&fit, kcluster, &cfg) != cudaSuccess || fit < 1) {
      (void)cudaGetLastError();
      printf("cluster of %d blocks: not supported on this device\n", C);
      continue;
    }
    CK(cudaLaunchKernelEx(&cfg, kcluster, out, g_steps));
    CK(cudaMemcpy(&h, out, sizeof h, cudaMemcpyDeviceToHost));
    check("cluster barrier chain", h, (unsigned)g_steps);
    const double t = gpu_event_median([&] { CK(cudaLaunchKernelEx(&cfg, kcluster, out, g_steps)); }, 1, g_reps);

    res.push_back({"cluster barrier + DSMEM read (C = " + std::to_string(C) + ")", t / g_steps * 1e6});
  }
  // a block barrier
  {
    unsigned h;

    kblock<<<1, 384>>>(out, g_steps);
    CK(cudaGetLastError());
    CK(cudaMemcpy(&h, out, sizeof h, cudaMemcpyDeviceToHost));
    check("block barrier chain", h, (unsigned)g_steps);
    const double t = gpu_event_median([&] { kblock<<<1, 384>>>(out, g_steps); }, 1, g_reps);

    res.push_back({"block barrier (__syncthreads, 384 threads)", t / g_steps * 1e6});
  }
  printf("### bench_sync: one dependent step on %s (%d SMs; copy bandwidth %.0f GB/s), median of %d runs of %d steps\n\n",
         pr.name, nsm, copy_gbs, g_reps, g_steps);
  printf("| step | us per step |\n|---|---|\n");
  for (const result &r : res) printf("| %s | %.3f |\n", r.name.c_str(), r.us_per_step);
  if (json) {
    FILE *f = fopen(json, "a");

    if (!f) {
      fprintf(stderr, "bench_sync: cannot open %s\n", json);
      return 2;
    }
    fprintf(f, "{\"bench\":\"sync\",\"gpu\":\"%s\",\"case\":\"copy\",\"gbs\":%.2f}\n", pr.name, copy_gbs);
    for (const result &r : res)
      fprintf(f, "{\"bench\":\"sync\",\"gpu\":\"%s\",\"case\":\"%s\",\"steps\":%d,\"reps\":%d,\"us_per_step\":%.4f}\n",
              pr.name, r.name.c_str(), g_steps, g_reps, r.us_per_step);
    fclose(f);
  }
  CK(cudaFree(v));
  CK(cudaFree(out));
  return 0;
}
