"""The launch graph of the published pto-isa FlashAttention forward kernel.

The cost model (docs/CostModel.md) is calibrated against the on-board rows of
the pto-isa manual FA forward kernel on a 910B2 (docs/AscendTarget.md#published-flashattention-rows). That
kernel is not what our compiler makes of SK-01: it is one persistent kernel
per core whose four stages per S1 tile hand data over through GM FIFOs, where
the compiled SK-01 is thousands of dispatched call tasks. To calibrate the
model (rates, bandwidth sharing, scheduling) and not the compiler, this module
writes the kernel's documented structure as a launch graph for
`pto-run --sim-graph`, with the same work per stage as SK-01's leaves:

- blocks of CUBE_S0 = 128 query rows, split over (B, N, S0 / CUBE_S0) and
  dealt round-robin to the 24 AICs; each AIC works with its two AIVs, each
  AIV taking half of the block's rows (Vec_S0 pieces of the same work);
- per S1 tile of TILE_S1 = 256 key rows, in the documented order:
  compute_qk (cube: Q K^T, FP16 in, FP32 out to the FIFO), compute_p (the two
  AIVs: scale, row max, subtract, exp, row sum, cast to FP16: SK-01's six V1
  ops), compute_pv (cube: P V, FP32 out), compute_gu (the two AIVs: rescale
  and accumulate O, SK-01's three V2 ops; on the last tile also divide, cast
  and store O);
- the cube runs ahead by qkPreloadNum = 4 QK tiles: its program order is
  QK_0..QK_3, then QK_{j+4}, PV_j; a QK waits for its FIFO slot (depth 5) to
  be drained by compute_p;
- Q is loaded once per block (left operand stationary), K and V once per
  tile; the O accumulator stays in UB;
- one chain of launches per core models the resident kernel's program order
  (a core runs its stages one after another, block after block).

The graph sets `"persistent": true`: the stages pay no call-task dispatch or
device-task submission (the kernel is launched once), which is the structural
difference the calibration must not blur.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass

FP16, FP32 = 2, 4
SOFTMAX_OPS = 6      # compute_p: scale, row max, subtract, exp, row sum, cast
UPDATE_OPS = 3       # compute_gu: O * alpha, O_j * beta, add
FINAL_OPS = 2        # last tile: divide by l, cast


@dataclass(frozen=True)
class FaForwardConfig:
    seq_len: int            # S0 = S1 = S
    head: int = 128         # HEAD
    cube_s0: int = 128      # Q rows per cube block
    tile_s1: int = 256      # KV rows per step (TILE_S1)
    preload: int = 4        # qkPreloadNum
    cube_cores: int = 24    # AICs, two AIVs each

    @property
    def fifo_depth(self) -> int:
        return self.preload + 1

    def check(self) -> None:
        for name in ("seq_len", "head", "cube_s0", "tile_s1", "cube_cores"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} = {getattr(self, name)} must be positive")
        if self.preload < 0:
            raise ValueError(f"preload = {self.preload} must be >= 0")
        if self.cube_s0 % 2:
            raise ValueError(f"cube_s0 = {self.cube_s0} must be even: two AIVs "
                             "take half of the block's rows each")

    def flops(self) -> int:
        """docs/AscendTarget.md#published-flashattention-rows: 4 * S0 * S1 * HEAD."""
        return 4 * self.seq_len * self.seq_len * self.head


def build_graph(cfg: FaForwardConfig) -> dict:
    cfg.check()
    S, H = cfg.seq_len, cfg.head
    blocks = -(-S // cfg.cube_s0)
    tiles = -(-S // cfg.tile_s1)
    tensors = {"q": S * H * FP16, "k": S * H * FP16, "v": S * H * FP16,
               "o": S * H * FP16}
    slot = cfg.cube_s0 * cfg.tile_s1 * FP32       # the largest FIFO entry
    launches: list[dict] = []
    last_on_core: dict[tuple[str, int], int] = {}  # (pool, core) -> launch

    def add(core: tuple[str, int], deps: list[int], **launch) -> int:
        if core in last_on_core:
            deps = deps + [last_on_core[core]]
        launch["deps"] = sorted(set(deps))
        launch["stitch"] = 0   # one kernel launch: one device task
        launches.append(launch)
        last_on_core[core] = len(launches) - 1
        return len(launches) - 1

    for block in range(blocks):
        aic = block % cfg.cube_cores
        aivs = (2 * aic, 2 * aic + 1)
        fifo = f"fifo{aic}"
        tensors[fifo] = cfg.fifo_depth * slot
        rows = min(cfg.cube_s0, S - block * cfg.cube_s0)
        half = [rows - rows // 2, rows // 2]

        def ws(nbytes: int) -> dict:
            return {"tensor": fifo, "bytes": nbytes, "workspace": True}

        qk: list[int] = [-1] * tiles
        p: list[list[int]] = [[] for _ in range(tiles)]

        def compute_qk(j: int) -> None:
            cols = min(cfg.tile_s1, S - j * cfg.tile_s1)
            reads = [{"tensor": "k", "bytes": cols * H * FP16}]
            if j == 0:
                reads.append({"tensor": "q", "bytes": rows * H * FP16})
            slot_free = p[j - cfg.fifo_depth] if j >= cfg.fifo_depth else []
            qk[j] = add(("cube", aic), list(slot_free), name="compute_qk",
                        family="QK", pool="cube", instance=block, reads=reads,
                        writes=[ws(rows * cols * FP32)], matmuls=[[rows, cols, H]])

        def compute_p_pv_gu(j: int) -> None:
            cols = min(cfg.tile_s1, S - j * cfg.tile_s1)
            for aiv, r in zip(aivs, half):
                p[j].append(add(("vector", aiv), [qk[j]], name="compute_p",
                                family="P", pool="vector", instance=block,
                                reads=[ws(r * cols * FP32)], writes=[ws(r * cols * FP16)],
                                vector_elements=SOFTMAX_OPS * r * cols))
            pv = add(("cube", aic), p[j], name="compute_pv", family="PV",
                     pool="cube", instance=block,
                     reads=[ws(rows * cols * FP16), {"tensor": "v", "bytes": cols * H * FP16}],
                     writes=[ws(rows * H * FP32)], matmuls=[[rows, H, cols]])
            last = j == tiles - 1
            for aiv, r in zip(aivs, half):
                add(("vector", aiv), [pv], name="compute_gu", family="GU",
                    pool="vector", instance=block, reads=[ws(r * H * FP32)],
                    writes=[{"tensor": "o", "bytes": r * H * FP16}] if last else [],
                    vector_elements=(UPDATE_OPS + (FINAL_OPS if last else 0)) * r * H)

        # The cube's program order: QK_0..QK_{preload-1}, then QK_{j+preload}
        # and PV_j; the vector stages of tile j sit between QK_j and PV_j.
        for j in range(min(cfg.preload, tiles)):
            compute_qk(j)
        for j in range(tiles):
            if j + cfg.preload < tiles:
                compute_qk(j + cfg.preload)
            compute_p_pv_gu(j)
    return {"persistent": True, "tensors": tensors, "launches": launches}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("seq_len", type=int)
    parser.add_argument("--tile-s1", type=int, default=256)
    parser.add_argument("--cube-s0", type=int, default=128)
    parser.add_argument("--preload", type=int, default=4)
    parser.add_argument("-o", "--output", default="-")
    args = parser.parse_args(argv)
    cfg = FaForwardConfig(args.seq_len, cube_s0=args.cube_s0, tile_s1=args.tile_s1,
                          preload=args.preload)
    try:
        graph = build_graph(cfg)
    except ValueError as e:
        print(f"persistent_fa: {e}", file=sys.stderr)
        return 2
    text = json.dumps(graph)
    if args.output == "-":
        print(text)
    else:
        with open(args.output, "w") as f:
            f.write(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
