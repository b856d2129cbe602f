//===- TestIndexForm.cpp - remarks with polynomial index forms ------------===//
//
// -pto-test-index-form: every op carrying a `test.index` attribute gets a
// remark with the normal form (IndexForm.h) of each of its index-typed
// operands, so lit tests can show that equal quantities written differently
// get equal forms, and different ones do not. Addresses in atom keys are
// dropped from the printout.
//
//===----------------------------------------------------------------------===//

#include "TestPasses.h"

#include "pto/Dialect/PTO/Analysis/IndexForm.h"
#include "pto/Dialect/PTO/IR/PTODialect.h"

#include "mlir/Pass/Pass.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::pto;

namespace {

struct TestIndexFormPass
    : public PassWrapper<TestIndexFormPass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestIndexFormPass)

  TestIndexFormPass() = default;
  TestIndexFormPass(const TestIndexFormPass &other) : PassWrapper(other) {}

  StringRef getArgument() const final { return "pto-test-index-form"; }
  StringRef getDescription() const final {
    return "Prints the polynomial normal form of the index operands of ops "
           "tagged test.index (test pass)";
  }

  Option<bool> loopsByRange{
      *this, "loops-by-range",
      llvm::cl::desc("Identify loop indices by bounds and step"),
      llvm::cl::init(false)};

  void runOnOperation() override {
    IndexForms forms(loopsByRange);
    static const llvm::Regex address("@?(0x)?[0-9A-Fa-f]{8,}");
    getOperation()->walk([&](Operation *op) {
      if (!op->hasAttr("test.index"))
        return;
      std::string text;
      llvm::raw_string_ostream os(text);
      bool first = true;
      for (Value operand : op->getOperands()) {
        if (!operand.getType().isIntOrIndex())
          continue;
        std::string form = forms.key(operand);
        while (address.match(form))
          form = address.sub("", form);
        os << (first ? "" : "; ") << form;
        first = false;
      }
      op->emitRemark(text);
    });
    markAllAnalysesPreserved();
  }
};

} // namespace

void mlir::pto::test::registerTestIndexFormPass() {
  PassRegistration<TestIndexFormPass>();
}
