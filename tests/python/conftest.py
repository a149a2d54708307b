"""tests/python/conftest.py: the backend under test (PDS_TEST_BACKEND, set per ctest test), the shared data, the
driver, and a scratch folder."""
import os
import subprocess

import numpy as np
import pytest

import pdesolve as pds

BACKEND = os.environ.get("PDS_TEST_BACKEND", "/cpu/ref")
SHARED = os.environ.get("PDS_SHARED_DIR", os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared"))
MATRICES = os.path.join(SHARED, "matrices")
APP = os.environ.get("PDS_APP")
TMP = os.environ.get("PDS_TEST_TMP")


@pytest.fixture
def ctx():
    with pds.Context(BACKEND) as c:
        yield c


@pytest.fixture
def tmpdir_path(tmp_path):
    return tmp_path


def matrix_path(name):
    p = os.path.join(MATRICES, name + ".mtx")
    if not os.path.exists(p):
        pytest.skip("shared matrix %s not found (PDS_SHARED_DIR=%s)" % (name, SHARED))
    return p


def run_driver(args, tmp):
    """Run `pdesolve solve ARGS -backend BACKEND -o x.mtx -json r.json`; returns (the JSON report, x)."""
    import json
    if not APP:
        pytest.skip("no driver (PDS_APP)")
    xf, jf = os.path.join(tmp, "x.mtx"), os.path.join(tmp, "r.json")
    cmd = [APP, "solve"] + args + ["-backend", BACKEND, "-o", xf, "-json", jf]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode in (0, 2), "driver failed: %s\n%s%s" % (" ".join(cmd), proc.stdout, proc.stderr)
    with open(jf) as f:
        report = json.load(f)
    x = read_array(xf)
    return report, x


def read_array(path):
    """A Matrix Market array file (one column), as written by the driver, parsed exactly (17 digits)."""
    with open(path) as f:
        lines = [l for l in f if not l.startswith("%")]
    n = int(lines[0].split()[0])
    return np.array([float(v) for v in lines[1:1 + n]])


def pytest_configure(config):
    # SciPy 1.18 announces that mmread will return sparse arrays; the tests convert with csr_array either way
    config.addinivalue_line("filterwarnings", "ignore:The default value for `spmatrix`:DeprecationWarning")
