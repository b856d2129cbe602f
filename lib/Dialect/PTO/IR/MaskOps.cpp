//===- MaskOps.cpp - pto comparisons and select ---------------------------===//
//
// PyPTO's DT_BOOL masks (`i1` tiles): pto.compare makes one, pto.where
// consumes one. Verifiers name the offending value, the rule and the fix.
//
//===----------------------------------------------------------------------===//

#include "VerifierUtils.h"

using namespace mlir;
using namespace mlir::pto;
using mlir::pto::detail::shapeStr;

static bool isSignlessInt(Type type, unsigned width) {
  return type.isSignlessInteger(width);
}

/// Folds `operand`'s shape into the broadcast shape `shape` (equal sizes or
/// 1, as the binary ops). Scalars broadcast everywhere.
static LogicalResult broadcastInto(Operation *op, StringRef name, Value operand,
                                   SmallVectorImpl<int64_t> &shape,
                                   StringRef firstName) {
  auto tile = dyn_cast<TileType>(operand.getType());
  if (!tile)
    return success();
  if (tile.getRank() != static_cast<int64_t>(shape.size()))
    return op->emitOpError()
           << name << " has rank " << tile.getRank() << " but " << firstName
           << " has rank " << shape.size()
           << "; broadcast operands keep the rank with size-1 dims (e.g. "
              "[M, 1])";
  for (int64_t d = 0; d < tile.getRank(); ++d) {
    int64_t a = shape[d], b = tile.getDimSize(d);
    if (a != b && a != 1 && b != 1)
      return op->emitOpError()
             << "cannot broadcast " << name << " " << shapeStr(tile.getShape())
             << " with " << shapeStr(shape) << ": dim " << d << " is " << b
             << " vs " << a << "; sizes must match or one must be 1";
    shape[d] = std::max(a, b);
  }
  return success();
}

static std::string tileStr(ArrayRef<int64_t> shape, Type element) {
  std::string s = "!pto.tile<";
  for (int64_t d : shape)
    s += std::to_string(d) + "x";
  llvm::raw_string_ostream os(s);
  os << element << ">";
  return s;
}

//===----------------------------------------------------------------------===//
// CompareOp
//===----------------------------------------------------------------------===//

LogicalResult CompareOp::verify() {
  TileType lhs = getLhs().getType();
  Type element = lhs.getElementType();
  // pto-isa's TCMP/TCMPS into a packed mask compare f16, f32 and i32
  // (include/pto/cpu/TCmp.h); bf16 is widened to f32 by pto-legalize on
  // DAV_2201 as for the arithmetic ops.
  if (!element.isF16() && !element.isBF16() && !element.isF32() &&
      !isSignlessInt(element, 32))
    return emitOpError() << "compares " << element
                         << " elements; comparisons take f16, bf16, f32 or "
                            "i32 operands: cast to one of them first";
  SmallVector<int64_t> shape(lhs.getShape());
  if (auto rhs = dyn_cast<TileType>(getRhs().getType())) {
    if (rhs.getElementType() != element)
      return emitOpError() << "compares " << element << " with "
                           << rhs.getElementType()
                           << "; cast one so both operands match";
    if (failed(broadcastInto(*this, "rhs", getRhs(), shape, "lhs")))
      return failure();
  } else if (getRhs().getType() != element) {
    return emitOpError() << "scalar operand has type " << getRhs().getType()
                         << " but the tile holds " << element
                         << "; the scalar must have the element type";
  }
  TileType result = getResult().getType();
  Type i1 = IntegerType::get(getContext(), 1);
  if (result.getShape() != ArrayRef<int64_t>(shape) ||
      result.getElementType() != i1)
    return emitOpError() << "result type " << result << " must be "
                         << tileStr(shape, i1)
                         << " (a DT_BOOL mask of the broadcast shape)";
  // The vector tile splits the compared values (as pto-legalize pads it).
  return detail::verifyVecTile(
      *this, getVecTileAttr(),
      TileType::get(getContext(), result.getShape(), element));
}

//===----------------------------------------------------------------------===//
// WhereOp
//===----------------------------------------------------------------------===//

LogicalResult WhereOp::verify() {
  TileType condition = getCondition().getType();
  if (!condition.getElementType().isSignlessInteger(1))
    return emitOpError() << "condition has element type "
                         << condition.getElementType()
                         << "; it must be an i1 (DT_BOOL) mask, e.g. the "
                            "result of pto.compare";
  auto elementOf = [](Value v) {
    if (auto tile = dyn_cast<TileType>(v.getType()))
      return tile.getElementType();
    return v.getType();
  };
  Type element = elementOf(getOnTrue());
  if (elementOf(getOnFalse()) != element)
    return emitOpError() << "selects between " << element << " and "
                         << elementOf(getOnFalse())
                         << "; both values must have one element type";
  if (!element.isF16() && !element.isBF16() && !element.isF32() &&
      !isSignlessInt(element, 16) && !isSignlessInt(element, 32))
    return emitOpError() << "selects " << element
                         << " values; pto-isa's TSEL moves f16, bf16, f32, "
                            "i16 or i32 elements: cast first";
  SmallVector<int64_t> shape(condition.getShape());
  if (failed(
          broadcastInto(*this, "on_true", getOnTrue(), shape, "condition")) ||
      failed(
          broadcastInto(*this, "on_false", getOnFalse(), shape, "condition")))
    return failure();
  TileType result = getResult().getType();
  if (result.getShape() != ArrayRef<int64_t>(shape) ||
      result.getElementType() != element)
    return emitOpError() << "result type " << result << " must be "
                         << tileStr(shape, element)
                         << " (the broadcast shape of the operands)";
  return detail::verifyVecTile(*this, getVecTileAttr(), result);
}
