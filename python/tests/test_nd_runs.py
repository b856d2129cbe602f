"""N-D tiles whose rows are runs in GM or have gaps, and views of tiles at a
run-time column, as the gym kernels write them (spatial_ssrl_3b's rope,
gemma4's gqa_decode_attn, lightning_indexer, deepseek_v2_lite_chat's
mla_prolog), through pto-run, the tile graph and the emitted C++ on the
host emulation, against NumPy (docs/ISA.md, "N-D tiles" and "Views of
tiles")."""

from __future__ import annotations

import numpy as np
import pytest

import pypto
from pto_mlir import codegen

F32, F16, BF16 = pypto.DT_FP32, pypto.DT_FP16, pypto.DT_BF16


def _three_columns(kernel, inputs: dict, outputs: list, dtypes: dict, tmp_path,
                   expected: dict, rtol=1e-6, atol=1e-6, isa_has=()):
    """pto-run, pto-run on the tile graph and the emitted C++, each against
    `expected`; the lowered program must contain each of `isa_has`."""
    def fresh():
        return {k: np.array(v, copy=True) for k, v in inputs.items()}

    arrays = fresh()
    kernel(**arrays)
    for name in outputs:
        np.testing.assert_allclose(arrays[name], expected[name], rtol=rtol, atol=atol,
                                   err_msg=f"pto-run: {name}")
    traced = kernel.trace(**fresh())
    arrays = fresh()
    traced.compile().run(arrays)
    for name in outputs:
        np.testing.assert_allclose(arrays[name], expected[name], rtol=rtol, atol=atol,
                                   err_msg=f"tile graph: {name}")
    isa = traced.compile("pto-ascend-pipeline").to_string()
    for text in isa_has:
        assert text in isa, f"{text!r} not in the lowered program"
    source = tmp_path / "kernel.mlir"
    source.write_text(traced.mlir)
    exe = codegen.build(source, tmp_path)
    result, _ = codegen.run(exe, tmp_path, fresh(), dtypes, outputs)
    for name in outputs:
        np.testing.assert_allclose(result[name], expected[name], rtol=rtol, atol=atol,
                                   err_msg=f"C++: {name}")


# -- a middle dim valid in part ----------------------------------------------------------

H, S2, DH = 4, 16, 32


@pypto.frontend.jit
def chunk_scale(x: pypto.Tensor([H, pypto.DYNAMIC, DH], F32),
                g: pypto.Tensor([H, 1, DH], F32),
                out: pypto.Tensor([H, pypto.DYNAMIC, DH], F32)):
    """Per chunk of S2 rows of every head: x * g + x (gqa_decode_attn's
    [Nkv, S2_TILE, D] windows: the last chunk's middle dim is valid in
    part, so the rows of the 2-D form have gaps between heads)."""
    s = x.shape[1]
    for c in pypto.loop((s + S2 - 1) // S2, name="chunks", idx_name="c"):
        start = c * S2
        valid = pypto.min(start + S2, s) - start
        pypto.set_vec_tile_shapes(H, S2, DH)
        t = pypto.view(x, [H, S2, DH], [0, start, 0], valid_shape=[H, valid, DH])
        gt = pypto.view(g, [H, 1, DH], [0, 0, 0])
        pypto.assemble(t * gt + t, [0, start, 0], out)


def test_a_middle_dim_valid_in_part(tmp_path):
    rng = np.random.default_rng(11)
    x = rng.standard_normal((H, 40, DH)).astype(np.float32)     # chunks of 16, 16, 8
    g = rng.standard_normal((H, 1, DH)).astype(np.float32)
    out = np.full_like(x, 5.0)
    _three_columns(chunk_scale, {"x": x, "g": g, "out": out}, ["out"],
                   {"x": "f32", "g": "f32", "out": "f32"}, tmp_path,
                   {"out": x * g + x}, isa_has=("pto_isa.tinsert",))


@pypto.frontend.jit
def rotate_halves(q: pypto.tensor(), cos: pypto.tensor(), out: pypto.tensor()):
    """spatial_ssrl_3b rope's structure on whole tensors: [S, N, D] with vec
    tiles of 32 in every dim, a [S, D] operand unsqueezed to [S, 1, D] and
    the halves of the last dim concatenated; the tile graph passes the
    pieces' valid extents as run-time values, so no middle dim is provably
    whole."""
    pypto.set_vec_tile_shapes(*[32 for _ in range(q.dim)])
    half = q.shape[-1] // 2
    rotated = pypto.concat([pypto.neg(q[..., half:]), q[..., :half]], dim=-1)
    out[:] = q * cos.unsqueeze(-2) + rotated


def test_rope_style_pieces(tmp_path):
    rng = np.random.default_rng(12)
    q = rng.standard_normal((31, 16, 64)).astype(np.float16)
    cos = rng.standard_normal((31, 64)).astype(np.float16)
    qf = q.astype(np.float32)
    rotated = np.concatenate([-qf[..., 32:], qf[..., :32]], axis=-1)
    expected = qf * cos.astype(np.float32)[:, None, :] + rotated
    _three_columns(rotate_halves, {"q": q, "cos": cos, "out": np.zeros_like(q)}, ["out"],
                   {"q": "f16", "cos": "f16", "out": "f16"}, tmp_path,
                   {"out": expected}, rtol=2e-3, atol=2e-3, isa_has=("scf.if",))


# -- GM windows whose rows are runs --------------------------------------------------------

SQ, NH, HD = 16, 4, 32


@pypto.frontend.jit
def head_scores(q: pypto.Tensor([pypto.DYNAMIC, SQ, NH, HD], BF16),
                k: pypto.Tensor([pypto.DYNAMIC, SQ, NH, HD], BF16),
                scores: pypto.Tensor([pypto.DYNAMIC, NH, SQ, SQ], F32)):
    """lightning_indexer's batched matmul of the transposed [1, N, S, D]
    query and key: the transposes are assembled into workspaces through
    [1, 1, S, D] pieces that are windows of [B, S, N, D] with rows N * D
    apart (one strided TLOAD / TSTORE each)."""
    pypto.set_cube_tile_shapes([16, 16], [32, 32], [16, 16])
    pypto.set_vec_tile_shapes(1, 1, SQ, HD)
    for b in pypto.loop(q.shape[0], name="batch", idx_name="b"):
        qt = pypto.transpose(pypto.view(q, [1, SQ, NH, HD], [b, 0, 0, 0]), 1, 2)
        kt = pypto.transpose(pypto.view(k, [1, SQ, NH, HD], [b, 0, 0, 0]), 1, 2)
        pypto.set_vec_tile_shapes(1, 1, SQ, SQ)
        s = pypto.matmul(qt, kt, out_dtype=F32, b_trans=True)
        scores[b:, 0:, 0:, 0:] = s


def test_windows_whose_rows_are_runs(tmp_path):
    from pto_mlir.golden.bf16 import bf16_bits_to_f32, f32_to_bf16_bits
    rng = np.random.default_rng(13)
    q = rng.standard_normal((2, SQ, NH, HD)).astype(np.float32)
    k = rng.standard_normal((2, SQ, NH, HD)).astype(np.float32)
    qb, kb = (f32_to_bf16_bits(a) for a in (q, k))
    qr, kr = (bf16_bits_to_f32(a) for a in (qb, kb))
    expected = np.einsum("bsnd,btnd->bnst", qr, kr)
    _three_columns(head_scores, {"q": qb, "k": kb, "scores": np.zeros((2, NH, SQ, SQ), np.float32)},
                   ["scores"], {"q": "bf16", "k": "bf16", "scores": "f32"}, tmp_path,
                   {"scores": expected}, rtol=1e-4, atol=1e-4)


@pypto.frontend.jit
def move_head(x: pypto.Tensor([pypto.DYNAMIC, 3, SQ, HD], F32),
              out: pypto.Tensor([pypto.DYNAMIC, 3, SQ, HD], F32)):
    """out[:, 2] = exp(x[:, 1]) through [B, 1, S, D] windows of [B, 3, S, D]:
    the unit dim 1 between the non-unit dims 0 and 2 does not cover the
    tensor's 3, so the window's rows are B runs of S rows (one TLOAD and
    one TSTORE per run); B is a run-time value, so each run is guarded."""
    b = x.shape[0]
    pypto.set_vec_tile_shapes(4, 1, SQ, HD)
    for i in pypto.loop(0, b, 4, name="batches", idx_name="i"):
        t = pypto.view(x, [4, 1, SQ, HD], [i, 1, 0, 0], valid_shape=[(b - i).min(4), 1, SQ, HD])
        pypto.assemble(pypto.exp(t), [i, 2, 0, 0], out)


def test_rows_in_runs(tmp_path):
    rng = np.random.default_rng(15)
    x = rng.standard_normal((6, 3, SQ, HD)).astype(np.float32)
    out = np.zeros_like(x)
    expected = out.copy()
    expected[:, 2] = np.exp(x[:, 1])
    _three_columns(move_head, {"x": x, "out": out}, ["out"], {"x": "f32", "out": "f32"},
                   tmp_path, {"out": expected}, isa_has=("scf.if", "pto_isa.tinsert"))


# -- a view of a tile at a run-time column -------------------------------------------------

@pypto.frontend.jit
def split_heads(x: pypto.Tensor([pypto.DYNAMIC, 64], F16), w: pypto.Tensor([64, 512], F16),
                lo: pypto.Tensor([pypto.DYNAMIC, 2, 128], F16),
                hi: pypto.Tensor([pypto.DYNAMIC, 2, 128], F16)):
    """mla_prolog's k_nope / value split: the [t, 512] matmul result
    reshaped to [t, 2, 256] and viewed at columns 0 and 128; the two views
    share one vector leaf, which takes the column as an argument."""
    t = x.shape[0]
    pypto.set_cube_tile_shapes([16, 16], [64, 64], [64, 64])
    pypto.set_vec_tile_shapes(16, 2, 256)
    for i in pypto.loop(0, t, 8, name="rows", idx_name="i"):
        a = pypto.view(x, [8, 64], [i, 0], valid_shape=[(t - i).min(8), 64])
        kv = pypto.reshape(pypto.matmul(a, w, F16), [8, 2, 256])
        pypto.assemble(pypto.view(kv, [8, 2, 128], [0, 0, 0]), [i, 0, 0], lo)
        pypto.assemble(pypto.view(kv, [8, 2, 128], [0, 0, 128]), [i, 0, 0], hi)


def test_view_of_a_tile_at_a_runtime_column(tmp_path):
    rng = np.random.default_rng(14)
    x = (rng.standard_normal((16, 64)) * 0.1).astype(np.float16)
    w = (rng.standard_normal((64, 512)) * 0.1).astype(np.float16)
    kv = (x.astype(np.float32) @ w.astype(np.float32)).astype(np.float16).reshape(16, 2, 256)
    _three_columns(split_heads, {"x": x, "w": w, "lo": np.zeros((16, 2, 128), np.float16),
                                 "hi": np.zeros((16, 2, 128), np.float16)},
                   ["lo", "hi"], {"x": "f16", "w": "f16", "lo": "f16", "hi": "f16"}, tmp_path,
                   {"lo": kv[..., :128], "hi": kv[..., 128:]}, rtol=2e-3, atol=2e-3)
    # pto-expand-tiles now folds a view of a matmul result into each piece's
    # own load from the workspace (docs/TileGraph.md), so this kernel no
    # longer reaches the run-time-column TEXTRACT; lower-to-isa.mlir
    # (@tile_view_runtime_offsets) covers that lowering at the pass level.


@pypto.frontend.jit
def pick_row(x: pypto.Tensor([2, 4, 32], F32), z: pypto.Tensor([pypto.DYNAMIC, 1], F32),
             out: pypto.Tensor([2, 32], F32)):
    """exp(x)[:, k, :] with k = z.shape[0] - 1 a run-time value: two runs
    of one row (4b + k), each a TEXTRACT at a run-time row."""
    pypto.set_vec_tile_shapes(2, 4, 32)
    t = pypto.exp(pypto.view(x, [2, 4, 32], [0, 0, 0]))
    k = z.shape[0] - 1
    pypto.assemble(t[:, k, :], [0, 0], out)


def test_view_of_a_tile_at_a_runtime_row_of_runs(tmp_path):
    x = np.random.default_rng(16).standard_normal((2, 4, 32)).astype(np.float32)
    z = np.zeros((3, 1), np.float32)
    _three_columns(pick_row, {"x": x, "z": z, "out": np.zeros((2, 32), np.float32)}, ["out"],
                   {"x": "f32", "z": "f32", "out": "f32"}, tmp_path,
                   {"out": np.exp(x)[:, 2, :]}, isa_has=("] into %", "pto_isa.tinsert"))
