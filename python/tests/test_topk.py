"""pto.topk (pypto.topk) executed at every level against NumPy: pto-run on
the traced program and on the tile graph (--pto-tile-graph-pipeline), and
the emitted pto-isa C++ (TCI, TSORT32, TMRGSORT, mask TGATHER) on the host
emulation.

The kernels use topk the way lightning_indexer does (a 4-D [B, N, S, S']
FP32 tile, the last dim ranked, the int32 indices cast, transposed and
stored) and the corners PyPTO documents: largest=False, rows with many equal
values (the lower index first, np.argsort(kind="stable")), a partial last
block of rows and rows whose valid part is shorter than the tile (padding is
never ranked) or than k (only the valid elements come out)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import pto_mlir.frontend as pypto
from pto_mlir import codegen
from pto_mlir.tools import run_kernel, run_tool
from trace_errors import assert_error_at_kernel_line

F32, I32, DYN = pypto.DT_FP32, pypto.DT_INT32, pypto.DYN
B, N, S, SKV, K = 2, 2, 8, 40, 8


@pypto.jit
def indexer(scores: pypto.Tensor([DYN, N, S, 64], F32),
            indices: pypto.Tensor([DYN, S, N, K], I32),
            values: pypto.Tensor([DYN, N, S, K], F32)):
    batch = scores.shape[0]
    pypto.set_vec_tile_shapes(1, 1, S, 64)
    for b in pypto.loop(batch, name="LOOP_B", idx_name="b"):
        # Rows of 64 of which SKV = 40 are valid: the other 24 are never ranked.
        t = pypto.view(scores, [1, N, S, 64], [b, 0, 0, 0], valid_shape=[1, N, S, SKV])
        v, idx = pypto.topk(t, K, dim=-1, largest=True)
        pypto.assemble(v, [b, 0, 0, 0], values)
        # One piece for the transpose: its [1, S, N, K] result is one GM window.
        pypto.set_vec_tile_shapes(1, N, S, 64)
        indices[b:, 0:, 0:, 0:] = pypto.transpose(pypto.cast(idx, I32), 1, 2)



@pypto.jit
def indexer4d(scores: pypto.Tensor([DYN, N, S, 64], F32),
              indices: pypto.Tensor([DYN, N, S, K], I32),
              values: pypto.Tensor([DYN, N, S, K], F32)):
    # indexer without the transpose of the indices (pto-lower-to-isa does not
    # lower a transpose that reorders the non-unit dims of a 4-D tile yet).
    batch = scores.shape[0]
    pypto.set_vec_tile_shapes(1, 1, S, 64)
    for b in pypto.loop(batch, name="LOOP_B", idx_name="b"):
        t = pypto.view(scores, [1, N, S, 64], [b, 0, 0, 0], valid_shape=[1, N, S, SKV])
        v, idx = pypto.topk(t, K, dim=-1, largest=True)
        pypto.assemble(v, [b, 0, 0, 0], values)
        pypto.assemble(idx, [b, 0, 0, 0], indices)

ROWS, COLS, KS = 40, 64, 4


@pypto.jit
def smallest(x: pypto.Tensor([DYN, COLS], F32), lo: pypto.Tensor([DYN, KS], F32),
             lo_idx: pypto.Tensor([DYN, KS], I32), short: pypto.Tensor([DYN, KS], I32)):
    rows = x.shape[0]
    pypto.set_vec_tile_shapes(8, COLS)
    for i in pypto.loop(pypto.ceildiv(rows, 16), idx_name="i"):
        valid = (rows - i * 16).min(16)
        t = pypto.view(x, [16, COLS], [i * 16, 0], valid_shape=[valid, COLS])
        v, idx = pypto.topk(t, KS, largest=False)
        pypto.assemble(v, [i * 16, 0], lo)
        pypto.assemble(idx, [i * 16, 0], lo_idx)
        # Rows of 3 valid elements, fewer than k: 3 indices come out.
        u = pypto.view(x, [16, COLS], [i * 16, 0], valid_shape=[valid, 3])
        _, sidx = pypto.topk(u, KS)
        pypto.assemble(sidx, [i * 16, 0], short)


WROWS, WCOLS, WK = 20, 320, 8


@pypto.jit
def wide(x: pypto.Tensor([DYN, WCOLS], F32), lo: pypto.Tensor([DYN, WK], F32),
         lo_idx: pypto.Tensor([DYN, WK], I32)):
    # Rows of 10 blocks of 32: the ISA merges them in two passes (4 + 4 + 2,
    # then 3 lists); the smallest, so the sort ranks -x.
    rows = x.shape[0]
    pypto.set_vec_tile_shapes(4, WCOLS)
    for i in pypto.loop(pypto.ceildiv(rows, 8), idx_name="i"):
        valid = (rows - i * 8).min(8)
        t = pypto.view(x, [8, WCOLS], [i * 8, 0], valid_shape=[valid, WCOLS])
        v, idx = pypto.topk(t, WK, largest=False)
        pypto.assemble(v, [i * 8, 0], lo)
        pypto.assemble(idx, [i * 8, 0], lo_idx)


def ties(rng, shape):
    """Values from a small set, so that most rows have runs of equal ones."""
    return rng.integers(-4, 5, size=shape).astype(np.float32) * 0.5


def topk_golden(x, k, largest):
    order = np.argsort(-x if largest else x, axis=-1, kind="stable")[..., :k]
    return np.take_along_axis(x, order, axis=-1), order.astype(np.int32)


def indexer_inputs():
    rng = np.random.default_rng(14)
    scores = ties(rng, (B, N, S, 64))
    scores[1] = rng.standard_normal((N, S, 64)).astype(np.float32)
    scores[..., SKV:] = 100.0  # would rank first if the padding were ranked
    return {"scores": scores, "indices": np.full((B, S, N, K), -1, np.int32),
            "values": np.full((B, N, S, K), np.nan, np.float32)}


INDEXER_DTYPES = {"scores": "fp32", "indices": "int32", "values": "fp32"}


def check_indexer(out, inputs, level):
    want_v, want_i = topk_golden(inputs["scores"][..., :SKV], K, largest=True)
    assert np.array_equal(out["values"], want_v), f"{level}: values differ"
    assert np.array_equal(out["indices"], want_i.transpose(0, 2, 1, 3)), \
        f"{level}: indices differ"



def indexer4d_inputs():
    inputs = indexer_inputs()
    inputs["indices"] = np.full((B, N, S, K), -1, np.int32)
    return inputs


def check_indexer4d(out, inputs, level):
    want_v, want_i = topk_golden(inputs["scores"][..., :SKV], K, largest=True)
    assert np.array_equal(out["values"], want_v), f"{level}: values differ"
    assert np.array_equal(out["indices"], want_i), f"{level}: indices differ"

def smallest_inputs():
    rng = np.random.default_rng(7)
    return {"x": ties(rng, (ROWS, COLS)), "lo": np.full((ROWS, KS), np.nan, np.float32),
            "lo_idx": np.full((ROWS, KS), -1, np.int32),
            "short": np.full((ROWS, KS), -1, np.int32)}


SMALLEST_DTYPES = {"x": "fp32", "lo": "fp32", "lo_idx": "int32", "short": "int32"}


def check_smallest(out, inputs, level):
    want_v, want_i = topk_golden(inputs["x"], KS, largest=False)
    assert np.array_equal(out["lo"], want_v), f"{level}: smallest values differ"
    assert np.array_equal(out["lo_idx"], want_i), f"{level}: smallest indices differ"
    _, short = topk_golden(inputs["x"][:, :3], 3, largest=True)
    assert np.array_equal(out["short"][:, :3], short), f"{level}: short rows differ"
    assert (out["short"][:, 3:] == -1).all(), f"{level}: wrote past a short row's valid part"



def wide_inputs():
    rng = np.random.default_rng(3)
    return {"x": ties(rng, (WROWS, WCOLS)), "lo": np.full((WROWS, WK), np.nan, np.float32),
            "lo_idx": np.full((WROWS, WK), -1, np.int32)}


WIDE_DTYPES = {"x": "fp32", "lo": "fp32", "lo_idx": "int32"}


def check_wide(out, inputs, level):
    want_v, want_i = topk_golden(inputs["x"], WK, largest=False)
    assert np.array_equal(out["lo"], want_v), f"{level}: values differ"
    assert np.array_equal(out["lo_idx"], want_i), f"{level}: indices differ"


@pytest.fixture(scope="module")
def kernels(tmp_path_factory) -> dict:
    d = tmp_path_factory.mktemp("topk")
    paths = {"indexer": d / "indexer.mlir", "smallest": d / "smallest.mlir",
             "wide": d / "wide.mlir", "indexer4d": d / "indexer4d.mlir"}
    paths["indexer4d"].write_text(indexer4d.trace(scores=(None, N, S, 64),
                                                  indices=(None, N, S, K),
                                                  values=(None, N, S, K)).mlir)
    paths["wide"].write_text(wide.trace(x=(None, WCOLS), lo=(None, WK), lo_idx=(None, WK)).mlir)
    paths["indexer"].write_text(indexer.trace(scores=(None, N, S, 64),
                                              indices=(None, S, N, K),
                                              values=(None, N, S, K)).mlir)
    paths["smallest"].write_text(smallest.trace(x=(None, COLS), lo=(None, KS),
                                                lo_idx=(None, KS), short=(None, KS)).mlir)
    return paths


CASES = {"indexer": (indexer_inputs, INDEXER_DTYPES, ["values", "indices"], check_indexer),
         "indexer4d": (indexer4d_inputs, INDEXER_DTYPES, ["values", "indices"],
                       check_indexer4d),
         "smallest": (smallest_inputs, SMALLEST_DTYPES, ["lo", "lo_idx", "short"],
                      check_smallest),
         "wide": (wide_inputs, WIDE_DTYPES, ["lo", "lo_idx"], check_wide)}


@pytest.mark.parametrize("name", ["indexer", "smallest", "wide"])
def test_program_level(kernels, tmp_path, name):
    make, dtypes, outputs, check = CASES[name]
    assert "pto.topk" in kernels[name].read_text()
    inputs = make()
    out, _ = run_kernel(kernels[name], tmp_path, inputs, dtypes, outputs)
    check(out, inputs, "pto-run")


@pytest.mark.parametrize("name", ["indexer", "smallest", "wide"])
def test_tile_graph(kernels, tmp_path, name):
    make, dtypes, outputs, check = CASES[name]
    tg = tmp_path / "tg.mlir"
    r = run_tool("pto-opt", kernels[name], "--pto-tile-graph-pipeline", "-o", tg)
    assert r.returncode == 0, r.stderr[-3000:]
    inputs = make()
    out, _ = run_kernel(tg, tmp_path / "run", inputs, dtypes, outputs)
    check(out, inputs, "tile graph")




# Rows shorter than k do not lower to pto_isa (the mask TGATHER packs k
# values per row; docs/ISA.md "topk"): the C++ level takes the kernels whose
# rows are at least k long (k = 4 in tests/test_glm_cpp_lowering.py).
@pytest.mark.parametrize("name", ["indexer4d", "wide"])
def test_emitted_cpp(kernels, tmp_path, name):
    make, dtypes, outputs, check = CASES[name]
    exe = codegen.build(kernels[name], tmp_path)
    cpp = next(tmp_path.glob("*.cpp")).read_text()
    assert "TSORT32(" in cpp and "TMRGSORT<" in cpp and "MaskPattern::P1010" in cpp
    inputs = make()
    out, _ = codegen.run(exe, tmp_path, inputs, dtypes, outputs)
    check(out, inputs, "C++ on the emulation")


def test_short_rows_are_a_lowering_error(kernels, tmp_path):
    r = run_tool("pto-opt", kernels["smallest"], "--pto-ascend-pipeline", "-o", tmp_path / "isa.mlir")
    assert r.returncode != 0
    assert "rows have 3 valid elements, fewer than k = 4" in r.stderr, r.stderr[-2000:]


@pypto.jit
def bad_bf16(x: pypto.Tensor([16, 64], pypto.DT_BF16), y: pypto.Tensor([16, 4], I32)):
    _, i = pypto.topk(pypto.view(x, [16, 64], [0, 0]), 4)
    pypto.assemble(i, [0, 0], y)


@pypto.jit
def bad_rank(x: pypto.Tensor([64], F32), y: pypto.Tensor([4], I32)):
    _, i = pypto.topk(pypto.view(x, [64], [0]), 4)
    pypto.assemble(i, [0], y)


@pypto.jit
def bad_dim(x: pypto.Tensor([16, 64], F32), y: pypto.Tensor([16, 4], I32)):
    _, i = pypto.topk(pypto.view(x, [16, 64], [0, 0]), 4, dim=0)
    pypto.assemble(i, [0, 0], y)


@pypto.jit
def bad_k(x: pypto.Tensor([16, 64], F32), y: pypto.Tensor([16, 4], I32)):
    _, i = pypto.topk(pypto.view(x, [16, 64], [0, 0]), 65)
    pypto.assemble(i, [0, 0], y)


@pypto.jit
def float_k(x: pypto.Tensor([16, 64], F32), y: pypto.Tensor([16, 4], I32)):
    _, i = pypto.topk(pypto.view(x, [16, 64], [0, 0]), 4.0)
    pypto.assemble(i, [0, 0], y)


@pytest.mark.parametrize("kernel, message", [
    (bad_bf16, r"topk\(input\) is DT_BF16; PyPTO's topk sorts DT_FP32 only"),
    (bad_rank, r"topk\(input\) has rank 1 \(\[64\]\); PyPTO's topk takes rank 2 to 4"),
    (bad_dim, r"topk\(dim=0\): PyPTO's topk sorts the last dim only"),
    (bad_k, r"topk\(k=65\) is out of range: PyPTO requires 1 <= k <= input.shape\[-1\] = 64"),
    (float_k, r"topk\(k=4.0\) must be a Python int"),
], ids=["bf16", "rank1", "dim0", "k65", "float_k"])
def test_trace_errors_at_the_line(kernel, message):
    """Each PyPTO rule is a TraceError at the kernel's topk line."""
    with pytest.raises(pypto.TraceError, match=message) as info:
        kernel.trace()
    assert_error_at_kernel_line(info, kernel, 2)
