#!/bin/sh
# bench/scripts/cpu-vs-petsc.sh: pdesolve's CPU backends against PETSc on the same cores, in one run, and the ratio
# table (bench/scripts/petsc_table.py).
#
#   bench/scripts/cpu-vs-petsc.sh PEER [OUT.jsonl]      PEER: a petsc_krylov executable (bench/peers/petsc_krylov.c)
#
# For each P in PDS_PEER_RANKS (default "1 2"): PETSc on P MPI ranks and pdesolve /cpu/omp with P threads (and
# /cpu/ref when P = 1), all restricted to the same P cores with taskset (one logical CPU of each of the first P
# physical cores), on the same matrix and vectors; petsc_krylov
# alternates them round by round and reports medians, with the copy bandwidth of the same P cores. A run with
# P > 1 goes through PDS_PEER_MPIEXEC (default: mpiexec; OpenMPI is told --bind-to none, so that rank 0's OpenMPI
# threads are not tied to one core). PDS_PEER_ARGS: options for petsc_krylov (default "-n 128 -its 30 -reps 3").
set -u
peer=${1:?usage: cpu-vs-petsc.sh PEER [OUT.jsonl]}
out=${2:-petsc-peer-$(date +%Y%m%d-%H%M%S).jsonl}
ranks=${PDS_PEER_RANKS:-1 2}
args=${PDS_PEER_ARGS:--n 128 -its 30 -reps 3}
mpiexec=${PDS_PEER_MPIEXEC:-mpiexec}
here=$(dirname "$0")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# the first P logical CPUs of distinct physical cores (no two hyperthreads of one core), comma-separated
pick_cores() {
  if command -v lscpu >/dev/null 2>&1 && lscpu -p=CPU,CORE,SOCKET >/dev/null 2>&1; then
    lscpu -p=CPU,CORE,SOCKET | grep -v '^#' | awk -F, -v p="$1" '!seen[$3 "," $2]++ && n < p { printf "%s%s", (n ? "," : ""), $1; n++ }'
  else
    seq -s, 0 $(($1 - 1))
  fi
}

bind=""
if $mpiexec --version 2>&1 | grep -qiE "open ?mpi|openrte"; then bind="--bind-to none"; fi
ncpu=$(nproc)
: >"$out"
status=0
for p in $ranks; do
  if [ "$p" -gt "$ncpu" ]; then
    echo "cpu-vs-petsc.sh: $p ranks but $ncpu cores here; skipped" >&2
    continue
  fi
  cores=$(pick_cores "$p")
  echo "cpu-vs-petsc.sh: $p rank(s) on cores $cores: $args" >&2
  if [ "$p" = 1 ]; then
    # shellcheck disable=SC2086
    taskset -c "$cores" "$peer" $args >>"$out" || status=1
  else
    # shellcheck disable=SC2086
    taskset -c "$cores" $mpiexec $bind -n "$p" "$peer" $args >>"$out" || status=1
  fi
done
python3 "$here/petsc_table.py" <"$out" || status=1
echo "cpu-vs-petsc.sh: JSON lines in $out" >&2
exit $status
