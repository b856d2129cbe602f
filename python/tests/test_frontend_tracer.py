"""The PyPTO-flavoured tracer (pure Python: no native module needed).

Checks what the tracer emits for each construct (ambient state to attributes
and regions, symbolic scalars to index arithmetic, locations) and that
misuse raises a TraceError at the user's line, naming the argument and the
fix.
"""

from __future__ import annotations

import re

import pytest

import pto_mlir.frontend as pypto
from pto_mlir.frontend import TraceError
from trace_errors import assert_error_at

F32, BF16, I32 = pypto.DT_FP32, pypto.DT_BF16, pypto.DT_INT32
ROWS = pypto.Tensor([pypto.DYN, 64], F32)


def body(text: str) -> str:
    """The traced text without locations and comments, one op per line."""
    text = re.sub(r' loc\("[^"]*":\d+:\d+\)', "", text)
    return "\n".join(line.strip() for line in text.splitlines() if not line.startswith("//"))


# ----------------------------------------------------------------------------
# What the tracer emits
# ----------------------------------------------------------------------------

def test_rows_kernel_maps_every_construct():
    @pypto.jit(runtime_options={"device_sched_mode": 1, "ready_on_host_tensors": ["offs"]},
               pass_options={"vec_nbuffer_setting": {-1: 2, 0: (4, "left")}})
    def rows(x: ROWS, y: ROWS, offs: pypto.Tensor([pypto.DYN], I32, cumulative=True)):
        pypto.experimental.set_operation_options(combine_axis=True)
        pypto.set_vec_tile_shapes(16, 64)
        n = offs.shape[0] - 1
        for b in pypto.loop(n, name="LOOP_b", idx_name="b"):
            start = offs[b]
            length = offs[b + 1] - start
            for i in pypto.loop((length + 15) // 16, name="LOOP_i", idx_name="i"):
                valid = (length - i * 16).min(16)
                t = pypto.view(x, [16, 64], [start + i * 16, 0], valid_shape=[valid, 64])
                pypto.set_pass_options(sg_set_scope=(3, True, False))
                e = pypto.exp(pypto.mul(t, 0.5))
                pypto.atomic_add(e, [start + i * 16, 0], y)
                pypto.set_pass_options(sg_set_scope=-1)

    text = rows.trace(x=(None, 64), y=(None, 64), offs=(None,)).mlir
    ir = body(text)
    assert "pto.kernel @rows(" in ir
    assert "%offs: !pto.tensor<?xi32> {pto.cumulative}" in ir
    assert ("attributes {arch = #pto.arch<DAV_2201>, combine_axis = true, runtime_options = "
            '#pto.runtime_options<device_sched_mode = 1, ready_on_host_tensors = ["offs"]>, '
            'pass_options = #pto.pass_options<vec_nbuffer_setting = {-1 : 2, 0 : (4, "left")}>}'
            ) in ir
    # offs.shape[0] - 1, loops with names and index names.
    assert re.search(r"%(\w+) = pto.dim %offs, 0 : !pto.tensor<\?xi32>\n"
                     r"%n = arith.subi %\1, %c1 : index\n"
                     r'pto.loop "LOOP_b" %b = %c0 to %n step %c1 \{', ir), ir
    # Reads of the integer tensor; (length + 15) // 16 is a ceiling division.
    assert "%start = pto.read %offs[%b] : !pto.tensor<?xi32>" in ir
    assert re.search(r"%length = arith.subi %\w+, %start : index\n"
                     r"%\w+ = arith.ceildivsi %length, %c16 : index", ir), ir
    assert "arith.floordivsi" not in ir
    # .min, the view's dynamic offset and valid shape.
    assert re.search(r"%valid = arith.minsi %\w+, %c16 : index", ir), ir
    assert re.search(r"%t = pto.view %x\[%\w+, 0\] valid \[%valid, 64\] : "
                     r"!pto.tensor<\?x64xf32> -> !pto.tile<16x64xf32>", ir), ir
    # The scope region holds the vector ops and the atomic add; the scalar
    # constant is hoisted.
    assert ("pto.scope #pto.scope<id = 3, allow_parallel_merge = true> {\n"
            "%") in ir
    assert "%cst = arith.constant 5.0e-01 : f32" in ir
    assert ("= pto.mul %t, %cst {vec_tile = #pto.vec_tile<[16, 64]>} : !pto.tile<16x64xf32>, "
            "f32 -> !pto.tile<16x64xf32>") in ir
    assert "pto.exp %" in ir and "{precision = #pto.precision<INTRINSIC>, vec_tile" in ir
    assert re.search(r"pto.atomic_add %e, %y\[%\w+, 0\] \{vec_tile = #pto.vec_tile<\[16, 64\]>\} "
                     r": !pto.tile<16x64xf32>, !pto.tensor<\?x64xf32>\n\}", ir), ir


def test_every_op_carries_its_python_location():
    @pypto.jit
    def located(x: ROWS, y: ROWS):
        pypto.set_vec_tile_shapes(16, 64)
        t = pypto.view(x, [16, 64], [0, 0])  # VIEW-LINE
        pypto.atomic_add(pypto.neg(t), [0, 0], y)  # ADD-LINE

    text = located.trace(x=(None, 64), y=(None, 64)).mlir
    lines = {marker: n for n, line in enumerate(open(__file__), 1)
             for marker in ("# VIEW-LINE", "# ADD-LINE") if line.rstrip().endswith(marker)}
    view = next(line for line in text.splitlines() if "pto.view" in line)
    assert f'loc("{__file__}":{lines["# VIEW-LINE"]}:13)' in view
    neg = next(line for line in text.splitlines() if "pto.neg" in line)
    assert f'loc("{__file__}":{lines["# ADD-LINE"]}:26)' in neg
    for line in text.splitlines():
        if line.strip() and not line.startswith("//") and line.strip() not in ("}",) \
                and not line.strip().startswith(("attributes", "pto.kernel", "pto.yield")):
            assert 'loc("' in line, line


def test_ambient_state_is_scoped_to_loop_bodies():
    @pypto.jit
    def nested(x: ROWS, y: ROWS):
        pypto.set_vec_tile_shapes(8, 64)
        pypto.set_pass_options(sg_set_scope=1)
        a = pypto.view(x, [8, 64], [0, 0])
        for i in pypto.loop(4, name="L", idx_name="i"):
            # Inherited: vec tile 8x64 and scope 1 (a scope of this body).
            b = pypto.add(pypto.view(x, [8, 64], [i * 8, 0]), 1.0)
            pypto.set_vec_tile_shapes(4, 64)
            pypto.set_pass_options(sg_set_scope=-1)
            pypto.atomic_add(pypto.abs(b), [i * 8, 0], y)
        # Back in the kernel body: 8x64 and scope 1 again.
        pypto.atomic_add(pypto.sqrt(a), [0, 0], y)

    ir = body(nested.trace(x=(None, 64), y=(None, 64)).mlir)
    assert ir.count("pto.scope #pto.scope<id = 1>") == 3   # before, inside, after the loop
    assert re.search(r"pto.add %\w+, %cst \{vec_tile = #pto.vec_tile<\[8, 64\]>\}", ir), ir
    assert re.search(r"pto.abs %b \{vec_tile = #pto.vec_tile<\[4, 64\]>\}", ir), ir
    assert re.search(r"pto.sqrt %a \{vec_tile = #pto.vec_tile<\[8, 64\]>\}", ir), ir
    # The abs is outside any scope: the loop body's scope closed before it.
    loop_body = ir[ir.index('pto.loop "L"'):]
    assert loop_body.index("pto.abs") > loop_body.index("}")
    # `a`, defined in the first scope and used in the last, is yielded.
    assert re.search(r"%a = pto.scope #pto.scope<id = 1> -> \(!pto.tile<8x64xf32>\)", ir), ir


def test_scope_results_follow_first_use_and_matmul_config():
    @pypto.jit
    def two(a: pypto.Tensor([32, 16], BF16), b: pypto.Tensor([16, 32], BF16),
            out: pypto.Tensor([32, 32], F32)):
        pypto.set_vec_tile_shapes(16, 16)
        x = pypto.view(a, [32, 16], [0, 0])
        pypto.set_pass_options(sg_set_scope=5)
        first = pypto.cast(pypto.cast(x, F32), BF16)
        second = pypto.cast(pypto.cast(x, F32), BF16, pypto.CastMode.CAST_TRUNC)
        pypto.set_pass_options(sg_set_scope=-1)
        pypto.set_cube_tile_shapes([32, 32], [16, 16], [32, 32], enable_split_k=True)
        y = pypto.matmul(second, pypto.view(b, [16, 32], [0, 0]), F32)
        z = pypto.matmul(first, pypto.view(b, [16, 32], [0, 0]), F32)
        pypto.assemble(pypto.add(y, z), [0, 0], out)

    ir = body(two.trace().mlir)
    assert re.search(r"%second, %first = pto.scope #pto.scope<id = 5> -> "
                     r"\(!pto.tile<32x16xbf16>, !pto.tile<32x16xbf16>\)", ir), ir
    # CAST_NONE is written as the pair's default: exact widening has none.
    assert re.search(r"pto.cast %x \{vec_tile", ir), ir
    assert "{mode = #pto.round_mode<RINT>, vec_tile" in ir
    assert "{mode = #pto.round_mode<TRUNC>, vec_tile" in ir
    assert ("pto.matmul %second, %view {cube_tile = #pto.cube_tile<m = [32, 32], "
            "k = [16, 16], n = [32, 32], split_k>}") in ir
    assert "pto.assemble %" in ir and \
        "%out[0, 0] {vec_tile = #pto.vec_tile<[16, 16]>} : !pto.tile<32x32xf32>" in ir


def test_symbolic_scalars_fold_and_simplify():
    seen = {}

    @pypto.jit
    def scalars(x: ROWS):
        n = x.shape[0]
        seen["static"] = x.shape[1]
        seen["fold"] = (pypto.min(3, 5), pypto.max(3, 5), n + 0 is n, n * 1 is n, n - 0 is n)
        seen["min_self"] = n.min(n) is n
        seen["zero"] = n * 0
        q = (n + 7) // 8          # ceil(n / 8)
        r = (n + 3) // 8          # a real floor division
        m = n % 8                 # Python modulo: n - (n // 8) * 8
        for i in pypto.loop(q, idx_name="i"):
            base = i * 8
            for j in pypto.loop(r, m, 2, idx_name="j"):
                pypto.view(x, [8, 64], [base + j, 0])

    ir = body(scalars.trace(x=(None, 64)).mlir)
    assert seen["static"] == 64 and seen["fold"] == (3, 5, True, True, True)
    assert seen["min_self"] and seen["zero"] == 0
    assert re.search(r"%q = arith.ceildivsi %\w+, %c8 : index", ir), ir
    assert re.search(r"%\w+ = arith.addi %\w+, %c3 : index\n%r = arith.floordivsi %\w+, %c8", ir)
    assert re.search(r"%\w+ = arith.floordivsi %\w+, %c8 : index\n%\w+ = arith.muli %\w+, %c8 "
                     r": index\n%m = arith.subi", ir), ir
    assert re.search(r'pto.loop "loop_2" %j = %r to %m step %c2', ir), ir
    # base = i * 8 is computed where it is written: in the outer loop's body,
    # before the inner loop that uses it.
    outer = ir[ir.index('pto.loop "loop_1"'):ir.index('pto.loop "loop_2"')]
    assert "%base = arith.muli %i, %c8 : index" in outer, outer
    assert "arith.addi %base, %j : index" in ir[ir.index('pto.loop "loop_2"'):]


def test_trace_binds_static_dims_from_arrays_and_shapes():
    np = pytest.importorskip("numpy")

    @pypto.jit
    def k(q: pypto.Tensor([pypto.DYN, ...], BF16), o: pypto.Tensor([pypto.DYN, 8], F32)):
        pypto.set_vec_tile_shapes(4, 8)
        pypto.assemble(pypto.cast(pypto.view(q, [4, 2, 8], [0, 0, 0]), F32),
                       [0, 0, 0], pypto.reshape(o, [o.shape[0] // 2, 2, 8], inplace=True))

    text = k.trace(np.zeros((6, 2, 8), np.uint16), (None, 8)).mlir
    assert "%q: !pto.tensor<?x2x8xbf16>" in text and "%o: !pto.tensor<?x8xf32>" in text
    with pytest.raises(TraceError, match=r"tensor parameter 'q' is DT_BF16: expected a uint16 "
                                         r"array, got float32 \(BF16 is passed as uint16"):
        k.trace(np.zeros((6, 2, 8), np.float32), (None, 8))
    with pytest.raises(TraceError, match=r"'o': dim 1 is 8 in the annotation but 9"):
        k.trace((None, 2, 8), (None, 9))
    with pytest.raises(TraceError, match=r"'q' is annotated .* give its shape"):
        k.trace(o=(None, 8))


# ----------------------------------------------------------------------------
# Misuse: a TraceError at the user's line naming the argument and the fix
# ----------------------------------------------------------------------------

def trace_rows(kernel):
    return kernel.trace(x=(None, 64), y=(None, 64))


def test_view_shape_must_be_static():
    @pypto.jit
    def k(x: ROWS, y: ROWS):
        n = x.shape[0]
        pypto.view(x, [n, 64], [0, 0])

    with pytest.raises(TraceError) as e:
        trace_rows(k)
    assert_error_at(e, __file__,
                    "pypto.view(x, [n, 64]", "view(shape)[0] is a symbolic (run-time) value",
                    "tile shapes are compile-time constants")


def test_view_valid_shape_rank_mismatch():
    @pypto.jit
    def k(x: ROWS, y: ROWS):
        pypto.view(x, [16, 64], [0, 0], valid_shape=[x.shape[0]])

    with pytest.raises(TraceError) as e:
        trace_rows(k)
    assert_error_at(e, __file__,
                    "valid_shape=[x.shape[0]]", "view(valid_shape=...) has 1 entries but the "
                    "view has rank 2", "valid_shape=[a_s1, 64]")


def test_view_offsets_rank_mismatch():
    @pypto.jit
    def k(x: ROWS, y: ROWS):
        pypto.view(x, [16, 64], [0])

    with pytest.raises(TraceError) as e:
        trace_rows(k)
    assert_error_at(e, __file__, "pypto.view(x, [16, 64], [0])", "view(offsets) has 1 entries",
                    "one offset per dim")


def test_cube_tile_shapes_must_be_constants():
    @pypto.jit
    def k(x: ROWS, y: ROWS):
        pypto.set_cube_tile_shapes([16, 32], [x.shape[0], 64], [16, 16])

    with pytest.raises(TraceError) as e:
        trace_rows(k)
    assert_error_at(e, __file__, "set_cube_tile_shapes([16, 32]", "set_cube_tile_shapes(k)[0] is a "
                    "symbolic (run-time) value")


def test_matmul_needs_cube_tile_and_matching_k():
    @pypto.jit
    def no_config(x: ROWS, y: ROWS):
        a = pypto.view(x, [16, 64], [0, 0])
        pypto.matmul(a, a, F32, b_trans=True)

    with pytest.raises(TraceError) as e:
        trace_rows(no_config)
    assert_error_at(e, __file__, "pypto.matmul(a, a, F32", "matmul needs set_cube_tile_shapes")

    @pypto.jit
    def bad_k(x: ROWS, y: ROWS):
        pypto.set_cube_tile_shapes([16, 16], [16, 16], [16, 16])
        a = pypto.view(x, [16, 64], [0, 0])
        pypto.matmul(a, a, F32)

    with pytest.raises(TraceError) as e:
        trace_rows(bad_k)
    assert_error_at(e, __file__, "pypto.matmul(a, a, F32)", "contracts K = 64", "K = 16",
                    "check a_trans/b_trans")


def test_elementwise_operand_rules():
    @pypto.jit
    def dtypes(x: ROWS, y: ROWS, z: pypto.Tensor([16, 64], BF16)):
        pypto.add(pypto.view(x, [16, 64], [0, 0]), pypto.view(z, [16, 64], [0, 0]))

    with pytest.raises(TraceError) as e:
        dtypes.trace(x=(None, 64), y=(None, 64))
    assert_error_at(e, __file__, "pypto.add(", "dtypes DT_FP32 and DT_BF16 differ", "pypto.cast")

    @pypto.jit
    def shapes(x: ROWS, y: ROWS):
        pypto.sub(pypto.view(x, [16, 64], [0, 0]), pypto.view(x, [8, 64], [0, 0]))

    with pytest.raises(TraceError) as e:
        trace_rows(shapes)
    assert_error_at(e, __file__, "pypto.sub(", "differ in dim 0 (16 vs 8) and neither is 1")

    @pypto.jit
    def run_time_scalar(x: ROWS, y: ROWS):
        pypto.mul(pypto.view(x, [16, 64], [0, 0]), x.shape[0])

    with pytest.raises(TraceError) as e:
        trace_rows(run_time_scalar)
    assert_error_at(e, __file__,
                    "pypto.mul(", "a symbolic (run-time) scalar cannot be a tile operand")


def test_python_control_flow_on_symbols():
    @pypto.jit
    def branch(x: ROWS, y: ROWS):
        small = x.shape[0] > 0 and x.shape[0] < 9  # a value: a run-time condition
        if small:
            pass

    assert re.search(r"arith.andi %\w+, %\w+ : i1", trace_rows(branch).mlir)

    @pypto.jit
    def truth_value(x: ROWS, y: ROWS):
        return 1 if x.shape[0] > 0 else 0      # a conditional expression is not rewritten

    with pytest.raises(TraceError) as e:
        trace_rows(truth_value)
    assert_error_at(e, __file__,
                    "return 1 if x.shape[0] > 0", "`x_dim0 > 0` compares symbolic scalars")

    def helper(n):
        if n == 0:
            return 1
        return 2

    @pypto.jit
    def in_helper(x: ROWS, y: ROWS):
        helper(x.shape[0])

    with pytest.raises(TraceError) as e:
        trace_rows(in_helper)
    assert_error_at(e, __file__, "if n == 0:", "`x_dim0 == 0` compares symbolic scalars")

    @pypto.jit
    def python_range(x: ROWS, y: ROWS):
        for _ in range(x.shape[0]):
            pass

    with pytest.raises(TraceError) as e:
        trace_rows(python_range)
    assert_error_at(e, __file__,
                    "range(x.shape[0])", "cannot be used as a Python int", "pypto.loop(n)")

    @pypto.jit
    def true_div(x: ROWS, y: ROWS):
        return x.shape[0] / 2

    with pytest.raises(TraceError) as e:
        trace_rows(true_div)
    assert_error_at(e, __file__, "x.shape[0] / 2", "use // (floor division)")


def test_values_do_not_escape_their_loop():
    @pypto.jit
    def tile_escape(x: ROWS, y: ROWS):
        for i in pypto.loop(4, idx_name="i"):
            t = pypto.view(x, [8, 64], [i * 8, 0])
        pypto.atomic_add(t, [0, 0], y)

    with pytest.raises(TraceError) as e:
        trace_rows(tile_escape)
    assert_error_at(e, __file__,
                    "pypto.atomic_add(t, [0, 0], y)", "atomic_add(src): this tile was computed "
                    "in pypto.loop 'loop_1'", "write it to a tensor")

    @pypto.jit
    def scalar_escape(x: ROWS, y: ROWS):
        for i in pypto.loop(4, idx_name="i"):
            off = i * 8
        pypto.view(x, [8, 64], [off, 0])

    with pytest.raises(TraceError) as e:
        trace_rows(scalar_escape)
    assert_error_at(e, __file__, "pypto.view(x, [8, 64], [off, 0])", "view(offsets)[0]",
                    "used after that loop ends")


def test_loop_misuse():
    @pypto.jit
    def reused(x: ROWS, y: ROWS):
        for i in pypto.loop(4, idx_name="i"):
            for j in pypto.loop(4, idx_name="i"):
                pass

    with pytest.raises(TraceError) as e:
        trace_rows(reused)
    assert_error_at(e, __file__,
                    'pypto.loop(4, idx_name="i"):', "reuses the index name of an enclosing "
                    "loop")

    @pypto.jit
    def breaks(x: ROWS, y: ROWS):
        for i in pypto.loop(4, name="L_BREAK", idx_name="i"):
            break

    with pytest.raises(TraceError) as e:
        trace_rows(breaks)
    assert_error_at(e, __file__,
                    'name="L_BREAK"', "pypto.loop 'L_BREAK' was left early (break/return)")

    @pypto.jit
    def bad_bound(x: ROWS, y: ROWS):
        for i in pypto.loop(2.5):
            pass

    with pytest.raises(TraceError) as e:
        trace_rows(bad_bound)
    assert_error_at(e, __file__,
                    "pypto.loop(2.5)", "loop(stop) must be an int or a symbolic scalar")


def test_kernel_and_option_misuse():
    with pytest.raises(TraceError) as e:   # options PyPTO accepts are carried (test_pypto_package)
        @pypto.jit(runtime_options={"run_mode": 5})
        def k(x: ROWS):
            pass
    assert "run_mode = 5: use pypto.RunMode.NPU or pypto.RunMode.SIM" in e.value.message
    assert e.value.location.file == __file__

    # (Option keys PyPTO has but pto-mlir does not model are carried with a
    # remark: python/pypto's tests.) A modelled option of the wrong type:
    @pypto.jit(runtime_options={"device_sched_mode": "fast"})
    def k(x: ROWS):
        pass

    with pytest.raises(TraceError, match="runtime option device_sched_mode must be an int, "
                                         "got 'fast'"):
        k.trace(x=(None, 64))

    @pypto.jit(runtime_options={"ready_on_host_tensors": ["nope"]})
    def ready(x: ROWS):
        pass

    with pytest.raises(TraceError, match=r"ready_on_host_tensors names \['nope'\], which are not "
                                         r"tensor parameters \(x\)"):
        ready.trace(x=(None, 64))

    @pypto.jit
    def returns(x: ROWS):
        return 1

    with pytest.raises(TraceError, match="kernels have no return value"):
        returns.trace(x=(None, 64))

    @pypto.jit
    def float_read(x: ROWS):
        x[0, 0]

    with pytest.raises(TraceError) as e:
        float_read.trace(x=(None, 64))
    assert_error_at(e, __file__, "x[0, 0]", "scalar reads are supported from integer tensors only")

    @pypto.jit
    def loop_options(x: ROWS):
        for i in pypto.loop(2):
            pypto.experimental.set_operation_options(combine_axis=True)

    with pytest.raises(TraceError) as e:
        loop_options.trace(x=(None, 64))
    assert_error_at(e, __file__,
                    "set_operation_options(combine_axis=True)", "first statement of the "
                    "kernel body")

    with pytest.raises(TraceError, match=r"pypto.view is only available inside a @pypto.jit "
                                         r"kernel"):
        pypto.view(None, [1], [0])
