#!/usr/bin/env python3
"""Writes the seed corpus of tools/pto-fuzz: every `.mlir` input of the test
suite and the examples, split on `// -----` like `-split-input-file`, one
file per piece (named after its source), plus the SK-16 / SK-01 generators'
kernels at a few odd tile configurations.

    scripts/fuzz-corpus.py OUT_DIR [--no-generated]
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SEPARATOR = "// -----"


def pieces(text: str):
    for piece in text.split(SEPARATOR):
        lines = [l for l in piece.splitlines() if not l.lstrip().startswith("// RUN")]
        body = "\n".join(lines).strip()
        if body:
            yield body + "\n"


def generated():
    sys.path.insert(0, str(ROOT / "python"))
    from pto_mlir import sk01_ir, sk16_ir

    yield "sk16-small", sk16_ir.emit(sk16_ir.Sk16Config(
        heads=2, head_dim=64, s1_tile=96, s2_tile=112, c_tile=(64, 128, 64, 128, 64, 128),
        v_tile_s=(32, 128), v_tile_d=(32, 128)))
    yield "sk01-default", sk01_ir.emit(sk01_ir.Sk01Config())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--no-generated", action="store_true")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    count = 0
    sources = sorted((ROOT / "test").rglob("*.mlir")) + sorted((ROOT / "examples").glob("*.mlir"))
    seen = set()

    def write(stem: str, text: str):
        nonlocal count
        digest = hashlib.sha1(text.encode()).hexdigest()[:10]
        if digest in seen:
            return
        seen.add(digest)
        (args.out / f"{stem}-{digest}.mlir").write_text(text)
        count += 1

    for src in sources:
        stem = src.relative_to(ROOT).as_posix().replace("/", "_").removesuffix(".mlir")
        for piece in pieces(src.read_text()):
            write(stem, piece)
    if not args.no_generated:
        for stem, text in generated():
            write(stem, text)
    print(f"fuzz-corpus: {count} inputs in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
