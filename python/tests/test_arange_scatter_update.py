"""pto.arange (pypto.arange) and pypto.scatter_update executed at every
level: pto-run on the traced program, pto-run on the tile graph
(--pto-tile-graph-pipeline) and the emitted pto-isa C++ (TCI, row-mode
MSCATTER) on the host emulation, each against NumPy. The kernel uses them as
deepseek_v4's compressor does: an index row from arange, windows of it (one
with a run-time valid extent) scattering rows into a GM state and into a
tile read from GM."""

from __future__ import annotations

import re

import numpy as np
import pytest

import pto_mlir.frontend as pypto
from pto_mlir import codegen
from pto_mlir.tools import compile_tile_graph, run_kernel

F32, I32 = pypto.DT_FP32, pypto.DT_INT32


@pypto.jit
def sequence(seq_out: pypto.Tensor([1, 40], I32), fseq_out: pypto.Tensor([1, 6], F32),
             state: pypto.Tensor([16, 32], F32), src: pypto.Tensor([8, 32], F32),
             block: pypto.Tensor([8, 32], F32), block_out: pypto.Tensor([8, 32], F32),
             valid: pypto.Tensor([1], I32)):
    pypto.set_vec_tile_shapes(16)
    idx = pypto.reshape(pypto.arange(40), [1, 40])     # three pieces of 16
    pypto.set_vec_tile_shapes(1, 40)
    pypto.assemble(idx, [0, 0], seq_out)
    pypto.set_vec_tile_shapes(4, 32)
    for i in pypto.loop(2, idx_name="i"):
        index = pypto.view(idx, [1, 4], [0, i * 5 + 2])      # rows 2..5, then 7..10
        rows = pypto.view(src, [4, 32], [i * 4, 0])
        pypto.scatter_update(state, -2, index, rows)          # GM form
    # The tile form, with a run-time valid extent as in the compressor.
    n = valid[0]
    t = pypto.view(block, [8, 32], [0, 0])
    index = pypto.view(idx, [1, 4], [0, 3], valid_shape=[1, n])
    upd = pypto.view(src, [4, 32], [0, 0], valid_shape=[n, 32])
    r = pypto.scatter_update(t, -2, index, upd)
    pypto.assemble(pypto.mul(r, 2.0), [0, 0], block_out)


@pypto.jit
def float_sequence(out: pypto.Tensor([1, 6], F32)):
    pypto.set_vec_tile_shapes(4)
    s = pypto.reshape(pypto.arange(1.0, 4.0, 0.5), [1, 6])
    pypto.set_vec_tile_shapes(1, 6)
    pypto.assemble(s, [0, 0], out)


DTYPES = {"seq_out": "int32", "fseq_out": "fp32", "state": "fp32", "src": "fp32",
          "block": "fp32", "block_out": "fp32", "valid": "int32"}
OUTPUTS = ["seq_out", "state", "block_out"]


def make_inputs(n: int = 3):
    rng = np.random.default_rng(11)
    return {"seq_out": np.zeros((1, 40), np.int32), "fseq_out": np.zeros((1, 6), np.float32),
            "state": rng.standard_normal((16, 32)).astype(np.float32),
            "src": rng.standard_normal((8, 32)).astype(np.float32),
            "block": rng.standard_normal((8, 32)).astype(np.float32),
            "block_out": np.zeros((8, 32), np.float32), "valid": np.array([n], np.int32)}


def golden(inputs):
    state, block = inputs["state"].copy(), inputs["block"].copy()
    state[2:6] = inputs["src"][0:4]
    state[7:11] = inputs["src"][4:8]
    n = int(inputs["valid"][0])
    block[3:3 + n] = inputs["src"][0:n]
    return {"seq_out": np.arange(40, dtype=np.int32)[None], "state": state,
            "block_out": 2.0 * block}


def check(got, inputs, level):
    want = golden(inputs)
    for name in OUTPUTS:
        np.testing.assert_array_equal(got[name], want[name], err_msg=f"{level}: {name}")


@pytest.fixture(scope="module")
def kernel(tmp_path_factory):
    path = tmp_path_factory.mktemp("arange") / "sequence.mlir"
    path.write_text(sequence.trace().mlir)
    return path


def test_program_level(kernel, tmp_path):
    text = kernel.read_text()
    assert "pto.arange 0.000000e+00, 1.000000e+00" in text or "pto.arange 0.0, 1.0" in text
    assert text.count("pto.index_put") == 2
    for n in (3, 1):
        inputs = make_inputs(n)
        out, _ = run_kernel(kernel, tmp_path / f"n{n}", inputs, DTYPES, OUTPUTS)
        check(out, inputs, f"pto-run n={n}")


def test_tile_graph(kernel, tmp_path):
    tg = compile_tile_graph(kernel, tmp_path / "tg.mlir")
    assert tg.read_text().count("pto.arange") >= 3   # the pieces of 16, 16, 8
    inputs = make_inputs()
    out, _ = run_kernel(tg, tmp_path / "run", inputs, DTYPES, OUTPUTS)
    check(out, inputs, "tile graph")


def test_emitted_cpp(kernel, tmp_path):
    exe = codegen.build(kernel, tmp_path)
    cpp = next(tmp_path.glob("*.cpp")).read_text()
    assert "TCI<" in cpp and "MSCATTER<Coalesce::Row, ScatterAtomicOp::None>" in cpp
    for n in (3, 2):
        inputs = make_inputs(n)
        out, _ = codegen.run(exe, tmp_path / f"n{n}", inputs, DTYPES, OUTPUTS)
        check(out, inputs, f"C++ on the emulation n={n}")


def test_float_arange(tmp_path):
    """A float sequence runs in pto-run, the tile graph and the C++ (TCI,
    TCVT, TMULS, TADDS; more steps in test_frontend_arange_steps.py)."""
    path = tmp_path / "fseq.mlir"
    path.write_text(float_sequence.trace().mlir)
    want = np.arange(1.0, 4.0, 0.5, dtype=np.float32)[None]
    inputs = {"out": np.zeros((1, 6), np.float32)}
    out, _ = run_kernel(path, tmp_path / "run", inputs, {"out": "fp32"}, ["out"])
    np.testing.assert_array_equal(out["out"], want)
    tg = compile_tile_graph(path, tmp_path / "tg.mlir")
    out, _ = run_kernel(tg, tmp_path / "tg", inputs, {"out": "fp32"}, ["out"])
    np.testing.assert_array_equal(out["out"], want)
    exe = codegen.build(path, tmp_path / "cpp")
    out, _ = codegen.run(exe, tmp_path / "cpp", inputs, {"out": "fp32"}, ["out"])
    np.testing.assert_array_equal(out["out"], want)


@pytest.mark.parametrize("body, message", [
    ("pypto.arange(0, 0)", "arange(0, 0, 1) is empty"),
    ("pypto.arange(0, 4, 0)", "arange(step=0): PyPTO requires |step| > 1e-8"),
    ("pypto.arange(0, 2**31 + 4)", "int bounds must be within int32"),
    ("pypto.scatter_update(t, -1, pypto.reshape(pypto.arange(8), [1, 8]), v)",
     "scatter_update(dim=-1): PyPTO's dim is -2"),
    ("pypto.scatter_update(t, -2, pypto.arange(8), v)",
     "scatter_update(index) is a [8] tile; PyPTO takes a 2-D [b, s] index"),
    ("pypto.scatter_update(t, -2, pypto.reshape(pypto.arange(4), [1, 4]), v)",
     "scatter_update(src) is [8, 16] for a [1, 4] index"),
])
def test_trace_errors(body, message):
    namespace = {"pypto": pypto}
    exec(f"""
@pypto.jit
def bad(t: pypto.Tensor([10, 16], pypto.DT_FP32), u: pypto.Tensor([8, 16], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(8)
    v = pypto.view(u, [8, 16], [0, 0])
    {body}
""", namespace)
    with pytest.raises(pypto.TraceError, match=re.escape(message)):
        namespace["bad"].trace()


def test_datatype_enum_spelling():
    """PyPTO kernels also write pypto.DataType.DT_FP32 (compressor's rope)."""
    assert pypto.DataType.DT_FP32 is pypto.DT_FP32
    assert pypto.DataType.DT_INT32 is pypto.DT_INT32


@pypto.jit
def scoped_concat(x: pypto.Tensor([8, 32], F32), y: pypto.Tensor([8, 32], F32),
                  n_t: pypto.Tensor([2], I32)):
    for i in pypto.loop(2, idx_name="i"):
        pypto.set_pass_options(sg_set_scope=(1, True, False))
        n = n_t[i]
        pypto.set_vec_tile_shapes(4, 32)
        a = pypto.view(x, [2, 32], [i * 4, 0], valid_shape=[2, n])
        b = pypto.view(x, [2, 32], [i * 4 + 2, 0], valid_shape=[2, n])
        # The valid extent off the concat dim is min(valid(a), valid(b)): a
        # scalar op on extents computed in the open pto.scope.
        c = pypto.concat([a, b], 0)
        pypto.assemble(pypto.mul(c, 3.0), [i * 4, 0], y)


def test_scalar_of_scoped_extents(tmp_path):
    """Scalar arithmetic on valid extents recorded inside an sg_set_scope
    region goes after them in the region (it went before the scope: an
    unprintable program), as deepseek_v4 compressor's concats need."""
    path = tmp_path / "scoped.mlir"
    path.write_text(scoped_concat.trace().mlir)
    x = np.random.default_rng(5).standard_normal((8, 32)).astype(np.float32)
    inputs = {"x": x, "y": np.zeros((8, 32), np.float32), "n_t": np.array([32, 20], np.int32)}
    out, _ = run_kernel(path, tmp_path / "run", inputs,
                        {"x": "fp32", "y": "fp32", "n_t": "int32"}, ["y"])
    want = np.zeros((8, 32), np.float32)
    want[0:4] = 3.0 * x[0:4]
    want[4:8, :20] = 3.0 * x[4:8, :20]
    np.testing.assert_array_equal(out["y"], want)


@pypto.jit
def chunk_update(st: pypto.Tensor([2, 8, 16], F32), src: pypto.Tensor([1, 3, 16], F32),
                 o: pypto.Tensor([4, 16], F32), p: pypto.Tensor([1], I32)):
    pypto.set_vec_tile_shapes(8)
    ci = pypto.reshape(pypto.arange(8), [1, 8])
    for c in pypto.loop(1, idx_name="c"):
        pos = p[0]
        pypto.set_vec_tile_shapes(1, 4, 16)
        s = pypto.view(st, [1, 4, 16], [1, 4, 0])
        if pos < 4:
            o[:] = pypto.reshape(s, [4, 16])   # the extents of s, first in a branch
        else:
            # the compressor's split chunk: 4 - pos rows of a [1, 3, 16] window
            kv = pypto.view(src, [1, 3, 16], [0, 0, 0], valid_shape=[1, 8 - pos, 16])
            index = pypto.view(ci, [1, 3], [0, pos - 4], valid_shape=[1, 8 - pos])
            kv2 = pypto.reshape(kv, [3, 16])    # valid [8 - pos, 16] carried over
            pypto.set_vec_tile_shapes(4, 16)
            o[:] = pypto.scatter_update(pypto.reshape(s, [4, 16]), -2, index, kv2)


@pytest.mark.parametrize("pos", [2, 5, 6])
def test_unit_dim_reshape_keeps_valid_extents(tmp_path, pos):
    """A reshape that only drops unit dims keeps a partial valid region (it
    viewed the whole workspace back, so scatter_update wrote an unwritten
    row); a tile's cached valid extents are recorded again in a later
    branch. pto-run and the tile graph against NumPy."""
    path = tmp_path / "chunk.mlir"
    path.write_text(chunk_update.trace().mlir)
    rng = np.random.default_rng(pos)
    inputs = {"st": rng.standard_normal((2, 8, 16)).astype(np.float32),
              "src": rng.standard_normal((1, 3, 16)).astype(np.float32),
              "o": np.zeros((4, 16), np.float32), "p": np.array([pos], np.int32)}
    dtypes = {"st": "fp32", "src": "fp32", "o": "fp32", "p": "int32"}
    want = inputs["st"][1, 4:8].copy()
    if pos >= 4:
        want[pos - 4:4] = inputs["src"][0, 0:8 - pos]
    out, _ = run_kernel(path, tmp_path / "run", inputs, dtypes, ["o"])
    np.testing.assert_array_equal(out["o"], want)
    tg = compile_tile_graph(path, tmp_path / "tg.mlir")
    out, _ = run_kernel(tg, tmp_path / "tg", inputs, dtypes, ["o"])
    np.testing.assert_array_equal(out["o"], want, err_msg="tile graph")


@pypto.jit
def top_k_mask(x: pypto.Tensor([6, 16], F32), idx: pypto.Tensor([6, 3], I32),
               masked: pypto.Tensor([6, 16], F32), picked: pypto.Tensor([6, 3], F32)):
    pypto.set_vec_tile_shapes(6, 16)
    t = pypto.view(x, [6, 16], [0, 0])
    i = pypto.view(idx, [6, 3], [0, 0])
    # glm moe_fusion's group mask: ones at the chosen columns, then its negation
    mask = pypto.scatter_(pypto.full([6, 16], 0.0, F32), 1, i, 1.0)
    pypto.assemble(pypto.where(pypto.logical_not(mask), 0.0, t), [0, 0], masked)
    pypto.set_vec_tile_shapes(6, 16)
    pypto.assemble(pypto.gather(t, 1, i), [0, 0], picked)


def test_scatter_logical_not_gather(tmp_path):
    """scatter_ (scalar, last dim), logical_not and gather (last dim) at
    every level: pto-run, the tile graph and the C++ on the emulation."""
    path = tmp_path / "topk.mlir"
    path.write_text(top_k_mask.trace().mlir)
    rng = np.random.default_rng(2)
    x = rng.standard_normal((6, 16)).astype(np.float32)
    idx = np.stack([rng.permutation(16)[:3] for _ in range(6)]).astype(np.int32)
    inputs = {"x": x, "idx": idx, "masked": np.zeros((6, 16), np.float32),
              "picked": np.zeros((6, 3), np.float32)}
    dtypes = {"x": "fp32", "idx": "int32", "masked": "fp32", "picked": "fp32"}
    keep = np.zeros((6, 16), bool)
    np.put_along_axis(keep, idx, True, 1)
    want = {"masked": np.where(keep, x, 0.0).astype(np.float32),
            "picked": np.take_along_axis(x, idx, 1)}
    out, _ = run_kernel(path, tmp_path / "run", inputs, dtypes, ["masked", "picked"])
    tg = compile_tile_graph(path, tmp_path / "tg.mlir")
    out_tg, _ = run_kernel(tg, tmp_path / "tg", inputs, dtypes, ["masked", "picked"])
    exe = codegen.build(path, tmp_path / "cpp")
    out_cpp, _ = codegen.run(exe, tmp_path / "cpp", inputs, dtypes, ["masked", "picked"])
    for level, got in (("pto-run", out), ("tile graph", out_tg), ("C++", out_cpp)):
        for name in ("masked", "picked"):
            np.testing.assert_array_equal(got[name], want[name], err_msg=f"{level}: {name}")


def test_unknown_tensor_format_rejected():
    """TILEOP_ND and TILEOP_NZ are the formats (NZ: tests/test_nz_weights.py);
    anything else is an error naming both."""
    with pytest.raises(TypeError, match=re.escape(
            "Tensor(..., format='TILEOP_ZZ'): the format is pypto.TileOpFormat.TILEOP_ND "
            "(row-major) or TILEOP_NZ (16-row fractals)")):
        pypto.Tensor([], pypto.DT_INT8, format="TILEOP_ZZ")


@pypto.jit
def swap_two(x: pypto.Tensor([1, 32, 8], F32), y: pypto.Tensor([1, 8, 32], F32)):
    pypto.set_vec_tile_shapes(1, 32, 32)
    t = pypto.view(x, [1, 32, 8], [0, 0, 0])
    pypto.assemble(pypto.mul(pypto.transpose(t, 1, 2), 2.0), [0, 0, 0], y)


def test_transpose_of_two_non_unit_dims_in_cpp(tmp_path):
    """[1, 32, 8] -> [1, 8, 32] (compressor's interleaved RoPE): a 2-D TTRANS
    of the held forms in the emitted C++ (it was an error)."""
    path = tmp_path / "swap.mlir"
    path.write_text(swap_two.trace().mlir)
    x = np.random.default_rng(4).standard_normal((1, 32, 8)).astype(np.float32)
    inputs = {"x": x, "y": np.zeros((1, 8, 32), np.float32)}
    exe = codegen.build(path, tmp_path / "cpp")
    assert "TTRANS" in next((tmp_path / "cpp").glob("*.cpp")).read_text()
    out, _ = codegen.run(exe, tmp_path / "cpp", inputs, {"x": "fp32", "y": "fp32"}, ["y"])
    np.testing.assert_array_equal(out["y"], 2.0 * x.transpose(0, 2, 1))
