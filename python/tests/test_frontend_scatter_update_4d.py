"""`pypto.scatter_update` in its 4-D form (pypto-scatter_update.md): a paged
cache `[blockNum, blockSize, 1, d]` whose rows `index[i][j]` (counted over
all blocks) get `src[i, j, 0]`, as MLA prolog writes its KV cache. Run
traced, verified, in pto-run, as the tile graph and as emitted C++ on the
host emulation, against NumPy; the GM form and the tile form."""

from __future__ import annotations

import re

import numpy as np
import pytest

import pto_mlir.frontend as pypto
from tile_graph_and_cpp import assert_tile_graph_and_cpp_equal, write_verified

F32, I32 = pypto.DT_FP32, pypto.DT_INT32


@pypto.jit
def paged_cache(cache: pypto.Tensor([pypto.DYN, 6, 1, 16], F32),
                x: pypto.Tensor([4, 16], F32), slots: pypto.Tensor([4, 1], I32),
                block: pypto.Tensor([2, 6, 1, 16], F32), block_out: pypto.Tensor([2, 6, 1, 16], F32),
                pairs: pypto.Tensor([2, 2], I32)):
    # GM form: two tokens a step, each to the cache slot its index names.
    for i in pypto.loop(2, name="tok", idx_name="i"):
        pypto.set_vec_tile_shapes(2, 16)
        k = pypto.reshape(pypto.view(x, [2, 16], [i * 2, 0]), [2, 1, 1, 16])
        index = pypto.view(slots, [2, 1], [i * 2, 0])
        pypto.scatter_update(cache, -2, index, k)
    # Tile form: PyPTO's own example, a [2, 2] index into a [2, 6, 1, 16] tile.
    pypto.set_vec_tile_shapes(2, 6, 1, 16)
    t = pypto.view(block, [2, 6, 1, 16], [0, 0, 0, 0])
    src = pypto.reshape(pypto.view(x, [4, 16], [0, 0]), [2, 2, 1, 16])
    updated = pypto.scatter_update(t, -2, pypto.view(pairs, [2, 2], [0, 0]), src)
    block_out[:] = updated * 2.0


def reference(inputs):
    cache = inputs["cache"].reshape(-1, 16).copy()
    cache[inputs["slots"][:, 0]] = inputs["x"]
    block = inputs["block"].reshape(12, 16).copy()
    block[inputs["pairs"].reshape(-1)] = inputs["x"]
    return {"cache": cache.reshape(inputs["cache"].shape),
            "block_out": 2 * block.reshape(2, 6, 1, 16)}


def _inputs():
    rng = np.random.default_rng(5)
    return {"cache": rng.standard_normal((3, 6, 1, 16)).astype(np.float32),
            "x": rng.standard_normal((4, 16)).astype(np.float32),
            "slots": np.array([[1], [8], [4], [17]], np.int32),
            "block": rng.standard_normal((2, 6, 1, 16)).astype(np.float32),
            "block_out": np.zeros((2, 6, 1, 16), np.float32),
            "pairs": np.array([[1, 8], [4, 10]], np.int32)}   # PyPTO's example


DTYPES = {"cache": "fp32", "x": "fp32", "slots": "int32", "block": "fp32",
          "block_out": "fp32", "pairs": "int32"}


def test_the_4d_form_in_every_column(tmp_path):
    traced = paged_cache.trace(cache=(None, 6, 1, 16))
    assert traced.mlir.count("pto.index_put") == 2
    inputs = _inputs()
    want = reference(inputs)
    direct = {k: v.copy() for k, v in inputs.items()}
    traced.run(*(direct[k] for k in ("cache", "x", "slots", "block", "block_out", "pairs")))
    for name in want:
        np.testing.assert_array_equal(direct[name], want[name], err_msg=f"pto-run: {name}")
    source = write_verified(traced, tmp_path)
    assert_tile_graph_and_cpp_equal(source, tmp_path, inputs, DTYPES, want)


@pytest.mark.parametrize("body, message", [
    ("pypto.scatter_update(c, -2, i, pypto.reshape(v, [2, 1, 2, 8]))",
     "scatter_update(src) is [2, 1, 2, 8] for the 4-D input [4, 6, 1, 16]; PyPTO takes src "
     "[b, s, 1, 16]"),
    ("pypto.scatter_update(c, -2, pypto.view(j, [1, 2], [0, 0]), pypto.reshape(v, [2, 1, 1, 16]))",
     "scatter_update(index) is [1, 2] for src [2, 1, 1, 16]"),
    ("pypto.scatter_update(h, -2, i, pypto.reshape(v, [2, 1, 1, 16]))",
     "scatter_update(input) is [4, 6, 2, 8]; the 4-D form is [blockNum, blockSize, 1, d]"),
    ("pypto.scatter_update(c, -1, i, pypto.reshape(v, [2, 1, 1, 16]))",
     "scatter_update(dim=-1): PyPTO's dim is -2"),
])
def test_4d_errors_name_the_rule(body, message):
    namespace = {"pypto": pypto}
    exec(f"""
@pypto.jit
def bad(c: pypto.Tensor([4, 6, 1, 16], pypto.DT_FP32), h: pypto.Tensor([4, 6, 2, 8], pypto.DT_FP32),
        u: pypto.Tensor([2, 16], pypto.DT_FP32), j: pypto.Tensor([2, 2], pypto.DT_INT32)):
    pypto.set_vec_tile_shapes(2, 16)
    v = pypto.view(u, [2, 16], [0, 0])
    i = pypto.view(j, [2, 1], [0, 0])
    {body}
""", namespace)
    with pytest.raises(pypto.TraceError, match=re.escape(message)):
        namespace["bad"].trace()
