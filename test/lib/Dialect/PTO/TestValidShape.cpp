//===- TestValidShape.cpp - remarks with reified valid shapes -------------===//
//
// -pto-test-valid-shape: for every op producing a !pto.tile, reifies the valid
// extents of each tile result through ValidShapeInferenceOpInterface,
// materialising the arith ops right after the op, and emits a remark spelling
// the extents symbolically (kernel arguments and loop indices by name, other
// values by their defining op), so lit tests can pin down every valid-shape
// rule.
//
//===----------------------------------------------------------------------===//

#include "TestPasses.h"

#include "pto/Dialect/PTO/IR/PTODialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Pass/Pass.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::pto;

namespace {

void describe(Value v, llvm::raw_ostream &os);

/// The kernel argument name of a GM tensor value, else "?".
StringRef tensorName(Value tensor) {
  if (auto arg = dyn_cast<BlockArgument>(tensor))
    if (auto kernel = dyn_cast<KernelOp>(arg.getOwner()->getParentOp()))
      return cast<StringAttr>(kernel.getArgNames()[arg.getArgNumber()])
          .getValue();
  if (auto reshape = tensor.getDefiningOp<ReshapeOp>())
    return tensorName(reshape.getSource());
  return "?";
}

/// An operand of `*` or `/`: sums in parentheses.
void describeFactor(Value v, llvm::raw_ostream &os) {
  bool sum = isa_and_nonnull<arith::AddIOp, arith::SubIOp>(v.getDefiningOp());
  os << (sum ? "(" : "");
  describe(v, os);
  os << (sum ? ")" : "");
}

/// Spells an index value as a readable expression over kernel argument names,
/// loop indices and the values they read (`actual_q[b_idx]`), so that a
/// remark names values rather than the ops computing them.
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
    bool sum = isa_and_nonnull<arith::AddIOp, arith::SubIOp>(
        def->getOperand(1).getDefiningOp());
    os << (sum ? "(" : "");
    describe(def->getOperand(1), os);
    os << (sum ? ")" : "");
    return;
  }
  if (isa<arith::AddIOp>(def)) {
    describe(def->getOperand(0), os);
    os << " + ";
    describe(def->getOperand(1), os);
    return;
  }
  auto infix = [&](StringRef symbol) {
    describeFactor(def->getOperand(0), os);
    os << symbol;
    describeFactor(def->getOperand(1), os);
  };
  if (isa<arith::MulIOp>(def))
    return infix("*");
  if (isa<arith::DivSIOp, arith::DivUIOp, arith::FloorDivSIOp>(def))
    return infix(" / ");
  if (isa<arith::CeilDivSIOp, arith::CeilDivUIOp>(def))
    return binary("ceildiv");
  if (isa<arith::RemSIOp, arith::RemUIOp>(def))
    return infix(" % ");
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp>(def))
    return describe(def->getOperand(0), os);
  if (auto read = dyn_cast<ReadOp>(def)) {
    os << tensorName(read.getTensor()) << '[';
    llvm::interleaveComma(read.getIndices(), os,
                          [&](Value index) { describe(index, os); });
    os << ']';
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
    : public PassWrapper<TestValidShapePass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestValidShapePass)

  StringRef getArgument() const final { return "pto-test-valid-shape"; }
  StringRef getDescription() const final {
    return "Reifies the valid shape of every tile value (test pass)";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<arith::ArithDialect>();
  }

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

void mlir::pto::test::registerTestValidShapePass() {
  PassRegistration<TestValidShapePass>();
}
