#!/usr/bin/env bash
# The main job: runs the canonical SK-16 program through the toolchain.
# Today: parse + verify, a pretty and a generic round trip that must be stable,
# and a summary of what the kernel contains. Outputs go to $BUILD/sk16/.
set -euo pipefail
build=${1:-build}
opt="$build/bin/pto-opt"
out="$build/sk16"
mkdir -p "$out"
for src in examples/sk16_attention_backward.mlir examples/sk16_attention_backward_d64.mlir; do
  name=$(basename "$src" .mlir)
  "$opt" "$src" -o "$out/$name.mlir"
  "$opt" "$out/$name.mlir" -o "$out/$name.again.mlir"
  cmp -s "$out/$name.mlir" "$out/$name.again.mlir" || { echo "round trip of $src is not stable" >&2; exit 1; }
  "$opt" "$src" --mlir-print-op-generic | "$opt" -o "$out/$name.from-generic.mlir"
  cmp -s "$out/$name.mlir" "$out/$name.from-generic.mlir" || { echo "generic round trip of $src differs" >&2; exit 1; }
  echo "== $src: parsed, verified, round trips stable (pretty and generic) -> $out/$name.mlir"
done
"$opt" examples/sk16_attention_backward.mlir --pto-summary -o /dev/null
