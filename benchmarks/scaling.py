#!/usr/bin/python3
"""Scaling of the passes in the size of one kernel (benchmarks/README.md).

Generated kernels at sizes x1, x2, x4, x8 of a base size, each through
`pto-opt --pto-tile-graph-pipeline` (and `--pto-lint` for the lint case),
timed per pass with `-mlir-timing`. Per pass it prints the time per unit of
input (a tile piece, an op pair, an op) at every size and the ratio of the
largest size to the smallest: a near-linear pass stays within 1.5x.

    benchmarks/scaling.py [--quick] [--sizes 1 2 4 8] [--only NAME ...]

The generators reproduce the inputs of issue 18 that hung: one big f32 tile
with `vec_tile [16, 16]` (x8 = 65,536 pieces, a 4096 x 4096 tile), `pto.full`
+ `pto.atomic_add` pairs into one region (x8 = 5,000), a chain of `pto.exp`
(x8 = 10,000), one vector leaf of many pieces whose launch carries one
argument per piece row (x8 = 262,144 pieces, the fuzz seed that made
pto-merge-leaf-arguments quadratic), `pto.read` + `pto.full` +
`pto.atomic_add` at the row read (x8 = 5,000: tasks that all conflict),
tasks alternating with `pto.loop`s (x8 = 2,000 runs of tasks), loops
carrying a tile unrolled by 8 (pto-unroll-carried-loops alone, x8 = 4,000
loops), engram's rms_norm + gate as one vector task over UB (x8 = 512
row pieces), MIX leaves through `--pto-isa-split-mix` (x8 = 2,000), one
MIX leaf's exchange pieces through `--pto-lower-to-isa` (x8 = 4,000 views
paired with their pieces and moved L0C -> UB), the exp
chain through `--pto-ascend-pipeline` (x8 = 5,000), the same chain
without vector tiles under `--pto-lint` (every op a finding), one long
straight-line pto_isa function through `pto-isa-insert-sync` (x8 = 8,000
groups of 4 instructions), rounds of stores and views of one workspace
region (x8 = 2,000), and a launch graph of many root instances on regions of
one tensor scheduled by `pto-run --sim-graph` (x8 = 16,000 launches: no
pass timing, the process's wall and CPU time), and modules of many small
compiled kernels with a scatter each through `pto-translate --pto-to-cpp`
(x8 = 2,000 kernels; the process's wall and CPU time).
`--quick` uses 1/16 of the base sizes and x1, x2.

Wall times under `-mlir-timing` depend on the machine's load; the process CPU
time (user + system, from the OS) is printed beside them. Nothing here is a
test: python/tests/test_benchmarks.py only checks the tables are well formed.
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))

from pto_mlir.tools import tool  # noqa: E402

FLAT = 1.5  # the largest ratio of time per unit called flat


def big_tile(pieces: int) -> str:
    """One [pieces/4 x 1024] f32 tile, exp'd with vec_tile [16, 16]."""
    rows = max(16, pieces // 64 * 16)
    t = f"!pto.tile<{rows}x1024xf32>"
    g = f"!pto.tensor<{rows}x1024xf32>"
    return (f"pto.kernel @big_tile(%x: {g}, %out: {g}) {{\n"
            f"  %t = pto.view %x[0, 0] : {g} -> {t}\n"
            f"  %e = pto.exp %t {{vec_tile = #pto.vec_tile<[16, 16]>}} : {t} -> {t}\n"
            f"  pto.assemble %e, %out[0, 0] : {t}, {g}\n"
            "}\n")


def atomics(pairs: int) -> str:
    """`pairs` x (pto.full, pto.atomic_add into the same 16 x 16 region)."""
    t, g = "!pto.tile<16x16xf32>", "!pto.tensor<16x16xf32>"
    lines = [f"pto.kernel @atomics(%out: {g}) {{"]
    for i in range(pairs):
        lines.append(f"  %f{i} = pto.full 1.0 {{vec_tile = #pto.vec_tile<[16, 16]>}} : {t}")
        lines.append(f"  pto.atomic_add %f{i}, %out[0, 0] : {t}, {g}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def exp_chain(ops: int, vec_tile: bool = True) -> str:
    """A chain of `ops` pto.exp on one 16 x 16 tile."""
    t, g = "!pto.tile<16x16xf32>", "!pto.tensor<16x16xf32>"
    attr = " {vec_tile = #pto.vec_tile<[16, 16]>}" if vec_tile else ""
    lines = [f"pto.kernel @exp_chain(%x: {g}, %out: {g}) {{",
             f"  %e0 = pto.view %x[0, 0] : {g} -> {t}"]
    for i in range(1, ops + 1):
        lines.append(f"  %e{i} = pto.exp %e{i - 1}{attr} : {t} -> {t}")
    lines.append(f"  pto.assemble %e{ops}, %out[0, 0] : {t}, {g}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def wide_leaf(pieces: int) -> str:
    """One [pieces/4 x 4096] f32 `pto.full` with vec_tile [1, 1024], added
    into GM: one vector leaf with `pieces` pieces whose launch passes one
    index argument per distinct row offset (the fuzz seed that made
    pto-merge-leaf-arguments quadratic had 262,144 such pieces)."""
    rows = max(1, pieces // 4)
    t = f"!pto.tile<{rows}x4096xf32>"
    g = f"!pto.tensor<{rows}x4096xf32>"
    return (f"pto.kernel @wide_leaf(%out: {g}) {{\n"
            f"  %u = pto.full 2.0 {{vec_tile = #pto.vec_tile<[1, 1024]>}} : {t}\n"
            f"  pto.atomic_add %u, %out[0, 0] : {t}, {g}\n"
            "}\n")


def dynamic_atomics(pairs: int) -> str:
    """`pairs` x (a scalar read, pto.full, pto.atomic_add at the row read):
    isomorphic vector tasks that all conflict (run-time offsets into one
    tensor) and each capture a value defined just before them."""
    t, g = "!pto.tile<16x16xf32>", "!pto.tensor<?x16xf32>"
    lines = [f"pto.kernel @dynamic_atomics(%rows: !pto.tensor<{pairs}xi32>, %out: {g}) {{"]
    for i in range(pairs):
        lines.append(f"  %c{i} = arith.constant {i} : index")
        lines.append(f"  %r{i} = pto.read %rows[%c{i}] : !pto.tensor<{pairs}xi32>")
        lines.append(f"  %f{i} = pto.full 1.0 {{vec_tile = #pto.vec_tile<[16, 16]>}} : {t}")
        lines.append(f"  pto.atomic_add %f{i}, %out[%r{i}, 0] : {t}, {g}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def loop_runs(runs: int) -> str:
    """`runs` x (a vector task, then a pto.loop holding one): as many runs of
    tasks in the kernel's block as loops between them, each outlined to a
    root of its own."""
    t, g = "!pto.tile<16x16xf32>", "!pto.tensor<16x16xf32>"
    vec = "{vec_tile = #pto.vec_tile<[16, 16]>}"
    lines = [f"pto.kernel @loop_runs(%x: {g}, %out: {g}) {{",
             "  %c0 = arith.constant 0 : index", "  %c1 = arith.constant 1 : index",
             "  %c2 = arith.constant 2 : index"]
    for i in range(runs):
        lines += [f"  %t{i} = pto.view %x[0, 0] : {g} -> {t}",
                  f"  %e{i} = pto.exp %t{i} {vec} : {t} -> {t}",
                  f"  pto.atomic_add %e{i}, %out[0, 0] : {t}, {g}",
                  f"  pto.loop \"L{i}\" %i{i} = %c0 to %c2 step %c1 {{",
                  f"    %u{i} = pto.view %x[0, 0] : {g} -> {t}",
                  f"    %f{i} = pto.exp %u{i} {vec} : {t} -> {t}",
                  f"    pto.atomic_add %f{i}, %out[0, 0] : {t}, {g}",
                  "  }"]
    lines.append("}")
    return "\n".join(lines) + "\n"


def carried_loops(loops: int) -> str:
    """`loops` x a pto.loop of 16 iterations carrying a tile (exp of a view,
    then is_loop_begin ? e : acc + e), as SK-01's kv loop does, each result
    stored to its own rows; the case unrolls each by 8
    (pto-unroll-carried-loops), 8 copies per loop."""
    t, g = "!pto.tile<16x16xf32>", "!pto.tensor<256x16xf32>"
    vec = "{vec_tile = #pto.vec_tile<[16, 16]>}"
    o = f"!pto.tensor<{16 * loops}x16xf32>"
    lines = [f"pto.kernel @carried_loops(%x: {g}, %out: {o}) {{",
             "  %c0 = arith.constant 0 : index", "  %c1 = arith.constant 1 : index",
             "  %c16 = arith.constant 16 : index"]
    for i in range(loops):
        lines += [f"  %init{i} = pto.full 0.0 {vec} : {t}",
                  f"  %r{i} = pto.loop \"L{i}\" %i{i} = %c0 to %c16 step %c1 "
                  f"iter_args(%acc{i} = %init{i}) -> ({t}) {{",
                  f"    %off{i} = arith.muli %i{i}, %c16 : index",
                  f"    %v{i} = pto.view %x[%off{i}, 0] : {g} -> {t}",
                  f"    %e{i} = pto.exp %v{i} {vec} : {t} -> {t}",
                  f"    %first{i} = pto.is_loop_begin %i{i}",
                  f"    %n{i} = scf.if %first{i} -> ({t}) {{",
                  f"      scf.yield %e{i} : {t}",
                  "    } else {",
                  f"      %s{i} = pto.add %acc{i}, %e{i} {vec} : {t}, {t} -> {t}",
                  f"      scf.yield %s{i} : {t}",
                  "    }",
                  f"    pto.yield %n{i} : {t}",
                  "  }",
                  f"  pto.assemble %r{i}, %out[{16 * i}, 0] : {t}, {o}"]
    lines.append("}")
    return "\n".join(lines) + "\n"
def norm_rows(pieces: int) -> str:
    """engram's linear + rms_norm + gate without the matmul, over
    `pieces` [8, 1024] f32 row pieces (8 x `pieces` rows): the gate over all
    rows joins them into one vector task over UB, which pto-schedule-pieces
    reorders piece by piece, each piece's loads (gamma, the second read of
    its stored row) right before their consumer."""
    rows = 8 * pieces
    t, g = f"!pto.tile<{rows}x1024xf32>", f"!pto.tensor<{rows}x1024xf32>"
    c, v = f"!pto.tile<{rows}x1xf32>", f"!pto.tile<{rows}xf32>"
    b, bt = "!pto.tensor<1x1024xf32>", "!pto.tile<1x1024xf32>"
    row = "{vec_tile = #pto.vec_tile<[16, 1024]>}"
    whole = f"{{vec_tile = #pto.vec_tile<[{rows}]>}}"
    return "\n".join([
        f"pto.kernel @norm_rows(%x: {g}, %bias: {b}, %gamma: {b}, %q: {g}, %key: {g},",
        f"                      %gate: !pto.tensor<{rows}xf32>) {{",
        "  %inv = arith.constant 9.765625e-04 : f32",
        "  %one = arith.constant 1.0 : f32",
        f"  %tx = pto.view %x[0, 0] : {g} -> {t}",
        f"  %tb = pto.view %bias[0, 0] : {b} -> {bt}",
        f"  %k = pto.add %tx, %tb {{vec_tile = #pto.vec_tile<[64, 256]>}} : {t}, {bt} -> {t}",
        f"  pto.assemble %k, %key[0, 0] : {t}, {g}",
        f"  %sq = pto.mul %k, %k {row} : {t}, {t} -> {t}",
        f"  %ms = pto.mul %sq, %inv {row} : {t}, f32 -> {t}",
        f"  %ss = pto.sum %ms dim = 1 keepdim {row} : {t} -> {c}",
        f"  %r = pto.sqrt %ss {row} : {c} -> {c}",
        f"  %n = pto.div %k, %r {{precision = #pto.precision<INTRINSIC>, vec_tile = #pto.vec_tile<[16, 1024]>}} : {t}, {c} -> {t}",
        f"  %tg = pto.view %gamma[0, 0] : {b} -> {bt}",
        f"  %nk = pto.mul %n, %tg {row} : {t}, {bt} -> {t}",
        f"  %tq = pto.view %q[0, 0] : {g} -> {t}",
        f"  %p = pto.mul %nk, %tq {row} : {t}, {t} -> {t}",
        f"  %sc = pto.sum %p dim = 1 {row} : {t} -> {v}",
        f"  %ex = pto.exp %sc {{precision = #pto.precision<INTRINSIC>, vec_tile = #pto.vec_tile<[{rows}]>}} : {v} -> {v}",
        f"  %d = pto.add %ex, %one {whole} : {v}, f32 -> {v}",
        f"  pto.assemble %d, %gate[0] : {v}, !pto.tensor<{rows}xf32>",
        "}", ""])


def mix_leaves(leaves: int) -> str:
    """`leaves` pto_isa MIX leaves on DAV_3510, each a matmul whose two
    accumulators move L0C -> UB and are scaled and stored by the vector part:
    the input of `pto-isa-split-mix` (each leaf becomes an AIC and an AIV
    function joined by intra-block flags)."""
    def tile(space, shape):
        return f"!pto_isa.tile<{space}, {shape}xf32>"
    l1, l0a, l0b = tile("l1", "32x32"), tile("l0a", "16x32"), tile("l0b", "32x32")
    l0c, ub, g = tile("l0c", "16x32"), tile("ub", "16x32"), "!pto.tensor<32x32xf32>"
    lines = ["module attributes {pto.arch = #pto.arch<DAV_3510>} {"]
    for n in range(leaves):
        lines += [f"func.func private @mix{n}(%a: {g}, %y: {g}) attributes "
                  "{pto.leaf = #pto.core<mix>} {",
                  "  %c0 = arith.constant 0 : index", "  %c16 = arith.constant 16 : index",
                  "  %c32 = arith.constant 32 : index", "  %two = arith.constant 2.0 : f32",
                  f"  %l1 = pto_isa.alloc_tile valid [%c32, %c32] at 0 : {l1}",
                  f"  pto_isa.tload %a[%c0, %c0] into %l1 : {g}, {l1}",
                  f"  %la = pto_isa.alloc_tile valid [%c16, %c32] at 0 : {l0a}",
                  f"  pto_isa.textract %l1 into %la : {l1}, {l0a}",
                  f"  %lb = pto_isa.alloc_tile valid [%c32, %c32] at 0 : {l0b}",
                  f"  pto_isa.textract %l1 into %lb : {l1}, {l0b}"]
        for k in range(2):
            lines += [f"  %acc{k} = pto_isa.alloc_tile valid [%c16, %c32] at {2048 * k} : {l0c}",
                      f"  pto_isa.tmatmul %la, %lb into %acc{k} : {l0a}, {l0b}, {l0c}",
                      f"  %u{k} = pto_isa.alloc_tile valid [%c16, %c32] at {2048 * k} : {ub}",
                      f"  pto_isa.tmov %acc{k} into %u{k} : {l0c}, {ub}"]
        for k in range(2):
            lines += [f"  %d{k} = pto_isa.alloc_tile valid [%c16, %c32] at {4096 + 2048 * k} : {ub}",
                      f"  pto_isa.tmuls %u{k}, %two into %d{k} : {ub}, f32, {ub}",
                      f"  pto_isa.tstore %d{k} into %y[%c{16 * k if k else 0}, %c0] : {ub}, {g}"]
        lines += ["  return", "}"]
    lines.append("}")
    return "\n".join(lines) + "\n"


def mix_pieces(pieces: int) -> str:
    """One MIX leaf on DAV_3510 whose matmul result is stored as `pieces`
    16 x 16 pieces of an on-chip exchange, each piece's lower half viewed,
    doubled and stored by the vector part: `pto-lower-to-isa` pairs each
    view with the piece that holds it (pairExchangeViews) and moves it
    L0C -> UB through the ring."""
    rows = 16 * pieces
    ws, y = f"!pto.tensor<{rows}x16xf32>", f"!pto.tensor<{rows // 2}x16xf32>"
    t, h, a = "!pto.tile<16x16xf32>", "!pto.tile<8x16xf32>", "!pto.tensor<16x16xf32>"
    lines = ["module attributes {pto.arch = #pto.arch<DAV_3510>} {",
             f"func.func private @mix_leaf(%a: {a}, %ws: {ws}, %y: {y}) attributes "
             '{pto.leaf = #pto.core<mix>, pto.family = "M1"} {',
             "  %c0 = arith.constant 0 : index", "  %two = arith.constant 2.0 : f32",
             f"  %a0 = pto.view %a[%c0, %c0] : {a} -> {t}",
             f"  %s = pto.matmul %a0, %a0 {{cube_tile = #pto.cube_tile<m = [16, 16], "
             f"k = [16, 16], n = [16, 16]>}} : {t}, {t} -> {t}"]
    for i in range(pieces):
        lines += [f"  %r{i} = arith.constant {16 * i} : index",
                  f"  %h{i} = arith.constant {16 * i + 8} : index",
                  f"  %o{i} = arith.constant {8 * i} : index",
                  f"  pto.assemble %s, %ws [%r{i}, %c0] : {t}, {ws}",
                  f"  %v{i} = pto.view %ws[%h{i}, %c0] : {ws} -> {h}",
                  f"  %d{i} = pto.mul %v{i}, %two : {h}, f32 -> {h}",
                  f"  pto.assemble %d{i}, %y [%o{i}, %c0] : {h}, {y}"]
    lines += ["  return", "}",
              f"func.func private @mix_root(%a: {a}, %y: {y}) attributes {{pto.root}} {{",
              f"  %ws = pto.workspace {{pto.on_chip}} : {ws}",
              f"  %t = pto.launch @mix_leaf(%a, %ws, %y) : ({a}, {ws}, {y}) -> !pto.token",
              "  return", "}", "}"]
    return "\n".join(lines) + "\n"


def sync_chain(groups: int) -> str:
    """One pto_isa function of `groups` x (tload a row block of GM into one
    of four UB input buffers, texp into one of four output buffers, tabs in
    place, tstore to the row block): 4 instructions per group, each buffer
    reused every fourth group (RAW, WAR and WAW flags between MTE2, V and
    MTE3), every row block a GM window of its own: the input of
    `pto-isa-insert-sync`, as a straight-line leaf of that many pieces is."""
    t = "!pto_isa.tile<ub, 16x64xf32>"
    g = f"!pto.tensor<{16 * groups}x64xf32>"
    lines = [f"func.func @sync_chain(%g: {g}, %o: {g}) {{",
             "  %c0 = arith.constant 0 : index", "  %c16 = arith.constant 16 : index",
             "  %c64 = arith.constant 64 : index"]
    for k in range(4):
        lines.append(f"  %a{k} = pto_isa.alloc_tile valid [%c16, %c64] at {4096 * k} : {t}")
        lines.append(f"  %b{k} = pto_isa.alloc_tile valid [%c16, %c64] at "
                     f"{16384 + 4096 * k} : {t}")
    for i in range(groups):
        k = i % 4
        lines += [f"  %r{i} = arith.constant {16 * i} : index",
                  f"  pto_isa.tload %g[%r{i}, %c0] into %a{k} : {g}, {t}",
                  f"  pto_isa.texp %a{k} into %b{k} : {t}, {t}",
                  f"  pto_isa.tabs %b{k} into %b{k} : {t}, {t}",
                  f"  pto_isa.tstore %b{k} into %o[%r{i}, %c0] : {t}, {g}"]
    lines += ["  return", "}"]
    return "\n".join(lines) + "\n"


def workspace_rounds(rounds: int) -> str:
    """`rounds` x (view one of four row blocks of a workspace, exp, store into
    the next block): many stores into and reads of the same regions of one
    workspace, each region overwritten every fourth round (pto-partition's
    read-after-write, write-after-read and write-after-write edges)."""
    t, w = "!pto.tile<16x16xf32>", "!pto.tensor<64x16xf32>"
    g = "!pto.tensor<16x16xf32>"
    vec = "{vec_tile = #pto.vec_tile<[16, 16]>}"
    lines = [f"pto.kernel @workspace_rounds(%x: {g}, %out: {g}) {{",
             f"  %ws = pto.workspace : {w}",
             f"  %x0 = pto.view %x[0, 0] : {g} -> {t}",
             f"  pto.assemble %x0, %ws[0, 0] : {t}, {w}"]
    for i in range(rounds):
        lines += [f"  %v{i} = pto.view %ws[{16 * (i % 4)}, 0] : {w} -> {t}",
                  f"  %e{i} = pto.exp %v{i} {vec} : {t} -> {t}",
                  f"  pto.assemble %e{i}, %ws[{16 * ((i + 1) % 4)}, 0] : {t}, {w}"]
    lines += [f"  %l = pto.view %ws[{16 * (rounds % 4)}, 0] : {w} -> {t}",
              f"  pto.assemble %l, %out[0, 0] : {t}, {g}", "}"]
    return "\n".join(lines) + "\n"


def scatter_kernels(kernels: int) -> str:
    """`kernels` small kernels in one module, each scattering a row block into
    its target at indexed rows (`pto.index_put` accumulate, an MSCATTER in the
    C++), compiled by `pto-opt --pto-ascend-pipeline`: the input of
    `pto-translate --pto-to-cpp`, which names each scatter's target by the
    tensor its call sites pass (module-level: the launches and root calls of
    every kernel)."""
    t, idx = "!pto.tile<8x16xf32>", "!pto.tile<8xi32>"
    vec = "{vec_tile = #pto.vec_tile<[8, 16]>}"
    lines = []
    for k in range(kernels):
        lines += [f"pto.kernel @scatter_{k}(%target: !pto.tensor<64x16xf32>, "
                  "%rows: !pto.tensor<8xi32>, %upd: !pto.tensor<8x16xf32>) {",
                  f"  %r = pto.view %rows[0] : !pto.tensor<8xi32> -> {idx}",
                  f"  %u = pto.view %upd[0, 0] : !pto.tensor<8x16xf32> -> {t}",
                  f"  %e = pto.exp %u {vec} : {t} -> {t}",
                  f"  pto.index_put %e, %target[%r] [0, 0] accumulate {vec} : "
                  f"{t}, {idx}, !pto.tensor<64x16xf32>", "}"]
    r = subprocess.run([str(tool("pto-opt")), "-", "--pto-ascend-pipeline"],
                       input="\n".join(lines) + "\n", capture_output=True, text=True)
    if r.returncode:
        raise SystemExit(f"pto-opt --pto-ascend-pipeline failed:\n{r.stderr[-3000:]}")
    return r.stdout


def region_launches(launches: int) -> str:
    """A launch graph (docs/CostModel.md, "Launch graphs") of `launches`
    vector launches of as many root instances, 1024 per stitch (one device
    task each, submitted at once), each reading its own 16-row block of `x`
    and writing its block of `y`; every fourth also writes the two blocks
    before its own (overlapping regions): the readiness check of the
    scheduler compares a launch with the unfinished launches of other
    instances on the same tensor."""
    rows = 16 * launches
    out = []
    for i in range(launches):
        lo = 16 * i if i % 4 else 16 * max(0, i - 2)
        out.append({"name": "piece", "pool": "vector", "instance": i, "stitch": i // 1024,
                    "reads": [{"tensor": "x", "bytes": 262144, "region": {
                        "shape": [rows, 64], "lo": [16 * i, 0], "hi": [16 * i + 16, 64]}}],
                    "writes": [{"tensor": "y", "bytes": 4096, "region": {
                        "shape": [rows, 64], "lo": [lo, 0], "hi": [16 * i + 16, 64]}}],
                    "vector_elements": 1024})
    return json.dumps({"tensors": {"x": rows * 256, "y": rows * 256}, "launches": out})


@dataclass
class Case:
    name: str
    unit: str
    base: int  # units at x1
    emit: Callable[[int], str]
    args: tuple[str, ...]
    failing: bool = False  # the command reports errors (exit code 1) by design
    tool: str = "pto-opt"  # pto-run, pto-translate: no pass timing, the process alone
    suffix: str = ".mlir"


PIPELINE = ("--pto-tile-graph-pipeline",)
CASES = [
    Case("big-tile", "piece", 8192, big_tile, PIPELINE),
    Case("atomics", "pair", 625, atomics, PIPELINE),
    Case("exp-chain", "op", 1250, exp_chain, PIPELINE),
    Case("wide-leaf", "piece", 32768, wide_leaf, PIPELINE),
    Case("dynamic-atomics", "pair", 625, dynamic_atomics, PIPELINE),
    Case("loop-runs", "run", 250, loop_runs, PIPELINE),
    # pto-unroll-carried-loops alone: 8 copies of each carried loop's body.
    Case("carried-loops", "loop", 500, carried_loops,
         ("-pto-unroll-carried-loops=factors=8",)),
    Case("norm-rows", "row piece", 64, norm_rows, PIPELINE),
    # The same chain to pto_isa: lowering, memory planning, sync insertion.
    Case("exp-chain-isa", "op", 625, exp_chain, ("--pto-ascend-pipeline",)),
    # pto-isa-split-mix alone (off by default: only mix-exchange makes MIX leaves).
    Case("mix-leaves", "function", 250, mix_leaves, ("--pto-isa-split-mix",)),
    # pto-lower-to-isa alone on one MIX leaf: each exchange view paired with
    # its stored piece (a grid of the pieces), then moved L0C -> UB.
    Case("mix-pieces", "piece", 500, mix_pieces, ("--pto-lower-to-isa",)),
    Case("lint-untiled-chain", "op", 1250, lambda n: exp_chain(n, vec_tile=False),
         ("--pto-lint",), failing=True),
    # pto-isa-insert-sync alone on one long straight-line function.
    Case("insert-sync", "group", 1000, sync_chain, ("--pto-isa-insert-sync",)),
    Case("workspace-rounds", "round", 250, workspace_rounds, PIPELINE),
    # The cost model's scheduler alone on a launch graph (what a
    # `pto-run --simulate --no-numerics` run records and then schedules).
    Case("region-readiness", "launch", 2000, region_launches,
         ("--sim-graph", "--simulate=a3"), tool="pto-run", suffix=".json"),
    # pto-translate alone on many compiled kernels in one module.
    Case("scatter-kernels", "kernel", 250, scatter_kernels, ("--pto-to-cpp",),
         tool="pto-translate"),
]

# One wall-time column, or (when nested passes ran on several threads) a
# User column before it: the wall time is the last number. Names as printed
# ("'func.func' Pipeline"); a pass that runs in two places (CSE on functions
# and on kernels, pto-isa-insert-sync nested and on the module in
# --pto-ascend-pipeline) is summed.
TIMING = re.compile(r"^\s+(?:[\d.]+ \(\s*[\d.]+%\)\s+)?([\d.]+) \(\s*[\d.]+%\)\s+"
                    r"([^\d\s].*?)\s*$", re.M)


def run_timed(path: Path, case: Case, repeat: int) -> tuple[dict, float]:
    """-mlir-timing entries (seconds) and process CPU seconds of the run with
    the least time in passes, of `repeat` runs."""
    best, best_cpu = None, 0.0
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        timing = ["-mlir-timing", "-o", "/dev/null"] if case.tool == "pto-opt" else []
        started = time.perf_counter()
        r = subprocess.run([str(tool(case.tool)), str(path), *case.args, *timing],
                           capture_output=True, text=True)
        elapsed = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if r.returncode not in ((0, 1) if case.failing else (0,)) or (
                timing and "Total" not in r.stderr):
            raise SystemExit(f"{case.tool} {' '.join(case.args)} on {path} failed "
                             f"({r.returncode}):\n{r.stderr[-3000:]}")
        if timing:
            wall = {}
            for t, name in TIMING.findall(r.stderr):
                wall[name] = wall.get(name, 0.0) + float(t)
            wall["passes"] = wall["Total"] - wall.get("Parser", 0) - wall.get("Output", 0)
        else:  # no pass manager: the process's wall time stands for it
            wall = {"passes": elapsed}
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        if best is None or wall["passes"] < best["passes"]:
            best, best_cpu = wall, cpu
    return best, best_cpu


class PlainReport:
    """The subset of benchmarks/run's Report used here, printing only."""

    def heading(self, text: str):
        print(f"\n== {text} ==")

    def text(self, text: str):
        print(text)

    def table(self, header: list[str], rows: list[list]):
        cells = [[str(c) for c in row] for row in rows]
        widths = [max(len(h), *(len(r[i]) for r in cells)) if cells else len(h)
                  for i, h in enumerate(header)]
        print("  ".join(h.rjust(w) for h, w in zip(header, widths)))
        for r in cells:
            print("  ".join(c.rjust(w) for c, w in zip(r, widths)))


def scaling(rep, quick: bool, sizes: list[int] | None = None,
            only: list[str] | None = None) -> dict:
    """Runs every case at `sizes`; returns {case: {entry: ratio}}."""
    sizes = sizes or ([1, 2] if quick else [1, 2, 4, 8])
    repeat = 1 if quick else 2
    rep.heading("Compile time in the size of one kernel: time per unit at x"
                + ", x".join(map(str, sizes)))
    rep.text(f"Generated kernels (benchmarks/scaling.py); time per unit in µs; best of "
             f"{repeat} run{'s' if repeat > 1 else ''} by time in passes. Per pass "
             "(`-mlir-timing` wall), in passes (Total - Parser - Output) and the whole "
             "process's CPU time (user + system, parsing and printing included). "
             f"*ratio*: largest size over smallest, *flat* when <= {FLAT} (passes below "
             "2 % of the time in passes at the largest size are not judged).")
    ratios = {}
    with tempfile.TemporaryDirectory() as tmp:
        for case in CASES:
            if only and case.name not in only:
                continue
            base = max(16, case.base // 16) if quick else case.base
            units = [base * s for s in sizes]
            results = []
            for n in units:
                path = Path(tmp) / f"{case.name}_{n}{case.suffix}"
                path.write_text(case.emit(n))
                started = time.perf_counter()
                wall, cpu = run_timed(path, case, repeat)
                results.append((wall, cpu, time.perf_counter() - started))
            names = [n for n in results[-1][0]
                     if n not in ("Total", "Parser", "Output", "Rest", "passes")]
            last_passes = results[-1][0]["passes"]
            rows, ratios[case.name] = [], {}

            def row(label, per_unit, judged):
                ratio = per_unit[-1] / per_unit[0] if per_unit[0] > 0 else float("inf")
                verdict = "-"
                if judged:
                    verdict = "flat" if ratio <= FLAT else "GROWS"
                    ratios[case.name][label] = ratio
                rows.append([label] + [f"{v * 1e6:.2f}" for v in per_unit]
                            + [f"{ratio:.2f}" if per_unit[0] > 0 else "-", verdict])

            for name in names:
                per_unit = [r[0].get(name, 0.0) / n for r, n in zip(results, units)]
                row(name, per_unit, results[-1][0].get(name, 0.0) >= 0.02 * last_passes)
            row("in passes" if case.tool == "pto-opt" else "process wall",
                [r[0]["passes"] / n for r, n in zip(results, units)], True)
            row("process CPU", [r[1] / n for r, n in zip(results, units)], True)
            plural = "es" if case.unit.endswith("ch") else "s"
            rep.text(f"**{case.name}** (`{case.tool} {' '.join(case.args)}`): "
                     + ", ".join(f"x{s} = {n} {case.unit}{plural}"
                                 for s, n in zip(sizes, units))
                     + f"; {sum(r[2] for r in results):.1f} s wall for all sizes.")
            rep.table(["entry"] + [f"x{s} µs/{case.unit}" for s in sizes]
                      + [f"x{sizes[-1]} / x{sizes[0]}", "verdict"], rows)
    return ratios


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="1/16 of the sizes, x1 and x2")
    p.add_argument("--sizes", type=int, nargs="*", help="multiples of the base size")
    p.add_argument("--only", nargs="*", choices=[c.name for c in CASES])
    a = p.parse_args()
    scaling(PlainReport(), a.quick, a.sizes, a.only)
    return 0


if __name__ == "__main__":
    sys.exit(main())
