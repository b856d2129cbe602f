//===- Passes.h - pto_isa passes --------------------------------*- C++ -*-===//
#ifndef PTO_DIALECT_PTOISA_TRANSFORMS_PASSES_H
#define PTO_DIALECT_PTOISA_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"
#include "pto/Dialect/PTOISA/IR/PTOISA.h"

namespace mlir::ptoisa {
#define GEN_PASS_DECL
#include "pto/Dialect/PTOISA/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "pto/Dialect/PTOISA/Transforms/Passes.h.inc"
} // namespace mlir::ptoisa

#endif // PTO_DIALECT_PTOISA_TRANSFORMS_PASSES_H
