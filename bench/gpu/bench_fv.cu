// bench/gpu/bench_fv.cu: paper 001's convective flux operation (the first-order Roe residual in the paper's three
// stages, issue 14) on the built-in sphere-in-a-box hybrid mesh (pds_mesh3d_generate_sphere: tetrahedra, pyramids,
// prisms, hexahedra) on /gpu/cuda against /cpu/omp (all cores) and /cpu/ref (one core), with the device's copy
// bandwidth measured in the same run. Cases (JSON lines "case"):
//   copy    y = x over 2^26 doubles: the bandwidth every fraction divides by;
//   check   validation first: the residual of a non-uniform state on the GPU against /cpu/ref (the same bits, else
//           FAIL, exit 1), repeated runs bitwise;
//   stages  per mesh (about 680K cells, the paper's size, and 4M) and cell numbering (as generated, RCM, Hilbert):
//           each stage's time (face states, face fluxes, cell sums) and the whole residual, the byte model's GB/s
//           and its fraction of the copy bandwidth, GFLOP/s; /cpu/omp and /cpu/ref on the 680K mesh.
//   sum     the summations (pds_fv_params' summation; issue 14): per mesh (680K, and 4M unless -quick, as generated)
//           and order (1, 2), each of "stages" (the face fluxes with their states fused, then the cell sums),
//           "color", "atomic", "cells": the whole
//           residual's time, at order 2 also the reconstruction's and the flux operation's (residual - recon), the
//           byte model below, GB/s and fraction of the copy bandwidth; /cpu/omp beside on 680K. Validation first: every
//           summation at order 1 and 2 against /cpu/ref's bits (the atomic one: its largest difference, at most
//           1e-10 of max |R|), repeatable.
//   recon   order 2 (paper 001 Section 3.1, Table 1): the reconstruction PC = A (Q_G - Q) alone, on the 680K mesh in
//           each numbering (and the 4M mesh as generated, GPU alone, when the budget allows), both CUDA kernels (a
//           thread per cell and variable; a warp per cell), /cpu/omp static and dynamic and /cpu/ref; the paper's
//           byte model, 116 NG + 408 bytes a cell (NG its stencil size), and 95 NG flops; then the second-order
//           residual's stages (stage 0 = the reconstruction and the face states at the face barycentres) beside the
//           whole residual. Validation first: the order-2 residual on the GPU, both kernels, against /cpu/ref's bits.
// Byte model (the least DRAM traffic, 8-byte reals; nf faces, nc cells, ncf cell-face entries = 2 ninterior + nbnd):
//   face states: face_cell 8 + kind 1 + the two states 80 written per face, the states read once per cell 40;
//   face fluxes: states 80 + area 24 + kind 1 read, flux 40 written per face; about 200 flops a face;
//   cell sums:   cell_ptr 4 + R 40 written per cell, per cell-face entry its index 4 and the flux 40.
// Byte models of the summations (the least DRAM traffic as implemented, cuda_fv.cu; ncf cell-face entries):
//   stages 73 nf + 84 nc + 44 ncf   (fluxes: face_cell, kind, area read, F written; Q once a cell; then cell sums)
//   color  37 nf + 160 nc           (colour entry, face_cell, kind, area a face; Q read, R zeroed, read and written)
//   atomic 33 nf + 160 nc           (the same without the colour entry)
//   cells  33 nf + 84 nc + 4 ncf    (face data once, Q and R once a cell, cell_ptr and cell_face)
//   order 2 adds 432 nc (the 45 coefficients and 9 AP values) + 24 nf (the barycentres) to each; the flux operation's
//   time is the residual's minus the reconstruction's.
// Usage: bench_fv [-json FILE] [-budget_s 240] [-quick] [-no_cpu] [-reps 10]
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "gpu_bench_util.cuh"
#include "bench_log.cuh"
#define BENCH_NAME "fv"
#include "bench_json.cuh"
extern "C" {
int pds_fv_stages(pds_fv fv, int first, int last, pds_vec Q, pds_vec R); /* src/disc/fv_impl.h */
int pds_fv_recon_only(pds_fv fv, pds_vec Q);
int pds_fv_set_summation(pds_fv fv, const char *name, pds_mesh3d mesh);
}

namespace {

double  g_copy_bw = 0, g_deadline = 0;
int     g_reps = 10, g_quick = 0, g_no_cpu = 0;
pds_ctx g_gpu, g_omp, g_ref;

double left_s() { return g_deadline - pds_wtime(); }

// a smooth non-uniform state: the free stream with a density and energy bump around (1, 0.5, 0)
void bump(pds_mesh3d m, const pds_fv_info &in, pds_vec Q) {
  pds_int         nc;
  const pds_real *X;

  PK(NULL, pds_mesh3d_get_sizes(m, NULL, &nc, NULL));
  PK(NULL, pds_mesh3d_get_geometry(m, NULL, &X, NULL, NULL));
  std::vector<double> h(5 * (size_t)nc);
  for (pds_int i = 0; i < nc; i++) {
    const double d2 = (X[3 * i] - 1) * (X[3 * i] - 1) + (X[3 * i + 1] - 0.5) * (X[3 * i + 1] - 0.5) +
                      X[3 * i + 2] * X[3 * i + 2];
    const double b  = 0.1 * exp(-d2);

    for (int k = 0; k < 5; k++) h[5 * i + k] = in.qinf[k] * (1 + (k == 0 || k == 4 ? b : 0));
  }
  PK(NULL, pds_vec_set_values(Q, h.data(), PDS_MEM_HOST));
}

struct Op {
  pds_fv      fv = nullptr;
  pds_vec     Q = nullptr, R = nullptr;
  pds_fv_info in;
};

Op make_op(pds_ctx ctx, pds_mesh3d m, int order = 1) {
  Op            o;
  pds_fv_params p;
  const pds_int wall[1] = {1};

  pds_fv_params_default(&p);
  p.order = order;
  p.mach = 0.1, p.nwall = 1, p.wall_tags = wall; // the paper's case: M = 0.1 past the sphere (tag 1)
  PK(ctx, pds_fv_create(ctx, m, &p, &o.fv));
  PK(ctx, pds_fv_get_info(o.fv, &o.in));
  PK(ctx, pds_fv_create_state(o.fv, &o.Q));
  PK(ctx, pds_vec_duplicate(o.Q, &o.R));
  bump(m, o.in, o.Q);
  return o;
}

void free_op(Op &o) { pds_vec_destroy(&o.Q), pds_vec_destroy(&o.R), pds_fv_destroy(&o.fv); }

void check(pds_mesh3d m) {
  Op g = make_op(g_gpu, m), r = make_op(g_ref, m);

  PK(g_gpu, pds_fv_residual(g.fv, g.Q, g.R));
  PK(g_ref, pds_fv_residual(r.fv, r.Q, r.R));
  std::vector<double> a = host_values(g.R), b = host_values(r.R);
  PK(g_gpu, pds_fv_residual(g.fv, g.Q, g.R));
  std::vector<double> c = host_values(g.R);
  if (a != b || a != c) fail("the GPU residual is not /cpu/ref's bits (or not repeatable)");
  J("check").num("cells", g.in.ncells).num("bitwise", 1).emit();
  tab("validation: the residual of a non-uniform state on %d cells: /gpu/cuda gives /cpu/ref's bits, repeated runs "
      "bitwise", (int)g.in.ncells);
  free_op(g), free_op(r);
  for (int order = 1; order <= 2; order++) { // every summation against /cpu/ref's same summation
    g = make_op(g_gpu, m, order), r = make_op(g_ref, m, order);
    for (const char *sname : {"stages", "color", "atomic", "cells"}) {
      PK(g_gpu, pds_fv_set_summation(g.fv, sname, m));
      PK(g_ref, pds_fv_set_summation(r.fv, sname, m));
      PK(g_ref, pds_fv_residual(r.fv, r.Q, r.R));
      std::vector<double> rb = host_values(r.R);
      PK(g_gpu, pds_fv_residual(g.fv, g.Q, g.R));
      std::vector<double> ga = host_values(g.R);
      PK(g_gpu, pds_fv_residual(g.fv, g.Q, g.R));
      std::vector<double> gc = host_values(g.R);
      double dmax = 0, rmax = 0;
      for (size_t i = 0; i < rb.size(); i++) dmax = fmax(dmax, fabs(ga[i] - rb[i])), rmax = fmax(rmax, fabs(rb[i]));
      if (strcmp(sname, "atomic")) {
        if (ga != rb || ga != gc)
          fail("order %d, summation %s: the GPU residual is not /cpu/ref's bits (or not repeatable)", order, sname);
      } else if (dmax > 1e-10 * rmax)
        fail("order %d, atomic summation: %.3e off /cpu/ref (max |R| %.3e)", order, dmax, rmax);
      J("check_sum").num("order", order).str("summation", sname).num("bitwise", ga == rb && ga == gc)
          .num("max_diff", dmax).num("max_r", rmax).emit();
      tab("validation: order %d, summation %s: %s (largest difference %.1e, max |R| %.2e)", order, sname,
          ga == rb && ga == gc ? "/cpu/ref's bits, repeated runs bitwise" : "within round-off of /cpu/ref (atomic)",
          dmax, rmax);
    }
    free_op(g), free_op(r);
  }
  return;
}

// order 2: the residual on the GPU (both reconstruction kernels) against /cpu/ref's bits
void check2(pds_mesh3d m) {
  Op g = make_op(g_gpu, m, 2), r = make_op(g_ref, m, 2);

  PK(g_ref, pds_fv_residual(r.fv, r.Q, r.R));
  std::vector<double> b = host_values(r.R);
  for (const char *v : {"thread", "warp"}) {
    setenv("PDS_CUDA_FV_RECON", v, 1);
    PK(g_gpu, pds_fv_residual(g.fv, g.Q, g.R));
    std::vector<double> a = host_values(g.R);
    PK(g_gpu, pds_fv_residual(g.fv, g.Q, g.R));
    std::vector<double> c = host_values(g.R);
    if (a != b || a != c) fail("the order-2 GPU residual (%s kernel) is not /cpu/ref's bits (or not repeatable)", v);
  }
  unsetenv("PDS_CUDA_FV_RECON");
  J("check2").num("cells", g.in.ncells).num("bitwise", 1).emit();
  tab("validation: the order-2 residual on %d cells: /gpu/cuda (both reconstruction kernels) gives /cpu/ref's bits",
      (int)g.in.ncells);
  free_op(g), free_op(r);
}

// the reconstruction (Table 1) and the order-2 residual's stages
void recon_case(const char *label, pds_mesh3d m, bool cpu) {
  Op           o  = make_op(g_gpu, m, 2);
  const double nc = o.in.ncells, ng = (double)o.in.ng_sum;
  const double bytes = 116 * ng + 408 * nc, flops = 95 * ng;
  double       tk[2], t[4], to[2] = {NAN, NAN}, tr = NAN;

  for (int v = 0; v < 2; v++) {
    setenv("PDS_CUDA_FV_RECON", v ? "warp" : "thread", 1);
    tk[v] = gpu_event_median([&] { PK(g_gpu, pds_fv_recon_only(o.fv, o.Q)); }, 2, g_reps);
  }
  unsetenv("PDS_CUDA_FV_RECON");
  for (int s = 0; s < 3; s++)
    t[s] = gpu_event_median([&] { PK(g_gpu, pds_fv_stages(o.fv, s, s, o.Q, o.R)); }, 2, g_reps);
  t[3] = gpu_event_median([&] { PK(g_gpu, pds_fv_stages(o.fv, 0, 2, o.Q, o.R)); }, 2, g_reps);
  if (cpu && !g_no_cpu && left_s() > 90) {
    Op c = make_op(g_omp, m, 2);
    for (int v = 0; v < 2; v++) {
      setenv("PDS_FV_OMP_SCHEDULE", v ? "dynamic" : "static", 1);
      to[v] = host_median([&] { PK(g_omp, pds_fv_recon_only(c.fv, c.Q)); }, 1, 3, false);
    }
    unsetenv("PDS_FV_OMP_SCHEDULE");
    free_op(c);
    Op r = make_op(g_ref, m, 2);
    tr   = host_median([&] { PK(g_ref, pds_fv_recon_only(r.fv, r.Q)); }, 1, 3, false);
    free_op(r);
  }
  const double tb = fmin(tk[0], tk[1]);
  J("recon").str("mesh", label).num("cells", nc).num("ng_mean", o.in.ng_mean).num("ng_min", o.in.ng_min)
      .num("ng_max", o.in.ng_max).num("setup_s", o.in.t_recon_setup).num("thread_s", tk[0]).num("warp_s", tk[1])
      .num("bytes", bytes).num("gbs", bytes / tb * 1e-9).num("frac_copy", bytes / tb / g_copy_bw)
      .num("gflops", flops / tb * 1e-9).num("omp_static_s", to[0]).num("omp_dynamic_s", to[1]).num("ref_s", tr)
      .num("stage0_s", t[0]).num("flux_s", t[1]).num("sum_s", t[2]).num("residual_s", t[3]).emit();
  char cpub[128] = " - | - | - |";
  if (std::isfinite(tr))
    snprintf(cpub, sizeof cpub, " %.2f | %.2f | %.1f (%.0fx) |", to[0] * 1e3, to[1] * 1e3, tr * 1e3, tr / tb);
  tab("| %s | %d | %.1f (%d..%d) | %.3f | %.3f | %.0f (%.0f%%) | %.0f |%s %.3f | %.3f | %.3f | %.3f |", label, (int)nc,
      o.in.ng_mean, (int)o.in.ng_min, (int)o.in.ng_max, tk[0] * 1e3, tk[1] * 1e3, bytes / tb * 1e-9,
      100 * bytes / tb / g_copy_bw, flops / tb * 1e-9, cpub, t[0] * 1e3, t[1] * 1e3, t[2] * 1e3, t[3] * 1e3);
  free_op(o);
}

// bytes and flops of the stages (header)
struct Model {
  double b[3], flops;
};
Model model(pds_mesh3d m, const pds_fv_info &in) {
  const pds_size *cptr;
  pds_int         nc;

  PK(NULL, pds_mesh3d_get_sizes(m, NULL, &nc, NULL));
  PK(NULL, pds_mesh3d_get_faces(m, NULL, NULL, NULL, NULL, NULL, NULL, &cptr, NULL));
  const double nf = in.nfaces, ncd = in.ncells, ncf = (double)cptr[nc];
  return Model{{89 * nf + 40 * ncd, 145 * nf, 44 * ncd + 44 * ncf}, 200 * nf};
}

void stages_case(const char *label, pds_mesh3d m, bool cpu) {
  Op          o = make_op(g_gpu, m);
  const Model M = model(m, o.in);
  double      t[4];

  for (int s = 0; s < 3; s++)
    t[s] = gpu_event_median([&] { PK(g_gpu, pds_fv_stages(o.fv, s, s, o.Q, o.R)); }, 2, g_reps);
  t[3] = gpu_event_median([&] { PK(g_gpu, pds_fv_stages(o.fv, 0, 2, o.Q, o.R)); }, 2, g_reps);
  const double bytes = M.b[0] + M.b[1] + M.b[2];
  double       to = NAN, tr = NAN;

  if (cpu && !g_no_cpu && left_s() > 60) {
    Op c = make_op(g_omp, m);
    to   = host_median([&] { PK(g_omp, pds_fv_residual(c.fv, c.Q, c.R)); }, 1, 3, false);
    free_op(c);
    Op r = make_op(g_ref, m);
    tr   = host_median([&] { PK(g_ref, pds_fv_residual(r.fv, r.Q, r.R)); }, 1, 3, false);
    free_op(r);
  }
  J("stages").str("mesh", label).num("cells", o.in.ncells).num("faces", o.in.nfaces).num("states_s", t[0])
      .num("flux_s", t[1]).num("sum_s", t[2]).num("residual_s", t[3]).num("bytes", bytes)
      .num("gbs", bytes / t[3] * 1e-9).num("frac_copy", bytes / t[3] / g_copy_bw)
      .num("gflops", M.flops / t[3] * 1e-9).num("omp_s", to).num("ref_s", tr).emit();
  auto pct = [&](int s) { return 100 * M.b[s] / t[s] / g_copy_bw; };
  char cpub[96] = " - | - |";
  if (std::isfinite(to)) snprintf(cpub, sizeof cpub, " %.2f (%.0fx) | %.1f (%.0fx) |", to * 1e3, to / t[3],
                                  tr * 1e3, tr / t[3]);
  tab("| %s | %d | %.3f (%.0f%%) | %.3f (%.0f%%) | %.3f (%.0f%%) | %.3f | %.0f (%.0f%%) | %.0f |%s", label,
      (int)o.in.ncells, t[0] * 1e3, pct(0), t[1] * 1e3, pct(1), t[2] * 1e3, pct(2), t[3] * 1e3,
      bytes / t[3] * 1e-9, 100 * bytes / t[3] / g_copy_bw, M.flops / t[3] * 1e-9, cpub);
  free_op(o);
}

// every summation at one order on m: the residual (order 2: and the reconstruction alone; the flux operation is the
// difference), the summation's byte model, its GB/s and fraction of the copy bandwidth; /cpu/omp beside when cpu
void sum_case(const char *label, pds_mesh3d m, int order, bool cpu) {
  Op              o = make_op(g_gpu, m, order), c;
  const pds_size *cptr;
  const double    nf = o.in.nfaces, nc = o.in.ncells;
  const bool      omp = cpu && !g_no_cpu && left_s() > 60;
  double          trec = 0;

  PK(NULL, pds_mesh3d_get_faces(m, NULL, NULL, NULL, NULL, NULL, NULL, &cptr, NULL));
  const double ncf = (double)cptr[o.in.ncells], o2 = order == 2 ? 432 * nc + 24 * nf : 0;
  if (order == 2) trec = gpu_event_median([&] { PK(g_gpu, pds_fv_recon_only(o.fv, o.Q)); }, 2, g_reps);
  if (omp) c = make_op(g_omp, m, order);
  for (const char *v : {"stages", "color", "atomic", "cells"}) {
    const char  *sname = v;
    const double bytes = o2 + (!strcmp(sname, "stages") ? 73 * nf + 84 * nc + 44 * ncf
                               : !strcmp(sname, "color") ? 37 * nf + 160 * nc
                               : !strcmp(sname, "atomic") ? 33 * nf + 160 * nc
                                                          : 33 * nf + 84 * nc + 4 * ncf);
    double       to = NAN;

    if (left_s() < 15) break;
    PK(g_gpu, pds_fv_set_summation(o.fv, sname, m));
    const double t = gpu_event_median([&] { PK(g_gpu, pds_fv_residual(o.fv, o.Q, o.R)); }, 2, g_reps);
    const double tf = t - trec;
    if (omp) {
      PK(g_omp, pds_fv_set_summation(c.fv, sname, m));
      to = host_median([&] { PK(g_omp, pds_fv_residual(c.fv, c.Q, c.R)); }, 1, 3, false);
    }
    pds_fv_info in;
    PK(g_gpu, pds_fv_get_info(o.fv, &in));
    J("sum").str("mesh", label).num("order", order).str("summation", v).num("cells", nc).num("faces", nf)
        .num("ncolors", in.ncolors).num("residual_s", t).num("recon_s", trec).num("flux_s", tf).num("bytes", bytes)
        .num("gbs", bytes / tf * 1e-9).num("frac_copy", bytes / tf / g_copy_bw).num("omp_s", to).emit();
    char ob[48] = " - |";
    if (std::isfinite(to)) snprintf(ob, sizeof ob, " %.2f |", to * 1e3);
    tab("| %s | %d | %s | %s | %.3f | %s | %.3f | %.0f | %.0f (%.0f%%) |%s", label, order, v,
        !strcmp(v, "color") ? std::to_string((int)in.ncolors).c_str() : "", t * 1e3,
        order == 2 ? std::to_string(trec * 1e3).substr(0, 5).c_str() : "-", tf * 1e3, bytes * 1e-6,
        bytes / tf * 1e-9, 100 * bytes / tf / g_copy_bw, ob);
  }
  if (omp) free_op(c);
  free_op(o);
}

} // namespace

int main(int argc, char **argv) {
  const BenchFlags f = bench_args(argc, argv, "bench_fv [-json FILE] [-budget_s S] [-quick] [-no_cpu] [-reps N]",
                                  [](const std::string &, const char *) { return 0; });

  g_quick = f.quick, g_no_cpu = f.no_cpu, g_reps = f.reps, g_deadline = f.deadline;
  bench_start(&g_gpu, &g_omp, &g_ref);
  g_copy_bw = measure_copy(g_quick);
  {
    pds_mesh3d m;

    PK(g_ref, pds_mesh3d_generate_sphere(g_ref, 20000, 0.5, 5.0, &m));
    check(m);
    check2(m);
    pds_mesh3d_destroy(&m);
  }
  LOG("check done");
  tab("\nsummations (issue 14; pds_fv_params' summation, the stages fused: each face's states computed in its flux "
      "kernel), median of %d: the whole residual ms, at order 2 the reconstruction's ms and the flux operation's "
      "(residual - reconstruction), the summation's byte model (MB), GB/s (of copy) of the flux operation; /cpu/omp "
      "(%d threads) residual ms", g_reps, pds_ctx_get_num_threads(g_omp));
  tab("| mesh | order | summation | colours | residual ms | recon ms | flux op ms | MB | GB/s (of copy) | /cpu/omp ms |");
  tab("|---|---|---|---|---|---|---|---|---|---|");
  for (pds_int target : {680000, 4000000}) {
    pds_mesh3d m;
    const bool big = target > 1000000;

    if ((g_quick && big) || left_s() < (big ? 90 : 40)) break;
    PK(g_ref, pds_mesh3d_generate_sphere(g_ref, target, 0.5, 5.0, &m));
    for (int order = 1; order <= 2; order++) {
      if (order == 2 && left_s() < (big ? 120 : 60)) break; // order 2's setup: about 8 s (680K), 60 s (4M)
      sum_case(big ? "sphere 4M" : "sphere 680K", m, order, !big);
      LOG("summations %s order %d done", big ? "4M" : "680K", order);
    }
    pds_mesh3d_destroy(&m);
  }
  tab("\nconvective residual (paper 001 Section 3.2, first-order Roe, three stages; median of %d after warm-up), ms and "
      "the byte model's fraction of the copy bandwidth; whole residual GB/s (of copy) and GFLOP/s (200 flops a "
      "face); /cpu/omp (%d threads) and /cpu/ref (one core) ms for the whole residual (GPU speedup)", g_reps,
      pds_ctx_get_num_threads(g_omp));
  tab("| mesh, numbering | cells | face states ms | face fluxes ms | cell sums ms | residual ms | GB/s | GFLOP/s | "
      "/cpu/omp ms | /cpu/ref ms |");
  tab("|---|---|---|---|---|---|---|---|---|---|");
  for (pds_int target : {680000, 4000000}) {
    if (g_quick && target > 680000) break;
    if (left_s() < 60) break;
    for (const char *how : {"none", "rcm", "hilbert"}) {
      pds_mesh3d m;
      char       label[64];

      if (left_s() < 40) break;
      PK(g_ref, pds_mesh3d_generate_sphere(g_ref, target, 0.5, 5.0, &m));
      PK(g_ref, pds_mesh3d_reorder(m, how));
      snprintf(label, sizeof label, "sphere %s, %s", target > 1000000 ? "4M" : "680K",
               strcmp(how, "none") ? how : "as generated");
      stages_case(label, m, target == 680000 && strcmp(how, "hilbert") == 0);
      pds_mesh3d_destroy(&m);
      LOG("%s done", label);
    }
  }
  tab("\norder 2 (paper 001 Section 3.1, Table 1): the reconstruction PC = A (Q_G - Q), ms for a thread per (cell, "
      "variable) and a warp per cell, the faster one's GB/s by the paper's model (116 NG + 408 bytes a cell; of the "
      "copy bandwidth) and GFLOP/s (95 NG); /cpu/omp static and dynamic schedules and /cpu/ref ms (speedup of the "
      "faster GPU kernel); then the order-2 residual's stages, ms (stage 0: reconstruction + face states)");
  tab("| mesh, numbering | cells | NG mean (min..max) | thread ms | warp ms | GB/s | GFLOP/s | omp static ms | "
      "omp dynamic ms | ref ms | stage 0 ms | fluxes ms | sums ms | residual ms |");
  tab("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
  for (const char *how : {"none", "rcm", "hilbert", "4M"}) { /* 4M: the big mesh as generated, the GPU alone */
    const bool big = !strcmp(how, "4M");
    pds_mesh3d m;
    char       label[64];

    if (left_s() < (big ? 120 : 60) || (big && g_quick)) break;
    PK(g_ref, pds_mesh3d_generate_sphere(g_ref, big ? 4000000 : 680000, 0.5, 5.0, &m));
    PK(g_ref, pds_mesh3d_reorder(m, big ? "none" : how));
    snprintf(label, sizeof label, "sphere %s, %s", big ? "4M" : "680K",
             strcmp(how, "none") && !big ? how : "as generated");
    recon_case(label, m, strcmp(how, "hilbert") == 0);
    pds_mesh3d_destroy(&m);
    LOG("order 2 %s done", label);
  }
  printf("%s\n", g_table.c_str());
  pds_ctx_destroy(&g_gpu), pds_ctx_destroy(&g_omp), pds_ctx_destroy(&g_ref);
  if (g_json != stdout) fclose(g_json);
  return 0;
}
