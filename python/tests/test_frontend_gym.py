"""The tracer on the constructs real PyPTO kernels use (pure Python: no
native module needed): tensor slices, GM tensors as tile operands,
``pypto.tensor`` workspaces, run-time ``if`` on ``is_loop_begin/end``,
``loop_unroll``, the OoO scope, and their misuse (a TraceError at the
user's line)."""

from __future__ import annotations

import linecache
import re

import pytest

import pto_mlir.frontend as pypto
from pto_mlir.frontend import TraceError
from trace_errors import assert_error_at

F32, BF16 = pypto.DT_FP32, pypto.DT_BF16
ROWS = pypto.Tensor([pypto.DYN, 64], F32)
ROW = pypto.Tensor([1, 64], F32)


def body(text: str) -> str:
    text = re.sub(r' loc\("[^"]*":\d+:\d+\)', "", text)
    return "\n".join(line.strip() for line in text.splitlines() if not line.startswith("//"))


def line_of(text: str, op_fragment: str) -> str:
    """The source line (of this file) that the first op containing
    ``op_fragment`` is located at."""
    for line in text.splitlines():
        if op_fragment in line:
            match = re.search(r'loc\("([^"]*)":(\d+):\d+\)\s*$', line)
            assert match and match.group(1) == __file__, line
            return linecache.getline(__file__, int(match.group(2)))
    raise AssertionError(f"no op with {op_fragment!r} in\n{text}")


def trace_rows(kernel, **extra):
    return kernel.trace(x=(None, 64), y=(None, 64), **extra)


# ----------------------------------------------------------------------------
# Slices and GM tensors as tiles
# ----------------------------------------------------------------------------

@pypto.jit
def slices(x: ROWS, y: ROWS, s: ROW):
    pypto.set_vec_tile_shapes(8, 64)
    for i in pypto.loop(pypto.ceildiv(x.shape[0], 8), idx_name="i"):
        t = x[i * 8:i * 8 + 8, :]
        y[i * 8:, 0:] = 1.0 - t
        s[:] = s + t.sum(0, keepdim=True)


def test_slices_are_views_and_assembles():
    text = slices.trace(x=(None, 64), y=(None, 64), s=(1, 64)).mlir
    ops = body(text)
    assert "%ceildiv = arith.ceildivsi %x_dim0, %c8 : index" in ops
    assert "%t = pto.view %x[%mul, 0] : !pto.tensor<?x64xf32> -> !pto.tile<8x64xf32>" in ops
    # 1.0 - t is -t + 1.0 (the same IEEE value).
    assert re.search(r"%neg = pto.neg %t .*\n%add = pto.add %neg, %cst", ops)
    assert re.search(r"pto.assemble %add, %y\[%mul, 0\]", ops)
    # A GM tensor used as a tile operand is a view of all of it, read where it is used.
    assert re.search(r"%sum = pto.sum %t dim = 0 keepdim .*\n"
                     r"%s_all = pto.view %s\[0, 0\] : !pto.tensor<1x64xf32> -> "
                     r"!pto.tile<1x64xf32>\n%add_1 = pto.add %s_all, %sum", ops)
    assert "pto.assemble %add_1, %s[0, 0]" in ops
    assert "t = x[i * 8:i * 8 + 8, :]" in line_of(text, "%t = pto.view")
    assert "y[i * 8:, 0:] = 1.0 - t" in line_of(text, "pto.assemble %add,")
    assert "s[:] = s + t.sum" in line_of(text, "%s_all = pto.view")


def test_slice_misuse():
    @pypto.jit
    def symbolic_extent(x: ROWS, y: ROWS):
        n = x.shape[0]
        pypto.assemble(x[0:n, :], [0, 0], y)

    with pytest.raises(TraceError) as e:
        trace_rows(symbolic_extent)
    assert_error_at(e, __file__, "x[0:n, :]", "extent of dim 0", "not a compile-time constant")

    @pypto.jit
    def open_dynamic(x: ROWS, y: ROWS):
        pypto.assemble(x[8:, :], [0, 0], y)

    with pytest.raises(TraceError) as e:
        trace_rows(open_dynamic)
    assert_error_at(e, __file__, "x[8:, :]", "dim 0 of 'x' is dynamic", "static extent")

    @pypto.jit
    def whole_dynamic(x: ROWS, y: ROWS):
        pypto.assemble(pypto.exp(x), [0, 0], y)

    with pytest.raises(TraceError) as e:
        trace_rows(whole_dynamic)
    assert_error_at(e, __file__, "pypto.exp(x)", "GM tensor 'x' [?, 64] is used as a tile operand",
                    "dynamic dims")

    @pypto.jit
    def integer_index(x: ROWS, y: ROWS):
        y[0, :] = pypto.view(x, [1, 64], [0, 0])

    # An integer index is the slice 0:1 (tests/test_frontend_shape.py runs
    # the dims it drops): the [1, 64] view lands in row 0.
    assert "pto.assemble %view, %y[0, 0]" in trace_rows(integer_index).mlir

    @pypto.jit
    def rank_mismatch(x: ROWS, y: ROWS, s: ROW):
        y[0:8, :] = pypto.sum(s, 0)

    with pytest.raises(TraceError) as e:
        trace_rows(rank_mismatch, s=(1, 64))
    assert_error_at(e, __file__, "y[0:8, :] =", "a rank-1 tile [64]", "rank-2 tensor 'y'")


# ----------------------------------------------------------------------------
# Workspaces and run-time if
# ----------------------------------------------------------------------------

@pypto.jit
def running_sum(x: ROWS, y: ROWS):
    pypto.set_vec_tile_shapes(8, 64)
    for j in pypto.loop(x.shape[0] // 32, name="J", idx_name="j"):
        acc = pypto.tensor([8, 64], F32, "acc")
        for i in pypto.loop(4, name="I", idx_name="i"):
            t = pypto.view(x, [8, 64], [j * 32 + i * 8, 0])
            if pypto.is_loop_begin(i):
                acc[:] = t
            else:
                a = pypto.view(acc, [8, 64], [0, 0])
                if pypto.is_loop_end(i):
                    pypto.assemble(a + t, [j * 8, 0], y)
                else:
                    acc[:] = a + t


def test_workspace_and_run_time_if():
    text = trace_rows(running_sum).mlir
    ops = body(text)
    expected = """\
%acc = pto.workspace : !pto.tensor<8x64xf32>
%acc_valid0_1, %acc_valid1_1 = pto.loop "I" %i = %c0 to %c4 step %c1 iter_args(%acc_valid0 = %c8, %acc_valid1 = %c64) -> (index, index) {
%mul = arith.muli %j, %c32 : index
%mul_1 = arith.muli %i, %c8 : index
%add = arith.addi %mul, %mul_1 : index
%t = pto.view %x[%add, 0] : !pto.tensor<?x64xf32> -> !pto.tile<8x64xf32>
%loop_begin_i = pto.is_loop_begin %i
%acc_valid0_2, %acc_valid1_2 = scf.if %loop_begin_i -> (index, index) {
pto.assemble %t, %acc[0, 0] {vec_tile = #pto.vec_tile<[8, 64]>} : !pto.tile<8x64xf32>, !pto.tensor<8x64xf32>
%acc_valid0_3 = pto.valid_dim %t, 0 : !pto.tile<8x64xf32>
%acc_valid1_3 = pto.valid_dim %t, 1 : !pto.tile<8x64xf32>
scf.yield %acc_valid0_3, %acc_valid1_3 : index, index
} else {
%a = pto.view %acc[0, 0] : !pto.tensor<8x64xf32> -> !pto.tile<8x64xf32>
%loop_end_i = pto.is_loop_end %i
%acc_valid0_4, %acc_valid1_4 = scf.if %loop_end_i -> (index, index) {
"""
    # The moves into acc carry their valid extents around the loop and out
    # of each if (PyPTO's move hands over the moved value's valid shape).
    assert expected in ops, ops
    assert "pypto.tensor([8, 64], F32" in line_of(text, "pto.workspace")
    assert "if pypto.is_loop_begin(i):" in line_of(text, "%loop_begin_i = pto.is_loop_begin")
    # The if's location is its own line (printed on the closing brace).
    closing = [line for line in text.splitlines() if line.strip().startswith("} loc(")]
    lines = {int(re.search(r":(\d+):\d+\)$", c).group(1)) for c in closing}
    sources = {linecache.getline(__file__, n).strip() for n in lines}
    assert "if pypto.is_loop_begin(i):" in sources and "if pypto.is_loop_end(i):" in sources


def test_python_if_keeps_its_meaning():
    @pypto.jit
    def specialise(x: ROWS, y: ROWS, twice: bool):
        pypto.set_vec_tile_shapes(8, 64)
        t = pypto.view(x, [8, 64], [0, 0])
        if twice:
            t = t * 2.0
        elif pypto.platform.npuarch == "DAV_3510":
            t = t * 3.0
        else:
            t = t * 4.0
        for k in range(2):
            if k == 1:
                break
            pypto.assemble(t, [8 * k, 0], y)

    once = body(trace_rows(specialise, twice=False).mlir)
    assert "scf.if" not in once and once.count("pto.mul") == 1 and "4.0" in once
    assert once.count("pto.assemble") == 1
    assert "2.0" in body(trace_rows(specialise, twice=True).mlir)


def test_run_time_if_misuse():
    @pypto.jit
    def escapes(x: ROWS, y: ROWS):
        for i in pypto.loop(4, idx_name="i"):
            if pypto.is_loop_begin(i):
                t = pypto.view(x, [8, 64], [0, 0])
            pypto.assemble(t, [0, 0], y)

    with pytest.raises(TraceError) as e:
        trace_rows(escapes)
    assert_error_at(e, __file__, "pypto.assemble(t, [0, 0], y)",
                    "the then branch of the run-time `if pypto.is_loop_begin(i)`")

    @pypto.jit
    def asserted(x: ROWS, y: ROWS):
        for i in pypto.loop(4, idx_name="i"):
            assert pypto.is_loop_begin(i) or i > 0

    with pytest.raises(TraceError) as e:
        trace_rows(asserted)
    assert_error_at(e, __file__,
                    "assert pypto.is_loop_begin(i) or i > 0", "is a run-time condition",
                    "plain `if` statement", "may combine conditions with and/or/not",
                    "`c = a and b` / `not a` there make another run-time condition",
                    "an `assert`")

    @pypto.jit
    def not_an_index(x: ROWS, y: ROWS):
        for i in pypto.loop(4, idx_name="i"):
            if pypto.is_loop_end(i * 2):
                pass

    with pytest.raises(TraceError) as e:
        trace_rows(not_an_index)
    assert_error_at(e, __file__,
                    "pypto.is_loop_end(i * 2)", "takes the index of an enclosing pypto.loop")

    @pypto.jit
    def leaves(x: ROWS, y: ROWS):
        for i in pypto.loop(4, idx_name="i"):
            if pypto.is_loop_end(i):
                return

    with pytest.raises(TraceError) as e:
        trace_rows(leaves)
    assert_error_at(e, __file__, "if pypto.is_loop_end(i):", "run-time `if pypto.is_loop_end(i)`",
                    "was left early")

    @pypto.jit
    def symbolic_workspace(x: ROWS, y: ROWS):
        pypto.tensor([x.shape[0], 64], F32, "ws")

    with pytest.raises(TraceError) as e:
        trace_rows(symbolic_workspace)
    assert_error_at(e, __file__, "pypto.tensor([x.shape[0], 64]", "tensor(shape)[0] is a symbolic")


# ----------------------------------------------------------------------------
# loop_unroll
# ----------------------------------------------------------------------------

@pypto.jit
def unrolled(x: ROWS, y: ROWS):
    pypto.set_vec_tile_shapes(8, 64)
    for i, k in pypto.loop_unroll(0, x.shape[0], 1, name="L", idx_name="i",
                                  unroll_list=[2, 4, 4]):
        y[i:, :] = pypto.exp(x[i:i + k, :])


def test_loop_unroll_is_one_loop_path_per_factor():
    ops = body(trace_rows(unrolled).mlir)
    loops = re.findall(r'pto.loop "L" %i = (%\w+) to (%\w+) step (%\w+) \{\n'
                       r'%\w+ = pto.view %x\[%i, 0\] : !pto.tensor<\?x64xf32> -> '
                       r'!pto.tile<(\d+)x64xf32>', ops)
    assert [(step, rows) for _, _, step, rows in loops] == \
        [("%c4", "4"), ("%c2", "2"), ("%c1", "1")]
    # Each path starts where the previous one stopped; the last runs to the end.
    assert loops[0][0] == "%c0" and loops[1][0] == loops[0][1] and loops[2][0] == loops[1][1]
    assert loops[2][1] == "%x_dim0"
    assert "%max = arith.maxsi %x_dim0, %c0 : index" in ops


def test_loop_unroll_misuse():
    @pypto.jit
    def symbolic_step(x: ROWS, y: ROWS):
        for i, k in pypto.loop_unroll(0, 8, x.shape[0], unroll_list=[2]):
            pass

    with pytest.raises(TraceError) as e:
        trace_rows(symbolic_step)
    assert_error_at(e, __file__,
                    "pypto.loop_unroll(0, 8, x.shape[0]", "must be a positive Python int")

    @pypto.jit
    def bad_factor(x: ROWS, y: ROWS):
        for i, k in pypto.loop_unroll(8, unroll_list=[0]):
            pass

    with pytest.raises(TraceError) as e:
        trace_rows(bad_factor)
    assert_error_at(e, __file__, "unroll_list=[0]", "loop_unroll(unroll_list)[0] must be positive")


# ----------------------------------------------------------------------------
# OoO scopes, tile methods, reshape of a tile, unsupported constructs
# ----------------------------------------------------------------------------

def test_ooo_scope_tile_methods_and_tile_reshape():
    @pypto.jit
    def misc(x: pypto.Tensor([8, 64], F32), y: pypto.Tensor([64, 8], F32)):
        pypto.set_vec_tile_shapes(8, 64)
        t = pypto.view(x, [8, 64], [0, 0])
        pypto.set_pass_options(sg_set_ooo_scope=3)
        u = t.exp()
        pypto.set_pass_options(sg_set_ooo_scope=-1)
        u.axpy_(t, 0.5)
        pypto.set_vec_tile_shapes(64, 8)
        y.move(pypto.reshape(u, [64, -1]))

    ops = body(misc.trace().mlir)
    assert "%u = pto.exp %t {precision = #pto.precision<INTRINSIC>, vec_tile = " \
           "#pto.vec_tile<[8, 64]>, pto.ooo_scope = 3 : i64}" in ops
    assert "pto.ooo_scope" not in ops.split("%u = pto.exp")[1].split("\n", 1)[1]
    assert re.search(r"%mul = pto.mul %t, %cst .*\n%u_1 = pto.add %u, %mul", ops)
    assert re.search(r"%reshape_ws = pto.workspace : !pto.tensor<8x64xf32>\n"
                     r"pto.assemble %u_1, %reshape_ws\[0, 0\] .*\n"
                     r"%reshaped = pto.reshape %reshape_ws \[64, 8\] inplace : "
                     r"!pto.tensor<8x64xf32> -> !pto.tensor<64x8xf32>\n"
                     r"%reshaped_all = pto.view %reshaped\[0, 0\] .*\n"
                     r"pto.assemble %reshaped_all, %y\[0, 0\]", ops)


def test_transpose():
    @pypto.jit
    def transposes(x: pypto.Tensor([8, 64], F32), y: pypto.Tensor([64, 8], F32)):
        pypto.set_vec_tile_shapes(8, 64)
        y[:] = pypto.transpose(x, -1, 0)

    text = transposes.trace().mlir
    assert "%transpose = pto.transpose %x_all, 1, 0 {vec_tile = #pto.vec_tile<[8, 64]>} : " \
           "!pto.tile<8x64xf32> -> !pto.tile<64x8xf32>" in body(text)
    assert "pypto.transpose(x, -1, 0)" in line_of(text, "pto.transpose")


def test_unsupported_and_misused_helpers():
    @pypto.jit
    def transposes(x: pypto.Tensor([8, 64], F32), y: ROWS):
        pypto.transpose(x, 0, 2)

    with pytest.raises(TraceError) as e:
        transposes.trace(y=(None, 64))
    assert_error_at(e, __file__, "pypto.transpose(x, 0, 2)", "transpose(dim1=2) is out of range")

    @pypto.jit
    def bad_ooo(x: ROWS, y: ROWS):
        pypto.set_pass_options(sg_set_ooo_scope=0)

    with pytest.raises(TraceError) as e:
        trace_rows(bad_ooo)
    assert_error_at(e, __file__, "sg_set_ooo_scope=0", "give -1 (none) or an int id in 1..100000")

    @pypto.jit
    def bad_reshape(x: pypto.Tensor([8, 64], F32), y: ROWS):
        pypto.reshape(pypto.view(x, [8, 64], [0, 0]), [8, 8])

    with pytest.raises(TraceError) as e:
        bad_reshape.trace(y=(None, 64))
    assert_error_at(e, __file__, "[8, 8])", "changes the element count (512 -> 64)")

    @pypto.jit
    def bad_ceildiv(x: ROWS, y: ROWS):
        pypto.ceildiv(x.shape[0], 2.0)

    with pytest.raises(TraceError) as e:
        trace_rows(bad_ceildiv)
    assert_error_at(e, __file__, "pypto.ceildiv(x.shape[0], 2.0)", "ceildiv(b) must be an int")


def test_online_softmax_ops_are_located_at_the_call():
    @pypto.jit
    def softmax(s: pypto.Tensor([16, 8], F32), y: pypto.Tensor([16, 8], F32)):
        pypto.set_vec_tile_shapes(16, 8)
        p, m, l_sum = pypto.experimental.online_softmax(s, 0.25)
        m2, l2, o2 = pypto.experimental.online_softmax_update(m, l_sum, s, m, l_sum, s)
        y[:] = o2

    text = softmax.trace().mlir
    ops = body(text)
    assert re.search(r"%amax = pto.amax %s_all dim = 0 keepdim .*\n"
                     r"%m = pto.mul %amax, %cst .*\n%mul = pto.mul %s_all, %cst .*\n"
                     r"%sub = pto.sub %mul, %m .*\n%exp = pto.exp %sub .*\n"
                     r"%l_sum = pto.sum %exp dim = 0 keepdim .*\n"
                     r"%p = pto.cast %exp \{mode = #pto.round_mode<RINT>", ops), ops
    assert "%m2 = pto.max %m, %m" in ops
    assert "pypto.experimental.online_softmax(s, 0.25)" in line_of(text, "pto.amax")
    assert "online_softmax_update(m, l_sum" in line_of(text, "pto.max")

    @pypto.jit
    def wrong(s: pypto.Tensor([16, 8], BF16), y: pypto.Tensor([16, 8], F32)):
        pypto.experimental.online_softmax(s, 0.25)

    with pytest.raises(TraceError) as e:
        wrong.trace()
    assert_error_at(e, __file__, "online_softmax(s, 0.25)", "takes a 2-D FP32 tile")


def test_symbolic_comparisons_branch_at_run_time():
    @pypto.jit
    def tail(x: ROWS, y: ROWS):
        pypto.set_vec_tile_shapes(8, 64)
        n = x.shape[0]
        for i in pypto.loop(pypto.ceildiv(n, 8), idx_name="i"):
            t = pypto.view(x, [8, 64], [i * 8, 0], valid_shape=[(n - i * 8).min(8), 64])
            if i * 8 + 8 <= n:
                pypto.assemble(t, [i * 8, 0], y)
            elif pypto.cond(i == 0):
                pypto.assemble(t * 2.0, [i * 8, 0], y)

    text = trace_rows(tail).mlir
    ops = body(text)
    assert re.search(r"%add = arith.addi %mul, %c8 : index\n"
                     r"%cond = arith.cmpi sle, %add, %n : index\n"
                     r"scf.if %cond \{\npto.assemble %t, %y\[%mul, 0\] .*\n\} else \{\n"
                     r"%cond_1 = arith.cmpi eq, %i, %c0 : index\nscf.if %cond_1 \{\n", ops), ops
    assert "if i * 8 + 8 <= n:" in line_of(text, "arith.cmpi sle")

    @pypto.jit
    def negated(x: ROWS, y: ROWS):
        pypto.set_vec_tile_shapes(8, 64)
        for i in pypto.loop(4, idx_name="i"):
            if not i == 0:
                pypto.assemble(pypto.view(x, [8, 64], [i * 8, 0]), [i * 8, 0], y)

    # `not` swaps the branches (test_frontend_bool_if.py has and/or).
    assert re.search(r"%cond = arith.cmpi eq, %i, %c0 : index\nscf.if %cond \{\n\} else \{\n"
                     r".*pto.view", body(trace_rows(negated).mlir), re.S)

    @pypto.jit
    def negated_value(x: ROWS, y: ROWS):
        for i in pypto.loop(4, idx_name="i"):
            first = not i == 0
            if first:
                pass

    # Outside an `if` test, `not` of a run-time condition is another one
    # (test_frontend_bool_if.py runs such combinations).
    assert re.search(r"%cond = arith.cmpi eq, %i, %c0 : index\n%cond_1 = arith.xori %cond, "
                     r"%cst : i1\nscf.if %cond_1 \{", body(trace_rows(negated_value).mlir)), \
        body(trace_rows(negated_value).mlir)

    @pypto.jit
    def not_a_condition(x: ROWS, y: ROWS):
        pypto.cond(x.shape[0])

    with pytest.raises(TraceError) as e:
        trace_rows(not_a_condition)
    assert_error_at(e, __file__, "pypto.cond(x.shape[0])", "pypto.cond takes a comparison")


def test_tile_slices():
    @pypto.jit
    def halves(x: pypto.Tensor([16, 64], F32), y: pypto.Tensor([8, 64], F32)):
        pypto.set_vec_tile_shapes(8, 64)
        t = pypto.exp(pypto.view(x, [16, 64], [0, 0]))
        y[:] = t[0:8, :] + t[8:16, ...]

    ops = body(halves.trace().mlir)
    assert "pto.view %t[0, 0] : !pto.tile<16x64xf32> -> !pto.tile<8x64xf32>" in ops
    assert "pto.view %t[8, 0] : !pto.tile<16x64xf32> -> !pto.tile<8x64xf32>" in ops

    @pypto.jit
    def assigns(x: pypto.Tensor([16, 64], F32), y: pypto.Tensor([8, 64], F32)):
        t = pypto.view(x, [16, 64], [0, 0])
        t[0:8, :] = pypto.view(x, [8, 64], [8, 0])

    with pytest.raises(TraceError) as e:
        assigns.trace()
    assert_error_at(e, __file__, "t[0:8, :] =", "only a whole move (`t[:] = v`) rebinds it")
