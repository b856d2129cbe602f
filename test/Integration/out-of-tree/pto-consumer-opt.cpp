//===- pto-consumer-opt.cpp - an out-of-tree tool using pto-mlir ----------===//
//
// Registers the pto dialects into its own MlirOptMain, adds the pto passes and
// one pass of its own that walks pto ops through the C++ API.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

#include "pto/Dialect/PTO/IR/PTODialect.h"
#include "pto/Embedding/Embedding.h"

using namespace mlir;

namespace {
/// Reports what each kernel contains, the way a host compiler would inspect a
/// pto kernel before scheduling it.
struct CountTileOpsPass
    : public PassWrapper<CountTileOpsPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(CountTileOpsPass)

  StringRef getArgument() const final { return "consumer-count-tile-ops"; }
  StringRef getDescription() const final {
    return "Remarks how many loops, views, matmuls and atomic adds each "
           "pto.kernel holds";
  }

  void runOnOperation() override {
    getOperation().walk([](pto::KernelOp kernel) {
      unsigned loops = 0, views = 0, matmuls = 0, atomics = 0;
      kernel.walk([&](Operation *op) {
        loops += isa<pto::LoopOp>(op);
        views += isa<pto::ViewOp>(op);
        matmuls += isa<pto::MatmulOp>(op);
        atomics += isa<pto::AtomicAddOp>(op);
      });
      kernel.emitRemark() << "consumer: @" << kernel.getSymName() << " on "
                          << pto::stringifyArch(kernel.getArchOrDefault())
                          << ": " << loops << " loops, " << views << " views, "
                          << matmuls << " matmuls, " << atomics
                          << " atomic adds";
    });
  }
};
} // namespace

int main(int argc, char **argv) {
  DialectRegistry registry;
  pto::registerAllDialects(registry);
  pto::registerAllPasses();
  PassRegistration<CountTileOpsPass>();
  return asMainReturnCode(MlirOptMain(
      argc, argv, "pto-consumer-opt: a tool outside pto-mlir\n", registry));
}
