"""The emitted C++ against the real pto-isa (PTO_ISA_DIR; docs/Codegen.md
"Against the real pto-isa").

Every kernel the other suites take to C++ (SK-16 and SK-01 at the tiles and
cases of test_codegen_sk16/test_codegen_sk01, SK-16 D=64/128 also on
DAV_3510, the lit kernels of test/Target/Cpp and test/Runtime) is compiled
against the real headers with the real CPU back end, once for the vector
side and once for the cube side. The emulation's instruction set is compared
with the real library's, so that it cannot accept a form the real library
refuses. Without a pto-isa checkout every test here is skipped with the
reason.
"""

from __future__ import annotations

import hashlib
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

import test_codegen_sk01 as sk01_tests
import test_codegen_sk16 as sk16_tests
from pto_mlir import codegen, pto_isa, sk01_ir, sk16_ir
from pto_mlir.golden import sk16
from pto_mlir.tools import REPO_ROOT, run_kernel, run_tool

ROOT = pto_isa.find()
pytestmark = pytest.mark.skipif(ROOT is None, reason=pto_isa.missing_reason())

TEST_SHAPES = sorted({(c.N, c.D) for c in sk16.CASES.values() if not c.benchmark_only})
A3_CASE = sk16.CASES["test_09"]


def sk16_sources():
    """(name, pto source text) of every SK-16 the suites and the issue need."""
    out = {}
    for N, D in TEST_SHAPES:
        for config, tiles in sk16_tests.CONFIGS.items():
            out[f"sk16_n{N}_d{D}_{config}"] = sk16_ir.emit(
                sk16_ir.Sk16Config(heads=N, head_dim=D, **tiles))
    for D in (64, 128):
        for config, tiles in sk16_tests.CONFIGS.items():
            out[f"sk16_d{D}_{config}_dav3510"] = sk16_ir.emit(
                sk16_ir.Sk16Config(head_dim=D, arch="DAV_3510", **tiles))
    return out


def sk01_sources():
    out = {}
    for N, D in TEST_SHAPES:
        for config in sk01_tests.CONFIGS:
            out[f"sk01_n{N}_d{D}_{config}"] = sk01_ir.emit(sk01_ir.Sk01Config(
                heads=N, head_dim=D, accumulators="gm", **sk01_tests.TILES[config]))
    out[f"sk01_n{A3_CASE.N}_d{A3_CASE.D}_a3"] = sk01_ir.emit(sk01_ir.Sk01Config(
        heads=A3_CASE.N, head_dim=A3_CASE.D, accumulators="gm"))
    return out


def lit_kernels(workdir: Path) -> list[Path]:
    """The kernels of the lit suite that reach C++: every ISA-level module in
    test/Target/Cpp that pto-translate prints (not the diagnostics tests),
    and the hand-written file in the emitter's shape."""
    out = []
    for source in sorted((REPO_ROOT / "test" / "Target" / "Cpp").glob("*.mlir")):
        text = source.read_text()
        if "verify-diagnostics" in text:
            continue
        # A file whose RUN line passes it through pto-opt first (memory plan,
        # sync, piece loops) is translated after the same passes.
        passes = re.search(r"// RUN: pto-opt %s (.*?) \| pto-translate", text)
        translated = source
        if passes:
            translated = workdir / f"lit_{source.stem}.isa.mlir"
            r = run_tool("pto-opt", source, *passes.group(1).split(), "-o", translated)
            assert r.returncode == 0, r.stderr[-2000:]
        cpp = workdir / f"lit_{source.stem}.cpp"
        r = run_tool("pto-translate", "--pto-to-cpp", translated, "-o", cpp)
        assert r.returncode == 0, r.stderr[-2000:]
        out.append(cpp)
    assert len(out) >= 2
    out.append(REPO_ROOT / "test" / "Runtime" / "Inputs" / "emitted_style.cpp")
    return out


def target_arch(cpp: Path) -> str:
    """The pto arch an emitted file was compiled for, read from the ISA-level
    module beside it (emit_cpp) or the lit source: DAV_3510 or DAV_2201."""
    for source in (cpp.with_suffix(".isa.mlir"),
                   REPO_ROOT / "test" / "Target" / "Cpp" / cpp.with_suffix(".mlir").name[4:]):
        if source.exists():
            return "DAV_3510" if "DAV_3510" in source.read_text() else "DAV_2201"
    return "DAV_2201"


@pytest.fixture(scope="module")
def emitted(tmp_path_factory):
    """Every emitted file, split into the small-tile ones and the A3 ones
    (large), duplicates by content dropped."""
    workdir = tmp_path_factory.mktemp("pto_isa_real")
    seen, small, a3 = set(), [], []
    for name, text in {**sk16_sources(), **sk01_sources()}.items():
        source = workdir / name / f"{name}.mlir"
        source.parent.mkdir()
        source.write_text(text)
        cpp = codegen.emit_cpp(source, source.parent)
        digest = hashlib.sha256(cpp.read_bytes()).hexdigest()
        if digest not in seen:
            seen.add(digest)
            (a3 if "_a3" in name else small).append(cpp)
    small += lit_kernels(workdir)
    return workdir, small, a3


def assert_compiles(results):
    failed = [r.summary() for r in results if not r.ok]
    assert not failed, "\n\n".join(failed)


def test_small_tile_kernels_compile_against_pto_isa(emitted):
    """SK-16/SK-01 at small tiles and the lit kernels, in one translation
    unit per core type."""
    workdir, small, _ = emitted
    assert len(small) >= 10
    assert_compiles(pto_isa.compile_all([small], ROOT, workdir))


def test_a3_tile_kernels_compile_against_pto_isa(emitted):
    """SK-16 (DAV_2201 and DAV_3510) and SK-01 at their A3 tiles."""
    workdir, _, a3 = emitted
    assert len(a3) >= 5
    assert_compiles(pto_isa.compile_all([a3], ROOT, workdir))


BAD_CUBE_LEAF = """
#include <cstdint>
#include <pto/pto-inst.hpp>
using namespace pto;
#if defined(__DAV_CUBE__)
__global__ AICORE void leaf() {
  TileAcc<float, 16, 16, DYNAMIC, DYNAMIC> c(16, 16);
  TileLeft<float, 16, 16, DYNAMIC, DYNAMIC> a(16, 16);
  TileRight<float, 16, 16, DYNAMIC, DYNAMIC> b(16, 16);
  TASSIGN(c, 0); TASSIGN(a, 0); TASSIGN(b, 0);
  TMATMUL_ACC(c, a, b);
}
#endif
"""


def test_the_check_fails_on_a_form_the_real_cpu_back_end_lacks(tmp_path):
    """The three-operand TMATMUL_ACC (declared in pto_instr.hpp, no CPU
    implementation) fails on the cube side, inside a batch, and the vector
    side does not see the cube leaf."""
    bad = tmp_path / "bad.cpp"
    bad.write_text(BAD_CUBE_LEAF)
    good = REPO_ROOT / "test" / "Runtime" / "Inputs" / "emitted_style.cpp"
    vec, cube = pto_isa.compile_all([[good, bad]], ROOT, tmp_path)
    assert vec.ok, vec.summary()
    assert not cube.ok
    assert "TMATMUL_ACC_IMPL" in cube.errors and "bad.cpp" in cube.errors


def test_emulation_provides_only_what_the_real_library_provides():
    """Every (instruction, operand count) of runtime/include/pto/sim is
    declared by pto-isa's pto_instr.hpp and implemented by its CPU back end."""
    assert pto_isa.api_drift(ROOT) == []
    ours = {name for name, _, _ in pto_isa.emulated_entry_points()}
    assert {"TLOAD", "TSTORE", "TMATMUL", "TMATMUL_ACC", "TCVT", "TROWSUM"} <= ours
    # The real library has many more (TTRANS, TGATHER, ...): listed, not required.
    assert len(pto_isa.not_emulated(ROOT)) > 50


def test_api_drift_is_caught(tmp_path):
    """An emulation header offering a form the real library lacks is reported:
    the three-operand TMATMUL_ACC and an invented instruction."""
    (tmp_path / "instr.hpp").write_text(
        "template <class C, class A, class B, class... E>\n"
        "inline RecordEvent TMATMUL_ACC(C &c, A &a, B &b, E &...) { return {}; }\n"
        "#define PTO_SIM_UNARY(NAME, EXPR) \\\n"
        "  template <class D, class S, class... E> \\\n"
        "  inline RecordEvent NAME(D &dst, S &src, E &...) { return {}; }\n"
        "PTO_SIM_UNARY(TNOSUCHOP, x)\n"
        "PTO_SIM_UNARY(TEXP, x)\n")
    problems = pto_isa.api_drift(ROOT, tmp_path)
    assert any(p.startswith("TMATMUL_ACC with 3 operands") and "CPU back end" in p
               for p in problems), problems
    assert any(p.startswith("TNOSUCHOP with 2 operands: not declared") for p in problems)
    assert not any(p.startswith("TEXP") for p in problems)


def test_commit_is_known():
    assert pto_isa.commit(ROOT) != "unknown"


# --- Section 2: kernels on the real CPU simulator ---------------------------

FP32_KERNEL = Path(__file__).parent / "Inputs" / "fp32_attention.mlir"
FP32_DTYPES = {name: "fp32" for name in ("q", "k", "v", "m", "p", "l", "o")}


def fp32_inputs(seed: int) -> dict:
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((64, 96)).astype(np.float32)
    k = rng.standard_normal((80, 96)).astype(np.float32)
    v = rng.standard_normal((80, 48)).astype(np.float32)
    s = (q.astype(np.float64) @ k.T.astype(np.float64)) * 0.125
    m = s.max(axis=1, keepdims=True).astype(np.float32)  # exp(.) <= ~1
    zeros = {"p": (64, 80), "l": (64, 1), "o": (64, 48)}
    return {"q": q, "k": k, "v": v, "m": m,
            **{n: np.zeros(shape, np.float32) for n, shape in zeros.items()}}


def fp32_golden(inputs: dict) -> dict:
    f = {n: inputs[n].astype(np.float64) for n in ("q", "k", "v", "m")}
    e = np.exp(f["q"] @ f["k"].T * 0.125 - f["m"])
    l = e.sum(axis=1, keepdims=True)
    return {"p": e, "l": l, "o": (e @ f["v"]) / l}


@pytest.fixture(scope="module")
def fp32_programs(tmp_path_factory):
    """The FP32 program built twice: on pto-mlir's emulation, and with its
    kernels on the real CPU simulator (control program on our runtime)."""
    workdir = tmp_path_factory.mktemp("fp32_real_sim")
    cpp = codegen.emit_cpp(FP32_KERNEL, workdir)
    emulated = codegen.compile_cpp(cpp, workdir / "emulated")
    real = pto_isa.build_on_real_sim(cpp, workdir / "real")
    return emulated, real


@pytest.mark.parametrize("seed", [1, 2])
def test_fp32_program_on_the_real_simulator(seed, fp32_programs, tmp_path, monkeypatch):
    """The same .npy in, the same outputs out: the real simulator and the
    emulation within FP32 rounding of the FP64 golden, and bit for bit equal
    to each other (the emulation follows the CPU back end's arithmetic: exp
    in double, matmul chunks summed from 0 then added to the accumulator,
    row sums in index order)."""
    emulated, real = fp32_programs
    inputs = fp32_inputs(seed)
    gold = fp32_golden(inputs)
    outputs = ["p", "l", "o"]
    ours, _ = codegen.run(emulated, tmp_path / "emulated", inputs, FP32_DTYPES, outputs)
    monkeypatch.setenv("PTO_CPU_SIM_UB_BYTES", str(pto_isa.REAL_SIM_ARCH["a3"][1]))
    theirs, _ = codegen.run(real, tmp_path / "real", inputs, FP32_DTYPES, outputs)
    for name in outputs:
        scale = float(np.abs(gold[name]).max())
        for label, out in (("emulation", ours), ("real simulator", theirs)):
            err = float(np.abs(out[name] - gold[name]).max())
            assert err <= 2e-5 * scale, f"{name} on the {label}: max|err| {err:.3g}"
        differ = int((ours[name] != theirs[name]).sum())
        assert differ == 0, f"{name}: {differ} elements differ between the emulation and pto-isa"


def test_lit_fp32_kernel_on_the_real_simulator(tmp_path, monkeypatch):
    """test/Target/Cpp/emit-cpp.mlir (a vector leaf launched twice per root
    instance, a stitched control loop): y = 1 + 4x on both simulators, with
    the runtime's threads (one pto-isa memory model per host thread)."""
    cpp = tmp_path / "emit-cpp.cpp"
    r = run_tool("pto-translate", "--pto-to-cpp", REPO_ROOT / "test" / "Target" / "Cpp" /
                 "emit-cpp.mlir", "-o", cpp)
    assert r.returncode == 0, r.stderr[-2000:]
    real = pto_isa.build_on_real_sim(cpp, tmp_path / "real")
    x = np.arange(40 * 64, dtype=np.float32).reshape(40, 64)
    inputs, dtypes = {"x": x, "y": np.ones_like(x)}, {"x": "fp32", "y": "fp32"}
    monkeypatch.setenv("PTO_CPU_SIM_UB_BYTES", str(pto_isa.REAL_SIM_ARCH["a3"][1]))
    for threads in (0, 2):
        out, _ = codegen.run(real, tmp_path / f"t{threads}", inputs, dtypes, ["y"],
                             "--threads", threads)
        np.testing.assert_array_equal(out["y"], 1 + 4 * x)


def build_both(cpp: Path, workdir: Path):
    """(emulated, real-simulator) executables of an emitted file, built side
    by side, both at -O0."""
    with ThreadPoolExecutor(max_workers=2) as pool:
        emulated = pool.submit(codegen.compile_cpp, cpp, workdir / "emulated", "-O0")
        real = pto_isa.build_on_real_sim(cpp, workdir / "real")
        return emulated.result(), real


IEEE_KERNEL = Path(__file__).parent / "Inputs" / "ieee.mlir"
IEEE_DTYPES = {"x": "fp32", "y": "fp32", "a": "fp16", "b": "fp16", "sum": "fp32",
               "prod": "fp32", "ex": "fp32", "mx": "fp32", "rs": "fp32", "mm": "fp32",
               "bf": "fp16", "dv": "fp32"}


def test_ieee_specials_on_the_real_simulator(tmp_path, monkeypatch):
    """The NaN/Inf kernel of test_pto_run_hostile (add, mul, div, exp, max,
    row sum, matmul, cast) with its BF16 operands in FP16: NaN, +-inf, +-0,
    FP32 extremes, subnormals and x / 0 give the same values on both
    simulators, and add, mul, div and the cast are IEEE's."""
    kernel = tmp_path / "ieee_fp16.mlir"
    kernel.write_text(IEEE_KERNEL.read_text().replace("bf16", "f16"))
    emulated, real = build_both(codegen.emit_cpp(kernel, tmp_path), tmp_path)
    inf, nan = np.float32(np.inf), np.float32(np.nan)
    specials = np.array([nan, inf, -inf, 0.0, -0.0, 1.0, -1.0, 3.4e38, -3.4e38, 1e-45,
                         88.8, -104.0, 2.0, 0.5, -nan, 65504.0], np.float32)
    x = np.stack([specials, np.roll(specials, 3), specials[::-1], np.ones(16, np.float32)])
    y = np.stack([np.roll(specials, 1), specials, np.full(16, inf), np.full(16, nan)])
    a = np.stack([np.ones(16), np.zeros(16), np.arange(16) * 0.25,
                  np.full(16, -2.0)]).astype(np.float16)
    b = np.ones((16, 16), np.float16)
    b[3, 5], b[0, 7], b[1, 9], b[2, 2] = np.inf, np.nan, -np.inf, np.inf
    inputs = {"x": x, "y": y, "a": a, "b": b, "rs": np.zeros((4, 1), np.float32),
              "bf": np.zeros((4, 16), np.float16),
              **{n: np.zeros((4, 16), np.float32) for n in ("sum", "prod", "ex", "mx", "mm", "dv")}}
    outputs = ["sum", "prod", "ex", "mx", "rs", "mm", "bf", "dv"]
    ours, _ = codegen.run(emulated, tmp_path / "r_emulated", inputs, IEEE_DTYPES, outputs,
                          names=list(IEEE_DTYPES))
    monkeypatch.setenv("PTO_CPU_SIM_UB_BYTES", str(pto_isa.REAL_SIM_ARCH["a3"][1]))
    theirs, _ = codegen.run(real, tmp_path / "r_real", inputs, IEEE_DTYPES, outputs,
                            names=list(IEEE_DTYPES))
    for name in outputs:
        # Equal values, NaN where NaN (payloads are not compared).
        np.testing.assert_array_equal(theirs[name], ours[name], err_msg=name)
    # max is pto-isa's std::max, `a < b ? b : a`, on both: a NaN first operand
    # propagates, a NaN second operand is dropped. pto-run's max is IEEE
    # maxNum (NaN dropped on either side; docs/Runtime.md "Differences left").
    with np.errstate(all="ignore"):
        for name, want in (("sum", x + y), ("prod", x * y), ("dv", x / y),
                           ("mx", np.where(x < y, y, x)), ("bf", x.astype(np.float16))):
            np.testing.assert_array_equal(theirs[name], want, err_msg=name)



TOPK_KERNEL = REPO_ROOT / "test" / "Target" / "Cpp" / "emit-cpp-topk.mlir"


def test_topk_on_the_real_simulator(tmp_path, monkeypatch):
    """pto.topk's instructions (TCI, TCOLEXPAND, TSORT32, the list-form
    TMRGSORT, the mask TGATHER into an int32 tile) on both simulators: the
    8 largest of the first 40 of each row, with many equal values, in
    np.argsort(kind="stable") order on both."""
    cpp = tmp_path / "topk.cpp"
    r = run_tool("pto-translate", "--pto-to-cpp", TOPK_KERNEL, "-o", cpp)
    assert r.returncode == 0, r.stderr[-2000:]
    emulated, real = build_both(cpp, tmp_path)
    x = (np.random.default_rng(4).integers(-3, 4, (4, 64)) * 0.5).astype(np.float32)
    inputs = {"x": x, "v": np.zeros((4, 8), np.float32), "i": np.zeros((4, 8), np.int32)}
    dtypes = {"x": "fp32", "v": "fp32", "i": "int32"}
    ours, _ = codegen.run(emulated, tmp_path / "r_emulated", inputs, dtypes, ["v", "i"],
                          names=list(dtypes))
    monkeypatch.setenv("PTO_CPU_SIM_UB_BYTES", str(pto_isa.REAL_SIM_ARCH["a3"][1]))
    theirs, _ = codegen.run(real, tmp_path / "r_real", inputs, dtypes, ["v", "i"],
                            names=list(dtypes))
    order = np.argsort(-x[:, :40], axis=1, kind="stable")[:, :8]
    for got in (ours, theirs):
        np.testing.assert_array_equal(got["i"], order)
        np.testing.assert_array_equal(got["v"], np.take_along_axis(x[:, :40], order, 1))

FP16_VECTOR_KERNEL = Path(__file__).parent / "Inputs" / "fp16_vector.mlir"


def test_fp16_vector_arithmetic_on_the_real_simulator(tmp_path, monkeypatch):
    """add, mul, div, exp, max, a scalar mul and a row max computed in FP16
    (no widening) on both simulators: the same values; add, mul, div and
    the scalar mul are IEEE FP16 operations and exp is correctly rounded
    (NumPy's float16 results). max and the row max are std::max on both;
    pto-run differs there only on a NaN first operand (docs/Runtime.md)."""
    names = ["x", "y", "sum", "prod", "ex", "dv", "mx", "rm", "sc"]
    dtypes = dict.fromkeys(names, "fp16")
    emulated, real = build_both(codegen.emit_cpp(FP16_VECTOR_KERNEL, tmp_path), tmp_path)
    rng = np.random.default_rng(0)
    x = (rng.standard_normal((16, 64)) * 3).astype(np.float16)
    y = (rng.standard_normal((16, 64)) * 3).astype(np.float16)
    x[0, :8] = [np.nan, np.inf, -np.inf, 0, -0.0, 65504, 6e-8, 11.5]
    y[0, :8] = [1, np.nan, 2, 0, 0, 2, 0.5, 0]
    inputs = {"x": x, "y": y, **{n: np.zeros((16, 1) if n == "rm" else (16, 64), np.float16)
                                  for n in names[2:]}}
    outputs = names[2:]
    ours, _ = codegen.run(emulated, tmp_path / "r_emulated", inputs, dtypes, outputs, names=names)
    monkeypatch.setenv("PTO_CPU_SIM_UB_BYTES", str(pto_isa.REAL_SIM_ARCH["a3"][1]))
    theirs, _ = codegen.run(real, tmp_path / "r_real", inputs, dtypes, outputs, names=names)
    interpreted, _ = run_kernel(FP16_VECTOR_KERNEL, tmp_path / "r_pto_run", inputs, dtypes,
                                outputs, names=names)
    row_max = x[:, 0].copy()
    for j in range(1, x.shape[1]):
        row_max = np.where(row_max < x[:, j], x[:, j], row_max)
    with np.errstate(all="ignore"):
        want = {"sum": x + y, "prod": x * y, "dv": x / y, "sc": x * np.float16(0.3),
                "ex": np.exp(x.astype(np.float64)).astype(np.float16),
                "mx": np.where(x < y, y, x), "rm": row_max[:, None]}
    for name in outputs:
        np.testing.assert_array_equal(theirs[name], ours[name], err_msg=name)
        np.testing.assert_array_equal(theirs[name], want[name], err_msg=name)
    # pto-run: maxNum (a NaN operand is dropped): x[0, 0] is NaN, y[0, 0] = 1.
    for name in ("sum", "prod", "ex", "dv", "sc"):
        np.testing.assert_array_equal(interpreted[name], ours[name], err_msg=name)
    assert np.isnan(ours["mx"][0, 0]) and interpreted["mx"][0, 0] == 1.0
    np.testing.assert_array_equal(interpreted["mx"][1:], ours["mx"][1:])
    assert np.isnan(ours["rm"][0, 0]) and interpreted["rm"][0, 0] == np.inf
    np.testing.assert_array_equal(interpreted["rm"][1:], ours["rm"][1:])


def test_emulated_buffers_are_the_real_memory_model(tmp_path):
    """UB, L1, L0A, L0B and L0C have the sizes of pto-isa's CPU memory model
    (A2A3 = a3, A5 = 950): a memory plan the emulation's TASSIGN check
    accepts, every emitted kernel run in the suites, fits the real model.
    (BT and FB are not modelled there.)"""
    real = pto_isa.real_memory_sizes(ROOT)
    ours = pto_isa.emulated_memory_sizes(tmp_path)
    for real_arch, our_arch in (("A2A3", "A3"), ("A5", "A950")):
        for space in ("UB", "L1", "L0A", "L0B", "L0C"):
            assert ours[our_arch][space] == real[real_arch][space], (our_arch, space)


def test_memory_plan_fits_the_real_memory_model(emitted):
    """Every TASSIGN of every emitted kernel (SK-16/SK-01 at small and A3
    tiles, DAV_2201 and DAV_3510, the lit kernels) fits the buffer pto-isa's
    CPU memory model gives its tile type on the target (UB/L1/L0A/L0B/L0C of
    A2A3 or A5), sizes read from the real NPUMemoryModel.hpp."""
    _, small, a3 = emitted
    checked, problems, archs = 0, [], set()
    for cpp in small + a3:
        if cpp.name == "emitted_style.cpp":
            continue  # hand-written (symbolic shapes), not a plan pto-mlir made
        arch = target_arch(cpp)
        archs.add(arch)
        found, n = pto_isa.memory_plan_violations(cpp, arch, ROOT)
        problems += found
        checked += n
    assert not problems, "\n".join(problems[:20])
    assert archs == {"DAV_2201", "DAV_3510"}
    assert checked > 500, checked


OVER_UB = """
using Tbig = Tile<TileType::Vec, float, 64, 1024, BLayout::RowMajor, DYNAMIC, DYNAMIC, SLayout::NoneBox, 512>;
Tbig big(64, 1024);
TASSIGN(big, 0);
using Tacc = TileAcc<float, 128, 256, DYNAMIC, DYNAMIC>;
Tacc acc(128, 256);
TASSIGN(acc, 32768);
"""


def test_memory_plan_check_fails_past_the_real_buffer(tmp_path):
    """A 256 KiB UB tile fits A5's UB but not A2A3's 192 KiB; a 128 KiB
    accumulator at 32 KiB overruns A2A3's L0C and fits A5's 256 KiB."""
    cpp = tmp_path / "over.cpp"
    cpp.write_text(OVER_UB)
    problems, checked = pto_isa.memory_plan_violations(cpp, "DAV_2201", ROOT)
    assert checked == 2 and len(problems) == 2, problems
    assert "UB offset 0 ends at byte 262144, past pto-isa's A2A3 UB of 196608 bytes" in problems[0]
    assert "L0C offset 32768 ends at byte 163840" in problems[1]
    assert pto_isa.memory_plan_violations(cpp, "DAV_3510", ROOT) == ([], 2)
    cpp.write_text("using T = Tile<TileType::Vec, float, 8, 8, BLayout::RowMajor>;\n"
                   "T t(8, 8);\nTASSIGN(t, base + 64);\n")
    problems, _ = pto_isa.memory_plan_violations(cpp, "DAV_2201", ROOT)
    assert problems == ["over.cpp:3: TASSIGN offset 'base + 64' is not a literal"]


CONTEXT_KERNEL = """
#include <cstdint>
#include <pto/pto-inst.hpp>
// pto-isa's get_block_idx()/get_subblockid(), answered by the runtime's hooks.
void where(int32_t *out) { out[0] = int32_t(get_block_idx()); out[1] = int32_t(get_subblockid()); }
"""

CONTEXT_CONTROL = """
#include <cstdio>
#include <pto/runtime/pto_runtime.hpp>
void where(int32_t *out);
int main() {
  pto_rt::Runtime::Options o;
  pto_rt::Runtime rt(o);
  static int32_t out[5][2];
  rt.root_call("r", 0, 1, [&](pto_rt::RootInstance &ri) {
    for (int i = 0; i < 4; ++i) ri.launch(pto_rt::Core::Vector, "v", {}, [i] { where(out[i]); });
    ri.launch(pto_rt::Core::Cube, "c", {}, [] { where(out[4]); });
  });
  rt.finish();
  for (auto &w : out) std::printf("%d %d\\n", w[0], w[1]);
}
"""


def test_real_simulator_sees_the_runtime_core(tmp_path):
    """Kernels built against pto-isa read the block and sub-block id of the
    emulated core the runtime runs them on (pto/sim/pto_isa_hooks.hpp): the
    n-th vector launch of a device task on vector core n (sub-block n % 2),
    the cube launch on cube core 0."""
    kernel, control = tmp_path / "where.cpp", tmp_path / "control.cpp"
    kernel.write_text(CONTEXT_KERNEL)
    control.write_text(CONTEXT_CONTROL)
    cxx = pto_isa.compiler()
    lib, exe = tmp_path / "libwhere.so", tmp_path / "where"
    for cmd in ([cxx, "-std=c++20", "-fPIC", "-shared", "-Wl,-Bsymbolic", "-w", "-D__CPU_SIM",
                 f"-I{ROOT / 'include'}", kernel, "-o", lib],
                [cxx, "-std=c++20", "-D__CPU_SIM", f"-I{codegen.runtime_include()}", "-include",
                 "pto/sim/pto_isa_hooks.hpp", control, lib, f"-Wl,-rpath,{tmp_path}",
                 "-rdynamic", "-pthread", "-o", exe]):
        r = subprocess.run(list(map(str, cmd)), capture_output=True, text=True)
        assert r.returncode == 0, r.stderr[-3000:]
    r = subprocess.run([str(exe)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split("\n")[:5] == ["0 0", "1 1", "2 0", "3 1", "0 0"]
