// bench/gpu/gpu_bench_util.cuh: helpers shared by the GPU benchmarks (bench_gpu, bsr_tune): CUDA and cuSPARSE
// error checks that end the program, the median, a reproducible device fill, and BSR block relayout.
#pragma once

#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "backend/cuda/cuda_common.h"

#define CK(call)                                                                                        \
  do {                                                                                                  \
    cudaError_t e_ = (call);                                                                            \
    if (e_ != cudaSuccess) {                                                                            \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));            \
      exit(2);                                                                                          \
    }                                                                                                   \
  } while (0)
#define CKS(call)                                                                                       \
  do {                                                                                                  \
    cusparseStatus_t e_ = (call);                                                                       \
    if (e_ != CUSPARSE_STATUS_SUCCESS) {                                                                \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cusparseGetErrorString(e_));        \
      exit(2);                                                                                          \
    }                                                                                                   \
  } while (0)

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

__global__ void fill_k(long long n, double *a, unsigned long long seed) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;

  if (i < n) {
    unsigned long long z = (unsigned long long)i * 0x9e3779b97f4a7c15ull + seed;

    z    = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z    = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    a[i] = (double)((z ^ (z >> 31)) >> 11) * 0x1.0p-53 * 2.0 - 1.0;
  }
}
static void dev_fill(double *a, long long n, unsigned long long seed) {
  fill_k<<<(unsigned)((n + 255) / 256), 256>>>(n, a, seed);
  CK(cudaGetLastError());
}
// row-major blocks -> column-major, or element-interleaved (entry e of block k at e * nnzb + k)
__global__ void relayout_k(long long nnzb, int bs, int layout, const double *in, double *out) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  int       bb = bs * bs;

  if (i >= nnzb * bb) return;
  long long k = i / bb;
  int       e = (int)(i - k * bb), r = e / bs, c = e - r * bs;

  if (layout == PDS_CUDA_BSR_COL) out[k * bb + c * bs + r] = in[i];
  else out[(long long)e * nnzb + k] = in[i];
}

// median device time of f over reps runs after warm runs, with events around each run (f's launches go to the
// legacy default stream or to a blocking stream that orders with it)
template <class F> static double gpu_event_median(F f, int warm, int reps) {
  cudaEvent_t         a, b;
  std::vector<double> t;

  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int i = 0; i < warm; i++) f();
  CK(cudaDeviceSynchronize());
  for (int i = 0; i < reps; i++) {
    float ms;

    CK(cudaEventRecord(a, 0));
    f();
    CK(cudaEventRecord(b, 0));
    CK(cudaEventSynchronize(b));
    CK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(1e-3 * ms);
  }
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  return median(t);
}
