//===- Partition.cpp - tile ops into cube and vector tasks ----------------===//
//
// PyPTO's GraphPartition (docs/PyPTOModel.md#partitioning) on the expanded tile
// graph. Nodes are tile compute ops and stores; views are not nodes (each
// task reads its own copy). Data edges are SSA uses and workspace pieces: a
// store into a workspace region and a view reading an overlapping region.
// Groups grow by union-find under the scope rules, each merge checked for
// cycles on the group graph. To stay near-linear on big tiles and long
// chains, reads and stores find the earlier accesses they must follow in a
// GMAccessIndex (GMAccess.h), and the group graph keeps a topological order
// so that a cycle check searches only between the two groups, from the side
// that runs out first. Each group becomes a pto.task placed at the end
// of its segment of the block (segments end at ops with regions and at
// views read by something other than a task; such views first move down
// to the end of their run of ops where nothing reads them or writes what
// they read, SinkBarrierViews.h).
//
//===----------------------------------------------------------------------===//

#include "SinkBarrierViews.h"
#include "pto/Dialect/PTO/Analysis/GMAccess.h"
#include "pto/Dialect/PTO/Transforms/Passes.h"
#include "pto/Support/UnionFind.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"

#include <optional>
#include <tuple>
#include <unordered_map>

namespace mlir::pto {
#define GEN_PASS_DEF_PARTITIONPASS
#include "pto/Dialect/PTO/Transforms/Passes.h.inc"
} // namespace mlir::pto

using namespace mlir;
using namespace mlir::pto;

namespace {

/// The ops that become (part of) a task: everything that runs on a core.
bool isNode(Operation *op) { return isCubeOp(op) || isVectorOp(op); }

/// Whether a non-node op of the control program reads or writes GM data:
/// checks, shapes, aliases and allocations only name tensors.
bool touchesGMData(Operation *op) {
  return !isa<CheckViewOp, CheckTileViewOp, DimOp, ReshapeOp, WorkspaceOp>(
             op) &&
         !isMemoryEffectFree(op);
}

/// A view producing a tile (of a tensor or of another tile): copied into
/// each task that reads it.
bool isTileView(Operation *op) {
  return isa<ViewOp>(op) && isa<TileType>(op->getResult(0).getType());
}

/// The pass statistics the partitioner updates.
struct PartitionStats {
  Pass::Statistic &cubeTasks, &vectorTasks, &mixTasks, &forwarded,
      &workspacesLeft;
};

class BlockPartitioner {
public:
  BlockPartitioner(ArrayRef<Operation *> nodes, Arch arch, bool splitMix,
                   PartitionStats &stats)
      : nodes(nodes),
        mixedTasks(getPlatformInfo(arch).mixedScopes && !splitMix),
        stats(stats) {
    // Scope stamps are looked up by name: once per node, not per merge step.
    StringAttr stampName;
    if (!nodes.empty())
      stampName =
          StringAttr::get(nodes.front()->getContext(), kScopeStampAttrName);
    for (auto [i, op] : llvm::enumerate(nodes)) {
      index[op] = i;
      scopes.push_back(op->getAttrOfType<ScopeAttr>(stampName));
    }
  }

  /// Forms the tasks of the segment ending before `insertionPoint`.
  LogicalResult run(Operation *insertionPoint);

private:
  void buildEdges();
  CoreKind kindOf(unsigned node);
  ScopeAttr scopeOf(unsigned node) { return scopes[node]; }
  unsigned find(unsigned node) { return groups.find(node); }
  bool tryMerge(unsigned a, unsigned b);
  /// For slots `u` before `v` in the order: whether `v` is reachable from
  /// `u` through a third slot. If not, `forward` tells which search ran out
  /// (the one forward from `u`, or the one backward from `v`) and `reached`
  /// the slots it reached, all ordered between `u` and `v`.
  bool reachesIndirectly(unsigned u, unsigned v, bool &forward,
                         SmallVectorImpl<unsigned> &reached);
  /// Labels `run` (in order) right after `anchor` (before, when `!after`),
  /// relabelling every slot when the gap is used up.
  void placeNextTo(ArrayRef<unsigned> run, unsigned anchor, bool after);
  /// The group graph's successors of group `leader`, as leaders.
  SmallVector<unsigned> successorGroups(unsigned leader);

  ArrayRef<Operation *> nodes;
  bool mixedTasks; // cube and vector ops of one scope may share a task
  PartitionStats &stats;
  llvm::DenseMap<Operation *, unsigned> index;
  SmallVector<ScopeAttr> scopes; // per node, its stamp (or null)
  // Edge lists are filled consumer by consumer in node order (buildEdges),
  // so a repeated edge is always the list's last: no set needed to dedup.
  using SuccList = SmallVector<unsigned, 2>;
  static void addSucc(SuccList &succs, unsigned consumer) {
    if (succs.empty() || succs.back() != consumer)
      succs.push_back(consumer);
  }
  SmallVector<SuccList> dataSuccs, orderSuccs;
  // The data edges along which the consumer reads the producer's tile
  // itself (an SSA value, possibly through views of it): both ends must
  // share a task.
  SmallVector<SuccList> tileSuccs;
  /// Nodes' groups; a merge keeps the first group's leader.
  UnionFind groups;
  // The group graph, kept current across merges. Its nodes are slots (one
  // per node at first); a merge folds the slot with fewer edges into the
  // other, so that each edge moves O(log n) times.
  SmallVector<llvm::DenseSet<unsigned>> slotSuccs, slotPreds;
  SmallVector<unsigned> slotOf;   // per leader
  SmallVector<unsigned> leaderOf; // per live slot
  // A topological order of the slots, kept across merges: a label per slot
  // (gaps leave room to move slots) and the live slots as a list in label
  // order. Every query is a neighbour of a live slot, so a list does what
  // a map by label would, without its nodes.
  SmallVector<uint64_t> label;
  static constexpr unsigned kNoSlot = ~0u;
  SmallVector<unsigned> nextInOrder, prevInOrder; // per slot, or kNoSlot
  unsigned firstInOrder = kNoSlot, lastInOrder = kNoSlot, numOrdered = 0;
  void unlinkFromOrder(unsigned slot);
  void linkIntoOrder(unsigned slot, unsigned before, unsigned after);
  SmallVector<CoreKind> kinds;
  // reachesIndirectly's buffers, per direction: a slot is seen in the
  // current search when its mark equals the search's epoch.
  SmallVector<unsigned> searchStack[2], searchReached[2];
  SmallVector<uint32_t> seenMark[2];
  uint32_t searchEpoch = 0;
};

CoreKind BlockPartitioner::kindOf(unsigned node) {
  Operation *op = nodes[node];
  if (isCubeOp(op))
    return CoreKind::cube;
  // A store runs where its source is produced: a matmul result leaves L0C
  // through the fixpipe of the cube core.
  if (isa<AssembleOp, AtomicAddOp>(op)) {
    Operation *producer = op->getOperand(0).getDefiningOp();
    if (producer && isCubeOp(producer))
      return CoreKind::cube;
  }
  return CoreKind::vector;
}

void BlockPartitioner::buildEdges() {
  unsigned n = nodes.size();
  dataSuccs.resize(n);
  orderSuccs.resize(n);
  tileSuccs.resize(n);
  // GM reads and stores seen so far, filed by node: a read finds the earlier
  // stores it must follow, a store also the earlier reads of what it
  // overwrites (GMAccessIndex: mustOrder of the kinds; atomics commute among
  // themselves).
  GMAccessAnalysis gm(nodes.front()->getParentOp());
  GMAccessIndex accesses;
  // A store that overwrites exactly the constant region of earlier accesses
  // retires them: whatever must follow one of them must follow the store
  // too, which follows them (so order edges stay transitively), and a later
  // read cannot see the data they stored. Each access is filed under an id
  // of its own (an op's reads of other regions stay live); retired ids are
  // skipped and dropped from the index (rebuilt from the live ones once they
  // are the majority), so that rounds of stores and reads of one workspace
  // region cost what the live accesses cost, not the region's history.
  SmallVector<unsigned> nodeOf;       // access id -> node
  SmallVector<GMAccessSummary> filed; // access id -> its summary
  llvm::BitVector retired;            // access id -> retired
  SmallVector<unsigned> indexed;      // the ids in `accesses`, in order
  unsigned numRetired = 0;
  // A constant region: base, tensor and per dim its offset and size.
  using ExactRegion =
      std::tuple<const void *, const void *, SmallVector<int64_t, 8>>;
  struct HashRegion {
    size_t operator()(const ExactRegion &region) const {
      const SmallVector<int64_t, 8> &dims = std::get<2>(region);
      return llvm::hash_combine(
          std::get<0>(region), std::get<1>(region),
          llvm::hash_combine_range(dims.begin(), dims.end()));
    }
  };
  std::unordered_map<ExactRegion, SmallVector<unsigned, 2>, HashRegion>
      byExactRegion;
  auto exactRegion = [](const GMAccess &access) -> std::optional<ExactRegion> {
    ExactRegion key{access.base.getAsOpaquePointer(),
                    access.tensor.getAsOpaquePointer(),
                    {}};
    for (const GMAccess::Range &range : access.dims) {
      if (range.unknown || range.symbolic)
        return std::nullopt;
      std::get<2>(key).append({range.lo, range.size});
    }
    return key;
  };
  auto fileOne = [&](unsigned node, GMAccessSummary &&one) {
    unsigned id = nodeOf.size();
    nodeOf.push_back(node);
    retired.push_back(false);
    indexed.push_back(id);
    accesses.insert(id, one);
    filed.push_back(std::move(one));
    return id;
  };
  // Files `summary` as `node`'s, one id per access.
  auto file = [&](unsigned node, const GMAccessSummary &summary) {
    if (summary.unknown) {
      GMAccessSummary unknown;
      unknown.unknown = true;
      fileOne(node, std::move(unknown));
    }
    for (const GMAccess &access : summary.accesses) {
      GMAccessSummary one;
      one.accesses.push_back(access);
      unsigned id = fileOne(node, std::move(one));
      if (std::optional<ExactRegion> region = exactRegion(access))
        byExactRegion[std::move(*region)].push_back(id);
    }
  };
  auto retireOverwritten = [&](const GMAccessSummary &summary) {
    if (summary.unknown || summary.accesses.size() != 1 ||
        summary.accesses.front().kind != GMAccess::kWrite)
      return;
    std::optional<ExactRegion> region = exactRegion(summary.accesses.front());
    if (!region)
      return;
    SmallVector<unsigned, 2> &ids = byExactRegion[std::move(*region)];
    unsigned store = ids.back(); // the store's own access, filed last
    for (unsigned id : ids)
      if (id != store && !retired.test(id)) {
        retired.set(id);
        ++numRetired;
      }
    ids.assign({store});
    if (numRetired < 64 || 2 * numRetired < indexed.size())
      return;
    accesses = GMAccessIndex();
    llvm::erase_if(indexed, [&](unsigned id) { return retired.test(id); });
    for (unsigned id : indexed)
      accesses.insert(id, filed[id]);
    numRetired = 0;
  };
  auto forEachDependence = [&](const GMAccessSummary &summary,
                               function_ref<void(unsigned)> fn) {
    accesses.forEachDependence(summary, [&](unsigned id) {
      if (!retired.test(id))
        fn(nodeOf[id]);
    });
  };

  // The nodes whose tile operands come (through views) from `value`'s
  // producer chain: SSA edges, and workspace edges for views of tensors.
  auto addReadEdges = [&](unsigned consumer, Value operand) {
    SmallVector<Value> worklist{operand};
    while (!worklist.empty()) {
      Value v = worklist.pop_back_val();
      Operation *def = v.getDefiningOp();
      if (!def)
        continue;
      auto it = index.find(def);
      if (it != index.end()) {
        if (it->second != consumer) {
          addSucc(dataSuccs[it->second], consumer);
          addSucc(tileSuccs[it->second], consumer);
        }
        continue;
      }
      auto view = dyn_cast<ViewOp>(def);
      if (!view)
        continue;
      if (!isa<GMTensorType>(view.getSource().getType())) {
        worklist.push_back(view.getSource());
        continue;
      }
      // A view of a tensor: depends on the stores into it that overlap.
      bool isWorkspace =
          isa_and_nonnull<WorkspaceOp>(view.getSource().getDefiningOp());
      // Workspace traffic is data; reads of kernel tensors after writes
      // are ordering only.
      auto &succs = isWorkspace ? dataSuccs : orderSuccs;
      GMAccessSummary read = gm.summarize(view);
      forEachDependence(read, [&](unsigned w) {
        if (w != consumer)
          addSucc(succs[w], consumer);
      });
      file(consumer, read);
    }
  };

  for (unsigned i = 0; i < n; ++i) {
    Operation *op = nodes[i];
    for (Value operand : op->getOperands())
      if (isa<TileType>(operand.getType()))
        addReadEdges(i, operand);
    // Stores keep their order after overlapping stores, except atomics
    // among themselves (they commute), and after the reads of what they
    // overwrite: a task reading a workspace must run before the task that
    // stores the next value into it. A pto.index_put chooses its rows at
    // run time: it reads and writes anywhere in its tensor, ordered after
    // and before every other access to it.
    if (isa<AssembleOp, AtomicAddOp, IndexPutOp>(op)) {
      GMAccessSummary store = gm.summarize(op);
      forEachDependence(store, [&](unsigned w) {
        if (w != i)
          addSucc(orderSuccs[w], i);
      });
      file(i, store);
      if (isa<AssembleOp>(op))
        retireOverwritten(store);
    }
  }
  // Each list is in node order (a consumer's edges are added while it is
  // visited), which the merge steps below follow.
}

bool BlockPartitioner::reachesIndirectly(unsigned u, unsigned v, bool &forward,
                                         SmallVectorImpl<unsigned> &reached) {
  // Any path u -> x -> ... -> v runs through slots ordered between u and v.
  // Search forward from u and backward from v in turns, one edge at a time,
  // within that window: the first search to run out without meeting the
  // other end proves there is no such path, at the cost of the smaller side.
  // The two searches' stacks and seen marks live across calls (one merge
  // attempt per data edge): no allocation and no hashing per attempt.
  struct Search {
    bool forward;
    unsigned start, goal;
    SmallVectorImpl<unsigned> &stack, &reached;
    SmallVectorImpl<uint32_t> &seenMark;
    unsigned current = 0;
    llvm::DenseSet<unsigned>::const_iterator it = {}, end = {};
    bool scanning = false;
  };
  ++searchEpoch;
  Search searches[2] = {
      {true, u, v, searchStack[0], searchReached[0], seenMark[0]},
      {false, v, u, searchStack[1], searchReached[1], seenMark[1]}};
  uint64_t lo = label[u], hi = label[v];
  for (Search &search : searches) {
    search.stack.assign({search.start});
    search.reached.clear();
  }
  for (unsigned turn = 0;; turn ^= 1) {
    Search &search = searches[turn];
    if (!search.scanning) {
      if (search.stack.empty()) {
        forward = search.forward;
        reached.assign(search.reached.begin(), search.reached.end());
        return false;
      }
      search.current = search.stack.pop_back_val();
      const llvm::DenseSet<unsigned> &edges = search.forward
                                                  ? slotSuccs[search.current]
                                                  : slotPreds[search.current];
      search.it = edges.begin();
      search.end = edges.end();
      search.scanning = true;
      continue;
    }
    if (search.it == search.end) {
      search.scanning = false;
      continue;
    }
    unsigned next = *search.it;
    ++search.it;
    if (next == search.goal) {
      // The direct edge between u and v is no path through a third slot.
      if (search.current != search.start)
        return true;
      continue;
    }
    if (label[next] <= lo || label[next] >= hi)
      continue;
    if (search.seenMark[next] != searchEpoch) {
      search.seenMark[next] = searchEpoch;
      search.reached.push_back(next);
      search.stack.push_back(next);
    }
  }
}

void BlockPartitioner::unlinkFromOrder(unsigned slot) {
  unsigned prev = prevInOrder[slot], next = nextInOrder[slot];
  (prev == kNoSlot ? firstInOrder : nextInOrder[prev]) = next;
  (next == kNoSlot ? lastInOrder : prevInOrder[next]) = prev;
  prevInOrder[slot] = nextInOrder[slot] = kNoSlot;
  --numOrdered;
}

/// Links `slot` between the neighbours `before` and `after` (kNoSlot: an
/// end of the list).
void BlockPartitioner::linkIntoOrder(unsigned slot, unsigned before,
                                     unsigned after) {
  prevInOrder[slot] = before;
  nextInOrder[slot] = after;
  (before == kNoSlot ? firstInOrder : nextInOrder[before]) = slot;
  (after == kNoSlot ? lastInOrder : prevInOrder[after]) = slot;
  ++numOrdered;
}

void BlockPartitioner::placeNextTo(ArrayRef<unsigned> run, unsigned anchor,
                                   bool after) {
  constexpr uint64_t kEnd = uint64_t(1) << 62;
  while (true) {
    uint64_t lo, hi;
    // The anchor is live: its neighbour on that side bounds the gap.
    unsigned before = after ? anchor : prevInOrder[anchor];
    unsigned behind = after ? nextInOrder[anchor] : anchor;
    lo = before == kNoSlot ? 0 : label[before];
    hi = behind == kNoSlot ? kEnd : label[behind];
    uint64_t step = (hi - lo) / (run.size() + 1);
    if (step > 0) {
      for (auto [i, slot] : llvm::enumerate(run)) {
        label[slot] = lo + (i + 1) * step;
        linkIntoOrder(slot, before, behind);
        before = slot;
      }
      return;
    }
    // Spread the labels evenly again.
    uint64_t spacing = kEnd / (numOrdered + run.size() + 1);
    uint64_t next = 0;
    for (unsigned slot = firstInOrder; slot != kNoSlot;
         slot = nextInOrder[slot]) {
      next += spacing;
      label[slot] = next;
    }
  }
}

/// Erases `slot` from an edge set. A DenseSet keeps its buckets when it
/// shrinks, and iterating it walks all of them: an edge set that lost most
/// of its edges (the slots its many successors were merged into one) would
/// make every search step from its slot cost its largest size, quadratic in
/// the pieces of one tile. Such a set is rebuilt at its size; a rebuild
/// follows at least as many erasures as it copies entries, so erasing stays
/// O(1) amortised.
static void eraseEdge(llvm::DenseSet<unsigned> &edges, unsigned slot) {
  if (!edges.erase(slot))
    return;
  constexpr size_t kMinBytes = 64 * sizeof(unsigned);
  if (edges.getMemorySize() <= kMinBytes ||
      edges.getMemorySize() <= 16 * sizeof(unsigned) * edges.size())
    return;
  llvm::DenseSet<unsigned> compact;
  compact.reserve(edges.size());
  compact.insert(edges.begin(), edges.end());
  edges = std::move(compact);
}

bool BlockPartitioner::tryMerge(unsigned a, unsigned b) {
  unsigned ga = find(a), gb = find(b);
  if (ga == gb)
    return false;
  if (kinds[ga] != kinds[gb] && !mixedTasks)
    return false;
  // Merging two groups joined by a path through a third creates a cycle.
  unsigned u = slotOf[ga], v = slotOf[gb];
  if (label[u] > label[v])
    std::swap(u, v);
  bool forward;
  SmallVector<unsigned> reached;
  if (reachesIndirectly(u, v, forward, reached))
    return false;

  unsigned leader = groups.unite(ga, gb), other = leader == ga ? gb : ga;
  if (kinds[other] != kinds[leader])
    kinds[leader] = CoreKind::mix;

  // Keep the order topological: the merged slot takes v's place with the
  // slots reached forward from u moved right after it, or u's place with
  // the slots reached backward from v moved right before it.
  llvm::sort(reached,
             [&](unsigned x, unsigned y) { return label[x] < label[y]; });
  for (unsigned slot : reached)
    unlinkFromOrder(slot);
  unsigned anchor = forward ? v : u;
  if (!reached.empty())
    placeNextTo(reached, anchor, forward);
  uint64_t place = label[anchor];

  // Fold the slot with fewer edges into the other.
  unsigned keep = u, drop = v;
  if (slotSuccs[drop].size() + slotPreds[drop].size() >
      slotSuccs[keep].size() + slotPreds[keep].size())
    std::swap(keep, drop);
  for (unsigned p : slotPreds[drop]) {
    if (p == keep)
      continue;
    eraseEdge(slotSuccs[p], drop);
    slotSuccs[p].insert(keep);
    slotPreds[keep].insert(p);
  }
  for (unsigned s : slotSuccs[drop]) {
    if (s == keep)
      continue;
    eraseEdge(slotPreds[s], drop);
    slotPreds[s].insert(keep);
    slotSuccs[keep].insert(s);
  }
  eraseEdge(slotSuccs[keep], drop);
  eraseEdge(slotPreds[keep], drop);
  slotSuccs[drop].clear();
  slotPreds[drop].clear();
  slotOf[leader] = keep;
  leaderOf[keep] = leader;
  // The merged slot takes the anchor's place in the order.
  unlinkFromOrder(anchor == u ? v : u);
  if (keep != anchor) {
    linkIntoOrder(keep, anchor, nextInOrder[anchor]);
    unlinkFromOrder(anchor);
  }
  label[keep] = place;
  return true;
}

SmallVector<unsigned> BlockPartitioner::successorGroups(unsigned leader) {
  SmallVector<unsigned> succs;
  for (unsigned slot : slotSuccs[slotOf[leader]])
    succs.push_back(leaderOf[slot]);
  return succs;
}

LogicalResult BlockPartitioner::run(Operation *insertionPoint) {
  unsigned n = nodes.size();
  if (n == 0)
    return success();
  buildEdges();
  kinds.resize(n);
  groups.resize(n);
  for (unsigned i = 0; i < n; ++i)
    kinds[i] = kindOf(i);
  slotSuccs.resize(n);
  slotPreds.resize(n);
  slotOf.resize(n);
  leaderOf.resize(n);
  label.resize(n);
  nextInOrder.assign(n, kNoSlot);
  prevInOrder.assign(n, kNoSlot);
  for (SmallVector<uint32_t> &marks : seenMark)
    marks.assign(n, 0);
  // Program order is topological: every edge goes to a later node.
  uint64_t spacing = (uint64_t(1) << 62) / (n + 1);
  // Sized once: the sets would otherwise grow (rehash) edge by edge.
  SmallVector<unsigned> numPreds(n, 0);
  for (unsigned i = 0; i < n; ++i) {
    for (auto *list : {&dataSuccs[i], &orderSuccs[i]})
      for (unsigned s : *list)
        ++numPreds[s];
    slotSuccs[i].reserve(dataSuccs[i].size() + orderSuccs[i].size());
  }
  for (unsigned i = 0; i < n; ++i)
    slotPreds[i].reserve(numPreds[i]);
  for (unsigned i = 0; i < n; ++i) {
    slotOf[i] = leaderOf[i] = i;
    label[i] = (i + 1) * spacing;
    linkIntoOrder(i, i == 0 ? kNoSlot : i - 1, kNoSlot);
    for (auto *list : {&dataSuccs[i], &orderSuccs[i]})
      for (unsigned s : *list) {
        slotSuccs[i].insert(s);
        slotPreds[s].insert(i);
      }
  }

  auto sameScope = [&](unsigned a, unsigned b) {
    ScopeAttr sa = scopeOf(a), sb = scopeOf(b);
    return sa && sb && sa == sb;
  };
  auto sameKind = [&](unsigned a, unsigned b) {
    return kinds[find(a)] == kinds[find(b)];
  };

  // 1. A store joins the op producing its source; K steps of a matmul chain.
  for (unsigned i = 0; i < n; ++i)
    for (unsigned s : dataSuccs[i])
      if (nodes[s]->getNumOperands() &&
          nodes[s]->getOperand(0).getDefiningOp() == nodes[i] &&
          (isa<AssembleOp, AtomicAddOp, MatmulAccOp, IndexPutOp>(nodes[s])))
        tryMerge(i, s);
  // 1b. Any other op reading a node's tile itself (the op combining a tiled
  // reduction's partial results) joins it: no task boundary passes an SSA
  // tile. Done before the wider merges below, which could otherwise put the
  // partials on either side of another group (the row pieces of a tile that
  // is both stored at a dynamic offset and summed over its rows: SwiGLU
  // grad's dg and db).
  for (unsigned i = 0; i < n; ++i)
    for (unsigned s : tileSuccs[i])
      tryMerge(i, s);
  // 2. Ops of one scope merge along data edges.
  for (unsigned i = 0; i < n; ++i)
    for (unsigned s : dataSuccs[i])
      if (sameScope(i, s) && (sameKind(i, s) || mixedTasks))
        tryMerge(i, s);
  // 3. allow_parallel_merge: every op of the scope id.
  llvm::DenseMap<int64_t, unsigned> firstOfScope;
  for (unsigned i = 0; i < n; ++i) {
    ScopeAttr scope = scopeOf(i);
    if (!scope || !scope.getAllowParallelMerge())
      continue;
    auto [it, inserted] = firstOfScope.try_emplace(scope.getId(), i);
    if (!inserted && (sameKind(it->second, i) || mixedTasks))
      tryMerge(it->second, i);
  }
  // 4. Unscoped ops of one kind merge along data edges.
  for (unsigned i = 0; i < n; ++i)
    for (unsigned s : dataSuccs[i])
      if (!scopeOf(i) && !scopeOf(s) && sameKind(i, s))
        tryMerge(i, s);
  // 5. allow_cross_scope_merge: a scope absorbs unscoped neighbours.
  for (unsigned i = 0; i < n; ++i)
    for (unsigned s : dataSuccs[i]) {
      ScopeAttr si = scopeOf(i), ss = scopeOf(s);
      bool absorb = (si && !ss && si.getAllowCrossScopeMerge()) ||
                    (ss && !si && ss.getAllowCrossScopeMerge());
      if (absorb && sameKind(i, s))
        tryMerge(i, s);
    }
  // 6. Every pair of 1b is in one group now, unless a third group lay
  // between them when it was tried (and still does): an error naming both,
  // never IR passing an SSA tile between tasks.
  for (unsigned i = 0; i < n; ++i)
    for (unsigned s : tileSuccs[i])
      if (find(i) != find(s) && !tryMerge(i, s))
        return nodes[s]->emitError()
               << "pto-partition: this op reads the tile of "
               << nodes[i]->getName() << " (at " << nodes[i]->getLoc()
               << ") directly, but the two cannot share a task ("
               << (kinds[find(i)] != kinds[find(s)] && !mixedTasks
                       ? "different core kinds"
                       : "a task between them")
               << "); please report this IR";

  // Order the groups topologically (ties by first node), name families by
  // the number of core-kind changes along the longest path.
  SmallVector<unsigned> leaders;
  llvm::DenseMap<unsigned, SmallVector<unsigned>> members;
  for (unsigned i = 0; i < n; ++i) {
    unsigned g = find(i);
    if (members[g].empty())
      leaders.push_back(g);
    members[g].push_back(i);
  }
  llvm::DenseMap<unsigned, unsigned> inDegree;
  for (unsigned g : leaders)
    for (unsigned s : successorGroups(g))
      ++inDegree[s];
  SmallVector<unsigned> order;
  llvm::DenseMap<unsigned, unsigned> level;
  SmallVector<unsigned> ready;
  for (unsigned g : llvm::reverse(leaders))
    if (!inDegree[g]) {
      ready.push_back(g);
      level[g] = 1;
    }
  while (!ready.empty()) {
    unsigned g = ready.pop_back_val();
    order.push_back(g);
    SmallVector<unsigned> next = successorGroups(g);
    llvm::sort(next, [&](unsigned a, unsigned b) {
      return members[a].front() > members[b].front();
    });
    for (unsigned s : next) {
      unsigned candidate = level[g] + (kinds[s] != kinds[g] ? 1 : 0);
      level[s] = std::max(level[s], candidate);
      if (--inDegree[s] == 0)
        ready.push_back(s);
    }
  }
  // Every merge was checked for cycles and program order is a topological
  // order of the nodes, so this only fires on a bug: report it, don't guess.
  if (order.size() != leaders.size())
    return nodes.front()->emitError()
           << "pto-partition: the task graph of this block has a cycle ("
           << leaders.size() - order.size()
           << " tasks unordered); please report this IR";

  // Materialize: one pto.task per group, in topological order.
  OpBuilder builder(insertionPoint);
  for (unsigned g : order) {
    CoreKind kind = kinds[g];
    char letter = kind == CoreKind::cube     ? 'C'
                  : kind == CoreKind::vector ? 'V'
                                             : 'M';
    // Levels count kind changes: C1 (1) V1 (2) C2 (3) V2 (4) ...; a vector
    // source (level 1) is V1.
    unsigned stage = (level[g] + 1) / 2;
    if (kind == CoreKind::mix)
      stage = level[g];
    std::string family =
        std::string(1, letter) + std::to_string(std::max(1u, stage));
    Operation *first = nodes[members[g].front()];
    auto task = TaskOp::create(builder, first->getLoc(), TypeRange(),
                               CoreKindAttr::get(builder.getContext(), kind),
                               builder.getStringAttr(family),
                               scopes[members[g].front()]);
    Block *body = new Block();
    task.getBody().push_back(body);
    OpBuilder inner = OpBuilder::atBlockEnd(body);
    YieldOp::create(inner, task.getLoc());
    inner.setInsertionPoint(body->getTerminator());
    // Copy in the views the group reads (once per task), then move its ops.
    IRMapping copied;
    std::function<Value(Value)> localize = [&](Value v) -> Value {
      if (Value mapped = copied.lookupOrNull(v))
        return mapped;
      Operation *def = v.getDefiningOp();
      if (!def || !isTileView(def))
        return v;
      // Copy the view's own tile source first, so that it dominates.
      for (Value operand : def->getOperands())
        if (Value local = localize(operand); local != operand)
          copied.map(operand, local);
      Operation *clone = inner.clone(*def, copied);
      copied.map(def->getResults(), clone->getResults());
      return clone->getResult(0);
    };
    for (unsigned member : members[g]) {
      Operation *op = nodes[member];
      for (OpOperand &operand : op->getOpOperands())
        if (isa<TileType>(operand.get().getType()))
          operand.set(localize(operand.get()));
      op->moveBefore(body->getTerminator());
    }
    switch (kind) {
    case CoreKind::cube:
      ++stats.cubeTasks;
      break;
    case CoreKind::vector:
      ++stats.vectorTasks;
      break;
    case CoreKind::mix:
      ++stats.mixTasks;
      break;
    }
  }
  return success();
}

/// Inside each task, a view that reads back exactly a piece the task stored
/// earlier in the same workspace becomes the stored value. Workspaces no
/// view reads any more are removed with their stores.
void forwardWorkspaces(Operation *root, PartitionStats &stats) {
  root->walk([&](TaskOp task) {
    llvm::DenseMap<std::pair<Value, ArrayRef<int64_t>>, AssembleOp> stored;
    SmallVector<ViewOp> forwarded;
    for (Operation &op : task.getBody().front()) {
      if (auto assemble = dyn_cast<AssembleOp>(op)) {
        if (assemble.getDst().getDefiningOp<WorkspaceOp>() &&
            assemble.getOffsets().empty())
          stored[{assemble.getDst(), assemble.getStaticOffsets()}] = assemble;
        continue;
      }
      auto view = dyn_cast<ViewOp>(op);
      if (!view || !view.getOffsets().empty())
        continue;
      auto it = stored.find({view.getSource(), view.getStaticOffsets()});
      if (it == stored.end() ||
          it->second.getSrc().getType() != view.getResult().getType())
        continue;
      // A stored view whose valid region the reading view may narrow (a
      // tile copied whole into a workspace and read back with a smaller
      // valid shape) is not the same value: keep the round trip. Computed
      // pieces are read back by the views pto-expand-tiles made for them,
      // with their own valid extents.
      bool narrows = false;
      if (std::optional<ArrayRef<int64_t>> valid = view.getStaticValidShape())
        for (auto [extent, size] :
             llvm::zip(*valid, view.getResult().getType().getShape()))
          narrows |= ShapedType::isDynamic(extent) || extent < size;
      if (narrows && it->second.getSrc().getDefiningOp<ViewOp>())
        continue;
      view.getResult().replaceAllUsesWith(it->second.getSrc());
      forwarded.push_back(view);
    }
    for (ViewOp view : forwarded)
      view.erase();
    stats.forwarded += forwarded.size();
  });
  SmallVector<WorkspaceOp> workspaces;
  root->walk([&](WorkspaceOp ws) { workspaces.push_back(ws); });
  for (WorkspaceOp ws : workspaces) {
    bool read = llvm::any_of(
        ws->getUsers(), [](Operation *user) { return !isa<AssembleOp>(user); });
    if (read) {
      ++stats.workspacesLeft;
      continue;
    }
    for (Operation *user : llvm::make_early_inc_range(ws->getUsers()))
      user->erase();
    ws.erase();
  }
}

struct PartitionPass : public pto::impl::PartitionPassBase<PartitionPass> {
  using PartitionPassBase::PartitionPassBase;
  void runOnOperation() override;
};

void PartitionPass::runOnOperation() {
  WalkResult scopes = getOperation()->walk([&](ScopeOp scope) {
    scope.emitError() << "pto-partition expects scopes as stamps: run "
                         "pto-flatten-scopes and pto-expand-tiles first";
    return WalkResult::interrupt();
  });
  if (scopes.wasInterrupted())
    return signalPassFailure();

  PartitionStats stats{numCubeTasks, numVectorTasks, numMixTasks, numForwarded,
                       numWorkspacesLeft};
  SmallVector<Block *> blocks;
  getOperation()->walk([&](Block *block) { blocks.push_back(block); });
  for (Block *block : blocks) {
    if (block->empty() || isa<TaskOp>(block->getParentOp()))
      continue;
    Arch arch = getArchFor(block->getParentOp());
    // Segments end at ops with regions and at views something other than a
    // node reads (e.g. a full-window view of a workspace yielded by a loop).
    SmallVector<Operation *> segment;
    auto isBarrier = [&](Operation &op) {
      if (op.getNumRegions() > 0 || op.hasTrait<OpTrait::IsTerminator>())
        return true;
      if (!isTileView(&op))
        return false;
      return llvm::any_of(op.getUsers(), [](Operation *user) {
        return !isNode(user) && !isTileView(user);
      });
    };
    // Such a view reads the same data at the end of its run of ops, so it
    // moves there first instead of cutting the tasks around its old place.
    if (sinkViews)
      mlir::pto::detail::sinkBarrierViews(*block, isBarrier);
    // A control-program op that touches GM data (a pto.read) and must
    // follow an access of the segment so far (a node's store, a view of a
    // GM tensor) ends the segment: tasks are placed at the end of their
    // segment, so without the cut a read of a tensor that an earlier task of
    // the block writes would see the value from before that task. The
    // segment's accesses are summarized only when such an op comes.
    std::optional<GMAccessAnalysis> gm;
    GMAccessIndex segmentAccesses;
    SmallVector<Operation *> segmentGM; // nodes and views of GM tensors
    unsigned numFiled = 0;
    auto mustFollowSegment = [&](Operation &op) {
      if (segment.empty() || !touchesGMData(&op))
        return false;
      if (!gm)
        gm.emplace(block->getParentOp());
      for (; numFiled < segmentGM.size(); ++numFiled)
        segmentAccesses.insert(numFiled, gm->summarize(segmentGM[numFiled]));
      return segmentAccesses.dependsOnAny(gm->summarize(&op));
    };
    for (Operation &op : llvm::make_early_inc_range(*block)) {
      if (isNode(&op)) {
        segment.push_back(&op);
        segmentGM.push_back(&op);
        continue;
      }
      if (auto view = dyn_cast<ViewOp>(op)) {
        if (isa<GMTensorType>(view.getSource().getType()))
          segmentGM.push_back(&op);
        if (!isBarrier(op))
          continue;
      } else if (!isBarrier(op) && !mustFollowSegment(op)) {
        continue;
      }
      if (failed(BlockPartitioner(segment, arch, splitMix, stats).run(&op)))
        return signalPassFailure();
      segment.clear();
      segmentGM.clear();
      segmentAccesses = GMAccessIndex();
      numFiled = 0;
    }
    // Every block ends with a terminator, a barrier: no segment is left.
  }
  // Views copied into tasks leave their originals unused; erasing one may
  // leave the view it reads unused in turn (a worklist, not a walk per
  // level of a view chain).
  auto isOriginal = [](Operation *op) {
    return isa_and_nonnull<ViewOp>(op) && !isa<TaskOp>(op->getParentOp());
  };
  SmallVector<Operation *> worklist;
  getOperation()->walk([&](ViewOp view) {
    if (isOriginal(view))
      worklist.push_back(view);
  });
  llvm::DenseSet<Operation *> erased;
  while (!worklist.empty()) {
    Operation *view = worklist.pop_back_val();
    if (erased.contains(view) || !view->use_empty())
      continue;
    SmallVector<Operation *, 2> sources;
    for (Value operand : view->getOperands())
      if (Operation *def = operand.getDefiningOp(); isOriginal(def))
        sources.push_back(def);
    erased.insert(view);
    view->erase();
    worklist.append(sources.begin(), sources.end());
  }
  forwardWorkspaces(getOperation(), stats);
}

} // namespace
