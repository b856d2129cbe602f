//===- Passes.h - conversions between pto levels ----------------*- C++ -*-===//
#ifndef PTO_CONVERSION_PASSES_H
#define PTO_CONVERSION_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/Pass.h"
#include "pto/Dialect/PTO/IR/PTODialect.h"
#include "pto/Dialect/PTOISA/IR/PTOISA.h"

namespace mlir::pto {
#define GEN_PASS_DECL
#include "pto/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "pto/Conversion/Passes.h.inc"
} // namespace mlir::pto

#endif // PTO_CONVERSION_PASSES_H
