"""The compiler's output does not depend on where the heap puts its objects:
the full pipeline to C++ (pto-opt's ISA-level module and pto-translate's
C++) is byte-identical across processes with different malloc layouts.

A pass that iterates a map or set keyed by pointers (DenseMap<Operation *>,
SmallPtrSet, ...) and lets that order reach the IR gives output that changes
with the addresses of the ops: with ASLR (on for every process here unless
the kernel disables it) and with glibc's malloc tunables (no thread cache,
small mmap threshold, perturbed frees) the ops land at other addresses, and
pointer hashes put them in other buckets. Covered: SK-16 and SK-01 at their
A3 tiles (DAV_2201) and a MIX compile (SK-16 at DAV_3510 with small tiles,
where pto-mix-exchange hands S and dP over on chip).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from pto_mlir import sk01_ir, sk16_ir
from pto_mlir.tools import tool

# Three malloc layouts: the default, and two sets of glibc tunables that
# change which addresses freed and new objects get.
LAYOUTS = {
    "default": {},
    "no-tcache": {"GLIBC_TUNABLES": "glibc.malloc.tcache_count=0:glibc.malloc.mmap_threshold=4096",
                  "MALLOC_PERTURB_": "165"},
    "padded": {"GLIBC_TUNABLES": "glibc.malloc.top_pad=67108864:glibc.malloc.arena_max=1",
               "MALLOC_PERTURB_": "90"},
}

SMALL_3510 = dict(s1_tile=256, s2_tile=256, c_tile=(64, 128, 64, 128, 64, 128),
                  v_tile_s=(32, 64), v_tile_d=(64, 64), arch="DAV_3510")
KERNELS = {"sk16": lambda: sk16_ir.emit(sk16_ir.Sk16Config()),
           "sk16_mix_3510": lambda: sk16_ir.emit(sk16_ir.Sk16Config(**SMALL_3510)),
           "sk01": lambda: sk01_ir.emit(sk01_ir.Sk01Config(accumulators="gm"))}


def compile_to_cpp(source: Path, out: Path, env: dict) -> tuple[bytes, bytes]:
    """pto-opt's full pipeline and pto-translate, in processes with `env`
    added to the environment; returns (ISA-level module, C++)."""
    out.mkdir(parents=True, exist_ok=True)
    full_env = {**os.environ, **env}
    # Relative names in a directory per run: the C++ quotes the ISA module's
    # path in its fault locations.
    isa, cpp = "kernel.isa.mlir", "kernel.cpp"
    for cmd in ([tool("pto-opt"), source, "--pass-pipeline=builtin.module(pto-ascend-pipeline)",
                 "-o", isa],
                [tool("pto-translate"), "--pto-to-cpp", isa, "-o", cpp]):
        r = subprocess.run(list(map(str, cmd)), capture_output=True, text=True, env=full_env,
                           cwd=out)
        assert r.returncode == 0, r.stderr[-3000:]
    return (out / isa).read_bytes(), (out / cpp).read_bytes()


def first_difference(a: bytes, b: bytes) -> str:
    lines_a, lines_b = a.decode().splitlines(), b.decode().splitlines()
    for n, (x, y) in enumerate(zip(lines_a, lines_b), 1):
        if x != y:
            return f"line {n}:\n  {x}\n  {y}"
    return f"lengths {len(lines_a)} and {len(lines_b)} lines"


@pytest.mark.parametrize("kernel", sorted(KERNELS))
def test_output_is_independent_of_heap_layout(kernel, tmp_path):
    source = tmp_path / f"{kernel}.mlir"
    source.write_text(KERNELS[kernel]())
    outputs = {name: compile_to_cpp(source, tmp_path / name, env)
               for name, env in LAYOUTS.items()}
    if kernel == "sk16_mix_3510":
        assert b"pto.core<mix>" in outputs["default"][0], "expected a MIX leaf"
    reference = outputs["default"]
    for name, (isa, cpp) in outputs.items():
        assert isa == reference[0], (
            f"ISA module differs under {name}: {first_difference(reference[0], isa)}")
        assert cpp == reference[1], (
            f"C++ differs under {name}: {first_difference(reference[1], cpp)}")
