#!/bin/sh
# bench/scripts/run_cpu.sh: run the CPU benchmarks of a build and collect their JSON lines.
#
#   bench/scripts/run_cpu.sh BUILD_DIR [OUT.jsonl]        (default OUT: bench-<date>.jsonl)
#
# On a shared machine, other processes steal cores and bandwidth from a run: each benchmark waits (up to
# PDS_BENCH_WAIT seconds, default 300) until the CPUs are idle (at least PDS_BENCH_MINIDLE, default 0.97, of
# the time over 3 s) before it starts. Every JSON line carries the load average ("load1") it ran under.
# Repeat the script and merge the runs: python3 bench/scripts/table.py --merge < all.jsonl PETSc runs only when
# BUILD_DIR has petsc_krylov (built when pkg-config finds PETSc): bench/scripts/cpu-vs-petsc.sh runs it on 1 and 2
# cores; PDS_BENCH_MPIEXEC is its launcher (default mpiexec).
# Then: python3 bench/scripts/table.py < OUT.jsonl
set -u
build=${1:?usage: run_cpu.sh BUILD_DIR [OUT.jsonl]}
out=${2:-bench-$(date +%Y%m%d-%H%M%S).jsonl}
minidle=${PDS_BENCH_MINIDLE:-0.97}
wait_s=${PDS_BENCH_WAIT:-300}
mpiexec=${PDS_BENCH_MPIEXEC:-mpiexec}
n=${PDS_BENCH_N:-128}

# idle fraction of all CPUs over 3 seconds (from /proc/stat)
idle3() {
  a=$(awk '/^cpu /{print $2+$3+$4+$5+$6+$7+$8, $5+$6}' /proc/stat)
  sleep 3
  b=$(awk '/^cpu /{print $2+$3+$4+$5+$6+$7+$8, $5+$6}' /proc/stat)
  echo "$a $b" | awk '{t = $3 - $1; print (t > 0 ? ($4 - $2) / t : 0)}'
}

quiet() {
  t=0
  while [ "$t" -lt "$wait_s" ]; do
    if awk -v i="$(idle3)" -v m="$minidle" 'BEGIN { exit !(i >= m) }'; then return 0; fi
    t=$((t + 3))
  done
  echo "run_cpu.sh: the machine is still busy after ${wait_s} s; running anyway" >&2
}

run() {
  quiet
  echo "run_cpu.sh: $*" >&2
  "$@" >>"$out" || echo "run_cpu.sh: '$*' failed" >&2
}

: >"$out"
run "$build/bench/bench_blas1" -n 16777216 -reps 20
run "$build/bench/bench_spmv" -n "$n" -reps 20
if [ -x "$build/bench/bench_solve" ]; then
  run "$build/bench/bench_solve" -n "$n" -its 100 -reps 3
fi
if [ -x "$build/bench/petsc_krylov" ]; then
  quiet
  echo "run_cpu.sh: petsc_krylov on 1 and 2 cores (cpu-vs-petsc.sh)" >&2
  PDS_PEER_ARGS="-n $n -its 30 -reps 3" PDS_PEER_MPIEXEC="$mpiexec" \
    sh "$(dirname "$0")/cpu-vs-petsc.sh" "$build/bench/petsc_krylov" "$out.peer" >&2 && cat "$out.peer" >>"$out" ||
    echo "run_cpu.sh: the PETSc comparison failed" >&2
  rm -f "$out.peer"
fi
echo "run_cpu.sh: results in $out" >&2
