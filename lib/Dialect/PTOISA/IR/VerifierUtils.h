//===- VerifierUtils.h - shared by the pto_isa verifiers --------*- C++ -*-===//
//
// Internal to lib/Dialect/PTOISA/IR: the verifier files of the op families
// (PTOISA.cpp lists them) share these.
//
//===----------------------------------------------------------------------===//

#ifndef LIB_DIALECT_PTOISA_IR_VERIFIERUTILS_H
#define LIB_DIALECT_PTOISA_IR_VERIFIERUTILS_H

#include "pto/Dialect/PTOISA/IR/PTOISA.h"

namespace mlir::ptoisa::detail {

inline TileType tileOf(Value v) { return cast<TileType>(v.getType()); }

/// That `tile` is in one of the `allowed` spaces; the error names `role`.
LogicalResult expectSpace(Operation *op, StringRef role, Value tile,
                          ArrayRef<MemorySpace> allowed);

/// That `x` and `y` (named `a` and `b`) have one element type.
LogicalResult expectSameElement(Operation *op, StringRef a, Value x,
                                StringRef b, Value y);

/// That `tile` (named `role`) is a row-major (nd) ub tile.
LogicalResult expectRowMajorUB(Operation *op, StringRef role, Value tile);

} // namespace mlir::ptoisa::detail

#endif // LIB_DIALECT_PTOISA_IR_VERIFIERUTILS_H
