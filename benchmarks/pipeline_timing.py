#!/usr/bin/python3
"""Per-pass compile time of the whole pipeline to C++ (benchmarks/README.md).

SK-16 (A3 tiles) repeated in modules of 1, 10 and 100 renamed kernels
through `pto-opt --pto-ascend-pipeline` (the tile-graph pipeline, lowering to
pto_isa, memory planning, sync insertion) under `-mlir-timing`, then
`pto-translate --pto-to-cpp` on its output: time per kernel of every
`-mlir-timing` entry, the 100 / 1 ratio (1.00 = linear), and the
translation's wall and CPU time per kernel.

Wall times follow the machine's load. A second table repeats the pipeline
under `-mlir-disable-threading` (one thread: a pass's time is its own, not
the verifier threads' or another kernel's) with the process's CPU time
beside it, best of three runs at 1 kernel and of two at 10 (the run with the
least CPU time); its per-pass times are still wall times. Instruction
counts (callgrind) are the load-independent measure: benchmarks/results.md.

    benchmarks/pipeline_timing.py [--quick]

--quick: 1 and 3 kernels.
"""

from __future__ import annotations

import argparse
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))

from pto_mlir import sk16_ir  # noqa: E402
from pto_mlir.tools import tool  # noqa: E402

# One wall-time column, or (when the pass manager ran kernels on several
# threads) a User+System column before it: the wall time is the last number.
TIMING = re.compile(r"^\s+(?:[\d.]+ \(\s*[\d.]+%\)\s+)?([\d.]+) \(\s*[\d.]+%\)\s+(\w+)$",
                    re.M)


def run_pipeline(module: Path, isa: Path, *extra: str) -> tuple[dict, float]:
    """`-mlir-timing` entries (seconds) and process CPU seconds of one
    `pto-opt --pto-ascend-pipeline` run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = subprocess.run([str(tool("pto-opt")), str(module), "--pto-ascend-pipeline",
                        "-mlir-timing", *extra, "-o", str(isa)], capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode:
        raise SystemExit(f"pto-opt --pto-ascend-pipeline failed:\n{r.stderr[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {name: float(t) for t, name in TIMING.findall(r.stderr)}, cpu


def per_kernel_rows(entries: dict, counts, extra_rows) -> list[list[str]]:
    """Rows of ms per kernel at every count and the last / first ratio."""
    first, last = counts[0], counts[-1]
    names = [n for n in entries[first] if n != "Total"] + ["Total"]
    rows = []
    for label, values in [(n, {c: entries[c].get(n, 0.0) for c in counts}) for n in names] \
            + extra_rows:
        per = [values[c] / c * 1e3 for c in counts]
        ratio = f"{per[-1] / per[0]:.2f}" if per[0] > 1e-3 else "-"
        rows.append([label] + [f"{v:.2f}" for v in per] + [ratio])
    return rows


def pipeline_timing(rep, quick: bool) -> dict:
    rep.heading("Compile time per pass, the whole pipeline to C++ (benchmarks/pipeline_timing.py)")
    counts = (1, 3) if quick else (1, 10, 100)
    entries, translate, translate_cpu, cpu = {}, {}, {}, {}
    single, single_cpu = {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for count in counts:
            module = tmp / f"sk16_x{count}.mlir"
            module.write_text("\n".join(
                sk16_ir.emit(sk16_ir.Sk16Config(kernel_name=f"sk16_k{i}"))
                for i in range(count)))
            isa = tmp / f"sk16_x{count}_isa.mlir"
            # CPU time is steadier than the wall times when the cores are shared.
            entries[count], cpu[count] = run_pipeline(module, isa)
            t0 = time.perf_counter()
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            r = subprocess.run([str(tool("pto-translate")), "--pto-to-cpp", str(isa), "-o",
                                str(tmp / f"sk16_x{count}.cpp")], capture_output=True, text=True)
            translate[count] = time.perf_counter() - t0
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            translate_cpu[count] = ((after.ru_utime - before.ru_utime)
                                    + (after.ru_stime - before.ru_stime))
            if r.returncode:
                raise SystemExit(f"pto-translate failed:\n{r.stderr[-3000:]}")
            # One thread, repeated where cheap: the run with the least CPU time.
            for _ in range(3 if count == 1 else 2 if count <= 10 else 1):
                timing, used = run_pipeline(module, tmp / "single.mlir",
                                            "-mlir-disable-threading")
                if count not in single_cpu or used < single_cpu[count]:
                    single[count], single_cpu[count] = timing, used
    first, last = counts[0], counts[-1]
    rows = per_kernel_rows(entries, counts, [
        ("pto-opt process CPU (user + sys)", cpu),
        ("pto-translate --pto-to-cpp (wall)", translate),
        ("pto-translate --pto-to-cpp process CPU (user + sys)", translate_cpu)])
    rep.text("SK-16 (A3 tiles) repeated in one module (renamed kernels), one run each, "
             "`pto-opt --pto-ascend-pipeline -mlir-timing` (wall time per `-mlir-timing` "
             "entry; `Parser` and `Output` are reading and printing, not passes) and "
             "`pto-translate --pto-to-cpp` on its output; ms per kernel, on this "
             "machine's 2 shared cores. *pto-opt process CPU*: user + system time of "
             "the whole pto-opt process (parsing, printing and the verifier's "
             "threads included), steadier than the wall times when the cores are "
             "shared.")
    rep.table(["entry"] + [f"{c} kernel{'s' if c > 1 else ''}" for c in counts]
              + [f"{last} / {first}"], rows)
    rows = per_kernel_rows(single, counts, [
        ("pto-opt process CPU (user + sys)", single_cpu)])
    rep.text("The same pipeline under `-mlir-disable-threading` (one thread), the run "
             "with the least process CPU time of 3 at 1 kernel, 2 at 10, 1 at 100; "
             "ms per kernel, wall per `-mlir-timing` entry and the process's CPU time. "
             "Under load both still move with the other processes on the cores; "
             "instruction counts (callgrind) do not.")
    rep.table(["entry (one thread)"] + [f"{c} kernel{'s' if c > 1 else ''}" for c in counts]
              + [f"{last} / {first}"], rows)
    return {"entries": entries, "translate": translate, "translate_cpu": translate_cpu,
            "cpu": cpu, "single": single, "single_cpu": single_cpu}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true")
    a = p.parse_args()
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from scaling import PlainReport
    pipeline_timing(PlainReport(), a.quick)
    return 0


if __name__ == "__main__":
    sys.exit(main())
