#!/usr/bin/env python3
"""bench/scripts/plot_sem.py: bench_sem's JSON lines -> the spectral-element figures (PNG).

    build/bench/bench_sem -json sem.jsonl
    python3 bench/scripts/plot_sem.py sem.jsonl --out plots/

Writes, into --out (default: the current folder):
  sem_operator.png  (a) GDOF/s of w = A x against the points per direction N, one line per element count (affine;
                    deformed dashed where measured), /cpu/omp's points, nekRS's 12.9 GDOF/s (A100, N = 8) and the
                    issue's 30 (H200, N = 8, E = 4096) as marks; (b) the byte model's fraction of the copy bandwidth;
  sem_diag.png      paper 003 Fig. 2: the four diagonal kernels' time against N (E = 4096) beside one operator
                    application.
Lines that are not JSON objects of bench "sem" are skipped. Needs matplotlib (an error says so if it is missing).
"""
import os

import bench_jsonl  # beside this script


def main():
    R, plt, out, gpu = bench_jsonl.plot_setup(__doc__, "sem")

    ops = [r for r in R if r.get("case") == "op"]
    if ops:
        fig, ax = plt.subplots(1, 2, figsize=(11, 4))
        for E in sorted({r["elements"] for r in ops}):
            for deformed, st in ((False, "o-"), (True, "s--")):
                sel = [r for r in ops if r["elements"] == E and (r["deform"] != 0) == deformed]
                pts = sorted((r["n"], r["gdofs"], r["frac_copy"]) for r in sel)
                if not pts:
                    continue
                mesh = [r["mesh"] for r in sel if r.get("mesh", "").startswith("hybrid")]
                lab = mesh[0] if mesh else "E = %d%s" % (E, ", deformed" if deformed else "")
                ax[0].plot([p[0] for p in pts], [p[1] for p in pts], st, label=lab)
                ax[1].plot([p[0] for p in pts], [100 * p[2] for p in pts], st, label=lab)
        cpu = sorted((r["n"], r["nlocal"] / r["omp_s"] * 1e-9) for r in ops if r.get("omp_s"))
        if cpu:
            ax[0].plot([p[0] for p in cpu], [p[1] for p in cpu], "k^", label="/cpu/omp")
        ax[0].plot([8], [12.9], "r*", markersize=12, label="nekRS, A100 (12.9)")
        ax[0].plot([8], [30], "gx", markersize=10, label="issue 13 target, E = 4096")
        ax[0].set_yscale("log")
        ax[0].set_ylabel("GDOF/s (E N^3 per second)")
        ax[1].set_ylabel("% of copy bandwidth (byte model)")
        for k in range(2):
            ax[k].set_xlabel("points per direction N")
            ax[k].grid(alpha=0.3)
            ax[k].legend(fontsize=7)
        fig.suptitle("spectral-element operator w = A x (paper 003), %s" % gpu)
        fig.tight_layout()
        fig.savefig(os.path.join(out, "sem_operator.png"), dpi=120)

    diag = [r for r in R if r.get("case") == "diag"]
    if diag:
        fig, ax = plt.subplots(figsize=(6, 4))
        for v, st in (("extended", "o-"), ("natural", "s-"), ("shared", "^-"), ("wide", "v-")):
            pts = sorted((r["n"], 1e3 * r["setup_s"]) for r in diag if r["variant"] == v and r.get("setup_s"))
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], st, label=v)
        app = sorted({(r["n"], 1e3 * r["apply_s"]) for r in diag})
        ax.plot([p[0] for p in app], [p[1] for p in app], "k--", label="one A x")
        ax.set_xlabel("points per direction N")
        ax.set_ylabel("ms (E = 4096)")
        ax.set_title("diagonal kernels (paper 003 Fig. 2), %s" % gpu)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(os.path.join(out, "sem_diag.png"), dpi=120)


if __name__ == "__main__":
    main()
