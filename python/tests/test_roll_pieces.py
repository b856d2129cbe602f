"""Piece loops (pto-isa-roll-pieces, docs/Codegen.md#piece-loops-and-code-size).

The rolled leaves must compute exactly what the straight-line leaves compute:
SK-16 (tiles cut into row pieces and K chains) is built twice, with `roll-pieces=false` and with the default
pipeline, both at -O0 so that only the emitted code differs, and the outputs
of a ragged case are compared bit for bit. The emulation checks every flag
and on-chip hazard at run time, so the loops' synchronisation (primed and
drained flags) is exercised too. The A3 file is checked for size only (its
numerics run in test_codegen_sk16.py).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from pto_mlir import codegen, sk16_ir
from pto_mlir.golden import sk16

# Small enough to build straight-line in seconds, cut finely enough that V1
# leaves hold row pieces and C2 leaves K chains (the A3 file is larger).
PIECES = dict(s1_tile=128, s2_tile=256, c_tile=(64, 128, 32, 64, 64, 128),
              v_tile_s=(16, 128), v_tile_d=(32, 64))
STRAIGHT = "pto-ascend-pipeline{roll-pieces=false}"


def _leaf_bodies(cpp: str) -> dict[str, str]:
    """Leaf name -> its C++ body."""
    bodies = {}
    for match in re.finditer(r"__global__ AICORE void (\w+)\(.*?\) \{\n(.*?)\n\}\n", cpp, re.S):
        bodies[match.group(1)] = match.group(2)
    return bodies


def test_rolled_leaves_match_straight_line_bit_for_bit(tmp_path):
    case = sk16.CASES["test_09"]  # N=8, D=64, ragged sequence lengths
    source = tmp_path / "sk16.mlir"
    source.write_text(sk16_ir.emit(sk16_ir.Sk16Config(heads=case.N, head_dim=case.D, **PIECES)))
    straight_cpp = codegen.emit_cpp(source, tmp_path / "straight", STRAIGHT)
    rolled_cpp = codegen.emit_cpp(source, tmp_path / "rolled")

    straight, rolled = straight_cpp.read_text(), rolled_cpp.read_text()
    straight_leaves, rolled_leaves = _leaf_bodies(straight), _leaf_bodies(rolled)
    assert straight_leaves.keys() == rolled_leaves.keys()
    assert not any("for (" in body for body in straight_leaves.values())
    looped = [name for name, body in rolled_leaves.items() if "for (" in body]
    # The K-chain C2 pieces roll; since pto-expand-tiles keeps one op per
    # index value, those chains share one leaf.
    assert len(looped) >= 1, looped
    assert len(rolled.splitlines()) < len(straight.splitlines())

    inputs = sk16.make_inputs(case, seed=11)
    outputs = {}
    for name, cpp in (("straight", straight_cpp), ("rolled", rolled_cpp)):
        exe = codegen.compile_cpp(cpp, opt="-O0")
        outputs[name], _ = codegen.run(exe, tmp_path / f"run_{name}", inputs, sk16.DTYPES,
                                       sk16.OUTPUT_NAMES, names=sk16.INPUT_NAMES)
    for name in sk16.OUTPUT_NAMES:
        a, b = outputs["straight"][name], outputs["rolled"][name]
        assert a.dtype == b.dtype and a.shape == b.shape
        assert a.tobytes() == b.tobytes(), f"{name} differs between straight and rolled leaves"
    sk16.assert_matches_golden(outputs["rolled"], sk16.golden_backward(inputs, case.N, case.D))


def test_sk16_a3_code_size(tmp_path):
    """SK-16 at the A3 tiles, D = 64: at most 10,000 lines of C++ in all,
    every later V1 leaf a loop, and C2 leaves too where they repeat pieces (the
    operand-stationary K split leaves some C2 chains one piece long)."""
    source = tmp_path / "sk16.mlir"
    source.write_text(sk16_ir.emit(sk16_ir.Sk16Config(heads=8, head_dim=64)))
    cpp = codegen.emit_cpp(source, tmp_path).read_text()
    assert len(cpp.splitlines()) <= 10_000, len(cpp.splitlines())
    leaves = _leaf_bodies(cpp)
    for name, body in leaves.items():
        if re.search(r"_V1_[2-9]$", name):
            assert "for (" in body, f"{name} is straight-line"
    assert any("for (" in body for name, body in leaves.items()
               if re.search(r"_C2_\d+$", name)), "no C2 leaf is a loop"
