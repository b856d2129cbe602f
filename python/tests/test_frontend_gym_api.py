"""PyPTO API the pypto-gym kernels outside the corpus use (docs/Frontend.md,
"PyPTO API used by other pypto-gym kernels"), written the way those kernels
use it: tensor parameters without a dtype, taken from the argument."""

from __future__ import annotations

import numpy as np
import pytest

import pypto

F32, BF16 = pypto.DT_FP32, pypto.DT_BF16


# -- pypto.Tensor() / Tensor([...]) without a dtype ------------------------------------

@pypto.frontend.jit
def double_rows(x: pypto.Tensor([pypto.DYNAMIC, pypto.STATIC]), y: pypto.Tensor()):
    rows, cols = x.shape
    pypto.set_vec_tile_shapes(4, cols)
    for i in pypto.loop(0, rows, 4, name="rows", idx_name="i"):
        t = pypto.view(x, [4, cols], [i, 0])
        pypto.assemble(pypto.add(t, t), [i, 0], y)


@pypto.frontend.jit
def copy_bare(x: pypto.Tensor, y: pypto.Tensor):
    pypto.set_vec_tile_shapes(4, 8)
    pypto.assemble(pypto.view(x, [4, 8], [0, 0]), [0, 0], y)


def test_dtype_and_shape_come_from_the_argument():
    x = np.arange(8 * 16, dtype=np.float32).reshape(8, 16)
    traced = double_rows.trace(x, np.zeros_like(x))
    assert "%x: !pto.tensor<?x16xf32>" in traced.mlir
    assert "%y: !pto.tensor<8x16xf32>" in traced.mlir
    traced.module()
    y = np.zeros_like(x)
    double_rows(x, y)
    np.testing.assert_array_equal(y, 2 * x)
    # another dtype retraces: the cache is keyed by it too
    xh = x.astype(np.float16)
    yh = np.zeros_like(xh)
    double_rows(xh, yh)
    np.testing.assert_array_equal(yh, 2 * xh)
    assert "?x16xf16" in double_rows.trace(xh, yh).mlir


def test_the_bare_class_annotation_takes_both_from_the_argument():
    torch = pytest.importorskip("torch")
    x = torch.randn(4, 8).to(torch.bfloat16)
    y = torch.zeros(4, 8, dtype=torch.bfloat16)
    assert "%x: !pto.tensor<4x8xbf16>" in copy_bare.trace(x, y).mlir
    copy_bare(x, y)
    assert torch.equal(x, y)


@pytest.mark.parametrize("args, message", [
    (((None, 16), (8, 16)), r"'x' is annotated Tensor\(\[DYN, STATIC\]\), without a dtype: its "
                            r"dtype is taken from the argument, so give a torch tensor or a "
                            r"NumPy array \(got tuple\)"),
    ((np.zeros((8, 16), np.float64), np.zeros((8, 16), np.float64)),
     r"'x' is annotated .* without a dtype, and is given a float64 array, which holds no "
     r"pypto dtype"),
])
def test_a_dtype_that_cannot_be_taken_is_a_located_error(args, message):
    with pytest.raises(pypto.TraceError, match=message) as info:
        double_rows.trace(*args)
    assert "test_frontend_gym_api.py:18:" in str(info.value)   # at the parameter
