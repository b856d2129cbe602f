//===- HoistInvariants.cpp - loop-invariant hoisting out of pto.loop ------===//
//
// Moves loop-invariant ops from a `pto.loop` body to just before the loop,
// at program level after `pto-flatten-scopes` (docs/TileGraph.md). The
// motivating case is SK-16's `Dvec = rowsum(f32(O) * f32(dO))`, which the
// reference kernel recomputes for every s2 tile although it depends only on
// (b, n, s1_idx) (docs/SK16.md#dvec-hoisting).
//
// Legality rule (an op directly in the body block of loop L leaves L when all
// of these hold):
//
//  1. Invariance: every operand is defined outside L's body (including by ops
//     hoisted earlier, which now sit before L). Ops with regions, terminators
//     and ops without results never move; nothing is taken out of a nested
//     region (`pto.scope` left in place, `scf.if`, nested loops: their ops
//     are only hoisted out of their own loops, inner loops first).
//
//  2. No side effects, or a read of GM that nothing in L clobbers:
//     - memory-effect-free ops (tile compute ops, arith, pto.dim,
//       pto.reshape, views of tiles), or
//     - GM reads (`pto.view` of a `!pto.tensor`, `pto.read`) of a tensor
//       that no op nested in L writes. Tensors are compared by storage:
//       reshapes are followed back to a kernel argument or a
//       `pto.workspace`; two tensors alias when they have the same storage.
//       Writers are `atomic_add` / `assemble` destinations and any op whose
//       memory effects write; an op with unknown effects (`pto.launch`,
//       `pto.root_call`, ...) or a write to storage that cannot be traced
//       clobbers every tensor. A loop that writes nothing leaves every read
//       invariant.
//
//  3. Zero-trip loops. A hoisted op runs once even when L runs zero times.
//     - Speculatable memory-effect-free ops (MLIR `isSpeculatable`: the
//       `Pure` tile compute ops, arith except divisions by a value not known
//       to be non-zero, pto.dim) are always hoisted; their result is simply
//       unused when L does not run. (pto-run faults on a tile op only when
//       its operands' valid extents disagree, a kernel bug that L's first
//       iteration would hit as well.)
//     - Ops that may fault at run time (GM reads, views of tiles, in-place
//       reshapes, divisions by a run-time value) are hoisted out of L when L
//       provably runs at least once (constant bounds with lb < ub), or, for
//       reads, views and reshapes only, when `speculate-reads` is on (the
//       default). The reads then happen even for a zero-trip L. That is safe
//       for the views the front end produces: pto-run faults on a view only
//       for a negative offset or an explicit valid extent reaching past its
//       parent (a view without explicit extents is clipped by its parent),
//       and the offsets and valid extents of an invariant view come from
//       enclosing loops only, so they are in range whenever the enclosing
//       bodies run (SK-16's `do_i`/`o_i` at `s1_off` with `a_s1` rows are in
//       range for every s1 tile, whatever s2: a batch with s2 = 0 reads them
//       once and drops them). `speculate-reads=false` restores the strict
//       rule for kernels where this does not hold.
//
// Loops are visited inner first (post-order) and the whole walk repeats until
// nothing moves, so an op can leave several nested loops: SK-16's Dvec chain
// (views do_i and o_i, their offsets, the two casts, the multiply and the
// row sum) leaves LOOP_s2_dq and stays in LOOP_s1_dq, whose index its views
// depend on. Hoisted ops keep every attribute, the `pto.scope` stamp
// included: in the outer body they form their own scope group.
//
//===----------------------------------------------------------------------===//

#include "pto/Dialect/PTO/Transforms/Passes.h"

#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mlir::pto {
#define GEN_PASS_DEF_HOISTINVARIANTSPASS
#include "pto/Dialect/PTO/Transforms/Passes.h.inc"
} // namespace mlir::pto

using namespace mlir;
using namespace mlir::pto;

namespace {

/// The storage a GM tensor value refers to: a `pto.kernel` argument or a
/// `pto.workspace`, found through in-place reshapes. Null when it cannot be
/// traced (a loop-carried tensor, an argument of a function whose arguments
/// may alias, the result of an unknown op).
Value getStorage(Value tensor) {
  tensor = getAliasedTensor(tensor);
  if (auto arg = dyn_cast<BlockArgument>(tensor))
    return isa_and_nonnull<KernelOp>(arg.getOwner()->getParentOp()) ? tensor
                                                                    : Value();
  if (tensor.getDefiningOp<WorkspaceOp>())
    return tensor;
  return Value();
}

/// The GM storage the ops nested in a loop write.
struct WriteSet {
  bool everything = false;
  llvm::SmallPtrSet<Value, 8> storages;

  void addTensor(Value tensor) {
    if (Value storage = getStorage(tensor))
      storages.insert(storage);
    else
      everything = true;
  }
  bool empty() const { return !everything && storages.empty(); }
  bool clobbers(Value tensor) const {
    if (empty())
      return false;
    if (everything)
      return true;
    Value storage = getStorage(tensor);
    return !storage || storages.contains(storage);
  }
};

WriteSet collectWrites(LoopOp loop) {
  WriteSet writes;
  loop.getBody().walk([&](Operation *op) {
    if (auto atomic = dyn_cast<AtomicAddOp>(op))
      return writes.addTensor(atomic.getDst());
    if (auto assemble = dyn_cast<AssembleOp>(op))
      return writes.addTensor(assemble.getDst());
    // Nested ops are visited by the walk themselves.
    if (op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      return;
    auto iface = dyn_cast<MemoryEffectOpInterface>(op);
    if (!iface) {
      writes.everything = true;
      return;
    }
    SmallVector<MemoryEffects::EffectInstance> effects;
    iface.getEffects(effects);
    for (const MemoryEffects::EffectInstance &effect : effects) {
      if (!isa<MemoryEffects::Write>(effect.getEffect()))
        continue;
      if (Value value = effect.getValue();
          value && isa<GMTensorType>(value.getType()))
        writes.addTensor(value);
      else
        writes.everything = true;
    }
  });
  return writes;
}

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
  /// (rules 2 and 3; invariance is checked by the caller).
  bool isHoistable(Operation *op, const WriteSet &writes, bool nonEmpty) {
    if (op->getNumRegions() || op->hasTrait<OpTrait::IsTerminator>() ||
        op->getNumResults() == 0)
      return false;
    bool mayRunZeroTimes = !nonEmpty;
    if (auto view = dyn_cast<ViewOp>(op)) {
      // A view of GM reads the tensor; a view of a tile is a value. Both
      // fault in pto-run on offsets or explicit extents out of range.
      if (isa<GMTensorType>(view.getSource().getType()) &&
          writes.clobbers(view.getSource()))
        return false;
      return !mayRunZeroTimes || speculateReads;
    }
    if (auto read = dyn_cast<ReadOp>(op)) {
      if (writes.clobbers(read.getTensor()))
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

  bool
  hoistFrom(LoopOp loop,
            llvm::MapVector<Operation *, SmallVector<StringRef, 2>> &hoisted) {
    Region &body = loop.getBody();
    WriteSet writes = collectWrites(loop);
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
