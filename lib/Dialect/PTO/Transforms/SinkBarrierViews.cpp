//===- SinkBarrierViews.cpp - control-program views moved down -----------===//
//
// See SinkBarrierViews.h. A view moves past ops that neither read its result
// nor may write its source, so it reads the same bytes; moving it to the end
// of the run of tasks lets pto-partition merge the ops on either side of its
// old place (SK-01 at the pto-isa kernel's tiles: the scale / row-max and
// the subtract / exp / row-sum pieces of one S tile become one vector task).
//
//===----------------------------------------------------------------------===//

#include "SinkBarrierViews.h"

#include "llvm/ADT/DenseMap.h"

using namespace mlir;
using namespace mlir::pto;

namespace {

/// The value whose writers a view of `source` must not pass: null for a tile
/// (SSA, never written), the workspace itself when nothing aliases it, and
/// failure otherwise (the view stays). `unaliased` caches the user scan per
/// workspace, so many views of one workspace scan its users once.
FailureOr<Value> writableSource(Value source,
                                llvm::DenseMap<Value, bool> &unaliased) {
  if (isa<TileType>(source.getType()))
    return Value();
  if (!source.getDefiningOp<WorkspaceOp>())
    return failure();
  auto [it, inserted] = unaliased.try_emplace(source, true);
  if (inserted)
    it->second = llvm::all_of(source.getUsers(), [](Operation *user) {
      return isa<ViewOp, AssembleOp, AtomicAddOp, IndexPutOp>(user);
    });
  if (!it->second)
    return failure();
  return source;
}

} // namespace

unsigned
mlir::pto::detail::sinkBarrierViews(Block &block,
                                    function_ref<bool(Operation &)> isBarrier) {
  // Views being carried down, in their original order; one that must stay
  // is cleared. `byResult` / `bySource` find them from an operand of a later
  // op in O(1), so the sweep is linear in the block's operands.
  SmallVector<ViewOp> pending;
  llvm::DenseMap<Value, unsigned> byResult;
  llvm::DenseMap<Value, SmallVector<unsigned, 1>> bySource;
  llvm::DenseMap<Value, bool> unaliased;
  unsigned moved = 0;
  // A view read, or whose source is written, before the end of the run of
  // ops stays where it is: any place in the middle could separate a tile
  // from an op that reads it directly (a store and its source), which
  // pto-partition cannot put into two tasks.
  auto stay = [&](unsigned i) {
    if (ViewOp view = pending[i]) {
      byResult.erase(view.getResult());
      pending[i] = nullptr;
    }
  };
  for (Operation &op : llvm::make_early_inc_range(block)) {
    if (op.getNumRegions() > 0 || op.hasTrait<OpTrait::IsTerminator>()) {
      // The run ends here: every view still pending moves right before it.
      for (ViewOp view : pending) {
        if (!view || view->getNextNode() == &op)
          continue;
        view->moveBefore(&op);
        ++moved;
      }
      pending.clear();
      byResult.clear();
      bySource.clear();
      continue;
    }
    bool isView = isa<ViewOp>(op);
    for (Value operand : op.getOperands()) {
      if (auto it = byResult.find(operand); it != byResult.end())
        stay(it->second);
      if (isView)
        continue; // views only read: they may pass each other
      if (auto it = bySource.find(operand); it != bySource.end()) {
        for (unsigned i : it->second)
          stay(i);
        bySource.erase(it);
      }
    }
    auto view = dyn_cast<ViewOp>(op);
    if (!view || !isBarrier(op))
      continue;
    FailureOr<Value> source = writableSource(view.getSource(), unaliased);
    if (failed(source))
      continue;
    byResult[view.getResult()] = pending.size();
    if (*source)
      bySource[*source].push_back(pending.size());
    pending.push_back(view);
  }
  return moved;
}
