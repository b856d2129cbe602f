//===- HoistInvariants.cpp - loop-invariant hoisting out of pto.loop ------===//
//
// Moves loop-invariant ops from a `pto.loop` body to just before the loop,
// at program level after `pto-flatten-scopes` (docs/TileGraph.md). The
// motivating case is SK-16's `Dvec = rowsum(f32(O) * f32(dO))`, which the
// reference kernel recomputes for every s2 tile although it depends only on
// (b, n, s1_idx) (docs/SK16.md#dvec-hoisting).
//
// An op leaves a loop when its operands are defined outside, it has results
// and no regions, and it is effect-free or a GM read that no write of the
// loop may overlap (GMAccessAnalysis::clobbers over all iterations); ops that
// may fault leave possibly-empty loops only with speculate-reads. Loops are
// visited inner first until nothing moves. The rules and why they hold:
// docs/Rationale.md, "Hoisting loop invariants out of pto.loop".
//
//===----------------------------------------------------------------------===//

#include "pto/Dialect/PTO/Analysis/GMAccess.h"
#include "pto/Dialect/PTO/Transforms/Passes.h"

#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"

namespace mlir::pto {
#define GEN_PASS_DEF_HOISTINVARIANTSPASS
#include "pto/Dialect/PTO/Transforms/Passes.h.inc"
} // namespace mlir::pto

using namespace mlir;
using namespace mlir::pto;

namespace {

/// True when `loop` runs at least once for sure (constant bounds, lb < ub).
bool runsAtLeastOnce(LoopOp loop) {
  APInt lb, ub;
  return matchPattern(loop.getLowerBound(), m_ConstantInt(&lb)) &&
         matchPattern(loop.getUpperBound(), m_ConstantInt(&ub)) && lb.slt(ub);
}

struct HoistInvariantsPass
    : public pto::impl::HoistInvariantsPassBase<HoistInvariantsPass> {
  using Base::Base;

  void runOnOperation() override {
    // Per hoisted op, the names of the loops it left, innermost first.
    llvm::MapVector<Operation *, SmallVector<StringRef, 2>> hoisted;
    bool changed = true;
    while (changed) {
      changed = false;
      SmallVector<LoopOp> loops;
      // Post-order: inner loops before the loops around them.
      getOperation()->walk([&](LoopOp loop) { loops.push_back(loop); });
      for (LoopOp loop : loops)
        changed |= hoistFrom(loop, hoisted);
    }
    numOpsHoisted += hoisted.size();
    if (report)
      getOperation()->walk([&](Operation *op) {
        auto it = hoisted.find(op);
        if (it == hoisted.end())
          return;
        InFlightDiagnostic remark = op->emitRemark("hoisted out of pto.loop ");
        for (auto [i, name] : llvm::enumerate(it->second))
          remark << (i ? ", then " : "") << "\"" << name << "\"";
      });
  }

  /// Whether `op`, directly in `loop`'s body, may move before the loop
  /// (rules 2 and 3; invariance is checked by the caller). `writes` are the
  /// loop's GM accesses over all its iterations.
  bool isHoistable(Operation *op, const GMAccessSummary &writes,
                   bool nonEmpty) {
    if (op->getNumRegions() || op->hasTrait<OpTrait::IsTerminator>() ||
        op->getNumResults() == 0)
      return false;
    bool mayRunZeroTimes = !nonEmpty;
    if (auto view = dyn_cast<ViewOp>(op)) {
      // A view of GM reads the tensor; a view of a tile is a value. Both
      // fault in pto-run on offsets or explicit extents out of range.
      if (isa<GMTensorType>(view.getSource().getType()) && isClobbered(op, writes))
        return false;
      return !mayRunZeroTimes || speculateReads;
    }
    if (auto read = dyn_cast<ReadOp>(op)) {
      if (isClobbered(op, writes))
        return false;
      return !mayRunZeroTimes || speculateReads;
    }
    // Pure, but pto-run checks the new shape against the tensor's size.
    if (isa<ReshapeOp>(op))
      return !mayRunZeroTimes || speculateReads;
    if (!isMemoryEffectFree(op))
      return false;
    return !mayRunZeroTimes || isSpeculatable(op);
  }

  /// Whether a write of the loop may overlap what `read` (a GM view or a
  /// pto.read) reads in some iteration.
  bool isClobbered(Operation *read, const GMAccessSummary &writes) {
    GMAccessSummary reads = getAnalysis<GMAccessAnalysis>().summarize(read);
    return llvm::any_of(reads.accesses, [&](const GMAccess &access) {
      return GMAccessAnalysis::clobbers(writes, access);
    });
  }

  bool
  hoistFrom(LoopOp loop,
            llvm::MapVector<Operation *, SmallVector<StringRef, 2>> &hoisted) {
    Region &body = loop.getBody();
    GMAccessSummary writes = getAnalysis<GMAccessAnalysis>().summarize(
        loop, /*iterated=*/&body);
    bool nonEmpty = runsAtLeastOnce(loop);
    bool changed = false;
    for (Operation &op : llvm::make_early_inc_range(body.front())) {
      bool invariant = llvm::all_of(op.getOperands(), [&](Value v) {
        return !body.isAncestor(v.getParentRegion());
      });
      if (!invariant || !isHoistable(&op, writes, nonEmpty))
        continue;
      // In program order: after the ops hoisted before it.
      op.moveBefore(loop);
      hoisted[&op].push_back(loop.getName());
      ++numLoopExits;
      changed = true;
    }
    return changed;
  }
};

} // namespace
