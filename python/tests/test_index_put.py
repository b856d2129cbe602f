"""pto.index_put (pypto.index_put_ / pypto.index_add_) executed at every
level: pto-run on the traced program, pto-run on the tile graph
(--pto-tile-graph-pipeline) and the emitted pto-isa C++ (row-mode MSCATTER)
on the host emulation, each against NumPy. The kernels are written the way
the pypto-gym kernels use these names (ScatterNdSub: a negated update
accumulated at rows read from an index tensor; gmm finalize routing: scaled
rows added into an output with index_add_). Rows come in blocks of 8 with a
tail, duplicate indices accumulate, and an index outside the tensor is a
fault naming the index and the kernel line at each level."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import pto_mlir.frontend as pypto
from pto_mlir import codegen
from pto_mlir.tools import compile_tile_graph, input_args, run_kernel, run_tool

F32, I32, DYN = pypto.DT_FP32, pypto.DT_INT32, pypto.DYN


@pypto.jit
def scatter(target: pypto.Tensor([10, 16], F32), copy: pypto.Tensor([32, 16], F32),
            out: pypto.Tensor([10, 16], F32), indices: pypto.Tensor([DYN], I32),
            unique: pypto.Tensor([DYN], I32), updates: pypto.Tensor([DYN, 16], F32),
            logit: pypto.Tensor([DYN, 1], F32)):
    n = updates.shape[0]
    pypto.set_vec_tile_shapes(8, 16)
    for i in pypto.loop(pypto.ceildiv(n, 8), idx_name="i"):
        valid = (n - i * 8).min(8)
        rows = pypto.view(indices, [8], [i * 8], valid_shape=[valid])
        upd = pypto.view(updates, [8, 16], [i * 8, 0], valid_shape=[valid, 16])
        # ScatterNdSub: target[rows[k]] -= updates[k]
        pypto.index_put_(target, (rows,), pypto.mul(upd, -1.0), True)
        # a plain write at unique rows
        urows = pypto.view(unique, [8], [i * 8], valid_shape=[valid])
        pypto.index_put_(copy, (urows,), upd)
        # gmm finalize routing: out[rows[k]] += 0.5 * updates[k] * logit[k]
        w = pypto.view(logit, [8, 1], [i * 8, 0], valid_shape=[valid, 1])
        pypto.index_add_(out, 0, rows, pypto.mul(upd, w), alpha=0.5)


N = 20  # two blocks of 8 and a tail of 4
DTYPES = {"target": "fp32", "copy": "fp32", "out": "fp32", "indices": "int32",
          "unique": "int32", "updates": "fp32", "logit": "fp32"}
OUTPUTS = ["target", "copy", "out"]
# The kernel lines that scatter with `rows` (a bad index faults at the
# first one to run: in program order for pto-run; tasks may run in another
# order in the emitted program) and the tensors they write.
_SOURCE = Path(__file__).read_text().splitlines()
ROWS_SITES = {next(n for n, line in enumerate(_SOURCE, 1) if "index_put_(target, (rows,)" in line):
              "target",
              next(n for n, line in enumerate(_SOURCE, 1) if "index_add_(out, 0, rows" in line):
              "out"}


def assert_bad_index_fault(proc, program_order: bool):
    """Exit 3 with pto-run's rule at a line that scatters with `rows`."""
    assert proc.returncode == 3, proc.stderr[-2000:]
    sites = [(n, t) for n, t in ROWS_SITES.items()
             if f"test_index_put.py:{n}:" in proc.stderr and
             f"index_put row index 10 (indices[5]) is out of range: '{t}' has 10 rows"
             in proc.stderr]
    assert sites, proc.stderr[-2000:]
    if program_order:
        assert sites[0][1] == "target", proc.stderr[-2000:]


def make_inputs(bad_index: int | None = None):
    rng = np.random.default_rng(7)
    indices = rng.integers(0, 10, N).astype(np.int32)  # duplicates accumulate
    if bad_index is not None:
        indices[13] = bad_index
    return {"target": rng.standard_normal((10, 16)).astype(np.float32),
            "copy": np.zeros((32, 16), np.float32),
            "out": rng.standard_normal((10, 16)).astype(np.float32),
            "indices": indices, "unique": rng.permutation(32)[:N].astype(np.int32),
            "updates": rng.standard_normal((N, 16)).astype(np.float32),
            "logit": rng.standard_normal((N, 1)).astype(np.float32)}


def golden(inputs):
    target, out = inputs["target"].copy(), inputs["out"].copy()
    copy = inputs["copy"].copy()
    np.add.at(target, inputs["indices"], -inputs["updates"])
    copy[inputs["unique"]] = inputs["updates"]
    np.add.at(out, inputs["indices"], 0.5 * (inputs["updates"] * inputs["logit"]))
    return {"target": target, "copy": copy, "out": out}


def check(got: dict, inputs: dict, level: str):
    want = golden(inputs)
    for name in OUTPUTS:
        # Duplicate rows accumulate in an order each executor chooses.
        np.testing.assert_allclose(got[name], want[name], rtol=1e-6, atol=1e-6,
                                   err_msg=f"{level}: {name}")


@pytest.fixture(scope="module")
def kernel(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("index_put") / "scatter.mlir"
    path.write_text(scatter.trace(indices=(None,), unique=(None,), updates=(None, 16),
                                  logit=(None, 1)).mlir)
    return path


def test_program_level(kernel, tmp_path):
    text = kernel.read_text()
    assert text.count("pto.index_put") == 3 and text.count(" accumulate") == 2
    inputs = make_inputs()
    out, _ = run_kernel(kernel, tmp_path, inputs, DTYPES, OUTPUTS)
    check(out, inputs, "pto-run")


def test_tile_graph(kernel, tmp_path):
    tg = compile_tile_graph(kernel, tmp_path / "tg.mlir")
    assert "pto.index_put" in tg.read_text()
    inputs = make_inputs()
    out, _ = run_kernel(tg, tmp_path / "run", inputs, DTYPES, OUTPUTS)
    check(out, inputs, "tile graph")


def test_emitted_cpp_and_faults(kernel, tmp_path):
    """One build: the numerics, then an index outside 'target' (10 rows),
    which the emitted program reports at the kernel's line, as pto-run does."""
    exe = codegen.build(kernel, tmp_path)
    cpp = next(tmp_path.glob("*.cpp")).read_text()
    assert "MSCATTER<Coalesce::Row, ScatterAtomicOp::Add>" in cpp
    assert "MSCATTER<Coalesce::Row, ScatterAtomicOp::None>" in cpp
    inputs = make_inputs()
    out, _ = codegen.run(exe, tmp_path, inputs, DTYPES, OUTPUTS)
    check(out, inputs, "C++ on the emulation")

    bad = make_inputs(bad_index=10)
    r = run_tool("pto-run", kernel, *input_args(tmp_path / "bad", bad, DTYPES),
                 "--output-dir", tmp_path / "bad_out")
    assert_bad_index_fault(r, program_order=True)
    _, r = codegen.run(exe, tmp_path / "cpp_bad", bad, DTYPES, OUTPUTS, check=False)
    assert_bad_index_fault(r, program_order=False)


@pytest.mark.parametrize("body, message", [
    ("pypto.index_put_(t, (rows, rows), v, True)",
     "index_put_ with 2 index tensors (element-wise indexing) is not supported yet"),
    ("pypto.index_add_(t, 1, rows, v)",
     "index_add_(dim=1) is not supported yet: pto.index_put indexes rows (dim 0)"),
    ("pypto.index_put_(t, (v,), v)",
     "index_put_(indices[0]) is a [8, 16] tile; PyPTO takes a 1-D index tensor"),
    ("pypto.index_put_(t, (rows,), pypto.view(v, [4, 16], [0, 0]))",
     "8 indices for a source of 4 rows"),
])
def test_trace_errors(body, message):
    namespace = {"pypto": pypto}
    exec(f"""
@pypto.jit
def bad(t: pypto.Tensor([10, 16], pypto.DT_FP32), i: pypto.Tensor([8], pypto.DT_INT32),
        u: pypto.Tensor([8, 16], pypto.DT_FP32)):
    rows = pypto.view(i, [8], [0])
    v = pypto.view(u, [8, 16], [0, 0])
    {body}
""", namespace)
    with pytest.raises(pypto.TraceError, match=re.escape(message)):
        namespace["bad"].trace()
