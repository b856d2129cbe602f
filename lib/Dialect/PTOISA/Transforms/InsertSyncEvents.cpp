//===- InsertSyncEvents.cpp - flags, barriers and event ids ---------------===//
//
// pto-isa-insert-sync's placement of set_flag/wait_flag pairs (ordinary and
// loop-carried) and pipe barriers, and the choice of event ids from the
// records of each block (InsertSync.cpp describes the model).
//
//===----------------------------------------------------------------------===//

#include "InsertSync.h"

using namespace mlir;
using namespace mlir::ptoisa;
using namespace mlir::ptoisa::insert_sync;

void Inserter::insertBarrier(State &st, Operation *w, Pipe pipe) {
  builder.setInsertionPoint(w);
  placed(PipeBarrierOp::create(builder, w->getLoc(), pipe));
  if (pipe == Pipe::ALL) {
    ++stats.barriersAll;
    for (Bits &covered : st.covered)
      covered |= st.issued;
    return;
  }
  ++stats.barriersV;
  unsigned p = static_cast<unsigned>(pipe);
  st.covered[p].orAnd(st.issued, pipeMask[p]);
}

uint8_t Inserter::occupied(BlockCtx &ctx, unsigned pair, Operation *x,
                           Operation *w) {
  return ctx.forbidden[pair] | pendingAfter(ctx, pair, x, w);
}

uint8_t Inserter::pendingAfter(BlockCtx &ctx, unsigned pair, Operation *x,
                               Operation *w) {
  uint8_t taken = 0;
  for (unsigned id = 0; id < 8; ++id) {
    Operation *region = ctx.lastRegion[pair][id];
    if (region == w)
      region = ctx.prevRegion[pair][id];
    if (ctx.endsWithBlock[pair][id] ||
        (ctx.lastEnd[pair][id] && before(x, ctx.lastEnd[pair][id])) ||
        (region && before(x, region)))
      taken |= uint8_t(1u << id);
  }
  return taken;
}

void Inserter::addRecord(BlockCtx &ctx, Record record) {
  ctx.records.push_back(record);
  if (record.start && record.start == record.end) {
    // A region op's record; they come in walk order.
    Operation *&last = ctx.lastRegion[record.pair][record.id];
    if (last != record.start) {
      ctx.prevRegion[record.pair][record.id] = last;
      last = record.start;
    }
    return;
  }
  if (!record.end) {
    ctx.endsWithBlock[record.pair][record.id] = true;
    return;
  }
  Operation *&last = ctx.lastEnd[record.pair][record.id];
  if (!last || before(last, record.end))
    last = record.end;
}

static unsigned lowestFree(uint8_t taken) {
  for (unsigned id = 0; id < 8; ++id)
    if (!(taken & (1u << id)))
      return id;
  return 8;
}

void Inserter::dropReissuedBelow(BlockCtx &cur, BlockCtx &owner, Bits &known) {
  // The ids each block anchored, not a scan of every access per block: a
  // flag from deep inside a long function costs what those blocks issued.
  for (BlockCtx *d = &cur; d && d != &owner; d = d->parent) {
    for (unsigned id : d->anchored)
      known.reset(id);
    if (d->loop)
      known.reset(d->carried);
  }
}

bool Inserter::insertFlag(BlockCtx *cur, BlockCtx &ctx, State &st, unsigned q,
                          unsigned p, Operation *x, Operation *w) {
  unsigned pair = pairOf(q, p);
  Operation *setAfter = x;
  uint8_t taken = occupied(ctx, pair, x, w);
  if (taken == 0xff) {
    // All eight in flight: set later, once one of them is consumed.
    SmallVector<Operation *> ends;
    for (const Record &r : ctx.records)
      if (r.pair == pair && r.end && before(x, r.end) && before(r.end, w))
        ends.push_back(r.end);
    llvm::sort(ends, [&](Operation *a, Operation *b) { return before(a, b); });
    setAfter = nullptr;
    for (Operation *end : ends) {
      taken = occupied(ctx, pair, end, w);
      if (taken != 0xff) {
        setAfter = end;
        break;
      }
    }
    if (!setAfter)
      return false;
  }
  unsigned id = lowestFree(taken);
  auto src = static_cast<Pipe>(q), dst = static_cast<Pipe>(p);
  builder.setInsertionPointAfter(ctx.pointAfter(setAfter));
  auto set = placed(SetFlagOp::create(builder, x->getLoc(), src, dst, id));
  builder.setInsertionPoint(w);
  auto wait = placed(WaitFlagOp::create(builder, w->getLoc(), src, dst, id));
  addRecord(ctx, {pair, id, set, wait});
  ctx.used[pair] |= uint8_t(1u << id);
  // The snapshot speaks of the instances issued up to x; an access issued
  // again since then (a later instruction of the block, or a carried access
  // of the loop re-issued in this iteration) is a new instance it does not
  // cover.
  Bits known = Bits::unpack(ctx.after[x].bits[q], numIds());
  // Only an access issued before x and anchored again after it can be such
  // an instance: those of `reanchored` past x (a suffix), not every bit.
  auto from = llvm::partition_point(ctx.reanchored, [&](const auto &entry) {
    return !before(x, entry.second);
  });
  for (const auto &entry : llvm::make_range(from, ctx.reanchored.end()))
    known.reset(entry.first);
  // Waited before a region op from inside it: what ran inside it since is
  // not covered either.
  dropReissuedBelow(*cur, ctx, known);
  st.covered[p] |= known;
  ++stats.flags;
  return true;
}

bool Inserter::insertCarriedFlag(BlockCtx *cur, BlockCtx &ctx, State &st,
                                 unsigned q, unsigned p, Operation *w,
                                 const Bits &needed) {
  // Set after the last needed access of q in the body; it must not precede
  // the wait, or the iteration would set twice.
  Operation *x = nullptr;
  for (unsigned id : needed.set_bits())
    if (pipes[id] == q && !ctx.anchor[id] && ctx.carried.test(id) &&
        (!x || before(x, ctx.topAnchor[id])))
      x = ctx.topAnchor[id];
  if (!x || before(x, w))
    return false;
  unsigned pair = pairOf(q, p);
  // The triple is taken for the whole loop: every interval of the body and
  // whatever spans the loop outside.
  uint8_t taken = ctx.forbidden[pair] | ctx.used[pair];
  if (taken == 0xff)
    return false;
  unsigned id = lowestFree(taken);
  auto src = static_cast<Pipe>(q), dst = static_cast<Pipe>(p);
  Operation *loop = ctx.loop;
  builder.setInsertionPoint(loop);
  auto prime = placed(SetFlagOp::create(builder, loop->getLoc(), src, dst, id));
  BlockCtx &parent = *ctx.parent;
  builder.setInsertionPointAfter(parent.pointAfter(loop));
  auto drain =
      placed(WaitFlagOp::create(builder, loop->getLoc(), src, dst, id));
  parent.epilogueEnd[loop] = drain;
  builder.setInsertionPoint(w);
  placed(WaitFlagOp::create(builder, w->getLoc(), src, dst, id));
  builder.setInsertionPointAfter(ctx.pointAfter(x));
  placed(SetFlagOp::create(builder, x->getLoc(), src, dst, id));
  addRecord(ctx, {pair, id, nullptr, nullptr});
  ctx.used[pair] |= uint8_t(1u << id);
  addRecord(*ctx.parent, {pair, id, prime, drain});
  ctx.parent->used[pair] |= uint8_t(1u << id);
  ctx.carriedFlags.push_back({q, p, x});
  // The previous iteration's accesses of q up to the set (not those that
  // ran again inside the region op the wait precedes).
  Bits orderedNow(numIds());
  for (unsigned id : ctx.carried.set_bits())
    if (pipes[id] == q && !ctx.anchor[id] && !before(x, ctx.topAnchor[id]))
      orderedNow.set(id);
  dropReissuedBelow(*cur, ctx, orderedNow);
  st.covered[p] |= orderedNow;
  // And what q issued before the loop: the prime (first iteration) and the
  // set of the previous iteration both come after it.
  Bits issuedBefore = st.issued;
  issuedBefore &= pipeMask[q];
  issuedBefore.reset(ctx.carried);
  st.covered[p] |= issuedBefore;
  ++stats.flags;
  ++stats.carriedFlags;
  return true;
}
