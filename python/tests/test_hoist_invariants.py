"""pto-hoist-invariants on SK-16, executed: hoisting must not change one bit.

SK-16 runs through pto-run as emitted, after `pto-flatten-scopes`, and after
`pto-flatten-scopes,pto-hoist-invariants`. The hoisted kernel's dq/dk/dv must
be bitwise equal to the original's (atomic order is program order in both).
The run statistics must show exactly the work the pass removes: the Dvec
chain (13 ops: 4 offset ops, 5 views, 2 casts, the multiply, the row sum)
runs once per (b, n, s1 tile) instead of once per s2 tile, so against the
flattened kernel

    ops saved             = 13 * N * sum_b s1_loop_b * (s2_loop_b - 1)
    vector elements saved = 4 * D * N * sum_b s1_b * (s2_loop_b - 1)

(cast, cast, multiply and row sum each read a_s1 x D elements). A batch with
s2 = 0 makes the term negative: the hoisted ops run once although the s2 loop
does not (the documented zero-trip rule), and must not fault.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import numpy as np
import pytest

from pto_mlir import sk16_ir
from pto_mlir.golden import sk16
from pto_mlir.tools import run_kernel, run_tool

TILE_CONFIGS = {
    "a3": {},
    "small": dict(s1_tile=96, s2_tile=112, c_tile=(64, 128, 64, 128, 64, 128),
                  v_tile_s=(32, 128), v_tile_d=(32, 128)),
}

PIPELINES = {
    "flat": "builtin.module(pto-flatten-scopes)",
    "hoisted": "builtin.module(pto-flatten-scopes,pto-hoist-invariants)",
}

DVEC_CHAIN_OPS = 13

STATS = re.compile(r"pto-run: @\S+: (\d+) loop iterations, (\d+) ops, (\d+) matmul FLOP, "
                   r"(\d+) elements accumulated, (\d+) vector elements, ([0-9.]+) s")

ZEROS = sk16.Sk16Case("zeros", (0, 40, 17), (25, 0, 33), N=2, D=32)

# (case, tile config): small tiles give several s2 tiles per s1 tile; A3
# tiles one (nothing to save, nothing may change).
RUNS = [("test_09", "small"), ("test_07", "small"), ("test_01", "small"), ("test_05", "small"),
        ("test_09", "a3"), ("test_05", "a3"), ("zeros", "small")]


def get_case(name: str) -> sk16.Sk16Case:
    return ZEROS if name == "zeros" else sk16.CASES[name]


@functools.lru_cache(maxsize=None)
def kernels(tmp_root: str, N: int, D: int, config: str) -> dict:
    """The kernel as emitted ("orig") and after each pipeline."""
    cfg = sk16_ir.Sk16Config(heads=N, head_dim=D, **TILE_CONFIGS[config])
    root = Path(tmp_root)
    paths = {"orig": root / f"sk16_n{N}_d{D}_{config}.mlir"}
    paths["orig"].write_text(sk16_ir.emit(cfg))
    for name, pipeline in PIPELINES.items():
        paths[name] = root / f"sk16_n{N}_d{D}_{config}_{name}.mlir"
        r = run_tool("pto-opt", paths["orig"], f"--pass-pipeline={pipeline}", "-o", paths[name])
        assert r.returncode == 0, r.stderr
    return paths


def run(kernel: Path, directory: Path, inputs: dict):
    outputs, r = run_kernel(kernel, directory, inputs, sk16.DTYPES, sk16.OUTPUT_NAMES,
                            "--run-stats", names=sk16.INPUT_NAMES)
    m = STATS.search(r.stderr)
    assert m, r.stderr
    stats = dict(zip(("iterations", "ops", "flop", "atomic", "vector"), map(int, m.groups()[:5])))
    return outputs, stats


def expected_savings(case: sk16.Sk16Case, config: str):
    cfg = sk16_ir.Sk16Config(heads=case.N, head_dim=case.D, **TILE_CONFIGS[config])
    ops = vector = 0
    for s1, s2 in zip(case.q_seqlens, case.kv_seqlens):
        s1_loop = -(-s1 // cfg.s1_tile)
        s2_loop = -(-s2 // cfg.s2_tile)
        ops += DVEC_CHAIN_OPS * case.N * s1_loop * (s2_loop - 1)
        vector += 4 * case.D * case.N * s1 * (s2_loop - 1)
    return ops, vector


@pytest.fixture(scope="module")
def kernels_dir(tmp_path_factory):
    return str(tmp_path_factory.mktemp("kernels"))


@pytest.mark.parametrize("case_name,config", RUNS, ids=[f"{c}-{t}" for c, t in RUNS])
def test_hoisting_is_bitwise_neutral_and_saves_the_dvec_work(case_name, config, kernels_dir,
                                                              tmp_path):
    case = get_case(case_name)
    inputs = sk16.make_inputs(case, seed=11)
    paths = kernels(kernels_dir, case.N, case.D, config)
    results = {name: run(path, tmp_path / name, inputs) for name, path in paths.items()}

    orig_out = results["orig"][0]
    for name in ("flat", "hoisted"):
        for t in sk16.OUTPUT_NAMES:
            a, b = orig_out[t], results[name][0][t]
            assert a.shape == b.shape
            assert np.array_equal(a.view(np.uint32), b.view(np.uint32)), \
                f"{name}: {t} differs from the original kernel's in some bit"

    flat, hoisted, orig = results["flat"][1], results["hoisted"][1], results["orig"][1]
    # Same loops, same matmuls, same atomics.
    for key in ("iterations", "flop", "atomic"):
        assert flat[key] == hoisted[key] == orig[key], key
    # Flattening removes only pto.scope ops; vector work is unchanged by it.
    assert flat["vector"] == orig["vector"]
    ops_saved, vector_saved = expected_savings(case, config)
    assert flat["ops"] - hoisted["ops"] == ops_saved
    assert flat["vector"] - hoisted["vector"] == vector_saved
    if ops_saved > 0:
        assert hoisted["ops"] < orig["ops"] and hoisted["vector"] < orig["vector"]


@pytest.mark.parametrize("config", sorted(TILE_CONFIGS))
def test_dvec_chain_leaves_the_s2_loop_only(config, kernels_dir):
    """The report names the 13 ops of the chain, each leaving LOOP_s2_dq only."""
    paths = kernels(kernels_dir, 8, 64, config)
    r = run_tool("pto-opt", paths["orig"], "--pass-pipeline=builtin.module(pto-flatten-scopes,"
                 "pto-hoist-invariants{report=true})", "-o", "/dev/null")
    assert r.returncode == 0, r.stderr
    remarks = re.findall(r"remark: hoisted out of (.*)", r.stderr)
    assert remarks == ['pto.loop "LOOP_s2_dq"'] * DVEC_CHAIN_OPS, remarks
    hoisted = paths["hoisted"].read_text()
    s1_body = hoisted.split('"LOOP_s1_dq"')[1].split('"LOOP_s2_dq"')[0]
    assert "pto.sum" in s1_body and s1_body.count("pto.cast") == 2
