#!/usr/bin/env python3
"""What pto-hoist-invariants saves on SK-16, measured with pto-run.

Each case runs, in the same process run and on the same inputs, the kernel
after `pto-flatten-scopes` (before) and after
`pto-flatten-scopes,pto-hoist-invariants` (after), and prints the ops
executed, the vector elements processed (elements read by elementwise, unary,
reduce and cast ops) and the kernel time of both, with after/before ratios.
The outputs must be bitwise equal. Hoisting moves SK-16's Dvec chain
(docs/SK16.md#dvec-hoisting) out of the s2 loop, so the saving grows with the number of s2
tiles per s1 tile: the small-tile runs have several, the A3 validation shape
test_02 (1 x 8 x 4096 x 4096 x 128, A3 2048 tiles) has two.

    /usr/bin/python3 benchmarks/hoisting.py [--repeat 3] [--quick]
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

import numpy as np  # noqa: E402

from pto_mlir import sk16_ir  # noqa: E402
from pto_mlir.golden import load_tensor, save_tensor, sk16  # noqa: E402
from pto_mlir.tools import run_tool  # noqa: E402

SMALL = dict(s1_tile=96, s2_tile=112, c_tile=(64, 128, 64, 128, 64, 128),
             v_tile_s=(32, 128), v_tile_d=(32, 128))
TILES = {"small": SMALL, "a3": {}}
# (case, tiles): test-matrix cases whose s2 spans several small tiles, and the
# A3 validation shape with the A3 tiles.
RUNS = [("test_01", "small"), ("test_07", "small"), ("test_08", "small"),
        ("test_09", "small"), ("test_02", "a3")]
PIPELINES = {
    "before": "builtin.module(pto-flatten-scopes)",
    "after": "builtin.module(pto-flatten-scopes,pto-hoist-invariants)",
}
STATS = re.compile(r"(\d+) loop iterations, (\d+) ops, (\d+) matmul FLOP, (\d+) elements "
                   r"accumulated, (\d+) vector elements, ([0-9.]+) s")


def run_case(case: sk16.Sk16Case, tiles: str, repeat: int, tmp: Path) -> dict:
    cfg = sk16_ir.Sk16Config(heads=case.N, head_dim=case.D, **TILES[tiles])
    source = tmp / "sk16.mlir"
    source.write_text(sk16_ir.emit(cfg))
    inputs = sk16.make_inputs(case, seed=42)
    args = []
    for name in sk16.INPUT_NAMES:
        save_tensor(tmp / f"{name}.npy", inputs[name], sk16.DTYPES[name])
        args += ["--input", f"{name}={tmp / (name + '.npy')}"]
    kernels = {}
    for variant, pipeline in PIPELINES.items():
        kernels[variant] = tmp / f"sk16_{variant}.mlir"
        r = run_tool("pto-opt", source, f"--pass-pipeline={pipeline}", "-o", kernels[variant])
        if r.returncode:
            raise SystemExit(r.stderr)
    results = {v: {"time": float("inf")} for v in kernels}
    # Interleave the variants so that machine noise hits both alike.
    for _ in range(repeat):
        for variant, kernel in kernels.items():
            out = tmp / variant
            out.mkdir(exist_ok=True)
            r = run_tool("pto-run", kernel, *args, "--output-dir", out, "--run-stats")
            if r.returncode:
                raise SystemExit(r.stderr)
            m = STATS.search(r.stderr)
            stats = results[variant]
            stats.update(ops=int(m.group(2)), vector=int(m.group(5)))
            stats["time"] = min(stats["time"], float(m.group(6)))
    same = all(np.array_equal(load_tensor(tmp / "before" / f"{t}.npy").view(np.uint32),
                              load_tensor(tmp / "after" / f"{t}.npy").view(np.uint32))
               for t in sk16.OUTPUT_NAMES)
    return {"before": results["before"], "after": results["after"], "bitwise": same,
            "s2_tiles": [-(-s2 // cfg.s2_tile) for s2 in case.kv_seqlens]}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeat", type=int, default=3, help="best time of N runs of each variant")
    p.add_argument("--quick", action="store_true", help="skip test_02 (the A3 validation shape)")
    a = p.parse_args()
    runs = [r for r in RUNS if not (a.quick and r[0] == "test_02")]
    print("SK-16 through pto-run: before = pto-flatten-scopes, "
          "after = pto-flatten-scopes,pto-hoist-invariants")
    header = (f"{'case':8} {'tiles':5} {'s2 tiles/b':>10} | {'ops before':>11} {'after':>11} "
              f"{'ratio':>6} | {'vec elems before':>16} {'after':>13} {'ratio':>6} | "
              f"{'time before':>11} {'after':>8} {'ratio':>6} | bitwise")
    print(header)
    print("-" * len(header))
    ok = True
    for name, tiles in runs:
        case = sk16.get_case(name)
        with tempfile.TemporaryDirectory() as tmp:
            r = run_case(case, tiles, a.repeat, Path(tmp))
        b, f = r["before"], r["after"]
        s2 = ",".join(map(str, sorted(set(r["s2_tiles"]))))
        print(f"{name:8} {tiles:5} {s2:>10} | {b['ops']:11d} {f['ops']:11d} "
              f"{f['ops'] / b['ops']:6.3f} | {b['vector']:16d} {f['vector']:13d} "
              f"{f['vector'] / b['vector']:6.3f} | {b['time']:10.3f}s {f['time']:7.3f}s "
              f"{f['time'] / b['time']:6.3f} | {'yes' if r['bitwise'] else 'NO'}")
        ok &= r["bitwise"]
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
