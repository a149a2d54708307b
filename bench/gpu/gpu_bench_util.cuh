// bench/gpu/gpu_bench_util.cuh: helpers shared by the GPU benchmarks (bench_gpu, bsr_tune, bench_fem2d_gpu): CUDA and cuSPARSE
// error checks that end the program, the median, host and device timing, a reproducible device fill, BSR relayout.
#pragma once

#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "pdesolve.h"
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

// a device copy of count host elements, placed extra elements into the allocation (a shifted start, for alignment
// tests), with a few bytes of padding (count 0 is fine); ends the program on failure
template <class T> static T *dev_copy(const T *h, size_t count, size_t extra = 0) {
  T *d;

  CK(cudaMalloc(&d, (count + extra) * sizeof(T) + 16));
  if (count) CK(cudaMemcpy(d + extra, h, count * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

// the 7-point pattern on m^3 cells (neighbours in z, y, x order, the cell itself in the middle: columns ascending)
static void stencil7_pattern(int m, std::vector<pds_size> &rp, std::vector<pds_int> &ci) {
  const long long nb = (long long)m * m * m;

  rp.assign(nb + 1, 0);
  ci.clear();
  ci.reserve(nb * 7);
  for (long long c = 0; c < nb; c++) {
    const int i = (int)(c % m), j = (int)(c / m % m), k = (int)(c / ((long long)m * m));

    if (k > 0) ci.push_back((pds_int)(c - (long long)m * m));
    if (j > 0) ci.push_back((pds_int)(c - m));
    if (i > 0) ci.push_back((pds_int)(c - 1));
    ci.push_back((pds_int)c);
    if (i < m - 1) ci.push_back((pds_int)(c + 1));
    if (j < m - 1) ci.push_back((pds_int)(c + m));
    if (k < m - 1) ci.push_back((pds_int)(c + (long long)m * m));
    rp[c + 1] = (pds_size)ci.size();
  }
}

// a csr matrix's arrays on the device, for the peers and the forced kernel variants: int32 row offsets for
// cuSPARSE (it takes no 64-bit offsets with 32-bit columns), pdesolve's 64-bit row pointers, columns, values
struct CsrDev {
  int       n, ncols, maxrow;
  long long nnz;
  int      *rp32, *ci;
  pds_size *rp64;
  double   *v;
};
static CsrDev csr_upload(pds_mat A) {
  const pds_size *rp;
  const pds_int  *ci;
  const pds_real *v;
  pds_int         nr, nc;
  pds_size        nnz;
  CsrDev          d;
  int             e = pds_mat_csr_get_arrays(A, &rp, &ci, &v);

  if (!e) e = pds_mat_get_size(A, &nr, &nc);
  if (!e) e = pds_mat_get_nnz(A, &nnz);
  if (e) {
    fprintf(stderr, "csr_upload: %s\n", pds_error_name(e));
    exit(2);
  }
  std::vector<int> rp32(nr + 1);
  d.maxrow = 0;
  for (int i = 0; i <= nr; i++) rp32[i] = (int)rp[i];
  for (int i = 0; i < nr; i++) d.maxrow = std::max(d.maxrow, (int)(rp[i + 1] - rp[i]));
  d.n = nr, d.ncols = nc, d.nnz = nnz;
  d.rp32 = dev_copy(rp32.data(), nr + 1);
  d.rp64 = dev_copy(rp, nr + 1);
  d.ci   = dev_copy(ci, nnz);
  d.v    = dev_copy(v, nnz);
  return d;
}
static void csr_free(CsrDev &d) {
  CK(cudaFree(d.rp32));
  CK(cudaFree(d.rp64));
  CK(cudaFree(d.ci));
  CK(cudaFree(d.v));
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

// median wall time of f over reps calls after warm calls; sync: a device synchronize after each call (API calls
// whose work runs on the device)
template <class F> static double host_median(F f, int warm, int reps, bool sync) {
  std::vector<double> t;

  for (int i = 0; i < warm; i++) f();
  if (sync) CK(cudaDeviceSynchronize());
  for (int i = 0; i < reps; i++) {
    double t0 = pds_wtime();

    f();
    if (sync) CK(cudaDeviceSynchronize());
    t.push_back(pds_wtime() - t0);
  }
  return median(t);
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
