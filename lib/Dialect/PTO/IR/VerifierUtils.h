//===- VerifierUtils.h - helpers shared by the pto op verifiers -*- C++ -*-===//
//
// Internal to lib/Dialect/PTO/IR: the op families' verifier files
// (PTOOps.cpp, GatherOps.cpp) share these.
//
//===----------------------------------------------------------------------===//
#ifndef LIB_DIALECT_PTO_IR_VERIFIERUTILS_H
#define LIB_DIALECT_PTO_IR_VERIFIERUTILS_H

#include "pto/Dialect/PTO/IR/PTODialect.h"

#include <string>

namespace mlir::pto::detail {

/// `[16, ?, 64]`.
std::string shapeStr(ArrayRef<int64_t> shape);

/// The vector tile rules shared by vector ops
/// (docs/PyPTOModel.md#vector-tile-shapes); `governed` is the tile the
/// vector tile splits.
LogicalResult verifyVecTile(Operation *op, VecTileAttr tile, TileType governed);

} // namespace mlir::pto::detail

#endif // LIB_DIALECT_PTO_IR_VERIFIERUTILS_H
