"""pdesolve/context.py: Context, the backend a set of objects runs on ("/cpu/ref", "/cpu/omp", "/gpu/cuda", "auto")."""
import ctypes
import weakref

from . import _callbacks
from ._base import Closable
from ._lib import lib
from .errors import ArgumentError, raise_error


def backends():
    """The backends compiled into this library: a list of (name, compiled)."""
    return [(lib.pds_backend_name(i).decode(), bool(lib.pds_backend_compiled(i))) for i in range(lib.pds_backend_count())]


class Context(Closable):
    """Context(resource="auto"): where objects live and run. resource: "auto" (the best compiled backend with its
    hardware present), "/cpu/ref", "/cpu/omp", "/cpu/omp:threads=4", "/gpu/cuda", "/gpu/cuda:device=1".

    A context manager: leaving the with block closes every object made on it that is still open, then the context.
    """

    def __init__(self, resource="auto"):
        self._h = ctypes.c_void_p()
        self._objects = weakref.WeakSet()
        rc = lib.pds_ctx_create(resource.encode(), ctypes.byref(self._h))
        if rc:
            known = ", ".join(n for n, c in backends() if c)
            raise_error(rc, "pdesolve: cannot create a context on '%s' (%s); compiled backends: %s; with 'auto' the "
                            "best one present is chosen" % (resource, lib.pds_error_name(rc).decode(), known))
        self.backend = lib.pds_ctx_get_backend(self._h).decode()
        self.is_device = self.backend.startswith("/gpu")  # the backend's memory is a GPU's (vectors can wrap
        #                                                   __cuda_array_interface__ arrays)

    @property
    def handle(self):
        return self._h.value

    @property
    def num_threads(self):
        return lib.pds_ctx_get_num_threads(self._h)

    def _track(self, obj):
        self._objects.add(obj)

    def _raise(self, rc):
        pending = _callbacks.take_pending()
        msg = lib.pds_ctx_get_error(self._h).decode(errors="replace") if self._h else "context closed"
        if self._h:
            lib.pds_ctx_clear_error(self._h)
        if pending is not None:  # a Python callback raised: that exception, with the library's message as cause
            try:
                raise_error(rc, msg or lib.pds_error_name(rc).decode())
            except Exception as err:
                raise pending from err
        raise_error(rc, msg or lib.pds_error_name(rc).decode())

    def close(self):
        """Close every object of this context that is still open (solvers first, vectors last), then the context."""
        if not self._h:
            return
        for obj in sorted(list(self._objects), key=lambda o: -o._rank):
            obj.close()
        lib.pds_ctx_destroy(ctypes.byref(self._h))
        self._h = ctypes.c_void_p()

    @property
    def closed(self):
        return not self._h

    def __repr__(self):
        return "Context(%r)%s" % (self.backend, " [closed]" if not self._h else "")


_default = None


def default_context():
    """The context used where none is given: Context("auto"), made on first use and kept."""
    global _default
    if _default is None or _default.closed:
        _default = Context("auto")
    return _default


def as_context(ctx):
    if ctx is None:
        return default_context()
    if isinstance(ctx, str):
        raise ArgumentError("pdesolve: pass a Context, not a string (Context(%r))" % ctx)
    return ctx
