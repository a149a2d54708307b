"""pdesolve/solver.py: Solver (cg, bicgstab, gmres, fgmres, richardson) and Result, the outcome of a solve."""
import ctypes
import time

import numpy as np

from ._base import CObject, view_text
from ._callbacks import host_view, monitor_callback, via_work, wrap_result
from ._decls import pds_solver_result
from ._lib import lib
from .context import as_context
from .errors import ArgumentError, ConvergenceError
from .matrix import Matrix
from .precond import PRECISIONS, Precond
from .vector import Vector, as_vector


class Result:
    """The outcome of a solve: iterations, rnorm (final residual 2-norm as the method tracks it), rnorm0, bnorm,
    rnorm_inf (-1 unless the infinity-norm test is on), reason (a name: "converged_rtol", "diverged_maxit", ...),
    reason_code, converged, history (residual norms of iterations 0..iterations, a NumPy array, or None), time
    (seconds of the solve call)."""
    __slots__ = ("iterations", "rnorm", "rnorm0", "bnorm", "rnorm_inf", "reason_code", "history", "time")

    def __init__(self, r, history, time):
        self.iterations = r.iterations
        self.rnorm, self.rnorm0, self.bnorm, self.rnorm_inf = r.rnorm, r.rnorm0, r.bnorm, r.rnorm_inf
        self.reason_code = r.reason
        self.history = history
        self.time = time

    @property
    def reason(self):
        return lib.pds_reason_name(self.reason_code).decode()

    @property
    def converged(self):
        return self.reason_code > 0

    def plot(self, ax=None, label=None, relative=True):
        """Draw the residual history (relative to ||b|| when relative) against the iteration on a log scale
        (matplotlib, an optional dependency); returns the axes."""
        if self.history is None:
            raise ArgumentError("pdesolve: no residual history (Solver(..., history=True) keeps it)")
        import matplotlib.pyplot as plt
        if ax is None:
            ax = plt.gca()
        h = self.history / (self.bnorm if relative and self.bnorm > 0 else 1.0)
        ax.semilogy(np.arange(h.size), h, label=label or self.reason)
        ax.set_xlabel("iteration")
        ax.set_ylabel("||r|| / ||b||" if relative else "||r||")
        return ax

    def __repr__(self):
        return "Result(%s, iterations=%d, rnorm=%.3e, rnorm/bnorm=%.3e, time=%.3g s)" % (
            self.reason, self.iterations, self.rnorm, self.rnorm / self.bnorm if self.bnorm else float("nan"),
            self.time)


class Solver(CObject):
    """Solver(A, type="gmres", pc=None, ctx=None, **options): a Krylov solver of A x = b.
    A: a Matrix, or anything Matrix() takes (a scipy.sparse matrix, a path, a LinearOperator).
    type: "cg", "bicgstab", "gmres", "fgmres", "richardson".
    pc: a preconditioner name ("jacobi", "ilu0", ...; its options in pc_options={...}), a Precond, or a Python
        function / LinearOperator (a shell preconditioner).
    options (the driver's flags): rtol (1e-8), atol, maxit (10000), inftol (stop on ||b - A x||_inf, 0: off),
        restart (gmres/fgmres, 30), orthog ("cgs2" or "cgs"), omega (richardson's damping), precision ("double",
        "single", "mixed"), device_loop (True: the GPU loop without per-iteration synchronization), monitor (a
        function f(iteration, rnorm), called for every iteration; a true return stops the solve with an error),
        history (True: keep the residual history, Result.history), raise_on_failure (raise ConvergenceError when
        a solve does not converge; by default not converging is a Result)."""
    _destroy = "pds_solver_destroy"
    _rank = 3

    def __init__(self, A, type="gmres", pc=None, ctx=None, pc_options=None, rtol=1e-8, atol=1e-50, maxit=10000,
                 inftol=None, restart=None, orthog=None, omega=None, precision=None, device_loop=None, monitor=None,
                 history=True, raise_on_failure=False):
        if not isinstance(A, Matrix):
            A = Matrix(A, ctx)
        ctx = as_context(ctx if ctx is not None else A.ctx)
        if A.ctx is not ctx:
            raise ArgumentError("pdesolve: the matrix belongs to another context")
        super().__init__(ctx)
        self._check(lib.pds_solver_create(ctx._h, type.encode(), ctypes.byref(self._h)))
        self._made()
        self.A = A
        self._ncols = A.shape[1]
        self.raise_on_failure = raise_on_failure
        self._history = bool(history)
        self._monitor = None
        self._check(lib.pds_solver_set_operator(self._h, A._hc()))
        if (rtol, atol, maxit) != (1e-8, 1e-50, 10000):  # the library's defaults need no call
            self._check(lib.pds_solver_set_tolerances(self._h, float(rtol), float(atol), int(maxit)))
        if inftol is not None:
            self._check(lib.pds_solver_set_inf_tolerance(self._h, float(inftol)))
        if restart is not None:
            self._check(lib.pds_solver_set_restart(self._h, int(restart)))
        if orthog is not None:
            self._check(lib.pds_solver_set_orthogonalization(self._h, orthog.encode()))
        if omega is not None:
            self._check(lib.pds_solver_set_damping(self._h, float(omega)))
        if precision is not None:
            if precision not in ("double", "single", "mixed"):
                raise ArgumentError("pdesolve: precision %r; 'double', 'single' or 'mixed'" % (precision,))
            self._check(lib.pds_solver_set_precision(self._h, PRECISIONS[precision]))
        if device_loop is not None:
            self._check(lib.pds_solver_set_device_loop(self._h, int(bool(device_loop))))
        if history:
            self._check(lib.pds_solver_set_history(self._h, 1))
        if monitor is not None:
            self._monitor = monitor_callback(monitor)
            self._check(lib.pds_solver_set_monitor(self._h, self._monitor, None))
        if pc is None:
            if pc_options:
                raise ArgumentError("pdesolve: pc_options without pc")
            self.pc = None
        elif isinstance(pc, Precond):
            self.pc = pc
        elif isinstance(pc, str):
            self.pc = Precond(None, pc, ctx, **(pc_options or {}))
        else:
            self.pc = Precond.shell(pc, ctx)
        if self.pc is not None:
            if self.pc.ctx is not ctx:
                raise ArgumentError("pdesolve: the preconditioner belongs to another context")
            self._check(lib.pds_solver_set_precond(self._h, self.pc._hc()))

    @property
    def type(self):
        return lib.pds_solver_get_type(self._hc()).decode()

    def setup(self):
        """Set up the solver and its preconditioner now (solve does it on first use)."""
        self._check(lib.pds_solver_setup(self._hc()))
        return self

    def solve(self, b, x0=None, x=None):
        """Solve A x = b. b: a NumPy array, a CuPy (or __cuda_array_interface__) array on /gpu/cuda, or a Vector.
        x0: the initial guess (zero when None; not changed). x: where to write the solution (a Vector, or an array
        the library can use in place), else a new array of b's kind. Returns (x, Result)."""
        ctx = self.ctx
        if x is None and via_work(ctx, b) and (x0 is None or via_work(ctx, x0)):  # NumPy in and out
            bv = self._work_in("b", b)
            if x0 is None:
                xv = self._work("x", self._ncols)
                self._check(lib.pds_vec_set(xv._h, 0.0))
            else:
                xv = self._work_in("x", x0)

            def ret():
                return self._work_out(xv)
        else:
            bv = b if isinstance(b, Vector) else Vector(b, ctx)
            xv, ret = wrap_result(ctx, b, self._ncols, x)
            if x0 is None:
                self._check(lib.pds_vec_set(xv._h, 0.0))
            else:
                x0v = as_vector(x0, ctx)
                if x0v._h.value != xv._h.value:
                    self._check(lib.pds_vec_copy(x0v._h, xv._h))
        t0 = time.perf_counter()
        rc = lib.pds_solver_solve(self._hc(), bv._h, xv._h)
        t = time.perf_counter() - t0
        if rc:
            ctx._raise(rc)
        result = self.result(t)
        out = ret()
        if self.raise_on_failure and not result.converged:
            raise ConvergenceError("pdesolve: %s did not converge: %s after %d iterations (||r|| = %.3e)" % (
                self.type, result.reason, result.iterations, result.rnorm), result)
        return out, result

    def result(self, time=float("nan")):
        """The Result of the last solve."""
        r = pds_solver_result()
        self._check(lib.pds_solver_get_result(self._hc(), ctypes.byref(r)))
        history = None
        if self._history:
            n, p = ctypes.c_int(), ctypes.c_void_p()
            self._check(lib.pds_solver_get_history(self._h, ctypes.byref(n), ctypes.byref(p)))
            if p.value and n.value > 0:
                history = host_view(p.value, n.value, np.float64).copy()
        return Result(r, history, time)

    def __repr__(self):
        if self.closed:
            return "Solver [closed]"
        return view_text(lib.pds_solver_view, self._h) or "Solver(%s, %s)" % (self.type, self.ctx.backend)


def solve(A, b, type="gmres", pc=None, ctx=None, **options):
    """One-call solve: Solver(A, type, pc, ctx, **options).solve(b) -> (x, Result)."""
    with Solver(A, type, pc, ctx, **options) as s:
        return s.solve(b)
