#!/bin/sh
# bench/scripts/ab-time.sh OLD NEW: the time per iteration of two builds of the pdesolve driver, alternately on the same
# machine (old, new, old, new, old, new: the median of each), for a change that must make solves faster without
# changing them (bits-vs.sh checks the bits): CG and BiCGSTAB without a preconditioner on poisson7 64^3 (one
# cooperative launch per chunk of iterations) and 256^3 (the kernel sequence), BiCGSTAB on paper 004's FEM grids 3,
# 4 (cooperative) and 6 (sequence); a fixed number of iterations (rtol 1e-30), t_solve / iterations.
#   bench/scripts/ab-time.sh old-build/bin/pdesolve build/bin/pdesolve      (PDS_AB_BACKEND: default /gpu/cuda)
# One line per case: old and new us per iteration, new / old.
set -u
old=${1:?usage: ab-time.sh OLD_PDESOLVE NEW_PDESOLVE} new=${2:?usage: ab-time.sh OLD_PDESOLVE NEW_PDESOLVE}
be=${PDS_AB_BACKEND:-/gpu/cuda}
d=$(mktemp -d)
per_it() { # exe args...: us per iteration of one run, or "fail"
  exe=$1; shift
  "$exe" solve "$@" -backend "$be" -rtol 1e-30 > "$d/log" 2>&1
  line=$(grep "^result:" "$d/log" | tail -1)
  its=$(echo "$line" | sed -n 's/.* iterations=\([0-9]*\) .*/\1/p') t=$(echo "$line" | sed -n 's/.* t_solve=\([^ ]*\).*/\1/p')
  if [ -n "$its" ] && [ -n "$t" ] && [ "$its" -gt 0 ]; then awk -v t="$t" -v k="$its" 'BEGIN { printf "%.3f", 1e6 * t / k }'
  else echo fail; tail -2 "$d/log" >&2; fi
}
median3() { printf '%s\n' "$@" | sort -g | sed -n 2p; }
printf '| case | old us/it | new us/it | new / old |\n|---|---|---|---|\n'
while IFS='|' read -r name args; do
  [ -n "$name" ] || continue
  # shellcheck disable=SC2086
  a1=$(per_it "$old" $args) b1=$(per_it "$new" $args) a2=$(per_it "$old" $args) b2=$(per_it "$new" $args)
  # shellcheck disable=SC2086
  a3=$(per_it "$old" $args) b3=$(per_it "$new" $args)
  a=$(median3 "$a1" "$a2" "$a3") b=$(median3 "$b1" "$b2" "$b3")
  printf '| %s | %s | %s | %s |\n' "$name" "$a" "$b" "$(awk -v a="$a" -v b="$b" 'BEGIN { if (a > 0) printf "%.3f", b / a; else print "-" }')"
done <<'CASES'
CG poisson7 64^3|-problem poisson7 -n 64 -solver cg -pc none -maxit 3000
BiCGSTAB poisson7 64^3|-problem poisson7 -n 64 -solver bicgstab -pc none -maxit 2000
CG poisson7 256^3|-problem poisson7 -n 256 -solver cg -pc none -maxit 300
BiCGSTAB poisson7 256^3|-problem poisson7 -n 256 -solver bicgstab -pc none -maxit 150
BiCGSTAB FEM grid 3 (46068 nodes)|-problem fem2d -nodes 46068 -solver bicgstab -pc none -maxit 3000
BiCGSTAB FEM grid 4 (106377 nodes)|-problem fem2d -nodes 106377 -solver bicgstab -pc none -maxit 3000
BiCGSTAB FEM grid 6 (1694081 nodes)|-problem fem2d -nodes 1694081 -solver bicgstab -pc none -maxit 1000
CASES
rm -rf "$d"
