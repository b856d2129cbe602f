//===- Version.h - pto-mlir's version for the tools' --version -*- C++ -*-===//
#ifndef PTO_TOOLS_VERSION_H
#define PTO_TOOLS_VERSION_H

#include <string>

namespace mlir::pto {

/// "pto-mlir version X.Y.Z (git REVISION)": the release and the commit the
/// tools were built from ("-modified" when the tree had changes).
std::string getVersionString();

/// Makes `--version` print getVersionString() after LLVM's version.
void registerVersionPrinter();

} // namespace mlir::pto

#endif // PTO_TOOLS_VERSION_H
