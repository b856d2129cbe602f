//===- UnrollCarriedLoops.cpp - several iterations of a carried loop per body //
//
// A `pto.loop` whose iterations carry values (iter_args) runs one iteration
// after the other: its body is one root instance at a time, so each
// iteration's tasks are launched on their own even where most of their work
// does not read the carry (SK-01's kv loop: Q K^T, the softmax and P V of a
// kv tile depend only on that tile; only the online-softmax update reads the
// accumulators). The loops of the kernel that carry nothing already run their
// iterations as concurrent root instances, so this pass leaves them alone.
//
// With factor u, a carried innermost loop `for i = lb to ub step s` becomes
//
//   for i = lb to lb + (n - n % u) * s step u * s   // u copies of the body
//   for i = lb + (n - n % u) * s to ub step s        // the original body
//
// (n the trip count), the second loop carrying on from the first one's
// results; with more factors (PyPTO's unroll_list: 64, 16, 4) the second
// loop is unrolled again by the next one, and so on. In copy j of the first
// loop, is_loop_begin is false for j > 0 and `i == lb` for j = 0, is_loop_end
// is false for j < u - 1 and `i + u * s >= ub` for j = u - 1 (a chunk never
// ends early: the first loop runs whole chunks only); an scf.if on a condition
// that became a constant is replaced by its taken branch. Then, in the unrolled
// body, every op that reads neither an scf.if's results nor anything computed
// from them moves above the first such scf.if, keeping its order, when it
// writes no GM and no op it passes writes GM it may read: the carry-independent
// work of all u iterations then lies in one run of ops that pto-partition cuts
// into tasks together, and the task merges (L1 reuse, n-buffering) give one
// cube task several kv tiles with Q resident. Ops are copied, not changed, and
// each copy runs in its original order relative to the ops it depends on, so
// the outputs are bitwise those of the loop as written.
//
//===----------------------------------------------------------------------===//

#include "pto/Dialect/PTO/Analysis/GMAccess.h"
#include "pto/Dialect/PTO/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::pto {
#define GEN_PASS_DEF_UNROLLCARRIEDLOOPSPASS
#include "pto/Dialect/PTO/Transforms/Passes.h.inc"
} // namespace mlir::pto

using namespace mlir;
using namespace mlir::pto;

/// Replaces every scf.if in `block` (nested ones included) whose condition
/// is a constant by the ops of its taken branch.
static void inlineConstantIfs(Block &block) {
  SmallVector<scf::IfOp> ifs;
  // Post-order: an inner if is inlined into its branch before the outer one
  // moves that branch.
  block.walk([&](scf::IfOp ifOp) { ifs.push_back(ifOp); });
  for (scf::IfOp ifOp : ifs) {
    APInt value;
    if (!matchPattern(ifOp.getCondition(), m_ConstantInt(&value)))
      continue;
    Region &taken =
        value.isZero() ? ifOp.getElseRegion() : ifOp.getThenRegion();
    if (taken.empty()) { // no else branch: no results, nothing runs
      ifOp.erase();
      continue;
    }
    Block &branch = taken.front();
    auto yield = cast<scf::YieldOp>(branch.getTerminator());
    SmallVector<Value> results(yield.getOperands());
    ifOp->getBlock()->getOperations().splice(
        ifOp->getIterator(), branch.getOperations(), branch.begin(),
        yield->getIterator());
    ifOp.replaceAllUsesWith(results);
    ifOp.erase();
  }
}

/// Whether every effect of `op` is a GM read (or it has none).
static bool onlyReadsGM(Operation *op) {
  if (isMemoryEffectFree(op))
    return true;
  auto iface = dyn_cast<MemoryEffectOpInterface>(op);
  if (!iface)
    return false;
  SmallVector<MemoryEffects::EffectInstance> effects;
  iface.getEffects(effects);
  return llvm::all_of(effects, [](const MemoryEffects::EffectInstance &e) {
    Value value = e.getValue();
    return isa<MemoryEffects::Read>(e.getEffect()) && value &&
           isa<GMTensorType>(value.getType());
  });
}

/// Moves the ops of `body` that depend on no scf.if (and on no op that stays
/// below one) above the first scf.if, in order (see the file comment).
static unsigned hoistAboveBranches(Block &body, GMAccessAnalysis &gm) {
  Operation *firstBranch = nullptr;
  for (Operation &op : body.without_terminator())
    if (op.getNumRegions()) {
      firstBranch = &op;
      break;
    }
  if (!firstBranch)
    return 0;
  // Values computed by the ops that stay below the first branch.
  llvm::DenseSet<Value> staying;
  // What the staying ops may write.
  GMAccessSummary writes;
  unsigned moved = 0;
  auto stay = [&](Operation *op) {
    staying.insert(op->result_begin(), op->result_end());
    GMAccessSummary summary = gm.summarize(op);
    writes.unknown |= summary.unknown;
    for (GMAccess &access : summary.accesses)
      if (access.writes())
        writes.accesses.push_back(access);
  };
  for (Operation &op : llvm::make_early_inc_range(llvm::make_range(
           firstBranch->getIterator(), body.without_terminator().end()))) {
    bool independent =
        !op.getNumRegions() &&
        llvm::none_of(op.getOperands(),
                      [&](Value v) { return staying.contains(v); }) &&
        onlyReadsGM(&op);
    if (independent && !isMemoryEffectFree(&op)) {
      GMAccessSummary reads = gm.summarize(&op);
      independent = !writes.unknown && !reads.unknown &&
                    llvm::none_of(reads.accesses, [&](const GMAccess &read) {
                      return GMAccessAnalysis::clobbers(writes, read);
                    });
    }
    if (!independent) {
      stay(&op);
      continue;
    }
    op.moveBefore(firstBranch);
    ++moved;
  }
  return moved;
}

/// Whether the iterations of `loop` are ordered: it has iter_args, or GM
/// that one iteration writes may be accessed by another. Over every
/// iteration at once an offset computed from the index is unknown, so a
/// plain write always meets itself: any plain write counts, as does an
/// atomic add to a storage the loop also reads (atomics among themselves
/// commute). Linear in the accesses, conservative.
static bool carriesAcrossIterations(LoopOp loop, GMAccessAnalysis &gm) {
  if (!loop.getInitArgs().empty())
    return true;
  GMAccessSummary all = gm.summarize(loop, &loop.getBody());
  if (all.unknown)
    return true;
  llvm::DenseSet<Value> atomicStorages;
  bool atomicUnknownStorage = false;
  for (const GMAccess &access : all.accesses) {
    if (access.kind & GMAccess::kWrite)
      return true;
    if (!(access.kind & GMAccess::kAtomic))
      continue;
    if (access.storage)
      atomicStorages.insert(access.storage);
    else
      atomicUnknownStorage = true;
  }
  if (atomicStorages.empty() && !atomicUnknownStorage)
    return false;
  return llvm::any_of(all.accesses, [&](const GMAccess &access) {
    return (access.kind & GMAccess::kRead) &&
           (atomicUnknownStorage || !access.storage ||
            atomicStorages.contains(access.storage));
  });
}

namespace {

struct UnrollCarriedLoopsPass
    : public pto::impl::UnrollCarriedLoopsPassBase<UnrollCarriedLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<int64_t> chunks;
    for (int64_t factor : factors) {
      if (factor < 1) {
        getOperation()->emitError()
            << "pto-unroll-carried-loops: factor " << factor
            << " is not a positive unroll factor; give factors >= 1 (1 "
               "leaves the loops as written)";
        return signalPassFailure();
      }
      if (factor > 1)
        chunks.push_back(factor);
    }
    if (chunks.empty())
      return;
    SmallVector<LoopOp> loops;
    GMAccessAnalysis gm(getOperation());
    getOperation()->walk([&](LoopOp loop) {
      bool innermost =
          !loop.getBody()
               .walk([](LoopOp) { return WalkResult::interrupt(); })
               .wasInterrupted();
      if (innermost && carriesAcrossIterations(loop, gm))
        loops.push_back(loop);
    });
    for (LoopOp loop : loops)
      unroll(loop, chunks, loop.getLowerBound());
  }

  /// Unrolls `loop` by `factors.front()`, then its rest by the next factor,
  /// and so on. `begin` is the first index of the loop as written, where
  /// is_loop_begin holds.
  void unroll(LoopOp loop, ArrayRef<int64_t> factors, Value begin) {
    const int64_t u = factors.front();
    Location loc = loop.getLoc();
    OpBuilder b(loop);
    Value lb = loop.getLowerBound(), ub = loop.getUpperBound(),
          step = loop.getStep();
    auto constant = [&](OpBuilder &at, int64_t v) -> Value {
      return arith::ConstantIndexOp::create(at, loc, v);
    };
    // Trip count n = ceil(max(ub - lb, 0) / step); whole chunks end at
    // lb + (n - n % u) * step.
    Value span = arith::MaxSIOp::create(
        b, loc, arith::SubIOp::create(b, loc, ub, lb), constant(b, 0));
    Value trips = arith::CeilDivSIOp::create(b, loc, span, step);
    Value cu = constant(b, u);
    Value chunkTrips = arith::MulIOp::create(
        b, loc, arith::DivSIOp::create(b, loc, trips, cu), cu);
    Value chunkEnd = arith::AddIOp::create(
        b, loc, lb, arith::MulIOp::create(b, loc, chunkTrips, step));
    Value chunkStep = arith::MulIOp::create(b, loc, step, cu);

    // The loop of whole chunks: u copies of the body.
    auto chunks = cast<LoopOp>(b.cloneWithoutRegions(*loop.getOperation()));
    chunks.getUpperBoundMutable().assign(chunkEnd);
    chunks.getStepMutable().assign(chunkStep);
    Block &original = loop.getBody().front();
    Block *body = new Block;
    chunks.getBody().push_back(body);
    for (BlockArgument arg : original.getArguments())
      body->addArgument(arg.getType(), arg.getLoc());
    OpBuilder bb = OpBuilder::atBlockEnd(body);
    Value first = body->getArgument(0);
    SmallVector<Value> carry(body->getArguments().drop_front());
    Value falseValue = arith::ConstantIntOp::create(bb, loc, 0, 1);
    Value isBegin =
        arith::CmpIOp::create(bb, loc, arith::CmpIPredicate::eq, first, begin);
    Value lastNext = arith::AddIOp::create(bb, loc, first, chunkStep);
    Value isEnd =
        arith::CmpIOp::create(bb, loc, arith::CmpIPredicate::sge, lastNext, ub);
    Value origIndex = original.getArgument(0);
    auto yield = cast<YieldOp>(original.getTerminator());
    for (int64_t j = 0; j < u; ++j) {
      Value index = first;
      if (j)
        index = arith::AddIOp::create(
            bb, loc, first,
            arith::MulIOp::create(bb, loc, step, constant(bb, j)));
      IRMapping map;
      map.map(origIndex, index);
      for (auto [arg, value] :
           llvm::zip(original.getArguments().drop_front(), carry))
        map.map(arg, value);
      Value copyBegin = j == 0 ? isBegin : falseValue;
      Value copyEnd = j == u - 1 ? isEnd : falseValue;
      for (Operation &op : original.without_terminator()) {
        if (isa<IsLoopBeginOp, IsLoopEndOp>(op) &&
            op.getOperand(0) == origIndex) {
          map.map(op.getResult(0),
                  isa<IsLoopBeginOp>(op) ? copyBegin : copyEnd);
          continue;
        }
        Operation *copy = bb.clone(op, map);
        // The predicates of this loop's index (an enclosing loop's stay).
        SmallVector<Operation *> predicates;
        copy->walk([&](Operation *nested) {
          if (isa<IsLoopBeginOp, IsLoopEndOp>(nested) &&
              nested->getOperand(0) == index)
            predicates.push_back(nested);
        });
        for (Operation *predicate : predicates) {
          predicate->getResult(0).replaceAllUsesWith(
              isa<IsLoopBeginOp>(predicate) ? copyBegin : copyEnd);
          predicate->erase();
        }
      }
      carry.clear();
      for (Value value : yield.getValues())
        carry.push_back(map.lookupOrDefault(value));
    }
    YieldOp::create(bb, loc, carry);
    inlineConstantIfs(*body);
    for (Value helper : {isEnd, lastNext, isBegin, falseValue})
      if (helper.use_empty())
        helper.getDefiningOp()->erase();

    // The rest: the original body from the first iteration no chunk ran,
    // carrying on from the chunks' results.
    b.setInsertionPoint(loop);
    auto rest = cast<LoopOp>(b.clone(*loop.getOperation()));
    rest.getLowerBoundMutable().assign(chunkEnd);
    rest.getInitArgsMutable().assign(chunks.getResults());
    loop.replaceAllUsesWith(rest.getResults());
    loop.erase();
    GMAccessAnalysis gm(getOperation());
    numOpsMoved += hoistAboveBranches(*body, gm);
    ++numLoopsUnrolled;
    if (factors.size() > 1)
      return unroll(rest, factors.drop_front(), begin);

    // The last rest: is_loop_begin is true at the loop's first index as
    // written, not at the rest's.
    Block &restBody = rest.getBody().front();
    Value restIndex = restBody.getArgument(0);
    SmallVector<IsLoopBeginOp> begins;
    restBody.walk([&](IsLoopBeginOp op) {
      if (op.getIndex() == restIndex)
        begins.push_back(op);
    });
    for (IsLoopBeginOp op : begins) {
      OpBuilder at(op);
      op.replaceAllUsesWith(arith::CmpIOp::create(at, loc,
                                                  arith::CmpIPredicate::eq,
                                                  restIndex, begin)
                                .getResult());
      op.erase();
    }
  }
};

} // namespace
