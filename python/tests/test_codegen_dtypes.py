"""codegen.run takes each argument's element type as the IR spells it (f32,
bf16, i32, ...) for every type the emitted program reads, and the golden's
older names (fp32, int32) too (issue 19)."""

from __future__ import annotations

import numpy as np
import pytest

from pto_mlir import codegen
from pto_mlir.golden.bf16 import bf16_bits_to_f32

# y = f32(x): one bf16 input, one f32 output, both spelled as in the IR.
WIDEN = """\
pto.kernel @widen(%x: !pto.tensor<8x64xbf16>, %y: !pto.tensor<8x64xf32>) {
  %t = pto.view %x[0, 0] : !pto.tensor<8x64xbf16> -> !pto.tile<8x64xbf16>
  %w = pto.cast %t : !pto.tile<8x64xbf16> -> !pto.tile<8x64xf32>
  pto.atomic_add %w, %y[0, 0] : !pto.tile<8x64xf32>, !pto.tensor<8x64xf32>
}
"""


@pytest.mark.parametrize("spelling,storage", [
    ("f32", "<f4"), ("fp32", "<f4"), ("f16", "<f2"), ("bf16", "<u2"), ("i8", "|i1"),
    ("i16", "<i2"), ("i32", "<i4"), ("int32", "<i4"), ("i64", "<i8")])
def test_every_runtime_dtype_round_trips(spelling, storage, tmp_path):
    values = np.arange(-3, 5).reshape(2, 4)
    data = values.astype(np.float32) if spelling[0] in "fb" else values
    path = tmp_path / "a.npy"
    codegen.save_npy(path, data, spelling, "a")
    assert np.load(path).dtype == np.dtype(storage)
    back = codegen.load_npy(path, spelling, "a")
    if spelling == "bf16":
        back = bf16_bits_to_f32(back)
    np.testing.assert_array_equal(back, values)


def test_bad_dtype_names_the_argument_and_the_spellings(tmp_path):
    with pytest.raises(ValueError, match=r"unknown dtype 'float' for argument 'x'; use the "
                                         r"IR's element type: bf16, f16, f32, i8"):
        codegen.save_npy(tmp_path / "x.npy", np.zeros(2), "float", "x")
    with pytest.raises(ValueError, match=r"outside i8"):
        codegen.save_npy(tmp_path / "x.npy", np.array([300]), "i8", "x")
    with pytest.raises(ValueError, match=r"no dtype for argument\(s\) y"):
        codegen.run(tmp_path / "none", tmp_path, {"x": np.zeros(2), "y": np.zeros(2)},
                    {"x": "f32"}, ["y"])


def test_run_with_ir_spellings(tmp_path):
    kernel = tmp_path / "widen.mlir"
    kernel.write_text(WIDEN)
    exe = codegen.build(kernel, tmp_path)
    x = np.random.default_rng(0).standard_normal((8, 64)).astype(np.float32)
    inputs = {"x": x, "y": np.zeros((8, 64), np.float32)}
    out, _ = codegen.run(exe, tmp_path, inputs, {"x": "bf16", "y": "f32"}, ["y"])
    np.testing.assert_array_equal(
        out["y"], bf16_bits_to_f32(codegen.load_npy(tmp_path / "in" / "x.npy", "bf16")))
