"""The constructs of minimax's msa_main_branch (a flash-attention kernel of
PyPTO-Gym): running softmax state started with ``pypto.full([R, 1], -inf,
valid_shape=[n, 1])`` at a run-time row count, and
``pypto.experimental.auto_mix_partition(1)``. Our own kernel of the same
shape runs in pto-run, through the tile graph and as emitted C++ on the
host emulation against NumPy; misuse is an error at the line."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import pto_mlir.frontend as pypto
from pto_mlir import codegen
from pto_mlir.frontend.jit import OptionRemark
from pto_mlir.tools import run_tile_graph
from trace_errors import assert_statement_error

F32 = pypto.DT_FP32
CHUNKS = 4


@pypto.jit
def online_softmax(x: pypto.Tensor([pypto.DYN, 64 * CHUNKS], F32),
                   y: pypto.Tensor([pypto.DYN, 64], F32)):
    """y[i, j] = sum_c exp(x[i, 64 c + j] - max_i) / sum_k exp(x[i, k] - max_i),
    over column chunks with the running max and sum (n <= 32 rows)."""
    pypto.experimental.auto_mix_partition(1)
    n = x.shape[0]
    pypto.set_vec_tile_shapes(32, 64)
    m = pypto.full([32, 1], float("-inf"), F32, valid_shape=[n, 1])
    s = pypto.full([32, 1], 0.0, F32, valid_shape=[n, 1])
    o = pypto.full([32, 64], 0.0, F32, valid_shape=[n, 64])
    for c in range(CHUNKS):
        chunk = pypto.view(x, [32, 64], [0, 64 * c], valid_shape=[n, 64])
        m_new = pypto.maximum(m, pypto.amax(chunk, -1, True))
        p = pypto.exp(chunk - m_new)
        alpha = pypto.exp(m - m_new)   # 0 on the first chunk: exp(-inf)
        s[:] = s * alpha + pypto.sum(p, -1, True)
        o[:] = o * alpha + p
        m[:] = m_new
    pypto.assemble(o / s, [0, 0], y)


def _reference(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e.reshape(len(x), CHUNKS, 64).sum(1) / e.sum(-1, keepdims=True)


@pytest.mark.parametrize("rows", [13, 32])
def test_running_state_from_full_with_valid_shape_runs_everywhere(rows, tmp_path):
    x = np.random.default_rng(rows).standard_normal((rows, 64 * CHUNKS)).astype(np.float32) * 4
    y = np.zeros((rows, 64), np.float32)
    with pytest.warns(OptionRemark, match=r"auto_mix_partition\(1\)"):
        traced = online_softmax.trace(x=(None, 64 * CHUNKS), y=(None, 64))
    assert "%m = pto.view %full[0, 0] valid [%n, 1]" in traced.mlir, traced.mlir
    direct = {"x": x, "y": y.copy()}
    traced.run(**direct)
    np.testing.assert_allclose(direct["y"], _reference(x.astype(np.float64)), rtol=1e-5,
                               atol=1e-6)

    source = tmp_path / "kernel.mlir"
    source.write_text(traced.mlir)
    inputs = {"x": x, "y": y}
    tiled, _ = run_tile_graph(source, tmp_path / "tg", inputs, {"x": "fp32", "y": "fp32"}, ["y"])
    np.testing.assert_array_equal(tiled["y"], direct["y"])
    emitted, _ = codegen.run(codegen.build(source, tmp_path / "cpp"), tmp_path / "cpp", inputs,
                             {"x": "f32", "y": "f32"}, ["y"])
    np.testing.assert_allclose(emitted["y"], direct["y"], rtol=1e-6, atol=1e-7)


def test_auto_mix_partition_is_carried_not_modelled():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OptionRemark)
        text = online_softmax.trace(x=(None, 64 * CHUNKS), y=(None, 64)).mlir
    kernel_line = next(line for line in text.splitlines() if "pto.pypto_options" in line)
    assert '"pass_options" = {"auto_mix_partition" = 1 : i64}' in kernel_line, kernel_line


def test_non_finite_fill_values_are_exact():
    @pypto.jit
    def fills(y: pypto.Tensor([8, 64], F32), z: pypto.Tensor([8, 64], F32),
              w: pypto.Tensor([8, 64], F32)):
        pypto.set_vec_tile_shapes(8, 64)
        y[:] = pypto.full([8, 64], float("-inf"), F32)
        z[:] = pypto.full([8, 64], float("inf"), F32)
        w[:] = pypto.full([8, 64], float("nan"), F32)

    y, z, w = (np.zeros((8, 64), np.float32) for _ in range(3))
    fills.trace().run(y, z, w)
    assert np.all(y == -np.inf) and np.all(z == np.inf) and np.all(np.isnan(w))


@pytest.mark.parametrize("call, message", [
    ("pypto.experimental.auto_mix_partition(2)",
     r"experimental.auto_mix_partition\(2\): PyPTO takes 0 \(off\) or 1 \(on\)"),
    ("pypto.experimental.auto_mix_partition(True)",
     r"experimental.auto_mix_partition\(True\): PyPTO takes 0"),
    ("pypto.full([8, 64], 0.0, pypto.DT_FP32, valid_shape=[8])",
     r"full\(valid_shape=\[8\]\) needs one entry per dim of size \[8, 64\]"),
])
def test_misuse_is_an_error_at_the_line(call, message):
    assert_statement_error(pypto, "y: pypto.Tensor([8, 16], pypto.DT_FP32)", call, message)
