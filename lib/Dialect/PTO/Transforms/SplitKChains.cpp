//===- SplitKChains.cpp - cut cube tasks' K chains into partial sums -----===//

#include "SplitKChains.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::pto;

namespace {

/// A cube task's matmul chain (matmul, then matmul_acc on the previous
/// result) and the assemble storing its end into a workspace.
struct Chain {
  SmallVector<Operation *> steps;
  AssembleOp store;
  WorkspaceOp workspace;
};

std::optional<Chain> chainOf(TaskOp task, unsigned parts) {
  Chain chain;
  for (Operation &op : task.getBody().front().without_terminator()) {
    if (isa<MatmulOp>(op)) {
      if (!chain.steps.empty())
        return std::nullopt;
      chain.steps.push_back(&op);
    } else if (auto acc = dyn_cast<MatmulAccOp>(op)) {
      if (chain.steps.empty() || acc.getAcc() != chain.steps.back()->getResult(0))
        return std::nullopt;
      chain.steps.push_back(&op);
    } else if (auto store = dyn_cast<AssembleOp>(op)) {
      if (chain.store)
        return std::nullopt;
      chain.store = store;
    } else if (!isa<ViewOp>(op) &&
               (op.getNumRegions() != 0 || !isMemoryEffectFree(&op))) {
      return std::nullopt;
    }
  }
  if (chain.steps.size() < 2 || chain.steps.size() % parts || !chain.store ||
      chain.store.getSrc() != chain.steps.back()->getResult(0))
    return std::nullopt;
  for (Operation *step : chain.steps)
    if (!step->getResult(0).hasOneUse())
      return std::nullopt;
  chain.workspace = chain.store.getDst().getDefiningOp<WorkspaceOp>();
  if (!chain.workspace || chain.workspace->getBlock() != task->getBlock())
    return std::nullopt;
  return chain;
}

/// The ops of `task` that use a value read by `view`, in program order, if
/// they are only multiplications by other values ending in atomic adds;
/// `read` holds every op of the task reading the workspace so far.
std::optional<SmallVector<Operation *>>
linearUses(ViewOp view, const llvm::DenseSet<Operation *> &read) {
  llvm::SetVector<Operation *> slice;
  SmallVector<Value> work = {view.getResult()};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      if (auto mul = dyn_cast<MulOp>(user)) {
        Value other = use.getOperandNumber() == 0 ? mul.getRhs() : mul.getLhs();
        if (other == v)
          return std::nullopt;
        if (Operation *def = other.getDefiningOp(); def && read.contains(def))
          return std::nullopt;
        if (slice.insert(user))
          work.push_back(mul.getResult());
      } else if (auto atomic = dyn_cast<AtomicAddOp>(user)) {
        if (use.getOperandNumber() != 0)
          return std::nullopt;
        slice.insert(user);
      } else {
        return std::nullopt;
      }
    }
  }
  SmallVector<Operation *> ordered(slice.begin(), slice.end());
  llvm::sort(ordered, [](Operation *a, Operation *b) {
    return a->isBeforeInBlock(b);
  });
  if (ordered.empty() || ordered.front()->getBlock() != view->getBlock())
    return std::nullopt;
  return ordered;
}

/// The readers of `workspace`: each view with its linear uses; none if a
/// use is anything else (or a store not in `stores`).
std::optional<SmallVector<std::pair<ViewOp, SmallVector<Operation *>>>>
readersOf(WorkspaceOp workspace, const llvm::DenseSet<Operation *> &stores) {
  SmallVector<std::pair<ViewOp, SmallVector<Operation *>>> readers;
  Block *block = workspace->getBlock();
  for (OpOperand &use : workspace.getResult().getUses()) {
    Operation *user = use.getOwner();
    if (stores.contains(user))
      continue;
    auto view = dyn_cast<ViewOp>(user);
    auto task = user->getParentOfType<TaskOp>();
    if (!view || !task || task->getBlock() != block ||
        task.getKind() != CoreKind::vector ||
        view->getParentOp() != task.getOperation())
      return std::nullopt;
    // Every op of the task reading the workspace through some view.
    llvm::DenseSet<Operation *> read;
    for (OpOperand &other : workspace.getResult().getUses())
      if (auto otherView = dyn_cast<ViewOp>(other.getOwner());
          otherView && task->isAncestor(otherView)) {
        SmallVector<Value> work = {otherView.getResult()};
        read.insert(otherView);
        while (!work.empty())
          for (Operation *u : work.pop_back_val().getUsers())
            if (read.insert(u).second)
              for (Value r : u->getResults())
                work.push_back(r);
      }
    std::optional<SmallVector<Operation *>> uses = linearUses(view, read);
    if (!uses)
      return std::nullopt;
    readers.push_back({view, std::move(*uses)});
  }
  return readers;
}

/// Keeps K steps [lo, hi) of a chain in its task, storing their sum.
void keepSteps(Chain &chain, unsigned lo, unsigned hi) {
  chain.store.getSrcMutable().assign(chain.steps[hi - 1]->getResult(0));
  if (lo > 0) {
    // The first kept step starts a new sum.
    auto acc = cast<MatmulAccOp>(chain.steps[lo]);
    OpBuilder builder(acc);
    OperationState state(acc.getLoc(), MatmulOp::getOperationName());
    state.addOperands({acc.getLhs(), acc.getRhs()});
    state.addTypes(acc.getResult().getType());
    state.addAttributes(acc->getAttrs());
    Operation *start = builder.create(state);
    acc.getResult().replaceAllUsesWith(start->getResult(0));
    acc.erase();
    chain.steps[lo] = start;
  }
  for (unsigned i = chain.steps.size(); i-- > 0;)
    if (i < lo || i >= hi)
      chain.steps[i]->erase();
  // Views and index arithmetic only the erased steps used.
  Block &body = chain.store->getParentOfType<TaskOp>().getBody().front();
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
    if (op.use_empty() && op.getNumResults() != 0 &&
        (isa<ViewOp>(op) || isMemoryEffectFree(&op)))
      op.erase();
}

} // namespace

bool mlir::pto::detail::canSplitKChains(ArrayRef<TaskOp> tasks,
                                        unsigned parts) {
  if (parts < 2 || tasks.empty())
    return false;
  llvm::DenseSet<Operation *> stores;
  llvm::SetVector<Operation *> workspaces;
  for (TaskOp task : tasks) {
    std::optional<Chain> chain = chainOf(task, parts);
    if (!chain)
      return false;
    stores.insert(chain->store);
    workspaces.insert(chain->workspace);
  }
  for (Operation *ws : workspaces)
    if (!readersOf(cast<WorkspaceOp>(ws), stores))
      return false;
  return true;
}

SmallVector<TaskOp>
mlir::pto::detail::splitKChains(ArrayRef<TaskOp> tasks, unsigned parts,
                                SmallVectorImpl<TaskOp> &readers) {
  llvm::SetVector<Operation *> readerTasks;
  llvm::DenseSet<Operation *> stores;
  SmallVector<Chain> chains;
  llvm::MapVector<Operation *, SmallVector<Value>> partials; // ws -> parts
  for (TaskOp task : tasks) {
    chains.push_back(*chainOf(task, parts));
    stores.insert(chains.back().store);
  }
  // One workspace per part (the first is the original), readers extended.
  for (Chain &chain : chains) {
    Operation *ws = chain.workspace;
    if (partials.count(ws))
      continue;
    auto views = *readersOf(chain.workspace, stores);
    SmallVector<Value> values = {chain.workspace.getResult()};
    OpBuilder builder(ws->getContext());
    builder.setInsertionPointAfter(ws);
    for (unsigned p = 1; p < parts; ++p)
      values.push_back(builder.clone(*ws)->getResult(0));
    for (auto &[view, uses] : views) {
      readerTasks.insert(view->getParentOp());
      builder.setInsertionPointAfter(uses.back());
      for (unsigned p = 1; p < parts; ++p) {
        IRMapping mapping;
        Operation *copy = builder.clone(*view);
        copy->setOperand(0, values[p]);
        mapping.map(view.getResult(), copy->getResult(0));
        for (Operation *op : uses)
          builder.clone(*op, mapping);
      }
    }
    partials[ws] = std::move(values);
  }
  SmallVector<TaskOp> result;
  for (auto [task, chain] : llvm::zip(tasks, chains)) {
    unsigned n = chain.steps.size(), per = n / parts;
    SmallVector<Value> &targets = partials[chain.workspace.getOperation()];
    result.push_back(task);
    OpBuilder builder(task->getContext());
    builder.setInsertionPointAfter(task);
    for (unsigned p = 1; p < parts; ++p) {
      IRMapping mapping;
      auto copy = cast<TaskOp>(builder.clone(*task, mapping));
      Chain part;
      for (Operation *step : chain.steps)
        part.steps.push_back(
            mapping.lookup(step->getResult(0)).getDefiningOp());
      part.store = cast<AssembleOp>(mapping.lookup(chain.store.getOperation()));
      part.store.getDstMutable().assign(targets[p]);
      keepSteps(part, p * per, (p + 1) * per);
      result.push_back(copy);
      builder.setInsertionPointAfter(copy);
    }
    keepSteps(chain, 0, per);
  }
  SmallVector<Operation *> ordered(readerTasks.begin(), readerTasks.end());
  llvm::sort(ordered, [](Operation *a, Operation *b) {
    return a->isBeforeInBlock(b);
  });
  for (Operation *op : ordered)
    readers.push_back(cast<TaskOp>(op));
  return result;
}
