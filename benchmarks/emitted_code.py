#!/usr/bin/python3
"""Emitted C++ size and build time, straight-line vs piece loops
(benchmarks/README.md, docs/Codegen.md#piece-loops-and-code-size).

SK-16 at the A3 tiles (D = 64 and D = 128) through `--pto-ascend-pipeline`
with `roll-pieces=false` (every piece unrolled, as before
pto-isa-roll-pieces) and with the default pipeline, printed by
`pto-translate --pto-to-cpp`: lines of C++ per file and per leaf, and the
CPU time (user + sys) of `clang++ -O2` building each file with its host main
against the emulation. CPU time, not wall time: the machine is shared.

    benchmarks/emitted_code.py [--quick]

--quick: D = 64 only, lines only (no clang).
"""

from __future__ import annotations

import argparse
import re
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))

from pto_mlir import codegen, sk16_ir  # noqa: E402

PIPELINES = {"straight": "pto-ascend-pipeline{roll-pieces=false}",
             "rolled": "pto-ascend-pipeline"}
LEAF = re.compile(r"^__global__ AICORE void (\w+)\(.*?^\}$", re.S | re.M)


def leaf_lines(cpp: str) -> dict[str, int]:
    return {m.group(1): m.group(0).count("\n") + 1 for m in LEAF.finditer(cpp)}


def clang_cpu_seconds(cpp: Path, opt: str = "-O2") -> float:
    """CPU seconds of one clang build of `cpp` (its children included)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    cmd = [codegen.compiler(), "-std=c++20", opt, "-D__CPU_SIM", "-DPTO_HOST_MAIN",
           f"-I{codegen.runtime_include()}", str(cpp), "-o", str(cpp.with_suffix("")),
           "-pthread"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{r.stderr[-3000:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def emitted_code(rep, quick: bool) -> dict:
    rep.heading("Emitted C++: lines and clang -O2 time per file, straight-line vs piece loops "
                "(benchmarks/emitted_code.py)")
    dims = (64,) if quick else (64, 128)
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for D in dims:
            source = tmp / f"sk16_d{D}.mlir"
            source.write_text(sk16_ir.emit(sk16_ir.Sk16Config(heads=8, head_dim=D)))
            for kind, pipeline in PIPELINES.items():
                cpp = codegen.emit_cpp(source, tmp / f"{kind}_d{D}", pipeline)
                text = cpp.read_text()
                results[(D, kind)] = {
                    "lines": text.count("\n"), "leaves": leaf_lines(text),
                    "clang": None if quick else clang_cpu_seconds(cpp)}
    rows = []
    for D in dims:
        s, r = results[(D, "straight")], results[(D, "rolled")]
        row = [f"SK-16 A3 D={D}", s["lines"], r["lines"], f"{s['lines'] / r['lines']:.1f}x",
               sum(s["leaves"].values()), sum(r["leaves"].values())]
        if not quick:
            row += [f"{s['clang']:.1f}", f"{r['clang']:.1f}"]
        rows.append(row)
    header = ["file", "lines straight", "lines rolled", "smaller", "leaf lines straight",
              "leaf lines rolled"]
    if not quick:
        header += ["clang -O2 s straight", "clang -O2 s rolled"]
    rep.table(header, rows)
    for D in dims:
        s, r = results[(D, "straight")], results[(D, "rolled")]
        rep.text(f"Lines per leaf, SK-16 A3 D={D} (leaves of one family share a body shape):")
        rep.table(["leaf", "straight", "rolled"],
                  [[name.rsplit("_leaf_", 1)[-1], s["leaves"][name], r["leaves"].get(name, "-")]
                   for name in s["leaves"]])
    rep.text("clang time: CPU seconds (user + sys) of `clang++ -std=c++20 -O2 -D__CPU_SIM "
             "-DPTO_HOST_MAIN` building the whole file (kernels, roots, control program, "
             "host main) on this machine." if not quick else "--quick: no clang builds.")
    return results


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true")
    a = p.parse_args()

    sys.path.insert(0, str(ROOT / "benchmarks"))
    from scaling import PlainReport

    emitted_code(PlainReport(), a.quick)
