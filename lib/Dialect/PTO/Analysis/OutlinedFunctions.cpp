//===- OutlinedFunctions.cpp - what pto-outline knows of its functions ----===//

#include "pto/Dialect/PTO/Analysis/OutlinedFunctions.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::pto;

/// The runtime allocates each workspace on a 32 KiB boundary
/// (docs/PyPTOModel.md#stitching).
static constexpr int64_t kWorkspaceAlign = 32 * 1024;

int64_t mlir::pto::alignedWorkspaceBytes(WorkspaceOp workspace) {
  if (workspace->hasAttr(kOnChipAttrName))
    return 0;
  GMTensorType type = workspace.getResult().getType();
  int64_t bytes = type.getNumElements() * type.getElementByteSize();
  return llvm::alignTo(bytes, kWorkspaceAlign);
}

bool mlir::pto::holdsSymbolRef(Operation *op,
                               llvm::DenseMap<Attribute, bool> &memo) {
  auto holds = [&](Attribute attr) {
    if (!attr)
      return false;
    auto [it, inserted] = memo.try_emplace(attr, false);
    if (inserted)
      it->second =
          attr.walk([](SymbolRefAttr) { return WalkResult::interrupt(); })
              .wasInterrupted();
    return it->second;
  };
  // Read where the attributes are stored: Operation::getAttrs would build a
  // dictionary per op with properties.
  for (NamedAttribute attr : op->getRawDictionaryAttrs())
    if (holds(attr.getValue()))
      return true;
  if (std::optional<RegisteredOperationName> info = op->getRegisteredInfo())
    for (StringAttr name : info->getAttributeNames())
      if (holds(op->getInherentAttr(name).value_or(Attribute())))
        return true;
  return false;
}

OutlinedFunctionSummary
mlir::pto::summarizeBody(Operation *func,
                         llvm::DenseMap<Attribute, bool> &symbolRefMemo) {
  OutlinedFunctionSummary summary;
  summary.bodyFreeOfSymbolRefs = true;
  for (Region &region : func->getRegions())
    region.walk([&](Operation *op) {
      if (auto workspace = dyn_cast<WorkspaceOp>(op)) {
        summary.workspaceBytes += alignedWorkspaceBytes(workspace);
        ++summary.numWorkspaces;
      } else if (isa<LaunchOp>(op)) {
        ++summary.launches;
      }
      if (summary.bodyFreeOfSymbolRefs && holdsSymbolRef(op, symbolRefMemo))
        summary.bodyFreeOfSymbolRefs = false;
    });
  return summary;
}
