// bench/gpu/bench_fv_implicit.cu: issue 14's implicit step for paper 001's flow (the sphere in a box at Mach 0.1, the
// built-in hybrid mesh of about 680K cells) on /gpu/cuda, /cpu/omp beside, with the device's copy bandwidth measured in
// the same run. Cases (JSON lines "case"):
//   copy      y = x over 2^26 doubles: the bandwidth every fraction divides by;
//   check     validation first: the Jacobian of a non-uniform state on a 20K-cell sphere on the GPU against /cpu/ref's
//             (the same bits, else FAIL, exit 1), repeated runs bitwise;
//   jacobian  pds_fv_jacobian on the big mesh (the faces' derivatives, the block rows, the new matrix), median of reps;
//             the byte model's GB/s and its fraction of the copy bandwidth; /cpu/omp's time;
//   parts     the parts of a linear solve on the Jacobian: the BSR product, pbjacobi's and ilu0's setup (ilu0's first
//             setup with its analysis of the pattern, then a new matrix of the same pattern: the factorization
//             alone) and their applications;
//   steady    from the free stream to ||R|| <= tol ||R_0|| (tol 1e-8): implicit steps (pds_fv_step_implicit; gmres
//             with ilu0, and with pbjacobi; CFL 50 growing as cfl ||R_0|| / ||R||, GMRES(30) to 0.1) against
//             explicit steps at CFL 0.9 (run to the same tolerance or until its time cap): steps, Krylov iterations,
//             seconds, seconds a step, and the step at which each method first reached each decade of reduction;
//             /cpu/omp's implicit step (gmres + ilu0) timed over a few steps.
// Byte model of the Jacobian (the least DRAM traffic, 8-byte reals; nf faces, nc cells, ncf cell-face entries, nb
// blocks = nc + 2 ninterior): the faces' derivatives read the face's 2 cells 8, kind 1, area 24 and the 2 states 80,
// write 400 (two 5 x 5 blocks) a face; the block rows read per cell its row pointer 16, face pointer 8, diagonal
// position 4 and state 40, per cell-face entry its face 4, block position 4, area 24 and the 2 blocks it uses 400, and
// write each block once (200). Flops: 20 Roe fluxes a face, about 4000 (not counted in the GB/s).
// Usage: bench_fv_implicit [-json FILE] [-budget_s 240] [-quick] [-no_cpu] [-reps 10] [-cells N] [-tol T]
//        [-ksp_rtol R] [-cfl C]
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "gpu_bench_util.cuh"
#include "bench_log.cuh"
#define BENCH_NAME "fv_implicit"
#include "bench_json.cuh"

namespace {

double  g_copy_bw = 0, g_deadline = 0, g_ksp_rtol = 0.1, g_cfl0 = 50;
int     g_reps = 10, g_quick = 0, g_no_cpu = 0;
pds_ctx g_gpu, g_omp, g_ref;

double left_s() { return g_deadline - pds_wtime(); }

// a non-uniform smooth state (the free stream with bumps in every variable), as td17 makes
void smooth_state(pds_mesh3d m, const pds_fv_info &in, pds_vec Q) {
  const pds_real *X;

  PK(NULL, pds_mesh3d_get_geometry(m, NULL, &X, NULL, NULL));
  std::vector<double> h(5 * (size_t)in.ncells);
  for (pds_int c = 0; c < in.ncells; c++) {
    const double *x = X + 3 * (size_t)c, b = exp(-(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]));

    h[5 * c]     = in.qinf[0] * (1 + 0.2 * b);
    h[5 * c + 1] = in.qinf[1] + 0.05 * sin(x[1]);
    h[5 * c + 2] = in.qinf[2] + 0.04 * cos(x[2]);
    h[5 * c + 3] = in.qinf[3] + 0.03 * sin(x[0] + x[1]);
    h[5 * c + 4] = in.qinf[4] * (1 + 0.1 * b);
  }
  PK(NULL, pds_vec_set_values(Q, h.data(), PDS_MEM_HOST));
}

struct Op {
  pds_ctx     ctx = nullptr;
  pds_fv      fv  = nullptr;
  pds_fv_info in{};
  pds_vec     Q = nullptr, R = nullptr;
};

Op make_op(pds_ctx ctx, pds_mesh3d m) {
  static const pds_int wall[1] = {1};
  pds_fv_params        p;
  Op                   o;

  pds_fv_params_default(&p);
  p.nwall = 1, p.wall_tags = wall;
  o.ctx = ctx;
  PK(ctx, pds_fv_create(ctx, m, &p, &o.fv));
  PK(ctx, pds_fv_get_info(o.fv, &o.in));
  PK(ctx, pds_fv_create_state(o.fv, &o.Q));
  PK(ctx, pds_vec_duplicate(o.Q, &o.R));
  return o;
}

void free_op(Op &o) { pds_vec_destroy(&o.Q), pds_vec_destroy(&o.R), pds_fv_destroy(&o.fv); }

std::vector<double> mat_values(pds_mat A) {
  const pds_size *rp;
  const pds_real *v;
  pds_int         n;

  pds_mat_get_size(A, &n, NULL);
  pds_mat_bsr_get_arrays(A, &rp, NULL, &v);
  return std::vector<double>(v, v + 25 * (size_t)rp[n / 5]);
}

// validation: the GPU's Jacobian of a non-uniform state is /cpu/ref's, run after run
void check(pds_mesh3d m) {
  Op      g = make_op(g_gpu, m), r = make_op(g_ref, m);
  pds_mat A, B, C;

  smooth_state(m, g.in, g.Q), smooth_state(m, r.in, r.Q);
  PK(g_gpu, pds_fv_jacobian(g.fv, g.Q, 5, &A));
  PK(g_gpu, pds_fv_jacobian(g.fv, g.Q, 5, &B));
  PK(g_ref, pds_fv_jacobian(r.fv, r.Q, 5, &C));
  const std::vector<double> a = mat_values(A), b = mat_values(B), c = mat_values(C);
  if (a != b || a != c) fail("the GPU Jacobian is not /cpu/ref's bits (or not repeatable)");
  J("check").num("cells", g.in.ncells).num("blocks", a.size() / 25.0).num("bitwise", 1).emit();
  tab("validation: the Jacobian of a non-uniform state on %d cells (%zu blocks): /gpu/cuda gives /cpu/ref's bits, "
      "repeated runs too", (int)g.in.ncells, a.size() / 25);
  pds_mat_destroy(&A), pds_mat_destroy(&B), pds_mat_destroy(&C);
  free_op(g), free_op(r);
}

// the Jacobian's time and bytes on the big mesh, and the parts of a linear solve on it
void jacobian(pds_mesh3d m) {
  Op          g = make_op(g_gpu, m);
  pds_mat     A = nullptr;
  pds_int     nf;
  pds_size    ncf;
  const pds_size *cptr;
  double      to = NAN;

  smooth_state(m, g.in, g.Q);
  PK(NULL, pds_mesh3d_get_faces(m, &nf, NULL, NULL, NULL, NULL, NULL, &cptr, NULL));
  ncf = cptr[g.in.ncells];
  const double nb    = (double)g.in.ncells + 2.0 * g.in.ninterior;
  const double bytes = 513.0 * nf + 68.0 * g.in.ncells + 432.0 * (double)ncf + 200.0 * nb;
  const double t = host_median([&] {
    pds_mat_destroy(&A);
    PK(g_gpu, pds_fv_jacobian(g.fv, g.Q, 5, &A));
  }, 1, g_reps, true);
  if (!g_no_cpu && left_s() > 60) {
    Op      c = make_op(g_omp, m);
    pds_mat B = nullptr;

    smooth_state(m, c.in, c.Q);
    to = host_median([&] {
      pds_mat_destroy(&B);
      PK(g_omp, pds_fv_jacobian(c.fv, c.Q, 5, &B));
    }, 1, 3, false);
    pds_mat_destroy(&B);
    free_op(c);
  }
  J("jacobian").num("cells", g.in.ncells).num("faces", nf).num("blocks", nb).num("time_s", t).num("bytes", bytes)
      .num("gbs", bytes / t * 1e-9).num("frac_copy", bytes / t / g_copy_bw).num("omp_s", to).emit();
  tab("");
  tab("### The Jacobian (5 x 5 blocks) of the first-order residual, %d cells, %d faces, %.0f blocks (%.0f MB of values)",
      (int)g.in.ncells, (int)nf, nb, 200 * nb * 1e-6);
  tab("| | GPU ms | GB/s by the model (of copy) | /cpu/omp ms | omp / GPU |");
  tab("|---|---|---|---|---|");
  tab("| pds_fv_jacobian | %.3f | %.0f (%.0f%%) | %.1f | %.1f |", 1e3 * t, bytes / t * 1e-9,
      100 * bytes / t / g_copy_bw, 1e3 * to, to / t);
  // the parts of a solve: the product, pbjacobi and ilu0 (setup with the analysis, then the factorization alone on a
  // new matrix of the same pattern) and their applications
  {
    pds_vec     x, y;
    pds_precond pb, il;
    pds_mat     A2 = nullptr;
    double      tsp, tpb_s, tpb_a, til_1, til_s, til_a, t0;

    PK(g_gpu, pds_vec_duplicate(g.Q, &x));
    PK(g_gpu, pds_vec_duplicate(g.Q, &y));
    PK(g_gpu, pds_vec_set(x, 1));
    tsp = host_median([&] { PK(g_gpu, pds_mat_apply(A, x, y)); }, 2, g_reps, true);
    PK(g_gpu, pds_precond_create(g_gpu, "pbjacobi", &pb));
    PK(g_gpu, pds_precond_set_operator(pb, A));
    tpb_s = host_median([&] { PK(g_gpu, pds_precond_update_values(pb, A)); }, 1, g_reps, true);
    tpb_a = host_median([&] { PK(g_gpu, pds_precond_apply(pb, x, y)); }, 2, g_reps, true);
    PK(g_gpu, pds_precond_create(g_gpu, "ilu0", &il));
    PK(g_gpu, pds_precond_set_operator(il, A));
    CK(cudaDeviceSynchronize());
    t0 = pds_wtime();
    PK(g_gpu, pds_precond_setup(il));
    CK(cudaDeviceSynchronize());
    til_1 = pds_wtime() - t0;
    PK(g_gpu, pds_fv_jacobian(g.fv, g.Q, 5, &A2));
    til_s = host_median([&] { PK(g_gpu, pds_precond_update_values(il, A2)); }, 1, g_reps, true);
    til_a = host_median([&] { PK(g_gpu, pds_precond_apply(il, x, y)); }, 2, g_reps, true);
    J("parts").num("cells", g.in.ncells).num("spmv_s", tsp).num("spmv_gbs", (200 * nb + 4 * nb + 80.0 * g.in.ncells) /
                                                                            tsp * 1e-9)
        .num("pbjacobi_setup_s", tpb_s).num("pbjacobi_apply_s", tpb_a).num("ilu0_first_setup_s", til_1)
        .num("ilu0_setup_s", til_s).num("ilu0_apply_s", til_a).emit();
    tab("| BSR product J x | %.3f | %.0f (%.0f%%) | | |", 1e3 * tsp,
        (200 * nb + 4 * nb + 80.0 * g.in.ncells) / tsp * 1e-9,
        100 * (200 * nb + 4 * nb + 80.0 * g.in.ncells) / tsp / g_copy_bw);
    tab("| pbjacobi setup (blocks gathered and inverted on the GPU) / apply | %.3f / %.3f | | | |", 1e3 * tpb_s,
        1e3 * tpb_a);
    tab("| ilu0 first setup (analysis + factorization) / next setups (factorization) / apply | %.1f / %.3f / %.3f | | | |",
        1e3 * til_1, 1e3 * til_s, 1e3 * til_a);
    pds_precond_destroy(&pb), pds_precond_destroy(&il), pds_mat_destroy(&A2);
    pds_vec_destroy(&x), pds_vec_destroy(&y);
  }
  pds_mat_destroy(&A);
  free_op(g);
}

struct Run {
  int                 steps = 0, its = 0, its2 = 0; /* its2: the first two steps' */
  double              secs = 0, r0 = 0, r = 0;
  std::vector<double> res, times; /* ||R|| before each step; seconds from the start to the end of each step */
  bool                done = false;
};

// from the free stream towards ||R|| <= tol ||R_0||: implicit (pc given) or explicit (pc null) steps, at most maxsteps
// or cap seconds
Run steady(pds_ctx ctx, pds_mesh3d m, const char *pc, double tol, int maxsteps, double cap) {
  Op         o = make_op(ctx, m);
  pds_solver s = nullptr;
  pds_precond P = nullptr;
  Run        run;

  if (pc) {
    PK(ctx, pds_solver_create(ctx, "gmres", &s));
    PK(ctx, pds_precond_create(ctx, pc, &P));
    PK(ctx, pds_solver_set_precond(s, P));
    PK(ctx, pds_solver_set_tolerances(s, g_ksp_rtol, 1e-50, 300));
    PK(ctx, pds_solver_set_restart(s, 30));
  }
  const double t0 = pds_wtime();
  for (int k = 0; k < maxsteps && pds_wtime() - t0 < cap; k++) {
    pds_real rn;

    if (pc) {
      pds_solver_result lin;
      const double      cfl = k == 0 ? g_cfl0 : fmin(1e8, g_cfl0 * run.r0 / run.res.back());

      PK(ctx, pds_fv_step_implicit(o.fv, s, cfl, o.Q, o.R, &rn, &lin));
      run.its += lin.iterations;
      if (k < 2) run.its2 += lin.iterations;
    } else PK(ctx, pds_fv_step(o.fv, 0.9, o.Q, o.R, &rn));
    if (k == 0) run.r0 = rn;
    run.res.push_back(rn), run.times.push_back(pds_wtime() - t0), run.steps = k + 1, run.r = rn;
    if (!std::isfinite(rn)) fail("%s: the residual is %g at step %d", pc ? pc : "explicit", rn, k);
    if (rn <= tol * run.r0) {
      run.done = true;
      break;
    }
  }
  run.secs = pds_wtime() - t0;
  pds_solver_destroy(&s), pds_precond_destroy(&P);
  free_op(o);
  return run;
}

// the first step whose residual is at most 10^-d of the first, or -1
int decade(const Run &r, int d) {
  for (size_t k = 0; k < r.res.size(); k++)
    if (r.res[k] <= pow(10.0, -d) * r.r0) return (int)k;
  return -1;
}

void steady_all(pds_mesh3d m, double tol) {
  const Run ilu = steady(g_gpu, m, "ilu0", tol, 60, 120);
  const Run pbj = left_s() > 60 ? steady(g_gpu, m, "pbjacobi", tol, 80, 90) : Run();
  const double cap = fmin(120, left_s() - 40);
  const Run exp_ = cap > 10 ? steady(g_gpu, m, nullptr, tol, 1000000, cap) : Run();
  Run       omp;

  if (!g_no_cpu && left_s() > 80) omp = steady(g_omp, m, "ilu0", 0, 2, 1e9); /* two steps: the time a step */
  tab("");
  tab("### To a steady state (||R|| <= %.0e ||R_0||) from the free stream, Mach 0.1 past the sphere", tol);
  tab("| method | steps | Krylov iterations | s | s a step | steps to 1e-2, 1e-4, 1e-6, 1e-8 of ||R_0|| | final ||R|| / ||R_0|| |");
  tab("|---|---|---|---|---|---|---|");
  auto row = [&](const char *name, const Run &r) {
    if (!r.steps) return;
    J("steady").str("method", name).num("steps", r.steps).num("krylov_its", r.its).num("time_s", r.secs)
        .num("time_step_s", r.secs / r.steps).num("r0", r.r0).num("r", r.r).num("reached", r.done)
        .num("step_1e2", decade(r, 2)).num("step_1e4", decade(r, 4)).num("step_1e6", decade(r, 6))
        .num("step_1e8", decade(r, 8)).arr("residuals", r.res).arr("times", r.times).emit();
    tab("| %s | %d%s | %d | %.2f | %.4f | %d, %d, %d, %d | %.1e |", name, r.steps, r.done ? "" : " (cap)", r.its,
        r.secs, r.secs / r.steps, decade(r, 2), decade(r, 4), decade(r, 6), decade(r, 8), r.r / r.r0);
  };
  row("GPU implicit, gmres + ilu0", ilu);
  row("GPU implicit, gmres + pbjacobi", pbj);
  row("GPU explicit, CFL 0.9", exp_);
  row("/cpu/omp implicit, gmres + ilu0 (2 steps)", omp);
  tab("(-1: not reached; each implicit step: the residual, the Jacobian, the preconditioner's setup, GMRES(30) to "
      "%.0e)", g_ksp_rtol);
  const int ilu_its2 = ilu.its2;

  if (omp.steps == 2 && ilu.steps >= 2)
    tab("the first two implicit steps (gmres + ilu0): %.3f s on the GPU, %.3f s on /cpu/omp (%d and %d Krylov "
        "iterations): %.1fx", ilu.times[1], omp.times[1], ilu_its2, omp.its, omp.times[1] / ilu.times[1]);
}

} // namespace

int main(int argc, char **argv) {
  int        cells = 680000;
  double     tol   = 1e-8;
  BenchFlags fl    = bench_args(argc, argv,
                                "bench_fv_implicit [-json FILE] [-budget_s 240] [-quick] [-no_cpu] [-reps 10] "
                                "[-cells N] [-tol T] [-ksp_rtol R] [-cfl C]",
                                [&](const std::string &o, const char *next) {
                               if (next && o == "-cells") return cells = (int)parse_long("-cells", next), 2;
                               if (next && o == "-tol") return tol = parse_double("-tol", next), 2;
                               if (next && o == "-ksp_rtol") return g_ksp_rtol = parse_double("-ksp_rtol", next), 2;
                               if (next && o == "-cfl") return g_cfl0 = parse_double("-cfl", next), 2;
                               return 0;
                             });
  pds_mesh3d small, big;

  g_deadline = fl.deadline, g_reps = fl.reps, g_quick = fl.quick, g_no_cpu = fl.no_cpu;
  if (g_quick) cells = cells > 200000 ? 200000 : cells;
  bench_start(&g_gpu, &g_omp, &g_ref);
  g_copy_bw = measure_copy(g_quick);
  PK(g_ref, pds_mesh3d_generate_sphere(g_ref, 20000, 0.5, 5.0, &small));
  check(small);
  LOG("validated");
  PK(g_ref, pds_mesh3d_generate_sphere(g_ref, cells, 0.5, 5.0, &big));
  jacobian(big);
  LOG("jacobian done");
  steady_all(big, tol);
  LOG("steady done");
  printf("%s\n", g_table.c_str());
  pds_mesh3d_destroy(&small), pds_mesh3d_destroy(&big);
  pds_ctx_destroy(&g_gpu), pds_ctx_destroy(&g_omp), pds_ctx_destroy(&g_ref);
  return 0;
}
