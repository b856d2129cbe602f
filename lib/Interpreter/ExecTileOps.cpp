//===- ExecTileOps.cpp - tile arithmetic
//------------------------------------===//
//
// pto-run semantics of tile arithmetic: binary and unary elementwise ops,
// reductions, casts, fills, transposes and gathermasks.
//
//===----------------------------------------------------------------------===//

#include "InterpreterImpl.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace mlir::pto::interp::detail {

//===----------------------------------------------------------------------===//
// Tile ops
//===----------------------------------------------------------------------===//

/// Applies `row(l, lhsStride, r, rhsStride, dst, n)` to every innermost row
/// of the valid index space (broadcast dims have stride 0).
template <typename RowF>
void elementwise(ArrayRef<int64_t> valid, ArrayRef<int64_t> lhsStrides,
                 const float *lhs, ArrayRef<int64_t> rhsStrides,
                 const float *rhs, float *out, RowF row) {
  // Pad to rank 4 so that one loop nest serves every rank.
  int64_t rank = valid.size();
  int64_t v[4] = {1, 1, 1, 1}, ls[4] = {0, 0, 0, 0}, rs[4] = {0, 0, 0, 0};
  for (int64_t d = 0; d < rank; ++d) {
    v[4 - rank + d] = valid[d];
    ls[4 - rank + d] = lhsStrides[d];
    rs[4 - rank + d] = rhsStrides[d];
  }
  int64_t o = 0;
  for (int64_t i0 = 0; i0 < v[0]; ++i0)
    for (int64_t i1 = 0; i1 < v[1]; ++i1)
      for (int64_t i2 = 0; i2 < v[2]; ++i2) {
        const float *l = lhs + i0 * ls[0] + i1 * ls[1] + i2 * ls[2];
        const float *r = rhs + i0 * rs[0] + i1 * rs[1] + i2 * rs[2];
        row(l, ls[3], r, rs[3], out + o, v[3]);
        o += v[3];
      }
}

/// `operand` read over a result's valid extents `valid`: where it holds fewer
/// valid elements than the result along a dim it does not broadcast, a copy
/// with those extents whose extra elements are NaN. The hardware's elementwise
/// instruction reads whatever its buffer holds there (the op runs over the
/// destination's valid region); NaN stands for that unspecified value, so a
/// kernel output that depends on it shows up as NaN, and the ISA lowering
/// fills it with NaN too (LeafLowering::atResultValid).
TileValue readBeyondValid(const TileValue &operand, ArrayRef<int64_t> valid,
                          TileType resultType) {
  int64_t rank = valid.size();
  SmallVector<int64_t, 4> wide(operand.valid.begin(), operand.valid.end());
  bool widen = false;
  for (int64_t d = 0; d < rank; ++d) {
    bool broadcast =
        operand.type.getDimSize(d) == 1 && resultType.getDimSize(d) != 1;
    if (!broadcast && operand.valid[d] < valid[d]) {
      wide[d] = valid[d];
      widen = true;
    }
  }
  if (!widen)
    return operand;
  TileValue read = operand;
  read.valid = wide;
  if (!operand.data)
    return read;
  read.data = std::make_shared<std::vector<float>>(
      read.numValid(), std::numeric_limits<float>::quiet_NaN());
  SmallVector<int64_t, 4> from = rowMajorStrides(operand.valid);
  SmallVector<int64_t, 4> to = rowMajorStrides(wide);
  SmallVector<int64_t, 4> index(rank, 0);
  int64_t n = operand.numValid();
  for (int64_t i = 0; i < n; ++i) {
    int64_t src = 0, dst = 0;
    for (int64_t d = 0; d < rank; ++d) {
      src += index[d] * from[d];
      dst += index[d] * to[d];
    }
    (*read.data)[dst] = (*operand.data)[src];
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++index[d] < operand.valid[d])
        break;
      index[d] = 0;
    }
  }
  return read;
}

LogicalResult Interpreter::execBinary(Operation *op, Value lhsValue,
                                      Value rhsValue) {
  const TileValue &lhs = getTile(lhsValue);
  Value result = op->getResult(0);
  FailureOr<SmallVector<int64_t, 4>> valid = inferValid(op);
  if (failed(valid))
    return failure();
  auto resultType = cast<TileType>(result.getType());
  int64_t rank = resultType.getRank();

  // Per-operand strides over the result's valid index space: 0 along a
  // broadcast dim. The result takes PyPTO's valid shape (the left operand's,
  // the right one's where the left broadcasts); an operand with fewer valid
  // elements there is read through its NaN-widened copy (readBeyondValid).
  SmallVector<TileValue, 2> widened;
  auto stridesFor =
      [&](const TileValue &operand, StringRef side,
          SmallVectorImpl<int64_t> &strides) -> FailureOr<const TileValue *> {
    bool broadcastOperand = false;
    for (int64_t d = 0; d < rank; ++d)
      broadcastOperand |=
          operand.type.getDimSize(d) == 1 && resultType.getDimSize(d) != 1;
    for (int64_t d = 0; d < rank; ++d) {
      bool broadcast =
          operand.type.getDimSize(d) == 1 && resultType.getDimSize(d) != 1;
      if (broadcast && operand.valid[d] != 1 && (*valid)[d] > 0)
        return op->emitError()
               << "pto-run: the " << side << " operand broadcasts dim " << d
               << " but has valid extent " << operand.valid[d]
               << " there; a broadcast operand needs 1 valid element";
      // A broadcast row or column is expanded by instructions that read
      // exactly the result's extent from it (docs/PyPTOModel.md).
      if (!broadcast && broadcastOperand && operand.valid[d] < (*valid)[d])
        return op->emitError()
               << "pto-run: the " << side << " operand broadcasts over the "
               << "result but has " << operand.valid[d]
               << " valid elements in dim " << d << " where the result has "
               << (*valid)[d] << " (valid " << listStr(operand.valid) << " vs "
               << listStr(*valid)
               << "): the op would read elements it does not hold; give its "
                  "view at least "
               << (*valid)[d] << " valid elements there, or cut the other "
               << "operand's valid extent to " << operand.valid[d];
    }
    widened.push_back(readBeyondValid(operand, *valid, resultType));
    const TileValue &read = widened.back();
    SmallVector<int64_t, 4> compact = rowMajorStrides(read.valid);
    for (int64_t d = 0; d < rank; ++d) {
      bool broadcast =
          operand.type.getDimSize(d) == 1 && resultType.getDimSize(d) != 1;
      strides.push_back(broadcast ? 0 : compact[d]);
    }
    return &read;
  };

  SmallVector<int64_t, 4> lhsStrides, rhsStrides;
  widened.reserve(2);
  FailureOr<const TileValue *> lhsRead = stridesFor(lhs, "left", lhsStrides);
  if (failed(lhsRead))
    return failure();
  float scalar = 0;
  const float *rhsData = &scalar;
  if (isa<TileType>(rhsValue.getType())) {
    FailureOr<const TileValue *> rhsRead =
        stridesFor(getTile(rhsValue), "right", rhsStrides);
    if (failed(rhsRead))
      return failure();
    rhsData = (*rhsRead)->data ? (*rhsRead)->data->data() : nullptr;
  } else {
    scalar = float(getFloat(rhsValue));
    rhsStrides.assign(rank, 0);
  }
  TileValue out = newTile(result, *valid);
  stats.vectorElements += out.numValid();
  if (observer())
    observer()->vectorOp(op, out.numValid());
  if (!out.data) {
    env[result] = std::move(out);
    return success();
  }
  const float *l = (*lhsRead)->data->data();
  float *o = out.data->data();
  if (auto arith = dyn_cast<ElementwiseBinaryOpInterface>(op)) {
    elementwise(*valid, lhsStrides, l, rhsStrides, rhsData, o,
                [&](const float *lr, int64_t ls, const float *rr, int64_t rs,
                    float *dst,
                    int64_t n) { arith.evaluateRow(lr, ls, rr, rs, dst, n); });
  } else {
    auto compare = cast<CompareOp>(op);
    elementwise(
        *valid, lhsStrides, l, rhsStrides, rhsData, o,
        [&](const float *lr, int64_t ls, const float *rr, int64_t rs,
            float *dst, int64_t n) {
          mapElementwiseRow(
              [&](float a, float b) { return applyCompare(compare, a, b); }, lr,
              ls, rr, rs, dst, n);
        });
  }
  bindRounded(result, std::move(out));
  return success();
}

LogicalResult Interpreter::execUnary(Operation *op, Value inputValue) {
  const TileValue &input = getTile(inputValue);
  TileValue out = newTile(op->getResult(0), input.valid);
  int64_t n = input.numValid();
  stats.vectorElements += n;
  if (observer())
    observer()->vectorOp(op, n);
  if (!out.data) {
    env[op->getResult(0)] = std::move(out);
    return success();
  }
  cast<ElementwiseUnaryOpInterface>(op).evaluateRow(input.data->data(),
                                                    out.data->data(), n);
  bindRounded(op->getResult(0), std::move(out));
  return success();
}

LogicalResult Interpreter::execReduce(Operation *op, Value inputValue,
                                      int64_t dim, bool isAmax) {
  const TileValue &input = getTile(inputValue);
  FailureOr<SmallVector<int64_t, 4>> valid = inferValid(op);
  if (failed(valid))
    return failure();
  TileValue out = newTile(op->getResult(0), *valid);
  stats.vectorElements += input.numValid();
  if (observer())
    observer()->vectorOp(op, input.numValid());
  if (!out.data) {
    env[op->getResult(0)] = std::move(out);
    return success();
  }
  // outer x reduced x inner decomposition of the input's valid region.
  int64_t outer = 1, inner = 1, reduced = input.valid[dim];
  for (int64_t d = 0; d < dim; ++d)
    outer *= input.valid[d];
  for (int64_t d = dim + 1; d < static_cast<int64_t>(input.valid.size()); ++d)
    inner *= input.valid[d];
  // Over an empty valid extent sum gives 0 and amax -inf (their identities).
  const float *in = input.data->data();
  float *o = out.data->data();
  for (int64_t i = 0; i < outer; ++i)
    for (int64_t j = 0; j < inner; ++j) {
      float acc = isAmax ? -INFINITY : 0.0f;
      for (int64_t r = 0; r < reduced; ++r) {
        float x = in[(i * reduced + r) * inner + j];
        acc = isAmax ? std::fmax(acc, x) : acc + x;
      }
      o[i * inner + j] = acc;
    }
  bindRounded(op->getResult(0), std::move(out));
  return success();
}

LogicalResult Interpreter::execCast(CastOp op) {
  const TileValue &input = getTile(op.getInput());
  Type to = op.getResult().getType().getElementType();
  CastMode mode = op.getEffectiveMode();
  TileValue out = newTile(op.getResult(), input.valid);
  int64_t n = input.numValid();
  stats.vectorElements += n;
  if (observer())
    observer()->vectorOp(op, n);
  if (!out.data) {
    if (!to.isBF16() && !to.isF16() && !to.isF32())
      if (!to.isSignlessInteger(8) && !to.isSignlessInteger(16) &&
          !to.isSignlessInteger(32))
        return op.emitError()
               << "pto-run: casts to " << to
               << " are not supported; the interpreter executes "
                  "float tiles (bf16, f16, f32) and casts to i8, "
                  "i16, i32";
    env[op.getResult()] = std::move(out);
    return success();
  }
  const float *in = input.data->data();
  float *o = out.data->data();
  if (to.isBF16()) {
    for (int64_t i = 0; i < n; ++i)
      o[i] = bf16ToFloat(floatToBF16(in[i], mode));
  } else if (to.isF16()) {
    for (int64_t i = 0; i < n; ++i)
      o[i] = roundToF16(in[i], mode);
  } else if (to.isF32()) {
    bool widening = !op.getInput().getType().getElementType().isF32();
    for (int64_t i = 0; i < n; ++i)
      o[i] = widening ? in[i] : roundToIntegral(in[i], mode);
  } else if (to.isSignlessInteger(8) || to.isSignlessInteger(16) ||
             to.isSignlessInteger(32)) {
    // Integer tiles hold their values as floats (exact for i8 and i16, and
    // for i32 up to 2^24). Out-of-range values clamp or wrap as
    // CastOp::saturates() says; NaN gives 0.
    unsigned width = to.getIntOrFloatBitWidth();
    double lo = -std::ldexp(1.0, width - 1),
           hi = std::ldexp(1.0, width - 1) - 1;
    bool saturate = op.saturates();
    for (int64_t i = 0; i < n; ++i) {
      double x = roundToIntegral(in[i], mode);
      if (std::isnan(x)) {
        o[i] = 0.0f;
      } else if (saturate) {
        o[i] = float(std::clamp(x, lo, hi));
      } else {
        x = std::clamp(x, -9.2e18, 9.2e18);
        uint64_t bits = uint64_t(int64_t(x)) & ((uint64_t(1) << width) - 1);
        int64_t wrapped = bits >= (uint64_t(1) << (width - 1))
                              ? int64_t(bits) - (int64_t(1) << width)
                              : int64_t(bits);
        o[i] = float(wrapped);
      }
    }
  } else {
    return op.emitError() << "pto-run: casts to " << to
                          << " are not supported; the interpreter executes "
                             "float tiles (bf16, f16, f32) and casts to i8, "
                             "i16, i32";
  }
  env[op.getResult()] = std::move(out);
  return success();
}

LogicalResult Interpreter::execFull(FullOp op) {
  TileType type = op.getResult().getType();
  TileValue tile = newTile(op.getResult(), type.getShape());
  float value =
      roundTo(type.getElementType(), float(op.getValue().convertToDouble()));
  if (tile.data)
    std::fill(tile.data->begin(), tile.data->end(), value);
  env[op.getResult()] = std::move(tile);
  return success();
}

LogicalResult Interpreter::execArange(ArangeOp op) {
  TileType type = op.getResult().getType();
  TileValue tile = newTile(op.getResult(), type.getShape());
  double start = op.getStart().convertToDouble(),
         step = op.getStep().convertToDouble();
  // Integer sequences are exact in f32 up to 2^24 (the interpreter's
  // element type); the verifier keeps them within i32.
  if (tile.data)
    for (auto [i, element] : llvm::enumerate(*tile.data))
      element = roundTo(type.getElementType(),
                        float(start + step * static_cast<double>(i)));
  stats.vectorElements += type.getShape()[0];
  if (observer())
    observer()->vectorOp(op, type.getShape()[0]);
  env[op.getResult()] = std::move(tile);
  return success();
}

LogicalResult Interpreter::execTranspose(TransposeOp op) {
  const TileValue &input = getTile(op.getInput());
  int64_t dim0 = op.getDim0(), dim1 = op.getDim1();
  SmallVector<int64_t, 4> valid(input.valid);
  std::swap(valid[dim0], valid[dim1]);
  TileValue out = newTile(op.getResult(), valid);
  int64_t n = input.numValid(), rank = valid.size();
  stats.vectorElements += n;
  // TTRANS on A2/A3 is two passes over the data: scatter_vnchwconv into the
  // scratch tile, then a ub -> ub copy (pto-isa a2a3/TTrans.hpp).
  if (observer())
    observer()->vectorOp(op, 2 * n);
  if (!out.data) {
    env[op.getResult()] = std::move(out);
    return success();
  }
  // Row-major strides of the output's valid region, walked in input order:
  // input element (.., i, .., j, ..) lands at output (.., j, .., i, ..).
  SmallVector<int64_t, 4> outStride(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d)
    outStride[d] = outStride[d + 1] * valid[d + 1];
  std::swap(outStride[dim0], outStride[dim1]);
  const float *in = input.data->data();
  float *o = out.data->data();
  SmallVector<int64_t, 4> idx(rank, 0);
  int64_t at = 0;
  for (int64_t i = 0; i < n; ++i) {
    o[at] = in[i];
    for (int64_t d = rank - 1; d >= 0; --d) {
      at += outStride[d];
      if (++idx[d] < input.valid[d])
        break;
      at -= outStride[d] * idx[d];
      idx[d] = 0;
    }
  }
  env[op.getResult()] = std::move(out);
  return success();
}

LogicalResult Interpreter::execGatherMask(GatherMaskOp op) {
  const TileValue &input = getTile(op.getInput());
  FailureOr<SmallVector<int64_t, 4>> valid = inferValid(op);
  if (failed(valid))
    return failure();
  TileValue out = newTile(op.getResult(), *valid);
  stats.vectorElements += input.numValid();
  // One pass over the source (vreducev2 reads every valid element).
  if (observer())
    observer()->vectorOp(op, input.numValid());
  if (!out.data) {
    env[op.getResult()] = std::move(out);
    return success();
  }
  int64_t stride = op.getStride(), phase = op.getPhase();
  int64_t inCols = input.valid.back(), outCols = out.valid.back();
  int64_t rows = outCols == 0 ? 0 : out.numValid() / outCols;
  const float *in = input.data->data();
  float *o = out.data->data();
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < outCols; ++c)
      o[r * outCols + c] = in[r * inCols + phase + c * stride];
  env[op.getResult()] = std::move(out);
  return success();
}

LogicalResult Interpreter::execBitcast(BitcastOp op) {
  const TileValue &input = getTile(op.getInput());
  Type from = op.getInput().getType().getElementType();
  Type to = op.getResult().getType().getElementType();
  std::optional<ElementKind> fromKind = getElementKind(from),
                             toKind = getElementKind(to);
  if (!fromKind || !toKind)
    return op.emitError() << "pto-run: bitcasts of " << from << " to " << to
                          << " are not executed; the interpreter holds bf16, "
                             "f16, f32, i8, i16, i32 and i64 tiles";
  FailureOr<SmallVector<int64_t, 4>> valid = inferValid(op);
  if (failed(valid))
    return failure();
  TileValue out = newTile(op.getResult(), *valid);
  // A reinterpretation moves no data on chip (pto-isa's TRESHAPE renames
  // the bytes); it costs no vector work.
  if (!out.data) {
    env[op.getResult()] = std::move(out);
    return success();
  }
  // Each valid row's bytes, read as the other type: tiles hold floats, so
  // the row goes through its element encoding.
  int64_t inCols = input.valid.back(), outCols = out.valid.back();
  int64_t rows = inCols == 0 ? 0 : input.numValid() / inCols;
  if (outCols == 0)
    rows = 0;
  HostTensor in(*fromKind, {inCols}), res(*toKind, {outCols});
  const float *src = input.data->data();
  float *dst = out.data->data();
  bool fromFloat = from.isF32() || from.isF16() || from.isBF16();
  bool toFloat = to.isF32() || to.isF16() || to.isBF16();
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < inCols; ++c) {
      float x = src[r * inCols + c];
      if (fromFloat)
        in.storeFloat(c, x);
      else
        in.storeInt(c, static_cast<int64_t>(x));
    }
    std::memcpy(res.bytes.data(), in.bytes.data(),
                outCols * getByteSize(*toKind));
    for (int64_t c = 0; c < outCols; ++c) {
      if (toFloat) {
        dst[r * outCols + c] = res.loadFloat(c);
        continue;
      }
      // Integer tiles hold their values as floats, exact up to 2^24: a
      // wider i32 / i64 value would be silently rounded.
      int64_t v = res.loadInt(c);
      if (static_cast<int64_t>(static_cast<float>(v)) != v)
        return op.emitError()
               << "pto-run: the bitcast to " << to << " gives " << v
               << " at row " << r << ", column " << c
               << ", which the interpreter's integer tiles (held as floats, "
                  "exact up to 2^24) cannot hold; reinterpret as a float "
                  "type or as i8 / i16";
      dst[r * outCols + c] = static_cast<float>(v);
    }
  }
  env[op.getResult()] = std::move(out);
  return success();
}

} // namespace mlir::pto::interp::detail
