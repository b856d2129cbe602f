//===- Version.cpp - pto-mlir's version for the tools' --version ----------===//

#include "pto/Tools/Version.h"
#include "pto/VersionInfo.inc"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

std::string mlir::pto::getVersionString() {
  return std::string("pto-mlir version ") + PTO_VERSION_STRING + " (git " +
         PTO_GIT_REVISION + ")";
}

void mlir::pto::registerVersionPrinter() {
  llvm::cl::AddExtraVersionPrinter(
      [](llvm::raw_ostream &os) { os << getVersionString() << "\n"; });
}
