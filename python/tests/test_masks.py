"""DT_BOOL masks (pto.compare, pto.where) and lower-rank broadcasts,
executed at every level against NumPy: pto-run on the traced program, pto-run
on the tile graph (--pto-tile-graph-pipeline) and the emitted pto-isa C++
(TCMP/TCMPS into a packed bit mask, TSEL/TSELS) on the host emulation.

The kernel is written the way pypto-gym's engram kernels use these names: a
linear layer whose [hidden] bias is added to the 2-D matmul result, a
row score, the sign-sqrt gate `where(ge(s, 0), sqrt(|s| + eps),
-sqrt(|s| + eps))`, and Tile comparison operators. Rows come in blocks of 16
with a tail, so every level computes over partial valid regions."""

from __future__ import annotations

import re

import numpy as np
import pytest

import pto_mlir.frontend as pypto
from pto_mlir import codegen
from pto_mlir.tools import compile_tile_graph, run_kernel, run_tool

F32, DYN = pypto.DT_FP32, pypto.DYN
D = 64


def sign_sqrt(t, eps):
    pos = pypto.ge(t, 0.0)
    root = pypto.sqrt(pypto.abs(t) + eps)
    return pypto.where(pos, root, pypto.neg(root))


@pypto.jit
def masks(x: pypto.Tensor([DYN, D], F32), w: pypto.Tensor([D, D], F32),
          bias: pypto.Tensor([D], F32), y: pypto.Tensor([DYN, D], F32),
          score: pypto.Tensor([DYN, 1], F32), clip: pypto.Tensor([DYN, D], F32)):
    n = x.shape[0]
    for i in pypto.loop(pypto.ceildiv(n, 16), idx_name="i"):
        valid = (n - i * 16).min(16)
        t = pypto.view(x, [16, D], [i * 16, 0], valid_shape=[valid, D])
        pypto.set_cube_tile_shapes([16, 16], [64, 64], [64, 64])
        pypto.set_vec_tile_shapes(16, D)
        h = pypto.matmul(t, w, F32, b_trans=True) + bias       # [16, D] + [D]
        y[i * 16:, 0:] = h
        s = pypto.sum(h * t, -1, keepdim=True) / 8.0             # [16, 1]
        score[i * 16:, 0:] = sign_sqrt(s, 1e-4)
        kept = pypto.where(h > t, h, 0.0)                         # TCMP + TSELS
        floor = pypto.where(pypto.lt(h, 1.0), 1.0, h)             # TCMPS + TSEL
        clip[i * 16:, 0:] = kept + floor


N = 40  # two blocks of 16 and a tail of 8
DTYPES = {"x": "fp32", "w": "fp32", "bias": "fp32", "y": "fp32", "score": "fp32",
          "clip": "fp32"}
OUTPUTS = ["y", "score", "clip"]


def make_inputs():
    rng = np.random.default_rng(14)
    return {"x": rng.standard_normal((N, D)).astype(np.float32),
            "w": (rng.standard_normal((D, D)) / 8).astype(np.float32),
            "bias": rng.standard_normal(D).astype(np.float32),
            "y": np.zeros((N, D), np.float32), "score": np.zeros((N, 1), np.float32),
            "clip": np.zeros((N, D), np.float32)}


def golden(inputs):
    x = inputs["x"].astype(np.float64)
    h = x @ inputs["w"].astype(np.float64).T + inputs["bias"]
    s = (h * x).sum(-1, keepdims=True) / 8.0
    root = np.sqrt(np.abs(s) + 1e-4)
    return {"y": h, "score": np.where(s >= 0, root, -root),
            "clip": np.where(h > x, h, 0.0) + np.where(h < 1.0, 1.0, h)}


def check(got, inputs, level):
    want = golden(inputs)
    for name in OUTPUTS:
        np.testing.assert_allclose(got[name], want[name], rtol=1e-4, atol=1e-4,
                                   err_msg=f"{level}: {name}")


@pytest.fixture(scope="module")
def kernel(tmp_path_factory):
    path = tmp_path_factory.mktemp("masks") / "masks.mlir"
    path.write_text(masks.trace(x=(None, D), y=(None, D), score=(None, 1),
                                clip=(None, D)).mlir)
    return path


def test_program_level(kernel, tmp_path):
    text = kernel.read_text()
    assert text.count("pto.compare") == 3 and text.count("pto.where") == 3
    assert "pto.compare ge" in text and "pto.compare gt" in text
    assert "-> !pto.tile<16x64xi1>" in text
    # the [D] bias: reshaped in place to [1, D], broadcast along the rows
    assert re.search(r"pto\.reshape %bias .*inplace.*-> !pto\.tensor<1x64xf32>", text), text
    out, _ = run_kernel(kernel, tmp_path, make_inputs(), DTYPES, OUTPUTS)
    check(out, make_inputs(), "pto-run")


def test_tile_graph(kernel, tmp_path):
    tg = compile_tile_graph(kernel, tmp_path / "tg.mlir")
    graph = tg.read_text()
    # Each mask is computed in the piece of the where that reads it: no
    # DT_BOOL workspace.
    assert "pto.compare" in graph and "xi1>" in graph
    assert not re.search(r"pto\.workspace : !pto\.tensor<[0-9x]*xi1>", graph), graph
    out, _ = run_kernel(tg, tmp_path / "run", make_inputs(), DTYPES, OUTPUTS)
    check(out, make_inputs(), "tile graph")


def test_emitted_cpp(kernel, tmp_path):
    exe = codegen.build(kernel, tmp_path)
    cpp = next(tmp_path.glob("*.cpp")).read_text()
    for instr in ("TCMP(", "TCMPS(", "TSEL(", "TSELS(", "CmpMode::GE", "uint8_t"):
        assert instr in cpp, instr
    out, _ = codegen.run(exe, tmp_path, make_inputs(), DTYPES, OUTPUTS)
    check(out, make_inputs(), "C++ on the emulation")


@pypto.jit
def ragged(x: pypto.Tensor([8, DYN], F32), y: pypto.Tensor([8, DYN], F32),
           col: pypto.Tensor([8, 1], F32), out: pypto.Tensor([8, DYN], F32)):
    # Valid columns that are no multiple of 8: the mask's last byte is
    # partial, and the next row's bits start at a byte of their own. The
    # value taken where the mask is clear is a broadcast [8, 1] column.
    n = x.shape[1]
    pypto.set_vec_tile_shapes(8, 64)
    a = pypto.view(x, [8, 64], [0, 0], valid_shape=[8, n.min(64)])
    b = pypto.view(y, [8, 64], [0, 0], valid_shape=[8, n.min(64)])
    out[0:, 0:] = pypto.where(a <= b, a, col) + b


def test_ragged_columns_at_every_level(tmp_path):
    rng = np.random.default_rng(5)
    inputs = {"x": rng.standard_normal((8, 37)).astype(np.float32),
              "y": rng.standard_normal((8, 37)).astype(np.float32),
              "col": rng.standard_normal((8, 1)).astype(np.float32),
              "out": np.zeros((8, 37), np.float32)}
    want = np.where(inputs["x"] <= inputs["y"], inputs["x"], inputs["col"]) + inputs["y"]
    kernel = tmp_path / "ragged.mlir"
    kernel.write_text(ragged.trace(x=(8, None), y=(8, None), out=(8, None)).mlir)
    dtypes = {n: "fp32" for n in inputs}
    tg = tmp_path / "tg.mlir"
    assert run_tool("pto-opt", kernel, "--pto-tile-graph-pipeline", "-o", tg).returncode == 0
    for level, source in (("pto-run", kernel), ("tile graph", tg)):
        out, _ = run_kernel(source, tmp_path / level.replace(" ", "_"), inputs, dtypes, ["out"])
        np.testing.assert_array_equal(out["out"], want, err_msg=level)
    exe = codegen.build(kernel, tmp_path / "cpp")
    out, _ = codegen.run(exe, tmp_path / "cpp", inputs, {n: "f32" for n in inputs}, ["out"])
    np.testing.assert_array_equal(out["out"], want, err_msg="C++ on the emulation")


@pytest.mark.parametrize("body, message", [
    ("pypto.where(t, t, t)", "condition has dtype DT_FP32; it must be DT_BOOL"),
    ("pypto.where(pypto.ge(t, 0.0), t, pypto.cast(t, pypto.DT_FP16))",
     "input and other have dtypes DT_FP32 and DT_FP16"),
    ("pypto.ge(pypto.cast(t, pypto.DT_INT8), 0)", "compares DT_INT8"),
    ("pypto.ge(t, pypto.cast(t, pypto.DT_FP16))", "dtypes DT_FP32 and DT_FP16 differ"),
    ("pypto.ge(0.0, t)", "the first operand must be a tile or tensor"),
    ("pypto.add(t, pypto.view(b, [8], [0]))",
     "shapes [8, 16] and [1, 8] differ in dim 1 (16 vs 8) and neither is 1"),
])
def test_trace_errors(body, message):
    namespace = {"pypto": pypto}
    exec(f"""
@pypto.jit
def bad(x: pypto.Tensor([8, 16], pypto.DT_FP32), b: pypto.Tensor([16], pypto.DT_FP32)):
    t = pypto.view(x, [8, 16], [0, 0])
    {body}
""", namespace)
    with pytest.raises(pypto.TraceError, match=re.escape(message)):
        namespace["bad"].trace()


@pypto.jit
def broadcast_masks(x: pypto.Tensor([DYN, D], F32), lim: pypto.Tensor([D], F32),
                    out: pypto.Tensor([DYN, D], F32), gated: pypto.Tensor([DYN, D], F32)):
    # Broadcast operands of a compare (an [16, 1] row mean, a [D] row of
    # limits lifted to [1, D]) and a broadcast [16, 1] condition of a where,
    # over 16-row blocks with a tail.
    n = x.shape[0]
    for i in pypto.loop(pypto.ceildiv(n, 16), idx_name="i"):
        valid = (n - i * 16).min(16)
        pypto.set_vec_tile_shapes(16, D)
        t = pypto.view(x, [16, D], [i * 16, 0], valid_shape=[valid, D])
        mean = pypto.sum(t, -1, keepdim=True) / float(D)          # [16, 1]
        above = pypto.where(t > mean, t, mean)                    # tile vs column
        out[i * 16:, 0:] = pypto.where(pypto.lt(lim, t), lim, above)   # [D] vs tile
        gated[i * 16:, 0:] = pypto.where(mean >= 0.0, t, -1.0)    # [16, 1] condition


def broadcast_masks_golden(x, lim):
    mean = x.sum(-1, keepdims=True, dtype=np.float32) / np.float32(D)
    above = np.where(x > mean, x, mean)
    return {"out": np.where(lim < x, lim, above),
            "gated": np.where(mean >= 0, x, np.float32(-1.0))}


def test_broadcast_compare_and_condition_at_every_level(tmp_path):
    rng = np.random.default_rng(9)
    n = 40
    x = rng.standard_normal((n, D)).astype(np.float32) + 0.1
    inputs = {"x": x, "lim": rng.standard_normal(D).astype(np.float32) + 1.0,
              "out": np.zeros((n, D), np.float32), "gated": np.zeros((n, D), np.float32)}
    kernel = tmp_path / "broadcast_masks.mlir"
    kernel.write_text(broadcast_masks.trace(x=(None, D), out=(None, D), gated=(None, D)).mlir)
    text = kernel.read_text()
    assert "!pto.tile<16x1xf32> -> !pto.tile<16x64xi1>" in text        # compare vs column
    assert "pto.where %" in text and "!pto.tile<16x1xi1>, !pto.tile<16x64xf32>" in text
    want = broadcast_masks_golden(x, inputs["lim"])
    dtypes = {name: "fp32" for name in inputs}
    tg = tmp_path / "tg.mlir"
    assert run_tool("pto-opt", kernel, "--pto-tile-graph-pipeline", "-o", tg).returncode == 0
    for level, source in (("pto-run", kernel), ("tile graph", tg)):
        got, _ = run_kernel(source, tmp_path / level.replace(" ", "_"), inputs, dtypes,
                            ["out", "gated"])
        for name in ("out", "gated"):
            np.testing.assert_allclose(got[name], want[name], rtol=1e-6, atol=1e-6,
                                       err_msg=f"{level}: {name}")
    exe = codegen.build(kernel, tmp_path / "cpp")
    cpp = next((tmp_path / "cpp").glob("*.cpp")).read_text()
    for instr in ("TROWEXPAND(", "TCOLEXPAND(", "TCMP(", "TSELS(", "CmpMode::NE"):
        assert instr in cpp, instr
    got, _ = codegen.run(exe, tmp_path / "cpp", inputs, {n: "f32" for n in inputs},
                         ["out", "gated"])
    for name in ("out", "gated"):
        np.testing.assert_allclose(got[name], want[name], rtol=1e-6, atol=1e-6,
                                   err_msg=f"C++ on the emulation: {name}")


@pypto.jit
def bool_tensors(x: pypto.Tensor([DYN, D], F32), keep: pypto.Tensor([DYN, D], pypto.DT_BOOL),
                 y: pypto.Tensor([DYN, D], F32), pos: pypto.Tensor([DYN, D], pypto.DT_BOOL)):
    # A DT_BOOL input read as a mask and a DT_BOOL output written from one
    # (GM holds a byte of 0 or 1 per element), over 16-row blocks with a tail.
    n = x.shape[0]
    for i in pypto.loop(pypto.ceildiv(n, 16), idx_name="i"):
        valid = (n - i * 16).min(16)
        pypto.set_vec_tile_shapes(16, D)
        t = pypto.view(x, [16, D], [i * 16, 0], valid_shape=[valid, D])
        k = pypto.view(keep, [16, D], [i * 16, 0], valid_shape=[valid, D])
        y[i * 16:, 0:] = pypto.where(k, t, 0.0)
        pos[i * 16:, 0:] = pypto.gt(t, 0.25)


def test_bool_tensors_in_gm_at_every_level(tmp_path):
    rng = np.random.default_rng(21)
    n = 40
    x = rng.standard_normal((n, D)).astype(np.float32)
    keep = rng.random((n, D)) < 0.5
    inputs = {"x": x, "keep": keep, "y": np.zeros((n, D), np.float32),
              "pos": np.zeros((n, D), bool)}
    want = {"y": np.where(keep, x, np.float32(0.0)), "pos": x > 0.25}
    kernel = tmp_path / "bool_tensors.mlir"
    kernel.write_text(bool_tensors.trace(x=(None, D), keep=(None, D), y=(None, D),
                                         pos=(None, D)).mlir)
    assert "%keep: !pto.tensor<?x64xi1>" in kernel.read_text()
    dtypes = {"x": "fp32", "keep": "bool", "y": "fp32", "pos": "bool"}
    tg = tmp_path / "tg.mlir"
    assert run_tool("pto-opt", kernel, "--pto-tile-graph-pipeline", "-o", tg).returncode == 0
    for level, source in (("pto-run", kernel), ("tile graph", tg)):
        got, _ = run_kernel(source, tmp_path / level.replace(" ", "_"), inputs, dtypes,
                            ["y", "pos"])
        for name in ("y", "pos"):
            np.testing.assert_array_equal(got[name], want[name], err_msg=f"{level}: {name}")
    exe = codegen.build(kernel, tmp_path / "cpp")
    cpp = next((tmp_path / "cpp").glob("*.cpp")).read_text()
    assert "reinterpret_cast<__gm__ uint8_t *>" in cpp and "TCVT(" in cpp
    got, _ = codegen.run(exe, tmp_path / "cpp", inputs,
                         {"x": "f32", "keep": "bool", "y": "f32", "pos": "bool"}, ["y", "pos"])
    for name in ("y", "pos"):
        np.testing.assert_array_equal(np.asarray(got[name]), want[name],
                                      err_msg=f"C++ on the emulation: {name}")
