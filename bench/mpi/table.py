#!/usr/bin/env python3
"""bench/mpi/table.py MPI.JSONL: bench_mpi's JSON lines as scaling tables (markdown), one per backend and scaling.

Weak scaling: efficiency = t(1 rank) / t(P ranks) (the same work per rank: 1 is perfect). Strong scaling: speedup =
t(1) / t(P) and efficiency = speedup / P. spmv lines also give the exchange's time inside MPI calls and the overlap
(the share of it hidden behind the diagonal block's product); solver lines the time per iteration and its part in
MPI calls (reductions and halo waits). ch_* lines: the multi-block channel (mpistencil7, bjacobi(bilu0)); sem_* lines:
spectral elements over the ranks (mpisem, semjacobi). The last column is the rank's copy bandwidth measured in the same run: where it
falls as ranks are added (CPU ranks sharing a socket's memory), so does a memory-bound kernel's time per rank."""
import json
import sys


def main(path):
    rows = [json.loads(l) for l in open(path) if l.strip().startswith("{")]
    groups = {}
    for r in rows:
        groups.setdefault((r["backend"], r["scaling"], r.get("halo", "mpi")), []).append(r)
    for (be, sc, halo), rs in sorted(groups.items()):
        print(f"\n### {be}, {sc} scaling, halo through {halo} ({rs[0]['host_cpu']})\n")
        print("| case | ranks | grid | time (us) | in MPI (us) | halo exposed (us), overlap | %s | copy GB/s a rank |" %
              ("efficiency" if sc == "weak" else "speedup (efficiency)"))
        print("|---|---|---|---|---|---|---|---|")
        for case in ("spmv", "cg", "gmres", "cg_serial", "ch_spmv", "ch_richardson", "ch_gmres", "ch_serial",
                     "sem_spmv", "sem_cg", "sem_serial"):
            cs = sorted((r for r in rs if r["case"] == case), key=lambda r: r["ranks"])
            base = None
            for r in cs:
                prod = case in ("spmv", "ch_spmv", "sem_spmv")
                t = r["t_us"] if prod else r["t_iter_us"]
                c = r["t_comm_us"] if prod else r["t_comm_iter_us"]
                if r["ranks"] == 1:
                    base = t
                elif base is None:  # this transport's lines have no one-rank run: the mpi one's, the same work
                    one = [q for q in rows if q["backend"] == be and q["scaling"] == sc and q["case"] == case and
                           q["ranks"] == 1 and (sc == "weak" or q.get("blocks") == r.get("blocks")) and
                           q.get("order") == r.get("order")]
                    base = (one[0]["t_us"] if prod else one[0]["t_iter_us"]) if one else None
                if base is None:
                    scale = ""
                elif sc == "weak":
                    scale = f"{base / t:.2f}"
                else:
                    scale = f"{base / t:.2f}x ({base / t / r['ranks']:.2f})"
                name = case if prod else f"{case} + {r['pc']} (per iteration)"
                if case == "cg_serial":
                    name = "cg + jacobi, csr not distributed (per iteration)"
                if case == "ch_serial":
                    name = "channel gmres + bilu0, stencil7 not distributed (per iteration)"
                if case == "sem_serial":
                    name = "sem cg + semjacobi, sem not distributed (per iteration)"
                if "order" in r:
                    name += f", order {r['order']}"
                if "blocks" in r:
                    name += f", {'x'.join(map(str, r['blocks']))} blocks"
                ovl = f"{r['t_exposed_us']:.1f}, {r['overlap']:.2f}" if case == "spmv" and r["ranks"] > 1 else ""
                print(f"| {name} | {r['ranks']} | {'x'.join(map(str, r['grid']))} | {t:.1f} | {c:.1f} | {ovl} | {scale} "
                      f"| {r['copy_GBs_rank']:.0f} |")


if __name__ == "__main__":
    main(sys.argv[1])
