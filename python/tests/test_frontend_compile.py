"""TracedKernel.compile / .emit_cpp / .simulate: the toolchain from Python
without writing files by hand (issue 19). The compiled tile graph computes
what the traced kernel computes, and its leaves load each GM window once."""

from __future__ import annotations

import re

import numpy as np
import pytest

import pto_mlir.frontend as pypto
from pto_mlir import ir


@pypto.jit
def row_softmax(x: pypto.Tensor([pypto.DYN, 64], pypto.DT_FP32),
                y: pypto.Tensor([pypto.DYN, 64], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(16, 64)
    rows = x.shape[0]
    for i in pypto.loop((rows + 15) // 16, name="LOOP_i", idx_name="i"):
        t = pypto.view(x, [16, 64], [i * 16, 0], valid_shape=[(rows - i * 16).min(16), 64])
        e = pypto.exp(pypto.sub(t, pypto.amax(t, -1, keepdim=True)))
        s = pypto.sum(e, -1, keepdim=True)
        pypto.assemble(pypto.div(e, s, precision_type=pypto.PrecisionType.INTRINSIC),
                       [i * 16, 0], y)


@pytest.fixture(scope="module")
def traced():
    return row_softmax.trace(x=(pypto.DYN, 64), y=(pypto.DYN, 64))


def softmax(x):
    e = np.exp(x - x.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


def test_compile_gives_the_tile_graph_that_computes_the_same(traced):
    graph = traced.compile()
    assert isinstance(graph, ir.Module)
    text = str(graph)
    assert "pto.launch" in text and "pto.root_call" in text
    x = np.random.default_rng(3).standard_normal((40, 64)).astype(np.float32)
    direct, compiled = np.zeros_like(x), np.zeros_like(x)
    traced.run(x, direct)
    graph.run({"x": x, "y": compiled})
    np.testing.assert_array_equal(compiled, direct)
    np.testing.assert_allclose(direct, softmax(x), rtol=1e-5)


def test_each_leaf_loads_a_gm_window_once(traced):
    """amax and sub read the same window of x: after the pipeline's CSE the
    leaf holds one pto.view of it, not two."""
    text = traced.compile().to_string()
    leaves = re.findall(r"func\.func private @\w+_leaf_\w+\((.*?)\n  \}", text, re.S)
    assert leaves
    for leaf in leaves:
        views = re.findall(r"pto\.view (%\w+)\[([^\]]*)\]", leaf)
        assert len(views) == len(set(views)), f"a window is viewed twice:\n{leaf}"


def test_emit_cpp(traced):
    cpp = traced.emit_cpp()
    assert "#include <pto/pto-inst.hpp>" in cpp and "PTO_HOST_MAIN" in cpp


def test_simulate(traced, tmp_path):
    x = np.random.default_rng(4).standard_normal((40, 64)).astype(np.float32)
    y = np.zeros_like(x)
    result = traced.simulate(x, workdir=tmp_path, trace=tmp_path / "t.json")
    assert result.time_us > 0 and result.launches >= 3, result.report
    assert "cost model" in result.report and (tmp_path / "t.json").exists()
    assert (y == 0).all()   # simulate does not write the caller's arrays
    on_950 = traced.simulate(x, y, arch="950")
    assert on_950.time_us > 0 and "DAV_3510" in on_950.report
    with pytest.raises(TypeError, match=r"simulate\(\): @row_softmax has no argument\(s\) z"):
        traced.simulate(x, z=y)
