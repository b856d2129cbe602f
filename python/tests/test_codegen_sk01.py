"""SK-01 (online FlashAttention forward) through the whole chain: the Ascend
pipeline, pto-isa C++, the system compiler against the host emulation, and a
run on the case matrix against the golden.

The C++ chain needs SK-01 with its accumulators in GM (`accumulators="gm"`,
docs/SK01.md "GM accumulators"): the reference's pypto.tensor accumulators,
viewed and assembled every kv tile. The canonical example keeps them as
iter_args of the kv loop (tiles of the control program), which the lowering
refuses with a diagnostic that says so. Both forms compute the same values:
pto-run gives bitwise equal outputs.
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pytest

from pto_mlir import codegen, sk01_ir
from pto_mlir.golden import sk01, sk16
from pto_mlir.tools import assert_bitwise, run_kernel, run_tile_graph, run_tool

SMALL = dict(q_tile=40, kv_tile=24, c1_tile=(32, 64, 32, 64, 32, 64),
             c2_tile=(32, 64, 32, 64, 32, 64), v1_tile=(16, 64), v2_tile=(16, 64))
# The pto-isa FA kernel's block shape (128 Q rows, 256 KV rows per step),
# vector tiles of 32 rows; several kv tiles per sequence in the big cases.
BLOCKS = dict(q_tile=128, kv_tile=256, c1_tile=(128, 128, 64, 64, 128, 128),
              c2_tile=(128, 128, 128, 128, 64, 64), v1_tile=(32, 256), v2_tile=(32, 64))
CONFIGS = {"small": SMALL, "blocks": BLOCKS}
TILES = dict(CONFIGS, a3={})
TEST_CASES = [name for name, case in sk16.CASES.items() if not case.benchmark_only]


def source(root: str, N: int, D: int, config: str, accumulators: str) -> Path:
    workdir = Path(root) / f"sk01_n{N}_d{D}_{config}_{accumulators}"
    workdir.mkdir(parents=True, exist_ok=True)
    path = workdir / "sk01.mlir"
    path.write_text(sk01_ir.emit(sk01_ir.Sk01Config(heads=N, head_dim=D,
                                                    accumulators=accumulators,
                                                    **TILES[config])))
    return path


@functools.lru_cache(maxsize=None)
def executable(root: str, N: int, D: int, config: str) -> Path:
    kernel = source(root, N, D, config, "gm")
    return codegen.build(kernel, kernel.parent)


@pytest.fixture(scope="module")
def build_root(tmp_path_factory):
    return str(tmp_path_factory.mktemp("codegen_sk01"))


def check_forward(out: dict, inputs: dict, case):
    for name, (ok, ratio, err) in sk01.check_outputs(out, inputs, case.N, case.D).items():
        assert ok, f"{name}: |out - gold| reaches {ratio:.3g} x the allowed error (max|err| {err:.3g})"


@pytest.mark.parametrize("config", sorted(CONFIGS))
@pytest.mark.parametrize("case_name", TEST_CASES)
def test_emitted_cpp_matches_golden(case_name, config, build_root, tmp_path):
    check_case(case_name, config, build_root, tmp_path)


def test_emitted_cpp_at_the_a3_tiles(build_root, tmp_path):
    """SK-01's canonical A3 tiles (2048-row blocks; one kv tile per sequence:
    the first-and-last path, whose BF16 P·V the cube stores straight into
    `output`; V1 column pieces past a row's end reduce to the identity) on
    the cross-attention case. One case: the A3 build takes ~80 s."""
    check_case("test_09", "a3", build_root, tmp_path)


def test_emitted_cpp_at_the_a3_tiles_d128(build_root, tmp_path):
    """The A3 tiles at D = 128: each P V leaf keeps eight 64 KiB blocks of V
    for its eight 128-row pieces plus the streamed P block, more than L1
    holds; pto-isa-plan-memory loads some V blocks again instead of keeping
    them (docs/ISA.md, "Memory planning"), and the program still computes
    the golden. One head, two sequences, the first longer
    than one 2048-row q tile and one full kv tile (2304 x 2048: every V
    block of the P V leaves is read, some of them loaded again)."""
    case = sk16.Sk16Case("a3_d128", (2304, 64), (2048, 256), 1, 128, benchmark_only=True)
    check_case(case, "a3", build_root, tmp_path)


def check_case(case_name, config: str, build_root: str, tmp_path: Path):
    case = sk16.CASES[case_name] if isinstance(case_name, str) else case_name
    inputs = sk01.make_inputs(case, seed=42, fill=np.nan)
    exe = executable(build_root, case.N, case.D, config)
    out, _ = codegen.run(exe, tmp_path, inputs, sk01.DTYPES, sk01.OUTPUT_NAMES,
                         names=sk01.INPUT_NAMES)
    assert sk01.written_rows(inputs).all()
    check_forward(out, inputs, case)


@pytest.mark.parametrize("config", sorted(TILES))
def test_gm_accumulators_compute_what_iter_args_compute(config, build_root, tmp_path):
    """The two forms of SK-01 through pto-run: the same bits."""
    case = sk16.CASES["test_09"]
    inputs = sk01.make_inputs(case, seed=5, fill=np.nan)
    outs = {}
    for form in ("iter_args", "gm"):
        kernel = source(build_root, case.N, case.D, config, form)
        outs[form], _ = run_kernel(kernel, tmp_path / form, inputs, sk01.DTYPES,
                                   sk01.OUTPUT_NAMES, names=sk01.INPUT_NAMES)
    assert_bitwise(outs["iter_args"], outs["gm"], equal_nan=True)


def test_emitted_cpp_agrees_with_pto_run(build_root, tmp_path):
    """The emitted program and the interpreter on the same tile graph agree to
    FP32 reordering (k-order vs BLAS accumulation): within 2^-8 of max|out|."""
    case = sk16.CASES["test_09"]
    inputs = sk01.make_inputs(case, seed=7, fill=np.nan)
    exe = executable(build_root, case.N, case.D, "small")
    out, _ = codegen.run(exe, tmp_path / "cpp", inputs, sk01.DTYPES, sk01.OUTPUT_NAMES,
                         names=sk01.INPUT_NAMES)
    ref, _ = run_tile_graph(source(build_root, case.N, case.D, "small", "gm"),
                            tmp_path / "interp", inputs, sk01.DTYPES, sk01.OUTPUT_NAMES,
                            names=sk01.INPUT_NAMES)
    for name in sk01.OUTPUT_NAMES:
        a, b = out[name].astype(np.float64), ref[name].astype(np.float64)
        assert np.array_equal(np.isnan(a), np.isnan(b)), name
        finite = ~np.isnan(b)
        scale = float(np.abs(b[finite]).max())
        assert float(np.abs(a[finite] - b[finite]).max()) <= 2.0**-8 * scale, name


def test_iter_args_form_is_refused_with_the_fix(build_root, tmp_path):
    """The canonical form's loop-carried tiles reach leaves as tile arguments:
    the lowering names the argument, the rule and the fix."""
    case = sk16.CASES["test_09"]
    kernel = source(build_root, case.N, case.D, "small", "iter_args")
    r = run_tool("pto-opt", kernel, "--pto-ascend-pipeline", "-o", tmp_path / "out.mlir")
    assert r.returncode != 0
    assert "takes a tile argument" in r.stderr
    assert "keep such state in a GM tensor (pto.workspace)" in r.stderr
