"""The valid shape a workspace move carries, along the control flow
(frontend/valid_flow.py): PyPTO's ``ws[:] = v`` gives ``ws`` the valid shape
of ``v``, and a later whole read of ``ws`` sees the value moved on the path
that reached it: the previous iteration's move at the top of a
``pypto.loop`` body, the move of the branch that ran after a run-time
``if``. The kernels below accumulate a tail of rows (13 rows in blocks of 8:
the last block has 5 valid rows) the way flash_attention_score_grad's
``dq_acc`` does; each is run in pto-run, through the tile graph and as
emitted C++ on the host emulation against NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import pto_mlir.frontend as pypto
from tile_graph_and_cpp import assert_tile_graph_and_cpp_equal

F32 = pypto.DT_FP32
COLS = 3
ROWS = 13


@pypto.jit
def block_sums(x: pypto.Tensor([pypto.DYN, 64 * COLS], F32),
               y: pypto.Tensor([pypto.DYN, 64], F32)):
    """y = (2 * sum of x's three column blocks)^2, accumulated in a
    workspace over a loop: the move in the loop's first iteration (inside
    the `is_loop_begin` branch, of a value computed there) must reach the
    read in the other branch in the next iterations, and the read in the
    `is_loop_end` branch."""
    n = x.shape[0]
    for m in pypto.loop((n + 7) // 8, name="rows", idx_name="m"):
        rows = (n - m * 8).min(8)
        acc = pypto.tensor([8, 64], F32, "acc")
        for j in pypto.loop(COLS, name="cols", idx_name="j"):
            pypto.set_vec_tile_shapes(8, 64)
            t = pypto.view(x, [8, 64], [m * 8, j * 64], valid_shape=[rows, 64])
            if pypto.is_loop_begin(j):
                acc[:] = pypto.mul(t, 2.0)
            else:
                acc[:] = acc + pypto.mul(t, 2.0)
            if pypto.is_loop_end(j):
                pypto.assemble(pypto.mul(acc, acc), [m * 8, 0], y)


def block_sums_reference(x):
    s = 2 * (x[:, :64] + x[:, 64:128] + x[:, 128:])
    return s * s


@pypto.jit
def branch_moves(x: pypto.Tensor([pypto.DYN, 64], F32), y: pypto.Tensor([pypto.DYN, 64], F32)):
    """Each branch moves a value computed in it; the read after the `if`
    has the valid shape of the branch that ran."""
    n = x.shape[0]
    for m in pypto.loop((n + 7) // 8, name="rows", idx_name="m"):
        rows = (n - m * 8).min(8)
        acc = pypto.tensor([8, 64], F32, "acc")
        pypto.set_vec_tile_shapes(8, 64)
        t = pypto.view(x, [8, 64], [m * 8, 0], valid_shape=[rows, 64])
        if pypto.is_loop_begin(m):
            acc[:] = pypto.mul(t, 2.0)
        else:
            acc[:] = pypto.mul(t, 3.0)
        pypto.assemble(pypto.add(acc, 1.0), [m * 8, 0], y)


def branch_moves_reference(x):
    y = 3 * x + 1
    y[:8] = 2 * x[:8] + 1
    return y


CASES = {
    "block_sums": (block_sums, 64 * COLS, block_sums_reference),
    "branch_moves": (branch_moves, 64, branch_moves_reference),
}


def _inputs(cols):
    x = np.random.default_rng(5).standard_normal((ROWS, cols)).astype(np.float32)
    return x, np.zeros((ROWS, 64), np.float32)


@pytest.mark.parametrize("name", sorted(CASES))
def test_moved_valid_shape_runs_in_pto_run_tile_graph_and_cpp(name, tmp_path):
    kernel, cols, reference = CASES[name]
    x, y = _inputs(cols)
    want = reference(x.astype(np.float64))
    traced = kernel.trace(x=(None, cols), y=(None, 64))
    direct = {"x": x, "y": y.copy()}
    traced.run(**direct)
    np.testing.assert_allclose(direct["y"], want, rtol=1e-5, atol=1e-5)

    source = tmp_path / "kernel.mlir"
    source.write_text(traced.mlir)
    assert_tile_graph_and_cpp_equal(source, tmp_path, {"x": x, "y": y},
                                    {"x": "fp32", "y": "fp32"}, {"y": direct["y"]})


def test_the_extents_follow_the_loop_and_the_branches():
    text = block_sums.trace(x=(None, 64 * COLS), y=(None, 64)).mlir
    # Carried from one iteration to the next, fully valid before the first.
    assert 'pto.loop "cols" %j = %c0 to %c3 step %c1 iter_args(%acc_valid0 = %c8, ' \
           '%acc_valid1 = %c64) -> (index, index)' in text
    # The read in the else branch is the previous iteration's move, not the
    # then branch's value of this iteration.
    assert "pto.view %acc[0, 0] valid [%acc_valid0, %acc_valid1]" in text
    # The if yields each branch's extents; the is_loop_end read takes them.
    assert "scf.if %loop_begin_j -> (index, index) {" in text
    branch = text[text.index("scf.if %loop_begin_j"):]
    after = branch[branch.index("scf.if %loop_end_j"):]
    assert "pto.view %acc[0, 0] valid [%acc_valid0_2, %acc_valid1_2]" in after


def test_whole_moves_carry_nothing():
    @pypto.jit
    def whole(x: pypto.Tensor([16, 64], F32), y: pypto.Tensor([8, 64], F32)):
        acc = pypto.tensor([8, 64], F32, "acc")
        pypto.set_vec_tile_shapes(8, 64)
        for j in pypto.loop(2, name="halves", idx_name="j"):
            t = pypto.view(x, [8, 64], [0, 0])
            if pypto.is_loop_begin(j):
                acc[:] = pypto.mul(t, 2.0)
            else:
                acc[:] = acc + t
        pypto.assemble(acc, [0, 0], y)

    text = whole.trace().mlir
    assert "iter_args" not in text and "valid_dim" not in text and "-> (index" not in text
    x = np.arange(16 * 64, dtype=np.float32).reshape(16, 64)
    y = np.zeros((8, 64), np.float32)
    whole(x, y)
    np.testing.assert_array_equal(y, 3 * x[:8])
