// bench/gpu/bench_sem.cu: paper 003's spectral-element Poisson operator and Jacobi preconditioner (issue 13) on
// /gpu/cuda against /cpu/omp and /cpu/ref, with the device's copy bandwidth measured in the same run. Cases (JSON
// lines "case"):
//   copy    y = x over 2^26 doubles: the bandwidth every fraction divides by;
//   check   validation first: w = A x and the diagonal on 8^3 elements of order 7 (affine and deformed) on /gpu/cuda
//           against /cpu/ref (the kernels round as ref: the same bits; else FAIL, exit 1), repeated runs bitwise;
//   op      w = A x (the whole operator: the elements' D^T G D and the gather-scatter sum) for N = 2..12 points a
//           direction and E = 8^3, 16^3, 32^3 elements (2^9, 2^12, 2^15), affine and deformed: GDOF/s (E N^3 local
//           points per second), the model's GB/s and its fraction of the copy bandwidth, GFLOP/s; /cpu/omp and
//           /cpu/ref on E = 2^9 and 2^12; the byte model (op_bytes, the least DRAM traffic): 72 bytes per local
//           point (gid 4, G 48, the local result written and read 16, gsidx 4; affine elements: K_e's 48 bytes an
//           element instead of G) + 22 per global point (x, mask, gsptr, w); flops 12 N + 15 per local point;
//   diag    paper 003 Fig. 2: each diagonal kernel (extended, natural, shared, wide) on E = 4096 elements, N = 8..12
//           (natural and shared to N = 10), its time and its fraction of one operator application;
//   pcg     paper 003 Section 4.1: CG with and without semjacobi to 1e-14 (the paper: N = 10, E = 32768, 10 % fewer
//           iterations), iterations and the time per iteration against its parts (operator, preconditioner).
// Usage: bench_sem [-json FILE] [-budget_s 240] [-quick] [-no_cpu] [-reps 10] [-shared DIR]
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "gpu_bench_util.cuh"
#include "bench_log.cuh"
#define BENCH_NAME "sem"
#include "bench_json.cuh"
extern "C" {
int pds_mat_sem_diagonal(pds_mat A, int variant, pds_vec d); /* src/disc/sem_impl.h: one diagonal kernel */
}

namespace {

double      g_copy_bw = 0, g_deadline = 0;
int         g_reps = 10, g_quick = 0, g_no_cpu = 0;
const char *g_shared = nullptr; // -shared DIR: meshes/hybrid_3d_cube.msh for the unstructured mesh's row
pds_ctx     g_gpu, g_omp, g_ref;

double left_s() { return g_deadline - pds_wtime(); }



struct Op {
  pds_sem S = nullptr;
  pds_mat A = nullptr;
  pds_vec x = nullptr, y = nullptr;
  pds_sem_info info;
};

Op make_op(pds_ctx ctx, int e, int order, double deform) {
  Op            o;
  const pds_int el[3] = {e, e, e};

  PK(ctx, pds_sem_create_box(ctx, el, order, deform, &o.S));
  PK(ctx, pds_sem_get_info(o.S, &o.info));
  PK(ctx, pds_mat_create_sem(o.S, &o.A));
  PK(ctx, pds_vec_create(ctx, o.info.nglobal, &o.x));
  PK(ctx, pds_vec_create(ctx, o.info.nglobal, &o.y));
  PK(ctx, pds_vec_set_random(o.x, 7));
  pds_sem_destroy(&o.S); // the matrix keeps its copies
  return o;
}

// the space's operator on a mesh instead of the box
Op make_op_mesh(pds_ctx ctx, pds_mesh3d m, int order) {
  Op o;

  PK(ctx, pds_sem_create_mesh(ctx, m, order, &o.S));
  PK(ctx, pds_sem_get_info(o.S, &o.info));
  PK(ctx, pds_mat_create_sem(o.S, &o.A));
  PK(ctx, pds_vec_create(ctx, o.info.nglobal, &o.x));
  PK(ctx, pds_vec_create(ctx, o.info.nglobal, &o.y));
  PK(ctx, pds_vec_set_random(o.x, 7));
  pds_sem_destroy(&o.S);
  return o;
}

// the shared hybrid_3d_cube.msh (tetrahedra and prisms) cut into hexahedra twice (828, then 6624 cells): an
// unstructured hexahedral mesh, general G, the numbering by topology; NULL without the file
pds_mesh3d hybrid_hexes(pds_ctx ctx) {
  std::string path = std::string(g_shared ? g_shared : "") + "/meshes/hybrid_3d_cube.msh";
  pds_mesh3d  m = nullptr, a = nullptr, b = nullptr;

  if (!g_shared || pds_mesh3d_read_gmsh(ctx, path.c_str(), &m)) return nullptr;
  PK(ctx, pds_mesh3d_subdivide_hex(m, &a));
  PK(ctx, pds_mesh3d_subdivide_hex(a, &b));
  pds_mesh3d_destroy(&m), pds_mesh3d_destroy(&a);
  return b;
}

void free_op(Op &o) {
  pds_vec_destroy(&o.x), pds_vec_destroy(&o.y), pds_mat_destroy(&o.A);
}

void check() {
  for (double deform : {0.0, 0.08}) {
    Op g = make_op(g_gpu, 8, 7, deform), r = make_op(g_ref, 8, 7, deform);

    PK(g_gpu, pds_mat_apply(g.A, g.x, g.y));
    PK(g_ref, pds_mat_apply(r.A, r.x, r.y));
    std::vector<double> a = host_values(g.y), b = host_values(r.y);
    PK(g_gpu, pds_mat_apply(g.A, g.x, g.y));
    std::vector<double> a2 = host_values(g.y);
    if (a != b) fail("w = A x (deform %g): /gpu/cuda is not /cpu/ref's bits", deform);
    if (a != a2) fail("w = A x (deform %g): two GPU runs differ", deform);
    PK(g_gpu, pds_mat_get_diagonal(g.A, g.y));
    PK(g_ref, pds_mat_get_diagonal(r.A, r.y));
    if (host_values(g.y) != host_values(r.y)) fail("the diagonal (deform %g): not /cpu/ref's bits", deform);
    J("check").num("deform", deform).num("bitwise", 1).emit();
    free_op(g), free_op(r);
  }
  tab("validation: w = A x and the diagonal on 8^3 elements of order 7, affine and deformed: /gpu/cuda gives /cpu/ref's "
      "bits, repeated runs bitwise");
}

// the byte and flop model of one application (cuda_sem.cu), the least DRAM traffic: per local point gid 4, G 48
// (affine: K_e's 48 bytes an element), the local result written 8 and read 8, gsidx 4; per global point x 8 and
// mask 1 read by the local kernel, gsptr 4, mask 1 and w 8 by the sum
double op_bytes(const pds_sem_info &i) {
  const double n3 = (double)i.n * i.n * i.n;
  return (i.affine ? 24.0 + 48.0 / n3 : 72.0) * i.nlocal + 22.0 * i.nglobal;
}
double op_flops(const pds_sem_info &i) { return (12.0 * i.n + (i.affine ? 22.0 : 15.0)) * i.nlocal; }

// one row: o on the GPU (consumed), and for cpu the same space on /cpu/omp (and /cpu/ref at e <= 8) by make(ctx)
template <typename Make> void op_row(const char *label, Op o, bool cpu, int e, double deform, Make make) {
  const double t  = gpu_event_median([&] { PK(g_gpu, pds_mat_apply(o.A, o.x, o.y)); }, 2, g_reps);
  const double gd = o.info.nlocal / t * 1e-9, gb = op_bytes(o.info) / t;
  double       to = NAN, tr = NAN;

  if (cpu && !g_no_cpu && left_s() > 40) {
    Op c = make(g_omp);
    to   = host_median([&] { PK(g_omp, pds_mat_apply(c.A, c.x, c.y)); }, 1, 3, false);
    free_op(c);
    if (e <= 8) {
      Op rr = make(g_ref);
      tr    = host_median([&] { PK(g_ref, pds_mat_apply(rr.A, rr.x, rr.y)); }, 1, 3, false);
      free_op(rr);
    }
  }
  J("op").str("mesh", label).num("elements", (double)o.info.nelem).num("n", o.info.n).num("deform", deform)
      .num("nlocal", (double)o.info.nlocal).num("time_s", t).num("gdofs", gd).num("gbs", gb * 1e-9)
      .num("frac_copy", gb / g_copy_bw).num("gflops", op_flops(o.info) / t * 1e-9).num("omp_s", to).num("ref_s", tr)
      .emit();
  char cpub[96] = " - | - |";
  if (std::isfinite(to))
    snprintf(cpub, sizeof cpub, " %.3f | %s |", o.info.nlocal / to * 1e-9,
             std::isfinite(tr) ? std::to_string(o.info.nlocal / tr * 1e-9).substr(0, 5).c_str() : "-");
  tab("| %s | %d | %s | %.2f | %.0f (%.0f%%) | %.0f |%s", label, o.info.n, o.info.affine ? "affine" : "general G", gd,
      gb * 1e-9, 100 * gb / g_copy_bw, op_flops(o.info) / t * 1e-9, cpub);
  free_op(o);
}

void op_case(int e, int order, double deform, bool cpu) {
  char label[32];

  snprintf(label, sizeof label, "%d^3%s", e, deform != 0 ? " deformed" : "");
  op_row(label, make_op(g_gpu, e, order, deform), cpu, e, deform,
         [&](pds_ctx c) { return make_op(c, e, order, deform); });
}

void ops() {
  tab("\noperator w = A x (paper 003 Eq. 6; one application, median of %d after warm-up): GDOF/s = E N^3 / time; "
      "GB/s by the least-traffic model (72 bytes per local point, affine 24 + 48 / N^3, + 22 per global point; the byte "
      "floor is the copy bandwidth's time for them); GFLOP/s by 12 N + 15 per point (affine 12 N + 22); /cpu/omp "
      "(%d threads) and /cpu/ref in GDOF/s", g_reps, pds_ctx_get_num_threads(g_omp));
  tab("| elements | N | geometry | GPU GDOF/s | GB/s (of copy) | GFLOP/s | /cpu/omp GDOF/s | /cpu/ref GDOF/s |");
  tab("|---|---|---|---|---|---|---|---|");
  const std::vector<int> es = g_quick ? std::vector<int>{8} : std::vector<int>{8, 16, 32};
  for (int e : es)
    for (int n = 2; n <= 12; n += g_quick ? 3 : 1) {
      if (left_s() < 60) {
        tab("| %d^3 | %d | (budget spent) |", e, n);
        continue;
      }
      if ((double)e * e * e * n * n * n > 7e7) continue; // the largest: memory and the host's geometry time
      op_case(e, n - 1, 0.0, e <= 16 && (n == 4 || n == 8 || n == 12));
      if (e == 16) op_case(e, n - 1, 0.08, false);
    }
  if (pds_mesh3d m = hybrid_hexes(g_gpu)) { // an unstructured hexahedral mesh, N = 4, 8, 12
    pds_int nc = 0;
    char    label[64];

    pds_mesh3d_get_sizes(m, nullptr, &nc, nullptr);
    snprintf(label, sizeof label, "hybrid mesh, %d hexahedra", (int)nc);
    for (int n : {4, 8, 12})
      if (left_s() > 60)
        op_row(label, make_op_mesh(g_gpu, m, n - 1), n == 8, 0, 0.0, [&](pds_ctx c) { return make_op_mesh(c, m, n - 1); });
    pds_mesh3d_destroy(&m);
  } else tab("| hybrid mesh | (no -shared DIR with meshes/hybrid_3d_cube.msh) |");
}

void diags() {
  static const char *const vars[4] = {"extended", "natural", "shared", "wide"};

  tab("\ndiagonal assembly (paper 003 Fig. 2): each kernel on 16^3 = 4096 elements (the element kernel and the "
      "gather-scatter sum, median of %d), ms, and against one operator application", g_reps);
  tab("| N | extended | natural | shared | wide | one A x | extended / A x |");
  tab("|---|---|---|---|---|---|---|");
  for (int n = 8; n <= 12; n++) {
    if (left_s() < 40) break;
    Op     o = make_op(g_gpu, 16, n - 1, 0.0);
    double t[4];
    for (int v = 0; v < 4; v++) {
      t[v] = NAN;
      if ((v == 1 || v == 2) && n > 10) continue; // a thread block of n^3 threads
      t[v] = gpu_event_median([&] { PK(g_gpu, pds_mat_sem_diagonal(o.A, v, o.y)); }, 2, g_reps);
    }
    const double ta = gpu_event_median([&] { PK(g_gpu, pds_mat_apply(o.A, o.x, o.y)); }, 2, g_reps);
    for (int v = 0; v < 4; v++)
      J("diag").num("n", n).num("elements", 4096).str("variant", vars[v]).num("setup_s", t[v]).num("apply_s", ta)
          .emit();
    auto f = [](double v) { return std::isfinite(v) ? std::to_string(v * 1e3).substr(0, 6) : std::string("-"); };
    tab("| %d | %s | %s | %s | %s | %.3f | %.2f |", n, f(t[0]).c_str(), f(t[1]).c_str(), f(t[2]).c_str(),
        f(t[3]).c_str(), ta * 1e3, t[0] / ta);
    free_op(o);
  }
}

void pcg_case(int e, int order) {
  pds_problem p;
  const pds_int el[3] = {e, e, e};
  int          its[2] = {0, 0};
  double       tit[2] = {NAN, NAN}, tpc = NAN, top = NAN;

  PK(g_gpu, pds_problem_sem(g_gpu, el, order, 0.0, &p));
  for (int k = 0; k < 2 && left_s() > 30; k++) {
    pds_solver        s;
    pds_precond       pc;
    pds_vec           x;
    pds_solver_result res;
    pds_int           n;

    PK(g_gpu, pds_mat_get_size(p.A, &n, NULL));
    PK(g_gpu, pds_solver_create(g_gpu, "cg", &s));
    PK(g_gpu, pds_precond_create(g_gpu, k ? "semjacobi" : "none", &pc));
    PK(g_gpu, pds_solver_set_operator(s, p.A));
    PK(g_gpu, pds_solver_set_precond(s, pc));
    PK(g_gpu, pds_solver_set_tolerances(s, 1e-14, 0, 20000));
    PK(g_gpu, pds_vec_create(g_gpu, n, &x));
    PK(g_gpu, pds_vec_set(x, 0));
    PK(g_gpu, pds_solver_setup(s));
    const double t0 = pds_wtime();
    PK(g_gpu, pds_solver_solve(s, p.b, x));
    CK(cudaDeviceSynchronize());
    const double ts = pds_wtime() - t0;
    PK(g_gpu, pds_solver_get_result(s, &res));
    its[k] = res.iterations, tit[k] = ts / (res.iterations ? res.iterations : 1);
    if (k) {
      pds_vec z;
      PK(g_gpu, pds_vec_duplicate(x, &z));
      tpc = gpu_event_median([&] { PK(g_gpu, pds_precond_apply(pc, p.b, z)); }, 2, g_reps);
      top = gpu_event_median([&] { PK(g_gpu, pds_mat_apply(p.A, p.b, z)); }, 2, g_reps);
      pds_vec_destroy(&z);
    }
    pds_vec_destroy(&x), pds_precond_destroy(&pc), pds_solver_destroy(&s);
  }
  J("pcg").num("elements", (double)e * e * e).num("n", order + 1).num("its_none", its[0]).num("its_semjacobi", its[1])
      .num("iter_s_none", tit[0]).num("iter_s_semjacobi", tit[1]).num("op_s", top).num("pc_s", tpc).emit();
  tab("| %d^3 | %d | %d | %d | %.1f %% | %.3f | %.3f | %.3f | %.3f |", e, order + 1, its[0], its[1],
      its[0] ? 100.0 * (its[0] - its[1]) / its[0] : 0.0, tit[0] * 1e3, tit[1] * 1e3, top * 1e3, tpc * 1e3);
  pds_problem_destroy(&p);
}

} // namespace

int main(int argc, char **argv) {
  const BenchFlags f = bench_args(argc, argv,
                                  "bench_sem [-json FILE] [-budget_s S] [-quick] [-no_cpu] [-reps N] [-shared DIR]",
                                  [](const std::string &o, const char *next) {
                                    if (next && o == "-shared") return g_shared = next, 2;
                                    return 0;
                                  });

  g_quick = f.quick, g_no_cpu = f.no_cpu, g_reps = f.reps, g_deadline = f.deadline;
  bench_start(&g_gpu, &g_omp, &g_ref);
  g_copy_bw = measure_copy(g_quick);
  check();
  LOG("check done");
  ops();
  LOG("operator done");
  diags();
  LOG("diagonal done");
  tab("\nPCG (paper 003 Section 4.1): CG on the sem problem (affine), rtol 1e-14, without and with semjacobi; ms per "
      "iteration, and one operator application and one preconditioner application on their own");
  tab("| elements | N | its (none) | its (semjacobi) | fewer | ms/it (none) | ms/it (semjacobi) | A x ms | M^-1 r ms |");
  tab("|---|---|---|---|---|---|---|---|---|");
  if (left_s() > 60) pcg_case(g_quick ? 8 : 16, 9);
  if (!g_quick && left_s() > 120) pcg_case(32, 9);
  printf("%s\n", g_table.c_str());
  pds_ctx_destroy(&g_gpu), pds_ctx_destroy(&g_omp), pds_ctx_destroy(&g_ref);
  if (g_json != stdout) fclose(g_json);
  return 0;
}
