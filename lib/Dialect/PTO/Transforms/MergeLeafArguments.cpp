//===- MergeLeafArguments.cpp - one leaf argument per distinct value ------===//
//
// pto-outline gives every static offset of a leaf its own argument, so
// isomorphic tasks can share the leaf. When every launch of a leaf passes the
// same value for two arguments, they are one value: merging them lets CSE
// see that two views of a leaf read the same GM window.
//
//===----------------------------------------------------------------------===//

#include "pto/Dialect/PTO/Analysis/OutlinedFunctions.h"
#include "pto/Dialect/PTO/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"

namespace mlir::pto {
#define GEN_PASS_DEF_MERGELEAFARGUMENTSPASS
#include "pto/Dialect/PTO/Transforms/Passes.h.inc"
} // namespace mlir::pto

using namespace mlir;
using namespace mlir::pto;

namespace {

/// What a launch passes for one argument: a constant's attribute (equal
/// constants are one value) or else the SSA value.
using PassedValue = std::pair<Attribute, Value>;

PassedValue passedValue(Value value) {
  Attribute constant;
  if (matchPattern(value, m_Constant(&constant)))
    return {constant, Value()};
  return {Attribute(), value};
}

struct MergeLeafArgumentsPass
    : public pto::impl::MergeLeafArgumentsPassBase<MergeLeafArgumentsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Launches per leaf, and the leaves with any other use.
    llvm::MapVector<StringAttr, SmallVector<LaunchOp>> launchesOf;
    llvm::DenseSet<StringAttr> otherUses;
    // Attributes are uniqued: each distinct one is searched for symbol
    // references once, however many ops carry it. They are read where they
    // are stored (properties or the discardable dictionary):
    // Operation::getAttrs would build a dictionary per op.
    llvm::DenseSet<Attribute> searched;
    auto search = [&](Attribute attr) {
      if (!attr || !searched.insert(attr).second)
        return;
      attr.walk(
          [&](SymbolRefAttr ref) { otherUses.insert(ref.getRootReference()); });
    };
    // The bodies pto-outline found free of symbol references (its leaves,
    // if it ran just before) are not walked: they are most of the module,
    // and out of cache by now (docs/CompileTime.md).
    auto &outlined = getAnalysis<OutlinedFunctionAnalysis>();
    module.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (auto launch = dyn_cast<LaunchOp>(op)) {
        launchesOf[launch.getCalleeAttr().getAttr()].push_back(launch);
        return WalkResult::advance();
      }
      for (NamedAttribute attr : op->getRawDictionaryAttrs())
        search(attr.getValue());
      if (std::optional<RegisteredOperationName> info = op->getRegisteredInfo())
        for (StringAttr name : info->getAttributeNames())
          search(op->getInherentAttr(name).value_or(Attribute()));
      const OutlinedFunctionSummary *summary = outlined.lookup(op);
      return summary && summary->bodyFreeOfSymbolRefs ? WalkResult::skip()
                                                      : WalkResult::advance();
    });
    // One symbol table: ModuleOp::lookupSymbol scans the module per call,
    // quadratic in the leaves of a module of many kernels.
    SymbolTable symbols(module);
    passedValues.clear();
    for (auto &[name, launches] : launchesOf) {
      auto leaf = symbols.lookup<func::FuncOp>(name);
      if (!leaf || leaf.isPublic() || leaf.isExternal() ||
          otherUses.contains(name) || !leaf->hasAttr("pto.leaf"))
        continue;
      mergeArguments(leaf, launches);
    }
  }

  /// passedValue per value: the launches of a root share a few offset
  /// constants, and matching one folds it.
  PassedValue passedValueOf(Value value) {
    auto [it, inserted] = passedValues.try_emplace(value);
    if (inserted)
      it->second = passedValue(value);
    return it->second;
  }
  DenseMap<Value, PassedValue> passedValues;

  /// Argument j joins the first argument i < j of its type for which every
  /// launch passes the same value.
  void mergeArguments(func::FuncOp leaf, ArrayRef<LaunchOp> launches) {
    unsigned numArgs = leaf.getNumArguments();
    // Key: the type and what each launch passes, in launch order.
    DenseMap<std::pair<Type, unsigned>, SmallVector<unsigned>> buckets;
    std::vector<SmallVector<PassedValue>> passed(numArgs);
    for (unsigned i = 0; i < numArgs; ++i)
      for (LaunchOp launch : launches)
        passed[i].push_back(passedValueOf(launch.getArgs()[i]));
    llvm::BitVector erase(numArgs);
    for (unsigned j = 0; j < numArgs; ++j) {
      Type type = leaf.getArgument(j).getType();
      size_t hash =
          llvm::hash_combine_range(passed[j].begin(), passed[j].end());
      SmallVector<unsigned> &candidates = buckets[{type, unsigned(hash)}];
      auto same = llvm::find_if(
          candidates, [&](unsigned i) { return passed[i] == passed[j]; });
      if (same == candidates.end()) {
        candidates.push_back(j);
        continue;
      }
      leaf.getArgument(j).replaceAllUsesWith(leaf.getArgument(*same));
      erase.set(j);
    }
    if (erase.none())
      return;
    // One assignment per launch: erasing operands one at a time shifts the
    // rest each time, quadratic in a leaf with thousands of arguments.
    SmallVector<Value> kept;
    for (LaunchOp launch : launches) {
      kept.clear();
      for (auto [j, arg] : llvm::enumerate(launch.getArgs()))
        if (!erase.test(j))
          kept.push_back(arg);
      launch.getArgsMutable().assign(kept);
    }
    (void)leaf.eraseArguments(erase);
  }
};

} // namespace
