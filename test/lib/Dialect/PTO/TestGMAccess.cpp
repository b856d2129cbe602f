//===- TestGMAccess.cpp - remarks with the GM access analysis's answers ---===//
//
// -pto-test-gm-access: every op carrying a `test.gm` string attribute gets a
// remark listing its GM accesses (GMAccessAnalysis::summarize, the op and its
// nested ops) and the tagged ops before it in its block that it depends on
// (GMAccessAnalysis::dependsOn). Every pto.loop carrying `test.gm` also lists
// the accesses of its body over all iterations. The same dependences are
// found through a GMAccessIndex of the earlier tagged ops; an op where the
// two answers differ gets an error.
//
//===----------------------------------------------------------------------===//

#include "TestPasses.h"

#include "pto/Dialect/PTO/Analysis/GMAccess.h"
#include "pto/Dialect/PTO/IR/PTODialect.h"

#include "mlir/Pass/Pass.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::pto;

namespace {

struct TestGMAccessPass
    : public PassWrapper<TestGMAccessPass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestGMAccessPass)

  StringRef getArgument() const final { return "pto-test-gm-access"; }
  StringRef getDescription() const final {
    return "Prints the GM accesses and dependences of ops tagged test.gm "
           "(test pass)";
  }

  void runOnOperation() override {
    GMAccessAnalysis &analysis = getAnalysis<GMAccessAnalysis>();
    // Per block, the tagged ops seen so far with their summaries.
    DenseMap<Block *, SmallVector<std::pair<Operation *, GMAccessSummary>>>
        earlier;
    DenseMap<Block *, GMAccessIndex> indexes;
    getOperation()->walk<WalkOrder::PreOrder>([&](Operation *op) {
      auto tag = op->getAttrOfType<StringAttr>("test.gm");
      if (!tag)
        return;
      auto loop = dyn_cast<LoopOp>(op);
      GMAccessSummary summary = loop ? analysis.summarize(op, &loop.getBody())
                                     : analysis.summarize(op);
      std::string text;
      llvm::raw_string_ostream os(text);
      os << tag.getValue() << ":";
      for (const GMAccess &access : summary.accesses) {
        os << ' ';
        analysis.print(access, os);
        os << ';';
      }
      if (summary.unknown)
        os << " unknown effects;";
      auto &before = earlier[op->getBlock()];
      SmallVector<StringRef> deps;
      llvm::BitVector pairwise(before.size()), indexed(before.size());
      for (auto [i, entry] : llvm::enumerate(before))
        if (GMAccessAnalysis::dependsOn(entry.second, summary)) {
          deps.push_back(entry.first->getAttrOfType<StringAttr>("test.gm"));
          pairwise.set(i);
        }
      GMAccessIndex &index = indexes[op->getBlock()];
      index.forEachDependence(summary, [&](unsigned i) { indexed.set(i); });
      if (indexed != pairwise)
        op->emitError("GMAccessIndex and dependsOn disagree");
      os << " depends on [" << llvm::join(deps, ", ") << "]";
      op->emitRemark(text);
      index.insert(before.size(), summary);
      before.push_back({op, std::move(summary)});
    });
    markAllAnalysesPreserved();
  }
};

} // namespace

void mlir::pto::test::registerTestGMAccessPass() {
  PassRegistration<TestGMAccessPass>();
}
