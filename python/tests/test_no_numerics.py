"""`pto-run --simulate --no-numerics` (docs/CostModel.md#estimates-without-numerics).

The run without numerics must print exactly the report of the numeric run and
observe the same launch graph (`--sim-dump-graph`, byte for byte) and run
statistics: on the SK-16 test matrix (every case of benchmarks/results.md's
SK-16 tables, at small shapes: N = 2, sequence lengths scaled to at most 256,
the small tiles of test_cost_model) and on SK-01, with the float arguments
given as shapes (`--input q=shape:...`) and the integer offsets as values.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from pto_mlir import sk01_ir
from pto_mlir.golden import save_tensor, sk01, sk16
from pto_mlir.tools import compile_tile_graph, run_tool

def small_case(case: sk16.Sk16Case) -> sk16.Sk16Case:
    """The case with 2 heads and its sequence lengths scaled to at most 256
    (ratios between batches kept), so the whole matrix runs in seconds."""
    longest = max(case.q_seqlens + case.kv_seqlens)
    scale = min(1.0, 256 / longest)
    return sk16.Sk16Case(case.name, [max(1, int(s * scale)) for s in case.q_seqlens],
                         [max(1, int(s * scale)) for s in case.kv_seqlens], 2, case.D)


def both_runs(kernel: Path, inputs: dict, dtypes: dict, names, directory: Path, *extra):
    """Runs `kernel` under --simulate twice, with data and without numerics
    (float arguments as shapes), and returns (stdout, graph, stats) of each."""
    directory.mkdir(parents=True, exist_ok=True)
    numeric, shapes = [], []
    for name in names:
        path = directory / f"{name}.npy"
        save_tensor(path, inputs[name], dtypes[name])
        numeric += ["--input", f"{name}={path}"]
        if dtypes[name].startswith("int"):
            shapes += ["--input", f"{name}={path}"]
        else:
            shape = "x".join(map(str, np.shape(inputs[name])))
            shapes += ["--input", f"{name}=shape:{shape}:{dtypes[name].replace('fp', 'f')}"]
    results = []
    for tag, args in (("numeric", numeric), ("shapes", shapes + ["--no-numerics"])):
        graph = directory / f"{tag}_graph.json"
        r = run_tool("pto-run", kernel, *args, f"--sim-dump-graph={graph}", "--run-stats",
                     *extra)
        assert r.returncode == 0, f"{tag}: {r.stderr[-3000:]}"
        # The run statistics without the wall time.
        stats = re.sub(r", [\d.]+ s$", "", r.stderr, flags=re.M)
        results.append((r.stdout, graph.read_text(), stats))
    return results


def assert_same(results):
    (out_n, graph_n, stats_n), (out_s, graph_s, stats_s) = results
    assert "time:" in out_n and "launches:" in out_n, out_n
    assert out_s == out_n
    assert graph_s == graph_n
    assert stats_s == stats_n


@pytest.mark.parametrize("name", [n for n in sk16.CASES])
def test_sk16_matrix_same_report(sk16_small_tile_graph, tmp_path, name):
    case = small_case(sk16.get_case(name))
    kernel = sk16_small_tile_graph(case.N, case.D)
    assert_same(both_runs(kernel, sk16.make_inputs(case, seed=5), sk16.DTYPES,
                          sk16.INPUT_NAMES, tmp_path, "--simulate=a3",
                          f"--sim-flops={sk16.flops(case)}"))


def test_sk16_950_same_report(sk16_small_tile_graph, tmp_path):
    case = small_case(sk16.get_case("test_09"))
    assert_same(both_runs(sk16_small_tile_graph(case.N, case.D), sk16.make_inputs(case, seed=5),
                          sk16.DTYPES, sk16.INPUT_NAMES, tmp_path, "--simulate=950"))


def test_sk01_same_report(tmp_path):
    cfg = sk01_ir.Sk01Config(heads=2, head_dim=64, q_tile=64, kv_tile=128,
                             c1_tile=(64,) * 6, c2_tile=(64,) * 6, v1_tile=(32, 128),
                             v2_tile=(32, 64))
    source, kernel = tmp_path / "sk01.mlir", tmp_path / "sk01_tg.mlir"
    source.write_text(sk01_ir.emit(cfg))
    compile_tile_graph(source, kernel)
    case = sk16.Sk16Case(name="sk01", q_seqlens=(100, 192), kv_seqlens=(320, 130), N=2,
                         D=64, benchmark_only=True)
    assert_same(both_runs(kernel, sk01.make_inputs(case, seed=1), sk01.DTYPES,
                          sk01.INPUT_NAMES, tmp_path / "run", "--simulate=a3"))
