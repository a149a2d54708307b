"""bench/scripts/bench_jsonl.py: the JSON lines of the benchmarks, read the one way the scripts beside it share
(plot_fem2d.py, plot_bilu.py, and the summaries bench/gpu-check.sh prints): every line that holds a JSON object,
in file order, other lines (logs, a truncated last line) skipped."""
import json
import sys


def load(paths, bench=None):
    """the records of the files (stdin when there are none), only those of benchmark `bench` when given"""
    recs = []
    files = [open(p) for p in paths] if paths else [sys.stdin]
    for f in files:
        for line in f:
            line = line.strip()
            if not line.startswith("{"):
                continue
            try:
                r = json.loads(line)
            except ValueError:
                continue
            if isinstance(r, dict) and (bench is None or r.get("bench") == bench):
                recs.append(r)
    return recs


def plot_setup(doc, bench):
    """what a plot script starts with: its arguments (JSON lines files, --out folder), the records of benchmark `bench`,
    matplotlib's pyplot on the Agg backend (exit with a message without matplotlib), the --out folder made, and the
    GPU's name from the records ('?' when none says it)"""
    import argparse
    import os

    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="*")
    ap.add_argument("--out", default=".")
    a = ap.parse_args()
    recs = load(a.files, bench=bench)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("%s needs matplotlib (pip install matplotlib)" % os.path.basename(sys.argv[0]))
    os.makedirs(a.out, exist_ok=True)
    gpu = next((r.get("gpu") for r in recs if r.get("gpu")), "?")
    return recs, plt, a.out, gpu
