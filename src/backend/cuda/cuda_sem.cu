// src/backend/cuda/cuda_sem.cu: the spectral-element kernels on /gpu/cuda (src/disc/sem_kernels.h; the slots are
// cuda_sem.c's). Compiled with -fmad=false and written in sem_bodies.h's order (every product and sum rounded on its
// own, in ref's order), so the values are /cpu/ref's bits.
//
// Kernels and their byte and flop models (8-byte reals, per local point, n points per direction):
//   sem_local_t<N>  A^e u for one element per thread block (N = 2..12), threads (i, j) of an N x N layer each walking
//                   k, nekRS's register-column layout (below): the element's u in shared memory and its column in
//                   registers, ur, us, ut, G times them, D^T of the three, written to the local work array;
//   sem_local_k     the same for any n (used for 13 and 14 points: the template's static shared memory would pass
//                   48 KiB), D, u, a, b and c all in shared memory.
//                   Memory: x through gid (4 + 8 nglob / nloc: a shared point is read once per element, from L2
//                   after the first), mask (nglob / nloc), G (48; affine elements: 48 / n^3, K_e), work written (8):
//                   about 69 bytes, 21 affine; 12 n + 15 flops (+ 7 affine).
//   sem_assemble_k  w_g = x_g (masked) or the sum of g's local products in gsidx order: 4 (gsptr) + 12 per local
//                   point (gsidx, work) + 8 (w) + 1 (mask) bytes per global point: 12 + 13 nglob / nloc.
//   sem_diag_*_k    paper 003's four diagonal kernels (Section 3.1), the same per-point arithmetic (sem_diag_point):
//                   extended (a thread per local point, thread blocks crossing elements, any n), natural (a thread
//                   block per element, a thread per point), shared (natural with G11, G22, G33 staged in shared
//                   memory), wide (a thread per x-line of n points). Per point: Eq. 9 reads G's three diagonal
//                   entries along the point's three lines (24 n bytes, from L1/L2; 24 from DRAM) + 3 cross entries
//                   (24) and writes 8: about 56 bytes from DRAM and 9 n + 11 flops.
#include "../../disc/sem_kernels.h"
#include "cuda_launch.cuh"

namespace {

__global__ void sem_local_k(int n, long long e0, long long E, const double *__restrict__ D, const double *__restrict__ G,
                            const pds_int *__restrict__ gid, const unsigned char *__restrict__ mask,
                            const double *__restrict__ x, pds_int nglob, const double *__restrict__ xg,
                            double *__restrict__ work) {
  extern __shared__ double sm[];
  pds_grid_dep();
  const int       n2 = n * n, n3 = n2 * n, i = threadIdx.x, j = threadIdx.y, t = j * n + i;
  const long long e = e0 + blockIdx.x;
  double         *sD = sm, *u = sm + n2, *a = u + n3, *b = a + n3, *c = b + n3;
  const double   *Ge = G + 6ll * n3 * e;

  if (e >= E) return;
  sD[t] = D[t];
  for (int q = t; q < n3; q += n2) {
    const pds_int g = gid[e * n3 + q];

    u[q] = mask[g] ? 0.0 : g < nglob ? x[g] : xg[g - nglob]; // xg: a rank's ghosts (sem_kernels.h)
  }
  __syncthreads();
  for (int k = 0; k < n; k++) {
    const int p = (k * n + j) * n + i;
    double    ur = 0, us = 0, ut = 0;

    for (int m = 0; m < n; m++) ur += sD[i * n + m] * u[k * n2 + j * n + m];
    for (int m = 0; m < n; m++) us += sD[j * n + m] * u[k * n2 + m * n + i];
    for (int m = 0; m < n; m++) ut += sD[k * n + m] * u[m * n2 + j * n + i];
    a[p] = Ge[p] * ur + Ge[n3 + p] * us + Ge[2 * n3 + p] * ut;
    b[p] = Ge[n3 + p] * ur + Ge[3 * n3 + p] * us + Ge[4 * n3 + p] * ut;
    c[p] = Ge[2 * n3 + p] * ur + Ge[4 * n3 + p] * us + Ge[5 * n3 + p] * ut;
  }
  __syncthreads();
  for (int k = 0; k < n; k++) {
    const int p = (k * n + j) * n + i;
    double    sa = 0, sb = 0, sc = 0;

    for (int m = 0; m < n; m++) sa += sD[m * n + i] * a[k * n2 + j * n + m];
    for (int m = 0; m < n; m++) sb += sD[m * n + j] * b[k * n2 + m * n + i];
    for (int m = 0; m < n; m++) sc += sD[m * n + k] * c[m * n2 + j * n + i];
    work[e * n3 + p] = sa + sb + sc;
  }
}

// The same product for N = 2..12 points a direction (a template: loops unrolled), in nekRS's register-column layout:
// thread (i, j) keeps its column of u (all k) and of c in registers, so that the t-derivatives and their transposes
// read registers and D's row k (a broadcast from shared memory), and only the r and s derivatives read the element's
// u, a and b from shared memory (4 N shared loads a point instead of 12 N). D and D^T sit in shared memory with rows
// padded to N + 1 (no bank conflicts when the threads of a warp read different rows). The sums run in sem_bodies.h's
// order (m ascending, every product and sum rounded on its own): the same bits. AFF: G from the element's 6 values
// K_e and the weights, G = ((w_i w_j) w_k) K_e (sem_kernels.h: the space stores exactly these values in G).
// Registers: unrolled over k, the compiler keeps a column's G loads in flight and took 216-254 registers (N = 8..12),
// 1-4 thread blocks an SM; capped at 128 by __launch_bounds__ (sem_minb), without spills. Measured on an H200 (N = 8,
// 16^3 elements, the local product and the sum): 79.4 us uncapped, 71.5 capped; N = 12: 376.6 us and 273.5.
// (Tried: nekRS's plane-at-a-time form, one k-plane of u, a and b in shared memory with two barriers a plane, c and
// the partial sums in registers: 4 N^2 doubles of shared memory instead of 3 N^3 + N^2. On an H200, 16^3 and 32^3
// elements: faster at N = 5, 7, 11, slower at N = 8 (26.3 / 32.1 against 26.8 / 33.7 GDOF/s), 10 (16.2 / 17.2
// against 22.5 / 25.3) and 12: not kept. Fused multiply-adds: 2-8 % faster, not kept (ref's bits). Writing the
// element-interior points straight to w and summing only the shared ones: slower (scattered writes).)
constexpr int sem_minb(int N) { return 65536 / (128 * 32 * ((N * N + 31) / 32)); } // blocks an SM at 128 registers

template <int N, bool AFF>
__global__ void __launch_bounds__(N *N, sem_minb(N))
    sem_local_t(long long e0, long long E, const double *__restrict__ D, const double *__restrict__ W,
                const double *__restrict__ G, const double *__restrict__ K, const pds_int *__restrict__ gid,
                const unsigned char *__restrict__ mask, const double *__restrict__ x, pds_int nglob,
                const double *__restrict__ xg, double *__restrict__ work) {
  constexpr int   N2 = N * N, N3 = N2 * N, NP = N + 1;
  __shared__ double s_u[N3], s_a[N3], s_b[N3], s_D[N * NP], s_DT[N * NP];
  pds_grid_dep();
  const int       i = threadIdx.x, j = threadIdx.y;
  const long long e = e0 + blockIdx.x;
  const double   *Ge = G + 6ll * N3 * e;
  double          r_u[N], r_c[N], k6[6] = {0, 0, 0, 0, 0, 0}, wij = 0;

  if (e >= E) return;
  s_D[j * NP + i] = D[j * N + i], s_DT[j * NP + i] = D[i * N + j];
  if (AFF) {
#pragma unroll
    for (int c = 0; c < 6; c++) k6[c] = K[6 * e + c];
    wij = W[i] * W[j];
  }
#pragma unroll
  for (int k = 0; k < N; k++) {
    const int     p = (k * N + j) * N + i;
    const pds_int g = gid[e * N3 + p];
    const double  v = mask[g] ? 0.0 : g < nglob ? x[g] : xg[g - nglob];

    s_u[p] = v, r_u[k] = v;
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < N; k++) {
    const int p = (k * N + j) * N + i;
    double    ur = 0, us = 0, ut = 0, g[6];

#pragma unroll
    for (int m = 0; m < N; m++) ur += s_D[i * NP + m] * s_u[k * N2 + j * N + m];
#pragma unroll
    for (int m = 0; m < N; m++) us += s_D[j * NP + m] * s_u[k * N2 + m * N + i];
#pragma unroll
    for (int m = 0; m < N; m++) ut += s_D[k * NP + m] * r_u[m];
    if (AFF) {
      const double wq = wij * W[k];

#pragma unroll
      for (int c = 0; c < 6; c++) g[c] = wq * k6[c];
    } else {
#pragma unroll
      for (int c = 0; c < 6; c++) g[c] = Ge[c * N3 + p];
    }
    s_a[p] = g[0] * ur + g[1] * us + g[2] * ut;
    s_b[p] = g[1] * ur + g[3] * us + g[4] * ut;
    r_c[k] = g[2] * ur + g[4] * us + g[5] * ut;
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < N; k++) {
    double sa = 0, sb = 0, sc = 0;

#pragma unroll
    for (int m = 0; m < N; m++) sa += s_DT[i * NP + m] * s_a[k * N2 + j * N + m];
#pragma unroll
    for (int m = 0; m < N; m++) sb += s_DT[j * NP + m] * s_b[k * N2 + m * N + i];
#pragma unroll
    for (int m = 0; m < N; m++) sc += s_DT[k * NP + m] * r_c[m];
    work[e * N3 + (k * N + j) * N + i] = sa + sb + sc;
  }
}

// w_g = x_g at a masked g (x NULL: 1), else the sum of g's local values in gsidx order from 0. A point of a conforming
// hexahedral mesh has 1, 2, 4 or 8 local points: up to 8, the thread issues all its index loads, then all its value
// loads, before it sums (two memory latencies instead of two a term; 8-10 % faster on an H200 than the plain loop).
__global__ void __launch_bounds__(128)
    sem_assemble_k(pds_int nglob, const unsigned char *__restrict__ mask, const pds_int *__restrict__ gsptr,
                   const pds_int *__restrict__ gsidx, const double *__restrict__ loc, const double *__restrict__ x,
                   double *__restrict__ out) {
  pds_grid_dep();
  const pds_int g = (pds_int)(blockIdx.x * blockDim.x + threadIdx.x);

  if (g >= nglob) return;
  if (mask[g]) {
    out[g] = x ? x[g] : 1.0;
    return;
  }
  const pds_int b = gsptr[g], c = gsptr[g + 1] - b;
  double        s = 0;

  if (c <= 8) {
    pds_int q[8];
    double  v[8];

#pragma unroll
    for (int t = 0; t < 8; t++) q[t] = t < c ? gsidx[b + t] : 0;
#pragma unroll
    for (int t = 0; t < 8; t++) v[t] = t < c ? loc[q[t]] : 0.0;
#pragma unroll
    for (int t = 0; t < 8; t++)
      if (t < c) s += v[t];
  } else
    for (pds_int t = 0; t < c; t++) s += loc[gsidx[b + t]];
  out[g] = s;
}

// Eq. 9 and the cross terms at point (i, j, k) of an element whose G starts at Ge (G11 at Ge, G22 at g22, G33 at g33:
// global memory, or the shared copies of the shared kernel)
__device__ __forceinline__ double sem_diag_point(int n, const double *__restrict__ D, const double *Ge,
                                                 const double *g11, const double *g22, const double *g33, int i, int j,
                                                 int k) {
  const int n2 = n * n, n3 = n2 * n, p = (k * n + j) * n + i;
  double    s1 = 0, s2 = 0, s3 = 0;

  for (int m = 0; m < n; m++) s1 += D[m * n + i] * D[m * n + i] * g11[k * n2 + j * n + m];
  for (int m = 0; m < n; m++) s2 += D[m * n + j] * D[m * n + j] * g22[k * n2 + m * n + i];
  for (int m = 0; m < n; m++) s3 += D[m * n + k] * D[m * n + k] * g33[m * n2 + j * n + i];
  return s1 + s2 + s3 + 2 * D[i * n + i] * D[j * n + j] * Ge[n3 + p] + 2 * D[i * n + i] * D[k * n + k] * Ge[2 * n3 + p] +
         2 * D[j * n + j] * D[k * n + k] * Ge[4 * n3 + p];
}

// extended: a thread per local point, thread blocks of ST consecutive points (crossing elements)
__global__ void sem_diag_extended_k(int n, long long nloc, const double *__restrict__ D, const double *__restrict__ G,
                                    double *__restrict__ work) {
  pds_grid_dep();
  const long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;

  if (idx >= nloc) return;
  const int       n2 = n * n, n3 = n2 * n;
  const long long e = idx / n3;
  const int       p = (int)(idx - e * n3), i = p % n, j = p / n % n, k = p / n2;
  const double   *Ge = G + 6ll * n3 * e;

  work[idx] = sem_diag_point(n, D, Ge, Ge, Ge + 3 * n3, Ge + 5 * n3, i, j, k);
}

// natural (SHARED = 0) and shared (SHARED = 1): a thread block per element, thread (i, j, k) its point (n <= 10)
template <int SHARED>
__global__ void sem_diag_element_k(int n, const double *__restrict__ D, const double *__restrict__ G,
                                   double *__restrict__ work) {
  extern __shared__ double sg[];
  pds_grid_dep();
  const int       n2 = n * n, n3 = n2 * n, i = threadIdx.x, j = threadIdx.y, k = threadIdx.z, p = (k * n + j) * n + i;
  const long long e = blockIdx.x;
  const double   *Ge = G + 6ll * n3 * e;

  if (SHARED) {
    sg[p] = Ge[p], sg[n3 + p] = Ge[3 * n3 + p], sg[2 * n3 + p] = Ge[5 * n3 + p];
    __syncthreads();
    work[e * n3 + p] = sem_diag_point(n, D, Ge, sg, sg + n3, sg + 2 * n3, i, j, k);
  } else work[e * n3 + p] = sem_diag_point(n, D, Ge, Ge, Ge + 3 * n3, Ge + 5 * n3, i, j, k);
}

// wide: a thread per line (j, k) of an element, its n points along x, the sums of each point in the order above
__global__ void sem_diag_wide_k(int n, long long E, const double *__restrict__ D, const double *__restrict__ G,
                                double *__restrict__ work) {
  pds_grid_dep();
  const long long line = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const int       n2 = n * n, n3 = n2 * n;

  if (line >= E * n2) return;
  const long long e = line / n2;
  const int       j = (int)(line - e * n2) % n, k = (int)(line - e * n2) / n;
  const double   *Ge = G + 6ll * n3 * e;

  for (int i = 0; i < n; i++) work[e * n3 + (k * n + j) * n + i] = sem_diag_point(n, D, Ge, Ge, Ge + 3 * n3,
                                                                                  Ge + 5 * n3, i, j, k);
}

constexpr int ST = 256, AT = 128; // threads a block: diagonal kernels, assembly

} // namespace

extern "C" {

// elements [e0, e1): their local products into work (e0 < e1)
cudaError_t pds_cuda_sem_elements(cudaStream_t s, const struct pds_sem_dev *S, pds_int e0, pds_int e1, const pds_real *x,
                                  pds_real *work) {
  const int       n = S->n;
  const size_t    smem = ((size_t)n * n + 4 * (size_t)n * n * n) * sizeof(double);
  const long long E0 = e0, E1 = e1;
  cudaError_t     e;

  if (e1 <= e0 || e0 < 0 || e1 > S->E || n < 2 || n > 14) return cudaErrorInvalidValue;
  if (n <= 12) { // the register-column kernel
    const dim3 g((unsigned)(e1 - e0)), b(n, n);

    switch (n) {
#define SEM_T(NN)                                                                                                  \
  case NN:                                                                                                         \
    return S->K ? pds_launch(sem_local_t<NN, true>, g, b, 0, s, E0, E1, S->D, S->w, S->G, S->K, S->gid, S->mask, x, \
                             S->nglob, S->xg, work)                                                                \
                : pds_launch(sem_local_t<NN, false>, g, b, 0, s, E0, E1, S->D, S->w, S->G, S->K, S->gid, S->mask, \
                             x, S->nglob, S->xg, work);
      SEM_T(2) SEM_T(3) SEM_T(4) SEM_T(5) SEM_T(6) SEM_T(7) SEM_T(8) SEM_T(9) SEM_T(10) SEM_T(11) SEM_T(12)
#undef SEM_T
    default: return cudaErrorInvalidValue;
    }
  }
  if (smem > 48 * 1024) { // n >= 11: opt in to more shared memory, once per device (the largest n's amount)
    static int set[64];
    int        dev = 0;

    e = cudaGetDevice(&dev);
    if (e == cudaSuccess && dev >= 0 && dev < 64 && !set[dev]) {
      e = cudaFuncSetAttribute(sem_local_k, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               (int)((14 * 14 + 4 * 14 * 14 * 14) * sizeof(double)));
      if (e == cudaSuccess) set[dev] = 1;
    }
    if (e != cudaSuccess) return e;
  }
  return pds_launch(sem_local_k, dim3((unsigned)(e1 - e0)), dim3(n, n), smem, s, n, E0, E1, S->D, S->G, S->gid,
                    S->mask, x, S->nglob, S->xg, work);
}

// w_g over the global points: x_g at a masked g (x NULL: 1), else the sum of work over g's local points
cudaError_t pds_cuda_sem_assemble(cudaStream_t s, const struct pds_sem_dev *S, const pds_real *x, pds_real *w,
                                  const pds_real *work) {
  if (S->nglob < 1) return cudaSuccess;
  return pds_launch(sem_assemble_k, dim3((unsigned)((S->nglob + AT - 1) / AT)), dim3(AT), 0, s, S->nglob, S->mask,
                    S->gsptr, S->gsidx, work, x, w);
}

cudaError_t pds_cuda_sem_apply(cudaStream_t s, const struct pds_sem_dev *S, const pds_real *x, pds_real *w,
                               pds_real *work) {
  const cudaError_t e = pds_cuda_sem_elements(s, S, 0, S->E, x, work);

  return e != cudaSuccess ? e : pds_cuda_sem_assemble(s, S, x, w, work);
}

cudaError_t pds_cuda_sem_diag(cudaStream_t s, const struct pds_sem_dev *S, int variant, pds_real *d, pds_real *work) {
  const int    n  = S->n;
  const size_t n3 = (size_t)n * n * n;
  cudaError_t  e;

  if (S->E < 1 || n < 2 || n > 14) return cudaErrorInvalidValue;
  if (variant == PDS_SEM_DIAG_NATURAL || variant == PDS_SEM_DIAG_SHARED) {
    if (n > 10) return cudaErrorInvalidValue;
    e = variant == PDS_SEM_DIAG_SHARED
            ? pds_launch(sem_diag_element_k<1>, dim3((unsigned)S->E), dim3(n, n, n), 3 * n3 * sizeof(double), s, n,
                         S->D, S->G, work)
            : pds_launch(sem_diag_element_k<0>, dim3((unsigned)S->E), dim3(n, n, n), 0, s, n, S->D, S->G, work);
  } else if (variant == PDS_SEM_DIAG_WIDE) {
    const long long lines = (long long)S->E * n * n;

    e = pds_launch(sem_diag_wide_k, dim3((unsigned)((lines + ST - 1) / ST)), dim3(ST), 0, s, n, (long long)S->E,
                   S->D, S->G, work);
  } else
    e = pds_launch(sem_diag_extended_k, dim3((unsigned)((S->nloc + ST - 1) / ST)), dim3(ST), 0, s, n,
                   (long long)S->nloc, S->D, S->G, work);
  if (e != cudaSuccess) return e;
  return pds_cuda_sem_assemble(s, S, nullptr, d, work);
}

} // extern "C"
