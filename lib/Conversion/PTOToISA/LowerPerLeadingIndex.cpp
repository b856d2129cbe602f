//===- LowerPerLeadingIndex.cpp - N-D ops as one instruction per index ----===//
//
// Where an N-D op's rows are not one rectangle of the 2-D form (a reduction
// over a middle dim of [B, S, D], a view x[:, k, :] of [B, S, D]), it is
// lowered as one instruction per index of the leading dims: TEXTRACT the
// rows of that index into a ub tile, compute, TINSERT the result at its rows
// (docs/ISA.md, "One instruction per leading index").
//
//===----------------------------------------------------------------------===//

#include "LeafLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::pto;
using namespace mlir::pto::lower_to_isa;

namespace mlir::pto::lower_to_isa {

/// `extent` rows at leading index `o` when `count` leading indices are
/// valid, none past them: select(o < count, extent, 0), folded when
/// `count` is a constant.
Value LeafLowering::rowsAtIndex(Location loc, int64_t o, OpFoldResult count,
                                Value extent) {
  if (std::optional<int64_t> c = getConstantIntValue(count))
    return o < *c ? extent : constIndex(0);
  Value inside = builder.create<arith::CmpIOp>(
      loc, arith::CmpIPredicate::slt, constIndex(o), materialize(count));
  return builder.create<arith::SelectOp>(loc, inside, extent, constIndex(0));
}

/// Reduces leading dim `dim` of `input` (held with column dim c) when the
/// dims between it and c are unit: for each index o of dims 0..dim-1, the
/// rows [o * in[dim], (o + 1) * in[dim]) are contiguous; TCOLSUM/TCOLMAX of
/// them is row o of the result.
LogicalResult LeafLowering::lowerReducePerLeadingIndex(Operation *op,
                                                       Value input, int64_t dim,
                                                       bool isMax) {
  Location loc = op->getLoc();
  Value result = op->getResult(0);
  ArrayRef<int64_t> in = cast<pto::TileType>(input.getType()).getShape();
  unsigned c = heldColumnDim(input);
  int64_t outer = 1;
  for (int64_t d = 0; d < dim; ++d)
    outer *= in[d];
  FailureOr<Value> src = lookup(op, input);
  FailureOr<pisa::TileType> dstType = ubTypeFor(op, result);
  if (failed(src) || failed(dstType))
    return failure();
  auto srcType = cast<pisa::TileType>(src->getType());
  Type elem = srcType.getElementType();
  FailureOr<pisa::TileType> blockType =
      makeTileType(op, pisa::MemorySpace::ub, in[dim], srcType.getCols(), elem,
                   pisa::TileLayout::nd);
  FailureOr<pisa::TileType> rowType =
      makeTileType(op, pisa::MemorySpace::ub, 1, srcType.getCols(), elem,
                   pisa::TileLayout::nd);
  if (failed(blockType) || failed(rowType))
    return failure();
  // Valid extents: the leading dims before `dim` give the valid indices (the
  // first non-unit one may be partial); `dim` and the unit dims after it are
  // whole (expectCollapsible).
  SmallVector<OpFoldResult> valid = reifier.reify(loc, input);
  OpFoldResult count = builder.getIndexAttr(1);
  for (int64_t d = 0; d < dim; ++d)
    count = mul(loc, count, valid[d]);
  OpFoldResult inner = valid[dim];
  for (unsigned d = dim + 1; d < c; ++d)
    inner = mul(loc, inner, valid[d]);
  Value cols = validOf(loc, input).second;
  auto [vr, vc] = validOf(loc, result);
  Value dst = alloc(loc, *dstType, vr, vc);
  for (int64_t o = 0; o < outer; ++o) {
    Value blockRows = rowsAtIndex(loc, o, count, materialize(inner));
    Value block = alloc(loc, *blockType, blockRows, cols);
    builder.create<pisa::TExtractOp>(loc, *src, block, o * in[dim], 0);
    Value row =
        alloc(loc, *rowType, rowsAtIndex(loc, o, count, constIndex(1)), cols);
    if (isMax)
      builder.create<pisa::TColMaxOp>(loc, block, row);
    else
      builder.create<pisa::TColSumOp>(loc, block, row);
    builder.create<pisa::TInsertOp>(loc, row, dst, o, 0);
  }
  tiles[result] = dst;
  replaced.push_back(op);
  return success();
}

/// The leading dims `operand` of an N-D elementwise op keeps before it
/// broadcasts along all the others up to the column dim ([B, 1, D] over
/// [B, S, D]: 1), or nullopt when it is no such operand (equal shapes, a
/// 2-D [R, 1] / [1, C] broadcast, or another pattern).
std::optional<unsigned> LeafLowering::keptLeadingDims(Value result,
                                                      Value operand) {
  auto resType = cast<pto::TileType>(result.getType());
  auto type = dyn_cast<pto::TileType>(operand.getType());
  if (!type || resType.getRank() <= 2)
    return std::nullopt;
  ArrayRef<int64_t> res = resType.getShape(), shape = type.getShape();
  unsigned c = heldColumnDim(result);
  if (heldColumnDim(operand) != c || shape[c] != res[c])
    return std::nullopt;
  unsigned k = 0;
  while (k < c && shape[k] == res[k])
    ++k;
  bool restUnit = true, broadcasts = false, keepsRows = false;
  for (unsigned d = k; d < c; ++d) {
    restUnit &= shape[d] == 1;
    broadcasts |= res[d] != 1;
  }
  for (unsigned d = 0; d < k; ++d)
    keepsRows |= res[d] != 1;
  if (!restUnit || !broadcasts || !keepsRows)
    return std::nullopt;
  return k;
}

/// `lhs op rhs` where one operand keeps the leading dims 0..kept-1 of the
/// result and broadcasts along the rest: per index o of the kept dims, the
/// full operand's rows [o * inner, (o + 1) * inner) against row o of the
/// broadcast one (TCOLEXPAND to the block), then the plain instruction in
/// the operands' order, TINSERTed at the block's rows.
LogicalResult LeafLowering::lowerBinaryPerLeadingIndex(
    Operation *op, BinKind bin, Value lhs, Value rhs, bool broadcastLhs,
    unsigned kept, PrecisionType precision) {
  Location loc = op->getLoc();
  Value result = op->getResult(0);
  ArrayRef<int64_t> res = cast<pto::TileType>(result.getType()).getShape();
  unsigned c = heldColumnDim(result);
  Value full = broadcastLhs ? rhs : lhs, row = broadcastLhs ? lhs : rhs;
  if (cast<pto::TileType>(full.getType()).getShape() != res)
    return op->emitOpError()
           << "broadcasts both operands over the result; pto-lower-to-isa "
              "lowers a [B, 1, D]-style broadcast against a full operand only";
  int64_t outer = 1, inner = 1;
  for (unsigned d = 0; d < c; ++d)
    (d < kept ? outer : inner) *= res[d];
  FailureOr<Value> fullTile = lookup(op, full), rowTile = lookup(op, row);
  FailureOr<pisa::TileType> dstType = ubTypeFor(op, result);
  if (failed(fullTile) || failed(rowTile) || failed(dstType))
    return failure();
  int64_t cols = dstType->getCols();
  if (cast<pisa::TileType>(fullTile->getType()).getCols() != cols ||
      cast<pisa::TileType>(rowTile->getType()).getCols() != cols)
    return op->emitOpError()
           << "has operands whose ub column capacities differ from the "
              "result's (a cast chain widened one); pto-lower-to-isa's "
              "per-leading-index broadcast needs one capacity";
  Type elem = dstType->getElementType();
  FailureOr<pisa::TileType> blockType = makeTileType(
      op, pisa::MemorySpace::ub, inner, cols, elem, pisa::TileLayout::nd);
  FailureOr<pisa::TileType> rowType = makeTileType(
      op, pisa::MemorySpace::ub, 1, cols, elem, pisa::TileLayout::nd);
  if (failed(blockType) || failed(rowType))
    return failure();
  SmallVector<OpFoldResult> valid = reifier.reify(loc, result);
  OpFoldResult count = builder.getIndexAttr(1),
               innerValid = builder.getIndexAttr(1);
  for (unsigned d = 0; d < c; ++d) {
    OpFoldResult &factor = d < kept ? count : innerValid;
    factor = mul(loc, factor, valid[d]);
  }
  auto [vr, vc] = validOf(loc, result);
  Value dst = alloc(loc, *dstType, vr, vc);
  for (int64_t o = 0; o < outer; ++o) {
    Value rows = rowsAtIndex(loc, o, count, materialize(innerValid));
    Value block = alloc(loc, *blockType, rows, vc);
    builder.create<pisa::TExtractOp>(loc, *fullTile, block, o * inner, 0);
    // The row with the result's valid columns (TCOLEXPAND takes them
    // exactly; the copy narrows a wider row).
    Value one =
        alloc(loc, *rowType, rowsAtIndex(loc, o, count, constIndex(1)), vc);
    builder.create<pisa::TExtractOp>(loc, *rowTile, one, o, 0);
    Value expanded = alloc(loc, *blockType, rows, vc);
    builder.create<pisa::TColExpandOp>(loc, one, expanded);
    Value out = alloc(loc, *blockType, rows, vc);
    createBinary(builder, loc, bin, broadcastLhs ? expanded : block,
                 broadcastLhs ? block : expanded, out, precision);
    builder.create<pisa::TInsertOp>(loc, out, dst, o * inner, 0);
  }
  tiles[result] = dst;
  replaced.push_back(op);
  return success();
}

/// A view of a tile whose rows are `runs` evenly spaced runs of `runRows`
/// rows in the source's 2-D form: run o starts at source row `rowOf(o)`;
/// each is copied (TEXTRACT) and inserted at rows o * runRows of the view.
LogicalResult LeafLowering::lowerTileViewPerRun(
    ViewOp op, int64_t runs, int64_t runRows, OpFoldResult count,
    OpFoldResult runValid, llvm::function_ref<int64_t(int64_t)> rowOf,
    int64_t col, Value rowOffset, Value colOffset) {
  Location loc = op.getLoc();
  Value result = op.getResult();
  FailureOr<Value> src = lookup(op, op.getSource());
  FailureOr<pisa::TileType> dstType = ubTypeFor(op, result);
  if (failed(src) || failed(dstType))
    return failure();
  FailureOr<pisa::TileType> runType =
      makeTileType(op, pisa::MemorySpace::ub, runRows, dstType->getCols(),
                   dstType->getElementType(), pisa::TileLayout::nd);
  if (failed(runType))
    return failure();
  auto [vr, vc] = validOf(loc, result);
  Value dst = alloc(loc, *dstType, vr, vc);
  for (int64_t o = 0; o < runs; ++o) {
    Value run = alloc(loc, *runType,
                      rowsAtIndex(loc, o, count, materialize(runValid)), vc);
    builder.create<pisa::TExtractOp>(loc, *src, run, rowOf(o), col, rowOffset,
                                     colOffset);
    builder.create<pisa::TInsertOp>(loc, run, dst, o * runRows, 0);
  }
  tiles[result] = dst;
  replaced.push_back(op);
  return success();
}

} // namespace mlir::pto::lower_to_isa
