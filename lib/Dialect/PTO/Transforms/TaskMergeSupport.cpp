//===- TaskMergeSupport.cpp - groups, accesses and the merge planner ------===//

#include "TaskMergeSupport.h"

#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;
using namespace mlir::pto;

namespace mlir::pto::taskmerge {

//===----------------------------------------------------------------------===//
// Value numbering of index expressions
//===----------------------------------------------------------------------===//

unsigned ValueNumbering::get(Value v) {
  if (auto it = memo.find(v); it != memo.end())
    return it->second;
  unsigned id;
  Operation *def = v.getDefiningOp();
  APInt cst;
  if (def && v.getType().isIntOrIndex() &&
      matchPattern(v, m_ConstantInt(&cst))) {
    id = constant(cst.getSExtValue());
  } else if (def && def->getNumRegions() == 0 && isMemoryEffectFree(def)) {
    std::vector<uintptr_t> key = {
        1, reinterpret_cast<uintptr_t>(def->getName().getAsOpaquePointer()),
        reinterpret_cast<uintptr_t>(
            def->getAttrDictionary().getAsOpaquePointer()),
        cast<OpResult>(v).getResultNumber(),
        reinterpret_cast<uintptr_t>(v.getType().getAsOpaquePointer())};
    for (Value operand : def->getOperands())
      key.push_back(get(operand));
    id = intern(std::move(key));
  } else {
    id = intern({2, reinterpret_cast<uintptr_t>(v.getAsOpaquePointer())});
  }
  memo[v] = id;
  return id;
}

unsigned ValueNumbering::constant(int64_t c) {
  return intern({0, static_cast<uintptr_t>(c)});
}

unsigned ValueNumbering::intern(std::vector<uintptr_t> key) {
  auto [it, inserted] = table.try_emplace(std::move(key), table.size() + 1);
  return it->second;
}

/// `statics` with kDynamic entries taken from `dynamic`, numbered.
void appendMixed(ValueNumbering &vn, ArrayRef<int64_t> statics,
                 ValueRange dynamic, std::vector<uintptr_t> &key) {
  unsigned next = 0;
  for (int64_t s : statics)
    key.push_back(ShapedType::isDynamic(s) ? vn.get(dynamic[next++])
                                           : vn.constant(s));
}

GMAccessSummary summarize(GMAccessAnalysis &gm, Operation *root) {
  GMAccessSummary summary = gm.summarize(root);
  for (GMAccess &access : summary.accesses)
    if (access.kind & GMAccess::kAtomic)
      access.kind = (access.kind & ~GMAccess::kAtomic) | GMAccess::kWrite;
  return summary;
}

const GMAccessSummary &BlockAccesses::summary(Operation *op) {
  std::unique_ptr<GMAccessSummary> &slot = summaries[op];
  if (!slot)
    slot = std::make_unique<GMAccessSummary>(summarize(gm, op));
  return *slot;
}

void BlockAccesses::forgetBody(Operation *op) {
  op->walk([&](Operation *nested) { summaries.erase(nested); });
  gm.forget(op);
}

void BlockAccesses::erase(Operation *op) {
  forgetBody(op);
  op->erase();
}

bool isLoad(Operation *op) {
  auto view = dyn_cast<ViewOp>(op);
  return view && isa<GMTensorType>(view.getSource().getType());
}

/// The loads of a task, in program order.
SmallVector<ViewOp> loadsOf(TaskOp task) {
  SmallVector<ViewOp> loads;
  task.getBody().walk([&](ViewOp view) {
    if (isLoad(view))
      loads.push_back(view);
  });
  return loads;
}

unsigned FeatureTable::get(ViewOp view) {
  std::vector<uintptr_t> key = {vn.get(view.getSource())};
  appendMixed(vn, view.getStaticOffsets(), view.getOffsets(), key);
  if (std::optional<ArrayRef<int64_t>> valid = view.getStaticValidShape()) {
    key.push_back(1);
    appendMixed(vn, *valid, view.getValidShape(), key);
  } else {
    key.push_back(0);
  }
  key.push_back(reinterpret_cast<uintptr_t>(
      view.getResult().getType().getAsOpaquePointer()));
  auto [it, inserted] = table.try_emplace(std::move(key), table.size() + 1);
  return it->second;
}

int64_t kStep(Operation *op, DenseMap<Operation *, int64_t> &memo) {
  if (auto it = memo.find(op); it != memo.end())
    return it->second;
  int64_t step = 0;
  if (auto acc = dyn_cast<MatmulAccOp>(op))
    if (Operation *def = acc.getAcc().getDefiningOp();
        def && isa<MatmulOp, MatmulAccOp>(def))
      step = kStep(def, memo) + 1;
  return memo[op] = step;
}

void classifyUses(Value value, Load &load,
                  DenseMap<Operation *, int64_t> &stepMemo) {
  for (OpOperand &use : value.getUses()) {
    Operation *user = use.getOwner();
    unsigned n = use.getOperandNumber();
    if (auto mm = dyn_cast<MatmulOp>(user)) {
      load.sides |=
          n == mm.getLhsMutable().getOperandNumber() ? kSideA : kSideB;
      load.steps.push_back(kStep(user, stepMemo));
    } else if (auto mm = dyn_cast<MatmulAccOp>(user)) {
      if (n == mm.getAccMutable().getOperandNumber()) {
        load.sides |= kSideOther;
        load.steps.push_back(kEveryStep);
        continue;
      }
      load.sides |=
          n == mm.getLhsMutable().getOperandNumber() ? kSideA : kSideB;
      load.steps.push_back(kStep(user, stepMemo));
    } else if (auto view = dyn_cast<ViewOp>(user)) {
      classifyUses(view.getResult(), load, stepMemo);
    } else {
      load.sides |= kSideOther;
      load.steps.push_back(kEveryStep);
    }
  }
}

/// A structural signature of a task: equal signatures mean isomorphic bodies
/// (op names, attributes other than static offsets and valid extents, types,
/// use-def structure inside the task; captured values by type only; index
/// constants by type only).
std::vector<uintptr_t> signature(TaskOp task) {
  auto ptr = [](const void *p) { return reinterpret_cast<uintptr_t>(p); };
  MLIRContext *ctx = task.getContext();
  StringAttr staticOffsets = StringAttr::get(ctx, "static_offsets");
  StringAttr staticValid = StringAttr::get(ctx, "static_valid_shape");
  std::vector<uintptr_t> sig;
  // An op's attributes but the offsets and valid extents: the discardable
  // ones (one uniqued dictionary; rebuilt only when something is left out),
  // then the inherent ones by name (null when absent). Not
  // getAttrDictionary, which builds and uniques a dictionary of the
  // properties for every op: a lookup in the context's tables, which hold
  // every dictionary and name of the module (docs/CompileTime.md).
  auto appendAttributes = [&](Operation *op) {
    DictionaryAttr discardable = op->getRawDictionaryAttrs();
    if (discardable.contains(staticOffsets) ||
        discardable.contains(staticValid)) {
      NamedAttrList attrs;
      for (NamedAttribute attr : discardable)
        if (attr.getName() != staticOffsets && attr.getName() != staticValid)
          attrs.push_back(attr);
      discardable = attrs.getDictionary(ctx);
    }
    sig.push_back(ptr(discardable.getAsOpaquePointer()));
    if (std::optional<RegisteredOperationName> info = op->getRegisteredInfo()) {
      sig.push_back(info->getAttributeNames().size());
      for (StringAttr name : info->getAttributeNames())
        if (name != staticOffsets && name != staticValid)
          sig.push_back(ptr(op->getInherentAttr(name)
                                .value_or(Attribute())
                                .getAsOpaquePointer()));
    }
  };
  appendAttributes(task);
  sig.push_back(task.getNumResults());
  DenseMap<Value, unsigned> local;
  auto define = [&](Value v) {
    local.try_emplace(v, local.size());
    sig.push_back(ptr(v.getType().getAsOpaquePointer()));
  };
  task.getBody().walk<WalkOrder::PreOrder>([&](Operation *op) {
    sig.push_back(ptr(op->getName().getAsOpaquePointer()));
    // Index constants are offsets too (index arithmetic copied into tasks).
    bool indexConstant =
        isa<arith::ConstantOp>(op) && op->getResult(0).getType().isIndex();
    if (indexConstant)
      sig.push_back(0);
    else
      appendAttributes(op);
    // Which dims are static is structure; their values are parameters.
    if (auto view = dyn_cast<ViewOp>(op)) {
      for (int64_t off : view.getStaticOffsets())
        sig.push_back(ShapedType::isDynamic(off));
      if (auto valid = view.getStaticValidShape())
        for (int64_t v : *valid)
          sig.push_back(ShapedType::isDynamic(v));
    }
    sig.push_back(op->getNumOperands());
    for (Value operand : op->getOperands()) {
      auto it = local.find(operand);
      if (it != local.end()) {
        sig.push_back(1);
        sig.push_back(it->second);
      } else {
        sig.push_back(2);
        sig.push_back(ptr(operand.getType().getAsOpaquePointer()));
      }
    }
    sig.push_back(op->getNumResults());
    for (Value result : op->getResults())
      define(result);
    sig.push_back(op->getNumRegions());
    for (Region &region : op->getRegions()) {
      sig.push_back(region.getBlocks().size());
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          define(arg);
    }
  });
  return sig;
}

int64_t footprintBytes(const Footprint &fp) {
  int64_t every = 0, worst = 0;
  if (auto it = fp.find(kEveryStep); it != fp.end())
    for (auto &[key, bytes] : it->second)
      every += bytes;
  for (auto &[step, loads] : fp) {
    if (step == kEveryStep)
      continue;
    int64_t total = 0;
    for (auto &[key, bytes] : loads)
      total += bytes;
    worst = std::max(worst, total);
  }
  return every + worst;
}

/// Bytes of one K step's loads of `base` with `added` laid over it (either
/// may be absent).
static int64_t stepBytes(const std::map<uint64_t, int64_t> *base,
                         const std::map<uint64_t, int64_t> *added) {
  int64_t total = 0;
  if (added)
    for (auto &[key, bytes] : *added)
      total += bytes;
  if (base)
    for (auto &[key, bytes] : *base)
      if (!added || !added->count(key))
        total += bytes;
  return total;
}

int64_t mergedFootprintBytes(const Footprint &base, const Footprint &added) {
  auto stepOf = [](const Footprint &fp, int64_t step) {
    auto it = fp.find(step);
    return it == fp.end() ? nullptr : &it->second;
  };
  int64_t every =
      stepBytes(stepOf(base, kEveryStep), stepOf(added, kEveryStep));
  int64_t worst = 0;
  for (auto &[step, loads] : base)
    if (step != kEveryStep)
      worst = std::max(worst, stepBytes(&loads, stepOf(added, step)));
  for (auto &[step, loads] : added)
    if (step != kEveryStep && !base.count(step))
      worst = std::max(worst, stepBytes(nullptr, &loads));
  return every + worst;
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

int64_t loadBytes(ViewOp view) {
  return view.getResult().getType().getByteSize();
}

int64_t cubeLoadBytes(Operation *root) {
  int64_t bytes = 0;
  root->walk([&](TaskOp task) {
    if (task.getKind() == CoreKind::cube)
      for (ViewOp view : loadsOf(task))
        bytes += loadBytes(view);
  });
  return bytes;
}

/// One merge setting of the kernel's pass_options (null without one), e.g.
/// `mergeSetting(kernel, &PassOptionsAttr::getVecNbufferSetting)`.
MergeSettingAttr mergeSetting(KernelOp kernel,
                              MergeSettingAttr (PassOptionsAttr::*get)()
                                  const) {
  PassOptionsAttr options = kernel.getPassOptionsAttr();
  return options ? (options.*get)() : MergeSettingAttr();
}

/// The setting's value for group `group`: its key, else key -1; none (the
/// automatic choice) without a setting or either key.
GroupSetting lookupSetting(MergeSettingAttr setting, int64_t group) {
  GroupSetting result;
  if (!setting)
    return result;
  result.count = setting.getCountFor(group);
  if (!result.count)
    return result;
  ArrayRef<int64_t> keys = setting.getKeys();
  const auto *it = llvm::find(keys, group);
  if (it == keys.end())
    it = llvm::find(keys, -1);
  if (it != keys.end())
    result.side = setting.getSides()[it - keys.begin()];
  return result;
}

unsigned sideMaskOf(int64_t side) {
  if (side == kSettingLeft)
    return kSideA;
  if (side == kSettingRight)
    return kSideB;
  return kAllSides;
}

StringRef sideName(int64_t side) {
  switch (side) {
  case kSettingLeft:
    return "left";
  case kSettingRight:
    return "right";
  case kSettingNoSide:
    return "";
  default:
    return "auto";
  }
}

/// The blocks holding tasks of `kind`, in walk order.
llvm::SetVector<Block *> blocksWithTasks(KernelOp kernel, CoreKind kind) {
  llvm::SetVector<Block *> blocks;
  kernel.walk([&](TaskOp task) {
    if (task.getKind() == kind)
      blocks.insert(task->getBlock());
  });
  return blocks;
}

/// The block's tasks of `kind` that `filter` accepts, by isomorphism group
/// in order of first appearance.
SmallVector<SmallVector<TaskOp>> groupsOf(Block &block, CoreKind kind,
                                          function_ref<bool(TaskOp)> filter) {
  std::map<std::vector<uintptr_t>, unsigned> ids;
  SmallVector<SmallVector<TaskOp>> groups;
  for (Operation &op : block) {
    auto task = dyn_cast<TaskOp>(op);
    if (!task || task.getKind() != kind || !filter(task))
      continue;
    auto [it, inserted] = ids.try_emplace(signature(task), groups.size());
    if (inserted)
      groups.emplace_back();
    groups[it->second].push_back(task);
  }
  return groups;
}

/// Positions and latest captured block value of `tasks` (loads not filled).
SmallVector<TaskInfo, 8> taskInfos(Block &block, ArrayRef<TaskOp> tasks) {
  // Positions count from the earliest task and stop at the latest: a block
  // holds many groups, and numbering all of it for each would be quadratic.
  // A capture defined before the span is before every position (-1).
  DenseMap<Operation *, unsigned> nodeIndex;
  if (!tasks.empty()) {
    Operation *first = tasks.front();
    for (TaskOp task : tasks)
      if (task->isBeforeInBlock(first))
        first = task;
    llvm::SmallPtrSet<Operation *, 16> pending;
    for (TaskOp task : tasks)
      pending.insert(task);
    unsigned i = 0;
    for (Operation *op = first; op && !pending.empty();
         op = op->getNextNode()) {
      nodeIndex[op] = i++;
      pending.erase(op);
    }
  }
  SmallVector<TaskInfo, 8> infos;
  for (TaskOp task : tasks) {
    TaskInfo info{task, nodeIndex.lookup(task), {}};
    task.getBody().walk([&](Operation *op) {
      for (Value operand : op->getOperands()) {
        Operation *def = operand.getDefiningOp();
        if (!def || task->isAncestor(def))
          continue;
        if (Operation *inBlock = block.findAncestorOpInBlock(*def))
          if (auto it = nodeIndex.find(inBlock); it != nodeIndex.end())
            info.lastCapture = std::max<int64_t>(info.lastCapture, it->second);
      }
    });
    infos.push_back(std::move(info));
  }
  return infos;
}

/// `taskInfos` with each cube task's loads (feature, bytes, sides, K steps).
SmallVector<TaskInfo, 8> cubeTaskInfos(ValueNumbering &vn, Block &block,
                                       ArrayRef<TaskOp> tasks) {
  FeatureTable features(vn);
  SmallVector<TaskInfo, 8> infos = taskInfos(block, tasks);
  DenseMap<Operation *, int64_t> stepMemo;
  for (TaskInfo &info : infos) {
    for (ViewOp view : loadsOf(info.task)) {
      Load load{view, features.get(view), loadBytes(view), 0, {}};
      classifyUses(view.getResult(), load, stepMemo);
      if (load.steps.empty()) {
        load.sides |= kSideOther;
        load.steps.push_back(kEveryStep);
      }
      info.loads.push_back(std::move(load));
    }
  }
  return infos;
}

/// Moves the bodies of a plan target's members into its host task, in
/// program order, and erases the other members; returns the merged body.
Block &mergeMembers(BlockAccesses &accesses, ArrayRef<TaskInfo> infos,
                    ArrayRef<unsigned> members, unsigned hostIndex) {
  TaskOp host = infos[hostIndex].task;
  accesses.invalidate(host);
  Block &body = host.getBody().front();
  Operation *hostFirst = &body.front();
  bool afterHost = false;
  for (unsigned m : members) {
    if (m == hostIndex) {
      afterHost = true;
      continue;
    }
    TaskOp task = infos[m].task;
    for (Operation &op : llvm::make_early_inc_range(
             task.getBody().front().without_terminator()))
      op.moveBefore(afterHost ? body.getTerminator() : hostFirst);
    accesses.erase(task);
  }
  return body;
}

/// N-buffering: merges the group `n` at a time, sharing nothing, while the
/// loads `infos` carry fit `capacity` per K step. Returns the tasks left and
/// the tasks merged into another.
std::pair<unsigned, unsigned> mergeUnshared(BlockAccesses &accesses,
                                            ArrayRef<TaskInfo> infos, int64_t n,
                                            int64_t capacity) {
  GroupPlanner planner(accesses, infos, capacity);
  Plan plan = planner.plan(n, /*sideMask=*/0, /*minTasks=*/1,
                           /*requireSharing=*/false);
  unsigned merged = 0;
  for (auto [targetIndex, members] : llvm::enumerate(plan.targets))
    if (members.size() > 1) {
      mergeMembers(accesses, infos, members, plan.hosts[targetIndex]);
      merged += members.size() - 1;
    }
  return {plan.tasksAfter, merged};
}

} // namespace mlir::pto::taskmerge
