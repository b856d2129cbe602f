"""pto-tune: tile configurations chosen by the cost model (issue 18).

A kernel whose tile parameters are compile-time values (a generator in
``pto_mlir``: ``sk16`` = ``sk16_ir.Sk16Config``, ``sk01`` = ``sk01_ir.Sk01Config``)
is compiled at each candidate configuration and estimated with
``pto-run --simulate=ARCH --no-numerics`` (docs/CostModel.md#estimates-without-numerics)
on the cases to tune for, weighted. Configurations the verifier, the
tile-graph pipeline or the Ascend pipeline up to memory planning (the C++
path) rejects are pruned before anything is estimated. Candidates are estimated in parallel
(one process per core).

The search space is one list of values per parameter; the defaults derive
the tile candidates from the architecture's capacities (``_pto.platform_info``:
L0A/L0B/L0C, L1, UB, buffer alignment, with 16-element fractals) and the
cases' lengths, and always include the card's configuration (the
generator's defaults). ``--param NAME=V1,V2,..`` replaces one list.

Search: exhaustive when the space has at most ``--budget`` configurations;
otherwise coordinate descent seeded from the card's configuration: in
rounds, each parameter in turn is set to every value of its list with the
others held at the current best, and the best of those becomes current;
rounds repeat until one changes nothing or the budget of estimated
configurations is spent. It finds a local optimum along the axes, not
necessarily the global one.

Output: the ranked table (config, modelled us, % of cube peak, bound,
launches, GM GiB, workspace MiB), the best configuration as JSON
(``--write-config``) and as the kernel at that configuration
(``--emit-best``), and a Pareto plot of time vs workspace (``--plot``,
PNG or SVG by suffix, matplotlib).

    pto-tune --kernel sk16 --case test_02 --arch a3 --budget 40 \\
        --write-config best.json --emit-best best.mlir --plot pareto.svg
"""

from __future__ import annotations

import argparse
import concurrent.futures
import dataclasses
import itertools
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from pto_mlir.tools import tool

ARCHES = {"a3": "DAV_2201", "950": "DAV_3510"}
FRACTAL = 16  # cube fractal rows/cols for 16-bit operands (docs/PyPTOModel.md#cube-tile-shapes)


class TuneError(Exception):
    """A usage or input error: printed as `pto-tune: error: ...`, exit 2."""


# --- kernels ---------------------------------------------------------------

@dataclass
class Case:
    """One problem to tune for: per-batch lengths, heads, head dim, weight."""

    name: str
    q_seqlens: tuple
    kv_seqlens: tuple
    N: int
    D: int
    weight: float = 1.0


@dataclass
class KernelSpec:
    name: str
    config_class: type
    emit: Callable
    # Names of the tile parameters and options tuned by default.
    params: tuple
    flops: Callable
    inputs: Callable  # (case, directory) -> pto-run --input flags (shapes + offset files)
    # The configuration in the form the Ascend pipeline and the C++ chain
    # take, where that differs from the one estimated (SK-01: accumulators
    # in GM, docs/SK01.md); None: the same.
    lowered: Callable | None = None


def _cu(seqlens) -> list:
    out = [0]
    for s in seqlens:
        out.append(out[-1] + int(s))
    return out


def _offsets(directory: Path, name: str, seqlens) -> str:
    import numpy as np

    path = directory / f"{name}.npy"
    np.save(path, np.array(_cu(seqlens), dtype=np.int32))
    return f"{name}={path}"


def _shape(name: str, dims, dtype: str) -> str:
    return f"{name}=shape:{'x'.join(str(d) for d in dims)}:{dtype}"


def _sk16_inputs(case: Case, directory: Path) -> list:
    q, kv, N, D = sum(case.q_seqlens), sum(case.kv_seqlens), case.N, case.D
    specs = [_shape("q", (q, N, D), "bf16"), _shape("k", (kv, N, D), "bf16"),
             _shape("v", (kv, N, D), "bf16"), _shape("o", (q, N, D), "bf16"),
             _shape("do", (q, N, D), "bf16"), _shape("l_input", (q, N, 1), "f32"),
             _shape("m_input", (q, N, 1), "f32"), _shape("dq", (q, N * D), "f32"),
             _shape("dk", (kv, N * D), "f32"), _shape("dv", (kv, N * D), "f32"),
             _offsets(directory, "actual_q", case.q_seqlens),
             _offsets(directory, "actual_kv", case.kv_seqlens)]
    return [a for s in specs for a in ("--input", s)]


def _sk01_inputs(case: Case, directory: Path) -> list:
    q, kv, N, D = sum(case.q_seqlens), sum(case.kv_seqlens), case.N, case.D
    specs = [_shape("q", (q, N, D), "bf16"), _shape("k", (kv, N, D), "bf16"),
             _shape("v", (kv, N, D), "bf16"), _shape("output", (q, N * D), "bf16"),
             _shape("l_output", (q, N), "f32"), _shape("m_output", (q, N), "f32"),
             _offsets(directory, "cu_seqlens_q", case.q_seqlens),
             _offsets(directory, "cu_seqlens_k", case.kv_seqlens)]
    return [a for s in specs for a in ("--input", s)]


def _kernels() -> dict:
    from pto_mlir import sk01_ir, sk16_ir

    return {
        "sk16": KernelSpec(
            "sk16", sk16_ir.Sk16Config, sk16_ir.emit,
            ("s1_tile", "s2_tile", "c_tile", "v_tile_s", "v_tile_d",
             "cube_l1_reuse_setting", "vec_nbuffer_setting", "stitch_function_max_num",
             "device_sched_mode"),
            # docs/SK16.md#flop-count: 10 * s1 * s2 * D per (b, h)
            lambda c: sum(10 * a * b * c.D * c.N for a, b in zip(c.q_seqlens, c.kv_seqlens)),
            _sk16_inputs),
        "sk01": KernelSpec(
            "sk01", sk01_ir.Sk01Config, sk01_ir.emit,
            ("q_tile", "kv_tile", "c1_tile", "c2_tile", "v1_tile", "v2_tile",
             "stitch_function_max_num", "device_sched_mode"),
            # 4 * s1 * s2 * D per (b, h): the two matmuls
            lambda c: sum(4 * a * b * c.D * c.N for a, b in zip(c.q_seqlens, c.kv_seqlens)),
            _sk01_inputs,
            lambda cfg: dataclasses.replace(cfg, accumulators="gm")),
    }


# --- pipeline options ------------------------------------------------------------

# Options of --pto-tile-graph-pipeline searched like the kernel's parameters
# (docs/Tuning.md#pipeline-options): name -> (pipeline option, card's value:
# the pipeline's default). `unroll_carried` lists its factors with '/' (a
# --param value separates candidates with ','), None: loops as written.
PIPELINE_PARAMS = {
    "unroll_carried": ("unroll-carried", None),
    "dynamic_trip_count": ("dynamic-trip-count", 1),
    # DAV_3510: MIX tasks handing cube results to the vector cores on chip
    # (docs/TileGraph.md#on-chip-exchanges), the pipeline's default; wins or
    # loses with the lengths.
    "mix_exchange": ("mix-exchange", True),
}


def parse_pipeline_value(name: str, text: str):
    """A --param value of a pipeline option, checked."""
    text = text.strip()
    if name == "unroll_carried":
        if text.lower() == "none":
            return None
        factors = [f for f in text.split("/") if f]
        if not factors or not all(f.isdigit() and int(f) >= 1 for f in factors):
            raise TuneError(f"unroll_carried '{text}': give factors >= 1 separated by '/' "
                            "(e.g. 64/32/16/4), or none")
        return "/".join(str(int(f)) for f in factors)
    if name == "mix_exchange":
        if text.lower() not in ("true", "false"):
            raise TuneError(f"mix_exchange '{text}' is not true or false")
        return text.lower() == "true"
    if not text.isdigit() or int(text) < 1:
        raise TuneError(f"{name} '{text}' is not an integer >= 1")
    return int(text)


def pipeline_flag(values: dict) -> str:
    """--pto-tile-graph-pipeline with the pipeline options among `values`
    (those at the pipeline's default are left out)."""
    opts = []
    for name, (option, default) in PIPELINE_PARAMS.items():
        v = values.get(name, default)
        if v != default:
            text = str(v).lower() if isinstance(v, bool) else str(v).replace('/', ',')
            opts.append(f"{option}={text}")
    return "--pto-tile-graph-pipeline" + ("=" + " ".join(opts) if opts else "")


# --- the search space --------------------------------------------------------

def platform(arch: str) -> dict:
    from pto_mlir import native

    return native.load().platform_info(ARCHES[arch])


def _ladder(lo: int, hi: int) -> list:
    """Powers of two times the fractal from `lo` to `hi`."""
    out, v = [], lo
    while v <= hi:
        out.append(v)
        v *= 2
    return out


def cube_tiles(p: dict, card: tuple, k_hint: int | None = None) -> list:
    """(mL0, mL1, kL0, kL1, nL0, nL1) candidates for bf16 operands: every
    power-of-two L0 triple from 64 that fills at least half of L0A, L0B or
    L0C and overflows none (smaller ones only waste the cube), with L1
    extents of 1x and 2x L0 along k and n where L1 holds the A and B blocks
    (double-buffered); plus the card's."""
    out = {tuple(card)}
    sizes = _ladder(4 * FRACTAL, 512)
    for m, k, n in itertools.product(sizes, repeat=3):
        a, b, c = m * k * 2, n * k * 2, m * n * 4
        if a > p["l0a_bytes"] or b > p["l0b_bytes"] or c > p["l0c_bytes"]:
            continue
        if max(a / p["l0a_bytes"], b / p["l0b_bytes"], c / p["l0c_bytes"]) < 0.5:
            continue
        if k_hint and k > k_hint:
            continue
        for fk, fn in ((1, 1), (2, 1), (2, 2)):
            kl1, nl1 = k * fk, n * fn
            if 2 * (m * kl1 + kl1 * nl1) * 2 > p["l1_bytes"]:
                continue
            out.add((m, m, k, kl1, n, nl1))
    return sorted(out)


def vec_tiles(p: dict, card: tuple, cols: list, buffers: int = 4) -> list:
    """(rows, cols) vector tiles, for each of `cols`: rows a power of two
    from 8 such that `buffers` f32 tiles of that shape fit UB and fill at
    least a quarter of it; plus the card's."""
    out = {tuple(card)}
    for c in cols:
        for r in _ladder(8, 1024):
            if p["ub_bytes"] // 4 <= buffers * r * c * 4 <= p["ub_bytes"]:
                out.add((r, c))
    return sorted(out)


def print_search_report(results: list, card: dict, card_est, best, how: str,
                        elapsed: float, jobs: int, top: int, error) -> None:
    """Prints what a search found: the search line, the ranked table, the
    card's estimate, the first pruned configurations and the best one
    (`error` when every configuration was rejected)."""
    pruned = [e for e in results if not e.ok]
    print(f"search: {how}; {len(results)} estimated, {len(pruned)} pruned; "
          f"{elapsed:.1f} s with {jobs} job{'s' if jobs > 1 else ''}")
    print_table(HEADER, ranked_table(results, card, top))
    print("card config: " + " ".join(f"{k}={fmt_value(v)}" for k, v in card.items()))
    if card_est.ok:
        print(f"card: {card_est.time_us:.1f} us ({card_est.peak_pct:.1f} % of cube peak)")
    else:
        print(f"card: rejected ({card_est.pruned})")
    for e in pruned[:5]:
        print(f"pruned: {fmt_config(e.config, card)}: {e.pruned}")
    if best is None:
        raise error("every configuration was rejected (see 'pruned' above)")
    speedup = (f", {card_est.time_us / best.time_us:.3f}x the card's speed"
               if card_est.ok else "")
    print(f"best: {fmt_config(best.config, card)}: {best.time_us:.1f} us{speedup}")


def narrow_space(space: dict, params: list, only, *, known, owner: str, parse,
                 card_value, error) -> tuple:
    """The search space after the command line: each `--param NAME=V1,V2`
    replaces NAME's candidates (`parse(name, "V1,V2")` gives the values;
    NAME must be in `known`, else an error naming `owner`), `--only` keeps
    the named dimensions, and the card's value (`card_value(name)`) is
    always a candidate. Returns (space, card)."""
    for text in params:
        name, _, values = text.partition("=")
        if name not in known:
            raise error(f"--param '{text}': '{name}' is not a parameter of {owner}")
        parsed = parse(name, values)
        if not parsed:
            raise error(f"--param '{text}': no values")
        space[name] = list(dict.fromkeys(parsed))
    if only is not None:
        unknown = [n for n in only if n not in space]
        if unknown:
            raise error(f"--only: {', '.join(unknown)} not in the search space "
                        f"({', '.join(space)})")
        space = {n: v for n, v in space.items() if n in only}
    card = {n: card_value(n) for n in space}
    for n in space:
        if card[n] not in space[n]:
            space[n] = [card[n]] + space[n]
    return space, card


def default_space(spec: KernelSpec, p: dict, cases: list) -> dict:
    card = spec.config_class()
    longest = max(max(c.q_seqlens + c.kv_seqlens) for c in cases)
    D = max(c.D for c in cases)
    seq_tiles = [t for t in (256, 512, 1024, 2048, 4096) if t < 2 * longest] or [256]
    space = {}
    if spec.name == "sk16":
        space["s1_tile"] = sorted(set(seq_tiles) | {card.s1_tile})
        space["s2_tile"] = sorted(set(seq_tiles) | {card.s2_tile})
        space["c_tile"] = cube_tiles(p, card.c_tile)
        space["v_tile_s"] = vec_tiles(p, card.v_tile_s, [128, 256, 512])
        space["v_tile_d"] = vec_tiles(p, card.v_tile_d, [D])
        space["cube_l1_reuse_setting"] = [card.cube_l1_reuse_setting, "{-1 : 1}",
                                          "{-1 : 2, 0 : 4}"]
        space["vec_nbuffer_setting"] = [card.vec_nbuffer_setting, "{-1 : 2}"]
    else:
        space["q_tile"] = sorted(set(seq_tiles) | {card.q_tile})
        space["kv_tile"] = sorted(set(seq_tiles) | {card.kv_tile})
        space["c1_tile"] = cube_tiles(p, card.c1_tile)
        space["c2_tile"] = cube_tiles(p, card.c2_tile)
        space["v1_tile"] = vec_tiles(p, card.v1_tile, [256, 512, 1024])
        space["v2_tile"] = vec_tiles(p, card.v2_tile, [D])
        # The kv loop carries the accumulators: kv tiles per body (none, or
        # PyPTO-style lists), and whether the q-tile loop, whose trip count is
        # a run-time value, fills the cores (docs/Tuning.md#pipeline-options).
        space["unroll_carried"] = [None, "64/32/16/4", "16/4"]
        space["dynamic_trip_count"] = [1, 2 * p["cube_cores"]]
    space["stitch_function_max_num"] = sorted({card.stitch_function_max_num, 128, 256, 1024})
    space["device_sched_mode"] = [0, 1, 2, 3]
    return space


def parse_value(text: str, example):
    """A --param value in the type of the card's value."""
    text = text.strip()
    if isinstance(example, tuple):
        parts = [p for p in re.split(r"[x/ ]+", text) if p]
        try:
            return tuple(int(p) for p in parts)
        except ValueError:
            raise TuneError(f"'{text}' is not a tuple of integers (write e.g. 64x256)") from None
    if isinstance(example, bool):
        return text.lower() in ("1", "true", "yes")
    if isinstance(example, int):
        try:
            return int(text)
        except ValueError:
            raise TuneError(f"'{text}' is not an integer") from None
    return None if text.lower() == "none" else text


# --- estimating one configuration ---------------------------------------------

@dataclass
class Estimate:
    config: dict
    ok: bool = False
    pruned: str = ""          # why the verifier or the pipeline rejected it
    time_us: float = 0.0      # weighted mean over the cases
    peak_pct: float = 0.0     # weighted mean TFLOPS / peak
    bound: str = ""
    launches: int = 0
    gm_gib: float = 0.0
    workspace_mib: float = 0.0
    per_case: dict = field(default_factory=dict)


def parse_report(text: str) -> dict:
    def num(pattern, cast=float):
        m = re.search(pattern, text)
        if not m:
            raise TuneError(f"the cost-model report lacks /{pattern}/:\n{text}")
        return cast(m.group(1))

    return {"time_us": num(r"time: ([\d.eE+-]+) us"),
            "bound": num(r"bound: (\w+)", str),
            "tflops": num(r"\btflops: ([\d.eE+-]+);"),
            "peak_tflops": num(r"peak tflops: ([\d.eE+-]+)"),
            "launches": num(r"launches: (\d+)", int),
            "gm_mib": num(r"gm traffic: read ([\d.eE+-]+) MiB") +
                      num(r"MiB, write ([\d.eE+-]+) MiB")}


def workspace_bytes(report_text: str) -> float:
    """The largest GM workspace of one root instance (bytes) in pto-report's
    `workspace per instance: N tensors, X MiB` lines; 0 without any."""
    return max((float(m.group(1)) * 2**20 for m in re.finditer(
        r"workspace per instance: \d+ tensors?, ([\d.]+) MiB", report_text)), default=0.0)


def _run(args: list) -> subprocess.CompletedProcess:
    return subprocess.run([str(a) for a in args], capture_output=True, text=True)


def _first_error(stderr: str) -> str:
    for line in stderr.splitlines():
        if "error:" in line:
            return line.split("error:", 1)[1].strip()[:300]
    return stderr.strip().splitlines()[-1][:300] if stderr.strip() else "failed"


def lowering_flags(values: dict) -> list:
    """The Ascend pipeline up to memory planning with the candidate's
    pipeline options: the tile-graph pipeline as pto-ascend-pipeline runs it
    (split-mix), pto-lower-to-isa, pto-isa-roll-pieces, pto-isa-plan-memory.
    It rejects what the lowered leaves cannot hold (a transfer or an
    instruction out of range, a buffer that does not fit) before any C++."""
    options = pipeline_flag(values).partition("=")[2]
    tile_graph = "--pto-tile-graph-pipeline=" + " ".join(
        o for o in (options, "split-mix=true") if o)
    return [tile_graph, "--pto-lower-to-isa", "--pto-isa-roll-pieces",
            "--pto-isa-plan-memory"]


def check_lowering(opt, source: Path, values: dict) -> str | None:
    """Why the Ascend pipeline rejects `source` at `values`, or None."""
    r = _run([opt, source, *lowering_flags(values), "-o", "/dev/null"])
    return "lowering: " + _first_error(r.stderr) if r.returncode else None


def compile_tile_graph(opt, source: Path, out: Path,
                       pipeline: str = "--pto-tile-graph-pipeline") -> tuple[str | None, float]:
    """Prunes and compiles one candidate: the verifier (cheap) first, then
    `pipeline` into `out`; returns the reason it was pruned
    (or None) and the tile graph's GM workspace bytes from --pto-report."""
    r = _run([opt, source, "-o", "/dev/null"])
    if r.returncode:
        return "verifier: " + _first_error(r.stderr), 0.0
    r = _run([opt, source, pipeline, "-o", out])
    if r.returncode:
        return "pipeline: " + _first_error(r.stderr), 0.0
    r = _run([opt, out, "--pto-report", "-o", "/dev/null"])
    return None, workspace_bytes(r.stdout + r.stderr)


class Tuner:
    def __init__(self, spec: KernelSpec, arch: str, cases: list, workdir: Path,
                 base: dict | None = None, check_lowering: bool = True):
        self.spec, self.arch, self.cases, self.workdir = spec, arch, cases, workdir
        self.base = base or {}
        self.check_lowering = check_lowering
        self.cache: dict = {}
        self.lock = threading.Lock()

    def make_config(self, values: dict, case: Case):
        kw = dict(self.base)
        kw.update({k: v for k, v in values.items() if k not in PIPELINE_PARAMS})
        kw.update(heads=case.N, head_dim=case.D, arch=ARCHES[self.arch])
        return self.spec.config_class(**kw)

    def key(self, values: dict) -> tuple:
        return tuple(sorted((k, repr(v)) for k, v in values.items()))

    def estimate(self, values: dict) -> Estimate:
        key = self.key(values)
        with self.lock:
            if key in self.cache:
                return self.cache[key]
        result = self._estimate(values)
        with self.lock:
            self.cache[key] = result
        return result

    def _estimate(self, values: dict) -> Estimate:
        est = Estimate(dict(values))
        directory = Path(tempfile.mkdtemp(dir=self.workdir))
        opt, run = tool("pto-opt"), tool("pto-run")
        total_w = sum(c.weight for c in self.cases)
        compiled = {}
        for case in self.cases:
            try:
                cfg = self.make_config(values, case)
            except (TypeError, ValueError) as e:
                raise TuneError(f"configuration {values}: {e}") from None
            source = directory / f"k_n{case.N}_d{case.D}.mlir"
            out = directory / f"k_n{case.N}_d{case.D}_tg.mlir"
            if (case.N, case.D) not in compiled:
                try:
                    source.write_text(self.spec.emit(cfg))
                except (ValueError, AssertionError) as e:
                    est.pruned = f"the generator rejects it: {e}"
                    return est
                pruned, workspace = compile_tile_graph(opt, source, out,
                                                       pipeline_flag(values))
                if not pruned and self.check_lowering:
                    lowered = source
                    if self.spec.lowered:
                        lowered = directory / f"k_n{case.N}_d{case.D}_lowered.mlir"
                        lowered.write_text(self.spec.emit(self.spec.lowered(cfg)))
                    pruned = check_lowering(opt, lowered, values)
                if pruned:
                    est.pruned = pruned
                    return est
                compiled[case.N, case.D] = workspace
            data = directory / case.name
            data.mkdir(exist_ok=True)
            r = _run([run, out, *self.spec.inputs(case, data), f"--simulate={self.arch}",
                      f"--sim-flops={self.spec.flops(case)}", "--no-numerics"])
            if r.returncode:
                est.pruned = "pto-run: " + _first_error(r.stderr)
                return est
            m = parse_report(r.stdout)
            m["workspace_mib"] = compiled[case.N, case.D] / 2**20
            est.per_case[case.name] = m
            w = case.weight / total_w
            est.time_us += w * m["time_us"]
            est.peak_pct += w * 100 * m["tflops"] / m["peak_tflops"]
            est.launches += m["launches"]
            est.gm_gib += m["gm_mib"] / 1024
            est.workspace_mib = max(est.workspace_mib, m["workspace_mib"])
        heaviest = max(self.cases, key=lambda c: c.weight * est.per_case[c.name]["time_us"])
        est.bound = est.per_case[heaviest.name]["bound"]
        est.ok = True
        return est


# --- search ----------------------------------------------------------------------

class Progress:
    """A one-line progress bar on a terminal (stderr); silent otherwise."""

    def __init__(self, total: int, enabled: bool):
        self.total, self.done, self.best = total, 0, None
        self.enabled = enabled
        self.started = time.perf_counter()

    def step(self, est: Estimate):
        self.done += 1
        if est.ok and (self.best is None or est.time_us < self.best):
            self.best = est.time_us
        if not self.enabled:
            return
        width = 30
        filled = int(width * self.done / max(1, self.total))
        best = f", best {self.best:.1f} us" if self.best is not None else ""
        sys.stderr.write(f"\rpto-tune [{'#' * filled}{'.' * (width - filled)}] "
                         f"{self.done}/{self.total}{best}, "
                         f"{time.perf_counter() - self.started:.0f} s ")
        sys.stderr.flush()

    def close(self):
        if self.enabled:
            sys.stderr.write("\n")


def estimate_all(tuner: Tuner, configs: list, jobs: int, progress: Progress) -> list:
    results = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        for est in pool.map(tuner.estimate, configs):
            progress.step(est)
            results.append(est)
    return results


def search(tuner: Tuner, space: dict, card: dict, budget: int, jobs: int,
           show_progress: bool) -> tuple[list, str]:
    names = list(space)
    size = 1
    for values in space.values():
        size *= len(values)
    if size <= budget:
        configs = [dict(zip(names, combo)) for combo in itertools.product(*space.values())]
        progress = Progress(len(configs), show_progress)
        results = estimate_all(tuner, configs, jobs, progress)
        progress.close()
        return results, f"exhaustive ({size} configurations)"
    # Coordinate descent from the card's configuration.
    current = {n: card[n] for n in names}
    progress = Progress(budget, show_progress)
    results = {tuner.key(current): None}
    best = estimate_all(tuner, [current], jobs, progress)[0]
    results[tuner.key(current)] = best
    rounds = 0
    while len(results) < budget:
        rounds += 1
        changed = False
        for name in names:
            trial = []
            for v in space[name]:
                c = dict(current, **{name: v})
                if tuner.key(c) not in results and len(results) + len(trial) < budget:
                    trial.append(c)
            for est in estimate_all(tuner, trial, jobs, progress):
                results[tuner.key(est.config)] = est
                if est.ok and (not best.ok or est.time_us < best.time_us):
                    best, current, changed = est, dict(est.config), True
            if len(results) >= budget:
                break
        if not changed:
            break
    progress.close()
    return [e for e in results.values() if e is not None], \
        (f"coordinate descent from the card's configuration ({size} configurations in the "
         f"space; {len(results)} estimated in {rounds} round{'s' if rounds != 1 else ''})")


# --- output ---------------------------------------------------------------------

def fmt_value(v) -> str:
    if isinstance(v, tuple):
        return "x".join(map(str, v))
    return str(v)


def fmt_config(config: dict, card: dict) -> str:
    """The parameters that differ from the card's (or `card` for none)."""
    diff = [f"{k}={fmt_value(v)}" for k, v in config.items() if card.get(k) != v]
    return " ".join(diff) if diff else "card"


def ranked_table(results: list, card: dict, top: int) -> list:
    ok = sorted((e for e in results if e.ok), key=lambda e: e.time_us)
    rows = []
    for rank, e in enumerate(ok[:top], 1):
        rows.append([str(rank), fmt_config(e.config, card), f"{e.time_us:.1f}",
                     f"{e.peak_pct:.1f}", e.bound, str(e.launches), f"{e.gm_gib:.2f}",
                     f"{e.workspace_mib:.1f}"])
    return rows


HEADER = ["rank", "config (vs card)", "modelled us", "% of cube peak", "bound", "launches",
          "GM GiB", "workspace MiB"]


def print_table(header: list, rows: list, out=sys.stdout):
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h)
              for i, h in enumerate(header)]
    print("  ".join(h.ljust(w) for h, w in zip(header, widths)), file=out)
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)), file=out)


def pareto_front(results: list) -> list:
    ok = sorted((e for e in results if e.ok), key=lambda e: (e.workspace_mib, e.time_us))
    front, best = [], float("inf")
    for e in ok:
        if e.time_us < best:
            front.append(e)
            best = e.time_us
    return front


def plot(results: list, card_est: Estimate | None, path: Path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise TuneError("--plot needs matplotlib (Debian: python3-matplotlib; "
                        "scripts/install-deps.sh installs it)") from None
    ok = [e for e in results if e.ok]
    front = pareto_front(results)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.scatter([e.workspace_mib for e in ok], [e.time_us for e in ok], s=14, c="#9aa",
               label="estimated configurations")
    ax.plot([e.workspace_mib for e in front], [e.time_us for e in front], "o-",
            c="#c33", label="Pareto front")
    if card_est and card_est.ok:
        ax.scatter([card_est.workspace_mib], [card_est.time_us], marker="*", s=160,
                   c="#36c", label="card configuration", zorder=5)
    ax.set_xlabel("GM workspace per root instance (MiB)")
    ax.set_ylabel("modelled time (us)")
    ax.set_title("pto-tune: modelled time vs workspace")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


# --- command line ---------------------------------------------------------------

def parse_case(text: str, spec: KernelSpec) -> Case:
    """`test_02`, `test_02:0.5` (weight), or `B=1,N=8,S1=4096,S2=4096,D=128[:w]`
    (S1/S2 may be `/`-separated per batch)."""
    from pto_mlir.golden import sk16

    body, _, weight = text.partition(":")
    try:
        w = float(weight) if weight else 1.0
    except ValueError:
        raise TuneError(f"case '{text}': weight '{weight}' is not a number") from None
    if w <= 0:
        raise TuneError(f"case '{text}': the weight must be > 0")
    if "=" not in body:
        try:
            c = sk16.get_case(body)
        except KeyError as e:
            raise TuneError(str(e.args[0])) from None
        return Case(c.name, c.q_seqlens, c.kv_seqlens, c.N, c.D, w)
    fields = {}
    for part in body.split(","):
        k, _, v = part.partition("=")
        fields[k.strip().upper()] = v.strip()
    try:
        B = int(fields.get("B", 1))
        s1 = [int(x) for x in fields["S1"].split("/")]
        s2 = [int(x) for x in fields.get("S2", fields["S1"]).split("/")]
        N, D = int(fields["N"]), int(fields["D"])
    except (KeyError, ValueError):
        raise TuneError(f"case '{text}': write a case name (test_02) or "
                        "B=1,N=8,S1=4096,S2=4096,D=128") from None
    if len(s1) == 1:
        s1 = s1 * B
    if len(s2) == 1:
        s2 = s2 * B
    if len(s1) != B or len(s2) != B or min(s1 + s2) < 1 or N < 1 or D < 1:
        raise TuneError(f"case '{text}': need B lengths >= 1 for S1 and S2, N, D >= 1")
    name = f"B{B}_N{N}_S{'/'.join(map(str, sorted(set(s1))))}_D{D}"
    return Case(name, tuple(s1), tuple(s2), N, D, w)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(
        prog="pto-tune",
        description="Choose tile configurations with the cost model (docs/Tuning.md).")
    p.add_argument("--kernel", required=True,
                   help="the kernel: a generator, sk16 or sk01 (python/pto_mlir/*_ir.py), "
                        "or a .mlir file with one pto.kernel (its tile attributes and options "
                        "are tuned)")
    p.add_argument("--case", action="append",
                   help="a case to tune for: test_02, test_08:0.5 (weight), or "
                        "B=1,N=1,S1=4096,D=128 (repeatable); for a .mlir kernel "
                        "NAME=AxB,NAME2=FILE.npy[:WEIGHT] or a folder of NAME.npy "
                        "(default: the kernel's static or inferred shapes)")
    p.add_argument("--arch", choices=sorted(ARCHES),
                   help="the architecture (default: a3; for a .mlir kernel its arch)")
    p.add_argument("--param", action="append", default=[],
                   help="NAME=V1,V2,...: the values to try for one parameter "
                        "(tuples as 64x256); replaces the default list")
    p.add_argument("--set", action="append", default=[],
                   help="NAME=V: fix a generator field that is not tuned")
    p.add_argument("--only", nargs="*",
                   help="tune only these parameters (the others stay at the card's)")
    p.add_argument("--budget", type=int, default=48,
                   help="configurations to estimate at most (exhaustive below it)")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--top", type=int, default=15, help="rows of the ranked table")
    p.add_argument("--write-config", type=Path, help="the best configuration as JSON")
    p.add_argument("--emit-best", type=Path,
                   help="the kernel at the best configuration (.mlir, first case's N, D)")
    p.add_argument("--write-back", action="store_true",
                   help="for a .mlir kernel: write the best configuration into the file")
    p.add_argument("--plot", type=Path, help="Pareto plot of time vs workspace (.png/.svg)")
    p.add_argument("--json", type=Path, help="every estimate as JSON")
    p.add_argument("--no-progress", action="store_true")
    p.add_argument("--no-lowering-check", action="store_true",
                   help="do not prune configurations the Ascend pipeline rejects "
                        "(pto-lower-to-isa and memory planning; the C++ path)")
    a = p.parse_args(argv)
    # Run as `python -m pto_mlir.tune`, this module is __main__ and
    # pto_mlir.tune (which tune_mlir imports) a second copy: catch both.
    from pto_mlir import tune as imported
    from pto_mlir.tune_mlir import MlirTuneError
    try:
        return run(a)
    except (TuneError, imported.TuneError, MlirTuneError) as e:
        print(f"pto-tune: error: {e}", file=sys.stderr)
        return 2


def run(a) -> int:
    if a.kernel.endswith(".mlir"):
        from pto_mlir import tune_mlir

        return tune_mlir.run(a)
    if a.write_back:
        raise TuneError("--write-back is for a .mlir kernel; for a generator use "
                        "--write-config / --emit-best")
    if not a.case:
        raise TuneError(f"--kernel {a.kernel}: give the cases to tune for with --case")
    a.arch = a.arch or "a3"
    kernels = _kernels()
    if a.kernel not in kernels:
        raise TuneError(f"unknown kernel '{a.kernel}'; known: {', '.join(kernels)}, "
                        "or a .mlir file")
    spec = kernels[a.kernel]
    if a.budget < 1 or a.jobs < 1:
        raise TuneError("--budget and --jobs must be >= 1")
    if a.plot and a.plot.suffix.lower() not in (".png", ".svg"):
        raise TuneError(f"--plot '{a.plot}': the file must end in .png or .svg")
    cases = [parse_case(t, spec) for t in a.case]
    if len({c.name for c in cases}) != len(cases):
        raise TuneError("a case is given twice")
    card_cfg = spec.config_class()
    fields = {f.name: getattr(card_cfg, f.name) for f in dataclasses.fields(card_cfg)}
    base = {}
    for text in a.set:
        name, _, value = text.partition("=")
        if name not in fields or name in ("heads", "head_dim", "arch"):
            raise TuneError(f"--set '{text}': '{name}' is not a field of "
                            f"{spec.config_class.__name__} that can be set")
        base[name] = parse_value(value, fields[name])
    known = dict(fields, **{n: default for n, (_, default) in PIPELINE_PARAMS.items()})
    space, card = narrow_space(
        default_space(spec, platform(a.arch), cases), a.param, a.only,
        known=known, owner=f"{spec.config_class.__name__} ({', '.join(spec.params)}) "
                           f"or the pipeline ({', '.join(PIPELINE_PARAMS)})",
        parse=lambda name, values: [
            parse_pipeline_value(name, v) if name in PIPELINE_PARAMS
            else parse_value(v, fields[name]) for v in values.split(",") if v.strip()],
        card_value=lambda n: base.get(n, known[n]), error=TuneError)

    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="pto-tune-") as tmp:
        tuner = Tuner(spec, a.arch, cases, Path(tmp), base,
                      check_lowering=not a.no_lowering_check)
        show = sys.stderr.isatty() and not a.no_progress
        results, how = search(tuner, space, card, a.budget, a.jobs, show)
        card_est = tuner.estimate(card)
        if not any(r.config == card for r in results):
            results.append(card_est)
        best = min((e for e in results if e.ok), key=lambda e: e.time_us, default=None)
        if a.emit_best and best:
            a.emit_best.write_text(spec.emit(tuner.make_config(best.config, cases[0])))
    elapsed = time.perf_counter() - started
    print(f"pto-tune: {spec.name} on {a.arch} ({ARCHES[a.arch]}), cases "
          + ", ".join(f"{c.name} (weight {c.weight:g})" for c in cases))
    print_search_report(results, card, card_est, best, how, elapsed, a.jobs, a.top,
                        TuneError)
    fields_best = {k: v for k, v in {**base, **best.config}.items()
                   if k not in PIPELINE_PARAMS}
    kwargs = ", ".join(f"{k}={v!r}" for k, v in fields_best.items())
    print(f"  {spec.config_class.__name__}({kwargs})")
    pipeline = pipeline_flag(best.config)
    print(f"  compiled with {pipeline}")
    if a.write_config:
        a.write_config.write_text(json.dumps(
            {"kernel": spec.name, "arch": a.arch, "config": fields_best,
             "pipeline": pipeline, "time_us": best.time_us}, indent=2, default=list) + "\n")
    if a.json:
        a.json.write_text(json.dumps([dataclasses.asdict(e) for e in results], indent=1,
                                     default=list) + "\n")
    if a.plot:
        plot(results, card_est, a.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
