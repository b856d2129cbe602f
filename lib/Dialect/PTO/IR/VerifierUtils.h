//===- VerifierUtils.h - helpers shared by the pto op verifiers -*- C++ -*-===//
//
// Internal to lib/Dialect/PTO/IR: the op families' verifier files
// (PTOOps.cpp lists them) share these.
//
//===----------------------------------------------------------------------===//
#ifndef LIB_DIALECT_PTO_IR_VERIFIERUTILS_H
#define LIB_DIALECT_PTO_IR_VERIFIERUTILS_H

#include "pto/Dialect/PTO/IR/PTODialect.h"

#include <string>

namespace mlir::pto::detail {

/// `[16, ?, 64]`.
std::string shapeStr(ArrayRef<int64_t> shape);

inline StringRef archName(Arch arch) { return stringifyArch(arch); }

inline bool isFP8(Type t) { return isa<Float8E4M3FNType, Float8E5M2Type>(t); }

inline bool isSignlessInt(Type t, unsigned width) {
  return t.isSignlessInteger(width);
}

/// The vector tile rules shared by vector ops
/// (docs/PyPTOModel.md#vector-tile-shapes); `governed` is the tile the
/// vector tile splits.
LogicalResult verifyVecTile(Operation *op, VecTileAttr tile, TileType governed);

} // namespace mlir::pto::detail

#endif // LIB_DIALECT_PTO_IR_VERIFIERUTILS_H
