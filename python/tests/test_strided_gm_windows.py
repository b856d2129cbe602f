"""Strided GM windows: an [L, 1, D] window of a [T, NV, D] tensor (its rows
every NV * D elements), chunked_gdr's access shape, written as that kernel
writes it. pto-run, the tile graph and the emitted C++ on the host emulation
against NumPy (docs/ISA.md, "N-D tiles")."""

from __future__ import annotations

import numpy as np
import pytest

import pypto

F32 = pypto.DT_FP32
NV, D, L = 3, 32, 16


@pypto.frontend.jit
def gate_heads(value: pypto.Tensor([pypto.DYNAMIC, NV, D], F32),
               beta: pypto.Tensor([pypto.DYNAMIC, NV], F32),
               out: pypto.Tensor([pypto.DYNAMIC, NV, D], F32)):
    """Per head n and chunk of L rows: the [L, 1, D] window of value, the
    [L, 1] column of beta, their product plus the chunk's last valid row
    (a view of a tile at a run-time row, as chunked_gdr's gate[l - 1:l, :])
    written back with out[s:s + L, n]."""
    t = value.shape[0]
    for n in pypto.loop(NV, name="heads", idx_name="n"):
        for s in pypto.loop(0, t, L, name="chunks", idx_name="s"):
            rows = (t - s).min(L)
            pypto.set_vec_tile_shapes(L, 1, D)
            v = pypto.view(value, [L, 1, D], [s, n, 0], valid_shape=[rows, 1, D])
            b = pypto.view(beta, [L, 1], [s, n], valid_shape=[rows, 1])
            pypto.set_vec_tile_shapes(L, D)
            v2 = pypto.reshape(v, [L, D], valid_shape=[rows, D])
            last = v2.valid_shape[0]
            out[s:s + L, n] = v2 * b + v2[last - 1:last, :]


def _inputs(t: int = 40):
    rng = np.random.default_rng(7)
    value = rng.standard_normal((t, NV, D)).astype(np.float32)
    beta = rng.standard_normal((t, NV)).astype(np.float32)
    expected = value * beta[:, :, None]
    for s in range(0, t, L):
        expected[s:s + L] += value[min(s + L, t) - 1]
    return value, beta, expected


def test_strided_windows_match_numpy_in_pto_run_and_the_tile_graph():
    value, beta, expected = _inputs()
    out = np.full_like(value, 7.0)
    gate_heads(value, beta, out)
    np.testing.assert_allclose(out, expected, rtol=1e-6)
    traced = gate_heads.trace(value, beta, out)
    out2 = np.full_like(value, 7.0)
    traced.compile().run({"value": value, "beta": beta, "out": out2})
    np.testing.assert_allclose(out2, expected, rtol=1e-6)


def test_strided_windows_are_one_load_and_one_store_with_a_row_stride(tmp_path):
    from pto_mlir import codegen
    value, beta, expected = _inputs()
    traced = gate_heads.trace(value, beta, np.zeros_like(value))
    # The [T, NV, D] tensors are read and written as [T, NV * D]: a window of
    # D columns at column n * D, rows NV * D elements apart.
    isa = traced.compile("pto-ascend-pipeline").to_string()
    assert f"!pto.tensor<?x{NV}x{D}xf32> -> !pto.tensor<?x{NV * D}xf32>" in isa
    # The run-time row `gate[l - 1:l, :]` is read straight from GM now that
    # pto-expand-tiles folds views of kernel tensors into each piece's load;
    # the TEXTRACT at a run-time row is covered in lower-to-isa.mlir.
    source = tmp_path / "gate_heads.mlir"
    source.write_text(traced.mlir)
    exe = codegen.build(source, tmp_path)
    result, _ = codegen.run(exe, tmp_path,
                            {"value": value, "beta": beta, "out": np.full_like(value, 7.0)},
                            {"value": "f32", "beta": "f32", "out": "f32"}, ["out"])
    np.testing.assert_allclose(result["out"], expected, rtol=1e-6)


@pypto.frontend.jit
def chained_matmuls(a: pypto.Tensor([32, 32], F32), b: pypto.Tensor([32, 32], F32),
                    out: pypto.Tensor([32, 64], F32)):
    """chunked_gdr's k_cumdecay @ state: a matmul result feeding two later
    matmuls in one cube leaf (moved L0C -> L1 once, docs/ISA.md)."""
    pypto.set_cube_tile_shapes([32, 32], [32, 32], [32, 32])
    ab = pypto.matmul(a, b, F32)
    pypto.assemble(pypto.matmul(ab, b, F32), [0, 0], out)
    pypto.assemble(pypto.matmul(ab, a, F32), [0, 32], out)


def test_a_matmul_result_feeds_later_matmuls_in_cpp(tmp_path):
    from pto_mlir import codegen
    rng = np.random.default_rng(3)
    a, b = (rng.standard_normal((32, 32)).astype(np.float32) for _ in range(2))
    expected = np.concatenate([a @ b @ b, a @ b @ a], axis=1)
    out = np.zeros((32, 64), np.float32)
    chained_matmuls(a, b, out)
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-4)
    traced = chained_matmuls.trace(a, b, out)
    assert "pto_isa.tmov" in traced.compile("pto-ascend-pipeline").to_string()
    source = tmp_path / "chained_matmuls.mlir"
    source.write_text(traced.mlir)
    exe = codegen.build(source, tmp_path)
    result, _ = codegen.run(exe, tmp_path, {"a": a, "b": b, "out": np.zeros_like(out)},
                            {"a": "f32", "b": "f32", "out": "f32"}, ["out"])
    np.testing.assert_allclose(result["out"], expected, rtol=1e-4, atol=1e-4)
