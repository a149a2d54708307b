#!/usr/bin/env bash
# bench/gpu/fused-tune.sh: bench/gpu/fused_tune alone, in one short call on a GPU machine (about two minutes with the
# machine's start): builds only the library and fused_tune (Release, CUDA on), runs it (its variants are checked for
# the library's bits before anything is timed), and writes the SASS of its stream kernels, where ptxas' batching of
# the tile's loads shows (count the LDG before the first DMUL of the tile loop). Logs go to $OUT (default
# ./fused-tune-out). FUSED_TUNE_ARGS (default "-rounds 9 -reps 20") go to fused_tune.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-$ROOT/fused-tune-out}
BUILD=${BUILD:-$ROOT/build-fused-tune}
JOBS=$(nproc 2>/dev/null || echo 8)
mkdir -p "$OUT"
{
  date -u +%FT%TZ
  nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem,driver_version --format=csv
  nvcc --version | tail -1
} > "$OUT/info.log" 2>&1
cat "$OUT/info.log"
t0=$SECONDS
GEN=(); command -v ninja >/dev/null && GEN=(-G Ninja)
cmake -S "$ROOT" -B "$BUILD" "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release -DPDS_ENABLE_CUDA=ON > "$OUT/build.log" 2>&1 &&
  cmake --build "$BUILD" -j "$JOBS" --target fused_tune >> "$OUT/build.log" 2>&1
RC=$?
echo "build rc $RC ($((SECONDS - t0)) s)"
[ $RC -ne 0 ] && { grep -E "error" "$OUT/build.log" | head -20; exit 1; }
t0=$SECONDS
# shellcheck disable=SC2086
timeout 300 "$BUILD/bench/fused_tune" ${FUSED_TUNE_ARGS:--rounds 9 -reps 20} 2>&1 | tee "$OUT/fused_tune.txt"
RC=${PIPESTATUS[0]}
echo "fused_tune rc $RC ($((SECONDS - t0)) s)"
if command -v cuobjdump > /dev/null; then
  cuobjdump -sass "$BUILD/bench/fused_tune" 2> /dev/null |
    awk '/Function :/{keep = ($3 ~ /stream/)} keep' > "$OUT/stream-sass.txt"
  echo "SASS of the stream kernels: $(grep -c 'Function :' "$OUT/stream-sass.txt") functions in stream-sass.txt"
fi
exit $RC
