"""SK-01 (online FlashAttention forward) through pto-run against the NumPy golden,
and SK-01 chained into SK-16.

The case matrix is SK-16's (docs/SK16.md#tests) minus the 1x8x4096x4096x128
benchmark, run with the A3 tiles (q_tile = kv_tile = 2048: one kv tile per
sequence, the first-and-last path, tails inside the tile) and with small tiles
that split every sequence into several kv tiles (the online-softmax update
path; q and kv tails). Outputs start as NaN, so a row the kernel fails to write
cannot pass. Tolerances: golden/sk01.py and docs/SK01.md.
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pytest

from pto_mlir import sk01_ir, sk16_ir
from pto_mlir.golden import bf16_bits_to_f32, sk01, sk16
from pto_mlir.tools import run_kernel, run_tool

TILE_CONFIGS = {
    "a3": {},
    # Every case gets >= 2 kv tiles with a tail somewhere (s2 = 32 -> 24 + 8);
    # q and kv tiles differ so that a swapped extent cannot pass.
    "small": dict(q_tile=40, kv_tile=24, c1_tile=(32, 64, 32, 64, 32, 64),
                  c2_tile=(32, 64, 32, 64, 32, 64), v1_tile=(16, 64), v2_tile=(16, 64)),
}
# SK-16 tiles for the chained runs (as in test_sk16_interpreter.py).
SK16_CONFIGS = {
    "a3": {},
    "small": dict(s1_tile=96, s2_tile=112, c_tile=(64, 128, 64, 128, 64, 128),
                  v_tile_s=(32, 128), v_tile_d=(32, 128)),
}

TEST_CASES = [name for name, case in sk16.CASES.items() if not case.benchmark_only]


@functools.lru_cache(maxsize=None)
def sk01_kernel(tmp_root: str, N: int, D: int, config: str) -> Path:
    path = Path(tmp_root) / f"sk01_n{N}_d{D}_{config}.mlir"
    path.write_text(sk01_ir.emit(sk01_ir.Sk01Config(heads=N, head_dim=D, **TILE_CONFIGS[config])))
    return path


@functools.lru_cache(maxsize=None)
def sk16_kernel(tmp_root: str, N: int, D: int, config: str) -> Path:
    path = Path(tmp_root) / f"sk16_n{N}_d{D}_{config}.mlir"
    path.write_text(sk16_ir.emit(sk16_ir.Sk16Config(heads=N, head_dim=D, **SK16_CONFIGS[config])))
    return path


def run_sk01(kernel: Path, directory: Path, inputs: dict, *extra):
    out, _ = run_kernel(kernel, directory, inputs, sk01.DTYPES, sk01.OUTPUT_NAMES, *extra,
                        names=sk01.INPUT_NAMES)
    return out


def assert_forward_matches(out: dict, inputs: dict, case):
    for name, (ok, ratio, err) in sk01.check_outputs(out, inputs, case.N, case.D).items():
        assert ok, f"{name}: |out - gold| reaches {ratio:.3g} x the allowed error (max|err| {err:.3g})"


@pytest.fixture(scope="module")
def kernels_dir(tmp_path_factory):
    return str(tmp_path_factory.mktemp("kernels"))


@pytest.mark.parametrize("config", sorted(TILE_CONFIGS))
@pytest.mark.parametrize("case_name", TEST_CASES)
def test_case_matrix(case_name, config, kernels_dir, tmp_path):
    case = sk16.CASES[case_name]
    inputs = sk01.make_inputs(case, seed=42, fill=np.nan)
    out = run_sk01(sk01_kernel(kernels_dir, case.N, case.D, config), tmp_path, inputs)
    assert sk01.written_rows(inputs).all()
    assert_forward_matches(out, inputs, case)


@pytest.mark.parametrize("case_name", TEST_CASES)
def test_single_kv_tile_path_matches_bf16_p_golden(case_name, kernels_dir, tmp_path):
    """With A3 tiles every sequence is one kv tile: o = bf16(bf16(p / l) V), which
    is the reference test's golden (P rounded to BF16), within the plain SK-16
    spec tolerance; l and m are exact or within their FP32 tolerances."""
    case = sk16.CASES[case_name]
    inputs = sk01.make_inputs(case, seed=42, fill=np.nan)
    out = run_sk01(sk01_kernel(kernels_dir, case.N, case.D, "a3"), tmp_path, inputs)
    gold = sk01.golden_forward(inputs, case.N, case.D, round_p=True)
    sk16.assert_close(bf16_bits_to_f32(out["output"]), gold["output"], "output")
    for name in ("l_output", "m_output"):
        rtol, atol = sk01.TOLERANCES[name]
        sk16.assert_close(out[name], gold[name], name, rtol=rtol, atol=atol)


@pytest.mark.parametrize("amplitude", [1.0, 2.0])
def test_online_rescaling_under_peaky_softmax(amplitude, kernels_dir, tmp_path):
    """With the spec's 0.1-amplitude inputs the scores are tiny, the row maxima
    of successive kv tiles nearly equal and the rescale factors exp(mi - m_new)
    close to 1, so a missing or misplaced rescale is barely visible. Larger
    inputs make the softmax peaky and the rescaling decisive (a kernel that
    multiplies oi by exp(mij - m_new) instead fails these by 2-4 orders of
    magnitude)."""
    for case in (sk16.CASES["test_09"],
                 sk16.Sk16Case("varlen", (100, 37, 64), (77, 130, 5), N=2, D=32)):
        inputs = sk01.make_inputs(case, seed=4, amplitude=amplitude, fill=np.nan)
        out = run_sk01(sk01_kernel(kernels_dir, case.N, case.D, "small"), tmp_path / case.name,
                       inputs)
        assert_forward_matches(out, inputs, case)


def test_kernel_runs_exactly_the_valid_matmul_work(kernels_dir, tmp_path):
    """Each kv tile runs one QK^T and one PV over the valid region only: the
    forward's 4*s1*s2*D FLOP per (b, h), whatever the tiles and the branch."""
    case = sk16.CASES["test_09"]
    inputs = sk01.make_inputs(case, seed=1)
    for config in sorted(TILE_CONFIGS):
        _, result = run_kernel(sk01_kernel(kernels_dir, case.N, case.D, config), tmp_path / config,
                               inputs, sk01.DTYPES, (), "--run-stats", names=sk01.INPUT_NAMES)
        flop = int(result.stderr.split(" matmul FLOP")[0].split(", ")[-1])
        assert flop == sk01.flops(case), config


def test_zero_length_sequences_leave_rows_untouched(kernels_dir, tmp_path):
    """s1 = 0 runs no q tile; s2 = 0 runs no kv tile, so those rows keep the
    values given (NaN here): the kernel writes l, m, o only on the last kv tile."""
    case = sk16.Sk16Case("zeros", (0, 40, 17, 30), (25, 0, 33, 7), N=2, D=32)
    inputs = sk01.make_inputs(case, seed=5, fill=np.nan)
    rows = sk01.written_rows(inputs)
    assert 0 < rows.sum() < len(rows)
    out = run_sk01(sk01_kernel(kernels_dir, case.N, case.D, "small"), tmp_path, inputs)
    assert_forward_matches(out, inputs, case)
    assert np.isnan(out["l_output"][~rows]).all() and np.isnan(out["m_output"][~rows]).all()
    assert np.isnan(bf16_bits_to_f32(out["output"][~rows])).all()


# D = 32, 64, 128; fixed-length, varlen and cross-attention; both tile sets
# (the a3 SK-01 run takes the single-kv-tile path, the small one the online path).
@pytest.mark.parametrize("case_name,config", [
    ("test_05", "a3"), ("test_09", "a3"),
    ("test_03", "small"), ("test_06", "small"), ("test_07", "small"), ("test_09", "small"),
])
def test_chained_with_sk16(case_name, config, kernels_dir, tmp_path):
    """SK-01 on pto-run produces o, l, m; SK-16 on pto-run consumes them with the
    same q, k, v and a dO. dQ, dK, dV must match the SK-16 golden computed from
    the same q, k, v, dO and the golden forward's own o (sk16.make_inputs), with
    SK-16's acceptance (spec tolerance and max|err| <= 2^-7 max|gold|)."""
    case = sk16.CASES[case_name]
    fwd_inputs = sk01.make_inputs(case, seed=11, fill=np.nan)
    fwd = run_sk01(sk01_kernel(kernels_dir, case.N, case.D, config), tmp_path / "fwd", fwd_inputs)
    assert_forward_matches(fwd, fwd_inputs, case)

    gold_inputs = sk16.make_inputs(case, seed=11)
    for name in ("q", "k", "v"):
        assert np.array_equal(gold_inputs[name], fwd_inputs[name])
    bwd_inputs = sk01.to_sk16_inputs(fwd_inputs, fwd, gold_inputs["do"], case.N, case.D)
    bwd, _ = run_kernel(sk16_kernel(kernels_dir, case.N, case.D, config), tmp_path / "bwd", bwd_inputs,
                        sk16.DTYPES, sk16.OUTPUT_NAMES, names=sk16.INPUT_NAMES)
    gold = sk16.golden_backward(gold_inputs, case.N, case.D)
    sk16.assert_matches_golden(bwd, gold)


# --- the golden itself -------------------------------------------------------

@pytest.mark.parametrize("case_name", ["test_05", "test_09"])
def test_golden_is_the_forward_sk16_consumes(case_name):
    """golden_forward reproduces bit for bit the l, m, o of sk16.make_inputs."""
    case = sk16.CASES[case_name]
    gold = sk01.golden_forward(sk01.make_inputs(case, seed=3), case.N, case.D)
    ref = sk16.make_inputs(case, seed=3)
    tq, N = case.total_q, case.N
    assert np.array_equal(gold["l_output"], ref["l_input"].reshape(tq, N))
    assert np.array_equal(gold["m_output"], ref["m_input"].reshape(tq, N))
    assert np.array_equal(gold["output"], bf16_bits_to_f32(ref["o"]).reshape(tq, -1))


@pytest.mark.parametrize("case_name", ["test_04", "test_09"])
def test_golden_against_fp64(case_name):
    case = sk16.CASES[case_name]
    inputs = sk01.make_inputs(case, seed=2)
    gold = sk01.golden_forward(inputs, case.N, case.D)
    ref = sk01.fp64_forward(inputs, case.N, case.D)
    # o: one BF16 rounding of an FP32 result.
    assert np.all(np.abs(gold["output"] - ref["output"]) <= 2.0**-8 * np.abs(ref["output"]) + 1e-6)
    np.testing.assert_allclose(gold["l_output"], ref["l_output"], rtol=2.0**-17, atol=0)
    np.testing.assert_allclose(gold["m_output"], ref["m_output"], rtol=2.0**-17, atol=1e-6)


def test_m_tolerance_covers_the_a_priori_bound():
    """M_ATOL is derived from gamma_D * scale * max sum|q||k| (golden/sk01.py)."""
    for name in TEST_CASES:
        case = sk16.CASES[name]
        assert sk01.m_error_bound(sk01.make_inputs(case), case.N, case.D) <= sk01.M_ATOL, name


def test_golden_cli_write_and_compare(tmp_path, kernels_dir):
    import subprocess
    import sys

    env_py = [sys.executable, "-m", "pto_mlir.golden.sk01"]
    cwd = Path(sk01.__file__).resolve().parents[2]
    r = subprocess.run(env_py + ["--case", "test_05", "--out", str(tmp_path)], cwd=cwd,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    args = [a for n in sk01.INPUT_NAMES for a in ("--input", f"{n}={tmp_path / (n + '.npy')}")]
    (tmp_path / "out").mkdir()
    run = run_tool("pto-run", sk01_kernel(kernels_dir, 8, 64, "a3"), *args,
                   "--output-dir", tmp_path / "out")
    assert run.returncode == 0, run.stderr
    r = subprocess.run(env_py + ["--compare", str(tmp_path / "out"), "--gold", str(tmp_path)],
                       cwd=cwd, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.count("PASS") == 3
