"""PyPTO API the pypto-gym kernels outside the corpus use (docs/Frontend.md,
"PyPTO API used by other pypto-gym kernels"), written the way those kernels
use it: tensor parameters without a dtype, taken from the argument."""

from __future__ import annotations

import numpy as np
import pytest

import pypto
from trace_errors import assert_error_at, assert_error_at_kernel_line

F32, BF16 = pypto.DT_FP32, pypto.DT_BF16


# -- pypto.Tensor() / Tensor([...]) without a dtype ------------------------------------

@pypto.frontend.jit
def double_rows(x: pypto.Tensor([pypto.DYNAMIC, pypto.STATIC]), y: pypto.Tensor()):
    rows, cols = x.shape
    pypto.set_vec_tile_shapes(4, cols)
    for i in pypto.loop(0, rows, 4, name="rows", idx_name="i"):
        t = pypto.view(x, [4, cols], [i, 0])
        pypto.assemble(pypto.add(t, t), [i, 0], y)


@pypto.frontend.jit
def copy_bare(x: pypto.Tensor, y: pypto.Tensor):
    pypto.set_vec_tile_shapes(4, 8)
    pypto.assemble(pypto.view(x, [4, 8], [0, 0]), [0, 0], y)


def test_dtype_and_shape_come_from_the_argument():
    x = np.arange(8 * 16, dtype=np.float32).reshape(8, 16)
    traced = double_rows.trace(x, np.zeros_like(x))
    assert "%x: !pto.tensor<?x16xf32>" in traced.mlir
    assert "%y: !pto.tensor<8x16xf32>" in traced.mlir
    traced.module()
    y = np.zeros_like(x)
    double_rows(x, y)
    np.testing.assert_array_equal(y, 2 * x)
    # another dtype retraces: the cache is keyed by it too
    xh = x.astype(np.float16)
    yh = np.zeros_like(xh)
    double_rows(xh, yh)
    np.testing.assert_array_equal(yh, 2 * xh)
    assert "?x16xf16" in double_rows.trace(xh, yh).mlir


def test_the_bare_class_annotation_takes_both_from_the_argument():
    torch = pytest.importorskip("torch")
    x = torch.randn(4, 8).to(torch.bfloat16)
    y = torch.zeros(4, 8, dtype=torch.bfloat16)
    assert "%x: !pto.tensor<4x8xbf16>" in copy_bare.trace(x, y).mlir
    copy_bare(x, y)
    assert torch.equal(x, y)


@pytest.mark.parametrize("args, message", [
    (((None, 16), (8, 16)), r"'x' is annotated Tensor\(\[DYN, STATIC\]\), without a dtype: its "
                            r"dtype is taken from the argument, so give a torch tensor or a "
                            r"NumPy array \(got tuple\)"),
    ((np.zeros((8, 16), np.float64), np.zeros((8, 16), np.float64)),
     r"'x' is annotated .* without a dtype, and is given a float64 array, which holds no "
     r"pypto dtype"),
])
def test_a_dtype_that_cannot_be_taken_is_a_located_error(args, message):
    with pytest.raises(pypto.TraceError, match=message) as info:
        double_rows.trace(*args)
    assert_error_at(info, __file__, "def double_rows(x: pypto.Tensor(")   # at the parameter


# -- batched (3-D / 4-D) pypto.matmul ------------------------------------------------------

@pypto.frontend.jit
def attn_residual(q: pypto.Tensor([pypto.STATIC, pypto.STATIC, pypto.STATIC]),
                  v: pypto.Tensor([pypto.DYNAMIC, pypto.STATIC, pypto.STATIC]),
                  out: pypto.Tensor([pypto.DYNAMIC, pypto.STATIC, pypto.STATIC])):
    """kimi_attention_residuals' two matmuls: a [1, 1, D] query against each
    row's [L, D] values (batch broadcast, b_trans), then the [B, 1, L]
    weights against the same values."""
    bt, l, d = v.shape
    pypto.set_vec_tile_shapes(1, 8, d)
    for i in pypto.loop(0, bt, 4, name="rows", idx_name="i"):
        t = pypto.view(v, [4, l, d], [i, 0, 0])
        pypto.set_cube_tile_shapes([16, 16], [32, 32], [16, 16])
        logits = pypto.matmul(q, t, F32, b_trans=True)          # [4, 1, L]
        weights = pypto.mul(logits, 0.5)
        pypto.assemble(pypto.matmul(weights, t, F32), [i, 0, 0], out)   # [4, 1, D]


def attn_residual_reference(q, v):
    return ((q @ v.transpose(0, 2, 1)) * np.float32(0.5)) @ v


@pypto.frontend.jit
def batched_4d(a: pypto.Tensor([2, 1, 16, 8], F32), b: pypto.Tensor([2, 3, 16, 16], F32),
               c: pypto.Tensor([2, 3, 8, 16], F32)):
    pypto.set_vec_tile_shapes(1, 1, 16, 16)
    pypto.set_cube_tile_shapes([16, 16], [16, 16], [16, 16])
    x = pypto.view(a, [2, 1, 16, 8], [0, 0, 0, 0])
    y = pypto.view(b, [2, 3, 16, 16], [0, 0, 0, 0])
    pypto.assemble(pypto.matmul(x, y, F32, a_trans=True), [0, 0, 0, 0], c)


def _attn_inputs(rows):
    rng = np.random.default_rng(rows)
    q = rng.standard_normal((1, 1, 32)).astype(np.float32)
    v = rng.standard_normal((rows, 16, 32)).astype(np.float32)
    return q, v


@pytest.mark.parametrize("rows", [8, 6])   # 6: the last iteration's batch is 2 of 4
def test_batched_matmul_broadcasts_and_runs(rows):
    q, v = _attn_inputs(rows)
    out = np.zeros((rows, 1, 32), np.float32)
    traced = attn_residual.trace(q, v, out)
    assert traced.mlir.count("pto.matmul") == 2        # one 2-D matmul per batched one
    attn_residual(q, v, out)
    np.testing.assert_allclose(out, attn_residual_reference(q, v), rtol=1e-5, atol=1e-5)
    compiled = np.zeros_like(out)
    traced.compile().run({"q": q, "v": v, "out": compiled})
    np.testing.assert_array_equal(compiled, out)


def test_batched_matmul_4d_with_a_trans_through_the_tile_graph():
    rng = np.random.default_rng(4)
    a = rng.standard_normal((2, 1, 16, 8)).astype(np.float32)
    b = rng.standard_normal((2, 3, 16, 16)).astype(np.float32)
    c = np.zeros((2, 3, 8, 16), np.float32)
    traced = batched_4d.trace(a, b, c)
    batched_4d(a, b, c)
    np.testing.assert_allclose(c, a.transpose(0, 1, 3, 2) @ b, rtol=1e-5, atol=1e-5)
    compiled = np.zeros_like(c)
    traced.compile().run({"a": a, "b": b, "c": compiled})
    np.testing.assert_array_equal(compiled, c)


def test_batched_matmul_emitted_cpp_matches(tmp_path):
    from pto_mlir import codegen
    q, v = _attn_inputs(6)
    out = np.zeros((6, 1, 32), np.float32)
    source = tmp_path / "attn_residual.mlir"
    source.write_text(attn_residual.trace(q, v, out).mlir)
    exe = codegen.build(source, tmp_path)
    result, _ = codegen.run(exe, tmp_path, {"q": q, "v": v, "out": out},
                            {"q": "f32", "v": "f32", "out": "f32"}, ["out"])
    np.testing.assert_allclose(result["out"], attn_residual_reference(q, v), rtol=1e-5,
                               atol=1e-5)


@pypto.frontend.jit
def weighted_sum_bf16(w: pypto.Tensor([pypto.DYNAMIC, 1, pypto.STATIC], F32),
                      v: pypto.Tensor([pypto.DYNAMIC, pypto.STATIC, pypto.STATIC], F32),
                      h: pypto.Tensor([pypto.DYNAMIC, 1, pypto.STATIC], BF16)):
    """kimi_attention_residuals' second matmul: f32 weights [B, 1, L] times f32
    values [B, L, D] straight to a bf16 result, under its cube tile m = [1, 1]
    (PyPTO's CheckOperandDtype and CheckCubeTiling accept both)."""
    bt, l, d = v.shape
    pypto.set_vec_tile_shapes(1, l, d)
    for i in pypto.loop(0, bt, 2, name="rows", idx_name="i"):
        wt = pypto.view(w, [2, 1, l], [i, 0, 0])
        vt = pypto.view(v, [2, l, d], [i, 0, 0])
        pypto.set_cube_tile_shapes([1, 1], [16, 16], [32, 32])
        pypto.assemble(pypto.matmul(wt, vt, BF16), [i, 0, 0], h)


def _bf16_round(x):
    bits = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16      # round to nearest even
    return (bits << 16).astype(np.uint32).view(np.float32)


def test_f32_matmul_to_bf16_with_an_unaligned_m_tile(tmp_path):
    from pto_mlir import codegen
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(7)
    w = rng.standard_normal((4, 1, 16)).astype(np.float32)
    v = rng.standard_normal((4, 16, 32)).astype(np.float32)
    expected = _bf16_round(w @ v)
    h = torch.zeros(4, 1, 32, dtype=torch.bfloat16)
    traced = weighted_sum_bf16.trace(w, v, h)
    assert "-> !pto.tile<1x32xbf16>" in traced.mlir
    weighted_sum_bf16(w, v, h)
    np.testing.assert_allclose(h.float().numpy(), expected, rtol=8e-3, atol=1e-5)
    bits = np.zeros((4, 1, 32), np.uint16)                   # BF16 as its bit patterns
    traced.compile().run({"w": w, "v": v, "h": bits})
    np.testing.assert_array_equal(bits, h.view(torch.int16).numpy().view(np.uint16))
    source = tmp_path / "weighted_sum_bf16.mlir"
    source.write_text(traced.mlir)
    exe = codegen.build(source, tmp_path)
    result, _ = codegen.run(exe, tmp_path, {"w": w, "v": v, "h": np.zeros((4, 1, 32), np.float32)},
                            {"w": "f32", "v": "f32", "h": "bf16"}, ["h"])
    from pto_mlir.golden.bf16 import bf16_bits_to_f32
    got = bf16_bits_to_f32(np.asarray(result["h"], np.uint16))
    np.testing.assert_array_equal(got, h.float().numpy())


@pypto.frontend.jit
def bad_batch(a: pypto.Tensor([2, 16, 16], F32), b: pypto.Tensor([3, 16, 16], F32),
              c: pypto.Tensor([3, 16, 16], F32)):
    pypto.set_vec_tile_shapes(1, 16, 16)
    pypto.set_cube_tile_shapes([16, 16], [16, 16], [16, 16])
    pypto.assemble(pypto.matmul(a, b, F32), [0, 0, 0], c)


@pypto.frontend.jit
def mixed_ranks(a: pypto.Tensor([16, 16], F32), b: pypto.Tensor([3, 16, 16], F32),
                c: pypto.Tensor([3, 16, 16], F32)):
    pypto.set_vec_tile_shapes(1, 16, 16)
    pypto.set_cube_tile_shapes([16, 16], [16, 16], [16, 16])
    pypto.assemble(pypto.matmul(a, b, F32), [0, 0, 0], c)


@pytest.mark.parametrize("kernel, message", [
    (bad_batch, r"batch dim 0 is 2 in input \[2, 16, 16\] and 3 in mat2 \[3, 16, 16\]; batch "
                r"dims must be equal or 1"),
    (mixed_ranks, r"matmul takes 2-, 3- or 4-D operands of equal rank .* got ranks 2 and 3"),
])
def test_batched_matmul_errors_at_the_line(kernel, message):
    with pytest.raises(pypto.TraceError, match=message) as info:
        kernel.trace()
    assert_error_at_kernel_line(info, kernel, 5)


# -- GM sub-tensors: x[b, n] of a 4-D tensor, read and written through ---------------------

STATES = pypto.Tensor([pypto.DYNAMIC, 2, 16, 16], F32)


def decay_states_kernel(slices: bool):
    @pypto.frontend.jit
    def decay_states(x: STATES, states: STATES, out: STATES):
        """chunked_gdr's pattern: a [D, D] state per (batch, head) taken as
        states[b, n] (or states[b, n, :, :]), read and rewritten in every
        chunk, then copied out."""
        pypto.set_vec_tile_shapes(16, 16)
        for b in pypto.loop(x.shape[0], name="B", idx_name="b"):
            for n in pypto.loop(2, name="N", idx_name="n"):
                state = states[b, n, :, :] if slices else states[b, n]
                for k in pypto.loop(3, name="chunks", idx_name="k"):
                    chunk = pypto.reshape(pypto.view(x, [1, 1, 16, 16], [b, n, 0, 0]),
                                          [16, 16])
                    state[:] = state * 0.5 + chunk
                out[b, n] = pypto.reshape(state, [16, 16])   # a copying reshape reads it
    return decay_states


def _decay_inputs():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((3, 2, 16, 16)).astype(np.float32)
    states = rng.standard_normal((3, 2, 16, 16)).astype(np.float32)
    expected = states
    for _ in range(3):
        expected = expected * np.float32(0.5) + x
    return x, states, expected


@pytest.mark.parametrize("slices", [False, True])
def test_gm_subtensor_is_read_and_written_through(slices):
    decay_states = decay_states_kernel(slices)
    x, states, expected = _decay_inputs()
    traced = decay_states.trace(x, states, np.zeros_like(x))
    # one in-place reshape; views and stores at the window's row
    assert "pto.reshape %states [" in traced.mlir and "inplace" in traced.mlir
    out, s = np.zeros_like(x), states.copy()
    decay_states(x, s, out)
    np.testing.assert_array_equal(out, expected)
    np.testing.assert_array_equal(s, expected)       # written through into the argument
    out2, s2 = np.zeros_like(x), states.copy()
    traced.compile().run({"x": x, "states": s2, "out": out2})
    np.testing.assert_array_equal(out2, expected)
    np.testing.assert_array_equal(s2, expected)


def test_gm_subtensor_emitted_cpp_matches(tmp_path):
    from pto_mlir import codegen
    decay_states = decay_states_kernel(False)
    x, states, expected = _decay_inputs()
    source = tmp_path / "decay_states.mlir"
    source.write_text(decay_states.trace(x, states, np.zeros_like(x)).mlir)
    exe = codegen.build(source, tmp_path)
    result, _ = codegen.run(exe, tmp_path, {"x": x, "states": states, "out": np.zeros_like(x)},
                            {"x": "f32", "states": "f32", "out": "f32"}, ["states", "out"])
    np.testing.assert_array_equal(result["out"], expected)
    np.testing.assert_array_equal(result["states"], expected)


@pypto.frontend.jit
def sub_store_too_big(states: STATES):
    pypto.set_vec_tile_shapes(16, 16)
    s = states[0, 1]
    pypto.assemble(pypto.full([16, 16], 1.0, F32), [8, 0], s)


@pypto.frontend.jit
def sub_store_at_run_time(states: STATES):
    pypto.set_vec_tile_shapes(8, 16)
    s = states[0, 1]
    for i in pypto.loop(2, name="i", idx_name="i"):
        pypto.assemble(pypto.full([8, 16], 1.0, F32), [i * 8, 0], s)


@pypto.frontend.jit
def sub_reshape(states: STATES):
    s = states[0, 1]
    pypto.reshape(s, [256], inplace=True)


@pypto.frontend.jit
def sub_of_sub(states: pypto.Tensor([2, 2, 2, 16, 16], F32)):
    s = states[0, 1]
    s[1]


@pypto.frontend.jit
def sub_out_of_range(states: STATES):
    states[0, 2]


@pytest.mark.parametrize("kernel, message", [
    (sub_store_too_big, r"a \[16, 16\] tile at offset \[8, 0\] leaves the GM sub-tensor "
                        r"'states_sub' \[16, 16\] in dim 0 \(8 \+ 16 > 16\)"),
    (sub_store_at_run_time, r"a store into the GM sub-tensor 'states_sub' at a run-time offset "
                            r"\(dim 0\) is not supported yet"),
    (sub_reshape, r"reshape\(..., inplace=True\) of the GM sub-tensor 'states_sub' is not "
                  r"supported yet"),
    (sub_of_sub, r"integer indices of a GM sub-tensor .* are not supported yet"),
    (sub_out_of_range, r"index 2 is out of range for dim 1 of size 2"),
])
def test_gm_subtensor_errors_at_the_line(kernel, message):
    with pytest.raises(pypto.TraceError, match=message) as info:
        kernel.trace(np.zeros((2, 2, 2, 16, 16) if kernel is sub_of_sub else (2, 2, 16, 16),
                              np.float32))
    assert "test_frontend_gym_api.py:" in str(info.value)


# -- pypto.relu ----------------------------------------------------------------------------

@pypto.frontend.jit
def relu_rows(x: pypto.Tensor([8, 16]), y: pypto.Tensor([8, 16])):
    pypto.set_vec_tile_shapes(8, 16)
    y[:] = pypto.relu(pypto.view(x, [8, 16], [0, 0]))


def test_relu_is_max_with_zero():
    x = np.linspace(-3, 3, 128, dtype=np.float32).reshape(8, 16)
    y = np.zeros_like(x)
    relu_rows(x, y)
    np.testing.assert_array_equal(y, np.maximum(x, 0))
    with pytest.raises(pypto.TraceError, match=r"relu\(input\) is DT_INT32; PyPTO's relu takes"):
        relu_rows.trace(x.astype(np.int32), y.astype(np.int32))
