"""Stitched root instances that touch the same GM buffer (docs/Runtime.md,
"Launches of different root instances"): the emitted program orders a launch
after the earlier conflicting launches of other instances in its device task,
so under shuffled launch order and host threads it computes what pto-run
(instance order) computes. Both kernels stitch all eight iterations of their
root loop into one device task (pto-plan-stitch's default depth)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from pto_mlir import codegen
from pto_mlir.tools import run_kernel

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

KERNELS = {"last_writer": (LAST_WRITER, lambda x: 2 * x[56:64]),
           "accumulate": (ACCUMULATE, lambda x: sum(x[8 * i:8 * i + 8] * 2.0**(7 - i)
                                                    for i in range(8)))}
ORDERS = [[], ["--shuffle-seed", 1], ["--shuffle-seed", 7], ["--shuffle-seed", 23],
          ["--threads", 3], ["--threads", 2, "--shuffle-seed", 5]]


@pytest.mark.parametrize("kernel", sorted(KERNELS))
def test_instances_sharing_a_buffer_keep_instance_order(kernel, tmp_path):
    text, golden = KERNELS[kernel]
    path = tmp_path / f"{kernel}.mlir"
    path.write_text(text)
    cpp = codegen.emit_cpp(path, tmp_path / "build")
    # One device task of all eight instances, each one launch of one leaf.
    assert "stitch_plan<depth = 128" in (tmp_path / "build" / f"{kernel}.isa.mlir").read_text()
    exe = codegen.compile_cpp(cpp)
    x = np.arange(64 * 64, dtype=np.float32).reshape(64, 64) / 64
    inputs = {"x": x, "y": np.zeros((8, 64), np.float32)}
    dtypes = {"x": "f32", "y": "f32"}
    ref, _ = run_kernel(path, tmp_path / "interp", inputs, {"x": "fp32", "y": "fp32"}, ["y"])
    np.testing.assert_array_equal(ref["y"], golden(x))
    for order in ORDERS:
        out, _ = codegen.run(exe, tmp_path / "cpp", inputs, dtypes, ["y"], *order)
        np.testing.assert_array_equal(out["y"], ref["y"], err_msg=f"order {order}")
