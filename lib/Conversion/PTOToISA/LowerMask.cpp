//===- LowerMask.cpp - DT_BOOL masks to pto_isa ---------------------------===//
//
// pto.compare and pto.where over ub tiles (docs/ISA.md, "DT_BOOL masks"): an
// i1 tile is held as pto-isa's packed bit mask, a row-major ub tile of ui8
// whose row i holds bit j % 8 of byte j / 8 for column j; TCMP/TCMPS write
// it, TSEL/TSELS read it.
//
//===----------------------------------------------------------------------===//

#include "LeafLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::pto;
using namespace mlir::pto::lower_to_isa;

namespace mlir::pto::lower_to_isa {

/// The packed mask of the i1 tile `ptoTile`: its held rows, one bit per held
/// column rounded up to whole 32-byte rows.
FailureOr<pisa::TileType> LeafLowering::maskTypeFor(Operation *op,
                                                    Value ptoTile) {
  auto [rows, cols] = heldShape(ptoTile);
  Type ui8 = IntegerType::get(builder.getContext(), 8, IntegerType::Unsigned);
  return makeTileType(op, pisa::MemorySpace::ub, rows,
                      roundUp((cols + 7) / 8, 32), ui8, pisa::TileLayout::nd);
}

/// Valid extents of the packed mask of `ptoTile`: its valid rows and
/// ceil(validCols / 8) bytes.
std::pair<Value, Value> LeafLowering::maskValidOf(Location loc, Value ptoTile) {
  auto [vr, vc] = validOf(loc, ptoTile);
  if (std::optional<int64_t> c = getConstantIntValue(vc))
    return {vr, constIndex((*c + 7) / 8)};
  // Signed (valid extents are never negative): the form pto-to-cpp prints.
  Value bytes = arith::CeilDivSIOp::create(builder, loc, vc, constIndex(8));
  return {vr, bytes};
}

/// The [1, 8] i32 scratch tile pto-isa's TSEL / TSELS take.
FailureOr<Value> LeafLowering::selectScratch(Operation *op) {
  FailureOr<pisa::TileType> type =
      makeTileType(op, pisa::MemorySpace::ub, 1, 8, builder.getI32Type(),
                   pisa::TileLayout::nd);
  if (failed(type))
    return failure();
  return alloc(op->getLoc(), *type, constIndex(1), constIndex(8));
}

/// 1.0 where `mask` is set, 0.0 elsewhere, in the float tile `type` (valid
/// [vr, vc]): TEXPANDS of 1, then TSELS with 0.
FailureOr<Value> LeafLowering::numbersFromMask(Operation *op, Value mask,
                                               pisa::TileType type, Value vr,
                                               Value vc) {
  Location loc = op->getLoc();
  Type elem = type.getElementType();
  Value one =
      arith::ConstantOp::create(builder, loc, builder.getFloatAttr(elem, 1.0));
  Value zero =
      arith::ConstantOp::create(builder, loc, builder.getFloatAttr(elem, 0.0));
  Value ones = alloc(loc, type, vr, vc);
  pisa::TExpandSOp::create(builder, loc, one, ones);
  FailureOr<Value> scratch = selectScratch(op);
  if (failed(scratch))
    return failure();
  Value numbers = alloc(loc, type, vr, vc);
  pisa::TSelSOp::create(builder, loc, mask, ones, zero, *scratch, numbers);
  return numbers;
}

LogicalResult LeafLowering::lowerCompare(CompareOp op) {
  Location loc = op.getLoc();
  Value result = op.getResult();
  FailureOr<Value> lhs = lookup(op, op.getLhs());
  FailureOr<pisa::TileType> type = maskTypeFor(op, result);
  if (failed(lhs) || failed(type))
    return failure();
  Value rhs;
  if (isa<pto::TileType>(op.getRhs().getType())) {
    FailureOr<Value> held = lookup(op, op.getRhs());
    if (failed(held))
      return failure();
    rhs = *held;
  }
  // A broadcast operand ([R, 1], [1, C], or a lower-rank one the front end
  // lifted) is expanded to the result's shape first, as for the binary ops:
  // TCMP takes two sources of one type and equal valid extents, so it takes
  // the other operand's tile type when that one is not broadcast.
  std::pair<int64_t, int64_t> shape = heldShape(result);
  auto expand = [&](Value operand, Value held, Value other,
                    Value otherHeld) -> FailureOr<Value> {
    if (heldShape(operand) == shape)
      return atResultValid(op, operand, held);
    if (other && heldShape(other) == shape)
      return expandToResult(op, operand, held,
                            cast<pisa::TileType>(otherHeld.getType()));
    Type elem = cast<pto::TileType>(operand.getType()).getElementType();
    FailureOr<pisa::TileType> expanded = makeTileType(
        op, pisa::MemorySpace::ub, shape.first,
        roundUp(shape.second, blockElems(elem)), elem, pisa::TileLayout::nd);
    if (failed(expanded))
      return failure();
    return expandToResult(op, operand, held, *expanded);
  };
  Value rhsOperand = rhs ? op.getRhs() : Value();
  FailureOr<Value> a = expand(op.getLhs(), *lhs, rhsOperand, rhs);
  if (failed(a))
    return failure();
  auto [vr, vc] = maskValidOf(loc, result);
  Value mask = alloc(loc, *type, vr, vc);
  auto mode = op.getModeAttr();
  if (rhs) {
    FailureOr<Value> b = expand(op.getRhs(), rhs, op.getLhs(), *a);
    if (failed(b))
      return failure();
    pisa::TCmpOp::create(builder, loc, *a, *b, mask, mode);
  } else {
    pisa::TCmpSOp::create(builder, loc, *a, op.getRhs(), mask, mode);
  }
  tiles[result] = mask;
  replaced.push_back(op);
  return success();
}

/// The packed mask of a broadcast condition ([R, 1] or [1, C]) expanded to
/// the where's shape. Bits cannot be expanded in place, so the condition
/// goes through numbers: 1.0 / 0.0 selected by its mask (TSELS), expanded
/// like a broadcast value (TROWEXPAND / TCOLEXPAND), compared with 0
/// again (TCMPS ne) into a mask of the result's shape.
FailureOr<Value> LeafLowering::expandMask(WhereOp op, Value mask) {
  Location loc = op.getLoc();
  Value condition = op.getCondition(), result = op.getResult();
  Type f32 = builder.getF32Type();
  auto [r, c] = heldShape(condition);
  auto [rows, cols] = heldShape(result);
  FailureOr<pisa::TileType> numType =
      makeTileType(op, pisa::MemorySpace::ub, r, roundUp(c, blockElems(f32)),
                   f32, pisa::TileLayout::nd);
  FailureOr<pisa::TileType> wideType =
      makeTileType(op, pisa::MemorySpace::ub, rows,
                   roundUp(cols, blockElems(f32)), f32, pisa::TileLayout::nd);
  FailureOr<pisa::TileType> fullType = maskTypeFor(op, result);
  if (failed(numType) || failed(wideType) || failed(fullType))
    return failure();
  auto [vr, vc] = validOf(loc, condition);
  FailureOr<Value> numbers = numbersFromMask(op, mask, *numType, vr, vc);
  if (failed(numbers))
    return failure();
  FailureOr<Value> wide = expandToResult(op, condition, *numbers, *wideType);
  if (failed(wide))
    return failure();
  Value zero =
      arith::ConstantOp::create(builder, loc, builder.getF32FloatAttr(0));
  auto [mr, mc] = maskValidOf(loc, result);
  Value full = alloc(loc, *fullType, mr, mc);
  pisa::TCmpSOp::create(
      builder, loc, *wide, zero, full,
      pto::CmpModeAttr::get(builder.getContext(), pto::CmpMode::NE));
  return full;
}

LogicalResult LeafLowering::lowerWhere(WhereOp op) {
  Location loc = op.getLoc();
  Value result = op.getResult();
  FailureOr<Value> mask = lookup(op, op.getCondition());
  if (succeeded(mask) && heldShape(op.getCondition()) != heldShape(result))
    mask = expandMask(op, *mask);
  FailureOr<pisa::TileType> type = ubTypeFor(op, result);
  if (failed(mask) || failed(type))
    return failure();
  std::pair<Value, Value> valid = validOf(loc, result);
  Value vr = valid.first, vc = valid.second;
  // A broadcast value ([R, 1], [1, C]) is expanded to the result's shape
  // first (trowexpand / tcolexpand, as for the binary ops); a scalar becomes
  // a tile (TEXPANDS) unless it is the on_false value, which TSELS takes as
  // it is.
  auto tileOf = [&](Value v) -> FailureOr<Value> {
    if (isa<pto::TileType>(v.getType())) {
      FailureOr<Value> held = lookup(op, v);
      if (failed(held))
        return failure();
      return expandToResult(op, v, *held);
    }
    Value filled = alloc(loc, *type, vr, vc);
    pisa::TExpandSOp::create(builder, loc, v, filled);
    return filled;
  };
  FailureOr<Value> onTrue = tileOf(op.getOnTrue());
  if (failed(onTrue))
    return failure();
  FailureOr<Value> scratch = selectScratch(op);
  if (failed(scratch))
    return failure();
  Value dst = alloc(loc, *type, vr, vc);
  if (!isa<pto::TileType>(op.getOnFalse().getType())) {
    pisa::TSelSOp::create(builder, loc, *mask, *onTrue, op.getOnFalse(),
                          *scratch, dst);
  } else {
    FailureOr<Value> onFalse = tileOf(op.getOnFalse());
    if (failed(onFalse))
      return failure();
    pisa::TSelOp::create(builder, loc, *mask, *onTrue, *onFalse, *scratch, dst);
  }
  tiles[result] = dst;
  replaced.push_back(op);
  return success();
}

LogicalResult LeafLowering::expectNoMaskInGM(Operation *op) {
  auto isMask = [](Type t) {
    auto tile = dyn_cast<pto::TileType>(t);
    return tile && tile.getElementType().isSignlessInteger(1);
  };
  if (llvm::none_of(op->getOperandTypes(), isMask) &&
      llvm::none_of(op->getResultTypes(), isMask))
    return success();
  return op->emitOpError()
         << "adds a DT_BOOL (i1) tile into GM atomically; PyPTO's atomic add "
            "takes numbers, and pto-isa has no atomic add of bytes: store the "
            "mask with pto.assemble, or add a number (pto.where of 1.0 / 0.0)";
}

//===----------------------------------------------------------------------===//
// DT_BOOL in GM: one byte per element
//===----------------------------------------------------------------------===//

/// A row-major ub tile of the held shape of the i1 tile `ptoTile` in
/// `elem` (ui8 for the bytes, f16 for their numbers), whole 32-element
/// rows so TCVT sees equal capacities.
FailureOr<pisa::TileType>
LeafLowering::maskBytesTypeFor(Operation *op, Value ptoTile, Type elem) {
  auto [rows, cols] = heldShape(ptoTile);
  return makeTileType(op, pisa::MemorySpace::ub, rows, roundUp(cols, 32), elem,
                      pisa::TileLayout::nd);
}

/// The packed mask of DT_BOOL bytes loaded from GM (0 or 1 each, PyPTO's
/// layout): TCVT ui8 -> f16, then TCMPS ne 0 (pto-isa's A2/A3 compares take
/// f16, f32 or i32, and TCVT widens uint8 to half).
FailureOr<Value> LeafLowering::maskFromBytes(Operation *op, Value ptoTile,
                                             Value bytes) {
  Location loc = op->getLoc();
  FailureOr<pisa::TileType> halfType =
      maskBytesTypeFor(op, ptoTile, builder.getF16Type());
  FailureOr<pisa::TileType> type = maskTypeFor(op, ptoTile);
  if (failed(halfType) || failed(type))
    return failure();
  auto [vr, vc] = validOf(loc, ptoTile);
  Value numbers = alloc(loc, *halfType, vr, vc);
  MLIRContext *ctx = builder.getContext();
  pisa::TCvtOp::create(builder, loc, bytes, numbers,
                       CastModeAttr::get(ctx, CastMode::NONE),
                       SaturationModeAttr::get(ctx, SaturationMode::OFF));
  auto [mr, mc] = maskValidOf(loc, ptoTile);
  Value mask = alloc(loc, *type, mr, mc);
  Value zero =
      arith::ConstantOp::create(builder, loc, builder.getF16FloatAttr(0));
  pisa::TCmpSOp::create(builder, loc, numbers, zero, mask,
                        CmpModeAttr::get(ctx, CmpMode::NE));
  return mask;
}

/// DT_BOOL bytes (1 / 0) of the packed mask of `ptoTile`, to store to GM:
/// TSELS of 1.0 / 0.0 (f16) by the mask, then TCVT f16 -> ui8.
FailureOr<Value> LeafLowering::bytesFromMask(Operation *op, Value ptoTile,
                                             Value mask) {
  Location loc = op->getLoc();
  Type f16 = builder.getF16Type();
  FailureOr<pisa::TileType> halfType = maskBytesTypeFor(op, ptoTile, f16);
  FailureOr<pisa::TileType> byteType = maskBytesTypeFor(
      op, ptoTile,
      IntegerType::get(builder.getContext(), 8, IntegerType::Unsigned));
  if (failed(halfType) || failed(byteType))
    return failure();
  auto [vr, vc] = validOf(loc, ptoTile);
  FailureOr<Value> numbers = numbersFromMask(op, mask, *halfType, vr, vc);
  if (failed(numbers))
    return failure();
  Value bytes = alloc(loc, *byteType, vr, vc);
  MLIRContext *ctx = builder.getContext();
  pisa::TCvtOp::create(builder, loc, *numbers, bytes,
                       CastModeAttr::get(ctx, CastMode::NONE),
                       SaturationModeAttr::get(ctx, SaturationMode::OFF));
  return bytes;
}

} // namespace mlir::pto::lower_to_isa
