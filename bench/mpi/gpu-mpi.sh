#!/usr/bin/env bash
# bench/mpi/gpu-mpi.sh: the distributed library on a machine with 2 GPUs and no MPI of its own (the device tool's
# nvidia-h100-x2 / nvidia-h200-x2), in one call:
#   1. tests: td18_channel_decomposed (the coupled stencil7 matrix) on /gpu/cuda; tm01_dist, tm02_stencil7 and
#      tm03_patches on /gpu/cuda with 1 and 2 ranks (a GPU a rank), tm01 and tm02 with 2 ranks with rank 0 under
#      compute-sanitizer (memcheck); the driver on 2 GPUs (poisson7, a file with asm, the channel in blocks); tm01-03 and
#      the channel again with the halo through NCCL (libnccl.so.2 of the image's Python wheel);
#   2. bench_mpi: weak scaling (256^3 a GPU) and strong scaling (256^3 in all) on 1 and 2 GPUs: the product with its
#      parts and the overlap of the exchange, CG + Jacobi, GMRES(30) + bjacobi(ilu0); the multi-block channel (n = 6,
#      bjacobi(bilu0)): weak 96^3 cells a GPU in four blocks, strong 128^3 in 16 x 2 x 1 blocks; the 2-GPU runs again
#      with -halo nccl;
#   3. bench_mpi on 1, 2, 4, 8, 16 ranks of the host's cores (/cpu/omp, a thread a rank): weak (64^3 a rank) and strong
#      (128^3 in all); the channel weak (24^3 a rank) and strong (48^3);
#   sem (part "sem"): td12_sem_op on /gpu/cuda (the sem kernels keep ref's bits), tm04_sem with 1
#      and 2 GPUs, through NCCL and with rank 0 under memcheck, the driver's sem on 1 and 2 GPUs, and bench_mpi -cases
#      sem (32^3 elements of order 7 a GPU weak, 32^3 in all strong; CG + semjacobi), the 2-GPU runs again with NCCL,
#      and on 1-16 host cores (/cpu/omp, 8^3 elements a rank weak, 16^3 in all strong);
#   4. a short table (bench/mpi/table.py) at the end.
# What it carries (made on the CPU machine, which has MPI and the CUDA compiler; the GPU machine has neither MPI nor
# its headers): .data/mpi/openmpi.tar.xz (bench/mpi/pack-openmpi.sh) and .data/mpi/bin.tar.xz (bin/: tm01_dist,
# tm02_stencil7, tm03_patches, tm04_sem, td18_channel_decomposed, td12_sem_op, bench_mpi and pdesolve of a CUDA + MPI
# build, and libmetis.so.5 when it has METIS), .data/mpi/orsirr_1.mtx and .data/mpi/hybrid_3d_cube.msh. Logs and JSON lines
# go to $OUT.
# GPU_MPI_PARTS: which parts run (default: tests gpu sem cpu). What comes back is a few files (the device tool returns
# only a handful): machine.txt, mpi.jsonl, mpi.txt, summary.txt and logs.tar.gz (every log).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
FINAL=${OUT:-$ROOT/gpu-mpi-out}
DATA=$ROOT/.data/mpi
PARTS=" ${GPU_MPI_PARTS:-tests gpu sem cpu} "
mkdir -p "$FINAL"
OUT=$(mktemp -d) # the logs, packed into $FINAL/logs.tar.gz at the end
T=$(mktemp -d)
tar -C "$T" -xJf "$DATA/openmpi.tar.xz" && tar -C "$T" -xJf "$DATA/bin.tar.xz" || { echo "gpu-mpi.sh: cannot unpack"; exit 1; }
P=$T/openmpi
export OPAL_PREFIX=$P PATH=$P/bin:$PATH
export LD_LIBRARY_PATH=$T/bin:$P/lib/dep:$P/lib/x86_64-linux-gnu/openmpi/lib:/usr/local/cuda/lib64:/usr/local/cuda/lib:${LD_LIBRARY_PATH:-}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader OMPI_MCA_pml=ob1
export OMPI_MCA_btl_vader_single_copy_mechanism=none NCCL_NVLS_ENABLE=0
# NCCL for the "nccl" halo transport (the library loads libnccl.so.2 at run time): the image's, from its Python wheel
NCCL_DIR=$(python3 -c 'import os, nvidia.nccl as n; print(os.path.join(list(n.__path__)[0], "lib"))' 2>/dev/null)
[ -e "$NCCL_DIR/libnccl.so.2" ] || NCCL_DIR=$(dirname "$(find / -name libnccl.so.2 -not -path '/proc/*' 2>/dev/null | head -1)")
export LD_LIBRARY_PATH=$NCCL_DIR:$LD_LIBRARY_PATH
MPIRUN=(mpirun --oversubscribe --bind-to none)   # the GPU runs: a rank a GPU, the host's cores free
MPIRUN_CPU=(mpirun --bind-to core --map-by core)  # the CPU runs: a rank a core, none oversubscribed
B=$T/bin
declare -a SUMMARY=()
# the table, the summary and the logs into $FINAL: at the end, or when a TERM (a timeout) cuts the run short
finish() {
  trap - TERM EXIT
  python3 "$ROOT/bench/mpi/table.py" "$OUT/mpi.jsonl" > "$OUT/mpi.txt" 2>&1
  cat "$OUT/mpi.txt"
  echo "=== gpu-mpi.sh summary"
  printf '%s\n' "${SUMMARY[@]}" | tee "$FINAL/summary.txt"
  cp "$OUT/machine.txt" "$OUT/mpi.jsonl" "$OUT/mpi.txt" "$FINAL/" 2> /dev/null
  tar -C "$OUT" -czf "$FINAL/logs.tar.gz" .
  rm -rf "$T" "$OUT"
}
trap 'finish; exit 143' TERM
note() { SUMMARY+=("$(printf '%-44s %s' "$1" "$2")"); }
{
  date -u +%FT%TZ
  nvidia-smi -L
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv
  echo "cores: $(nproc); cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
  mpirun --version | head -1
  echo "libnccl.so.2: $NCCL_DIR ($(ls "$NCCL_DIR" 2>/dev/null | grep -m1 'libnccl.so.2'))"
} > "$OUT/machine.txt" 2>&1
cat "$OUT/machine.txt"

# ---- 1. tests ----
if [[ $PARTS == *" tests "* ]]; then
for np in 1 2; do
  if timeout 240 "${MPIRUN[@]}" -n $np "$B/tm01_dist" /gpu/cuda "$DATA/orsirr_1.mtx" > "$OUT/tm01_cuda_np$np.log" 2>&1
  then note "tm01_dist /gpu/cuda np $np" "passed"; else note "tm01_dist /gpu/cuda np $np" "FAILED (tm01_cuda_np$np.log)"; fi
done
if timeout 120 "$B/td18_channel_decomposed" /gpu/cuda > "$OUT/td18_cuda.log" 2>&1
then note "td18_channel_decomposed /gpu/cuda" "passed"; else note "td18_channel_decomposed /gpu/cuda" "FAILED (td18_cuda.log)"; fi
for np in 1 2; do
  if timeout 240 "${MPIRUN[@]}" -n $np "$B/tm02_stencil7" /gpu/cuda > "$OUT/tm02_cuda_np$np.log" 2>&1
  then note "tm02_stencil7 /gpu/cuda np $np" "passed"; else note "tm02_stencil7 /gpu/cuda np $np" "FAILED (tm02_cuda_np$np.log)"; fi
done
if timeout 300 "${MPIRUN[@]}" -n 1 compute-sanitizer --tool memcheck --error-exitcode 9 "$B/tm02_stencil7" /gpu/cuda \
     : -n 1 "$B/tm02_stencil7" /gpu/cuda > "$OUT/tm02_memcheck.log" 2>&1
then note "tm02_stencil7 np 2, rank 0 under memcheck" "passed, $(grep -m1 -o 'ERROR SUMMARY: [0-9]* errors' "$OUT/tm02_memcheck.log")"
else note "tm02_stencil7 np 2, rank 0 under memcheck" "FAILED (tm02_memcheck.log)"; fi
for np in 1 2; do
  if timeout 240 "${MPIRUN[@]}" -n $np "$B/tm03_patches" /gpu/cuda > "$OUT/tm03_cuda_np$np.log" 2>&1
  then note "tm03_patches /gpu/cuda np $np" "passed"; else note "tm03_patches /gpu/cuda np $np" "FAILED (tm03_cuda_np$np.log)"; fi
done
for t in tm01_dist tm02_stencil7 tm03_patches; do # the halo through NCCL between the GPUs
  if timeout 240 "${MPIRUN[@]}" -x PDS_TEST_HALO=nccl -n 2 "$B/$t" /gpu/cuda "$DATA/orsirr_1.mtx" > "$OUT/${t}_nccl.log" 2>&1
  then note "$t /gpu/cuda np 2, halo via NCCL" "passed"; else note "$t /gpu/cuda np 2, halo via NCCL" "FAILED (${t}_nccl.log)"; fi
done
if timeout 400 "${MPIRUN[@]}" -n 1 compute-sanitizer --tool memcheck --error-exitcode 9 "$B/tm01_dist" /gpu/cuda \
     "$DATA/orsirr_1.mtx" : -n 1 "$B/tm01_dist" /gpu/cuda "$DATA/orsirr_1.mtx" > "$OUT/tm01_memcheck.log" 2>&1
then note "tm01_dist np 2, rank 0 under memcheck" "passed, $(grep -m1 -o 'ERROR SUMMARY: [0-9]* errors' "$OUT/tm01_memcheck.log")"
else note "tm01_dist np 2, rank 0 under memcheck" "FAILED (tm01_memcheck.log)"; fi
if timeout 120 "${MPIRUN[@]}" -n 2 "$B/pdesolve" solve -problem poisson7 -n 128 128 128 -backend /gpu/cuda -solver cg \
     -pc jacobi -view -json "$OUT/driver.json" > "$OUT/driver.log" 2>&1
then note "pdesolve solve poisson7 128^3 on 2 GPUs" "$(grep '^result:' "$OUT/driver.log" | grep -o 'iterations=[0-9]* reason=[a-z_]*')"
else note "pdesolve solve poisson7 128^3 on 2 GPUs" "FAILED (driver.log)"; fi

if timeout 120 "${MPIRUN[@]}" -n 2 "$B/pdesolve" solve -A "$DATA/orsirr_1.mtx" -backend /gpu/cuda -solver gmres \
     -pc asm -view > "$OUT/driver_asm.log" 2>&1
then note "pdesolve solve orsirr_1 gmres + asm, 2 GPUs" "$(grep '^result:' "$OUT/driver_asm.log" | grep -o 'iterations=[0-9]* reason=[a-z_]*')"
else note "pdesolve solve orsirr_1 gmres + asm, 2 GPUs" "FAILED (driver_asm.log)"; fi

if timeout 120 "${MPIRUN[@]}" -n 2 "$B/pdesolve" solve -problem channel -n 64 64 64 -decomp 4 2 1 -backend /gpu/cuda \
     -solver gmres -pc bjacobi -sub_pc bilu0 -view > "$OUT/driver_channel.log" 2>&1
then note "pdesolve solve channel 64^3 in 8 blocks, 2 GPUs" "$(grep '^result:' "$OUT/driver_channel.log" | grep -o 'iterations=[0-9]* reason=[a-z_]*')"
else note "pdesolve solve channel 64^3 in 8 blocks, 2 GPUs" "FAILED (driver_channel.log)"; fi
if timeout 120 "${MPIRUN[@]}" -n 2 "$B/pdesolve" solve -problem channel -n 64 64 64 -decomp 4 2 1 -backend /gpu/cuda \
     -solver gmres -pc bjacobi -sub_pc bilu0 -halo nccl -view > "$OUT/driver_channel_nccl.log" 2>&1
then note "... the same, -halo nccl" "$(grep '^result:' "$OUT/driver_channel_nccl.log" | grep -o 'iterations=[0-9]* reason=[a-z_]*')"
else note "... the same, -halo nccl" "FAILED (driver_channel_nccl.log)"; fi

fi
# ---- 2. GPUs ----
: > "$OUT/mpi.jsonl"
if [[ $PARTS == *" gpu "* ]]; then
for sc in 0 1; do
  for np in 1 2; do
    timeout 200 "${MPIRUN[@]}" -n $np "$B/bench_mpi" -backend /gpu/cuda -n 256 -strong $sc -its 100 -reps 5 \
      >> "$OUT/mpi.jsonl" 2>> "$OUT/bench_gpu.err" || note "bench_mpi gpu np $np strong $sc" "FAILED (bench_gpu.err)"
  done
done
for sc in 0 1; do
  c=96; [ $sc = 1 ] && c=128
  for np in 1 2; do
    timeout 200 "${MPIRUN[@]}" -n $np "$B/bench_mpi" -backend /gpu/cuda -cases channel -c $c -strong $sc -its 50 -reps 5 \
      >> "$OUT/mpi.jsonl" 2>> "$OUT/bench_gpu.err" || note "bench_mpi channel gpu np $np strong $sc" "FAILED (bench_gpu.err)"
  done
done
for sc in 0 1; do # 2 GPUs with the halo through NCCL (the one-GPU lines above are the base)
  timeout 200 "${MPIRUN[@]}" -n 2 "$B/bench_mpi" -backend /gpu/cuda -n 256 -strong $sc -its 100 -reps 5 -halo nccl \
    >> "$OUT/mpi.jsonl" 2>> "$OUT/bench_gpu.err" || note "bench_mpi gpu np 2 strong $sc nccl" "FAILED (bench_gpu.err)"
  c=96; [ $sc = 1 ] && c=128
  timeout 200 "${MPIRUN[@]}" -n 2 "$B/bench_mpi" -backend /gpu/cuda -cases channel -c $c -strong $sc -its 50 -reps 5 \
    -halo nccl >> "$OUT/mpi.jsonl" 2>> "$OUT/bench_gpu.err" || note "bench_mpi channel gpu np 2 strong $sc nccl" "FAILED"
done
fi
# ---- sem: spectral elements over the ranks (mpisem, matrix-free; its kernels read the ghosts) ----
if [[ $PARTS == *" sem "* ]]; then
if timeout 300 "$B/td12_sem_op" /gpu/cuda > "$OUT/td12_cuda.log" 2>&1
then note "td12_sem_op /gpu/cuda (ref's bits)" "passed"; else note "td12_sem_op /gpu/cuda (ref's bits)" "FAILED (td12_cuda.log)"; fi
for np in 1 2; do
  if timeout 240 "${MPIRUN[@]}" -n $np "$B/tm04_sem" /gpu/cuda "$DATA/orsirr_1.mtx" "$DATA/hybrid_3d_cube.msh" \
       > "$OUT/tm04_cuda_np$np.log" 2>&1
  then note "tm04_sem /gpu/cuda np $np" "passed"; else note "tm04_sem /gpu/cuda np $np" "FAILED (tm04_cuda_np$np.log)"; fi
done
if timeout 240 "${MPIRUN[@]}" -x PDS_TEST_HALO=nccl -n 2 "$B/tm04_sem" /gpu/cuda "$DATA/orsirr_1.mtx" \
     "$DATA/hybrid_3d_cube.msh" > "$OUT/tm04_nccl.log" 2>&1
then note "tm04_sem /gpu/cuda np 2, halo via NCCL" "passed"; else note "tm04_sem /gpu/cuda np 2, halo via NCCL" "FAILED (tm04_nccl.log)"; fi
if timeout 400 "${MPIRUN[@]}" -n 1 compute-sanitizer --tool memcheck --error-exitcode 9 "$B/tm04_sem" /gpu/cuda \
     "$DATA/orsirr_1.mtx" "$DATA/hybrid_3d_cube.msh" : -n 1 "$B/tm04_sem" /gpu/cuda "$DATA/orsirr_1.mtx" \
     "$DATA/hybrid_3d_cube.msh" > "$OUT/tm04_memcheck.log" 2>&1
then note "tm04_sem np 2, rank 0 under memcheck" "passed, $(grep -m1 -o 'ERROR SUMMARY: [0-9]* errors' "$OUT/tm04_memcheck.log")"
else note "tm04_sem np 2, rank 0 under memcheck" "FAILED (tm04_memcheck.log)"; fi
for np in 1 2; do
  if timeout 120 "${MPIRUN[@]}" -n $np "$B/pdesolve" solve -problem sem -elements 16 16 16 -order 7 -backend /gpu/cuda \
       -solver cg -pc semjacobi -view > "$OUT/driver_sem_np$np.log" 2>&1
  then note "pdesolve solve sem 16^3 order 7, $np GPU(s)" "$(grep '^result:' "$OUT/driver_sem_np$np.log" | grep -o 'iterations=[0-9]* reason=[a-z_]*')"
  else note "pdesolve solve sem 16^3 order 7, $np GPU(s)" "FAILED (driver_sem_np$np.log)"; fi
done
if timeout 120 "${MPIRUN[@]}" -n 2 "$B/pdesolve" solve -problem sem -elements 16 16 16 -order 7 -backend /gpu/cuda \
     -solver cg -pc bjacobi -sub_pc semjacobi -partition metis -view > "$OUT/driver_sem_metis.log" 2>&1
then note "... 2 GPUs, bjacobi(semjacobi), METIS" "$(grep '^result:' "$OUT/driver_sem_metis.log" | grep -o 'iterations=[0-9]* reason=[a-z_]*')"
else note "... 2 GPUs, bjacobi(semjacobi), METIS" "FAILED (driver_sem_metis.log)"; fi
for sc in 0 1; do
  for np in 1 2; do
    timeout 200 "${MPIRUN[@]}" -n $np "$B/bench_mpi" -backend /gpu/cuda -cases sem -e 32 -order 7 -strong $sc -its 100 \
      -reps 5 >> "$OUT/mpi.jsonl" 2>> "$OUT/bench_sem.err" || note "bench_mpi sem gpu np $np strong $sc" "FAILED (bench_sem.err)"
  done
  timeout 200 "${MPIRUN[@]}" -n 2 "$B/bench_mpi" -backend /gpu/cuda -cases sem -e 32 -order 7 -strong $sc -its 100 \
    -reps 5 -halo nccl >> "$OUT/mpi.jsonl" 2>> "$OUT/bench_sem.err" || note "bench_mpi sem gpu np 2 strong $sc nccl" "FAILED"
done
for np in 1 2 4 8 16; do # the host's cores, a rank a core: 8^3 elements of order 7 a rank (weak), 16^3 in all (strong)
  [ "$np" -gt "$(nproc)" ] && continue
  for sc in 0 1; do
    e=8; [ $sc = 1 ] && e=16
    OMP_NUM_THREADS=1 timeout 150 "${MPIRUN_CPU[@]}" -n $np "$B/bench_mpi" -backend /cpu/omp -cases sem \
      -e $e -order 7 -strong $sc -its 20 -reps 3 >> "$OUT/mpi.jsonl" 2>> "$OUT/bench_sem.err" ||
      note "bench_mpi sem cpu np $np strong $sc" "FAILED (bench_sem.err)"
  done
done
fi
# ---- 3. CPU ranks ----
ncpu=$(nproc)
if [[ $PARTS == *" cpu "* ]]; then
for np in 1 2 4 8 16; do
  [ "$np" -gt "$ncpu" ] && continue
  for sc in 0 1; do
    n=64; [ $sc = 1 ] && n=128
    OMP_NUM_THREADS=1 timeout 150 "${MPIRUN_CPU[@]}" -n $np "$B/bench_mpi" -backend /cpu/omp -n $n -strong $sc -its 30 \
      -reps 3 >> "$OUT/mpi.jsonl" 2>> "$OUT/bench_cpu.err" || note "bench_mpi cpu np $np strong $sc" "FAILED"
  done
done
for np in 1 2 4 8 16; do
  [ "$np" -gt "$ncpu" ] && continue
  for sc in 0 1; do
    c=24; [ $sc = 1 ] && c=48
    OMP_NUM_THREADS=1 timeout 150 "${MPIRUN_CPU[@]}" -n $np "$B/bench_mpi" -backend /cpu/omp -cases channel -c $c \
      -strong $sc -its 10 -reps 3 >> "$OUT/mpi.jsonl" 2>> "$OUT/bench_cpu.err" || note "bench_mpi channel cpu np $np strong $sc" "FAILED"
  done
done
fi
finish  # (also on a TERM: a run cut short still returns what it has)
