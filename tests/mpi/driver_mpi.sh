#!/bin/sh
# tests/mpi/driver_mpi.sh MPIEXEC "FLAGS" PDESOLVE BACKEND MATRIX: the driver under mpirun against itself on one rank.
#   - -A FILE with gmres + jacobi, -problem poisson7 with cg + jacobi and gmres: the iteration count of 1 rank on 2
#     and 3 ranks, one result line (rank 0's) with ranks=; bicgstab, bjacobi and asm converge; -pc bjacobi -sub_pc
#     ilu0 converges; -json has "ranks" and per-rank times;
#   - -problem channel -decomp: bjacobi(bilu0) on 2 and 3 ranks takes the iterations of bilu0 on one rank (gmres,
#     richardson); -blocks under mpirun is a clear error;
#   - fem2d (built on rank 0, spread by rows), patches (whole patches a rank) and sem (whole elements a rank, matrix-free):
#     one rank's iterations and discretization error on 3 with cg + jacobi; patches with bjacobi(gmg) reach one rank's
#     gmg solution; sem with semjacobi and bjacobi(semjacobi) takes one rank's semjacobi iterations (also with its
#     elements cut by METIS), and -o writes the solution in the space's numbering (one rank's values to round-off);
#     -vtk refused; -halo nccl without NCCL refused;
#   - a missing file: every rank exits with status 1 (no hang: ctest's timeout would say so).
set -u
MPIEXEC=$1 FLAGS=$2 PDS=$3 BE=$4 MTX=$5
TMP=${TMPDIR:-/tmp}/pds_driver_mpi.$$
mkdir -p "$TMP" && trap 'rm -rf "$TMP"' EXIT
fail() { echo "driver_mpi: FAILED: $*" >&2; exit 1; }
# PDS_TEST_SMALL (the sanitizer run, where every start of a rank costs seconds): against one rank on 3 ranks only, and
# on /cpu/ref only (the driver's distributed path is the same on every backend; tm01_dist covers /cpu/omp's): exit 77,
# which ctest counts as skipped
NPS="2 3"
if [ -n "${PDS_TEST_SMALL:-}" ]; then
  NPS=3
  [ "$BE" = /cpu/ref ] || { echo "driver_mpi: $BE skipped in the small run (PDS_TEST_SMALL)"; exit 77; }
fi
its() { sed -n 's/^result:.* iterations=\([0-9]*\) .*/\1/p' "$1"; }

run() { # run NP OUT ARGS...: pdesolve solve on NP ranks (1: without mpirun); its exit status also in RUN_RC
  np=$1 out=$2; shift 2
  if [ "$np" = 1 ]; then "$PDS" solve -backend "$BE" "$@" > "$out" 2>&1
  else $MPIEXEC $FLAGS -n "$np" "$PDS" solve -backend "$BE" "$@" > "$out" 2>&1; fi
  RUN_RC=$?
  return $RUN_RC
}
RUN_RC=0
why() { # OUT: what the last run said: its exit status, the lines naming an error (a sanitizer's, MPI's), its last lines
  echo "exit $RUN_RC; $(grep -E 'Sanitizer|SUMMARY|ERROR|[Ee]rror|abort|signal|leak' "$1" | head -12)"
  tail -3 "$1"
}

# (bicgstab only converges, below: its residuals follow round-off once they stagnate, and the split product of the
# distributed matrix sums a row in another order; on poisson7 12x10x9 the residuals of 1 and 2 ranks agree to 1e-12
# for ten iterations, then drift apart: 36 iterations against 38; on orsirr_1, 328 against 592)
for args in "-A $MTX -solver gmres -pc jacobi" "-problem poisson7 -n 12 10 9 -solver gmres -pc none" \
            "-problem poisson7 -n 12 10 9 -solver cg -pc jacobi"; do
  # shellcheck disable=SC2086
  run 1 "$TMP/np1" $args || fail "one rank: $args: $(why "$TMP/np1")"
  for np in $NPS; do
    # shellcheck disable=SC2086
    run $np "$TMP/np$np" $args || fail "$np ranks: $args: $(why "$TMP/np$np")"
    [ "$(its "$TMP/np1")" = "$(its "$TMP/np$np")" ] ||
      fail "$args: $(its "$TMP/np1") iterations on one rank, $(its "$TMP/np$np") on $np"
    grep -q "ranks=$np " "$TMP/np$np" || fail "$args: no ranks=$np in the result line"
    [ "$(grep -c '^result:' "$TMP/np$np")" = 1 ] || fail "$args: one result line expected (rank 0's)"
  done
  echo "ok: $args: $(its "$TMP/np1") iterations on 1, 2 and 3 ranks"
done
run 3 "$TMP/bi" -problem poisson7 -n 12 10 9 -solver bicgstab -pc jacobi || fail "bicgstab: $(why "$TMP/bi")"
echo "ok: bicgstab + jacobi on 3 ranks: $(its "$TMP/bi") iterations"
run 3 "$TMP/bj" -A "$MTX" -solver gmres -pc bjacobi -sub_pc ilu0 -json "$TMP/r.json" ||
  fail "bjacobi: $(why "$TMP/bj")"
grep -q '"ranks": 3' "$TMP/r.json" && grep -q '"t_comm_rank": \[' "$TMP/r.json" || fail "-json lacks ranks or times"
echo "ok: gmres + bjacobi(ilu0) on 3 ranks: $(its "$TMP/bj") iterations"
run 3 "$TMP/as" -A "$MTX" -solver gmres -pc asm -sub_pc ilu0 -view || fail "asm: $(why "$TMP/as")"
grep -q "additive Schwarz over 3 ranks, overlap 1" "$TMP/as" || fail "asm: -view does not describe it"
echo "ok: gmres + asm(ilu0) on 3 ranks: $(its "$TMP/as") iterations"
# -o gathers the solution on rank 0: the file of 3 ranks against the one of 1 rank; -history prints every iteration
args="-problem poisson7 -n 12 10 9 -solver cg -pc jacobi -rtol 1e-12 -history"
# shellcheck disable=SC2086
run 1 "$TMP/o1" $args -o "$TMP/x1.mtx" || fail "-o on one rank: $(why "$TMP/o1")"
# shellcheck disable=SC2086
run 3 "$TMP/o3" $args -o "$TMP/x3.mtx" || fail "-o on 3 ranks: $(why "$TMP/o3")"
[ "$(grep -c 'history residual norm' "$TMP/o3")" = "$(($(its "$TMP/o3") + 1))" ] || fail "-history: not one line an iteration"
paste "$TMP/x1.mtx" "$TMP/x3.mtx" | awk 'NR > 3 { d = $1 - $2; if (d < 0) d = -d; if (d > m) m = d; n++ }
  END { if (n != 1080 || m > 1e-9) { print "x differs: " n " rows, max diff " m; exit 1 } }' ||
  fail "-o: the solution of 3 ranks differs from one rank's"
echo "ok: -o gathers the solution of 3 ranks (equal to one rank's), -history"
# -partition metis (where the build has METIS): the same solution, the edge cut in -view, b read in the file's numbering
if run 3 "$TMP/pm" -A "$MTX" -solver gmres -pc jacobi -partition metis -view -o "$TMP/xm.mtx"; then
  grep -q "METIS" "$TMP/pm" || fail "-partition metis: -view does not say so"
  run 1 "$TMP/p1" -A "$MTX" -solver gmres -pc jacobi -o "$TMP/xp1.mtx" || fail "one rank: $(why "$TMP/p1")"
  paste "$TMP/xp1.mtx" "$TMP/xm.mtx" | awk 'NR > 3 { d = $1 - $2; if (d < 0) d = -d; if (d > m) m = d }
    END { if (m > 1e-6) { print "max diff " m; exit 1 } }' || fail "-partition metis: another solution"
  echo "ok: -partition metis: $(its "$TMP/pm") iterations, the solution of one rank"
else
  grep -q "without METIS" "$TMP/pm" || fail "-partition metis failed: $(why "$TMP/pm")"
  echo "ok: -partition metis: this build has no METIS, and says so"
fi
# the channel cut into blocks over the ranks (paper 000's multi-block layout): bjacobi(bilu0) on 2 and 3 ranks is
# bilu0 of the same blocks on one rank (the iteration counts of gmres and of richardson, the defect correction)
for solver in gmres richardson; do
  args="-problem channel -n 12 8 6 -bs 5 -cfl 1 -decomp 3 2 1 -solver $solver"
  # shellcheck disable=SC2086
  run 1 "$TMP/c1" $args -pc bilu0 || fail "channel, one rank: $(why "$TMP/c1")"
  for np in $NPS; do
    # shellcheck disable=SC2086
    run $np "$TMP/c$np" $args -pc bjacobi -sub_pc bilu0 -view || fail "channel, $np ranks: $(why "$TMP/c$np")"
    [ "$(its "$TMP/c1")" = "$(its "$TMP/c$np")" ] ||
      fail "channel $solver: $(its "$TMP/c1") iterations on one rank, $(its "$TMP/c$np") on $np"
    grep -q "mpistencil7" "$TMP/c$np" || fail "channel: -view does not show mpistencil7"
  done
  echo "ok: channel in 6 blocks, $solver + bilu0: $(its "$TMP/c1") iterations on 1 rank and with bjacobi on $NPS"
done
run 2 "$TMP/cb" -problem channel -n 8 -blocks 2 -solver gmres -pc bjacobi -sub_pc bilu0
[ $? = 1 ] && grep -q "decomp" "$TMP/cb" || fail "channel -blocks under mpirun: no clear error"
# fem2d (built whole on rank 0 and spread by rows), patches and sem: cg + jacobi takes one rank's iterations and reaches
# its discretization error (the same to the printed digits); -vtk is refused under mpirun
derr() { sed -n 's/^result:.* disc_err=\([0-9.e+-]*\).*/\1/p' "$1"; }
for args in "-problem fem2d -nodes 1500 -fem manufactured -dirichlet symmetric" "-problem patches -n 12" \
            "-problem sem -elements 2 -order 4"; do
  # shellcheck disable=SC2086
  run 1 "$TMP/w1" $args -solver cg -pc jacobi || fail "one rank: $args: $(why "$TMP/w1")"
  # shellcheck disable=SC2086
  run 3 "$TMP/w3" $args -solver cg -pc jacobi || fail "3 ranks: $args: $(why "$TMP/w3")"
  [ "$(its "$TMP/w1")" = "$(its "$TMP/w3")" ] && [ -n "$(derr "$TMP/w1")" ] && [ "$(derr "$TMP/w1")" = "$(derr "$TMP/w3")" ] ||
    fail "$args: one rank $(its "$TMP/w1") iterations, disc_err $(derr "$TMP/w1"); 3 ranks $(its "$TMP/w3"), $(derr "$TMP/w3")"
  echo "ok: $args on 3 ranks: $(its "$TMP/w1") iterations, disc_err $(derr "$TMP/w1") as on one"
done
# patches under mpirun are whole patches a rank: bjacobi with gmg on each rank's patches converges to one rank's gmg
# solution (the same discretization error to 5 digits)
run 1 "$TMP/g1" -problem patches -n 16 -patch 8 -solver cg -pc gmg || fail "patches gmg, one rank: $(why "$TMP/g1")"
run 3 "$TMP/g3" -problem patches -n 16 -patch 8 -solver cg -pc bjacobi -sub_pc gmg -view ||
  fail "patches bjacobi(gmg), 3 ranks: $(why "$TMP/g3")"
grep -q "mpipatches" "$TMP/g3" || fail "patches under mpirun: -view does not show mpipatches"
awk -v a="$(derr "$TMP/g1")" -v b="$(derr "$TMP/g3")" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a > 0 && d <= 1e-5 * a) }' ||
  fail "patches: disc_err $(derr "$TMP/g1") with gmg on one rank, $(derr "$TMP/g3") with bjacobi(gmg) on 3"
echo "ok: patches, bjacobi(gmg) on 3 ranks: $(its "$TMP/g3") iterations (gmg on one: $(its "$TMP/g1")), disc_err $(derr "$TMP/g3")"
# sem over the ranks (mpisem): semjacobi, and bjacobi with semjacobi on each rank's share, in one rank's semjacobi
# iterations; the solution written by -o in the space's numbering, as one rank's to round-off
run 1 "$TMP/s1" -problem sem -elements 3 2 2 -order 5 -deform 0.1 -solver cg -pc semjacobi -o "$TMP/s1.mtx" ||
  fail "sem semjacobi, one rank: $(why "$TMP/s1")"
for np in $NPS; do
  for pc in "semjacobi" "bjacobi -sub_pc semjacobi"; do
    # shellcheck disable=SC2086
    run "$np" "$TMP/s3" -problem sem -elements 3 2 2 -order 5 -deform 0.1 -solver cg -pc $pc -view -o "$TMP/s3.mtx" ||
      fail "sem $pc, $np ranks: $(why "$TMP/s3")"
    grep -q "mpisem" "$TMP/s3" || fail "sem under mpirun: -view does not show mpisem"
    [ "$(its "$TMP/s1")" = "$(its "$TMP/s3")" ] && [ "$(derr "$TMP/s1")" = "$(derr "$TMP/s3")" ] ||
      fail "sem $pc on $np ranks: $(its "$TMP/s3") iterations, disc_err $(derr "$TMP/s3"); one rank $(its "$TMP/s1"), $(derr "$TMP/s1")"
    paste "$TMP/s1.mtx" "$TMP/s3.mtx" | awk 'NF == 2 && $1 !~ /^%/ { n++; d = $1 - $2; if (d < 0) d = -d; if (d > m) m = d }
      END { exit !(n > 100 && m <= 1e-9) }' || fail "sem $pc on $np ranks: -o differs from one rank's solution"
    echo "ok: sem, cg + $pc on $np ranks: $(its "$TMP/s3") iterations as semjacobi on one, disc_err $(derr "$TMP/s3"), -o as one rank's"
  done
done
# sem with its elements cut by METIS (where the build has it): one rank's iterations and error, -view says so
if run 3 "$TMP/sm" -problem sem -elements 3 2 2 -order 5 -deform 0.1 -solver cg -pc semjacobi -partition metis -view; then
  grep -q "METIS" "$TMP/sm" && [ "$(its "$TMP/s1")" = "$(its "$TMP/sm")" ] && [ "$(derr "$TMP/s1")" = "$(derr "$TMP/sm")" ] ||
    fail "sem -partition metis: $(its "$TMP/sm") iterations, disc_err $(derr "$TMP/sm"); one rank $(its "$TMP/s1")"
  echo "ok: sem -partition metis on 3 ranks: $(its "$TMP/sm") iterations as on one"
else
  grep -q "without METIS" "$TMP/sm" || fail "sem -partition metis failed: $(why "$TMP/sm")"
fi
run 2 "$TMP/vtk" -problem sem -elements 2 -order 3 -solver cg -pc jacobi -vtk "$TMP/x.vtu"
[ $? = 1 ] && grep -q "vtk" "$TMP/vtk" || fail "-vtk under mpirun: no clear error"
# -halo nccl where the backend has no NCCL: a clear error on every rank (the GPU machine runs it for real)
if [ "$BE" != /gpu/cuda ]; then
  run 2 "$TMP/nc" -problem poisson7 -n 8 -solver cg -pc jacobi -halo nccl
  [ $? = 1 ] && grep -q "nccl" "$TMP/nc" || fail "-halo nccl on $BE: no clear error: $(why "$TMP/nc")"
  echo "ok: -halo nccl on $BE says it needs NCCL"
fi
run 2 "$TMP/missing" -A "$TMP/no-such-file.mtx"
rc=$?
[ $rc = 1 ] || fail "a missing file: exit status $rc, expected 1"
grep -q "error" "$TMP/missing" || fail "a missing file: no error message"
echo "ok: a missing file fails on every rank"
echo "1 passed, 0 failed"
