#!/usr/bin/env python3
"""bench/scripts/plot_fv.py: bench_fv's JSON lines -> the finite-volume figure (PNG).

    build/bench/bench_fv -json fv.jsonl
    python3 bench/scripts/plot_fv.py fv.jsonl --out plots/

Writes, into --out (default: the current folder):
  fv_stages.png  paper 001 Tables 2-3: the convective residual's three stages (face states, face fluxes, cell sums)
                 as stacked bars for each mesh and cell numbering, ms, with the whole residual's fraction of the copy
                 bandwidth by the byte model above each bar.
Lines that are not JSON objects of bench "fv" are skipped. Needs matplotlib (an error says so if it is missing).
"""
import os

import bench_jsonl  # beside this script


def main():
    R, plt, out, gpu = bench_jsonl.plot_setup(__doc__, "fv")
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
    ax.set_xticks(list(x))
    ax.set_xticklabels([r["mesh"].replace(", ", "\n") for r in st], fontsize=7)
    ax.set_ylabel("ms per residual")
    ax.set_title("first-order Roe residual in three stages (paper 001), %s" % gpu, fontsize=9)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3, axis="y")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "fv_stages.png"), dpi=120)


if __name__ == "__main__":
    main()
