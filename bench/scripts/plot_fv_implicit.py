#!/usr/bin/env python3
"""bench/scripts/plot_fv_implicit.py: bench_fv_implicit's JSON lines -> the implicit-step figure (PNG).

    build/bench/bench_fv_implicit -json fv_implicit.jsonl
    python3 bench/scripts/plot_fv_implicit.py fv_implicit.jsonl --out plots/

Writes, into --out (default: the current folder):
  fv_implicit.png  the sphere at Mach 0.1 from the free stream to a steady state: ||R|| / ||R_0|| against the step
                   (left) and against the seconds from the start to the end of the step that made it (right) for each
                   method of the "steady" lines (implicit gmres + ilu0, + pbjacobi; explicit at CFL 0.9; /cpu/omp's
                   two steps).
Lines that are not JSON objects of bench "fv_implicit" are skipped. Needs matplotlib (an error says so if missing).
"""
import os

import bench_jsonl  # beside this script


def main():
    R, plt, out, gpu = bench_jsonl.plot_setup(__doc__, "fv_implicit")
    st = [r for r in R if r.get("case") == "steady" and r.get("residuals")]
    if not st:
        return
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 4))
    for r in st:
        res = [x / r["r0"] for x in r["residuals"] if x is not None]
        a1.semilogy(range(len(res)), res, label=r["method"])
        # res[k] is the state's after step k - 1: at the end of that step (times[k - 1])
        a2.semilogy(r["times"][:len(res) - 1], res[1:], label=r["method"])
    a1.set_xscale("symlog", linthresh=100)
    a1.set_xlabel("step")
    a2.set_xscale("log")
    a2.set_xlabel("seconds")
    for a in (a1, a2):
        a.set_ylabel("||R|| / ||R_0||")
        a.grid(alpha=0.3)
    a1.legend(fontsize=7)
    fig.suptitle("sphere in a box, Mach 0.1, first order: implicit against explicit steps (%s)" % gpu, fontsize=9)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "fv_implicit.png"), dpi=120)


if __name__ == "__main__":
    main()
