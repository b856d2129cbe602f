"""pto-run faults and usage errors: each stops the run with a message naming
the op location or the argument and the numbers, with a distinct exit code:
1 = the IR does not parse or verify, 2 = usage or input data error,
3 = kernel fault at run time."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from pto_mlir import sk16_ir
from pto_mlir.golden import save_tensor, sk16
from pto_mlir.tools import run_tool

BAD_IR, USAGE, FAULT = 1, 2, 3

SMALL = dict(s1_tile=96, s2_tile=112, c_tile=(64, 128, 64, 128, 64, 128),
             v_tile_s=(32, 128), v_tile_d=(32, 128))


@pytest.fixture
def case09(tmp_path):
    """test_09 (cross attention) inputs on disk and its kernel."""
    case = sk16.CASES["test_09"]
    inputs = sk16.make_inputs(case, seed=11)
    kernel = tmp_path / "sk16.mlir"
    kernel.write_text(sk16_ir.emit(sk16_ir.Sk16Config(heads=case.N, head_dim=case.D, **SMALL)))
    return case, inputs, kernel


def input_args(directory: Path, inputs: dict, skip=(), dtypes=None) -> list:
    args = []
    for name in sk16.INPUT_NAMES:
        if name in skip:
            continue
        path = directory / f"{name}.npy"
        dtype = (dtypes or {}).get(name, sk16.DTYPES[name])
        save_tensor(path, inputs[name], dtype)
        args += ["--input", f"{name}={path}"]
    return args


def run(*args):
    return run_tool("pto-run", *args)


def test_missing_input(case09, tmp_path):
    _, inputs, kernel = case09
    r = run(kernel, *input_args(tmp_path, inputs, skip=("v",)))
    assert r.returncode == USAGE
    assert "no data for argument 'v'" in r.stderr and "--input v=FILE.npy" in r.stderr


def test_unknown_argument_name(case09, tmp_path):
    _, inputs, kernel = case09
    r = run(kernel, *input_args(tmp_path, inputs), "--input", f"query={tmp_path / 'q.npy'}")
    assert r.returncode == USAGE
    assert "'query', which is not an argument of @sk16_attention_backward" in r.stderr
    assert "q, k, v, o, do" in r.stderr


def test_malformed_input_flag(case09):
    _, _, kernel = case09
    r = run(kernel, "--input", "q.npy")
    assert r.returncode == USAGE and "--input expects NAME=FILE, got 'q.npy'" in r.stderr


def test_dtype_mismatch(case09, tmp_path):
    _, inputs, kernel = case09
    args = input_args(tmp_path, inputs)
    np.save(tmp_path / "q.npy", sk16.widen(inputs)["q"])  # float32, not bf16 bits
    r = run(kernel, *args)
    assert r.returncode == USAGE
    assert "argument 'q' is bf16 (.npy dtype <u2) but the data is f32 (<f4)" in r.stderr


def test_static_dim_mismatch(case09, tmp_path):
    case, inputs, _ = case09
    kernel = tmp_path / "n4.mlir"
    kernel.write_text(sk16_ir.emit(sk16_ir.Sk16Config(heads=4, head_dim=case.D, **SMALL)))
    r = run(kernel, *input_args(tmp_path, inputs))
    assert r.returncode == USAGE
    assert re.search(r"argument 'q' needs 4 in dim 1 but the data has shape \[384, 8, 64\]", r.stderr)


def test_decreasing_offsets(case09, tmp_path):
    _, inputs, kernel = case09
    inputs["actual_q"] = np.array([0, 128, 64, 384], dtype=np.int32)
    r = run(kernel, *input_args(tmp_path, inputs))
    assert r.returncode == USAGE
    assert "'actual_q' holds cumulative offsets (pto.cumulative) and must not decrease, " \
           "but actual_q[2] = 64 < actual_q[1] = 128" in r.stderr


def test_offsets_not_starting_at_zero(case09, tmp_path):
    _, inputs, kernel = case09
    inputs["actual_kv"] = inputs["actual_kv"] + 1
    r = run(kernel, *input_args(tmp_path, inputs))
    assert r.returncode == USAGE and "must start at 0, but actual_kv[0] = 1" in r.stderr


def test_view_past_the_end_of_a_tensor(case09, tmp_path):
    """Offsets beyond total_q: the view's valid rows leave the tensor."""
    _, inputs, kernel = case09
    inputs["actual_q"] = np.array([0, 128, 192, 400], dtype=np.int32)
    r = run(kernel, *input_args(tmp_path, inputs))
    assert r.returncode == FAULT, r.stderr
    assert re.search(r"sk16\.mlir:\d+:\d+: error: pto-run: view reads \[384, 400\) of dim 0 "
                     r"but tensor 'q' has only 384 there", r.stderr)


def test_cross_attention_reshape_bug_is_a_fault(case09, tmp_path):
    """docs/SK16.md#cross-attention-reshape: reshaping k with the Q-side total is caught at run time."""
    _, inputs, kernel = case09
    text = kernel.read_text().replace("%k2 = pto.reshape %k [%total_kv,", "%k2 = pto.reshape %k [%total_q,")
    buggy = tmp_path / "buggy.mlir"
    buggy.write_text(text)
    r = run(buggy, *input_args(tmp_path, inputs))
    assert r.returncode == FAULT, r.stderr
    assert re.search(r"buggy\.mlir:\d+:\d+: error: pto-run: reshape of 'k' \[480, 8, 64\] to "
                     r"\[384, 512\] needs 196608 elements but the tensor has 245760", r.stderr)


def test_not_a_npy_file(case09, tmp_path):
    _, inputs, kernel = case09
    args = input_args(tmp_path, inputs)
    (tmp_path / "q.npy").write_bytes(b"garbage")
    r = run(kernel, *args)
    assert r.returncode == USAGE and "not a .npy file (bad magic)" in r.stderr


def test_fortran_order_rejected(case09, tmp_path):
    _, inputs, kernel = case09
    args = input_args(tmp_path, inputs)
    np.save(tmp_path / "dq.npy", np.asfortranarray(inputs["dq"]))
    r = run(kernel, *args)
    assert r.returncode == USAGE and "Fortran-order arrays are not supported" in r.stderr


def test_truncated_npy(case09, tmp_path):
    _, inputs, kernel = case09
    args = input_args(tmp_path, inputs)
    data = (tmp_path / "k.npy").read_bytes()
    (tmp_path / "k.npy").write_bytes(data[:-10])
    r = run(kernel, *args)
    assert r.returncode == USAGE and re.search(r"holds \d+ data bytes but shape \[480, 8, 64\]", r.stderr)


def test_unparsable_kernel(tmp_path):
    bad = tmp_path / "bad.mlir"
    bad.write_text("pto.kernel @k(%x: !pto.tensor<?xf32>) {\n  %0 = pto.bogus\n}\n")
    r = run(bad)
    assert r.returncode == BAD_IR and "bad.mlir:2:" in r.stderr


def test_unknown_kernel_name(case09):
    _, _, kernel = case09
    r = run(kernel, "--kernel", "nope")
    assert r.returncode == USAGE and "no kernel named 'nope' (kernels: sk16_attention_backward)" in r.stderr


def test_random_needs_shapes_and_integer_inputs(case09):
    _, _, kernel = case09
    r = run(kernel, "--random", "1")
    assert r.returncode == USAGE and ("argument 'q' has dynamic dims the kernel does not fix "
                                      "from the other arguments; give --shape q=AxB...") in r.stderr
    # o, do, l_input and m_input are reshaped with pto.dim %q and v with
    # pto.dim %k: their shapes follow; dq/dk/dv (only atomic_add targets) do not.
    shapes = [f"--shape={n}=16x8x64" for n in ("q", "k")]
    r = run(kernel, "--random", "1", *shapes)
    assert r.returncode == USAGE and "argument 'dq' has dynamic dims" in r.stderr
    r = run(kernel, "--random", "1", *shapes,
            "--shape=dq=16x512", "--shape=dk=16x512", "--shape=dv=16x512")
    assert r.returncode == USAGE and "argument 'actual_q' holds integers" in r.stderr


SCALAR_KERNEL = """\
pto.kernel @reads(%t: !pto.tensor<3xi32>, %out: !pto.tensor<4x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  pto.loop "L" %i = %c0 to %c5 step %c1 {
    %x = pto.read %t[%i] : !pto.tensor<3xi32>
  }
}
"""

ATOMIC_KERNEL = """\
pto.kernel @adds(%out: !pto.tensor<4x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  pto.loop "L" %i = %c0 to %c4 step %c1 {
    %one = pto.full 1.0 : !pto.tile<2x32xf32>
    %row = arith.muli %i, %c1 : index
    pto.atomic_add %one, %out[%row, 0] : !pto.tile<2x32xf32>, !pto.tensor<4x32xf32>
  }
}
"""


def test_scalar_read_out_of_range(tmp_path):
    kernel = tmp_path / "reads.mlir"
    kernel.write_text(SCALAR_KERNEL)
    save_tensor(tmp_path / "t.npy", np.array([1, 2, 3], dtype=np.int32), "int32")
    r = run(kernel, "--input", f"t={tmp_path / 't.npy'}", "--random", "0")
    assert r.returncode == FAULT, r.stderr
    assert "reads.mlir:6:10: error: pto-run: scalar read t[3] is out of range: dim 0 of 't' has 3 elements" \
        in r.stderr


def test_atomic_add_out_of_bounds(tmp_path):
    kernel = tmp_path / "adds.mlir"
    kernel.write_text(ATOMIC_KERNEL)
    out = tmp_path / "out.npy"
    r = run(kernel, "--random", "0", "--output", f"out={out}")
    assert r.returncode == FAULT, r.stderr
    assert "adds.mlir:8:5: error: pto-run: atomic_add writes [2, 4) of dim 0 of 'out', which has 4" \
        not in r.stderr  # rows [2, 4) still fit
    assert "adds.mlir:8:5: error: pto-run: atomic_add writes [3, 5) of dim 0 of 'out', which has 4" \
        in r.stderr
