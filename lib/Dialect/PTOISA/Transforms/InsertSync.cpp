//===- InsertSync.cpp - set_flag/wait_flag and pipe barriers
//---------------===//
//
// Orders every pair of conflicting pto_isa instructions under the pipe model
// of docs/ISA.md "Synchronisation" (also the pass description in Passes.td):
//
//   * An access is one (instruction, buffer, read/write) triple; two accesses
//     conflict when their buffers may share a byte and one of them writes.
//   * The pass walks each function in program order keeping, per pipe p, the
//     set `covered[p]` of accesses p is known to be ordered after (the
//     compile-time image of the emulator's vector clocks). A set_flag q -> p
//     placed after instruction X carries q's knowledge at X (everything q
//     issued up to X plus covered[q] there); the wait joins it into
//     covered[p]. This gives transitive redundancy removal for free.
//   * Before an instruction (or a region op) on pipe p, every issued,
//     conflicting, uncovered access on another pipe q needs a flag q -> p.
//     The flag is set right after the latest such access of q and waited
//     right before the instruction; one flag covers all of q's accesses up
//     to that point. Same-pipe hazards only matter on V: pipe_barrier V.
//   * Control flow: a flag lives in the block that issued the earlier access
//     (set after it, or after the region op holding it) and is waited right
//     before the later instruction, or before the op of that block holding
//     it; so no flag crosses a region boundary and flags pair up on every
//     path. The exception are the loop-carried WAR/RAW/WAW flags of
//     scf.for: set after the access in iteration i, waited before the
//     conflicting access of iteration i + 1, primed by a set_flag before the
//     loop and drained by a wait_flag after it (double buffering,
//     docs/AscendTarget.md#synchronisation). Other region ops get pipe_barrier
//     ALL around them and at the start of each block.
//   * Event ids: per block a list of occupied (src, dst, id) intervals; a
//     flag takes the lowest id free over its whole interval, including every
//     id used inside a region op it spans and every interval of an enclosing
//     block that spans the block. When all 8 are taken the set moves later,
//     after the wait of an occupied interval; failing that, pipe_barrier ALL.
//
//===----------------------------------------------------------------------===//

#include "InsertSync.h"

#include "pto/Dialect/PTOISA/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Interfaces/CallInterfaces.h"

namespace mlir::ptoisa {
#define GEN_PASS_DEF_INSERTSYNCPASS
#include "pto/Dialect/PTOISA/Transforms/Passes.h.inc"
} // namespace mlir::ptoisa

using namespace mlir;
using namespace mlir::ptoisa;
using namespace mlir::ptoisa::insert_sync;

LogicalResult Inserter::run() {
  // The pass owns synchronisation: what an earlier run (or a hand) put in
  // is recomputed, which also makes the pass idempotent.
  SmallVector<Operation *> stale;
  func->walk([&](Operation *op) {
    if (sync::isSyncOp(op))
      stale.push_back(op);
  });
  for (Operation *op : stale)
    op->erase();

  collect();
  if (numIds() == 0)
    return success();
  Region &body = func.getFunctionBody();
  if (!body.hasOneBlock())
    return func.emitOpError()
           << "pto-isa-insert-sync handles functions of one block (structured "
              "control flow); lower cf branches to scf first";

  BlockCtx root;
  root.block = &body.front();
  root.anchor.assign(numIds(), nullptr);
  State st;
  st.issued.resize(numIds());
  for (Bits &bits : st.covered)
    bits.resize(numIds());
  processBlock(root, st);
  return failure(failedWalk);
}

void Inserter::recordAfter(BlockCtx &ctx, State &st, Operation *op) {
  Snapshot &snap = ctx.after[op];
  // A flag set after an instruction hands on its own pipe's knowledge only
  // (the access that needs it was issued by the instruction): one snapshot,
  // not one per pipe. Each costs the chunks after covered[q]'s leading
  // all-ones run (far behind the walk everything is ordered), not n bits.
  if (std::optional<Pipe> pipe = sync::getInstructionPipe(op)) {
    unsigned q = static_cast<unsigned>(*pipe);
    snap.bits[q] = st.covered[q].packedOrAnd(st.issued, pipeMask[q]);
    return;
  }
  for (unsigned q = 0; q < kNumPipes; ++q)
    snap.bits[q] = st.covered[q].packedOrAnd(st.issued, pipeMask[q]);
}

void Inserter::processBlock(BlockCtx &ctx, State &st) {
  SmallVector<Operation *> ops;
  for (Operation &op : ctx.block->without_terminator())
    ops.push_back(&op);
  for (Operation *op : ops) {
    if (sync::getInstructionPipe(op)) {
      auto it = opIds.find(op);
      if (it != opIds.end()) {
        resolve(ctx, st, op, it->second);
        for (unsigned id : it->second) {
          anchor(ctx, id, op, st.issued.test(id));
          st.issued.set(id);
          for (Bits &covered : st.covered)
            covered.reset(id);
        }
      }
      recordAfter(ctx, st, op);
      continue;
    }
    if (isa<CallOpInterface>(op)) {
      // The callee is synchronised on its own; around the call everything
      // completes (what we issued before it, what it issued).
      insertBarrier(st, op, Pipe::ALL);
      builder.setInsertionPointAfter(ctx.pointAfter(op));
      ctx.epilogueEnd[op] =
          placed(PipeBarrierOp::create(builder, op->getLoc(), Pipe::ALL));
      ++stats.barriersAll;
      recordAfter(ctx, st, op);
      continue;
    }
    auto it = regionIds.find(op);
    if (it == regionIds.end() || it->second.none())
      continue;
    const Bits &inside = it->second;
    SmallVector<unsigned> insideIds, wasIssued;
    for (unsigned id : inside.set_bits()) {
      insideIds.push_back(id);
      if (st.issued.test(id))
        wasIssued.push_back(id);
    }
    if (auto ifOp = dyn_cast<scf::IfOp>(op))
      processIf(ctx, st, ifOp);
    else if (auto forOp = dyn_cast<scf::ForOp>(op))
      processFor(ctx, st, forOp);
    else
      processOpaque(ctx, st, op);
    for (unsigned id : insideIds)
      anchor(ctx, id, op, false);
    for (unsigned id : wasIssued)
      ctx.reanchored.push_back({id, op});
    recordAfter(ctx, st, op);
  }
}

void Inserter::anchor(BlockCtx &ctx, unsigned id, Operation *op,
                      bool wasIssued) {
  ctx.anchor[id] = op;
  ctx.anchored.push_back(id);
  if (wasIssued)
    ctx.reanchored.push_back({id, op});
}

void Inserter::makeChild(BlockCtx &parent, BlockCtx &child, Operation *op,
                         Block *block) {
  child.block = block;
  child.parent = &parent;
  child.regionOp = op;
  child.anchor.assign(numIds(), nullptr);
  for (unsigned pair = 0; pair < kNumPipes * kNumPipes; ++pair)
    child.forbidden[pair] = parent.forbidden[pair];
  // Triples pending across `op` in the parent stay taken inside it.
  for (unsigned pair = 0; pair < kNumPipes * kNumPipes; ++pair)
    if (parent.used[pair])
      child.forbidden[pair] |= pendingAfter(parent, pair, op, op);
}

void Inserter::finishChild(BlockCtx &parent, BlockCtx &child, Operation *op) {
  for (unsigned pair = 0; pair < kNumPipes * kNumPipes; ++pair) {
    uint8_t used = child.used[pair];
    if (!used)
      continue;
    parent.used[pair] |= used;
    for (unsigned id = 0; id < 8; ++id)
      if (used & (1u << id))
        addRecord(parent, {pair, id, op, op});
  }
}

void Inserter::processIf(BlockCtx &ctx, State &st, scf::IfOp op) {
  State entry = st;
  BlockCtx thenCtx;
  makeChild(ctx, thenCtx, op, op.thenBlock());
  processBlock(thenCtx, st);
  finishChild(ctx, thenCtx, op);
  State other = entry;
  if (Block *elseBlock = op.elseBlock()) {
    BlockCtx elseCtx;
    makeChild(ctx, elseCtx, op, elseBlock);
    processBlock(elseCtx, other);
    finishChild(ctx, elseCtx, op);
  }
  // Known after the if: what is known on both paths.
  st.issued |= other.issued;
  for (unsigned p = 0; p < kNumPipes; ++p)
    st.covered[p] &= other.covered[p];
}

void Inserter::processFor(BlockCtx &ctx, State &st, scf::ForOp op) {
  State entry = st;
  Block *body = op.getBody();
  BlockCtx bodyCtx;
  makeChild(ctx, bodyCtx, op, body);
  bodyCtx.loop = op;
  bodyCtx.carried = regionIds[op];
  bodyCtx.topAnchor.assign(numIds(), nullptr);
  for (unsigned id : bodyCtx.carried.set_bits())
    bodyCtx.topAnchor[id] = body->findAncestorOpInBlock(*owners[id]);
  // At the top of an iteration the body's accesses of the previous
  // iteration are issued and, conservatively, ordered before nothing.
  for (unsigned id : bodyCtx.carried.set_bits()) {
    st.issued.set(id);
    for (Bits &covered : st.covered)
      covered.reset(id);
  }
  processBlock(bodyCtx, st);
  finishChild(ctx, bodyCtx, op);
  // After the loop: what holds after zero iterations and after the last.
  st.issued |= entry.issued;
  for (unsigned p = 0; p < kNumPipes; ++p)
    st.covered[p] &= entry.covered[p];
  // A drained carried flag q -> p orders p after q's last set: after every
  // access q issued before the loop and, in the body, up to the set.
  for (const CarriedFlag &flag : bodyCtx.carriedFlags) {
    Bits drained = entry.issued;
    drained.reset(bodyCtx.carried);
    drained &= pipeMask[flag.q];
    for (unsigned id : bodyCtx.carried.set_bits())
      if (pipes[id] == flag.q && !before(flag.setAfter, bodyCtx.topAnchor[id]))
        drained.set(id);
    st.covered[flag.p] |= drained;
  }
}

void Inserter::processOpaque(BlockCtx &ctx, State &st, Operation *op) {
  // Unknown control flow: everything before is complete when it starts,
  // each block starts drained (so iterations cannot overlap) and nothing
  // inside overlaps what follows.
  insertBarrier(st, op, Pipe::ALL);
  for (Region &region : op->getRegions()) {
    if (region.empty())
      continue;
    if (!region.hasOneBlock()) {
      op->emitOpError() << "pto-isa-insert-sync handles regions of one block; "
                           "this region has "
                        << region.getBlocks().size();
      failedWalk = true;
      return;
    }
    Block &block = region.front();
    if (block.without_terminator().empty())
      continue;
    State inner = st;
    insertBarrier(inner, &block.front(), Pipe::ALL);
    inner.issued |= regionIds[op];
    for (Bits &covered : inner.covered)
      covered = inner.issued;
    BlockCtx child;
    makeChild(ctx, child, op, &block);
    processBlock(child, inner);
    finishChild(ctx, child, op);
  }
  st.issued |= regionIds[op];
  builder.setInsertionPointAfter(ctx.pointAfter(op));
  ctx.epilogueEnd[op] =
      placed(PipeBarrierOp::create(builder, op->getLoc(), Pipe::ALL));
  ++stats.barriersAll;
  for (Bits &covered : st.covered)
    covered = st.issued;
}

void Inserter::resolve(BlockCtx &ctx, State &st, Operation *w,
                       ArrayRef<unsigned> sinks) {
  const unsigned vPipe = static_cast<unsigned>(Pipe::V);
  for (unsigned p = 0; p < kNumPipes; ++p) {
    // An instruction's accesses are all on its pipe: skip the others
    // before building an n-bit set for them.
    if (llvm::none_of(sinks, [&](unsigned b) { return pipes[b] == p; }))
      continue;
    SmallVector<const Bits::Packed *, 4> rows;
    for (unsigned b : sinks)
      if (pipes[b] == p)
        rows.push_back(&conflictsWith(b));
    // The issued accesses that conflict with a sink and that p is not
    // ordered after, chunk by chunk: the chunks where nothing is issued or
    // everything is covered (all of them far behind the walk) cost a look at
    // two pointers, not a union of the sinks' conflict rows.
    auto need = [&]() {
      constexpr unsigned kWords = Bits::kWords;
      Bits bits(numIds());
      uint64_t issuedScratch[kWords], coveredScratch[kWords],
          ownScratch[kWords], rowScratch[kWords], words[kWords];
      for (unsigned k = st.covered[p].leadingFull(), e = st.issued.nonZeroEnd();
           k < e; ++k) {
        if (st.issued.chunkNone(k) || st.covered[p].chunkAll(k))
          continue;
        const uint64_t *issued = st.issued.chunkWords(k, issuedScratch);
        const uint64_t *covered = st.covered[p].chunkWords(k, coveredScratch);
        // Other pipes than V run their instructions in order.
        const uint64_t *own =
            p != vPipe ? pipeMask[p].chunkWords(k, ownScratch) : nullptr;
        unsigned used = st.issued.wordsIn(k);
        uint64_t any = 0;
        for (unsigned w = 0; w < used; ++w) {
          words[w] = issued[w] & ~covered[w] & (own ? ~own[w] : ~uint64_t(0));
          any |= words[w];
        }
        if (!any)
          continue;
        uint64_t reach[kWords];
        std::memset(reach, 0, sizeof(uint64_t) * used);
        for (const Bits::Packed *row : rows) {
          if (row->chunkNone(k))
            continue;
          const uint64_t *rowWords = row->chunkWords(k, rowScratch);
          for (unsigned w = 0; w < used; ++w)
            reach[w] |= rowWords[w];
        }
        any = 0;
        for (unsigned w = 0; w < used; ++w) {
          words[w] &= reach[w];
          any |= words[w];
        }
        if (any)
          bits.setChunk(k, words);
      }
      return bits;
    };
    Bits initial = need();
    if (initial.none())
      continue;
    for (const Bits::Packed *row : rows)
      stats.hazards += initial.countAnd(*row);
    while (true) {
      Bits bits = need();
      if (bits.none())
        break;
      // Each unordered access belongs to the innermost block that issued it
      // (its current instance) or whose loop carries it; the flag lives in
      // that block, waited right before the op holding the instruction. The
      // innermost owner goes first: its set is the latest, so it may cover
      // the others transitively.
      BlockCtx *best = nullptr;
      Operation *bestW = nullptr, *bestX = nullptr;
      unsigned bestQ = 0, bestDepth = ~0u;
      bool bestCarried = false, fallback = false;
      for (unsigned id : bits.set_bits()) {
        unsigned q = pipes[id];
        if (q == p)
          continue; // V after V: a barrier, below
        BlockCtx *owner = &ctx;
        Operation *at = w;
        unsigned depth = 0;
        bool carried = false;
        while (owner) {
          if (owner->anchor[id])
            break;
          if (owner->loop && owner->carried.test(id)) {
            carried = true;
            break;
          }
          at = owner->regionOp;
          owner = owner->parent;
          ++depth;
        }
        if (!owner) {
          // Not expected (every issued access has an owner on the chain);
          // a full barrier is always correct.
          fallback = true;
          continue;
        }
        Operation *x = carried ? owner->topAnchor[id] : owner->anchor[id];
        bool better =
            depth < bestDepth ||
            (depth == bestDepth && !carried && bestCarried) ||
            (depth == bestDepth && carried == bestCarried && before(bestX, x));
        if (!best || better) {
          best = owner;
          bestW = at;
          bestX = x;
          bestQ = q;
          bestDepth = depth;
          bestCarried = carried;
        }
      }
      if (fallback) {
        insertBarrier(st, w, Pipe::ALL);
        break;
      }
      if (best) {
        bool ok;
        if (bestCarried) {
          // The accesses of q this loop carries into the owner's block.
          Bits owned(numIds());
          for (unsigned id : bits.set_bits())
            if (pipes[id] == bestQ && !best->anchor[id] &&
                best->carried.test(id))
              owned.set(id);
          ok = insertCarriedFlag(&ctx, *best, st, bestQ, p, bestW, owned);
        } else {
          ok = insertFlag(&ctx, *best, st, bestQ, p, bestX, bestW);
        }
        // A flag that ordered nothing new would repeat forever.
        if (ok && need() == bits)
          ok = false;
        if (!ok) {
          insertBarrier(st, w, Pipe::ALL);
          break;
        }
        continue;
      }
      insertBarrier(st, w, Pipe::V);
      break;
    }
  }
}

namespace {
struct InsertSyncPass
    : public ptoisa::impl::InsertSyncPassBase<InsertSyncPass> {
  using InsertSyncPassBase::InsertSyncPassBase;

  LogicalResult initialize(MLIRContext *context) override {
    if (mixLeaves != "all" && mixLeaves != "skip" && mixLeaves != "only")
      return emitError(UnknownLoc::get(context))
             << "pto-isa-insert-sync: mix-leaves=" << mixLeaves
             << " is none of all, skip, only";
    return success();
  }

  /// A MIX leaf (`pto.leaf = #pto.core<mix>`, split or not) or the AIV part
  /// of one (`pto.mix_aic`).
  static bool isMixPart(Operation *func) {
    auto kind = func->getAttrOfType<pto::CoreKindAttr>("pto.leaf");
    return (kind && kind.getValue() == pto::CoreKind::mix) ||
           func->hasAttr(kMixAicAttrName);
  }

  void runOnOperation() override {
    bool failed = false, synchronised = false;
    auto synchronise = [&](FunctionOpInterface func) {
      // Functions with instructions or with stale sync ops (which the
      // inserter drops and recomputes: a function of flags alone ends up
      // without any) are the pass's business.
      bool hasIsaOps = false;
      func->walk([&](Operation *op) {
        if (sync::getInstructionPipe(op) ||
            isa<SetFlagOp, WaitFlagOp, PipeBarrierOp>(op))
          hasIsaOps = true;
      });
      if (!hasIsaOps)
        return;
      synchronised = true;
      Stats stats;
      Inserter inserter(func, stats);
      if (mlir::failed(inserter.run())) {
        failed = true;
        return;
      }
      if (report)
        func.emitRemark() << "pto-isa-insert-sync: " << stats.flags
                          << " flags (" << stats.carriedFlags
                          << " loop-carried), " << stats.barriersV
                          << " pipe_barrier V, " << stats.barriersAll
                          << " pipe_barrier ALL, " << stats.hazards
                          << " hazards resolved";
    };
    if (mixLeaves == "only") {
      // Other functions' bodies are not read.
      getOperation()->walk<WalkOrder::PreOrder>([&](Operation *op) {
        auto func = dyn_cast<FunctionOpInterface>(op);
        if (!func)
          return WalkResult::advance();
        if (isMixPart(func))
          synchronise(func);
        return WalkResult::skip();
      });
    } else {
      getOperation()->walk([&](FunctionOpInterface func) {
        if (mixLeaves != "skip" || !isMixPart(func))
          synchronise(func);
      });
    }
    if (failed)
      return signalPassFailure();
    if (!synchronised)
      markAllAnalysesPreserved();
  }
};
} // namespace
