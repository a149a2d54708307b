// src/backend/cuda/cuda_vec.cu: /gpu/cuda vector kernels: elementwise operations, deterministic reductions (dot,
// dot2, infinity norm) and the fused CG / BiCGSTAB steps, each behind an extern "C" launcher (cuda_common.h).
//
// Byte and flop models (n entries, 8-byte reals; a kernel's GB/s in bench/gpu counts exactly these bytes):
//   set 8n B, 0 flops | copy 16n | scale 16n, n | axpby 24n, 3n (16n, n when b = 0) | waxpby 24n, 3n
//   pmult / pdiv 24n, n | axpbypcz 32n, 5n | dot 16n, 2n | dot2 24n, 4n | norm_inf 8n
//   mdot (k vectors) 8kn + 8n per batch of PDS_CUDA_MDOT_BATCH, 2kn | maxpy 8kn + 16n per batch, 2kn
//   cg_update_r 24n, 4n (r read and written, q read; (r,r) in the same pass)
//   cg_update_xp 40n, 4n (x, p read and written, z read)
//   bicg_update_s 24n, 4n | bicg_update_r 32n, 6n | bicg_update_xp 56n, 9n (x, p read and written; ph, sh, r, v
//   read), 48n when ph is p.
// Elementwise kernels: 256 threads, each handling 4 entries 256 apart in a tile of 1024, so a warp's loads are
// 256-byte coalesced and each thread has several independent loads in flight. Reductions: see cuda_common.h.
#include <math.h>

#include "cuda_krylov.cuh"
#include "cuda_loops.cuh"

__global__ void __launch_bounds__(EW_T) set_k(pds_size n, double a, double *__restrict__ y) {
  pds_grid_dep();
  EW_FOR(n) y[i] = a;
}
__global__ void __launch_bounds__(EW_T) copy_k(pds_size n, const double *__restrict__ x, double *__restrict__ y) {
  pds_grid_dep();
  EW_FOR(n) y[i] = x[i];
}
__global__ void __launch_bounds__(EW_T) scale_k(pds_size n, double a, double *__restrict__ y) {
  pds_grid_dep();
  EW_FOR(n) y[i] *= a;
}
__global__ void __launch_bounds__(EW_T) axpby_k(pds_size n, double a, const double *__restrict__ x, double b,
                                                 double *__restrict__ y) {
  pds_grid_dep();
  EW_FOR(n) y[i] = a * x[i] + b * y[i];
}
__global__ void __launch_bounds__(EW_T) ax_k(pds_size n, double a, const double *__restrict__ x,
                                              double *__restrict__ y) {
  pds_grid_dep();
  EW_FOR(n) y[i] = a * x[i]; // b = 0: y is not read
}
// w may be x or y (pds_vec_waxpy(x, a, x, y)): each entry is read before it is written, by the same thread
__global__ void __launch_bounds__(EW_T) waxpby_k(pds_size n, double a, const double *x, double b, const double *y,
                                                  double *w) {
  pds_grid_dep();
  EW_FOR(n) w[i] = a * x[i] + b * y[i];
}
__global__ void __launch_bounds__(EW_T) pmult_k(pds_size n, const double *x, const double *y, double *w) {
  pds_grid_dep();
  EW_FOR(n) w[i] = x[i] * y[i];
}
__global__ void __launch_bounds__(EW_T) pdiv_k(pds_size n, const double *x, const double *y, double *w) {
  pds_grid_dep();
  EW_FOR(n) w[i] = x[i] / y[i];
}
__global__ void __launch_bounds__(EW_T) axpbypcz_k(pds_size n, double a, const double *__restrict__ x, double b,
                                                    const double *__restrict__ y, double c, double *__restrict__ z) {
  pds_grid_dep();
  EW_FOR(n) z[i] = a * x[i] + b * y[i] + c * z[i];
}
// The updates that end a CG / BiCGSTAB iteration, as S[PDS_KS_XP] says (krylov_step.h). x and p together (every
// iteration but the last) in one pass; x alone, or BiCGSTAB's half step, with axpby_k's and axpbypcz_k's expressions
// (one: a 1.0 the compiler cannot fold, as those kernels' runtime coefficient), so the bits of the unfused updates.
__global__ void __launch_bounds__(EW_T) cg_xp_k(pds_size n, const double *__restrict__ z, double *__restrict__ x,
                                                 double *__restrict__ p, const double *__restrict__ S, double one) {
  pds_grid_dep();
  const int    m     = (int)S[PDS_KS_XP];
  const double alpha = S[PDS_KS_ALPHA], beta = S[PDS_KS_BETA];

  if (m == (PDS_KS_XP_X | PDS_KS_XP_P)) {
    EW_FOR(n) {
      double pi = p[i];

      x[i] = alpha * pi + 1.0 * x[i];
      p[i] = 1.0 * z[i] + beta * pi;
    }
    return;
  }
  if (m & PDS_KS_XP_X) {
    EW_FOR(n) x[i] = alpha * p[i] + one * x[i];
  }
  if (m & PDS_KS_XP_P) {
    EW_FOR(n) p[i] = one * z[i] + beta * p[i];
  }
}
// ph may be p: no __restrict__ on them, and every entry is loaded before anything is stored
__global__ void __launch_bounds__(EW_T) bicg_xp_k(pds_size n, const double *ph, const double *__restrict__ sh,
                                                   const double *__restrict__ r, const double *__restrict__ v,
                                                   double *__restrict__ x, double *p, const double *__restrict__ S,
                                                   double one) {
  pds_grid_dep();
  const int    m     = (int)S[PDS_KS_XP];
  const double alpha = S[PDS_KS_ALPHA], omega = S[PDS_KS_OMEGA], beta = S[PDS_KS_BETA], bo = -beta * omega;

  if (m == (PDS_KS_XP_X | PDS_KS_XP_P)) {
    EW_FOR(n) {
      double phi = ph[i], pi = p[i], shi = sh[i], ri = r[i], vi = v[i], xi = x[i];

      x[i] = alpha * phi + omega * shi + 1.0 * xi;
      p[i] = 1.0 * ri + bo * vi + beta * pi;
    }
    return;
  }
  if (m & PDS_KS_XP_X) {
    EW_FOR(n) x[i] = alpha * ph[i] + omega * sh[i] + one * x[i];
  }
  if (m & PDS_KS_XP_HALF) {
    EW_FOR(n) x[i] = alpha * ph[i] + one * x[i];
  }
  if (m & PDS_KS_XP_P) {
    EW_FOR(n) p[i] = one * r[i] + bo * v[i] + beta * p[i];
  }
}

__global__ void __launch_bounds__(RT) dot_k(pds_size n, const double *__restrict__ x, const double *__restrict__ y,
                                             pds_cuda_red red, double *out) {
  pds_grid_dep();
  double v[1] = {0.0};

  RED_FOR(n, v[0] += x[i] * y[i]);
  grid_red<1, SumOp>(v, red, out);
}

__global__ void __launch_bounds__(RT) dot2_k(pds_size n, const double *__restrict__ x, const double *__restrict__ y,
                                              const double *__restrict__ z, pds_cuda_red red, double *out) {
  pds_grid_dep();
  double v[2] = {0.0, 0.0};

  RED_FOR(n, { double xi = x[i]; v[0] += xi * y[i]; v[1] += xi * z[i]; });
  grid_red<2, SumOp>(v, red, out);
}

__global__ void __launch_bounds__(RT) norm_inf_k(pds_size n, const double *__restrict__ x, pds_cuda_red red,
                                                  double *out) {
  pds_grid_dep();
  double v[1] = {0.0};

  RED_FOR(n, v[0] = MaxAbsOp::comb(v[0], fabs(x[i])));
  grid_red<1, MaxAbsOp>(v, red, out);
}

// out[o] = V_o . w for o < NOUT: dot_k's loop and grid_red per output, so each out[o] has dot_k's bits
template <int NOUT>
__global__ void __launch_bounds__(RT) mdot_k(pds_size n, pds_cuda_ptrs V, const double *__restrict__ w,
                                              pds_cuda_red red, double *out) {
  pds_grid_dep();
  double v[NOUT];

#pragma unroll
  for (int o = 0; o < NOUT; o++) v[o] = 0.0;
  RED_FOR(n, {
    const double wi = w[i];
#pragma unroll
    for (int o = 0; o < NOUT; o++) v[o] += wi * V.v[o][i];
  });
  grid_red<NOUT, SumOp>(v, red, out);
}

// w = w - sum_o c[o] V_o, o ascending per entry (axpby_k's expression with a = -c[o], b = 1)
__global__ void __launch_bounds__(EW_T) maxpy_k(pds_size n, int k, pds_cuda_ptrs V, const double *__restrict__ c,
                                                 double *__restrict__ w) {
  pds_grid_dep();
  EW_FOR(n) {
    double t = w[i];

    for (int o = 0; o < k; o++) t = -c[o] * V.v[o][i] + 1.0 * t;
    w[i] = t;
  }
}

// a = sc[RHO] / sc[0] (0 if sc[0] is 0 or not finite); r = -a q + 1 r; sc[1] = (r, r); then the step (step >= 0)
__global__ void __launch_bounds__(RT) cg_r_k(pds_size n, const double *__restrict__ q, double *__restrict__ r,
                                              pds_cuda_red red, double *sc, int step, pds_cuda_loop_dev lp,
                                              int in_loop) {
  pds_grid_dep();
  const double a = pds_ks_ratio(sc, PDS_KS_RHO, 0);
  double       v[1] = {0.0};

  RED_FOR(n, { double ri = -a * q[i] + 1.0 * r[i]; r[i] = ri; v[0] += ri * ri; });
  if (grid_red<1, SumOp>(v, red, sc + 1) && step >= 0) ks_step_dev(step, sc, lp, in_loop);
}

// a = sc[RHO] / sc[0] (0 if sc[0] is 0 or not finite); w = -a v + 1 r; sc[1] = (w, w)
__global__ void __launch_bounds__(RT) bicg_s_k(pds_size n, const double *__restrict__ r, const double *__restrict__ vv,
                                                double *__restrict__ w, pds_cuda_red red, double *sc) {
  pds_grid_dep();
  const double a = pds_ks_ratio(sc, PDS_KS_RHO, 0);
  double       v[1] = {0.0};

  RED_FOR(n, { double wi = -a * vv[i] + 1.0 * r[i]; w[i] = wi; v[0] += wi * wi; });
  grid_red<1, SumOp>(v, red, sc + 1);
}

// o = sc[2] / sc[3] (0 if sc[3] is 0 or not finite); r = -o t + 1 w; sc[4] = (r, rhat); sc[5] = (r, r); then the
// step (step >= 0)
__global__ void __launch_bounds__(RT) bicg_r_k(pds_size n, const double *__restrict__ w, const double *__restrict__ t,
                                                const double *__restrict__ rhat, double *__restrict__ r,
                                                pds_cuda_red red, double *sc, int step, pds_cuda_loop_dev lp,
                                                int in_loop) {
  pds_grid_dep();
  const double o = pds_ks_ratio(sc, 2, 3);
  double       v[2] = {0.0, 0.0};

  RED_FOR(n, { double ri = -o * t[i] + 1.0 * w[i]; r[i] = ri; v[0] += ri * rhat[i]; v[1] += ri * ri; });
  if (grid_red<2, SumOp>(v, red, sc + 4) && step >= 0) ks_step_dev(step, sc, lp, in_loop);
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

extern "C" {

int pds_cuda_pdl = 1;

cudaError_t pds_cuda_vec_set(cudaStream_t s, pds_size n, pds_real a, pds_real *y) { EW_LAUNCH(set_k, n, a, y); }
cudaError_t pds_cuda_vec_copy(cudaStream_t s, pds_size n, const pds_real *x, pds_real *y) { EW_LAUNCH(copy_k, n, x, y); }
cudaError_t pds_cuda_vec_scale(cudaStream_t s, pds_size n, pds_real a, pds_real *y) { EW_LAUNCH(scale_k, n, a, y); }
cudaError_t pds_cuda_vec_axpby(cudaStream_t s, pds_size n, pds_real a, const pds_real *x, pds_real b, pds_real *y) {
  if (b == 0) EW_LAUNCH(ax_k, n, a, x, y);
  EW_LAUNCH(axpby_k, n, a, x, b, y);
}
cudaError_t pds_cuda_vec_waxpby(cudaStream_t s, pds_size n, pds_real a, const pds_real *x, pds_real b,
                                const pds_real *y, pds_real *w) {
  EW_LAUNCH(waxpby_k, n, a, x, b, y, w);
}
cudaError_t pds_cuda_vec_pmult(cudaStream_t s, pds_size n, const pds_real *x, const pds_real *y, pds_real *w) {
  EW_LAUNCH(pmult_k, n, x, y, w);
}
cudaError_t pds_cuda_vec_pdiv(cudaStream_t s, pds_size n, const pds_real *x, const pds_real *y, pds_real *w) {
  EW_LAUNCH(pdiv_k, n, x, y, w);
}
cudaError_t pds_cuda_vec_axpbypcz(cudaStream_t s, pds_size n, pds_real a, const pds_real *x, pds_real b,
                                  const pds_real *y, pds_real c, pds_real *z) {
  EW_LAUNCH(axpbypcz_k, n, a, x, b, y, c, z);
}
cudaError_t pds_cuda_vec_dot(cudaStream_t s, pds_cuda_red red, pds_size n, const pds_real *x, const pds_real *y,
                             pds_real *out) {
  RED_LAUNCH(dot_k, n, x, y, red, out);
}
cudaError_t pds_cuda_vec_dot2(cudaStream_t s, pds_cuda_red red, pds_size n, const pds_real *x, const pds_real *y,
                              const pds_real *z, pds_real *out) {
  RED_LAUNCH(dot2_k, n, x, y, z, red, out);
}
cudaError_t pds_cuda_vec_norm_inf(cudaStream_t s, pds_cuda_red red, pds_size n, const pds_real *x, pds_real *out) {
  RED_LAUNCH(norm_inf_k, n, x, red, out);
}
cudaError_t pds_cuda_vec_mdot(cudaStream_t s, pds_cuda_red red, pds_size n, int k, const pds_real *const *V,
                              const pds_real *w, pds_real *out) {
  for (int i0 = 0; i0 < k; i0 += PDS_CUDA_MDOT_BATCH) {
    const int     nb = k - i0 < PDS_CUDA_MDOT_BATCH ? k - i0 : PDS_CUDA_MDOT_BATCH;
    pds_cuda_ptrs P;
    cudaError_t   e;

    for (int o = 0; o < PDS_CUDA_MDOT_BATCH; o++) P.v[o] = o < nb ? V[i0 + o] : NULL;
    switch (nb) {
#define MDOT_CASE(N)                                                                      \
  case N: mdot_k<N><<<PDS_CUDA_RED_BLOCKS(n), RT, 0, s>>>(n, P, w, red, out + i0); break;
      MDOT_CASE(1) MDOT_CASE(2) MDOT_CASE(3) MDOT_CASE(4) MDOT_CASE(5) MDOT_CASE(6) MDOT_CASE(7) MDOT_CASE(8)
#undef MDOT_CASE
    }
    if ((e = cudaGetLastError()) != cudaSuccess) return e;
  }
  return cudaSuccess;
}
cudaError_t pds_cuda_vec_permute(cudaStream_t s, pds_int nb, int bs, const pds_int *perm, int scatter,
                                 const pds_real *x, pds_real *y) {
  const long long n = (long long)nb * bs;

  return pds_launch(permute_k, (unsigned)((n + 255) / 256), 256, 0, s, (long long)nb, bs, perm, scatter, x, y);
}
cudaError_t pds_cuda_vec_maxpy(cudaStream_t s, pds_size n, int k, const pds_real *const *V, const pds_real *c,
                               pds_real *w) {
  for (int i0 = 0; i0 < k; i0 += PDS_CUDA_MDOT_BATCH) {
    const int     nb = k - i0 < PDS_CUDA_MDOT_BATCH ? k - i0 : PDS_CUDA_MDOT_BATCH;
    pds_cuda_ptrs P;
    cudaError_t   e;

    for (int o = 0; o < PDS_CUDA_MDOT_BATCH; o++) P.v[o] = o < nb ? V[i0 + o] : NULL;
    maxpy_k<<<ew_blocks(n), EW_T, 0, s>>>(n, nb, P, c + i0, w);
    if ((e = cudaGetLastError()) != cudaSuccess) return e;
  }
  return cudaSuccess;
}
cudaError_t pds_cuda_cg_update_r(cudaStream_t s, pds_cuda_red red, pds_size n, const pds_real *q, pds_real *r,
                                 pds_real *sc, int step, const pds_cuda_loop_dev *lp) {
  pds_cuda_loop_dev none = {};

  RED_LAUNCH(cg_r_k, n, q, r, red, sc, step, lp ? *lp : none, lp != NULL);
}
cudaError_t pds_cuda_cg_update_xp(cudaStream_t s, pds_size n, const pds_real *z, pds_real *x, pds_real *p,
                                  const pds_real *sc) {
  EW_LAUNCH(cg_xp_k, n, z, x, p, sc, 1.0);
}
cudaError_t pds_cuda_bicg_update_s(cudaStream_t s, pds_cuda_red red, pds_size n, const pds_real *r, const pds_real *v,
                                   pds_real *w, pds_real *sc) {
  RED_LAUNCH(bicg_s_k, n, r, v, w, red, sc);
}
cudaError_t pds_cuda_bicg_update_r(cudaStream_t s, pds_cuda_red red, pds_size n, const pds_real *w,
                                   const pds_real *t, const pds_real *rhat, pds_real *r, pds_real *sc, int step,
                                   const pds_cuda_loop_dev *lp) {
  pds_cuda_loop_dev none = {};

  RED_LAUNCH(bicg_r_k, n, w, t, rhat, r, red, sc, step, lp ? *lp : none, lp != NULL);
}
cudaError_t pds_cuda_bicg_update_xp(cudaStream_t s, pds_size n, const pds_real *ph, const pds_real *sh,
                                    const pds_real *r, const pds_real *v, pds_real *x, pds_real *p,
                                    const pds_real *sc) {
  EW_LAUNCH(bicg_xp_k, n, ph, sh, r, v, x, p, sc, 1.0);
}

} // extern "C"
