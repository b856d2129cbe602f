"""Piece loops (pto-isa-roll-pieces, docs/Codegen.md#piece-loops-and-code-size).

The rolled leaves must compute exactly what the straight-line leaves compute:
SK-16 (tiles cut into row pieces and K chains) is built twice, with `roll-pieces=false` and with the default
pipeline, both at -O0 so that only the emitted code differs, and the outputs
of a ragged case are compared bit for bit. The emulation checks every flag
and on-chip hazard at run time, so the loops' synchronisation (primed and
drained flags) is exercised too. At the A3 tiles the C1 and C2 leaves roll
after a first piece that loads tiles the later pieces reuse: the A3 files
are checked for size and loops, and at D = 128 bit for bit on a short case
(the whole case matrix runs in test_codegen_sk16.py).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

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


def _assert_rolled_equals_straight(tmp_path: Path, case, seed: int, straight_cpp: Path,
                                   rolled_cpp: Path) -> None:
    """Both files built at -O0 and run on one input of `case`: dQ/dK/dV equal
    bit for bit, and the rolled ones match the golden."""
    inputs = sk16.make_inputs(case, seed=seed)
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

    _assert_rolled_equals_straight(tmp_path, case, 11, straight_cpp, rolled_cpp)


def _a3_source(tmp_path: Path, heads: int, head_dim: int) -> Path:
    source = tmp_path / "sk16.mlir"
    source.write_text(sk16_ir.emit(sk16_ir.Sk16Config(heads=heads, head_dim=head_dim)))
    return source


@pytest.mark.parametrize("head_dim", [64, 128])
def test_sk16_a3_code_size(head_dim, tmp_path):
    """SK-16 at the A3 tiles (as benchmarks/emitted_code.py builds it): at
    most 7,000 lines of C++ in all (issue 18 asks for 10,000 at D = 64), and
    every leaf of more than one piece a loop: the later V1 leaves, every C2
    leaf, and C1, whose first piece loads the Q blocks that the later
    pieces reuse (so only the later pieces roll; also the C2 leaves at
    D = 128, whose first piece loads the K-chain operands)."""
    cpp = codegen.emit_cpp(_a3_source(tmp_path, 8, head_dim), tmp_path).read_text()
    assert len(cpp.splitlines()) <= 7_000, len(cpp.splitlines())
    leaves = _leaf_bodies(cpp)
    looped = [name for name, body in leaves.items()
              if re.search(r"_(V1_[1-9]|C1_\d+|C2_\d+)$", name)]
    assert len(looped) >= 10, sorted(leaves)
    for name in looped:
        assert "for (" in leaves[name], f"{name} is straight-line"


# A ragged case at D = 128, small enough for the emulation at the A3 tiles.
A3_CASE = sk16.Sk16Case("a3_d128", q_seqlens=(192, 64), kv_seqlens=(160, 320), N=8, D=128)


def test_a3_rolled_cube_leaves_match_straight_line_bit_for_bit(tmp_path):
    """At the A3 tiles, D = 128, the C1 and C2 leaves are loops after a first
    piece that stays straight-line (it loads tiles the loop reads; D = 64
    rolls C1 the same way); dQ/dK/dV equal those of the straight-line file
    bit for bit (both at -O0), under the emulation's flag and hazard
    checks."""
    case = A3_CASE
    source = _a3_source(tmp_path, case.N, case.D)
    straight_cpp = codegen.emit_cpp(source, tmp_path / "straight", STRAIGHT)
    rolled_cpp = codegen.emit_cpp(source, tmp_path / "rolled")
    rolled = _leaf_bodies(rolled_cpp.read_text())
    cube = [name for name in rolled if re.search(r"_C[12]_\d+$", name)]
    assert cube and all("for (" in rolled[name] for name in cube), cube

    _assert_rolled_equals_straight(tmp_path, case, 5, straight_cpp, rolled_cpp)
