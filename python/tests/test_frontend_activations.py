"""pypto.sigmoid and pypto.softmax (PyPTO's FP32 definitions, recorded as pto
ops at the call's line), traced and run in the reference interpreter
against NumPy; their misuse is a located TraceError."""

from __future__ import annotations

import numpy as np
import pytest

import pto_mlir.frontend as pypto
from pto_mlir.frontend import TraceError
from trace_errors import assert_error_at_kernel_line

F32, BF16 = pypto.DT_FP32, pypto.DT_BF16


@pypto.jit
def activations(x: pypto.Tensor([16, 64], F32), sig: pypto.Tensor([16, 64], F32),
                rows: pypto.Tensor([16, 64], F32), cols: pypto.Tensor([16, 64], F32)):
    pypto.set_vec_tile_shapes(16, 64)
    t = pypto.view(x, [16, 64], [0, 0])
    pypto.assemble(pypto.sigmoid(t), [0, 0], sig)
    pypto.assemble(pypto.softmax(t, -1), [0, 0], rows)
    pypto.assemble(pypto.softmax(t, 0), [0, 0], cols)


def test_sigmoid_and_softmax_trace_at_their_line():
    text = activations.trace().mlir
    for op in ("pto.neg", "pto.exp", "pto.reciprocal", "pto.amax", "pto.sum", "pto.div"):
        assert op in text, op
    assert text.count("pto.amax") == 2 and "dim = 1 keepdim" in text and "dim = 0 keepdim" in text


def test_sigmoid_and_softmax_run():
    x = (np.random.default_rng(3).standard_normal((16, 64)) * 4).astype(np.float32)
    x[0, 0], x[1, 1] = -100.0, 100.0       # exp(-x) overflows / underflows
    sig, rows, cols = (np.zeros_like(x) for _ in range(3))
    activations.trace().run(x, sig, rows, cols)
    x64 = x.astype(np.float64)
    np.testing.assert_allclose(sig, 1 / (1 + np.exp(-x64)), rtol=1e-6, atol=1e-7)
    for out, axis in ((rows, 1), (cols, 0)):
        e = np.exp(x64 - x64.max(axis=axis, keepdims=True))
        np.testing.assert_allclose(out, e / e.sum(axis=axis, keepdims=True), rtol=1e-5, atol=1e-7)


def test_misuse_is_located():
    @pypto.jit
    def bf16_sigmoid(x: pypto.Tensor([16, 64], BF16), y: pypto.Tensor([16, 64], BF16)):
        pypto.set_vec_tile_shapes(16, 64)
        pypto.assemble(pypto.sigmoid(pypto.view(x, [16, 64], [0, 0])), [0, 0], y)

    # PyPTO computes a BF16 sigmoid in FP32 and casts back.
    text = bf16_sigmoid.trace().mlir
    assert text.count("pto.cast") == 2 and "xf32>" in text.split("pto.exp")[1].splitlines()[0]

    @pypto.jit
    def int_sigmoid(x: pypto.Tensor([16, 64], pypto.DT_INT32),
                    y: pypto.Tensor([16, 64], pypto.DT_INT32)):
        pypto.set_vec_tile_shapes(16, 64)
        pypto.assemble(pypto.sigmoid(pypto.view(x, [16, 64], [0, 0])), [0, 0], y)

    with pytest.raises(TraceError, match=r"sigmoid\(input\) is DT_INT32.*floating-point"):
        int_sigmoid.trace()

    @pypto.jit
    def bad_dim(x: pypto.Tensor([16, 64], F32), y: pypto.Tensor([16, 64], F32)):
        pypto.set_vec_tile_shapes(16, 64)
        pypto.assemble(pypto.softmax(pypto.view(x, [16, 64], [0, 0]), 2), [0, 0], y)

    with pytest.raises(TraceError, match=r"softmax\(dim=2\) must be an int in \[-2, 1\]") as e:
        bad_dim.trace()
    assert_error_at_kernel_line(e, bad_dim, 3)


def test_semantic_label_is_carried_on_the_ops_after_it():
    @pypto.jit
    def labelled(x: pypto.Tensor([16, 64], F32), y: pypto.Tensor([16, 64], F32)):
        pypto.set_vec_tile_shapes(16, 64)
        t = pypto.view(x, [16, 64], [0, 0])
        u = pypto.exp(t)
        pypto.set_semantic_label('Gate "1"')
        pypto.assemble(pypto.neg(u), [0, 0], y)

    lines = [line for line in labelled.trace().mlir.splitlines() if "pto." in line]
    exp = next(line for line in lines if "pto.exp" in line)
    neg = next(line for line in lines if "pto.neg" in line)
    assert "semantic_label" not in exp
    assert 'pto.semantic_label = "Gate \\"1\\""' in neg

    @pypto.jit
    def unlabelled(x: pypto.Tensor([16, 64], F32), y: pypto.Tensor([16, 64], F32)):
        pypto.set_semantic_label(3)

    with pytest.raises(TraceError, match=r"set_semantic_label\(3\) takes a non-empty string"):
        unlabelled.trace()


def test_fp16_softmax_and_sigmoid_run_in_fp32():
    @pypto.jit
    def half(x: pypto.Tensor([16, 64], pypto.DT_FP16), sig: pypto.Tensor([16, 64], pypto.DT_FP16),
             rows: pypto.Tensor([16, 64], pypto.DT_FP16)):
        pypto.set_vec_tile_shapes(16, 64)
        t = pypto.view(x, [16, 64], [0, 0])
        pypto.assemble(pypto.sigmoid(t), [0, 0], sig)
        pypto.assemble(pypto.softmax(t, -1), [0, 0], rows)

    x = (np.random.default_rng(4).standard_normal((16, 64)) * 4).astype(np.float16)
    sig, rows = np.zeros_like(x), np.zeros_like(x)
    half(x, sig, rows)
    x64 = x.astype(np.float64)
    e = np.exp(x64 - x64.max(-1, keepdims=True))
    np.testing.assert_allclose(sig, 1 / (1 + np.exp(-x64)), rtol=1e-3, atol=1e-3)
    np.testing.assert_allclose(rows, e / e.sum(-1, keepdims=True), rtol=1e-3, atol=1e-4)
