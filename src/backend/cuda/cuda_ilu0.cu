// src/backend/cuda/cuda_ilu0.cu: ILU(0) of a block-CSR factor on /gpu/cuda (the group's semantics in
// src/precond/ilu0_kernels.h, the host side in cuda_ilu0.c): one launch per level of the pattern's level schedule,
// a thread per block row of the level, running src/backend/ilu0_bodies.h's arithmetic in its order with each product
// and sum rounded on its own (__dmul_rn, __dadd_rn, __dsub_rn; the CPU compilers of this project do not contract),
// the diagonal blocks inverted by pds_block_invert's Gauss-Jordan steps: /cpu/ref's bits. A level's rows depend only
// on rows of earlier levels, finished by the launches before (programmatic dependent launch: a level's kernel is
// resident before the one before has ended and waits in pds_grid_dep() before it reads anything).
// Byte model of an application (8-byte reals, b x b blocks): every block of the factor read once, 8 nnzb b^2, plus
// the vectors (b read, x written, the neighbours' x gathered through the caches): the bytes of one product with A.
// Flops: 2 nnzb b^2. A thread per block row: the rows of a level are spread over the device, each row's blocks are
// read by one thread (uncoalesced for b > 1: a first version, to be measured against cuSPARSE by bench_ilu).
#include "cuda_launch.cuh"

#define IM(a, b) __dmul_rn((a), (b))
#define IA(a, b) __dadd_rn((a), (b))
#define IS(a, b) __dsub_rn((a), (b))

namespace {

struct ilu0_args {
  const pds_size *rowptr;
  const pds_int  *colidx;
  const pds_size *diag;
  pds_real       *vals;
  const pds_int  *rows; // the level's block rows: rows[0 .. count)
  long long       count;
  pds_real        shift;
  const pds_real *b;
  pds_real       *x;
  unsigned long long *bad;
};

// in place: a becomes a^-1; pds_block_invert's steps (partial pivoting, row interchanges undone as column ones)
template <int N> __device__ __forceinline__ bool gj_invert(double (&a)[N * N]) {
  int piv[N];

#pragma unroll
  for (int k = 0; k < N; k++) {
    int    r    = k;
    double amax = fabs(a[k * N + k]);

#pragma unroll
    for (int i = k + 1; i < N; i++)
      if (fabs(a[i * N + k]) > amax) amax = fabs(a[i * N + k]), r = i;
    if (!(amax > 0) || !isfinite(amax)) return false;
    piv[k] = r;
    if (r != k)
#pragma unroll
      for (int j = 0; j < N; j++) {
        const double t = a[k * N + j];

        a[k * N + j] = a[r * N + j], a[r * N + j] = t;
      }
    const double inv = 1.0 / a[k * N + k];

    a[k * N + k] = 1.0;
#pragma unroll
    for (int j = 0; j < N; j++) a[k * N + j] = IM(a[k * N + j], inv);
#pragma unroll
    for (int i = 0; i < N; i++) {
      if (i == k) continue;
      const double f = a[i * N + k];

      a[i * N + k] = 0.0;
#pragma unroll
      for (int j = 0; j < N; j++) a[i * N + j] = IS(a[i * N + j], IM(f, a[k * N + j]));
    }
  }
#pragma unroll
  for (int k = N - 1; k >= 0; k--)
    if (piv[k] != k)
#pragma unroll
      for (int i = 0; i < N; i++) {
        const double t = a[i * N + k];

        a[i * N + k] = a[i * N + piv[k]], a[i * N + piv[k]] = t;
      }
  return true;
}

// row i of the factorization: ilu0_factor_row_n
template <int N> __device__ bool factor_row(const ilu0_args &f, pds_int i) {
  constexpr int  NN = N * N;
  const pds_size lo = f.rowptr[i], hi = f.rowptr[i + 1], d = f.diag[i];
  double        *a  = f.vals;
  double         T[NN];

  if (f.shift != 0)
#pragma unroll
    for (int u = 0; u < N; u++) a[d * NN + u * N + u] = IA(a[d * NN + u * N + u], f.shift);
  for (pds_size p = lo; p < d; p++) {
    const pds_int   k  = f.colidx[p];
    const double   *Dk = a + f.diag[k] * NN;
    double         *L  = a + p * NN;
    pds_size        r  = p + 1;

#pragma unroll
    for (int u = 0; u < N; u++)
#pragma unroll
      for (int v = 0; v < N; v++) {
        double s = 0;

#pragma unroll
        for (int w = 0; w < N; w++) s = IA(s, IM(L[u * N + w], Dk[w * N + v]));
        T[u * N + v] = s;
      }
#pragma unroll
    for (int e = 0; e < NN; e++) L[e] = T[e];
    for (pds_size q = f.diag[k] + 1; q < f.rowptr[k + 1]; q++) {
      const pds_int j = f.colidx[q];

      while (r < hi && f.colidx[r] < j) r++;
      if (r == hi) break;
      if (f.colidx[r] != j) continue;
      const double *U = a + q * NN;
      double       *A = a + r * NN;

#pragma unroll
      for (int u = 0; u < N; u++)
#pragma unroll
        for (int v = 0; v < N; v++) {
          double s = 0;

#pragma unroll
          for (int w = 0; w < N; w++) s = IA(s, IM(T[u * N + w], U[w * N + v]));
          A[u * N + v] = IS(A[u * N + v], s);
        }
    }
  }
  if constexpr (N == 1) {
    const double x = a[d];

    if (!(fabs(x) > 0) || !isfinite(x)) return false;
    a[d] = 1.0 / x;
    return true;
  } else {
#pragma unroll
    for (int e = 0; e < NN; e++) T[e] = a[d * NN + e];
    if (!gj_invert<N>(T)) return false;
#pragma unroll
    for (int e = 0; e < NN; e++) a[d * NN + e] = T[e];
    return true;
  }
}

template <int N> __global__ void __launch_bounds__(128) factor_k(ilu0_args f) {
  const long long t  = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const pds_int   i  = t < f.count ? f.rows[t] : 0; // the schedule: read before the wait

  pds_grid_dep();
  if (t >= f.count) return;
  if (!factor_row<N>(f, i)) atomicMin(f.bad, (unsigned long long)i);
}

// The sweeps read a row's structure (and, scalar, its first C entries) before pds_grid_dep(): they never change
// during an application, and the factor's values were written by a setup that ended before it (it reads its
// singular-pivot flag back); after the wait only x is read. C entries cover the rows of most FV/FE matrices' triangles.
constexpr int C = 8;

// forward row i: x_i = b_i - sum_{k < i} L_ik x_k (ilu0_forward_row_n)
template <int N> __global__ void __launch_bounds__(128) forward_k(ilu0_args f) {
  constexpr int   NN = N * N;
  const long long t  = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const bool      on = t < f.count;
  const pds_int   i  = on ? f.rows[t] : 0;
  const pds_size  lo = on ? f.rowptr[i] : 0, d = on ? f.diag[i] : 0;
  pds_int         cc[C];
  double          cv[C];

  if constexpr (N == 1)
#pragma unroll
    for (int q = 0; q < C; q++) cc[q] = lo + q < d ? f.colidx[lo + q] : 0, cv[q] = lo + q < d ? f.vals[lo + q] : 0.0;
  pds_grid_dep();
  if (!on) return;
  if constexpr (N == 1) {
    double s = 0;

#pragma unroll
    for (int q = 0; q < C; q++)
      if (lo + q < d) s = IA(s, IM(cv[q], f.x[cc[q]]));
    for (pds_size p = lo + C; p < d; p++) s = IA(s, IM(f.vals[p], f.x[f.colidx[p]]));
    f.x[i] = IS(f.b[i], s);
  } else {
#pragma unroll
    for (int u = 0; u < N; u++) {
      double s = 0;

      for (pds_size p = lo; p < d; p++) {
        const double *L = f.vals + p * NN + u * N, *xk = f.x + (size_t)f.colidx[p] * N;

#pragma unroll
        for (int w = 0; w < N; w++) s = IA(s, IM(L[w], xk[w]));
      }
      f.x[(size_t)i * N + u] = IS(f.b[(size_t)i * N + u], s);
    }
  }
}

// backward row i: x_i = D_i^-1 (x_i - sum_{j > i} U_ij x_j) (ilu0_backward_row_n)
template <int N> __global__ void __launch_bounds__(128) backward_k(ilu0_args f) {
  constexpr int   NN = N * N;
  const long long t  = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const bool      on = t < f.count;
  const pds_int   i  = on ? f.rows[t] : 0;
  const pds_size  hi = on ? f.rowptr[i + 1] : 0, d = on ? f.diag[i] : 0;
  pds_int         cc[C];
  double          cv[C], dv = 0;

  if constexpr (N == 1) {
#pragma unroll
    for (int q = 0; q < C; q++)
      cc[q] = d + 1 + q < hi ? f.colidx[d + 1 + q] : 0, cv[q] = d + 1 + q < hi ? f.vals[d + 1 + q] : 0.0;
    dv = on ? f.vals[d] : 0.0;
  }
  pds_grid_dep();
  if (!on) return;
  if constexpr (N == 1) {
    double s = 0;

#pragma unroll
    for (int q = 0; q < C; q++)
      if (d + 1 + q < hi) s = IA(s, IM(cv[q], f.x[cc[q]]));
    for (pds_size p = d + 1 + C; p < hi; p++) s = IA(s, IM(f.vals[p], f.x[f.colidx[p]]));
    const double z = IS(f.x[i], s);

    f.x[i] = IA(0.0, IM(dv, z)); // ilu0_backward_row_n: s = 0 + D z
  } else {
    double z[N];

#pragma unroll
    for (int u = 0; u < N; u++) {
      double s = 0;

      for (pds_size p = d + 1; p < hi; p++) {
        const double *U = f.vals + p * NN + u * N, *xj = f.x + (size_t)f.colidx[p] * N;

#pragma unroll
        for (int w = 0; w < N; w++) s = IA(s, IM(U[w], xj[w]));
      }
      z[u] = IS(f.x[(size_t)i * N + u], s);
    }
#pragma unroll
    for (int u = 0; u < N; u++) {
      const double *D = f.vals + d * NN + u * N;
      double        s = 0;

#pragma unroll
      for (int w = 0; w < N; w++) s = IA(s, IM(D[w], z[w]));
      f.x[(size_t)i * N + u] = s;
    }
  }
}

// gather y_i = x_perm[i] or scatter y_perm[i] = x_i, by blocks of bs: a thread per entry
__global__ void permute_k(long long nb, int bs, const pds_int *__restrict__ perm, int scatter,
                          const pds_real *__restrict__ x, pds_real *__restrict__ y) {
  const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;

  pds_grid_dep();
  if (t >= nb * bs) return;
  const long long i = t / bs, u = t % bs;

  if (scatter) y[(long long)perm[i] * bs + u] = x[t];
  else y[t] = x[(long long)perm[i] * bs + u];
}

template <int N> cudaError_t launch_n(const pds_cuda_ilu0_launch &L, const ilu0_args &f) {
  const unsigned nb = (unsigned)((L.count + 127) / 128);

  if (L.count <= 0) return cudaSuccess;
  if (L.kind == 0) return pds_launch(factor_k<N>, nb, 128, 0, L.stream, f);
  if (L.kind == 1) return pds_launch(forward_k<N>, nb, 128, 0, L.stream, f);
  return pds_launch(backward_k<N>, nb, 128, 0, L.stream, f);
}

} // namespace

extern "C" {

cudaError_t pds_cuda_ilu0(const pds_cuda_ilu0_launch *L) {
  ilu0_args f;

  if (L->kind == 3 || L->kind == 4) {
    const long long n = (long long)L->nb * L->bs;

    if (n <= 0) return cudaSuccess;
    return pds_launch(permute_k, (unsigned)((n + 255) / 256), 256, 0, L->stream, (long long)L->nb, L->bs, L->perm,
                      L->kind == 4 ? 1 : 0, (const pds_real *)L->b, L->x);
  }
  f.rowptr = L->rowptr, f.colidx = L->colidx, f.diag = L->diag, f.vals = L->vals, f.rows = L->rows + L->begin;
  f.count = L->count, f.shift = L->shift, f.b = L->b, f.x = L->x, f.bad = L->bad;
  switch (L->bs) {
  case 1: return launch_n<1>(*L, f);
  case 2: return launch_n<2>(*L, f);
  case 3: return launch_n<3>(*L, f);
  case 4: return launch_n<4>(*L, f);
  case 5: return launch_n<5>(*L, f);
  case 6: return launch_n<6>(*L, f);
  case 7: return launch_n<7>(*L, f);
  case 8: return launch_n<8>(*L, f);
  default: return cudaErrorInvalidValue;
  }
}

} // extern "C"
