// bench/gpu/bench_ilu: ILU(0) of general sparse matrices (-pc ilu0, docs/ilu0.md) on /gpu/cuda, every variant, against
// cuSPARSE on the same matrix in the same run (csrilu02 + SpSV L then U for CSR, bsrilu02 + bsrsv2 L then U for BSR),
// with /cpu/omp (all the host's cores) beside it, and GMRES(30) + ilu0 to 1e-8 with each variant.
//   bench_ilu [-sizes 64,128] [-bsr_bs 4,5,6] [-bsr_grid 100] [-bsr_matrix auto|channel|random] [-channel_max 50]
//             [-fem_grids 5,6] [-shared DIR] [-mats s1rmq4m1,e20r0000,bcsstk13,utm1700a]
//             [-variants levels,syncfree,approx-jacobi,approx-chow] [-sweeps 3] [-factor_sweeps 3] [-reps 20]
//             [-ref_max_work 3e7] [-gmres_maxit 3000] [-gmres_rtol 1e-8] [-gmres_reps 3] [-gmres_max_s 2]
//             [-budget_s 120] [-no_gmres] [-json FILE]
// (a list option takes "none" for no case of its kind.)
// Cases, in this order:
//   - poisson7 on m^3 grids (-sizes; csr, generated);
//   - 7-point block matrices with b x b blocks, b in -bsr_bs, on a -bsr_grid^3 grid (1M block rows at 100), as BSR
//     (pds_mat_convert_to_bsr of the stencil7 matrix, row-major blocks): pds_channel_generate's system (CFL 10; b = 4,
//     5, 6) on grids up to -channel_max^3, pds_stencil7_random (dominance 1.5) above or for other b, unless
//     -bsr_matrix says which (the channel generator is a sequential host loop, about 10 s for 100^3 with b = 6 on a
//     2-core VM; ILU(0)'s times do not depend on the values, its iteration counts do: random dominant matrices
//     converge in a few iterations), so the default cases are random matrices;
//   - paper 004's FEM matrices (P1 on a generated unit-square mesh, problem "paper", Dirichlet rows, the nodes
//     renumbered by reverse Cuthill-McKee: the generator's numbering leaves about 1.2 rows a level, a sequential
//     chain for any ILU(0) sweep, cuSPARSE's included) of grids -fem_grids (1..6: 107, 452, 46068, 106377, 424129, 1694081 nodes; assembled on /cpu/omp);
//   - shared matrices (-shared: ../shared, reads DIR/matrices/NAME.mtx).
// Per case:
//   - the references: /cpu/ref (or /cpu/omp where the case's work, stored scalar entries x b, exceeds -ref_max_work:
//     ref's one thread would take most of the budget; the CPU backends give the same bits, checked where both run)
//     computes y = M^-1 x (x_i = sin(0.37 i + 1)) with the exact ilu0 and with each approximate variant;
//   - /cpu/omp's exact ilu0 (its own choice of order): first setup, refactorization, application; its y must be ref's
//     bits;
//   - cuSPARSE: analyses, factorization (the copy of the original values subtracted), one application; its y
//     against the exact one (relative 1e-8 of max |y|: the same factorization, other roundings); a zero pivot (a
//     diagonal the pattern lacks: pdesolve adds it) leaves cuSPARSE out of the case;
//   - every /gpu/cuda variant (-variants): the first setup (analysis: the pattern, its level schedules, none for
//     approx-chow; and the factorization), a refactorization (pds_precond_update_values with the same matrix: the
//     copy of the values and the factorization, no analysis), one application; y bit for bit: the exact variants
//     (levels, syncfree, auto) against the exact reference, approx-jacobi and approx-chow against the reference
//     running the same approximate variant with the same sweep counts (-sweeps: Jacobi sweeps per triangle after
//     the first, -factor_sweeps: Chow-Patel sweeps; pds_precond_ilu0_set_sweeps); a variant whose setup fails
//     (a zero pivot of the Chow-Patel start U = A, say) is "unavailable" when the reference fails alike;
//   - GMRES(30) + that variant on /gpu/cuda: b = A 1, x0 = 0, ||r||_2 <= 1e-8 ||b||_2, at most -gmres_maxit
//     iterations; the iterations, the reason it stopped, the true residual and the solve time (median of up to
//     -gmres_reps solves; the preconditioner is set up before, its setup time is the column beside). A probe of
//     10 iterations (after a warm-up of 3) gives the time per iteration; a solve gets at most min(-gmres_max_s,
//     its share of the budget left) and maxit is cut to fit (the JSON says so: gmres_maxit, gmres_cut); a second
//     and third solve only when the first converged and while they fit the same share.
// Budget: -budget_s (default 120 s) is the run's target: every case's fixed part (references, timings, cuSPARSE) is
// estimated from its size and reserved; GMRES gets what is left, shared among the runs still to come (a run may take
// up to twice its even share, since most finish early); a case that starts after the deadline is skipped (a "skip"
// JSON line). Estimated run time on an H100 with a 16-core host, default options: about 100-120 s.
// Times: medians after warm-up, host wall time around calls that end with a device synchronize; as many repetitions
// as fit 0.4 s (3 .. -reps) per measurement.
// Byte models (8-byte reals, 4-byte column indices; the factor's pattern is A's with every diagonal block present:
// nb block rows of b x b blocks, N = nb b unknowns, m_L strictly lower, m_U strictly upper and nb diagonal blocks,
// B = 8 b^2 + 4 bytes a block with its column index; row pointers and the write-allocate reads not counted):
//   exact application (levels, syncfree, cuSPARSE): B (m_L + m_U + nb) + 24 N (the factor once, b read, x written and
//     read back by the backward sweep); b = 1: 12 nnz + 24 n, the model of the first version of this benchmark;
//   approximate application (approx-jacobi, approx-chow; s = -sweeps): s forward Jacobi sweeps, each reading the
//     strictly lower part (B m_L), and s + 1 backward ones, each the upper part with the inverted diagonal
//     (B (m_U + nb)), i.e. 2 s + 1 sweeps of about half the matrix each (the first forward iterate is b itself, not a
//     sweep); each sweep reads its right-hand side and the previous iterate and writes the next: 24 N, 16 N for the
//     first of each triangle (its iterate is b, or zero): B (s m_L + (s + 1)(m_U + nb)) + 24 N (2 s + 1) - 16 N
//     (- 8 N when s = 0);
//   exact factorization (refactor of levels, syncfree, approx-jacobi; cuSPARSE's factor): every block read and
//     written once, (16 b^2 + 4) (m_L + m_U + nb): a floor (the rows k each row reads again are not counted, nor
//     the copy of A's values into the factor, which every refactor time includes);
//   approx-chow factorization (fs = -factor_sweeps): the start (L = 0, U = A: A read, the factor written,
//     (16 b^2 + 4) nnzb) and fs Chow-Patel sweeps, each reading the factor twice (the row and the rows and columns
//     it is multiplied with), writing it once and reading A once: (32 b^2 + 8) nnzb per sweep;
//   fractions: the model's bytes at the device copy bandwidth (cudaMemcpy device to device, measured in the run)
//     over the measured time.
// Output: a markdown table on stdout, one row per case x variant (and cuSPARSE's and /cpu/omp's row per case), each
// printed (flushed) when measured, so a run cut by a timeout still leaves its rows; a summary table per case at the
// end. JSON lines (-json FILE, flushed per line): "copy", "case" (sizes, reference), "variant" (backend, variant,
// t_setup, t_refactor, t_apply (seconds), bytes_apply, frac_copy, frac_copy_refactor, x_cusparse (cuSPARSE's apply
// over this one's), bitwise_ref, reference, rel_diff_exact (approximate variants: their y against the exact y),
// gmres_its, gmres_time, gmres_total (t_setup + gmres_time), gmres_reason, gmres_true_rel, gmres_maxit, gmres_reps,
// gmres_cut, gmres_skip), "cusparse" (analyses, factor, apply, rel_diff), "omp", "unavailable", "skip", "fail".
// Progress on stderr. Exit status 1 when a validation failed (the run goes on to the end first), 2 on an error.
#define DISABLE_CUSPARSE_DEPRECATED // csrilu02, bsrilu02, bsrsv2 are deprecated since CUDA 12 but still cuSPARSE's ILU(0)
#include <cuda_runtime.h>
#include <cusparse.h>

#include <cmath>
#include <cstdarg>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "bench_log.cuh"
#include "gpu_bench_util.cuh"

static_assert(sizeof(pds_int) == sizeof(int), "cuSPARSE takes 32-bit column indices");

// ---- options and the run's state ---------------------------------------------------------------------------------
static FILE                    *g_json;
static int                      g_reps = 20, g_sweeps = 3, g_fsweeps = 3, g_gm_maxit = 3000, g_gm_reps = 3;
static const int                g_restart = 30, g_probe = 10;
static double                   g_bw, g_budget = 120, g_deadline, g_gm_rtol = 1e-8, g_gm_max_s = 2.0,
                                g_ref_max_work = 3e7;
static bool                     g_gmres = true;
static std::string              g_gpu;
static std::vector<std::string> g_variants = {"levels", "syncfree", "approx-jacobi", "approx-chow"};
static int                      g_failures;
static double                   g_reserve_s; // estimated seconds the cases after the current one need without GMRES
static int                      g_gm_left;   // GMRES runs still to come, the next one included

static bool is_approx(const std::string &v) { return v == "approx-jacobi" || v == "approx-chow"; }

// ---- JSON lines -----------------------------------------------------------------------------------------------------
static std::string esc(const std::string &s) {
  std::string o;

  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\', o += c;
    else if ((unsigned char)c < 0x20) o += ' ';
    else o += c;
  }
  return o;
}
struct J {
  std::string s;
  J(const char *kind, const std::string &cs) {
    s = "{\"bench\":\"ilu\",\"gpu\":\"" + esc(g_gpu) + "\",\"kind\":\"" + kind + "\"";
    if (!cs.empty()) str("case", cs);
  }
  J &str(const char *k, const std::string &v) {
    s += ",\"" + std::string(k) + "\":\"" + esc(v) + "\"";
    return *this;
  }
  J &num(const char *k, double v) {
    char b[48];

    if (std::isfinite(v)) snprintf(b, sizeof b, "%.6e", v);
    else snprintf(b, sizeof b, "null");
    s += ",\"" + std::string(k) + "\":" + b;
    return *this;
  }
  J &inum(const char *k, long long v) {
    s += ",\"" + std::string(k) + "\":" + std::to_string(v);
    return *this;
  }
  J &flag(const char *k, bool v) {
    s += ",\"" + std::string(k) + "\":" + (v ? "true" : "false");
    return *this;
  }
  void emit() {
    if (!g_json) return;
    fprintf(g_json, "%s}\n", s.c_str());
    fflush(g_json);
  }
};

// a validation failure: said on stderr and in the JSON, the run goes on; exit status 1 at the end
static void bad(const std::string &cs, const char *fmt, ...) {
  char    m[512];
  va_list ap;

  va_start(ap, fmt);
  vsnprintf(m, sizeof m, fmt, ap);
  va_end(ap);
  fprintf(stderr, "FAIL: %s: %s\n", cs.c_str(), m);
  fflush(stderr);
  J("fail", cs).str("what", m).emit();
  g_failures++;
}

// ---- matrices -------------------------------------------------------------------------------------------------------
// a csr or bsr matrix's host arrays (of a matrix on a CPU context) and the counts of the byte models
struct HostMat {
  pds_int         n = 0, nb = 0;
  int             bs = 1;
  pds_size        nnzb = 0;
  const pds_size *rp = nullptr;
  const pds_int  *ci = nullptr;
  const pds_real *v  = nullptr;
  long long       ml = 0, mu = 0; // the factor's strictly lower and upper blocks (it has nb diagonal blocks)
  long long       nnz() const { return (long long)nnzb * bs * bs; }
};
static HostMat host_view(pds_mat A) {
  HostMat m;
  pds_ctx c = pds_mat_get_ctx(A);
  pds_int nc;

  PK(c, pds_mat_get_block_size(A, &m.bs));
  if (!strcmp(pds_mat_get_type(A), "bsr")) PK(c, pds_mat_bsr_get_arrays(A, &m.rp, &m.ci, &m.v));
  else PK(c, pds_mat_csr_get_arrays(A, &m.rp, &m.ci, &m.v));
  PK(c, pds_mat_get_size(A, &m.n, &nc));
  m.nb   = m.n / m.bs;
  m.nnzb = m.rp[m.nb];
  for (pds_int i = 0; i < m.nb; i++)
    for (pds_size e = m.rp[i]; e < m.rp[i + 1]; e++) m.ml += m.ci[e] < i, m.mu += m.ci[e] > i;
  return m;
}
// the same matrix on ctx (values copied)
static pds_mat mat_on(pds_ctx ctx, const HostMat &M) {
  pds_mat A;

  if (M.bs == 1)
    PK(ctx, pds_mat_create_csr(ctx, M.n, M.n, (pds_size *)M.rp, (pds_int *)M.ci, (pds_real *)M.v, PDS_MEM_HOST,
                               PDS_COPY_VALUES, &A));
  else
    PK(ctx, pds_mat_create_bsr(ctx, M.nb, M.nb, M.bs, (pds_size *)M.rp, (pds_int *)M.ci, (pds_real *)M.v,
                               PDS_MEM_HOST, PDS_COPY_VALUES, &A));
  return A;
}

// byte models (header comment)
static double bytes_apply(const HostMat &M, const std::string &variant) {
  const double B = 8.0 * M.bs * M.bs + 4, N = M.n, nd = M.nb;

  if (!is_approx(variant)) return B * (M.ml + M.mu + nd) + 24 * N;
  const double s = g_sweeps;
  return B * (s * M.ml + (s + 1) * (M.mu + nd)) + 24 * N * (2 * s + 1) - (s > 0 ? 16 : 8) * N;
}
static double bytes_factor(const HostMat &M, const std::string &variant) {
  const double b2 = (double)M.bs * M.bs, nnzb = (double)(M.ml + M.mu + M.nb);

  if (variant != "approx-chow") return (16 * b2 + 4) * nnzb;
  return (16 * b2 + 4) * nnzb + g_fsweeps * (32 * b2 + 8) * nnzb;
}

// repetitions that fit about 0.4 s for a call of t seconds (3 .. -reps)
static int reps_for(double t) {
  const double r = 0.4 / std::max(t, 1e-6);

  return r >= g_reps ? g_reps : std::max(3, (int)r);
}

// ---- GMRES(30) + ilu0 -----------------------------------------------------------------------------------------------
struct Gm {
  bool        ran = false, cut = false;
  int         its = -1, reason = 0, maxit = 0, reps = 0;
  double      t = NAN, t_it = NAN, true_rel = NAN, allowance = NAN;
  std::string skip; // why it did not run (or stopped early)
};

// the time one GMRES run (probe and solves) may take now: twice its even share of what the budget leaves GMRES
static double gm_allowance() {
  const double left = g_deadline - pds_wtime() - g_reserve_s;

  return std::min(1.6 * g_gm_max_s, 2.0 * std::max(0.0, left) / std::max(1, g_gm_left));
}

// GMRES(30) with the set-up preconditioner P on A: b = B, x0 = 0, to rtol; the probe, then up to -gmres_reps solves
static Gm gmres_run(pds_ctx ctx, pds_mat A, pds_precond P, pds_vec B, pds_vec X, pds_vec R, double allowance) {
  Gm                g;
  pds_solver        s;
  pds_solver_result res;
  std::vector<double> ts;

  g.allowance = allowance;
  if (!(allowance >= 0.02)) {
    g.skip = "budget";
    return g;
  }
  PK(ctx, pds_solver_create(ctx, "gmres", &s));
  PK(ctx, pds_solver_set_operator(s, A));
  PK(ctx, pds_solver_set_precond(s, P));
  PK(ctx, pds_solver_set_restart(s, g_restart));
  PK(ctx, pds_solver_set_tolerances(s, g_gm_rtol, 0, std::min(3, g_gm_maxit)));
  PK(ctx, pds_solver_setup(s));
  auto solve = [&](double *t) {
    PK(ctx, pds_vec_set(X, 0.0));
    CK(cudaDeviceSynchronize());
    const double t0 = pds_wtime();
    int          e  = pds_solver_solve(s, B, X);

    CK(cudaDeviceSynchronize());
    *t = pds_wtime() - t0;
    if (!e) e = pds_solver_get_result(s, &res);
    if (e) {
      g.skip = std::string("solve error ") + pds_error_name(e) + ": " + pds_ctx_get_error(ctx);
      pds_ctx_clear_error(ctx);
    }
    return e == 0;
  };
  double tw, tp, spent;
  if (!solve(&tw)) { // the warm-up: 3 iterations (first launches, graph captures)
    pds_solver_destroy(&s);
    return g;
  }
  PK(ctx, pds_solver_set_tolerances(s, g_gm_rtol, 0, std::min(g_probe, g_gm_maxit)));
  if (!solve(&tp)) { // the probe: the time per iteration
    pds_solver_destroy(&s);
    return g;
  }
  spent  = tw + tp;
  g.t_it = tp / std::max(1, res.iterations);
  int maxit = g_gm_maxit;
  {
    const double cap = std::min(g_gm_max_s, allowance - spent);

    if (res.reason <= 0 && maxit * g.t_it > cap) maxit = std::max(1, (int)(cap / g.t_it)), g.cut = maxit < g_gm_maxit;
  }
  g.maxit = maxit;
  PK(ctx, pds_solver_set_tolerances(s, g_gm_rtol, 0, maxit));
  double t1;
  if (!solve(&t1)) {
    pds_solver_destroy(&s);
    return g;
  }
  spent += t1;
  ts.push_back(t1);
  g.its = res.iterations, g.reason = res.reason;
  // more solves only when the first converged (the iterations of one that did not are the same, and its time says
  // little) and while they fit the allowance
  while (g.reason > 0 && (int)ts.size() < g_gm_reps && spent + t1 <= allowance) {
    double t;

    if (!solve(&t)) break;
    if (res.iterations != g.its) LOG("  GMRES: %d iterations in a repetition, %d in the first", res.iterations, g.its);
    ts.push_back(t), spent += t;
  }
  g.reps = (int)ts.size(), g.t = median(ts), g.ran = true;
  {
    pds_real rn, bn;

    PK(ctx, pds_mat_residual(A, B, X, R));
    PK(ctx, pds_vec_norm2(R, &rn));
    PK(ctx, pds_vec_norm2(B, &bn));
    g.true_rel = bn > 0 ? rn / bn : rn;
  }
  pds_solver_destroy(&s);
  return g;
}

// ---- pdesolve's ilu0 ------------------------------------------------------------------------------------------------
struct VarRun {
  std::string         variant;
  int                 err = 0; // the setup's error code (0: set up)
  std::string         msg;
  std::vector<double> y;
  double              t_setup = NAN, t_refactor = NAN, t_apply = NAN;
  Gm                  gm;
};
struct GmIn { // GMRES's vectors on the context (b = A 1, x, r)
  pds_vec B = nullptr, X = nullptr, R = nullptr;
};

// ilu0 with variant on ctx for A: the first setup (timed), y = M^-1 x; with time: refactorization and application
// medians; with gm: GMRES(30) + this preconditioner
static VarRun ilu0_run(pds_ctx ctx, pds_mat A, const std::string &variant, const std::vector<double> &x, bool time,
                       const GmIn *gm) {
  VarRun      r;
  pds_precond P;
  pds_vec     X, Y;
  pds_int     n, nc;

  r.variant = variant;
  PK(ctx, pds_mat_get_size(A, &n, &nc));
  PK(ctx, pds_precond_create(ctx, "ilu0", &P));
  PK(ctx, pds_precond_ilu0_set_variant(P, variant.c_str()));
  PK(ctx, pds_precond_ilu0_set_sweeps(P, g_sweeps, g_fsweeps));
  PK(ctx, pds_precond_set_operator(P, A));
  PK(ctx, pds_vec_create(ctx, n, &X));
  PK(ctx, pds_vec_create(ctx, n, &Y));
  PK(ctx, pds_vec_set_values(X, x.data(), PDS_MEM_HOST));
  CK(cudaDeviceSynchronize());
  {
    const double t0 = pds_wtime();
    const int    e  = pds_precond_setup(P);

    CK(cudaDeviceSynchronize());
    r.t_setup = pds_wtime() - t0;
    if (e) {
      r.err = e, r.msg = pds_ctx_get_error(ctx);
      pds_ctx_clear_error(ctx);
      pds_vec_destroy(&X), pds_vec_destroy(&Y), pds_precond_destroy(&P);
      return r;
    }
  }
  PK(ctx, pds_precond_apply(P, X, Y)); // (the first: on /gpu/cuda, the capture of its graph)
  r.y.resize(n);
  PK(ctx, pds_vec_get_values(Y, r.y.data(), PDS_MEM_HOST));
  if (time) {
    double t0 = pds_wtime();

    PK(ctx, pds_precond_update_values(P, A));
    CK(cudaDeviceSynchronize());
    r.t_refactor = host_median([&] { PK(ctx, pds_precond_update_values(P, A)); }, 1,
                               std::max(3, reps_for(pds_wtime() - t0) / 4), true);
    t0 = pds_wtime();
    PK(ctx, pds_precond_apply(P, X, Y));
    CK(cudaDeviceSynchronize());
    r.t_apply = host_median([&] { PK(ctx, pds_precond_apply(P, X, Y)); }, 2, reps_for(pds_wtime() - t0), true);
  }
  if (gm) r.gm = gmres_run(ctx, A, P, gm->B, gm->X, gm->R, gm_allowance());
  pds_vec_destroy(&X), pds_vec_destroy(&Y), pds_precond_destroy(&P);
  return r;
}

// ---- cuSPARSE -------------------------------------------------------------------------------------------------------
struct SpRun {
  std::vector<double> y;
  double              t_ana_ilu = 0, t_ana_sv = 0, t_factor = 0, t_apply = 0;
  int                 zero_pivot = -1; // cuSPARSE refused the matrix: a structurally or numerically zero pivot here
};

// CSR: csrilu02 (level information) on a copy of the values, SpSV lower-unit then upper
static SpRun cusparse_csr_run(const HostMat &M, const std::vector<double> &x) {
  SpRun              r;
  cusparseHandle_t   h;
  cusparseMatDescr_t descr;
  csrilu02Info_t     info;
  int                bsz = 0, pos = 0;
  void              *buf;
  double            *lu, *dx, *dt, *dy;
  const int          n = M.n, nnz = (int)M.nnzb;
  const double       one = 1.0;
  std::vector<int>   rp32(n + 1);

  for (int i = 0; i <= n; i++) rp32[i] = (int)M.rp[i]; // cuSPARSE takes no 64-bit offsets with 32-bit columns
  int    *drp = dev_copy(rp32.data(), n + 1), *dci = dev_copy((const int *)M.ci, nnz);
  double *dv  = dev_copy(M.v, nnz);
  CKS(cusparseCreate(&h));
  CKS(cusparseCreateMatDescr(&descr));
  CKS(cusparseSetMatIndexBase(descr, CUSPARSE_INDEX_BASE_ZERO));
  CKS(cusparseSetMatType(descr, CUSPARSE_MATRIX_TYPE_GENERAL));
  CKS(cusparseCreateCsrilu02Info(&info));
  CK(cudaMalloc(&lu, sizeof(double) * nnz));
  CK(cudaMemcpy(lu, dv, sizeof(double) * nnz, cudaMemcpyDeviceToDevice));
  CKS(cusparseDcsrilu02_bufferSize(h, n, nnz, descr, lu, drp, dci, info, &bsz));
  CK(cudaMalloc(&buf, (size_t)bsz + 256));
  auto done = [&] {
    cudaFree(buf), cudaFree(lu), cudaFree(drp), cudaFree(dci), cudaFree(dv);
    cusparseDestroyCsrilu02Info(info), cusparseDestroyMatDescr(descr), cusparseDestroy(h);
  };
  r.t_ana_ilu = host_median([&] {
    CKS(cusparseDcsrilu02_analysis(h, n, nnz, descr, lu, drp, dci, info, CUSPARSE_SOLVE_POLICY_USE_LEVEL, buf));
  }, 0, 1, true);
  if (cusparseXcsrilu02_zeroPivot(h, info, &pos) == CUSPARSE_STATUS_ZERO_PIVOT) { // a missing diagonal
    r.zero_pivot = pos;
    done();
    return r;
  }
  CK(cudaMemcpy(lu, dv, sizeof(double) * nnz, cudaMemcpyDeviceToDevice));
  CKS(cusparseDcsrilu02(h, n, nnz, descr, lu, drp, dci, info, CUSPARSE_SOLVE_POLICY_USE_LEVEL, buf));
  CK(cudaDeviceSynchronize());
  if (cusparseXcsrilu02_zeroPivot(h, info, &pos) == CUSPARSE_STATUS_ZERO_PIVOT) {
    r.zero_pivot = pos;
    done();
    return r;
  }
  {
    double t0 = pds_wtime();

    CK(cudaMemcpy(lu, dv, sizeof(double) * nnz, cudaMemcpyDeviceToDevice));
    CKS(cusparseDcsrilu02(h, n, nnz, descr, lu, drp, dci, info, CUSPARSE_SOLVE_POLICY_USE_LEVEL, buf));
    CK(cudaDeviceSynchronize());
    const int k = std::max(3, reps_for(pds_wtime() - t0) / 4);

    r.t_factor = host_median([&] {
      CK(cudaMemcpy(lu, dv, sizeof(double) * nnz, cudaMemcpyDeviceToDevice));
      CKS(cusparseDcsrilu02(h, n, nnz, descr, lu, drp, dci, info, CUSPARSE_SOLVE_POLICY_USE_LEVEL, buf));
    }, 1, k, true);
    const double tc = host_median([&] { CK(cudaMemcpy(lu, dv, sizeof(double) * nnz, cudaMemcpyDeviceToDevice)); }, 1,
                                  k, true);
    r.t_factor = std::max(0.0, r.t_factor - tc); // without the copy of the values
    // the copy's timing left A's values in lu: factor them once more for the solves below
    CK(cudaMemcpy(lu, dv, sizeof(double) * nnz, cudaMemcpyDeviceToDevice));
    CKS(cusparseDcsrilu02(h, n, nnz, descr, lu, drp, dci, info, CUSPARSE_SOLVE_POLICY_USE_LEVEL, buf));
    CK(cudaDeviceSynchronize());
  }
  // the factors of the original values (each timed run started from them)
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

  CKS(cusparseCreateCsr(&L, n, n, nnz, drp, dci, lu, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                        CUDA_R_64F));
  CKS(cusparseCreateCsr(&U, n, n, nnz, drp, dci, lu, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
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
  {
    const double t0 = pds_wtime();

    apply();
    CK(cudaDeviceSynchronize());
    r.y.resize(n);
    CK(cudaMemcpy(r.y.data(), dy, sizeof(double) * n, cudaMemcpyDeviceToHost));
    r.t_apply = host_median(apply, 3, reps_for(pds_wtime() - t0), true);
  }
  cusparseSpSV_destroyDescr(sL), cusparseSpSV_destroyDescr(sU);
  cusparseDestroyDnVec(vx), cusparseDestroyDnVec(vt), cusparseDestroyDnVec(vy);
  cusparseDestroySpMat(L), cusparseDestroySpMat(U);
  cudaFree(bufl), cudaFree(bufu), cudaFree(dx), cudaFree(dt), cudaFree(dy);
  done();
  return r;
}

// BSR (row-major blocks, as pdesolve's): bsrilu02 (level information) on a copy of the values, then bsrsv2 with L
// (unit lower) and U (upper, non-unit), as tests/cuda/tc07_bilu0_cusparse.c; one buffer serves the three
static SpRun cusparse_bsr_run(const HostMat &M, const std::vector<double> &x) {
  SpRun                       r;
  cusparseHandle_t            h;
  cusparseMatDescr_t          dM, dL, dU;
  bsrilu02Info_t              iM;
  bsrsv2Info_t                iL, iU;
  const cusparseDirection_t   dir = CUSPARSE_DIRECTION_ROW;
  const cusparseOperation_t   op  = CUSPARSE_OPERATION_NON_TRANSPOSE;
  const cusparseSolvePolicy_t pol = CUSPARSE_SOLVE_POLICY_USE_LEVEL;
  const int                   mb = M.nb, nnzb = (int)M.nnzb, bs = M.bs, N = M.n;
  const size_t                nv = (size_t)nnzb * bs * bs;
  const double                one = 1.0;
  int                         sm = 0, sl = 0, su = 0, pos = -1;
  std::vector<int>            rp32(mb + 1);
  void                       *buf;
  double                     *lu, *dx, *dt, *dy;

  for (int i = 0; i <= mb; i++) rp32[i] = (int)M.rp[i]; // the legacy BSR API takes 32-bit row offsets
  int    *drp = dev_copy(rp32.data(), mb + 1), *dci = dev_copy((const int *)M.ci, nnzb);
  double *dv  = dev_copy(M.v, nv);
  CK(cudaMalloc(&lu, sizeof(double) * nv));
  CK(cudaMemcpy(lu, dv, sizeof(double) * nv, cudaMemcpyDeviceToDevice));
  CKS(cusparseCreate(&h));
  CKS(cusparseCreateMatDescr(&dM));
  CKS(cusparseSetMatIndexBase(dM, CUSPARSE_INDEX_BASE_ZERO));
  CKS(cusparseSetMatType(dM, CUSPARSE_MATRIX_TYPE_GENERAL));
  CKS(cusparseCreateMatDescr(&dL));
  CKS(cusparseSetMatIndexBase(dL, CUSPARSE_INDEX_BASE_ZERO));
  CKS(cusparseSetMatType(dL, CUSPARSE_MATRIX_TYPE_GENERAL));
  CKS(cusparseSetMatFillMode(dL, CUSPARSE_FILL_MODE_LOWER));
  CKS(cusparseSetMatDiagType(dL, CUSPARSE_DIAG_TYPE_UNIT));
  CKS(cusparseCreateMatDescr(&dU));
  CKS(cusparseSetMatIndexBase(dU, CUSPARSE_INDEX_BASE_ZERO));
  CKS(cusparseSetMatType(dU, CUSPARSE_MATRIX_TYPE_GENERAL));
  CKS(cusparseSetMatFillMode(dU, CUSPARSE_FILL_MODE_UPPER));
  CKS(cusparseSetMatDiagType(dU, CUSPARSE_DIAG_TYPE_NON_UNIT));
  CKS(cusparseCreateBsrilu02Info(&iM));
  CKS(cusparseCreateBsrsv2Info(&iL));
  CKS(cusparseCreateBsrsv2Info(&iU));
  CKS(cusparseDbsrilu02_bufferSize(h, dir, mb, nnzb, dM, lu, drp, dci, bs, iM, &sm));
  CKS(cusparseDbsrsv2_bufferSize(h, dir, op, mb, nnzb, dL, lu, drp, dci, bs, iL, &sl));
  CKS(cusparseDbsrsv2_bufferSize(h, dir, op, mb, nnzb, dU, lu, drp, dci, bs, iU, &su));
  CK(cudaMalloc(&buf, (size_t)std::max(sm, std::max(sl, su)) + 256));
  CK(cudaMalloc(&dx, sizeof(double) * N));
  CK(cudaMalloc(&dt, sizeof(double) * N));
  CK(cudaMalloc(&dy, sizeof(double) * N));
  CK(cudaMemcpy(dx, x.data(), sizeof(double) * N, cudaMemcpyHostToDevice));
  auto done = [&] {
    cusparseDestroyBsrilu02Info(iM), cusparseDestroyBsrsv2Info(iL), cusparseDestroyBsrsv2Info(iU);
    cusparseDestroyMatDescr(dM), cusparseDestroyMatDescr(dL), cusparseDestroyMatDescr(dU), cusparseDestroy(h);
    cudaFree(buf), cudaFree(lu), cudaFree(dv), cudaFree(drp), cudaFree(dci), cudaFree(dx), cudaFree(dt), cudaFree(dy);
  };
  r.t_ana_ilu = host_median([&] {
    CKS(cusparseDbsrilu02_analysis(h, dir, mb, nnzb, dM, lu, drp, dci, bs, iM, pol, buf));
  }, 0, 1, true);
  if (cusparseXbsrilu02_zeroPivot(h, iM, &pos) == CUSPARSE_STATUS_ZERO_PIVOT) { // structural
    r.zero_pivot = pos;
    done();
    return r;
  }
  r.t_ana_sv = host_median([&] {
    CKS(cusparseDbsrsv2_analysis(h, dir, op, mb, nnzb, dL, lu, drp, dci, bs, iL, pol, buf));
    CKS(cusparseDbsrsv2_analysis(h, dir, op, mb, nnzb, dU, lu, drp, dci, bs, iU, pol, buf));
  }, 0, 1, true);
  CKS(cusparseDbsrilu02(h, dir, mb, nnzb, dM, lu, drp, dci, bs, iM, pol, buf));
  CK(cudaDeviceSynchronize());
  if (cusparseXbsrilu02_zeroPivot(h, iM, &pos) == CUSPARSE_STATUS_ZERO_PIVOT) { // numerical
    r.zero_pivot = pos;
    done();
    return r;
  }
  {
    double t0 = pds_wtime();

    CK(cudaMemcpy(lu, dv, sizeof(double) * nv, cudaMemcpyDeviceToDevice));
    CKS(cusparseDbsrilu02(h, dir, mb, nnzb, dM, lu, drp, dci, bs, iM, pol, buf));
    CK(cudaDeviceSynchronize());
    const int k = std::max(3, reps_for(pds_wtime() - t0) / 4);

    r.t_factor = host_median([&] {
      CK(cudaMemcpy(lu, dv, sizeof(double) * nv, cudaMemcpyDeviceToDevice));
      CKS(cusparseDbsrilu02(h, dir, mb, nnzb, dM, lu, drp, dci, bs, iM, pol, buf));
    }, 1, k, true);
    const double tc = host_median([&] { CK(cudaMemcpy(lu, dv, sizeof(double) * nv, cudaMemcpyDeviceToDevice)); }, 1,
                                  k, true);
    r.t_factor = std::max(0.0, r.t_factor - tc); // without the copy of the values
    // the copy's timing left A's values in lu: factor them once more for the solves below
    CK(cudaMemcpy(lu, dv, sizeof(double) * nv, cudaMemcpyDeviceToDevice));
    CKS(cusparseDbsrilu02(h, dir, mb, nnzb, dM, lu, drp, dci, bs, iM, pol, buf));
    CK(cudaDeviceSynchronize());
  }
  auto apply = [&] {
    CKS(cusparseDbsrsv2_solve(h, dir, op, mb, nnzb, &one, dL, lu, drp, dci, bs, iL, dx, dt, pol, buf));
    CKS(cusparseDbsrsv2_solve(h, dir, op, mb, nnzb, &one, dU, lu, drp, dci, bs, iU, dt, dy, pol, buf));
  };
  {
    const double t0 = pds_wtime();

    apply();
    CK(cudaDeviceSynchronize());
    if (cusparseXbsrsv2_zeroPivot(h, iU, &pos) == CUSPARSE_STATUS_ZERO_PIVOT) { // a singular block of U
      r.zero_pivot = pos;
      done();
      return r;
    }
    r.y.resize(N);
    CK(cudaMemcpy(r.y.data(), dy, sizeof(double) * N, cudaMemcpyDeviceToHost));
    r.t_apply = host_median(apply, 3, reps_for(pds_wtime() - t0), true);
  }
  done();
  return r;
}

static double rel_diff(const std::vector<double> &a, const std::vector<double> &b) {
  double d = 0, m = 0;

  for (size_t i = 0; i < a.size(); i++) {
    const double e = std::fabs(a[i] - b[i]);

    if (!(e <= d)) d = e; // NaN sticks
    m = std::max(m, std::fabs(b[i]));
  }
  return m > 0 ? d / m : d;
}

// ---- the table ------------------------------------------------------------------------------------------------------
struct Row { // one line of the summary
  std::string variant;
  bool        ok = false;
  double      t_apply = NAN, x_cs = NAN;
  Gm          gm;
};
struct CaseSum {
  std::string      name;
  long long        n = 0, nnz = 0;
  int              bs = 1;
  double           cs_apply = NAN;
  std::vector<Row> rows;
};
static std::vector<CaseSum> g_sum;

static std::string ms(double t) {
  char b[32];

  if (!std::isfinite(t)) return "-";
  snprintf(b, sizeof b, t < 1e-2 ? "%.3f" : t < 1 ? "%.2f" : "%.1f", t * 1e3);
  return b;
}
static std::string fx(const char *f, double v) {
  char b[48];

  if (!std::isfinite(v)) return "-";
  snprintf(b, sizeof b, f, v);
  return b;
}
static std::string gm_reason(const Gm &g) {
  if (!g.ran) return g.skip.empty() ? "-" : "not run: " + g.skip;
  std::string s = pds_reason_name(g.reason);
  if (g.cut && g.reason == PDS_DIVERGED_MAXIT) s += " (maxit cut to " + std::to_string(g.maxit) + " by the time cap)";
  return s;
}
static void row(const CaseSum &c, const char *impl, double ts, double tr, double ta, double frac, double xcs,
                const Gm *g, const std::string &note) {
  printf("| %s | %lld | %lld | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", c.name.c_str(), c.n, c.nnz,
         c.bs, impl, ms(ts).c_str(), ms(tr).c_str(), ms(ta).c_str(), fx("%.3f", frac).c_str(), fx("%.2fx", xcs).c_str(),
         g && g->ran ? std::to_string(g->its).c_str() : "-", g && g->ran ? fx("%.3f", g->t).c_str() : "-",
         g && g->ran ? fx("%.3f", g->t + ts).c_str() : "-",
         (g ? gm_reason(*g) + (note.empty() ? "" : "; ") : std::string()).append(note).c_str());
  fflush(stdout);
}

// ---- one case -------------------------------------------------------------------------------------------------------
struct Ctxs {
  pds_ctx gpu, omp, ref;
};

static void run_case(const Ctxs &C, const std::string &name, pds_mat A0) {
  const HostMat M    = host_view(A0);
  const pds_ctx c0   = pds_mat_get_ctx(A0);
  const double  work = (double)M.nnz() * M.bs;
  const bool    use_ref = work <= g_ref_max_work;
  const pds_ctx refc    = use_ref ? C.ref : C.omp;
  const char   *refname = use_ref ? "/cpu/ref" : "/cpu/omp";
  CaseSum       S;
  std::vector<double> x(M.n);

  S.name = name, S.n = M.n, S.nnz = M.nnz(), S.bs = M.bs;
  for (pds_int i = 0; i < M.n; i++) x[i] = std::sin(0.37 * i + 1.0);
  LOG("%s: n %d, nnz %lld, %d x %d blocks; reference %s", name.c_str(), (int)M.n, (long long)M.nnz(), M.bs, M.bs,
      refname);
  J("case", name).inum("n", M.n).inum("nnz", M.nnz()).inum("bs", M.bs).inum("nnzb", M.nnzb).inum("m_lower", M.ml)
      .inum("m_upper", M.mu).str("reference", refname).num("copy_gbs", g_bw * 1e-9).inum("sweeps", g_sweeps)
      .inum("factor_sweeps", g_fsweeps).emit();
  pds_mat Aomp = c0 == C.omp ? A0 : mat_on(C.omp, M);
  pds_mat Aref = use_ref ? (c0 == C.ref ? A0 : mat_on(C.ref, M)) : Aomp;
  // the references: the exact ilu0 (omp's, timed; ref's bits where ref runs)
  VarRun omp = ilu0_run(C.omp, Aomp, "auto", x, true, nullptr);
  VarRun ex  = use_ref ? ilu0_run(C.ref, Aref, "auto", x, false, nullptr) : omp;
  if (use_ref && ex.err == 0 && omp.err == 0 && memcmp(omp.y.data(), ex.y.data(), sizeof(double) * M.n))
    bad(name, "/cpu/omp's M^-1 x is not /cpu/ref's bits (rel %.2e)", rel_diff(omp.y, ex.y));
  if (use_ref && (ex.err != 0) != (omp.err != 0))
    bad(name, "/cpu/omp's setup (%s) and /cpu/ref's (%s) disagree", pds_error_name(omp.err), pds_error_name(ex.err));
  if (ex.err) LOG("  the exact ilu0 fails on %s: %s", refname, ex.msg.c_str());
  std::map<std::string, VarRun> refs; // the approximate variants on the reference backend
  // cuSPARSE
  SpRun        sr   = M.bs == 1 ? cusparse_csr_run(M, x) : cusparse_bsr_run(M, x);
  const bool   sp   = sr.zero_pivot < 0;
  const double rd   = sp && !ex.err ? rel_diff(sr.y, ex.y) : NAN;
  const double b_ex = bytes_apply(M, "levels"), bf_ex = bytes_factor(M, "levels");
  if (sp && !ex.err && !(rd <= 1e-8)) bad(name, "cuSPARSE's M^-1 x differs from pdesolve's by %.2e", rd);
  S.cs_apply = sp ? sr.t_apply : NAN;
  {
    J j("cusparse", name);
    j.str("backend", "cusparse").str("variant", M.bs == 1 ? "csrilu02+spsv" : "bsrilu02+bsrsv2");
    if (sp)
      j.num("t_analysis_ilu", sr.t_ana_ilu).num("t_analysis_sv", sr.t_ana_sv).num("t_factor", sr.t_factor)
          .num("t_apply", sr.t_apply).num("bytes_apply", b_ex).num("frac_copy", b_ex / g_bw / sr.t_apply)
          .num("frac_copy_factor", bf_ex / g_bw / sr.t_factor).num("rel_diff", rd);
    else j.inum("zero_pivot", sr.zero_pivot);
    j.emit();
  }
  if (sp)
    row(S, M.bs == 1 ? "cuSPARSE csrilu02+SpSV" : "cuSPARSE bsrilu02+bsrsv2", sr.t_ana_ilu + sr.t_ana_sv + sr.t_factor,
        sr.t_factor, sr.t_apply, b_ex / g_bw / sr.t_apply, 1.0, nullptr,
        "setup = analyses " + ms(sr.t_ana_ilu) + " + " + ms(sr.t_ana_sv) + " ms + factor; rel diff " + fx("%.1e", rd));
  else {
    LOG("  cuSPARSE stops at a zero pivot in (block) row %d (a diagonal the pattern lacks, or singular)", sr.zero_pivot);
    row(S, "cuSPARSE", NAN, NAN, NAN, NAN, NAN, nullptr, "zero pivot in row " + std::to_string(sr.zero_pivot));
  }
  // /cpu/omp's exact
  if (!omp.err) {
    J("omp", name).str("backend", "/cpu/omp").str("variant", "auto").num("t_setup", omp.t_setup)
        .num("t_refactor", omp.t_refactor).num("t_apply", omp.t_apply).num("bytes_apply", b_ex)
        .num("x_cusparse", sp ? sr.t_apply / omp.t_apply : NAN).emit();
    row(S, "/cpu/omp (exact)", omp.t_setup, omp.t_refactor, omp.t_apply, NAN, sp ? sr.t_apply / omp.t_apply : NAN,
        nullptr, "");
  }
  // every /gpu/cuda variant
  pds_mat Agpu = mat_on(C.gpu, M);
  GmIn    gm;
  if (g_gmres) {
    pds_vec one;

    PK(C.gpu, pds_vec_create(C.gpu, M.n, &one));
    PK(C.gpu, pds_vec_duplicate(one, &gm.B));
    PK(C.gpu, pds_vec_duplicate(one, &gm.X));
    PK(C.gpu, pds_vec_duplicate(one, &gm.R));
    PK(C.gpu, pds_vec_set(one, 1.0));
    PK(C.gpu, pds_mat_apply(Agpu, one, gm.B));
    pds_vec_destroy(&one);
  }
  for (const std::string &v : g_variants) {
    const bool    ap = is_approx(v);
    const VarRun *rf = &ex;

    if (ap) {
      if (!refs.count(v)) refs[v] = ilu0_run(refc, Aref, v, x, false, nullptr);
      rf = &refs[v];
    }
    LOG("  /gpu/cuda %s", v.c_str());
    VarRun g = ilu0_run(C.gpu, Agpu, v, x, true, g_gmres ? &gm : nullptr);
    g_gm_left--;
    Row    rw;
    rw.variant = v;
    if (g.err) {
      const bool same = g.err == rf->err;

      if (!same && g.err != PDS_ERR_UNSUPPORTED)
        bad(name, "/gpu/cuda %s: setup failed (%s: %s) where %s %s", v.c_str(), pds_error_name(g.err), g.msg.c_str(),
            refname, rf->err ? "failed otherwise" : "did not");
      LOG("  /gpu/cuda %s unavailable: %s", v.c_str(), g.msg.c_str());
      J("unavailable", name).str("backend", "/gpu/cuda").str("variant", v).str("error", pds_error_name(g.err))
          .str("message", g.msg).flag("reference_fails_alike", same).emit();
      row(S, v.c_str(), NAN, NAN, NAN, NAN, NAN, nullptr, std::string("unavailable: ") + pds_error_name(g.err));
      S.rows.push_back(rw);
      continue;
    }
    bool bitwise = false;
    if (rf->err) bad(name, "/gpu/cuda %s set up where %s failed (%s)", v.c_str(), refname, rf->msg.c_str());
    else if (!(bitwise = !memcmp(g.y.data(), rf->y.data(), sizeof(double) * M.n)))
      bad(name, "/gpu/cuda %s: M^-1 x is not %s's bits (rel %.2e)", v.c_str(), refname, rel_diff(g.y, rf->y));
    const double ba = bytes_apply(M, v), bf = bytes_factor(M, v);
    const double frac = ba / g_bw / g.t_apply, xcs = sp ? sr.t_apply / g.t_apply : NAN;
    const double rde  = ap && !ex.err ? rel_diff(g.y, ex.y) : NAN;
    J("variant", name).str("backend", "/gpu/cuda").str("variant", v).num("t_setup", g.t_setup)
        .num("t_refactor", g.t_refactor).num("t_apply", g.t_apply).num("bytes_apply", ba).num("frac_copy", frac)
        .num("bytes_refactor", bf).num("frac_copy_refactor", bf / g_bw / g.t_refactor).num("x_cusparse", xcs)
        .flag("bitwise_ref", bitwise).str("reference", refname).num("rel_diff_exact", rde)
        .inum("gmres_its", g.gm.ran ? g.gm.its : -1).num("gmres_time", g.gm.t).num("gmres_total", g.gm.t + g.t_setup)
        .str("gmres_reason", g.gm.ran ? pds_reason_name(g.gm.reason) : "").num("gmres_true_rel", g.gm.true_rel)
        .inum("gmres_maxit", g.gm.maxit).inum("gmres_reps", g.gm.reps).flag("gmres_cut", g.gm.cut)
        .num("gmres_s_per_it", g.gm.t_it).num("gmres_allowance", g.gm.allowance).str("gmres_skip", g.gm.skip).emit();
    row(S, v.c_str(), g.t_setup, g.t_refactor, g.t_apply, frac, xcs, &g.gm,
        ap ? "y vs exact " + fx("%.1e", rde) : std::string());
    rw.ok = true, rw.t_apply = g.t_apply, rw.x_cs = xcs, rw.gm = g.gm;
    S.rows.push_back(rw);
  }
  if (g_gmres) pds_vec_destroy(&gm.B), pds_vec_destroy(&gm.X), pds_vec_destroy(&gm.R);
  pds_mat_destroy(&Agpu);
  if (Aref != A0 && Aref != Aomp) pds_mat_destroy(&Aref);
  if (Aomp != A0) pds_mat_destroy(&Aomp);
  g_sum.push_back(S);
}

// ---- the cases ------------------------------------------------------------------------------------------------------
struct Spec {
  std::string kind; // poisson7, bsr7, fem2d, shared
  std::string name;
  int         m = 0, bs = 1;
  long        nodes = 0;
  bool        channel = false;
  double      est_s = 1; // the estimated time of the case without GMRES (the budget's reserve)
};
static const long g_fem_nodes[6] = {107, 452, 46068, 106377, 424129, 1694081}; // paper 004's grids 1..6

// the fixed part of a case (references, timings, cuSPARSE, generation): a rough model of an H100 run, seconds
static double est_case(double nnz, int bs, double gen_s) {
  const bool ref = nnz * bs <= g_ref_max_work;

  return 0.5 + (ref ? 3e-7 : 5e-8) * nnz + gen_s;
}

static pds_mat make_matrix(const Ctxs &C, const Spec &s, const std::string &shared) {
  pds_mat A = nullptr;
  const double t0 = pds_wtime();

  if (s.kind == "poisson7") {
    pds_problem p;
    pds_int     dims[3] = {s.m, s.m, s.m};

    PK(C.ref, pds_problem_generate(C.ref, "poisson7", dims, 3, &p));
    A = p.A, p.A = nullptr;
    pds_problem_destroy(&p);
  } else if (s.kind == "bsr7") {
    pds_mat S;

    if (s.channel) {
      pds_channel_opts o;
      pds_vec          b;

      pds_channel_opts_default(&o);
      o.ni = o.nj = o.nk = s.m, o.n = s.bs;
      PK(C.omp, pds_channel_generate(C.omp, &o, &S, &b));
      pds_vec_destroy(&b);
    } else PK(C.omp, pds_stencil7_random(C.omp, s.m, s.m, s.m, s.bs, 1.5, 1000 + (uint64_t)s.bs, &S));
    PK(C.omp, pds_mat_convert_to_bsr(S, s.bs, &A));
    pds_mat_destroy(&S);
  } else if (s.kind == "fem2d") {
    pds_mesh  mesh;
    pds_fem2d fem;
    pds_vec   b;

    PK(C.omp, pds_mesh_generate(C.omp, "square", (pds_int)s.nodes, 1, &mesh));
    PK(C.omp, pds_mesh_reorder_rcm(mesh)); // the generator's numbering: about 1.2 rows a level, a sequential chain
    PK(C.omp, pds_fem2d_create(C.omp, mesh, &fem));
    PK(C.omp, pds_fem2d_assemble(fem, PDS_DIRICHLET_ROW, &A, &b));
    pds_vec_destroy(&b), pds_fem2d_destroy(&fem), pds_mesh_destroy(&mesh);
  } else {
    const std::string path = shared + "/matrices/" + s.name + ".mtx";

    PK(C.ref, pds_mm_read_mat(C.ref, path.c_str(), &A));
  }
  LOG("%s: made in %.2f s", s.name.c_str(), pds_wtime() - t0);
  return A;
}

static void usage(FILE *f) {
  fprintf(f,
          "usage: bench_ilu [-sizes 64,128] [-bsr_bs 4,5,6] [-bsr_grid 100] [-bsr_matrix auto|channel|random]\n"
          "                 [-channel_max 50] [-fem_grids 5,6] [-shared DIR] [-mats s1rmq4m1,e20r0000,bcsstk13,utm1700a]\n"
          "                 [-variants levels,syncfree,approx-jacobi,approx-chow] [-sweeps 3] [-factor_sweeps 3]\n"
          "                 [-reps 20] [-ref_max_work 3e7] [-gmres_maxit 3000] [-gmres_rtol 1e-8] [-gmres_reps 3]\n"
          "                 [-gmres_max_s 2] [-budget_s 120] [-no_gmres] [-json FILE]\n"
          "  a list option takes 'none'; -shared: the directory above matrices/ (no shared matrices without it)\n");
}

int main(int argc, char **argv) {
  std::vector<int>         sizes = {64, 128}, bsr_bs = {4, 5, 6}, fem_grids = {5, 6};
  std::vector<std::string> mats  = {"s1rmq4m1", "e20r0000", "bcsstk13", "utm1700a"};
  std::string              shared, bsr_matrix = "auto";
  int                      bsr_grid = 100, channel_max = 50;
  Ctxs                     C;

  g_t0 = pds_wtime();
  for (int i = 1; i < argc; i++) {
    std::string o = argv[i];

    if (o == "-help" || o == "--help" || o == "-h") {
      usage(stdout);
      return 0;
    }
    if (o == "-no_gmres") {
      g_gmres = false;
      continue;
    }
    if (i + 1 >= argc) fprintf(stderr, "option %s needs a value\n", argv[i]), exit(2);
    std::string val  = argv[++i];
    auto        list = [&](std::vector<std::string> &out) {
      out.clear();
      if (val == "none") return;
      for (size_t p = 0; p < val.size();) {
        size_t q = val.find(',', p);
        if (q == std::string::npos) q = val.size();
        if (q > p) out.push_back(val.substr(p, q - p));
        p = q + 1;
      }
    };
    auto ilist = [&](std::vector<int> &out) {
      std::vector<std::string> s;

      list(s);
      out.clear();
      for (auto &t : s) out.push_back((int)parse_long(o.c_str(), t.c_str()));
    };
    if (o == "-sizes") ilist(sizes);
    else if (o == "-bsr_bs") ilist(bsr_bs);
    else if (o == "-fem_grids") ilist(fem_grids);
    else if (o == "-mats") list(mats);
    else if (o == "-variants") list(g_variants);
    else if (o == "-shared") shared = val;
    else if (o == "-bsr_grid") bsr_grid = (int)parse_long(o.c_str(), val.c_str());
    else if (o == "-bsr_matrix") bsr_matrix = val;
    else if (o == "-channel_max") channel_max = (int)parse_long(o.c_str(), val.c_str());
    else if (o == "-sweeps") g_sweeps = (int)parse_long(o.c_str(), val.c_str());
    else if (o == "-factor_sweeps") g_fsweeps = (int)parse_long(o.c_str(), val.c_str());
    else if (o == "-reps") g_reps = (int)parse_long(o.c_str(), val.c_str());
    else if (o == "-ref_max_work") g_ref_max_work = parse_double(o.c_str(), val.c_str());
    else if (o == "-gmres_maxit") g_gm_maxit = (int)parse_long(o.c_str(), val.c_str());
    else if (o == "-gmres_rtol") g_gm_rtol = parse_double(o.c_str(), val.c_str());
    else if (o == "-gmres_reps") g_gm_reps = (int)parse_long(o.c_str(), val.c_str());
    else if (o == "-gmres_max_s") g_gm_max_s = parse_double(o.c_str(), val.c_str());
    else if (o == "-budget_s") g_budget = parse_double(o.c_str(), val.c_str());
    else if (o == "-json") {
      if (!(g_json = fopen(val.c_str(), "w"))) fprintf(stderr, "cannot write %s\n", val.c_str()), exit(2);
    } else {
      usage(stderr);
      fprintf(stderr, "unknown option %s\n", o.c_str());
      return 2;
    }
  }
  if (g_reps < 1 || g_gm_reps < 1 || g_gm_maxit < 1 || bsr_grid < 1 || g_sweeps < 0 || g_fsweeps < 1 ||
      !(g_gm_rtol > 0 && g_gm_rtol < 1) || !(g_gm_max_s > 0) || !(g_budget > 0) ||
      (bsr_matrix != "auto" && bsr_matrix != "channel" && bsr_matrix != "random")) {
    usage(stderr);
    fprintf(stderr, "an option's value is out of range\n");
    return 2;
  }
  for (int b : bsr_bs)
    if (b < 2 || b > PDS_STENCIL7_MAXN) fprintf(stderr, "-bsr_bs %d: 2 .. %d\n", b, PDS_STENCIL7_MAXN), exit(2);
  for (auto &v : g_variants)
    if (v != "auto" && v != "levels" && v != "syncfree" && !is_approx(v))
      fprintf(stderr, "-variants: %s is not one of auto, levels, syncfree, approx-jacobi, approx-chow\n", v.c_str()),
          exit(2);
  for (int g : fem_grids)
    if (g < 1 || g > 6) fprintf(stderr, "-fem_grids %d: paper 004's grids are 1 .. 6\n", g), exit(2);
  g_deadline = g_t0 + g_budget;
  PK(nullptr, pds_ctx_create("/gpu/cuda", &C.gpu));
  PK(nullptr, pds_ctx_create("/cpu/omp", &C.omp));
  PK(nullptr, pds_ctx_create("/cpu/ref", &C.ref));
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
  J("copy", "").num("copy_gbs", g_bw * 1e-9).inum("omp_threads", pds_ctx_get_num_threads(C.omp)).emit();
  // the cases and their estimated fixed costs
  std::vector<Spec> specs;
  for (int m : sizes) {
    Spec s;

    s.kind = "poisson7", s.name = "poisson7 " + std::to_string(m) + "^3", s.m = m;
    s.est_s = est_case(7.0 * m * m * m, 1, 2e-8 * 7.0 * m * m * m);
    specs.push_back(s);
  }
  for (int b : bsr_bs) {
    Spec         s;
    const double nnz = 7.0 * bsr_grid * bsr_grid * bsr_grid * b * b;

    s.kind = "bsr7", s.m = bsr_grid, s.bs = b;
    s.channel = b >= 4 && b <= 6 && // the channel generator's n
                (bsr_matrix == "channel" || (bsr_matrix == "auto" && bsr_grid <= channel_max));
    s.name    = std::string(s.channel ? "channel" : "random") + " " + std::to_string(bsr_grid) + "^3 bsr b=" +
             std::to_string(b);
    s.est_s = est_case(nnz, b, (s.channel ? 4e-8 : 1.5e-8) * nnz);
    specs.push_back(s);
  }
  for (int g : fem_grids) {
    Spec s;

    s.kind = "fem2d", s.nodes = g_fem_nodes[g - 1], s.name = "fem2d grid " + std::to_string(g);
    s.est_s = est_case(7.0 * s.nodes, 1, 3.5e-6 * s.nodes);
    specs.push_back(s);
  }
  if (!shared.empty())
    for (auto &nm : mats) {
      Spec s;

      s.kind = "shared", s.name = nm, s.est_s = 1;
      specs.push_back(s);
    }
  g_gm_left = g_gmres ? (int)(specs.size() * g_variants.size()) : 0;
  printf("### bench_ilu: ILU(0) on %s, copy bandwidth %.0f GB/s; /cpu/omp %d threads; budget %.0f s\n\n",
         g_gpu.c_str(), g_bw * 1e-9, pds_ctx_get_num_threads(C.omp), g_budget);
  printf("Times in ms (medians), GMRES in s. setup: the first (analysis + factorization); refactor: "
         "pds_precond_update_values (cuSPARSE: its factorization); frac copy: the application's byte model at the copy "
         "bandwidth over its time (bench_ilu.cu's header); x cuSPARSE: cuSPARSE's application time over this one's "
         "(> 1: pdesolve faster). GMRES(30) + ilu0 to 1e-8, b = A 1, x0 = 0 (its: iterations; GMRES s: the solve, "
         "median; setup + GMRES s: with the first setup). approx-jacobi: %d Jacobi sweeps per triangle after the first; "
         "approx-chow: %d Chow-Patel sweeps, then as approx-jacobi.\n\n", g_sweeps, g_fsweeps);
  printf("| case | n | nnz | b | implementation | setup | refactor | apply | frac copy | x cuSPARSE | GMRES its "
         "| GMRES s | setup + GMRES s | GMRES reason / note |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  fflush(stdout);
  for (size_t k = 0; k < specs.size(); k++) {
    const Spec &s = specs[k];

    g_reserve_s = 0;
    for (size_t q = k + 1; q < specs.size(); q++) g_reserve_s += specs[q].est_s;
    if (pds_wtime() > g_deadline) {
      LOG("%s: skipped (past the budget of %.0f s)", s.name.c_str(), g_budget);
      J("skip", s.name).str("why", "budget").num("elapsed_s", pds_wtime() - g_t0).emit();
      printf("| %s | | | | skipped: past the budget (%.0f s) | | | | | | | | | |\n", s.name.c_str(), g_budget);
      fflush(stdout);
      g_gm_left -= g_gmres ? (int)g_variants.size() : 0;
      continue;
    }
    const double t0 = pds_wtime();
    const int    gl = g_gm_left;
    pds_mat      A  = make_matrix(C, s, shared);
    run_case(C, s.name, A);
    pds_mat_destroy(&A);
    g_gm_left = gl - (g_gmres ? (int)g_variants.size() : 0);
    LOG("%s: %.1f s (estimated fixed part %.1f s)", s.name.c_str(), pds_wtime() - t0, s.est_s);
  }
  // the summary: per case, each variant's application against cuSPARSE's and its GMRES
  printf("\nSummary: per variant, apply ms (cuSPARSE apply / apply) and GMRES(30) iterations, solve s (! = did not "
         "converge).\n\n| case | cuSPARSE apply |");
  for (auto &v : g_variants) printf(" %s |", v.c_str());
  printf("\n|---|---|");
  for (size_t i = 0; i < g_variants.size(); i++) printf("---|");
  printf("\n");
  for (const CaseSum &c : g_sum) {
    printf("| %s | %s |", c.name.c_str(), ms(c.cs_apply).c_str());
    for (const Row &r : c.rows) {
      if (!r.ok) {
        printf(" unavailable |");
        continue;
      }
      std::string g = !r.gm.ran ? std::string("no GMRES") :
                      std::to_string(r.gm.its) + (r.gm.reason > 0 ? "" : "!") + " its, " + fx("%.3f", r.gm.t) + " s";
      printf(" %s (%s), %s |", ms(r.t_apply).c_str(), fx("%.2fx", r.x_cs).c_str(), g.c_str());
    }
    printf("\n");
  }
  printf("\n%d validation failure(s); %.1f s in all\n", g_failures, pds_wtime() - g_t0);
  if (g_json) fclose(g_json);
  pds_ctx_destroy(&C.gpu), pds_ctx_destroy(&C.omp), pds_ctx_destroy(&C.ref);
  return g_failures ? 1 : 0;
}
