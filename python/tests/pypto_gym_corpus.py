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
without data); mode "shapes" makes every tensor of the test shape-only, host
tensors too (torch factories default to ``meta``, ``.cpu()`` keeps it), so a
host golden over 4096 x 4096 scores costs nothing; mode "trace" keeps CPU
tensors; mode "large" (a test whose host code needs values, e.g. a 722 MB
cache it indexes) runs only with PTO_GYM_LARGE=1 and is skipped, visibly,
otherwise.
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
                           # npu -> meta; shapes: every tensor meta, host ones too;
                           # large: "trace", only with PTO_GYM_LARGE=1
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
    cpp: bool = True       # False: no tile-graph / C++ case (another suite runs its kernel)


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


def _test_function_at(name, **shape):
    """The test function ``name`` with the keyword arguments it passes to its
    module's ``run_test`` overridden by ``shape``: its own tile config, inputs,
    golden and compare at a smaller shape (for tests whose only shapes are
    4096 x 4096)."""
    def run(module):
        real = module.run_test

        def at_shape(*args, **kwargs):
            return real(*args, **{**kwargs, **shape})
        module.run_test = at_shape
        try:
            result = getattr(module, name)()
        finally:
            module.run_test = real
        assert result is not False, f"{name} at {shape} returned False (the test's compare failed)"
    return run


def _range_checked_allclose(module):
    """The test module's ``assert_allclose`` followed by a check that can
    fail at the test's input scale: max |actual - desired| <= rtol * max
    |desired| (one rtol of the output's largest value). SwiGLUGrad scales its
    inputs by 1/sqrt(m), so every output is far below its atol (1e-4; at m =
    1100, max |dx| ~ 2e-5, |dW| ~ 8e-7, |db| ~ 2e-4): its own compare passes
    any output, zeros included."""
    real = module.assert_allclose

    def checked(actual, desired, rtol=1e-7, atol=0, **kwargs):
        real(actual, desired, rtol=rtol, atol=atol, **kwargs)
        actual, desired = np.asarray(actual, np.float64), np.asarray(desired, np.float64)
        worst = float(np.abs(actual - desired).max(initial=0.0))
        bound = rtol * float(np.abs(desired).max(initial=0.0))
        assert worst <= bound, (f"max |out - golden| = {worst:.3g} over rtol * max |golden| = "
                                f"{bound:.3g} (shape {desired.shape}; the test's atol {atol} "
                                f"exceeds every value of this output)")
    return checked


def _test_function_with_sizes(name, *args, sizes, range_check=False):
    """The test function ``name`` with the sizes its torch factories create
    remapped (``sizes``: {the test's size: the size run here}): for a test
    that fixes its shape inside the function (SwiGLUGrad's m = 220000), its
    own inputs, golden and compare at a smaller shape. Only factory sizes
    change; the test's other uses of the number (a scale such as
    ``/ math.sqrt(m)``) keep the test's value. ``range_check``: its
    ``assert_allclose`` also checks the error against the output's range
    (_range_checked_allclose)."""
    def run(module):
        import torch
        from torch.overrides import TorchFunctionMode

        factories = {getattr(torch, n) for n in _FACTORIES}

        def remap(a):
            if isinstance(a, int) and not isinstance(a, bool):
                return sizes.get(a, a)
            if isinstance(a, (tuple, list)):
                return type(a)(remap(x) for x in a)
            return a

        class _Sizes(TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                kwargs = dict(kwargs or {})
                if func in factories:
                    args = tuple(remap(a) for a in args)
                    if "size" in kwargs:
                        kwargs["size"] = remap(kwargs["size"])
                return func(*args, **kwargs)

        real = module.assert_allclose
        if range_check:
            module.assert_allclose = _range_checked_allclose(module)
        try:
            with _Sizes():
                result = getattr(module, name)(*args)
        finally:
            module.assert_allclose = real
        assert result is not False, f"{name} at {sizes} returned False (the test's compare failed)"
    return run


def _json_case_at(case_id, **inputs):
    """The JSON case ``case_id`` run by the test's own ``_run_case`` with
    entries of its ``input`` replaced (e.g. a smaller cache): the test's
    inputs, golden and compare at that shape."""
    def run(module):
        import copy
        [case] = [copy.deepcopy(c) for c in module._load_cases() if c["id"] == case_id]
        case["input"].update(copy.deepcopy(inputs))
        ok = module._run_case(case, "npu:0")
        assert ok is not False, (f"{case_id} with {inputs}: the test's _run_case reports outputs "
                                 f"beyond its tolerances (the test's log above has the errors)")
    return run


def _json_case_with_kernel(case_id, wrapper, table_key, kernel, **inputs):
    """``_json_case_at`` with one entry (``table_key``) of the dispatch table
    ``_KERNELS`` of the kernel file the test's ``wrapper`` comes from
    replaced by that file's @jit kernel ``kernel`` (a dtype in the key by
    its torch name): a kernel the wrapper
    selects only at a shape too large for CI, run at a small one through the
    test's own inputs, golden and compare."""
    import sys
    case = _json_case_at(case_id, **inputs)

    def run(module):
        import torch
        key = tuple(getattr(torch, k) if isinstance(k, str) else k for k in table_key)
        impl = sys.modules[getattr(module, wrapper).__module__]
        real = impl._KERNELS[key]
        impl._KERNELS[key] = getattr(impl, kernel)
        try:
            case(module)
        finally:
            impl._KERNELS[key] = real
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
          # test_04 first: the tile graph and C++ run on it (test_03/05 are xfails)
          (("test_04", _test_function("test_04"), "run"),
           ("test_03", _test_function("test_03"), "run"),
           ("test_05", _test_function("test_05"), "run"),
           # the same K/V reshape as the A3 kernel (KERNEL_BUGS)
           ("test_09_varlen_cross_attn", _test_function("test_09_varlen_cross_attn"), "run"))),
    Suite("FAFwd", f"{FA_FWD}/flash_attention_mha_impl.py",
          f"{FA_FWD}/test_flash_attention_mha.py", "DAV_2201",
          (("test_03", _test_function("test_03"), "run"),
           ("test_05", _test_function("test_05"), "run"))),
    # flash_attention_varlen_forward_kernel_910 (perf_910: 2048-row tiles) is only
    # called by test_00_910_* (4096 x 4096): traced at that shape, run with one
    # head and 128 queries (its KV length is fixed: seq_len_k = 4096 in the kernel)
    Suite("FAFwd910", f"{FA_FWD}/flash_attention_mha_impl.py",
          f"{FA_FWD}/test_flash_attention_mha.py", "DAV_2201",
          (("test_00_910_1b-n1s128", _test_function_at(
              "test_00_910_1b", num_heads=1, s1_size=128, s2_size=4096), "run"),
           ("test_00_910_1b", _test_function("test_00_910_1b"), "shapes"))),
    # the generic kernel at DAV_3510: its tile graph and C++ run in FAFwd (the 950
    # path, split MIX scopes and 950 buffers, runs in FAFwd950Tile128, FAGrad950)
    Suite("FAFwd950", f"{FA_FWD}/flash_attention_mha_impl.py",
          f"{FA_FWD}/test_flash_attention_mha.py", "DAV_3510",
          (("test_03", _test_function("test_03"), "run"),), cpp=False),
    # on DAV_3510 the dispatcher takes flash_attention_varlen_forward_950 only for
    # test_02's 128-tile config (1 x 8 x 4096 x 4096 x 128): traced at that shape,
    # run at 2 x 2 tiles of 128 per head
    Suite("FAFwd950Tile128", f"{FA_FWD}/flash_attention_mha_impl.py",
          f"{FA_FWD}/test_flash_attention_mha.py", "DAV_3510",
          (("test_02-n2s256", _test_function_at(
              "test_02", num_heads=2, s1_size=256, s2_size=256), "run"),
           ("test_02", _test_function("test_02"), "shapes"))),
    Suite("SwiGLUGrad", "ops_transformer/fused_swiglu_grad/fused_swiglu_grad_impl.py",
          "ops_transformer/fused_swiglu_grad/test_fused_swiglu_grad.py", "DAV_2201",
          # its one case fixes m = 220000 inside test_bwd ([m, 512] @ [512, 1024]):
          # traced at that shape, run at m = 1100 (two 1024-row tiles, the second
          # partial, in the b and x kernels; one partial 2048-row tile in w) with
          # the test's own inputs, golden and tolerances, plus a range check its
          # atol makes necessary (_range_checked_allclose)
          (("test_bwd-m1100", _test_function_with_sizes("test_bwd", 0, sizes={220000: 1100},
                                                       range_check=True),
            "run"),
           ("test_bwd", _test_function("test_bwd", 0), "meta"))),
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
           ("level1", _json_case("level1"), "trace"),
           # the wrapper's other kernels, each at a small shape that selects it
           # (its own inputs, golden and tolerances): level2's S_cs = 1 at S = 20
           # (n128_bf16_broadcast), S = 1 (n128_bf16_short_s), fp16 with N = 128
           # (n128_fp16), N = 1 with S_cs = 1 (n1_bf16_broadcast). The wrapper
           # takes n128_bf16_unroll only for S > 2048 (level4/8, 67M+ elements;
           # S = 2056 costs ~40 s here): level8 at B = 1, S = 40 with the
           # wrapper's N = 128 bf16 entry pointed at it (three 16-row S tiles,
           # the last partial: its unroll_list [4, 2, 1] runs 2 + 1)
           ("level2-s20", _json_case_at("level2", shape=[2, 128, 20, 64],
                                        cos_shape=[2, 1, 1, 64], sin_shape=[2, 1, 1, 64]), "run"),
           ("level8-unroll-b1s40", _json_case_with_kernel(
               "level8", "interleave_rope_wrapper", (128, "bfloat16"),
               "interleave_rope_kernel_n128_bf16_unroll", shape=[1, 128, 40, 64],
               cos_shape=[1, 1, 40, 64], sin_shape=[1, 1, 40, 64]), "run"),
           ("level5-s1", _json_case_at("level5", shape=[4, 128, 1, 64],
                                       cos_shape=[4, 1, 1, 64], sin_shape=[4, 1, 1, 64]), "run"),
           ("level3-n128s20", _json_case_at("level3", shape=[1, 128, 20, 64],
                                            cos_shape=[1, 1, 20, 64],
                                            sin_shape=[1, 1, 20, 64]), "run"),
           ("level6-s70cs1", _json_case_at("level6", shape=[2, 1, 70, 64],
                                           cos_shape=[2, 1, 1, 64], sin_shape=[2, 1, 1, 64]),
            "run"))),
    # level10 ([2, 128, 1024, 64], S_cs = S) is the one the wrapper sends to the 950
    # kernel (deinterleave): traced, not run
    Suite("InterleaveRope950", "vector/InterleaveRope/interleave_rope_impl.py",
          "vector/InterleaveRope/test_interleave_rope.py", "DAV_3510",
          (("level1", _json_case("level1"), "trace"),
           ("level10", _json_case("level10"), "trace"))),
    Suite("GatherPaKvCache", "vector/GatherPaKvCache/gather_pa_kv_cache_impl.py",
          "vector/GatherPaKvCache/test_gather_pa_kv_cache.py", "DAV_2201",
          # key_cache is [5513, 128, 1, 512] bf16 (722 MB) in every case; the cases
          # use at most 4 blocks (one per query), and the kernel takes the block
          # count from the cache's dynamic dim 0, so they run with an 8-block
          # cache (the test's make_case fills it and its block tables): level0
          # (4 queries: loop_unroll's unroll-2 body) and level9 (3: also its
          # remainder); the real cache only with PTO_GYM_LARGE=1
          (("level0-8blocks", _json_case_at("level0", key_cache_shape=[8, 128, 1, 512],
                                            value_cache_shape=[8, 128, 1, 64]), "run"),
           ("level9-8blocks", _json_case_at("level9", key_cache_shape=[8, 128, 1, 512],
                                            value_cache_shape=[8, 128, 1, 64]), "run"),
           ("level0", _json_case("level0"), "large"))),
)

LARGE = os.environ.get("PTO_GYM_LARGE") == "1"


def all_cases() -> list:
    cases = []
    for suite in SUITES:
        first_run = next((c[0] for c in suite.cases if c[2] == "run"), None)
        for case_id, run, mode in suite.cases:
            cases.append(Case(suite.name, case_id, run, mode,
                              suite.cpp and case_id == first_run))
    return cases


SUITE_BY_NAME = {s.name: s for s in SUITES}


# ----------------------------------------------------------------------------
# Loading
# ----------------------------------------------------------------------------

_modules: dict = {}
COMMON_UTILS = OPS / "common_utils"


def _partial_common_utils() -> None:
    """The corpus holds only compare.py and np_compare.py of pypto-gym's
    ``common_utils`` package, whose ``__init__.py`` also imports four siblings
    the corpus does not include (its README.md says so), so ``from
    common_utils import compare`` (the FA forward test) would fail. Registers
    the package with the names of the two present modules, loaded unmodified;
    any other name raises, naming the gap."""
    import importlib
    import sys
    import types
    if "common_utils" in sys.modules or not COMMON_UTILS.is_dir():
        return

    class _Partial(types.ModuleType):
        def __getattr__(self, attr):
            if attr.startswith("__"):
                raise AttributeError(attr)
            raise AttributeError(f"common_utils.{attr}: its module is one of the common_utils "
                                 f"siblings the corpus does not include ({CORPUS}/README.md)")

    package = _Partial("common_utils")
    package.__path__ = [str(COMMON_UTILS)]
    sys.modules["common_utils"] = package
    for present in ("compare", "np_compare"):
        module = importlib.import_module(f"common_utils.{present}")
        for name, value in vars(module).items():
            if callable(value) and getattr(value, "__module__", None) == module.__name__:
                setattr(package, name, value)


def _torch_unravel_index() -> None:
    """``torch.unravel_index`` (torch 2.2; common_utils.compare calls it) on
    Debian 12's torch 1.13: the same function through NumPy (a tuple of index
    tensors, one per dim)."""
    import torch
    if hasattr(torch, "unravel_index"):
        return

    def unravel_index(indices, shape):
        flat = torch.as_tensor(indices).cpu().numpy()
        return tuple(torch.as_tensor(i) for i in np.unravel_index(flat, tuple(shape)))
    torch.unravel_index = unravel_index


def load_test_module(suite: Suite):
    """The suite's test module, imported unmodified (cached)."""
    from pto_mlir import kernel_files
    if suite.test_file not in _modules:
        _partial_common_utils()
        _torch_unravel_index()
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


# torch factories that make a tensor on the default device unless given one
_FACTORIES = ("empty", "zeros", "ones", "full", "rand", "randn", "randint", "randperm",
              "arange", "linspace", "tensor", "as_tensor", "eye")


@contextlib.contextmanager
def host_on_meta():
    """Mode "shapes": host tensors are shape-only too. Factories without a
    device make ``meta`` tensors, ``cpu`` targets become ``meta`` and
    ``.cpu()`` of a meta tensor is the tensor itself (torch 1.13 has no
    default-device context)."""
    import torch
    from torch.overrides import TorchFunctionMode

    factories = {getattr(torch, name) for name in _FACTORIES}

    def is_cpu(device):
        return device == "cpu" or (isinstance(device, torch.device) and device.type == "cpu")

    class _HostOnMeta(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = dict(kwargs or {})
            if func is torch.Tensor.cpu and args and args[0].is_meta:
                return args[0]
            if func in factories and kwargs.get("device") is None:
                kwargs["device"] = "meta"
            if is_cpu(kwargs.get("device")):
                kwargs["device"] = "meta"
            args = tuple("meta" if is_cpu(a) else a for a in args)
            return func(*args, **kwargs)

    with _HostOnMeta():
        yield


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
        with kernel_files.npu_on_host("meta" if case.mode in ("meta", "shapes") else "cpu"), \
                host_on_meta() if case.mode == "shapes" else contextlib.nullcontext(), \
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


def _as_float(array):
    """Outputs as float64 for a comparison (BF16 comes back as its uint16 bit
    patterns, the front end's convention)."""
    if array.dtype == np.uint16:
        from pto_mlir.golden.bf16 import bf16_bits_to_f32
        array = bf16_bits_to_f32(array)
    return np.asarray(array, np.float64)


def against_interpreter(executor, rtol: float, atol: float, diffs: list):
    """``executor`` run on each call's inputs and its outputs compared with
    pto-run's on the same inputs (a copy): for cases whose golden compare is
    a documented xfail of pto-run, a later column still checks that it
    computes what pto-run computes. A mismatch fails the call; the largest
    difference per output is appended to ``diffs``."""
    def run(traced, arrays):
        reference = {name: np.array(array, copy=True) for name, array in arrays.items()}
        interpreter(traced, reference)
        executor(traced, arrays)
        for name in traced.module().kernel().outputs:
            got, want = _as_float(arrays[name]), _as_float(reference[name])
            diff = float(np.max(np.abs(got - want), initial=0.0))
            diffs.append((traced.name, name, diff))
            bad = ~np.isclose(got, want, rtol=rtol, atol=atol, equal_nan=True)
            if bad.any():
                raise ToolFailure(f"{traced.name} output '{name}' differs from pto-run's in "
                                  f"{int(bad.sum())} of {bad.size} elements (max diff "
                                  f"{diff:.3g}, rtol {rtol}, atol {atol})")
    return run


# Emitted programs past this size are built at -O0. The tile graph expands a
# kernel's loops over hardware tiles, so a large case's control program is one
# huge function: ApplyAdamWV2's [7168, 2048] prints 10 MB of C++ (a 161k-line
# control function), which clang -O1 had not finished after 2 CPU minutes; -O0
# builds it in ~10 CPU seconds and the program still runs in seconds.
# fused_swiglu_bwd_b_kernel's 1.5 MB (a straight-line leaf of 128 piece
# chains): 126 CPU s at -O1, 3.7 s at -O0; it runs in 0.37 s instead of
# 0.07 s, with the same outputs.
CPP_O0_BYTES = 1 << 20


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
