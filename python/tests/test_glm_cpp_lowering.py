"""Two pto-lower-to-isa gaps found by glm_v4_5 moe_fusion, each run in pto-run
and as the emitted pto-isa C++ on the host emulation against NumPy: an
int8 x int8 -> int32 matmul with fewer than 32 rows (the L0A tile rounds M
to the 16-row fractal, only K to the 32-byte int8 block)."""

from __future__ import annotations

import numpy as np
import pytest

import pto_mlir.frontend as pypto
from pto_mlir import codegen
from pto_mlir.tools import run_kernel

I8, I32 = pypto.DT_INT8, pypto.DT_INT32


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
