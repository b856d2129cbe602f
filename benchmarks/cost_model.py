#!/usr/bin/env python3
"""Calibration of the cost model (docs/CostModel.md) against the only
published Ascend attention numbers: the pto-isa manual FlashAttention forward
kernel on a 910B2 (docs/AscendTarget.md#published-flashattention-rows; B = 1, one head, S0 = S1 = S,
HEAD = 128, FLOP = 4 * S * S * HEAD).

Three configurations, each printed as predicted vs measured:

- kernel (the calibration): the published kernel's own structure, one
  persistent kernel per core with four stages per S1 tile, QK preload 4 and
  GM FIFOs (pto_mlir.persistent_fa), scheduled by `pto-run --sim-graph`;
- pto-isa: SK-01 (python/pto_mlir/sk01_ir.py) compiled with
  --pto-tile-graph-pipeline at the published kernel's tiles (128 Q rows per
  cube block, TILE_S1 256 in 128-wide cube pieces, 32-row vector tiles) and
  run by `pto-run --simulate=a3`: what our compiler makes of the same math;
- a3-perf: SK-01 at its canonical A3 tiles (q_tile = kv_tile = 2048).

Nothing is tuned to the rows; the one figure the rows constrain (the chip's
L2 bandwidth) is discussed in docs/CostModel.md.

    python3 benchmarks/cost_model.py [--config kernel|pto-isa|a3-perf]
                                     [--sizes 2048 4096 8192 16384] [--tile-s1 256]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))

import numpy as np  # noqa: E402

from pto_mlir import persistent_fa, sk01_ir  # noqa: E402
from pto_mlir.golden import save_tensor  # noqa: E402
from pto_mlir.tools import run_tool  # noqa: E402
from opt_cache import compile_cached  # noqa: E402

# docs/AscendTarget.md#published-flashattention-rows: S -> pto-isa on-board time (us).
PUBLISHED_US = {2048: 32.461, 4096: 88.902, 8192: 292.626, 16384: 909.058}
HEAD = 128


CONFIGS = ("kernel", "pto-isa", "a3-perf")


def config(name: str, tile_s1: int = 256) -> sk01_ir.Sk01Config:
    """pto-isa: the published kernel's tiles (HEAD 128, CUBE_S0 128, TILE_S1 in
    128-wide cube pieces, 32-row vector tiles). a3-perf: SK-01's canonical
    tiles, the reference forward test's A3 performance configuration
    (q_tile = kv_tile = 2048, docs/SK01.md), one head."""
    if name == "a3-perf":
        return sk01_ir.Sk01Config(heads=1, head_dim=HEAD)
    return sk01_ir.Sk01Config(
        heads=1, head_dim=HEAD, q_tile=128, kv_tile=tile_s1,
        c1_tile=(128, 128, 128, 128, 128, 128),   # S = Q K^T: 128 x 128 pieces
        c2_tile=(128, 128, 128, 128, 128, 128),   # O = P V: K steps of 128
        v1_tile=(32, tile_s1), v2_tile=(32, HEAD))


def predict_kernel(S: int, tile_s1: int, workdir: Path, extra: list[str]) -> tuple[float, str]:
    """The published kernel's structure as a persistent launch graph."""
    graph = workdir / f"kernel_{tile_s1}_s{S}.json"
    if not graph.exists():  # sensitivity runs re-schedule the same graph
        graph.write_text(json.dumps(persistent_fa.build_graph(
            persistent_fa.FaForwardConfig(S, head=HEAD, tile_s1=tile_s1))))
    r = run_tool("pto-run", graph, "--sim-graph", "--simulate=a3",
                 f"--sim-flops={4 * S * S * HEAD}", *extra)
    if r.returncode:
        raise SystemExit(r.stderr[-3000:])
    return float(re.search(r"time: ([\d.]+) us", r.stdout).group(1)), r.stdout


def shape_args(S: int, directory: Path) -> list:
    """pto-run inputs of SK-01 with one sequence of S rows for an estimate
    without numerics (`--no-numerics`, the same report as with the data,
    docs/CostModel.md#estimates-without-numerics): the float arguments by
    shape, the cumulative offsets as a file in `directory`."""
    offsets = directory / f"sk01_cu_{S}.npy"
    save_tensor(offsets, np.array([0, S], np.int32), "int32")
    args = []
    for arg, shape in (("q", f"{S}x1x{HEAD}"), ("k", f"{S}x1x{HEAD}"), ("v", f"{S}x1x{HEAD}"),
                       ("output", f"{S}x{HEAD}"), ("l_output", f"{S}x1"),
                       ("m_output", f"{S}x1")):
        args += ["--input", f"{arg}=shape:{shape}"]
    return args + ["--input", f"cu_seqlens_q={offsets}", "--input", f"cu_seqlens_k={offsets}"]


def predict(S: int, tile_s1: int, workdir: Path, extra: list[str],
            config_name: str = "pto-isa") -> tuple[float, str]:
    if config_name == "kernel":
        return predict_kernel(S, tile_s1, workdir, extra)
    cfg = config(config_name, tile_s1)
    source = workdir / f"sk01_{config_name}_{tile_s1}.mlir"
    compiled = workdir / f"sk01_{config_name}_{tile_s1}_tg.mlir"
    if not compiled.exists():
        source.write_text(sk01_ir.emit(cfg))
        compile_cached(source, compiled, "--pto-tile-graph-pipeline")
    data = workdir / f"{config_name}_s{S}"
    data.mkdir(exist_ok=True)
    args = shape_args(S, data)
    flops = 4 * S * S * HEAD
    r = run_tool("pto-run", compiled, *args, "--simulate=a3", "--no-numerics",
                 f"--sim-flops={flops}",
                 f"--trace={data / 'trace.json'}", f"--sim-dump-graph={data / 'graph.json'}",
                 *extra)
    if r.returncode:
        raise SystemExit(r.stderr[-3000:])
    m = re.search(r"time: ([\d.]+) us", r.stdout)
    return float(m.group(1)), r.stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=sorted(PUBLISHED_US))
    parser.add_argument("--tile-s1", type=int, default=256)
    parser.add_argument("--config", choices=CONFIGS, default="kernel",
                        help="kernel: the published kernel's structure (the calibration); "
                             "pto-isa: SK-01 compiled at its tiles; a3-perf: SK-01's "
                             "canonical A3 tiles (2048-row blocks)")
    parser.add_argument("--verbose", action="store_true", help="print the full reports")
    parser.add_argument("extra", nargs="*", help="more pto-run flags (after --)")
    args = parser.parse_args()
    what = {"kernel": f"The pto-isa FA forward's structure (persistent, TILE_S1 {args.tile_s1})",
            "pto-isa": f"SK-01 compiled at the pto-isa FA forward's tiles (HEAD {HEAD}, "
                       f"CUBE_S0 128, TILE_S1 {args.tile_s1})",
            "a3-perf": "SK-01 compiled at its canonical A3 tiles (q = kv tile 2048)"}
    print(f"{what[args.config]} vs 910B2 on board (docs/AscendTarget.md#published-flashattention-rows)")
    print(f"{'S':>6} {'predicted us':>13} {'measured us':>12} {'pred/meas':>10} "
          f"{'pred TFLOPS':>12} {'meas TFLOPS':>12}  within 25%")
    within = 0
    with tempfile.TemporaryDirectory() as tmp:
        for S in args.sizes:
            predicted, report = predict(S, args.tile_s1, Path(tmp), args.extra, args.config)
            measured = PUBLISHED_US.get(S)
            flops = 4 * S * S * HEAD
            if measured is None:
                print(f"{S:>6} {predicted:>13.3f} {'-':>12}")
                continue
            ratio = predicted / measured
            ok = abs(ratio - 1) <= 0.25
            within += ok
            print(f"{S:>6} {predicted:>13.3f} {measured:>12.3f} {ratio:>10.2f} "
                  f"{flops / predicted / 1e6:>12.2f} {flops / measured / 1e6:>12.2f}  "
                  f"{'yes' if ok else 'no'}")
            if args.verbose:
                print(report)
    print(f"{within} of {sum(S in PUBLISHED_US for S in args.sizes)} rows within 25 %")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
