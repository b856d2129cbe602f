//===- Report.cpp - the numbers of an outlined tile graph -----------------===//
//
// Reads the execute graph that pto-outline and pto-plan-stitch produce and
// prints, per root function (one loop-body instance): launches per task
// family, the leaves they use, the GM traffic of one instance split into
// kernel tensors and workspace, GM->L1 copy-in bytes of the cube tasks, the
// Q·Kᵀ products per block pair, workspace and stitch plan. Byte counts use
// the static tile sizes: they are exact for full blocks and upper bounds for
// tail blocks.
//
//===----------------------------------------------------------------------===//

#include "ReportFile.h"
#include "pto/Dialect/PTO/Analysis/KernelStructure.h"
#include "pto/Dialect/PTO/Checks/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <map>

namespace mlir::pto {
#define GEN_PASS_DEF_REPORTPASS
#include "pto/Dialect/PTO/Checks/Passes.h.inc"
} // namespace mlir::pto

using namespace mlir;
using namespace mlir::pto;

namespace {

int64_t tileBytes(Type type) {
  auto tile = cast<TileType>(type);
  return tile.getByteSize();
}

std::string mib(int64_t bytes) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::format("%.2f MiB", bytes / (1024.0 * 1024.0));
  return s;
}

/// Where a GM tensor used in a leaf comes from.
struct Origin {
  bool workspace = false;
  std::string argument; // kernel argument name, when not a workspace
};

class Reporter {
public:
  Reporter(ModuleOp module, llvm::raw_ostream &os)
      : module(module), symbols(module), os(os) {
    module.walk([&](RootCallOp call) { callOf[call.getCallee()] = call; });
  }

  void reportKernel(KernelOp kernel);

private:
  /// Traces a value used by `launch`'s leaf back to a workspace or a kernel
  /// argument (through root arguments, the root call and reshapes).
  Origin trace(Value value, LaunchOp launch, func::FuncOp root);

  ModuleOp module;
  /// One table: ModuleOp::lookupSymbol scans the module per call.
  SymbolTable symbols;
  llvm::raw_ostream &os;
  llvm::StringMap<RootCallOp> callOf;
};

Origin Reporter::trace(Value value, LaunchOp launch, func::FuncOp root) {
  // Leaf argument -> launch operand.
  if (auto arg = dyn_cast<BlockArgument>(value))
    if (isa<func::FuncOp>(arg.getOwner()->getParentOp()) &&
        arg.getOwner()->getParentOp() != root.getOperation())
      value = launch.getArgs()[arg.getArgNumber()];
  // Root argument -> root call operand.
  if (auto arg = dyn_cast<BlockArgument>(value))
    if (arg.getOwner()->getParentOp() == root.getOperation()) {
      RootCallOp call = callOf.lookup(root.getSymName());
      if (!call)
        return {};
      value = call.getArgs()[arg.getArgNumber()];
    }
  if (getAliasedTensor(value).getDefiningOp<WorkspaceOp>())
    return {true, ""};
  if (BlockArgument arg = getRootArgument(value))
    return {false, getArgumentName(arg).str()};
  return {};
}

void Reporter::reportKernel(KernelOp kernel) {
  os << "pto-report @" << kernel.getSymName() << "\n";
  SmallVector<RootCallOp> calls;
  kernel.walk([&](RootCallOp call) { calls.push_back(call); });
  if (calls.empty()) {
    os << "  no root calls: run pto-outline (--pto-tile-graph-pipeline) "
          "first\n";
    return;
  }
  llvm::StringSet<> leavesUsed;
  unsigned totalLaunches = 0;
  for (RootCallOp call : calls) {
    auto root = symbols.lookup<func::FuncOp>(call.getCallee());
    if (!root)
      continue;
    std::map<std::string, unsigned> families;
    int64_t kernelRead = 0, kernelWrite = 0, workspaceRead = 0,
            workspaceWrite = 0, l1Bytes = 0, qkElements = 0, workspaceBytes = 0,
            largestScoreBlock = 0;
    unsigned launches = 0, numWorkspaces = 0;
    root.walk([&](WorkspaceOp ws) {
      ++numWorkspaces;
      workspaceBytes += ws.getResult().getType().getNumElements() *
                        ws.getResult().getType().getElementByteSize();
    });
    root.walk([&](LaunchOp launch) {
      ++launches;
      auto leaf = symbols.lookup<func::FuncOp>(launch.getCallee());
      if (!leaf)
        return;
      leavesUsed.insert(leaf.getSymName());
      if (auto family = leaf->getAttrOfType<StringAttr>("pto.family"))
        ++families[family.str()];
      bool cube = false;
      if (auto kind = leaf->getAttrOfType<CoreKindAttr>("pto.leaf"))
        cube = kind.getValue() == CoreKind::cube;
      leaf.walk([&](Operation *op) {
        if (auto view = dyn_cast<ViewOp>(op)) {
          if (!isa<GMTensorType>(view.getSource().getType()))
            return;
          int64_t bytes = tileBytes(view.getResult().getType());
          (trace(view.getSource(), launch, root).workspace ? workspaceRead
                                                           : kernelRead) +=
              bytes;
          if (cube)
            l1Bytes += bytes;
          return;
        }
        if (isa<AssembleOp, AtomicAddOp>(op)) {
          int64_t bytes = tileBytes(op->getOperand(0).getType());
          Origin dst = trace(op->getOperand(1), launch, root);
          (dst.workspace ? workspaceWrite : kernelWrite) += bytes;
          // A score block: a workspace receiving q·kᵀ pieces.
          return;
        }
        auto matmul = dyn_cast<MatmulOp>(op);
        if (!matmul)
          return;
        auto sourceOf = [&](Value tile) -> Origin {
          auto view = tile.getDefiningOp<ViewOp>();
          if (!view || !isa<GMTensorType>(view.getSource().getType()))
            return {};
          return trace(view.getSource(), launch, root);
        };
        if (sourceOf(matmul.getLhs()).argument == "q" &&
            sourceOf(matmul.getRhs()).argument == "k") {
          TileType out = matmul.getResult().getType();
          qkElements += out.getDimSize(0) * out.getDimSize(1);
          // The score block the pieces are assembled into.
          for (Operation *user : matmul->getUsers())
            if (auto assemble = dyn_cast<AssembleOp>(user))
              largestScoreBlock =
                  std::max(largestScoreBlock,
                           cast<GMTensorType>(assemble.getDst().getType())
                               .getNumElements());
        }
      });
    });
    totalLaunches += launches;
    os << "  root @" << root.getSymName() << ": " << launches << " launches (";
    bool first = true;
    for (auto &[family, count] : families) {
      os << (first ? "" : ", ") << family << " " << count;
      first = false;
    }
    os << ")\n";
    os << "    workspace per instance: " << numWorkspaces << " tensors, "
       << mib(workspaceBytes) << "\n";
    if (StitchPlanAttr plan = call.getStitchAttr())
      os << "    stitch: depth " << plan.getDepth() << " (" << plan.getMode()
         << " mode), " << mib(plan.getWorkspaceBytes())
         << " workspace per instance (32 KiB aligned)\n";
    os << "    GM traffic per instance: kernel tensors read " << mib(kernelRead)
       << ", written " << mib(kernelWrite) << "; workspace written "
       << mib(workspaceWrite) << ", read " << mib(workspaceRead) << "\n";
    os << "    GM->L1 copy-in per instance: " << mib(l1Bytes) << "\n";
    if (qkElements && largestScoreBlock)
      os << "    Q·Kᵀ products per block pair: "
         << llvm::format("%.2f", double(qkElements) / largestScoreBlock)
         << "\n";
  }
  os << "  leaves: " << leavesUsed.size() << " for " << totalLaunches
     << " launches in " << calls.size() << " roots\n";
}

struct ReportPass : public pto::impl::ReportPassBase<ReportPass> {
  using ReportPassBase::ReportPassBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(check::writeReport(module, getArgument(), output,
                                  [&](llvm::raw_ostream &os) {
                                    Reporter reporter(module, os);
                                    module.walk([&](KernelOp kernel) {
                                      reporter.reportKernel(kernel);
                                    });
                                  })))
      return signalPassFailure();
    markAllAnalysesPreserved();
  }
};

} // namespace
