//===- PlanStitch.cpp - stitch depth per root call ------------------------===//
//
// pto-plan-stitch (docs/PyPTOModel.md#runtime-options,
// docs/PyPTOModel.md#stitching): per root call, the workspace one root instance
// needs, the call tasks it issues and how many consecutive instances one device
// task stitches; `ready_on_host_tensors` as `pto.host_ready` marks on the
// control program's scalar reads.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "pto/Dialect/PTO/Analysis/OutlinedFunctions.h"
#include "pto/Dialect/PTO/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::pto {
#define GEN_PASS_DEF_PLANSTITCHPASS
#include "pto/Dialect/PTO/Transforms/Passes.h.inc"
} // namespace mlir::pto

using namespace mlir;
using namespace mlir::pto;

namespace {

/// Runtime limits (docs/PyPTOModel.md#runtime-options,
/// docs/PyPTOModel.md#stitching).
constexpr int64_t kMaxStitchDepth = 1024;     // root instances
constexpr int64_t kMaxStitchedTasks = 60000;  // call tasks per device task
constexpr int64_t kDefaultStitchMaxNum = 128; // stitch_function_max_num

/// Workspace one instance of `root` allocates: its own workspaces, plus the
/// workspaces inside the leaves it launches, once per launch.
struct RootInfo {
  int64_t workspaceBytes = 0;
  int64_t numWorkspaces = 0;
  int64_t launches = 0;
};

std::string kib(int64_t bytes) {
  std::string s = std::to_string(bytes / 1024);
  if (bytes % 1024)
    s += "." + std::to_string((bytes % 1024) * 100 / 1024);
  return s + " KiB";
}

struct PlanStitchPass : public pto::impl::PlanStitchPassBase<PlanStitchPass> {
  using PlanStitchPassBase::PlanStitchPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTableCollection symbols;
    leafWorkspaces.clear();
    outlined = &getAnalysis<OutlinedFunctionAnalysis>();
    // Only root calls and scalar reads in the kernels change.
    markAnalysesPreserved<OutlinedFunctionAnalysis>();
    for (KernelOp kernel : module.getOps<KernelOp>())
      if (failed(plan(kernel, symbols)))
        signalPassFailure();
  }

  /// Workspace bytes and count inside each leaf, walked once per leaf rather
  /// than once per launch (a root launches one leaf many times).
  DenseMap<Operation *, std::pair<int64_t, int64_t>> leafWorkspaces;
  /// What pto-outline recorded for the roots and leaves it built, if it ran
  /// just before: those are not walked again (docs/CompileTime.md).
  OutlinedFunctionAnalysis *outlined = nullptr;

  FailureOr<RootInfo> rootInfo(RootCallOp call,
                               SymbolTableCollection &symbols) {
    auto root = symbols.lookupNearestSymbolFrom<FunctionOpInterface>(
        call, call.getCalleeAttr());
    if (!root || root.isExternal())
      return call.emitOpError()
             << "calls " << call.getCalleeAttr()
             << ", which is not a root function with a body in scope";
    RootInfo info;
    if (const OutlinedFunctionSummary *summary = outlined->lookup(root)) {
      info.workspaceBytes = summary->workspaceBytes;
      info.numWorkspaces = summary->numWorkspaces;
      info.launches = summary->launches;
      return info;
    }
    root->walk([&](Operation *op) {
      if (auto workspace = dyn_cast<WorkspaceOp>(op)) {
        info.workspaceBytes += alignedWorkspaceBytes(workspace);
        ++info.numWorkspaces;
        return;
      }
      auto launch = dyn_cast<LaunchOp>(op);
      if (!launch)
        return;
      ++info.launches;
      auto leaf = symbols.lookupNearestSymbolFrom<FunctionOpInterface>(
          launch, launch.getCalleeAttr());
      if (!leaf)
        return;
      auto [it, inserted] = leafWorkspaces.try_emplace(leaf, 0, 0);
      if (inserted) {
        if (const OutlinedFunctionSummary *summary = outlined->lookup(leaf))
          it->second = {summary->workspaceBytes, summary->numWorkspaces};
        else
          leaf->walk([&, &sums = it->second](WorkspaceOp workspace) {
            sums.first += alignedWorkspaceBytes(workspace);
            ++sums.second;
          });
      }
      info.workspaceBytes += it->second.first;
      info.numWorkspaces += it->second.second;
    });
    return info;
  }

  LogicalResult plan(KernelOp kernel, SymbolTableCollection &symbols) {
    RuntimeOptionsAttr options = kernel.getRuntimeOptionsAttr();
    int64_t maxNum = kDefaultStitchMaxNum, maxWorkspaceKB = 0, parallelism = 1;
    llvm::StringSet<> readyNames;
    if (options) {
      if (auto v = options.getStitchFunctionMaxNum())
        maxNum = *v;
      if (auto v = options.getMaxWorkspaceKb())
        maxWorkspaceKB = *v;
      if (auto v = options.getDeviceSchedParallelism())
        parallelism = std::max<int64_t>(1, *v);
      if (ArrayAttr ready = options.getReadyOnHostTensors())
        for (Attribute name : ready)
          readyNames.insert(cast<StringAttr>(name).getValue());
    }

    // The control program: its workspaces (shared by every instance), root
    // calls and scalar reads. Tasks (not outlined) are not control program.
    int64_t fixedBytes = 0;
    SmallVector<RootCallOp> calls;
    SmallVector<ReadOp> reads;
    kernel.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<TaskOp>(op))
        return WalkResult::skip();
      if (auto workspace = dyn_cast<WorkspaceOp>(op))
        fixedBytes += alignedWorkspaceBytes(workspace);
      else if (auto call = dyn_cast<RootCallOp>(op))
        calls.push_back(call);
      else if (auto read = dyn_cast<ReadOp>(op))
        reads.push_back(read);
      return WalkResult::advance();
    });

    // ready_on_host_tensors.
    for (ReadOp read : reads) {
      Value tensor = read.getTensor();
      tensor = getAliasedTensor(tensor);
      StringRef name;
      if (auto arg = dyn_cast<BlockArgument>(tensor))
        if (arg.getOwner()->getParentOp() == kernel.getOperation())
          name = cast<StringAttr>(kernel.getArgNames()[arg.getArgNumber()])
                     .getValue();
      bool ready = !name.empty() && readyNames.contains(name);
      if (ready) {
        read->setAttr("pto.host_ready", UnitAttr::get(kernel.getContext()));
        ++numHostReady;
      } else {
        read->removeAttr("pto.host_ready");
      }
      if (report)
        read.emitRemark()
            << "pto-plan-stitch: scalar read of '"
            << (name.empty() ? StringRef("<computed>") : name) << "' "
            << (ready ? "is ready on the host (ready_on_host_tensors): the "
                        "control AICPU reads it without waiting"
                      : "waits for the AI cores to start (WaitAicoreStart); "
                        "list the tensor in ready_on_host_tensors if its "
                        "data is valid at launch");
    }

    if (calls.empty())
      return success();

    SmallVector<RootInfo> infos;
    int64_t maxInstanceBytes = 0;
    RootCallOp largest;
    for (RootCallOp call : calls) {
      FailureOr<RootInfo> info = rootInfo(call, symbols);
      if (failed(info))
        return failure();
      infos.push_back(*info);
      if (!largest || info->workspaceBytes > maxInstanceBytes) {
        maxInstanceBytes = info->workspaceBytes;
        largest = call;
      }
    }
    // The smallest workspace the kernel runs with: one instance of its
    // largest root next to the control program's workspaces, per parallel
    // scheduler.
    int64_t minBytes = parallelism * (fixedBytes + maxInstanceBytes);
    int64_t budgetBytes = maxWorkspaceKB * 1024;
    bool memoryMode = maxWorkspaceKB > 0;
    auto workspaceFor = [&](int64_t depth) {
      return parallelism * (fixedBytes + depth * maxInstanceBytes);
    };
    auto suggestKB = [&](int64_t depth) {
      return llvm::divideCeil(workspaceFor(depth), 1024);
    };
    if (memoryMode && budgetBytes <= minBytes) {
      int64_t countDepth = std::min(maxNum, kMaxStitchDepth);
      InFlightDiagnostic diag =
          kernel.emitError()
          << "pto-plan-stitch: runtime option max_workspace_kb = "
          << maxWorkspaceKB << " is not above the kernel's minimum runnable "
          << "workspace of " << kib(minBytes) << " (" << minBytes
          << " bytes = device_sched_parallelism " << parallelism << " x ("
          << fixedBytes << " bytes of control-program workspaces + "
          << maxInstanceBytes << " bytes for one instance of "
          << largest.getCalleeAttr()
          << "), each workspace 32 KiB aligned); fix: set max_workspace_kb to "
             "at least "
          << minBytes / 1024 + 1 << " (" << suggestKB(countDepth)
          << " stitches " << countDepth
          << " instances), or to 0 to stitch by stitch_function_max_num";
      diag.attachNote(largest.getLoc()) << "the largest root instance is "
                                           "called here";
      return diag;
    }

    for (auto [call, info] : llvm::zip(calls, infos)) {
      int64_t depth;
      std::string why;
      llvm::raw_string_ostream os(why);
      bool parallel = false;
      for (LoopOp loop = call->getParentOfType<LoopOp>(); loop;
           loop = loop->getParentOfType<LoopOp>())
        parallel |= loop.getParallel();
      if (memoryMode) {
        depth = info.workspaceBytes == 0
                    ? kMaxStitchDepth
                    : (budgetBytes - parallelism * fixedBytes) /
                          (parallelism * info.workspaceBytes);
        os << "memory: max_workspace_kb = " << maxWorkspaceKB
           << ", device_sched_parallelism = " << parallelism << ", "
           << fixedBytes << " bytes of control-program workspaces";
        ++numMemoryMode;
      } else if (parallel) {
        depth = kMaxStitchDepth;
        os << "count: inside a parallel loop, the hard cap replaces "
              "stitch_function_max_num";
      } else {
        depth = maxNum;
        os << "count: stitch_function_max_num = " << maxNum;
      }
      depth = std::min(depth, kMaxStitchDepth);
      if (info.launches > 0 && depth * info.launches > kMaxStitchedTasks) {
        depth = kMaxStitchedTasks / info.launches;
        os << "; capped at " << kMaxStitchedTasks << " call tasks";
      }
      depth = std::max<int64_t>(depth, 1);
      call.setStitchAttr(StitchPlanAttr::get(kernel.getContext(), depth,
                                             info.workspaceBytes, info.launches,
                                             memoryMode ? "memory" : "count"));
      ++numRootCalls;
      if (report)
        call.emitRemark() << "pto-plan-stitch: " << call.getCalleeAttr() << ": "
                          << info.workspaceBytes
                          << " bytes of workspace per instance ("
                          << info.numWorkspaces
                          << (info.numWorkspaces == 1 ? " workspace"
                                                      : " workspaces")
                          << ", 32 KiB aligned), " << info.launches
                          << (info.launches == 1 ? " launch" : " launches")
                          << ", stitch depth " << depth << " (" << why << ")";
    }
    if (report) {
      int64_t countDepth = std::min(maxNum, kMaxStitchDepth);
      kernel.emitRemark() << "pto-plan-stitch: @" << kernel.getSymName()
                          << ": minimum runnable workspace " << kib(minBytes)
                          << " (" << minBytes << " bytes); max_workspace_kb = "
                          << suggestKB(countDepth) << " stitches " << countDepth
                          << " instances of the largest root";
    }
    return success();
  }
};

} // namespace
