"""pdesolve/vector.py: Vector, the library's vector over a NumPy array (host, in place), a device array with
__cuda_array_interface__ (CuPy, ...; in place on /gpu/cuda), or memory of its own."""
import ctypes

import numpy as np

from . import _arrays
from ._base import CObject
from ._lib import lib
from .context import as_context
from .errors import ArgumentError

HOST, DEVICE = 0, 1


class Vector(CObject):
    """Vector(data, ctx=None, copy=False): data is
      - an int n: n zeros;
      - a NumPy array (or anything np.asarray takes): used in place when it is float64, contiguous, 16-byte aligned
        and writeable (the vector's values are the array's: results of operations on a GPU context come back into
        it with numpy()), else copied once into such an array;
      - an object with __cuda_array_interface__ (CuPy, Numba, PyTorch) on a /gpu/cuda context: its device memory is
        used in place (float64, contiguous, 16-byte aligned; the producer's stream is synchronized first).
    copy=True always copies."""
    _destroy = "pds_vec_destroy"
    _rank = 0

    def __init__(self, data, ctx=None, copy=False):
        ctx = as_context(ctx)
        CObject.__init__(self, ctx)
        self._array = None     # the NumPy array used in place (host)
        self._device = None    # the device object used in place
        if type(data) is np.ndarray and not copy:  # the common case first
            p = _arrays.host_usable(data) if data.ndim == 1 else None
            self._wrap_host(data if p is not None else _arrays.host_copy(data), p)
        elif isinstance(data, (int, np.integer)) and not isinstance(data, bool):
            n = int(data)
            if n < 0:
                raise ArgumentError("pdesolve: vector length %d is negative" % n)
            if ctx.is_device:
                self._check(lib.pds_vec_create(ctx._h, n, ctypes.byref(self._h)))
                self._check(lib.pds_vec_set(self._h, 0.0))
            else:
                a = _arrays.aligned_empty(n)
                a[...] = 0.0
                self._wrap_host(a)
        else:
            cai = _arrays.cuda_interface(data)
            if cai is not None:
                if ctx.is_device and not copy:
                    ptr, n = _arrays.device_pointer(data, cai)
                    self._check(lib.pds_vec_create_with_array(ctx._h, n, DEVICE, ptr, ctypes.byref(self._h)))
                    self._device = data
                elif ctx.is_device:
                    n = _arrays.device_pointer(data, cai)[1]
                    self._check(lib.pds_vec_create(ctx._h, n, ctypes.byref(self._h)))
                    self._check(lib.pds_vec_set_values(self._h, cai["data"][0], DEVICE))
                elif hasattr(data, "get"):  # CuPy to a CPU context: one copy to the host
                    self._wrap_host(_arrays.host_copy(data.get()))
                else:
                    raise ArgumentError("pdesolve: a device array on the CPU context %s: copy it to the host first"
                                        % ctx.backend)
            else:
                a = np.asarray(data)
                p = None if copy or a.ndim != 1 else _arrays.host_usable(a)
                self._wrap_host(a if p is not None else _arrays.host_copy(a), p)
        ctx._track(self)

    def _wrap_host(self, a, p=None):
        p = _arrays.address(a) if p is None else p
        self._check(lib.pds_vec_create_with_array(self.ctx._h, a.size, HOST, p, ctypes.byref(self._h)))
        self._array = a

    def _init_adopted(self):
        self._array = self._device = None

    @classmethod
    def zeros(cls, n, ctx=None):
        return cls(int(n), ctx)

    @property
    def size(self):
        n = ctypes.c_int64()
        self._check(lib.pds_vec_get_size(self._hc(), ctypes.byref(n)))
        return n.value

    def __len__(self):
        return self.size

    @property
    def shares(self):
        """What the vector's values live in: "numpy" (the array given, in place), "device" (the device array given,
        in place) or "library" (memory of its own)."""
        return "numpy" if self._array is not None else "device" if self._device is not None else "library"

    def numpy(self):
        """The values as a NumPy array: the array given (brought up to date from the device on a GPU context), or
        a new copy."""
        if self._array is not None:
            if self.ctx.is_device:  # make the host copy, which is the array, current
                p = ctypes.c_void_p()
                self._check(lib.pds_vec_get_array_read(self._hc(), HOST, ctypes.byref(p)))
                self._check(lib.pds_vec_restore_array_read(self._h, ctypes.byref(p)))
            return self._array
        out = _arrays.aligned_empty(self.size)
        self._check(lib.pds_vec_get_values(self._hc(), out.ctypes.data, HOST))
        return out

    def __array__(self, dtype=None, copy=None):
        a = self.numpy()
        return a if dtype is None else a.astype(dtype)

    @property
    def __cuda_array_interface__(self):
        """The device array (on /gpu/cuda): cupy.asarray(v) sees the vector's values in place. The library's work on
        it is ordered with the legacy default stream (stream 1)."""
        if not self.ctx.is_device:
            raise AttributeError("__cuda_array_interface__: the vector is on %s, not a GPU" % self.ctx.backend)
        p = ctypes.c_void_p()
        # a write access: the consumer may write, so the device copy becomes the only current one
        self._check(lib.pds_vec_get_array_write(self._hc(), DEVICE, ctypes.byref(p)))
        ptr = p.value or 0
        self._check(lib.pds_vec_restore_array_write(self._h, ctypes.byref(p)))
        return {"shape": (self.size,), "typestr": "<f8", "data": (ptr, False), "version": 3, "strides": None,
                "stream": 1}

    def set(self, alpha):
        """Every entry = alpha."""
        self._check(lib.pds_vec_set(self._hc(), float(alpha)))
        return self

    def norm(self, kind=2):
        """The 2-norm (kind=2) or the infinity norm (kind="inf"), deterministic."""
        r = ctypes.c_double()
        f = lib.pds_vec_norm2 if kind == 2 else lib.pds_vec_norm_inf if kind in ("inf", np.inf) else None
        if f is None:
            raise ArgumentError("pdesolve: norm kind %r; 2 or 'inf'" % (kind,))
        self._check(f(self._hc(), ctypes.byref(r)))
        return r.value

    def dot(self, other):
        r = ctypes.c_double()
        self._check(lib.pds_vec_dot(self._hc(), other._hc(), ctypes.byref(r)))
        return r.value

    def copy(self):
        """A new vector with the same values (memory of its own)."""
        w = Vector(self.size, self.ctx)
        self._check(lib.pds_vec_copy(self._hc(), w._h))
        return w

    def __repr__(self):
        if self.closed:
            return "Vector [closed]"
        return "Vector(n=%d, %s, values in %s)" % (self.size, self.ctx.backend, self.shares)


def as_vector(x, ctx, writable=False):
    """x as a Vector of ctx: x itself when it is one, else a Vector over it (in place where possible)."""
    if isinstance(x, Vector):
        if x.ctx is not ctx:
            raise ArgumentError("pdesolve: a vector of another context")
        return x
    return Vector(x, ctx)
