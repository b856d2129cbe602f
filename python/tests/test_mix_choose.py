"""The DAV_3510 default (MIX tasks, pto-mix-exchange) is never slower than
the GM form (`mix-exchange=false`) on the SK-16 matrix, and its interleaved
MIX rectangles compute the golden (docs/TileGraph.md#on-chip-exchanges).

- Model outputs (`pto-run --simulate=950 --no-numerics`), not measurements:
  every SK-16 case at the DAV_3510 compile's tiles (`v_tile_s = [64, 128]`),
  the default against `mix-exchange=false`. test_01 and test_08 lost before
  pto-l1-reuse interleaved the MIX rectangles' B blocks (470.5 -> 515.8 and
  152.0 -> 201.0 us).
- test_08 so compiled (2048-row blocks, 384 and 512 valid rows: the short
  sequences whose first columns the interleaved rectangles spread over
  several MIX tasks) runs in pto-run against the golden; one head of 384 x
  512 rows (its four valid column slices in two MIX tasks, even and odd)
  through the emitted C++ on the host emulation.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from pto_mlir import sk16_ir
from pto_mlir.golden import sk16
from pto_mlir.tools import compile_tile_graph, run_tile_graph, run_tool

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from no_numerics import shape_args  # noqa: E402  (pto-run flags without numerics)

DAV3510 = dict(arch="DAV_3510", v_tile_s=(64, 128))
FORMS = {"default": "", "GM": "mix-exchange=false"}


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    """Per (N, D) of the matrix and form, the compiled tile graph."""
    tmp = tmp_path_factory.mktemp("mix_choose")
    compiled = {}
    for case in sk16.CASES.values():
        key = (case.N, case.D)
        if key in compiled:
            continue
        source = tmp / f"sk16_n{case.N}_d{case.D}.mlir"
        source.write_text(sk16_ir.emit(sk16_ir.Sk16Config(heads=case.N, head_dim=case.D,
                                                          **DAV3510)))
        compiled[key] = {form: compile_tile_graph(source, tmp / f"{source.stem}_{form}.mlir",
                                                  options)
                         for form, options in FORMS.items()}
    return tmp, compiled


@pytest.mark.parametrize("name", list(sk16.CASES))
def test_default_never_slower_than_gm_form(name, kernels):
    tmp, compiled = kernels
    case = sk16.CASES[name]
    times = {}
    for form, kernel in compiled[(case.N, case.D)].items():
        r = run_tool("pto-run", kernel, *shape_args(case, tmp), "--simulate=950",
                     "--no-numerics", f"--sim-flops={sk16.flops(case)}")
        assert r.returncode == 0, r.stderr[-3000:]
        times[form] = float(re.search(r"time: ([0-9.]+) us", r.stdout).group(1))
        if form == "default":
            assert "on-chip exchanges (L0C -> UB in MIX launches)" in r.stdout
    assert times["default"] <= times["GM"], times


def test_interleaved_mix_matches_golden(tmp_path):
    case = sk16.CASES["test_08"]
    source = tmp_path / "sk16.mlir"
    source.write_text(sk16_ir.emit(sk16_ir.Sk16Config(heads=case.N, head_dim=case.D,
                                                      **DAV3510)))
    # The MIX group's rectangles interleave their B blocks (the report).
    remarks = run_tool(
        "pto-opt", source, "--pass-pipeline=builtin.module(pto.kernel(pto-legalize,"
        "pto-flatten-scopes,pto-hoist-invariants,pto-expand-tiles,pto-partition,"
        "pto-nbuffer-merge,pto-l1-reuse{stationary=true mix=true report=true}))",
        "-o", "/dev/null")
    assert remarks.returncode == 0, remarks.stderr[-3000:]
    assert re.search(r'group 0 \(\d+ x "C1"\).*\(B blocks interleaved\) \(planned as MIX',
                     remarks.stderr), remarks.stderr[-3000:]
    inputs = sk16.make_inputs(case, seed=11)
    out, _ = run_tile_graph(source, tmp_path / "tg", inputs, sk16.DTYPES, sk16.OUTPUT_NAMES,
                            names=sk16.INPUT_NAMES)
    assert "{pto.on_chip}" in (tmp_path / "tg" / "tile_graph.mlir").read_text()
    sk16.assert_matches_golden(out, sk16.golden_backward(inputs, case.N, case.D))


def test_interleaved_mix_emitted_cpp(tmp_path):
    from pto_mlir import codegen
    case = sk16.Sk16Case("short", [384], [512], 1, 64)
    source = tmp_path / "sk16.mlir"
    source.write_text(sk16_ir.emit(sk16_ir.Sk16Config(heads=case.N, head_dim=case.D,
                                                      **DAV3510)))
    inputs = sk16.make_inputs(case, seed=13)
    exe = codegen.build(source, tmp_path / "build",
                        pipeline="pto-ascend-pipeline,pto-isa-verify-sync")
    cpp = (tmp_path / "build" / "sk16.cpp").read_text()
    assert "ri.launch_mix(" in cpp
    out, _ = codegen.run(exe, tmp_path / "run", inputs, sk16.DTYPES, sk16.OUTPUT_NAMES,
                         names=sk16.INPUT_NAMES)
    sk16.assert_matches_golden(out, sk16.golden_backward(inputs, case.N, case.D))
