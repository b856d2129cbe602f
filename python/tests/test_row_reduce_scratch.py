"""A row sum's scratch is what pto-isa writes into it, not a copy of the
source (docs/ISA.md#row-reduction-scratch), and that is what lets
deepseek_v4 win_attention's softmax band fit UB at its own vec tile.

``sink_softmax_band`` has the shape of win_attention's three-block branch:
scores of 256 rows (4 tokens x 64 heads) over 384 keys, masked with a bool
mask, scaled, a softmax with attention sinks (the sink's exp joins the row
sum) and a bf16 cast, at vec tile [64, 256]. Each 64-row band keeps its two
exp pieces ([64, 256] and [64, 128] f32) live until the division, next to
the row sums. With a scratch shaped like the source the band's vector leaf
needed 198,656 of 188,416 bytes of UB; pto-isa's A2/A3 TROWSUM writes half
the source's repeats ([64, 128]) and TROWMAX one repeat per row ([64, 64]).
The kernel runs through pto-run, the tile graph, the emitted C++ on the host
emulation, and the emitted C++ on pto-isa's own CPU simulator, against a
NumPy reference."""

from __future__ import annotations

import re

import numpy as np
import pytest

import pto_mlir.frontend as pypto
from pto_mlir import codegen, pto_isa
from pto_mlir.golden.bf16 import bf16_bits_to_f32
from pto_mlir.tools import run_kernel, run_tile_graph, run_tool

F32, BF16, BOOL = pypto.DT_FP32, pypto.DT_BF16, pypto.DT_BOOL
ROWS, KEYS, SCALE = 256, 384, 0.125
DTYPES = {"s": "fp32", "mask": "bool", "sinks": "fp32", "p": "bf16"}


def band(s, mask, sinks, p, dtype):
    pypto.set_vec_tile_shapes(64, 256)
    scores = pypto.view(s, [ROWS, KEYS], [0, 0])
    keep = pypto.view(mask, [ROWS, KEYS], [0, 0])
    sink = pypto.view(sinks, [ROWS, 1], [0, 0])
    scores = pypto.mul(pypto.where(keep, scores, float("-inf")), SCALE)
    row_max = pypto.amax(scores, -1, True)
    e = pypto.exp(pypto.sub(scores, row_max))
    total = pypto.add(pypto.sum(e, -1, True), pypto.exp(pypto.sub(sink, row_max)))
    p_f32 = pypto.div(e, total)
    pypto.assemble(p_f32 if dtype == F32 else pypto.cast(p_f32, dtype), [0, 0], p)


@pypto.jit
def sink_softmax_band(s: pypto.Tensor([ROWS, KEYS], F32), mask: pypto.Tensor([ROWS, KEYS], BOOL),
                      sinks: pypto.Tensor([ROWS, 1], F32), p: pypto.Tensor([ROWS, KEYS], BF16)):
    band(s, mask, sinks, p, BF16)


# pto-isa's CPU back end spells bfloat16_t as another type than the
# runtime's, so a bf16 argument does not link there (test_pto_isa_real's
# IEEE kernel takes FP16 for the same reason): the same band with f32 out.
@pypto.jit
def sink_softmax_band_f32(s: pypto.Tensor([ROWS, KEYS], F32),
                          mask: pypto.Tensor([ROWS, KEYS], BOOL),
                          sinks: pypto.Tensor([ROWS, 1], F32),
                          p: pypto.Tensor([ROWS, KEYS], F32)):
    band(s, mask, sinks, p, F32)


def make_inputs():
    rng = np.random.default_rng(11)
    s = (rng.standard_normal((ROWS, KEYS)) * 4).astype(np.float32)
    # A sliding window of 128 keys per row, as win_attention's mask: row r of
    # token t = r // 64 sees keys 128 + t .. 255 + t (every row keeps some).
    cols = np.arange(KEYS)[None, :]
    start = 128 + np.arange(ROWS)[:, None] // 64
    mask = (cols >= start) & (cols < start + 128)
    sinks = rng.standard_normal((ROWS, 1)).astype(np.float32)
    return {"s": s, "mask": mask, "sinks": sinks, "p": np.zeros((ROWS, KEYS), np.uint16)}


def reference(inputs):
    s = np.where(inputs["mask"], inputs["s"].astype(np.float64) * SCALE, -np.inf)
    m = s.max(axis=1, keepdims=True)
    e = np.exp(s - m)
    return e / (e.sum(axis=1, keepdims=True) + np.exp(inputs["sinks"] - m))


def check(out, inputs, level, tolerance=4e-3):
    got = out["p"]
    got = bf16_bits_to_f32(got) if got.dtype == np.uint16 else got
    err = float(np.abs(got - reference(inputs)).max())
    # bf16 keeps 8 bits: the probabilities (at most 1) are within 2^-8.
    assert err <= tolerance, f"{level}: max |p - reference| = {err:.3g}"


@pytest.fixture(scope="module")
def kernel(tmp_path_factory):
    path = tmp_path_factory.mktemp("band") / "band.mlir"
    path.write_text(sink_softmax_band.trace().mlir)
    return path


def test_pto_run_and_tile_graph(kernel, tmp_path):
    inputs = make_inputs()
    out, _ = run_kernel(kernel, tmp_path / "run", inputs, DTYPES, ["p"])
    check(out, inputs, "pto-run")
    out, _ = run_tile_graph(kernel, tmp_path / "graph", inputs, DTYPES, ["p"])
    check(out, inputs, "tile graph")


def test_band_fits_ub_with_the_smaller_scratch(kernel, tmp_path):
    """The plan's peak (it was 'needs 198656 bytes') and the scratch shapes."""
    isa = tmp_path / "isa.mlir"
    r = run_tool("pto-opt", kernel, "--pto-ascend-pipeline", "--pto-isa-plan-memory=report",
                 "-o", isa)
    assert r.returncode == 0, r.stderr[-3000:]
    peaks = [int(p) for p in re.findall(r"ub (\d+) B peak live", r.stderr)]
    assert peaks and max(peaks) == 135168, r.stderr[-3000:]
    text = isa.read_text()
    for op, src, tmp in (("trowsum", "64x256", "64x128"), ("trowsum", "64x128", "64x64"),
                         ("trowmax", "64x256", "64x64"), ("trowmax", "64x128", "64x64")):
        assert re.search(rf"pto_isa\.{op} .*tile<ub, {src}xf32>, !pto_isa\.tile<ub, {tmp}xf32>",
                         text), f"{op} of a [{src}] piece has no [{tmp}] scratch"


def test_emitted_cpp_on_the_emulation(kernel, tmp_path):
    exe = codegen.compile_cpp(codegen.emit_cpp(kernel, tmp_path), tmp_path / "emulated", "-O0")
    inputs = make_inputs()
    out, _ = codegen.run(exe, tmp_path, inputs, DTYPES, ["p"])
    check(out, inputs, "C++ on the emulation")


@pytest.mark.skipif(pto_isa.find() is None, reason=pto_isa.missing_reason())
def test_emitted_cpp_on_the_real_simulator(tmp_path, monkeypatch):
    """pto-isa's CPU back end with the smaller scratch, against the reference
    and bit for bit against the emulation (both at -O0: row sums in index
    order)."""
    kernel = tmp_path / "band_f32.mlir"
    kernel.write_text(sink_softmax_band_f32.trace().mlir)
    cpp = codegen.emit_cpp(kernel, tmp_path)
    assert re.search(r"TROWSUM\(", cpp.read_text()), "no row sum in the emitted C++"
    real = pto_isa.build_on_real_sim(cpp, tmp_path / "real")
    emulated = codegen.compile_cpp(cpp, tmp_path / "emulated", "-O0")
    inputs = make_inputs()
    inputs["p"] = np.zeros((ROWS, KEYS), np.float32)
    dtypes = {**DTYPES, "p": "fp32"}
    ours, _ = codegen.run(emulated, tmp_path / "r_emulated", inputs, dtypes, ["p"])
    monkeypatch.setenv("PTO_CPU_SIM_UB_BYTES", str(pto_isa.REAL_SIM_ARCH["a3"][1]))
    theirs, _ = codegen.run(real, tmp_path / "r_real", inputs, dtypes, ["p"])
    for level, out in (("the emulation", ours), ("pto-isa's CPU simulator", theirs)):
        check(out, inputs, f"f32 C++ on {level}", tolerance=1e-5)
    differ = int((ours["p"] != theirs["p"]).sum())
    assert differ == 0, f"{differ} probabilities differ between the emulation and pto-isa"
