"""tests/python/test_device.py: device arrays on /gpu/cuda, in place: a Vector's own __cuda_array_interface__ (no
CuPy needed) and CuPy arrays (skipped where CuPy is missing), against the host results. Skipped on CPU backends
except for the refusals."""
import numpy as np
import pytest
import scipy.sparse as sp

import pdesolve as pds
from conftest import BACKEND, matrix_path

GPU = BACKEND.startswith("/gpu")
try:
    import cupy
    cupy.cuda.runtime.getDeviceCount()
except Exception:  # no CuPy, or no GPU for it
    cupy = None

gpu_only = pytest.mark.skipif(not GPU, reason="a /gpu backend is under test only in the cuda variant")
needs_cupy = pytest.mark.skipif(not GPU or cupy is None, reason="needs CuPy and a GPU")


def test_cpu_refuses_device_interface(ctx):
    if GPU:
        pytest.skip("CPU backends only")
    v = pds.Vector(np.ones(4), ctx)
    with pytest.raises(AttributeError, match="not a GPU"):
        v.__cuda_array_interface__


@gpu_only
def test_vector_interface_in_place(ctx):
    a = np.arange(1.0, 17.0)
    v = pds.Vector(a, ctx)
    v.set(3.0)                                     # on the device
    assert np.all(v.numpy() == 3.0) and v.numpy() is a
    cai = v.__cuda_array_interface__
    assert cai["shape"] == (16,) and cai["typestr"] == "<f8" and cai["stream"] == 1
    w = pds.Vector(v, ctx)                         # another vector on the same device memory
    assert w.shares == "device"
    assert w.__cuda_array_interface__["data"][0] == cai["data"][0]
    w.set(5.0)
    assert np.all(v.numpy() == 5.0)                # v sees the write: one array


@needs_cupy
def test_cupy_solve_in_place(ctx):
    path = matrix_path("orsirr_1")
    A = pds.Matrix.read(path, ctx)
    b_host = A @ np.ones(A.shape[0])
    b = cupy.asarray(b_host)
    s = pds.Solver(A, "gmres", pc="ilu0")
    x, r = s.solve(b)
    assert isinstance(x, cupy.ndarray) and r.converged
    xh, rh = s.solve(b_host)
    assert r.iterations == rh.iterations and np.array_equal(cupy.asnumpy(x), xh)   # the same bits
    # zero-copy: a Vector over a CuPy array uses its memory
    bv = pds.Vector(b, ctx)
    assert bv.__cuda_array_interface__["data"][0] == b.data.ptr
    y = A @ b
    assert isinstance(y, cupy.ndarray) and np.array_equal(cupy.asnumpy(y), A @ b_host)
    out = cupy.zeros_like(b)
    x2, _ = s.solve(b, x=out)
    assert x2 is out and np.array_equal(cupy.asnumpy(out), xh)
    # the library's vector seen by CuPy without a copy
    xv, _ = s.solve(bv)
    xc = cupy.asarray(xv)
    assert xc.data.ptr == xv.__cuda_array_interface__["data"][0]
    assert np.array_equal(cupy.asnumpy(xc), xh)


@needs_cupy
def test_cupy_shell_and_refusals(ctx):
    A = sp.csr_array(sp.diags([-1.0, 4.0, -1.0], [-1, 0, 1], shape=(64, 64)))
    Ad = pds.Matrix(A, ctx)
    d = cupy.asarray(A.diagonal())
    pc = pds.Precond.shell(lambda v: v / d, ctx, arrays="cupy")
    x, r = pds.Solver(Ad, "cg", pc=pc).solve(cupy.ones(64))
    xj, rj = pds.Solver(Ad, "cg", pc="jacobi").solve(np.ones(64))
    assert r.iterations == rj.iterations and np.allclose(cupy.asnumpy(x), xj, rtol=1e-12)
    with pytest.raises(pds.errors.ArgumentError, match="float64"):
        pds.Vector(cupy.ones(8, dtype=cupy.float32), ctx)
    with pytest.raises(pds.errors.ArgumentError, match="aligned"):
        pds.Vector(cupy.ones(9)[1:], ctx)
    with pytest.raises(pds.errors.ArgumentError, match="contiguous"):
        pds.Vector(cupy.ones(16)[::2], ctx)


@needs_cupy
def test_cupy_sparse_matrix(ctx):
    import cupyx.scipy.sparse as csp
    A = sp.csr_array(sp.diags([-1.0, 4.0, -1.5], [-1, 0, 2], shape=(50, 50)))
    Ad = csp.csr_matrix(sp.csr_matrix(A))
    M = pds.Matrix(Ad, ctx)
    assert M.type == "csr" and M.shape == (50, 50) and M.nnz == A.nnz
    x = cupy.arange(50, dtype=cupy.float64)
    assert np.array_equal(cupy.asnumpy(M @ x), pds.Matrix(A, ctx) @ np.arange(50.0))
    xs, r = pds.Solver(M, "gmres", pc="ilu0").solve(cupy.ones(50))
    assert r.converged and np.allclose(A @ cupy.asnumpy(xs), 1.0, atol=1e-7)
