"""pto-partition keeps a read of a workspace before the store that overwrites
it, executed: pto-run before and after the pass, and after the whole
tile-graph pipeline.

The kernel reads a workspace into a matmul, overwrites the workspace, and
reads it again into a second matmul whose result meets the first in a third.
Without the write-after-read edge both matmuls fell into one cube task placed
after the overwrite, so the first matmul read the new value (found on
qwen3_5_9b's gated_delta_rule: the state read for a chunk's inter-chunk term
came after the state update). Inputs are small integers: the sums are exact
and the outputs must be bitwise equal.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from pto_mlir.golden import load_tensor, save_tensor
from pto_mlir.tools import run_tool

T = "!pto.tile<16x16xf32>"
G = "!pto.tensor<16x16xf32>"
CUBE = "{cube_tile = #pto.cube_tile<m = [16, 16], k = [16, 16], n = [16, 16]>}"
VEC = "{vec_tile = #pto.vec_tile<[16, 16]>}"
KERNEL = f"""
pto.kernel @read_before_overwrite(%a: {G}, %b: {G}, %x: {G}, %out: {G}) {{
  %ws = pto.workspace : {G}
  %tx = pto.view %x[0, 0] : {G} -> {T}
  %first = pto.neg %tx {VEC} : {T} -> {T}
  pto.assemble %first, %ws[0, 0] : {T}, {G}
  %ta = pto.view %a[0, 0] : {G} -> {T}
  %old = pto.view %ws[0, 0] : {G} -> {T}
  %m1 = pto.matmul %ta, %old {CUBE} : {T}, {T} -> {T}
  %second = pto.add %tx, %tx {VEC} : {T}, {T} -> {T}
  pto.assemble %second, %ws[0, 0] : {T}, {G}
  %tb = pto.view %b[0, 0] : {G} -> {T}
  %new = pto.view %ws[0, 0] : {G} -> {T}
  %m2 = pto.matmul %tb, %new {CUBE} : {T}, {T} -> {T}
  %m3 = pto.matmul %m1, %m2 {CUBE} : {T}, {T} -> {T}
  pto.assemble %m3, %out[0, 0] : {T}, {G}
}}
"""


def run(kernel: Path, inputs: dict, directory: Path) -> np.ndarray:
    directory.mkdir(parents=True, exist_ok=True)
    args = []
    for name, array in inputs.items():
        path = directory / f"in_{name}.npy"
        save_tensor(path, array, "fp32")
        args += ["--input", f"{name}={path}"]
    result = run_tool("pto-run", kernel, *args, "--output", f"out={directory / 'out.npy'}")
    assert result.returncode == 0, result.stderr
    return load_tensor(directory / "out.npy")


@pytest.mark.parametrize("passes", [
    ("--pto-flatten-scopes", "--pto-expand-tiles", "--pto-partition"),
    ("--pto-tile-graph-pipeline",),
], ids=["partition", "pipeline"])
def test_read_of_workspace_stays_before_its_overwrite(passes, tmp_path):
    rng = np.random.default_rng(3)
    inputs = {n: rng.integers(-3, 4, size=(16, 16)).astype(np.float32) for n in "abx"}
    inputs["out"] = np.zeros((16, 16), np.float32)
    source = tmp_path / "kernel.mlir"
    source.write_text(KERNEL)
    expected = run(source, inputs, tmp_path / "program")
    a, b, x = (inputs[n].astype(np.float64) for n in "abx")
    assert np.array_equal(expected, (a @ -x) @ (b @ (x + x))), "pto-run on the program"

    transformed = tmp_path / "transformed.mlir"
    result = run_tool("pto-opt", source, *passes, "-o", transformed)
    assert result.returncode == 0, result.stderr
    actual = run(transformed, inputs, tmp_path / "transformed")
    assert np.array_equal(expected, actual), (
        f"after {' '.join(passes)}: max |diff| {np.abs(expected - actual).max()}")


def rounds_kernel(rounds: int) -> str:
    """`rounds` x (view one of four row blocks of a workspace, double it,
    store it into the next block), then the last block stored out: each
    block is overwritten exactly while earlier views and stores of it are
    filed (pto-partition retires those, docs/TileGraph.md)."""
    w = "!pto.tensor<64x16xf32>"
    lines = [f"pto.kernel @rounds(%x: {G}, %out: {G}) {{",
             f"  %ws = pto.workspace : {w}",
             f"  %x0 = pto.view %x[0, 0] : {G} -> {T}",
             f"  pto.assemble %x0, %ws[0, 0] : {T}, {w}"]
    for i in range(rounds):
        lines += [f"  %v{i} = pto.view %ws[{16 * (i % 4)}, 0] : {w} -> {T}",
                  f"  %d{i} = pto.add %v{i}, %v{i} {VEC} : {T}, {T} -> {T}",
                  f"  pto.assemble %d{i}, %ws[{16 * ((i + 1) % 4)}, 0] : {T}, {w}"]
    lines += [f"  %l = pto.view %ws[{16 * (rounds % 4)}, 0] : {w} -> {T}",
              f"  pto.assemble %l, %out[0, 0] : {T}, {G}", "}"]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("rounds", [5, 11])
def test_rounds_over_one_workspace_keep_their_order(rounds, tmp_path):
    rng = np.random.default_rng(5)
    inputs = {"x": rng.integers(-3, 4, size=(16, 16)).astype(np.float32),
              "out": np.zeros((16, 16), np.float32)}
    source = tmp_path / "rounds.mlir"
    source.write_text(rounds_kernel(rounds))
    expected = run(source, inputs, tmp_path / "program")
    assert np.array_equal(expected, inputs["x"] * 2.0 ** rounds), "pto-run on the program"
    transformed = tmp_path / "transformed.mlir"
    result = run_tool("pto-opt", source, "--pto-tile-graph-pipeline", "-o", transformed)
    assert result.returncode == 0, result.stderr
    assert np.array_equal(expected, run(transformed, inputs, tmp_path / "transformed"))
