// bench/gpu/bench_bilu.cu: block ILU(0) on stencil7 matrices (paper 000, FGBILU; issue 10's Performance section):
// the factorization and one application (forward + backward sweep) of bilu0 for every /gpu/cuda variant, /cpu/ref
// (one thread), /cpu/omp (all threads) and cuSPARSE (bsrilu02 + bsrsv2, and the generic SpSV) on the same matrix in
// the same run, as the paper's time per grid point t_p = T / (I J K); the paper's Table 1 (speedups over the OpenMP
// version) and the ratios to cuSPARSE; the solve's memory traffic against the device copy bandwidth; float factors;
// defect-correction (Richardson + bilu0) and GMRES iteration counts on channel systems at CFL 1, 10, 100; many
// small grids in one multi-block matrix against the same grids as separate matrices applied one after another.
//
//   bench_bilu [-sizes 15,25,35,45,55,100,128] [-sizes4 25,55] [-sizes5 25,55]
//              [-variants hyperplane,graph,recycle,syncfree,lanes,block,tiles,pipe] [-matrix auto|channel|random]
//              [-channel_max 55] [-cfl 10] [-ref_max 55] [-omp_max 128] [-spsv_max 100] [-reps 100] [-warmup 2]
//              [-box_s 0.25] [-cpu_box_s 1.5] [-budget_s 150] [-maxit 1000] [-cfl_grid 25] [-cfls 1,10,100]
//              [-no_cpu] [-no_cusparse] [-no_multi] [-no_iters] [-quick] [-json FILE] [-help]
//
// Matrices: n = 6 unknowns per point on the cubic grids of -sizes (the paper's 15^3 .. 55^3, and 100^3, 128^3),
// n = 4 and 5 on -sizes4 / -sizes5. -matrix auto takes the channel generator (pds_channel_generate, CFL -cfl: the
// paper's kind of system) up to -channel_max^3 points and pds_stencil7_random (diagonally dominant, dominance 1.5)
// above: the channel generator is a sequential host loop (about 10 s for 100^3 on a small VM) and bilu0's time
// does not depend on the values; each record names its matrix. The matrix is made once on /cpu/ref and copied
// (its values, read through pds_mat_stencil7_grids) to /cpu/omp and /gpu/cuda; cuSPARSE gets the same values as BSR
// (bs = n, row-major blocks, block columns ascending: pds_mat_convert_to_bsr's layout), gathered on the device from
// the /gpu/cuda matrix's values (from an upload of the host values if the device array ever has another layout).
// Multi-block: 64 channel grids of 15^3, and 16 each of 15^3, 25^3, 35^3 (interleaved), n = 6, from
// pds_channel_generate_blocks (one block-diagonal stencil7 matrix; every grid its own coefficients).
//
// Validation first, every case (a failure ends the run, exit 1, "FAIL: ..."): x random in [-1, 1); y = M^-1 x on
// /cpu/ref is the reference (/cpu/omp where ref is not run: the CPU backends give the same bits, checked wherever
// both run); every GPU variant's y against it (the same bits are expected: 'bitwise' in the JSON; more than 1e-10
// relative fails); float factors against it (reported: a perturbed preconditioner, about cond x 6e-8; more than
// 5e-2, which only broken factors reach, fails); cuSPARSE's y (bsrilu02, then the unit lower and the upper
// triangular solve) against it: ILU(0) on the 7-point block pattern is paper 000's block ILU(0) in exact arithmetic
// (two points of the grid that are neighbours share no neighbour, so no fill lands on the pattern), so the
// difference is rounding: more than 1e-8 relative fails (SpSV on the CSR expansion of the same factors too; SpSV on
// BSR, where cuSPARSE takes it, is reported and not used if it disagrees); the multi-block matrix's y against the
// separate grids' (bitwise expected, 1e-10 fails). A variant that /gpu/cuda refuses at setup (not for these grids,
// or an older build without it) is reported as unavailable ("unavailable" lines) and left out; if the default
// ("auto") is unavailable the run ends with exit 1 after the tables.
//
// Timing: t_p = median time / points. Device times: CUDA events around one call (a batch of 4 back-to-back calls
// when one takes under 50 us: an idle GPU otherwise also counts the host's time to the first launch), after one
// untimed call and -warmup more; as many repetitions as fit in -box_s (at least 3, at most -reps: the paper averaged
// 100); a first call longer than the box is itself the one sample (wall clock around a synchronized call), and a
// variant whose first setup and apply together take more than twice the box plus 1 s (one built for other grids:
// 'block' on one large grid) keeps those two calls as its samples. pds_precond_setup is the factorization (it ends
// with one small device-to-host read of the singular-block flag); pds_precond_apply one sweep pair. cuSPARSE:
// bsrilu02 alone (the original values restored by a device copy before each repetition, outside the events;
// analysis timed separately, once, wall clock after a synchronize), the pair bsrsv2 L (unit lower) then U; each with
// both solve policies (USE_LEVEL, NO_LEVEL), the faster reported as cuSPARSE; SpSV (CSR expansion of the factors;
// and BSR where cuSPARSE takes it) up to -spsv_max^3 points. CPU backends: wall clock, -cpu_box_s per measurement
// (after one untimed call), /cpu/ref up to -ref_max^3 points. Every case is time-boxed, and the whole run is kept
// under -budget_s: a case whose estimated cost (its points times the seconds per point, /cpu/ref left out, of the
// largest case so far) does not fit in what is left runs lean (no /cpu/ref, no SpSV, no iteration counts, boxes
// cut to 30%), or is skipped ("skip" line) when not even that fits. -quick: n = 6 on 15, 25, 55, 100; n = 4, 5 on
// 25; 64 x 15^3 only; boxes 0.1 s (GPU) and 0.5 s (CPU), at most 30 repetitions.
//
// Byte models (8-byte reals; the write-allocate read of an output is not counted, as in STREAM; every implementation
// is charged the same bytes, so GB/s and fractions compare times):
//   application y = M^-1 x, per point:
//     forward   reads the three lower blocks alpha, beta, gamma (3 n^2) and the inverted factored diagonal D^-1 (n^2)
//               and x_p (n), writes the intermediate y_p (n) (the upstream neighbours' y were written by them: each
//               value is counted once, where it is written; re-reading it comes from cache);
//     backward  reads the three upper blocks epsilon, zeta, eta (3 n^2) and D^-1 (n^2) again and y_p (n), writes y_p;
//     -> 8 n^2 + 4 n values = 8 (8 n^2 + 4 n) bytes per point (n = 6: 2496 B); the floor if the intermediate never
//     left the chip is 8 (8 n^2 + 2 n) (JSON bytes_min). Float factors: the 6 blocks and D^-1 in 4 bytes:
//     4 (8 n^2) + 8 (4 n). Flops: 6 block products with a vector and 2 with D^-1: 16 n^2 per point.
//   factorization, per point: reads the seven blocks once (7 n^2; the upstream D^-1 a point reads were written by
//     its neighbours and are counted there), writes D^-1 (n^2): 8 (8 n^2) = 64 n^2 bytes; float factors write the
//     float copy of the 6 blocks and D^-1 too: + 4 (7 n^2). Flops: three products L D^-1 U (4 n^3 each) and the
//     inversion (2 n^3): 14 n^3 per point.
//   The copy bandwidth (y = x over 2^26 doubles, the better of pds_cuda_vec_copy and cudaMemcpy D2D, this run) is
//   what frac_copy divides by; floor_s = model bytes / copy bandwidth.
//
// Output: JSON lines (-json FILE, else stdout): "copy"; per case and implementation "tp" (problem, n, m, points,
// grids, matrix, backend, variant, factors, op = factor | apply | analysis, time_s, tp_ns, reps, bytes, gbs,
// frac_copy, gflops); "validate" (rel_diff, bitwise, reference); "unavailable"; "skip"; "case_summary" (the key
// times and ratios of a case, what bench/gpu-check.sh's summary reads); "iters" (solver, cfl, factors, iterations,
// reason, rel. residual, time); "multiblock" (one matrix against the separate grids). The progress log goes to
// stderr; the closing markdown tables to stdout when -json is given, else to stderr. bench/scripts/plot_bilu.py
// draws the paper's Figures 6 and 7 from the JSON lines.
#define DISABLE_CUSPARSE_DEPRECATED // bsrilu02 / bsrsv2 are deprecated since CUDA 12 but still cuSPARSE's BSR ILU(0)
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
extern "C" {
#include "mat/mat_impl.h" // pds_mat_stencil7_grids: a stencil7 matrix's values (host on CPU backends, device on cuda)
}
#include "gpu_bench_util.cuh"
#include "bench_log.cuh"

// ---- options ----------------------------------------------------------------------------------------------------
static std::vector<int>         g_sizes6 = {15, 25, 35, 45, 55, 100, 128}, g_sizes4 = {25, 55}, g_sizes5 = {25, 55};
static std::vector<std::string> g_variants = {"hyperplane", "graph", "recycle", "syncfree", "lanes", "block", "tiles",
                                              "pipe"};
static std::vector<double>      g_cfls     = {1, 10, 100};
static std::string              g_matrix   = "auto";
static int    g_channel_max = 55, g_ref_max = 55, g_omp_max = 128, g_spsv_max = 100, g_reps = 100, g_warm = 2;
static int    g_maxit = 1000, g_cfl_grid = 25, g_quick = 0;
static int    g_no_cpu = 0, g_no_cusparse = 0, g_no_multi = 0, g_no_iters = 0;
static double g_box = 0.25, g_cpu_box = 1.5, g_budget = 150, g_cfl = 10;
static const char *g_json_path = NULL;

// ---- context of the run -----------------------------------------------------------------------------------------
static double           g_copy_bw; // bytes/s, device copy
static char             g_machine[128], g_gpu_name[256];
static cusparseHandle_t g_sp;
static pds_ctx          g_ref, g_omp, g_gpu;
static FILE            *g_json, *g_tab;
static double           g_deadline;
static double           g_rate = 0;   // seconds per point (without /cpu/ref) of the largest case so far ...
static long long        g_rate_np = 0; // ... which had this many points (small cases are overhead, not points)
static bool             g_lean = false; // this case runs lean (the budget is short)
static bool             g_auto_missing = false;

static double left_s() { return g_deadline - pds_wtime(); }
static double box() { return g_lean ? 0.3 * g_box : g_box; }
static double cpu_box() { return g_lean ? 0.3 * g_cpu_box : g_cpu_box; }

// ---- the case being measured ------------------------------------------------------------------------------------
struct Grid {
  int I, J, K;
};
struct Problem {
  std::string       name;   // "55^3", "64x15^3", ...
  std::vector<Grid> g;
  int               n = 6, m = 0; // unknowns per point; the edge of a single cubic grid (0: multi-block)
  long long         np = 0;       // points
  std::string       matrix;       // "channel" or "random"
};
static Problem g_cur;

// ---- JSON lines ---------------------------------------------------------------------------------------------------
struct J {
  std::string s;
  explicit J(const char *cas, bool with_case = true) {
    s = "{\"bench\":\"bilu\"";
    str("machine", g_machine).str("gpu", g_gpu_name).str("case", cas);
    if (with_case && g_cur.np)
      str("problem", g_cur.name).num("n", g_cur.n).num("m", g_cur.m).num("points", (double)g_cur.np)
          .num("grids", (double)g_cur.g.size()).str("matrix", g_cur.matrix);
  }
  J &str(const char *k, const std::string &v) {
    s += ",\"" + std::string(k) + "\":\"";
    for (char c : v) s += c == '"' || c == '\\' ? '_' : (c == '\n' ? ' ' : c);
    s += "\"";
    return *this;
  }
  J &num(const char *k, double v) {
    char b[64];

    if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9e15) snprintf(b, sizeof b, "%.0f", v);
    else if (std::isfinite(v)) snprintf(b, sizeof b, "%.6g", v);
    else snprintf(b, sizeof b, "null");
    s += ",\"" + std::string(k) + "\":" + b;
    return *this;
  }
  J &boolean(const char *k, bool v) {
    s += ",\"" + std::string(k) + "\":" + (v ? "true" : "false");
    return *this;
  }
  void emit() {
    fputs((s + "}\n").c_str(), g_json);
    fflush(g_json);
  }
};

// ---- results kept for the tables ------------------------------------------------------------------------------------
struct Rec {
  std::string prob;
  int         n; // a problem is its name and n ("25^3" runs with n = 4, 5, 6)
  std::string be, var, fac, op;
  double      t;
};
static std::vector<Rec>     g_recs;
static std::vector<Problem> g_probs; // in the order measured
struct ProbExtra {
  std::string plan;                                  // what "auto" runs (plan_describe)
  double      rel_gpu = NAN, rel_float = NAN, rel_cs = NAN, rel_spsv = NAN; // validation, worst over variants
  bool        bitwise = true;
  int         its_d = -1, its_f = -1;                // Richardson + bilu0 to 1e-8, double / float factors
  double      an_ilu = NAN, an_sv = NAN, an_spsv = NAN; // cuSPARSE analyses, s
  std::string cs_policy, cs_solver;
};
static std::vector<ProbExtra> g_extra;
static ProbExtra             &extra() { return g_extra.back(); }

static void keep(const char *be, const std::string &var, const char *fac, const char *op, double t) {
  g_recs.push_back({g_cur.name, g_cur.n, be, var, fac, op, t});
}
static double find(const Problem &P, const char *be, const std::string &var, const char *fac, const char *op) {
  for (const Rec &r : g_recs)
    if (r.prob == P.name && r.n == P.n && r.be == be && r.var == var && r.fac == fac && r.op == op) return r.t;
  return NAN;
}

// ---- byte and flop models (header comment) --------------------------------------------------------------------------
static double apply_bytes(int n, bool f32) { return (f32 ? 4.0 : 8.0) * 8 * n * n + 8.0 * 4 * n; }
static double apply_bytes_min(int n) { return 8.0 * (8 * n * n + 2 * n); }
static double factor_bytes(int n, bool f32) { return 64.0 * n * n + (f32 ? 28.0 * n * n : 0); }
static double apply_flops(int n) { return 16.0 * n * n; }
static double factor_flops(int n) { return 14.0 * n * n * n; }

struct Meas {
  double t    = NAN;
  int    reps = 0;
};

// one "tp" line (and the record for the tables)
static void report_tp(const char *be, const std::string &var, const char *fac, const char *op, Meas m,
                      const std::string &note = "") {
  const bool   dev   = strncmp(be, "/cpu", 4) != 0;
  const bool   f32   = !strcmp(fac, "float");
  const int    n     = g_cur.n;
  const double np    = (double)g_cur.np;
  double       bytes = 0, flops = 0;

  if (!strcmp(op, "apply")) bytes = apply_bytes(n, f32) * np, flops = apply_flops(n) * np;
  else if (!strcmp(op, "factor")) bytes = factor_bytes(n, f32) * np, flops = factor_flops(n) * np;
  J j("tp");
  j.str("backend", be).str("variant", var).str("factors", fac).str("op", op).num("time_s", m.t)
      .num("tp_ns", m.t / np * 1e9).num("reps", m.reps);
  if (bytes > 0) {
    j.num("bytes", bytes).num("gbs", bytes / m.t * 1e-9).num("gflops", flops / m.t * 1e-9);
    if (dev) j.num("frac_copy", bytes / m.t / g_copy_bw).num("floor_s", bytes / g_copy_bw);
    if (!strcmp(op, "apply") && !f32) j.num("bytes_min", apply_bytes_min(n) * np);
  }
  if (!dev) j.num("threads", pds_ctx_get_num_threads(!strcmp(be, "/cpu/omp") ? g_omp : g_ref));
  if (!note.empty()) j.str("note", note);
  j.emit();
  keep(be, var, fac, op, m.t);
}

// ---- timing ---------------------------------------------------------------------------------------------------------
// Device time of f: one untimed call (its length sizes the rest), -warmup more, then repetitions that fit in the box
// (3 .. -reps), each CUDA events around one call, or around 4 back-to-back calls when a call takes under 50 us; a
// first call longer than the box is itself the one sample (wall clock, synchronized); pre() (if any) runs before each
// call outside the timing (cuSPARSE's value restore).
template <class F, class P> static Meas time_dev_pre(F f, P pre, bool has_pre, double bx) {
  cudaEvent_t         a, b;
  std::vector<double> t;
  Meas                m;

  pre();
  CK(cudaDeviceSynchronize());
  double h0 = pds_wtime();
  f();
  CK(cudaDeviceSynchronize());
  const double t1 = std::max(pds_wtime() - h0, 1e-7);
  if (t1 > bx) { // one call fills the box: it is the sample (wall clock around a synchronized call)
    m.t = t1, m.reps = 1;
    return m;
  }
  const int batch = !has_pre && t1 < 50e-6 ? 4 : 1;
  const int warm  = t1 * g_warm < bx ? g_warm : 0;
  const int reps  = std::max(3, std::min(g_reps, (int)(bx / (t1 * batch))));

  for (int w = 0; w < warm; w++) pre(), f();
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  CK(cudaDeviceSynchronize());
  for (int r = 0; r < reps; r++) {
    float ms;

    pre();
    CK(cudaEventRecord(a, 0));
    for (int k = 0; k < batch; k++) f();
    CK(cudaEventRecord(b, 0));
    CK(cudaEventSynchronize(b));
    CK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(1e-3 * ms / batch);
  }
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  m.t = median(t), m.reps = reps;
  return m;
}
template <class F> static Meas time_dev(F f, double bx = -1) {
  return time_dev_pre(f, [] {}, false, bx < 0 ? box() : bx);
}
// Wall time of a host call (CPU backends): one untimed call, then repetitions that fit in the box (1 .. -reps); a
// first call longer than the box is itself the one sample.
template <class F> static Meas time_cpu(F f, double bx = -1) {
  std::vector<double> t;
  Meas                m;

  if (bx < 0) bx = cpu_box();
  double h0 = pds_wtime();
  f();
  const double t1 = std::max(pds_wtime() - h0, 1e-7);
  if (t1 > bx) { // one call fills the box: it is the sample
    m.t = t1, m.reps = 1;
    return m;
  }
  const int reps = std::max(1, std::min(g_reps, (int)(bx / t1)));
  for (int r = 0; r < reps; r++) {
    double s = pds_wtime();

    f();
    t.push_back(pds_wtime() - s);
  }
  m.t = median(t), m.reps = reps;
  return m;
}

// ---- comparisons --------------------------------------------------------------------------------------------------
struct Cmp {
  double rel;     // max |a - r| / max |r|
  bool   bitwise; // the same bits everywhere
  long long ndiff;
};
static Cmp compare(const std::vector<double> &a, const std::vector<double> &r) {
  Cmp    c  = {0, true, 0};
  double em = 0, rm = 0;

  for (size_t i = 0; i < r.size(); i++) {
    const double d = std::fabs(a[i] - r[i]);

    if (memcmp(&a[i], &r[i], sizeof(double))) c.bitwise = false, c.ndiff++;
    if (!(d <= em)) em = d; // NaN propagates
    rm = std::max(rm, std::fabs(r[i]));
  }
  c.rel = rm > 0 ? em / rm : em;
  return c;
}
static std::vector<double> get(pds_ctx ctx, pds_vec v, long long len) {
  std::vector<double> h(len);

  PK(ctx, pds_vec_get_values(v, h.data(), PDS_MEM_HOST));
  return h;
}
static void validate(const char *be, const std::string &var, const char *fac, const Cmp &c, const char *refname,
                     double bound) {
  J("validate").str("backend", be).str("variant", var).str("factors", fac).str("reference", refname)
      .num("rel_diff", c.rel).boolean("bitwise", c.bitwise).num("entries_differing", (double)c.ndiff)
      .num("bound", bound).emit();
  if (!(c.rel <= bound))
    fail("%s %s (%s factors) on %s n=%d: y = M^-1 x differs from %s's by %.3e relative (bound %.0e)", be,
         var.c_str(), fac, g_cur.name.c_str(), g_cur.n, refname, c.rel, bound);
}

// ---- the device copy bandwidth ----------------------------------------------------------------------------------
// y = x over 2^26 doubles (512 MiB each, far beyond L2): 16 bytes per entry; the better of the library's copy kernel
// and cudaMemcpy D2D is the bandwidth every frac_copy is taken against.
static void measure_copy(long long n) {
  double *x, *y;

  CK(cudaMalloc(&x, n * 8));
  CK(cudaMalloc(&y, n * 8));
  dev_fill(x, n, 1);
  dev_fill(y, n, 2);
  Meas tk = time_dev([&] { CK(pds_cuda_vec_copy(0, n, x, y)); }, 0.5);
  Meas tm = time_dev([&] { CK(cudaMemcpyAsync(y, x, n * 8, cudaMemcpyDeviceToDevice, 0)); }, 0.5);

  g_copy_bw = 16.0 * n / std::min(tk.t, tm.t);
  J("copy", false).str("backend", "/gpu/cuda").num("entries", (double)n).num("time_s", std::min(tk.t, tm.t))
      .num("gbs", g_copy_bw * 1e-9).num("kernel_gbs", 16.0 * n / tk.t * 1e-9).num("memcpy_gbs", 16.0 * n / tm.t * 1e-9)
      .emit();
  LOG("device copy bandwidth %.0f GB/s (copy kernel %.0f, cudaMemcpy D2D %.0f)", g_copy_bw * 1e-9,
      16.0 * n / tk.t * 1e-9, 16.0 * n / tm.t * 1e-9);
  CK(cudaFree(x));
  CK(cudaFree(y));
}

// ---- matrices -----------------------------------------------------------------------------------------------------
// a stencil7 matrix's values array: [points][7][n][n] (host memory on the CPU backends, device memory on /gpu/cuda)
static const double *s7_values(pds_mat A) {
  int                        nb = 0;
  const struct pds_stencil7 *g  = pds_mat_stencil7_grids(A, &nb);

  if (!g) fail("internal: not a stencil7 matrix");
  return g[0].vals;
}
static std::vector<pds_int> dims_of(const Problem &P) {
  std::vector<pds_int> d;

  for (const Grid &g : P.g) d.push_back(g.I), d.push_back(g.J), d.push_back(g.K);
  return d;
}
static void host_random(std::vector<double> &v, unsigned long long seed) {
  unsigned long long s = seed;

  for (double &x : v) {
    unsigned long long z = (s += 0x9e3779b97f4a7c15ull);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull, z = (z ^ (z >> 27)) * 0x94d049bb133111ebull, z ^= z >> 31;
    x = (double)(z >> 11) * 0x1.0p-53 * 2.0 - 1.0;
  }
}

// The problem's matrix on /cpu/ref (A) and its right-hand side (b: the channel generator's, else random); a
// multi-block set from pds_channel_generate_blocks (grid q: the channel system of its size, the perturbation's phase
// advanced by q golden angles, so every grid has its own coefficients).
static void make_problem(const Problem &P, double cfl, pds_mat *A, std::vector<double> &b) {
  b.assign((size_t)P.np * P.n, 0.0);
  if (P.g.size() == 1 && P.matrix == "random") {
    PK(g_ref, pds_stencil7_random(g_ref, P.g[0].I, P.g[0].J, P.g[0].K, P.n, 1.5, 1234567 + P.n, A));
    host_random(b, 99);
    return;
  }
  if (P.g.size() == 1) {
    pds_channel_opts o;
    pds_vec          bv;

    pds_channel_opts_default(&o);
    o.n = P.n, o.ni = P.g[0].I, o.nj = P.g[0].J, o.nk = P.g[0].K, o.cfl = cfl;
    PK(g_ref, pds_channel_generate(g_ref, &o, A, &bv));
    PK(g_ref, pds_vec_get_values(bv, b.data(), PDS_MEM_HOST));
    PK(g_ref, pds_vec_destroy(&bv));
    return;
  }
  pds_channel_opts     o;
  pds_vec              bv;
  std::vector<pds_int> d = dims_of(P);

  pds_channel_opts_default(&o);
  o.n = P.n, o.cfl = cfl;
  PK(g_ref, pds_channel_generate_blocks(g_ref, &o, (int)P.g.size(), d.data(), A, &bv));
  PK(g_ref, pds_vec_get_values(bv, b.data(), PDS_MEM_HOST));
  PK(g_ref, pds_vec_destroy(&bv));
}
// the same matrix on another context (the values copied from the /cpu/ref matrix)
static pds_mat copy_to(pds_ctx ctx, const Problem &P, pds_mat Aref) {
  std::vector<pds_int> d = dims_of(P);
  pds_mat              A;

  PK(ctx, pds_mat_create_stencil7_blocks(ctx, (int)P.g.size(), d.data(), P.n, s7_values(Aref), PDS_MEM_HOST, &A));
  return A;
}
static pds_vec vec_from(pds_ctx ctx, const std::vector<double> &h) {
  pds_vec v;

  PK(ctx, pds_vec_create(ctx, (pds_size)h.size(), &v));
  PK(ctx, pds_vec_set_values(v, h.data(), PDS_MEM_HOST));
  return v;
}

// bilu0 on ctx for A; NULL (and *err the message) when setup refuses the variant or the factor precision
static pds_precond make_pc(pds_ctx ctx, pds_mat A, const std::string &variant, bool f32, std::string *err) {
  pds_precond pc;
  int         e;

  PK(ctx, pds_precond_create(ctx, "bilu0", &pc));
  PK(ctx, pds_precond_bilu0_set_variant(pc, variant.c_str()));
  PK(ctx, pds_precond_bilu0_set_factor_precision(pc, f32 ? PDS_PRECISION_SINGLE : PDS_PRECISION_DOUBLE));
  PK(ctx, pds_precond_set_operator(pc, A));
  e = pds_precond_setup(pc);
  if (e) {
    if (err) *err = std::string(pds_error_name(e)) + ": " + pds_ctx_get_error(ctx);
    pds_ctx_clear_error(ctx);
    PK(ctx, pds_precond_destroy(&pc));
    return NULL;
  }
  return pc;
}
// what the plan of pc says it runs (pds_precond_view's last line), "" if nothing
static std::string plan_of(pds_precond pc) {
  char  *buf = NULL;
  size_t len = 0;
  FILE  *f   = open_memstream(&buf, &len);
  std::string s;

  if (!f) return s;
  pds_precond_view(pc, f);
  fclose(f);
  if (buf) {
    std::string all = buf;
    size_t      e   = all.find_last_not_of(" \n");
    if (e != std::string::npos) {
      size_t b = all.find_last_of('\n', e);
      s        = all.substr(b == std::string::npos ? 0 : b + 1, e + 1 - (b == std::string::npos ? 0 : b + 1));
      size_t f0 = s.find_first_not_of(' ');
      s         = f0 == std::string::npos ? "" : s.substr(f0);
    }
    free(buf);
  }
  return s;
}

// ---- cuSPARSE: bsrilu02 + bsrsv2 (L unit lower, then U), and SpSV ----------------------------------------------------
// the BSR values gathered from the stencil7 values: block e of the BSR is block src[e] ((point) 7 + arm) of stencil7
__global__ void gather_k(long long total, int nn, const long long *src, const double *s7, double *out) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;

  if (i >= total) return;
  const long long e = i / nn;
  out[i] = s7[src[e] * nn + (i - e * nn)];
}
// the scalar CSR of the factored BSR (for SpSV): row r = br bs + rr holds, block by block, row rr of each block
__global__ void bsr2csr_rows_k(int nrows, int bs, const int *rp, int *crp) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;

  if (r > nrows) return;
  if (r == nrows) {
    crp[r] = rp[nrows / bs] * bs * bs;
    return;
  }
  const int br = r / bs, rr = r - br * bs;
  crp[r] = rp[br] * bs * bs + rr * (rp[br + 1] - rp[br]) * bs;
}
__global__ void bsr2csr_vals_k(long long total, int bs, const int *rp, const int *ci, const int *brow, const double *v,
                               int *cci, double *cv) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;

  if (i >= total) return;
  const int       nn = bs * bs;
  const long long e  = i / nn;
  const int       t  = (int)(i - e * nn), rr = t / bs, c = t - rr * bs, br = brow[e];
  const long long pos = (long long)rp[br] * nn + (long long)rr * (rp[br + 1] - rp[br]) * bs + (e - rp[br]) * bs + c;
  cci[pos] = ci[e] * bs + c;
  cv[pos]  = v[i];
}

struct CsBsr {
  int                mb = 0, nnzb = 0, bs = 0;
  int               *rp = nullptr, *ci = nullptr, *brow = nullptr;
  double            *v0 = nullptr, *v = nullptr, *t = nullptr;
  cusparseMatDescr_t dM = nullptr, dL = nullptr, dU = nullptr;
  bsrilu02Info_t     iM = nullptr;
  bsrsv2Info_t       iL = nullptr, iU = nullptr;
  void              *buf = nullptr;
};
// the problem's BSR on the device: the structure from the grids, the values gathered from the /gpu/cuda matrix's
// device array when it holds the host layout ([points][7][n][n], checked on its first and last 2^16 values), else
// from an upload of the host values (Vh)
static CsBsr cs_build(const Problem &P, pds_mat Agpu, const double *Vh) {
  static const int     order[7] = {2, 1, 0, 3, 6, 5, 4}; // arms by ascending block column
  CsBsr                c;
  std::vector<int>     rp(P.np + 1), ci, brow;
  std::vector<long long> src;
  long long            first = 0;

  ci.reserve(P.np * 7), src.reserve(P.np * 7), brow.reserve(P.np * 7);
  for (const Grid &G : P.g) {
    const long long JK = (long long)G.J * G.K;
    long long       p  = first;

    for (int i = 0; i < G.I; i++)
      for (int j = 0; j < G.J; j++)
        for (int k = 0; k < G.K; k++, p++) {
          const int       in[7]  = {k > 0, j > 0, i > 0, 1, i < G.I - 1, j < G.J - 1, k < G.K - 1};
          const long long off[7] = {-1, -G.K, -JK, 0, JK, G.K, 1};

          for (int o = 0; o < 7; o++) {
            const int a = order[o];

            if (!in[a]) continue;
            ci.push_back((int)(p + off[a]));
            src.push_back(p * 7 + a);
            brow.push_back((int)p);
          }
          rp[p + 1] = (int)ci.size();
        }
    first = p;
  }
  c.mb = (int)P.np, c.nnzb = (int)ci.size(), c.bs = P.n;
  const long long nv = (long long)c.nnzb * c.bs * c.bs;
  long long      *dsrc = dev_copy(src.data(), src.size());
  c.rp   = dev_copy(rp.data(), rp.size());
  c.ci   = dev_copy(ci.data(), ci.size());
  c.brow = dev_copy(brow.data(), brow.size());
  CK(cudaMalloc(&c.v0, nv * 8));
  CK(cudaMalloc(&c.v, nv * 8));
  CK(cudaMalloc(&c.t, (size_t)P.np * P.n * 8));
  const double   *s7 = s7_values(Agpu), *up = nullptr;
  const long long total = P.np * 7 * c.bs * c.bs, k = std::min(total, 1LL << 16);
  std::vector<double> head(k), tail(k);
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(head.data(), s7, k * 8, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(tail.data(), s7 + (total - k), k * 8, cudaMemcpyDeviceToHost));
  if (memcmp(head.data(), Vh, k * 8) || memcmp(tail.data(), Vh + (total - k), k * 8)) {
    LOG("  cuSPARSE: the /gpu/cuda stencil7 values are not in the host layout; uploading the host values instead");
    s7 = up = dev_copy(Vh, (size_t)total);
  }
  gather_k<<<(unsigned)((nv + 255) / 256), 256>>>(nv, c.bs * c.bs, dsrc, s7, c.v0);
  CK(cudaGetLastError());
  CK(cudaMemcpy(c.v, c.v0, nv * 8, cudaMemcpyDeviceToDevice));
  CK(cudaFree(dsrc));
  if (up) CK(cudaFree((void *)up));
  CKS(cusparseCreateMatDescr(&c.dM));
  CKS(cusparseSetMatIndexBase(c.dM, CUSPARSE_INDEX_BASE_ZERO));
  CKS(cusparseSetMatType(c.dM, CUSPARSE_MATRIX_TYPE_GENERAL));
  CKS(cusparseCreateMatDescr(&c.dL));
  CKS(cusparseSetMatIndexBase(c.dL, CUSPARSE_INDEX_BASE_ZERO));
  CKS(cusparseSetMatType(c.dL, CUSPARSE_MATRIX_TYPE_GENERAL));
  CKS(cusparseSetMatFillMode(c.dL, CUSPARSE_FILL_MODE_LOWER));
  CKS(cusparseSetMatDiagType(c.dL, CUSPARSE_DIAG_TYPE_UNIT));
  CKS(cusparseCreateMatDescr(&c.dU));
  CKS(cusparseSetMatIndexBase(c.dU, CUSPARSE_INDEX_BASE_ZERO));
  CKS(cusparseSetMatType(c.dU, CUSPARSE_MATRIX_TYPE_GENERAL));
  CKS(cusparseSetMatFillMode(c.dU, CUSPARSE_FILL_MODE_UPPER));
  CKS(cusparseSetMatDiagType(c.dU, CUSPARSE_DIAG_TYPE_NON_UNIT));
  CKS(cusparseCreateBsrilu02Info(&c.iM));
  CKS(cusparseCreateBsrsv2Info(&c.iL));
  CKS(cusparseCreateBsrsv2Info(&c.iU));
  int sm = 0, sl = 0, su = 0;
  const cusparseDirection_t   dir = CUSPARSE_DIRECTION_ROW;
  const cusparseOperation_t   op  = CUSPARSE_OPERATION_NON_TRANSPOSE;
  CKS(cusparseDbsrilu02_bufferSize(g_sp, dir, c.mb, c.nnzb, c.dM, c.v, c.rp, c.ci, c.bs, c.iM, &sm));
  CKS(cusparseDbsrsv2_bufferSize(g_sp, dir, op, c.mb, c.nnzb, c.dL, c.v, c.rp, c.ci, c.bs, c.iL, &sl));
  CKS(cusparseDbsrsv2_bufferSize(g_sp, dir, op, c.mb, c.nnzb, c.dU, c.v, c.rp, c.ci, c.bs, c.iU, &su));
  CK(cudaMalloc(&c.buf, (size_t)std::max(sm, std::max(sl, su)) + 256));
  return c;
}
static void cs_free(CsBsr &c) {
  cusparseDestroyBsrilu02Info(c.iM);
  cusparseDestroyBsrsv2Info(c.iL);
  cusparseDestroyBsrsv2Info(c.iU);
  cusparseDestroyMatDescr(c.dM);
  cusparseDestroyMatDescr(c.dL);
  cusparseDestroyMatDescr(c.dU);
  for (void *p : {(void *)c.rp, (void *)c.ci, (void *)c.brow, (void *)c.v0, (void *)c.v, (void *)c.t, c.buf})
    CK(cudaFree(p));
  c = CsBsr();
}
static cusparseStatus_t cs_factor(CsBsr &c, cusparseSolvePolicy_t pol) {
  return cusparseDbsrilu02(g_sp, CUSPARSE_DIRECTION_ROW, c.mb, c.nnzb, c.dM, c.v, c.rp, c.ci, c.bs, c.iM, pol, c.buf);
}
static cusparseStatus_t cs_solve(CsBsr &c, const double *x, double *y, cusparseSolvePolicy_t pol) {
  const double        one = 1.0;
  const cusparseOperation_t op = CUSPARSE_OPERATION_NON_TRANSPOSE;
  cusparseStatus_t    s;

  s = cusparseDbsrsv2_solve(g_sp, CUSPARSE_DIRECTION_ROW, op, c.mb, c.nnzb, &one, c.dL, c.v, c.rp, c.ci, c.bs, c.iL,
                            x, c.t, pol, c.buf);
  if (s == CUSPARSE_STATUS_SUCCESS)
    s = cusparseDbsrsv2_solve(g_sp, CUSPARSE_DIRECTION_ROW, op, c.mb, c.nnzb, &one, c.dU, c.v, c.rp, c.ci, c.bs,
                              c.iU, c.t, y, pol, c.buf);
  return s;
}
static void restore(CsBsr &c) {
  CK(cudaMemcpyAsync(c.v, c.v0, (size_t)c.nnzb * c.bs * c.bs * 8, cudaMemcpyDeviceToDevice, 0));
}

// SpSV of the factors in one format (CSR expansion or BSR): the pair L (unit lower) then U; validated against yref;
// returns the solve time, or NAN with why
struct SpsvRun {
  Meas        m;
  double      t_analysis = NAN, rel = NAN;
  std::string why;
};
static SpsvRun spsv_run(cusparseSpMatDescr_t mL, cusparseSpMatDescr_t mU, long long N, const double *dx, double *dy,
                        double *dt, const std::vector<double> &yref) {
  SpsvRun              r;
  cusparseDnVecDescr_t vx, vt, vy;
  cusparseSpSVDescr_t  sL = nullptr, sU = nullptr;
  size_t               bl = 0, bu = 0;
  void                *pl = nullptr, *pu = nullptr;
  const double         one = 1.0;
  const cusparseOperation_t op = CUSPARSE_OPERATION_NON_TRANSPOSE;
  cusparseFillMode_t   lo = CUSPARSE_FILL_MODE_LOWER, up = CUSPARSE_FILL_MODE_UPPER;
  cusparseDiagType_t   un = CUSPARSE_DIAG_TYPE_UNIT, nu = CUSPARSE_DIAG_TYPE_NON_UNIT;
  cusparseStatus_t     s;

  CKS(cusparseCreateDnVec(&vx, N, (void *)dx, CUDA_R_64F));
  CKS(cusparseCreateDnVec(&vt, N, dt, CUDA_R_64F));
  CKS(cusparseCreateDnVec(&vy, N, dy, CUDA_R_64F));
  CKS(cusparseSpSV_createDescr(&sL));
  CKS(cusparseSpSV_createDescr(&sU));
  s = cusparseSpMatSetAttribute(mL, CUSPARSE_SPMAT_FILL_MODE, &lo, sizeof lo);
  if (!s) s = cusparseSpMatSetAttribute(mL, CUSPARSE_SPMAT_DIAG_TYPE, &un, sizeof un);
  if (!s) s = cusparseSpMatSetAttribute(mU, CUSPARSE_SPMAT_FILL_MODE, &up, sizeof up);
  if (!s) s = cusparseSpMatSetAttribute(mU, CUSPARSE_SPMAT_DIAG_TYPE, &nu, sizeof nu);
  if (!s) s = cusparseSpSV_bufferSize(g_sp, op, &one, mL, vx, vt, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, sL, &bl);
  if (!s) s = cusparseSpSV_bufferSize(g_sp, op, &one, mU, vt, vy, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, sU, &bu);
  if (!s) {
    CK(cudaMalloc(&pl, bl + 16));
    CK(cudaMalloc(&pu, bu + 16));
    CK(cudaDeviceSynchronize());
    double h0 = pds_wtime();
    s = cusparseSpSV_analysis(g_sp, op, &one, mL, vx, vt, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, sL, pl);
    if (!s) s = cusparseSpSV_analysis(g_sp, op, &one, mU, vt, vy, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, sU, pu);
    CK(cudaDeviceSynchronize());
    r.t_analysis = pds_wtime() - h0;
  }
  auto solve = [&] {
    cusparseStatus_t q = cusparseSpSV_solve(g_sp, op, &one, mL, vx, vt, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, sL);
    if (!q) q = cusparseSpSV_solve(g_sp, op, &one, mU, vt, vy, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, sU);
    return q;
  };
  if (!s) s = solve();
  if (!s) {
    CK(cudaDeviceSynchronize());
    std::vector<double> y(N);
    CK(cudaMemcpy(y.data(), dy, N * 8, cudaMemcpyDeviceToHost));
    r.rel = compare(y, yref).rel;
    r.m   = time_dev([&] { CKS(solve()); });
  } else r.why = cusparseGetErrorString(s);
  cusparseDestroyDnVec(vx), cusparseDestroyDnVec(vt), cusparseDestroyDnVec(vy);
  cusparseSpSV_destroyDescr(sL), cusparseSpSV_destroyDescr(sU);
  if (pl) CK(cudaFree(pl));
  if (pu) CK(cudaFree(pu));
  return r;
}

// cuSPARSE on the problem: analysis, bsrilu02 (both policies), bsrsv2 pair (both policies), SpSV; validated
static void run_cusparse(const Problem &P, pds_mat Agpu, const double *Vh, const std::vector<double> &xh,
                         const std::vector<double> &yref, const char *refname, bool spsv) {
  const long long N = P.np * P.n;
  CsBsr           c = cs_build(P, Agpu, Vh);
  double         *dx = dev_copy(xh.data(), N), *dy;
  int             pos = -1;
  static const cusparseSolvePolicy_t pols[2] = {CUSPARSE_SOLVE_POLICY_USE_LEVEL, CUSPARSE_SOLVE_POLICY_NO_LEVEL};
  static const char *const           pname[2] = {"use_level", "no_level"};

  CK(cudaMalloc(&dy, N * 8));
  // analyses (once each; wall clock after a synchronize)
  CK(cudaDeviceSynchronize());
  double h0 = pds_wtime();
  CKS(cusparseDbsrilu02_analysis(g_sp, CUSPARSE_DIRECTION_ROW, c.mb, c.nnzb, c.dM, c.v, c.rp, c.ci, c.bs, c.iM,
                                 CUSPARSE_SOLVE_POLICY_USE_LEVEL, c.buf));
  cusparseStatus_t zp = cusparseXbsrilu02_zeroPivot(g_sp, c.iM, &pos);
  CK(cudaDeviceSynchronize());
  const double an_ilu = pds_wtime() - h0;
  if (zp == CUSPARSE_STATUS_ZERO_PIVOT) fail("cuSPARSE bsrilu02 analysis: structural zero pivot at block %d", pos);
  h0 = pds_wtime();
  CKS(cusparseDbsrsv2_analysis(g_sp, CUSPARSE_DIRECTION_ROW, CUSPARSE_OPERATION_NON_TRANSPOSE, c.mb, c.nnzb, c.dL, c.v,
                               c.rp, c.ci, c.bs, c.iL, CUSPARSE_SOLVE_POLICY_USE_LEVEL, c.buf));
  CKS(cusparseDbsrsv2_analysis(g_sp, CUSPARSE_DIRECTION_ROW, CUSPARSE_OPERATION_NON_TRANSPOSE, c.mb, c.nnzb, c.dU, c.v,
                               c.rp, c.ci, c.bs, c.iU, CUSPARSE_SOLVE_POLICY_USE_LEVEL, c.buf));
  CK(cudaDeviceSynchronize());
  const double an_sv = pds_wtime() - h0;
  report_tp("cusparse", "bsrilu02_analysis", "double", "analysis", Meas{an_ilu, 1}, "bsrilu02_analysis, one run");
  report_tp("cusparse", "bsrsv2_analysis", "double", "analysis", Meas{an_sv, 1}, "bsrsv2_analysis of L and U, one run");
  extra().an_ilu = an_ilu, extra().an_sv = an_sv;
  // the factorization: validate first (one run from the original values), then time each policy
  restore(c);
  CKS(cs_factor(c, pols[0]));
  zp = cusparseXbsrilu02_zeroPivot(g_sp, c.iM, &pos);
  if (zp == CUSPARSE_STATUS_ZERO_PIVOT) {
    LOG("  cuSPARSE bsrilu02: numerical zero pivot at block row %d (its LU of the diagonal blocks does not pivot); "
        "cuSPARSE left out of this case", pos);
    J("unavailable").str("backend", "cusparse").str("variant", "bsrilu02")
        .str("error", "numerical zero pivot at block row " + std::to_string(pos)).emit();
    cs_free(c);
    CK(cudaFree(dx));
    CK(cudaFree(dy));
    return;
  }
  CKS(cs_solve(c, dx, dy, pols[0]));
  CK(cudaDeviceSynchronize());
  {
    std::vector<double> y(N);
    CK(cudaMemcpy(y.data(), dy, N * 8, cudaMemcpyDeviceToHost));
    Cmp cm = compare(y, yref);
    validate("cusparse", "bsrilu02+bsrsv2", "double", cm, refname, 1e-8);
    extra().rel_cs = cm.rel;
  }
  Meas best_f, best_s;
  for (int p = 0; p < 2; p++) {
    bool ok = true;
    Meas mf = time_dev_pre(
        [&] {
          if (cs_factor(c, pols[p]) != CUSPARSE_STATUS_SUCCESS) ok = false;
        },
        [&] { restore(c); }, true, box());
    if (!ok) {
      J("unavailable").str("backend", "cusparse").str("variant", std::string("bsrilu02_") + pname[p]).emit();
      continue;
    }
    report_tp("cusparse", std::string("bsrilu02_") + pname[p], "double", "factor", mf);
    if (!(mf.t >= best_f.t)) best_f = mf;
  }
  // the factors of the last run (the original values, factored) for the solves
  restore(c);
  CKS(cs_factor(c, pols[0]));
  for (int p = 0; p < 2; p++) {
    if (cs_solve(c, dx, dy, pols[p]) != CUSPARSE_STATUS_SUCCESS) {
      J("unavailable").str("backend", "cusparse").str("variant", std::string("bsrsv2_") + pname[p]).emit();
      continue;
    }
    Meas ms = time_dev([&] { CKS(cs_solve(c, dx, dy, pols[p])); });
    report_tp("cusparse", std::string("bsrsv2_") + pname[p], "double", "apply", ms);
    if (!(ms.t >= best_s.t)) best_s = ms, extra().cs_policy = pname[p];
  }
  extra().cs_solver = "bsrsv2";
  // SpSV on the CSR expansion of the factors, and on the BSR where cuSPARSE takes it
  if (spsv) {
    const long long nv = (long long)c.nnzb * c.bs * c.bs;
    int            *crp, *cci;
    double         *cv;

    CK(cudaMalloc(&crp, (N + 1) * 4));
    CK(cudaMalloc(&cci, nv * 4));
    CK(cudaMalloc(&cv, nv * 8));
    bsr2csr_rows_k<<<(unsigned)((N + 256) / 256), 256>>>((int)N, c.bs, c.rp, crp);
    bsr2csr_vals_k<<<(unsigned)((nv + 255) / 256), 256>>>(nv, c.bs, c.rp, c.ci, c.brow, c.v, cci, cv);
    CK(cudaGetLastError());
    cusparseSpMatDescr_t mL, mU;
    CKS(cusparseCreateCsr(&mL, N, N, nv, crp, cci, cv, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                          CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
    CKS(cusparseCreateCsr(&mU, N, N, nv, crp, cci, cv, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                          CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
    SpsvRun r = spsv_run(mL, mU, N, dx, dy, c.t, yref);
    cusparseDestroySpMat(mL), cusparseDestroySpMat(mU);
    CK(cudaFree(crp));
    CK(cudaFree(cci));
    CK(cudaFree(cv));
    if (r.why.empty()) {
      validate("cusparse", "spsv_csr", "double", Cmp{r.rel, false, -1}, refname, 1e-8);
      report_tp("cusparse", "spsv_csr", "double", "apply", r.m);
      report_tp("cusparse", "spsv_csr_analysis", "double", "analysis", Meas{r.t_analysis, 1}, "L and U, one run");
      extra().rel_spsv = r.rel, extra().an_spsv = r.t_analysis;
      if (!(r.m.t >= best_s.t)) best_s = r.m, extra().cs_solver = "spsv_csr", extra().cs_policy = "";
    } else {
      J("unavailable").str("backend", "cusparse").str("variant", "spsv_csr").str("error", r.why).emit();
    }
    cusparseSpMatDescr_t bL, bU;
    CKS(cusparseCreateBsr(&bL, c.mb, c.mb, c.nnzb, c.bs, c.bs, c.rp, c.ci, c.v, CUSPARSE_INDEX_32I,
                          CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F, CUSPARSE_ORDER_ROW));
    CKS(cusparseCreateBsr(&bU, c.mb, c.mb, c.nnzb, c.bs, c.bs, c.rp, c.ci, c.v, CUSPARSE_INDEX_32I,
                          CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F, CUSPARSE_ORDER_ROW));
    double *t2;
    CK(cudaMalloc(&t2, N * 8));
    r = spsv_run(bL, bU, N, dx, dy, t2, yref);
    CK(cudaFree(t2));
    cusparseDestroySpMat(bL), cusparseDestroySpMat(bU);
    if (!r.why.empty())
      J("unavailable").str("backend", "cusparse").str("variant", "spsv_bsr").str("error", r.why).emit();
    else if (!(r.rel <= 1e-8)) // the unit-diagonal attribute may mean unit diagonal blocks for BSR: not the L we need
      J("unavailable").str("backend", "cusparse").str("variant", "spsv_bsr")
          .str("error", "result differs from the reference by " + std::to_string(r.rel)).emit();
    else {
      J("validate").str("backend", "cusparse").str("variant", "spsv_bsr").str("factors", "double")
          .str("reference", refname).num("rel_diff", r.rel).emit();
      report_tp("cusparse", "spsv_bsr", "double", "apply", r.m);
      if (!(r.m.t >= best_s.t)) best_s = r.m, extra().cs_solver = "spsv_bsr", extra().cs_policy = "";
    }
  }
  if (best_f.reps) keep("cusparse", "best", "double", "factor", best_f.t);
  if (best_s.reps) keep("cusparse", "best", "double", "apply", best_s.t);
  LOG("  cuSPARSE: analysis %.2f + %.2f ms, factor t_p %.2f ns, solve t_p %.2f ns (%s %s); rel diff %.1e",
      1e3 * an_ilu, 1e3 * an_sv, best_f.t / P.np * 1e9, best_s.t / P.np * 1e9, extra().cs_solver.c_str(),
      extra().cs_policy.c_str(), extra().rel_cs);
  cs_free(c);
  CK(cudaFree(dx));
  CK(cudaFree(dy));
}

// ---- iteration counts ---------------------------------------------------------------------------------------------
struct Its {
  int    its = -1, reason = 0;
  double rel = NAN, t = NAN;
};
// solver + bilu0 (variant auto, factors f32 or double) on /gpu/cuda to a 1e-8 reduction of ||b|| from x = 0
static Its solve_its(pds_mat A, pds_vec b, const char *method, bool f32) {
  Its               o;
  std::string       err;
  pds_precond       pc = make_pc(g_gpu, A, "auto", f32, &err);
  pds_solver        s;
  pds_vec           x, r;
  pds_solver_result res;
  double            rn, bn;

  if (!pc) return o;
  PK(g_gpu, pds_solver_create(g_gpu, method, &s));
  PK(g_gpu, pds_solver_set_operator(s, A));
  PK(g_gpu, pds_solver_set_precond(s, pc));
  PK(g_gpu, pds_solver_set_tolerances(s, 1e-8, 0.0, g_maxit));
  PK(g_gpu, pds_vec_duplicate(b, &x));
  PK(g_gpu, pds_vec_duplicate(b, &r));
  PK(g_gpu, pds_vec_set(x, 0.0));
  PK(g_gpu, pds_solver_setup(s));
  CK(cudaDeviceSynchronize());
  double h0 = pds_wtime();
  PK(g_gpu, pds_solver_solve(s, b, x));
  CK(cudaDeviceSynchronize());
  o.t = pds_wtime() - h0;
  PK(g_gpu, pds_solver_get_result(s, &res));
  PK(g_gpu, pds_mat_residual(A, b, x, r));
  PK(g_gpu, pds_vec_norm2(r, &rn));
  PK(g_gpu, pds_vec_norm2(b, &bn));
  o.its = res.iterations, o.reason = res.reason, o.rel = bn > 0 ? rn / bn : rn;
  PK(g_gpu, pds_vec_destroy(&x));
  PK(g_gpu, pds_vec_destroy(&r));
  PK(g_gpu, pds_solver_destroy(&s));
  PK(g_gpu, pds_precond_destroy(&pc));
  return o;
}
static void report_its(const char *study, double cfl, const char *method, bool f32, const Its &o) {
  J("iters").str("study", study).num("cfl", cfl).str("solver", method).str("pc", "bilu0")
      .str("factors", f32 ? "float" : "double").num("rtol", 1e-8).num("iterations", o.its)
      .str("reason", o.its >= 0 ? pds_reason_name(o.reason) : "unavailable").num("true_rel_residual", o.rel)
      .num("time_s", o.t).emit();
}

// ---- one problem: validation, every implementation, cuSPARSE, float factors, (multi-block) separate grids ----------
struct Case {
  bool ref, omp, cusparse, spsv, iters;
};
static void run_problem(Problem P, double cfl) {
  const double start = pds_wtime();
  double       t_ref = 0; // time spent on /cpu/ref (left out of the budget's rate: ref runs on small cases only)
  Case         c;
  const size_t nn = (size_t)P.n * P.n;

  // the budget: estimated cost = points x the seconds per point of the largest case so far
  const double est = 1.0 + g_rate * P.np;
  g_lean           = false;
  if (g_rate > 0 && left_s() < est + 3) {
    if (left_s() < 0.4 * est + 3) {
      LOG("skip %s n=%d: %.0f s left, estimated %.0f s", P.name.c_str(), P.n, left_s(), est);
      J("skip", false).str("problem", P.name).num("n", P.n).num("points", (double)P.np)
          .str("why", "budget").num("left_s", left_s()).num("estimated_s", est).emit();
      return;
    }
    g_lean = true;
  }
  c.ref      = !g_no_cpu && !g_lean && P.np <= (long long)g_ref_max * g_ref_max * g_ref_max;
  c.omp      = !g_no_cpu && g_omp && P.np <= (long long)g_omp_max * g_omp_max * g_omp_max;
  c.cusparse = !g_no_cusparse;
  c.spsv     = c.cusparse && !g_lean && P.np <= (long long)g_spsv_max * g_spsv_max * g_spsv_max;
  c.iters    = !g_no_iters && !g_lean && P.matrix == "channel" && P.g.size() == 1;
  g_cur      = P;
  g_probs.push_back(P);
  g_extra.push_back(ProbExtra());
  LOG("%s n=%d: %lld points, %s matrix%s", P.name.c_str(), P.n, P.np, P.matrix.c_str(), g_lean ? " (lean: budget)" : "");

  // the matrix on /cpu/ref, then its copies
  pds_mat             Aref, Aomp = NULL, Agpu;
  std::vector<double> bh, xh((size_t)P.np * P.n), yref;
  make_problem(P, cfl, &Aref, bh);
  host_random(xh, 7);
  if (c.omp) Aomp = copy_to(g_omp, P, Aref);
  Agpu = copy_to(g_gpu, P, Aref);
  LOG("  matrices made (%.1f s)", pds_wtime() - start);
  const char *refname = c.ref ? "/cpu/ref" : c.omp ? "/cpu/omp" : "/gpu/cuda auto";

  // CPU backends: validation (omp against ref, bitwise expected) and times
  for (int k = 0; k < 2; k++) {
    if (!(k == 0 ? c.ref : c.omp)) continue;
    const double h0  = pds_wtime();
    pds_ctx      ctx = k == 0 ? g_ref : g_omp;
    const char  *be  = k == 0 ? "/cpu/ref" : "/cpu/omp";
    pds_mat      A   = k == 0 ? Aref : Aomp;
    std::string  err;
    pds_vec      x = vec_from(ctx, xh), y;
    pds_precond  pc = make_pc(ctx, A, "auto", false, &err);

    if (!pc) fail("%s bilu0 setup on %s: %s", be, P.name.c_str(), err.c_str());
    PK(ctx, pds_vec_duplicate(x, &y));
    PK(ctx, pds_precond_apply(pc, x, y));
    std::vector<double> yh = get(ctx, y, (long long)xh.size());
    if (yref.empty()) yref = yh;
    else validate(be, "auto", "double", compare(yh, yref), refname, 1e-10);
    Meas mf = time_cpu([&] { PK(ctx, pds_precond_setup(pc)); });
    Meas ma = time_cpu([&] { PK(ctx, pds_precond_apply(pc, x, y)); });
    report_tp(be, "auto", "double", "factor", mf);
    report_tp(be, "auto", "double", "apply", ma);
    LOG("  %s: factor t_p %.1f ns, apply t_p %.1f ns (%d threads)", be, mf.t / P.np * 1e9, ma.t / P.np * 1e9,
        pds_ctx_get_num_threads(ctx));
    PK(ctx, pds_precond_destroy(&pc));
    PK(ctx, pds_vec_destroy(&x));
    PK(ctx, pds_vec_destroy(&y));
    if (k == 0) t_ref += pds_wtime() - h0;
  }

  // /gpu/cuda: every variant, double and float factors
  pds_vec                  xg = vec_from(g_gpu, xh), yg;
  std::vector<std::string> vars = {"auto"};
  for (const std::string &v : g_variants) vars.push_back(v);
  PK(g_gpu, pds_vec_duplicate(xg, &yg));
  std::vector<double> yauto;
  for (int f = 0; f < 2; f++)
    for (const std::string &v : vars) {
      const bool  f32 = f == 1;
      const char *fac = f32 ? "float" : "double";
      std::string err;
      CK(cudaDeviceSynchronize());
      const double h0 = pds_wtime();
      pds_precond  pc = make_pc(g_gpu, Agpu, v, f32, &err); // its setup ends with a device-to-host read
      const double t_setup1 = pds_wtime() - h0;

      if (!pc) {
        LOG("  /gpu/cuda %s (%s factors): unavailable: %s", v.c_str(), fac, err.c_str());
        J("unavailable").str("backend", "/gpu/cuda").str("variant", v).str("factors", fac).str("error", err).emit();
        if (v == "auto" && !f32) g_auto_missing = true;
        continue;
      }
      if (v == "auto" && !f32) extra().plan = plan_of(pc);
      const double h1 = pds_wtime();
      PK(g_gpu, pds_precond_apply(pc, xg, yg));
      CK(cudaDeviceSynchronize());
      const double        t_apply1 = pds_wtime() - h1;
      std::vector<double> yh       = get(g_gpu, yg, (long long)xh.size());
      if (yref.empty()) yref = yh; // no CPU backend: auto is the reference of the rest
      Cmp cm = compare(yh, yref);
      validate("/gpu/cuda", v, fac, cm, refname, f32 ? 5e-2 : 1e-10);
      if (f32) extra().rel_float = std::isnan(extra().rel_float) ? cm.rel : std::max(extra().rel_float, cm.rel);
      else {
        extra().rel_gpu = std::isnan(extra().rel_gpu) ? cm.rel : std::max(extra().rel_gpu, cm.rel);
        extra().bitwise = extra().bitwise && cm.bitwise;
        if (v == "auto") yauto = yh;
        if (!cm.bitwise) LOG("  WARNING: /gpu/cuda %s: not the bits of %s (%lld entries differ, %.2e relative)",
                             v.c_str(), refname, cm.ndiff, cm.rel);
      }
      Meas mf, ma;
      if (t_setup1 + t_apply1 > 2 * box() + 1) { // a slow variant here (the first calls were its samples)
        mf.t = t_setup1, mf.reps = ma.reps = 1, ma.t = t_apply1;
        LOG("  /gpu/cuda %s: slow on these grids; its first setup and apply are its samples", v.c_str());
      } else {
        mf = time_dev([&] { PK(g_gpu, pds_precond_setup(pc)); });
        ma = time_dev([&] { PK(g_gpu, pds_precond_apply(pc, xg, yg)); });
      }
      report_tp("/gpu/cuda", v, fac, "factor", mf);
      report_tp("/gpu/cuda", v, fac, "apply", ma);
      LOG("  /gpu/cuda %-10s %s: factor t_p %8.3f ns, apply t_p %8.3f ns (%.0f%% of copy bw)%s", v.c_str(), fac,
          mf.t / P.np * 1e9, ma.t / P.np * 1e9, 100 * apply_bytes(P.n, f32) * P.np / ma.t / g_copy_bw,
          v == "auto" && !f32 ? (" [" + extra().plan + "]").c_str() : "");
      PK(g_gpu, pds_precond_destroy(&pc));
    }

  // cuSPARSE on the same matrix
  if (c.cusparse && !yref.empty()) run_cusparse(P, Agpu, s7_values(Aref), xh, yref, refname, c.spsv);

  // float factors: Richardson + bilu0 (the paper's defect correction) to 1e-8 with double and float factors
  if (c.iters) {
    pds_vec bg = vec_from(g_gpu, bh);
    for (int f = 0; f < 2; f++) {
      Its o = solve_its(Agpu, bg, "richardson", f == 1);
      report_its("sweep", cfl, "richardson", f == 1, o);
      (f ? extra().its_f : extra().its_d) = o.its;
    }
    LOG("  richardson + bilu0 to 1e-8: %d iterations with double factors, %d with float", extra().its_d,
        extra().its_f);
    PK(g_gpu, pds_vec_destroy(&bg));
  }

  // multi-block: the same grids as separate matrices, set up and applied one after another
  if (P.g.size() > 1 && !yauto.empty()) {
    const int                nb = (int)P.g.size();
    std::vector<pds_mat>     As(nb);
    std::vector<pds_precond> Ps(nb);
    std::vector<pds_vec>     xs(nb), ys(nb);
    std::vector<double>      ysep;
    const double            *V   = s7_values(Aref);
    size_t                   off = 0;

    for (int q = 0; q < nb; q++) {
      const size_t pq = (size_t)P.g[q].I * P.g[q].J * P.g[q].K;
      std::string  err;

      PK(g_gpu, pds_mat_create_stencil7(g_gpu, P.g[q].I, P.g[q].J, P.g[q].K, P.n, V + off * 7 * nn, PDS_MEM_HOST,
                                        &As[q]));
      Ps[q] = make_pc(g_gpu, As[q], "auto", false, &err);
      if (!Ps[q]) fail("/gpu/cuda bilu0 on grid %d of %s alone: %s", q, P.name.c_str(), err.c_str());
      xs[q] = vec_from(g_gpu, std::vector<double>(xh.begin() + off * P.n, xh.begin() + (off + pq) * P.n));
      PK(g_gpu, pds_vec_duplicate(xs[q], &ys[q]));
      PK(g_gpu, pds_precond_apply(Ps[q], xs[q], ys[q]));
      std::vector<double> yq = get(g_gpu, ys[q], (long long)(pq * P.n));
      ysep.insert(ysep.end(), yq.begin(), yq.end());
      off += pq;
    }
    Cmp cm = compare(yauto, ysep);
    validate("/gpu/cuda", "auto multi-block vs separate", "double", cm, "the grids one by one", 1e-10);
    Meas sf = time_dev([&] {
      for (int q = 0; q < nb; q++) PK(g_gpu, pds_precond_setup(Ps[q]));
    });
    Meas sa = time_dev([&] {
      for (int q = 0; q < nb; q++) PK(g_gpu, pds_precond_apply(Ps[q], xs[q], ys[q]));
    });
    report_tp("/gpu/cuda", "auto separate", "double", "factor", sf, "the grids as separate matrices, one after another");
    report_tp("/gpu/cuda", "auto separate", "double", "apply", sa, "the grids as separate matrices, one after another");
    // the best variant on the one matrix
    std::string bv_f = "auto", bv_a = "auto";
    double      bf = find(P, "/gpu/cuda", "auto", "double", "factor"), ba = find(P, "/gpu/cuda", "auto",
                                                                                       "double", "apply");
    for (const std::string &v : g_variants) {
      double tf = find(P, "/gpu/cuda", v, "double", "factor"), ta = find(P, "/gpu/cuda", v, "double",
                                                                               "apply");
      if (tf < bf) bf = tf, bv_f = v;
      if (ta < ba) ba = ta, bv_a = v;
    }
    const double mf = find(P, "/gpu/cuda", "auto", "double", "factor");
    const double ma = find(P, "/gpu/cuda", "auto", "double", "apply");
    J("multiblock").num("factor_multi_s", mf).num("factor_separate_s", sf.t).num("factor_speedup", sf.t / mf)
        .num("apply_multi_s", ma).num("apply_separate_s", sa.t).num("apply_speedup", sa.t / ma)
        .str("best_factor_variant", bv_f).num("best_factor_speedup", sf.t / bf).str("best_apply_variant", bv_a)
        .num("best_apply_speedup", sa.t / ba).boolean("bitwise", cm.bitwise).emit();
    LOG("  multi-block: factor %.3f ms vs %.3f ms separate (x%.1f), apply %.3f ms vs %.3f ms (x%.1f)", 1e3 * mf,
        1e3 * sf.t, sf.t / mf, 1e3 * ma, 1e3 * sa.t, sa.t / ma);
    for (int q = 0; q < nb; q++) {
      PK(g_gpu, pds_precond_destroy(&Ps[q]));
      PK(g_gpu, pds_mat_destroy(&As[q]));
      PK(g_gpu, pds_vec_destroy(&xs[q]));
      PK(g_gpu, pds_vec_destroy(&ys[q]));
    }
  }

  // the case's summary line (bench/gpu-check.sh reads it)
  {
    J          j("case_summary");
    const char *ops[2] = {"factor", "apply"};
    for (const char *op : ops) {
      const double ta = find(P, "/gpu/cuda", "auto", "double", op), to = find(P, "/cpu/omp", "auto",
                                                                                   "double", op);
      const double tc = find(P, "cusparse", "best", "double", op), tr = find(P, "/cpu/ref", "auto",
                                                                                  "double", op);
      const double tfl = find(P, "/gpu/cuda", "auto", "float", op);
      std::string  o   = op;
      j.num((o + "_auto_tp_ns").c_str(), ta / P.np * 1e9).num((o + "_omp_tp_ns").c_str(), to / P.np * 1e9)
          .num((o + "_ref_tp_ns").c_str(), tr / P.np * 1e9).num((o + "_cusparse_tp_ns").c_str(), tc / P.np * 1e9)
          .num((o + "_float_tp_ns").c_str(), tfl / P.np * 1e9).num((o + "_vs_cusparse").c_str(), tc / ta)
          .num((o + "_vs_omp").c_str(), to / ta);
    }
    const double ta = find(P, "/gpu/cuda", "auto", "double", "apply");
    j.num("apply_frac_copy", apply_bytes(P.n, false) * P.np / ta / g_copy_bw)
        .num("apply_over_floor", ta / (apply_bytes(P.n, false) * P.np / g_copy_bw)).str("auto_plan", extra().plan)
        .num("rel_diff_gpu", extra().rel_gpu).boolean("bitwise", extra().bitwise).num("rel_diff_cusparse", extra().rel_cs)
        .num("rel_diff_float", extra().rel_float).num("richardson_its_double", extra().its_d)
        .num("richardson_its_float", extra().its_f).num("case_s", pds_wtime() - start).boolean("lean", g_lean);
    j.emit();
  }
  PK(g_gpu, pds_vec_destroy(&xg));
  PK(g_gpu, pds_vec_destroy(&yg));
  PK(g_gpu, pds_mat_destroy(&Agpu));
  if (Aomp) PK(g_omp, pds_mat_destroy(&Aomp));
  PK(g_ref, pds_mat_destroy(&Aref));
  const double spent = pds_wtime() - start - t_ref;
  if (!g_lean && P.np >= g_rate_np) g_rate = spent / P.np, g_rate_np = P.np;
  LOG("  %s done in %.1f s (%.1f s on /cpu/ref); %.0f s left", P.name.c_str(), pds_wtime() - start, t_ref, left_s());
  g_cur = Problem();
}

// ---- defect correction and GMRES iteration counts against the CFL number ----------------------------------------------
struct ItRow {
  double      cfl;
  std::string solver;
  bool        f32;
  Its         o;
};
static std::vector<ItRow> g_its;
static void cfl_study(int m) {
  for (double cfl : g_cfls) {
    if (left_s() < 8) {
      LOG("skip the CFL study at CFL %g: %.0f s left", cfl, left_s());
      J("skip", false).str("problem", "cfl_study").num("cfl", cfl).str("why", "budget").emit();
      continue;
    }
    pds_channel_opts o;
    pds_mat          Aref, A;
    pds_vec          bref, b;
    std::vector<double> bh((size_t)m * m * m * 6);
    pds_channel_opts_default(&o);
    o.n = 6, o.ni = o.nj = o.nk = m, o.cfl = cfl;
    PK(g_ref, pds_channel_generate(g_ref, &o, &Aref, &bref));
    PK(g_ref, pds_vec_get_values(bref, bh.data(), PDS_MEM_HOST));
    PK(g_gpu, pds_mat_create_stencil7(g_gpu, m, m, m, 6, s7_values(Aref), PDS_MEM_HOST, &A));
    b = vec_from(g_gpu, bh);
    for (const char *method : {"richardson", "gmres"})
      for (int f = 0; f < 2; f++) {
        Its r = solve_its(A, b, method, f == 1);
        g_its.push_back({cfl, method, f == 1, r});
        J("iters", false).str("study", "cfl").str("problem", std::to_string(m) + "^3").num("n", 6).num("cfl", cfl)
            .str("solver", method).str("pc", "bilu0").str("factors", f ? "float" : "double").num("rtol", 1e-8)
            .num("maxit", g_maxit).num("iterations", r.its)
            .str("reason", r.its >= 0 ? pds_reason_name(r.reason) : "unavailable").num("true_rel_residual", r.rel)
            .num("time_s", r.t).emit();
        LOG("  CFL %g %s + bilu0 (%s factors): %d iterations (%s), ||b - A x|| / ||b|| %.1e, %.3f s", cfl, method,
            f ? "float" : "double", r.its, r.its >= 0 ? pds_reason_name(r.reason) : "unavailable", r.rel, r.t);
      }
    PK(g_gpu, pds_vec_destroy(&b));
    PK(g_gpu, pds_mat_destroy(&A));
    PK(g_ref, pds_vec_destroy(&bref));
    PK(g_ref, pds_mat_destroy(&Aref));
  }
}

// ---- closing tables -------------------------------------------------------------------------------------------------
static std::string cell(double v, const char *f = "%.2f") {
  char b[32];

  if (!std::isfinite(v)) return "-";
  snprintf(b, sizeof b, f, v);
  return b;
}
static void print_tables(void) {
  FILE *o = g_tab;
  std::vector<std::string> vars = {"auto"};
  for (const std::string &v : g_variants) vars.push_back(v);

  fprintf(o, "\n### bench_bilu: block ILU(0) on %s (%s), copy bandwidth %.0f GB/s; /cpu/omp %d threads\n", g_gpu_name,
          g_machine, g_copy_bw * 1e-9, g_omp ? pds_ctx_get_num_threads(g_omp) : 0);
  // t_p
  fprintf(o, "\nt_p = T / points, ns (median). 'best GPU' is the fastest /gpu/cuda variant; cuSPARSE: bsrilu02 without"
             " its analysis; solve: the faster of bsrsv2 (either policy) and SpSV.\n\n");
  fprintf(o, "| n | grid | points | matrix | factor ref | factor omp | factor auto | factor best GPU | factor cuSPARSE |"
             " solve ref | solve omp | solve auto | solve best GPU | solve cuSPARSE | auto runs |\n");
  fprintf(o, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (size_t i = 0; i < g_probs.size(); i++) {
    const Problem &P = g_probs[i];
    std::string    row = "| " + std::to_string(P.n) + " | " + P.name + " | " + std::to_string(P.np) + " | " + P.matrix;
    for (const char *op : {"factor", "apply"}) {
      double      bt = NAN;
      std::string bn;
      for (const std::string &v : vars) {
        double t = find(P, "/gpu/cuda", v, "double", op);
        if (t < bt || (std::isnan(bt) && std::isfinite(t))) bt = t, bn = v;
      }
      const double s = 1e9 / P.np;
      row += " | " + cell(find(P, "/cpu/ref", "auto", "double", op) * s) + " | " +
             cell(find(P, "/cpu/omp", "auto", "double", op) * s) + " | " +
             cell(find(P, "/gpu/cuda", "auto", "double", op) * s, "%.3f") + " | " + cell(bt * s, "%.3f") +
             (bn.empty() ? "" : " (" + bn + ")") + " | " + cell(find(P, "cusparse", "best", "double", op) * s, "%.3f");
    }
    std::string pl = g_extra[i].plan; // "cuda bilu0: variant lanes (auto), ...": the variant
    size_t      at = pl.find("variant ");
    if (at != std::string::npos) pl = pl.substr(at + 8, pl.find(',', at) == std::string::npos ? std::string::npos
                                                                                          : pl.find(',', at) - at - 8);
    row += " | " + pl + " |";
    fprintf(o, "%s\n", row.c_str());
  }
  // the paper's Table 1
  for (const char *op : {"factor", "apply"}) {
    fprintf(o, "\nPaper 000's Table 1, %s: speedup of each /gpu/cuda variant over /cpu/omp (n = 6; > 1: GPU faster)\n\n",
            !strcmp(op, "factor") ? "factorization" : "triangular solve");
    std::string h = "| grid | 10^3 points |", s = "|---|---|";
    for (const std::string &v : vars) h += " " + v + " |", s += "---|";
    fprintf(o, "%s\n%s\n", h.c_str(), s.c_str());
    for (const Problem &P : g_probs) {
      if (P.n != 6 || P.g.size() != 1) continue;
      const double to  = find(P, "/cpu/omp", "auto", "double", op);
      std::string  row = "| " + P.name + " | " + cell(P.np * 1e-3, "%.1f") + " |";
      for (const std::string &v : vars) row += " " + cell(to / find(P, "/gpu/cuda", v, "double", op), "%.1f") + " |";
      fprintf(o, "%s\n", row.c_str());
    }
  }
  // ratios to cuSPARSE
  for (const char *op : {"factor", "apply"}) {
    fprintf(o, "\n%s: cuSPARSE time / pdesolve time (> 1: pdesolve faster; cuSPARSE %s)\n\n",
            !strcmp(op, "factor") ? "Factorization" : "Triangular solve",
            !strcmp(op, "factor") ? "bsrilu02 without its analysis" : "the faster of bsrsv2 L+U and SpSV");
    std::string h = "| n | grid | cuSPARSE t_p ns |", s = "|---|---|---|";
    for (const std::string &v : vars) h += " " + v + " |", s += "---|";
    h += !strcmp(op, "factor") ? " cuSPARSE analysis ms (ilu02 + sv2) |" : " cuSPARSE solver |";
    s += "---|";
    fprintf(o, "%s\n%s\n", h.c_str(), s.c_str());
    for (size_t i = 0; i < g_probs.size(); i++) {
      const Problem &P  = g_probs[i];
      const double   tc = find(P, "cusparse", "best", "double", op);
      std::string    row = "| " + std::to_string(P.n) + " | " + P.name + " | " + cell(tc / P.np * 1e9, "%.3f") + " |";
      for (const std::string &v : vars) row += " " + cell(tc / find(P, "/gpu/cuda", v, "double", op), "%.1f") + " |";
      if (!strcmp(op, "factor")) row += " " + cell(1e3 * g_extra[i].an_ilu) + " + " + cell(1e3 * g_extra[i].an_sv) + " |";
      else row += " " + g_extra[i].cs_solver + (g_extra[i].cs_policy.empty() ? "" : " " + g_extra[i].cs_policy) + " |";
      fprintf(o, "%s\n", row.c_str());
    }
  }
  // memory traffic of the solve
  fprintf(o, "\nSolve (default variant) against its memory traffic: model 8 (8 n^2 + 4 n) bytes per point (forward: "
             "3 lower blocks + D^-1 + x read, y written; backward: 3 upper blocks + D^-1 + y read, y written; float "
             "factors: the blocks in 4 bytes); floor = model bytes / copy bandwidth\n\n");
  fprintf(o, "| n | grid | bytes/pt | t_p ns | floor t_p ns | t / floor | GB/s | %% copy bw | float: t_p ns | float t / "
             "its floor |\n|---|---|---|---|---|---|---|---|---|---|\n");
  for (const Problem &P : g_probs) {
    const double ta = find(P, "/gpu/cuda", "auto", "double", "apply"), tf = find(P, "/gpu/cuda", "auto",
                                                                                      "float", "apply");
    const double bd = apply_bytes(P.n, false), bf = apply_bytes(P.n, true);
    fprintf(o, "| %d | %s | %.0f | %s | %s | %s | %s | %s | %s | %s |\n", P.n, P.name.c_str(), bd,
            cell(ta / P.np * 1e9, "%.3f").c_str(), cell(bd / g_copy_bw * 1e9, "%.3f").c_str(),
            cell(ta / (bd * P.np / g_copy_bw)).c_str(), cell(bd * P.np / ta * 1e-9, "%.0f").c_str(),
            cell(100 * bd * P.np / ta / g_copy_bw, "%.0f").c_str(), cell(tf / P.np * 1e9, "%.3f").c_str(),
            cell(tf / (bf * P.np / g_copy_bw)).c_str());
  }
  // float factors
  fprintf(o, "\nFloat factors (default variant): t_p ns double / float, and Richardson + bilu0 iterations to a 1e-8 "
             "reduction (channel matrices)\n\n| n | grid | factor double | factor float | apply double | apply float | "
             "apply float/double | max rel diff of y | Richardson its double | float |\n"
             "|---|---|---|---|---|---|---|---|---|---|\n");
  for (size_t i = 0; i < g_probs.size(); i++) {
    const Problem &P = g_probs[i];
    const double   s = 1e9 / P.np;
    const double   ad = find(P, "/gpu/cuda", "auto", "double", "apply"), af = find(P, "/gpu/cuda", "auto",
                                                                                       "float", "apply");
    fprintf(o, "| %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", P.n, P.name.c_str(),
            cell(find(P, "/gpu/cuda", "auto", "double", "factor") * s, "%.3f").c_str(),
            cell(find(P, "/gpu/cuda", "auto", "float", "factor") * s, "%.3f").c_str(), cell(ad * s, "%.3f").c_str(),
            cell(af * s, "%.3f").c_str(), cell(af / ad).c_str(), cell(g_extra[i].rel_float, "%.1e").c_str(),
            g_extra[i].its_d >= 0 ? std::to_string(g_extra[i].its_d).c_str() : "-",
            g_extra[i].its_f >= 0 ? std::to_string(g_extra[i].its_f).c_str() : "-");
  }
  // CFL study
  if (!g_its.empty()) {
    fprintf(o, "\nChannel %d^3, n = 6, /gpu/cuda, bilu0 (default variant): iterations to ||r|| <= 1e-8 ||b|| from x = 0 "
               "(maxit %d)\n\n| CFL | solver | factors | iterations | reason | true rel. residual | time s |\n"
               "|---|---|---|---|---|---|---|\n", g_cfl_grid, g_maxit);
    for (const ItRow &r : g_its)
      fprintf(o, "| %g | %s | %s | %d | %s | %s | %s |\n", r.cfl, r.solver.c_str(), r.f32 ? "float" : "double", r.o.its,
              r.o.its >= 0 ? pds_reason_name(r.o.reason) : "unavailable", cell(r.o.rel, "%.1e").c_str(),
              cell(r.o.t, "%.3f").c_str());
  }
  // multi-block
  bool any = false;
  for (const Problem &P : g_probs) any = any || P.g.size() > 1;
  if (any) {
    fprintf(o, "\nMulti-block (n = 6): one matrix of all grids against the grids as separate matrices applied one after "
               "another (default variant), ms\n\n| set | grids | points | factor one | factor separate | speedup | best "
               "variant: speedup | solve one | solve separate | speedup | best variant: speedup | omp factor / solve | "
               "cuSPARSE factor / solve |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (const Problem &P : g_probs) {
      if (P.g.size() < 2) continue;
      std::string bb[2];
      double      sp[2];
      const char *ops[2] = {"factor", "apply"};
      double      one[2], sep[2];
      for (int k = 0; k < 2; k++) {
        one[k] = find(P, "/gpu/cuda", "auto", "double", ops[k]);
        sep[k] = find(P, "/gpu/cuda", "auto separate", "double", ops[k]);
        double bt = one[k];
        bb[k]     = "auto";
        for (const std::string &v : g_variants) {
          double t = find(P, "/gpu/cuda", v, "double", ops[k]);
          if (t < bt) bt = t, bb[k] = v;
        }
        sp[k] = sep[k] / bt;
      }
      fprintf(o, "| %s | %zu | %lld | %s | %s | %s | %s: %s | %s | %s | %s | %s: %s | %s / %s | %s / %s |\n",
              P.name.c_str(), P.g.size(), P.np, cell(1e3 * one[0], "%.3f").c_str(), cell(1e3 * sep[0], "%.3f").c_str(),
              cell(sep[0] / one[0], "%.1f").c_str(), bb[0].c_str(), cell(sp[0], "%.1f").c_str(),
              cell(1e3 * one[1], "%.3f").c_str(), cell(1e3 * sep[1], "%.3f").c_str(), cell(sep[1] / one[1], "%.1f").c_str(),
              bb[1].c_str(), cell(sp[1], "%.1f").c_str(),
              cell(1e3 * find(P, "/cpu/omp", "auto", "double", "factor"), "%.3f").c_str(),
              cell(1e3 * find(P, "/cpu/omp", "auto", "double", "apply"), "%.3f").c_str(),
              cell(1e3 * find(P, "cusparse", "best", "double", "factor"), "%.3f").c_str(),
              cell(1e3 * find(P, "cusparse", "best", "double", "apply"), "%.3f").c_str());
    }
  }
  // validation
  fprintf(o, "\nValidation: y = M^-1 x (x random) against /cpu/ref (or /cpu/omp where ref did not run), max relative "
             "difference\n\n| n | grid | GPU variants (double) | all bitwise | float factors | cuSPARSE bsrilu02+bsrsv2 | "
             "cuSPARSE SpSV |\n|---|---|---|---|---|---|---|\n");
  for (size_t i = 0; i < g_probs.size(); i++)
    fprintf(o, "| %d | %s | %s | %s | %s | %s | %s |\n", g_probs[i].n, g_probs[i].name.c_str(),
            cell(g_extra[i].rel_gpu, "%.1e").c_str(), g_extra[i].bitwise ? "yes" : "NO",
            cell(g_extra[i].rel_float, "%.1e").c_str(), cell(g_extra[i].rel_cs, "%.1e").c_str(),
            cell(g_extra[i].rel_spsv, "%.1e").c_str());
  fflush(o);
}

// ---- main -------------------------------------------------------------------------------------------------------
static const char *g_usage =
    "usage: bench_bilu [-sizes 15,25,35,45,55,100,128] [-sizes4 25,55] [-sizes5 25,55]\n"
    "       [-variants hyperplane,graph,recycle,syncfree,lanes,block,tiles,pipe] [-matrix auto|channel|random] [-channel_max 55]\n"
    "       [-cfl 10] [-ref_max 55] [-omp_max 128] [-spsv_max 100] [-reps 100] [-warmup 2] [-box_s 0.25]\n"
    "       [-cpu_box_s 1.5] [-budget_s 150] [-maxit 1000] [-cfl_grid 25] [-cfls 1,10,100] [-no_cpu] [-no_cusparse]\n"
    "       [-no_multi] [-no_iters] [-quick] [-json FILE] [-help]\n"
    "  Block ILU(0) (bilu0) on stencil7 matrices: factorization and application t_p of every /gpu/cuda variant\n"
    "  ('auto' always, then -variants), /cpu/ref (grids up to -ref_max^3 points), /cpu/omp, cuSPARSE bsrilu02 +\n"
    "  bsrsv2 and SpSV (up to -spsv_max^3 points). -sizes: grid edges for n = 6 (-sizes4, -sizes5: n = 4, 5; an\n"
    "  empty list: none). -matrix auto: the channel generator up to -channel_max^3 points, a random diagonally\n"
    "  dominant matrix above. -box_s / -cpu_box_s: time box of one GPU / CPU measurement; -reps: the most\n"
    "  repetitions of one; -budget_s: the whole run (cases that do not fit run lean or are skipped). -maxit: of the\n"
    "  iteration counts (Richardson / GMRES + bilu0 to 1e-8; the CFL study on a -cfl_grid^3 channel at -cfls).\n"
    "  -quick: n = 6 on 15,25,55,100, n = 4, 5 on 25, 64 x 15^3 only, short boxes. JSON lines to -json FILE (else\n"
    "  stdout); progress on stderr; the tables on stdout with -json, else on stderr.\n";

static std::vector<std::string> split(const std::string &s) {
  std::vector<std::string> out;

  for (size_t p = 0; p < s.size();) {
    size_t q = s.find(',', p);
    if (q == std::string::npos) q = s.size();
    if (q > p) out.push_back(s.substr(p, q - p));
    p = q + 1;
  }
  return out;
}
static std::vector<int> int_list(const char *opt, const char *s) {
  std::vector<int> v;

  for (const std::string &t : split(s)) {
    long x = parse_long(opt, t.c_str());
    if (x < 1 || x > 2000) fprintf(stderr, "option %s: %ld out of range\n", opt, x), exit(2);
    v.push_back((int)x);
  }
  return v;
}
static Problem cubic(int m, int n, const std::string &matrix) {
  Problem P;

  P.name = std::to_string(m) + "^3", P.g = {{m, m, m}}, P.n = n, P.m = m, P.np = (long long)m * m * m;
  P.matrix = matrix == "auto" ? (m <= g_channel_max ? "channel" : "random") : matrix;
  return P;
}
static Problem multi(const std::string &name, const std::vector<int> &edges, int count) {
  Problem P;

  P.name = name, P.n = 6, P.matrix = "channel";
  for (int q = 0; q < count; q++) {
    const int m = edges[q % edges.size()];
    P.g.push_back({m, m, m});
    P.np += (long long)m * m * m;
  }
  return P;
}

// ---- the stencil7 product's device layout ----------------------------------------------------------------------------
// The library stores a point's 7 blocks together ([point][arm][n][n], n threads per point); the alternative is
// entry-major ([arm][n][n][point], the same entry of consecutive points side by side). Both kernels (cuda_stencil7.cu)
// on the same matrix and x: the results must be bitwise equal, then the medians, against the byte model
// 8 (7 n^2 + 2 n) per point (the blocks, x once, y written) and the copy bandwidth; the library's BSR product
// (pds_mat_convert_to_bsr) of the same matrix as the general-format reference.
static void layout_study(int s, int n) {
  pds_mat                    A, B;
  int                        nb = 0;
  const long long            np = (long long)s * s * s, len = np * n;
  pds_vec                    x, y, z;
  std::vector<double>        xh((size_t)len);
  double                    *em, *xd, *yd;

  PK(g_gpu, pds_stencil7_random(g_gpu, s, s, s, n, 2.0, 11, &A));
  const struct pds_stencil7 *g = pds_mat_stencil7_grids(A, &nb);
  host_random(xh, 5);
  x = vec_from(g_gpu, xh);
  PK(g_gpu, pds_vec_create(g_gpu, len, &y));
  PK(g_gpu, pds_vec_create(g_gpu, len, &z));
  PK(g_gpu, pds_vec_get_array_read(x, PDS_MEM_DEVICE, (const double **)&xd));
  PK(g_gpu, pds_vec_get_array_write(y, PDS_MEM_DEVICE, &yd));
  CK(cudaMalloc(&em, (size_t)np * 7 * n * n * sizeof(double)));
  CK(pds_cuda_s7_to_entry_major(0, np, n, g[0].vals, em));
  CK(pds_cuda_s7_spmv(0, PDS_CUDA_S7_POINT_MAJOR, g, nb, np, n, 1.0, g[0].vals, xd, 0.0, yd));
  CK(cudaDeviceSynchronize());
  std::vector<double> a((size_t)len), b((size_t)len);
  CK(cudaMemcpy(a.data(), yd, len * 8, cudaMemcpyDeviceToHost));
  CK(pds_cuda_s7_spmv(0, PDS_CUDA_S7_ENTRY_MAJOR, g, nb, np, n, 1.0, em, xd, 0.0, yd));
  CK(cudaMemcpy(b.data(), yd, len * 8, cudaMemcpyDeviceToHost));
  if (memcmp(a.data(), b.data(), len * 8)) fail("stencil7 layouts: point-major and entry-major products differ");
  Meas pm = time_dev([&] { CK(pds_cuda_s7_spmv(0, PDS_CUDA_S7_POINT_MAJOR, g, nb, np, n, 1.0, g[0].vals, xd, 0.0, yd)); });
  Meas en = time_dev([&] { CK(pds_cuda_s7_spmv(0, PDS_CUDA_S7_ENTRY_MAJOR, g, nb, np, n, 1.0, em, xd, 0.0, yd)); });
  PK(g_gpu, pds_vec_restore_array_write(y, &yd));
  PK(g_gpu, pds_vec_restore_array_read(x, (const double **)&xd));
  PK(g_gpu, pds_mat_convert_to_bsr(A, n, &B));
  PK(g_gpu, pds_mat_apply(B, x, z));
  Meas bs = time_dev([&] { PK(g_gpu, pds_mat_apply(B, x, z)); });
  const double bytes = 8.0 * (7.0 * n * n + 2.0 * n) * np;
  const char  *nm[3] = {"point-major", "entry-major", "bsr (library)"};
  Meas         mm[3] = {pm, en, bs};

  for (int k = 0; k < 3; k++) {
    J("layout", false).num("n", n).num("points", (double)np).str("layout", nm[k]).num("t_s", mm[k].t)
        .num("reps", mm[k].reps).num("gbs", bytes / mm[k].t * 1e-9).num("frac_copy", bytes / mm[k].t / g_copy_bw)
        .emit();
    fprintf(g_tab, "stencil7 product %3d^3 n=%d %-14s %8.1f us  %6.0f GB/s  %4.0f%% of copy\n", s, n, nm[k], mm[k].t * 1e6,
        bytes / mm[k].t * 1e-9, 100 * bytes / mm[k].t / g_copy_bw);
  }
  CK(cudaFree(em));
  PK(g_gpu, pds_vec_destroy(&x));
  PK(g_gpu, pds_vec_destroy(&y));
  PK(g_gpu, pds_vec_destroy(&z));
  PK(g_gpu, pds_mat_destroy(&A));
  PK(g_gpu, pds_mat_destroy(&B));
}

int main(int argc, char **argv) {
  g_t0 = pds_wtime();
  bool set_reps = false, set_box = false, set_cpu_box = false, set_sizes = false, set_s4 = false, set_s5 = false;
  for (int i = 1; i < argc; i++) {
    std::string o = argv[i];

    if (o == "-help" || o == "--help" || o == "-h") {
      fputs(g_usage, stdout);
      return 0;
    }
    if (o == "-quick") { g_quick = 1; continue; }
    if (o == "-no_cpu") { g_no_cpu = 1; continue; }
    if (o == "-no_cusparse") { g_no_cusparse = 1; continue; }
    if (o == "-no_multi") { g_no_multi = 1; continue; }
    if (o == "-no_iters") { g_no_iters = 1; continue; }
    if (i + 1 >= argc) fprintf(stderr, "option %s needs a value\n%s", argv[i], g_usage), exit(2);
    const char *v = argv[++i], *on = argv[i - 1];
    if (o == "-sizes") g_sizes6 = int_list(on, v), set_sizes = true;
    else if (o == "-sizes4") g_sizes4 = int_list(on, v), set_s4 = true;
    else if (o == "-sizes5") g_sizes5 = int_list(on, v), set_s5 = true;
    else if (o == "-variants") g_variants = split(v);
    else if (o == "-matrix") g_matrix = v;
    else if (o == "-channel_max") g_channel_max = (int)parse_long(on, v);
    else if (o == "-cfl") g_cfl = parse_double(on, v);
    else if (o == "-ref_max") g_ref_max = (int)parse_long(on, v);
    else if (o == "-omp_max") g_omp_max = (int)parse_long(on, v);
    else if (o == "-spsv_max") g_spsv_max = (int)parse_long(on, v);
    else if (o == "-reps") g_reps = (int)parse_long(on, v), set_reps = true;
    else if (o == "-warmup") g_warm = (int)parse_long(on, v);
    else if (o == "-box_s") g_box = parse_double(on, v), set_box = true;
    else if (o == "-cpu_box_s") g_cpu_box = parse_double(on, v), set_cpu_box = true;
    else if (o == "-budget_s") g_budget = parse_double(on, v);
    else if (o == "-maxit") g_maxit = (int)parse_long(on, v);
    else if (o == "-cfl_grid") g_cfl_grid = (int)parse_long(on, v);
    else if (o == "-cfls") {
      g_cfls.clear();
      for (const std::string &t : split(v)) g_cfls.push_back(parse_double(on, t.c_str()));
    } else if (o == "-json") g_json_path = v;
    else fprintf(stderr, "unknown option '%s'\n%s", o.c_str(), g_usage), exit(2);
  }
  if (g_quick) {
    if (!set_sizes) g_sizes6 = {15, 25, 55, 100};
    if (!set_s4) g_sizes4 = {25};
    if (!set_s5) g_sizes5 = {25};
    if (!set_reps) g_reps = 30;
    if (!set_box) g_box = 0.1;
    if (!set_cpu_box) g_cpu_box = 0.5;
  }
  if (g_reps < 1 || g_warm < 0 || !(g_box > 0) || !(g_cpu_box > 0) || !(g_budget > 0) || g_maxit < 1 ||
      g_cfl_grid < 2 || !(g_cfl > 0) || (g_matrix != "auto" && g_matrix != "channel" && g_matrix != "random"))
    fprintf(stderr, "bad option value\n%s", g_usage), exit(2);
  for (const std::string &v : g_variants)
    if (v == "auto") fprintf(stderr, "-variants: 'auto' is always measured; list the others\n"), exit(2);
  g_deadline = g_t0 + g_budget;
  g_json     = stdout;
  g_tab      = stderr;
  if (g_json_path) {
    g_json = fopen(g_json_path, "w");
    if (!g_json) fprintf(stderr, "cannot write %s\n", g_json_path), exit(2);
    g_tab = stdout;
  }
  int         ndev = 0;
  cudaError_t e    = cudaGetDeviceCount(&ndev);
  if (e != cudaSuccess || ndev == 0) { // make bench runs every benchmark: say so and succeed
    fprintf(stderr, "bench_bilu: no CUDA device here (%s); nothing measured\n",
            e != cudaSuccess ? cudaGetErrorString(e) : "none found");
    return 0;
  }
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  snprintf(g_gpu_name, sizeof g_gpu_name, "%s", prop.name);
  if (gethostname(g_machine, sizeof g_machine)) snprintf(g_machine, sizeof g_machine, "unknown");
  g_machine[sizeof g_machine - 1] = 0;
  LOG("bench_bilu on %s: %s, %d SMs, %.0f MB L2, %.1f GB; budget %.0f s%s", g_machine, prop.name,
      prop.multiProcessorCount, prop.l2CacheSize / 1e6, prop.totalGlobalMem / 1e9, g_budget, g_quick ? " (quick)" : "");
  CKS(cusparseCreate(&g_sp));
  PK(NULL, pds_ctx_create("/cpu/ref", &g_ref));
  for (int i = 0; i < pds_backend_count(); i++)
    if (!strcmp(pds_backend_name(i), "/cpu/omp") && pds_backend_compiled(i)) PK(NULL, pds_ctx_create("/cpu/omp", &g_omp));
  PK(NULL, pds_ctx_create("/gpu/cuda", &g_gpu));
  LOG("/cpu/omp: %s (%d threads)", g_omp ? "compiled" : "not compiled", g_omp ? pds_ctx_get_num_threads(g_omp) : 0);
  measure_copy(1LL << 26);
  layout_study(g_quick ? 55 : 100, 6);
  layout_study(55, 4);
  { // untimed warm-up: module loading, the memory pool, cuSPARSE's first calls (a 6^3 grid, everything once)
    Problem P = cubic(6, 6, "random");
    pds_mat A, Ag;
    std::vector<double> b, x((size_t)P.np * 6);
    g_cur = P;
    g_extra.push_back(ProbExtra());
    make_problem(P, g_cfl, &A, b);
    host_random(x, 3);
    Ag = copy_to(g_gpu, P, A);
    pds_vec     xg = vec_from(g_gpu, x), yg;
    std::string err;
    pds_precond pc = make_pc(g_gpu, Ag, "auto", false, &err);
    PK(g_gpu, pds_vec_duplicate(xg, &yg));
    if (pc) {
      PK(g_gpu, pds_precond_apply(pc, xg, yg));
      PK(g_gpu, pds_precond_destroy(&pc));
    } else LOG("warm-up: /gpu/cuda bilu0 unavailable: %s", err.c_str());
    if (!g_no_cusparse) {
      CsBsr c = cs_build(P, Ag, s7_values(A));
      CKS(cusparseDbsrilu02_analysis(g_sp, CUSPARSE_DIRECTION_ROW, c.mb, c.nnzb, c.dM, c.v, c.rp, c.ci, c.bs, c.iM,
                                     CUSPARSE_SOLVE_POLICY_USE_LEVEL, c.buf));
      CKS(cs_factor(c, CUSPARSE_SOLVE_POLICY_USE_LEVEL));
      CK(cudaDeviceSynchronize());
      cs_free(c);
    }
    PK(g_gpu, pds_vec_destroy(&xg));
    PK(g_gpu, pds_vec_destroy(&yg));
    PK(g_gpu, pds_mat_destroy(&Ag));
    PK(g_ref, pds_mat_destroy(&A));
    g_extra.clear();
    g_cur = Problem();
  }
  // the order: the paper's sizes first, then the multi-block sets and the CFL study, the large grids, n = 4 and 5
  for (int m : g_sizes6)
    if (m <= 55) run_problem(cubic(m, 6, g_matrix), g_cfl);
  if (!g_no_multi) {
    run_problem(multi("64x15^3", {15}, 64), g_cfl);
    if (!g_quick) run_problem(multi("16x(15,25,35)^3", {15, 25, 35}, 48), g_cfl);
  }
  if (!g_no_iters) {
    LOG("CFL study: channel %d^3, n = 6", g_cfl_grid);
    cfl_study(g_cfl_grid);
  }
  for (int m : g_sizes6)
    if (m > 55) run_problem(cubic(m, 6, g_matrix), g_cfl);
  for (int m : g_sizes4) run_problem(cubic(m, 4, g_matrix), g_cfl);
  for (int m : g_sizes5) run_problem(cubic(m, 5, g_matrix), g_cfl);
  print_tables();
  CKS(cusparseDestroy(g_sp));
  PK(NULL, pds_ctx_destroy(&g_gpu));
  if (g_omp) PK(NULL, pds_ctx_destroy(&g_omp));
  PK(NULL, pds_ctx_destroy(&g_ref));
  if (g_json != stdout) fclose(g_json);
  LOG("done in %.1f s", pds_wtime() - g_t0);
  if (g_auto_missing) {
    fprintf(stderr, "FAIL: the default bilu0 variant ('auto') was unavailable on /gpu/cuda (see the 'unavailable' "
                    "lines)\n");
    return 1;
  }
  return 0;
}
