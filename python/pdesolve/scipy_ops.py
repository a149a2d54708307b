"""pdesolve/scipy_ops.py: pdesolve matrices and preconditioners as scipy.sparse.linalg.LinearOperator (the other
direction, a LinearOperator as a pdesolve matrix or preconditioner, is Matrix(op) / Precond.shell(op))."""
import numpy as np


def _vec(x):
    return np.ascontiguousarray(np.asarray(x, dtype=np.float64).reshape(-1))


def _operator(shape, fn, rfn=None):
    from scipy.sparse.linalg import LinearOperator
    return LinearOperator(shape, matvec=lambda x: np.asarray(fn(_vec(x))),
                          rmatvec=None if rfn is None else (lambda x: np.asarray(rfn(_vec(x)))), dtype=np.float64)


def matrix_operator(A):
    """y = A x through the library (on A's context; on /gpu/cuda each product copies x up and y down); A^T x too for
    csr."""
    op = _operator(A.shape, A.matvec, A.rmatvec if A.type == "csr" else None)
    op.pdesolve = A
    return op


def precond_operator(pc):
    """y = M^-1 x through the library: for the M= argument of scipy.sparse.linalg's solvers."""
    n = pc.A.shape[0] if pc.A is not None else None
    if n is None:
        raise ValueError("pdesolve: the preconditioner has no operator yet (Precond(A, ...) sets it)")
    op = _operator((n, n), pc.apply)
    op.pdesolve = pc
    return op
