//===- ExecSort.cpp - sorting tile ops ------------------------------------===//
//
// pto-run semantics of pto.topk (PyPTO's topk): per last-dim row of the valid
// region, the k largest (or smallest) values and their int32 positions, ties
// broken towards the lower position, as pto-isa's TSORT32 / TMRGSORT order
// them.
//
//===----------------------------------------------------------------------===//

#include "InterpreterImpl.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace mlir::pto::interp::detail {

/// Passes of the hardware sort over a row of `n`: one TSORT32 over 32-element
/// blocks, then 4-way TMRGSORT merges until one list is left.
static uint64_t sortPasses(int64_t n) {
  uint64_t passes = 1;
  for (int64_t lists = (n + 31) / 32; lists > 1; lists = (lists + 3) / 4)
    ++passes;
  return passes;
}

/// The ranking order: NaN above every number (torch.topk's rule), so that
/// the comparison stays a strict weak order.
static bool above(float x, float y) {
  if (std::isnan(x) || std::isnan(y))
    return std::isnan(x) && !std::isnan(y);
  return x > y;
}

LogicalResult Interpreter::execTopK(TopKOp op) {
  const TileValue &input = getTile(op.getInput());
  FailureOr<SmallVector<int64_t, 4>> valid = inferValid(op);
  if (failed(valid))
    return failure();
  TileValue values = newTile(op.getValues(), *valid);
  TileValue indices = newTile(op.getIndices(), *valid);
  int64_t cols = input.valid.back(), outCols = valid->back();
  stats.vectorElements += input.numValid();
  if (observer())
    observer()->vectorOp(op, input.numValid() * sortPasses(cols));
  if (values.data && outCols > 0) {
    int64_t rows = input.numValid() / cols;
    bool largest = op.getLargest();
    const float *in = input.data->data();
    float *v = values.data->data(), *ix = indices.data->data();
    SmallVector<int32_t> order(cols);
    for (int64_t r = 0; r < rows; ++r) {
      const float *row = in + r * cols;
      std::iota(order.begin(), order.end(), 0);
      // Only the first k positions are needed; a stable partial order keeps
      // equal values in index order (the comparison is strict, ties fall
      // back to the position).
      auto before = [&](int32_t a, int32_t b) {
        float x = row[a], y = row[b];
        if (above(x, y))
          return largest;
        if (above(y, x))
          return !largest;
        return a < b;
      };
      std::partial_sort(order.begin(), order.begin() + outCols, order.end(),
                        before);
      for (int64_t c = 0; c < outCols; ++c) {
        v[r * outCols + c] = row[order[c]];
        ix[r * outCols + c] = float(order[c]);
      }
    }
  }
  env[op.getValues()] = std::move(values);
  env[op.getIndices()] = std::move(indices);
  return success();
}

} // namespace mlir::pto::interp::detail
