//===- NBufferMerge.cpp - pto-nbuffer-merge: bigger vector tasks --------===//
//
// PyPTO's NBufferMerge (docs/PyPTOModel.md#merging-passes,
// `vec_nbuffer_setting`): N isomorphic vector tasks become one bigger task.
//
//===----------------------------------------------------------------------===//

#include "TaskMergeSupport.h"

#include <limits>

namespace mlir::pto {
#define GEN_PASS_DEF_NBUFFERMERGEPASS
#include "pto/Dialect/PTO/Transforms/Passes.h.inc"
} // namespace mlir::pto

using namespace mlir;
using namespace mlir::pto;
using namespace mlir::pto::taskmerge;

namespace {

struct NBufferMergePass
    : public pto::impl::NBufferMergePassBase<NBufferMergePass> {
  using Base::Base;

  /// Whether some kernel has vector tasks: without any nothing changes, the
  /// analyses are kept and the verifier run is skipped.
  bool sawVectorTasks = false;

  void runOnOperation() override {
    sawVectorTasks = false;
    // Kernels do not nest: their bodies need not be walked to find them.
    getOperation()->walk<WalkOrder::PreOrder>([&](KernelOp kernel) {
      runOnKernel(kernel);
      return WalkResult::skip();
    });
    if (!sawVectorTasks)
      markAllAnalysesPreserved();
  }

  void runOnKernel(KernelOp kernel) {
    const PlatformInfo &platform = getPlatformInfo(kernel.getArchOrDefault());
    MergeSettingAttr setting =
        mergeSetting(kernel, &PassOptionsAttr::getVecNbufferSetting);
    llvm::SetVector<Block *> blocks = blocksWithTasks(kernel, CoreKind::vector);
    sawVectorTasks |= !blocks.empty();
    uint64_t before = 0, after = 0;
    for (Block *block : blocks) {
      SmallVector<SmallVector<TaskOp>> groups =
          groupsOf(*block, CoreKind::vector, [](TaskOp) { return true; });
      BlockAccesses accesses(*block);
      for (auto [groupId, tasks] : llvm::enumerate(groups)) {
        before += tasks.size();
        after +=
            mergeGroup(accesses, tasks, lookupSetting(setting, groupId).count,
                       groupId, platform);
      }
    }
    numTasksBefore += before;
    numTasksAfter += after;
    if (report && !blocks.empty())
      emitRemark(kernel.getLoc())
          << "pto-nbuffer-merge @" << kernel.getSymName()
          << ": vector tasks per block instance: before " << before
          << ", after " << after;
  }

  /// Merges one group with the setting's count (automatic without one);
  /// returns the number of tasks left.
  unsigned mergeGroup(BlockAccesses &accesses, ArrayRef<TaskOp> tasks,
                      std::optional<int64_t> count, unsigned groupId,
                      const PlatformInfo &platform) {
    TaskOp first = tasks.front();
    Location loc = first.getLoc();
    std::string family = first.getFamily().str();
    Block &block = *first->getBlock();
    // Automatic (PyPTO: "by vector core count"): as many per task as leaves
    // every vector core a task of the group, i.e. floor(size / AIV cores).
    int64_t size = tasks.size();
    int64_t n =
        count ? *count : std::max<int64_t>(1, size / platform.vectorCores);
    unsigned tasksAfter = tasks.size();
    if (n > 1) {
      // Vector tasks carry no loads: no capacity bound (each member's pieces
      // fit UB on their own, pto-expand-tiles).
      tasksAfter = mergeUnshared(accesses, taskInfos(block, tasks), n,
                                 std::numeric_limits<int64_t>::max())
                       .first;
    }
    if (report) {
      InFlightDiagnostic diag = emitRemark(loc);
      diag << "pto-nbuffer-merge: group " << groupId << " (" << size << " x \""
           << family << "\"): merge count " << n;
      if (count)
        diag << " (vec_nbuffer_setting)";
      else
        diag << " (automatic: " << platform.vectorCores << " vector cores)";
      diag << ", " << tasksAfter << " tasks after";
    }
    return tasksAfter;
  }
};

} // namespace
