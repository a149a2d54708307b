"""tests/python/test_generators.py: the library's generators and discretizations from Python, checked against what
is known of their solutions (the manufactured solutions, convergence, conservation of the free stream)."""
import numpy as np
import pytest

import pdesolve as pds


def test_problem_names():
    assert {"poisson7", "fem2d", "channel", "patches", "sem"} <= set(pds.problems.names()) | {"channel"}


def test_poisson7_second_order(ctx):
    errs = []
    for n in (8, 16):
        p = pds.problems.poisson7(n, ctx)
        x, r = pds.Solver(p.A, "cg", pc="jacobi", rtol=1e-12).solve(p.b.numpy())
        errs.append(np.abs(x - p.u_exact.numpy()).max())
    assert 3.0 < errs[0] / errs[1] < 5.0       # h^2


def test_channel_bilu0(ctx):
    A, b = pds.problems.channel((6, 6, 6), ctx, n=5, cfl=20)
    assert A.type == "stencil7" and A.block_size == 5 and A.shape[0] == 6 * 6 * 6 * 5
    x, r = pds.Solver(A, "gmres", pc="bilu0", rtol=1e-10).solve(b.numpy())
    assert r.converged and np.linalg.norm(A @ x - b.numpy()) <= 1e-9 * np.linalg.norm(b.numpy())
    Am, bm = pds.problems.channel([(4, 4, 4), (5, 3, 2)], ctx, n=4)
    assert Am.shape[0] == (64 + 30) * 4
    with pytest.raises(pds.errors.ArgumentError, match="unknown channel option"):
        pds.problems.channel((4, 4, 4), ctx, reynolds=3)


def test_channel_decomposed(ctx):
    """One channel cut into touching blocks: the one grid's unknowns and entries (renumbered), the same solution norm,
    bilu0 of each block alone (more iterations than on the one grid)."""
    A1, b1 = pds.problems.channel((6, 5, 4), ctx, n=5, cfl=5)
    A2, b2 = pds.problems.channel((6, 5, 4), ctx, decomp=(2, 1, 2), n=5, cfl=5)
    assert A2.type == "stencil7" and A2.shape == A1.shape and A2.nnz == A1.nnz
    assert np.array_equal(np.sort(b1.numpy()), np.sort(b2.numpy()))
    x1, r1 = pds.Solver(A1, "richardson", pc="bilu0", rtol=1e-10).solve(b1.numpy())
    x2, r2 = pds.Solver(A2, "richardson", pc="bilu0", rtol=1e-10).solve(b2.numpy())
    assert r1.converged and r2.converged and r2.iterations > r1.iterations
    assert abs(np.linalg.norm(x1) - np.linalg.norm(x2)) <= 1e-8 * np.linalg.norm(x1)
    with pytest.raises(pds.errors.ArgumentError, match="split"):
        pds.problems.channel((6, 5, 4), ctx, decomp=(7, 1, 1))


def test_fem2d_converges(ctx):
    errs = []
    for nodes in (400, 1600):
        p = pds.problems.fem2d(nodes, ctx, problem="manufactured", dirichlet="symmetric")
        x, r = pds.Solver(p.A, "cg", pc="jacobi", rtol=1e-12).solve(p.b.numpy())
        errs.append(p.fem.l2_error(x))
    assert errs[1] < errs[0] / 3                 # about h^2 (h halves with 4x the nodes)
    m = pds.problems.Mesh2D.generate("hole", 500, 2, ctx)
    assert m.sizes[0] > 400


def test_sem_spectral(ctx):
    errs = []
    for order in (3, 6):
        p = pds.problems.sem(2, order, ctx=ctx)
        x, r = pds.Solver(p.A, "cg", pc="semjacobi", rtol=1e-12).solve(p.b.numpy())
        errs.append(np.abs(x - p.u_exact.numpy()).max())
    assert errs[1] < errs[0] / 50


def test_patches_gmg(ctx):
    p = pds.problems.patches(32, [16], ctx)
    assert p.A.type == "patches"
    x, r = pds.Solver(p.A, "cg", pc="gmg", rtol=1e-10, pc_options={"cycle": "v", "pre": 2, "post": 2}).solve(
        p.b.numpy())
    assert r.converged and r.iterations <= 8


def test_fv_free_stream_and_implicit(ctx):
    m = pds.fv.Mesh3D.sphere(2000, ctx=ctx)
    assert m.sizes[1] > 1500
    box = pds.fv.Mesh3D.box(3, ctx=ctx)
    fvb = pds.fv.FV(box)
    Q = fvb.state()
    R = fvb.residual(Q)
    assert R.norm("inf") < 1e-12               # a free stream is preserved on a closed box of free-stream faces
    fv = pds.fv.FV(m, walls=[1], mach=0.3)
    assert fv.info["ncells"] == m.sizes[1] and fv.info["summation"] == "stages"
    Q = fv.state()
    r0 = fv.step(0.5, Q)
    J = fv.jacobian(Q, 10.0)
    assert J.type == "bsr" and J.block_size == 5
    s = pds.Solver(J, "gmres", pc="ilu0", rtol=0.1)
    r1, lin = fv.step_implicit(s, 10.0, Q)
    assert lin.iterations > 0 and np.isfinite(r1) and r1 > 0 and np.isfinite(r0)
    with pytest.raises(pds.errors.ArgumentError, match="unknown FV option"):
        pds.fv.FV(m, machnumber=2)


def test_fem2d_user_problem(ctx, tmp_path):
    # u = 1 + x + 2 y is linear: P1 reproduces it exactly (k = 2, f = 0, g = u on the boundary)
    m = pds.problems.Mesh2D.generate("square", 300, 3, ctx)
    u = lambda x, y: 1 + x + 2 * y
    fem = pds.problems.FEM2D(m, {"k": 2.0, "f": lambda x, y: 0.0, "g": u, "u": u})
    A, b = fem.assemble("symmetric")
    x, r = pds.Solver(A, "cg", pc="jacobi", rtol=1e-13).solve(b.numpy())
    assert np.abs(x - fem.exact().numpy()).max() < 1e-10
    assert fem.l2_error(x) < 1e-10
    m.write_vtk(tmp_path / "u.vtu", solution=x, exact=fem.exact())
    assert (tmp_path / "u.vtu").stat().st_size > 1000

    def bad(x, y):
        raise ZeroDivisionError("in the source")
    with pytest.raises(ZeroDivisionError, match="in the source"):
        pds.problems.FEM2D(m, {"f": bad}).assemble()
    with pytest.raises(pds.errors.ArgumentError, match="unknown FEM problem entries"):
        pds.problems.FEM2D(m, {"kappa": 1})


def test_relax_smooth_and_info(ctx):
    p = pds.problems.patches(16, [8], ctx)
    pc = pds.Precond(p.A, "relax", relax_type="jacobi", block=4)
    assert pc.info["nblocks"] == 64 and pc.info["ntypes"] >= 1
    u = pds.Vector(p.A.shape[0], ctx)
    r0 = np.linalg.norm(p.A.residual(p.b, u).numpy())
    pc.smooth(p.b, u, sweeps=5)
    assert np.linalg.norm(p.A.residual(p.b, u).numpy()) < r0
    g = pds.Precond(p.A, "gmg")
    assert g.info["levels"] >= 2 and g.info["coarse_cells"] <= 1000


def test_fem2d_user_function_raising_on_library_threads():
    # /cpu/omp evaluates the user's functions on its threads: an exception in any of them reaches the caller
    with pds.Context("/cpu/omp" if "/cpu/omp" in dict(pds.backends()) and dict(pds.backends())["/cpu/omp"]
                     else "/cpu/ref") as ctx:
        m = pds.problems.Mesh2D.generate("square", 3000, 1, ctx)
        calls = []

        def f(x, y):
            calls.append(1)
            if x > 0.9 and y > 0.9:  # a corner: reached by whichever thread has those triangles
                raise ValueError("bad point")
            return 1.0
        with pytest.raises(ValueError, match="bad point"):
            pds.problems.FEM2D(m, {"f": f}).assemble()
        assert len(calls) > 100
        p = pds.problems.FEM2D(m, {"f": 1.0})           # the next call is clean
        A, b = p.assemble()
        assert np.isfinite(b.numpy()).all()
