"""pdesolve/problems.py: the library's generators: test problems with known solutions (poisson7, fem2d, sem,
patches), paper 000's coupled channel systems and random stencil7 matrices, and the P1 finite elements of paper 004
on generated or Gmsh meshes."""
import ctypes
import os

import numpy as np

from ._base import CObject, view_text
from ._decls import pds_channel_opts, pds_fem2d_info, pds_fem2d_problem, pds_problem
from ._lib import lib
from .context import as_context
from .errors import ArgumentError
from .matrix import Matrix
from .vector import Vector


class Problem:
    """A linear system with what is known of its solution: A (Matrix), b (Vector), x_exact (Vector: the discrete
    solution, or None), u_exact (Vector: the PDE's solution at the unknowns, or None), description."""

    def __init__(self, ctx, A, b, x_exact=None, u_exact=None, description=""):
        self.ctx, self.A, self.b, self.x_exact, self.u_exact = ctx, A, b, x_exact, u_exact
        self.description = description

    @classmethod
    def _from_c(cls, ctx, p):
        """A Problem owning the handles of a pds_problem the library filled."""
        adopt = Vector._adopt
        return cls(ctx, Matrix._adopt(ctx, p.A), adopt(ctx, p.b), adopt(ctx, p.x_exact) if p.x_exact else None,
                   adopt(ctx, p.u_exact) if p.u_exact else None, p.description.decode(errors="replace"))

    def close(self):
        for v in (self.A, self.b, self.x_exact, self.u_exact):
            if v is not None:
                v.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return "Problem(%s; %s %d x %d, nnz %d)" % (self.description, self.A.type, *self.A.shape, self.A.nnz)


def names():
    """The registered problem names (pdesolve gen -problem NAME)."""
    return [lib.pds_problem_name(i).decode() for i in range(lib.pds_problem_count())]


def _problem(ctx, fn, *args):
    p = pds_problem()
    rc = fn(ctx._h, *args, ctypes.byref(p))
    if rc:
        ctx._raise(rc)
    return Problem._from_c(ctx, p)


def _dims(v, k=3):
    a = np.atleast_1d(np.asarray(v, dtype=np.int64))
    if a.size == 1:
        a = np.repeat(a, k)
    if a.size != k:
        raise ArgumentError("pdesolve: %d sizes or one, not %r" % (k, v))
    return np.ascontiguousarray(a, dtype=np.int32)


def generate(name, dims, ctx=None):
    """A registered problem by name with its size arguments (as `pdesolve gen -problem NAME`)."""
    ctx = as_context(ctx)
    d = np.ascontiguousarray(np.atleast_1d(dims), dtype=np.int32)
    return _problem(ctx, lib.pds_problem_generate, name.encode(), d.ctypes.data, int(d.size))


def poisson7(n, ctx=None):
    """The 7-point Laplacian on an n^3 (or nx x ny x nz) grid with a manufactured solution (x_exact)."""
    return generate("poisson7", _dims(n), ctx)


def patches(n, sizes, ctx=None):
    """Cell-centred Poisson on (0,1)^3 with n cells a side (or (nx, ny, nz)) tiled by patches of the given sizes
    (paper 002): A is a "patches" matrix (for relax and gmg)."""
    ctx = as_context(ctx)
    nn = _dims(n)
    sz = np.ascontiguousarray(np.atleast_1d(sizes), dtype=np.int32)
    return _problem(ctx, lib.pds_problem_patches, nn.ctypes.data, int(sz.size), sz.ctypes.data)


def sem(elements, order, deform=0.0, ctx=None, mesh=None):
    """Spectral-element Poisson (paper 003) on a box of elements (or a hexahedral Gmsh mesh: mesh=path) with
    order + 1 Gauss-Lobatto-Legendre points a direction: A is the matrix-free "sem" operator (for semjacobi)."""
    ctx = as_context(ctx)
    if mesh is not None:
        from .fv import Mesh3D
        m = mesh if isinstance(mesh, Mesh3D) else Mesh3D.read(mesh, ctx)
        return _problem(ctx, lambda c, *a: lib.pds_problem_sem_mesh(c, m._hc(), *a), int(order))
    e = _dims(elements)
    return _problem(ctx, lib.pds_problem_sem, e.ctypes.data, int(order), float(deform))


CHANNEL_FIELDS = ("n", "cfl", "re", "stretch", "beta", "lx", "lz", "perturb", "phase")


def channel(grid=(16, 16, 16), ctx=None, decomp=None, **options):
    """Paper 000's coupled system: one implicit step of the artificial-compressibility Navier-Stokes equations on a
    channel as a stencil7 matrix (docs/channel.md). grid: (I, J, K), or a list of them for one multi-block matrix of
    independent grids; decomp=(BX, BY, BZ): the one channel of grid cut into touching blocks, coupled across the cuts
    (bilu0 factors each block alone). options: n (4..6, default 6), cfl (10), re (100), stretch (1.5), beta (1),
    lx (4), lz (2), perturb (0.05), phase (0). Returns (A, b)."""
    ctx = as_context(ctx)
    o = pds_channel_opts()
    lib.pds_channel_opts_default(ctypes.byref(o))
    for k, v in options.items():
        if k not in CHANNEL_FIELDS:
            raise ArgumentError("pdesolve: unknown channel option %r; options: %s" % (k, ", ".join(CHANNEL_FIELDS)))
        setattr(o, k, type(getattr(o, k))(v))
    A, b = ctypes.c_void_p(), ctypes.c_void_p()
    grids = np.atleast_2d(np.asarray(grid, dtype=np.int64))
    if decomp is not None:
        if grids.shape[0] != 1:
            raise ArgumentError("pdesolve: decomp cuts one channel into blocks; give one grid (I, J, K)")
        o.ni, o.nj, o.nk = (int(v) for v in grids[0])
        s = np.ascontiguousarray(_dims(decomp), dtype=np.intc)
        rc = lib.pds_channel_generate_decomposed(ctx._h, ctypes.byref(o), s.ctypes.data, ctypes.byref(A),
                                                 ctypes.byref(b))
    elif grids.shape[0] == 1:
        o.ni, o.nj, o.nk = (int(v) for v in grids[0])
        rc = lib.pds_channel_generate(ctx._h, ctypes.byref(o), ctypes.byref(A), ctypes.byref(b))
    else:
        d = np.ascontiguousarray(grids.reshape(-1), dtype=np.int32)
        rc = lib.pds_channel_generate_blocks(ctx._h, ctypes.byref(o), int(grids.shape[0]), d.ctypes.data,
                                             ctypes.byref(A), ctypes.byref(b))
    if rc:
        ctx._raise(rc)
    return Matrix._adopt(ctx, A.value), Vector._adopt(ctx, b.value)


def stencil7_random(grid, n, dominance=2.0, seed=1, ctx=None):
    """A random stencil7 matrix with n x n blocks, each diagonal entry +-dominance times its row's off-diagonal sum."""
    I, J, K = (int(v) for v in _dims(grid))
    return Matrix._create(as_context(ctx), lib.pds_stencil7_random, I, J, K, int(n), float(dominance), int(seed))


class Mesh2D(CObject):
    """A triangle mesh: Mesh2D.generate("square" or "hole", nodes, seed) or Mesh2D.read(path) (Gmsh 2.2/4.1)."""
    _destroy = "pds_mesh_destroy"
    _rank = 1.5

    @classmethod
    def generate(cls, domain="square", nodes=1000, seed=1, ctx=None):
        return cls._create(as_context(ctx), lib.pds_mesh_generate, domain.encode(), int(nodes), int(seed))

    @classmethod
    def read(cls, path, ctx=None):
        return cls._create(as_context(ctx), lib.pds_mesh_read_gmsh, os.fspath(path).encode())

    def write_vtk(self, path, **fields):
        """A VTK .vtu file of the mesh with point fields name=values (one value a node)."""
        write_vtk(self, lib.pds_mesh_write_vtk, path, fields, self.sizes[0])

    def write(self, path):
        """A Gmsh 2.2 file (tags kept)."""
        self._check(lib.pds_mesh_write_gmsh(self._hc(), os.fspath(path).encode()))

    @property
    def sizes(self):
        """(nodes, triangles, boundary edges)."""
        return self._sizes3(lib.pds_mesh_get_sizes)

    def __repr__(self):
        return "Mesh2D(%d nodes, %d triangles, %d boundary edges)" % self.sizes


FEM_FN = ctypes.CFUNCTYPE(ctypes.c_double, ctypes.c_void_p, ctypes.c_double, ctypes.c_double)


def _fem_fn(f, what):
    """A C coefficient function of the Python function f(x, y) (its exception: reported after the call)."""
    def c_fn(user, x, y):
        try:
            return float(f(x, y))
        except BaseException as exc:  # noqa: B902 - raised again after the library's call (FEM2D._user_check)
            from ._callbacks import stash
            stash(exc)
            return float("nan")
    return FEM_FN(c_fn)


class FEM2D(CObject):
    """P1 finite elements for -div(k grad u) = f on a triangle mesh (paper 004): FEM2D(mesh, problem) with problem
    "paper", "manufactured", or a dict of the user's problem: k, f, g (numbers or functions of (x, y)) and u (the
    exact solution, a function, optional); assemble(dirichlet="rows" or "symmetric") -> (A, b) on the context's
    backend; exact() -> the exact solution at the nodes; l2_error(x). The user's functions run on the host, from
    the library's threads on /cpu/omp (one at a time: Python's lock)."""
    _destroy = "pds_fem2d_destroy"
    _rank = 2.5

    def __init__(self, mesh, problem="paper"):
        super().__init__(mesh.ctx)
        self._check(lib.pds_fem2d_create(self.ctx._h, mesh._hc(), ctypes.byref(self._h)))
        self._made()
        self._keep = [mesh]
        self.mesh = mesh
        if isinstance(problem, str):
            self._check(lib.pds_fem2d_set_problem(self._h, problem.encode()))
        else:
            self._set_user(dict(problem))

    def _set_user(self, d):
        unknown = set(d) - {"k", "f", "g", "u"}
        if unknown:
            raise ArgumentError("pdesolve: unknown FEM problem entries %s; k, f, g, u" % ", ".join(sorted(unknown)))
        p = pds_fem2d_problem()
        keep = []
        for name in ("k", "f", "g"):
            v = d.get(name, 1.0 if name == "k" else 0.0)
            if callable(v):
                fn = _fem_fn(v, name)
                keep.append(fn)
                setattr(p, name + "fn", ctypes.cast(fn, ctypes.c_void_p).value)
            else:
                setattr(p, name, float(v))
        if d.get("u") is not None:
            fn = _fem_fn(d["u"], "u")
            keep.append(fn)
            p.u = ctypes.cast(fn, ctypes.c_void_p).value
        self._check(lib.pds_fem2d_set_problem_user(self._h, ctypes.byref(p)))
        self._keep += keep  # the library keeps the function pointers (the struct is copied)

    def assemble(self, dirichlet="rows"):
        modes = {"rows": 0, "symmetric": 1}
        if dirichlet not in modes:
            raise ArgumentError("pdesolve: dirichlet=%r; 'rows' or 'symmetric'" % (dirichlet,))
        A, b = ctypes.c_void_p(), ctypes.c_void_p()
        self._check(lib.pds_fem2d_assemble(self._hc(), modes[dirichlet], ctypes.byref(A), ctypes.byref(b)))
        A, b = Matrix._adopt(self.ctx, A.value), Vector._adopt(self.ctx, b.value)
        self._user_check()
        return A, b

    def _user_check(self):
        from ._callbacks import take_pending
        exc = take_pending()
        if exc is not None:  # a user function raised: its values were NaN; the library's result is not used
            raise exc

    def exact(self):
        u = ctypes.c_void_p()
        self._check(lib.pds_fem2d_exact(self._hc(), ctypes.byref(u)))
        u = Vector._adopt(self.ctx, u.value)
        self._user_check()
        return u

    def l2_error(self, x):
        from .vector import as_vector
        e, xv = ctypes.c_double(), as_vector(x, self.ctx)
        self._check(lib.pds_fem2d_l2_error(self._hc(), xv._h, ctypes.byref(e)))
        self._user_check()
        return e.value

    @property
    def info(self):
        i = pds_fem2d_info()
        self._check(lib.pds_fem2d_get_info(self._hc(), ctypes.byref(i)))
        return {k: getattr(i, k) for k, _ in i._fields_}

    def __repr__(self):
        return view_text(lib.pds_fem2d_view, self._hc()) or "FEM2D"


def write_vtk(obj, fn, path, fields, n):
    """fn(handle, path, nfields, names, values): a VTK writer of the library, fields name -> n values each."""
    names = [k.encode() for k in fields]
    arrays = [np.ascontiguousarray(np.asarray(v if not isinstance(v, Vector) else v.numpy()), dtype=np.float64)
              for v in fields.values()]
    for k, a in zip(fields, arrays):
        if a.size != n:
            raise ArgumentError("pdesolve: field %s has %d values for %d" % (k, a.size, n))
    cnames = (ctypes.c_char_p * max(1, len(names)))(*names)
    cvals = (ctypes.c_void_p * max(1, len(arrays)))(*[a.ctypes.data for a in arrays])
    obj._check(fn(obj._hc(), os.fspath(path).encode(), len(names), cnames, cvals))


def fem2d(nodes=1000, ctx=None, domain="square", seed=1, problem="paper", dirichlet="rows", mesh=None):
    """Paper 004's system in one call: a generated mesh of about `nodes` nodes (or mesh=a Gmsh path or Mesh2D),
    assembled. Returns a Problem with u_exact (the exact solution at the nodes) and .fem (for l2_error)."""
    ctx = as_context(ctx)
    if mesh is None:
        m = Mesh2D.generate(domain, nodes, seed, ctx)
    else:
        m = mesh if isinstance(mesh, Mesh2D) else Mesh2D.read(mesh, ctx)
    fem = FEM2D(m, problem)
    A, b = fem.assemble(dirichlet)
    p = Problem(ctx, A, b, u_exact=fem.exact(),
                description="P1 FEM (%s) on a %d-node mesh" % (problem, m.sizes[0]))
    p.fem = fem
    return p
