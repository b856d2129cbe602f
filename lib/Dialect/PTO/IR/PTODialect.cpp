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

namespace {
/// The op-class bits of every pto op, by TypeID. Built once from the op
/// classes' static trait lists, then only read (also from the threads of a
/// parallel pass manager).
class OpClassTable {
public:
  OpClassTable() {
    add<
#define GET_OP_LIST
#include "pto/Dialect/PTO/IR/PTOOps.cpp.inc"
        >();
  }
  uint8_t lookup(TypeID id) const { return bits.lookup(id); }

private:
  template <typename... Ops> void add() { (addOne<Ops>(), ...); }
  template <typename OpT> void addOne() {
    uint8_t b = 0;
    if (OpT::template hasTrait<CubeOpTrait>())
      b |= pto::detail::kCubeOpBit;
    if (OpT::template hasTrait<VectorOpTrait>())
      b |= pto::detail::kVectorOpBit;
    if (OpT::template hasTrait<ElementwiseOpTrait>())
      b |= pto::detail::kElementwiseOpBit;
    if (OpT::template hasTrait<ReductionOpTrait>())
      b |= pto::detail::kReductionOpBit;
    if (b)
      bits[TypeID::get<OpT>()] = b;
  }
  llvm::DenseMap<TypeID, uint8_t> bits;
};
} // namespace

uint8_t mlir::pto::detail::getOpClassBits(Operation *op) {
  // Only pto ops carry these traits; other ops (and unregistered ones, whose
  // TypeID is void's) are not in the table.
  static const OpClassTable table;
  return table.lookup(op->getName().getTypeID());
}

Arch mlir::pto::getArchFor(Operation *op) {
  // Op verifiers ask this after every pass: `pto.arch` is looked up among
  // the discardable attributes only (it is never an inherent one), not
  // through getAttr's name comparisons against each inherent attribute.
  for (Operation *cur = op; cur; cur = cur->getParentOp()) {
    if (auto kernel = dyn_cast<KernelOp>(cur))
      return kernel.getArchOrDefault();
    if (auto attr =
            dyn_cast_or_null<ArchAttr>(cur->getDiscardableAttr("pto.arch")))
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
