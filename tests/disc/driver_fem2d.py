#!/usr/bin/env python3
"""tests/disc/driver_fem2d.py: `pdesolve solve/gen -problem fem2d` end to end (Python 3 standard library only).

usage: driver_fem2d.py PDESOLVE BACKEND WORKDIR

The paper's problem on ~107 nodes within 0.2% at every node (the result line's err_pct); the symmetric form with
CG gives the row form's solution; -json carries the mesh, its quality and the errors; -vtk writes the three fields;
`gen` writes a mesh that `solve -mesh` reads back to the same system; -rcm gives the same errors; bad flag
combinations are errors that name the flag; injected allocation failures are PDS_ERR_MEM, exit 1; -help lists the
fem2d flags. Exit 0 pass, 1 fail.
"""
import json
import os
import re
import shutil
import subprocess
import sys

RESULT_RE = re.compile(
    r"^result: solver=(?P<solver>\S+) pc=(?P<pc>\S+) backend=(?P<backend>\S+) n=(?P<n>\d+) nnz=(?P<nnz>\d+) "
    r"iterations=(?P<iterations>\d+) reason=(?P<reason>[a-z_]+) rnorm0=\S+ rnorm=\S+ rel=\S+ t_setup=\S+ t_solve=\S+"
    r"(?: err_inf=\S+)?(?: disc_err=(?P<disc_err>\S+))?(?: err_l2=(?P<err_l2>\S+))?(?: err_pct=(?P<err_pct>\S+))?$")
FEM_FLAGS = ["-nodes", "-domain", "-seed", "-mesh", "-rcm", "-fem", "-dirichlet", "-vtk"]


class Failure(Exception):
    pass


def ensure(cond, msg):
    if not cond:
        raise Failure(msg)


def main():
    exe, backend, work = sys.argv[1], sys.argv[2], sys.argv[3]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)

    def run(*args, rc=0, be=True):
        cmd = [exe] + [str(a) for a in args] + (["-backend", backend] if be else [])
        p = subprocess.run(cmd, cwd=work, capture_output=True, text=True, timeout=300)
        ensure(p.returncode == rc, f"{' '.join(cmd)}: exit {p.returncode}, expected {rc}\n{p.stdout[-2000:]}\n{p.stderr}")
        return p

    def result(p):
        m = RESULT_RE.match(p.stdout.rstrip("\n").split("\n")[-1])
        ensure(m, f"no result line in {p.stdout[-800:]!r}")
        r = m.groupdict()
        for k in ("disc_err", "err_l2", "err_pct"):
            r[k] = float(r[k]) if r[k] is not None else None
        return r

    # the paper's problem on the size of its grid 1, plain BiCGSTAB as the paper
    r = result(run("solve", "-problem", "fem2d", "-nodes", 107, "-rtol", 1e-12, "-json", "p.json", "-vtk", "p.vtu"))
    ensure(100 <= int(r["n"]) <= 115 and r["err_pct"] is not None and r["err_pct"] < 0.2,
           f"paper, 107 nodes: {r}")
    with open(os.path.join(work, "p.json")) as f:
        rep = json.load(f)
    fem = rep.get("fem2d", {})
    for k in ("problem", "dirichlet", "domain", "nodes", "triangles", "boundary_edges", "dirichlet_nodes",
              "min_angle_deg", "max_aspect", "t_create", "t_assemble", "t_upload", "err_l2", "err_inf", "err_pct"):
        ensure(k in fem, f"-json: fem2d.{k} missing: {fem}")
    ensure(fem["nodes"] == int(r["n"]) and fem["min_angle_deg"] > 10 and abs(fem["err_pct"] - r["err_pct"]) <= 1e-6 *
           r["err_pct"], f"-json: {fem} vs {r}")
    with open(os.path.join(work, "p.vtu")) as f:
        vtu = f.read()
    for name in ("solution", "exact", "error"):
        ensure(name in vtu, f"-vtk: no field {name}")
    # symmetric + CG = row + BiCGSTAB (manufactured, hole)
    rs = result(run("solve", "-problem", "fem2d", "-nodes", 2000, "-domain", "hole", "-fem", "manufactured",
                    "-dirichlet", "symmetric", "-solver", "cg", "-pc", "jacobi", "-rtol", 1e-13))
    rr = result(run("solve", "-problem", "fem2d", "-nodes", 2000, "-domain", "hole", "-fem", "manufactured",
                    "-solver", "bicgstab", "-pc", "jacobi", "-rtol", 1e-13))
    ensure(rs["err_pct"] is None and abs(rs["err_l2"] - rr["err_l2"]) <= 1e-9 * rr["err_l2"] and rs["nnz"] == rr["nnz"],
           f"symmetric {rs} vs row {rr}")
    # gen writes the mesh; solve -mesh reads it back: the same system, the same errors
    run("gen", "-problem", "fem2d", "-nodes", 800, "-fem", "manufactured", "-o", "g")
    for suffix in ("A.mtx", "b.mtx", "u.mtx", "mesh.msh"):
        ensure(os.path.isfile(os.path.join(work, "g_" + suffix)), f"gen did not write g_{suffix}")
    r1 = result(run("solve", "-problem", "fem2d", "-nodes", 800, "-fem", "manufactured", "-rtol", 1e-12))
    r2 = result(run("solve", "-mesh", "g_mesh.msh", "-fem", "manufactured", "-rtol", 1e-12))
    ensure(r1["n"] == r2["n"] and r1["nnz"] == r2["nnz"] and r1["iterations"] == r2["iterations"] and
           r1["err_l2"] == r2["err_l2"], f"generated {r1} vs read back {r2}")
    r3 = result(run("solve", "-mesh", "g_mesh.msh", "-fem", "manufactured", "-rtol", 1e-12, "-rcm"))
    ensure(r3["nnz"] == r1["nnz"] and abs(r3["err_l2"] - r1["err_l2"]) <= 1e-8 * r1["err_l2"], f"-rcm {r3} vs {r1}")
    # the generic generator path
    r4 = result(run("solve", "-problem", "fem2d", "-nodes", 107, "-rtol", 1e-12))
    ensure(r4["n"] == r["n"] and r4["err_pct"] == r["err_pct"], f"{r4} vs {r}")
    # bad combinations name the flag
    for args, word in ((["-problem", "fem2d"], "-nodes"), (["-problem", "fem2d", "-n", 100], "-n"),
                       (["-problem", "poisson7", "-n", 4, "-nodes", 100], "-nodes"),
                       (["-problem", "poisson7", "-n", 4, "-vtk", "x.vtu"], "-vtk"),
                       (["-problem", "fem2d", "-nodes", 100, "-mesh", "g_mesh.msh"], "-mesh"),
                       (["-mesh", "g_mesh.msh", "-domain", "hole"], "-domain"),
                       (["-problem", "fem2d", "-nodes", 100, "-fem", "nosuch"], "nosuch"),
                       (["-problem", "fem2d", "-nodes", 100, "-dirichlet", "both"], "both"),
                       (["-mesh", "/nonexistent/m.msh"], "m.msh")):
        p = run("solve", *args, rc=1, be=False)
        ensure("pdesolve: error:" in p.stderr and word in p.stderr, f"solve {args}: {p.stderr!r} lacks {word!r}")
    # injected allocation failures (PDS_ALLOC_FAIL=k, every k until the run succeeds): exit 1 with PDS_ERR_MEM, never
    # a crash (in a sanitizer build, never a leak: LeakSanitizer would change the exit status)
    for args in (("solve", "-problem", "fem2d", "-nodes", 60, "-fem", "manufactured", "-dirichlet", "symmetric",
                  "-solver", "cg", "-json", "a.json", "-vtk", "a.vtu"),
                 ("gen", "-problem", "fem2d", "-nodes", 60, "-o", "a")):
        for k in range(100000):
            cmd = [exe] + [str(a) for a in args] + ["-backend", backend]
            p = subprocess.run(cmd, cwd=work, capture_output=True, text=True, timeout=120,
                               env=dict(os.environ, PDS_ALLOC_FAIL=str(k)))
            if p.returncode == 0:
                break
            ensure(p.returncode == 1 and "PDS_ERR_MEM" in p.stderr,
                   f"PDS_ALLOC_FAIL={k} {' '.join(cmd)}: exit {p.returncode}\n{p.stderr[-1500:]}")
        ensure(k > 10, f"{args}: no allocation failed?")
    # help lists every fem2d flag with a default (or required)
    for cmd, flags in (("solve", FEM_FLAGS), ("gen", FEM_FLAGS[:-1])):
        p = run(cmd, "-help", be=False)
        for flag in flags:
            ensure(re.search(r"^  " + re.escape(flag) + r"( |$)", p.stdout, re.M), f"{cmd} -help: no {flag}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Failure as e:
        print("driver_fem2d.py: FAILED: " + str(e), file=sys.stderr)
        sys.exit(1)
