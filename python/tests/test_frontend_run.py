"""Traced kernels through the bindings: every traced op parses, verifies and
runs in the reference interpreter with the meaning PyPTO gives it."""

from __future__ import annotations

import numpy as np
import pytest

import pto_mlir.frontend as pypto
import pto_mlir.ir as ir
from pto_mlir.golden.bf16 import bf16_bits_to_f32, f32_to_bf16_bits

F32, BF16 = pypto.DT_FP32, pypto.DT_BF16
ROWS = pypto.Tensor([pypto.DYN, 64], F32)


@pypto.frontend.jit
def row_ops(x: ROWS, y: ROWS):
    pypto.set_vec_tile_shapes(8, 64)
    n = x.shape[0]
    for i in pypto.loop((n + 7) // 8, name="rows", idx_name="i"):
        valid = (n - i * 8).min(8)
        t = pypto.view(x, [8, 64], [i * 8, 0], valid_shape=[valid, 64])
        m = pypto.amax(t, -1, keepdim=True)
        e = pypto.exp(pypto.sub(t, m))
        s = pypto.sum(e, 1, keepdim=True)
        p = pypto.div(e, s, precision_type=pypto.PrecisionType.INTRINSIC)
        q = pypto.maximum(pypto.minimum(p, 0.5), 0.01)
        r = pypto.rsqrt(pypto.add(pypto.abs(q), 1.0)) + pypto.reciprocal(pypto.sqrt(q + 1.0))
        pypto.assemble(-r * 0.5, [i * 8, 0], y)


def row_ops_reference(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=1, keepdims=True))
    p = e / e.sum(axis=1, keepdims=True)
    q = np.maximum(np.minimum(p, np.float32(0.5)), np.float32(0.01))
    r = 1 / np.sqrt(np.abs(q) + 1) + 1 / np.sqrt(q + 1)
    return (-r * 0.5).astype(np.float32)


def test_elementwise_reduction_and_store_ops_run():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((43, 64)).astype(np.float32)   # a 3-row tail tile
    y = np.full((43, 64), 7.0, np.float32)
    traced = row_ops.trace(x=(None, 64), y=(None, 64))
    module = traced.module()
    assert module.lint() == []                              # vec tiles on every vector op
    stats = traced.run(x, y).stats
    np.testing.assert_allclose(y, row_ops_reference(x), rtol=2e-6, atol=1e-6)
    assert stats["loop_iterations"] == 6


def test_calling_the_kernel_traces_once_per_shape_and_runs():
    x = np.ones((16, 64), np.float32)
    y = np.zeros((16, 64), np.float32)
    row_ops(x, y)
    np.testing.assert_allclose(y, row_ops_reference(x), rtol=2e-6)
    cached = dict(row_ops._cache)
    row_ops(np.ones((24, 64), np.float32), np.zeros((24, 64), np.float32))
    assert row_ops._cache == cached        # DYN rows: the same trace
    with pytest.raises(pypto.TraceError, match=r"'x': dim 1 is 64 in the annotation but 32"):
        row_ops(np.ones((8, 32), np.float32), y)


@pypto.jit
def bf16_matmul(a: pypto.Tensor([32, 16], BF16), b: pypto.Tensor([24, 16], BF16),
                out: pypto.Tensor([32, 24], BF16), acc: pypto.Tensor([32, 24], F32)):
    pypto.set_cube_tile_shapes([16, 32], [16, 16], [16, 32])
    pypto.set_vec_tile_shapes(16, 32)
    c = pypto.matmul(pypto.view(a, [32, 16], [0, 0]), pypto.view(b, [24, 16], [0, 0]), F32,
                     b_trans=True)
    pypto.atomic_add(c, [0, 0], acc)
    pypto.assemble(pypto.cast(c, BF16), [0, 0], out)


def test_matmul_cast_and_atomic_add_run():
    rng = np.random.default_rng(1)
    a = f32_to_bf16_bits(rng.standard_normal((32, 16)).astype(np.float32))
    b = f32_to_bf16_bits(rng.standard_normal((24, 16)).astype(np.float32))
    out = np.zeros((32, 24), np.uint16)
    acc = np.ones((32, 24), np.float32)
    bf16_matmul.trace().run(a, b, out, acc)
    gold = bf16_bits_to_f32(a) @ bf16_bits_to_f32(b).T
    np.testing.assert_allclose(acc, 1 + gold, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(out, f32_to_bf16_bits(acc - 1))


def test_traced_module_keeps_python_locations():
    module = row_ops.trace(x=(None, 64), y=(None, 64)).module()
    located = module.to_string(debug_info=True)
    assert f'loc("{__file__}":' in located
    # The kernel and its arguments point at the def.
    info = module.kernel()
    assert info.name == "row_ops" and info.outputs == ["y"]
    assert isinstance(module, ir.Module)
