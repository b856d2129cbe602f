//===- SchedulePieces.cpp - piece-major order inside vector tasks ---------===//
//
// pto-expand-tiles emits all pieces of one op, then all pieces of the next,
// and pto-partition / pto-nbuffer-merge keep that order inside a task. A
// vector task that holds many pieces of a chain (the row pieces of a column
// combined by a tiled reduction, or N merged bodies) then keeps every piece
// of a value in UB until the next op reads it: fused_swiglu_bwd_b_kernel's
// task needed 48 pieces of 64 KiB at once. This pass reorders such a task
// so that each piece chain runs to its end before the next one starts.
//
// The schedule is demand-driven with eager consumers: the ops without users
// in the task are taken in program order, each pulls the ops it needs
// (operands first, depth first), and every op whose last predecessor has
// just run runs at once (depth first again), so loads happen as late and
// consumers as early as the dependencies allow. A load (a view of GM) and an
// op with no predecessor in the task (the load of a norm's gamma) do not run
// when they become ready but right before their first consumer: otherwise
// the eager consumers of every piece would stop at such a load, each piece
// kept in UB until the pull reached it (engram's rms_norm: 128 pieces
// waiting for their gamma or for the second read of their row). Each op and
// each edge is visited a bounded number of times.
//
//===----------------------------------------------------------------------===//

#include "pto/Dialect/PTO/Transforms/Passes.h"

#include "pto/Dialect/PTO/Analysis/GMAccess.h"
#include "pto/Dialect/PTO/IR/PTOInterfaces.h"
#include "pto/Dialect/PTO/IR/Platform.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"

namespace mlir::pto {
#define GEN_PASS_DEF_SCHEDULEPIECESPASS
#include "pto/Dialect/PTO/Transforms/Passes.h.inc"
} // namespace mlir::pto

using namespace mlir;
using namespace mlir::pto;

namespace {

/// The UB bytes of a tile: rows of whole 32-byte blocks (as pto-lower-to-isa
/// allocates them); 0 for other values.
int64_t ubBytes(Value value) {
  auto type = dyn_cast<TileType>(value.getType());
  if (!type || type.getShape().empty())
    return 0;
  int64_t rows = 1;
  for (int64_t d : type.getShape().drop_back())
    rows *= d;
  return rows *
         llvm::alignTo(type.getShape().back() * type.getElementByteSize(), 32);
}

/// The estimated UB peak of `ops` run in that order, and the position of
/// the op at the peak. A tile is live from its definition to its last use
/// among `ops` (a use nested in an op counts at that op); a reduction also
/// needs a scratch of its input's size while it runs.
struct Peak {
  int64_t bytes = 0;
  size_t at = 0;
};

Peak estimatePeak(ArrayRef<Operation *> ops) {
  DenseMap<Operation *, size_t> position;
  for (auto [i, op] : llvm::enumerate(ops))
    position[op] = i;
  // delta[i]: bytes that become live at i (+) or die after i (- at i + 1).
  SmallVector<int64_t> delta(ops.size() + 1, 0), extra(ops.size(), 0);
  for (auto [i, op] : llvm::enumerate(ops)) {
    if (isa<SumOp, AmaxOp>(op))
      extra[i] = ubBytes(op->getOperand(0));
    for (Value result : op->getResults()) {
      int64_t bytes = ubBytes(result);
      if (!bytes)
        continue;
      size_t last = i;
      for (Operation *user : result.getUsers()) {
        Operation *anchor = op->getBlock()->findAncestorOpInBlock(*user);
        auto it = anchor ? position.find(anchor) : position.end();
        if (it != position.end())
          last = std::max(last, it->second);
      }
      delta[i] += bytes;
      delta[last + 1] -= bytes;
    }
  }
  Peak peak;
  int64_t live = 0;
  for (size_t i = 0; i < ops.size(); ++i) {
    live += delta[i];
    if (live + extra[i] > peak.bytes)
      peak = {live + extra[i], i};
  }
  return peak;
}

/// Schedules the ops of one task body.
class TaskScheduler {
public:
  TaskScheduler(TaskOp task, GMAccessAnalysis &gm) : task(task), gm(gm) {}

  /// The new order of the body's ops (terminator excluded).
  SmallVector<Operation *> schedule();

private:
  /// An op and its GM accesses.
  using Access = std::pair<Operation *, GMAccessSummary>;
  /// Orders `part` (ops without regions and with named GM accesses).
  void schedulePart(ArrayRef<Access> part);
  /// Appends `op` and then, depth first, every op it made ready.
  void emit(Operation *op);

  TaskOp task;
  GMAccessAnalysis &gm;
  SmallVector<Operation *> order;
  // Per op of the current part: its index in `nodes`.
  DenseMap<Operation *, unsigned> index;
  struct Node {
    Operation *op;
    SmallVector<unsigned, 4> preds;
    /// (successor, whether the edge is a GM order edge, not an SSA use).
    SmallVector<std::pair<unsigned, bool>, 4> succs;
    unsigned waiting = 0; // predecessors not yet done
    bool scheduled = false;
    /// Deferred: every predecessor ran, it runs before its first consumer.
    bool available = false;
    bool deferred = false;
  };
  /// Whether `node` is done for the SSA users that wait for it.
  bool isDone(unsigned node) const {
    return nodes[node].scheduled || nodes[node].available;
  }
  /// Appends `node`'s op and releases the successors waiting for it.
  void place(unsigned node, SmallVectorImpl<unsigned> &ready);
  /// One predecessor of `succ` is done: at none left, `succ` is ready (a
  /// deferred op becomes available and releases its users in turn).
  void release(unsigned succ, SmallVectorImpl<unsigned> &ready);
  std::vector<Node> nodes;
};

} // namespace

/// Whether `op` keeps its place: it has regions, or GM accesses whose
/// storage the analysis cannot name (it may touch anything).
static bool isBarrier(Operation *op, const GMAccessSummary &summary) {
  if (op->getNumRegions() != 0 || summary.unknown)
    return true;
  return llvm::any_of(summary.accesses,
                      [](const GMAccess &a) { return !a.storage; });
}

SmallVector<Operation *> TaskScheduler::schedule() {
  Block &body = task.getBody().front();
  SmallVector<Access> part;
  for (Operation &op : body.without_terminator()) {
    GMAccessSummary summary = gm.summarize(&op);
    if (!isBarrier(&op, summary)) {
      part.push_back({&op, std::move(summary)});
      continue;
    }
    schedulePart(part);
    part.clear();
    order.push_back(&op);
  }
  schedulePart(part);
  return std::move(order);
}

void TaskScheduler::release(unsigned succ, SmallVectorImpl<unsigned> &ready) {
  if (--nodes[succ].waiting != 0)
    return;
  if (!nodes[succ].deferred) {
    ready.push_back(succ);
    return;
  }
  // Available as soon as its predecessors ran, so that a consumer waiting
  // for it and for other ops runs right after the last of those.
  SmallVector<unsigned, 4> worklist{succ};
  while (!worklist.empty()) {
    Node &node = nodes[worklist.pop_back_val()];
    node.available = true;
    for (auto [user, isOrder] : llvm::reverse(node.succs)) {
      if (isOrder || --nodes[user].waiting != 0)
        continue;
      if (nodes[user].deferred)
        worklist.push_back(user);
      else
        ready.push_back(user);
    }
  }
}

void TaskScheduler::place(unsigned current, SmallVectorImpl<unsigned> &ready) {
  Node &node = nodes[current];
  node.scheduled = true;
  order.push_back(node.op);
  // Reverse, so that the first consumer runs first. A deferred op released
  // its users when it became available; its GM successors (later writes of
  // what it reads) wait until it runs.
  for (auto [succ, isOrder] : llvm::reverse(node.succs))
    if (isOrder || !node.deferred)
      release(succ, ready);
}

void TaskScheduler::emit(Operation *first) {
  unsigned start = index.lookup(first);
  SmallVector<unsigned> ready;
  // The walk reaches a deferred op when its consumer needs it.
  if (nodes[start].deferred) {
    ++nodes[start].waiting;
    release(start, ready);
  } else {
    ready.push_back(start);
  }
  while (!ready.empty()) {
    unsigned current = ready.pop_back_val();
    if (isDone(current))
      continue;
    for (unsigned pred : nodes[current].preds)
      if (nodes[pred].available && !nodes[pred].scheduled)
        place(pred, ready);
    place(current, ready);
  }
}

void TaskScheduler::schedulePart(ArrayRef<Access> part) {
  if (part.empty())
    return;
  nodes.clear();
  index.clear();
  nodes.reserve(part.size());
  for (auto [i, access] : llvm::enumerate(part)) {
    index[access.first] = i;
    nodes.push_back({access.first, {}, {}});
  }
  auto addEdge = [&](unsigned from, unsigned to, bool isOrder) {
    nodes[from].succs.push_back({to, isOrder});
    nodes[to].preds.push_back(from);
  };
  // GM order per storage: a read after the storage's last write, a write
  // after the last write and every read since (accesses of one storage are
  // taken to overlap: offsets are not compared, so that this stays linear).
  struct StorageOrder {
    std::optional<unsigned> lastWrite;
    SmallVector<unsigned> readsSinceWrite;
  };
  DenseMap<Value, StorageOrder> storages;
  // GM predecessors come first in an op's list: the walk below then visits
  // the earlier stores of a storage before the op's own operands, so the
  // stores (and the chains feeding them) keep their program order.
  for (auto [i, entry] : llvm::enumerate(part)) {
    auto &[op, summary] = entry;
    for (const GMAccess &access : summary.accesses) {
      StorageOrder &storage = storages[access.storage];
      if (!access.writes()) {
        if (storage.lastWrite && *storage.lastWrite != i)
          addEdge(*storage.lastWrite, i, /*isOrder=*/true);
        storage.readsSinceWrite.push_back(i);
        continue;
      }
      if (storage.lastWrite && *storage.lastWrite != i)
        addEdge(*storage.lastWrite, i, /*isOrder=*/true);
      for (unsigned read : storage.readsSinceWrite)
        if (read != i)
          addEdge(read, i, /*isOrder=*/true);
      storage.readsSinceWrite.clear();
      storage.lastWrite = i;
    }
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp()) {
        auto it = index.find(def);
        if (it != index.end())
          addEdge(it->second, i, /*isOrder=*/false);
      }
  }
  // Loads and ops with no predecessor run with their first consumer (one
  // with SSA users; others run where the walk reaches them). One with no
  // predecessor is available from the start: its users do not wait for it.
  for (Node &node : nodes) {
    bool isLoad = isa<ViewOp>(node.op) &&
                  isa<GMTensorType>(node.op->getOperand(0).getType());
    node.deferred =
        (isLoad || node.preds.empty()) &&
        llvm::any_of(node.succs, [](auto succ) { return !succ.second; });
    node.available = node.deferred && node.preds.empty();
  }
  for (Node &node : nodes)
    for (auto [succ, isOrder] : node.succs)
      nodes[succ].waiting += isOrder || !node.available;
  // Pull from the ops nothing in the part waits for, in program order.
  for (unsigned sink = 0; sink < nodes.size(); ++sink) {
    if (!nodes[sink].succs.empty() || isDone(sink))
      continue;
    // Iterative depth-first walk: (node, next predecessor to visit).
    SmallVector<std::pair<unsigned, unsigned>> stack{{sink, 0}};
    while (!stack.empty()) {
      auto &[current, next] = stack.back();
      Node &node = nodes[current];
      if (isDone(current)) {
        stack.pop_back();
        continue;
      }
      if (next < node.preds.size()) {
        unsigned pred = node.preds[next++];
        if (!isDone(pred))
          stack.push_back({pred, 0});
        continue;
      }
      // Every predecessor ran (the walk or an eager consumer ran it).
      Operation *op = node.op;
      stack.pop_back();
      emit(op);
    }
  }
}

/// A tile of the task that the task also stored whole into a workspace
/// window, still live at the UB peak.
struct StoredTile {
  Value tile;
  AssembleOp store;
  /// The first op after the peak that reads `tile`.
  Operation *firstLateUser = nullptr;
  int64_t bytes = 0;
};

/// One step of the reload legalization: when `body`'s order keeps more than
/// `budget` bytes of UB live, the largest tile live at the peak that the
/// task already stored into a `pto.workspace` window is read back from that
/// window by its uses after the peak (a `pto.view` with the tile's valid
/// extents right before the first of them), so it dies at the peak. This is
/// PyPTO's spill (a GM copy-out, then a new UB buffer and a copy-in at the
/// next use; docs/Legalization.md) with the copy-out already in the task.
/// Only when nothing between the store and the reload may write the window.
/// Returns whether it reloaded one.
static bool reloadStoredTile(Block &body, int64_t budget,
                             GMAccessAnalysis &gm) {
  SmallVector<Operation *> ops;
  for (Operation &op : body.without_terminator())
    ops.push_back(&op);
  Peak peak = estimatePeak(ops);
  if (peak.bytes <= budget)
    return false;
  DenseMap<Operation *, size_t> position;
  for (auto [i, op] : llvm::enumerate(ops))
    position[op] = i;
  auto positionOf = [&](Operation *user) -> std::optional<size_t> {
    Operation *anchor = body.findAncestorOpInBlock(*user);
    auto it = anchor ? position.find(anchor) : position.end();
    if (it == position.end())
      return std::nullopt;
    return it->second;
  };
  std::optional<StoredTile> best;
  for (size_t i = 0; i <= peak.at; ++i) {
    for (Value tile : ops[i]->getResults()) {
      int64_t bytes = ubBytes(tile);
      if (!bytes || (best && best->bytes >= bytes))
        continue;
      AssembleOp store;
      size_t storeAt = 0, firstLate = ops.size();
      for (Operation *user : tile.getUsers()) {
        std::optional<size_t> at = positionOf(user);
        if (!at)
          continue;
        if (*at > peak.at) {
          firstLate = std::min(firstLate, *at);
          continue;
        }
        auto assemble = dyn_cast<AssembleOp>(user);
        if (!assemble || assemble.getSrc() != tile || store)
          continue;
        auto tensor = dyn_cast<GMTensorType>(assemble.getDst().getType());
        if (!assemble.getDst().getDefiningOp<WorkspaceOp>() || !tensor ||
            !tensor.hasStaticShape() || !assemble.getOffsets().empty())
          continue;
        // The window lies inside the workspace: the store wrote it whole.
        auto shape = cast<TileType>(tile.getType()).getShape();
        bool inside = shape.size() == tensor.getShape().size();
        for (auto [offset, size, dim] :
             llvm::zip(assemble.getStaticOffsets(), shape, tensor.getShape()))
          inside &= offset >= 0 && offset + size <= dim;
        if (inside) {
          store = assemble;
          storeAt = *at;
        }
      }
      if (!store || firstLate == ops.size())
        continue;
      GMAccessSummary stored = gm.summarize(store);
      if (stored.unknown || stored.accesses.size() != 1)
        continue;
      bool clobbered = false;
      for (size_t j = storeAt + 1; j < firstLate && !clobbered; ++j) {
        GMAccessSummary between = gm.summarize(ops[j]);
        clobbered = between.unknown ||
                    GMAccessAnalysis::clobbers(between, stored.accesses[0]);
      }
      if (!clobbered)
        best = StoredTile{tile, store, ops[firstLate], bytes};
    }
  }
  if (!best)
    return false;
  OpBuilder builder(best->firstLateUser);
  Location loc = best->store.getLoc();
  SmallVector<OpFoldResult> valid = reifyValidShape(builder, loc, best->tile);
  SmallVector<int64_t> staticValid;
  SmallVector<Value> dynamicValid;
  dispatchIndexOpFoldResults(valid, dynamicValid, staticValid);
  auto reload = ViewOp::create(
      builder, loc, best->tile.getType(), best->store.getDst(), ValueRange{},
      builder.getDenseI64ArrayAttr(best->store.getStaticOffsets()),
      dynamicValid, builder.getDenseI64ArrayAttr(staticValid));
  size_t peakAt = peak.at;
  best->tile.replaceUsesWithIf(reload.getResult(), [&](OpOperand &use) {
    std::optional<size_t> at = positionOf(use.getOwner());
    return at && *at > peakAt;
  });
  return true;
}

/// The GM load (a `pto.view` of a GM tensor) that `view`, a view of a tile,
/// copies from through views of tiles only, with the static offsets of
/// those views summed per dim; nullopt when the chain reaches anything else
/// or has a run-time offset or an explicit valid extent.
static std::optional<std::pair<ViewOp, SmallVector<int64_t>>>
loadUnderTileViews(ViewOp view) {
  SmallVector<int64_t> sum(view.getResult().getType().getRank(), 0);
  ViewOp current = view;
  while (isa<TileType>(current.getSource().getType())) {
    // An explicit valid extent is checked against the source tile's
    // (pto-run faults past it): such a view keeps its source.
    if (!current.getOffsets().empty() || current.getStaticValidShape())
      return std::nullopt;
    for (auto [d, offset] : llvm::enumerate(current.getStaticOffsets()))
      sum[d] += offset;
    current = current.getSource().getDefiningOp<ViewOp>();
    if (!current || current->getBlock() != view->getBlock())
      return std::nullopt;
  }
  if (current == view)
    return std::nullopt;
  return std::make_pair(current, std::move(sum));
}

/// A legalization of a task still over UB after the reorder and the reloads
/// (tried on a copy of the task, kept when its estimate is lower): a view
/// of a tile that is (through views of tiles) a load of GM reads the
/// GM window it covers itself, a `pto.view` of the load's tensor at the
/// summed offsets with the view's valid extents, when nothing between the
/// load and the view may write that tensor's storage. The loaded tile, and
/// the views between, die where nothing else reads them: mhc_post's V1_1
/// loaded its whole [16, 4, 256] f32 workspace (64 KiB) to take one
/// [1, 1, 256] row per piece from it, which tied every piece chain to that
/// tile. PyPTO's answer is the same GM window read where it is used. The
/// view reads the bytes the load would have read, so outputs stay bitwise
/// equal. Linear in the task's ops: one backward pass finds, per load, the
/// first later op that may write its storage (any write to the storage
/// counts, offsets are not compared). Returns whether it changed the body.
static bool readViewsOfLoadsFromGM(Block &body, GMAccessAnalysis &gm) {
  SmallVector<Operation *> ops;
  for (Operation &op : body.without_terminator())
    ops.push_back(&op);
  DenseMap<Operation *, size_t> position, writeLimit;
  for (auto [i, op] : llvm::enumerate(ops))
    position[op] = i;
  DenseMap<Value, size_t> nextWrite;
  size_t nextUnknown = ops.size();
  for (size_t i = ops.size(); i-- > 0;) {
    GMAccessSummary summary = gm.summarize(ops[i]);
    auto view = dyn_cast<ViewOp>(ops[i]);
    if (view && isa<GMTensorType>(view.getSource().getType()) &&
        summary.accesses.size() == 1 && summary.accesses[0].storage) {
      auto it = nextWrite.find(summary.accesses[0].storage);
      writeLimit[view] = std::min(
          nextUnknown, it == nextWrite.end() ? ops.size() : it->second);
    }
    if (summary.unknown)
      nextUnknown = i;
    for (const GMAccess &access : summary.accesses) {
      if (!access.writes())
        continue;
      if (!access.storage)
        nextUnknown = i;
      else
        nextWrite[access.storage] = i;
    }
  }
  bool changed = false;
  for (Operation *op : ops) {
    auto view = dyn_cast<ViewOp>(op);
    if (!view || !isa<TileType>(view.getSource().getType()))
      continue;
    auto chain = loadUnderTileViews(view);
    if (!chain)
      continue;
    auto &[load, sum] = *chain;
    auto limit = writeLimit.find(load);
    if (limit == writeLimit.end() || position[view] >= limit->second)
      continue;
    OpBuilder builder(view);
    Location loc = view.getLoc();
    SmallVector<OpFoldResult> offsets = getMixedValues(
        load.getStaticOffsets(), load.getOffsets(), builder.getContext());
    bool composable = true;
    for (auto [d, offset] : llvm::enumerate(offsets)) {
      if (sum[d] == 0)
        continue;
      std::optional<int64_t> base = getConstantIntValue(offset);
      composable &= base.has_value();
      if (base)
        offset = builder.getIndexAttr(*base + sum[d]);
    }
    if (!composable)
      continue;
    SmallVector<OpFoldResult> valid =
        reifyValidShape(builder, loc, view.getResult());
    SmallVector<int64_t> staticOffsets, staticValid;
    SmallVector<Value> dynamicOffsets, dynamicValid;
    dispatchIndexOpFoldResults(offsets, dynamicOffsets, staticOffsets);
    dispatchIndexOpFoldResults(valid, dynamicValid, staticValid);
    auto direct = ViewOp::create(
        builder, loc, view.getResult().getType(), load.getSource(),
        dynamicOffsets, builder.getDenseI64ArrayAttr(staticOffsets),
        dynamicValid, builder.getDenseI64ArrayAttr(staticValid));
    direct->setAttrs(view->getDiscardableAttrDictionary());
    // The new load reads where the view was: no write to the storage
    // between the old load and here (writeLimit), so the same bytes.
    writeLimit[direct] = limit->second;
    view.getResult().replaceAllUsesWith(direct.getResult());
    changed = true;
  }
  if (!changed)
    return false;
  // Views (of tiles and of GM) nothing reads any more, last first so that a
  // chain goes with its users.
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
    if (isa<ViewOp>(op) && op.use_empty())
      op.erase();
  return true;
}

/// The other legalization of a task still over UB (with the one above): a
/// load (a `pto.view` of GM)
/// of a window that an earlier `pto.assemble` of the task wrote whole, with
/// no write since that may overlap the window, takes it from the assembled
/// tile instead (a `pto.view` of the tile at the window's offset within
/// the store, with the load's valid extents): store-to-load forwarding.
/// mhc_post stores each row of x cast to f32 into a workspace and reads
/// four [1, 1, D] windows of it back per row; read from GM, those loads
/// wait for every row's store (GM order does not compare offsets), so all
/// pieces' products became ready at once. From the tile, each row's chain
/// depends on its own row only. The store wrote the tile's valid region
/// only; the view keeps the load's valid extents as explicit ones, which
/// pto-run on the tile graph checks against the tile's: a load that read
/// past what the store wrote faults there instead of reading other bytes.
/// Within them the tile holds the bytes the store wrote, so outputs stay
/// bitwise equal. Per load, at most `kLookBack` earlier writes of its storage
/// are looked at: linear in the task's ops. Uses inside `replaced` (the task
/// this body is a copy of) do not count as reads of a workspace.
static bool forwardStoresToLoads(Block &body, GMAccessAnalysis &gm,
                                 Operation *replaced) {
  constexpr size_t kLookBack = 64;
  DenseMap<Value, SmallVector<std::pair<Operation *, GMAccess>>> writes;
  bool changed = false;
  for (Operation &op : llvm::make_early_inc_range(body.without_terminator())) {
    GMAccessSummary summary = gm.summarize(&op);
    if (summary.unknown) {
      writes.clear();
      continue;
    }
    auto view = dyn_cast<ViewOp>(op);
    if (view && isa<GMTensorType>(view.getSource().getType()) &&
        view.getOffsets().empty() && summary.accesses.size() == 1 &&
        summary.accesses[0].storage) {
      const GMAccess &read = summary.accesses[0];
      auto &earlier = writes[read.storage];
      ArrayRef<int64_t> shape = view.getResult().getType().getShape();
      ArrayRef<int64_t> at = view.getStaticOffsets();
      for (size_t n = 0; n < earlier.size() && n < kLookBack; ++n) {
        auto &[writer, access] = earlier[earlier.size() - 1 - n];
        auto store = dyn_cast<AssembleOp>(writer);
        auto tileType =
            store ? dyn_cast<TileType>(store.getSrc().getType()) : TileType();
        bool covers = tileType && store.getOffsets().empty() &&
                      store.getDst() == view.getSource() &&
                      tileType.getElementType() ==
                          view.getResult().getType().getElementType() &&
                      tileType.getRank() == (int64_t)shape.size();
        for (unsigned d = 0; covers && d < shape.size(); ++d) {
          int64_t from = store.getStaticOffsets()[d];
          covers = at[d] >= from &&
                   at[d] + shape[d] <= from + tileType.getShape()[d];
        }
        if (covers) {
          OpBuilder builder(view);
          Location loc = view.getLoc();
          SmallVector<OpFoldResult> valid =
              reifyValidShape(builder, loc, view.getResult());
          SmallVector<int64_t> offsets, staticValid;
          SmallVector<Value> dynamicValid;
          for (unsigned d = 0; d < shape.size(); ++d)
            offsets.push_back(at[d] - store.getStaticOffsets()[d]);
          dispatchIndexOpFoldResults(valid, dynamicValid, staticValid);
          auto fromTile = ViewOp::create(
              builder, loc, view.getResult().getType(), store.getSrc(),
              ValueRange{}, builder.getDenseI64ArrayAttr(offsets), dynamicValid,
              builder.getDenseI64ArrayAttr(staticValid));
          fromTile->setAttrs(view->getDiscardableAttrDictionary());
          view.getResult().replaceAllUsesWith(fromTile.getResult());
          view.erase();
          changed = true;
          break;
        }
        if (GMAccessAnalysis::mayOverlap(access, read))
          break;
      }
      continue;
    }
    for (const GMAccess &access : summary.accesses) {
      if (!access.writes())
        continue;
      if (!access.storage)
        writes.clear();
      else
        writes[access.storage].push_back({&op, access});
    }
  }
  if (!changed)
    return false;
  // A workspace nothing reads any more (every use stores into it) keeps no
  // stores: they would be the first ops each piece chain is pulled by.
  SmallVector<AssembleOp> stores;
  for (Operation &op : body.without_terminator())
    if (auto store = dyn_cast<AssembleOp>(op))
      if (auto workspace = store.getDst().getDefiningOp<WorkspaceOp>())
        if (llvm::all_of(workspace->getUses(), [&](OpOperand &use) {
              auto writer = dyn_cast<AssembleOp>(use.getOwner());
              return (writer && writer.getDst() == workspace.getResult()) ||
                     replaced->isAncestor(use.getOwner());
            }))
          stores.push_back(store);
  for (AssembleOp store : stores)
    store.erase();
  return true;
}

namespace {
struct SchedulePiecesPass
    : public pto::impl::SchedulePiecesPassBase<SchedulePiecesPass> {
  using SchedulePiecesPassBase::SchedulePiecesPassBase;

  /// Whether a task was reordered: a kernel left as it was keeps its
  /// analyses and skips the pass manager's verifier run.
  bool reordered = false;

  void runOnOperation() override {
    reordered = false;
    GMAccessAnalysis gm(getOperation());
    // Collected first: a task may be replaced by a legalized copy.
    SmallVector<TaskOp> tasks;
    getOperation()->walk([&](TaskOp task) {
      if (task.getKind() == CoreKind::vector)
        tasks.push_back(task);
    });
    for (TaskOp task : tasks)
      scheduleTask(task, gm);
    if (!reordered)
      markAllAnalysesPreserved();
  }

  void scheduleTask(TaskOp task, GMAccessAnalysis &gm) {
    Block &body = task.getBody().front();
    // A task reading a tile defined outside it (a loop-carried value)
    // becomes a leaf with a tile argument, which pto-lower-to-isa does not
    // lower: UB does not bind it.
    bool passedTile = false;
    task.getBody().walk([&](Operation *op) {
      for (Value operand : op->getOperands())
        if (isa<TileType>(operand.getType()) &&
            !task->isAncestor(operand.getParentBlock()->getParentOp()))
          passedTile = true;
    });
    if (passedTile)
      return;
    SmallVector<Operation *> current;
    for (Operation &op : body.without_terminator())
      current.push_back(&op);
    const PlatformInfo &platform = getPlatformInfo(getArchFor(task));
    int64_t budget = platform.ubBytes - platform.ubImplicitScratchBytes;
    Peak before = estimatePeak(current);
    if (before.bytes <= budget)
      return;
    SmallVector<Operation *> order = TaskScheduler(task, gm).schedule();
    Peak after = estimatePeak(order);
    // On a tie over the budget the piece-by-piece order is kept too: its
    // stores follow each piece, which the reloads below need.
    bool lower = after.bytes < before.bytes;
    if (lower || (after.bytes == before.bytes && after.bytes > budget)) {
      Operation *terminator = body.getTerminator();
      for (Operation *op : order)
        op->moveBefore(terminator);
      reordered = true;
      if (lower)
        ++numReordered;
      if (lower && report)
        task.emitRemark() << "pto-schedule-pieces: vector task \""
                          << task.getFamily() << "\" reordered piece by "
                          << "piece: estimated UB peak " << before.bytes
                          << " -> " << after.bytes << " bytes (budget "
                          << budget << ")";
    } else {
      order = std::move(current);
      after = before;
    }
    // Still over: read tiles the task stored back from GM after the peak,
    // one at a time (each step lowers the estimate at its peak; a task
    // reloads at most as many tiles as it stores).
    if (after.bytes > budget) {
      unsigned reloads = 0;
      while (reloadStoredTile(body, budget, gm))
        ++reloads;
      if (reloads) {
        numReloaded += reloads;
        reordered = true;
        order.clear();
        for (Operation &op : body.without_terminator())
          order.push_back(&op);
        Peak reloaded = estimatePeak(order);
        if (report)
          task.emitRemark()
              << "pto-schedule-pieces: vector task \"" << task.getFamily()
              << "\" reads " << reloads << " stored tile(s) back from GM "
              << "after the peak: estimated UB peak " << after.bytes << " -> "
              << reloaded.bytes << " bytes (budget " << budget << ")";
        after = reloaded;
      }
    }
    // Still over: a copy of the task whose views of loaded tiles read GM
    // and whose loads of stored tiles take the tiles, scheduled again; it
    // replaces the task when its estimate is lower.
    if (after.bytes > budget && task->getNumResults() == 0) {
      OpBuilder builder(task);
      auto trial = cast<TaskOp>(builder.clone(*task.getOperation()));
      Block &trialBody = trial.getBody().front();
      // A fresh analysis: the copy's values die with it if it loses.
      GMAccessAnalysis trialGM(getOperation());
      bool fromGM = readViewsOfLoadsFromGM(trialBody, trialGM);
      bool forwarded = forwardStoresToLoads(trialBody, trialGM, task);
      SmallVector<Operation *> trialOrder;
      Peak best;
      if (fromGM || forwarded) {
        trialOrder = TaskScheduler(trial, trialGM).schedule();
        best = estimatePeak(trialOrder);
      }
      if ((fromGM || forwarded) && best.bytes < after.bytes) {
        Operation *terminator = trialBody.getTerminator();
        for (Operation *op : trialOrder)
          op->moveBefore(terminator);
        ++numLegalized;
        reordered = true;
        if (report)
          trial.emitRemark()
              << "pto-schedule-pieces: vector task \"" << task.getFamily()
              << "\" reads its views of loaded tiles from GM and its loads "
                 "of stored tiles from those tiles, reordered piece by "
                 "piece: estimated UB peak "
              << after.bytes << " -> " << best.bytes << " bytes (budget "
              << budget << ")";
        task.erase();
        task = trial;
        order = std::move(trialOrder);
        after = best;
      } else {
        trial.erase();
      }
    }
    // Over the budget in every order tried: pto-isa-plan-memory (with
    // in-place reuse) has the last word and names the tiles if it fails.
    if (after.bytes <= budget || !report)
      return;
    Operation *at = order[after.at];
    at->emitWarning()
        << "pto-schedule-pieces: the pieces of vector task \""
        << task.getFamily() << "\" live at this op need an estimated "
        << after.bytes << " bytes of UB in the order that keeps the fewest "
        << "live, over the " << budget << " bytes of " << platform.name
        << " (UB less the implicit scratch); fix: a smaller vec_tile for "
           "the task's ops";
  }
};
} // namespace
