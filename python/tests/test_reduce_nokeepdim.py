"""Reductions without keepdim (PyPTO's default, ``pypto.sum(x, dim)``) of
rank-2 tiles at every level: pto-run on the traced program, pto-run on the
tile graph and the emitted C++ on the host emulation, against NumPy. The
rank-1 results are held as [1, N] rows in ub: a column reduction's TCOLSUM
row directly, a row reduction's TROWSUM column through TTRANS. (Rank > 2
reductions without keepdim: an error of the ISA lowering, lower-to-isa-invalid.mlir.)"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import pto_mlir.frontend as pypto
from pto_mlir import codegen
from pto_mlir.tools import check_program_and_tile_graph

F32, DYN = pypto.DT_FP32, pypto.DYN


@pypto.jit
def reduce(x: pypto.Tensor([DYN, 64], F32), rowsum: pypto.Tensor([DYN], F32),
           colmax: pypto.Tensor([64], F32), colsum: pypto.Tensor([64], F32)):
    rows = x.shape[0]
    pypto.set_vec_tile_shapes(16, 64)
    for i in pypto.loop(pypto.ceildiv(rows, 16), idx_name="i"):
        valid = (rows - i * 16).min(16)
        t = pypto.view(x, [16, 64], [i * 16, 0], valid_shape=[valid, 64])
        pypto.assemble(pypto.sum(t, -1), [i * 16], rowsum)
    first = pypto.view(x, [16, 64], [0, 0])
    pypto.assemble(first.amax(0), [0], colmax)
    pypto.assemble(pypto.sum(first, dim=0), [0], colsum)


ROWS = 40
DTYPES = {"x": "fp32", "rowsum": "fp32", "colmax": "fp32", "colsum": "fp32"}
OUTPUTS = ["rowsum", "colmax", "colsum"]


def make_inputs():
    x = np.random.default_rng(3).standard_normal((ROWS, 64)).astype(np.float32)
    return {"x": x, "rowsum": np.full(ROWS, np.nan, np.float32),
            "colmax": np.zeros(64, np.float32), "colsum": np.zeros(64, np.float32)}


def check(out, inputs, level):
    x = inputs["x"]
    np.testing.assert_allclose(out["rowsum"], x.sum(1), rtol=1e-5, atol=1e-5,
                               err_msg=f"{level}: rowsum")
    np.testing.assert_array_equal(out["colmax"], x[:16].max(0), err_msg=f"{level}: colmax")
    np.testing.assert_allclose(out["colsum"], x[:16].sum(0), rtol=1e-5, atol=1e-5,
                               err_msg=f"{level}: colsum")


@pytest.fixture(scope="module")
def kernel(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("nokeepdim") / "reduce.mlir"
    path.write_text(reduce.trace(x=(None, 64), rowsum=(None,)).mlir)
    return path


def test_program_level_and_tile_graph(kernel, tmp_path):
    assert " keepdim" not in kernel.read_text()  # the file name has it
    inputs = make_inputs()
    check_program_and_tile_graph(kernel, tmp_path, inputs, DTYPES, OUTPUTS, check)


def test_emitted_cpp(kernel, tmp_path):
    exe = codegen.build(kernel, tmp_path)
    cpp = next(tmp_path.glob("*.cpp")).read_text()
    assert "TROWSUM" in cpp and "TTRANS" in cpp and "TCOLMAX" in cpp
    inputs = make_inputs()
    out, _ = codegen.run(exe, tmp_path, inputs, DTYPES, OUTPUTS)
    check(out, inputs, "C++ on the emulation")
