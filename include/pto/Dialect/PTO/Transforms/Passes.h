//===- Passes.h - pto passes ------------------------------------*- C++ -*-===//
#ifndef PTO_DIALECT_PTO_TRANSFORMS_PASSES_H
#define PTO_DIALECT_PTO_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Pass/Pass.h"
#include "pto/Dialect/PTO/IR/PTODialect.h"

namespace mlir::pto {

#define GEN_PASS_DECL
#include "pto/Dialect/PTO/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "pto/Dialect/PTO/Transforms/Passes.h.inc"

} // namespace mlir::pto

#endif // PTO_DIALECT_PTO_TRANSFORMS_PASSES_H
