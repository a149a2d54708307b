"""tests/python/test_errors.py: every library error is a Python exception of its code's class carrying the
library's message; bad input loses nothing; not converging is a result unless asked to raise."""
import numpy as np
import pytest
import scipy.sparse as sp

import pdesolve as pds
from pdesolve import errors
from conftest import matrix_path


def test_error_classes():
    assert issubclass(errors.ArgumentError, ValueError) and issubclass(errors.FileError, OSError)
    assert issubclass(errors.OutOfMemoryError, MemoryError) and issubclass(errors.ZeroPivotError, ArithmeticError)
    for code in range(-10, 0):
        assert errors.error_class(code).code == code


def test_bad_context():
    with pytest.raises(errors.ArgumentError, match="nosuch"):
        pds.Context("/cpu/nosuch")


def test_unknown_names(ctx):
    A = pds.Matrix(sp.csr_array(sp.eye(4)), ctx)
    with pytest.raises(errors.ArgumentError, match="unknown solver 'foo'"):
        pds.Solver(A, "foo")
    with pytest.raises(errors.ArgumentError, match="unknown preconditioner"):
        pds.Precond(A, "foo")
    with pytest.raises(errors.ArgumentError, match="unknown option bogus"):
        pds.Precond(A, "ilu0", bogus=1)
    with pytest.raises(errors.ArgumentError):
        pds.Precond(A, "ilu0", variant="nosuch")
    with pytest.raises(errors.ArgumentError, match="precision"):
        pds.Solver(A, "cg", precision="half")


def test_files(ctx, tmp_path):
    with pytest.raises(errors.FileError):
        pds.Matrix.read(tmp_path / "missing.mtx", ctx)
    bad = tmp_path / "bad.mtx"
    bad.write_text("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1.0\n4 1 2.0\n")
    with pytest.raises(errors.FormatError, match="line 4: row index 4 is out of range"):
        pds.Matrix.read(bad, ctx)
    bad.write_text("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 abc\n")
    with pytest.raises(errors.FormatError, match="line 3"):
        pds.Matrix.read(bad, ctx)


def test_sizes_and_values(ctx):
    A = pds.Matrix(sp.csr_array(sp.eye(5) * 2.0), ctx)
    s = pds.Solver(A, "cg")
    with pytest.raises(errors.SizeError):
        s.solve(np.ones(4))
    with pytest.raises(errors.SizeError):
        A @ np.ones(6)
    nan = sp.csr_array(sp.eye(3))
    nan.data[1] = np.nan
    with pytest.raises(errors.ArgumentError, match="finite|NaN"):
        pds.Matrix(nan, ctx)
    with pytest.raises(errors.ArgumentError, match="indptr"):
        pds.Matrix.from_csr(np.array([0, 1]), np.array([0], dtype=np.int32), np.array([1.0]), (3, 3), ctx)


def test_vector_arrays(ctx):
    """a complex array is an error, not its real part without a word; so is one of two dimensions with more than
    one entry each (its flattened length once matched a matrix of twice the rows); rows and columns are vectors"""
    A = pds.Matrix(sp.csr_array(sp.eye(5) * 2.0), ctx)
    s = pds.Solver(A, "cg", rtol=1e-12)
    for b in (np.ones(5) + 1j, np.ones(5, dtype=np.complex64)):
        with pytest.raises(errors.ArgumentError, match="complex"):
            s.solve(b)
        with pytest.raises(errors.ArgumentError, match="complex"):
            pds.Vector(b, ctx)
    with pytest.raises(errors.ArgumentError, match="shape"):
        pds.Solver(pds.Matrix(sp.csr_array(sp.eye(10) * 2.0), ctx), "cg").solve(np.ones((5, 2)))
    with pytest.raises(errors.ArgumentError, match="shape"):
        pds.Vector(np.ones((2, 3)), ctx)
    for b in (np.ones((5, 1)), np.ones((1, 5)), np.ones(5, dtype=np.int64)):
        x, r = s.solve(b)
        assert r.converged and np.allclose(x, 0.5)


def test_singular_block(ctx):
    A = sp.csr_array(np.array([[1.0, 2, 0, 0], [2, 4, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]))
    M = pds.Matrix(A, ctx)
    with pytest.raises(errors.ZeroPivotError, match="block"):
        pds.Precond(M, "pbjacobi", block_size=2)


def test_convergence_is_a_result(ctx):
    A = pds.Matrix.read(matrix_path("orsirr_1"), ctx)
    b = A @ np.ones(A.shape[0])
    x, r = pds.Solver(A, "gmres", maxit=3).solve(b)
    assert not r.converged and r.reason == "diverged_maxit" and r.iterations == 3
    with pytest.raises(pds.ConvergenceError, match="did not converge") as e:
        pds.Solver(A, "gmres", maxit=3, raise_on_failure=True).solve(b)
    assert e.value.result.iterations == 3


def test_callback_exceptions(ctx):
    A = pds.Matrix(sp.csr_array(sp.eye(6) * 3.0), ctx)

    def bad(v):
        raise KeyError("from the preconditioner")
    with pytest.raises(KeyError, match="from the preconditioner") as e:
        pds.Solver(A, "gmres", pc=bad).solve(np.ones(6))
    assert isinstance(e.value.__cause__, errors.PdsError)   # the library's error is its cause
    with pytest.raises(ValueError, match="returned 5 values"):
        pds.Matrix.shell(lambda v: v[:5], ctx, shape=(6, 6)) @ np.ones(6)
    with pytest.raises(RuntimeError, match="stop"):
        pds.Solver(A, "cg", monitor=lambda it, r: (_ for _ in ()).throw(RuntimeError("stop"))).solve(np.ones(6))
    # the context still works after a callback failed
    x, r = pds.Solver(A, "cg").solve(np.ones(6))
    assert r.converged and np.allclose(x, 1 / 3.0)


def test_closed_objects(ctx):
    A = pds.Matrix(sp.csr_array(sp.eye(3)), ctx)
    A.close()
    with pytest.raises(errors.StateError, match="closed"):
        A.shape
    with pytest.raises(errors.ArgumentError, match="Context"):
        pds.Matrix(sp.csr_array(sp.eye(3)), "/cpu/ref")
