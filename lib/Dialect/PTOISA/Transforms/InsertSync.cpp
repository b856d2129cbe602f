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

#include "SyncModel.h"

#include "pto/Dialect/PTOISA/Transforms/Passes.h"
#include "pto/Support/BoxIndex.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseSet.h"

#include <array>
#include <map>

namespace mlir::ptoisa {
#define GEN_PASS_DEF_INSERTSYNCPASS
#include "pto/Dialect/PTOISA/Transforms/Passes.h.inc"
} // namespace mlir::ptoisa

using namespace mlir;
using namespace mlir::ptoisa;
using sync::kNumPipes;

namespace {
using Bits = llvm::BitVector;

/// What every pipe knows at a program point.
struct State {
  Bits issued;             // accesses with an instance issued on this path
  Bits covered[kNumPipes]; // accesses the pipe is ordered after
};

/// q's knowledge right after an op: what a set_flag q -> ... placed there
/// hands on (covered[q] plus everything q issued); after an instruction,
/// only for its own pipe.
struct Snapshot {
  Bits bits[kNumPipes];
};

/// A (src, dst, id) triple occupied from `start` to `end` (ops of the block;
/// null start/end: the block's start/end). A region op R appears as [R, R]
/// for every triple used inside it.
struct Record {
  unsigned pair;
  unsigned id;
  Operation *start, *end;
};

struct Stats {
  unsigned flags = 0, carriedFlags = 0, barriersV = 0, barriersAll = 0,
           hazards = 0;
};

struct CarriedFlag {
  unsigned q, p;
  Operation *setAfter;
};

/// The block being walked.
struct BlockCtx {
  Block *block = nullptr;
  BlockCtx *parent = nullptr;
  Operation *regionOp = nullptr;   // the op holding `block` (null: function)
  scf::ForOp loop;                 // set: `block` is this loop's body
  SmallVector<Operation *> anchor; // id -> op of `block` that issued it last
  /// The ids anchored in `block`, in walk order (a region op's after it).
  SmallVector<unsigned> anchored;
  /// The (id, op) anchorings of ids already issued when `op` began: a new
  /// instance of an access an earlier snapshot of this block may hold (the
  /// loop body's carried accesses, ids issued before an enclosing op). In
  /// block order of the ops.
  SmallVector<std::pair<unsigned, Operation *>> reanchored;
  DenseMap<Operation *, Snapshot> after;
  SmallVector<Record> records;
  /// Per (pair, id), for the records of flags: the latest end in block
  /// order (null: none) and whether one ends with the block (a null end);
  /// for the [R, R] records of region ops: the latest R and the latest
  /// before it. A flag's record starts before the op the walk is at, so
  /// whether a triple is taken from x on is whether its latest end comes
  /// after x; a region op's record counts unless it is the op the walk is in
  /// (an scf.if's then block, seen from its else block). Eight lookups per
  /// query instead of a scan of every flag of the block.
  Operation *lastEnd[kNumPipes * kNumPipes][8] = {};
  bool endsWithBlock[kNumPipes * kNumPipes][8] = {};
  Operation *lastRegion[kNumPipes * kNumPipes][8] = {};
  Operation *prevRegion[kNumPipes * kNumPipes][8] = {};
  uint8_t forbidden[kNumPipes * kNumPipes] = {};
  uint8_t used[kNumPipes * kNumPipes] = {};
  Bits carried;                       // loop body: the body's accesses
  SmallVector<Operation *> topAnchor; // id -> its ancestor in the body
  SmallVector<CarriedFlag> carriedFlags;
  /// For a region op followed by the waits that drain its carried flags (or
  /// by its closing barrier): the last of those. A flag "set after" the op
  /// goes after them, so that it hands on what they established.
  DenseMap<Operation *, Operation *> epilogueEnd;
  Operation *pointAfter(Operation *op) const {
    Operation *end = epilogueEnd.lookup(op);
    return end ? end : op;
  }
};

unsigned pairOf(unsigned q, unsigned p) { return q * kNumPipes + p; }

/// Positions of ops in their blocks, kept across the pass's insertions.
/// `Operation::isBeforeInBlock` renumbers the whole block once the few free
/// order indices between two ops are used up, which the flags and barriers
/// inserted into one gap do all the time: a block of n instructions cost
/// O(n) per inserted op. Here a block is numbered once with wide gaps and an
/// inserted op takes the middle of its gap (the block is renumbered only
/// when a gap is used up, after 32 halvings).
class OpOrder {
public:
  uint64_t of(Operation *op) {
    auto it = keys.find(op);
    if (it != keys.end())
      return it->second;
    renumber(op->getBlock());
    return keys.lookup(op);
  }
  /// Gives `op`, just inserted into a numbered block, its position.
  void inserted(Operation *op) {
    Block *block = op->getBlock();
    if (!numbered.contains(block))
      return; // numbered with the rest of its block when first asked
    Operation *prev = op->getPrevNode(), *next = op->getNextNode();
    uint64_t lo = prev ? keys.lookup(prev) : 0;
    uint64_t hi = next ? keys.lookup(next) : lo + 2 * kStride;
    if (hi - lo < 2) {
      renumber(block);
      return;
    }
    keys[op] = lo + (hi - lo) / 2;
  }

private:
  static constexpr uint64_t kStride = uint64_t(1) << 32;
  void renumber(Block *block) {
    numbered.insert(block);
    uint64_t key = kStride;
    for (Operation &op : *block) {
      keys[&op] = key;
      key += kStride;
    }
  }
  DenseMap<Operation *, uint64_t> keys;
  llvm::DenseSet<Block *> numbered;
};

class Inserter {
public:
  Inserter(FunctionOpInterface func, Stats &stats)
      : func(func), stats(stats), builder(func.getContext()) {}

  LogicalResult run();

private:
  // Analysis of the function.
  void collect();
  void computeConflicts();
  unsigned numIds() const { return owners.size(); }
  /// The accesses that conflict with access `id`.
  const Bits &conflictsWith(unsigned id) const {
    return classRows[classOf[id]];
  }

  // The walk.
  void processBlock(BlockCtx &ctx, State &st);
  void processIf(BlockCtx &ctx, State &st, scf::IfOp op);
  void processFor(BlockCtx &ctx, State &st, scf::ForOp op);
  void processOpaque(BlockCtx &ctx, State &st, Operation *op);
  void makeChild(BlockCtx &parent, BlockCtx &child, Operation *op,
                 Block *block);
  void finishChild(BlockCtx &parent, BlockCtx &child, Operation *op);
  void recordAfter(BlockCtx &ctx, State &st, Operation *op);

  // Resolution of the hazards of `sinks` (accesses about to run at `w`).
  void resolve(BlockCtx &ctx, State &st, Operation *w,
               ArrayRef<unsigned> sinks);
  // A flag in block `ctx`, waited before `w`, for an instruction in block
  // `cur` (ctx or nested in it).
  bool insertFlag(BlockCtx *cur, BlockCtx &ctx, State &st, unsigned q,
                  unsigned p, Operation *x, Operation *w);
  bool insertCarriedFlag(BlockCtx *cur, BlockCtx &ctx, State &st, unsigned q,
                         unsigned p, Operation *w, const Bits &needed);
  /// Drops from `known` the accesses that ran again in the blocks from
  /// `cur` up to, not including, `owner` (or that a loop among them carries).
  void dropReissuedBelow(BlockCtx &cur, BlockCtx &owner, Bits &known);
  /// Records that `op` of `ctx` is now the anchor of access `id`; `wasIssued`:
  /// `id` was issued when `op` began.
  void anchor(BlockCtx &ctx, unsigned id, Operation *op, bool wasIssued);
  void insertBarrier(State &st, Operation *w, Pipe pipe);
  uint8_t occupied(BlockCtx &ctx, unsigned pair, Operation *x, Operation *w);
  /// The triples of `ctx` in flight after `x` (their records end after it)
  /// that started before `w`.
  uint8_t pendingAfter(BlockCtx &ctx, unsigned pair, Operation *x,
                       Operation *w);
  void addRecord(BlockCtx &ctx, Record record);

  /// Whether `a` comes before `b` in their block; null a = block start,
  /// null b = block end.
  bool before(Operation *a, Operation *b) {
    if (!a || !b)
      return true;
    return a != b && order.of(a) < order.of(b);
  }
  /// Positions `op`, just created by `builder`.
  template <typename OpT> OpT placed(OpT op) {
    order.inserted(op.getOperation());
    return op;
  }

  FunctionOpInterface func;
  Stats &stats;
  OpBuilder builder;
  OpOrder order;
  bool failedWalk = false;

  // One entry per access.
  SmallVector<Operation *> owners;
  SmallVector<unsigned> pipes;
  SmallVector<sync::Access> accesses;
  DenseMap<Operation *, SmallVector<unsigned>> opIds;
  DenseMap<Operation *, Bits> regionIds; // accesses inside a region op
  SmallVector<unsigned> classOf;         // access -> its class (equal buffers)
  SmallVector<Bits> classRows; // class -> the accesses it conflicts with
  Bits pipeMask[kNumPipes];
};
} // namespace

void Inserter::collect() {
  func->walk([&](Operation *op) {
    std::optional<Pipe> pipe = sync::getInstructionPipe(op);
    if (!pipe)
      return;
    SmallVector<sync::Access> list;
    sync::getAccesses(op, list);
    for (const sync::Access &access : list) {
      opIds[op].push_back(owners.size());
      owners.push_back(op);
      pipes.push_back(static_cast<unsigned>(*pipe));
      accesses.push_back(access);
    }
  });
  unsigned n = numIds();
  for (unsigned q = 0; q < kNumPipes; ++q)
    pipeMask[q].resize(n);
  for (unsigned i = 0; i < n; ++i) {
    pipeMask[pipes[i]].set(i);
    for (Operation *parent = owners[i]->getParentOp();
         parent && parent != func.getOperation();
         parent = parent->getParentOp()) {
      Bits &bits = regionIds[parent];
      if (bits.empty())
        bits.resize(n);
      bits.set(i);
    }
  }
  computeConflicts();
}

/// Accesses of equal buffers and direction conflict with the same accesses:
/// they form one class with one row of the conflict matrix. Classes are
/// related through indexes of their buffers (by GM alias root and window, by
/// on-chip space and byte range or alloc) rather than pairwise, so that a
/// long function of accesses to many disjoint buffers stays near-linear.
void Inserter::computeConflicts() {
  using Key = std::array<int64_t, 9>;
  // Only the fields `sync::mayOverlap` looks at: a planned tile's alloc,
  // say, does not matter (one class per byte range, not per tile).
  auto keyOf = [](const sync::Access &a) -> Key {
    const sync::Buffer &b = a.buffer;
    auto ptr = [](const void *p) {
      return static_cast<int64_t>(reinterpret_cast<uintptr_t>(p));
    };
    Key key = {a.write, static_cast<int64_t>(b.kind)};
    if (b.kind == sync::Buffer::Kind::GM) {
      key[2] = ptr(b.root.getAsOpaquePointer());
      key[3] = ptr(b.tensor.getAsOpaquePointer());
      key[4] = b.hasWindow;
      if (b.hasWindow) {
        key[5] = b.row0;
        key[6] = b.row1;
        key[7] = b.col0;
        key[8] = b.col1;
      }
      return key;
    }
    key[2] = static_cast<int64_t>(b.space);
    key[3] = b.planned;
    if (b.planned) {
      key[4] = b.begin;
      key[5] = b.end;
    } else {
      key[4] = ptr(b.alloc);
    }
    return key;
  };
  std::map<Key, unsigned> classIds;
  SmallVector<unsigned> reps;                    // class -> an access of it
  SmallVector<SmallVector<unsigned, 4>> members; // class -> its accesses
  unsigned n = numIds();
  classOf.resize(n);
  for (unsigned i = 0; i < n; ++i) {
    auto [it, inserted] = classIds.try_emplace(keyOf(accesses[i]), reps.size());
    if (inserted) {
      reps.push_back(i);
      members.emplace_back();
    }
    classOf[i] = it->second;
    members[it->second].push_back(i);
  }

  // The indexes. GM: per alias root, the classes without a window and, per
  // tensor value, the windowed ones. Tiles: per space, planned byte ranges,
  // unplanned allocs and tiles of unknown origin.
  using pto::detail::Box;
  using pto::detail::BoxIndex;
  struct TensorWindows {
    SmallVector<unsigned> classes;
    BoxIndex boxes;
  };
  struct RootIndex {
    SmallVector<unsigned> all, unwindowed;
    std::map<const void *, TensorWindows> windowed;
  };
  struct SpaceIndex {
    SmallVector<unsigned> all, planned, unplanned, unknown;
    BoxIndex ranges;
    DenseMap<Operation *, SmallVector<unsigned>> byAlloc;
  };
  auto windowOf = [](const sync::Buffer &b) {
    return Box{{b.row0, b.col0}, {b.row1 - b.row0, b.col1 - b.col0}};
  };
  std::map<const void *, RootIndex> roots;
  std::map<int64_t, SpaceIndex> spaces;
  for (auto [c, rep] : llvm::enumerate(reps)) {
    const sync::Buffer &b = accesses[rep].buffer;
    if (b.kind == sync::Buffer::Kind::GM) {
      RootIndex &root = roots[b.root.getAsOpaquePointer()];
      root.all.push_back(c);
      if (!b.hasWindow) {
        root.unwindowed.push_back(c);
        continue;
      }
      TensorWindows &windows = root.windowed[b.tensor.getAsOpaquePointer()];
      windows.classes.push_back(c);
      windows.boxes.insert(c, windowOf(b));
      continue;
    }
    SpaceIndex &space = spaces[static_cast<int64_t>(b.space)];
    space.all.push_back(c);
    if (b.planned) {
      space.planned.push_back(c);
      space.ranges.insert(c, Box{{b.begin}, {b.end - b.begin}});
    } else if (b.alloc) {
      space.unplanned.push_back(c);
      space.byAlloc[b.alloc].push_back(c);
    } else {
      space.unknown.push_back(c);
    }
  }

  // Each class's row: the accesses of every class it conflicts with (the
  // candidates from the indexes, checked by `sync::conflicts`).
  classRows.assign(reps.size(), Bits(n));
  SmallVector<unsigned> seen(reps.size(), ~0u);
  for (auto [c, rep] : llvm::enumerate(reps)) {
    const sync::Access &access = accesses[rep];
    const sync::Buffer &b = access.buffer;
    Bits &row = classRows[c];
    auto visit = [&](unsigned other) {
      if (seen[other] == c)
        return;
      seen[other] = c;
      if (!sync::conflicts(access, accesses[reps[other]]))
        return;
      for (unsigned id : members[other])
        row.set(id);
    };
    auto visitAll = [&](ArrayRef<unsigned> classes) {
      for (unsigned other : classes)
        visit(other);
    };
    if (b.kind == sync::Buffer::Kind::GM) {
      RootIndex &root = roots[b.root.getAsOpaquePointer()];
      if (!b.hasWindow) {
        visitAll(root.all);
        continue;
      }
      visitAll(root.unwindowed);
      for (auto &[tensor, windows] : root.windowed) {
        if (tensor != b.tensor.getAsOpaquePointer())
          visitAll(windows.classes);
        else
          windows.boxes.forEachOverlap(windowOf(b), visit);
      }
      continue;
    }
    SpaceIndex &space = spaces[static_cast<int64_t>(b.space)];
    if (b.planned) {
      space.ranges.forEachOverlap(Box{{b.begin}, {b.end - b.begin}}, visit);
      visitAll(space.unplanned);
      visitAll(space.unknown);
    } else if (b.alloc) {
      visitAll(space.planned);
      visitAll(space.byAlloc[b.alloc]);
      visitAll(space.unknown);
    } else {
      visitAll(space.all);
    }
  }
}

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
  // (the access that needs it was issued by the instruction): one of the
  // n-bit snapshots, not one per pipe.
  if (std::optional<Pipe> pipe = sync::getInstructionPipe(op)) {
    unsigned q = static_cast<unsigned>(*pipe);
    snap.bits[q] = st.issued;
    snap.bits[q] &= pipeMask[q];
    snap.bits[q] |= st.covered[q];
    return;
  }
  for (unsigned q = 0; q < kNumPipes; ++q) {
    snap.bits[q] = st.issued;
    snap.bits[q] &= pipeMask[q];
    snap.bits[q] |= st.covered[q];
  }
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
  Bits own = st.issued;
  own &= pipeMask[p];
  st.covered[p] |= own;
}

void Inserter::resolve(BlockCtx &ctx, State &st, Operation *w,
                       ArrayRef<unsigned> sinks) {
  const unsigned vPipe = static_cast<unsigned>(Pipe::V);
  for (unsigned p = 0; p < kNumPipes; ++p) {
    // An instruction's accesses are all on its pipe: skip the others
    // before building an n-bit set for them.
    if (llvm::none_of(sinks, [&](unsigned b) { return pipes[b] == p; }))
      continue;
    Bits reach(numIds());
    for (unsigned b : sinks)
      if (pipes[b] == p)
        reach |= conflictsWith(b);
    auto need = [&]() {
      Bits bits = reach;
      bits &= st.issued;
      bits.reset(st.covered[p]);
      if (p != vPipe) // other pipes run their instructions in order
        bits.reset(pipeMask[p]);
      return bits;
    };
    Bits initial = need();
    if (initial.none())
      continue;
    for (unsigned b : sinks)
      if (pipes[b] == p) {
        Bits pairs = conflictsWith(b);
        pairs &= initial;
        stats.hazards += pairs.count();
      }
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
  Bits known = ctx.after[x].bits[q];
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
  for (unsigned id : st.issued.set_bits())
    if (pipes[id] == q && !ctx.carried.test(id))
      st.covered[p].set(id);
  ++stats.flags;
  ++stats.carriedFlags;
  return true;
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
