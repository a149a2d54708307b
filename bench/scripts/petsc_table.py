#!/usr/bin/env python3
"""bench/scripts/petsc_table.py: the ratio table of bench/peers/petsc_krylov's JSON lines (standard input).

One row per solve (time per iteration) or kernel (time per call), one column group per rank count: PETSc's time,
pdesolve /cpu/omp's time on the same cores, and ratio = PETSc / pdesolve (> 1: pdesolve is faster); with one rank
also /cpu/ref's ratio. A line that is not JSON is ignored; the processor and PETSc version head the table."""
import json
import sys


def main():
    rows, ranks, info = {}, set(), {}
    for line in sys.stdin:
        try:
            d = json.loads(line)
        except ValueError:
            continue
        if d.get("bench") != "petsc_peer":
            continue
        key = (d["case"], d["kernel"])
        rows.setdefault(key, {})[d["ranks"]] = d
        ranks.add(d["ranks"])
        info = d
    if not rows:
        print("petsc_table.py: no petsc_peer lines", file=sys.stderr)
        return 1
    ranks = sorted(ranks)
    print(f"CPU: {info['cpu']}; PETSc {info['petsc']}; n = {info['n']} (poisson7), Jacobi; "
          f"times in ms (solves: per iteration, kernels: per call); ratio = PETSc / pdesolve")
    head = "| case |"
    rule = "|---|"
    for p in ranks:
        head += f" PETSc {p}r | omp {p}t | ratio |" + (" ref | ratio ref |" if p == 1 else "")
        rule += "---|---|---|" + ("---|---|" if p == 1 else "")
    print(head)
    print(rule)
    order = {"solve": 0, "kernel": 1}
    for key in sorted(rows, key=lambda k: order.get(k[0], 2)):
        line = f"| {key[0]} {key[1]} |"
        for p in ranks:
            d = rows[key].get(p)
            if not d:
                line += " | | |" + (" | |" if p == 1 else "")
                continue
            line += f" {d['t_petsc_s'] * 1e3:.3f} | {d['t_pds_omp_s'] * 1e3:.3f} | {d['ratio_omp']:.2f} |"
            if p == 1:
                ref = d.get("t_pds_ref_s")
                line += (f" {ref * 1e3:.3f} | {d['ratio_ref']:.2f} |" if ref else " | |")
        print(line)
    cbw = ", ".join(f"{p} core(s) {rows[next(iter(rows))][p]['copy_gbs']:.1f} GB/s"
                    for p in ranks if p in rows[next(iter(rows))])
    print(f"copy bandwidth in the same runs: {cbw}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
