"""tests/python/test_scipy.py: SciPy interop both ways: pdesolve matrices and preconditioners as LinearOperators in
scipy.sparse.linalg's solvers, and SciPy LinearOperators and Python functions as pdesolve shell matrices and
preconditioners."""
import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as sla

import pdesolve as pds
from conftest import matrix_path


def _system(ctx):
    path = matrix_path("pde900")
    import scipy.io
    A = sp.csr_array(scipy.io.mmread(path))
    A.indices = A.indices.astype(np.int32)
    b = A @ np.ones(A.shape[0])
    return A, pds.Matrix(A, ctx), b


def test_pdesolve_in_scipy(ctx):
    A, M, b = _system(ctx)
    pc = pds.Precond(M, "ilu0")
    x, info = sla.gmres(M.aslinearoperator(), b, M=pc.aslinearoperator(), rtol=1e-10, restart=30, maxiter=50)
    assert info == 0 and np.linalg.norm(A @ x - b) <= 1e-9 * np.linalg.norm(b)
    # the preconditioner helps SciPy as it helps pdesolve
    its = {}
    for name, m in (("none", None), ("ilu0", pc.aslinearoperator())):
        count = []
        sla.gmres(A, b, M=m, rtol=1e-8, restart=200, callback=lambda r: count.append(r), callback_type="pr_norm")
        its[name] = len(count)
    assert its["ilu0"] < its["none"] / 2
    assert np.allclose(M.aslinearoperator().rmatvec(b), A.T @ b)


def test_scipy_in_pdesolve(ctx):
    A, M, b = _system(ctx)
    # a LinearOperator as the operator (shell), SciPy's ILU as the preconditioner (shell)
    ilu = sla.spilu(sp.csc_matrix(A), drop_tol=0, fill_factor=1)
    op = sla.LinearOperator(A.shape, matvec=lambda v: A @ v)
    S = pds.Matrix(op, ctx)
    assert S.type == "shell" and S.shape == A.shape
    x, r = pds.Solver(S, "gmres", pc=sla.LinearOperator(A.shape, matvec=ilu.solve), rtol=1e-10).solve(b)
    assert r.converged and np.linalg.norm(A @ x - b) <= 2e-10 * np.linalg.norm(b)
    # the same system through the library's own csr and ilu0: the same solution to the tolerance
    x2, r2 = pds.Solver(M, "gmres", pc="ilu0", rtol=1e-10).solve(b)
    assert np.allclose(x, x2, rtol=1e-7)
    # a plain callable with shape=
    S2 = pds.Matrix.shell(lambda v: A @ v, ctx, shape=A.shape)
    assert np.allclose(S2 @ b, A @ b)
    # a Python function as the preconditioner
    d = A.diagonal()
    x3, r3 = pds.Solver(M, "bicgstab", pc=lambda v: v / d).solve(b)
    x4, r4 = pds.Solver(M, "bicgstab", pc="jacobi").solve(b)
    assert r3.iterations == r4.iterations and np.allclose(x3, x4, rtol=1e-12)
