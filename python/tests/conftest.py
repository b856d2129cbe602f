"""Make the in-tree ``pto_mlir`` package importable without installation."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def pytest_configure(config):
    # the PyPTO-Gym tests the corpus harness imports mark cases with their SoC
    config.addinivalue_line("markers", "soc(name): PyPTO-Gym's target SoC of a test")


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
