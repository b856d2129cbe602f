"""Reductions over a leading dim followed by another non-unit one, and
broadcasts that repeat an operand's rows as blocks, at every level against
NumPy: pto-run on the traced program, pto-run on the tile graph and the
emitted pto-isa C++ on the host emulation (docs/ISA.md, "One instruction per
leading index").

The first kernel is the construct of PyPTO-Gym's mhc_sinkhorn
(experimental/vector/mhc_sinkhorn): [T, 4, 4] matrices read as [T, 16] rows,
transposed and reshaped to [4, 4, T] so that the matrices run along the
columns, then Sinkhorn's alternating normalisation: sums over dim 1 (one
TCOLSUM per index of dim 0) and over dim 0 (the sum of four blocks of four
rows), each divided back ([4, 1, T] and [1, 4, T] over [4, 4, T]). T = 40
leaves a tail of 8 valid columns in the second 32-column chunk. The second
kernel takes the amax over dim 0 of [4, 8, 32] whose dim 0 has a run-time
valid extent (3): the blocks past it are skipped under an scf.if."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import pto_mlir.frontend as pypto
from pto_mlir import codegen
from pto_mlir.tools import check_program_and_tile_graph

F32, DYN = pypto.DT_FP32, pypto.DYN
T, CHUNK, ITERS, EPS = 40, 32, 3, 1e-6
ROWS = 3


@pypto.jit
def nd_blocks(x: pypto.Tensor([DYN, 4, 4], F32), out: pypto.Tensor([DYN, 4, 4], F32),
              y: pypto.Tensor([DYN, 8, 32], F32), ymax: pypto.Tensor([1, 8, 32], F32),
              ydiv: pypto.Tensor([DYN, 8, 32], F32)):
    t = x.shape[0]
    flat = pypto.reshape(x, [t, 16], inplace=True)
    for i in pypto.loop(pypto.ceildiv(t, CHUNK), idx_name="i"):
        valid = (t - i * CHUNK).min(CHUNK)
        pypto.set_vec_tile_shapes(CHUNK, 16)
        c = pypto.view(flat, [CHUNK, 16], [i * CHUNK, 0], valid_shape=[valid, 16])
        c = pypto.transpose(c, 1, 0)
        c = pypto.reshape(c, [4, 4, CHUNK], inplace=True)
        pypto.set_vec_tile_shapes(4, 4, CHUNK)
        c = pypto.exp(c - pypto.amax(c, 1, True))
        for _ in range(ITERS):
            c = c / (c.sum(1, keepdim=True) + EPS)
            c = c / (pypto.sum(c, 0, True) + EPS)
        c = pypto.reshape(c, [16, CHUNK], valid_shape=[16, valid])
        pypto.set_vec_tile_shapes(16, CHUNK)
        c = pypto.transpose(c, 1, 0)
        c = pypto.reshape(c, [CHUNK, 4, 4], valid_shape=[valid, 4, 4])
        out[i * CHUNK:, :, :] = c
    rows = y.shape[0]
    pypto.set_vec_tile_shapes(4, 8, 32)
    v = pypto.view(y, [4, 8, 32], [0, 0, 0], valid_shape=[rows, 8, 32])
    m = pypto.amax(v, 0, True)
    pypto.assemble(m, [0, 0, 0], ymax)
    pypto.assemble(v / m, [0, 0, 0], ydiv)


DTYPES = {name: "fp32" for name in ("x", "out", "y", "ymax", "ydiv")}
OUTPUTS = ["out", "ymax", "ydiv"]


def make_inputs():
    rng = np.random.default_rng(7)
    y = rng.standard_normal((ROWS, 8, 32)).astype(np.float32)
    y[1] = np.abs(y[1]) + 0.5   # every column's max positive: no division by ~0
    return {"x": rng.standard_normal((T, 4, 4)).astype(np.float32),
            "out": np.full((T, 4, 4), np.nan, np.float32),
            "y": y, "ymax": np.full((1, 8, 32), np.nan, np.float32),
            "ydiv": np.full((ROWS, 8, 32), np.nan, np.float32)}


def sinkhorn(x: np.ndarray) -> np.ndarray:
    """The kernel's formula on [T, i, j]: softmax over j (its amax / exp over
    dim 1 of [i, j, T]), then alternately dividing by the sums over j and i."""
    c = x.astype(np.float64)
    c = np.exp(c - c.max(2, keepdims=True))
    for _ in range(ITERS):
        c = c / (c.sum(2, keepdims=True) + EPS)
        c = c / (c.sum(1, keepdims=True) + EPS)
    return c


def check(out, inputs, level):
    np.testing.assert_allclose(out["out"], sinkhorn(inputs["x"]), rtol=2e-6, atol=1e-7,
                               err_msg=f"{level}: out")
    y = inputs["y"]
    m = y.max(0, keepdims=True)
    np.testing.assert_array_equal(out["ymax"], m, err_msg=f"{level}: ymax")
    np.testing.assert_allclose(out["ydiv"], y / m, rtol=1e-6, err_msg=f"{level}: ydiv")


@pytest.fixture(scope="module")
def kernel(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("nd_blocks") / "blocks.mlir"
    path.write_text(nd_blocks.trace(x=(None, 4, 4), out=(None, 4, 4), y=(None, 8, 32),
                                    ydiv=(None, 8, 32)).mlir)
    return path


def test_program_level_and_tile_graph(kernel, tmp_path):
    inputs = make_inputs()
    check_program_and_tile_graph(kernel, tmp_path, inputs, DTYPES, OUTPUTS, check)


def test_emitted_cpp(kernel, tmp_path):
    exe = codegen.build(kernel, tmp_path)
    cpp = next(tmp_path.glob("*.cpp")).read_text()
    for instruction in ("TCOLSUM(", "TEXTRACT(", "TINSERT(", "TMAX(", "TEXPANDS("):
        assert instruction in cpp, f"{instruction} not emitted"
    inputs = make_inputs()
    out, _ = codegen.run(exe, tmp_path, inputs, DTYPES, OUTPUTS)
    check(out, inputs, "C++ on the emulation")
