//===- pto-lsp-server.cpp - MLIR language server for pto kernels ---------===//
//
// MLIR's LSP server (diagnostics, hover, go-to-definition, document symbols,
// completion) over the dialects pto kernels use, with hovers on tile values
// showing their valid shape, bytes and UB/L1/L0 occupancy in the memory plan
// (lib/Tools/LspServer). Point an editor's MLIR extension at this binary
// (VS Code: "mlir.server_path").
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/DialectRegistry.h"

#include "pto/Embedding/Embedding.h"
#include "pto/Tools/LspServerMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::pto::registerAllDialects(registry);
  return mlir::pto::ptoLspServerMain(argc, argv, registry);
}
