// bench/gpu/bench_ilu: ILU(0) of general sparse matrices (-pc ilu0, docs/ilu0.md) on /gpu/cuda against cuSPARSE's
// csrilu02 + SpSV (L, then U) on the same CSR matrix in the same run, with /cpu/omp on all the host's cores.
//   bench_ilu [-sizes 64,128] [-shared DIR] [-mats s1rmq4m1,e20r0000,bcsstk13] [-reps 20] [-json FILE]
// Cases: poisson7 on m^3 grids (-sizes, generated) and shared matrices (-shared: ../shared/matrices). Per case:
//   - validation first: pdesolve's y = M^-1 x on /gpu/cuda against /cpu/ref's, bit for bit (the library's claim),
//     and cuSPARSE's against it (relative 1e-8 of max |y|: the same factorization, other roundings);
//   - pdesolve: the first setup (analysis: the pattern, its level schedules; and the factorization), a
//     refactorization (pds_precond_update_values, the same pattern: no analysis), one application (two sweeps);
//   - cuSPARSE: csrilu02's and SpSV's analyses, the factorization, one application (SpSV L then U);
//   - the device copy bandwidth (cudaMemcpy device to device) and each application's fraction of it under the byte
//     model: 12 nnz + 8 n (int32 column index) + 8 (row pointer) n ... counted as 12 nnz + 24 n bytes (the factor's
//     values and column indices, b read, x written and read back by the backward sweep).
// Times: medians of -reps runs after warm-up, host wall time around calls that end with a device synchronize.
#define DISABLE_CUSPARSE_DEPRECATED // csrilu02 is deprecated since CUDA 12 but still cuSPARSE's ILU(0)
#include <cuda_runtime.h>
#include <cusparse.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "bench_log.cuh"
#include "gpu_bench_util.cuh"

static FILE       *g_json;
static int         g_reps = 20;
static double      g_bw;
static std::string g_gpu;

// y = M^-1 x with ilu0 on ctx; also the setup and refactor times and the application time when time != 0
struct PdsRun {
  std::vector<double> y;
  double              t_setup = 0, t_refactor = 0, t_apply = 0;
  int                 levels_f = 0;
};

static PdsRun pds_ilu0_run(pds_ctx ctx, const pds_size *rp, const pds_int *ci, const pds_real *v, pds_int n,
                           const std::vector<double> &x, bool time) {
  PdsRun      r;
  pds_mat     A;
  pds_precond P;
  pds_vec     X, Y;

  PK(ctx, pds_mat_create_csr(ctx, n, n, (pds_size *)rp, (pds_int *)ci, (pds_real *)v, PDS_MEM_HOST, PDS_COPY_VALUES, &A));
  PK(ctx, pds_precond_create(ctx, "ilu0", &P));
  PK(ctx, pds_precond_set_operator(P, A));
  PK(ctx, pds_vec_create(ctx, n, &X));
  PK(ctx, pds_vec_create(ctx, n, &Y));
  PK(ctx, pds_vec_set_values(X, x.data(), PDS_MEM_HOST));
  {
    double t0 = pds_wtime();

    PK(ctx, pds_precond_setup(P));
    cudaDeviceSynchronize();
    r.t_setup = pds_wtime() - t0;
  }
  PK(ctx, pds_precond_apply(P, X, Y));
  r.y.resize(n);
  PK(ctx, pds_vec_get_values(Y, r.y.data(), PDS_MEM_HOST));
  if (time) {
    r.t_refactor = host_median([&] { PK(ctx, pds_precond_update_values(P, A)); }, 2, std::max(3, g_reps / 4), true);
    r.t_apply    = host_median([&] { PK(ctx, pds_precond_apply(P, X, Y)); }, 3, g_reps, true);
  }
  pds_vec_destroy(&X), pds_vec_destroy(&Y), pds_precond_destroy(&P), pds_mat_destroy(&A);
  return r;
}

struct SpRun {
  std::vector<double> y;
  double              t_ana_ilu = 0, t_ana_sv = 0, t_factor = 0, t_apply = 0;
  int                 zero_pivot = -1; // cuSPARSE refused the matrix: a structurally or numerically zero pivot here
};

// cuSPARSE: csrilu02 (level information) on a copy of the values, SpSV lower-unit then upper
static SpRun cusparse_run(const CsrDev &d, const std::vector<double> &x) {
  SpRun              r;
  cusparseHandle_t   h;
  cusparseMatDescr_t descr;
  csrilu02Info_t     info;
  int                bsz = 0, pos = 0;
  void              *buf;
  double            *lu, *dx, *dt, *dy;
  const int          n = d.n, nnz = (int)d.nnz;
  const double       one = 1.0;

  CKS(cusparseCreate(&h));
  CKS(cusparseCreateMatDescr(&descr));
  CKS(cusparseSetMatIndexBase(descr, CUSPARSE_INDEX_BASE_ZERO));
  CKS(cusparseSetMatType(descr, CUSPARSE_MATRIX_TYPE_GENERAL));
  CKS(cusparseCreateCsrilu02Info(&info));
  CK(cudaMalloc(&lu, sizeof(double) * nnz));
  CK(cudaMemcpy(lu, d.v, sizeof(double) * nnz, cudaMemcpyDeviceToDevice));
  CKS(cusparseDcsrilu02_bufferSize(h, n, nnz, descr, lu, d.rp32, d.ci, info, &bsz));
  CK(cudaMalloc(&buf, bsz));
  r.t_ana_ilu = host_median([&] {
    CKS(cusparseDcsrilu02_analysis(h, n, nnz, descr, lu, d.rp32, d.ci, info, CUSPARSE_SOLVE_POLICY_USE_LEVEL, buf));
  }, 0, 1, true);
  if (cusparseXcsrilu02_zeroPivot(h, info, &pos) == CUSPARSE_STATUS_ZERO_PIVOT) { // a missing diagonal
    r.zero_pivot = pos;
    cudaFree(buf), cudaFree(lu), cusparseDestroyCsrilu02Info(info), cusparseDestroyMatDescr(descr), cusparseDestroy(h);
    return r;
  }
  r.t_factor = host_median([&] {
    CK(cudaMemcpy(lu, d.v, sizeof(double) * nnz, cudaMemcpyDeviceToDevice));
    CKS(cusparseDcsrilu02(h, n, nnz, descr, lu, d.rp32, d.ci, info, CUSPARSE_SOLVE_POLICY_USE_LEVEL, buf));
  }, 1, std::max(3, g_reps / 4), true);
  {
    const double tc = host_median([&] { CK(cudaMemcpy(lu, d.v, sizeof(double) * nnz, cudaMemcpyDeviceToDevice)); }, 1,
                                  std::max(3, g_reps / 4), true);

    r.t_factor = std::max(0.0, r.t_factor - tc); // without the copy of the values
  }
  CK(cudaMemcpy(lu, d.v, sizeof(double) * nnz, cudaMemcpyDeviceToDevice));
  CKS(cusparseDcsrilu02(h, n, nnz, descr, lu, d.rp32, d.ci, info, CUSPARSE_SOLVE_POLICY_USE_LEVEL, buf));
  CK(cudaDeviceSynchronize());
  if (cusparseXcsrilu02_zeroPivot(h, info, &pos) == CUSPARSE_STATUS_ZERO_PIVOT) {
    r.zero_pivot = pos;
    cudaFree(buf), cudaFree(lu), cusparseDestroyCsrilu02Info(info), cusparseDestroyMatDescr(descr), cusparseDestroy(h);
    return r;
  }
  CK(cudaMalloc(&dx, sizeof(double) * n));
  CK(cudaMalloc(&dt, sizeof(double) * n));
  CK(cudaMalloc(&dy, sizeof(double) * n));
  CK(cudaMemcpy(dx, x.data(), sizeof(double) * n, cudaMemcpyHostToDevice));
  cusparseSpMatDescr_t L, U;
  cusparseDnVecDescr_t vx, vt, vy;
  cusparseSpSVDescr_t  sL, sU;
  cusparseFillMode_t   lo = CUSPARSE_FILL_MODE_LOWER, up = CUSPARSE_FILL_MODE_UPPER;
  cusparseDiagType_t   unit = CUSPARSE_DIAG_TYPE_UNIT, nonunit = CUSPARSE_DIAG_TYPE_NON_UNIT;
  size_t               bl = 0, bu = 0;
  void                *bufl, *bufu;

  CKS(cusparseCreateCsr(&L, n, n, nnz, d.rp32, d.ci, lu, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                        CUDA_R_64F));
  CKS(cusparseCreateCsr(&U, n, n, nnz, d.rp32, d.ci, lu, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                        CUDA_R_64F));
  CKS(cusparseSpMatSetAttribute(L, CUSPARSE_SPMAT_FILL_MODE, &lo, sizeof lo));
  CKS(cusparseSpMatSetAttribute(L, CUSPARSE_SPMAT_DIAG_TYPE, &unit, sizeof unit));
  CKS(cusparseSpMatSetAttribute(U, CUSPARSE_SPMAT_FILL_MODE, &up, sizeof up));
  CKS(cusparseSpMatSetAttribute(U, CUSPARSE_SPMAT_DIAG_TYPE, &nonunit, sizeof nonunit));
  CKS(cusparseCreateDnVec(&vx, n, dx, CUDA_R_64F));
  CKS(cusparseCreateDnVec(&vt, n, dt, CUDA_R_64F));
  CKS(cusparseCreateDnVec(&vy, n, dy, CUDA_R_64F));
  CKS(cusparseSpSV_createDescr(&sL));
  CKS(cusparseSpSV_createDescr(&sU));
  CKS(cusparseSpSV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, L, vx, vt, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, sL, &bl));
  CKS(cusparseSpSV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, U, vt, vy, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, sU, &bu));
  CK(cudaMalloc(&bufl, bl + 1));
  CK(cudaMalloc(&bufu, bu + 1));
  r.t_ana_sv = host_median([&] {
    CKS(cusparseSpSV_analysis(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, L, vx, vt, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, sL, bufl));
    CKS(cusparseSpSV_analysis(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, U, vt, vy, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, sU, bufu));
  }, 0, 1, true);
  auto apply = [&] {
    CKS(cusparseSpSV_solve(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, L, vx, vt, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, sL));
    CKS(cusparseSpSV_solve(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, U, vt, vy, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, sU));
  };
  apply();
  CK(cudaDeviceSynchronize());
  r.y.resize(n);
  CK(cudaMemcpy(r.y.data(), dy, sizeof(double) * n, cudaMemcpyDeviceToHost));
  r.t_apply = host_median(apply, 3, g_reps, true);
  cusparseSpSV_destroyDescr(sL), cusparseSpSV_destroyDescr(sU);
  cusparseDestroyDnVec(vx), cusparseDestroyDnVec(vt), cusparseDestroyDnVec(vy);
  cusparseDestroySpMat(L), cusparseDestroySpMat(U);
  cudaFree(bufl), cudaFree(bufu), cudaFree(buf), cudaFree(lu), cudaFree(dx), cudaFree(dt), cudaFree(dy);
  cusparseDestroyCsrilu02Info(info), cusparseDestroyMatDescr(descr), cusparseDestroy(h);
  return r;
}

static double rel_diff(const std::vector<double> &a, const std::vector<double> &b) {
  double d = 0, m = 0;

  for (size_t i = 0; i < a.size(); i++) d = std::max(d, std::fabs(a[i] - b[i])), m = std::max(m, std::fabs(b[i]));
  return m > 0 ? d / m : d;
}

static void run_case(pds_ctx gpu, pds_ctx omp, pds_ctx ref, const std::string &name, pds_mat A0) {
  const pds_size *rp;
  const pds_int  *ci;
  const pds_real *v;
  pds_int         n, nc;
  pds_size        nnz;

  PK(ref, pds_mat_csr_get_arrays(A0, &rp, &ci, &v));
  PK(ref, pds_mat_get_size(A0, &n, &nc));
  PK(ref, pds_mat_get_nnz(A0, &nnz));
  std::vector<double> x(n);
  for (pds_int i = 0; i < n; i++) x[i] = std::sin(0.37 * i + 1.0);
  LOG("%s: n %d, nnz %lld", name.c_str(), (int)n, (long long)nnz);
  PdsRun rr = pds_ilu0_run(ref, rp, ci, v, n, x, false);
  PdsRun rg = pds_ilu0_run(gpu, rp, ci, v, n, x, true);
  PdsRun ro = pds_ilu0_run(omp, rp, ci, v, n, x, true);
  if (memcmp(rg.y.data(), rr.y.data(), sizeof(double) * n)) fail("%s: /gpu/cuda's M^-1 x is not /cpu/ref's bits (rel %.2e)", name.c_str(), rel_diff(rg.y, rr.y));
  if (memcmp(ro.y.data(), rr.y.data(), sizeof(double) * n)) fail("%s: /cpu/omp's M^-1 x is not /cpu/ref's bits", name.c_str());
  CsrDev d  = csr_upload(A0);
  SpRun  sr = cusparse_run(d, x);
  const bool   sp = sr.zero_pivot < 0;
  const double rd = sp ? rel_diff(sr.y, rr.y) : 0;
  if (!(rd <= 1e-8)) fail("%s: cuSPARSE's M^-1 x differs from pdesolve's by %.2e", name.c_str(), rd);
  csr_free(d);
  const double bytes = 12.0 * nnz + 24.0 * n, floor = bytes / g_bw;
  if (!sp) {
    LOG("%s: cuSPARSE csrilu02 stops at a zero pivot in row %d (a diagonal entry the pattern lacks); pdesolve adds "
        "it", name.c_str(), sr.zero_pivot);
    printf("| %s | %d | %lld | %.3f | %.3f | - | %.3f | - | %.2f | zero pivot (row %d) | %.3f | %.1fx | - | - | - |\n",
           name.c_str(), (int)n, (long long)nnz, rg.t_setup * 1e3, rg.t_refactor * 1e3, rg.t_apply * 1e3,
           floor / rg.t_apply, sr.zero_pivot, ro.t_apply * 1e3, ro.t_apply / rg.t_apply);
    return;
  }
  printf("| %s | %d | %lld | %.3f | %.3f | %.3f | %.3f | %.1fx | %.2f | %.3f | %.3f | %.1fx | %.2f | %.3f + %.3f | %.2e |\n",
         name.c_str(), (int)n, (long long)nnz, rg.t_setup * 1e3, rg.t_refactor * 1e3, sr.t_factor * 1e3,
         rg.t_apply * 1e3, sr.t_apply / rg.t_apply, floor / rg.t_apply, sr.t_apply * 1e3, ro.t_apply * 1e3,
         ro.t_apply / rg.t_apply, sr.t_factor / rg.t_refactor, sr.t_ana_ilu * 1e3, sr.t_ana_sv * 1e3, rd);
  fflush(stdout);
  if (g_json)
    fprintf(g_json,
            "{\"bench\":\"ilu\",\"gpu\":\"%s\",\"case\":\"%s\",\"n\":%d,\"nnz\":%lld,\"copy_gbs\":%.1f,"
            "\"pds_setup_s\":%.6e,\"pds_refactor_s\":%.6e,\"pds_apply_s\":%.6e,\"omp_setup_s\":%.6e,"
            "\"omp_refactor_s\":%.6e,\"omp_apply_s\":%.6e,\"cusparse_ilu_analysis_s\":%.6e,"
            "\"cusparse_spsv_analysis_s\":%.6e,\"cusparse_factor_s\":%.6e,\"cusparse_apply_s\":%.6e,"
            "\"bytes_model\":%.0f,\"frac_copy\":%.4f,\"cusparse_rel_diff\":%.3e,\"bitwise_ref\":true}\n",
            g_gpu.c_str(), name.c_str(), (int)n, (long long)nnz, g_bw * 1e-9, rg.t_setup, rg.t_refactor, rg.t_apply,
            ro.t_setup, ro.t_refactor, ro.t_apply, sr.t_ana_ilu, sr.t_ana_sv, sr.t_factor, sr.t_apply, bytes,
            floor / rg.t_apply, rd);
}

int main(int argc, char **argv) {
  std::vector<int>         sizes = {64, 128};
  std::vector<std::string> mats  = {"s1rmq4m1", "e20r0000", "bcsstk13", "utm1700a"};
  std::string              shared;
  pds_ctx                  gpu, omp, ref;

  g_t0 = pds_wtime();
  for (int i = 1; i < argc; i++) {
    std::string o = argv[i];

    if (i + 1 >= argc) fail("option %s needs a value", argv[i]);
    std::string val = argv[++i];
    auto        list = [&](std::vector<std::string> &out) {
      out.clear();
      for (size_t p = 0; p < val.size();) {
        size_t q = val.find(',', p);
        if (q == std::string::npos) q = val.size();
        if (q > p) out.push_back(val.substr(p, q - p));
        p = q + 1;
      }
    };
    if (o == "-sizes") {
      std::vector<std::string> s;
      list(s);
      sizes.clear();
      for (auto &t : s) sizes.push_back((int)parse_long("-sizes", t.c_str()));
    } else if (o == "-mats") list(mats);
    else if (o == "-shared") shared = val;
    else if (o == "-reps") g_reps = (int)parse_long("-reps", val.c_str());
    else if (o == "-json") {
      if (!(g_json = fopen(val.c_str(), "w"))) fail("cannot write %s", val.c_str());
    } else fail("unknown option %s (bench_ilu [-sizes 64,128] [-shared DIR] [-mats a,b] [-reps 20] [-json FILE])", o.c_str());
  }
  PK(nullptr, pds_ctx_create("/gpu/cuda", &gpu));
  PK(nullptr, pds_ctx_create("/cpu/omp", &omp));
  PK(nullptr, pds_ctx_create("/cpu/ref", &ref));
  {
    cudaDeviceProp pr;
    double        *a, *b;
    const size_t   nb = (size_t)1 << 28;

    CK(cudaGetDeviceProperties(&pr, 0));
    g_gpu = pr.name;
    CK(cudaMalloc(&a, nb));
    CK(cudaMalloc(&b, nb));
    CK(cudaMemset(a, 0, nb));
    g_bw = 2.0 * nb / host_median([&] { CK(cudaMemcpy(b, a, nb, cudaMemcpyDeviceToDevice)); }, 2, 9, true);
    cudaFree(a), cudaFree(b);
  }
  printf("### bench_ilu: ILU(0) on %s, copy bandwidth %.0f GB/s; /cpu/omp %d threads\n\n", g_gpu.c_str(), g_bw * 1e-9,
         pds_ctx_get_num_threads(omp));
  printf("Times in ms (medians). pdesolve: /gpu/cuda ilu0 (variant levels); cuSPARSE: csrilu02 (level policy) + SpSV "
         "L then U. x cuSPARSE > 1: pdesolve faster. frac floor: the traffic floor (12 nnz + 24 n bytes at the copy "
         "bandwidth) over the application's time.\n\n");
  printf("| matrix | n | nnz | setup (analysis + factor) | refactor | cuSPARSE factor | apply | x cuSPARSE | frac floor "
         "| cuSPARSE apply | omp apply | x omp | refactor x cuSPARSE factor | cuSPARSE analyses ilu02 + SpSV | "
         "cuSPARSE rel diff |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (int m : sizes) {
    pds_problem p;
    pds_int     dims[3] = {m, m, m};

    PK(ref, pds_problem_generate(ref, "poisson7", dims, 3, &p));
    run_case(gpu, omp, ref, "poisson7 " + std::to_string(m) + "^3", p.A);
    pds_problem_destroy(&p);
  }
  if (!shared.empty())
    for (auto &name : mats) {
      pds_mat A;
      std::string path = shared + "/matrices/" + name + ".mtx";

      PK(ref, pds_mm_read_mat(ref, path.c_str(), &A));
      run_case(gpu, omp, ref, name, A);
      pds_mat_destroy(&A);
    }
  if (g_json) fclose(g_json);
  pds_ctx_destroy(&gpu), pds_ctx_destroy(&omp), pds_ctx_destroy(&ref);
  return 0;
}
