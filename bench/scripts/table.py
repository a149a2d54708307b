#!/usr/bin/env python3
"""bench/scripts/table.py: JSON lines from the pdesolve benchmarks (stdin) -> a markdown table (stdout).

    build/bench/bench_spmv -n 128 | python3 bench/scripts/table.py
    cat results/*.jsonl | python3 bench/scripts/table.py --sort
    cat run1.jsonl run2.jsonl run3.jsonl | python3 bench/scripts/table.py --merge   (median over runs)
    ... | python3 bench/scripts/table.py --best   (fastest round of each case, and of the copy beside it:
                                                  on a shared machine, the rounds least disturbed)

Lines that are not JSON objects are skipped (so a log with other output can be piped in). The copy-bandwidth
lines (kernel "stream_copy") are summarised under the table instead of being rows. Python 3 standard library only.
"""
import json
import statistics
import sys

COLUMNS = [
    # header, key, format
    ("bench", "bench", "{}"),
    ("kernel", "kernel", "{}"),
    ("bs", "bs", "{}"),
    ("n", "n", "{}"),
    ("nnz", "nnz", "{}"),
    ("backend", "backend", "{}"),
    ("thr", "threads", "{}"),
    ("t median", "t_median_s", None),
    ("GB/s", "gbs", "{:.1f}"),
    ("GFLOP/s", "gflops", "{:.2f}"),
    ("frac copy BW", "frac_copy_bw", "{:.2f}"),
    ("speedup vs ref", "speedup_vs_ref", "{:.2f}"),
]


def fmt_time(t):
    if t >= 1:
        return f"{t:.3f} s"
    if t >= 1e-3:
        return f"{t * 1e3:.3f} ms"
    return f"{t * 1e6:.2f} us"


def cell(rec, key, fmt):
    v = rec.get(key)
    if v is None:
        return ""
    if key == "t_median_s":
        return fmt_time(v)
    try:
        return fmt.format(v)
    except (ValueError, TypeError):
        return str(v)


def main(argv):
    if "-h" in argv or "--help" in argv:
        print(__doc__.strip())
        return 0
    rows, copies = [], []
    for line in sys.stdin:
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            continue
        if not isinstance(rec, dict):
            continue
        (copies if rec.get("kernel") == "stream_copy" else rows).append(rec)
    if "--best" in argv:  # the fastest round instead of the median: the least disturbed by other processes
        for r in rows:
            tmin, tmed = r.get("t_min_s"), r.get("t_median_s")
            if not tmin or not tmed:
                continue
            if r.get("gflops") is not None:
                r["gflops"] = r["gflops"] * tmed / tmin
            r["gbs"] = r.get("gbs_best", r.get("gbs", 0) * tmed / tmin)
            r["t_median_s"] = tmin
            if r.get("copy_gbs_best"):
                r["frac_copy_bw"] = r["gbs"] / r["copy_gbs_best"]
            if "speedup_vs_ref_best" in r:
                r["speedup_vs_ref"] = r["speedup_vs_ref_best"]
            if r.get("t_pdesolve_omp_min_s"):
                r["t_pdesolve_omp_s"] = r["t_pdesolve_omp_min_s"]
    if "--merge" in argv:  # several runs of the same cases: one row each, the median of every number
        groups = {}
        keys = ("bench", "kernel", "bs", "n", "nnz", "backend", "threads")
        for r in rows:
            key = tuple(r.get(k) for k in keys)
            groups.setdefault(key, []).append(r)
        merged = []
        for grp in groups.values():
            m = dict(grp[0])
            for k, v in grp[0].items():
                vals = [g[k] for g in grp if isinstance(g.get(k), (int, float)) and not isinstance(g.get(k), bool)]
                if k not in keys and isinstance(v, (int, float)) and not isinstance(v, bool) and len(vals) == len(grp):
                    m[k] = statistics.median(vals)
            if len(grp) > 1:
                m["runs"] = len(grp)
                ts = [g["t_median_s"] for g in grp if "t_median_s" in g]
                m["t_spread"] = f"{min(ts) * 1e3:.2f}-{max(ts) * 1e3:.2f} ms" if ts else ""
            merged.append(m)
        rows = merged
    if "--sort" in argv:
        rows.sort(key=lambda r: (r.get("bench", ""), r.get("kernel", ""), r.get("bs", 0), r.get("n", 0),
                                 r.get("backend", "")))
    extra = []  # members beyond the standard ones that some rows carry (its, t_solve_s, ...)
    skip = {c[1] for c in COLUMNS} | {"copy_gbs", "load1", "t_min_s", "gbs_best", "copy_gbs_best",
                                      "speedup_vs_ref_best", "t_pdesolve_omp_min_s"}
    for r in rows:
        for k in r:
            if k not in skip and k not in extra:
                extra.append(k)
    head = [c[0] for c in COLUMNS] + extra
    print("| " + " | ".join(head) + " |")
    print("|" + "|".join("---" for _ in head) + "|")
    for r in rows:
        cells = [cell(r, key, fmt) for _, key, fmt in COLUMNS]
        cells += [cell(r, k, "{:.3g}" if isinstance(r.get(k), float) else "{}") for k in extra]
        print("| " + " | ".join(cells) + " |")
    key = "copy_gbs_best" if "--best" in argv else "copy_gbs"
    bw = [c["gbs"] for c in copies if "gbs" in c and "--best" not in argv] + [r[key] for r in rows if r.get(key)]
    if bw:
        print()
        print(f"Copy bandwidth measured in the same runs (16 B per entry, {copies[0]['threads'] if copies else '?'} "
              f"threads): median {statistics.median(bw):.1f} GB/s, range {min(bw):.1f} to {max(bw):.1f} GB/s "
              f"over {len(bw)} measurements. frac copy BW uses the copy measured in the same rounds as each row.")
    loads = [r["load1"] for r in rows + copies if isinstance(r.get("load1"), (int, float)) and r["load1"] >= 0]
    if loads:
        print(f"1-minute load average during the runs: {min(loads):.2f} to {max(loads):.2f}.")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
