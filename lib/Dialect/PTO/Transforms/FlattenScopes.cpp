//===- FlattenScopes.cpp - pto.scope regions to per-op stamps -------------===//

#include "pto/Dialect/PTO/Transforms/Passes.h"

namespace mlir::pto {
#define GEN_PASS_DEF_FLATTENSCOPESPASS
#include "pto/Dialect/PTO/Transforms/Passes.h.inc"
} // namespace mlir::pto

using namespace mlir;
using namespace mlir::pto;

namespace {
struct FlattenScopesPass
    : public pto::impl::FlattenScopesPassBase<FlattenScopesPass> {
  void runOnOperation() override {
    SmallVector<ScopeOp> scopes;
    getOperation()->walk([&](ScopeOp scope) { scopes.push_back(scope); });
    // No scope: the kernel keeps its analyses and skips the verifier run.
    if (scopes.empty())
      return markAllAnalysesPreserved();
    for (ScopeOp scope : scopes) {
      ScopeAttr stamp = scope.getScope();
      Block &body = scope.getBody().front();
      auto yield = cast<YieldOp>(body.getTerminator());
      scope.replaceAllUsesWith(yield.getValues());
      for (Operation &op :
           llvm::make_early_inc_range(body.without_terminator())) {
        op.walk([&](Operation *nested) {
          nested->setAttr(kScopeStampAttrName, stamp);
        });
        op.moveBefore(scope);
      }
      scope.erase();
    }
  }
};
} // namespace
