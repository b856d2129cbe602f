//===- JoinKernelUnits.cpp - splice kernel units back into the module -----===//
//
// Undoes pto-split-kernel-units once every unit went through the pipeline.
//
//===----------------------------------------------------------------------===//

#include "pto/Dialect/PTO/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::pto {
#define GEN_PASS_DEF_JOINKERNELUNITSPASS
#include "pto/Dialect/PTO/Transforms/Passes.h.inc"
} // namespace mlir::pto

using namespace mlir;
using namespace mlir::pto;

namespace {

/// The name of the first kernel in `unit`, for diagnostics.
StringRef unitKernelName(ModuleOp unit) {
  for (KernelOp kernel : unit.getOps<KernelOp>())
    return kernel.getSymName();
  return "<no kernel>";
}

struct JoinKernelUnitsPass
    : public pto::impl::JoinKernelUnitsPassBase<JoinKernelUnitsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<ModuleOp> units;
    for (auto unit : module.getOps<ModuleOp>())
      if (unit->hasAttr(kKernelUnitAttrName))
        units.push_back(unit);
    if (units.empty())
      return markAllAnalysesPreserved();

    // Each unit was its own symbol table; joined, they share the module's.
    // Names the pipeline derived in one unit (@K_main, @K_leaf_...) can meet
    // another unit's when one kernel's name extends another's (kernels @k
    // and @k_main): the derived symbol is renamed within its unit, as
    // pto-outline would have named it seeing the whole module. Every name
    // is collected first so that a new name takes none of them.
    llvm::DenseSet<StringAttr> taken;
    auto symbolName = [](Operation &op) {
      return op.getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName());
    };
    for (Operation &op : module.getOps())
      if (StringAttr name = symbolName(op))
        taken.insert(name);
    for (ModuleOp unit : units)
      for (Operation &op : unit.getOps())
        if (StringAttr name = symbolName(op))
          taken.insert(name);
    // Renames `op`, a symbol of `unit`, and its uses there (only the unit
    // refers to it: the split moved a kernel's symbols with it).
    auto renameInUnit = [&](Operation *op, ModuleOp unit) -> StringAttr {
      StringRef old = symbolName(*op).getValue();
      StringAttr fresh;
      for (unsigned n = 1;; ++n) {
        fresh = StringAttr::get(op->getContext(), old + "_" + Twine(n));
        if (taken.insert(fresh).second)
          break;
      }
      if (failed(SymbolTable::replaceAllSymbolUses(op, fresh,
                                                   &unit.getBodyRegion())))
        return StringAttr();
      SymbolTable::setSymbolName(op, fresh);
      return fresh;
    };
    // The symbol of each top-level op, with the unit it comes from (null:
    // from the module itself).
    llvm::DenseMap<StringAttr, std::pair<Operation *, ModuleOp>> defined;
    auto define = [&](Operation &op, ModuleOp from) {
      StringAttr name = symbolName(op);
      if (!name)
        return success();
      auto [it, inserted] = defined.try_emplace(name, &op, from);
      if (inserted)
        return success();
      auto [otherOp, other] = it->second;
      if (from && !isa<KernelOp>(op)) {
        if (StringAttr fresh = renameInUnit(&op, from)) {
          defined.try_emplace(fresh, &op, from);
          return success();
        }
      } else if (from && other && !isa<KernelOp>(otherOp)) {
        if (StringAttr fresh = renameInUnit(otherOp, other)) {
          // Before the insertion below, which may move the map's entries.
          it->second = {&op, from};
          defined.try_emplace(fresh, otherOp, other);
          return success();
        }
      }
      InFlightDiagnostic diag = op.emitError()
                                << "pto-join-kernel-units: symbol @"
                                << name.getValue() << " is defined ";
      if (other)
        diag << "by the units of kernels @" << unitKernelName(other) << " and @"
             << unitKernelName(from);
      else
        diag << "in the module and by the unit of kernel @"
             << unitKernelName(from);
      diag << "; rename one of them";
      diag.attachNote(otherOp->getLoc()) << "other definition";
      return failure();
    };
    for (Operation &op : module.getOps())
      if (!isa<ModuleOp>(op) || !op.hasAttr(kKernelUnitAttrName))
        if (failed(define(op, ModuleOp())))
          return signalPassFailure();
    for (ModuleOp unit : units)
      for (Operation &op : unit.getOps())
        if (failed(define(op, unit)))
          return signalPassFailure();

    Block *body = module.getBody();
    for (ModuleOp unit : units) {
      body->getOperations().splice(Block::iterator(unit),
                                   unit.getBody()->getOperations());
      unit->erase();
    }
    // The ops were verified in their units after the last pass that changed
    // them and are only moved here. A symbol reference resolved in its unit
    // to an op that is now in the module under the same name (or the new
    // one it and its uses got above), unique there, so it resolves to the
    // same op. The module is valid
    // without the pass manager verifying it, which would walk every
    // kernel's IR once more, cold (docs/CompileTime.md). The analyses
    // cached for the units are dropped with them.
    getAnalysisManager().clear();
    markAllAnalysesPreserved();
  }
};

} // namespace
