//===- Lint.cpp - kernel-generic rules for any pto kernel -----------------===//
//
// --pto-lint: the rules that hold for any PyPTO kernel, not only for one
// skeleton. Each rule lives in CommonRules.cpp and is shared with the SK-16
// checker, which reports the same findings under its own rule ids.
//
//===----------------------------------------------------------------------===//

#include "CommonRules.h"
#include "RuleReporter.h"
#include "pto/Dialect/PTO/Checks/Passes.h"

#include "mlir/IR/BuiltinOps.h"

namespace mlir::pto {
#define GEN_PASS_DEF_LINTPASS
#include "pto/Dialect/PTO/Checks/Passes.h.inc"
} // namespace mlir::pto

using namespace mlir;
using namespace mlir::pto;
using namespace mlir::pto::check;

namespace {

struct LintPass : public pto::impl::LintPassBase<LintPass> {
  using LintPassBase::LintPassBase;

  void runOnOperation() override {
    RuleReporter reporter;
    getOperation().walk([&](KernelOp kernel) {
      checkManualMasks(kernel, reporter, "LINT-MASK");
      checkStaticLoops(kernel, reporter, "LINT-STATIC-LOOP");
      checkReplicatedViews(kernel, reporter, "LINT-REPLICATED",
                           Severity::Warning);
      checkTileConfigs(kernel, reporter, "LINT-TILE-CONFIG");
      checkTailViews(kernel, reporter, "LINT-TAIL-VALID");
      checkRecomputedStatistics(kernel, reporter, "LINT-RECOMPUTED-STATS");
      checkScopePurity(kernel, reporter, "LINT-SCOPE-PURITY");
    });
    reporter.emit();
    if (!json.empty()) {
      std::string errorMessage;
      if (failed(reporter.writeJSON(json, errorMessage))) {
        getOperation().emitError()
            << "pto-lint: cannot write '" << json << "': " << errorMessage;
        return signalPassFailure();
      }
    }
    markAllAnalysesPreserved();
    if (reporter.hasErrors())
      signalPassFailure();
  }
};

} // namespace
