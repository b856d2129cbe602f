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

#include "TaskMergeSupport.h"

#include "llvm/ADT/EquivalenceClasses.h"

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

class MixExchangePass
    : public pto::impl::MixExchangePassBase<MixExchangePass> {
public:
  void runOnOperation() override {
    getOperation()->walk([&](KernelOp kernel) {
      if (!getPlatformInfo(kernel.getArchOrDefault()).hasL0CToUB)
        return;
      llvm::SetVector<Block *> blocks;
      kernel.walk([&](TaskOp task) { blocks.insert(task->getBlock()); });
      for (Block *block : blocks)
        runOnBlock(*block);
    });
  }

private:
  void runOnBlock(Block &block);
  std::optional<Exchange>
  findExchange(WorkspaceOp workspace, Block &block,
               const llvm::DenseMap<Operation *, unsigned> &index,
               ArrayRef<TaskOp> tasks);
};

/// The task of `block` that holds `op`, if any.
TaskOp taskIn(Operation *op, Block &block) {
  for (Operation *parent = op; parent; parent = parent->getParentOp())
    if (auto task = dyn_cast<TaskOp>(parent))
      return task->getBlock() == &block ? task : TaskOp();
  return TaskOp();
}

std::optional<Exchange> MixExchangePass::findExchange(
    WorkspaceOp workspace, Block &block,
    const llvm::DenseMap<Operation *, unsigned> &index,
    ArrayRef<TaskOp> tasks) {
  Exchange exchange{workspace, {}, {}};
  SmallVector<std::pair<unsigned, Box>> stores, views;
  for (Operation *user : workspace.getResult().getUsers()) {
    TaskOp task = taskIn(user, block);
    if (!task)
      return std::nullopt;
    unsigned t = index.lookup(task);
    CoreKind kind = task.getKind();
    if (auto assemble = dyn_cast<AssembleOp>(user)) {
      Operation *source = assemble.getSrc().getDefiningOp();
      if (kind != CoreKind::cube || !assemble.getOffsets().empty() ||
          !isa_and_nonnull<MatmulOp, MatmulAccOp>(source))
        return std::nullopt;
      ArrayRef<int64_t> shape = assemble.getSrc().getType().getShape();
      stores.push_back({t, Box(SmallVector<int64_t>(assemble.getStaticOffsets()),
                               SmallVector<int64_t>(shape))});
      continue;
    }
    auto view = dyn_cast<ViewOp>(user);
    if (!view || kind != CoreKind::vector || !view.getOffsets().empty() ||
        !isa<TileType>(view.getResult().getType()))
      return std::nullopt;
    ArrayRef<int64_t> shape =
        cast<TileType>(view.getResult().getType()).getShape();
    views.push_back({t, Box(SmallVector<int64_t>(view.getStaticOffsets()),
                            SmallVector<int64_t>(shape))});
  }
  if (stores.empty() || views.empty())
    return std::nullopt;
  BoxIndex grid;
  for (auto [i, store] : llvm::enumerate(stores))
    grid.insert(i, store.second);
  llvm::SetVector<unsigned> touched;
  for (auto &view : views) {
    unsigned reader = view.first;
    bool any = false;
    grid.forEachOverlap(view.second, [&](unsigned i) {
      any = true;
      exchange.joins.push_back({reader, stores[i].first});
    });
    if (!any)
      return std::nullopt; // reads what no cube task here wrote
    touched.insert(reader);
  }
  for (auto &store : stores)
    touched.insert(store.first);
  exchange.tasks.assign(touched.begin(), touched.end());
  return exchange;
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
  llvm::EquivalenceClasses<unsigned> components;
  for (Operation &op : block) {
    auto workspace = dyn_cast<WorkspaceOp>(op);
    if (!workspace)
      continue;
    std::optional<Exchange> exchange =
        findExchange(workspace, block, index, tasks);
    if (!exchange)
      continue;
    for (unsigned t : exchange->tasks)
      components.insert(t);
    for (auto [reader, writer] : exchange->joins)
      components.unionSets(reader, writer);
    exchanges.push_back(std::move(*exchange));
  }
  if (exchanges.empty())
    return;

  // Members per component leader, in block order.
  llvm::MapVector<unsigned, SmallVector<unsigned>> members;
  for (auto [t, task] : llvm::enumerate(tasks))
    if (components.contains(t))
      members[components.getLeaderValue(t)].push_back(t);
  llvm::DenseSet<unsigned> legal;
  for (auto &[leader, list] : members) {
    bool cube = false, vector = false, results = false;
    for (unsigned t : list) {
      cube |= tasks[t].getKind() == CoreKind::cube;
      vector |= tasks[t].getKind() == CoreKind::vector;
      results |= tasks[t]->getNumResults() != 0;
    }
    if (cube && vector && !results)
      legal.insert(leader);
  }

  // The members move down to their last one: no op in between may
  // conflict with a member above it. One sweep, with the accesses of each
  // open component's members seen so far.
  taskmerge::ValueNumbering vn;
  llvm::DenseMap<unsigned, taskmerge::AccessIndex> open;
  llvm::DenseMap<unsigned, unsigned> remaining;
  for (auto &[leader, list] : members)
    remaining[leader] = list.size();
  for (Operation &op : block) {
    auto task = dyn_cast<TaskOp>(op);
    std::optional<unsigned> leader;
    if (task && components.contains(index.lookup(task)))
      leader = components.getLeaderValue(index.lookup(task));
    taskmerge::AccessSummary summary = taskmerge::summarize(vn, &op);
    if (!open.empty() && (!summary.accesses.empty() || summary.barrier))
      for (auto &[other, accesses] : open)
        if ((!leader || *leader != other) && accesses.conflicts(summary))
          legal.erase(other);
    if (!leader || !legal.contains(*leader))
      continue;
    if (--remaining[*leader] == 0)
      open.erase(*leader);
    else
      open[*leader].add(summary);
  }

  // Merge each legal component into a MIX task at its last member.
  for (auto &[leader, list] : members) {
    if (!legal.contains(leader)) {
      if (llvm::any_of(list, [&](unsigned t) {
            return tasks[t].getKind() == CoreKind::cube;
          }))
        ++numRejected;
      continue;
    }
    TaskOp last = tasks[list.back()];
    // The stage of the cube tasks' family (C1 -> M1).
    StringRef family = tasks[list.front()].getFamily();
    std::string stage = family.drop_while([](char c) { return !isdigit(c); }).str();
    OpBuilder builder(last);
    auto mix = builder.create<TaskOp>(
        last.getLoc(), TypeRange(),
        CoreKindAttr::get(builder.getContext(), CoreKind::mix),
        builder.getStringAttr("M" + (stage.empty() ? std::string("1") : stage)),
        ScopeAttr());
    Block *body = new Block();
    mix.getBody().push_back(body);
    OpBuilder::atBlockEnd(body).create<YieldOp>(mix.getLoc());
    for (unsigned t : list) {
      Block &from = tasks[t].getBody().front();
      body->getOperations().splice(Block::iterator(body->getTerminator()),
                                   from.getOperations(), from.begin(),
                                   std::prev(from.end()));
      tasks[t].erase();
    }
    ++numMixTasks;
  }

  // An exchange whose tasks all merged never reaches GM.
  for (Exchange &exchange : exchanges)
    if (llvm::all_of(exchange.tasks, [&](unsigned t) {
          return legal.contains(components.getLeaderValue(t));
        })) {
      exchange.workspace->setAttr(kOnChipAttrName,
                                  UnitAttr::get(exchange.workspace.getContext()));
      ++numOnChip;
    }
}

} // namespace
