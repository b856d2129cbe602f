"""pto-nbuffer-merge, executed: pto-run before and after the pass, outputs bitwise equal.

Merging isomorphic vector tasks only moves whole task bodies next to each
other, never across a task that touches the same GM region, so every output
must stay bitwise equal on the same inputs.

- Every hand-written kernel of test/Dialect/PTO/nbuffer-merge.mlir.
- SK-16 (small tiles: several pieces per vector op) partitioned, with
  settings that merge by 2, 4 and 16 and the automatic choice.
- SK-01 partitioned at the pto-isa FA kernel's tiles and at small tiles, with
  its own setting `{-1 : 8}`; and SK-01 through the whole tile-graph pipeline
  against its golden, with the pass on and off.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from pto_mlir import sk01_ir, sk16_ir
from pto_mlir.golden import sk01, sk16
from pto_mlir.tools import (REPO_ROOT, assert_bitwise, compile_tile_graph, run_kernel,
                            run_pass_totals, run_random, run_tool)

REPORT = re.compile(r"vector tasks per block instance: before (\d+), after (\d+)")
PARTITION = "builtin.module(pto-flatten-scopes,pto-expand-tiles,pto-partition)"


def nbuffer_merge(source: Path, out: Path) -> tuple[int, int]:
    """Runs the pass; returns the (before, after) task counts of its report."""
    return run_pass_totals("-pto-nbuffer-merge=report=true", REPORT, source, out)


def partition(source: Path, out: Path):
    r = run_tool("pto-opt", source, f"--pass-pipeline={PARTITION}", "-o", out)
    assert r.returncode == 0, r.stderr[-3000:]


LIT_FILE = REPO_ROOT / "test" / "Dialect" / "PTO" / "nbuffer-merge.mlir"


def lit_kernels():
    chunks = LIT_FILE.read_text().split("\n// -----\n")
    kernels = {}
    for chunk in chunks:
        types = "\n".join(l for l in chunk.splitlines() if l.startswith(("!", "#")))
        for m in re.finditer(r"^pto\.kernel @(\w+).*?^}$", chunk, re.S | re.M):
            kernels[m.group(1)] = types + "\n" + m.group(0)
    return kernels


@pytest.mark.parametrize("name", sorted(lit_kernels()))
def test_lit_kernel(name, tmp_path):
    source = tmp_path / f"{name}.mlir"
    source.write_text(lit_kernels()[name])
    merged = tmp_path / f"{name}_nb.mlir"
    nbuffer_merge(source, merged)
    assert_bitwise(run_random(source, tmp_path / "before"),
                   run_random(merged, tmp_path / "after"), equal_nan=True)


SK16_SMALL = dict(s1_tile=96, s2_tile=112, c_tile=(64, 128, 64, 128, 64, 128),
                  v_tile_s=(16, 128), v_tile_d=(16, 128))


@pytest.mark.parametrize("setting", ["{-1 : 2}", "{-1 : 4}", "{0 : 16, -1 : 1}", None])
def test_sk16_partitioned(setting, tmp_path):
    case = sk16.CASES["test_09"]
    cfg = sk16_ir.Sk16Config(heads=case.N, head_dim=case.D, vec_nbuffer_setting=setting,
                             **SK16_SMALL)
    source = tmp_path / "sk16.mlir"
    source.write_text(sk16_ir.emit(cfg))
    partitioned = tmp_path / "partitioned.mlir"
    partition(source, partitioned)
    merged = tmp_path / "merged.mlir"
    before, after = nbuffer_merge(partitioned, merged)
    if setting is None:  # automatic: groups of at most 48 tasks stay
        assert after == before
    else:
        assert after < before
    inputs = sk16.make_inputs(case, seed=3)

    def run(kernel, directory):
        out, _ = run_kernel(kernel, directory, inputs, sk16.DTYPES, sk16.OUTPUT_NAMES,
                            names=sk16.INPUT_NAMES)
        return out

    reference = run(partitioned, tmp_path / "before")
    assert_bitwise(reference, run(merged, tmp_path / "after"), equal_nan=True)


SK01_CONFIGS = {
    # The pto-isa FA kernel's tiles (benchmarks/cost_model.py), head dim 32.
    "pto-isa": dict(q_tile=128, kv_tile=256, c1_tile=(128, 128, 32, 32, 128, 128),
                    c2_tile=(128, 128, 128, 128, 32, 32), v1_tile=(32, 256), v2_tile=(32, 32)),
    "small": dict(q_tile=40, kv_tile=24, c1_tile=(32, 64, 32, 64, 32, 64),
                  c2_tile=(32, 64, 32, 64, 32, 64), v1_tile=(16, 64), v2_tile=(16, 64)),
}


def sk01_source(tmp_path: Path, config: str, case) -> Path:
    source = tmp_path / "sk01.mlir"
    source.write_text(sk01_ir.emit(sk01_ir.Sk01Config(heads=case.N, head_dim=case.D,
                                                      **SK01_CONFIGS[config])))
    return source


def run_sk01(kernel: Path, directory: Path, inputs: dict) -> dict:
    out, _ = run_kernel(kernel, directory, inputs, sk01.DTYPES, sk01.OUTPUT_NAMES,
                        names=sk01.INPUT_NAMES)
    return out


@pytest.mark.parametrize("config", sorted(SK01_CONFIGS))
def test_sk01_partitioned(config, tmp_path):
    case = sk16.CASES["test_09"]
    partitioned = tmp_path / "partitioned.mlir"
    partition(sk01_source(tmp_path, config, case), partitioned)
    merged = tmp_path / "merged.mlir"
    before, after = nbuffer_merge(partitioned, merged)
    assert after < before
    inputs = sk01.make_inputs(case, seed=7, fill=np.nan)
    assert_bitwise(run_sk01(partitioned, tmp_path / "before", inputs),
                   run_sk01(merged, tmp_path / "after", inputs), equal_nan=True)


@pytest.mark.parametrize("config", sorted(SK01_CONFIGS))
def test_sk01_pipeline_against_golden(config, tmp_path):
    """The whole tile-graph pipeline with and without the pass: the same bits,
    and the golden's tolerance; fewer launches with it."""
    case = sk16.CASES["test_09"]
    source = sk01_source(tmp_path, config, case)
    inputs = sk01.make_inputs(case, seed=11, fill=np.nan)
    outs, launches = {}, {}
    for nbuffer in ("true", "false"):
        compiled = compile_tile_graph(source, tmp_path / f"tg_{nbuffer}.mlir",
                                      f"nbuffer={nbuffer}")
        launches[nbuffer] = compiled.read_text().count("pto.launch")
        outs[nbuffer] = run_sk01(compiled, tmp_path / nbuffer, inputs)
    assert launches["true"] < launches["false"]
    assert_bitwise(outs["false"], outs["true"], equal_nan=True)
    for name, (ok, ratio, err) in sk01.check_outputs(outs["true"], inputs, case.N, case.D).items():
        assert ok, f"{name}: |out - gold| reaches {ratio:.3g} x the allowed error"
