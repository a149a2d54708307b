#!/usr/bin/env python3
"""tests/disc/assemble_ref.py: pdesolve's P1 assembly against an independent NumPy assembly of the same mesh.

usage: assemble_ref.py --pdesolve EXE --backend BACKEND --workdir DIR

For each case, `pdesolve gen -problem fem2d -nodes 500 ...` writes PREFIX_A.mtx, PREFIX_b.mtx, PREFIX_u.mtx and the
mesh PREFIX_mesh.msh (Gmsh 2.2). This script reads the mesh, assembles -div(grad u) = f with linear triangles itself
(element stiffness (b b^T + c c^T) / (4 A), load f A/3 or the edge-midpoint rule, Dirichlet rows or symmetric
elimination at the nodes of tagged boundary lines), evaluates the exact solution (the paper's by its Fourier
series, written here independently) and checks pdesolve's files: the same stored pattern (the mesh graph with the
diagonal), values and right-hand side within 1e-13 relative, exact solution within 1e-12.
Exit 0 when every case agrees, 1 otherwise (also when NumPy is missing: a missing reference is a failure).
"""
import argparse
import math
import os
import subprocess
import sys

try:
    import numpy as np
except ImportError:
    print("assemble_ref.py: FAILED: NumPy is missing in " + sys.executable + ". Run `make test` (it sets up a "
          "Python with NumPy and SciPy) or configure with -DPDS_PYTHON=/path/to/python-with-numpy.", file=sys.stderr)
    sys.exit(1)

CASES = [  # (problem, dirichlet, domain)
    ("paper", "row", "square"),
    ("paper", "symmetric", "square"),
    ("manufactured", "row", "hole"),
    ("manufactured", "symmetric", "hole"),
    ("manufactured", "symmetric", "square"),
]


class Failure(Exception):
    pass


def read_msh22(path):
    """Nodes (n x 2), triangles (t x 3, 0-based), and the nodes of line elements with a physical tag > 0."""
    with open(path) as f:
        lines = f.read().split("\n")
    k = 0
    ids, xy, tri, marked = [], [], [], set()
    while k < len(lines):
        s = lines[k].strip()
        if s == "$MeshFormat":
            ver = lines[k + 1].split()
            if not ver[0].startswith("2.") or ver[1] != "0":
                raise Failure(f"{path}: expected an ASCII MSH 2.x file, got {lines[k + 1]!r}")
        elif s == "$Nodes":
            n = int(lines[k + 1])
            for line in lines[k + 2:k + 2 + n]:
                t = line.split()
                ids.append(int(t[0]))
                xy.append((float(t[1]), float(t[2])))
            k += n + 1
        elif s == "$Elements":
            ne = int(lines[k + 1])
            elems = [lines[j].split() for j in range(k + 2, k + 2 + ne)]
            k += ne + 1
        k += 1
    index = {v: i for i, v in enumerate(ids)}
    for t in elems:
        etype, ntags = int(t[1]), int(t[2])
        tags, nodes = [int(v) for v in t[3:3 + ntags]], [index[int(v)] for v in t[3 + ntags:]]
        if etype == 2:
            tri.append(nodes)
        elif etype == 1 and tags and tags[0] > 0:
            marked.update(nodes)
    return np.array(xy), np.array(tri, dtype=np.int64), marked


def read_mm(path):
    with open(path) as f:
        banner = f.readline().split()
        line = f.readline()
        while line.startswith("%"):
            line = f.readline()
        size = [int(v) for v in line.split()]
        data = f.read().split()
    if banner[2] == "array":
        return np.array([float(v) for v in data])
    if banner[4] != "general":
        raise Failure(f"{path}: expected a general matrix, got {banner[4]}")
    a = np.array(data, dtype=object).reshape(-1, 3)
    return size[0], a[:, 0].astype(np.int64) - 1, a[:, 1].astype(np.int64) - 1, a[:, 2].astype(float)


def paper_w(x, y, mterms=20001):
    """-lap w = 1 on the unit square, w = 0 on the boundary: the single series in whichever variable decays faster,
    with a fixed, generous number of terms (the nodes here are >= 0.01 from a corner)."""
    w = np.zeros_like(x)
    for i in range(len(x)):
        dx, dy = min(x[i], 1 - x[i]), min(y[i], 1 - y[i])
        if dx <= 0 or dy <= 0:
            continue
        s, t = (x[i], y[i]) if dy >= dx else (y[i], x[i])
        m = np.arange(1, mterms + 1, 2, dtype=float)
        # cosh(m pi (t - 1/2)) / cosh(m pi / 2), overflow-free
        a = abs(t - 0.5)
        ratio = (np.exp(m * math.pi * (a - 0.5)) + np.exp(-m * math.pi * (a + 0.5))) / (1 + np.exp(-m * math.pi))
        w[i] = s * (1 - s) / 2 - np.sum(4 / (math.pi ** 3 * m ** 3) * np.sin(m * math.pi * s) * ratio)
    return w


def mms_u(x, y):
    return np.sin(math.pi * x) * np.cos(math.pi * y) + x * x * y


def mms_f(x, y):
    return 2 * math.pi ** 2 * np.sin(math.pi * x) * np.cos(math.pi * y) - 2 * y


def reference(xy, tri, marked, problem, dirichlet):
    n = len(xy)
    p = [xy[tri[:, k]] for k in range(3)]  # t x 2 each
    # b_i = y_{i+1} - y_{i+2}, c_i = x_{i+2} - x_{i+1}
    bb = np.stack([p[(k + 1) % 3][:, 1] - p[(k + 2) % 3][:, 1] for k in range(3)], axis=1)
    cc = np.stack([p[(k + 2) % 3][:, 0] - p[(k + 1) % 3][:, 0] for k in range(3)], axis=1)
    area = 0.5 * np.abs((p[1][:, 0] - p[0][:, 0]) * (p[2][:, 1] - p[0][:, 1])
                        - (p[2][:, 0] - p[0][:, 0]) * (p[1][:, 1] - p[0][:, 1]))
    Ke = (bb[:, :, None] * bb[:, None, :] + cc[:, :, None] * cc[:, None, :]) / (4 * area)[:, None, None]
    A = np.zeros((n, n))
    np.add.at(A, (tri[:, :, None], tri[:, None, :]), Ke)
    pattern = np.zeros((n, n), dtype=bool)
    pattern[tri[:, :, None], tri[:, None, :]] = True
    if problem == "paper":
        fe = np.repeat((10.0 * area / 3)[:, None], 3, axis=1)
        g = np.full(n, 10.0)
        u = 10 + 10 * paper_w(xy[:, 0], xy[:, 1])
    else:
        mid = [(p[k] + p[(k + 1) % 3]) / 2 for k in range(3)]  # edges 0-1, 1-2, 2-0
        fm = [mms_f(m[:, 0], m[:, 1]) for m in mid]
        fe = np.stack([fm[0] + fm[2], fm[0] + fm[1], fm[1] + fm[2]], axis=1) * (area / 6)[:, None]
        g = mms_u(xy[:, 0], xy[:, 1])
        u = g.copy()
    b = np.zeros(n)
    np.add.at(b, tri, fe)
    d = np.zeros(n, dtype=bool)
    d[list(marked)] = True
    if dirichlet == "symmetric":
        b[~d] -= A[np.ix_(~d, d)] @ g[d]
        A[:, d] = 0
    A[d, :] = 0
    A[d, d] = 1
    b[d] = g[d]
    return A, b, u, pattern


def run_case(args, problem, dirichlet, domain):
    prefix = os.path.join(args.workdir, f"{problem}_{dirichlet}_{domain}")
    cmd = [args.pdesolve, "gen", "-problem", "fem2d", "-nodes", "500", "-domain", domain, "-fem", problem,
           "-dirichlet", dirichlet, "-o", prefix, "-backend", args.backend]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        raise Failure(f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr.strip()}")
    xy, tri, marked = read_msh22(prefix + "_mesh.msh")
    n, rows, cols, vals = read_mm(prefix + "_A.mtx")
    bp, up = read_mm(prefix + "_b.mtx"), read_mm(prefix + "_u.mtx")
    if n != len(xy):
        raise Failure(f"{prefix}: A has {n} rows, the mesh {len(xy)} nodes")
    Ar, br, ur, pattern = reference(xy, tri, marked, problem, dirichlet)
    stored = np.zeros((n, n), dtype=bool)
    stored[rows, cols] = True
    if len(rows) != int(stored.sum()) or not np.array_equal(stored, pattern):
        raise Failure(f"{prefix}: the stored pattern ({len(rows)} entries) is not the mesh graph with the diagonal "
                      f"({int(pattern.sum())} entries)")
    Ap = np.zeros((n, n))
    Ap[rows, cols] = vals
    ea = np.abs(Ap - Ar).max() / np.abs(Ar).max()
    eb = np.abs(bp - br).max() / np.abs(br).max()
    eu = np.abs(up - ur).max()
    print(f"{problem:12s} {dirichlet:9s} {domain:6s} n={n} nnz={len(rows)} |dA|/|A|={ea:.2e} |db|/|b|={eb:.2e} "
          f"|du|={eu:.2e}")
    if not (ea <= 1e-13 and eb <= 1e-13 and eu <= 1e-12):
        raise Failure(f"{prefix}: pdesolve and the NumPy assembly differ: A {ea:.3g}, b {eb:.3g} (relative, "
                      f"limit 1e-13), u {eu:.3g} (limit 1e-12)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pdesolve", required=True)
    ap.add_argument("--backend", default="/cpu/ref")
    ap.add_argument("--workdir", required=True)
    args = ap.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    bad = []
    for case in CASES:
        try:
            run_case(args, *case)
        except Failure as e:
            bad.append(str(e))
    for b in bad:
        print("assemble_ref.py: FAILED: " + b, file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
