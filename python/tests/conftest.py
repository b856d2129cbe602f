"""Make the in-tree ``pto_mlir`` package importable without installation."""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


# SK-16 at small tiles: every sequence length of the test matrix has tails.
SK16_SMALL_TILES = dict(s1_tile=96, s2_tile=112, c_tile=(64, 128, 64, 128, 64, 128),
                        v_tile_s=(32, 128), v_tile_d=(32, 128))


@pytest.fixture(scope="session")
def sk16_small_tile_graph(tmp_path_factory):
    """The small-tile SK-16 kernel per (N, D) through --pto-tile-graph-pipeline,
    compiled once per session (test_cost_model and test_no_numerics share it)."""
    from pto_mlir import sk16_ir
    from pto_mlir.tools import compile_tile_graph

    root = tmp_path_factory.mktemp("sk16_small_tile_graph")
    cache = {}

    def get(N: int, D: int):
        if (N, D) not in cache:
            source = root / f"sk16_n{N}_d{D}.mlir"
            source.write_text(sk16_ir.emit(sk16_ir.Sk16Config(heads=N, head_dim=D,
                                                              **SK16_SMALL_TILES)))
            cache[N, D] = compile_tile_graph(source, root / f"sk16_n{N}_d{D}_tg.mlir")
        return cache[N, D]

    return get


def pytest_configure(config):
    # the PyPTO-Gym tests the corpus harness imports mark cases with their SoC
    config.addinivalue_line("markers", "soc(name): PyPTO-Gym's target SoC of a test")


def pytest_sessionfinish(session):
    """Under pytest-xdist (`make check-python` runs `-n logical --dist loadfile`) the
    corpus table is filled in the worker that ran test_pypto_gym.py: hand it
    to the controller, which prints it (pytest_testnodedown)."""
    workeroutput = getattr(session.config, "workeroutput", None)
    corpus = sys.modules.get("pypto_gym_corpus")
    if workeroutput is not None and getattr(corpus, "RESULTS", None):
        workeroutput["pypto_gym_results"] = corpus.RESULTS
        workeroutput["pypto_gym_unexercised"] = getattr(corpus, "UNEXERCISED", None) or {}


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    results = getattr(node, "workeroutput", {}).get("pypto_gym_results")
    if results:
        import pypto_gym_corpus as corpus

        corpus.RESULTS = getattr(corpus, "RESULTS", None) or {}
        corpus.RESULTS.update(results)
        corpus.UNEXERCISED = node.workeroutput.get("pypto_gym_unexercised") or {}


def pytest_terminal_summary(terminalreporter):
    """The PyPTO-Gym corpus table (test_pypto_gym.py), when it ran: one row
    per case, one status per column, then each non-ok cell's reason."""
    corpus = sys.modules.get("pypto_gym_corpus")
    results = getattr(corpus, "RESULTS", None) if corpus else None
    if not results:
        return
    columns = corpus.COLUMNS
    terminalreporter.section("PyPTO-Gym corpus")
    terminalreporter.write_line(f"{'case':36}" + "".join(f"{c:12}" for c in columns))
    reasons = []
    for name in sorted(results):
        cells = results[name]
        row = f"{name:36}"
        for column in columns:
            text = cells.get(column, "-")
            status, _, reason = text.partition(": ")
            if text.startswith("ok") or status == "blocked" or "one case per suite" in text:
                reason = ""
            status = "ok" if text.startswith("ok") else status
            if reason:
                reasons.append(f"{name} / {column}: {corpus.shorten(reason)}")
            row += f"{status:12}"
        terminalreporter.write_line(row)
    for line in reasons:
        terminalreporter.write_line("  " + line)
    for kernel, why in (getattr(corpus, "UNEXERCISED", None) or {}).items():
        terminalreporter.write_line(f"  @jit {kernel}: not reached by any case ({why})")
