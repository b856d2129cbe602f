#!/usr/bin/python3
"""pto-tune against the cards' configurations (benchmarks/README.md; docs/Tuning.md).

For SK-16 test_02 (1 x 8 x 4096 x 4096 x 128) on A3 and on 950, and SK-01
(one head, D = 128) at S = 4096 and 16384 on A3: `pto-tune` with a budget of
estimated configurations over the sequence tiles, the cube tiles, the vector
tiles and device_sched_mode, seeded from the card's configuration; the card's
and the tuned configuration's modelled time in the same run, the search time,
and whether the tuned kernel still computes the golden through `pto-run`
(SK-16 test_02 and SK-01 4K; the SK-01 16K golden would need the 16K x 16K
score matrix in NumPy) and through its emitted C++ on the host emulation (every
case, at the case's heads and head dim with short sequences).

    benchmarks/tune.py [--quick] [--budget N] [--kernels sk16 sk01]

--quick: SK-16 test_08 and SK-01 S = 1024, budget 6, no golden runs.
--kernels: only these kernels' rows (default: both).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))

from pto_mlir.golden import save_tensor, sk01, sk16  # noqa: E402
from pto_mlir.tools import tool  # noqa: E402

SEARCH = {
    "sk16": ["s1_tile", "s2_tile", "c_tile", "v_tile_s", "device_sched_mode"],
    "sk01": ["q_tile", "kv_tile", "c1_tile", "v1_tile", "device_sched_mode"],
}


def golden_verdict(kernel_name: str, out: dict, inputs: dict, case: sk16.Sk16Case) -> str:
    """`out` against the kernel's golden on `inputs`: "yes", or "NO" with the
    outputs that differ."""
    if kernel_name == "sk16":
        gold = sk16.golden_backward(inputs, case.N, case.D)
        bad = [n for n in sk16.OUTPUT_NAMES if not sk16.check_close(out[n], gold[n])[0]]
    else:
        result = sk01.check_outputs(out, inputs, case.N, case.D)
        bad = [n for n, (ok, _, _) in result.items() if not ok]
    return "yes" if not bad else "NO (" + ", ".join(bad) + ")"


def golden_ok(kernel_name: str, best_mlir: Path, case: sk16.Sk16Case, tmp: Path) -> str:
    """Compiles the tuned kernel and runs it on the case's data against the
    golden: "yes", or "NO" with the reason."""
    compiled = tmp / f"{best_mlir.stem}_tg.mlir"
    r = subprocess.run([str(tool("pto-opt")), str(best_mlir), "--pto-tile-graph-pipeline",
                        "-o", str(compiled)], capture_output=True, text=True)
    if r.returncode:
        return "NO (pipeline: " + r.stderr.strip().splitlines()[0][:120] + ")"
    mod = sk16 if kernel_name == "sk16" else sk01
    inputs = mod.make_inputs(case, seed=42)
    data = tmp / f"{best_mlir.stem}_data"
    data.mkdir(exist_ok=True)
    args = []
    for name in mod.INPUT_NAMES:
        save_tensor(data / f"{name}.npy", inputs[name], mod.DTYPES[name])
        args += ["--input", f"{name}={data / (name + '.npy')}"]
    r = subprocess.run([str(tool("pto-run")), str(compiled), *args, "--output-dir", str(data)],
                       capture_output=True, text=True)
    if r.returncode:
        return "NO (pto-run: " + r.stderr.strip().splitlines()[0][:120] + ")"
    from pto_mlir.golden import load_tensor

    out = {n: load_tensor(data / f"{n}.npy", mod.DTYPES[n]).reshape(inputs[n].shape)
           for n in mod.OUTPUT_NAMES}
    return golden_verdict(kernel_name, out, inputs, case)


def golden_cpp(kernel_name: str, config_json: Path, arch: str, case: sk16.Sk16Case,
               tmp: Path) -> str:
    """Builds the tuned configuration's emitted C++ (pto-ascend-pipeline,
    pto-to-cpp, the host emulation) and runs it against the golden at a
    reduced shape of `case`: its heads and head dim (compiled in), sequences
    short enough for the emulation (the tiles stay the tuned ones, the
    lengths are run-time values). "yes", or "NO" with the reason."""
    from pto_mlir import codegen, sk01_ir, sk16_ir
    from pto_mlir.tune import ARCHES

    fields = {k: tuple(v) if isinstance(v, list) else v
              for k, v in json.loads(config_json.read_text())["config"].items()
              if k not in ("heads", "head_dim", "arch")}
    small = sk16.Sk16Case(f"{case.name}-cpp", CPP_SEQLENS[kernel_name][0],
                          CPP_SEQLENS[kernel_name][1], case.N, case.D, benchmark_only=True)
    workdir = tmp / f"{config_json.stem}_cpp"
    workdir.mkdir(exist_ok=True)
    source = workdir / f"{kernel_name}.mlir"
    common = dict(heads=case.N, head_dim=case.D, arch=ARCHES[arch], **fields)
    if kernel_name == "sk16":
        source.write_text(sk16_ir.emit(sk16_ir.Sk16Config(**common)))
    else:
        # The C++ chain takes SK-01 with its accumulators in GM (docs/SK01.md).
        source.write_text(sk01_ir.emit(sk01_ir.Sk01Config(accumulators="gm", **common)))
    mod = sk16 if kernel_name == "sk16" else sk01
    try:
        exe = codegen.build(source, workdir)
        inputs = mod.make_inputs(small, seed=42)
        out, _ = codegen.run(exe, workdir, inputs, mod.DTYPES, mod.OUTPUT_NAMES,
                             names=mod.INPUT_NAMES)
    except RuntimeError as e:
        lines = [l for l in str(e).splitlines() if l.strip()]
        reason = next((l for l in lines if "error" in l), lines[0] if lines else "failed")
        return "NO (" + reason.strip()[:160] + ")"
    return golden_verdict(kernel_name, out, inputs, small)


# The reduced sequence lengths (q, kv per batch) of the C++ check: SK-16's
# as in python/tests/test_codegen_sk16.py's test_02 compile on a small case.
CPP_SEQLENS = {"sk16": ((192,), (160,)), "sk01": ((384,), (320,))}


def tune_benchmark(rep, quick: bool, budget: int | None = None,
                   kernels=("sk16", "sk01")) -> dict:
    rep.heading("pto-tune vs the cards' configurations (benchmarks/tune.py)")
    budget = budget or (6 if quick else 10)
    runs = [("sk16", "test_08" if quick else "test_02", "a3"),
            ("sk16", "test_08" if quick else "test_02", "950")]
    sizes = [1024] if quick else [4096, 16384]
    runs += [("sk01", f"B=1,N=1,S1={s},S2={s},D=128", "a3") for s in sizes]
    runs = [r for r in runs if r[0] in kernels]
    rows, results = [], {}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for kernel, case, arch in runs:
            tag = f"{kernel}_{case.split(',')[2] if '=' in case else case}_{arch}"
            tag = tag.replace("=", "")
            every, best = tmp / f"{tag}.json", tmp / f"{tag}_best.mlir"
            best_config = tmp / f"{tag}_best.json"
            t0 = time.perf_counter()
            r = subprocess.run([str(tool("pto-tune")), "--kernel", kernel, "--case", case,
                                "--arch", arch, "--only", *SEARCH[kernel], "--budget",
                                str(budget), "--json", str(every), "--emit-best", str(best),
                                "--write-config", str(best_config), "--no-progress"],
                               capture_output=True, text=True)
            search_s = time.perf_counter() - t0
            if r.returncode:
                raise SystemExit(f"pto-tune {kernel} {case} {arch} failed:\n"
                                 f"{r.stdout[-2000:]}{r.stderr[-2000:]}")
            estimates = json.loads(every.read_text())
            card_line = next(l for l in r.stdout.splitlines() if l.startswith("card: "))
            best_line = next(l for l in r.stdout.splitlines() if l.startswith("best: "))
            card_config = next(l for l in r.stdout.splitlines()
                               if l.startswith("card config: ")).split(": ", 1)[1]
            card_us = float(card_line.split()[1])
            ok = [e for e in estimates if e["ok"]]
            top = min(ok, key=lambda e: e["time_us"])
            how = next(l for l in r.stdout.splitlines() if l.startswith("search: "))
            golden = golden_cpp_result = "-"
            if not quick and not (kernel == "sk01" and "16384" in case):
                parsed = _case(kernel, case)
                golden = golden_ok(kernel, best, parsed, tmp)
            if not quick:
                golden_cpp_result = golden_cpp(kernel, best_config, arch, _case(kernel, case),
                                               tmp)
            rows.append([kernel.upper().replace("SK", "SK-"), case, arch,
                         f"{card_us:.1f}", f"{top['time_us']:.1f}",
                         f"{card_us / top['time_us']:.3f}", card_config,
                         best_line.split(": ", 1)[1].rsplit(":", 1)[0],
                         f"{len(estimates)}", f"{sum(not e['ok'] for e in estimates)}",
                         f"{search_s:.0f}", golden, golden_cpp_result])
            # pto-tune prints the card's time to 0.1 us; compare at that precision.
            results[tag] = {"card_us": card_us, "tuned_us": round(top["time_us"], 1),
                            "search_s": search_s, "golden": golden,
                            "golden_cpp": golden_cpp_result, "how": how}
            print(f"  ({tag}: {how}; golden {golden}; golden C++ {golden_cpp_result})",
                  flush=True)
    rep.text(f"`pto-tune --only {' '.join(SEARCH['sk16'])}` (SK-16) / "
             f"`{' '.join(SEARCH['sk01'])}` (SK-01), budget {budget} estimated "
             "configurations, coordinate descent from the card's configuration where "
             "the space is larger (docs/Tuning.md). *card* / *tuned*: modelled µs of the "
             "card's and of the best configuration in the same run; *card config*: the "
             "card's values of the searched parameters, *tuned config*: the best one's "
             "that differ from them; *search s*: wall "
             "time of the whole pto-tune run on this machine's 2 shared cores; "
             "*golden*: the tuned kernel run through pto-run on the case's data "
             "against the NumPy golden; *golden C++*: the tuned configuration through "
             "pto-ascend-pipeline and pto-to-cpp, built against the host emulation and run "
             "against the golden at the case's heads and head dim with short sequences "
             f"(SK-16 q/kv {CPP_SEQLENS['sk16'][0][0]}/{CPP_SEQLENS['sk16'][1][0]}, SK-01 "
             f"{CPP_SEQLENS['sk01'][0][0]}/{CPP_SEQLENS['sk01'][1][0]}). Model outputs, "
             "not measurements.")
    rep.table(["kernel", "case", "arch", "card us", "tuned us", "speed-up", "card config",
               "tuned config (vs card)",
               "estimated", "pruned", "search s", "golden", "golden C++"], rows)
    return results


def _case(kernel: str, text: str) -> sk16.Sk16Case:
    if "=" not in text:
        return sk16.get_case(text)
    f = dict(p.split("=") for p in text.split(","))
    return sk16.Sk16Case("tuned", [int(f["S1"])] * int(f["B"]), [int(f["S2"])] * int(f["B"]),
                         int(f["N"]), int(f["D"]), benchmark_only=True)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--budget", type=int)
    p.add_argument("--kernels", nargs="+", choices=("sk16", "sk01"), default=("sk16", "sk01"))
    a = p.parse_args()
    from scaling import PlainReport
    tune_benchmark(PlainReport(), a.quick, a.budget, a.kernels)
    return 0


if __name__ == "__main__":
    sys.exit(main())
