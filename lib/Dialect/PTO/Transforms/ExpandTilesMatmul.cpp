//===- ExpandTilesMatmul.cpp - a matmul into its cube tile blocks ---------===//
//
// Part of pto-expand-tiles (ExpandTiles.h): a matmul becomes one
// accumulation chain along K per output block of its cube tile.
//
//===----------------------------------------------------------------------===//

#include "ExpandTiles.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::pto;

namespace mlir::pto::expand_tiles {

/// The plain `pto.assemble` that is the only use of a matmul's result, in
/// the matmul's block: the output blocks are stored there directly (the
/// fixpipe writes L0C to GM), with no workspace and no copy task.
static AssembleOp soleAssembleOf(MatmulOp op) {
  Value result = op.getResult();
  if (!result.hasOneUse())
    return {};
  auto store = dyn_cast<AssembleOp>(*result.getUsers().begin());
  if (!store || store.getSrc() != result ||
      store->getBlock() != op->getBlock() ||
      store.getStaticOffsets().size() != 2)
    return {};
  return store;
}

LogicalResult Expander::expandMatmul(MatmulOp op) {
  Location loc = op.getLoc();
  TileType resultType = op.getResult().getType();
  AssembleOp direct = soleAssembleOf(op);
  Value workspace = direct ? Value() : createWorkspace(op, op.getResult());
  SmallVector<std::tuple<Value, int64_t, int64_t>> blocks;
  CubeTileAttr tile = op.getCubeTile();
  int64_t m = resultType.getDimSize(0), n = resultType.getDimSize(1);
  TileType lhsType = op.getLhs().getType();
  int64_t k = op.getATrans() ? lhsType.getDimSize(0) : lhsType.getDimSize(1);
  int64_t mStep = tile.getML0(), nStep = tile.getNL0(), kStep = tile.getKL0();
  Type outType = resultType.getElementType();
  Type accType = isa<IntegerType>(lhsType.getElementType())
                     ? Type(builder.getI32Type())
                     : Type(builder.getF32Type());
  if (failed(reservePieces(op, gridSize({m, n, k}, {mStep, nStep, kStep}))))
    return failure();
  // Output blocks n then m, as PyPTO walks them; each block steps through K.
  for (int64_t ni = 0; ni < n; ni += nStep) {
    for (int64_t mi = 0; mi < m; mi += mStep) {
      int64_t ms = std::min(mStep, m - mi), ns = std::min(nStep, n - ni);
      Value acc;
      for (int64_t kk = 0; kk < k; kk += kStep) {
        int64_t ks = std::min(kStep, k - kk);
        bool last = kk + kStep >= k;
        Value a = op.getATrans()
                      ? readPiece(loc, op.getLhs(), {kk, mi}, {ks, ms})
                      : readPiece(loc, op.getLhs(), {mi, kk}, {ms, ks});
        Value b = op.getBTrans()
                      ? readPiece(loc, op.getRhs(), {ni, kk}, {ns, ks})
                      : readPiece(loc, op.getRhs(), {kk, ni}, {ks, ns});
        auto stepType = TileType::get(builder.getContext(), {ms, ns},
                                      last ? outType : accType);
        Operation *step;
        if (!acc)
          step = MatmulOp::create(builder, loc, stepType, a, b,
                                  op.getATransAttr(), op.getBTransAttr(), tile);
        else
          step =
              MatmulAccOp::create(builder, loc, stepType, acc, a, b,
                                  op.getATransAttr(), op.getBTransAttr(), tile);
        stamp(step, op);
        ++numMatmulPieces;
        acc = step->getResult(0);
      }
      if (direct)
        blocks.push_back({acc, mi, ni});
      else
        stamp(storePiece(builder, loc, acc, workspace, {mi, ni}), op);
    }
  }
  if (!direct) {
    finish(op, op.getResult(), workspace);
    return success();
  }
  // Each output block goes where the assemble put it, at the assemble's
  // place in program order, with the block's valid extents.
  builder.setInsertionPoint(direct);
  indexOps.clear();
  composedOffsets.clear();
  indexOpsAhead = true;
  SmallVector<OpFoldResult> base = getMixedValues(
      direct.getStaticOffsets(), direct.getOffsets(), builder.getContext());
  for (auto [acc, mi, ni] : blocks) {
    SmallVector<OpFoldResult> offsets = {add(loc, base[0], mi),
                                         add(loc, base[1], ni)};
    SmallVector<int64_t> staticOffsets;
    SmallVector<Value> dynamicOffsets;
    dispatchIndexOpFoldResults(offsets, dynamicOffsets, staticOffsets);
    stamp(AssembleOp::create(
              builder, direct.getLoc(), acc, direct.getDst(), dynamicOffsets,
              builder.getDenseI64ArrayAttr(staticOffsets), VecTileAttr()),
          op);
  }
  currentTile.clear();
  storedByMatmul.insert(direct);
  toErase.push_back(op);
  toErase.push_back(direct);
  return success();
}

} // namespace mlir::pto::expand_tiles
