#!/usr/bin/env python3
"""bench/scripts/fv_picture.py: a picture of a `pdesolve fv` run (PNG): the Mach number in the cells that cross the
plane z = 0 (a slice of the .vtu that -vtk wrote, each cell drawn at its vertices' average) and the residual of every
step (the -json report).

    pdesolve fv -cells 60000 -steps 4000 -json fv.json -vtk fv.vtu
    python3 bench/scripts/fv_picture.py fv.vtu fv.json --out docs/img/fv_sphere.png [--zoom 2]

Reads the .vtu's ASCII arrays with the standard library; needs matplotlib for the picture."""
import argparse
import json
import sys
import xml.etree.ElementTree as ET


def arrays(path):
    """points, connectivity, offsets and the cell fields of an ASCII .vtu"""
    root = ET.parse(path).getroot()
    piece = root.find("UnstructuredGrid/Piece")
    num = lambda e: [float(t) for t in e.text.split()]
    pts = num(piece.find("Points/DataArray"))
    cells = {a.get("Name"): [int(float(t)) for t in a.text.split()] for a in piece.find("Cells")}
    fields = {a.get("Name"): num(a) for a in piece.find("CellData")} if piece.find("CellData") is not None else {}
    return pts, cells["connectivity"], cells["offsets"], fields


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("vtu")
    ap.add_argument("report")
    ap.add_argument("--out", default="fv_sphere.png")
    ap.add_argument("--zoom", type=float, default=2.0, help="half width of the picture around the origin")
    ap.add_argument("--field", default="mach")
    ap.add_argument("--radius", type=float, default=0.5, help="the sphere's radius: triangles inside it are not drawn")
    a = ap.parse_args()
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("fv_picture.py needs matplotlib (pip install matplotlib)")
    pts, conn, offs, fields = arrays(a.vtu)
    with open(a.report) as f:
        rep = json.load(f)
    val = fields[a.field]
    xs, ys, vs = [], [], []
    start = 0
    for c, end in enumerate(offs):
        vz = [pts[3 * v + 2] for v in conn[start:end]]
        if min(vz) <= 0 <= max(vz):  # the cell crosses z = 0
            n = end - start
            x = sum(pts[3 * v] for v in conn[start:end]) / n
            y = sum(pts[3 * v + 1] for v in conn[start:end]) / n
            if abs(x) <= a.zoom and abs(y) <= a.zoom:
                xs.append(x), ys.append(y), vs.append(val[c])
        start = end
    fig, ax = plt.subplots(1, 2, figsize=(11, 4.6), gridspec_kw={"width_ratios": [1.15, 1]})
    import matplotlib.tri as mtri

    tri = mtri.Triangulation(xs, ys)
    cx = [sum(xs[i] for i in t) / 3 for t in tri.triangles]
    cy = [sum(ys[i] for i in t) / 3 for t in tri.triangles]
    tri.set_mask([x * x + y * y < a.radius * a.radius for x, y in zip(cx, cy)])
    tc = ax[0].tripcolor(tri, vs, shading="gouraud", cmap="viridis")
    fig.colorbar(tc, ax=ax[0], label=a.field)
    ax[0].set_aspect("equal")
    ax[0].set_title("%s at z = 0: %d cells, Mach %.2g, %d steps" % (a.field, rep["cells"], rep["mach"], rep["steps"]),
                    fontsize=9)
    ax[1].semilogy(range(1, len(rep["residuals"]) + 1), rep["residuals"])
    ax[1].set_xlabel("step")
    ax[1].set_ylabel("||R||_2")
    ax[1].set_title("residual of every step (%s, CFL %.2g)" % (rep["backend"], rep["cfl"]), fontsize=9)
    ax[1].grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(a.out, dpi=110)
    print("wrote %s (%d cells in the slice)" % (a.out, len(xs)))


if __name__ == "__main__":
    main()
