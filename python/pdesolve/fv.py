"""pdesolve/fv.py: 3D hybrid meshes (Mesh3D) and paper 001's finite-volume Euler solver (FV): residuals, explicit
and implicit steps, the Jacobian as a bsr matrix."""
import ctypes
import os

import numpy as np

from ._base import CObject
from ._decls import pds_fv_info, pds_fv_params, pds_solver_result
from ._lib import lib
from .context import as_context
from .errors import ArgumentError
from .matrix import Matrix
from .vector import Vector, as_vector


class Mesh3D(CObject):
    """A hybrid volume mesh (tetrahedra, pyramids, prisms, hexahedra): Mesh3D.sphere(cells) (paper 001's
    sphere-in-a-box), Mesh3D.box(n, lo, hi), Mesh3D.read(path) (Gmsh 2.2/4.1); reorder("rcm" / "hilbert")."""
    _destroy = "pds_mesh3d_destroy"
    _rank = 1.5

    @classmethod
    def sphere(cls, cells=10000, radius=0.5, half_width=5.0, ctx=None):
        return cls._create(as_context(ctx), lib.pds_mesh3d_generate_sphere, int(cells), float(radius),
                         float(half_width))

    @classmethod
    def box(cls, n, lo=(0.0, 0.0, 0.0), hi=(1.0, 1.0, 1.0), ctx=None):
        nn = np.ascontiguousarray(np.broadcast_to(np.asarray(n, dtype=np.int32), (3,)))
        l = np.ascontiguousarray(lo, dtype=np.float64)
        h = np.ascontiguousarray(hi, dtype=np.float64)
        return cls._create(as_context(ctx), lib.pds_mesh3d_generate_box, nn.ctypes.data, l.ctypes.data, h.ctypes.data)

    @classmethod
    def read(cls, path, ctx=None):
        return cls._create(as_context(ctx), lib.pds_mesh3d_read_gmsh, os.fspath(path).encode())

    def reorder(self, how="rcm"):
        self._check(lib.pds_mesh3d_reorder(self._hc(), how.encode()))
        return self

    def write(self, path):
        """A Gmsh file of the mesh."""
        self._check(lib.pds_mesh3d_write_gmsh(self._hc(), os.fspath(path).encode()))

    def write_vtk(self, path, **fields):
        """A VTK .vtu file of the cells with cell fields name=values (one value a cell)."""
        from .problems import write_vtk
        write_vtk(self, lib.pds_mesh3d_write_vtk, path, fields, self.sizes[1])

    @property
    def sizes(self):
        """(nodes, cells, boundary faces)."""
        return self._sizes3(lib.pds_mesh3d_get_sizes)

    def __repr__(self):
        return "Mesh3D(%d nodes, %d cells, %d boundary faces)" % self.sizes


PARAMS = ("gamma", "mach", "dir", "efix", "order", "recon_cond", "recon_min", "recon_levels", "recon_max",
          "recon_weight", "summation", "walls")


class FV(CObject):
    """The Euler equations' finite-volume residual on a Mesh3D (paper 001): FV(mesh, order=1, mach=0.1, walls=(1,),
    summation="stages", ...) with the fields of pds_fv_params. state() is the free stream; residual(Q), step(cfl, Q)
    (explicit, local time step), jacobian(Q, cfl) (the first-order Jacobian plus V/tau, bsr 5 x 5),
    step_implicit(solver, cfl, Q) (backward Euler with any Solver)."""
    _destroy = "pds_fv_destroy"
    _rank = 2.5

    def __init__(self, mesh, **params):
        super().__init__(mesh.ctx)
        p = pds_fv_params()
        lib.pds_fv_params_default(ctypes.byref(p))
        keep = []
        for k, v in params.items():
            if k not in PARAMS:
                raise ArgumentError("pdesolve: unknown FV option %r; options: %s" % (k, ", ".join(PARAMS)))
            if k == "walls":
                tags = np.ascontiguousarray(np.atleast_1d(v), dtype=np.int32)
                keep.append(tags)
                p.nwall, p.wall_tags = int(tags.size), tags.ctypes.data
            elif k == "dir":
                p.dir[:] = [float(x) for x in v]
            elif k == "summation":
                s = v.encode()
                keep.append(s)
                p.summation = s
            else:
                setattr(p, k, type(getattr(p, k))(v))
        self._check(lib.pds_fv_create(self.ctx._h, mesh._hc(), ctypes.byref(p), ctypes.byref(self._h)))
        self._made()

    @property
    def info(self):
        i = pds_fv_info()
        self._check(lib.pds_fv_get_info(self._hc(), ctypes.byref(i)))
        out = {k: getattr(i, k) for k, _ in i._fields_}
        out["qinf"] = list(i.qinf)
        out["summation"] = i.summation.decode() if i.summation else None
        return out

    def state(self):
        """A state vector (5 values a cell: density, momentum, energy) set to the free stream."""
        q = ctypes.c_void_p()
        self._check(lib.pds_fv_create_state(self._hc(), ctypes.byref(q)))
        return Vector._adopt(self.ctx, q.value)

    def residual(self, Q, out=None):
        """R(Q), the convective residual (dQ/dt = R / V), as a Vector (or into out)."""
        Qv = as_vector(Q, self.ctx)
        R = out if out is not None else Vector(Qv.size, self.ctx)
        self._check(lib.pds_fv_residual(self._hc(), Qv._h, R._h))
        return R

    def step(self, cfl, Q, R=None):
        """One explicit step of Q (a Vector, updated) with a local time step; returns ||R||_2 before it."""
        Qv = as_vector(Q, self.ctx)
        R = R if R is not None else Vector(Qv.size, self.ctx)
        r = ctypes.c_double()
        self._check(lib.pds_fv_step(self._hc(), float(cfl), Qv._h, R._h, ctypes.byref(r)))
        return r.value

    def jacobian(self, Q, cfl):
        J, Qv = ctypes.c_void_p(), as_vector(Q, self.ctx)
        self._check(lib.pds_fv_jacobian(self._hc(), Qv._h, float(cfl), ctypes.byref(J)))
        return Matrix._adopt(self.ctx, J.value)

    def step_implicit(self, solver, cfl, Q, R=None):
        """One backward-Euler step of Q (updated) solved by solver (its operator becomes the Jacobian); returns
        (||R||_2 before the step, the linear solve's Result)."""
        from .solver import Result
        Qv = as_vector(Q, self.ctx)
        R = R if R is not None else Vector(Qv.size, self.ctx)
        r, lin = ctypes.c_double(), pds_solver_result()
        self._check(lib.pds_fv_step_implicit(self._hc(), solver._hc(), float(cfl), Qv._h, R._h, ctypes.byref(r),
                                             ctypes.byref(lin)))
        return r.value, Result(lin, None, float("nan"))
