#!/usr/bin/env python3
"""pto-run vs the NumPy golden on the SK-16 A3 validation shape.

Runs the 1 x 8 x 4096 x 4096 x 128 case (test_02 of docs/SK16.md#tests, 171.8 GFLOP) through
`pto-run` (A3 tiles, the canonical kernel) and through the NumPy golden in the
same process run, and prints both times and their ratio. Both use the same
OpenBLAS on the same cores. Target: pto-run <= 1.5x the golden.

    /usr/bin/python3 benchmarks/sk16_interpreter.py [--case test_02] [--repeat 1]
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

from pto_mlir import sk16_ir  # noqa: E402
from pto_mlir.golden import load_tensor, save_tensor, sk16  # noqa: E402
from pto_mlir.tools import run_tool  # noqa: E402


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--case", default="test_02")
    p.add_argument("--repeat", type=int, default=1, help="best of N runs of each side")
    a = p.parse_args()
    case = sk16.get_case(a.case)
    inputs = sk16.make_inputs(case, seed=42)

    golden_times = []
    for _ in range(a.repeat):
        t0 = time.perf_counter()
        gold = sk16.golden_backward(inputs, case.N, case.D)
        golden_times.append(time.perf_counter() - t0)

    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        kernel = d / "sk16.mlir"
        kernel.write_text(sk16_ir.emit(sk16_ir.Sk16Config(heads=case.N, head_dim=case.D)))
        args = []
        for name in sk16.INPUT_NAMES:
            save_tensor(d / f"{name}.npy", inputs[name], sk16.DTYPES[name])
            args += ["--input", f"{name}={d / (name + '.npy')}"]
        run_times, wall_times = [], []
        for _ in range(a.repeat):
            t0 = time.perf_counter()
            r = run_tool("pto-run", kernel, *args, "--output-dir", d, "--run-stats")
            wall_times.append(time.perf_counter() - t0)
            if r.returncode != 0:
                print(r.stderr, file=sys.stderr)
                return 1
            run_times.append(float(re.search(r"([0-9.]+) s$", r.stderr.strip()).group(1)))
        ok = True
        for name in sk16.OUTPUT_NAMES:
            out = load_tensor(d / f"{name}.npy", "fp32").reshape(gold[name].shape)
            ok &= sk16.check_close(out, gold[name])[0]

    g, k, w = min(golden_times), min(run_times), min(wall_times)
    gflop = sk16.flops(case) * 1e-9
    print(f"SK-16 {case.name}: B={case.B} N={case.N} s1={case.q_seqlens} s2={case.kv_seqlens} "
          f"D={case.D}, {gflop:.1f} GFLOP")
    print(f"  NumPy golden          {g:8.3f} s  ({gflop / g:6.1f} GFLOP/s)")
    print(f"  pto-run (kernel)      {k:8.3f} s  ({gflop / k:6.1f} GFLOP/s)")
    print(f"  pto-run (incl. I/O)   {w:8.3f} s")
    print(f"  ratio pto-run/golden  {k / g:8.3f}   (target <= 1.5; incl. I/O {w / g:.3f})")
    print(f"  outputs match golden: {'yes' if ok else 'NO'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
