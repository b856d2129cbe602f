#!/usr/bin/env bash
# Prints the C and C++ files that the project's .clang-format governs, one a
# line, relative to the repository root: every tracked source file except
# test inputs (kept byte for byte as the tests expect them), build trees and
# third-party code. Used by scripts/check-format.sh and scripts/format.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  list=$(git ls-files -- '*.c' '*.cc' '*.cpp' '*.h' '*.hpp')
else # an exported tree without .git: the same files by name
  list=$(find . -path ./.git -prune -o -type f \
    \( -name '*.c' -o -name '*.cc' -o -name '*.cpp' -o -name '*.h' -o -name '*.hpp' \) \
    -print | sed 's|^\./||')
fi
# Excluded: test inputs (*/Inputs/, including test/Fuzz/Inputs), generated
# TableGen output (*.inc, never tracked), build trees, third-party code.
printf '%s\n' "$list" | grep -v -E \
  -e '(^|/)Inputs/' -e '\.inc$' -e '^build[^/]*/' -e '(^|/)third_party/' \
  -e '(^|/)_deps/' | sort || true
