//===- L1Reuse.cpp - pto-l1-reuse: cube tasks sharing L1 copy-ins -------===//
//
// PyPTO's L1CopyInReuseMerge (docs/PyPTOModel.md#l1-reuse): phase 1, cube
// tasks of one isomorphism group that copy identical GM blocks into L1 are
// merged and the duplicate copy-ins removed; phase 2 (CubeNBuffer,
// `cube_nbuffer_setting`) merges N isomorphic cube tasks that fit L1
// together; with `stationary=true`, operand-stationary rectangles and K
// splits (docs/TileGraph.md#operand-stationary-cube-tasks).
//
//===----------------------------------------------------------------------===//

#include "MixExchange.h"
#include "OperandStationary.h"
#include "SplitKChains.h"
#include "TaskMergeSupport.h"

#include "pto/CostModel/CostModel.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include "llvm/Support/FormatVariadic.h"

#include <limits>

namespace mlir::pto {
#define GEN_PASS_DEF_L1REUSEPASS
#include "pto/Dialect/PTO/Transforms/Passes.h.inc"
} // namespace mlir::pto

using namespace mlir;
using namespace mlir::pto;
using namespace mlir::pto::taskmerge;

namespace {

/// Whether GM tensor `tensor` is a workspace (a round trip served by L2)
/// rather than a kernel tensor (docs/CostModel.md, per-launch time).
bool isWorkspace(Value tensor) {
  return getAliasedTensor(tensor).getDefiningOp<WorkspaceOp>() != nullptr;
}

/// The cycles of a cube task's pipes other than MTE2, at the platform's
/// rates over static tile shapes.
struct ComputeCycles {
  double m = 0.0, mte1 = 0.0; // matmuls, L1 -> L0A/B
  double fix = 0.0;           // L0C -> GM
};

ComputeCycles computeCycles(TaskOp task, const PlatformInfo &platform) {
  const PlatformInfo::PerfInfo &perf = platform.perf;
  double m = 0.0, mte1 = 0.0, fix = 0.0;
  auto bytesOf = [](Type t) {
    return std::max<int64_t>(
        1, getElementTypeOrSelf(t).getIntOrFloatBitWidth() / 8);
  };
  auto matmul = [&](Value lhs, Value rhs, Value result, bool aTrans) {
    auto lhsType = cast<TileType>(lhs.getType());
    auto resType = cast<TileType>(result.getType());
    int64_t rows = resType.getShape()[0], cols = resType.getShape()[1];
    int64_t k = lhsType.getShape()[aTrans ? 0 : 1];
    int64_t lhsBytes = bytesOf(lhsType), rhsBytes = bytesOf(rhs.getType());
    double rate = perf.cubeFlopsPerCycle;
    if (std::max(lhsBytes, rhsBytes) >= 4)
      rate *= perf.cubeFp32Factor;
    m += 2.0 * double(rows) * double(cols) * double(k) / rate;
    mte1 += double(rows * k * lhsBytes) / perf.l1ToL0ABytesPerCycle +
            double(k * cols * rhsBytes) / perf.l1ToL0BBytesPerCycle;
  };
  task.getBody().walk([&](Operation *op) {
    if (auto mm = dyn_cast<MatmulOp>(op))
      matmul(mm.getLhs(), mm.getRhs(), mm.getResult(), mm.getATrans());
    else if (auto mm = dyn_cast<MatmulAccOp>(op))
      matmul(mm.getLhs(), mm.getRhs(), mm.getResult(), mm.getATrans());
    else if (isa<AssembleOp, AtomicAddOp>(op)) {
      auto src = cast<TileType>(op->getOperand(0).getType());
      fix += double(src.getByteSize()) / (isWorkspace(op->getOperand(1))
                                              ? perf.aicRates.l2Write
                                              : perf.aicRates.ddrWrite);
    }
  });
  return {m, mte1, fix};
}

/// How many instances of `block` at least run at once: the product of the
/// static trip counts of the loops around it that carry no value from one
/// iteration to the next (a loop with iter_args runs its iterations in
/// turn; a dynamic trip count counts `dynamicTrips`, by default 1: it may
/// be 1), up to `serialised` (exclusive: it and the loops around it run
/// their iterations in turn, MixExchange.h).
double staticInstances(Block &block, KernelOp kernel, int64_t dynamicTrips,
                       Operation *serialised = nullptr) {
  double instances = 1.0;
  for (Operation *op = block.getParentOp(); op && op != kernel.getOperation();
       op = op->getParentOp()) {
    if (op == serialised)
      break;
    auto loop = dyn_cast<LoopOp>(op);
    if (!loop || loop->getNumResults() != 0)
      continue;
    std::optional<int64_t> lower = getConstantIntValue(loop.getLowerBound());
    std::optional<int64_t> upper = getConstantIntValue(loop.getUpperBound());
    std::optional<int64_t> step = getConstantIntValue(loop.getStep());
    if (lower && upper && step && *step > 0 && *upper > *lower)
      instances *= double((*upper - *lower + *step - 1) / *step);
    else if (!lower || !upper || !step)
      instances *= double(dynamicTrips);
  }
  return instances;
}

/// The cycles of cube task `task` as it is: the slower of its copy-ins and
/// its other pipes (double buffering overlaps them), plus one launch.
double taskCycles(TaskOp task, const PlatformInfo &platform,
                  double launchCycles) {
  double load = 0.0;
  for (ViewOp view : loadsOf(task))
    load += double(loadBytes(view)) / (isWorkspace(view.getSource())
                                           ? platform.perf.aicRates.l2Read
                                           : platform.perf.aicRates.ddrRead);
  ComputeCycles c = computeCycles(task, platform);
  return std::max({load, c.m, c.mte1, c.fix}) + launchCycles;
}

/// The operand-stationary planning problem of a group of cube tasks, each
/// cut into `parts` equal ranges of its K steps (1: whole tasks; more: the
/// tasks `splitKChains` would make, in its order): each (part of a) task's
/// A-side and B-side copy-ins form its A and B block (equal blocks: equal
/// features in the same order). None if a copy-in feeds both sides, no
/// matmul or steps of two parts, a task lacks a side, or the chains do not
/// cut into `parts`. Later K parts (a part past the first, or a task in
/// `later`) wait for their chain's first part.
std::optional<pto::detail::StationaryProblem>
stationaryProblem(ArrayRef<TaskInfo> infos, const PlatformInfo &platform,
                  double instances, double overlap, bool interleaveColumns,
                  unsigned parts = 1,
                  const llvm::DenseSet<Operation *> *later = nullptr) {
  pto::detail::StationaryProblem problem;
  problem.l1Bytes = platform.l1Bytes;
  problem.cores = platform.cubeCores;
  problem.instances = instances;
  problem.overlapCycles = overlap;
  problem.interleaveColumns = interleaveColumns;
  // The cost model's assumed cost of one launch (docs/CostModel.md), read
  // from its defaults so that the two stay one figure.
  problem.launchCycles =
      cost::CostModelOptions{}.launchOverheadUs * platform.clockGHz * 1e3;
  std::map<std::vector<unsigned>, unsigned> blockIds[2];
  for (const TaskInfo &info : infos) {
    int64_t steps = 0;
    for (const Load &load : info.loads)
      for (int64_t step : load.steps)
        steps = std::max(steps, step + 1);
    if (steps == 0 || steps % parts)
      return std::nullopt;
    int64_t perPart = steps / parts;
    for (unsigned part = 0; part < parts; ++part) {
      std::vector<unsigned> keys[2];
      pto::detail::StationaryBlock blocks[2];
      std::map<int64_t, int64_t> stepBytes[2];
      for (const Load &load : info.loads) {
        if (load.sides != kSideA && load.sides != kSideB)
          return std::nullopt;
        int64_t first = load.steps.front() / perPart;
        for (int64_t step : load.steps)
          if (step == kEveryStep || step / perPart != first)
            return std::nullopt;
        if (first != part)
          continue;
        unsigned side = load.sides == kSideA ? 0 : 1;
        keys[side].push_back(load.feature);
        blocks[side].bytes += load.bytes;
        for (int64_t step : load.steps)
          stepBytes[side][step] += load.bytes;
        blocks[side].loadCycles +=
            double(load.bytes) / (isWorkspace(ViewOp(load.view).getSource())
                                      ? platform.perf.aicRates.l2Read
                                      : platform.perf.aicRates.ddrRead);
      }
      unsigned ids[2];
      for (unsigned side : {0u, 1u}) {
        if (keys[side].empty())
          return std::nullopt;
        for (auto &[step, bytes] : stepBytes[side])
          blocks[side].stepBytes = std::max(blocks[side].stepBytes, bytes);
        // A part's block is another block than the same loads' whole task.
        keys[side].push_back(~0u - part);
        auto &table = side == 0 ? problem.aBlocks : problem.bBlocks;
        auto [it, inserted] =
            blockIds[side].try_emplace(std::move(keys[side]), table.size());
        if (inserted)
          table.push_back(blocks[side]);
        ids[side] = it->second;
      }
      problem.tasks.push_back({ids[0], ids[1]});
      problem.stage.push_back(
          part > 0 ||
          (later && later->contains(TaskOp(info.task).getOperation())));
    }
    // Each part stores a whole partial result.
    ComputeCycles c = computeCycles(info.task, platform);
    problem.pieceCycles =
        std::max({problem.pieceCycles, c.m / parts, c.mte1 / parts, c.fix});
  }
  return problem;
}

struct L1ReusePass : public pto::impl::L1ReusePassBase<L1ReusePass> {
  using Base::Base;

  /// Whether some kernel has cube tasks: without any nothing changes, the
  /// analyses are kept and the verifier run is skipped.
  bool sawCubeTasks = false;

  void runOnOperation() override {
    if (dynamicTripCount < 1) {
      getOperation()->emitError()
          << "pto-l1-reuse: dynamic-trip-count = "
          << static_cast<int64_t>(dynamicTripCount)
          << " is not a trip count; give the iterations at once to assume for "
             "a loop with run-time bounds, at least 1";
      return signalPassFailure();
    }
    sawCubeTasks = false;
    // Kernels do not nest: their bodies need not be walked to find them.
    getOperation()->walk<WalkOrder::PreOrder>([&](KernelOp kernel) {
      runOnKernel(kernel);
      return WalkResult::skip();
    });
    if (!sawCubeTasks)
      markAllAnalysesPreserved();
  }

  void runOnKernel(KernelOp kernel) {
    const PlatformInfo &platform = getPlatformInfo(kernel.getArchOrDefault());
    llvm::SetVector<Block *> blocks = blocksWithTasks(kernel, CoreKind::cube);
    sawCubeTasks |= !blocks.empty();
    // Without cube tasks nothing is loaded into L1: no walks to count it.
    int64_t before = blocks.empty() ? 0 : cubeLoadBytes(kernel);
    for (Block *block : blocks)
      runOnBlock(kernel, *block, platform);
    int64_t after = blocks.empty() ? 0 : cubeLoadBytes(kernel);
    numBytesBefore += before;
    numBytesAfter += after;
    if (report) {
      double saved =
          before ? 100.0 * double(before - after) / double(before) : 0.0;
      emitRemark(kernel.getLoc())
          << "pto-l1-reuse @" << kernel.getSymName()
          << ": GM->L1 bytes per block instance: before " << before
          << ", after " << after << " (saved " << llvm::formatv("{0:F1}", saved)
          << "%)";
    }
  }

  void runOnBlock(KernelOp kernel, Block &block, const PlatformInfo &platform) {
    SmallVector<SmallVector<TaskOp>> groups =
        groupsOf(block, CoreKind::cube,
                 [](TaskOp task) { return !loadsOf(task).empty(); });
    double blockInstances = staticInstances(block, kernel, dynamicTripCount);
    // Tasks that pto-mix-exchange will merge with their vector readers
    // wait where those readers wait (MixExchange.h): their instances run in
    // turn, beside the block's other cube tasks. Those groups are planned
    // first, so that a serialised group is planned against the work they
    // leave for the cores.
    // The GM accesses of the block's ops, for the planners of all groups.
    std::optional<BlockAccesses> accesses;
    accesses.emplace(block);
    SmallVector<Operation *> serialised(groups.size(), nullptr);
    std::optional<pto::detail::MixSerialisation> mixLoops;
    if (mix) {
      mixLoops.emplace(block);
      for (auto [groupId, tasks] : llvm::enumerate(groups))
        serialised[groupId] = mixLoops->serialisedLoop(tasks);
    }
    SmallVector<unsigned> order;
    for (unsigned pass : {0u, 1u})
      for (unsigned groupId = 0; groupId < groups.size(); ++groupId)
        if ((serialised[groupId] != nullptr) == (pass == 1))
          order.push_back(groupId);
    // The cycles of the block's cube tasks, summed once when the first
    // serialised group needs them and kept current across the later ones'
    // merges (none: to be summed again).
    std::optional<double> cubeCycles;
    double launchCycles =
        cost::CostModelOptions{}.launchOverheadUs * platform.clockGHz * 1e3;
    for (unsigned groupId : order) {
      MutableArrayRef<TaskOp> tasks = groups[groupId];
      double instances = blockInstances, overlap = 0.0, ownCycles = 0.0;
      // A group whose instances run in turn has the MIX tasks' latency on
      // the chain between them: its rectangles interleave the B blocks, so
      // that a block valid only in its first columns (a short sequence)
      // spreads them over several MIX tasks. Not where other MIX tasks
      // wait on its results: each of those would then wait for every one
      // of them, holding AIVs the chain needs (docs/TileGraph.md).
      bool interleave = false;
      if (Operation *loop = serialised[groupId]) {
        interleave = !mixLoops->hasParallelExchange();
        instances = staticInstances(block, kernel, dynamicTripCount, loop);
        if (!cubeCycles) {
          cubeCycles = 0.0;
          for (auto task : block.getOps<TaskOp>())
            if (task.getKind() == CoreKind::cube)
              *cubeCycles += taskCycles(task, platform, launchCycles);
        }
        for (TaskOp task : tasks)
          ownCycles += taskCycles(task, platform, launchCycles);
        overlap = std::max(0.0, *cubeCycles - ownCycles);
      }
      GroupSetting setting = lookupSetting(
          mergeSetting(kernel, &PassOptionsAttr::getCubeL1ReuseSetting),
          groupId);
      Location loc = tasks.front().getLoc();
      std::string family = tasks.front().getFamily().str();
      if (!stationary && setting.count && *setting.count <= 1) {
        if (report)
          emitRemark(loc) << "pto-l1-reuse: group " << groupId << " ("
                          << tasks.size() << " x \"" << family
                          << "\"): merge count 1 (cube_l1_reuse_setting), "
                             "not merged";
        continue;
      }

      // Operand-stationary: rectangles (after cutting the K chains into
      // partial sums, where that is shorter) replace the setting's merge
      // where the model says they shorten the group (docs/TileGraph.md).
      SmallVector<TaskOp> groupTasks(tasks.begin(), tasks.end());
      unsigned splitParts = 0; // 0: the setting's merge
      double settingCycles = 0.0, stationaryCycles = 0.0; // group cycles
      if (stationary)
        splitParts = chooseStationary(*accesses, block, groupTasks, setting,
                                      platform, instances, overlap, interleave,
                                      settingCycles, stationaryCycles);
      llvm::DenseSet<Operation *> laterParts;
      if (splitParts > 1) {
        // The split rewrites the group's tasks in place and adds copies of
        // them: the other ops' summaries stay.
        for (TaskOp task : groupTasks)
          accesses->forgetBody(task);
        SmallVector<TaskOp> later;
        groupTasks = pto::detail::splitKChains(groupTasks, splitParts, later);
        for (TaskOp task : later)
          laterParts.insert(task);
        sinkLaterParts(block, groupTasks, later, *accesses);
      }

      // Task infos against the block as it is now.
      ValueNumbering vn;
      SmallVector<TaskInfo, 8> infos = cubeTaskInfos(vn, block, groupTasks);
      GroupPlanner planner(*accesses, infos, platform.l1Bytes);

      std::optional<pto::detail::StationaryPlan> stationaryPlan;
      if (splitParts)
        if (auto problem =
                stationaryProblem(infos, platform, instances, overlap,
                                  interleave, 1, &laterParts))
          stationaryPlan = pto::detail::planStationary(
              *problem, std::numeric_limits<double>::infinity());
      if (!stationaryPlan && setting.count && *setting.count <= 1) {
        if (report)
          emitRemark(loc) << "pto-l1-reuse: group " << groupId << " ("
                          << tasks.size() << " x \"" << family
                          << "\"): merge count 1 (cube_l1_reuse_setting), "
                             "not merged, no operand-stationary extent";
        if (splitParts > 1)
          cubeCycles.reset(); // the K split replaced the group's tasks
        continue;
      }
      unsigned mask = kAllSides;
      Plan chosen;
      int64_t count = 1;
      unsigned minTasks = 1;
      if (stationaryPlan) {
        count = stationaryPlan->a * stationaryPlan->b;
        chosen = planner.plan(count, mask, minTasks, /*requireSharing=*/false,
                              stationaryPlan->slotOf);
      } else {
        chosen = settingPlan(planner, setting, groupTasks.size(), platform,
                             count, mask, minTasks);
      }

      unsigned merged = 0, removed = 0;
      int64_t removedBytes = 0;
      for (auto [targetIndex, members] : llvm::enumerate(chosen.targets)) {
        if (members.size() < 2)
          continue;
        Block &body =
            mergeMembers(*accesses, infos, members, chosen.hosts[targetIndex]);
        merged += members.size() - 1;
        // Remove duplicate loads: the first identical load stays.
        DenseMap<Operation *, const Load *> loadOf;
        for (unsigned m : members)
          for (const Load &load : infos[m].loads)
            loadOf[load.view] = &load;
        DenseMap<unsigned, ViewOp> first;
        for (Operation &op : llvm::make_early_inc_range(body)) {
          const Load *load = loadOf.lookup(&op);
          if (!load || !(load->sides & mask))
            continue;
          auto [it, inserted] = first.try_emplace(load->feature, load->view);
          if (inserted)
            continue;
          op.getResult(0).replaceAllUsesWith(it->second.getResult());
          removedBytes += load->bytes;
          accesses->erase(&op);
          ++removed;
        }
        // Index arithmetic only the removed copies used.
        for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
          if (isMemoryEffectFree(&op) && isOpTriviallyDead(&op))
            accesses->erase(&op);
      }
      numTasksMerged += merged;
      numLoadsRemoved += removed;
      if (cubeCycles && serialised[groupId]) {
        // The group's tasks now: each target's host stands for its members.
        llvm::DenseSet<unsigned> erased;
        for (auto [targetIndex, members] : llvm::enumerate(chosen.targets))
          if (members.size() >= 2)
            for (unsigned m : members)
              if (m != chosen.hosts[targetIndex])
                erased.insert(m);
        double after = 0.0;
        for (auto [i, info] : llvm::enumerate(infos))
          if (!erased.contains(i))
            after += taskCycles(info.task, platform, launchCycles);
        *cubeCycles += after - ownCycles;
      } else if (cubeCycles) {
        cubeCycles.reset();
      }

      if (report) {
        InFlightDiagnostic diag = emitRemark(loc);
        diag << "pto-l1-reuse: group " << groupId << " (" << tasks.size()
             << " x \"" << family << "\"): merge count " << count;
        StringRef shared = mask == kSideA   ? "A blocks"
                           : mask == kSideB ? "B blocks"
                                            : "A and B blocks";
        if (stationary && !stationaryPlan && settingCycles > 0.0)
          diag << " (operand-stationary: no extent shorter than the "
                  "setting's merge, "
               << llvm::formatv("{0:F0}", settingCycles) << " cycles)";
        else if (stationary && !stationaryPlan)
          diag << " (operand-stationary: not applicable)";
        if (stationaryPlan && splitParts > 1)
          diag << " (K chains cut in " << splitParts << " partial sums)";
        if (stationaryPlan)
          diag << " (operand-stationary: " << stationaryPlan->a << " A x "
               << stationaryPlan->b << " B blocks per task, largest L1 "
               << "footprint " << stationaryPlan->largestFootprint
               << " B, copy-ins "
               << llvm::formatv("{0:F0}", stationaryPlan->loadCycles) << " of "
               << llvm::formatv("{0:F0}", stationaryPlan->pieceCycles)
               << " compute/store cycles; group "
               << llvm::formatv("{0:F0}", stationaryCycles) << " cycles vs "
               << llvm::formatv("{0:F0}", settingCycles)
               << " merged by the setting)";
        if (stationaryPlan && interleave)
          diag << " (B blocks interleaved)";
        if (instances != blockInstances)
          diag << " (planned as MIX tasks: "
               << llvm::formatv("{0:F0}", instances)
               << " instances at once, not "
               << llvm::formatv("{0:F0}", blockInstances) << ", beside "
               << llvm::formatv("{0:F0}", overlap)
               << " cycles of the block's other cube tasks)";
        if (!stationaryPlan && setting.count)
          diag << " (cube_l1_reuse_setting)";
        else if (!stationaryPlan)
          diag << " (automatic, keeping >= " << minTasks << " tasks"
               << (count > 1 ? ", sharing " + shared.str() : "") << ")";
        if (StringRef side = sideName(setting.side); !side.empty())
          diag << ", sides " << side;
        if (setting.count && setting.side == kSettingAuto)
          diag << " (" << shared << ")";
        diag << ", " << chosen.tasksAfter << " tasks after, " << removed
             << " loads removed (" << removedBytes << " B)";
      }
    }
    runCubeNBuffer(kernel, block, platform, *accesses);
  }

  /// The merge of the group by its `cube_l1_reuse_setting` (count and
  /// shared sides; without a count, automatic), as without the
  /// operand-stationary mode; sets `count`, `mask` and `minTasks`.
  Plan settingPlan(GroupPlanner &planner, const GroupSetting &setting,
                   int64_t size, const PlatformInfo &platform, int64_t &count,
                   unsigned &mask, unsigned &minTasks) {
    // Which copy-ins may be shared: the setting's side; for "auto" and in
    // automatic mode, whichever of both / A only / B only removes the most
    // bytes (in that order on ties).
    SmallVector<unsigned, 3> masks = {sideMaskOf(setting.side)};
    if (!setting.count || setting.side == kSettingAuto)
      masks = {kAllSides, kSideA, kSideB};
    mask = masks.front();
    count = 1;
    minTasks = 1;
    Plan chosen;
    auto consider = [&](Plan p, int64_t n, unsigned m) {
      bool better =
          p.savedBytes > chosen.savedBytes ||
          (p.savedBytes == chosen.savedBytes && p.savedBytes > 0 && n < count);
      if (better) {
        chosen = std::move(p);
        count = n;
        mask = m;
      }
    };
    if (setting.count) {
      count = *setting.count;
      chosen = planner.plan(count, mask, minTasks);
      for (unsigned m : ArrayRef(masks).drop_front())
        consider(planner.plan(count, m, minTasks), count, m);
      return chosen;
    }
    // Automatic: the N that removes the most bytes while the group keeps
    // min(size, 2 x cube cores) tasks (every core gets two, so loads
    // overlap compute) and no merged task exceeds one core's share of the
    // group (size / cube cores tasks); the smallest such N.
    minTasks = std::min<int64_t>(size, 2 * platform.cubeCores);
    int64_t maxCount = std::max<int64_t>(1, size / platform.cubeCores);
    chosen = planner.plan(1, mask, minTasks);
    for (unsigned m : masks)
      for (int64_t n = 2; n <= maxCount; ++n) {
        Plan p = planner.plan(n, m, minTasks);
        bool saturated = p.largest < n; // larger counts plan the same
        consider(std::move(p), n, m);
        if (saturated)
          break;
      }
    return chosen;
  }

  /// Whether the group takes operand-stationary rectangles, and over how
  /// many K parts (0: no, the setting's merge; 1: whole chains; 2, 4, 8:
  /// chains cut into partial sums): the choice of least group time
  /// (`pto::detail::groupCycles`, which weighs the cube cores' throughput
  /// against one instance's latency), which must beat the setting's merge
  /// costed the same way (docs/TileGraph.md). Sets both times (cycles).
  unsigned chooseStationary(BlockAccesses &accesses, Block &block,
                            ArrayRef<TaskOp> tasks, const GroupSetting &setting,
                            const PlatformInfo &platform, double instances,
                            double overlap, bool interleave,
                            double &settingCycles, double &chosenCycles) {
    ValueNumbering vn;
    SmallVector<TaskInfo, 8> infos = cubeTaskInfos(vn, block, tasks);
    std::optional<pto::detail::StationaryProblem> whole =
        stationaryProblem(infos, platform, instances, overlap, interleave);
    settingCycles = chosenCycles = 0.0;
    if (!whole)
      return 0;
    if (setting.count && *setting.count <= 1) {
      settingCycles = pto::detail::stationaryCycles(*whole);
    } else {
      GroupPlanner planner(accesses, infos, platform.l1Bytes);
      int64_t count = 1;
      unsigned mask = kAllSides, minTasks = 1;
      Plan plan = settingPlan(planner, setting, tasks.size(), platform, count,
                              mask, minTasks);
      SmallVector<unsigned> slotOf(infos.size());
      for (unsigned i = 0; i < infos.size(); ++i)
        slotOf[i] = i;
      for (auto [target, members] : llvm::enumerate(plan.targets))
        for (unsigned m : members)
          slotOf[m] = infos.size() + target;
      settingCycles = pto::detail::slotsCycles(*whole, slotOf, mask & kSideA,
                                               mask & kSideB);
    }
    // Each must beat the setting's merge; among them, whole chains and each
    // cut compare as the extents of one cut do (`isBetterPlan`: on equal
    // time, fewer copy-ins).
    std::optional<pto::detail::StationaryPlan> best =
        pto::detail::planStationary(*whole, settingCycles);
    unsigned choice = best ? 1 : 0;
    for (unsigned parts : {2u, 4u, 8u}) {
      std::optional<pto::detail::StationaryProblem> cut = stationaryProblem(
          infos, platform, instances, overlap, interleave, parts);
      if (!cut)
        continue;
      std::optional<pto::detail::StationaryPlan> plan =
          pto::detail::planStationary(*cut, settingCycles);
      if (plan && (!best || pto::detail::isBetterPlan(*plan, *best)) &&
          pto::detail::canSplitKChains(tasks, parts)) {
        best = std::move(plan);
        choice = parts;
      }
    }
    chosenCycles = best ? best->cycles : settingCycles;
    return choice;
  }

  /// After a K split: moves the later parts and the tasks reading what the
  /// group stores below the group's last task, where they do not conflict
  /// with what they pass, so that the first parts (plain stores) can merge
  /// across the pieces in between; then puts `tasks` back in program order.
  void sinkLaterParts(Block &block, SmallVectorImpl<TaskOp> &tasks,
                      ArrayRef<TaskOp> later, BlockAccesses &accesses) {
    llvm::sort(tasks, [](TaskOp a, TaskOp b) {
      return a->isBeforeInBlock(b.getOperation());
    });
    TaskOp last = tasks.back();
    llvm::DenseSet<Operation *> group;
    for (TaskOp task : tasks)
      group.insert(task);
    llvm::SetVector<Operation *> movable;
    for (TaskOp task : later)
      if (task != last)
        movable.insert(task);
    for (TaskOp task : tasks)
      task.walk([&](Operation *op) {
        if (!isa<AssembleOp, AtomicAddOp>(op))
          return;
        for (Operation *user : op->getOperand(1).getUsers())
          if (Operation *owner = block.findAncestorOpInBlock(*user))
            if (isa<TaskOp>(owner) && !group.contains(owner) &&
                owner->isBeforeInBlock(last) &&
                tasks.front()->isBeforeInBlock(owner))
              movable.insert(owner);
      });
    SmallVector<TaskOp> ordered;
    for (Operation *op : movable)
      ordered.push_back(cast<TaskOp>(op));
    llvm::sort(ordered, [](TaskOp a, TaskOp b) {
      return a->isBeforeInBlock(b.getOperation());
    });
    sinkBelow(ordered, last, accesses);
    llvm::sort(tasks, [](TaskOp a, TaskOp b) {
      return a->isBeforeInBlock(b.getOperation());
    });
  }

  /// Moves the tasks `movable` (program order, all before `last`) right
  /// after `last`, keeping their order, each one that does not conflict
  /// with an op it would pass (GM regions; docs/TileGraph.md): so that the
  /// cut tasks of a group are not kept apart by the readers of their
  /// partial sums. One backward sweep with an index of the passed ops'
  /// accesses (near-linear).
  void sinkBelow(ArrayRef<TaskOp> movable, TaskOp last,
                 BlockAccesses &accesses) {
    llvm::DenseSet<Operation *> isMovable;
    for (TaskOp task : movable)
      isMovable.insert(task);
    AccessIndex passed;
    bool any = false;
    SmallVector<Operation *> moving; // reverse program order
    for (Operation *op = last.getOperation(); op; op = op->getPrevNode()) {
      if (op == last.getOperation() || !isMovable.contains(op)) {
        if (isMovable.empty())
          break;
        passed.add(accesses.summary(op));
        any = true;
        continue;
      }
      isMovable.erase(op);
      if (op->getNumResults() == 0 &&
          (!any || !passed.conflicts(accesses.summary(op)))) {
        moving.push_back(op);
      } else {
        passed.add(accesses.summary(op));
        any = true;
      }
    }
    Operation *after = last.getOperation();
    for (Operation *op : llvm::reverse(moving)) {
      op->moveAfter(after);
      after = op;
    }
  }

  /// Phase 2, PyPTO's CubeNBuffer (`cube_nbuffer_setting`, off without a
  /// value): N isomorphic cube tasks of the groups left by phase 1 become
  /// one, sharing nothing, while their copy-ins fit L1 per K step.
  void runCubeNBuffer(KernelOp kernel, Block &block,
                      const PlatformInfo &platform, BlockAccesses &accesses) {
    MergeSettingAttr setting =
        mergeSetting(kernel, &PassOptionsAttr::getCubeNbufferSetting);
    if (!setting)
      return;
    SmallVector<SmallVector<TaskOp>> groups =
        groupsOf(block, CoreKind::cube,
                 [](TaskOp task) { return !loadsOf(task).empty(); });
    for (auto [groupId, tasks] : llvm::enumerate(groups)) {
      std::optional<int64_t> count = setting.getCountFor(groupId);
      if (!count)
        continue;
      TaskOp first = tasks.front();
      Location loc = first.getLoc();
      std::string family = first.getFamily().str();
      unsigned tasksAfter = tasks.size();
      if (*count > 1) {
        ValueNumbering vn;
        SmallVector<TaskInfo, 8> infos = cubeTaskInfos(vn, block, tasks);
        auto [left, merged] =
            mergeUnshared(accesses, infos, *count, platform.l1Bytes);
        tasksAfter = left;
        numTasksMerged += merged;
      }
      if (report)
        emitRemark(loc) << "pto-l1-reuse: n-buffer group " << groupId << " ("
                        << tasks.size() << " x \"" << family
                        << "\"): merge count " << *count
                        << " (cube_nbuffer_setting), " << tasksAfter
                        << " tasks after";
    }
  }
};

} // namespace
