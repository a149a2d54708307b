#!/usr/bin/env python3
"""bench/scripts/plot_fem2d.py: bench_fem2d_gpu's JSON lines -> paper 004's figures (PNG) and a markdown table.

    build/bench/bench_fem2d_gpu > fem2d.jsonl 2> fem2d.log
    python3 bench/scripts/plot_fem2d.py fem2d.jsonl --out plots/        (or: ... < fem2d.jsonl)

Writes, into --out (default: the current folder):
  fem2d_speedup.png   paper figs 7.3-7.5: GPU speedup vs grid size (log x) for SpMV, BiCGSTAB (per iteration) and
                      the whole code, each over /cpu/ref (1 core) and /cpu/omp (all cores); extrapolated CPU solves
                      are drawn hollow;
  fem2d_spmv.png      SpMV variants (pdesolve, cuSPARSE, the paper's one- and two-kernel CSR), the assembly kernels
                      and BiCGSTAB, as a fraction of the device copy bandwidth vs grid size;
  fem2d_launch.png    launch-configuration sweeps on one grid (--grid N, default the largest swept one): pdesolve's
                      SpMV plans, the assembly kernels' configurations, the paper kernels' blocksPerGrid x
                      threadsPerBlock; the automatic (or Table 8.1) choice is marked with a star, the best with a box;
  fem2d_precision.png paper 004's float-vs-double figure: BiCGSTAB's residual 2-norm against the iteration on grids 1,
                      3 and 5 (--precision-grids), in double, single and mixed precision (log y), the paper's
                      ||r||_2 <= 1e-6 line dashed;
and prints a markdown table (one row per grid) to stdout. Lines that are not JSON objects of bench "fem2d_gpu" are
skipped; when a case appears twice, the later line wins. --no-plots prints the table only (no matplotlib needed).
"""
import argparse
import math
import os
import sys

import bench_jsonl  # beside this script


def load(paths):
    return bench_jsonl.load(paths, "fem2d_gpu")


def pick(recs, case, **kv):
    """records of a case whose fields equal kv (later lines win per grid)"""
    out = {}
    for r in recs:
        if r.get("case") != case:
            continue
        if all(r.get(k) == v for k, v in kv.items()):
            out[r.get("n")] = r
    return out


def grids(recs):
    g = {}
    for r in recs:
        if "n" in r:
            g[r["n"]] = r
    return [g[n] for n in sorted(g)]


def fmt(v, f="{:.2f}", scale=1.0):
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return ""
    return f.format(v * scale)


def table(recs):
    gs = grids(recs)
    pd = pick(recs, "spmv", variant="pdesolve")
    sp = pick(recs, "spmv", variant="cusparse")
    p1, p2 = {}, {}  # the paper kernels: the better of Table 8.1's launch and the best of the sweep (as the log's table)
    for v, d in (("paper1", p1), ("paper2", p2)):
        for launch in ("table8.1", "best"):
            for n, r in pick(recs, "spmv", variant=v, launch=launch).items():
                if n not in d or r["time_s"] < d[n]["time_s"]:
                    d[n] = r
    plan = pick(recs, "spmv_plan_summary")
    bg = pick(recs, "bicgstab", backend="/gpu/cuda")
    ak = pick(recs, "assembly_kernels", phase="both")
    asw = pick(recs, "assembly_sweep_summary")
    aapi = pick(recs, "assembly_api", backend="/gpu/cuda")
    wg = pick(recs, "whole", backend="/gpu/cuda")
    wr = pick(recs, "whole", backend="/cpu/ref")
    wo = pick(recs, "whole", backend="/cpu/omp")
    copy = [r for r in recs if r.get("case") == "copy"]
    lines = []
    if gs:
        lines.append(f"paper 004 on {gs[0].get('gpu', '?')} ({gs[0].get('machine', '?')})"
                     + (f", device copy bandwidth {copy[-1]['gbs']:.0f} GB/s" if copy else ""))
        lines.append("")
    hdr = ["grid", "nodes", "nnz", "SpMV us", "cuSPARSE us", "pds/cuSP", "SpMV %copy", "paper 1k us", "paper 2k us",
           "plan auto/best", "BiCGSTAB its", "us/it", "floor x", "per-it x ref", "per-it x omp", "asm %copy",
           "asm auto/best", "assemble GPU 1st/rep s", "whole GPU s", "whole x ref", "whole x omp"]
    lines.append("| " + " | ".join(hdr) + " |")
    lines.append("|" + "---|" * len(hdr))
    for g in gs:
        n = g["n"]

        def whole(d):
            r = d.get(n)
            if not r:
                return ""
            s = fmt(r.get("gpu_speedup"), "{:.1f}")
            return s + ("*" if r.get("extrapolated") else "")

        a = aapi.get(n, {})
        row = [str(g.get("grid", "")), str(n), str(g.get("nnz", "")),
               fmt(pd.get(n, {}).get("time_s"), "{:.1f}", 1e6), fmt(sp.get(n, {}).get("time_s"), "{:.1f}", 1e6),
               fmt(pd.get(n, {}).get("vs_cusparse"), "{:.2f}x"), fmt(pd.get(n, {}).get("frac_copy"), "{:.0f}", 100),
               fmt(p1.get(n, {}).get("time_s"), "{:.1f}", 1e6), fmt(p2.get(n, {}).get("time_s"), "{:.1f}", 1e6),
               fmt(plan.get(n, {}).get("auto_over_best"), "{:.3f}"),
               str(bg.get(n, {}).get("iterations", "")), fmt(bg.get(n, {}).get("time_per_it_s"), "{:.1f}", 1e6),
               fmt(bg.get(n, {}).get("per_it_over_floor"), "{:.2f}"),
               fmt(bg.get(n, {}).get("speedup_per_it_vs_ref"), "{:.1f}"),
               fmt(bg.get(n, {}).get("speedup_per_it_vs_omp"), "{:.1f}"),
               fmt(ak.get(n, {}).get("frac_copy"), "{:.0f}", 100), fmt(asw.get(n, {}).get("auto_over_best"), "{:.3f}"),
               (fmt(a.get("t_first_s"), "{:.4f}") + " / " + fmt(a.get("t_repeat_s"), "{:.4f}")) if a else "",
               fmt(wg.get(n, {}).get("time_s"), "{:.3f}"), whole(wr), whole(wo)]
        lines.append("| " + " | ".join(row) + " |")
    if any(r.get("extrapolated") for r in list(wr.values()) + list(wo.values())):
        lines.append("")
        lines.append("\\* CPU solve extrapolated: its time per iteration x the iteration count to convergence on the GPU.")
    rc = [r for r in recs if r.get("case") == "rcm"]
    if rc:
        lines.append("")
        lines.append("| grid | nodes | numbering | mean abs(i-j) | pdesolve us | cuSPARSE us | pds/cuSP |")
        lines.append("|---|---|---|---|---|---|---|")
        for g in gs:
            n = g["n"]
            for num in ("generator", "rcm", "random"):
                p = pick(recs, "rcm", numbering=num, variant="pdesolve").get(n)
                c = pick(recs, "rcm", numbering=num, variant="cusparse").get(n)
                if p:
                    lines.append(f"| {g.get('grid', '')} | {n} | {num} | {fmt(p.get('mean_abs_i_minus_j'), '{:.0f}')} | "
                                 f"{fmt(p.get('time_s'), '{:.1f}', 1e6)} | "
                                 f"{fmt(c.get('time_s') if c else None, '{:.1f}', 1e6)} | "
                                 f"{fmt(p.get('vs_cusparse'), '{:.2f}x')} |")
    return "\n".join(lines)


def plot_speedup(recs, out, plt):
    fig, axs = plt.subplots(1, 3, figsize=(15, 4.5))
    pd = pick(recs, "spmv", variant="pdesolve")
    p2 = pick(recs, "spmv", variant="paper2", launch="best")
    cref = pick(recs, "spmv", variant="cpu", backend="/cpu/ref")
    bg = pick(recs, "bicgstab", backend="/gpu/cuda")
    panels = [
        ("SpMV (paper fig 7.3)", [
            ("pdesolve vs /cpu/ref", {n: r.get("speedup_vs_ref") for n, r in pd.items()}, {}, "C0", "-"),
            ("pdesolve vs /cpu/omp", {n: r.get("speedup_vs_omp") for n, r in pd.items()}, {}, "C1", "-"),
            ("paper 2-kernel (best launch) vs /cpu/ref",
             {n: cref[n]["time_s"] / r["time_s"] for n, r in p2.items() if n in cref}, {}, "0.5", "--"),
        ]),
        ("BiCGSTAB, per iteration (paper fig 7.4)", [
            ("vs /cpu/ref", {n: r.get("speedup_per_it_vs_ref") for n, r in bg.items()}, {}, "C0", "-"),
            ("vs /cpu/omp", {n: r.get("speedup_per_it_vs_omp") for n, r in bg.items()}, {}, "C1", "-"),
        ]),
    ]
    whole = []
    for be, col in (("/cpu/ref", "C0"), ("/cpu/omp", "C1")):
        d = pick(recs, "whole", backend=be)
        whole.append((f"vs {be}", {n: r.get("gpu_speedup") for n, r in d.items()},
                      {n: bool(r.get("extrapolated")) for n, r in d.items()}, col, "-"))
    panels.append(("whole code (paper fig 7.5)", whole))
    for ax, (title, series) in zip(axs, panels):
        for label, d, extra, col, ls in series:
            xs = sorted(n for n, v in d.items() if v is not None)
            if not xs:
                continue
            ys = [d[n] for n in xs]
            ax.plot(xs, ys, ls, color=col, label=label)
            for x, y in zip(xs, ys):
                hollow = extra.get(x, False)
                ax.plot([x], [y], "o", color=col, markerfacecolor="white" if hollow else col)
        ax.axhline(1.0, color="k", lw=0.8, ls=":")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("grid size (nodes)")
        ax.set_ylabel("GPU speedup (time ratio)")
        ax.set_title(title)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    gs = grids(recs)
    if gs:
        fig.suptitle(f"paper 004 on {gs[0].get('gpu', '?')}: /gpu/cuda speedups (hollow: CPU solve extrapolated)")
    fig.tight_layout()
    p = os.path.join(out, "fem2d_speedup.png")
    fig.savefig(p, dpi=120)
    plt.close(fig)
    return p


def plot_spmv(recs, out, plt):
    fig, ax = plt.subplots(figsize=(8, 5))
    series = [
        ("pdesolve (pds_mat_apply)", pick(recs, "spmv", variant="pdesolve"), "C0", "-o"),
        ("cuSPARSE SpMV (best alg)", pick(recs, "spmv", variant="cusparse"), "C1", "-s"),
        ("paper 1-kernel, best launch", pick(recs, "spmv", variant="paper1", launch="best"), "C2", "-^"),
        ("paper 1-kernel, 736x384", pick(recs, "spmv", variant="paper1", launch="table8.1"), "C2", ":^"),
        ("paper 2-kernel, best launch", pick(recs, "spmv", variant="paper2", launch="best"), "C3", "-v"),
        ("paper 2-kernel, Table 8.1", pick(recs, "spmv", variant="paper2", launch="table8.1"), "C3", ":v"),
        ("assembly kernels (element + gather)", pick(recs, "assembly_kernels", phase="both"), "C4", "--D"),
    ]
    for label, d, col, st in series:
        xs = sorted(n for n, r in d.items() if r.get("frac_copy") is not None)
        if xs:
            ax.plot(xs, [d[n]["frac_copy"] for n in xs], st, color=col, label=label)
    bg = pick(recs, "bicgstab", backend="/gpu/cuda")
    xs = sorted(n for n, r in bg.items() if r.get("frac_copy") is not None)
    if xs:
        ax.plot(xs, [bg[n]["frac_copy"] for n in xs], "--x", color="C5", label="BiCGSTAB iteration (floor bytes)")
    ax.set_xscale("log")
    ax.set_xlabel("grid size (nodes)")
    ax.set_ylabel("fraction of the device copy bandwidth")
    ax.set_ylim(bottom=0)
    ax.grid(True, which="both", alpha=0.3)
    copy = [r for r in recs if r.get("case") == "copy"]
    ax.set_title("SpMV y = A x (12 nnz + 8 (n+1) + 16 n bytes)" + (f"; copy {copy[-1]['gbs']:.0f} GB/s" if copy else ""))
    ax.legend(fontsize=8)
    fig.tight_layout()
    p = os.path.join(out, "fem2d_spmv.png")
    fig.savefig(p, dpi=120)
    plt.close(fig)
    return p


def heat(ax, plt, recs, n, kernel, mark=None):
    rs = [r for r in recs if r.get("case") == "paper_sweep" and r.get("n") == n and r.get("kernel") == kernel]
    if not rs:
        ax.set_visible(False)
        return
    tpbs = sorted({r["tpb"] for r in rs})
    keys = sorted({("cover" if r.get("cover") else r["bpg"]) for r in rs}, key=lambda k: (k == "cover", k if k != "cover" else 0))
    grid = [[float("nan")] * len(keys) for _ in tpbs]
    for r in rs:
        k = "cover" if r.get("cover") else r["bpg"]
        grid[tpbs.index(r["tpb"])][keys.index(k)] = 1e6 * r["time_s"]
    im = ax.imshow(grid, aspect="auto", origin="lower", cmap="viridis_r",
                   norm=plt.matplotlib.colors.LogNorm())
    ax.set_xticks(range(len(keys)))
    ax.set_xticklabels([str(k) for k in keys], rotation=45, fontsize=7)
    ax.set_yticks(range(len(tpbs)))
    ax.set_yticklabels([str(t) for t in tpbs], fontsize=7)
    ax.set_xlabel("blocksPerGrid")
    ax.set_ylabel("threadsPerBlock")
    best = min(rs, key=lambda r: r["time_s"])
    bk = "cover" if best.get("cover") else best["bpg"]
    ax.add_patch(plt.Rectangle((keys.index(bk) - 0.5, tpbs.index(best["tpb"]) - 0.5), 1, 1, fill=False, ec="red", lw=2))
    if mark and mark[0] in keys and mark[1] in tpbs:
        ax.plot([keys.index(mark[0])], [tpbs.index(mark[1])], "*", color="white", ms=12, mec="k")
    ax.set_title(f"paper {kernel} (us; box best {1e6 * best['time_s']:.0f})", fontsize=9)
    plt.colorbar(im, ax=ax)


def plot_launch(recs, out, plt, grid_n=None):
    swept = sorted({r["n"] for r in recs if r.get("case") in ("paper_sweep", "assembly_sweep", "spmv_plan")})
    if not swept:
        return None
    if grid_n is None:
        ps = sorted({r["n"] for r in recs if r.get("case") == "paper_sweep"})
        grid_n = (ps or swept)[-1]
    else:
        cand = [n for n in swept if n == grid_n] or [min(swept, key=lambda n: abs(n - grid_n))]
        grid_n = cand[0]
    fig, axs = plt.subplots(2, 3, figsize=(16, 9))
    # (a) pdesolve SpMV plans
    ax = axs[0][0]
    plans = [r for r in recs if r.get("case") == "spmv_plan" and r.get("n") == grid_n and "time_s" in r]
    if plans:
        names = [r["plan"] for r in plans]
        ts = [1e6 * r["time_s"] for r in plans]
        bars = ax.bar(names, ts, color=["C0" if not r.get("auto") else "C3" for r in plans])
        b = min(range(len(ts)), key=lambda i: ts[i])
        bars[b].set_edgecolor("k")
        bars[b].set_linewidth(2)
        for i, r in enumerate(plans):
            if r.get("auto"):
                ax.plot([i], [ts[i] * 1.03], "*", color="C3", ms=12)
        s = pick(recs, "spmv_plan_summary").get(grid_n, {})
        ax.set_title(f"pdesolve SpMV plans (star: auto {s.get('auto_plan', '?')}, auto/best "
                     f"{fmt(s.get('auto_over_best'), '{:.3f}')})", fontsize=9)
        ax.set_ylabel("time (us)")
    # (b) assembly element kernel
    ax = axs[0][1]
    el = [r for r in recs if r.get("case") == "assembly_sweep" and r.get("n") == grid_n and r.get("phase") == "element"]
    if el:
        xs = [str(r["elem_threads"]) for r in el]
        ts = [1e6 * r["time_s"] for r in el]
        ax.bar(xs, ts, color=["C3" if r.get("auto") else "C0" for r in el])
        for i, r in enumerate(el):
            if r.get("auto"):
                ax.plot([i], [ts[i] * 1.03], "*", color="C3", ms=12)
        ax.set_xlabel("elem_threads")
        ax.set_ylabel("time (us)")
        s = pick(recs, "assembly_sweep_summary").get(grid_n, {})
        ax.set_title(f"assembly element kernel (auto/best {fmt(s.get('element_auto_over_best'), '{:.3f}')})", fontsize=9)
    # (c) assembly gather kernel: lanes x threads
    ax = axs[0][2]
    ga = [r for r in recs if r.get("case") == "assembly_sweep" and r.get("n") == grid_n and r.get("phase") == "gather"]
    if ga:
        lanes = sorted({r["gather_lanes"] for r in ga})
        thr = sorted({r["gather_threads"] for r in ga})
        gridv = [[float("nan")] * len(thr) for _ in lanes]
        for r in ga:
            gridv[lanes.index(r["gather_lanes"])][thr.index(r["gather_threads"])] = 1e6 * r["time_s"]
        im = ax.imshow(gridv, aspect="auto", origin="lower", cmap="viridis_r", norm=plt.matplotlib.colors.LogNorm())
        ax.set_xticks(range(len(thr)))
        ax.set_xticklabels([str(t) for t in thr])
        ax.set_yticks(range(len(lanes)))
        ax.set_yticklabels([str(l) for l in lanes])
        ax.set_xlabel("gather_threads")
        ax.set_ylabel("gather_lanes")
        best = min(ga, key=lambda r: r["time_s"])
        ax.add_patch(plt.Rectangle((thr.index(best["gather_threads"]) - 0.5, lanes.index(best["gather_lanes"]) - 0.5), 1, 1,
                                   fill=False, ec="red", lw=2))
        for r in ga:
            if r.get("auto"):
                ax.plot([thr.index(r["gather_threads"])], [lanes.index(r["gather_lanes"])], "*", color="white", ms=12,
                        mec="k")
        s = pick(recs, "assembly_sweep_summary").get(grid_n, {})
        ax.set_title(f"assembly gather kernel, us (star auto, box best; auto/best "
                     f"{fmt(s.get('gather_auto_over_best'), '{:.3f}')})", fontsize=9)
        plt.colorbar(im, ax=ax)
    # (d-f) the paper's kernels: blocksPerGrid x threadsPerBlock (star: Table 8.1's value)
    heat(axs[1][0], plt, recs, grid_n, "onekernel", (736, 384))
    heat(axs[1][1], plt, recs, grid_n, "dataprod", (736, 384))
    heat(axs[1][2], plt, recs, grid_n, "dataadd", (40, 64))
    g = [r for r in recs if r.get("n") == grid_n]
    fig.suptitle(f"launch configurations, grid {g[0].get('grid', '?')} ({grid_n} nodes) on {g[0].get('gpu', '?')}")
    fig.tight_layout()
    p = os.path.join(out, "fem2d_launch.png")
    fig.savefig(p, dpi=120)
    plt.close(fig)
    return p


def precision_table(recs):
    rows = ["| grid | nodes | precision | its | reason | us/it | us/it x double | floor x | true ||r||_2 |",
            "|---|---|---|---|---|---|---|---|---|"]
    by = {}
    for r in recs:
        if r.get("case") == "precision":
            by[(r.get("n"), r.get("precision"))] = r
    for n in sorted({k[0] for k in by}):
        d = by.get((n, "double"))
        for p in ("double", "single", "mixed"):
            r = by.get((n, p))
            if not r:
                continue
            ratio = r["time_per_it_s"] / d["time_per_it_s"] if d and d.get("time_per_it_s") else None
            rows.append(f"| {r.get('grid', '')} | {n} | {p} | {r.get('iterations')} | {r.get('reason')} | "
                        f"{fmt(r.get('time_per_it_s'), '{:.1f}', 1e6)} | {fmt(ratio)} | "
                        f"{fmt(r.get('per_it_over_floor'))} | {fmt(r.get('true_rnorm'), '{:.2e}')} |")
    return "\n".join(rows) if len(rows) > 2 else ""


def plot_precision(recs, out, plt, want=(1, 3, 5)):
    by = {}
    for r in recs:
        if r.get("case") == "precision" and r.get("grid") in want and r.get("history"):
            by.setdefault(r["grid"], {})[r["precision"]] = r
    if not by:
        return None
    gl = [g for g in want if g in by]
    fig, axs = plt.subplots(1, len(gl), figsize=(5 * len(gl), 4), squeeze=False)
    style = {"double": ("C0", "-"), "single": ("C3", "-"), "mixed": ("C2", "--")}
    for ax, g in zip(axs[0], gl):
        n = None
        for p in ("double", "single", "mixed"):
            r = by[g].get(p)
            if not r:
                continue
            n = r.get("n")
            h = [v if v is not None else float("nan") for v in r["history"]]
            c, ls = style[p]
            ax.semilogy(range(len(h)), h, color=c, ls=ls, lw=1.2,
                        label=f"{p}: {r.get('iterations')} its, {r.get('reason')}")
        ax.axhline(1e-6, color="gray", ls=":", lw=1)
        ax.set_title(f"grid {g} ({n} nodes)")
        ax.set_xlabel("BiCGSTAB iteration")
        ax.set_ylabel("||r||_2 (tracked)")
        ax.legend(fontsize=8)
    fig.suptitle(f"BiCGSTAB in double, single and mixed precision on {by[gl[0]][next(iter(by[gl[0]]))].get('gpu', '?')}")
    fig.tight_layout()
    p = os.path.join(out, "fem2d_precision.png")
    fig.savefig(p, dpi=120)
    plt.close(fig)
    return p


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("files", nargs="*", help="JSON-lines files (default: stdin)")
    ap.add_argument("--out", default=".", help="folder for the PNG files")
    ap.add_argument("--grid", type=int, default=None, help="nodes of the grid for the launch plot (nearest taken)")
    ap.add_argument("--no-plots", action="store_true", help="print the table only")
    a = ap.parse_args(argv)
    recs = load(a.files)
    if not recs:
        print("no bench_fem2d_gpu records found", file=sys.stderr)
        return 1
    print(table(recs))
    pt = precision_table(recs)
    if pt:
        print()
        print(pt)
    if a.no_plots:
        return 0
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    os.makedirs(a.out, exist_ok=True)
    for p in (plot_speedup(recs, a.out, plt), plot_spmv(recs, a.out, plt), plot_launch(recs, a.out, plt, a.grid),
              plot_precision(recs, a.out, plt)):
        if p:
            print(f"wrote {p}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
