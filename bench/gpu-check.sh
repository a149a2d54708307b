#!/usr/bin/env bash
# bench/gpu-check.sh: everything /gpu/cuda needs checked, in one call on a GPU machine:
#   1. build (Release, CUDA on, the cuda test variants registered; GPU_CHECK_WERROR=ON adds -Werror, which the
#      CPU machines already enforce: the device image's compiler may warn differently),
#   2. the whole test suite on /gpu/cuda (ctest -L cuda: every test's cuda variant, tests/cuda, the SciPy
#      verification tests with -backend /gpu/cuda), and, at the same time, the CUDA tests under compute-sanitizer
#      (memcheck, racecheck, synccheck),
#   3. the GPU benchmarks (bench/gpu/bench_gpu: cuSPARSE / cuBLAS peers, /cpu/omp on the same problems),
#   4. paper 004's FEM benchmark (bench/gpu/bench_fem2d_gpu: assembly, SpMV against the paper's kernels and
#      cuSPARSE, BiCGSTAB and the whole code against /cpu/ref and /cpu/omp on the paper's six grid sizes; its
#      JSON lines in fem2d.jsonl, bench/scripts/plot_fem2d.py makes the figures),
#   5. paper 000's block ILU(0) benchmark (bench/gpu/bench_bilu: factorization and solve t_p of every bilu0 variant,
#      /cpu/ref, /cpu/omp and cuSPARSE bsrilu02 + bsrsv2 / SpSV on 15^3 .. 128^3, multi-block sets, iteration
#      counts; its JSON lines in bilu.jsonl, its tables in bilu.txt, bench/scripts/plot_bilu.py makes the figures),
#   5b. what one dependent step costs (bench/gpu/bench_sync: a kernel boundary in a graph, a grid, cluster or block
#      barrier; a few seconds; sync.jsonl, sync.txt), and where the product fused with a Krylov dot spends its time
#      beyond the plain product (bench/gpu/fused_tune: variants checked for the library's bits,
#      poisson7 128^3 and 256^3; about 20 s; fused.jsonl, fused.txt),
#   5c. ILU(0) of general sparse matrices (bench/gpu/bench_ilu: every /gpu/cuda ilu0 variant, exact and approximate,
#      against cuSPARSE csrilu02 + SpSV (CSR) or bsrilu02 + bsrsv2 (BSR) and /cpu/omp, with GMRES(30) + each variant,
#      on poisson7 64^3, 128^3, 7-point BSR 100^3 with b = 4, 5, 6, paper 004's FEM grids 5 and 6 and the largest
#      shared matrices, validated against /cpu/ref's bits (/cpu/omp's on the BSR cases); ilu.jsonl, ilu.txt;
#      GPU_CHECK_ILU_S, default 150 s, its -budget_s 30 s under that; then poisson7 256^3 alone when 60 s are left,
#      ilu256.jsonl, ilu256.txt),
#   5d. paper 002's block relaxation (bench/gpu/bench_relax: copy bandwidth and cuBLAS DGEMM rate, validation against
#      /cpu/ref, the convergence study against block size, sweep rates of every method and variant on the paper's patch
#      sets with /cpu/omp beside, host-resident patch sets streamed depth- and breadth-first (Fig. 6), GMG against
#      CG + jacobi / relax / ilu0; relax.jsonl, relax.txt, relax-plots.tgz; GPU_CHECK_RELAX_S, default 300 s),
#   5e. paper 003's spectral-element operator (bench/gpu/bench_sem: validation against /cpu/ref's bits, GDOF/s for
#      N = 2..12 and E = 2^9..2^15, affine and deformed, /cpu/omp and /cpu/ref beside, the four diagonal kernels,
#      CG with and without semjacobi; sem.jsonl, sem.txt, sem-plots.tgz; GPU_CHECK_SEM_S, default 240 s),
#   5f. paper 001's convective flux operation (bench/gpu/bench_fv: validation against /cpu/ref's bits, every summation
#      (stages, color, atomic, cells) at order 1 and 2 on the sphere-in-a-box hybrid mesh of 680K and 4M cells, the
#      first-order Roe residual's three stages one by one in the as generated, RCM and Hilbert numbering, /cpu/omp and
#      /cpu/ref beside; fv.jsonl, fv.txt; GPU_CHECK_FV_S, default 240 s: an H100 takes about 150),
#   5g. issue 14's implicit step (bench/gpu/bench_fv_implicit: validation of the Jacobian against /cpu/ref's bits, its
#      time and bytes on the 680K sphere, the parts of a linear solve, implicit (gmres + ilu0, + pbjacobi) against
#      explicit steps to a steady state, /cpu/omp beside; fv_implicit.jsonl, fv_implicit.txt; GPU_CHECK_FVI_S, default
#      200 s),
#   5h. issue 15's Python package (tests/python on /gpu/cuda with CuPy where the image has it, the Python overhead
#      against C, examples/python/solve_mtx.py on /gpu/cuda; python.jsonl, python.txt; a minute),
#   5i. issue 16's distributed library (bench/mpi/gpu-mpi.sh: tests and scaling on 1 and 2 GPUs and 1-16 host cores,
#      spectral elements over the ranks included; needs .data/mpi and a 2-GPU machine; mpi.txt, mpi/mpi.jsonl; about
#      8.5 minutes),
#   6. the CPU peer, when GPU_CHECK_PEER names a petsc_krylov executable (bench/peers/petsc_krylov.c, built against a
#      PETSc; PDS_PEER_MPIEXEC, PDS_PEER_RANKS, PDS_PEER_ARGS as for bench/scripts/cpu-vs-petsc.sh): pdesolve's CPU
#      backends against PETSc on the same cores of the GPU machine's host (JSON lines in petsc-peer.jsonl),
#   7. a short summary table at the end.
# GPU_CHECK_SKIP_BENCH=1 leaves out 3, 4 and 5 (a check of the tests alone), GPU_CHECK_SKIP_TESTS=1 leaves out 2 (the
# benchmarks alone); in 2, GPU_CHECK_TOOLS (default "memcheck racecheck synccheck") names the compute-sanitizer tools
# and GPU_CHECK_CTEST=0 leaves out ctest: on a fresh machine the build, ctest and racecheck + synccheck fill one call,
# so a whole check of the tests is GPU_CHECK_TOOLS="racecheck synccheck", then GPU_CHECK_CTEST=0
# GPU_CHECK_TOOLS=memcheck on the warm machine. With every phase the whole check does not fit the device's 600 s per
# call (build 50-80 s, ctest about 300 s beside racecheck and synccheck, memcheck about 200 s, benchmarks
# ~100 + 100 + 150 s on an H100): the tests take the calls above, the benchmarks their own.
# GPU_CHECK_BITS_OLD=<pdesolve driver of an
# older build> adds a bit-for-bit comparison of every solver x preconditioner on /gpu/cuda against it
# (bench/scripts/bits-vs.sh; for changes that must keep the bits); GPU_CHECK_BITS_OLD_SRC=<source tree of an older
# version> builds that driver first (e.g. `git archive REV | tar -x -C .old`, carried with the call). The comparison runs
# beside the tests (2b), or, with GPU_CHECK_SKIP_TESTS=1, alone before the benchmarks (so that it does not share the
# GPU with them); the older build then gets all but GPU_CHECK_BITS_RESERVE seconds (default 240) of what is left.
# Logs and the benchmarks' JSON lines go to $OUT (default ./gpu-check-out). The shared matrices are read from
# $PDS_SHARED_DIR, else .data/ (copy ../shared/matrices there to carry them to a device machine), else ../shared.
# GPU_CHECK_BUDGET (seconds, default 570) bounds the whole run (the tests and each compute-sanitizer run too: what
# does not fit is skipped and counted in the summary, which is always printed): each phase gets what is left; bench_gpu leaves
# GPU_CHECK_FEM2D_S seconds (default 100; an H200 run takes about 60: the CPU solves run to convergence when they take
# under 20 s) of it to bench_fem2d_gpu and GPU_CHECK_BILU_S (default 150) to bench_bilu, bench_fem2d_gpu leaves the
# latter; bench_bilu runs with at most GPU_CHECK_BILU_S seconds (less if less is left), and its own -budget_s 10 s
# under that keeps it inside (cases that do not fit run lean or are skipped, saying so).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$ROOT/gpu-check-out}
BUILD=${BUILD:-$ROOT/build-gpu}
JOBS=$(nproc 2>/dev/null || echo 8)
DEADLINE=$((SECONDS + ${GPU_CHECK_BUDGET:-570}))
mkdir -p "$OUT"
if [ -n "${PDS_SHARED_DIR:-}" ]; then SHARED=$PDS_SHARED_DIR
elif [ -f "$ROOT/.data/matrices/nos3.mtx" ]; then SHARED=$ROOT/.data
else SHARED=$(cd "$ROOT/.." && pwd)/shared
fi
declare -a SUMMARY=()
note() { SUMMARY+=("$(printf '%-28s %s' "$1" "$2")"); }
left() { local l=$((DEADLINE - SECONDS - ${1:-0})); [ $l -lt 5 ] && l=5; echo $l; }

# ---- 0. the machine ---------------------------------------------------------------------------------------------
{
  echo "date: $(date -u +%FT%TZ)"
  nvidia-smi -L
  nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem,driver_version --format=csv
  nvcc --version | tail -2
  cmake --version | head -1
  echo "cores: $JOBS; shared data: $SHARED"
  echo "cpu: $(grep -m1 "model name" /proc/cpuinfo 2>/dev/null | sed "s/.*: //")"
} > "$OUT/info.log" 2>&1
cat "$OUT/info.log"
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)

# ---- 1. build ---------------------------------------------------------------------------------------------------
t0=$SECONDS
GEN=(); command -v ninja >/dev/null && GEN=(-G Ninja)
KEEP=(); [ ${#GEN[@]} -gt 0 ] && KEEP=(-- -k 0) # keep going: one broken target elsewhere does not stop the check
# the build leaves 400 s to the phases after it, unless that leaves it under 240 s (a short GPU_CHECK_BUDGET for a
# phase or two: the build then takes what it needs, and those phases what remains)
BL=$(left 400); BL2=$(left 380); [ "$BL" -lt 240 ] && BL=$(left 20) BL2=$(left 10)
timeout "$BL" cmake -S "$ROOT" -B "$BUILD" "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release -DPDS_ENABLE_CUDA=ON \
  -DPDS_WERROR="${GPU_CHECK_WERROR:-OFF}" -DPDS_TEST_CUDA=ON -DPDS_SHARED_DIR="$SHARED" \
  -DPDS_PYTHON="$(command -v python3)" \
  -DPDS_PYTHON_PATH="$(python3 -c 'import pytest' >/dev/null 2>&1 || echo "$ROOT/.data/pylib")" \
  > "$OUT/build.log" 2>&1 && timeout "$BL2" cmake --build "$BUILD" -j "$JOBS" "${KEEP[@]}" >> "$OUT/build.log" 2>&1
BUILD_RC=$?
if [ -x "$BUILD/bench/bench_gpu" ] && [ -x "$BUILD/tests/cuda/tc02_solve" ] && [ -x "$BUILD/tests/cuda/tc03_fem2d" ]; then
  note build "rc $BUILD_RC ($((SECONDS - t0)) s)$( [ $BUILD_RC -ne 0 ] && echo ': some targets failed, see build.log')"
else
  note build "FAILED ($((SECONDS - t0)) s): see build.log"
  grep -E "error|Error" "$OUT/build.log" | head -30
  printf '%s\n' "${SUMMARY[@]}"
  exit 1
fi

# the older version's driver, for the bit-for-bit comparison (2b)
if [ -n "${GPU_CHECK_BITS_OLD_SRC:-}" ]; then
  t0=$SECONDS
  # what the phases after it need: the tests (about 360 s), or with GPU_CHECK_SKIP_TESTS=1 the comparison itself and
  # the benchmarks (GPU_CHECK_BITS_RESERVE)
  RES=360; [ "${GPU_CHECK_SKIP_TESTS:-0}" = 1 ] && RES=${GPU_CHECK_BITS_RESERVE:-240}
  timeout "$(left $((RES + 20)))" cmake -S "$GPU_CHECK_BITS_OLD_SRC" -B "$GPU_CHECK_BITS_OLD_SRC/build-gpu" "${GEN[@]}" \
    -DCMAKE_BUILD_TYPE=Release -DPDS_ENABLE_CUDA=ON -DPDS_TEST_CUDA=OFF > "$OUT/build-old.log" 2>&1 &&
    timeout "$(left $RES)" cmake --build "$GPU_CHECK_BITS_OLD_SRC/build-gpu" -j "$JOBS" --target pdesolve_app \
    >> "$OUT/build-old.log" 2>&1
  note "build (older version)" "rc $? ($((SECONDS - t0)) s)"
  GPU_CHECK_BITS_OLD=$GPU_CHECK_BITS_OLD_SRC/build-gpu/bin/pdesolve
fi

# the bits of double-precision solves against the older build (bench/scripts/bits-vs.sh) within $1 seconds: the log
# in bits.log, one line of result in bits.txt
bits_vs() {
  local t=$SECONDS
  PDS_BITS_BACKENDS=/gpu/cuda PDS_SHARED_DIR=$SHARED timeout "$1" sh "$ROOT/bench/scripts/bits-vs.sh" \
    "$GPU_CHECK_BITS_OLD" "$BUILD/bin/pdesolve" > "$OUT/bits.log" 2>&1
  echo "rc $? ($((SECONDS - t)) s): $(tail -1 "$OUT/bits.log")" > "$OUT/bits.txt"
}

# ---- 2. tests on /gpu/cuda, with compute-sanitizer alongside ----------------------------------------------------------
if [ "${GPU_CHECK_SKIP_TESTS:-0}" = 1 ]; then # a run of the benchmarks alone (the tests in a call of their own)
  cd "$BUILD" || exit 1
  note "tests and compute-sanitizer" "skipped (GPU_CHECK_SKIP_TESTS=1)"
  if [ -n "${GPU_CHECK_BITS_OLD:-}" ]; then # the bits against the older build, alone, before the benchmarks
    bits_vs "$(left 120)"
    note "bits vs old build (cuda)" "$(cat "$OUT/bits.txt")"
  fi
else
t0=$SECONDS
cd "$BUILD" || exit 1
# the out-of-memory test first and alone: it sizes its allocations from the free memory
ctest -R '^tc01_backend:cuda$' --output-on-failure --timeout 120 > "$OUT/ctest.log" 2>&1
TC01=$?
SAN_BUDGET=$(left 240)
SANITIZER=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer /opt/nvidia/*/compute-sanitizer \
            2>/dev/null | head -1)
export SANITIZER=${SANITIZER:-compute-sanitizer}
san() { # tool, exe, extra flags...: one run, one line of result; skipped, saying so, when the check's budget is
  # nearly spent (a fresh machine builds everything first: the tests with the tools then took more than a call's
  # 600 s once, and the summary was lost with them)
  local tool=$1 exe=$2; shift 2
  case " ${GPU_CHECK_TOOLS:-memcheck racecheck synccheck} " in *" $tool "*) ;; *) return;; esac
  local log="$OUT/san-$tool-$(basename "$exe").log" t=$SECONDS rc lim=$((DEADLINE - SECONDS - 20))
  if [ $lim -lt 10 ]; then
    printf '%-10s %-16s %-8s\n' "$tool" "$(basename "$exe")" "SKIPPED (GPU_CHECK_BUDGET spent)"
    return
  fi
  [ $lim -gt $((SAN_BUDGET / 2)) ] && lim=$((SAN_BUDGET / 2))
  PDS_TEST_SMALL=1 timeout "$lim" "$SANITIZER" --tool "$tool" --error-exitcode 99 "$@" "$exe" /gpu/cuda \
    > "$log" 2>&1
  rc=$?
  local summ; summ=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY|SYNCCHECK SUMMARY" "$log" | tail -1)
  case $rc in 0) r=clean;; 99) r=ERRORS;; 124) r=TIMEOUT;; *) r="exit $rc";; esac
  printf '%-10s %-16s %-8s %4ds  %s\n' "$tool" "$(basename "$exe")" "$r" $((SECONDS - t)) "$summ"
}
T=$BUILD/tests
# tc01 sizes its allocations from the free memory: under memcheck too it runs alone, before everything else
san memcheck "$T/cuda/tc01_backend" --report-api-errors no > "$OUT/san-memcheck-tc01.txt"
# ---- 2b. (in the background, during the rest of 2) the bits of double-precision solves against an older build: started
# after tc01, which sizes its allocations from the free memory (beside it, a solve failed to create its context: out of
# device memory)
BITSPID=
if [ -n "${GPU_CHECK_BITS_OLD:-}" ]; then
  bits_vs 400 &
  BITSPID=$!
fi

(
  # racecheck and synccheck cannot follow CUDA graphs with conditional nodes (false barrier errors, then the program
  # is stopped; a conditional while loop of one correct __syncthreads reduction kernel shows it): they run the solves
  # with the host in the loop (PDS_DEVICE_LOOP=0); memcheck runs the device loops. t303 (ilu0) is not under
  # racecheck: its kernels use no shared memory (what racecheck checks), and its syncfree spin loops run past 100 s
  # under it; synccheck and memcheck run it
  { export PDS_DEVICE_LOOP=0; san racecheck "$T/cuda/tc02_solve"; san racecheck "$T/equiv/equiv_vec"; san racecheck "$T/equiv/equiv_csr"
    san racecheck "$T/equiv/equiv_pbjacobi"; san racecheck "$T/cuda/tc03_fem2d"
    san racecheck "$T/cuda/tc04_spmv_classes"; san racecheck "$T/equiv/equiv_f32"; san racecheck "$T/cuda/tc05_small"
    san racecheck "$T/t302_bilu0"; san racecheck "$T/cuda/tc09_relax"; san racecheck "$T/disc/td12_sem_op"
  } > "$OUT/san-racecheck.txt" &
  { export PDS_DEVICE_LOOP=0; san synccheck "$T/cuda/tc02_solve"; san synccheck "$T/equiv/equiv_vec"; san synccheck "$T/equiv/equiv_csr"
    san synccheck "$T/equiv/equiv_pbjacobi"; san synccheck "$T/cuda/tc03_fem2d"
    san synccheck "$T/cuda/tc04_spmv_classes"; san synccheck "$T/equiv/equiv_f32"; san synccheck "$T/cuda/tc05_small"
    san synccheck "$T/t302_bilu0"; san synccheck "$T/t303_ilu0"; san synccheck "$T/cuda/tc08_ilu0_cusparse"
    san synccheck "$T/cuda/tc09_relax"; san synccheck "$T/disc/td12_sem_op"; san synccheck "$T/disc/td15_fv"
  } > "$OUT/san-synccheck.txt" &
  wait
) &
SANPID=$!
# tests whose meshes the gmsh program writes at test time need gmsh; the device image has none
EXCL='^tc01_backend:cuda$'
if ! command -v gmsh >/dev/null 2>&1; then EXCL="$EXCL|^td05_"; note "skipped (no gmsh here)" "td05_convergence:cuda"; fi
if [ "${GPU_CHECK_CTEST:-1}" = 1 ]; then
  timeout "$(left 30)" ctest -L cuda -E "$EXCL" -j 6 --output-on-failure --timeout 240 >> "$OUT/ctest.log" 2>&1
  CT=$?
else
  CT="skipped (GPU_CHECK_CTEST=0)"
fi
note "ctest -L cuda" "$(grep -E 'tests passed' "$OUT/ctest.log" | tr '\n' ' ') (tc01 rc $TC01, rest rc $CT; $((SECONDS - t0)) s)"
grep -E '^\s+[0-9]+ - .*\((Failed|Timeout|Not Run|SEGFAULT|Exception)' "$OUT/ctest.log" | head -20 > "$OUT/ctest-failed.txt"
wait $SANPID
# memcheck alone, after the tests and the other tools: run beside them (ctest -j6 and two more instrumented processes
# on one GPU), memcheck reported illegal addresses in graph launches of tc02, tc03 and t402 that did not come back when
# the same binaries ran under it alone (H100, this issue's runs), and a plain solve of the older build beside them
# failed too: the load, not the code (docs/dev.md)
{ san memcheck "$T/cuda/tc02_solve"; san memcheck "$T/equiv/equiv_vec"; san memcheck "$T/equiv/equiv_csr"
  san memcheck "$T/equiv/equiv_bsr"; san memcheck "$T/equiv/equiv_pbjacobi"
  san memcheck "$T/cuda/tc03_fem2d"; san memcheck "$T/cuda/tc04_spmv_classes"; san memcheck "$T/equiv/equiv_f32"
  san memcheck "$T/t402_precision"; san memcheck "$T/cuda/tc05_small"; san memcheck "$T/t302_bilu0"
  san memcheck "$T/t303_ilu0"
  san memcheck "$T/cuda/tc07_bilu0_cusparse"; san memcheck "$T/cuda/tc08_ilu0_cusparse"
  san memcheck "$T/cuda/tc09_relax"; san memcheck "$T/t204_patches"; san memcheck "$T/t304_relax"
  san memcheck "$T/disc/td12_sem_op"; san memcheck "$T/disc/td13_sem_mesh"; san memcheck "$T/disc/td15_fv"
  san memcheck "$T/disc/td16_fv_recon"; san memcheck "$T/disc/td17_fv_implicit"
  san memcheck "$T/t305_gmg"; } > "$OUT/san-memcheck.txt"
cat "$OUT"/san-memcheck-tc01.txt "$OUT"/san-memcheck.txt "$OUT"/san-racecheck.txt "$OUT"/san-synccheck.txt > "$OUT/sanitizer.txt"
{ for f in "$OUT"/san-*.log; do echo "=== $(basename "$f")"; grep -v '^=========  *$' "$f" | tail -40; done; } \
  > "$OUT/sanitizer.log" 2>&1
rm -f "$OUT"/san-*.log "$OUT"/san-*.txt
note "compute-sanitizer" "$(grep -c clean "$OUT/sanitizer.txt") clean of $(wc -l < "$OUT/sanitizer.txt") runs, $(grep -c SKIPPED "$OUT/sanitizer.txt") skipped for the budget ($((SECONDS - t0)) s incl. tests)"

if [ -n "$BITSPID" ]; then wait "$BITSPID"; note "bits vs old build (cuda)" "$(cat "$OUT/bits.txt")"; fi
fi

# ---- 3. benchmarks ------------------------------------------------------------------------------------------------
t0=$SECONDS
# nothing else may share the GPU with the benchmarks: say so when something does (a program left by a sanitizer run)
BUSY=$(nvidia-smi --query-compute-apps=pid,process_name --format=csv,noheader 2>/dev/null | tr '\n' ';')
[ -n "$BUSY" ] && note "GPU not idle before benchmarks" "$BUSY"
FEM2D_S=${GPU_CHECK_FEM2D_S:-100}
BILU_S=${GPU_CHECK_BILU_S:-150}
SKIP_BENCH=${GPU_CHECK_SKIP_BENCH:-0}
# GPU_CHECK_BENCHES: which benchmarks run (default all: gpu fem2d bilu sync fused ilu relax sem fv fv_implicit python
# mpi); together
# they take more than one call's 600 s, so a full check of the benchmarks is two calls, e.g. "gpu fem2d bilu sync" and
# "ilu relax sem fv fv_implicit"
BENCHES=" ${GPU_CHECK_BENCHES:-gpu fem2d bilu sync fused ilu relax sem fv fv_implicit python mpi} "
want() { [ "$SKIP_BENCH" != 1 ] && case $BENCHES in *" $1 "*) return 0;; esac; return 1; }
if ! want gpu; then
  BR=0; echo "benchmarks skipped (GPU_CHECK_SKIP_BENCH=1)" > "$OUT/bench.log"; note "bench_gpu" "skipped"
else
  OMP_NUM_THREADS=$JOBS OMP_PROC_BIND=close OMP_PLACES=cores timeout "$(left $((FEM2D_S + BILU_S + 20)))" \
    "$BUILD/bench/bench_gpu" -shared "$SHARED" -json "$OUT/bench.jsonl" > "$OUT/bench.log" 2>&1
  BR=$?
  note "bench_gpu" "rc $BR ($((SECONDS - t0)) s)"
fi

# ---- 4. paper 004's FEM benchmark ------------------------------------------------------------------------------------
t0=$SECONDS
if ! want fem2d; then
  FR=0; echo "skipped (GPU_CHECK_SKIP_BENCH=1 or GPU_CHECK_BENCHES)" > "$OUT/fem2d.log"
elif [ -x "$BUILD/bench/bench_fem2d_gpu" ]; then
  OMP_NUM_THREADS=$JOBS OMP_PROC_BIND=close OMP_PLACES=cores timeout "$(left $((BILU_S + 10)))" \
    "$BUILD/bench/bench_fem2d_gpu" -cpu_solve_max_s 20 > "$OUT/fem2d.jsonl" 2> "$OUT/fem2d.log"
  FR=$?
else
  FR=127; echo "bench_fem2d_gpu was not built" > "$OUT/fem2d.log"
fi
note "bench_fem2d_gpu" "rc $FR ($((SECONDS - t0)) s)$( [ $FR -eq 124 ] && echo ': TIMEOUT (raise GPU_CHECK_FEM2D_S)')"
# key ratios of the two largest grids measured (python3 reads the JSON lines; without it, see fem2d.log)
if [ -s "$OUT/fem2d.jsonl" ] && command -v python3 >/dev/null 2>&1; then
  while IFS=$'\t' read -r k v; do note "$k" "$v"; done < <(python3 - "$OUT/fem2d.jsonl" "$ROOT/bench/scripts" <<'PY'
import sys
sys.path.insert(0, sys.argv[2])
from bench_jsonl import load
R = load([sys.argv[1]])
def one(case, **kv):
    return {r["n"]: r for r in R if r.get("case") == case and all(r.get(k) == v for k, v in kv.items())}
pd, bg, ak = one("spmv", variant="pdesolve"), one("bicgstab", backend="/gpu/cuda"), one("assembly_kernels", phase="both")
pl, asw, wr, wo = one("spmv_plan_summary"), one("assembly_sweep_summary"), one("whole", backend="/cpu/ref"), one("whole", backend="/cpu/omp")
f = lambda d, n, k, s="{:.2f}": s.format(d[n][k]) if n in d and d[n].get(k) is not None else "-"
x = lambda d, n: f(d, n, "gpu_speedup", "{:.1f}") + ("*" if d.get(n, {}).get("extrapolated") else "")
for n in sorted(pd)[-2:]:
    g = "fem2d n=%d" % n
    print(g + " spmv\tpdesolve/cuSPARSE %sx, %s of copy bw, plan auto/best %s" % (f(pd, n, "vs_cusparse"), f(pd, n, "frac_copy"), f(pl, n, "auto_over_best", "{:.3f}")))
    print(g + " bicgstab\t%s its, per-it/floor %s, per-it x ref %s, x omp %s" % (f(bg, n, "iterations", "{}"), f(bg, n, "per_it_over_floor"), f(bg, n, "speedup_per_it_vs_ref", "{:.1f}"), f(bg, n, "speedup_per_it_vs_omp", "{:.1f}")))
    print(g + " assembly\tkernels %s of copy bw, auto/best %s" % (f(ak, n, "frac_copy"), f(asw, n, "auto_over_best", "{:.3f}")))
    print(g + " whole code\tGPU x ref %s, x omp %s (*: CPU solve extrapolated)" % (x(wr, n), x(wo, n)))
PY
)
fi

# ---- 5. paper 000's block ILU(0) benchmark ------------------------------------------------------------------------------
t0=$SECONDS
if ! want bilu; then
  BLR=0; echo "skipped (GPU_CHECK_SKIP_BENCH=1 or GPU_CHECK_BENCHES)" > "$OUT/bilu.log"
elif [ -x "$BUILD/bench/bench_bilu" ]; then
  BILU_LIM=$(left 5); [ "$BILU_LIM" -gt "$BILU_S" ] && BILU_LIM=$BILU_S
  OMP_NUM_THREADS=$JOBS OMP_PROC_BIND=close OMP_PLACES=cores timeout "$BILU_LIM" \
    "$BUILD/bench/bench_bilu" -budget_s $((BILU_LIM > 20 ? BILU_LIM - 10 : 10)) -json "$OUT/bilu.jsonl" \
    > "$OUT/bilu.txt" 2> "$OUT/bilu.log"
  BLR=$?
else
  BLR=127; echo "bench_bilu was not built" > "$OUT/bilu.log"
fi
note "bench_bilu" "rc $BLR ($((SECONDS - t0)) s)$( [ $BLR -eq 124 ] && echo ': TIMEOUT (raise GPU_CHECK_BILU_S)')"
# key ratios per grid: the default variant against cuSPARSE and /cpu/omp, the multi-block speedups, iteration counts
if [ -s "$OUT/bilu.jsonl" ] && command -v python3 >/dev/null 2>&1; then
  while IFS=$'\t' read -r k v; do note "$k" "$v"; done < <(python3 - "$OUT/bilu.jsonl" "$ROOT/bench/scripts" <<'PY'
import sys
sys.path.insert(0, sys.argv[2])
from bench_jsonl import load
R = load([sys.argv[1]])
f = lambda r, k, s="{:.1f}": s.format(r[k]) if r.get(k) is not None else "-"
small = []
for r in R:
    if r.get("case") != "case_summary" or r.get("grids") != 1:
        continue
    if r["n"] != 6:
        small.append("%s n=%d %s/%s" % (r["problem"], r["n"], f(r, "apply_vs_cusparse"), f(r, "factor_vs_cusparse")))
        continue
    print("bilu %s n=6\tsolve %s ns/pt: x%s cuSPARSE, x%s omp; factor %s ns/pt: x%s cuSPARSE, x%s omp; solve %s of copy bw"
          % (r["problem"], f(r, "apply_auto_tp_ns", "{:.2f}"), f(r, "apply_vs_cusparse"), f(r, "apply_vs_omp"),
             f(r, "factor_auto_tp_ns", "{:.2f}"), f(r, "factor_vs_cusparse"), f(r, "factor_vs_omp"),
             f(r, "apply_frac_copy", "{:.0%}")))
if small:
    print("bilu n=4,5 vs cuSPARSE\t(solve/factor) " + "; ".join(small))
for r in R:
    if r.get("case") == "multiblock":
        print("bilu multi-block %s\tone matrix vs %d separate: factor x%s, solve x%s (best: %s x%s, %s x%s)"
              % (r["problem"], r.get("grids", 0), f(r, "factor_speedup"), f(r, "apply_speedup"),
                 r.get("best_factor_variant"), f(r, "best_factor_speedup"), r.get("best_apply_variant"),
                 f(r, "best_apply_speedup")))
its, grid = {}, ""
for r in R:
    if r.get("case") == "iters" and r.get("study") == "cfl":
        its.setdefault("%s/%s" % (r["solver"], r["factors"]), []).append("%g:%s" % (r["cfl"], r.get("iterations")))
        grid = r.get("problem", "")
if its:
    print("bilu its %s (CFL:its)\t" % grid + "; ".join("%s %s" % (k, " ".join(v)) for k, v in its.items()))
bad = [r for r in R if r.get("case") == "validate" and r.get("backend") == "/gpu/cuda" and r.get("factors") == "double"
       and r.get("bitwise") is False]
un = sorted({r.get("variant") for r in R if r.get("case") == "unavailable" and r.get("backend") == "/gpu/cuda"})
print("bilu validation\t%d GPU results not bitwise ref's; unavailable variants: %s" % (len(bad), ", ".join(un) or "none"))
PY
)
fi

# the figures of this run (bench/scripts/plot_fem2d.py, plot_bilu.py; the device image has matplotlib), as one archive
if { [ -s "$OUT/fem2d.jsonl" ] || [ -s "$OUT/bilu.jsonl" ]; } && python3 -c 'import matplotlib' >/dev/null 2>&1; then
  mkdir -p "$OUT/plots"; PLR=0; : > "$OUT/plots.log"
  if [ -s "$OUT/fem2d.jsonl" ]; then
    python3 "$ROOT/bench/scripts/plot_fem2d.py" "$OUT/fem2d.jsonl" --out "$OUT/plots" >> "$OUT/plots.log" 2>&1 || PLR=$?
  fi
  if [ -s "$OUT/bilu.jsonl" ]; then
    python3 "$ROOT/bench/scripts/plot_bilu.py" "$OUT/bilu.jsonl" --out "$OUT/plots" >> "$OUT/plots.log" 2>&1 || PLR=$?
  fi
  (cd "$OUT" && tar czf plots.tgz plots && rm -rf plots)
  note "figures (fem2d, bilu)" "rc $PLR (plots.tgz)"
fi

# ---- 5b. what one dependent step costs (bench/gpu/bench_sync: the floor under bilu0's planes and small solves), and
# the fused product's variants (bench/gpu/fused_tune) ---------------------------------------------------------------
# short_bench NAME EXE: bench/gpu/EXE -json NAME.jsonl within what is left, its output in NAME.txt; returns its exit
# status (0 when left out by GPU_CHECK_BENCHES, 127 when not built)
short_bench() {
  local name=$1 exe=$2 t0=$SECONDS rc
  if ! want "$name"; then
    rc=0; echo "skipped (GPU_CHECK_SKIP_BENCH=1 or GPU_CHECK_BENCHES)" > "$OUT/$name.txt"
  elif [ -x "$BUILD/bench/$exe" ]; then
    timeout "$(left 2)" "$BUILD/bench/$exe" -json "$OUT/$name.jsonl" > "$OUT/$name.txt" 2>&1
    rc=$?
  else
    rc=127; echo "$exe was not built" > "$OUT/$name.txt"
  fi
  note "$exe" "rc $rc ($((SECONDS - t0)) s)"
  return $rc
}
short_bench sync bench_sync
short_bench fused fused_tune
# the older build's driver against this one, time per iteration (bench/scripts/ab-time.sh), when there is one
if [ "$SKIP_BENCH" != 1 ] && [ -n "${GPU_CHECK_BITS_OLD:-}" ] && [ -x "${GPU_CHECK_BITS_OLD:-}" ]; then
  t=$SECONDS
  timeout "$(left 30)" sh "$ROOT/bench/scripts/ab-time.sh" "$GPU_CHECK_BITS_OLD" "$BUILD/bin/pdesolve" > "$OUT/ab.txt" 2>&1
  note "ab-time (old vs new)" "rc $? ($((SECONDS - t)) s): ab.txt"
fi

# ---- 5c. ILU(0) of general CSR matrices against cuSPARSE (bench/gpu/bench_ilu) ------------------------------------------
t0=$SECONDS
if ! want ilu; then
  ILR=0; echo "skipped (GPU_CHECK_SKIP_BENCH=1 or GPU_CHECK_BENCHES)" > "$OUT/ilu.txt"
elif [ -x "$BUILD/bench/bench_ilu" ]; then
  # bench_ilu plans its GMRES runs within -budget_s (about 120 s of its default cases on an H100) and prints each row as
  # it is measured, so a run cut by the timeout still leaves its rows
  ILU_LIM=$(left 2); [ "$ILU_LIM" -gt "${GPU_CHECK_ILU_S:-150}" ] && ILU_LIM=${GPU_CHECK_ILU_S:-150}
  OMP_NUM_THREADS=$JOBS OMP_PROC_BIND=close OMP_PLACES=cores timeout "$ILU_LIM" "$BUILD/bench/bench_ilu" \
    -shared "$SHARED" -budget_s $((ILU_LIM > 60 ? ILU_LIM - 30 : ILU_LIM * 2 / 3)) -json "$OUT/ilu.jsonl" \
    > "$OUT/ilu.txt" 2> "$OUT/ilu.log"
  ILR=$?
else
  ILR=127; echo "bench_ilu was not built" > "$OUT/ilu.txt"
fi
note "bench_ilu" "rc $ILR ($((SECONDS - t0)) s)$( [ $ILR -eq 124 ] && echo ': TIMEOUT (raise GPU_CHECK_ILU_S)')"
# poisson7 256^3, the issue's second scalar size, on its own (about 50 s on an H100: the host's level schedules of
# 16.7M rows, /cpu/omp as the reference, GMRES cut at 2 s a solve) while at least 60 s are left; ilu256.jsonl
t0=$SECONDS
if ! want ilu || [ ! -x "$BUILD/bench/bench_ilu" ]; then
  :
elif [ "$(left 2)" -ge 60 ]; then
  IL2_LIM=$(left 2); [ "$IL2_LIM" -gt 90 ] && IL2_LIM=90
  OMP_NUM_THREADS=$JOBS OMP_PROC_BIND=close OMP_PLACES=cores timeout "$IL2_LIM" "$BUILD/bench/bench_ilu" \
    -sizes 256 -bsr_bs none -fem_grids none -mats none -variants auto,levels,syncfree,approx-jacobi,approx-chow \
    -budget_s $((IL2_LIM - 30)) -json "$OUT/ilu256.jsonl" > "$OUT/ilu256.txt" 2> "$OUT/ilu256.log"
  note "bench_ilu 256^3" "rc $? ($((SECONDS - t0)) s)"
else
  note "bench_ilu 256^3" "skipped: $(left 2) s left"
fi

# ---- 5d, 5e. the papers' benchmarks driven through the library's API ------------------------------------------------
# paper_bench NAME VAR DEFAULT [ARGS]: bench/gpu/bench_NAME ARGS with a budget of $VAR seconds (default DEFAULT, at most half of
# what is left), writing NAME.jsonl, NAME.txt and NAME.log, then NAME-plots.tgz (bench/scripts/plot_NAME.py) where
# matplotlib is; returns its exit status
paper_bench() {
  local name=$1 var=$2 def=$3 t0=$SECONDS lim rc
  shift 3 # the rest: the benchmark's own arguments
  if ! want "$name"; then
    rc=0; echo "skipped (GPU_CHECK_SKIP_BENCH=1 or GPU_CHECK_BENCHES)" > "$OUT/$name.txt"
  elif [ -x "$BUILD/bench/bench_$name" ]; then
    lim=$(left 2); [ "$lim" -gt "${!var:-$def}" ] && lim=${!var:-$def}
    OMP_NUM_THREADS=$JOBS OMP_PROC_BIND=close OMP_PLACES=cores timeout "$lim" "$BUILD/bench/bench_$name" \
      -budget_s $((lim > 40 ? lim - 25 : lim * 2 / 3)) -json "$OUT/$name.jsonl" "$@" > "$OUT/$name.txt" \
      2> "$OUT/$name.log"
    rc=$?
  else
    rc=127; echo "bench_$name was not built" > "$OUT/$name.txt"
  fi
  note "bench_$name" "rc $rc ($((SECONDS - t0)) s)$( [ $rc -eq 124 ] && echo ": TIMEOUT (raise $var)")"
  if [ -s "$OUT/$name.jsonl" ] && [ -f "$ROOT/bench/scripts/plot_$name.py" ] &&
     python3 -c 'import matplotlib' >/dev/null 2>&1; then
    mkdir -p "$OUT/$name-plots"
    python3 "$ROOT/bench/scripts/plot_$name.py" "$OUT/$name.jsonl" --out "$OUT/$name-plots" >> "$OUT/$name.log" 2>&1
    (cd "$OUT" && tar czf "$name-plots.tgz" "$name-plots" && rm -rf "$name-plots")
  fi
  return $rc
}
# 5d. paper 002's block relaxation on patch sets, its convergence study, streaming and GMG (bench/gpu/bench_relax)
paper_bench relax GPU_CHECK_RELAX_S 300; RLR=$?
# 5e. paper 003's spectral-element operator, its diagonal kernels and PCG (bench/gpu/bench_sem)
paper_bench sem GPU_CHECK_SEM_S 240 -shared "$SHARED"; SMR=$?
# 5f. paper 001's convective flux operation on the sphere-in-a-box hybrid mesh (bench/gpu/bench_fv)
paper_bench fv GPU_CHECK_FV_S 240; FVR=$?
# 5g. issue 14's implicit step on the sphere: the Jacobian, the linear solves, implicit against explicit steps
paper_bench fv_implicit GPU_CHECK_FVI_S 200; FVIR=$?

# ---- 5h. issue 15's Python package: its tests on /gpu/cuda (CuPy's where the image has CuPy), t102 (vectors on the
# caller's arrays) with memcheck, the overhead per call against C (bench/python/bench_overhead.py) on /cpu/ref (the
# host's CPU) and /gpu/cuda, and examples/python/solve_mtx.py on /gpu/cuda; python.jsonl, python.txt. pytest comes
# from .data/pylib (unpacked pure-Python wheels) when the image has none.
PYR=0
if want python; then
  t0=$SECONDS
  PYPATH=$ROOT/python
  SANITIZER=${SANITIZER:-$(command -v compute-sanitizer || echo compute-sanitizer)}
  if ! python3 -c 'import pytest' >/dev/null 2>&1 && [ -d "$ROOT/.data/pylib" ]; then PYPATH=$PYPATH:$ROOT/.data/pylib; fi
  pyrun() { PDS_LIBRARY="$BUILD/libpdesolve.so" PYTHONPATH="$PYPATH" PDS_SHARED_DIR="$SHARED" \
            PDS_APP="$BUILD/bin/pdesolve" timeout "$(left 5)" "$@"; }
  {
    echo "python: $(python3 --version 2>&1); $(python3 -c 'import numpy, scipy; print("numpy", numpy.__version__, "scipy", scipy.__version__)' 2>&1 | tail -1); cupy: $(python3 -c 'import cupy; print(cupy.__version__)' 2>&1 | tail -1)"
    echo "== ctest t102_vec_array:cuda"
    (cd "$BUILD" && ctest -R '^t102_vec_array:cuda$' --output-on-failure 2>&1 | tail -3)
    "$SANITIZER" --tool memcheck --error-exitcode 99 "$BUILD/tests/t102_vec_array" /gpu/cuda 2>&1 | tail -2
    echo "== pytest on /gpu/cuda"
    PDS_TEST_BACKEND=/gpu/cuda pyrun python3 -m pytest -q -p no:cacheprovider -rfEs --tb=short "$ROOT/tests/python" \
      > "$OUT/python-pytest.log" 2>&1
    PYR=$?
    grep -E "^(FAILED|ERROR|SKIPPED)|passed|failed" "$OUT/python-pytest.log" | tail -20
    echo "== examples/python/solve_mtx.py on /gpu/cuda"
    for m in orsirr_1 utm1700a; do
      pyrun python3 "$ROOT/examples/python/solve_mtx.py" "$SHARED/matrices/$m.mtx" --backend /gpu/cuda 2>&1 | tail -4
    done
    echo "== pip install of the repository with CUDA (the wheel's path), then the GPU tests on the installed copy"
    PIPW=$(mktemp -d)
    PIPPATH=; python3 -c 'import scikit_build_core' >/dev/null 2>&1 || PIPPATH=$ROOT/.data/pylib
    PYTHONPATH=$PIPPATH timeout "$(left 60)" python3 -m pip install --no-build-isolation --no-deps --no-index \
      --disable-pip-version-check --target "$PIPW/site" -C build-dir="$PIPW/build" "$ROOT" > "$OUT/python-pip.log" 2>&1
    echo "pip install rc $? (its log: python-pip.log)"
    env -u PDS_LIBRARY PYTHONPATH="$PIPW/site${PIPPATH:+:$PIPPATH}" PDS_TEST_BACKEND=/gpu/cuda PDS_SHARED_DIR="$SHARED" \
      timeout "$(left 30)" python3 -c 'import pdesolve as p; print("installed:", p.library_path, p.backends())' 2>&1 | tail -1
    (cd "$PIPW" && env -u PDS_LIBRARY PYTHONPATH="$PIPW/site${PIPPATH:+:$PIPPATH}" PDS_TEST_BACKEND=/gpu/cuda \
      PDS_SHARED_DIR="$SHARED" timeout "$(left 30)" python3 -m pytest -q -p no:cacheprovider \
      "$ROOT/tests/python/test_device.py" "$ROOT/tests/python/test_core.py" "$ROOT/tests/python/test_scipy.py" 2>&1 | tail -2)
    rm -rf "$PIPW"
    echo "== Python overhead against C"
    for be in /cpu/ref /gpu/cuda; do
      pyrun python3 "$ROOT/bench/python/bench_overhead.py" --c-bench "$BUILD/bench/bench_overhead" --backend "$be" \
        --reps 5000 --warmup 500 --json "$OUT/python.jsonl" 2>&1 | sed -n '/^Python overhead/,$p'
    done
  } > "$OUT/python.txt" 2>&1
  note "python package" "pytest rc $PYR ($((SECONDS - t0)) s)"
else
  echo "skipped (GPU_CHECK_BENCHES)" > "$OUT/python.txt"
fi

# ---- 5i. issue 16's distributed library: bench/mpi/gpu-mpi.sh (tests on 1 and 2 GPUs, rank 0 under memcheck, the
# halo through MPI and through NCCL, the driver, bench_mpi's weak and strong scaling of Poisson, of the multi-block
# channel and of spectral elements (mpisem) on the GPUs, Poisson and the channel on 1-16 host cores), with the OpenMPI
# runtime and the CUDA + MPI binaries carried in .data/mpi (the GPU image has no MPI: bench/mpi/pack-openmpi.sh,
# docs/mpi.md); mpi/ (mpi.jsonl, mpi.txt, summary.txt, logs.tar.gz); a machine of 2 GPUs (nvidia-h100-x2), about 8.5
# minutes.
MPR=0
if want mpi; then
  t0=$SECONDS
  if [ -f "$ROOT/.data/mpi/openmpi.tar.xz" ] && [ -f "$ROOT/.data/mpi/bin.tar.xz" ]; then
    OUT="$OUT/mpi" timeout "$(left 5)" bash "$ROOT/bench/mpi/gpu-mpi.sh" > "$OUT/mpi.txt" 2>&1
    MPR=$?
    note "mpi (bench/mpi/gpu-mpi.sh)" "rc $MPR ($((SECONDS - t0)) s): $(grep -c passed "$OUT/mpi.txt") passed, $(grep -c FAILED "$OUT/mpi.txt") failed"
  else
    echo "skipped: no .data/mpi (bench/mpi/pack-openmpi.sh and a CUDA + MPI build make it, docs/mpi.md)" > "$OUT/mpi.txt"
  fi
else
  echo "skipped (GPU_CHECK_BENCHES)" > "$OUT/mpi.txt"
fi

# ---- 6. the CPU peer: pdesolve /cpu/ref and /cpu/omp against PETSc on the host's cores ---------------------------------
if [ -n "${GPU_CHECK_PEER:-}" ]; then
  t0=$SECONDS
  timeout "$(left 5)" sh "$ROOT/bench/scripts/cpu-vs-petsc.sh" "$GPU_CHECK_PEER" "$OUT/petsc-peer.jsonl" \
    > "$OUT/petsc-peer.txt" 2> "$OUT/petsc-peer.log"
  note "petsc peer (CPU)" "rc $? ($((SECONDS - t0)) s)"
fi

# ---- 7. summary -----------------------------------------------------------------------------------------------------
echo
echo "==================== gpu-check summary ($GPU) ===================="
grep -E '^(vec|csr|bsr|solver|sec) ' "$OUT/bench.log" | grep -v '^vec    omp' | cut -c1-150
grep -E '^copy bandwidth' "$OUT/bench.log"
sed -n '/^GPU (\/gpu\/cuda) vs/,$p' "$OUT/bench.log" | cut -c1-130
[ $BR -ne 0 ] && tail -5 "$OUT/bench.log"
echo "-- bench_fem2d_gpu (paper 004)"
sed -n '/^### paper 004/,$p' "$OUT/fem2d.log" 2>/dev/null | cut -c1-240
[ "$FR" -ne 0 ] && tail -5 "$OUT/fem2d.log"
echo "-- bench_bilu (paper 000; every table in bilu.txt)"
awk '/^### bench_bilu/{p=1} /^Paper 000.s Table 1/{p=0} p' "$OUT/bilu.txt" 2>/dev/null | cut -c1-260
[ "$BLR" -ne 0 ] && tail -5 "$OUT/bilu.log"
echo "-- bench_sync"
cat "$OUT/sync.txt" 2>/dev/null
echo "-- fused_tune (the product fused with a dot against the plain one: variants, same bits)"
cat "$OUT/fused.txt" 2>/dev/null | cut -c1-200
echo "-- bench_ilu (ILU(0) of CSR matrices)"
cat "$OUT/ilu.txt" 2>/dev/null | cut -c1-300
[ "${ILR:-0}" -ne 0 ] && tail -5 "$OUT/ilu.log"
echo "-- bench_relax (paper 002: block relaxation on patches, GMG)"
cat "$OUT/relax.txt" 2>/dev/null | cut -c1-300
[ "${RLR:-0}" -ne 0 ] && tail -5 "$OUT/relax.log"
echo "-- bench_sem (paper 003: spectral-element operator, semjacobi)"
cat "$OUT/sem.txt" 2>/dev/null | cut -c1-300
[ "${SMR:-0}" -ne 0 ] && tail -5 "$OUT/sem.log"
echo "-- bench_fv (paper 001: finite-volume Euler fluxes on a hybrid mesh)"
cat "$OUT/fv.txt" 2>/dev/null | cut -c1-300
[ "${FVR:-0}" -ne 0 ] && tail -5 "$OUT/fv.log"
echo "-- bench_fv_implicit (issue 14: the implicit step)"
cat "$OUT/fv_implicit.txt" 2>/dev/null | cut -c1-300
[ "${FVIR:-0}" -ne 0 ] && tail -5 "$OUT/fv_implicit.log"
[ -s "$OUT/petsc-peer.txt" ] && { echo "-- pdesolve CPU backends vs PETSc (host CPU)"; cat "$OUT/petsc-peer.txt"; }
echo "-- python package (issue 15)"
cat "$OUT/python.txt" 2>/dev/null | cut -c1-300
echo "-- compute-sanitizer"
cat "$OUT/sanitizer.txt" 2>/dev/null
# the first errors of a run that found any, here too: the logs may not all come back from a device machine
# (with the three lines after each, which name the kernel and where)
awk '/^=== /{f=$2; n=0; k=0} k > 0 {print f ":   " $0; k--} /Invalid|ERROR SUMMARY: [1-9]|Program hit|hazard|Barrier error/{
  if (n++ < 4) { print f ": " $0; k = 3 } }' "$OUT/sanitizer.log" 2>/dev/null | grep -v 'ERROR SUMMARY: 0' | head -60
echo "-- failed tests"
cat "$OUT/ctest-failed.txt" 2>/dev/null
echo "--"
printf '%s\n' "${SUMMARY[@]}"
# the device tool brings back at most 8 files: the logs go into one archive beside the JSON lines
(cd "$OUT" && tar czf logs.tgz ./*.log ./*.txt 2>/dev/null && rm -f ./*.log ./*.txt)
echo "in $OUT: bench.jsonl fem2d.jsonl bilu.jsonl sync.jsonl fused.jsonl ilu.jsonl relax.jsonl sem.jsonl fv.jsonl fv_implicit.jsonl (petsc-peer.jsonl with GPU_CHECK_PEER), plots.tgz, and logs.tgz:" \
     "info.log build.log ctest.log sanitizer.log sanitizer.txt bench.log fem2d.log bilu.log bilu.txt plots.log bits.log" \
     "(petsc-peer.txt petsc-peer.log)"
