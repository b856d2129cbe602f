//===- ExecMask.cpp - DT_BOOL masks ---------------------------------------===//
//
// pto-run semantics of pto.compare (an i1 tile of 0/1, held as floats like
// every tile) and pto.where.
//
//===----------------------------------------------------------------------===//

#include "InterpreterImpl.h"

#include <cmath>

namespace mlir::pto::interp::detail {

/// IEEE comparison: NaN is unordered, so only `ne` holds for it.
static bool compare(CmpMode mode, float a, float b) {
  switch (mode) {
  case CmpMode::EQ:
    return a == b;
  case CmpMode::NE:
    return a != b;
  case CmpMode::LT:
    return a < b;
  case CmpMode::GT:
    return a > b;
  case CmpMode::GE:
    return a >= b;
  case CmpMode::LE:
    return a <= b;
  }
  return false;
}

LogicalResult Interpreter::execCompare(CompareOp op) {
  // The broadcast and valid-extent rules are the binary ops'.
  return execBinary(op, op.getLhs(), op.getRhs());
}

float applyCompare(CompareOp op, float a, float b) {
  return compare(op.getMode(), a, b) ? 1.0f : 0.0f;
}

LogicalResult Interpreter::execWhere(WhereOp op) {
  FailureOr<SmallVector<int64_t, 4>> valid = inferValid(op);
  if (failed(valid))
    return failure();
  TileType resultType = op.getResult().getType();
  int64_t rank = resultType.getRank();

  // An operand's element at a result index: stride 0 along its broadcast
  // dims; a scalar is one value everywhere.
  struct Operand {
    const float *data = nullptr;
    float scalar = 0;
    SmallVector<int64_t, 4> strides;
    TileValue tile; // keeps a NaN-widened copy alive
  };
  auto bind = [&](Value value, StringRef name,
                  Operand &operand) -> LogicalResult {
    if (!isa<TileType>(value.getType())) {
      operand.scalar = float(getFloat(value));
      operand.data = &operand.scalar;
      operand.strides.assign(rank, 0);
      return success();
    }
    const TileValue &given = getTile(value);
    for (int64_t d = 0; d < rank; ++d)
      if (given.type.getDimSize(d) == 1 && resultType.getDimSize(d) != 1 &&
          given.valid[d] != 1 && (*valid)[d] > 0)
        return op.emitError()
               << "pto-run: " << name << " broadcasts dim " << d
               << " but has valid extent " << given.valid[d]
               << " there; a broadcast operand needs 1 valid element";
    // Beyond its valid extent an operand reads NaN (the binary ops' rule).
    operand.tile = readBeyondValid(given, *valid, resultType);
    const TileValue &tile = operand.tile;
    SmallVector<int64_t, 4> compact = rowMajorStrides(tile.valid);
    for (int64_t d = 0; d < rank; ++d) {
      bool broadcast =
          tile.type.getDimSize(d) == 1 && resultType.getDimSize(d) != 1;
      operand.strides.push_back(broadcast ? 0 : compact[d]);
    }
    operand.data = tile.data ? tile.data->data() : nullptr;
    return success();
  };
  Operand condition, onTrue, onFalse;
  if (failed(bind(op.getCondition(), "the condition", condition)) ||
      failed(bind(op.getOnTrue(), "on_true", onTrue)) ||
      failed(bind(op.getOnFalse(), "on_false", onFalse)))
    return failure();

  TileValue out = newTile(op.getResult(), *valid);
  int64_t n = out.numValid();
  stats.vectorElements += n;
  if (observer())
    observer()->vectorOp(op, n);
  if (!out.data) {
    env[op.getResult()] = std::move(out);
    return success();
  }
  SmallVector<int64_t, 4> index(rank, 0);
  float *o = out.data->data();
  auto at = [&](const Operand &operand) {
    int64_t offset = 0;
    for (int64_t d = 0; d < rank; ++d)
      offset += index[d] * operand.strides[d];
    return operand.data[offset];
  };
  for (int64_t i = 0; i < n; ++i) {
    o[i] = at(condition) != 0.0f ? at(onTrue) : at(onFalse);
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++index[d] < (*valid)[d])
        break;
      index[d] = 0;
    }
  }
  bindRounded(op.getResult(), std::move(out));
  return success();
}

} // namespace mlir::pto::interp::detail
