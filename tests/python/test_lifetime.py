"""tests/python/test_lifetime.py: reference counting across Python and C: objects die in any order without a
use-after-free, a context closes what it made, and repeated create/destroy does not grow the process."""
import gc
import resource

import numpy as np
import scipy.sparse as sp

import pdesolve as pds
from conftest import BACKEND


def _system(n=30):
    A = sp.csr_array(sp.diags([-1.0, 4.0, -1.0], [-1, 0, 1], shape=(n, n)))
    A.indices = A.indices.astype(np.int32)
    A.indptr = A.indptr.astype(np.int32)
    return A


def test_python_objects_die_in_any_order():
    for order in range(6):
        ctx = pds.Context(BACKEND)
        A = _system()
        M = pds.Matrix(A, ctx)
        pc = pds.Precond(M, "ilu0")
        s = pds.Solver(M, "gmres", pc=pc)
        names = [["ctx", "M", "pc", "A"], ["M", "A", "pc", "ctx"], ["pc", "ctx", "M", "A"],
                 ["A", "ctx", "pc", "M"], ["ctx", "A", "M", "pc"], ["M", "pc", "A", "ctx"]][order]
        objs = {"ctx": ctx, "M": M, "pc": pc, "A": A}
        for name in names:  # drop every other reference: the solver keeps what it uses alive
            del objs[name]
        del ctx, M, pc, A
        gc.collect()
        x, r = s.solve(np.ones(30))
        assert r.converged
        del s
        gc.collect()


def test_context_close_closes_children():
    ctx = pds.Context(BACKEND)
    M = pds.Matrix(_system(), ctx)
    s = pds.Solver(M, "cg", pc="jacobi")
    v = pds.Vector(np.ones(30), ctx)
    ctx.close()
    assert s.closed and M.closed and v.closed and s.pc.closed
    del s, M, v
    gc.collect()


def test_with_blocks():
    with pds.Context(BACKEND) as ctx:
        with pds.Matrix(_system(), ctx) as M, pds.Solver(M, "cg") as s:
            x, r = s.solve(np.ones(30))
        assert M.closed and s.closed
    assert ctx.closed


def _rss_kb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def test_no_growth_under_repeated_create_destroy():
    A = _system(200)
    b = np.ones(200)

    shared = pds.Context(BACKEND)

    def cycle(k):
        for i in range(k):
            own = i % 10 == 0 and not BACKEND.startswith("/gpu")  # contexts too, where they are cheap
            ctx = pds.Context(BACKEND) if own else shared
            M = pds.Matrix(A, ctx)
            s = pds.Solver(M, "gmres", pc=pds.Precond(M, "ilu0"))
            s.solve(b)
            pds.Matrix.shell(lambda v: A @ v, ctx, shape=A.shape) @ b
            pds.Vector(b, ctx).norm()
            del s, M
            if own:
                ctx.close()
        gc.collect()

    cycle(200)  # warm up (allocator pools, CUDA context)
    before = _rss_kb()
    cycle(1000)
    grown = _rss_kb() - before
    assert grown < 8 * 1024, "RSS grew by %d kB over 1000 create/solve/destroy cycles" % grown
