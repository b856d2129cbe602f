//===- SortOps.cpp - pto sorting operations -------------------------------===//
//
// PyPTO's topk. Verifiers name the offending value, the rule and the fix.
//
//===----------------------------------------------------------------------===//

#include "VerifierUtils.h"

using namespace mlir;
using namespace mlir::pto;
using mlir::pto::detail::shapeStr;

//===----------------------------------------------------------------------===//
// TopKOp
//===----------------------------------------------------------------------===//

/// PyPTO's bound on the vector tile's last dim of a topk: under 22 KiB of
/// f32 (pypto-topk.md of https://github.com/hicann/pypto, docs/api/operation).
static constexpr int64_t kTopKMaxRowBytes = 22 * 1024;

LogicalResult TopKOp::verify() {
  TileType input = getInput().getType();
  TileType values = getValues().getType(), indices = getIndices().getType();
  if (!input.getElementType().isF32())
    return emitOpError() << "input is " << input.getElementType()
                         << "; PyPTO's topk sorts DT_FP32 only: cast the "
                            "input to f32 first";
  if (input.getRank() < 2 || input.getRank() > 4)
    return emitOpError() << "input has rank " << input.getRank()
                         << "; PyPTO's topk takes tiles of rank 2 to 4: "
                            "reshape it (e.g. a row to [1, n])";
  int64_t row = input.getShape().back();
  int64_t k = getK();
  if (k < 1 || k > row)
    return emitOpError() << "k = " << k << " is out of range for rows of "
                         << row << " elements; PyPTO requires 1 <= k <= "
                         << "input.shape[-1] = " << row;
  SmallVector<int64_t> expected(input.getShape());
  expected.back() = k;
  if (values.getShape() != ArrayRef<int64_t>(expected) ||
      !values.getElementType().isF32())
    return emitOpError() << "values type " << values << " must have shape "
                         << shapeStr(expected)
                         << " (the input's with the last dim k) and element "
                            "type f32";
  if (indices.getShape() != ArrayRef<int64_t>(expected) ||
      !indices.getElementType().isSignlessInteger(32))
    return emitOpError() << "indices type " << indices << " must have shape "
                         << shapeStr(expected)
                         << " (the input's with the last dim k) and element "
                            "type i32";
  if (failed(detail::verifyVecTile(*this, getVecTileAttr(), input)))
    return failure();
  VecTileAttr vecTile = getVecTileAttr();
  if (!vecTile)
    return success();
  // PyPTO's topk rules for the tile of its last dim (pypto-topk.md): the
  // piece holds the k results and fits the sort's row buffer.
  int64_t tileRow = std::min(vecTile.getDims()[input.getRank() - 1], row);
  if (tileRow < k)
    return emitOpError() << "vector tile " << shapeStr(vecTile.getDims())
                         << " splits the last dim into pieces of " << tileRow
                         << " elements, fewer than k = " << k
                         << "; PyPTO requires the tile's last dim to hold k: "
                            "use at least "
                         << k;
  if (tileRow * 4 >= kTopKMaxRowBytes)
    return emitOpError() << "vector tile " << shapeStr(vecTile.getDims())
                         << ": a piece of " << tileRow
                         << " f32 = " << tileRow * 4
                         << " B per row; PyPTO's topk requires under "
                         << kTopKMaxRowBytes << " B (22 KiB): use a last dim "
                         << "below " << kTopKMaxRowBytes / 4;
  return success();
}

/// Both results: the input's valid extents with the last dim `min(valid, k)`
/// (a row shorter than k yields only its valid elements).
FailureOr<SmallVector<Extent>>
TopKOp::inferValidShape(ValidShapeAlgebra &algebra, unsigned) {
  FailureOr<SmallVector<Extent>> valid = algebra.validShapeOf(getInput());
  if (failed(valid))
    return failure();
  valid->back() = algebra.min(valid->back(), algebra.constant(getK()));
  return valid;
}
