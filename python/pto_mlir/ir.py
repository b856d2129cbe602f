"""In-process bindings: parse, verify, run pass pipelines (the checkers too),
run kernels in the reference interpreter on NumPy arrays, compare programs.

Everything runs inside this process through ``pto_mlir._pto`` (pybind11 over
the project's C++ libraries); no tool is started. Diagnostics keep the
locations of the IR, so IR traced from Python reports the Python file:line::

    import pto_mlir.ir as ir
    m = ir.Module.parse_file("examples/sk16_attention_backward.mlir")
    m.check_skeleton("sk16")                 # [] or findings (DiagnosticError on errors)
    m.run_pipeline("canonicalize,cse")
    result = m.run({"q": q_bits, ..., "dq": dq})   # dq updated in place
    print(m)

Failures raise ``DiagnosticError`` (with ``.diagnostics``); kernel faults at
run time raise ``KernelFault``; bad inputs ``ArgumentError``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from . import native
from .native import NativeModuleNotFound, native_path  # noqa: F401  (re-exported)

__all__ = [
    "ArgumentError", "Context", "Diagnostic", "DiagnosticError", "KernelArgument",
    "KernelFault", "KernelInfo", "Module", "NativeModuleNotFound", "PTOError",
    "RunResult", "default_context", "native_path", "structural_difference",
]


# ----------------------------------------------------------------------------
# Diagnostics and errors
# ----------------------------------------------------------------------------

@dataclass(frozen=True)
class Diagnostic:
    """One diagnostic: severity, where (first file:line:col of its location),
    what, and attached notes."""

    severity: str
    file: str
    line: int
    column: int
    message: str
    notes: tuple = ()
    formatted: str = ""

    @classmethod
    def _from_native(cls, d: dict) -> "Diagnostic":
        return cls(d["severity"], d["file"], d["line"], d["column"], d["message"],
                   tuple(cls._from_native(n) for n in d["notes"]), d["formatted"])

    @property
    def location(self) -> str:
        return f"{self.file}:{self.line}:{self.column}" if self.file else ""

    def __str__(self) -> str:
        return self.formatted


def _diagnostics(raw: Iterable[dict]) -> list:
    return [Diagnostic._from_native(d) for d in raw]


class PTOError(Exception):
    """Base class of the errors raised by pto_mlir.ir."""


class DiagnosticError(PTOError):
    """An operation failed; ``diagnostics`` holds what MLIR reported."""

    def __init__(self, summary: str, diagnostics: Sequence[Diagnostic]):
        self.summary = summary
        self.diagnostics = list(diagnostics)
        lines = [summary] + [str(d) for d in self.diagnostics]
        super().__init__("\n".join(lines))

    @property
    def errors(self) -> list:
        return [d for d in self.diagnostics if d.severity == "error"]


class KernelFault(DiagnosticError):
    """The interpreter stopped at a run-time fault (out-of-bounds access, bad
    scalar read, mismatched valid extents, ...), reported at the faulting op."""


class ArgumentError(PTOError, ValueError):
    """Kernel arguments that do not match the kernel signature."""


# ----------------------------------------------------------------------------
# Context and modules
# ----------------------------------------------------------------------------

class Context:
    """An MLIR context with every dialect a pto kernel uses. Modules keep
    their context alive; modules compared structurally must share one.
    ``print_op_on_diagnostic`` attaches the offending op (generic form) to
    verifier and pass errors as a note, as pto-opt does."""

    def __init__(self, print_op_on_diagnostic: bool = False):
        self._native = native.load().Context(print_op_on_diagnostic)


_default_context = None


def default_context() -> Context:
    global _default_context
    if _default_context is None:
        _default_context = Context()
    return _default_context


@dataclass(frozen=True)
class KernelArgument:
    name: str
    type: str                 # "!pto.tensor<?x8x128xbf16>"
    shape: tuple              # None for dynamic dims
    element_type: str         # "bf16"
    numpy_dtype: str | None   # how the interpreter takes it ("<u2" for bf16)
    cumulative: bool          # pto.cumulative offsets
    written: bool             # written by atomic_add / assemble: an output
    nz_fractal_cols: int = 0  # C0 of a pto.layout = "nz" argument (its data is NZ storage)


@dataclass(frozen=True)
class KernelInfo:
    name: str
    arch: str
    args: tuple

    def arg(self, name: str) -> KernelArgument:
        for a in self.args:
            if a.name == name:
                return a
        raise KeyError(f"@{self.name} has no argument '{name}' "
                       f"(arguments: {', '.join(a.name for a in self.args)})")

    @property
    def outputs(self) -> list:
        return [a.name for a in self.args if a.written]


@dataclass
class RunResult:
    """What ``Module.run`` returns: the arrays of the written arguments (the
    caller's arrays, updated in place) and the interpreter's counters."""

    outputs: dict
    stats: dict = field(default_factory=dict)

    def __repr__(self) -> str:
        # Shapes and dtypes, not the arrays: a result prints in one line
        # however large the kernel's outputs are.
        def describe(value) -> str:
            shape = getattr(value, "shape", None)
            dtype = getattr(value, "dtype", None)
            if shape is None or dtype is None:
                return type(value).__name__
            return f"{dtype}[{'x'.join(map(str, shape))}]"

        outputs = ", ".join(f"{name}: {describe(value)}" for name, value in self.outputs.items())
        return f"RunResult(outputs={{{outputs}}}, stats={self.stats!r})"


class Module:
    """A parsed and verified module holding pto kernels."""

    def __init__(self, native_module, context: Context):
        self._native = native_module
        self.context = context

    # -- construction --------------------------------------------------------

    @classmethod
    def parse(cls, text: str, name: str = "<string>", context: Context | None = None) -> "Module":
        """Parses and verifies ``text``; ``name`` is the buffer name diagnostics
        show for locations inside the text."""
        context = context or default_context()
        module, diags = native.load().parse(context._native, text, name)
        diags = _diagnostics(diags)
        if module is None:
            raise DiagnosticError(f"'{name}' does not parse or verify:", diags)
        return cls(module, context)

    @classmethod
    def parse_file(cls, path: str | os.PathLike, context: Context | None = None) -> "Module":
        path = Path(path)
        return cls.parse(path.read_text(), str(path), context)

    def clone(self) -> "Module":
        return Module(self._native.clone(), self.context)

    # -- checks and passes -----------------------------------------------------

    def verify(self) -> list:
        """Verifies the module; returns warnings/remarks, raises on errors."""
        ok, diags = self._native.verify()
        diags = _diagnostics(diags)
        if not ok:
            raise DiagnosticError("verification failed:", diags)
        return diags

    def run_pipeline(self, pipeline: str) -> list:
        """Runs a textual pass pipeline in place: anchored
        (``builtin.module(pto-check-skeleton{skeleton=sk16})``) or a bare pass
        list (``canonicalize,cse``). Returns the remarks and warnings the
        passes emitted; raises ``DiagnosticError`` if a pass fails or the
        pipeline does not parse."""
        ok, diags = self._native.run_pipeline(pipeline)
        diags = _diagnostics(diags)
        if not ok:
            raise DiagnosticError(f"pass pipeline '{pipeline}' failed:", diags)
        return diags

    def emit_cpp(self) -> str:
        """``pto-translate --pto-to-cpp`` in-process: the module (after
        ``pto-ascend-pipeline``) as pto-isa C++ (docs/Codegen.md). Raises
        ``DiagnosticError`` when the module cannot be printed."""
        ok, text, diags = self._native.emit_cpp()
        if not ok:
            raise DiagnosticError("pto-to-cpp failed:", _diagnostics(diags))
        return text

    def check_skeleton(self, skeleton: str = "sk16") -> list:
        """``pto-check-skeleton``: the skeleton's coding rules. Returns the
        findings (warnings); rule errors raise ``DiagnosticError``."""
        return self.run_pipeline(f"builtin.module(pto-check-skeleton{{skeleton={skeleton}}})")

    def lint(self) -> list:
        """``pto-lint``: the skeleton-independent rules."""
        return self.run_pipeline("builtin.module(pto-lint)")

    # -- printing --------------------------------------------------------------

    def to_string(self, generic: bool = False, debug_info: bool = False) -> str:
        return self._native.to_string(generic, debug_info)

    def __str__(self) -> str:
        return self.to_string()

    # -- kernels -----------------------------------------------------------------

    def kernels(self) -> list:
        result = []
        for k in self._native.kernels():
            args = tuple(KernelArgument(a["name"], a["type"], tuple(a.get("shape", ())),
                                        a.get("element_type", ""), a.get("numpy_dtype"),
                                        a["cumulative"], a["written"],
                                        a.get("nz_fractal_cols", 0)) for a in k["args"])
            result.append(KernelInfo(k["name"], k["arch"], args))
        return result

    def kernel(self, name: str | None = None) -> KernelInfo:
        kernels = self.kernels()
        if name is None:
            if len(kernels) != 1:
                raise ValueError(f"the module holds {len(kernels)} kernels; name one "
                                 f"({', '.join(k.name for k in kernels)})")
            return kernels[0]
        for k in kernels:
            if k.name == name:
                return k
        raise ValueError(f"no kernel named '{name}' "
                         f"(kernels: {', '.join(k.name for k in kernels)})")

    def run(self, inputs: Mapping | Sequence, kernel: str | None = None,
            shuffle_atomics: int | None = None) -> RunResult:
        """Runs a kernel in the reference interpreter (``pto-run``'s engine).

        ``inputs`` maps every argument name to a NumPy array (or gives them in
        order): BF16 as ``uint16`` bit patterns, FP32 ``float32``, INT32
        ``int32``, ... (``docs/Interpreter.md``). Arguments the kernel writes
        are updated in place; outputs start as the values given. An NZ
        argument (``pto.layout = "nz"``, ``KernelArgument.nz_fractal_cols``)
        is given as its NZ storage (``frontend.dtypes.nz_storage``).
        ``shuffle_atomics`` applies atomic contributions in a shuffled order.
        """
        import numpy as np

        info = self.kernel(kernel)
        if isinstance(inputs, Mapping):
            unknown = sorted(set(inputs) - {a.name for a in info.args})
            if unknown:
                raise ArgumentError(f"@{info.name} has no argument(s) {', '.join(unknown)} "
                                    f"(arguments: {', '.join(a.name for a in info.args)})")
            missing = [a.name for a in info.args if a.name not in inputs]
            if missing:
                raise ArgumentError(f"@{info.name}: no data for argument(s) {', '.join(missing)}")
            given = [inputs[a.name] for a in info.args]
        else:
            given = list(inputs)
            if len(given) != len(info.args):
                raise ArgumentError(f"@{info.name} takes {len(info.args)} arguments "
                                    f"({', '.join(a.name for a in info.args)}), got {len(given)}")

        arrays, copies = [], []
        for arg, value in zip(info.args, given):
            if not isinstance(value, np.ndarray):
                raise ArgumentError(f"argument '{arg.name}' must be a NumPy array, "
                                    f"got {type(value).__name__}")
            if arg.numpy_dtype is None:
                raise ArgumentError(f"argument '{arg.name}' ({arg.type}) cannot be held "
                                    f"by the interpreter")
            want = np.dtype(arg.numpy_dtype)
            if value.dtype != want:
                hint = (" (BF16 tensors are passed as their uint16 bit patterns: "
                        "pto_mlir.golden.bf16.f32_to_bf16_bits)"
                        if arg.element_type == "bf16" else "")
                raise ArgumentError(f"argument '{arg.name}' is {arg.type}: expected a "
                                    f"{want} array, got {value.dtype}{hint}")
            if arg.written and not value.flags.writeable:
                raise ArgumentError(f"argument '{arg.name}' is written by the kernel but "
                                    f"its array is read-only")
            contiguous = np.ascontiguousarray(value)
            arrays.append(contiguous)
            copies.append(contiguous is not value)

        status, message, diags, stats = self._native.run(
            kernel or "", arrays, shuffle_atomics)
        diags = _diagnostics(diags)
        if status == "input":
            raise ArgumentError(message)
        if status == "fault":
            raise KernelFault(f"@{info.name} faulted:", diags)
        outputs = {}
        for arg, array, original, copied in zip(info.args, arrays, given, copies):
            if arg.written:
                if copied:
                    original[...] = array
                outputs[arg.name] = original
        return RunResult(outputs, dict(stats))

    # -- comparison ----------------------------------------------------------------

    def structural_difference(self, other: "Module") -> str | None:
        """None if both modules are structurally equivalent (SSA names,
        locations, the order of side-effect-free ops and where constants live
        do not matter; see include/pto/Embedding/StructuralEquivalence.h),
        else a description of the first difference."""
        if other.context is not self.context:
            raise ValueError("structural comparison needs both modules in one Context")
        equal, difference = native.load().structurally_equal(self._native, other._native)
        return None if equal else difference

    def structurally_equals(self, other: "Module") -> bool:
        return self.structural_difference(other) is None


def structural_difference(lhs: str | Module, rhs: str | Module,
                          context: Context | None = None) -> str | None:
    """Compares two programs given as IR text or modules (see
    ``Module.structural_difference``)."""
    context = context or (lhs.context if isinstance(lhs, Module) else
                          rhs.context if isinstance(rhs, Module) else default_context())
    a = lhs if isinstance(lhs, Module) else Module.parse(lhs, "<lhs>", context)
    b = rhs if isinstance(rhs, Module) else Module.parse(rhs, "<rhs>", context)
    return a.structural_difference(b)
