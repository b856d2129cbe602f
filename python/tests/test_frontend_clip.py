"""pypto.clip: minimum(maximum(x, min), max) as pto ops (frontend/composed.py),
run in the reference interpreter against NumPy; its misuse is located."""

from __future__ import annotations

import numpy as np
import pytest

import pto_mlir.frontend as pypto
from pto_mlir.frontend import TraceError
from trace_errors import assert_error_at_kernel_line

F32 = pypto.DT_FP32


@pypto.jit
def clipped(x: pypto.Tensor([16, 64], F32), lo: pypto.Tensor([16, 64], F32),
            both: pypto.Tensor([16, 64], F32), upper: pypto.Tensor([16, 64], F32),
            tiles: pypto.Tensor([16, 64], F32)):
    pypto.set_vec_tile_shapes(16, 64)
    t = pypto.view(x, [16, 64], [0, 0])
    lo[:] = pypto.clip(t, min=-0.5)
    both[:] = pypto.clip(t, pypto.Element(F32, -1.0), 1.0)
    upper[:] = pypto.clip(t, -float("inf"), 7.0)          # minimax swigluoai's gate clamp
    tiles[:] = pypto.clip(t, pypto.full([16, 1], -0.25, F32), pypto.full([1, 64], 0.25, F32))


def test_clip_runs_and_skips_infinite_bounds():
    text = clipped.trace().mlir
    assert text.count("pto.max") == 3 and text.count("pto.min") == 3, text
    x = (np.random.default_rng(4).standard_normal((16, 64)) * 8).astype(np.float32)
    outs = [np.zeros_like(x) for _ in range(4)]
    clipped(x, *outs)
    for got, want in zip(outs, (np.maximum(x, -0.5), np.clip(x, -1, 1), np.minimum(x, 7.0),
                                np.clip(x, -0.25, 0.25))):
        np.testing.assert_array_equal(got, want)


def test_clip_misuse_is_located():
    @pypto.jit
    def int8_clip(x: pypto.Tensor([16, 64], pypto.DT_INT8), y: pypto.Tensor([16, 64], pypto.DT_INT8)):
        pypto.set_vec_tile_shapes(16, 64)
        y[:] = pypto.clip(pypto.view(x, [16, 64], [0, 0]), 0, 4)

    with pytest.raises(TraceError, match=r"clip\(input\) is DT_INT8; PyPTO's clip takes") as e:
        int8_clip.trace()
    assert_error_at_kernel_line(e, int8_clip, 3)

    @pypto.jit
    def mixed(x: pypto.Tensor([16, 64], F32), y: pypto.Tensor([16, 64], F32)):
        pypto.set_vec_tile_shapes(16, 64)
        y[:] = pypto.clip(pypto.view(x, [16, 64], [0, 0]), pypto.Element(pypto.DT_FP16, 0.0))

    with pytest.raises(TraceError, match=r"Element\(DT_FP16, 0.0\) with a DT_FP32 tile"):
        mixed.trace()
