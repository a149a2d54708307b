"""pdesolve/_arrays.py: NumPy and __cuda_array_interface__ arrays as the library takes them: which can be used in
place (float64, one dimension or contiguous, 16-byte aligned) and which need one copy."""
import ctypes
import sys

import numpy as np

from .errors import ArgumentError

F8 = np.dtype(np.float64)


def aligned_empty(n, dtype=F8):
    """An uninitialised 1-D array of n items whose data is 16-byte aligned (the library's vectors need it): NumPy's
    own allocation when it is (glibc's malloc aligns to 16 on 64-bit systems), else an aligned slice of a larger one."""
    a = np.empty(n, dtype)
    if address(a) % 16 == 0:
        return a
    dtype = np.dtype(dtype)
    raw = np.empty(n * dtype.itemsize + 16, dtype=np.uint8)
    off = (-raw.ctypes.data) % 16
    return raw[off:off + n * dtype.itemsize].view(dtype)


def address(a):
    """The address of NumPy array a's data (the buffer protocol: half the time of a.ctypes.data)."""
    try:
        return ctypes.addressof(ctypes.c_char.from_buffer(a))
    except (TypeError, ValueError):  # read-only or empty
        return a.ctypes.data


def host_usable(a):
    """The address of NumPy array a's data when the library can use a in place as a vector (float64, C-contiguous,
    16-byte aligned, writeable), else None."""
    if type(a) is not np.ndarray or a.dtype != F8 or not a.flags.c_contiguous or not a.flags.writeable:
        return None
    p = address(a)
    return None if p % 16 else p


def check_vector_shape(shape, what="an array"):
    """ArgumentError unless shape is a vector's: one dimension, or a row (1, n) or a column (n, 1)."""
    if sum(int(s) != 1 for s in shape) > 1:
        raise ArgumentError("pdesolve: %s of shape %s: a vector has one dimension (or is a row or a column)"
                            % (what, tuple(shape)))


def real_vector(data):
    """data as a NumPy array that can be a vector: real (pdesolve solves real systems: a complex array would lose its
    imaginary part without a word) and of a vector's shape (check_vector_shape); ArgumentError otherwise."""
    a = np.asarray(data)
    if np.iscomplexobj(a):
        raise ArgumentError("pdesolve: an array of complex type %s: pdesolve solves real systems (pass the real "
                            "part explicitly, or write the complex system as a real one of twice the size)" % a.dtype)
    check_vector_shape(a.shape)
    return a


def host_copy(data):
    """A float64, 16-byte-aligned 1-D copy of array-like data (the one copy of an array that cannot be used in
    place)."""
    src = np.asarray(real_vector(data), dtype=F8).reshape(-1)
    out = aligned_empty(src.size)
    out[...] = src
    return out


def cuda_interface(obj):
    """obj's __cuda_array_interface__ dict, or None."""
    try:
        return obj.__cuda_array_interface__
    except AttributeError:
        return None


def device_pointer(obj, cai):
    """(pointer, length) of a device array given by its __cuda_array_interface__, after the producer's stream is
    synchronized (version 3's 'stream'); ArgumentError for what cannot be a vector in place."""
    typestr = cai.get("typestr")
    if typestr not in ("<f8", "=f8", "f8"):
        raise ArgumentError("pdesolve: a device array of type %s; vectors are float64 ('<f8'): convert it first "
                            "(x.astype('float64'))" % typestr)
    shape = tuple(cai.get("shape", ()))
    check_vector_shape(shape, "a device array")
    n = 1
    for s in shape:
        n *= int(s)
    strides = cai.get("strides")
    if strides is not None:
        expect, step = [], 8
        for s in reversed(shape):
            expect.insert(0, step)
            step *= int(s)
        if n > 1 and tuple(int(v) for v in strides) != tuple(expect):
            raise ArgumentError("pdesolve: a device array that is not contiguous (strides %s); pass a contiguous copy"
                                % (tuple(strides),))
    ptr, readonly = cai["data"]
    if readonly:
        raise ArgumentError("pdesolve: a read-only device array cannot be a vector in place")
    if ptr % 16:
        raise ArgumentError("pdesolve: the device array at 0x%x is not 16-byte aligned (a slice?); pass a copy" % ptr)
    stream = cai.get("stream")
    if stream not in (None, 1):  # the legacy default stream orders with the library's blocking stream
        cupy = sys.modules.get("cupy")
        if cupy is None:
            raise ArgumentError("pdesolve: the device array was written on stream 0x%x; synchronize it before "
                                "passing it (or use the default stream)" % stream)
        cupy.cuda.ExternalStream(stream).synchronize()
    return ptr, n


def array_module(obj):
    """cupy for a CuPy array, else None."""
    mod = type(obj).__module__
    if mod.startswith("cupy"):
        return sys.modules.get("cupy")
    return None
