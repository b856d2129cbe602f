//===- GatherOps.cpp - pto gather-family operations
//------------------------===//
//
// Ops that select elements of a tile by a fixed pattern (PyPTO's
// gathermask). Verifiers name the offending value, the rule and the fix.
//
//===----------------------------------------------------------------------===//

#include "VerifierUtils.h"

using namespace mlir;
using namespace mlir::pto;
using mlir::pto::detail::shapeStr;

//===----------------------------------------------------------------------===//
// GatherMaskOp
//===----------------------------------------------------------------------===//

LogicalResult GatherMaskOp::verify() {
  TileType input = getInput().getType(), result = getResult().getType();
  int64_t mode = getPatternMode();
  if (mode < 1 || mode > 7)
    return emitOpError() << "pattern_mode " << mode
                         << " is not a PyPTO mask pattern; use 1 (elements "
                            "0::2), 2 (1::2), 3 to 6 (0::4 .. 3::4) or 7 (all)";
  int64_t stride = getStride();
  int64_t last = input.getShape().back();
  if (last % stride != 0)
    return emitOpError() << "pattern_mode " << mode << " keeps one of every "
                         << stride << " elements of the last dim, but the "
                         << "input's last dim is " << last
                         << "; PyPTO requires it to be a multiple of "
                         << stride;
  SmallVector<int64_t> expected(input.getShape());
  expected.back() = last / stride;
  if (result.getShape() != ArrayRef<int64_t>(expected) ||
      result.getElementType() != input.getElementType())
    return emitOpError() << "result type " << result << " must have shape "
                         << shapeStr(expected) << " (the last dim of "
                         << shapeStr(input.getShape()) << " divided by "
                         << stride << ") and element type "
                         << input.getElementType();
  // pto-isa's mask-pattern TGATHER (vreducev2 on A2/A3) moves 16- and
  // 32-bit elements (include/pto/npu/a2a3/TGather.hpp).
  int64_t bytes = input.getElementByteSize();
  if (bytes != 2 && bytes != 4)
    return emitOpError() << "gathers " << input.getElementType()
                         << " elements; the vector unit's mask gather moves "
                            "2- and 4-byte types only: cast to f16, f32 or "
                            "i32 first";
  // The vector tile governs the input. A split of the last dim is a whole
  // number of 32-byte blocks (8 or 16 elements), so no piece cuts through a
  // group of 2 or 4.
  return detail::verifyVecTile(*this, getVecTileAttr(), input);
}
