"""A view of a tile whose offsets or explicit valid extents leave the tile's
valid region is a kernel fault (exit 3) in all three executors, with the same
words: pto-run on the kernel (at the view), pto-run on its tile graph and the
emitted C++ on the host emulation (at the pto.check_tile_view that
pto-expand-tiles leaves where the view stood; docs/Guarantees.md).

The kernel is IFA's first tile in small: a view that narrows the valid
columns of a matmul result (`pypto.view(sij, ..., valid_shape=[g,
actual_s2])`) at a run-time row offset. pto-expand-tiles composes the view
into each piece's load of the result's workspace, clamped to the workspace,
so the view itself dies; before the check, the tile graph and the C++ ran
such a view to the end and read fewer columns than asked for."""

from __future__ import annotations

import numpy as np
import pytest

from pto_mlir import codegen
from pto_mlir.golden.bf16 import bf16_bits_to_f32, f32_to_bf16_bits
from pto_mlir.tools import compile_tile_graph, input_args, run_tool

KERNEL = """
pto.kernel @narrow_scores(%q: !pto.tensor<12x32xbf16>, %k: !pto.tensor<64x32xbf16>,
                          %len: !pto.tensor<?xi32>, %rt: !pto.tensor<1xi32>,
                          %p: !pto.tensor<6x64xf32>) {
  %c0 = arith.constant 0 : index
  %scale = arith.constant 5.000000e-01 : f32
  %tq = pto.view %q[0, 0] : !pto.tensor<12x32xbf16> -> !pto.tile<12x32xbf16>
  %tk = pto.view %k[0, 0] : !pto.tensor<64x32xbf16> -> !pto.tile<64x32xbf16>
  %s = pto.matmul %tq, %tk {b_trans, cube_tile = #pto.cube_tile<m = [16, 16], k = [32, 32], n = [64, 64]>}
      : !pto.tile<12x32xbf16>, !pto.tile<64x32xbf16> -> !pto.tile<12x64xf32>
  %n = pto.dim %len, 0 : !pto.tensor<?xi32>
  %r = pto.read %rt[%c0] : !pto.tensor<1xi32>
  %v = pto.view %s[%r, 0] valid [6, %n] : !pto.tile<12x64xf32> -> !pto.tile<6x64xf32>
  %m = pto.mul %v, %scale {vec_tile = #pto.vec_tile<[6, 64]>} : !pto.tile<6x64xf32>, f32 -> !pto.tile<6x64xf32>
  pto.assemble %m, %p[0, 0] : !pto.tile<6x64xf32>, !pto.tensor<6x64xf32>
}
"""
VIEW_LINE = next(n for n, line in enumerate(KERNEL.splitlines(), 1) if "%v = pto.view" in line)

DTYPES = {"q": "bf16", "k": "bf16", "len": "int32", "rt": "int32", "p": "fp32"}

# (row offset, valid columns, pto-run's message at the view)
BAD = {
    "columns_past_the_tile": (0, 100, "view reads [0, 100) of dim 1 but the valid region of "
                              "tile 'source' has only 64 there (offsets [0, 0], valid shape "
                              "[6, 100])"),
    "rows_past_the_tile": (8, 40, "view reads [8, 14) of dim 0 but the valid region of tile "
                           "'source' has only 12 there (offsets [8, 0], valid shape [6, 40])"),
    "negative_offset": (-2, 40, "view offset -2 of dim 0 is negative"),
}


def inputs(row: int, columns: int) -> dict:
    rng = np.random.default_rng(16)
    bf = lambda *s: f32_to_bf16_bits(rng.uniform(-1, 1, s).astype(np.float32))  # noqa: E731
    return {"q": bf(12, 32), "k": bf(64, 32), "len": np.zeros(columns, np.int32),
            "rt": np.array([row], np.int32), "p": np.zeros((6, 64), np.float32)}


def golden(i: dict, row: int, columns: int) -> np.ndarray:
    q = bf16_bits_to_f32(i["q"]).astype(np.float64)
    k = bf16_bits_to_f32(i["k"]).astype(np.float64)
    return 0.5 * (q @ k.T)[row:row + 6, :columns]


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    """The kernel, its tile graph and its emitted program (built once)."""
    work = tmp_path_factory.mktemp("tile_view_check")
    kernel = work / "narrow_scores.mlir"
    kernel.write_text(KERNEL)
    graph = compile_tile_graph(kernel, work / "tile_graph.mlir")
    exe = codegen.build(kernel, work / "cpp", opt="-O0")
    return kernel, graph, exe


def run_three(programs, tmp_path, row: int, columns: int) -> dict:
    """{executor: completed process} of one input through the three."""
    kernel, graph, exe = programs
    data = inputs(row, columns)
    runs = {}
    for name, mlir in (("pto-run", kernel), ("tile graph", graph)):
        directory = tmp_path / name.replace(" ", "_")
        args = input_args(directory, data, DTYPES)
        runs[name] = run_tool("pto-run", mlir, *args, "--output-dir", directory)
    _, runs["C++"] = codegen.run(exe, tmp_path / "cpp", data,
                                 {k: codegen.element_type(v) for k, v in DTYPES.items()}, ["p"],
                                 check=False)
    return runs


def test_inside_runs_everywhere(programs, tmp_path):
    """A view inside the valid region: every executor computes the golden
    (the check does not fire where pto-run does not)."""
    row, columns = 6, 40
    runs = run_three(programs, tmp_path, row, columns)
    expected = golden(inputs(row, columns), row, columns)
    outputs = {"pto-run": tmp_path / "pto-run" / "p.npy",
               "tile graph": tmp_path / "tile_graph" / "p.npy",
               "C++": tmp_path / "cpp" / "out" / "p.npy"}
    for name, proc in runs.items():
        assert proc.returncode == 0, f"{name}: {proc.stderr[-2000:]}"
        got = np.load(outputs[name])[:, :columns]
        assert np.allclose(got, expected, rtol=1e-5, atol=1e-5), \
            f"{name}: differs by {np.abs(got - expected).max():.3g}"


@pytest.mark.parametrize("case", list(BAD))
def test_outside_faults_everywhere(programs, tmp_path, case):
    row, columns, message = BAD[case]
    runs = run_three(programs, tmp_path, row, columns)
    for name, proc in runs.items():
        assert proc.returncode == 3, f"{name} exited {proc.returncode}:\n{proc.stderr[-2000:]}"
        assert message in proc.stderr, f"{name}:\n{proc.stderr[-2000:]}"
    # pto-run and the C++ name the view's line in the kernel.
    assert f"narrow_scores.mlir:{VIEW_LINE}:" in runs["pto-run"].stderr
    assert f"narrow_scores.mlir:{VIEW_LINE}:" in runs["C++"].stderr
