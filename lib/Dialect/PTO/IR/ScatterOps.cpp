//===- ScatterOps.cpp - pto indexed writes into GM
//-------------------------===//
//
// Ops that write tile rows into GM rows chosen by a run-time index tile
// (PyPTO's index_put_ and index_add_). Verifiers name the offending value,
// the rule and the fix.
//
//===----------------------------------------------------------------------===//

#include "VerifierUtils.h"

using namespace mlir;
using namespace mlir::pto;
using mlir::pto::detail::shapeStr;

//===----------------------------------------------------------------------===//
// IndexPutOp
//===----------------------------------------------------------------------===//

LogicalResult IndexPutOp::verify() {
  TileType src = getSrc().getType(), indices = getIndices().getType();
  GMTensorType dst = getDst().getType();
  if (src.getElementType() != dst.getElementType())
    return emitOpError() << "writes a " << src.getElementType()
                         << " tile into a " << dst.getElementType()
                         << " tensor; index_put needs matching dtypes (cast "
                            "the tile)";
  if (src.getRank() != 2 || dst.getRank() != 2)
    return emitOpError() << "writes a rank-" << src.getRank()
                         << " tile into a rank-" << dst.getRank()
                         << " tensor; index_put is supported on rank-2 tiles "
                            "and tensors (rows indexed), reshape to 2-D";
  if (indices.getRank() != 1 || !indices.getElementType().isSignlessInteger(32))
    return emitOpError() << "indices " << indices
                         << " must be a rank-1 i32 tile (one row index per "
                            "row of the source); cast them to DT_INT32";
  if (indices.getShape()[0] != src.getShape()[0])
    return emitOpError() << "has " << indices.getShape()[0]
                         << " indices for a source of " << src.getShape()[0]
                         << " rows; give one index per source row";
  ArrayRef<int64_t> offsets = getStaticOffsets();
  if (static_cast<int64_t>(offsets.size()) != dst.getRank())
    return emitOpError() << "has " << offsets.size() << " offsets for a rank-"
                         << dst.getRank() << " tensor; give one offset per dim";
  if (llvm::count_if(offsets, ShapedType::isDynamic) !=
      static_cast<int64_t>(getOffsets().size()))
    return emitOpError() << "offsets have "
                         << llvm::count_if(offsets, ShapedType::isDynamic)
                         << " dynamic entries but " << getOffsets().size()
                         << " index operands";
  for (auto [d, offset] : llvm::enumerate(offsets))
    if (!ShapedType::isDynamic(offset) && offset < 0)
      return emitOpError() << "offset " << offset << " of dim " << d
                           << " is negative";
  int64_t cols = dst.getShape()[1];
  if (!ShapedType::isDynamic(cols) && !ShapedType::isDynamic(offsets[1]) &&
      offsets[1] + src.getShape()[1] > cols)
    return emitOpError() << "writes columns [" << offsets[1] << ", "
                         << offsets[1] + src.getShape()[1]
                         << ") of a tensor of " << cols
                         << " columns; the source rows must fit the "
                            "destination rows "
                         << shapeStr(dst.getShape());
  VecTileAttr vecTile = getVecTileAttr();
  if (!vecTile)
    return success();
  if (vecTile.getDims().size() > 2)
    return emitOpError() << "vector tile " << shapeStr(vecTile.getDims())
                         << " has more than 2 dims; index_put takes [rows] "
                            "or [rows, cols]";
  if (vecTile.getDims().size() == 2)
    return detail::verifyVecTile(*this, vecTile, src);
  return success();
}

SmallVector<int64_t, 2> IndexPutOp::getPieceShape() {
  ArrayRef<int64_t> shape = getSrc().getType().getShape();
  SmallVector<int64_t, 2> piece(shape);
  if (VecTileAttr vecTile = getVecTileAttr()) {
    ArrayRef<int64_t> dims = vecTile.getDims();
    piece[0] = std::min(piece[0], dims[0]);
    if (dims.size() == 2)
      piece[1] = std::min(piece[1], dims[1]);
  }
  return piece;
}
