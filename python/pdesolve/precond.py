"""pdesolve/precond.py: Precond, the library's preconditioners (none, jacobi, pbjacobi, ilu0, bilu0, relax, gmg,
semjacobi) with their options, and Python functions as shell preconditioners."""
import ctypes

from ._base import CObject, view_text
from ._callbacks import apply_callback, via_work, wrap_result
from ._lib import lib
from .context import as_context
from .errors import ArgumentError
from .vector import Vector

RELAX_TYPES = {"jacobi": 0, "multicolor": 1, "chaotic": 2}
PRECISIONS = {"double": 0, "single": 1, "float": 1, "mixed": 2}


def _relax_type(name):
    if name not in RELAX_TYPES:
        raise ArgumentError("pdesolve: relax type %r; one of %s" % (name, ", ".join(RELAX_TYPES)))
    return RELAX_TYPES[name]


def _block3(b):
    if isinstance(b, int):
        return (b, b, b)
    b = tuple(int(v) for v in b)
    if len(b) != 3:
        raise ArgumentError("pdesolve: a block is B or (BX, BY, BZ), not %r" % (b,))
    return b


def _set_gmg_smoother(pc, o):
    bx, by, bz = _block3(o.pop("block", 4))
    return lib.pds_precond_gmg_set_smoother(pc, _relax_type(o.pop("smoother", "multicolor")), bx, by, bz,
                                            float(o.pop("omega", 0.0)), int(o.pop("pre", 2)), int(o.pop("post", 2)))


# Each preconditioner's options: name -> how it is set (pc handle, value). The names are the driver's flags without
# their -pc_<type>_ / -relax_ / -gmg_ prefix (-pc_ilu0_shift 0.1 is Precond(A, "ilu0", shift=0.1)), except
# -relax_type, which is relax_type (type names the preconditioner).
OPTIONS = {
    "pbjacobi": {"block_size": lambda pc, v: lib.pds_precond_set_block_size(pc, int(v))},
    "ilu0": {
        "shift": lambda pc, v: lib.pds_precond_ilu0_set_shift(pc, float(v)),
        "variant": lambda pc, v: lib.pds_precond_ilu0_set_variant(pc, v.encode()),
        "ordering": lambda pc, v: lib.pds_precond_ilu0_set_ordering(pc, v.encode()),
        "sweeps": lambda pc, v: lib.pds_precond_ilu0_set_sweeps(pc, int(v), -1),
        "factor_sweeps": lambda pc, v: lib.pds_precond_ilu0_set_sweeps(pc, -1, int(v)),
    },
    "bilu0": {
        "variant": lambda pc, v: lib.pds_precond_bilu0_set_variant(pc, v.encode()),
        "factors": lambda pc, v: lib.pds_precond_bilu0_set_factor_precision(pc, PRECISIONS[v]),
    },
    "relax": {
        "relax_type": lambda pc, v: lib.pds_precond_relax_set_type(pc, _relax_type(v)),
        "block": lambda pc, v: lib.pds_precond_relax_set_block(pc, *_block3(v)),
        "omega": lambda pc, v: lib.pds_precond_relax_set_omega(pc, float(v)),
        "sweeps": lambda pc, v: lib.pds_precond_relax_set_sweeps(pc, int(v)),
        "symmetric": lambda pc, v: lib.pds_precond_relax_set_symmetric(pc, int(bool(v))),
        "variant": lambda pc, v: lib.pds_precond_relax_set_variant(pc, v.encode()),
    },
    "gmg": {
        "cycle": lambda pc, v: lib.pds_precond_gmg_set_cycle(pc, v.encode()),
        "levels": lambda pc, v: lib.pds_precond_gmg_set_levels(pc, int(v)),
        "prolong": lambda pc, v: lib.pds_precond_gmg_set_prolongation(pc, v.encode()),
    },
    "semjacobi": {"variant": lambda pc, v: lib.pds_precond_semjacobi_set_variant(pc, v.encode())},
    "bjacobi": {"sub": lambda pc, v: lib.pds_precond_set_sub_type(pc, v.encode())},
    "asm": {"sub": lambda pc, v: lib.pds_precond_set_sub_type(pc, v.encode())},
}
GMG_SMOOTHER = ("smoother", "block", "omega", "pre", "post")
GMG_COARSE = ("coarse", "coarse_max")


class Precond(CObject):
    """Precond(A=None, type="jacobi", ctx=None, **options): a preconditioner of matrix A (set up at once when A is
    given; a Solver sets up one without A when it solves). type: "none", "jacobi", "pbjacobi", "ilu0", "bilu0",
    "relax", "gmg", "semjacobi", "bjacobi", "asm" (over the ranks of a distributed matrix, docs/mpi.md; on one rank's
    matrix the local preconditioner of the whole). Options (the driver's flags without their prefix):
      pbjacobi: block_size;  ilu0: shift, variant, ordering, sweeps, factor_sweeps;  bilu0: variant, factors
      ("double" or "float");  relax: relax_type, block, omega, sweeps, symmetric, variant;  gmg: cycle, levels, prolong,
      smoother, block, omega, pre, post, coarse, coarse_max;  semjacobi: variant;  bjacobi, asm: sub (the local type).
    A Python function as preconditioner: Precond.shell(fn)."""
    _destroy = "pds_precond_destroy"
    _rank = 2

    def __init__(self, A=None, type="jacobi", ctx=None, **options):
        ctx = as_context(ctx if ctx is not None else (A.ctx if A is not None else None))
        super().__init__(ctx)
        self._check(lib.pds_precond_create(ctx._h, type.encode(), ctypes.byref(self._h)))
        self._made()
        self.A = None
        self._configure(type, options)
        if A is not None:
            self.set_operator(A)
            self.setup()

    def _configure(self, type, options):
        if not options:
            return
        table = OPTIONS.get(type, {})
        o = dict(options)
        for k in list(o):
            if k in table:
                self._check(table[k](self._h, o.pop(k)))
        if type == "gmg":
            if any(k in o for k in GMG_SMOOTHER):
                self._check(_set_gmg_smoother(self._h, o))
            if any(k in o for k in GMG_COARSE):
                self._check(lib.pds_precond_gmg_set_coarse(self._h, o.pop("coarse", "direct").encode(),
                                                           int(o.pop("coarse_max", 1000))))
        if o:
            known = sorted(table) + (list(GMG_SMOOTHER + GMG_COARSE) if type == "gmg" else [])
            raise ArgumentError("pdesolve: unknown option%s %s for preconditioner '%s'%s" % (
                "s" if len(o) > 1 else "", ", ".join(sorted(o)), type,
                "; it takes " + ", ".join(known) if known else "; it takes none"))

    @classmethod
    def shell(cls, fn, ctx=None, arrays="numpy"):
        """A preconditioner y = fn(x) from a Python function or anything with .matvec (a LinearOperator, such as
        scipy's spilu(A).solve wrapped in one); arrays as in Matrix.shell."""
        pc = cls(None, "shell", ctx)
        f = fn.matvec if hasattr(fn, "matvec") else fn
        cb, _ = apply_callback(pc.ctx, f, arrays, "shell preconditioner")
        pc._check(lib.pds_precond_shell_set(pc._h, None, None, cb))
        pc._keep = [cb, fn]
        return pc

    @property
    def type(self):
        return lib.pds_precond_get_type(self._hc()).decode()

    def set_operator(self, A):
        self._check(lib.pds_precond_set_operator(self._hc(), A._hc()))
        self.A = A  # keeps A (and the arrays it uses in place) alive while the C object refers to it

    def setup(self):
        """Numeric setup (factorization, inversion of blocks) from the operator."""
        self._check(lib.pds_precond_setup(self._hc()))
        return self

    def update_values(self, A):
        """Refactor for a matrix with the same pattern and new values (ilu0, bilu0: no new analysis)."""
        self._check(lib.pds_precond_update_values(self._hc(), A._hc()))
        self.A = A
        return self

    def apply(self, x, out=None):
        """y = M^-1 x, of x's kind (NumPy, CuPy, Vector)."""
        if out is None and via_work(self.ctx, x):
            wx, wy = self._work_in("x", x), self._work("y", x.size)
            self._check(lib.pds_precond_apply(self._hc(), wx._h, wy._h))
            return self._work_out(wy)
        xv = x if isinstance(x, Vector) else Vector(x, self.ctx)
        yv, ret = wrap_result(self.ctx, x, xv.size, out)
        self._check(lib.pds_precond_apply(self._hc(), xv._h, yv._h))
        return ret()

    def smooth(self, f, u, sweeps=1):
        """relax: `sweeps` sweeps on A u = f from the given u (a Vector, updated in place; the smoother's use)."""
        fv = f if isinstance(f, Vector) else Vector(f, self.ctx)
        if not isinstance(u, Vector):
            raise ArgumentError("pdesolve: smooth updates u in place: pass a Vector")
        self._check(lib.pds_precond_relax_smooth(self._hc(), fv._h, u._h, int(sweeps)))
        return u

    @property
    def info(self):
        """After setup, what the library reports of it: relax {"ntypes", "ncolors", "nblocks"} (distinct block
        inverses, colours, blocks), gmg {"levels", "coarse_cells"}; other types {}."""
        t = self.type
        if t == "relax":
            a, b, c = ctypes.c_int(), ctypes.c_int(), ctypes.c_int32()
            self._check(lib.pds_precond_relax_get_info(self._h, ctypes.byref(a), ctypes.byref(b), ctypes.byref(c)))
            return {"ntypes": a.value, "ncolors": b.value, "nblocks": c.value}
        if t == "gmg":
            a, b = ctypes.c_int(), ctypes.c_int64()
            self._check(lib.pds_precond_gmg_get_levels(self._h, ctypes.byref(a), ctypes.byref(b)))
            return {"levels": a.value, "coarse_cells": b.value}
        return {}

    def aslinearoperator(self):
        """A scipy.sparse.linalg.LinearOperator applying M^-1 (for scipy's solvers' M=)."""
        from .scipy_ops import precond_operator
        return precond_operator(self)

    def __repr__(self):
        if self.closed:
            return "Precond [closed]"
        return view_text(lib.pds_precond_view, self._h) or "Precond(%s, %s)" % (self.type, self.ctx.backend)
