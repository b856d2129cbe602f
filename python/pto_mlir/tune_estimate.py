"""pto-tune's estimate of one configuration (docs/Tuning.md): the kernel
emitted at it, pruned by the verifier, the tile-graph pipeline and the
Ascend pipeline up to memory planning, then estimated by ``pto-run
--simulate=ARCH --no-numerics`` on each case, weighted."""

from __future__ import annotations

import re
import subprocess
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

from pto_mlir.tools import tool
from pto_mlir.tune_space import ARCHES, PIPELINE_PARAMS, Case, KernelSpec, TuneError, pipeline_flag


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

    def add_case(self, name: str, weight: float, report: dict) -> None:
        """Folds one case's pto-run report in, `weight` its share of the total."""
        self.per_case[name] = report
        self.time_us += weight * report["time_us"]
        self.peak_pct += weight * 100 * report["tflops"] / report["peak_tflops"]
        self.launches += report["launches"]
        self.gm_gib += report["gm_mib"] / 1024
        self.workspace_mib = max(self.workspace_mib, report["workspace_mib"])

    def finish(self, cases: list) -> "Estimate":
        """Every case added: bound by what bounds the heaviest weighted case."""
        heaviest = max(cases, key=lambda c: c.weight * self.per_case[c.name]["time_us"])
        self.bound = self.per_case[heaviest.name]["bound"]
        self.ok = True
        return self


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
            est.add_case(case.name, case.weight / total_w, m)
        return est.finish(self.cases)
