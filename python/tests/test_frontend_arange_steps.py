"""`pypto.arange` of every step and dtype PyPTO documents
(pypto-arange.md: `arange(1.0, 4.0, 0.5)`, `arange(1.0, 4.0)`, `arange(4)`)
and integer steps other than 1, in every column: traced, verified, pto-run,
the tile graph and the emitted C++ on the host emulation (TCI, then TCVT /
TMULS / TADDS), against NumPy. A vector tile smaller than the sequence cuts
it into pieces that each start at their own offset."""

from __future__ import annotations

import numpy as np

import pto_mlir.frontend as pypto
from pto_mlir import codegen
from tile_graph_and_cpp import assert_tile_graph_and_cpp_equal, write_verified

F32, I32 = pypto.DT_FP32, pypto.DT_INT32


@pypto.jit
def sequences(ints: pypto.Tensor([1, 40], I32), down: pypto.Tensor([1, 8], I32),
              halves: pypto.Tensor([1, 6], F32), ones: pypto.Tensor([1, 3], F32),
              tenths: pypto.Tensor([1, 24], F32)):
    pypto.set_vec_tile_shapes(16)
    a = pypto.reshape(pypto.arange(2, 122, 3), [1, 40])       # three pieces of 16
    b = pypto.reshape(pypto.arange(5, -11, -2), [1, 8])
    c = pypto.reshape(pypto.arange(1.0, 4.0, 0.5), [1, 6])      # PyPTO's examples
    d = pypto.reshape(pypto.arange(1.0, 4.0), [1, 3])
    e = pypto.reshape(pypto.arange(-1.0, 1.4, 0.1), [1, 24])
    pypto.set_vec_tile_shapes(1, 40)
    ints[:] = a
    down[:] = b
    halves[:] = c
    ones[:] = d
    tenths[:] = e


NAMES = ("ints", "down", "halves", "ones", "tenths")
DTYPES = {"ints": "int32", "down": "int32", "halves": "fp32", "ones": "fp32", "tenths": "fp32"}


def _outputs():
    return {"ints": np.zeros((1, 40), np.int32), "down": np.zeros((1, 8), np.int32),
            "halves": np.zeros((1, 6), np.float32), "ones": np.zeros((1, 3), np.float32),
            "tenths": np.zeros((1, 24), np.float32)}


def reference():
    return {"ints": np.arange(2, 122, 3, dtype=np.int32)[None],
            "down": np.arange(5, -11, -2, dtype=np.int32)[None],
            "halves": np.array([[1.0, 1.5, 2.0, 2.5, 3.0, 3.5]], np.float32),
            "ones": np.array([[1.0, 2.0, 3.0]], np.float32),
            # start + i * step rounded once to f32, as pto-run computes it
            "tenths": (-1.0 + 0.1 * np.arange(24, dtype=np.float64)).astype(np.float32)[None]}


def test_arange_steps_in_every_column(tmp_path):
    traced = sequences.trace()
    want = reference()
    direct = _outputs()
    traced.run(*(direct[k] for k in NAMES))
    for name in NAMES:
        np.testing.assert_array_equal(direct[name], want[name], err_msg=f"pto-run: {name}")
    source = write_verified(traced, tmp_path)
    # Integer sequences and dyadic float steps are exact at every level.
    exact = {k: want[k] for k in ("ints", "down", "halves", "ones")}
    assert_tile_graph_and_cpp_equal(source, tmp_path, _outputs(), DTYPES, exact)
    # An f32 step like 0.1: the C++ rounds i * step and then + start in f32
    # (step itself rounded to f32), pto-run start + i * step once: apart by
    # rounding errors of the operands' size (|x| <= 1.4), not of the result's.
    exe = codegen.build(source, tmp_path / "cpp2")
    cpp = next((tmp_path / "cpp2").glob("*.cpp")).read_text()
    assert "TMULS" in cpp and "TADDS" in cpp and "TCVT" in cpp
    got, _ = codegen.run(exe, tmp_path / "cpp2", _outputs(), DTYPES, list(NAMES))
    bound = np.spacing(np.float32(1.4))
    assert np.abs(got["tenths"] - want["tenths"]).max() <= bound, got["tenths"] - want["tenths"]
    for name in exact:
        np.testing.assert_array_equal(got[name], want[name], err_msg=f"C++: {name}")
