#!/usr/bin/env bash
# Lists the C/C++ files (scripts/cxx-files.sh) that clang-format would change
# under the root .clang-format (LLVM style, as upstream MLIR) and exits 1 if
# there is any; `scripts/format.sh` fixes them. `make format-check`, in CI.
# With FILE arguments it checks those files against the root .clang-format
# instead (test/Tools/check-format.test).
# CLANG_FORMAT overrides the binary (default clang-format-22, the version the
# style is checked with: other versions format some constructs differently).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
CLANG_FORMAT=${CLANG_FORMAT:-clang-format-22}
if ! command -v "$CLANG_FORMAT" >/dev/null 2>&1; then
  echo "check-format: '$CLANG_FORMAT' not found; install it with scripts/install-deps.sh" \
       "(Debian clang-format-22) or set CLANG_FORMAT" >&2
  exit 2
fi
bad=()
checked=0
check() { # FILE STYLE
  checked=$((checked + 1))
  if ! "$CLANG_FORMAT" --style="$2" "$1" | cmp -s - "$1"; then
    bad+=("$1")
  fi
}
if [ $# -gt 0 ]; then
  for f in "$@"; do
    if [ ! -f "$f" ]; then
      echo "check-format: '$f' is not a file" >&2
      exit 2
    fi
    check "$f" "file:$root/.clang-format"
  done
else
  cd "$root"
  # --style=file: the nearest .clang-format (test inputs disable formatting).
  while IFS= read -r f; do
    [ -n "$f" ] && check "$f" file
  done < <(scripts/cxx-files.sh)
fi
if [ ${#bad[@]} -ne 0 ]; then
  printf '%s\n' "${bad[@]}"
  echo "check-format: ${#bad[@]} of $checked files are not formatted;" \
       "run scripts/format.sh (or $CLANG_FORMAT -i FILE)" >&2
  exit 1
fi
echo "check-format: $checked files formatted"
