"""Elementwise operands of different valid extents (PyPTO's rule,
docs/PyPTOModel.md#elementwise-ops), at every level against NumPy: pto-run on
the traced program, pto-run on the tile graph and the emitted pto-isa C++ on
the host emulation.

A fully valid constant tile against a view with a tail of rows (13 rows in
blocks of 8: the second block has 5 valid rows), the shapes of
liger_cross_entropy's ``minimum(pred_idx, tile_min)`` and win_attention's
``sub(sinks, scores_max)``:

- arithmetic takes the left operand's valid shape: all 8 rows. The rows the
  right operand does not hold read as NaN (pto-run), and the ISA lowering
  widens that operand to the result's extents with a NaN fill, so the three
  levels agree on those rows too;
- a comparison takes the smaller valid extent: the 5 rows of the tail.

Before this rule pto-run faulted at both ops ("operands have different valid
extents")."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import pto_mlir.frontend as pypto
from pto_mlir import codegen
from pto_mlir.tools import run_kernel, run_tile_graph

F32, DYN = pypto.DT_FP32, pypto.DYN
ROWS, OUT_ROWS, COLS = 13, 16, 8


@pypto.jit
def full_minus_tail(x: pypto.Tensor([DYN, COLS], F32), y: pypto.Tensor([OUT_ROWS, COLS], F32),
                    z: pypto.Tensor([OUT_ROWS, COLS], F32)):
    n = x.shape[0]
    for m in pypto.loop((n + 7) // 8, name="rows", idx_name="m"):
        rows = (n - m * 8).min(8)
        pypto.set_vec_tile_shapes(8, COLS)
        t = pypto.view(x, [8, COLS], [m * 8, 0], valid_shape=[rows, COLS])
        half = pypto.full([8, COLS], 0.5, F32)
        # Left operand fully valid: the result has 8 valid rows.
        pypto.assemble(pypto.sub(half, t), [m * 8, 0], y)
        # A comparison: the tail's rows only.
        hit = pypto.where(pypto.lt(half, t), pypto.Element(F32, 1.0), pypto.Element(F32, 0.0))
        pypto.assemble(hit, [m * 8, 0], z)


DTYPES = {"x": "fp32", "y": "fp32", "z": "fp32"}


def make_inputs():
    rng = np.random.default_rng(3)
    return {"x": rng.standard_normal((ROWS, COLS)).astype(np.float32),
            "y": np.full((OUT_ROWS, COLS), 7.0, np.float32),
            "z": np.full((OUT_ROWS, COLS), 7.0, np.float32)}


def check(out, inputs, level):
    x = inputs["x"]
    y, z = out["y"], out["z"]
    assert np.array_equal(y[:ROWS], 0.5 - x), f"{level}: y over the valid rows"
    assert np.isnan(y[ROWS:]).all(), f"{level}: rows the right operand does not hold: {y[ROWS:]}"
    assert np.array_equal(z[:ROWS], (0.5 < x).astype(np.float32)), f"{level}: z"
    assert (z[ROWS:] == 7.0).all(), f"{level}: the comparison wrote past the tail: {z[ROWS:]}"


@pytest.fixture(scope="module")
def kernel(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("validmix") / "k.mlir"
    path.write_text(full_minus_tail.trace(x=(ROWS, COLS)).mlir)
    return path


def test_program_level(kernel, tmp_path):
    inputs = make_inputs()
    out, _ = run_kernel(kernel, tmp_path, inputs, DTYPES, ["y", "z"])
    check(out, inputs, "pto-run")


def test_tile_graph(kernel, tmp_path):
    inputs = make_inputs()
    out, _ = run_tile_graph(kernel, tmp_path / "run", inputs, DTYPES, ["y", "z"])
    check(out, inputs, "tile graph")


def test_emitted_cpp(kernel, tmp_path):
    exe = codegen.build(kernel, tmp_path)
    cpp = next(tmp_path.glob("*.cpp")).read_text()
    assert "TINSERT(" in cpp, "the tail operand is not widened to the result's rows"
    inputs = make_inputs()
    out, _ = codegen.run(exe, tmp_path, inputs, DTYPES, ["y", "z"])
    check(out, inputs, "C++ on the emulation")
