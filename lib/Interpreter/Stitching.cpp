//===- Stitching.cpp - launches and stitches
//--------------------------------===//
//
// Root calls and launches, and the stitched execution of buffered root
// instances (the section comment below).
//
//===----------------------------------------------------------------------===//

#include "InterpreterImpl.h"

namespace mlir::pto::interp::detail {

//===----------------------------------------------------------------------===//
// Stitching
//===----------------------------------------------------------------------===//
//
// A root call with a `stitch` plan does not run at once: its body runs in
// recording mode (workspaces get the instance's own buffers, launches are
// recorded with their argument values) and the instance joins the stitch
// buffer. The buffer runs when it holds `depth` instances (the smallest depth
// of the buffered calls), before any control-program op that could observe
// or affect the buffered work, and at the end of the kernel. Its launches run
// round-robin across the instances: each round issues, per instance in
// order, the instance's first launch whose dependencies are done. That is a
// different valid order than one instance after the other: within an
// instance the token deps order the launches; across instances a launch
// waits for the earlier instances' launches touching the same GM tensor
// (conservatively the whole tensor), unless both only read or both only
// add atomically (docs/PyPTOModel.md#dependencies-inside-a-stitch).

enum : uint8_t {
  kStitchRead = 1,
  kStitchWrite = 2,
  kStitchAtomic = 4,
  // Touched by an op that reports no box to the observer (a scalar read,
  // any op other than view / assemble / atomic_add): LaunchEvent::accesses.
  kStitchUnboxed = 8
};

/// Per leaf argument, how the leaf accesses it (kStitch* bits).
ArrayRef<uint8_t> Interpreter::leafAccesses(Operation *leaf) {
  auto it = leafAccessCache.find(leaf);
  if (it != leafAccessCache.end())
    return it->second;
  auto fn = cast<FunctionOpInterface>(leaf);
  Block &body = fn.getFunctionBody().front();
  SmallVector<uint8_t> bits(body.getNumArguments(), 0);
  auto mark = [&](Value tensor, uint8_t kind) {
    tensor = getAliasedTensor(tensor);
    if (auto arg = dyn_cast<BlockArgument>(tensor))
      if (arg.getOwner() == &body)
        bits[arg.getArgNumber()] |= kind;
  };
  fn.getFunctionBody().walk([&](Operation *op) {
    if (auto view = dyn_cast<ViewOp>(op))
      mark(view.getSource(), kStitchRead);
    else if (auto read = dyn_cast<ReadOp>(op))
      mark(read.getTensor(), kStitchRead | kStitchUnboxed);
    else if (auto store = dyn_cast<AssembleOp>(op))
      mark(store.getDst(), kStitchWrite);
    else if (auto store = dyn_cast<AtomicAddOp>(op))
      mark(store.getDst(), kStitchAtomic);
    else if (!isa<DimOp, ReshapeOp>(op))
      for (Value operand : op->getOperands())
        if (isa<GMTensorType>(operand.getType()))
          mark(operand, kStitchRead | kStitchWrite | kStitchUnboxed);
  });
  return leafAccessCache[leaf] = std::move(bits);
}

LogicalResult Interpreter::execLaunch(LaunchOp launch) {
  if (!recordingSlot) {
    env[launch.getToken()] = std::monostate();
    auto leaf = symbolTables.lookupNearestSymbolFrom<FunctionOpInterface>(
        launch, launch.getCalleeAttr());
    if (!observer() || !leaf)
      return execCall(launch, launch.getCalleeAttr(), launch.getArgs());
    LaunchEvent event;
    event.leaf = leaf;
    event.id = nextLaunchId++;
    event.instance = currentInstance;
    for (Value dep : launch.getDeps())
      event.deps.push_back(tokenIds.lookup(dep));
    ArrayRef<uint8_t> bits = leafAccesses(leaf);
    for (auto [i, arg] : llvm::enumerate(launch.getArgs()))
      if (auto *tensor = std::get_if<TensorRef>(&env.at(arg))) {
        if (i < bits.size() && bits[i])
          event.accesses.push_back({tensor->storage, bits[i]});
      } else if (auto *tile = std::get_if<TileValue>(&env.at(arg))) {
        // A tile viewed from GM: the launch reads that tensor's contents as
        // of the view.
        if (tile->gm)
          event.tileReads.push_back({tile->gm->source, tile->gm->snapshot});
      }
    tokenIds[launch.getToken()] = event.id;
    observer()->launchBegin(event);
    LogicalResult result =
        execCall(launch, launch.getCalleeAttr(), launch.getArgs());
    observer()->launchEnd();
    return result;
  }
  auto fn = symbolTables.lookupNearestSymbolFrom<FunctionOpInterface>(
      launch, launch.getCalleeAttr());
  if (!fn || fn.isExternal())
    return launch.emitError()
           << "pto-run: cannot find the body of " << launch.getCalleeAttr();
  RootInstance &instance = stitchBuffer[*recordingSlot];
  RecordedLaunch record;
  record.leaf = fn;
  for (Value arg : launch.getArgs())
    record.args.push_back(env.at(arg));
  for (Value dep : launch.getDeps())
    record.deps.push_back(unsigned(std::get<int64_t>(env.at(dep))));
  ArrayRef<uint8_t> bits = leafAccesses(fn);
  for (auto [i, value] : llvm::enumerate(record.args)) {
    // For performance models: a tile viewed from GM (the interpreter holds
    // its data already; the stitched order need not wait for anything).
    if (auto *tile = std::get_if<TileValue>(&value); tile && tile->gm)
      record.tileReads.push_back({tile->gm->source, tile->gm->snapshot});
    auto *tensor = std::get_if<TensorRef>(&value);
    if (!tensor || i >= bits.size() || !bits[i])
      continue;
    auto it = llvm::find_if(record.accesses, [&](auto &access) {
      return access.first == tensor->storage;
    });
    if (it == record.accesses.end())
      record.accesses.push_back({tensor->storage, bits[i]});
    else
      it->second |= bits[i];
    if (bits[i] & (kStitchWrite | kStitchAtomic))
      stitchWritten.insert(tensor->storage);
  }
  env[launch.getToken()] = int64_t(instance.launches.size());
  instance.launches.push_back(std::move(record));
  return success();
}

LogicalResult Interpreter::execRootCall(RootCallOp call) {
  StitchPlanAttr plan = call.getStitchAttr();
  if (!plan || recordingSlot || inStitchFlush) {
    if (!recordingSlot && !inStitchFlush)
      currentInstance = nextInstanceId++;
    return execCall(call, call.getCalleeAttr(), call.getArgs());
  }
  recordingSlot = stitchBuffer.size();
  stitchBuffer.emplace_back();
  stitchBuffer.back().id = nextInstanceId++;
  LogicalResult recorded = execCall(call, call.getCalleeAttr(), call.getArgs());
  recordingSlot.reset();
  if (failed(recorded))
    return failure();
  ++stats.rootInstances;
  stitchLimit = std::min(stitchLimit, plan.getDepth());
  if (int64_t(stitchBuffer.size()) >= stitchLimit ||
      stitchWorkspaceBytes >= options.maxStitchWorkspaceBytes)
    return flushStitch();
  return success();
}

/// Ops of the control program that cannot interact with buffered instances:
/// index arithmetic, loop bookkeeping, more stitched root calls, scalar reads
/// of tensors the buffered launches do not write, view checks (they read
/// shapes, never data). A loop with
/// `submit_before_loop` is a forced submission point.
bool Interpreter::isStitchSafe(Operation *op) {
  if (auto loop = dyn_cast<LoopOp>(op))
    return !loop.getSubmitBeforeLoop();
  if (auto call = dyn_cast<RootCallOp>(op))
    return bool(call.getStitchAttr());
  if (auto read = dyn_cast<ReadOp>(op))
    return !stitchWritten.contains(getTensor(read.getTensor()).storage);
  if (isa<scf::IfOp, IsLoopBeginOp, IsLoopEndOp, DimOp, ReshapeOp, WorkspaceOp,
          CheckViewOp, CheckTileViewOp>(op))
    return true;
  return op->getDialect() && op->getDialect()->getNamespace() == "arith";
}

LogicalResult Interpreter::flushStitch() {
  if (stitchBuffer.empty())
    return success();
  std::vector<RootInstance> instances = std::move(stitchBuffer);
  stitchBuffer.clear();
  stitchWritten.clear();
  stitchLimit = std::numeric_limits<int64_t>::max();
  stitchWorkspaceBytes = 0;
  inStitchFlush = true;
  llvm::scope_exit done([&] { inStitchFlush = false; });

  // Launches not yet run, per tensor and access kind, counted per instance.
  constexpr unsigned kinds[] = {kStitchRead, kStitchWrite, kStitchAtomic};
  llvm::DenseMap<HostTensor *, std::array<std::map<unsigned, unsigned>, 3>>
      pending;
  size_t total = 0;
  for (auto [i, instance] : llvm::enumerate(instances))
    for (RecordedLaunch &launch : instance.launches) {
      ++total;
      for (auto [storage, bits] : launch.accesses)
        for (unsigned k = 0; k < 3; ++k)
          if (bits & kinds[k])
            ++pending[storage][k][i];
    }
  // Whether a launch of an instance before `i` still pending conflicts.
  auto blocked = [&](unsigned i, const RecordedLaunch &launch) {
    for (auto [storage, bits] : launch.accesses) {
      auto &byKind = pending[storage];
      auto earlier = [&](unsigned k) {
        return !byKind[k].empty() && byKind[k].begin()->first < i;
      };
      bool read = earlier(0), write = earlier(1), atomic = earlier(2);
      if ((bits & kStitchWrite) && (read || write || atomic))
        return true;
      if ((bits & kStitchRead) && (write || atomic))
        return true;
      if ((bits & kStitchAtomic) && (read || write))
        return true;
    }
    return false;
  };

  SmallVector<llvm::BitVector> finished;
  for (RootInstance &instance : instances)
    finished.emplace_back(instance.launches.size());
  // Observer ids of the executed launches, per instance.
  SmallVector<SmallVector<uint64_t>> launchIds(instances.size());
  int64_t stitchId = nextStitchId++;
  if (observer()) {
    for (auto [i, instance] : llvm::enumerate(instances))
      launchIds[i].resize(instance.launches.size());
    observer()->stitchBegin(stitchId, instances.size(), total);
  }
  size_t executed = 0, sequential = 0;
  SmallVector<size_t> sequentialBase;
  for (RootInstance &instance : instances) {
    sequentialBase.push_back(sequential);
    sequential += instance.launches.size();
  }
  // Per instance, its first launch not yet run: the scan for the next
  // launch starts there (rescanning the finished prefix every round made
  // the stitch quadratic in its launches per instance).
  SmallVector<size_t> firstPending(instances.size(), 0);
  while (executed < total) {
    bool progress = false;
    for (unsigned i = 0; i < instances.size(); ++i) {
      const llvm::BitVector &own = finished[i];
      size_t &first = firstPending[i];
      while (first < own.size() && own.test(first))
        ++first;
      for (size_t l = first, e = instances[i].launches.size(); l < e; ++l) {
        RecordedLaunch &launch = instances[i].launches[l];
        if (own.test(l) ||
            llvm::any_of(launch.deps,
                         [&](unsigned d) { return !own.test(d); }) ||
            blocked(i, launch))
          continue;
        auto fn = cast<FunctionOpInterface>(launch.leaf);
        if (observer()) {
          LaunchEvent event;
          event.leaf = launch.leaf;
          event.id = launchIds[i][l] = nextLaunchId++;
          event.instance = instances[i].id;
          event.stitch = stitchId;
          for (unsigned d : launch.deps)
            event.deps.push_back(launchIds[i][d]);
          for (auto [storage, bits] : launch.accesses)
            event.accesses.push_back({storage, bits});
          event.tileReads.assign(launch.tileReads.begin(),
                                 launch.tileReads.end());
          observer()->launchBegin(event);
        }
        if (failed(
                execBlock(fn.getFunctionBody().front(), launch.args, nullptr)))
          return failure();
        if (observer())
          observer()->launchEnd();
        finished[i].set(l);
        for (auto [storage, bits] : launch.accesses)
          for (unsigned k = 0; k < 3; ++k)
            if (bits & kinds[k]) {
              auto &counts = pending[storage][k];
              auto it = counts.find(i);
              if (--it->second == 0)
                counts.erase(it);
            }
        if (sequentialBase[i] + l != executed)
          ++stats.reorderedLaunches;
        ++executed;
        ++stats.stitchedLaunches;
        progress = true;
        break;
      }
    }
    // The first pending launch in instance order always has its
    // dependencies done, so every round makes progress.
    assert(progress && "stitched launches deadlocked");
    if (!progress)
      return failure();
  }
  ++stats.stitches;
  return success();
}

} // namespace mlir::pto::interp::detail
