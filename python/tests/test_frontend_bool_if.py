"""Run-time ``if`` tests combined with ``and``/``or``/``not``: unfolded into
nested ``scf.if`` with Python's short-circuit order (control.py), traced and
run in the reference interpreter against NumPy."""

from __future__ import annotations

import re

import numpy as np
import pytest

import pto_mlir.frontend as pypto
from pto_mlir.frontend import TraceError
from trace_errors import assert_error_at

F32, I32 = pypto.DT_FP32, pypto.DT_INT32
ROWS = pypto.Tensor([pypto.DYN, 64], F32)


def ops(text: str) -> list:
    text = re.sub(r' loc\("[^"]*":\d+:\d+\)', "", text)
    return [line.strip() for line in text.splitlines() if line.strip()]


@pypto.jit
def ends_doubled(x: ROWS, y: ROWS):
    pypto.set_vec_tile_shapes(8, 64)
    for i in pypto.loop(x.shape[0] // 8, idx_name="i"):
        t = pypto.view(x, [8, 64], [i * 8, 0])
        if pypto.is_loop_begin(i) or pypto.is_loop_end(i):
            y[i * 8:, :] = t * 2.0
        else:
            y[i * 8:, :] = t


@pypto.jit
def middle_only(x: ROWS, y: ROWS):
    pypto.set_vec_tile_shapes(8, 64)
    for i in pypto.loop(x.shape[0] // 8, idx_name="i"):
        t = pypto.view(x, [8, 64], [i * 8, 0])
        if not pypto.is_loop_begin(i) and not pypto.is_loop_end(i):
            y[i * 8:, :] = t * 3.0


@pypto.jit
def guarded_read(x: ROWS, y: ROWS, flags: pypto.Tensor([4], I32)):
    """Reads flags[i] only where i < 4: pto-run faults on a read past the
    end, so running it shows the short circuit."""
    pypto.set_vec_tile_shapes(8, 64)
    for i in pypto.loop(x.shape[0] // 8, idx_name="i"):
        t = pypto.view(x, [8, 64], [i * 8, 0])
        if i < 4 and flags[i] > 0:
            y[i * 8:, :] = t


def test_or_traces_the_body_on_both_paths():
    text = ends_doubled.trace(x=(None, 64), y=(None, 64)).mlir
    lines = ops(text)
    begin = lines.index(next(l for l in lines if "pto.is_loop_begin" in l))
    # if begin { S } else { end = ...; if end { S } else { E } }
    assert lines[begin + 1].startswith("scf.if %loop_begin_i")
    assert "pto.is_loop_end" in "\n".join(lines[begin:])
    assert sum("pto.mul" in l for l in lines) == 2          # S on both paths
    assert sum(l.startswith("scf.if") for l in lines) == 2
    # The nested if is in the else region of the first.
    first_else = lines.index("} else {", begin)
    assert lines.index(next(l for l in lines if "pto.is_loop_end" in l)) > first_else


@pytest.mark.parametrize("rows", [32, 8])
def test_or_runs(rows):
    x = np.random.default_rng(rows).standard_normal((rows, 64)).astype(np.float32)
    y = np.zeros_like(x)
    ends_doubled.trace(x=(None, 64), y=(None, 64)).run(x, y)
    expected = x.copy()
    expected[:8] *= 2
    expected[-8:] = x[-8:] * 2
    np.testing.assert_array_equal(y, expected)


@pytest.mark.parametrize("rows", [32, 16])
def test_not_and_and_run(rows):
    x = np.random.default_rng(rows).standard_normal((rows, 64)).astype(np.float32)
    y = np.full_like(x, 5.0)
    middle_only.trace(x=(None, 64), y=(None, 64)).run(x, y)
    expected = np.full_like(x, 5.0)
    expected[8:-8] = x[8:-8] * 3
    np.testing.assert_array_equal(y, expected)


def test_and_short_circuits_at_run_time():
    traced = guarded_read.trace(x=(None, 64), y=(None, 64), flags=(4,))
    lines = ops(traced.mlir)
    cmp_i = next(n for n, l in enumerate(lines) if "arith.cmpi" in l)
    read = next(n for n, l in enumerate(lines) if "pto.read" in l)
    assert lines[cmp_i + 1].startswith("scf.if") and read > cmp_i + 1, lines
    rows = 48    # i = 4, 5 read past the end of flags if not guarded
    x = np.random.default_rng(1).standard_normal((rows, 64)).astype(np.float32)
    y = np.zeros_like(x)
    flags = np.array([1, 0, 3, -2], np.int32)
    traced.run(x, y, flags)
    expected = np.zeros_like(x)
    for i in (0, 2):
        expected[i * 8:i * 8 + 8] = x[i * 8:i * 8 + 8]
    np.testing.assert_array_equal(y, expected)


def test_trace_time_parts_keep_python_short_circuit():
    seen = []

    def note(value):
        seen.append(value)
        return value

    @pypto.jit
    def mixed(x: ROWS, y: ROWS, flag: bool):
        pypto.set_vec_tile_shapes(8, 64)
        for i in pypto.loop(x.shape[0] // 8, idx_name="i"):
            t = pypto.view(x, [8, 64], [i * 8, 0])
            if note(flag) and pypto.is_loop_begin(i):
                y[i * 8:, :] = t
            if note(flag) or pypto.is_loop_end(i):
                y[i * 8:, :] = t * 2.0

    off = ops(mixed.trace(x=(None, 64), y=(None, 64), flag=False).mlir)
    assert not any("is_loop_begin" in l for l in off)       # `False and ...` stops at False
    assert sum(l.startswith("scf.if") for l in off) == 1    # only the `or`'s run-time part
    on = ops(mixed.trace(x=(None, 64), y=(None, 64), flag=True).mlir)
    assert not any("is_loop_end" in l for l in on)          # `True or ...` stops at True
    assert sum(l.startswith("scf.if") for l in on) == 1
    assert seen == [False, False, True, True]


def test_unsupported_combinations_fail_at_their_line():
    @pypto.jit
    def conditional_expression(x: ROWS, y: ROWS):
        pypto.set_vec_tile_shapes(8, 64)
        for i in pypto.loop(4, idx_name="i"):
            t = pypto.view(x, [8, 64], [i * 8, 0])
            y[i * 8:, :] = t * (2.0 if pypto.is_loop_begin(i) else 1.0)

    with pytest.raises(TraceError) as e:
        conditional_expression.trace(x=(None, 64), y=(None, 64))
    assert_error_at(e, __file__, "2.0 if pypto.is_loop_begin(i)", "is a run-time condition",
                    "a conditional expression")


@pypto.jit
def named_conditions(x: ROWS, y: ROWS):
    """Conditions combined outside an `if` test: held in variables, negated,
    mixed with a symbolic comparison and a trace-time bool."""
    pypto.set_vec_tile_shapes(8, 64)
    n = x.shape[0] // 8
    for i in pypto.loop(n, idx_name="i"):
        t = pypto.view(x, [8, 64], [i * 8, 0])
        edge = pypto.is_loop_begin(i) or pypto.is_loop_end(i)
        inner = not edge
        early = inner and i < 3 and True
        y[i * 8:, :] = t
        if early:
            y[i * 8:, :] = t * 3.0
        if edge:
            y[i * 8:, :] = t * 2.0


def test_conditions_combined_outside_if_tests_run():
    traced = named_conditions.trace(x=(None, 64), y=(None, 64))
    lines = ops(traced.mlir)
    assert any(re.fullmatch(r"%\w+ = arith.ori %loop_begin_i, %loop_end_i : i1", l)
               for l in lines), lines
    assert any(re.fullmatch(r"%\w+ = arith.xori %\w+, %\w+ : i1", l) for l in lines), lines
    assert any(re.fullmatch(r"%\w+ = arith.andi %\w+, %\w+ : i1", l) for l in lines), lines
    assert sum(l.startswith("scf.if") for l in lines) == 2   # the two ifs, nothing else
    for rows in (48, 16):
        x = np.random.default_rng(rows).standard_normal((rows, 64)).astype(np.float32)
        y = np.zeros_like(x)
        traced.run(x, y)
        factor = np.ones(rows // 8, np.float32)
        factor[1:3] = 3.0
        factor[[0, -1]] = 2.0
        np.testing.assert_array_equal(y, x * np.repeat(factor, 8)[:, None])
        compiled = np.zeros_like(x)
        traced.compile().run({"x": x, "y": compiled})
        np.testing.assert_array_equal(compiled, y)


def test_conditions_combined_outside_if_emitted_cpp(tmp_path):
    from pto_mlir import codegen
    source = tmp_path / "named_conditions.mlir"
    source.write_text(named_conditions.trace(x=(None, 64), y=(None, 64)).mlir)
    exe = codegen.build(source, tmp_path)
    x = np.random.default_rng(3).standard_normal((40, 64)).astype(np.float32)
    out, _ = codegen.run(exe, tmp_path, {"x": x, "y": np.zeros_like(x)},
                         {"x": "f32", "y": "f32"}, ["y"])
    want = np.zeros_like(x)
    named_conditions.trace(x=(None, 64), y=(None, 64)).run(x, want)
    np.testing.assert_array_equal(out["y"], want)


def test_trace_time_values_keep_python_and_or_not():
    seen = []

    def note(value):
        seen.append(value)
        return value

    @pypto.jit
    def plain(x: ROWS, y: ROWS, flag: bool):
        pypto.set_vec_tile_shapes(8, 64)
        scale = (note(flag) and 2.0) or note(4.0)      # Python's values, not bools
        if not flag:
            scale = -scale
        y[0:, :] = pypto.view(x, [8, 64], [0, 0]) * scale

    assert "-4.0" in plain.trace(x=(8, 64), y=(8, 64), flag=False).mlir
    assert seen == [False, 4.0]
    assert "2.0" in plain.trace(x=(8, 64), y=(8, 64), flag=True).mlir
    assert seen == [False, 4.0, True]


def test_a_combined_condition_that_reads_memory_fails_at_its_line():
    @pypto.jit
    def unguarded(x: ROWS, y: ROWS, flags: pypto.Tensor([4], I32)):
        pypto.set_vec_tile_shapes(8, 64)
        for i in pypto.loop(x.shape[0] // 8, idx_name="i"):
            ok = i < 4 and flags[i] > 0
            if ok:
                y[i * 8:, :] = pypto.view(x, [8, 64], [i * 8, 0])

    with pytest.raises(TraceError) as e:
        unguarded.trace(x=(None, 64), y=(None, 64), flags=(4,))
    assert_error_at(e, __file__, "ok = i < 4 and flags[i] > 0", "would be evaluated on every path",
                    "'pto.read'", "`if A and B:`")


@pypto.jit
def clamped_rows(x: ROWS, y: ROWS):
    pypto.set_vec_tile_shapes(8, 64)
    n = x.shape[0]
    for i in pypto.loop(pypto.ceildiv(n, 8), idx_name="i"):
        end = min(i * 8 + 8, n)            # Python's min on symbolic scalars
        t = pypto.view(x, [8, 64], [i * 8, 0], valid_shape=[end - i * 8, max(64, 1)])
        y[i * 8:, :] = t * 2.0


def test_python_min_max_on_symbolic_scalars():
    """The rewrite routes the builtin min/max through pypto.min/max:
    arith.minsi on symbolic scalars, Python's value on ints."""
    traced = clamped_rows.trace(x=(None, 64), y=(None, 64))
    lines = ops(traced.mlir)
    assert any("arith.minsi" in line for line in lines), lines
    assert not any("arith.maxsi" in line for line in lines)     # max(64, 1) is Python's
    x = np.random.default_rng(2).standard_normal((13, 64)).astype(np.float32)
    y = np.zeros_like(x)
    traced.run(x, y)
    np.testing.assert_array_equal(y, x * 2)
