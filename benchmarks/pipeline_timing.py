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
beside it: every entry is its least time over three runs at 1 kernel and two
at 10 and 100 (best of N per pass, so one slow moment in one run does not
count), and where the machine has a hardware instruction counter (`perf stat
-e instructions:u`), the process's instructions per kernel, which do not
depend on the load. The load average at each module size is printed beside.
Instruction counts from callgrind: docs/CompileTime.md.

    benchmarks/pipeline_timing.py [--quick]

--quick: 1 and 3 kernels.
"""

from __future__ import annotations

import argparse
import re
import os
import resource
import shutil
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
# Names as printed ("'func.func' Pipeline"); a pass that runs in two places
# (CSE on functions and on kernels, pto-isa-insert-sync nested and on the
# module) is summed.
TIMING = re.compile(r"^\s+(?:[\d.]+ \(\s*[\d.]+%\)\s+)?([\d.]+) \(\s*[\d.]+%\)\s+([^\d\s].*?)\s*$",
                    re.M)


def instruction_counter() -> bool:
    """Whether `perf stat` can count this machine's user-space instructions
    (not in most virtual machines)."""
    if not shutil.which("perf"):
        return False
    with tempfile.NamedTemporaryFile("r", suffix=".csv") as out:
        r = subprocess.run(["perf", "stat", "-x,", "-e", "instructions:u", "-o", out.name,
                            "--", "true"], capture_output=True, text=True)
        return r.returncode == 0 and re.search(r"^\d+,", out.read(), re.M) is not None


def run_pipeline(module: Path, isa: Path, *extra: str,
                 count_instructions: bool = False) -> tuple[dict, float, float | None]:
    """`-mlir-timing` entries (seconds), process CPU seconds and (when asked)
    user-space instructions of one `pto-opt --pto-ascend-pipeline` run."""
    cmd = [str(tool("pto-opt")), str(module), "--pto-ascend-pipeline", "-mlir-timing",
           *extra, "-o", str(isa)]
    stat = isa.with_suffix(".perf.csv")
    if count_instructions:
        cmd = ["perf", "stat", "-x,", "-e", "instructions:u", "-o", str(stat), "--"] + cmd
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = subprocess.run(cmd, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode:
        raise SystemExit(f"pto-opt --pto-ascend-pipeline failed:\n{r.stderr[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    instructions = None
    if count_instructions:
        m = re.search(r"^(\d+),", stat.read_text(), re.M)
        instructions = float(m.group(1)) if m else None
    entries: dict[str, float] = {}
    for t, name in TIMING.findall(r.stderr):
        entries[name] = entries.get(name, 0.0) + float(t)
    return entries, cpu, instructions


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
    single, single_cpu, instructions, load = {}, {}, {}, {}
    counted = instruction_counter()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for count in counts:
            module = tmp / f"sk16_x{count}.mlir"
            module.write_text("\n".join(
                sk16_ir.emit(sk16_ir.Sk16Config(kernel_name=f"sk16_k{i}"))
                for i in range(count)))
            isa = tmp / f"sk16_x{count}_isa.mlir"
            # CPU time is steadier than the wall times when the cores are shared.
            load[count] = os.getloadavg()[0]
            entries[count], cpu[count], _ = run_pipeline(module, isa)
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
            # One thread, repeated: every entry's least time over
            # the runs (best of N per pass), and the least CPU time.
            for _ in range(3 if count == 1 else 2):
                timing, used, executed = run_pipeline(module, tmp / "single.mlir",
                                                      "-mlir-disable-threading",
                                                      count_instructions=counted)
                best = single.setdefault(count, {})
                for name, t in timing.items():
                    best[name] = min(best.get(name, t), t)
                single_cpu[count] = min(single_cpu.get(count, used), used)
                if executed is not None:
                    instructions[count] = min(instructions.get(count, executed), executed)
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
    if instructions:
        # Millions of instructions per kernel, shown in the ms columns' place.
        per = [instructions[c] / c / 1e6 for c in counts]
        rows.append(["pto-opt instructions, millions (perf stat)"]
                    + [f"{v:.0f}" for v in per] + [f"{per[-1] / per[0]:.2f}"])
    loads = ", ".join(f"{load[c]:.1f} at {c}" for c in counts)
    rep.text("The same pipeline under `-mlir-disable-threading` (one thread); every "
             "entry is its least time over 3 runs at 1 kernel, 2 at 10 and at 100 (best "
             "of N per entry), ms per kernel, wall per `-mlir-timing` entry and the "
             "process's least CPU time. Under load both still move with the other "
             "processes on the cores (load average before each module size: "
             f"{loads}); "
             + ("the instruction row (`perf stat -e instructions:u`, user space, least "
                "of the runs) does not." if instructions else
                "instruction counts do not, but this machine has no hardware "
                "instruction counter for `perf stat`."))
    rep.table(["entry (one thread)"] + [f"{c} kernel{'s' if c > 1 else ''}" for c in counts]
              + [f"{last} / {first}"], rows)
    return {"entries": entries, "translate": translate, "translate_cpu": translate_cpu,
            "cpu": cpu, "single": single, "single_cpu": single_cpu,
            "instructions": instructions, "load": load}


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
