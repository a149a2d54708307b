// bench/gpu/bench_fem2d_gpu.cu: paper 004 (FEM Poisson, P1 triangles, BiCGSTAB) on /gpu/cuda against /cpu/ref (one
// core) and /cpu/omp (all cores), with the paper's own CUDA SpMV kernels and cuSPARSE as peers, in one run on the
// paper's six grid sizes (unit-square meshes from pds_mesh_generate, about 107 ... 1694081 nodes; problem "paper":
// -lap u = 10, u = 10 on the boundary, Dirichlet rows as the paper).
//
//   bench_fem2d_gpu [-nodes 107,452,46068,106377,424129,1694081] [-reps 20] [-warmup 3] [-cpu_iters 30]
//                   [-cpu_solve_max_s 10] [-skip_cpu_solve_above 0] [-sweep_above 400000] [-rcm_above 40000]
//                   [-atol 1e-6] [-maxit 200000] [-help]
//
// Per grid: validation first (the /gpu/cuda matrix and right-hand side are bitwise /cpu/ref's; every SpMV variant
// agrees with ref's product to 1e-12 relative; BiCGSTAB converges), then
//   spmv       y = A x: the paper's one-kernel and two-kernel CSR (section 6.1, launch style blocksPerGrid x
//              threadsPerBlock: Table 8.1's values and the best of a coarse sweep), pdesolve (pds_mat_apply; and every
//              plan of pds_cuda_csr_spmv forced, against the rule's choice), cuSPARSE SpMV, /cpu/ref, /cpu/omp; and a
//              diagnostic: thread per row with and without the library's load hints (spmv_diag);
//   rcm        the same product (pdesolve, cuSPARSE) on the generator's numbering, on RCM (pds_mesh_reorder_rcm) and
//              on a random numbering;
//   assembly   the element and gather kernels on device-resident maps (auto launch configuration and a sweep), and
//              the whole pds_fem2d_assemble (first call with the maps' upload, repeat) on each backend;
//   bicgstab   no preconditioner, ||r||_2 <= atol (1e-6, the paper's test): /gpu/cuda to convergence; /cpu/ref and
//              /cpu/omp per iteration over -cpu_iters iterations, and to convergence when that takes under
//              -cpu_solve_max_s; BiCGSTAB speedups are ratios of time per iteration;
//   whole      the paper's fig 7.5: mesh generation (host, measured once, the same for every backend) + fem2d_create
//              + first assembly (with the transfer on the GPU) + solve + solution to the host. A CPU solve that would
//              take longer than -cpu_solve_max_s is its time per iteration x its iteration count to convergence
//              measured on the GPU (fields *_extrapolated).
// Device times: CUDA events around BATCH back-to-back calls (median of -reps after -warmup, gpu_event_median; see
// time_gpu); whole API calls:
// the wall clock with a device synchronize after. Output: one JSON object per line on stdout (bench, machine, gpu,
// grid, n, nnz, case, time_s, gbs, frac_copy, ...), the log with timestamps and the closing markdown tables on
// stderr. bench/scripts/plot_fem2d.py turns the JSON lines into the paper's figures 7.3-7.5 and tables.
//
// Byte models (8-byte reals and row pointers, 4-byte column indices; n rows, nnz entries, t triangles):
//   SpMV y = A x (cuda_csr.cu's model; every variant is given the same useful bytes, so GB/s compares times):
//     12 nnz + 8 (n+1) + 8 n (x) + 8 n (y); 2 nnz flops. The paper's two-kernel variant also writes and reads
//     the product array c: 16 nnz more (its "gbs_actual"). cuSPARSE with 32-bit row offsets reads 4 (n+1) less.
//   assembly (src/disc/fem2d.c's header comment):
//     element phase  t (12 tri + 48 xy + 72 Ke/fe written); 30 flops per triangle;
//     gather phase   n (8 rowptr + 16 nptr + 1 isd + 8 b) + nnz (4 colidx + 8 gptr + 8 vals) + 9 t (4 gidx + 8 Ke)
//                    + 3 t (4 nidx + 8 fe); 12 additions per triangle.
//   BiCGSTAB floor per iteration (bench_gpu.cu's, the bytes of a fully fused unpreconditioned BiCGSTAB, which the
//     library's moves): v = A p with (rhat,v) 12 nnz + 8 (n+1) + 24 n; s = r - a v with (s,s) 24 n; t = A s with
//     (t,s),(t,t) 12 nnz + 8 (n+1) + 16 n; r = s - o t with (r,rhat),(r,r) 32 n; x, p update 56 n
//     -> 24 nnz + 16 (n+1) + 152 n; floor time = bytes / copy bandwidth measured in this run.
//     Flops per iteration: 4 nnz (2 products) + 12 n (6 dots) + 12 n (updates).
//   copy: y = x, 16 bytes per entry (8 read + 8 written), the better of pds_cuda_vec_copy and cudaMemcpy D2D.
#include <cuda_runtime.h>
#include <cusparse.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "pdesolve.h"
#include "backend/cuda/cuda_common.h"
#include "disc/disc_impl.h"
#include "gpu_bench_util.cuh"
#include "bench_log.cuh"

// ---- options ----------------------------------------------------------------------------------------------------
static std::vector<long> g_nodes = {107, 452, 46068, 106377, 424129, 1694081}; // paper 004's Table 3.1
static int    g_reps = 20, g_warm = 3, g_cpu_iters = 30, g_maxit = 200000;
static double g_cpu_solve_max = 10, g_atol = 1e-6;
static const char *const g_prec_names[3] = {"double", "single", "mixed"}; // by pds_precision
static long   g_skip_cpu_solve_above = 0, g_sweep_above = 400000, g_rcm_above = 40000;

// ---- context of the run -----------------------------------------------------------------------------------------
static double           g_copy_bw; // bytes/s, device copy
static char             g_machine[128], g_gpu[256];
static cusparseHandle_t g_sp;
struct GridInfo {
  int       grid;   // paper grid number (1..6), 0 if the target is not one of the paper's
  long      target; // nodes asked of the generator
  long long n, ntri, nnz;
};
static GridInfo g_cur; // the grid being measured (0 nodes: none)

// ---- JSON lines ---------------------------------------------------------------------------------------------------
struct J {
  std::string s;
  explicit J(const char *cas) {
    s = "{\"bench\":\"fem2d_gpu\"";
    str("machine", g_machine).str("gpu", g_gpu);
    if (g_cur.n) num("grid", g_cur.grid).num("target", g_cur.target).num("n", g_cur.n).num("ntri", g_cur.ntri)
                   .num("nnz", g_cur.nnz);
    str("case", cas);
  }
  J &str(const char *k, const std::string &v) {
    s += ",\"" + std::string(k) + "\":\"";
    for (char c : v) s += c == '"' || c == '\\' ? '_' : c;
    s += "\"";
    return *this;
  }
  J &num(const char *k, double v) {
    char b[64];

    if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9e15) snprintf(b, sizeof b, "%.0f", v); // counts
    else if (std::isfinite(v)) snprintf(b, sizeof b, "%.6g", v);
    else snprintf(b, sizeof b, "null");
    s += ",\"" + std::string(k) + "\":" + b;
    return *this;
  }
  J &arr(const char *k, const std::vector<double> &v) {
    char b[32];

    s += ",\"" + std::string(k) + "\":[";
    for (size_t i = 0; i < v.size(); i++) {
      if (std::isfinite(v[i])) snprintf(b, sizeof b, "%s%.6e", i ? "," : "", v[i]);
      else snprintf(b, sizeof b, "%snull", i ? "," : "");
      s += b;
    }
    s += "]";
    return *this;
  }
  J &boolean(const char *k, bool v) {
    s += ",\"" + std::string(k) + "\":" + (v ? "true" : "false");
    return *this;
  }
  // time, GB/s by a byte model, and the fraction of the device copy bandwidth (device cases)
  J &timing(double t, double bytes, bool device = true) {
    num("time_s", t);
    if (bytes > 0) {
      num("gbs", bytes / t * 1e-9);
      if (device) num("frac_copy", bytes / t / g_copy_bw);
    }
    return *this;
  }
  void emit() {
    puts((s + "}").c_str());
    fflush(stdout);
  }
};

// ---- timing -----------------------------------------------------------------------------------------------------
// Each timed sample runs f BATCH times back to back between the two events and counts a BATCH-th of the span: on an
// idle GPU, one call between two events also counts the host's time to reach its first launch (about 4 us for a
// pds_mat_apply, 1 us for a bare launch, whatever the kernel), which a solver's stream of calls hides; batching
// times every variant (pdesolve through its API, cuSPARSE, the paper's kernels) as such a stream.
#define BATCH 4
template <class F> static double time_gpu(F f, int reps = 0, int warm = -1) {
  return gpu_event_median(
             [&] {
               for (int b = 0; b < BATCH; b++) f();
             },
             warm < 0 ? g_warm : warm, reps > 0 ? reps : g_reps) /
         BATCH;
}
// wall clock of a host call (sync: a device synchronize after each call, for API calls on /gpu/cuda)
template <class F> static double time_host(F f, int reps, int warm, bool sync) {
  return host_median(f, warm, reps, sync);
}
// repetitions of a host-timed case whose single call takes about t1 seconds: at most ~1 s in all, 3..reps
static int host_reps(double t1) { return std::max(3, std::min(g_reps, (int)(1.0 / std::max(t1, 1e-6)))); }

// ---- device arrays ----------------------------------------------------------------------------------------------
template <class T> static T *dev_alloc(size_t count) {
  T *d;

  CK(cudaMalloc(&d, count * sizeof(T) + 16));
  return d;
}
template <class T> static std::vector<T> dev_download(const T *d, size_t count) {
  std::vector<T> h(count);

  if (count) CK(cudaMemcpy(h.data(), d, count * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}
// max |a - ref| / max |ref| (NaN-propagating)
static double rel_err(const std::vector<double> &a, const std::vector<double> &ref) {
  double e = 0, m = 0;

  for (size_t i = 0; i < ref.size(); i++) {
    double d = std::fabs(a[i] - ref[i]);

    if (!(d <= e)) e = d;
    m = std::max(m, std::fabs(ref[i]));
  }
  return m > 0 ? e / m : e;
}
static void check_product(const char *what, const double *dy, const std::vector<double> &yref) {
  double e = rel_err(dev_download(dy, yref.size()), yref);

  if (!(e <= 1e-12)) fail("grid %d (%lld nodes): %s differs from /cpu/ref's product by %.3e (relative)", g_cur.grid,
                          g_cur.n, what, e);
}
// number of 64-bit words that differ bitwise (the assembly sweep checks each configuration against ref's bits)
__global__ void count_neq_k(long long n, const unsigned long long *a, const unsigned long long *b,
                            unsigned long long *cnt) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;

  if (i < n && a[i] != b[i]) atomicAdd(cnt, 1ull);
}
static unsigned long long count_neq(const double *a, const double *b, long long n, unsigned long long *dcnt) {
  unsigned long long c;

  CK(cudaMemset(dcnt, 0, sizeof c));
  if (n) count_neq_k<<<(unsigned)((n + 255) / 256), 256>>>(n, (const unsigned long long *)a,
                                                            (const unsigned long long *)b, dcnt);
  CK(cudaGetLastError());
  CK(cudaMemcpy(&c, dcnt, sizeof c, cudaMemcpyDeviceToHost));
  return c;
}

// ---- the device copy bandwidth ----------------------------------------------------------------------------------
// y = x over 2^26 doubles (512 MiB each, far beyond L2): 16 bytes per entry; the better of the library's copy kernel
// and cudaMemcpy D2D is the bandwidth every frac_copy is taken against.
static void measure_copy(long long n) {
  double *x = dev_alloc<double>(n), *y = dev_alloc<double>(n);

  dev_fill(x, n, 1);
  dev_fill(y, n, 2);
  double tk = time_gpu([&] { CK(pds_cuda_vec_copy(0, n, x, y)); });
  double tm = time_gpu([&] { CK(cudaMemcpyAsync(y, x, n * 8, cudaMemcpyDeviceToDevice, 0)); });

  g_copy_bw = 16.0 * n / std::min(tk, tm);
  J("copy").str("backend", "/gpu/cuda").num("entries", n).timing(std::min(tk, tm), 16.0 * n)
      .num("kernel_gbs", 16.0 * n / tk * 1e-9).num("memcpy_gbs", 16.0 * n / tm * 1e-9).emit();
  LOG("device copy bandwidth %.0f GB/s (copy kernel %.0f, cudaMemcpy D2D %.0f)", g_copy_bw * 1e-9,
      16.0 * n / tk * 1e-9, 16.0 * n / tm * 1e-9);
  CK(cudaFree(x));
  CK(cudaFree(y));
}

// ---- the paper's SpMV kernels (section 6.1), launch style <<<blocksPerGrid, threadsPerBlock>>> with a grid-stride
// loop. The paper used int row pointers; these take the library's 64-bit ones, like every variant here. -------------
// One kernel, thread per row. Bytes: the SpMV model (12 nnz + 8 (n+1) + 16 n); flops 2 nnz. The sum is kept in a
// register and y written once (the paper's y[tid] += ... in global memory would add 16 bytes per entry).
__global__ void paper_spmv1_k(int n, const pds_size *ptr, const int *col, const double *data, const double *x,
                              double *y) {
  for (int tid = blockIdx.x * blockDim.x + threadIdx.x; tid < n; tid += blockDim.x * gridDim.x) {
    pds_size loc = ptr[tid];
    int      len = (int)(ptr[tid + 1] - loc);
    double   s   = 0;

    for (int i = 0; i < len; i++) s += data[loc + i] * x[col[loc + i]];
    y[tid] = s;
  }
}
// Two kernels. DataProd, thread per entry: c[k] = data[k] x[col[k]]. Bytes 12 nnz (data, col) + 8 nnz (x, gathered;
// counted once per entry here, cached in practice) + 8 nnz (c written); flops nnz.
__global__ void paper_dataprod_k(long long nz, const int *col, const double *data, const double *x, double *c) {
  for (long long tid = blockIdx.x * (long long)blockDim.x + threadIdx.x; tid < nz;
       tid += (long long)blockDim.x * gridDim.x)
    c[tid] = data[tid] * x[col[tid]];
}
// DataAdd, thread per row: y[i] = sum of c over the row. Bytes 8 (n+1) + 8 nnz (c) + 8 n (y); flops nnz.
// The pair moves 12 nnz + 8 (n+1) + 16 n of the SpMV model plus 16 nnz for c.
__global__ void paper_dataadd_k(int n, const pds_size *ptr, const double *c, double *y) {
  for (int tid = blockIdx.x * blockDim.x + threadIdx.x; tid < n; tid += blockDim.x * gridDim.x) {
    pds_size loc = ptr[tid];
    int      len = (int)(ptr[tid + 1] - loc);
    double   s   = 0;

    for (int i = 0; i < len; i++) s += c[loc + i];
    y[tid] = s;
  }
}
// Diagnostic (not a paper kernel): the one-kernel above with the library's load hints (csr_thread_k in cuda_csr.cu:
// evict-first __ldcs on data and col, __ldg on x), launched like it (256 threads, a thread per row); beside the
// paper kernel at the same launch it shows what the hints cost on this access pattern (a row's entries are read
// by one thread over several loop trips, so a sector is read several times and evict-first loses it). Bytes as
// paper_spmv1_k.
__global__ void diag_spmv1_ldcs_k(int n, const pds_size *__restrict__ ptr, const int *__restrict__ col,
                                  const double *__restrict__ data, const double *__restrict__ x, double *y) {
  for (int tid = blockIdx.x * blockDim.x + threadIdx.x; tid < n; tid += blockDim.x * gridDim.x) {
    pds_size loc = ptr[tid];
    int      len = (int)(ptr[tid + 1] - loc);
    double   s   = 0;

    for (int i = 0; i < len; i++) s += __ldcs(&data[loc + i]) * __ldg(&x[__ldcs(&col[loc + i])]);
    y[tid] = s;
  }
}
struct Launch {
  int bpg, tpb;
};
static std::string cfg_name(Launch l) { return std::to_string(l.bpg) + "x" + std::to_string(l.tpb); }

// ---- CSR on the device (the ref matrix's arrays: bitwise the GPU assembly's) ----------------------------------------
static double spmv_bytes(long long n, long long nnz) { return 12.0 * nnz + 8.0 * (n + 1) + 16.0 * n; }

// cuSPARSE SpMV y = A x, CUSPARSE_SPMV_ALG_DEFAULT and CUSPARSE_SPMV_CSR_ALG2, the better taken. pdesolve's matrices
// have 64-bit row pointers and 32-bit column indices: that mixed pair is tried first; where cuSPARSE refuses it
// (CUSPARSE_STATUS_NOT_SUPPORTED at create, buffer size or the product), the row pointers are converted to 32 bits
// for cuSPARSE (4 (n+1) bytes less to read) and the JSON's "index" says which was used; the pair is asked once per
// run (cuSPARSE 12 on the H200: "different index sizes ... is not currently supported" at cusparseCreateCsr).
static bool g_sp_mixed_refused = false; // cuSPARSE refused 64-bit row offsets with 32-bit columns: not asked again
struct SpResult {
  double      t, t_default, t_alg2;
  std::string idx, alg;
};
static SpResult cusparse_spmv(const CsrDev &d, const double *x, double *y, const std::vector<double> &yref) {
  double               one = 1, zero = 0;
  cusparseSpMatDescr_t A   = NULL;
  cusparseDnVecDescr_t vx, vy;
  SpResult             r   = {1e30, 0, 0, "", ""};
  bool                 ok  = false;

  CKS(cusparseCreateDnVec(&vx, d.n, (void *)x, CUDA_R_64F));
  CKS(cusparseCreateDnVec(&vy, d.n, y, CUDA_R_64F));
  for (int mixed = g_sp_mixed_refused ? 0 : 1; mixed >= 0 && !ok; mixed--) {
    size_t bs  = 0;
    void  *buf = NULL;
    cusparseStatus_t st =
        cusparseCreateCsr(&A, d.n, d.n, d.nnz, mixed ? (void *)d.rp64 : (void *)d.rp32, d.ci, d.v,
                          mixed ? CUSPARSE_INDEX_64I : CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                          CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F);
    if (st != CUSPARSE_STATUS_SUCCESS) {
      if (mixed) g_sp_mixed_refused = true;
      else CKS(st);
      continue;
    }
    st = cusparseSpMV_bufferSize(g_sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vx, &zero, vy, CUDA_R_64F,
                                 CUSPARSE_SPMV_ALG_DEFAULT, &bs);
    if (st == CUSPARSE_STATUS_SUCCESS) {
      CK(cudaMalloc(&buf, bs + 16));
      st = cusparseSpMV(g_sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vx, &zero, vy, CUDA_R_64F,
                        CUSPARSE_SPMV_ALG_DEFAULT, buf);
      CK(cudaDeviceSynchronize());
      CK(cudaFree(buf));
    }
    if (st == CUSPARSE_STATUS_SUCCESS) ok = true, r.idx = mixed ? "64I rowptr/32I col" : "32I rowptr/32I col";
    else {
      CKS(cusparseDestroySpMat(A));
      A = NULL;
      if (!mixed) CKS(st);
    }
    if (mixed && !ok) g_sp_mixed_refused = true;
  }
  const cusparseSpMVAlg_t algs[2] = {CUSPARSE_SPMV_ALG_DEFAULT, CUSPARSE_SPMV_CSR_ALG2};
  for (int a = 0; a < 2; a++) {
    size_t bs  = 0;
    void  *buf = NULL;
    double t   = INFINITY; // an algorithm cuSPARSE refuses for these index types stays at infinity (null in JSON)

    cusparseStatus_t st = cusparseSpMV_bufferSize(g_sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vx, &zero, vy,
                                                  CUDA_R_64F, algs[a], &bs);
    if (st == CUSPARSE_STATUS_SUCCESS) {
      CK(cudaMalloc(&buf, bs + 16));
#if CUSPARSE_VERSION >= 12400
      (void)cusparseSpMV_preprocess(g_sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vx, &zero, vy, CUDA_R_64F,
                                    algs[a], buf); // optional analysis; ignored where it does nothing
#endif
      st = cusparseSpMV(g_sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vx, &zero, vy, CUDA_R_64F, algs[a], buf);
    }
    if (st == CUSPARSE_STATUS_SUCCESS) {
      t = time_gpu([&] {
        CKS(cusparseSpMV(g_sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vx, &zero, vy, CUDA_R_64F, algs[a], buf));
      });
      check_product(a ? "cuSPARSE SpMV CSR_ALG2" : "cuSPARSE SpMV ALG_DEFAULT", y, yref);
    } else LOG("  cuSPARSE %s refused (%s): left out", a ? "CSR_ALG2" : "ALG_DEFAULT", cusparseGetErrorString(st));
    (a ? r.t_alg2 : r.t_default) = t;
    if (t < r.t) r.t = t, r.alg = a ? "CSR_ALG2" : "ALG_DEFAULT";
    if (buf) CK(cudaFree(buf));
  }
  if (!(r.t < 1e30)) fail("cuSPARSE SpMV ran with neither algorithm");
  CKS(cusparseDestroySpMat(A));
  CKS(cusparseDestroyDnVec(vx));
  CKS(cusparseDestroyDnVec(vy));
  return r;
}

// ---- pdesolve's CSR plans (cuda.c's csr_plan_build chooses among them) ----------------------------------------------
struct Plan {
  int         stream, width;
  std::string name;
};
static const Plan g_plans[] = {{1, 1, "stream"}, {0, 1, "w1"},   {0, 2, "w2"},  {0, 4, "w4"},
                               {0, 8, "w8"},     {0, 16, "w16"}, {0, 32, "w32"}};
// the rule of csr_plan_build (src/backend/cuda/cuda.c), restated: stream when no row has more than
// PDS_CUDA_STREAM_MAXROW entries and there are at least PDS_CUDA_STREAM_MINROWS rows, else the power of two nearest
// to avg/2 lanes, in [1, 32] (FEM rows are short: no row splitting)
static std::string auto_plan(const CsrDev &d) {
  double half = d.n > 0 ? 0.5 * (double)d.nnz / d.n : 0;
  int    w    = 1;

  while (w < 32 && half >= 1.41421356 * w) w *= 2;
  if (d.maxrow <= PDS_CUDA_STREAM_MAXROW && d.n >= PDS_CUDA_STREAM_MINROWS) return "stream";
  return "w" + std::to_string(w);
}

// ---- per-grid summary for the closing tables ----------------------------------------------------------------------
struct Summary {
  GridInfo g;
  double   spmv_pds, spmv_sp, spmv_p1, spmv_p2, spmv_ref, spmv_omp, frac_pds, frac_sp;
  double   plan_auto_over_best, asm_auto_over_best;
  int      its;
  double   bi_gpu, bi_ref, bi_omp, bi_floor_ratio, bi_host; // bi_host: the host in the loop (-device_loop 0)
  double   bi_seq; // the kernel sequence (a context made with PDS_CUDA_SMALL=0: no whole-iteration kernel)
  double   asm_frac, asm_api_first, asm_api_repeat, asm_ref, asm_omp;
  double   whole_gpu, whole_ref, whole_omp;
  bool     ref_extrap, omp_extrap;
  double   rcm_pds[3], rcm_sp[3];
  // precision runs (double, single, mixed): iterations, reason, seconds per iteration, floor ratio, true ||r||_2
  int      pr_its[3], pr_reason[3];
  double   pr_it[3], pr_floor[3], pr_true[3];
  // CG in the three precisions on the grid with symmetric boundary rows: iterations, reason, solve seconds, true ||r||
  int      cg_its[3], cg_reason[3];
  double   cg_t[3], cg_true[3];
};
static std::vector<Summary> g_sum;

// ---- one backend's objects for a grid ---------------------------------------------------------------------------
static pds_ctx g_seq; // /gpu/cuda made with PDS_CUDA_SMALL=0: the kernel sequence (no whole-iteration kernel)

struct Backend {
  const char *name;
  pds_ctx     ctx;
  bool        gpu;
  pds_fem2d   fem;
  pds_mat     A;
  pds_vec     b;
  double      t_create, t_asm_first, t_upload;
};

static void assemble_first(Backend &B, pds_mesh m) {
  pds_fem2d_info info;

  double t0 = pds_wtime();
  PK(B.ctx, pds_fem2d_create(B.ctx, m, &B.fem));
  B.t_create = pds_wtime() - t0;
  PK(B.ctx, pds_fem2d_set_problem(B.fem, "paper"));
  if (B.gpu) CK(cudaDeviceSynchronize());
  t0 = pds_wtime();
  PK(B.ctx, pds_fem2d_assemble(B.fem, PDS_DIRICHLET_ROW, &B.A, &B.b));
  if (B.gpu) CK(cudaDeviceSynchronize());
  B.t_asm_first = pds_wtime() - t0;
  memset(&info, 0, sizeof info);
  PK(B.ctx, pds_fem2d_get_info(B.fem, &info));
  B.t_upload = info.t_upload;
}

// the whole pds_fem2d_assemble with the maps resident (each call makes a new A and b; destroyed untimed)
static double assemble_repeat(Backend &B) {
  std::vector<double> t;
  int                 reps = 0;

  for (int r = 0; r < 1 + reps; r++) {
    pds_mat A;
    pds_vec b;
    double  t0 = pds_wtime();

    PK(B.ctx, pds_fem2d_assemble(B.fem, PDS_DIRICHLET_ROW, &A, &b));
    if (B.gpu) CK(cudaDeviceSynchronize());
    if (r == 0) reps = host_reps(pds_wtime() - t0) / 2 + 1; // the first repeat is a warm-up
    else t.push_back(pds_wtime() - t0);
    PK(B.ctx, pds_mat_destroy(&A));
    PK(B.ctx, pds_vec_destroy(&b));
  }
  return median(t);
}

// ---- validation: the /gpu/cuda matrix and rhs are /cpu/ref's bits --------------------------------------------------
static void host_system(Backend &B, std::vector<pds_size> &rp, std::vector<pds_int> &ci, std::vector<double> &v,
                        std::vector<double> &b) {
  const pds_size *r;
  const pds_int  *c;
  const pds_real *x;
  pds_int         n, nc;
  pds_size        nnz;

  PK(B.ctx, pds_mat_get_size(B.A, &n, &nc));
  PK(B.ctx, pds_mat_get_nnz(B.A, &nnz));
  PK(B.ctx, pds_mat_csr_get_arrays(B.A, &r, &c, &x));
  if (!r || !c || !x) fail("%s: pds_mat_csr_get_arrays gave no host arrays for the assembled matrix", B.name);
  rp.assign(r, r + n + 1);
  ci.assign(c, c + nnz);
  v.assign(x, x + nnz);
  b.resize(n);
  PK(B.ctx, pds_vec_get_values(B.b, b.data(), PDS_MEM_HOST));
}
static void validate_assembly(Backend &ref, Backend &other) {
  std::vector<pds_size> rp0, rp1;
  std::vector<pds_int>  c0, c1;
  std::vector<double>   v0, v1, b0, b1;

  host_system(ref, rp0, c0, v0, b0);
  host_system(other, rp1, c1, v1, b1);
  if (rp0 != rp1 || c0 != c1) fail("grid %d: %s's pattern differs from /cpu/ref's", g_cur.grid, other.name);
  if (memcmp(v0.data(), v1.data(), v0.size() * 8)) {
    size_t k = 0;

    while (k < v0.size() && !memcmp(&v0[k], &v1[k], 8)) k++;
    fail("grid %d: %s's matrix values differ from /cpu/ref's bits (first at entry %zu: %.17g vs %.17g)", g_cur.grid,
         other.name, k, v1[k], v0[k]);
  }
  if (memcmp(b0.data(), b1.data(), b0.size() * 8)) {
    size_t k = 0;

    while (k < b0.size() && !memcmp(&b0[k], &b1[k], 8)) k++;
    fail("grid %d: %s's right-hand side differs from /cpu/ref's bits (first at %zu: %.17g vs %.17g)", g_cur.grid,
         other.name, k, b1[k], b0[k]);
  }
}

// ---- SpMV -------------------------------------------------------------------------------------------------------
static std::vector<double> host_x(long long n) { // reproducible values in [-1, 1)
  std::vector<double> x(n);
  unsigned long long  s = 0x2545f4914f6cdd1dull;

  for (long long i = 0; i < n; i++) {
    s    = s * 6364136223846793005ull + 1442695040888963407ull;
    x[i] = (double)(s >> 11) * 0x1.0p-53 * 2.0 - 1.0;
  }
  return x;
}
// y = A x on a backend through the API; returns the product on the host
static std::vector<double> api_product(Backend &B, const std::vector<double> &x) {
  pds_vec             vx, vy;
  std::vector<double> y(x.size());

  PK(B.ctx, pds_vec_create(B.ctx, (pds_size)x.size(), &vx));
  PK(B.ctx, pds_vec_create(B.ctx, (pds_size)x.size(), &vy));
  PK(B.ctx, pds_vec_set_values(vx, x.data(), PDS_MEM_HOST));
  PK(B.ctx, pds_mat_apply(B.A, vx, vy));
  PK(B.ctx, pds_vec_get_values(vy, y.data(), PDS_MEM_HOST));
  PK(B.ctx, pds_vec_destroy(&vx));
  PK(B.ctx, pds_vec_destroy(&vy));
  return y;
}
static double api_spmv_time(Backend &B, const std::vector<double> &x, const std::vector<double> *yref) {
  pds_vec vx, vy;
  double  t;

  PK(B.ctx, pds_vec_create(B.ctx, (pds_size)x.size(), &vx));
  PK(B.ctx, pds_vec_create(B.ctx, (pds_size)x.size(), &vy));
  PK(B.ctx, pds_vec_set_values(vx, x.data(), PDS_MEM_HOST));
  if (B.gpu) {
    t = time_gpu([&] { PK(B.ctx, pds_mat_apply(B.A, vx, vy)); });
    if (yref) {
      std::vector<double> y(x.size());

      PK(B.ctx, pds_vec_get_values(vy, y.data(), PDS_MEM_HOST));
      double e = rel_err(y, *yref);
      if (!(e <= 1e-12)) fail("grid %d: pds_mat_apply on %s differs from /cpu/ref by %.3e", g_cur.grid, B.name, e);
    }
  } else {
    PK(B.ctx, pds_mat_apply(B.A, vx, vy));
    double t0 = pds_wtime();
    PK(B.ctx, pds_mat_apply(B.A, vx, vy));
    t = time_host([&] { PK(B.ctx, pds_mat_apply(B.A, vx, vy)); }, host_reps(pds_wtime() - t0), 0, false);
  }
  PK(B.ctx, pds_vec_destroy(&vx));
  PK(B.ctx, pds_vec_destroy(&vy));
  return t;
}

static void bench_spmv(Backend &ref, Backend &omp, Backend &gpu, Summary &S) {
  long long           n = g_cur.n, nnz = g_cur.nnz;
  double              bytes = spmv_bytes(n, nnz);
  std::vector<double> x = host_x(n), yref = api_product(ref, x);
  CsrDev              d  = csr_upload(ref.A);
  double             *xs = dev_copy(x.data(), n), *yv = dev_alloc<double>(n), *c = dev_alloc<double>(nnz);

  // CPU backends (wall clock, median)
  S.spmv_ref = api_spmv_time(ref, x, NULL);
  S.spmv_omp = omp.ctx ? api_spmv_time(omp, x, NULL) : 0;
  J("spmv").str("variant", "cpu").str("backend", "/cpu/ref").num("threads", 1).timing(S.spmv_ref, bytes, false).emit();
  if (omp.ctx)
    J("spmv").str("variant", "cpu").str("backend", "/cpu/omp").num("threads", pds_ctx_get_num_threads(omp.ctx))
        .timing(S.spmv_omp, bytes, false).emit();
  // pdesolve through the API (the plan its rule picks)
  S.spmv_pds = api_spmv_time(gpu, x, &yref);
  // cuSPARSE
  SpResult sp = cusparse_spmv(d, xs, yv, yref);
  S.spmv_sp   = sp.t;
  // pdesolve's plans, each forced
  std::string ap = auto_plan(d);
  double      t_best = 1e30, t_auto = 0;
  std::string best;
  for (const Plan &P : g_plans) {
    pds_cuda_csr_plan pl = {};

    pl.stream = P.stream, pl.width = P.width, pl.long_len = (pds_size)1 << 62, pl.nlong = 0;
    cudaError_t e = pds_cuda_csr_spmv(0, &pl, d.n, d.rp64, d.ci, d.v, NULL, 1.0, xs, 0.0, yv);
    if (e != cudaSuccess) { // a plan a kernel refuses for this shape: say so, go on
      (void)cudaGetLastError();
      J("spmv_plan").str("plan", P.name).str("error", cudaGetErrorString(e)).emit();
      continue;
    }
    double t = time_gpu([&] { CK(pds_cuda_csr_spmv(0, &pl, d.n, d.rp64, d.ci, d.v, NULL, 1.0, xs, 0.0, yv)); });
    check_product(("pdesolve plan " + P.name).c_str(), yv, yref);
    J("spmv_plan").str("plan", P.name).boolean("auto", P.name == ap).timing(t, bytes).emit();
    if (t < t_best) t_best = t, best = P.name;
    if (P.name == ap) t_auto = t;
  }
  S.plan_auto_over_best = t_auto / t_best;
  J("spmv_plan_summary").str("auto_plan", ap).str("best_plan", best).num("t_auto_s", t_auto).num("t_best_s", t_best)
      .num("auto_over_best", t_auto / t_best).num("api_over_best", S.spmv_pds / t_best).emit();
  // the paper's kernels: Table 8.1's launch values, the grid that covers the work, and (large grids) a coarse sweep
  Launch one_def = {736, 384}, prod_def = {736, 384}, add_def = {40, 64};
  auto   t_one   = [&](Launch l) {
    return time_gpu([&] { paper_spmv1_k<<<l.bpg, l.tpb>>>(d.n, d.rp64, d.ci, d.v, xs, yv); });
  };
  auto t_prod = [&](Launch l) {
    return time_gpu([&] { paper_dataprod_k<<<l.bpg, l.tpb>>>(d.nnz, d.ci, d.v, xs, c); });
  };
  auto t_add = [&](Launch l) { return time_gpu([&] { paper_dataadd_k<<<l.bpg, l.tpb>>>(d.n, d.rp64, c, yv); }); };
  auto t_two = [&](Launch p, Launch a) {
    return time_gpu([&] {
      paper_dataprod_k<<<p.bpg, p.tpb>>>(d.nnz, d.ci, d.v, xs, c);
      paper_dataadd_k<<<a.bpg, a.tpb>>>(d.n, d.rp64, c, yv);
    });
  };
  double t1d = t_one(one_def);
  CK(cudaGetLastError());
  check_product("paper one-kernel SpMV", yv, yref);
  double t2d = t_two(prod_def, add_def);
  CK(cudaGetLastError());
  check_product("paper two-kernel SpMV", yv, yref);
  Launch one_best = one_def, prod_best = prod_def, add_best = add_def;
  double b1 = t1d, bp = t_prod(prod_def), ba = t_add(add_def);
  bool   sweep = n >= g_sweep_above;
  {
    std::vector<int> tpbs = sweep ? std::vector<int>{64, 128, 256, 384, 512, 768, 1024} : std::vector<int>{256};
    std::vector<int> bpgs = sweep ? std::vector<int>{40, 128, 296, 736, 1024, 2048, 0} : std::vector<int>{0};
    for (int tpb : tpbs)
      for (int bpg0 : bpgs) {
        int    bo = bpg0 ? bpg0 : (int)((n + tpb - 1) / tpb), bp0 = bpg0 ? bpg0 : (int)((nnz + tpb - 1) / tpb);
        int    sr = sweep ? 5 : 0, sw = sweep ? 1 : -1;
        Launch lo = {bo, tpb}, lp = {bp0, tpb};
        double to = time_gpu([&] { paper_spmv1_k<<<lo.bpg, lo.tpb>>>(d.n, d.rp64, d.ci, d.v, xs, yv); }, sr, sw);
        double tp = time_gpu([&] { paper_dataprod_k<<<lp.bpg, lp.tpb>>>(d.nnz, d.ci, d.v, xs, c); }, sr, sw);
        double ta = time_gpu([&] { paper_dataadd_k<<<lo.bpg, lo.tpb>>>(d.n, d.rp64, c, yv); }, sr, sw);
        CK(cudaGetLastError());
        if (sweep) {
          J("paper_sweep").str("kernel", "onekernel").num("bpg", lo.bpg).num("tpb", tpb).boolean("cover", !bpg0)
              .timing(to, bytes).emit();
          J("paper_sweep").str("kernel", "dataprod").num("bpg", lp.bpg).num("tpb", tpb).boolean("cover", !bpg0)
              .num("time_s", tp).emit();
          J("paper_sweep").str("kernel", "dataadd").num("bpg", lo.bpg).num("tpb", tpb).boolean("cover", !bpg0)
              .num("time_s", ta).emit();
        }
        if (to < b1) b1 = to, one_best = lo;
        if (tp < bp) bp = tp, prod_best = lp;
        if (ta < ba) ba = ta, add_best = lo;
      }
  }
  { // the load-hint diagnostic: thread per row, 256 threads, one row per thread, with and without the hints
    Launch l = {(int)((n + 255) / 256), 256};
    double tplain = t_one(l);
    check_product("thread per row, plain loads", yv, yref);
    double thint = time_gpu([&] { diag_spmv1_ldcs_k<<<l.bpg, l.tpb>>>(d.n, d.rp64, d.ci, d.v, xs, yv); });
    CK(cudaGetLastError());
    check_product("thread per row, __ldcs hints", yv, yref);
    J("spmv_diag").str("variant", "thread_row_plain").str("cfg", cfg_name(l)).timing(tplain, bytes).emit();
    J("spmv_diag").str("variant", "thread_row_ldcs").str("cfg", cfg_name(l)).timing(thint, bytes)
        .num("ldcs_over_plain", thint / tplain).emit();
    LOG("  diagnostic thread per row (%s): plain loads %.1f us, with __ldcs/__ldg hints %.1f us (x%.2f)",
        cfg_name(l).c_str(), 1e6 * tplain, 1e6 * thint, thint / tplain);
  }
  double t1b = t_one(one_best);
  check_product("paper one-kernel SpMV (best launch)", yv, yref);
  double t2b = t_two(prod_best, add_best);
  check_product("paper two-kernel SpMV (best launch)", yv, yref);
  S.spmv_p1 = std::min(t1d, t1b), S.spmv_p2 = std::min(t2d, t2b);
  const char *sw_name = sweep ? "coarse sweep" : "table 8.1 and cover-256 only";
  J("spmv").str("variant", "paper1").str("launch", "table8.1").str("cfg", cfg_name(one_def)).timing(t1d, bytes)
      .num("vs_cusparse", sp.t / t1d).emit();
  J("spmv").str("variant", "paper1").str("launch", "best").str("sweep", sw_name).str("cfg", cfg_name(one_best))
      .timing(t1b, bytes).num("vs_cusparse", sp.t / t1b).emit();
  J("spmv").str("variant", "paper2").str("launch", "table8.1").str("cfg", cfg_name(prod_def) + "+" + cfg_name(add_def))
      .timing(t2d, bytes).num("gbs_actual", (bytes + 16.0 * nnz) / t2d * 1e-9).num("vs_cusparse", sp.t / t2d).emit();
  J("spmv").str("variant", "paper2").str("launch", "best").str("sweep", sw_name)
      .str("cfg", cfg_name(prod_best) + "+" + cfg_name(add_best)).timing(t2b, bytes)
      .num("gbs_actual", (bytes + 16.0 * nnz) / t2b * 1e-9).num("vs_cusparse", sp.t / t2b).emit();
  J("spmv").str("variant", "cusparse").str("alg", sp.alg).str("index", sp.idx).timing(sp.t, bytes)
      .num("t_alg_default_s", sp.t_default).num("t_alg2_s", sp.t_alg2).emit();
  S.frac_pds = bytes / S.spmv_pds / g_copy_bw, S.frac_sp = bytes / sp.t / g_copy_bw;
  J j("spmv");
  j.str("variant", "pdesolve").str("backend", "/gpu/cuda").str("plan", ap).timing(S.spmv_pds, bytes)
      .num("vs_cusparse", sp.t / S.spmv_pds).num("speedup_vs_ref", S.spmv_ref / S.spmv_pds);
  if (omp.ctx) j.num("speedup_vs_omp", S.spmv_omp / S.spmv_pds);
  j.emit();
  LOG("  spmv: pdesolve %.1f us (%s, %.0f%% of copy), cuSPARSE %.1f us (%s, %s): pdesolve %.2fx; paper 1-kernel %.1f us,"
      " 2-kernel %.1f us; auto plan/best %.3f (best %s); ref %.1f us, omp %.1f us", 1e6 * S.spmv_pds, ap.c_str(),
      100 * S.frac_pds, 1e6 * sp.t, sp.alg.c_str(), sp.idx.c_str(), sp.t / S.spmv_pds, 1e6 * S.spmv_p1,
      1e6 * S.spmv_p2, S.plan_auto_over_best, best.c_str(), 1e6 * S.spmv_ref, 1e6 * S.spmv_omp);
  csr_free(d);
  CK(cudaFree(xs));
  CK(cudaFree(yv));
  CK(cudaFree(c));
}

// ---- the assembly kernels on device-resident maps ---------------------------------------------------------------
static void bench_assembly_kernels(Backend &ref, Summary &S) {
  pds_fem2d                f   = ref.fem;
  const pds_fem2d_problem *pr  = &f->prob;
  long long                n   = f->nnodes, t = f->ntri, nnz = f->nnz;
  const pds_real          *xy;
  const pds_int           *tri, *bedge, *btag, *marker;

  if (pr->kfn || pr->ffn || pr->gfn) {
    LOG("  assembly kernels: problem has callbacks; skipped (the paper problem has constants)");
    return;
  }
  PK(ref.ctx, pds_mesh_get_arrays(f->mesh, &xy, &tri, &bedge, &btag, &marker));
  std::vector<unsigned char> isd(n);
  for (long long i = 0; i < n; i++) isd[i] = marker[i] > 0;
  // upload the fem object's host maps and the mesh, once
  pds_size      *rowptr = dev_copy(f->rowptr, n + 1), *gptr = dev_copy(f->gptr, nnz + 1);
  pds_size      *nptr   = dev_copy(f->nptr, n + 1);
  pds_int       *colidx = dev_copy(f->colidx, nnz), *gidx = dev_copy(f->gidx, 9 * t);
  pds_int       *nidx = dev_copy(f->nidx, 3 * t), *dtri = dev_copy(tri, 3 * t);
  pds_real      *dxy = dev_copy(xy, 2 * n);
  unsigned char *disd = dev_copy(isd.data(), n);
  double        *Ke = dev_alloc<double>(6 * t), *fe = dev_alloc<double>(3 * t), *vals = dev_alloc<double>(nnz);
  double        *b = dev_alloc<double>(n);
  unsigned long long *bad = dev_alloc<unsigned long long>(1), *cnt = dev_alloc<unsigned long long>(1);
  // ref's bits, on the device for the sweep's checks
  std::vector<pds_size> rp0;
  std::vector<pds_int>  c0;
  std::vector<double>   v0, b0;
  host_system(ref, rp0, c0, v0, b0);
  double *vref = dev_copy(v0.data(), nnz), *bref = dev_copy(b0.data(), n);

  // element phase: t (12 tri + 48 xy + 72 Ke, fe); gather phase: the model in the file header
  double eb = 132.0 * t;
  double gb = 33.0 * n + 20.0 * nnz + 108.0 * t + 36.0 * t;
  double k = pr->k, fsrc = pr->f, gc = pr->g;
  auto   elem = [&](const pds_cuda_fem2d_cfg *cfg) {
    CK(pds_cuda_fem2d_element(0, cfg, (pds_int)t, dtri, dxy, k, NULL, fsrc, NULL, Ke, fe, bad));
  };
  auto gath = [&](const pds_cuda_fem2d_cfg *cfg) {
    CK(pds_cuda_fem2d_gather(0, cfg, (pds_int)n, rowptr, colidx, gptr, gidx, Ke, nptr, nidx, fe, disd, NULL, gc, 0,
                             vals, b));
  };
  auto check = [&](const char *what) {
    unsigned long long hb;

    CK(cudaMemcpy(&hb, bad, sizeof hb, cudaMemcpyDeviceToHost));
    if (hb != (unsigned long long)t) fail("grid %d: %s: element kernel flags triangle %llu", g_cur.grid, what, hb);
    unsigned long long nv = count_neq(vals, vref, nnz, cnt), nb = count_neq(b, bref, n, cnt);
    if (nv || nb) fail("grid %d: %s: %llu matrix values and %llu rhs entries differ from /cpu/ref's bits", g_cur.grid,
                       what, nv, nb);
  };
  pds_cuda_fem2d_cfg au;
  pds_cuda_fem2d_auto((pds_int)n, nnz, &au);
  CK(cudaMemset(vals, 0xff, nnz * 8));
  elem(&au);
  gath(&au);
  CK(cudaDeviceSynchronize());
  check("auto configuration");
  elem(NULL); // cfg NULL is the auto choice too
  gath(NULL);
  CK(cudaDeviceSynchronize());
  check("NULL configuration");
  double te = time_gpu([&] { elem(&au); });
  double tg = time_gpu([&] { gath(&au); });
  double tb = time_gpu([&] { elem(&au); gath(&au); });
  check("auto configuration, timed");
  S.asm_frac = (eb + gb) / tb / g_copy_bw;
  J("assembly_kernels").str("phase", "element").num("elem_threads", au.elem_threads).timing(te, eb)
      .num("gflops", 30.0 * t / te * 1e-9).emit();
  J("assembly_kernels").str("phase", "gather").num("gather_lanes", au.gather_lanes)
      .num("gather_threads", au.gather_threads).timing(tg, gb).num("gflops", 12.0 * t / tg * 1e-9).emit();
  J("assembly_kernels").str("phase", "both").num("elem_threads", au.elem_threads).num("gather_lanes", au.gather_lanes)
      .num("gather_threads", au.gather_threads).timing(tb, eb + gb).emit();
  // sweep: each phase over its own parameters, the other phase's left at auto
  double be = 1e30, bg = 1e30;
  pds_cuda_fem2d_cfg bec = au, bgc = au;
  for (int et : {64, 128, 256, 512, 1024}) {
    pds_cuda_fem2d_cfg c = au;

    c.elem_threads = et;
    double tt = time_gpu([&] { elem(&c); });
    gath(&au);
    CK(cudaDeviceSynchronize());
    check("element sweep");
    J("assembly_sweep").str("phase", "element").num("elem_threads", et).boolean("auto", et == au.elem_threads)
        .timing(tt, eb).emit();
    if (tt < be) be = tt, bec = c;
  }
  elem(&au);
  for (int gl : {1, 2, 4, 8, 16, 32})
    for (int gt : {64, 128, 256, 512, 1024}) {
      pds_cuda_fem2d_cfg c = au;

      c.gather_lanes = gl, c.gather_threads = gt;
      CK(cudaMemset(vals, 0xff, nnz * 8));
      double tt = time_gpu([&] { gath(&c); });
      check("gather sweep");
      J("assembly_sweep").str("phase", "gather").num("gather_lanes", gl).num("gather_threads", gt)
          .boolean("auto", gl == au.gather_lanes && gt == au.gather_threads).timing(tt, gb).emit();
      if (tt < bg) bg = tt, bgc = c;
    }
  // auto's own time inside the sweeps' conditions: te, tg above
  S.asm_auto_over_best = (te + tg) / (be + bg);
  J("assembly_sweep_summary").num("auto_elem_threads", au.elem_threads).num("auto_gather_lanes", au.gather_lanes)
      .num("auto_gather_threads", au.gather_threads).num("best_elem_threads", bec.elem_threads)
      .num("best_gather_lanes", bgc.gather_lanes).num("best_gather_threads", bgc.gather_threads)
      .num("element_auto_over_best", te / be).num("gather_auto_over_best", tg / bg)
      .num("auto_over_best", S.asm_auto_over_best).emit();
  LOG("  assembly kernels: element %.1f us (%d thr, %.0f GB/s), gather %.1f us (%d lanes x %d thr, %.0f GB/s), both"
      " %.1f us = %.0f%% of copy; auto/best element %.3f gather %.3f", 1e6 * te, au.elem_threads, eb / te * 1e-9,
      1e6 * tg, au.gather_lanes, au.gather_threads, gb / tg * 1e-9, 1e6 * tb, 100 * S.asm_frac, te / be, tg / bg);
  for (void *p : {(void *)rowptr, (void *)gptr, (void *)nptr, (void *)colidx, (void *)gidx, (void *)nidx, (void *)dtri,
                  (void *)dxy, (void *)disd, (void *)Ke, (void *)fe, (void *)vals, (void *)b, (void *)bad, (void *)cnt,
                  (void *)vref, (void *)bref})
    CK(cudaFree(p));
}

// ---- BiCGSTAB ---------------------------------------------------------------------------------------------------
struct SolveRun {
  double t;   // seconds of the solve (median)
  int    its; // iterations
  int    reason;
  double rnorm;
};
// BiCGSTAB, no preconditioner, from x = 0; rtol 0 and atol the paper's 1e-6 on ||r||_2, or a fixed count (fixed > 0)
// (dloop 0: the host in the loop, one copy per iteration, as before the device loop; prec: the solve's precision,
// maxit > 0 its iteration limit, hist: the residual history of the last solve)
static SolveRun solve(Backend &B, int fixed, pds_vec x, int reps, int dloop = 1,
                      pds_precision prec = PDS_PRECISION_DOUBLE, int maxit = 0, std::vector<double> *hist = nullptr,
                      const char *method = "bicgstab") {
  pds_solver          s;
  pds_solver_result   r;
  std::vector<double> t;

  PK(B.ctx, pds_solver_create(B.ctx, method, &s));
  PK(B.ctx, pds_solver_set_device_loop(s, dloop));
  PK(B.ctx, pds_solver_set_precision(s, prec));
  if (hist) PK(B.ctx, pds_solver_set_history(s, 1));
  PK(B.ctx, pds_solver_set_operator(s, B.A));
  PK(B.ctx, pds_solver_set_precond(s, NULL));
  PK(B.ctx, pds_solver_set_tolerances(s, 0.0, 0.0, 2)); // untimed: the solver's setup, its vectors touched
  PK(B.ctx, pds_vec_set(x, 0.0));
  PK(B.ctx, pds_solver_solve(s, B.b, x));
  PK(B.ctx, pds_solver_set_tolerances(s, 0.0, fixed > 0 ? 0.0 : g_atol, fixed > 0 ? fixed : maxit > 0 ? maxit : g_maxit));
  for (int rep = 0; rep < reps; rep++) {
    PK(B.ctx, pds_vec_set(x, 0.0));
    if (B.gpu) CK(cudaDeviceSynchronize());
    double t0 = pds_wtime();
    PK(B.ctx, pds_solver_solve(s, B.b, x));
    if (B.gpu) CK(cudaDeviceSynchronize());
    t.push_back(pds_wtime() - t0);
    if (rep == 0 && reps > 1 && t[0] > 1.0) break; // long: one run
  }
  PK(B.ctx, pds_solver_get_result(s, &r));
  if (hist) {
    const pds_real *h;
    int             len;

    PK(B.ctx, pds_solver_get_history(s, &len, &h));
    hist->assign(h, h + len);
  }
  PK(B.ctx, pds_solver_destroy(&s));
  return {median(t), r.iterations, r.reason, r.rnorm};
}

static double bicgstab_floor(long long n, long long nnz) { return 24.0 * nnz + 16.0 * (n + 1) + 152.0 * n; }
// single precision (float values and vectors, 8-byte row pointers): per product 8 nnz + 8 (n+1) + 4n (x) + 4n (y),
// the 15 vector passes 4 bytes each: 16 nnz + 16 (n+1) + 76 n. Mixed adds per refinement one double residual and
// two conversions (not per iteration; the per-iteration floor is single's).
static double bicgstab_floor_f32(long long n, long long nnz) { return 16.0 * nnz + 16.0 * (n + 1) + 76.0 * n; }
static double bicgstab_flops(long long n, long long nnz) { return 4.0 * nnz + 24.0 * n; }

struct CpuSolve {
  double per_it;     // seconds per iteration: of the solve to convergence where it ran, else over the fixed count
                     // (the first iterations run slower on /cpu/omp: 5.9 vs 3.8 ms on the 1.7M grid, H200 host)
  double t_solve;    // to convergence: measured, or per_it x the GPU's count
  int    its;        // iterations to convergence (measured, or the GPU's)
  bool   extrapolated;
};
static CpuSolve cpu_solve(Backend &B, int gpu_its) {
  pds_vec  x;
  CpuSolve c;

  PK(B.ctx, pds_vec_duplicate(B.b, &x));
  SolveRun f = solve(B, g_cpu_iters, x, 3);
  c.per_it   = f.t / std::max(f.its, 1);
  bool skip  = g_skip_cpu_solve_above > 0 && g_cur.n > g_skip_cpu_solve_above;
  if (!skip && c.per_it * gpu_its <= g_cpu_solve_max) {
    SolveRun r = solve(B, 0, x, 1);

    if (r.reason <= 0) fail("grid %d: BiCGSTAB on %s did not converge (reason %s, %d iterations, ||r|| %.3e)",
                            g_cur.grid, B.name, pds_reason_name(r.reason), r.its, r.rnorm);
    c.t_solve = r.t, c.its = r.its, c.extrapolated = false;
  } else c.t_solve = c.per_it * gpu_its, c.its = gpu_its, c.extrapolated = true;
  double fixed = c.per_it;
  if (!c.extrapolated) c.per_it = c.t_solve / std::max(c.its, 1);
  J j("bicgstab");
  j.str("backend", B.name).num("threads", pds_ctx_get_num_threads(B.ctx)).num("fixed_iterations", f.its)
      .num("time_per_it_fixed_s", fixed).num("time_per_it_s", c.per_it)
      .num("gbs_floor_bytes", bicgstab_floor(g_cur.n, g_cur.nnz) / c.per_it * 1e-9)
      .num("iterations", c.its).boolean("extrapolated", c.extrapolated);
  if (c.extrapolated) j.num("time_s_extrapolated", c.t_solve);
  else j.num("time_s", c.t_solve).num("time_per_it_converged_s", c.t_solve / std::max(c.its, 1));
  j.emit();
  PK(B.ctx, pds_vec_destroy(&x));
  return c;
}

// ---- renumbering: generator, RCM, random ------------------------------------------------------------------------
static pds_mesh random_renumber(pds_ctx ctx, pds_mesh m) {
  pds_int         n, t, nbe;
  const pds_real *xy;
  const pds_int  *tri, *bedge, *btag, *marker;
  pds_mesh        r;

  PK(ctx, pds_mesh_get_sizes(m, &n, &t, &nbe));
  PK(ctx, pds_mesh_get_arrays(m, &xy, &tri, &bedge, &btag, &marker));
  std::vector<pds_int> p(n);
  unsigned long long   s = 12345;
  for (pds_int i = 0; i < n; i++) p[i] = i;
  for (pds_int i = n - 1; i > 0; i--) { // Fisher-Yates
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    std::swap(p[i], p[(pds_int)((s >> 33) % (unsigned long long)(i + 1))]);
  }
  std::vector<pds_real> xy2(2 * (size_t)n);
  std::vector<pds_int>  tri2(3 * (size_t)t), be2(2 * (size_t)nbe);
  for (pds_int i = 0; i < n; i++) xy2[2 * (size_t)p[i]] = xy[2 * (size_t)i], xy2[2 * (size_t)p[i] + 1] = xy[2 * (size_t)i + 1];
  for (size_t q = 0; q < 3 * (size_t)t; q++) tri2[q] = p[tri[q]];
  for (size_t q = 0; q < 2 * (size_t)nbe; q++) be2[q] = p[bedge[q]];
  PK(ctx, pds_mesh_create_tri(ctx, n, xy2.data(), t, tri2.data(), nbe, be2.data(), btag, &r));
  return r;
}
// SpMV of pdesolve and cuSPARSE on the GPU assembly of mesh m; returns both times
static void renumbered_spmv(Backend &gpu, Backend &ref, pds_mesh m, const char *numbering, double *tp, double *ts) {
  Backend G = gpu, R = ref;

  G.fem = NULL, G.A = NULL, G.b = NULL, R.fem = NULL, R.A = NULL, R.b = NULL;
  assemble_first(G, m);
  PK(R.ctx, pds_fem2d_create(R.ctx, m, &R.fem));
  PK(R.ctx, pds_fem2d_assemble(R.fem, PDS_DIRICHLET_ROW, &R.A, &R.b));
  validate_assembly(R, G);
  std::vector<double> x = host_x(g_cur.n), yref = api_product(R, x);
  CsrDev              d = csr_upload(R.A);
  double             *xs = dev_copy(x.data(), g_cur.n), *yv = dev_alloc<double>(g_cur.n);
  const pds_size     *rp;
  const pds_int      *ci;
  PK(R.ctx, pds_mat_csr_get_arrays(R.A, &rp, &ci, NULL));
  double dist = 0, maxd = 0; // mean and largest |i - j| over the entries: the locality of x's reads
  for (long long i = 0; i < g_cur.n; i++)
    for (pds_size q = rp[i]; q < rp[i + 1]; q++) dist += std::fabs((double)ci[q] - i), maxd = std::max(maxd, std::fabs((double)ci[q] - i));
  *tp         = api_spmv_time(G, x, &yref);
  SpResult sp = cusparse_spmv(d, xs, yv, yref);
  *ts         = sp.t;
  double bytes = spmv_bytes(g_cur.n, g_cur.nnz);
  J("rcm").str("numbering", numbering).str("variant", "pdesolve").timing(*tp, bytes).num("mean_abs_i_minus_j",
      dist / g_cur.nnz).num("bandwidth", maxd).num("vs_cusparse", *ts / *tp).emit();
  J("rcm").str("numbering", numbering).str("variant", "cusparse").str("alg", sp.alg).timing(*ts, bytes).emit();
  LOG("  numbering %-9s: mean |i-j| %.0f, bandwidth %.0f: pdesolve %.1f us, cuSPARSE %.1f us", numbering,
      dist / g_cur.nnz, maxd, 1e6 * *tp, 1e6 * *ts);
  csr_free(d);
  CK(cudaFree(xs));
  CK(cudaFree(yv));
  for (Backend *B : {&G, &R}) {
    PK(B->ctx, pds_mat_destroy(&B->A));
    PK(B->ctx, pds_vec_destroy(&B->b));
    PK(B->ctx, pds_fem2d_destroy(&B->fem));
  }
}

// ---- one grid ---------------------------------------------------------------------------------------------------
static void run_grid(int gridno, long target, Backend *be, int nbe) {
  Backend &ref = be[0], &omp = be[1], &gpu = be[2];
  Summary  S;
  pds_mesh m;
  pds_int  n, t, nb;

  memset(&S, 0, sizeof S);
  g_cur = {};
  LOG("grid %d: %ld nodes asked", gridno, target);
  double t0 = pds_wtime();
  PK(ref.ctx, pds_mesh_generate(ref.ctx, "square", (pds_int)target, 1, &m));
  double t_mesh = pds_wtime() - t0;
  PK(ref.ctx, pds_mesh_get_sizes(m, &n, &t, &nb));
  // whole code, part 1: create and the first assembly on each backend (GPU: with the upload of the maps)
  for (int i = 0; i < nbe; i++)
    if (be[i].ctx) assemble_first(be[i], m);
  pds_size nnz;
  PK(ref.ctx, pds_mat_get_nnz(ref.A, &nnz));
  g_cur = {gridno, target, n, t, (long long)nnz};
  J("mesh").str("backend", "host").num("time_s", t_mesh).emit();
  LOG("  mesh %d nodes, %d triangles, %lld entries (%.2f per row): generated in %.3f s", n, t, (long long)nnz,
      (double)nnz / n, t_mesh);
  // validation: bits of the GPU's (and omp's) assembly
  validate_assembly(ref, gpu);
  if (omp.ctx) validate_assembly(ref, omp);
  LOG("  validation: /gpu/cuda%s matrix and rhs are /cpu/ref's bits", omp.ctx ? " and /cpu/omp" : "");
  // assembly through the API: first (above) and repeated
  for (int i = 0; i < nbe; i++)
    if (be[i].ctx) {
      double tr = assemble_repeat(be[i]);
      J j("assembly_api");
      j.str("backend", be[i].name).num("threads", pds_ctx_get_num_threads(be[i].ctx)).num("t_create_s", be[i].t_create)
          .num("t_first_s", be[i].t_asm_first).num("t_upload_s", be[i].t_upload).num("t_repeat_s", tr);
      j.emit();
      if (i == 0) S.asm_ref = tr;
      if (i == 1) S.asm_omp = tr;
      if (i == 2) S.asm_api_first = be[i].t_asm_first, S.asm_api_repeat = tr;
      LOG("  pds_fem2d_assemble on %-9s: create %.4f s, first %.4f s (upload %.4f s), repeat %.4f s", be[i].name,
          be[i].t_create, be[i].t_asm_first, be[i].t_upload, tr);
    }
  bench_assembly_kernels(ref, S);
  bench_spmv(ref, omp, gpu, S);
  // BiCGSTAB on the GPU to convergence
  pds_vec xg;
  PK(gpu.ctx, pds_vec_duplicate(gpu.b, &xg));
  SolveRun g = solve(gpu, 0, xg, 5);
  if (g.reason <= 0) fail("grid %d: BiCGSTAB on /gpu/cuda did not converge (%s after %d iterations, ||r|| %.3e)",
                          gridno, pds_reason_name(g.reason), g.its, g.rnorm);
  {
    SolveRun h = solve(gpu, 0, xg, 5, 0);

    if (h.its != g.its || h.reason != g.reason || memcmp(&h.rnorm, &g.rnorm, sizeof h.rnorm))
      fail("grid %d: BiCGSTAB with the host in the loop differs: %d iterations, ||r|| %.17g (device loop %d, %.17g)",
           gridno, h.its, h.rnorm, g.its, g.rnorm);
    S.bi_host = h.t / h.its;
  }
  { // the kernel sequence, on a copy of the system in g_seq: the same bits, the time without the whole-iteration kernel
    Backend             q = {"/gpu/cuda (sequence)", g_seq, true, NULL, NULL, NULL, 0, 0, 0};
    const pds_size     *rp;
    const pds_int      *ci;
    const pds_real     *v;
    pds_int             nr, nc;
    std::vector<double> bh(n);
    pds_vec             xq;

    PK(gpu.ctx, pds_mat_get_size(gpu.A, &nr, &nc));
    PK(gpu.ctx, pds_mat_csr_get_arrays(gpu.A, &rp, &ci, &v));
    PK(g_seq, pds_mat_create_csr(g_seq, nr, nc, (pds_size *)rp, (pds_int *)ci, (pds_real *)v, PDS_MEM_HOST,
                                 PDS_COPY_VALUES, &q.A));
    PK(gpu.ctx, pds_vec_get_values(gpu.b, bh.data(), PDS_MEM_HOST));
    PK(g_seq, pds_vec_create(g_seq, nr, &q.b));
    PK(g_seq, pds_vec_set_values(q.b, bh.data(), PDS_MEM_HOST));
    PK(g_seq, pds_vec_duplicate(q.b, &xq));
    SolveRun h = solve(q, 0, xq, 5);

    if (h.its != g.its || h.reason != g.reason || memcmp(&h.rnorm, &g.rnorm, sizeof h.rnorm))
      fail("grid %d: BiCGSTAB as the kernel sequence differs: %d iterations, ||r|| %.17g (fused %d, %.17g)", gridno,
           h.its, h.rnorm, g.its, g.rnorm);
    S.bi_seq = h.t / h.its;
    PK(g_seq, pds_vec_destroy(&xq));
    PK(g_seq, pds_vec_destroy(&q.b));
    PK(g_seq, pds_mat_destroy(&q.A));
  }
  double true_r;
  {
    pds_vec r;

    PK(gpu.ctx, pds_vec_duplicate(gpu.b, &r));
    PK(gpu.ctx, pds_mat_residual(gpu.A, gpu.b, xg, r));
    PK(gpu.ctx, pds_vec_norm2(r, &true_r));
    PK(gpu.ctx, pds_vec_destroy(&r));
    if (!(true_r <= 10 * g_atol)) fail("grid %d: /gpu/cuda BiCGSTAB's true residual %.3e > 10 atol", gridno, true_r);
  }
  double t_get;
  { // the solution to the host; before each copy a device-side x = 1.0 x makes the device copy the only valid one,
    // as after a solve
    std::vector<double> xh(n), tt;

    for (int r = 0; r < 5; r++) {
      PK(gpu.ctx, pds_vec_scale(xg, 1.0));
      CK(cudaDeviceSynchronize());
      double t1 = pds_wtime();
      PK(gpu.ctx, pds_vec_get_values(xg, xh.data(), PDS_MEM_HOST));
      tt.push_back(pds_wtime() - t1);
    }
    t_get = median(tt);
  }
  // double, single and mixed precision (paper 004 compares float and double): the same solve from x = 0 to atol,
  // up to 3x double's iterations (float may stall; mixed: 10x, its float inner solves restart often), with its
  // history; a true residual in double for each
  for (int p = 0; p < 3; p++) {
    std::vector<double>      h;
    SolveRun                 q = solve(gpu, 0, xg, 3, 1, (pds_precision)p, (p == 2 ? 10 : 3) * g.its + 100, &h);
    pds_vec                  r;
    double                   tr, flp = (p ? bicgstab_floor_f32(n, nnz) : bicgstab_floor(n, nnz)) / g_copy_bw;

    PK(gpu.ctx, pds_vec_duplicate(gpu.b, &r));
    PK(gpu.ctx, pds_mat_residual(gpu.A, gpu.b, xg, r));
    PK(gpu.ctx, pds_vec_norm2(r, &tr));
    PK(gpu.ctx, pds_vec_destroy(&r));
    S.pr_its[p] = q.its, S.pr_reason[p] = q.reason, S.pr_it[p] = q.its ? q.t / q.its : 0, S.pr_true[p] = tr;
    S.pr_floor[p] = q.its ? S.pr_it[p] / flp : 0;
    J("precision").str("backend", "/gpu/cuda").str("precision", g_prec_names[p]).num("iterations", q.its)
        .str("reason", pds_reason_name(q.reason)).num("time_s", q.t).num("time_per_it_s", S.pr_it[p])
        .num("floor_per_it_s", flp).num("per_it_over_floor", S.pr_floor[p]).num("rnorm", q.rnorm)
        .num("true_rnorm", tr).arr("history", h).emit();
    LOG("  bicgstab %-6s: %d iterations (%s), %.1f us/it (floor x%.2f), true ||r|| %.2e", g_prec_names[p], q.its,
        pds_reason_name(q.reason), 1e6 * S.pr_it[p], S.pr_floor[p], tr);
  }
  // CG in double, single and mixed (float CG with reliable updates) on the same grid with symmetric boundary rows
  // (SPD), from x = 0 to the same atol: the whole solve's time, so mixed's extra iterations and its updates count
  {
    Backend sym = gpu;
    pds_vec xs, r;

    PK(gpu.ctx, pds_fem2d_assemble(gpu.fem, PDS_DIRICHLET_SYMMETRIC, &sym.A, &sym.b));
    PK(gpu.ctx, pds_vec_duplicate(sym.b, &xs));
    PK(gpu.ctx, pds_vec_duplicate(sym.b, &r));
    for (int p = 0; p < 3; p++) {
      SolveRun q = solve(sym, 0, xs, 3, 1, (pds_precision)p, 3 * g.its + 1000, nullptr, "cg");
      double   tr;

      PK(gpu.ctx, pds_mat_residual(sym.A, sym.b, xs, r));
      PK(gpu.ctx, pds_vec_norm2(r, &tr));
      if (p != 1 && !(q.reason > 0 && tr <= (p == 2 ? 1.0 : 10.0) * g_atol)) // mixed tests the true residual
        fail("grid %d: CG %s: %s, true residual %.3e > atol", gridno, g_prec_names[p], pds_reason_name(q.reason),
             tr);
      S.cg_its[p] = q.its, S.cg_reason[p] = q.reason, S.cg_t[p] = q.t, S.cg_true[p] = tr;
      J("precision_cg").str("backend", "/gpu/cuda").str("precision", g_prec_names[p]).num("iterations", q.its)
          .str("reason", pds_reason_name(q.reason)).num("time_s", q.t)
          .num("time_per_it_s", q.its ? q.t / q.its : 0).num("true_rnorm", tr).emit();
      LOG("  cg (symmetric rows) %-6s: %d iterations (%s), %.4f s, %.1f us/it, true ||r|| %.2e", g_prec_names[p],
          q.its, pds_reason_name(q.reason), q.t, q.its ? 1e6 * q.t / q.its : 0, tr);
    }
    PK(gpu.ctx, pds_vec_destroy(&xs));
    PK(gpu.ctx, pds_vec_destroy(&r));
    PK(gpu.ctx, pds_mat_destroy(&sym.A));
    PK(gpu.ctx, pds_vec_destroy(&sym.b));
  }
  S.its = g.its, S.bi_gpu = g.t / g.its;
  double fl = bicgstab_floor(n, nnz) / g_copy_bw;
  S.bi_floor_ratio = S.bi_gpu / fl;
  LOG("  bicgstab /gpu/cuda: %d iterations, %.4f s, %.1f us/it, floor %.1f us/it (x%.2f), true ||r|| %.2e", g.its, g.t,
      1e6 * S.bi_gpu, 1e6 * fl, S.bi_floor_ratio, true_r);
  // the CPU backends
  CpuSolve cr = cpu_solve(ref, g.its), co = {};
  if (omp.ctx) co = cpu_solve(omp, g.its);
  S.bi_ref = cr.per_it, S.bi_omp = omp.ctx ? co.per_it : 0;
  {
    J j("bicgstab");
    j.str("backend", "/gpu/cuda").num("iterations", g.its).num("time_s", g.t).num("time_per_it_s", S.bi_gpu)
        .num("time_per_it_host_loop_s", S.bi_host)
        .num("time_per_it_kernel_sequence_s", S.bi_seq)
        .num("floor_per_it_s", fl).num("per_it_over_floor", S.bi_floor_ratio)
        .num("gbs_floor_bytes", bicgstab_floor(n, nnz) / S.bi_gpu * 1e-9)
        .num("frac_copy", bicgstab_floor(n, nnz) / S.bi_gpu / g_copy_bw)
        .num("gflops", bicgstab_flops(n, nnz) / S.bi_gpu * 1e-9).num("rnorm", g.rnorm).num("true_rnorm", true_r)
        .str("reason", pds_reason_name(g.reason)).num("speedup_per_it_vs_ref", cr.per_it / S.bi_gpu);
    if (omp.ctx) j.num("speedup_per_it_vs_omp", co.per_it / S.bi_gpu);
    j.emit();
  }
  LOG("  bicgstab /cpu/ref %.1f us/it (x%.1f), /cpu/omp %.1f us/it (x%.1f): speedups are per-iteration ratios",
      1e6 * cr.per_it, cr.per_it / S.bi_gpu, 1e6 * co.per_it, omp.ctx ? co.per_it / S.bi_gpu : 0);
  // whole code (paper fig 7.5)
  double whole_gpu = t_mesh + gpu.t_create + gpu.t_asm_first + g.t + t_get;
  S.whole_gpu      = whole_gpu;
  {
    J j("whole");
    j.str("backend", "/gpu/cuda").num("t_mesh_s", t_mesh).num("t_create_s", gpu.t_create)
        .num("t_assemble_s", gpu.t_asm_first).num("t_upload_s", gpu.t_upload).num("t_solve_s", g.t)
        .num("t_get_s", t_get).num("iterations", g.its).num("time_s", whole_gpu);
    j.emit();
  }
  for (int i = 0; i < 2; i++) {
    Backend &B = be[i];
    CpuSolve &c = i ? co : cr;

    if (!B.ctx) continue;
    double tg2 = 0;
    {
      pds_vec             xb;
      std::vector<double> xh(n);

      PK(B.ctx, pds_vec_duplicate(B.b, &xb));
      PK(B.ctx, pds_vec_set(xb, 0.0));
      tg2 = time_host([&] { PK(B.ctx, pds_vec_get_values(xb, xh.data(), PDS_MEM_HOST)); }, 5, 1, false);
      PK(B.ctx, pds_vec_destroy(&xb));
    }
    double tot = t_mesh + B.t_create + B.t_asm_first + c.t_solve + tg2;
    J      j("whole");
    j.str("backend", B.name).num("threads", pds_ctx_get_num_threads(B.ctx)).num("t_mesh_s", t_mesh)
        .num("t_create_s", B.t_create).num("t_assemble_s", B.t_asm_first).num("t_get_s", tg2)
        .num("iterations", c.its).boolean("extrapolated", c.extrapolated);
    if (c.extrapolated) j.num("t_solve_s_extrapolated", c.t_solve).num("time_s_extrapolated", tot);
    else j.num("t_solve_s", c.t_solve).num("time_s", tot);
    j.num("gpu_speedup", tot / whole_gpu).emit();
    (i ? S.whole_omp : S.whole_ref) = tot;
    (i ? S.omp_extrap : S.ref_extrap) = c.extrapolated;
  }
  LOG("  whole code: /gpu/cuda %.3f s, /cpu/ref %.3f s%s (x%.1f), /cpu/omp %.3f s%s (x%.1f)", whole_gpu, S.whole_ref,
      S.ref_extrap ? " extrapolated" : "", S.whole_ref / whole_gpu, S.whole_omp, S.omp_extrap ? " extrapolated" : "",
      omp.ctx ? S.whole_omp / whole_gpu : 0);
  PK(gpu.ctx, pds_vec_destroy(&xg));
  for (int i = 0; i < nbe; i++)
    if (be[i].ctx) {
      PK(be[i].ctx, pds_mat_destroy(&be[i].A));
      PK(be[i].ctx, pds_vec_destroy(&be[i].b));
      PK(be[i].ctx, pds_fem2d_destroy(&be[i].fem));
    }
  // renumbering (after the fem objects on m are gone: RCM renumbers m in place)
  if (n >= g_rcm_above) {
    pds_mesh mr = random_renumber(ref.ctx, m);

    renumbered_spmv(gpu, ref, m, "generator", &S.rcm_pds[0], &S.rcm_sp[0]);
    PK(ref.ctx, pds_mesh_reorder_rcm(m));
    renumbered_spmv(gpu, ref, m, "rcm", &S.rcm_pds[1], &S.rcm_sp[1]);
    renumbered_spmv(gpu, ref, mr, "random", &S.rcm_pds[2], &S.rcm_sp[2]);
    PK(ref.ctx, pds_mesh_destroy(&mr));
  }
  PK(ref.ctx, pds_mesh_destroy(&m));
  S.g = g_cur;
  g_sum.push_back(S);
  g_cur = {};
}

// ---- closing tables -----------------------------------------------------------------------------------------------
static void print_tables(void) {
  fprintf(stderr, "\n### paper 004 on %s (%s), copy bandwidth %.0f GB/s\n\n", g_gpu, g_machine, g_copy_bw * 1e-9);
  fprintf(stderr, "| grid | nodes | nnz | SpMV pdesolve us | cuSPARSE us | pdesolve/cuSPARSE | %%copy | paper 1k us |"
                  " paper 2k us | SpMV x ref | SpMV x omp | plan auto/best |\n");
  fprintf(stderr, "|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (const Summary &S : g_sum)
    fprintf(stderr, "| %d | %lld | %lld | %.1f | %.1f | %.2fx | %.0f | %.1f | %.1f | %.1f | %.1f | %.3f |\n", S.g.grid,
            S.g.n, S.g.nnz, 1e6 * S.spmv_pds, 1e6 * S.spmv_sp, S.spmv_sp / S.spmv_pds, 100 * S.frac_pds,
            1e6 * S.spmv_p1, 1e6 * S.spmv_p2, S.spmv_ref / S.spmv_pds, S.spmv_omp / S.spmv_pds,
            S.plan_auto_over_best);
  fprintf(stderr, "\n| grid | nodes | BiCGSTAB its | us/it (device loop) | us/it (host loop) | us/it (kernel sequence)"
                  " | floor x |\n");
  fprintf(stderr, "|---|---|---|---|---|---|---|\n");
  for (const Summary &S : g_sum)
    fprintf(stderr, "| %d | %lld | %d | %.1f | %.1f | %.1f | %.2f |\n", S.g.grid, S.g.n, S.its, 1e6 * S.bi_gpu,
            1e6 * S.bi_host, 1e6 * S.bi_seq, S.bi_floor_ratio);
  fprintf(stderr, "\n| grid | nodes | BiCGSTAB its | us/it | floor x | per-it x ref | per-it x omp | asm kernels %%copy |"
                  " asm auto/best | assemble GPU first/repeat s | ref/omp repeat s | whole GPU s | whole x ref |"
                  " whole x omp |\n");
  fprintf(stderr, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (const Summary &S : g_sum)
    fprintf(stderr, "| %d | %lld | %d | %.1f | %.2f | %.1f | %.1f | %.0f | %.3f | %.4f / %.4f | %.4f / %.4f | %.3f |"
                    " %.1f%s | %.1f%s |\n", S.g.grid, S.g.n, S.its, 1e6 * S.bi_gpu, S.bi_floor_ratio,
            S.bi_ref / S.bi_gpu, S.bi_omp / S.bi_gpu, 100 * S.asm_frac, S.asm_auto_over_best, S.asm_api_first,
            S.asm_api_repeat, S.asm_ref, S.asm_omp, S.whole_gpu, S.whole_ref / S.whole_gpu, S.ref_extrap ? "*" : "",
            S.whole_omp / S.whole_gpu, S.omp_extrap ? "*" : "");
  fprintf(stderr, "\n| grid | nodes | precision | BiCGSTAB its | reason | us/it | us/it x double | floor x |"
                  " true ||r||_2 |\n|---|---|---|---|---|---|---|---|---|\n");
  for (const Summary &S : g_sum)
    for (int p = 0; p < 3; p++)
      fprintf(stderr, "| %d | %lld | %s | %d | %s | %.1f | %.2f | %.2f | %.2e |\n", S.g.grid, S.g.n,
              g_prec_names[p], S.pr_its[p], pds_reason_name(S.pr_reason[p]),
              1e6 * S.pr_it[p], S.pr_it[0] > 0 ? S.pr_it[p] / S.pr_it[0] : 0, S.pr_floor[p], S.pr_true[p]);
  fprintf(stderr, "\n| grid | nodes | precision | CG its (symmetric rows) | reason | solve ms | us/it | solve x double |"
                  " true ||r||_2 |\n|---|---|---|---|---|---|---|---|---|\n");
  for (const Summary &S : g_sum)
    for (int p = 0; p < 3; p++)
      fprintf(stderr, "| %d | %lld | %s | %d | %s | %.2f | %.1f | %.2f | %.2e |\n", S.g.grid, S.g.n,
              g_prec_names[p], S.cg_its[p], pds_reason_name(S.cg_reason[p]),
              1e3 * S.cg_t[p], S.cg_its[p] ? 1e6 * S.cg_t[p] / S.cg_its[p] : 0,
              S.cg_t[0] > 0 ? S.cg_t[p] / S.cg_t[0] : 0, S.cg_true[p]);
  fprintf(stderr, "\n(* CPU solve extrapolated: time per iteration x the iteration count to convergence on the GPU)\n");
  bool any = false;
  for (const Summary &S : g_sum) any = any || S.rcm_pds[0] > 0;
  if (any) {
    fprintf(stderr, "\n| grid | nodes | pdesolve us: generator / RCM / random | cuSPARSE us: generator / RCM / random |\n");
    fprintf(stderr, "|---|---|---|---|\n");
    for (const Summary &S : g_sum)
      if (S.rcm_pds[0] > 0)
        fprintf(stderr, "| %d | %lld | %.1f / %.1f / %.1f | %.1f / %.1f / %.1f |\n", S.g.grid, S.g.n,
                1e6 * S.rcm_pds[0], 1e6 * S.rcm_pds[1], 1e6 * S.rcm_pds[2], 1e6 * S.rcm_sp[0], 1e6 * S.rcm_sp[1],
                1e6 * S.rcm_sp[2]);
  }
}

// ---- main -------------------------------------------------------------------------------------------------------
static const char *g_usage =
    "usage: bench_fem2d_gpu [-nodes 107,452,46068,106377,424129,1694081] [-reps 20] [-warmup 3] [-cpu_iters 30]\n"
    "       [-cpu_solve_max_s 10] [-skip_cpu_solve_above 0] [-sweep_above 400000] [-rcm_above 40000] [-atol 1e-6]\n"
    "       [-maxit 200000] [-help]\n"
    "  JSON lines to stdout, log and markdown tables to stderr. -skip_cpu_solve_above N: never run a CPU solve to\n"
    "  convergence on grids of more than N nodes (0: only the -cpu_solve_max_s rule); -sweep_above: the paper kernels'\n"
    "  launch sweep on grids of at least that many nodes; -rcm_above: the renumbering study from that size.\n";

int main(int argc, char **argv) {
  g_t0 = pds_wtime();
  for (int i = 1; i < argc; i++) {
    std::string o = argv[i];

    if (o == "-help" || o == "--help" || o == "-h") {
      fputs(g_usage, stdout);
      return 0;
    }
    if (i + 1 >= argc) fprintf(stderr, "option %s needs a value\n%s", argv[i], g_usage), exit(2);
    const char *v = argv[++i];
    if (o == "-nodes") {
      g_nodes.clear();
      std::string s = v;
      for (size_t p = 0; p <= s.size();) {
        size_t q = s.find(',', p);
        if (q == std::string::npos) q = s.size();
        g_nodes.push_back(parse_long("-nodes", s.substr(p, q - p).c_str()));
        p = q + 1;
      }
    } else if (o == "-reps") g_reps = (int)parse_long(argv[i - 1], v);
    else if (o == "-warmup") g_warm = (int)parse_long(argv[i - 1], v);
    else if (o == "-cpu_iters") g_cpu_iters = (int)parse_long(argv[i - 1], v);
    else if (o == "-cpu_solve_max_s") g_cpu_solve_max = parse_double(argv[i - 1], v);
    else if (o == "-skip_cpu_solve_above") g_skip_cpu_solve_above = parse_long(argv[i - 1], v);
    else if (o == "-sweep_above") g_sweep_above = parse_long(argv[i - 1], v);
    else if (o == "-rcm_above") g_rcm_above = parse_long(argv[i - 1], v);
    else if (o == "-atol") g_atol = parse_double(argv[i - 1], v);
    else if (o == "-maxit") g_maxit = (int)parse_long(argv[i - 1], v);
    else fprintf(stderr, "unknown option '%s'\n%s", o.c_str(), g_usage), exit(2);
  }
  if (g_reps < 1 || g_warm < 0 || g_cpu_iters < 1 || g_maxit < 1 || !(g_atol > 0) || g_nodes.empty())
    fprintf(stderr, "bad option value\n%s", g_usage), exit(2);
  int         ndev = 0;
  cudaError_t e    = cudaGetDeviceCount(&ndev);
  if (e != cudaSuccess || ndev == 0) { // make bench runs every benchmark: say so and succeed
    fprintf(stderr, "bench_fem2d_gpu: no CUDA device here (%s); nothing measured\n",
            e != cudaSuccess ? cudaGetErrorString(e) : "none found");
    return 0;
  }
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  snprintf(g_gpu, sizeof g_gpu, "%s", prop.name);
  if (gethostname(g_machine, sizeof g_machine)) snprintf(g_machine, sizeof g_machine, "unknown");
  g_machine[sizeof g_machine - 1] = 0;
  LOG("bench_fem2d_gpu on %s: %s, %d SMs, %.0f MB L2, %.1f GB", g_machine, prop.name, prop.multiProcessorCount,
      prop.l2CacheSize / 1e6, prop.totalGlobalMem / 1e9);
  CKS(cusparseCreate(&g_sp));
  Backend be[3] = {{"/cpu/ref", NULL, false, NULL, NULL, NULL, 0, 0, 0},
                   {"/cpu/omp", NULL, false, NULL, NULL, NULL, 0, 0, 0},
                   {"/gpu/cuda", NULL, true, NULL, NULL, NULL, 0, 0, 0}};
  PK(NULL, pds_ctx_create("/cpu/ref", &be[0].ctx));
  for (int i = 0; i < pds_backend_count(); i++)
    if (!strcmp(pds_backend_name(i), "/cpu/omp") && pds_backend_compiled(i)) PK(NULL, pds_ctx_create("/cpu/omp", &be[1].ctx));
  PK(NULL, pds_ctx_create("/gpu/cuda", &be[2].ctx));
  setenv("PDS_CUDA_SMALL", "0", 1);
  PK(NULL, pds_ctx_create("/gpu/cuda", &g_seq));
  unsetenv("PDS_CUDA_SMALL");
  LOG("/cpu/omp: %s (%d threads)", be[1].ctx ? "compiled" : "not compiled", be[1].ctx ? pds_ctx_get_num_threads(be[1].ctx) : 0);
  measure_copy(1LL << 26);
  { // untimed warm-up of the whole GPU pipeline on a small mesh: module loading, the pool, handles
    pds_mesh m;
    pds_vec  x;

    PK(be[0].ctx, pds_mesh_generate(be[0].ctx, "square", 2000, 1, &m));
    assemble_first(be[2], m);
    PK(be[2].ctx, pds_vec_duplicate(be[2].b, &x));
    solve(be[2], 0, x, 1);
    PK(be[2].ctx, pds_vec_destroy(&x));
    PK(be[2].ctx, pds_mat_destroy(&be[2].A));
    PK(be[2].ctx, pds_vec_destroy(&be[2].b));
    PK(be[2].ctx, pds_fem2d_destroy(&be[2].fem));
    PK(be[0].ctx, pds_mesh_destroy(&m));
  }
  for (long target : g_nodes) {
    static const long paper[6] = {107, 452, 46068, 106377, 424129, 1694081};
    int               gridno   = 0;

    for (int k = 0; k < 6; k++)
      if (target == paper[k]) gridno = k + 1;
    run_grid(gridno, target, be, 3);
  }
  print_tables();
  CKS(cusparseDestroy(g_sp));
  for (Backend &B : be) PK(B.ctx, pds_ctx_destroy(&B.ctx));
  PK(NULL, pds_ctx_destroy(&g_seq));
  LOG("done");
  return 0;
}
