//===- ExecScatter.cpp - indexed writes into GM
//----------------------------===//
//
// pto-run semantics of pto.index_put (PyPTO's index_put_ / index_add_): each
// valid source row goes to the GM row its index names, checked against the
// tensor with the rule emitted programs share (pto/runtime/checks.hpp).
//
//===----------------------------------------------------------------------===//

#include "InterpreterImpl.h"

#include "pto/runtime/checks.hpp"

namespace mlir::pto::interp::detail {

LogicalResult Interpreter::execIndexPut(IndexPutOp op) {
  const TileValue &src = getTile(op.getSrc());
  const TileValue &indices = getTile(op.getIndices());
  const TensorRef &dst = getTensor(op.getDst());
  SmallVector<int64_t, 4> offsets =
      mixedValues(op.getStaticOffsets(), op.getOffsets());
  bool accumulate = op.getAccumulate();
  int64_t rows = src.valid[0], cols = src.valid[1];
  if (rows == 0 || cols == 0)
    return success();
  std::string rule = pto_check::index_put_indices(indices.valid[0], rows);
  if (!rule.empty())
    return op.emitError() << "pto-run: " << rule;
  if (observer())
    observer()->gmWrite(
        op, dst.storage, dst.name == "workspace",
        uint64_t(src.numValid()) * getByteSize(dst.storage->kind), accumulate,
        // The rows come from index values: any row of the tensor.
        GMBox{});
  if (!options.numerics) {
    // Which rows are written depends on index values that a shape-only run
    // does not have: the tensor's values are unknown from here on.
    if (!dst.storage->shapeOnly) {
      std::vector<uint8_t>().swap(dst.storage->bytes);
      dst.storage->shapeOnly = true;
    }
    return success();
  }
  // Buffered atomic adds into the tensor land first (program order).
  flushAtomics(dst.storage);
  HostTensor &storage = *dst.storage;
  std::string name = dst.name.str();
  const float *in = src.data->data();
  const float *index = indices.data->data();
  for (int64_t i = 0; i < rows; ++i) {
    int64_t row = static_cast<int64_t>(index[i]);
    rule =
        pto_check::index_put_row(name.c_str(), i, row, offsets[0], dst.shape[0],
                                 offsets[1], cols, dst.shape[1]);
    if (!rule.empty())
      return op.emitError() << "pto-run: " << rule;
    int64_t base = (offsets[0] + row) * dst.shape[1] + offsets[1];
    for (int64_t j = 0; j < cols; ++j) {
      float value = in[i * cols + j];
      storage.storeFloat(
          base + j, accumulate ? storage.loadFloat(base + j) + value : value);
    }
  }
  if (accumulate)
    stats.atomicElements += src.numValid();
  return success();
}

} // namespace mlir::pto::interp::detail
