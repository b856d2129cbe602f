"""The per-pipe utilisation plot of a modelled run (pto_mlir.pipe_utilisation):
busy time is conserved, shared by the pool's cores, and drawn as SVG."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from pto_mlir import pipe_utilisation

PYTHON_DIR = Path(__file__).resolve().parents[1]


def trace(*launches, cube_cores=2, vector_cores=4) -> dict:
    events = [{"ph": "M", "name": "thread_name", "pid": pid, "tid": t}
              for pid, n in ((1, cube_cores), (2, vector_cores)) for t in range(n)]
    for pid, ts, dur, pipes in launches:
        events.append({"ph": "X", "name": "l", "pid": pid, "tid": 0, "ts": ts, "dur": dur,
                       "args": {"pipes_us": pipes}})
    return {"traceEvents": events}


def test_busy_time_is_conserved_and_shared_by_the_cores():
    t = trace((1, 0.0, 10.0, {"M": 10.0, "MTE2": 5.0}), (2, 5.0, 5.0, {"V": 5.0}))
    result = pipe_utilisation.utilisation(t, bins=10)
    width = result["edges_us"][1]
    assert result["edges_us"][-1] == pytest.approx(10.0)
    # One of the two cube cores runs M the whole time: half the cube M pipes.
    assert result["cube"]["M"] == pytest.approx([0.5] * 10)
    assert result["cube"]["MTE2"] == pytest.approx([0.25] * 10)
    # One of four vector cores runs V over the second half.
    assert result["vector"]["V"] == pytest.approx([0.0] * 5 + [0.25] * 5)
    for pool, cores, busy in (("cube", 2, 15.0), ("vector", 4, 5.0)):
        total = sum(sum(series) for series in result[pool].values()) * width * cores
        assert total == pytest.approx(busy)


def test_svg_and_csv_from_the_command_line(tmp_path):
    path = tmp_path / "t.json"
    path.write_text(json.dumps(trace((1, 0.0, 4.0, {"M": 4.0}))))
    r = subprocess.run([sys.executable, "-m", "pto_mlir.pipe_utilisation", path,
                        "-o", tmp_path / "u.svg", "--bins", "8", "--csv", tmp_path / "u.csv"],
                       cwd=PYTHON_DIR, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    root = ET.parse(tmp_path / "u.svg").getroot()
    lines = root.findall("{http://www.w3.org/2000/svg}polyline")
    assert len(lines) == 1   # only the pipe that was busy
    rows = (tmp_path / "u.csv").read_text().splitlines()
    assert rows[0].startswith("start_us,cube_MTE2") and len(rows) == 9


def test_not_a_trace_is_a_message(tmp_path):
    path = tmp_path / "t.json"
    path.write_text("{}")
    r = subprocess.run([sys.executable, "-m", "pto_mlir.pipe_utilisation", path,
                        "-o", tmp_path / "u.svg"], cwd=PYTHON_DIR, capture_output=True, text=True)
    assert r.returncode == 2 and "not a Chrome trace: no traceEvents list" in r.stderr
    assert "Traceback" not in r.stderr
