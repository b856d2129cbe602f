"""Locating and running the pto-mlir command-line tools from Python.

Tools are found in ``$PTO_BUILD_DIR/bin`` (default: ``build/`` at the
repository root), so tests run against the tree they live in, and otherwise
beside an installed package (``<prefix>/bin`` for
``<prefix>/python_packages/pto_mlir``, the layout ``cmake --install`` makes).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]


def build_dir() -> Path:
    return Path(os.environ.get("PTO_BUILD_DIR", REPO_ROOT / "build"))


def tool_dirs() -> list[Path]:
    """Where tools are looked for, in order: the build, then the install prefix."""
    return [build_dir() / "bin", REPO_ROOT / "bin"]


def tool(name: str) -> Path:
    for directory in tool_dirs():
        path = directory / name
        if path.exists():
            return path
    searched = ", ".join(str(d) for d in tool_dirs())
    raise FileNotFoundError(f"{name} not found (searched {searched}): build the project "
                            f"first (make build) or set PTO_BUILD_DIR")


def run_tool(name: str, *args, check: bool = False) -> subprocess.CompletedProcess:
    return subprocess.run([str(tool(name)), *map(str, args)], capture_output=True,
                          text=True, check=check)


def run_pass_totals(flag: str, pattern, source, out) -> tuple[int, int]:
    """Runs `pto-opt SOURCE FLAG -o OUT` (a pass with report=true) and sums
    the (before, after) pairs that `pattern` (two groups) finds in its
    remarks."""
    r = run_tool("pto-opt", source, flag, "-o", out)
    assert r.returncode == 0, r.stderr[-3000:]
    before = after = 0
    for m in pattern.finditer(r.stderr):
        before += int(m.group(1))
        after += int(m.group(2))
    return before, after


def run_random(kernel, directory: Path, *extra: str) -> dict:
    """Runs `kernel` under `pto-run --random 1` (every input random, the same
    on every call) and returns its outputs by name."""
    import numpy as np

    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    r = run_tool("pto-run", kernel, "--random", "1", "--output-dir", directory, *extra)
    assert r.returncode == 0, r.stderr[-3000:]
    return {p.stem: np.load(p) for p in directory.glob("*.npy")}


def assert_bitwise(before: dict, after: dict, equal_nan: bool = False):
    """The outputs of two runs are the same arrays, bit for bit (NaN equal to
    NaN only with `equal_nan`, for outputs that start as NaN)."""
    import numpy as np

    assert before.keys() == after.keys() and before
    for name in before:
        assert np.array_equal(before[name], after[name], equal_nan=equal_nan), \
            f"{name} changed"


def input_args(directory: Path, inputs: dict, dtypes: dict, names=None) -> list:
    """Saves each input as DIR/NAME.npy in its dtype (the conventions of
    golden/npy.py) and returns the matching `pto-run --input` flags."""
    from pto_mlir.golden import save_tensor

    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    args = []
    for name in names if names is not None else inputs:
        path = directory / f"{name}.npy"
        save_tensor(path, inputs[name], dtypes[name])
        args += ["--input", f"{name}={path}"]
    return args


def run_kernel(kernel, directory: Path, inputs: dict, dtypes: dict, outputs, *extra,
               names=None):
    """Runs `kernel` through pto-run on `inputs` (written as .npy files into
    `directory`), asserts it succeeded, and returns the written `outputs`
    (shaped like the inputs they update) with the completed process."""
    from pto_mlir.golden import load_tensor

    directory = Path(directory)
    args = input_args(directory, inputs, dtypes, names)
    result = run_tool("pto-run", kernel, *args, "--output-dir", directory, *extra)
    assert result.returncode == 0, result.stderr[-3000:]
    return {name: load_tensor(directory / f"{name}.npy", dtypes[name]).reshape(inputs[name].shape)
            for name in outputs}, result


def compile_tile_graph(source, out, options: str = "") -> Path:
    """Compiles `source` through `pto-opt --pto-tile-graph-pipeline[=OPTIONS]`
    into `out`, asserts it succeeded (the end of its stderr otherwise) and
    returns `out`."""
    flag = "--pto-tile-graph-pipeline" + (f"={options}" if options else "")
    r = run_tool("pto-opt", source, flag, "-o", out)
    assert r.returncode == 0, r.stderr[-3000:]
    return Path(out)


def run_tile_graph(source, directory: Path, inputs: dict, dtypes: dict, outputs, *extra,
                   options: str = "", names=None):
    """The tile-graph half of a "pto-run, then the tile graph, compared"
    test: compiles `source` into DIRECTORY/tile_graph.mlir
    (compile_tile_graph) and runs that as run_kernel does, returning the
    same (outputs, completed process)."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    compiled = compile_tile_graph(source, directory / "tile_graph.mlir", options)
    return run_kernel(compiled, directory, inputs, dtypes, outputs, *extra, names=names)


def check_program_and_tile_graph(kernel, directory: Path, inputs: dict, dtypes: dict,
                                 outputs, check, names=None):
    """A "pto-run, then the tile graph, compared" test: runs `kernel` at the
    program level (DIRECTORY/prog) and through the tile-graph pipeline
    (DIRECTORY/tg) on the same `inputs`, calling `check(outputs, inputs,
    level)` on each, level "pto-run" then "tile graph"."""
    directory = Path(directory)
    out, _ = run_kernel(kernel, directory / "prog", inputs, dtypes, outputs, names=names)
    check(out, inputs, "pto-run")
    out, _ = run_tile_graph(kernel, directory / "tg", inputs, dtypes, outputs, names=names)
    check(out, inputs, "tile graph")


# The pipelines with operand-stationary cube tasks (pto-l1-reuse
# stationary=true; docs/TileGraph.md#operand-stationary-cube-tasks): the
# default, spelled out so that the tests of the form keep it if the default
# moves.
TILE_GRAPH_STATIONARY = "pto-tile-graph-pipeline{cube-stationary=true}"
ASCEND_STATIONARY = "pto-ascend-pipeline{cube-stationary=true}"
