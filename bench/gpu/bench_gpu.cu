// bench/gpu/bench_gpu.cu: benchmarks of /gpu/cuda against cuSPARSE and cuBLAS, measured in the same run on the
// same data, and of /cpu/omp on the same problems (the GPU/CPU ratio).
//
//   bench_gpu [-shared DIR] [-small] [-skip-cpu] [-classes-only] [-json FILE]
//
// -classes-only: the irregular CSR classes alone (the library's rule, merge-path forced, the rule before merge-path,
// each class's entries floor), a minute on an H100, for work on the CSR kernels.
// Every number is a median over repeated runs after warm-up; GPU kernels are timed with CUDA events, whole solves
// and CPU kernels with the wall clock after a synchronize. Each result is validated before it is reported
// (against the peer, or the library's own product). Output: one JSON object per line (bench, backend, kernel, n,
// nnz, bs, t_median_s, gbs, frac_copy_bw, peer, peer_t_median_s, peer_ratio = peer time / our time), then a table.
//
// Byte models (what GB/s counts; 8-byte reals, 4-byte column indices, 8-byte row pointers):
//   vectors: as in src/backend/cuda/cuda_vec.cu (axpby 24 n, dot 16 n, ...);
//   CSR y = A x: 12 nnz + 8 (n+1) + 8 n (x) + 8 n (y) (the merge-path kernel adds about 64 bytes per 2048-item tile:
//     src/backend/cuda/cuda_csr.cu); BSR: nnzb (8 bs^2 + 4) + 8 (nb+1) + 16 n;
//   CG floor (a fully fused CSR CG, no preconditioner): q = A p fused with (p,q): 12 nnz + 8 (n+1) + 16 n;
//     r -= alpha q fused with (r,r): 24 n; x += alpha p with p = r + beta p: 40 n  ->  12 nnz + 8 (n+1) + 80 n;
//     the library's CG (pds_vec_fused_apply_dot, _cg_r, _cg_xp) moves exactly these bytes;
//   BiCGSTAB floor: v = A p with (rhat,v) 12 nnz + 8 (n+1) + 24 n; s = r - a v with (s,s) 24 n; t = A s with
//     (t,s),(t,t) 12 nnz + 8 (n+1) + 16 n; r = s - o t with (r,rhat),(r,r) 32 n; x, p update 56 n
//     ->  24 nnz + 16 (n+1) + 152 n; the library's BiCGSTAB moves these bytes too.
//   The floor time is the floor's bytes over the copy bandwidth measured in this run.
//   Irregular CSR classes: also a measured floor (gather_floor_k: the entries streamed, x gathered at the columns,
//     12 nnz + the gathered sectors), reported with the same byte model as the product for comparison.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "pdesolve.h"
#include "backend/cuda/cuda_common.h"
extern "C" {
#include "vec/vec_impl.h" // the fused Krylov steps (internal)
}
#include "gpu_bench_util.cuh"

// ---- checks -------------------------------------------------------------------------------------------------
#define CKB(call)                                                                                       \
  do {                                                                                                  \
    cublasStatus_t e_ = (call);                                                                         \
    if (e_ != CUBLAS_STATUS_SUCCESS) {                                                                  \
      fprintf(stderr, "%s:%d: %s: cublas status %d\n", __FILE__, __LINE__, #call, (int)e_);             \
      exit(2);                                                                                          \
    }                                                                                                   \
  } while (0)
static pds_ctx g_err_ctx;
static pds_ctx g_seq_ctx; // /gpu/cuda made with PDS_CUDA_SMALL=0: the kernel sequence, no whole-iteration kernel
#define PK(call)                                                                                        \
  do {                                                                                                  \
    int e_ = (call);                                                                                    \
    if (e_) {                                                                                           \
      fprintf(stderr, "%s:%d: %s: %s: %s\n", __FILE__, __LINE__, #call, pds_error_name(e_),             \
              g_err_ctx ? pds_ctx_get_error(g_err_ctx) : "");                                           \
      exit(2);                                                                                          \
    }                                                                                                   \
  } while (0)
#define REQUIRE(cond, ...)                                                                              \
  do {                                                                                                  \
    if (!(cond)) {                                                                                      \
      fprintf(stderr, "validation failed: " __VA_ARGS__);                                               \
      fprintf(stderr, "\n");                                                                            \
      exit(3);                                                                                          \
    }                                                                                                   \
  } while (0)

// ---- timing and reporting -------------------------------------------------------------------------------------
static int    g_reps = 20, g_warm = 3;
static double g_copy_bw = 0;     // bytes/s, GPU, measured below
static double g_cpu_copy_bw = 0; // bytes/s, /cpu/omp
static FILE  *g_json;


template <class F> static double time_gpu(F f, int reps = g_reps) { return gpu_event_median(f, g_warm, reps); }
template <class F> static double time_host(F f, int reps = g_reps, bool gpu = false) {
  return host_median(f, g_warm, reps, gpu);
}

struct Row {
  std::string sec, be, kernel, size, peer;
  int         bs;
  double      t, gbs, frac, tpeer, ratio, extra;
  std::string note;
};
static std::vector<Row> g_rows;

static void report(const char *sec, const char *be, const char *kernel, const std::string &size, long long n,
                   long long nnz, int bs, double t, double bytes, const char *peer, double tpeer,
                   const std::string &note = "", bool table = true) {
  double bw   = strncmp(be, "/cpu", 4) ? g_copy_bw : g_cpu_copy_bw;
  double gbs  = bytes > 0 ? bytes / t * 1e-9 : 0;
  double frac = bytes > 0 && bw > 0 ? bytes / t / bw : 0;
  Row    r    = {sec, be, kernel, size, peer ? peer : "", bs, t, gbs, frac, tpeer, tpeer > 0 ? tpeer / t : 0, 0, note};
  char   line[1024];

  snprintf(line, sizeof line,
           "{\"bench\":\"bench_gpu\",\"section\":\"%s\",\"backend\":\"%s\",\"kernel\":\"%s\",\"size\":\"%s\",\"n\":%lld,"
           "\"nnz\":%lld,\"bs\":%d,\"t_median_s\":%.6e,\"gbs\":%.1f,\"frac_copy_bw\":%.3f,\"peer\":\"%s\","
           "\"peer_t_median_s\":%.6e,\"peer_ratio\":%.3f,\"note\":\"%s\"}",
           sec, be, kernel, size.c_str(), n, nnz, bs, t, r.gbs, frac, r.peer.c_str(), tpeer, r.ratio, note.c_str());
  puts(line);
  if (g_json) fprintf(g_json, "%s\n", line);
  fflush(stdout);
  if (table) g_rows.push_back(r);
}

// ---- small device helpers -------------------------------------------------------------------------------------
static double max_rel_diff(const double *da, const double *db, long long n) {
  std::vector<double> a(n), b(n);
  double              m = 0, s = 0;

  CK(cudaMemcpy(a.data(), da, n * sizeof(double), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(b.data(), db, n * sizeof(double), cudaMemcpyDeviceToHost));
  for (long long i = 0; i < n; i++) m = std::max(m, std::fabs(a[i] - b[i])), s = std::max(s, std::fabs(b[i]));
  return s > 0 ? m / s : m;
}
static double *dev_vec(long long n, unsigned long long seed) {
  double *d;

  CK(cudaMalloc(&d, n * sizeof(double) + 8));
  dev_fill(d, n, seed);
  return d;
}

static cusparseHandle_t g_sp;
static cublasHandle_t   g_bl;
static double           g_sc[8], *g_dscal; // host and device scalars for the dot peers

// ---- copy bandwidth -------------------------------------------------------------------------------------------
static void bench_copy(long long n) {
  double *x = dev_vec(n, 1), *y = dev_vec(n, 2);
  double  tk = time_gpu([&] { CK(pds_cuda_vec_copy(0, n, x, y)); });
  double  tm = time_gpu([&] { CK(cudaMemcpyAsync(y, x, n * 8, cudaMemcpyDeviceToDevice, 0)); });

  g_copy_bw = 16.0 * n / std::min(tk, tm);
  report("copy", "/gpu/cuda", "copy kernel (y = x)", std::to_string(n), n, 0, 1, tk, 16.0 * n, "cudaMemcpy D2D", tm);
  CK(cudaFree(x));
  CK(cudaFree(y));
}

// ---- vectors through the public API ------------------------------------------------------------------------------
static const double *rd(pds_vec v) {
  const pds_real *a;

  PK(pds_vec_get_array_read(v, PDS_MEM_DEVICE, &a));
  PK(pds_vec_restore_array_read(v, NULL)); // the pointer stays valid; no access is left open
  return a;
}
static double *wr(pds_vec v) {
  pds_real *a;

  PK(pds_vec_get_array_write(v, PDS_MEM_DEVICE, &a));
  PK(pds_vec_restore_array_write(v, NULL));
  return a;
}

static void bench_vectors(pds_ctx ctx, long long n, bool gpu) {
  const char *be = gpu ? "/gpu/cuda" : "/cpu/omp";
  pds_vec     x, y, w, z, S;
  pds_real    d, d2, sc[PDS_KS_N] = {1e3, 0, 1, 2e3, 0, 0, 0, 0};
  std::string sz = std::to_string(n);
  auto        T  = [&](auto f) { return gpu ? time_gpu(f) : time_host(f); };

  g_err_ctx = ctx;
  PK(pds_vec_create(ctx, n, &x));
  PK(pds_vec_duplicate(x, &y));
  PK(pds_vec_duplicate(x, &w));
  PK(pds_vec_duplicate(x, &z));
  PK(pds_vec_create(ctx, PDS_KS_N, &S));
  PK(pds_vec_set_random(x, 1));
  PK(pds_vec_set_random(y, 2));
  PK(pds_vec_set_random(w, 3));
  PK(pds_vec_set_random(z, 4));
  PK(pds_vec_set_values(S, sc, PDS_MEM_HOST));
  {
    // validate a dot against the host
    std::vector<double> hx(n), hy(n);
    double              s = 0;

    PK(pds_vec_get_values(x, hx.data(), PDS_MEM_HOST));
    PK(pds_vec_get_values(y, hy.data(), PDS_MEM_HOST));
    for (long long i = 0; i < n; i++) s += hx[i] * hy[i];
    PK(pds_vec_dot(x, y, &d));
    REQUIRE(std::fabs(d - s) <= 1e-10 * std::sqrt((double)n), "%s dot %.17g vs host %.17g", be, d, s);
  }
  if (!gpu) { // the CPU's copy bandwidth, for its fractions
    double t = time_host([&] { PK(pds_vec_copy(x, w)); });

    g_cpu_copy_bw = 16.0 * n / t;
    report("vec", be, "copy", sz, n, 0, 1, t, 16.0 * n, NULL, 0);
  }
  double tp;
  // elementwise
  double t = T([&] { PK(pds_vec_set(w, 1.5)); });
  report("vec", be, "set", sz, n, 0, 1, t, 8.0 * n, NULL, 0);
  if (gpu) {
    t  = T([&] { PK(pds_vec_copy(x, w)); });
    tp = time_gpu([&] { CKB(cublasDcopy(g_bl, (int)n, rd(x), 1, wr(w), 1)); });
    report("vec", be, "copy", sz, n, 0, 1, t, 16.0 * n, "cublasDcopy", tp);
  }
  t  = T([&] { PK(pds_vec_scale(w, 0.999)); });
  tp = gpu ? time_gpu([&] { double a = 0.999; CKB(cublasDscal(g_bl, (int)n, &a, wr(w), 1)); }) : 0;
  report("vec", be, "scale", sz, n, 0, 1, t, 16.0 * n, gpu ? "cublasDscal" : NULL, tp);
  t  = T([&] { PK(pds_vec_axpy(y, 1e-3, x)); });
  tp = gpu ? time_gpu([&] { double a = 1e-3; CKB(cublasDaxpy(g_bl, (int)n, &a, rd(x), 1, wr(y), 1)); }) : 0;
  report("vec", be, "axpy", sz, n, 0, 1, t, 24.0 * n, gpu ? "cublasDaxpy" : NULL, tp);
  t  = T([&] { PK(pds_vec_axpby(y, 1e-3, x, 0.999)); });
  tp = gpu ? time_gpu([&] {
    double a = 0.999, b = 1e-3;
    CKB(cublasDscal(g_bl, (int)n, &a, wr(y), 1));
    CKB(cublasDaxpy(g_bl, (int)n, &b, rd(x), 1, wr(y), 1));
  })
           : 0;
  report("vec", be, "axpby", sz, n, 0, 1, t, 24.0 * n, gpu ? "cublasDscal+Daxpy" : NULL, tp);
  t = T([&] { PK(pds_vec_waxpy(w, 0.5, x, y)); });
  report("vec", be, "waxpy", sz, n, 0, 1, t, 24.0 * n, NULL, 0);
  t = T([&] { PK(pds_vec_pointwise_mult(w, x, y)); });
  report("vec", be, "pointwise_mult", sz, n, 0, 1, t, 24.0 * n, NULL, 0);
  t = T([&] { PK(pds_vec_axpbypcz(z, 1e-3, x, 1e-3, y, 0.998)); });
  report("vec", be, "axpbypcz", sz, n, 0, 1, t, 32.0 * n, NULL, 0);
  // reductions: result kept on the device, and result to the host (one small copy)
  t = T([&] { PK(pds_vec_dot_into(x, y, S, 4)); });
  if (gpu) {
    CKB(cublasSetPointerMode(g_bl, CUBLAS_POINTER_MODE_DEVICE));
    tp = time_gpu([&] { CKB(cublasDdot(g_bl, (int)n, rd(x), 1, rd(y), 1, wr(S) + 4)); });
    CKB(cublasSetPointerMode(g_bl, CUBLAS_POINTER_MODE_HOST));
  }
  report("vec", be, "dot (result on device)", sz, n, 0, 1, t, 16.0 * n, gpu ? "cublasDdot (device ptr)" : NULL,
         gpu ? tp : 0);
  t  = T([&] { PK(pds_vec_dot(x, y, &d)); });
  tp = gpu ? time_gpu([&] { CKB(cublasDdot(g_bl, (int)n, rd(x), 1, rd(y), 1, &d2)); }) : 0;
  if (gpu) REQUIRE(std::fabs(d - d2) <= 1e-10 * std::sqrt((double)n), "dot %.17g vs cublas %.17g", d, d2);
  report("vec", be, "dot (result to host)", sz, n, 0, 1, t, 16.0 * n, gpu ? "cublasDdot (host)" : NULL, tp);
  t  = T([&] { PK(pds_vec_dot2_into(x, y, z, S, 4)); });
  tp = gpu ? time_gpu([&] {
    CKB(cublasSetPointerMode(g_bl, CUBLAS_POINTER_MODE_DEVICE));
    CKB(cublasDdot(g_bl, (int)n, rd(x), 1, rd(y), 1, wr(S) + 4));
    CKB(cublasDdot(g_bl, (int)n, rd(x), 1, rd(z), 1, wr(S) + 5));
    CKB(cublasSetPointerMode(g_bl, CUBLAS_POINTER_MODE_HOST));
  })
           : 0;
  report("vec", be, "dot2 (device)", sz, n, 0, 1, t, 24.0 * n, gpu ? "2x cublasDdot (device ptr)" : NULL, tp);
  t = T([&] { PK(pds_vec_norm_inf(x, &d)); });
  report("vec", be, "norm_inf (to host)", sz, n, 0, 1, t, 8.0 * n, NULL, 0);
  // fused Krylov steps (scalars in S, as the solvers keep them: krylov_step.h)
  sc[PDS_KS_RHO] = 1e-9, sc[PDS_KS_ALPHA] = 1e-6, sc[PDS_KS_BETA] = 0.5, sc[PDS_KS_OMEGA] = 1e-6;
  sc[PDS_KS_XP]  = PDS_KS_XP_X | PDS_KS_XP_P;
  PK(pds_vec_set_values(S, sc, PDS_MEM_HOST));
  t = T([&] { PK(pds_vec_fused_cg_r(w, x, S, -1)); });
  tp = gpu ? time_gpu([&] {
    double a = -1e-12;
    CKB(cublasDaxpy(g_bl, (int)n, &a, rd(x), 1, wr(w), 1));
    CKB(cublasDdot(g_bl, (int)n, rd(w), 1, rd(w), 1, &d2));
  })
           : 0;
  report("vec", be, "fused_cg_r (r -= a q, (r,r))", sz, n, 0, 1, t, 24.0 * n, gpu ? "cublasDaxpy+Ddot" : NULL, tp);
  t  = T([&] { PK(pds_vec_fused_cg_xp(z, w, y, S)); });
  tp = gpu ? time_gpu([&] {
    double a = 1e-6, b = 0.5, one = 1;
    CKB(cublasDaxpy(g_bl, (int)n, &a, rd(w), 1, wr(z), 1));
    CKB(cublasDscal(g_bl, (int)n, &b, wr(w), 1));
    CKB(cublasDaxpy(g_bl, (int)n, &one, rd(y), 1, wr(w), 1));
  })
           : 0;
  report("vec", be, "fused_cg_xp (x += a p; p = z + b p)", sz, n, 0, 1, t, 40.0 * n,
         gpu ? "cublasDaxpy+Dscal+Daxpy" : NULL, tp);
  t = T([&] { PK(pds_vec_fused_bicgstab_s(w, x, y, S)); });
  report("vec", be, "fused_bicgstab_s", sz, n, 0, 1, t, 24.0 * n, NULL, 0);
  t = T([&] { PK(pds_vec_fused_bicgstab_r(w, x, y, z, S, -1)); });
  report("vec", be, "fused_bicgstab_r", sz, n, 0, 1, t, 32.0 * n, NULL, 0);
  {
    pds_vec p2, v2;

    PK(pds_vec_duplicate(x, &p2));
    PK(pds_vec_duplicate(x, &v2));
    PK(pds_vec_set_random(p2, 7));
    PK(pds_vec_set_random(v2, 8));
    t = T([&] { PK(pds_vec_fused_bicgstab_xp(z, p2, x, y, w, v2, S)); });
    report("vec", be, "fused_bicgstab_xp", sz, n, 0, 1, t, 56.0 * n, NULL, 0);
    PK(pds_vec_destroy(&p2));
    PK(pds_vec_destroy(&v2));
  }
  PK(pds_vec_destroy(&x));
  PK(pds_vec_destroy(&y));
  PK(pds_vec_destroy(&w));
  PK(pds_vec_destroy(&z));
  PK(pds_vec_destroy(&S));
}

// ---- CSR --------------------------------------------------------------------------------------------------------

// cuSPARSE SpMV y = A x, the better of ALG1 and ALG2; returns its time, y holds its result
static double cusparse_spmv(const CsrDev &d, double *x, double *y, const char **alg) {
  cusparseSpMatDescr_t A;
  cusparseDnVecDescr_t vx, vy;
  double               one = 1, zero = 0, best = 1e30;
  const cusparseSpMVAlg_t algs[2] = {CUSPARSE_SPMV_CSR_ALG1, CUSPARSE_SPMV_CSR_ALG2};

  CKS(cusparseCreateCsr(&A, d.n, d.ncols, d.nnz, d.rp32, d.ci, d.v, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                        CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  CKS(cusparseCreateDnVec(&vx, d.ncols, x, CUDA_R_64F));
  CKS(cusparseCreateDnVec(&vy, d.n, y, CUDA_R_64F));
  for (int a = 0; a < 2; a++) {
    size_t bs = 0;
    void  *buf;

    CKS(cusparseSpMV_bufferSize(g_sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vx, &zero, vy, CUDA_R_64F, algs[a], &bs));
    CK(cudaMalloc(&buf, bs + 8));
    double t = time_gpu([&] {
      CKS(cusparseSpMV(g_sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vx, &zero, vy, CUDA_R_64F, algs[a], buf));
    });
    if (t < best) best = t, *alg = a ? "cuSPARSE SpMV CSR_ALG2" : "cuSPARSE SpMV CSR_ALG1";
    CK(cudaFree(buf));
  }
  CKS(cusparseDestroySpMat(A));
  CKS(cusparseDestroyDnVec(vx));
  CKS(cusparseDestroyDnVec(vy));
  return best;
}

// library product (public API), the kernel variants, and cuSPARSE on one matrix
static void bench_csr_matrix(pds_ctx ctx, pds_mat A, const std::string &name, bool variants, double *t_lib_out) {
  pds_int  nr, nc;
  pds_size nnz;
  pds_vec  x, y;

  PK(pds_mat_get_size(A, &nr, &nc));
  PK(pds_mat_get_nnz(A, &nnz));
  PK(pds_vec_create(ctx, nc, &x));
  PK(pds_vec_create(ctx, nr, &y));
  PK(pds_vec_set_random(x, 3));
  double  bytes = 12.0 * nnz + 8.0 * (nr + 1) + 8.0 * nc + 8.0 * nr;
  CsrDev  d     = csr_upload(A);
  double *xs = dev_vec(nc, 3), *ys = dev_vec(nr, 4), *yv = dev_vec(nr, 5);

  CK(cudaMemcpy(xs, rd(x), (size_t)nc * 8, cudaMemcpyDeviceToDevice));
  double      t_lib = time_gpu([&] { PK(pds_mat_apply(A, x, y)); });
  const char *alg   = "";
  double      t_sp  = cusparse_spmv(d, xs, ys, &alg);
  double      err   = max_rel_diff(rd(y), ys, nr);
  REQUIRE(err <= 1e-12, "csr %s: library and cuSPARSE differ by %g", name.c_str(), err);
  report("csr", "/gpu/cuda", "csr spmv (library rule)", name, nr, nnz, 1, t_lib, bytes, alg, t_sp);
  if (t_lib_out) *t_lib_out = t_lib;
  if (nr == nc) { // the product fused with CG's dot (x, A x), against cuSPARSE SpMV + cublasDdot
    pds_vec S;
    double  d1 = 0, d2 = 0;

    PK(pds_vec_create(ctx, 4, &S));
    double tf = time_gpu([&] { PK(pds_vec_fused_apply_dot(A, x, y, x, NULL, S, 0)); });
    PK(pds_vec_get_values(S, g_sc, PDS_MEM_HOST));
    d1 = g_sc[0];
    CKB(cublasSetPointerMode(g_bl, CUBLAS_POINTER_MODE_HOST));
    CKB(cublasDdot(g_bl, nr, xs, 1, ys, 1, &d2));
    REQUIRE(std::fabs(d1 - d2) <= 1e-12 * std::fabs(d2), "fused product-dot %s: %.17g vs %.17g", name.c_str(), d1, d2);
    double tpd = t_sp + time_gpu([&] { CKB(cublasSetPointerMode(g_bl, CUBLAS_POINTER_MODE_DEVICE));
                                       CKB(cublasDdot(g_bl, nr, xs, 1, ys, 1, g_dscal));
                                       CKB(cublasSetPointerMode(g_bl, CUBLAS_POINTER_MODE_HOST)); });
    report("csr", "/gpu/cuda", "csr spmv fused with (x, Ax)", name, nr, nnz, 1, tf, bytes, "cuSPARSE SpMV + cublasDdot",
           tpd);
    PK(pds_vec_destroy(&S));
  }
  if (variants) {
    const int widths[] = {0, 1, 2, 4, 8, 16, 32}; /* 0: the stream kernel */

    for (int w : widths) {
      pds_cuda_csr_plan pl = {};
      char              k[64];

      pl.stream = w == 0, pl.width = w ? w : 1, pl.long_len = (pds_size)1 << 62;
      double t = time_gpu([&] {
        CK(pds_cuda_csr_spmv(0, &pl, d.n, d.rp64, d.ci, d.v, NULL, 1.0, xs, 0.0, yv));
      });
      err = max_rel_diff(yv, ys, nr);
      REQUIRE(err <= 1e-12, "csr %s width %d: differs from cuSPARSE by %g", name.c_str(), w, err);
      snprintf(k, sizeof k, w == 0 ? "csr variant: stream (thread/row, staged)"
                            : w == 1 ? "csr variant: thread per row" : "csr variant: %d lanes per row", w);
      report("csr", "/gpu/cuda", k, name, nr, nnz, 1, t, bytes, alg, t_sp);
    }
  }
  csr_free(d);
  CK(cudaFree(xs));
  CK(cudaFree(ys));
  CK(cudaFree(yv));
  PK(pds_vec_destroy(&x));
  PK(pds_vec_destroy(&y));
}

// ---- CSR matrices of irregular row lengths ------------------------------------------------------------------------
// Each class is built on the host from a reproducible stream; rows of 7 are banded (offsets multiple of 97).
static unsigned long long g_lcg = 12345;
static unsigned long long lcg() { return g_lcg = g_lcg * 6364136223846793005ull + 1442695040888963407ull; }
static double             lcg_unit() { return (double)(lcg() >> 11) * 0x1.0p-53; } // [0, 1)
static void row7(int i, int n, std::vector<pds_int> &ci, std::vector<pds_real> &v) {
  for (int k = -3; k <= 3; k++) ci.push_back((pds_int)((i + k * 97 + 7LL * n) % n)), v.push_back(k ? -1.0 : 8.0);
}
// an n x n csr matrix whose row i row(i, ci, v) appends
template <class F> static pds_mat csr_rows(pds_ctx ctx, int n, F row) {
  std::vector<pds_size> rp(n + 1, 0);
  std::vector<pds_int>  ci;
  std::vector<pds_real> v;
  pds_mat               A;

  for (int i = 0; i < n; i++) {
    row(i, ci, v);
    rp[i + 1] = (pds_size)ci.size();
  }
  PK(pds_mat_create_csr(ctx, n, n, rp.data(), ci.data(), v.data(), PDS_MEM_HOST, PDS_COPY_VALUES, &A));
  return A;
}
static void row_random(long long len, int n, std::vector<pds_int> &ci, std::vector<pds_real> &v) {
  for (long long k = 0; k < len; k++) ci.push_back((pds_int)((lcg() >> 33) % n)), v.push_back(1e-3);
}
// irregular: banded rows of 7 entries, and every 1024th row with 4096 entries anywhere
static pds_mat irregular(pds_ctx ctx, int n) {
  return csr_rows(ctx, n, [n](int i, std::vector<pds_int> &ci, std::vector<pds_real> &v) {
    if (i % 1024 == 0) row_random(4096, n, ci, v);
    else row7(i, n, ci, v);
  });
}
// power law: Pareto lengths, P(len > l) = l^-1.2, at most 10^5 (a few dozen rows of 10^4 and more, most 1..10;
// mean 5.5), random columns
static pds_mat power_law(pds_ctx ctx, int n) {
  return csr_rows(ctx, n, [n](int, std::vector<pds_int> &ci, std::vector<pds_real> &v) {
    const double l = std::pow(1 - lcg_unit(), -1 / 1.2);

    row_random((long long)(l > 1e5 ? 1e5 : l), n, ci, v);
  });
}
// dense rows: 16 rows with every column (evenly spread), banded rows of 7 elsewhere
static pds_mat dense_rows(pds_ctx ctx, int n) {
  return csr_rows(ctx, n, [n](int i, std::vector<pds_int> &ci, std::vector<pds_real> &v) {
    if (i % (n / 16) == n / 32)
      for (int j = 0; j < n; j++) ci.push_back(j), v.push_back(1e-6);
    else row7(i, n, ci, v);
  });
}
// empty rows: three rows in four empty (at random), the others 8..24 entries (mean 16) near the diagonal
static pds_mat empty_rows(pds_ctx ctx, int n) {
  return csr_rows(ctx, n, [n](int i, std::vector<pds_int> &ci, std::vector<pds_real> &v) {
    if (lcg() >> 62 == 0)
      for (int k = 0, l = 8 + (int)((lcg() >> 33) % 17); k < l; k++)
        ci.push_back((pds_int)(((long long)i + 31 * k) % n)), v.push_back(k ? -1.0 : 16.0);
  });
}

// the kernel the library's plan picked for A, as -view prints it ("merge-path (nnz-balanced), ...")
static std::string plan_of(pds_mat A) {
  FILE       *f = tmpfile();
  char        text[2048] = "";
  const char *p;

  if (!f) return "?";
  PK(pds_mat_view(A, f));
  rewind(f);
  text[fread(text, 1, sizeof text - 1, f)] = 0;
  fclose(f);
  if (!(p = strstr(text, "cuda plan: "))) return "?";
  std::string s(p + strlen("cuda plan: "));
  return s.substr(0, s.find('\n'));
}

// The floor of any CSR product on a matrix's entries: each value and column index streamed once (evict-first, as the
// library's kernels stream them) and x gathered at the column through the read-only path, four independent chains a
// thread; no row ends are read and no y is written (one sum a thread is stored, so nothing is left out). Its time is
// what the entries' streams and the gathers cost on their own: where a product (the library's or cuSPARSE's) takes
// about this long, no kernel can beat it by much, whatever it does with the rows. Bytes: 12 nnz + the gathered
// sectors of x (at most 32 nnz: random columns touch a 32-byte sector for 8 bytes).
__global__ void gather_floor_k(const pds_int *__restrict__ ci, const double *__restrict__ v,
                               const double *__restrict__ x, pds_size nnz, double *__restrict__ out) {
  const pds_size st = (pds_size)gridDim.x * blockDim.x, t = (pds_size)blockIdx.x * blockDim.x + threadIdx.x;
  double         s = 0;

  for (pds_size k0 = t; k0 < nnz; k0 += 4 * st) {
    double a[4], g[4];

#pragma unroll
    for (int u = 0; u < 4; u++) {
      const pds_size k = k0 + u * st;

      a[u] = 0, g[u] = 0;
      if (k < nnz) a[u] = __ldcs(&v[k]), g[u] = __ldg(&x[__ldcs(&ci[k])]);
    }
#pragma unroll
    for (int u = 0; u < 4; u++) s += a[u] * g[u];
  }
  out[t] = s;
}
static double gather_floor(const CsrDev &d, pds_size nnz, const double *x) {
  int nsm = 0, dev = 0;

  CK(cudaGetDevice(&dev));
  CK(cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, dev));
  const unsigned nb  = (unsigned)nsm * 8; // 2048 threads an SM
  double        *out = dev_vec((pds_int)(nb * 256), 0);
  const double   t   = time_gpu([&] { gather_floor_k<<<nb, 256>>>(d.ci, d.v, x, nnz, out); });

  CK(cudaGetLastError());
  CK(cudaFree(out));
  return t;
}

// One irregular class: the library's rule (its plan in the label), the merge-path kernel forced, and the rule before
// merge-path (stream when every row has at most 64 entries, else lanes per row with row splitting), each validated
// against cuSPARSE (the better of CSR_ALG1 and ALG2) before it is reported.
static void bench_csr_class(pds_ctx ctx, pds_mat A, const std::string &name) {
  pds_vec         x, y;
  pds_int         n, nc;
  pds_size        nnz;
  const pds_size *hrp;
  const pds_int  *hci;
  const pds_real *hv;

  PK(pds_mat_get_size(A, &n, &nc));
  PK(pds_mat_get_nnz(A, &nnz));
  PK(pds_mat_csr_get_arrays(A, &hrp, &hci, &hv));
  PK(pds_vec_create(ctx, nc, &x));
  PK(pds_vec_create(ctx, n, &y));
  PK(pds_vec_set_random(x, 3));
  const double bytes = 12.0 * nnz + 8.0 * (n + 1) + 8.0 * nc + 8.0 * n;
  CsrDev       d     = csr_upload(A);
  double      *xs = dev_vec(nc, 3), *ys = dev_vec(n, 4), *yv = dev_vec(n, 5);
  CK(cudaMemcpy(xs, rd(x), (size_t)nc * 8, cudaMemcpyDeviceToDevice));
  const char  *alg   = "";
  const double t_sp  = cusparse_spmv(d, xs, ys, &alg);
  const double t_lib = time_gpu([&] { PK(pds_mat_apply(A, x, y)); });
  double       err   = max_rel_diff(rd(y), ys, n);
  REQUIRE(err <= 1e-12, "%s: library and cuSPARSE differ by %g", name.c_str(), err);
  const std::string plan  = plan_of(A); // the table's column is short: the kernel's name there, all of it in the note
  const std::string kname = plan.find("merge-path") != std::string::npos ? "merge-path"
                            : plan.find("stream") != std::string::npos   ? "stream"
                            : plan.find("splitting") != std::string::npos ? "lanes/row + splitting"
                                                                          : "lanes per row";
  report("csr", "/gpu/cuda", ("csr spmv (rule: " + kname + ")").c_str(), name, n, nnz, 1, t_lib, bytes, alg, t_sp,
         plan);
  { // the entries' floor (gather_floor_k), against both products
    const double t_fl = gather_floor(d, nnz, xs);
    char         note[160];

    snprintf(note, sizeof note, "entries streamed + x gathered only; library / floor %.3f, cuSPARSE / floor %.3f",
             t_lib / t_fl, t_sp / t_fl);
    report("csr", "/gpu/cuda", "csr floor: entries + gathers only", name, n, nnz, 1, t_fl, bytes, alg, t_sp, note);
  }
  // forced merge-path
  pds_cuda_csr_plan pm = {};
  pm.merge = 1, pm.ncta = (int)PDS_CUDA_MERGE_CTAS(n, nnz);
  CK(cudaMalloc(&pm.coord, (pm.ncta + 1) * sizeof *pm.coord));
  CK(cudaMalloc(&pm.carry, 2 * (size_t)pm.ncta * sizeof *pm.carry));
  CK(pds_cuda_csr_merge_setup(0, &pm, n, nnz, d.rp64));
  double t = time_gpu([&] { CK(pds_cuda_csr_spmv(0, &pm, n, d.rp64, d.ci, d.v, NULL, 1.0, xs, 0.0, yv)); });
  err = max_rel_diff(yv, ys, n);
  REQUIRE(err <= 1e-12, "%s, merge-path: differs from cuSPARSE by %g", name.c_str(), err);
  report("csr", "/gpu/cuda", "csr variant: merge-path (forced)", name, n, nnz, 1, t, bytes, alg, t_sp);
  CK(cudaFree(pm.coord));
  CK(cudaFree(pm.carry));
  // the rule before merge-path
  pds_cuda_csr_plan po = {};
  std::vector<int>  lr;
  po.stream = d.maxrow <= PDS_CUDA_STREAM_MAXROW && n >= PDS_CUDA_STREAM_MINROWS;
  po.width = pds_cuda_lanes_per_row((double)nnz / n), po.long_len = std::max<pds_size>(256, 64 * po.width);
  for (int i = 0; i < n && !po.stream; i++)
    if (hrp[i + 1] - hrp[i] > po.long_len) lr.push_back(i);
  po.nlong = (int)lr.size();
  if (po.nlong) {
    po.seg  = std::max<pds_size>(4096, ((d.maxrow + 63) / 64 + 255) / 256 * 256);
    po.nseg = (int)((d.maxrow + po.seg - 1) / po.seg);
    po.long_rows = dev_copy(lr.data(), lr.size());
    CK(cudaMalloc(&po.partial, (size_t)po.nlong * po.nseg * sizeof(double)));
  }
  t   = time_gpu([&] { CK(pds_cuda_csr_spmv(0, &po, n, d.rp64, d.ci, d.v, NULL, 1.0, xs, 0.0, yv)); });
  err = max_rel_diff(yv, ys, n);
  REQUIRE(err <= 1e-12, "%s, rule before merge-path: differs from cuSPARSE by %g", name.c_str(), err);
  report("csr", "/gpu/cuda", "csr variant: rule before merge-path", name, n, nnz, 1, t, bytes, alg, t_sp,
         po.stream ? "stream" : std::to_string(po.width) + " lanes per row" + (po.nlong ? " + row splitting" : ""));
  CK(cudaFree(po.long_rows));
  CK(cudaFree(po.partial));
  csr_free(d);
  CK(cudaFree(xs));
  CK(cudaFree(ys));
  CK(cudaFree(yv));
  PK(pds_vec_destroy(&x));
  PK(pds_vec_destroy(&y));
  PK(pds_mat_destroy(&A));
}

// ---- BSR: 7-point block pattern on m^3 cells ----------------------------------------------------------------------
static pds_mat block7(pds_ctx ctx, int m, int bs) {
  long long             nb = (long long)m * m * m, bb = (long long)bs * bs;
  std::vector<pds_size> rp;
  std::vector<pds_int>  ci;
  stencil7_pattern(m, rp, ci);
  std::vector<pds_real> v(ci.size() * bb);
  unsigned long long    s = 99;
  for (long long c = 0; c < nb; c++)
    for (pds_size q = rp[c]; q < rp[c + 1]; q++)
      for (int e = 0; e < bb; e++) {
        s         = s * 6364136223846793005ull + 1442695040888963407ull;
        double r  = (double)(s >> 11) * 0x1.0p-53 - 0.5;
        v[q * bb + e] = ci[q] == c && e % (bs + 1) == 0 ? 10.0 + r : r;
      }
  pds_mat A;

  PK(pds_mat_create_bsr(ctx, (pds_int)nb, (pds_int)nb, bs, rp.data(), ci.data(), v.data(), PDS_MEM_HOST,
                        PDS_COPY_VALUES, &A));
  return A;
}

static void bench_bsr(pds_ctx ctx, int m, int bs) {
  pds_mat         A = block7(ctx, m, bs);
  const pds_size *rp;
  const pds_int  *ci;
  const pds_real *v;
  pds_int         n, nc;
  pds_vec         x, y;

  PK(pds_mat_bsr_get_arrays(A, &rp, &ci, &v));
  PK(pds_mat_get_size(A, &n, &nc));
  long long nb = n / bs, nnzb = rp[nb], bb = (long long)bs * bs;
  double    bytes = nnzb * (8.0 * bb + 4) + 8.0 * (nb + 1) + 16.0 * n;
  PK(pds_vec_create(ctx, n, &x));
  PK(pds_vec_create(ctx, n, &y));
  PK(pds_vec_set_random(x, 3));
  std::string name = std::to_string(m) + "^3 cells";
  double      t_lib = time_gpu([&] { PK(pds_mat_apply(A, x, y)); });
  // the same data for the layouts and cuSPARSE
  std::vector<int> rp32(nb + 1);
  for (long long i = 0; i <= nb; i++) rp32[i] = (int)rp[i];
  int       *drp32 = dev_copy(rp32.data(), nb + 1);
  pds_size  *drp64 = dev_copy(rp, nb + 1);
  int       *dci   = dev_copy(ci, nnzb);
  double    *dv[3];
  dv[0] = dev_copy(v, nnzb * bb);
  for (int l = 1; l < 3; l++) {
    CK(cudaMalloc(&dv[l], nnzb * bb * 8));
    relayout_k<<<(unsigned)((nnzb * bb + 255) / 256), 256>>>(nnzb, bs, l, dv[0], dv[l]);
    CK(cudaGetLastError());
  }
  double *xs = dev_vec(n, 3), *ys = dev_vec(n, 4), *yc = dev_vec(n, 5);
  CK(cudaMemcpy(xs, rd(x), (size_t)n * 8, cudaMemcpyDeviceToDevice));
  cusparseMatDescr_t descr;
  CKS(cusparseCreateMatDescr(&descr));
  double one = 1, zero = 0, tsp[2];
  for (int dir = 0; dir < 2; dir++) {
    const double *vals = dir ? dv[1] : dv[0];
    cusparseDirection_t dr = dir ? CUSPARSE_DIRECTION_COLUMN : CUSPARSE_DIRECTION_ROW;

    tsp[dir] = time_gpu([&] {
      CKS(cusparseDbsrmv(g_sp, dr, CUSPARSE_OPERATION_NON_TRANSPOSE, (int)nb, (int)nb, (int)nnzb, &one, descr, vals,
                         drp32, dci, bs, xs, &zero, dir ? yc : ys));
    });
  }
  double err = std::max(max_rel_diff(rd(y), ys, n), max_rel_diff(yc, ys, n));
  REQUIRE(err <= 1e-12, "bsr bs %d: library and cuSPARSE differ by %g", bs, err);
  double tbest = std::min(tsp[0], tsp[1]);
  const char *pbest = tsp[1] < tsp[0] ? "cuSPARSE bsrmv (column-major)" : "cuSPARSE bsrmv (row-major)";
  report("bsr", "/gpu/cuda", "bsr spmv (library, row-major)", name, n, nnzb * bb, bs, t_lib, bytes, pbest, tbest);
  // the layout study: each kernel of cuda_bsr.cu on row-major, column-major and element-interleaved blocks where it
  // applies (vec: even bs, not interleaved; pipe with 64 threads: row-major)
  const struct {
    int         ker;
    const char *name;
  } kers[] = {{PDS_CUDA_BSR_VEC, "vec"}, {PDS_CUDA_BSR_PIPE_64, "pipe (64 threads)"}, {PDS_CUDA_BSR_PIPE, "pipe"},
               {PDS_CUDA_BSR_LANE, "lane"}};
  const char *lay_name[3] = {"row-major", "column-major", "interleaved"};
  for (const auto &K : kers)
    for (int l = 0; l < 3; l++) {
      cudaError_t e = pds_cuda_bsr_spmv(0, l, K.ker, (pds_int)nb, bs, nnzb, drp64, dci, dv[l], 1.0, xs, 0.0, yc);
      if (e == cudaErrorNotSupported) {
        (void)cudaGetLastError();
        continue;
      }
      CK(e);
      double t = time_gpu([&] {
        CK(pds_cuda_bsr_spmv(0, l, K.ker, (pds_int)nb, bs, nnzb, drp64, dci, dv[l], 1.0, xs, 0.0, yc));
      });
      err = max_rel_diff(yc, ys, n);
      REQUIRE(err <= 1e-12, "bsr %s layout %d bs %d: %g", K.name, l, bs, err);
      const std::string kn = std::string("bsr ") + lay_name[l] + ", " + K.name + " kernel";
      report("bsr", "/gpu/cuda", kn.c_str(), name, n, nnzb * bb, bs, t, bytes,
             l == 1 ? "cuSPARSE bsrmv (column-major)" : "cuSPARSE bsrmv (row-major)", l == 1 ? tsp[1] : tsp[0]);
    }
  report("bsr", "cuSPARSE", "cusparseDbsrmv row-major", name, n, nnzb * bb, bs, tsp[0], bytes, NULL, 0, "", false);
  report("bsr", "cuSPARSE", "cusparseDbsrmv column-major", name, n, nnzb * bb, bs, tsp[1], bytes, NULL, 0, "", false);
  CKS(cusparseDestroyMatDescr(descr));
  for (int l = 0; l < 3; l++) CK(cudaFree(dv[l]));
  CK(cudaFree(drp32));
  CK(cudaFree(drp64));
  CK(cudaFree(dci));
  CK(cudaFree(xs));
  CK(cudaFree(ys));
  CK(cudaFree(yc));
  PK(pds_vec_destroy(&x));
  PK(pds_vec_destroy(&y));
  PK(pds_mat_destroy(&A));
}

// ---- Krylov solvers ---------------------------------------------------------------------------------------------
// seconds per iteration of a whole solve of iters iterations from x = 0 (setup excluded; the solve's start, its first
// iteration on the host and the recording of the device loop included); dloop 0: the host in the loop
static double solve_per_iter(pds_ctx ctx, pds_mat A, pds_vec b, const char *type, int iters, bool gpu, int dloop = 1) {
  pds_solver        s;
  pds_vec           x;
  pds_solver_result r;

  PK(pds_solver_create(ctx, type, &s));
  PK(pds_solver_set_device_loop(s, dloop));
  PK(pds_solver_set_operator(s, A));
  PK(pds_vec_duplicate(b, &x));
  PK(pds_solver_set_tolerances(s, 0.0, 0.0, 3)); // setup and a warm-up
  PK(pds_vec_set(x, 0.0));
  PK(pds_solver_solve(s, b, x));
  PK(pds_solver_set_tolerances(s, 0.0, 0.0, iters));
  std::vector<double> t;
  for (int rep = 0; rep < (gpu ? 5 : 3); rep++) {
    PK(pds_vec_set(x, 0.0));
    if (gpu) CK(cudaDeviceSynchronize());
    double t0 = pds_wtime();
    PK(pds_solver_solve(s, b, x));
    if (gpu) CK(cudaDeviceSynchronize());
    t.push_back(pds_wtime() - t0);
    PK(pds_solver_get_result(s, &r));
    REQUIRE(r.iterations == iters && r.rnorm < r.rnorm0, "%s: %d iterations, rnorm %g (rnorm0 %g)", type,
            r.iterations, r.rnorm, r.rnorm0);
  }
  PK(pds_vec_destroy(&x));
  PK(pds_solver_destroy(&s));
  return median(t) / iters;
}

// CG as a cuSPARSE + cuBLAS user writes it (no preconditioner; dots to the host)
static double peer_cg(const CsrDev &d, const double *b, int iters, double *rr_out) {
  long long n = d.n;
  double   *x, *r, *p, *q, one = 1, zero = 0;
  CK(cudaMalloc(&x, n * 8));
  CK(cudaMalloc(&r, n * 8));
  CK(cudaMalloc(&p, n * 8));
  CK(cudaMalloc(&q, n * 8));
  cusparseSpMatDescr_t A;
  cusparseDnVecDescr_t vp, vq;
  size_t               bs;
  void                *buf;
  CKS(cusparseCreateCsr(&A, d.n, d.ncols, d.nnz, d.rp32, d.ci, d.v, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                        CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  CKS(cusparseCreateDnVec(&vp, n, p, CUDA_R_64F));
  CKS(cusparseCreateDnVec(&vq, n, q, CUDA_R_64F));
  CKS(cusparseSpMV_bufferSize(g_sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vp, &zero, vq, CUDA_R_64F,
                              CUSPARSE_SPMV_ALG_DEFAULT, &bs));
  CK(cudaMalloc(&buf, bs + 8));
  auto run = [&](int its) {
    double rz, pq, rz_old;
    CK(cudaMemsetAsync(x, 0, n * 8, 0));
    CK(cudaMemcpyAsync(r, b, n * 8, cudaMemcpyDeviceToDevice, 0));
    CK(cudaMemcpyAsync(p, b, n * 8, cudaMemcpyDeviceToDevice, 0));
    CKB(cublasDdot(g_bl, (int)n, r, 1, r, 1, &rz));
    for (int it = 0; it < its; it++) {
      CKS(cusparseSpMV(g_sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vp, &zero, vq, CUDA_R_64F,
                       CUSPARSE_SPMV_ALG_DEFAULT, buf));
      CKB(cublasDdot(g_bl, (int)n, p, 1, q, 1, &pq));
      double alpha = rz / pq, malpha = -alpha;
      CKB(cublasDaxpy(g_bl, (int)n, &alpha, p, 1, x, 1));
      CKB(cublasDaxpy(g_bl, (int)n, &malpha, q, 1, r, 1));
      rz_old = rz;
      CKB(cublasDdot(g_bl, (int)n, r, 1, r, 1, &rz));
      double beta = rz / rz_old;
      CKB(cublasDscal(g_bl, (int)n, &beta, p, 1));
      CKB(cublasDaxpy(g_bl, (int)n, &one, r, 1, p, 1));
    }
    *rr_out = rz;
  };
  run(3);
  double t = time_host([&] { run(iters); }, 5, true) / iters;
  CKS(cusparseDestroySpMat(A));
  CKS(cusparseDestroyDnVec(vp));
  CKS(cusparseDestroyDnVec(vq));
  CK(cudaFree(buf));
  CK(cudaFree(x));
  CK(cudaFree(r));
  CK(cudaFree(p));
  CK(cudaFree(q));
  return t;
}

// BiCGSTAB as a cuSPARSE + cuBLAS user writes it
static double peer_bicgstab(const CsrDev &d, const double *b, int iters) {
  long long n = d.n;
  double   *x, *r, *rh, *p, *v, *s, *t, one = 1, zero = 0;
  for (double **a : {&x, &r, &rh, &p, &v, &s, &t}) CK(cudaMalloc(a, n * 8));
  cusparseSpMatDescr_t A;
  cusparseDnVecDescr_t vp, vv, vs, vt;
  size_t               bs;
  void                *buf;
  CKS(cusparseCreateCsr(&A, d.n, d.ncols, d.nnz, d.rp32, d.ci, d.v, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                        CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  CKS(cusparseCreateDnVec(&vp, n, p, CUDA_R_64F));
  CKS(cusparseCreateDnVec(&vv, n, v, CUDA_R_64F));
  CKS(cusparseCreateDnVec(&vs, n, s, CUDA_R_64F));
  CKS(cusparseCreateDnVec(&vt, n, t, CUDA_R_64F));
  CKS(cusparseSpMV_bufferSize(g_sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vp, &zero, vv, CUDA_R_64F,
                              CUSPARSE_SPMV_ALG_DEFAULT, &bs));
  CK(cudaMalloc(&buf, bs + 8));
  auto run = [&](int its) {
    double rho = 1, rho_old = 1, alpha = 1, omega = 1, rv, ts, tt, nrm;
    CK(cudaMemsetAsync(x, 0, n * 8, 0));
    CK(cudaMemsetAsync(p, 0, n * 8, 0));
    CK(cudaMemsetAsync(v, 0, n * 8, 0));
    CK(cudaMemcpyAsync(r, b, n * 8, cudaMemcpyDeviceToDevice, 0));
    CK(cudaMemcpyAsync(rh, b, n * 8, cudaMemcpyDeviceToDevice, 0));
    for (int it = 0; it < its; it++) {
      rho_old = rho;
      CKB(cublasDdot(g_bl, (int)n, rh, 1, r, 1, &rho));
      double beta = (rho / rho_old) * (alpha / omega), mo = -omega;
      CKB(cublasDaxpy(g_bl, (int)n, &mo, v, 1, p, 1));
      CKB(cublasDscal(g_bl, (int)n, &beta, p, 1));
      CKB(cublasDaxpy(g_bl, (int)n, &one, r, 1, p, 1));
      CKS(cusparseSpMV(g_sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vp, &zero, vv, CUDA_R_64F,
                       CUSPARSE_SPMV_ALG_DEFAULT, buf));
      CKB(cublasDdot(g_bl, (int)n, rh, 1, v, 1, &rv));
      alpha = rho / rv;
      double ma = -alpha;
      CKB(cublasDcopy(g_bl, (int)n, r, 1, s, 1));
      CKB(cublasDaxpy(g_bl, (int)n, &ma, v, 1, s, 1));
      CKB(cublasDnrm2(g_bl, (int)n, s, 1, &nrm));
      CKS(cusparseSpMV(g_sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vs, &zero, vt, CUDA_R_64F,
                       CUSPARSE_SPMV_ALG_DEFAULT, buf));
      CKB(cublasDdot(g_bl, (int)n, t, 1, s, 1, &ts));
      CKB(cublasDdot(g_bl, (int)n, t, 1, t, 1, &tt));
      omega = ts / tt;
      CKB(cublasDaxpy(g_bl, (int)n, &alpha, p, 1, x, 1));
      CKB(cublasDaxpy(g_bl, (int)n, &omega, s, 1, x, 1));
      mo = -omega;
      CKB(cublasDcopy(g_bl, (int)n, s, 1, r, 1));
      CKB(cublasDaxpy(g_bl, (int)n, &mo, t, 1, r, 1));
      CKB(cublasDnrm2(g_bl, (int)n, r, 1, &nrm));
    }
  };
  run(3);
  double tm = time_host([&] { run(iters); }, 5, true) / iters;
  CKS(cusparseDestroySpMat(A));
  for (auto dv : {vp, vv, vs, vt}) CKS(cusparseDestroyDnVec(dv));
  CK(cudaFree(buf));
  for (double *a : {x, r, rh, p, v, s, t}) CK(cudaFree(a));
  return tm;
}

static void bench_solvers(pds_ctx ctx, pds_mat A, pds_vec b, const std::string &name, bool gpu, int iters) {
  const char *be = gpu ? "/gpu/cuda" : "/cpu/omp";
  pds_int     n, nc;
  pds_size    nnz;

  PK(pds_mat_get_size(A, &n, &nc));
  PK(pds_mat_get_nnz(A, &nnz));
  double cg_floor = 12.0 * nnz + 8.0 * (n + 1) + 80.0 * n, cg_lib = cg_floor;
  double bi_floor = 24.0 * nnz + 16.0 * (n + 1) + 152.0 * n, bi_lib = bi_floor;
  double bw = gpu ? g_copy_bw : g_cpu_copy_bw;
  char   note[200];

  double t_cg = solve_per_iter(ctx, A, b, "cg", iters, gpu);
  double t_bi = solve_per_iter(ctx, A, b, "bicgstab", iters, gpu);
  double tp_cg = 0, tp_bi = 0, th_cg = 0, th_bi = 0, ts_cg = 0, ts_bi = 0;
  if (gpu) {
    CsrDev d = csr_upload(A);
    double rr;

    tp_cg = peer_cg(d, rd(b), iters, &rr);
    REQUIRE(std::isfinite(rr), "peer CG diverged");
    tp_bi = peer_bicgstab(d, rd(b), iters);
    csr_free(d);
    th_cg = solve_per_iter(ctx, A, b, "cg", iters, gpu, 0); // the host in the loop: one copy per iteration
    th_bi = solve_per_iter(ctx, A, b, "bicgstab", iters, gpu, 0);
    { // the same matrix and right-hand side in the sequence's context
      const pds_size     *rp;
      const pds_int      *ci;
      const pds_real     *v;
      std::vector<double> bh(n);
      pds_mat             As;
      pds_vec             bs;

      PK(pds_mat_csr_get_arrays(A, &rp, &ci, &v));
      PK(pds_mat_create_csr(g_seq_ctx, n, nc, (pds_size *)rp, (pds_int *)ci, (pds_real *)v, PDS_MEM_HOST,
                            PDS_COPY_VALUES, &As));
      PK(pds_vec_get_values(b, bh.data(), PDS_MEM_HOST));
      PK(pds_vec_create(g_seq_ctx, n, &bs));
      PK(pds_vec_set_values(bs, bh.data(), PDS_MEM_HOST));
      ts_cg = solve_per_iter(g_seq_ctx, As, bs, "cg", iters, gpu);
      ts_bi = solve_per_iter(g_seq_ctx, As, bs, "bicgstab", iters, gpu);
      PK(pds_mat_destroy(&As));
      PK(pds_vec_destroy(&bs));
    }
  }
  snprintf(note, sizeof note, "per iteration; floor %.1f us (fused-CG bytes %.3g / copy bw); time/floor %.3f",
           1e6 * cg_floor / bw, cg_floor, t_cg / (cg_floor / bw));
  report("solver", be, "cg (no pc), per iteration", name, n, nnz, 1, t_cg, cg_lib,
         gpu ? "CG with cuSPARSE SpMV + cuBLAS" : NULL, tp_cg, note);
  g_rows.back().extra = t_cg / (cg_floor / bw);
  if (gpu) {
    snprintf(note, sizeof note, "per iteration, host loop (-device_loop 0); time/floor %.3f", th_cg / (cg_floor / bw));
    report("solver", be, "cg host loop, per iteration", name, n, nnz, 1, th_cg, cg_lib, "pdesolve's device loop",
           t_cg, note);
    g_rows.back().extra = th_cg / (cg_floor / bw);
    snprintf(note, sizeof note, "per iteration, the kernel sequence (PDS_CUDA_SMALL=0); time/floor %.3f",
             ts_cg / (cg_floor / bw));
    report("solver", be, "cg kernel sequence, per iteration", name, n, nnz, 1, ts_cg, cg_lib,
           "pdesolve's whole-iteration kernel", t_cg, note);
    g_rows.back().extra = ts_cg / (cg_floor / bw);
  }
  snprintf(note, sizeof note, "per iteration; floor %.1f us (fused-BiCGSTAB bytes %.3g / copy bw); time/floor %.3f",
           1e6 * bi_floor / bw, bi_floor, t_bi / (bi_floor / bw));
  report("solver", be, "bicgstab (no pc), per iteration", name, n, nnz, 1, t_bi, bi_lib,
         gpu ? "BiCGSTAB with cuSPARSE SpMV + cuBLAS" : NULL, tp_bi, note);
  g_rows.back().extra = t_bi / (bi_floor / bw);
  if (gpu) {
    snprintf(note, sizeof note, "per iteration, host loop (-device_loop 0); time/floor %.3f", th_bi / (bi_floor / bw));
    report("solver", be, "bicgstab host loop, per iteration", name, n, nnz, 1, th_bi, bi_lib,
           "pdesolve's device loop", t_bi, note);
    g_rows.back().extra = th_bi / (bi_floor / bw);
    snprintf(note, sizeof note, "per iteration, the kernel sequence (PDS_CUDA_SMALL=0); time/floor %.3f",
             ts_bi / (bi_floor / bw));
    report("solver", be, "bicgstab kernel sequence, per iteration", name, n, nnz, 1, ts_bi, bi_lib,
           "pdesolve's whole-iteration kernel", t_bi, note);
    g_rows.back().extra = ts_bi / (bi_floor / bw);
  }
}

static void print_table(void) {
  printf("\n%-6s %-4s %-40s %-20s %2s %9s %6s %6s %-28s %6s\n", "sec", "be", "kernel", "size", "bs", "t (us)", "GB/s",
         "%copy", "peer", "peer/t");
  for (const Row &r : g_rows) {
    char        frac[16] = "", ratio[16] = "";
    const char *be = r.be == "/gpu/cuda" ? "gpu" : r.be == "/cpu/omp" ? "omp" : "peer";

    if (r.frac > 0) snprintf(frac, sizeof frac, "%5.1f", 100 * r.frac);
    if (r.ratio > 0) snprintf(ratio, sizeof ratio, "%5.2fx", r.ratio);
    printf("%-6s %-4s %-40.40s %-20.20s %2d %9.1f %6.0f %6s %-28.28s %6s", r.sec.c_str(), be, r.kernel.c_str(),
           r.size.c_str(), r.bs, 1e6 * r.t, r.gbs, frac, r.peer.c_str(), ratio);
    if (r.extra > 0) printf(" floor x%.2f", r.extra);
    printf("\n");
  }
  printf("copy bandwidth: GPU %.0f GB/s, /cpu/omp %.0f GB/s (%%copy: against the backend's own; peer/t: peer time over"
         " ours)\n", 1e-9 * g_copy_bw, 1e-9 * g_cpu_copy_bw);
}

int main(int argc, char **argv) {
  const char *shared = NULL, *json = NULL;
  bool        small = false, cpu = true, gpu = true, classes_only = false;

  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-shared") && i + 1 < argc) shared = argv[++i];
    else if (!strcmp(argv[i], "-json") && i + 1 < argc) json = argv[++i];
    else if (!strcmp(argv[i], "-small")) small = true;
    else if (!strcmp(argv[i], "-skip-cpu")) cpu = false;
    else if (!strcmp(argv[i], "-cpu-only")) gpu = false; // checks the /cpu/omp half where there is no GPU
    else if (!strcmp(argv[i], "-classes-only")) classes_only = true, cpu = false; // the irregular CSR classes alone
    else {
      fprintf(stderr, "usage: bench_gpu [-shared DIR] [-small] [-skip-cpu] [-classes-only] [-json FILE]\n");
      return 1;
    }
  }
  if (json && !(g_json = fopen(json, "w"))) {
    perror(json);
    return 1;
  }
  if (small) g_reps = 3, g_warm = 1;
  if (gpu) {
    int         ndev = 0;
    cudaError_t e    = cudaGetDeviceCount(&ndev);

    if (e != cudaSuccess || ndev == 0) { // make bench runs every benchmark: say so and succeed
      printf("bench_gpu: no CUDA device here (%s); nothing measured (-cpu-only runs the /cpu/omp half)\n",
             e != cudaSuccess ? cudaGetErrorString(e) : "none found");
      return 0;
    }
  }
  const long long nvec = small ? (1 << 20) : (1 << 25);
  const int       big = small ? 32 : 256, mid = small ? 24 : 128, cells = small ? 12 : 100;
  const int       iters = small ? 5 : 40;
  if (gpu) {
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  printf("device: %s, %d SMs, %.0f MB L2, %.1f GB\n", prop.name, prop.multiProcessorCount, prop.l2CacheSize / 1e6,
         prop.totalGlobalMem / 1e9);
  CKS(cusparseCreate(&g_sp));
  CKB(cublasCreate(&g_bl));
  CK(cudaMalloc(&g_dscal, 8 * sizeof(double)));

  bench_copy(small ? (1 << 22) : (1 << 26));
  pds_ctx ctx;
  PK(pds_ctx_create("/gpu/cuda", &ctx));
  g_err_ctx = ctx;
  setenv("PDS_CUDA_SMALL", "0", 1);
  PK(pds_ctx_create("/gpu/cuda", &g_seq_ctx));
  unsetenv("PDS_CUDA_SMALL");
  if (!classes_only) {
    bench_vectors(ctx, nvec, true);
    for (int m : {small ? 16 : 64, mid, big}) { // 64^3: a solve where the fixed cost of an iteration shows
      pds_problem p;
      pds_int     dims[3] = {m, m, m};

      PK(pds_problem_generate(ctx, "poisson7", dims, 3, &p));
      if (m != (small ? 16 : 64)) bench_csr_matrix(ctx, p.A, "poisson7 " + std::to_string(m) + "^3", true, NULL);
      if (m != mid) bench_solvers(ctx, p.A, p.b, "poisson7 " + std::to_string(m) + "^3", true, m == big ? iters : 200);
      PK(pds_problem_destroy(&p));
    }
    if (shared) {
      const char *names[] = {"s1rmq4m1.mtx", "e20r0000.mtx", "bcsstk13.mtx", "crystm01.mtx"};

      for (const char *nm : names) {
        std::string path = std::string(shared) + "/matrices/" + nm;
        FILE       *f    = fopen(path.c_str(), "r");
        pds_mat     A;

        if (!f) continue;
        fclose(f);
        PK(pds_mm_read_mat(ctx, path.c_str(), &A));
        bench_csr_matrix(ctx, A, nm, false, NULL);
        PK(pds_mat_destroy(&A));
      }
    }
  }
  { // irregular row lengths: 2^21 rows (2^20 for dense rows), 8-23M entries; -small: 1/32 of that
    const int n = small ? (1 << 16) : (1 << 21);

    bench_csr_class(ctx, irregular(ctx, n), "irregular " + std::to_string(n) + " (1/1024 rows of 4096)");
    bench_csr_class(ctx, power_law(ctx, n), "power law " + std::to_string(n) + " (Pareto 1.2, <= 1e5)");
    bench_csr_class(ctx, dense_rows(ctx, n / 2), "dense rows " + std::to_string(n / 2) + " (16 of all columns)");
    bench_csr_class(ctx, empty_rows(ctx, n), "empty rows " + std::to_string(n) + " (3/4 empty, 8..24)");
  }
  if (!classes_only) {
    for (int bs : {4, 5, 6}) bench_bsr(ctx, cells, bs);
    if (!small)
      for (int bs : {2, 3, 8}) bench_bsr(ctx, 64, bs);
  }
  PK(pds_ctx_destroy(&g_seq_ctx));
  PK(pds_ctx_destroy(&ctx));
  CKS(cusparseDestroy(g_sp));
  CKB(cublasDestroy(g_bl));
  } // gpu

  if (cpu) { // the same on /cpu/omp
    pds_ctx c;

    g_reps = small ? 3 : 5;
    g_warm = 1;
    PK(pds_ctx_create("/cpu/omp", &c));
    g_err_ctx = c;
    printf("/cpu/omp: %d threads\n", pds_ctx_get_num_threads(c));
    bench_vectors(c, nvec, false);
    for (int m : {mid, big}) {
      pds_problem p;
      pds_int     dims[3] = {m, m, m};

      PK(pds_problem_generate(c, "poisson7", dims, 3, &p));
      pds_vec x, y;
      pds_int n, nc;
      pds_size nnz;
      PK(pds_mat_get_size(p.A, &n, &nc));
      PK(pds_mat_get_nnz(p.A, &nnz));
      PK(pds_vec_create(c, n, &x));
      PK(pds_vec_create(c, n, &y));
      PK(pds_vec_set_random(x, 3));
      double t = time_host([&] { PK(pds_mat_apply(p.A, x, y)); });
      report("csr", "/cpu/omp", "csr spmv", "poisson7 " + std::to_string(m) + "^3", n, nnz, 1, t,
             12.0 * nnz + 8.0 * (n + 1) + 16.0 * n, NULL, 0);
      if (m == big) bench_solvers(c, p.A, p.b, "poisson7 " + std::to_string(m) + "^3", false, small ? 3 : 10);
      PK(pds_vec_destroy(&x));
      PK(pds_vec_destroy(&y));
      PK(pds_problem_destroy(&p));
    }
    for (int bs : {4, 5, 6}) {
      pds_mat A = block7(c, cells, bs);
      pds_vec x, y;
      pds_int n, nc;
      pds_size nnz;
      PK(pds_mat_get_size(A, &n, &nc));
      PK(pds_mat_get_nnz(A, &nnz));
      PK(pds_vec_create(c, n, &x));
      PK(pds_vec_create(c, n, &y));
      PK(pds_vec_set_random(x, 3));
      double t = time_host([&] { PK(pds_mat_apply(A, x, y)); });
      long long nnzb = nnz / bs / bs;
      report("bsr", "/cpu/omp", "bsr spmv", std::to_string(cells) + "^3 cells", n, nnz, bs, t,
             nnzb * (8.0 * bs * bs + 4) + 8.0 * (n / bs + 1) + 16.0 * n, NULL, 0);
      PK(pds_vec_destroy(&x));
      PK(pds_vec_destroy(&y));
      PK(pds_mat_destroy(&A));
    }
    PK(pds_ctx_destroy(&c));
  }
  print_table();
  // GPU / CPU ratios on the same problems
  printf("\nGPU (/gpu/cuda) vs /cpu/omp, same problems (time ratio cpu/gpu):\n");
  for (const Row &g : g_rows)
    if (g.be == "/gpu/cuda")
      for (const Row &c : g_rows)
        if (c.be == "/cpu/omp" && c.sec == g.sec && c.size == g.size && c.bs == g.bs &&
            (c.kernel == g.kernel || (g.kernel.rfind(c.kernel, 0) == 0 && g.kernel.find("library") != std::string::npos)))
          printf("  %-6s %-40.40s %-20.20s %2d gpu %9.1f us  omp %10.1f us  omp/gpu %6.1fx\n", g.sec.c_str(),
                 g.kernel.c_str(), g.size.c_str(), g.bs, 1e6 * g.t, 1e6 * c.t, c.t / g.t);
  if (g_json) fclose(g_json);
  return 0;
}
