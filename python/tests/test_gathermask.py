"""pto.gathermask (pypto.gathermask / pypto.deinterleave) executed at every
level: pto-run on the traced program, pto-run on the tile graph
(--pto-tile-graph-pipeline) and the emitted pto-isa C++ (mask-form TGATHER)
on the host emulation, each against NumPy. A gather only moves data, so
every level must match bit for bit. The rows have a partial last block
(valid rows follow the data) and the vector tile cuts the last dim, so the
pieces land at offsets divided by the stride."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import pto_mlir.frontend as pypto
from pto_mlir import codegen
from pto_mlir.golden.bf16 import bf16_bits_to_f32, f32_to_bf16_bits
from pto_mlir.tools import compile_tile_graph, run_kernel

F32, BF16, DYN = pypto.DT_FP32, pypto.DT_BF16, pypto.DYN


@pypto.jit
def gathers(x: pypto.Tensor([DYN, 64], F32), b: pypto.Tensor([DYN, 64], BF16),
            even: pypto.Tensor([DYN, 32], F32), odd: pypto.Tensor([DYN, 32], F32),
            fourth: pypto.Tensor([DYN, 16], F32), bodd: pypto.Tensor([DYN, 32], BF16)):
    rows = x.shape[0]
    for i in pypto.loop(pypto.ceildiv(rows, 16), idx_name="i"):
        valid = (rows - i * 16).min(16)
        t = pypto.view(x, [16, 64], [i * 16, 0], valid_shape=[valid, 64])
        pypto.set_vec_tile_shapes(8, 32)        # pieces of 8 rows x 32 columns
        e, o = pypto.deinterleave(t)
        pypto.assemble(e, [i * 16, 0], even)
        pypto.assemble(o, [i * 16, 0], odd)
        pypto.set_vec_tile_shapes(16, 64)
        pypto.assemble(pypto.gathermask(t, 6), [i * 16, 0], fourth)
        u = pypto.view(b, [16, 64], [i * 16, 0], valid_shape=[valid, 64])
        pypto.assemble(pypto.gathermask(u, pattern_mode=2), [i * 16, 0], bodd)


ROWS = 40  # two full blocks of 16 and a tail of 8
DTYPES = {"x": "fp32", "b": "bf16", "even": "fp32", "odd": "fp32", "fourth": "fp32",
          "bodd": "bf16"}
OUTPUTS = ["even", "odd", "fourth", "bodd"]


def make_inputs():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((ROWS, 64)).astype(np.float32)
    b = f32_to_bf16_bits(rng.standard_normal((ROWS, 64)).astype(np.float32))
    return {"x": x, "b": b, "even": np.full((ROWS, 32), np.nan, np.float32),
            "odd": np.full((ROWS, 32), np.nan, np.float32),
            "fourth": np.full((ROWS, 16), np.nan, np.float32),
            "bodd": np.zeros((ROWS, 32), np.uint16)}


def check(out: dict, inputs: dict, level: str):
    x = inputs["x"]
    assert np.array_equal(out["even"], x[:, 0::2]), f"{level}: x[:, 0::2] differs"
    assert np.array_equal(out["odd"], x[:, 1::2]), f"{level}: x[:, 1::2] differs"
    assert np.array_equal(out["fourth"], x[:, 3::4]), f"{level}: x[:, 3::4] differs"
    got = bf16_bits_to_f32(np.asarray(out["bodd"], np.uint16))
    assert np.array_equal(got, bf16_bits_to_f32(inputs["b"])[:, 1::2]), f"{level}: bf16 differs"


@pytest.fixture(scope="module")
def kernel(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("gathermask") / "gm.mlir"
    path.write_text(gathers.trace(x=(None, 64), b=(None, 64), even=(None, 32),
                                  odd=(None, 32), fourth=(None, 16), bodd=(None, 32)).mlir)
    return path


def test_program_level(kernel, tmp_path):
    text = kernel.read_text()
    assert text.count("pto.gathermask") == 4 and "pattern = 6" in text
    inputs = make_inputs()
    out, _ = run_kernel(kernel, tmp_path, inputs, DTYPES, OUTPUTS)
    check(out, inputs, "pto-run")


def test_tile_graph(kernel, tmp_path):
    tg = compile_tile_graph(kernel, tmp_path / "tg.mlir")
    # The [8, 32] vector tile cuts the deinterleave's gathers into pieces of
    # 8 x 32 input elements.
    assert ("pto.gathermask %0, pattern = 2 {vec_tile = #pto.vec_tile<[8, 32]>} : "
            "!pto.tile<8x32xf32> -> !pto.tile<8x16xf32>") in tg.read_text()
    inputs = make_inputs()
    out, _ = run_kernel(tg, tmp_path / "run", inputs, DTYPES, OUTPUTS)
    check(out, inputs, "tile graph")


def test_emitted_cpp(kernel, tmp_path):
    exe = codegen.build(kernel, tmp_path)
    cpp = next(tmp_path.glob("*.cpp")).read_text()
    assert "MaskPattern::P0101" in cpp and "MaskPattern::P1000" in cpp
    inputs = make_inputs()
    out, _ = codegen.run(exe, tmp_path, inputs, DTYPES, OUTPUTS)
    check(out, inputs, "C++ on the emulation")


GATHER_ONLY = """
pto.kernel @g(%x: !pto.tensor<64x64xf32>, %y: !pto.tensor<64x32xf32>) {
  %v = pto.view %x[0, 0] : !pto.tensor<64x64xf32> -> !pto.tile<64x64xf32>
  %g = pto.gathermask %v, pattern = 2 {vec_tile = #pto.vec_tile<[32, 64]>} : !pto.tile<64x64xf32> -> !pto.tile<64x32xf32>
  pto.assemble %g, %y[0, 0] : !pto.tile<64x32xf32>, !pto.tensor<64x32xf32>
}
"""


def test_cost_model_prices_the_gather(tmp_path):
    """The only vector work of this kernel is the gather: the cost model's V
    pipe time is one pass over its input (4096 f32 x 4 B at 256 B/cycle =
    64 cycles at 1.85 GHz)."""
    import re

    src = tmp_path / "g.mlir"
    src.write_text(GATHER_ONLY)
    tg = compile_tile_graph(src, tmp_path / "tg.mlir")
    x = np.arange(64 * 64, dtype=np.float32).reshape(64, 64)
    out, r = run_kernel(tg, tmp_path / "run", {"x": x, "y": np.zeros((64, 32), np.float32)},
                        {"x": "fp32", "y": "fp32"}, ["y"], "--simulate=a3")
    assert np.array_equal(out["y"], x[:, 1::2])
    m = re.search(r"vector pipes \(us\):.* V ([0-9.]+)", r.stdout + r.stderr)
    assert m, r.stdout[-2000:]
    assert abs(float(m.group(1)) - 64 / 1.85e3) < 2e-3, m.group(0)
