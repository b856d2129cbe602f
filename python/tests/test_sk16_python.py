"""examples/sk16_attention_backward.py: SK-16 written in Python the way the
reference kernel is, traced by pto_mlir.frontend.

- The trace equals examples/sk16_attention_backward.mlir (and the D = 64 copy)
  structurally (include/pto/Embedding/StructuralEquivalence.h).
- Parameterised by heads, head dim and tiles it equals the sk16_ir generator,
  and the golden case matrix runs through it in-process against the NumPy
  golden.
- Verifier, checker and interpreter diagnostics point at its Python lines.
"""

from __future__ import annotations

import importlib.util
import linecache
import re
import subprocess
import sys
from dataclasses import replace

import numpy as np
import pytest

import pto_mlir.ir as ir
from pto_mlir import sk16_ir
from pto_mlir.golden import sk16
from pto_mlir.tools import REPO_ROOT

EXAMPLE = REPO_ROOT / "examples" / "sk16_attention_backward.py"


def _load_example():
    spec = importlib.util.spec_from_file_location("sk16_attention_backward_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


example = _load_example()
Config = example.FlashAttentionGradTileShapeConfig
SMALL = Config(s1_tile=96, s2_tile=112, c_tile=((64, 128), (64, 128), (64, 128)),
               v_tile_s=(32, 128), v_tile_d=(32, 128))


def ir_config(heads: int, head_dim: int, cfg) -> sk16_ir.Sk16Config:
    (m0, m1), (k0, k1), (n0, n1) = cfg.c_tile
    return sk16_ir.Sk16Config(heads=heads, head_dim=head_dim, s1_tile=cfg.s1_tile,
                              s2_tile=cfg.s2_tile, c_tile=(m0, m1, k0, k1, n0, n1),
                              v_tile_s=cfg.v_tile_s, v_tile_d=cfg.v_tile_d)


def source_line(diag: ir.Diagnostic) -> str:
    assert diag.file == str(EXAMPLE), diag
    return linecache.getline(diag.file, diag.line)


@pytest.mark.parametrize("head_dim, path", [
    (128, "sk16_attention_backward.mlir"),
    (64, "sk16_attention_backward_d64.mlir"),
])
def test_python_sk16_equals_the_mlir_example(head_dim, path):
    traced = example.trace(heads=8, head_dim=head_dim)
    reference = ir.Module.parse_file(REPO_ROOT / "examples" / path)
    assert traced.module().structural_difference(reference) is None
    # Every op of the trace is located in the Python file.
    located = traced.module().to_string(debug_info=True)
    assert str(EXAMPLE) in located and "sk16_attention_backward.mlir" not in located


def test_structural_comparison_catches_reference_pitfalls():
    """The reference kernel reshapes K with the Q-side total (docs/SK16.md#cross-attention-reshape);
    the comparison sees that, and a matmul reading the wrong operand."""
    traced = example.trace(heads=8, head_dim=64).module()
    text = (REPO_ROOT / "examples" / "sk16_attention_backward_d64.mlir").read_text()
    wrong_total = text.replace("%k2 = pto.reshape %k [%total_kv", "%k2 = pto.reshape %k [%total_q")
    diff = traced.structural_difference(ir.Module.parse(wrong_total, "wrong.mlir"))
    assert diff is not None and "pto.reshape" in diff and "wrong.mlir" in diff
    other_operand = text.replace("%dK_t = pto.matmul %dS_bf, %q_i", "%dK_t = pto.matmul %dS_bf, %do_i")
    diff = traced.structural_difference(ir.Module.parse(other_operand, "operand.mlir"))
    assert diff is not None and re.search(r"operand #1 of `%\d+ = pto.matmul", diff), diff


@pytest.mark.parametrize("heads, head_dim, cfg", [
    (2, 32, SMALL),
    (16, 32, Config()),
    (4, 64, replace(SMALL, s1_tile=128, s2_tile=64)),
])
def test_parameterised_trace_equals_the_generator(heads, head_dim, cfg):
    traced = example.trace(heads, head_dim, cfg).module()
    generated = ir.Module.parse(sk16_ir.emit(ir_config(heads, head_dim, cfg)), "generated.mlir")
    assert traced.structural_difference(generated) is None


TEST_CASES = [name for name, case in sk16.CASES.items() if not case.benchmark_only]
_traces = {}


def traced_kernel(heads, head_dim, cfg):
    key = (heads, head_dim, cfg)
    if key not in _traces:
        _traces[key] = example.trace(heads, head_dim, cfg)
    return _traces[key]


@pytest.mark.parametrize("case_name", TEST_CASES)
def test_case_matrix_in_process(case_name):
    """The golden case matrix through the Python kernel, run in-process by the
    reference interpreter, with tiles that leave tails in every case."""
    case = sk16.CASES[case_name]
    inputs = sk16.make_inputs(case, seed=11)
    gold = sk16.golden_backward(inputs, case.N, case.D)
    result = traced_kernel(case.N, case.D, SMALL).run(**inputs)
    for name in sk16.OUTPUT_NAMES:
        assert result.outputs[name] is inputs[name]
        sk16.assert_close(inputs[name], gold[name], name)


def test_jit_call_runs_in_place():
    """Calling the kernel like PyPTO does: arrays in, outputs updated in place."""
    case = sk16.Sk16Case("call", (40, 17), (25, 33), N=2, D=32)
    inputs = sk16.make_inputs(case, seed=5)
    gold = sk16.golden_backward(inputs, case.N, case.D)
    names = sk16.INPUT_NAMES
    stats = example.sk16_attention_backward(*(inputs[n] for n in names), tile_config=SMALL)
    assert stats["matmul_flops"] == sk16.flops(case)
    for name in sk16.OUTPUT_NAMES:
        sk16.assert_close(inputs[name], gold[name], name)


def test_the_example_runs_as_a_script():
    """`python3 examples/sk16_attention_backward.py --head-dim 64`, as its
    docstring says: the example imports the front end through
    examples/../python, a path with '..' in it."""
    r = subprocess.run([sys.executable, str(EXAMPLE), "--head-dim", "64"], capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "pto.kernel" in r.stdout and "x64xbf16>" in r.stdout


def test_verifier_error_points_at_the_python_line():
    """A vector tile whose last dim is not 32-byte aligned: the verifier
    rejects the first op recorded under it whose last dim it splits, at its
    Python line (the casts of [s1, 64] tiles take the dim whole, which
    pto-legalize pads, as PyPTO compiles it)."""
    traced = example.trace(8, 64, replace(SMALL, v_tile_s=(32, 100)))
    with pytest.raises(ir.DiagnosticError) as e:
        traced.module()
    diag = e.value.errors[0]
    assert "s_ij = pypto.mul(s_ij, scale)" in source_line(diag), diag
    assert "vector tile [32, 100]" in diag.message and "32-byte aligned" in diag.message
    assert "PyPTO rejects this too" in diag.message


def test_interpreter_fault_points_at_the_python_line():
    """actual_q claims more rows than q holds: the view of q reads past its
    end, reported at the pypto.view line."""
    case = sk16.Sk16Case("short", (16,), (16,), N=2, D=32)
    inputs = sk16.make_inputs(case, seed=1)
    inputs["actual_q"] = np.array([0, 48], np.int32)
    with pytest.raises(ir.KernelFault) as e:
        traced_kernel(2, 32, SMALL).run(**inputs)
    line = source_line(e.value.errors[0])
    assert "pypto.view(" in line, line


def test_checker_findings_point_at_the_python_lines():
    module = example.trace(8, 64, arch="DAV_3510").module()
    try:
        findings = module.check_skeleton("sk16")
    except ir.DiagnosticError as error:
        if "does not refer to a registered pass" in str(error):
            pytest.skip("pto-check-skeleton is not registered in this build")
        raise
    # On DAV_3510 the A3 options differ from the 950 kernel's: SK16-R14 warns
    # at the kernel definition.
    r14 = [d for d in findings if "[SK16-R14]" in d.message]
    assert r14 and all(d.severity == "warning" for d in r14)
    assert all("def sk16_attention_backward(" in source_line(d) for d in r14)
    assert example.trace(8, 64).module().check_skeleton("sk16") == []


def test_registered_pipeline_by_name_keeps_the_numerics():
    """The project's pipeline, named through the bindings, on the Python
    SK-16: the outlined tile graph still computes the golden gradients."""
    module = traced_kernel(2, 32, SMALL).module().clone()
    module.run_pipeline("pto-tile-graph-pipeline")
    assert "pto.launch" in str(module)
    case = sk16.Sk16Case("pipeline", (40, 17), (25, 33), N=2, D=32)
    inputs = sk16.make_inputs(case, seed=9)
    gold = sk16.golden_backward(inputs, case.N, case.D)
    module.run(inputs, kernel="sk16_attention_backward")
    for name in sk16.OUTPUT_NAMES:
        sk16.assert_close(inputs[name], gold[name], name)
