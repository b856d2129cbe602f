"""pto-tune on a `.mlir` kernel (docs/Tuning.md#tuning-a-mlir-kernel).

The tunable values of a kernel written in MLIR are its attributes, edited in
the file's text so that comments and layout survive the write-back:

- each distinct ``#pto.cube_tile<...>`` (``set_cube_tile_shapes``) is one
  parameter (``cube_tile``, or ``cube_tile_0``, ``cube_tile_1``, ... in order of
  first appearance when there are several), a tuple
  ``(mL0, mL1, kL0, kL1, nL0, nL1)``; every op carrying that value takes the
  candidate, so ops that share a configuration keep sharing it;
- each distinct ``#pto.vec_tile<[...]>`` likewise (``vec_tile``/``vec_tile_N``);
- ``stitch_function_max_num`` and ``device_sched_mode`` of the kernel's
  ``#pto.runtime_options``, ``cube_l1_reuse_setting`` (with matmuls) and
  ``vec_nbuffer_setting`` (with vector tiles) of its ``#pto.pass_options``;
  an option the kernel does not set is tried absent (``None``, PyPTO's
  default) and at the candidate values, and added to the attribute (or the
  attribute to the kernel) when the best configuration sets it.

Tile shapes (the ``!pto.tile<...>`` types) are part of the program, not a
configuration: their loops and offsets depend on them. A kernel whose tile
shapes should be tuned is written as a generator (``--kernel sk16``).

The search space derives from the platform's capacities as for the
generators, bounded by the tiles the kernel computes on: the cube tiles are
the power-of-two L0 triples (multiples of the 16-element fractal) that fit
L0A/L0B/L0C and no dim of which exceeds the matmuls' extents (rounded up to
a power of two), keeping those that fill at least half as much as the
fullest such triple, with L1 extents 1x/2x L0 along k and n where the
double-buffered blocks fit L1; the vector tiles are power-of-two rows from 8
up to the tiles' rows, with the columns of the card's and of the tiles the
ops compute on, such that four f32 tiles fit UB.
"""

from __future__ import annotations

import itertools
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from pto_mlir.tools import tool

FRACTAL = 16
ARCH_NAMES = {"DAV_2201": "a3", "DAV_3510": "950"}

_CUBE = re.compile(
    r"#pto\.cube_tile<\s*m\s*=\s*\[\s*(\d+)\s*,\s*(\d+)\s*\]\s*,\s*"
    r"k\s*=\s*\[\s*(\d+)\s*,\s*(\d+)\s*\]\s*,\s*n\s*=\s*\[\s*(\d+)\s*,\s*(\d+)\s*\]"
    r"(\s*,\s*split_k)?\s*>")
_VEC = re.compile(r"#pto\.vec_tile<\s*\[\s*(\d+(?:\s*,\s*\d+)*)\s*\]\s*>")
_RUNTIME = re.compile(r"#pto\.runtime_options<([^<>]*)>")
_PASS = re.compile(r"#pto\.pass_options<((?:[^<>{}]|\{[^{}]*\})*)>")
_ARCH = re.compile(r"#pto\.arch<\s*(\w+)\s*>")
_KERNEL = re.compile(r"\bpto\.kernel\s+@([\w$.-]+)\s*\(")
_TILE = re.compile(r"!pto\.tile<((?:\d+x)+)\w+")

INT_OPTIONS = ("stitch_function_max_num", "device_sched_mode")
MERGE_OPTIONS = ("cube_l1_reuse_setting", "vec_nbuffer_setting")


class MlirTuneError(Exception):
    pass


def _line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _line_text(text: str, pos: int) -> str:
    start = text.rfind("\n", 0, pos) + 1
    end = text.find("\n", pos)
    return text[start:end if end >= 0 else len(text)]


def _in_comment(text: str, pos: int) -> bool:
    """Whether `pos` lies in a `//` comment (outside string literals)."""
    start = text.rfind("\n", 0, pos) + 1
    quoted = False
    for i in range(start, pos):
        if text[i] == '"':
            quoted = not quoted
        elif not quoted and text.startswith("//", i):
            return True
    return False


def _code_matches(pattern: re.Pattern, text: str) -> list:
    return [m for m in pattern.finditer(text) if not _in_comment(text, m.start())]


def _first_code_match(pattern: re.Pattern, text: str):
    found = _code_matches(pattern, text)
    return found[0] if found else None


def _tile_dims(line: str) -> list:
    return [tuple(int(d) for d in m.group(1).rstrip("x").split("x"))
            for m in _TILE.finditer(line)]


def _pow2_ceil(x: int) -> int:
    v = 1
    while v < x:
        v *= 2
    return v


@dataclass
class Group:
    """One distinct tile attribute value and where it is written."""

    kind: str                 # "cube_tile" or "vec_tile"
    name: str
    card: tuple
    spans: list = field(default_factory=list)   # (start, end) of each occurrence
    lines: list = field(default_factory=list)
    split_k: bool = False
    # For cube tiles: (M, K, N) of each matmul on the lines; for vector tiles:
    # the dims of the tiles on the lines.
    shapes: list = field(default_factory=list)


def _option_value(body: str, key: str):
    """The value text of `key = ...` in an attribute body, or None."""
    m = re.search(rf"\b{key}\s*=\s*", body)
    if not m:
        return None
    rest = body[m.end():]
    if rest.startswith("{"):
        return rest[:rest.index("}") + 1]
    return re.match(r"[^,\s>]+", rest).group(0)


def _split_top_level(body: str) -> list:
    """An attribute body split at its top-level commas (not inside [], {},
    () or strings), each part with its whitespace; [] for an empty body."""
    if not body.strip():
        return []
    parts, depth, quoted, last = [], 0, False, 0
    for i, ch in enumerate(body):
        if ch == '"' and (i == 0 or body[i - 1] != "\\"):
            quoted = not quoted
        elif not quoted and ch in "[{(":
            depth += 1
        elif not quoted and ch in "]})":
            depth -= 1
        elif not quoted and ch == "," and depth == 0:
            parts.append(body[last:i])
            last = i + 1
    parts.append(body[last:])
    return parts


def _normalize_merge(text):
    """`{-1:1,0:4}` -> `{-1 : 1, 0 : 4}`, as the printer writes it."""
    if text is None:
        return None
    body = text.strip()
    if not (body.startswith("{") and body.endswith("}")):
        raise MlirTuneError(f"'{text}' is not a merge setting (write e.g. {{-1 : 2, 0 : 4}})")
    items = [i.strip() for i in re.split(r",(?![^()]*\))", body[1:-1]) if i.strip()]
    out = []
    for item in items:
        k, sep, v = item.partition(":")
        if not sep:
            raise MlirTuneError(f"'{text}': '{item}' is not KEY : VALUE")
        out.append(f"{k.strip()} : {v.strip()}")
    return "{" + ", ".join(out) + "}"


class MlirKernel:
    """A `.mlir` file with one pto.kernel, its tunable attributes located."""

    def __init__(self, path: Path):
        self.path = path
        try:
            self.text = path.read_text()
        except OSError as e:
            raise MlirTuneError(f"cannot read '{path}': {e.strerror}") from None
        kernels = [m.group(1) for m in _code_matches(_KERNEL, self.text)]
        if len(kernels) != 1:
            raise MlirTuneError(
                f"'{path}' has {len(kernels)} pto.kernel ops; pto-tune tunes a file with "
                "exactly one (split the file)")
        self.kernel_name = kernels[0]
        arch = _first_code_match(_ARCH, self.text)
        self.arch = arch.group(1) if arch else "DAV_2201"  # pto.kernel's default
        self.groups: list[Group] = []
        self._find_groups("cube_tile", _CUBE)
        self._find_groups("vec_tile", _VEC)
        self.runtime = _first_code_match(_RUNTIME, self.text)
        self.passopts = _first_code_match(_PASS, self.text)
        self.card = {g.name: g.card for g in self.groups}
        self.card["stitch_function_max_num"] = self._int_option("stitch_function_max_num")
        self.card["device_sched_mode"] = self._int_option("device_sched_mode")
        if any(g.kind == "cube_tile" for g in self.groups):
            self.card["cube_l1_reuse_setting"] = self._merge_option("cube_l1_reuse_setting")
        if any(g.kind == "vec_tile" for g in self.groups):
            self.card["vec_nbuffer_setting"] = self._merge_option("vec_nbuffer_setting")

    def _int_option(self, key):
        v = _option_value(self.runtime.group(1), key) if self.runtime else None
        return int(v) if v is not None else None

    def _merge_option(self, key):
        v = _option_value(self.passopts.group(1), key) if self.passopts else None
        return _normalize_merge(v)

    def _find_groups(self, kind: str, pattern: re.Pattern):
        found: dict = {}
        for m in _code_matches(pattern, self.text):
            if kind == "cube_tile":
                value = tuple(int(m.group(i)) for i in range(1, 7))
                key = (value, bool(m.group(7)))
            else:
                value = tuple(int(d) for d in re.split(r"\s*,\s*", m.group(1)))
                key = (value, False)
            if key not in found:
                found[key] = Group(kind, "", value, split_k=key[1])
            g = found[key]
            g.spans.append((m.start(), m.end()))
            line = _line_text(self.text, m.start())
            g.lines.append(_line_of(self.text, m.start()))
            dims = _tile_dims(line)
            if kind == "vec_tile":
                g.shapes.extend(d for d in dims if len(d) == len(value))
            elif "pto.matmul" in line and len(dims) >= 3 and all(len(d) == 2 for d in dims[:3]):
                a, _, c = dims[:3]
                k = a[0] if re.search(r"\ba_trans\b", line) else a[1]
                g.shapes.append((c[0], k, c[1]))
        groups = list(found.values())
        for i, g in enumerate(groups):
            g.name = kind if len(groups) == 1 else f"{kind}_{i}"
        self.groups.extend(groups)

    # --- writing a configuration back ---------------------------------------

    @staticmethod
    def _cube_text(v: tuple, split_k: bool) -> str:
        return (f"#pto.cube_tile<m = [{v[0]}, {v[1]}], k = [{v[2]}, {v[3]}], "
                f"n = [{v[4]}, {v[5]}]{', split_k' if split_k else ''}>")

    @staticmethod
    def _vec_text(v: tuple) -> str:
        return f"#pto.vec_tile<[{', '.join(map(str, v))}]>"

    def render(self, config: dict, arch: str | None = None) -> str:
        """The kernel's text with `config` (parameter -> value) written in;
        parameters absent from `config` keep the kernel's value."""
        edits = []  # (start, end, replacement)
        for g in self.groups:
            v = config.get(g.name, g.card)
            dims = len(g.card) if g.kind == "vec_tile" else 6
            if len(v) != dims:
                raise MlirTuneError(f"{g.name}: {v} has {len(v)} values; the kernel's has {dims}")
            text = self._cube_text(v, g.split_k) if g.kind == "cube_tile" else self._vec_text(v)
            if v != g.card:
                edits.extend((s, e, text) for s, e in g.spans)
        edits.extend(self._option_edits(
            self.runtime, "runtime_options",
            {k: config[k] for k in INT_OPTIONS if k in config},
            lambda v: str(int(v))))
        edits.extend(self._option_edits(
            self.passopts, "pass_options",
            {k: _normalize_merge(config[k]) for k in MERGE_OPTIONS if k in config},
            str))
        if arch and arch != self.arch:
            m = _first_code_match(_ARCH, self.text)
            if m:
                edits.append((m.start(), m.end(), f"#pto.arch<{arch}>"))
            else:
                edits.append(("entry", f"arch = #pto.arch<{arch}>"))
        entries = [e[1] for e in edits if e[0] == "entry"]
        edits = [e for e in edits if e[0] != "entry"]
        if entries:  # new kernel attributes, in one insertion
            edits.extend(self._insert_kernel_attribute(", ".join(sorted(entries))))
        out, last = [], 0
        for s, e, r in sorted(edits, key=lambda x: (x[0], x[1])):
            out.append(self.text[last:s])
            out.append(r)
            last = e
        out.append(self.text[last:])
        return "".join(out)

    def _option_edits(self, match, attr: str, values: dict, spell) -> list:
        card = {k: self.card.get(k) for k in values}
        changed = {k: v for k, v in values.items() if v != card[k]}
        if not changed:
            return []
        if match is None:
            body = ", ".join(f"{k} = {spell(v)}" for k, v in changed.items() if v is not None)
            return [("entry", f"{attr} = #pto.{attr}<{body}>")] if body else []
        parts = _split_top_level(match.group(1))
        keys = [p.split("=", 1)[0].strip() for p in parts]
        lead = re.match(r"\s*", parts[0]).group(0) if parts else ""
        for key, v in changed.items():
            if key in keys:
                i = keys.index(key)
                if v is None:
                    del parts[i], keys[i]
                else:
                    old = _option_value(parts[i], key)
                    m = re.search(rf"\b{key}\s*=\s*", parts[i])
                    parts[i] = parts[i][:m.end()] + spell(v) + parts[i][m.end() + len(old):]
            elif v is not None:
                parts.append(f" {key} = {spell(v)}")
                keys.append(key)
        if parts:  # the first entry keeps the attribute's leading layout
            parts[0] = lead + parts[0].lstrip()
        return [(match.start(1), match.end(1), ",".join(parts))]

    def _insert_kernel_attribute(self, entry: str) -> list:
        """An edit adding `entry` to the kernel's attribute dictionary,
        creating `attributes {...}` after the argument list if needed."""
        m = _first_code_match(_KERNEL, self.text)
        depth, i = 1, m.end()
        while depth and i < len(self.text):
            depth += {"(": 1, ")": -1}.get(self.text[i], 0)
            i += 1
        after = re.match(r"\s*attributes\s*\{", self.text[i:])
        if after:
            pos = i + after.end()
            sep = "," if self.text[pos:pos + 1] == "\n" else ", "
            return [(pos, pos, f"{entry}{sep}")]
        return [(i, i, f" attributes {{{entry}}}")]


# --- the search space -----------------------------------------------------------

def _cube_space(p: dict, g: Group) -> list:
    caps = None
    if g.shapes:
        caps = tuple(max(_pow2_ceil(s[i]) for s in g.shapes) for i in range(3))
    sizes = []
    v = FRACTAL
    while v <= 512:
        sizes.append(v)
        v *= 2
    fits = []
    for m, k, n in itertools.product(sizes, repeat=3):
        if caps and (m > max(caps[0], FRACTAL) or k > max(caps[1], FRACTAL)
                     or n > max(caps[2], FRACTAL)):
            continue
        a, b, c = m * k * 2, n * k * 2, m * n * 4
        if a > p["l0a_bytes"] or b > p["l0b_bytes"] or c > p["l0c_bytes"]:
            continue
        fill = max(a / p["l0a_bytes"], b / p["l0b_bytes"], c / p["l0c_bytes"])
        fits.append((fill, m, k, n))
    out = {g.card}
    best = max((f[0] for f in fits), default=0)
    for fill, m, k, n in fits:
        if fill < 0.5 * best:
            continue
        for fk, fn in ((1, 1), (2, 1), (2, 2)):
            kl1, nl1 = k * fk, n * fn
            if caps and (kl1 > max(caps[1], FRACTAL) or nl1 > max(caps[2], FRACTAL)):
                continue
            if 2 * (m * kl1 + kl1 * nl1) * 2 > p["l1_bytes"]:
                continue
            out.add((m, m, k, kl1, n, nl1))
    return sorted(out)


def _vec_space(p: dict, g: Group, buffers: int = 4) -> list:
    out = {g.card}
    if len(g.card) != 2:
        return sorted(out)  # only 2-D vector tiles are varied
    rows_cap = max((_pow2_ceil(s[0]) for s in g.shapes), default=1024)
    cols = {g.card[1]} | {s[1] for s in g.shapes if (s[1] * 4) % p["buffer_align_bytes"] == 0}
    for c in cols:
        r = 8
        while r <= min(rows_cap, 1024):
            if buffers * r * c * 4 <= p["ub_bytes"]:
                out.add((r, c))
            r *= 2
    return sorted(out)


def default_space(kernel: MlirKernel, p: dict) -> dict:
    space = {}
    for g in kernel.groups:
        space[g.name] = _cube_space(p, g) if g.kind == "cube_tile" else _vec_space(p, g)
    card = kernel.card
    if "cube_l1_reuse_setting" in card:
        space["cube_l1_reuse_setting"] = list(dict.fromkeys(
            [card["cube_l1_reuse_setting"], "{-1 : 1}", "{-1 : 2, 0 : 4}"]))
    if "vec_nbuffer_setting" in card:
        space["vec_nbuffer_setting"] = list(dict.fromkeys(
            [card["vec_nbuffer_setting"], "{-1 : 2}"]))
    space["stitch_function_max_num"] = list(dict.fromkeys(
        [card["stitch_function_max_num"], 128, 256, 512, 1024]))
    space["device_sched_mode"] = list(dict.fromkeys([card["device_sched_mode"], 0, 1, 2, 3]))
    return space


def parse_value(name: str, text: str, card):
    text = text.strip()
    if text.lower() == "none":
        return None
    if name.startswith(("cube_tile", "vec_tile")):
        try:
            return tuple(int(p) for p in re.split(r"[x/ ]+", text) if p)
        except ValueError:
            raise MlirTuneError(f"'{text}' is not a tuple of integers (write e.g. 64x256)") from None
    if name in INT_OPTIONS:
        try:
            return int(text)
        except ValueError:
            raise MlirTuneError(f"'{text}' is not an integer") from None
    return _normalize_merge(text)


# --- cases ------------------------------------------------------------------------

@dataclass
class MlirCase:
    """The data of one estimate: pto-run arguments (shapes, files, a folder)."""

    name: str
    args: list
    weight: float = 1.0


def parse_case(text: str) -> MlirCase:
    """`NAME=AxB,NAME2=FILE.npy[:WEIGHT]` (a float argument by shape, any
    argument by file), or `DIR[:WEIGHT]` (pto-run --input-dir DIR)."""
    body, weight = text, 1.0
    head, sep, tail = text.rpartition(":")
    if sep and re.fullmatch(r"[\d.eE+-]+", tail):
        body, weight = head, float(tail)
    if weight <= 0:
        raise MlirTuneError(f"case '{text}': the weight must be > 0")
    if "=" not in body:
        if not Path(body).is_dir():
            raise MlirTuneError(f"case '{text}': '{body}' is not a folder of NAME.npy files; "
                                "write NAME=AxB,NAME2=FILE.npy or a folder")
        return MlirCase(Path(body).name, ["--input-dir", str(Path(body).resolve())], weight)
    args = []
    for part in body.split(","):
        name, _, value = part.partition("=")
        name, value = name.strip(), value.strip()
        if not name or not value:
            raise MlirTuneError(f"case '{text}': '{part}' is not NAME=SHAPE or NAME=FILE.npy")
        if re.fullmatch(r"\d+(x\d+)*(:\w+)?", value):
            args += ["--input", f"{name}=shape:{value}"]
        else:
            path = Path(value)
            if not path.is_file():
                raise MlirTuneError(f"case '{text}': '{value}' is neither a shape (AxB) "
                                    "nor a .npy file")
            args += ["--input", f"{name}={path.resolve()}"]
    return MlirCase(body, args, weight)


# --- estimating ---------------------------------------------------------------------

def estimate_mlir(kernel: MlirKernel, arch: str, cases: list, values: dict, workdir: Path):
    """One candidate: the edited kernel verified (prune), compiled with
    --pto-tile-graph-pipeline (prune), estimated per case with pto-run
    --simulate --no-numerics."""
    from pto_mlir import tune_estimate

    est = tune_estimate.Estimate(dict(values))
    directory = Path(tempfile.mkdtemp(dir=workdir))
    opt, run = tool("pto-opt"), tool("pto-run")
    try:
        text = kernel.render(values, arch=arch)
    except MlirTuneError as e:
        est.pruned = str(e)
        return est
    source, out = directory / "k.mlir", directory / "k_tg.mlir"
    source.write_text(text)
    pruned, workspace = tune_estimate.compile_tile_graph(opt, source, out)
    if pruned:
        est.pruned = pruned
        return est
    sim = ARCH_NAMES[arch]
    total_w = sum(c.weight for c in cases)
    for case in cases:
        r = tune_estimate._run([run, out, *case.args, f"--simulate={sim}", "--no-numerics"])
        if r.returncode:
            est.pruned = "pto-run: " + tune_estimate._first_error(r.stderr)
            return est
        m = tune_estimate.parse_report(r.stdout)
        m["workspace_mib"] = workspace / 2**20
        est.add_case(case.name, case.weight / total_w, m)
    return est.finish(cases)


# --- the command --------------------------------------------------------------------

class MlirTuner:
    """The estimator `tune.search` drives: one estimate per configuration,
    cached (coordinate descent revisits configurations)."""

    def __init__(self, kernel: MlirKernel, arch: str, cases: list, workdir: Path):
        import threading

        self.kernel, self.arch, self.cases, self.workdir = kernel, arch, cases, workdir
        self.cache: dict = {}
        self.lock = threading.Lock()

    def key(self, values: dict) -> tuple:
        return tuple(sorted((k, repr(v)) for k, v in values.items()))

    def estimate(self, values: dict):
        key = self.key(values)
        with self.lock:
            if key in self.cache:
                return self.cache[key]
        result = estimate_mlir(self.kernel, self.arch, self.cases, values, self.workdir)
        with self.lock:
            self.cache[key] = result
        return result


def run(a) -> int:
    """`pto-tune --kernel FILE.mlir ...` (arguments parsed by tune.main)."""
    import dataclasses
    import json
    import sys
    import time

    from pto_mlir import tune

    return _run(a, tune, dataclasses, json, sys, time)


def _run(a, tune, dataclasses, json, sys, time) -> int:
    path = Path(a.kernel)
    kernel = MlirKernel(path)
    if kernel.arch not in ARCH_NAMES:
        raise MlirTuneError(f"'{path}': arch {kernel.arch} has no cost model "
                            f"(known: {', '.join(ARCH_NAMES)})")
    arch = tune.ARCHES[a.arch] if a.arch else kernel.arch
    if a.set:
        raise MlirTuneError("--set is for a generator; a .mlir kernel's fixed values are "
                            "its text")
    if a.budget < 1 or a.jobs < 1:
        raise MlirTuneError("--budget and --jobs must be >= 1")
    if a.plot and a.plot.suffix.lower() not in (".png", ".svg"):
        raise MlirTuneError(f"--plot '{a.plot}': the file must end in .png or .svg")
    cases = [parse_case(t) for t in a.case] if a.case else [MlirCase("default", [])]
    if len({c.name for c in cases}) != len(cases):
        raise MlirTuneError("a case is given twice")
    # Values are split at commas outside braces (a merge setting is a {...} dict).
    space, card = tune.narrow_space(
        default_space(kernel, tune.platform(ARCH_NAMES[arch])), a.param, a.only,
        known=kernel.card, owner=f"'{path.name}' ({', '.join(kernel.card)})",
        parse=lambda name, values: [parse_value(name, v, kernel.card[name])
                                    for v in re.split(r",(?![^{}]*\})", values)
                                    if v.strip()],
        card_value=kernel.card.__getitem__, error=MlirTuneError)

    print(f"pto-tune: {path.name} (pto.kernel @{kernel.kernel_name}) on "
          f"{ARCH_NAMES[arch]} ({arch}), cases "
          + ", ".join(f"{c.name} (weight {c.weight:g})" for c in cases))
    for g in kernel.groups:
        lines = ", ".join(map(str, g.lines[:8])) + (", ..." if len(g.lines) > 8 else "")
        n = len(space[g.name]) if g.name in space else 0
        tried = f"{n} candidate{'s' if n != 1 else ''}" if n else "not tuned"
        print(f"parameter {g.name}: {tune.fmt_value(g.card)} ({len(g.spans)} "
              f"op{'s' if len(g.spans) != 1 else ''}, line{'s' if len(g.lines) != 1 else ''} "
              f"{lines}); {tried}")
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="pto-tune-") as tmp:
        tuner = MlirTuner(kernel, arch, cases, Path(tmp))
        show = sys.stderr.isatty() and not a.no_progress
        results, how = tune.search(tuner, space, card, a.budget, a.jobs, show)
        card_est = tuner.estimate(card)
        if not any(r.config == card for r in results):
            results.append(card_est)
    elapsed = time.perf_counter() - started
    best = min((e for e in results if e.ok), key=lambda e: e.time_us, default=None)
    tune.print_search_report(results, card, card_est, best, how, elapsed, a.jobs, a.top,
                             MlirTuneError)
    tuned = kernel.render(best.config, arch=arch)
    if a.emit_best:
        a.emit_best.write_text(tuned)
    if a.write_back:
        path.write_text(tuned)
        print(f"written back to {path}")
    if a.write_config:
        a.write_config.write_text(json.dumps(
            {"kernel": str(path), "arch": ARCH_NAMES[arch], "config": best.config,
             "time_us": best.time_us}, indent=2, default=list) + "\n")
    if a.json:
        a.json.write_text(json.dumps([dataclasses.asdict(e) for e in results], indent=1,
                                     default=list) + "\n")
    if a.plot:
        tune.plot(results, card_est, a.plot)
    return 0
