"""A control-program `pto.read` of a GM tensor sees every task before it in
program order that writes the tensor: pto-run on the source, on the tile
graph and the emitted C++ on the host emulation (under shuffled launch
orders and host threads) agree with a NumPy golden.

Every kernel's loop body stores 2 x[block i] into the i32 tensor z through
tile ops (a vector task), reads z[0, 0] back in the control program and lets
the value choose what comes next: a view's row offset, a loop-carried sum of
offsets, an `scf.if`, an inner loop's bound, a read again in an inner loop
(the loop ends the segment: this one held before); one variant adds into z with
atomic_add, one lists z in ready_on_host_tensors (a leaf writes it, so the
read still waits). pto-partition used to place the task at the end of its
segment of the block, after the read: the read saw the previous iteration's
z (docs/TileGraph.md, "After pto-partition").
"""

from __future__ import annotations

import numpy as np
import pytest

from pto_mlir import codegen
from pto_mlir.tools import run_kernel, run_tile_graph

HEAD = """\
pto.kernel @{name}(%x: !pto.tensor<32x64xi32>, %z: !pto.tensor<8x64xi32>, \
%y: !pto.tensor<64x64xf32>, %out: !pto.tensor<64x64xf32>){attrs} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  {loop}
    %r = arith.muli %i, %c8 : index
    %t = pto.view %x[%r, %c0] : !pto.tensor<32x64xi32> -> !pto.tile<8x64xi32>
    %d = pto.add %t, %t : !pto.tile<8x64xi32>, !pto.tile<8x64xi32> -> !pto.tile<8x64xi32>
    pto.{store} %d, %z[0, 0] : !pto.tile<8x64xi32>, !pto.tensor<8x64xi32>
    %s = pto.read %z[%c0, %c0] : !pto.tensor<8x64xi32>
"""
LOOP = 'pto.loop "L" %i = %c0 to %c4 step %c1 {'


def copy_block(row: str, dst: str) -> str:
    """out[dst:dst+8] = -y[row:row+8]."""
    return f"""\
    %u = pto.view %y[{row}, %c0] : !pto.tensor<64x64xf32> -> !pto.tile<8x64xf32>
    %n = pto.neg %u : !pto.tile<8x64xf32> -> !pto.tile<8x64xf32>
    pto.assemble %n, %out[{dst}, 0] : !pto.tile<8x64xf32>, !pto.tensor<64x64xf32>
"""


def kernel(name, body, store="assemble", attrs="", loop=LOOP):
    return HEAD.format(name=name, attrs=attrs, loop=loop, store=store) + body + "  }\n}\n"


def neg_block(y, row):
    return -y[row:row + 8]


def golden_view_offset(x, y, out):
    for i in range(4):
        out[8 * i:8 * i + 8] = neg_block(y, 2 * x[8 * i, 0])


def golden_accumulate(x, y, out):
    acc = 0
    for i in range(4):
        acc += 2 * x[8 * i, 0]
        out[8 * i:8 * i + 8] = neg_block(y, acc)


def golden_branch(x, y, out):
    for i in range(4):
        out[8 * i:8 * i + 8] = neg_block(y, 8 if 2 * x[8 * i, 0] > 4 else 0)


def golden_loop_bound(x, y, out):
    for i in range(4):
        for j in range(2 * x[8 * i, 0]):
            out[8 * j:8 * j + 8] = neg_block(y, 8 * j)


def golden_atomic(x, y, out):
    z = 0
    for i in range(4):
        z += 2 * x[8 * i, 0]
        out[8 * i:8 * i + 8] = neg_block(y, z)


# name: (kernel text, x block values, golden of (x, y, out) filling out).
KERNELS = {
    "view_offset": (kernel("view_offset", copy_block("%s", "%r")),
                    [1, 4, 7, 10], golden_view_offset),
    "accumulate": (kernel("accumulate", "    %a = arith.addi %acc, %s : index\n"
                          + copy_block("%a", "%r") + "    pto.yield %a : index\n",
                          loop='%sum = pto.loop "L" %i = %c0 to %c4 step %c1 '
                               'iter_args(%acc = %c0) -> (index) {'),
                   [1, 4, 7, 10], golden_accumulate),
    "branch": (kernel("branch", "    %b = arith.cmpi sgt, %s, %c4 : index\n"
                      "    scf.if %b {\n" + copy_block("%c8", "%r") + "    } else {\n"
                      + copy_block("%c0", "%r") + "    }\n"),
               [0, 1, 2, 3], golden_branch),
    "loop_bound": (kernel("loop_bound", '    pto.loop "M" %j = %c0 to %s step %c1 {\n'
                          "      %o = arith.muli %j, %c8 : index\n"
                          + copy_block("%o", "%o") + "    }\n"),
                   [0, 1, 2, 3], golden_loop_bound),
    "nested": (kernel("nested", '    pto.loop "M" %j = %c0 to %c1 step %c1 {\n'
                      "      %s2 = pto.read %z[%c0, %c0] : !pto.tensor<8x64xi32>\n"
                      + copy_block("%s2", "%r") + "    }\n"),
               [1, 4, 7, 10], golden_view_offset),
    "atomic": (kernel("atomic", copy_block("%s", "%r"), store="atomic_add"),
               [1, 2, 3, 4], golden_atomic),
    "host_ready": (kernel("host_ready", copy_block("%s", "%r"),
                          attrs=' attributes {\n    runtime_options = '
                                '#pto.runtime_options<ready_on_host_tensors = ["z"]>}'),
                   [1, 4, 7, 10], golden_view_offset),
}
DTYPES = {"x": "i32", "z": "i32", "y": "f32", "out": "f32"}
GOLDEN_DTYPES = {"x": "int32", "z": "int32", "y": "fp32", "out": "fp32"}
ORDERS = [[], ["--shuffle-seed", 3], ["--threads", 3], ["--threads", 2, "--shuffle-seed", 9]]


def inputs_for(blocks):
    x = np.repeat(np.asarray(blocks, np.int32), 8 * 64).reshape(32, 64)
    return {"x": x, "z": np.zeros((8, 64), np.int32),
            "y": np.arange(64 * 64, dtype=np.float32).reshape(64, 64) / 64,
            "out": np.zeros((64, 64), np.float32)}


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_control_read_sees_the_task_before_it(name, tmp_path):
    text, blocks, golden = KERNELS[name]
    path = tmp_path / f"{name}.mlir"
    path.write_text(text)
    inputs = inputs_for(blocks)
    expected = inputs["out"].copy()
    golden(inputs["x"], inputs["y"], expected)

    source, _ = run_kernel(path, tmp_path / "source", inputs, GOLDEN_DTYPES, ["out"])
    np.testing.assert_array_equal(source["out"], expected, err_msg="pto-run on the source")
    graph, _ = run_tile_graph(path, tmp_path / "graph", inputs, GOLDEN_DTYPES, ["out"])
    np.testing.assert_array_equal(graph["out"], expected, err_msg="pto-run on the tile graph")

    exe = codegen.build(path, tmp_path / "cpp")
    for order in ORDERS:
        out, _ = codegen.run(exe, tmp_path / "run", inputs, DTYPES, ["out"], *order)
        np.testing.assert_array_equal(out["out"], expected, err_msg=f"C++, order {order}")
