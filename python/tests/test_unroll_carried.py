"""pto-unroll-carried-loops (the pipelines' `unroll-carried` switch) on SK-01:
the kv loop, which carries the online-softmax accumulators, runs u kv tiles
per body (docs/TileGraph.md#several-iterations-of-a-carried-loop-per-body).

The copies run the ops as written, so the tile graph's outputs are bitwise
those of the loop as written; the emitted C++ of the GM-accumulator form
(the form the C++ chain takes) matches the golden. test_09's kv lengths at
24-row kv tiles give 4, 11 and 6 tiles: whole chunks and remainders of 1 and
2 tiles for u = 3, a sequence of one chunk and none for u = 4.
"""

from __future__ import annotations

import numpy as np
import pytest

from pto_mlir import codegen, sk01_ir
from pto_mlir.golden import sk01, sk16
from pto_mlir.tools import assert_bitwise, run_kernel, run_tool

SMALL = dict(q_tile=40, kv_tile=24, c1_tile=(32, 64, 32, 64, 32, 64),
             c2_tile=(32, 64, 32, 64, 32, 64), v1_tile=(16, 64), v2_tile=(16, 64))
CASE = sk16.CASES["test_09"]


def kernel(tmp_path, accumulators: str):
    path = tmp_path / f"sk01_{accumulators}.mlir"
    path.write_text(sk01_ir.emit(sk01_ir.Sk01Config(
        heads=CASE.N, head_dim=CASE.D, accumulators=accumulators, **SMALL)))
    return path


def tile_graph_outputs(source, tmp_path, inputs, options: str):
    compiled = tmp_path / f"tg_{options or 'plain'}.mlir"
    pipeline = "--pto-tile-graph-pipeline" + (f"={options}" if options else "")
    r = run_tool("pto-opt", source, pipeline, "-o", compiled)
    assert r.returncode == 0, r.stderr[-3000:]
    out, _ = run_kernel(compiled, tmp_path / (options or "plain"), inputs, sk01.DTYPES,
                        sk01.OUTPUT_NAMES, names=sk01.INPUT_NAMES)
    return out, compiled.read_text()


def check_forward(out, inputs):
    assert sk01.written_rows(inputs).all()
    for name, (ok, ratio, err) in sk01.check_outputs(out, inputs, CASE.N, CASE.D).items():
        assert ok, f"{name}: |out - gold| reaches {ratio:.3g} x the allowed error (max|err| {err:.3g})"


@pytest.mark.parametrize("accumulators", ["iter_args", "gm"])
def test_tile_graph_outputs_bitwise_equal(accumulators, tmp_path):
    source = kernel(tmp_path, accumulators)
    inputs = sk01.make_inputs(CASE, seed=3, fill=np.nan)
    plain, plain_ir = tile_graph_outputs(source, tmp_path, inputs, "")
    check_forward(plain, inputs)
    for u in (3, 4):
        out, ir = tile_graph_outputs(source, tmp_path, inputs, f"unroll-carried={u}")
        # The kv loop became a loop over chunks and the loop of the rest.
        assert ir.count('"k_tile_loop"') == 2 * plain_ir.count('"k_tile_loop"'), u
        assert_bitwise(plain, out, equal_nan=True)


def test_emitted_cpp_matches_golden(tmp_path):
    """The unrolled GM-accumulator form through the Ascend pipeline, its
    synchronisation checked by pto-isa-verify-sync, its C++ on the host
    emulation."""
    inputs = sk01.make_inputs(CASE, seed=11, fill=np.nan)
    exe = codegen.build(kernel(tmp_path, "gm"), tmp_path / "cpp",
                        pipeline="pto-ascend-pipeline{unroll-carried=3},pto-isa-verify-sync")
    out, _ = codegen.run(exe, tmp_path / "run", inputs, sk01.DTYPES, sk01.OUTPUT_NAMES,
                         names=sk01.INPUT_NAMES)
    check_forward(out, inputs)
