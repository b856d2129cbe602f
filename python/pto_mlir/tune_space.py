"""pto-tune's search space (docs/Tuning.md): the kernels it tunes (the
generators ``sk16`` and ``sk01``, their cases and pto-run inputs), the
options of the tile-graph pipeline searched with them, and the candidate
values of each parameter, derived from the architecture's capacities and
narrowed by the command line."""

from __future__ import annotations

import dataclasses
import itertools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable


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
