#!/usr/bin/env python3
"""bench/scripts/plot_relax.py: bench_relax's JSON lines -> paper 002's Figure 4 and a sweep-rate figure (PNG).

    build/bench/bench_relax -json relax.jsonl
    python3 bench/scripts/plot_relax.py relax.jsonl --out plots/

Writes, into --out (default: the current folder):
  relax_fig4_convergence.png  (a) ||r_3|| / ||r_0|| after 3 sweeps and (b) the asymptotic convergence factor against
                              the block size in cells (8 .. 512), one line per method (jacobi, multicolor, chaotic);
                              the paper's Fig. 4 with multicolour Gauss-Seidel added;
  relax_rates.png             cells per second per sweep on each patch set (paper 002 Fig. 7 and Table 2), one bar per
                              /gpu/cuda method and variant, the point-Jacobi sweep (the bandwidth reference) and the
                              best /cpu/omp variant; the paper's 56 Mcells/s (X2090, 8^3 blocks) as a line;
  relax_fig6_streams.png      host-resident patch sets streamed through the GPU (paper 002 Fig. 6): time of 3 chaotic
                              sweeps against the number of patches, (a) 16^3 and (b) 64^3 patches, depth-first on 4
                              and 16 slots, breadth-first, the device-resident sweeps and the host link's floor.
Lines that are not JSON objects of bench "relax" are skipped. Needs matplotlib (an error says so if it is missing).
"""
import os

import bench_jsonl  # beside this script


def main():
    R, plt, out, gpu = bench_jsonl.plot_setup(__doc__, "relax")

    conv = [r for r in R if r.get("case") == "conv"]
    if conv:
        fig, ax = plt.subplots(1, 2, figsize=(10, 4))
        for m, st in (("jacobi", "o-"), ("multicolor", "s-"), ("chaotic", "^-")):
            pts = sorted((r["cells"], r["r3"], r["factor"]) for r in conv if r["method"] == m)
            if not pts:
                continue
            ax[0].plot([p[0] for p in pts], [p[1] for p in pts], st, label=m)
            ax[1].plot([p[0] for p in pts], [p[2] for p in pts], st, label=m)
        for k, t in enumerate(("(a) relative residual after 3 sweeps", "(b) asymptotic convergence factor")):
            ax[k].set_xscale("log", base=2)
            ax[k].set_xlabel("block size (cells)")
            ax[k].set_title(t)
            ax[k].grid(alpha=0.3)
            ax[k].legend()
        fig.suptitle("block relaxation on a 64^3 patch, random start (paper 002 Fig. 4), %s" % gpu)
        fig.tight_layout()
        fig.savefig(os.path.join(out, "relax_fig4_convergence.png"), dpi=120)

    rate = [r for r in R if r.get("case") == "rate"]
    if rate:
        sets = []
        for r in rate:
            if r["set"] not in sets:
                sets.append(r["set"])
        series = []
        for r in rate:
            key = ("point-jacobi" if r["method"] == "point-jacobi" else
                   "%s %s" % (r["method"], r.get("variant", "")) if r["backend"] == "/gpu/cuda" else None)
            if key and key not in series:
                series.append(key)
        fig, ax = plt.subplots(figsize=(12, 4.5))
        w = 0.8 / (len(series) + 1)
        for k, s in enumerate(series):
            ys = []
            for st in sets:
                v = [r["gcells"] for r in rate if r["set"] == st and r["backend"] == "/gpu/cuda" and
                     (r["method"] == "point-jacobi" if s == "point-jacobi" else
                      "%s %s" % (r["method"], r.get("variant", "")) == s)]
                ys.append(v[0] if v else 0)
            ax.bar([i + k * w for i in range(len(sets))], ys, w, label="GPU " + s)
        ys = []
        for st in sets:
            v = [r["gcells"] for r in rate if r["set"] == st and r["backend"] == "/cpu/omp"]
            ys.append(max(v) if v else 0)
        ax.bar([i + len(series) * w for i in range(len(sets))], ys, w, label="/cpu/omp best", color="grey")
        ax.axhline(0.056, color="k", ls=":", label="paper 002, X2090, 8^3 (0.056)")
        ax.set_yscale("log")
        ax.set_xticks([i + 0.4 for i in range(len(sets))])
        ax.set_xticklabels(sets, rotation=20, fontsize=8)
        ax.set_ylabel("Gcells/s per sweep")
        ax.set_title("block relaxation sweep rate, %s" % gpu)
        ax.legend(fontsize=7, ncol=3)
        ax.grid(alpha=0.3, axis="y")
        fig.tight_layout()
        fig.savefig(os.path.join(out, "relax_rates.png"), dpi=120)

    streams = [r for r in R if r.get("case") == "stream"]
    if streams:
        edges = sorted({r["edge"] for r in streams})
        fig, ax = plt.subplots(1, len(edges), figsize=(5 * len(edges), 4), squeeze=False)
        for k, e in enumerate(edges):
            pts = sorted((r for r in streams if r["edge"] == e), key=lambda r: r["patches"])
            xs = [r["patches"] for r in pts]
            for key, lab, st in (("depth4_s", "depth-first, 4 slots", "o-"), ("depth16_s", "depth-first, 16 slots", "s-"),
                                 ("breadth_s", "breadth-first, all patches", "^-"),
                                 ("device_s", "device-resident (no transfers)", "k--"),
                                 ("floor_s", "host-link floor", "k:")):
                ax[0][k].plot(xs, [1e3 * r[key] for r in pts], st, label=lab)
            ax[0][k].set_xlabel("number of patches")
            ax[0][k].set_ylabel("ms for 3 sweeps")
            ax[0][k].set_title("(%s) patches of %d^3, 8^3 blocks" % ("ab"[k % 2], e))
            ax[0][k].grid(alpha=0.3)
            ax[0][k].legend(fontsize=7)
        fig.suptitle("chaotic block GS on host-resident patches (paper 002 Fig. 6), %s" % gpu)
        fig.tight_layout()
        fig.savefig(os.path.join(out, "relax_fig6_streams.png"), dpi=120)


if __name__ == "__main__":
    main()
