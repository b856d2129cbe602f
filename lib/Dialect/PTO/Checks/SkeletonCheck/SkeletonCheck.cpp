//===- SkeletonCheck.cpp - SK-16 conformance checker ----------------------===//
//
// --pto-check-skeleton=sk16: one check per SK-16 coding rule
// (docs/SK16.md#coding-rules, R1..R14) plus
// docs/SK16.md#cross-attention-reshape. The kernel's structure is recognised
// semantically, never by SSA names (the parser drops them):
//
//  * arguments by their Python names (`arg_names`): q, k, v, o, do, l_input,
//    m_input, dq, dk, dv, actual_q, actual_kv (docs/SK16.md#signature);
//  * Q·Kᵀ is the matmul of a view of q and a view of k (through in-place
//    reshapes), dP the matmul of views of do and v, and the C2 matmuls the
//    others that consume tiles computed from S or dP;
//  * the four loop levels are the loops whose indices feed the view offsets:
//    batch reaches the q rows through `actual_q[b]`, head the q columns, s1
//    the q rows and s2 the k rows;
//  * V1 is what the C2 operands are computed from, V2 what consumes the C2
//    results.
//
// This file runs the rules in order and reports; the rules are in the
// files named in SkeletonCheckInternals.h.
//
//===----------------------------------------------------------------------===//

#include "SkeletonCheckInternals.h"
#include "pto/Dialect/PTO/Checks/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"
#include <map>

namespace mlir::pto {
#define GEN_PASS_DEF_CHECKSKELETONPASS
#include "pto/Dialect/PTO/Checks/Passes.h.inc"
} // namespace mlir::pto

using namespace mlir;
using namespace mlir::pto;
using namespace mlir::pto::check;

using namespace mlir::pto::check::sk16;

void Sk16Checker::run() {
  if (!checkSignature())
    return;
  buildModel(model);
  checkR1SinglePass();
  checkR2OneQK();
  checkR3Statistics();
  checkR4LoopLevels();
  checkR5AtomicOutputs();
  checkR6NoMasks();
  checkR7Scale();
  checkR8TileConfigs();
  checkR9DivPrecision();
  checkR10Reshapes();
  checkR11Bf16Operands();
  checkR12Scopes();
  checkR13CombineAxis();
  checkR14Options();
  checkP81KVTotal();
}

namespace {

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

struct CheckSkeletonPass
    : public pto::impl::CheckSkeletonPassBase<CheckSkeletonPass> {
  using CheckSkeletonPassBase::CheckSkeletonPassBase;

  /// `--pto-check-skeleton=sk16`: a leading bare word names the skeleton.
  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    return Pass::initializeOptions(expandPositionalOption(options, "skeleton"),
                                   errorHandler);
  }

  void runOnOperation() override {
    // Checked here rather than in initializeOptions, whose errors have no
    // location: the message points at the kernel it would have checked.
    if (skeleton != "sk16") {
      Operation *at = getOperation();
      getOperation().walk([&](KernelOp kernel) {
        at = kernel;
        return WalkResult::interrupt();
      });
      at->emitError() << "pto-check-skeleton: unknown skeleton '" << skeleton
                      << "'; known skeletons: sk16";
      return signalPassFailure();
    }
    RuleReporter reporter;
    getOperation().walk(
        [&](KernelOp kernel) { Sk16Checker(kernel, reporter).run(); });
    reporter.emit();
    if (!json.empty()) {
      std::string errorMessage;
      if (failed(reporter.writeJSON(json, errorMessage))) {
        getOperation().emitError() << "pto-check-skeleton: cannot write '"
                                   << json << "': " << errorMessage;
        return signalPassFailure();
      }
    }
    markAllAnalysesPreserved();
    if (reporter.hasErrors())
      signalPassFailure();
  }
};

} // namespace
