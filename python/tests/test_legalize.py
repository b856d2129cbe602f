"""pto-legalize, executed: one DAV_2201 kernel with every legalizable form
(bf16 arithmetic with a bf16 scalar, pto.div at its HIGH_PRECISION default,
a 128 KiB reduction tile, [N, 1] column tiles of f32) runs through pto-run
as parsed (--no-legalize), legalized (pto-run's default), printed after
``pto-opt --pto-legalize`` and run again, and after the tile-graph pipeline.
All four must agree bit for bit, and match NumPy (docs/Legalization.md).
"""

from __future__ import annotations

import numpy as np
import pytest

from pto_mlir.golden.bf16 import bf16_bits_to_f32, f32_to_bf16_bits, round_bf16
from pto_mlir.tools import assert_bitwise, run_kernel, run_tile_graph, run_tool

KERNEL = """
pto.kernel @lg(%x: !pto.tensor<256x128xbf16>, %y: !pto.tensor<256x128xbf16>,
               %r: !pto.tensor<256x1xf32>, %z: !pto.tensor<256x1xf32>) {
  %half = arith.constant 5.000000e-01 : bf16
  %one = arith.constant 1.000000e+00 : f32
  %t = pto.view %x[0, 0] : !pto.tensor<256x128xbf16> -> !pto.tile<256x128xbf16>
  %s = pto.add %t, %t {vec_tile = #pto.vec_tile<[64, 128]>} : !pto.tile<256x128xbf16>, !pto.tile<256x128xbf16> -> !pto.tile<256x128xbf16>
  %m = pto.mul %s, %half {vec_tile = #pto.vec_tile<[64, 128]>} : !pto.tile<256x128xbf16>, bf16 -> !pto.tile<256x128xbf16>
  %e = pto.exp %m {vec_tile = #pto.vec_tile<[64, 128]>} : !pto.tile<256x128xbf16> -> !pto.tile<256x128xbf16>
  pto.assemble %e, %y[0, 0] : !pto.tile<256x128xbf16>, !pto.tensor<256x128xbf16>
  %f = pto.cast %t {vec_tile = #pto.vec_tile<[64, 128]>} : !pto.tile<256x128xbf16> -> !pto.tile<256x128xf32>
  %sum = pto.sum %f dim = 1 keepdim {vec_tile = #pto.vec_tile<[256, 128]>} : !pto.tile<256x128xf32> -> !pto.tile<256x1xf32>
  %sq = pto.mul %sum, %sum {vec_tile = #pto.vec_tile<[64, 1]>} : !pto.tile<256x1xf32>, !pto.tile<256x1xf32> -> !pto.tile<256x1xf32>
  %den = pto.add %sq, %one {vec_tile = #pto.vec_tile<[64, 1]>} : !pto.tile<256x1xf32>, f32 -> !pto.tile<256x1xf32>
  %d = pto.div %sum, %den {vec_tile = #pto.vec_tile<[64, 1]>} : !pto.tile<256x1xf32>, !pto.tile<256x1xf32> -> !pto.tile<256x1xf32>
  pto.assemble %d, %r[0, 0] : !pto.tile<256x1xf32>, !pto.tensor<256x1xf32>
  %q = pto.rsqrt %den {vec_tile = #pto.vec_tile<[64, 1]>} : !pto.tile<256x1xf32> -> !pto.tile<256x1xf32>
  pto.assemble %q, %z[0, 0] : !pto.tile<256x1xf32>, !pto.tensor<256x1xf32>
}
"""

DTYPES = {"x": "bf16", "y": "bf16", "r": "fp32", "z": "fp32"}
OUTPUTS = ["y", "r", "z"]


def make_inputs():
    rng = np.random.default_rng(3)
    # Small integers: bf16-exact, and every row sum is exact in any order.
    x = rng.integers(-4, 5, size=(256, 128)).astype(np.float32)
    return {"x": f32_to_bf16_bits(x), "y": np.zeros((256, 128), np.uint16),
            "r": np.zeros((256, 1), np.float32), "z": np.zeros((256, 1), np.float32)}


@pytest.fixture(scope="module")
def kernel(tmp_path_factory):
    path = tmp_path_factory.mktemp("legalize") / "lg.mlir"
    path.write_text(KERNEL)
    return path


def test_remarks_and_rewrites(kernel, tmp_path):
    out = tmp_path / "legal.mlir"
    r = run_tool("pto-opt", kernel, "--pto-legalize", "-o", out)
    assert r.returncode == 0, r.stderr[-3000:]
    remarks = r.stderr
    assert remarks.count("on bf16 computed in f32") == 3
    assert "re-tiled to [128, 128] (65536 B)" in remarks
    assert remarks.count("padded to [64, 8]") == 4
    assert "using INTRINSIC" in remarks
    text = out.read_text()
    assert "bf16>, bf16" not in text and "HIGH_PRECISION" not in text


def test_numerics_before_after(kernel, tmp_path):
    inputs = make_inputs()
    before, _ = run_kernel(kernel, tmp_path / "before", inputs, DTYPES, OUTPUTS, "--no-legalize")
    after, _ = run_kernel(kernel, tmp_path / "after", inputs, DTYPES, OUTPUTS)
    # The f32 parts are unchanged; the bf16 chain add -> mul -> exp is
    # rounded once per op as parsed, once at its end when legalized (PyPTO).
    for name in ("r", "z"):
        assert np.array_equal(before[name], after[name]), name
    y_before = bf16_bits_to_f32(np.asarray(before["y"], np.uint16))
    y_after = bf16_bits_to_f32(np.asarray(after["y"], np.uint16))
    assert np.allclose(y_before, y_after, rtol=2 ** -7, atol=0)

    legal = tmp_path / "legal.mlir"
    assert run_tool("pto-opt", kernel, "--pto-legalize", "-o", legal).returncode == 0
    printed, _ = run_kernel(legal, tmp_path / "printed", inputs, DTYPES, OUTPUTS, "--no-legalize")
    assert_bitwise(after, printed)

    graph, _ = run_tile_graph(kernel, tmp_path / "tg", inputs, DTYPES, OUTPUTS)
    assert_bitwise(after, graph)

    # NumPy: the legalized bf16 chain computes in f32 and rounds once; the
    # f32 part is exact up to the division and rsqrt.
    x = bf16_bits_to_f32(inputs["x"])
    e = round_bf16(np.exp((x + x) * np.float32(0.5)))
    assert np.allclose(y_after, e, rtol=2 ** -7, atol=0), np.abs(y_after - e).max()
    s = x.sum(axis=1, keepdims=True)
    den = s * s + 1
    assert np.allclose(after["r"], s / den, rtol=1e-6, atol=0)
    assert np.allclose(after["z"], 1 / np.sqrt(den), rtol=1e-6, atol=0)


def test_emitted_cpp(kernel, tmp_path):
    """The legalized kernel through --pto-ascend-pipeline (which runs
    pto-legalize first) and C++ on the host emulation, against pto-run."""
    from pto_mlir import codegen

    inputs = make_inputs()
    ref, _ = run_kernel(kernel, tmp_path / "ref", inputs, DTYPES, OUTPUTS)
    exe = codegen.build(kernel, tmp_path)
    out, _ = codegen.run(exe, tmp_path, inputs, DTYPES, OUTPUTS)
    got = bf16_bits_to_f32(np.asarray(out["y"], np.uint16))
    want = bf16_bits_to_f32(np.asarray(ref["y"], np.uint16))
    assert np.allclose(got, want, rtol=2 ** -7, atol=0), np.abs(got - want).max()
    for name in ("r", "z"):
        assert np.allclose(out[name], ref[name], rtol=1e-6, atol=0), name
