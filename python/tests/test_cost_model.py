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

from pto_mlir.golden import sk16
from pto_mlir.tools import compile_tile_graph, input_args, run_tool

def sk16_flops(case) -> int:
    """docs/SK16.md#flop-count: 10 * s1_b * s2_b * D per (b, h)."""
    return sum(10 * s1 * s2 * case.D * case.N
               for s1, s2 in zip(case.q_seqlens, case.kv_seqlens))


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
        "text": text,
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


def test_report_and_trace(sk16_small_tile_graph, tmp_path):
    case = sk16.CASES["test_09"]
    report, trace = simulate(sk16_small_tile_graph(case.N, case.D), case, tmp_path / "a3")
    check_sane(report)
    # TFLOPS follow the sk16 convention: flops / time.
    assert report["flops"] == pytest.approx(sk16_flops(case), rel=1e-4)
    assert report["tflops"] == pytest.approx(
        report["flops"] / (report["time_us"] * 1e-6) / 1e12, rel=2e-2)
    check_trace(trace, report)


def test_950(sk16_small_tile_graph, tmp_path):
    case = sk16.CASES["test_09"]
    report, trace = simulate(sk16_small_tile_graph(case.N, case.D), case, tmp_path / "950",
                             arch="950")
    check_sane(report)
    check_trace(trace, report)
    assert report["peak_tflops"] > 400  # 32 AIC at 1.65 GHz


def test_bigger_case_takes_longer(sk16_small_tile_graph, tmp_path):
    small, big = sk16.CASES["test_05"], sk16.CASES["test_08"]
    assert (small.N, small.D) == (big.N, big.D)
    kernel = sk16_small_tile_graph(small.N, small.D)
    r_small, _ = simulate(kernel, small, tmp_path / "small")
    r_big, _ = simulate(kernel, big, tmp_path / "big")
    assert r_big["time_us"] > r_small["time_us"]
    assert r_big["flops"] > r_small["flops"]


def test_without_convention_reports_matmul_flops(sk16_small_tile_graph, tmp_path):
    case = sk16.CASES["test_05"]
    report, _ = simulate(sk16_small_tile_graph(case.N, case.D), case, tmp_path / "m", flops=False)
    assert not report["convention"]
    assert report["tflops"] == pytest.approx(report["matmul_tflops"], rel=1e-3)


def test_usage_errors(sk16_small_tile_graph, tmp_path):
    case = sk16.CASES["test_05"]
    r = run_tool("pto-run", sk16_small_tile_graph(case.N, case.D), "--simulate=a9")
    assert r.returncode == 2 and "--simulate expects a3 or 950" in r.stderr
    r = run_tool("pto-run", sk16_small_tile_graph(case.N, case.D), "--trace=x.json")
    assert r.returncode == 2 and "--trace needs --simulate" in r.stderr
    for flag, bad, rule in (("--sim-launch-overhead-us", "-1", ">= 0"),
                            ("--sim-submit-us", "nan", ">= 0"),
                            ("--sim-fairness-us", "inf", ">= 0"),
                            ("--sim-flops", "0", "> 0"),
                            ("--sim-l2-tbps", "-2", "> 0")):
        r = run_tool("pto-run", sk16_small_tile_graph(case.N, case.D), "--simulate=a3",
                     f"{flag}={bad}")
        assert r.returncode == 2, (flag, r.stderr)
        assert f"{flag} expects a finite number {rule}, got" in r.stderr, r.stderr


# --- The runtime model on synthetic launch graphs (pto-run --sim-graph) -----

MIB = 1 << 20


def simulate_graph(tmp_path: Path, graph: dict, *extra, name="graph"):
    """Schedules a launch graph (docs/CostModel.md format); returns the report
    and the trace's launch events in graph order."""
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(graph))
    trace = tmp_path / f"{name}_trace.json"
    r = run_tool("pto-run", path, "--sim-graph", "--simulate=a3", f"--trace={trace}", *extra)
    assert r.returncode == 0, r.stderr[-3000:]
    spans = [e for e in json.loads(trace.read_text())["traceEvents"] if e.get("ph") == "X"]
    spans.sort(key=lambda e: e["args"]["launch"])
    return parse_report(r.stdout), spans


def gm_bound(i: int, mib: int = 4, workspace: bool = False) -> dict:
    """A vector launch streaming its own kernel tensor (MTE2-bound)."""
    return {"name": "gm", "pool": "vector", "stitch": 0, "instance": i,
            "reads": [{"tensor": f"in{i}", "bytes": mib * MIB, "workspace": workspace}]}


def compute_bound() -> dict:
    """A cube launch doing 256 x 256 x 8192 matmuls on 64 KiB of input."""
    return {"name": "mm", "pool": "cube", "stitch": 0, "instance": 999,
            "reads": [{"tensor": "w", "bytes": 64 * 1024}],
            "matmuls": [[256, 256, 8192]]}


def tensors(count: int, mib: int = 4) -> dict:
    t = {f"in{i}": mib * MIB for i in range(count)}
    t["w"] = 64 * 1024
    return t


def test_gm_contention(tmp_path):
    """Concurrent GM-bound launches share the chip's bandwidth: one launch
    alone runs at its core's rate; 48 at once (48 AIV x 59 GB/s > the 1.6 TB/s
    HBM) each take longer, and the whole run respects the HBM bound. A
    compute-bound launch running beside them is not slowed."""
    _, solo = simulate_graph(tmp_path, {"tensors": tensors(1), "launches": [gm_bound(0)]},
                             name="solo")
    _, mm_solo = simulate_graph(tmp_path, {"tensors": tensors(0),
                                           "launches": [compute_bound()]}, name="mm")
    crowd = {"tensors": tensors(48), "launches": [gm_bound(i) for i in range(48)]
             + [compute_bound()]}
    report, spans = simulate_graph(tmp_path, crowd, name="crowd")
    alone = solo[0]["dur"]
    gm_spans, mm = spans[:48], spans[48]
    assert all(s["ts"] == pytest.approx(gm_spans[0]["ts"]) for s in gm_spans)  # concurrent
    assert min(s["dur"] for s in gm_spans) > 1.3 * alone
    # The run cannot beat 48 x 4 MiB at the HBM bandwidth (1.6 TB/s).
    assert report["time_us"] >= 48 * 4 * MIB / 1.6e12 * 1e6
    assert report["time_us"] == pytest.approx(report["hbm_us"] + solo[0]["args"]["overhead_us"]
                                              + 2, rel=0.05)
    assert mm["dur"] == pytest.approx(mm_solo[0]["dur"], rel=1e-6)
    # The trace's counter track: the HBM is granted up to, never beyond, 1.6 TB/s.
    counters = [e for e in json.loads((tmp_path / "crowd_trace.json").read_text())["traceEvents"]
                if e.get("ph") == "C"]
    hbm = [e["args"]["HBM"] for e in counters]
    assert counters and max(hbm) == pytest.approx(1600, rel=1e-3)
    # Without contention every launch keeps its solo time.
    _, free = simulate_graph(tmp_path, crowd, "--sim-no-contention", name="free")
    assert all(s["dur"] == pytest.approx(alone, rel=1e-6) for s in free[:48])


def test_gm_contention_l2_workspaces(tmp_path):
    """Workspace traffic (L2, 110 B/cycle per core) saturates the L2 instead,
    here at 4.9 TB/s (--sim-l2-tbps): 48 AIV x 203 GB/s > 4.9 TB/s; 8 launches
    (1.6 TB/s) do not. At the platform's 14.7 TB/s (every core's port) the 48
    fit."""
    few = {"tensors": tensors(8), "launches": [gm_bound(i, workspace=True) for i in range(8)]}
    many = {"tensors": tensors(48),
            "launches": [gm_bound(i, workspace=True) for i in range(48)]}
    _, s_few = simulate_graph(tmp_path, few, "--sim-l2-tbps=4.9", name="few")
    _, s_many = simulate_graph(tmp_path, many, "--sim-l2-tbps=4.9", name="many")
    assert all(s["dur"] == pytest.approx(s_few[0]["dur"], rel=1e-6) for s in s_few)
    assert min(s["dur"] for s in s_many) > 1.3 * s_few[0]["dur"]
    report, s_default = simulate_graph(tmp_path, many, name="many_default")
    assert "(L2 14.7 TB/s)" in report["text"]
    assert all(s["dur"] == pytest.approx(s_few[0]["dur"], rel=1e-6) for s in s_default)


def test_l2_bandwidth_flag_rejects_nonsense(tmp_path):
    graph = tmp_path / "g.json"
    graph.write_text(json.dumps({"tensors": tensors(1), "launches": [gm_bound(0)]}))
    for bad in ("0", "-1", "nan", "inf"):
        r = run_tool("pto-run", graph, "--sim-graph", "--simulate=a3", f"--sim-l2-tbps={bad}")
        assert r.returncode == 2, (bad, r.stdout, r.stderr)
        assert "--sim-l2-tbps expects a finite number > 0" in r.stderr


def test_persistent_graph_pays_no_dispatch(tmp_path):
    """`"persistent": true`: the launches are stages of resident kernels, so
    neither the launch overhead nor the device-task submission is charged,
    whatever the flags say; a dumped graph keeps the field."""
    chain = [{"name": f"s{i}", "pool": "vector", "stitch": 0, "instance": 0,
              "deps": [i - 1] if i else [], "vector_elements": 65536} for i in range(4)]
    plain = {"tensors": {"x": 1}, "launches": chain}
    report, spans = simulate_graph(tmp_path, plain, name="plain")
    assert all(s["args"]["overhead_us"] == pytest.approx(1.5) for s in spans)
    resident = dict(plain, persistent=True)
    dump = tmp_path / "dump.json"
    report_p, spans_p = simulate_graph(tmp_path, resident, "--sim-launch-overhead-us=3",
                                       f"--sim-dump-graph={dump}", name="resident")
    assert all(s["args"]["overhead_us"] == 0 for s in spans_p)
    assert spans_p[0]["args"]["submit_us"] == 0
    assert "persistent kernel stages" in report_p["text"]
    body = sum(s["args"]["body_us"] for s in spans_p)
    assert report_p["time_us"] == pytest.approx(body, abs=1e-3)  # printed to 3 decimals
    assert report["time_us"] == pytest.approx(body + 4 * 1.5 + 2, abs=1e-3)
    assert json.loads(dump.read_text())["persistent"] is True
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(dict(plain, persistent="yes")))
    r = run_tool("pto-run", bad, "--sim-graph", "--simulate=a3")
    assert r.returncode != 0 and "'persistent' is true or false" in r.stderr


# --- Conflicts at region granularity (docs/CostModel.md "Readiness") ---------

def region(lo: tuple, hi: tuple, shape=(64, 64)) -> dict:
    return {"shape": list(shape), "lo": list(lo), "hi": list(hi)}


def two_instances(first: dict, second: dict, kinds=("writes", "writes")) -> dict:
    """Two vector launches of two root instances of one stitch, each touching
    `out` (64 x 64 FP32) as `kinds` says, in the given regions (None: no
    region, i.e. the whole tensor)."""
    def launch(i, kind, reg):
        access = {"tensor": "out", "bytes": 4096}
        if reg is not None:
            access["region"] = reg
        return {"name": f"l{i}", "pool": "vector", "stitch": 0, "instance": i,
                "vector_elements": 1 << 20, kind: [access]}
    return {"tensors": {"out": 64 * 64 * 4},
            "launches": [launch(0, kinds[0], first), launch(1, kinds[1], second)]}


@pytest.mark.parametrize("name, first, second, kinds, ordered", [
    ("disjoint rows", region((0, 0), (32, 64)), region((32, 0), (64, 64)), None, False),
    ("overlapping rows", region((0, 0), (40, 64)), region((32, 0), (64, 64)), None, True),
    ("disjoint columns", region((0, 0), (64, 16)), region((0, 16), (64, 64)), None, False),
    ("corner overlap", region((0, 0), (33, 17)), region((32, 16), (64, 64)), None, True),
    ("no region: whole tensor", None, region((32, 0), (64, 64)), None, True),
    ("read after write, disjoint", region((0, 0), (32, 64)), region((32, 0), (64, 64)),
     ("writes", "reads"), False),
    ("read after write, overlapping", region((0, 0), (32, 64)), region((0, 0), (1, 1)),
     ("writes", "reads"), True),
    ("reads commute", region((0, 0), (64, 64)), region((0, 0), (64, 64)),
     ("reads", "reads"), False),
    ("atomics commute", region((0, 0), (64, 64)), region((0, 0), (64, 64)),
     ("atomics", "atomics"), False),
    ("atomic after read, overlapping", region((0, 0), (64, 64)), region((8, 8), (9, 9)),
     ("reads", "atomics"), True),
    # A reshape of the same storage: the boxes' element ranges are compared.
    ("other shape, apart", region((0, 0), (32, 64)), region((2048,), (4096,), (4096,)), None,
     False),
    ("other shape, overlapping", region((0, 0), (32, 64)), region((2047,), (2049,), (4096,)),
     None, True),
])
def test_instances_conflict_where_regions_intersect(tmp_path, name, first, second, kinds,
                                                    ordered):
    """Launches of different root instances are ordered only where a write
    (or an atomic against a read or write) meets an intersecting region of
    the same tensor, as PyPTO's runtime matches cells."""
    graph = two_instances(first, second, kinds or ("writes", "writes"))
    _, spans = simulate_graph(tmp_path, graph, name="g")
    a, b = spans
    if ordered:
        assert b["ts"] >= a["ts"] + a["dur"] - 1e-6, name
    else:
        assert b["ts"] == pytest.approx(a["ts"]), name
    # A dump keeps the regions: re-scheduling it gives the same schedule.
    dump = tmp_path / "dump.json"
    path = tmp_path / "g.json"
    r = run_tool("pto-run", path, "--sim-graph", "--simulate=a3", f"--sim-dump-graph={dump}")
    assert r.returncode == 0, r.stderr[-2000:]
    _, again = simulate_graph(tmp_path, json.loads(dump.read_text()), name="again")
    assert [s["ts"] for s in again] == pytest.approx([s["ts"] for s in spans])


@pytest.mark.parametrize("bad", [
    {"shape": [64, 64], "lo": [0], "hi": [32, 64]},
    {"shape": [64, 64], "lo": [0, 0], "hi": [65, 64]},
    {"shape": [64, 64], "lo": [8, 0], "hi": [4, 64]},
    {"shape": [], "lo": [], "hi": []},
    {"lo": [0, 0], "hi": [1, 1]},
])
def test_bad_region_is_rejected(tmp_path, bad):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(two_instances(bad, None)))
    r = run_tool("pto-run", path, "--sim-graph", "--simulate=a3")
    assert r.returncode != 0
    assert ('launch 0: a region is {"shape", "lo", "hi"}, lists of one length with '
            '0 <= lo <= hi <= shape') in r.stderr, r.stderr


def sched_graph() -> dict:
    """24 long cube launches fill the AICs; 24 more (B) are ready at once and
    queue; a vector launch V finishes early and readies a cube launch C after
    the B's. FIFO serves the B's first, L2 affinity (latest ready) serves C."""
    t = {"x": 1024}
    long_cube = lambda i, name: {"name": name, "pool": "cube", "stitch": 0, "instance": i,
                                 "matmuls": [[256, 256, 4096]]}
    launches = [long_cube(i, "A") for i in range(24)] + \
               [long_cube(24 + i, "B") for i in range(24)]
    launches.append({"name": "V", "pool": "vector", "stitch": 0, "instance": 100,
                     "vector_elements": 1024, "writes": [{"tensor": "x"}]})
    launches.append({"name": "C", "pool": "cube", "stitch": 0, "instance": 100,
                     "deps": [48], "matmuls": [[128, 128, 128]], "reads": [{"tensor": "x"}]})
    return {"tensors": t, "launches": launches}


def test_sched_mode_policies(tmp_path):
    results = {}
    for mode in range(4):
        report, spans = simulate_graph(tmp_path, sched_graph(), f"--sim-sched-mode={mode}",
                                       name=f"mode{mode}")
        results[mode] = spans
    for mode, spans in results.items():
        a, b, c = spans[:24], spans[24:48], spans[49]
        first_free = min(s["ts"] + s["dur"] for s in a)
        assert c["args"]["ready_us"] < first_free  # C waits in the queue with the B's
        assert c["args"]["ready_us"] > max(s["args"]["ready_us"] for s in b)
        if mode in (0, 2):  # FIFO: every B before C
            assert c["ts"] >= max(s["ts"] for s in b)
            assert c["ts"] > first_free
        else:  # affinity: C first when the first AIC frees
            assert c["ts"] == pytest.approx(first_free)
            assert max(s["ts"] for s in b) > c["ts"]
    # Fairness (2, 3) costs its overhead on every launch.
    for plain, fair in ((0, 2), (1, 3)):
        for p, f in zip(results[plain], results[fair]):
            assert f["args"]["overhead_us"] == pytest.approx(p["args"]["overhead_us"] + 0.2)


def check_policy(spans: list, lifo: bool):
    """FIFO: no launch starts while an earlier-ready one of its pool waits.
    LIFO: no launch starts while a later-ready one of its pool waits."""
    import numpy as np
    for pool in (1, 2):
        s = [e for e in spans if e["pid"] == pool]
        ready = np.array([e["args"]["ready_us"] for e in s])
        start = np.array([e["ts"] for e in s])
        eps = 1e-6
        # waiting[x, y]: y is ready and not started when x starts.
        waiting = (ready[None, :] <= start[:, None] + eps) & (start[None, :] > start[:, None] + eps)
        if lifo:
            bad = waiting & (ready[None, :] > ready[:, None] + eps)
        else:
            bad = waiting & (ready[None, :] < ready[:, None] - eps)
        assert not bad.any(), f"pool {pool}: {np.argwhere(bad)[:5]}"


def test_sched_mode_on_sk16(sk16_small_tile_graph, tmp_path):
    """SK-16 (kernel option device_sched_mode = 3): the report follows the
    kernel's option unless --sim-sched-mode overrides it, each schedule obeys
    its queue policy, and the two policies give different schedules."""
    case = sk16.CASES["test_05"]
    kernel = sk16_small_tile_graph(case.N, case.D)
    d = tmp_path / "run"
    d.mkdir()
    args = input_args(d, sk16.make_inputs(case, seed=3), sk16.DTYPES, sk16.INPUT_NAMES)
    graph = d / "graph.json"
    r = run_tool("pto-run", kernel, *args, "--simulate=a3", f"--sim-dump-graph={graph}")
    assert r.returncode == 0, r.stderr[-3000:]
    assert "device_sched_mode: 3" in r.stdout
    direct = parse_report(r.stdout)
    loaded = json.loads(graph.read_text())
    spans = {}
    for mode in (0, 1, 3):
        report, spans[mode] = simulate_graph(tmp_path, loaded, f"--sim-sched-mode={mode}",
                                             name=f"sk16_{mode}")
        if mode == 3:  # the dumped graph re-schedules to the same result
            assert report["time_us"] == pytest.approx(direct["time_us"], rel=1e-6)
    check_policy(spans[0], lifo=False)
    check_policy(spans[1], lifo=True)
    assert [e["ts"] for e in spans[0]] != [e["ts"] for e in spans[1]]


# --- Device-task boundaries by the runtime's rules (SK-01) -------------------

def test_sk01_merged_stitches_keep_the_online_chain(tmp_path):
    """SK-01 with one q tile and five kv tiles: the interpreter runs nearly
    every root call as its own stitch (the control program views carried
    tiles). The model merges those stitches into one device task, so the kv
    steps' independent work overlaps, while the online-softmax update chain
    stays serial: each step's update roots start after the previous step's
    end (they read its carried tiles). Without merging it is slower."""
    from pto_mlir import sk01_ir
    from pto_mlir.golden import sk01

    cfg = sk01_ir.Sk01Config(heads=1, head_dim=64, q_tile=64, kv_tile=128,
                             c1_tile=(64,) * 6, c2_tile=(64,) * 6, v1_tile=(32, 128),
                             v2_tile=(32, 64))
    source, kernel = tmp_path / "sk01.mlir", tmp_path / "sk01_tg.mlir"
    source.write_text(sk01_ir.emit(cfg))
    compile_tile_graph(source, kernel)
    case = sk16.Sk16Case(name="one_q_tile", q_seqlens=(64,), kv_seqlens=(640,), N=1, D=64,
                         benchmark_only=True)
    args = input_args(tmp_path, sk01.make_inputs(case, seed=1), sk01.DTYPES, sk01.INPUT_NAMES)
    runs = {}
    for name, extra in (("merged", []), ("interpreter", ["--sim-no-merge"])):
        trace, graph = tmp_path / f"{name}.json", tmp_path / f"{name}_graph.json"
        r = run_tool("pto-run", kernel, *args, "--simulate=a3", f"--trace={trace}",
                     f"--sim-dump-graph={graph}", *extra)
        assert r.returncode == 0, r.stderr[-3000:]
        spans = [e for e in json.loads(trace.read_text())["traceEvents"] if e.get("ph") == "X"]
        runs[name] = (parse_report(r.stdout), spans, r.stdout, graph)
    merged, spans, text, graph = runs["merged"]
    plain = runs["interpreter"][0]
    m = re.search(r"in (\d+) device tasks \((\d+) stitches run, (\d+) merged", text)
    assert m and int(m.group(1)) < 4 < int(m.group(2)), text
    assert merged["time_us"] < 0.6 * plain["time_us"]
    # The update roots (one leaf per root; several launches each), in
    # execution order: the instances of each leaf run one after another.
    by_leaf = {}
    for e in spans:
        by_leaf.setdefault(e["args"]["leaf"], {}).setdefault(e["args"]["instance"], []).append(e)
    chained = set()
    for leaf, instances in by_leaf.items():
        if len(instances) < 4:
            continue
        order = [instances[i] for i in sorted(instances)]
        starts = [min(e["ts"] for e in inst) for inst in order]
        ends = [max(e["ts"] + e["dur"] for e in inst) for inst in order]
        if all(s >= e - 1e-6 for s, e in zip(starts[1:], ends[:-1])):
            chained.add(leaf)
    # The carried accumulators give the online-softmax update (one V2 task
    # per kv step: pto-partition does not cut it at the views the loop
    # yields) a serial chain over the four update steps.
    assert any("_leaf_V2_" in leaf for leaf in chained), (
        chained, {k: len(v) for k, v in by_leaf.items()})
    # Re-scheduling the dumped graph (tile reads and device tasks included)
    # reproduces the run.
    again, _ = simulate_graph(tmp_path, json.loads(graph.read_text()), name="again")
    assert again["time_us"] == pytest.approx(merged["time_us"], rel=1e-9)


def test_sk01_q_blocks_store_apart(tmp_path):
    """SK-01 with four q tiles: every q block's last task writes its own rows
    of `output`. The observed regions say so (the dumped graph's writes of
    kernel tensors carry boxes, disjoint across root instances), so the model
    does not order those stores; with the regions dropped (whole tensors, the
    model before) the same graph is slower."""
    from pto_mlir import sk01_ir
    from pto_mlir.golden import sk01

    cfg = sk01_ir.Sk01Config(heads=1, head_dim=64, q_tile=64, kv_tile=128,
                             c1_tile=(64,) * 6, c2_tile=(64,) * 6, v1_tile=(32, 128),
                             v2_tile=(32, 64))
    source, kernel = tmp_path / "sk01.mlir", tmp_path / "sk01_tg.mlir"
    source.write_text(sk01_ir.emit(cfg))
    compile_tile_graph(source, kernel)
    case = sk16.Sk16Case(name="four_q_tiles", q_seqlens=(256,), kv_seqlens=(256,), N=1, D=64,
                         benchmark_only=True)
    args = input_args(tmp_path, sk01.make_inputs(case, seed=1), sk01.DTYPES, sk01.INPUT_NAMES)
    graph = tmp_path / "graph.json"
    r = run_tool("pto-run", kernel, *args, "--simulate=a3", f"--sim-dump-graph={graph}")
    assert r.returncode == 0, r.stderr[-3000:]
    direct = parse_report(r.stdout)
    g = json.loads(graph.read_text())
    stores = {}  # kernel tensor -> [(instance, region)]
    for launch in g["launches"]:
        for w in launch["writes"]:
            if not w["workspace"]:
                assert "region" in w, w
                stores.setdefault(w["tensor"], []).append((launch["instance"], w["region"]))

    def apart(a, b):
        return any(ha <= lb or hb <= la
                   for la, ha, lb, hb in zip(a["lo"], a["hi"], b["lo"], b["hi"]))

    # output: 4 q blocks, each its own 64 rows.
    blocks = max(stores.values(), key=len)
    assert len({i for i, _ in blocks}) == 4, stores
    for x, (i, a) in enumerate(blocks):
        for j, b in blocks[x + 1:]:
            if i != j:
                assert apart(a, b), (a, b)
    again, _ = simulate_graph(tmp_path, g, name="regions")
    assert again["time_us"] == pytest.approx(direct["time_us"], rel=1e-9)
    for launch in g["launches"]:
        for kind in ("reads", "writes", "atomics"):
            for access in launch[kind]:
                access.pop("region", None)
    whole, _ = simulate_graph(tmp_path, g, name="whole")
    assert whole["time_us"] > direct["time_us"]
