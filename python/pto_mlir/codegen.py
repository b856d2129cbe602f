"""The Ascend code-generation chain from Python: pto-opt --pto-ascend-pipeline,
pto-translate --pto-to-cpp, the system C++ compiler against the project's host
emulation of pto-isa (runtime/include), and a run of the resulting program on
.npy files.

    exe = codegen.build(kernel_mlir, workdir)
    outputs, proc = codegen.run(exe, workdir, inputs, dtypes, output_names)

The compiler is ``$PTO_CXX`` (default ``clang++-22``).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from pto_mlir.tools import REPO_ROOT, run_tool


def runtime_include() -> Path:
    """The host emulation headers: the source tree's runtime/include, or
    ``<prefix>/include`` beside an installed package."""
    for directory in (REPO_ROOT / "runtime" / "include", REPO_ROOT / "include"):
        if (directory / "pto" / "runtime" / "pto_runtime.hpp").exists():
            return directory
    raise FileNotFoundError(f"pto/runtime/pto_runtime.hpp not found under {REPO_ROOT}/runtime/"
                            f"include or {REPO_ROOT}/include: run from the source tree or an "
                            f"installed prefix (cmake --install)")



def compiler() -> str:
    return os.environ.get("PTO_CXX", "clang++-22")


def emit_cpp(kernel: Path, workdir: Path, pipeline: str = "pto-ascend-pipeline") -> Path:
    """Compiles `kernel` through `pipeline` and prints it as C++; returns the
    .cpp path (the ISA-level module is kept beside it)."""
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    stem = Path(kernel).stem
    isa = workdir / f"{stem}.isa.mlir"
    cpp = workdir / f"{stem}.cpp"
    # Source locations travel to the C++: run-time faults name the kernel's line.
    r = run_tool("pto-opt", kernel, f"--pass-pipeline=builtin.module({pipeline})",
                 "--mlir-print-debuginfo", "-o", isa)
    if r.returncode != 0:
        # The first error leads: the tail alone is often the IR dump after it.
        first = next((line for line in r.stderr.splitlines() if ": error:" in line), "")
        raise RuntimeError(f"pto-opt failed on {kernel}:\n{first}\n{r.stderr[-4000:]}")
    r = run_tool("pto-translate", "--pto-to-cpp", isa, "-o", cpp)
    if r.returncode != 0:
        raise RuntimeError(f"pto-translate failed on {isa}:\n{r.stderr[-4000:]}")
    return cpp


# The emitted program under ASan + UBSan (the hostile-input table).
SANITIZE_FLAGS = ("-fsanitize=address,undefined", "-fno-sanitize-recover=undefined",
                  "-fno-omit-frame-pointer", "-g1")


def compile_cpp(cpp: Path, exe: Path | None = None, opt: str = "-O1",
                flags=()) -> Path:
    """Builds the emitted C++ with its host main against the emulation header
    (`flags`: extra compiler flags, e.g. SANITIZE_FLAGS)."""
    cpp = Path(cpp)
    exe = Path(exe) if exe else cpp.with_suffix("")
    cmd = [compiler(), "-std=c++20", opt, *flags, "-D__CPU_SIM", "-DPTO_HOST_MAIN",
           f"-I{runtime_include()}", str(cpp), "-o", str(exe), "-pthread"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{r.stderr[-6000:]}")
    return exe


def build(kernel: Path, workdir: Path, pipeline: str = "pto-ascend-pipeline",
          opt: str = "-O1", flags=()) -> Path:
    return compile_cpp(emit_cpp(kernel, workdir, pipeline), opt=opt, flags=flags)


# Element types as the IR spells them -> the .npy storage dtype the emitted
# program reads and writes (runtime/include/pto/runtime/pto_runtime.hpp,
# npy_descr): bf16 travels as its uint16 bit patterns.
STORAGE = {"bf16": "<u2", "f16": "<f2", "f32": "<f4", "i8": "|i1", "i16": "<i2",
           "i32": "<i4", "i64": "<i8", "i1": "|b1"}
# The golden's and NumPy's spellings of the same types.
DTYPE_ALIASES = {"fp32": "f32", "float32": "f32", "fp16": "f16", "float16": "f16",
                 "bfloat16": "bf16", "int8": "i8", "int16": "i16", "int32": "i32",
                 "int64": "i64", "bool": "i1"}


def element_type(name: str, argument: str = "") -> str:
    """The IR spelling (f32, bf16, i32, ...) of a dtype name; ValueError
    naming the argument and the accepted spellings otherwise."""
    canonical = DTYPE_ALIASES.get(name, name)
    if canonical not in STORAGE:
        where = f" for argument '{argument}'" if argument else ""
        raise ValueError(f"unknown dtype {name!r}{where}; use the IR's element type: "
                         f"{', '.join(STORAGE)} (or {', '.join(DTYPE_ALIASES)})")
    return canonical


def save_npy(path: Path, array, dtype: str, argument: str = "") -> None:
    """Writes `array` as the emitted program reads a `dtype` argument."""
    import numpy as np

    from pto_mlir.golden import save_tensor

    dtype = element_type(dtype, argument)
    if dtype == "bf16":
        save_tensor(path, array, "bf16")
        return
    a = np.asarray(array)
    storage = np.dtype(STORAGE[dtype])
    if dtype.startswith("f") and not np.issubdtype(a.dtype, np.floating):
        raise TypeError(f"argument '{argument}' is {dtype} and needs floats, got {a.dtype}")
    if dtype == "i1":
        if a.dtype != np.bool_:
            raise TypeError(f"argument '{argument}' is i1 (DT_BOOL) and needs a bool array, "
                            f"got {a.dtype}")
    elif dtype.startswith("i"):
        if not np.issubdtype(a.dtype, np.integer):
            raise TypeError(f"argument '{argument}' is {dtype} and needs integers, got {a.dtype}")
        info = np.iinfo(storage)
        if a.size and (a.min() < info.min or a.max() > info.max):
            raise ValueError(f"argument '{argument}' holds values outside {dtype} "
                             f"[{info.min}, {info.max}]")
    np.save(path, np.ascontiguousarray(a, dtype=storage), allow_pickle=False)


def load_npy(path: Path, dtype: str, argument: str = ""):
    """Reads an output the emitted program wrote (bf16: bit patterns)."""
    import numpy as np

    a = np.load(path, allow_pickle=False)
    storage = np.dtype(STORAGE[element_type(dtype, argument)])
    if a.dtype != storage:
        raise TypeError(f"{path}: expected {dtype} stored as {storage}, got {a.dtype}")
    return a


def run(exe: Path, workdir: Path, inputs: dict, dtypes: dict, outputs, *extra,
        names=None, check: bool = True):
    """Runs a built kernel on `inputs` (written as .npy files into
    WORKDIR/in) and returns the written `outputs` (shaped like the inputs
    they update) with the completed process. `dtypes` spells each
    argument's element type as the IR does (f32, bf16, i32, ...)."""
    workdir = Path(workdir)
    indir, outdir = workdir / "in", workdir / "out"
    names = list(names if names is not None else inputs)
    missing = [name for name in names if name not in dtypes]
    if missing:
        raise ValueError(f"no dtype for argument(s) {', '.join(missing)}: give each "
                         f"argument's element type, e.g. {{'{missing[0]}': 'f32'}}")
    indir.mkdir(parents=True, exist_ok=True)
    outdir.mkdir(parents=True, exist_ok=True)
    for name in names:
        save_npy(indir / f"{name}.npy", inputs[name], dtypes[name], name)
    proc = subprocess.run([str(exe), "--inputs", str(indir), "--outputs", str(outdir),
                           *map(str, extra)], capture_output=True, text=True)
    if not check:
        return None, proc
    if proc.returncode != 0:
        raise RuntimeError(f"{exe} exited with {proc.returncode}:\n{proc.stderr[-4000:]}")
    return {name: load_npy(outdir / f"{name}.npy", dtypes[name], name).reshape(inputs[name].shape)
            for name in outputs}, proc
