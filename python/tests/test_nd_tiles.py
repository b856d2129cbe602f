"""Rank-3 tiles and views of tiles at every level, against NumPy: pto-run on
the traced program, pto-run on the tile graph and the emitted pto-isa C++ on
the host emulation (docs/ISA.md, "N-D tiles" and "Views of tiles").

The kernel is written the way the gym kernels write them: a keepdim row sum
of [B, S, D] and its per-row broadcast (held as a [B * S, 1] column), a
column sum over the middle dim of [1, S, D] broadcast back over [B, S, D],
a row sum without keepdim, a cast and a copy of a 3-D tile with a non-unit
middle dim, an integer index of a tile (x[:, k, :]: TEXTRACT copies, one
per leading index with TINSERT when B > 1), a sum over the middle dim of
[B, S, D] (one TCOLSUM per b) and its broadcast back (one TCOLEXPAND + TSUB
per b), and a
per-row [R, 1] operand against a last tile with a row tail (the column is
narrowed with tmov to the result's valid rows, which pto-isa's TROWEXPAND*
want equal)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import pto_mlir.frontend as pypto
from pto_mlir import codegen
from pto_mlir.tools import check_program_and_tile_graph

F32, BF16, DYN = pypto.DT_FP32, pypto.DT_BF16, pypto.DYN
B, S, D = 2, 8, 32
ROWS = 13   # the 2-D part: the second [8, 64] tile has 5 valid rows


@pypto.jit
def nd_tiles(x: pypto.Tensor([B, S, D], F32), u: pypto.Tensor([1, S, D], F32),
             dev: pypto.Tensor([B, S, D], F32), mean: pypto.Tensor([B, S, 1], F32),
             shifted: pypto.Tensor([B, S, D], F32), rowsum: pypto.Tensor([1, S], F32),
             row: pypto.Tensor([1, D], F32), half: pypto.Tensor([B, S, D], BF16),
             colsum: pypto.Tensor([B, 1, D], F32), centered: pypto.Tensor([B, S, D], F32),
             picked: pypto.Tensor([B, D], F32),
             a: pypto.Tensor([DYN, 64], F32), w: pypto.Tensor([8, 1], F32),
             out: pypto.Tensor([DYN, 64], F32)):
    pypto.set_vec_tile_shapes(B, S, D)
    t = pypto.view(x, [B, S, D], [0, 0, 0])
    m = t.sum(dim=2, keepdim=True) * (1.0 / D)
    pypto.assemble(t - m, [0, 0, 0], dev)
    pypto.assemble(m, [0, 0, 0], mean)
    v = pypto.view(u, [1, S, D], [0, 0, 0])
    pypto.assemble(t + v.sum(dim=1, keepdim=True), [0, 0, 0], shifted)
    pypto.assemble(pypto.sum(v, 2), [0, 0], rowsum)
    e = pypto.exp(v)
    pypto.assemble(e[:, 2, :], [0, 0], row)
    pypto.assemble(pypto.cast(t, BF16), [0, 0, 0], half)
    cs = t.sum(dim=1, keepdim=True)
    pypto.assemble(cs, [0, 0, 0], colsum)
    pypto.assemble(t - cs, [0, 0, 0], centered)
    pypto.assemble(pypto.exp(t)[:, 3, :], [0, 0], picked)
    rows = a.shape[0]
    pypto.set_vec_tile_shapes(8, 64)
    wt = pypto.view(w, [8, 1], [0, 0])          # fully valid
    for i in pypto.loop(pypto.ceildiv(rows, 8), idx_name="i"):
        valid = (rows - i * 8).min(8)
        xt = pypto.view(a, [8, 64], [i * 8, 0], valid_shape=[valid, 64])
        pypto.assemble((xt - wt) + wt * wt, [i * 8, 0], out)


DTYPES = {"x": "fp32", "u": "fp32", "dev": "fp32", "mean": "fp32", "shifted": "fp32",
          "rowsum": "fp32", "row": "fp32", "half": "bf16", "colsum": "fp32", "centered": "fp32",
          "picked": "fp32",
          "a": "fp32", "w": "fp32", "out": "fp32"}
OUTPUTS = ["dev", "mean", "shifted", "rowsum", "row", "half", "colsum", "centered", "picked",
           "out"]


def make_inputs():
    rng = np.random.default_rng(14)
    f = lambda *shape: rng.standard_normal(shape).astype(np.float32)  # noqa: E731
    nan = lambda *shape: np.full(shape, np.nan, np.float32)  # noqa: E731
    return {"x": f(B, S, D), "u": f(1, S, D), "dev": nan(B, S, D), "mean": nan(B, S, 1),
            "shifted": nan(B, S, D), "rowsum": nan(1, S), "row": nan(1, D),
            "half": np.zeros((B, S, D), np.uint16), "colsum": nan(B, 1, D),
            "centered": nan(B, S, D),
            "picked": nan(B, D), "a": f(ROWS, 64), "w": f(8, 1),
            "out": nan(ROWS, 64)}


def bf16_bits(values: np.ndarray) -> np.ndarray:
    """Round-to-nearest-even f32 -> bf16 bit patterns (the cast's RINT)."""
    bits = values.astype(np.float32).view(np.uint32).astype(np.uint64)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


def check(out, inputs, level):
    x, u, a, w = inputs["x"], inputs["u"], inputs["a"], inputs["w"]
    close = dict(rtol=1e-5, atol=1e-5)
    mean = x.sum(2, keepdims=True) * np.float32(1.0 / D)
    np.testing.assert_allclose(out["mean"], mean, **close, err_msg=f"{level}: mean")
    np.testing.assert_allclose(out["dev"], x - mean, **close, err_msg=f"{level}: dev")
    np.testing.assert_allclose(out["shifted"], x + u.sum(1, keepdims=True), **close,
                               err_msg=f"{level}: shifted")
    np.testing.assert_allclose(out["rowsum"], u.sum(2), **close, err_msg=f"{level}: rowsum")
    np.testing.assert_allclose(out["row"], np.exp(u[:, 2, :]), rtol=1e-6,
                               err_msg=f"{level}: row")
    assert np.array_equal(out["half"].view(np.uint16), bf16_bits(x)), f"{level}: half"
    np.testing.assert_allclose(out["colsum"], x.sum(1, keepdims=True), **close,
                               err_msg=f"{level}: colsum")
    np.testing.assert_allclose(out["centered"], x - x.sum(1, keepdims=True), **close,
                               err_msg=f"{level}: centered")
    np.testing.assert_allclose(out["picked"], np.exp(x[:, 3, :]), rtol=1e-6,
                               err_msg=f"{level}: picked")
    rowwise = w[np.arange(ROWS) % 8]
    np.testing.assert_allclose(out["out"], (a - rowwise) + rowwise * rowwise, **close,
                               err_msg=f"{level}: out")


@pytest.fixture(scope="module")
def kernel(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("nd_tiles") / "nd.mlir"
    path.write_text(nd_tiles.trace(a=(None, 64), out=(None, 64)).mlir)
    return path


def test_program_level_and_tile_graph(kernel, tmp_path):
    inputs = make_inputs()
    check_program_and_tile_graph(kernel, tmp_path, inputs, DTYPES, OUTPUTS, check)


def test_emitted_cpp(kernel, tmp_path):
    exe = codegen.build(kernel, tmp_path)
    cpp = next(tmp_path.glob("*.cpp")).read_text()
    for instruction in ("TROWSUM(", "TROWEXPANDSUB(", "TCOLSUM(", "TCOLEXPANDADD(",
                        "TTRANS(", "TEXTRACT(", "TINSERT(", "TMOV(", "TCVT(", "TCOLEXPAND("):
        assert instruction in cpp, f"{instruction} not emitted"
    inputs = make_inputs()
    out, _ = codegen.run(exe, tmp_path, inputs, DTYPES, OUTPUTS)
    check(out, inputs, "C++ on the emulation")
