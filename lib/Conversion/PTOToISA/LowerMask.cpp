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
  Value bytes = builder.create<arith::CeilDivSIOp>(loc, vc, constIndex(8));
  return {vr, bytes};
}

/// Compared tiles and the condition of a where must not broadcast: the
/// packed instructions take equal valid extents (pto-isa asserts them), and
/// a mask is not expanded.
LogicalResult LeafLowering::expectUnbroadcast(Operation *op, Value operand,
                                              Value shapeOf) {
  if (!isa<pto::TileType>(operand.getType()))
    return success();
  if (heldShape(operand) == heldShape(shapeOf))
    return success();
  return op->emitOpError()
         << "broadcasts a "
         << shapeString(cast<pto::TileType>(operand.getType()))
         << " operand over "
         << shapeString(cast<pto::TileType>(shapeOf.getType()))
         << "; pto-lower-to-isa lowers comparisons on operands of equal shape "
            "(and scalars) and a where whose condition has the result's "
            "shape: expand the operand first (e.g. multiply it by pto.full "
            "of the result shape)";
}

LogicalResult LeafLowering::lowerCompare(CompareOp op) {
  Location loc = op.getLoc();
  Value result = op.getResult();
  if (failed(expectUnbroadcast(op, op.getLhs(), result)) ||
      failed(expectUnbroadcast(op, op.getRhs(), result)))
    return failure();
  FailureOr<Value> lhs = lookup(op, op.getLhs());
  FailureOr<pisa::TileType> type = maskTypeFor(op, result);
  if (failed(lhs) || failed(type))
    return failure();
  auto [vr, vc] = maskValidOf(loc, result);
  Value mask = alloc(loc, *type, vr, vc);
  auto mode = op.getModeAttr();
  if (isa<pto::TileType>(op.getRhs().getType())) {
    FailureOr<Value> rhs = lookup(op, op.getRhs());
    if (failed(rhs))
      return failure();
    builder.create<pisa::TCmpOp>(loc, *lhs, *rhs, mask, mode);
  } else {
    builder.create<pisa::TCmpSOp>(loc, *lhs, op.getRhs(), mask, mode);
  }
  tiles[result] = mask;
  replaced.push_back(op);
  return success();
}

LogicalResult LeafLowering::lowerWhere(WhereOp op) {
  Location loc = op.getLoc();
  Value result = op.getResult();
  if (failed(expectUnbroadcast(op, op.getCondition(), result)))
    return failure();
  FailureOr<Value> mask = lookup(op, op.getCondition());
  FailureOr<pisa::TileType> type = ubTypeFor(op, result);
  FailureOr<pisa::TileType> scratchType =
      makeTileType(op, pisa::MemorySpace::ub, 1, 8, builder.getI32Type(),
                   pisa::TileLayout::nd);
  if (failed(mask) || failed(type) || failed(scratchType))
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
    builder.create<pisa::TExpandSOp>(loc, v, filled);
    return filled;
  };
  FailureOr<Value> onTrue = tileOf(op.getOnTrue());
  if (failed(onTrue))
    return failure();
  Value scratch = alloc(loc, *scratchType, constIndex(1), constIndex(8));
  Value dst = alloc(loc, *type, vr, vc);
  if (!isa<pto::TileType>(op.getOnFalse().getType())) {
    builder.create<pisa::TSelSOp>(loc, *mask, *onTrue, op.getOnFalse(), scratch,
                                  dst);
  } else {
    FailureOr<Value> onFalse = tileOf(op.getOnFalse());
    if (failed(onFalse))
      return failure();
    builder.create<pisa::TSelOp>(loc, *mask, *onTrue, *onFalse, scratch, dst);
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
         << "moves a DT_BOOL (i1) tile between GM and ub; pto-lower-to-isa "
            "keeps masks packed in ub from the pto.compare that makes one to "
            "the pto.where that reads it (pto-expand-tiles fuses the pair "
            "into each piece): a mask stored to GM or read from it is not "
            "lowered yet";
}

} // namespace mlir::pto::lower_to_isa
