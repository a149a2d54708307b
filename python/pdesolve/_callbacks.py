"""pdesolve/_callbacks.py: Python functions the library calls (shell matrices and preconditioners, monitors), the
exception such a function raised (raised again from the C call that ran it), and results of the caller's array
kind."""
import ctypes
import threading

import numpy as np

from . import _arrays
from .errors import ArgumentError
from ._lib import lib

HOST, DEVICE = 0, 1
APPLY = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)
MONITOR = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_int, ctypes.c_double)
SETUP = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)

# The exception a Python callback raised, for the C call that ran it. One slot for the process, not per thread: the
# library may run callbacks on its own threads (the FEM coefficient functions on /cpu/omp), and the exception belongs
# to the Python thread that made the C call. The first one is kept.
_pending = [None]
_pending_lock = threading.Lock()
CALLBACK_FAILED = 1  # what a callback returns to the library when the Python function raised


def stash(exc):
    """Keep exc (the first of a call) for the C call that is running the callback; Context._raise raises it."""
    with _pending_lock:
        if _pending[0] is None:
            _pending[0] = exc


def take_pending():
    with _pending_lock:
        exc, _pending[0] = _pending[0], None
    return exc


def host_view(ptr, n, dtype):
    """A NumPy array over n items of host memory at ptr (no copy)."""
    dtype = np.dtype(dtype)
    if n == 0 or not ptr:
        return np.empty(0, dtype)
    buf = (ctypes.c_char * (n * dtype.itemsize)).from_address(ptr)
    return np.frombuffer(buf, dtype=dtype, count=n)


def _device_view(ptr, n, owner):
    import cupy
    mem = cupy.cuda.UnownedMemory(ptr, n * 8, owner)
    return cupy.ndarray((n,), dtype=cupy.float64, memptr=cupy.cuda.MemoryPointer(mem, 0))


def _size(v):
    n = ctypes.c_int64()
    lib.pds_vec_get_size(v, ctypes.byref(n))
    return n.value


def apply_callback(ctx, fn, arrays, what):
    """A C function y = fn(x) for a shell matrix or preconditioner: fn gets x as a read-only NumPy array (arrays
    "numpy") or a CuPy array over the device memory (arrays "cupy", /gpu/cuda) and returns y (any array of the
    right length), which is copied into the library's y. Returns (the ctypes function, which must be kept alive,
    a dict)."""
    if arrays not in ("numpy", "cupy"):
        raise ValueError("pdesolve: arrays=%r; 'numpy' or 'cupy'" % (arrays,))
    if arrays == "cupy" and not ctx.is_device:
        raise ValueError("pdesolve: arrays='cupy' needs a /gpu/cuda context, not %s" % ctx.backend)
    mt = DEVICE if arrays == "cupy" else HOST

    def c_apply(user, x, y):
        try:
            n, m = _size(x), _size(y)
            px = ctypes.c_void_p()
            rc = lib.pds_vec_get_array_read(x, mt, ctypes.byref(px))
            if rc:
                return rc
            try:
                if mt == HOST:
                    xa = host_view(px.value, n, np.float64)
                    xa.flags.writeable = False
                else:
                    xa = _device_view(px.value, n, None)
                ya = fn(xa)
            finally:
                lib.pds_vec_restore_array_read(x, ctypes.byref(px))
            py = ctypes.c_void_p()
            rc = lib.pds_vec_get_array_write(y, mt, ctypes.byref(py))
            if rc:
                return rc
            try:
                xp = np if mt == HOST else __import__("cupy")
                ya = xp.asarray(ya, dtype=xp.float64).reshape(-1)
                if ya.size != m:
                    raise ValueError("%s: the function returned %d values for a vector of %d" % (what, ya.size, m))
                if mt == HOST:
                    host_view(py.value, m, np.float64)[...] = ya
                else:
                    _device_view(py.value, m, None)[...] = ya
                    xp.cuda.get_current_stream().synchronize()
            finally:
                lib.pds_vec_restore_array_write(y, ctypes.byref(py))
            return 0
        except BaseException as exc:  # noqa: B902 - raised again from the C call that runs this
            stash(exc)
            return CALLBACK_FAILED

    return APPLY(c_apply), {}


def monitor_callback(fn):
    """A C monitor that calls fn(iteration, residual norm); a true return value or an exception stops the solve."""
    def c_monitor(user, it, rnorm):
        try:
            return CALLBACK_FAILED if fn(it, rnorm) else 0
        except BaseException as exc:  # noqa: B902
            stash(exc)
            return CALLBACK_FAILED
    return MONITOR(c_monitor)


# NumPy calls go through vectors the calling object keeps (the values copied in and out, 2 x 8 n bytes) instead of
# wrapping the arrays in new vectors each call (about 4 us each on the CPU; on a GPU also a device allocation): on a
# GPU always (host arrays are copied to the device and back in any case), on the CPU up to SMALL values, where the
# copies cost less than the wrapping (docs/python.md, Python overhead).
SMALL = 1 << 14


def via_work(ctx, x):
    """True when a call with NumPy vector x goes through the object's work vectors."""
    return type(x) is np.ndarray and x.ndim == 1 and (ctx.is_device or x.size <= SMALL)


def wrap_result(ctx, like, n, out):
    """A Vector of length n for a result and a function returning it as the caller gave its input: a NumPy array
    for NumPy input, a CuPy array for CuPy input on /gpu/cuda, a Vector for a Vector (out: where to write)."""
    from .vector import Vector
    if out is None and type(like) is np.ndarray and not ctx.is_device:  # NumPy on the CPU: the common case first
        a = _arrays.aligned_empty(n)
        return Vector(a, ctx), lambda: a
    if out is not None:
        if isinstance(out, Vector):
            return out, lambda: out
        v = Vector(out, ctx)
        if v.shares == "numpy" and v._array is not out:
            raise ArgumentError("pdesolve: out= must be an array the library can write in place (float64, contiguous, "
                                "16-byte aligned, writeable); pass such an array or a Vector")
        if v.shares == "numpy":
            return v, lambda: (v.numpy(), out)[1]  # numpy() brings a device result back into out
        return v, lambda: out
    if isinstance(like, Vector):
        v = Vector(n, ctx)
        return v, lambda: v
    cupy = _arrays.array_module(like)
    if cupy is not None and ctx.is_device:
        a = cupy.empty(n, dtype=cupy.float64)
        v = Vector(a, ctx)
        return v, lambda: a
    v = Vector(_arrays.aligned_empty(n), ctx)
    return v, v.numpy
