"""pto-mix-exchange (DAV_3510), executed: SK-16's S and dP handed to the
vector cores on chip (docs/TileGraph.md#on-chip-exchanges).

- The tile graph with MIX tasks runs in pto-run and gives the same outputs,
  bitwise, as without the pass (it only moves ops between tasks), and
  matches the golden.
- The cost model sees the exchanges as on-chip moves: the workspace traffic
  drops by exactly twice the on-chip bytes (each piece was written and read
  back through GM), and the on-chip bytes are those of S and dP.
- A DAV_2201 kernel is left unchanged; so is a 950 kernel whose vector
  pieces straddle two cube pieces (the A3 tiles' 64 x 256 S pieces over
  256 x 128 cube pieces).
- It is the pipelines' default for DAV_3510 kernels; `mix-exchange=false`
  keeps every exchange in GM.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from pto_mlir import sk16_ir
from pto_mlir.golden import sk16
from pto_mlir.tools import compile_tile_graph, run_kernel, run_tile_graph, run_tool

# Small tiles: several blocks per sequence (with tails), cube pieces of
# 64 x 64 and vector pieces inside them (32 x 64: each reads one cube piece,
# as the on-chip move requires).
SMALL = dict(s1_tile=256, s2_tile=256, c_tile=(64, 128, 64, 128, 64, 128),
             v_tile_s=(32, 64), v_tile_d=(64, 64))
STATIONARY = "cube-stationary=true mix-exchange=false"
MIX = "cube-stationary=true mix-exchange=true"
NUM = r"([0-9.]+)"


def compile_sk16(tmp: Path, case, options: str, arch: str = "DAV_3510") -> Path:
    source = tmp / f"sk16_{arch}.mlir"
    source.write_text(sk16_ir.emit(sk16_ir.Sk16Config(heads=case.N, head_dim=case.D,
                                                      arch=arch, **SMALL)))
    out = tmp / f"sk16_{arch}_{options.replace(' ', '_').replace('=', '')}.mlir"
    return compile_tile_graph(source, out, options)


def test_sk16_on_chip_matches_golden(tmp_path):
    case = sk16.CASES["test_08"]
    before = compile_sk16(tmp_path, case, STATIONARY)
    after = compile_sk16(tmp_path, case, MIX)
    text = after.read_text()
    assert "pto.leaf = #pto.core<mix>" in text and "#pto.core<mix>" not in before.read_text()
    assert text.count("{pto.on_chip}") >= 2, "S and dP should stay on chip"
    # The stitch plan counts no GM for them.
    plan = re.compile(r"workspace_bytes = (\d+)")
    assert max(map(int, plan.findall(text))) < max(map(int, plan.findall(before.read_text())))
    inputs = sk16.make_inputs(case, seed=3)
    outs = {}
    for name, kernel in (("before", before), ("after", after)):
        outs[name], _ = run_kernel(kernel, tmp_path / name, inputs, sk16.DTYPES,
                                   sk16.OUTPUT_NAMES, names=sk16.INPUT_NAMES)
    for name in sk16.OUTPUT_NAMES:
        assert np.array_equal(outs["before"][name], outs["after"][name]), f"{name} changed"
    sk16.assert_matches_golden(outs["after"], sk16.golden_backward(inputs, case.N, case.D))

    # The model: S and dP (C1 -> V1) and dQ, dK, dV (C2 -> V2; whole K
    # chains at these tiles), FP32, every block pair, move L0C -> UB
    # instead of a GM round trip.
    reports = {}
    for name, kernel in (("before", before), ("after", after)):
        r = run_tool("pto-run", kernel, "--input-dir", tmp_path / name, "--simulate=950",
                     "--no-numerics", f"--sim-dump-graph={tmp_path / name / 'graph.json'}")
        assert r.returncode == 0, r.stderr[-3000:]
        reports[name] = r.stdout
    # With numerics the same report; the dumped graph (MIX launches marked)
    # re-schedules to the same time (the graph does not carry the kernel's
    # device_sched_mode).
    data = tmp_path / "data"
    data.mkdir()
    from pto_mlir.tools import input_args
    numeric = run_tool("pto-run", after, *input_args(data, inputs, sk16.DTYPES,
                                                     sk16.INPUT_NAMES), "--simulate=950")
    assert numeric.returncode == 0, numeric.stderr[-3000:]
    assert numeric.stdout == reports["after"]
    # The progress reporter passes the on-chip moves on to the model.
    progress = run_tool("pto-run", after, "--input-dir", tmp_path / "after", "--simulate=950",
                        "--no-numerics", "--progress")
    assert progress.returncode == 0 and progress.stdout == reports["after"]
    graph = run_tool("pto-run", tmp_path / "after" / "graph.json", "--sim-graph", "--simulate=950",
                     "--sim-sched-mode=3")  # the kernel's device_sched_mode
    assert graph.returncode == 0, graph.stderr[-3000:]
    time_us = re.compile(rf"time: {NUM} us")
    assert time_us.search(graph.stdout).group(1) == time_us.search(reports["after"]).group(1)
    assert '"mix":true' in (tmp_path / "after" / "graph.json").read_text()
    workspace = {k: float(re.search(rf"workspace {NUM} MiB", v).group(1))
                 for k, v in reports.items()}
    on_chip = re.search(rf"on-chip exchanges \(L0C -> UB in MIX launches\): {NUM} MiB",
                        reports["after"])
    assert on_chip and "on-chip" not in reports["before"]
    exchanged = 0
    for s1, s2 in zip(case.q_seqlens, case.kv_seqlens):
        for i in range(0, s1, SMALL["s1_tile"]):
            t1 = min(SMALL["s1_tile"], s1 - i)
            for j in range(0, s2, SMALL["s2_tile"]):
                t2 = min(SMALL["s2_tile"], s2 - j)
                exchanged += 4 * (2 * t1 * t2 + (t1 + 2 * t2) * case.D)
    assert float(on_chip.group(1)) == pytest.approx(case.N * exchanged / 2**20, abs=1e-3)
    assert workspace["before"] - workspace["after"] == pytest.approx(
        2 * float(on_chip.group(1)), abs=1e-3)
    assert re.search(r"family M1: \d+ launches", reports["after"])


def test_default_on_dav3510(tmp_path):
    """The tile-graph pipeline's defaults on a DAV_3510 kernel are the MIX
    form; mix-exchange=false is the operand-stationary GM form."""
    case = sk16.CASES["test_08"]
    default = compile_sk16(tmp_path, case, "").read_text()
    assert default == compile_sk16(tmp_path, case, MIX).read_text()
    assert "{pto.on_chip}" in default
    assert "#pto.core<mix>" not in compile_sk16(tmp_path, case, STATIONARY).read_text()


def test_unchanged_on_a3(tmp_path):
    case = sk16.CASES["test_05"]
    outs = [compile_sk16(tmp_path, case, options, arch="DAV_2201").read_text()
            for options in (STATIONARY, MIX)]
    assert outs[0] == outs[1]


def test_straddling_pieces_stay_in_gm(tmp_path):
    """At the A3 tiles a 64 x 256 S piece spans two 256 x 128 cube pieces:
    S and dP stay in GM on the 950 too (dQ, dK, dV, whose pieces lie inside
    the cube pieces at D = 64, go on chip)."""
    case = sk16.CASES["test_05"]
    source = tmp_path / "sk16.mlir"
    source.write_text(sk16_ir.emit(sk16_ir.Sk16Config(heads=case.N, head_dim=case.D,
                                                      arch="DAV_3510")))
    # Without operand-stationary tasks: at D = 64 those split the dQ / dK / dV
    # chains into partial sums added by atomic_add, which only GM can hold.
    text = compile_tile_graph(source, tmp_path / "tg.mlir",
                              "cube-stationary=false mix-exchange=true").read_text()
    assert "pto.workspace {pto.on_chip} : !pto.tensor<2048x2048xf32>" not in text
    assert "pto.workspace {pto.on_chip} : !pto.tensor<2048x64xf32>" in text


@pytest.mark.parametrize("mix", [False, True])
def test_mix_launch_holds_two_vector_cores(mix, tmp_path):
    """32 MIX launches hold the 950's 64 AIVs: a vector launch ready beside
    them waits for one to end (a graph without the mark runs it at once)."""
    import json
    body = [0, 0, 10, 0, 0, 0]  # pipes_us: 10 us of M
    launches = [{"name": "m", "pool": "cube", "mix": mix, "pipes_us": body}
                for _ in range(32)]
    launches.append({"name": "v", "pool": "vector", "pipes_us": [0, 0, 0, 0, 10, 0]})
    graph = tmp_path / "g.json"
    graph.write_text(json.dumps({"arch": "DAV_3510", "tensors": {"t": 1},
                                 "launches": launches}))
    r = run_tool("pto-run", graph, "--sim-graph", "--simulate=950",
                 "--sim-launch-overhead-us=0", "--sim-submit-us=0")
    assert r.returncode == 0, r.stderr[-3000:]
    time_us = float(re.search(rf"time: {NUM} us", r.stdout).group(1))
    assert time_us == pytest.approx(20.0 if mix else 10.0, abs=1e-6)


# Small tiles: a MIX task's moved windows all fit a ring of distinct UB
# slots (docs/ISA.md, "MIX leaves"); test_sk16_ring_at_dav3510_tiles
# refills them.
EMITTED = dict(s1_tile=128, s2_tile=128, c_tile=(64, 128, 64, 128, 64, 128),
               v_tile_s=(32, 64), v_tile_d=(64, 64))


def _sk16_tile_graph_matches(source, tmp_path, inputs, gold) -> str:
    """SK-16 compiled to the tile graph with MIX, run through pto-run and
    checked against the golden; the tile graph's text."""
    interpreted, _ = run_tile_graph(source, tmp_path / "tg", inputs, sk16.DTYPES,
                                    sk16.OUTPUT_NAMES, options=MIX, names=sk16.INPUT_NAMES)
    sk16.assert_matches_golden(interpreted, gold)
    return (tmp_path / "tg" / "tile_graph.mlir").read_text()


def test_sk16_on_chip_emitted_cpp(tmp_path):
    """The on-chip form is executable: the Ascend pipeline with
    mix-exchange=true lowers the MIX tasks (S and dP windows moved L0C -> UB),
    splits them into AIC and AIV kernels with intra-block flags, and the
    emitted C++ runs on the emulation (flags and cross-core hazards
    checked) against the golden, as pto-run does on the same tile graph."""
    from pto_mlir import codegen
    case = sk16.CASES["test_08"]
    source = tmp_path / "sk16.mlir"
    source.write_text(sk16_ir.emit(sk16_ir.Sk16Config(heads=case.N, head_dim=case.D,
                                                      arch="DAV_3510", **EMITTED)))
    inputs = sk16.make_inputs(case, seed=5)
    gold = sk16.golden_backward(inputs, case.N, case.D)
    # The tile graph in pto-run.
    assert "{pto.on_chip}" in _sk16_tile_graph_matches(source, tmp_path, inputs, gold)
    # The emitted program.
    exe = codegen.build(source, tmp_path / "build",
                        pipeline=f"pto-ascend-pipeline{{{MIX}}},pto-isa-verify-sync")
    cpp = (tmp_path / "build" / "sk16.cpp").read_text()
    assert "ri.launch_mix(" in cpp and "set_intra_block(PIPE_FIX" in cpp
    assert "wait_intra_block(PIPE_S" in cpp
    out, _ = codegen.run(exe, tmp_path / "run", inputs, sk16.DTYPES, sk16.OUTPUT_NAMES,
                         names=sk16.INPUT_NAMES)
    sk16.assert_matches_golden(out, gold)
    # MIX launches on worker threads, in a shuffled ready order.
    out, _ = codegen.run(exe, tmp_path / "threads", inputs, sk16.DTYPES, sk16.OUTPUT_NAMES,
                         "--threads", "2", "--shuffle-seed", "3", names=sk16.INPUT_NAMES)
    sk16.assert_matches_golden(out, gold)


def test_sk16_ring_at_dav3510_tiles(tmp_path):
    """SK-16 at the DAV_3510 compile's tiles (test_02's: rectangles of
    256 x 128 FP32 cube pieces, 64 x 128 vector pieces), one 1024 x 1024
    block pair: each MIX task moves accumulator windows of 32 KiB, far more
    than an AIV's UB. They take turns in a ring of
    UB slots (the AIC waits for the AIV's "slot free" flag before each
    refill, docs/ISA.md "MIX leaves"); the emitted C++ runs on the emulation
    (flags, deadlock and cross-core hazards checked) and matches the golden,
    as the tile graph does in pto-run. The vector part runs on both AIVs,
    each with its own ring."""
    from pto_mlir import codegen
    case = sk16.Sk16Case("ring", [1024], [1024], 1, 128)
    source = tmp_path / "sk16.mlir"
    source.write_text(sk16_ir.emit(sk16_ir.Sk16Config(heads=case.N, head_dim=case.D,
                                                      arch="DAV_3510", v_tile_s=(64, 128))))
    inputs = sk16.make_inputs(case, seed=9)
    gold = sk16.golden_backward(inputs, case.N, case.D)
    _sk16_tile_graph_matches(source, tmp_path, inputs, gold)
    exe = codegen.build(source, tmp_path / "build",
                        pipeline=f"pto-ascend-pipeline{{{MIX}}},pto-isa-verify-sync")
    cpp = (tmp_path / "build" / "sk16.cpp").read_text()
    # One MIX leaf's AIC part: its window moves exceed UB (256 KiB) many
    # times over, and it refills slots after the AIV freed them.
    aic = cpp[cpp.index("AICORE void sk16_attention_backward_leaf_M1_0("):]
    aic = aic[:aic.index("#endif")]
    moves = aic.count("set_intra_block(PIPE_FIX, ")  # one "filled" per move
    assert moves * 64 * 128 * 4 > 4 * 256 * 1024, moves
    assert "wait_intra_block(PIPE_FIX, " in aic
    # The vector part on both AIVs, as the cost model charges it (docs/ISA.md
    # "MIX leaves", two AIVs): half of the windows move into AIV 1's UB
    # (SingleModeVec1, its flags at id + 16 on the AIC), and AIV 1 runs as
    # many vector instructions as AIV 0.
    assert aic.count("AccToVecMode::SingleModeVec1>") * 2 == moves
    assert "set_intra_block(PIPE_FIX, 16);" in aic and "wait_intra_block(PIPE_FIX, 1" in aic

    def body(name: str) -> str:
        text = cpp[cpp.index(f"void {name}("):]
        return text[:text.index("\n}\n")]
    parts = [body("sk16_attention_backward_leaf_M1_0_aiv"),
             body("sk16_attention_backward_leaf_M1_0_aiv1")]
    assert "sk16_attention_backward_leaf_M1_0_aiv1(" in parts[0]  # AIV 0's kernel calls it
    instructions = [len(re.findall(r"\bT[A-Z][A-Z0-9_]*\(", p)) for p in parts]
    stores = [p.count("TSTORE(") for p in parts]
    assert instructions[0] == instructions[1] > 0 and stores[0] == stores[1] > 0, (
        instructions, stores)
    out, _ = codegen.run(exe, tmp_path / "run", inputs, sk16.DTYPES, sk16.OUTPUT_NAMES,
                         names=sk16.INPUT_NAMES)
    sk16.assert_matches_golden(out, gold)
