"""pto.transpose executed at every level: pto-run on the program, pto-run on
the tile graph (--pto-tile-graph-pipeline), and the emitted pto-isa C++
(--pto-ascend-pipeline, TTRANS) on the host emulation, each against NumPy.

The kernel transposes the shapes PyPTO-Gym's FA forward does (flash_attention_
mha_impl.py: a per-row statistic [R, 1] and a bf16 block), at a row count
with a partial last block (valid extents exchange with the data) and vector
tiles that cut the transposes into several pieces. A transpose only moves
data, so every level must match NumPy bit for bit.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from pto_mlir import codegen
from pto_mlir.golden.bf16 import bf16_bits_to_f32, f32_to_bf16_bits
from pto_mlir.tools import compile_tile_graph, run_kernel

KERNEL = """
pto.kernel @tr(%x: !pto.tensor<?x48xf32>, %y: !pto.tensor<48x?xf32>, %m: !pto.tensor<1x?xf32>,
               %b: !pto.tensor<32x?xbf16>, %bt: !pto.tensor<?x32xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %rows = pto.dim %x, 0 : !pto.tensor<?x48xf32>
  %n = arith.ceildivsi %rows, %c16 : index
  pto.loop "L" %i = %c0 to %n step %c1 {
    %off = arith.muli %i, %c16 : index
    %rest = arith.subi %rows, %off : index
    %valid = arith.minsi %rest, %c16 : index
    %v = pto.view %x[%off, %c0] valid [%valid, 48] : !pto.tensor<?x48xf32> -> !pto.tile<16x48xf32>
    %t = pto.transpose %v, 0, 1 {vec_tile = #pto.vec_tile<[8, 48]>} : !pto.tile<16x48xf32> -> !pto.tile<48x16xf32>
    pto.assemble %t, %y[%c0, %off] : !pto.tile<48x16xf32>, !pto.tensor<48x?xf32>
    %s = pto.sum %v dim = 1 keepdim {vec_tile = #pto.vec_tile<[16, 48]>} : !pto.tile<16x48xf32> -> !pto.tile<16x1xf32>
    %st = pto.transpose %s, 0, 1 {vec_tile = #pto.vec_tile<[16, 8]>} : !pto.tile<16x1xf32> -> !pto.tile<1x16xf32>
    pto.assemble %st, %m[%c0, %off] : !pto.tile<1x16xf32>, !pto.tensor<1x?xf32>
    %w = pto.view %b[%c0, %off] valid [32, %valid] : !pto.tensor<32x?xbf16> -> !pto.tile<32x16xbf16>
    %wt = pto.transpose %w, 0, 1 {vec_tile = #pto.vec_tile<[32, 16]>} : !pto.tile<32x16xbf16> -> !pto.tile<16x32xbf16>
    pto.assemble %wt, %bt[%off, %c0] : !pto.tile<16x32xbf16>, !pto.tensor<?x32xbf16>
  }
}
"""

ROWS = 40  # two full blocks of 16 and a tail of 8
DTYPES = {"x": "fp32", "y": "fp32", "m": "fp32", "b": "bf16", "bt": "bf16"}
OUTPUTS = ["y", "m", "bt"]


def make_inputs():
    rng = np.random.default_rng(7)
    # Small integers: the row sums are exact in any order.
    x = rng.integers(-8, 9, size=(ROWS, 48)).astype(np.float32)
    b = f32_to_bf16_bits(rng.standard_normal((32, ROWS)).astype(np.float32))
    return {"x": x, "y": np.full((48, ROWS), np.nan, np.float32),
            "m": np.full((1, ROWS), np.nan, np.float32), "b": b,
            "bt": np.zeros((ROWS, 32), np.uint16)}


def check(out: dict, inputs: dict, level: str):
    x = inputs["x"]
    assert np.array_equal(out["y"], x.T), f"{level}: x^T differs"
    assert np.array_equal(out["m"], x.sum(axis=1, keepdims=True).T), f"{level}: row sums^T differ"
    got = bf16_bits_to_f32(np.asarray(out["bt"], np.uint16))
    assert np.array_equal(got, bf16_bits_to_f32(inputs["b"]).T), f"{level}: bf16 b^T differs"


@pytest.fixture(scope="module")
def kernel(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("transpose") / "tr.mlir"
    path.write_text(KERNEL)
    return path


def test_program_level(kernel, tmp_path):
    inputs = make_inputs()
    out, _ = run_kernel(kernel, tmp_path, inputs, DTYPES, OUTPUTS)
    check(out, inputs, "pto-run")


def test_tile_graph(kernel, tmp_path):
    tg = compile_tile_graph(kernel, tmp_path / "tg.mlir")
    # 16x48 cut by [8, 48] rows: two transpose pieces per block, equal up to
    # their offsets, so one leaf launched twice (pto-outline).
    text = tg.read_text()
    assert text.count("pto.transpose") == 3, text
    assert text.count("pto.launch @tr_leaf_V1_0(") == 2, text
    inputs = make_inputs()
    out, _ = run_kernel(tg, tmp_path / "run", inputs, DTYPES, OUTPUTS)
    check(out, inputs, "tile graph")


def test_emitted_cpp(kernel, tmp_path):
    exe = codegen.build(kernel, tmp_path)
    assert "TTRANS(" in (tmp_path / "tr.cpp").read_text()
    inputs = make_inputs()
    out, _ = codegen.run(exe, tmp_path, inputs, DTYPES, OUTPUTS)
    check(out, inputs, "C++ on the emulation")


TRANSPOSE_ONLY = """
pto.kernel @t(%x: !pto.tensor<64x64xf32>, %y: !pto.tensor<64x64xf32>) {
  %v = pto.view %x[0, 0] : !pto.tensor<64x64xf32> -> !pto.tile<64x64xf32>
  %t = pto.transpose %v, 0, 1 {vec_tile = #pto.vec_tile<[32, 64]>} : !pto.tile<64x64xf32> -> !pto.tile<64x64xf32>
  pto.assemble %t, %y[0, 0] : !pto.tile<64x64xf32>, !pto.tensor<64x64xf32>
}
"""


def test_cost_model_prices_the_transpose(tmp_path):
    """The only vector work of this kernel is the transpose: the cost
    model's V pipe time must be that of two passes over its elements
    (4096 f32 x 2 passes x 4 B at 256 B/cycle = 128 cycles)."""
    import re

    src = tmp_path / "t.mlir"
    src.write_text(TRANSPOSE_ONLY)
    tg = compile_tile_graph(src, tmp_path / "tg.mlir")
    x = np.arange(64 * 64, dtype=np.float32).reshape(64, 64)
    out, r = run_kernel(tg, tmp_path / "run", {"x": x, "y": np.zeros_like(x)},
                        {"x": "fp32", "y": "fp32"}, ["y"], "--simulate=a3")
    assert np.array_equal(out["y"], x.T)
    m = re.search(r"vector pipes \(us\):.* V ([0-9.]+)", r.stdout + r.stderr)
    assert m, r.stdout[-2000:]
    assert abs(float(m.group(1)) - 128 / 1.85e3) < 2e-3, m.group(0)
