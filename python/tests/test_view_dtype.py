"""pypto.view(x, dtype=...) (PyPTO's OP_VIEW_TYPE, `pto.bitcast`): the bytes
of a tile read as another dtype, executed at every level against NumPy's
`ndarray.view`: pto-run on the traced program, pto-run on the tile graph and
the emitted pto-isa C++ on the host emulation, where it is TRESHAPE naming
the source's bytes (docs/ISA.md, "Reinterpreting a tile"). Narrowing (f32 as
i8 bytes, f32 as bf16 halves), widening (i8 bytes as f32) and same width
(f16 as i16); rows in blocks of 16 with a tail of valid rows."""

from __future__ import annotations

import numpy as np
import pytest

import pto_mlir.frontend as pypto
from pto_mlir import codegen
from trace_errors import assert_statement_error
from pto_mlir.tools import compile_tile_graph, run_kernel, run_tool

F32, F16, BF16, I8, I16, DYN = (pypto.DT_FP32, pypto.DT_FP16, pypto.DT_BF16, pypto.DT_INT8,
                                pypto.DT_INT16, pypto.DYN)
D = 16


@pypto.jit
def reinterpret(x: pypto.Tensor([DYN, D], F32), q: pypto.Tensor([DYN, 4 * D], I8),
                h: pypto.Tensor([DYN, D], F16), xb: pypto.Tensor([DYN, 4 * D], I8),
                qf: pypto.Tensor([DYN, D], F32), xh: pypto.Tensor([DYN, 2 * D], BF16),
                hi: pypto.Tensor([DYN, D], I16)):
    n = x.shape[0]
    pypto.set_vec_tile_shapes(16, 4 * D)   # 64 B of i8 rows; the narrower tiles whole
    for i in pypto.loop(pypto.ceildiv(n, 16), idx_name="i"):
        valid = (n - i * 16).min(16)
        t = pypto.view(x, [16, D], [i * 16, 0], valid_shape=[valid, D])
        xb[i * 16:, 0:] = pypto.view(t, dtype=I8)             # f32 -> 4 bytes each
        xh[i * 16:, 0:] = pypto.view(t, dtype=BF16)           # f32 -> 2 bf16 halves
        b = pypto.view(q, [16, 4 * D], [i * 16, 0], valid_shape=[valid, 4 * D])
        qf[i * 16:, 0:] = pypto.view(b, dtype=F32) * 1.0      # 4 bytes -> one f32, used
        u = pypto.view(h, [16, D], [i * 16, 0], valid_shape=[valid, D])
        hi[i * 16:, 0:] = pypto.view(u, dtype=I16)            # same width


N = 40  # two blocks of 16 and a tail of 8
DTYPES = {"x": "fp32", "q": "int8", "h": "fp16", "xb": "int8", "qf": "fp32", "xh": "bf16",
          "hi": "int16"}
OUTPUTS = ["xb", "qf", "xh", "hi"]


def make_inputs():
    rng = np.random.default_rng(7)
    x = (rng.standard_normal((N, D)) * 100).astype(np.float32)
    x[0, :4] = np.array([0.0, -0.0, 1e-40, -3.0e38], np.float32)  # signed zero, denormal, huge
    # q: the bytes of finite f32 values (so the widening reads numbers).
    q = (rng.standard_normal((N, D)) * 7).astype(np.float32).view(np.int8)
    h = (rng.standard_normal((N, D)) * 3).astype(np.float16)
    zeros = {"xb": np.zeros((N, 4 * D), np.int8), "qf": np.zeros((N, D), np.float32),
             "xh": np.zeros((N, 2 * D), np.uint16), "hi": np.zeros((N, D), np.int16)}
    return {"x": x, "q": q, "h": h, **zeros}


def check(got, inputs, level):
    want = {"xb": inputs["x"].view(np.int8), "qf": inputs["q"].view(np.float32),
            "xh": inputs["x"].view(np.uint16), "hi": inputs["h"].view(np.int16)}
    for name in OUTPUTS:
        a = np.asarray(got[name])
        np.testing.assert_array_equal(a.view(want[name].dtype) if a.dtype.itemsize ==
                                      want[name].dtype.itemsize else a, want[name],
                                      err_msg=f"{level}: {name}")


@pytest.fixture(scope="module")
def kernel(tmp_path_factory):
    path = tmp_path_factory.mktemp("view_dtype") / "view_dtype.mlir"
    shapes = {"x": (None, D), "q": (None, 4 * D), "h": (None, D), "xb": (None, 4 * D),
              "qf": (None, D), "xh": (None, 2 * D), "hi": (None, D)}
    path.write_text(reinterpret.trace(**shapes).mlir)
    return path


def test_traced_ops(kernel):
    text = kernel.read_text()
    assert "pto.bitcast %t {vec_tile = #pto.vec_tile<[16, 64]>} : !pto.tile<16x16xf32> -> " \
           "!pto.tile<16x64xi8>" in text
    assert "!pto.tile<16x64xi8> -> !pto.tile<16x16xf32>" in text
    assert "!pto.tile<16x16xf32> -> !pto.tile<16x32xbf16>" in text
    assert "!pto.tile<16x16xf16> -> !pto.tile<16x16xi16>" in text


def test_program_level(kernel, tmp_path):
    out, _ = run_kernel(kernel, tmp_path, make_inputs(), DTYPES, OUTPUTS)
    check(out, make_inputs(), "pto-run")


def test_tile_graph(kernel, tmp_path):
    tg = compile_tile_graph(kernel, tmp_path / "tg.mlir")
    assert "pto.bitcast" in tg.read_text()
    out, _ = run_kernel(tg, tmp_path / "run", make_inputs(), DTYPES, OUTPUTS)
    check(out, make_inputs(), "tile graph")


def test_emitted_cpp(kernel, tmp_path):
    exe = codegen.build(kernel, tmp_path)
    cpp = next(tmp_path.glob("*.cpp")).read_text()
    assert cpp.count("TRESHAPE(") >= 4
    out, _ = codegen.run(exe, tmp_path, make_inputs(), DTYPES, OUTPUTS)
    check(out, make_inputs(), "C++ on the emulation")


def test_widening_valid_columns_round_down(tmp_path):
    """A view of 6 valid i8 columns read as f32 has one valid column
    (PyPTO's valid * 1 / 4, rounded down): the store writes one f32 per row
    and leaves the rest of the output as it was."""
    @pypto.jit
    def partial(q: pypto.Tensor([8, 32], I8), y: pypto.Tensor([8, 8], F32)):
        pypto.set_vec_tile_shapes(8, 32)
        b = pypto.view(q, [8, 32], [0, 0], valid_shape=[8, 6])
        y[:] = pypto.view(b, dtype=F32)

    path = tmp_path / "partial.mlir"
    path.write_text(partial.trace().mlir)
    q = np.arange(8 * 8, dtype=np.float32).reshape(8, 8).view(np.int8)
    y0 = np.full((8, 8), -1.0, np.float32)
    out, _ = run_kernel(path, tmp_path, {"q": q, "y": y0}, {"q": "int8", "y": "fp32"}, ["y"])
    want = y0.copy()
    want[:, 0] = q.view(np.float32)[:, 0]
    np.testing.assert_array_equal(out["y"], want)


def test_wide_integer_beyond_the_interpreter_is_a_fault(tmp_path):
    """pto-run holds integer tiles as floats (exact up to 2^24): an f32 read
    as i32 whose bits are a larger integer is a fault at the op, not a
    rounded value."""
    @pypto.jit
    def bits(x: pypto.Tensor([8, 8], F32), y: pypto.Tensor([8, 8], pypto.DT_INT32)):
        pypto.set_vec_tile_shapes(8, 8)
        y[:] = pypto.view(pypto.view(x, [8, 8], [0, 0]), dtype=pypto.DT_INT32)

    path = tmp_path / "bits.mlir"
    path.write_text(bits.trace().mlir)
    x = np.full((8, 8), 1.1, np.float32)   # 0x3F8CCCCD = 1066192077, odd
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", np.zeros((8, 8), np.int32))
    r = run_tool("pto-run", path, "--input", f"x={tmp_path / 'x.npy'}", "--input",
                 f"y={tmp_path / 'y.npy'}", "--output-dir", tmp_path)
    assert r.returncode != 0
    assert "the bitcast to 'i32' gives 1066192077 at row 0, column 0" in r.stderr
    assert "exact up to 2^24" in r.stderr


@pytest.mark.parametrize("body, message", [
    ("pypto.view(pypto.view(q, [8, 6], [0, 0]), dtype=pypto.DT_FP32)",
     r"the last dim 6 x 1 B \(DT_INT8\) is not a whole number of 4-byte DT_FP32 elements"),
    ("pypto.view(x, [4, 16], [4, 0], dtype=pypto.DT_INT8)",
     r"view\(\.\.\., dtype=\.\.\.\) reinterprets the whole input: PyPTO ignores shape, offsets "
     r"and valid_shape"),
    ("pypto.view(pypto.eq(pypto.view(x, [8, 16], [0, 0]), 0.0), dtype=pypto.DT_INT8)",
     r"a DT_BOOL mask is packed bits on chip"),
    ("pypto.view(x, dtype='int8')", r"view\(dtype='int8'\) must be a pypto dtype"),
    ("pypto.view(x, [8, 16])", r"needs the window's shape and offsets"),
])
def test_trace_errors(body, message):
    assert_statement_error(pypto, "x: pypto.Tensor([8, 16], pypto.DT_FP32), "
                           "q: pypto.Tensor([8, 6], pypto.DT_INT8), "
                           "y: pypto.Tensor([8, 16], pypto.DT_FP32)", body, message)


def test_whole_tensor_and_same_dtype():
    """A GM tensor is viewed whole first (as any tensor used as a tile);
    the same dtype is the input itself, as PyPTO's factor 1."""
    @pypto.jit
    def whole(x: pypto.Tensor([8, 16], F32), y: pypto.Tensor([8, 64], I8),
              z: pypto.Tensor([8, 16], F32)):
        pypto.set_vec_tile_shapes(8, 64)
        y[:] = pypto.view(x, dtype=I8)
        z[:] = pypto.view(x, [8, 16], [0, 0], dtype=F32)

    text = whole.trace().mlir
    assert text.count("pto.bitcast") == 1
    x = np.random.default_rng(3).standard_normal((8, 16)).astype(np.float32)
    y = np.zeros((8, 64), np.int8)
    z = np.zeros((8, 16), np.float32)
    whole(x, y, z)
    np.testing.assert_array_equal(y, x.view(np.int8))
    np.testing.assert_array_equal(z, x)
