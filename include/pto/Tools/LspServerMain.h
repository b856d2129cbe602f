//===- LspServerMain.h - pto-lsp-server entry point --------------*- C++
//-*-===//
//
// MLIR's language server over the pto dialects, with hovers on tile values
// extended by their valid shape, bytes and memory-plan occupancy
// (lib/Tools/LspServer). The tool's main only builds the registry.
//
//===----------------------------------------------------------------------===//
#ifndef PTO_TOOLS_LSPSERVERMAIN_H
#define PTO_TOOLS_LSPSERVERMAIN_H

#include "mlir/IR/DialectRegistry.h"

namespace mlir::pto {

/// Runs the server on stdin/stdout with MLIR's command line
/// (MlirLspServerMain's: -lit-test, --input-style, --pretty, --log); returns
/// the process exit code.
int ptoLspServerMain(int argc, char **argv, DialectRegistry &registry);

} // namespace mlir::pto

#endif // PTO_TOOLS_LSPSERVERMAIN_H
