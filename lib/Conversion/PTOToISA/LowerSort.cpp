//===- LowerSort.cpp - pto.topk to pto_isa --------------------------------===//
//
// A row top-k on pto-isa's sort instructions (docs/ISA.md, "topk"): TCI
// makes the index row, TSORT32 sorts each 32-element block of every row into
// (value, index) structures, TMRGSORT merges a row's blocks (up to 4 lists
// per merge, passes until one is left) keeping only the first k structures,
// and two mask-form TGATHERs split the k structures of all rows into the
// values (pattern 1) and the int32 index bits (pattern 2). The gathers pack
// their rows, so a k that does not fill whole 32-byte rows keeps the first
// k rounded up to the row (kRow) structures and copies out the first k
// columns of each row.
//
//===----------------------------------------------------------------------===//

#include "LeafLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::pto;
using namespace mlir::pto::lower_to_isa;

namespace mlir::pto::lower_to_isa {

/// Elements of a 32-element block's structures (two f32 per element).
static constexpr int64_t kBlockPairs = 64;

LogicalResult LeafLowering::lowerTopK(TopKOp op) {
  Location loc = op.getLoc();
  FailureOr<Value> src = lookup(op, op.getInput());
  FailureOr<pisa::TileType> valuesType = ubTypeFor(op, op.getValues());
  FailureOr<pisa::TileType> indicesType = ubTypeFor(op, op.getIndices());
  if (failed(src) || failed(valuesType) || failed(indicesType))
    return failure();
  int64_t k = op.getK();
  auto [rows, resultCols] = heldShape(op.getValues());
  if (resultCols != k)
    return op.emitOpError() << "ranks rows whose last dim is not the column "
                               "dim of its 2-D form; pto-lower-to-isa lowers "
                               "topk of rows held as the columns (k > 1)";
  // The mask gathers write kRow values (indices) of each row packed, which
  // fills whole ub rows; every row must have k valid elements.
  int64_t kRow = valuesType->getCols();
  auto [vr, vc] = validOf(loc, op.getInput());
  auto [rvr, rvc] = validOf(loc, op.getValues());
  APInt validK;
  if (matchPattern(rvc, m_ConstantInt(&validK)) && validK.getSExtValue() != k)
    return op.emitOpError()
           << "rows have " << validK.getSExtValue() << " valid elements, "
           << "fewer than k = " << k
           << "; pto-lower-to-isa needs k valid elements per row (the mask "
              "TGATHER packs its rows); pto-run and the tile graph take such "
              "rows";
  APInt validIn;
  if (kRow != k && matchPattern(vc, m_ConstantInt(&validIn)) &&
      validIn.getSExtValue() < kRow)
    return op.emitOpError()
           << "k = " << k << " of rows with " << validIn.getSExtValue()
           << " valid elements: pto-lower-to-isa ranks the first " << kRow
           << " (k rounded up to a 32-byte ub row of f32, as the mask-form "
              "TGATHER packs its rows), which needs that many valid elements "
              "per row: use a k that is a multiple of 8 or pad the rows";
  MLIRContext *ctx = builder.getContext();
  Type f32 = builder.getF32Type();
  auto srcType = cast<pisa::TileType>((*src).getType());
  int64_t width = srcType.getCols();
  int64_t blocks = llvm::divideCeil(width, 32);
  auto type = [&](int64_t r, int64_t c, Type elem) {
    return makeTileType(op, pisa::MemorySpace::ub, r, c, elem,
                        pisa::TileLayout::nd);
  };
  Type ui32 = IntegerType::get(ctx, 32, IntegerType::Unsigned);
  FailureOr<pisa::TileType> idxRowType = type(1, width, ui32);
  FailureOr<pisa::TileType> idxType = type(rows, width, ui32);
  FailureOr<pisa::TileType> rowType = type(1, width, f32);
  FailureOr<pisa::TileType> pairsType = type(rows, 2 * width, f32);
  FailureOr<pisa::TileType> topType = type(rows, 2 * kRow, f32);
  FailureOr<pisa::TileType> kType = type(1, 2 * kRow, f32);
  if (failed(idxRowType) || failed(idxType) || failed(rowType) ||
      failed(pairsType) || failed(topType) || failed(kType))
    return failure();
  Value one = constIndex(1), zero = constIndex(0);
  auto addI = [&](Value a, Value b) -> Value {
    return arith::AddIOp::create(builder, loc, a, b).getResult();
  };
  auto minI = [&](Value a, Value b) -> Value {
    return arith::MinSIOp::create(builder, loc, a, b).getResult();
  };
  auto maxI = [&](Value a, Value b) -> Value {
    return arith::MaxSIOp::create(builder, loc, a, b).getResult();
  };
  Value pairCols = addI(vc, vc); // two f32 per element
  Value topCols = kRow == k ? addI(rvc, rvc) : constIndex(2 * kRow);

  // The smallest k are the largest of -x (ties keep their order).
  Value in = *src;
  Value minusOne;
  if (!op.getLargest()) {
    Value neg = alloc(loc, srcType, vr, vc);
    minusOne =
        arith::ConstantOp::create(builder, loc, builder.getF32FloatAttr(-1.0f))
            .getResult();
    pisa::TMulSOp::create(builder, loc, in, minusOne, neg);
    in = neg;
  }
  // The index row, on every row: TSORT32 on A2/A3 steps a one-row idx by 0,
  // but pto-isa's CPU back end wants idx's valid rows (and row stride) to be
  // src's.
  Value idx = alloc(loc, *idxRowType, one, vc);
  pisa::TCIOp::create(builder, loc, idx, builder.getI64IntegerAttr(0));
  if (rows > 1) {
    Value idxRows = alloc(loc, *idxType, vr, vc);
    pisa::TColExpandOp::create(builder, loc, idx, idxRows);
    idx = idxRows;
  }
  Value sortTmp = alloc(loc, *rowType, one, vc);
  Value pairs = alloc(loc, *pairsType, vr, pairCols);
  pisa::TSort32Op::create(builder, loc, in, idx, sortTmp, pairs);

  // Row by row (TMRGSORT takes one-row lists): the row's blocks are its
  // sorted lists; merges of up to 4 keep the first k structures until one
  // list is left, which lands in row r of `top`. Rows past the valid ones
  // get empty windows.
  Value top = alloc(loc, *topType, vr, topCols);
  Value twoK = constIndex(2 * kRow);
  for (int64_t r = 0; r < rows; ++r) {
    Value rowValid = rowsAtIndex(loc, r, vr, one);
    Value best;
    if (blocks == 1) {
      // One sorted block: its first k structures.
      best = alloc(loc, *kType, rowValid, topCols);
      pisa::TExtractOp::create(builder, loc, pairs, best, r, 0);
    } else {
      SmallVector<std::pair<Value, Value>> lists; // (tile, valid columns)
      for (int64_t b = 0; b < blocks; ++b) {
        Value from = arith::SubIOp::create(builder, loc, pairCols,
                                           constIndex(b * kBlockPairs))
                         .getResult();
        Value cols = minI(maxI(from, zero), constIndex(kBlockPairs));
        // The last block's list ends with the row (2 * width columns).
        FailureOr<pisa::TileType> blockListType =
            type(1, std::min(kBlockPairs, 2 * width - b * kBlockPairs), f32);
        if (failed(blockListType))
          return failure();
        Value list = alloc(loc, *blockListType, rowValid, cols);
        pisa::TExtractOp::create(builder, loc, pairs, list, r, b * kBlockPairs);
        lists.push_back({list, cols});
      }
      while (lists.size() > 1) {
        SmallVector<std::pair<Value, Value>> merged;
        for (size_t g = 0; g < lists.size(); g += 4) {
          size_t n = std::min<size_t>(4, lists.size() - g);
          if (n == 1) {
            merged.push_back(lists[g]);
            continue;
          }
          SmallVector<Value> group;
          Value total = zero;
          int64_t tmpCols = 0;
          for (size_t i = g; i < g + n; ++i) {
            group.push_back(lists[i].first);
            total = addI(total, lists[i].second);
            tmpCols += cast<pisa::TileType>(lists[i].first.getType()).getCols();
          }
          FailureOr<pisa::TileType> tmpType = type(1, tmpCols, f32);
          if (failed(tmpType))
            return failure();
          Value tmp = alloc(loc, *tmpType, rowValid, total);
          // Only the first kRow structures are kept: min(total, 2 kRow)
          // columns.
          Value keep = minI(total, twoK);
          Value out = alloc(loc, *kType, rowValid, keep);
          pisa::TMrgSortOp::create(builder, loc, group, tmp, out);
          merged.push_back({out, keep});
        }
        lists = std::move(merged);
      }
      best = lists.front().first;
    }
    pisa::TInsertOp::create(builder, loc, best, top, r, 0);
  }
  // Gathers the kRow columns of every row, then (k < kRow) copies the first
  // k of each into a tile whose valid columns are k.
  auto gather = [&, rvr = rvr, rvc = rvc](pisa::TileType resultType,
                                          int64_t pattern) -> Value {
    Value all = alloc(loc, resultType, rvr, kRow == k ? rvc : constIndex(kRow));
    pisa::TGatherMaskOp::create(builder, loc, top, all,
                                builder.getI64IntegerAttr(pattern));
    if (kRow == k)
      return all;
    Value first = alloc(loc, resultType, rvr, rvc);
    pisa::TExtractOp::create(builder, loc, all, first, 0, 0);
    return first;
  };
  Value values = gather(*valuesType, 1);
  if (!op.getLargest()) {
    // The sort ranked -x: negate the values back.
    Value smallest = alloc(loc, *valuesType, rvr, rvc);
    pisa::TMulSOp::create(builder, loc, values, minusOne, smallest);
    values = smallest;
  }
  Value indices = gather(*indicesType, 2);
  tiles[op.getValues()] = values;
  tiles[op.getIndices()] = indices;
  replaced.push_back(op);
  return success();
}

} // namespace mlir::pto::lower_to_isa
