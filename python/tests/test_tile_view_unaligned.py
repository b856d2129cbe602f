"""Views of a tile from a column off a 32-byte boundary at every level
against NumPy: pto-run on the traced program, pto-run on the tile graph and
the emitted pto-isa C++ on the host emulation (docs/ISA.md, "Views of
tiles": TTRANS, TEXTRACT of rows, TTRANS back).

The kernel is the construct of PyPTO-Gym's mhc_pre
(experimental/vector/mhc_pre): a [rows, 24] f32 tile split into its
[:, 0:4], [:, 4:8] and [:, 8:24] columns, each scaled, biased and stored;
plus a view of rows 2..5 from column 12 (the rows copied out first). 13
rows in tiles of 8 leave a tail of 5 valid rows."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import pto_mlir.frontend as pypto
from pto_mlir import codegen
from pto_mlir.tools import check_program_and_tile_graph

F32, DYN = pypto.DT_FP32, pypto.DYN
ROWS, N = 13, 4


@pypto.jit
def split_columns(x: pypto.Tensor([DYN, 24], F32), bias: pypto.Tensor([1, 24], F32),
                  pre: pypto.Tensor([DYN, N], F32), post: pypto.Tensor([DYN, N], F32),
                  comb: pypto.Tensor([DYN, 16], F32), mid: pypto.Tensor([4, 8], F32)):
    rows = x.shape[0]
    pypto.set_vec_tile_shapes(8, 24)
    b = pypto.view(bias, [1, 24], [0, 0])
    for i in pypto.loop(pypto.ceildiv(rows, 8), idx_name="i"):
        valid = (rows - i * 8).min(8)
        t = pypto.view(x, [8, 24], [i * 8, 0], valid_shape=[valid, 24])
        h = pypto.exp(t) + b
        pypto.assemble(pypto.sigmoid(h[:, 0:N] * 0.5), [i * 8, 0], pre)
        pypto.assemble(h[:, N:2 * N] * 2.0, [i * 8, 0], post)
        pypto.assemble(h[:, 2 * N:] - 1.0, [i * 8, 0], comb)
    t0 = pypto.view(x, [8, 24], [0, 0])
    pypto.assemble(pypto.exp(t0)[2:6, 12:20], [0, 0], mid)


DTYPES = {name: "fp32" for name in ("x", "bias", "pre", "post", "comb", "mid")}
OUTPUTS = ["pre", "post", "comb", "mid"]


def make_inputs():
    rng = np.random.default_rng(5)
    nan = lambda *shape: np.full(shape, np.nan, np.float32)  # noqa: E731
    return {"x": rng.standard_normal((ROWS, 24)).astype(np.float32),
            "bias": rng.standard_normal((1, 24)).astype(np.float32),
            "pre": nan(ROWS, N), "post": nan(ROWS, N), "comb": nan(ROWS, 16),
            "mid": nan(4, 8)}


def check(out, inputs, level):
    h = np.exp(inputs["x"]) + inputs["bias"]
    close = dict(rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out["pre"], 1 / (1 + np.exp(-h[:, :N] * 0.5)), **close,
                               err_msg=f"{level}: pre")
    np.testing.assert_allclose(out["post"], h[:, N:2 * N] * 2, **close, err_msg=f"{level}: post")
    np.testing.assert_allclose(out["comb"], h[:, 2 * N:] - 1, **close, err_msg=f"{level}: comb")
    np.testing.assert_allclose(out["mid"], np.exp(inputs["x"])[2:6, 12:20], **close,
                               err_msg=f"{level}: mid")


@pytest.fixture(scope="module")
def kernel(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("unaligned") / "split.mlir"
    path.write_text(split_columns.trace(x=(None, 24), pre=(None, N), post=(None, N),
                                        comb=(None, 16)).mlir)
    return path


def test_program_level_and_tile_graph(kernel, tmp_path):
    inputs = make_inputs()
    check_program_and_tile_graph(kernel, tmp_path, inputs, DTYPES, OUTPUTS, check)


def test_emitted_cpp(kernel, tmp_path):
    exe = codegen.build(kernel, tmp_path)
    cpp = next(tmp_path.glob("*.cpp")).read_text()
    assert cpp.count("TTRANS(") >= 4, "the unaligned views are not transposed"
    inputs = make_inputs()
    out, _ = codegen.run(exe, tmp_path, inputs, DTYPES, OUTPUTS)
    check(out, inputs, "C++ on the emulation")
