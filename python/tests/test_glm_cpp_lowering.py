"""Two pto-lower-to-isa gaps found by glm_v4_5 moe_fusion, each run in pto-run
and as the emitted pto-isa C++ on the host emulation against NumPy: an
int8 x int8 -> int32 matmul with fewer than 32 rows (the L0A tile rounds M
to the 16-row fractal, only K to the 32-byte int8 block) and pypto.topk
with a k that does not fill a 32-byte row of f32 (glm's topk(group_weight,
4): the gathers keep k rounded up to the row, then the first k columns)."""

from __future__ import annotations

import numpy as np
import pytest

import pto_mlir.frontend as pypto
from pto_mlir import codegen, pto_isa
from pto_mlir.tools import run_kernel

I8, I32, F32 = pypto.DT_INT8, pypto.DT_INT32, pypto.DT_FP32


@pypto.jit
def int8_matmul(a: pypto.Tensor([16, 64], I8), b: pypto.Tensor([64, 32], I8),
                out: pypto.Tensor([16, 32], I32)):
    pypto.set_cube_tile_shapes([16, 16], [64, 64], [32, 32])
    pypto.set_vec_tile_shapes(16, 32)
    x = pypto.view(a, [16, 64], [0, 0])
    w = pypto.view(b, [64, 32], [0, 0])
    pypto.assemble(pypto.matmul(x, w, I32), [0, 0], out)


DTYPES = {"a": "int8", "b": "int8", "out": "int32"}


def make_inputs():
    rng = np.random.default_rng(5)
    return {"a": rng.integers(-128, 128, (16, 64)).astype(np.int8),
            "b": rng.integers(-128, 128, (64, 32)).astype(np.int8),
            "out": np.zeros((16, 32), np.int32)}


@pytest.fixture(scope="module")
def matmul_kernel(tmp_path_factory):
    path = tmp_path_factory.mktemp("i8mm") / "int8_matmul.mlir"
    path.write_text(int8_matmul.trace().mlir)
    return path


@pytest.mark.parametrize("level", ["pto-run", "cpp"])
def test_int8_matmul_16_rows(matmul_kernel, level, tmp_path):
    inputs = make_inputs()
    want = inputs["a"].astype(np.int32) @ inputs["b"].astype(np.int32)
    if level == "pto-run":
        out, _ = run_kernel(matmul_kernel, tmp_path, inputs, DTYPES, ["out"])
    else:
        exe = codegen.build(matmul_kernel, tmp_path)
        cpp = next(tmp_path.glob("*.cpp")).read_text()
        assert "TileLeft<int8_t, 16, 64," in cpp   # M on the 16-row fractal
        out, _ = codegen.run(exe, tmp_path / "run", inputs, DTYPES, ["out"])
    np.testing.assert_array_equal(out["out"], want, err_msg=level)


@pypto.jit
def topk_small_k(x: pypto.Tensor([3, 8], F32), wide: pypto.Tensor([3, 40], F32),
                 v1: pypto.Tensor([3, 4], F32), i1: pypto.Tensor([3, 4], I32),
                 v2: pypto.Tensor([3, 3], F32), i2: pypto.Tensor([3, 3], I32),
                 v3: pypto.Tensor([3, 5], F32), i3: pypto.Tensor([3, 5], I32)):
    pypto.set_vec_tile_shapes(3, 40)
    t = pypto.view(x, [3, 8], [0, 0])
    w = pypto.view(wide, [3, 40], [0, 0])
    a, ai = pypto.topk(t, 4)                      # one sorted block, as glm
    b, bi = pypto.topk(t, 3, largest=False)       # smallest
    c, ci = pypto.topk(w, 5)                      # two blocks merged
    pypto.assemble(a, [0, 0], v1)
    pypto.assemble(ai, [0, 0], i1)
    pypto.assemble(b, [0, 0], v2)
    pypto.assemble(bi, [0, 0], i2)
    pypto.assemble(c, [0, 0], v3)
    pypto.assemble(ci, [0, 0], i3)


TOPK_DTYPES = {"x": "fp32", "wide": "fp32", "v1": "fp32", "i1": "int32", "v2": "fp32",
               "i2": "int32", "v3": "fp32", "i3": "int32"}
TOPK_OUTPUTS = ["v1", "i1", "v2", "i2", "v3", "i3"]


def topk_inputs():
    rng = np.random.default_rng(8)
    # Few distinct values: ties decide some of the chosen indices.
    x = rng.integers(0, 5, (3, 8)).astype(np.float32)
    wide = rng.integers(0, 9, (3, 40)).astype(np.float32)
    inputs = {"x": x, "wide": wide}
    for name, k, dtype in (("v1", 4, np.float32), ("i1", 4, np.int32), ("v2", 3, np.float32),
                           ("i2", 3, np.int32), ("v3", 5, np.float32), ("i3", 5, np.int32)):
        inputs[name] = np.zeros((3, k), dtype)
    return inputs


@pytest.fixture(scope="module")
def topk_kernel(tmp_path_factory):
    path = tmp_path_factory.mktemp("topk") / "topk_small_k.mlir"
    path.write_text(topk_small_k.trace().mlir)
    return path


def test_topk_small_k(topk_kernel, tmp_path):
    inputs = topk_inputs()
    ref, _ = run_kernel(topk_kernel, tmp_path / "ref", inputs, TOPK_DTYPES, TOPK_OUTPUTS)
    # The values are the k largest (smallest) of each row, and each index
    # points at its value.
    for v, i, src, k, largest in (("v1", "i1", "x", 4, True), ("v2", "i2", "x", 3, False),
                                  ("v3", "i3", "wide", 5, True)):
        rows = inputs[src]
        want = np.sort(rows, axis=1)[:, ::-1][:, :k] if largest else np.sort(rows, axis=1)[:, :k]
        np.testing.assert_array_equal(ref[v], want, err_msg=f"pto-run {v}")
        np.testing.assert_array_equal(np.take_along_axis(rows, ref[i], 1), ref[v])
    exe = codegen.build(topk_kernel, tmp_path)
    out, _ = codegen.run(exe, tmp_path / "run", inputs, TOPK_DTYPES, TOPK_OUTPUTS)
    for name in TOPK_OUTPUTS:   # values and indices, ties as pto-run orders them
        np.testing.assert_array_equal(out[name], ref[name], err_msg=f"C++ {name}")


@pytest.mark.skipif(pto_isa.find() is None, reason=pto_isa.missing_reason())
@pytest.mark.parametrize("case", ["int8_matmul", "topk"])
def test_on_the_real_simulator(case, matmul_kernel, topk_kernel, tmp_path, monkeypatch):
    """Both kernels' C++ on pto-isa's CPU simulator gives what the emulation
    gives (the 16-row int8 TileLeft and the k = 4 gathers are real forms)."""
    kernel, inputs, dtypes, outputs = (
        (matmul_kernel, make_inputs(), DTYPES, ["out"]) if case == "int8_matmul"
        else (topk_kernel, topk_inputs(), TOPK_DTYPES, TOPK_OUTPUTS))
    cpp = codegen.emit_cpp(kernel, tmp_path)
    emulated = codegen.compile_cpp(cpp, tmp_path / "emulated", "-O0")
    real = pto_isa.build_on_real_sim(cpp, tmp_path / "real")
    ours, _ = codegen.run(emulated, tmp_path / "r_emulated", inputs, dtypes, outputs)
    monkeypatch.setenv("PTO_CPU_SIM_UB_BYTES", str(pto_isa.REAL_SIM_ARCH["a3"][1]))
    theirs, _ = codegen.run(real, tmp_path / "r_real", inputs, dtypes, outputs)
    for name in outputs:
        np.testing.assert_array_equal(theirs[name], ours[name], err_msg=name)
