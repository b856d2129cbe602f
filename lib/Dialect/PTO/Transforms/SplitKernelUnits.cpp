//===- SplitKernelUnits.cpp - one nested module per kernel ----------------===//
//
// The module-level passes of the pipelines (pto-outline, pto-plan-stitch,
// ...) reach each kernel after the kernel-nested passes went through all
// the others, when its IR is out of cache. In a nested module of its own, a
// kernel goes through every pass in turn (docs/CompileTime.md).
//
//===----------------------------------------------------------------------===//

#include "pto/Dialect/PTO/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::pto {
#define GEN_PASS_DEF_SPLITKERNELUNITSPASS
#include "pto/Dialect/PTO/Transforms/Passes.h.inc"
} // namespace mlir::pto

using namespace mlir;
using namespace mlir::pto;

namespace {

/// The unit each top-level op goes to (its kernel), or null when `module`
/// cannot be split op for op and must be one unit. Walks the ops only when
/// some are not kernels: only then can a kernel depend on another op.
FailureOr<SmallVector<Operation *>> unitKernels(ModuleOp module) {
  SmallVector<Operation *> ops;
  bool onlyKernels = true;
  for (Operation &op : module.getOps()) {
    ops.push_back(&op);
    onlyKernels &= isa<KernelOp>(op);
  }
  if (onlyKernels)
    return ops;

  // Symbols are found by name in the module's table, so a kernel's unit
  // must hold every top-level symbol it reaches through references.
  llvm::DenseMap<StringAttr, Operation *> byName;
  for (Operation *op : ops) {
    if (isa<ModuleOp>(op) || !isa<SymbolOpInterface>(op))
      return failure();
    byName[SymbolTable::getSymbolName(op)] = op;
  }
  auto references = [&](Operation *root) {
    SmallVector<Operation *> targets;
    root->walk([&](Operation *op) {
      op->getAttrDictionary().walk([&](SymbolRefAttr ref) {
        if (Operation *target = byName.lookup(ref.getRootReference()))
          targets.push_back(target);
      });
    });
    return targets;
  };
  llvm::DenseMap<Operation *, Operation *> owner;
  for (Operation *op : ops)
    if (isa<KernelOp>(op))
      owner[op] = op;
  for (Operation *op : ops) {
    if (!isa<KernelOp>(op))
      continue;
    SmallVector<Operation *> worklist{op};
    while (!worklist.empty()) {
      for (Operation *target : references(worklist.pop_back_val())) {
        auto [it, inserted] = owner.try_emplace(target, op);
        if (inserted)
          worklist.push_back(target);
        else if (it->second != op)
          return failure(); // used by two kernels, or a kernel by another
      }
    }
  }
  // Every op in some kernel's unit, each unit's ops contiguous, so that the
  // join puts them back where they were.
  SmallVector<Operation *> kernels;
  llvm::SmallPtrSet<Operation *, 8> closed;
  for (Operation *op : ops) {
    Operation *kernel = owner.lookup(op);
    if (!kernel)
      return failure();
    if (!kernels.empty() && kernels.back() == kernel)
      continue;
    if (!kernels.empty())
      closed.insert(kernels.back());
    if (closed.contains(kernel))
      return failure();
    kernels.push_back(kernel);
  }
  SmallVector<Operation *> result;
  for (Operation *op : ops)
    result.push_back(owner.lookup(op));
  return result;
}

struct SplitKernelUnitsPass
    : public pto::impl::SplitKernelUnitsPassBase<SplitKernelUnitsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (module.getBody()->empty())
      return markAllAnalysesPreserved();
    FailureOr<SmallVector<Operation *>> kernels = unitKernels(module);
    SmallVector<Operation *> ops =
        llvm::map_to_vector(module.getOps(), [](Operation &op) { return &op; });
    OpBuilder builder(module.getContext());
    ModuleOp unit;
    Operation *unitKernel = nullptr;
    for (auto [i, op] : llvm::enumerate(ops)) {
      Operation *kernel = succeeded(kernels) ? (*kernels)[i] : nullptr;
      if (!unit || kernel != unitKernel) {
        builder.setInsertionPoint(op);
        unit = ModuleOp::create(builder,
                                kernel ? kernel->getLoc() : module.getLoc());
        unit->setAttr(kKernelUnitAttrName, builder.getUnitAttr());
        unitKernel = kernel;
        ++numUnits;
      }
      op->moveBefore(unit.getBody(), unit.getBody()->end());
    }
    // Each op was moved, not changed, into a unit holding every symbol it
    // references (or into the one unit), so each reference resolves to the
    // same op; new units are empty modules with one unit attribute. The
    // module verified before verifies after: the pass manager need not walk
    // all kernels to check it (docs/CompileTime.md). Analyses cached on the
    // module are dropped instead of invalidated through a verifier run.
    getAnalysisManager().clear();
    markAllAnalysesPreserved();
  }
};

} // namespace
