// bench/gpu/fused_tune.cu: what the product fused with a Krylov dot costs beyond the plain product at large sizes
// (issue 9 §1: CG on poisson7 256^3 within 1.1x of its floor), measured by variants in one run beside the library's
// own calls: the stream CSR product fused with (y, w) (csr_stream_k in src/backend/cuda/cuda_csr.cu; w = x as in
// CG's q = A p with (p, q)) and the plain product, each as the library had it before session 21 and as it has it
// since (the fused kernel's running dot in a register pair or in shared memory: the kernel is held to 32 registers for
// eight CTAs an SM, and two more live registers made ptxas issue the tile's loads in smaller batches; the plain
// product's grid, stream_blocks' strided chunks or a CTA per chunk), and y stored evict-first.
// -l2 adds x's lines persisting in L2 through an access-policy window on the launch (as much of x as the set-aside
// holds), and with it the device's L2 set-aside for persisting accesses (cudaLimitPersistingL2CacheSize, the most the
// device allows), the copy bandwidth measured before and after it is set. Session 22 ran those variants (two H200s,
// the set-aside set before everything, as the bench then did): the copy bandwidth measured 1375-1382 GB/s in that
// process against 3975-4218 in the other benchmarks of the same calls, and the library's plain product at 256^3 took
// 793-802 us against its usual 441: the set-aside, not a variant, slowed everything in the process, so those numbers
// say nothing of the variants, and no library could set it (a device-wide limit) anyway. -l2 measures that effect.
// Measured in session 21 on an H200 and dropped from the bench (docs/dev.md has the numbers; the code is in commit
// 32ce0ac, and the two first in 09c9361 and 18d5016): 32-bit offsets within the tile, the tile or the values alone
// staged by cp.async, w_i loaded late or through the read-only path or not at all, four endings of the block's
// reduction, 5 or 6 CTAs an SM, and CG's r update with each reduction ending and with a blocked partition.
// Every variant computes the library's products and partials in the library's order, so each must give the library's
// bits (y and the dot); the run checks that first and stops if one differs. Byte model (what GB/s counts), the plain
// and the fused product alike: 12 nnz + 8 (n + 1) + 8 n (x) + 8 n (y) (w = x is counted once, as bench_gpu's CG floor
// does). Times: for each size, rounds of every variant in turn (median of -reps after a warm-up, CUDA events), then
// the median over rounds; the copy bandwidth in the same run (measure_copy). One JSON line per variant and size
// ("variant": name, m, time_s, gbs, frac_copy), then the table.
// Usage: fused_tune [-sizes 128,256] [-rounds R] [-reps N] [-json FILE] [-quick: 128^3 only] [-l2]; alone on a GPU machine:
// GPU_CHECK_SKIP_TESTS=1 GPU_CHECK_BENCHES=fused bench/gpu-check.sh. The batching of the tile's loads shows in the
// SASS (cuobjdump -sass build-gpu/bench/fused_tune: the LDG before the first DMUL of a stream kernel's tile loop).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "backend/cuda/cuda_csr_rows.cuh"
#include "backend/cuda/cuda_reduce.cuh"
#include "gpu_bench_util.cuh"
#include "bench_log.cuh"
#define BENCH_NAME "fused_tune"
#include "bench_json.cuh"

// ---- the stream product (csr_stream_k's loop: beta = 0, no transpose, T = double) --------------------------------
// W: 0 the plain product; 1 with (y, w1), w1_i loaded before the tile (as the library). SACC: each thread's running
// sum in shared memory instead of a register pair (the same operations in the same order). YCS: y stored with the
// evict-first hint (__stcs), so that the L2 keeps x rather than y.
template <int W, bool SACC = false, bool YCS = false>
__global__ void __launch_bounds__(ST_T) stream_k(pds_int nrows, const pds_size *__restrict__ rp,
                                                  const pds_int *__restrict__ ci, const double *__restrict__ v,
                                                  const double *__restrict__ x, double *y,
                                                  const double *__restrict__ w1, pds_cuda_red red, double *out) {
  __shared__ double prod[ST_NNZ];
  __shared__ double sacc[SACC ? ST_T : 1];
  double            acc[1] = {0.0};

  if (SACC) sacc[threadIdx.x] = 0.0;
  for (pds_size r0 = (pds_size)blockIdx.x * ST_T; r0 < (pds_size)nrows; r0 += (pds_size)gridDim.x * ST_T) {
    const pds_size r1 = r0 + ST_T < (pds_size)nrows ? r0 + ST_T : (pds_size)nrows, i = r0 + threadIdx.x;
    const pds_size base = rp[r0], end = rp[r1];
    pds_size       my0 = 0, my1 = 0;
    double         wi = 0;

    if (i < r1) {
      my0 = rp[i], my1 = rp[i + 1];
      if (W == 1) wi = w1[i];
    }
    const double s = stream_rows<double, false, false>(base, end, my0, my1, ci, v, NULL, x, prod);
    if (i < r1) {
      const double yi = __dmul_rn(1.0, s);

      if (YCS) __stcs(&y[i], yi);
      else y[i] = yi;
      if (W == 1) {
        if (SACC) sacc[threadIdx.x] += yi * wi;
        else acc[0] += yi * wi;
      }
    }
  }
  if (SACC) acc[0] = sacc[threadIdx.x];
  if (W == 1) grid_red<1, SumOp>(acc, red, out);
}

// A launch whose accesses to [base, base + bytes) are marked persisting in L2 (a fraction hit of its lines, the rest
// streaming): x stays in the L2's set-aside part while the matrix streams past, whatever order the chunks run in.
// The caller resets the persisting lines afterwards (cudaCtxResetPersistingL2Cache), so other variants start clean.
template <typename... KArgs, typename... Args>
static void launch_win(void (*kernel)(KArgs...), unsigned grid, const void *base, size_t bytes, float hit,
                       Args... args) {
  cudaLaunchConfig_t  cfg = {};
  cudaLaunchAttribute at[1];

  cfg.gridDim = grid, cfg.blockDim = ST_T, cfg.stream = 0;
  at[0].id                               = cudaLaunchAttributeAccessPolicyWindow;
  at[0].val.accessPolicyWindow.base_ptr  = const_cast<void *>(base);
  at[0].val.accessPolicyWindow.num_bytes = bytes;
  at[0].val.accessPolicyWindow.hitRatio  = hit;
  at[0].val.accessPolicyWindow.hitProp   = cudaAccessPropertyPersisting;
  at[0].val.accessPolicyWindow.missProp  = cudaAccessPropertyStreaming;
  cfg.attrs = at, cfg.numAttrs = 1;
  CK(cudaLaunchKernelEx(&cfg, kernel, ((KArgs)args)...));
}

// -------------------------------------------------------------------------------------------------------------------
struct Var {
  std::string           name;
  bool                  dot;   // its dot is compared with the library's too (y always)
  std::function<void()> run;
  std::function<void()> after; // run after the variant's check and after each of its timings (may be empty)
  std::vector<double>   t;
};

static std::vector<double> d2h(const double *d, size_t n) {
  std::vector<double> h(n);
  CK(cudaMemcpy(h.data(), d, n * sizeof(double), cudaMemcpyDeviceToHost));
  return h;
}

int main(int argc, char **argv) {
  std::vector<int> sizes = {128, 256};
  int              rounds = 7;
  bool             l2     = false;
  const BenchFlags f = bench_args(argc, argv, "fused_tune [-sizes 128,256] [-rounds R] [-reps N] [-json FILE] [-quick] [-l2]",
                                  [&](const std::string &o, const char *next) {
                                    if (o == "-l2") return l2 = true, 1;
                                    if (next && o == "-sizes") {
                                      std::string l = next;
                                      sizes.clear();
                                      for (size_t a = 0, b; a <= l.size(); a = b + 1) {
                                        b = l.find(',', a);
                                        if (b == std::string::npos) b = l.size();
                                        sizes.push_back((int)parse_long("-sizes", l.substr(a, b - a).c_str()));
                                      }
                                      return 2;
                                    }
                                    if (next && o == "-rounds") return rounds = (int)parse_long("-rounds", next), 2;
                                    return 0;
                                  });
  int ndev = 0;
  if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
    printf("fused_tune: no CUDA device here; nothing measured\n");
    return 0;
  }
  if (f.quick) sizes = {128};
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  snprintf(g_gpu_name, sizeof g_gpu_name, "%s", prop.name);
  tab("fused_tune on %s, %d SMs, %.0f MB L2; L2 set-aside for persisting accesses %.1f MB, largest access-policy "
      "window %.1f MB", prop.name, prop.multiProcessorCount, prop.l2CacheSize / 1e6,
      prop.persistingL2CacheMaxSize / 1e6, prop.accessPolicyMaxWindowSize / 1e6);
  double bw = measure_copy(false);
  if (l2 && prop.persistingL2CacheMaxSize > 0) { // the set-aside for the variants with x persisting: what it costs
    CK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, (size_t)prop.persistingL2CacheMaxSize));
    const double bw2 = measure_copy(false);
    tab("copy bandwidth %.0f GB/s before the L2 set-aside of %.1f MB for persisting accesses, %.0f GB/s after (the "
        "table's fractions are of the latter)", 1e-9 * bw, prop.persistingL2CacheMaxSize / 1e6, 1e-9 * bw2);
    J("l2_setaside").num("bytes", (double)prop.persistingL2CacheMaxSize).num("copy_gbs_before", 1e-9 * bw)
        .num("copy_gbs_after", 1e-9 * bw2).emit();
    bw = bw2;
  } else
    l2 = false;

  pds_ctx ctx;
  PK(NULL, pds_ctx_create("/gpu/cuda", &ctx));
  pds_cuda_red red;
  CK(cudaMalloc(&red.partial, (size_t)PDS_CUDA_RED_MAXOUT * PDS_CUDA_RED_MAXBLOCK * sizeof(double)));
  CK(cudaMalloc(&red.counter, sizeof(unsigned)));
  CK(cudaMemset(red.counter, 0, sizeof(unsigned)));
  double *dout;
  CK(cudaMalloc(&dout, 8 * sizeof(double)));
  tab("\n| m^3 | variant | t (us) | GB/s | of copy |");
  tab("|---|---|---|---|---|");

  for (int m : sizes) {
    pds_problem p;
    pds_int     dims[3] = {m, m, m};
    PK(ctx, pds_problem_generate(ctx, "poisson7", dims, 3, &p));
    CsrDev          d = csr_upload(p.A);
    const pds_int   n = d.n;
    pds_vec         x, y, S;
    const pds_real *xd;
    pds_real       *ybuf;
    PK(ctx, pds_vec_create(ctx, n, &x));
    PK(ctx, pds_vec_create(ctx, n, &y));
    PK(ctx, pds_vec_create(ctx, 4, &S));
    PK(ctx, pds_vec_set_random(x, 3));
    PK(ctx, pds_vec_get_array_read(x, PDS_MEM_DEVICE, &xd));
    CK(cudaMalloc(&ybuf, (size_t)n * 8));

    // the library's fused call: the reference bits (y and the dot)
    PK(ctx, pds_vec_fused_apply_dot(p.A, x, y, x, NULL, S, 0));
    const std::vector<double> yref = host_values(y), sref = host_values(S);

    const unsigned G = stream_blocks(n), Gc = (unsigned)((n + ST_T - 1) / ST_T);
    const double   bytes = 12.0 * d.nnz + 8.0 * (n + 1) + 16.0 * n;
    const size_t   xb    = std::min((size_t)n * 8, (size_t)prop.accessPolicyMaxWindowSize);
    const float    hit   = xb ? (float)std::min(1.0, (double)prop.persistingL2CacheMaxSize / (double)xb) : 0.0f;
    const auto     reset = [] { CK(cudaCtxResetPersistingL2Cache()); };
    std::vector<Var> vs;
    // a variant: kernel k on grid g, with x persisting in L2 when win
    auto add = [&](const char *name, bool dot, void (*k)(pds_int, const pds_size *, const pds_int *, const double *,
                                                         const double *, double *, const double *, pds_cuda_red,
                                                         double *),
                   unsigned g, bool win) {
      if (win && !(l2 && xb > 0)) return; // without -l2, or no set-aside on this device
      vs.push_back({name, dot, [&, k, g, win] {
                      if (win) launch_win(k, g, xd, xb, hit, n, d.rp64, d.ci, d.v, xd, ybuf, xd, red, dout);
                      else k<<<g, ST_T>>>(n, d.rp64, d.ci, d.v, xd, ybuf, xd, red, dout);
                    },
                    win ? std::function<void()>(reset) : std::function<void()>(), {}});
    };
    vs.push_back({"lib: pds_mat_apply", false, [&] { PK(ctx, pds_mat_apply(p.A, x, y)); }, {}, {}});
    vs.push_back({"lib: fused_apply_dot (y, x)", false,
                  [&] { PK(ctx, pds_vec_fused_apply_dot(p.A, x, y, x, NULL, S, 0)); }, {}, {}});
    add("plain, strided grid (before s21)", false, stream_k<0>, G, false);
    add("plain, a block per chunk (library)", false, stream_k<0>, Gc, false);
    add("fused: acc in registers (before s21)", true, stream_k<1>, G, false);
    add("fused: acc in smem (library)", true, stream_k<1, true>, G, false);
    add("fused: acc smem, y evict-first store", true, stream_k<1, true, true>, G, false);
    add("fused: acc smem, x persisting in L2", true, stream_k<1, true>, G, true);
    add("fused: acc smem, x persisting, y evict-first", true, stream_k<1, true, true>, G, true);
    add("plain, strided grid, x persisting in L2", false, stream_k<0>, G, true);
    add("plain, a block per chunk, x persisting", false, stream_k<0>, Gc, true);

    // check: each own variant's y (and dot) against the library's bits
    for (size_t k = 2; k < vs.size(); k++) {
      Var &v = vs[k];
      CK(cudaMemset(ybuf, 0xff, (size_t)n * 8));
      v.run();
      CK(cudaDeviceSynchronize());
      if (v.after) v.after();
      double dv;
      CK(cudaMemcpy(&dv, dout, 8, cudaMemcpyDeviceToHost));
      const bool yok = d2h(ybuf, n) == yref, dok = !v.dot || memcmp(&dv, &sref[0], 8) == 0;
      if (!yok || !dok)
        fail("m=%d %s: y %s, dot %.17g vs %.17g", m, v.name.c_str(), yok ? "same" : "DIFFERS", dv, sref[0]);
    }
    LOG("m=%d: every variant gives the library's bits (y, dot)", m);
    for (int k = 0; k < rounds; k++)
      for (auto &v : vs) {
        v.t.push_back(gpu_event_median(v.run, 3, f.reps));
        if (v.after) v.after();
      }
    for (auto &v : vs) {
      const double t = median(v.t);
      J("variant").str("variant", v.name).num("m", m).num("time_s", t).num("gbs", bytes / t * 1e-9)
          .num("frac_copy", bytes / t / bw).emit();
      tab("| %d | %s | %.1f | %.1f | %.1f%% |", m, v.name.c_str(), 1e6 * t, bytes / t * 1e-9, 100.0 * bytes / t / bw);
    }
    PK(ctx, pds_vec_restore_array_read(x, &xd));
    PK(ctx, pds_vec_destroy(&x));
    PK(ctx, pds_vec_destroy(&y));
    PK(ctx, pds_vec_destroy(&S));
    CK(cudaFree(ybuf));
    csr_free(d);
    PK(ctx, pds_problem_destroy(&p));
  }
  printf("%s\n", g_table.c_str());
  CK(cudaFree(red.partial));
  CK(cudaFree(red.counter));
  CK(cudaFree(dout));
  PK(NULL, pds_ctx_destroy(&ctx));
  if (g_json != stdout) fclose(g_json);
  return 0;
}
