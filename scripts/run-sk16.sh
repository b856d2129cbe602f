#!/usr/bin/env bash
# The main job: runs the canonical SK-16 program through the toolchain.
#  1. pto-opt parses and verifies SK-16 (D = 128 and D = 64); its pretty and
#     generic round trips must be stable; a summary of the kernel is printed.
#  2. pto-run executes SK-16 on host memory for a fixed-length and a
#     cross-attention varlen case, and dQ/dK/dV are compared with the NumPy
#     golden (rtol 2^-7, atol 1e-4).
#  3. The tile-graph pipeline compiles SK-16 (expansion, cube/vector tasks,
#     L1 reuse, leaves and roots, stitch plan); pto-report prints its numbers,
#     and the compiled execute graph runs the cross-attention case in
#     stitched order against the golden again.
#  4. The Ascend pipeline lowers the leaves to pto_isa (memory planning, sync
#     insertion), pto-translate prints pto-isa C++, its kernels are compiled
#     against the real pto-isa ("compiles against pto-isa <commit>: yes/no"),
#     the system compiler builds it against the host emulation
#     (runtime/include) and the program runs the cross-attention case against
#     the golden.
# Outputs go to $BUILD/sk16/.
set -euo pipefail
build=${1:-build}
python=${PYTHON:-/usr/bin/python3}
opt="$build/bin/pto-opt"
run="$build/bin/pto-run"
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

# Numerics: test_01 (8 x 8 x 320 x 320 x 64) and test_09 (varlen cross attention).
for case in test_01 test_09; do
  dir="$out/$case"
  rm -rf "$dir"
  (cd python && "$python" -m pto_mlir.golden.sk16 --case "$case" --out "../$dir" > /dev/null)
  args=()
  for arg in q k v o do l_input m_input dq dk dv actual_q actual_kv; do
    args+=(--input "$arg=$dir/$arg.npy")
  done
  echo "== pto-run examples/sk16_attention_backward_d64.mlir on $case -> $dir"
  "$run" examples/sk16_attention_backward_d64.mlir "${args[@]}" --output-dir "$dir" --run-stats
  (cd python && "$python" -m pto_mlir.golden.sk16 --compare "../$dir")
done

# Tile-graph compilation.
echo "== pto-opt --pto-tile-graph-pipeline examples/sk16_attention_backward_d64.mlir -> $out/sk16_d64.tile-graph.mlir"
"$opt" examples/sk16_attention_backward_d64.mlir --pto-tile-graph-pipeline -o "$out/sk16_d64.tile-graph.mlir"
"$opt" "$out/sk16_d64.tile-graph.mlir" --pto-report -o /dev/null
dir="$out/test_09.tile-graph"
rm -rf "$dir"
(cd python && "$python" -m pto_mlir.golden.sk16 --case test_09 --out "../$dir" > /dev/null)
args=()
for arg in q k v o do l_input m_input dq dk dv actual_q actual_kv; do
  args+=(--input "$arg=$dir/$arg.npy")
done
echo "== pto-run $out/sk16_d64.tile-graph.mlir on test_09 (stitched execute graph) -> $dir"
"$run" "$out/sk16_d64.tile-graph.mlir" "${args[@]}" --output-dir "$dir" --run-stats
(cd python && "$python" -m pto_mlir.golden.sk16 --compare "../$dir")

# Ascend code generation: C++ on the pto-isa API, run on the host emulation.
cxx=${PTO_CXX:-clang++-22}
echo "== pto-opt --pto-ascend-pipeline examples/sk16_attention_backward_d64.mlir -> $out/sk16_d64.isa.mlir"
"$opt" examples/sk16_attention_backward_d64.mlir --pto-ascend-pipeline -o "$out/sk16_d64.isa.mlir"
echo "== pto-translate --pto-to-cpp -> $out/sk16_d64.cpp"
"$build/bin/pto-translate" --pto-to-cpp "$out/sk16_d64.isa.mlir" -o "$out/sk16_d64.cpp"
echo "   $(grep -c '__global__ AICORE' "$out/sk16_d64.cpp") kernels, $(wc -l < "$out/sk16_d64.cpp") lines"
# The same kernels against the real pto-isa headers and CPU back end (vector
# and cube side; PTO_ISA_DIR, default ../shared/third_party/pto-isa).
echo "== kernels of $out/sk16_d64.cpp against the real pto-isa (-D__CPU_SIM -DPTO_KERNELS_ONLY, __DAV_VEC__ and __DAV_CUBE__)"
PYTHONPATH=python PTO_BUILD_DIR="$build" "$python" -m pto_mlir.pto_isa check "$out/sk16_d64.cpp"
echo "== $cxx -D__CPU_SIM -DPTO_HOST_MAIN -Iruntime/include $out/sk16_d64.cpp -> $out/sk16_d64"
"$cxx" -std=c++20 -O1 -D__CPU_SIM -DPTO_HOST_MAIN -Iruntime/include "$out/sk16_d64.cpp" -o "$out/sk16_d64" -pthread
dir="$out/test_09.cpp"
rm -rf "$dir"
(cd python && "$python" -m pto_mlir.golden.sk16 --case test_09 --out "../$dir" > /dev/null)
echo "== $out/sk16_d64 --inputs $dir --outputs $dir (emulated, sync and hazards checked)"
"$out/sk16_d64" --inputs "$dir" --outputs "$dir" --stats
(cd python && "$python" -m pto_mlir.golden.sk16 --compare "../$dir")
