#!/usr/bin/python3
"""Estimates without numerics (benchmarks/README.md; docs/CostModel.md).

`pto-run --simulate=a3` on SK-16 (A3 tiles, the full pipeline) with data and
with `--no-numerics` (float arguments given as shapes, only actual_q /
actual_kv as files): wall time and peak resident memory of each process, the
speed-up, and whether the two reports are identical. Without numerics a
larger case (1 x 8 x 16384 x 16384 x 128: 16x the tensor bytes of test_02)
shows that the memory follows the schedule (launches), not the tensors.

    benchmarks/no_numerics.py [--quick]

--quick: test_08 only.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path


ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))

from pto_mlir import sk16_ir  # noqa: E402
from pto_mlir.golden import save_tensor, sk16  # noqa: E402
from pto_mlir.tools import tool  # noqa: E402
from opt_cache import compile_cached  # noqa: E402


# Runs argv[2:] and writes "wall cpu maxrss_kib" of that child alone to
# argv[1]. Linux gives an exec'd process the peak RSS of the address space it
# replaced, so a tool spawned straight from this (large) Python process
# would report this process's peak as its own; this small interpreter forks
# it instead, so its figure carries at most the wrapper's few MiB.
MEASURE = """
import os, sys, time
t0 = time.perf_counter()
pid = os.fork()
if pid == 0:
    try:
        os.execv(sys.argv[2], sys.argv[2:])
    finally:
        os._exit(127)
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as f:
    f.write(f"{time.perf_counter() - t0} {usage.ru_utime + usage.ru_stime} {usage.ru_maxrss}")
sys.exit(os.waitstatus_to_exitcode(status))
"""


def run_measured(args: list) -> tuple[subprocess.CompletedProcess, float, float, float]:
    """Runs a command; returns it with its wall time (s), its CPU time (user
    + system, s) and its own peak RSS (MiB), from wait4 in a small wrapper
    process (MEASURE): this child only."""
    with tempfile.TemporaryDirectory() as tmp:
        figures = Path(tmp) / "usage"
        r = subprocess.run([sys.executable, "-S", "-c", MEASURE, str(figures),
                            *map(str, args)], capture_output=True, text=True)
        if not figures.exists():
            raise SystemExit(f"{args[0]} did not run: {r.stderr[-2000:]}")
        wall, cpu, rss_kib = map(float, figures.read_text().split())
    return (subprocess.CompletedProcess(args, r.returncode, r.stdout, r.stderr), wall, cpu,
            rss_kib / 1024)


def compile_a3(tmp: Path, N: int, D: int) -> Path:
    source, out = tmp / f"sk16_n{N}_d{D}.mlir", tmp / f"sk16_n{N}_d{D}_tg.mlir"
    if not out.exists():
        source.write_text(sk16_ir.emit(sk16_ir.Sk16Config(heads=N, head_dim=D)))
        compile_cached(source, out, "--pto-tile-graph-pipeline")
    return out


def shape_args(case: sk16.Sk16Case, tmp: Path) -> list:
    """--input flags without numerics: shapes for the floats, files for the
    cumulative offsets (no float data is generated)."""
    q, kv, N, D = case.total_q, case.total_kv, case.N, case.D
    shapes = {"q": (q, N, D), "o": (q, N, D), "do": (q, N, D), "k": (kv, N, D),
              "v": (kv, N, D), "l_input": (q, N, 1), "m_input": (q, N, 1),
              "dq": (q, N * D), "dk": (kv, N * D), "dv": (kv, N * D)}
    args = []
    for name in sk16.INPUT_NAMES:
        if name in shapes:
            dtype = sk16.DTYPES[name].replace("fp", "f")
            args += ["--input", f"{name}=shape:{'x'.join(map(str, shapes[name]))}:{dtype}"]
        else:
            seqlens = case.q_seqlens if name == "actual_q" else case.kv_seqlens
            path = tmp / f"{case.name}_{name}.npy"
            save_tensor(path, sk16.cu_offsets(seqlens), "int32")
            args += ["--input", f"{name}={path}"]
    return args


def numeric_args(case: sk16.Sk16Case, tmp: Path) -> list:
    directory = tmp / f"{case.name}_data"
    directory.mkdir(exist_ok=True)
    inputs = sk16.make_inputs(case, seed=42)
    args = []
    for name in sk16.INPUT_NAMES:
        path = directory / f"{name}.npy"
        save_tensor(path, inputs[name], sk16.DTYPES[name])
        args += ["--input", f"{name}={path}"]
    return args


def tensor_mib(case: sk16.Sk16Case) -> float:
    rows_q, rows_kv, width = case.total_q, case.total_kv, case.N * case.D
    return (rows_q * width * (3 * 2 + 4) + rows_kv * width * (2 * 2 + 2 * 4)
            + 2 * case.N * rows_q * 4) / 2**20


def no_numerics(rep, quick: bool, tmp: Path | None = None) -> dict:
    rep.heading("Estimates without numerics (pto-run --simulate=a3 --no-numerics)")
    own = tmp is None
    holder = tempfile.TemporaryDirectory() if own else None
    tmp = Path(holder.name) if own else tmp
    try:
        names = ["test_08"] if quick else ["test_08", "test_02"]
        big = sk16.Sk16Case("1x8x16384x16384x128", [16384], [16384], 8, 128,
                            benchmark_only=True)
        rows, results = [], {}
        pto_run = tool("pto-run")
        for case in [sk16.get_case(n) for n in names] + ([] if quick else [big]):
            kernel = compile_a3(tmp, case.N, case.D)
            flops = f"--sim-flops={sk16.flops(case)}"
            shaped, w_s, t_s, rss_s = run_measured([pto_run, kernel, *shape_args(case, tmp),
                                               "--simulate=a3", flops, "--no-numerics"])
            if shaped.returncode:
                raise SystemExit(shaped.stderr[-3000:])
            if case is big:
                numeric, w_n, t_n, rss_n, same = None, None, None, None, "-"
            else:
                numeric, w_n, t_n, rss_n = run_measured([pto_run, kernel, *numeric_args(case, tmp),
                                                    "--simulate=a3", flops])
                if numeric.returncode:
                    raise SystemExit(numeric.stderr[-3000:])
                same = "yes" if numeric.stdout == shaped.stdout else "NO"
            launches = next((l.split(":")[1].split()[0] for l in shaped.stdout.splitlines()
                             if l.strip().startswith("launches:")), "?")
            shape = f"{case.B} x {case.N} x {case.q_seqlens[0]} x {case.kv_seqlens[0]} x {case.D}"
            rows.append([case.name, shape, f"{tensor_mib(case):.0f}", launches,
                         f"{t_n:.2f}" if t_n else "-", f"{t_s:.2f}",
                         f"{t_n / t_s:.1f}" if t_n else "-",
                         f"{w_n:.2f}" if w_n else "-", f"{w_s:.2f}",
                         f"{rss_n:.0f}" if rss_n else "-", f"{rss_s:.0f}", same])
            results[case.name] = {"numeric_cpu_s": t_n, "shapes_cpu_s": t_s, "same": same,
                                  "numeric_mib": rss_n, "shapes_mib": rss_s}
        rep.text("SK-16 at the A3 tiles through the full pipeline; the same `pto-run "
                 "--simulate=a3` with the data (.npy inputs) and with `--no-numerics` "
                 "(float arguments as `shape:` inputs, actual_q / actual_kv as files). "
                 "CPU time (user + system; the speed-up is its ratio), wall time and "
                 "peak RSS of the pto-run process (parsing the outlined kernel "
                 "included; wall times depend on the machine's load); *same report*: "
                 "stdout identical byte for byte. "
                 "*tensor MiB*: the arguments a numeric run holds (workspaces come on top).")
        rep.table(["case", "B x N x s1 x s2 x D", "tensor MiB", "launches",
                   "numeric CPU s", "no-numerics CPU s", "speed-up", "numeric wall s",
                   "no-numerics wall s", "numeric MiB", "no-numerics MiB", "same report"],
                  rows)
        return results
    finally:
        if holder:
            holder.cleanup()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="test_08 only")
    a = p.parse_args()
    from scaling import PlainReport
    no_numerics(PlainReport(), a.quick)
    return 0


if __name__ == "__main__":
    sys.exit(main())
