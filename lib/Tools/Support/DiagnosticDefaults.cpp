//===- DiagnosticDefaults.cpp - how the tools print diagnostics -----------===//

#include "pto/Tools/DiagnosticDefaults.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/CommandLine.h"

void mlir::pto::setDiagnosticDefaults() {
  // The option belongs to MLIR (registered once, here or by the tool's
  // main); only its default changes.
  mlir::registerMLIRContextCLOptions();
  auto &options = llvm::cl::getRegisteredOptions();
  auto it = options.find("mlir-print-op-on-diagnostic");
  if (it != options.end())
    static_cast<llvm::cl::opt<bool> *>(it->second)->setInitialValue(false);
}
