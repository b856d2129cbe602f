//===- pto-lsp-server.cpp - MLIR language server for pto kernels ---------===//
//
// MLIR's LSP server (diagnostics, hover, go-to-definition, document symbols,
// completion) over the dialects pto kernels use. Point an editor's MLIR
// extension at this binary (VS Code: "mlir.server_path").
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-lsp-server/MlirLspServerMain.h"

#include "pto/Embedding/Embedding.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::pto::registerAllDialects(registry);
  return mlir::failed(mlir::MlirLspServerMain(argc, argv, registry)) ? 1 : 0;
}
