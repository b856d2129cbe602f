//===- MixExchange.cpp - cube results handed to vector cores on chip ------===//
//
// On DAV_3510 an AIC and its two AIVs run one MIX task, and a cube result
// can reach the vector cores through L0C -> UB (pto-isa A5: TMOV from an Acc
// to a Vec tile, through the fixpipe) instead of a GM workspace
// (docs/TileGraph.md#on-chip-exchanges). This pass merges the cube tasks
// that store into such a workspace with the vector tasks that read it back
// into MIX tasks, and marks the workspace `pto.on_chip` once every piece of
// it is written and read inside one MIX task.
//
//===----------------------------------------------------------------------===//

#include "MixExchange.h"
#include "TaskMergeSupport.h"
#include "pto/Support/BoxIndex.h"
#include "pto/Support/UnionFind.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/BitVector.h"

namespace mlir::pto {
#define GEN_PASS_DEF_MIXEXCHANGEPASS
#include "pto/Dialect/PTO/Transforms/Passes.h.inc"
} // namespace mlir::pto

using namespace mlir;
using namespace mlir::pto;
using mlir::pto::detail::Box;
using mlir::pto::detail::BoxIndex;

namespace {

/// A workspace whose stores are cube results and whose views are read by
/// vector tasks: the tasks it joins, by their index in the block.
struct Exchange {
  WorkspaceOp workspace;
  SmallVector<std::pair<unsigned, unsigned>> joins; // reader, writer task
  SmallVector<unsigned> tasks;
};

class MixExchangePass : public pto::impl::MixExchangePassBase<MixExchangePass> {
public:
  void runOnOperation() override {
    bool anyKernel = false;
    // Kernels do not nest: their bodies need not be walked to find them.
    getOperation()->walk<WalkOrder::PreOrder>([&](KernelOp kernel) {
      if (!getPlatformInfo(kernel.getArchOrDefault()).hasL0CToUB)
        return WalkResult::skip();
      anyKernel = true;
      llvm::SetVector<Block *> blocks;
      kernel.walk([&](TaskOp task) { blocks.insert(task->getBlock()); });
      for (Block *block : blocks)
        runOnBlock(*block);
      return WalkResult::skip();
    });
    // No kernel on an architecture with the exchange: nothing changed, and
    // the verifier need not walk the module again.
    if (!anyKernel)
      markAllAnalysesPreserved();
  }

private:
  void runOnBlock(Block &block);
  std::optional<Exchange>
  findExchange(WorkspaceOp workspace, Block &block,
               const llvm::DenseMap<Operation *, unsigned> &index);
  /// Merges the member tasks into one MIX task at the last member's place,
  /// moving the tasks between them that depend on an earlier member below
  /// it; fails (IR untouched) when that would reorder conflicting accesses.
  bool mergeComponent(ArrayRef<TaskOp> members);
};

/// The task of `block` that holds `op`, if any.
TaskOp taskIn(Operation *op, Block &block) {
  for (Operation *parent = op; parent; parent = parent->getParentOp())
    if (auto task = dyn_cast<TaskOp>(parent))
      return task->getBlock() == &block ? task : TaskOp();
  return TaskOp();
}

/// Calls `onStore(task, assemble)` for each store and `onView(task, view)`
/// for each view of `workspace`, in use order, while each is a store of a
/// matmul result in a cube task or a tile view in a vector task of `block`,
/// at static offsets (the shape of an exchange); false at the first access
/// that is not.
template <typename StoreFn, typename ViewFn>
bool forEachExchangeAccess(WorkspaceOp workspace, Block &block, StoreFn onStore,
                           ViewFn onView) {
  for (Operation *user : workspace.getResult().getUsers()) {
    TaskOp task = taskIn(user, block);
    if (!task)
      return false;
    CoreKind kind = task.getKind();
    if (auto assemble = dyn_cast<AssembleOp>(user)) {
      if (kind != CoreKind::cube || !assemble.getOffsets().empty() ||
          !isa_and_nonnull<MatmulOp, MatmulAccOp>(
              assemble.getSrc().getDefiningOp()))
        return false;
      onStore(task, assemble);
      continue;
    }
    auto view = dyn_cast<ViewOp>(user);
    if (!view || kind != CoreKind::vector || !view.getOffsets().empty() ||
        !isa<TileType>(view.getResult().getType()))
      return false;
    onView(task, view);
  }
  return true;
}

std::optional<Exchange> MixExchangePass::findExchange(
    WorkspaceOp workspace, Block &block,
    const llvm::DenseMap<Operation *, unsigned> &index) {
  Exchange exchange{workspace, {}, {}};
  KernelOp kernel = workspace->getParentOfType<KernelOp>();
  int64_t ubBytes = getPlatformInfo(kernel.getArchOrDefault()).ubBytes;
  GMTensorType type = workspace.getResult().getType();
  int64_t elementBytes =
      std::max<int64_t>(1, type.getElementType().getIntOrFloatBitWidth() / 8);
  SmallVector<std::pair<unsigned, Box>> stores, views;
  bool shaped = forEachExchangeAccess(
      workspace, block,
      [&](TaskOp task, AssembleOp assemble) {
        ArrayRef<int64_t> shape = assemble.getSrc().getType().getShape();
        stores.push_back({index.lookup(task),
                          Box(SmallVector<int64_t>(assemble.getStaticOffsets()),
                              SmallVector<int64_t>(shape))});
      },
      [&](TaskOp task, ViewOp view) {
        ArrayRef<int64_t> shape =
            cast<TileType>(view.getResult().getType()).getShape();
        views.push_back({index.lookup(task),
                         Box(SmallVector<int64_t>(view.getStaticOffsets()),
                             SmallVector<int64_t>(shape))});
      });
  if (!shaped || stores.empty() || views.empty())
    return std::nullopt;
  BoxIndex grid;
  for (auto [i, store] : llvm::enumerate(stores))
    grid.insert(i, store.second);
  // A view reads one stored piece, inside it: the L0C -> UB move hands
  // over whole accumulator tiles (split by rows between the two AIVs), so
  // a vector piece spanning two would need both in L0C and in UB at once.
  // `staged`: per reader, the stored pieces it needs in UB.
  llvm::SetVector<unsigned> touched;
  llvm::MapVector<unsigned, llvm::SetVector<unsigned>> staged;
  for (auto &view : views) {
    unsigned reader = view.first;
    SmallVector<unsigned, 2> overlapping;
    grid.forEachOverlap(view.second,
                        [&](unsigned i) { overlapping.push_back(i); });
    llvm::sort(overlapping);
    overlapping.erase(llvm::unique(overlapping), overlapping.end());
    if (overlapping.size() != 1)
      return std::nullopt; // none (not written here) or several pieces
    const Box &store = stores[overlapping.front()].second;
    for (size_t d = 0; d < store.first.size(); ++d)
      if (view.second.first[d] < store.first[d] ||
          view.second.first[d] + view.second.second[d] >
              store.first[d] + store.second[d])
        return std::nullopt;
    exchange.joins.push_back({reader, stores[overlapping.front()].first});
    staged[reader].insert(overlapping.front());
    touched.insert(reader);
  }
  // Each reader's pieces fit the UB of the two AIVs, half each.
  for (auto &[reader, pieces] : staged) {
    int64_t bytes = 0;
    for (unsigned i : pieces) {
      int64_t elements = 1;
      for (int64_t n : stores[i].second.second)
        elements *= n;
      bytes += elements * elementBytes;
    }
    if (bytes > 2 * ubBytes)
      return std::nullopt;
  }
  for (auto &store : stores)
    touched.insert(store.first);
  exchange.tasks.assign(touched.begin(), touched.end());
  return exchange;
}

bool MixExchangePass::mergeComponent(ArrayRef<TaskOp> members) {
  // One sweep from the first member to the last: the members seen so far
  // move down to the last one, and so must every task in between that
  // conflicts with them or with a task already moving; a later member may
  // not conflict with a task that moves below it (it would depend on it).
  llvm::SmallPtrSet<Operation *, 8> isMember;
  for (TaskOp task : members)
    isMember.insert(task);
  GMAccessAnalysis gm(members.front()->getParentOp());
  taskmerge::AccessIndex moving, pushedAccesses;
  SmallVector<Operation *> pushed;
  Operation *last = members.back();
  for (Operation *op = members.front(); op != last; op = op->getNextNode()) {
    GMAccessSummary summary = taskmerge::summarize(gm, op);
    if (isMember.contains(op)) {
      if (!pushed.empty() && pushedAccesses.conflicts(summary))
        return false;
      moving.add(summary);
      continue;
    }
    if ((summary.accesses.empty() && !summary.unknown) ||
        !moving.conflicts(summary))
      continue;
    if (!isa<TaskOp>(op) || op->getNumResults() != 0)
      return false;
    moving.add(summary);
    pushedAccesses.add(summary);
    pushed.push_back(op);
  }
  if (!pushed.empty() &&
      pushedAccesses.conflicts(taskmerge::summarize(gm, last)))
    return false;

  // The stage of the first member's family (C1 -> M1).
  StringRef family = TaskOp(members.front()).getFamily();
  std::string stage =
      family.drop_while([](char c) { return !isdigit(c); }).str();
  OpBuilder builder(last);
  auto mix = TaskOp::create(
      builder, last->getLoc(), TypeRange(),
      CoreKindAttr::get(builder.getContext(), CoreKind::mix),
      builder.getStringAttr("M" + (stage.empty() ? std::string("1") : stage)),
      ScopeAttr());
  Block *body = new Block();
  mix.getBody().push_back(body);
  OpBuilder bodyBuilder = OpBuilder::atBlockEnd(body);
  YieldOp::create(bodyBuilder, mix.getLoc());
  for (TaskOp task : members) {
    Block &from = task.getBody().front();
    body->getOperations().splice(Block::iterator(body->getTerminator()),
                                 from.getOperations(), from.begin(),
                                 std::prev(from.end()));
    task.erase();
  }
  Operation *after = mix;
  for (Operation *op : pushed) {
    op->moveAfter(after);
    after = op;
  }
  return true;
}

void MixExchangePass::runOnBlock(Block &block) {
  SmallVector<TaskOp> tasks;
  llvm::DenseMap<Operation *, unsigned> index;
  for (Operation &op : block)
    if (auto task = dyn_cast<TaskOp>(op)) {
      index[task] = tasks.size();
      tasks.push_back(task);
    }

  // Exchanges and the components of tasks they join.
  SmallVector<Exchange> exchanges;
  UnionFind components(tasks.size());
  llvm::BitVector inExchange(tasks.size());
  for (Operation &op : block) {
    auto workspace = dyn_cast<WorkspaceOp>(op);
    if (!workspace)
      continue;
    std::optional<Exchange> exchange = findExchange(workspace, block, index);
    if (!exchange)
      continue;
    for (unsigned t : exchange->tasks)
      inExchange.set(t);
    for (auto [reader, writer] : exchange->joins)
      components.unite(reader, writer);
    exchanges.push_back(std::move(*exchange));
  }
  if (exchanges.empty())
    return;

  // Members per component leader, in block order; a component needs a cube
  // and a vector task (a MIX task of them) and tasks without results.
  llvm::MapVector<unsigned, SmallVector<unsigned>> members;
  for (unsigned t = 0; t < tasks.size(); ++t)
    if (inExchange.test(t))
      members[components.find(t)].push_back(t);
  llvm::DenseSet<unsigned> merged;
  for (auto &[leader, list] : members) {
    bool cube = false, vector = false, results = false;
    for (unsigned t : list) {
      cube |= tasks[t].getKind() == CoreKind::cube;
      vector |= tasks[t].getKind() == CoreKind::vector;
      results |= tasks[t]->getNumResults() != 0;
    }
    if (!cube || !vector || results)
      continue;
    // On the IR as the previous merges left it (they may have moved
    // tasks of this component below others).
    SmallVector<TaskOp> live;
    for (unsigned t : list)
      live.push_back(tasks[t]);
    llvm::sort(live, [](TaskOp x, TaskOp y) { return x->isBeforeInBlock(y); });
    if (mergeComponent(live)) {
      merged.insert(leader);
      ++numMixTasks;
    } else {
      ++numRejected;
    }
  }

  // An exchange whose tasks all merged never reaches GM.
  for (Exchange &exchange : exchanges)
    if (llvm::all_of(exchange.tasks, [&](unsigned t) {
          return merged.contains(components.find(t));
        })) {
      exchange.workspace->setAttr(
          kOnChipAttrName, UnitAttr::get(exchange.workspace.getContext()));
      ++numOnChip;
    }
}

} // namespace

using mlir::pto::detail::MixSerialisation;

MixSerialisation::MixSerialisation(Block &block) : block(block) {
  KernelOp kernel = block.getParentOp()->getParentOfType<KernelOp>();
  if (!kernel)
    kernel = dyn_cast<KernelOp>(block.getParentOp());
  enabled = kernel && getPlatformInfo(kernel.getArchOrDefault()).hasL0CToUB;
}

/// Of two loops around the block (null: none), the inner one.
static Operation *innerOf(Operation *a, Operation *b) {
  if (!a)
    return b;
  if (!b)
    return a;
  return a->isProperAncestor(b) ? b : a;
}

Operation *MixSerialisation::ofOuterWorkspace(Operation *workspace) {
  auto [it, inserted] = outerCache.try_emplace(workspace, nullptr);
  if (!inserted)
    return it->second;
  // One buffer (pto-run and the emitted code keep one per workspace op
  // outside roots): every loop around the block and a write to it runs its
  // iterations in turn once the block's tasks read it. Ops without declared
  // effects count as writes.
  Operation *loop = nullptr;
  for (Operation *user : workspace->getResult(0).getUsers()) {
    auto effects = dyn_cast<MemoryEffectOpInterface>(user);
    if (effects && !effects.hasEffect<MemoryEffects::Write>())
      continue;
    for (Operation *op = block.getParentOp(); op; op = op->getParentOp())
      if (isa<LoopOp>(op) && op->isProperAncestor(user)) {
        loop = innerOf(loop, op);
        break;
      }
  }
  return outerCache[workspace] = loop;
}

Operation *MixSerialisation::ofReader(Operation *reader) {
  if (auto it = readerCache.find(reader); it != readerCache.end())
    return it->second;
  Operation *loop = nullptr;
  reader->walk([&](Operation *op) {
    for (Value operand : op->getOperands())
      if (auto workspace = operand.getDefiningOp<WorkspaceOp>())
        if (workspace->getBlock() != &block)
          loop = innerOf(loop, ofOuterWorkspace(workspace));
  });
  return readerCache[reader] = loop;
}

Operation *MixSerialisation::ofStored(Value workspace) {
  if (auto it = storedCache.find(workspace); it != storedCache.end())
    return it->second;
  Operation *loop = nullptr;
  for (Operation *user : workspace.getUsers())
    if (TaskOp reader = taskIn(user, block))
      if (reader.getKind() == CoreKind::vector && isa<ViewOp>(user))
        loop = innerOf(loop, ofReader(reader));
  return storedCache[workspace] = loop;
}

void MixSerialisation::startQuery() {
  // The block may have changed since the last query (pto-l1-reuse splits
  // and erases cube tasks between groups), and an erased op's or value's
  // address can come back for a new one: answers are cached within a query.
  storedCache.clear();
  readerCache.clear();
  outerCache.clear();
}

Operation *MixSerialisation::serialisedLoop(ArrayRef<TaskOp> cubeTasks) {
  Operation *loop = nullptr;
  if (!enabled)
    return loop;
  startQuery();
  for (TaskOp task : cubeTasks)
    task.walk([&](AssembleOp assemble) {
      if (assemble.getDst().getDefiningOp<WorkspaceOp>() &&
          isa_and_nonnull<MatmulOp, MatmulAccOp>(
              assemble.getSrc().getDefiningOp()))
        loop = innerOf(loop, ofStored(assemble.getDst()));
    });
  return loop;
}

bool MixSerialisation::hasParallelExchange() {
  if (parallelExchange)
    return *parallelExchange;
  parallelExchange = false;
  if (!enabled)
    return false;
  startQuery();
  llvm::SmallPtrSet<Operation *, 8> seen;
  for (TaskOp task : block.getOps<TaskOp>()) {
    if (task.getKind() != CoreKind::cube)
      continue;
    WalkResult walk = task.walk([&](AssembleOp assemble) {
      auto workspace = assemble.getDst().getDefiningOp<WorkspaceOp>();
      if (!workspace || workspace->getBlock() != &block ||
          !isa_and_nonnull<MatmulOp, MatmulAccOp>(
              assemble.getSrc().getDefiningOp()) ||
          !seen.insert(workspace).second)
        return WalkResult::advance();
      bool viewed = false;
      if (!ofStored(workspace.getResult()) &&
          forEachExchangeAccess(
              workspace, block, [](TaskOp, AssembleOp) {},
              [&](TaskOp, ViewOp) { viewed = true; }) &&
          viewed)
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return *(parallelExchange = true);
  }
  return false;
}
