"""``@pypto.jit``: a kernel traced to ``pto`` IR and run in-process."""

from __future__ import annotations

import ast
import contextlib
import functools
import inspect
import os
import textwrap
import threading
import warnings
import weakref

from . import dtypes as dt
from .errors import TraceError
from .graph import Location, Printer, Value, resolve_scope_results
from .control import helpers_traceable, traceable
from .trace_context import _state
from .tracer import TensorHandle, Tracer, tensor_type

# The options the pto dialect models (#pto.runtime_options, #pto.pass_options).
_RUNTIME_OPTIONS = ("stitch_function_max_num", "device_sched_mode", "ready_on_host_tensors",
                    "max_workspace_kb", "device_sched_parallelism")
_PASS_OPTIONS = ("vec_nbuffer_setting", "cube_l1_reuse_setting", "cube_nbuffer_setting")
_ARCHES = ("DAV_2201", "DAV_3510")
# What an option PyPTO accepts but pto-mlir does not model means, for the remark that says
# it is carried and ignored (docs/PyPTOModel.md#scopes-and-merge-settings and #runtime-options; PyPTO's docs/api/config/*.md).
_UNMODELLED_MEANINGS = {
    "run_mode": "NPU or cost-model simulator; here every call runs on the host",
    "valid_shape_optimize": "compiles full tiles statically; pto-mlir keeps one dynamic body",
    "ooo_sched_mode": "950 out-of-order scheduling heuristic",
    "sg_set_tunevf_mode": "950 vector-fusion tuning",
    "auto_mix_partition": "950 automatic MIX subgraphs",
    "vf_options": "flags for the Ascend vector-function compiler",
    "compile_monitor_enable": "host compile progress monitor",
    "runtime_debug_mode": "device profiling printout",
    "pg_upper_bound": "graph-partition size bound",
}


class platform:
    """``pypto.platform.npuarch``: the architecture being traced for
    (``trace(..., arch=...)``, default DAV_2201); readable in kernels to
    specialise them like PyPTO's ``if pypto.platform.npuarch == ...``."""

    npuarch = "DAV_2201"


class OptionRemark(UserWarning):
    """A ``@jit`` option PyPTO accepts that pto-mlir carries on the kernel
    (``pto.pypto_options``) without acting on it."""


def split_merge_setting(key: str, value) -> tuple:
    """A merge setting as (modelled entries, unmodelled entries). Integer
    keys and ``"DEFAULT"`` (= -1, docs/PyPTOModel.md#scopes-and-merge-settings) are modelled;
    ``"func{magic}_{order}"`` keys and semantic labels name groups of
    PyPTO's own graph and are carried unmodelled."""
    if not isinstance(value, dict):
        raise TraceError(f"pass option {key} must be a dict {{group: count}}, got {value!r}")
    modelled, unmodelled = {}, {}
    for group, count in value.items():
        if group == "DEFAULT":
            group = -1
        if isinstance(group, str):
            unmodelled[group] = count
            continue
        if isinstance(group, bool) or not isinstance(group, int):
            raise TraceError(f"pass option {key}: key {group!r} must be an int (-1 default, "
                             f"k >= 0 hash-order group k, -2 for vec_nbuffer_setting's "
                             f"multi-input mode) or a string (\"DEFAULT\", func key, label)")
        modelled[group] = count
    return modelled, unmodelled


def merge_setting_text(key: str, value) -> str:
    modelled, unmodelled = split_merge_setting(key, value)
    if unmodelled:
        raise TraceError(f"pass option {key}: group keys {sorted(unmodelled)} (func keys, "
                         f"semantic labels) are not modelled here; use -1 / \"DEFAULT\" for "
                         f"the default and k >= 0 for hash-order group k, or give them in "
                         f"@jit(pass_options=...), which carries them")
    entries = []
    for group, count in modelled.items():
        if isinstance(count, tuple) and len(count) == 2 and isinstance(count[0], int) \
                and count[1] in ("left", "right", "auto"):
            entries.append(f'{group} : ({count[0]}, "{count[1]}")')
        elif isinstance(count, int) and not isinstance(count, bool):
            entries.append(f"{group} : {count}")
        else:
            raise TraceError(f"pass option {key}: value {count!r} for key {group} must be an "
                             f"int or (int, \"left\"|\"right\"|\"auto\")")
    return "{" + ", ".join(entries) + "}"


def _runtime_options_text(options: dict, tensor_names) -> str:
    fields = []
    for key in _RUNTIME_OPTIONS:
        if key not in options:
            continue
        value = options[key]
        if key == "ready_on_host_tensors":
            if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
                raise TraceError("runtime option ready_on_host_tensors must list tensor "
                                 "parameter names")
            unknown = [v for v in value if v not in tensor_names]
            if unknown:
                raise TraceError(f"runtime option ready_on_host_tensors names {unknown}, which "
                                 f"are not tensor parameters ({', '.join(tensor_names)})")
            fields.append(f"{key} = [" + ", ".join(f'"{v}"' for v in value) + "]")
        else:
            if isinstance(value, bool) or not isinstance(value, int):
                raise TraceError(f"runtime option {key} must be an int, got {value!r}")
            fields.append(f"{key} = {value}")
    return "#pto.runtime_options<" + ", ".join(fields) + ">"


def _mlir_string(text: str) -> str:
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch.isprintable() and ord(ch) < 128:
            out.append(ch)
        else:
            out.extend(f"\\{b:02X}" for b in ch.encode())
    return '"' + "".join(out) + '"'


def option_attr_text(value, where: str) -> str:
    """An option value as a typed MLIR attribute: i64, f64, bool, string,
    array, dictionary; enums (``pypto.RunMode.NPU``) by their value."""
    import enum
    import math
    if isinstance(value, enum.Enum):
        value = value.value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return f"{value} : i64"
    if isinstance(value, float):
        if not math.isfinite(value):
            return _mlir_string(repr(value))
        return f"{value:.17e} : f64"
    if isinstance(value, str):
        return _mlir_string(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(option_attr_text(v, f"{where}[{i}]")
                               for i, v in enumerate(value)) + "]"
    if isinstance(value, dict):
        entries = [f"{_mlir_string(str(k))} = {option_attr_text(v, f'{where}[{k!r}]')}"
                   for k, v in value.items() if v is not None]
        return "{" + ", ".join(entries) + "}"
    raise TraceError(f"{where} = {value!r}: a {type(value).__name__} cannot be carried as a "
                     f"kernel attribute; option values are ints, floats, bools, strings and "
                     f"lists or dicts of them")


def _check_option_group(group: str, options, location) -> dict:
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise TraceError(f"@jit({group}=...) must be a dict, got {type(options).__name__}",
                         location)
    bad = [k for k in options if not isinstance(k, str)]
    if bad:
        raise TraceError(f"@jit({group}=...): option names are strings, got {bad[0]!r}",
                         location)
    return dict(options)


def _check_run_mode(value, location):
    """PyPTO accepts RunMode.NPU / RunMode.SIM or 0 / 1 and rejects anything
    else (entry.py: _set_run_mode)."""
    if isinstance(value, bool) or value not in (dt.RunMode.NPU, dt.RunMode.SIM, 0, 1):
        raise TraceError(f"runtime option run_mode = {value!r}: use pypto.RunMode.NPU or "
                         f"pypto.RunMode.SIM (0 or 1)", location)


def _parameter_locations(fn) -> dict:
    """file:line:col of each parameter in the function's source."""
    code = fn.__code__
    default = Location(code.co_filename, code.co_firstlineno, 1)
    try:
        lines, first = inspect.getsourcelines(fn)
    except (OSError, TypeError):
        return {}
    source = "".join(lines)
    dedented = textwrap.dedent(source)
    indent = len(lines[0]) - len(lines[0].lstrip()) if lines else 0
    try:
        tree = ast.parse(dedented)
    except SyntaxError:
        return {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == fn.__name__:
            result = {"__def__": Location(code.co_filename, first + node.lineno - 1,
                                          node.col_offset + indent + 1)}
            for arg in node.args.args + node.args.kwonlyargs:
                result[arg.arg] = Location(code.co_filename, first + arg.lineno - 1,
                                           arg.col_offset + indent + 1)
            return result
    return {"__def__": default}


class TracedKernel:
    """One trace of a ``@jit`` kernel: its ``pto`` IR text (``.mlir``, with
    Python locations) and, through the bindings, the parsed module."""

    def __init__(self, name: str, mlir: str, arch: str, tensor_params: list):
        self.name = name
        self.mlir = mlir
        self.arch = arch
        self.tensor_params = tensor_params
        self._modules = weakref.WeakKeyDictionary()   # Context -> Module

    def __str__(self) -> str:
        return self.mlir

    def module(self, context=None):
        """The parsed, verified module (``pto_mlir.ir.Module``); verifier
        errors raise ``pto_mlir.ir.DiagnosticError`` located at the Python
        lines."""
        from .. import ir
        context = context or ir.default_context()
        if context not in self._modules:
            self._modules[context] = ir.Module.parse(self.mlir, f"<traced {self.name}>",
                                                     context)
        return self._modules[context]

    def run(self, *args, shuffle_atomics=None, **kwargs):
        """Runs the kernel in the reference interpreter on NumPy arrays (by
        position or name); written arguments are updated in place."""
        inputs = dict(zip(self.tensor_params, args))
        inputs.update(kwargs)
        return self.module().run(inputs, shuffle_atomics=shuffle_atomics)

    def compile(self, pipeline: str = "pto-tile-graph-pipeline", context=None):
        """A copy of the module compiled in-process through ``pipeline``: the
        tile graph by default (tasks, leaves, launches; what ``simulate``
        prices), ``"pto-ascend-pipeline"`` for ISA-level IR. Pass errors raise
        ``pto_mlir.ir.DiagnosticError`` located at the Python lines."""
        module = self.module(context).clone()
        module.run_pipeline(pipeline)
        return module

    def emit_cpp(self) -> str:
        """The kernel as pto-isa C++ (``--pto-ascend-pipeline``, then what
        ``pto-translate --pto-to-cpp`` prints), with a host ``main`` under
        ``PTO_HOST_MAIN``; build it with ``pto_mlir.codegen.compile_cpp``."""
        return self.compile("pto-ascend-pipeline").emit_cpp()

    def simulate(self, *args, arch: str = "a3", workdir=None, trace=None, **kwargs):
        """The cost model's estimate of the device time (docs/CostModel.md):
        the compiled tile graph runs in ``pto-run --simulate`` on the arrays
        given as for ``run`` (arguments the kernel only writes may be left
        out: they start at zero). ``trace``: also write a Perfetto trace
        there. Returns a ``Simulation`` (``time_us``, ``launches``, the
        report text); the arrays are not modified."""
        import re
        import tempfile
        from pathlib import Path

        import numpy as np

        from ..tools import run_tool

        inputs = dict(zip(self.tensor_params, args))
        inputs.update(kwargs)
        info = self.module().kernel(self.name)
        unknown = sorted(set(inputs) - {a.name for a in info.args})
        if unknown:
            raise TypeError(f"simulate(): @{self.name} has no argument(s) {', '.join(unknown)} "
                            f"(arguments: {', '.join(a.name for a in info.args)})")
        with contextlib.ExitStack() as stack:
            directory = Path(workdir) if workdir else Path(
                stack.enter_context(tempfile.TemporaryDirectory(prefix="pto-simulate-")))
            (directory / "in").mkdir(parents=True, exist_ok=True)
            graph = directory / f"{self.name}.tile-graph.mlir"
            graph.write_text(self.compile().to_string(debug_info=True))
            for arg in info.args:
                if arg.name not in inputs:
                    continue
                value = np.asarray(inputs[arg.name])
                if arg.numpy_dtype and value.dtype != np.dtype(arg.numpy_dtype):
                    raise TypeError(f"simulate(): argument '{arg.name}' is {arg.type}: expected "
                                    f"a {np.dtype(arg.numpy_dtype)} array, got {value.dtype}")
                np.save(directory / "in" / f"{arg.name}.npy", np.ascontiguousarray(value))
            extra = [f"--trace={trace}"] if trace else []
            r = run_tool("pto-run", graph, "--input-dir", directory / "in",
                         f"--simulate={arch}", *extra)
            if r.returncode != 0:
                raise RuntimeError(f"pto-run --simulate={arch} failed on @{self.name} "
                                   f"(exit {r.returncode}):\n{r.stderr[-4000:]}")
        time = re.search(r"time: ([\d.]+) us", r.stdout)
        launches = re.search(r"launches: (\d+)", r.stdout)
        return Simulation(float(time.group(1)) if time else float("nan"),
                          int(launches.group(1)) if launches else 0, r.stdout)


class Simulation:
    """What ``TracedKernel.simulate`` returns: the modelled device time in
    microseconds, the number of launches and pto-run's whole report."""

    def __init__(self, time_us: float, launches: int, report: str):
        self.time_us = time_us
        self.launches = launches
        self.report = report

    def __repr__(self) -> str:
        return f"Simulation(time_us={self.time_us:g}, launches={self.launches})"


class JitFunction:
    """A kernel decorated with ``@pypto.jit`` / ``@pypto.frontend.jit``."""

    def __init__(self, fn, runtime_options=None, pass_options=None, host_options=None,
                 codegen_options=None, verify_options=None, debug_options=None,
                 new_ir: bool = False, create_new_logical_tensor: bool = False):
        functools.update_wrapper(self, fn)
        self.fn = fn
        self._locations = _parameter_locations(fn)
        location = self._locations.get("__def__")
        groups = {name: _check_option_group(name, value, location) for name, value in (
            ("runtime_options", runtime_options), ("pass_options", pass_options),
            ("host_options", host_options), ("codegen_options", codegen_options),
            ("verify_options", verify_options), ("debug_options", debug_options))}
        runtime = groups["runtime_options"]
        if "run_mode" in runtime:
            _check_run_mode(runtime["run_mode"], location)
        self.runtime_options = {k: v for k, v in runtime.items() if k in _RUNTIME_OPTIONS}
        self.pass_options = {}
        # Everything PyPTO accepts that the dialect does not model: carried on
        # the kernel as pto.pypto_options, with a remark.
        self.unmodelled_options = {}
        for group, options in groups.items():
            modelled = _RUNTIME_OPTIONS if group == "runtime_options" else \
                _PASS_OPTIONS if group == "pass_options" else ()
            for key, value in options.items():
                if value is None:
                    continue
                if key in _PASS_OPTIONS and group == "pass_options":
                    try:
                        kept, rest = split_merge_setting(key, value)
                    except TraceError as error:
                        raise error.locate(location)
                    self.pass_options[key] = kept
                    if rest:
                        self.unmodelled_options.setdefault(group, {})[key] = rest
                elif key not in modelled:
                    self.unmodelled_options.setdefault(group, {})[key] = value
        for flag, value in (("new_ir", new_ir),
                            ("create_new_logical_tensor", create_new_logical_tensor)):
            if not isinstance(value, bool):
                raise TraceError(f"@jit({flag}={value!r}) must be a bool", location)
            if value:
                self.unmodelled_options[flag] = True
        try:
            self._unmodelled_text = option_attr_text(self.unmodelled_options, "@jit option") \
                if self.unmodelled_options else None
        except TraceError as error:
            raise error.locate(location)
        self.remarks = self._option_remarks()
        for remark in self.remarks:
            warnings.warn_explicit(remark, OptionRemark, fn.__code__.co_filename,
                                   location.line if location else fn.__code__.co_firstlineno)
        try:
            annotations = inspect.get_annotations(fn, eval_str=True)
        except Exception as error:  # noqa: BLE001 - report any evaluation failure
            raise TraceError(f"cannot evaluate the parameter annotations of "
                             f"{fn.__name__}: {error}", location) from error
        self.signature = inspect.signature(fn)
        # `x: pypto.Tensor` (the class): shape and dtype from the argument.
        annotations = {name: dt.Tensor() if ann is dt.Tensor else ann
                       for name, ann in annotations.items()}
        self.tensor_params = [name for name in self.signature.parameters
                              if isinstance(annotations.get(name), dt.Tensor)]
        self.annotations = annotations
        self._cache = {}

    def _option_remarks(self) -> list:
        remarks = []
        for group, options in self.unmodelled_options.items():
            if not isinstance(options, dict):
                remarks.append(f"@jit({group}=True) of {self.fn.__name__}: PyPTO's compile "
                               f"path switch; carried in pto.pypto_options, no effect here")
                continue
            for key, value in options.items():
                meaning = _UNMODELLED_MEANINGS.get(key)
                what = f" ({meaning})" if meaning else ""
                remarks.append(f"@jit {group}[{key!r}] = {value!r} of {self.fn.__name__}"
                               f"{what}: not modelled by pto-mlir; carried in "
                               f"pto.pypto_options and ignored")
        return remarks

    # -- tracing --------------------------------------------------------------------

    def _resolve_annotations(self, given: dict) -> dict:
        """Each tensor parameter's annotation with its dtype: the annotation's
        own or, for ``pypto.Tensor()`` / ``Tensor([...])`` without one, the
        dtype of the argument given (a torch tensor or a NumPy array)."""
        from . import host_tensors
        resolved = {}
        for name in self.tensor_params:
            ann = self.annotations[name]
            if not ann.dtype_from_argument:
                resolved[name] = ann
                continue
            value = given.get(name)
            if host_tensors.is_torch_tensor(value):
                dtype = host_tensors.torch_dtype(value)
                what = f"a torch {value.dtype} tensor"
            elif hasattr(value, "dtype") and hasattr(value, "shape"):
                dtype = dt.dtype_of_array(value)
                what = f"a {value.dtype} array"
            else:
                raise TraceError(f"tensor parameter '{name}' is annotated {ann!r}, without a "
                                 f"dtype: its dtype is taken from the argument, so give a "
                                 f"torch tensor or a NumPy array (got "
                                 f"{type(value).__name__}), or write the dtype in the "
                                 f"annotation", self._locations.get(name))
            if dtype is None:
                raise TraceError(f"tensor parameter '{name}' is annotated {ann!r}, without a "
                                 f"dtype, and is given {what}, which holds no pypto dtype "
                                 f"(supported: "
                                 f"{', '.join(d.name for d in host_tensors.torch_dtypes())})",
                                 self._locations.get(name))
            resolved[name] = ann.with_dtype(dtype)
        return resolved

    def _check_named_dims(self, annotations: dict, actual: dict) -> None:
        """Dims annotated with the same ``pypto.frontend.dynamic`` name have
        the same size (ints only: a dim traced as dynamic has none yet)."""
        seen = {}
        for name in self.tensor_params:
            dims = actual.get(name)
            if dims is None:
                continue
            dims = tuple(dims)
            for i, dim_name in annotations[name].dim_names.items():
                size = dims[i] if i < len(dims) else None
                if not isinstance(size, int) or isinstance(size, bool) or size < 0:
                    continue
                first = seen.setdefault(dim_name, (name, i, size))
                if first[2] != size:
                    raise TraceError(
                        f"dynamic dim {dim_name!r} is {first[2]} in '{first[0]}' (dim "
                        f"{first[1]}) but {size} in '{name}' (dim {i}): dims annotated with "
                        f"the same pypto.frontend.dynamic name must have the same size",
                        self._locations.get(name))

    def _tensor_shape(self, name: str, ann: dt.Tensor, given) -> tuple:
        """The traced shape: an int per static dim, None per dynamic one."""
        location = self._locations.get(name)
        from_argument = ann.rank_from_argument or any(
            d is dt.STATIC or d is Ellipsis for d in ann.shape)
        if given is None:
            if from_argument:
                raise TraceError(f"tensor parameter '{name}' is annotated {ann!r}: give its "
                                 f"shape (or an array) when tracing; STATIC, '...' and [] "
                                 f"dims are taken from it", location)
            return tuple(None if d is dt.DYN else d for d in ann.shape)
        if hasattr(given, "shape") and hasattr(given, "dtype"):
            actual = tuple(int(d) for d in given.shape)
            self._check_array_dtype(name, ann, given, location)
        else:
            try:
                actual = tuple(given)
            except TypeError:
                raise TraceError(f"tensor parameter '{name}': give an array or a shape "
                                 f"tuple, got {type(given).__name__}", location) from None
        dims = list(ann.shape)
        if ann.rank_from_argument:
            dims = [dt.STATIC] * len(actual)
        elif dims[-1] is Ellipsis:
            prefix = dims[:-1]
            if len(actual) < len(prefix):
                raise TraceError(f"tensor parameter '{name}' is annotated {ann!r} but given "
                                 f"rank {len(actual)}", location)
            dims = prefix + [dt.STATIC] * (len(actual) - len(prefix))
        elif len(actual) > len(dims) and ann.is_status_shape:
            # PyPTO checks a shape with DYNAMIC/STATIC entries only for a
            # minimum rank: the argument keeps its own, its extra trailing
            # dims static (docs/Frontend.md, "Tensor annotations").
            dims = dims + [dt.STATIC] * (len(actual) - len(dims))
        elif len(actual) != len(dims):
            at_least = "at least " if ann.is_status_shape else ""
            raise TraceError(f"tensor parameter '{name}' is annotated {ann!r} (rank "
                             f"{at_least}{len(dims)}) but given rank {len(actual)}", location)
        shape = []
        for i, (d, a) in enumerate(zip(dims, actual)):
            if d is dt.DYN:
                shape.append(None)
                continue
            if a is dt.DYN or a is None or (isinstance(a, int) and a < 0):
                if d is dt.STATIC:
                    raise TraceError(f"tensor parameter '{name}': dim {i} is static "
                                     f"(annotation {ann!r}) but given as dynamic; give its "
                                     f"size", location)
                shape.append(int(d))
            elif d is not dt.STATIC and a != d:
                raise TraceError(f"tensor parameter '{name}': dim {i} is {d} in the "
                                 f"annotation but {a} in the given shape", location)
            else:
                shape.append(int(a))
        return tuple(shape)

    @staticmethod
    def _check_array_dtype(name, ann, array, location):
        import numpy as np
        if ann.dtype.numpy is None:
            return
        want = np.dtype(ann.dtype.numpy)
        if np.dtype(array.dtype) != want:
            hint = " (BF16 is passed as uint16 bit patterns)" if ann.dtype == dt.DT_BF16 else ""
            raise TraceError(f"tensor parameter '{name}' is {ann.dtype!r}: expected a {want} "
                             f"array, got {array.dtype}{hint}", location)

    def trace(self, *args, arch: str | None = None, **kwargs) -> TracedKernel:
        """Traces the kernel. Tensor parameters take arrays or shapes (``DYN``
        / ``None`` / -1 for dynamic dims; static dims of ``...`` annotations
        come from here); other parameters are compile-time values."""
        arch = arch or platform.npuarch
        if arch not in _ARCHES:
            raise TraceError(f"trace(arch={arch!r}): use one of {', '.join(_ARCHES)}")
        try:
            bound = self.signature.bind_partial(*args, **kwargs)
        except TypeError as error:
            raise TraceError(f"{self.fn.__name__}.trace: {error}",
                             self._locations.get("__def__")) from None
        from . import host_tensors
        annotations = self._resolve_annotations(bound.arguments)
        shapes = {}
        for name in self.tensor_params:
            given = bound.arguments.get(name)
            if host_tensors.is_torch_tensor(given):
                try:
                    given = host_tensors.as_array(given, annotations[name].dtype)
                except TraceError as error:
                    raise error.locate(self._locations.get(name))
            if isinstance(given, (list, tuple)):
                given = tuple(None if d is None or d is dt.DYN or (isinstance(d, int) and d < 0)
                              else d for d in given)
            shapes[name] = self._tensor_shape(name, annotations[name], given)
        self._check_named_dims(annotations, {
            n: g.shape if hasattr(g, "shape") else g for n, g in bound.arguments.items()
            if n in self.tensor_params and g is not None})
        missing = [p.name for p in self.signature.parameters.values()
                   if p.name not in self.tensor_params and p.name not in bound.arguments
                   and p.default is inspect.Parameter.empty]
        if missing:
            raise TraceError(f"{self.fn.__name__}.trace: missing compile-time parameter(s) "
                             f"{', '.join(missing)}", self._locations.get("__def__"))
        return self._trace(shapes, bound, arch, annotations)

    def _trace(self, shapes: dict, bound, arch: str, annotations: dict,
               aliases: dict | None = None) -> TracedKernel:
        if getattr(_state, "tracer", None) is not None:
            raise TraceError("kernels cannot be traced inside another kernel's trace")
        tracer = Tracer(arch)
        call_args = {}
        arg_values = []
        aliases = aliases or {}
        tracer.kernel_params = [n for n in self.tensor_params if n not in aliases]
        for name in self.tensor_params:
            ann = annotations[name]
            if name in aliases:
                # The same host tensor as an earlier parameter: one GM buffer.
                call_args[name] = TensorHandle(tracer, call_args[aliases[name]].value,
                                               shapes[name], ann.dtype, name)
                continue
            value = Value(tensor_type(shapes[name], ann.dtype), name, block=tracer.kernel_body)
            tracer.kernel_body.args.append(value)
            arg_values.append(value)
            call_args[name] = TensorHandle(tracer, value, shapes[name], ann.dtype, name)
        for name, value in bound.arguments.items():
            if name not in self.tensor_params:
                call_args[name] = value
        saved_arch = platform.npuarch
        _state.tracer = tracer
        platform.npuarch = arch
        try:
            with helpers_traceable(self.fn):
                result = traceable(self.fn)(**call_args)
        except TraceError as error:
            raise error.locate(_user_frame_of(error.__traceback__))
        except Exception as error:  # noqa: BLE001 - a construct the tracer does not handle
            raise _construct_error(error) from error
        finally:
            _state.tracer = None
            platform.npuarch = saved_arch
            tracer.finished = True
        def_loc = self._locations.get("__def__")
        if result is not None:
            raise TraceError(f"kernel {self.fn.__name__} returned {type(result).__name__}: "
                             f"kernels have no return value; write outputs with atomic_add or "
                             f"assemble", def_loc)
        if tracer.aborted_loop is not None:
            loop = tracer.aborted_loop
            body = (f"pypto.loop '{loop.fields['name']}'" if loop.kind == "pto.loop"
                    else f"the run-time `if {loop.fields['text']}`")
            raise TraceError(f"the body of {body} was left early (break/return): a traced "
                             f"body runs once and cannot leave early", loop.loc)
        return TracedKernel(self.fn.__name__, self._print(tracer, arch), arch,
                            list(tracer.kernel_params))

    def _print(self, tracer: Tracer, arch: str) -> str:
        from .valid_flow import resolve as resolve_moved_valid
        resolve_moved_valid(tracer)
        from .if_results import drop_unused_scalar_results
        drop_unused_scalar_results(tracer)
        resolve_scope_results(tracer.kernel_body)
        idx_names = {op.fields["idx_name"] for op in _all_ops(tracer.kernel_body)
                     if op.kind == "pto.loop"}
        printer = Printer(tracer.kernel_params, idx_names)
        args = []
        for name, value in zip(tracer.kernel_params, tracer.kernel_body.args):
            printer.names[value] = "%" + name
            attrs = " {pto.cumulative}" if self.annotations[name].cumulative else ""
            if self.annotations[name].format:
                attrs = ' {pto.layout = "nz"}'  # TILEOP_NZ (docs/Frontend.md, NZ weights)
            loc = self._locations.get(name)
            args.append(f"%{name}: {value.type}{attrs}{' ' + loc.mlir() if loc else ''}")
        attrs = [f"arch = #pto.arch<{arch}>"]
        if tracer.combine_axis is not None:
            attrs.append(f"combine_axis = {'true' if tracer.combine_axis else 'false'}")
        try:
            if self.runtime_options:
                attrs.append("runtime_options = " +
                             _runtime_options_text(self.runtime_options, self.tensor_params))
            settings = {k: merge_setting_text(k, v) for k, v in self.pass_options.items()}
        except TraceError as error:
            raise error.locate(self._locations.get("__def__"))
        settings.update(tracer.pass_option_overrides)
        if settings:
            attrs.append("pass_options = #pto.pass_options<" + ", ".join(
                f"{k} = {settings[k]}" for k in _PASS_OPTIONS if k in settings) + ">")
        unmodelled_text = self._unmodelled_text
        if tracer.unmodelled_pass_options:
            merged = {group: dict(options) if isinstance(options, dict) else options
                      for group, options in self.unmodelled_options.items()}
            passes = merged.setdefault("pass_options", {})
            for key, groups in tracer.unmodelled_pass_options.items():
                passes[key] = ({**passes.get(key, {}), **groups} if isinstance(groups, dict)
                               else groups)
            unmodelled_text = option_attr_text(merged, "set_pass_options")
        if unmodelled_text:
            attrs.append("pto.pypto_options = " + unmodelled_text)
        header = f"pto.kernel @{self.fn.__name__}("
        lines = [f"// Traced from {self.fn.__code__.co_filename} by pto_mlir.frontend.",
                 header + ("\n    " + ",\n    ".join(args) if args else "") + ")",
                 "    attributes {" + ", ".join(attrs) + "} {"]
        printer.print_block(tracer.kernel_body, 1)
        def_loc = self._locations.get("__def__")
        lines += printer.lines
        lines.append("}" + (" " + def_loc.mlir() if def_loc else ""))
        return "\n".join(lines) + "\n"

    # -- calling ------------------------------------------------------------------------

    def __call__(self, *args, arch: str | None = None, shuffle_atomics=None, **kwargs):
        """Traces (cached per static shapes, compile-time arguments and arch)
        and runs the kernel on NumPy arrays or CPU torch tensors, as PyPTO
        kernels are called; outputs are updated in place. Runs in the
        reference interpreter unless ``run_kernels_with`` selected another
        executor. Returns the interpreter's run statistics (None from other
        executors)."""
        from . import host_tensors
        bound = self.signature.bind(*args, **kwargs)
        given = {n: bound.arguments[n] for n in self.tensor_params}
        annotations = self._resolve_annotations(given)
        arrays = {}
        for name, value in given.items():
            try:
                arrays[name] = host_tensors.as_array(value, annotations[name].dtype)
            except TraceError as error:
                raise error.locate(self._locations.get(name))
        shapes = {n: self._tensor_shape(n, annotations[n], a) for n, a in arrays.items()}
        self._check_named_dims(annotations, {n: a.shape for n, a in arrays.items()})
        # One tensor given twice (same memory, shape, strides and dtype): one buffer.
        aliases = host_tensors.aliases(self.tensor_params, given)
        others = tuple((n, v) for n, v in bound.arguments.items() if n not in self.tensor_params)
        dtypes = tuple(annotations[n].dtype.name for n in self.tensor_params)
        key = (tuple(sorted(shapes.items())), dtypes, repr(others), arch or platform.npuarch,
               tuple(sorted(aliases.items())))
        traced = self._cache.get(key)
        if traced is None:
            traced = self._trace(shapes, bound, arch or platform.npuarch, annotations, aliases)
            self._cache[key] = traced
        arrays = {n: a for n, a in arrays.items() if n not in aliases}
        # An NZ argument reaches GM as npu_format_cast leaves it: fractals.
        nz = [n for n in arrays if annotations[n].format
              and not isinstance(arrays[n], host_tensors.ShapeOnly)]
        for name in nz:
            try:
                arrays[name] = dt.nz_storage(name, arrays[name], annotations[name].dtype)
            except TypeError as error:
                raise TraceError(str(error), self._locations.get(name))
        executor = getattr(_executor, "current", None)
        if executor is None:
            shape_only = [n for n, a in arrays.items()
                          if isinstance(a, host_tensors.ShapeOnly)]
            if shape_only:
                raise TraceError(f"{self.fn.__name__}: {', '.join(shape_only)} are meta "
                                 f"tensors (shapes without data): the kernel traced but "
                                 f"cannot run", self._locations.get("__def__"))
            stats = traced.run(shuffle_atomics=shuffle_atomics, **arrays).stats
        else:
            stats = executor(traced, arrays)
        for name in nz:
            if name in traced.module().kernel().outputs:
                matrix = dt.nz_matrix(arrays[name])
                if not host_tensors.is_torch_tensor(given[name]):
                    given[name][...] = matrix
                arrays[name] = matrix
        for name, value in given.items():
            host_tensors.write_back(value, arrays[aliases.get(name, name)])
        return stats


_executor = threading.local()


@contextlib.contextmanager
def run_kernels_with(executor):
    """Within the block, calling a ``@jit`` kernel runs
    ``executor(traced_kernel, arrays)`` instead of the interpreter:
    ``arrays`` maps each tensor parameter to a NumPy array (BF16 as uint16
    bits) that the executor updates in place. Lets a caller run a kernel
    file's own host code (its wrappers, its tests) through the tile-graph
    pipeline or emitted C++, or record the traces."""
    saved = getattr(_executor, "current", None)
    _executor.current = executor
    try:
        yield
    finally:
        _executor.current = saved


# The tracer's value classes, as Python names them in its own error messages.
_TRACED_CLASSES = ("Tile", "TensorHandle", "Scalar")


def _construct_error(error: Exception) -> TraceError:
    """A Python error raised while tracing (an operator or attribute the
    tracer's values do not have, or a bug) as a TraceError at the kernel's
    line naming the construct, instead of a traceback from inside the
    tracer; the original stays as ``__cause__``."""
    import re
    text = str(error)
    match = re.fullmatch(r"'(\w+)' object has no attribute '(\w+)'", text)
    if isinstance(error, AttributeError) and match and match[1] in _TRACED_CLASSES:
        message = (f"{match[1]}.{match[2]} is not supported yet by pto-mlir's PyPTO front end "
                   f"(docs/Frontend.md lists the supported API)")
    elif isinstance(error, TypeError) and "unsupported operand" in text \
            and any(f"'{c}'" in text for c in _TRACED_CLASSES):
        message = f"{text}: this operator on traced values is not supported yet"
    else:
        message = f"{type(error).__name__} while tracing: {text}"
    return TraceError(message, _user_frame_of(error.__traceback__))


def _user_frame_of(traceback) -> Location | None:
    """The innermost user (non-front-end) line of a traceback."""
    from .trace_context import _PACKAGE_DIR, _frame_position
    found = None
    while traceback is not None:
        frame = traceback.tb_frame
        if os.path.dirname(os.path.abspath(frame.f_code.co_filename)) != _PACKAGE_DIR:
            line, column = _frame_position(frame, traceback.tb_lasti)
            found = Location(frame.f_code.co_filename, line, column)
        traceback = traceback.tb_next
    return found


def _all_ops(block):
    from .graph import walk_ops
    return walk_ops(block)


def jit(fn=None, *, runtime_options=None, pass_options=None, host_options=None,
        codegen_options=None, verify_options=None, debug_options=None, new_ir: bool = False,
        create_new_logical_tensor: bool = False):
    """``@pypto.frontend.jit(runtime_options={...}, pass_options={...}, ...)``
    with PyPTO's parameters. Options the dialect models become
    ``runtime_options`` / ``pass_options`` on ``pto.kernel``; every other
    option is carried as ``pto.pypto_options`` with an ``OptionRemark``."""
    def wrap(f):
        return JitFunction(f, runtime_options, pass_options, host_options, codegen_options,
                           verify_options, debug_options, new_ir, create_new_logical_tensor)
    return wrap(fn) if fn is not None else wrap
