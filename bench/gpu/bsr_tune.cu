// bench/gpu/bsr_tune.cu: the BSR product kernels of /gpu/cuda (src/backend/cuda/cuda_bsr.cu), each kernel and block
// layout, against cuSPARSE bsrmv (row- and column-major blocks) on the same data in the same run; and a correctness
// sweep of every kernel and layout on irregular random BSR matrices against a CPU reference. bench/gpu/bsr-tune.sh
// runs it on a GPU machine.
//
//   bsr_tune [-check [-small]] [-perf] [-cases m:bs,...] [-reps N] [-json FILE]
//
// -perf (the default with -cases): the 7-point block pattern on m^3 cells (block row c couples to c, c+-1, c+-m,
// c+-m^2), random values; default cases 100^3 with bs = 2..8, 64^3 with bs = 2, 3, 8, 16^3 with bs = 4, 5, 6, and
// 100^3 with bs = 4, 5, 6 again (the run-to-run spread).
// Times are medians of 20 runs after 3 warm-up runs (CUDA events); every result is checked against cuSPARSE (relative
// difference <= 1e-12, output poisoned with NaN first). Byte model as bench_gpu: nnzb (8 bs^2 + 4) + 8 (nb + 1) +
// 16 n; %copy against the copy bandwidth measured at the start (the better of a copy kernel and cudaMemcpy, 2^26
// doubles, read + write). -check: bs = 1..8, block rows with 0 to 2000 blocks (past every kernel's stage), beta 0
// and not, misaligned vals and x, each result against a long-double reference; exits 1 on a failure.
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "pdesolve.h"
#include "backend/cuda/cuda_common.h"
#include "gpu_bench_util.cuh"

struct Kern {
  int         id;
  const char *name;
};
static const Kern g_kern[] = {{PDS_CUDA_BSR_AUTO, "auto (library rule)"}, {PDS_CUDA_BSR_VEC, "vec"},
                              {PDS_CUDA_BSR_PIPE, "pipe 128x2"}, {PDS_CUDA_BSR_PIPE_64, "pipe 64x2"},
                              {PDS_CUDA_BSR_LANE, "lane"}};
static const char *g_lay[3] = {"row", "col", "int"};
static int         g_reps = 20, g_warm = 3;
static FILE       *g_json;
static double      g_copy_bw;

template <class F> static double time_gpu(F f) { return gpu_event_median(f, g_warm, g_reps); }

static void host_relayout(const std::vector<double> &in, std::vector<double> &out, long long nnzb, int bs, int layout) {
  const int bb = bs * bs;

  out.resize(in.size());
  for (long long k = 0; k < nnzb; k++)
    for (int r = 0; r < bs; r++)
      for (int c = 0; c < bs; c++) {
        const double a = in[k * bb + r * bs + c];

        if (layout == PDS_CUDA_BSR_COL) out[k * bb + c * bs + r] = a;
        else if (layout == PDS_CUDA_BSR_INTERLEAVED) out[(long long)(r * bs + c) * nnzb + k] = a;
        else out[k * bb + r * bs + c] = a;
      }
}
static double max_rel_diff(const double *da, const double *db, long long n) {
  std::vector<double> a(n), b(n);
  double              m = 0, s = 0;

  CK(cudaMemcpy(a.data(), da, n * sizeof(double), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(b.data(), db, n * sizeof(double), cudaMemcpyDeviceToHost));
  for (long long i = 0; i < n; i++) {
    if (!std::isfinite(a[i])) return INFINITY;
    m = std::max(m, std::fabs(a[i] - b[i])), s = std::max(s, std::fabs(b[i]));
  }
  return s > 0 ? m / s : m;
}
// ---- perf ---------------------------------------------------------------------------------------------------------
struct Res {
  int         run, m, bs, kern, lay;
  double      t, gbs, frac, sp_row, sp_col;
};
static std::vector<Res> g_res;

static void perf_case(cusparseHandle_t sp, int run, int m, int bs) {
  const long long       nb = (long long)m * m * m, bb = (long long)bs * bs, n = nb * bs;
  std::vector<pds_size> rp;
  std::vector<pds_int>  ci;
  stencil7_pattern(m, rp, ci);
  const long long  nnzb  = rp[nb];
  const double     bytes = nnzb * (8.0 * bb + 4) + 8.0 * (nb + 1) + 16.0 * n;
  std::vector<int> rp32(nb + 1);

  for (long long i = 0; i <= nb; i++) rp32[i] = (int)rp[i];
  int      *drp32 = dev_copy(rp32.data(), nb + 1);
  pds_size *drp   = dev_copy(rp.data(), nb + 1);
  pds_int  *dci   = dev_copy(ci.data(), nnzb);
  double   *dv[3], *x, *yref, *ycol, *y;

  for (int l = 0; l < 3; l++) CK(cudaMalloc(&dv[l], nnzb * bb * 8));
  dev_fill(dv[0], nnzb * bb, 11);
  for (int l = 1; l < 3; l++) {
    relayout_k<<<(unsigned)((nnzb * bb + 255) / 256), 256>>>(nnzb, bs, l, dv[0], dv[l]);
    CK(cudaGetLastError());
  }
  CK(cudaMalloc(&x, n * 8));
  CK(cudaMalloc(&yref, n * 8));
  CK(cudaMalloc(&ycol, n * 8));
  CK(cudaMalloc(&y, n * 8));
  dev_fill(x, n, 3);
  cusparseMatDescr_t descr;
  CKS(cusparseCreateMatDescr(&descr));
  double one = 1, zero = 0, tsp[2];
  for (int dir = 0; dir < 2; dir++)
    tsp[dir] = time_gpu([&] {
      CKS(cusparseDbsrmv(sp, dir ? CUSPARSE_DIRECTION_COLUMN : CUSPARSE_DIRECTION_ROW, CUSPARSE_OPERATION_NON_TRANSPOSE,
                         (int)nb, (int)nb, (int)nnzb, &one, descr, dir ? dv[1] : dv[0], drp32, dci, bs, x, &zero,
                         dir ? ycol : yref));
    });
  double err = max_rel_diff(ycol, yref, n);
  if (err > 1e-12) fprintf(stderr, "cuSPARSE row and column differ by %g (m %d bs %d)\n", err, m, bs), exit(3);
  const double best = std::min(tsp[0], tsp[1]);
  printf("\n== %d^3 cells, bs %d: n %lld, nnzb %lld, %.1f MB moved; cuSPARSE bsrmv row %.1f us (%.1f%% copy), col %.1f us"
         " (%.1f%% copy)\n", m, bs, n, nnzb, bytes * 1e-6, 1e6 * tsp[0], 100 * bytes / tsp[0] / g_copy_bw, 1e6 * tsp[1],
         100 * bytes / tsp[1] / g_copy_bw);
  for (const Kern &K : g_kern)
    for (int l = 0; l < 3; l++) {
      CK(cudaMemset(y, 0xff, n * 8)); // NaN
      cudaError_t e = pds_cuda_bsr_spmv(0, l, K.id, (pds_int)nb, bs, nnzb, drp, dci, dv[l], 1.0, x, 0.0, y);
      if (e == cudaErrorNotSupported) {
        (void)cudaGetLastError();
        continue;
      }
      CK(e);
      CK(cudaDeviceSynchronize());
      err = max_rel_diff(y, yref, n);
      if (err > 1e-12) fprintf(stderr, "%s %s bs %d m %d: differs from cuSPARSE by %g\n", K.name, g_lay[l], bs, m, err), exit(3);
      const double t = time_gpu([&] { CK(pds_cuda_bsr_spmv(0, l, K.id, (pds_int)nb, bs, nnzb, drp, dci, dv[l], 1.0, x, 0.0, y)); });
      Res r = {run, m, bs, K.id, l, t, bytes / t * 1e-9, bytes / t / g_copy_bw, tsp[0], tsp[1]};
      g_res.push_back(r);
      printf("  %-22s %s %9.1f us %6.0f GB/s %5.1f%% copy  x%.2f best cuSPARSE (x%.2f row, x%.2f col)\n", K.name,
             g_lay[l], 1e6 * t, r.gbs, 100 * r.frac, best / t, tsp[0] / t, tsp[1] / t);
      if (g_json)
        fprintf(g_json,
                "{\"bench\":\"bsr_tune\",\"m\":%d,\"bs\":%d,\"n\":%lld,\"nnzb\":%lld,\"kernel\":\"%s\",\"layout\":\"%s\","
                "\"t_median_s\":%.6e,\"gbs\":%.1f,\"frac_copy_bw\":%.4f,\"cusparse_row_s\":%.6e,\"cusparse_col_s\":%.6e,"
                "\"ratio_best\":%.3f}\n",
                m, bs, n, nnzb, K.name, g_lay[l], t, r.gbs, r.frac, tsp[0], tsp[1], best / t);
    }
  fflush(stdout);
  CKS(cusparseDestroyMatDescr(descr));
  for (int l = 0; l < 3; l++) CK(cudaFree(dv[l]));
  CK(cudaFree(drp32));
  CK(cudaFree(drp));
  CK(cudaFree(dci));
  CK(cudaFree(x));
  CK(cudaFree(yref));
  CK(cudaFree(ycol));
  CK(cudaFree(y));
}

static void measure_copy() {
  const long long n = 1ll << 26;
  double         *a, *b;

  CK(cudaMalloc(&a, n * 8));
  CK(cudaMalloc(&b, n * 8));
  dev_fill(a, n, 1);
  dev_fill(b, n, 2);
  const double tk = time_gpu([&] { CK(pds_cuda_vec_copy(0, n, a, b)); });
  const double tm = time_gpu([&] { CK(cudaMemcpyAsync(b, a, n * 8, cudaMemcpyDeviceToDevice, 0)); });
  g_copy_bw       = 16.0 * n / std::min(tk, tm);
  printf("copy bandwidth %.0f GB/s (copy kernel %.1f us, cudaMemcpy %.1f us, 2^26 doubles)\n", g_copy_bw * 1e-9, 1e6 * tk,
         1e6 * tm);
  if (g_json) fprintf(g_json, "{\"bench\":\"bsr_tune\",\"copy_gbs\":%.1f}\n", g_copy_bw * 1e-9);
  CK(cudaFree(a));
  CK(cudaFree(b));
}

// ---- check --------------------------------------------------------------------------------------------------------
static unsigned long long g_rng = 12345;
static unsigned           rnd() {
  g_rng = g_rng * 6364136223846793005ull + 1442695040888963407ull;
  return (unsigned)(g_rng >> 33);
}
static double rndd() { return (double)rnd() / 2147483648.0 * 2.0 - 1.0; }

static int check_case(int bs, int nbr, int nbc, int shape) {
  const int             bb = bs * bs;
  std::vector<pds_size> rp(nbr + 1, 0);
  std::vector<pds_int>  ci;

  for (int i = 0; i < nbr; i++) {
    int len;
    const unsigned u = rnd() % 100;
    if (nbc == 0) len = 0;
    else if (u < 12) len = 0;                                     // empty block rows
    else if (shape == 1 && u < 15) len = 300 + (int)(rnd() % 1700); // long rows: several stages
    else len = 1 + (int)(rnd() % 12);
    if (len > nbc) len = nbc;
    std::vector<int> cols;
    for (int t = 0; t < len; t++) cols.push_back((int)(rnd() % nbc));
    std::sort(cols.begin(), cols.end());
    cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
    for (int c : cols) ci.push_back(c);
    rp[i + 1] = (pds_size)ci.size();
  }
  const long long     nnzb = rp[nbr];
  std::vector<double> v(nnzb * bb), x((size_t)nbc * bs), y0((size_t)nbr * bs);
  for (double &a : v) a = rndd();
  for (double &a : x) a = rndd();
  for (double &a : y0) a = rndd();
  int       fails = 0, runs = 0;
  pds_size *drp   = dev_copy(rp.data(), nbr + 1);
  pds_int  *dci   = dev_copy(ci.data(), nnzb);
  double   *dy    = dev_copy(y0.data(), y0.size(), 1), *dy2 = dev_copy(y0.data(), y0.size(), 1);

  for (int l = 0; l < 3; l++) {
    std::vector<double> vl;
    host_relayout(v, vl, nnzb, bs, l);
    for (int mis = 0; mis < 2; mis++) { // mis: vals and x 8 bytes off 16-byte alignment
      double *dv = dev_copy(vl.data(), vl.size(), mis), *dx = dev_copy(x.data(), x.size(), mis);
      for (int ab = 0; ab < 2; ab++) {
        const double alpha = ab ? -0.75 : 1.5, beta = ab ? 0.5 : 0.0;
        std::vector<double> ref(y0.size()), mag(y0.size());
        for (int i = 0; i < nbr; i++)
          for (int r = 0; r < bs; r++) {
            long double s = 0, a = 0;
            for (pds_size k = rp[i]; k < rp[i + 1]; k++)
              for (int c = 0; c < bs; c++) {
                const long double t = (long double)v[k * bb + r * bs + c] * x[(size_t)ci[k] * bs + c];
                s += t, a += fabsl(t);
              }
            const size_t q = (size_t)i * bs + r;
            ref[q] = (double)(alpha * s + beta * y0[q]);
            mag[q] = (double)(fabsl(alpha) * a + fabs(beta * y0[q]));
          }
        for (const Kern &K : g_kern) {
          if (beta == 0) CK(cudaMemset(dy + mis, 0xff, y0.size() * 8)); // NaN: every entry must be written
          else CK(cudaMemcpy(dy + mis, y0.data(), y0.size() * 8, cudaMemcpyHostToDevice));
          cudaError_t e = pds_cuda_bsr_spmv(0, l, K.id, nbr, bs, nnzb, drp, dci, dv + mis, alpha, dx + mis, beta, dy + mis);
          if (e == cudaErrorNotSupported) {
            (void)cudaGetLastError();
            continue;
          }
          CK(e);
          CK(cudaDeviceSynchronize());
          std::vector<double> got(y0.size());
          if (!got.empty()) CK(cudaMemcpy(got.data(), dy + mis, got.size() * 8, cudaMemcpyDeviceToHost));
          runs++;
          for (size_t q = 0; q < got.size(); q++)
            if (!(fabs(got[q] - ref[q]) <= 1e-14 * (mag[q] + 1) * (1 + (rp[q / bs + 1] - rp[q / bs]) * bs))) {
              if (fails < 20)
                fprintf(stderr, "FAIL %s %s bs %d %dx%d shape %d mis %d beta %g: y[%zu] = %.17g, want %.17g\n",
                        K.name, g_lay[l], bs, nbr, nbc, shape, mis, beta, q, got[q], ref[q]);
              fails++;
              break;
            }
          // determinism: the same call again gives the same bits
          if (beta == 0 && !got.empty()) {
            CK(pds_cuda_bsr_spmv(0, l, K.id, nbr, bs, nnzb, drp, dci, dv + mis, alpha, dx + mis, beta, dy2 + mis));
            std::vector<double> got2(got.size());
            CK(cudaMemcpy(got2.data(), dy2 + mis, got2.size() * 8, cudaMemcpyDeviceToHost));
            if (memcmp(got.data(), got2.data(), got.size() * 8)) {
              fprintf(stderr, "FAIL %s %s bs %d: two runs differ\n", K.name, g_lay[l], bs);
              fails++;
            }
          }
        }
      }
      CK(cudaFree(dv));
      CK(cudaFree(dx));
    }
  }
  CK(cudaFree(drp));
  CK(cudaFree(dci));
  CK(cudaFree(dy));
  CK(cudaFree(dy2));
  printf("check bs %d %5d x %5d shape %d nnzb %7lld: %d runs, %d failures\n", bs, nbr, nbc, shape, nnzb, runs, fails);
  return fails;
}

int main(int argc, char **argv) {
  bool                             check = false, perf = false, small = false;
  std::vector<std::pair<int, int>> cases;

  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-check")) check = true;
    else if (!strcmp(argv[i], "-small")) small = true; // -check with fewer block rows (under compute-sanitizer)
    else if (!strcmp(argv[i], "-perf")) perf = true;
    else if (!strcmp(argv[i], "-reps") && i + 1 < argc) g_reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "-json") && i + 1 < argc) {
      if (!(g_json = fopen(argv[++i], "w"))) return perror(argv[i]), 1;
    } else if (!strcmp(argv[i], "-cases") && i + 1 < argc) {
      perf = true;
      for (char *p = strtok(argv[++i], ","); p; p = strtok(NULL, ",")) {
        int m, bs;
        if (sscanf(p, "%d:%d", &m, &bs) == 2) cases.push_back({m, bs});
      }
    } else {
      fprintf(stderr, "usage: bsr_tune [-check [-small]] [-perf] [-cases m:bs,...] [-reps N] [-json FILE]\n");
      return 1;
    }
  }
  if (!check && !perf) check = perf = true;
  if (cases.empty())
    cases = {{100, 2}, {100, 3}, {100, 4}, {100, 5}, {100, 6}, {100, 7}, {100, 8}, {64, 2},
             {64, 3},  {64, 8},  {16, 4},  {16, 5},  {16, 6},  {100, 4}, {100, 5}, {100, 6}}; /* the last 3: spread */
  int            ndev = 0;
  cudaDeviceProp prop;
  if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) return printf("bsr_tune: no CUDA device\n"), 0;
  CK(cudaGetDeviceProperties(&prop, 0));
  printf("device: %s, %d SMs, %.0f MB L2\n", prop.name, prop.multiProcessorCount, prop.l2CacheSize / 1e6);
  int fails = 0;
  if (check) {
    for (int bs = 1; bs <= 8; bs++) {
      fails += check_case(bs, 1, 1, 0);
      fails += check_case(bs, 37, 23, 0);
      fails += check_case(bs, 5, 0, 0);
      fails += check_case(bs, small ? 400 : 3000, small ? 300 : 2500, 1);
    }
    fails += check_case(11, 300, 300, 0);
    printf("check: %d failures\n", fails);
  }
  if (perf) {
    cusparseHandle_t sp;
    CKS(cusparseCreate(&sp));
    measure_copy();
    for (size_t ic = 0; ic < cases.size(); ic++) perf_case(sp, (int)ic, cases[ic].first, cases[ic].second);
    CKS(cusparseDestroy(sp));
    // compact table: per case the library rule, the best kernel per layout, cuSPARSE
    printf("\n%-6s %2s  %-20s %8s %6s %6s %7s %7s | %-18s %8s %6s | %8s %8s %8s\n", "cells", "bs", "library rule", "us",
           "GB/s", "%copy", "xspRow", "xspCol", "best kernel", "us", "%copy", "row us", "col us", "int us");
    for (size_t ic = 0; ic < cases.size(); ic++) {
      const auto &c = cases[ic];
      const Res  *au = NULL, *bk = NULL, *bl[3] = {NULL, NULL, NULL};
      for (const Res &r : g_res) {
        if (r.m != c.first || r.bs != c.second || r.run != (int)ic) continue;
        if (r.kern == PDS_CUDA_BSR_AUTO && r.lay == 0) au = &r;
        if (r.kern != PDS_CUDA_BSR_AUTO && r.lay == 0 && (!bk || r.t < bk->t)) bk = &r;
      }
      if (!au || !bk) continue;
      for (int l = 0; l < 3; l++) // the best kernel's family in each layout
        for (const Res &r : g_res)
          if (r.m == c.first && r.bs == c.second && r.run == (int)ic && r.lay == l && r.kern != PDS_CUDA_BSR_AUTO &&
              (!bl[l] || r.t < bl[l]->t))
            bl[l] = &r;
      const char *bn = "";
      for (const Kern &K : g_kern)
        if (K.id == bk->kern) bn = K.name;
      printf("%4d^3 %2d  %-20s %8.1f %6.0f %6.1f %7.2f %7.2f | %-18s %8.1f %6.1f | %8.1f %8.1f %8.1f\n", c.first,
             c.second, "", 1e6 * au->t, au->gbs, 100 * au->frac, au->sp_row / au->t, au->sp_col / au->t, bn,
             1e6 * bk->t, 100 * bk->frac, bl[0] ? 1e6 * bl[0]->t : 0, bl[1] ? 1e6 * bl[1]->t : 0,
             bl[2] ? 1e6 * bl[2]->t : 0);
    }
    printf("copy bandwidth %.0f GB/s; xspRow/xspCol: cuSPARSE bsrmv time (row-/column-major blocks) over the rule's\n",
           g_copy_bw * 1e-9);
  }
  if (g_json) fclose(g_json);
  return fails ? 1 : 0;
}
