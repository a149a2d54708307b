"""pdesolve/_base.py: what every wrapped C object shares: its handle, its context, errors, closing, and the text
of the library's view functions (repr)."""
import ctypes

import numpy as np

from ._arrays import real_vector
from ._lib import lib
from .errors import StateError


class Closable:
    """close() on leaving a with block and when the object dies (never raising at interpreter shutdown)."""

    def close(self):
        raise NotImplementedError

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # interpreter shutdown: the library may be gone already
            pass


class CObject(Closable):
    """A C object of the library: ._h (its handle), .ctx (the Context). Closed by close(), by leaving a with block,
    when the Python object dies, or when its context closes (which closes what it made first). A closed object's
    methods raise StateError. The C library counts references itself: a solver keeps its operator and preconditioner
    alive in C, and the Python objects keep the ones they hand to C alive (and the arrays those use in place), so
    Python objects can die in any order."""
    _destroy = None   # name of the C destroy function
    _rank = 0         # close order within a context: higher first (solvers, preconditioners, matrices, vectors)

    def __init__(self, ctx):
        self.ctx = ctx
        self._h = ctypes.c_void_p()
        self._keep = []  # Python objects the C object uses (arrays in place, operators, callbacks)

    def _made(self):
        self.ctx._track(self)

    @classmethod
    def _adopt(cls, ctx, handle, keep=()):
        """An object of this class around a handle the library made (a generator's output): owns it."""
        obj = cls.__new__(cls)
        CObject.__init__(obj, ctx)
        obj._h = ctypes.c_void_p(handle)
        obj._keep = list(keep)
        obj._init_adopted()
        obj._made()
        return obj

    def _init_adopted(self):
        """Set the attributes __init__ would have (a subclass with its own attributes overrides it)."""

    @classmethod
    def _create(cls, ctx, fn, *args):
        """fn(ctx, *args, &handle), a C constructor, as an object of this class."""
        h = ctypes.c_void_p()
        rc = fn(ctx._h, *args, ctypes.byref(h))
        if rc:
            ctx._raise(rc)
        return cls._adopt(ctx, h.value)

    @property
    def handle(self):
        """The C handle (an int), for calling the C library directly; raises StateError once closed."""
        if not self._h:
            raise StateError("pdesolve: this %s is closed" % type(self).__name__)
        return self._h.value

    def _hc(self):
        if not self._h:
            raise StateError("pdesolve: this %s is closed" % type(self).__name__)
        return self._h

    def _check(self, rc):
        if rc:
            self.ctx._raise(rc)

    def _work(self, key, n):
        """A Vector of length n kept by this object for its NumPy calls through work vectors (_callbacks.via_work)."""
        w = self.__dict__.get("_workv")
        if w is None:
            w = self._workv = {}
        v = w.get(key)
        if v is None or v._n != n:
            from .vector import Vector
            v = w[key] = Vector(n, self.ctx)
            v._n = n
        return v

    def _work_in(self, key, x):
        """x (a 1-D NumPy array) copied into this object's work vector `key`."""
        x = real_vector(x)
        v = self._work(key, x.size)
        if v._array is not None:
            v._array[...] = x
        else:  # device memory: one host-to-device copy
            xa = x if x.dtype == np.float64 and x.flags.c_contiguous else np.ascontiguousarray(x, dtype=np.float64)
            self._check(lib.pds_vec_set_values(v._h, xa.ctypes.data, 0))
        return v

    def _work_out(self, v):
        """A new NumPy array with work vector v's values."""
        if v._array is not None:
            return v._array.copy()
        out = np.empty(v._n)
        self._check(lib.pds_vec_get_values(v._h, out.ctypes.data, 0))
        return out

    def close(self):
        """Release the C object now (a context closes what is still open when it closes)."""
        for v in self.__dict__.pop("_workv", {}).values():
            v.close()
        h = getattr(self, "_h", None)
        if h:
            if self.ctx._h:  # a context already gone (a garbage cycle) freed nothing of it; never touch it
                getattr(lib, self._destroy)(ctypes.byref(h))
            self._h = ctypes.c_void_p()
        self._keep = []

    @property
    def closed(self):
        return not self._h

    def _sizes3(self, fn):
        """fn(handle, &a, &b, &c) for three pds_int sizes (the meshes' get_sizes), as a tuple."""
        a, b, c = ctypes.c_int32(), ctypes.c_int32(), ctypes.c_int32()
        self._check(fn(self._hc(), ctypes.byref(a), ctypes.byref(b), ctypes.byref(c)))
        return a.value, b.value, c.value


_libc = ctypes.CDLL(None)
try:
    _open_memstream = _libc.open_memstream
    _open_memstream.restype = ctypes.c_void_p
    _open_memstream.argtypes = [ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(ctypes.c_size_t)]
    _fclose = _libc.fclose
    _fclose.argtypes = [ctypes.c_void_p]
    _free = _libc.free
    _free.argtypes = [ctypes.c_void_p]
except AttributeError:  # not glibc: repr falls back to a summary
    _open_memstream = None


def view_text(fn, handle):
    """What the library's view function fn (pds_mat_view, pds_solver_view, ...) prints for handle, as a string."""
    if _open_memstream is None:
        return ""
    buf, size = ctypes.c_char_p(), ctypes.c_size_t()
    f = _open_memstream(ctypes.byref(buf), ctypes.byref(size))
    if not f:
        return ""
    try:
        fn(handle, f)
    finally:
        _fclose(f)
    text = ctypes.string_at(buf, size.value).decode(errors="replace")
    _free(buf)
    return text.rstrip("\n")
