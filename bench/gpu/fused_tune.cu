// bench/gpu/fused_tune.cu: what the Krylov methods' fused kernels cost beyond the plain ones at large sizes (issue 9
// §1: CG on poisson7 256^3 within 1.1x of its floor), measured by variants in one run beside the library's own calls:
//   - the stream CSR product fused with (y, w) (csr_stream_k in src/backend/cuda/cuda_csr.cu; w = x as in CG's
//     q = A p with (p, q)) against the plain product. Variants: the load of w_i (before the tile, the library; after
//     the row's sum through the read-only path; none: (y, y)); the end of each block's reduction (below); each
//     thread's running dot in a register pair (the kernel before session 21) or in shared memory (the library since:
//     the kernel is held to 32 registers for eight CTAs an SM, and two more live registers made ptxas issue the
//     tile's loads in smaller batches); a minimum of 5 or 6 CTAs an SM (more registers, fewer CTAs); the plain
//     product's grid (stream_blocks' strided chunks, or a CTA per chunk: the library since session 21); the L2's
//     treatment of x and y (y stored evict-first; x's lines persisting in L2 through an access-policy window on the
//     launch, as much of x as the set-aside holds: does keeping x recover, for the fused kernel's strided grid, the
//     reuse a CTA per chunk has? added at the end of session 21, not yet run on a GPU);
//     and, measured and dropped (session 21, H200; their code is in commits 09c9361 and 18d5016):
//     32-bit offsets within the tile (4% faster plain product at 128^3, but the fused kernel became 20% slower:
//     ptxas' batching again), the tile staged in shared memory by cp.async (20-25% slower: the copies' wait is
//     exposed), the values alone by 8-byte cp.async into the product slots with the column indices and x through
//     registers (plain 454 against 439 us at 256^3, fused 582 against 482), and cg_r with a blocked partition
//     (other bits; 3% faster at 256^3, 8% slower at 128^3);
//   - CG's r -= a q with (r, r) (cg_r_k in cuda_vec.cu).
// The end of a block's reduction (cuda_reduce.cuh, grid_red): thread 0 stores the block's partial, orders it before
// the counter's increment, and the block that finds itself last combines the partials. Variants of that ordering:
//   red 0: __threadfence() (membar.gl, a sequentially consistent fence) + atomicAdd: the library's grid_red itself;
//   red 1: one atom.add.release.gpu (orders only what thread 0 wrote before it);
//   red 2: fence.acq_rel.gpu + atomicAdd;
//   red 3: no counter: each block stores its partial and ends, a one-block kernel combines them (two launches).
//   (none of them changed a kernel's time by more than 1%: the end of the reduction is not where the time goes.)
// Every variant computes the same partials in the same order as the library, so each must give the library's bits
// (y and the dot); the run checks that first and stops if one differs. Byte models (what GB/s counts): the product
// 12 nnz + 8 (n + 1) + 8 n (x) + 8 n (y), the fused product the same (w = x is counted once, as bench_gpu's CG
// floor does); cg_r 24 n. Times: for each size, rounds of every variant in turn (median of reps after a warm-up,
// CUDA events), then the median over rounds; the copy bandwidth (cudaMemcpy D2D of 2^26 doubles) in the same run.
// Usage: fused_tune [-sizes 128,256] [-rounds R] [-reps N]
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "pdesolve.h"
#include "backend/cuda/cuda_csr_rows.cuh"
#include "backend/cuda/cuda_loops.cuh"
#include "gpu_bench_util.cuh"

#define PK(call)                                                                                        \
  do {                                                                                                  \
    int e_ = (call);                                                                                    \
    if (e_) {                                                                                           \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, pds_error_name(e_));                \
      exit(2);                                                                                          \
    }                                                                                                   \
  } while (0)

// ---- the end of a block's reduction, by variant (red 0 is the library's grid_red) -------------------------------
__device__ __forceinline__ unsigned atom_add_release(unsigned *p, unsigned v) {
  unsigned r;
  asm volatile("atom.add.release.gpu.global.u32 %0, [%1], %2;" : "=r"(r) : "l"(p), "r"(v) : "memory");
  return r;
}
__device__ __forceinline__ void fence_acq_rel() { asm volatile("fence.acq_rel.gpu;" ::: "memory"); }

// grid_red's second pass (the partials of every block, in its fixed order), for red 3's combining kernel and red 1-2
template <int NOUT>
__device__ __forceinline__ void red_second(double (&v)[NOUT], const double *partial, unsigned G, double *out,
                                           double (*sh)[RT / 32]) {
#pragma unroll
  for (int o = 0; o < NOUT; o++) {
    const double *p = partial + o * PDS_CUDA_RED_MAXBLOCK;
    double        a = 0.0;
    unsigned      b = threadIdx.x;

    for (; b + 7 * RT < G; b += 8 * RT) {
      double q[8];
#pragma unroll
      for (int u = 0; u < 8; u++) q[u] = __ldcg(&p[b + u * RT]);
#pragma unroll
      for (int u = 0; u < 8; u++) a = a + q[u];
    }
    for (; b < G; b += RT) a = a + __ldcg(&p[b]);
    v[o] = a;
  }
  block_red<NOUT, SumOp>(v, sh);
  if (threadIdx.x == 0)
#pragma unroll
    for (int o = 0; o < NOUT; o++) out[o] = v[o];
}

template <int NOUT, int RED>
__device__ __forceinline__ void red_end(double (&v)[NOUT], const pds_cuda_red &red, double *out) {
  if (RED == 0) {
    grid_red<NOUT, SumOp>(v, red, out);
    return;
  }
  __shared__ double sh[NOUT][RT / 32];
  __shared__ bool   last;

  block_red<NOUT, SumOp>(v, sh);
  if (RED == 3) { // partials only (gridDim.x > 1 here: the sizes of this bench)
    if (threadIdx.x == 0)
#pragma unroll
      for (int o = 0; o < NOUT; o++) red.partial[o * PDS_CUDA_RED_MAXBLOCK + blockIdx.x] = v[o];
    return;
  }
  if (threadIdx.x == 0) {
#pragma unroll
    for (int o = 0; o < NOUT; o++) red.partial[o * PDS_CUDA_RED_MAXBLOCK + blockIdx.x] = v[o];
    unsigned prev;
    if (RED == 1) prev = atom_add_release(red.counter, 1u);
    else {
      fence_acq_rel();
      prev = atomicAdd(red.counter, 1u);
    }
    last = prev == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
  __syncthreads();
  red_second<NOUT>(v, red.partial, gridDim.x, out, sh);
  if (threadIdx.x == 0) *red.counter = 0;
}

__global__ void __launch_bounds__(RT) red_finish_k(pds_cuda_red red, unsigned G, double *out) {
  __shared__ double sh[1][RT / 32];
  double            v[1];

  red_second<1>(v, red.partial, G, out, sh);
}

// ---- the stream product (csr_stream_k's loop: beta = 0, no transpose, T = double) --------------------------------
// W: 0 no dot (the plain product); 1 w_i loaded before the tile (the library); 2 w_i loaded after the row's sum,
// through the read-only path (x's gather of the diagonal has just brought it to L1); 3 before, read-only path;
// 4 (y, y): no w load at all. YCS: y stored with the evict-first hint (__stcs), so that the L2 keeps x rather than y.
// SACC: each thread's running sum in shared memory instead of a register pair (the
// same operations in the same order), so that the tile's loads keep the registers the plain product has.
template <int W, int RED, bool SACC, bool YCS = false>
__device__ __forceinline__ void stream_body(pds_int nrows, const pds_size *__restrict__ rp,
                                            const pds_int *__restrict__ ci, const double *__restrict__ v,
                                            const double *__restrict__ x, double *y, const double *__restrict__ w1,
                                            const pds_cuda_red &red, double *out) {
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
      if (W == 3) wi = __ldg(&w1[i]);
    }
    const double s = stream_rows<double, false, false>(base, end, my0, my1, ci, v, NULL, x, prod);
    if (i < r1) {
      const double yi = __dmul_rn(1.0, s);

      if (YCS) __stcs(&y[i], yi);
      else y[i] = yi;
      if (W == 2) wi = __ldg(&w1[i]);
      if (W == 4) wi = yi;
      if (W > 0) {
        if (SACC) sacc[threadIdx.x] += yi * wi;
        else acc[0] += yi * wi;
      }
    }
  }
  if (SACC) acc[0] = sacc[threadIdx.x];
  if (W > 0) red_end<1, RED>(acc, red, out);
}

#define STREAM_ARGS                                                                                             \
  pds_int nrows, const pds_size *__restrict__ rp, const pds_int *__restrict__ ci, const double *__restrict__ v, \
      const double *__restrict__ x, double *y, const double *__restrict__ w1, pds_cuda_red red, double *out
template <int W, int RED, bool SACC = false, bool YCS = false>
__global__ void __launch_bounds__(ST_T) stream_k(STREAM_ARGS) {
  stream_body<W, RED, SACC, YCS>(nrows, rp, ci, v, x, y, w1, red, out);
}
// the same with a minimum of MINB blocks an SM (ptxas then may use 65536 / (256 MINB) registers a thread)
template <int W, int RED, int MINB, bool SACC = false>
__global__ void __launch_bounds__(ST_T, MINB) stream_lb_k(STREAM_ARGS) {
  stream_body<W, RED, SACC>(nrows, rp, ci, v, x, y, w1, red, out);
}

// ---- cg_r_k's loop (a = 1 / 4 here) ------------------------------------------------------------------------------
template <int RED>
__global__ void __launch_bounds__(RT) cgr_k(pds_size n, double a, const double *__restrict__ q,
                                             double *__restrict__ r, pds_cuda_red red, double *out) {
  double v[1] = {0.0};

  RED_FOR(n, { double ri = -a * q[i] + 1.0 * r[i]; r[i] = ri; v[0] += ri * ri; });
  red_end<1, RED>(v, red, out);
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
  at[0].id                                   = cudaLaunchAttributeAccessPolicyWindow;
  at[0].val.accessPolicyWindow.base_ptr      = const_cast<void *>(base);
  at[0].val.accessPolicyWindow.num_bytes     = bytes;
  at[0].val.accessPolicyWindow.hitRatio      = hit;
  at[0].val.accessPolicyWindow.hitProp       = cudaAccessPropertyPersisting;
  at[0].val.accessPolicyWindow.missProp      = cudaAccessPropertyStreaming;
  cfg.attrs = at, cfg.numAttrs = 1;
  CK(cudaLaunchKernelEx(&cfg, kernel, ((KArgs)args)...));
}

// -------------------------------------------------------------------------------------------------------------------
struct Var {
  std::string         name;
  double              bytes;
  std::function<void()> run;
  std::vector<double> t;
  bool                check; // its y / dot are compared with the library's
  std::function<void()> after; // run after the variant's check and after each of its timings (may be empty)
};

static std::vector<double> d2h(const double *d, size_t n) {
  std::vector<double> h(n);
  CK(cudaMemcpy(h.data(), d, n * sizeof(double), cudaMemcpyDeviceToHost));
  return h;
}

int main(int argc, char **argv) {
  std::vector<int> sizes = {128, 256};
  int              rounds = 7, reps = 20;

  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-sizes") && i + 1 < argc) {
      sizes.clear();
      for (char *t = strtok(argv[++i], ","); t; t = strtok(NULL, ",")) sizes.push_back(atoi(t));
    } else if (!strcmp(argv[i], "-rounds") && i + 1 < argc) rounds = atoi(argv[++i]);
    else if (!strcmp(argv[i], "-reps") && i + 1 < argc) reps = atoi(argv[++i]);
    else {
      fprintf(stderr, "usage: fused_tune [-sizes 128,256] [-rounds R] [-reps N]\n");
      return 1;
    }
  }
  int ndev = 0;
  if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
    printf("fused_tune: no CUDA device here; nothing measured\n");
    return 0;
  }
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  printf("device: %s, %d SMs, %.0f MB L2\n", prop.name, prop.multiProcessorCount, prop.l2CacheSize / 1e6);
  if (prop.persistingL2CacheMaxSize > 0) // the set-aside for the variants with x persisting (no effect on the others)
    CK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, (size_t)prop.persistingL2CacheMaxSize));
  printf("L2 set-aside for persisting accesses: %.1f MB, largest access-policy window %.1f MB\n",
         prop.persistingL2CacheMaxSize / 1e6, prop.accessPolicyMaxWindowSize / 1e6);

  // the copy bandwidth of this run
  const size_t nc = (size_t)1 << 26;
  double      *ca, *cb;
  CK(cudaMalloc(&ca, nc * 8));
  CK(cudaMalloc(&cb, nc * 8));
  dev_fill(ca, (long long)nc, 1);
  const double tcopy = gpu_event_median([&] { CK(cudaMemcpy(cb, ca, nc * 8, cudaMemcpyDeviceToDevice)); }, 3, 20);
  const double bw    = 16.0 * nc / tcopy;
  printf("copy bandwidth (cudaMemcpy D2D, 2^26 doubles): %.1f GB/s\n", bw / 1e9);
  CK(cudaFree(ca));
  CK(cudaFree(cb));

  pds_ctx ctx;
  PK(pds_ctx_create("/gpu/cuda", &ctx));
  pds_cuda_red red;
  CK(cudaMalloc(&red.partial, (size_t)PDS_CUDA_RED_MAXOUT * PDS_CUDA_RED_MAXBLOCK * sizeof(double)));
  CK(cudaMalloc(&red.counter, sizeof(unsigned)));
  CK(cudaMemset(red.counter, 0, sizeof(unsigned)));
  double *dout;
  CK(cudaMalloc(&dout, 8 * sizeof(double)));

  struct Res {
    int         m;
    std::string name;
    double      t, gbs;
  };
  std::vector<Res> res;
  int              bad = 0;

  for (int m : sizes) {
    pds_problem p;
    pds_int     dims[3] = {m, m, m};
    PK(pds_problem_generate(ctx, "poisson7", dims, 3, &p));
    CsrDev d = csr_upload(p.A);
    const pds_int n = d.n;
    pds_vec       x, y, S;
    PK(pds_vec_create(ctx, n, &x));
    PK(pds_vec_create(ctx, n, &y));
    PK(pds_vec_create(ctx, 4, &S));
    PK(pds_vec_set_random(x, 3));
    const pds_real *xd;
    pds_real       *yd, *yref, *ybuf, *q, *r, *r0;
    PK(pds_vec_get_array_read(x, PDS_MEM_DEVICE, &xd));
    CK(cudaMalloc(&ybuf, (size_t)n * 8));
    CK(cudaMalloc(&yref, (size_t)n * 8));
    CK(cudaMalloc(&q, (size_t)n * 8));
    CK(cudaMalloc(&r, (size_t)n * 8));
    CK(cudaMalloc(&r0, (size_t)n * 8));
    dev_fill(q, n, 5);
    dev_fill(r0, n, 7);

    // the library's fused call: the reference bits
    PK(pds_vec_fused_apply_dot(p.A, x, y, x, NULL, S, 0));
    double dref;
    {
      std::vector<double> s4(4);
      PK(pds_vec_get_values(S, s4.data(), PDS_MEM_HOST));
      dref = s4[0];
    }
    PK(pds_vec_get_array_write(y, PDS_MEM_DEVICE, &yd));
    CK(cudaMemcpy(yref, yd, (size_t)n * 8, cudaMemcpyDeviceToDevice));
    PK(pds_vec_restore_array_write(y, &yd));

    const unsigned G = stream_blocks(n), Gr = PDS_CUDA_RED_BLOCKS(n), Gc = (unsigned)((n + ST_T - 1) / ST_T);
    const double   pbytes = 12.0 * d.nnz + 8.0 * (n + 1) + 16.0 * n, rbytes = 24.0 * n;
    std::vector<Var> vs;
    auto add = [&](const char *name, double bytes, bool check, std::function<void()> f) {
      vs.push_back({name, bytes, f, {}, check, {}});
    };
    add("lib: pds_mat_apply", pbytes, false, [&] { PK(pds_mat_apply(p.A, x, y)); });
    add("lib: fused_apply_dot (y, x)", pbytes, false, [&] { PK(pds_vec_fused_apply_dot(p.A, x, y, x, NULL, S, 0)); });
    add("plain, strided grid (before s21)", pbytes, true,
        [&] { stream_k<0, 0><<<G, ST_T>>>(n, d.rp64, d.ci, d.v, xd, ybuf, xd, red, dout); });
    add("plain, a block per chunk (library)", pbytes, true,
        [&] { stream_k<0, 0><<<Gc, ST_T>>>(n, d.rp64, d.ci, d.v, xd, ybuf, xd, red, dout); });
#define FV(W, R, nm)                                                                                            \
  add(nm, pbytes, true, [&] {                                                                                   \
    stream_k<W, R><<<G, ST_T>>>(n, d.rp64, d.ci, d.v, xd, ybuf, xd, red, dout);                                 \
    if (R == 3) red_finish_k<<<1, RT>>>(red, G, dout);                                                          \
  })
    FV(1, 0, "fused: acc in registers (before s21)");
    FV(2, 0, "fused: w late ldg, red 0");
    FV(3, 0, "fused: w early ldg, red 0");
    FV(4, 0, "fused: (y,y) no w, red 0");
    FV(1, 1, "fused: w early, red 1 release");
    FV(1, 2, "fused: w early, red 2 acq_rel fence");
    FV(1, 3, "fused: w early, red 3 2 kernels");
    FV(2, 1, "fused: w late ldg, red 1 release");
    add("fused: w late ldg, acc in smem", pbytes, true,
        [&] { stream_k<2, 0, true><<<G, ST_T>>>(n, d.rp64, d.ci, d.v, xd, ybuf, xd, red, dout); });
    add("fused: acc in smem (library)", pbytes, true,
        [&] { stream_k<1, 0, true><<<G, ST_T>>>(n, d.rp64, d.ci, d.v, xd, ybuf, xd, red, dout); });
    add("fused: (y,y), acc in smem", pbytes, true,
        [&] { stream_k<4, 0, true><<<G, ST_T>>>(n, d.rp64, d.ci, d.v, xd, ybuf, xd, red, dout); });
    // L2 policy: y stored evict-first, and x's lines persisting in L2 (as much of x as the set-aside holds)
    add("fused: acc smem, y evict-first store", pbytes, true,
        [&] { stream_k<1, 0, true, true><<<G, ST_T>>>(n, d.rp64, d.ci, d.v, xd, ybuf, xd, red, dout); });
    {
      const size_t xb  = std::min((size_t)n * 8, (size_t)prop.accessPolicyMaxWindowSize);
      const float  hit = (float)std::min(1.0, (double)prop.persistingL2CacheMaxSize / (double)xb);
      auto         reset = [] { CK(cudaCtxResetPersistingL2Cache()); };

      if (prop.persistingL2CacheMaxSize > 0 && xb > 0) {
        add("fused: acc smem, x persisting in L2", pbytes, true,
            [&, xb, hit] { launch_win(stream_k<1, 0, true>, G, xd, xb, hit, n, d.rp64, d.ci, d.v, xd, ybuf, xd, red, dout); });
        vs.back().after = reset;
        add("fused: acc smem, x persisting, y evict-first", pbytes, true, [&, xb, hit] {
          launch_win(stream_k<1, 0, true, true>, G, xd, xb, hit, n, d.rp64, d.ci, d.v, xd, ybuf, xd, red, dout);
        });
        vs.back().after = reset;
        add("plain, strided grid, x persisting in L2", pbytes, true,
            [&, xb, hit] { launch_win(stream_k<0, 0>, G, xd, xb, hit, n, d.rp64, d.ci, d.v, xd, ybuf, xd, red, dout); });
        vs.back().after = reset;
        add("plain, a block per chunk, x persisting", pbytes, true,
            [&, xb, hit] { launch_win(stream_k<0, 0>, Gc, xd, xb, hit, n, d.rp64, d.ci, d.v, xd, ybuf, xd, red, dout); });
        vs.back().after = reset;
      }
    }
    add("plain, min 6 blocks/SM", pbytes, true,
        [&] { stream_lb_k<0, 0, 6><<<G, ST_T>>>(n, d.rp64, d.ci, d.v, xd, ybuf, xd, red, dout); });
    add("plain, min 5 blocks/SM", pbytes, true,
        [&] { stream_lb_k<0, 0, 5><<<G, ST_T>>>(n, d.rp64, d.ci, d.v, xd, ybuf, xd, red, dout); });
    add("fused: w early, min 6 blocks/SM", pbytes, true,
        [&] { stream_lb_k<1, 0, 6><<<G, ST_T>>>(n, d.rp64, d.ci, d.v, xd, ybuf, xd, red, dout); });
    add("fused: w early, min 5 blocks/SM", pbytes, true,
        [&] { stream_lb_k<1, 0, 5><<<G, ST_T>>>(n, d.rp64, d.ci, d.v, xd, ybuf, xd, red, dout); });
    add("fused: w late, acc smem, min 6/SM", pbytes, true,
        [&] { stream_lb_k<2, 0, 6, true><<<G, ST_T>>>(n, d.rp64, d.ci, d.v, xd, ybuf, xd, red, dout); });
#define RV(R, nm)                                                                                               \
  add(nm, rbytes, false, [&] {                                                                                  \
    cgr_k<R><<<Gr, RT>>>((pds_size)n, 0.25, q, r, red, dout);                                                   \
    if (R == 3) red_finish_k<<<1, RT>>>(red, Gr, dout);                                                         \
  })
    RV(0, "cg_r: red 0 (lib)");
    RV(1, "cg_r: red 1 release");
    RV(2, "cg_r: red 2 acq_rel fence");
    RV(3, "cg_r: red 3 2 kernels");

    // check: each product variant's y and dot against the library's bits; cg_r's r and (r, r) against red 0's
    for (auto &v : vs) {
      if (!v.check) continue;
      CK(cudaMemset(ybuf, 0xff, (size_t)n * 8));
      v.run();
      CK(cudaDeviceSynchronize());
      if (v.after) v.after();
      const bool dot = v.name.rfind("fused", 0) == 0 && v.name.find("(y,y)") == std::string::npos;
      double     dv;
      CK(cudaMemcpy(&dv, dout, 8, cudaMemcpyDeviceToHost));
      const bool yok = d2h(ybuf, n) == d2h(yref, n), dok = !dot || memcmp(&dv, &dref, 8) == 0;
      if (!yok || !dok) {
        printf("CHECK FAILED m=%d %s: y %s, dot %.17g vs %.17g\n", m, v.name.c_str(), yok ? "same" : "DIFFERS", dv,
               dref);
        bad++;
      }
    }
    {
      std::vector<double> rr[4], dd(4);
      for (int R = 0; R < 4; R++) {
        CK(cudaMemcpy(r, r0, (size_t)n * 8, cudaMemcpyDeviceToDevice));
        vs[vs.size() - 4 + R].run();
        CK(cudaDeviceSynchronize());
        rr[R] = d2h(r, n);
        CK(cudaMemcpy(&dd[R], dout, 8, cudaMemcpyDeviceToHost));
        if (R > 0 && (rr[R] != rr[0] || memcmp(&dd[R], &dd[0], 8))) {
          printf("CHECK FAILED m=%d cg_r red %d: r %s, (r,r) %.17g vs %.17g\n", m, R,
                 rr[R] == rr[0] ? "same" : "DIFFERS", dd[R], dd[0]);
          bad++;
        }
      }
    }
    if (bad) {
      printf("fused_tune: %d checks failed; no timings\n", bad);
      return 1;
    }
    printf("m=%d: every variant gives the library's bits (y, dot; cg_r's r and (r, r))\n", m);
    for (int k = 0; k < rounds; k++)
      for (auto &v : vs) {
        v.t.push_back(gpu_event_median(v.run, 3, reps));
        if (v.after) v.after();
      }
    for (auto &v : vs) {
      const double t = median(v.t);
      res.push_back({m, v.name, t, v.bytes / t / 1e9});
    }
    PK(pds_vec_restore_array_read(x, &xd));
    PK(pds_vec_destroy(&x));
    PK(pds_vec_destroy(&y));
    PK(pds_vec_destroy(&S));
    CK(cudaFree(ybuf));
    CK(cudaFree(yref));
    CK(cudaFree(q));
    CK(cudaFree(r));
    CK(cudaFree(r0));
    csr_free(d);
    PK(pds_problem_destroy(&p));
  }
  printf("\n%-6s %-40s %10s %9s %7s\n", "m^3", "variant", "t (us)", "GB/s", "of copy");
  for (auto &r : res)
    printf("%-6d %-40s %10.1f %9.1f %6.1f%%\n", r.m, r.name.c_str(), 1e6 * r.t, r.gbs, 100.0 * r.gbs * 1e9 / bw);
  PK(pds_ctx_destroy(&ctx));
  return 0;
}
