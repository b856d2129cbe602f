"""Hostile run-time inputs to `pto-run` (docs/Guarantees.md): each gets a
defined behaviour, either a clear error with its exit code (2 = input data,
3 = kernel fault at the op) or IEEE-correct results.

- zero-length sequences, an empty batch, all-empty tensors;
- cumulative offsets that are empty, past the end of a tensor, or huge;
- NaN / Inf in every kind of op;
- huge shapes (from --shape, a .npy header, or the IR);
- index arithmetic at the int64 limits (wraps like arith, no host UB).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from pto_mlir import sk16_ir
from pto_mlir.golden import save_tensor, sk16
from pto_mlir.golden.bf16 import bf16_bits_to_f32, f32_to_bf16_bits
from pto_mlir.tools import run_kernel, run_tool

USAGE, FAULT = 2, 3
SMALL = dict(s1_tile=96, s2_tile=112, c_tile=(64, 128, 64, 128, 64, 128),
             v_tile_s=(32, 128), v_tile_d=(32, 128))


def sk16_kernel(tmp_path: Path, N: int, D: int) -> Path:
    path = tmp_path / f"sk16_n{N}_d{D}.mlir"
    path.write_text(sk16_ir.emit(sk16_ir.Sk16Config(heads=N, head_dim=D, **SMALL)))
    return path


def run_sk16(tmp_path: Path, case: sk16.Sk16Case, inputs=None):
    inputs = inputs if inputs is not None else sk16.make_inputs(case, seed=7)
    kernel = sk16_kernel(tmp_path, case.N, case.D)
    out, _ = run_kernel(kernel, tmp_path / "run", inputs, sk16.DTYPES, sk16.OUTPUT_NAMES,
                        names=sk16.INPUT_NAMES)
    return inputs, out


def test_zero_length_sequences_match_the_golden(tmp_path):
    """Every combination of empty Q and empty KV sequences in one batch."""
    case = sk16.Sk16Case("zeros", [0, 64, 0, 40, 17], [48, 0, 0, 96, 1], 2, 64)
    inputs, out = run_sk16(tmp_path, case)
    gold = sk16.golden_backward(inputs, case.N, case.D)
    for name in sk16.OUTPUT_NAMES:
        result = out[name].reshape(gold[name].shape)
        sk16.assert_close(result, gold[name], name)
    # KV rows of batch 0 see no query, Q rows of batch 1 see no key: no gradient.
    assert not np.any(out["dk"][0:48]) and not np.any(out["dv"][0:48])
    assert not np.any(out["dq"][0:64])


def test_all_sequences_empty(tmp_path):
    case = sk16.Sk16Case("empty", [0, 0], [0, 0], 2, 64)
    inputs, out = run_sk16(tmp_path, case)
    for name in sk16.OUTPUT_NAMES:
        assert out[name].size == 0


def test_batch_of_zero_sequences(tmp_path):
    """actual_q = actual_kv = [0]: no batch element, outputs untouched."""
    case = sk16.Sk16Case("one", [5], [7], 2, 64)
    inputs = sk16.make_inputs(case, seed=1)
    inputs["dq"][:] = 3.0
    inputs["actual_q"] = np.array([0], np.int32)
    inputs["actual_kv"] = np.array([0], np.int32)
    _, out = run_sk16(tmp_path, case, inputs)
    assert np.all(out["dq"] == 3.0) and not np.any(out["dk"]) and not np.any(out["dv"])


def write_inputs(directory: Path, inputs: dict) -> list:
    args = []
    for name in sk16.INPUT_NAMES:
        path = directory / f"{name}.npy"
        save_tensor(path, inputs[name], sk16.DTYPES[name])
        args += ["--input", f"{name}={path}"]
    return args


@pytest.fixture
def small_case(tmp_path):
    case = sk16.Sk16Case("small", [16, 24], [32, 8], 2, 64)
    return case, sk16.make_inputs(case, seed=3), sk16_kernel(tmp_path, case.N, case.D)


def test_empty_cumulative_offsets(small_case, tmp_path):
    _, inputs, kernel = small_case
    inputs["actual_q"] = np.zeros(0, np.int32)
    r = run_tool("pto-run", kernel, *write_inputs(tmp_path, inputs))
    assert r.returncode == USAGE, r.stderr
    assert "'actual_q' holds cumulative offsets (pto.cumulative) and must start at 0, " \
           "but it is empty" in r.stderr


def test_actual_kv_past_the_end_of_k(small_case, tmp_path):
    _, inputs, kernel = small_case
    inputs["actual_kv"] = np.array([0, 32, 41], np.int32)  # total_kv is 40
    r = run_tool("pto-run", kernel, *write_inputs(tmp_path, inputs))
    assert r.returncode == FAULT, r.stderr
    assert re.search(r"error: pto-run: view reads \[32, 41\) of dim 0 but tensor '(k|v)' has "
                     r"only 40 there", r.stderr)


def test_huge_offsets_are_a_fault_not_an_overflow(small_case, tmp_path):
    _, inputs, kernel = small_case
    inputs["actual_q"] = np.array([0, 16, 2**31 - 1], np.int32)
    r = run_tool("pto-run", kernel, *write_inputs(tmp_path, inputs))
    assert r.returncode == FAULT, r.stderr
    assert "error: pto-run: view reads" in r.stderr and "but tensor 'q' has only 40 there" \
        in r.stderr


# --- NaN and Inf ------------------------------------------------------------

IEEE_KERNEL = Path(__file__).parent / "Inputs" / "ieee.mlir"
IEEE_DTYPES = {"x": "fp32", "y": "fp32", "a": "bf16", "b": "bf16", "sum": "fp32",
               "prod": "fp32", "ex": "fp32", "mx": "fp32", "rs": "fp32", "mm": "fp32",
               "bf": "bf16", "dv": "fp32"}


def test_nan_and_inf_give_ieee_results(tmp_path):
    inf, nan = np.float32(np.inf), np.float32(np.nan)
    specials = np.array([nan, inf, -inf, 0.0, -0.0, 1.0, -1.0, 3.4e38, -3.4e38, 1e-45,
                         88.8, -104.0, 2.0, 0.5, -nan, 65504.0], np.float32)
    x = np.stack([specials, np.roll(specials, 3), specials[::-1], np.ones(16, np.float32)])
    y = np.stack([np.roll(specials, 1), specials, np.full(16, inf), np.full(16, nan)])
    a = f32_to_bf16_bits(np.stack([np.ones(16), np.zeros(16), np.arange(16) * 0.25,
                                   np.full(16, -2.0)]).astype(np.float32))
    b = np.ones((16, 16), np.float32)
    b[3, 5], b[0, 7], b[1, 9], b[2, 2] = inf, nan, -inf, inf
    inputs = {"x": x, "y": y, "a": bf16_bits_to_f32(a), "b": b}
    for name in ("sum", "prod", "ex", "mx", "mm", "dv"):
        inputs[name] = np.zeros((4, 16), np.float32)
    inputs["rs"] = np.zeros((4, 1), np.float32)
    inputs["bf"] = np.zeros((4, 16), np.float32)
    names = list(IEEE_DTYPES)
    out, _ = run_kernel(IEEE_KERNEL, tmp_path, inputs, IEEE_DTYPES,
                        ["sum", "prod", "ex", "mx", "rs", "mm", "bf", "dv"], names=names)

    def same(got, want, name):
        got = np.asarray(got, np.float32)
        want = np.asarray(want, np.float32)
        assert np.array_equal(np.isnan(got), np.isnan(want)), name
        finite = ~np.isnan(want)
        np.testing.assert_array_equal(got[finite], want[finite], err_msg=name)

    with np.errstate(all="ignore"):
        same(out["sum"], x + y, "add")
        same(out["prod"], x * y, "mul")
        same(out["dv"], x / y, "div")
        # max follows IEEE 754-2008 maxNum: a NaN operand yields the other one.
        same(out["mx"], np.fmax(x, y), "max")
        # exp: special values exactly; finite values to the host expf's ulp.
        want = np.exp(x)
        got = out["ex"]
        assert np.array_equal(np.isnan(got), np.isnan(want))
        assert np.array_equal(np.isinf(got), np.isinf(want))
        fin = np.isfinite(want)
        np.testing.assert_allclose(got[fin], want[fin], rtol=2e-7)
        # Row sums accumulate sequentially in FP32: NaN propagates,
        # inf + -inf = NaN, 3.4e38 + 3.4e38 overflows to inf.
        acc = np.zeros(4, np.float32)
        for j in range(16):
            acc = (acc + x[:, j]).astype(np.float32)
        same(out["rs"][:, 0], acc, "sum")
        # Matmul over FP32-widened bf16 operands: inf * 0 = NaN, NaN spreads.
        a32 = bf16_bits_to_f32(a).astype(np.float64)
        mm = np.zeros((4, 16))
        for i in range(4):
            for j in range(16):
                mm[i, j] = np.sum(a32[i] * b.astype(np.float64)[:, j])
        same(np.isnan(out["mm"]), np.isnan(mm), "matmul NaN positions")
        same(np.isinf(out["mm"]), np.isinf(mm), "matmul Inf positions")
        fin = np.isfinite(mm)
        np.testing.assert_allclose(out["mm"][fin], mm[fin], rtol=1e-6)
        # Cast to bf16 (RINT): NaN stays NaN, +-Inf stays, 3.4e38 rounds to
        # nearest even, which overflows to Inf.
        bf = bf16_bits_to_f32(out["bf"].astype(np.uint16))
        same(bf, bf16_bits_to_f32(f32_to_bf16_bits(x)), "cast f32->bf16")
        assert np.isinf(bf[0, 7]) and bf[0, 7] > 0


# --- Huge shapes -------------------------------------------------------------

def test_huge_generated_shape(tmp_path):
    kernel = tmp_path / "dyn.mlir"
    kernel.write_text(DYN_KERNEL)
    r = run_tool("pto-run", kernel, "--random", "0", "--shape", "x=4611686018427387904x4",
                 "--shape", "out=8x4")
    assert r.returncode == USAGE, r.stderr
    assert "argument 'x': shape [4611686018427387904, 4] of f32 overflows 64-bit sizes; " \
           "the limit is 16 GiB per buffer" in r.stderr
    r = run_tool("pto-run", kernel, "--random", "0", "--shape", "x=1048576x1048576",
                 "--shape", "out=8x4")
    assert r.returncode == USAGE, r.stderr
    assert "argument 'x': shape [1048576, 1048576] of f32 needs 4398046511104 bytes, more " \
           "than the limit of 16 GiB per buffer" in r.stderr


def test_npy_header_claiming_a_huge_shape(tmp_path):
    kernel = tmp_path / "dyn.mlir"
    kernel.write_text(DYN_KERNEL)
    np.save(tmp_path / "x.npy", np.zeros((0, 4), np.float32))
    data = (tmp_path / "x.npy").read_bytes()
    # Same header length: '(0, 4), }' becomes a 2^62-row shape in the padding.
    header_end = data.index(b"\n") + 1
    header = data[:header_end].decode("latin1")
    fake = header.replace("(0, 4), }", "(4611686018427387904, 4), }")
    fake = fake[:header_end - 1].rstrip(" ")
    fake = fake + " " * (header_end - 1 - len(fake)) + "\n"
    assert len(fake) == header_end
    (tmp_path / "x.npy").write_bytes(fake.encode("latin1") + data[header_end:])
    np.save(tmp_path / "out.npy", np.zeros((8, 4), np.float32))
    r = run_tool("pto-run", kernel, "--input", f"x={tmp_path / 'x.npy'}",
                 "--input", f"out={tmp_path / 'out.npy'}")
    assert r.returncode == USAGE, r.stderr
    assert "shape [4611686018427387904, 4] of f32 overflows 64-bit sizes" in r.stderr


def test_tile_too_large_for_the_host(tmp_path):
    kernel = tmp_path / "big.mlir"
    kernel.write_text("""\
pto.kernel @big(%out: !pto.tensor<4x4xf32>) {
  %t = pto.full 1.0 : !pto.tile<1048576x1048576xf32>
  %v = pto.view %t[0, 0] : !pto.tile<1048576x1048576xf32> -> !pto.tile<4x4xf32>
  pto.atomic_add %v, %out[0, 0] : !pto.tile<4x4xf32>, !pto.tensor<4x4xf32>
}
""")
    r = run_tool("pto-run", kernel, "--random", "0")
    assert r.returncode == FAULT, r.stderr
    assert "big.mlir:2:8: error: pto-run: '!pto.tile<1048576x1048576xf32>' needs " \
           "4398046511104 bytes, more than pto-run's 16 GiB per buffer" in r.stderr


DYN_KERNEL = """\
pto.kernel @dyn(%x: !pto.tensor<?x4xf32>, %out: !pto.tensor<?x4xf32>) {
  %n = pto.dim %x, 0 : !pto.tensor<?x4xf32>
  %t = pto.view %x[0, 0] valid [%n, 4] : !pto.tensor<?x4xf32> -> !pto.tile<8x4xf32>
  pto.atomic_add %t, %out[0, 0] : !pto.tile<8x4xf32>, !pto.tensor<?x4xf32>
}
"""


def test_zero_row_tensors(tmp_path):
    kernel = tmp_path / "dyn.mlir"
    kernel.write_text(DYN_KERNEL)
    x = np.zeros((0, 4), np.float32)
    out, _ = run_kernel(kernel, tmp_path, {"x": x, "out": np.zeros((0, 4), np.float32)},
                        {"x": "fp32", "out": "fp32"}, ["out"])
    assert out["out"].shape == (0, 4)


# --- Index arithmetic at the int64 limits ------------------------------------

LIMITS_KERNEL = """\
pto.kernel @limits(%t: !pto.tensor<4xi64>, %out: !pto.tensor<4x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %a = pto.read %t[%c0] : !pto.tensor<4xi64>
  %b = pto.read %t[%c1] : !pto.tensor<4xi64>
  %step = pto.read %t[%c2] : !pto.tensor<4xi64>
  %mode = pto.read %t[%c3] : !pto.tensor<4xi64>
  // A loop ending at the int64 limit: the step past it is never computed.
  pto.loop "L" %i = %a to %b step %step {
    %one = pto.full 1.0 : !pto.tile<1x16xf32>
    pto.atomic_add %one, %out[0, 0] : !pto.tile<1x16xf32>, !pto.tensor<4x16xf32>
  }
  // Wrapping arithmetic (arith semantics), then a view at the result.
  %w = arith.addi %b, %step : index
  %is1 = arith.cmpi eq, %mode, %c1 : index
  scf.if %is1 {
    %v = pto.view %out[%w, 0] valid [1, 16] : !pto.tensor<4x16xf32> -> !pto.tile<1x16xf32>
    pto.atomic_add %v, %out[1, 0] : !pto.tile<1x16xf32>, !pto.tensor<4x16xf32>
  }
  %is2 = arith.cmpi eq, %mode, %c2 : index
  scf.if %is2 {
    %m1 = arith.subi %c0, %c1 : index
    %q = arith.divsi %a, %m1 : index
  }
  %is3 = arith.cmpi eq, %mode, %c3 : index
  scf.if %is3 {
    %q = arith.divsi %a, %c0 : index
  }
}
"""

I64_MAX, I64_MIN = 2**63 - 1, -2**63


def run_limits(tmp_path, values):
    kernel = tmp_path / "limits.mlir"
    kernel.write_text(LIMITS_KERNEL)
    t = tmp_path / "t.npy"
    np.save(t, np.array(values, np.int64))
    out = tmp_path / "out.npy"
    np.save(out, np.zeros((4, 16), np.float32))
    r = run_tool("pto-run", kernel, "--input", f"t={t}", "--input", f"out={out}",
                 "--output", f"out={out}")
    return r, (np.load(out) if r.returncode == 0 else None)


def test_loop_up_to_int64_max(tmp_path):
    r, out = run_limits(tmp_path, [I64_MAX - 5, I64_MAX, 2, 0])
    assert r.returncode == 0, r.stderr
    assert np.all(out[0] == 3.0)  # I64_MAX - 5, - 3, - 1


def test_wrapped_offset_is_a_fault(tmp_path):
    r, _ = run_limits(tmp_path, [I64_MAX, I64_MAX, 2, 1])  # I64_MAX + 2 wraps negative
    assert r.returncode == FAULT, r.stderr
    assert "error: pto-run: view offset -9223372036854775807 of dim 0 is negative" in r.stderr


def test_division_overflow_and_by_zero_are_faults(tmp_path):
    r, _ = run_limits(tmp_path, [I64_MIN, I64_MIN, 1, 2])
    assert r.returncode == FAULT, r.stderr
    assert "error: pto-run: integer division overflow: -9223372036854775808 / -1" in r.stderr
    r, _ = run_limits(tmp_path, [5, 5, 1, 3])
    assert r.returncode == FAULT, r.stderr
    assert "error: pto-run: integer division by zero" in r.stderr
