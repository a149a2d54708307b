"""tests/python/test_driver.py: every solver and preconditioner from Python against the C driver on the same data:
the same iteration count, reason, residual and solution bits (the same library calls in the same order), on the
shared matrices (Matrix Market files read by the library, and the same files read by SciPy) and the generated
problems."""
import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

import pdesolve as pds
from conftest import matrix_path, run_driver

FILE_CASES = [  # (matrix, solver, pc, driver flags, Python options)
    ("nos3", "cg", "jacobi", [], {}),
    ("nos3", "cg", "pbjacobi", ["-bs", "2"], {"pc_options": {"block_size": 2}}),
    ("gr_30_30", "cg", "none", [], {}),
    ("pde900", "bicgstab", "ilu0", [], {}),
    ("orsirr_1", "gmres", "ilu0", ["-restart", "20", "-orthog", "cgs"], {"restart": 20, "orthog": "cgs"}),
    ("cdde1", "fgmres", "jacobi", [], {}),
    ("gr_30_30", "richardson", "jacobi", ["-omega", "0.9", "-maxit", "150"], {"omega": 0.9, "maxit": 150}),
    ("e05r0000", "gmres", "ilu0", ["-pc_ilu0_shift", "0.5", "-maxit", "300"],
     {"pc_options": {"shift": 0.5}, "maxit": 300}),
    ("sherman1", "bicgstab", "ilu0", ["-pc_ilu0_variant", "approx-jacobi", "-pc_ilu0_sweeps", "2"],
     {"pc_options": {"variant": "approx-jacobi", "sweeps": 2}}),
    ("utm1700a", "gmres", "ilu0", ["-pc_ilu0_ordering", "rcm", "-rtol", "1e-10"],
     {"pc_options": {"ordering": "rcm"}, "rtol": 1e-10}),
]


def _python_solve(ctx, A, solver, pc, opts):
    b = A.matvec(np.ones(A.shape[0]))  # the driver's b = A * ones, by the library
    s = pds.Solver(A, solver, pc=pc, **opts)
    return s.solve(b)


@pytest.mark.parametrize("name,solver,pc,flags,opts", FILE_CASES, ids=[c[0] + "-" + c[1] + "-" + c[2]
                                                                         for c in FILE_CASES])
def test_file_against_driver(ctx, tmp_path, name, solver, pc, flags, opts):
    path = matrix_path(name)
    report, xd = run_driver(["-A", path, "-solver", solver, "-pc", pc] + flags, str(tmp_path))
    A = pds.Matrix.read(path, ctx)
    x, r = _python_solve(ctx, A, solver, pc, opts)
    assert r.iterations == report["iterations"]
    assert r.reason == report["reason"]
    assert r.rnorm == report["rnorm"]                     # bitwise: JSON keeps 17 digits
    assert np.array_equal(x, xd)                          # bitwise
    # the same file read by SciPy (sorted CSR, the matrix used in place) gives the same bits
    S = scipy.io.mmread(path)
    S = sp.csr_array(S)
    S.sum_duplicates()
    S.sort_indices()
    S.indices = S.indices.astype(np.int32)
    x2, r2 = _python_solve(ctx, pds.Matrix(S, ctx), solver, pc, opts)
    assert r2.iterations == report["iterations"] and np.array_equal(x2, xd)


def test_channel_bilu0_against_driver(ctx, tmp_path):
    report, xd = run_driver(["-problem", "channel", "-n", "6", "5", "4", "-solver", "gmres", "-pc", "bilu0"],
                            str(tmp_path))
    A, b = pds.problems.channel((6, 5, 4), ctx)
    assert A.type == "stencil7"
    x, r = pds.Solver(A, "gmres", pc="bilu0").solve(b.numpy())
    assert (r.iterations, r.rnorm) == (report["iterations"], report["rnorm"])
    assert np.array_equal(x, xd)


def test_patches_gmg_against_driver(ctx, tmp_path):
    report, xd = run_driver(["-problem", "patches", "-n", "16", "-patch", "8", "-solver", "cg", "-pc", "gmg",
                             "-rtol", "1e-9"], str(tmp_path))
    p = pds.problems.patches(16, [8], ctx)
    x, r = pds.Solver(p.A, "cg", pc="gmg", rtol=1e-9).solve(p.b.numpy())
    assert (r.iterations, r.rnorm) == (report["iterations"], report["rnorm"])
    assert np.array_equal(x, xd)


def test_patches_relax_against_driver(ctx, tmp_path):
    report, xd = run_driver(["-problem", "patches", "-n", "16", "-patch", "8", "-solver", "cg", "-pc", "relax",
                             "-relax_type", "multicolor", "-relax_block", "4"], str(tmp_path))
    p = pds.problems.patches(16, [8], ctx)
    x, r = pds.Solver(p.A, "cg", pc="relax", pc_options={"relax_type": "multicolor", "block": 4}).solve(p.b.numpy())
    assert (r.iterations, r.rnorm) == (report["iterations"], report["rnorm"])
    assert np.array_equal(x, xd)


def test_sem_semjacobi_against_driver(ctx, tmp_path):
    report, xd = run_driver(["-problem", "sem", "-elements", "3", "-order", "4", "-solver", "cg", "-pc",
                             "semjacobi"], str(tmp_path))
    p = pds.problems.sem(3, 4, ctx=ctx)
    assert p.A.type == "sem"
    x, r = pds.Solver(p.A, "cg", pc="semjacobi").solve(p.b.numpy())
    assert (r.iterations, r.rnorm) == (report["iterations"], report["rnorm"])
    assert np.array_equal(x, xd)


def test_fem2d_against_driver(ctx, tmp_path):
    report, xd = run_driver(["-problem", "fem2d", "-nodes", "600", "-solver", "bicgstab", "-pc", "jacobi"],
                            str(tmp_path))
    p = pds.problems.fem2d(600, ctx)
    x, r = pds.Solver(p.A, "bicgstab", pc="jacobi").solve(p.b.numpy())
    assert (r.iterations, r.rnorm) == (report["iterations"], report["rnorm"])
    assert np.array_equal(x, xd)
    assert p.fem.l2_error(x) < 1e-2


def test_precision_against_driver(ctx, tmp_path):
    path = matrix_path("nos3")
    for prec in ("single", "mixed"):
        report, xd = run_driver(["-A", path, "-solver", "cg", "-pc", "jacobi", "-precision", prec], str(tmp_path))
        A = pds.Matrix.read(path, ctx)
        x, r = _python_solve(ctx, A, "cg", "jacobi", {"precision": prec})
        assert (r.iterations, r.rnorm) == (report["iterations"], report["rnorm"])
        assert np.array_equal(x, xd)
