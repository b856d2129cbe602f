#!/usr/bin/env bash
# Installs the Debian 12 packages pto-mlir needs to build and test.
# As root it runs apt-get; otherwise it prints the command to run and fails.
set -euo pipefail

PACKAGES=(
  cmake ninja-build make
  clang-22 llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
  clang-format-22      # scripts/check-format.sh (make format-check, CI), scripts/format.sh
  libclang-rt-22-dev   # ASan/UBSan runtimes and libFuzzer (make test-asan, make fuzz)
  python3 python3-numpy python3-pytest
  python3-pytest-xdist # make check-python / test-asan run pytest on every CPU (-n logical)
  python3-dev pybind11-dev
  python3-torch        # PyPTO-Gym kernel files and their torch goldens (CPU; torch_npu stubbed)
  python3-matplotlib   # scripts/swimlane.py (cost-model trace pictures), pto-tune --plot (Pareto plot)
  libopenblas-dev
  libjemalloc-dev      # malloc of pto-opt/pto-translate (cmake/PTOAllocator.cmake, docs/TileGraph.md)
  graphviz             # dot: renders pto-opt --pto-view-graph (test/Dialect/PTO/view-graph.mlir, docs/Tutorial.md)
)

missing=()
for pkg in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

cmd="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  echo "pto-mlir: missing Debian packages: ${missing[*]}" >&2
  echo "Run as root:  $cmd" >&2
  exit 1
fi
echo "pto-mlir: installing ${missing[*]}" >&2
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
