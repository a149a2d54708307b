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
