//===- InsertSync.h - pto-isa-insert-sync's state and walk ------*- C++ -*-===//
//
// Local to the pto-isa-insert-sync sources: the walk's state (what each pipe
// is ordered after, the knowledge a flag hands on after each op), the blocks
// being walked with their event-id records, and the `Inserter` whose parts
// live in InsertSync.cpp (the walk and hazard resolution),
// InsertSyncConflicts.cpp (accesses and their conflicts) and
// InsertSyncEvents.cpp (flags, barriers and event ids). The model is
// described at the top of InsertSync.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef PTO_LIB_DIALECT_PTOISA_TRANSFORMS_INSERTSYNC_H
#define PTO_LIB_DIALECT_PTOISA_TRANSFORMS_INSERTSYNC_H

#include "SyncBits.h"
#include "SyncModel.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::ptoisa::insert_sync {
using sync::kNumPipes;
using Bits = sync::SyncBits;

/// What every pipe knows at a program point.
struct State {
  Bits issued;             // accesses with an instance issued on this path
  Bits covered[kNumPipes]; // accesses the pipe is ordered after
};

/// q's knowledge right after an op: what a set_flag q -> ... placed there
/// hands on (covered[q] plus everything q issued); after an instruction,
/// only for its own pipe. Packed: behind the walk it is all ones but for a
/// few chunks, which are all it keeps.
struct Snapshot {
  Bits::Packed bits[kNumPipes];
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

inline unsigned pairOf(unsigned q, unsigned p) { return q * kNumPipes + p; }

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
  const Bits::Packed &conflictsWith(unsigned id) const {
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
  /// class -> the accesses it conflicts with (packed: a buffer used in one
  /// stretch of the function has a row of a few chunks).
  SmallVector<Bits::Packed> classRows;
  Bits pipeMask[kNumPipes];
};
} // namespace mlir::ptoisa::insert_sync

#endif // PTO_LIB_DIALECT_PTOISA_TRANSFORMS_INSERTSYNC_H
