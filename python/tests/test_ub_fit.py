"""Vector tasks that PyPTO fits into UB fit here too (issue 14: engram's
forward at its test's 1024 x 1024, IFA's [12, 2048] softmax), executed: two
kernels of the same shape as those, small enough for a test, each through
pto-run, the tile graph and the emitted C++ on the host emulation, against
NumPy (docs/Legalization.md, "Vector tasks over UB").

- ``norm_gate`` is engram's linear + rms_norm + gate chain without the
  matmul: the gate over all 256 scores joins every row piece into one vector
  task. Its [8, 1024] row pieces wait on two loads that the pieces cannot run
  without: gamma (nothing in the task writes it) and the second read of the
  row (the key, stored by the same task, read once for the sum of squares and
  once for the division). pto-schedule-pieces runs each load right before its
  consumer; before, every piece stopped at them and 32 pieces of 32 KiB were
  live at once (plan-memory: "needs 2130176 bytes").
- ``scores_softmax`` is IFA's first tile: the softmax of a matmul result seen
  through a view that narrows its valid columns, in [6, 2048] f32 pieces.
  pto-expand-tiles composes the view into each piece's load, so a piece reads
  its own window of the matmul's workspace; before, each piece loaded the
  whole [12, 2048] tile (two of them, 196608 bytes).
- ``norm_decay`` is qwen3_5_9b gated_delta_rule's first vector task: the l2
  norms of k and q are stored for a matmul and used again after a row that
  needs every piece of g, so every order keeps them in UB across it
  (plan-memory: "needs 198656 bytes"). pto-schedule-pieces reads the pieces
  it stored back from their workspace windows after that peak, as PyPTO
  spills a live buffer to GM and copies it in at its next use."""

from __future__ import annotations

import numpy as np
import pytest

from pto_mlir import codegen
from pto_mlir.golden.bf16 import bf16_bits_to_f32, f32_to_bf16_bits
from pto_mlir.tools import run_kernel, run_tile_graph, run_tool

NORM = """
pto.kernel @norm_gate(%x: !pto.tensor<256x1024xf32>, %bias: !pto.tensor<1x1024xf32>,
                      %gamma: !pto.tensor<1x1024xf32>, %q: !pto.tensor<256x1024xf32>,
                      %key: !pto.tensor<256x1024xf32>, %score: !pto.tensor<256xf32>,
                      %gate: !pto.tensor<256xf32>) {
  %inv = arith.constant 9.765625e-04 : f32
  %eps = arith.constant 1.0e-06 : f32
  %one = arith.constant 1.0 : f32
  %tx = pto.view %x[0, 0] : !pto.tensor<256x1024xf32> -> !pto.tile<256x1024xf32>
  %tb = pto.view %bias[0, 0] : !pto.tensor<1x1024xf32> -> !pto.tile<1x1024xf32>
  %k = pto.add %tx, %tb {vec_tile = #pto.vec_tile<[64, 256]>} : !pto.tile<256x1024xf32>, !pto.tile<1x1024xf32> -> !pto.tile<256x1024xf32>
  pto.assemble %k, %key[0, 0] {vec_tile = #pto.vec_tile<[64, 512]>} : !pto.tile<256x1024xf32>, !pto.tensor<256x1024xf32>
  %sq = pto.mul %k, %k {vec_tile = #pto.vec_tile<[16, 1024]>} : !pto.tile<256x1024xf32>, !pto.tile<256x1024xf32> -> !pto.tile<256x1024xf32>
  %ms = pto.mul %sq, %inv {vec_tile = #pto.vec_tile<[16, 1024]>} : !pto.tile<256x1024xf32>, f32 -> !pto.tile<256x1024xf32>
  %ss = pto.sum %ms dim = 1 keepdim {vec_tile = #pto.vec_tile<[16, 1024]>} : !pto.tile<256x1024xf32> -> !pto.tile<256x1xf32>
  %a = pto.add %ss, %eps {vec_tile = #pto.vec_tile<[16, 1024]>} : !pto.tile<256x1xf32>, f32 -> !pto.tile<256x1xf32>
  %r = pto.sqrt %a {vec_tile = #pto.vec_tile<[16, 1024]>} : !pto.tile<256x1xf32> -> !pto.tile<256x1xf32>
  %n = pto.div %k, %r {precision = #pto.precision<INTRINSIC>, vec_tile = #pto.vec_tile<[16, 1024]>} : !pto.tile<256x1024xf32>, !pto.tile<256x1xf32> -> !pto.tile<256x1024xf32>
  %tg = pto.view %gamma[0, 0] : !pto.tensor<1x1024xf32> -> !pto.tile<1x1024xf32>
  %nk = pto.mul %n, %tg {vec_tile = #pto.vec_tile<[16, 1024]>} : !pto.tile<256x1024xf32>, !pto.tile<1x1024xf32> -> !pto.tile<256x1024xf32>
  %tq = pto.view %q[0, 0] : !pto.tensor<256x1024xf32> -> !pto.tile<256x1024xf32>
  %p = pto.mul %nk, %tq {vec_tile = #pto.vec_tile<[16, 1024]>} : !pto.tile<256x1024xf32>, !pto.tile<256x1024xf32> -> !pto.tile<256x1024xf32>
  %sc = pto.sum %p dim = 1 {vec_tile = #pto.vec_tile<[16, 1024]>} : !pto.tile<256x1024xf32> -> !pto.tile<256xf32>
  %ng = pto.neg %sc {vec_tile = #pto.vec_tile<[256]>} : !pto.tile<256xf32> -> !pto.tile<256xf32>
  %ex = pto.exp %ng {precision = #pto.precision<INTRINSIC>, vec_tile = #pto.vec_tile<[256]>} : !pto.tile<256xf32> -> !pto.tile<256xf32>
  %d = pto.add %ex, %one {vec_tile = #pto.vec_tile<[256]>} : !pto.tile<256xf32>, f32 -> !pto.tile<256xf32>
  %g = pto.reciprocal %d {vec_tile = #pto.vec_tile<[256]>} : !pto.tile<256xf32> -> !pto.tile<256xf32>
  pto.assemble %sc, %score[0] : !pto.tile<256xf32>, !pto.tensor<256xf32>
  pto.assemble %g, %gate[0] : !pto.tile<256xf32>, !pto.tensor<256xf32>
}
"""

SOFTMAX = """
pto.kernel @scores_softmax(%q: !pto.tensor<12x128xbf16>, %k: !pto.tensor<2048x128xbf16>,
                           %len: !pto.tensor<?xi32>, %p: !pto.tensor<12x2048xf32>,
                           %m: !pto.tensor<12x1xf32>, %s: !pto.tensor<12x1xf32>) {
  %scale = arith.constant 0.0883883461 : f32
  %tq = pto.view %q[0, 0] : !pto.tensor<12x128xbf16> -> !pto.tile<12x128xbf16>
  %tk = pto.view %k[0, 0] : !pto.tensor<2048x128xbf16> -> !pto.tile<2048x128xbf16>
  %sij = pto.matmul %tq, %tk {b_trans, cube_tile = #pto.cube_tile<m = [256, 256], k = [128, 128], n = [128, 128]>} : !pto.tile<12x128xbf16>, !pto.tile<2048x128xbf16> -> !pto.tile<12x2048xf32>
  %n = pto.dim %len, 0 : !pto.tensor<?xi32>
  %v = pto.view %sij[0, 0] valid [12, %n] : !pto.tile<12x2048xf32> -> !pto.tile<12x2048xf32>
  %sc = pto.mul %v, %scale {vec_tile = #pto.vec_tile<[6, 2048]>} : !pto.tile<12x2048xf32>, f32 -> !pto.tile<12x2048xf32>
  %mx = pto.amax %sc dim = 1 keepdim {vec_tile = #pto.vec_tile<[6, 2048]>} : !pto.tile<12x2048xf32> -> !pto.tile<12x1xf32>
  %t = pto.sub %sc, %mx {vec_tile = #pto.vec_tile<[6, 2048]>} : !pto.tile<12x2048xf32>, !pto.tile<12x1xf32> -> !pto.tile<12x2048xf32>
  %e = pto.exp %t {precision = #pto.precision<INTRINSIC>, vec_tile = #pto.vec_tile<[6, 2048]>} : !pto.tile<12x2048xf32> -> !pto.tile<12x2048xf32>
  %sum = pto.sum %e dim = 1 keepdim {vec_tile = #pto.vec_tile<[6, 2048]>} : !pto.tile<12x2048xf32> -> !pto.tile<12x1xf32>
  pto.assemble %e, %p[0, 0] : !pto.tile<12x2048xf32>, !pto.tensor<12x2048xf32>
  pto.assemble %mx, %m[0, 0] : !pto.tile<12x1xf32>, !pto.tensor<12x1xf32>
  pto.assemble %sum, %s[0, 0] : !pto.tile<12x1xf32>, !pto.tensor<12x1xf32>
}
"""

VALID = 1500   # the softmax's valid columns (the KV length of the tile)


def norm_inputs():
    rng = np.random.default_rng(14)
    f = lambda *s: rng.standard_normal(s).astype(np.float32)  # noqa: E731
    return {"x": f(256, 1024), "bias": f(1, 1024), "gamma": f(1, 1024),
            "q": 0.05 * f(256, 1024), "key": np.zeros((256, 1024), np.float32),
            "score": np.zeros(256, np.float32), "gate": np.zeros(256, np.float32)}


def norm_golden(i):
    key = (i["x"] + i["bias"]).astype(np.float64)
    rms = np.sqrt((key * key / 1024).sum(1, keepdims=True) + 1e-6)
    score = (key / rms * i["gamma"] * i["q"]).sum(1)
    return {"key": key, "score": score, "gate": 1 / (1 + np.exp(-score))}


def softmax_inputs():
    rng = np.random.default_rng(15)
    bf = lambda *s: f32_to_bf16_bits(rng.uniform(-1, 1, s).astype(np.float32))  # noqa: E731
    return {"q": bf(12, 128), "k": bf(2048, 128), "len": np.zeros(VALID, np.int32),
            "p": np.zeros((12, 2048), np.float32), "m": np.zeros((12, 1), np.float32),
            "s": np.zeros((12, 1), np.float32)}


def softmax_golden(i):
    q = bf16_bits_to_f32(i["q"]).astype(np.float64)
    k = bf16_bits_to_f32(i["k"]).astype(np.float64)
    sc = (q @ k.T)[:, :VALID] * 0.0883883461
    m = sc.max(1, keepdims=True)
    e = np.exp(sc - m)
    return {"p": e, "m": m, "s": e.sum(1, keepdims=True)}


# gated_delta_rule's first vector task (qwen3_5_9b): the l2 norms of k and
# q, stored for a matmul, then read again after a row of g that depends on
# every piece of g (its last row), so no order ends their pieces early.
DECAY = """
pto.kernel @norm_decay(
    %k: !pto.tensor<128x128xf32>,
    %q: !pto.tensor<128x128xf32>,
    %gc: !pto.tensor<128x1xf32>,
    %kq: !pto.tensor<128x128xf32>,
    %out: !pto.tensor<128x128xf32>)
    attributes {arch = #pto.arch<DAV_2201>} {
  %cst = arith.constant 1.0e-06 : f32
  %cst_1 = arith.constant 5.0e-01 : f32
  %cst_2 = arith.constant 0.0e+00 : f32
  %kv = pto.view %k[0, 0] : !pto.tensor<128x128xf32> -> !pto.tile<128x128xf32>
  %qv = pto.view %q[0, 0] : !pto.tensor<128x128xf32> -> !pto.tile<128x128xf32>
  %mul = pto.mul %kv, %kv {vec_tile = #pto.vec_tile<[128, 128]>} : !pto.tile<128x128xf32>, !pto.tile<128x128xf32> -> !pto.tile<128x128xf32>
  %sum = pto.sum %mul dim = 1 keepdim {vec_tile = #pto.vec_tile<[128, 128]>} : !pto.tile<128x128xf32> -> !pto.tile<128x1xf32>
  %add = pto.add %sum, %cst {vec_tile = #pto.vec_tile<[128, 128]>} : !pto.tile<128x1xf32>, f32 -> !pto.tile<128x1xf32>
  %rsqrt = pto.rsqrt %add {vec_tile = #pto.vec_tile<[128, 128]>} : !pto.tile<128x1xf32> -> !pto.tile<128x1xf32>
  %kn = pto.mul %kv, %rsqrt {vec_tile = #pto.vec_tile<[128, 128]>} : !pto.tile<128x128xf32>, !pto.tile<128x1xf32> -> !pto.tile<128x128xf32>
  %mul_1 = pto.mul %qv, %qv {vec_tile = #pto.vec_tile<[128, 128]>} : !pto.tile<128x128xf32>, !pto.tile<128x128xf32> -> !pto.tile<128x128xf32>
  %sum_1 = pto.sum %mul_1 dim = 1 keepdim {vec_tile = #pto.vec_tile<[128, 128]>} : !pto.tile<128x128xf32> -> !pto.tile<128x1xf32>
  %add_1 = pto.add %sum_1, %cst {vec_tile = #pto.vec_tile<[128, 128]>} : !pto.tile<128x1xf32>, f32 -> !pto.tile<128x1xf32>
  %rsqrt_1 = pto.rsqrt %add_1 {vec_tile = #pto.vec_tile<[128, 128]>} : !pto.tile<128x1xf32> -> !pto.tile<128x1xf32>
  %qn = pto.mul %qv, %rsqrt_1 {vec_tile = #pto.vec_tile<[128, 128]>} : !pto.tile<128x128xf32>, !pto.tile<128x1xf32> -> !pto.tile<128x128xf32>
  %kb = pto.mul %kn, %cst_1 {vec_tile = #pto.vec_tile<[128, 128]>} : !pto.tile<128x128xf32>, f32 -> !pto.tile<128x128xf32>
  %matmul = pto.matmul %kb, %qn {b_trans, cube_tile = #pto.cube_tile<m = [128, 128], k = [128, 128], n = [128, 128]>} : !pto.tile<128x128xf32>, !pto.tile<128x128xf32> -> !pto.tile<128x128xf32>
  pto.assemble %matmul, %kq[0, 0] {vec_tile = #pto.vec_tile<[128, 128]>} : !pto.tile<128x128xf32>, !pto.tensor<128x128xf32>
  %view = pto.view %gc[0, 0] : !pto.tensor<128x1xf32> -> !pto.tile<128x1xf32>
  %g = pto.add %view, %cst_2 {vec_tile = #pto.vec_tile<[128, 128]>} : !pto.tile<128x1xf32>, f32 -> !pto.tile<128x1xf32>
  %view_1 = pto.view %g[127, 0] : !pto.tile<128x1xf32> -> !pto.tile<1x1xf32>
  %last = pto.add %view_1, %cst_2 {vec_tile = #pto.vec_tile<[128, 128]>} : !pto.tile<1x1xf32>, f32 -> !pto.tile<1x1xf32>
  %sub = pto.sub %last, %g {vec_tile = #pto.vec_tile<[128, 128]>} : !pto.tile<1x1xf32>, !pto.tile<128x1xf32> -> !pto.tile<128x1xf32>
  %exp = pto.exp %sub {precision = #pto.precision<INTRINSIC>, vec_tile = #pto.vec_tile<[128, 128]>} : !pto.tile<128x1xf32> -> !pto.tile<128x1xf32>
  %mul_2 = pto.mul %kn, %exp {vec_tile = #pto.vec_tile<[128, 128]>} : !pto.tile<128x128xf32>, !pto.tile<128x1xf32> -> !pto.tile<128x128xf32>
  %add_2 = pto.add %qn, %kb {vec_tile = #pto.vec_tile<[128, 128]>} : !pto.tile<128x128xf32>, !pto.tile<128x128xf32> -> !pto.tile<128x128xf32>
  %add_3 = pto.add %mul_2, %add_2 {vec_tile = #pto.vec_tile<[128, 128]>} : !pto.tile<128x128xf32>, !pto.tile<128x128xf32> -> !pto.tile<128x128xf32>
  pto.assemble %add_3, %out[0, 0] {vec_tile = #pto.vec_tile<[128, 128]>} : !pto.tile<128x128xf32>, !pto.tensor<128x128xf32>
}
"""


def decay_inputs():
    rng = np.random.default_rng(16)
    f = lambda *s: rng.standard_normal(s).astype(np.float32)  # noqa: E731
    return {"k": f(128, 128), "q": f(128, 128),
            "gc": np.cumsum(-0.05 * np.abs(f(128, 1)), axis=0).astype(np.float32),
            "kq": np.zeros((128, 128), np.float32), "out": np.zeros((128, 128), np.float32)}


def decay_golden(i):
    k, q, gc = (i[n].astype(np.float64) for n in ("k", "q", "gc"))
    kn = k / np.sqrt((k * k).sum(1, keepdims=True) + 1e-6)
    qn = q / np.sqrt((q * q).sum(1, keepdims=True) + 1e-6)
    return {"kq": 0.5 * kn @ qn.T, "out": kn * np.exp(gc[-1] - gc) + qn + 0.5 * kn}


CASES = {
    "norm_gate": (NORM, norm_inputs, norm_golden,
                  {"x": "fp32", "bias": "fp32", "gamma": "fp32", "q": "fp32",
                   "key": "fp32", "score": "fp32", "gate": "fp32"}, ["key", "score", "gate"]),
    "scores_softmax": (SOFTMAX, softmax_inputs, softmax_golden,
                       {"q": "bf16", "k": "bf16", "len": "int32", "p": "fp32", "m": "fp32",
                        "s": "fp32"}, ["p", "m", "s"]),
    "norm_decay": (DECAY, decay_inputs, decay_golden,
                   {"k": "fp32", "q": "fp32", "gc": "fp32", "kq": "fp32", "out": "fp32"},
                   ["kq", "out"]),
}


def check(name, out, inputs, level):
    gold = CASES[name][2](inputs)
    for key, expected in gold.items():
        got = out[key]
        if name == "scores_softmax" and key == "p":
            got = got[:, :VALID]    # the valid columns; the rest is never relied upon
        assert np.allclose(got, expected, rtol=2e-5, atol=2e-5), \
            f"{level}: {key} differs by {np.abs(got - expected).max():.3g}"


@pytest.fixture(scope="module", params=list(CASES))
def case(request, tmp_path_factory):
    path = tmp_path_factory.mktemp("ub_fit") / f"{request.param}.mlir"
    path.write_text(CASES[request.param][0])
    return request.param, path


def test_pto_run_and_tile_graph(case, tmp_path):
    name, kernel = case
    _, make_inputs, _, dtypes, outputs = CASES[name]
    inputs = make_inputs()
    out, _ = run_kernel(kernel, tmp_path / "run", inputs, dtypes, outputs)
    check(name, out, inputs, "pto-run")
    inputs = make_inputs()
    out, _ = run_tile_graph(kernel, tmp_path / "graph", inputs, dtypes, outputs)
    check(name, out, inputs, "tile graph")


def test_fits_ub_and_emitted_cpp(case, tmp_path):
    """The Ascend pipeline plans UB for every leaf (it failed at
    pto-isa-plan-memory before), and the C++ matches on the emulation."""
    name, kernel = case
    _, make_inputs, _, dtypes, outputs = CASES[name]
    r = run_tool("pto-opt", kernel, "--pto-ascend-pipeline", "-o", tmp_path / "isa.mlir")
    assert r.returncode == 0 and "does not fit ub" not in r.stderr, r.stderr[-3000:]
    exe = codegen.build(kernel, tmp_path, opt="-O0")
    inputs = make_inputs()
    out, _ = codegen.run(exe, tmp_path, inputs, {k: codegen.element_type(v) for k, v in dtypes.items()},
                         outputs)
    check(name, out, inputs, "C++ on the emulation")


def test_schedule_remark(tmp_path):
    """pto-schedule-pieces says what it did: the estimate before and after."""
    kernel = tmp_path / "norm_gate.mlir"
    kernel.write_text(NORM)
    r = run_tool("pto-opt", kernel, "--pto-legalize", "--pto-flatten-scopes",
                 "--pto-expand-tiles", "--pto-partition",
                 "--pto-schedule-pieces=report=true", "-o", tmp_path / "scheduled.mlir")
    assert r.returncode == 0, r.stderr[-3000:]
    assert "estimated UB peak 1114112 -> 131072 bytes (budget 188416)" in r.stderr, \
        r.stderr[-3000:]
