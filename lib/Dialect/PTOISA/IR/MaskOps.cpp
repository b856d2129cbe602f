//===- MaskOps.cpp - pto_isa compare and select ---------------------------===//
//
// Verifiers of TCMP, TCMPS, TSEL and TSELS: the static rules pto-isa's
// headers assert (include/pto/npu/a2a3/TCmp.hpp, TCmps.hpp, TSel.hpp,
// TSels.hpp), so every op the IR holds instantiates in the emitted C++.
//
//===----------------------------------------------------------------------===//

#include "pto/Dialect/PTOISA/IR/PTOISA.h"

using namespace mlir;
using namespace mlir::ptoisa;

static TileType tileOf(Value v) { return cast<TileType>(v.getType()); }

static LogicalResult expectRowMajorUB(Operation *op, StringRef role,
                                      Value tile) {
  TileType type = tileOf(tile);
  if (type.getSpace() != MemorySpace::ub || type.getLayout() != TileLayout::nd)
    return op->emitOpError()
           << role << " must be a row-major (nd) ub tile, not " << type;
  return success();
}

/// The destination of a compare: a row-major ub tile of ui8 (the packed
/// mask), with at least one bit per source column.
static LogicalResult expectMask(Operation *op, StringRef role, Value mask,
                                Value source) {
  if (failed(expectRowMajorUB(op, role, mask)))
    return failure();
  TileType type = tileOf(mask), src = tileOf(source);
  if (!type.getElementType().isUnsignedInteger(8))
    return op->emitOpError()
           << role << " " << type
           << " must hold ui8: the packed bit mask (8 columns per byte)";
  if (type.getRows() < src.getRows() || type.getCols() * 8 < src.getCols())
    return op->emitOpError()
           << role << " " << type << " cannot hold one bit per element of "
           << src << "; it needs at least " << src.getRows() << " rows and "
           << (src.getCols() + 7) / 8 << " columns";
  return success();
}

static LogicalResult expectCompared(Operation *op, StringRef role, Value tile) {
  if (failed(expectRowMajorUB(op, role, tile)))
    return failure();
  Type t = tileOf(tile).getElementType();
  if (t.isF32() || t.isF16() || t.isSignlessInteger(32))
    return success();
  return op->emitOpError() << role << " holds " << t
                           << "; pto-isa compares f32, f16 or i32 (convert "
                              "with pto_isa.tcvt first)";
}

static LogicalResult expectSelected(Operation *op, StringRef role, Value tile,
                                    Type element) {
  if (failed(expectRowMajorUB(op, role, tile)))
    return failure();
  Type t = tileOf(tile).getElementType();
  if (t != element)
    return op->emitOpError() << role << " holds " << t << " but the "
                             << "destination holds " << element
                             << "; TSEL selects within one element type";
  unsigned bits = t.getIntOrFloatBitWidth();
  if (bits != 16 && bits != 32)
    return op->emitOpError()
           << role << " holds " << t << "; TSEL selects 2- or 4-byte elements";
  return success();
}

/// The scratch block TSEL / TSELS stage the mask row or the scalar in (any
/// nd ub tile holds at least one 32-byte block).
static LogicalResult expectScratch(Operation *op, Value tmp) {
  return expectRowMajorUB(op, "scratch", tmp);
}

LogicalResult TCmpOp::verify() {
  if (failed(expectCompared(*this, "lhs", getLhs())) ||
      failed(expectCompared(*this, "rhs", getRhs())))
    return failure();
  if (tileOf(getLhs()).getElementType() != tileOf(getRhs()).getElementType())
    return emitOpError() << "compares " << tileOf(getLhs()).getElementType()
                         << " with " << tileOf(getRhs()).getElementType()
                         << "; both sources have one element type";
  return expectMask(*this, "destination", getDst(), getLhs());
}

LogicalResult TCmpSOp::verify() {
  if (failed(expectCompared(*this, "source", getSrc())))
    return failure();
  if (getScalar().getType() != tileOf(getSrc()).getElementType())
    return emitOpError() << "scalar of type " << getScalar().getType()
                         << " differs from the source element type "
                         << tileOf(getSrc()).getElementType();
  return expectMask(*this, "destination", getDst(), getSrc());
}

LogicalResult TSelOp::verify() {
  Type element = tileOf(getDst()).getElementType();
  if (failed(expectSelected(*this, "destination", getDst(), element)) ||
      failed(expectSelected(*this, "on_true", getOnTrue(), element)) ||
      failed(expectSelected(*this, "on_false", getOnFalse(), element)) ||
      failed(expectScratch(*this, getTmp())))
    return failure();
  return expectMask(*this, "mask", getMask(), getDst());
}

LogicalResult TSelSOp::verify() {
  Type element = tileOf(getDst()).getElementType();
  if (failed(expectSelected(*this, "destination", getDst(), element)) ||
      failed(expectSelected(*this, "source", getSrc(), element)) ||
      failed(expectScratch(*this, getTmp())))
    return failure();
  if (getScalar().getType() != element)
    return emitOpError() << "scalar of type " << getScalar().getType()
                         << " differs from the element type " << element;
  return expectMask(*this, "mask", getMask(), getDst());
}
