// src/backend/cuda/cuda_transpose.cu: the structure of A^T for y = alpha A^T x + beta y on /gpu/cuda, built once
// per matrix on the device. A stable radix sort (CUB) of the column indices, carrying each entry's position k,
// puts the entries column by column with rows ascending inside a column: the product then gathers each y_j in the
// row order /cpu/ref scatters it in, with no atomics, and gives the same bits on every run. Only the structure is
// kept (row pointers, row indices, the permutation k); the values are read through the permutation at each
// product, so new values in the same arrays are picked up. Setup cost: one sort of nnz 32-bit pairs.
#include <cub/device/device_radix_sort.cuh>

#include "cuda_common.h"

__global__ void iota_k(int n, int *a) {
  const int i = (int)(blockIdx.x * (pds_size)blockDim.x + threadIdx.x);

  if (i < n) a[i] = i;
}

// trowidx[p] = the row of entry perm[p] (the last row r with rowptr[r] <= perm[p])
__global__ void rowof_k(int nnz, pds_int nrows, const pds_size *__restrict__ rp, const int *__restrict__ perm,
                        pds_int *__restrict__ trowidx) {
  const int p = (int)(blockIdx.x * (pds_size)blockDim.x + threadIdx.x);

  if (p >= nnz) return;
  const pds_size k  = perm[p];
  pds_int        lo = 0, hi = nrows - 1;

  while (lo < hi) {
    pds_int mid = lo + (hi - lo + 1) / 2;

    if (rp[mid] <= k) lo = mid;
    else hi = mid - 1;
  }
  trowidx[p] = lo;
}

// trowptr[j] = the first position p with sorted column key >= j, for j = 0..ncols
__global__ void colptr_k(pds_int ncols, int nnz, const int *__restrict__ keys, pds_size *__restrict__ trowptr) {
  const pds_int j = (pds_int)(blockIdx.x * (pds_size)blockDim.x + threadIdx.x);

  if (j > ncols) return;
  int lo = 0, hi = nnz;

  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;

    if (keys[mid] < j) lo = mid + 1;
    else hi = mid;
  }
  trowptr[j] = lo;
}

extern "C" cudaError_t pds_cuda_csr_transpose(cudaStream_t s, pds_int nrows, pds_int ncols, pds_size nnz,
                                              const pds_size *rowptr, const pds_int *colidx, pds_size *trowptr,
                                              pds_int *trowidx, pds_int *perm, pds_cuda_alloc_fn alloc,
                                              pds_cuda_release_fn release, void *user) {
  int        *keys = NULL, *iota = NULL;
  void       *tmp = NULL;
  size_t      tmp_bytes = 0;
  int         n = (int)nnz, bits = 1;
  cudaError_t e;

  if (nnz > 0) {
    while (bits < 31 && ((pds_size)1 << bits) < ncols) bits++;
    if ((e = alloc(user, (size_t)n * sizeof *keys, (void **)&keys)) != cudaSuccess) goto done;
    if ((e = alloc(user, (size_t)n * sizeof *iota, (void **)&iota)) != cudaSuccess) goto done;
    iota_k<<<(unsigned)((n + 255) / 256), 256, 0, s>>>(n, iota);
    if ((e = cub::DeviceRadixSort::SortPairs(NULL, tmp_bytes, colidx, keys, iota, perm, n, 0, bits, s)) != cudaSuccess)
      goto done;
    if ((e = alloc(user, tmp_bytes ? tmp_bytes : 1, &tmp)) != cudaSuccess) goto done;
    if ((e = cub::DeviceRadixSort::SortPairs(tmp, tmp_bytes, colidx, keys, iota, perm, n, 0, bits, s)) != cudaSuccess)
      goto done;
    rowof_k<<<(unsigned)((n + 255) / 256), 256, 0, s>>>(n, nrows, rowptr, perm, trowidx);
  }
  colptr_k<<<(unsigned)((ncols + 1 + 255) / 256), 256, 0, s>>>(ncols, n, keys, trowptr);
  e = cudaGetLastError();
done:
  if (tmp) release(user, tmp);
  if (iota) release(user, iota);
  if (keys) release(user, keys);
  return e;
}
