//===- ExpandTiles.cpp - program-level tiles to hardware-sized tiles ------===//
//
// PyPTO's ExpandFunction (docs/PyPTOModel.md#tiling-expansion) as an MLIR pass.
// Each tile op becomes one op per piece of its tile config; every program-level
// result is stored piecewise into a pto.workspace and read back piecewise by
// its consumers. Pieces are addressed at static offsets, and carry explicit
// valid extents `max(valid - offset, 0)` computed from the reified valid shape,
// so the dynamic valid shapes of the program flow through unchanged. The
// pieces' index arithmetic is then one op per value (UniqueIndexArithmetic.h).
//
// This file holds the pass driver and the op dispatch; ExpandTiles.h lists
// the files the rest of the pass is split into.
//
//===----------------------------------------------------------------------===//

#include "ExpandTiles.h"
#include "UniqueIndexArithmetic.h"
#include "pto/Dialect/PTO/Transforms/Passes.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::pto {
#define GEN_PASS_DEF_EXPANDTILESPASS
#include "pto/Dialect/PTO/Transforms/Passes.h.inc"
} // namespace mlir::pto

using namespace mlir;
using namespace mlir::pto;
using namespace mlir::pto::expand_tiles;

namespace mlir::pto::expand_tiles {

LogicalResult Expander::run() {
  foldValidDims();
  SmallVector<Operation *> ops;
  root->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (auto compare = dyn_cast<CompareOp>(op); compare && isFusedMask(compare))
      fusedCompares.insert(op);
    else if (isa<MatmulOp>(op) || isVectorOp(op))
      ops.push_back(op);
  });
  planScopeTiles(ops);
  for (Operation *op : ops) {
    if (storedByMatmul.contains(op))
      continue;
    Operation *owner = op;
    while (owner->getParentOp() && owner->getParentOp() != root)
      owner = owner->getParentOp();
    if (owner != budgetOwner) {
      budgetOwner = owner;
      piecesLeft = kMaxPieces;
    }
    if (failed(expand(op)))
      return failure();
  }
  for (Operation *op : llvm::reverse(toErase))
    op->erase();
  // Their wheres, expanded, read pieces recomputed from the operands.
  for (Operation *compare : llvm::reverse(fusedCompares))
    compare->erase();
  // Views nothing reads any more: the originals of expanded operands and the
  // full-window views of workspaces. Other dead views are left alone (they
  // may still fault at run time, and are not this pass's business).
  for (Operation *view : composedViews)
    if (view->use_empty())
      view->erase();
  return success();
}

LogicalResult Expander::expand(Operation *op) {
  builder.setInsertionPoint(op);
  if (indexOpsAhead) {
    indexOps.clear();
    composedOffsets.clear();
    indexOpsAhead = false;
  }
  if (isElementwiseOp(op))
    return expandElementwise(op);
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](MatmulOp matmul) { return expandMatmul(matmul); })
      .Case([&](SumOp sum) {
        return expandReduce(sum, sum.getInput(), sum.getDim(), sum.getKeepdim(),
                            sum.getVecTileAttr(), false);
      })
      .Case([&](AmaxOp amax) {
        return expandReduce(amax, amax.getInput(), amax.getDim(),
                            amax.getKeepdim(), amax.getVecTileAttr(), true);
      })
      .Case([&](FullOp full) { return expandFull(full); })
      .Case([&](ArangeOp arange) { return expandArange(arange); })
      .Case([&](TransposeOp transpose) { return expandTranspose(transpose); })
      .Case([&](GatherMaskOp gather) { return expandGatherMask(gather); })
      .Case([&](BitcastOp bitcast) { return expandBitcast(bitcast); })
      .Case([&](TopKOp topk) { return expandTopK(topk); })
      .Case([&](AtomicAddOp store) {
        return expandStore(store, store.getSrc(), store.getDst(),
                           store.getStaticOffsets(), store.getOffsets(),
                           store.getVecTileAttr());
      })
      .Case([&](AssembleOp store) {
        return expandStore(store, store.getSrc(), store.getDst(),
                           store.getStaticOffsets(), store.getOffsets(),
                           store.getVecTileAttr());
      })
      .Case([&](IndexPutOp put) { return expandIndexPut(put); })
      .Default([](Operation *other) {
        return other->emitOpError()
               << "has no rule in pto-expand-tiles for splitting it into "
                  "pieces; a vector op outside the elementwise family "
                  "needs its own case in Expander::expand";
      });
}

/// A pto.valid_dim of a tile whose producer states a valid-shape rule (the
/// front end reads a tile's valid extents this way to carry them through a
/// reshape) becomes that rule's extent, built right after the tile's
/// definition, so nothing uses the tile once its producer is expanded.
void Expander::foldValidDims() {
  SmallVector<ValidDimOp> validDims;
  root->walk([&](ValidDimOp op) { validDims.push_back(op); });
  for (ValidDimOp op : validDims) {
    Value source = op.getSource();
    auto result = dyn_cast<OpResult>(source);
    if (!result || !isa<ValidShapeInferenceOpInterface>(result.getOwner()))
      continue;
    builder.setInsertionPointAfterValue(source);
    OpFoldResult extent = reifier.reify(op.getLoc(), source)[op.getDim()];
    Value value = getValueOrCreateConstantIndexOp(builder, op.getLoc(), extent);
    if (value.getDefiningOp() == op.getOperation())
      continue;
    op.replaceAllUsesWith(value);
    op.erase();
  }
}

} // namespace mlir::pto::expand_tiles

namespace {

struct ExpandTilesPass
    : public pto::impl::ExpandTilesPassBase<ExpandTilesPass> {
  void runOnOperation() override {
    WalkResult scopes = getOperation()->walk([&](ScopeOp scope) {
      scope.emitError() << "pto-expand-tiles expects scopes as stamps: run "
                           "pto-flatten-scopes first";
      return WalkResult::interrupt();
    });
    if (scopes.wasInterrupted())
      return signalPassFailure();
    getOperation()->walk([](KernelOp kernel) { insertViewChecks(kernel); });
    Expander expander(getOperation(), numMatmulPieces, numVectorPieces,
                      numWorkspaces, numRetiled);
    if (failed(expander.run()))
      return signalPassFailure();
    pto::detail::uniqueIndexArithmetic(getOperation(), expander.built());
  }
};

} // namespace
