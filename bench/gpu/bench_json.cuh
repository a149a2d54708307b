// bench/gpu/bench_json.cuh: what the GPU benchmarks of the papers' systems share for their reports (bench_relax,
// bench_sem): g_json (the -json file, stdout by default), g_gpu_name, J(case) for one JSON object per line
// {"bench": BENCH_NAME, "gpu": ..., "case": ..., ...} (numbers whole where they are, 6 digits else, null when not
// finite; arr: a list of numbers), tab(...) for the markdown tables printed at the end (g_table), and measure_copy(quick), the device's copy
// bandwidth every fraction divides by (a "copy" line and a table line), and bench_start, the three contexts and the
// GPU's name, host_values, and bench_args, the flags they share. Define BENCH_NAME and include
// gpu_bench_util.cuh and bench_log.cuh before it.
#pragma once

#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <string>
#include <vector>

#ifndef BENCH_NAME
#error "define BENCH_NAME (the \"bench\" field of the JSON lines) before including bench_json.cuh"
#endif

static FILE       *g_json = stdout;
static char        g_gpu_name[256] = "?";
static std::string g_table;

struct J {
  std::string s;
  explicit J(const char *cas) {
    s = std::string("{\"bench\":\"") + BENCH_NAME + "\",\"gpu\":\"" + g_gpu_name + "\",\"case\":\"" + cas + "\"";
  }
  J &str(const char *k, const std::string &v) {
    s += ",\"" + std::string(k) + "\":\"" + v + "\"";
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
  J &arr(const char *k, const std::vector<double> &v) {
    std::string a = ",\"" + std::string(k) + "\":[";
    char        b[64];

    for (size_t i = 0; i < v.size(); i++) {
      snprintf(b, sizeof b, std::isfinite(v[i]) ? "%s%.6g" : "%snull", i ? "," : "", v[i]);
      a += b;
    }
    s += a + "]";
    return *this;
  }
  void emit() {
    fputs((s + "}\n").c_str(), g_json);
    fflush(g_json);
  }
};

static void tab(const char *fmt, ...) {
  char    b[512];
  va_list ap;

  va_start(ap, fmt);
  vsnprintf(b, sizeof b, fmt, ap);
  va_end(ap);
  g_table += b;
  g_table += "\n";
}

// y = x over 2^26 doubles (2^24 when quick) device to device: bytes moved (read and written) per second
static double measure_copy(bool quick) {
  const long long n = quick ? 1ll << 24 : 1ll << 26;
  double         *x, *y;

  CK(cudaMalloc(&x, n * 8));
  CK(cudaMalloc(&y, n * 8));
  dev_fill(x, n, 1);
  const double t  = gpu_event_median([&] { CK(cudaMemcpyAsync(y, x, n * 8, cudaMemcpyDeviceToDevice, 0)); }, 2, 9);
  const double bw = 16.0 * n / t;
  J("copy").num("entries", (double)n).num("time_s", t).num("gbs", bw * 1e-9).emit();
  LOG("copy bandwidth %.0f GB/s", bw * 1e-9);
  tab("copy bandwidth (cudaMemcpy D2D, 2^%d doubles): %.0f GB/s", quick ? 24 : 26, bw * 1e-9);
  CK(cudaFree(x));
  CK(cudaFree(y));
  return bw;
}

// the contexts a benchmark compares (/gpu/cuda, /cpu/omp, /cpu/ref), the GPU's name into g_gpu_name and the table's
// title line
static void bench_start(pds_ctx *gpu, pds_ctx *omp, pds_ctx *ref) {
  cudaDeviceProp p;

  PK(NULL, pds_ctx_create("/gpu/cuda", gpu));
  PK(NULL, pds_ctx_create("/cpu/omp", omp));
  PK(NULL, pds_ctx_create("/cpu/ref", ref));
  CK(cudaGetDeviceProperties(&p, 0));
  snprintf(g_gpu_name, sizeof g_gpu_name, "%s", p.name);
  tab("bench_%s on %s", BENCH_NAME, g_gpu_name);
}

// all of v's values on the host
static std::vector<double> host_values(pds_vec v) {
  pds_size            n = 0;
  std::vector<double> h;

  pds_vec_get_size(v, &n);
  h.resize(n);
  pds_vec_get_values(v, h.data(), PDS_MEM_HOST);
  return h;
}

// The flags the papers' benchmarks share: -quick, -no_cpu, -json FILE (into g_json), -budget_s S (default 240),
// -reps N (default 10); a benchmark's own flags go to own(flag, next) (next: the following argument or nullptr), which
// returns how many arguments it took (0: not its flag); anything else prints usage and exits 2. Starts the log's
// clock (g_t0); the deadline is g_t0 + budget_s.
struct BenchFlags {
  int    quick = 0, no_cpu = 0, reps = 10;
  double deadline = 0;
};
template <class Own> static BenchFlags bench_args(int argc, char **argv, const char *usage, Own own) {
  BenchFlags f;
  double     budget = 240;

  g_t0 = pds_wtime();
  for (int i = 1; i < argc; i++) {
    const std::string o = argv[i];
    const char       *next = i + 1 < argc ? argv[i + 1] : nullptr;
    int               took;

    if (o == "-quick") f.quick = 1;
    else if (o == "-no_cpu") f.no_cpu = 1;
    else if (next && o == "-json") g_json = fopen(argv[++i], "w");
    else if (next && o == "-budget_s") budget = parse_double("-budget_s", argv[++i]);
    else if (next && o == "-reps") f.reps = (int)parse_long("-reps", argv[++i]);
    else if ((took = own(o, next)) > 0) i += took - 1;
    else fprintf(stderr, "usage: %s\n", usage), exit(2);
  }
  if (!g_json) fprintf(stderr, "cannot open the -json file\n"), exit(2);
  f.deadline = g_t0 + budget;
  return f;
}
