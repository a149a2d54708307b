"""tests/python/test_core.py: vectors and matrices from NumPy and SciPy (in place where the dtypes allow: the data
pointers are checked), products against SciPy, conversions, Matrix Market, views."""
import numpy as np
import pytest
import scipy.sparse as sp

import pdesolve as pds
from conftest import matrix_path


def _csr(n=40, seed=3, index=np.int32):
    A = sp.random(n, n, density=0.15, format="csr", random_state=seed) + sp.eye(n) * 5.0
    A = sp.csr_array(A)
    A.sort_indices()
    A.indices = A.indices.astype(index)
    A.indptr = A.indptr.astype(index)
    return A


def test_vector_in_place(ctx):
    a = np.arange(1.0, 9.0)
    v = pds.Vector(a, ctx)
    assert v.shares == "numpy" and v.size == 8 and len(v) == 8
    assert v.numpy() is a                                # the same array, not a copy
    assert v.norm() == pytest.approx(np.linalg.norm(a))
    assert v.norm("inf") == 8.0
    v.set(2.0)
    assert np.all(v.numpy() == 2.0) and np.all(a == 2.0)  # the library wrote into the array
    assert v.dot(pds.Vector(np.ones(8), ctx)) == 16.0


def test_vector_copies_what_cannot_be_used_in_place(ctx):
    for a in (np.arange(8, dtype=np.int64), np.arange(16.0)[::2], np.arange(9.0)[1:], [1.0, 2.0]):
        v = pds.Vector(a, ctx)
        assert np.array_equal(v.numpy(), np.asarray(a, dtype=float))
        assert v.shares == "numpy" and v.numpy() is not a
    ro = np.arange(4.0)
    ro.flags.writeable = False
    assert pds.Vector(ro, ctx).numpy() is not ro
    z = pds.Vector(5, ctx)
    assert np.array_equal(z.numpy(), np.zeros(5))
    assert "Vector(n=5" in repr(z)


def test_matrix_from_scipy_csr_zero_copy(ctx):
    A = _csr()
    M = pds.Matrix(A, ctx)
    assert M.type == "csr" and M.shape == A.shape and M.nnz == A.nnz
    rp, ci, va = M._keep
    assert ci.ctypes.data == A.indices.ctypes.data      # column indices used in place
    assert va.ctypes.data == A.data.ctypes.data         # values used in place
    assert rp.dtype == np.int64                         # the row pointer converted (allowed)
    x = np.random.default_rng(1).standard_normal(A.shape[0])
    assert np.allclose(M @ x, A @ x, rtol=1e-14, atol=1e-14)
    assert np.allclose(M.rmatvec(x), A.T @ x, rtol=1e-14, atol=1e-14)
    assert np.allclose(M.diagonal(), A.diagonal())
    assert np.allclose(M.residual(x, x), x - A @ x)
    B = M.to_scipy()
    assert (abs(B - A)).max() == 0


def test_matrix_conversions_copy_once(ctx):
    A = _csr(index=np.int64)
    M = pds.Matrix(A, ctx)                               # int64 indices: converted once
    assert M._keep[1].dtype == np.int32 and M._keep[1].ctypes.data != A.indices.ctypes.data
    C = pds.Matrix(sp.coo_array(A), ctx)                 # any format: through CSR
    x = np.ones(A.shape[0])
    assert np.array_equal(M @ x, C @ x)
    Mc = pds.Matrix(A, ctx, copy=True)
    assert Mc._keep == []


def test_bsr(ctx):
    A = sp.bsr_array(sp.random(24, 24, density=0.3, random_state=2) + sp.eye(24) * 4, blocksize=(3, 3))
    A.indices = A.indices.astype(np.int32)
    M = pds.Matrix(A, ctx)
    assert M.type == "bsr" and M.block_size == 3
    assert M._keep[1].ctypes.data == A.indices.ctypes.data and M._keep[2].ctypes.data == A.data.ctypes.data
    x = np.linspace(-1, 1, 24)
    assert np.allclose(M @ x, A @ x, rtol=1e-14, atol=1e-14)
    M2 = pds.Matrix(A.tocsr(), ctx, block_size=3)
    assert M2.type == "bsr" and np.allclose(M2 @ x, A @ x)
    assert pds.Matrix(A.tocsr(), ctx).to_bsr(3).block_size == 3


def test_matrix_market_round_trip(ctx, tmp_path):
    M = pds.Matrix.read(matrix_path("pde900"), ctx)
    f = tmp_path / "m.mtx"
    M.write(f)
    M2 = pds.Matrix(str(f), ctx)
    x = np.arange(M.shape[0], dtype=float)
    assert np.array_equal(M @ x, M2 @ x)
    assert "900 x 900" in repr(M)


def test_stencil7_from_values(ctx):
    A = pds.problems.stencil7_random((3, 4, 5), 2, ctx=ctx)
    B = A.to_csr()
    S = B.to_scipy()
    x = np.random.default_rng(0).standard_normal(A.shape[0])
    assert np.allclose(A @ x, S @ x, rtol=1e-13, atol=1e-13)
    C = B.to_stencil7((3, 4, 5), 2)
    assert C.type == "stencil7" and np.allclose(C @ x, S @ x)


def test_precond_apply(ctx):
    A = _csr()
    M = pds.Matrix(A, ctx)
    pc = pds.Precond(M, "jacobi")
    x = np.arange(1.0, A.shape[0] + 1)
    assert np.allclose(pc.apply(x), x / A.diagonal(), rtol=1e-15)
    ilu = pds.Precond(M, "ilu0")
    y = ilu.apply(x)
    assert np.linalg.norm(A @ y - x) < 0.5 * np.linalg.norm(x)  # a useful approximation of A^-1
    assert "ilu0" in repr(ilu)
    for t in ("bjacobi", "asm"):  # on one rank's matrix: the local preconditioner of the whole matrix
        assert np.array_equal(pds.Precond(M, t, sub="ilu0").apply(x), y)
        assert np.array_equal(pds.Precond(M, t, sub="jacobi").apply(x), pc.apply(x))


def test_solve_options_and_result(ctx):
    p = pds.problems.poisson7(10, ctx)
    seen = []
    s = pds.Solver(p.A, "cg", pc="jacobi", rtol=1e-10, monitor=lambda it, r: seen.append((it, r)))
    x, r = s.solve(p.b.numpy())
    assert r.converged and r.reason == "converged_rtol"
    assert [it for it, _ in seen] == list(range(r.iterations + 1))      # every iteration seen
    assert np.array_equal(r.history, np.array([v for _, v in seen]))
    assert r.history.size == r.iterations + 1 and r.history[-1] == r.rnorm
    assert np.abs(x - p.u_exact.numpy()).max() < 1e-2
    # x0 is used and left alone; a warm start from the solution converges at once
    x0 = x.copy()
    x2, r2 = s.solve(p.b.numpy(), x0=x0)
    assert r2.iterations <= 1 and np.array_equal(x0, x)
    # into a given array, in place
    out = np.zeros_like(x)
    x3, _ = s.solve(p.b.numpy(), x=out)
    assert x3 is out and np.array_equal(out, x)
    # with Vectors
    xv, _ = s.solve(p.b)
    assert isinstance(xv, pds.Vector) and np.array_equal(xv.numpy(), x)
    assert "cg" in repr(s)


def test_deterministic(ctx):
    A = pds.Matrix.read(matrix_path("orsirr_1"), ctx)
    b = A @ np.ones(A.shape[0])
    xs = [pds.Solver(A, "gmres", pc="ilu0").solve(b)[0] for _ in range(3)]
    assert all(np.array_equal(xs[0], x) for x in xs[1:])


def test_small_and_large_numpy_paths_agree(ctx):
    # NumPy calls on small systems go through the objects' own vectors, larger ones wrap the arrays in place
    from pdesolve import _callbacks
    for n in (100, _callbacks.SMALL + 1000):
        A = sp.csr_array(sp.diags([-1.0, 2.5, -1.0], [-1, 0, 1], shape=(n, n)))
        A.indices = A.indices.astype(np.int32)
        M = pds.Matrix(A, ctx)
        b = np.sin(np.arange(n, dtype=float))
        s = pds.Solver(M, "bicgstab", pc="jacobi", rtol=1e-10)
        x, r = s.solve(b)
        xv, rv = s.solve(pds.Vector(b, ctx))
        assert np.array_equal(x, xv.numpy()) and r.iterations == rv.iterations
        assert np.array_equal(M @ x, M.matvec(pds.Vector(x, ctx)).numpy())
        assert np.array_equal(s.pc.apply(b), s.pc.apply(pds.Vector(b, ctx)).numpy())
        x0 = x.copy()
        x2, r2 = s.solve(b, x0=x0)         # a warm start from the solution; x0 is read, not changed
        assert r.converged and r2.iterations <= 1 and np.allclose(x2, x, rtol=1e-9) and np.array_equal(x0, x)


def test_result_plot(ctx):
    mpl = pytest.importorskip("matplotlib")
    mpl.use("Agg")
    import matplotlib.pyplot as plt
    p = pds.problems.poisson7(6, ctx)
    _, r = pds.Solver(p.A, "cg").solve(p.b.numpy())
    ax = r.plot()
    line = ax.get_lines()[-1]
    assert len(line.get_xdata()) == r.iterations + 1
    assert np.allclose(line.get_ydata(), r.history / r.bnorm)
    plt.close("all")
    with pytest.raises(pds.errors.ArgumentError, match="history"):
        pds.Solver(p.A, "cg", history=False).solve(p.b.numpy())[1].plot()


def test_precond_update_values(ctx):
    # new values in the same pattern: refactored without a new analysis, the same as a fresh preconditioner
    A = _csr(60, 5)
    A2 = A.copy()
    A2.data = A2.data * 1.5 + 0.25
    M, M2 = pds.Matrix(A, ctx), pds.Matrix(A2, ctx)
    pc = pds.Precond(M, "ilu0")
    x = np.linspace(1.0, 2.0, 60)
    pc.update_values(M2)
    assert np.array_equal(pc.apply(x), pds.Precond(M2, "ilu0").apply(x))
    assert not np.array_equal(pc.apply(x), pds.Precond(M, "ilu0").apply(x))
