"""Stitched root instances that touch the same GM buffer (docs/Runtime.md,
"Launches of different root instances"): the emitted program orders a launch
after the earlier launches of other instances in its device task whose
access intersects its own with a conflicting kind, so under shuffled launch
order and host threads it computes what pto-run (instance order) computes,
and instances that touch disjoint regions do not wait for one another (the
runtime's `gm_waits` count, --stats). Every kernel stitches all eight
iterations of its root loop into one device task (pto-plan-stitch's default
depth), one launch of one leaf per instance; the last test stitches the
alternating instances of two call sites into one device task and shows
that it fails when a launch's GM use goes missing."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from pto_mlir import codegen
from pto_mlir.tools import run_kernel, run_tool

# Every iteration stores its block (doubled) to the same rows of y: the last
# iteration's block must win.
LAST_WRITER = """\
pto.kernel @last_writer(%x: !pto.tensor<64x64xf32>, %y: !pto.tensor<8x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  pto.loop "L" %i = %c0 to %c8 step %c1 {
    %r = arith.muli %i, %c8 : index
    %t = pto.view %x[%r, %c0] : !pto.tensor<64x64xf32> -> !pto.tile<8x64xf32>
    %u = pto.add %t, %t : !pto.tile<8x64xf32>, !pto.tile<8x64xf32> -> !pto.tile<8x64xf32>
    pto.assemble %u, %y[0, 0] : !pto.tile<8x64xf32>, !pto.tensor<8x64xf32>
  }
}
"""

# A GM accumulator updated by read-modify-write (no atomics), in an order
# that shows: y = 2 y + x block (exact in f32 for these inputs).
ACCUMULATE = """\
pto.kernel @accumulate(%x: !pto.tensor<64x64xf32>, %y: !pto.tensor<8x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  pto.loop "L" %i = %c0 to %c8 step %c1 {
    %r = arith.muli %i, %c8 : index
    %t = pto.view %x[%r, %c0] : !pto.tensor<64x64xf32> -> !pto.tile<8x64xf32>
    %a = pto.view %y[%c0, %c0] : !pto.tensor<8x64xf32> -> !pto.tile<8x64xf32>
    %d = pto.add %a, %a : !pto.tile<8x64xf32>, !pto.tile<8x64xf32> -> !pto.tile<8x64xf32>
    %s = pto.add %d, %t : !pto.tile<8x64xf32>, !pto.tile<8x64xf32> -> !pto.tile<8x64xf32>
    pto.assemble %s, %y[0, 0] : !pto.tile<8x64xf32>, !pto.tensor<8x64xf32>
  }
}
"""

# Every iteration stores its block into its own 8 rows of y: disjoint
# regions of one buffer, never ordered.
DISJOINT_ROWS = """\
pto.kernel @disjoint_rows(%x: !pto.tensor<64x64xf32>, %y: !pto.tensor<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  pto.loop "L" %i = %c0 to %c8 step %c1 {
    %r = arith.muli %i, %c8 : index
    %t = pto.view %x[%r, %c0] : !pto.tensor<64x64xf32> -> !pto.tile<8x64xf32>
    %u = pto.add %t, %t : !pto.tile<8x64xf32>, !pto.tile<8x64xf32> -> !pto.tile<8x64xf32>
    pto.assemble %u, %y[%r, 0] : !pto.tile<8x64xf32>, !pto.tensor<64x64xf32>
  }
}
"""

# Every iteration stores its block into its own 64 columns of the same 8
# rows: boxes apart whose byte spans interleave, never ordered.
DISJOINT_COLUMNS = """\
pto.kernel @disjoint_columns(%x: !pto.tensor<64x64xf32>, %y: !pto.tensor<8x512xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  pto.loop "L" %i = %c0 to %c8 step %c1 {
    %r = arith.muli %i, %c8 : index
    %c = arith.muli %i, %c64 : index
    %t = pto.view %x[%r, %c0] : !pto.tensor<64x64xf32> -> !pto.tile<8x64xf32>
    %u = pto.add %t, %t : !pto.tile<8x64xf32>, !pto.tile<8x64xf32> -> !pto.tile<8x64xf32>
    pto.assemble %u, %y[0, %c] : !pto.tile<8x64xf32>, !pto.tensor<8x512xf32>
  }
}
"""

# Every iteration stores 16 rows from row 8i of y: each block overlaps the
# next one's by 8 rows, so each store follows the previous one and rows
# 8i..8i+8 come from iteration i (the last writer), the last 8 from 7.
OVERLAP = """\
pto.kernel @overlap(%x: !pto.tensor<128x64xf32>, %y: !pto.tensor<72x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  pto.loop "L" %i = %c0 to %c8 step %c1 {
    %r = arith.muli %i, %c16 : index
    %o = arith.muli %i, %c8 : index
    %t = pto.view %x[%r, %c0] : !pto.tensor<128x64xf32> -> !pto.tile<16x64xf32>
    %u = pto.add %t, %t : !pto.tile<16x64xf32>, !pto.tile<16x64xf32> -> !pto.tile<16x64xf32>
    pto.assemble %u, %y[%o, 0] : !pto.tile<16x64xf32>, !pto.tensor<72x64xf32>
  }
}
"""


def overlap_golden(x):
    blocks = [2 * x[16 * i:16 * i + 8] for i in range(8)] + [2 * x[16 * 7 + 8:128]]
    return np.concatenate(blocks)


# kernel: (text, x rows, y shape, golden of x, cross-instance waits). The
# stores of the ordered kernels each wait for the previous instance's only.
KERNELS = {"last_writer": (LAST_WRITER, 64, (8, 64), lambda x: 2 * x[56:64], 7),
           "accumulate": (ACCUMULATE, 64, (8, 64),
                          lambda x: sum(x[8 * i:8 * i + 8] * 2.0**(7 - i) for i in range(8)), 7),
           "overlap": (OVERLAP, 128, (72, 64), overlap_golden, 7),
           "disjoint_rows": (DISJOINT_ROWS, 64, (64, 64), lambda x: 2 * x, 0),
           "disjoint_columns": (DISJOINT_COLUMNS, 64, (8, 512),
                                lambda x: np.concatenate([2 * x[8 * i:8 * i + 8]
                                                          for i in range(8)], axis=1), 0)}
ORDERS = [[], ["--shuffle-seed", 1], ["--shuffle-seed", 7], ["--shuffle-seed", 23],
          ["--threads", 3], ["--threads", 2, "--shuffle-seed", 5]]


@pytest.mark.parametrize("kernel", sorted(KERNELS))
def test_instances_sharing_a_buffer_keep_instance_order(kernel, tmp_path):
    text, rows, y_shape, golden, waits = KERNELS[kernel]
    path = tmp_path / f"{kernel}.mlir"
    path.write_text(text)
    cpp = codegen.emit_cpp(path, tmp_path / "build")
    # One device task of all eight instances, each one launch of one leaf.
    assert "stitch_plan<depth = 128" in (tmp_path / "build" / f"{kernel}.isa.mlir").read_text()
    exe = codegen.compile_cpp(cpp)
    x = np.arange(rows * 64, dtype=np.float32).reshape(rows, 64) / 64
    inputs = {"x": x, "y": np.zeros(y_shape, np.float32)}
    dtypes = {"x": "f32", "y": "f32"}
    ref, _ = run_kernel(path, tmp_path / "interp", inputs, {"x": "fp32", "y": "fp32"}, ["y"])
    np.testing.assert_array_equal(ref["y"], golden(x))
    for order in ORDERS:
        out, proc = codegen.run(exe, tmp_path / "cpp", inputs, dtypes, ["y"], *order, "--stats")
        np.testing.assert_array_equal(out["y"], ref["y"], err_msg=f"order {order}")
        stats = re.search(r"pto_rt stats: .*", proc.stderr).group(0)
        assert "root_instances=8 launches=8 " in stats, stats
        assert f"gm_waits={waits}" in stats.split(), stats


# Two call sites per iteration: root L reads y (8 rows) and stores 2 y into
# z's block i (and stages 2 x block i in a workspace); root M, in a loop of
# its own, copies that workspace into y. So z's block i is 2 y as of before
# iteration i: L_i reads y before M_i overwrites it (write after read across
# call sites) and after M_{i-1} wrote it (read after write).
CALL_SITES = """\
pto.kernel @call_sites(%x: !pto.tensor<64x64xf32>, %y: !pto.tensor<8x64xf32>, %z: !pto.tensor<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  pto.loop "L" %i = %c0 to %c8 step %c1 {
    %r = arith.muli %i, %c8 : index
    %a = pto.view %y[%c0, %c0] : !pto.tensor<8x64xf32> -> !pto.tile<8x64xf32>
    %d = pto.add %a, %a : !pto.tile<8x64xf32>, !pto.tile<8x64xf32> -> !pto.tile<8x64xf32>
    pto.assemble %d, %z[%r, 0] : !pto.tile<8x64xf32>, !pto.tensor<64x64xf32>
    pto.loop "M" %j = %c0 to %c1 step %c1 {
      %t = pto.view %x[%r, %c0] : !pto.tensor<64x64xf32> -> !pto.tile<8x64xf32>
      %u = pto.add %t, %t : !pto.tile<8x64xf32>, !pto.tile<8x64xf32> -> !pto.tile<8x64xf32>
      pto.assemble %u, %y[0, 0] : !pto.tile<8x64xf32>, !pto.tensor<8x64xf32>
    }
  }
}
"""


def call_sites_golden(x, y):
    before = [y] + [2 * x[8 * i:8 * i + 8] for i in range(7)]
    return 2 * x[56:64], np.concatenate([2 * b for b in before])


def test_call_sites_share_a_device_task_in_instance_order(tmp_path):
    """The root calls of the two call sites alternate; the emitted program
    stitches all 16 instances into one device task (as pto-run and the cost
    model do), and the GM-region rule keeps each of M's writes of y after L's
    read of it and each of L's reads after M's write: under shuffled orders
    and host threads, z is pto-run's. The same program with M's GM use of y
    deleted from its launch (the runtime no longer knows M writes y) gives
    another z under some of the same orders: the test can fail."""
    path = tmp_path / "call_sites.mlir"
    path.write_text(CALL_SITES)
    cpp = codegen.emit_cpp(path, tmp_path / "build")
    text = cpp.read_text()
    sites = re.findall(r'rt\.root_call\("(call_sites_root_\w+)", (\d+), (\d+),', text)
    assert [(name, site) for name, site, _ in sites] == [
        ("call_sites_root_L", "0"), ("call_sites_root_M", "1")], sites
    depth = min(int(d) for _, _, d in sites)
    assert depth >= 16, sites
    exe = codegen.compile_cpp(cpp)
    rng = np.random.default_rng(2)
    x = rng.integers(-8, 8, (64, 64)).astype(np.float32)
    y = rng.integers(-8, 8, (8, 64)).astype(np.float32)
    inputs = {"x": x, "y": y, "z": np.zeros((64, 64), np.float32)}
    dtypes = {"x": "f32", "y": "f32", "z": "f32"}
    ref, _ = run_kernel(path, tmp_path / "interp", inputs,
                        {"x": "fp32", "y": "fp32", "z": "fp32"}, ["y", "z"])
    y_gold, z_gold = call_sites_golden(x, y)
    np.testing.assert_array_equal(ref["y"], y_gold)
    np.testing.assert_array_equal(ref["z"], z_gold)
    for order in ORDERS:
        out, proc = codegen.run(exe, tmp_path / "cpp", inputs, dtypes, ["y", "z"], *order,
                                "--stats")
        for name in ("y", "z"):
            np.testing.assert_array_equal(out[name], ref[name], err_msg=f"{name}, order {order}")
        stats = re.search(r"pto_rt stats: .*", proc.stderr).group(0)
        print(order, stats)
        # M_0 waits for L_0's workspace write and read of y; then per i > 0,
        # L_i's read of y for M_{i-1}'s write, M_i for L_i's workspace
        # write, L_i's read and M_{i-1}'s write of y: 2 + 7 x 4.
        assert "device_tasks=1 root_instances=16 launches=24 gm_waits=30" in stats, stats

    # The negative control: M's launch without its use of y.
    m_launch = re.compile(r'(ri\.launch\(pto_rt::Core::Vector, "call_sites_leaf_\w+", \{\}, '
                          r'\{\{a0, 1, [^}]*\}), \{a2, 2, [^}]*\}\}')
    cut, count = m_launch.subn(r"\1}", text)
    assert count == 1, "the launch of M's leaf (reads a0, writes a2 = y) not found"
    unordered = tmp_path / "unordered.cpp"
    unordered.write_text(cut)
    exe = codegen.compile_cpp(unordered)
    wrong = []
    for order in ORDERS:
        out, _ = codegen.run(exe, tmp_path / "unordered_run", inputs, dtypes, ["y", "z"], *order)
        if not np.array_equal(out["z"], ref["z"]):
            wrong.append(order)
    print("orders with a wrong z without M's use of y:", wrong)
    assert wrong, "no order exposed the missing ordering"


# The control program reads cnt, which the previous iteration's root L
# wrote, and root M (a call site of its own) copies the x rows it names
# into z's block i.
READ_BACK = """\
pto.kernel @read_back(%src: !pto.tensor<4x8xi32>, %cnt: !pto.tensor<1x8xi32>, %x: !pto.tensor<64x64xf32>, %z: !pto.tensor<32x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  pto.loop "L" %i = %c0 to %c4 step %c1 {
    %row = pto.read %cnt[%c0, %c0] : !pto.tensor<1x8xi32>
    %s = pto.view %src[%i, %c0] : !pto.tensor<4x8xi32> -> !pto.tile<1x8xi32>
    %u = pto.add %s, %s : !pto.tile<1x8xi32>, !pto.tile<1x8xi32> -> !pto.tile<1x8xi32>
    pto.assemble %u, %cnt[0, 0] : !pto.tile<1x8xi32>, !pto.tensor<1x8xi32>
    %o = arith.muli %i, %c8 : index
    pto.loop "M" %j = %c0 to %c1 step %c1 {
      %t = pto.view %x[%row, %c0] : !pto.tensor<64x64xf32> -> !pto.tile<8x64xf32>
      pto.assemble %t, %z[%o, 0] : !pto.tile<8x64xf32>, !pto.tensor<32x64xf32>
    }
  }
}
"""


@pytest.mark.parametrize("ready_on_host", [False, True])
def test_host_reads_see_the_stitched_writes(ready_on_host, tmp_path):
    """A control-program read of device-written GM submits the pending
    device task first (`rt.flush()`): with the instances of both call sites
    stitched, each iteration's read sees the previous iteration's write, as
    in pto-run, whose stitches the read flushes too (4 device tasks of the 8
    instances in both, --simulate's count); also when the kernel lists cnt
    in ready_on_host_tensors (`pto.host_ready`), since a leaf writes it.
    Without that flush the reads see the value before the device task ran
    and z goes wrong: the test can fail."""
    path = tmp_path / "read_back.mlir"
    text = READ_BACK
    if ready_on_host:
        text = text.replace("%z: !pto.tensor<32x64xf32>) {", "%z: !pto.tensor<32x64xf32>)\n"
                            "    attributes {runtime_options = #pto.runtime_options<"
                            "ready_on_host_tensors = [\"cnt\"]>} {")
    path.write_text(text)
    cpp = codegen.emit_cpp(path, tmp_path / "build")
    assert ("pto.host_ready" in (tmp_path / "build" / "read_back.isa.mlir").read_text()) \
        == ready_on_host
    text = cpp.read_text()
    assert len(re.findall(r"rt\.root_call\(", text)) == 2
    src = np.array([[5], [24], [20], [16]], np.int32) * np.ones((1, 8), np.int32)
    x = np.arange(64 * 64, dtype=np.float32).reshape(64, 64)
    inputs = {"src": src, "cnt": np.full((1, 8), 3, np.int32), "x": x,
              "z": np.zeros((32, 64), np.float32)}
    dtypes = {"src": "i32", "cnt": "i32", "x": "f32", "z": "f32"}
    ref, proc = run_kernel(path, tmp_path / "interp", inputs,
                           {"src": "int32", "cnt": "int32", "x": "fp32", "z": "fp32"}, ["z"])
    rows = [3, 10, 48, 40]  # cnt, then 2 src[i - 1, 0]
    np.testing.assert_array_equal(ref["z"], np.concatenate([x[r:r + 8] for r in rows]))
    tile_graph = tmp_path / "read_back.tg.mlir"
    assert run_tool("pto-opt", path, "--pto-tile-graph-pipeline", "-o", tile_graph).returncode == 0
    _, model = run_kernel(tile_graph, tmp_path / "model", inputs,
                          {"src": "int32", "cnt": "int32", "x": "fp32", "z": "fp32"}, [],
                          "--simulate=a3")
    assert re.search(r"in 4 device tasks", model.stdout), model.stdout[-2000:]
    exe = codegen.compile_cpp(cpp)
    for order in ORDERS:
        out, proc = codegen.run(exe, tmp_path / "cpp", inputs, dtypes, ["z"], *order, "--stats")
        np.testing.assert_array_equal(out["z"], ref["z"], err_msg=f"order {order}")
        stats = re.search(r"pto_rt stats: .*", proc.stderr).group(0)
        assert "device_tasks=4 root_instances=8 " in stats, stats

    # The negative control: the read without its flush.
    cut, count = re.subn(r"rt\.flush\(\);\n(\s*const int64_t \w+ = pto_rt::read_scalar)", r"\1",
                         text)
    assert count == 1, "the flush before the read of cnt not found"
    unflushed = tmp_path / "unflushed.cpp"
    unflushed.write_text(cut)
    out, _ = codegen.run(codegen.compile_cpp(unflushed), tmp_path / "unflushed_run", inputs,
                         dtypes, ["z"])
    assert not np.array_equal(out["z"], ref["z"]), "the stale read went unnoticed"
