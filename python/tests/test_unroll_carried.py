"""pto-unroll-carried-loops (the pipelines' `unroll-carried` switch) on SK-01:
the kv loop, which carries the online-softmax accumulators, runs u kv tiles
per body (docs/TileGraph.md#several-iterations-of-a-carried-loop-per-body).

The copies run the ops as written, so the tile graph's outputs are bitwise
those of the loop as written; the emitted C++ of the GM-accumulator form
(the form the C++ chain takes) matches the golden. test_09's kv lengths at
24-row kv tiles give 4, 11 and 6 tiles: whole chunks and remainders of 1 and
2 tiles for u = 3, a sequence of one chunk and none for u = 4.

With `dynamic-trip-count` (pto-l1-reuse: the q-tile loop, whose trip count
is a run-time value, assumed to fill the cores) the chunk's Q Kᵀ pieces merge
into longer operand-stationary tasks; checked at the published FA kernel's
block shape (benchmarks/run's SK-01 rows), one head, where it changes them.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from pto_mlir import codegen, sk01_ir
from pto_mlir.golden import sk01, sk16
from pto_mlir.golden.sk16 import Sk16Case
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


def check_forward(out, inputs, case=CASE):
    assert sk01.written_rows(inputs).all()
    for name, (ok, ratio, err) in sk01.check_outputs(out, inputs, case.N, case.D).items():
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


# The published FA kernel's blocks (128 query rows, 256 kv rows per step,
# 128-wide cube pieces, benchmarks/cost_model.py), one head: a 4-tile
# sequence (one chunk of 4) and a 3-tile one (the rest), two q blocks each.
FA_BLOCKS = dict(q_tile=128, kv_tile=256, c1_tile=(128,) * 6, c2_tile=(128,) * 6,
                 v1_tile=(32, 256), v2_tile=(32, 128))
ONE_HEAD = Sk16Case("one_head", [256, 256], [1024, 640], 1, 128)
TRIPS = "unroll-carried=4 dynamic-trip-count=48"


def fa_kernel(tmp_path, accumulators: str):
    path = tmp_path / f"sk01_fa_{accumulators}.mlir"
    path.write_text(sk01_ir.emit(sk01_ir.Sk01Config(
        heads=1, head_dim=ONE_HEAD.D, accumulators=accumulators, **FA_BLOCKS)))
    return path


def test_dynamic_trip_count_outputs_bitwise_equal(tmp_path):
    source = fa_kernel(tmp_path, "iter_args")
    inputs = sk01.make_inputs(ONE_HEAD, seed=5, fill=np.nan)
    plain, _ = tile_graph_outputs(source, tmp_path, inputs, "")
    check_forward(plain, inputs, ONE_HEAD)
    unrolled, unrolled_ir = tile_graph_outputs(source, tmp_path, inputs, "unroll-carried=4")
    out, ir = tile_graph_outputs(source, tmp_path, inputs, TRIPS)
    # The planner merged the chunk's cube pieces differently.
    assert ir != unrolled_ir
    assert_bitwise(plain, unrolled, equal_nan=True)
    assert_bitwise(plain, out, equal_nan=True)


def test_dynamic_trip_count_emitted_cpp_matches_golden(tmp_path):
    """The GM-accumulator form unrolled, with the q-tile loop assumed to fill
    the cores, through the Ascend pipeline, pto-isa-verify-sync and the host
    emulation; in submission order, shuffled and on host threads (stitched
    instances ordered where their GM regions intersect, docs/Runtime.md),
    with the same outputs bit for bit."""
    inputs = sk01.make_inputs(ONE_HEAD, seed=13, fill=np.nan)
    exe = codegen.build(fa_kernel(tmp_path, "gm"), tmp_path / "cpp",
                        pipeline=f"pto-ascend-pipeline{{{TRIPS}}},pto-isa-verify-sync")
    first = None
    for order in ([], ["--shuffle-seed", 3], ["--threads", 3],
                  ["--threads", 2, "--shuffle-seed", 11]):
        out, _ = codegen.run(exe, tmp_path / "run", inputs, sk01.DTYPES, sk01.OUTPUT_NAMES,
                             *order, names=sk01.INPUT_NAMES)
        check_forward(out, inputs, ONE_HEAD)
        if first is None:
            first = out
        else:
            assert_bitwise(first, out, equal_nan=True)


# The options pto-tune picks for the published rows (benchmarks/run's SK-01
# "tuned" column at every S).
TUNED = "unroll-carried=64,32,16,4 dynamic-trip-count=48"


def model_stitching(compiled, tmp_path, inputs):
    """The cost model's device tasks, root instances and launches for a
    tile-graph module (`pto-run --simulate=a3 --run-stats`)."""
    _, proc = run_kernel(compiled, tmp_path / "model", inputs, sk01.DTYPES, [],
                         "--simulate=a3", "--run-stats", names=sk01.INPUT_NAMES)
    # The run statistics go to stderr, the estimate to stdout.
    instances = re.search(r"(\d+) root instances in (\d+) stitches", proc.stderr)
    launches = re.search(r"launches: (\d+) \(.*?\) in (\d+) device tasks", proc.stdout)
    assert instances and launches, proc.stdout[-2000:] + proc.stderr[-2000:]
    return {"device_tasks": int(launches.group(2)), "root_instances": int(instances.group(1)),
            "launches": int(launches.group(1))}


def test_tuned_emitted_cpp_stitches_like_the_model(tmp_path):
    """SK-01 tuned (GM accumulators, the C++ chain's form) at one head,
    S = 256: its root calls alternate among the chunk's call sites; the
    emitted program stitches them into the device tasks the cost model
    schedules (same device tasks, root instances and launches; docs/
    Runtime.md, "Stitching"), orders the instances by their GM regions
    (gm_waits > 0), and matches the golden bit for bit in submission order,
    under shuffle seeds and on host threads, hazard and flag checks on.
    Built at -O0: the 64/32/16-tile chunk bodies make a 4 MB file."""
    source = fa_kernel(tmp_path, "gm")
    inputs = sk01.make_inputs(ONE_HEAD, seed=13, fill=np.nan)
    compiled = tmp_path / "tuned_tile_graph.mlir"
    r = run_tool("pto-opt", source, f"--pto-tile-graph-pipeline={TUNED}", "-o", compiled)
    assert r.returncode == 0, r.stderr[-3000:]
    model = model_stitching(compiled, tmp_path, inputs)
    exe = codegen.build(source, tmp_path / "cpp", opt="-O0",
                        pipeline=f"pto-ascend-pipeline{{{TUNED}}},pto-isa-verify-sync")
    sites = len(re.findall(r"rt\.root_call\(", (tmp_path / "cpp" / f"{source.stem}.cpp").read_text()))
    first = None
    for order in ([], ["--shuffle-seed", 1], ["--shuffle-seed", 7], ["--threads", 2],
                  ["--threads", 3, "--shuffle-seed", 5]):
        out, proc = codegen.run(exe, tmp_path / "run", inputs, sk01.DTYPES, sk01.OUTPUT_NAMES,
                                *order, "--stats", names=sk01.INPUT_NAMES)
        stats = {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", re.search(
            r"pto_rt stats: .*", proc.stderr).group(0))}
        print(f"order {order or 'submission'}: model {model}; emitted {stats} "
              f"({sites} call sites)")
        assert {k: stats[k] for k in model} == model, (stats, model)
        assert stats["device_tasks"] < stats["root_instances"], stats
        assert stats["gm_waits"] > 0, stats
        check_forward(out, inputs, ONE_HEAD)
        if first is None:
            first, waits = out, stats["gm_waits"]
        else:
            assert_bitwise(first, out, equal_nan=True)
            assert stats["gm_waits"] == waits, stats
