"""pto-tune: tile configurations chosen by the cost model (issue 18).

A kernel whose tile parameters are compile-time values (a generator in
``pto_mlir``: ``sk16`` = ``sk16_ir.Sk16Config``, ``sk01`` = ``sk01_ir.Sk01Config``)
is compiled at each candidate configuration and estimated with
``pto-run --simulate=ARCH --no-numerics`` (docs/CostModel.md#estimates-without-numerics)
on the cases to tune for, weighted. Configurations the verifier, the
tile-graph pipeline or the Ascend pipeline up to memory planning (the C++
path) rejects are pruned before anything is estimated. Candidates are estimated in parallel
(one process per core).

The search space is one list of values per parameter; the defaults derive
the tile candidates from the architecture's capacities (``_pto.platform_info``:
L0A/L0B/L0C, L1, UB, buffer alignment, with 16-element fractals) and the
cases' lengths, and always include the card's configuration (the
generator's defaults). ``--param NAME=V1,V2,..`` replaces one list.

Search: exhaustive when the space has at most ``--budget`` configurations;
otherwise coordinate descent seeded from the card's configuration: in
rounds, each parameter in turn is set to every value of its list with the
others held at the current best, and the best of those becomes current;
rounds repeat until one changes nothing or the budget of estimated
configurations is spent. It finds a local optimum along the axes, not
necessarily the global one.

Output: the ranked table (config, modelled us, % of cube peak, bound,
launches, GM GiB, workspace MiB), the best configuration as JSON
(``--write-config``) and as the kernel at that configuration
(``--emit-best``), and a Pareto plot of time vs workspace (``--plot``,
PNG or SVG by suffix, matplotlib).

    pto-tune --kernel sk16 --case test_02 --arch a3 --budget 40 \\
        --write-config best.json --emit-best best.mlir --plot pareto.svg

This module is the command line; the search space is in tune_space.py,
the estimate of one configuration in tune_estimate.py, the search in
tune_search.py, the output in tune_report.py, and a .mlir kernel's
parameters in tune_mlir.py.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from pto_mlir.tune_estimate import Tuner
from pto_mlir.tune_report import fmt_value, plot, print_search_report
from pto_mlir.tune_search import search
from pto_mlir.tune_space import (ARCHES, PIPELINE_PARAMS, Case, KernelSpec, TuneError, _kernels,
                                 default_space, narrow_space, parse_pipeline_value, parse_value,
                                 pipeline_flag, platform)

# What tune_mlir.py, benchmarks/tune.py and the tests take from this module.
__all__ = ["ARCHES", "TuneError", "fmt_value", "main", "narrow_space", "pipeline_flag",
           "platform", "plot", "print_search_report", "run", "search"]


# --- command line ---------------------------------------------------------------

def parse_case(text: str, spec: KernelSpec) -> Case:
    """`test_02`, `test_02:0.5` (weight), or `B=1,N=8,S1=4096,S2=4096,D=128[:w]`
    (S1/S2 may be `/`-separated per batch)."""
    from pto_mlir.golden import sk16

    body, _, weight = text.partition(":")
    try:
        w = float(weight) if weight else 1.0
    except ValueError:
        raise TuneError(f"case '{text}': weight '{weight}' is not a number") from None
    if w <= 0:
        raise TuneError(f"case '{text}': the weight must be > 0")
    if "=" not in body:
        try:
            c = sk16.get_case(body)
        except KeyError as e:
            raise TuneError(str(e.args[0])) from None
        return Case(c.name, c.q_seqlens, c.kv_seqlens, c.N, c.D, w)
    fields = {}
    for part in body.split(","):
        k, _, v = part.partition("=")
        fields[k.strip().upper()] = v.strip()
    try:
        B = int(fields.get("B", 1))
        s1 = [int(x) for x in fields["S1"].split("/")]
        s2 = [int(x) for x in fields.get("S2", fields["S1"]).split("/")]
        N, D = int(fields["N"]), int(fields["D"])
    except (KeyError, ValueError):
        raise TuneError(f"case '{text}': write a case name (test_02) or "
                        "B=1,N=8,S1=4096,S2=4096,D=128") from None
    if len(s1) == 1:
        s1 = s1 * B
    if len(s2) == 1:
        s2 = s2 * B
    if len(s1) != B or len(s2) != B or min(s1 + s2) < 1 or N < 1 or D < 1:
        raise TuneError(f"case '{text}': need B lengths >= 1 for S1 and S2, N, D >= 1")
    name = f"B{B}_N{N}_S{'/'.join(map(str, sorted(set(s1))))}_D{D}"
    return Case(name, tuple(s1), tuple(s2), N, D, w)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(
        prog="pto-tune",
        description="Choose tile configurations with the cost model (docs/Tuning.md).")
    p.add_argument("--kernel", required=True,
                   help="the kernel: a generator, sk16 or sk01 (python/pto_mlir/*_ir.py), "
                        "or a .mlir file with one pto.kernel (its tile attributes and options "
                        "are tuned)")
    p.add_argument("--case", action="append",
                   help="a case to tune for: test_02, test_08:0.5 (weight), or "
                        "B=1,N=1,S1=4096,D=128 (repeatable); for a .mlir kernel "
                        "NAME=AxB,NAME2=FILE.npy[:WEIGHT] or a folder of NAME.npy "
                        "(default: the kernel's static or inferred shapes)")
    p.add_argument("--arch", choices=sorted(ARCHES),
                   help="the architecture (default: a3; for a .mlir kernel its arch)")
    p.add_argument("--param", action="append", default=[],
                   help="NAME=V1,V2,...: the values to try for one parameter "
                        "(tuples as 64x256); replaces the default list")
    p.add_argument("--set", action="append", default=[],
                   help="NAME=V: fix a generator field that is not tuned")
    p.add_argument("--only", nargs="*",
                   help="tune only these parameters (the others stay at the card's)")
    p.add_argument("--budget", type=int, default=48,
                   help="configurations to estimate at most (exhaustive below it)")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--top", type=int, default=15, help="rows of the ranked table")
    p.add_argument("--write-config", type=Path, help="the best configuration as JSON")
    p.add_argument("--emit-best", type=Path,
                   help="the kernel at the best configuration (.mlir, first case's N, D)")
    p.add_argument("--write-back", action="store_true",
                   help="for a .mlir kernel: write the best configuration into the file")
    p.add_argument("--plot", type=Path, help="Pareto plot of time vs workspace (.png/.svg)")
    p.add_argument("--json", type=Path, help="every estimate as JSON")
    p.add_argument("--no-progress", action="store_true")
    p.add_argument("--no-lowering-check", action="store_true",
                   help="do not prune configurations the Ascend pipeline rejects "
                        "(pto-lower-to-isa and memory planning; the C++ path)")
    a = p.parse_args(argv)
    # TuneError is tune_space's: one class even when this module runs as
    # __main__ (`python -m pto_mlir.tune`) beside its imported copy.
    from pto_mlir.tune_mlir import MlirTuneError
    try:
        return run(a)
    except (TuneError, MlirTuneError) as e:
        print(f"pto-tune: error: {e}", file=sys.stderr)
        return 2


def run(a) -> int:
    if a.kernel.endswith(".mlir"):
        from pto_mlir import tune_mlir

        return tune_mlir.run(a)
    if a.write_back:
        raise TuneError("--write-back is for a .mlir kernel; for a generator use "
                        "--write-config / --emit-best")
    if not a.case:
        raise TuneError(f"--kernel {a.kernel}: give the cases to tune for with --case")
    a.arch = a.arch or "a3"
    kernels = _kernels()
    if a.kernel not in kernels:
        raise TuneError(f"unknown kernel '{a.kernel}'; known: {', '.join(kernels)}, "
                        "or a .mlir file")
    spec = kernels[a.kernel]
    if a.budget < 1 or a.jobs < 1:
        raise TuneError("--budget and --jobs must be >= 1")
    if a.plot and a.plot.suffix.lower() not in (".png", ".svg"):
        raise TuneError(f"--plot '{a.plot}': the file must end in .png or .svg")
    cases = [parse_case(t, spec) for t in a.case]
    if len({c.name for c in cases}) != len(cases):
        raise TuneError("a case is given twice")
    card_cfg = spec.config_class()
    fields = {f.name: getattr(card_cfg, f.name) for f in dataclasses.fields(card_cfg)}
    base = {}
    for text in a.set:
        name, _, value = text.partition("=")
        if name not in fields or name in ("heads", "head_dim", "arch"):
            raise TuneError(f"--set '{text}': '{name}' is not a field of "
                            f"{spec.config_class.__name__} that can be set")
        base[name] = parse_value(value, fields[name])
    known = dict(fields, **{n: default for n, (_, default) in PIPELINE_PARAMS.items()})
    space, card = narrow_space(
        default_space(spec, platform(a.arch), cases), a.param, a.only,
        known=known, owner=f"{spec.config_class.__name__} ({', '.join(spec.params)}) "
                           f"or the pipeline ({', '.join(PIPELINE_PARAMS)})",
        parse=lambda name, values: [
            parse_pipeline_value(name, v) if name in PIPELINE_PARAMS
            else parse_value(v, fields[name]) for v in values.split(",") if v.strip()],
        card_value=lambda n: base.get(n, known[n]), error=TuneError)

    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="pto-tune-") as tmp:
        tuner = Tuner(spec, a.arch, cases, Path(tmp), base,
                      check_lowering=not a.no_lowering_check)
        show = sys.stderr.isatty() and not a.no_progress
        results, how = search(tuner, space, card, a.budget, a.jobs, show)
        card_est = tuner.estimate(card)
        if not any(r.config == card for r in results):
            results.append(card_est)
        best = min((e for e in results if e.ok), key=lambda e: e.time_us, default=None)
        if a.emit_best and best:
            a.emit_best.write_text(spec.emit(tuner.make_config(best.config, cases[0])))
    elapsed = time.perf_counter() - started
    print(f"pto-tune: {spec.name} on {a.arch} ({ARCHES[a.arch]}), cases "
          + ", ".join(f"{c.name} (weight {c.weight:g})" for c in cases))
    print_search_report(results, card, card_est, best, how, elapsed, a.jobs, a.top,
                        TuneError)
    fields_best = {k: v for k, v in {**base, **best.config}.items()
                   if k not in PIPELINE_PARAMS}
    kwargs = ", ".join(f"{k}={v!r}" for k, v in fields_best.items())
    print(f"  {spec.config_class.__name__}({kwargs})")
    pipeline = pipeline_flag(best.config)
    print(f"  compiled with {pipeline}")
    if a.write_config:
        a.write_config.write_text(json.dumps(
            {"kernel": spec.name, "arch": a.arch, "config": fields_best,
             "pipeline": pipeline, "time_us": best.time_us}, indent=2, default=list) + "\n")
    if a.json:
        a.json.write_text(json.dumps([dataclasses.asdict(e) for e in results], indent=1,
                                     default=list) + "\n")
    if a.plot:
        plot(results, card_est, a.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
