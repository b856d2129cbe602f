//===- Passes.h - pto checker and report passes -----------------*- C++ -*-===//
//
// Read-only passes: the SK-16 checker, the linter, the kernel summary and the
// tile-graph report. They live apart from the rewrites
// (pto/Dialect/PTO/Transforms/Passes.h) and register with
// registerPTOCheckPasses().
//
//===----------------------------------------------------------------------===//
#ifndef PTO_DIALECT_PTO_CHECKS_PASSES_H
#define PTO_DIALECT_PTO_CHECKS_PASSES_H

#include "mlir/Pass/Pass.h"
#include "pto/Dialect/PTO/IR/PTODialect.h"

namespace mlir::pto {

#define GEN_PASS_DECL
#include "pto/Dialect/PTO/Checks/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "pto/Dialect/PTO/Checks/Passes.h.inc"

} // namespace mlir::pto

#endif // PTO_DIALECT_PTO_CHECKS_PASSES_H
