"""pdesolve: sparse linear solvers for implicit CFD and FEM codes on CPUs and NVIDIA GPUs, from Python.

    import pdesolve as pds
    with pds.Context("auto") as ctx:
        A = pds.Matrix(scipy_csr, ctx)                      # in place: int32 indices, float64 values
        s = pds.Solver(A, "gmres", pc="ilu0", rtol=1e-8, restart=50)
        x, r = s.solve(b)                                   # NumPy in, NumPy out; CuPy in, CuPy out on /gpu/cuda
        print(r.iterations, r.reason)

docs/python.md is the guide. The classes mirror the C API (include/pdesolve.h): Context, Vector, Matrix, Precond,
Solver, Result; generators in pdesolve.problems, finite volumes in pdesolve.fv; errors in pdesolve.errors."""
from . import errors, fv, problems
from ._lib import lib, path as library_path
from .context import Context, backends, default_context
from .errors import PdsError, ConvergenceError
from .matrix import Matrix
from .precond import Precond
from .solver import Result, Solver, solve
from .vector import Vector

__version__ = lib.pds_version().decode()

__all__ = ["Context", "Vector", "Matrix", "Precond", "Solver", "Result", "solve", "backends", "default_context",
           "errors", "problems", "fv", "PdsError", "ConvergenceError", "library_path", "__version__"]
