"""``pypto.frontend.dynamic("N")``: a named dynamic dim in tensor
annotations. Dims with the same name must have the same size at a call (an
error at the parameter otherwise); using the name in the kernel body is a
located error pointing at ``x.shape[i]``."""

from __future__ import annotations

import numpy as np
import pytest

import pypto
from pto_mlir.frontend import TraceError
from trace_errors import assert_error_at_kernel_line

N = pypto.frontend.dynamic("N")


@pypto.frontend.jit
def scale_rows(x: pypto.Tensor([N, 64], pypto.DT_FP32), y: pypto.Tensor([N, 64], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(8, 64)
    for i in pypto.loop(x.shape[0] // 8, name="rows", idx_name="i"):
        y[i * 8:, 0:] = pypto.mul(x[i * 8:i * 8 + 8, :], 2.0)


def test_named_dims_are_dynamic_and_run():
    assert "?x64xf32" in scale_rows.trace(x=(None, 64), y=(None, 64)).mlir
    x = np.arange(16 * 64, dtype=np.float32).reshape(16, 64)
    y = np.zeros_like(x)
    scale_rows(x, y)
    np.testing.assert_array_equal(y, x * 2)


def test_named_dims_must_agree():
    x, y = np.zeros((16, 64), np.float32), np.zeros((24, 64), np.float32)
    with pytest.raises(TraceError, match=r"dynamic dim 'N' is 16 in 'x' \(dim 0\) but 24 in "
                                         r"'y' \(dim 0\)"):
        scale_rows(x, y)
    with pytest.raises(TraceError, match=r"dynamic dim 'N' is 16"):
        scale_rows.trace(x=(16, 64), y=(24, 64))


def test_the_name_in_the_body_is_located():
    @pypto.frontend.jit
    def uses_name(x: pypto.Tensor([N, 64], pypto.DT_FP32)):
        for i in pypto.loop(N // 8, name="rows", idx_name="i"):
            pass

    with pytest.raises(TraceError, match=r"dynamic\('N'\) names a dynamic dim in tensor "
                                         r"annotations only.*x.shape\[i\]") as e:
        uses_name.trace(x=(None, 64))
    assert_error_at_kernel_line(e, uses_name, 2)
