"""pto-outline and pto-plan-stitch, executed: pto-run before and after each pass.

Hand-written partitioned kernels (docs/TileGraph.md, "After pto-partition")
run through pto-run as written, after ``pto-outline`` (leaves, roots,
launches in program order) and after ``pto-plan-stitch`` (root instances
buffered and their launches run round-robin across instances: a different
valid order). Inputs are small integers, so every sum is exact and the
outputs must be bitwise equal whatever the order of the atomic adds; a
missing dependency (within an instance: a launch token; across instances: a
GM conflict) shows up as a difference.

SK-16 runs the same way after ``pto-flatten-scopes, pto-expand-tiles,
pto-partition`` once those passes are registered.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from pto_mlir.golden import load_tensor, save_tensor
from pto_mlir.tools import run_tool

# Two C1 tasks (not isomorphic: b_trans), two isomorphic V1 tasks, a
# kernel-level task writing a workspace that the loop's tasks read (so it
# stays in the control program), and a tail tile (rows not a multiple of 16).
TG_KERNEL = """
pto.kernel @tg(%x: !pto.tensor<?x32xbf16>, %w: !pto.tensor<32x32xbf16>,
               %y: !pto.tensor<?x32xf32>, %z: !pto.tensor<?x32xf32>) attributes {RUNTIME} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %rows = pto.dim %x, 0 : !pto.tensor<?x32xbf16>
  %tiles = arith.ceildivsi %rows, %c16 : index
  %wsf = pto.workspace : !pto.tensor<32x32xf32>
  pto.task #pto.core<vector> "V0" {
    %wv = pto.view %w[%c0, %c0] : !pto.tensor<32x32xbf16> -> !pto.tile<32x32xbf16>
    %wf = pto.cast %wv {vec_tile = #pto.vec_tile<[32, 32]>} : !pto.tile<32x32xbf16> -> !pto.tile<32x32xf32>
    pto.assemble %wf, %wsf[0, 0] : !pto.tile<32x32xf32>, !pto.tensor<32x32xf32>
  }
  pto.loop "L_main" %i = %c0 to %tiles step %c1 {
    %off = arith.muli %i, %c16 : index
    %rest = arith.subi %rows, %off : index
    %valid = arith.minsi %rest, %c16 : index
    %ws0 = pto.workspace : !pto.tensor<16x32xf32>
    %ws1 = pto.workspace : !pto.tensor<16x32xf32>
    pto.task #pto.core<cube> "C1" {
      %xa = pto.view %x[%off, %c0] valid [%valid, 32] : !pto.tensor<?x32xbf16> -> !pto.tile<16x32xbf16>
      %wt = pto.view %w[%c0, %c0] : !pto.tensor<32x32xbf16> -> !pto.tile<32x32xbf16>
      %s = pto.matmul %xa, %wt {cube_tile = #pto.cube_tile<m = [16, 16], k = [32, 32], n = [32, 32]>} : !pto.tile<16x32xbf16>, !pto.tile<32x32xbf16> -> !pto.tile<16x32xf32>
      pto.assemble %s, %ws0[0, 0] : !pto.tile<16x32xf32>, !pto.tensor<16x32xf32>
    }
    pto.task #pto.core<cube> "C1" {
      %xa = pto.view %x[%off, %c0] valid [%valid, 32] : !pto.tensor<?x32xbf16> -> !pto.tile<16x32xbf16>
      %wt = pto.view %w[%c0, %c0] : !pto.tensor<32x32xbf16> -> !pto.tile<32x32xbf16>
      %s = pto.matmul %xa, %wt {b_trans, cube_tile = #pto.cube_tile<m = [16, 16], k = [32, 32], n = [32, 32]>} : !pto.tile<16x32xbf16>, !pto.tile<32x32xbf16> -> !pto.tile<16x32xf32>
      pto.assemble %s, %ws1[0, 0] : !pto.tile<16x32xf32>, !pto.tensor<16x32xf32>
    }
    pto.task #pto.core<vector> "V1" {
      %a = pto.view %ws0[0, 0] valid [%valid, 32] : !pto.tensor<16x32xf32> -> !pto.tile<16x32xf32>
      %b = pto.view %wsf[0, 0] valid [%valid, 32] : !pto.tensor<32x32xf32> -> !pto.tile<16x32xf32>
      %c = pto.add %a, %b {vec_tile = #pto.vec_tile<[16, 32]>} : !pto.tile<16x32xf32>, !pto.tile<16x32xf32> -> !pto.tile<16x32xf32>
      pto.atomic_add %c, %y[%off, %c0] : !pto.tile<16x32xf32>, !pto.tensor<?x32xf32>
    }
    pto.task #pto.core<vector> "V1" {
      %a = pto.view %ws1[0, 0] valid [%valid, 32] : !pto.tensor<16x32xf32> -> !pto.tile<16x32xf32>
      %b = pto.view %wsf[0, 0] valid [%valid, 32] : !pto.tensor<32x32xf32> -> !pto.tile<16x32xf32>
      %c = pto.add %a, %b {vec_tile = #pto.vec_tile<[16, 32]>} : !pto.tile<16x32xf32>, !pto.tile<16x32xf32> -> !pto.tile<16x32xf32>
      pto.atomic_add %c, %z[%off, %c0] : !pto.tile<16x32xf32>, !pto.tensor<?x32xf32>
    }
  }
}
"""

# A loop-carried dependency through GM: y[i] = y[i-1] + x[i] (row blocks of
# 8), through a per-instance workspace, so instance i+1 must wait for
# instance i's write of y; next to two independent atomic tasks per instance
# that a stitch may run early. The row offsets are dynamic, so outline's
# dependencies are conservative (same tensor => ordered).
SCAN_KERNEL = """
pto.kernel @scan(%x: !pto.tensor<?x32xf32>, %y: !pto.tensor<?x32xf32>,
                 %z: !pto.tensor<?x32xf32>) attributes {RUNTIME} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %two = arith.constant 2.0 : f32
  %rows = pto.dim %x, 0 : !pto.tensor<?x32xf32>
  %n = arith.divsi %rows, %c8 : index
  pto.loop "L_scan" %i = %c1 to %n step %c1 {
    %im1 = arith.subi %i, %c1 : index
    %prev = arith.muli %im1, %c8 : index
    %cur = arith.muli %i, %c8 : index
    %ws = pto.workspace : !pto.tensor<8x32xf32>
    pto.task #pto.core<vector> "V1" {
      %a = pto.view %y[%prev, %c0] : !pto.tensor<?x32xf32> -> !pto.tile<8x32xf32>
      %b = pto.view %x[%cur, %c0] : !pto.tensor<?x32xf32> -> !pto.tile<8x32xf32>
      %s = pto.add %a, %b {vec_tile = #pto.vec_tile<[8, 32]>} : !pto.tile<8x32xf32>, !pto.tile<8x32xf32> -> !pto.tile<8x32xf32>
      pto.assemble %s, %ws[0, 0] : !pto.tile<8x32xf32>, !pto.tensor<8x32xf32>
    }
    pto.task #pto.core<vector> "V2" {
      %a = pto.view %ws[0, 0] : !pto.tensor<8x32xf32> -> !pto.tile<8x32xf32>
      pto.assemble %a, %y[%cur, %c0] : !pto.tile<8x32xf32>, !pto.tensor<?x32xf32>
    }
    pto.task #pto.core<vector> "V3" {
      %b = pto.view %x[%cur, %c0] : !pto.tensor<?x32xf32> -> !pto.tile<8x32xf32>
      %m = pto.mul %b, %two {vec_tile = #pto.vec_tile<[8, 32]>} : !pto.tile<8x32xf32>, f32 -> !pto.tile<8x32xf32>
      pto.atomic_add %m, %z[%prev, %c0] : !pto.tile<8x32xf32>, !pto.tensor<?x32xf32>
    }
    pto.task #pto.core<vector> "V3" {
      %b = pto.view %x[%prev, %c0] : !pto.tensor<?x32xf32> -> !pto.tile<8x32xf32>
      %m = pto.mul %b, %two {vec_tile = #pto.vec_tile<[8, 32]>} : !pto.tile<8x32xf32>, f32 -> !pto.tile<8x32xf32>
      pto.atomic_add %m, %z[%cur, %c0] : !pto.tile<8x32xf32>, !pto.tensor<?x32xf32>
    }
  }
}
"""

STATS = re.compile(r"(\d+) root instances in (\d+) stitches, (\d+) launches, (\d+) out of sequential order")
PLAN = re.compile(r"pto\.root_call @(\w+)\(.*stitch = #pto\.stitch_plan<depth = (\d+), "
                  r"workspace_bytes = (\d+), launches = (\d+), mode = \"(\w+)\">")


def small_ints(rng, shape, low=-3, high=3):
    return rng.integers(low, high + 1, size=shape).astype(np.float32)


def tg_inputs(rng, rows=100):
    return {"x": (small_ints(rng, (rows, 32)), "bf16"), "w": (small_ints(rng, (32, 32)), "bf16"),
            "y": (np.zeros((rows, 32), np.float32), "fp32"),
            "z": (small_ints(rng, (rows, 32)), "fp32")}


def scan_inputs(rng, blocks=12):
    rows = 8 * blocks
    return {"x": (small_ints(rng, (rows, 32)), "fp32"), "y": (small_ints(rng, (rows, 32)), "fp32"),
            "z": (np.zeros((rows, 32), np.float32), "fp32")}


KERNELS = {"tg": (TG_KERNEL, tg_inputs, ("y", "z")), "scan": (SCAN_KERNEL, scan_inputs, ("y", "z"))}


def opt(src: Path, dst: Path, *passes) -> str:
    result = run_tool("pto-opt", src, *passes, "-o", dst)
    assert result.returncode == 0, result.stderr
    return dst.read_text()


def run(kernel: Path, inputs: dict, outputs, directory: Path):
    directory.mkdir(parents=True, exist_ok=True)
    args = []
    for name, (array, dtype) in inputs.items():
        path = directory / f"in_{name}.npy"
        save_tensor(path, array, dtype)
        args += ["--input", f"{name}={path}"]
    for name in outputs:
        args += ["--output", f"{name}={directory / (name + '.npy')}"]
    result = run_tool("pto-run", kernel, *args, "--run-stats")
    assert result.returncode == 0, result.stderr
    return {name: load_tensor(directory / f"{name}.npy") for name in outputs}, result.stderr


def stages(tmp_path: Path, text: str):
    """The kernel as written, outlined, and with a stitch plan."""
    partitioned = tmp_path / "partitioned.mlir"
    partitioned.write_text(text)
    outlined = tmp_path / "outlined.mlir"
    opt(partitioned, outlined, "--pto-outline")
    stitched = tmp_path / "stitched.mlir"
    opt(outlined, stitched, "--pto-plan-stitch")
    return partitioned, outlined, stitched


def assert_equal(expected: dict, actual: dict, what: str):
    for name in expected:
        assert np.array_equal(expected[name], actual[name]), (
            f"{what}: output {name} differs (max |diff| "
            f"{np.abs(expected[name] - actual[name]).max()})")


RUNTIME_OPTIONS = {
    "default": "",  # count mode, depth 128: every instance in one stitch
    "count3": "runtime_options = #pto.runtime_options<stitch_function_max_num = 3>",
    # memory mode: tg needs 64 KiB per instance next to 32 KiB shared -> depth 4
    "memory": "runtime_options = #pto.runtime_options<max_workspace_kb = 300>",
}


@pytest.mark.parametrize("options", sorted(RUNTIME_OPTIONS))
@pytest.mark.parametrize("kernel", sorted(KERNELS))
def test_outline_and_stitch_preserve_outputs(kernel, options, tmp_path):
    text, make_inputs, outputs = KERNELS[kernel]
    text = text.replace("attributes {RUNTIME}", f"attributes {{{RUNTIME_OPTIONS[options]}}}"
                        if RUNTIME_OPTIONS[options] else "")
    inputs = make_inputs(np.random.default_rng(11))
    partitioned, outlined, stitched = stages(tmp_path, text)

    reference, _ = run(partitioned, inputs, outputs, tmp_path / "partitioned")
    out, stats = run(outlined, inputs, outputs, tmp_path / "outlined")
    assert_equal(reference, out, "after pto-outline")
    assert not STATS.search(stats), "no stitch plan yet: roots run one by one"

    out, stats = run(stitched, inputs, outputs, tmp_path / "stitched")
    assert_equal(reference, out, "after pto-plan-stitch (stitched order)")
    instances, stitches, launches, reordered = map(int, STATS.search(stats).groups())
    plans = {m.group(1): (int(m.group(2)), m.group(5)) for m in PLAN.finditer(stitched.read_text())}
    loop_root = f"{kernel}_root_L_{'main' if kernel == 'tg' else 'scan'}"
    depth, mode = plans[loop_root]
    assert mode == ("memory" if options == "memory" else "count")
    expected_depth = {"default": 128, "count3": 3, "memory": 4 if kernel == "tg" else 9}[options]
    assert depth == expected_depth
    # Buffered instances flush when the smallest depth among them is reached.
    expected_instances = 1 + 7 if kernel == "tg" else 11
    assert instances == expected_instances
    assert stitches == -(-expected_instances // depth)
    assert reordered > 0, "the stitched order must differ from the sequential one"


def test_outline_is_deterministic(tmp_path):
    src = tmp_path / "k.mlir"
    src.write_text(TG_KERNEL.replace("attributes {RUNTIME}", "") + SCAN_KERNEL.replace(
        "attributes {RUNTIME}", ""))
    first = opt(src, tmp_path / "a.mlir", "--pto-outline")
    second = opt(src, tmp_path / "b.mlir", "--pto-outline")
    assert first == second
    # Outlined IR has no tasks left: a second outline changes nothing.
    assert opt(tmp_path / "a.mlir", tmp_path / "c.mlir", "--pto-outline") == first
    # 5 tasks -> 4 leaves (the V1 pair shares one); scan: 4 tasks -> 3 leaves.
    assert len(re.findall(r"func\.func private @tg_leaf_", first)) == 4
    assert len(re.findall(r"func\.func private @scan_leaf_", first)) == 3
    assert "pto.task" not in first


def test_stitched_run_reports_stitches(tmp_path):
    """pto-run's --run-stats line for stitched execution."""
    text = SCAN_KERNEL.replace("attributes {RUNTIME}", "attributes {runtime_options = "
                               "#pto.runtime_options<stitch_function_max_num = 4>}")
    _, _, stitched = stages(tmp_path, text)
    _, stats = run(stitched, scan_inputs(np.random.default_rng(1)), ("y", "z"), tmp_path / "run")
    # 11 instances of 4 launches: stitches of 4, 4 and 3 instances.
    assert "11 root instances in 3 stitches, 44 launches" in stats


SK16_CASE = dict(q_seqlens=[200, 70], kv_seqlens=[150, 230], N=2, D=32)
SK16_TILES = dict(s1_tile=96, s2_tile=112, c_tile=(64, 128, 64, 128, 64, 128),
                  v_tile_s=(32, 128), v_tile_d=(32, 128))


@pytest.mark.parametrize("options", ["generated", "count5", "hoisted"])
def test_sk16_through_outline_and_stitch(options, tmp_path):
    """SK-16 (small tiles: multi-tile loops, tails) through the tile-graph
    passes; outline and stitch must not change a bit of dq, dk, dv.

    `generated`: SK-16's own options (max_workspace_kb: memory mode, one
    stitch of every instance); `count5`: stitch_function_max_num = 5 and no
    max_workspace_kb (count mode, several stitches, the last one partial);
    `hoisted`: with pto-hoist-invariants and pto-l1-reuse, so that Dvec is
    computed by a root of the s1 loop into a workspace of the control program
    that the s2 loop's root instances read (stitched together with them)."""
    from pto_mlir import sk16_ir
    from pto_mlir.golden import sk16

    case = sk16.Sk16Case("tile_graph", SK16_CASE["q_seqlens"], SK16_CASE["kv_seqlens"],
                         SK16_CASE["N"], SK16_CASE["D"])
    source = sk16_ir.emit(sk16_ir.Sk16Config(heads=case.N, head_dim=case.D, **SK16_TILES))
    if options == "count5":
        source, n1 = re.subn(r"stitch_function_max_num = \d+", "stitch_function_max_num = 5", source)
        source, n2 = re.subn(r",\s*max_workspace_kb = \d+", "", source)
        assert n1 == n2 == 1, "the generated SK-16 options changed: update this test"
    program = tmp_path / "sk16.mlir"
    program.write_text(source)
    partitioned = tmp_path / "partitioned.mlir"
    passes = ["--pto-flatten-scopes", "--pto-expand-tiles", "--pto-partition"]
    if options == "hoisted":
        passes = ["--pto-flatten-scopes", "--pto-hoist-invariants", "--pto-expand-tiles",
                  "--pto-partition", "--pto-l1-reuse"]
    opt(program, partitioned, *passes)
    outlined = tmp_path / "outlined.mlir"
    text = opt(partitioned, outlined, "--pto-outline")
    assert "pto.task" not in text and "pto.root_call" in text
    stitched = tmp_path / "stitched.mlir"
    text = opt(outlined, stitched, "--pto-plan-stitch")
    plans = {m.group(1): m.groups()[1:] for m in PLAN.finditer(text)}
    root = "sk16_attention_backward_root_LOOP_s2_dq"
    depth, _, _, mode = plans[root]
    assert (mode, int(depth)) == (("count", 5) if options == "count5" else ("memory", 1024))
    if options == "hoisted":
        # The s1 root writes Dvec into a control-program workspace: none of its own.
        assert plans["sk16_attention_backward_root_LOOP_s1_dq"][1] == "0"
        assert re.search(r"pto\.loop \"LOOP_s1_dq\"", text)
    # actual_q / actual_kv are ready on the host: their 4 reads are marked.
    assert len(re.findall(r"pto\.read %actual_(q|kv)\[[^]]*\] \{pto\.host_ready\}", text)) == 4

    inputs = sk16.make_inputs(case, seed=5)
    typed = {name: (inputs[name], sk16.DTYPES[name]) for name in sk16.INPUT_NAMES}
    outputs = sk16.OUTPUT_NAMES
    reference, _ = run(partitioned, typed, outputs, tmp_path / "partitioned")
    out, _ = run(outlined, typed, outputs, tmp_path / "outlined")
    assert_equal(reference, out, "SK-16 after pto-outline")
    out, stats = run(stitched, typed, outputs, tmp_path / "stitched")
    instances, stitches, launches, reordered = map(int, STATS.search(stats).groups())
    assert stitches == -(-instances // int(depth)) and reordered > 0
    # Within a stitch the instances are independent and alike, so the
    # round-robin issues each launch index across the instances in instance
    # order: every element's atomic adds keep their order, hence every bit.
    assert_equal(reference, out, "SK-16 after pto-plan-stitch (stitched order)")
    gold = sk16.golden_backward(inputs, case.N, case.D)
    for name in outputs:
        sk16.assert_close(out[name].reshape(gold[name].shape), gold[name], name)
