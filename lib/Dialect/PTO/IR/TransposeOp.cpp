//===- TransposeOp.cpp - pto.transpose ------------------------------------===//
//
// Verifiers name the offending value, the rule and the fix.
//
//===----------------------------------------------------------------------===//

#include "VerifierUtils.h"

using namespace mlir;
using namespace mlir::pto;
using mlir::pto::detail::shapeStr;
using mlir::pto::detail::verifyVecTile;

//===----------------------------------------------------------------------===//
// TransposeOp
//===----------------------------------------------------------------------===//

LogicalResult TransposeOp::verify() {
  TileType input = getInput().getType(), result = getResult().getType();
  int64_t rank = input.getRank();
  int64_t dim0 = static_cast<int64_t>(getDim0());
  int64_t dim1 = static_cast<int64_t>(getDim1());
  if (rank < 2)
    return emitOpError() << "transposes a rank-" << rank
                         << " tile; a transpose needs at least 2 dims "
                            "(reshape to [1, N] first)";
  for (int64_t dim : {dim0, dim1})
    if (dim < 0 || dim >= rank)
      return emitOpError() << "dim " << dim << " is out of range for a rank-"
                           << rank << " tile; use dims in [0, " << rank
                           << ") (negative Python dims are normalised by the "
                              "front end)";
  if (dim0 == dim1)
    return emitOpError() << "swaps dim " << dim0
                         << " with itself; give two different dims (an "
                            "identity transpose is not an op)";
  SmallVector<int64_t> expected(input.getShape());
  std::swap(expected[dim0], expected[dim1]);
  if (result.getShape() != ArrayRef<int64_t>(expected) ||
      result.getElementType() != input.getElementType())
    return emitOpError() << "result type " << result << " must have shape "
                         << shapeStr(expected) << " (dims " << dim0 << " and "
                         << dim1 << " of " << shapeStr(input.getShape())
                         << " swapped) and element type "
                         << input.getElementType();
  // TTRANS moves 1-, 2- and 4-byte elements (pto-isa
  // include/pto/npu/a2a3/TTrans.hpp).
  if (input.getElementByteSize() > 4)
    return emitOpError() << "transposes " << input.getElementType()
                         << " elements; the vector unit transposes 1-, 2- and "
                            "4-byte types only: cast to i32 or f32 first";
  return verifyVecTile(*this, getVecTileAttr(), input);
}
