#!/usr/bin/env python3
"""examples/python/solve_mtx.py: load a Matrix Market file with SciPy, solve it with pdesolve (GMRES + ILU(0) on the
best backend here: the GPU when there is one), and compare with SciPy's GMRES + ILU on the same system: time and
true residual of each.

    python solve_mtx.py FILE.mtx [--backend auto] [--rtol 1e-8] [--restart 30]

b is A times a vector of ones (the error against it is printed too). Needs NumPy and SciPy; pdesolve from
`pip install .` (or PYTHONPATH=python and PDS_LIBRARY=build/libpdesolve.so in a build tree)."""
import argparse
import time

import numpy as np
import scipy.io
import scipy.sparse as sp
import scipy.sparse.linalg as sla

import pdesolve as pds


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("matrix")
    ap.add_argument("--backend", default="auto")
    ap.add_argument("--rtol", type=float, default=1e-8)
    ap.add_argument("--restart", type=int, default=30)
    ap.add_argument("--maxit", type=int, default=2000)
    a = ap.parse_args()

    A = sp.csr_array(scipy.io.mmread(a.matrix))
    A.sum_duplicates()
    A.indices = A.indices.astype(np.int32)        # int32 + float64: pdesolve uses the arrays in place
    n = A.shape[0]
    x_true = np.ones(n)
    b = A @ x_true
    print("%s: %d x %d, %d entries" % (a.matrix, n, A.shape[1], A.nnz))

    with pds.Context(a.backend) as ctx:
        t0 = time.perf_counter()
        M = pds.Matrix(A, ctx)
        s = pds.Solver(M, "gmres", pc="ilu0", rtol=a.rtol, restart=a.restart, maxit=a.maxit)
        s.setup()
        t_setup = time.perf_counter() - t0
        s.solve(b)                                 # a first solve: plans, graphs and caches are built once
        x, r = s.solve(b)
        res = np.linalg.norm(b - A @ x) / np.linalg.norm(b)
        print("pdesolve %-10s gmres(%d) + ilu0: %4d iterations, %-15s setup %8.2f ms, solve %8.2f ms, "
              "||b - A x|| / ||b|| = %.2e, max |x - 1| = %.2e" % (ctx.backend, a.restart, r.iterations, r.reason,
                                                                   1e3 * t_setup, 1e3 * r.time, res,
                                                                   np.abs(x - x_true).max()))

    # SciPy's GMRES with SuperLU's incomplete factorization (no fill beyond A's), then with pdesolve's ILU(0) as
    # its M (the library's preconditioner inside SciPy's Krylov method)
    with pds.Context("/cpu/ref") as ctx:
        for name, make in (("spilu", lambda: sla.spilu(A.tocsc(), drop_tol=0.0, fill_factor=1.0).solve),
                           ("pdesolve ilu0", lambda: pds.Precond(pds.Matrix(A, ctx), "ilu0").aslinearoperator())):
            t0 = time.perf_counter()
            try:
                P = make()
            except RuntimeError as err:  # SuperLU's ILU stops at an exactly zero pivot (utm1700a, say)
                print("SciPy    %-10s gmres(%d) + %s: the factorization failed: %s" % ("host", a.restart, name, err))
                continue
            P = P if isinstance(P, sla.LinearOperator) else sla.LinearOperator(A.shape, matvec=P)
            t_setup = time.perf_counter() - t0
            its = []
            t0 = time.perf_counter()
            xs, info = sla.gmres(A, b, M=P, rtol=a.rtol, restart=a.restart, maxiter=a.maxit,
                                 callback=lambda v: its.append(v), callback_type="pr_norm")
            t_solve = time.perf_counter() - t0
            res = np.linalg.norm(b - A @ xs) / np.linalg.norm(b)
            print("SciPy    %-10s gmres(%d) + %s: %4d iterations, %-15s setup %8.2f ms, solve %8.2f ms, "
                  "||b - A x|| / ||b|| = %.2e, max |x - 1| = %.2e" % (
                      "host", a.restart, name, len(its), "converged" if info == 0 else "info %d" % info,
                      1e3 * t_setup, 1e3 * t_solve, res, np.abs(xs - x_true).max()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
