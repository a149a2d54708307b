#!/usr/bin/env python3
"""tests/driver/check_driver.py: regression checks of the pdesolve command-line driver (Python 3 stdlib only).

usage: check_driver.py CHECK PDESOLVE BACKEND WORKDIR
  CHECK     one of the functions named check_* below (without the prefix)
  PDESOLVE  the driver executable
  BACKEND   /cpu/ref, /cpu/omp, ... (passed as -backend; 'host' checks ignore it)
  WORKDIR   a scratch folder of this check (created, emptied)
Exit 0 when the check passes, 1 when it fails (saying why), 77 when it cannot run here (no shared matrices).
The shared matrices are found through the environment variable PDS_SHARED_DIR (folder holding matrices/).
"""
import json
import math
import os
import re
import shutil
import subprocess
import sys

SKIP = 77

# The machine-readable last line of `pdesolve solve` (the CLI contract; other tests parse it too).
RESULT_RE = re.compile(
    r"^result: solver=(?P<solver>\S+) pc=(?P<pc>\S+) backend=(?P<backend>\S+) n=(?P<n>\d+) nnz=(?P<nnz>\d+) "
    r"iterations=(?P<iterations>\d+) reason=(?P<reason>[a-z_]+) rnorm0=(?P<rnorm0>\S+) rnorm=(?P<rnorm>\S+) "
    r"rel=(?P<rel>\S+) t_setup=(?P<t_setup>\S+) t_solve=(?P<t_solve>\S+)"
    r"(?: err_inf=(?P<err_inf>\S+))?(?: disc_err=(?P<disc_err>\S+))?"
    r"(?: err_l2=(?P<err_l2>\S+))?(?: err_pct=(?P<err_pct>\S+))?$")  # err_l2, err_pct: fem2d
MONITOR_RE = re.compile(r"^ *(\d+) KSP residual norm (\d\.\d{12}e[+-]\d{2,3})$")

SOLVE_FLAGS = ["-A", "-problem", "-n", "-b", "-x0", "-backend", "-solver", "-pc", "-rtol", "-atol", "-inftol",
               "-maxit", "-restart", "-orthog", "-omega", "-format", "-bs", "-monitor", "-view", "-history", "-o", "-json",
               "-pc_bilu0_variant", "-pc_bilu0_factors", "-cfl", "-re", "-stretch", "-beta", "-blocks", "-grids",
               "-decomp", "-patch", "-elements", "-order", "-deform", "-subdivide", "-pc_semjacobi_variant"]
RELAX_GMG_FLAGS = ["-relax_block", "-relax_type", "-relax_omega", "-relax_sweeps", "-relax_symmetric",
                   "-relax_variant", "-gmg_cycle", "-gmg_levels", "-gmg_smoother", "-gmg_block", "-gmg_omega",
                   "-gmg_pre", "-gmg_post", "-gmg_prolong", "-gmg_coarse", "-gmg_coarse_max"]
SOLVE_FLAGS += RELAX_GMG_FLAGS
APPLY_FLAGS = ["-A", "-problem", "-n", "-patch", "-x", "-op", "-pc", "-bs", "-format", "-backend",
               "-o"] + RELAX_GMG_FLAGS
GEN_FLAGS = ["-problem", "-n", "-o", "-bs", "-cfl", "-blocks", "-grids", "-patch"]
DEMO_FLAGS = ["-backend", "-quick"]


class Failure(Exception):
    pass


def ensure(cond, msg):
    if not cond:
        raise Failure(msg)


class Driver:
    def __init__(self, exe, backend, workdir):
        self.exe, self.backend, self.workdir = exe, backend, workdir

    def run(self, *args, backend=True, timeout=300, env=None):
        cmd = [self.exe] + [str(a) for a in args]
        if backend and self.backend != "host":
            cmd += ["-backend", self.backend]
        full_env = dict(os.environ, **(env or {}))
        p = subprocess.run(cmd, cwd=self.workdir, capture_output=True, text=True, timeout=timeout, env=full_env)
        p.cmdline = " ".join(cmd)
        return p

    def path(self, name):
        return os.path.join(self.workdir, name)


def describe(p):
    return f"\n  command: {p.cmdline}\n  exit: {p.returncode}\n  stdout tail: {p.stdout[-1500:]!r}\n  stderr: {p.stderr[-1500:]!r}"


def expect_rc(p, rc):
    ensure(p.returncode == rc, f"expected exit status {rc}, got {p.returncode}" + describe(p))


def result_of(p):
    """The parsed last stdout line (must be the result line)."""
    lines = p.stdout.rstrip("\n").split("\n")
    ensure(lines and lines[-1].startswith("result: "), "the last line is not 'result: ...'" + describe(p))
    m = RESULT_RE.match(lines[-1])
    ensure(m, f"the result line does not follow the contract: {lines[-1]!r}")
    r = m.groupdict()
    for k in ("n", "nnz", "iterations"):
        r[k] = int(r[k])
    for k in ("rnorm0", "rnorm", "rel", "t_setup", "t_solve", "err_inf", "disc_err", "err_l2", "err_pct"):
        if r[k] is not None:
            r[k] = float(r[k])
    return r


def read_mm(path):
    """Matrix Market reader: ('array', [values]) or ('coordinate', nrows, ncols, [(i, j, v)]) 0-based, expanded."""
    with open(path) as f:
        banner = f.readline().split()
        ensure(len(banner) >= 5 and banner[0] == "%%MatrixMarket", f"{path}: bad banner {banner}")
        fmt, sym = banner[2].lower(), banner[4].lower()
        line = f.readline()
        while line.startswith("%"):
            line = f.readline()
        size = [int(t) for t in line.split()]
        tokens = f.read().split()
    if fmt == "array":
        ensure(size[1] == 1, f"{path}: array with {size[1]} columns")
        vals = [float(t) for t in tokens]
        ensure(len(vals) == size[0], f"{path}: {len(vals)} values, expected {size[0]}")
        return ("array", vals)
    nr, nc, nnz = size
    ent = []
    for k in range(nnz):
        i, j, v = int(tokens[3 * k]) - 1, int(tokens[3 * k + 1]) - 1, float(tokens[3 * k + 2])
        ent.append((i, j, v))
        if sym == "symmetric" and i != j:
            ent.append((j, i, v))
    return ("coordinate", nr, nc, ent)


def write_vec(path, vals):
    with open(path, "w") as f:
        f.write(f"%%MatrixMarket matrix array real general\n{len(vals)} 1\n")
        for v in vals:
            f.write(f"{v!r}\n")


def close(a, b, rtol, atol=0.0):
    return abs(a - b) <= rtol * max(abs(a), abs(b)) + atol


def shared_matrices():
    d = os.environ.get("PDS_SHARED_DIR", "")
    m = os.path.join(d, "matrices")
    return m if d and os.path.isfile(os.path.join(m, "MANIFEST.md")) else None


# ---- checks run once per backend ------------------------------------------------------------------------

def check_solve_poisson(d):
    """poisson7 12^3 with cg+jacobi: converges in a known band, residual and discretization error small."""
    p = d.run("solve", "-problem", "poisson7", "-n", 12, "-solver", "cg", "-pc", "jacobi")
    expect_rc(p, 0)
    r = result_of(p)
    ensure(r["solver"] == "cg" and r["pc"] == "jacobi", f"solver/pc fields: {r}")
    ensure(d.backend == "host" or r["backend"] == d.backend, f"backend {r['backend']} != {d.backend}")
    ensure(r["n"] == 1728 and r["nnz"] == 1728 * 7 - 6 * 144, f"n/nnz: {r['n']} {r['nnz']}")
    ensure(r["reason"] == "converged_rtol", f"reason {r['reason']}")
    ensure(40 <= r["iterations"] <= 60, f"iterations {r['iterations']} outside [40, 60] (was 49)")
    ensure(r["rel"] <= 1e-8 and close(r["rel"], r["rnorm"] / r["rnorm0"], 1e-5), f"rel {r['rel']}")
    ensure(r["err_inf"] is None, "poisson7 has no exact discrete solution, yet err_inf was printed")
    ensure(r["disc_err"] is not None and r["disc_err"] < 1e-2, f"disc_err {r['disc_err']} (O(h^2), about 4.8e-3)")
    # the same problem at twice the resolution: the discretization error drops about 4x (second order)
    p2 = d.run("solve", "-problem", "poisson7", "-n", 25, "-solver", "cg", "-pc", "jacobi", "-rtol", 1e-10)
    expect_rc(p2, 0)
    r2 = result_of(p2)
    ratio = r["disc_err"] / r2["disc_err"]
    ensure(3.0 < ratio < 5.0, f"discretization error ratio h -> h/2 is {ratio:.2f}, expected about 4")
    for solver in ("bicgstab", "gmres", "fgmres"):
        p = d.run("solve", "-problem", "poisson7", "-n", 8, "-solver", solver, "-pc", "jacobi")
        expect_rc(p, 0)
        ensure(result_of(p)["reason"] == "converged_rtol", f"{solver}: not converged")
    p = d.run("solve", "-problem", "poisson7", "-n", 6, "-solver", "richardson", "-pc", "jacobi", "-omega", 0.9)
    expect_rc(p, 0)


def check_channel(d):
    """-problem channel (issue 10's example, smaller): richardson + bilu0 converges on the stencil7 system; a clear
    stencil7 error on a /gpu/cuda build without stencil7 kernels; gen writes its BSR form. Multi-block: -blocks NB
    (NB grids of the -n size) and -grids LIST (mixed sizes) give one matrix of all their rows that converges as the
    grids do; -pc_bilu0_variant and -pc_bilu0_factors reach the preconditioner (CPU backends: variant auto only, the
    others a clear error at setup; /gpu/cuda: every variant the same iterations; float factors on every backend)."""
    args = ("solve", "-problem", "channel", "-n", 8, 8, 8, "-bs", 6, "-solver", "richardson", "-pc", "bilu0")
    p = d.run(*args)
    if d.backend == "/gpu/cuda" and p.returncode == 1:
        ensure("stencil7" in p.stderr, f"no clear stencil7 error on cuda: {p.stderr}")
        return 0
    expect_rc(p, 0)
    r = result_of(p)
    ensure(r["n"] == 8 * 8 * 8 * 6 and r["reason"] == "converged_rtol", f"n/reason: {r}")
    ensure(r["rel"] <= 1e-8 and 5 <= r["iterations"] <= 200, f"rel {r['rel']}, iterations {r['iterations']}")
    p = d.run("solve", "-problem", "channel", "-n", 4, "-bs", 3)
    expect_rc(p, 1)
    ensure("option n = 3" in p.stderr, f"bad -bs message: {p.stderr}")
    p = d.run("gen", "-problem", "channel", "-n", 3, "-o", os.path.join(d.workdir, "ch"), backend=False)
    expect_rc(p, 0)

    # multi-block: the grids are independent, so the preconditioned iteration needs what the hardest grid needs
    one = ("-solver", "richardson", "-pc", "bilu0", "-bs", 5, "-cfl", 5)
    p = d.run("solve", "-problem", "channel", "-n", 6, 5, 4, *one)
    expect_rc(p, 0)
    r1 = result_of(p)
    p = d.run("solve", "-problem", "channel", "-n", 6, 5, 4, "-blocks", 8, "-view", *one)
    expect_rc(p, 0)
    r = result_of(p)
    ensure(r["n"] == 8 * r1["n"] and r["nnz"] == 8 * r1["nnz"], f"-blocks 8: n/nnz {r['n']}/{r['nnz']} != 8 x one grid's")
    ensure(r["reason"] == "converged_rtol" and abs(r["iterations"] - r1["iterations"]) <= 3,
           f"-blocks 8: {r['iterations']} iterations, one grid {r1['iterations']}")
    ensure("8 grids of 6x5x4" in p.stdout, "-view: the source does not name the grids" + describe(p))
    p = d.run("solve", "-problem", "channel", "-grids", "6x5x4*2,3*3,2x7x2", *one)
    expect_rc(p, 0)
    r = result_of(p)
    ensure(r["n"] == (2 * 120 + 3 * 27 + 28) * 5 and r["reason"] == "converged_rtol", f"-grids: {r}")

    # -decomp: the one channel cut into touching blocks, coupled across the cuts: the one grid's system renumbered
    # (the same unknowns and entries; GMRES + bilu0 reaches the same residual), bilu0 of each block alone
    p = d.run("solve", "-problem", "channel", "-n", 6, 5, 4, "-decomp", 2, 1, 2, "-view", *one)
    expect_rc(p, 0)
    r = result_of(p)
    ensure(r["n"] == r1["n"] and r["nnz"] == r1["nnz"] and r["reason"] == "converged_rtol", f"-decomp: {r}, {r1}")
    ensure(r["iterations"] >= r1["iterations"], f"-decomp: {r['iterations']} iterations < one grid's {r1['iterations']}")
    ensure("in 2x1x2 blocks" in p.stdout and "coupled across the grids' cuts" in p.stdout, "-decomp -view" + describe(p))

    # gen: the multi-block system as BSR, read back and solved as such
    p = d.run("gen", "-problem", "channel", "-grids", "2x3x2*2,3", "-bs", 4, "-o", "mb", backend=False)
    expect_rc(p, 0)
    kind, nr, nc, ent = read_mm(d.path("mb_A.mtx"))
    ensure(nr == nc == (2 * 12 + 27) * 4, f"gen -grids: {nr} x {nc}")
    first = [0, 12, 24, 51]  # the grids' first cells
    grid = lambda row: max(g for g in range(3) if row // 4 >= first[g])
    ensure(all(grid(i) == grid(j) for i, j, _ in ent), "gen -grids: an entry couples two grids")
    p = d.run("solve", "-A", "mb_A.mtx", "-b", "mb_b.mtx", "-format", "bsr", "-bs", 4, "-solver", "gmres",
              "-pc", "pbjacobi")
    expect_rc(p, 0)

    # the bilu0 flags
    base = ("solve", "-problem", "channel", "-grids", "4*2", "-bs", 4, "-solver", "richardson", "-pc", "bilu0")
    p = d.run(*base)
    expect_rc(p, 0)
    its = result_of(p)["iterations"]
    p = d.run(*base, "-pc_bilu0_variant", "auto", "-pc_bilu0_factors", "double", "-json", "r.json")
    expect_rc(p, 0)
    ensure(result_of(p)["iterations"] == its, "-pc_bilu0_variant auto changed the iterations")
    with open(d.path("r.json")) as f:
        j = json.load(f)
    ensure(j.get("pc_bilu0_variant") == "auto" and j.get("pc_bilu0_factors") == "double", f"json: {j}")
    variants = ("hyperplane", "graph", "recycle", "syncfree", "lanes", "block", "tiles", "pipe")
    if d.backend == "/gpu/cuda":
        for v in variants:
            p = d.run(*base, "-pc_bilu0_variant", v)
            expect_rc(p, 0)
            ensure(result_of(p)["iterations"] == its, f"variant {v}: iterations differ from auto's {its}")
    else:
        for v in variants:
            p = d.run(*base, "-pc_bilu0_variant", v)
            expect_rc(p, 1)
            ensure(f"variant '{v}'" in p.stderr and "/gpu/cuda" in p.stderr, f"variant {v} on CPU: {p.stderr}")
    p = d.run(*base, "-pc_bilu0_factors", "float", "-json", "f.json")  # every backend
    expect_rc(p, 0)
    with open(d.path("f.json")) as f:
        ensure(json.load(f).get("pc_bilu0_factors") == "float", "-pc_bilu0_factors float did not reach the json")
    return 0


def check_cublas_missing(d):
    """/gpu/cuda loads cuBLAS at run time, for relax's gemm variant only (src/backend/cuda/cuda_cublas.c): with
    PDS_CUBLAS naming no library, gemm asked for by name is PDS_ERR_UNSUPPORTED naming cuBLAS, auto takes mapc and -view
    says why, and a solve without relax runs as ever."""
    if d.backend != "/gpu/cuda":
        return SKIP
    env = {"PDS_CUBLAS": d.path("no-such-libcublas.so")}
    base = ("solve", "-problem", "patches", "-n", 16, "-patch", 8, "-solver", "cg", "-pc", "relax", "-relax_block", 8)
    p = d.run(*base, "-relax_variant", "gemm", env=env)
    expect_rc(p, 1)
    ensure("PDS_ERR_UNSUPPORTED" in p.stderr and "cuBLAS" in p.stderr and "no-such-libcublas" in p.stderr,
           "gemm without cuBLAS" + describe(p))
    p = d.run(*base, "-relax_variant", "auto", "-view", env=env)
    expect_rc(p, 0)
    ensure("mapc (auto: no cuBLAS for gemm)" in p.stdout + p.stderr, "auto without cuBLAS" + describe(p))
    p = d.run("solve", "-problem", "poisson7", "-n", 8, "-solver", "cg", "-pc", "jacobi", env=env)
    expect_rc(p, 0)


def check_patches(d):
    """-problem patches (issue 12): cg + gmg (the issue's example, smaller) converges in few iterations with the
    discretization error of the cell-centred scheme, falling at second order; mixed patch sizes (-patch LIST);
    -solver richardson -pc relax (the stationary iteration) for each relax type; the relax and gmg flags reach the
    preconditioner (iterations change or stay as they must) and the -json report; gen writes the CSR form, which
    solved as a file gives the same solution; apply -problem patches (y = A x, M^-1 x); the library's errors for a
    block larger than a patch and for relax or gmg on a matrix that is no patch set."""
    base = ("solve", "-problem", "patches", "-solver", "cg", "-pc", "gmg")
    p = d.run(*base, "-n", 16, "-patch", 8, "-json", "g16.json")
    expect_rc(p, 0)
    r = result_of(p)
    ensure(r["n"] == 4096 and r["nnz"] == 4096 * 7 - 6 * 256 and r["reason"] == "converged_rtol", f"16^3: {r}")
    ensure(r["iterations"] <= 12 and r["disc_err"] is not None and r["disc_err"] < 5e-3, f"16^3 gmg: {r} (5 iterations, disc_err 3.2e-3 when added)")
    with open(d.path("g16.json")) as f:
        j = json.load(f)
    ensure(j["pc"] == "gmg" and j["iterations"] == r["iterations"] and close(j["disc_err"], r["disc_err"], 1e-5),
           f"json: {j}")
    want = {"pc_gmg_cycle": "v", "pc_gmg_max_levels": 0, "pc_gmg_smoother": "multicolor", "pc_gmg_block": [4, 4, 4],
            "pc_gmg_omega": 1.0, "pc_gmg_pre": 2, "pc_gmg_post": 2, "pc_gmg_prolong": "constant",
            "pc_gmg_coarse": "direct", "pc_gmg_coarse_max": 1000}
    for k, w in want.items():
        ensure(j.get(k) == w, f"json {k} = {j.get(k)!r}, expected {w!r} (the defaults)")
    ensure(isinstance(j.get("pc_gmg_levels"), int) and j["pc_gmg_levels"] >= 2, f"json pc_gmg_levels: {j}")
    ensure(j.get("patches") == {"n": [16, 16, 16], "patch": [8], "count": 8}, f"json patches: {j.get('patches')}")
    # twice the resolution: the error drops about 4x, the iterations stay about the same
    p = d.run(*base, "-n", 32, "-patch", 8, "-rtol", 1e-10)
    expect_rc(p, 0)
    r2 = result_of(p)
    ensure(3.0 < r["disc_err"] / r2["disc_err"] < 5.0, f"disc_err {r['disc_err']} -> {r2['disc_err']}: not ~4x")
    ensure(r2["iterations"] <= r["iterations"] + 3, f"iterations {r['iterations']} (16^3) -> {r2['iterations']} (32^3)")
    # the gmg flags: each accepted, converging, and in the report
    p = d.run(*base, "-n", 16, 12, 8, "-patch", 8, 4, "-json", "bad.json")  # -patch takes one value: 8,4
    expect_rc(p, 1)
    ensure("-patch" in p.stderr, "-patch 8 4" + describe(p))
    flags = ("-gmg_cycle", "w", "-gmg_levels", 2, "-gmg_smoother", "jacobi", "-gmg_block", 2, 4, 2, "-gmg_omega", 0.7,
             "-gmg_pre", 3, "-gmg_post", 1, "-gmg_prolong", "constant", "-gmg_coarse", "cg", "-gmg_coarse_max", 50)
    p = d.run(*base, "-n", 16, 12, 8, "-patch", "8,4", *flags, "-json", "gf.json")
    expect_rc(p, 0)
    r = result_of(p)
    ensure(r["n"] == 16 * 12 * 8, f"-n 16 12 8: n = {r['n']}")
    with open(d.path("gf.json")) as f:
        j = json.load(f)
    want = {"pc_gmg_cycle": "w", "pc_gmg_max_levels": 2, "pc_gmg_smoother": "jacobi", "pc_gmg_block": [2, 4, 2],
            "pc_gmg_omega": 0.7, "pc_gmg_pre": 3, "pc_gmg_post": 1, "pc_gmg_prolong": "constant",
            "pc_gmg_coarse": "cg", "pc_gmg_coarse_max": 50, "pc_gmg_levels": 2}
    for k, w in want.items():
        ensure(j.get(k) == w, f"json {k} = {j.get(k)!r}, expected {w!r}")
    ensure(j.get("patches") == {"n": [16, 12, 8], "patch": [8, 4], "count": 3 * 2 * 1}, f"json: {j.get('patches')}")
    for extra in (("-gmg_cycle", "f"), ("-gmg_smoother", "chaotic"), ("-gmg_levels", 1, "-gmg_coarse", "cg")):
        p = d.run(*base, "-n", 16, "-patch", 8, *extra)
        expect_rc(p, 0)
    # -pc relax: the stationary iteration (richardson) and cg with each type; flags into the report
    rb = ("solve", "-problem", "patches", "-n", 10, 10, 8, "-patch", "6,4", "-solver", "richardson", "-pc", "relax")
    its = {}
    for t in ("jacobi", "multicolor", "chaotic"):
        p = d.run(*rb, "-relax_type", t, "-relax_block", 4, 2, 2, "-rtol", 1e-6)
        expect_rc(p, 0)
        its[t] = result_of(p)["iterations"]
    ensure(its["multicolor"] < its["jacobi"] and its["chaotic"] < its["jacobi"],
           f"richardson iterations by relax type {its}: Gauss-Seidel should beat damped Jacobi")
    p = d.run(*rb, "-relax_type", "multicolor", "-relax_block", 4, 2, 2, "-rtol", 1e-6, "-relax_sweeps", 2)
    expect_rc(p, 0)
    ensure(result_of(p)["iterations"] < its["multicolor"], "-relax_sweeps 2 did not cut the iterations")
    p = d.run(*rb, "-relax_block", 4, 2, 2, "-rtol", 1e-6, "-relax_omega", 0.8, "-relax_variant", "auto",
              "-json", "rj.json")
    expect_rc(p, 0)
    ensure(result_of(p)["iterations"] == its["jacobi"], "-relax_omega 0.8 -relax_variant auto: not jacobi's defaults")
    with open(d.path("rj.json")) as f:
        j = json.load(f)
    want = {"pc": "relax", "pc_relax_type": "jacobi", "pc_relax_block": [4, 2, 2], "pc_relax_omega": 0.8,
            "pc_relax_sweeps": 1, "pc_relax_variant": "auto"}
    for k, w in want.items():
        ensure(j.get(k) == w, f"json {k} = {j.get(k)!r}, expected {w!r}")
    ensure("pc_relax_symmetric" not in j and j.get("pc_relax_blocks", 0) > 0, f"json: {j}")
    p = d.run("solve", "-problem", "patches", "-n", 12, "-patch", 6, "-solver", "cg", "-pc", "relax", "-relax_type",
              "multicolor", "-relax_symmetric", 1, "-relax_block", 3, "-json", "rm.json")
    expect_rc(p, 0)
    with open(d.path("rm.json")) as f:
        j = json.load(f)
    ensure(j.get("pc_relax_symmetric") is True and j.get("pc_relax_block") == [3, 3, 3] and
           j.get("pc_relax_omega") == 1.0 and j.get("pc_relax_colors", 0) >= 2, f"json: {j}")
    # gen: the CSR form; solved as a file it gives the generated problem's solution
    p = d.run("gen", "-problem", "patches", "-n", 6, 5, 4, "-patch", "4,2", "-o", "pt", backend=False)
    expect_rc(p, 0)
    kind, nr, nc, ent = read_mm(d.path("pt_A.mtx"))
    ensure(kind == "coordinate" and nr == nc == 120 and len(ent) == 120 * 7 - 2 * (30 + 24 + 20),
           f"gen pt_A.mtx: {kind} {nr}x{nc}, {len(ent)} entries")
    for suffix in ("b", "u"):
        ensure(os.path.isfile(d.path(f"pt_{suffix}.mtx")), f"gen did not write pt_{suffix}.mtx" + describe(p))
    common = ("-solver", "cg", "-pc", "jacobi", "-rtol", 1e-12)
    p1 = d.run("solve", "-problem", "patches", "-n", 6, 5, 4, "-patch", "4,2", "-o", "x_pt.mtx", *common)
    p2 = d.run("solve", "-A", "pt_A.mtx", "-b", "pt_b.mtx", "-o", "x_file.mtx", *common)
    expect_rc(p1, 0)
    expect_rc(p2, 0)
    x1, x2 = read_mm(d.path("x_pt.mtx"))[1], read_mm(d.path("x_file.mtx"))[1]
    diff = max(abs(a - b) for a, b in zip(x1, x2))
    ensure(len(x1) == len(x2) == 120 and diff <= 1e-9 * max(map(abs, x1)), f"patches vs its CSR file: {diff}")
    # apply -problem patches: A * ones (the row sums of the CSR) and M^-1 x
    p = d.run("apply", "-problem", "patches", "-n", 6, 5, 4, "-patch", "4,2", "-o", "y.mtx")
    expect_rc(p, 0)
    y = read_mm(d.path("y.mtx"))[1]
    rows = [0.0] * 120
    for i, j_, a in ent:
        rows[i] += a
    ensure(max(abs(a - b) for a, b in zip(y, rows)) <= 1e-12 * max(map(abs, rows)), "apply -problem patches A*ones")
    p = d.run("apply", "-problem", "patches", "-n", 6, 5, 4, "-patch", "4,2", "-op", "pc", "-pc", "relax",
              "-relax_block", 1, "-relax_omega", 1, "-o", "z.mtx")  # 1^3 blocks, omega 1: x / diag
    expect_rc(p, 0)
    z = read_mm(d.path("z.mtx"))[1]
    diag = {i: a for i, j_, a in ent if i == j_}
    ensure(max(abs(z[i] - 1.0 / diag[i]) * diag[i] for i in range(120)) <= 1e-14, "apply -pc relax 1^3 != 1/diag")
    # library errors, clear and exit 1
    p = d.run("solve", "-problem", "patches", "-n", 8, "-patch", 4, "-solver", "cg", "-pc", "relax")  # 8^3 > 4^3
    expect_rc(p, 1)
    ensure("pdesolve: error:" in p.stderr and "block" in p.stderr, "relax block larger than the patch" + describe(p))
    for pc in ("relax", "gmg"):
        p = d.run("solve", "-problem", "poisson7", "-n", 6, "-solver", "cg", "-pc", pc)
        expect_rc(p, 1)
        ensure("pdesolve: error:" in p.stderr and "patches" in p.stderr, f"-pc {pc} on poisson7" + describe(p))
    return 0


def check_sem(d):
    """-problem sem (issue 13): cg + jacobi on spectral elements converges with a discretization error that falls by
    orders of magnitude from order 4 to 8 on the same 2^3 elements; -elements with one or three values and -n as the
    elements give the same problem; a deformed mesh (-deform) converges; the -json report has iterations and
    disc_err; errors: -order or -deform out of range, -elements with -n, the sem flags without -problem sem; -mesh with a
    Gmsh hexahedral mesh written here (spectral error, counts, -vtk; errors: with -elements or -deform, a missing
    file, tetrahedra, gen)."""
    base = ("solve", "-problem", "sem", "-solver", "cg", "-pc", "jacobi", "-rtol", 1e-12)
    p = d.run(*base, "-elements", 2, "-order", 4, "-json", "s4.json")
    expect_rc(p, 0)
    r4 = result_of(p)
    ensure(r4["n"] == 9 ** 3 and r4["reason"] == "converged_rtol" and r4["disc_err"] < 1e-3, f"order 4: {r4}")
    with open(d.path("s4.json")) as f:
        j = json.load(f)
    ensure(j["iterations"] == r4["iterations"] and close(j["disc_err"], r4["disc_err"], 1e-5), f"json: {j}")
    p = d.run(*base, "-elements", 2, 2, 2, "-order", 8)
    expect_rc(p, 0)
    r8 = result_of(p)
    ensure(r8["n"] == 17 ** 3 and r8["disc_err"] < 1e-3 * r4["disc_err"],
           f"order 8: disc_err {r8['disc_err']} against order 4's {r4['disc_err']}: not spectral")
    p = d.run(*base, "-n", 2, "-order", 4)
    expect_rc(p, 0)
    rn = result_of(p)
    ensure(rn["n"] == r4["n"] and close(rn["disc_err"], r4["disc_err"], 1e-6), f"-n 2 against -elements 2: {rn}")
    p = d.run(*base, "-elements", 3, 2, 2, "-order", 5, "-deform", 0.05)
    expect_rc(p, 0)
    rd = result_of(p)
    ensure(rd["n"] == 16 * 11 * 11 and rd["reason"] == "converged_rtol" and rd["disc_err"] < 1e-3, f"deformed: {rd}")
    for args, msg in ((("-elements", 2, "-order", 14), "-order"), (("-elements", 2, "-deform", 0.3), "-deform"),
                      (("-elements", 2, "-n", 2), "exclude each other")):
        p = d.run(*base, *args)
        expect_rc(p, 1)
        ensure(msg in p.stderr, f"{args}: {p.stderr}")
    p = d.run("solve", "-problem", "poisson7", "-n", 4, "-order", 3)
    expect_rc(p, 1)
    ensure("only used with -problem sem" in p.stderr, p.stderr)
    # -vtk: the points, (order)^3 hexahedra an element, the fields solution, exact, error
    p = d.run(*base, "-elements", 2, 1, 1, "-order", 3, "-vtk", "s.vtu")
    expect_rc(p, 0)
    with open(d.path("s.vtu")) as f:
        text = f.read()
    ensure('NumberOfPoints="112" NumberOfCells="54"' in text and 'Name="error"' in text, "sem -vtk output")
    # -pc semjacobi: each kernel, the same iterations and error, fewer iterations than plain CG; in the report
    runs = []
    for v in ("extended", "natural", "shared", "wide"):
        p = d.run("solve", "-problem", "sem", "-elements", 2, "-order", 6, "-solver", "cg", "-pc", "semjacobi",
                  "-pc_semjacobi_variant", v, "-rtol", 1e-10, "-json", f"sj_{v}.json")
        expect_rc(p, 0)
        runs.append(result_of(p))
        with open(d.path(f"sj_{v}.json")) as f:
            ensure(json.load(f).get("pc_semjacobi_variant") == v, f"json pc_semjacobi_variant for {v}")
    ensure(all(r["iterations"] == runs[0]["iterations"] and r["disc_err"] == runs[0]["disc_err"] for r in runs),
           f"semjacobi kernels disagree: {runs}")
    p = d.run("solve", "-problem", "sem", "-elements", 2, "-order", 6, "-solver", "cg", "-pc", "none", "-rtol", 1e-10)
    expect_rc(p, 0)
    ensure(result_of(p)["iterations"] > runs[0]["iterations"], f"cg {result_of(p)} against cg + semjacobi {runs[0]}")
    p = d.run("solve", "-problem", "sem", "-elements", 2, "-pc", "jacobi", "-pc_semjacobi_variant", "wide")
    expect_rc(p, 1)
    ensure("only used with -pc semjacobi" in p.stderr, p.stderr)
    # -mesh: a Gmsh hexahedral mesh written here (3 x 3 x 2 cells of [0,1] x [0,1] x [0,0.5], inside nodes moved, so
    # not affine): converges with a spectral error; the counts; the errors
    nx, ny, nz = 3, 3, 2
    nodes, cells = [], []
    for k in range(nz + 1):
        for j in range(ny + 1):
            for i in range(nx + 1):
                x, y, z = i / nx, j / ny, 0.5 * k / nz
                if 0 < i < nx and 0 < j < ny and 0 < k < nz:
                    x, y, z = x + 0.04 * math.sin(7 * j + 3 * k), y + 0.04 * math.cos(5 * i), z + 0.03 * math.sin(2 * i + j)
                nodes.append((x, y, z))
    nid = lambda i, j, k: 1 + i + (nx + 1) * (j + (ny + 1) * k)
    for k in range(nz):
        for j in range(ny):
            for i in range(nx):
                cells.append([nid(i, j, k), nid(i + 1, j, k), nid(i + 1, j + 1, k), nid(i, j + 1, k),
                              nid(i, j, k + 1), nid(i + 1, j, k + 1), nid(i + 1, j + 1, k + 1), nid(i, j + 1, k + 1)])
    with open(d.path("hex.msh"), "w") as f:
        f.write("$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n%d\n" % len(nodes))
        f.writelines("%d %.17g %.17g %.17g\n" % (n + 1, *xyz) for n, xyz in enumerate(nodes))
        f.write("$EndNodes\n$Elements\n%d\n" % len(cells))
        f.writelines("%d 5 2 1 1 %s\n" % (c + 1, " ".join(map(str, v))) for c, v in enumerate(cells))
        f.write("$EndElements\n")
    hexmesh = d.path("hex.msh")
    rm = {}
    for order in (3, 6):
        p = d.run(*base, "-mesh", hexmesh, "-order", order, "-json", f"m{order}.json")
        expect_rc(p, 0)
        rm[order] = result_of(p)
        ensure(rm[order]["n"] == (nx * order + 1) * (ny * order + 1) * (nz * order + 1) and
               rm[order]["reason"] == "converged_rtol", f"-mesh order {order}: {rm[order]}")
    ensure(rm[3]["disc_err"] < 2e-2 and rm[6]["disc_err"] < 1e-2 * rm[3]["disc_err"], f"-mesh: not spectral: {rm}")
    p = d.run(*base, "-mesh", hexmesh, "-order", 2, "-vtk", "m.vtu")
    expect_rc(p, 0)
    with open(d.path("m.vtu")) as f:
        ensure('NumberOfPoints="245" NumberOfCells="144"' in f.read(), "sem -mesh -vtk output")
    for args, msg in ((("-mesh", hexmesh, "-elements", 2), "not with -elements"),
                      (("-mesh", hexmesh, "-deform", 0.01), "not with -deform"),
                      (("-mesh", d.path("missing.msh")), "cannot read")):
        p = d.run(*base, *args)
        expect_rc(p, 1)
        ensure(msg in p.stderr, f"{args}: {p.stderr}")
    with open(d.path("tet.msh"), "w") as f:
        f.write("$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n4\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n$EndNodes\n"
                "$Elements\n1\n1 4 2 1 1 1 2 3 4\n$EndElements\n")
    p = d.run(*base, "-mesh", d.path("tet.msh"))
    expect_rc(p, 1)
    ensure("not hexahedra" in p.stderr and "-subdivide" in p.stderr, p.stderr)
    # -subdivide: the tetrahedron as 4 hexahedra converges; the hexahedra as 8 each (a conforming refinement of the
    # structured mesh: its point count) give a smaller error at the same order
    p = d.run(*base, "-mesh", d.path("tet.msh"), "-subdivide", "-order", 3)
    expect_rc(p, 0)
    p = d.run(*base, "-mesh", hexmesh, "-subdivide", "-order", 3)
    expect_rc(p, 0)
    r = result_of(p)
    ensure(r["n"] == (2 * nx * 3 + 1) * (2 * ny * 3 + 1) * (2 * nz * 3 + 1) and r["disc_err"] < rm[3]["disc_err"],
           f"-subdivide: {r} against {rm[3]}")
    p = d.run(*base, "-elements", 2, "-subdivide")
    expect_rc(p, 1)
    ensure("-subdivide needs -problem sem -mesh" in p.stderr, p.stderr)
    p = d.run("gen", "-problem", "sem", "-mesh", hexmesh, "-o", "g")
    expect_rc(p, 1)
    ensure("-mesh" in p.stderr, p.stderr)


def fv_result(p):
    """The fv command's result line as a dict of floats (force as a list)."""
    lines = p.stdout.rstrip("\n").split("\n")
    ensure(lines and lines[-1].startswith("result: fv "), "the last line is not 'result: fv ...'" + describe(p))
    r = {}
    for tok in lines[-1].split()[2:]:
        k, v = tok.split("=", 1)
        r[k] = [float(x) for x in v.strip("()").split(",")] if k == "force" else float(v)
    return r


def check_fv(d):
    """pdesolve fv (issue 14): the sphere in a box, explicit steps: the JSON report has every step's residual (the same
    as -monitor's lines and the result line's), the mesh's four cell types and the wall faces; the pressure force is
    along the flow (its y and z parts at round-off of the x part: the mesh and the flow are symmetric); -vtk writes
    the cells with their fields; a Gmsh box of hexahedra written here with no walls keeps the free stream (residual at
    round-off); -sum: every summation named in the report, stages and cells with the default's residuals bit for bit,
    color and atomic to round-off; errors: -problem with -mesh, -radius against -box, a missing mesh file, -reorder,
    -cfl, -order, -sum."""
    p = d.run("fv", "-cells", 2000, "-steps", 30, "-monitor", "-json", "fv.json", "-vtk", "fv.vtu")
    expect_rc(p, 0)
    r = fv_result(p)
    mon = [float(l.split()[-1]) for l in p.stdout.splitlines() if "FV residual norm" in l]
    with open(d.path("fv.json")) as f:
        j = json.load(f)
    ensure(len(j["residuals"]) == 30 and len(mon) == 30 and close(j["residuals"][0], mon[0], 1e-11) and
           close(j["residuals"][-1], r["rnorm"], 1e-6), f"residuals: {j['residuals'][:3]}, monitor {mon[:3]}, {r}")
    ensure(j["cells"] == r["cells"] and min(j["tetrahedra"], j["pyramids"], j["prisms"], j["hexahedra"]) > 0 and
           j["wall_faces"] > 0, f"mesh: {j}")
    fx, fy, fz = r["force"]
    ensure(fx > 0 and abs(fy) < 1e-3 * fx and abs(fz) < 1e-3 * fx, f"force {r['force']}: not along the flow")
    with open(d.path("fv.vtu")) as f:
        text = f.read()
    ensure(f'NumberOfCells="{int(r["cells"])}"' in text and 'Name="mach"' in text, "fv -vtk output")
    # a Gmsh box of 3 x 2 x 2 hexahedra, no walls: the free stream stays (residual at round-off)
    nx, ny, nz = 3, 2, 2
    nid = lambda i, j, k: 1 + i + (nx + 1) * (j + (ny + 1) * k)
    with open(d.path("box.msh"), "w") as f:
        f.write("$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n%d\n" % ((nx + 1) * (ny + 1) * (nz + 1)))
        for k in range(nz + 1):
            for j in range(ny + 1):
                for i in range(nx + 1):
                    f.write("%d %g %g %g\n" % (nid(i, j, k), i / nx, j / ny, k / nz))
        f.write("$EndNodes\n$Elements\n%d\n" % (nx * ny * nz))
        e = 0
        for k in range(nz):
            for j in range(ny):
                for i in range(nx):
                    e += 1
                    v = [nid(i, j, k), nid(i + 1, j, k), nid(i + 1, j + 1, k), nid(i, j + 1, k), nid(i, j, k + 1),
                         nid(i + 1, j, k + 1), nid(i + 1, j + 1, k + 1), nid(i, j + 1, k + 1)]
                    f.write("%d 5 2 1 1 %s\n" % (e, " ".join(map(str, v))))
        f.write("$EndElements\n")
    p = d.run("fv", "-mesh", d.path("box.msh"), "-steps", 5, "-mach", 0.3, "-alpha", 30)
    expect_rc(p, 0)
    r = fv_result(p)
    ensure(r["cells"] == 12 and r["wall_faces"] == 0 and r["rnorm"] < 1e-14, f"free stream on a box: {r}")
    # -wall naming a tag no boundary face has (this file tags none): an error that lists the file's tags
    p = d.run("fv", "-mesh", d.path("box.msh"), "-steps", 5, "-wall", 7)
    expect_rc(p, 1)
    ensure("-wall 7" in p.stderr and "tags: none" in p.stderr, p.stderr)
    # order 2 on the sphere: the report has the stencils; the force is along the flow
    p = d.run("fv", "-cells", 2000, "-steps", 10, "-order", 2, "-cfl", 0.5, "-json", "fv2.json")
    expect_rc(p, 0)
    r2 = fv_result(p)
    with open(d.path("fv2.json")) as f:
        j2 = json.load(f)
    ensure(j2["order"] == 2 and 18 <= j2["stencil_min"] <= j2["stencil_mean"] <= j2["stencil_max"] <= 120 and
           r2["force"][0] > 0 and abs(r2["force"][1]) < 1e-3 * r2["force"][0], f"order 2: {j2.get('order')}, {r2}")
    # -sum: the report names the summation (the default: stages); stages and cells give the default's residuals bit
    # for bit, color and atomic to round-off
    with open(d.path("fv.json")) as f:
        j = json.load(f)
    ensure(j["summation"] == "stages" and "colors" not in j, f"the default summation: {j.get('summation')}")
    for s in ("stages", "color", "atomic", "cells"):
        p = d.run("fv", "-cells", 2000, "-steps", 30, "-sum", s, "-json", f"fv_{s}.json")
        expect_rc(p, 0)
        with open(d.path(f"fv_{s}.json")) as f:
            js = json.load(f)
        exact = s in ("stages", "cells")
        ensure(js["summation"] == s and ("colors" in js) == (s == "color") and
               (js["residuals"] == j["residuals"] if exact else
                all(close(a, b, 1e-10) for a, b in zip(js["residuals"], j["residuals"]))),
               f"-sum {s}: {js.get('summation')}, residuals {js['residuals'][:3]} against {j['residuals'][:3]}")
    for args, msg in ((("-problem", "sphere", "-mesh", d.path("box.msh")), "exclude each other"),
                      (("-radius", 3, "-box", 5), "-radius"), (("-mesh", d.path("missing.msh")), "cannot read"),
                      (("-reorder", "spiral"), "-reorder"), (("-cfl", 0), "-cfl"),
                      (("-order", 3), "-order"), (("-sum", "colour"), "-sum")):
        p = d.run("fv", "-cells", 1000, "-steps", 1, *args)
        expect_rc(p, 1)
        ensure(msg in p.stderr, f"{args}: {p.stderr}")


def check_fv_implicit(d):
    """pdesolve fv -implicit (issue 14): the sphere to a steady state by backward-Euler pseudo-time steps: -tol stops
    there (the residual 1e-9 of the first in far fewer steps than -steps), the report has each step's residual,
    linear iterations and CFL number (growing as the residual falls, from -cfl), the result line the same; the force
    along the flow; fgmres with pbjacobi gets there too, and ilu0 in RCM order (-pc_ilu0_ordering, named in the
    report); explicit steps stop at -tol as well; errors: -ksp, -pc, -ksp_rtol."""
    p = d.run("fv", "-cells", 2000, "-implicit", "-cfl", 20, "-steps", 40, "-tol", 1e-9, "-monitor", "-json",
              "fvi.json")
    expect_rc(p, 0)
    r = fv_result(p)
    with open(d.path("fvi.json")) as f:
        j = json.load(f)
    n = len(j["residuals"])
    mon = [l for l in p.stdout.splitlines() if "FV residual norm" in l]
    ensure(j["implicit"] is True and j["ksp"] == "gmres" and j["pc"] == "ilu0" and n == r["steps"] < 20 and
           len(mon) == n and len(j["linear_iterations"]) == n and sum(j["linear_iterations"]) ==
           r["linear_iterations"] == j["linear_iterations_total"] > 0, f"implicit report: {r}, {len(mon)} lines")
    ensure(j["residuals"][-1] <= 1e-9 * j["residuals"][0] and j["cfls"][0] == 20 and
           all(b >= a for a, b in zip(j["cfls"][1:], j["cfls"][2:])) and j["cfls"][-1] > 1e3,
           f"residuals {j['residuals']}, cfls {j['cfls']}")
    fx, fy, fz = r["force"]
    ensure(fx > 0 and abs(fy) < 1e-3 * fx and abs(fz) < 1e-3 * fx, f"force {r['force']}: not along the flow")
    p = d.run("fv", "-cells", 2000, "-implicit", "-ksp", "fgmres", "-pc", "pbjacobi", "-cfl", 20, "-steps", 40, "-tol",
              1e-9)
    expect_rc(p, 0)
    r2 = fv_result(p)
    ensure(r2["rnorm"] <= 1e-9 * r2["rnorm0"] and r2["steps"] < 30 and close(r2["force"][0], fx, 1e-6),
           f"fgmres + pbjacobi: {r2} against {r}")
    p = d.run("fv", "-cells", 2000, "-implicit", "-pc_ilu0_ordering", "rcm", "-steps", 40, "-tol", 1e-9, "-json",
              "fvi_rcm.json")
    expect_rc(p, 0)
    with open(d.path("fvi_rcm.json")) as f:
        jr = json.load(f)
    ensure(jr["pc_ilu0_ordering"] == "rcm" and jr["residuals"][-1] <= 1e-9 * jr["residuals"][0],
           f"-pc_ilu0_ordering rcm: {jr.get('pc_ilu0_ordering')}, {jr['residuals'][-3:]}")
    p = d.run("fv", "-cells", 2000, "-steps", 500, "-tol", 0.5)
    expect_rc(p, 0)
    r3 = fv_result(p)
    ensure(r3["implicit"] == 0 and r3["steps"] < 500 and r3["rnorm"] <= 0.5 * r3["rnorm0"], f"explicit -tol: {r3}")
    for args, msg in ((("-ksp", "cg"), "-ksp"), (("-pc", "gmg"), "-pc"), (("-ksp_rtol", 2), "-ksp_rtol")):
        p = d.run("fv", "-cells", 1000, "-steps", 1, "-implicit", *args)
        expect_rc(p, 1)
        ensure(msg in p.stderr, f"{args}: {p.stderr}")


def check_monitor(d):
    """-monitor: one stable line per iteration from 0; the last equals rnorm; -view prints the configuration."""
    p = d.run("solve", "-problem", "poisson7", "-n", 8, "-solver", "cg", "-pc", "jacobi", "-monitor", "-view")
    expect_rc(p, 0)
    r = result_of(p)
    mon = [MONITOR_RE.match(l) for l in p.stdout.split("\n") if "KSP residual norm" in l]
    ensure(all(mon), "a monitor line does not match '%5d KSP residual norm %.12e'")
    its = [int(m.group(1)) for m in mon]
    ensure(its == list(range(r["iterations"] + 1)), f"monitor iterations {its[:5]}... != 0..{r['iterations']}")
    ensure(close(float(mon[0].group(2)), r["rnorm0"], 1e-6), "first monitor value != rnorm0")
    ensure(close(float(mon[-1].group(2)), r["rnorm"], 1e-6), "last monitor value != rnorm")
    for word in ("backend", "matrix", "csr", "solver: cg", "jacobi", "rtol"):
        ensure(word in p.stdout, f"-view output lacks '{word}'")


def check_maxit(d):
    """Not converging is exit status 2 with reason diverged_maxit."""
    p = d.run("solve", "-problem", "poisson7", "-n", 10, "-solver", "cg", "-pc", "jacobi", "-maxit", 2)
    expect_rc(p, 2)
    r = result_of(p)
    ensure(r["iterations"] == 2 and r["reason"] == "diverged_maxit", f"iterations/reason: {r}")


def check_json(d):
    """-json writes valid JSON with the result's fields and, with -history, the residual history."""
    p = d.run("solve", "-problem", "poisson7", "-n", 7, "-solver", "bicgstab", "-pc", "jacobi", "-history",
              "-json", "report.json")
    expect_rc(p, 0)
    r = result_of(p)
    with open(d.path("report.json")) as f:
        j = json.load(f)
    for k in ("solver", "pc", "backend", "reason"):
        ensure(j[k] == r[k], f"json {k} = {j[k]!r}, result line says {r[k]!r}")
    for k in ("n", "nnz", "iterations"):
        ensure(j[k] == r[k], f"json {k} = {j[k]}, result line says {r[k]}")
    for k in ("rnorm0", "rnorm", "rel", "t_setup", "t_solve", "disc_err"):
        ensure(close(j[k], r[k], 1e-5), f"json {k} = {j[k]}, result line says {r[k]}")
    ensure(j["converged"] is True, "json converged is not true")
    h = j["history"]
    ensure(len(h) == r["iterations"] + 1, f"history has {len(h)} entries for {r['iterations']} iterations")
    ensure(close(h[0], r["rnorm0"], 1e-6) and close(h[-1], r["rnorm"], 1e-6), "history ends differ from rnorm0/rnorm")
    # without -history there is no history; a matrix file gives err_inf (b = A*ones)
    p = d.run("gen", "-problem", "poisson7", "-n", 4, "-o", "g")
    expect_rc(p, 0)
    p = d.run("solve", "-A", "g_A.mtx", "-solver", "cg", "-json", "r2.json")
    expect_rc(p, 0)
    r = result_of(p)
    with open(d.path("r2.json")) as f:
        j = json.load(f)
    ensure("history" not in j, "history written without -history")
    ensure(r["err_inf"] is not None and close(j["err_inf"], r["err_inf"], 1e-5), "err_inf missing or different")


def check_gen_roundtrip(d):
    """gen writes the problem; solving the files reproduces the solution of the generated problem."""
    p = d.run("gen", "-problem", "poisson7", "-n", 6, 5, 4, "-o", "pois")
    expect_rc(p, 0)
    for suffix in ("A", "b", "u"):
        ensure(os.path.isfile(d.path(f"pois_{suffix}.mtx")), f"gen did not write pois_{suffix}.mtx" + describe(p))
    A = read_mm(d.path("pois_A.mtx"))
    ensure(A[0] == "coordinate" and A[1] == A[2] == 120, f"pois_A.mtx is {A[:3]}")
    common = ["-solver", "cg", "-pc", "jacobi", "-rtol", 1e-12]
    p1 = d.run("solve", "-problem", "poisson7", "-n", 6, 5, 4, "-o", "x_gen.mtx", *common)
    expect_rc(p1, 0)
    p2 = d.run("solve", "-A", "pois_A.mtx", "-b", "pois_b.mtx", "-o", "x_file.mtx", *common)
    expect_rc(p2, 0)
    r1, r2 = result_of(p1), result_of(p2)
    ensure(r1["iterations"] == r2["iterations"], f"iterations differ: {r1['iterations']} vs {r2['iterations']}")
    x1, x2 = read_mm(d.path("x_gen.mtx"))[1], read_mm(d.path("x_file.mtx"))[1]
    u = read_mm(d.path("pois_u.mtx"))[1]
    diff = max(abs(a - b) for a, b in zip(x1, x2))
    ensure(len(x1) == len(x2) == 120 and diff <= 1e-12 * max(map(abs, x1)), f"solutions differ by {diff}")
    disc = max(abs(a - b) for a, b in zip(x2, u))
    ensure(close(disc, r1["disc_err"], 1e-4, 1e-12), f"|x - u|_inf = {disc} but disc_err = {r1['disc_err']}")
    # x0 = the solution: converged at once
    p3 = d.run("solve", "-A", "pois_A.mtx", "-b", "pois_b.mtx", "-x0", "x_file.mtx", "-solver", "cg", "-rtol", 1e-8)
    expect_rc(p3, 0)
    ensure(result_of(p3)["iterations"] <= 1, "starting from the solution took iterations")
    # -A without -b: b = A*ones, so err_inf (vs ones) is reported and small
    p4 = d.run("solve", "-A", "pois_A.mtx", "-solver", "cg", "-pc", "jacobi", "-rtol", 1e-12)
    expect_rc(p4, 0)
    r4 = result_of(p4)
    ensure(r4["err_inf"] is not None and r4["err_inf"] < 1e-9, f"err_inf vs ones: {r4['err_inf']}")


def check_apply(d):
    """apply: y = A x, A^T x and the Jacobi preconditioner against sums computed here."""
    p = d.run("gen", "-problem", "poisson7", "-n", 4, 3, 2, "-o", "g")
    expect_rc(p, 0)
    _, n, _, ent = read_mm(d.path("g_A.mtx"))
    # a nonsymmetric matrix from it: scale row i by (i + 1)
    with open(d.path("ns.mtx"), "w") as f:
        f.write(f"%%MatrixMarket matrix coordinate real general\n{n} {n} {len(ent)}\n")
        for i, j, v in ent:
            f.write(f"{i + 1} {j + 1} {v * (i + 1)!r}\n")
    x = [math.sin(k + 1.0) for k in range(n)]
    write_vec(d.path("x.mtx"), x)
    Ax, ATx, diag = [0.0] * n, [0.0] * n, [0.0] * n
    for i, j, v in ent:
        a = v * (i + 1)
        Ax[i] += a * x[j]
        ATx[j] += a * x[i]
        if i == j:
            diag[i] += a
    for op, want in (("mat", Ax), ("matT", ATx), ("pc", [x[i] / diag[i] for i in range(n)])):
        p = d.run("apply", "-A", "ns.mtx", "-x", "x.mtx", "-op", op, "-o", f"y_{op}.mtx")
        expect_rc(p, 0)
        y = read_mm(d.path(f"y_{op}.mtx"))[1]
        err = max(abs(a - b) for a, b in zip(y, want))
        ensure(len(y) == n and err <= 1e-12 * max(map(abs, want)), f"apply -op {op}: error {err}")
    # default x = ones, bsr storage
    p = d.run("apply", "-A", "ns.mtx", "-format", "bsr", "-bs", 4, "-o", "y1.mtx")
    expect_rc(p, 0)
    y = read_mm(d.path("y1.mtx"))[1]
    rows = [0.0] * n
    for i, j, v in ent:
        rows[i] += v * (i + 1)
    ensure(max(abs(a - b) for a, b in zip(y, rows)) <= 1e-12 * max(map(abs, rows)), "apply bsr A*ones")


def check_bsr(d):
    """-format bsr gives the same iterations as csr; -bs sets the pbjacobi block size."""
    base = ["solve", "-problem", "poisson7", "-n", 8, "-solver", "cg", "-pc", "pbjacobi"]
    p1 = d.run(*base, "-bs", 4)
    p2 = d.run(*base, "-format", "bsr", "-bs", 4, "-view")
    expect_rc(p1, 0)
    expect_rc(p2, 0)
    r1, r2 = result_of(p1), result_of(p2)
    ensure(abs(r1["iterations"] - r2["iterations"]) <= 1, f"csr {r1['iterations']} vs bsr {r2['iterations']} iterations")
    ensure(r2["nnz"] >= r1["nnz"], "bsr stores fewer entries than csr")
    ensure("bsr" in p2.stdout, "-view does not show the bsr matrix")


def check_shared(d):
    """Real matrices: nos3 with cg + pbjacobi(2) and as bsr, sherman1 with its rhs file."""
    m = shared_matrices()
    if not m:
        print("shared matrices not found (PDS_SHARED_DIR); skipped")
        return SKIP
    for extra in ([], ["-format", "bsr"]):
        p = d.run("solve", "-A", os.path.join(m, "nos3.mtx"), "-solver", "cg", "-pc", "pbjacobi", "-bs", 2, *extra)
        expect_rc(p, 0)
        r = result_of(p)
        ensure(r["n"] == 960 and r["err_inf"] is not None and r["err_inf"] < 1e-6, f"nos3: {r}")
    p = d.run("solve", "-A", os.path.join(m, "sherman1.mtx"), "-b", os.path.join(m, "sherman1_rhs1.mtx"),
              "-solver", "bicgstab", "-pc", "jacobi")
    expect_rc(p, 0)
    r = result_of(p)
    ensure(r["err_inf"] is None and r["rel"] <= 1e-8, f"sherman1: {r}")
    # zero diagonals: Jacobi cannot be set up, a clear library error
    p = d.run("solve", "-A", os.path.join(m, "e05r0000.mtx"), "-solver", "gmres", "-pc", "jacobi")
    expect_rc(p, 1)
    ensure("pdesolve: error:" in p.stderr and "PDS_ERR_ZERO_PIVOT" in p.stderr, "e05r0000 + jacobi" + describe(p))


def check_demo_quick(d):
    """demo -quick ends with every case as expected."""
    p = d.run("demo", "-quick")
    expect_rc(p, 0)
    ensure(re.search(r"demo: \d+ cases? run, \d+ as expected, 0 unexpected, 0 errors", p.stdout), "demo summary" + describe(p))
    ensure("poisson7" in p.stdout, "demo did not run poisson7")
    ensure(all(re.search(r"^%s .* ok$" % k, p.stdout, re.M) for k in ("channel", "patches", "sem", "fv ~2000")),
           "demo: a case of the papers' systems is missing or not ok" + describe(p))
    # without the shared matrices (PDS_SHARED_DIR set to nothing): generated problems only, still exit 0
    p = d.run("demo", "-quick", env={"PDS_SHARED_DIR": ""})
    expect_rc(p, 0)
    ensure("shared folder not found" in p.stdout and "nos3" not in p.stdout, "demo without matrices" + describe(p))


def check_alloc_fail(d):
    """PDS_ALLOC_FAIL=k for every k until the run succeeds: each failure is exit 1 with PDS_ERR_MEM, no crash
    (and, in a sanitizer build, no leak: LeakSanitizer would change the exit status)."""
    p = d.run("gen", "-problem", "poisson7", "-n", 3, "-o", "g")
    expect_rc(p, 0)
    runs = [("solve", "-problem", "poisson7", "-n", 3, "-solver", "cg", "-pc", "jacobi", "-history", "-json", "r.json",
             "-o", "x.mtx", "-view"),
            ("solve", "-A", "g_A.mtx", "-b", "g_b.mtx", "-x0", "g_u.mtx", "-solver", "gmres", "-restart", 5,
             "-format", "bsr", "-bs", 3, "-pc", "pbjacobi"),
            ("apply", "-A", "g_A.mtx", "-x", "g_b.mtx", "-op", "pc", "-pc", "pbjacobi", "-bs", 3, "-o", "y.mtx"),
            ("gen", "-problem", "poisson7", "-n", 3, "-o", "h"),
            ("gen", "-problem", "channel", "-grids", "2*2,1x2x3", "-bs", 4, "-o", "c"),
            ("gen", "-problem", "patches", "-n", 4, 3, 2, "-patch", "2,1", "-o", "p"),
            ("solve", "-problem", "patches", "-n", 4, "-patch", 2, "-solver", "cg", "-pc", "gmg", "-gmg_levels", 2,
             "-json", "g.json"),
            ("apply", "-problem", "patches", "-n", 4, 3, 2, "-patch", "2,1", "-op", "pc", "-pc", "relax",
             "-relax_type", "multicolor", "-relax_block", 1, "-o", "z.mtx")]
    env = dict(os.environ)
    for args in runs:
        for k in range(100000):
            env["PDS_ALLOC_FAIL"] = str(k)
            cmd = [d.exe] + [str(a) for a in args] + ["-backend", d.backend]
            p = subprocess.run(cmd, cwd=d.workdir, capture_output=True, text=True, env=env, timeout=120)
            p.cmdline = f"PDS_ALLOC_FAIL={k} " + " ".join(cmd)
            if p.returncode == 0:
                break
            ensure(p.returncode == 1 and "pdesolve: error:" in p.stderr and "PDS_ERR_MEM" in p.stderr,
                   "an injected allocation failure was not reported as PDS_ERR_MEM with exit 1" + describe(p))
        ensure(k > 0, f"{args}: no allocation was ever made?")


# ---- checks run once (no backend) ------------------------------------------------------------------------

ERROR_CASES = [
    # (arguments, substring stderr must contain)
    (["solve", "-problem", "poisson7", "-n", "4", "-frobnicate", "1"], "-frobnicate"),
    (["solve", "-problem", "poisson7", "-n", "4", "-monitr"], "-monitr"),
    (["solve", "-problem", "poisson7", "-n", "4", "-maxit", "abc"], "-maxit"),
    (["solve", "-problem", "poisson7", "-n", "4", "-maxit"], "-maxit"),
    (["solve", "-problem", "poisson7", "-n", "4", "-maxit", "-3"], "-maxit"),
    (["solve", "-problem", "poisson7", "-n", "4", "-rtol", "2"], "-rtol"),
    (["solve", "-problem", "poisson7", "-n", "4", "-rtol", "1e-8x"], "-rtol"),
    (["solve", "-problem", "poisson7", "-n", "4", "-restart", "0"], "-restart"),
    (["solve", "-problem", "poisson7", "-n", "4", "-solver", "gmres", "-orthog", "mgs"], "-orthog"),
    (["solve", "-problem", "poisson7", "-n", "4", "-omega", "0"], "-omega"),
    (["solve", "-problem", "poisson7", "-n", "0"], "-n"),
    (["solve", "-problem", "poisson7", "-n", "4", "4", "4", "4"], "-n"),
    (["solve", "-problem", "poisson7"], "-n"),
    (["solve", "-problem", "poisson7", "-n", "4", "-format", "coo"], "coo"),
    (["solve", "-problem", "poisson7", "-n", "4", "-solver", "nosuchsolver"], "nosuchsolver"),
    (["solve", "-problem", "poisson7", "-n", "4", "-pc", "nosuchpc"], "nosuchpc"),
    (["solve", "-problem", "poisson7", "-n", "4", "-backend", "/cpu/nosuch"], "/cpu/nosuch"),
    (["solve", "-problem", "nosuchproblem", "-n", "4"], "nosuchproblem"),
    (["solve", "-A", "/nonexistent/dir/missing.mtx"], "missing.mtx"),
    (["solve", "-problem", "poisson7", "-n", "4", "-b", "/nonexistent/rhs.mtx"], "rhs.mtx"),
    (["solve", "-A", "x.mtx", "-problem", "poisson7", "-n", "4"], "-problem"),
    (["solve"], "-A"),
    (["solve", "stray"], "stray"),
    (["apply", "-A", "/nonexistent/a.mtx", "-o", "y.mtx"], "a.mtx"),
    (["apply", "-op", "nosuchop", "-o", "y.mtx"], "nosuchop"),
    (["gen", "-problem", "poisson7", "-n", "3"], "-o"),
    # channel multi-block and the bilu0 flags
    (["solve", "-problem", "channel"], "-grids"),
    (["solve", "-problem", "channel", "-n", "4", "-grids", "4*2"], "-grids"),
    (["solve", "-problem", "channel", "-blocks", "2", "-grids", "4*2"], "-blocks"),
    (["solve", "-problem", "channel", "-n", "4", "-blocks", "0"], "-blocks"),
    (["solve", "-problem", "channel", "-n", "4", "-decomp", "2", "-blocks", "2"], "-decomp"),
    (["solve", "-problem", "channel", "-n", "4", "-decomp", "5"], "-decomp"),
    (["solve", "-problem", "poisson7", "-n", "4", "-decomp", "2"], "-decomp"),
    (["solve", "-problem", "poisson7", "-n", "4", "-blocks", "2"], "-blocks"),
    (["solve", "-problem", "poisson7", "-n", "4", "-grids", "4"], "-grids"),
    (["solve", "-problem", "channel", "-grids", "15x15*2"], "item 1 '15x15*2'"),
    (["solve", "-problem", "channel", "-grids", "4,4x4x4x4"], "item 2 '4x4x4x4'"),
    (["solve", "-problem", "channel", "-grids", "4*0"], "item 1 '4*0'"),
    (["solve", "-problem", "channel", "-grids", "4,,5"], "item 2 ''"),
    (["solve", "-problem", "channel", "-grids", "4*2,"], "item 2 ''"),
    (["solve", "-problem", "channel", "-grids", "4x0x4"], "item 1 '4x0x4'"),
    (["solve", "-problem", "channel", "-grids", "4 *2"], "-grids"),
    (["solve", "-problem", "channel", "-grids", "abc"], "item 1 'abc'"),
    (["solve", "-problem", "channel", "-grids", "1*1048576,1"], "more than 1048576 grids"),
    (["solve", "-problem", "channel", "-grids", "1000x1000x300*2"], "32-bit"),
    (["solve", "-problem", "channel", "-n", "4", "-pc", "jacobi", "-pc_bilu0_variant", "graph"], "-pc_bilu0_variant"),
    (["solve", "-problem", "channel", "-n", "4", "-pc_bilu0_factors", "float"], "-pc_bilu0_factors"),
    (["solve", "-problem", "channel", "-n", "4", "-pc", "bilu0", "-pc_bilu0_variant", "fast"], "fast"),
    (["solve", "-problem", "channel", "-n", "4", "-pc", "bilu0", "-pc_bilu0_factors", "half"], "half"),
    (["gen", "-problem", "poisson7", "-n", "3", "-blocks", "2", "-o", "g"], "-blocks"),
    (["gen", "-problem", "poisson7", "-n", "3", "-bs", "4", "-o", "g"], "-bs"),
    (["gen", "-problem", "channel", "-grids", "3*", "-o", "g"], "-grids"),
    # patches, relax, gmg (issue 12)
    (["solve", "-problem", "patches", "-n", "8", "-patch", "0"], "item 1 '0'"),
    (["solve", "-problem", "patches", "-n", "8", "-patch", "4,,2"], "item 2 ''"),
    (["solve", "-problem", "patches", "-n", "8", "-patch", "4,x"], "item 2 'x'"),
    (["solve", "-problem", "patches", "-n", "8", "-patch", "-4"], "-patch"),
    (["solve", "-problem", "patches", "-n", "8", "-patch", "4,99999999"], "item 2 '99999999'"),
    (["solve", "-problem", "patches", "-n", "8", "-patch", ",".join(["2"] * 65)], "more than 64"),
    (["solve", "-problem", "patches"], "-n"),
    (["solve", "-problem", "poisson7", "-n", "4", "-patch", "4"], "-patch"),
    (["solve", "-problem", "patches", "-n", "8", "-pc", "relax", "-relax_type", "sor"], "sor"),
    (["solve", "-problem", "patches", "-n", "8", "-pc", "relax", "-relax_block", "9"], "-relax_block"),
    (["solve", "-problem", "patches", "-n", "8", "-pc", "relax", "-relax_block", "0"], "-relax_block"),
    (["solve", "-problem", "patches", "-n", "8", "-pc", "relax", "-relax_block", "4", "4"], "-relax_block"),
    (["solve", "-problem", "patches", "-n", "8", "-pc", "relax", "-relax_omega", "3"], "-relax_omega"),
    (["solve", "-problem", "patches", "-n", "8", "-pc", "relax", "-relax_sweeps", "0"], "-relax_sweeps"),
    (["solve", "-problem", "patches", "-n", "8", "-pc", "relax", "-relax_variant", "fast"], "fast"),
    (["solve", "-problem", "patches", "-n", "8", "-pc", "relax", "-relax_symmetric", "0"], "-relax_symmetric"),
    (["solve", "-problem", "patches", "-n", "8", "-pc", "jacobi", "-relax_type", "jacobi"], "-relax_type"),
    (["solve", "-problem", "patches", "-n", "8", "-relax_sweeps", "2"], "only used with -pc relax"),
    (["solve", "-problem", "patches", "-n", "8", "-pc", "gmg", "-relax_block", "4"], "-relax_block"),
    (["solve", "-problem", "patches", "-n", "8", "-pc", "relax", "-gmg_cycle", "w"], "-gmg_cycle"),
    (["solve", "-problem", "patches", "-n", "8", "-pc", "gmg", "-gmg_cycle", "x"], "'x'"),
    (["solve", "-problem", "patches", "-n", "8", "-pc", "gmg", "-gmg_smoother", "sor"], "sor"),
    (["solve", "-problem", "patches", "-n", "8", "-pc", "gmg", "-gmg_block", "9"], "-gmg_block"),
    (["solve", "-problem", "patches", "-n", "8", "-pc", "gmg", "-gmg_prolong", "cubic"], "cubic"),
    (["solve", "-problem", "patches", "-n", "8", "-pc", "gmg", "-gmg_coarse", "lu"], "lu"),
    (["solve", "-problem", "patches", "-n", "8", "-pc", "gmg", "-gmg_levels", "-1"], "-gmg_levels"),
    (["solve", "-problem", "patches", "-n", "8", "-pc", "gmg", "-gmg_pre", "x"], "-gmg_pre"),
    (["apply", "-problem", "patches", "-n", "4", "-A", "a.mtx", "-o", "y.mtx"], "-problem"),
    (["apply", "-problem", "patches", "-o", "y.mtx"], "-n"),
    (["apply", "-problem", "patches", "-n", "4", "-patch", "0", "-o", "y.mtx"], "-patch"),
    (["apply", "-problem", "patches", "-n", "4", "-op", "pc", "-pc", "jacobi", "-relax_sweeps", "2", "-o", "y.mtx"],
     "-relax_sweeps"),
    (["apply", "-A", "a.mtx", "-patch", "4", "-o", "y.mtx"], "-patch"),
    (["gen", "-problem", "patches", "-n", "4", "-patch", "4,0", "-o", "g"], "item 2 '0'"),
    (["gen", "-problem", "patches", "-n", "4", "-pc", "relax", "-o", "g"], "-pc"),
    (["demo", "-quick", "-bogus"], "-bogus"),
    (["nosuchcommand"], "nosuchcommand"),
    ([], "command"),
]


def check_errors(d):
    """Every bad input is exit status 1 with 'pdesolve: error:' on stderr naming the culprit, and no result."""
    bad = []
    for args, word in ERROR_CASES:
        p = d.run(*args, backend=False)
        lines = [l for l in p.stderr.split("\n") if l.startswith("pdesolve: error:")]
        if p.returncode != 1 or not lines or word not in lines[-1] or re.search(r"^result: ", p.stdout, re.M):
            bad.append(f"{args}: expected exit 1 and an error naming {word!r}" + describe(p))
    ensure(not bad, "\n".join(bad))


def check_help(d):
    """-help lists every flag of each command with its default; exit 0."""
    for args, flags in ((["solve", "-help"], SOLVE_FLAGS), (["help", "solve"], SOLVE_FLAGS),
                        (["apply", "-help"], APPLY_FLAGS), (["gen", "-help"], GEN_FLAGS),
                        (["demo", "-help"], DEMO_FLAGS),
                        (["-help"], SOLVE_FLAGS + APPLY_FLAGS + GEN_FLAGS + DEMO_FLAGS),
                        (["help"], SOLVE_FLAGS + APPLY_FLAGS + GEN_FLAGS + DEMO_FLAGS)):
        p = d.run(*args, backend=False)
        expect_rc(p, 0)
        text = p.stdout
        for flag in flags:
            ensure(re.search(r"^  " + re.escape(flag) + r"( |$)", text, re.M), f"{args}: flag {flag} not listed")
        # every flag entry (with its continuation lines) states a default or that it is required
        entries = re.split(r"\n(?=  -)", text)
        for e in entries[1:]:
            e = e.split("\n\n")[0]
            ensure("default" in e or "required" in e, f"{args}: no default in {e!r}")
    # help does not run anything even with other flags
    p = d.run("solve", "-problem", "poisson7", "-n", "4", "-help", backend=False)
    expect_rc(p, 0)
    ensure(not re.search(r"^result: ", p.stdout, re.M), "solve -help ran a solve")


def main():
    if len(sys.argv) != 5:
        print(__doc__)
        return 1
    check, exe, backend, workdir = sys.argv[1:]
    fn = globals().get("check_" + check)
    if not fn:
        print(f"unknown check {check}")
        return 1
    shutil.rmtree(workdir, ignore_errors=True)
    os.makedirs(workdir)
    try:
        rc = fn(Driver(os.path.abspath(exe), backend, workdir))
    except Failure as e:
        print(f"FAILED: {check} ({backend}): {e}")
        return 1
    return rc or 0


if __name__ == "__main__":
    sys.exit(main())
