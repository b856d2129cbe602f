"""NZ weights (`format=TILEOP_NZ`, `pto.layout = "nz"`): a matmul whose B is
stored as 16-row fractals, as glm_v4_5 moe_fusion declares its int8 expert
weights. The host passes the matrix; the call lays it out as NZ storage (what
torch_npu.npu_format_cast(w, 29) leaves on the device) and pto-run, the
tile graph and the in-process interpreter read the matrix back from it; the
emitted C++ loads NZ windows into L1 (pto-isa's NZ -> NZ TLOAD) on the host
emulation and pto-isa's CPU simulator. Checked against NumPy for int8
(C0 = 32), f16 and bf16 (C0 = 16)."""

import numpy as np
import pytest

import pto_mlir.frontend as pypto
from pto_mlir import codegen, pto_isa
from pto_mlir.frontend.dtypes import nz_matrix, nz_storage
from pto_mlir.golden.bf16 import bf16_bits_to_f32, f32_to_bf16_bits
from pto_mlir.tools import run_kernel, run_tile_graph, run_tool

NZ = pypto.TileOpFormat.TILEOP_NZ
I8, I32, F16, BF16, F32 = (pypto.DT_INT8, pypto.DT_INT32, pypto.DT_FP16, pypto.DT_BF16,
                           pypto.DT_FP32)


def nz_matmul(dtype, out_dtype, n, cube_n):
    """[16, 64] x [64, n] with B NZ; N split into cube_n-wide tiles (whole
    fractal columns), K into two halves."""
    @pypto.jit
    def matmul_nz_b(a: pypto.Tensor([16, 64], dtype), b: pypto.Tensor([64, n], dtype, format=NZ),
                    out: pypto.Tensor([16, n], out_dtype)):
        pypto.set_cube_tile_shapes([16, 16], [32, 32], [cube_n, cube_n])
        pypto.set_vec_tile_shapes(16, n)
        pypto.assemble(pypto.matmul(a, b, out_dtype), [0, 0], out)
    return matmul_nz_b


CASES = {  # name: (pypto dtype, golden dtype name, out dtype, N, cube N)
    "int8": (I8, "int8", I32, 96, 32),
    "fp16": (F16, "fp16", F32, 48, 16),
    "bf16": (BF16, "bf16", F32, 48, 32),
}


def case_inputs(name):
    dtype, golden, out_dtype, n, _ = CASES[name]
    rng = np.random.default_rng(11)
    if golden == "int8":
        a = rng.integers(-128, 128, (16, 64)).astype(np.int8)
        b = rng.integers(-128, 128, (64, n)).astype(np.int8)
        want = a.astype(np.int64) @ b.astype(np.int64)
        return a, b, np.zeros((16, n), np.int32), want
    a = rng.integers(-8, 9, (16, 64)).astype(np.float32) / 4   # exact in f16 / bf16
    b = rng.integers(-8, 9, (64, n)).astype(np.float32) / 4
    want = a.astype(np.float64) @ b.astype(np.float64)          # exact in f32
    if golden == "bf16":
        a, b = f32_to_bf16_bits(a), f32_to_bf16_bits(b)
    else:
        a, b = a.astype(np.float16), b.astype(np.float16)
    return a, b, np.zeros((16, n), np.float32), want


def as_numbers(array):
    return bf16_bits_to_f32(array) if array.dtype == np.uint16 else array


@pytest.mark.parametrize("name", sorted(CASES))
def test_matmul_nz_b_in_process(name):
    """The kernel called on the matrix, as the gym test calls it after
    npu_format_cast: the call stores B as fractals, the run reads them."""
    dtype, _, out_dtype, n, cube_n = CASES[name]
    kernel = nz_matmul(dtype, out_dtype, n, cube_n)
    assert '{pto.layout = "nz"}' in kernel.trace().mlir
    a, b, out, want = case_inputs(name)
    b_before = b.copy()
    kernel(a, b, out)
    np.testing.assert_array_equal(out, want)
    np.testing.assert_array_equal(b, b_before)   # the caller's matrix is untouched


@pytest.mark.parametrize("name", sorted(CASES))
def test_matmul_nz_b_pto_run_and_tile_graph(name, tmp_path):
    """pto-run's file for an NZ argument is its NZ storage: the kernel and its
    tile graph read the same numbers from it."""
    dtype, golden, out_dtype, n, cube_n = CASES[name]
    source = tmp_path / "matmul_nz_b.mlir"
    source.write_text(nz_matmul(dtype, out_dtype, n, cube_n).trace().mlir)
    a, b, out, want = case_inputs(name)
    storage = nz_storage("b", b, dtype)
    c0 = 32 // dtype.itemsize
    assert storage.shape == (n // c0, 64 // 16, 16, c0)
    inputs = {"a": a, "b": storage, "out": out}
    dtypes = {"a": golden, "b": golden, "out": "int32" if out_dtype is I32 else "fp32"}
    ran, _ = run_kernel(source, tmp_path / "run", inputs, dtypes, ["out"])
    graph, _ = run_tile_graph(source, tmp_path / "graph", inputs, dtypes, ["out"])
    np.testing.assert_array_equal(ran["out"], want, err_msg="pto-run")
    np.testing.assert_array_equal(graph["out"], want, err_msg="tile graph")


def test_nz_storage_layout():
    """Element (r, c) sits at [c // C0][r // 16][r % 16][c % C0]; nz_matrix
    inverts it, batch dims staying outermost."""
    m = np.arange(2 * 32 * 64, dtype=np.int32).reshape(2, 32, 64)
    s = nz_storage("w", m, I32)                    # C0 = 8
    assert s.shape == (2, 8, 2, 16, 8)
    for r, c in ((0, 0), (17, 9), (31, 63), (5, 40)):
        assert s[1, c // 8, r // 16, r % 16, c % 8] == m[1, r, c]
    np.testing.assert_array_equal(nz_matrix(s), m)


@pypto.jit
def store_nz(x: pypto.Tensor([32, 64], F16), y: pypto.Tensor([32, 64], F16, format=NZ)):
    pypto.set_vec_tile_shapes(32, 64)
    pypto.assemble(pypto.mul(x, 2.0), [0, 0], y)


def test_written_nz_argument(tmp_path):
    """A kernel writing an NZ tensor: pto-run saves NZ storage, the call
    hands the caller the matrix."""
    x = (np.arange(32 * 64) % 97).astype(np.float16).reshape(32, 64)
    y = np.zeros((32, 64), np.float16)
    store_nz(x, y)
    np.testing.assert_array_equal(y, x * 2)
    source = tmp_path / "store_nz.mlir"
    source.write_text(store_nz.trace().mlir)
    inputs = {"x": x, "y": nz_storage("y", np.zeros_like(x), F16)}
    out, _ = run_kernel(source, tmp_path / "run", inputs, {"x": "fp16", "y": "fp16"}, ["y"])
    np.testing.assert_array_equal(out["y"], nz_storage("y", x * 2, F16))


def test_pto_run_names_the_nz_data_rule(tmp_path):
    """Row-major data for an NZ argument is refused, naming the argument, the
    storage shape and the conversion."""
    source = tmp_path / "matmul_nz_b.mlir"
    source.write_text(nz_matmul(I8, I32, 96, 32).trace().mlir)
    a, b, out, _ = case_inputs("int8")
    for name, array in (("a", a), ("b", b), ("out", out)):
        np.save(tmp_path / f"{name}.npy", array)
    r = run_tool("pto-run", source, "--input-dir", tmp_path)
    assert r.returncode != 0
    assert ("argument 'b' is NZ (pto.layout = \"nz\"), so its data is the NZ storage "
            "[..., cols / 32, rows / 16, 16, 32] of i8 fractals, but the data has shape "
            "[64, 96]") in r.stderr
    assert "transpose(2, 0, 1, 3)" in r.stderr


def test_shape_off_the_fractal_is_an_error():
    """A weight whose rows are not whole fractals: the call names the
    argument, the rule and the fix (static shapes: the kernel verifier,
    test/Dialect/PTO/invalid.mlir)."""
    @pypto.jit
    def tail(a: pypto.Tensor([16, 40], F16), w: pypto.Tensor([], F16, format=NZ),
             out: pypto.Tensor([16, 32], F32)):
        pypto.set_cube_tile_shapes([16, 16], [40, 40], [32, 32])
        pypto.set_vec_tile_shapes(16, 32)
        pypto.assemble(pypto.matmul(a, w, F32), [0, 0], out)

    with pytest.raises(pypto.TraceError, match=r"argument 'w' is declared format=TILEOP_NZ.*"
                       r"multiples of 16 and 16, but its shape is \[40, 32\]; pad the weight"):
        tail(np.zeros((16, 40), np.float16), np.zeros((40, 32), np.float16),
             np.zeros((16, 32), np.float32))


@pytest.mark.parametrize("name", sorted(CASES))
def test_matmul_nz_b_emitted_cpp(name, tmp_path):
    """The emitted C++ loads each B window as an NZ GlobalTensor of whole
    fractals into its L1 tile (pto-isa's NZ -> NZ TLOAD), its host main
    reading the storage file; on the host emulation it gives NumPy's
    numbers."""
    dtype, golden, out_dtype, n, cube_n = CASES[name]
    source = tmp_path / "matmul_nz_b.mlir"
    source.write_text(nz_matmul(dtype, out_dtype, n, cube_n).trace().mlir)
    a, b, out, want = case_inputs(name)
    c0 = 32 // dtype.itemsize
    exe = codegen.build(source, tmp_path)
    cpp = next(tmp_path.glob("*.cpp")).read_text()
    assert f"Shape<1, DYNAMIC, DYNAMIC, 16, {c0}>, Stride<1, DYNAMIC, {16 * c0}, {c0}, 1>, " \
           f"Layout::NZ>" in cpp
    assert f'm.input<{codegen_element(golden)}>("b", {{{n // c0}, 4, 16, {c0}}})' in cpp
    inputs = {"a": a, "b": nz_storage("b", b, dtype), "out": out}
    dtypes = {"a": golden, "b": golden, "out": "int32" if out_dtype is I32 else "fp32"}
    got, _ = codegen.run(exe, tmp_path / "run", inputs, dtypes, ["out"])
    np.testing.assert_array_equal(got["out"], want)


def codegen_element(golden):
    return {"int8": "int8_t", "fp16": "half", "bf16": "bfloat16_t"}[golden]


@pytest.mark.skipif(pto_isa.find() is None, reason=pto_isa.missing_reason())
@pytest.mark.parametrize("name", ["fp16", "int8"])
def test_matmul_nz_b_on_the_real_simulator(name, tmp_path, monkeypatch):
    """The same C++ against pto-isa's CPU simulator: its TLOAD of an NZ
    GlobalTensor into an Nz Mat tile gives NumPy's numbers too."""
    dtype, golden, out_dtype, n, cube_n = CASES[name]
    source = tmp_path / "matmul_nz_b.mlir"
    source.write_text(nz_matmul(dtype, out_dtype, n, cube_n).trace().mlir)
    a, b, out, want = case_inputs(name)
    cpp = codegen.emit_cpp(source, tmp_path)
    real = pto_isa.build_on_real_sim(cpp, tmp_path / "real")
    monkeypatch.setenv("PTO_CPU_SIM_UB_BYTES", str(pto_isa.REAL_SIM_ARCH["a3"][1]))
    inputs = {"a": a, "b": nz_storage("b", b, dtype), "out": out}
    dtypes = {"a": golden, "b": golden, "out": "int32" if out_dtype is I32 else "fp32"}
    got, _ = codegen.run(real, tmp_path / "r_real", inputs, dtypes, ["out"])
    np.testing.assert_array_equal(got["out"], want)


def test_cpp_refuses_a_transposed_nz_weight(tmp_path):
    """b_trans of an NZ weight runs in pto-run (the matrix is transposed as
    any B) but the emitted C++ loads NZ untransposed only: refused, naming
    the weight."""
    @pypto.jit
    def nz_bt(a: pypto.Tensor([16, 64], F16), b: pypto.Tensor([32, 64], F16, format=NZ),
              out: pypto.Tensor([16, 32], F32)):
        pypto.set_cube_tile_shapes([16, 16], [64, 64], [32, 32])
        pypto.set_vec_tile_shapes(16, 32)
        pypto.assemble(pypto.matmul(a, b, F32, b_trans=True), [0, 0], out)

    rng = np.random.default_rng(3)
    a = (rng.integers(-4, 5, (16, 64)) / 2).astype(np.float16)
    b = (rng.integers(-4, 5, (32, 64)) / 2).astype(np.float16)
    out = np.zeros((16, 32), np.float32)
    nz_bt(a, b, out)
    np.testing.assert_array_equal(out, a.astype(np.float64) @ b.astype(np.float64).T)
    source = tmp_path / "nz_bt.mlir"
    source.write_text(nz_bt.trace().mlir)
    with pytest.raises(RuntimeError, match="the NZ tensor 'b' .* is loaded transposed "
                                           r"\(b_trans\)"):
        codegen.emit_cpp(source, tmp_path)


def test_npu_format_cast_stand_in(monkeypatch):
    import sys
    from pto_mlir import kernel_files
    torch = pytest.importorskip("torch")
    monkeypatch.delitem(sys.modules, "torch_npu", raising=False)
    if not kernel_files.ensure_torch_npu():
        pytest.skip("the real torch_npu is installed")
    import torch_npu
    w = torch.arange(64 * 32, dtype=torch.int32).reshape(64, 32).to(torch.int8)
    cast = torch_npu.npu_format_cast(w, 29)
    assert torch.equal(cast, w) and cast.data_ptr() != w.data_ptr()
    with pytest.raises(RuntimeError, match=r"npu_format_cast\(tensor, 3\).*2 \(ND\) and 29"):
        torch_npu.npu_format_cast(w, 3)


@pypto.jit
def nz_dynamic_k(a: pypto.Tensor([16, pypto.DYN], F16),
                 b: pypto.Tensor([pypto.DYN, 48], F16, format=NZ),
                 out: pypto.Tensor([16, 48], F32)):
    pypto.set_cube_tile_shapes([16, 16], [32, 32], [16, 16])
    pypto.set_vec_tile_shapes(16, 48)
    x = pypto.view(a, [16, 96], [0, 0])
    w = pypto.view(b, [96, 48], [0, 0])
    pypto.assemble(pypto.matmul(x, w, F32), [0, 0], out)


def test_dynamic_rows_of_an_nz_weight(tmp_path):
    """K dynamic: pto-run takes it from the storage ([3, K / 16, 16, 16]) and
    the emitted host main passes dim(1) * 16 as the matrix's rows."""
    rng = np.random.default_rng(4)
    a = (rng.integers(-4, 5, (16, 96)) / 2).astype(np.float16)
    b = (rng.integers(-4, 5, (96, 48)) / 2).astype(np.float16)
    want = a.astype(np.float64) @ b.astype(np.float64)
    out = np.zeros((16, 48), np.float32)
    nz_dynamic_k(a, b, out)
    np.testing.assert_array_equal(out, want)
    source = tmp_path / "nz_dynamic_k.mlir"
    source.write_text(nz_dynamic_k.trace().mlir)
    exe = codegen.build(source, tmp_path)
    cpp = next(tmp_path.glob("*.cpp")).read_text()
    assert 'm.input<half>("b", {3, -1, 16, 16});' in cpp and "t1.dim(1) * 16" in cpp
    inputs = {"a": a, "b": nz_storage("b", b, F16), "out": np.zeros((16, 48), np.float32)}
    got, _ = codegen.run(exe, tmp_path / "run", inputs, {"a": "fp16", "b": "fp16", "out": "fp32"},
                         ["out"])
    np.testing.assert_array_equal(got["out"], want)
