//===- TestValidShape.cpp - remarks with reified valid shapes -------------===//

#include "pto/Dialect/PTO/Transforms/Passes.h"

#include "mlir/IR/Matchers.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::pto {
#define GEN_PASS_DEF_TESTVALIDSHAPEPASS
#include "pto/Dialect/PTO/Transforms/Passes.h.inc"
} // namespace mlir::pto

using namespace mlir;
using namespace mlir::pto;

namespace {

/// Spells an index value as a readable expression over kernel argument names,
/// loop indices and the ops the reifier builds.
void describe(Value v, llvm::raw_ostream &os) {
  APInt constant;
  if (matchPattern(v, m_ConstantInt(&constant))) {
    os << constant.getSExtValue();
    return;
  }
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    Operation *owner = arg.getOwner()->getParentOp();
    if (auto loop = dyn_cast<LoopOp>(owner); loop && arg.getArgNumber() == 0) {
      os << loop.getIdxName();
      return;
    }
    os << "arg" << arg.getArgNumber();
    return;
  }
  Operation *def = v.getDefiningOp();
  auto binary = [&](StringRef name) {
    os << name << '(';
    describe(def->getOperand(0), os);
    os << ", ";
    describe(def->getOperand(1), os);
    os << ')';
  };
  if (isa<arith::MinSIOp>(def))
    return binary("min");
  if (isa<arith::MaxSIOp>(def))
    return binary("max");
  if (isa<arith::CeilDivSIOp>(def))
    return binary("ceildiv");
  if (isa<arith::SubIOp>(def)) {
    describe(def->getOperand(0), os);
    os << " - ";
    describe(def->getOperand(1), os);
    return;
  }
  if (auto validDim = dyn_cast<ValidDimOp>(def)) {
    os << "valid_dim(";
    if (Operation *source = validDim.getSource().getDefiningOp())
      os << source->getName();
    else
      os << "arg" << cast<BlockArgument>(validDim.getSource()).getArgNumber();
    os << ", " << validDim.getDim() << ')';
    return;
  }
  if (auto dim = dyn_cast<DimOp>(def)) {
    os << "dim(";
    Value source = dim.getSource();
    if (auto arg = dyn_cast<BlockArgument>(source))
      if (auto kernel = dyn_cast<KernelOp>(arg.getOwner()->getParentOp())) {
        os << cast<StringAttr>(kernel.getArgNames()[arg.getArgNumber()])
                  .getValue();
        os << ", " << dim.getDim() << ')';
        return;
      }
    os << source.getDefiningOp()->getName() << ", " << dim.getDim() << ')';
    return;
  }
  os << def->getName();
}

struct TestValidShapePass
    : public pto::impl::TestValidShapePassBase<TestValidShapePass> {
  void runOnOperation() override {
    SmallVector<Operation *> producers;
    getOperation()->walk([&](Operation *op) {
      if (llvm::any_of(op->getResultTypes(), llvm::IsaPred<TileType>))
        producers.push_back(op);
    });
    for (Operation *op : producers) {
      OpBuilder builder(op->getContext());
      builder.setInsertionPointAfter(op);
      for (OpResult result : op->getResults()) {
        if (!isa<TileType>(result.getType()))
          continue;
        SmallVector<OpFoldResult> valid =
            reifyValidShape(builder, op->getLoc(), result);
        InFlightDiagnostic remark = op->emitRemark();
        remark << "result #" << result.getResultNumber() << " valid shape ";
        std::string text;
        llvm::raw_string_ostream os(text);
        os << '[';
        llvm::interleaveComma(valid, os, [&](OpFoldResult ofr) {
          if (auto attr = dyn_cast<Attribute>(ofr))
            os << cast<IntegerAttr>(attr).getInt();
          else
            describe(cast<Value>(ofr), os);
        });
        os << ']';
        remark << text;
      }
    }
  }
};

} // namespace
