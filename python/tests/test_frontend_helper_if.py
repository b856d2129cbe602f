"""Run-time ``if``s in plain helper functions of the kernel's own file (PyPTO
kernels split their bodies into helpers: ``if pypto.cond(pypto.is_loop_begin(i)):``
in ``compute_loop_s2(...)``): traced as ``scf.if`` like the kernel body's,
run against NumPy; trace-time ``if``s in helpers keep their meaning, and the
helpers are restored after the trace."""

from __future__ import annotations

import numpy as np
import pytest

import pto_mlir.frontend as pypto
from pto_mlir.frontend import TraceError

F32 = pypto.DT_FP32
SCALE = 2.0


def store_block(x, y, i, n, double):
    t = x[i * 8:i * 8 + 8, :]
    if double:                                   # a trace-time Python value
        t = t * SCALE
    if pypto.cond(pypto.is_loop_begin(i)):       # run time, in a helper
        pypto.assemble(t, [i * 8, 0], y)
    elif i * 8 + 8 < n:                          # a symbolic comparison
        pypto.assemble(t + 1.0, [i * 8, 0], y)
    else:
        pypto.assemble(pypto.neg(t), [i * 8, 0], y)


@pypto.jit
def blocks(x: pypto.Tensor([pypto.DYN, 64], F32), y: pypto.Tensor([pypto.DYN, 64], F32),
           double: bool):
    pypto.set_vec_tile_shapes(8, 64)
    n = x.shape[0]
    for i in pypto.loop(n // 8, name="blocks", idx_name="i"):
        store_block(x, y, i, n, double)


def reference(x, double):
    t = x * SCALE if double else x.copy()
    y = t + 1.0
    y[:8] = t[:8]
    y[-8:] = -t[-8:]
    return y


@pytest.mark.parametrize("double", [False, True])
def test_helper_ifs_branch_at_run_time(double):
    x = np.random.default_rng(5).standard_normal((32, 64)).astype(np.float32)
    y = np.zeros_like(x)
    blocks(x, y, double)
    np.testing.assert_array_equal(y, reference(x, double))
    assert store_block.__code__.co_name == "store_block"           # restored
    assert "_pto_branches" not in store_block.__code__.co_varnames


def test_helper_of_another_file_is_located():
    from pto_mlir.frontend.ops import is_loop_begin

    @pypto.jit
    def uses_library_if(x: pypto.Tensor([16, 64], F32), y: pypto.Tensor([16, 64], F32)):
        pypto.set_vec_tile_shapes(8, 64)
        for i in pypto.loop(2, name="blocks", idx_name="i"):
            np.where(is_loop_begin(i), 1, 0)     # asks for the truth value in NumPy

    with pytest.raises(TraceError, match=r"run-time condition.*helper function of the "
                                         r"kernel's file"):
        uses_library_if.trace()
