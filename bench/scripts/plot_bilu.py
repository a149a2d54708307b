#!/usr/bin/env python3
"""bench/scripts/plot_bilu.py: bench_bilu's JSON lines -> paper 000's Figures 6 and 7 (PNG) and a markdown table.

    build/bench/bench_bilu -json bilu.jsonl
    python3 bench/scripts/plot_bilu.py bilu.jsonl --out plots/        (or: ... < bilu.jsonl)

Writes, into --out (default: the current folder), for the single cubic grids of n unknowns per point (--n, default 6):
  bilu_fig6_factor.png  the factorization's time per grid point t_p (ns, log) against the grid's points (log), one line
                        per /gpu/cuda variant (double factors; the default variant 'auto' bold, its float factors
                        dotted), /cpu/omp, /cpu/ref (one thread) and cuSPARSE bsrilu02 (the faster solve policy,
                        without its analysis);
  bilu_fig7_solve.png   the same for one application (forward + backward sweep); cuSPARSE: the fastest of bsrsv2 (L
                        then U, either policy) and SpSV; the dashed grey line is the memory-traffic floor of the solve
                        (the model's bytes over the device copy bandwidth of the run);
and prints a markdown table (one row per case: t_p of the default variant, the best variant, /cpu/omp and cuSPARSE,
and the ratios) to stdout. Lines that are not JSON objects of bench "bilu" are skipped; when a measurement appears
twice, the later line wins. --no-plots prints the table only (no matplotlib needed); without --no-plots matplotlib
is required and its absence is an error that says so.
"""
import argparse
import math
import os
import sys

import bench_jsonl  # beside this script

CPU = ("/cpu/omp", "/cpu/ref")


def load(paths):
    return bench_jsonl.load(paths, "bilu")


def tp_table(recs):
    """{(problem, n): {(backend, variant, factors, op): record}} of the 'tp' lines (later lines win)"""
    out = {}
    for r in recs:
        if r.get("case") != "tp" or r.get("time_s") is None:
            continue
        key = (r["backend"], r["variant"], r.get("factors", "double"), r["op"])
        out.setdefault((r["problem"], r["n"]), {})[key] = r
    return out


def cases(recs):
    """(problem, n, points, grids, m) in the order measured"""
    seen, out = set(), []
    for r in recs:
        if r.get("case") == "tp" and (r["problem"], r["n"]) not in seen:
            seen.add((r["problem"], r["n"]))
            out.append((r["problem"], r["n"], r["points"], r.get("grids", 1), r.get("m", 0)))
    return out


def gpu_variants(recs):
    vs = []
    for r in recs:
        if r.get("case") == "tp" and r["backend"] == "/gpu/cuda" and "separate" not in r["variant"]:
            if r["variant"] not in vs:
                vs.append(r["variant"])
    return sorted(vs, key=lambda v: (v != "auto", vs.index(v)))


def cusparse_time(d, op):
    """the fastest cuSPARSE record of the op: bsrilu02_* for factor, bsrsv2_* / spsv_* for apply"""
    best = None
    for (be, var, fac, o), r in d.items():
        if be != "cusparse" or o != op or fac != "double":
            continue
        if best is None or r["time_s"] < best["time_s"]:
            best = r
    return best


def fmt(v, f="{:.2f}"):
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "-"
    return f.format(v)


def table(recs):
    T = tp_table(recs)
    vs = gpu_variants(recs)
    lines = ["| n | grid | points | op | auto t_p ns | best GPU | best t_p ns | omp t_p ns | cuSPARSE t_p ns | "
             "auto x omp | auto x cuSPARSE | best x cuSPARSE |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for prob, n, pts, _, _ in cases(recs):
        d = T[(prob, n)]
        for op in ("factor", "apply"):
            au = d.get(("/gpu/cuda", "auto", "double", op))
            best = None
            for v in vs:
                r = d.get(("/gpu/cuda", v, "double", op))
                if r and (best is None or r["time_s"] < best["time_s"]):
                    best = r
            om = d.get(("/cpu/omp", "auto", "double", op))
            cs = cusparse_time(d, op)
            t = lambda r: r["tp_ns"] if r else None
            ratio = lambda a, b: a["time_s"] / b["time_s"] if a and b else None
            lines.append("| %d | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                n, prob, pts, "solve" if op == "apply" else op, fmt(t(au), "{:.3f}"), best["variant"] if best else "-",
                fmt(t(best), "{:.3f}"), fmt(t(om)), fmt(t(cs), "{:.3f}"), fmt(ratio(om, au), "{:.1f}"),
                fmt(ratio(cs, au), "{:.1f}"), fmt(ratio(cs, best), "{:.1f}")))
    return "\n".join(lines)


def plot(recs, n, op, out, plt):
    """t_p against the points of the single cubic grids of n unknowns: one line per implementation"""
    T = tp_table(recs)
    cs_ = [c for c in cases(recs) if c[1] == n and c[3] == 1]
    if not cs_:
        return None
    cs_.sort(key=lambda c: c[2])
    fig, ax = plt.subplots(figsize=(7.5, 5.2))
    markers = "osD^v<>ph*"

    def line(label, pick, **kw):
        xs, ys = [], []
        for prob, _, pts, _, _ in cs_:
            r = pick(T[(prob, n)])
            if r and r.get("tp_ns"):
                xs.append(pts)
                ys.append(r["tp_ns"])
        if xs:
            ax.plot(xs, ys, label=label, **kw)

    for i, v in enumerate(gpu_variants(recs)):
        line("GPU " + v, lambda d, v=v: d.get(("/gpu/cuda", v, "double", op)), marker=markers[i % len(markers)],
             lw=2.4 if v == "auto" else 1.2, ms=5)
    line("GPU auto, float factors", lambda d: d.get(("/gpu/cuda", "auto", "float", op)), ls=":", marker=".",
         color="black")
    line("/cpu/omp", lambda d: d.get(("/cpu/omp", "auto", "double", op)), ls="--", marker="x", color="tab:gray")
    line("/cpu/ref (1 thread)", lambda d: d.get(("/cpu/ref", "auto", "double", op)), ls="--", marker="+",
         color="tab:brown")
    line("cuSPARSE " + ("bsrilu02" if op == "factor" else "bsrsv2/SpSV"), lambda d: cusparse_time(d, op), ls="-.",
         marker="s", color="tab:red", mfc="none")
    if op == "apply":  # the memory-traffic floor: the model's bytes per point over the copy bandwidth
        line("memory-traffic floor (model, double factors)",
             lambda d: (lambda r: dict(tp_ns=r["floor_s"] / r["points"] * 1e9) if r and r.get("floor_s") else None)(
                 d.get(("/gpu/cuda", "auto", "double", op))), ls="--", color="0.6", lw=1)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("grid points I J K (cubic grids %s)" % ", ".join("%d^3" % c[4] for c in cs_ if c[4]))
    ax.set_ylabel("t_p = T / (I J K)  [ns]")
    gpu = next((r.get("gpu") for r in recs if r.get("gpu")), "GPU")
    what = "factorization" if op == "factor" else "triangular solve (forward + backward sweep)"
    fig_no = 6 if op == "factor" else 7
    ax.set_title("block ILU(0), n = %d: %s\n(paper 000's Fig. %d style; %s)" % (n, what, fig_no, gpu), fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, ncol=2)
    fig.tight_layout()
    p = os.path.join(out, "bilu_fig%d_%s.png" % (fig_no, "factor" if op == "factor" else "solve"))
    fig.savefig(p, dpi=120)
    plt.close(fig)
    return p


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("files", nargs="*", help="JSON-lines files (default: stdin)")
    ap.add_argument("--out", default=".", help="folder for the PNG files")
    ap.add_argument("--n", type=int, default=6, help="unknowns per point of the plotted grids (default 6)")
    ap.add_argument("--no-plots", action="store_true", help="print the table only")
    a = ap.parse_args(argv)
    recs = load(a.files)
    if not any(r.get("case") == "tp" for r in recs):
        print("no bench_bilu 'tp' records found", file=sys.stderr)
        return 1
    print(table(recs))
    if a.no_plots:
        return 0
    try:
        import matplotlib
    except ImportError:
        print("plot_bilu.py: matplotlib is not installed for %s; install it (pip install matplotlib) or pass "
              "--no-plots for the table alone" % sys.executable, file=sys.stderr)
        return 2
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    os.makedirs(a.out, exist_ok=True)
    wrote = 0
    for op in ("factor", "apply"):
        p = plot(recs, a.n, op, a.out, plt)
        if p:
            print("wrote %s" % p, file=sys.stderr)
            wrote += 1
    if not wrote:
        print("no single-grid cases with n = %d to plot" % a.n, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
