"""pto-tune (docs/Tuning.md) on small search spaces.

SK-16 at one small case with an exhaustive 2 x 2 space over the sequence
tiles plus one cube tile the verifier rejects: the ranked table is sorted,
the rejected configuration is pruned with the verifier's reason, the card's
configuration is estimated beside the rest, the best one is written back
(JSON and kernel) and that kernel passes the golden through pto-run; a Pareto
plot is written. A space larger than the budget is searched by coordinate
descent within the budget. Usage errors exit 2 with one line.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from pto_mlir.golden import sk16
from pto_mlir.tools import REPO_ROOT, build_dir, run_tile_graph, run_tool

CASE = "B=1,N=1,S1=200,S2=300,D=64"
# The card's configuration of these tests: small tiles, so each estimate
# takes about a second.
SMALL_TILES = ["--set", "s1_tile=128", "--set", "s2_tile=128",
               "--set", "c_tile=64x128x64x128x64x128", "--set", "v_tile_s=32x128",
               "--set", "v_tile_d=32x64"]


def tune(*args, timeout=600):
    return subprocess.run([sys.executable, "-m", "pto_mlir.tune", *map(str, args)],
                          capture_output=True, text=True, cwd=REPO_ROOT / "python",
                          timeout=timeout, env=dict(os.environ, PTO_BUILD_DIR=str(build_dir())))


def table(stdout: str) -> list:
    lines = stdout.splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith("rank"))
    rows = []
    for line in lines[start + 1:]:
        if not re.match(r"\d+ ", line):
            break
        rows.append(re.split(r"\s{2,}", line.strip()))
    return rows


def test_exhaustive_small_space(tmp_path):
    best_json, best_mlir = tmp_path / "best.json", tmp_path / "best.mlir"
    plot, every = tmp_path / "pareto.svg", tmp_path / "all.json"
    r = tune("--kernel", "sk16", "--case", CASE, "--arch", "a3", *SMALL_TILES,
             "--only", "s1_tile", "s2_tile", "c_tile",
             "--param", "s1_tile=64,128", "--param", "s2_tile=64,128",
             "--param", "c_tile=64x128x64x128x64x128,512x512x64x64x512x512",
             "--write-config", best_json, "--emit-best", best_mlir, "--plot", plot,
             "--json", every, "--jobs", "2")
    assert r.returncode == 0, r.stdout + r.stderr
    out = r.stdout
    assert "search: exhaustive (8 configurations)" in out, out
    rows = table(out)
    times = [float(row[2]) for row in rows]
    assert len(rows) == 4 and times == sorted(times), out
    # The L0C overflow is pruned by the verifier, with its diagnostic.
    assert re.search(r"pruned: .*c_tile=512x512x64x64x512x512: verifier: .*does not fit L0C",
                     out), out
    estimates = json.loads(every.read_text())
    assert sum(not e["ok"] for e in estimates) == 4
    ok = [e for e in estimates if e["ok"]]
    best = min(ok, key=lambda e: e["time_us"])
    written = json.loads(best_json.read_text())
    assert written["config"]["s1_tile"] == best["config"]["s1_tile"]
    assert written["time_us"] == pytest.approx(float(rows[0][2]), abs=0.06)
    for e in ok:  # % of cube peak and the rest of each row are sane
        assert 0 < e["peak_pct"] <= 100 and e["launches"] > 0 and e["gm_gib"] > 0
    assert "card: " in out and "best: " in out
    assert plot.read_text().lstrip().startswith(("<?xml", "<svg"))
    # The best configuration, written back as the kernel, is a correct kernel.
    text = best_mlir.read_text()
    assert "cube_tile = #pto.cube_tile<m = [64, 128], k = [64, 128], n = [64, 128]>" in text
    assert f"pto.kernel @{'sk16_attention_backward'}" in text
    case = sk16.Sk16Case("tuned", (200,), (300,), 1, 64)
    inputs = sk16.make_inputs(case, seed=7)
    outputs, _ = run_tile_graph(best_mlir, tmp_path / "run", inputs, sk16.DTYPES,
                                sk16.OUTPUT_NAMES, names=sk16.INPUT_NAMES)
    sk16.assert_matches_golden(outputs, sk16.golden_backward(inputs, 1, 64))


def test_coordinate_descent_within_budget(tmp_path):
    every = tmp_path / "all.json"
    r = tune("--kernel", "sk16", "--case", CASE, "--case", "B=2,N=1,S1=64,D=64:0.5",
             *SMALL_TILES,
             "--only", "s1_tile", "s2_tile", "device_sched_mode",
             "--param", "s1_tile=64,128,256", "--param", "s2_tile=64,128,256",
             "--budget", "6", "--json", every, "--jobs", "2")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "coordinate descent from the card's configuration (36 configurations" in r.stdout
    estimates = json.loads(every.read_text())
    assert len(estimates) <= 6
    assert "(weight 0.5)" in r.stdout


def test_pipeline_options(tmp_path):
    """SK-01 with the kv loop unrolled or not (docs/Tuning.md#pipeline-options):
    each candidate is compiled with its pipeline, the unrolled kernel has fewer
    launches, and the best one's pipeline is printed and written."""
    best_json = tmp_path / "best.json"
    r = tune("--kernel", "sk01", "--case", "B=1,N=1,S1=128,S2=1024,D=128", "--arch", "a3",
             "--set", "q_tile=64", "--set", "kv_tile=128",
             "--only", "unroll_carried", "dynamic_trip_count",
             "--param", "unroll_carried=none,4", "--param", "dynamic_trip_count=1",
             "--write-config", best_json, "--jobs", "2")
    assert r.returncode == 0, r.stdout + r.stderr
    rows = {row[1]: row for row in table(r.stdout)}
    assert set(rows) == {"card", "unroll_carried=4"}, r.stdout
    assert int(rows["unroll_carried=4"][5]) < int(rows["card"][5])  # launches
    written = json.loads(best_json.read_text())
    assert "unroll_carried" not in written["config"]
    best = "unroll-carried=4" if float(rows["unroll_carried=4"][2]) < float(rows["card"][2]) \
        else None
    assert written["pipeline"] == ("--pto-tile-graph-pipeline=" + best if best
                                   else "--pto-tile-graph-pipeline")
    assert f"compiled with {written['pipeline']}" in r.stdout


@pytest.mark.parametrize("args, message", [
    (["--kernel", "nope", "--case", "test_05"], "unknown kernel 'nope'; known: sk16, sk01"),
    (["--kernel", "sk16", "--case", "test_99"], "unknown SK-16 case 'test_99'"),
    (["--kernel", "sk16", "--case", "B=1,N=1"], "write a case name (test_02) or"),
    (["--kernel", "sk16", "--case", "test_05", "--param", "s9=1"],
     "'s9' is not a parameter of Sk16Config"),
    (["--kernel", "sk16", "--case", "test_05", "--param", "c_tile=64xq"],
     "'64xq' is not a tuple of integers"),
    (["--kernel", "sk16", "--case", "test_05", "--plot", "p.pdf"],
     "the file must end in .png or .svg"),
    (["--kernel", "sk01", "--case", "test_05", "--param", "unroll_carried=0/4"],
     "unroll_carried '0/4': give factors >= 1 separated by '/'"),
    (["--kernel", "sk01", "--case", "test_05", "--param", "dynamic_trip_count=0"],
     "dynamic_trip_count '0' is not an integer >= 1"),
    (["--kernel", "sk16", "--case", "test_05", "--param", "mix_exchange=maybe"],
     "mix_exchange 'maybe' is not true or false"),
])
def test_usage_errors(args, message):
    r = tune(*args)
    assert r.returncode == 2, r.stdout + r.stderr
    assert f"pto-tune: error: " in r.stderr and message in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


def test_launcher_in_build_bin():
    r = run_tool("pto-tune", "--help")
    assert r.returncode == 0 and "--kernel" in r.stdout, r.stderr


def test_mix_exchange_pipeline_flag():
    """mix_exchange (docs/Tuning.md#pipeline-options) reaches the pipeline
    only when it differs from the default."""
    from pto_mlir.tune import pipeline_flag
    assert pipeline_flag({"mix_exchange": True}) == "--pto-tile-graph-pipeline"
    assert pipeline_flag({"mix_exchange": False, "dynamic_trip_count": 48}) == (
        "--pto-tile-graph-pipeline=dynamic-trip-count=48 mix-exchange=false")


def test_lowering_rejects_are_pruned():
    """A configuration the verifier and the tile-graph pipeline accept but the
    Ascend pipeline rejects (docs/Tuning.md#search) is pruned with the
    lowering's reason: SK-01 (its GM-accumulator form, the one the C++ chain
    takes) with [32, 256] V1 tiles at the card's cube tiles has a V1 leaf
    that does not fit UB. With --no-lowering-check it is estimated."""
    args = ["--kernel", "sk01", "--case", "B=1,N=1,S1=256,S2=256,D=128", "--arch", "a3",
            "--only", "v1_tile", "--param", "v1_tile=32x256", "--jobs", "2"]
    r = tune(*args)
    assert r.returncode == 0, r.stdout + r.stderr
    pruned = [l for l in r.stdout.splitlines() if l.startswith("pruned: ")]
    assert len(pruned) == 1, r.stdout
    assert pruned[0].startswith("pruned: v1_tile=32x256: "), pruned
    assert re.search(r"lowering: leaf @sk01_attention_forward_leaf_V1_\d+ does not fit ub "
                     r"of DAV_2201", pruned[0]), pruned
    assert "1 pruned" in r.stdout
    rows = {row[1] for row in table(r.stdout)}
    assert rows == {"card"}, r.stdout
    r = tune(*args, "--no-lowering-check")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "0 pruned" in r.stdout, r.stdout
    assert {row[1] for row in table(r.stdout)} == {"card", "v1_tile=32x256"}, r.stdout
