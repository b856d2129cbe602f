//===- Summary.cpp - a structural report of pto kernels -------------------===//

#include "ReportFile.h"
#include "pto/Dialect/PTO/Analysis/KernelStructure.h"
#include "pto/Dialect/PTO/Checks/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"
#include <map>

namespace mlir::pto {
#define GEN_PASS_DEF_SUMMARYPASS
#include "pto/Dialect/PTO/Checks/Passes.h.inc"
} // namespace mlir::pto

using namespace mlir;
using namespace mlir::pto;

namespace {

std::string str(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << type;
  return s;
}

std::string str(Attribute attr) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << attr;
  return s;
}

/// Name of the kernel argument a GM tensor aliases, or "<computed>".
std::string tensorName(Value tensor) {
  if (BlockArgument arg = getRootArgument(tensor))
    return getArgumentName(arg).str();
  return "<computed>";
}

void printLoopNest(LoopOp loop, unsigned depth, llvm::raw_ostream &os) {
  os.indent(4 + 2 * depth) << '"' << loop.getName() << "\" ("
                           << loop.getIdxName() << ")";
  if (loop.getNumResults())
    os << ", " << loop.getNumResults() << " loop-carried values";
  if (loop.getUnrollList()) {
    os << ", unroll_list [";
    llvm::interleaveComma(*loop.getUnrollList(), os);
    os << ']';
  }
  if (loop.getParallel())
    os << ", parallel";
  if (loop.getSubmitBeforeLoop())
    os << ", submit_before_loop";
  os << '\n';
  for (Operation &op : loop.getBody().front())
    op.walk<WalkOrder::PreOrder>([&](Operation *nested) {
      if (auto inner = dyn_cast<LoopOp>(nested)) {
        printLoopNest(inner, depth + 1, os);
        return WalkResult::skip();
      }
      return WalkResult::advance();
    });
}

void summarize(KernelOp kernel, llvm::raw_ostream &os) {
  const PlatformInfo &platform = getPlatformInfo(kernel.getArchOrDefault());
  os << "pto.kernel @" << kernel.getSymName() << "  [" << platform.name
     << "]\n";
  os << "  arguments (" << kernel.getNumArguments() << "):";
  for (auto [name, type] :
       llvm::zip(kernel.getArgNames(), kernel.getArgumentTypes()))
    os << ' ' << cast<StringAttr>(name).getValue() << ':'
       << str(type).substr(strlen("!pto.tensor"));
  os << '\n';
  if (auto combine = kernel.getCombineAxis())
    os << "  combine_axis: " << (*combine ? "true" : "false") << '\n';
  if (RuntimeOptionsAttr options = kernel.getRuntimeOptionsAttr())
    os << "  runtime_options: " << str(options) << '\n';
  if (PassOptionsAttr options = kernel.getPassOptionsAttr())
    os << "  pass_options: " << str(options) << '\n';

  os << "  loop nest:\n";
  bool anyLoop = false;
  for (Operation &op : kernel.getBody().front())
    op.walk<WalkOrder::PreOrder>([&](Operation *nested) {
      if (auto loop = dyn_cast<LoopOp>(nested)) {
        anyLoop = true;
        printLoopNest(loop, 0, os);
        return WalkResult::skip();
      }
      return WalkResult::advance();
    });
  if (!anyLoop)
    os << "    (none)\n";

  unsigned views = 0, viewsWithValid = 0, reads = 0, reshapes = 0,
           vectorOps = 0;
  SmallVector<MatmulOp> matmuls;
  std::map<std::string, unsigned> casts;
  SmallVector<std::string> atomics, assembles;
  kernel.walk([&](Operation *op) {
    if (auto view = dyn_cast<ViewOp>(op)) {
      ++views;
      viewsWithValid += view.getStaticValidShape().has_value();
    } else if (auto matmul = dyn_cast<MatmulOp>(op)) {
      matmuls.push_back(matmul);
    } else if (auto cast = dyn_cast<CastOp>(op)) {
      ++casts[str(cast.getInput().getType().getElementType()) + "->" +
              str(cast.getResult().getType().getElementType()) + " (" +
              stringifyCastMode(cast.getEffectiveMode()).str() + ")"];
    } else if (auto atomic = dyn_cast<AtomicAddOp>(op)) {
      atomics.push_back(tensorName(atomic.getDst()));
    } else if (auto assemble = dyn_cast<AssembleOp>(op)) {
      assembles.push_back(tensorName(assemble.getDst()));
    } else if (isa<ReadOp>(op)) {
      ++reads;
    } else if (isa<ReshapeOp>(op)) {
      ++reshapes;
    }
    if (isVectorOp(op))
      ++vectorOps;
  });
  os << "  reshapes: " << reshapes << ", scalar reads: " << reads << '\n';
  os << "  views: " << views << " (" << viewsWithValid
     << " with an explicit valid shape)\n";
  os << "  matmuls: " << matmuls.size() << '\n';
  for (MatmulOp matmul : matmuls)
    os << "    " << str(matmul.getLhs().getType().getElementType()) << " x "
       << str(matmul.getRhs().getType().getElementType()) << " -> "
       << str(matmul.getResult().getType()).substr(strlen("!pto.tile"))
       << (matmul.getATrans() ? " a_trans" : "")
       << (matmul.getBTrans() ? " b_trans" : "") << ' '
       << str(matmul.getCubeTile()) << '\n';
  os << "  vector ops: " << vectorOps << '\n';
  os << "  casts:";
  if (casts.empty())
    os << " none";
  for (auto &[pair, count] : casts)
    os << ' ' << count << " x " << pair;
  os << '\n';
  os << "  scopes:";
  unsigned numScopes = 0;
  kernel.walk([&](ScopeOp scope) {
    unsigned cube = 0, vector = 0;
    scope.walk([&](Operation *op) {
      cube += isCubeOp(op);
      vector += isVectorOp(op);
    });
    os << (numScopes++ ? "," : "") << " id " << scope.getScope().getId() << " ("
       << vector << " vector, " << cube << " cube ops)";
  });
  if (!numScopes)
    os << " none";
  os << '\n';
  os << "  atomic_add: " << atomics.size();
  if (!atomics.empty())
    os << " into " << llvm::join(atomics, ", ");
  os << '\n';
  if (!assembles.empty())
    os << "  assemble: " << assembles.size() << " into "
       << llvm::join(assembles, ", ") << '\n';
}

struct SummaryPass : public pto::impl::SummaryPassBase<SummaryPass> {
  using SummaryPassBase::SummaryPassBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(check::writeReport(
            module, getArgument(), output, [&](llvm::raw_ostream &os) {
              module.walk([&](KernelOp kernel) { summarize(kernel, os); });
            })))
      return signalPassFailure();
    markAllAnalysesPreserved();
  }
};

} // namespace
