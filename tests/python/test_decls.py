"""tests/python/test_decls.py: the package's prototypes (_decls.py) are what include/pdesolve.h declares."""
import os
import subprocess
import sys

import pdesolve as pds

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")


def test_decls_current():
    tool = os.path.join(ROOT, "python", "tools", "gen_decls.py")
    proc = subprocess.run([sys.executable, tool, "--check"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_every_function_bound():
    from pdesolve import _decls
    for name in _decls.FUNCTIONS:
        assert getattr(pds.lib, name).argtypes is not None
    assert pds.__version__ == "0.1.0"
