"""The constructs real PyPTO kernels use, traced and run in the reference
interpreter (pto-run's engine, through the bindings) against NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import pto_mlir.frontend as pypto
from trace_errors import assert_error_at_kernel_line

F32 = pypto.DT_FP32
ROWS = pypto.Tensor([pypto.DYN, 64], F32)


@pypto.jit
def unrolled_rows(x: ROWS, y: ROWS, s: pypto.Tensor([1, 64], F32)):
    pypto.set_vec_tile_shapes(4, 64)
    for i, k in pypto.loop_unroll(0, x.shape[0], 1, name="rows", idx_name="i",
                                  unroll_list=[4, 2]):
        t = x[i:i + k, :]
        y[i:, 0:] = 1.0 - t * 2.0
        s[:] = s + t.sum(0, keepdim=True)


@pytest.mark.parametrize("rows", [7, 8, 1])
def test_loop_unroll_slices_and_gm_accumulation_run(rows):
    rng = np.random.default_rng(rows)
    x = rng.standard_normal((rows, 64)).astype(np.float32)
    y = np.full((rows, 64), 9.0, np.float32)
    s0 = rng.standard_normal((1, 64)).astype(np.float32)
    s = s0.copy()
    traced = unrolled_rows.trace(x=(None, 64), y=(None, 64), s=(1, 64))
    stats = traced.run(x, y, s).stats
    np.testing.assert_array_equal(y, np.float32(1.0) - x * np.float32(2.0))
    # Every loop path adds its k-row block's column sums into s, in order.
    expected = s0.copy()
    start = 0
    for k in (4, 2, 1):
        while rows - start >= k:
            expected = expected + x[start:start + k].sum(0, keepdims=True, dtype=np.float32)
            start += k
    np.testing.assert_allclose(s, expected, rtol=1e-6, atol=1e-6)
    assert stats["loop_iterations"] == {7: 3, 8: 2, 1: 1}[rows]


@pypto.jit
def running_sum(x: ROWS, y: ROWS):
    pypto.set_vec_tile_shapes(8, 64)
    for j in pypto.loop(pypto.ceildiv(x.shape[0], 32), name="blocks", idx_name="j"):
        acc = pypto.tensor([8, 64], F32, "acc")
        for i in pypto.loop(4, name="parts", idx_name="i"):
            t = pypto.view(x, [8, 64], [j * 32 + i * 8, 0])
            if pypto.is_loop_begin(i):
                acc[:] = t
            else:
                a = pypto.view(acc, [8, 64], [0, 0])
                if pypto.is_loop_end(i):
                    y[j * 8:, :] = a + t
                else:
                    acc[:] = a + t


def test_workspace_state_across_a_run_time_if_runs():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((64, 64)).astype(np.float32)
    y = np.zeros((16, 64), np.float32)
    running_sum.trace(x=(None, 64), y=(None, 64)).run(x, y)
    parts = x.reshape(2, 4, 8, 64)
    expected = ((parts[:, 0] + parts[:, 1]) + parts[:, 2]) + parts[:, 3]
    np.testing.assert_array_equal(y, expected.reshape(16, 64))


@pypto.jit
def tile_reshape(x: pypto.Tensor([8, 64], F32), y: pypto.Tensor([64, 8], F32)):
    pypto.set_vec_tile_shapes(8, 64)
    t = x.exp()
    t.axpy_(x, 0.5)
    pypto.set_vec_tile_shapes(64, 8)
    y.move(pypto.reshape(t, [64, 8]))


def test_tile_reshape_axpy_and_move_run():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((8, 64)).astype(np.float32)
    y = np.zeros((64, 8), np.float32)
    tile_reshape.trace().run(x, y)
    np.testing.assert_allclose(y, (np.exp(x) + x * np.float32(0.5)).reshape(64, 8),
                               rtol=2e-6, atol=1e-6)


@pypto.jit
def online_softmax_blocks(s: pypto.Tensor([32, 16], F32), v: pypto.Tensor([32, 8], F32),
                          o: pypto.Tensor([8, 16], F32), ml: pypto.Tensor([2, 16], F32)):
    """Column-wise attention over two key blocks of s^T (keys on axis 0), the
    950 forward's layout: o = v^T softmax(s * 0.5, axis 0)."""
    pypto.set_vec_tile_shapes(16, 16)
    pypto.set_cube_tile_shapes([16, 16], [16, 16], [16, 16])
    p0, m0, l0 = pypto.experimental.online_softmax(s[0:16, :], 0.5)
    p1, m1, l1 = pypto.experimental.online_softmax(s[16:32, :], 0.5)
    o0 = pypto.matmul(pypto.cast(v[0:16, :], pypto.DT_BF16), p0, F32, a_trans=True)
    o1 = pypto.matmul(pypto.cast(v[16:32, :], pypto.DT_BF16), p1, F32, a_trans=True)
    m, l_sum, acc = pypto.experimental.online_softmax_update(m0, l0, o0, m1, l1, o1)
    o[:] = pypto.div(acc, l_sum, precision_type=pypto.PrecisionType.INTRINSIC)
    ml[0:1, :] = m
    ml[1:2, :] = l_sum


def test_online_softmax_decomposition_runs():
    from pto_mlir.golden.bf16 import bf16_bits_to_f32, f32_to_bf16_bits
    rng = np.random.default_rng(5)
    s = rng.standard_normal((32, 16)).astype(np.float32) * 3
    v = rng.standard_normal((32, 8)).astype(np.float32)
    o = np.zeros((8, 16), np.float32)
    ml = np.zeros((2, 16), np.float32)
    online_softmax_blocks.trace().run(s, v, o, ml)
    scaled = s * np.float32(0.5)
    m = scaled.max(axis=0)
    np.testing.assert_allclose(ml[0], m, rtol=1e-6)
    np.testing.assert_allclose(ml[1], np.exp(scaled - m).sum(axis=0), rtol=1e-5)
    # The probabilities and V go through BF16 into the matmuls: compare with that rounding.
    bf = lambda a: bf16_bits_to_f32(f32_to_bf16_bits(a.astype(np.float32)))  # noqa: E731
    blocks = []
    for k in (0, 16):
        mk = scaled[k:k + 16].max(axis=0)
        blocks.append((mk, np.exp(scaled[k:k + 16] - mk)))
    expected = sum(bf(v[k:k + 16]).T @ bf(p) * np.exp(mk - m)
                   for k, (mk, p) in zip((0, 16), blocks)) / ml[1]
    np.testing.assert_allclose(o, expected, rtol=2e-5, atol=1e-6)


@pypto.jit
def full_tiles_only(x: ROWS, y: ROWS):
    pypto.set_vec_tile_shapes(8, 64)
    n = x.shape[0]
    for i in pypto.loop(pypto.ceildiv(n, 8), idx_name="i"):
        t = pypto.view(x, [8, 64], [i * 8, 0], valid_shape=[(n - i * 8).min(8), 64])
        if i * 8 + 8 <= n:
            y[i * 8:, :] = t
        elif i == 0:
            y[i * 8:, :] = t * 2.0


@pytest.mark.parametrize("rows", [13, 5])
def test_symbolic_comparison_if_runs(rows):
    x = np.random.default_rng(rows).standard_normal((rows, 64)).astype(np.float32)
    y = np.full((rows, 64), 7.0, np.float32)
    full_tiles_only.trace(x=(None, 64), y=(None, 64)).run(x, y)
    expected = np.full((rows, 64), 7.0, np.float32)
    if rows >= 8:
        expected[:8] = x[:8]
    else:
        expected[:] = x * 2
    np.testing.assert_array_equal(y, expected)


@pypto.jit
def state_and_branches(x: ROWS, y: ROWS, z: pypto.Tensor([64, 8], F32)):
    pypto.set_vec_tile_shapes(8, 64)
    n = x.shape[0]
    for j in pypto.loop(n // 32, name="blocks", idx_name="j"):
        acc = pypto.tensor([8, 64], F32, "acc")
        for i in pypto.loop(4, name="parts", idx_name="i"):
            t = x[j * 32 + i * 8:j * 32 + i * 8 + 8, :]
            if pypto.is_loop_begin(i):
                acc[:] = t
            else:
                a = pypto.view(acc, [8, 64], [0, 0])
                if pypto.is_loop_end(i):
                    y[j * 8:, :] = a + t
                else:
                    acc[:] = a + t
        if j * 32 + 64 > n:
            pypto.set_vec_tile_shapes(64, 8)
            z.move(pypto.reshape(1.0 - x[j * 32:j * 32 + 8, :], [64, 8]))


def test_new_constructs_through_tile_graph_and_cpp(tmp_path):
    """The traced workspace, run-time ifs, slices and tile reshape through
    --pto-tile-graph-pipeline and through pto-isa C++ on the host emulation:
    bitwise equal to pto-run on the traced kernel."""
    from pto_mlir import codegen
    import pto_mlir.ir as ir
    rng = np.random.default_rng(6)
    inputs = {"x": rng.standard_normal((64, 64)).astype(np.float32),
              "y": np.zeros((16, 64), np.float32), "z": np.zeros((64, 8), np.float32)}
    traced = state_and_branches.trace(x=(None, 64), y=(None, 64), z=(64, 8))
    direct = {k: v.copy() for k, v in inputs.items()}
    traced.run(**direct)
    parts = inputs["x"].reshape(2, 4, 8, 64)
    np.testing.assert_array_equal(
        direct["y"], (((parts[:, 0] + parts[:, 1]) + parts[:, 2]) + parts[:, 3]).reshape(16, 64))
    np.testing.assert_array_equal(direct["z"], (1.0 - inputs["x"][32:40]).reshape(64, 8))

    graph = traced.module().clone()
    graph.run_pipeline("pto-tile-graph-pipeline")
    tiled = {k: v.copy() for k, v in inputs.items()}
    ir.Module.parse(str(graph), "tile graph").run(tiled)
    for name in ("y", "z"):
        np.testing.assert_array_equal(tiled[name], direct[name])

    kernel = tmp_path / "state_and_branches.mlir"
    kernel.write_text(traced.mlir)
    exe = codegen.build(kernel, tmp_path)
    outputs, _ = codegen.run(exe, tmp_path, inputs, {k: "fp32" for k in inputs}, ["y", "z"])
    for name in ("y", "z"):
        np.testing.assert_array_equal(outputs[name], direct[name])


# kimi_linear's kda_fused_decode writes `pypto.loop(n_batch, ..., unroll=True)`: PyPTO's
# loop reads only name, idx_name, unroll_list, submit_before_loop and parallel, so the
# keyword has no effect there, nor here.
@pypto.jit
def heads_then_rows(x: pypto.Tensor([2, 8, 64], F32), y: pypto.Tensor([2, 8, 64], F32)):
    pypto.set_vec_tile_shapes(8, 64)
    for h in pypto.loop(2, name="heads", idx_name="h", parallel=True):
        for b in pypto.loop(1, name="rows", idx_name="b", unroll=True):
            t = pypto.reshape(pypto.view(x, [1, 8, 64], [h, b * 8, 0]), [8, 64])
            pypto.assemble(pypto.reshape(t * 2.0 + 1.0, [1, 8, 64]), [h, b * 8, 0], y)


def test_loop_unroll_keyword_is_accepted_and_changes_nothing():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 8, 64)).astype(np.float32)
    y = np.zeros_like(x)
    traced = heads_then_rows.trace()
    traced.run(x, y)
    np.testing.assert_array_equal(y, x * np.float32(2.0) + np.float32(1.0))
    rows_loop = next(line for line in str(traced).splitlines() if 'pto.loop "rows"' in line)
    assert "attributes" not in rows_loop, rows_loop   # no unroll_list, nothing carried


def test_loop_unroll_keyword_takes_a_bool():
    @pypto.jit
    def numeric_unroll(x: pypto.Tensor([8, 64], F32), y: pypto.Tensor([8, 64], F32)):
        pypto.set_vec_tile_shapes(8, 64)
        for i in pypto.loop(1, unroll=4):
            y[:] = x + 1.0

    with pytest.raises(pypto.TraceError, match=r"loop\(unroll=4\) must be True or False .*"
                                                r"unroll_list=\[\.\.\.\]") as info:
        numeric_unroll.trace()
    assert_error_at_kernel_line(info, numeric_unroll, 3)
