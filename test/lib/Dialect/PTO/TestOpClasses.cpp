//===- TestOpClasses.cpp - the op-class table against the traits ----------===//
//
// -pto-test-op-classes: isCubeOp / isVectorOp / isElementwiseOp /
// isReductionOp read a table built once from the pto op definitions
// (PTODialect.cpp). The pass compares the table with `hasTrait` for every
// registered op of the loaded dialects (an error names each op where they
// differ) and gives each op of the input a remark with its classes.
//
//===----------------------------------------------------------------------===//

#include "TestPasses.h"

#include "pto/Dialect/PTO/IR/PTODialect.h"
#include "pto/Dialect/PTOISA/IR/PTOISA.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;
using namespace mlir::pto;

namespace {

/// The classes `op` has by the predicates (`fromTable`) or by its traits.
static std::string classesOf(Operation *op, bool fromTable) {
  std::string text;
  auto add = [&](bool has, StringRef name) {
    if (has)
      text += (text.empty() ? "" : " ") + name.str();
  };
  if (fromTable) {
    add(isCubeOp(op), "cube");
    add(isVectorOp(op), "vector");
    add(isElementwiseOp(op), "elementwise");
    add(isReductionOp(op), "reduction");
  } else {
    add(op->hasTrait<CubeOpTrait>(), "cube");
    add(op->hasTrait<VectorOpTrait>(), "vector");
    add(op->hasTrait<ElementwiseOpTrait>(), "elementwise");
    add(op->hasTrait<ReductionOpTrait>(), "reduction");
  }
  return text.empty() ? "none" : text;
}

struct TestOpClassesPass
    : public PassWrapper<TestOpClassesPass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestOpClassesPass)

  StringRef getArgument() const final { return "pto-test-op-classes"; }
  StringRef getDescription() const final {
    return "Checks the op-class table against the op traits and prints each "
           "op's classes (test pass)";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<PTODialect, ptoisa::PTOISADialect, arith::ArithDialect>();
  }

  void runOnOperation() override {
    Operation *root = getOperation();
    unsigned checked = 0;
    bool mismatch = false;
    for (RegisteredOperationName name :
         root->getContext()->getRegisteredOperations()) {
      // A detached op of each registered kind: the predicates take an
      // Operation.
      OperationState state(root->getLoc(), name);
      Operation *probe = Operation::create(state);
      std::string table = classesOf(probe, /*fromTable=*/true);
      std::string traits = classesOf(probe, /*fromTable=*/false);
      probe->destroy();
      ++checked;
      if (table == traits)
        continue;
      root->emitError() << "'" << name.getStringRef() << "' is " << table
                        << " by the op-class table but " << traits
                        << " by its traits";
      mismatch = true;
    }
    if (mismatch)
      return signalPassFailure();
    root->emitRemark() << "the op-class table agrees with the traits of "
                       << checked << " registered ops";
    root->walk([&](Operation *op) {
      if (op != root)
        op->emitRemark() << classesOf(op, /*fromTable=*/true);
    });
    markAllAnalysesPreserved();
  }
};

} // namespace

void mlir::pto::test::registerTestOpClassesPass() {
  PassRegistration<TestOpClassesPass>();
}
