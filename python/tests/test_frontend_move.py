"""``ws[:] = value`` (PyPTO's ``ws.move(value)``) of a ``pypto.tensor``
workspace with a value of another shape: the workspace takes the value's
shape (frontend/move.py). A running row maximum kept in a
``pypto.tensor([1], DT_FP32)`` and used as a ``[1, 1]`` operand, run in
pto-run and through the tile graph against NumPy; the cases it does not
cover are located errors."""

from __future__ import annotations

import numpy as np
import pytest

import pto_mlir.frontend as pypto
from pto_mlir.frontend import TraceError
from trace_errors import assert_error_at_kernel_line

F32 = pypto.DT_FP32
BLOCKS = 3


@pypto.jit
def row_softmax_blocks(x: pypto.Tensor([pypto.DYN, 64 * BLOCKS], F32),
                       y: pypto.Tensor([pypto.DYN, 64 * BLOCKS], F32)):
    for m in pypto.loop(x.shape[0], name="rows", idx_name="m"):
        running_max = pypto.tensor([1], F32, "running_max")
        for t in range(BLOCKS):
            pypto.set_vec_tile_shapes(1, 64)
            block_max = pypto.amax(pypto.view(x, [1, 64], [m, t * 64]), dim=-1, keepdim=True)
            if t == 0:
                running_max[:] = block_max
            else:
                running_max[:] = pypto.maximum(running_max, block_max)
        total = pypto.tensor([1], F32, "total")
        for t in range(BLOCKS):
            e = pypto.exp(pypto.sub(pypto.view(x, [1, 64], [m, t * 64]), running_max))
            if t == 0:
                total.move(pypto.sum(e, dim=-1, keepdim=True))
            else:
                total[:] = pypto.add(total, pypto.sum(e, dim=-1, keepdim=True))
        for t in range(BLOCKS):
            e = pypto.exp(pypto.sub(pypto.view(x, [1, 64], [m, t * 64]), running_max))
            pypto.assemble(pypto.div(e, total), [m, t * 64], y)


def test_move_rebinds_the_workspace_to_the_value_shape():
    text = row_softmax_blocks.trace(x=(None, 64 * BLOCKS), y=(None, 64 * BLOCKS)).mlir
    assert "pto.workspace : !pto.tensor<1xf32>" in text
    assert "pto.workspace : !pto.tensor<1x1xf32>" in text


def test_move_runs_in_pto_run_and_the_tile_graph():
    import pto_mlir.ir as ir
    x = (np.random.default_rng(21).standard_normal((5, 64 * BLOCKS)) * 4).astype(np.float32)
    traced = row_softmax_blocks.trace(x=(None, 64 * BLOCKS), y=(None, 64 * BLOCKS))
    direct = {"x": x, "y": np.zeros_like(x)}
    traced.run(**direct)
    x64 = x.astype(np.float64)
    e = np.exp(x64 - x64.max(-1, keepdims=True))
    np.testing.assert_allclose(direct["y"], e / e.sum(-1, keepdims=True), rtol=1e-5, atol=1e-7)

    graph = traced.module().clone()
    graph.run_pipeline("pto-tile-graph-pipeline")
    tiled = {"x": x, "y": np.zeros_like(x)}
    ir.Module.parse(str(graph), "tile graph").run(tiled)
    np.testing.assert_array_equal(tiled["y"], direct["y"])


def test_what_a_move_does_not_cover_is_located():
    @pypto.jit
    def argument_rank(x: pypto.Tensor([1, 64], F32), y: pypto.Tensor([64], F32)):
        pypto.set_vec_tile_shapes(1, 64)
        y[:] = pypto.exp(x)

    with pytest.raises(TraceError, match=r"rank-2 tile \[1, 64\] cannot be written into the "
                                         r"rank-1 tensor 'y'") as e:
        argument_rank.trace()
    assert_error_at_kernel_line(e, argument_rank, 3)

    @pypto.jit
    def shape_in_a_branch(x: pypto.Tensor([4, 64], F32), y: pypto.Tensor([4, 64], F32)):
        pypto.set_vec_tile_shapes(1, 64)
        for i in pypto.loop(4, name="rows", idx_name="i"):
            acc = pypto.tensor([1], F32, "acc")
            if pypto.is_loop_begin(i):
                acc[:] = pypto.amax(pypto.view(x, [1, 64], [i, 0]), dim=-1, keepdim=True)

    with pytest.raises(TraceError, match=r"inside a run-time `if`.*not supported yet") as e:
        shape_in_a_branch.trace()
    assert_error_at_kernel_line(e, shape_in_a_branch, 6)
