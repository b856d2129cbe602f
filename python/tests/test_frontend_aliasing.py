"""A kernel called with one host tensor for two parameters (PyPTO kernels
keep state in place by passing it as both an input and an output) sees one
GM buffer: reads of the input see the writes to the output. The trace has
one kernel argument for both; pto-run and the tile graph agree with NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import pto_mlir.frontend as pypto

F32 = pypto.DT_FP32


@pypto.jit
def accumulate(x: pypto.Tensor([pypto.DYN, 64], F32), state_in: pypto.Tensor([8, 64], F32),
               state_out: pypto.Tensor([8, 64], F32)):
    pypto.set_vec_tile_shapes(8, 64)
    for i in pypto.loop(x.shape[0] // 8, name="blocks", idx_name="i"):
        s = pypto.view(state_in, [8, 64], [0, 0])
        state_out[0:, 0:] = s + x[i * 8:i * 8 + 8, :]


def test_the_same_array_twice_is_one_buffer():
    rng = np.random.default_rng(8)
    x = rng.standard_normal((32, 64)).astype(np.float32)
    state = rng.standard_normal((8, 64)).astype(np.float32)
    expected = state + x.reshape(4, 8, 64).sum(0)
    accumulate(x, state, state)
    np.testing.assert_allclose(state, expected, rtol=1e-5, atol=1e-5)


def test_distinct_arrays_stay_distinct():
    x = np.ones((32, 64), np.float32)
    state_in, state_out = np.zeros((8, 64), np.float32), np.zeros((8, 64), np.float32)
    accumulate(x, state_in, state_out)
    np.testing.assert_array_equal(state_out, np.ones((8, 64), np.float32))


def test_aliased_torch_tensors_through_the_tile_graph():
    torch = pytest.importorskip("torch")
    import pto_mlir.ir as ir

    def tile_graph(traced, arrays):
        graph = traced.module().clone()
        graph.run_pipeline("pto-tile-graph-pipeline")
        ir.Module.parse(str(graph), "tile graph").run(arrays)

    x = torch.randn(24, 64)
    state = torch.randn(8, 64)
    expected = state + x.reshape(3, 8, 64).sum(0)
    from pto_mlir.frontend.jit import run_kernels_with
    with run_kernels_with(tile_graph):
        accumulate(x, state, state)
    np.testing.assert_allclose(state.numpy(), expected.numpy(), rtol=1e-5, atol=1e-5)
    assert accumulate.trace(x=(None, 64)).mlir.count("!pto.tensor<8x64xf32>") >= 2   # unaliased

