"""pdesolve/scipy_ops.py: pdesolve matrices and preconditioners as scipy.sparse.linalg.LinearOperator (the other
direction, a LinearOperator as a pdesolve matrix or preconditioner, is Matrix(op) / Precond.shell(op))."""
import numpy as np


def _operator(shape, fn):
    from scipy.sparse.linalg import LinearOperator

    def mv(x):
        return np.asarray(fn(np.ascontiguousarray(np.asarray(x, dtype=np.float64).reshape(-1))))

    return LinearOperator(shape, matvec=mv, dtype=np.float64)


def matrix_operator(A):
    """y = A x through the library (on A's context; on /gpu/cuda each product copies x up and y down)."""
    from scipy.sparse.linalg import LinearOperator
    op = _operator(A.shape, A.matvec)
    if A.type == "csr":
        op = LinearOperator(A.shape, matvec=op.matvec, rmatvec=lambda x: np.asarray(A.rmatvec(
            np.ascontiguousarray(np.asarray(x, dtype=np.float64).reshape(-1)))), dtype=np.float64)
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
