"""The PyPTO-Gym corpus harness (test_pypto_gym.py): every @jit kernel of
every kernel file in ../shared/pypto-gym, loaded unmodified, run through the
toolchain on its own test's inputs and compared with its own golden at its
own tolerances.

How a case runs: the harness imports the kernel's test module unmodified
(``pto_mlir.kernel_files``: ``import pypto`` is our front end, torch is
Debian's CPU torch, torch_npu a host stand-in) and calls the test's own case
function (``_run_case(case, "npu:0")``, ``test_03()``, ...) with the ``npu``
device mapped to the host. The test creates its inputs, computes its golden,
calls the kernel's host wrapper, which calls the @jit kernel with torch
tensors, and compares. ``pypto.run_kernels_with`` decides what a kernel call
runs: the reference interpreter (pto-run column), ``pto-opt
--pto-tile-graph-pipeline`` then pto-run (tile-graph column), or the emitted
C++ on the host emulation (C++ column). Cases too large for CI run trace-only:
kernel calls are traced, not run, and the test's compare of the never-computed
outputs is ignored: mode "meta" maps the ``npu`` device to ``meta`` (tensors
without data); mode "trace" keeps CPU tensors; mode "large" (a test whose host code needs values, e.g. a torch
golden over 4096 x 4096 scores taking a minute and more on CPU) runs only with
PTO_GYM_LARGE=1 and is skipped, visibly, otherwise.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import logging
import os
import re
import subprocess
import traceback as tb
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

REPO_ROOT = Path(__file__).resolve().parents[2]
CORPUS = REPO_ROOT.parent / "shared" / "pypto-gym"
SRC = CORPUS / "src"
OPS = SRC / "pypto_gym" / "ops" / "pypto_tensor"
KERNELS = OPS / "experimental"
TESTS = CORPUS / "tests" / "ops" / "experimental"
FRONTEND_DIR = REPO_ROOT / "python" / "pto_mlir" / "frontend"

COLUMNS = ("traced", "verified", "pto-run", "tile graph", "C++")


# ----------------------------------------------------------------------------
# The corpus: which test function runs which case
# ----------------------------------------------------------------------------

@dataclass(frozen=True)
class Case:
    suite: str
    case_id: str
    run: object            # run(test_module) -> None; raises on a mismatch
    mode: str = "run"      # run; trace: traced, not run (CPU tensors); meta: the same with
                           # npu -> meta; large: "trace", only with PTO_GYM_LARGE=1
    cpp: bool = False      # the case the C++ column runs for this suite

    @property
    def numeric(self) -> bool:
        return self.mode == "run"

    @property
    def name(self) -> str:
        return f"{self.suite}-{self.case_id}"


@dataclass(frozen=True)
class Suite:
    name: str
    kernel_file: str       # under KERNELS
    test_file: str         # under TESTS, or under KERNELS when the test is in the kernel file
    arch: str
    cases: tuple           # ((case_id, runner, mode), ...); C++ runs the first "run" one


def _json_case(case_id):
    def run(module):
        [case] = [c for c in module._load_cases() if c["id"] == case_id]
        ok = module._run_case(case, "npu:0")
        assert ok is not False, (f"{case_id}: the test's _run_case reports outputs beyond its "
                                 f"tolerances (rtol={case.get('rtol')}, atol={case.get('atol')}; "
                                 f"the test's log above has the errors)")
    return run


def _test_function(name, *args):
    def run(module):
        result = getattr(module, name)(*args)
        assert result is not False, f"{name} returned False (the test's compare failed)"
    return run


def _bn_case(index):
    def run(module):
        shape = module.DEFAULT_TEST_SHAPES[index - 1]
        module.run_bn_reduce_case(index, shape, "npu:0")
    return run


FA_GRAD = "ops_transformer/flash_attention_mha_grad"
FA_FWD = "ops_transformer/flash_attention_mha"
SUITES = (
    Suite("FAGradA3", f"{FA_GRAD}/flash_attention_mha_grad_impl_a3.py",
          f"{FA_GRAD}/test_flash_attention_mha_grad_a3.py", "DAV_2201",
          (("test_03", _test_function("test_03"), "run"),
           ("test_05", _test_function("test_05"), "run"),
           ("test_09_varlen_cross_attn", _test_function("test_09_varlen_cross_attn"), "run"))),
    Suite("FAGrad950", f"{FA_GRAD}/flash_attention_mha_grad_impl.py",
          f"{FA_GRAD}/test_flash_attention_mha_grad.py", "DAV_3510",
          (("test_03", _test_function("test_03"), "run"),
           ("test_05", _test_function("test_05"), "run"))),
    Suite("FAFwd", f"{FA_FWD}/flash_attention_mha_impl.py",
          f"{FA_FWD}/test_flash_attention_mha.py", "DAV_2201",
          (("test_03", _test_function("test_03"), "run"),
           ("test_05", _test_function("test_05"), "run"),
           ("test_00_910_1b", _test_function("test_00_910_1b"), "large"))),
    # on DAV_3510 the dispatcher takes flash_attention_varlen_forward_950 only for
    # the 128-tile config of test_02 (1 x 8 x 4096 x 4096 x 128): traced, not run
    Suite("FAFwd950", f"{FA_FWD}/flash_attention_mha_impl.py",
          f"{FA_FWD}/test_flash_attention_mha.py", "DAV_3510",
          (("test_03", _test_function("test_03"), "run"),
           ("test_02", _test_function("test_02"), "large"))),
    Suite("SwiGLUGrad", "ops_transformer/fused_swiglu_grad/fused_swiglu_grad_impl.py",
          "ops_transformer/fused_swiglu_grad/test_fused_swiglu_grad.py", "DAV_2201",
          # its one case is [220000, 512] @ [512, 1024]: traced at that shape, not run
          (("test_bwd", _test_function("test_bwd", 0), "meta"),)),
    Suite("ApplyAdamWV2", "vector/ApplyAdamWV2/apply_adam_w_v2_impl.py",
          "vector/ApplyAdamWV2/test_apply_adam_w_v2.py", "DAV_2201",
          (("level0", _json_case("level0"), "run"),
           ("level1", _json_case("level1"), "run"))),
    Suite("InplaceAddRmsNorm", "vector/InplaceAddRmsNorm/inplace_add_rms_norm_impl.py",
          "vector/InplaceAddRmsNorm/test_inplace_add_rms_norm.py", "DAV_2201",
          (("level0", _json_case("level0"), "run"),
           ("level1", _json_case("level1"), "run"))),
    Suite("BNTrainingReduce", "vector/BNTrainingReduce/bn_training_reduce.py",
          "vector/BNTrainingReduce/bn_training_reduce.py", "DAV_2201",
          (("case1", _bn_case(1), "run"), ("case2", _bn_case(2), "run"))),
    Suite("InterleaveRope", "vector/InterleaveRope/interleave_rope_impl.py",
          "vector/InterleaveRope/test_interleave_rope.py", "DAV_2201",
          (("level0", _json_case("level0"), "run"),
           ("level3", _json_case("level3"), "run"),
           ("level5", _json_case("level5"), "run"),
           ("level6", _json_case("level6"), "run"),
           ("level1", _json_case("level1"), "trace"))),
    # level10 ([2, 128, 1024, 64], S_cs = S) is the one the wrapper sends to the 950
    # kernel (deinterleave): traced, not run
    Suite("InterleaveRope950", "vector/InterleaveRope/interleave_rope_impl.py",
          "vector/InterleaveRope/test_interleave_rope.py", "DAV_3510",
          (("level1", _json_case("level1"), "trace"),
           ("level10", _json_case("level10"), "trace"))),
    Suite("GatherPaKvCache", "vector/GatherPaKvCache/gather_pa_kv_cache_impl.py",
          "vector/GatherPaKvCache/test_gather_pa_kv_cache.py", "DAV_2201",
          # key_cache is [5513, 128, 1, 512] bf16 (722 MB) in every case
          (("level0", _json_case("level0"), "large"),)),
)

LARGE = os.environ.get("PTO_GYM_LARGE") == "1"


def all_cases() -> list:
    cases = []
    for suite in SUITES:
        first_run = next((c[0] for c in suite.cases if c[2] == "run"), None)
        for case_id, run, mode in suite.cases:
            cases.append(Case(suite.name, case_id, run, mode, case_id == first_run))
    return cases


SUITE_BY_NAME = {s.name: s for s in SUITES}


# ----------------------------------------------------------------------------
# Loading
# ----------------------------------------------------------------------------

_modules: dict = {}


def load_test_module(suite: Suite):
    """The suite's test module, imported unmodified (cached)."""
    from pto_mlir import kernel_files
    if suite.test_file not in _modules:
        base = TESTS if (TESTS / suite.test_file).exists() else KERNELS
        path = base / suite.test_file
        kernel_files.load(KERNELS / suite.kernel_file, [SRC, OPS])
        _modules[suite.test_file] = kernel_files.load(path, [SRC, OPS, path.parent])
    return _modules[suite.test_file]


def jit_kernels_of(suite: Suite) -> dict:
    from pto_mlir import kernel_files
    return kernel_files.jit_kernels(kernel_files.load(KERNELS / suite.kernel_file, [SRC, OPS]))


# ----------------------------------------------------------------------------
# Running a case under an executor
# ----------------------------------------------------------------------------

@dataclass
class Call:
    kernel: str
    traced: object


@dataclass
class Outcome:
    calls: list = field(default_factory=list)
    attempted: list = field(default_factory=list)   # kernels whose trace failed
    phase: str = "host"          # where an error came from: trace, run, host
    error: BaseException | None = None
    error_text: str = ""


def _in_frontend(exc: BaseException) -> bool:
    t = exc.__traceback__
    while t is not None:
        if Path(t.tb_frame.f_code.co_filename).resolve().parent == FRONTEND_DIR:
            return True
        t = t.tb_next
    return False


def shorten(text: str) -> str:
    """Corpus paths relative to the corpus, for the table."""
    return text.replace(str(KERNELS) + "/", "").replace(str(TESTS) + "/", "tests/")


def describe(exc: BaseException) -> str:
    """One line naming the error and, for a Python traceback, where it came
    from (a crash inside the tracer is reported as such)."""
    from pto_mlir import ir
    from pto_mlir.frontend import TraceError
    if isinstance(exc, TraceError):
        return str(exc)
    if isinstance(exc, ir.DiagnosticError):
        first = (exc.errors or exc.diagnostics or [None])[0]
        return f"{type(exc).__name__}: {shorten(str(first) if first else str(exc))}"
    frames = tb.extract_tb(exc.__traceback__)
    where = ""
    if frames:
        last = frames[-1]
        where = f" (at {Path(last.filename).name}:{last.lineno})"
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text}{where}"


def run_case(case: Case, executor) -> Outcome:
    """Runs the case's test function with kernel calls going to
    ``executor(traced, arrays)``; records every call."""
    import pypto
    from pto_mlir import kernel_files
    from pto_mlir.frontend.jit import platform

    suite = SUITE_BY_NAME[case.suite]
    outcome = Outcome()
    module = load_test_module(suite)

    trace_only = not case.numeric

    def record(traced, arrays):
        outcome.calls.append(Call(traced.name, traced))
        if trace_only:
            return      # not run: the outputs keep what the test put there
        outcome.phase = "run"
        executor(traced, arrays)
        outcome.phase = "host"

    saved_arch = platform.npuarch
    platform.npuarch = suite.arch
    log = io.StringIO()     # the test's own report (logging and prints), for the failure reason
    handler = logging.StreamHandler(log)
    logging.getLogger().addHandler(handler)
    try:
        with kernel_files.npu_on_host("meta" if case.mode == "meta" else "cpu"), \
                pypto.run_kernels_with(record), contextlib.redirect_stdout(log):
            case.run(module)
    except BaseException as exc:  # noqa: BLE001 - every failure becomes a column result
        if isinstance(exc, KeyboardInterrupt):
            raise
        if outcome.phase != "run" and (isinstance(exc, pypto.TraceError) or _in_frontend(exc)):
            outcome.phase = "trace"
            # the kernel's frame (its code may be a rewrite of the function: match by name)
            kernels = {(k.fn.__code__.co_filename, k.fn.__name__): name
                       for name, k in jit_kernels_of(suite).items()}
            t = exc.__traceback__
            while t is not None:
                code = t.tb_frame.f_code
                if (code.co_filename, code.co_name) in kernels:
                    outcome.attempted.append(kernels[(code.co_filename, code.co_name)])
                t = t.tb_next
        if trace_only and outcome.phase != "trace" and outcome.calls:
            return outcome      # the test's compare of outputs that were never computed
        outcome.error = exc
        outcome.error_text = describe(exc)
        if outcome.phase == "host":
            reported = [line.strip() for line in log.getvalue().splitlines()
                        if re.search(r"fail|mismatch|max_diff|max_abs|not close", line, re.I)]
            if reported:
                outcome.error_text += "; the test reports: " + " | ".join(reported[-3:])[:600]
    finally:
        logging.getLogger().removeHandler(handler)
        platform.npuarch = saved_arch
    return outcome


# ----------------------------------------------------------------------------
# Executors: the interpreter, the tile-graph pipeline, emitted C++
# ----------------------------------------------------------------------------

class ToolFailure(Exception):
    pass


def interpreter(traced, arrays):
    traced.run(**arrays)


def kernel_workdir(root: Path, traced) -> Path:
    digest = hashlib.sha1(traced.mlir.encode()).hexdigest()[:12]
    d = Path(root) / f"{traced.name}-{digest}"
    d.mkdir(parents=True, exist_ok=True)
    return d


def _first_error(stderr: str) -> str:
    for marker in ("error:", "error"):
        for line in stderr.splitlines():
            if marker in line:
                return shorten(line.strip())[:400]
    return stderr.strip()[-400:]


def _save_inputs(directory: Path, arrays: dict) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    for name, array in arrays.items():
        np.save(directory / f"{name}.npy", np.ascontiguousarray(array), allow_pickle=False)


def _load_outputs(directory: Path, traced, arrays: dict) -> None:
    for name in traced.module().kernel().outputs:
        arrays[name][...] = np.load(directory / f"{name}.npy").reshape(arrays[name].shape)


def tile_graph_executor(root: Path):
    from pto_mlir.tools import run_tool

    def run(traced, arrays):
        d = kernel_workdir(root, traced)
        source, compiled = d / "kernel.mlir", d / "tile_graph.mlir"
        if not compiled.exists():
            source.write_text(traced.mlir)
            r = run_tool("pto-opt", source, "--pto-tile-graph-pipeline",
                         "--mlir-print-debuginfo", "-o", compiled)
            if r.returncode != 0:
                raise ToolFailure("pto-opt --pto-tile-graph-pipeline: " + _first_error(r.stderr))
        _save_inputs(d / "in", arrays)
        args = []
        for name in arrays:
            args += ["--input", f"{name}={d / 'in' / (name + '.npy')}"]
        (d / "out").mkdir(exist_ok=True)
        r = run_tool("pto-run", compiled, *args, "--output-dir", d / "out")
        if r.returncode != 0:
            raise ToolFailure("pto-run on the tile graph: " + _first_error(r.stderr))
        _load_outputs(d / "out", traced, arrays)
    return run


# Emitted programs past this size are built at -O0. The tile graph expands a
# kernel's loops over hardware tiles, so a large case's control program is one
# huge function: ApplyAdamWV2's [7168, 2048] prints 10 MB of C++ (a 161k-line
# control function), which clang -O1 had not finished after 2 CPU minutes; -O0
# builds it in ~10 CPU seconds and the program still runs in seconds.
CPP_O0_BYTES = 2 << 20


def cpp_executor(root: Path):
    from pto_mlir import codegen

    def run(traced, arrays):
        d = kernel_workdir(root, traced)
        exe = d / "kernel"
        if not exe.exists():
            source = d / "kernel.mlir"
            source.write_text(traced.mlir)
            try:
                cpp = codegen.emit_cpp(source, d)
                opt = "-O0" if cpp.stat().st_size > CPP_O0_BYTES else "-O1"
                codegen.compile_cpp(cpp, exe, opt=opt)
            except RuntimeError as error:
                raise ToolFailure("C++ build: " + _first_error(str(error))) from None
        _save_inputs(d / "in", arrays)
        (d / "out").mkdir(exist_ok=True)
        proc = subprocess.run([str(exe), "--inputs", str(d / "in"), "--outputs", str(d / "out")],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise ToolFailure(f"emitted C++ exited with {proc.returncode}: "
                              + _first_error(proc.stderr))
        _load_outputs(d / "out", traced, arrays)
    return run
