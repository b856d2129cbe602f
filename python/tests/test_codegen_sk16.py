"""SK-16 through the whole chain: the Ascend pipeline, pto-isa C++, the system
compiler against the host emulation, and a run on the case matrix.

dQ/dK/dV must pass the golden with the tolerances of the interpreter tests
(sk16.assert_close plus max|err| <= 2^-7 max|gold|), with small tiles and
with the A3 tiles. The emulation also checks every flag pairing and every
on-chip hazard at run time, so a missing sync fails the run.
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pytest

from pto_mlir import codegen, sk16_ir
from pto_mlir.golden import sk16
from pto_mlir.tools import ASCEND_STATIONARY, run_kernel, run_tile_graph

SMALL = dict(s1_tile=96, s2_tile=112, c_tile=(64, 128, 64, 128, 64, 128),
             v_tile_s=(32, 128), v_tile_d=(32, 128))
CONFIGS = {"a3": {}, "small": SMALL}
TEST_CASES = [name for name, case in sk16.CASES.items() if not case.benchmark_only]


@functools.lru_cache(maxsize=None)
def executable(root: str, N: int, D: int, config: str) -> Path:
    workdir = Path(root) / f"sk16_n{N}_d{D}_{config}"
    workdir.mkdir(parents=True, exist_ok=True)
    source = workdir / "sk16.mlir"
    source.write_text(sk16_ir.emit(sk16_ir.Sk16Config(heads=N, head_dim=D, **CONFIGS[config])))
    return codegen.build(source, workdir)


@pytest.fixture(scope="module")
def build_root(tmp_path_factory):
    return str(tmp_path_factory.mktemp("codegen"))


@pytest.mark.parametrize("config", ["small", "a3"])
@pytest.mark.parametrize("case_name", TEST_CASES)
def test_emitted_cpp_matches_golden(case_name, config, build_root, tmp_path):
    case = sk16.CASES[case_name]
    inputs = sk16.make_inputs(case, seed=42)
    gold = sk16.golden_backward(inputs, case.N, case.D)
    exe = executable(build_root, case.N, case.D, config)
    out, _ = codegen.run(exe, tmp_path, inputs, sk16.DTYPES, sk16.OUTPUT_NAMES,
                         names=sk16.INPUT_NAMES)
    sk16.assert_matches_golden(out, gold)


# test_02's compile (N = 8, D = 128: C1 in rectangles of 4 resident Q / dO
# blocks and 16 K / V blocks streamed through two buffers, more than L1 holds
# at once) on a case small enough for the emulation.
STREAMED = sk16.Sk16Case("streamed", q_seqlens=(192,), kv_seqlens=(160,), N=8, D=128)


@pytest.mark.parametrize("case", [sk16.CASES["test_06"], STREAMED], ids=lambda c: c.name)
def test_emitted_cpp_operand_stationary(case, tmp_path):
    """The operand-stationary cube tasks (docs/TileGraph.md) through the
    Ascend passes and the sync verifier: C1 rectangles (at N = 8 with the
    K / V blocks streamed), C2 K chains cut into partial sums added by
    atomic stores from L0C, the later parts past s1 = 64 guarded empty; the
    emulation checks every flag pairing and hazard, and dQ/dK/dV match the
    golden."""
    source = tmp_path / "sk16.mlir"
    source.write_text(sk16_ir.emit(sk16_ir.Sk16Config(heads=case.N, head_dim=case.D)))
    exe = codegen.build(source, tmp_path / "build",
                        pipeline=ASCEND_STATIONARY + ",pto-isa-verify-sync")
    inputs = sk16.make_inputs(case, seed=42)
    out, _ = codegen.run(exe, tmp_path / "run", inputs, sk16.DTYPES, sk16.OUTPUT_NAMES,
                         names=sk16.INPUT_NAMES)
    sk16.assert_matches_golden(out, sk16.golden_backward(inputs, case.N, case.D))


@pytest.mark.parametrize("config", ["small", "a3"])
def test_emitted_cpp_agrees_with_pto_run(config, build_root, tmp_path):
    """The emitted program and the interpreter on the same tile graph agree
    to FP32 reordering (the emulation accumulates matmuls in k order, pto-run
    through BLAS), i.e. to one BF16 rounding flip of P or dS."""
    case = sk16.CASES["test_09"]
    inputs = sk16.make_inputs(case, seed=7)
    exe = executable(build_root, case.N, case.D, config)
    out, _ = codegen.run(exe, tmp_path / "cpp", inputs, sk16.DTYPES, sk16.OUTPUT_NAMES,
                         names=sk16.INPUT_NAMES)
    source = Path(build_root) / f"sk16_n{case.N}_d{case.D}_{config}" / "sk16.mlir"
    ref, _ = run_tile_graph(source, tmp_path / "run", inputs, sk16.DTYPES, sk16.OUTPUT_NAMES,
                            names=sk16.INPUT_NAMES)
    for name in sk16.OUTPUT_NAMES:
        err = float(np.abs(out[name].astype(np.float64) - ref[name]).max())
        assert err <= 2.0**-8 * float(np.abs(ref[name]).max()), name


@pytest.mark.parametrize("threads,seed", [(2, 0), (3, 11)])
def test_threads_and_shuffled_order(threads, seed, build_root, tmp_path):
    """Launches on several host threads, ready launches in shuffled order:
    dependencies and atomics must still give the golden result."""
    case = sk16.CASES["test_09"]
    inputs = sk16.make_inputs(case, seed=5)
    gold = sk16.golden_backward(inputs, case.N, case.D)
    exe = executable(build_root, case.N, case.D, "small")
    extra = ["--threads", threads] + (["--shuffle-seed", seed] if seed else [])
    out, _ = codegen.run(exe, tmp_path, inputs, sk16.DTYPES, sk16.OUTPUT_NAMES,
                         *extra, names=sk16.INPUT_NAMES)
    sk16.assert_matches_golden(out, gold)


# Hostile inputs to the emitted program: each has a defined behaviour.
USAGE, FAULT = 2, 3


def run_hostile(build_root, tmp_path, inputs, *extra):
    exe = executable(build_root, 8, 64, "small")
    return codegen.run(exe, tmp_path, inputs, sk16.DTYPES, sk16.OUTPUT_NAMES, *extra,
                       names=sk16.INPUT_NAMES, check=False)[1]


def test_decreasing_offsets_are_an_input_error(build_root, tmp_path):
    inputs = sk16.make_inputs(sk16.CASES["test_09"], seed=1)
    inputs["actual_q"] = np.array([0, 128, 64, 384], dtype=np.int32)
    proc = run_hostile(build_root, tmp_path, inputs)
    assert proc.returncode == USAGE, proc.stderr
    assert "input 'actual_q': cumulative offsets decrease at index 2 (64 after 128)" in proc.stderr


def test_offsets_not_starting_at_zero_are_an_input_error(build_root, tmp_path):
    inputs = sk16.make_inputs(sk16.CASES["test_09"], seed=1)
    inputs["actual_kv"] = inputs["actual_kv"] + 1
    proc = run_hostile(build_root, tmp_path, inputs)
    assert proc.returncode == USAGE, proc.stderr
    assert "input 'actual_kv': cumulative offsets must start at 0, got 1" in proc.stderr


def test_garbage_npy_is_an_input_error(build_root, tmp_path):
    inputs = sk16.make_inputs(sk16.CASES["test_09"], seed=1)
    exe = executable(build_root, 8, 64, "small")
    codegen.run(exe, tmp_path, inputs, sk16.DTYPES, [], names=sk16.INPUT_NAMES, check=False)
    (tmp_path / "in" / "q.npy").write_bytes(b"garbage")
    proc = codegen.subprocess.run([str(exe), "--inputs", str(tmp_path / "in")],
                                  capture_output=True, text=True)
    assert proc.returncode == USAGE and "not a .npy file (bad magic)" in proc.stderr, proc.stderr


def test_zero_length_sequences(build_root, tmp_path):
    """Empty batches on either side run zero iterations; the rest matches
    the golden."""
    case = sk16.Sk16Case("zero_lengths", [0, 64, 0, 96], [32, 0, 0, 112], 8, 64)
    inputs = sk16.make_inputs(case, seed=4)
    gold = sk16.golden_backward(inputs, case.N, case.D)
    out, _ = codegen.run(executable(build_root, 8, 64, "small"), tmp_path, inputs,
                         sk16.DTYPES, sk16.OUTPUT_NAMES, names=sk16.INPUT_NAMES)
    sk16.assert_matches_golden(out, gold)


def test_nan_and_inf_propagate_like_the_interpreter(build_root, tmp_path):
    """IEEE semantics: a NaN in q and an Inf in dO reach the same output
    elements as in pto-run, and the other elements still agree."""
    case = sk16.CASES["test_09"]
    inputs = sk16.make_inputs(case, seed=9)
    q = inputs["q"].copy()              # BF16 tensors hold bit patterns
    q[5, 2, 7] = 0x7FC0                 # quiet NaN
    inputs["q"] = q
    do = inputs["do"].copy()
    do[200, 3, 1] = 0x7F80              # +inf
    inputs["do"] = do
    exe = executable(build_root, 8, 64, "small")
    out, _ = codegen.run(exe, tmp_path / "cpp", inputs, sk16.DTYPES, sk16.OUTPUT_NAMES,
                         names=sk16.INPUT_NAMES)
    source = Path(build_root) / "sk16_n8_d64_small" / "sk16.mlir"
    ref, _ = run_kernel(source, tmp_path / "run", inputs, sk16.DTYPES, sk16.OUTPUT_NAMES,
                        names=sk16.INPUT_NAMES)
    for name in sk16.OUTPUT_NAMES:
        assert np.array_equal(np.isnan(out[name]), np.isnan(ref[name])), name
        assert np.isnan(out[name]).any(), f"{name}: the NaN did not propagate"
        finite = np.isfinite(ref[name])
        assert np.array_equal(np.isfinite(out[name]), finite), name
        scale = float(np.abs(ref[name][finite]).max())
        err = float(np.abs(out[name][finite].astype(np.float64) - ref[name][finite]).max())
        assert err <= 2.0**-7 * scale, name
