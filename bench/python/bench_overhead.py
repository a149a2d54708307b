#!/usr/bin/env python3
"""bench/python/bench_overhead.py: the Python package's overhead per call against the same calls from C, in one run.

    python bench_overhead.py --c-bench build/bench/bench_overhead [--backend /cpu/ref] [--reps 20000]
                             [--json out.jsonl]

Runs the C program (bench/bench_overhead.c: the library calls behind each operation, timed from C), then the same
operations from Python on the same system: create_matrix (pds.Matrix of a scipy CSR, in place, then close),
create_solver (Solver with a jacobi Precond, then close), solve (NumPy b in, NumPy x out), pc_apply and matvec
(NumPy in and out), and the same three with Vectors made once (the _vec rows: no array wrapping per call). Each is
the median over --reps calls after a warm-up. Before any time is reported the Python solve must give the C solve's
iterations, residual and solution bit for bit. Prints one JSON object per line and a markdown table: C us, Python
us, the overhead (the difference) and the target (20 us a call)."""
import argparse
import json
import os
import platform
import subprocess
import sys
import time

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import pdesolve as pds  # noqa: E402


def median_us(fn, reps, warmup):
    for _ in range(warmup):
        fn()
    t = np.empty(reps)
    clock = time.perf_counter
    for i in range(reps):
        t0 = clock()
        fn()
        t[i] = clock() - t0
    return 1e6 * float(np.median(t))


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--c-bench", required=True)
    ap.add_argument("--backend", default="/cpu/ref")
    ap.add_argument("--n", type=int, default=8)
    ap.add_argument("--reps", type=int, default=20000)
    ap.add_argument("--warmup", type=int, default=2000)
    ap.add_argument("--json")
    a = ap.parse_args()

    out = subprocess.run([a.c_bench, "-backend", a.backend, "-n", str(a.n), "-reps", str(a.reps), "-warmup",
                          str(a.warmup)], check=True, capture_output=True, text=True).stdout
    c_rows = [json.loads(l) for l in out.splitlines() if l.strip()]
    c_us = {r["op"]: r["us"] for r in c_rows if r["op"] != "check"}
    check = [r for r in c_rows if r["op"] == "check"][0]

    n = a.n
    A = sp.csr_array(sp.diags([-1.0, 4.0, -1.0], [-1, 0, 1], shape=(n, n)))
    A.indices = A.indices.astype(np.int32)
    b = np.ones(n)
    ctx = pds.Context(a.backend)
    M = pds.Matrix(A, ctx)
    s = pds.Solver(M, "cg", pc="jacobi", rtol=1e-8)
    s.setup()
    pc = s.pc
    # validation: the same iterations, residual and solution bits as the C program
    x, r = s.solve(b)
    if r.iterations != check["iterations"] or r.rnorm != check["rnorm"] or not np.array_equal(x, check["x"]):
        print("bench_overhead: the Python solve differs from C's: %d its, rnorm %r, x %r against %r"
              % (r.iterations, r.rnorm, x, check), file=sys.stderr)
        return 1

    def create_matrix():
        pds.Matrix(A, ctx).close()

    def create_solver():
        t = pds.Solver(M, "cg", pc="jacobi")
        t.pc.close()
        t.close()

    bv, xv, yv = pds.Vector(b, ctx), pds.Vector(n, ctx), pds.Vector(n, ctx)
    ops = [("create_matrix", create_matrix, "create_matrix"),
           ("create_solver", create_solver, "create_solver"),
           ("solve", lambda: s.solve(b), "solve"),
           ("solve_vec", lambda: s.solve(bv, x=xv), "solve"),
           ("pc_apply", lambda: pc.apply(b), "pc_apply"),
           ("pc_apply_vec", lambda: pc.apply(bv, out=yv), "pc_apply"),
           ("matvec", lambda: M @ b, "matvec"),
           ("matvec_vec", lambda: M.matvec(bv, out=yv), "matvec")]
    machine = "%s, %s, Python %s, NumPy %s" % (cpu_name(), a.backend, platform.python_version(), np.__version__)
    rows = []
    for name, fn, cop in ops:
        py = median_us(fn, a.reps, a.warmup)
        row = {"bench": "overhead", "op": name, "backend": a.backend, "n": n, "reps": a.reps, "c_us": c_us[cop],
               "python_us": round(py, 3), "overhead_us": round(py - c_us[cop], 3), "machine": machine}
        rows.append(row)
        print(json.dumps(row), flush=True)
    if a.json:
        with open(a.json, "a") as f:
            for row in rows:
                f.write(json.dumps(row) + "\n")
    print("\nPython overhead per call (%s; n = %d, median of %d)\n" % (machine, n, a.reps))
    print("| operation | C us | Python us | overhead us | under 20 us |")
    print("|---|---|---|---|---|")
    for row in rows:
        print("| %s | %.2f | %.2f | %.2f | %s |" % (row["op"], row["c_us"], row["python_us"], row["overhead_us"],
                                                   "yes" if row["overhead_us"] < 20 else "NO"))
    ctx.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
