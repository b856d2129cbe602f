#!/usr/bin/env python3
"""What the tile-graph passes make of SK-16 (A3 config), in numbers.

Compiles SK-16 (N = 8, D = 128, the A3 tile constants) through
`--pto-tile-graph-pipeline` with each optimisation on and off, and prints the
`pto-report` numbers per (s1, s2) block pair and for the A3 validation shape
(1 x 8 x 4096 x 4096 x 128: 32 full block pairs), next to the single-pass
minimum traffic derived in benchmarks/README.md. Also prints the pass
statistics (tasks per family, leaves, L1 bytes).

    /usr/bin/python3 benchmarks/sk16_tile_graph.py
"""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

from pto_mlir import sk16_ir  # noqa: E402
from pto_mlir.tools import run_tool  # noqa: E402

MIB = 1024 * 1024
BLOCK_PAIRS_A3_SHAPE = 1 * 8 * 2 * 2  # B x N x ceil(4096/2048)^2


def minimum_traffic(T1=2048, T2=2048, D=128):
    """Single-pass minimum GM traffic of one block pair (README.md)."""
    reads = (3 * T1 + 2 * T2) * D * 2 + 2 * T1 * 4   # q, o, dO, k, v (bf16), m, l
    writes = (T1 + 2 * T2) * D * 4                    # dQ, dK, dV atomics (fp32)
    return reads, writes


def report(kernel: Path, options: str) -> dict:
    pipeline = f"--pto-tile-graph-pipeline={options}" if options else "--pto-tile-graph-pipeline"
    r = run_tool("pto-opt", kernel, pipeline, "--pto-report", "-mlir-pass-statistics",
                 "-o", "/dev/null")
    if r.returncode != 0:
        raise SystemExit(r.stderr[-3000:])
    text = r.stdout + r.stderr
    s2 = text.split("root @sk16_attention_backward_root_LOOP_s2_dq")[1]
    nums = lambda pat: [float(x) for x in re.findall(pat, s2)]
    traffic = re.search(r"kernel tensors read ([\d.]+) MiB, written ([\d.]+) MiB; workspace "
                        r"written ([\d.]+) MiB, read ([\d.]+) MiB", s2).groups()
    return {
        "launches": re.search(r": (\d+) launches \(([^)]*)\)", s2).group(0),
        "workspace": nums(r"workspace per instance: \d+ tensors, ([\d.]+) MiB")[0],
        "stitch": re.search(r"stitch: depth (\d+) \((\w+) mode\)", s2).groups(),
        "kernel_read": float(traffic[0]), "kernel_write": float(traffic[1]),
        "ws_write": float(traffic[2]), "ws_read": float(traffic[3]),
        "l1": nums(r"GM->L1 copy-in per instance: ([\d.]+) MiB")[0],
        "qk": nums(r"Q·Kᵀ products per block pair: ([\d.]+)")[0],
        "leaves": re.search(r"leaves: (\d+) for (\d+) launches", text).groups(),
        "stats": {k: int(v) for v, k in re.findall(r"\(S\)\s+(\d+) ([\w-]+)", text)},
    }


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        kernel = Path(tmp) / "sk16.mlir"
        kernel.write_text(sk16_ir.emit(sk16_ir.Sk16Config()))
        variants = {
            "full pipeline": "",
            "no L1 reuse": "l1-reuse=false",
            "no hoisting": "hoist=false",
        }
        results = {name: report(kernel, opts) for name, opts in variants.items()}

    reads, writes = minimum_traffic()
    print("SK-16, A3 tiles (s1 = s2 = 2048, D = 128), per (s1, s2) block pair")
    print(f"  single-pass minimum GM traffic: read {reads / MIB:.2f} MiB, "
          f"write {writes / MIB:.2f} MiB (benchmarks/README.md)")
    header = f"  {'variant':15s} {'Q·Kᵀ':>5s} {'GM read':>9s} {'GM write':>9s} {'ws write':>9s} " \
             f"{'ws read':>9s} {'GM->L1':>9s} {'ws/inst':>8s} {'stitch':>12s}  launches"
    print(header)
    for name, r in results.items():
        print(f"  {name:15s} {r['qk']:5.2f} {r['kernel_read']:8.2f}M {r['kernel_write']:8.2f}M "
              f"{r['ws_write']:8.2f}M {r['ws_read']:8.2f}M {r['l1']:8.2f}M {r['workspace']:7.2f}M "
              f"{r['stitch'][0]:>5s} {r['stitch'][1]:6s}  {r['launches']}")
    full = results["full pipeline"]
    ratio = (full["kernel_read"] + full["kernel_write"]) / ((reads + writes) / MIB)
    print(f"  kernel-tensor traffic / single-pass minimum: {ratio:.2f}x; "
          f"workspace round trips add {full['ws_write'] + full['ws_read']:.1f} MiB (A2/A3 has no "
          f"on-chip cube<->vector path)")
    no_l1 = results["no L1 reuse"]["l1"]
    print(f"  L1 reuse: GM->L1 {no_l1:.2f} MiB -> {full['l1']:.2f} MiB "
          f"({full['l1'] / no_l1:.2f}x)")
    print(f"  leaves after deduplication: {full['leaves'][0]} for {full['leaves'][1]} launches")
    print(f"A3 validation shape 1 x 8 x 4096 x 4096 x 128 ({BLOCK_PAIRS_A3_SHAPE} block pairs):")
    print(f"  GM traffic {BLOCK_PAIRS_A3_SHAPE * (full['kernel_read'] + full['kernel_write'] + full['ws_write'] + full['ws_read']) / 1024:.2f} GiB "
          f"(minimum {BLOCK_PAIRS_A3_SHAPE * (reads + writes) / MIB / 1024:.2f} GiB), "
          f"GM->L1 {BLOCK_PAIRS_A3_SHAPE * full['l1'] / 1024:.2f} GiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
