// src/backend/cuda/cuda_f32.cu: /gpu/cuda single-precision vector kernels (the kernel group of
// src/backend/kernels_f32.h): conversions, set, axpby, axpbypcz, the Jacobi division by a double diagonal, the dots
// accumulated in double and the fused CG / BiCGSTAB steps on float vectors with the method's scalars S in double.
// The CSR products on float values are cuda_csr.cu's kernels instantiated for float (pds_cuda_csr_spmv_f32).
//
// Numerics (kernels_f32.h): every coefficient is rounded to float once, then each entry is computed with float
// operations in the order the header states; this file is compiled with -fmad=false (cuda.cmake), so no product
// and sum are contracted into a multiply-add and the elementwise results are bitwise those of /cpu/ref. The
// reductions sum (double)x_i (double)y_i (exact products) in double over the grid and tree of the double kernels
// (cuda_loops.cuh, cuda_reduce.cuh): deterministic, and within double rounding of ref's chunked sums.
//
// Byte and flop models (n entries, 4-byte floats; the double kernels move twice the vector bytes):
//   to_f32 12n B (8 read, 4 written) | to_f64 12n | set 4n | axpby 12n, 3n (8n, n when b = 0)
//   axpbypcz 16n, 5n | pdiv 16n (x 4, d 8, w 4), n | dot 8n, 2n | dot2 12n, 4n
//   cg_update_r 12n, 4n (r read and written, q read; (r,r) in the same pass) | cg_update_xp 20n, 4n
//   bicg_update_s 12n, 4n | bicg_update_r 16n, 6n | bicg_update_xp 28n, 9n (24n when ph is p)
#include <math.h>

#include "cuda_krylov.cuh"
#include "cuda_loops.cuh"

__global__ void __launch_bounds__(EW_T) f32_to_f32_k(pds_size n, const double *__restrict__ x, float *__restrict__ y) {
  pds_grid_dep();
  EW_FOR(n) y[i] = __double2float_rn(x[i]);
}
__global__ void __launch_bounds__(EW_T) f32_to_f64_k(pds_size n, const float *__restrict__ y, double *__restrict__ x) {
  pds_grid_dep();
  EW_FOR(n) x[i] = (double)y[i];
}
__global__ void __launch_bounds__(EW_T) f32_set_k(pds_size n, float a, float *__restrict__ y) {
  pds_grid_dep();
  EW_FOR(n) y[i] = a;
}
__global__ void __launch_bounds__(EW_T) f32_axpby_k(pds_size n, float a, const float *__restrict__ x, float b,
                                                     float *__restrict__ y) {
  pds_grid_dep();
  EW_FOR(n) y[i] = a * x[i] + b * y[i];
}
__global__ void __launch_bounds__(EW_T) f32_ax_k(pds_size n, float a, const float *__restrict__ x,
                                                  float *__restrict__ y) {
  pds_grid_dep();
  EW_FOR(n) y[i] = a * x[i]; // b = 0: y is not read
}
__global__ void __launch_bounds__(EW_T) f32_axpbypcz_k(pds_size n, float a, const float *__restrict__ x, float b,
                                                        const float *__restrict__ y, float c, float *__restrict__ z) {
  pds_grid_dep();
  EW_FOR(n) z[i] = (a * x[i] + b * y[i]) + c * z[i];
}
__global__ void __launch_bounds__(EW_T) f32_pdiv_k(pds_size n, const float *__restrict__ x,
                                                    const double *__restrict__ d, float *__restrict__ w) {
  pds_grid_dep();
  EW_FOR(n) w[i] = x[i] / __double2float_rn(d[i]);
}

// x = al p + x; p = z + be p, as S[PDS_KS_XP] says (x first; x alone on the last iteration); S[BETA] = 0: p = z, the
// old p not used (as ref's axpby with b = 0)
__global__ void __launch_bounds__(EW_T) f32_cg_xp_k(pds_size n, const float *__restrict__ z, float *__restrict__ x,
                                                     float *__restrict__ p, const double *__restrict__ S) {
  pds_grid_dep();
  const int   m  = (int)S[PDS_KS_XP];
  const bool  b0 = S[PDS_KS_BETA] == 0;
  const float al = __double2float_rn(S[PDS_KS_ALPHA]), be = __double2float_rn(S[PDS_KS_BETA]);

  EW_FOR(n) {
    const float pi = p[i];

    if (m & PDS_KS_XP_X) x[i] = al * pi + x[i];
    if (m & PDS_KS_XP_P) p[i] = b0 ? z[i] : z[i] + be * pi;
  }
}

// x = (al ph + om sh) + x, or x = al ph + x (the half step); p = (r + bo v) + be p. ph may be p: no __restrict__ on
// them, every entry is loaded before anything is stored.
__global__ void __launch_bounds__(EW_T) f32_bicg_xp_k(pds_size n, const float *ph, const float *__restrict__ sh,
                                                       const float *__restrict__ r, const float *__restrict__ v,
                                                       float *__restrict__ x, float *p, const double *__restrict__ S) {
  pds_grid_dep();
  const int   m  = (int)S[PDS_KS_XP];
  const float al = __double2float_rn(S[PDS_KS_ALPHA]), om = __double2float_rn(S[PDS_KS_OMEGA]);
  const float be = __double2float_rn(S[PDS_KS_BETA]), bo = __double2float_rn(-S[PDS_KS_BETA] * S[PDS_KS_OMEGA]);

  EW_FOR(n) {
    const float phi = ph[i], pi = p[i];

    if (m & PDS_KS_XP_X) x[i] = (al * phi + om * sh[i]) + x[i];
    if (m & PDS_KS_XP_HALF) x[i] = al * phi + x[i];
    if (m & PDS_KS_XP_P) p[i] = (r[i] + bo * v[i]) + be * pi;
  }
}

// out[0] = x . y, out[1] = x . z (NOUT 2): dot_k's / dot2_k's grid and tree on exact double products
template <int NOUT>
__global__ void __launch_bounds__(RT) f32_dot_k(pds_size n, const float *__restrict__ x, const float *__restrict__ y,
                                                 const float *__restrict__ z, pds_cuda_red red, double *out) {
  pds_grid_dep();
  double v[NOUT];

#pragma unroll
  for (int o = 0; o < NOUT; o++) v[o] = 0.0;
  RED_FOR(n, {
    const double xi = x[i];
    v[0] += xi * (double)y[i];
    if (NOUT > 1) v[NOUT - 1] += xi * (double)z[i];
  });
  grid_red<NOUT, SumOp>(v, red, out);
}

// the coefficient S[num] / S[den], 0 when S[den] is 0 or not finite, rounded to float
__device__ __forceinline__ float f32_ratio(const double *S, int num, int den) {
  return __double2float_rn(pds_ks_ratio(S, num, den));
}

// r = -a q + r with a = f(S[RHO] / S[0]); S[1] = (r, r); then the step (step >= 0) in the last block
__global__ void __launch_bounds__(RT) f32_cg_r_k(pds_size n, const float *__restrict__ q, float *__restrict__ r,
                                                  pds_cuda_red red, double *sc, int step, pds_cuda_loop_dev lp,
                                                  int in_loop) {
  pds_grid_dep();
  const float a    = f32_ratio(sc, PDS_KS_RHO, 0);
  double      v[1] = {0.0};

  RED_FOR(n, { const float ri = -a * q[i] + r[i]; r[i] = ri; v[0] += (double)ri * (double)ri; });
  if (grid_red<1, SumOp>(v, red, sc + 1) && step >= 0) ks_step_dev(step, sc, lp, in_loop);
}

// w = -a v + r with a = f(S[RHO] / S[0]); S[1] = (w, w)
__global__ void __launch_bounds__(RT) f32_bicg_s_k(pds_size n, const float *__restrict__ r,
                                                    const float *__restrict__ vv, float *__restrict__ w,
                                                    pds_cuda_red red, double *sc) {
  pds_grid_dep();
  const float a    = f32_ratio(sc, PDS_KS_RHO, 0);
  double      v[1] = {0.0};

  RED_FOR(n, { const float wi = -a * vv[i] + r[i]; w[i] = wi; v[0] += (double)wi * (double)wi; });
  grid_red<1, SumOp>(v, red, sc + 1);
}

// r = -o t + w with o = f(S[2] / S[3]); S[4] = (r, rhat); S[5] = (r, r); then the step (step >= 0)
__global__ void __launch_bounds__(RT) f32_bicg_r_k(pds_size n, const float *__restrict__ w,
                                                    const float *__restrict__ t, const float *__restrict__ rhat,
                                                    float *__restrict__ r, pds_cuda_red red, double *sc, int step,
                                                    pds_cuda_loop_dev lp, int in_loop) {
  pds_grid_dep();
  const float o    = f32_ratio(sc, 2, 3);
  double      v[2] = {0.0, 0.0};

  RED_FOR(n, {
    const float ri = -o * t[i] + w[i];
    r[i] = ri;
    v[0] += (double)ri * (double)rhat[i];
    v[1] += (double)ri * (double)ri;
  });
  if (grid_red<2, SumOp>(v, red, sc + 4) && step >= 0) ks_step_dev(step, sc, lp, in_loop);
}

extern "C" {

cudaError_t pds_cuda_f32_to_f32(cudaStream_t s, pds_size n, const pds_real *x, float *y) {
  EW_LAUNCH(f32_to_f32_k, n, x, y);
}
cudaError_t pds_cuda_f32_to_f64(cudaStream_t s, pds_size n, const float *y, pds_real *x) {
  EW_LAUNCH(f32_to_f64_k, n, y, x);
}
cudaError_t pds_cuda_f32_set(cudaStream_t s, pds_size n, pds_real a, float *y) {
  EW_LAUNCH(f32_set_k, n, (float)a, y);
}
cudaError_t pds_cuda_f32_axpby(cudaStream_t s, pds_size n, pds_real a, const float *x, pds_real b, float *y) {
  const float af = (float)a, bf = (float)b;

  if (b == 0) EW_LAUNCH(f32_ax_k, n, af, x, y); // b = 0 (as given): y is not read
  EW_LAUNCH(f32_axpby_k, n, af, x, bf, y);
}
cudaError_t pds_cuda_f32_axpbypcz(cudaStream_t s, pds_size n, pds_real a, const float *x, pds_real b, const float *y,
                                  pds_real c, float *z) {
  EW_LAUNCH(f32_axpbypcz_k, n, (float)a, x, (float)b, y, (float)c, z);
}
cudaError_t pds_cuda_f32_pdiv(cudaStream_t s, pds_size n, const float *x, const pds_real *d, float *w) {
  EW_LAUNCH(f32_pdiv_k, n, x, d, w);
}
cudaError_t pds_cuda_f32_dot2(cudaStream_t s, pds_cuda_red red, pds_size n, const float *x, const float *y,
                              const float *z, pds_real *out) {
  if (z) RED_LAUNCH(f32_dot_k<2>, n, x, y, z, red, out);
  RED_LAUNCH(f32_dot_k<1>, n, x, y, z, red, out);
}
cudaError_t pds_cuda_f32_cg_update_r(cudaStream_t s, pds_cuda_red red, pds_size n, const float *q, float *r,
                                     pds_real *sc, int step, const pds_cuda_loop_dev *lp) {
  pds_cuda_loop_dev none = {};

  RED_LAUNCH(f32_cg_r_k, n, q, r, red, sc, step, lp ? *lp : none, lp != NULL);
}
cudaError_t pds_cuda_f32_cg_update_xp(cudaStream_t s, pds_size n, const float *z, float *x, float *p,
                                      const pds_real *sc) {
  EW_LAUNCH(f32_cg_xp_k, n, z, x, p, sc);
}
cudaError_t pds_cuda_f32_bicg_update_s(cudaStream_t s, pds_cuda_red red, pds_size n, const float *r, const float *v,
                                       float *w, pds_real *sc) {
  RED_LAUNCH(f32_bicg_s_k, n, r, v, w, red, sc);
}
cudaError_t pds_cuda_f32_bicg_update_r(cudaStream_t s, pds_cuda_red red, pds_size n, const float *w, const float *t,
                                       const float *rhat, float *r, pds_real *sc, int step,
                                       const pds_cuda_loop_dev *lp) {
  pds_cuda_loop_dev none = {};

  RED_LAUNCH(f32_bicg_r_k, n, w, t, rhat, r, red, sc, step, lp ? *lp : none, lp != NULL);
}
cudaError_t pds_cuda_f32_bicg_update_xp(cudaStream_t s, pds_size n, const float *ph, const float *sh, const float *r,
                                        const float *v, float *x, float *p, const pds_real *sc) {
  EW_LAUNCH(f32_bicg_xp_k, n, ph, sh, r, v, x, p, sc);
}

} // extern "C"
