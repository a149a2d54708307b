// src/backend/cuda/cuda_patches.cu: the patches kernels on /gpu/cuda (src/mat/patches_kernels.h): the 7-point
// product y = alpha A x + beta y and residual r = b - A x of a patch set, and the transfers of geometric multigrid
// (restriction by sums of 8 fine cells, prolongation piecewise constant or trilinear), one thread per cell, all
// patches in one launch (a cell finds its patch by a binary search on geom[].first: cuda_patches.cuh says why).
// Every product and sum is rounded on its own in the order patches_kernels.h states (cuda_patches.cuh), so the
// results are /cpu/ref's bits.
//
// Byte and flop models (8-byte reals, per cell of the output):
//   apply     8 (x_p) + 8 (y written) [+ 8 (y read, beta != 0)]; the six neighbours' x come from L1/L2 (each value is
//             read by 7 cells of which the x-neighbours are in the same sectors); patch-face cells also read 4 bytes
//             of ghost map and one x of the other patch; 13 flops (7 products, 6 sums) + 1 or 3 for alpha, beta
//   residual  8 (x_p) + 8 (b) + 8 (r written) = 24 bytes; 14 flops
//   restrict  per coarse cell: 64 (the 8 fine values, contiguous pairs in x) + 8 (written) = 72 bytes, i.e. 9 per
//             fine cell; 8 flops
//   prolong   per fine cell: 16 (uf read and written) + ec through cache (each coarse value serves 8 fine cells:
//             1 byte per fine cell from memory); constant 1 flop, trilinear 14 (7 products, 7 sums) plus 7 neighbour
//             look-ups (a step across a patch face reads the ghost map and locates the new patch: binary search)
#include "cuda_launch.cuh"
#include "cuda_patches.cuh"

namespace {

constexpr int PT = 256; // threads per block

__global__ void patches_apply_k(pds_cuda_pstencil S, int np, const pds_patch_geom *__restrict__ geom,
                                const pds_int *__restrict__ ghost, long long n, double alpha,
                                const double *__restrict__ x, double beta, double *__restrict__ y) {
  pds_grid_dep();
  const long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const int       q = pbd_patch_of_block(geom, np, n, p);

  if (p >= n) return;
  const pbd_geom g = pbd_load(geom, q);
  int            i, j, k;

  pbd_local(g, p, &i, &j, &k);
  const double s = pbd_row_sum(S, g, ghost, x, i, j, k, p);

  y[p] = beta == 0 ? PB_MUL(alpha, s) : PB_ADD(PB_MUL(alpha, s), PB_MUL(beta, y[p]));
}

__global__ void patches_residual_k(pds_cuda_pstencil S, int np, const pds_patch_geom *__restrict__ geom,
                                   const pds_int *__restrict__ ghost, long long n, const double *__restrict__ x,
                                   const double *__restrict__ b, double *__restrict__ r) {
  pds_grid_dep();
  const long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const int       q = pbd_patch_of_block(geom, np, n, p);

  if (p >= n) return;
  const pbd_geom g = pbd_load(geom, q);
  int            i, j, k;

  pbd_local(g, p, &i, &j, &k);
  r[p] = PB_SUB(b[p], pbd_row_sum(S, g, ghost, x, i, j, k, p));
}

// coarse cell (I, J, K) of patch q: scale * (the 8 fine cells (2I + a, 2J + b, 2K + c) of fine patch q, added from 0
// with c, then b, then a ascending, a fastest)
__global__ void patches_restrict_k(int np, const pds_patch_geom *__restrict__ gf, const pds_patch_geom *__restrict__ gc,
                                   long long nc, double scale, const double *__restrict__ rf, double *__restrict__ rc) {
  pds_grid_dep();
  const long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const int       q = pbd_patch_of_block(gc, np, nc, p);

  if (p >= nc) return;
  const pbd_geom C = pbd_load(gc, q), F = pbd_load(gf, q);
  int            I, J, K;

  pbd_local(C, p, &I, &J, &K);
  const long long sx = 1, sy = F.n0, sz = (long long)F.n0 * F.n1;
  const long long base = F.first + (2LL * K * F.n1 + 2LL * J) * F.n0 + 2LL * I;
  double          s = 0.0;

#pragma unroll
  for (int c = 0; c < 2; c++)
#pragma unroll
    for (int b = 0; b < 2; b++)
#pragma unroll
      for (int a = 0; a < 2; a++) s = PB_ADD(s, rf[base + c * sz + b * sy + a * sx]);
  rc[p] = PB_MUL(scale, s);
}

// a coarse cell while stepping: its patch, local position and unknown
struct pcell {
  int       q, i, j, k;
  long long p;
};

// one step of prolong's trilinear stencil from cell c in direction f through the coarse set's neighbours: the cell
// moves (inside the patch, or into the patch that owns the ghost's unknown), or stays where none is (-1) and the sign
// flips (the Dirichlet reflection)
__device__ __forceinline__ void pc_step(const pds_patch_geom *__restrict__ geom, int np,
                                        const pds_int *__restrict__ ghost, pcell *c, double *sign, int f) {
  const pbd_geom  g  = pbd_load(geom, c->q);
  const long long nb = pbd_neighbour(g, ghost, f, c->i, c->j, c->k, c->p);

  if (nb < 0) {
    *sign = -*sign;
    return;
  }
  const int inside = f == 0 ? c->i > 0 : f == 1 ? c->i + 1 < g.n0 : f == 2 ? c->j > 0 : f == 3 ? c->j + 1 < g.n1
                   : f == 4 ? c->k > 0 : c->k + 1 < g.n2;

  c->p = nb;
  if (inside) {
    const int step = (f & 1) ? 1 : -1;

    if (f < 2) c->i += step;
    else if (f < 4) c->j += step;
    else c->k += step;
    return;
  }
  c->q = pbd_patch_of(geom, np, nb);
  pbd_local(pbd_load(geom, c->q), nb, &c->i, &c->j, &c->k);
}

__device__ __forceinline__ double pc_value(const double *__restrict__ ec, const pcell &c, double sign) {
  const double v = ec[c.p];

  return sign < 0 ? -v : v;
}

// uf += P ec: fine cell (2I + a, 2J + b, 2K + c) of patch q; TRI = 0 its parent's value, TRI = 1 the trilinear
// weights of patches_kernels.h, summed in its order
template <int TRI>
__global__ void patches_prolong_k(int np, const pds_patch_geom *__restrict__ gc, const pds_int *__restrict__ ghc,
                                  const pds_patch_geom *__restrict__ gf, long long nf, const double *__restrict__ ec,
                                  double *__restrict__ uf) {
  pds_grid_dep();
  const long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const int       q = pbd_patch_of_block(gf, np, nf, p);

  if (p >= nf) return;
  const pbd_geom F = pbd_load(gf, q), C = pbd_load(gc, q);
  int            i, j, k;

  pbd_local(F, p, &i, &j, &k);
  pcell par;

  par.q = q, par.i = i >> 1, par.j = j >> 1, par.k = k >> 1;
  par.p = C.first + ((long long)par.k * C.n1 + par.j) * C.n0 + par.i;
  if (!TRI) {
    uf[p] = PB_ADD(uf[p], ec[par.p]);
    return;
  }
  const int fx = (i & 1) ? 1 : 0, fy = (j & 1) ? 3 : 2, fz = (k & 1) ? 5 : 4;
  pcell     cx = par, cy = par, cz = par;
  double    sx = 1, sy = 1, sz = 1;

  pc_step(gc, np, ghc, &cx, &sx, fx);
  pc_step(gc, np, ghc, &cy, &sy, fy);
  pc_step(gc, np, ghc, &cz, &sz, fz);
  pcell  cxy = cx, cxz = cx, cyz = cy;
  double sxy = sx, sxz = sx, syz = sy;

  pc_step(gc, np, ghc, &cxy, &sxy, fy);
  pc_step(gc, np, ghc, &cxz, &sxz, fz);
  pc_step(gc, np, ghc, &cyz, &syz, fz);
  pcell  cxyz = cxy;
  double sxyz = sxy;

  pc_step(gc, np, ghc, &cxyz, &sxyz, fz);
  const double e000 = ec[par.p], e100 = pc_value(ec, cx, sx), e010 = pc_value(ec, cy, sy);
  const double e001 = pc_value(ec, cz, sz), e110 = pc_value(ec, cxy, sxy), e101 = pc_value(ec, cxz, sxz);
  const double e011 = pc_value(ec, cyz, syz), e111 = pc_value(ec, cxyz, sxyz);
  double       t = PB_MUL(27.0 / 64.0, e000);

  t = PB_ADD(t, PB_MUL(9.0 / 64.0, PB_ADD(PB_ADD(e100, e010), e001)));
  t = PB_ADD(t, PB_MUL(3.0 / 64.0, PB_ADD(PB_ADD(e110, e101), e011)));
  t = PB_ADD(t, PB_MUL(1.0 / 64.0, e111));
  uf[p] = PB_ADD(uf[p], t);
}

inline unsigned blocks_for(long long n) { return (unsigned)((n + PT - 1) / PT); }

} // namespace

extern "C" {

cudaError_t pds_cuda_patches_apply(cudaStream_t s, const struct pds_patches *P, pds_real alpha, const pds_real *x,
                                   pds_real beta, pds_real *y) {
  if (P->ncells <= 0) return cudaSuccess;
  return pds_launch(patches_apply_k, dim3(blocks_for(P->ncells)), dim3(PT), 0, s, pb_stencil(P), P->np, P->geom,
                    P->ghost, (long long)P->ncells, alpha, x, beta, y);
}

cudaError_t pds_cuda_patches_residual(cudaStream_t s, const struct pds_patches *P, const pds_real *x,
                                      const pds_real *b, pds_real *r) {
  if (P->ncells <= 0) return cudaSuccess;
  return pds_launch(patches_residual_k, dim3(blocks_for(P->ncells)), dim3(PT), 0, s, pb_stencil(P), P->np, P->geom,
                    P->ghost, (long long)P->ncells, x, b, r);
}

cudaError_t pds_cuda_patches_restrict(cudaStream_t s, const struct pds_patches *Pf, const struct pds_patches *Pc,
                                      pds_real scale, const pds_real *rf, pds_real *rc) {
  if (Pc->ncells <= 0) return cudaSuccess;
  return pds_launch(patches_restrict_k, dim3(blocks_for(Pc->ncells)), dim3(PT), 0, s, Pc->np, Pf->geom, Pc->geom,
                    (long long)Pc->ncells, scale, rf, rc);
}

cudaError_t pds_cuda_patches_prolong(cudaStream_t s, const struct pds_patches *Pc, const struct pds_patches *Pf,
                                     int trilinear, const pds_real *ec, pds_real *uf) {
  if (Pf->ncells <= 0) return cudaSuccess;
  if (trilinear)
    return pds_launch(patches_prolong_k<1>, dim3(blocks_for(Pf->ncells)), dim3(PT), 0, s, Pf->np, Pc->geom, Pc->ghost,
                      Pf->geom, (long long)Pf->ncells, ec, uf);
  return pds_launch(patches_prolong_k<0>, dim3(blocks_for(Pf->ncells)), dim3(PT), 0, s, Pf->np, Pc->geom, Pc->ghost,
                    Pf->geom, (long long)Pf->ncells, ec, uf);
}

} // extern "C"
