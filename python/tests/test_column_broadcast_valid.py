"""A [1, C] operand whose valid columns differ from the other operand's, at
every level against NumPy: pto-run on the traced program, pto-run on the tile
graph and the emitted pto-isa C++ on the host emulation.

A fully valid gamma row times a tile whose last dim has a tail (the columns
of x past its width are not valid) reads a prefix of the row: pto-run takes
it, and pto-lower-to-isa copies the row (tmov) to the result's valid columns
before the column-broadcast instruction, which takes exactly those. A row
holding fewer valid columns than the result would read elements it does not
hold: pto-run faults at the op, naming the fix."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import pto_mlir.frontend as pypto
from pto_mlir import codegen
from pto_mlir.tools import run_kernel, run_tile_graph, run_tool

F32, DYN = pypto.DT_FP32, pypto.DYN


@pypto.jit
def scale_rows(x: pypto.Tensor([16, DYN], F32), gamma: pypto.Tensor([1, 64], F32),
               out: pypto.Tensor([16, DYN], F32)):
    cols = x.shape[1]
    t = pypto.view(x, [16, 64], [0, 0], valid_shape=[16, cols])
    g = pypto.view(gamma, [1, 64], [0, 0])        # fully valid
    pypto.set_vec_tile_shapes(8, 64)
    pypto.assemble(t * g - g, [0, 0], out)


COLS = 61   # x's last dim: 3 columns of the 64-wide tile are not valid
DTYPES = {"x": "fp32", "gamma": "fp32", "out": "fp32"}


def make_inputs():
    rng = np.random.default_rng(7)
    return {"x": rng.standard_normal((16, COLS)).astype(np.float32),
            "gamma": rng.standard_normal((1, 64)).astype(np.float32),
            "out": np.full((16, COLS), np.nan, np.float32)}


def check(out, inputs, level):
    gamma = inputs["gamma"][:, :COLS]
    want = inputs["x"] * gamma - gamma
    assert np.array_equal(out["out"], want), f"{level}: max diff {np.abs(out['out'] - want).max()}"


@pytest.fixture(scope="module")
def kernel(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("colvalid") / "k.mlir"
    path.write_text(scale_rows.trace(x=(16, None), out=(16, None)).mlir)
    return path


def test_program_level(kernel, tmp_path):
    inputs = make_inputs()
    out, _ = run_kernel(kernel, tmp_path, inputs, DTYPES, ["out"])
    check(out, inputs, "pto-run")


def test_tile_graph(kernel, tmp_path):
    inputs = make_inputs()
    out, _ = run_tile_graph(kernel, tmp_path / "run", inputs, DTYPES, ["out"])
    check(out, inputs, "tile graph")


def test_emitted_cpp(kernel, tmp_path):
    exe = codegen.build(kernel, tmp_path)
    cpp = next(tmp_path.glob("*.cpp")).read_text()
    assert "TMOV(" in cpp and "TCOLEXPANDMUL(" in cpp, "the row is not narrowed before the broadcast"
    inputs = make_inputs()
    out, _ = codegen.run(exe, tmp_path, inputs, DTYPES, ["out"])
    check(out, inputs, "C++ on the emulation")


NARROW_ROW = """
pto.kernel @narrow(%x: !pto.tensor<16x64xf32>, %g: !pto.tensor<1x64xf32>, %out: !pto.tensor<16x64xf32>) {
  %t = pto.view %x[0, 0] : !pto.tensor<16x64xf32> -> !pto.tile<16x64xf32>
  %r = pto.view %g[0, 0] valid [1, 60] : !pto.tensor<1x64xf32> -> !pto.tile<1x64xf32>
  %s = pto.mul %t, %r : !pto.tile<16x64xf32>, !pto.tile<1x64xf32> -> !pto.tile<16x64xf32>
  pto.assemble %s, %out[0, 0] : !pto.tile<16x64xf32>, !pto.tensor<16x64xf32>
}
"""


def test_row_with_fewer_valid_columns_faults(tmp_path):
    src = tmp_path / "narrow.mlir"
    src.write_text(NARROW_ROW)
    r = run_tool("pto-run", src, "--random", "1")
    assert r.returncode != 0
    assert ("narrow.mlir:5:8: error: pto-run: the right operand broadcasts over the result but "
            "has 60 valid elements in dim 1 where the result has 64") in r.stderr, r.stderr
    assert "give its view at least 64 valid elements there" in r.stderr, r.stderr
