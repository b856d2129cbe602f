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
// may fault leave possibly-empty loops only with speculate-reads. Effects
// and speculatability are the ops' own (MemoryEffectOpInterface,
// ConditionallySpeculatable); each pto.loop (LoopLikeOpInterface) is handed
// to upstream's moveLoopInvariantCode worklist, inner loops first, so one
// walk suffices. The rules and why they hold:
// docs/Rationale.md, "Hoisting loop invariants out of pto.loop".
//
//===----------------------------------------------------------------------===//

#include "pto/Dialect/PTO/Analysis/GMAccess.h"
#include "pto/Dialect/PTO/Transforms/Passes.h"

#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"
#include "llvm/ADT/MapVector.h"

namespace mlir::pto {
#define GEN_PASS_DEF_HOISTINVARIANTSPASS
#include "pto/Dialect/PTO/Transforms/Passes.h.inc"
} // namespace mlir::pto

using namespace mlir;
using namespace mlir::pto;

/// True when `loop` runs at least once for sure (constant bounds, lb < ub).
static bool runsAtLeastOnce(LoopOp loop) {
  APInt lb, ub;
  return matchPattern(loop.getLowerBound(), m_ConstantInt(&lb)) &&
         matchPattern(loop.getUpperBound(), m_ConstantInt(&ub)) && lb.slt(ub);
}

namespace {

struct HoistInvariantsPass
    : public pto::impl::HoistInvariantsPassBase<HoistInvariantsPass> {
  using Base::Base;

  void runOnOperation() override {
    GMAccessAnalysis &gm = getAnalysis<GMAccessAnalysis>();
    // Per hoisted op, the names of the loops it left, innermost first.
    llvm::MapVector<Operation *, SmallVector<StringRef, 2>> hoisted;
    // Post-order: an op leaving an inner loop lands in the outer body before
    // the outer loop is visited.
    SmallVector<LoopOp> loops;
    getOperation()->walk([&](LoopOp loop) { loops.push_back(loop); });
    for (LoopOp loop : loops) {
      auto loopLike = cast<LoopLikeOpInterface>(loop.getOperation());
      // What the loop writes over all its iterations; hoisting moves reads
      // and effect-free ops only, so this stays true while ops leave.
      GMAccessSummary writes = gm.summarize(loop, &loop.getBody());
      bool nonEmpty = runsAtLeastOnce(loop);
      moveLoopInvariantCode(
          loopLike.getLoopRegions(),
          [&](Value value, Region *) {
            return loopLike.isDefinedOutsideOfLoop(value);
          },
          [&](Operation *op, Region *) {
            return isHoistable(op, gm, writes, nonEmpty);
          },
          [&](Operation *op, Region *) {
            // In program order: after the ops hoisted before it.
            loopLike.moveOutOfLoop(op);
            hoisted[op].push_back(loop.getName());
            ++numLoopExits;
          });
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

  /// Whether `op`, directly in a loop body with its operands defined outside,
  /// may move before the loop (docs/Rationale.md, rules 2 and 3). `writes`
  /// are the loop's GM accesses over all its iterations.
  bool isHoistable(Operation *op, GMAccessAnalysis &gm,
                   const GMAccessSummary &writes, bool nonEmpty) {
    if (op->getNumRegions() || op->hasTrait<OpTrait::IsTerminator>() ||
        op->getNumResults() == 0)
      return false;
    if (!isMemoryEffectFree(op) && !isUnclobberedRead(op, gm, writes))
      return false;
    if (nonEmpty || isSpeculatable(op))
      return true;
    // Views, reads and reshapes fault only on indices that the enclosing
    // bodies keep in range, so they may run for a loop that runs zero times.
    return speculateReads && isa<ViewOp, ReadOp, ReshapeOp>(op);
  }

  /// Whether every effect of `op` reads a GM tensor region that no write of
  /// the loop may overlap.
  bool isUnclobberedRead(Operation *op, GMAccessAnalysis &gm,
                         const GMAccessSummary &writes) {
    auto iface = dyn_cast<MemoryEffectOpInterface>(op);
    if (!iface)
      return false;
    SmallVector<MemoryEffects::EffectInstance> effects;
    iface.getEffects(effects);
    for (const MemoryEffects::EffectInstance &effect : effects) {
      Value value = effect.getValue();
      if (!isa<MemoryEffects::Read>(effect.getEffect()) || !value ||
          !isa<GMTensorType>(value.getType()))
        return false;
    }
    return llvm::none_of(gm.summarize(op).accesses, [&](const GMAccess &read) {
      return GMAccessAnalysis::clobbers(writes, read);
    });
  }
};

} // namespace
