//===- PTODialect.cpp - the pto dialect -----------------------------------===//

#include "pto/Dialect/PTO/IR/PTODialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::pto;

#include "pto/Dialect/PTO/IR/PTOInterfaces.cpp.inc"
#include "pto/Dialect/PTO/IR/PTOOpsDialect.cpp.inc"

void PTODialect::initialize() {
  registerTypes();
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "pto/Dialect/PTO/IR/PTOOps.cpp.inc"
      >();
}

Arch mlir::pto::getArchFor(Operation *op) {
  for (Operation *cur = op; cur; cur = cur->getParentOp()) {
    if (auto kernel = dyn_cast<KernelOp>(cur))
      return kernel.getArchOrDefault();
    if (auto attr = cur->getAttrOfType<ArchAttr>("pto.arch"))
      return attr.getValue();
  }
  return Arch::DAV_2201;
}

Value mlir::pto::getAliasedTensor(Value tensor) {
  while (auto reshape = tensor.getDefiningOp<ReshapeOp>())
    tensor = reshape.getSource();
  return tensor;
}

FlatSymbolRefAttr mlir::pto::getCalleeAndArgs(Operation *op,
                                              OperandRange &args) {
  if (auto launch = dyn_cast<LaunchOp>(op)) {
    args = launch.getArgs();
    return launch.getCalleeAttr();
  }
  if (auto call = dyn_cast<RootCallOp>(op)) {
    args = call.getArgs();
    return call.getCalleeAttr();
  }
  return {};
}
