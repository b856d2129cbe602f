"""SK-16 through the tile-graph passes, executed before and after each pass.

`pto-run` executes every stage. Each pass is checked against the stage before
it on the same inputs:
- pto-flatten-scopes, pto-partition and everything after expansion only move
  or group ops: outputs must be bitwise equal;
- pto-expand-tiles splits matmul K and reductions into pieces, which changes
  the FP32 accumulation order (~1e-7 relative). Through the BF16 casts of P
  and dS such a difference can flip the rounding of an element by one BF16
  ulp (2^-8 relative), so outputs must agree to 2^-8 of the largest output;
  a lost or misplaced piece moves outputs by the size of the values.
At the end of the whole pipeline the SK-16 case matrix must pass against the
NumPy golden, with small tiles and with the A3 tiles.
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pytest

from pto_mlir import sk16_ir
from pto_mlir.golden import sk16
from pto_mlir.tools import compile_tile_graph, run_kernel, run_tool

SMALL = dict(s1_tile=96, s2_tile=112, c_tile=(64, 128, 64, 128, 64, 128),
             v_tile_s=(32, 128), v_tile_d=(32, 128))
CONFIGS = {"a3": {}, "small": SMALL}

# Prefixes of the pipeline, each checked against the previous one.
STAGES = [
    ("flatten", "pto-flatten-scopes", "bitwise"),
    ("hoist", "pto-flatten-scopes,pto-hoist-invariants", "bitwise"),
    ("expand", "pto-flatten-scopes,pto-hoist-invariants,pto-expand-tiles", "reorder"),
    ("partition", "pto-flatten-scopes,pto-hoist-invariants,pto-expand-tiles,pto-partition",
     "bitwise"),
    ("pipeline", "pto-tile-graph-pipeline", "bitwise"),
]

TEST_CASES = [name for name, case in sk16.CASES.items() if not case.benchmark_only]


@functools.lru_cache(maxsize=None)
def kernel(tmp_root: str, N: int, D: int, config: str, pipeline: str | None) -> Path:
    source = Path(tmp_root) / f"sk16_n{N}_d{D}_{config}.mlir"
    if not source.exists():
        source.write_text(sk16_ir.emit(sk16_ir.Sk16Config(heads=N, head_dim=D, **CONFIGS[config])))
    if pipeline is None:
        return source
    out = Path(tmp_root) / f"sk16_n{N}_d{D}_{config}_{abs(hash(pipeline))}.mlir"
    if not out.exists():
        r = run_tool("pto-opt", source, f"--pass-pipeline=builtin.module({pipeline})", "-o", out)
        assert r.returncode == 0, r.stderr[-3000:]
    return out


def run(kernel_path: Path, directory: Path, inputs: dict) -> dict:
    out, _ = run_kernel(kernel_path, directory, inputs, sk16.DTYPES, sk16.OUTPUT_NAMES,
                        names=sk16.INPUT_NAMES)
    return out


@pytest.fixture(scope="module")
def kernels_dir(tmp_path_factory):
    return str(tmp_path_factory.mktemp("tile_graph"))


@pytest.mark.parametrize("config", ["small", "a3"])
@pytest.mark.parametrize("case_name", ["test_09", "test_05"])
def test_each_pass_preserves_semantics(case_name, config, kernels_dir, tmp_path):
    case = sk16.CASES[case_name]
    inputs = sk16.make_inputs(case, seed=3)
    before = run(kernel(kernels_dir, case.N, case.D, config, None), tmp_path, inputs)
    for stage, pipeline, rule in STAGES:
        after = run(kernel(kernels_dir, case.N, case.D, config, pipeline), tmp_path, inputs)
        for name in sk16.OUTPUT_NAMES:
            if rule == "bitwise":
                assert np.array_equal(after[name], before[name]), f"{stage} changed {name}"
            else:
                err = float(np.abs(after[name].astype(np.float64) - before[name]).max())
                bound = 2.0**-8 * float(np.abs(before[name]).max())
                assert err <= bound, f"{stage}: {name} moved by {err:.3g} > {bound:.3g}"
        before = after


@pytest.mark.parametrize("config", ["small", "a3"])
@pytest.mark.parametrize("case_name", TEST_CASES)
def test_case_matrix_at_the_end_of_the_pipeline(case_name, config, kernels_dir, tmp_path):
    case = sk16.CASES[case_name]
    inputs = sk16.make_inputs(case, seed=42)
    gold = sk16.golden_backward(inputs, case.N, case.D)
    out = run(kernel(kernels_dir, case.N, case.D, config, "pto-tile-graph-pipeline"),
              tmp_path, inputs)
    sk16.assert_matches_golden(out, gold)


def test_sk16_partitions_into_c1_v1_c2_v2(kernels_dir):
    """The A3 SK-16 comes out as the four task families of docs/SK16.md#gm-workspace-on-a2a3."""
    partitioned = kernel(kernels_dir, 8, 64, "a3",
                         "pto-flatten-scopes,pto-expand-tiles,pto-partition")
    text = partitioned.read_text()
    families = {}
    for line in text.splitlines():
        if "pto.task #pto.core<" in line:
            kind = line.split("#pto.core<")[1].split(">")[0]
            family = line.split('"')[1]
            families.setdefault((kind, family), 0)
            families[(kind, family)] += 1
    # Per (s1, s2) block pair at D = 64: S and dP in 256x128 output blocks
    # (2 x 8 x 16), one V1 task per 32-row block (v_tile_s [64, 256] halved
    # by pto-expand-tiles so that P, dP - Dvec and dS fit UB at once),
    # dV/dQ/dK in 256x64 blocks (3 x 8), and the three atomics of V2 in
    # 256-row pieces (3 x 8).
    assert families == {("cube", "C1"): 256, ("vector", "V1"): 64,
                        ("cube", "C2"): 24, ("vector", "V2"): 24}
    # Exactly the intermediates docs/SK16.md#gm-workspace-on-a2a3 lists live in GM workspace:
    # S, dP (C1 -> V1), P_bf, dS_bf (V1 -> C2), dV_t, dQ_t, dK_t (C2 -> V2).
    workspaces = sorted(line.split(": ")[-1] for line in text.splitlines()
                        if "pto.workspace" in line)
    assert workspaces == sorted(["!pto.tensor<2048x2048xf32>"] * 2 +
                                ["!pto.tensor<2048x2048xbf16>"] * 2 +
                                ["!pto.tensor<2048x64xf32>"] * 3)


SK01_SMALL = dict(q_tile=40, kv_tile=24, c1_tile=(32, 64, 32, 64, 32, 64),
                  c2_tile=(32, 64, 32, 64, 32, 64), v1_tile=(16, 64), v2_tile=(16, 64))


@pytest.mark.parametrize("config", ["small", "a3"])
@pytest.mark.parametrize("case_name", ["test_09", "test_04"])
def test_sk01_through_the_pipeline(case_name, config, kernels_dir, tmp_path):
    """SK-01 (loop-carried accumulators, first/last-iteration branches) keeps
    its results through the whole pipeline and still matches its golden."""
    from pto_mlir import sk01_ir
    from pto_mlir.golden import sk01

    case = sk16.CASES[case_name]
    source = Path(kernels_dir) / f"sk01_{case_name}_{config}.mlir"
    source.write_text(sk01_ir.emit(sk01_ir.Sk01Config(
        heads=case.N, head_dim=case.D, **(SK01_SMALL if config == "small" else {}))))
    compiled = Path(kernels_dir) / f"sk01_{case_name}_{config}_pipeline.mlir"
    compile_tile_graph(source, compiled)
    inputs = sk01.make_inputs(case, seed=5, fill=np.nan)

    before, _ = run_kernel(source, tmp_path / "before", inputs, sk01.DTYPES, sk01.OUTPUT_NAMES,
                           names=sk01.INPUT_NAMES)
    after, _ = run_kernel(compiled, tmp_path / "after", inputs, sk01.DTYPES, sk01.OUTPUT_NAMES,
                          names=sk01.INPUT_NAMES)
    for name, (ok, ratio, err) in sk01.check_outputs(after, inputs, case.N, case.D).items():
        assert ok, f"{name}: {ratio:.3g} x the allowed error"
    # Expansion reorders FP32 sums (matmul K steps, row sums): l and m stay
    # within a few FP32 ulps of the program-level run.
    for name in ("l_output", "m_output"):
        np.testing.assert_allclose(after[name], before[name], rtol=2.0**-18, atol=1e-7)
