"""pypto.rms_norm (PyPTO's FP32 composition, recorded at the call's line),
with the spellings kernels use around it: ``pypto.tensor()`` as a parameter
annotation, ``x.dim`` (the rank), a non-tensor parameter without an
annotation and ``out[:] = y``. Run in pto-run against NumPy, through the tile
graph and the emitted C++; misuse is a located TraceError."""

from __future__ import annotations

import numpy as np
import pytest

import pto_mlir.frontend as pypto
from pto_mlir.frontend import TraceError
from trace_errors import assert_error_at_kernel_line


@pypto.jit
def rms_norm_whole(x: pypto.tensor(), w: pypto.tensor(), out: pypto.tensor(), eps):
    tiles = [8 for _ in range(x.dim)]
    tiles[-1] = 64
    pypto.set_vec_tile_shapes(*tiles)
    out[:] = pypto.rms_norm(x, w, eps)


@pypto.jit
def rms_norm_rows(x: pypto.Tensor([pypto.DYN, 64], pypto.DT_FP32),
                  out: pypto.Tensor([pypto.DYN, 64], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(8, 64)
    for i in pypto.loop(x.shape[0] // 8, name="rows", idx_name="i"):
        t = x[i * 8:i * 8 + 8, :]
        out[i * 8:, 0:] = pypto.rms_norm(t)       # no gamma, default epsilon


def golden(x, w, eps):
    x64 = x.astype(np.float64)
    y = x64 / np.sqrt((x64 * x64).mean(-1, keepdims=True) + eps)
    return y if w is None else y * w.astype(np.float64)


def test_annotation_spelling_and_rank():
    assert repr(pypto.tensor()) == repr(pypto.Tensor())
    assert repr(pypto.tensor([pypto.DYN, 8], pypto.DT_FP16)) == \
        repr(pypto.Tensor([pypto.DYN, 8], pypto.DT_FP16))
    text = rms_norm_whole.trace(x=np.zeros((2, 8, 64), np.float32),
                                w=np.zeros(64, np.float32),
                                out=np.zeros((2, 8, 64), np.float32), eps=1e-6).mlir
    assert "vec_tile = #pto.vec_tile<[8, 8, 64]>" in text
    for op in ("pto.sum", "pto.sqrt", "pto.div", "pto.reshape", "pto.mul"):
        assert op in text, op


@pytest.mark.parametrize("shape, dtype, tol", [((2, 8, 64), np.float32, 1e-5),
                                                ((16, 64), np.float16, 2e-3)])
def test_rms_norm_runs(shape, dtype, tol):
    rng = np.random.default_rng(14)
    x = (rng.standard_normal(shape) * 3).astype(dtype)
    w = rng.standard_normal(shape[-1]).astype(dtype)
    out = np.zeros_like(x)
    rms_norm_whole(x, w, out, 1e-5)
    np.testing.assert_allclose(out.astype(np.float64), golden(x, w, 1e-5), rtol=tol, atol=tol)


def test_rms_norm_without_gamma_in_a_loop_runs():
    x = np.random.default_rng(15).standard_normal((24, 64)).astype(np.float32)
    out = np.zeros_like(x)
    rms_norm_rows(x, out)
    np.testing.assert_allclose(out, golden(x, None, 1e-6), rtol=1e-5, atol=1e-6)


def test_rms_norm_through_tile_graph_and_cpp(tmp_path):
    """Bitwise equal to pto-run after --pto-tile-graph-pipeline and as
    pto-isa C++ on the host emulation."""
    from pto_mlir import codegen
    import pto_mlir.ir as ir
    rng = np.random.default_rng(16)
    inputs = {"x": rng.standard_normal((2, 8, 64)).astype(np.float32),
              "w": rng.standard_normal(64).astype(np.float32),
              "out": np.zeros((2, 8, 64), np.float32)}
    traced = rms_norm_whole.trace(**inputs, eps=1e-6)
    direct = {k: v.copy() for k, v in inputs.items()}
    traced.run(**direct)
    np.testing.assert_allclose(direct["out"], golden(inputs["x"], inputs["w"], 1e-6),
                               rtol=1e-5, atol=1e-6)

    graph = traced.module().clone()
    graph.run_pipeline("pto-tile-graph-pipeline")
    tiled = {k: v.copy() for k, v in inputs.items()}
    ir.Module.parse(str(graph), "tile graph").run(tiled)
    np.testing.assert_array_equal(tiled["out"], direct["out"])

    kernel = tmp_path / "rms_norm.mlir"
    kernel.write_text(traced.mlir)
    exe = codegen.build(kernel, tmp_path)
    outputs, _ = codegen.run(exe, tmp_path, inputs, {k: "fp32" for k in inputs}, ["out"])
    np.testing.assert_array_equal(outputs["out"], direct["out"])


def test_misuse_is_located():
    @pypto.jit
    def wrong_gamma(x: pypto.Tensor([8, 64], pypto.DT_FP32),
                    w: pypto.Tensor([32], pypto.DT_FP32),
                    y: pypto.Tensor([8, 64], pypto.DT_FP32)):
        pypto.set_vec_tile_shapes(8, 64)
        y[:] = pypto.rms_norm(x, w)

    with pytest.raises(TraceError, match=r"rms_norm\(gamma\) has shape \[32\].*\[C\] = \[64\]") \
            as e:
        wrong_gamma.trace()
    assert_error_at_kernel_line(e, wrong_gamma, 5)

    @pypto.jit
    def int_input(x: pypto.Tensor([8, 64], pypto.DT_INT32),
                  y: pypto.Tensor([8, 64], pypto.DT_INT32)):
        pypto.set_vec_tile_shapes(8, 64)
        y[:] = pypto.rms_norm(x)

    with pytest.raises(TraceError, match=r"rms_norm\(input\) is DT_INT32"):
        int_input.trace()

    @pypto.jit
    def shapeless_workspace(x: pypto.Tensor([8, 64], pypto.DT_FP32)):
        pypto.tensor()

    with pytest.raises(TraceError, match=r"needs its shape and dtype") as e:
        shapeless_workspace.trace()
    assert_error_at_kernel_line(e, shapeless_workspace, 2)


@pypto.jit
def rms_norm_per_head(x: pypto.Tensor([16, 64], pypto.DT_FP32),
                      g: pypto.Tensor([2, 64], pypto.DT_FP32),
                      y: pypto.Tensor([16, 64], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(8, 64)
    for i in pypto.loop(2, name="heads", idx_name="i"):
        # a 1-D gamma row of a GM tensor; written at a run-time row of a
        # static tensor (the tile, not the open slice, gives the extent)
        y[i * 8:, 0:] = pypto.rms_norm(x[i * 8:i * 8 + 8, :], g[i], 1e-6)


def test_rms_norm_with_a_gamma_row_at_run_time_rows():
    rng = np.random.default_rng(17)
    x = rng.standard_normal((16, 64)).astype(np.float32)
    g = rng.standard_normal((2, 64)).astype(np.float32)
    y = np.zeros_like(x)
    rms_norm_per_head(x, g, y)
    expected = np.concatenate([golden(x[i * 8:i * 8 + 8], g[i], 1e-6) for i in range(2)])
    np.testing.assert_allclose(y, expected, rtol=1e-5, atol=1e-6)
