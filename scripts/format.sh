#!/usr/bin/env bash
# Formats the C/C++ files of the tree in place (scripts/cxx-files.sh) with the
# root .clang-format; with FILE arguments, only those. CLANG_FORMAT overrides
# the binary (default clang-format-22, the one scripts/check-format.sh uses).
set -euo pipefail
cd "$(dirname "$0")/.."
CLANG_FORMAT=${CLANG_FORMAT:-clang-format-22}
if ! command -v "$CLANG_FORMAT" >/dev/null 2>&1; then
  echo "format: '$CLANG_FORMAT' not found; install it with scripts/install-deps.sh" \
       "(Debian clang-format-22) or set CLANG_FORMAT" >&2
  exit 2
fi
if [ $# -gt 0 ]; then
  "$CLANG_FORMAT" --style=file -i "$@"
else
  scripts/cxx-files.sh | xargs -r -d '\n' "$CLANG_FORMAT" --style=file -i
fi
