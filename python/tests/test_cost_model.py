"""The cost model (`pto-run --simulate=a3|950 --trace`, docs/CostModel.md).

SK-16 with the small tiles runs through `--pto-tile-graph-pipeline` and
`pto-run --simulate`; the report must be complete and sane (positive time,
utilisations in (0, 1], TFLOPS at most the peak, a bigger case takes longer)
and the Chrome trace must be well formed (valid JSON, required keys, events
on declared cores, no two events overlapping on one core).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pto_mlir import sk16_ir
from pto_mlir.golden import sk16
from pto_mlir.tools import input_args, run_tool

SMALL = dict(s1_tile=96, s2_tile=112, c_tile=(64, 128, 64, 128, 64, 128),
             v_tile_s=(32, 128), v_tile_d=(32, 128))


def sk16_flops(case) -> int:
    """sk16.md §7.5: 10 * s1_b * s2_b * D per (b, h)."""
    return sum(10 * s1 * s2 * case.D * case.N
               for s1, s2 in zip(case.q_seqlens, case.kv_seqlens))


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    """The small-tile SK-16 kernel per (N, D), through the whole pipeline."""
    root = tmp_path_factory.mktemp("cost_model")
    cache = {}

    def get(N: int, D: int) -> Path:
        if (N, D) not in cache:
            source = root / f"sk16_n{N}_d{D}.mlir"
            source.write_text(sk16_ir.emit(sk16_ir.Sk16Config(heads=N, head_dim=D, **SMALL)))
            out = root / f"sk16_n{N}_d{D}_tg.mlir"
            r = run_tool("pto-opt", source, "--pto-tile-graph-pipeline", "-o", out)
            assert r.returncode == 0, r.stderr[-3000:]
            cache[N, D] = out
        return cache[N, D]

    return get


def simulate(kernel: Path, case, directory: Path, arch: str = "a3", flops: bool = True):
    directory.mkdir(exist_ok=True)
    inputs = sk16.make_inputs(case, seed=3)
    args = input_args(directory, inputs, sk16.DTYPES, sk16.INPUT_NAMES)
    trace = directory / "trace.json"
    extra = ["--sim-flops", str(sk16_flops(case))] if flops else []
    r = run_tool("pto-run", kernel, *args, f"--simulate={arch}", f"--trace={trace}", *extra)
    assert r.returncode == 0, r.stderr[-3000:]
    return parse_report(r.stdout), json.loads(trace.read_text())


def parse_report(text: str) -> dict:
    def number(pattern):
        m = re.search(pattern, text)
        assert m, f"report lacks /{pattern}/:\n{text}"
        return float(m.group(1))

    return {
        "time_us": number(r"time: ([\d.]+) us"),
        "schedule_us": number(r"schedule ([\d.]+) us"),
        "hbm_us": number(r"HBM ([\d.]+) us"),
        "launches": number(r"launches: (\d+)"),
        "flops": number(r"flops: ([\d.e+]+) \("),
        "convention": "(convention)" in text,
        "tflops": number(r"\btflops: ([\d.]+);"),
        "matmul_tflops": number(r"matmul tflops: ([\d.]+)"),
        "peak_tflops": number(r"peak tflops: ([\d.]+)"),
        "cube_util": number(r"cube utilisation: ([\d.]+) %") / 100,
        "vector_util": number(r"vector utilisation: ([\d.]+) %") / 100,
        "cube_busy": number(r"cube busy: ([\d.]+) %") / 100,
        "vector_busy": number(r"vector busy: ([\d.]+) %") / 100,
        "gm_read_mib": number(r"gm traffic: read ([\d.]+) MiB"),
        "gm_write_mib": number(r"write ([\d.]+) MiB"),
        "families": set(re.findall(r"family (\S+):", text)),
    }


def check_trace(trace: dict, report: dict):
    assert isinstance(trace["traceEvents"], list)
    threads = {(e["pid"], e["tid"]) for e in trace["traceEvents"]
               if e.get("ph") == "M" and e["name"] == "thread_name"}
    spans = [e for e in trace["traceEvents"] if e.get("ph") == "X"]
    assert len(spans) == report["launches"]
    by_core = {}
    for e in spans:
        for key in ("name", "ph", "pid", "tid", "ts", "dur"):
            assert key in e, f"trace event lacks {key}: {e}"
        assert (e["pid"], e["tid"]) in threads, f"event on an undeclared core: {e}"
        assert e["ts"] >= 0 and e["dur"] > 0
        by_core.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["ts"] + e["dur"]))
    for core, intervals in by_core.items():
        intervals.sort()
        for (s0, e0), (s1, e1) in zip(intervals, intervals[1:]):
            assert s1 >= e0 - 1e-6, f"overlapping events on {core}: {(s0, e0)} {(s1, e1)}"
    end = max(e["ts"] + e["dur"] for e in spans)
    assert end == pytest.approx(report["schedule_us"], rel=1e-3, abs=1e-3)


def check_sane(report: dict):
    assert report["time_us"] > 0
    assert report["time_us"] >= report["schedule_us"] - 1e-3
    assert report["launches"] > 0
    assert report["convention"]
    for key in ("cube_util", "vector_util", "cube_busy", "vector_busy"):
        assert 0 < report[key] <= 1, (key, report[key])
    assert report["cube_util"] <= report["cube_busy"] + 1e-4
    assert 0 < report["tflops"] <= report["peak_tflops"]
    assert 0 < report["matmul_tflops"] <= report["peak_tflops"]
    assert report["gm_read_mib"] > 0 and report["gm_write_mib"] > 0
    assert {"C1", "V1", "C2", "V2"} <= report["families"]


def test_report_and_trace(compiled, tmp_path):
    case = sk16.CASES["test_09"]
    report, trace = simulate(compiled(case.N, case.D), case, tmp_path / "a3")
    check_sane(report)
    # TFLOPS follow the sk16 convention: flops / time.
    assert report["flops"] == pytest.approx(sk16_flops(case), rel=1e-4)
    assert report["tflops"] == pytest.approx(
        report["flops"] / (report["time_us"] * 1e-6) / 1e12, rel=2e-2)
    check_trace(trace, report)


def test_950(compiled, tmp_path):
    case = sk16.CASES["test_09"]
    report, trace = simulate(compiled(case.N, case.D), case, tmp_path / "950", arch="950")
    check_sane(report)
    check_trace(trace, report)
    assert report["peak_tflops"] > 400  # 32 AIC at 1.65 GHz


def test_bigger_case_takes_longer(compiled, tmp_path):
    small, big = sk16.CASES["test_05"], sk16.CASES["test_08"]
    assert (small.N, small.D) == (big.N, big.D)
    kernel = compiled(small.N, small.D)
    r_small, _ = simulate(kernel, small, tmp_path / "small")
    r_big, _ = simulate(kernel, big, tmp_path / "big")
    assert r_big["time_us"] > r_small["time_us"]
    assert r_big["flops"] > r_small["flops"]


def test_without_convention_reports_matmul_flops(compiled, tmp_path):
    case = sk16.CASES["test_05"]
    report, _ = simulate(compiled(case.N, case.D), case, tmp_path / "m", flops=False)
    assert not report["convention"]
    assert report["tflops"] == pytest.approx(report["matmul_tflops"], rel=1e-3)


def test_usage_errors(compiled, tmp_path):
    case = sk16.CASES["test_05"]
    r = run_tool("pto-run", compiled(case.N, case.D), "--simulate=a9")
    assert r.returncode == 2 and "--simulate expects a3 or 950" in r.stderr
    r = run_tool("pto-run", compiled(case.N, case.D), "--trace=x.json")
    assert r.returncode == 2 and "--trace needs --simulate" in r.stderr
