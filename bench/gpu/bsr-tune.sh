#!/usr/bin/env bash
# bench/gpu/bsr-tune.sh: the BSR product kernels (src/backend/cuda/cuda_bsr.cu) checked and timed in one call on a GPU
# machine: builds only equiv_bsr, t201_mat, t301_precond and bsr_tune (Release, CUDA on), runs the tests on /gpu/cuda
# and bsr_tune -check, then bsr_tune's timings (every kernel and layout against cuSPARSE bsrmv, 7-point block pattern),
# then compute-sanitizer (memcheck, racecheck, synccheck) on equiv_bsr and bsr_tune -check -small; a compact table last.
# Logs go to $OUT (default ./bsr-tune-out). BSR_TUNE_CASES (m:bs,...) replaces the default cases;
# BSR_TUNE_SANITIZE=0 skips the sanitizer phase.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-$ROOT/bsr-tune-out}
BUILD=${BUILD:-$ROOT/build-bsr-tune}
JOBS=$(nproc 2>/dev/null || echo 8)
mkdir -p "$OUT"
S=()
note() { S+=("$(printf '%-22s %s' "$1" "$2")"); }
{
  date -u +%FT%TZ
  nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem,driver_version --format=csv
  nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv
  nvcc --version | tail -1
} > "$OUT/info.log" 2>&1
cat "$OUT/info.log"

t0=$SECONDS
GEN=(); command -v ninja >/dev/null && GEN=(-G Ninja)
cmake -S "$ROOT" -B "$BUILD" "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release -DPDS_ENABLE_CUDA=ON -DPDS_TEST_AREAS=equiv \
  > "$OUT/build.log" 2>&1 &&
  cmake --build "$BUILD" -j "$JOBS" --target equiv_bsr t201_mat t301_precond bsr_tune >> "$OUT/build.log" 2>&1
RC=$?
note build "rc $RC ($((SECONDS - t0)) s)"
if [ $RC -ne 0 ]; then grep -E "error" "$OUT/build.log" | head -20; printf '%s\n' "${S[@]}"; exit 1; fi
TUNE=$BUILD/bench/bsr_tune

t0=$SECONDS
{
  for t in equiv/equiv_bsr t201_mat t301_precond; do
    echo "=== $t /gpu/cuda"; timeout 120 "$BUILD/tests/$t" /gpu/cuda; echo "rc $?"
  done
  echo "=== bsr_tune -check"; timeout 180 "$TUNE" -check; echo "rc $?"
} > "$OUT/tests.log" 2>&1
note tests "$(grep -c '^rc 0' "$OUT/tests.log") of 4 rc 0 ($((SECONDS - t0)) s); $(grep '^check:' "$OUT/tests.log")"
grep -E "FAIL|fail" "$OUT/tests.log" | grep -v " 0 failures" | head -20

t0=$SECONDS
CASES=()
[ -n "${BSR_TUNE_CASES:-}" ] && CASES=(-cases "$BSR_TUNE_CASES")
timeout 300 "$TUNE" -perf "${CASES[@]}" -json "$OUT/tune.jsonl" > "$OUT/tune.log" 2>&1
note "bsr_tune -perf" "rc $? ($((SECONDS - t0)) s)"

if [ "${BSR_TUNE_SANITIZE:-1}" != 0 ]; then
  t0=$SECONDS
  SAN=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
  san() { # tool, then the command
    local tool=$1; shift
    local log; log=$(mktemp)
    PDS_TEST_SMALL=1 timeout 120 "$SAN" --tool "$tool" --error-exitcode 99 "$@" > "$log" 2>&1
    local rc=$? r
    case $rc in 0) r=clean;; 99) r=ERRORS;; 124) r=TIMEOUT;; *) r="exit $rc";; esac
    echo "$tool $(basename "$1") $2: $r ($(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -1))"
    grep -v '^=========  *$' "$log" | grep -E "=====|FAIL" | head -30 >&2
    rm -f "$log"
  }
  {
    san memcheck "$BUILD/tests/equiv/equiv_bsr" /gpu/cuda &
    san memcheck "$TUNE" -check -small &
    san racecheck "$TUNE" -check -small &
    san synccheck "$TUNE" -check -small &
    san racecheck "$BUILD/tests/equiv/equiv_bsr" /gpu/cuda &
    wait
  } > "$OUT/sanitizer.txt" 2> "$OUT/sanitizer.log"
  note compute-sanitizer "$(grep -c ': clean' "$OUT/sanitizer.txt") clean of $(wc -l < "$OUT/sanitizer.txt") ($((SECONDS - t0)) s)"
fi

echo
echo "==================== bsr-tune summary ($(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)) ===================="
grep -E "^copy bandwidth|^== " "$OUT/tune.log"
sed -n '/^cells /,$p' "$OUT/tune.log"
cat "$OUT/sanitizer.txt" 2>/dev/null
printf '%s\n' "${S[@]}"
