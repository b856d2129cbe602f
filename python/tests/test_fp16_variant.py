"""The FP16 variants of SK-16 and SK-01 (`sk16_ir`/`sk01_ir` dtype="fp16";
docs/SK16.md "FP16 variant").

Checked and verified like the BF16 kernels: the generators' option, the
golden (FP16 rounding where the kernel rounds, tolerance from FP16's
epsilon, validated against the FP64 reference), pto-run on the tile graph,
and the emitted C++ on pto-mlir's emulation against the golden. With a
pto-isa checkout (PTO_ISA_DIR, docs/Runtime.md "Against the real pto-isa")
the same emitted programs also run with their kernels on pto-isa's own CPU
simulator, which cannot run BF16, and must agree with the emulation bit for
bit; without one that test is skipped with the reason.

Small tiles and shapes; each program is compiled once per simulator, at -O0
(pto-isa's reductions are in index order only unoptimised; -O0 also builds
fastest).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import test_codegen_sk01 as sk01_tests
import test_codegen_sk16 as sk16_tests
from pto_mlir import codegen, pto_isa, sk01_ir, sk16_ir
from pto_mlir.golden import load_tensor, save_tensor, sk01, sk16
from pto_mlir.golden.formats import BF16, FP16, format_of
from pto_mlir.tools import run_kernel, run_tool

PROGRAMS = {
    # SK-16 at test_codegen_sk16's small tiles (96 x 112 score tiles): two q
    # and two kv tiles with tails in the first batch element.
    "sk16_d64": ("sk16", sk16.Sk16Case("fp16_d64", [130, 40], [150, 96], 2, 64)),
    "sk16_d128": ("sk16", sk16.Sk16Case("fp16_d128", [100, 30], [120, 50], 1, 128)),
    # SK-01 at its small tiles (40 x 24): the online update over several kv tiles.
    "sk01_d64": ("sk01", sk16.Sk16Case("fp16_sk01", [50, 20], [60, 24], 2, 64)),
}


def source_text(kind: str, case) -> str:
    if kind == "sk16":
        return sk16_ir.emit(sk16_ir.Sk16Config(heads=case.N, head_dim=case.D, dtype="fp16",
                                               **sk16_tests.SMALL))
    return sk01_ir.emit(sk01_ir.Sk01Config(heads=case.N, head_dim=case.D, dtype="fp16",
                                           accumulators="gm", **sk01_tests.SMALL))


def program_case(name: str, seed: int):
    """(inputs, dtypes, input names, output names, check(out, label))."""
    kind, case = PROGRAMS[name]
    if kind == "sk16":
        inputs = sk16.make_inputs(case, seed, dtype="fp16")
        gold = sk16.golden_backward(inputs, case.N, case.D)

        def check(out, label):
            try:
                sk16.assert_matches_golden(out, gold, fmt=FP16)
            except AssertionError as e:
                raise AssertionError(f"{name} on {label}: {e}") from None
        return inputs, sk16.dtypes("fp16"), sk16.INPUT_NAMES, sk16.OUTPUT_NAMES, check
    inputs = sk01.make_inputs(case, seed, fill=np.nan, dtype="fp16")

    def check(out, label):
        for output, (ok, ratio, err) in sk01.check_outputs(out, inputs, case.N, case.D).items():
            assert ok, (f"{name} on {label}: {output} reaches {ratio:.3g} x the allowed "
                        f"error (max|err| {err:.3g})")
    return inputs, sk01.dtypes("fp16"), sk01.INPUT_NAMES, sk01.OUTPUT_NAMES, check


@pytest.fixture(scope="module")
def sources(tmp_path_factory):
    root = tmp_path_factory.mktemp("fp16")
    out = {}
    for name, (kind, case) in PROGRAMS.items():
        path = root / name / f"{name}.mlir"
        path.parent.mkdir()
        path.write_text(source_text(kind, case))
        out[name] = path
    return out


@pytest.fixture(scope="module")
def builds(sources):
    """name -> {"emulated": exe, "real": exe}: built on first use, each once;
    the real-simulator build is made only when a test asks for it."""
    built: dict = {}

    def get(name, which):
        entry = built.setdefault(name, {})
        if not entry:
            entry["cpp"] = codegen.emit_cpp(sources[name], sources[name].parent)
        cpp = entry["cpp"]
        if which == "real" and "real" not in entry and "emulated" not in entry:
            # Both wanted by the real test: build the two side by side.
            with ThreadPoolExecutor(max_workers=2) as pool:
                emulated = pool.submit(codegen.compile_cpp, cpp, cpp.parent / "emulated", "-O0")
                entry["real"] = pto_isa.build_on_real_sim(cpp, cpp.parent / "real")
                entry["emulated"] = emulated.result()
        if which not in entry:
            entry[which] = (codegen.compile_cpp(cpp, cpp.parent / "emulated", "-O0")
                            if which == "emulated"
                            else pto_isa.build_on_real_sim(cpp, cpp.parent / "real"))
        return entry[which]
    return get


# --- Generators and golden ---------------------------------------------------

@pytest.mark.parametrize("module", [sk16_ir, sk01_ir])
def test_generators_spell_fp16_everywhere_bf16_was(module):
    config = module.Sk16Config if module is sk16_ir else module.Sk01Config
    bf16, fp16 = module.emit(config()), module.emit(config(dtype="fp16"))
    assert "bf16" in bf16 and "xbf16" not in fp16 and "BF16" not in fp16
    assert bf16.count("xbf16>") == fp16.count("xf16>") > 0
    assert "--dtype fp16" in fp16


@pytest.mark.parametrize("module", [sk16_ir, sk01_ir])
def test_generators_refuse_an_unknown_dtype(module, capsys):
    config = module.Sk16Config if module is sk16_ir else module.Sk01Config
    with pytest.raises(ValueError, match="unknown dtype 'fp8': SK-16/SK-01 take one of bf16, fp16"):
        module.emit(config(dtype="fp8"))
    with pytest.raises(SystemExit):
        module.main(["--dtype", "fp8"])
    assert "invalid choice: 'fp8'" in capsys.readouterr().err


@pytest.mark.parametrize("case_name", ["test_03", "test_09"])
def test_fp16_golden_against_fp64(case_name):
    """The FP16 golden is the FP64 backward up to the FP16 rounding of P and
    dS: well inside FP16's epsilon, and ~8x closer than the BF16 golden."""
    case = sk16.CASES[case_name]
    errors = {}
    for fmt in (BF16, FP16):
        inputs = sk16.make_inputs(case, seed=1, dtype=fmt.name)
        assert format_of(inputs["q"]) is fmt
        gold = sk16.golden_backward(inputs, case.N, case.D)
        ref = sk16.fp64_backward(inputs, case.N, case.D)
        errors[fmt.name] = max(float(np.abs(gold[n] - ref[n]).max() / np.abs(ref[n]).max())
                               for n in sk16.OUTPUT_NAMES)
    assert errors["fp16"] < FP16.eps / 2
    assert errors["fp16"] < errors["bf16"] / 4, errors
    # Above FP32 noise (<= 1e-6 without rounding, test_golden): P and dS are rounded.
    assert errors["fp16"] > 1e-5, errors


def test_fp16_tensors_round_trip_through_npy(tmp_path):
    x = np.array([1.0, 1 + 2.0**-11, 65504.0, 70000.0, 2.0**-24, np.nan], np.float32)
    save_tensor(tmp_path / "x.npy", x, "fp16")
    back = load_tensor(tmp_path / "x.npy", "fp16")
    assert back.dtype == np.float16
    assert back[0] == back[1] == 1.0 and back[2] == 65504.0 and np.isinf(back[3])
    assert back[4] == np.float16(2.0**-24) and np.isnan(back[5])
    with pytest.raises(TypeError, match="fp16 tensor needs floats"):
        save_tensor(tmp_path / "y.npy", np.arange(3), "fp16")


def test_golden_cli_writes_an_fp16_case(tmp_path):
    r = run_tool_python("pto_mlir.golden.sk16", "--case", "test_03", "--dtype", "fp16",
                        "--out", tmp_path)
    assert r.returncode == 0, r.stderr
    import json
    manifest = json.loads((tmp_path / "case.json").read_text())
    assert manifest["dtype"] == "fp16" and manifest["rtol"] == 2.0**-10
    assert load_tensor(tmp_path / "q.npy", "fp16").dtype == np.float16
    # The gold itself passes the manifest's tolerance.
    for name in sk16.OUTPUT_NAMES:
        (tmp_path / f"{name}.npy").write_bytes((tmp_path / f"gold_{name}.npy").read_bytes())
    r = run_tool_python("pto_mlir.golden.sk16", "--compare", tmp_path)
    assert r.returncode == 0 and "rtol=0.000976562" in r.stdout, r.stdout + r.stderr


def run_tool_python(module: str, *args):
    import subprocess
    import sys
    from pathlib import Path
    return subprocess.run([sys.executable, "-m", module, *map(str, args)], capture_output=True,
                          text=True, cwd=Path(__file__).resolve().parents[1])


# --- Checker, interpreter, emulation ------------------------------------------

@pytest.mark.parametrize("name", ["sk16_d64"])
def test_fp16_sk16_passes_the_checker(name, sources):
    r = run_tool("pto-opt", sources[name], "--pto-check-skeleton=sk16", "--pto-lint",
                 "-o", "/dev/null")
    assert r.returncode == 0 and r.stderr == "", r.stderr


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_fp16_pto_run_matches_golden(name, sources, tmp_path):
    inputs, dtypes, names, outputs, check = program_case(name, seed=3)
    out, _ = run_kernel(sources[name], tmp_path, inputs, dtypes, outputs, names=names)
    check(out, "pto-run")


# The real simulator first: it builds both executables side by side.
@pytest.mark.skipif(pto_isa.find() is None, reason=pto_isa.missing_reason())
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_fp16_program_on_the_real_simulator(name, builds, tmp_path, monkeypatch):
    """The kernels on pto-isa's CPU simulator (control program on our
    runtime): the golden passes, and the outputs equal the emulation's bit
    for bit (FP16 loads, TCVT f32 -> f16 with RINT, FP16 x FP16 -> FP32
    matmuls)."""
    real = builds(name, "real")
    inputs, dtypes, names, outputs, check = program_case(name, seed=3)
    ours, _ = codegen.run(builds(name, "emulated"), tmp_path / "emulated", inputs, dtypes,
                          outputs, names=names)
    monkeypatch.setenv("PTO_CPU_SIM_UB_BYTES", str(pto_isa.REAL_SIM_ARCH["a3"][1]))
    theirs, _ = codegen.run(real, tmp_path / "real", inputs, dtypes, outputs, names=names)
    check(theirs, "pto-isa's CPU simulator")
    for output in outputs:
        a, b = ours[output], theirs[output]
        differ = int((~((a == b) | (np.isnan(a) & np.isnan(b)))).sum())
        assert differ == 0, (f"{name} {output}: {differ} of {a.size} elements differ between "
                             f"the emulation and pto-isa")


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_fp16_emitted_cpp_on_the_emulation(name, builds, tmp_path):
    inputs, dtypes, names, outputs, check = program_case(name, seed=3)
    out, _ = codegen.run(builds(name, "emulated"), tmp_path, inputs, dtypes, outputs, names=names)
    check(out, "the emulation")
