//===- ReportFile.cpp - the output file of the report passes --------------===//

#include "ReportFile.h"

#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;

LogicalResult mlir::pto::check::writeReport(
    ModuleOp module, StringRef passArgument, StringRef path,
    llvm::function_ref<void(llvm::raw_ostream &)> write) {
  std::string errorMessage;
  std::unique_ptr<llvm::ToolOutputFile> file =
      openOutputFile(path, &errorMessage);
  if (!file)
    return module.emitError() << passArgument << ": cannot open '" << path
                              << "': " << errorMessage;
  write(file->os());
  file->keep();
  return success();
}
