"""Emits SK-01, the online FlashAttention forward, as `pto` dialect IR.

SK-01 produces SK-16's `o`, `l` and `m` (docs/SK01.md). The canonical program is
`examples/sk01_attention_forward.mlir` (A2/A3, N = 8, D = 128), produced by
this module; tests build the kernel with other head counts, head dims and
tiles (small tiles make the online-softmax update path and tails cheap to run):

    python3 -m pto_mlir.sk01_ir --heads 8 --head-dim 64 > kernel.mlir
    python3 -m pto_mlir.sk01_ir --q-tile 40 --kv-tile 24 \
        --c-tile 32,64,32,64,32,64 --v1-tile 16,64 --v2-tile 16,64
    python3 -m pto_mlir.sk01_ir --dtype fp16 > kernel_fp16.mlir

`--dtype fp16` is the same kernel with FP16 in place of BF16 (q, k, v, the
output and the rounded P the C2 matmul takes): the variant the real pto-isa
CPU simulator can run (golden: `golden.sk01.make_inputs(dtype="fp16")`).

The IR follows the A2/A3 path of the reference forward kernel
(`flash_attention_varlen_forward` in pypto-gym's `flash_attention_mha_impl.py`,
docs/SK01.md#the-program) statement by statement, with three deliberate differences
(docs/SK01.md):

* one head per `head_loop` iteration (the reference unrolls two heads with a
  Python `range(2)` inside `pypto.loop(N / 2)`, which needs an even N);
* the loop-carried accumulators `oi`, `li`, `mi` are `iter_args` of the kv
  loop, initialised by `pto.full 0.0` in the q-tile loop (the reference
  creates uninitialised `pypto.tensor`s there and writes them with `[:] =`);
  as in the reference, the update path reads them through views whose valid
  shape is the q tile's;
* the default tiles are the reference test's A3 performance configuration
  (`q_tile = k_tile = 2048`); its generic default (320-row tiles) overflows L1
  in C2 and the 64 KiB reduction-tile limit in V1 (docs/SK01.md).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass

import numpy as np

from pto_mlir.sk16_ir import DTYPES, _element


@dataclass(frozen=True)
class Sk01Config:
    heads: int = 8
    head_dim: int = 128
    q_tile: int = 2048
    kv_tile: int = 2048
    # set_cube_tile_shapes(m=[mL0, mL1], k=[kL0, kL1], n=[nL0, nL1]) before C1
    # (S = Q K^T) and before C2 (O = P V).
    c1_tile: tuple = (128, 128, 256, 512, 128, 128)
    c2_tile: tuple = (128, 128, 256, 512, 128, 128)
    # set_vec_tile_shapes before V1 (softmax on [q_tile, kv_tile]) and V2
    # (online-softmax update on [q_tile, D] / [q_tile, 1]).
    v1_tile: tuple = (8, 1024)
    v2_tile: tuple = (64, 128)
    arch: str = "DAV_2201"
    kernel_name: str = "sk01_attention_forward"
    # The 16-bit format of q, k, v, the output and P: "bf16" (A3) or "fp16".
    dtype: str = "bf16"
    # docs/SK01.md#the-program: options of the A2/A3 path.
    stitch_function_max_num: int = 1024
    device_sched_mode: int = 0
    merge_setting: str = "{-1 : 8}"
    # "iter_args": O, l, m are iter_args of the kv loop (tiles); "gm": they
    # live in GM workspaces, viewed and assembled each kv tile (the
    # reference's pypto.tensor accumulators; what the C++ emitter prints).
    accumulators: str = "iter_args"

    @property
    def scale(self) -> np.float32:
        # scale = 1/sqrt(D), a Python double folded once to an FP32 scalar.
        return np.float32(1.0 / np.sqrt(np.float64(self.head_dim)))


def _ints(values) -> str:
    return ", ".join(str(v) for v in values)


def _cube(c) -> str:
    mL0, mL1, kL0, kL1, nL0, nL1 = c
    return f"#pto.cube_tile<m = [{mL0}, {mL1}], k = [{kL0}, {kL1}], n = [{nL0}, {nL1}]>"


def _pairs(c) -> str:
    return f"[[{c[0]}, {c[1]}], [{c[2]}, {c[3]}], [{c[4]}, {c[5]}]]"


def emit(cfg: Sk01Config) -> str:
    N, D = cfg.heads, cfg.head_dim
    ND = N * D
    TQ, TK = cfg.q_tile, cfg.kv_tile
    bf, label = _element(cfg.dtype)
    tag = cfg.dtype  # SSA name suffix of the rounded values
    flag = "" if cfg.dtype == "bf16" else f" --dtype {cfg.dtype}"
    in3 = f"!pto.tensor<?x{N}x{D}x{bf}>"
    in2 = f"!pto.tensor<?x{ND}x{bf}>"
    stat2 = f"!pto.tensor<?x{N}xf32>"
    off = "!pto.tensor<?xi32>"
    tqd = f"!pto.tile<{TQ}x{D}x{bf}>"
    tkd = f"!pto.tile<{TK}x{D}x{bf}>"
    tqd32 = f"!pto.tile<{TQ}x{D}xf32>"
    tq1 = f"!pto.tile<{TQ}x1xf32>"
    s32 = f"!pto.tile<{TQ}x{TK}xf32>"
    sbf = f"!pto.tile<{TQ}x{TK}x{bf}>"
    acc = f"{tqd32}, {tq1}, {tq1}"
    tqd32t = f"!pto.tensor<{TQ}x{D}xf32>"
    tq1t = f"!pto.tensor<{TQ}x1xf32>"
    c1, c2 = _cube(cfg.c1_tile), _cube(cfg.c2_tile)
    v1 = f"#pto.vec_tile<[{_ints(cfg.v1_tile)}]>"
    v2 = f"#pto.vec_tile<[{_ints(cfg.v2_tile)}]>"
    intr = "#pto.precision<INTRINSIC>"
    rint = "#pto.round_mode<RINT>"
    ms = cfg.merge_setting
    scale = np.format_float_scientific(cfg.scale, unique=True, exp_digits=2)
    scale = scale.replace("e", "E")

    prologue = f"""\
          %k_tile_start = arith.muli %k_tile_idx, %c_kv_tile : index
          %k_row = arith.addi %k_start, %k_tile_start : index
          %k_rest = arith.subi %seq_len_k, %k_tile_start : index
          %k_tile_len = arith.minsi %k_rest, %c_kv_tile : index

          // Views with a static tile shape and a dynamic valid shape.
          %q_tile_view = pto.view %q2[%q_row, %h_offset] valid [%q_tile_len, {D}] : {in2} -> {tqd}
          %k_tile_view = pto.view %k2[%k_row, %h_offset] valid [%k_tile_len, {D}] : {in2} -> {tkd}
          %v_tile_view = pto.view %v2[%k_row, %h_offset] valid [%k_tile_len, {D}] : {in2} -> {tkd}

          // C1 (c1_tile): scores = Q K^T, {label} x {label} -> FP32.
          %scores = pto.matmul %q_tile_view, %k_tile_view {{b_trans, cube_tile = {c1}}} : {tqd}, {tkd} -> {s32}
          // V1 (v1_tile): scale, row max, unnormalised exp, row sum.
          %scores_scaled = pto.mul %scores, %scale {{vec_tile = {v1}}} : {s32}, f32 -> {s32}
          %mij = pto.amax %scores_scaled dim = 1 keepdim {{vec_tile = {v1}}} : {s32} -> {tq1}
          %s_shifted = pto.sub %scores_scaled, %mij {{vec_tile = {v1}}} : {s32}, {tq1} -> {s32}
          %pij = pto.exp %s_shifted {{precision = {intr}, vec_tile = {v1}}} : {s32} -> {s32}
          %lij = pto.sum %pij dim = 1 keepdim {{vec_tile = {v1}}} : {s32} -> {tq1}

          %first = pto.is_loop_begin %k_tile_idx
          %last = pto.is_loop_end %k_tile_idx
"""
    update = f"""\
            %mi_new = pto.max %mi, %mij {{vec_tile = {v2}}} : {tq1}, {tq1} -> {tq1}
            %t1 = pto.sub %mi, %mi_new {{vec_tile = {v2}}} : {tq1}, {tq1} -> {tq1}
            %t2 = pto.exp %t1 {{precision = {intr}, vec_tile = {v2}}} : {tq1} -> {tq1}
            %t3 = pto.sub %mij, %mi_new {{vec_tile = {v2}}} : {tq1}, {tq1} -> {tq1}
            %t4 = pto.exp %t3 {{precision = {intr}, vec_tile = {v2}}} : {tq1} -> {tq1}
            %li_a = pto.mul %t2, %li {{vec_tile = {v2}}} : {tq1}, {tq1} -> {tq1}
            %li_b = pto.mul %t4, %lij {{vec_tile = {v2}}} : {tq1}, {tq1} -> {tq1}
            %li_new = pto.add %li_a, %li_b {{vec_tile = {v2}}} : {tq1}, {tq1} -> {tq1}
            %oi_a = pto.mul %oi, %t2 {{vec_tile = {v2}}} : {tqd32}, {tq1} -> {tqd32}
            %oi_b = pto.mul %oij, %t4 {{vec_tile = {v2}}} : {tqd32}, {tq1} -> {tqd32}
            %oi_tmp = pto.add %oi_a, %oi_b {{vec_tile = {v2}}} : {tqd32}, {tqd32} -> {tqd32}
"""
    first_last = f"""\
              // First and last (one kv tile): normalise, P V with {label} output, store.
              %pij_div = pto.div %pij, %lij {{precision = {intr}, vec_tile = {v1}}} : {s32}, {tq1} -> {s32}
              %pij_{tag} = pto.cast %pij_div {{mode = {rint}, vec_tile = {v1}}} : {s32} -> {sbf}
              // C2 (c2_tile)
              %oij = pto.matmul %pij_{tag}, %v_tile_view {{cube_tile = {c2}}} : {sbf}, {tkd} -> {tqd}
              pto.assemble %lij, %l_output[%q_row, %h_idx] : {tq1}, {stat2}
              pto.assemble %mij, %m_output[%q_row, %h_idx] : {tq1}, {stat2}
              pto.assemble %oij, %output[%q_row, %h_offset] : {tqd}, {in2}
"""
    pv_first = f"""\
              // First, not last: O = {tag}(unnormalised P) V in FP32; start the accumulators.
              %pij_{tag} = pto.cast %pij {{mode = {rint}, vec_tile = {v1}}} : {s32} -> {sbf}
              // C2 (c2_tile)
              %oij = pto.matmul %pij_{tag}, %v_tile_view {{cube_tile = {c2}}} : {sbf}, {tkd} -> {tqd32}
"""
    pv_later = f"""\
            %pij_{tag} = pto.cast %pij {{mode = {rint}, vec_tile = {v1}}} : {s32} -> {sbf}
            // C2 (c2_tile)
            %oij = pto.matmul %pij_{tag}, %v_tile_view {{cube_tile = {c2}}} : {sbf}, {tkd} -> {tqd32}
            // V2 (v2_tile): the online-softmax update on the q tile's valid rows.
"""
    last_store = f"""\
              // Last tile: normalise once, round to {label}, store.
              %out_fp32 = pto.div %oi_tmp, %li_new {{precision = {intr}, vec_tile = {v2}}} : {tqd32}, {tq1} -> {tqd32}
              %out_{tag} = pto.cast %out_fp32 {{mode = {rint}, vec_tile = {v2}}} : {tqd32} -> {tqd}
              pto.assemble %li_new, %l_output[%q_row, %h_idx] : {tq1}, {stat2}
              pto.assemble %mi_new, %m_output[%q_row, %h_idx] : {tq1}, {stat2}
              pto.assemble %out_{tag}, %output[%q_row, %h_offset] : {tqd}, {in2}
"""
    if cfg.accumulators == "gm":
        k_loop = f"""\
        // Accumulators in GM: pypto.tensor([q_tile, D] / [q_tile, 1], FP32) in
        // the reference, read by views and written by assembles each kv tile.
        %oi_acc = pto.workspace : {tqd32t}
        %li_acc = pto.workspace : {tq1t}
        %mi_acc = pto.workspace : {tq1t}
        pto.loop "k_tile_loop" %k_tile_idx = %c0 to %k_tile_count step %c1 {{
{prologue}          scf.if %first {{
            scf.if %last {{
{first_last}            }} else {{
{pv_first}              pto.assemble %oij, %oi_acc[0, 0] : {tqd32}, {tqd32t}
              pto.assemble %lij, %li_acc[0, 0] : {tq1}, {tq1t}
              pto.assemble %mij, %mi_acc[0, 0] : {tq1}, {tq1t}
            }}
          }} else {{
{pv_later}            %li = pto.view %li_acc[0, 0] valid [%q_tile_len, 1] : {tq1t} -> {tq1}
            %mi = pto.view %mi_acc[0, 0] valid [%q_tile_len, 1] : {tq1t} -> {tq1}
            %oi = pto.view %oi_acc[0, 0] valid [%q_tile_len, {D}] : {tqd32t} -> {tqd32}
{update}            scf.if %last {{
{last_store}            }} else {{
              pto.assemble %oi_tmp, %oi_acc[0, 0] : {tqd32}, {tqd32t}
              pto.assemble %li_new, %li_acc[0, 0] : {tq1}, {tq1t}
              pto.assemble %mi_new, %mi_acc[0, 0] : {tq1}, {tq1t}
            }}
          }}
        }}
"""
    else:
        k_loop = f"""\
        // Accumulators (pypto.tensor([q_tile, D] / [q_tile, 1], FP32) in the reference).
        %oi_init = pto.full 0.0 : {tqd32}
        %li_init = pto.full 0.0 : {tq1}
        %mi_init = pto.full 0.0 : {tq1}
        %acc:3 = pto.loop "k_tile_loop" %k_tile_idx = %c0 to %k_tile_count step %c1
            iter_args(%oi_update = %oi_init, %li_update = %li_init, %mi_update = %mi_init)
            -> ({acc}) {{
{prologue}          %next:3 = scf.if %first -> ({acc}) {{
            %carry:3 = scf.if %last -> ({acc}) {{
{first_last}              // The loop ends here: the accumulators are not read again.
              scf.yield %oi_update, %li_update, %mi_update : {acc}
            }} else {{
{pv_first}              scf.yield %oij, %lij, %mij : {acc}
            }}
            scf.yield %carry#0, %carry#1, %carry#2 : {acc}
          }} else {{
{pv_later}            %li = pto.view %li_update[0, 0] valid [%q_tile_len, 1] : {tq1} -> {tq1}
            %mi = pto.view %mi_update[0, 0] valid [%q_tile_len, 1] : {tq1} -> {tq1}
            %oi = pto.view %oi_update[0, 0] valid [%q_tile_len, {D}] : {tqd32} -> {tqd32}
{update}            scf.if %last {{
{last_store}            }}
            scf.yield %oi_tmp, %li_new, %mi_new : {acc}
          }}
          pto.yield %next#0, %next#1, %next#2 : {acc}
        }}
"""
    return f"""\
// SK-01: online FlashAttention forward (varlen MHA, no mask), the A2/A3 path of
// the reference forward kernel (docs/SK01.md#the-program). It produces
// SK-16's o, l and m. Generated by `python3 -m pto_mlir.sk01_ir --heads {N} --head-dim {D}{flag}`;
// do not edit by hand (test/Examples/sk01-generated.test keeps the two in sync).
//
// heads N = {N}, head dim D = {D}, q_tile = {TQ}, kv_tile = {TK},
// c1_tile = {_pairs(cfg.c1_tile)}, c2_tile = {_pairs(cfg.c2_tile)},
// v1_tile = [{_ints(cfg.v1_tile)}], v2_tile = [{_ints(cfg.v2_tile)}].
// One head per head_loop iteration (the reference unrolls two). The accumulators
// oi [q_tile, D], li, mi [q_tile, 1] (FP32) are iter_args of the kv loop; l is the
// plain softmax denominator and m the row maximum of the scaled scores
// (docs/SK16.md#m-and-l). cu_seqlens_q/k are cumulative offsets (`pto.cumulative`).
pto.kernel @{cfg.kernel_name}(
    %q: {in3}, %k: {in3}, %v: {in3},
    %output: {in2}, %l_output: {stat2}, %m_output: {stat2},
    %cu_seqlens_q: {off} {{pto.cumulative}}, %cu_seqlens_k: {off} {{pto.cumulative}})
    attributes {{
      arch = #pto.arch<{cfg.arch}>,
      // set_operation_options(combine_axis=True)
      combine_axis = true,
      runtime_options = #pto.runtime_options<
          stitch_function_max_num = {cfg.stitch_function_max_num}, device_sched_mode = {cfg.device_sched_mode},
          ready_on_host_tensors = ["cu_seqlens_q", "cu_seqlens_k"]>,
      pass_options = #pto.pass_options<vec_nbuffer_setting = {ms},
          cube_l1_reuse_setting = {ms}, cube_nbuffer_setting = {ms}>}} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c_heads = arith.constant {N} : index
  %c_d = arith.constant {D} : index
  %c_q_tile = arith.constant {TQ} : index
  %c_kv_tile = arith.constant {TK} : index
  // scale = 1/sqrt(D), folded at compile time.
  %scale = arith.constant {scale} : f32

  // Zero-copy 3-D -> 2-D reshapes; K and V with their own total.
  %total_q = pto.dim %q, 0 : {in3}
  %total_kv = pto.dim %k, 0 : {in3}
  %q2 = pto.reshape %q [%total_q, {ND}] inplace : {in3} -> {in2}
  %k2 = pto.reshape %k [%total_kv, {ND}] inplace : {in3} -> {in2}
  %v2 = pto.reshape %v [%total_kv, {ND}] inplace : {in3} -> {in2}

  // batch_size = cu_seqlens_q.shape[0] - 1
  %b_plus_1 = pto.dim %cu_seqlens_q, 0 : {off}
  %batch = arith.subi %b_plus_1, %c1 : index
  pto.loop "batch_loop" %b_idx = %c0 to %batch step %c1 {{
    %b_next = arith.addi %b_idx, %c1 : index
    %q_start = pto.read %cu_seqlens_q[%b_idx] : {off}
    %q_end = pto.read %cu_seqlens_q[%b_next] : {off}
    %seq_len_q = arith.subi %q_end, %q_start : index
    %k_start = pto.read %cu_seqlens_k[%b_idx] : {off}
    %k_end = pto.read %cu_seqlens_k[%b_next] : {off}
    %seq_len_k = arith.subi %k_end, %k_start : index
    // (s + tile - 1) // tile
    %q_tile_count = arith.ceildivsi %seq_len_q, %c_q_tile : index
    %k_tile_count = arith.ceildivsi %seq_len_k, %c_kv_tile : index
    pto.loop "head_loop" %h_idx = %c0 to %c_heads step %c1 {{
      %h_offset = arith.muli %h_idx, %c_d : index
      pto.loop "q_tile_loop" %q_tile_idx = %c0 to %q_tile_count step %c1 {{
        %q_tile_start = arith.muli %q_tile_idx, %c_q_tile : index
        %q_row = arith.addi %q_start, %q_tile_start : index
        %q_rest = arith.subi %seq_len_q, %q_tile_start : index
        %q_tile_len = arith.minsi %q_rest, %c_q_tile : index
{k_loop}      }}
    }}
  }}
}}
"""


def _tuple(text: str, n: int | None = None) -> tuple:
    try:
        values = tuple(int(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated ints, got {text!r}") from None
    if n is not None and len(values) != n:
        raise argparse.ArgumentTypeError(f"expected {n} comma-separated ints, got {text!r}")
    return values


def main(argv=None) -> int:
    d = Sk01Config()
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--heads", type=int, default=d.heads)
    p.add_argument("--head-dim", type=int, default=d.head_dim)
    p.add_argument("--q-tile", type=int, default=d.q_tile)
    p.add_argument("--kv-tile", type=int, default=d.kv_tile)
    six = "mL0,mL1,kL0,kL1,nL0,nL1"
    p.add_argument("--c-tile", type=lambda s: _tuple(s, 6), help=f"{six} for both C1 and C2")
    p.add_argument("--c1-tile", type=lambda s: _tuple(s, 6), help=f"{six} for C1 (S = Q K^T)")
    p.add_argument("--c2-tile", type=lambda s: _tuple(s, 6), help=f"{six} for C2 (O = P V)")
    p.add_argument("--v1-tile", type=_tuple, default=d.v1_tile, help="vector tile of the softmax")
    p.add_argument("--v2-tile", type=_tuple, default=d.v2_tile, help="vector tile of the update")
    p.add_argument("--arch", choices=["DAV_2201", "DAV_3510"], default=d.arch)
    p.add_argument("--name", default=d.kernel_name, help="kernel symbol name")
    p.add_argument("--dtype", choices=sorted(DTYPES), default=d.dtype,
                   help="16-bit format of q, k, v, the output and P (default bf16)")
    a = p.parse_args(argv)
    for name, value in (("--heads", a.heads), ("--head-dim", a.head_dim),
                        ("--q-tile", a.q_tile), ("--kv-tile", a.kv_tile)):
        if value <= 0:
            p.error(f"{name} must be positive, got {value}")
    if a.c_tile is not None and (a.c1_tile is not None or a.c2_tile is not None):
        p.error("--c-tile sets both cube tiles; do not combine it with --c1-tile/--c2-tile")
    c1 = a.c_tile or a.c1_tile or d.c1_tile
    c2 = a.c_tile or a.c2_tile or d.c2_tile
    cfg = Sk01Config(heads=a.heads, head_dim=a.head_dim, q_tile=a.q_tile, kv_tile=a.kv_tile,
                     c1_tile=c1, c2_tile=c2, v1_tile=a.v1_tile, v2_tile=a.v2_tile,
                     arch=a.arch, kernel_name=a.name, dtype=a.dtype)
    sys.stdout.write(emit(cfg))
    return 0


if __name__ == "__main__":
    sys.exit(main())
