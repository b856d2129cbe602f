"""Values assigned in the branches of a run-time ``if`` and read after it
(frontend/if_results.py): the value of the branch taken, as in Python,
carried through a workspace written at the end of each branch. The kernels
below run 13 rows in blocks of 8 (the last block has 5 valid rows), so the
first block takes the ``is_loop_begin`` branch, the last the
``is_loop_end`` one; each runs in pto-run against NumPy, one also through
the tile graph and as emitted C++ on the host emulation."""

from __future__ import annotations

import numpy as np
import pytest

import pto_mlir.frontend as pypto
from pto_mlir.frontend import TraceError
from tile_graph_and_cpp import assert_tile_graph_and_cpp_equal, write_verified

F32 = pypto.DT_FP32
ROWS = 13
X = pypto.Tensor([pypto.DYN, 64], F32)
F32_ARGS = {"x": "fp32", "y": "fp32"}


@pypto.jit
def both_branches(x: X, y: X):
    """Each branch assigns `u`; the tail block is partially valid."""
    n = x.shape[0]
    for m in pypto.loop((n + 7) // 8, name="rows", idx_name="m"):
        pypto.set_vec_tile_shapes(8, 64)
        t = pypto.view(x, [8, 64], [m * 8, 0], valid_shape=[(n - m * 8).min(8), 64])
        if pypto.is_loop_begin(m):
            u = t * 2.0
        else:
            u = t + 1.0
        y[m * 8:, :] = u


def both_branches_reference(x):
    y = x + 1
    y[:8] = 2 * x[:8]
    return y


@pypto.jit
def one_branch_keeps_old(x: X, y: X):
    """Only the then branch assigns `u` (from its old value); the else
    branch reads the value from before the `if`, not the then branch's."""
    n = x.shape[0]
    for m in pypto.loop((n + 7) // 8, name="rows", idx_name="m"):
        pypto.set_vec_tile_shapes(8, 64)
        t = pypto.view(x, [8, 64], [m * 8, 0], valid_shape=[(n - m * 8).min(8), 64])
        u = t * 3.0
        v = t
        if pypto.is_loop_end(m):
            u = u + 1.0
        else:
            v = u - t
        y[m * 8:, :] = u + v


def one_branch_keeps_old_reference(x):
    y = 3 * x + 2 * x
    y[8:] = 3 * x[8:] + 1 + x[8:]
    return y


@pypto.jit
def nested(x: X, y: X):
    """The else branch's value comes from an inner run-time `if`."""
    n = x.shape[0]
    for m in pypto.loop((n + 7) // 8, name="rows", idx_name="m"):
        pypto.set_vec_tile_shapes(8, 64)
        t = pypto.view(x, [8, 64], [m * 8, 0], valid_shape=[(n - m * 8).min(8), 64])
        if pypto.is_loop_begin(m):
            u = t * 2.0
        else:
            if pypto.is_loop_end(m):
                u = t * 4.0
            else:
                u = t + 1.0
        y[m * 8:, :] = u


def nested_reference(x):
    y = 4 * x
    y[:8] = 2 * x[:8]
    return y


CASES = {
    "both_branches": (both_branches, both_branches_reference),
    "one_branch_keeps_old": (one_branch_keeps_old, one_branch_keeps_old_reference),
    "nested": (nested, nested_reference),
}


def _assert_every_column(traced, tmp_path, x, y, reference=None):
    """pto-run (against `reference(x)` in float64 when given), the verifier,
    the tile graph and the emitted C++ (both bit for bit to pto-run)."""
    direct = y.copy()
    traced.run(x, direct)
    if reference is not None:
        np.testing.assert_allclose(direct, reference(x.astype(np.float64)),
                                   rtol=1e-6, atol=1e-6)
    source = write_verified(traced, tmp_path)
    assert_tile_graph_and_cpp_equal(source, tmp_path, {"x": x, "y": y}, F32_ARGS,
                                    {"y": direct})


def _inputs():
    x = np.random.default_rng(7).standard_normal((ROWS, 64)).astype(np.float32)
    return x, np.zeros((ROWS, 64), np.float32)


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_value_of_the_branch_taken_in_pto_run(name):
    kernel, reference = CASES[name]
    x, y = _inputs()
    traced = kernel.trace(x=(None, 64), y=(None, 64))
    assert "pto.workspace" in traced.mlir
    traced.run(x, y)
    np.testing.assert_allclose(y, reference(x.astype(np.float64)), rtol=1e-6, atol=1e-6)


def test_partially_valid_extents_go_through_the_if():
    text = both_branches.trace(x=(None, 64), y=(None, 64)).mlir
    # The tail block's 5 valid rows reach the read after the `if` as the
    # if's results, each branch yielding its value's extents.
    assert "scf.if %loop_begin_m -> (index, index) {" in text
    assert "pto.view %u_if[0, 0] valid [%u_if_valid0, %u_if_valid1]" in text


def test_tile_graph_and_emitted_cpp_agree(tmp_path):
    x, y = _inputs()
    traced = both_branches.trace(x=(None, 64), y=(None, 64))
    _assert_every_column(traced, tmp_path, x, y, both_branches_reference)


def test_a_name_not_read_after_the_if_costs_nothing():
    @pypto.jit
    def local_only(x: X, y: X):
        for m in pypto.loop(x.shape[0] // 8, name="rows", idx_name="m"):
            pypto.set_vec_tile_shapes(8, 64)
            t = pypto.view(x, [8, 64], [m * 8, 0])
            if pypto.is_loop_begin(m):
                u = t * 2.0
                y[m * 8:, :] = u
            else:
                u = t + 1.0
                w = u * u
                y[m * 8:, :] = w

    text = local_only.trace(x=(None, 64), y=(None, 64)).mlir
    assert "pto.workspace" not in text and "-> (index" not in text
    x = np.arange(16 * 64, dtype=np.float32).reshape(16, 64) / 100
    y = np.zeros_like(x)
    local_only.trace(x=(None, 64), y=(None, 64)).run(x, y)
    np.testing.assert_allclose(y[:8], 2 * x[:8], rtol=1e-6)
    np.testing.assert_allclose(y[8:], (x[8:] + 1) ** 2, rtol=1e-6)


def test_trace_time_ifs_and_equal_python_values_are_plain_python():
    @pypto.jit
    def plain(x: pypto.Tensor([8, 64], F32), y: pypto.Tensor([8, 64], F32)):
        pypto.set_vec_tile_shapes(8, 64)
        for m in pypto.loop(1, name="once", idx_name="m"):
            t = pypto.view(x, [8, 64], [0, 0])
            if x.shape[0] > 4:          # trace time: Python's own if
                scale = 2.0
            else:
                scale = 5.0
            if pypto.is_loop_begin(m):  # run time, equal Python values
                bias = 1.0
                u = t * scale
            else:
                bias = 1.0
                u = t * 3.0
            y[:, :] = u + bias

    traced = plain.trace()
    x = np.arange(8 * 64, dtype=np.float32).reshape(8, 64)
    y = np.zeros_like(x)
    traced.run(x, y)
    np.testing.assert_array_equal(y, 2 * x + 1)


def _line_of(fn, text: str) -> int:
    import inspect
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, line in enumerate(lines) if text in line)


def test_different_shapes_are_an_error_at_the_read():
    @pypto.jit
    def shapes(x: X, y: X):
        for m in pypto.loop(x.shape[0] // 8, name="rows", idx_name="m"):
            pypto.set_vec_tile_shapes(8, 64)
            t = pypto.view(x, [8, 64], [m * 8, 0])
            if pypto.is_loop_begin(m):
                u = t * 2.0
            else:
                u = pypto.view(x, [4, 64], [m * 8, 0])
            y[m * 8:, :] = u  # read u

    with pytest.raises(TraceError) as info:
        shapes.trace(x=(None, 64), y=(None, 64))
    message = str(info.value)
    assert f":{_line_of(shapes.fn, '# read u')}:" in message
    assert "'u' is a [8, 64] DT_FP32 tile after the then branch" in message
    assert "[4, 64]" in message and "same shape and dtype" in message


def test_a_name_bound_in_one_branch_only_is_an_error_at_the_read():
    @pypto.jit
    def unbound(x: X, y: X):
        for m in pypto.loop(x.shape[0] // 8, name="rows", idx_name="m"):
            pypto.set_vec_tile_shapes(8, 64)
            t = pypto.view(x, [8, 64], [m * 8, 0])
            if pypto.is_loop_begin(m):
                u = t * 2.0
            else:
                y[m * 8:, :] = t
            y[m * 8:, :] = u + 1.0  # read u

    with pytest.raises(TraceError) as info:
        unbound.trace(x=(None, 64), y=(None, 64))
    message = str(info.value)
    assert f":{_line_of(unbound.fn, '# read u')}:" in message
    assert "'u' is assigned only in the then branch" in message
    assert "assign 'u' before the `if` or in both branches" in message


def test_python_values_that_differ_are_an_error_at_the_read():
    @pypto.jit
    def python_values(x: X, y: X):
        for m in pypto.loop(x.shape[0] // 8, name="rows", idx_name="m"):
            pypto.set_vec_tile_shapes(8, 64)
            t = pypto.view(x, [8, 64], [m * 8, 0])
            if pypto.is_loop_begin(m):
                scale = 2.0
            else:
                scale = 3.0
            y[m * 8:, :] = t * scale  # read scale

    with pytest.raises(TraceError) as info:
        python_values.trace(x=(None, 64), y=(None, 64))
    message = str(info.value)
    assert f":{_line_of(python_values.fn, '# read scale')}:" in message
    assert "'scale' is float 2.0 after the then branch" in message
    assert "compute 'scale' before the `if`, or make it a tile" in message


def test_a_tile_kept_otherwise_is_refused_with_the_if_wording():
    @pypto.jit
    def listed(x: X, y: X):
        for m in pypto.loop(x.shape[0] // 8, name="rows", idx_name="m"):
            pypto.set_vec_tile_shapes(8, 64)
            t = pypto.view(x, [8, 64], [m * 8, 0])
            kept = []
            if pypto.is_loop_begin(m):
                kept.append(t * 2.0)
            else:
                kept.append(t + 1.0)
            y[m * 8:, :] = kept[-1]

    with pytest.raises(TraceError) as info:
        listed.trace(x=(None, 64), y=(None, 64))
    message = str(info.value)
    assert "else branch of the run-time `if pypto.is_loop_begin(m)`" in message
    assert "used after that `if` ends" in message and "pypto.loop bodies" not in message
    assert "assign it to a variable in both branches" in message


def test_shape_is_a_list_a_kernel_may_change():
    """PyPTO's Tensor.shape is a list (deepseek_v4 compressor's rotate_half
    halves the last entry of its copy); ours equals and hashes like the
    tuple, as the front end's own code uses it."""
    @pypto.jit
    def halves(x: pypto.Tensor([8, 64], F32), y: pypto.Tensor([8, 64], F32)):
        pypto.set_vec_tile_shapes(8, 64)
        t = pypto.view(x, [8, 64], [0, 0])
        for source in (x, t):
            shape = source.shape
            assert isinstance(shape, list) and shape == (8, 64) and shape == [8, 64]
            assert hash(shape) == hash((8, 64)) and shape[1:] == (64,)
            assert shape + (1,) == (8, 64, 1) and (1,) + shape == (1, 8, 64)
        shape = t.shape
        shape[len(shape) - 1] //= 2
        assert t.shape == (8, 64) and x.shape == (8, 64)   # a copy each time
        left = pypto.view(t, shape, [0, 0])
        right = pypto.view(t, shape, [0, shape[-1]])
        y[:, :] = pypto.concat([right * (-1.0), left], -1)

    x = np.arange(8 * 64, dtype=np.float32).reshape(8, 64)
    y = np.zeros_like(x)
    halves.trace().run(x, y)
    np.testing.assert_array_equal(y, np.concatenate([-x[:, 32:], x[:, :32]], 1))


@pypto.jit
def scalar_offsets(x: pypto.Tensor([16, 64], F32), y: pypto.Tensor([16, 64], F32)):
    """A symbolic offset and an int assigned in the branches, read after
    the `if` (scf.if results)."""
    for m in pypto.loop(2, name="rows", idx_name="m"):
        pypto.set_vec_tile_shapes(8, 64)
        if pypto.is_loop_begin(m):
            row = m * 8 + 8     # the other block
            shift = 0
        else:
            row = 0
            shift = 3
        t = pypto.view(x, [8, 64], [row, 0])
        y[m * 8 + shift:, :] = t[0:5, :]


def test_scalars_assigned_in_the_branches_are_if_results():
    traced = scalar_offsets.trace()
    assert "%row, %shift = scf.if %loop_begin_m -> (index, index)" in traced.mlir
    x = np.arange(16 * 64, dtype=np.float32).reshape(16, 64)
    y = np.zeros((16, 64), np.float32)
    traced.run(x, y)
    want = np.zeros_like(y)
    want[0:5] = x[8:13]      # m = 0: rows 8.. of x at row 0
    want[11:16] = x[0:5]     # m = 1: rows 0.. of x at row 8 + 3
    np.testing.assert_array_equal(y, want)


def test_unread_scalars_cost_nothing():
    @pypto.jit
    def unread(x: pypto.Tensor([16, 64], F32), y: pypto.Tensor([16, 64], F32)):
        for m in pypto.loop(2, name="rows", idx_name="m"):
            pypto.set_vec_tile_shapes(8, 64)
            if pypto.is_loop_begin(m):
                row = m * 8 + 3
                y[row:row + 1, :] = pypto.view(x, [1, 64], [row, 0])
            else:
                row = m * 8 + 5
                y[row:row + 1, :] = pypto.view(x, [1, 64], [row, 0])

    text = unread.trace().mlir
    assert "-> (index" not in text and "scf.yield" not in text


@pypto.jit
def after_loop(x: X, y: pypto.Tensor([16, 64], F32)):
    """`u` is read in the loop (its workspace is made there) and after it:
    the value the last iteration left, with its 5 valid rows."""
    n = x.shape[0]
    pypto.set_vec_tile_shapes(8, 64)
    for m in pypto.loop((n + 7) // 8, name="rows", idx_name="m"):
        t = pypto.view(x, [8, 64], [m * 8, 0], valid_shape=[(n - m * 8).min(8), 64])
        if pypto.is_loop_begin(m):
            u = t * 2.0
        else:
            u = t + 1.0
        y[8:16, :] = u - 1.0
    y[0:8, :] = u * 3.0


def after_loop_reference(x):
    y = np.zeros((16, 64))
    y[8:16] = 2 * x[:8] - 1
    y[8:13] = x[8:13]
    y[0:5] = 3 * (x[8:13] + 1)
    return y


def test_an_if_result_read_after_its_loop_is_the_last_iteration_s(tmp_path):
    traced = after_loop.trace(x=(None, 64))
    # The workspace moved before the loop; its valid rows are loop results.
    assert traced.mlir.index("%u_if = pto.workspace") < traced.mlir.index('pto.loop "rows"')
    assert "pto.view %u_if[0, 0] valid [%u_if_valid0_1, %u_if_valid1_1]" in traced.mlir
    x, _ = _inputs()
    y = np.zeros((16, 64), np.float32)
    _assert_every_column(traced, tmp_path, x, y, after_loop_reference)


def test_an_if_result_read_after_an_outer_if_is_located():
    @pypto.jit
    def outer_if(x: pypto.Tensor([16, 64], F32), y: pypto.Tensor([16, 64], F32)):
        pypto.set_vec_tile_shapes(8, 64)
        for m in pypto.loop(2, name="rows", idx_name="m"):
            t = pypto.view(x, [8, 64], [m * 8, 0])
            kept = []
            if pypto.is_loop_end(m):
                if pypto.is_loop_begin(m):
                    u = t * 2.0
                else:
                    u = t + 1.0
                kept.append(u)
            else:
                kept.append(t)
            y[0:8, :] = kept[0]  # read u

    # (In a list the inner if's value bypasses the outer if's results.)
    with pytest.raises(TraceError) as info:
        outer_if.trace()
    message = str(info.value)
    assert f":{_line_of(outer_if.fn, '# read u')}:" in message
    assert "'u' is the value of the run-time `if pypto.is_loop_begin(m)`" in message
    assert "inside the run-time `if pypto.is_loop_end(m)`" in message
    assert "assign it to a variable in both branches of that `if`" in message


def test_scalar_results_in_the_tile_graph_and_emitted_cpp(tmp_path):
    traced = scalar_offsets.trace()
    x = np.arange(16 * 64, dtype=np.float32).reshape(16, 64)
    y = np.zeros((16, 64), np.float32)
    _assert_every_column(traced, tmp_path, x, y)

@pypto.jit
def condition_results(x: pypto.Tensor([24, 64], F32), y: pypto.Tensor([24, 64], F32)):
    """A run-time condition (`is_loop_end`, a comparison) and bools that
    differ, assigned in the branches and branched on after the `if`."""
    pypto.set_vec_tile_shapes(8, 64)
    for m in pypto.loop(3, name="rows", idx_name="m"):
        t = pypto.view(x, [8, 64], [m * 8, 0])
        if pypto.is_loop_begin(m):
            double = pypto.is_loop_end(m)
            shift = True
        else:
            double = m < 2
            shift = False
        if double:
            u = t * 2.0
        else:
            u = t + 1.0
        if shift:
            u = u - 10.0
        y[m * 8:m * 8 + 8, :] = u


def condition_results_reference(x):
    y = x + 1
    y[8:16] = 2 * x[8:16]
    y[:8] -= 10
    return y


def test_conditions_assigned_in_the_branches_are_i1_results(tmp_path):
    traced = condition_results.trace()
    assert "%double, %shift = scf.if %loop_begin_m -> (i1, i1)" in traced.mlir
    assert "scf.if %double -> (index, index)" in traced.mlir
    x = np.random.default_rng(3).standard_normal((24, 64)).astype(np.float32)
    y = np.zeros_like(x)
    _assert_every_column(traced, tmp_path, x, y, condition_results_reference)


def test_unread_conditions_cost_nothing():
    @pypto.jit
    def unread(x: pypto.Tensor([16, 64], F32), y: pypto.Tensor([16, 64], F32)):
        pypto.set_vec_tile_shapes(8, 64)
        for m in pypto.loop(2, name="rows", idx_name="m"):
            t = pypto.view(x, [8, 64], [m * 8, 0])
            if pypto.is_loop_begin(m):
                flag = m < 1
                y[0:8, :] = t
            else:
                flag = False
                y[8:16, :] = t

    text = unread.trace().mlir
    assert "-> (i1" not in text and "arith.cmpi" not in text


def test_an_if_result_after_an_unrolled_loop_is_located():
    """Each loop_unroll path traces the body again: the value after the loop
    may come from another path's `if`, so the read is refused."""
    @pypto.jit
    def unrolled(x: pypto.Tensor([16, 64], F32), y: pypto.Tensor([8, 64], F32)):
        pypto.set_vec_tile_shapes(8, 64)
        for m, k in pypto.loop_unroll(0, 2, 1, name="rows", idx_name="m", unroll_list=[2]):
            t = pypto.view(x, [8, 64], [m * 8, 0])
            if pypto.is_loop_begin(m):
                u = t * 2.0
            else:
                u = t + 1.0
        y[:, :] = u  # read u

    with pytest.raises(TraceError) as info:
        unrolled.trace()
    message = str(info.value)
    assert f":{_line_of(unrolled.fn, '# read u')}:" in message
    assert "in one path of pypto.loop_unroll 'rows'" in message
    assert "write the value to a tensor in the loop body" in message
