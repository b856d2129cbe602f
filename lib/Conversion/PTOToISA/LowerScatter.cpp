//===- LowerScatter.cpp - indexed writes to pto_isa
//------------------------===//
//
// pto.index_put from ub tiles: pto-isa's row-mode MSCATTER into the GM
// window at the op's offsets (docs/ISA.md, "Vector leaves").
//
//===----------------------------------------------------------------------===//

#include "LeafLowering.h"

using namespace mlir;
using namespace mlir::pto;
using namespace mlir::pto::lower_to_isa;

namespace mlir::pto::lower_to_isa {

LogicalResult LeafLowering::lowerIndexPut(IndexPutOp op) {
  // The rank-1 index tile is held as a [1, N] ub row, the form pto-isa's
  // A2/A3 row-mode MSCATTER takes.
  FailureOr<Value> src = lookup(op, op.getSrc());
  FailureOr<Value> indices = lookup(op, op.getIndices());
  if (failed(src) || failed(indices))
    return failure();
  SmallVector<OpFoldResult> offsets = normalize(getMixedValues(
      op.getStaticOffsets(), op.getOffsets(), builder.getContext()));
  FailureOr<Window2D> window = window2D(op, op.getDst(), offsets, op.getSrc());
  if (failed(window))
    return failure();
  pisa::MScatterOp::create(builder, op.getLoc(), *src, *indices, window->tensor,
                           window->row, window->col, op.getAccumulate());
  // A later view of the written tensor reads the new data: load it again.
  Value written = getAliasedTensor(op.getDst());
  llvm::erase_if(windows, [&](const std::pair<WindowKey, Value> &w) {
    return getAliasedTensor(w.first.source) == written;
  });
  replaced.push_back(op);
  return success();
}

} // namespace mlir::pto::lower_to_isa
