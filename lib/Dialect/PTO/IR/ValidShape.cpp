//===- ValidShape.cpp - valid-shape rules and their IR reification --------===//
//
// Each op states its valid-shape rule once against ValidShapeAlgebra; the IR
// algebra below materialises it for passes, the interpreter evaluates it.
//
//===----------------------------------------------------------------------===//

#include "pto/Dialect/PTO/IR/PTODialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::pto;

FailureOr<Extent> ValidShapeAlgebra::mixed(ArrayRef<int64_t> staticValues,
                                           ValueRange dynamic, unsigned i) {
  if (!ShapedType::isDynamic(staticValues[i]))
    return constant(staticValues[i]);
  unsigned dynamicIndex =
      llvm::count_if(staticValues.take_front(i), ShapedType::isDynamic);
  return index(dynamic[dynamicIndex]);
}

//===----------------------------------------------------------------------===//
// Rules
//===----------------------------------------------------------------------===//

using ExtentsOr = FailureOr<SmallVector<Extent>>;

ExtentsOr ViewOp::inferValidShape(ValidShapeAlgebra &algebra, unsigned) {
  ExtentsOr parent = algebra.validShapeOf(getSource());
  if (failed(parent))
    return failure();
  SmallVector<Extent> valid;
  ArrayRef<int64_t> shape = getResult().getType().getShape();
  std::optional<ArrayRef<int64_t>> explicitValid = getStaticValidShape();
  for (unsigned d = 0; d < shape.size(); ++d) {
    FailureOr<Extent> offset =
        algebra.mixed(getStaticOffsets(), getOffsets(), d);
    if (failed(offset))
      return failure();
    // min(max(parentValid - offset, 0), viewShape)
    Extent derived = algebra.min(
        algebra.max(algebra.sub((*parent)[d], *offset), algebra.constant(0)),
        algebra.constant(shape[d]));
    if (explicitValid) {
      FailureOr<Extent> given =
          algebra.mixed(*explicitValid, getValidShape(), d);
      if (failed(given))
        return failure();
      derived = algebra.min(*given, derived);
    }
    valid.push_back(derived);
  }
  return valid;
}

ExtentsOr MatmulOp::inferValidShape(ValidShapeAlgebra &algebra, unsigned) {
  ExtentsOr lhs = algebra.validShapeOf(getLhs());
  ExtentsOr rhs = algebra.validShapeOf(getRhs());
  if (failed(lhs) || failed(rhs))
    return failure();
  return SmallVector<Extent>{(*lhs)[getATrans() ? 1 : 0],
                             (*rhs)[getBTrans() ? 0 : 1]};
}

ExtentsOr MatmulAccOp::inferValidShape(ValidShapeAlgebra &algebra, unsigned) {
  return algebra.validShapeOf(getAcc());
}

/// The valid extent of the operand that is not broadcast along each dim.
static ExtentsOr inferBinary(ValidShapeAlgebra &algebra, Value lhs, Value rhs,
                             Value result) {
  ExtentsOr lhsValid = algebra.validShapeOf(lhs);
  if (failed(lhsValid))
    return failure();
  auto rhsType = dyn_cast<TileType>(rhs.getType());
  if (!rhsType)
    return lhsValid;
  ExtentsOr rhsValid = algebra.validShapeOf(rhs);
  if (failed(rhsValid))
    return failure();
  ArrayRef<int64_t> lhsShape = cast<TileType>(lhs.getType()).getShape();
  ArrayRef<int64_t> resultShape = cast<TileType>(result.getType()).getShape();
  SmallVector<Extent> valid;
  for (unsigned d = 0; d < resultShape.size(); ++d) {
    bool lhsBroadcast = lhsShape[d] == 1 && resultShape[d] != 1;
    valid.push_back(lhsBroadcast ? (*rhsValid)[d] : (*lhsValid)[d]);
  }
  return valid;
}

/// PyPTO's comparison rule (ElewiseInferFunc, docs/PyPTOModel.md): along a
/// dim one operand broadcasts, the other's valid extent; elsewhere the
/// smaller of the two (PyPTO takes the first run-time extent when one is not
/// a compile-time constant, which is the smaller one for a tail view of a
/// full tile).
ExtentsOr CompareOp::inferValidShape(ValidShapeAlgebra &algebra, unsigned) {
  auto rhsType = dyn_cast<TileType>(getRhs().getType());
  if (!rhsType)
    return inferBinary(algebra, getLhs(), getRhs(), getResult());
  ExtentsOr lhsValid = algebra.validShapeOf(getLhs());
  ExtentsOr rhsValid = algebra.validShapeOf(getRhs());
  if (failed(lhsValid) || failed(rhsValid))
    return failure();
  ArrayRef<int64_t> lhsShape = getLhs().getType().getShape();
  ArrayRef<int64_t> rhsShape = rhsType.getShape();
  ArrayRef<int64_t> resultShape = getResult().getType().getShape();
  SmallVector<Extent> valid;
  for (unsigned d = 0; d < resultShape.size(); ++d) {
    bool lhsBroadcast = lhsShape[d] == 1 && resultShape[d] != 1;
    bool rhsBroadcast = rhsShape[d] == 1 && resultShape[d] != 1;
    if (lhsBroadcast || rhsBroadcast)
      valid.push_back(lhsBroadcast ? (*rhsValid)[d] : (*lhsValid)[d]);
    else
      valid.push_back(algebra.min((*lhsValid)[d], (*rhsValid)[d]));
  }
  return valid;
}

/// Per dim, the valid extent of the first tile operand not broadcast there.
ExtentsOr WhereOp::inferValidShape(ValidShapeAlgebra &algebra, unsigned) {
  ArrayRef<int64_t> resultShape = getResult().getType().getShape();
  SmallVector<std::pair<ArrayRef<int64_t>, SmallVector<Extent>>> tiles;
  for (Value operand : {Value(getCondition()), getOnTrue(), getOnFalse()}) {
    auto type = dyn_cast<TileType>(operand.getType());
    if (!type)
      continue;
    ExtentsOr valid = algebra.validShapeOf(operand);
    if (failed(valid))
      return failure();
    tiles.push_back({type.getShape(), *valid});
  }
  SmallVector<Extent> valid;
  for (unsigned d = 0; d < resultShape.size(); ++d) {
    const auto *pick = &tiles.front();
    for (const auto &tile : tiles)
      if (tile.first[d] == resultShape[d]) {
        pick = &tile;
        break;
      }
    valid.push_back(pick->second[d]);
  }
  return valid;
}

#define PTO_BINARY_VALID_SHAPE(OP)                                             \
  ExtentsOr OP::inferValidShape(ValidShapeAlgebra &algebra, unsigned) {        \
    return inferBinary(algebra, getLhs(), getRhs(), getResult());              \
  }
PTO_BINARY_VALID_SHAPE(AddOp)
PTO_BINARY_VALID_SHAPE(SubOp)
PTO_BINARY_VALID_SHAPE(MulOp)
PTO_BINARY_VALID_SHAPE(DivOp)
PTO_BINARY_VALID_SHAPE(MaxOp)
PTO_BINARY_VALID_SHAPE(MinOp)
#undef PTO_BINARY_VALID_SHAPE

#define PTO_SAME_AS_INPUT_VALID_SHAPE(OP)                                      \
  ExtentsOr OP::inferValidShape(ValidShapeAlgebra &algebra, unsigned) {        \
    return algebra.validShapeOf(getInput());                                   \
  }
PTO_SAME_AS_INPUT_VALID_SHAPE(ExpOp)
PTO_SAME_AS_INPUT_VALID_SHAPE(NegOp)
PTO_SAME_AS_INPUT_VALID_SHAPE(AbsOp)
PTO_SAME_AS_INPUT_VALID_SHAPE(SqrtOp)
PTO_SAME_AS_INPUT_VALID_SHAPE(RsqrtOp)
PTO_SAME_AS_INPUT_VALID_SHAPE(ReciprocalOp)
PTO_SAME_AS_INPUT_VALID_SHAPE(LogOp)
PTO_SAME_AS_INPUT_VALID_SHAPE(TanhOp)
PTO_SAME_AS_INPUT_VALID_SHAPE(CastOp)
#undef PTO_SAME_AS_INPUT_VALID_SHAPE

static ExtentsOr inferReduce(ValidShapeAlgebra &algebra, Value input,
                             int64_t dim, bool keepdim) {
  ExtentsOr valid = algebra.validShapeOf(input);
  if (failed(valid))
    return failure();
  if (keepdim)
    (*valid)[dim] = algebra.constant(1);
  else
    valid->erase(valid->begin() + dim);
  return valid;
}

ExtentsOr SumOp::inferValidShape(ValidShapeAlgebra &algebra, unsigned) {
  return inferReduce(algebra, getInput(), getDim(), getKeepdim());
}
ExtentsOr AmaxOp::inferValidShape(ValidShapeAlgebra &algebra, unsigned) {
  return inferReduce(algebra, getInput(), getDim(), getKeepdim());
}

ExtentsOr TransposeOp::inferValidShape(ValidShapeAlgebra &algebra, unsigned) {
  ExtentsOr valid = algebra.validShapeOf(getInput());
  if (failed(valid))
    return failure();
  std::swap((*valid)[getDim0()], (*valid)[getDim1()]);
  return valid;
}

ExtentsOr GatherMaskOp::inferValidShape(ValidShapeAlgebra &algebra, unsigned) {
  ExtentsOr valid = algebra.validShapeOf(getInput());
  if (failed(valid))
    return failure();
  // The selected elements among the valid ones:
  // ceildiv(max(valid - phase, 0), stride).
  Extent &last = valid->back();
  last = algebra.ceilDiv(
      algebra.max(algebra.sub(last, algebra.constant(getPhase())),
                  algebra.constant(0)),
      getStride());
  return valid;
}

ExtentsOr BitcastOp::inferValidShape(ValidShapeAlgebra &algebra, unsigned) {
  ExtentsOr valid = algebra.validShapeOf(getInput());
  if (failed(valid))
    return failure();
  // PyPTO's valid * bytes(input) / bytes(result), rounded down; the sizes
  // are powers of two, so one divides the other. floor(v / k) is
  // ceildiv(max(v - (k - 1), 0), k).
  int64_t from = getInput().getType().getElementByteSize();
  int64_t to = getResult().getType().getElementByteSize();
  Extent &last = valid->back();
  if (from >= to)
    last = algebra.mul(last, from / to);
  else
    last = algebra.ceilDiv(
        algebra.max(algebra.sub(last, algebra.constant(to / from - 1)),
                    algebra.constant(0)),
        to / from);
  return valid;
}

ExtentsOr ArangeOp::inferValidShape(ValidShapeAlgebra &algebra, unsigned) {
  return SmallVector<Extent>{
      algebra.constant(getResult().getType().getShape()[0])};
}

ExtentsOr FullOp::inferValidShape(ValidShapeAlgebra &algebra, unsigned) {
  SmallVector<Extent> valid;
  for (int64_t d : getResult().getType().getShape())
    valid.push_back(algebra.constant(d));
  return valid;
}

ExtentsOr ScopeOp::inferValidShape(ValidShapeAlgebra &algebra,
                                   unsigned resultIndex) {
  auto yield = cast<YieldOp>(getBody().front().getTerminator());
  return algebra.validShapeOf(yield.getValues()[resultIndex]);
}

//===----------------------------------------------------------------------===//
// IR algebra
//===----------------------------------------------------------------------===//

namespace {
class IRValidShapeAlgebra : public ValidShapeAlgebra {
public:
  explicit IRValidShapeAlgebra(OpBuilder &builder)
      : loc(UnknownLoc::get(builder.getContext())), builder(builder) {}

  FailureOr<Extent> index(Value v) override {
    APInt constant;
    if (matchPattern(v, m_ConstantInt(&constant)))
      return Extent(constant.getSExtValue());
    return Extent(v);
  }

  ExtentsOr validShapeOf(Value shaped) override {
    // Extents are built right before the value's definition (they depend on
    // its producer's operands only), so cached extents dominate every use of
    // the value, in any region.
    OpBuilder::InsertionGuard guard(builder);
    if (Operation *def = shaped.getDefiningOp())
      builder.setInsertionPoint(def);
    else
      builder.setInsertionPointToStart(cast<BlockArgument>(shaped).getOwner());
    if (auto tensor = dyn_cast<GMTensorType>(shaped.getType())) {
      // pto.dim reads the tensor: right after its definition.
      if (Operation *def = shaped.getDefiningOp())
        builder.setInsertionPointAfter(def);
      SmallVector<Extent> dims;
      for (auto [d, size] : llvm::enumerate(tensor.getShape())) {
        if (ShapedType::isDynamic(size))
          dims.push_back(
              Extent(DimOp::create(builder, loc, shaped, d).getResult()));
        else
          dims.push_back(Extent(size));
      }
      return dims;
    }
    auto it = cache.find(shaped);
    if (it != cache.end())
      return it->second;
    ExtentsOr valid = failure();
    auto result = dyn_cast<OpResult>(shaped);
    if (auto iface =
            result ? dyn_cast<ValidShapeInferenceOpInterface>(result.getOwner())
                   : ValidShapeInferenceOpInterface())
      valid = iface.inferValidShape(*this, result.getResultNumber());
    if (failed(valid)) {
      // No rule: read the extents at run time, right after the definition.
      if (Operation *def = shaped.getDefiningOp())
        builder.setInsertionPointAfter(def);
      auto type = cast<TileType>(shaped.getType());
      SmallVector<Extent> dims;
      for (int64_t d = 0; d < type.getRank(); ++d)
        dims.push_back(
            Extent(ValidDimOp::create(builder, loc, shaped, d).getResult()));
      valid = dims;
    }
    cache[shaped] = *valid;
    return valid;
  }

  Extent min(Extent a, Extent b) override {
    if (a.isConstant() && b.isConstant())
      return std::min(a.getConstant(), b.getConstant());
    return build<arith::MinSIOp>(a, b);
  }
  Extent max(Extent a, Extent b) override {
    if (a.isConstant() && b.isConstant())
      return std::max(a.getConstant(), b.getConstant());
    return build<arith::MaxSIOp>(a, b);
  }
  Extent sub(Extent a, Extent b) override {
    if (a.isConstant() && b.isConstant())
      return a.getConstant() - b.getConstant();
    if (b.isConstant() && b.getConstant() == 0)
      return a;
    return build<arith::SubIOp>(a, b);
  }
  Extent ceilDiv(Extent a, int64_t divisor) override {
    if (divisor == 1)
      return a;
    if (a.isConstant())
      return llvm::divideCeil(a.getConstant(), divisor);
    return build<arith::CeilDivSIOp>(a, Extent(divisor));
  }
  Extent mul(Extent a, int64_t factor) override {
    if (factor == 1)
      return a;
    if (a.isConstant())
      return a.getConstant() * factor;
    return build<arith::MulIOp>(a, Extent(factor));
  }

  Location loc;
  llvm::DenseMap<Value, SmallVector<Extent>> cache;

private:
  Value materialize(Extent e) {
    if (!e.isConstant())
      return e.getValue();
    return arith::ConstantIndexOp::create(builder, loc, e.getConstant());
  }
  template <typename OpTy> Extent build(Extent a, Extent b) {
    return Extent(
        OpTy::create(builder, loc, materialize(a), materialize(b)).getResult());
  }

  OpBuilder &builder;
};

SmallVector<OpFoldResult> toFoldResults(OpBuilder &builder,
                                        ArrayRef<Extent> extents) {
  SmallVector<OpFoldResult> result;
  for (const Extent &e : extents) {
    if (e.isConstant())
      result.push_back(builder.getIndexAttr(e.getConstant()));
    else
      result.push_back(e.getValue());
  }
  return result;
}
} // namespace

struct ValidShapeReifier::Impl {
  explicit Impl(OpBuilder &builder) : algebra(builder) {}
  IRValidShapeAlgebra algebra;
};

ValidShapeReifier::ValidShapeReifier(OpBuilder &builder)
    : impl(std::make_unique<Impl>(builder)), builderRef(builder) {}
ValidShapeReifier::~ValidShapeReifier() = default;

SmallVector<OpFoldResult> ValidShapeReifier::reify(Location loc, Value tile) {
  impl->algebra.loc = loc;
  return toFoldResults(builderRef, *impl->algebra.validShapeOf(tile));
}

void ValidShapeReifier::remember(Value tile, ArrayRef<OpFoldResult> extents) {
  SmallVector<Extent> cached;
  for (OpFoldResult ofr : extents) {
    if (auto attr = dyn_cast<Attribute>(ofr))
      cached.push_back(Extent(cast<IntegerAttr>(attr).getInt()));
    else
      cached.push_back(Extent(cast<Value>(ofr)));
  }
  impl->algebra.cache[tile] = std::move(cached);
}

SmallVector<OpFoldResult> mlir::pto::reifyValidShape(OpBuilder &builder,
                                                     Location loc, Value tile) {
  ValidShapeReifier reifier(builder);
  return reifier.reify(loc, tile);
}
