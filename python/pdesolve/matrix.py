"""pdesolve/matrix.py: Matrix, the library's matrices from SciPy sparse matrices, CSR/BSR arrays, Matrix Market
files, structured stencil7 grids and Python operators (shell)."""
import ctypes
import os

import numpy as np

from . import _arrays
from ._base import CObject, view_text
from ._callbacks import apply_callback, host_view, via_work, wrap_result
from ._lib import lib
from .context import as_context
from .errors import ArgumentError
from .vector import DEVICE, HOST, Vector, as_vector

COPY_VALUES, USE_POINTER = 0, 1


def _is_sparse(obj):
    return hasattr(obj, "tocsr") and hasattr(obj, "format") and hasattr(obj, "shape")


def _is_operator(obj):
    return (hasattr(obj, "matvec") and hasattr(obj, "shape")) or callable(obj)


def _index32(a, what):
    a = np.asarray(a)
    if a.dtype == np.int32 and a.flags.c_contiguous:
        return a
    if a.size and (a.min() < 0 or a.max() > np.iinfo(np.int32).max):
        raise ArgumentError("pdesolve: %s do not fit 32-bit indices" % what)
    return np.ascontiguousarray(a, dtype=np.int32)


def _values64(a):
    a = np.asarray(a)
    if a.dtype == np.float64 and a.flags.c_contiguous:
        return a
    if np.iscomplexobj(a):
        raise ArgumentError("pdesolve: complex values; the library is real (float64)")
    return np.ascontiguousarray(a, dtype=np.float64)


class Matrix(CObject):
    """Matrix(source, ctx=None, block_size=None, copy=False): source is
      - a scipy.sparse CSR matrix/array: used in place when its indices are int32 and its values float64 (only the
        row pointer is converted to the library's 64-bit offsets); other index or value types are converted once;
        on /gpu/cuda the arrays are copied to the device (the host arrays stay shared);
      - a scipy.sparse BSR matrix (block_size from it): likewise, as bsr;
      - any other scipy.sparse matrix: converted to CSR once (block_size=b then makes it bsr);
      - a CuPy sparse matrix (cupyx.scipy.sparse): its device arrays copied once by the library (on a CPU context,
        through the host);
      - a path (str or os.PathLike): a Matrix Market file;
      - a scipy.sparse.linalg.LinearOperator, or anything with .shape and .matvec, or a callable with shape= given:
        a shell (matrix-free) matrix whose product calls it (see Matrix.shell).
    Arrays used in place are kept alive by the Matrix (and by the Solver and Precond that use it); do not change
    them while the library uses them. copy=True always copies."""
    _destroy = "pds_mat_destroy"
    _rank = 1

    def __init__(self, source, ctx=None, block_size=None, copy=False, shape=None):
        ctx = as_context(ctx)
        super().__init__(ctx)
        if isinstance(source, (str, os.PathLike)):
            self._check(lib.pds_mm_read_mat(ctx._h, os.fspath(source).encode(), ctypes.byref(self._h)))
        elif _is_sparse(source):
            if source.format == "bsr" and block_size in (None, source.blocksize[0]):
                if source.blocksize[0] != source.blocksize[1]:
                    raise ArgumentError("pdesolve: BSR blocks of %s; square blocks only" % (source.blocksize,))
                self._from_bsr(source.indptr, source.indices, source.data, source.shape, source.blocksize[0], copy)
            elif _arrays.cuda_interface(source.data if source.format == "csr" else getattr(source, "data", None)):
                # a CuPy (cupyx.scipy.sparse) matrix: its device arrays, copied once by the library (device input
                # takes PDS_COPY_VALUES; on a CPU context through the host)
                csr = source if source.format == "csr" else source.tocsr()
                self._from_device_csr(csr, copy)
            else:
                csr = source if source.format == "csr" else source.tocsr()
                self._from_csr(csr.indptr, csr.indices, csr.data, csr.shape, copy)
                if block_size and block_size > 1:
                    self._convert("pds_mat_convert_to_bsr", int(block_size))
        elif _is_operator(source):
            self._shell(source, shape, "numpy")
        else:
            raise ArgumentError("pdesolve: cannot make a matrix of %s; give a scipy.sparse matrix, a Matrix Market "
                                "path or a LinearOperator" % type(source).__name__)
        self._made()

    # ---- constructors -------------------------------------------------------------------------------------
    @classmethod
    def _empty(cls, ctx):
        m = cls.__new__(cls)
        CObject.__init__(m, ctx)
        return m

    @classmethod
    def from_csr(cls, indptr, indices, data, shape, ctx=None, copy=False):
        """CSR from arrays (0-based): used in place like a scipy CSR matrix's."""
        m = cls._empty(as_context(ctx))
        m._from_csr(indptr, indices, data, shape, copy)
        m._made()
        return m

    @classmethod
    def from_bsr(cls, indptr, indices, data, shape, block_size, ctx=None, copy=False):
        """BSR from arrays: indices of block columns, data of row-major blocks (nnzb x bs x bs)."""
        m = cls._empty(as_context(ctx))
        m._from_bsr(indptr, indices, data, shape, int(block_size), copy)
        m._made()
        return m

    @classmethod
    def read(cls, path, ctx=None):
        """A Matrix Market file (coordinate or array; real, integer or pattern; general, symmetric, skew)."""
        return cls(os.fspath(path), ctx)

    @classmethod
    def shell(cls, op, ctx=None, shape=None, arrays="numpy"):
        """A matrix-free matrix whose product y = A x calls op: op.matvec(x) (a LinearOperator), or op(x) with
        shape=(m, n) given. x is a read-only view of the library's vector and the result is copied into y.
        arrays="numpy" hands host arrays (on /gpu/cuda each product copies x to the host and y back);
        arrays="cupy" hands CuPy arrays over the device memory (no copies; /gpu/cuda only). An exception in op stops
        the solve and is raised from it."""
        m = cls._empty(as_context(ctx))
        m._shell(op, shape, arrays)
        m._made()
        return m

    @classmethod
    def stencil7(cls, grid, n, values, ctx=None):
        """A structured 7-point block matrix on an I x J x K grid with n x n blocks (paper 000's systems):
        values has I J K 7 n n entries, point p = (i J + j) K + k, blocks alpha (k-1), beta (j-1), gamma (i-1),
        delta (the point), epsilon (i+1), zeta (j+1), eta (k+1), row-major; blocks out of the grid must be zero.
        grid may also be a list of (I, J, K): one multi-block matrix of independent grids. The values are copied."""
        ctx = as_context(ctx)
        m = cls._empty(ctx)
        vals = _values64(values)
        grids = [tuple(grid)] if np.ndim(grid) == 1 else [tuple(g) for g in grid]
        if len(grids) == 1:
            I, J, K = (int(v) for v in grids[0])
            m._check(lib.pds_mat_create_stencil7(ctx._h, I, J, K, int(n), vals.ctypes.data, HOST, ctypes.byref(m._h)))
        else:
            dims = np.ascontiguousarray(np.array(grids, dtype=np.int32).reshape(-1))
            m._check(lib.pds_mat_create_stencil7_blocks(ctx._h, len(grids), dims.ctypes.data, int(n),
                                                        vals.ctypes.data, HOST, ctypes.byref(m._h)))
        m._made()
        return m

    # ---- builders -----------------------------------------------------------------------------------------
    def _from_csr(self, indptr, indices, data, shape, copy):
        nrows, ncols = (int(v) for v in shape)
        rp = np.ascontiguousarray(indptr, dtype=np.int64)  # the one conversion: the library's offsets are 64-bit
        ci, va = _index32(indices, "column indices"), _values64(data)
        if rp.size != nrows + 1:
            raise ArgumentError("pdesolve: indptr has %d entries for %d rows" % (rp.size, nrows))
        mode = COPY_VALUES if copy else USE_POINTER
        adr = _arrays.address
        self._check(lib.pds_mat_create_csr(self.ctx._h, nrows, ncols, adr(rp), adr(ci), adr(va), HOST, mode,
                                           ctypes.byref(self._h)))
        if mode == USE_POINTER:
            self._keep = [rp, ci, va]

    def _from_device_csr(self, csr, copy):
        import cupy
        if not self.ctx.is_device:  # a CPU context: the arrays to the host, then as a SciPy matrix's
            self._from_csr(cupy.asnumpy(csr.indptr), cupy.asnumpy(csr.indices), cupy.asnumpy(csr.data), csr.shape,
                           True)
            return
        if csr.data.dtype.kind == "c":
            raise ArgumentError("pdesolve: complex values; the library is real (float64)")
        rp = cupy.ascontiguousarray(csr.indptr, dtype=cupy.int64)
        ci = cupy.ascontiguousarray(csr.indices, dtype=cupy.int32)
        va = cupy.ascontiguousarray(csr.data, dtype=cupy.float64)
        cupy.cuda.get_current_stream().synchronize()
        nrows, ncols = (int(v) for v in csr.shape)
        self._check(lib.pds_mat_create_csr(self.ctx._h, nrows, ncols, rp.data.ptr, ci.data.ptr, va.data.ptr, DEVICE,
                                           COPY_VALUES, ctypes.byref(self._h)))

    def _from_bsr(self, indptr, indices, data, shape, bs, copy):
        nrows, ncols = (int(v) for v in shape)
        if bs < 1 or nrows % bs or ncols % bs:
            raise ArgumentError("pdesolve: block size %d does not divide the %d x %d matrix" % (bs, nrows, ncols))
        rp = np.ascontiguousarray(indptr, dtype=np.int64)
        ci, va = _index32(indices, "block column indices"), _values64(data)
        mode = COPY_VALUES if copy else USE_POINTER
        adr = _arrays.address
        self._check(lib.pds_mat_create_bsr(self.ctx._h, nrows // bs, ncols // bs, bs, adr(rp), adr(ci), adr(va), HOST,
                                           mode, ctypes.byref(self._h)))
        if mode == USE_POINTER:
            self._keep = [rp, ci, va]

    def _shell(self, op, shape, arrays):
        if shape is None:
            shape = getattr(op, "shape", None)
        if shape is None:
            raise ArgumentError("pdesolve: a callable operator needs shape=(m, n)")
        fn = op.matvec if hasattr(op, "matvec") else op
        cb, state = apply_callback(self.ctx, fn, arrays, "shell matrix")
        self._check(lib.pds_mat_create_shell(self.ctx._h, int(shape[0]), int(shape[1]), None, cb,
                                             ctypes.byref(self._h)))
        self._keep = [cb, op]
        self._cb_state = state

    def _convert(self, fname, *args):
        out = ctypes.c_void_p()
        self._check(getattr(lib, fname)(self._hc(), *args, ctypes.byref(out)))
        lib.pds_mat_destroy(ctypes.byref(self._h))
        self._h = out

    # ---- properties ---------------------------------------------------------------------------------------
    @property
    def shape(self):
        """(rows, columns), scalar; fixed for the matrix's life (kept after the first call)."""
        sh = self.__dict__.get("_shape")
        if sh is None:
            m, n = ctypes.c_int32(), ctypes.c_int32()
            self._check(lib.pds_mat_get_size(self._hc(), ctypes.byref(m), ctypes.byref(n)))
            sh = self._shape = (m.value, n.value)
        return sh

    @property
    def type(self):
        """"csr", "bsr", "stencil7", "patches", "sem", "shell"."""
        return lib.pds_mat_get_type(self._hc()).decode()

    @property
    def nnz(self):
        n = ctypes.c_int64()
        self._check(lib.pds_mat_get_nnz(self._hc(), ctypes.byref(n)))
        return n.value

    @property
    def block_size(self):
        bs = ctypes.c_int()
        self._check(lib.pds_mat_get_block_size(self._hc(), ctypes.byref(bs)))
        return bs.value

    @property
    def dtype(self):
        return np.dtype(np.float64)

    # ---- operations ---------------------------------------------------------------------------------------
    def matvec(self, x, out=None):
        """y = A x: x a NumPy/CuPy array or Vector; the result has x's kind (out: a Vector or array to write)."""
        if out is None and via_work(self.ctx, x):
            wx, wy = self._work_in("x", x), self._work("y", self.shape[0])
            self._check(lib.pds_mat_apply(self._hc(), wx._h, wy._h))
            return self._work_out(wy)
        xv = x if isinstance(x, Vector) else Vector(x, self.ctx)
        yv, ret = wrap_result(self.ctx, x, self.shape[0], out)
        self._check(lib.pds_mat_apply(self._hc(), xv._h, yv._h))
        return ret()

    def __matmul__(self, x):
        return self.matvec(x)

    def rmatvec(self, x):
        """y = A^T x (csr)."""
        xv = as_vector(x, self.ctx)
        yv, ret = wrap_result(self.ctx, x, self.shape[1], None)
        self._check(lib.pds_mat_apply_transpose(self._hc(), xv._h, yv._h))
        return ret()

    def residual(self, b, x):
        """r = b - A x."""
        bv, xv = as_vector(b, self.ctx), as_vector(x, self.ctx)
        rv, ret = wrap_result(self.ctx, b, self.shape[0], None)
        self._check(lib.pds_mat_residual(self._hc(), bv._h, xv._h, rv._h))
        return ret()

    def diagonal(self):
        """The diagonal as a NumPy array (0 where absent)."""
        d = Vector(self.shape[0], self.ctx)
        self._check(lib.pds_mat_get_diagonal(self._hc(), d._h))
        return np.array(d.numpy())

    def to_csr(self):
        """A new csr Matrix with the same entries (from bsr, or from stencil7 through bsr)."""
        if self.type == "stencil7":
            with self.to_bsr() as B:
                return B.to_csr()
        out = ctypes.c_void_p()
        self._check(lib.pds_mat_convert_to_csr(self._hc(), ctypes.byref(out)))
        return Matrix._adopt(self.ctx, out.value)

    def to_bsr(self, block_size=0):
        """A new bsr Matrix (block_size 0: detected)."""
        out = ctypes.c_void_p()
        self._check(lib.pds_mat_convert_to_bsr(self._hc(), int(block_size), ctypes.byref(out)))
        return Matrix._adopt(self.ctx, out.value)

    def to_stencil7(self, grid, n):
        """A csr/bsr matrix whose pattern is a 7-point grid, as stencil7 on grid (I, J, K) with n x n blocks."""
        out = ctypes.c_void_p()
        I, J, K = (int(v) for v in grid)
        self._check(lib.pds_mat_convert_to_stencil7(self._hc(), I, J, K, int(n), ctypes.byref(out)))
        return Matrix._adopt(self.ctx, out.value)

    def to_scipy(self):
        """A scipy.sparse.csr_array copy (csr and bsr matrices; others through to_csr())."""
        import scipy.sparse as sp
        A = self if self.type == "csr" else self.to_csr()
        rp, ci, va = ctypes.c_void_p(), ctypes.c_void_p(), ctypes.c_void_p()
        A._check(lib.pds_mat_csr_get_arrays(A._hc(), ctypes.byref(rp), ctypes.byref(ci), ctypes.byref(va)))
        m, n = A.shape
        indptr = np.array(host_view(rp.value, m + 1, np.int64))
        nnz = int(indptr[-1])
        out = sp.csr_array((np.array(host_view(va.value, nnz, np.float64)),
                            np.array(host_view(ci.value, nnz, np.int32)), indptr), shape=(m, n))
        if A is not self:
            A.close()
        return out

    def write(self, path):
        """Write a Matrix Market file (csr or bsr; general, 1-based)."""
        self._check(lib.pds_mm_write_mat(self._hc(), os.fspath(path).encode()))

    def aslinearoperator(self):
        """A scipy.sparse.linalg.LinearOperator whose products are this matrix's (NumPy in and out)."""
        from .scipy_ops import matrix_operator
        return matrix_operator(self)

    def __repr__(self):
        if self.closed:
            return "Matrix [closed]"
        text = view_text(lib.pds_mat_view, self._h)
        return text or "Matrix(%s, %d x %d, nnz %d, %s)" % ((self.type,) + self.shape + (self.nnz, self.ctx.backend))
