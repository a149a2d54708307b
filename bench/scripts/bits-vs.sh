#!/bin/sh
# bench/scripts/bits-vs.sh OLD NEW: two builds of the pdesolve driver against each other, bit for bit: every solver
# x preconditioner (cg, bicgstab, gmres, fgmres, richardson x none, jacobi, pbjacobi) on generated problems and real
# matrices, on /cpu/ref and /cpu/omp; a run differs when the exit status, the iteration count or the solution file
# (Matrix Market, written with round-trip precision) is not the same. For a change that must keep the bits.
#   bench/scripts/bits-vs.sh old-build/bin/pdesolve build/bin/pdesolve      (PDS_SHARED_DIR: folder with matrices/)
# PDS_BITS_BACKENDS: the backends to compare on (default "/cpu/ref /cpu/omp"; "/gpu/cuda" on a GPU machine).
set -u
old=${1:?usage: bits-vs.sh OLD_PDESOLVE NEW_PDESOLVE} new=${2:?usage: bits-vs.sh OLD_PDESOLVE NEW_PDESOLVE}
M=${PDS_SHARED_DIR:-$(dirname "$0")/../../../shared}/matrices
d=$(mktemp -d)
fail=0 n=0
for be in ${PDS_BITS_BACKENDS:-/cpu/ref /cpu/omp}; do
  # on /gpu/cuda also a system over 2^18 unknowns: its solves without a preconditioner run the kernel sequence, not the
  # cooperative launch that the smaller ones take
  big=; [ "$be" = /gpu/cuda ] && big="-problem poisson7 -n 72"
  for case in "-problem poisson7 -n 40" "-problem fem2d -nodes 50000" "-A $M/sherman1.mtx -b $M/sherman1_rhs1.mtx" \
              "-A $M/bcsstk13.mtx" "-A $M/orsirr_1.mtx" "-A $M/nos3.mtx" ${big:+"$big"}; do
    for sv in cg bicgstab gmres fgmres richardson; do
      for pc in none jacobi pbjacobi; do
        [ "$sv" = richardson ] && [ "$pc" = none ] && continue
        # shellcheck disable=SC2086
        set -- solve $case -backend $be -solver $sv -pc $pc -rtol 1e-9 -maxit 400
        "$old" "$@" -o "$d/a.mtx" >"$d/a.log" 2>&1; ra=$?
        "$new" "$@" -o "$d/b.mtx" >"$d/b.log" 2>&1; rb=$?
        n=$((n + 1))
        ia=$(grep -o "iterations=[0-9]*" "$d/a.log" | tail -1) ib=$(grep -o "iterations=[0-9]*" "$d/b.log" | tail -1)
        if [ $ra != $rb ] || [ "$ia" != "$ib" ] || ! cmp -s "$d/a.mtx" "$d/b.mtx"; then
          echo "differs: $* (exit $ra $ia / exit $rb $ib)"
          tail -3 "$d/a.log" | sed 's/^/  old: /'
          tail -3 "$d/b.log" | sed 's/^/  new: /'
          fail=$((fail + 1))
        fi
      done
    done
  done
done
rm -rf "$d"
echo "bits-vs.sh: $n runs, $fail differ"
[ $fail = 0 ]
