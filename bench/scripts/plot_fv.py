#!/usr/bin/env python3
"""bench/scripts/plot_fv.py: bench_fv's JSON lines -> the finite-volume figure (PNG).

    build/bench/bench_fv -json fv.jsonl
    python3 bench/scripts/plot_fv.py fv.jsonl --out plots/

Writes, into --out (default: the current folder):
  fv_stages.png  paper 001 Tables 2-3: the convective residual's three stages (face states, face fluxes, cell sums)
                 as stacked bars for each mesh and cell numbering, ms, with the whole residual's fraction of the copy
                 bandwidth by the byte model above each bar.
  fv_summations.png  issue 14's summations (stages, color, atomic, cells): the flux operation's ms (order 2: the
                 residual less the reconstruction) for each mesh and order, each bar's fraction of the copy bandwidth
                 by its byte model above it.
Lines that are not JSON objects of bench "fv" are skipped. Needs matplotlib (an error says so if it is missing).
"""
import os

import bench_jsonl  # beside this script


def summations(R, plt, out, gpu):
    sm = [r for r in R if r.get("case") == "sum"]
    if not sm:
        return
    groups = []  # (mesh, order) in order of appearance
    for r in sm:
        if (r["mesh"], r["order"]) not in groups:
            groups.append((r["mesh"], r["order"]))
    names = ["stages", "color", "atomic", "cells"]
    fig, ax = plt.subplots(figsize=(max(6, 1.6 * len(groups)), 4))
    w = 0.8 / len(names)
    for k, name in enumerate(names):
        for g, key in enumerate(groups):
            r = [r for r in sm if (r["mesh"], r["order"]) == key and r["summation"] == name]
            if not r:
                continue
            x = g + (k - (len(names) - 1) / 2) * w
            ax.bar(x, 1e3 * r[0]["flux_s"], w, color="C%d" % k, label=name if g == 0 else None)
            ax.text(x, 1e3 * r[0]["flux_s"], "%.0f%%" % (100 * r[0]["frac_copy"]), ha="center", va="bottom",
                    fontsize=6)
    ax.set_yscale("log")
    finish(fig, ax, ["%s\norder %d" % key for key in groups], "ms per flux operation",
           "the summations of the face fluxes (issue 14), %s" % gpu, os.path.join(out, "fv_summations.png"))


def finish(fig, ax, labels, ylabel, title, path):
    """the x labels, the y label, the title, the legend and grid; saves the figure to path"""
    ax.set_xticks(list(range(len(labels))))
    ax.set_xticklabels(labels, fontsize=7)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3, axis="y")
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main():
    R, plt, out, gpu = bench_jsonl.plot_setup(__doc__, "fv")
    summations(R, plt, out, gpu)
    st = [r for r in R if r.get("case") == "stages"]
    if not st:
        return
    fig, ax = plt.subplots(figsize=(max(6, 1.3 * len(st)), 4))
    x = range(len(st))
    bottom = [0.0] * len(st)
    for key, lab in (("states_s", "face states"), ("flux_s", "face fluxes"), ("sum_s", "cell sums")):
        h = [1e3 * r[key] for r in st]
        ax.bar(x, h, bottom=bottom, label=lab)
        bottom = [b + v for b, v in zip(bottom, h)]
    for i, r in enumerate(st):
        ax.text(i, bottom[i], "%.0f%%" % (100 * r["frac_copy"]), ha="center", va="bottom", fontsize=7)
    finish(fig, ax, [r["mesh"].replace(", ", "\n") for r in st], "ms per residual",
           "first-order Roe residual in three stages (paper 001), %s" % gpu, os.path.join(out, "fv_stages.png"))


if __name__ == "__main__":
    main()
