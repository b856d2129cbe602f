//===- ExpandTilesViewChecks.cpp - run-time checks of program-level views -===//
//
// Part of pto-expand-tiles (ExpandTiles.h): the checks each program-level
// view gets before its pieces compose it into their loads.
//
//===----------------------------------------------------------------------===//

#include "ExpandTiles.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::pto;

namespace mlir::pto::expand_tiles {

/// A view of a tile whose offsets or explicit valid extents may leave the
/// tile's valid region: a check right before it, against the tile's valid
/// extents reified there (pto.check_tile_view). Its pieces compose the view
/// into their loads with extents clamped to the source, and the view dies,
/// so without the check compiled code would read less where pto-run
/// faults.
static Operation *insertTileViewCheck(ViewOp view) {
  std::optional<ArrayRef<int64_t>> staticValid = view.getStaticValidShape();
  bool offsetsNonNegative =
      view.getOffsets().empty() &&
      llvm::all_of(view.getStaticOffsets(), [](int64_t o) { return o >= 0; });
  // Without explicit extents the view rule clamps: only offsets can fail.
  if (offsetsNonNegative && !staticValid)
    return nullptr;
  // A tile whose valid extents are read with pto.valid_dim (loop-carried,
  // an scf.if result) is not composed into loads: its views stay, and are
  // checked where they run. Nothing is left behind for it.
  struct Recorder : OpBuilder::Listener {
    SmallVector<Operation *> created;
    void notifyOperationInserted(Operation *op,
                                 OpBuilder::InsertPoint) override {
      created.push_back(op);
    }
  } recorder;
  OpBuilder b(view, &recorder);
  SmallVector<OpFoldResult> source =
      reifyValidShape(b, view.getLoc(), view.getSource());
  if (llvm::any_of(recorder.created, llvm::IsaPred<ValidDimOp>)) {
    for (Operation *op : llvm::reverse(recorder.created))
      op->erase();
    return nullptr;
  }
  if (offsetsNonNegative && view.getValidShape().empty()) {
    bool inside = true;
    for (auto [d, extent] : llvm::enumerate(*staticValid)) {
      std::optional<int64_t> sourceExtent = getConstantIntValue(source[d]);
      inside &= extent >= 0 &&
                (extent == 0 ||
                 (sourceExtent &&
                  extent <= *sourceExtent - view.getStaticOffsets()[d]));
    }
    if (inside)
      return nullptr;
  }
  DenseMap<int64_t, Value> constants;
  auto values = [&](ArrayRef<OpFoldResult> mixed) {
    SmallVector<Value> result;
    for (OpFoldResult ofr : mixed) {
      std::optional<int64_t> constant = getConstantIntValue(ofr);
      if (!constant) {
        result.push_back(cast<Value>(ofr));
        continue;
      }
      Value &value = constants[*constant];
      if (!value)
        value = arith::ConstantIndexOp::create(b, view.getLoc(), *constant);
      result.push_back(value);
    }
    return result;
  };
  SmallVector<Value> offsets = values(getMixedValues(
      view.getStaticOffsets(), view.getOffsets(), view.getContext()));
  SmallVector<Value> valid;
  if (staticValid)
    valid = values(
        getMixedValues(*staticValid, view.getValidShape(), view.getContext()));
  return CheckTileViewOp::create(b, view.getLoc(), offsets, valid,
                                 values(source));
}

/// The pieces clamp their valid extents to the tensor (the view rule); each
/// program-level view's own offsets and explicit extents are checked where
/// it stood, as pto-run checks them (pto.check_view): placed as early as its
/// operands allow (not between the compute ops that become tasks), after
/// the checks of earlier views (the order pto-run reports them in).
/// Workspaces are sized by this pass and need no check. Views of tiles are
/// checked right before the view (insertTileViewCheck).
void insertViewChecks(KernelOp kernel) {
  DenseMap<Block *, Operation *> lastCheck;
  kernel.walk([&](ViewOp view) {
    if (isa<TileType>(view.getSource().getType())) {
      if (Operation *check = insertTileViewCheck(view))
        lastCheck[view->getBlock()] = check;
      return;
    }
    auto tensorType = dyn_cast<GMTensorType>(view.getSource().getType());
    if (!tensorType || view.getSource().getDefiningOp<WorkspaceOp>())
      return;
    // Nothing to check at run time when the view is inside the tensor
    // statically.
    bool staticallyInside =
        view.getOffsets().empty() && view.getValidShape().empty();
    for (auto [d, offset] : llvm::enumerate(view.getStaticOffsets())) {
      staticallyInside &= !ShapedType::isDynamic(offset) && offset >= 0;
      if (!staticallyInside)
        break;
      if (auto staticValid = view.getStaticValidShape()) {
        int64_t extent = (*staticValid)[d], size = tensorType.getShape()[d];
        staticallyInside &=
            extent >= 0 && (extent == 0 || (!ShapedType::isDynamic(size) &&
                                            extent <= size - offset));
      }
    }
    if (staticallyInside)
      return;
    Block *block = view->getBlock();
    Operation *after = lastCheck.lookup(block);
    SmallVector<Value> operands(view.getOffsets());
    llvm::append_range(operands, view.getValidShape());
    operands.push_back(view.getSource());
    for (Value v : operands)
      if (Operation *def = v.getDefiningOp())
        if (def->getBlock() == block && (!after || after->isBeforeInBlock(def)))
          after = def;
    OpBuilder b(view->getContext());
    if (after)
      b.setInsertionPointAfter(after);
    else
      b.setInsertionPointToStart(block);
    auto values = [&](ArrayRef<int64_t> statics, ValueRange dynamics) {
      SmallVector<Value> result;
      for (OpFoldResult ofr :
           getMixedValues(statics, dynamics, view.getContext())) {
        if (auto value = dyn_cast<Value>(ofr))
          result.push_back(value);
        else
          result.push_back(arith::ConstantIndexOp::create(
              b, view.getLoc(), *getConstantIntValue(ofr)));
      }
      return result;
    };
    SmallVector<Value> offsets =
        values(view.getStaticOffsets(), view.getOffsets());
    SmallVector<Value> valid;
    if (auto staticValid = view.getStaticValidShape())
      valid = values(*staticValid, view.getValidShape());
    lastCheck[block] =
        CheckViewOp::create(b, view.getLoc(), view.getSource(), offsets, valid);
  });
}

} // namespace mlir::pto::expand_tiles
