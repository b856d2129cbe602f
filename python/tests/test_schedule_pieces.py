"""pto-schedule-pieces, executed: a vector task whose pieces do not fit UB in
the order pto-expand-tiles emits them runs piece by piece, with the same
results, in pto-run and in the emitted C++ on the host emulation.

The kernel is the shape of fused_swiglu_bwd_b_kernel's problem at a small
size: an elementwise chain over a [512, 128] f32 tile, stored, and summed
over its rows. The chain keeps three [128, 128] f32 pieces live (192 KiB,
over DAV_2201's UB less its scratch), so pto-expand-tiles halves the tile to
[64, 128]; the column sum combines the eight row pieces, so they form one
vector task, which op by op keeps ten pieces (320 KiB) live. Inputs are
small integers: every sum is exact, so all levels must agree bitwise."""

from __future__ import annotations

import numpy as np
import pytest

from pto_mlir import codegen
from pto_mlir.tools import run_tile_graph, run_tool

KERNEL = """
pto.kernel @colsum(%x: !pto.tensor<512x128xf32>, %y: !pto.tensor<512x128xf32>,
                   %s: !pto.tensor<1x128xf32>) {
  %one = arith.constant 1.0 : f32
  %t = pto.view %x[0, 0] : !pto.tensor<512x128xf32> -> !pto.tile<512x128xf32>
  %a = pto.add %t, %one {vec_tile = #pto.vec_tile<[128, 128]>} : !pto.tile<512x128xf32>, f32 -> !pto.tile<512x128xf32>
  %p = pto.mul %a, %t {vec_tile = #pto.vec_tile<[128, 128]>} : !pto.tile<512x128xf32>, !pto.tile<512x128xf32> -> !pto.tile<512x128xf32>
  pto.assemble %p, %y[0, 0] {vec_tile = #pto.vec_tile<[128, 128]>} : !pto.tile<512x128xf32>, !pto.tensor<512x128xf32>
  %c = pto.sum %p dim = 0 keepdim {vec_tile = #pto.vec_tile<[128, 128]>} : !pto.tile<512x128xf32> -> !pto.tile<1x128xf32>
  pto.assemble %c, %s[0, 0] : !pto.tile<1x128xf32>, !pto.tensor<1x128xf32>
}
"""

DTYPES = {"x": "fp32", "y": "fp32", "s": "fp32"}
OUTPUTS = ["y", "s"]


def make_inputs():
    rng = np.random.default_rng(3)
    return {"x": rng.integers(-3, 4, (512, 128)).astype(np.float32),
            "y": np.full((512, 128), np.nan, np.float32),
            "s": np.full((1, 128), np.nan, np.float32)}


def check(out, inputs, level):
    x = inputs["x"]
    y = (x + 1) * x
    assert np.array_equal(out["y"], y), f"{level}: y differs"
    assert np.array_equal(out["s"], y.sum(axis=0, keepdims=True)), f"{level}: s differs"


@pytest.fixture(scope="module")
def kernel(tmp_path_factory):
    path = tmp_path_factory.mktemp("schedule_pieces") / "colsum.mlir"
    path.write_text(KERNEL)
    return path


def test_tile_graph_before_and_after(kernel, tmp_path):
    """The tile graph with and without the pass: both run and agree with the
    golden, and the pass reorders the one vector task (its remark)."""
    outs = {}
    for switch in ("false", "true"):
        inputs = make_inputs()
        outs[switch], _ = run_tile_graph(kernel, tmp_path / switch, inputs, DTYPES, OUTPUTS,
                                         options=f"schedule-pieces={switch}")
        check(outs[switch], inputs, f"tile graph, schedule-pieces={switch}")
    r = run_tool("pto-opt", kernel, "--pto-legalize", "--pto-flatten-scopes",
                 "--pto-expand-tiles", "--pto-partition",
                 "--pto-schedule-pieces=report=true", "-o", tmp_path / "scheduled.mlir")
    assert r.returncode == 0, r.stderr[-3000:]
    assert "estimated UB peak 327680 -> 98816 bytes" in r.stderr, r.stderr[-3000:]


def test_emitted_cpp(kernel, tmp_path):
    """The emitted C++ fits UB only with the pass; with it, it runs on the
    emulation and matches."""
    r = run_tool("pto-opt", kernel,
                 "--pass-pipeline=builtin.module(pto-ascend-pipeline{schedule-pieces=false})",
                 "-o", tmp_path / "unscheduled.mlir")
    assert r.returncode != 0 and "does not fit ub of DAV_2201" in r.stderr, r.stderr[-3000:]
    exe = codegen.build(kernel, tmp_path, opt="-O0")   # a small kernel: -O0 builds in seconds
    inputs = make_inputs()
    out, _ = codegen.run(exe, tmp_path, inputs, DTYPES, OUTPUTS)
    check(out, inputs, "C++ on the emulation")
