#!/usr/bin/env python3
"""SK-16: single-pass FlashAttention backward (varlen MHA), in Python.

The Python twin of ``sk16_attention_backward.mlir``, written the way the A3
reference kernel is written (docs/SK16.md#step-table): the same
``@jit`` options, ``pypto.loop`` nest, views with a static tile shape and a
dynamic ``valid_shape``, ``sg_set_scope`` stages and atomic adds. Tracing it
with ``pto_mlir.frontend`` gives IR structurally equal to the ``.mlir`` file
(python/tests/test_sk16_python.py checks D = 128 and the D = 64 copy).

One deliberate difference from the reference (docs/SK16.md#cross-attention-reshape): K and V are
reshaped with their own total (``k.shape[0]``), not the Q-side total.

    python3 examples/sk16_attention_backward.py                  # the MLIR (N = 8, D = 128)
    python3 examples/sk16_attention_backward.py --head-dim 64 --s1-tile 128 --s2-tile 128 \\
        --c-tile 64,128,64,128,64,128 --v-tile-s 64,128 --v-tile-d 64,128
    python3 examples/sk16_attention_backward.py --heads 8 --head-dim 64 --check test_09
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "python"))

import pto_mlir.frontend as pypto  # noqa: E402


@dataclass(frozen=True)
class FlashAttentionGradTileShapeConfig:
    """Compile-time tile constants (docs/SK16.md#tiles-and-options; the A3 values by default)."""

    s1_tile: int = 2048
    s2_tile: int = 2048
    c_tile: tuple = ((256, 512), (128, 256), (128, 512))   # m, k, n: [L0, L1]
    v_tile_s: tuple = (64, 256)
    v_tile_d: tuple = (256, 256)


@pypto.jit(
    runtime_options={
        "stitch_function_max_num": 512,
        "device_sched_mode": 3,
        "ready_on_host_tensors": ["actual_q", "actual_kv"],
        "max_workspace_kb": 25170624,
    },
    pass_options={
        "cube_l1_reuse_setting": {-1: 1, 0: 4},
    },
)
def sk16_attention_backward(
    q: pypto.Tensor([pypto.DYN, ...], pypto.DT_BF16),
    k: pypto.Tensor([pypto.DYN, ...], pypto.DT_BF16),
    v: pypto.Tensor([pypto.DYN, ...], pypto.DT_BF16),
    o: pypto.Tensor([pypto.DYN, ...], pypto.DT_BF16),
    do: pypto.Tensor([pypto.DYN, ...], pypto.DT_BF16),
    l_input: pypto.Tensor([pypto.DYN, ...], pypto.DT_FP32),
    m_input: pypto.Tensor([pypto.DYN, ...], pypto.DT_FP32),
    dq: pypto.Tensor([pypto.DYN, ...], pypto.DT_FP32),
    dk: pypto.Tensor([pypto.DYN, ...], pypto.DT_FP32),
    dv: pypto.Tensor([pypto.DYN, ...], pypto.DT_FP32),
    actual_q: pypto.Tensor([pypto.DYN], pypto.DT_INT32, cumulative=True),
    actual_kv: pypto.Tensor([pypto.DYN], pypto.DT_INT32, cumulative=True),
    tile_config: FlashAttentionGradTileShapeConfig,
):
    """dQ, dK, dV of varlen MHA attention, accumulated with atomic adds into
    host-zeroed FP32 outputs. actual_q / actual_kv are cumulative offsets of
    length B + 1."""
    pypto.experimental.set_operation_options(combine_axis=True)

    num_heads = q.shape[1]
    head_dim = q.shape[2]
    hidden_dim = num_heads * head_dim
    total_q = q.shape[0]
    total_kv = k.shape[0]
    scale = 1.0 / (head_dim ** 0.5)

    # 3-D -> 2-D in-place reshapes: [total, N * D] and [total, N].
    q_2d = pypto.reshape(q, [total_q, hidden_dim], inplace=True)
    k_2d = pypto.reshape(k, [total_kv, hidden_dim], inplace=True)
    v_2d = pypto.reshape(v, [total_kv, hidden_dim], inplace=True)
    o_2d = pypto.reshape(o, [total_q, hidden_dim], inplace=True)
    do_2d = pypto.reshape(do, [total_q, hidden_dim], inplace=True)
    l_2d = pypto.reshape(l_input, [total_q, num_heads], inplace=True)
    m_2d = pypto.reshape(m_input, [total_q, num_heads], inplace=True)

    b = actual_q.shape[0] - 1
    s1_tile = tile_config.s1_tile
    s2_tile = tile_config.s2_tile
    c_tile = tile_config.c_tile
    v_tile_s = tile_config.v_tile_s
    v_tile_d = tile_config.v_tile_d

    for b_idx in pypto.loop(b, name="LOOP_b_calc", idx_name="b_idx"):
        q_start = actual_q[b_idx]
        s1 = actual_q[b_idx + 1] - q_start
        kv_start = actual_kv[b_idx]
        s2 = actual_kv[b_idx + 1] - kv_start

        s1_loop = (s1 + s1_tile - 1) // s1_tile
        s2_loop = (s2 + s2_tile - 1) // s2_tile

        for n_idx in pypto.loop(num_heads, name="LOOP_n_calc", idx_name="n_idx"):
            h_ofs = n_idx * head_dim
            for s1_idx in pypto.loop(s1_loop, name="LOOP_s1_dq", idx_name="s1_idx"):
                for s2_idx in pypto.loop(s2_loop, name="LOOP_s2_dq", idx_name="s2_idx"):
                    s1_off = q_start + s1_idx * s1_tile
                    actual_s1 = (s1 - s1_idx * s1_tile).min(s1_tile)
                    s2_off = kv_start + s2_idx * s2_tile
                    actual_s2 = (s2 - s2_idx * s2_tile).min(s2_tile)

                    pypto.set_vec_tile_shapes(v_tile_d[0], v_tile_d[1])
                    q_i = pypto.view(q_2d, [s1_tile, head_dim], [s1_off, h_ofs],
                                     valid_shape=[actual_s1, head_dim])
                    k_j = pypto.view(k_2d, [s2_tile, head_dim], [s2_off, h_ofs],
                                     valid_shape=[actual_s2, head_dim])
                    v_j = pypto.view(v_2d, [s2_tile, head_dim], [s2_off, h_ofs],
                                     valid_shape=[actual_s2, head_dim])
                    do_i = pypto.view(do_2d, [s1_tile, head_dim], [s1_off, h_ofs],
                                      valid_shape=[actual_s1, head_dim])
                    o_i = pypto.view(o_2d, [s1_tile, head_dim], [s1_off, h_ofs],
                                     valid_shape=[actual_s1, head_dim])
                    m_i = pypto.view(m_2d, [s1_tile, 1], [s1_off, n_idx],
                                     valid_shape=[actual_s1, 1])
                    l_i = pypto.view(l_2d, [s1_tile, 1], [s1_off, n_idx],
                                     valid_shape=[actual_s1, 1])

                    # C1: S = q_i k_j^T, dP = do_i v_j^T.
                    pypto.set_cube_tile_shapes(c_tile[0], c_tile[1], c_tile[2])
                    s_ij = pypto.matmul(q_i, k_j, pypto.DT_FP32, b_trans=True)
                    dp_ij = pypto.matmul(do_i, v_j, pypto.DT_FP32, b_trans=True)

                    # V1: P and dS, rounded to BF16.
                    pypto.set_pass_options(sg_set_scope=1)
                    pypto.set_vec_tile_shapes(v_tile_s[0], v_tile_s[1])
                    do_i_fp32 = pypto.cast(do_i, pypto.DT_FP32)
                    o_i_fp32 = pypto.cast(o_i, pypto.DT_FP32)
                    do_mul_oi = pypto.mul(o_i_fp32, do_i_fp32)
                    d_i = pypto.sum(do_mul_oi, -1, keepdim=True)

                    s_ij = pypto.mul(s_ij, scale)
                    p_ij = pypto.exp(pypto.sub(s_ij, m_i))
                    p_ij = pypto.div(p_ij, l_i, precision_type=pypto.PrecisionType.INTRINSIC)
                    ds_ij = pypto.mul(p_ij, pypto.sub(dp_ij, d_i))

                    ds_bf16 = pypto.cast(ds_ij, pypto.DT_BF16)
                    p_bf16 = pypto.cast(p_ij, pypto.DT_BF16)
                    pypto.set_pass_options(sg_set_scope=-1)

                    # C2: dV_t = P^T do_i, dQ_t = dS k_j, dK_t = dS^T q_i.
                    pypto.set_cube_tile_shapes(c_tile[0], c_tile[1], c_tile[2])
                    dv_tile = pypto.matmul(p_bf16, do_i, pypto.DT_FP32, a_trans=True)
                    dq_tile = pypto.matmul(ds_bf16, k_j, pypto.DT_FP32)
                    dk_tile = pypto.matmul(ds_bf16, q_i, pypto.DT_FP32, a_trans=True)

                    # V2: scale dQ and dK, accumulate into GM.
                    pypto.set_pass_options(sg_set_scope=2)
                    pypto.set_vec_tile_shapes(v_tile_d[0], v_tile_d[1])
                    pypto.atomic_add(dv_tile, [s2_off, h_ofs], dv)
                    dq_final = pypto.mul(dq_tile, scale)
                    pypto.atomic_add(dq_final, [s1_off, h_ofs], dq)
                    dk_final = pypto.mul(dk_tile, scale)
                    pypto.atomic_add(dk_final, [s2_off, h_ofs], dk)
                    pypto.set_pass_options(sg_set_scope=-1)


def trace(heads: int = 8, head_dim: int = 128,
          tile_config: FlashAttentionGradTileShapeConfig = FlashAttentionGradTileShapeConfig(),
          arch: str = "DAV_2201") -> pypto.TracedKernel:
    """SK-16 traced for ``heads`` x ``head_dim`` (total_q, total_kv and the
    batch stay dynamic)."""
    seq = (pypto.DYN, heads, head_dim)
    stat = (pypto.DYN, heads, 1)
    out = (pypto.DYN, heads * head_dim)
    return sk16_attention_backward.trace(
        q=seq, k=seq, v=seq, o=seq, do=seq, l_input=stat, m_input=stat,
        dq=out, dk=out, dv=out, actual_q=(pypto.DYN,), actual_kv=(pypto.DYN,),
        tile_config=tile_config, arch=arch)


def _ints(text: str, n: int | None = None) -> tuple:
    values = tuple(int(x) for x in text.split(","))
    if n is not None and len(values) != n:
        raise argparse.ArgumentTypeError(f"expected {n} comma-separated ints, got {text!r}")
    return values


def main(argv=None) -> int:
    d = FlashAttentionGradTileShapeConfig()
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--heads", type=int, default=8)
    p.add_argument("--head-dim", type=int, default=128)
    p.add_argument("--s1-tile", type=int, default=d.s1_tile)
    p.add_argument("--s2-tile", type=int, default=d.s2_tile)
    p.add_argument("--c-tile", type=lambda s: _ints(s, 6), default=None,
                   help="mL0,mL1,kL0,kL1,nL0,nL1")
    p.add_argument("--v-tile-s", type=_ints, default=d.v_tile_s)
    p.add_argument("--v-tile-d", type=_ints, default=d.v_tile_d)
    p.add_argument("--arch", choices=["DAV_2201", "DAV_3510"], default="DAV_2201")
    p.add_argument("--check", metavar="CASE",
                   help="run a golden case (docs/SK16.md#tests, e.g. test_09) in the reference "
                        "interpreter in-process and compare with the NumPy golden")
    a = p.parse_args(argv)
    c = a.c_tile
    cfg = FlashAttentionGradTileShapeConfig(
        s1_tile=a.s1_tile, s2_tile=a.s2_tile,
        c_tile=d.c_tile if c is None else ((c[0], c[1]), (c[2], c[3]), (c[4], c[5])),
        v_tile_s=a.v_tile_s, v_tile_d=a.v_tile_d)
    try:
        traced = trace(a.heads, a.head_dim, cfg, a.arch)
    except pypto.TraceError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    if not a.check:
        sys.stdout.write(traced.mlir)
        return 0

    from pto_mlir.golden import sk16
    case = sk16.get_case(a.check)
    if (case.N, case.D) != (a.heads, a.head_dim):
        p.error(f"{a.check} has N = {case.N}, D = {case.D}: pass --heads {case.N} "
                f"--head-dim {case.D}")
    inputs = sk16.make_inputs(case, seed=42)
    gold = sk16.golden_backward(inputs, case.N, case.D)
    stats = traced.run(**inputs).stats
    ok = True
    for name in sk16.OUTPUT_NAMES:
        good, _, worst = sk16.check_close(inputs[name], gold[name])
        print(f"{name}: {'ok' if good else 'MISMATCH'} (worst margin {worst:.3g})")
        ok &= good
    print(f"{stats['loop_iterations']} loop iterations, {stats['matmul_flops']} matmul FLOP")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
