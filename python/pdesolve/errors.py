"""pdesolve/errors.py: the library's error codes as Python exceptions.

Every failing C call raises the class of its code, carrying the library's message (what went wrong and where). Each
class also derives from the built-in exception a Python user would catch for it (ValueError for bad arguments,
MemoryError, OSError, ...). Not converging is not an error: it is Result.reason, unless the solve asked to raise
(ConvergenceError)."""
from ._lib import lib


class PdsError(Exception):
    """A pdesolve library error: .code (the negative PDS_ERR_* value), .name ("PDS_ERR_SIZE"), the message."""
    code = None

    def __init__(self, message, code=None):
        super().__init__(message)
        if code is not None:
            self.code = code
        self.name = lib.pds_error_name(self.code).decode() if self.code is not None else "PDS_ERR"


class ArgumentError(PdsError, ValueError):
    """PDS_ERR_ARG: bad argument (NULL handle, unknown name, value out of range)."""
    code = -1


class SizeError(PdsError, ValueError):
    """PDS_ERR_SIZE: dimensions do not match."""
    code = -2


class OutOfMemoryError(PdsError, MemoryError):
    """PDS_ERR_MEM: a host or device allocation failed."""
    code = -3


class UnsupportedError(PdsError, NotImplementedError):
    """PDS_ERR_UNSUPPORTED: not available in this build, on this backend or for this type."""
    code = -4


class BackendError(PdsError, RuntimeError):
    """PDS_ERR_BACKEND: a CUDA (or other vendor library) error."""
    code = -5


class MPIError(PdsError, RuntimeError):
    """PDS_ERR_MPI."""
    code = -6


class ZeroPivotError(PdsError, ArithmeticError):
    """PDS_ERR_ZERO_PIVOT: a zero or singular pivot in a factorization or inversion."""
    code = -7


class StateError(PdsError, RuntimeError):
    """PDS_ERR_STATE: wrong call order, object in use, access not restored, object closed."""
    code = -8


class FileError(PdsError, OSError):
    """PDS_ERR_IO: a file cannot be opened, read or written."""
    code = -9


class FormatError(PdsError, ValueError):
    """PDS_ERR_FORMAT: a file or data is malformed (the message has the line number)."""
    code = -10


class ConvergenceError(PdsError):
    """A solve that did not converge, raised only when asked (Solver(..., raise_on_failure=True)); .result."""
    code = None

    def __init__(self, message, result):
        super().__init__(message)
        self.name = "not converged"
        self.result = result


_BY_CODE = {c.code: c for c in (ArgumentError, SizeError, OutOfMemoryError, UnsupportedError, BackendError,
                                 MPIError, ZeroPivotError, StateError, FileError, FormatError)}


def error_class(code):
    """The exception class of a negative PDS_ERR_* code."""
    return _BY_CODE.get(code, PdsError)


def raise_error(code, message):
    cls = error_class(code)
    if cls is PdsError:
        raise PdsError(message, code)
    raise cls(message)
