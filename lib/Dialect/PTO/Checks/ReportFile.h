//===- ReportFile.h - the output file of the report passes ------*- C++ -*-===//
//
// pto-summary, pto-report and pto-view-graph read the module and print to
// stdout or to their `output` option; they share how that file is opened,
// how a path that cannot be opened is reported, and that they change
// nothing.
//
//===----------------------------------------------------------------------===//
#ifndef PTO_LIB_DIALECT_PTO_CHECKS_REPORTFILE_H
#define PTO_LIB_DIALECT_PTO_CHECKS_REPORTFILE_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::pto::check {

/// Opens `path` ('-' is stdout), calls `write` with its stream and keeps the
/// file. A path that cannot be opened is an error at `module` naming the pass
/// (`passArgument`, e.g. "pto-summary") and the path.
LogicalResult writeReport(ModuleOp module, StringRef passArgument,
                          StringRef path,
                          llvm::function_ref<void(llvm::raw_ostream &)> write);

} // namespace mlir::pto::check

#endif // PTO_LIB_DIALECT_PTO_CHECKS_REPORTFILE_H
