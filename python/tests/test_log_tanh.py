"""pypto.log and pypto.tanh (with pypto.Element scalars) executed at every
level against NumPy: pto-run on the traced program, pto-run on the tile
graph and the emitted pto-isa C++ on the host emulation, where log is TLOG
and tanh, which pto-isa lacks, is 1 - 2 / (exp(2x) + 1) in f32 (docs/ISA.md,
"tanh"). FP32, FP16 and BF16 inputs (BF16 computed in f32 on DAV_2201, as
pto-legalize widens it), rows in blocks of 16 with a tail, values out to the
range where exp(2x) overflows or underflows."""

from __future__ import annotations

import numpy as np
import pytest

import pto_mlir.frontend as pypto
from pto_mlir import codegen
from pto_mlir.frontend import TraceError
from trace_errors import assert_error_at_kernel_line, assert_statement_error
from pto_mlir.tools import compile_tile_graph, run_kernel, run_tool

F32, F16, BF16, DYN = pypto.DT_FP32, pypto.DT_FP16, pypto.DT_BF16, pypto.DYN
D = 64


@pypto.jit
def log_tanh(x: pypto.Tensor([DYN, D], F32), h: pypto.Tensor([DYN, D], F16),
             b: pypto.Tensor([DYN, D], BF16), lg: pypto.Tensor([DYN, D], F32),
             th: pypto.Tensor([DYN, D], F32), th16: pypto.Tensor([DYN, D], F16),
             lg16: pypto.Tensor([DYN, D], BF16)):
    n = x.shape[0]
    pypto.set_vec_tile_shapes(16, D)
    for i in pypto.loop(pypto.ceildiv(n, 16), idx_name="i"):
        valid = (n - i * 16).min(16)
        t = pypto.view(x, [16, D], [i * 16, 0], valid_shape=[valid, D])
        floor = pypto.Element(F32, 1e-3)
        lg[i * 16:, 0:] = pypto.log(pypto.maximum(pypto.abs(t), floor))
        th[i * 16:, 0:] = t.tanh()
        u = pypto.view(h, [16, D], [i * 16, 0], valid_shape=[valid, D])
        th16[i * 16:, 0:] = pypto.tanh(u)
        w = pypto.view(b, [16, D], [i * 16, 0], valid_shape=[valid, D])
        lg16[i * 16:, 0:] = w.log()


N = 40  # two blocks of 16 and a tail of 8
DTYPES = {"x": "fp32", "h": "fp16", "b": "bf16", "lg": "fp32", "th": "fp32", "th16": "fp16",
          "lg16": "bf16"}
OUTPUTS = ["lg", "th", "th16", "lg16"]


def make_inputs():
    rng = np.random.default_rng(21)
    x = (rng.standard_normal((N, D)) * 3).astype(np.float32)
    x[0, :8] = [0.0, 1e-30, -1e-6, 1e-4, 44.0, -44.0, 200.0, -200.0]  # exp(2x) over/underflows
    h = (rng.standard_normal((N, D)) * 2).astype(np.float16)
    h[0, :4] = [0.0, 6.0, -6.0, 20.0]
    b = rng.uniform(0.01, 50.0, (N, D)).astype(np.float32)
    zeros = {name: np.zeros((N, D), np.float32) for name in OUTPUTS}
    return {"x": x, "h": h, "b": b, **zeros}


def golden(inputs):
    x = inputs["x"].astype(np.float64)
    return {"lg": np.log(np.maximum(np.abs(x), 1e-3)), "th": np.tanh(x),
            "th16": np.tanh(inputs["h"].astype(np.float64)),
            "lg16": np.log(_bf16(inputs["b"]).astype(np.float64))}


def _bf16(a):
    """``a`` rounded to bf16 (RNE), as save_tensor stores it."""
    bits = np.asarray(a, np.float32).view(np.uint32)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return bits.astype(np.uint32).view(np.float32)


# f32: tanh's composed form has an absolute error of a few 2^-24 (near 0,
# where tanh(x) ~ x, that is its whole error: docs/ISA.md "tanh").
TOLERANCE = {"lg": (1e-6, 1e-7), "th": (1e-6, 3e-7), "th16": (1e-3, 1e-3),
             "lg16": (8e-3, 1e-3)}


def _values(array, dtype):
    """bf16 outputs come back as their uint16 bit patterns."""
    if dtype == "bf16" and array.dtype.kind in "ui":
        return (array.astype(np.uint32) << 16).view(np.float32)
    return array


def check(got, inputs, level):
    want = golden(inputs)
    for name in OUTPUTS:
        rtol, atol = TOLERANCE[name]
        np.testing.assert_allclose(_values(got[name], DTYPES[name]), want[name], rtol=rtol,
                                   atol=atol, err_msg=f"{level}: {name}")


@pytest.fixture(scope="module")
def kernel(tmp_path_factory):
    path = tmp_path_factory.mktemp("log_tanh") / "log_tanh.mlir"
    shapes = {name: (None, D) for name in DTYPES}
    path.write_text(log_tanh.trace(**shapes).mlir)
    return path


def test_program_level(kernel, tmp_path):
    text = kernel.read_text()
    assert text.count("pto.tanh") == 2 and text.count("pto.log") == 2
    assert "arith.constant 1.0e-03 : f32" in text   # the Element
    out, _ = run_kernel(kernel, tmp_path, make_inputs(), DTYPES, OUTPUTS)
    check(out, make_inputs(), "pto-run")


def test_tile_graph(kernel, tmp_path):
    tg = compile_tile_graph(kernel, tmp_path / "tg.mlir")
    graph = tg.read_text()
    assert "pto.tanh" in graph and "pto.log" in graph
    out, _ = run_kernel(tg, tmp_path / "run", make_inputs(), DTYPES, OUTPUTS)
    check(out, make_inputs(), "tile graph")


def test_emitted_cpp(kernel, tmp_path):
    exe = codegen.build(kernel, tmp_path)
    cpp = next(tmp_path.glob("*.cpp")).read_text()
    assert "TLOG(" in cpp and "TRECIP(" in cpp and "TEXP(" in cpp and "TANH" not in cpp
    out, _ = codegen.run(exe, tmp_path, make_inputs(), DTYPES, OUTPUTS)
    check(out, make_inputs(), "C++ on the emulation")


def test_tanh_error_bound_on_the_emulation(tmp_path):
    """The composed tanh's largest error over a sweep of f32 inputs (every
    binade from 2^-40 to 2^6, both signs): absolute, at most 3e-7, and the
    result never leaves [-1, 1]."""
    @pypto.jit
    def sweep(x: pypto.Tensor([64, 256], F32), y: pypto.Tensor([64, 256], F32)):
        pypto.set_vec_tile_shapes(64, 256)
        y[:] = pypto.tanh(pypto.view(x, [64, 256], [0, 0]))

    path = tmp_path / "sweep.mlir"
    path.write_text(sweep.trace().mlir)
    exps = np.linspace(-40, 6, 64 * 128)
    mags = (2.0 ** exps).astype(np.float32)
    x = np.concatenate([mags, -mags]).reshape(64, 256)
    exe = codegen.build(path, tmp_path)
    out, _ = codegen.run(exe, tmp_path, {"x": x, "y": np.zeros_like(x)},
                         {"x": "fp32", "y": "fp32"}, ["y"])
    err = np.abs(out["y"].astype(np.float64) - np.tanh(x.astype(np.float64)))
    assert err.max() <= 3e-7, err.max()
    assert np.abs(out["y"]).max() <= 1.0


@pytest.mark.parametrize("body, message", [
    ("pypto.log(pypto.view(i, [8, 16], [0, 0]))",
     r"log\(input\) is DT_INT32; PyPTO's log takes DT_FP16, DT_BF16 or DT_FP32"),
    ("pypto.tanh(pypto.view(i, [8, 16], [0, 0]))",
     r"tanh\(input\) is DT_INT32"),
    ("pypto.log(pypto.view(x, [8, 16], [0, 0]), 'fast')",
     r"log\(precision_type='fast'\): use pypto.PrecisionType"),
    ("pypto.add(pypto.view(x, [8, 16], [0, 0]), pypto.Element(pypto.DT_FP16, 1.0))",
     r"Element\(DT_FP16, 1.0\) with a DT_FP32 tile; PyPTO requires one dtype"),
    ("pypto.where(pypto.eq(pypto.view(x, [8, 16], [0, 0]), 0.0), "
     "pypto.Element(pypto.DT_FP32, 1.0), pypto.Element(pypto.DT_FP16, 0.0))",
     r"have different dtypes; give both Elements one dtype"),
])
def test_trace_errors(body, message):
    assert_statement_error(pypto, "x: pypto.Tensor([8, 16], pypto.DT_FP32), "
                           "i: pypto.Tensor([8, 16], pypto.DT_INT32), "
                           "y: pypto.Tensor([8, 16], pypto.DT_FP32)", body, message)


def test_element_is_a_typed_scalar():
    e = pypto.Element(F32, 3)
    assert e.dtype is F32 and e.value == 3.0 and isinstance(e.value, float)
    assert pypto.Element(pypto.DT_INT32, 7.0).value == 7
    for args, message in [((F32, "3"), "data must be an int or a float"),
                          ((pypto.DT_INT32, 2.5), "is not an integer"),
                          (("fp32", 1.0), "dtype must be a pypto DataType"),
                          ((pypto.DT_BOOL, 1), "integer or float dtype")]:
        with pytest.raises(TypeError, match=message):
            pypto.Element(*args)


def test_element_selects_and_compares():
    """eq against an Element, where between two Elements (the dtype is the
    Elements'), run in the reference interpreter."""
    @pypto.jit
    def ignore_mask(t: pypto.Tensor([8, 1], F32), m: pypto.Tensor([8, 1], F32)):
        pypto.set_vec_tile_shapes(8, 1)
        tile = pypto.view(t, [8, 1], [0, 0])
        ignored = pypto.eq(tile, pypto.Element(F32, -100.0))
        m[:] = pypto.where(ignored, pypto.Element(F32, 0.0), pypto.Element(F32, 1.0))

    target = np.array([[3], [-100], [0], [-100], [7], [1], [-100], [2]], np.float32)
    mask = np.zeros_like(target)
    ignore_mask(target, mask)
    np.testing.assert_array_equal(mask, (target != -100).astype(np.float32))


def test_tile_move_rebinds():
    """``t[:] = v`` on a tile is PyPTO's move: here a running minimum kept
    across a Python loop (as liger_cross_entropy's pred_idx)."""
    @pypto.jit
    def running_min(x: pypto.Tensor([8, 256], F32), m: pypto.Tensor([8, 1], F32)):
        pypto.set_vec_tile_shapes(8, 64)
        best = pypto.full([8, 1], 1e30, F32)
        for k in range(4):
            part = pypto.view(x, [8, 64], [0, k * 64])
            best[:] = pypto.minimum(best, pypto.amin(part, -1, keepdim=True))
        m[:] = best

    assert "pto.workspace" not in running_min.trace().mlir
    x = np.random.default_rng(2).standard_normal((8, 256)).astype(np.float32)
    m = np.zeros((8, 1), np.float32)
    running_min(x, m)
    np.testing.assert_array_equal(m, x.min(axis=1, keepdims=True))


@pypto.jit
def carried(x: pypto.Tensor([DYN, 64], F32), m: pypto.Tensor([8, 64], F32),
            seen: pypto.Tensor([DYN, 64], F32)):
    """gated_delta_rule's idiom: state = full(...) before a pypto.loop,
    read and moved into in each iteration, stored after it."""
    pypto.set_vec_tile_shapes(8, 64)
    acc = pypto.full([8, 64], 1.0, F32)
    for i in pypto.loop(x.shape[0] // 8, name="rows", idx_name="i"):
        seen[i * 8:, 0:] = acc                       # the state this iteration starts from
        acc[:] = acc * 0.5 + pypto.view(x, [8, 64], [i * 8, 0])
        seen[i * 8:, 0:] = seen[i * 8:i * 8 + 8, :] + acc * 0.0   # read after the move
    m[:] = acc


def test_loop_carried_tile_state(tmp_path):
    """A tile moved into inside a pypto.loop is kept in a workspace (one
    pto.workspace before the loop): each iteration reads the previous one's
    value, in pto-run, the tile graph and the emitted C++."""
    text = carried.trace(x=(32, 64), seen=(32, 64)).mlir
    assert text.count("pto.workspace") == 1
    x = np.random.default_rng(5).standard_normal((32, 64)).astype(np.float32)
    acc, want_seen = np.ones((8, 64), np.float64), []
    for i in range(4):
        want_seen.append(acc.copy())
        acc = acc * 0.5 + x[i * 8:i * 8 + 8]
    want_seen = np.concatenate(want_seen)
    path = tmp_path / "carried.mlir"
    path.write_text(text)
    inputs = {"x": x, "m": np.zeros((8, 64), np.float32), "seen": np.zeros((32, 64), np.float32)}
    dtypes = {"x": "fp32", "m": "fp32", "seen": "fp32"}
    out, _ = run_kernel(path, tmp_path / "run", inputs, dtypes, ["m", "seen"])
    tg = tmp_path / "tg.mlir"
    r = run_tool("pto-opt", path, "--pto-tile-graph-pipeline", "-o", tg)
    assert r.returncode == 0, r.stderr[-3000:]
    out_tg, _ = run_kernel(tg, tmp_path / "run_tg", inputs, dtypes, ["m", "seen"])
    exe = codegen.build(path, tmp_path / "cpp")
    out_cpp, _ = codegen.run(exe, tmp_path / "cpp", inputs, dtypes, ["m", "seen"])
    for level, got in (("pto-run", out), ("tile graph", out_tg), ("C++", out_cpp)):
        np.testing.assert_allclose(got["m"], acc, rtol=1e-6, atol=1e-6, err_msg=level)
        np.testing.assert_allclose(got["seen"], want_seen, rtol=1e-6, atol=1e-6, err_msg=level)


def test_tile_move_misuse_is_located():
    @pypto.jit
    def partial(x: pypto.Tensor([8, 64], F32), m: pypto.Tensor([8, 64], F32)):
        pypto.set_vec_tile_shapes(8, 64)
        t = pypto.full([8, 64], 0.0, F32)
        t[0:4, :] = pypto.view(x, [4, 64], [0, 0])
        m[:] = t

    with pytest.raises(TraceError, match=r"only a whole move") as e:
        partial.trace()
    assert_error_at_kernel_line(e, partial, 4)

    @pypto.jit
    def reshaped(x: pypto.Tensor([32, 64], F32), m: pypto.Tensor([8, 64], F32)):
        pypto.set_vec_tile_shapes(8, 64)
        acc = pypto.full([8, 64], 0.0, F32)
        for i in pypto.loop(4, name="rows"):
            acc[:] = pypto.view(x, [8, 32], [i * 8, 0])
        m[:] = acc

    with pytest.raises(TraceError, match=r"loop-carried state keeps its shape and dtype") as e:
        reshaped.trace()
    assert_error_at_kernel_line(e, reshaped, 5)
