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
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include <cmath>

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
  Value inside = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::slt,
                                       constIndex(o), materialize(count));
  return arith::SelectOp::create(builder, loc, inside, extent, constIndex(0));
}

/// What both reductions over leading dim `dim` of `input` start from: its
/// shape and column dim, the number of indices of the dims before `dim`, the
/// lowered source tile and the ub type of the result.
FailureOr<LeafLowering::LeadingReduction>
LeafLowering::leadingReduction(Operation *op, Value input, int64_t dim) {
  LeadingReduction r;
  r.shape = cast<pto::TileType>(input.getType()).getShape();
  r.columnDim = heldColumnDim(input);
  r.outer = 1;
  for (int64_t d = 0; d < dim; ++d)
    r.outer *= r.shape[d];
  FailureOr<Value> src = lookup(op, input);
  FailureOr<pisa::TileType> dstType = ubTypeFor(op, op->getResult(0));
  if (failed(src) || failed(dstType))
    return failure();
  r.src = *src;
  r.srcType = cast<pisa::TileType>(src->getType());
  r.dstType = *dstType;
  return r;
}

/// The product of the valid extents of dims [from, to).
OpFoldResult LeafLowering::validProduct(Location loc,
                                        ArrayRef<OpFoldResult> valid,
                                        unsigned from, unsigned to) {
  OpFoldResult product = builder.getIndexAttr(1);
  for (unsigned d = from; d < to; ++d)
    product = mul(loc, product, valid[d]);
  return product;
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
  FailureOr<LeadingReduction> setup = leadingReduction(op, input, dim);
  if (failed(setup))
    return failure();
  const LeadingReduction &r = *setup;
  Type elem = r.srcType.getElementType();
  FailureOr<pisa::TileType> blockType =
      makeTileType(op, pisa::MemorySpace::ub, r.shape[dim], r.srcType.getCols(),
                   elem, pisa::TileLayout::nd);
  FailureOr<pisa::TileType> rowType =
      makeTileType(op, pisa::MemorySpace::ub, 1, r.srcType.getCols(), elem,
                   pisa::TileLayout::nd);
  if (failed(blockType) || failed(rowType))
    return failure();
  // Valid extents: the leading dims before `dim` give the valid indices (the
  // first non-unit one may be partial); `dim` and the unit dims after it are
  // whole (expectCollapsible).
  SmallVector<OpFoldResult> valid = reifier.reify(loc, input);
  OpFoldResult count = validProduct(loc, valid, 0, dim);
  OpFoldResult inner =
      mul(loc, valid[dim], validProduct(loc, valid, dim + 1, r.columnDim));
  Value cols = validOf(loc, input).second;
  auto [vr, vc] = validOf(loc, result);
  Value dst = alloc(loc, r.dstType, vr, vc);
  for (int64_t o = 0; o < r.outer; ++o) {
    Value blockRows = rowsAtIndex(loc, o, count, materialize(inner));
    Value block = alloc(loc, *blockType, blockRows, cols);
    pisa::TExtractOp::create(builder, loc, r.src, block, o * r.shape[dim], 0);
    Value row =
        alloc(loc, *rowType, rowsAtIndex(loc, o, count, constIndex(1)), cols);
    if (isMax)
      pisa::TColMaxOp::create(builder, loc, block, row);
    else
      pisa::TColSumOp::create(builder, loc, block, row);
    pisa::TInsertOp::create(builder, loc, row, dst, o, 0);
  }
  tiles[result] = dst;
  replaced.push_back(op);
  return success();
}

/// Reduces leading dim `dim` of `input` when non-unit row dims follow it
/// (`[A, B, D]` over A): per index o of the dims before `dim`, the result's
/// rows are the elementwise sum (max) of the `in[dim]` blocks of `inner`
/// rows, block a at rows (o * in[dim] + a) * inner. Each block is copied out
/// (TEXTRACT) and added into an accumulator in place (TADD/TMAX); the
/// accumulator is inserted at rows o * inner of the result (TINSERT), or is
/// the result when there is one o. A run-time valid extent of `dim` starts
/// the accumulator at the identity (TEXPANDS 0 / -inf, pto-run's value of an
/// empty reduction) and adds each block under an scf.if.
LogicalResult LeafLowering::lowerReduceOverBlocks(Operation *op, Value input,
                                                  int64_t dim, bool isMax) {
  Location loc = op->getLoc();
  Value result = op->getResult(0);
  FailureOr<LeadingReduction> setup = leadingReduction(op, input, dim);
  if (failed(setup))
    return failure();
  const LeadingReduction &r = *setup;
  int64_t inner = 1;
  for (unsigned d = dim + 1; d < r.columnDim; ++d)
    inner *= r.shape[d];
  Type elem = r.srcType.getElementType();
  FailureOr<pisa::TileType> blockType =
      r.outer == 1
          ? FailureOr<pisa::TileType>(r.dstType)
          : makeTileType(op, pisa::MemorySpace::ub, inner, r.srcType.getCols(),
                         elem, pisa::TileLayout::nd);
  if (failed(blockType))
    return failure();
  // Valid extents: only the first non-unit row dim may be partial
  // (expectCollapsible): a leading one gives the valid indices o, `dim` the
  // valid blocks; the dims after `dim` are whole.
  SmallVector<OpFoldResult> valid = reifier.reify(loc, input);
  OpFoldResult count = validProduct(loc, valid, 0, dim);
  OpFoldResult innerValid = validProduct(loc, valid, dim + 1, r.columnDim);
  std::optional<int64_t> staticBlocks = getConstantIntValue(valid[dim]);
  Value cols = validOf(loc, input).second;
  auto [vr, vc] = validOf(loc, result);
  Value dst = r.outer == 1 ? Value() : alloc(loc, r.dstType, vr, vc);
  auto accumulate = [&](Value acc, Value block) {
    if (isMax)
      pisa::TMaxOp::create(builder, loc, acc, block, acc);
    else
      pisa::TAddOp::create(builder, loc, acc, block, acc);
  };
  for (int64_t o = 0; o < r.outer; ++o) {
    Value rows =
        r.outer == 1 ? vr : rowsAtIndex(loc, o, count, materialize(innerValid));
    Value acc = alloc(loc, *blockType, rows, cols);
    auto blockRow = [&](int64_t a) { return (o * r.shape[dim] + a) * inner; };
    int64_t first = 0;
    if (staticBlocks && *staticBlocks > 0) {
      pisa::TExtractOp::create(builder, loc, r.src, acc, blockRow(0), 0);
      first = 1;
    } else {
      TypedAttr identity;
      if (auto ft = dyn_cast<FloatType>(elem))
        identity = builder.getFloatAttr(ft, isMax ? -INFINITY : 0.0);
      else
        identity = builder.getIntegerAttr(
            elem, isMax ? APInt::getSignedMinValue(elem.getIntOrFloatBitWidth())
                        : APInt::getZero(elem.getIntOrFloatBitWidth()));
      pisa::TExpandSOp::create(
          builder, loc, arith::ConstantOp::create(builder, loc, identity), acc);
    }
    int64_t last = staticBlocks ? *staticBlocks : r.shape[dim];
    for (int64_t a = first; a < last; ++a) {
      OpBuilder::InsertionGuard guard(builder);
      if (!staticBlocks) {
        Value inside =
            arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::slt,
                                  constIndex(a), materialize(valid[dim]));
        auto guardIf = scf::IfOp::create(builder, loc, inside,
                                         /*withElseRegion=*/false);
        builder.setInsertionPoint(guardIf.thenBlock()->getTerminator());
      }
      Value block = alloc(loc, *blockType, rows, cols);
      pisa::TExtractOp::create(builder, loc, r.src, block, blockRow(a), 0);
      accumulate(acc, block);
    }
    if (r.outer == 1)
      dst = acc;
    else
      pisa::TInsertOp::create(builder, loc, acc, dst, o * inner, 0);
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
    pisa::TExtractOp::create(builder, loc, *fullTile, block, o * inner, 0);
    // The row with the result's valid columns (TCOLEXPAND takes them
    // exactly; the copy narrows a wider row).
    Value one =
        alloc(loc, *rowType, rowsAtIndex(loc, o, count, constIndex(1)), vc);
    pisa::TExtractOp::create(builder, loc, *rowTile, one, o, 0);
    Value expanded = alloc(loc, *blockType, rows, vc);
    pisa::TColExpandOp::create(builder, loc, one, expanded);
    Value out = alloc(loc, *blockType, rows, vc);
    createBinary(builder, loc, bin, broadcastLhs ? expanded : block,
                 broadcastLhs ? block : expanded, out, precision);
    pisa::TInsertOp::create(builder, loc, out, dst, o * inner, 0);
  }
  tiles[result] = dst;
  replaced.push_back(op);
  return success();
}

/// The dims [k, m) along which `operand` of an N-D elementwise op broadcasts
/// when it keeps the dims before k and some non-unit row dim after m
/// (`[1, B, D]` over `[A, B, D]`: {0, 1}; `[P, 1, B, D]` over `[P, A, B, D]`:
/// {1, 2}), so that in the 2-D forms its rows repeat as blocks; nullopt for
/// any other operand.
std::optional<std::pair<unsigned, unsigned>>
LeafLowering::repeatedBlockDims(Value result, Value operand) {
  auto resType = cast<pto::TileType>(result.getType());
  auto type = dyn_cast<pto::TileType>(operand.getType());
  if (!type || resType.getRank() <= 2)
    return std::nullopt;
  ArrayRef<int64_t> res = resType.getShape(), shape = type.getShape();
  unsigned c = heldColumnDim(result);
  if (heldColumnDim(operand) != c)
    return std::nullopt;
  for (unsigned d = c; d < res.size(); ++d)
    if (shape[d] != res[d])
      return std::nullopt;
  std::optional<unsigned> k;
  unsigned m = 0;
  for (unsigned d = 0; d < c; ++d) {
    if (shape[d] == res[d])
      continue;
    if (shape[d] != 1)
      return std::nullopt;
    k = k.value_or(d);
    m = d + 1;
  }
  if (!k)
    return std::nullopt;
  bool keepsRowsAfter = false;
  for (unsigned d = *k; d < c; ++d) {
    if (d < m && shape[d] != 1)
      return std::nullopt;
    keepsRowsAfter |= d >= m && res[d] != 1;
  }
  if (!keepsRowsAfter)
    return std::nullopt;
  return std::make_pair(*k, m);
}

/// `lhs op rhs` where one operand broadcasts along the dims [k, m) and keeps
/// the others (repeatedBlockDims): per index o of the dims before k, its
/// block of `inner` rows (the dims [m, c)) is copied out (TEXTRACT, with the
/// result's valid extents) and inserted (TINSERT) at the rows of each index
/// a of the dims [k, m), (o * rep + a) * inner; the plain instruction then
/// takes the expanded tile and the full operand in their order.
LogicalResult LeafLowering::lowerBinaryRepeatedBlocks(
    Operation *op, BinKind bin, Value lhs, Value rhs, bool broadcastLhs,
    std::pair<unsigned, unsigned> dims, PrecisionType precision) {
  Location loc = op->getLoc();
  Value result = op->getResult(0);
  ArrayRef<int64_t> res = cast<pto::TileType>(result.getType()).getShape();
  unsigned c = heldColumnDim(result);
  auto [k, m] = dims;
  Value full = broadcastLhs ? rhs : lhs, repeated = broadcastLhs ? lhs : rhs;
  if (cast<pto::TileType>(full.getType()).getShape() != res)
    return op->emitOpError()
           << "broadcasts both operands over the result; pto-lower-to-isa "
              "lowers a [1, B, D]-style broadcast against a full operand only";
  // The blocks must be whole rows of both 2-D forms: no gaps.
  if (failed(expectCollapsible(op, result, /*evenIfRowLocal=*/true)) ||
      failed(expectCollapsible(op, repeated, /*evenIfRowLocal=*/true)))
    return failure();
  int64_t outer = 1, rep = 1, inner = 1;
  for (unsigned d = 0; d < c; ++d)
    (d < k ? outer : d < m ? rep : inner) *= res[d];
  FailureOr<Value> fullTile = lookup(op, full),
                   repeatedTile = lookup(op, repeated);
  FailureOr<pisa::TileType> dstType = ubTypeFor(op, result);
  if (failed(fullTile) || failed(repeatedTile) || failed(dstType))
    return failure();
  int64_t cols = dstType->getCols();
  if (cast<pisa::TileType>(repeatedTile->getType()).getCols() != cols)
    return op->emitOpError()
           << "has operands whose ub column capacities differ from the "
              "result's (a cast chain widened one); pto-lower-to-isa's "
              "repeated-block broadcast needs one capacity";
  FailureOr<pisa::TileType> blockType =
      makeTileType(op, pisa::MemorySpace::ub, inner, cols,
                   dstType->getElementType(), pisa::TileLayout::nd);
  if (failed(blockType))
    return failure();
  // Only the first non-unit row dim of the result may be partial: the valid
  // indices o (dims before k), a (dims [k, m)) and the valid rows of a block.
  SmallVector<OpFoldResult> valid = reifier.reify(loc, result);
  OpFoldResult count = builder.getIndexAttr(1), repCount = count,
               innerValid = count;
  for (unsigned d = 0; d < c; ++d) {
    OpFoldResult &factor = d < k ? count : d < m ? repCount : innerValid;
    factor = mul(loc, factor, valid[d]);
  }
  auto [vr, vc] = validOf(loc, result);
  Value expanded = alloc(loc, *dstType, vr, vc);
  for (int64_t o = 0; o < outer; ++o) {
    Value rows = rowsAtIndex(loc, o, count, materialize(innerValid));
    // The operand itself when it is the one block with the rows and columns
    // to insert; a copy (TEXTRACT) of its block otherwise.
    Value block = *repeatedTile;
    if (outer != 1 || repeatedTile->getType() != *blockType ||
        validOf(loc, repeated) != std::make_pair(rows, vc)) {
      block = alloc(loc, *blockType, rows, vc);
      pisa::TExtractOp::create(builder, loc, *repeatedTile, block, o * inner,
                               0);
    }
    // A block past the valid indices a lies outside `expanded`'s valid
    // rows, where TINSERT may not write: skipped, under an scf.if when the
    // count is a run-time value.
    std::optional<int64_t> staticReps = getConstantIntValue(repCount);
    for (int64_t a = 0; a < (staticReps ? std::min(*staticReps, rep) : rep);
         ++a) {
      OpBuilder::InsertionGuard guard(builder);
      if (!staticReps) {
        Value inside =
            arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::slt,
                                  constIndex(a), materialize(repCount));
        auto guardIf = scf::IfOp::create(builder, loc, inside,
                                         /*withElseRegion=*/false);
        builder.setInsertionPoint(guardIf.thenBlock()->getTerminator());
      }
      pisa::TInsertOp::create(builder, loc, block, expanded,
                              (o * rep + a) * inner, 0);
    }
  }
  Value dst = alloc(loc, *dstType, vr, vc);
  createBinary(builder, loc, bin, broadcastLhs ? expanded : *fullTile,
               broadcastLhs ? *fullTile : expanded, dst, precision);
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
    pisa::TExtractOp::create(builder, loc, *src, run, rowOf(o), col, rowOffset,
                             colOffset);
    pisa::TInsertOp::create(builder, loc, run, dst, o * runRows, 0);
  }
  tiles[result] = dst;
  replaced.push_back(op);
  return success();
}

} // namespace mlir::pto::lower_to_isa
