#!/bin/sh
# Prints an mlir-tblgen generated doc (FILE) as docs/ keeps it: without the
# Hugo shortcodes ({{% markdown %}} ... {{% /markdown %}}) that MLIR's website
# needs and GitHub shows verbatim. Used by `make docs` and
# test/Docs/docs-current.test.
exec sed -E 's/\{\{% *\/?markdown *%\}\}//g' "$1"
