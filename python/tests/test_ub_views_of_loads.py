"""A vector task over UB that pto-schedule-pieces legalizes by reading
windows again (docs/TileGraph.md, "The order of a vector task's pieces"),
at every level against NumPy: pto-run on the traced program, pto-run on the
tile graph and the emitted pto-isa C++ on the host emulation.

The kernel is the construct of PyPTO-Gym's mhc_post
(experimental/vector/mhc_post): 16 rows of a [rows, 4, 512] bf16 tensor
cast to f32 (one [1, 4, 512] piece per row, through a GM workspace, as the
cast's result feeds views of other shapes), then, per row, the sum over k
of h_res[:, k, :] (as a column) times row k of the cast, on top of
h_post * h_out. Op by op, the task keeps the whole loaded workspace
(256 KiB) and every row's products; the copy in which the views read GM
and those loads take the stored rows runs row by row in 32 KiB. 21 rows:
one 16-row body and a tail of 5 rows in 1-row bodies."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import pto_mlir.frontend as pypto
from pto_mlir import codegen
from pto_mlir.tools import check_program_and_tile_graph

F32, BF16, DYN = pypto.DT_FP32, pypto.DT_BF16, pypto.DYN
ROWS, N, D = 21, 4, 512


@pypto.jit
def mix_rows(x: pypto.Tensor([DYN, N, D], BF16), h_res: pypto.Tensor([DYN, N, N], F32),
             h_out: pypto.Tensor([DYN, D], BF16), h_post: pypto.Tensor([DYN, N], F32),
             out: pypto.Tensor([DYN, N, D], F32)):
    rows = x.shape[0]
    post = pypto.reshape(h_post, [rows, N, 1], inplace=True)
    hout = pypto.reshape(h_out, [rows, 1, D], inplace=True)
    for r, count in pypto.loop_unroll(0, rows, 1, name="ROWS", idx_name="r",
                                      unroll_list=[16, 1]):
        pypto.set_vec_tile_shapes(1, N, 2048)
        xs = pypto.cast(x[r:r + count, :, :], F32)
        acc = pypto.mul(post[r:r + count, :, :], pypto.cast(hout[r:r + count, :, :], F32))
        for k in range(N):
            weight = pypto.reshape(pypto.view(h_res[r:r + count, :, :], [count, 1, N], [0, k, 0]),
                                   [count, N, 1], inplace=True)
            acc = acc + weight * pypto.view(xs, [count, 1, D], [0, k, 0])
        pypto.assemble(acc, [r, 0, 0], out)


DTYPES = {"x": "bf16", "h_res": "fp32", "h_out": "bf16", "h_post": "fp32", "out": "fp32"}
OUTPUTS = ["out"]


def bf16(values: np.ndarray) -> np.ndarray:
    """Round-to-nearest-even f32 -> bf16 bit patterns."""
    bits = values.astype(np.float32).view(np.uint32).astype(np.uint64)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


def as_f32(bits: np.ndarray) -> np.ndarray:
    return (bits.astype(np.uint32) << 16).view(np.float32)


def make_inputs():
    rng = np.random.default_rng(3)
    return {"x": bf16(rng.standard_normal((ROWS, N, D))),
            "h_res": rng.random((ROWS, N, N)).astype(np.float32),
            "h_out": bf16(rng.standard_normal((ROWS, D))),
            "h_post": rng.random((ROWS, N)).astype(np.float32),
            "out": np.full((ROWS, N, D), np.nan, np.float32)}


def check(out, inputs, level):
    x, h_out = as_f32(inputs["x"]), as_f32(inputs["h_out"])
    want = inputs["h_post"][:, :, None] * h_out[:, None, :]
    for k in range(N):
        want = want + inputs["h_res"][:, k, :][:, :, None] * x[:, k, :][:, None, :]
    np.testing.assert_allclose(out["out"], want, rtol=1e-5, atol=1e-5, err_msg=level)


@pytest.fixture(scope="module")
def kernel(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("views_of_loads") / "mix.mlir"
    path.write_text(mix_rows.trace(x=(None, N, D), h_res=(None, N, N), h_out=(None, D),
                                   h_post=(None, N), out=(None, N, D)).mlir)
    return path


def test_program_level_and_tile_graph(kernel, tmp_path):
    inputs = make_inputs()
    check_program_and_tile_graph(kernel, tmp_path, inputs, DTYPES, OUTPUTS, check)


def test_emitted_cpp(kernel, tmp_path):
    exe = codegen.build(kernel, tmp_path)
    inputs = make_inputs()
    out, _ = codegen.run(exe, tmp_path, inputs, DTYPES, OUTPUTS)
    check(out, inputs, "C++ on the emulation")
