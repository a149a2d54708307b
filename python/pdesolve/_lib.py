"""pdesolve/_lib.py: loads the C library and binds every PDS_EXTERN function with its prototype (_decls.py).

Where the library is looked for, first found wins:
  1. the file named by the environment variable PDS_LIBRARY (the build tree's tests use it);
  2. libpdesolve.so next to this file (what `pip install .` puts there).
"""
import ctypes
import os

from . import _decls

_HERE = os.path.dirname(os.path.abspath(__file__))
_NAMES = ("libpdesolve.so", "libpdesolve.dylib", "pdesolve.dll")


def _find():
    env = os.environ.get("PDS_LIBRARY")
    if env:
        if not os.path.isfile(env):
            raise ImportError("pdesolve: PDS_LIBRARY=%s is not a file" % env)
        return env
    for name in _NAMES:
        path = os.path.join(_HERE, name)
        if os.path.isfile(path):
            return path
    raise ImportError("pdesolve: the C library is not installed next to the package (%s); install the package with "
                      "`pip install .` from the repository root, or set PDS_LIBRARY to a built libpdesolve.so" % _HERE)


path = _find()
lib = ctypes.CDLL(path)
for _name, (_res, _args) in _decls.FUNCTIONS.items():
    _f = getattr(lib, _name)
    _f.restype = _res
    _f.argtypes = _args
