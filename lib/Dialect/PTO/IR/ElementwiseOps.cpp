//===- ElementwiseOps.cpp - pto elementwise operations --------------------===//
//
// Binary and unary elementwise ops: operand and result types, broadcast,
// the arithmetic dtypes of the vector unit. Verifiers name the offending value,
// the rule and the fix.
//
//===----------------------------------------------------------------------===//

#include "VerifierUtils.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::pto;
using mlir::pto::detail::archName;
using mlir::pto::detail::isSignlessInt;
using mlir::pto::detail::shapeStr;
using mlir::pto::detail::verifyVecTile;

static std::string typeStr(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << type;
  return s;
}

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

/// Elementwise arithmetic dtypes (docs/PyPTOModel.md#elementwise-ops: the A2/A3
/// vector ALU has no bf16 arithmetic; SK-16 casts to f32 explicitly).
static LogicalResult verifyArithmeticDType(Operation *op, Type elementType,
                                           bool floatOnly) {
  // bf16 without bf16 vector arithmetic is computed in f32 by pto-legalize
  // (PyPTO's AutoCast does the same): the same types on every architecture,
  // named in the message only.
  bool ok =
      elementType.isF16() || elementType.isF32() || elementType.isBF16() ||
      (!floatOnly &&
       (isSignlessInt(elementType, 16) || isSignlessInt(elementType, 32)));
  if (ok)
    return success();
  return op->emitOpError() << "computes on " << elementType << ", which the "
                           << archName(getArchFor(op))
                           << " vector unit does not support; use "
                           << (floatOnly ? "f16, bf16 or f32"
                                         : "f16, bf16, f32, i16 or i32");
}

/// HIGH_PRECISION where the architecture has none (DAV_2201) is legal
/// input: pto-legalize makes it INTRINSIC, PyPTO's A2/A3 div having a single
/// precision (docs/Legalization.md).
static LogicalResult verifyPrecision(Operation *, PrecisionType) {
  return success();
}

static LogicalResult verifyBinary(Operation *op, Value lhsValue, Value rhsValue,
                                  Value resultValue, VecTileAttr vecTile,
                                  bool isDiv) {
  auto lhs = cast<TileType>(lhsValue.getType());
  auto result = cast<TileType>(resultValue.getType());
  Type elementType = lhs.getElementType();
  SmallVector<int64_t> expected(lhs.getShape());
  if (auto rhs = dyn_cast<TileType>(rhsValue.getType())) {
    if (rhs.getElementType() != elementType)
      return op->emitOpError()
             << "mixes " << elementType << " and " << rhs.getElementType()
             << " operands; cast one so both match";
    if (rhs.getRank() != lhs.getRank())
      return op->emitOpError() << "operands have ranks " << lhs.getRank()
                               << " and " << rhs.getRank()
                               << "; broadcast operands keep the rank with "
                                  "size-1 dims (e.g. [M, 1])";
    for (int64_t d = 0; d < lhs.getRank(); ++d) {
      int64_t a = lhs.getDimSize(d), b = rhs.getDimSize(d);
      if (a != b && a != 1 && b != 1)
        return op->emitOpError()
               << "cannot broadcast " << shapeStr(lhs.getShape()) << " with "
               << shapeStr(rhs.getShape()) << ": dim " << d << " is " << a
               << " vs " << b << "; sizes must match or one must be 1";
      expected[d] = std::max(a, b);
    }
  } else if (rhsValue.getType() != elementType) {
    return op->emitOpError() << "scalar operand has type " << rhsValue.getType()
                             << " but the tile holds " << elementType
                             << "; the scalar must have the element type";
  }
  bool intDiv = isDiv && isa<IntegerType>(elementType);
  Type expectedElement =
      intDiv ? Float32Type::get(op->getContext()) : elementType;
  if (result.getShape() != ArrayRef<int64_t>(expected) ||
      result.getElementType() != expectedElement)
    return op->emitOpError()
           << "result type " << result << " must be !pto.tile<"
           << llvm::join(
                  llvm::map_range(expected,
                                  [](int64_t d) { return std::to_string(d); }),
                  "x")
           << 'x' << typeStr(expectedElement) << '>';
  if (failed(verifyArithmeticDType(op, elementType, /*floatOnly=*/false)))
    return failure();
  return verifyVecTile(op, vecTile, result);
}

#define PTO_DEFINE_BINARY_VERIFIER(OP, IS_DIV)                                 \
  LogicalResult OP::verify() {                                                 \
    return verifyBinary(*this, getLhs(), getRhs(), getResult(),                \
                        getVecTileAttr(), IS_DIV);                             \
  }
PTO_DEFINE_BINARY_VERIFIER(AddOp, false)
PTO_DEFINE_BINARY_VERIFIER(SubOp, false)
PTO_DEFINE_BINARY_VERIFIER(MulOp, false)
PTO_DEFINE_BINARY_VERIFIER(MaxOp, false)
PTO_DEFINE_BINARY_VERIFIER(MinOp, false)
#undef PTO_DEFINE_BINARY_VERIFIER

LogicalResult DivOp::verify() {
  if (failed(verifyBinary(*this, getLhs(), getRhs(), getResult(),
                          getVecTileAttr(), /*isDiv=*/true)))
    return failure();
  return verifyPrecision(*this, getPrecision());
}

static LogicalResult verifyUnary(Operation *op, TileType input, TileType result,
                                 VecTileAttr vecTile, bool floatOnly) {
  if (input != result)
    return op->emitOpError() << "result type " << result
                             << " must equal the operand type " << input;
  if (failed(verifyArithmeticDType(op, input.getElementType(), floatOnly)))
    return failure();
  return verifyVecTile(op, vecTile, result);
}

LogicalResult ExpOp::verify() {
  if (failed(verifyUnary(*this, getInput().getType(), getResult().getType(),
                         getVecTileAttr(), /*floatOnly=*/true)))
    return failure();
  return verifyPrecision(*this, getPrecision());
}

LogicalResult LogOp::verify() {
  if (failed(verifyUnary(*this, getInput().getType(), getResult().getType(),
                         getVecTileAttr(), /*floatOnly=*/true)))
    return failure();
  return verifyPrecision(*this, getPrecision());
}

#define PTO_DEFINE_UNARY_VERIFIER(OP, FLOAT_ONLY)                              \
  LogicalResult OP::verify() {                                                 \
    return verifyUnary(*this, getInput().getType(), getResult().getType(),     \
                       getVecTileAttr(), FLOAT_ONLY);                          \
  }
PTO_DEFINE_UNARY_VERIFIER(NegOp, false)
PTO_DEFINE_UNARY_VERIFIER(AbsOp, false)
PTO_DEFINE_UNARY_VERIFIER(SqrtOp, true)
PTO_DEFINE_UNARY_VERIFIER(RsqrtOp, true)
PTO_DEFINE_UNARY_VERIFIER(ReciprocalOp, true)
PTO_DEFINE_UNARY_VERIFIER(TanhOp, true)
#undef PTO_DEFINE_UNARY_VERIFIER
