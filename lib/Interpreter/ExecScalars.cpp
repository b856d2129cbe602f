//===- ExecScalars.cpp - scalars, reads, reshapes
//---------------------------===//
//
// pto-run semantics of scalar arithmetic, pto.read, pto.check_view,
// pto.check_tile_view and pto.reshape.
//
//===----------------------------------------------------------------------===//

#include "InterpreterImpl.h"

namespace mlir::pto::interp::detail {

//===----------------------------------------------------------------------===//
// Scalars
//===----------------------------------------------------------------------===//

LogicalResult Interpreter::execArith(Operation *op) {
  auto fault = [&](const Twine &message) -> LogicalResult {
    return op->emitError() << "pto-run: " << message;
  };
  if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
    Attribute value = constant.getValue();
    if (auto i = dyn_cast<IntegerAttr>(value)) {
      env[constant.getResult()] =
          i.getType().isIndex() ? i.getInt() : i.getValue().getSExtValue();
      return success();
    }
    if (auto f = dyn_cast<FloatAttr>(value)) {
      double d = f.getValueAsDouble();
      // f32 scalars (like scale) are rounded once to FP32.
      env[constant.getResult()] = f.getType().isF32() ? double(float(d)) : d;
      return success();
    }
    return fault("only scalar integer and float constants are supported");
  }
  if (op->getNumResults() != 1 ||
      // Scalar types by TypeID (a ShapedType check is an interface lookup,
      // a measurable cost on the ~10^6 index ops of a tile graph).
      !llvm::all_of(op->getOperandTypes(), [](Type t) {
        return isa<IntegerType, IndexType, FloatType>(t);
      }))
    return fault("'" + op->getName().getStringRef() +
                 "' is supported on scalars only");
  Value result = op->getResult(0);
  auto intOperand = [&](unsigned i) { return getInt(op->getOperand(i)); };
  auto floatOperand = [&](unsigned i) { return getFloat(op->getOperand(i)); };
  auto setFloat = [&](double d) {
    env[result] = result.getType().isF32() ? double(float(d)) : d;
    return success();
  };
  // An integer result: wrapped to the result's width and sign-extended
  // (index is 64-bit).
  auto setInt = [&](uint64_t bits) {
    unsigned width = 64;
    if (auto intType = dyn_cast<IntegerType>(result.getType()))
      width = intType.getWidth();
    if (width > 0 && width < 64) {
      unsigned shift = 64 - width;
      bits = uint64_t(int64_t(bits << shift) >> shift);
    }
    env[result] = int64_t(bits);
    return success();
  };
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      // arith's integer arithmetic wraps around (two's complement) at the
      // result's width; computed in uint64 so that the host has no UB.
      .Case([&](arith::AddIOp) {
        return setInt(uint64_t(intOperand(0)) + uint64_t(intOperand(1)));
      })
      .Case([&](arith::SubIOp) {
        return setInt(uint64_t(intOperand(0)) - uint64_t(intOperand(1)));
      })
      .Case([&](arith::MulIOp) {
        return setInt(uint64_t(intOperand(0)) * uint64_t(intOperand(1)));
      })
      .Case<arith::DivSIOp, arith::CeilDivSIOp, arith::FloorDivSIOp,
            arith::RemSIOp>([&](auto div) -> LogicalResult {
        int64_t a = intOperand(0), b = intOperand(1);
        std::string rule = pto_check::integer_division(a, b);
        if (!rule.empty())
          return fault(rule);
        int64_t q = a / b, r = a % b;
        using Op = decltype(div);
        if constexpr (std::is_same_v<Op, arith::CeilDivSIOp>)
          q += (r != 0 && ((r > 0) == (b > 0))) ? 1 : 0;
        if constexpr (std::is_same_v<Op, arith::FloorDivSIOp>)
          q -= (r != 0 && ((r < 0) != (b < 0))) ? 1 : 0;
        env[result] = std::is_same_v<Op, arith::RemSIOp> ? r : q;
        return success();
      })
      .Case([&](arith::MinSIOp) {
        env[result] = std::min(intOperand(0), intOperand(1));
        return success();
      })
      .Case([&](arith::MaxSIOp) {
        env[result] = std::max(intOperand(0), intOperand(1));
        return success();
      })
      .Case([&](arith::CmpIOp cmp) {
        int64_t a = intOperand(0), b = intOperand(1);
        bool r = false;
        switch (cmp.getPredicate()) {
        case arith::CmpIPredicate::eq:
          r = a == b;
          break;
        case arith::CmpIPredicate::ne:
          r = a != b;
          break;
        case arith::CmpIPredicate::slt:
          r = a < b;
          break;
        case arith::CmpIPredicate::sle:
          r = a <= b;
          break;
        case arith::CmpIPredicate::sgt:
          r = a > b;
          break;
        case arith::CmpIPredicate::sge:
          r = a >= b;
          break;
        case arith::CmpIPredicate::ult:
          r = uint64_t(a) < uint64_t(b);
          break;
        case arith::CmpIPredicate::ule:
          r = uint64_t(a) <= uint64_t(b);
          break;
        case arith::CmpIPredicate::ugt:
          r = uint64_t(a) > uint64_t(b);
          break;
        case arith::CmpIPredicate::uge:
          r = uint64_t(a) >= uint64_t(b);
          break;
        }
        env[result] = int64_t(r);
        return success();
      })
      .Case([&](arith::SelectOp select) {
        // A copy first: env[result] may grow the value vector and move
        // what env.at() refers to (heap-use-after-free found by ASan).
        RuntimeValue chosen = env.at(intOperand(0) ? select.getTrueValue()
                                                   : select.getFalseValue());
        env[result] = std::move(chosen);
        return success();
      })
      .Case<arith::IndexCastOp, arith::ExtSIOp, arith::TruncIOp>(
          [&](auto) { return setInt(uint64_t(intOperand(0))); })
      .Case([&](arith::AndIOp) {
        env[result] = intOperand(0) & intOperand(1);
        return success();
      })
      .Case([&](arith::OrIOp) {
        env[result] = intOperand(0) | intOperand(1);
        return success();
      })
      .Case([&](arith::XOrIOp) {
        env[result] = intOperand(0) ^ intOperand(1);
        return success();
      })
      .Case([&](arith::AddFOp) {
        return setFloat(floatOperand(0) + floatOperand(1));
      })
      .Case([&](arith::SubFOp) {
        return setFloat(floatOperand(0) - floatOperand(1));
      })
      .Case([&](arith::MulFOp) {
        return setFloat(floatOperand(0) * floatOperand(1));
      })
      .Case([&](arith::DivFOp) {
        return setFloat(floatOperand(0) / floatOperand(1));
      })
      .Case([&](arith::NegFOp) { return setFloat(-floatOperand(0)); })
      .Case([&](arith::SIToFPOp) { return setFloat(double(intOperand(0))); })
      .Case([&](arith::ExtFOp) { return setFloat(floatOperand(0)); })
      .Default([&](Operation *other) -> LogicalResult {
        return fault("cannot execute '" + other->getName().getStringRef() +
                     "'");
      });
}

LogicalResult Interpreter::execCheckView(CheckViewOp op) {
  const TensorRef &tensor = getTensor(op.getTensor());
  SmallVector<int64_t, 4> offsets, valid;
  for (Value v : op.getOffsets())
    offsets.push_back(getInt(v));
  for (Value v : op.getValidShape())
    valid.push_back(getInt(v));
  std::string name = tensor.name.str();
  std::string rule = pto_check::view(
      "tensor", name.c_str(), tensor.shape.data(), offsets.data(),
      valid.empty() ? nullptr : valid.data(), offsets.size());
  if (!rule.empty())
    return op.emitError() << "pto-run: " << rule;
  return success();
}

LogicalResult Interpreter::execCheckTileView(CheckTileViewOp op) {
  SmallVector<int64_t, 4> source, offsets, valid;
  for (Value v : op.getSourceValid())
    source.push_back(getInt(v));
  for (Value v : op.getOffsets())
    offsets.push_back(getInt(v));
  for (Value v : op.getValidShape())
    valid.push_back(getInt(v));
  std::string rule = pto_check::tile_view(
      source.data(), offsets.data(), valid.empty() ? nullptr : valid.data(),
      offsets.size());
  if (!rule.empty())
    return op.emitError() << "pto-run: " << rule;
  return success();
}

LogicalResult Interpreter::execRead(ReadOp op) {
  const TensorRef &tensor = getTensor(op.getTensor());
  if (tensor.storage->shapeOnly)
    return op.emitError()
           << "pto-run: pto.read of '" << tensor.name
           << "' needs its values, which a --no-numerics run does not "
              "have (the tensor was given as a shape, or the kernel wrote "
              "it); give --input "
           << tensor.name << "=FILE.npy, or run without --no-numerics";
  flushAtomics(tensor.storage);
  SmallVector<int64_t, 4> strides = rowMajorStrides(tensor.shape);
  SmallVector<int64_t, 4> index;
  for (Value i : op.getIndices())
    index.push_back(getInt(i));
  std::string name = tensor.name.str();
  std::string rule = pto_check::scalar_read(name.c_str(), index.data(),
                                            tensor.shape.data(), index.size());
  if (!rule.empty())
    return op.emitError() << "pto-run: " << rule;
  int64_t linear = 0;
  for (auto [i, stride] : llvm::zip(index, strides))
    linear += i * stride;
  env[op.getResult()] = tensor.storage->loadInt(linear);
  return success();
}

LogicalResult Interpreter::execReshape(ReshapeOp op) {
  const TensorRef &source = getTensor(op.getSource());
  SmallVector<int64_t, 4> shape =
      mixedValues(op.getStaticShape(), op.getShape());
  // The tensor's own extents: its storage may have been reshaped before.
  std::string name = source.name.str();
  std::string rule = pto_check::reshape(
      name.c_str(),
      std::vector<int64_t>(source.shape.begin(), source.shape.end()),
      std::vector<int64_t>(shape.begin(), shape.end()));
  if (!rule.empty())
    return op.emitError() << "pto-run: " << rule;
  TensorRef result = source;
  result.shape = shape;
  env[op.getResult()] = result;
  return success();
}

} // namespace mlir::pto::interp::detail
