"""pto-l1-reuse, executed: pto-run before and after the pass, outputs bitwise equal.

Merging cube tasks and removing duplicate GM->L1 copy-ins only moves ops
between tasks and replaces a load by an identical earlier one, so every
output must stay bitwise equal on the same inputs (`--random 1`: the
interpreter applies atomics in program order, and the pass never moves a
task across one that touches the same GM region).

- Generated grids of output tiles (pto_mlir.partitioned_matmul): several K
  steps, batch loops with dynamic row offsets (computed in the block or
  inside each task), settings, sides, automatic mode on a large group.
- Every hand-written kernel of test/Dialect/PTO/l1-reuse.mlir.
- SK-16 after pto-flatten-scopes, pto-expand-tiles, pto-partition, with small
  cube tiles so that C1 output blocks share Q and K blocks.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from pto_mlir import partitioned_matmul, sk16_ir
from pto_mlir.golden import sk16
from pto_mlir.tools import (REPO_ROOT, TILE_GRAPH_STATIONARY, assert_bitwise, run_kernel,
                            run_pass_totals, run_random, run_tool)

REPORT = re.compile(r"GM->L1 bytes per block instance: before (\d+), after (\d+)")


def l1_reuse(source: Path, out: Path) -> tuple[int, int]:
    """Runs the pass; returns the (before, after) bytes of its report."""
    return run_pass_totals("-pto-l1-reuse=report=true", REPORT, source, out)


GRIDS = {
    # SK-16's setting on a 4x4 grid with two K steps.
    "sk16-setting": dict(m=128, n=128, k=64, setting="{-1 : 1, 0 : 4}"),
    # Everything one group may share, rows and columns.
    "all": dict(m=64, n=64, k=96, setting="{-1 : 16}"),
    "left": dict(m=64, n=128, k=64, setting='{0 : (3, "left")}'),
    "right": dict(m=128, n=64, k=64, setting='{0 : (2, "right")}'),
    # Dynamic row offsets in a batch loop.
    "batch": dict(m=64, n=128, k=64, batch=3, setting="{-1 : 4}"),
    "batch-inline": dict(m=64, n=128, k=64, batch=2, inline_index=True, setting="{-1 : 4}"),
    # Automatic: 64 tasks on DAV_2201 merge down to 48.
    "auto": dict(m=256, n=256, k=32),
    # L1-limited: 128 KiB blocks, three tasks per merged task.
    "l1": dict(m=128, n=512, k=512, tm=128, tn=128, tk=512, setting="{0 : 4}"),
}


@pytest.mark.parametrize("name", sorted(GRIDS))
def test_generated_grid(name, tmp_path):
    source = tmp_path / "k.mlir"
    source.write_text(partitioned_matmul.emit(partitioned_matmul.MatmulConfig(**GRIDS[name])))
    merged = tmp_path / "k_l1.mlir"
    before_bytes, after_bytes = l1_reuse(source, merged)
    assert after_bytes < before_bytes, "the pass removed no load"
    assert merged.read_text().count("pto.task") < source.read_text().count("pto.task")
    assert_bitwise(run_random(source, tmp_path / "before"), run_random(merged, tmp_path / "after"))


# Phase 2 (cube_nbuffer_setting): merged tasks share nothing, so the copy-in
# bytes stay and the tasks get fewer.
NBUFFER_GRIDS = {
    "nbuffer-only": dict(m=64, n=128, k=64, setting="{-1 : 1}", nbuffer="{-1 : 3}"),
    "after-reuse": dict(m=128, n=128, k=64, setting="{-1 : 2}", nbuffer="{-1 : 2}"),
    "batch": dict(m=64, n=64, k=64, batch=2, setting="{-1 : 1}", nbuffer="{-1 : 4}"),
}


@pytest.mark.parametrize("name", sorted(NBUFFER_GRIDS))
def test_generated_grid_nbuffer(name, tmp_path):
    cfg = partitioned_matmul.MatmulConfig(**NBUFFER_GRIDS[name])
    source = tmp_path / "k.mlir"
    source.write_text(partitioned_matmul.emit(cfg))
    without = tmp_path / "k_reuse.mlir"
    without_cfg = partitioned_matmul.MatmulConfig(**dict(NBUFFER_GRIDS[name], nbuffer=""))
    (tmp_path / "k0.mlir").write_text(partitioned_matmul.emit(without_cfg))
    l1_reuse(tmp_path / "k0.mlir", without)
    merged = tmp_path / "k_l1.mlir"
    l1_reuse(source, merged)
    assert merged.read_text().count("pto.task") < without.read_text().count("pto.task")
    assert_bitwise(run_random(source, tmp_path / "before"), run_random(merged, tmp_path / "after"))


LIT_FILE = REPO_ROOT / "test" / "Dialect" / "PTO" / "l1-reuse.mlir"


def lit_kernels():
    chunks = LIT_FILE.read_text().split("\n// -----\n")
    return {re.search(r"pto\.kernel @(\w+)", c).group(1): c for c in chunks}


@pytest.mark.parametrize("name", sorted(lit_kernels()))
def test_lit_kernel(name, tmp_path):
    source = tmp_path / f"{name}.mlir"
    source.write_text(lit_kernels()[name])
    merged = tmp_path / f"{name}_l1.mlir"
    l1_reuse(source, merged)
    assert_bitwise(run_random(source, tmp_path / "before"), run_random(merged, tmp_path / "after"))


# SK-16 tile configs: "reuse" has cube tiles of 32 x 32 output blocks (K = D
# = 64 in one step for C1), so each 128 x 128 S and dP block is a 4 x 4 grid
# whose columns share K / V blocks and whose rows share Q / dO blocks; "a3"
# is the reference kernel's (2048 x 2048 blocks of 256 x 128 output tiles).
SK16_TILES = {
    "reuse": dict(s1_tile=128, s2_tile=128, c_tile=(32, 64, 64, 128, 32, 64),
                  v_tile_s=(32, 128), v_tile_d=(32, 128)),
    "a3": {},
}
# SK-16's own setting, everything merged by 4, B blocks only, the cheapest
# side, and automatic ({}: the 4 x 4 grids of "reuse" are below 2 x 24 tasks
# and stay, the 256-task C1 group of "a3" merges).
SK16_RUNS = [(case, "reuse", setting)
             for case in ("test_05", "test_09")
             for setting in ("{-1 : 1, 0 : 4}", "{-1 : 4}", '{-1 : (2, "right")}',
                             '{-1 : 1, 0 : (4, "auto")}', "{}")]
SK16_RUNS += [("test_09", "a3", setting)
              for setting in ("{-1 : 1, 0 : 4}", '{-1 : 1, 0 : (4, "auto")}', "{}")]
PARTITION = "pto-flatten-scopes,pto-expand-tiles,pto-partition"


def run_sk16(kernel: Path, directory: Path, inputs: dict) -> dict:
    out, _ = run_kernel(kernel, directory, inputs, sk16.DTYPES, sk16.OUTPUT_NAMES,
                        names=sk16.INPUT_NAMES)
    return out


@pytest.mark.parametrize("case_name,tiles,setting", SK16_RUNS)
def test_sk16_partitioned(case_name, tiles, setting, tmp_path):
    case = sk16.CASES[case_name]
    cfg = sk16_ir.Sk16Config(heads=case.N, head_dim=case.D, cube_l1_reuse_setting=setting,
                             **SK16_TILES[tiles])
    source = tmp_path / "sk16.mlir"
    source.write_text(sk16_ir.emit(cfg))
    partitioned = tmp_path / "sk16_partitioned.mlir"
    r = run_tool("pto-opt", source, f"--pass-pipeline=builtin.module({PARTITION})",
                 "-o", partitioned)
    assert r.returncode == 0, r.stderr[-3000:]
    merged = tmp_path / "sk16_l1.mlir"
    before_bytes, after_bytes = l1_reuse(partitioned, merged)
    if tiles == "reuse" and setting == "{}":
        assert after_bytes == before_bytes, "automatic mode merged a group below 2 x 24"
    else:
        assert after_bytes < before_bytes, "no load shared in SK-16's C1 blocks"
    inputs = sk16.make_inputs(case, seed=7)
    before = run_sk16(partitioned, tmp_path / "before", inputs)
    after = run_sk16(merged, tmp_path / "after", inputs)
    for name in sk16.OUTPUT_NAMES:
        assert np.array_equal(before[name], after[name]), f"{name} changed"


# Operand-stationary mode (stationary=true, docs/TileGraph.md): rectangles
# only merge tasks and drop duplicate copy-ins (outputs bitwise equal); cut K
# chains add partial sums atomically (FP32 reordering of the K sum).
STATIONARY_GRIDS = {
    "rectangles": (dict(m=768, n=768, k=128, tm=128, tn=128, tk=128), True),
    "split": (dict(m=1024, n=128, k=2048, tm=256, tn=128, tk=128), False),
}


@pytest.mark.parametrize("name", sorted(STATIONARY_GRIDS))
def test_stationary_grid(name, tmp_path):
    cfg, exact = STATIONARY_GRIDS[name]
    source = tmp_path / "k.mlir"
    source.write_text(partitioned_matmul.emit(partitioned_matmul.MatmulConfig(**cfg)))
    merged = tmp_path / "k_l1.mlir"
    before_bytes, after_bytes = run_pass_totals(
        "-pto-l1-reuse=report=true stationary=true", REPORT, source, merged)
    assert after_bytes < before_bytes, "the rectangles shared no block"
    assert "operand-stationary" in run_tool(
        "pto-opt", source, "-pto-l1-reuse=report=true stationary=true",
        "-o", tmp_path / "again.mlir").stderr
    before = run_random(source, tmp_path / "before")
    after = run_random(merged, tmp_path / "after")
    if exact:
        assert_bitwise(before, after)
    else:
        assert "pto.atomic_add" in merged.read_text()
        for key in before:
            np.testing.assert_allclose(after[key], before[key], rtol=1e-5, atol=1e-5)


# test_02's compile (N = 8, D = 128) on a small case: C1 rectangles of 4
# resident Q / dO blocks x 16 streamed K / V blocks (more than L1 holds at
# once), C2 K chains in quarters and eighths.
STREAMED = sk16.Sk16Case("streamed", q_seqlens=(192,), kv_seqlens=(160,), N=8, D=128)


@pytest.mark.parametrize("case", [sk16.CASES["test_06"], sk16.CASES["test_09"], STREAMED],
                         ids=lambda c: c.name)
def test_sk16_stationary_matches_golden(case, tmp_path):
    """SK-16 at the A3 tiles through the tile-graph passes with the
    operand-stationary mode (the pipelines' default): C1 in rectangles, C2's
    K chains cut into partial sums (chosen by the model: test_06, D = 128,
    eighths; test_09, D = 64, quarters and eighths; streamed, N = 8, D =
    128, C1's K / V blocks streamed past resident Q / dO), the golden still
    matched by pto-run; test_06's later K parts lie past s1 = 64, so the
    empty-range guard is exercised."""
    source = tmp_path / "sk16.mlir"
    source.write_text(sk16_ir.emit(sk16_ir.Sk16Config(heads=case.N, head_dim=case.D)))
    tile_graph = tmp_path / "sk16_tg.mlir"
    r = run_tool("pto-opt", source,
                 f"--pass-pipeline=builtin.module({TILE_GRAPH_STATIONARY})", "-o", tile_graph)
    assert r.returncode == 0, r.stderr[-3000:]
    cube_leaves = [leaf for leaf in tile_graph.read_text().split("func.func private @")
                   if "pto.leaf = #pto.core<cube>" in leaf.split("\n", 1)[0]]
    assert cube_leaves
    assert any("pto.atomic_add" in leaf for leaf in cube_leaves)
    inputs = sk16.make_inputs(case, seed=42)
    out = run_sk16(tile_graph, tmp_path / "run", inputs)
    sk16.assert_matches_golden(out, sk16.golden_backward(inputs, case.N, case.D))
