// bench/gpu/bench_relax.cu: paper 002's block relaxation on sets of patches (issue 12), on /gpu/cuda against
// /cpu/omp, with the device's copy bandwidth and cuBLAS's DGEMM rate measured in the same run. Cases (JSON lines
// "case"):
//   copy     y = x over 2^26 doubles: the bandwidth every frac_copy divides by;
//   dgemm    cuBLAS DGEMM m x m times m x N (m = 512 and 64, N = the block count of 80 patches of 64^3): the FP64
//            matrix-product rate the "gemm" variant can reach at most;
//   check    validation first: a mixed set of patches, 2 sweeps of every method and variant on /gpu/cuda against
//            /cpu/ref (relative 1e-11; else FAIL, exit 1), jacobi and multicolor repeated bitwise;
//   conv     paper 002 Fig. 4: one 64^3 patch (every face Dirichlet), f = 0, a random start: ||r_3|| / ||r_0|| and
//            ||u_3|| / ||u_0|| (the error: the solution is 0) after 3 sweeps, and the asymptotic factor
//            (||r_S|| / ||r_(S-W)||)^(1/W) after S sweeps, for blocks of 8 .. 512 cells (2,2,2), (4,2,2), (4,4,2),
//            (4,4,4), (8,4,4), (8,8,4), (8,8,8) and jacobi, multicolor, chaotic;
//   rate     time per sweep (median of the repetitions after warm-up, events around each) and cells/s on the sets
//            of paper 002 Fig. 7 (64^3 and 96^3 patches, 64 and 96 of them, 4^3 and 8^3 blocks) and Table 2 (80
//            patches of 64^3, 80^3, mixed 64..96, 96^3; 8^3 blocks): every method and variant on /gpu/cuda, the point
//            Jacobi sweep (r = f - A u, u += r / c0: two passes, 48 bytes a cell) as the bandwidth reference, and
//            /cpu/omp's variants (patch, block, nested) on all cores;
//   gmg      time to reduce the residual by 1e-8 on pds_problem_patches 128^3 and 256^3 (32^3 patches): CG + gmg
//            against CG + jacobi, CG + relax (jacobi, 8^3) and, on the CSR copy of the same matrix, CG + jacobi and
//            CG + ilu0, same run.
// Byte and flop models per cell and sweep (m = cells per block): gemm: residual pass 24 B (u, f, R), the product
// 16 B (R, E) + the inverse once, the update 24 B (u, E, u): 64 B and 2 m flops; mapc: 24 B (u, f, u) + the
// inverse through L2 (8 m bytes per cell from L2), 2 m flops. frac_copy = model bytes / time / copy bandwidth.
//   stream   paper 002 Fig. 6: host-resident patch sets (16^3 and 64^3 patches) streamed through the GPU, depth-first
//            and breadth-first, against device-resident data and the host link's transfer floor (streams() says how);
// Usage: bench_relax [-json FILE] [-budget_s 240] [-quick] [-no_cpu] [-no_conv] [-no_rate] [-no_stream] [-no_gmg]
//                    [-sets STR] [-conv_sweeps 1000] [-reps 10]
#include <cublas_v2.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "gpu_bench_util.cuh"
#include "bench_log.cuh"
#define BENCH_NAME "relax"
#include "bench_json.cuh"

namespace {

const pds_real LAPLACE[7] = {6, -1, -1, -1, -1, -1, -1};

double      g_copy_bw = 0, g_deadline = 0;
int         g_reps = 10, g_quick = 0, g_no_cpu = 0, g_conv_sweeps = 1000, g_no_conv = 0, g_no_gmg = 0;
int         g_no_stream = 0, g_no_rate = 0;
std::string g_sets; // -sets: only the rate sets whose "name/patches/block^3" contains it
pds_ctx     g_gpu, g_omp, g_ref;

double left_s() { return g_deadline - pds_wtime(); }


// ---- patch sets ---------------------------------------------------------------------------------------------------
struct Set {
  std::string            name;
  std::vector<pds_patch> p;
  long long              cells = 0;
};
// np cubes of edge s on a lattice of pitch `pitch` (pitch = s: neighbours share faces), x fastest in a box as cubic
// as np allows
Set lattice(const char *name, int np, const std::vector<int> &sizes, int pitch) {
  Set S;
  int a = 1;

  while (a * a * a < np) a++;
  int b = a, c = a;
  while (a * b * (c - 1) >= np && c > 1) c--;
  while (a * (b - 1) * c >= np && b > 1) b--;
  S.name = name;
  for (int q = 0; q < np; q++) {
    pds_patch P;
    int       s = sizes[q * sizes.size() / np];

    P.lo[0] = (q % a) * pitch, P.lo[1] = (q / a % b) * pitch, P.lo[2] = (q / (a * b)) * pitch;
    P.n[0] = P.n[1] = P.n[2] = s;
    S.p.push_back(P);
    S.cells += (long long)s * s * s;
  }
  return S;
}

pds_mat make_mat(pds_ctx ctx, const Set &S) {
  pds_mat A = NULL;

  PK(ctx, pds_mat_create_patches(ctx, (int)S.p.size(), S.p.data(), LAPLACE, &A));
  return A;
}

pds_precond make_relax(pds_ctx ctx, pds_mat A, pds_relax_type t, int bx, int by, int bz, const char *variant) {
  pds_precond pc = NULL;

  PK(ctx, pds_precond_create(ctx, "relax", &pc));
  PK(ctx, pds_precond_set_operator(pc, A));
  PK(ctx, pds_precond_relax_set_type(pc, t));
  PK(ctx, pds_precond_relax_set_block(pc, bx, by, bz));
  PK(ctx, pds_precond_relax_set_variant(pc, variant));
  PK(ctx, pds_precond_setup(pc));
  return pc;
}

const char *tname(pds_relax_type t) {
  return t == PDS_RELAX_JACOBI ? "jacobi" : t == PDS_RELAX_MULTICOLOR ? "multicolor" : "chaotic";
}

// ---- copy bandwidth, DGEMM rate -----------------------------------------------------------------------------------

void measure_dgemm() {
  cublasHandle_t h;

  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) fail("cublasCreate");
  for (int m : {512, 64}) {
    const long long N = 80ll * 64 * 64 * 64 / m; // the block columns of 80 patches of 64^3
    double         *A, *B, *C;
    const double    one = 1, zero = 0;

    CK(cudaMalloc(&A, (size_t)m * m * 8));
    CK(cudaMalloc(&B, (size_t)m * N * 8));
    CK(cudaMalloc(&C, (size_t)m * N * 8));
    dev_fill(A, (long long)m * m, 3);
    dev_fill(B, m * N, 4);
    const double t = gpu_event_median(
        [&] {
          if (cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, (int)N, m, &one, A, m, B, m, &zero, C, m) !=
              CUBLAS_STATUS_SUCCESS)
            fail("cublasDgemm");
        },
        2, 7);
    const double fl = 2.0 * m * m * (double)N;
    J("dgemm").num("m", m).num("n", (double)N).num("time_s", t).num("tflops", fl / t * 1e-12).emit();
    tab("cuBLAS DGEMM %d x %d times %d x %lld: %.2f ms, %.1f TFLOP/s (%.1f Gcells/s of products alone)", m, m, m, N,
        t * 1e3, fl / t * 1e-12, m * (double)N / t * 1e-9);
    CK(cudaFree(A));
    CK(cudaFree(B));
    CK(cudaFree(C));
  }
  cublasDestroy(h);
}

// ---- validation: GPU against /cpu/ref --------------------------------------------------------------------------
double rel_diff(pds_vec a, pds_vec b) {
  pds_size              n;
  std::vector<pds_real> x, y;
  double                d = 0, s = 0;

  pds_vec_get_size(a, &n);
  x.resize(n), y.resize(n);
  pds_vec_get_values(a, x.data(), PDS_MEM_HOST);
  pds_vec_get_values(b, y.data(), PDS_MEM_HOST);
  for (pds_size i = 0; i < n; i++) d = std::max(d, std::fabs(x[i] - y[i])), s = std::max(s, std::fabs(y[i]));
  return d / (s > 0 ? s : 1);
}

void check() {
  Set S = lattice("mixed-check", 8, {12, 10, 9, 16, 12, 10, 9, 16}, 16);
  pds_mat Ag = make_mat(g_gpu, S), Ar = make_mat(g_ref, S);
  pds_vec fg, ug, fr, ur, u2;
  const struct {
    pds_relax_type t;
    const char    *var;
  } cases[] = {{PDS_RELAX_JACOBI, "gemm"}, {PDS_RELAX_JACOBI, "mapc"}, {PDS_RELAX_MULTICOLOR, "gemm"},
               {PDS_RELAX_MULTICOLOR, "mapc"}};

  PK(g_gpu, pds_vec_create(g_gpu, S.cells, &fg));
  PK(g_gpu, pds_vec_create(g_gpu, S.cells, &ug));
  PK(g_gpu, pds_vec_create(g_gpu, S.cells, &u2));
  PK(g_ref, pds_vec_create(g_ref, S.cells, &fr));
  PK(g_ref, pds_vec_create(g_ref, S.cells, &ur));
  for (auto c : cases)
    for (int b : {4, 8}) {
      pds_precond pg = make_relax(g_gpu, Ag, c.t, b, b, b, c.var), pr = make_relax(g_ref, Ar, c.t, b, b, b, "auto");

      PK(g_gpu, pds_vec_set_random(fg, 7));
      PK(g_ref, pds_vec_set_random(fr, 7));
      PK(g_gpu, pds_vec_set_random(ug, 8));
      PK(g_ref, pds_vec_set_random(ur, 8));
      PK(g_gpu, pds_vec_copy(ug, u2));
      PK(g_gpu, pds_precond_relax_smooth(pg, fg, ug, 2));
      PK(g_ref, pds_precond_relax_smooth(pr, fr, ur, 2));
      PK(g_gpu, pds_precond_relax_smooth(pg, fg, u2, 2));
      const double rel = rel_diff(ug, ur), rep = rel_diff(u2, ug);
      J("check").str("method", tname(c.t)).str("variant", c.var).num("block", b).num("rel_vs_ref", rel)
          .num("repeat_diff", rep).emit();
      if (!(rel <= 1e-11)) fail("%s %s %d^3: /gpu/cuda differs from /cpu/ref by %.3e", tname(c.t), c.var, b, rel);
      if (rep != 0) fail("%s %s %d^3: two runs differ (%.3e)", tname(c.t), c.var, b, rep);
      pds_precond_destroy(&pg);
      pds_precond_destroy(&pr);
    }
  LOG("check: every method and variant agrees with /cpu/ref, repeated runs bitwise");
  tab("validation: jacobi and multicolor, gemm and mapc, 4^3 and 8^3 blocks, on 8 mixed patches: /gpu/cuda within "
      "1e-11 of /cpu/ref, repeated runs bitwise");
  pds_vec_destroy(&fg), pds_vec_destroy(&ug), pds_vec_destroy(&u2), pds_vec_destroy(&fr), pds_vec_destroy(&ur);
  pds_mat_destroy(&Ag), pds_mat_destroy(&Ar);
}

// ---- paper 002 Fig. 4: convergence against block size ------------------------------------------------------------
void conv() {
  Set     S = lattice("64^3", 1, {g_quick ? 32 : 64}, 64);
  pds_mat A = make_mat(g_gpu, S);
  pds_vec f, u, r;
  const int blocks[7][3] = {{2, 2, 2}, {4, 2, 2}, {4, 4, 2}, {4, 4, 4}, {8, 4, 4}, {8, 8, 4}, {8, 8, 8}};
  const int W = g_conv_sweeps / 4;

  PK(g_gpu, pds_vec_create(g_gpu, S.cells, &f));
  PK(g_gpu, pds_vec_create(g_gpu, S.cells, &u));
  PK(g_gpu, pds_vec_create(g_gpu, S.cells, &r));
  PK(g_gpu, pds_vec_set(f, 0));
  tab("\nconvergence (paper 002 Fig. 4): one %s patch, f = 0, random start; 3 sweeps: ||r3||/||r0||, ||u3||/||u0||; "
      "factor (||r_S||/||r_S-W||)^(1/W), S = %d, W = %d", S.name.c_str(), g_conv_sweeps, W);
  tab("| block | cells | jacobi r3 | jacobi u3 | jacobi factor | multicolor r3 | multicolor u3 | multicolor factor | "
      "chaotic r3 | chaotic u3 | chaotic factor |");
  tab("|---|---|---|---|---|---|---|---|---|---|---|");
  for (auto &bk : blocks) {
    std::string row = "| " + std::to_string(bk[0]) + "x" + std::to_string(bk[1]) + "x" + std::to_string(bk[2]) + " | " +
                      std::to_string(bk[0] * bk[1] * bk[2]) + " |";
    for (pds_relax_type t : {PDS_RELAX_JACOBI, PDS_RELAX_MULTICOLOR, PDS_RELAX_CHAOTIC}) {
      pds_precond pc = make_relax(g_gpu, A, t, bk[0], bk[1], bk[2], "auto");
      double      r0, r3, u0, u3, rw = 0, rs;

      PK(g_gpu, pds_vec_set_random(u, 11));
      PK(g_gpu, pds_mat_residual(A, f, u, r));
      PK(g_gpu, pds_vec_norm2(r, &r0));
      PK(g_gpu, pds_vec_norm2(u, &u0));
      PK(g_gpu, pds_precond_relax_smooth(pc, f, u, 3));
      PK(g_gpu, pds_mat_residual(A, f, u, r));
      PK(g_gpu, pds_vec_norm2(r, &r3));
      PK(g_gpu, pds_vec_norm2(u, &u3));
      PK(g_gpu, pds_precond_relax_smooth(pc, f, u, g_conv_sweeps - W - 3));
      PK(g_gpu, pds_mat_residual(A, f, u, r));
      PK(g_gpu, pds_vec_norm2(r, &rw));
      PK(g_gpu, pds_precond_relax_smooth(pc, f, u, W));
      PK(g_gpu, pds_mat_residual(A, f, u, r));
      PK(g_gpu, pds_vec_norm2(r, &rs));
      const double fac = rw > 0 ? std::pow(rs / rw, 1.0 / W) : NAN;
      J("conv").str("method", tname(t)).num("bx", bk[0]).num("by", bk[1]).num("bz", bk[2])
          .num("cells", bk[0] * bk[1] * bk[2]).num("r3", r3 / r0).num("u3", u3 / u0).num("factor", fac)
          .num("sweeps", g_conv_sweeps).emit();
      char b[96];
      snprintf(b, sizeof b, " %.4f | %.4f | %.5f |", r3 / r0, u3 / u0, fac);
      row += b;
      pds_precond_destroy(&pc);
    }
    tab("%s", row.c_str());
  }
  pds_vec_destroy(&f), pds_vec_destroy(&u), pds_vec_destroy(&r);
  pds_mat_destroy(&A);
}

// ---- sweep rates ------------------------------------------------------------------------------------------------
double bytes_per_cell(const char *var) { return !strcmp(var, "gemm") ? 64.0 : 24.0; }

void rate_set(const Set &S, int b) {
  pds_mat A = make_mat(g_gpu, S);
  pds_vec f, u, r;
  const double m = (double)b * b * b;
  struct Var {
    pds_relax_type t;
    const char    *var;
    int            sym; // multicolor: forward then backward (two passes over the blocks: CG's preconditioner)
  };
  // one preconditioner, its method and variant changed in turn: the layout (and the inverses) are made again only
  // when the colours are needed (multicolor last)
  const Var vars[] = {{PDS_RELAX_JACOBI, "gemm", 0},     {PDS_RELAX_JACOBI, "mapc", 0},
                      {PDS_RELAX_CHAOTIC, "mapc", 0},    {PDS_RELAX_MULTICOLOR, "gemm", 0},
                      {PDS_RELAX_MULTICOLOR, "mapc", 0}, {PDS_RELAX_MULTICOLOR, "gemm", 1}};
  pds_precond pc = NULL;
  char setname[96];

  snprintf(setname, sizeof setname, "%s/%zu/%d^3", S.name.c_str(), S.p.size(), b);
  LOG("rate %s (%.1f M cells)", setname, S.cells * 1e-6);
  PK(g_gpu, pds_vec_create(g_gpu, S.cells, &f));
  PK(g_gpu, pds_vec_create(g_gpu, S.cells, &u));
  PK(g_gpu, pds_vec_create(g_gpu, S.cells, &r));
  PK(g_gpu, pds_vec_set_random(f, 5));
  PK(g_gpu, pds_vec_set_random(u, 6));
  // the point Jacobi sweep: r = f - A u; u += r / c0 (two passes, 48 bytes a cell): the bandwidth reference
  const double tp = gpu_event_median(
      [&] {
        PK(g_gpu, pds_mat_residual(A, f, u, r));
        PK(g_gpu, pds_vec_axpy(u, 1.0 / 6.0, r));
      },
      2, g_reps);
  J("rate").str("set", setname).str("backend", "/gpu/cuda").str("method", "point-jacobi").num("cells", (double)S.cells)
      .num("time_s", tp).num("gcells", S.cells / tp * 1e-9).num("frac_copy", 48.0 * S.cells / tp / g_copy_bw).emit();
  std::string row = std::string("| ") + setname + " | " + std::to_string(S.cells / 1000000) + "M |";
  char        cb[128];
  snprintf(cb, sizeof cb, " %.2f (%.0f%%) |", S.cells / tp * 1e-9, 100 * 48.0 * S.cells / tp / g_copy_bw);
  row += cb;
  for (const Var &v : vars) {
    if (left_s() < 20) {
      row += " - |";
      continue;
    }
    double t0 = pds_wtime();
    if (!pc) pc = make_relax(g_gpu, A, v.t, b, b, b, v.var);
    PK(g_gpu, pds_precond_relax_set_type(pc, v.t));
    PK(g_gpu, pds_precond_relax_set_variant(pc, v.var));
    PK(g_gpu, pds_precond_relax_set_symmetric(pc, v.sym));
    PK(g_gpu, pds_precond_setup(pc));
    const double ts = pds_wtime() - t0;
    const double t  = gpu_event_median([&] { PK(g_gpu, pds_precond_relax_smooth(pc, f, u, 1)); }, 2, g_reps);
    const double gc = S.cells / t * 1e-9;
    J("rate").str("set", setname).str("backend", "/gpu/cuda")
        .str("method", std::string(tname(v.t)) + (v.sym ? "-symmetric" : "")).str("variant", v.var).num("block", b).num("cells", (double)S.cells).num("time_s", t).num("setup_s", ts).num("gcells", gc)
        .num("tflops", 2 * m * S.cells / t * 1e-12)
        .num("frac_copy", bytes_per_cell(v.var) * S.cells / t / g_copy_bw).emit();
    snprintf(cb, sizeof cb, " %.2f |", gc);
    row += cb;
  }
  pds_precond_destroy(&pc);
  // /cpu/omp on all cores: the same set and sweeps
  if (!g_no_cpu && S.cells <= 32000000 && left_s() > 60) { // the larger sets: the GPU alone (the budget)
    pds_mat Ao = make_mat(g_omp, S);
    pds_vec fo, uo;

    PK(g_omp, pds_vec_create(g_omp, S.cells, &fo));
    PK(g_omp, pds_vec_create(g_omp, S.cells, &uo));
    PK(g_omp, pds_vec_set_random(fo, 5));
    PK(g_omp, pds_vec_set_random(uo, 6));
    for (pds_relax_type t : {PDS_RELAX_JACOBI, PDS_RELAX_CHAOTIC})
      for (const char *var : {"patch", "block", "nested"}) {
        pc = make_relax(g_omp, Ao, t, b, b, b, var);
        const double tc = host_median([&] { PK(g_omp, pds_precond_relax_smooth(pc, fo, uo, 1)); }, 1, 3, false);
        J("rate").str("set", setname).str("backend", "/cpu/omp").str("method", tname(t)).str("variant", var)
            .num("block", b).num("cells", (double)S.cells).num("time_s", tc).num("gcells", S.cells / tc * 1e-9)
            .num("threads", pds_ctx_get_num_threads(g_omp)).emit();
        snprintf(cb, sizeof cb, " %.3f |", S.cells / tc * 1e-9);
        row += cb;
        pds_precond_destroy(&pc);
      }
    pds_vec_destroy(&fo), pds_vec_destroy(&uo);
    pds_mat_destroy(&Ao);
  } else
    row += " - | - | - | - | - | - |";
  tab("%s", row.c_str());
  pds_vec_destroy(&f), pds_vec_destroy(&u), pds_vec_destroy(&r);
  pds_mat_destroy(&A);
}

void rates() {
  const int q = g_quick;
  tab("\nsweep rate, Gcells/s per sweep (one sweep; /gpu/cuda median of %d after warm-up; /cpu/omp median of 3 on %d "
      "threads); point jacobi: r = f - A u, u += r/6 (48 B/cell, %% of copy bandwidth); multicolor: one forward pass "
      "over the colours, symmetric: forward and back (two passes)", g_reps,
      pds_ctx_get_num_threads(g_omp));
  tab("| set/patches/block | cells | point jacobi | jacobi gemm | jacobi mapc | chaotic mapc | multicolor gemm | "
      "multicolor mapc | multicolor symmetric gemm | omp jacobi patch | omp jacobi block | omp jacobi nested | omp chaotic patch | omp chaotic block "
      "| omp chaotic nested |");
  tab("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
  struct R {
    const char      *name;
    int              np;
    std::vector<int> sizes;
    int              pitch, block;
  };
  std::vector<R> sets = {{"64^3", 64, {64}, 64, 4},  {"64^3", 96, {64}, 64, 4},  {"64^3", 64, {64}, 64, 8},
                         {"64^3", 96, {64}, 64, 8},  {"96^3", 64, {96}, 96, 8},  {"64^3", 80, {64}, 64, 8},
                         {"80^3", 80, {80}, 80, 8},  {"mixed", 80, {64, 72, 80, 88, 96}, 96, 8},
                         {"96^3", 80, {96}, 96, 8}};
  if (q) sets = {{"32^3", 8, {32}, 32, 4}, {"32^3", 8, {32}, 32, 8}, {"mixed", 10, {16, 24, 32}, 32, 8}};
  for (const R &r : sets) {
    char key[96];

    snprintf(key, sizeof key, "%s/%d/%d^3", r.name, r.np, r.block);
    if (!g_sets.empty() && !strstr(key, g_sets.c_str())) continue;
    if (left_s() < 30) {
      tab("| %s/%d/%d^3 | (budget spent) |", r.name, r.np, r.block);
      continue;
    }
    rate_set(lattice(r.name, r.np, r.sizes, r.pitch), r.block);
  }
}

// ---- paper 002 Fig. 6: host-resident patch sets streamed through the GPU ---------------------------------------
// Chaotic block Gauss-Seidel, 8^3 blocks, 3 sweeps (the paper's case) on np patches of 16^3 or 64^3 whose f and u live
// in page-locked host memory: pds_precond_relax_smooth_host depth-first on 4 and on 16 slots, breadth-first with
// every patch on the device at once (at most 256 slots), against the same 3 sweeps on device-resident data; the
// host link's copy rates (pinned, 256 MiB: each direction alone, and both at once on two streams) measured in the
// same run, and the transfer floor: per sweep, 16 B/cell + 8 B per ghost entry in, 8 B/cell out, at most each
// direction's rate and together at most the two-way rate.
void streams() {
  double h2d = 0, d2h = 0, duplex = 0;
  {
    const size_t bytes = (size_t)(g_quick ? 64 : 256) << 20;
    void        *h, *d;

    CK(cudaMallocHost(&h, bytes));
    CK(cudaMalloc(&d, bytes));
    memset(h, 1, bytes);
    h2d = bytes / gpu_event_median([&] { CK(cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, 0)); }, 1, 5);
    d2h = bytes / gpu_event_median([&] { CK(cudaMemcpyAsync(h, d, bytes, cudaMemcpyDeviceToHost, 0)); }, 1, 5);
    { // both directions at once, on two streams: what a depth-first pipeline can move at most
      void        *h2, *d2;
      cudaStream_t s1, s2;
      cudaEvent_t  e0, e1, e2;

      CK(cudaMallocHost(&h2, bytes));
      CK(cudaMalloc(&d2, bytes));
      CK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
      CK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
      CK(cudaEventCreate(&e0));
      CK(cudaEventCreate(&e1));
      CK(cudaEventCreate(&e2));
      std::vector<double> ts;
      for (int rep = 0; rep < 6; rep++) {
        CK(cudaEventRecord(e0, s1));
        CK(cudaStreamWaitEvent(s2, e0, 0));
        CK(cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, s1));
        CK(cudaMemcpyAsync(h2, d2, bytes, cudaMemcpyDeviceToHost, s2));
        CK(cudaEventRecord(e1, s1));
        CK(cudaEventRecord(e2, s2));
        CK(cudaEventSynchronize(e1));
        CK(cudaEventSynchronize(e2));
        float a = 0, b = 0;
        CK(cudaEventElapsedTime(&a, e0, e1));
        CK(cudaEventElapsedTime(&b, e0, e2));
        if (rep) ts.push_back(std::max(a, b) * 1e-3); // the first: warm-up
      }
      std::sort(ts.begin(), ts.end());
      duplex = 2.0 * bytes / ts[ts.size() / 2];
      CK(cudaEventDestroy(e0));
      CK(cudaEventDestroy(e1));
      CK(cudaEventDestroy(e2));
      CK(cudaStreamDestroy(s1));
      CK(cudaStreamDestroy(s2));
      CK(cudaFreeHost(h2));
      CK(cudaFree(d2));
    }
    CK(cudaFreeHost(h));
    CK(cudaFree(d));
    J("link").num("h2d_gbs", h2d * 1e-9).num("d2h_gbs", d2h * 1e-9).num("duplex_gbs", duplex * 1e-9).emit();
  }
  tab("\nhost-resident patches streamed (paper 002 Fig. 6): chaotic block GS, 8^3 blocks, 3 sweeps, f and u page-locked; "
      "host link (pinned, cudaMemcpy): H2D %.1f GB/s, D2H %.1f GB/s, both at once %.1f GB/s in all; floor: 16 B/cell "
      "+ 8 B/ghost in, 8 B/cell out per sweep, at these rates", h2d * 1e-9, d2h * 1e-9, duplex * 1e-9);
  tab("| patches | cells | device-resident ms | depth-first 4 slots ms | depth-first 16 slots ms | breadth-first ms "
      "(slots) | transfer floor ms | best / floor |");
  tab("|---|---|---|---|---|---|---|---|");
  bool validated = false;
  for (int edge : {16, 64})
    for (int np : g_quick ? std::vector<int>{8, 27} : std::vector<int>{16, 32, 64, 96}) {
      if (left_s() < 20) {
        tab("| %d x %d^3 | (budget spent) |", np, edge);
        continue;
      }
      Set       S = lattice("stream", np, {edge}, edge);
      pds_mat   A = make_mat(g_gpu, S);
      const int sweeps = 3, bslots = np < 256 ? np : 256;
      std::vector<pds_real> f(S.cells), u0(S.cells), u(S.cells);
      pds_vec fv, uv;

      for (long long i = 0; i < S.cells; i++) f[i] = std::sin(0.001 * i), u0[i] = std::cos(0.002 * i);
      PK(g_gpu, pds_host_register(g_gpu, f.data(), S.cells * sizeof(pds_real)));
      PK(g_gpu, pds_host_register(g_gpu, u.data(), S.cells * sizeof(pds_real)));
      PK(g_gpu, pds_vec_create(g_gpu, S.cells, &fv));
      PK(g_gpu, pds_vec_create(g_gpu, S.cells, &uv));
      PK(g_gpu, pds_vec_set_values(fv, f.data(), PDS_MEM_HOST));
      if (!validated) { // jacobi streamed = jacobi device-resident (mapc), bitwise
        pds_precond pj = make_relax(g_gpu, A, PDS_RELAX_JACOBI, 8, 8, 8, "mapc");
        std::vector<pds_real> want(S.cells);

        PK(g_gpu, pds_vec_set_values(uv, u0.data(), PDS_MEM_HOST));
        PK(g_gpu, pds_precond_relax_smooth(pj, fv, uv, 2));
        PK(g_gpu, pds_vec_get_values(uv, want.data(), PDS_MEM_HOST));
        for (int order = 0; order < 2; order++) {
          PK(g_gpu, pds_precond_relax_set_stream(pj, (pds_relax_stream)order, order ? bslots : 4));
          memcpy(u.data(), u0.data(), S.cells * sizeof(pds_real));
          PK(g_gpu, pds_precond_relax_smooth_host(pj, f.data(), u.data(), 2));
          if (memcmp(u.data(), want.data(), S.cells * sizeof(pds_real)))
            fail("streamed jacobi (%s) differs from the device-resident sweep", order ? "breadth" : "depth");
        }
        pds_precond_destroy(&pj);
        validated = true;
        tab("validation: streamed jacobi (depth-first and breadth-first) = device-resident jacobi mapc, bitwise");
      }
      pds_precond pc = make_relax(g_gpu, A, PDS_RELAX_CHAOTIC, 8, 8, 8, "mapc");
      PK(g_gpu, pds_vec_set_values(uv, u0.data(), PDS_MEM_HOST));
      const double tdev = gpu_event_median([&] { PK(g_gpu, pds_precond_relax_smooth(pc, fv, uv, sweeps)); }, 1, 5);
      double t[3];
      const int orders[3][2] = {{PDS_RELAX_STREAM_DEPTH, 4}, {PDS_RELAX_STREAM_DEPTH, 16},
                                {PDS_RELAX_STREAM_BREADTH, bslots}};
      for (int k = 0; k < 3; k++) {
        PK(g_gpu, pds_precond_relax_set_stream(pc, (pds_relax_stream)orders[k][0], orders[k][1]));
        memcpy(u.data(), u0.data(), S.cells * sizeof(pds_real));
        t[k] = host_median([&] { PK(g_gpu, pds_precond_relax_smooth_host(pc, f.data(), u.data(), sweeps)); }, 1, 5,
                           false);
      }
      const double ghosts = 6.0 * edge * edge * np;
      const double in = 16.0 * S.cells + 8 * ghosts, out = 8.0 * S.cells;
      const double floor = sweeps * std::max(std::max(in / h2d, out / d2h), (in + out) / duplex);
      const double best  = std::min(t[0], std::min(t[1], t[2]));
      J("stream").num("edge", edge).num("patches", np).num("cells", (double)S.cells).num("sweeps", sweeps)
          .num("device_s", tdev).num("depth4_s", t[0]).num("depth16_s", t[1]).num("breadth_s", t[2])
          .num("breadth_slots", bslots).num("floor_s", floor).emit();
      tab("| %d x %d^3 | %.2fM | %.3f | %.3f | %.3f | %.3f (%d) | %.3f | %.2f |", np, edge, S.cells * 1e-6, tdev * 1e3,
          t[0] * 1e3, t[1] * 1e3, t[2] * 1e3, bslots, floor * 1e3, best / floor);
      pds_precond_destroy(&pc);
      PK(g_gpu, pds_host_unregister(g_gpu, f.data()));
      PK(g_gpu, pds_host_unregister(g_gpu, u.data()));
      pds_vec_destroy(&fv), pds_vec_destroy(&uv);
      pds_mat_destroy(&A);
    }
}

// ---- GMG against the library's other preconditioners ------------------------------------------------------------
void gmg_case(int n) {
  pds_problem P;
  pds_int     nn[3] = {n, n, n}, ps = 32;

  memset(&P, 0, sizeof P);
  PK(g_gpu, pds_problem_patches(g_gpu, nn, 1, &ps, &P));
  pds_mat Acsr = NULL;
  PK(g_gpu, pds_mat_convert_to_csr(P.A, &Acsr));
  struct C {
    const char *pc;
    bool        csr;
  };
  const C cases[] = {{"gmg", false}, {"jacobi", false}, {"relax", false}, {"jacobi", true}, {"ilu0", true}};
  for (const C &c : cases) {
    if (left_s() < 15) break;
    pds_solver  s;
    pds_precond pc;
    pds_vec     x;
    pds_mat     A = c.csr ? Acsr : P.A;

    PK(g_gpu, pds_solver_create(g_gpu, "cg", &s));
    PK(g_gpu, pds_precond_create(g_gpu, c.pc, &pc));
    if (!strcmp(c.pc, "relax")) PK(g_gpu, pds_precond_relax_set_block(pc, 8, 8, 8));
    PK(g_gpu, pds_solver_set_operator(s, A));
    PK(g_gpu, pds_solver_set_precond(s, pc));
    PK(g_gpu, pds_solver_set_tolerances(s, 1e-8, 0, 20000));
    PK(g_gpu, pds_vec_create(g_gpu, (pds_size)n * n * n, &x));
    double t0 = pds_wtime();
    PK(g_gpu, pds_solver_setup(s));
    CK(cudaDeviceSynchronize());
    const double tsetup = pds_wtime() - t0;
    double       tsolve = 1e30;
    pds_solver_result res;
    for (int rep = 0; rep < 2; rep++) { // the second solve: the recorded device loop replays
      PK(g_gpu, pds_vec_set(x, 0));
      t0 = pds_wtime();
      PK(g_gpu, pds_solver_solve(s, P.b, x));
      CK(cudaDeviceSynchronize());
      tsolve = std::min(tsolve, pds_wtime() - t0);
    }
    PK(g_gpu, pds_solver_get_result(s, &res));
    J("gmg").num("n", n).str("pc", c.pc).str("matrix", c.csr ? "csr" : "patches").num("iterations", res.iterations)
        .num("reason", res.reason).num("setup_s", tsetup).num("solve_s", tsolve).num("rel", res.rnorm / res.rnorm0)
        .emit();
    tab("| %d^3 | cg + %s (%s) | %d | %.3f | %.4f | %.4f |", n, c.pc, c.csr ? "csr" : "patches", res.iterations, tsetup,
        tsolve, tsetup + tsolve);
    pds_vec_destroy(&x);
    pds_precond_destroy(&pc);
    pds_solver_destroy(&s);
  }
  pds_mat_destroy(&Acsr);
  pds_problem_destroy(&P);
}

} // namespace

int main(int argc, char **argv) {
  const BenchFlags f = bench_args(argc, argv,
                                  "bench_relax [-json FILE] [-budget_s S] [-quick] [-no_cpu] [-no_conv] [-no_rate] "
                                  "[-no_stream] [-no_gmg] [-sets STR] [-conv_sweeps N] [-reps N]",
                                  [](const std::string &o, const char *next) {
                                    if (o == "-no_conv") return g_no_conv = 1, 1;
                                    if (o == "-no_gmg") return g_no_gmg = 1, 1;
                                    if (o == "-no_stream") return g_no_stream = 1, 1;
                                    if (o == "-no_rate") return g_no_rate = 1, 1;
                                    if (next && o == "-sets") return g_sets = next, 2;
                                    if (next && o == "-conv_sweeps")
                                      return g_conv_sweeps = (int)parse_long("-conv_sweeps", next), 2;
                                    return 0;
                                  });

  g_quick = f.quick, g_no_cpu = f.no_cpu, g_reps = f.reps, g_deadline = f.deadline;
  if (g_conv_sweeps < 16) g_conv_sweeps = 16;
  bench_start(&g_gpu, &g_omp, &g_ref);
  g_copy_bw = measure_copy(g_quick);
  measure_dgemm();
  check();
  if (!g_no_conv) conv();
  if (!g_no_rate) rates();
  if (!g_no_stream) streams();
  tab("\nGMG (cell-centred Poisson, 32^3 patches, rtol 1e-8, /gpu/cuda): time to reduce the residual by 1e-8");
  tab("| grid | method | iterations | setup s | solve s | total s |");
  tab("|---|---|---|---|---|---|");
  if (!g_no_gmg)
    for (int n : g_quick ? std::vector<int>{64} : std::vector<int>{128, 256}) gmg_case(n);
  printf("%s\n", g_table.c_str());
  pds_ctx_destroy(&g_gpu);
  pds_ctx_destroy(&g_omp);
  pds_ctx_destroy(&g_ref);
  if (g_json != stdout) fclose(g_json);
  return 0;
}
