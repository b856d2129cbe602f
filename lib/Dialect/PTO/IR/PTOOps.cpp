//===- PTOOps.cpp - pto operations ----------------------------------------===//
//
// Verifiers name the offending value, the rule and the fix. Architecture
// limits come from Platform.h.
//
// This file holds the helpers the op families share (VerifierUtils.h) and
// the ODS-generated op classes; the verifiers and custom syntax are split
// by op family: ControlOps.cpp (kernel, loops, scopes, tasks, calls),
// ViewOps.cpp (views, reads, reshapes, stores), MatmulOps.cpp,
// ElementwiseOps.cpp, ReduceOps.cpp, TransposeOp.cpp, CastOps.cpp and the
// smaller families (ArangeOp.cpp, GatherOps.cpp, MaskOps.cpp,
// ScatterOps.cpp, SortOps.cpp).
//
//===----------------------------------------------------------------------===//

#include "VerifierUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::pto;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

std::string mlir::pto::detail::shapeStr(ArrayRef<int64_t> shape) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << '[';
  llvm::interleaveComma(shape, os, [&](int64_t d) {
    if (ShapedType::isDynamic(d))
      os << '?';
    else
      os << d;
  });
  os << ']';
  return s;
}

/// The vector tile rules shared by vector ops
/// (docs/PyPTOModel.md#vector-tile-shapes).
LogicalResult mlir::pto::detail::verifyVecTile(Operation *op, VecTileAttr tile,
                                               TileType governed) {
  if (!tile)
    return success();
  ArrayRef<int64_t> dims = tile.getDims();
  if (static_cast<int64_t>(dims.size()) < governed.getRank())
    return op->emitOpError()
           << "vector tile " << shapeStr(dims) << " has rank " << dims.size()
           << " but the op works on rank-" << governed.getRank()
           << " tiles; give the vector tile at least " << governed.getRank()
           << " dims";
  // A last dim covering the tile's whole last dim (an f32 [N, 1] column) is
  // padded to a 32-byte block by pto-legalize, as the ub row is; only an
  // unaligned split of the dim is an error, in PyPTO too
  // (docs/Legalization.md). The architecture (a walk up to the kernel) only
  // for a split: this runs on every vector op after every pass.
  if (dims.back() >= governed.getShape().back())
    return success();
  int64_t elemBytes = governed.getElementByteSize();
  const PlatformInfo &platform = getPlatformInfo(getArchFor(op));
  if ((dims.back() * elemBytes) % platform.bufferAlignBytes != 0)
    return op->emitOpError()
           << "vector tile " << shapeStr(dims) << ": last dim " << dims.back()
           << " x " << elemBytes << " B (" << governed.getElementType()
           << ") = " << dims.back() * elemBytes << " B is not "
           << platform.bufferAlignBytes << "-byte aligned and splits the "
           << governed.getShape().back()
           << " columns of the tile; PyPTO rejects this too "
              "(set_vec_tile_shapes: last dim x dtype size must be a multiple "
              "of 32 B): use a multiple of "
           << platform.bufferAlignBytes / elemBytes
           << " elements, or the whole last dim";
  return success();
}

#define GET_OP_CLASSES
#include "pto/Dialect/PTO/IR/PTOOps.cpp.inc"
