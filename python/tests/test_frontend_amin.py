"""pypto.amin / Tile.amin: ``-amax(-x)`` (exact), along either dim with and
without keepdim, against NumPy in pto-run and after the tile graph."""

from __future__ import annotations

import numpy as np
import pytest

import pto_mlir.frontend as pypto
from pto_mlir.frontend import TraceError
from trace_errors import assert_error_at_kernel_line

F32 = pypto.DT_FP32


@pypto.jit
def row_and_col_min(x: pypto.Tensor([16, 64], F32), rows: pypto.Tensor([16, 1], F32),
                    cols: pypto.Tensor([1, 64], F32)):
    pypto.set_vec_tile_shapes(16, 64)
    t = pypto.view(x, [16, 64], [0, 0], valid_shape=[16, 48])
    rows[:] = pypto.amin(t, -1, keepdim=True)
    cols[0:, 0:] = t.amin(0, keepdim=True)


def test_amin_runs_and_matches_numpy():
    import pto_mlir.ir as ir
    x = np.random.default_rng(11).standard_normal((16, 64)).astype(np.float32)
    x[3, 60] = -100.0            # outside the valid columns: not seen
    traced = row_and_col_min.trace()
    assert traced.mlir.count("pto.neg") == 4 and "pto.amin" not in traced.mlir
    out = {"x": x, "rows": np.zeros((16, 1), np.float32), "cols": np.zeros((1, 64), np.float32)}
    traced.run(**out)
    np.testing.assert_array_equal(out["rows"][:, 0], x[:, :48].min(-1))
    np.testing.assert_array_equal(out["cols"][0, :48], x[:, :48].min(0))

    graph = traced.module().clone()
    graph.run_pipeline("pto-tile-graph-pipeline")
    tiled = {"x": x, "rows": np.zeros((16, 1), np.float32), "cols": np.zeros((1, 64), np.float32)}
    ir.Module.parse(str(graph), "tile graph").run(tiled)
    np.testing.assert_array_equal(tiled["rows"], out["rows"])
    np.testing.assert_array_equal(tiled["cols"][:, :48], out["cols"][:, :48])


def test_amin_of_integers_is_located():
    @pypto.jit
    def int_min(x: pypto.Tensor([8, 64], pypto.DT_INT32), y: pypto.Tensor([8, 1], pypto.DT_INT32)):
        pypto.set_vec_tile_shapes(8, 64)
        y[:] = pypto.amin(x, -1, keepdim=True)

    with pytest.raises(TraceError, match=r"amin\(input\) is DT_INT32") as e:
        int_min.trace()
    assert_error_at_kernel_line(e, int_min, 3)
