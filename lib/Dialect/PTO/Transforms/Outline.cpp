//===- Outline.cpp - tasks to leaf functions, runs of tasks to roots ------===//
//
// pto-outline (docs/TileGraph.md): every pto.task becomes a leaf func.func
// (isomorphic tasks share one), every maximal run of tasks in a block becomes
// a root func.func (the execute graph: pto.launch ops with token deps), and
// the run is replaced by a pto.root_call in the control program.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "pto/Dialect/PTO/Analysis/GMAccess.h"
#include "pto/Dialect/PTO/Analysis/OutlinedFunctions.h"
#include "pto/Dialect/PTO/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"

#include <map>

namespace mlir::pto {
#define GEN_PASS_DEF_OUTLINEPASS
#include "pto/Dialect/PTO/Transforms/Passes.h.inc"
} // namespace mlir::pto

using namespace mlir;
using namespace mlir::pto;

namespace {

//===----------------------------------------------------------------------===//
// Launch dependencies
//===----------------------------------------------------------------------===//

/// For each task of a run, the earlier tasks it depends on directly: those
/// with a conflicting GM access (GMAccessIndex) that are not already reached
/// through another of them (the transitive reduction), ascending. Near-linear
/// in the run: candidates come from the index, and whether a candidate is
/// reached is a walk back over the direct dependencies found so far, which
/// stops below the earliest candidate (dependencies point backwards).
SmallVector<SmallVector<unsigned>>
directDependences(ArrayRef<GMAccessSummary> accesses) {
  size_t n = accesses.size();
  SmallVector<SmallVector<unsigned>> direct(n);
  GMAccessIndex index;
  // Stamps (task + 1) instead of sets cleared per task.
  SmallVector<unsigned> candidateStamp(n, 0), reachedStamp(n, 0);
  SmallVector<unsigned> candidates, stack;
  for (unsigned j = 0; j < n; ++j) {
    candidates.clear();
    index.forEachDependence(accesses[j], [&](unsigned i) {
      if (candidateStamp[i] != j + 1) {
        candidateStamp[i] = j + 1;
        candidates.push_back(i);
      }
    });
    llvm::sort(candidates, std::greater<unsigned>());
    unsigned lowest = candidates.empty() ? 0 : candidates.back();
    for (unsigned i : candidates) {
      if (reachedStamp[i] == j + 1)
        continue;
      direct[j].push_back(i);
      // Mark what i reaches, down to the lowest candidate.
      stack.assign(direct[i].begin(), direct[i].end());
      while (!stack.empty()) {
        unsigned k = stack.pop_back_val();
        if (k < lowest || reachedStamp[k] == j + 1)
          continue;
        reachedStamp[k] = j + 1;
        stack.append(direct[k].begin(), direct[k].end());
      }
    }
    llvm::sort(direct[j]);
    index.insert(j, accesses[j]);
  }
  return direct;
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

/// A maximal run of tasks in one block.
struct Run {
  Block *block = nullptr;
  SmallVector<TaskOp> tasks;
  /// Ops between the first and the last task that do not end the run
  /// (index arithmetic, workspaces): hoisted above the run.
  SmallVector<Operation *> interleaved;
};

/// Ops that may sit between the tasks of one run: no side effects besides
/// allocating a workspace or checking a view, no regions.
bool isTransparent(Operation *op) {
  // A view check is hoisted with them: it then runs before the launches.
  if (isa<WorkspaceOp, CheckViewOp, CheckTileViewOp>(op))
    return true;
  return op->getNumRegions() == 0 && isMemoryEffectFree(op) &&
         !op->hasTrait<OpTrait::IsTerminator>();
}

bool isClonableConstant(Value value) {
  Operation *def = value.getDefiningOp();
  return def && def->hasTrait<OpTrait::ConstantLike>() &&
         def->getNumOperands() == 0 && def->getNumRegions() == 0;
}

/// The values a task uses but does not define, in order of first use in a
/// pre-order walk of its body.
llvm::SetVector<Value> capturedValues(TaskOp task) {
  llvm::SetVector<Value> captured;
  task.getBody().walk<WalkOrder::PreOrder>([&](Operation *op) {
    for (Value operand : op->getOperands())
      if (!task->isAncestor(operand.getParentRegion()->getParentOp()))
        captured.insert(operand);
  });
  return captured;
}

/// Whether pto-outline turns `op`'s static offsets into leaf arguments
/// (parameterizeOffsets).
bool hasParameterizedOffsets(Operation *op) {
  return isa<ViewOp, AssembleOp, AtomicAddOp>(op);
}

ArrayRef<int64_t> staticOffsetsOf(Operation *op) {
  if (auto view = dyn_cast<ViewOp>(op))
    return view.getStaticOffsets();
  if (auto store = dyn_cast<AssembleOp>(op))
    return store.getStaticOffsets();
  return cast<AtomicAddOp>(op).getStaticOffsets();
}

/// The leaf arguments `task`'s static offsets become, in the order
/// parameterizeOffsets appends them (a post-order walk of the body).
void collectOffsetParams(TaskOp task, SmallVectorImpl<int64_t> &params) {
  task.getBody().walk([&](Operation *op) {
    if (!hasParameterizedOffsets(op))
      return;
    for (int64_t offset : staticOffsetsOf(op))
      if (!ShapedType::isDynamic(offset))
        params.push_back(offset);
  });
}

/// Everything the leaf getOrCreateLeaf builds for `task` depends on but
/// locations and the values of the parameterized static offsets: the kind
/// and family, per captured value its type and (for a constant cloned into
/// the leaf) its op, and per op of the body (pre-order) its name,
/// attributes, result types, operands (as local or captured values) and
/// regions. Tasks with equal keys build equal leaves, so the second one
/// takes the first one's leaf without building and comparing a copy (most
/// tasks of an expanded tile graph share a leaf). Empty: no key (successors).
std::vector<uintptr_t> leafKey(TaskOp task,
                               const llvm::SetVector<Value> &captured) {
  auto ptr = [](const void *p) { return reinterpret_cast<uintptr_t>(p); };
  MLIRContext *ctx = task.getContext();
  StringAttr staticOffsetsName = StringAttr::get(ctx, "static_offsets");
  std::vector<uintptr_t> key = {ptr(task.getKindAttr().getAsOpaquePointer()),
                                ptr(task.getFamilyAttr().getAsOpaquePointer()),
                                captured.size()};
  DenseMap<Value, unsigned> ids; // captured values first, then local ones
  for (Value value : captured) {
    ids.try_emplace(value, ids.size());
    key.push_back(ptr(value.getType().getAsOpaquePointer()));
    if (!isClonableConstant(value)) {
      key.push_back(0);
      continue;
    }
    Operation *def = value.getDefiningOp();
    key.push_back(1);
    key.push_back(ptr(def->getName().getAsOpaquePointer()));
    key.push_back(ptr(def->getAttrDictionary().getAsOpaquePointer()));
    key.push_back(def->getNumResults());
    for (Type type : def->getResultTypes())
      key.push_back(ptr(type.getAsOpaquePointer()));
    key.push_back(cast<OpResult>(value).getResultNumber());
  }
  auto define = [&](Value value) {
    ids.try_emplace(value, ids.size());
    key.push_back(ptr(value.getType().getAsOpaquePointer()));
  };
  bool keyed = true;
  task.getBody().walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (op->getNumSuccessors() != 0 || !op->getRegisteredInfo()) {
      keyed = false;
      return WalkResult::interrupt();
    }
    key.push_back(ptr(op->getName().getAsOpaquePointer()));
    key.push_back(ptr(op->getRawDictionaryAttrs().getAsOpaquePointer()));
    bool parameterized = hasParameterizedOffsets(op);
    for (StringAttr name : op->getRegisteredInfo()->getAttributeNames()) {
      if (parameterized && name == staticOffsetsName) {
        // Which offsets are dynamic, not the static values.
        ArrayRef<int64_t> offsets = staticOffsetsOf(op);
        key.push_back(offsets.size());
        for (int64_t offset : offsets)
          key.push_back(ShapedType::isDynamic(offset));
        continue;
      }
      key.push_back(ptr(op->getInherentAttr(name)
                            .value_or(Attribute())
                            .getAsOpaquePointer()));
    }
    key.push_back(op->getNumOperands());
    for (Value operand : op->getOperands()) {
      auto it = ids.find(operand);
      if (it == ids.end()) { // used before its definition in the walk
        keyed = false;
        return WalkResult::interrupt();
      }
      key.push_back(it->second);
    }
    key.push_back(op->getNumResults());
    for (Value result : op->getResults())
      define(result);
    key.push_back(op->getNumRegions());
    for (Region &region : op->getRegions()) {
      key.push_back(region.getBlocks().size());
      for (Block &block : region) {
        key.push_back(block.getNumArguments());
        for (BlockArgument arg : block.getArguments())
          define(arg);
      }
    }
    return WalkResult::advance();
  });
  if (!keyed)
    key.clear();
  return key;
}

struct Leaf {
  func::FuncOp func;
  llvm::hash_code hash;
};

class Outliner {
public:
  Outliner(ModuleOp module, KernelOp kernel, SymbolTable &symbols,
           OutlinedFunctionAnalysis &built)
      : module(module), kernel(kernel), symbols(symbols), built(built) {}

  LogicalResult run();

  unsigned numTasks = 0, numRoots = 0, numRootWorkspaces = 0,
           numSharedWorkspaces = 0;
  SmallVector<func::FuncOp> leaves, roots;

private:
  LogicalResult collectRuns(Block &block);
  /// The leaf for `task` (created or shared) and the task's values passed to
  /// it, in argument order.
  func::FuncOp getOrCreateLeaf(TaskOp task, SmallVectorImpl<Value> &args,
                               SmallVectorImpl<int64_t> &offsetParams);
  func::FuncOp createRoot(Run &run, ArrayRef<Value> rootArgs,
                          ArrayRef<Operation *> ownWorkspaces);
  std::string uniqueName(const std::string &base, bool suffixFirst);
  void setArch(func::FuncOp func);

  ModuleOp module;
  KernelOp kernel;
  SymbolTable &symbols;
  /// What the passes after this one need of each function built, recorded
  /// while it is in cache.
  OutlinedFunctionAnalysis &built;
  llvm::DenseMap<Attribute, bool> symbolRefMemo;
  SmallVector<Run> runs;
  std::vector<Leaf> leafTable;
  /// Leaves by structural hash: a task is compared only with the leaves of
  /// its hash, not with every leaf so far (quadratic in distinct leaves).
  DenseMap<unsigned, SmallVector<unsigned, 1>> leavesByHash;
  /// The leaf of each task key (leafKey) seen so far.
  std::map<std::vector<uintptr_t>, func::FuncOp> leafByKey;
  llvm::StringMap<unsigned> familyCounts;
  /// The next suffix to try per base name, so that many roots of one name
  /// do not probe 1, 2, ... again each time.
  llvm::StringMap<unsigned> nextSuffix;
};

std::string Outliner::uniqueName(const std::string &base, bool suffixFirst) {
  if (!suffixFirst && !symbols.lookup(base))
    return base;
  unsigned &next = nextSuffix[base];
  for (unsigned n = std::max(next, suffixFirst ? 0u : 1u);; ++n) {
    std::string name = base + "_" + std::to_string(n);
    if (!symbols.lookup(name)) {
      next = n + 1;
      return name;
    }
  }
}

void Outliner::setArch(func::FuncOp func) {
  Arch arch = kernel.getArchOrDefault();
  if (arch != Arch::DAV_2201)
    func->setAttr("pto.arch", ArchAttr::get(func.getContext(), arch));
}

LogicalResult Outliner::collectRuns(Block &block) {
  Run current;
  SmallVector<Operation *> pendingTransparent;
  auto close = [&]() {
    if (!current.tasks.empty())
      runs.push_back(std::move(current));
    current = Run();
    pendingTransparent.clear();
  };
  for (Operation &op : block) {
    if (auto task = dyn_cast<TaskOp>(&op)) {
      if (task.getNumResults()) {
        InFlightDiagnostic diag =
            task.emitOpError()
            << "yields " << task.getNumResults()
            << " value(s); pto-outline needs tasks that communicate only "
               "through GM (workspaces and kernel tensors)";
        for (OpResult result : task.getResults())
          for (Operation *user : result.getUsers())
            diag.attachNote(user->getLoc()) << "value used here";
        return diag;
      }
      if (current.tasks.empty())
        current.block = &block;
      else
        current.interleaved.append(pendingTransparent);
      pendingTransparent.clear();
      current.tasks.push_back(task);
      continue;
    }
    if (isTransparent(&op)) {
      if (!current.tasks.empty())
        pendingTransparent.push_back(&op);
      continue;
    }
    close();
    for (Region &region : op.getRegions())
      for (Block &nested : region)
        if (failed(collectRuns(nested)))
          return failure();
  }
  close();
  return success();
}

llvm::hash_code structuralHash(func::FuncOp func) {
  llvm::hash_code hash =
      llvm::hash_value(func.getFunctionType().getAsOpaquePointer());
  func.getBody().walk([&](Operation *op) {
    hash =
        llvm::hash_combine(hash, OperationEquivalence::computeHash(
                                     op, OperationEquivalence::ignoreHashValue,
                                     OperationEquivalence::ignoreHashValue,
                                     OperationEquivalence::IgnoreLocations));
  });
  return hash;
}

/// Turns the static offsets of the views and stores in `func` into trailing
/// index arguments, appending their values to `params`. Tasks that differ
/// only in where their pieces sit (most of an expanded tile graph) then share
/// one leaf; the offsets travel in the launch's parameters, as PyPTO passes
/// them in the leaf's parameter block.
static void parameterizeOffsets(func::FuncOp func,
                                SmallVectorImpl<int64_t> &params) {
  Block &body = func.getBody().front();
  OpBuilder builder(func.getContext());
  auto toParams = [&](ArrayRef<int64_t> statics, ValueRange dynamics,
                      SmallVectorImpl<Value> &operands) {
    unsigned next = 0;
    for (int64_t s : statics) {
      if (ShapedType::isDynamic(s)) {
        operands.push_back(dynamics[next++]);
        continue;
      }
      params.push_back(s);
      operands.push_back(
          body.addArgument(builder.getIndexType(), func.getLoc()));
    }
  };
  SmallVector<Operation *> ops;
  body.walk([&](Operation *op) {
    if (isa<ViewOp, AssembleOp, AtomicAddOp>(op))
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    builder.setInsertionPoint(op);
    SmallVector<Value> offsets;
    SmallVector<int64_t> dynamic;
    if (auto view = dyn_cast<ViewOp>(op)) {
      toParams(view.getStaticOffsets(), view.getOffsets(), offsets);
      dynamic.assign(offsets.size(), ShapedType::kDynamic);
      auto replacement = ViewOp::create(
          builder, view.getLoc(), view.getResult().getType(), view.getSource(),
          offsets, builder.getDenseI64ArrayAttr(dynamic), view.getValidShape(),
          view.getStaticValidShapeAttr());
      replacement->setDiscardableAttrs(view->getDiscardableAttrDictionary());
      view.getResult().replaceAllUsesWith(replacement.getResult());
      view.erase();
      continue;
    }
    ArrayRef<int64_t> statics = isa<AssembleOp>(op)
                                    ? cast<AssembleOp>(op).getStaticOffsets()
                                    : cast<AtomicAddOp>(op).getStaticOffsets();
    ValueRange dynamics = isa<AssembleOp>(op)
                              ? cast<AssembleOp>(op).getOffsets()
                              : cast<AtomicAddOp>(op).getOffsets();
    toParams(statics, dynamics, offsets);
    dynamic.assign(offsets.size(), ShapedType::kDynamic);
    op->setOperands(2, op->getNumOperands() - 2, offsets);
    op->setAttr("static_offsets", builder.getDenseI64ArrayAttr(dynamic));
  }
  func.setType(builder.getFunctionType(body.getArgumentTypes(), {}));
}

func::FuncOp Outliner::getOrCreateLeaf(TaskOp task,
                                       SmallVectorImpl<Value> &args,
                                       SmallVectorImpl<int64_t> &offsetParams) {
  llvm::SetVector<Value> captured = capturedValues(task);
  SmallVector<Value> constants;
  for (Value value : captured)
    (isClonableConstant(value) ? constants : args).push_back(value);
  // A task keyed like an earlier one takes that one's leaf.
  std::vector<uintptr_t> key = leafKey(task, captured);
  if (!key.empty())
    if (auto known = leafByKey.find(key); known != leafByKey.end()) {
      collectOffsetParams(task, offsetParams);
      return known->second;
    }
  auto remember = [&](func::FuncOp leaf) {
    if (!key.empty())
      leafByKey.try_emplace(std::move(key), leaf);
    return leaf;
  };

  // Built detached; inserted into the module only if not shared.
  OpBuilder builder(kernel.getContext());
  SmallVector<Type> argTypes;
  for (Value arg : args)
    argTypes.push_back(arg.getType());
  auto func = func::FuncOp::create(builder, task.getLoc(), "__pto_leaf",
                                   builder.getFunctionType(argTypes, {}));
  func.setPrivate();
  func->setAttr("pto.leaf", task.getKindAttr());
  func->setAttr("pto.family", task.getFamilyAttr());
  setArch(func);
  Block *body = func.addEntryBlock();
  IRMapping mapping;
  for (auto [value, arg] : llvm::zip(args, body->getArguments()))
    mapping.map(value, arg);
  builder.setInsertionPointToStart(body);
  for (Value constant : constants)
    builder.clone(*constant.getDefiningOp(), mapping);
  for (Operation &op : task.getBody().front().without_terminator())
    builder.clone(op, mapping);
  func::ReturnOp::create(builder, task.getLoc());
  parameterizeOffsets(func, offsetParams);

  llvm::hash_code hash = structuralHash(func);
  SmallVector<unsigned, 1> &sameHash = leavesByHash[unsigned(size_t(hash))];
  for (unsigned index : sameHash) {
    Leaf &leaf = leafTable[index];
    if (leaf.hash != hash ||
        leaf.func.getFunctionType() != func.getFunctionType() ||
        leaf.func->getAttr("pto.leaf") != func->getAttr("pto.leaf") ||
        leaf.func->getAttr("pto.family") != func->getAttr("pto.family"))
      continue;
    if (OperationEquivalence::isRegionEquivalentTo(
            &leaf.func.getBody(), &func.getBody(),
            OperationEquivalence::IgnoreLocations)) {
      func.erase();
      return remember(leaf.func);
    }
  }
  std::string family = task.getFamily().str();
  unsigned n = familyCounts[family]++;
  std::string name = uniqueName(kernel.getSymName().str() + "_leaf_" + family +
                                    "_" + std::to_string(n),
                                /*suffixFirst=*/false);
  func.setName(name);
  symbols.insert(func, Block::iterator(kernel));
  built.record(func, summarizeBody(func, symbolRefMemo));
  sameHash.push_back(leafTable.size());
  leafTable.push_back({func, hash});
  leaves.push_back(func);
  return remember(func);
}

func::FuncOp Outliner::createRoot(Run &run, ArrayRef<Value> rootArgs,
                                  ArrayRef<Operation *> ownWorkspaces) {
  LoopOp loop = run.tasks.front()->getParentOfType<LoopOp>();
  std::string base = kernel.getSymName().str() + "_root_" +
                     (loop ? loop.getName().str() : std::string("main"));
  OpBuilder builder(kernel.getContext());
  SmallVector<Type> argTypes;
  for (Value arg : rootArgs)
    argTypes.push_back(arg.getType());
  Location loc = loop ? loop.getLoc() : run.tasks.front().getLoc();
  auto root = func::FuncOp::create(builder, loc, uniqueName(base, false),
                                   builder.getFunctionType(argTypes, {}));
  root.setPrivate();
  root->setAttr("pto.root", builder.getUnitAttr());
  setArch(root);
  Block *body = root.addEntryBlock();
  IRMapping mapping;
  for (auto [value, arg] : llvm::zip(rootArgs, body->getArguments()))
    mapping.map(value, arg);
  builder.setInsertionPointToStart(body);
  // The run's own workspaces, in block order (not a scan of the block per
  // run: a block of many runs made that quadratic).
  for (Operation *op : ownWorkspaces)
    builder.clone(*op, mapping);

  // Launches with dependencies, transitively reduced.
  llvm::DenseMap<int64_t, Value> offsetConstants;
  size_t n = run.tasks.size();
  // A fresh analysis per run: earlier runs' rewrites erased values its
  // memo would otherwise key on.
  GMAccessAnalysis gm(kernel);
  SmallVector<GMAccessSummary> accesses;
  for (TaskOp task : run.tasks)
    accesses.push_back(gm.summarize(task));
  SmallVector<SmallVector<unsigned>> direct = directDependences(accesses);
  SmallVector<Value> tokens;
  // What one instance allocates: its own workspaces, and each launched
  // leaf's once per launch (pto-plan-stitch).
  OutlinedFunctionSummary summary;
  for (Operation *op : ownWorkspaces) {
    summary.workspaceBytes += alignedWorkspaceBytes(cast<WorkspaceOp>(op));
    ++summary.numWorkspaces;
  }
  summary.launches = n;
  for (size_t j = 0; j < n; ++j) {
    SmallVector<Value> deps;
    for (unsigned i : direct[j])
      deps.push_back(tokens[i]);

    SmallVector<Value> taskArgs;
    SmallVector<int64_t> offsetParams;
    func::FuncOp leaf = getOrCreateLeaf(run.tasks[j], taskArgs, offsetParams);
    const OutlinedFunctionSummary *inLeaf = built.lookup(leaf);
    summary.workspaceBytes += inLeaf->workspaceBytes;
    summary.numWorkspaces += inLeaf->numWorkspaces;
    SmallVector<Value> launchArgs;
    for (Value arg : taskArgs)
      launchArgs.push_back(mapping.lookup(arg));
    for (int64_t offset : offsetParams) {
      Value &constant = offsetConstants[offset];
      if (!constant) {
        OpBuilder::InsertionGuard guard(builder);
        builder.setInsertionPointToStart(body);
        constant = arith::ConstantIndexOp::create(builder, loc, offset);
      }
      launchArgs.push_back(constant);
    }
    auto launch = LaunchOp::create(
        builder, run.tasks[j].getLoc(),
        FlatSymbolRefAttr::get(leaf.getSymNameAttr()), launchArgs, deps);
    tokens.push_back(launch.getToken());
  }
  func::ReturnOp::create(builder, loc);
  symbols.insert(root, Block::iterator(kernel));
  built.record(root, summary);
  roots.push_back(root);
  return root;
}

LogicalResult Outliner::run() {
  if (failed(collectRuns(kernel.getBody().front())))
    return failure();
  if (runs.empty())
    return success();

  llvm::DenseMap<Operation *, unsigned> runOfTask;
  for (auto [index, run] : llvm::enumerate(runs))
    for (TaskOp task : run.tasks)
      runOfTask[task] = index;

  // Workspaces owned by one run: in the run's block, used only by its tasks;
  // in block order (the walk's).
  SmallVector<llvm::SetVector<Operation *>> ownWorkspaces(runs.size());
  kernel.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isa<TaskOp>(op))
      return WalkResult::skip();
    auto workspace = dyn_cast<WorkspaceOp>(op);
    if (!workspace)
      return WalkResult::advance();
    std::optional<unsigned> owner;
    bool shared = false;
    for (Operation *user : workspace->getUsers()) {
      TaskOp task = isa<TaskOp>(user) ? cast<TaskOp>(user)
                                      : user->getParentOfType<TaskOp>();
      auto it = task ? runOfTask.find(task) : runOfTask.end();
      if (it == runOfTask.end() || (owner && *owner != it->second)) {
        shared = true;
        break;
      }
      owner = it->second;
    }
    if (!shared && owner && runs[*owner].block == workspace->getBlock()) {
      ownWorkspaces[*owner].insert(workspace);
      ++numRootWorkspaces;
    } else if (!workspace->use_empty()) {
      ++numSharedWorkspaces;
    }
    return WalkResult::advance();
  });

  for (auto [index, run] : llvm::enumerate(runs)) {
    numTasks += run.tasks.size();
    // Hoist what sits between the tasks, so that the run is contiguous.
    for (Operation *op : run.interleaved)
      op->moveBefore(run.tasks.front());
    // Root arguments: the tasks' captured values in first-use order, minus
    // constants (cloned into the leaves) and the run's own workspaces.
    llvm::SetVector<Value> rootArgs;
    for (TaskOp task : run.tasks)
      for (Value value : capturedValues(task))
        if (!isClonableConstant(value) &&
            !ownWorkspaces[index].contains(value.getDefiningOp()))
          rootArgs.insert(value);
    func::FuncOp root = createRoot(run, rootArgs.getArrayRef(),
                                   ownWorkspaces[index].getArrayRef());
    OpBuilder builder(run.tasks.front());
    RootCallOp::create(builder, run.tasks.front().getLoc(),
                       FlatSymbolRefAttr::get(root.getSymNameAttr()),
                       rootArgs.getArrayRef(), StitchPlanAttr());
    for (TaskOp task : run.tasks)
      task.erase();
    for (Operation *workspace : ownWorkspaces[index])
      workspace->erase();
    ++numRoots;
  }
  // Leaves first, then roots, then the kernel.
  for (func::FuncOp leaf : leaves)
    leaf->moveBefore(kernel);
  for (func::FuncOp root : roots)
    root->moveBefore(kernel);
  return success();
}

struct OutlinePass : public pto::impl::OutlinePassBase<OutlinePass> {
  using OutlinePassBase::OutlinePassBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    // pto-plan-stitch and pto-merge-leaf-arguments read what they need of
    // the functions built here from this analysis instead of walking them
    // again (docs/CompileTime.md).
    auto &built = getAnalysis<OutlinedFunctionAnalysis>();
    markAnalysesPreserved<OutlinedFunctionAnalysis>();
    SmallVector<KernelOp> kernels(module.getOps<KernelOp>());
    for (KernelOp kernel : kernels) {
      Outliner outliner(module, kernel, symbols, built);
      if (failed(outliner.run()))
        return signalPassFailure();
      numTasks += outliner.numTasks;
      numLeaves += outliner.leaves.size();
      numRoots += outliner.numRoots;
      numRootWorkspaces += outliner.numRootWorkspaces;
      numSharedWorkspaces += outliner.numSharedWorkspaces;
      if (report && outliner.numTasks)
        kernel.emitRemark()
            << "pto-outline: @" << kernel.getSymName() << ": "
            << outliner.numTasks << " tasks -> " << outliner.leaves.size()
            << " leaves after deduplication, " << outliner.numRoots
            << " roots; workspaces: " << outliner.numRootWorkspaces
            << " in roots, " << outliner.numSharedWorkspaces
            << " in the control program";
    }
  }
};

} // namespace
