"""The hostile-input table (docs/Guarantees.md, issue 17) against both
executors: `pto-run` on the source kernel and the emitted C++ program of the
same kernel (pto-ascend-pipeline, pto-translate --pto-to-cpp), built once per
session with ASan + UBSan. Every case must give the same exit code (2 = data
or usage error, 3 = kernel fault) and a message naming the same argument in
the same words (the rules are shared: runtime/include/pto/runtime/checks.hpp);
a sanitizer report fails the case. Cases that only one executor has (its
command-line flags, ISA-level input) run on that one.
"""

from __future__ import annotations

import concurrent.futures
import os
import resource
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np
import pytest

from pto_mlir import codegen, sk16_ir
from pto_mlir.golden import save_tensor, sk16
from pto_mlir.tools import tool

OK, USAGE, FAULT = 0, 2, 3
SMALL = dict(s1_tile=96, s2_tile=112, c_tile=(64, 128, 64, 128, 64, 128),
             v_tile_s=(32, 128), v_tile_d=(32, 128))
CASE = sk16.Sk16Case("hostile", [16, 24], [32, 8], 2, 64)  # total_q = total_kv = 40

DIVIDE_KERNEL = """\
pto.kernel @divide(%t: !pto.tensor<3xi64>, %out: !pto.tensor<8x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %a = pto.read %t[%c0] : !pto.tensor<3xi64>
  %b = pto.read %t[%c1] : !pto.tensor<3xi64>
  %n = pto.read %t[%c2] : !pto.tensor<3xi64>
  // A run-time divisor.
  %q = arith.divsi %a, %b : index
  pto.loop "L" %i = %c0 to %q step %c1 {
    %one = pto.full 1.0 : !pto.tile<8x16xf32>
    pto.atomic_add %one, %out[0, 0] : !pto.tile<8x16xf32>, !pto.tensor<8x16xf32>
  }
  // A constant zero divisor, reached when t[2] > 0.
  pto.loop "Z" %j = %c0 to %n step %c1 {
    %z = arith.ceildivsi %j, %c0 : index
    pto.loop "W" %k = %c0 to %z step %c1 {
      %two = pto.full 2.0 : !pto.tile<8x16xf32>
      pto.atomic_add %two, %out[0, 0] : !pto.tile<8x16xf32>, !pto.tensor<8x16xf32>
    }
  }
}
"""
DIVIDE_DTYPES = {"t": "int64", "out": "fp32"}


@dataclass
class Program:
    """One kernel: its source (for pto-run) and its emitted program."""
    source: Path
    exe: Path
    names: tuple
    dtypes: dict
    outputs: tuple


@pytest.fixture(scope="session")
def programs(tmp_path_factory) -> dict:
    root = tmp_path_factory.mktemp("hostile_table")
    sk16_src = root / "sk16.mlir"
    sk16_src.write_text(sk16_ir.emit(sk16_ir.Sk16Config(heads=CASE.N, head_dim=CASE.D,
                                                          **SMALL)))
    div_src = root / "divide.mlir"
    div_src.write_text(DIVIDE_KERNEL)
    # Both builds at once: the compiler dominates this file's time.
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        jobs = {name: pool.submit(codegen.build, src, root / name,
                                  flags=codegen.SANITIZE_FLAGS)
                for name, src in (("sk16", sk16_src), ("divide", div_src))}
        exes = {name: job.result() for name, job in jobs.items()}
    return {
        "sk16": Program(sk16_src, exes["sk16"], sk16.INPUT_NAMES, sk16.DTYPES,
                        sk16.OUTPUT_NAMES),
        "divide": Program(div_src, exes["divide"], ("t", "out"), DIVIDE_DTYPES, ("out",)),
    }


# --- .npy files written byte by byte -----------------------------------------

def npy_bytes(descr: str, shape: str, payload: bytes, fortran: str = "False") -> bytes:
    """A version 1.0 .npy file with the given header fields, verbatim."""
    header = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (descr, fortran, shape)
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    n = len(header)
    return b"\x93NUMPY\x01\x00" + bytes([n & 0xFF, n >> 8]) + header.encode("latin1") + payload


def q_header(shape: str, payload: bytes | None = None, **kw):
    """Replaces q.npy (bf16 bit patterns, <u2) by a file with `shape`."""
    def mutate(d: Path, inputs):
        data = payload if payload is not None else inputs["q"].astype("<u2").tobytes()
        (d / "q.npy").write_bytes(npy_bytes(kw.get("descr", "<u2"), shape, data,
                                            kw.get("fortran", "False")))
    return mutate


def npy_with_trailing_bytes(d: Path, inputs):
    (d / "k.npy").write_bytes((d / "k.npy").read_bytes() + b"\0\0")


def dq_header(shape: str):
    def mutate(d: Path, inputs):
        (d / "dq.npy").write_bytes(npy_bytes("<f4", shape, b""))
    return mutate


def set_input(name: str, value):
    def mutate(d: Path, inputs):
        inputs[name] = value(inputs) if callable(value) else value
        save_tensor(d / f"{name}.npy", inputs[name], sk16.DTYPES[name])
    return mutate


def shorter_q_than_o(d: Path, inputs):
    """q with 39 rows, o (reshaped with q's row count) with 40."""
    save_tensor(d / "q.npy", inputs["q"][:39], "bf16")


# --- the table ---------------------------------------------------------------

@dataclass
class Case:
    id: str
    program: str
    code: int
    words: str                       # in both messages
    arg: str | None                  # argument both messages name ('q')
    mutate: Callable | None = None   # changes the input directory
    values: dict | None = None       # divide kernel: t
    run_flags: tuple = ()            # emitted program only
    pto_run: bool = True             # the case exists for pto-run
    emitted: bool = True             # the case exists for the emitted program
    setup: str | None = None         # "dev_full", "oom"
    where: str | None = None         # text of the op both messages locate
    xfail: str | None = None
    marks: list = field(default_factory=list)


I64_MIN = -2**63
CASES = [
    # .npy headers: negative, huge, overflowing and malformed dims.
    Case("npy-dim-negative", "sk16", USAGE, "malformed shape entry '-1'", "q",
         q_header("(-1, 2, 64)")),
    Case("npy-dim-2^40", "sk16", USAGE, "more than the limit of 16 GiB per buffer", "q",
         q_header(f"({2**40}, 2, 64)")),
    Case("npy-dim-2^60", "sk16", USAGE, "overflows 64-bit sizes", "q",
         q_header(f"({2**60}, 2, 64)")),
    Case("npy-dim-int64-max", "sk16", USAGE, "overflows 64-bit sizes", "q",
         q_header(f"({2**63 - 1}, 2, 64)")),
    Case("npy-dim-2^64", "sk16", USAGE, "does not fit in 64 bits", "q",
         q_header(f"({2**64}, 2, 64)")),
    Case("npy-dim-2^62", "sk16", USAGE, "overflows 64-bit sizes", "q",
         q_header(f"({2**62}, 2, 64)")),
    Case("npy-dim-2^55-2d", "sk16", USAGE, "overflows 64-bit sizes", "dq",
         dq_header(f"({2**55}, 128)")),
    Case("npy-dim-abc", "sk16", USAGE, "malformed shape entry 'abc'", "q",
         q_header("(abc, 2, 64)")),
    Case("npy-dim-float", "sk16", USAGE, "malformed shape entry '384.5'", "q",
         q_header("(384.5, 2, 64)")),
    Case("npy-dim-expression", "sk16", USAGE, "malformed shape entry '1<<40'", "q",
         q_header("(1<<40, 2, 64)")),
    Case("npy-zero-rows-with-data", "sk16", USAGE, "holds 10240 data bytes but shape [0, 2, 64]",
         "q", q_header("(0, 2, 64)")),
    Case("npy-trailing-bytes", "sk16", USAGE, "holds 10242 data bytes but shape [40, 2, 64]",
         "k", npy_with_trailing_bytes),
    Case("npy-fortran-maybe", "sk16", USAGE, "'fortran_order' must be False or True", "q",
         q_header("(40, 2, 64)", fortran="Maybe")),
    # NumPy writes '=u2' for native byte order: accepted by both.
    Case("npy-native-byte-order", "sk16", OK, "", None, q_header("(40, 2, 64)", descr="=u2")),
    # Scalar reads and views past the end of a tensor.
    Case("actual-kv-shorter", "sk16", FAULT,
         "scalar read actual_kv[3] is out of range: dim 0 of 'actual_kv' has 3 elements",
         "actual_kv", set_input("actual_kv", np.array([0, 32, 40], np.int32))),
    Case("offsets-far-past-the-end", "sk16", FAULT,
         "view reads [16, 112) of dim 0 but tensor 'q' has only 40 there", "q",
         set_input("actual_q", np.array([0, 16, 2**31 - 1], np.int32))),
    Case("actual-kv-past-the-end-of-k", "sk16", FAULT,
         "view reads [32, 41) of dim 0 but tensor 'k' has only 40 there", "k",
         set_input("actual_kv", np.array([0, 32, 41], np.int32))),
    Case("reshape-size-mismatch", "sk16", FAULT,
         "reshape of 'o' [40, 2, 64] to [39, 128] needs 4992 elements but the tensor has 5120",
         "o", shorter_q_than_o),
    # Integer division.
    Case("division-by-runtime-zero", "divide", FAULT, "integer division by zero", None,
         values={"t": [5, 0, 0]}, where="arith.divsi"),
    Case("division-int64-min-by-minus-one", "divide", FAULT,
         f"integer division overflow: {I64_MIN} / -1", None, values={"t": [I64_MIN, -1, 0]},
         where="arith.divsi"),
    Case("ceildiv-by-constant-zero", "divide", FAULT, "integer division by zero", None,
         values={"t": [0, 1, 1]}, where="arith.ceildivsi"),
    # Writing and memory.
    Case("output-to-dev-full", "sk16", USAGE, "cannot write", "dq", setup="dev_full"),
    Case("out-of-memory", "sk16", USAGE, "out of memory allocating 4294967296 bytes for", "q",
         q_header(f"({2**24}, 2, 64)", payload=b""), setup="oom"),
    # The emitted program's flags.
    Case("threads-huge", "sk16", USAGE, "--threads expects an integer in 0..256, got '99999999999'",
         None, run_flags=("--threads", "99999999999"), pto_run=False),
    Case("threads-5000", "sk16", USAGE, "--threads expects an integer in 0..256, got '5000'",
         None, run_flags=("--threads", "5000"), pto_run=False),
]


def write_case(case: Case, program: Program, directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    if case.program == "sk16":
        inputs = sk16.make_inputs(CASE, seed=3)
        if case.id == "actual-kv-shorter":
            # A third batch element whose kv offsets lie past actual_kv's end.
            inputs["actual_q"] = np.array([0, 16, 24, 40], np.int32)
    else:
        inputs = {"t": np.array(case.values["t"], np.int64),
                  "out": np.zeros((8, 16), np.float32)}
    for name in program.names:
        if program.dtypes[name] == "int64":
            np.save(directory / f"{name}.npy", inputs[name].astype("<i8"))
        else:
            save_tensor(directory / f"{name}.npy", inputs[name], program.dtypes[name])
    if case.mutate:
        case.mutate(directory, inputs)
    if case.setup == "oom":
        # A sparse 4 GiB payload: the size is real, the disk blocks are not.
        with open(directory / "q.npy", "r+b") as f:
            f.truncate(f.seek(0, os.SEEK_END) + 2**32)
    return directory


def under_asan() -> bool:
    return "asan" in os.environ.get("LD_PRELOAD", "") or "ASAN_OPTIONS" in os.environ


def run(cmd, oom: bool, sanitized: bool, extra_env=None):
    env = dict(os.environ)
    preexec = None
    if sanitized:
        # The emitted program links ASan statically; a preloaded shared
        # runtime (make test-asan-ci) would be a second one.
        env.pop("LD_PRELOAD", None)
        env["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1"
    if oom:
        if sanitized or under_asan():
            # ASan reserves terabytes of shadow: limit its allocator instead.
            env["ASAN_OPTIONS"] = (env.get("ASAN_OPTIONS", "") +
                                   ":allocator_may_return_null=1:max_allocation_size_mb=2048")
        else:
            # Room for the mapped file and the tools' libraries, not for a
            # second 4 GiB copy.
            limit = 2**32 + 2**31

            def preexec():
                resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    return subprocess.run(list(map(str, cmd)), capture_output=True, text=True, env=env,
                          preexec_fn=preexec, timeout=300)


def assert_clean(proc, what):
    # The out-of-memory case makes ASan warn that the allocation it was
    # told to refuse failed; any other sanitizer output is a report.
    stderr = "\n".join(line for line in proc.stderr.splitlines()
                       if "WARNING: AddressSanitizer failed to allocate" not in line)
    for marker in ("AddressSanitizer", "runtime error:", "LeakSanitizer", "LLVM ERROR",
                   "Stack dump", "Traceback"):
        assert marker not in stderr, f"{what}:\n{proc.stderr[-3000:]}"


def params():
    for case in CASES:
        marks = list(case.marks)
        if case.xfail:
            marks.append(pytest.mark.xfail(strict=True, reason=case.xfail))
        for executor in ("pto-run", "emitted"):
            if (executor == "pto-run" and not case.pto_run) or \
               (executor == "emitted" and not case.emitted):
                continue
            yield pytest.param(case, executor, id=f"{case.id}-{executor}", marks=marks)


@pytest.mark.parametrize("case,executor", list(params()))
def test_hostile_case(case, executor, programs, tmp_path):
    program = programs[case.program]
    indir = write_case(case, program, tmp_path / "in")
    outdir = tmp_path / "out"
    outdir.mkdir()
    if case.setup == "dev_full":
        (outdir / "dq.npy").symlink_to("/dev/full")
    if executor == "pto-run":
        cmd = [tool("pto-run"), program.source]
        for name in program.names:
            cmd += ["--input", f"{name}={indir / f'{name}.npy'}"]
        cmd += ["--output-dir", outdir]
        proc = run(cmd, case.setup == "oom", sanitized=False)
    else:
        cmd = [program.exe, "--inputs", indir, "--outputs", outdir, *case.run_flags]
        proc = run(cmd, case.setup == "oom", sanitized=True)
    assert_clean(proc, executor)
    assert proc.returncode == case.code, f"{executor}: exit {proc.returncode}\n{proc.stderr[-3000:]}"
    assert case.words in proc.stderr, proc.stderr[-3000:]
    if case.arg:
        assert f"'{case.arg}'" in proc.stderr, proc.stderr[-3000:]
    if case.where:
        text = program.source.read_text().splitlines()
        line = next(i for i, t in enumerate(text, 1) if case.where in t)
        assert f"{program.source.name}:{line}:" in proc.stderr, proc.stderr[-3000:]
    if case.code == OK:
        for name in program.outputs:
            assert (outdir / f"{name}.npy").exists()


def test_isa_level_ir_names_what_to_run_instead(programs):
    """pto-run on the output of --pto-ascend-pipeline: one clear message."""
    isa = programs["divide"].exe.parent / "divide.isa.mlir"
    proc = run([tool("pto-run"), isa, "--random", "1"], oom=False, sanitized=False)
    assert_clean(proc, "pto-run")
    assert proc.returncode == USAGE, proc.stderr
    assert "is ISA-level IR" in proc.stderr and "pto-translate --pto-to-cpp" in proc.stderr, \
        proc.stderr


def test_emitted_program_runs_clean_under_sanitizers(programs, tmp_path):
    """The control: a valid input runs to completion under ASan + UBSan and
    agrees with pto-run."""
    program = programs["sk16"]
    inputs = sk16.make_inputs(CASE, seed=3)
    out, proc = codegen.run(program.exe, tmp_path / "cpp", inputs, sk16.DTYPES,
                            sk16.OUTPUT_NAMES, names=sk16.INPUT_NAMES)
    assert_clean(proc, "emitted")
    gold = sk16.golden_backward(inputs, CASE.N, CASE.D)
    sk16.assert_matches_golden(out, gold)
