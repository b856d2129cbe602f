//===- PTOInterfaces.h - pto op interfaces and traits -----------*- C++ -*-===//
#ifndef PTO_DIALECT_PTO_IR_PTOINTERFACES_H
#define PTO_DIALECT_PTO_IR_PTOINTERFACES_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

#include <cmath>
#include <memory>

namespace mlir::pto {

/// One valid extent: a known integer, or (in the IR algebra) an `index` value.
class Extent {
public:
  Extent(int64_t constant) : constant(constant) {}
  Extent(Value value) : value(value) {}
  bool isConstant() const { return !value; }
  int64_t getConstant() const {
    assert(isConstant() && "extent is not a constant");
    return constant;
  }
  Value getValue() const { return value; }

private:
  int64_t constant = 0;
  Value value;
};

/// The operations valid-shape rules are written against. The IR algebra
/// builds (folded) `arith` ops; the interpreter's algebra evaluates run-time
/// integers. A failure means "not known here" (e.g. a loop-carried tile).
class ValidShapeAlgebra {
public:
  virtual ~ValidShapeAlgebra() = default;
  virtual Extent constant(int64_t c) { return Extent(c); }
  /// The value of an `index` SSA value (an offset or an explicit extent).
  virtual FailureOr<Extent> index(Value v) = 0;
  /// The valid extents of a tile, or the dims of a GM tensor.
  virtual FailureOr<SmallVector<Extent>> validShapeOf(Value shaped) = 0;
  virtual Extent min(Extent a, Extent b) = 0;
  virtual Extent max(Extent a, Extent b) = 0;
  virtual Extent sub(Extent a, Extent b) = 0;
  /// `ceil(a / divisor)` for `a >= 0` and a positive compile-time divisor.
  virtual Extent ceilDiv(Extent a, int64_t divisor) = 0;
  /// `a * factor` for a positive compile-time factor.
  virtual Extent mul(Extent a, int64_t factor) = 0;

  /// The extent of entry `i` of a mixed static/dynamic list, as stored by
  /// ops with `static_*` arrays and variadic index operands.
  FailureOr<Extent> mixed(ArrayRef<int64_t> staticValues, ValueRange dynamic,
                          unsigned i);
};

/// Reifies the valid extents of `tile` as IR at the builder's insertion point
/// (constants folded, `arith.minsi`/`maxsi`/`subi` otherwise). A producer
/// without a rule (a block argument, a loop result) is read with
/// `pto.valid_dim`.
SmallVector<OpFoldResult> reifyValidShape(OpBuilder &builder, Location loc,
                                          Value tile);

/// Reifies valid shapes for many values, sharing the IR it builds: extents
/// are cached per value, and `remember` seeds the cache (e.g. for a value
/// that replaces another with the same valid shape). Each extent is created
/// at the builder's insertion point when first needed, so callers reify in
/// program order.
class ValidShapeReifier {
public:
  ValidShapeReifier(OpBuilder &builder);
  ~ValidShapeReifier();
  SmallVector<OpFoldResult> reify(Location loc, Value tile);
  void remember(Value tile, ArrayRef<OpFoldResult> extents);

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
  OpBuilder &builderRef;
};

template <typename ConcreteType>
class CubeOpTrait : public OpTrait::TraitBase<ConcreteType, CubeOpTrait> {};
template <typename ConcreteType>
class VectorOpTrait : public OpTrait::TraitBase<ConcreteType, VectorOpTrait> {};

template <typename ConcreteType>
class ElementwiseOpTrait
    : public OpTrait::TraitBase<ConcreteType, ElementwiseOpTrait> {};
template <typename ConcreteType>
class ReductionOpTrait
    : public OpTrait::TraitBase<ConcreteType, ReductionOpTrait> {};

namespace detail {
/// The op-class traits above as bits.
enum OpClassBits : uint8_t {
  kCubeOpBit = 1,
  kVectorOpBit = 2,
  kElementwiseOpBit = 4,
  kReductionOpBit = 8,
};
/// The op-class bits of `op`, read from a table filled once from the pto op
/// definitions (PTODialect.cpp). `Operation::hasTrait` is a virtual call
/// that compares the trait against each of the op's ~15 traits; these
/// predicates run on every op in several passes and in the pto.task
/// verifier, which runs after every pass.
uint8_t getOpClassBits(Operation *op);
} // namespace detail

/// Whether `op` runs on the cube core / a vector core.
inline bool isCubeOp(Operation *op) {
  return detail::getOpClassBits(op) & detail::kCubeOpBit;
}
inline bool isVectorOp(Operation *op) {
  return detail::getOpClassBits(op) & detail::kVectorOpBit;
}
/// Whether `op` is an elementwise tile op / a one-dim reduction
/// (PTOInterfaces.td says which ops and what holds for them).
inline bool isElementwiseOp(Operation *op) {
  return detail::getOpClassBits(op) & detail::kElementwiseOpBit;
}
inline bool isReductionOp(Operation *op) {
  return detail::getOpClassBits(op) & detail::kReductionOpBit;
}

/// `out[i] = f(lhs[i * lhsStride], rhs[i * rhsStride])` for `0 <= i < n`,
/// with the contiguous and scalar-broadcast cases as their own loops (the
/// compiler vectorises them). ElementwiseBinaryOpInterface's row evaluation.
template <typename F>
void mapElementwiseRow(F f, const float *lhs, int64_t lhsStride,
                       const float *rhs, int64_t rhsStride, float *out,
                       int64_t n) {
  if (lhsStride == 1 && rhsStride == 1) {
    for (int64_t i = 0; i < n; ++i)
      out[i] = f(lhs[i], rhs[i]);
  } else if (lhsStride == 1 && rhsStride == 0) {
    float scalar = *rhs;
    for (int64_t i = 0; i < n; ++i)
      out[i] = f(lhs[i], scalar);
  } else {
    for (int64_t i = 0; i < n; ++i)
      out[i] = f(lhs[i * lhsStride], rhs[i * rhsStride]);
  }
}

} // namespace mlir::pto

#include "pto/Dialect/PTO/IR/PTOInterfaces.h.inc"

#endif // PTO_DIALECT_PTO_IR_PTOINTERFACES_H
