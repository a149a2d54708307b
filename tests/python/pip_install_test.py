#!/usr/bin/env python3
"""tests/python/pip_install_test.py: `pip install` of the repository (pyproject.toml: scikit-build-core builds the C
library with CMake) into a fresh folder, then the installed package, found without PDS_LIBRARY or the source tree,
solves a system. Run by ctest as python_pip_install:

    python pip_install_test.py --source REPO --work DIR [--cmake-define NAME=VALUE ...]

Uses the running Python's scikit-build-core (--no-build-isolation) and nothing from the network."""
import argparse
import os
import shutil
import subprocess
import sys

CHECK = r"""
import os, sys
import numpy as np
import pdesolve as pds
here = os.path.realpath(os.path.dirname(pds.__file__))
assert here.startswith(os.path.realpath(sys.argv[1])), here
assert os.path.realpath(pds.library_path).startswith(here), pds.library_path
with pds.Context("/cpu/ref") as ctx:
    p = pds.problems.poisson7(12, ctx)
    x, r = pds.Solver(p.A, "cg", pc="jacobi", rtol=1e-10).solve(p.b.numpy())
    assert r.converged, r
    err = np.abs(x - p.u_exact.numpy()).max()
    assert err < 1e-2, err
print("installed pdesolve %s from %s: cg converged in %d iterations, error %.2e"
      % (pds.__version__, here, r.iterations, err))
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--cmake-define", action="append", default=[])
    a = ap.parse_args()
    shutil.rmtree(a.work, ignore_errors=True)
    site = os.path.join(a.work, "site")
    cmd = [sys.executable, "-m", "pip", "install", "--no-build-isolation", "--no-deps", "--no-index",
           "--disable-pip-version-check", "--target", site, "-C", "build-dir=" + os.path.join(a.work, "build")]
    for d in a.cmake_define:
        cmd += ["-C", "cmake.define." + d]
    cmd.append(a.source)
    print(" ".join(cmd), flush=True)
    subprocess.run(cmd, check=True)
    env = {k: v for k, v in os.environ.items() if k not in ("PDS_LIBRARY", "PYTHONPATH")}
    env["PYTHONPATH"] = site
    subprocess.run([sys.executable, "-c", CHECK, site], check=True, env=env, cwd=a.work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
