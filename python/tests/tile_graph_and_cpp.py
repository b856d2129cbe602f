"""The two compiled levels of a traced kernel against what `pto-run` gave:
the tile graph (`pto-run` on `--pto-tile-graph-pipeline` output) and the
emitted C++ on the host emulation (`codegen.build` runs
`--pto-ascend-pipeline` and compiles it)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from pto_mlir import codegen
from pto_mlir.tools import run_tile_graph, run_tool


def write_verified(traced, directory: Path) -> Path:
    """Writes the traced kernel to DIRECTORY/kernel.mlir and asserts
    `pto-opt` parses and verifies it with no diagnostic."""
    source = Path(directory) / "kernel.mlir"
    source.write_text(traced.mlir)
    r = run_tool("pto-opt", source, "--verify-diagnostics")
    assert r.returncode == 0, r.stderr
    return source


def assert_tile_graph_and_cpp_equal(source: Path, directory: Path, inputs: dict,
                                    dtypes: dict, expected: dict) -> None:
    """Runs both levels of the kernel file `source` on `inputs` (files under
    DIRECTORY/tg and DIRECTORY/cpp) and asserts each output named in
    `expected` equals it bit for bit."""
    directory = Path(directory)
    outputs = list(expected)
    got, _ = run_tile_graph(source, directory / "tg", inputs, dtypes, outputs)
    for name in outputs:
        np.testing.assert_array_equal(got[name], expected[name], err_msg=f"tile graph: {name}")
    exe = codegen.build(source, directory / "cpp")
    got, _ = codegen.run(exe, directory / "cpp", inputs, dtypes, outputs)
    for name in outputs:
        np.testing.assert_array_equal(got[name], expected[name], err_msg=f"C++: {name}")
