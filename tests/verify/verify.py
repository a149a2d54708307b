#!/usr/bin/env python3
"""tests/verify/verify.py: the pdesolve executable checked against an independent reference (SciPy, NumPy).

Subcommands, each one ctest test per backend (tests/verify/CMakeLists.txt):
  spmv     y = A x and y = A^T x for every shared matrix and two generated poisson7 problems (csr, and bsr where
           the matrix has blocks), against SciPy, row by row within a rounding-error bound
  solve    Krylov solves that must converge (exit 0), against scipy.sparse.linalg.spsolve and the true residual;
           and the generated poisson7's second-order convergence to its PDE solution (PREFIX_u.mtx)
  precond  jacobi (bitwise x / diag A) and pbjacobi (NumPy inverses of the diagonal blocks) applications; bilu0
           on generated channel systems read back as stencil7 (-format stencil7 -grid), against a NumPy
           implementation of paper 000's recurrence (Eq. 1) and sweeps (Eq. 2, 3)
  fail     errors the driver must report: zero diagonals under jacobi (exit 1, says 'zero'), bad input (also a
           matrix offered as stencil7 on a wrong grid or without one, bilu0 on a csr matrix), and a solve that runs
           out of iterations (exit 2)
  patches  patch sets (-problem patches, issue 12): the CSR that gen writes against the 7-point cell-centred
           operator built here from the patch geometry (and b, u against the manufactured solution); y = A x of
           the patches operator against SciPy, uniform and mixed patch sets; relax's block inverses (one Jacobi
           sweep, omega 1, from 0) against NumPy solves with each block of the CSR; cg + gmg converging to SciPy's
           solution, with bounded iterations and a discretization error falling at second order (16, 32, 64)
  sem      spectral elements (-problem sem, issue 13): the CSR that gen writes and the matrix-free operator (apply)
           against the operator built here from the definitions (GLL rule from NumPy's Legendre polynomials, element
           stiffness as Kronecker products), symmetric positive definite; b and u against the manufactured problem;
           SciPy's solution against u

Each takes --pdesolve PATH --backend B --shared DIR --workdir DIR. It prints one line per failed case and a
one-line summary; the exit status is 1 if any case failed. The work folder is removed when everything passed.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import traceback
import zlib

MISSING = "SciPy is missing: run make test, which sets it up"
try:
    import numpy as np
    import scipy.io
    import scipy.sparse as sp
    import scipy.sparse.linalg as spla
except ImportError as e:  # a missing reference is a failure, never a skip
    print(f"{MISSING} ({sys.executable}: {e})")
    sys.exit(1)

EPS = np.finfo(np.float64).eps
RTOL = 1e-10  # the solve tests' -rtol

# The shared matrices (../shared/matrices, see its MANIFEST.md); the *_rhs1 files are right-hand sides.
SHARED_MATRICES = ["bcsstk13", "bcsstk21", "cdde1", "crystm01", "e05r0000", "e20r0000", "gr_30_30", "nos3",
                   "olm1000", "orsirr_1", "pde900", "s1rmq4m1", "sherman1", "utm1700a"]
ZERO_DIAGONAL = {"e05r0000", "e20r0000"}  # 74 and 1199 zero diagonal entries
# Generated problems: (name, nx, ny, nz). 8x6x5 is not a cube (catches index-order slips); n = 240 = 2^4*15.
POISSON = [("poisson7_8x6x5", 8, 6, 5), ("poisson7_12", 12, 12, 12)]


class Fail(Exception):
    pass


class Verify:
    def __init__(self, args):
        self.exe = os.path.abspath(args.pdesolve)
        self.backend = args.backend
        self.matdir = os.path.join(args.shared, "matrices")
        self.work = args.workdir
        self.verbose = args.verbose
        self.failures = []
        self.cases = 0
        self._cache = {}
        if os.path.isdir(self.work):
            shutil.rmtree(self.work)
        os.makedirs(self.work)

    # ---- running the driver ------------------------------------------------------------------------------
    def run(self, args, expect=0):
        """Runs pdesolve with args (+ -backend); returns (rc, stdout+stderr). expect: exit code required, or None."""
        cmd = [self.exe] + [str(a) for a in args] + ["-backend", self.backend]
        try:
            p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                               timeout=600, cwd=self.work)
        except subprocess.TimeoutExpired:
            raise Fail(f"timed out after 600 s: {' '.join(cmd)}")
        out = p.stdout.decode(errors="replace")
        if expect is not None and p.returncode != expect:
            tail = " | ".join(out.strip().splitlines()[-6:])
            raise Fail(f"exit {p.returncode}, expected {expect}: {' '.join(cmd)}\n      output: {tail}")
        return p.returncode, out

    def path(self, name):
        return os.path.join(self.work, name)

    # ---- data --------------------------------------------------------------------------------------------
    def shared(self, name):
        return os.path.join(self.matdir, name + ".mtx")

    def matrix(self, path):
        if path not in self._cache:
            self._cache[path] = sp.csr_matrix(scipy.io.mmread(path), dtype=np.float64)
        return self._cache[path]

    def generated(self, name, nx, ny, nz):
        """Runs pdesolve gen once; returns the prefix of PREFIX_A.mtx, PREFIX_b.mtx and, where the generator
        knows them, PREFIX_x.mtx (exact discrete solution) and PREFIX_u.mtx (PDE solution at the unknowns)."""
        key = ("gen", name)
        if key not in self._cache:
            try:
                self._cache[key] = self._generate(name, nx, ny, nz)
            except Fail as e:
                self._cache[key] = Fail(f"pdesolve gen {name}: {e}")
        if isinstance(self._cache[key], Fail):
            raise self._cache[key]
        return self._cache[key]

    def _generate(self, name, nx, ny, nz):
        prefix = self.path(name)
        self.run(["gen", "-problem", "poisson7", "-n", nx, ny, nz, "-o", prefix])
        for suffix, fmt in (("_A", "coordinate"), ("_b", "array"), ("_x", "array"), ("_u", "array")):
            if suffix in ("_x", "_u") and not os.path.exists(prefix + suffix + ".mtx"):
                continue
            if not os.path.exists(prefix + suffix + ".mtx"):
                raise Fail(f"wrote no {name}{suffix}.mtx")
            _, _, _, f, field, symm = scipy.io.mminfo(prefix + suffix + ".mtx")
            if (f, field, symm) != (fmt, "real", "general"):
                raise Fail(f"wrote {name}{suffix}.mtx as '{f} {field} {symm}', expected '{fmt} real general'")
        return prefix

    def read_vec(self, path, n):
        """A vector written by pdesolve: must be 'array real general', n x 1."""
        if not os.path.exists(path):
            raise Fail(f"pdesolve wrote no {os.path.basename(path)}")
        rows, cols, _, fmt, field, symm = scipy.io.mminfo(path)
        if (fmt, field, symm) != ("array", "real", "general") or (rows, cols) != (n, 1):
            raise Fail(f"{os.path.basename(path)} is '{fmt} {field} {symm}' {rows}x{cols}, "
                       f"expected 'array real general' {n}x1")
        v = np.asarray(scipy.io.mmread(path), dtype=np.float64).ravel()
        if not np.all(np.isfinite(v)):
            raise Fail(f"{os.path.basename(path)} holds {np.count_nonzero(~np.isfinite(v))} non-finite values")
        return v

    def write_vec(self, name, v):
        """Writes v as 'array real general' with 17 significant digits (reads back bit for bit)."""
        path = self.path(name)
        with open(path, "w") as f:
            f.write("%%MatrixMarket matrix array real general\n")
            f.write(f"{len(v)} 1\n")
            f.write("\n".join("%.17e" % t for t in v))
            f.write("\n")
        return path

    @staticmethod
    def random_vec(n, key):
        return np.random.default_rng(zlib.crc32(key.encode())).uniform(-1.0, 1.0, n)

    # ---- bookkeeping -------------------------------------------------------------------------------------
    def case(self, name, fn, *args):
        self.cases += 1
        try:
            info = fn(*args)
            if self.verbose:
                print(f"ok   {name}" + (f": {info}" if info else ""))
        except Fail as e:
            self.failures.append(f"{name}: {e}")
        except Exception as e:  # a bug in this script or unreadable output: still a failed case, with where
            here = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == __file__]
            where = f" (verify.py line {here[-1].lineno})" if here else ""
            self.failures.append(f"{name}: {type(e).__name__}: {e}{where}")

    def finish(self, check):
        if self.failures:
            for f in self.failures:
                print(f"FAIL {check} {self.backend} {f}")
            print(f"verify {check} {self.backend}: {len(self.failures)} of {self.cases} cases failed "
                  f"(files kept in {self.work})")
            return 1
        print(f"verify {check} {self.backend}: {self.cases} cases passed")
        shutil.rmtree(self.work, ignore_errors=True)
        return 0


# ---- a) spmv ---------------------------------------------------------------------------------------------
def spmv_check(v, A, x, y, what):
    """|y_i - (A x)_i| <= c_i * sum_j |a_ij||x_j| for every row i.

    Both pdesolve and SciPy sum k_i products in double precision, each with an error of at most
    gamma_k = k eps/(1 - k eps) times sum_j |a_ij||x_j| (Higham, Accuracy and Stability, 3.1), whatever the
    order; the values themselves are read from the same decimal text. c_i = max(1e-14, 2 (k_i + 2) eps) covers
    both sums (plus the last rounding of each); for rows of up to 45 entries that is 1e-14. A row whose bound
    is 0 (all a_ij x_j = 0) must come out exactly 0."""
    ref = A @ x
    scale = abs(A) @ np.abs(x)
    k = np.diff(A.indptr)
    c = np.maximum(1e-14, 2.0 * (k + 2) * EPS)
    err = np.abs(y - ref)
    bad = np.nonzero(err > c * scale)[0]
    if bad.size:
        i = bad[np.argmax(err[bad] / np.maximum(scale[bad], np.finfo(float).tiny))]
        raise Fail(f"{what}: {bad.size} rows off; worst row {i}: pdesolve {float(y[i])!r}, SciPy {float(ref[i])!r}, "
                   f"|diff| {err[i]:.3e} > bound {c[i] * scale[i]:.3e} (sum |a||x| = {scale[i]:.3e})")
    nz = scale > 0
    return float((err[nz] / (c[nz] * scale[nz])).max()) if nz.any() else 0.0


def spmv_case(v, mpath, tag, fmt=None, bs=None, ops=("mat", "matT")):
    A = v.matrix(mpath)
    x = v.random_vec(A.shape[1], tag)
    xpath = v.write_vec(tag + "_x.mtx", x)
    extra = ["-format", fmt, "-bs", bs] if fmt else []
    margins = []
    for op in ops:
        ypath = v.path(f"{tag}_{op}_y.mtx")
        v.run(["apply", "-A", mpath, "-x", xpath, "-op", op, *extra, "-o", ypath])
        M = A if op == "mat" else sp.csr_matrix(A.T)
        r = spmv_check(v, M, x, v.read_vec(ypath, M.shape[0]), f"-op {op}")
        margins.append(f"{op} worst err/bound {r:.2g}")
    return ", ".join(margins)


def spmv_default_x(v, mpath, tag):
    """No -x: x = ones."""
    A = v.matrix(mpath)
    ypath = v.path(tag + "_ones_y.mtx")
    v.run(["apply", "-A", mpath, "-o", ypath])
    r = spmv_check(v, A, np.ones(A.shape[1]), v.read_vec(ypath, A.shape[0]), "default x = ones")
    return f"worst err/bound {r:.2g}"


def gen_consistent(v, name, nx, ny, nz):
    """pdesolve gen: n = nx ny nz, A symmetric with a positive diagonal and at most 7 entries a row, and, if
    it wrote the exact discrete solution x, b = A x up to rounding."""
    prefix = v.generated(name, nx, ny, nz)
    A = v.matrix(prefix + "_A.mtx")
    n = nx * ny * nz
    if A.shape != (n, n):
        raise Fail(f"A is {A.shape[0]}x{A.shape[1]}, expected {n}x{n}")
    if abs(A - A.T).max() != 0:
        raise Fail("the 7-point Laplacian A is not symmetric")
    if A.diagonal().min() <= 0 or np.diff(A.indptr).max() > 7:
        raise Fail("A is not a 7-point operator with a positive diagonal")
    b = v.read_vec(prefix + "_b.mtx", n)
    if os.path.exists(prefix + "_x.mtx"):
        x = v.read_vec(prefix + "_x.mtx", n)
        r = np.abs(b - A @ x)
        bound = 1e-12 * (abs(A) @ np.abs(x)) + 1e-300
        if np.any(r > bound):
            i = int(np.argmax(r / bound))
            raise Fail(f"b != A x_exact: row {i}: |b - A x| = {r[i]:.3e} > {bound[i]:.3e}")


def cmd_spmv(v):
    for m in SHARED_MATRICES:
        v.case(m, spmv_case, v, v.shared(m), m)
    v.case("nos3 bsr bs 2", spmv_case, v, v.shared("nos3"), "nos3_bsr2", "bsr", 2, ("mat",))
    v.case("crystm01 bsr bs 3", spmv_case, v, v.shared("crystm01"), "crystm01_bsr3", "bsr", 3, ("mat",))
    v.case("gr_30_30 x = ones", spmv_default_x, v, v.shared("gr_30_30"), "gr_30_30")
    for name, nx, ny, nz in POISSON:
        v.case(f"{name} gen", gen_consistent, v, name, nx, ny, nz)
        v.case(name, lambda name=name, d=(nx, ny, nz): spmv_case(
            v, v.generated(name, *d) + "_A.mtx", name))
    v.case("poisson7_8x6x5 bsr bs 2", lambda: spmv_case(
        v, v.generated("poisson7_8x6x5", 8, 6, 5) + "_A.mtx", "poisson7_bsr2", "bsr", 2, ("mat",)))


# ---- b) solve --------------------------------------------------------------------------------------------
# (matrix, rhs or None for b = A*ones, solver, pc, extra options, cond_2(A)).
# cond_2 is the 2-norm condition number, measured once with numpy.linalg.cond on the dense matrix (poisson7
# 10^3: (4/pi^2) 11^2 ~ 50). It sets the forward-error bound below.
SOLVES = [
    ("gr_30_30", None, "cg", "jacobi", [], 1.95e2),
    ("nos3", None, "cg", "pbjacobi", ["-bs", 2], 3.77e4),
    ("nos3", None, "cg", "pbjacobi", ["-format", "bsr", "-bs", 2], 3.77e4),
    ("bcsstk21", None, "cg", "jacobi", ["-maxit", 20000], 1.76e7),
    # sherman1 is symmetric negative definite (the sign many CFD codes assemble a pressure Laplacian in): CG
    # works on it unchanged, since every (p, A p) is negative; with Jacobi M is negative definite too.
    ("sherman1", "sherman1_rhs1", "cg", "none", [], 1.56e4),
    ("sherman1", "sherman1_rhs1", "cg", "jacobi", [], 1.56e4),
    ("sherman1", "sherman1_rhs1", "bicgstab", "jacobi", [], 1.56e4),
    ("sherman1", "sherman1_rhs1", "gmres", "jacobi", [], 1.56e4),
    ("pde900", None, "bicgstab", "jacobi", [], 1.53e2),
    ("cdde1", None, "gmres", "jacobi", [], 2.41e3),
    ("orsirr_1", None, "gmres", "jacobi", [], 7.71e4),
    ("orsirr_1", None, "fgmres", "jacobi", [], 7.71e4),
    # e05r0000 has zero diagonals (jacobi breaks down): unpreconditioned GMRES; restart 100 converges in
    # ~700 iterations in SciPy, restart 30 needs ~7600.
    ("e05r0000", "e05r0000_rhs1", "gmres", "none", ["-restart", 100], 3.42e4),
    ("poisson7_10", None, "cg", "jacobi", [], 50.0),
    ("poisson7_10", None, "cg", "none", [], 50.0),
    ("poisson7_10", None, "bicgstab", "jacobi", [], 50.0),
    ("poisson7_10", None, "gmres", "none", [], 50.0),
    ("poisson7_10", None, "fgmres", "jacobi", [], 50.0),
    # Jacobi iteration: spectral radius cos(pi/11) ~ 0.959, so ~550 iterations to 1e-10.
    ("poisson7_10", None, "richardson", "jacobi", ["-maxit", 5000], 50.0),
]
# ILU(0) (-pc ilu0) where it is known to work, with the iteration counts pdesolve took when these cases were added
# (/cpu/ref and /cpu/omp alike; GMRES(30) without a preconditioner needs 380, 874, 5823, 3422, ~7600 and 7099 on
# the first six): a count more than 10% (at least 2) away from them is a failure, so a change that weakens the
# factorization, or the Krylov methods around it, shows.
ILU0_SOLVES = [
    ("pde900", None, "gmres", [], 1.53e2, 42),
    ("cdde1", None, "gmres", [], 2.41e3, 64),
    ("orsirr_1", None, "gmres", [], 7.71e4, 70),
    ("sherman1", "sherman1_rhs1", "gmres", [], 1.56e4, 71),
    ("e05r0000", "e05r0000_rhs1", "gmres", [], 3.42e4, 35),  # zero diagonals, filled by the elimination
    ("nos3", None, "gmres", ["-format", "bsr", "-bs", 2], 3.77e4, 122),
    ("pde900", None, "bicgstab", [], 1.53e2, 23),
    ("orsirr_1", None, "bicgstab", [], 7.71e4, 38),
    ("sherman1", "sherman1_rhs1", "bicgstab", [], 1.56e4, 39),
    # the approximate variants (3 Jacobi sweeps per triangle; approx-chow also 3 Chow-Patel sweeps) where they
    # converge: 1.2-4.4x the exact counts (pde900 1.2x, cdde1 and e05r0000 1.2-1.3x, sherman1 2.1-2.4x, orsirr_1 3.2x,
    # nos3 4.2-4.4x);
    # approx-jacobi does not converge on orsirr_1 (its Jacobi sweeps diverge), approx-chow's start meets e05r0000's
    # zero diagonals (verify_fail)
    ("pde900", None, "gmres", ["-pc_ilu0_variant", "approx-jacobi"], 1.53e2, 52),
    ("pde900", None, "gmres", ["-pc_ilu0_variant", "approx-chow"], 1.53e2, 52),
    ("cdde1", None, "gmres", ["-pc_ilu0_variant", "approx-jacobi"], 2.41e3, 76),
    ("cdde1", None, "gmres", ["-pc_ilu0_variant", "approx-chow"], 2.41e3, 74),
    ("orsirr_1", None, "gmres", ["-pc_ilu0_variant", "approx-chow"], 7.71e4, 227),
    ("sherman1", "sherman1_rhs1", "gmres", ["-pc_ilu0_variant", "approx-jacobi"], 1.56e4, 147),
    ("sherman1", "sherman1_rhs1", "gmres", ["-pc_ilu0_variant", "approx-chow"], 1.56e4, 172),
    ("e05r0000", "e05r0000_rhs1", "gmres", ["-pc_ilu0_variant", "approx-jacobi"], 3.42e4, 45),
    ("nos3", None, "gmres", ["-format", "bsr", "-bs", 2, "-pc_ilu0_variant", "approx-jacobi"], 3.77e4, 538),
    ("nos3", None, "gmres", ["-format", "bsr", "-bs", 2, "-pc_ilu0_variant", "approx-chow"], 3.77e4, 507),
]


def solve_case(v, mat, rhs, solver, pc, extra, cond, tag, expect_its=None):
    """Exit 0, then with SciPy: ||b - A x|| <= 10 rtol ||b|| (the solver's own test is on ||r|| <= rtol ||b||,
    the factor 10 leaves room for the drift between recursive and true residual), and
    ||x - x_scipy|| / ||x_scipy|| <= max(1e-6, 10 rtol cond_2(A)): the forward error that residual allows.
    For the well-conditioned cases (cond_2 <= 1e3) that is the plain 1e-6; for nos3, sherman1, orsirr_1,
    e05r0000 (~1e4-1e5) and bcsstk21 (1.8e7) the residual is the sharp check and the x check follows cond."""
    if mat.startswith("poisson7_"):
        prefix = v.generated(mat, 10, 10, 10)
        mpath, bpath = prefix + "_A.mtx", prefix + "_b.mtx"
    else:
        mpath = v.shared(mat)
        bpath = v.shared(rhs) if rhs else None
    A = v.matrix(mpath)
    n = A.shape[0]
    b = v.read_vec(bpath, n) if bpath else A @ np.ones(n)
    xpath, jpath = v.path(tag + "_x.mtx"), v.path(tag + ".json")
    args = ["solve", "-A", mpath] + (["-b", bpath] if bpath else [])
    args += ["-solver", solver, "-pc", pc, "-rtol", RTOL, "-maxit", 10000] + extra + ["-o", xpath, "-json", jpath]
    if "-maxit" in extra:
        i = args.index("-maxit")
        del args[i:i + 2]
    v.run(args)
    x = v.read_vec(xpath, n)
    try:
        with open(jpath) as f:
            report = json.load(f)
    except (OSError, ValueError) as e:
        raise Fail(f"-json {os.path.basename(jpath)} is not a JSON object: {e}")
    if not isinstance(report, dict):
        raise Fail(f"-json {os.path.basename(jpath)} holds a {type(report).__name__}, not an object")
    if report.get("converged", True) is not True:
        raise Fail(f"exit 0 but the -json report says converged = {report.get('converged')!r}")
    res = np.linalg.norm(b - A @ x) / np.linalg.norm(b)
    if res > 10 * RTOL:
        raise Fail(f"true residual ||b - A x||/||b|| = {res:.3e} > {10 * RTOL:.0e}")
    xs = spla.spsolve(sp.csc_matrix(A), b)
    fwd = np.linalg.norm(x - xs) / np.linalg.norm(xs)
    bound = max(1e-6, 10 * RTOL * cond)
    if fwd > bound:
        raise Fail(f"||x - x_scipy||/||x_scipy|| = {fwd:.3e} > {bound:.1e} (residual {res:.2e})")
    its = report.get("iterations", "?")
    if expect_its is not None and not (isinstance(its, int) and abs(its - expect_its) <= max(2, 0.1 * expect_its)):
        raise Fail(f"{its} iterations, expected {expect_its} (within 10%, at least 2)")
    return f"{its} iterations, residual {res:.2e}, forward error {fwd:.2e} (bound {bound:.0e})"


def poisson_order(v):
    """The generated poisson7 is a second-order discretization: the discrete solution (SciPy spsolve of the
    generated A, b) approaches the PDE solution PREFIX_u.mtx like h^2. From h = 1/9 (8^3) to h = 1/17 (16^3)
    the max error must shrink by (17/9)^2 ~ 3.6; accepted: 3.0 to 4.5."""
    errs = []
    for m in (8, 16):
        prefix = v.generated(f"poisson7_{m}", m, m, m)
        if not os.path.exists(prefix + "_u.mtx"):
            raise Fail(f"gen wrote no poisson7_{m}_u.mtx (the PDE solution)")
        A = v.matrix(prefix + "_A.mtx")
        n = m ** 3
        xs = spla.spsolve(sp.csc_matrix(A), v.read_vec(prefix + "_b.mtx", n))
        errs.append(np.abs(xs - v.read_vec(prefix + "_u.mtx", n)).max())
    ratio = errs[0] / errs[1]
    if not 3.0 <= ratio <= 4.5:
        raise Fail(f"max |x_h - u| = {errs[0]:.3e} (h = 1/9), {errs[1]:.3e} (h = 1/17): ratio {ratio:.2f}, "
                   f"expected ~3.6 for second order")
    return f"errors {errs[0]:.2e}, {errs[1]:.2e}, ratio {ratio:.2f}"


def cmd_solve(v):
    v.case("poisson7 discretization order", poisson_order, v)
    for mat, rhs, solver, pc, extra, cond in SOLVES:
        desc = " ".join([mat, solver, pc] + [str(e) for e in extra])
        tag = "_".join([mat, solver, pc] + [str(e).lstrip("-") for e in extra])
        v.case(desc, solve_case, v, mat, rhs, solver, pc, extra, cond, tag)
    for mat, rhs, solver, extra, cond, its in ILU0_SOLVES:
        desc = " ".join([mat, solver, "ilu0"] + [str(e) for e in extra])
        tag = "_".join([mat, solver, "ilu0"] + [str(e).lstrip("-") for e in extra])
        v.case(desc, solve_case, v, mat, rhs, solver, "ilu0", extra, cond, tag, its)


# ---- c) precond ------------------------------------------------------------------------------------------
def pbjacobi_case(v, mpath, bs, fmt, tag):
    """y = D^-1 x with D the bs x bs diagonal blocks; reference: numpy.linalg.inv of each block.
    Two ways of inverting a block agree to a few eps times cond(D_k), relative to ||D_k^-1|| ||x_k||;
    the bound is 16 bs eps cond_inf(D_k) ||D_k^-1||_inf ||x_k||_inf per block."""
    A = v.matrix(mpath)
    n = A.shape[0]
    if n % bs:
        raise Fail(f"n = {n} is not a multiple of bs = {bs}")
    x = v.random_vec(n, tag)
    xpath = v.write_vec(tag + "_x.mtx", x)
    ypath = v.path(tag + "_y.mtx")
    extra = ["-format", fmt] if fmt else []
    v.run(["apply", "-A", mpath, "-x", xpath, "-op", "pc", "-pc", "pbjacobi", "-bs", bs, *extra, "-o", ypath])
    y = v.read_vec(ypath, n).reshape(-1, bs)
    nb = n // bs
    D = np.zeros((nb, bs, bs))
    for r in range(bs):
        for c in range(bs):
            D[:, r, c] = A[np.arange(nb) * bs + r, np.arange(nb) * bs + c].A.ravel()
    Dinv = np.linalg.inv(D)
    ref = np.einsum("kij,kj->ki", Dinv, x.reshape(-1, bs))
    ninv = np.abs(Dinv).sum(axis=2).max(axis=1)
    cond = np.abs(D).sum(axis=2).max(axis=1) * ninv
    bound = 16 * bs * EPS * cond * ninv * np.abs(x.reshape(-1, bs)).max(axis=1)
    err = np.abs(y - ref).max(axis=1)
    bad = np.nonzero(err > bound)[0]
    if bad.size:
        k = bad[np.argmax(err[bad] / bound[bad])]
        raise Fail(f"{bad.size} of {nb} blocks off; worst block {k}: |diff| {err[k]:.3e} > {bound[k]:.3e}, "
                   f"pdesolve {y[k].tolist()}, NumPy {ref[k].tolist()}")
    return f"worst err/bound {(err / bound).max():.2g}, max rel. diff {(err / np.abs(ref).max(axis=1)).max():.1e}"


def jacobi_case(v, mpath, fmt, bs, tag):
    """y = x / diag(A), bit for bit: the library divides, and both files carry 17 significant digits."""
    A = v.matrix(mpath)
    n = A.shape[0]
    x = v.random_vec(n, tag)
    xpath = v.write_vec(tag + "_x.mtx", x)
    ypath = v.path(tag + "_y.mtx")
    extra = ["-format", fmt, "-bs", bs] if fmt else []
    v.run(["apply", "-A", mpath, "-x", xpath, "-op", "pc", "-pc", "jacobi", *extra, "-o", ypath])
    y = v.read_vec(ypath, n)
    ref = x / A.diagonal()
    bad = np.nonzero(y != ref)[0]
    if bad.size:
        i = bad[0]
        raise Fail(f"{bad.size} of {n} entries differ from x / diag(A); first, row {i}: pdesolve {float(y[i])!r}, "
                   f"x/d {float(ref[i])!r} (x {float(x[i])!r}, d {float(A[i, i])!r})")


def bilu0_case(v, I, J, K, tag):
    """y = M^-1 x with M the block ILU(0) of a channel system (gen -problem channel, 6 unknowns per cell) read back
    with -format stencil7 -grid I J K; reference: the recurrence d_p = delta_p - sum over the lower neighbours q of
    A_pq d_q^-1 A_qp (numpy.linalg.inv) and the two block sweeps, in natural order (k fastest). The two compute the
    same numbers in other orders: relative agreement to 1e-12 of max |y| (the blocks are well conditioned; seen:
    3e-16)."""
    prefix = v.path(tag)
    v.run(["gen", "-problem", "channel", "-n", I, J, K, "-o", prefix])
    A = v.matrix(prefix + "_A.mtx").tocsr()
    npts = I * J * K
    n = A.shape[0] // npts
    if n * npts != A.shape[0]:
        raise Fail(f"{A.shape[0]} rows are not {npts} points of equal size")
    x = v.random_vec(A.shape[0], tag)
    xpath = v.write_vec(tag + "_x.mtx", x)
    ypath = v.path(tag + "_y.mtx")
    v.run(["apply", "-A", prefix + "_A.mtx", "-x", xpath, "-op", "pc", "-pc", "bilu0", "-format", "stencil7",
           "-grid", I, J, K, "-bs", n, "-o", ypath])
    y = v.read_vec(ypath, A.shape[0]).reshape(npts, n)

    def idx(i, j, k):
        return (i * J + j) * K + k

    def blk(p, q):
        return A[p * n:(p + 1) * n, q * n:(q + 1) * n].toarray()

    pts = [(i, j, k) for i in range(I) for j in range(J) for k in range(K)]
    lower = lambda i, j, k: [c for c, ok in (((i, j, k - 1), k > 0), ((i, j - 1, k), j > 0),
                                             ((i - 1, j, k), i > 0)) if ok]
    upper = lambda i, j, k: [c for c, ok in (((i + 1, j, k), i + 1 < I), ((i, j + 1, k), j + 1 < J),
                                             ((i, j, k + 1), k + 1 < K)) if ok]
    dinv = np.zeros((npts, n, n))
    for (i, j, k) in pts:
        p = idx(i, j, k)
        T = blk(p, p)
        for c in lower(i, j, k):
            q = idx(*c)
            T = T - blk(p, q) @ dinv[q] @ blk(q, p)
        dinv[p] = np.linalg.inv(T)
    xb = x.reshape(npts, n)
    z = np.zeros((npts, n))
    for (i, j, k) in pts:
        p = idx(i, j, k)
        s = xb[p].copy()
        for c in lower(i, j, k):
            s -= blk(p, idx(*c)) @ z[idx(*c)]
        z[p] = dinv[p] @ s
    for (i, j, k) in reversed(pts):
        p = idx(i, j, k)
        s = np.zeros(n)
        for c in upper(i, j, k):
            s += blk(p, idx(*c)) @ z[idx(*c)]
        z[p] = z[p] - dinv[p] @ s
    err = np.abs(y - z).max() / np.abs(z).max()
    if not err <= 1e-12:
        p = int(np.abs(y - z).max(axis=1).argmax())
        raise Fail(f"relative difference {err:.3e} > 1e-12; worst point {p}: pdesolve {y[p].tolist()}, "
                   f"NumPy {z[p].tolist()}")
    return f"max rel. diff {err:.1e}"


class ZeroPivot(Exception):
    pass


def ilu0_ref(A, bs, x, shift=0.0):
    """y = M^-1 x with M the ILU(0) of A + shift I (by bs x bs blocks), written here from the textbook IKJ loop
    (Saad, Iterative Methods, Algorithm 10.4) on A's pattern with the diagonal added: for each row i, for k < i in
    its pattern, L_ik = A_ik U_kk^-1, then A_ij -= L_ik U_kj for the j > k in both rows; y by the forward (unit L)
    and backward (U) sweeps. Raises ZeroPivot on a zero (singular) pivot."""
    A = sp.csr_matrix(A)
    nb = A.shape[0] // bs
    if bs == 1:
        rows = [dict(zip(A.indices[A.indptr[i]:A.indptr[i + 1]].tolist(), A.data[A.indptr[i]:A.indptr[i + 1]].tolist()))
                for i in range(nb)]
        zero, eye = 0.0, 1.0
    else:
        B = sp.bsr_matrix(A, blocksize=(bs, bs))
        rows = [{int(B.indices[p]): np.array(B.data[p], dtype=float) for p in range(B.indptr[i], B.indptr[i + 1])}
                for i in range(nb)]
        zero, eye = np.zeros((bs, bs)), np.eye(bs)
    mul = (lambda a, b: a * b) if bs == 1 else (lambda a, b: a @ b)
    upper, dinv = [None] * nb, [None] * nb
    for i in range(nb):
        r = rows[i]
        r[i] = r.get(i, zero) + shift * eye
        cols = sorted(r)
        for k in cols:
            if k >= i:
                break
            lik = mul(r[k], dinv[k])
            r[k] = lik
            for j, ukj in upper[k]:
                if j in r:
                    r[j] = r[j] - mul(lik, ukj)
        d = r[i]
        if bs == 1:
            if d == 0 or not np.isfinite(d):
                raise ZeroPivot(f"row {i}")
            dinv[i] = 1.0 / d
        else:
            if not np.all(np.isfinite(d)) or np.linalg.matrix_rank(d) < bs:
                raise ZeroPivot(f"block row {i}")
            dinv[i] = np.linalg.inv(d)
        upper[i] = [(j, r[j]) for j in cols if j > i]
    xb = np.asarray(x, dtype=float).reshape(nb, bs)
    y = np.zeros((nb, bs))
    for i in range(nb):
        s = xb[i].copy()
        for k, lik in rows[i].items():
            if k < i:
                s -= (lik * y[k] if bs == 1 else lik @ y[k])
        y[i] = s
    for i in reversed(range(nb)):
        s = y[i].copy()
        for j, uij in upper[i]:
            s -= (uij * y[j] if bs == 1 else uij @ y[j])
        y[i] = dinv[i] * s if bs == 1 else dinv[i] @ s
    return y.reshape(-1)


def ilu0_case(v, mpath, fmt, bs, shift, tag):
    """y = M^-1 x (pdesolve apply -op pc -pc ilu0) against ilu0_ref: relative agreement to 1e-10 of max |y| (the two
    compute the same numbers with other roundings: the library inverts the pivots by Gauss-Jordan and sums in its
    own order; seen: 5e-17 to 4e-14, the largest on olm1000 and bcsstk13). A zero pivot in the
    reference: pdesolve must fail naming one."""
    A = v.matrix(mpath)
    n = A.shape[0]
    x = v.random_vec(n, tag)
    xpath = v.write_vec(tag + "_x.mtx", x)
    ypath = v.path(tag + "_y.mtx")
    extra = (["-format", fmt, "-bs", bs] if fmt else []) + (["-pc_ilu0_shift", shift] if shift else [])
    try:
        z = ilu0_ref(A, bs if fmt else 1, x, shift)
    except ZeroPivot as e:
        expect_error(v, ["apply", "-A", mpath, "-x", xpath, "-op", "pc", "-pc", "ilu0", *extra, "-o", ypath], 1,
                     ["zero", "singular"])
        return f"zero pivot ({e}): refused as expected"
    v.run(["apply", "-A", mpath, "-x", xpath, "-op", "pc", "-pc", "ilu0", *extra, "-o", ypath])
    y = v.read_vec(ypath, n)
    err = np.abs(y - z).max() / np.abs(z).max()
    if not err <= 1e-10:
        i = int(np.abs(y - z).argmax())
        raise Fail(f"relative difference {err:.3e} > 1e-10; worst row {i}: pdesolve {float(y[i])!r}, "
                   f"NumPy {float(z[i])!r}")
    return f"max rel. diff {err:.1e}"


def cmd_precond(v):
    def poisson():  # generated inside the cases, so that a failing gen is a failed case
        return v.generated("poisson7_8x6x5", 8, 6, 5) + "_A.mtx"

    for mat, bs, fmt in (("nos3", 2, None), ("nos3", 2, "bsr"), ("crystm01", 3, None), ("crystm01", 3, "bsr")):
        v.case(f"pbjacobi {mat} bs {bs} {fmt or 'csr'}", pbjacobi_case, v, v.shared(mat), bs, fmt,
               f"pbj_{mat}_{bs}_{fmt}")
    for bs, fmt in ((1, None), (2, None), (4, None), (4, "bsr")):
        v.case(f"pbjacobi poisson7_8x6x5 bs {bs} {fmt or 'csr'}",
               lambda bs=bs, fmt=fmt: pbjacobi_case(v, poisson(), bs, fmt, f"pbj_poisson_{bs}_{fmt}"))
    for m in SHARED_MATRICES:
        if m not in ZERO_DIAGONAL:
            v.case(f"jacobi {m}", jacobi_case, v, v.shared(m), None, None, f"jac_{m}")
    v.case("jacobi nos3 bsr bs 2", jacobi_case, v, v.shared("nos3"), "bsr", 2, "jac_nos3_bsr")
    v.case("jacobi poisson7_8x6x5", lambda: jacobi_case(v, poisson(), None, None, "jac_poisson"))
    for I, J, K in ((4, 3, 5), (1, 6, 2), (3, 3, 3), (5, 1, 1)):
        v.case(f"bilu0 channel {I}x{J}x{K}", bilu0_case, v, I, J, K, f"bilu0_{I}_{J}_{K}")
    for m in SHARED_MATRICES:
        v.case(f"ilu0 {m}", ilu0_case, v, v.shared(m), None, 1, 0.0, f"ilu0_{m}")
    for m, bs in (("nos3", 2), ("crystm01", 3)):
        v.case(f"ilu0 {m} bsr bs {bs}", ilu0_case, v, v.shared(m), "bsr", bs, 0.0, f"ilu0_{m}_bsr")
    v.case("ilu0 e05r0000 shift 0.01", ilu0_case, v, v.shared("e05r0000"), None, 1, 0.01, "ilu0_e05_shift")
    v.case("ilu0 poisson7_8x6x5", lambda: ilu0_case(v, poisson(), None, 1, 0.0, "ilu0_poisson"))


# ---- d) fail ---------------------------------------------------------------------------------------------
def expect_error(v, args, rc, words):
    """pdesolve args must exit rc and (if words) mention one of words, case-insensitively."""
    _, out = v.run(args, expect=rc)
    if words and not any(w in out.lower() for w in words):
        raise Fail(f"exit {rc} as expected, but the output does not mention {' or '.join(words)}: "
                   f"{' | '.join(out.strip().splitlines()[-4:])!r}")


def cmd_fail(v):
    e05, e20 = v.shared("e05r0000"), v.shared("e20r0000")
    v.case("jacobi on e05r0000 (74 zero diagonals)", expect_error, v,
           ["apply", "-A", e05, "-op", "pc", "-pc", "jacobi", "-o", v.path("y.mtx")], 1, ["zero"])
    v.case("jacobi on e20r0000 (1199 zero diagonals)", expect_error, v,
           ["apply", "-A", e20, "-op", "pc", "-pc", "jacobi", "-o", v.path("y.mtx")], 1, ["zero"])
    v.case("solve with jacobi on e05r0000", expect_error, v,
           ["solve", "-A", e05, "-solver", "gmres", "-pc", "jacobi", "-rtol", 1e-8, "-maxit", 100,
            "-o", v.path("x.mtx")], 1, ["zero"])
    v.case("pbjacobi bs 1 on e05r0000 (singular 1x1 blocks)", expect_error, v,
           ["apply", "-A", e05, "-op", "pc", "-pc", "pbjacobi", "-bs", 1, "-o", v.path("y.mtx")], 1,
           ["zero", "singular"])
    zp = v.path("zero_pivot.mtx")  # row 1's pivot is 0 - 1 * 1 / 1 = 0 after the elimination
    with open(zp, "w") as f:
        f.write("%%MatrixMarket matrix coordinate real general\n3 3 6\n1 1 1\n1 2 1\n2 1 1\n2 2 1\n3 3 2\n"
                "3 2 1\n")
    v.case("ilu0: a pivot that the elimination makes zero", expect_error, v,
           ["apply", "-A", zp, "-op", "pc", "-pc", "ilu0", "-o", v.path("y.mtx")], 1, ["row 1 is zero"])
    v.case("ilu0: the same with a shift", lambda: v.run(["apply", "-A", zp, "-op", "pc", "-pc", "ilu0",
                                                          "-pc_ilu0_shift", 0.1, "-o", v.path("y.mtx")]) and None)
    v.case("-pc_ilu0_shift without -pc ilu0", expect_error, v,
           ["solve", "-A", v.shared("gr_30_30"), "-pc", "jacobi", "-pc_ilu0_shift", 1, "-o", v.path("x.mtx")], 1,
           ["only used with -pc ilu0"])
    v.case("ilu0 approx-chow: the zero diagonal its start meets (e05r0000)", expect_error, v,
           ["solve", "-A", v.shared("e05r0000"), "-pc", "ilu0", "-pc_ilu0_variant", "approx-chow", "-o",
            v.path("x.mtx")], 1, ["row 8 is zero", "shift"])
    v.case("-pc_ilu0_variant without -pc ilu0", expect_error, v,
           ["solve", "-A", v.shared("gr_30_30"), "-pc", "jacobi", "-pc_ilu0_variant", "approx-jacobi", "-o",
            v.path("x.mtx")], 1, ["only used with -pc ilu0"])
    v.case("an unknown -pc_ilu0_variant", expect_error, v,
           ["solve", "-A", v.shared("gr_30_30"), "-pc", "ilu0", "-pc_ilu0_variant", "nonesuch", "-o",
            v.path("x.mtx")], 1, ["approx-jacobi"])
    v.case("-pc_ilu0_sweeps out of range", expect_error, v,
           ["solve", "-A", v.shared("gr_30_30"), "-pc", "ilu0", "-pc_ilu0_sweeps", 5000, "-o", v.path("x.mtx")], 1,
           ["-pc_ilu0_sweeps"])
    v.case("ilu0 on bsr whose block size does not divide the rows", expect_error, v,
           ["apply", "-A", v.shared("gr_30_30"), "-op", "pc", "-pc", "ilu0", "-format", "bsr", "-bs", 7,
            "-o", v.path("y.mtx")], 1, ["divide", "multiple", "block size"])
    v.case("not converged is exit 2", expect_error, v,
           ["solve", "-A", v.shared("bcsstk21"), "-solver", "cg", "-pc", "none", "-rtol", 1e-10, "-maxit", 5,
            "-o", v.path("x.mtx")], 2, [])
    v.case("missing matrix file", expect_error, v,
           ["apply", "-A", v.path("no_such_matrix.mtx"), "-o", v.path("y.mtx")], 1, [])
    short = v.write_vec("short_x.mtx", np.ones(10))
    v.case("x of the wrong size", expect_error, v,
           ["apply", "-A", v.shared("gr_30_30"), "-x", short, "-o", v.path("y.mtx")], 1, [])
    ch = v.path("ch_4x3x5")
    v.case("channel system for the stencil7 errors",
           lambda: v.run(["gen", "-problem", "channel", "-n", 4, 3, 5, "-o", ch]) and None)
    v.case("-format stencil7 on the wrong grid", expect_error, v,
           ["apply", "-A", ch + "_A.mtx", "-op", "pc", "-pc", "bilu0", "-format", "stencil7", "-grid", 5, 3, 4,
            "-bs", 6, "-o", v.path("y.mtx")], 1, ["neighbours"])
    v.case("-format stencil7 without -grid", expect_error, v,
           ["apply", "-A", ch + "_A.mtx", "-format", "stencil7", "-bs", 6, "-o", v.path("y.mtx")], 1, ["-grid"])
    v.case("-format stencil7 with a size that is not the grid's", expect_error, v,
           ["apply", "-A", ch + "_A.mtx", "-format", "stencil7", "-grid", 4, 3, 6, "-bs", 6, "-o", v.path("y.mtx")],
           1, ["grid"])
    v.case("bilu0 on a csr matrix", expect_error, v,
           ["apply", "-A", v.shared("gr_30_30"), "-op", "pc", "-pc", "bilu0", "-o", v.path("y.mtx")], 1,
           ["stencil7"])
    v.case("unknown option", expect_error, v,
           ["apply", "-A", v.shared("gr_30_30"), "-no-such-option", 1, "-o", v.path("y.mtx")], 1, [])


# ---- e) patches ------------------------------------------------------------------------------------------
# Patch sets of -problem patches -n NX NY NZ -patch LIST: (NX, NY, NZ, LIST). Boxes that are no cubes and lists
# whose sizes do not divide them (the last patch of an axis is cut), so that index-order slips and edge patches show.
PATCH_SETS = [(12, 10, 8, "4"), (13, 11, 9, "4,6,3"), (6, 5, 4, "8"), (10, 10, 10, "3,5")]


def patch_segments(n, sizes):
    """One axis of pds_patches_tile_box: segments of sizes[0], sizes[1], ... in turn, the last cut at n."""
    segs, pos, i = [], 0, 0
    while pos < n:
        s = min(sizes[i % len(sizes)], n - pos)
        segs.append((pos, s))
        pos, i = pos + s, i + 1
    return segs


def patch_tiling(dims, sizes):
    """The patches tiling the box (lo, n per patch), x fastest, and each patch's first row."""
    sx, sy, sz = (patch_segments(d, sizes) for d in dims)
    patches, first, row = [], [], 0
    for (z0, nz) in sz:
        for (y0, ny) in sy:
            for (x0, nx) in sx:
                patches.append(((x0, y0, z0), (nx, ny, nz)))
                first.append(row)
                row += nx * ny * nz
    return patches, first


def patch_rows(dims, sizes):
    """rows[z, y, x]: the row of cell (x, y, z) of the box (the cells patch after patch, x fastest in each)."""
    patches, first = patch_tiling(dims, sizes)
    rows = -np.ones(dims[::-1], dtype=np.int64)
    for ((x0, y0, z0), (nx, ny, nz)), f in zip(patches, first):
        rows[z0:z0 + nz, y0:y0 + ny, x0:x0 + nx] = f + np.arange(nx * ny * nz).reshape(nz, ny, nx)
    if (rows < 0).any():
        raise Fail("the tiling here leaves cells uncovered (a bug in verify.py)")
    return rows


def patch_operator(dims, sizes):
    """The 7-point cell-centred -lap on (0,1)^3 (pdesolve.h, pds_problem_patches): c_d = -1/h_d^2 to the neighbour
    in direction d, c0 = -sum_d c_d on the diagonal, and a Dirichlet face (ghost 2 g - u) adds -c_d to it. Built
    here from the geometry alone: SciPy CSR."""
    rows = patch_rows(dims, sizes)
    n = rows.size
    h = [1.0 / d for d in dims]
    c = [-1.0 / (hd * hd) for hd in h]  # x, y, z
    c0 = -2.0 * sum(c)
    diag = np.full(rows.shape, c0)
    I, J, V = [rows.ravel()], [rows.ravel()], []
    for axis in range(3):  # numpy axis of direction d: z 0, y 1, x 2
        ax = 2 - axis
        for step in (-1, 1):
            src = [slice(None)] * 3
            dst = [slice(None)] * 3
            if step < 0:
                src[ax], dst[ax] = slice(1, None), slice(None, -1)
                bnd = [slice(None)] * 3
                bnd[ax] = slice(0, 1)
            else:
                src[ax], dst[ax] = slice(None, -1), slice(1, None)
                bnd = [slice(None)] * 3
                bnd[ax] = slice(-1, None)
            I.append(rows[tuple(src)].ravel())
            J.append(rows[tuple(dst)].ravel())
            V.append(np.full(I[-1].size, c[axis]))
            diag[tuple(bnd)] -= c[axis]
    V.insert(0, diag.ravel())
    return sp.csr_matrix((np.concatenate(V), (np.concatenate(I), np.concatenate(J))), shape=(n, n)), rows, c


def patch_rhs(dims, sizes):
    """b and u of the manufactured problem: u = sin(pi x) sin(pi y) sin(pi z) + x y z at the cell centres,
    f = -lap u = 3 pi^2 sin sin sin, and b = f - 2 c_d g on each Dirichlet face (g = u at the face centre)."""
    A, rows, c = patch_operator(dims, sizes)
    nx, ny, nz = dims
    ue = lambda x, y, z: np.sin(np.pi * x) * np.sin(np.pi * y) * np.sin(np.pi * z) + x * y * z
    z, y, x = np.meshgrid((np.arange(nz) + 0.5) / nz, (np.arange(ny) + 0.5) / ny, (np.arange(nx) + 0.5) / nx,
                          indexing="ij")
    f = 3 * np.pi ** 2 * np.sin(np.pi * x) * np.sin(np.pi * y) * np.sin(np.pi * z)
    f[:, :, 0] -= 2 * c[0] * ue(0.0, y[:, :, 0], z[:, :, 0])
    f[:, :, -1] -= 2 * c[0] * ue(1.0, y[:, :, -1], z[:, :, -1])
    f[:, 0, :] -= 2 * c[1] * ue(x[:, 0, :], 0.0, z[:, 0, :])
    f[:, -1, :] -= 2 * c[1] * ue(x[:, -1, :], 1.0, z[:, -1, :])
    f[0, :, :] -= 2 * c[2] * ue(x[0, :, :], y[0, :, :], 0.0)
    f[-1, :, :] -= 2 * c[2] * ue(x[-1, :, :], y[-1, :, :], 1.0)
    b, u = np.zeros(rows.size), np.zeros(rows.size)
    b[rows.ravel()] = f.ravel()
    u[rows.ravel()] = ue(x, y, z).ravel()
    return A, b, u


def patch_args(dims, lst):
    return ["-problem", "patches", "-n", *dims, "-patch", lst]


def patches_gen_case(v, dims, lst, tag):
    """gen -problem patches: A (CSR) is the operator built here, entry for entry to 1e-14 relative (the same
    pattern: no entry missing, none extra); b and u agree with the manufactured problem to 1e-12 relative."""
    sizes = [int(t) for t in lst.split(",")]
    prefix = v.path(tag)
    v.run(["gen", *patch_args(dims, lst), "-o", prefix])
    A = v.matrix(prefix + "_A.mtx").copy()
    Ar, br, ur = patch_rhs(dims, sizes)
    n = Ar.shape[0]
    if A.shape != (n, n):
        raise Fail(f"A is {A.shape[0]}x{A.shape[1]}, expected {n}x{n}")
    A.eliminate_zeros()
    A.sort_indices()
    Ar.sort_indices()
    if A.nnz != Ar.nnz or not (np.array_equal(A.indptr, Ar.indptr) and np.array_equal(A.indices, Ar.indices)):
        rowd = np.nonzero(np.diff(A.indptr) != np.diff(Ar.indptr))[0]
        raise Fail(f"pattern differs from the 7-point operator: nnz {A.nnz} vs {Ar.nnz}"
                   + (f", first row with another count: {rowd[0]}" if rowd.size else ""))
    d = np.abs(A.data - Ar.data)
    if d.max() > 1e-14 * np.abs(Ar.data).max():
        k = int(d.argmax())
        i = int(np.searchsorted(Ar.indptr, k, side="right") - 1)
        raise Fail(f"entry ({i}, {Ar.indices[k]}): gen {A.data[k]!r}, expected {Ar.data[k]!r}")
    b = v.read_vec(prefix + "_b.mtx", n)
    u = v.read_vec(prefix + "_u.mtx", n)
    for name, got, want in (("b", b, br), ("u", u, ur)):
        e = np.abs(got - want).max() / np.abs(want).max()
        if e > 1e-12:
            i = int(np.abs(got - want).argmax())
            raise Fail(f"{name} differs from the manufactured problem by {e:.2e} (relative); row {i}: "
                       f"gen {float(got[i])!r}, expected {float(want[i])!r}")
    return f"{len(patch_tiling(dims, sizes)[0])} patches, n {n}, nnz {A.nnz}"


def patches_spmv_case(v, dims, lst, tag):
    """apply -problem patches -op mat (the patches operator itself, not its CSR) against SciPy's product with the
    operator built here, row by row within spmv_check's rounding bound; and -op matT (A is symmetric)."""
    sizes = [int(t) for t in lst.split(",")]
    A, _, _ = patch_operator(dims, sizes)
    x = v.random_vec(A.shape[0], tag)
    xpath = v.write_vec(tag + "_x.mtx", x)
    out = []
    for op in ("mat", "matT"):
        ypath = v.path(f"{tag}_{op}_y.mtx")
        v.run(["apply", *patch_args(dims, lst), "-x", xpath, "-op", op, "-o", ypath])
        r = spmv_check(v, A, x, v.read_vec(ypath, A.shape[0]), f"-op {op}")
        out.append(f"{op} worst err/bound {r:.2g}")
    return ", ".join(out)


def relax_blocks(dims, sizes, block):
    """The rows of every relax block: each patch cut into bx x by x bz blocks from its origin, the last block of
    each direction smaller where the patch is no multiple of the block."""
    rows = patch_rows(dims, sizes)
    out = []
    for (lo, n) in patch_tiling(dims, sizes)[0]:
        cuts = [[(o, min(block[a], n[a] - o)) for o in range(0, n[a], block[a])] for a in range(3)]
        for (z0, bz) in cuts[2]:
            for (y0, by) in cuts[1]:
                for (x0, bx) in cuts[0]:
                    out.append(rows[lo[2] + z0:lo[2] + z0 + bz, lo[1] + y0:lo[1] + y0 + by,
                                    lo[0] + x0:lo[0] + x0 + bx].ravel())
    return out


def relax_inverse_case(v, dims, lst, block, omega, tag):
    """apply -op pc -pc relax -relax_type jacobi -relax_sweeps 1 from y = 0: y_b = omega A_bb^-1 x_b for every block
    b, with A_bb the block of the CSR built here (Dirichlet faces included). Reference: numpy.linalg.solve per
    block; per block |y - ref| <= 32 m eps cond_inf(A_bb) ||A_bb^-1||_inf ||x_b||_inf (m cells; two ways of
    solving agree to a few eps times the condition number)."""
    sizes = [int(t) for t in lst.split(",")]
    A, _, _ = patch_operator(dims, sizes)
    n = A.shape[0]
    x = v.random_vec(n, tag)
    xpath = v.write_vec(tag + "_x.mtx", x)
    ypath = v.path(tag + "_y.mtx")
    v.run(["apply", *patch_args(dims, lst), "-x", xpath, "-op", "pc", "-pc", "relax", "-relax_type", "jacobi",
           "-relax_block", *block, "-relax_omega", omega, "-relax_sweeps", 1, "-o", ypath])
    y = v.read_vec(ypath, n)
    blocks = relax_blocks(dims, sizes, block)
    seen = np.zeros(n, dtype=np.int64)
    worst, shapes = 0.0, set()
    for k, r in enumerate(blocks):
        seen[r] += 1
        Ab = A[r][:, r].toarray()
        shapes.add(len(r))
        ref = omega * np.linalg.solve(Ab, x[r])
        inv = np.linalg.inv(Ab)
        ninv = np.abs(inv).sum(axis=1).max()
        bound = 32 * len(r) * EPS * np.abs(Ab).sum(axis=1).max() * ninv * ninv * np.abs(x[r]).max()
        err = np.abs(y[r] - ref).max()
        if err > bound:
            i = int(np.abs(y[r] - ref).argmax())
            raise Fail(f"block {k} ({len(r)} cells, rows {r[0]}..): |diff| {err:.3e} > {bound:.3e}; row {int(r[i])}: "
                       f"pdesolve {float(y[r][i])!r}, NumPy {float(ref[i])!r}")
        worst = max(worst, err / bound)
    if not (seen == 1).all():
        raise Fail("the blocks built here do not cover every cell once (a bug in verify.py)")
    return f"{len(blocks)} blocks of {len(shapes)} sizes, worst err/bound {worst:.2g}"


def gmg_solve(v, dims, lst, tag, extra=()):
    """cg + gmg on -problem patches to rtol 1e-10; returns (report, x)."""
    xpath, jpath = v.path(tag + "_x.mtx"), v.path(tag + ".json")
    v.run(["solve", *patch_args(dims, lst), "-solver", "cg", "-pc", "gmg", "-rtol", RTOL, *extra, "-o", xpath,
           "-json", jpath])
    with open(jpath) as f:
        report = json.load(f)
    if report.get("converged") is not True or not isinstance(report.get("iterations"), int):
        raise Fail(f"exit 0 but the -json report says converged = {report.get('converged')!r}")
    n = dims[0] * dims[1] * dims[2]
    return report, v.read_vec(xpath, n)


def gmg_scipy_case(v, dims, lst, tag, extra=()):
    """cg + gmg converges to SciPy's solution of the operator and right-hand side built here: true residual
    <= 10 rtol ||b||, ||x - x_scipy|| / ||x_scipy|| <= 1e-7 (cond_2 of the Laplacian ~ 0.4 n^2), and disc_err of
    the report equals max |x - u|."""
    sizes = [int(t) for t in lst.split(",")]
    A, b, u = patch_rhs(dims, sizes)
    report, x = gmg_solve(v, dims, lst, tag, extra)
    res = np.linalg.norm(b - A @ x) / np.linalg.norm(b)
    if res > 10 * RTOL:
        raise Fail(f"true residual ||b - A x||/||b|| = {res:.3e} > {10 * RTOL:.0e}")
    xs = spla.spsolve(sp.csc_matrix(A), b)
    fwd = np.linalg.norm(x - xs) / np.linalg.norm(xs)
    if fwd > 1e-7:
        raise Fail(f"||x - x_scipy||/||x_scipy|| = {fwd:.3e} > 1e-7 (residual {res:.2e})")
    de = np.abs(x - u).max()
    if not (isinstance(report.get("disc_err"), float) and abs(report["disc_err"] - de) <= 1e-6 * de):
        raise Fail(f"disc_err {report.get('disc_err')!r} in the report, max |x - u| = {de!r}")
    return (f"{report['iterations']} iterations, {report.get('pc_gmg_levels', '?')} levels, residual {res:.1e}, "
            f"forward error {fwd:.1e}")


def gmg_order_case(v):
    """cg + gmg (32^3 patches cut to the box: -patch 32 gives one patch at 16 and 32, eight at 64) on 16^3, 32^3,
    64^3: every solve converges in at most 30 iterations, the counts grow by at most 5 from 16^3 to 64^3 (multigrid:
    about constant), and the discretization error max |x - u| falls at second order: each halving of h divides it
    by 3.2 to 4.8 (4 in the limit)."""
    errs, its = [], []
    for m in (16, 32, 64):
        report, _ = gmg_solve(v, (m, m, m), "32", f"gmg_order_{m}")
        if not isinstance(report.get("disc_err"), float):
            raise Fail(f"{m}^3: the report has no disc_err")
        errs.append(report["disc_err"])
        its.append(report["iterations"])
    if max(its) > 30 or its[-1] > its[0] + 5:
        raise Fail(f"iterations {its} on 16^3, 32^3, 64^3: expected at most 30 and growing by at most 5")
    ratios = [errs[i] / errs[i + 1] for i in range(2)]
    if not all(3.2 <= r <= 4.8 for r in ratios):
        raise Fail(f"disc_err {errs} on 16^3, 32^3, 64^3: ratios {[round(r, 2) for r in ratios]}, expected ~4")
    return f"iterations {its}, disc_err {[f'{e:.2e}' for e in errs]}, ratios {[round(r, 2) for r in ratios]}"


def cmd_patches(v):
    for nx, ny, nz, lst in PATCH_SETS:
        name = f"{nx}x{ny}x{nz} -patch {lst}"
        tag = f"patches_{nx}_{ny}_{nz}_{lst.replace(',', '_')}"
        v.case(f"gen {name}", patches_gen_case, v, (nx, ny, nz), lst, tag + "_gen")
        v.case(f"y = A x {name}", patches_spmv_case, v, (nx, ny, nz), lst, tag + "_spmv")
    # relax: blocks that divide the patches, blocks that do not (edge blocks), 1^3 (point Jacobi), one 8^3 block
    # per patch (paper 002's largest), omega != 1 (a block must fit the smallest patch, cut ones included)
    for dims, lst, block, omega in (((12, 10, 8), "4", (2, 2, 2), 1.0), ((13, 12, 9), "4,6,3", (3, 2, 3), 1.0),
                                    ((9, 9, 9), "5,4", (4, 4, 4), 1.0), ((8, 8, 8), "8", (8, 8, 8), 1.0),
                                    ((6, 5, 4), "3", (1, 1, 1), 1.0), ((12, 10, 8), "6", (4, 2, 2), 0.8)):
        tag = "relax_{}_{}_{}".format("x".join(map(str, dims)), lst.replace(",", "_"), "x".join(map(str, block)))
        v.case(f"relax block inverses {'x'.join(map(str, dims))} -patch {lst} block {'x'.join(map(str, block))} "
               f"omega {omega}", relax_inverse_case, v, dims, lst, block, omega, tag)
    v.case("cg + gmg 16^3 -patch 8 vs SciPy", gmg_scipy_case, v, (16, 16, 16), "8", "gmg_16_8")
    v.case("cg + gmg 24x16x20 -patch 8,4 (mixed) vs SciPy", gmg_scipy_case, v, (24, 16, 20), "8,4", "gmg_mixed")
    v.case("cg + gmg 16^3 -patch 8, W-cycle, constant prolongation, coarse cg, jacobi smoother vs SciPy",
           gmg_scipy_case, v, (16, 16, 16), "8", "gmg_16_8_w",
           ("-gmg_cycle", "w", "-gmg_prolong", "constant", "-gmg_coarse", "cg", "-gmg_smoother", "jacobi"))
    v.case("cg + gmg second order, bounded iterations (16^3, 32^3, 64^3)", gmg_order_case, v)


# ---- f) spectral elements ------------------------------------------------------------------------------------
# The sem problem of gen/apply/solve (-problem sem -n EX EY EZ: the registry's order 7 on the unit cube, affine) against
# an operator built here from the definitions: the GLL points as the roots of P_p' (NumPy's Legendre class), the
# derivative matrix through the Legendre Vandermonde matrix (D = V' V^-1, not the library's closed form), each
# element's stiffness as Kronecker products of the 1D stiffness and mass matrices, summed on the structured grid of
# global points (pdesolve.h), the Dirichlet rows and columns the identity.
SEM_ORDER = 7


def sem_rule(p):
    """GLL points, weights and derivative matrix of degree p (p + 1 points) from NumPy's Legendre class."""
    L = np.polynomial.legendre.Legendre.basis(p)
    x = np.concatenate(([-1.0], np.sort(L.deriv().roots().real), [1.0]))
    w = 2.0 / (p * (p + 1) * L(x) ** 2)
    V = np.stack([np.polynomial.legendre.Legendre.basis(k)(x) for k in range(p + 1)], axis=1)
    Vd = np.stack([np.polynomial.legendre.Legendre.basis(k).deriv()(x) for k in range(p + 1)], axis=1)
    return x, w, Vd @ np.linalg.inv(V)


def sem_system(dims, p):
    """(A masked, K unmasked stiffness, mass diagonal, coordinates, mask) of the box (0,1)^3 cut into dims elements."""
    x, w, D = sem_rule(p)
    n = p + 1
    NX, NY, NZ = (d * p + 1 for d in dims)
    h = [1.0 / d for d in dims]
    K1 = D.T @ np.diag(w) @ D  # the 1D stiffness on [-1, 1]
    M1 = np.diag(w)
    jac = h[0] * h[1] * h[2] / 8
    Ae = jac * ((2 / h[0]) ** 2 * np.kron(M1, np.kron(M1, K1)) + (2 / h[1]) ** 2 * np.kron(M1, np.kron(K1, M1))
                + (2 / h[2]) ** 2 * np.kron(K1, np.kron(M1, M1)))  # local index (k n + j) n + i: x fastest
    Be = jac * np.kron(w, np.kron(w, w))
    I, J, V = [], [], []
    B = np.zeros(NX * NY * NZ)
    li = np.arange(n)
    kk, jj, ii = np.meshgrid(li, li, li, indexing="ij")
    for c in range(dims[2]):
        for b in range(dims[1]):
            for a in range(dims[0]):
                g = ((c * p + kk) * NY + (b * p + jj)) * NX + (a * p + ii)
                g = g.ravel()
                I.append(np.repeat(g, n ** 3))
                J.append(np.tile(g, n ** 3))
                V.append(Ae.ravel())
                np.add.at(B, g, Be)
    N = NX * NY * NZ
    K = sp.csr_matrix((np.concatenate(V), (np.concatenate(I), np.concatenate(J))), shape=(N, N))
    gz, gy, gx = np.meshgrid(np.arange(NZ), np.arange(NY), np.arange(NX), indexing="ij")
    X = np.zeros((N, 3))
    for d, (gi, nd) in enumerate(((gx, dims[0]), (gy, dims[1]), (gz, dims[2]))):
        e, loc = np.minimum(gi.ravel() // p, nd - 1), gi.ravel() - np.minimum(gi.ravel() // p, nd - 1) * p
        X[:, d] = (e + (x[loc] + 1) / 2) / nd
    mask = ((gx == 0) | (gx == NX - 1) | (gy == 0) | (gy == NY - 1) | (gz == 0) | (gz == NZ - 1)).ravel()
    keep = sp.diags((~mask).astype(float))
    A = (keep @ K @ keep + sp.diags(mask.astype(float))).tocsr()
    A.eliminate_zeros()
    return A, K, B, X, mask


def sem_manufactured(X):
    s = np.sin(np.pi * X[:, 0]) * np.sin(np.pi * X[:, 1]) * np.sin(np.pi * X[:, 2])
    return s + X[:, 0] * X[:, 1] * X[:, 2], 3 * np.pi ** 2 * s


def sem_gen_case(v, dims, tag):
    """gen -problem sem: A (the operator assembled as CSR) equals the one built here to 1e-12 of its largest entry,
    is symmetric and positive definite (a sparse Cholesky-free check: SciPy's smallest eigenvalue > 0); b is the
    lifted right-hand side B f - K u_D (u on the Dirichlet points) to 1e-12 and u the manufactured solution; SciPy's
    solution of the system is within 1e-4 of u (order 7)."""
    prefix = v.path(tag)
    v.run(["gen", "-problem", "sem", "-n", *dims, "-o", prefix])
    A = v.matrix(prefix + "_A.mtx").tocsr()
    Ar, K, B, X, mask = sem_system(dims, SEM_ORDER)
    n = Ar.shape[0]
    if A.shape != (n, n):
        raise Fail(f"A is {A.shape[0]}x{A.shape[1]}, expected {n}x{n}")
    d = abs(A - Ar).max()
    if d > 1e-12 * abs(Ar).max():
        raise Fail(f"A differs from the operator built here by {d:.3g} (largest entry {abs(Ar).max():.3g})")
    if abs(A - A.T).max() > 1e-13 * abs(Ar).max():
        raise Fail("A is not symmetric")
    lmin = spla.eigsh(A, k=1, sigma=0, which="LM", return_eigenvectors=False)[0]
    if not lmin > 0:
        raise Fail(f"A is not positive definite: smallest eigenvalue {lmin:.3g}")
    u, f = sem_manufactured(X)
    uD = np.where(mask, u, 0.0)
    br = np.where(mask, u, B * f - K @ uD)
    b = v.read_vec(prefix + "_b.mtx", n)
    ug = v.read_vec(prefix + "_u.mtx", n)
    for name, got, want in (("b", b, br), ("u", ug, u)):
        e = np.abs(got - want).max() / np.abs(want).max()
        if e > 1e-12:
            raise Fail(f"{name} differs from the manufactured problem by {e:.2e} (relative)")
    xs = spla.spsolve(A.tocsc(), b)
    e = np.abs(xs - u).max()
    if e > 1e-4:
        raise Fail(f"SciPy's solution is {e:.2e} from u: the discrete problem is not the PDE's")
    return f"n {n}, nnz {A.nnz}, smallest eigenvalue {lmin:.3g}, SciPy solution error {e:.2e}"


def sem_apply_case(v, dims, tag):
    """apply -problem sem (the matrix-free operator on the backend): y = A x against SciPy's product with the
    operator built here, row by row within 1e-12 of sum_j |a_ij x_j| (the factored form D^T G D rounds other sums
    than the assembled rows: measured 3e-14 of it)."""
    A, _, _, _, _ = sem_system(dims, SEM_ORDER)
    x = v.random_vec(A.shape[0], tag)
    xpath = v.write_vec(tag + "_x.mtx", x)
    ypath = v.path(tag + "_y.mtx")
    v.run(["apply", "-problem", "sem", "-n", *dims, "-x", xpath, "-op", "mat", "-o", ypath])
    y = v.read_vec(ypath, A.shape[0])
    ref, scale = A @ x, abs(A) @ np.abs(x)
    r = np.abs(y - ref) / (1e-12 * scale + 1e-300)
    if r.max() > 1:
        i = int(r.argmax())
        raise Fail(f"row {i}: pdesolve {float(y[i])!r}, SciPy {float(ref[i])!r}, beyond 1e-12 of sum |a||x| "
                   f"= {scale[i]:.3e}")
    return f"worst |diff| / sum |a||x| {1e-12 * r.max():.2g}"


def cmd_sem(v):
    for dims in ((2, 2, 2), (3, 2, 1)):
        name = "x".join(map(str, dims))
        v.case(f"gen -problem sem -n {name}", sem_gen_case, v, dims, f"sem_gen_{name}")
        v.case(f"apply -problem sem -n {name} (matrix-free)", sem_apply_case, v, dims, f"sem_apply_{name}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("check", choices=["spmv", "solve", "precond", "fail", "patches", "sem"])
    ap.add_argument("--pdesolve", required=True)
    ap.add_argument("--backend", required=True)
    ap.add_argument("--shared", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("-v", "--verbose", action="store_true", help="a line per case, with its margin")
    args = ap.parse_args()
    if not os.path.isfile(os.path.join(args.shared, "matrices", "nos3.mtx")):
        print(f"verify: no shared matrices in {args.shared}/matrices (configure with -DPDS_SHARED_DIR=...)")
        return 1
    if not os.access(args.pdesolve, os.X_OK):
        print(f"verify: {args.pdesolve} is not an executable")
        return 1
    v = Verify(args)
    {"spmv": cmd_spmv, "solve": cmd_solve, "precond": cmd_precond, "fail": cmd_fail,
     "patches": cmd_patches, "sem": cmd_sem}[args.check](v)
    return v.finish(args.check)


if __name__ == "__main__":
    sys.exit(main())
